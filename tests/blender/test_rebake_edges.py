"""A re-bake over part of an earlier bake keeps both promises (found by tests/blender/test_production_fuzz.py).

- Frames an earlier bake keyed outside the new range keep their pose, so their keyed error stays true: a bake
  keeps one key of a run of equal values, and new keys in range would turn such a run into a slope (the first
  bake's Stretch keys, say); a new Stretch or Move Root curve would extrapolate its first or last value over the
  earlier bake's frames, also across a gap of frames no bake keyed; a Bezier segment of the user's reaching
  into the range would bend.
- A channel an earlier bake wrote and this one does not (Stretch, then Accept over part of it) is held at rest
  in the range, as the solve takes it, instead of playing the earlier bake's keys outside the range into it.
- Clear gives back every curve as it was, also after a reduced (Bezier) bake and a linear one on one channel.

Truth is Blender's playback only (``test_production_truth.assert_true``: the keyed error is the played-back
distance on every baked frame) and file snapshots.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import bpy
import numpy as np
import pytest
import rigs
from test_production_truth import FRAMES, MISMATCH, assert_true, chain_rig


@pytest.fixture(autouse=True)
def no_mismatch(capfd: pytest.CaptureFixture[str]) -> Iterator[None]:
    """No bake here may warn that playback differs from its solve: each one solves what Blender plays."""
    yield
    out = capfd.readouterr().out
    assert MISMATCH not in out, out


def curves() -> dict[str, object]:
    return {k: v for k, v in rigs.snapshot().items() if ":" in k}


def clear_restores(before: dict[str, object]) -> None:
    assert bpy.ops.pose.soft_ik_clear_bake() == {"FINISHED"}
    after = curves()
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"curves not as before the bakes: {changed}"


def limited(chain: bpy.types.PropertyGroup, strategy: str) -> None:
    """A limit that acts on most frames, so Stretch and Move Root write runs of changing and equal keys."""
    chain.use_elbow_limit, chain.elbow_min, chain.elbow_max = True, -0.6, 0.6
    chain.limit_strategy = strategy
    chain.stretch_min, chain.stretch_max, chain.max_root_offset = 0.6, 1.4, 0.3


@pytest.mark.parametrize("first, second", [("STRETCH", "ACCEPT"), ("MOVE_ROOT", "ACCEPT"), ("ACCEPT", "STRETCH"),
                                           ("ACCEPT", "MOVE_ROOT"), ("STRETCH", "MOVE_ROOT")])
@pytest.mark.parametrize("ranges", [((3, 25), (12, 16)), ((3, 25), (1, 10)), ((3, 20), (15, 30)),
                                    ((10, 20), (1, 5)), ((1, 8), (15, 24))],
                         ids=["inside", "over-the-start", "over-the-end", "before-a-gap", "after-a-gap"])
def test_partial_re_bake_with_another_strategy_keeps_every_baked_frame_true(
        empty_file: bpy.types.Scene, first: str, second: str, ranges: tuple[tuple[int, int], ...]) -> None:
    rig, chain, target = chain_rig()
    before = curves()
    (a, b), (c, d) = ranges
    limited(chain, first)
    assert rigs.bake(rig, a, b) == {"FINISHED"}
    limited(chain, second)
    assert rigs.bake(rig, c, d) == {"FINISHED"}
    baked = sorted(set(range(a, b + 1)) | set(range(c, d + 1)))
    assert_true(rig, target, baked)
    clear_restores(before)


def test_a_channel_the_re_bake_drops_is_held_at_rest_in_its_range(empty_file: bpy.types.Scene) -> None:
    rig, chain, target = chain_rig()
    limited(chain, "STRETCH")
    assert rigs.bake(rig, 3, 25) == {"FINISHED"}
    scale = rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "scale"), 1)
    assert scale is not None and any(scale.evaluate(f) != 1.0 for f in range(12, 17)), "the test needs a stretch"
    limited(chain, "ACCEPT")
    assert rigs.bake(rig, 12, 16) == {"FINISHED"}
    assert [scale.evaluate(f) for f in range(12, 17)] == [1.0] * 5
    assert_true(rig, target, list(range(3, 26)))


def test_a_held_channel_is_taken_at_rest_by_the_next_bake_too(empty_file: bpy.types.Scene) -> None:
    """Move Root over the whole range, Accept inside it (the location held at rest there), then Accept at the
    start: the third bake takes the location at rest as well (the chain counts the held channel as one it
    wrote), rather than sampling the first bake's keys that it then removes."""
    rig, chain, target = chain_rig()
    before = curves()
    limited(chain, "MOVE_ROOT")
    assert rigs.bake(rig, 3, 25) == {"FINISHED"}
    location = rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "location"), 0)
    assert location is not None and any(location.evaluate(f) != 0.0 for f in range(3, 9)), "the test needs a move"
    limited(chain, "ACCEPT")
    assert rigs.bake(rig, 12, 16) == {"FINISHED"}
    assert rigs.bake(rig, 3, 8) == {"FINISHED"}
    assert_true(rig, target, list(range(3, 26)))
    clear_restores(before)


