"""What the panel says about the current frame of a chain, computed without solving (cheap enough for draw).

Sources, in order: the live-preview cache while Live Preview is on; otherwise the keyed ``soft_ik_error`` /
``soft_ik_flags`` of the chain's lower pose bone (Blender's animation writes them back at every frame); the
sensitivity comes from the cache whenever the preview or the overlay has solved the current state.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import bpy

from ..rigging import live_preview
from ..rigging.bake import ERROR_PROP, FLAGS_PROP
from ..solver.flag_names import TWO_BONE_FLAGS, FlagTable, for_solver
from ..solver.overlay_geometry import SENSITIVE_DEGREES, plane_scale, sensitivity_degrees
from . import texts


@dataclass(frozen=True)
class FrameStatus:
    """What the status rows show for one chain at the current frame (see the module for where it comes from)."""

    source: str  # texts.PREVIEW_SOURCE, texts.KEYED_SOURCE, or "" when nothing is known
    error: float | None
    flags: int | None
    sensitivity_degrees: float | None  # degrees per 1 % of the chain length of target motion
    message: str | None  # why the preview cannot solve the chain
    # What the bits of ``flags`` mean: the table of the chain's solver (CCD/FABRIK use bits 8 and 16 otherwise).
    flag_table: FlagTable = field(default=TWO_BONE_FLAGS)

    @property
    def flag_lines(self) -> list[tuple[str, str]]:
        """(text, icon) rows the panel shows for the flags, empty when the flags are unknown."""
        return [] if self.flags is None else texts.decode_flags(self.flags, self.flag_table)

    @property
    def sensitive(self) -> bool:
        """Whether the pose turns by at least ``SENSITIVE_DEGREES`` per 1 % of target motion (a warning row)."""
        return self.sensitivity_degrees is not None and self.sensitivity_degrees >= SENSITIVE_DEGREES


def frame_status(armature: bpy.types.Object, chain: bpy.types.PropertyGroup) -> FrameStatus:
    """The status of ``chain`` of ``armature`` at the current frame, without solving.

    Returns:
        The live-preview cache's error and flags while Live Preview is on and the cache holds a solution; else
        the keyed ``soft_ik_error`` / ``soft_ik_flags`` of the lower pose bone; else a status with an empty
        ``source``. The sensitivity and the preview's message come from the cache in every case, when it has
        them; the flag table is the one of the chain's solver.
    """
    cached = live_preview.preview_of(armature, chain)
    sol = cached.solution if cached is not None else None
    degrees = None
    if sol is not None and cached is not None and cached.rig is not None and float(sol.sensitivity[0]) > 0.0:
        length = cached.rig.total_length * plane_scale(cached.plane_to_world)
        degrees = sensitivity_degrees(float(sol.sensitivity[0]), length)
    message = cached.message if cached is not None else None
    table = for_solver(chain.solver, int(chain.chain_length))
    if armature.soft_ik_2d.live_preview and sol is not None:
        return FrameStatus(texts.PREVIEW_SOURCE, float(sol.error[0]), int(sol.flags[0]), degrees, message, table)
    pb = armature.pose.bones.get(chain.lower_bone) if chain.lower_bone else None
    if pb is not None and ERROR_PROP in pb:
        flags = pb.get(FLAGS_PROP)
        return FrameStatus(texts.KEYED_SOURCE, float(pb[ERROR_PROP]),
                           None if flags is None else round(float(flags)), degrees, message, table)
    return FrameStatus("", None, None, degrees, message, table)


def format_length(context: bpy.types.Context, value: float) -> str:
    """A length in the scene's units (like Blender's own fields)."""
    units = context.scene.unit_settings
    if units.system == "NONE":
        return f"{value:.4g}"
    return bpy.utils.units.to_string(units.system, "LENGTH", value * units.scale_length, precision=4,
                                     split_unit=units.use_separate)
