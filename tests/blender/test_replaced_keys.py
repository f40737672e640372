"""The user's keys a bake replaced come back with Clear, and a re-bake at IK influence < 1 blends with them.

Truth: every attribute of every key of every action in the file (``anim_keys.read_keys``, compared as
lists), and Blender's playback (``frame_set`` and the evaluated pose bones, subframes included) before the
bake and after Clear; for the influence, the pose Blender plays against the user's FK as it played before any
bake (a twin rig baked at influence 1 gives the IK pose).
"""

from __future__ import annotations

import math

import bpy
import harness
import numpy as np
import pytest
import rigs
from test_actions_and_clear import Curves, all_actions, assert_same, clear, forget_hidden_properties, save_and_reopen
from test_ikfk import arm_pair, key_fk, played, posed_angles, wrap

FRAMES = list(range(1, 41))
# The user's FK keys: subframe keys, keys before and after the baked ranges.
USER_FRAMES = [1.0, 6.5, 12.0, 17.25, 24.0, 38.0]


def playback(rig: rigs.ArmRig, frames: list[float]) -> np.ndarray:
    """The evaluated pose matrices of the chain bones on each (sub)frame, as Blender plays them."""
    scene = bpy.context.scene
    out = []
    for f in frames:
        scene.frame_set(math.floor(f), subframe=f - math.floor(f))
        out.append([np.array(rig.armature.pose.bones[b].matrix) for b in (rig.upper, rig.lower)])
    return np.array(out)


PLAY = [f + d for f in range(1, 41, 3) for d in (0.0, 0.5)]


def key_user_fk(rig: rigs.ArmRig) -> None:
    """Animator's keys on both chain bones: Bezier with free handles moved, a constant and an eased back key,
    a breakdown, selection flags."""
    arm = rig.armature
    for k, f in enumerate(USER_FRAMES):
        for j, name in enumerate((rig.upper, rig.lower)):
            pb = arm.pose.bones[name]
            angle = 0.4 * math.sin(1.3 * k + j) - 0.2 * j
            pb.rotation_quaternion = (math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0)
            pb.keyframe_insert("rotation_quaternion", frame=f)
    for name in (rig.upper, rig.lower):
        for i in range(4):
            fc = rigs.fcurve(arm, rigs.bone_path(name, "rotation_quaternion"), i)
            points = fc.keyframe_points
            points[2].handle_left_type = points[2].handle_right_type = "FREE"
            points[2].handle_left = (points[2].co[0] - 2.0, points[2].co[1] + 0.1 * (i + 1))
            points[2].handle_right = (points[2].co[0] + 1.5, points[2].co[1] - 0.07)
            points[3].interpolation = "BACK"
            points[3].back, points[3].easing = 2.3, "EASE_IN"
            points[1].interpolation = "CONSTANT"
            points[1].type = "BREAKDOWN"
            points[4].select_control_point = True
            fc.update()


def user_rig(name: str = "Rig") -> tuple[rigs.ArmRig, bpy.types.PropertyGroup]:
    rig = rigs.build_arm(name)
    rigs.animate_parent(rig, FRAMES, lambda f: 0.5 * math.sin(f / 6.0), lambda f: (0.01 * f, -0.01 * f))
    key_user_fk(rig)
    target = rigs.circle_target(rig, FRAMES, lambda f: 0.6 + 1.4 * (0.5 + 0.5 * math.sin(f / 4.0)),
                                lambda f: 0.2 * f, name=f"{name}Target")
    return rig, rigs.add_chain(rig, target)


@pytest.mark.parametrize("ranges", [[(5, 30)], [(5, 20), (15, 30)], [(5, 30), (10, 14)], [(5, 30), (5, 30)],
                                    [(5, 18), (19, 30), (2, 35)]],
                         ids=["one", "overlapping", "sub-range re-bake", "repeated", "adjacent then around"])
def test_clear_puts_back_every_user_key_the_bakes_replaced(empty_file: bpy.types.Scene,
                                                          ranges: list[tuple[int, int]]) -> None:
    rig, chain = user_rig()
    before, shown = all_actions(), playback(rig, PLAY)
    for start, end in ranges:
        assert rigs.bake(rig, start, end) == {"FINISHED"}
    baked = all_actions()
    path = rigs.bone_path(rig.upper, "rotation_quaternion")
    key = next(k for k in baked if k[2] == path and k[3] == 0)
    assert 6.5 not in [c[0] for c in baked[key]["co"]], "the bake replaced the user's keys in its range"
    assert clear() == {"FINISHED"}
    assert_same(before, all_actions())
    np.testing.assert_array_equal(playback(rig, PLAY), shown)
    assert not chain.has_bake


