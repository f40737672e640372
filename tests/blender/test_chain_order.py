"""Chains that hang from other chains: a hand chain under a solved forearm, a target held in another character's
solved hand. The truth is Blender's playback (``test_production_truth.playback``), never the add-on's prediction.

- One bake of both: each chain's keyed error is what Blender plays back on every frame, whatever the order of
  the chains in the list (the hanging chain is sampled after the chain it hangs from is written).
- Solve, with and without Insert Keys, poses the hanging chain on the pose just solved above it.
- Two chains each hanging from the other's solve are refused by name, and the file is unchanged.
- A bake of the upper chain alone warns about the hanging chain whose earlier keys it made stale.
- Clear gives back every curve and the same playback.
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path

import bpy
import harness
import numpy as np
import pytest
import rigs
from test_production_truth import FRAMES, MISMATCH, arm_rig, assert_true, playback, reach_target
from test_promises_clear import curves, pose_playback

STALE = "keyed error is out of date"


def _hand_target(rig: rigs.ArmRig) -> bpy.types.Object:
    """A target near where :func:`reach_target` takes the arm's tip: 0.3 to 0.9 armature units from it, so the
    hand (0.7 long) reaches it on some frames only, and only once the arm is solved (keyed in world space)."""
    heads, worlds = rigs.shoulder_positions(rig, FRAMES)
    u, v, _n = rigs.plane_axes(rig.plane)
    points = []
    for f, head, world in zip(FRAMES, heads, worlds, strict=True):
        arm_tip = 0.6 + 0.9 * (0.5 + 0.5 * math.sin(f / 4.0)), 0.3 * f  # reach_target's radius and angle
        hand = 0.3 + 0.6 * (0.5 + 0.5 * math.sin(f / 3.0)), -0.5 * f
        p = head + sum(r * (math.cos(a) * u + math.sin(a) * v) for r, a in (arm_tip, hand))
        points.append((world @ np.append(p, 1.0))[:3])
    target = rigs.new_empty("HandTarget")
    rigs.key_locations(target, FRAMES, np.array(points))
    return target


def _arm_and_hand(hand_first: bool = False) -> tuple[rigs.ArmRig, bpy.types.Object, rigs.ArmRig, bpy.types.Object]:
    """An arm chain (Upper > Lower) and a hand chain (Hand > Finger) under its forearm, on one armature."""
    arm = arm_rig()
    hand = rigs.add_hand(arm)
    arm_target, hand_target = reach_target(arm), _hand_target(arm)
    for rig, target in ((hand, hand_target), (arm, arm_target)) if hand_first else ((arm, arm_target),
                                                                                       (hand, hand_target)):
        rigs.add_chain(rig, target).softness = 0.0
    return arm, arm_target, hand, hand_target


def _reach_for_held(rig: rigs.ArmRig, holder: rigs.ArmRig, name: str) -> bpy.types.PropertyGroup:
    """A chain of ``rig`` reaching for a new Empty at the tail of ``holder``'s lower bone (OBJECT space)."""
    held = rigs.new_empty(name, parent=holder.armature, bone=holder.lower)
    chain = rigs.add_chain(rig, held)
    chain.target_space, chain.space_object, chain.space_bone = "OBJECT", holder.armature, holder.lower
    chain.softness = 0.0
    return chain


def _chain(rig: rigs.ArmRig) -> bpy.types.PropertyGroup:
    return next(c for c in rig.armature.soft_ik_2d.chains if c.lower_bone == rig.lower)


def _tip_miss(rig: rigs.ArmRig, target: bpy.types.Object) -> float:
    """Distance from the lower bone's tail to the target as the pose stands now (no frame change)."""
    bpy.context.view_layer.update()
    world = np.array(rig.armature.matrix_world)
    tail = (world @ np.append(np.array(rig.armature.pose.bones[rig.lower].tail), 1.0))[:3]
    return float(np.linalg.norm(tail - np.array(target.matrix_world.translation)))


