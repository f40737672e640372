"""The studio setup: the rig collection (armature, arm bones, hand target, a chain authored on it) is linked from a
library .blend and overridden in the shot (issue 9, setup 1).

Two overrides: Blender's default (``do_fully_editable=False``: object overridden, armature data still linked, a
system override until the user's Object > Library Override > Make makes it editable) and the fully editable
one. Truth is Blender's playback: ``frame_set``, the evaluated tip against the target, and the keyed
``soft_ik_error`` read back from the played pose bone; save and reopen go through ``wm.save_as_mainfile`` and
``wm.open_mainfile``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import bpy
import harness
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 13))
START, END = FRAMES[0], FRAMES[-1]
SOFTNESS = 0.06
VARIANTS = ("made_editable", "fully_editable")


@dataclass
class Shot:
    arm: bpy.types.Object  # the overridden armature object
    hand: bpy.types.Object  # the overridden target Empty
    rig: rigs.ArmRig  # the test rig description, pointing at the override
    library: Path


def _radius(f: float) -> float:
    # From well inside reach to 15% beyond it: reached frames and frames with a real error.
    return 1.1 + 0.085 * (f - 1)


def build_library(path: Path, *, baked: bool = False, animated: bool = True) -> None:
    """Library file: collection 'RigCol' with armature 'Rig' (animated Root: a linked action with body keys, two
    more bones 'Thigh' > 'Shin' for a chain added in the shot) and the keyed Empty 'Hand'; chain 'Arm' on it
    (``baked``: and baked in the library, so its keys and report come from there; not ``animated``: the rig
    has no action at all)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    rig = rigs.build_arm("Rig")
    bpy.ops.object.mode_set(mode="EDIT")
    eb = rig.armature.data.edit_bones
    thigh, shin = eb.new("Thigh"), eb.new("Shin")
    thigh.head, thigh.tail = rig.point(0.0, 0.9), rig.point(0.1, 0.3)
    shin.head, shin.tail = rig.point(0.1, 0.3), rig.point(0.05, -0.3)
    thigh.parent, shin.parent, shin.use_connect = eb["Root"], thigh, True
    bpy.ops.object.mode_set(mode="OBJECT")
    if animated:
        rigs.animate_parent(rig, FRAMES, lambda f: 0.4 * math.sin(f / 5.0), lambda f: (0.02 * f, -0.01 * f))
    hand = rigs.circle_target(rig, FRAMES, _radius, lambda f: -0.4 + 0.3 * f, name="Hand")
    collection = bpy.data.collections.new("RigCol")
    bpy.context.scene.collection.children.link(collection)
    for obj in (rig.armature, hand):
        collection.objects.link(obj)
        bpy.context.scene.collection.objects.unlink(obj)
    chain = rigs.add_chain(rig, hand, name="Arm")
    chain.softness = SOFTNESS
    if baked:
        assert rigs.bake(rig, START, END - 2) == {"FINISHED"}
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.wm.save_as_mainfile(filepath=str(path))


