"""A bake's per-bake and per-armature work (issue 17): one write of all of a chain's curves with one
interpolation per curve, and the armature's own checks run once for all its chains.

Truth is Blender's: key attributes read through RNA one key at a time, ``fcurve.evaluate``, and what a bake
leaves in the file.
"""

from __future__ import annotations

import harness
import pytest
import rigs
from test_batch_and_checks import two_arm_rig

bpy = pytest.importorskip("bpy")
np = pytest.importorskip("numpy")

anim_keys = harness.package("rigging.anim_keys")
bake = harness.package("rigging.bake")
batch = harness.package("rigging.batch")

ATTRIBUTES = ("co", "handle_left", "handle_right", "handle_left_type", "handle_right_type", "interpolation",
              "easing", "type", "back", "amplitude", "period", "select_control_point")
START, END = 5.0, 40.0


def snapshot(fcurve: bpy.types.FCurve) -> list[tuple[object, ...]]:
    def plain(value: object) -> object:
        return tuple(value) if hasattr(value, "__len__") and not isinstance(value, str) else value

    return [tuple(plain(getattr(key, attr)) for attr in ATTRIBUTES) for key in fcurve.keyframe_points]


def empty_object(name: str) -> bpy.types.Object:
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    return obj


@pytest.mark.usefixtures("empty_file")
def test_one_write_gives_each_curve_its_own_interpolation() -> None:
    """Curves written together, each with its interpolation, hold exactly the keys each gets written alone.

    The values come as a bake passes them: a (frames, curves) view of one row per curve, float32, with the
    keys a line needs not dropped (bake.essential_keys).
    """
    obj, alone = empty_object("Together"), empty_object("Alone")
    frames = np.arange(START, END + 1.0)
    rows = np.stack([np.sin(frames / 4.0), np.full_like(frames, 2.0), np.round(np.cos(frames / 6.0))])
    values = rows.astype(np.float32).T
    needed = bake.essential_keys(values)
    shapes = ["LINEAR", "CONSTANT", "BEZIER"]
    curves = [anim_keys.ensure_fcurve(obj, "location", i) for i in range(3)]

    written = anim_keys.write_columns(curves, frames, values, needed, start=START, end=END, interpolation=shapes)

    for i, (fcurve, co, shape) in enumerate(zip(curves, written, shapes, strict=True)):
        keep = needed[:, i]
        reference = anim_keys.ensure_fcurve(alone, "location", i)
        anim_keys.write_keys(reference, frames[keep], values[keep, i], start=START, end=END, interpolation=shape)
        assert snapshot(fcurve) == snapshot(reference)
        assert {key.interpolation for key in fcurve.keyframe_points} == {shape}
        assert [tuple(c) for c in co.tolist()] == [(f, v) for f, v in zip(frames[keep].tolist(),
                                                                           values[keep, i].tolist(), strict=True)]
        assert [fcurve.evaluate(f) for f in frames] == values[:, i].tolist()
    assert len(curves[1].keyframe_points) == 2  # a constant column keeps its two ends


@pytest.mark.usefixtures("empty_file")
def test_a_wrong_number_of_interpolations_touches_no_curve() -> None:
    obj = empty_object("Keyed")
    curves = [anim_keys.ensure_fcurve(obj, "location", i) for i in range(2)]
    anim_keys.write_keys(curves[0], [1.0, 2.0], [3.0, 4.0], start=1, end=2)
    before = [snapshot(fc) for fc in curves]
    with pytest.raises(ValueError, match="interpolations"):
        anim_keys.write_columns(curves, [1.0, 2.0], np.zeros((2, 2)), start=1, end=2, interpolation=["LINEAR"])
    assert [snapshot(fc) for fc in curves] == before


def blended_and_plain() -> tuple[rigs.ArmRig, rigs.ArmRig]:
    """Two armatures with a chain each; the first plays a blended action (refused for the armature) and has a
    second chain sharing its bones (which its own check would refuse)."""
    frames = list(range(1, 21))
    out = []
    for name in ("Blended", "Plain"):
        rig = rigs.build_arm(name)
        target = rigs.circle_target(rig, frames, lambda f: 1.2 + 0.1 * np.sin(f / 3.0), lambda f: 0.1 * f,
                                    name=f"{name}Target")
        rigs.add_chain(rig, target)
        out.append(rig)
    blended = out[0]
    first = blended.armature.soft_ik_2d.chains[0]
    twin = blended.armature.soft_ik_2d.chains.add()  # the operator refuses a shared bone: added by hand
    twin.name, twin.upper_bone, twin.lower_bone, twin.target = "Twin", first.upper_bone, first.lower_bone, first.target
    assert batch.prepare_batch([(blended.armature, [twin])]).refused  # refused on its own, shared bone or not
    blended.armature.pose.bones["Root"].keyframe_insert("location", frame=1)
    blended.armature.animation_data.action_influence = 0.5
    return out[0], out[1]


def test_an_armature_problem_refuses_each_of_its_chains_once(empty_file: bpy.types.Scene) -> None:
    blended, plain = blended_and_plain()
    selection = [(rig.armature, list(rig.armature.soft_ik_2d.chains)) for rig in (blended, plain)]

    result = batch.prepare_batch(selection)

    assert result.total == 3
    assert [rig.armature for rig in result.rigs] == [plain.armature]
    assert len(result.refused) == 1
    assert "'Blended'" in result.refused[0] and "0.5" in result.refused[0]
    messages = harness.package("rigging.messages")
    assert result.report(messages.BATCH_NOT_BAKED) == messages.say(messages.BATCH_NOT_BAKED, count=2, total=3,
                                                                   reasons=result.refused[0])