def test_a_strategy_change_keeps_the_user_keys_of_the_dropped_channel(empty_file: bpy.types.Scene) -> None:
    """Stretch's scale keys replace the user's scale keys; a re-bake without Stretch and Clear give them back."""
    rig, chain = user_rig()
    pb = rig.armature.pose.bones[rig.upper]
    for f, s in ((3.0, 1.0), (11.0, 1.2), (33.0, 1.0)):
        pb.scale = (s, s, s)
        pb.keyframe_insert("scale", frame=f)
    before, shown = all_actions(), playback(rig, PLAY)
    chain.limit_strategy = "STRETCH"
    chain.use_elbow_limit, chain.elbow_max = True, math.radians(40.0)
    assert rigs.bake(rig, 5, 30) == {"FINISHED"}
    chain.limit_strategy = "ACCEPT"
    assert rigs.bake(rig, 8, 25) == {"FINISHED"}
    assert clear() == {"FINISHED"}
    assert_same(before, all_actions())
    np.testing.assert_array_equal(playback(rig, PLAY), shown)


def test_a_re_bake_that_drops_a_channel_gives_its_user_keys_back(empty_file: bpy.types.Scene) -> None:
    """The user's scale keys lie inside the range only: Stretch replaces them all; a re-bake without Stretch
    over the whole range removes its scale keys and holds the channel at rest, as its solve takes it (the
    user's keys would play an off-rest scale the solve does not model); Clear gives the user's keys back."""
    rig, chain = user_rig()
    pb = rig.armature.pose.bones[rig.upper]
    for f, s in ((11.0, 1.2), (20.0, 0.9)):
        pb.scale = (s, s, s)
        pb.keyframe_insert("scale", frame=f)
    pb.scale = (1.0, 1.0, 1.0)
    before, shown = all_actions(), playback(rig, PLAY)
    chain.limit_strategy = "STRETCH"
    chain.use_elbow_limit, chain.elbow_max = True, math.radians(40.0)
    assert rigs.bake(rig, 5, 30) == {"FINISHED"}
    chain.limit_strategy = "ACCEPT"
    assert rigs.bake(rig, 1, 35) == {"FINISHED"}
    scale = rigs.fcurve(rig.armature, rigs.bone_path(rig.upper, "scale"), 0)
    assert scale is not None and all(scale.evaluate(f) == 1.0 for f in range(1, 36))
    assert clear() == {"FINISHED"}
    assert_same(before, all_actions())
    np.testing.assert_array_equal(playback(rig, PLAY), shown)


def test_a_key_the_user_made_since_wins_and_is_counted(empty_file: bpy.types.Scene) -> None:
    rig, chain = user_rig()
    before = all_actions()
    assert rigs.bake(rig, 5, 30) == {"FINISHED"}
    pb = rig.armature.pose.bones[rig.upper]
    pb.rotation_quaternion = (0.0, 0.0, 1.0, 0.0)
    pb.keyframe_insert("rotation_quaternion", frame=12.0)  # over a saved key: the user's newer key
    pb.keyframe_insert("rotation_quaternion", frame=13.0)  # a new frame: stays as well
    result = harness.package("rigging.bake").clear_bakes(rig.armature, [chain])
    texts = "\n".join(result.messages)
    assert "4 of your key(s) the bake had replaced were not put back" in texts, texts
    after = all_actions()
    path = rigs.bone_path(rig.upper, "rotation_quaternion")
    for (name, slot, p, i), keys in before.items():
        got = after[(name, slot, p, i)]
        if p != path:
            assert got == keys, p
            continue
        mine = [c for c in got["co"] if c[0] in (12.0, 13.0)]
        assert mine == [[12.0, pytest.approx((0.0, 0.0, 1.0, 0.0)[i])], [13.0, pytest.approx((0.0, 0.0, 1.0, 0.0)[i])]]
        kept = [c for c in got["co"] if c[0] not in (12.0, 13.0)]
        assert kept == [c for c in keys["co"] if c[0] != 12.0], "every other saved key is back"


def test_only_active_chain_restores_only_that_chain(empty_file: bpy.types.Scene) -> None:
    first, chain_a = user_rig("A")
    second, chain_b = user_rig("B")
    before = all_actions()
    rigs.pose_mode_together([first.armature, second.armature])
    assert bpy.ops.pose.soft_ik_bake(frame_start=5, frame_end=30) == {"FINISHED"}
    baked = all_actions()
    assert clear(only_active_chain=True) == {"FINISHED"}
    after = all_actions()
    mine = first.armature.animation_data.action.name
    assert_same({k: v for k, v in before.items() if k[0] == mine}, {k: v for k, v in after.items() if k[0] == mine})
    assert_same({k: v for k, v in baked.items() if k[0] != mine}, {k: v for k, v in after.items() if k[0] != mine})
    assert chain_b.has_bake and not chain_a.has_bake


