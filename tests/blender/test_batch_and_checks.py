"""Batches and the checks around them (issue 9, setups 6, 7, 10, 11, 12, 13):

- a target or pole hanging from its own chain (parents, other objects, bone parents, constraints, drivers, a
  vertex parent on a skinned mesh) is a dependency cycle, refused by name before anything changes;
- Add Chain on bones that already belong to a chain refuses, naming that chain;
- Only Active Chain bakes the active chain of the active armature and nothing else;
- several chains, some bad: the valid ones bake (playback truth), every bad one is named in one report and
  keeps its keys; WARNING + FINISHED, or CANCELLED when nothing could bake; the same for Solve;
- Fix Target Space keeps the target's world motion on every frame of the range, not only on keyed frames;
- messages: a very short segment is "too short ... (ratio ...)", Solve does not talk about baking.

Truth comes from Blender: ``scene.frame_set`` and the evaluated pose / object matrices.
"""

from __future__ import annotations

import dataclasses
import math

import bpy
import harness
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 21))
START, END = FRAMES[0], FRAMES[-1]


# --- rigs ------------------------------------------------------------------------------------------------------


def two_arm_rig(name: str, location: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> tuple[rigs.ArmRig, rigs.ArmRig]:
    """An armature with two arms under 'Root': (Upper, Lower) and (Upper.R, Lower.R), both in the XZ plane."""
    left = rigs.build_arm(name)
    rigs.enter_pose_mode(left)
    bpy.ops.object.mode_set(mode="EDIT")
    eb = left.armature.data.edit_bones
    upper = eb.new("Upper.R")
    upper.head, upper.tail, upper.roll = left.point(2.6, 1.5), left.point(3.5, 1.1), 0.2
    upper.parent = eb["Root"]
    lower = eb.new("Lower.R")
    lower.head, lower.tail, lower.roll = left.point(3.5, 1.1), left.point(4.2, 0.6), -0.4
    lower.parent, lower.use_connect = upper, True
    bpy.ops.object.mode_set(mode="OBJECT")
    left.armature.location = location
    right = dataclasses.replace(left, upper="Upper.R", lower="Lower.R",
                                a=float(np.linalg.norm(np.subtract(left.point(3.5, 1.1), left.point(2.6, 1.5)))),
                                b=float(np.linalg.norm(np.subtract(left.point(4.2, 0.6), left.point(3.5, 1.1)))))
    return left, right


def arm_target(rig: rigs.ArmRig, name: str, phase: float = 0.0) -> bpy.types.Object:
    """An Empty circling the arm's shoulder, partly out of reach (so the error curve is not flat zero)."""
    return rigs.circle_target(rig, FRAMES, lambda f: rig.length * (0.6 + 0.45 * math.sin(f / 3.0 + phase)),
                              lambda f: 0.3 * f + phase, name=name)


def rekey_target(rig: rigs.ArmRig, target: bpy.types.Object, phase: float) -> None:
    points = rigs.circle_points(rig, FRAMES, lambda f: rig.length * (0.6 + 0.45 * math.sin(f / 3.0 + phase)),
                                lambda f: 0.3 * f + phase)
    rigs.key_locations(target, FRAMES, points)


def select_armatures(active: bpy.types.Object, *others: bpy.types.Object) -> None:
    """Object Mode, ``active`` active, ``others`` selected too (the operators act on the selected armatures)."""
    for arm in (active, *others):
        bpy.context.view_layer.objects.active = arm
        if arm.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in (active, *others))
    bpy.context.view_layer.objects.active = active


def keyed_error(rig: rigs.ArmRig, frames: list[int]) -> np.ndarray:
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, "soft_ik_error"))
    assert fc is not None, f"no soft_ik_error keyed on {rig.armature.name}/{rig.lower}"
    return np.array([fc.evaluate(f) for f in frames])


def assert_playback_truth(rig: rigs.ArmRig, target: bpy.types.Object) -> None:
    """Blender's played-back tip against the target equals the keyed error on every frame; the chain did bake."""
    ev = rigs.evaluate(rig, target, FRAMES)
    miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
    world_length = rig.length * rig.world_scale
    np.testing.assert_allclose(keyed_error(rig, FRAMES), miss, atol=1e-4 * world_length,
                               err_msg=f"{rig.armature.name}/{rig.lower}")
    # The targets reach out of range on some frames only: on the others the tip is on the target.
    assert (miss < 1e-4 * world_length).sum() >= 5 and miss.max() > 1e-2 * world_length


def chain_state(rig: rigs.ArmRig, chain_index: int) -> dict[str, object]:
    """The part of :func:`rigs.snapshot` that belongs to one chain: its bones' F-curves and pose channels, and
    the chain's settings and stored report."""
    arm = rig.armature.name
    state = rigs.snapshot()
    bones = (rig.upper, rig.lower)
    out = {k: v for k, v in state.items()
           if any(k.startswith(f'{arm}:pose.bones["{b}"]') or k == f"{arm}.pose[{b}]" for b in bones)}
    out["chain"] = state[f"{arm}.chains[{chain_index}]"]
    assert any(":pose.bones" in k for k in out), "the chain has no keys to compare"
    return out


