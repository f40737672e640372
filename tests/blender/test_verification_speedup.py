"""Issue 17's cheaper verification measures what the full one measured (rigging/verification.py).

Two shortcuts: the lower bone's tail and y axis are moved by the rotation's y column only (the full product adds
exact zeros to the same products), and a bake checks the F-curve eligibility of all its chains at once, falling
back to a check per chain only when that finds a reason. The first is compared bit for bit with the full
product in every rotation mode; the second on a bake of two armatures where only one must be stepped, against
Blender's playback.
"""

from __future__ import annotations

import bpy
import harness
import numpy as np
import pytest
import rigs
from test_production_truth import FRAMES, MISMATCH, TOLERANCE, assert_true, chain_rig, playback

MODES = ("QUATERNION", "AXIS_ANGLE", "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")


def _channels(rng: np.random.Generator, mode: str, n: int) -> dict[str, np.ndarray]:
    size = 4 if mode in ("QUATERNION", "AXIS_ANGLE") else 3
    rotation = rng.normal(size=(n, size)).astype(np.float32)
    if n > 2:
        rotation[1] = 0.0  # an all-zero quaternion (Blender's half turn about X) and a zero axis-angle
    name = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}.get(mode, "rotation_euler")
    scale = rng.uniform(-2.0, 2.0, size=(n, 3)).astype(np.float32)
    return {name: rotation, "scale": scale, "location": rng.normal(size=(n, 3)).astype(np.float32)}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("frames", [1, 200])
@pytest.mark.parametrize("connected", [True, False])
def test_lower_tail_from_the_y_column_equals_the_full_rotation(empty_file: bpy.types.Scene, mode: str, frames: int,
                                                               connected: bool) -> None:
    tail_math = harness.package("rigging.tail_math")
    rng = np.random.default_rng(len(mode) * 7 + frames + connected)
    ch = _channels(rng, mode, frames)
    length = 0.8125
    fast = tail_math.lower_basis(mode, ch, connected, length)
    full = tail_math.pose_basis(mode, ch, connected, np.array([[0.0], [length], [0.0]]),
                                    np.array([[0.0], [1.0], [0.0]]))
    for got, want in zip(fast, full, strict=True):
        assert got.shape == want.shape
        # Equal values (a zero may differ in sign only) and bit-equal norms: all the verification keeps.
        np.testing.assert_array_equal(got, want)
        assert (tail_math.norm(got) == tail_math.norm(want)).all()


def test_lower_tail_with_a_non_finite_scale_takes_the_full_path(empty_file: bpy.types.Scene) -> None:
    tail_math = harness.package("rigging.tail_math")
    ch = _channels(np.random.default_rng(3), "QUATERNION", 20)
    ch["scale"][4, 0] = np.inf  # 0 * inf is NaN in the full product: the point must be NaN there too
    with np.errstate(invalid="ignore"):
        fast = tail_math.lower_basis("QUATERNION", ch, False, 1.0)
        full = tail_math.pose_basis("QUATERNION", ch, False, np.array([[0.0], [1.0], [0.0]]),
                                        np.array([[0.0], [1.0], [0.0]]))
    for got, want in zip(fast, full, strict=True):
        np.testing.assert_array_equal(got, want)
    assert np.isnan(fast[0][:, 4]).any()


def _stepped_and_moved(rig: rigs.ArmRig) -> None:
    """Blender's playback of the armature is stepped (the bone above the chain takes its keyed location in the
    armature's axes) and moves the chain off its keys (a user's Noise modifier left on a baked rotation curve).

    The rest position served here until the checks refused it (test_rest_position.py).
    """
    rig.armature.data.bones["Root"].use_local_location = False
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    noise = rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "rotation_quaternion"), 0).modifiers.new("NOISE")
    noise.strength, noise.scale = 0.3, 3.0


def test_chains_verified_together_where_only_one_armature_must_be_stepped(
        empty_file: bpy.types.Scene, capfd: pytest.CaptureFixture[str]) -> None:
    """Baked together, the armature Blender's playback must be stepped for is measured by stepping (its mismatch
    warned and keyed as played back) while the other is still composed and true."""
    plain, _plain_chain, plain_target = chain_rig()
    stepped, _stepped_chain, stepped_target = chain_rig()
    _stepped_and_moved(stepped)
    bake, verification = harness.package("rigging.bake"), harness.package("rigging.verification")
    sampling = harness.package("rigging.sampling")
    assert not sampling.stepped_objects(bpy.context, [(plain.armature, plain.lower)])
    assert sampling.stepped_objects(bpy.context, [(stepped.armature, stepped.lower)]), "the armature must be stepped"

    # Measured together (before any key is written), each chain gets what it gets measured alone.
    prepared = bake.prepare(plain.armature, [plain.armature.soft_ik_2d.chains[0]]) + bake.prepare(
        stepped.armature, [stepped.armature.soft_ik_2d.chains[0]])
    solutions = bake.solve_chains(bpy.context, prepared, np.array(FRAMES, dtype=np.float64))
    together = verification.measure(bpy.context, prepared, solutions)
    for k in range(2):
        alone = verification.measure(bpy.context, [prepared[k]], [solutions[k]])[0]
        for field in ("error", "tolerance", "deviation", "mismatch"):
            np.testing.assert_array_equal(getattr(together[k], field), getattr(alone, field))

    # One bake of both armatures: Blender's playback is what is keyed, the stepped chain alone is warned.
    rigs.pose_mode_together([plain.armature, stepped.armature])
    capfd.readouterr()
    assert bpy.ops.pose.soft_ik_bake(frame_start=FRAMES[0], frame_end=FRAMES[-1]) == {"FINISHED"}
    out = capfd.readouterr().out
    warnings = [line for line in out.splitlines() if line.startswith("Warning:") and MISMATCH in line]
    assert len(warnings) == 1 and f"'{stepped.armature.name}'" in warnings[0], out
    assert assert_true(plain, plain_target).max() <= TOLERANCE
    miss = assert_true(stepped, stepped_target)
    assert miss.max() > 100 * TOLERANCE
    measured, _keyed, _length = playback(stepped, stepped_target)
    assert np.isfinite(measured).all()
    assert rigs.fcurve(plain.armature, rigs.bone_path(plain.lower, "soft_ik_error")) is not None
