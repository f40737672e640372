"""From a solved chain to the values of the channels it owns, in each bone's own rotation mode (pure)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .chain_data import Quaternions
from .chain_description import ERROR_PROP, FLAGS_PROP, ChainDescription
from .chain_step import ChainSolution
from .rotations import (
    axis_angles_about_axis,
    eulers_about_axis,
    quaternions_about_axes,
    quaternions_about_axis,
    rotation_property,
)

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
    ready = sol.quaternions.values if (sol.quaternions is not None and sol.quaternions.of is sol.deltas
                                       and index is None) else None
    for j, (name, mode) in enumerate(zip(rig.bone_names, rotation_modes, strict=True)):
        before = None if previous is None else previous[j]
        q = None if ready is None or mode != "QUATERNION" else ready[j]
        if sol.rotations is not None:  # an IK influence below 1: the blend with the FK keys
            prop = rotation_property(mode)[0]
            values = sol.rotations[j][rows]
        elif q is not None:
            prop, values = "rotation_quaternion", _signed(q, sol.deltas[:, j], before)
        else:
            prop, values = rotation_channels(rig, j, mode, sol.deltas[rows, j], previous=before)
        out.append(ChannelValues(name, prop, values))
    if rig.location_bone is not None:
        out.append(ChannelValues(rig.location_bone, "location", sol.root_offset[rows]))
    if rig.scale_bone is not None:
        scale = np.repeat(sol.stretch[rows, None], 3, axis=1) if sol.scale is None else sol.scale[rows]
        out.append(ChannelValues(rig.scale_bone, "scale", scale))
    lower = rig.bone_names[-1]
    out.append(ChannelValues(lower, ERROR_PROP, sol.error[rows, None]))
    out.append(ChannelValues(lower, FLAGS_PROP, sol.flags[rows, None].astype(np.float64), "CONSTANT"))
    return out


def _signed(q: FloatArray, deltas: FloatArray, previous: FloatArray | None) -> FloatArray:
    """Precomputed quaternions with :func:`quaternions_about_axis`'s sign: that of ``previous``'s hemisphere
    at the first finite frame."""
    if previous is None or not len(q):
        return q
    first = 0 if math.isfinite(deltas[0]) else int(np.argmax(np.isfinite(deltas)))
    if not math.isfinite(deltas[first]):
        return q
    p = np.asarray(previous, dtype=np.float64).reshape(4)
    return -q if float(np.dot(p, q[first])) < 0.0 else q


# Quaternions with_quaternions computes ahead (8 MB): a long bake keeps computing each chain's as it is written,
# so its memory peak stays one chain's (100,000 frames x 8 chains ahead would hold ~50 MB more until written).
QUATERNIONS_AT_ONCE = 262_144


def with_quaternions(rigs: Sequence[ChainDescription], solutions: Sequence[ChainSolution],
                     rotation_modes: Sequence[Sequence[str]]) -> list[ChainSolution]:
    """The solutions carrying every quaternion bone's values, computed for all chains at once.

    A bake writes each chain's channels one chain at a time; the rotations are most of their cost, and one
    ufunc pass over every chain's frames (:func:`solver.rotations.quaternions_about_axes`) costs a fraction of
    a pass per bone. :func:`channel_values` then only picks each bone's sign; its values are bit for bit the
    ones it computes itself.

    Args:
        rigs: the chains.
        solutions: their solutions, one frame range shared by all (a bake's).
        rotation_modes: per chain, each bone's rotation mode (``bone_names`` order).

    Returns:
        The solutions, each with ``quaternions`` set when it has a bone in QUATERNION mode (none past
        :data:`QUATERNIONS_AT_ONCE` quaternions in all).
    """
    columns = [(k, j) for k, modes in enumerate(rotation_modes) for j, mode in enumerate(modes)
               if mode == "QUATERNION" and solutions[k].rotations is None]
    if (not columns or len({len(s.frames) for s in solutions}) != 1
            or len(columns) * len(solutions[0].frames) > QUATERNIONS_AT_ONCE):
        return list(solutions)
    deltas = np.empty((len(columns), len(solutions[0].frames)))
    for c, (k, j) in enumerate(columns):
        deltas[c] = solutions[k].deltas[:, j]
    q = quaternions_about_axes(np.stack([rigs[k].local_axes[j] for k, j in columns]), deltas)
    per_chain: dict[int, list[FloatArray | None]] = {}
    for c, (k, j) in enumerate(columns):
        per_chain.setdefault(k, [None] * len(rigs[k].bone_names))[j] = q[c]
    return [dataclasses.replace(sol, quaternions=Quaternions(sol.deltas, tuple(per_chain[k])))
            if k in per_chain else sol for k, sol in enumerate(solutions)]
