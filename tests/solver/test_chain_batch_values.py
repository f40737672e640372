"""Issue 17: values computed for all chains of a solve at once equal the ones computed chain by chain, bit for bit.

The bake's quaternion channels come from :func:`solver.chain_channels.with_quaternions` (one pass over every
chain's frames, :func:`solver.rotations.quaternions_about_axes`); :func:`channel_values` without them computes
each bone's own. Randomized mixed chains (two-bone, CCD, FABRIK, limits, strategies, stretch to reach, poles,
invalid frames), every rotation mode, with and without the keys before the range (``previous``), angle steps
past pi (the unwrapping path) and non-finite angles.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from solver.chain_channels import channel_values, with_quaternions
from solver.chain_step import ChainSolution, solve_chains
from solver.rotations import quaternions_about_axes, quaternions_about_axis
from tests.solver.test_chain_step_speedup import FRAMES, random_batch, random_description, random_samples

MODES = ("QUATERNION", "QUATERNION", "XYZ", "ZXY", "AXIS_ANGLE")


def bits(a: np.ndarray) -> np.ndarray:
    """The array's float64 bit patterns (so -0.0 differs from 0.0 and NaNs compare)."""
    return np.ascontiguousarray(a, dtype=np.float64).view(np.int64)


def assert_same_values(new: list, old: list, label: str) -> None:
    assert [(c.bone, c.prop, c.interpolation) for c in new] == [(c.bone, c.prop, c.interpolation) for c in old]
    for a, b in zip(new, old, strict=True):
        assert a.values.shape == b.values.shape, f"{label} {a.bone} {a.prop}"
        np.testing.assert_array_equal(bits(a.values), bits(b.values), err_msg=f"{label} {a.bone} {a.prop}")


def without(sol: ChainSolution) -> ChainSolution:
    return dataclasses.replace(sol, quaternions=None)


