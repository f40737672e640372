"""The "Soft IK" tab of the 3D viewport sidebar: chains, their settings, the current frame and the last bake.

Drawing only reads properties and the live-preview cache; it never solves.
"""

from __future__ import annotations

import bpy
from bpy.app.translations import pgettext_iface as iface_

from ..rigging import linked_data
from ..rigging.rig import ChainError, check_target, space_mismatch
from ..rigging.translations import CONTEXT
from . import pin_panel, texts, wrap
from .status import format_length, frame_status

CATEGORY = texts.TAB


def _active_chain(context: bpy.types.Context) -> bpy.types.PropertyGroup | None:
    obj = context.active_object
    if obj is None or obj.type != "ARMATURE":
        return None
    settings = obj.soft_ik_2d
    i = settings.active_chain_index
    return settings.chains[i] if 0 <= i < len(settings.chains) else None


class POSE_UL_soft_ik_chains(bpy.types.UIList):
    """The armature's Soft IK chains"""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):  # type: ignore[no-untyped-def]
        row = layout.row(align=True)
        row.prop(item, "name", text="", emboss=False, icon="CON_KINEMATIC")
        bones = iface_(texts.CHAIN_BONES).format(upper=item.upper_bone, lower=item.lower_bone)
        row.label(text=bones, translate=False)
        if item.target is None:
            row.label(text="", icon="ERROR")


class POSE_UL_soft_ik_worst_frames(bpy.types.UIList):
    """Frames of the last bake with the largest error; click one to go there"""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):  # type: ignore[no-untyped-def]
        row = layout.row(align=True)
        op = row.operator("pose.soft_ik_jump_to_frame", text=iface_(texts.WORST_FRAME).format(frame=item.frame),
                          translate=False, emboss=False, icon="TIME")
        op.frame = item.frame
        row.label(text=format_length(context, item.error), translate=False)


class _SoftIKPanel:
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = CATEGORY

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        obj = context.active_object
        return obj is not None and obj.type == "ARMATURE"


class _ChainPanel(_SoftIKPanel):
    bl_parent_id = "VIEW3D_PT_soft_ik"

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return _active_chain(context) is not None


class VIEW3D_PT_soft_ik(_SoftIKPanel, bpy.types.Panel):
    bl_label = "Soft IK 2D"

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        settings = context.active_object.soft_ik_2d
        problem = linked_data.editing_problem(context.active_object)
        if problem is not None:
            # Why every button is greyed out, and the menu entry that fixes it (also the operators' poll message).
            box = layout.box()
            for line in problem.split(": ", 1):
                box.label(text=line, icon="LIBRARY_DATA_OVERRIDE_NONEDITABLE", translate=False)
        layout.prop(settings, "plane")
        row = layout.row(align=True)
        row.prop(settings, "live_preview", toggle=True, icon="PLAY")
        row.prop(settings, "show_overlay", toggle=True, icon="OVERLAY")

        row = layout.row()
        row.template_list("POSE_UL_soft_ik_chains", "", settings, "chains", settings, "active_chain_index", rows=3)
        col = row.column(align=True)
        col.operator("pose.soft_ik_add_chain", text="", icon="ADD")
        col.operator("pose.soft_ik_remove_chain", text="", icon="REMOVE")
        col.operator("pose.soft_ik_mirror_chain", text="", icon="MOD_MIRROR")
        if len(settings.chains) == 0:
            wrap.label(layout, context, texts.NO_CHAINS, icon="INFO")

        # Three buttons in one row cut "Clear Bake" at the default sidebar width.
        col = layout.column(align=True)
        row = col.row(align=True)
        row.operator("pose.soft_ik_solve", text=texts.SOLVE, icon="CON_KINEMATIC")
        row.operator("pose.soft_ik_bake", text=texts.BAKE, icon="KEYINGSET")
        col.operator("pose.soft_ik_clear_bake", text=texts.CLEAR_BAKE, icon="TRASH")
        col.prop(settings, "bake_to_new_action")