def link_rig(library: Path) -> bpy.types.Collection:
    """A new shot with the library's rig collection linked into its scene (no override yet)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    with bpy.data.libraries.load(str(library), link=True) as (_src, dst):
        dst.collections = ["RigCol"]
    linked = dst.collections[0]
    bpy.context.scene.collection.children.link(linked)
    return linked


def select_only(*objects: bpy.types.Object) -> None:
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = objects[0]


def make_editable(*objects: bpy.types.Object) -> None:
    """What the user does on a system override: select it, Object > Library Override > Make."""
    for obj in objects:
        select_only(obj)
        assert bpy.ops.object.make_override_library() == {"FINISHED"}
        assert not obj.override_library.is_system_override


def override_shot(library: Path, variant: str, *, editable_hand: bool = True) -> Shot:
    linked = link_rig(library)
    scene = bpy.context.scene
    override = linked.override_hierarchy_create(scene, bpy.context.view_layer,
                                                do_fully_editable=variant == "fully_editable")
    scene.collection.children.unlink(linked)
    arm, hand = override.objects["Rig"], override.objects["Hand"]
    assert arm.override_library is not None and arm.library is None
    assert arm.data.library is not None, "Blender's default override keeps the armature data linked"
    if variant == "made_editable":
        assert arm.override_library.is_system_override
        make_editable(arm, *((hand,) if editable_hand else ()))
    return Shot(arm, hand, _arm_rig(arm), library)


def _arm_rig(arm: bpy.types.Object, upper: str = "Upper", lower: str = "Lower") -> rigs.ArmRig:
    bones = arm.data.bones
    return rigs.ArmRig(arm, "XZ", upper, lower, "Root", bones[upper].length, bones[lower].length, 0.25)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("library") / "rig_library.blend"
    build_library(path)
    return path


@pytest.fixture(scope="module")
def baked_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("baked_library") / "baked_rig_library.blend"
    build_library(path, baked=True)
    return path


@pytest.fixture(scope="module")
def still_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("still_library") / "still_rig_library.blend"
    build_library(path, animated=False)
    return path


@pytest.fixture(params=VARIANTS)
def shot(request: pytest.FixtureRequest, library: Path) -> Iterator[Shot]:
    yield override_shot(library, request.param)
    bpy.ops.wm.read_homefile(use_empty=True)


# --- reading keys, independent of the add-on's own writing --------------------------------------------------------


def action_curves(action: bpy.types.Action) -> dict[tuple[str, int], list[float]]:
    """Every F-curve of ``action`` (all slots) and its key coordinates."""
    if "layers" in bpy.types.Action.bl_rna.properties:
        curves = [fc for layer in action.layers for strip in layer.strips for bag in strip.channelbags
                  for fc in bag.fcurves]
    else:
        curves = list(action.fcurves)
    out = {}
    for fc in curves:
        co = np.empty(2 * len(fc.keyframe_points))
        fc.keyframe_points.foreach_get("co", co)
        out[(fc.data_path, fc.array_index)] = co.tolist()
    return out


def played_curves(obj: bpy.types.Object) -> dict[tuple[str, int], list[float]]:
    anim_keys = harness.package("rigging.anim_keys")
    out = {}
    for fc in anim_keys.iter_fcurves(obj):
        co = np.empty(2 * len(fc.keyframe_points))
        fc.keyframe_points.foreach_get("co", co)
        out[(fc.data_path, fc.array_index)] = co.tolist()
    return out


def linked_actions() -> dict[str, dict[tuple[str, int], list[float]]]:
    return {a.name: action_curves(a) for a in bpy.data.actions if a.library is not None}


def playback(shot: Shot, lower: str = "Lower", target: bpy.types.Object | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
    """Per frame: Blender's played distance from the lower bone's tail to the target (world), and the
    ``soft_ik_error`` the played pose bone holds."""
    target = target or shot.hand
    scene = bpy.context.scene
    miss, keyed = [], []
    for f in FRAMES:
        scene.frame_set(f)
        pb = shot.arm.pose.bones[lower]
        tip = np.array(shot.arm.matrix_world @ pb.tail)
        miss.append(float(np.linalg.norm(tip - np.array(target.matrix_world.translation))))
        keyed.append(float(pb["soft_ik_error"]))
    return np.array(miss), np.array(keyed)


def bake(shot: Shot, **props: object) -> set[str]:
    select_only(shot.arm)
    if shot.arm.mode != "POSE":
        bpy.ops.object.mode_set(mode="POSE")
    return bpy.ops.pose.soft_ik_bake(frame_start=START, frame_end=END, **props)


def world_length(shot: Shot) -> float:
    return shot.rig.length * shot.rig.world_scale


def assert_true_bake(shot: Shot, lower: str = "Lower", target: bpy.types.Object | None = None) -> np.ndarray:
    miss, keyed = playback(shot, lower, target)
    np.testing.assert_allclose(keyed, miss, atol=1e-4 * world_length(shot))
    return miss


# --- the override works ----------------------------------------------------------------------------------------


def test_library_chain_is_read_and_bakes_into_a_local_action(shot: Shot, capfd: pytest.CaptureFixture[str]) -> None:
    chains = shot.arm.soft_ik_2d.chains
    assert [c.name for c in chains] == ["Arm"]
    chain = chains["Arm"]
    assert chain.target == shot.hand and chain.softness == pytest.approx(SOFTNESS)
    body_before = played_curves(shot.arm)
    assert shot.arm.animation_data.action.library is not None  # the library's body animation
    linked_before = linked_actions()

    capfd.readouterr()
    assert bake(shot) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "The action 'RigAction' of 'Rig' is linked from" in out and "its local copy 'RigAction'" in out, out

    action = shot.arm.animation_data.action
    assert action.library is None, "keys must go into a local action of the shot"
    assert linked_actions() == linked_before, "the linked actions must not change"
    after = played_curves(shot.arm)
    for key, co in body_before.items():
        assert after[key] == co, f"the body animation {key} changed"
    miss = assert_true_bake(shot)
    assert miss.max() > 0.05 * world_length(shot), "the path should leave the reach on some frames"
    assert miss.min() < 1e-4 * world_length(shot)

    # The report is stored on the library's chain and matches playback.
    assert chain.has_bake and (chain.bake_start, chain.bake_end) == (START, END)
    assert chain.error_max == pytest.approx(miss.max(), abs=1e-4 * world_length(shot))
    worst = [(w.frame, w.error) for w in chain.worst_frames]
    assert worst and worst[0][0] == FRAMES[int(np.argmax(miss))]
    for frame, error in worst:
        assert error == pytest.approx(miss[FRAMES.index(frame)], abs=1e-4 * world_length(shot))


def test_solve_and_live_preview_pose_the_override(shot: Shot) -> None:
    scene = bpy.context.scene
    select_only(shot.arm)
    bpy.ops.object.mode_set(mode="POSE")
    scene.frame_set(2)
    assert bpy.ops.pose.soft_ik_solve() == {"FINISHED"}
    pb = shot.arm.pose.bones["Lower"]
    tip = np.array(shot.arm.matrix_world @ pb.tail)
    assert np.linalg.norm(tip - np.array(shot.hand.matrix_world.translation)) < 1e-4 * world_length(shot)

    assert shot.arm.animation_data.action.library is not None, "solving without keys leaves the action"
    assert bpy.ops.pose.soft_ik_solve(insert_keys=True) == {"FINISHED"}
    assert shot.arm.animation_data.action.library is None, "keys go into a local action"
    assert rigs.fcurve(shot.arm, rigs.bone_path("Lower", "soft_ik_error")) is not None
    assert bpy.ops.pose.soft_ik_clear_bake() in ({"FINISHED"}, {"CANCELLED"})
    bpy.data.actions.remove(shot.arm.animation_data.action)

    shot.arm.soft_ik_2d.live_preview = True
    for f in (3, 1, 4):
        scene.frame_set(f)
        tip = np.array(shot.arm.matrix_world @ shot.arm.pose.bones["Lower"].tail)
        assert np.linalg.norm(tip - np.array(shot.hand.matrix_world.translation)) < 1e-4 * world_length(shot), f
    assert shot.arm.animation_data is None or shot.arm.animation_data.action is None, "the preview keys nothing"


def test_bake_report_and_keys_survive_save_and_reopen(shot: Shot, tmp_path: Path) -> None:
    chain = shot.arm.soft_ik_2d.chains["Arm"]
    chain.softness = 0.09  # an edit made in the shot
    assert bake(shot) == {"FINISHED"}
    before_miss = assert_true_bake(shot)
    keys = played_curves(shot.arm)
    report = (chain.bake_start, chain.bake_end, chain.error_max, chain.error_mean, chain.limited_frames,
              [(w.frame, w.error) for w in chain.worst_frames], chain.baked_channels)
    assert chain.baked_channels

    path = tmp_path / "shot.blend"
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.open_mainfile(filepath=str(path))

    arm = bpy.context.scene.objects["Rig"]
    assert arm.override_library is not None and arm.library is None
    shot = Shot(arm, bpy.context.scene.objects["Hand"], _arm_rig(arm), shot.library)
    chain = arm.soft_ik_2d.chains["Arm"]
    assert chain.softness == pytest.approx(0.09)
    assert (chain.bake_start, chain.bake_end, chain.error_max, chain.error_mean, chain.limited_frames,
            [(w.frame, w.error) for w in chain.worst_frames], chain.baked_channels) == report
    assert arm.animation_data.action.library is None
    assert played_curves(arm) == keys
    # The error curve still animates its property after reopen (a bare custom property would be dropped).
    np.testing.assert_allclose(assert_true_bake(shot), before_miss, atol=1e-5 * world_length(shot))

    # Clear, after reopen, leaves the action's curves as the library's body animation had them.
    select_only(arm)
    assert bpy.ops.pose.soft_ik_clear_bake() == {"FINISHED"}
    linked = next(a for a in bpy.data.actions if a.library is not None and a.name == arm.animation_data.action.name)
    assert played_curves(arm) == action_curves(linked)


def test_clear_leaves_the_curves_as_before(shot: Shot) -> None:
    before = played_curves(shot.arm)
    linked_before = linked_actions()
    assert bake(shot) == {"FINISHED"}
    assert bake(shot) == {"FINISHED"}  # a re-bake rewrites the report in place
    assert len(shot.arm.soft_ik_2d.chains["Arm"].worst_frames) == 10
    assert bpy.ops.pose.soft_ik_clear_bake() == {"FINISHED"}
    assert played_curves(shot.arm) == before
    assert linked_actions() == linked_before
    assert not shot.arm.soft_ik_2d.chains["Arm"].has_bake


def test_add_chain_on_the_override_bakes_and_is_saved(shot: Shot, tmp_path: Path) -> None:
    leg = _arm_rig(shot.arm, "Thigh", "Shin")
    chain = rigs.add_chain(leg, name="Leg")  # no target selected: a new Empty at the tip
    foot = chain.target
    foot_name = foot.name
    foot_name = foot.name
    assert foot is not None and foot.library is None and foot.name in bpy.context.scene.objects
    start = np.array(foot.location)
    rigs.key_locations(foot, FRAMES, np.array([start + np.array([0.02, 0.0, 0.03]) * f for f in FRAMES]))
    assert bake(shot) == {"FINISHED"}
    assert_true_bake(shot)
    leg_miss = assert_true_bake(shot, "Shin", foot)

    path = tmp_path / "shot.blend"
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.open_mainfile(filepath=str(path))
    arm = bpy.context.scene.objects["Rig"]
    reopened = Shot(arm, bpy.context.scene.objects["Hand"], _arm_rig(arm), shot.library)
    chains = arm.soft_ik_2d.chains
    assert [c.name for c in chains] == ["Arm", "Leg"]
    assert chains["Leg"].target.name == foot_name and chains["Leg"].has_bake
    np.testing.assert_allclose(assert_true_bake(reopened, "Shin", chains["Leg"].target), leg_miss,
                               atol=1e-5 * world_length(reopened))


def test_fix_target_space_reparents_an_overridden_target(shot: Shot) -> None:
    chain = shot.arm.soft_ik_2d.chains["Arm"]
    chain.target_space = "CHARACTER"
    path_before = rigs.world_matrices(shot.hand, FRAMES)
    linked_before = linked_actions()
    select_only(shot.arm)
    assert bpy.ops.pose.soft_ik_fix_target_space() == {"FINISHED"}
    assert shot.hand.parent == shot.arm
    assert shot.hand.animation_data.action.library is None
    assert linked_actions() == linked_before
    np.testing.assert_allclose(rigs.world_matrices(shot.hand, FRAMES), path_before, atol=1e-5)
    assert bake(shot) == {"FINISHED"}
    assert_true_bake(shot)


def test_bake_keys_a_local_action_and_says_so(shot: Shot, capfd: pytest.CaptureFixture[str]) -> None:
    linked_before = linked_actions()
    capfd.readouterr()
    assert bake(shot) == {"FINISHED"}
    out = capfd.readouterr().out
    assert shot.arm.animation_data.action.library is None
    assert linked_actions() == linked_before
    assert any("local copy" in line and "'RigAction'" in line for line in out.splitlines()), out
    assert_true_bake(shot)


def test_an_override_without_action_gets_a_local_one_and_says_so(still_library: Path, tmp_path: Path,
                                                                  capfd: pytest.CaptureFixture[str]) -> None:
    shot = override_shot(still_library, "made_editable")
    assert shot.arm.animation_data is None or shot.arm.animation_data.action is None
    capfd.readouterr()
    assert bake(shot) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "'Rig' is a library override without an action: the keys went into its new local action" in out, out
    action = shot.arm.animation_data.action
    assert action is not None and action.library is None
    miss = assert_true_bake(shot)
    path = tmp_path / "shot.blend"
    bpy.ops.object.mode_set(mode="OBJECT")
    tolerance = 1e-5 * world_length(shot)
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.open_mainfile(filepath=str(path))
    arm = bpy.context.scene.objects["Rig"]
    reopened = Shot(arm, bpy.context.scene.objects["Hand"], _arm_rig(arm), still_library)
    np.testing.assert_allclose(assert_true_bake(reopened), miss, atol=tolerance)


def test_library_edits_reach_the_shot_and_the_shots_edits_stay(tmp_path: Path) -> None:
    library = tmp_path / "rig_library.blend"
    build_library(library)
    shot = override_shot(library, "made_editable")
    chain = shot.arm.soft_ik_2d.chains["Arm"]
    chain.softness = 0.09
    assert bake(shot) == {"FINISHED"}
    report = [(w.frame, w.error) for w in chain.worst_frames]
    shot_path = tmp_path / "shot.blend"
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.wm.save_as_mainfile(filepath=str(shot_path))

    # The TD changes the rig's chain in the library: a setting the shot never touched, and one it did.
    bpy.ops.wm.open_mainfile(filepath=str(library))
    library_chain = bpy.data.objects["Rig"].soft_ik_2d.chains["Arm"]
    library_chain.max_root_offset, library_chain.softness = 0.33, 0.2
    bpy.ops.wm.save_mainfile()

    bpy.ops.wm.open_mainfile(filepath=str(shot_path))
    arm = bpy.context.scene.objects["Rig"]
    chain = arm.soft_ik_2d.chains["Arm"]
    assert chain.max_root_offset == pytest.approx(0.33)
    assert chain.softness == pytest.approx(0.09)
    assert [(w.frame, w.error) for w in chain.worst_frames] == report
    assert_true_bake(Shot(arm, bpy.context.scene.objects["Hand"], _arm_rig(arm), library))


def test_remove_chain_removes_shot_chains_and_refuses_library_ones(shot: Shot) -> None:
    leg = _arm_rig(shot.arm, "Thigh", "Shin")
    rigs.add_chain(leg, name="Leg")
    settings = shot.arm.soft_ik_2d
    assert settings.active_chain_index == 1
    assert bpy.ops.pose.soft_ik_remove_chain() == {"FINISHED"}
    assert [c.name for c in settings.chains] == ["Arm"]
    settings.active_chain_index = 0
    before = rigs.snapshot()
    with pytest.raises(RuntimeError) as info:
        bpy.ops.pose.soft_ik_remove_chain()
    assert "Chain 'Arm' of 'Rig' comes from the rig's library file" in str(info.value)
    rigs.assert_same_snapshot(before, rigs.snapshot())


def test_a_chain_baked_in_the_library_is_cleared_and_rebaked_in_the_shot(baked_library: Path,
                                                                         tmp_path: Path) -> None:
    shot = override_shot(baked_library, "made_editable")
    chain = shot.arm.soft_ik_2d.chains["Arm"]
    assert chain.has_bake and (chain.bake_start, chain.bake_end) == (START, END - 2)
    assert len(chain.worst_frames) == 10
    library_keys = played_curves(shot.arm)
    assert rigs.fcurve(shot.arm, rigs.bone_path("Lower", "soft_ik_error")) is not None
    linked_before = linked_actions()

    select_only(shot.arm)
    assert bpy.ops.pose.soft_ik_clear_bake() == {"FINISHED"}
    assert shot.arm.animation_data.action.library is None
    assert linked_actions() == linked_before
    body = {k: v for k, v in library_keys.items() if k[0].startswith('pose.bones["Root"]')}
    assert played_curves(shot.arm) == body

    # Re-baked over a shorter range: the report's items that came from the library are overwritten (Blender
    # cannot remove them from an override) and nothing of the library's report is left after reopen.
    chain.softness = 0.1
    bpy.ops.object.mode_set(mode="POSE")
    assert bpy.ops.pose.soft_ik_bake(frame_start=START, frame_end=START + 5) == {"FINISHED"}
    report = [(w.frame, w.error) for w in chain.worst_frames]
    assert {f for f, _e in report} <= set(range(START, START + 6))
    tolerance = 1e-4 * world_length(shot)
    path = tmp_path / "shot.blend"
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.open_mainfile(filepath=str(path))
    arm = bpy.context.scene.objects["Rig"]
    chain = arm.soft_ik_2d.chains["Arm"]
    assert (chain.bake_start, chain.bake_end) == (START, START + 5)
    assert [(w.frame, w.error) for w in chain.worst_frames] == report
    scene = bpy.context.scene
    for frame, error in report:
        scene.frame_set(frame)
        tip = np.array(arm.matrix_world @ arm.pose.bones["Lower"].tail)
        hand = np.array(scene.objects["Hand"].matrix_world.translation)
        assert float(np.linalg.norm(tip - hand)) == pytest.approx(error, abs=tolerance)


# --- what cannot work is refused by name, the file unchanged ----------------------------------------------------


def _refused(operator: str, expected: list[str]) -> None:
    op = getattr(bpy.ops.pose, operator)
    assert not op.poll()
    with pytest.raises(RuntimeError) as info:
        op()
    for text in expected:
        assert text in str(info.value), (operator, str(info.value))


def test_linked_rig_without_override_is_refused(library: Path) -> None:
    linked = link_rig(library)
    arm = linked.objects["Rig"]
    select_only(arm)
    before = rigs.snapshot()
    expected = ["'Rig'", str(library), "Object > Library Override > Make"]
    assert len(str(library)) < 120, "Blender cuts poll messages at 255 bytes"
    for operator in ("soft_ik_bake", "soft_ik_solve", "soft_ik_clear_bake", "soft_ik_fix_target_space"):
        _refused(operator, expected)
    with pytest.raises(harness.package("rigging.rig").ChainError) as info:
        harness.package("rigging.bake").prepare(arm, list(arm.soft_ik_2d.chains))
    for text in expected:
        assert text in str(info.value)
    rigs.assert_same_snapshot(before, rigs.snapshot())

    # Nor does the live preview pose it (a linked rig keeps nothing written to it).
    def arm_pose(preview: bool) -> list[tuple[float, ...]]:
        arm.soft_ik_2d.live_preview = preview
        out = []
        for f in (2, 9):
            bpy.context.scene.frame_set(f)
            out += [tuple(arm.pose.bones[name].rotation_quaternion) for name in ("Upper", "Lower")]
        return out

    assert arm_pose(True) == arm_pose(False)


def test_system_override_is_refused_with_how_to_make_it_editable(library: Path) -> None:
    shot = override_shot(library, "system")
    select_only(shot.arm)
    before = rigs.snapshot()
    for operator in ("soft_ik_bake", "soft_ik_solve", "soft_ik_clear_bake"):
        _refused(operator, ["'Rig'", "not editable", "Object > Library Override > Make", str(library)])
    rigs.assert_same_snapshot(before, rigs.snapshot())


def test_a_target_left_a_system_override_is_still_baked_against(library: Path) -> None:
    # Only the rig was made editable (Make on the armature alone): the bake only reads its target.
    shot = override_shot(library, "made_editable", editable_hand=False)
    assert shot.hand.override_library.is_system_override
    assert bake(shot) == {"FINISHED"}
    assert assert_true_bake(shot).max() > 0.05 * world_length(shot)


def test_fix_target_space_refuses_a_target_that_is_not_editable(library: Path) -> None:
    shot = override_shot(library, "made_editable", editable_hand=False)
    chain = shot.arm.soft_ik_2d.chains["Arm"]
    chain.target_space = "CHARACTER"
    select_only(shot.arm)
    before = rigs.snapshot()
    _refused("soft_ik_fix_target_space", ["'Hand'", "not editable", "Object > Library Override > Make", str(library)])
    rigs.assert_same_snapshot(before, rigs.snapshot())

    # A target that is linked and not overridden at all (here the library's own Empty, linked into the scene).
    linked_hand = shot.hand.override_library.reference
    assert linked_hand.library is not None
    bpy.context.scene.collection.objects.link(linked_hand)
    chain.target = linked_hand
    before = rigs.snapshot()
    _refused("soft_ik_fix_target_space", ["'Hand'", "is linked from a library and not overridden",
                                          "Object > Library Override > Make", str(library)])
    rigs.assert_same_snapshot(before, rigs.snapshot())


def test_every_setting_is_library_overridable() -> None:
    """Blender keeps an override's edit of a property only when the property says so; a property added later
    without the flag would silently lose its value on reopen. (``name`` is Blender's own PropertyGroup name,
    which it never overrides: a chain made in the library keeps its library name.)"""
    properties = harness.package("rigging.properties")
    assert bpy.types.Object.bl_rna.properties["soft_ik_2d"].is_overridable
    missing = [f"{cls.__name__}.{prop.identifier}" for cls in properties.classes for prop in cls.bl_rna.properties
               if prop.identifier not in ("rna_type", "name") and not prop.is_overridable]
    assert missing == []