@pytest.mark.parametrize("hand_first", [False, True])
def test_one_bake_of_a_hand_under_an_arm_keys_the_played_back_error(
        empty_file: bpy.types.Scene, capfd: pytest.CaptureFixture[str], hand_first: bool) -> None:
    arm, arm_target, hand, hand_target = _arm_and_hand(hand_first)
    capfd.readouterr()
    assert rigs.bake(arm, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    out = capfd.readouterr().out
    assert MISMATCH not in out and STALE not in out, out
    assert assert_true(arm, arm_target).max() < 1e-4  # in reach: on target
    miss = assert_true(hand, hand_target)  # the hand's keyed error is what plays back
    assert miss.max() > 0.05, "the hand target should leave the hand's reach on some frames (a test of the error)"
    assert miss.min() < 1e-4, "and be reached on others"


def _bake_a_then_b(a: rigs.ArmRig, a_target: bpy.types.Object, b: rigs.ArmRig, b_target: bpy.types.Object,
                   capfd: pytest.CaptureFixture[str]) -> np.ndarray:
    """Add A's chain after B's (the list in the wrong order), bake both in one batch and hold both to the
    played-back truth; returns B's miss / chain length per frame."""
    rigs.add_chain(a, a_target).softness = 0.0
    rigs.pose_mode_together([b.armature, a.armature])
    capfd.readouterr()
    assert bpy.ops.pose.soft_ik_bake(frame_start=FRAMES[0], frame_end=FRAMES[-1]) == {"FINISHED"}
    assert MISMATCH not in capfd.readouterr().out
    assert_true(a, a_target)
    return assert_true(b, b_target)


@pytest.mark.parametrize("hold", ["parent", "constraint"])
def test_a_target_held_in_another_characters_solved_hand(empty_file: bpy.types.Scene,
                                                         capfd: pytest.CaptureFixture[str], hold: str) -> None:
    """B reaches for an Empty at A's forearm tail, parented to the bone or following it by Copy Location: B is
    sampled after A's keys are written."""
    a = arm_rig()
    a_target = reach_target(a)
    b = rigs.build_arm("RigB", plane="XZ")
    rigs.place_armature(b, location=(0.9, -0.2, -0.4), rotation=(0.0, 0.0, 0.0), scale=(1.0, 1.0, 1.0))
    if hold == "parent":
        held = _reach_for_held(b, a, "Held").target  # listed first: the order is by dependency, not by the list
    else:
        held = rigs.new_empty("Held")
        copy = held.constraints.new("COPY_LOCATION")
        copy.target, copy.subtarget, copy.head_tail = a.armature, a.lower, 1.0
        rigs.add_chain(b, held).softness = 0.0
    _bake_a_then_b(a, a_target, b, held, capfd)


@pytest.mark.parametrize("solver_name", ["CCD", "FABRIK"])
def test_a_hand_under_a_long_chain(empty_file: bpy.types.Scene, capfd: pytest.CaptureFixture[str],
                                   solver_name: str) -> None:
    """The chain above is a three-bone CCD / FABRIK chain (Root > Upper > Lower, a spine, say)."""
    arm = arm_rig()
    hand = rigs.add_hand(arm)
    spine_target, hand_target = reach_target(arm), _hand_target(arm)
    spine = rigs.add_chain(arm, spine_target, chain_length=3)
    assert spine.upper_bone == "Root"
    spine.solver, spine.softness = solver_name, 0.0
    rigs.add_chain(hand, hand_target).softness = 0.0
    capfd.readouterr()
    assert rigs.bake(arm, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    assert MISMATCH not in capfd.readouterr().out
    miss, keyed, _length = playback(arm, spine_target)  # the long chain's own error: keyed as played back
    np.testing.assert_allclose(keyed, miss, atol=1e-4 * arm.length)
    assert_true(hand, hand_target)


def test_a_character_carried_in_another_characters_hand(empty_file: bpy.types.Scene,
                                                         capfd: pytest.CaptureFixture[str]) -> None:
    """B's armature object is parented to A's forearm (a puppet held up): B is sampled after A is keyed."""
    a = arm_rig()
    a_target = reach_target(a)
    b = rigs.build_arm("RigB", plane="XZ", a=0.5, b=0.4)
    b.armature.parent, b.armature.parent_type, b.armature.parent_bone = a.armature, "BONE", a.lower
    b_target = rigs.new_empty("BTarget")
    rigs.key_locations(b_target, FRAMES, rigs.circle_points(a, FRAMES, lambda f: 1.6 + 0.4 * math.sin(f / 5.0),
                                                            lambda f: 0.25 * f))
    rigs.add_chain(b, b_target).softness = 0.0
    miss = _bake_a_then_b(a, a_target, b, b_target, capfd)
    assert miss.max() > 1e-3, "B's target leaves its reach on some frames (its error is measured, not 0)"


def test_chains_hanging_from_each_other_are_refused_by_name(empty_file: bpy.types.Scene) -> None:
    a = arm_rig()
    b = rigs.build_arm("RigB", plane="XZ")
    _reach_for_held(a, b, "HeldByB")
    _reach_for_held(b, a, "HeldByA")
    rigs.pose_mode_together([a.armature, b.armature])
    before = rigs.snapshot()
    with pytest.raises(RuntimeError) as err:
        bpy.ops.pose.soft_ik_bake(frame_start=1, frame_end=10)
    message = str(err.value)
    assert "Traceback" not in message
    for name in ("Rig", "RigB"):
        assert f"Chain 'Lower' of '{name}' moves with the solve of" in message, message
    assert "HeldByB" in message and "HeldByA" in message, message  # the link is named
    rigs.assert_same_snapshot(before, rigs.snapshot())


def test_a_chain_waiting_for_a_refused_loop_still_bakes(empty_file: bpy.types.Scene,
                                                        capfd: pytest.CaptureFixture[str]) -> None:
    """Two arms hold each other's hands (refused); a hand chain under one of them bakes on its keys as they are."""
    a = arm_rig()
    b = rigs.build_arm("RigB", plane="XZ")
    hand = rigs.add_hand(a)
    _reach_for_held(a, b, "HeldByB")
    _reach_for_held(b, a, "HeldByA")
    hand_target = _hand_target(a)
    rigs.add_chain(hand, hand_target).softness = 0.0
    rigs.pose_mode_together([a.armature, b.armature])
    capfd.readouterr()
    assert bpy.ops.pose.soft_ik_bake(frame_start=1, frame_end=12) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "moves with the solve of" in out and "2 of 3" in out, out
    assert_true(hand, hand_target, list(range(1, 13)))


@pytest.mark.parametrize("keyed_before", [False, True])
def test_solve_poses_the_hand_on_the_arm_just_solved(empty_file: bpy.types.Scene, keyed_before: bool) -> None:
    """Without keys too: the arm's new pose has no keys, and the hand is solved on it, not on the arm's keys."""
    arm, arm_target, hand, hand_target = _arm_and_hand()
    if keyed_before:  # the arm's keys hold another pose than the Solve gives it
        assert rigs.bake(arm, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
        _chain(arm).bend *= -1
        _chain(arm).softness = 0.2
    bpy.context.scene.frame_set(7)
    rigs.enter_pose_mode(arm)
    assert bpy.ops.pose.soft_ik_solve() == {"FINISHED"}
    for rig, target in ((arm, arm_target), (hand, hand_target)):
        shown = rig.armature.pose.bones[rig.lower]["soft_ik_error"]
        assert shown == pytest.approx(_tip_miss(rig, target), abs=1e-4 * rig.length), rig.lower


def test_solve_with_insert_keys_keys_the_played_back_error_of_the_hand(empty_file: bpy.types.Scene,
                                                                       capfd: pytest.CaptureFixture[str]) -> None:
    arm, arm_target, hand, hand_target = _arm_and_hand()
    assert rigs.bake(arm, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    _chain(arm).bend *= -1
    bpy.context.scene.frame_set(9)
    rigs.enter_pose_mode(arm)
    capfd.readouterr()
    assert bpy.ops.pose.soft_ik_solve(insert_keys=True) == {"FINISHED"}
    out = capfd.readouterr().out
    assert MISMATCH not in out and STALE not in out, out
    assert_true(hand, hand_target, [9])
    assert_true(arm, arm_target, [9])


def test_baking_the_arm_alone_names_the_hand_it_made_stale(empty_file: bpy.types.Scene,
                                                           capfd: pytest.CaptureFixture[str]) -> None:
    arm, _arm_target, hand, hand_target = _arm_and_hand()
    assert rigs.bake(arm, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    settings = arm.armature.soft_ik_2d
    settings.active_chain_index = next(i for i, c in enumerate(settings.chains) if c.lower_bone == arm.lower)
    _chain(arm).bend *= -1
    capfd.readouterr()
    assert rigs.bake(arm, 5, 12, only_active_chain=True) == {"FINISHED"}
    out = capfd.readouterr().out
    assert f"Chain '{_chain(hand).name}' of 'Rig' hangs from what this bake moved" in out, out
    assert "frames 5-12" in out and f"solved by Chain '{_chain(arm).name}' of 'Rig'" in out, out
    miss, keyed, _length = playback(hand, hand_target, list(range(5, 13)))
    assert np.abs(miss - keyed).max() > 1e-3, "the warning is about a real stale error"
    # No warning for a range the hand has no keys in.
    capfd.readouterr()
    assert rigs.bake(arm, 40, 45, only_active_chain=True) == {"FINISHED"}
    assert STALE not in capfd.readouterr().out
    # Baking both again: nothing is stale, and the hand is true again.
    capfd.readouterr()
    assert rigs.bake(arm, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    assert STALE not in capfd.readouterr().out
    assert_true(hand, hand_target)


def test_clear_after_a_nested_bake_gives_everything_back(empty_file: bpy.types.Scene) -> None:
    arm, _arm_target, hand, _hand_target = _arm_and_hand()
    for name in (arm.upper, hand.lower):  # the user's keys on both chains
        pb = arm.armature.pose.bones[name]
        pb.rotation_quaternion = (math.cos(0.2), 0.0, math.sin(0.2), 0.0)
        pb.keyframe_insert("rotation_quaternion", frame=4)
    before, shown = curves(rigs.snapshot()), pose_playback(arm)
    assert rigs.bake(arm, FRAMES[0], FRAMES[-1], key_reduction="FIT") == {"FINISHED"}
    rigs.enter_pose_mode(arm)
    assert bpy.ops.pose.soft_ik_clear_bake() == {"FINISHED"}
    assert curves(rigs.snapshot()) == before
    np.testing.assert_allclose(pose_playback(arm), shown, atol=1e-6)


def test_live_preview_poses_the_hand_on_the_arm_it_just_posed(empty_file: bpy.types.Scene) -> None:
    """A drag of the arm's target and a frame change: the hand follows the arm within the same update, and the
    error the panel shows for it is the distance Blender shows."""
    arm, arm_target, hand, hand_target = _arm_and_hand()
    view_layer = bpy.context.view_layer
    bpy.context.scene.frame_set(5)
    arm.armature.soft_ik_2d.live_preview = True
    view_layer.update()

    def check() -> float:
        assert _tip_miss(arm, arm_target) < 1e-4 * arm.length
        shown = float(hand.armature.pose.bones[hand.lower]["soft_ik_error"])
        assert shown == pytest.approx(_tip_miss(hand, hand_target), abs=1e-4 * hand.length)
        return shown

    first = check()
    u, v, _n = rigs.plane_axes(arm.plane)
    world = np.array(arm.armature.matrix_world)[:3, :3]
    arm_target.location = np.array(arm_target.location) + world @ (0.25 * u - 0.2 * v)  # a drag in the plane
    view_layer.update()
    assert check() != pytest.approx(first, abs=1e-3), "the drag moved the hand's target relative to the hand"
    bpy.context.scene.frame_set(9)
    check()
    arm.armature.soft_ik_2d.live_preview = False


def test_clearing_the_arm_alone_names_the_hand_it_made_stale(empty_file: bpy.types.Scene,
                                                             capfd: pytest.CaptureFixture[str]) -> None:
    arm, _arm_target, hand, hand_target = _arm_and_hand()
    assert rigs.bake(arm, 3, 20) == {"FINISHED"}
    settings = arm.armature.soft_ik_2d
    settings.active_chain_index = next(i for i, c in enumerate(settings.chains) if c.lower_bone == arm.lower)
    capfd.readouterr()
    assert bpy.ops.pose.soft_ik_clear_bake(only_active_chain=True) == {"FINISHED"}
    out = capfd.readouterr().out
    assert f"Chain '{_chain(hand).name}' of 'Rig' hangs from what this Clear gave back" in out, out
    assert "frames 3-20" in out, out
    miss, keyed, _length = playback(hand, hand_target, list(range(3, 21)))
    assert np.abs(miss - keyed).max() > 1e-3, "the warning is about a real stale error"
    # Clearing both: nothing left to be stale.
    assert rigs.bake(arm, 3, 20) == {"FINISHED"}
    capfd.readouterr()
    rigs.enter_pose_mode(arm)
    assert bpy.ops.pose.soft_ik_clear_bake() == {"FINISHED"}
    assert "hangs from what this Clear gave back" not in capfd.readouterr().out


def test_live_preview_of_chains_on_a_loop_solves_each_once_an_update(empty_file: bpy.types.Scene) -> None:
    """Two characters holding each other's hands: no pose satisfies both, and following one after the other
    would solve them in turn many times an update. Each is solved once, as it is."""
    live_preview = harness.package("rigging.live_preview")
    a = arm_rig()
    b = rigs.build_arm("RigB", plane="XZ")
    _reach_for_held(a, b, "HeldByB")
    _reach_for_held(b, a, "HeldByA")
    for rig in (a, b):
        rig.armature.soft_ik_2d.live_preview = True
    view_layer = bpy.context.view_layer
    view_layer.update()
    a.armature.location.x += 0.1  # a drag of A: both chains' inputs move
    solves = live_preview.stats["solves"]
    view_layer.update()
    assert live_preview.stats["solves"] - solves <= 2
    for rig in (a, b):
        rig.armature.soft_ik_2d.live_preview = False


@pytest.mark.parametrize("variant", ["made_editable", "fully_editable"])
def test_a_hand_chain_on_a_library_override_bakes_true(tmp_path: Path, variant: str,
                                                       capfd: pytest.CaptureFixture[str]) -> None:
    """The arm and hand chains authored in the library, baked in the shot on the override."""
    overrides = importlib.import_module("test_library_overrides")
    library = tmp_path / "hands_library.blend"
    bpy.ops.wm.read_homefile(use_empty=True)
    rig = rigs.build_arm("Rig")
    hand = rigs.add_hand(rig)
    rigs.animate_parent(rig, FRAMES, lambda f: 0.4 * math.sin(f / 5.0), lambda f: (0.02 * f, -0.01 * f))
    arm_target = rigs.circle_target(rig, FRAMES, lambda f: 1.2 + 0.3 * math.sin(f / 4.0), lambda f: 0.3 * f,
                                    name="Hand")
    hand_target = _hand_target(rig)
    collection = bpy.data.collections.new("RigCol")
    bpy.context.scene.collection.children.link(collection)
    for obj in (rig.armature, arm_target, hand_target):
        collection.objects.link(obj)
        bpy.context.scene.collection.objects.unlink(obj)
    rigs.add_chain(rig, arm_target, name="Arm").softness = 0.0
    rigs.add_chain(hand, hand_target, name="Fingers").softness = 0.0
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.wm.save_as_mainfile(filepath=str(library))

    shot = overrides.override_shot(library, variant)
    goal = next(o for o in bpy.data.objects if o.name == "HandTarget" and o.library is None)
    capfd.readouterr()
    assert overrides.bake(shot) == {"FINISHED"}
    assert MISMATCH not in capfd.readouterr().out
    overrides.assert_true_bake(shot)  # the arm
    miss = overrides.assert_true_bake(shot, "Finger", goal)  # the hand, on the arm's new keys
    assert miss.max() > 1e-3 and miss.min() < 1e-4 * overrides.world_length(shot)
