"""The pure chain step (solver/chain_step.py, solver/chain_description.py) without Blender.

The truth here is independent of the step: plain forward kinematics of bones that rotate about the plane normal
in armature space, written out below, and the quaternion of a rotation about an axis by hand.
"""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

import numpy as np
import pytest

from solver.chain_channels import channel_values
from solver.chain_description import ERROR_PROP, FLAGS_PROP, ChainDescription, ChainSettings
from solver.chain_step import ChainSamples, ChainSolution, NoFiniteFrame, solve_chain, solve_chains

Z = np.array([0.0, 0.0, 1.0])


def description(lengths: tuple[float, ...] = (2.0, 1.5), **settings: object) -> ChainDescription:
    """Bones along armature +Y from the origin (Blender's bone axis), rotating about +Z (plane XY)."""
    n = len(lengths)
    names = tuple(f"b{i}" for i in range(n))
    return ChainDescription(bone_names=names, parent_name=None, lengths=np.array(lengths, dtype=np.float64),
                            rest_angles=np.zeros(n), normal=Z.copy(), local_axes=np.tile(Z, (n, 1)),
                            upper_rest=np.eye(4), parent_to_upper=np.eye(4),
                            settings=ChainSettings(**settings))  # type: ignore[arg-type]


def rot_z(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def translations(points: np.ndarray) -> np.ndarray:
    m = np.tile(np.eye(4), (len(points), 1, 1))
    m[:, :3, 3] = points
    return m


def fk_tip(lengths: np.ndarray, deltas: np.ndarray, armature: np.ndarray) -> np.ndarray:
    """World tip of bones along +Y rotated by their deltas about +Z, each relative to its parent."""
    point, angle = np.zeros(3), 0.0
    for length, delta in zip(lengths, deltas, strict=True):
        angle += float(delta)
        point = point + length * (rot_z(angle) @ np.array([0.0, 1.0, 0.0]))
    return armature[:3, :3] @ point + armature[:3, 3]


def arm_world(frames: int, scale: float = 1.0, turn: float = 0.0, shift: tuple[float, float, float] = (0, 0, 0)
              ) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = scale * rot_z(turn)
    m[:3, 3] = shift
    return np.tile(m, (frames, 1, 1))


@pytest.mark.parametrize("solver_name", ["ANALYTIC", "CCD", "FABRIK"])
def test_solved_pose_reaches_targets_in_reach(solver_name: str) -> None:
    lengths = (2.0, 1.5) if solver_name == "ANALYTIC" else (1.0, 1.2, 0.8)
    rig = description(lengths, solver=solver_name)
    t = np.linspace(0.0, 1.0, 7)
    arm = arm_world(len(t), scale=2.0, turn=0.3, shift=(1.0, -2.0, 0.5))
    local = np.stack([1.5 + 0.8 * np.cos(4 * t), 1.0 + 0.5 * np.sin(3 * t), np.zeros_like(t)], axis=1)
    targets = np.einsum("ij,nj->ni", arm[0, :3, :3], local) + arm[0, :3, 3]
    sol = solve_chain(rig, np.arange(1.0, 8.0), ChainSamples(armature=arm, target=translations(targets),
                                                             parent=None, pole=None))
    assert sol.valid.all()
    for i in range(len(t)):
        tip = fk_tip(rig.lengths, sol.deltas[i], arm[i])
        np.testing.assert_allclose(tip, targets[i], atol=1e-5)
        np.testing.assert_allclose(sol.tip_world[i], tip, atol=1e-6)
    distance = np.linalg.norm(sol.tip_world - targets, axis=1)
    resolution = 1e-7 * rig.total_length * 2.0  # below float32 resolution of the chain the error keys as 0
    np.testing.assert_allclose(sol.error, np.where(distance < resolution, 0.0, distance), atol=1e-12)


def test_out_of_reach_error_is_world_distance() -> None:
    rig = description((2.0, 1.5))
    arm = arm_world(1, scale=3.0)
    target = np.array([[0.0, 3.0 * 5.0, 0.0]])  # 5 rest units along the bone axis, chain reaches 3.5
    sol = solve_chain(rig, np.array([1.0]), ChainSamples(armature=arm, target=translations(target),
                                                         parent=None, pole=None))
    assert sol.error[0] == pytest.approx(3.0 * 1.5, rel=1e-6)
    np.testing.assert_allclose(fk_tip(rig.lengths, sol.deltas[0], arm[0]), [0.0, 3.0 * 3.5, 0.0], atol=1e-6)


@pytest.mark.parametrize("scale", [1.0, 2.5])
def test_sensitivity_is_per_world_unit(scale: float) -> None:
    """The reported sensitivity is |d angles / d target| with the target moved in world units: on an armature
    scaled by 2.5 a world unit is 0.4 rest units, so the same pose is 2.5 times less sensitive."""
    rig = description((2.0, 1.5))
    arm = arm_world(1, scale=scale, turn=0.7, shift=(1.0, -2.0, 0.5))

    def solve(world: np.ndarray) -> ChainSolution:
        return solve_chain(rig, np.array([1.0]), ChainSamples(armature=arm, target=translations(world[None]),
                                                              parent=None, pole=None))

    target = arm[0, :3, :3] @ np.array([1.1, 2.2, 0.0]) + arm[0, :3, 3]
    solved = solve(target)
    h = 1e-6 * scale
    jac = np.empty((2, 2))
    for k in range(2):  # the plane is the armature's XY: world x and y move the target within it
        step = np.zeros(3)
        step[k] = h
        jac[:, k] = (solve(target + step).deltas[0] - solve(target - step).deltas[0]) / (2 * h)
    expected = float(np.linalg.svd(jac, compute_uv=False)[0])
    assert expected > 0.1 / scale
    assert solved.sensitivity[0] == pytest.approx(expected, rel=1e-5)


def test_frames_with_non_finite_inputs_are_invalid_and_all_bad_raises_named() -> None:
    rig = description()
    targets = np.array([[1.0, 2.0, 0.0], [np.nan, 0.0, 0.0], [0.5, 2.5, 0.0]])
    sol = solve_chain(rig, np.arange(3.0), ChainSamples(armature=arm_world(3), target=translations(targets),
                                                        parent=None, pole=None))
    assert sol.valid.tolist() == [True, False, True]
    np.testing.assert_allclose(sol.deltas[1], sol.deltas[0])  # held at the last valid frame
    bad = translations(np.full((2, 3), np.inf))
    with pytest.raises(NoFiniteFrame) as caught:
        solve_chain(rig, np.arange(2.0), ChainSamples(armature=arm_world(2), target=bad, parent=None,
                                                      pole=translations(np.ones((2, 3)))))
    assert caught.value.inputs == ("target",)


def test_settings_are_copied_as_plain_values() -> None:
    props = SimpleNamespace(**{name: value for name, value in vars(ChainSettings()).items()})
    props.bend, props.softness, props.limit_strategy, props.use_elbow_limit = -1, np.float32(0.25), "STRETCH", 1
    settings = ChainSettings.copied_from(props)
    assert settings.bend == -1 and type(settings.softness) is float and settings.softness == 0.25
    assert settings.use_elbow_limit is True and settings.stretches and not settings.moves_root
    with pytest.raises(AttributeError):
        settings.bend = 1  # type: ignore[misc]


@pytest.mark.parametrize(("strategy", "extra"), [("ACCEPT", []), ("MOVE_ROOT", [("b0", "location", 3)]),
                                                 ("STRETCH", [("b0", "scale", 3)])])
def test_owned_channels_follow_the_strategy(strategy: str, extra: list[tuple[str, str, int]]) -> None:
    rig = description(limit_strategy=strategy)
    owned = rig.owned_channels(["QUATERNION", "XYZ"])
    assert owned == [("b0", "rotation_quaternion", 4), ("b1", "rotation_euler", 3), *extra,
                     ("b1", ERROR_PROP, 1), ("b1", FLAGS_PROP, 1)]
    assert rig.owns("b0", "location") == (strategy == "MOVE_ROOT")
    assert rig.owns("b0", "scale") == (strategy == "STRETCH")
    assert not rig.owns("b1", "location") and not rig.owns("b1", "scale")
    assert rig.owns("b1", ERROR_PROP) and not rig.owns("b0", FLAGS_PROP)


def test_channel_values_match_the_solution() -> None:
    rig = description(limit_strategy="STRETCH", use_elbow_limit=True, elbow_min=0.0, elbow_max=0.2,
                      stretch_min=0.5, stretch_max=2.0)
    targets = np.array([[0.3, 1.0, 0.0], [-1.0, 1.2, 0.0]])
    sol = solve_chain(rig, np.arange(2.0), ChainSamples(armature=arm_world(2), target=translations(targets),
                                                        parent=None, pole=None))
    channels = channel_values(rig, sol, ["QUATERNION", "XYZ"])
    assert [(c.bone, c.prop) for c in channels] == [(b, p) for b, p, _ in rig.owned_channels(["QUATERNION", "XYZ"])]
    by_prop = {c.prop: c for c in channels}
    d0 = sol.deltas[:, 0]
    quat = by_prop["rotation_quaternion"].values
    want = np.stack([np.cos(d0 / 2), 0 * d0, 0 * d0, np.sin(d0 / 2)], axis=1)
    np.testing.assert_allclose(quat * np.sign(quat[:, :1]), want * np.sign(want[:, :1]), atol=1e-12)
    np.testing.assert_allclose(by_prop["rotation_euler"].values[:, 2], sol.deltas[:, 1], atol=1e-12)
    np.testing.assert_allclose(by_prop["scale"].values, np.repeat(sol.stretch[:, None], 3, axis=1))
    assert (sol.stretch != 1.0).any()  # the elbow limit blocks the second target: Stretch acted
    np.testing.assert_allclose(by_prop[ERROR_PROP].values[:, 0], sol.error)
    assert by_prop[FLAGS_PROP].interpolation == "CONSTANT"
    np.testing.assert_array_equal(by_prop[FLAGS_PROP].values[:, 0], sol.flags)
    one = channel_values(rig, sol, ["QUATERNION", "XYZ"], index=-1)
    assert all(c.values.shape[0] == 1 for c in one)
    np.testing.assert_allclose(one[0].values[0], quat[-1])


def moving_parent(frames: int) -> np.ndarray:
    """A parent bone (world) that turns and moves over the frames, its tail where the chain's upper bone starts."""
    m = np.tile(np.eye(4), (frames, 1, 1))
    for i in range(frames):
        m[i, :3, :3] = rot_z(0.05 * i)
        m[i, :3, 3] = (0.1 * i, -0.05 * i, 0.0)
    return m


def test_chains_solved_together_match_each_solved_alone() -> None:
    frames = 9
    t = np.linspace(0.0, 1.0, frames)
    ring = np.stack([1.2 + 0.6 * np.cos(5 * t), 1.4 + 0.4 * np.sin(2 * t), np.zeros_like(t)], axis=1)
    rigs = [description((2.0, 1.5)),
            description((1.0, 0.7), limit_strategy="MOVE_ROOT", use_shoulder_limit=True, shoulder_min=-0.2,
                        shoulder_max=0.2, root_smoothing=0),
            description((1.0, 1.2, 0.8), solver="FABRIK"),
            description((1.5, 1.5), limit_strategy="STRETCH", use_elbow_limit=True, elbow_max=0.3,
                        stretch_min=0.5, stretch_max=1.5, smoothing="EXPONENTIAL")]
    samples = [ChainSamples(armature=arm_world(frames, 2.0, 0.4, (1.0, 0.0, 0.0)), target=translations(ring * 2.0),
                            parent=None, pole=None),
               ChainSamples(armature=arm_world(frames), target=translations(ring), parent=moving_parent(frames),
                            pole=translations(ring + np.array([0.0, 3.0, 0.0]))),
               ChainSamples(armature=arm_world(frames), target=translations(ring[::-1]), parent=None, pole=None,
                            upper_location=np.stack([0.1 * t, 0 * t, 0 * t], axis=1)),
               ChainSamples(armature=arm_world(frames), target=translations(ring * 1.1), parent=None,
                            pole=translations(np.tile([2.0, -1.0, 0.0], (frames, 1))))]
    together = solve_chains(rigs, np.arange(float(frames)), samples, fps=30.0)
    for rig, s, joint in zip(rigs, samples, together, strict=True):
        alone = solve_chain(rig, np.arange(float(frames)), s, fps=30.0)
        for name in ("deltas", "root_offset", "stretch", "error", "flags", "tip_world", "solved_target_world",
                     "base", "armature_world"):
            np.testing.assert_allclose(getattr(joint, name), getattr(alone, name), rtol=0, atol=1e-12,
                                       err_msg=name)
    # The first chain (static, scaled and turned armature) against plain forward kinematics.
    for i in range(frames):
        np.testing.assert_allclose(fk_tip(rigs[0].lengths, together[0].deltas[i], samples[0].armature[i]),
                                   together[0].tip_world[i], atol=1e-9)
    assert together[1].flags.any() and (together[3].stretch != 1.0).any()  # limits and strategies acted


def test_one_chain_without_finite_frames_names_itself_among_several() -> None:
    good = ChainSamples(armature=arm_world(2), target=translations(np.ones((2, 3))), parent=None, pole=None)
    bad = ChainSamples(armature=arm_world(2), target=translations(np.ones((2, 3))), parent=None,
                       pole=translations(np.full((2, 3), np.nan)))
    with pytest.raises(NoFiniteFrame) as caught:
        solve_chains([description(), description()], np.arange(2.0), [good, bad])
    assert caught.value.inputs == ("pole",)


def test_long_bakes_solve_a_few_chains_at_a_time_with_the_same_results(monkeypatch: pytest.MonkeyPatch) -> None:
    import solver.chain_step as step

    frames = 6
    t = np.linspace(0.0, 1.0, frames)
    rigs = [description((1.0 + 0.2 * k, 1.0)) for k in range(5)]
    samples = [ChainSamples(armature=arm_world(frames), parent=moving_parent(frames), pole=None,
                            target=translations(np.stack([1.0 + 0.3 * t, 0.8 + 0.1 * k + 0 * t, 0 * t], axis=1)))
               for k in range(5)]
    samples[3] = dataclasses.replace(samples[3], target=translations(np.full((frames, 3), np.nan)))
    with pytest.raises(NoFiniteFrame) as whole:
        solve_chains(rigs, np.arange(float(frames)), samples)
    good_rigs = [r for k, r in enumerate(rigs) if k != 3]
    good_samples = [s for k, s in enumerate(samples) if k != 3]
    together = solve_chains(good_rigs, np.arange(float(frames)), good_samples)
    monkeypatch.setattr(step, "ROWS_AT_ONCE", 2 * frames)  # two chains per pass
    with pytest.raises(NoFiniteFrame) as parts:
        solve_chains(rigs, np.arange(float(frames)), samples)
    assert whole.value.chain == parts.value.chain == 3
    apart = solve_chains(good_rigs, np.arange(float(frames)), good_samples)
    assert len(apart) == 4
    for a, b in zip(together, apart, strict=True):
        np.testing.assert_array_equal(a.deltas, b.deltas)
        np.testing.assert_array_equal(a.tip_world, b.tip_world)
