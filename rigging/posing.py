"""Pose a chain from one frame of a solution, without keys (the Solve operator and the live preview)."""

from __future__ import annotations

import math

import numpy as np

from ..solver.rotations import rotation_property
from .bake import ERROR_PROP, FLAGS_PROP
from .chain_solve import ChainSolution, rotation_channels
from .rig import ChainRig

_TWO_PI = 2.0 * math.pi


def _unit(axis: np.ndarray) -> tuple[float, float, float]:
    x, y, z = axis.tolist()
    norm = math.sqrt(x * x + y * y + z * z)
    return x / norm, y / norm, z / norm


def _quaternion(axis: np.ndarray, delta: float, current: tuple[float, ...]) -> tuple[float, ...]:
    """``rotations.quaternions_about_axis`` for one angle, in floats (the live preview poses on every drag)."""
    kx, ky, kz = _unit(axis)
    c, s = math.cos(0.5 * delta), math.sin(0.5 * delta)
    q = (c, s * kx, s * ky, s * kz)
    if sum(p * v for p, v in zip(current, q, strict=True)) < 0.0:
        return tuple(-v for v in q)
    return q


def _axis_angle(axis: np.ndarray, delta: float, current: tuple[float, ...]) -> tuple[float, ...]:
    """``rotations.axis_angles_about_axis`` for one angle, in floats."""
    kx, ky, kz = _unit(axis)
    if current[1] * kx + current[2] * ky + current[3] * kz < 0.0:
        kx, ky, kz, delta = -kx, -ky, -kz, -delta
    delta += _TWO_PI * round((current[0] - delta) / _TWO_PI)
    return delta, kx, ky, kz


def apply_frame(rig: ChainRig, sol: ChainSolution, index: int = -1) -> tuple[float, ...]:
    """Set the chain bones' pose channels to frame ``index`` of ``sol`` (no keys are inserted).

    The rotation is written in each bone's own rotation mode and continues from the bone's current value, so
    Euler angles do not jump by 360 degrees. Returns the pose as written: each bone's rotation channels, then the
    upper bone's location and scale (the live preview's record of its own pose, without reading it back).
    """
    pose = rig.armature.pose.bones
    deltas = sol.deltas[index].tolist()
    bones = [pose[name] for name in rig.bone_names]
    written: list[float] = []
    for j, pb in enumerate(bones):
        mode = pb.rotation_mode
        delta = deltas[j]
        values: tuple[float, ...]
        if mode == "QUATERNION" and math.isfinite(delta):
            values = _quaternion(rig.local_axes[j], delta, pb.rotation_quaternion[:])
            pb.rotation_quaternion = values
        elif mode == "AXIS_ANGLE" and math.isfinite(delta):
            values = _axis_angle(rig.local_axes[j], delta, pb.rotation_axis_angle[:])
            pb.rotation_axis_angle = values
        else:
            prop, _size = rotation_property(mode)
            current = np.array(getattr(pb, prop), dtype=np.float64)
            _, channels = rotation_channels(rig, j, mode, sol.deltas[index:index + 1 or None, j], previous=current)
            values = tuple(channels[0].tolist())
            setattr(pb, prop, values)
        written.extend(values)
    upper, lower = bones[0], bones[-1]
    strategy = rig.chain.limit_strategy
    location, scale = upper.location[:], upper.scale[:]
    if strategy == "MOVE_ROOT":
        location = tuple(sol.root_offset[index].tolist())
        upper.location = location
    elif strategy == "STRETCH":
        scale = (float(sol.stretch[index]),) * 3
        upper.scale = scale
    lower[ERROR_PROP] = float(sol.error[index])
    lower[FLAGS_PROP] = int(sol.flags[index])
    return (*written, *location, *scale)
