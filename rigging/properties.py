"""Data stored in the .blend: the chains of an armature (``Object.soft_ik_2d``) and their last bake report."""

import math
from typing import Any

import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)
from bpy.types import PropertyGroup

# Properties whose names Blender itself translates ("Error", "Softness", ...) take the add-on's own translation
# context, or Blender's words would show instead of the add-on's (translations/).
from .translations import CONTEXT

PLANE_ITEMS = [
    ("XZ", "XZ (Front)", "Rig drawn in the front view: rotations about the -Y axis"),
    ("XY", "XY (Top)", "Rig drawn in the top view: rotations about the +Z axis"),
    ("YZ", "YZ (Side)", "Rig drawn in the right view: rotations about the +X axis"),
]

SPACE_ITEMS = [
    ("WORLD", "World", "The target stays put in the world (a foot planted on the ground)"),
    (
        "CHARACTER",
        "Character",
        "The target moves with the character: the armature or one of its bones (a hand on the hip)",
    ),
    ("OBJECT", "Object", "The target moves with another object or one of its bones (a hand on a moving door)"),
]

STRATEGY_ITEMS = [
    (
        "ACCEPT",
        "Accept Error",
        "Keep the joint limits and leave the hand short of the target; the error is keyed so it can be seen",
    ),
    (
        "MOVE_ROOT",
        "Move Root",
        "Offset the upper bone toward the target (location keys), at most Max Root Offset, smoothed over frames",
    ),
    (
        "STRETCH",
        "Stretch",
        "Scale the chain uniformly within the stretch range (scale keys on the upper bone) so the hand reaches",
    ),
]

SMOOTHING_ITEMS = [
    ("NONE", "None", "Use the target positions as they are"),
    ("EXPONENTIAL", "Exponential", "Exponential moving average of the target positions (adds lag)"),
    ("ONE_EURO", "One Euro", "Adaptive low-pass filter: smooths jitter when slow, follows fast motion"),
]

SOLVER_ITEMS = [
    ("ANALYTIC", "Analytic", "Law-of-cosines two-bone solve (exact, two bones only)"),
    ("CCD", "CCD", "Cyclic coordinate descent for chains of 3 to 32 bones"),
    ("FABRIK", "FABRIK", "Forward and backward reaching IK for chains of 3 to 32 bones"),
]


def _bend_get(self: "SoftIKChain") -> int:
    return -1 if int(self.get("bend") or 1) < 0 else 1


def _bend_set(self: "SoftIKChain", value: int) -> None:
    # Only the two mirrored solutions exist; 0 would be ambiguous, so it maps to +1.
    self["bend"] = -1 if value < 0 else 1


def _touch(self: PropertyGroup, context: bpy.types.Context) -> None:
    # A property without an update callback tags nothing, so the live preview's depsgraph handler would not
    # hear about a changed setting.
    self.id_data.update_tag()


class SoftIKWorstFrame(PropertyGroup):
    """One frame of the last bake's report with a large error (``SoftIKChain.worst_frames``)."""

    frame: IntProperty(name="Frame", description="Frame of the last bake with a large error")
    error: FloatProperty(
        name="Error", translation_context=CONTEXT,
        description="Distance from the tip to the raw target at this frame",
        subtype="DISTANCE",
        unit="LENGTH",
    )


class SoftIKPin(PropertyGroup):
    """A range over which the chain's target is pinned in world space (``pose.soft_ik_pin_target``), with the
    keys the pin replaced, so Unpin puts them back exactly (rigging/pinning.py)."""

    frame_start: IntProperty(name="Pinned From", description="First frame the target holds still in world space")
    frame_end: IntProperty(name="Pinned To", description="Last frame the target holds still in world space")
    blend_frames: IntProperty(name="Blend Frames", description="Frames after the pin over which the target "
                              "returns to its own motion", min=0)
    target: PointerProperty(type=bpy.types.Object, name="Pinned Target", description="The object that was pinned")
    span_start: IntProperty(options={"HIDDEN"})
    span_end: IntProperty(options={"HIDDEN"})
    saved_keys: StringProperty(options={"HIDDEN"})


