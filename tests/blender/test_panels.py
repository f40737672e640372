"""The "Soft IK" sidebar tab: registration, poll on armature/non-armature, and what the status rows say.

Background Blender has no window, so ``draw`` itself cannot run; the rows it shows come from
``panels.status.frame_status`` and ``panels.texts.decode_flags``, which are checked here against Blender's
evaluated pose (error = world distance of the tip from the target) and the solver's flag values.
"""

from __future__ import annotations

import math

import bpy
import harness
import numpy as np
import pytest
import rigs

PANELS = ("VIEW3D_PT_soft_ik", "VIEW3D_PT_soft_ik_chain", "VIEW3D_PT_soft_ik_limits",
          "VIEW3D_PT_soft_ik_smoothing", "VIEW3D_PT_soft_ik_status", "VIEW3D_PT_soft_ik_bake_report")
FRAMES = list(range(1, 21))


def test_panels_and_lists_are_registered_in_the_sidebar_tab() -> None:
    for name in PANELS:
        cls = getattr(bpy.types, name)
        assert (cls.bl_space_type, cls.bl_region_type, cls.bl_category) == ("VIEW_3D", "UI", "Soft IK")
        if name != "VIEW3D_PT_soft_ik":
            assert cls.bl_parent_id == "VIEW3D_PT_soft_ik"
    assert issubclass(bpy.types.POSE_UL_soft_ik_chains, bpy.types.UIList)
    assert issubclass(bpy.types.POSE_UL_soft_ik_worst_frames, bpy.types.UIList)


def test_unregister_removes_every_panel() -> None:
    harness.disable()
    try:
        for name in (*PANELS, "POSE_UL_soft_ik_chains", "POSE_UL_soft_ik_worst_frames"):
            assert not hasattr(bpy.types, name), name
    finally:
        harness.enable()
    assert hasattr(bpy.types, "VIEW3D_PT_soft_ik")


def test_poll_needs_an_active_armature_and_chain_panels_a_chain(empty_file: bpy.types.Scene) -> None:
    main, chain_panel = bpy.types.VIEW3D_PT_soft_ik, bpy.types.VIEW3D_PT_soft_ik_chain
    view_layer = bpy.context.view_layer
    view_layer.objects.active = None
    assert not main.poll(bpy.context)
    mesh = bpy.data.objects.new("Mesh", bpy.data.meshes.new("Mesh"))
    bpy.context.scene.collection.objects.link(mesh)
    view_layer.objects.active = mesh
    assert not main.poll(bpy.context)
    rig = rigs.build_arm()
    assert bpy.context.view_layer.objects.active == rig.armature
    assert main.poll(bpy.context)
    assert not chain_panel.poll(bpy.context)  # no chain yet
    rigs.add_chain(rig, rigs.new_empty("Target"))
    for name in PANELS:
        assert getattr(bpy.types, name).poll(bpy.context), name


def test_flag_rows_cover_every_solver_flag() -> None:
    texts = harness.package("panels.texts")
    flag = harness.package("solver").IKFlag
    bits = sorted(int(f) for f in flag if int(f) != 0)
    assert sorted(bit for bit, _text, _icon in texts.FLAG_TEXTS) == bits
    every = texts.decode_flags(sum(bits))
    assert len(every) == len(bits)
    assert texts.decode_flags(0) == [(texts.REACHABLE, "CHECKMARK")]
    limited = int(flag.LIMITED_ELBOW) | int(flag.SOFTENED)
    assert [t for t, _i in texts.decode_flags(limited)] == ["Soft IK: the reach is softened", "Lower bone limit acts"]


@pytest.fixture
def baked_arm(empty_file: bpy.types.Scene) -> tuple[rigs.ArmRig, bpy.types.Object, bpy.types.PropertyGroup]:
    rig = rigs.build_arm(rest_bend_deg=20.0)
    rigs.place_armature(rig, scale=(1.5, 1.5, 1.5))
    # Out of reach on the late frames, so the error grows there.
    target = rigs.circle_target(rig, FRAMES, lambda f: 0.6 + 2.0 * f / FRAMES[-1], lambda f: 0.2 * f)
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.05
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    return rig, target, chain