def test_clear_on_a_take_puts_back_the_keys_it_copied(empty_file: bpy.types.Scene) -> None:
    rig, _chain = user_rig()
    original = rig.armature.animation_data.action
    before = all_actions()
    assert rigs.bake(rig, 5, 30, to_new_action=True, action_name="Take") == {"FINISHED"}
    take = rig.armature.animation_data.action
    assert take.name == "Take" and take != original
    assert clear() == {"FINISHED"}
    after = all_actions()
    assert_same({k: v for k, v in before.items() if k[0] == original.name},
                {k: v for k, v in after.items() if k[0] == original.name})
    assert_same({k[1:]: v for k, v in before.items() if k[0] == original.name},
                {k[1:]: v for k, v in after.items() if k[0] == "Take"})


def test_clear_in_nla_tweak_mode_puts_back_the_strip_keys(empty_file: bpy.types.Scene) -> None:
    rig, _chain = user_rig()
    arm = rig.armature
    anim = arm.animation_data
    action = anim.action
    anim.action = None
    track = anim.nla_tracks.new()
    strip = track.strips.new("Arm", 11, action)
    strip.name = "Arm"
    rigs.tweak(anim, track, strip)
    before = all_actions()
    shown = playback(rig, [f + 10 for f in PLAY])
    assert rigs.bake(rig, 15, 40) == {"FINISHED"}  # action frames 5-30
    assert all_actions() != before
    assert clear() == {"FINISHED"}
    assert_same(before, all_actions())
    np.testing.assert_array_equal(playback(rig, [f + 10 for f in PLAY]), shown)


def test_clear_after_a_bone_rename_puts_back_the_keys_on_the_renamed_bone(empty_file: bpy.types.Scene) -> None:
    rig, _chain = user_rig()
    before = all_actions()
    assert rigs.bake(rig, 5, 30) == {"FINISHED"}
    rig.armature.data.bones[rig.upper].name = "UpperArm"
    assert clear() == {"FINISHED"}
    renamed = {(a, s, p.replace(f'"{rig.upper}"', '"UpperArm"'), i): v for (a, s, p, i), v in before.items()}
    assert_same(renamed, all_actions())


def test_rebaking_at_half_influence_blends_with_the_user_fk_not_the_first_bake(empty_file: bpy.types.Scene) -> None:
    rig, twin, target = arm_pair(("QUATERNION", "XYZ"))
    frames = list(range(1, 31))
    key_fk(rig, [1, 12, 30], [0.2, -1.4, 0.6], [0.1, 1.2, 0.4])
    fk, _ = played(rig, frames)
    chain = rigs.add_chain(rig, target)
    chain.ik_influence = 0.5
    rigs.add_chain(twin, target)
    assert rigs.bake(twin, 1, 30) == {"FINISHED"}
    ik, _ = played(twin, frames)
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    once = all_actions()
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    assert_same(once, all_actions())
    assert rigs.bake(rig, 8, 20) == {"FINISHED"}
    got, _tip = played(rig, frames)
    want = fk + 0.5 * wrap(ik - fk)
    bad = np.abs(wrap(got - want)).max(axis=1)
    assert bad.max() < 2e-4, (np.flatnonzero(bad > 2e-4), bad.max())


def test_a_chain_that_lost_its_hidden_properties_still_puts_back_the_user_keys(empty_file: bpy.types.Scene) -> None:
    """A reopened library override drops the chain's uid and the bone tags: the record, and the keys it saved,
    are found by name; the re-bake saves only the user's keys (the first bake's are found as the bake's)."""
    rig, chain = user_rig()
    before = all_actions()
    assert rigs.bake(rig, 5, 20) == {"FINISHED"}
    forget_hidden_properties(rig, chain)
    assert rigs.bake(rig, 15, 30) == {"FINISHED"}
    assert clear() == {"FINISHED"}
    assert_same(before, all_actions())


@pytest.mark.parametrize("how", ["solve", "live_preview"])
def test_solve_and_live_preview_after_a_half_influence_bake_blend_with_the_user_fk(empty_file: bpy.types.Scene,
                                                                                  how: str) -> None:
    """After a bake at influence 0.5, Solve and the Live Preview at a baked frame show the blend of IK with the
    user's FK (what the bake keyed there), not with the bake's own keys."""
    rig, twin, target = arm_pair(("QUATERNION", "XYZ"))
    key_fk(rig, [1, 12, 30], [0.2, -1.4, 0.6], [0.1, 1.2, 0.4])
    frame = 10
    fk, _ = played(rig, [frame])
    chain = rigs.add_chain(rig, target)
    chain.ik_influence = 0.5
    rigs.add_chain(twin, target)
    assert rigs.bake(twin, 1, 30) == {"FINISHED"}
    ik, _ = played(twin, [frame])
    assert rigs.bake(rig, 1, 30) == {"FINISHED"}
    want = fk[0] + 0.5 * wrap(ik[0] - fk[0])
    assert np.abs(wrap(posed_angles(rig, frame, how) - want)).max() < 2e-4


