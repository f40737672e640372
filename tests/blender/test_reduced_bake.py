"""Editable bakes (issue 15, part 4): Key Reduction keeps far fewer keys, the played-back tip stays within the
tolerance of the full bake's on every frame, and the keyed soft_ik_error is the distance Blender plays back
from the reduced keys. Truth: ``frame_set`` and the evaluated pose (rigs.evaluate), never the add-on's model.
"""

from __future__ import annotations

import math

import bpy
import harness
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 121))
TOLERANCE = 2e-3
SCALE = 1.3


def walking_arm(modes: tuple[str, str] = ("QUATERNION", "QUATERNION"), every: int = 1
                ) -> tuple[rigs.ArmRig, bpy.types.Object]:
    """An arm on a moving armature reaching for a target on a slow loop, partly out of reach (soft IK acts),
    keyed every ``every`` frames (Bezier between keys when sparse)."""
    rig = rigs.build_arm(modes=modes)
    rigs.place_armature(rig, scale=(SCALE, SCALE, SCALE), keyed_shift=lambda f: (0.01 * f, 0.0, 0.0),
                        frames=FRAMES[::10])
    keyed = FRAMES[::every] + ([FRAMES[-1]] if (len(FRAMES) - 1) % every else [])
    points = rigs.circle_points(rig, keyed, lambda f: 1.2 + 0.55 * math.sin(f / 17.0), lambda f: -0.4 + f / 30.0)
    target = rigs.new_empty("Target")
    for f, p in zip(keyed, points, strict=True):
        target.location = p.tolist()
        target.keyframe_insert("location", frame=f)
    return rig, target


def key_count(rig: rigs.ArmRig) -> int:
    """Keys on the chain's rotation curves (both bones, every component)."""
    total = 0
    for bone in (rig.upper, rig.lower):
        prop, size = rigs.rotation_prop(rig.armature.pose.bones[bone].rotation_mode)
        for i in range(size):
            fc = rigs.fcurve(rig.armature, rigs.bone_path(bone, prop), i)
            total += 0 if fc is None else len(fc.keyframe_points)
    return total


def keyed_frames(rig: rigs.ArmRig) -> set[float]:
    frames: set[float] = set()
    for bone in (rig.upper, rig.lower):
        prop, size = rigs.rotation_prop(rig.armature.pose.bones[bone].rotation_mode)
        for i in range(size):
            fc = rigs.fcurve(rig.armature, rigs.bone_path(bone, prop), i)
            if fc is not None:
                frames |= set(rigs.key_frames(fc)[:, 0].tolist())
    return frames


def keyed_error(rig: rigs.ArmRig) -> np.ndarray:
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, "soft_ik_error"))
    assert fc is not None
    return np.array([fc.evaluate(f) for f in FRAMES])


@pytest.mark.parametrize(("mode", "modes", "every", "fewer", "shape"), [
    ("FIT", ("QUATERNION", "QUATERNION"), 1, 3, "LINEAR"),
    ("FIT", ("XZY", "AXIS_ANGLE"), 1, 3, "LINEAR"),
    ("TARGET_KEYS", ("QUATERNION", "YXZ"), 12, 2, "LINEAR"),
    ("FIT", ("QUATERNION", "XYZ"), 1, 3, "BEZIER"),
])
def test_reduced_bake_keeps_the_bound_with_far_fewer_keys(empty_file: bpy.types.Scene, mode: str,
                                                          modes: tuple[str, str], every: int, fewer: int,
                                                          shape: str) -> None:
    rig, target = walking_arm(modes, every)
    rigs.add_chain(rig, target)
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    full_keys = key_count(rig)
    full = rigs.evaluate(rig, target, FRAMES)
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1], key_reduction=mode, reduction_tolerance=TOLERANCE,
                     reduction_shape=shape) == {"FINISHED"}
    reduced = rigs.evaluate(rig, target, FRAMES)
    bound = TOLERANCE * (rig.a + rig.b) * SCALE
    distance = np.linalg.norm(reduced.tip_world - full.tip_world, axis=1)
    assert distance.max() <= bound * (1 + 1e-3), (distance.max(), bound)
    assert distance.max() > 0.1 * bound  # the keys were really reduced, not kept on every frame
    kept_keys = key_count(rig)
    kept_frames = keyed_frames(rig)
    chain = rig.armature.soft_ik_2d.chains[0]
    assert chain.kept_keys == len(kept_frames)
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, rigs.rotation_prop(modes[0])[0]), 1)
    assert fc is not None and {kp.interpolation for kp in fc.keyframe_points} == {shape}
    print(f"{mode} {shape} {modes}: {len(kept_frames)} of {len(FRAMES)} frames keyed, {kept_keys} of {full_keys} keys, "
          f"worst {distance.max():.3g} <= {bound:.3g}")
    assert len(kept_frames) <= len(FRAMES) // fewer
    if mode == "TARGET_KEYS":
        assert set(range(1, 121, every)) <= kept_frames  # the target's own key frames are keys
    # The keyed error is what Blender plays back from the reduced keys (soft IK leaves a real error here).
    measured = np.linalg.norm(reduced.tip_world - reduced.target_world, axis=1)
    assert measured.max() > 1e-3
    assert np.abs(keyed_error(rig) - measured).max() <= 1e-5
    assert chain.error_max == pytest.approx(measured.max(), abs=1e-5)