class VIEW3D_PT_soft_ik_chain(_ChainPanel, bpy.types.Panel):
    bl_label = "Chain"

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        armature = context.active_object
        chain = _active_chain(context)
        col = layout.column(heading=texts.BONES)
        col.prop_search(chain, "upper_bone", armature.data, "bones")
        col.prop_search(chain, "lower_bone", armature.data, "bones")
        col.prop(chain, "chain_length")
        col.prop(chain, "solver")

        col = layout.column(heading=texts.TARGET)
        col.prop(chain, "target")
        col.prop(chain, "target_space")
        if chain.target_space == "OBJECT":
            col.prop(chain, "space_object")
            if chain.space_object is not None and chain.space_object.type == "ARMATURE":
                col.prop_search(chain, "space_bone", chain.space_object.data, "bones")
        elif chain.target_space == "CHARACTER":
            col.prop_search(chain, "space_bone", armature.data, "bones")
        # One verdict with the Status panel: a space setting the solve rejects (no Space Object, say) is shown
        # here too, rather than a check mark because the parenting happens to match.
        problem, fixable = None, False
        if chain.target is not None:
            try:
                check_target(armature, chain)
                problem = space_mismatch(armature, chain)
                fixable = problem is not None
            except ChainError as exc:
                problem = str(exc)
        box = layout.box()
        if problem:
            box.alert = True
            wrap.label(box, context, problem, icon="ERROR", boxed=True, translate=False)
            if fixable:
                box.operator("pose.soft_ik_fix_target_space", text=texts.FIX_TARGET_SPACE, icon="CON_CHILDOF")
        elif chain.target is not None:
            wrap.label(box, context, texts.SPACE_OK, icon="CHECKMARK", boxed=True)
        pin_panel.draw_pins(layout, chain)

        col = layout.column(heading=texts.REACH)
        col.prop(chain, "bend")
        col.prop(chain, "pole")
        col.prop(chain, "softness", slider=True)
        col.prop(chain, "inner_softness", slider=True)

        # IK/FK blend, snap and stretch to reach (issue 14); the decorator keys the influence from here.
        box = layout.box()
        col = box.column()
        col.use_property_decorate = True
        col.prop(chain, "ik_influence", slider=True)
        col.operator("pose.soft_ik_snap_target", text=texts.SNAP_TO_FK, icon="SNAP_ON")
        col.prop(chain, "stretch_to_reach")
        sub = col.column(align=True)
        sub.active = chain.stretch_to_reach
        sub.prop(chain, "max_stretch")
        sub.prop(chain, "preserve_volume")
        wrap.label(box, context, texts.STRETCH_TO_REACH_HINT, icon="INFO", boxed=True)


class VIEW3D_PT_soft_ik_limits(_ChainPanel, bpy.types.Panel):
    bl_label = "Limits"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        chain = _active_chain(context)
        col = layout.column()
        col.prop(chain, "use_shoulder_limit")
        sub = col.column(align=True)
        sub.active = chain.use_shoulder_limit
        sub.prop(chain, "shoulder_min")
        sub.prop(chain, "shoulder_max")
        col.prop(chain, "use_elbow_limit")
        sub = col.column(align=True)
        sub.active = chain.use_elbow_limit
        sub.prop(chain, "elbow_min")
        sub.prop(chain, "elbow_max")
        col.prop(chain, "limit_strategy")
        if chain.limit_strategy == "MOVE_ROOT":
            col.prop(chain, "max_root_offset")
            col.prop(chain, "root_smoothing", text=texts.ROOT_FILTER, text_ctxt=CONTEXT)
        elif chain.limit_strategy == "STRETCH":
            sub = col.column(align=True)
            sub.prop(chain, "stretch_min")
            sub.prop(chain, "stretch_max")


