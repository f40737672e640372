"""Solve the current frame, bake a frame range, and remove what a bake wrote."""

from __future__ import annotations

import bpy
import numpy as np
from bpy.props import BoolProperty, IntProperty
from bpy_extras.wm_utils.progress_report import ProgressReport

from .. import bake, posing
from .. import messages as msg
from ..messages import say
from ..rig import ChainError, ChainRig
from .common import armature_poll, chains_with, selected_armatures


def _chains_of(arm: bpy.types.Object, only_active: bool) -> list[bpy.types.PropertyGroup]:
    settings = arm.soft_ik_2d
    if only_active:
        i = settings.active_chain_index
        return [settings.chains[i]] if 0 <= i < len(settings.chains) else []
    return list(settings.chains)


def _prepare_all(op: bpy.types.Operator, context: bpy.types.Context,
                 only_active: bool) -> list[ChainRig] | None:
    """Check every chain of every selected armature before any change; report and return None on failure."""
    armatures = chains_with(selected_armatures(context))
    if not armatures:
        op.report({"ERROR"}, say(msg.NO_CHAINS_SELECTED))
        return None
    rigs: list[ChainRig] = []
    try:
        for arm in armatures:
            rigs += bake.prepare(arm, _chains_of(arm, only_active and arm == context.active_object))
    except ChainError as err:
        op.report({"ERROR"}, str(err))
        return None
    return rigs


class POSE_OT_soft_ik_solve(bpy.types.Operator):
    """Pose every Soft IK chain of the selected armatures at the current frame"""

    bl_idname = "pose.soft_ik_solve"
    bl_label = "Solve Soft IK"
    bl_options = {"REGISTER", "UNDO"}

    insert_keys: BoolProperty(name="Insert Keys", description="Also key the solved pose at the current frame",
                              default=False)

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return armature_poll(cls, context)

    def execute(self, context: bpy.types.Context) -> set[str]:
        rigs = _prepare_all(self, context, only_active=False)
        if rigs is None:
            return {"CANCELLED"}
        frame = context.scene.frame_current
        try:
            solutions = bake.solve_chains(context, rigs, np.array([float(frame)]))
        except (ValueError, ChainError) as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        for rig, sol in zip(rigs, solutions, strict=True):
            if self.insert_keys:
                bake.write_solution(rig, sol, frame, frame)
            posing.apply_frame(rig, sol, 0)
        worst = max(float(s.error[0]) for s in solutions)
        self.report({"INFO"}, say(msg.SOLVED, count=len(rigs), frame=frame, error=worst))
        return {"FINISHED"}


class POSE_OT_soft_ik_bake(bpy.types.Operator):
    """Bake the Soft IK chains of the selected armatures to keys over a frame range"""

    bl_idname = "pose.soft_ik_bake"
    bl_label = "Bake Soft IK"
    bl_options = {"REGISTER", "UNDO"}

    frame_start: IntProperty(name="Start Frame", description="First frame to bake (default: the scene's, or "
                             "the preview range when it is on)")
    frame_end: IntProperty(name="End Frame", description="Last frame to bake (included)")
    only_active_chain: BoolProperty(name="Only Active Chain", description="Bake only the active chain of the "
                                    "active armature", default=False)

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return armature_poll(cls, context)

    def _range(self, scene: bpy.types.Scene) -> tuple[int, int]:
        preview = scene.use_preview_range
        start = scene.frame_preview_start if preview else scene.frame_start
        end = scene.frame_preview_end if preview else scene.frame_end
        if self.properties.is_property_set("frame_start"):
            start = self.frame_start
        if self.properties.is_property_set("frame_end"):
            end = self.frame_end
        return start, end

    def execute(self, context: bpy.types.Context) -> set[str]:
        start, end = self._range(context.scene)
        if end < start:
            self.report({"ERROR"}, say(msg.END_BEFORE_START, end=end, start=start))
            return {"CANCELLED"}
        rigs = _prepare_all(self, context, self.only_active_chain)
        if rigs is None:
            return {"CANCELLED"}
        frames = np.arange(start, end + 1, dtype=np.float64)
        stepped = bake.stepped_inputs(context, rigs)
        with ProgressReport(context.window_manager) as progress:
            progress.enter_substeps(2, say(msg.BAKING, start=start, end=end))
            try:
                solutions = bake.solve_chains(context, rigs, frames)
            except (ValueError, ChainError) as err:
                self.report({"ERROR"}, str(err))
                return {"CANCELLED"}
            progress.step()
            progress.enter_substeps(len(rigs))
            for rig, sol in zip(rigs, solutions, strict=True):
                bake.write_solution(rig, sol, start, end)
                progress.step()
            progress.leave_substeps()
            # What Blender plays back from the new keys; the error curve and report carry the measured truth.
            reports = []
            for rig, (sol, warning) in zip(rigs, bake.verify_written(context, rigs, solutions, start, end),
                                           strict=True):
                reports.append(bake.store_report(rig, sol, start, end))
                if warning:
                    reports[-1].warnings.append(warning)
            progress.leave_substeps()
        for report in reports:
            self.report({"WARNING"} if report.invalid_frames else {"INFO"}, report.summary())
            for warning in report.warnings:
                self.report({"WARNING"}, warning)
        if stepped:
            # Why a bake is slower than usual, so a TD can see what to simplify.
            self.report({"INFO"}, say(msg.STEPPED_INPUTS, objects=", ".join(f"'{name}'" for name in stepped)))
        return {"FINISHED"}


class POSE_OT_soft_ik_clear_bake(bpy.types.Operator):
    """Remove the keys the last Soft IK bake wrote (only inside its range, only on its channels)"""

    bl_idname = "pose.soft_ik_clear_bake"
    bl_label = "Clear Soft IK Bake"
    bl_options = {"REGISTER", "UNDO"}

    only_active_chain: BoolProperty(name="Only Active Chain", default=False,
                                    description="Clear only the active chain's bake")

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return armature_poll(cls, context)

    def execute(self, context: bpy.types.Context) -> set[str]:
        touched = 0
        for arm in chains_with(selected_armatures(context)):
            chains = _chains_of(arm, self.only_active_chain and arm == context.active_object)
            touched += bake.clear_bake(arm, chains)
        if touched == 0:
            self.report({"WARNING"}, say(msg.NOTHING_TO_CLEAR))
            return {"CANCELLED"}
        self.report({"INFO"}, say(msg.CLEARED, count=touched))
        return {"FINISHED"}


class POSE_OT_soft_ik_jump_to_frame(bpy.types.Operator):
    """Go to this frame"""

    bl_idname = "pose.soft_ik_jump_to_frame"
    bl_label = "Jump to Frame"
    bl_options = {"REGISTER"}

    frame: IntProperty(name="Frame", description="Frame to show")

    def execute(self, context: bpy.types.Context) -> set[str]:
        context.scene.frame_set(self.frame)
        return {"FINISHED"}


classes = (POSE_OT_soft_ik_solve, POSE_OT_soft_ik_bake, POSE_OT_soft_ik_clear_bake, POSE_OT_soft_ik_jump_to_frame)