def test_tighter_tolerance_keeps_more_and_none_keeps_all(empty_file: bpy.types.Scene) -> None:
    rig, target = walking_arm()
    rigs.add_chain(rig, target)
    counts = {}
    for tol in (1e-2, 1e-3, 1e-4):
        assert rigs.bake(rig, 1, 120, key_reduction="FIT", reduction_tolerance=tol) == {"FINISHED"}
        counts[tol] = len(keyed_frames(rig))
    print("frames keyed by tolerance", counts)
    assert counts[1e-2] < counts[1e-3] < counts[1e-4]
    assert rigs.bake(rig, 1, 120) == {"FINISHED"}
    assert len(keyed_frames(rig)) == 120
    assert rig.armature.soft_ik_2d.chains[0].kept_keys == -1
    # Clear removes the reduced bake's keys as any bake's.
    assert rigs.bake(rig, 1, 120, key_reduction="FIT") == {"FINISHED"}
    assert bpy.ops.pose.soft_ik_clear_bake() == {"FINISHED"}
    assert keyed_frames(rig) == set()


def test_pure_reduction_is_reached() -> None:
    assert harness.package("solver.key_reduction").refine is not None


@pytest.mark.parametrize("strategy", ["STRETCH", "MOVE_ROOT"])
def test_reduced_strategy_channels_keep_the_bound(empty_file: bpy.types.Scene, strategy: str) -> None:
    """With an elbow limit and Stretch or Move Root, the scale / location channels are reduced on the same frames
    as the rotations, and the played-back tip still stays within the tolerance of the full bake."""
    rig, target = walking_arm(("QUATERNION", "XYZ"))
    chain = rigs.add_chain(rig, target)
    chain.use_elbow_limit = True
    chain.elbow_min, chain.elbow_max = -0.2, 1.2
    chain.limit_strategy = strategy
    chain.max_root_offset = 0.3
    chain.stretch_max = 1.3
    assert rigs.bake(rig, 1, 120) == {"FINISHED"}
    assert chain.limited_frames > 10
    full = rigs.evaluate(rig, target, FRAMES)
    assert rigs.bake(rig, 1, 120, key_reduction="FIT", reduction_tolerance=TOLERANCE) == {"FINISHED"}
    reduced = rigs.evaluate(rig, target, FRAMES)
    bound = TOLERANCE * (rig.a + rig.b) * SCALE
    distance = np.linalg.norm(reduced.tip_world - full.tip_world, axis=1)
    assert distance.max() <= bound * (1 + 1e-3), (distance.max(), bound)
    prop = "scale" if strategy == "STRETCH" else "location"
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, prop), 0)
    assert fc is not None
    frames = set(rigs.key_frames(fc)[:, 0].tolist())
    assert frames <= keyed_frames(rig) | {1.0, 120.0}
    assert len(keyed_frames(rig)) < 120 and chain.kept_keys == len(keyed_frames(rig))


def test_reduced_bake_in_nla_tweak_mode(empty_file: bpy.types.Scene) -> None:
    """Keys in the tweaked strip's own time (offset, scale): the reduced keys still play back within the bound of
    the full bake on every baked scene frame."""
    import test_actions_and_clear as nla

    rig, target, _strip = nla.nla_rig()
    frames = nla.REPEAT_FRAMES
    assert rigs.bake(rig, frames[0], frames[-1]) == {"FINISHED"}
    full = rigs.evaluate(rig, target, frames)
    tolerance = 1e-2  # the target moves fast here (a turn every 40 frames, in and out of reach)
    assert rigs.bake(rig, frames[0], frames[-1], key_reduction="FIT", reduction_tolerance=tolerance) == {"FINISHED"}
    reduced = rigs.evaluate(rig, target, frames)
    bound = tolerance * rig.length * rig.world_scale
    distance = np.linalg.norm(reduced.tip_world - full.tip_world, axis=1)
    assert distance.max() <= bound * (1 + 1e-3), (distance.max(), bound)
    kept = rig.armature.soft_ik_2d.chains[0].kept_keys
    print(f"NLA tweak mode: {kept} of {len(frames)} frames keyed, worst {distance.max():.3g} <= {bound:.3g}")
    assert 2 <= kept <= len(frames) // 2