class VIEW3D_PT_soft_ik_smoothing(_ChainPanel, bpy.types.Panel):
    bl_label = "Smoothing"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        chain = _active_chain(context)
        layout.prop(chain, "smoothing", text=texts.FILTER, text_ctxt=CONTEXT)
        col = layout.column()
        col.active = chain.smoothing != "NONE"
        col.prop(chain, "smoothing_cutoff")
        if chain.smoothing == "ONE_EURO":
            col.prop(chain, "smoothing_beta", text=texts.SPEED_GAIN, text_ctxt=CONTEXT)


class VIEW3D_PT_soft_ik_status(_ChainPanel, bpy.types.Panel):
    bl_label = "Status"

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        armature = context.active_object
        chain = _active_chain(context)
        status = frame_status(armature, chain)
        col = layout.column(align=True)
        if status.message:
            col.alert = True
            wrap.label(col, context, iface_(texts.CANNOT_SOLVE).format(reason=status.message), icon="ERROR",
                       translate=False)
            col = layout.column(align=True)
        if status.error is None:
            wrap.label(col, context, texts.NO_ERROR_DATA, icon="INFO")
        else:
            col.label(text=status.source)
            frame = context.scene.frame_current
            col.label(text=iface_(texts.ERROR_AT_FRAME).format(frame=frame,
                                                               error=format_length(context, status.error)),
                      icon="DRIVER_DISTANCE", translate=False)
        for text, icon in status.flag_lines:
            wrap.label(col, context, text, icon=icon)
        if status.sensitivity_degrees is not None:
            box = layout.box()
            if status.sensitive:
                box.alert = True
                wrap.label(box, context, iface_(texts.SENSITIVE).format(degrees=status.sensitivity_degrees),
                           icon="ERROR", boxed=True, translate=False)
                wrap.label(box, context, texts.SENSITIVE_HINT_1, boxed=True)
                wrap.label(box, context, texts.SENSITIVE_HINT_2, boxed=True)
            else:
                wrap.label(box, context, iface_(texts.SENSITIVITY).format(degrees=status.sensitivity_degrees),
                           icon="CHECKMARK", boxed=True, translate=False)


class VIEW3D_PT_soft_ik_bake_report(_ChainPanel, bpy.types.Panel):
    bl_label = "Last Bake"

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        chain = _active_chain(context)
        if chain.bake_end < chain.bake_start:
            layout.label(text=texts.NO_BAKE, icon="INFO")
            return
        col = layout.column(align=True)
        col.label(text=iface_(texts.BAKED_RANGE).format(start=chain.bake_start, end=chain.bake_end),
                  translate=False)
        col.label(text=iface_(texts.MAX_ERROR).format(error=format_length(context, chain.error_max)),
                  translate=False)
        col.label(text=iface_(texts.MEAN_ERROR).format(error=format_length(context, chain.error_mean)),
                  translate=False)
        col.label(text=iface_(texts.LIMITED_FRAMES).format(count=chain.limited_frames), translate=False)
        if chain.kept_keys >= 0:
            col.label(text=iface_(texts.KEPT_KEYS).format(kept=chain.kept_keys,
                                                          frames=chain.bake_end - chain.bake_start + 1),
                      translate=False)
        layout.label(text=texts.WORST_FRAMES)
        layout.template_list("POSE_UL_soft_ik_worst_frames", "", chain, "worst_frames", chain, "active_worst_index",
                             rows=4)


classes = (
    POSE_UL_soft_ik_chains,
    POSE_UL_soft_ik_worst_frames,
    VIEW3D_PT_soft_ik,
    VIEW3D_PT_soft_ik_chain,
    VIEW3D_PT_soft_ik_limits,
    VIEW3D_PT_soft_ik_smoothing,
    VIEW3D_PT_soft_ik_status,
    VIEW3D_PT_soft_ik_bake_report,
)
register, unregister = bpy.utils.register_classes_factory(classes)
