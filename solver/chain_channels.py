"""From a solved chain to the values of the channels it owns, in each bone's own rotation mode (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .chain_description import ERROR_PROP, FLAGS_PROP, ChainDescription
from .chain_step import ChainSolution
from .rotations import axis_angles_about_axis, eulers_about_axis, quaternions_about_axis

FloatArray = NDArray[np.float64]


def rotation_channels(rig: ChainDescription, bone_index: int, rotation_mode: str, deltas: FloatArray,
                      previous: FloatArray | None = None) -> tuple[str, FloatArray]:
    """The pose rotation property and its values ((N, k)) for one bone in its own rotation mode."""
    axis = rig.local_axes[bone_index]
    if rotation_mode == "QUATERNION":
        return "rotation_quaternion", quaternions_about_axis(axis, deltas, previous=previous)
    if rotation_mode == "AXIS_ANGLE":
        return "rotation_axis_angle", axis_angles_about_axis(axis, deltas, previous=previous)
    return "rotation_euler", eulers_about_axis(axis, deltas, rotation_mode, previous=previous)


@dataclass(frozen=True)
class ChannelValues:
    """The values one solve gives one owned property of one pose bone: (N, size), one row per frame."""

    bone: str
    prop: str
    values: FloatArray
    interpolation: str = "LINEAR"


def channel_values(rig: ChainDescription, sol: ChainSolution, rotation_modes: Sequence[str],
                   previous: Sequence[FloatArray | None] | None = None, index: int | None = None
                   ) -> list[ChannelValues]:
    """The values of every channel the chain owns (:meth:`ChainDescription.owned_channels`, same order).

    Args:
        rig: the chain.
        sol: its solution.
        rotation_modes: each bone's rotation mode, ``bone_names`` order.
        previous: each bone's rotation value to continue from (Euler angles and quaternion signs), or None.
        index: one frame of ``sol`` (rows of shape (1, size)); None: every frame.

    Returns:
        One entry per owned property; the flags are CONSTANT-interpolated (bits do not blend).
    """
    rows = slice(None) if index is None else slice(index, index + 1 or None)
    out = []
    for j, (name, mode) in enumerate(zip(rig.bone_names, rotation_modes, strict=True)):
        prop, values = rotation_channels(rig, j, mode, sol.deltas[rows, j],
                                         previous=None if previous is None else previous[j])
        out.append(ChannelValues(name, prop, values))
    if rig.location_bone is not None:
        out.append(ChannelValues(rig.location_bone, "location", sol.root_offset[rows]))
    if rig.scale_bone is not None:
        out.append(ChannelValues(rig.scale_bone, "scale", np.repeat(sol.stretch[rows, None], 3, axis=1)))
    lower = rig.bone_names[-1]
    out.append(ChannelValues(lower, ERROR_PROP, sol.error[rows, None]))
    out.append(ChannelValues(lower, FLAGS_PROP, sol.flags[rows, None].astype(np.float64), "CONSTANT"))
    return out