def test_status_reads_the_keyed_error_of_the_current_frame(baked_arm) -> None:  # type: ignore[no-untyped-def]
    rig, target, chain = baked_arm
    status = harness.package("panels.status")
    texts = harness.package("panels.texts")
    flag = harness.package("solver").IKFlag
    scene = bpy.context.scene
    for f in (2, 12, 20):
        scene.frame_set(f)
        ev = rigs.evaluate(rig, target, [f])
        miss = float(np.linalg.norm(ev.tip_world - ev.target_world))
        st = status.frame_status(rig.armature, chain)
        assert st.source == texts.KEYED_SOURCE
        assert st.error == pytest.approx(miss, abs=1e-5 * rig.length * rig.world_scale)
        reach = float(np.linalg.norm(ev.target_arm - ev.shoulder))
        softened = reach > rig.length * (1 - 0.05)
        assert bool(st.flags & int(flag.SOFTENED)) == softened, f


def test_status_with_live_preview_uses_the_current_state_and_reports_sensitivity(baked_arm) -> None:  # type: ignore[no-untyped-def]
    rig, target, chain = baked_arm
    status = harness.package("panels.status")
    texts = harness.package("panels.texts")
    scene = bpy.context.scene
    scene.frame_set(10)
    rig.armature.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()
    # Straight out, just inside the hard reach with no softness: the most sensitive place there is.
    chain.softness = 0.0
    target.animation_data_clear()
    u, _v, _n = rigs.plane_axes(rig.plane)
    head = np.array(rig.armature.pose.bones[rig.upper].head)
    world = np.array(rig.armature.matrix_world)
    target.location = (world @ np.append(head + 0.999 * rig.length * u, 1.0))[:3].tolist()
    bpy.context.view_layer.update()
    st = status.frame_status(rig.armature, chain)
    assert st.source == texts.PREVIEW_SOURCE
    ev = rigs.evaluate(rig, target, [10])
    assert st.error == pytest.approx(float(np.linalg.norm(ev.tip_world - ev.target_world)), abs=1e-5)
    assert st.sensitive
    # Mid-reach the hint goes away.
    target.location = (world @ np.append(head + 0.5 * rig.length * u, 1.0))[:3].tolist()
    bpy.context.view_layer.update()
    calm = status.frame_status(rig.armature, chain)
    assert calm.sensitivity_degrees is not None and not calm.sensitive
    assert calm.sensitivity_degrees < st.sensitivity_degrees


def test_bake_report_rows_match_the_keyed_errors(baked_arm) -> None:  # type: ignore[no-untyped-def]
    rig, target, chain = baked_arm
    ev = rigs.evaluate(rig, target, FRAMES)
    miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
    assert chain.error_max == pytest.approx(miss.max(), abs=1e-5)
    assert chain.error_mean == pytest.approx(miss.mean(), abs=1e-5)
    worst = [item.frame for item in chain.worst_frames]
    assert worst[0] == FRAMES[int(np.argmax(miss))]
    # The worst-frame rows jump to their frame.
    assert bpy.ops.pose.soft_ik_jump_to_frame(frame=worst[1]) == {"FINISHED"}
    assert bpy.context.scene.frame_current == worst[1]
    assert math.isclose(chain.worst_frames[1].error, miss[worst[1] - 1], abs_tol=1e-5)


def test_every_icon_the_panels_use_exists_in_this_blender() -> None:
    # draw() cannot run without a window; a wrong icon name would raise there, so check the names here.
    import re
    from pathlib import Path

    icons = set(bpy.types.UILayout.bl_rna.functions["label"].parameters["icon"].enum_items.keys())
    panels = harness.package("panels")
    used = set(re.findall(r'icon="([A-Z_0-9]+)"', Path(panels.__file__).read_text(encoding="utf-8")))
    used |= {icon for _bit, _text, icon in harness.package("panels.texts").FLAG_TEXTS}
    assert len(used) > 10
    assert sorted(used - icons) == []
