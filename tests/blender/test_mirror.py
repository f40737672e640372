"""Mirror a chain (issue 15, part 3): ``pose.soft_ik_mirror_chain`` makes the opposite side's chain of a
symmetric rig, and both sides bake true.

Truth is Blender's playback: with the opposite target keyed on the mirrored path, the opposite arm Blender
plays is the reflection (armature x -> -x) of the first arm on every frame, limits acting included, and each
side's keyed error is the distance Blender plays back. Refusals leave the file unchanged (full snapshot).
"""

from __future__ import annotations

import math
from pathlib import Path

import bpy
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 41))
REFLECT = np.diag([-1.0, 1.0, 1.0])


def symmetric_rig(scale: tuple[float, float, float] = (1.3, 1.3, 1.3), *, sides: tuple[str, ...] = ("L", "R"),
                  sep: str = ".", hands: bool = False) -> rigs.ArmRig:
    """A 'Root' bone on the mirror axis with an arm on each side (``Upper<sep>L`` > ``Lower<sep>L`` and the
    reflected ``...R``), drawn in the XZ plane, on a moved, rotated (and with ``scale`` maybe flipped) object
    that travels; the root bobs up and down (a motion symmetric under the mirror)."""
    data = bpy.data.armatures.new("Rig")
    arm = bpy.data.objects.new("Rig", data)
    bpy.context.scene.collection.objects.link(arm)
    left = rigs.ArmRig(arm, "XZ", f"Upper{sep}L", f"Lower{sep}L", "Root", 1.0, 0.8, 0.25)
    s2 = np.array([0.4, 1.5])
    e2 = s2 + 1.0 * np.array([math.cos(math.radians(-30)), math.sin(math.radians(-30))])
    t2 = e2 + 0.8 * np.array([math.cos(math.radians(-10)), math.sin(math.radians(-10))])
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    arm.select_set(True)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    eb = data.edit_bones
    root = eb.new("Root")
    root.head, root.tail = left.point(0.0, 0.9), left.point(0.0, 1.4)
    for side, flip in (("L", 1.0), ("R", -1.0)):
        if side not in sides:
            continue
        mirror = np.array([flip, 1.0])
        upper, lower = eb.new(f"Upper{sep}{side}"), eb.new(f"Lower{sep}{side}")
        upper.head, upper.tail, upper.roll = left.point(*(s2 * mirror)), left.point(*(e2 * mirror)), 0.3 * flip
        lower.head, lower.tail, lower.roll = left.point(*(e2 * mirror)), left.point(*(t2 * mirror)), -0.7 * flip
        upper.parent, lower.parent, lower.use_connect = root, upper, True
        if hands:
            hand = eb.new(f"Hand{sep}{side}")
            h2 = t2 + np.array([0.3, -0.1])
            hand.head, hand.tail, hand.roll = lower.tail, left.point(*(h2 * mirror)), 0.2 * flip
            hand.parent, hand.use_connect = lower, True
    bpy.ops.object.mode_set(mode="OBJECT")
    arm.soft_ik_2d.plane = "XZ"
    rigs.animate_parent(left, FRAMES, lambda f: 0.0, lambda f: (0.0, 0.15 * math.sin(f / 5.0)))
    rigs.place_armature(left, rotation=(0.2, 0.3, -0.4), scale=scale,
                        keyed_shift=lambda f: (0.03 * f, 0.0, -0.02 * f), frames=FRAMES)
    return left


def right_side(left: rigs.ArmRig, sep: str = ".") -> rigs.ArmRig:
    return rigs.ArmRig(left.armature, "XZ", f"Upper{sep}R", f"Lower{sep}R", "Root", left.a, left.b, left.offset)


def mirrored_points(rig: rigs.ArmRig, frames: list[int], world_points: np.ndarray) -> np.ndarray:
    """World points reflected through the armature's x = 0 plane, frame by frame (Blender's own matrices)."""
    out = []
    for f, p in zip(frames, world_points, strict=True):
        bpy.context.scene.frame_set(f)
        world = np.array(rig.armature.matrix_world)
        local = np.linalg.inv(world) @ np.append(p, 1.0)
        out.append((world @ np.append(REFLECT @ local[:3], 1.0))[:3])
    return np.array(out)