def test_saved_keys_survive_save_and_reopen(empty_file: bpy.types.Scene, tmp_path: object) -> None:
    rig, _chain = user_rig()
    before = all_actions()
    assert rigs.bake(rig, 5, 20) == {"FINISHED"}
    assert rigs.bake(rig, 15, 30) == {"FINISHED"}
    save_and_reopen(str(tmp_path / "saved_keys.blend"))  # type: ignore[operator]
    assert clear() == {"FINISHED"}
    assert_same(before, all_actions())


def test_the_fk_read_after_bakes_is_the_user_curve_as_it_sampled_before(empty_file: bpy.types.Scene) -> None:
    """The FK pose the influence blend reads over baked ranges: bit for bit what the user's curves gave before
    any bake (a range, sampled as the bake samples), and the same values frame by frame (Solve, Live Preview)."""
    rig, chain = user_rig()
    sampling = harness.package("rigging.sampling")
    replaced_keys = harness.package("rigging.replaced_keys")
    path = rigs.bone_path(rig.upper, "rotation_quaternion")
    times = np.arange(1.0, 41.0)
    before = sampling.sample_channels(rig.armature, [(path, i) for i in range(4)], times)
    singles = [sampling.sample_channels(rig.armature, [(path, i) for i in range(4)], times[k:k + 1])
               for k in range(len(times))]
    assert rigs.bake(rig, 5, 20) == {"FINISHED"}
    assert rigs.bake(rig, 12, 30) == {"FINISHED"}
    now = sampling.sample_channels(rig.armature, [(path, i) for i in range(4)], times)
    assert any(not np.array_equal(a, b) for a, b in zip(before, now, strict=True)), "the bakes changed the curves"
    got = replaced_keys.user_channels(rig.armature, chain, rig.upper, "rotation_quaternion", times, now)
    for a, b in zip(before, got, strict=True):
        np.testing.assert_array_equal(a, b)
    for k, f in enumerate(times):
        one = replaced_keys.user_channels(rig.armature, chain, rig.upper, "rotation_quaternion", times[k:k + 1],
                                          [v[k:k + 1] for v in now])
        for a, b in zip(singles[k], one, strict=True):
            assert float(b[0]) == float(a[0]), (f, a[0], b[0])


def test_only_active_chain_of_one_armature_restores_only_that_chain(empty_file: bpy.types.Scene) -> None:
    """Two chains on one armature, one action: Clear of the active chain puts back its bones' keys only."""
    from test_promises_operators import two_arm_rig

    rig, arms = two_arm_rig()
    arm = rig.armature
    for k, f in enumerate(USER_FRAMES):
        for j, (upper, lower) in enumerate(arms):
            for name in (upper, lower):
                angle = 0.3 * math.sin(k + j) + 0.1
                arm.pose.bones[name].rotation_quaternion = (math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0)
                arm.pose.bones[name].keyframe_insert("rotation_quaternion", frame=f)
    for i, (_upper, lower) in enumerate(arms):
        target = rigs.new_empty(f"Target{i}")
        target.location = (np.array(arm.matrix_world) @ np.append(
            rig.point(0.4 + (0.9 if i == 0 else -0.9), 1.2), 1.0))[:3].tolist()
        rigs.enter_pose_mode(rig, lower)
        target.select_set(True)
        assert bpy.ops.pose.soft_ik_add_chain(target_space="WORLD") == {"FINISHED"}
        target.select_set(False)
    before = all_actions()
    assert rigs.bake(rig, 5, 30) == {"FINISHED"}
    baked = all_actions()
    arm.soft_ik_2d.active_chain_index = 0
    assert clear(only_active_chain=True) == {"FINISHED"}
    after = all_actions()
    def of(bones: tuple[str, str], curves: Curves) -> Curves:
        return {k: v for k, v in curves.items() if any(f'"{b}"' in k[2] for b in bones)}

    assert_same(of(arms[0], before), of(arms[0], after))  # the active chain's keys back, its curves gone
    assert_same(of(arms[1], baked), of(arms[1], after))  # the other chain's bake stays
    assert of(arms[1], baked) != of(arms[1], before)
