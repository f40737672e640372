"""Pose a chain from one frame of a solution, without keys (the Solve operator and the live preview)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..solver.chain_description import CURVE_PROPS, ERROR_PROP, FLAGS_PROP
from ..solver.rotations import rotation_property
from .chain_solve import ChainSolution, channel_values
from .rig import ChainRig

_TWO_PI = 2.0 * math.pi
_FAST_MODES = frozenset(("QUATERNION", "AXIS_ANGLE"))


def _unit(axis: list[float]) -> tuple[float, float, float]:
    x, y, z = axis
    norm = math.sqrt(x * x + y * y + z * z)
    return x / norm, y / norm, z / norm


def _quaternion(axis: list[float], delta: float, current: tuple[float, ...]) -> tuple[float, ...]:
    """``rotations.quaternions_about_axis`` for one angle, in floats (the live preview poses on every drag)."""
    kx, ky, kz = _unit(axis)
    c, s = math.cos(0.5 * delta), math.sin(0.5 * delta)
    qx, qy, qz = s * kx, s * ky, s * kz
    w, x, y, z = current
    if w * c + x * qx + y * qy + z * qz < 0.0:  # the dot product summed in order, as sum() did
        return -c, -qx, -qy, -qz
    return c, qx, qy, qz


def _axis_angle(axis: list[float], delta: float, current: tuple[float, ...]) -> tuple[float, ...]:
    """``rotations.axis_angles_about_axis`` for one angle, in floats."""
    kx, ky, kz = _unit(axis)
    if current[1] * kx + current[2] * ky + current[3] * kz < 0.0:
        kx, ky, kz, delta = -kx, -ky, -kz, -delta
    delta += _TWO_PI * round((current[0] - delta) / _TWO_PI)
    return delta, kx, ky, kz


def apply_frame(rig: ChainRig, sol: ChainSolution, index: int = -1) -> tuple[float, ...]:
    """Set the channels the chain owns to frame ``index`` of ``sol`` (no keys are inserted).

    The rotation is written in each bone's own rotation mode and continues from the bone's current value, so
    Euler angles do not jump by 360 degrees.

    Args:
        rig: the chain.
        sol: its solution.
        index: the frame of ``sol`` to pose (default the last).

    Returns:
        The pose as written: each bone's rotation channels, then the upper bone's location and scale (the live
        preview's record of its own pose, without reading it back).
    """
    pose = rig.armature.pose.bones
    bones = [pose[name] for name in rig.bone_names]
    modes = [pb.rotation_mode for pb in bones]
    deltas = sol.deltas[index].tolist()
    # A blend with FK keys (IK influence) or a non-uniform scale (Preserve Volume) is written as channel_values
    # gives it; so are Euler modes and non-finite angles (a NaN or inf makes the sum so; angles never overflow).
    blended = sol.rotations is not None or sol.scale is not None
    if blended or not _FAST_MODES.issuperset(modes) or not math.isfinite(sum(deltas)):
        return _apply_channels(rig, sol, index, bones, modes)
    # Quaternions and axis-angles in floats (a drag poses every chain on every update); the channels besides the
    # rotations are the ones ChainDescription.owned_channels lists, in its order.
    written: list[float] = []
    axes = rig.local_axes.tolist()
    for j, pb in enumerate(bones):
        if modes[j] == "QUATERNION":
            values = _quaternion(axes[j], deltas[j], pb.rotation_quaternion[:])
            pb.rotation_quaternion = values
        else:
            values = _axis_angle(axes[j], deltas[j], pb.rotation_axis_angle[:])
            pb.rotation_axis_angle = values
        written.extend(values)
    upper, lower = bones[0], bones[-1]
    location, scale = upper.location[:], upper.scale[:]
    if rig.location_bone is not None:
        location = tuple(sol.root_offset[index].tolist())
        pose[rig.location_bone].location = location
    if rig.scale_bone is not None:
        scale = (float(sol.stretch[index]),) * 3
        pose[rig.scale_bone].scale = scale
    lower[ERROR_PROP] = float(sol.error[index])
    lower[FLAGS_PROP] = int(sol.flags[index])
    return (*written, *location, *scale)


def _apply_channels(rig: ChainRig, sol: ChainSolution, index: int, bones: list[Any],
                    modes: list[str]) -> tuple[float, ...]:
    """Every owned channel through :func:`chain_channels.channel_values` (Euler modes, non-finite angles)."""
    pose = rig.armature.pose.bones
    current = [np.array(getattr(pb, rotation_property(mode)[0]), dtype=np.float64)
               for pb, mode in zip(bones, modes, strict=True)]
    written: list[float] = []
    for channel in channel_values(rig, sol, modes, current, index=index):
        pb = pose[channel.bone]
        row = channel.values[0]
        if channel.prop == FLAGS_PROP:
            pb[channel.prop] = int(row[0])
        elif channel.prop in CURVE_PROPS:
            pb[channel.prop] = float(row[0])
        else:
            setattr(pb, channel.prop, row.tolist())
            if channel.prop.startswith("rotation_"):
                written.extend(getattr(pb, channel.prop)[:])
    upper = bones[0]
    return (*written, *upper.location[:], *upper.scale[:])
