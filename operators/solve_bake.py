"""Solve the current frame, bake a frame range, and remove what a bake wrote."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import bpy
import numpy as np
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from bpy_extras.wm_utils.progress_report import ProgressReport

from ..rigging import bake, bake_records, chain_order, linked_data, posing, reduced_bake, sampling, takes
from ..rigging import messages as msg
from ..rigging.batch import Batch, no_chain_message, prepare_batch, selection_of, solve_batch, solve_batch_posed
from ..rigging.chain_solve import ChainSolution
from ..rigging.messages import say
from ..rigging.rig import ChainError, ChainRig, read_chain
from .common import armature_poll, chains_with, selected_armatures

# Seconds between two progress updates while the keys are written.
PROGRESS_INTERVAL = 0.1


def _prepare_all(op: bpy.types.Operator, context: bpy.types.Context, only_active: bool, refused: str,
                 before_checks: Callable[[list[bpy.types.Object]], dict[bpy.types.Object, str]] | None = None
                 ) -> Batch | None:
    """Check every chain of every selected armature (or only the active chain) before any change.

    Returns the valid chains with the reasons of the others, or None (reported) when no chain can go ahead.
    ``before_checks`` gets the armatures first (a take is started there) and returns those left out, each with
    why (their chains are refused with that reason); a ChainError it raises refuses everything and is reported.
    """
    selection = [(arm, chains) for arm, chains in
                 selection_of(context, chains_with(selected_armatures(context)), only_active) if chains]
    if not selection:
        op.report({"ERROR"}, no_chain_message(context, only_active))
        return None
    left_out: dict[bpy.types.Object, str] = {}
    if before_checks is not None:
        try:
            left_out = before_checks([arm for arm, _chains in selection])
        except ChainError as err:
            op.report({"ERROR"}, str(err))
            return None
    batch = prepare_batch([(arm, chains) for arm, chains in selection if arm not in left_out])
    for arm, chains in selection:
        if arm in left_out:
            batch.total += len(chains)
            batch.refuse(left_out[arm])
    if not batch.rigs:
        op.report({"ERROR"}, batch.report(refused))
        return None
    return batch


def _local_actions(op: bpy.types.Operator, armatures: list[bpy.types.Object], *, create: bool = True) -> None:
    """Make sure keys never go into linked data, before the first key is written.

    A library override's linked action gets a local copy (see :mod:`linked_data`); said when an action was made.
    """
    for arm in armatures:
        note = linked_data.ensure_local_action(arm, create=create)
        if note is not None:
            op.report({"INFO"}, note)


def _armatures_of(rigs: list[ChainRig]) -> list[bpy.types.Object]:
    out: list[bpy.types.Object] = []
    for rig in rigs:
        if rig.armature not in out:
            out.append(rig.armature)
    return out


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
        batch = _prepare_all(self, context, False, msg.BATCH_NOT_SOLVED)
        if batch is None:
            return {"CANCELLED"}
        frame = context.scene.frame_current
        # Level by level (chain_order): a chain under another's solved bones is sampled once those are posed.
        order, loops = chain_order.levels(batch.rigs)
        for _rig, message in loops:
            batch.refuse(message)
        rigs: list[ChainRig] = []
        solutions: list[ChainSolution] = []
        warnings: list[str] = []
        for level in order:
            part = Batch(rigs=level)
            if self.insert_keys or level is order[0]:
                found = solve_batch(context, part, np.array([float(frame)]))
            else:  # the levels before were posed without keys: read the pose, not the keys
                found = solve_batch_posed(context, part, frame)
            for message in part.refused:
                batch.refuse(message)
            if not part.rigs:
                continue
            if self.insert_keys:
                _local_actions(self, _armatures_of(part.rigs))
                keyed = [bake.write_solution(rig, sol, frame, frame) for rig, sol in zip(part.rigs, found,
                                                                                           strict=True)]
                # The keyed error is what Blender plays back from the new keys, as in a bake.
                checked = bake.verify_written(context, part.rigs, found, frame, frame, keyed)
                found = [sol for sol, _warning in checked]
                warnings += [warning for _sol, warning in checked if warning]
            for rig, sol in zip(part.rigs, found, strict=True):
                posing.apply_frame(rig, sol, 0)
            if level is not order[-1]:
                context.view_layer.update()  # the next level samples the pose just given
            rigs += part.rigs
            solutions += found
        batch.rigs = rigs
        if not rigs:
            self.report({"ERROR"}, batch.report(msg.BATCH_NOT_SOLVED))
            return {"CANCELLED"}
        worst = max(float(s.error[0]) for s in solutions)
        self.report({"INFO"}, say(msg.SOLVED, count=len(batch.rigs), frame=frame, error=worst))
        if self.insert_keys:
            warnings += chain_order.stale_dependents(rigs, frame, frame)
        for warning in warnings:
            self.report({"WARNING"}, warning)
        if batch.refused:
            self.report({"WARNING"}, batch.report(msg.BATCH_NOT_SOLVED))
        return {"FINISHED"}


def _report_races(op: bpy.types.Operator, heard: sampling.Heard) -> None:
    """What the stepped reads met (:func:`sampling.listen`): the racing properties, and frames never read alike."""
    if not heard.channels:
        return
    channels = ", ".join(f"'{name}'" for name in heard.channels)
    op.report({"INFO"}, say(msg.RACING_CHANNELS, channels=channels))
    if heard.unsettled:
        frames = bake.frame_list(heard.unsettled_frames())
        op.report({"WARNING"}, say(msg.UNSETTLED_FRAMES, channels=channels, frames=frames))


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
    to_new_action: BoolProperty(name="To New Action", description="Bake into a new action (a copy of the current "
                                "one, assigned to the armature), leaving the current action untouched",
                                default=False)
    action_name: StringProperty(name="Action Name", description="Name of the new action of To New Action (empty: "
                                "the current action's name followed by 'Take')")
    push_to_nla: BoolProperty(name="Push to NLA", description="With To New Action: after the bake, push the new "
                              "action down to a new NLA track (as Push Down does)", default=False)
    key_reduction: EnumProperty(name="Key Reduction", items=reduced_bake.REDUCTION_ITEMS, default="NONE",
                                description="Keep fewer keys (easier to edit), the tip within the tolerance of "
                                "the full bake on every frame, measured in playback")
    reduction_tolerance: FloatProperty(name="Reduction Tolerance", default=0.001, min=0.0, max=1.0, precision=4,
                                       description="How far the played-back tip of the reduced keys may stray from "
                                       "the full bake's, as a fraction of the chain's length")
    reduction_shape: EnumProperty(name="Key Shape", items=reduced_bake.SHAPE_ITEMS, default="LINEAR",
                                  description="Interpolation of the reduced keys")

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
        if not self.properties.is_property_set("to_new_action"):
            # The sidebar's toggle is the default; set here, the redo panel shows what the bake did.
            settings = getattr(context.active_object, "soft_ik_2d", None)
            self.to_new_action = bool(settings is not None and settings.bake_to_new_action)
        taken: list[takes.Take] = []
        baked: list[bpy.types.Object] = []
        try:
            return self._bake(context, start, end, taken, baked)
        finally:
            # A take whose armature had no chain to bake goes again, so a refused bake changes nothing.
            for take in taken:
                if take.armature not in baked:
                    takes.rollback(take)

    def _bake(self, context: bpy.types.Context, start: int, end: int, taken: list[takes.Take],
              baked: list[bpy.types.Object]) -> set[str]:
        """The bake; ``taken`` receives the takes started, ``baked`` the armatures whose keys were written."""

        def start_takes(armatures: list[bpy.types.Object]) -> dict[bpy.types.Object, str]:
            left_out = takes.check(armatures, self.action_name)
            taken.extend(takes.start(arm, self.action_name) for arm in armatures if arm not in left_out)
            return left_out

        batch = _prepare_all(self, context, self.only_active_chain, msg.BATCH_NOT_BAKED,
                             start_takes if self.to_new_action else None)
        if batch is None:
            return {"CANCELLED"}
        frames = np.arange(start, end + 1, dtype=np.float64)
        stepped: dict[str, str] = {}  # the inputs the sampling steps a scene for, as it chose them
        # A chain whose inputs move with another chain's solve (a hand chain under a solved forearm) is sampled
        # after that chain's keys are written (and reduced): one pass per level, one level on most rigs.
        order, loops = chain_order.levels(batch.rigs)
        for _rig, message in loops:
            batch.refuse(message)
        rigs: list[ChainRig] = []
        verified: list[tuple[ChainSolution, str | None]] = []
        reductions: list[reduced_bake.Reduction] = []
        records = bake_records.RecordsPass()
        with ProgressReport(context.window_manager) as progress, sampling.listen() as heard:
            progress.enter_substeps(2 * len(order), say(msg.BAKING, start=start, end=end))
            for level in order:
                part = Batch(rigs=level)
                solutions = solve_batch(context, part, frames, stepped)
                for message in part.refused:
                    batch.refuse(message)
                progress.step()
                if part.rigs:
                    baked.extend(arm for arm in _armatures_of(part.rigs) if arm not in baked)
                    done, cut = self._write_level(context, part.rigs, solutions, start, end, records, progress)
                    rigs += part.rigs
                    verified += done
                    reductions += cut
                progress.step()
            progress.leave_substeps()
        batch.rigs = rigs
        if not rigs:
            self.report({"ERROR"}, batch.report(msg.BATCH_NOT_BAKED))
            return {"CANCELLED"}
        reports = []
        for rig, (sol, warning) in zip(rigs, verified, strict=True):
            reports.append(bake.store_report(rig, sol, start, end))
            if warning:
                reports[-1].warnings.append(warning)
        for take in taken:
            if take.armature not in baked:
                continue
            self.report({"INFO"}, take.note)
            if self.push_to_nla:
                track = takes.push_down(take.armature, take.action)
                self.report({"INFO"}, say(msg.TAKE_PUSHED, take=take.action.name, armature=take.armature.name,
                                          track=track.name))
        for rig, reduction in zip(rigs, reductions, strict=False):
            self.report({"INFO"}, reduced_bake.summary(rig, reduction))
        for report in reports:
            self.report({"WARNING"} if report.invalid_frames else {"INFO"}, report.summary())
            for warning in report.warnings:
                self.report({"WARNING"}, warning)
        if stepped:
            # Why a bake is slower than usual, so a TD can see what to simplify.
            self.report({"INFO"}, say(msg.STEPPED_INPUTS, objects=", ".join(f"'{name}'" for name in stepped)))
        _report_races(self, heard)
        for warning in chain_order.stale_dependents(rigs, start, end):
            self.report({"WARNING"}, warning)
        if batch.refused:
            self.report({"WARNING"}, batch.report(msg.BATCH_NOT_BAKED))
        return {"FINISHED"}

    def _write_level(self, context: bpy.types.Context, rigs: list[ChainRig], solutions: list[ChainSolution],
                     start: int, end: int, records: bake_records.RecordsPass, progress: ProgressReport
                     ) -> tuple[list[tuple[ChainSolution, str | None]], list[reduced_bake.Reduction]]:
        """Write, verify and reduce the keys of one level's chains; returns each chain's verified solution with
        its warning, and what the reduction kept."""
        _local_actions(self, _armatures_of(rigs))
        # A step per armature written, shown at most every PROGRESS_INTERVAL: an update costs a console line
        # (~35 µs), more than writing a small chain, and a crowd bake is over before a person sees one.
        progress.enter_substeps(len(_armatures_of(rigs)))
        keyed = []
        final = self.reduction_shape if self.key_reduction != "NONE" else None
        pending, shown = 0, time.perf_counter()
        for i, (rig, sol) in enumerate(zip(rigs, solutions, strict=True)):
            keyed.append(bake.write_solution(rig, sol, start, end, records=records, final_interpolation=final))
            if i + 1 == len(rigs) or rigs[i + 1].armature != rig.armature:
                pending += 1
                if time.perf_counter() - shown >= PROGRESS_INTERVAL:
                    progress.step(nbr=pending)
                    pending, shown = 0, time.perf_counter()
        progress.leave_substeps()
        # What Blender plays back from the new keys; the error curve and report carry the measured truth.
        return reduced_bake.reduce_written(
            context, rigs, bake.verify_written(context, rigs, solutions, start, end, keyed), start, end,
            self.key_reduction, self.reduction_tolerance, self.reduction_shape)


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
        kept: list[str] = []
        cleared: list[ChainRig] = []  # for the chains left out that hang from them (chain_order)
        spans: list[tuple[float, float]] = []
        for arm, chains in selection_of(context, chains_with(selected_armatures(context)), self.only_active_chain):
            if any(chain.has_bake for chain in chains):
                _local_actions(self, [arm], create=False)
            for chain in chains:
                span = chain_order.baked_span(arm, chain)
                if span is not None:
                    with contextlib.suppress(ChainError):  # an unreadable chain moves nothing it could name
                        cleared.append(read_chain(arm, chain))
                        spans.append(span)
            result = bake.clear_bakes(arm, chains)
            touched += result.touched
            kept += result.messages
        for message in kept:
            self.report({"WARNING"}, message)
        if touched == 0:
            if not kept:
                self.report({"WARNING"}, say(msg.NOTHING_TO_CLEAR))
            return {"CANCELLED"}
        self.report({"INFO"}, say(msg.CLEARED, count=touched))
        if cleared:
            start, end = round(min(s for s, _e in spans)), round(max(e for _s, e in spans))
            for warning in chain_order.stale_dependents(cleared, start, end, msg.STALE_AFTER_CLEAR):
                self.report({"WARNING"}, warning)
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