def warnings(out: str) -> str:
    """Every report from the first 'Warning:' line on (a report's further lines follow it as they are)."""
    start = out.find("Warning:")
    return out[start:] if start >= 0 else ""


# --- 6: dependency cycles ------------------------------------------------------------------------------------


def _add_bone(rig: rigs.ArmRig, name: str, parent: str, head: tuple[float, float], tail: tuple[float, float]) -> None:
    rigs.enter_pose_mode(rig)
    bpy.ops.object.mode_set(mode="EDIT")
    eb = rig.armature.data.edit_bones
    bone = eb.new(name)
    bone.head, bone.tail, bone.parent = rig.point(*head), rig.point(*tail), eb[parent]
    bpy.ops.object.mode_set(mode="POSE")


def _cycle_setup(case: str, rig: rigs.ArmRig, chain: bpy.types.PropertyGroup,
                 target: bpy.types.Object) -> tuple[str, list[str]]:
    """Make ``case``'s dependency; returns (who, words the refusal must contain)."""
    arm = rig.armature
    if case == "parent_lower":
        target.parent, target.parent_type, target.parent_bone = arm, "BONE", rig.lower
        chain.target_space, chain.space_bone = "CHARACTER", rig.lower
        return "target 'Target'", ["bone 'Lower'", "'Target' → parent bone 'Lower' of 'Rig'"]
    if case == "through_objects":
        helper = rigs.new_empty("Helper", arm, rig.upper)
        outer = rigs.new_empty("Outer", helper)
        target.parent = outer
        chain.target_space, chain.space_object = "OBJECT", outer
        return "target 'Target'", ["bone 'Upper'", "'Target' → parent 'Outer' → parent 'Helper' → parent bone "
                                   "'Upper' of 'Rig'"]
    if case == "child_bone":
        _add_bone(rig, "Hand", rig.lower, (2.3, 0.5), (2.5, 0.3))
        target.parent, target.parent_type, target.parent_bone = arm, "BONE", "Hand"
        chain.target_space, chain.space_bone = "CHARACTER", "Hand"
        return "target 'Target'", ["bone 'Hand'", "parent bone 'Hand' of 'Rig'"]
    if case == "child_of":
        con = target.constraints.new("CHILD_OF")
        con.name, con.target, con.subtarget = "Follow", arm, rig.lower
        return "target 'Target'", ["bone 'Lower'", "constraint 'Follow' targets bone 'Lower' of 'Rig'"]
    if case == "bone_constraint":
        _add_bone(rig, "Prop", "Root", (0.0, 0.5), (0.0, 0.2))
        con = arm.pose.bones["Prop"].constraints.new("COPY_LOCATION")
        con.name, con.target, con.subtarget = "Grab", arm, rig.lower
        target.parent, target.parent_type, target.parent_bone = arm, "BONE", "Prop"
        chain.target_space, chain.space_bone = "CHARACTER", "Prop"
        return "target 'Target'", ["bone 'Lower'", "parent bone 'Prop' of 'Rig' → constraint 'Grab' targets bone "
                                   "'Lower' of 'Rig'"]
    if case == "driver":
        fc = target.driver_add("location", 0)
        var = fc.driver.variables.new()
        var.name, var.type = "x", "TRANSFORMS"
        var.targets[0].id, var.targets[0].bone_target, var.targets[0].transform_type = arm, rig.lower, "LOC_X"
        fc.driver.expression = "x"
        return "target 'Target'", ["bone 'Lower'", "driver of location reads bone 'Lower' of 'Rig'"]
    if case == "vertex_parent":
        mesh = bpy.data.meshes.new("Sleeve")
        mesh.from_pydata([rig.point(1.5, 1.0), rig.point(1.7, 1.0), rig.point(1.6, 1.2)], [], [(0, 1, 2)])
        sleeve = bpy.data.objects.new("Sleeve", mesh)
        bpy.context.scene.collection.objects.link(sleeve)
        sleeve.vertex_groups.new(name=rig.lower).add([0, 1, 2], 1.0, "REPLACE")
        sleeve.modifiers.new("Skin", "ARMATURE").object = arm
        target.parent, target.parent_type, target.parent_vertices = sleeve, "VERTEX", (0, 0, 0)
        chain.target_space, chain.space_object = "OBJECT", sleeve
        return "target 'Target'", ["bone 'Lower'", "vertices of 'Sleeve' deformed by bone 'Lower' of 'Rig'"]
    assert case == "pole_on_upper"
    pole = rigs.new_empty("Pole", arm, rig.upper)
    chain.pole = pole
    return "pole 'Pole'", ["bone 'Upper'", "'Pole' → parent bone 'Upper' of 'Rig'"]