class SoftIKChain(PropertyGroup):
    """One chain of an armature: its bones, target, solver settings and what its last bake wrote and reported."""

    # ``name`` (the label) is inherited from PropertyGroup.
    upper_bone: StringProperty(
        update=_touch, name="Upper Bone", description="Root bone of the chain (upper arm, thigh)"
    )
    lower_bone: StringProperty(
        update=_touch,
        name="Lower Bone",
        description="Tip bone of the chain (forearm, shin); its tail reaches for the target",
    )
    chain_length: IntProperty(
        update=_touch,
        name="Chain Length", translation_context=CONTEXT,
        description="Number of bones from the lower bone up its parents (2 for an arm or leg)",
        default=2,
        min=2,
        max=32,
    )
    solver: EnumProperty(
        update=_touch, name="Solver", items=SOLVER_ITEMS, default="ANALYTIC", description="How the chain is solved",
        translation_context=CONTEXT,
    )
    target: PointerProperty(
        update=_touch, name="Target", type=bpy.types.Object, description="Object the tip reaches for (usually an Empty)"
    )
    target_space: EnumProperty(
        update=_touch,
        name="Target Space", translation_context=CONTEXT,
        items=SPACE_ITEMS,
        default="WORLD",
        description="Space the target lives in; must match how it is parented",
    )
    space_object: PointerProperty(
        update=_touch,
        name="Space Object",
        type=bpy.types.Object,
        description="Object whose space an OBJECT target lives in",
    )
    space_bone: StringProperty(
        update=_touch,
        name="Space Bone",
        description="Optional bone of the space object (or of the armature, for CHARACTER) the target is parented to",
    )
    bend: IntProperty(
        update=_touch,
        name="Bend", translation_context=CONTEXT,
        description="Which mirrored solution: +1 bends the elbow counter-clockwise "
        "in the rig's plane, -1 clockwise. Never flips by itself",
        min=-1,
        max=1,
        default=1,
        get=_bend_get,
        set=_bend_set,
    )
    pole: PointerProperty(
        update=_touch,
        name="Pole", translation_context=CONTEXT,
        type=bpy.types.Object,
        description="Optional object whose side of "
        "the shoulder-target line the elbow points to (kept when it lies on the line)",
    )
    softness: FloatProperty(
        update=_touch,
        name="Softness", translation_context=CONTEXT,
        description="Soft IK band as a fraction of the chain length: "
        "the arm approaches full extension smoothly and never locks. 0 = hard clamp",
        default=0.04,
        min=0.0,
        max=0.5,
        subtype="FACTOR",
    )
    inner_softness: FloatProperty(
        update=_touch,
        name="Inner Softness",
        description="The same softening at the fully folded boundary, as a fraction of the chain length",
        default=0.0,
        min=0.0,
        max=0.5,
        subtype="FACTOR",
    )
    use_shoulder_limit: BoolProperty(update=_touch, name="Limit Upper", description="Limit the upper bone's angle")
    shoulder_min: FloatProperty(
        update=_touch,
        name="Upper Min",
        subtype="ANGLE",
        default=-math.pi / 2,
        description="Lowest upper-bone angle, from its rest direction",
    )
    shoulder_max: FloatProperty(
        update=_touch,
        name="Upper Max",
        subtype="ANGLE",
        default=math.pi / 2,
        description="Highest upper-bone angle, from its rest direction",
    )
    use_elbow_limit: BoolProperty(
        update=_touch, name="Limit Lower", description="Limit the lower bone's angle relative to the upper bone"
    )
    elbow_min: FloatProperty(
        update=_touch,
        name="Lower Min",
        subtype="ANGLE",
        default=0.0,
        description="Lowest lower-bone angle relative to the upper bone (0 = straight)",
    )
    elbow_max: FloatProperty(
        update=_touch,
        name="Lower Max",
        subtype="ANGLE",
        default=math.radians(150.0),
        description="Highest lower-bone angle relative to the upper bone",
    )
    limit_strategy: EnumProperty(
        update=_touch,
        name="When Limited",
        items=STRATEGY_ITEMS,
        default="ACCEPT",
        description="What happens when a joint limit keeps the hand from the target",
    )
    max_root_offset: FloatProperty(
        update=_touch,
        name="Max Root Offset",
        description="Largest distance Move Root may shift the upper bone",
        default=0.1,
        min=0.0,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    root_smoothing: IntProperty(
        update=_touch,
        name="Root Smoothing",
        description="Width in frames of the filter that keeps Move Root from shaking the body (0 = none)",
        default=3,
        min=0,
        max=100,
    )
    stretch_min: FloatProperty(
        update=_touch, name="Stretch Min", description="Smallest scale Stretch may use", default=0.9, min=0.1, max=1.0
    )
    stretch_max: FloatProperty(
        update=_touch, name="Stretch Max", description="Largest scale Stretch may use", default=1.1, min=1.0, max=10.0
    )
    smoothing: EnumProperty(
        update=_touch,
        name="Target Smoothing",
        items=SMOOTHING_ITEMS,
        default="NONE",
        description="Filter the target path before the solve, where noise is not yet amplified",
    )
    smoothing_cutoff: FloatProperty(
        update=_touch,
        name="Cutoff", translation_context=CONTEXT,
        description="Smoothing cutoff frequency in Hz (lower = smoother)",
        default=2.0,
        min=0.001,
    )
    smoothing_beta: FloatProperty(
        update=_touch,
        name="Speed Coefficient",
        description="One Euro: how much fast motion raises the cutoff (less lag)",
        default=0.05,
        min=0.0,
    )
    # IK/FK blend and stretch to reach (issue 14). Influence is keyable: the bake reads its F-curve per frame.
    ik_influence: FloatProperty(
        update=_touch,
        name="IK Influence",
        description="Blend of the IK solution over the bones' own FK keys (0 = the FK keys as they are, "
        "1 = full IK); keyable",
        default=1.0,
        min=0.0,
        max=1.0,
        subtype="FACTOR",
    )
    stretch_to_reach: BoolProperty(
        update=_touch,
        name="Stretch to Reach",
        description="Scale both bones up to Max Stretch so the tip reaches a target beyond full reach "
        "(scale keys on the upper bone); unlike the Stretch limit strategy, no joint limit is involved",
        default=False,
    )
    max_stretch: FloatProperty(
        update=_touch,
        name="Max Stretch",
        description="Largest scale Stretch to Reach may give the bones (1.25 = a quarter longer)",
        default=1.25,
        min=1.0,
        max=10.0,
    )
    preserve_volume: BoolProperty(
        update=_touch,
        name="Preserve Volume", translation_context=CONTEXT,
        description="Stretched bones thin across the bone by 1/sqrt(scale), keeping their area (needs Inherit "
        "Scale: Aligned on the lower bones)",
        default=False,
    )

    # Report of the last bake (written by the bake operator, read by the panel).
    bake_start: IntProperty(name="Baked From", default=0)
    bake_end: IntProperty(name="Baked To", default=-1)
    error_max: FloatProperty(name="Max Error", subtype="DISTANCE", unit="LENGTH")
    error_mean: FloatProperty(name="Mean Error", subtype="DISTANCE", unit="LENGTH")
    limited_frames: IntProperty(name="Limited Frames", description="Frames of the last bake where a joint limit acted")
    worst_frames: CollectionProperty(type=SoftIKWorstFrame)
    active_worst_index: IntProperty()
    # What the last bake wrote ("data path<TAB>index" lines, see bake.recorded_channels). Declared, not a bare
    # custom property, because a library override keeps only declared, overridable properties past reopen.
    baked_channels: StringProperty(name="Baked Channels", options={"HIDDEN"})
    # Pinned target ranges (rigging/pinning.py) and the keys a reduced bake kept (rigging/reduced_bake.py).
    pins: CollectionProperty(type=SoftIKPin)
    kept_keys: IntProperty(name="Kept Keys", description="Frames the last bake keyed (fewer than its frames "
                           "when Key Reduction was on)", default=-1)

    @property
    def has_bake(self) -> bool:
        """Whether a bake range is recorded (``bake_end`` before ``bake_start`` means none)."""
        return self.bake_end >= self.bake_start


class SoftIKSettings(PropertyGroup):
    """An armature's Soft IK settings (``Object.soft_ik_2d``): its chains and the armature-wide options."""

    chains: CollectionProperty(type=SoftIKChain)
    active_chain_index: IntProperty(update=_touch, name="Active Chain")
    plane: EnumProperty(
        update=_touch,
        name="Plane",
        items=PLANE_ITEMS,
        default="XZ",
        description="The 2D plane the rig is drawn in; bones rotate about its normal",
    )
    live_preview: BoolProperty(
        update=_touch,
        name="Live Preview",
        description="Re-pose the chains whenever a target or setting changes, without inserting keys",
        default=False,
    )
    show_overlay: BoolProperty(
        update=_touch,
        name="Overlay", translation_context=CONTEXT,
        description="Draw reach rings, soft band, targets and error of the active chain in the viewport",
        default=True,
    )
    bake_to_new_action: BoolProperty(
        name="To New Action",
        description="Bake into a new action (a copy of the current one, assigned to the armature), leaving the "
        "current action untouched",
        default=False,
    )


classes = (SoftIKWorstFrame, SoftIKPin, SoftIKChain, SoftIKSettings)
_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)

