"""Faults reach the user as the project's named messages, never as Python's own text (issue 11).

Truth is the message the panel shows (``live_preview.preview_of(...).message``, what ``panels/status.py`` reads)
and the operator's report, compared with the named template's words.
"""

from __future__ import annotations

import bpy
import harness
import pytest
import rigs

FRAMES = list(range(1, 11))


def live_preview():  # type: ignore[no-untyped-def]
    return harness.package("rigging.live_preview")


@pytest.fixture
def arm_with_target(empty_file: bpy.types.Scene) -> tuple[rigs.ArmRig, bpy.types.Object]:
    rig = rigs.build_arm(rest_bend_deg=20.0)
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.2, lambda f: 0.1 * f)
    rigs.add_chain(rig, target)
    bpy.context.view_layer.update()
    return rig, target


def test_a_deleted_target_is_named_not_a_python_error(arm_with_target) -> None:  # type: ignore[no-untyped-def]
    rig, target = arm_with_target
    chain = rig.armature.soft_ik_2d.chains[0]
    rig.armature.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()
    assert live_preview().preview_of(rig.armature, chain).solution is not None
    bpy.data.objects.remove(target)
    bpy.context.view_layer.update()
    cached = live_preview().preview_of(rig.armature, chain)
    assert cached.solution is None
    assert "has no target" in cached.message and "NoneType" not in cached.message, cached.message


def test_no_finite_frame_is_refused_by_name_by_the_operator(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm()
    target = rigs.new_empty("Target")
    rigs.add_chain(rig, target)
    target.location = (float("inf"), 0.0, 0.0)
    bpy.context.view_layer.update()
    rigs.enter_pose_mode(rig)
    # An ERROR report makes bpy.ops raise in background Blender; its text is the report.
    with pytest.raises(RuntimeError) as report:
        bpy.ops.pose.soft_ik_solve()
    text = str(report.value)
    assert "Chain 'Lower' of 'Rig': no frame of the range has finite positions" in text, text
    assert "target 'Target'" in text and "Traceback" not in text, text