def left_chain(rig: rigs.ArmRig, **props: object) -> tuple[bpy.types.Object, bpy.types.PropertyGroup]:
    target = rigs.circle_target(rig, FRAMES, lambda f: 0.4 + 1.5 * (0.5 + 0.5 * math.sin(f / 3.0)),
                                lambda f: 0.2 * f - 1.0, name="Hand.L")
    chain = rigs.add_chain(rig, target, name="Arm.L")
    for key, value in props.items():
        setattr(chain, key, value)
    return target, chain


def mirror() -> set[str]:
    return bpy.ops.pose.soft_ik_mirror_chain()


def keyed_error(rig: rigs.ArmRig, frames: list[int]) -> np.ndarray:
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, "soft_ik_error"))
    assert fc is not None
    return np.array([fc.evaluate(f) for f in frames])


@pytest.mark.parametrize("flip", [1.0, -1.0], ids=["plain", "flipped character"])
def test_mirrored_chain_bakes_the_reflection_of_the_first_side(empty_file: bpy.types.Scene, flip: float) -> None:
    left = symmetric_rig((1.3 * flip, 1.3, 1.3))
    right = right_side(left)
    hand_l, chain_l = left_chain(left, softness=0.05, use_elbow_limit=True, elbow_min=math.radians(5.0),
                                 elbow_max=math.radians(100.0), use_shoulder_limit=True,
                                 shoulder_min=math.radians(-70.0), shoulder_max=math.radians(40.0))
    arm = left.armature
    scene = bpy.context.scene
    scene.frame_set(7)
    assert mirror() == {"FINISHED"}
    chains = arm.soft_ik_2d.chains
    assert [c.name for c in chains] == ["Arm.L", "Arm.R"]
    chain_l, chain_r = chains["Arm.L"], chains["Arm.R"]  # adding a chain may move the others: fetch again
    assert (chain_r.upper_bone, chain_r.lower_bone) == ("Upper.R", "Lower.R")
    assert chain_r.bend == -chain_l.bend and chain_r.softness == chain_l.softness
    assert chain_r.target_space == chain_l.target_space and chain_r.limit_strategy == chain_l.limit_strategy
    assert (chain_r.elbow_min, chain_r.elbow_max) == pytest.approx((-chain_l.elbow_max, -chain_l.elbow_min))
    hand_r = chain_r.target
    assert hand_r.name == "Hand.R" and hand_r.parent is None
    # Created at the mirrored world position of the current frame.
    np.testing.assert_allclose(np.array(hand_r.matrix_world.translation),
                               mirrored_points(left, [7], np.array([hand_l.matrix_world.translation]))[0], atol=1e-5)

    # The animator keys the new target on the mirrored path; both sides bake.
    path = np.array([np.array(m)[:3, 3] for m in rigs.world_matrices(hand_l, FRAMES)])
    rigs.key_locations(hand_r, FRAMES, mirrored_points(left, FRAMES, path))
    assert rigs.bake(left, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    ev_l, ev_r = rigs.evaluate(left, hand_l, FRAMES), rigs.evaluate(right, hand_r, FRAMES)
    world_length = left.length * left.world_scale
    for rig, ev in ((left, ev_l), (right, ev_r)):
        miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
        np.testing.assert_allclose(keyed_error(rig, FRAMES), miss, atol=1e-5 * world_length)
    assert chain_l.limited_frames > 0, "the limits act on some frames"
    assert chain_r.limited_frames == chain_l.limited_frames
    assert chain_l.error_max > 0.01 * world_length
    for joint in ("shoulder", "elbow", "tip"):
        np.testing.assert_allclose(getattr(ev_r, joint), getattr(ev_l, joint) @ REFLECT, atol=1e-5)


def test_opposite_target_found_by_name_and_pole_mirrored(empty_file: bpy.types.Scene) -> None:
    left = symmetric_rig(sep="_")
    hand_r = rigs.new_empty("Hand_R")
    hand_l = rigs.circle_target(left, FRAMES, lambda f: 1.2, lambda f: 0.1 * f - 1.0, name="Hand_L")
    pole_l = rigs.circle_target(left, FRAMES, lambda f: 1.0, lambda f: 0.1 * f, name="Elbow.L")
    chain_l = rigs.add_chain(left, hand_l)
    chain_l.pole = pole_l
    assert chain_l.name == "Lower_L"
    objects = len(bpy.data.objects)
    del chain_l
    assert mirror() == {"FINISHED"}
    chain_r = left.armature.soft_ik_2d.chains[-1]
    assert chain_r.name == "Lower_R" and chain_r.target == hand_r
    assert chain_r.pole is not None and chain_r.pole.name == "Elbow.R"
    assert len(bpy.data.objects) == objects + 1, "only the pole was created"


def test_the_opposite_is_never_another_librarys_namesake(empty_file: bpy.types.Scene, tmp_path: Path) -> None:
    """Another character linked in with the same naming brings its own 'Hand_R': the local hand's opposite is a
    new local Empty, not that character's hand; a local 'Hand_R' made after it is found."""
    library = tmp_path / "other_character.blend"
    other = bpy.data.objects.new("Hand_R", None)
    bpy.data.libraries.write(str(library), {other})
    bpy.data.objects.remove(other)
    with bpy.data.libraries.load(str(library), link=True) as (_src, dst):
        dst.objects = ["Hand_R"]
    linked = dst.objects[0]
    bpy.context.scene.collection.objects.link(linked)
    left = symmetric_rig(sep="_")
    hand_l = rigs.circle_target(left, FRAMES, lambda f: 1.2, lambda f: 0.1 * f - 1.0, name="Hand_L")
    rigs.add_chain(left, hand_l)
    assert mirror() == {"FINISHED"}
    hand_r = left.armature.soft_ik_2d.chains[-1].target
    assert hand_r != linked and hand_r.library is None and hand_r.name == "Hand_R"
    np.testing.assert_allclose(np.array(hand_r.matrix_world.translation),
                               mirrored_points(left, [bpy.context.scene.frame_current],
                                               np.array([hand_l.matrix_world.translation]))[0], atol=1e-5)
    # Mirrored again (the right chain removed), the local 'Hand_R' is the opposite.
    chains = left.armature.soft_ik_2d.chains
    chains.remove(len(chains) - 1)
    left.armature.soft_ik_2d.active_chain_index = 0
    objects = len(bpy.data.objects)
    assert mirror() == {"FINISHED"}
    assert left.armature.soft_ik_2d.chains[-1].target == hand_r and len(bpy.data.objects) == objects


def test_an_overridden_hands_opposite_comes_from_its_library(empty_file: bpy.types.Scene, tmp_path: Path) -> None:
    """The left hand is a library override of a linked hand; the right one is only linked, from the same
    library: it is the opposite (nothing is created)."""
    library = tmp_path / "hands.blend"
    bpy.data.libraries.write(str(library), {bpy.data.objects.new(name, None) for name in ("Hand_L", "Hand_R")})
    for name in ("Hand_L", "Hand_R"):
        bpy.data.objects.remove(bpy.data.objects[name])
    with bpy.data.libraries.load(str(library), link=True) as (_src, dst):
        dst.objects = ["Hand_L", "Hand_R"]
    linked_l, linked_r = dst.objects
    for obj in (linked_l, linked_r):
        bpy.context.scene.collection.objects.link(obj)
    hand_l = linked_l.override_create(remap_local_usages=True)
    assert hand_l.library is None and hand_l.override_library.reference == linked_l
    left = symmetric_rig(sep="_")
    rigs.add_chain(left, hand_l)
    objects = len(bpy.data.objects)
    assert mirror() == {"FINISHED"}
    assert left.armature.soft_ik_2d.chains[-1].target == linked_r and len(bpy.data.objects) == objects


def assert_refused(words: list[str]) -> None:
    scene = bpy.context.scene
    scene.frame_set(scene.frame_current)
    before = rigs.snapshot()
    with pytest.raises(RuntimeError) as info:
        mirror()
    for word in words:
        assert word in str(info.value)
    rigs.assert_same_snapshot(before, rigs.snapshot())


def test_missing_opposite_bones_are_refused_by_name(empty_file: bpy.types.Scene) -> None:
    left = symmetric_rig(sides=("L",))
    left_chain(left)
    assert_refused(["'Upper.R'", "'Lower.R'", "Symmetrize"])


def test_bones_without_a_side_are_refused_by_name(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm()
    rigs.add_chain(rig, rigs.new_empty("Target"))
    assert_refused(["'Upper'", "'Lower'", ".L/.R"])


def test_an_existing_opposite_chain_is_refused_by_name(empty_file: bpy.types.Scene) -> None:
    left = symmetric_rig()
    left_chain(left)
    assert mirror() == {"FINISHED"}
    left.armature.soft_ik_2d.active_chain_index = 0
    assert_refused(["already exists", "'Arm.R'", "'Lower.R'"])


def test_character_space_target_is_mirrored_under_the_same_bone(empty_file: bpy.types.Scene) -> None:
    left = symmetric_rig()
    arm = left.armature
    bpy.context.scene.frame_set(1)
    world = rigs.circle_points(left, FRAMES, lambda f: 1.1 + 0.5 * math.sin(f / 4.0), lambda f: 0.15 * f - 1.2)
    hand_l = rigs.new_empty("Hand.L")
    rigs.key_in_parent_space(hand_l, arm, "Root", FRAMES, world)
    chain_l = rigs.add_chain(left, hand_l, target_space="CHARACTER", name="Arm.L")
    assert chain_l.space_bone == "Root"
    del chain_l
    scene = bpy.context.scene
    scene.frame_set(9)
    assert mirror() == {"FINISHED"}
    chain_r = arm.soft_ik_2d.chains["Arm.R"]
    hand_r = chain_r.target
    assert (hand_r.parent, hand_r.parent_type, hand_r.parent_bone) == (arm, "BONE", "Root")
    assert chain_r.target_space == "CHARACTER" and chain_r.space_bone == "Root"
    np.testing.assert_allclose(np.array(hand_r.matrix_world.translation),
                               mirrored_points(left, [9], np.array([hand_l.matrix_world.translation]))[0], atol=1e-5)
    # Unanimated, it moves with the root bone: the declared space matches, both chains bake and play true.
    assert rigs.bake(left, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    right = right_side(left)
    for rig, target in ((left, hand_l), (right, hand_r)):
        ev = rigs.evaluate(rig, target, FRAMES)
        miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
        np.testing.assert_allclose(keyed_error(rig, FRAMES), miss, atol=1e-5 * rig.length * rig.world_scale)


def test_a_three_bone_chain_mirrors_and_both_sides_bake_true(empty_file: bpy.types.Scene) -> None:
    left = symmetric_rig(hands=True)
    arm = left.armature
    target = rigs.circle_target(left, FRAMES, lambda f: 1.2 + 0.6 * math.sin(f / 4.0), lambda f: 0.1 * f - 1.0,
                                name="Reach.L")
    rigs.enter_pose_mode(left, "Hand.L")
    target.select_set(True)
    assert bpy.ops.pose.soft_ik_add_chain(chain_length=3, name="Arm.L") == {"FINISHED"}
    target.select_set(False)
    assert mirror() == {"FINISHED"}
    chain_l, chain_r = arm.soft_ik_2d.chains["Arm.L"], arm.soft_ik_2d.chains["Arm.R"]
    assert (chain_r.upper_bone, chain_r.lower_bone, chain_r.chain_length) == ("Upper.R", "Hand.R", 3)
    assert chain_r.solver == chain_l.solver == "FABRIK"
    path = np.array([np.array(m)[:3, 3] for m in rigs.world_matrices(target, FRAMES)])
    rigs.key_locations(chain_r.target, FRAMES, mirrored_points(left, FRAMES, path))
    assert rigs.bake(left, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    tips = []
    for lower, obj in (("Hand.L", target), ("Hand.R", arm.soft_ik_2d.chains["Arm.R"].target)):
        rig = rigs.ArmRig(arm, "XZ", "Upper." + lower[-1], lower, "Root", left.a, left.b, left.offset)
        ev = rigs.evaluate(rig, obj, FRAMES)
        miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
        np.testing.assert_allclose(keyed_error(rig, FRAMES), miss, atol=1e-5 * rig.length * rig.world_scale)
        tips.append(ev.tip)
    np.testing.assert_allclose(tips[1], tips[0] @ REFLECT, atol=1e-4)