#: The studio rig is linked from a library and overridden in the shot: without these flags Blender keeps no
#: edit of an override's properties (chains added, settings changed, bake reports) past save and reopen, and a
#: collection needs insertion support on top or items added in the shot are dropped.
OVERRIDABLE = {"LIBRARY_OVERRIDABLE"}
OVERRIDABLE_COLLECTION = {"LIBRARY_OVERRIDABLE", "USE_INSERTION"}


def _library_overridable(prop: Any) -> Any:
    """``prop`` (a ``bpy.props`` declaration) with the library-override flags added."""
    flags = OVERRIDABLE_COLLECTION if prop.function is CollectionProperty else OVERRIDABLE
    return prop.function(**{**prop.keywords, "override": set(prop.keywords.get("override", ())) | flags})


def _make_overridable(cls: type) -> None:
    # Done here rather than on every declaration, so a property added later cannot forget it.
    annotations = cls.__annotations__  # the class's own dict, edited in place before registration
    for name, prop in annotations.items():
        if hasattr(prop, "function") and hasattr(prop, "keywords"):
            annotations[name] = _library_overridable(prop)


def register() -> None:
    for cls in classes:
        _make_overridable(cls)
    _register_classes()
    bpy.types.Object.soft_ik_2d = PointerProperty(type=SoftIKSettings, override=OVERRIDABLE)


def unregister() -> None:
    del bpy.types.Object.soft_ik_2d
    _unregister_classes()