@pytest.mark.parametrize("seed", range(4))
def test_batched_quaternions_equal_each_chains_own(seed: int) -> None:
    rng = np.random.default_rng(1800 + seed)
    rigs, samples, frames = random_batch(rng, seed * 10, 10)
    solutions = solve_chains(rigs, frames, samples, sensitivity=False, solved_targets=False)
    # Some chains' angles jump past pi or hold a NaN: the per-column unwrapping path, and the sign from the
    # first finite frame.
    for k in (1, 4):
        deltas = solutions[k].deltas.copy()
        deltas[FRAMES // 2:, 0] += 4.0 * (k - 2)
        if k == 4:
            deltas[:3, -1] = np.nan
        solutions[k] = dataclasses.replace(solutions[k], deltas=deltas)
    modes = [[str(rng.choice(MODES)) for _ in rig.bone_names] for rig in rigs]
    modes[0] = ["QUATERNION"] * len(rigs[0].bone_names)
    modes[4] = ["QUATERNION"] * len(rigs[4].bone_names)  # the NaN frames: the sign from the first finite one
    batched = with_quaternions(rigs, solutions, modes)
    assert batched[0].quaternions is not None
    for k, (rig, sol) in enumerate(zip(rigs, batched, strict=True)):
        before = [rng.normal(size=3 if m not in ("QUATERNION", "AXIS_ANGLE") else 4) for m in modes[k]]
        for previous in (None, before, [-p for p in before]):
            assert_same_values(channel_values(rig, sol, modes[k], previous),
                               channel_values(rig, without(sol), modes[k], previous), f"seed {seed} chain {k}")
        # One frame (the Solve operator's posing) computes its own values.
        assert_same_values(channel_values(rig, sol, modes[k], None, index=7),
                           channel_values(rig, without(sol), modes[k], None, index=7), f"chain {k} frame 7")


def test_precomputed_quaternions_are_not_used_for_other_deltas() -> None:
    """A solution given other deltas (dataclasses.replace, as the IK influence's blend does) computes its own."""
    rng = np.random.default_rng(5)
    rig = random_description(rng, 0)
    sol = solve_chains([rig], np.arange(1.0, FRAMES + 1.0), [random_samples(rng, rig, 0)])[0]
    (ready,) = with_quaternions([rig], [sol], [["QUATERNION", "QUATERNION"]])
    moved = dataclasses.replace(ready, deltas=ready.deltas + 0.25)
    assert_same_values(channel_values(rig, moved, ["QUATERNION"] * 2),
                       channel_values(rig, without(moved), ["QUATERNION"] * 2), "other deltas")
    fresh = channel_values(rig, without(moved), ["QUATERNION"] * 2)
    stale = channel_values(rig, ready, ["QUATERNION"] * 2)
    assert not np.array_equal(fresh[0].values, stale[0].values)


@pytest.mark.parametrize("frames", [1, 2, 141, 2000])
def test_quaternions_about_axes_equal_the_one_column_function(frames: int) -> None:
    """Column lengths that leave SIMD tails, several passes (ANGLES_AT_ONCE), steps past pi and NaNs."""
    rng = np.random.default_rng(frames)
    columns = 13
    deltas = np.cumsum(rng.normal(0.0, 0.3, (columns, frames)), axis=1)
    deltas[2, frames // 2:] += 7.0
    deltas[3, :1] = np.nan
    deltas[4] = -0.0
    axes = rng.normal(size=(columns, 3))
    q = quaternions_about_axes(axes, deltas)
    for c in range(columns):
        np.testing.assert_array_equal(bits(q[c]), bits(quaternions_about_axis(axes[c], deltas[c])), err_msg=str(c))
    plain = np.cumsum(rng.normal(0.0, 0.01, (columns, frames)), axis=1)  # the no-shift path for every column
    plain[5] = -0.0  # which that path turns into 0.0 after the first frame, as np.unwrap does
    q = quaternions_about_axes(axes, plain)
    for c in range(columns):
        np.testing.assert_array_equal(bits(q[c]), bits(quaternions_about_axis(axes[c], plain[c])), err_msg=str(c))


SOLUTION_ARRAYS = ("frames", "valid", "flags", "deltas", "root_offset", "stretch", "error", "sensitivity",
                   "tip_world", "target_world", "solved_target_world", "base", "armature_world", "parent_frame",
                   "scale")


@pytest.mark.parametrize("seed", range(4))
def test_batched_solutions_equal_the_frozen_step_bit_for_bit(seed: int) -> None:
    """The solutions built for all chains at once (solver.chain_results), against the frozen chain-by-chain
    step: every array's bits (a -0.0 for a 0.0 fails here), chains of every kind mixed in one solve, frames
    with non-finite inputs, one frame."""
    from tests.solver import frozen_chain_step as before

    rigs, samples, frames = random_batch(np.random.default_rng(1810 + seed), seed * 15, 15)
    for sl, lean in ((slice(None), False), (slice(None), True), (slice(9, 10), False)):
        part = [dataclasses.replace(s, **{f: None if getattr(s, f) is None else getattr(s, f)[sl]
                                          for f in ("armature", "target", "parent", "pole", "upper_location")})
                for s in samples]
        if sl.start is not None:
            part = [p for p in part if np.isfinite(p.target).all()]
        chosen = rigs[:len(part)] if sl.start is None else [r for r, s in zip(rigs, samples, strict=True)
                                                          if np.isfinite(s.target[sl]).all()]
        kw = {"sensitivity": False, "solved_targets": False} if lean else {}
        new = solve_chains(chosen, frames[sl], part, **kw)
        old = before.solve_chains(chosen, frames[sl], part)  # type: ignore[arg-type]
        for k, (a, b) in enumerate(zip(new, old, strict=True)):
            for name in SOLUTION_ARRAYS:
                if lean and name in ("sensitivity", "solved_target_world"):  # not computed on the bake path
                    continue
                x, y = getattr(a, name), getattr(b, name)
                assert (x is None) == (y is None), f"chain {k} {name}"
                if x is not None:
                    np.testing.assert_array_equal(bits(np.asarray(x)), bits(np.asarray(y)),
                                                  err_msg=f"seed {seed} chain {k} {name} lean {lean}")


def test_pose_deltas_unwrap_each_chain_as_np_unwrap_does() -> None:
    """Per chain np.unwrap(angles - rest, axis=0), bits included (it turns a -0.0 after the first frame into
    0.0), whether or not the other chains of the stack need shifting."""
    from solver.chain_results import pose_deltas

    rng = np.random.default_rng(11)
    rigs = [random_description(rng, c) for c in (0, 1, 2, 3, 5)]  # two-bone and CCD/FABRIK (3 bones)
    rigs[:2] = [dataclasses.replace(r, rest_angles=np.zeros(len(r.bone_names))) for r in rigs[:2]]
    for jump in (False, True):
        angles = []
        for k, rig in enumerate(rigs):
            a = np.cumsum(rng.normal(0.0, 0.2, (FRAMES, len(rig.bone_names))), axis=0)
            a[::3] = -0.0  # -0.0 - 0.0 = -0.0: such deltas every third frame of the chains at rest angle 0
            if jump and k % 2:
                a[FRAMES // 2:, 0] += 5.0
            angles.append(a)
        got = pose_deltas(rigs, [tuple(a.T) for a in angles], FRAMES)
        for k, rig in enumerate(rigs):
            want = np.unwrap(angles[k] - rig.rest_angles, axis=0)
            np.testing.assert_array_equal(bits(got[k]), bits(want), err_msg=f"chain {k} jump {jump}")


def test_tip_errors_floor_is_each_chains_own() -> None:
    """The error below float32 resolution of each chain's own length and world scale is 0, above it kept."""
    from solver.chain_results import ERROR_RESOLUTION, tip_errors

    rng = np.random.default_rng(12)
    rigs = [random_description(rng, c) for c in range(4)]
    scale = np.array([0.5, 1.0, 3.0, 10.0])
    floors = np.array([ERROR_RESOLUTION * float(np.sum(r.lengths)) * s for r, s in zip(rigs, scale, strict=True)])
    target = rng.normal(size=(4, 6, 3))
    direction = np.array([0.6, 0.0, 0.8])
    ratios = np.array([0.0, 0.5, 0.99, 1.01, 2.0, 1e3])
    tip = target + (floors[:, None, None] * ratios[None, :, None]) * direction
    error = tip_errors(rigs, np.moveaxis(tip, -1, 0), np.moveaxis(target, -1, 0), scale)
    miss = tip - target
    want = np.sqrt(miss[..., 0] * miss[..., 0] + miss[..., 1] * miss[..., 1] + miss[..., 2] * miss[..., 2])
    want[want < floors[:, None]] = 0.0
    np.testing.assert_array_equal(bits(error), bits(want))
    assert (error[:, :3] == 0.0).all() and (error[:, 3:] > 0.0).all()


def test_root_offsets_that_never_move_share_one_product() -> None:
    """A root that never moves (all +0.0) gives every chain with the same axes the matmul's own bits; any other
    offset (a -0.0 included) is multiplied itself."""
    from solver.chain_results import root_offset_of

    rng = np.random.default_rng(13)
    axes = -np.abs(rng.normal(size=(2, 3)))  # negative: 0 * axis is -0.0, whose sum's sign the matmul decides
    still: dict[bytes, np.ndarray] = {}
    for offset in (np.zeros((FRAMES, 2)), np.zeros((FRAMES, 2)), np.full((FRAMES, 2), -0.0),
                   rng.normal(size=(FRAMES, 2)), np.zeros((FRAMES + 1, 2)), np.zeros((FRAMES, 4))[:, ::2]):
        got = root_offset_of(offset, axes, still)
        np.testing.assert_array_equal(bits(got), bits(offset @ axes))
        assert not np.shares_memory(got, next(iter(still.values())))
    assert len(still) == 2  # one product per (axes, frame count)


def test_long_bakes_compute_each_chains_quaternions_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past QUATERNIONS_AT_ONCE nothing is computed ahead (a long bake's memory peak stays one chain's)."""
    from solver import chain_channels

    rng = np.random.default_rng(14)
    rigs = [random_description(rng, 0), random_description(rng, 0)]
    frames = np.arange(1.0, FRAMES + 1.0)
    sols = solve_chains(rigs, frames, [random_samples(rng, r, 0) for r in rigs])
    modes = [["QUATERNION"] * 2] * 2
    assert all(s.quaternions is not None for s in with_quaternions(rigs, sols, modes))
    monkeypatch.setattr(chain_channels, "QUATERNIONS_AT_ONCE", 4 * FRAMES - 1)
    assert all(s.quaternions is None for s in with_quaternions(rigs, sols, modes))