def test_a_user_bezier_segment_into_the_range_keeps_its_baked_frames(empty_file: bpy.types.Scene) -> None:
    """The user's shoulder keys (Bezier, every fifth frame) are sampled by an Accept bake; Move Root then owns
    them over part of the range: the frames between the range and the user's next key keep playing as baked
    (two on each side here: one key per frame across a Bezier segment)."""
    rig, chain, target = chain_rig()
    upper = rig.armature.pose.bones[rig.upper]
    rest = np.array(rig.armature.data.bones[rig.upper].matrix_local)[:3, :3]
    u, v, _n = rigs.plane_axes(rig.plane)
    for f in FRAMES[::5]:
        upper.location = rest.T @ (0.05 * math.sin(f / 3.0) * u + 0.04 * math.cos(f / 4.0) * v)
        upper.keyframe_insert("location", frame=f)
    before = curves()
    assert rigs.bake(rig, 3, 25) == {"FINISHED"}
    limited(chain, "MOVE_ROOT")
    assert rigs.bake(rig, 9, 13) == {"FINISHED"}  # the user's keys at 6 and 16 lie outside, 11 inside
    assert_true(rig, target, list(range(3, 26)))
    clear_restores(before)


@pytest.mark.parametrize("shape", ["BEZIER", "LINEAR"])
def test_clear_after_a_reduced_bake_and_a_partial_linear_re_bake(empty_file: bpy.types.Scene, shape: str) -> None:
    """One channel's record holds the reduced bake's keys and the linear re-bake's: Clear removes both kinds
    (it used to keep the reduced bake's Bezier keys as edited by the user)."""
    rig, _chain, target = chain_rig()
    before = curves()
    rigs.enter_pose_mode(rig)
    assert bpy.ops.pose.soft_ik_bake(frame_start=2, frame_end=26, key_reduction="FIT",
                                     reduction_shape=shape) == {"FINISHED"}
    assert bpy.ops.pose.soft_ik_bake(frame_start=10, frame_end=15) == {"FINISHED"}
    assert_true(rig, target, list(range(2, 27)))
    clear_restores(before)


@pytest.mark.parametrize("first, second", [("STRETCH", "ACCEPT"), ("ACCEPT", "STRETCH"), ("ACCEPT", "MOVE_ROOT")])
def test_partial_re_bake_in_nla_tweak_mode_keeps_every_baked_frame_true(empty_file: bpy.types.Scene, first: str,
                                                                      second: str) -> None:
    """In tweak mode scene frames play strip time (offset, scale 1.5): the frames kept outside the range are the
    strip times of the scene frames either side, within the range's repeat of the strip."""
    from test_actions_and_clear import nla_rig

    rig, target, _strip = nla_rig()
    chain = rig.armature.soft_ik_2d.chains[0]
    chain.softness = 0.0
    before = curves()
    limited(chain, first)
    assert rigs.bake(rig, 14, 38) == {"FINISHED"}
    limited(chain, second)
    assert rigs.bake(rig, 20, 26) == {"FINISHED"}
    assert_true(rig, target, list(range(14, 39)))  # the error curve read at each frame's strip time
    clear_restores(before)


def test_solve_with_insert_keys_in_nla_tweak_mode(empty_file: bpy.types.Scene) -> None:
    """Solve's keys are a bake of one frame, [frame, frame]: in tweak mode that frame given twice used to read as
    two frames on one strip time (a Python error instead of keys). Its frame is keyed at its strip time, and the
    baked frames around it keep their truth."""
    from test_actions_and_clear import nla_rig

    rig, target, _strip = nla_rig()
    chain = rig.armature.soft_ik_2d.chains[0]
    before = curves()
    limited(chain, "STRETCH")
    assert rigs.bake(rig, 14, 30) == {"FINISHED"}
    chain.softness = 0.1
    bpy.context.scene.frame_set(20)
    rigs.enter_pose_mode(rig)
    assert bpy.ops.pose.soft_ik_solve(insert_keys=True) == {"FINISHED"}
    assert_true(rig, target, list(range(14, 31)))
    clear_restores(before)