def test_a_bake_of_both_leaves_the_refused_armature_as_it_was(empty_file: bpy.types.Scene) -> None:
    blended, plain = blended_and_plain()
    blended_keys = [snapshot(fc) for fc in anim_keys.iter_fcurves(blended.armature)]
    rigs.pose_mode_together([blended.armature, plain.armature])
    assert bpy.ops.pose.soft_ik_bake(frame_start=1, frame_end=20) == {"FINISHED"}
    assert [snapshot(fc) for fc in anim_keys.iter_fcurves(blended.armature)] == blended_keys
    assert len(list(anim_keys.iter_fcurves(plain.armature))) > 0
    assert plain.armature.soft_ik_2d.chains[0].has_bake
    assert not any(chain.has_bake for chain in blended.armature.soft_ik_2d.chains)


def two_armed() -> tuple[bpy.types.Object, list[bpy.types.Object]]:
    """``test_batch_and_checks.two_arm_rig``'s armature, a chain and a keyed target per arm."""
    left, right = two_arm_rig("TwoArms")
    frames = list(range(1, 21))
    targets = []
    for side, rig in (("L", left), ("R", right)):
        target = rigs.circle_target(rig, frames, lambda f: 1.2 + 0.1 * np.sin(f / 3.0), lambda f, s=side: 0.1 * f
                                    + (1.0 if s == "R" else 0.0), name=f"Target.{side}")
        chain = left.armature.soft_ik_2d.chains.add()
        chain.name, chain.upper_bone, chain.lower_bone, chain.target = f"arm.{side}", rig.upper, rig.lower, target
        targets.append(target)
    return left.armature, targets


def test_the_chains_of_one_armature_share_its_samples_and_its_checks_of_them(
        empty_file: bpy.types.Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each input is sampled once and handed to every chain that reads it as the same array, so the solve
    checks an armature's matrices (finite, constant) once for all its chains; and the bake is true."""
    arm, targets = two_armed()
    rigs_ = batch.prepare_batch([(arm, list(arm.soft_ik_2d.chains))]).rigs
    assert len(rigs_) == 2
    frames = np.arange(1.0, 21.0)
    samples = bake.sample_chains(bpy.context, rigs_, frames)
    assert samples[0].armature is samples[1].armature
    assert samples[0].target is not samples[1].target
    chain_step = harness.package("solver.chain_step")
    checked: list[np.ndarray] = []
    constant = chain_step._constant

    def counting(m: np.ndarray) -> np.ndarray:
        checked.append(m)
        return constant(m)

    monkeypatch.setattr(chain_step, "_constant", counting)
    solutions = bake.solve_chains(bpy.context, rigs_, frames)
    world = np.broadcast_to(np.array(arm.matrix_world), (len(frames), 4, 4))
    assert sum(m.shape == world.shape and bool((m == world).all()) for m in checked) == 1  # not once per chain
    for sol, target in zip(solutions, targets, strict=True):
        assert sol.valid.all()
        want = rigs.world_matrices(target, frames)[:, :3, 3]
        np.testing.assert_allclose(sol.target_world, want, atol=1e-6)


def test_shared_bones_are_read_once_per_armature_and_each_chain_is_named_by_its_first_conflict(
        empty_file: bpy.types.Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three chains over Root, Upper and Lower: A (Root-Upper) holds Upper first, B (Upper-Lower) and its twin C
    meet it there, and C meets B again on Lower. Each chain is refused with the first conflict it is in, as a
    check of that chain alone names it, and the batch reads the armature's chains once for all of them."""
    rig = rigs.build_arm("Shared")
    target = empty_object("SharedTarget")
    for name, upper, lower in (("A", "Root", "Upper"), ("B", "Upper", "Lower"), ("C", "Upper", "Lower")):
        chain = rig.armature.soft_ik_2d.chains.add()
        chain.name, chain.upper_bone, chain.lower_bone, chain.target = name, upper, lower, target
    rig_module = harness.package("rigging.rig")
    messages = harness.package("rigging.messages")
    chains = list(rig.armature.soft_ik_2d.chains)

    def says(first: str, second: str, bone: str) -> str:
        return messages.say(messages.SHARED_BONE, first=first, second=second, armature="Shared", bone=bone)

    alone = []
    for chain in chains:
        with pytest.raises(rig_module.ChainError) as err:
            rig_module.check_shared_bones(rig.armature, [chain])
        alone.append(str(err.value))
    assert alone == [says("A", "B", "Upper"), says("A", "B", "Upper"), says("A", "C", "Upper")]
    with pytest.raises(rig_module.ChainError, match="'A' and 'B'"):
        rig_module.check_shared_bones(rig.armature)
    reads = []
    conflicts = rig_module.shared_bone_conflicts

    def counting(armature: bpy.types.Object) -> dict[int, str]:
        reads.append(armature.name)
        return conflicts(armature)

    monkeypatch.setattr(rig_module, "shared_bone_conflicts", counting)
    monkeypatch.setattr(batch, "shared_bone_conflicts", counting)
    result = batch.prepare_batch([(rig.armature, chains)])
    assert reads == ["Shared"]
    assert not result.rigs and result.total == 3
    assert result.refused == list(dict.fromkeys(alone))  # a reason said once however many chains it refuses