def test_the_bones_a_solve_moves_are_the_chains_and_every_bone_below_them(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm()
    for name, parent, head, tail in (("Hand", rig.lower, (2.3, 0.5), (2.5, 0.3)), ("Finger", "Hand", (2.5, 0.3),
                                                                                       (2.6, 0.2)),
                                     ("Prop", "Root", (0.0, 0.5), (0.0, 0.2)), ("Tool", "Prop", (0.0, 0.2),
                                                                                (0.1, 0.1))):
        _add_bone(rig, name, parent, head, tail)
    bones = rig.armature.data.bones
    moved_bones = harness.package("rigging.rig_dependencies").moved_bones
    for names in ((rig.upper, rig.lower), ("Root", rig.upper), ("Prop",), ("Finger",)):
        # The definition: a bone moves when it or one of its ancestors is a chain bone.
        want = {b.name for b in bones if b.name in names or any(p.name in names for p in b.parent_recursive)}
        assert moved_bones(rig.armature, names) == want, names
    assert moved_bones(rig.armature, (rig.upper, rig.lower)) == {"Upper", "Lower", "Hand", "Finger"}


CYCLES = ["parent_lower", "through_objects", "child_bone", "child_of", "bone_constraint", "driver",
          "vertex_parent", "pole_on_upper"]


@pytest.mark.parametrize("case", CYCLES)
@pytest.mark.parametrize("operator", ["bake", "solve"])
def test_target_hanging_from_its_own_chain_is_refused(empty_file: bpy.types.Scene, case: str,
                                                      operator: str) -> None:
    rig = rigs.build_arm()
    target = arm_target(rig, "Target")
    chain = rigs.add_chain(rig, target)
    assert rigs.bake(rig, START, END) == {"FINISHED"}  # an earlier bake whose keys must survive the refusal
    who, words = _cycle_setup(case, rig, chain, target)
    rigs.enter_pose_mode(rig)
    bpy.context.scene.frame_set(bpy.context.scene.frame_current)  # new constraints/drivers evaluated first
    before = rigs.snapshot()
    with pytest.raises(RuntimeError) as info:
        if operator == "bake":
            bpy.ops.pose.soft_ik_bake(frame_start=START, frame_end=END)
        else:
            bpy.ops.pose.soft_ik_solve(insert_keys=True)
    message = str(info.value)
    for word in ["Chain 'Lower' of 'Rig'", f"{who} depends on the chain's own", "dependency cycle", *words]:
        assert word in message, f"{word!r} missing from {message!r}"
    rigs.assert_same_snapshot(before, rigs.snapshot())


def test_live_preview_refuses_a_target_hanging_from_its_chain(empty_file: bpy.types.Scene) -> None:
    """Live preview would chase a target that moves with every pose it writes: it shows the refusal instead
    and leaves the pose alone, and poses again once the cycle is gone. The preview checks a chain when it reads
    it (first use, a change of its settings or rest pose), not on every update: the settings change below."""
    rig = rigs.build_arm()
    target = rigs.new_empty("Target")
    target.location = rig.point(1.2, 1.0)
    chain = rigs.add_chain(rig, target)
    pose = rig.armature.pose.bones
    world = target.matrix_world.copy()
    target.parent, target.parent_type, target.parent_bone = rig.armature, "BONE", rig.lower
    bpy.context.view_layer.update()
    target.matrix_world = world
    chain.softness = 0.05
    rig.armature.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()
    cached = rigs.harness.package("rigging.live_preview").preview_of(rig.armature, chain)
    assert cached is not None and cached.solution is None
    assert "dependency cycle" in cached.message and "bone 'Lower'" in cached.message, cached.message
    assert tuple(pose[rig.upper].rotation_quaternion) == (1.0, 0.0, 0.0, 0.0)
    assert tuple(pose[rig.lower].rotation_quaternion) == (1.0, 0.0, 0.0, 0.0)

    target.parent = None
    target.matrix_world = world
    chain.softness = 0.0  # a settings change: the chain is read and checked again
    bpy.context.view_layer.update()
    tip = rig.armature.matrix_world @ pose[rig.lower].tail
    assert (tip - target.matrix_world.translation).length < 1e-3 * rig.length


@pytest.mark.parametrize("case", ["bone_above_the_chain", "muted_child_of", "sibling_bone"])
def test_dependencies_outside_the_chain_still_bake(empty_file: bpy.types.Scene, case: str) -> None:
    """The check must not refuse what is not a cycle: the bone above the chain, a muted constraint, a bone
    beside the chain (the right arm's target on the left forearm is fine for the right arm)."""
    left, right = two_arm_rig("Rig")
    rig = right if case == "sibling_bone" else left
    target = arm_target(rig, "Target")
    chain = rigs.add_chain(rig, target)
    bone = {"bone_above_the_chain": "Root", "sibling_bone": left.lower, "muted_child_of": ""}[case]
    if bone:
        points = rigs.world_matrices(target, FRAMES)[:, :3, 3]
        rigs.key_in_parent_space(target, rig.armature, bone, FRAMES, points)
        chain.target_space, chain.space_bone = "CHARACTER", bone
    else:
        con = target.constraints.new("CHILD_OF")
        con.target, con.subtarget, con.mute = rig.armature, rig.lower, True
    chain.softness = 0.0
    assert rigs.bake(rig, START, END) == {"FINISHED"}
    assert_playback_truth(rig, target)


def test_add_chain_refuses_a_selected_target_that_hangs_from_the_chain(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm()
    cup = rigs.new_empty("Cup", rig.armature, rig.lower)
    rigs.enter_pose_mode(rig, rig.lower)
    cup.select_set(True)
    before = rigs.snapshot()
    with pytest.raises(RuntimeError) as info:
        bpy.ops.pose.soft_ik_add_chain(chain_length=2)
    for word in ("Chain 'Lower' of 'Rig'", "target 'Cup' depends on the chain's own bone 'Lower'", "dependency cycle"):
        assert word in str(info.value), str(info.value)
    rigs.assert_same_snapshot(before, rigs.snapshot())
    assert len(rig.armature.soft_ik_2d.chains) == 0


# --- 7: the same bones twice ---------------------------------------------------------------------------------


@pytest.mark.parametrize("active", ["Lower", "Upper"])
def test_add_chain_on_bones_of_an_existing_chain_is_refused(empty_file: bpy.types.Scene, active: str) -> None:
    rig = rigs.build_arm()
    rigs.add_chain(rig, arm_target(rig, "Target"))
    rigs.enter_pose_mode(rig, active)
    before = rigs.snapshot()
    with pytest.raises(RuntimeError) as info:
        bpy.ops.pose.soft_ik_add_chain(chain_length=2)
    message = str(info.value)
    shared = "Upper"  # Upper > Lower, or Root > Upper: both contain the existing chain's upper bone
    for word in [f"Bone '{active if active == 'Lower' else shared}' already belongs to chain 'Lower' of 'Rig'",
                 "Upper > Lower", "select that chain"]:
        assert word in message, f"{word!r} missing from {message!r}"
    rigs.assert_same_snapshot(before, rigs.snapshot())
    assert len(rig.armature.soft_ik_2d.chains) == 1


def test_chains_with_the_same_name_on_other_bones_stay_apart(empty_file: bpy.types.Scene) -> None:
    left, right = two_arm_rig("Rig")
    first = rigs.add_chain(left, arm_target(left, "TargetL"), name="Arm")
    second = rigs.add_chain(right, arm_target(right, "TargetR"), name="Arm")
    assert first.name == "Arm" and second.name == "Arm.001"


def test_add_chain_on_free_bones_ignores_a_conflict_elsewhere(empty_file: bpy.types.Scene) -> None:
    left, right = two_arm_rig("Rig")
    target = arm_target(left, "TargetL")
    rigs.add_chain(left, target)
    other = left.armature.soft_ik_2d.chains.add()  # a script's chain over the left arm's upper bone
    other.name, other.upper_bone, other.lower_bone, other.target = "Shoulder", "Root", "Upper", target
    chain = rigs.add_chain(right, arm_target(right, "TargetR"))
    assert chain.lower_bone == "Lower.R"


# --- 10: Only Active Chain -----------------------------------------------------------------------------------


def test_only_active_chain_bakes_the_active_chain_of_the_active_armature(empty_file: bpy.types.Scene) -> None:
    a_left, a_right = two_arm_rig("RigA")
    b_left, _b_right = two_arm_rig("RigB", location=(0.0, 4.0, 0.0))
    targets = {}
    for i, rig in enumerate((a_left, a_right, b_left)):
        targets[i] = arm_target(rig, f"Target{i}", phase=0.7 * i)
        rigs.add_chain(rig, targets[i])
    a_settings = a_left.armature.soft_ik_2d
    a_settings.active_chain_index = 1  # Lower.R
    select_armatures(a_left.armature, b_left.armature)
    assert bpy.ops.pose.soft_ik_bake(frame_start=START, frame_end=END, only_active_chain=True) == {"FINISHED"}
    assert_playback_truth(a_right, targets[1])
    anim_keys = rigs.harness.package("rigging.anim_keys")
    others = [fc.data_path for fc in anim_keys.iter_fcurves(a_left.armature)
              if '"Upper"' in fc.data_path or '"Lower"' in fc.data_path]
    assert others == [], f"the other chain of the active armature was baked: {others}"
    assert list(anim_keys.iter_fcurves(b_left.armature)) == [], "a selected, non-active armature was baked"
    assert a_settings.chains[0].bake_end < a_settings.chains[0].bake_start
    assert b_left.armature.soft_ik_2d.chains[0].bake_end < b_left.armature.soft_ik_2d.chains[0].bake_start

    # Clear with Only Active Chain leaves the other armature's bake alone.
    select_armatures(b_left.armature)
    assert bpy.ops.pose.soft_ik_bake(frame_start=START, frame_end=END) == {"FINISHED"}
    b_keys = {k: v for k, v in rigs.snapshot().items() if k.startswith("RigB:")}
    select_armatures(a_left.armature, b_left.armature)
    assert bpy.ops.pose.soft_ik_clear_bake(only_active_chain=True) == {"FINISHED"}
    assert {k: v for k, v in rigs.snapshot().items() if k.startswith("RigB:")} == b_keys
    assert not [fc for fc in anim_keys.iter_fcurves(a_left.armature) if '"Lower.R"' in fc.data_path]


def test_only_active_chain_without_an_active_chain_names_the_armature(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm()
    rigs.add_chain(rig, arm_target(rig, "Target"))
    rig.armature.soft_ik_2d.active_chain_index = 5
    select_armatures(rig.armature)
    before = rigs.snapshot()
    with pytest.raises(RuntimeError, match="Armature 'Rig' has no active Soft IK chain"):
        bpy.ops.pose.soft_ik_bake(frame_start=START, frame_end=END, only_active_chain=True)
    rigs.assert_same_snapshot(before, rigs.snapshot())


# --- 11: several chains, some bad ----------------------------------------------------------------------------


@dataclasses.dataclass
class Scene5:
    """Five chains on three armatures, all baked once: A.L, B.L, C.L stay good, A.R and B.R are broken."""

    rigs: dict[str, rigs.ArmRig]
    targets: dict[str, bpy.types.Object]
    index: dict[str, int]

    @property
    def armatures(self) -> list[bpy.types.Object]:
        return [self.rigs[k].armature for k in ("A.L", "B.L", "C.L")]


def five_chains() -> Scene5:
    a_left, a_right = two_arm_rig("RigA")
    b_left, b_right = two_arm_rig("RigB", location=(0.0, 4.0, 0.0))
    c_left = rigs.build_arm("RigC")
    c_left.armature.location = (0.0, -4.0, 0.0)
    all_rigs = {"A.L": a_left, "A.R": a_right, "B.L": b_left, "B.R": b_right, "C.L": c_left}
    targets, index = {}, {}
    for i, (key, rig) in enumerate(all_rigs.items()):
        targets[key] = arm_target(rig, f"Target {key}", phase=0.5 * i)
        rigs.add_chain(rig, targets[key])
        index[key] = len(rig.armature.soft_ik_2d.chains) - 1
    scene = Scene5(all_rigs, targets, index)
    select_armatures(*scene.armatures)
    assert bpy.ops.pose.soft_ik_bake(frame_start=START, frame_end=END) == {"FINISHED"}
    return scene


def break_chain(scene: Scene5, key: str, how: str) -> None:
    rig, chain = scene.rigs[key], scene.rigs[key].armature.soft_ik_2d.chains[scene.index[key]]
    if how == "cycle":
        target = scene.targets[key]
        world = target.matrix_world.copy()
        target.parent, target.parent_type, target.parent_bone = rig.armature, "BONE", rig.upper
        bpy.context.view_layer.update()
        target.matrix_world = world
        chain.target_space, chain.space_bone = "CHARACTER", rig.upper
    elif how == "no_space_object":
        chain.target_space = "OBJECT"
    else:
        assert how == "no_target"
        chain.target = None


def test_batch_bakes_the_valid_chains_and_names_every_bad_one(empty_file: bpy.types.Scene,
                                                             capfd: pytest.CaptureFixture[str]) -> None:
    scene = five_chains()
    good, bad = ("A.L", "B.L", "C.L"), {"A.R": "cycle", "B.R": "no_space_object"}
    for key in good:  # new motion, so only a real re-bake passes the playback check below
        rekey_target(scene.rigs[key], scene.targets[key], phase=2.0)
    for key, how in bad.items():
        break_chain(scene, key, how)
    bad_before = {key: chain_state(scene.rigs[key], scene.index[key]) for key in bad}
    select_armatures(*scene.armatures)
    capfd.readouterr()
    assert bpy.ops.pose.soft_ik_bake(frame_start=START, frame_end=END) == {"FINISHED"}
    report = warnings(capfd.readouterr().out)

    for key in good:
        assert_playback_truth(scene.rigs[key], scene.targets[key])
    for key in bad:
        rigs.assert_same_snapshot(bad_before[key], chain_state(scene.rigs[key], scene.index[key]))
    # One WARNING report listing both, each with its reason.
    assert report.startswith("Warning: 2 of 5 chain(s) not baked"), report
    assert report.count("Warning:") == 1, report
    for words in ("Chain 'Lower.R' of 'RigA': target 'Target A.R' depends on the chain's own bone 'Upper.R'",
                  "Chain 'Lower.R' of 'RigB': Target Space is OBJECT but no Space Object is set"):
        assert words in report, report


def test_batch_where_no_chain_can_bake_is_cancelled_naming_all(empty_file: bpy.types.Scene) -> None:
    scene = five_chains()
    for key, how in {"A.L": "no_target", "A.R": "cycle", "B.L": "no_target", "B.R": "no_space_object",
                     "C.L": "no_target"}.items():
        break_chain(scene, key, how)
    select_armatures(*scene.armatures)
    before = rigs.snapshot()
    with pytest.raises(RuntimeError) as info:
        bpy.ops.pose.soft_ik_bake(frame_start=START, frame_end=END)
    message = str(info.value)
    assert "5 of 5 chain(s) not baked" in message, message
    for label in ("Chain 'Lower' of 'RigA'", "Chain 'Lower.R' of 'RigA'", "Chain 'Lower' of 'RigB'",
                  "Chain 'Lower.R' of 'RigB'", "Chain 'Lower' of 'RigC'"):
        assert label in message, message
    rigs.assert_same_snapshot(before, rigs.snapshot())


def test_two_chains_sharing_a_bone_are_skipped_and_the_others_bake(empty_file: bpy.types.Scene,
                                                                  capfd: pytest.CaptureFixture[str]) -> None:
    left, right = two_arm_rig("Rig")
    left_target, right_target = arm_target(left, "TargetL"), arm_target(right, "TargetR", phase=1.0)
    rigs.add_chain(left, left_target)
    rigs.add_chain(right, right_target)
    select_armatures(left.armature)
    assert bpy.ops.pose.soft_ik_bake(frame_start=START, frame_end=END) == {"FINISHED"}
    rekey_target(right, right_target, phase=2.5)
    # A chain a script added over the left arm's upper bone (Add Chain itself refuses this).
    other = left.armature.soft_ik_2d.chains.add()
    other.name, other.upper_bone, other.lower_bone, other.target = "Shoulder", "Root", "Upper", left_target
    left_before = chain_state(left, 0)
    capfd.readouterr()
    assert bpy.ops.pose.soft_ik_bake(frame_start=START, frame_end=END) == {"FINISHED"}
    report = warnings(capfd.readouterr().out)
    assert_playback_truth(right, right_target)
    rigs.assert_same_snapshot(left_before, chain_state(left, 0))
    assert "2 of 3 chain(s) not baked" in report, report
    assert "Chains 'Lower' and 'Shoulder' of 'Rig' both use bone 'Upper'" in report, report
    assert report.count("both use bone") == 1, report


def test_chain_without_a_finite_frame_is_skipped_and_named(empty_file: bpy.types.Scene,
                                                          capfd: pytest.CaptureFixture[str]) -> None:
    """A chain that fails only once sampled (no finite target on any frame) is skipped like the others."""
    left, right = two_arm_rig("Rig")
    left_target, right_target = arm_target(left, "TargetL"), arm_target(right, "TargetR", phase=1.0)
    rigs.add_chain(left, left_target)
    rigs.add_chain(right, right_target)
    select_armatures(left.armature)
    assert bpy.ops.pose.soft_ik_bake(frame_start=START, frame_end=END) == {"FINISHED"}
    rekey_target(right, right_target, phase=2.5)
    fc = rigs.fcurve(left_target, "location", 1)
    co = rigs.key_frames(fc).astype(np.float32)
    co[:, 1] = np.nan
    fc.keyframe_points.foreach_set("co", co.ravel())
    left_before = chain_state(left, 0)
    capfd.readouterr()
    assert bpy.ops.pose.soft_ik_bake(frame_start=START, frame_end=END) == {"FINISHED"}
    report = warnings(capfd.readouterr().out)
    assert_playback_truth(right, right_target)
    rigs.assert_same_snapshot(left_before, chain_state(left, 0))
    assert "1 of 2 chain(s) not baked" in report, report
    assert "Chain 'Lower' of 'Rig': no frame of the range has finite positions" in report, report
    assert "not finite: target 'TargetL')" in report, report


def test_solve_poses_the_valid_chains_and_names_every_bad_one(empty_file: bpy.types.Scene,
                                                             capfd: pytest.CaptureFixture[str]) -> None:
    scene = five_chains()
    bad = {"A.R": "cycle", "B.R": "no_space_object"}
    for key, how in bad.items():
        break_chain(scene, key, how)
    bpy.context.scene.frame_set(7)
    bad_pose = {key: chain_state(scene.rigs[key], scene.index[key]) for key in bad}
    for key in ("A.L", "B.L", "C.L"):  # move the good targets away from what the keys were baked for
        scene.targets[key].animation_data_clear()
        scene.targets[key].location = rigs.circle_points(scene.rigs[key], [7], lambda f: 1.2, lambda f: -0.4)[0]
    select_armatures(*scene.armatures)
    capfd.readouterr()
    assert bpy.ops.pose.soft_ik_solve() == {"FINISHED"}
    report = warnings(capfd.readouterr().out)
    bpy.context.view_layer.update()
    for key in ("A.L", "B.L", "C.L"):
        rig = scene.rigs[key]
        tip = rig.armature.matrix_world @ rig.armature.pose.bones[rig.lower].tail
        miss = (tip - scene.targets[key].matrix_world.translation).length
        assert miss < 1e-4 * rig.length, f"{key} was not solved ({miss})"
    for key in bad:
        rigs.assert_same_snapshot(bad_pose[key], chain_state(scene.rigs[key], scene.index[key]))
    assert report.startswith("Warning: 2 of 5 chain(s) not solved"), report
    assert "'RigA'" in report and "'RigB'" in report and "before baking" not in report, report


# --- 12: Fix Target Space on every frame ---------------------------------------------------------------------


def wobbling_armature(rig: rigs.ArmRig) -> None:
    """The armature object moves non-linearly between sparse Bezier keys (eased, rotating, scaling)."""
    arm = rig.armature
    arm.rotation_mode = "XYZ"
    for f, loc, rot in ((1, (0.0, 0.0, 0.0), 0.0), (9, (1.5, 0.3, 0.8), 1.2), (26, (-0.7, 0.1, 2.0), -0.5),
                        (40, (0.4, 0.0, -0.3), 2.6)):
        arm.location, arm.rotation_euler, arm.scale = loc, (0.2 * rot, 0.0, rot), [1.0 + 0.1 * rot] * 3
        for path in ("location", "rotation_euler", "scale"):
            arm.keyframe_insert(path, frame=f)


def wobbling_door() -> bpy.types.Object:
    door = rigs.new_empty("Door")
    door.rotation_mode = "XYZ"
    for f, x in ((1, 0.0), (15, 2.0), (40, -1.0)):
        door.location, door.rotation_euler = (x, 0.5, 0.3 * x), (0.0, 0.4 * x, -0.6 * x)
        door.keyframe_insert("location", frame=f)
        door.keyframe_insert("rotation_euler", frame=f)
    return door


@pytest.mark.parametrize("old_parent", ["world", "door"])
@pytest.mark.parametrize("mode", ["QUATERNION", "XYZ", "AXIS_ANGLE", "ZXY"])
@pytest.mark.parametrize("keys", ["sparse", "none"])
def test_fix_target_space_keeps_world_motion_on_every_frame(empty_file: bpy.types.Scene, old_parent: str,
                                                           mode: str, keys: str) -> None:
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 45  # past every key: the range, not the keys, decides
    rig = rigs.build_arm()
    wobbling_armature(rig)
    target = rigs.new_empty("Target", wobbling_door() if old_parent == "door" else None)
    target.rotation_mode = mode
    if keys == "sparse":
        for f, loc, turn in ((3, (1.0, 0.0, 1.0), 0.0), (20, (2.0, 0.5, 1.5), 3.5), (35, (1.5, -0.2, 0.5), 7.0)):
            target.location = loc
            target.rotation_euler = (0.1 * turn, 0.0, turn)  # more than 2 pi in all: unwrapping matters
            if mode != "XYZ":
                q = target.rotation_euler.to_quaternion()
                target.rotation_quaternion = q
                axis, angle = q.to_axis_angle()
                target.rotation_axis_angle = (angle, *axis)
            target.keyframe_insert("location", frame=f)
            target.keyframe_insert(rigs.rotation_prop(mode)[0], frame=f)
    else:
        target.location, target.rotation_euler = (1.0, 0.2, 1.3), (0.3, 0.2, 0.1)
    frames = list(range(scene.frame_start, scene.frame_end + 1))
    before = rigs.world_matrices(target, frames)
    chain = rigs.add_chain(rig, target)
    chain.target_space = "CHARACTER"

    assert bpy.ops.pose.soft_ik_fix_target_space() == {"FINISHED"}
    assert target.parent == rig.armature
    after = rigs.world_matrices(target, frames)
    drift = np.abs(after - before).max()
    assert drift < 1e-5, f"world motion changed by up to {drift}"
    # The new channels are continuous: no quaternion sign flips, no Euler jumps of 2 pi.
    prop, size = rigs.rotation_prop(mode)
    values = np.array([[rigs.fcurve(target, prop, i).evaluate(f) for i in range(size)] for f in frames])
    if mode == "QUATERNION":
        assert (np.einsum("ij,ij->i", values[1:], values[:-1]) > 0).all(), "quaternion sign flips"
    elif mode != "AXIS_ANGLE":
        assert np.abs(np.diff(values, axis=0)).max() < math.pi, "Euler angles jump"
    # And then it bakes: the target now matches the declared space.
    assert rigs.bake(rig, frames[0], frames[-1]) == {"FINISHED"}


@pytest.mark.parametrize("new_space", ["CHARACTER", "OBJECT"])
def test_fix_target_space_into_a_moving_bone_keeps_world_motion(empty_file: bpy.types.Scene,
                                                                 new_space: str) -> None:
    """The new parent is a bone that turns and shifts between sparse Bezier keys (the armature's own, or a
    prop armature's), under a moving armature object."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 30
    rig = rigs.build_arm()
    wobbling_armature(rig)
    rigs.animate_parent(rig, (1, 11, 30), lambda f: 0.9 * math.sin(f / 4.0), lambda f: (0.05 * f, 0.3 * math.cos(f)))
    owner = rig.armature
    if new_space == "OBJECT":
        owner = rigs.build_arm("Prop").armature
        rigs.animate_parent(dataclasses.replace(rig, armature=owner), (1, 17, 30), lambda f: 0.05 * f * f,
                            lambda f: (0.0, 0.1 * f))
    target = rigs.new_empty("Target")
    target.rotation_mode = "YXZ"
    for f, loc in ((2, (1.0, 0.0, 1.0)), (24, (2.0, 0.5, 1.5))):
        target.location = loc
        target.keyframe_insert("location", frame=f)
    frames = list(range(1, 31))
    before = rigs.world_matrices(target, frames)
    chain = rigs.add_chain(rig, target)
    chain.target_space = new_space
    if new_space == "OBJECT":
        chain.space_object = owner
    chain.space_bone = "Root"
    assert bpy.ops.pose.soft_ik_fix_target_space() == {"FINISHED"}
    assert (target.parent, target.parent_type, target.parent_bone) == (owner, "BONE", "Root")
    drift = np.abs(rigs.world_matrices(target, frames) - before).max()
    assert drift < 1e-5, f"world motion changed by up to {drift}"


@pytest.mark.parametrize("space", ["bone", "object_on_bone"])
def test_fix_target_space_refuses_a_space_that_moves_with_the_chain(empty_file: bpy.types.Scene,
                                                                    space: str) -> None:
    rig = rigs.build_arm()
    chain = rigs.add_chain(rig, arm_target(rig, "Target"))
    if space == "bone":
        chain.target_space, chain.space_bone = "CHARACTER", rig.upper
        words = ["declared CHARACTER space (bone 'Upper' of 'Rig')", "chain's own bone 'Upper'"]
    else:
        chain.target_space, chain.space_object = "OBJECT", rigs.new_empty("Cup", rig.armature, rig.lower)
        words = ["declared OBJECT space ('Cup' → parent bone 'Lower' of 'Rig')", "chain's own bone 'Lower'"]
    rigs.enter_pose_mode(rig)
    before = rigs.snapshot()
    with pytest.raises(RuntimeError) as info:
        bpy.ops.pose.soft_ik_fix_target_space()
    for word in ["Chain 'Lower'", *words]:
        assert word in str(info.value), str(info.value)
    rigs.assert_same_snapshot(before, rigs.snapshot())


# --- 13: messages --------------------------------------------------------------------------------------------


def test_very_short_segment_is_too_short_not_zero_length(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm()
    rigs.add_chain(rig, arm_target(rig, "Target"))
    rigs.enter_pose_mode(rig)
    bpy.ops.object.mode_set(mode="EDIT")
    eb = rig.armature.data.edit_bones
    eb[rig.lower].use_connect = False
    eb[rig.lower].head = np.array(eb[rig.upper].head) + 5e-5 * np.array(eb[rig.upper].vector.normalized())
    bpy.ops.object.mode_set(mode="POSE")
    before = rigs.snapshot()
    with pytest.raises(RuntimeError) as info:
        bpy.ops.pose.soft_ik_bake(frame_start=START, frame_end=END)
    message = str(info.value)
    for word in ("Chain 'Lower' of 'Rig'", "bone 'Upper' is too short for this chain: 5.0", "e-05 against",
                 "ratio 2.8e-05", "lengthen it"):
        assert word in message, f"{word!r} missing from {message!r}"
    assert "zero length" not in message
    rigs.assert_same_snapshot(before, rigs.snapshot())


def test_solve_refusals_do_not_talk_about_baking(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm()
    chain = rigs.add_chain(rig, arm_target(rig, "Target"))
    chain.target_space = "CHARACTER"  # the target is not parented to the armature
    rigs.enter_pose_mode(rig)
    before = rigs.snapshot()
    with pytest.raises(RuntimeError) as info:
        bpy.ops.pose.soft_ik_solve()
    message = str(info.value)
    assert "target 'Target' is not parented" in message and "Fix Target Space" in message, message
    assert "bak" not in message.lower(), message
    rigs.assert_same_snapshot(before, rigs.snapshot())
