"""Flags are shown as the chain's own solver means them: a CCD/FABRIK chain whose limit blocks the reach shows
the chain's "limits stop the chain" line, not the two-bone "Lower bone limit acts" (bits 8 and 16 mean a
shoulder / elbow limit only to the analytic solver), and its overlay marks no elbow limit.

Background Blender cannot draw panels, so the rows come from ``panels.status.frame_status`` (what the Status
panel draws) and the marks from ``overlay.draw.current_overlay``. The cause comes from Blender's evaluated pose:
the lower bone sits on its limit and the tip stops short of the target.
"""

from __future__ import annotations

import math

import bpy
import harness
import numpy as np
import promises
import pytest
import rigs

FRAMES = [1, 2, 3]
ELBOW = (math.radians(40.0), math.radians(100.0))  # never straight: the full reach a + b is out of range
TOL = 2e-4  # radians: float32 keys and bone matrices
CHAIN_BLOCKED = "Joint limits stop the chain short of the target"
CHAIN_LIMITED = "A joint of the chain sits on its limit"
TWO_BONE_UPPER = "Upper bone limit acts"
TWO_BONE_LOWER = "Lower bone limit acts"


def blocked_arm(solver_name: str) -> tuple[rigs.ArmRig, bpy.types.Object, bpy.types.PropertyGroup]:
    rig = rigs.build_arm(rest_bend_deg=50.0)
    # 0.97 of the straight reach: beyond what the bent elbow allows (sqrt(a²+b²+2ab cos 40°) < 0.95 (a+b)).
    target = rigs.circle_target(rig, FRAMES, lambda f: 0.97 * rig.length, lambda f: 0.3 * f)
    chain = rigs.add_chain(rig, target)
    chain.solver = solver_name
    chain.softness = 0.0
    chain.bend = 1
    chain.use_elbow_limit, chain.elbow_min, chain.elbow_max = True, *ELBOW
    chain.limit_strategy = "ACCEPT"
    return rig, target, chain


def world_elbow(rig: rigs.ArmRig) -> np.ndarray:
    head = rig.armature.pose.bones[rig.lower].head
    return (np.array(rig.armature.matrix_world) @ np.append(np.array(head), 1.0))[:3]


def check_rows_and_marks(rig: rigs.ArmRig, target: bpy.types.Object, chain: bpy.types.PropertyGroup,
                         solver_name: str) -> None:
    """On every frame: Blender's pose shows the limit blocking, and the panel rows / overlay marks say so."""
    status = harness.package("panels.status")
    draw = harness.package("panels.overlay")
    for f in FRAMES:
        # Blender's own pose: the lower bone sits on its limit and the tip misses the target.
        elbow = promises.joints(rig, [f]).elbow[0]  # frame_set(f): the handlers re-solve for the overlay
        ev = rigs.evaluate(rig, target, [f])
        miss = float(np.linalg.norm(ev.tip_world[0] - ev.target_world[0]))
        assert abs(abs(elbow) - ELBOW[0]) < TOL, (f, math.degrees(elbow))
        assert miss > 0.01 * rig.length, (f, miss)
        st = status.frame_status(rig.armature, chain)
        assert st.flags is not None, f
        lines = [text for text, _icon in st.flag_lines]
        overlay = draw.current_overlay(bpy.context)
        assert overlay is not None
        marks = overlay.limit_marks.reshape(-1, 2, 2, 3).mean(axis=(1, 2))  # one centre per X
        near_elbow = np.linalg.norm(marks - world_elbow(rig), axis=1) < 1e-4 * rig.length
        if solver_name == "ANALYTIC":
            assert TWO_BONE_LOWER in lines and CHAIN_BLOCKED not in lines, (f, lines)
            assert near_elbow.sum() == 1, (f, marks)
        else:
            assert CHAIN_BLOCKED in lines and CHAIN_LIMITED in lines, (f, lines)
            assert TWO_BONE_LOWER not in lines and TWO_BONE_UPPER not in lines, (f, lines)
            # CCD/FABRIK flags say a limit acts, not which joint: no elbow (or shoulder) mark.
            assert not near_elbow.any() and len(marks) == 0, (f, marks)


@pytest.mark.parametrize("solver_name", ["ANALYTIC", "CCD", "FABRIK"])
def test_baked_status_rows_and_overlay_name_the_limit_as_the_chains_solver_means_it(
        empty_file: bpy.types.Scene, solver_name: str) -> None:
    rig, target, chain = blocked_arm(solver_name)
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    assert harness.package("panels.status").frame_status(rig.armature, chain).source == "Baked keys at this frame"
    check_rows_and_marks(rig, target, chain, solver_name)


@pytest.mark.parametrize("solver_name", ["ANALYTIC", "CCD", "FABRIK"])
def test_live_status_rows_and_overlay_name_the_limit_as_the_chains_solver_means_it(
        empty_file: bpy.types.Scene, solver_name: str) -> None:
    rig, target, chain = blocked_arm(solver_name)
    rig.armature.soft_ik_2d.live_preview = True
    try:
        bpy.context.view_layer.update()
        st = harness.package("panels.status").frame_status(rig.armature, chain)
        assert st.source == "Live Preview (current state)"
        check_rows_and_marks(rig, target, chain, solver_name)
    finally:
        rig.armature.soft_ik_2d.live_preview = False


def test_chain_flag_texts_are_translated_and_their_icons_exist() -> None:
    texts = harness.package("panels.texts")
    names = harness.package("solver.flag_names")
    translations = harness.package("rigging.translations")
    icons = set(bpy.types.UILayout.bl_rna.functions["label"].parameters["icon"].enum_items.keys())
    for table, bits in ((names.TWO_BONE_FLAGS, [1, 2, 4, 8, 16, 32, 64, 128, 256]),
                        (names.CHAIN_FLAGS, [1, 2, 4, 8, 16, 32, 64, 128])):
        rows = texts.flag_rows(table)
        assert [bit for bit, _t, _i in rows] == bits
        assert {icon for _b, _t, icon in rows} <= icons
    chain_rows = {bit: text for bit, text, _icon in texts.flag_rows(names.CHAIN_FLAGS)}
    assert (chain_rows[8], chain_rows[16]) == (CHAIN_LIMITED, CHAIN_BLOCKED)
    assert texts.decode_flags(16, names.CHAIN_FLAGS) == [(CHAIN_BLOCKED, "CON_ROTLIMIT")]
    assert texts.decode_flags(16, names.TWO_BONE_FLAGS) == [(TWO_BONE_LOWER, "CON_ROTLIMIT")]
    zh = translations.translation_table()["zh_HANS"]
    assert all(zh.get(("*", text)) for text in (CHAIN_LIMITED, CHAIN_BLOCKED))
