"""IK influence: blend a chain's IK solution with the FK pose its bones' own keys give, per frame.

The FK pose is what plays without the bake: each chain bone's rotation (in its own mode), and the upper bone's
location (Move Root) and scale (Stretch, stretch to reach) where the bake owns them, read from the armature's
F-curves at each frame (over a range the chain's bakes keyed, the user's keys those bakes replaced:
:func:`replaced_keys.user_channels`); a channel without keys counts as at rest (identity rotation, no offset,
scale 1), so the Solve and the Live Preview read the same FK pose as the bake does, whatever they posed before. The
influence is the chain's ``ik_influence``, read per frame from its F-curve on the armature's action when it is
keyed. The blend itself is :mod:`solver.blend`; the tip, and the error keyed for it, are the blended pose's
(the bake's verification then measures what Blender plays back, as for any bake).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..solver.blend import blend_linear, blend_rotation, quaternions_from_channels
from ..solver.chain_step import ERROR_RESOLUTION
from ..solver.fk import chain_forward_kinematics
from ..solver.rotations import (
    matrices_from_axis_angles,
    matrices_from_eulers,
    matrices_from_quaternions,
    rotation_property,
)
from ..solver.spaces import from_shoulder_2d, invert_matrices, transform_points
from . import anim_keys, key_target, replaced_keys, sampling
from . import messages as msg
from .chain_solve import ChainSolution, rotation_channels
from .messages import say
from .rig import ChainError, ChainRig

_REST = {"rotation_quaternion": (1.0, 0.0, 0.0, 0.0), "rotation_axis_angle": (0.0, 0.0, 1.0, 0.0),
         "rotation_euler": (0.0, 0.0, 0.0), "location": (0.0, 0.0, 0.0), "scale": (1.0, 1.0, 1.0)}


def influence_path(chain: Any) -> str:
    """Data path of the chain's ``ik_influence`` on its armature object (where its keys live)."""
    return str(chain.path_from_id("ik_influence"))


def _bone_path(bone: str, prop: str) -> str:
    from .bake import bone_path  # bake imports this module

    return bone_path(bone, prop)


def _check_not_driven(rig: ChainRig, path: str) -> None:
    ad = rig.armature.animation_data
    driver = None if ad is None else ad.drivers.find(path)
    if driver is not None and not driver.mute:
        raise ChainError(say(msg.INFLUENCE_DRIVEN, label=rig.label))


def influences(rig: ChainRig, frames: np.ndarray) -> np.ndarray:
    """The chain's IK influence on ``frames`` (scene frames), from its F-curve when keyed.

    Returns:
        (N,) values clipped to [0, 1]; 1 on a frame where the curve is not finite; the property's value on
        every frame when it has no F-curve.

    Raises:
        ChainError: a driver (not muted) drives the influence, or the frames cannot be mapped to the action's
            time (:func:`key_target.key_times`).
    """
    path = influence_path(rig.chain)
    _check_not_driven(rig, path)
    times = key_target.key_times(rig.armature, frames)
    # Most chains have no influence curve: found (or not) without the sampler's pass over the action's curves.
    if anim_keys.find_fcurve(rig.armature, path, 0) is None:
        return np.full(len(frames), float(rig.chain.ik_influence))
    (values,) = sampling.sample_channels(rig.armature, [(path, 0)], times)
    if values is None:
        return np.full(len(frames), float(rig.chain.ik_influence))
    return np.clip(np.where(np.isfinite(values), values, 1.0), 0.0, 1.0)


def _channel(rig: ChainRig, bone: str, prop: str, size: int, times: np.ndarray) -> np.ndarray:
    path = _bone_path(bone, prop)
    sampled = sampling.sample_channels(rig.armature, [(path, i) for i in range(size)], times)
    # The user's FK, not an earlier bake's keys: its keys swapped back for the ones it replaced.
    sampled = replaced_keys.user_channels(rig.armature, rig.chain, bone, prop, times, sampled)
    rest = _REST[prop]
    return np.stack([np.full(len(times), rest[i]) if v is None else v for i, v in enumerate(sampled)], axis=1)


def fk_pose(rig: ChainRig, frames: np.ndarray) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The FK pose the bones' own keys give on ``frames`` (scene frames): the user's, not an earlier bake's.

    Returns:
        ``(rotations, location, scale)``: per chain bone, root first, its rotation channels (N, k) in its own
        rotation mode; the upper bone's location (N, 3) and scale (N, 3). A channel without an F-curve holds
        its rest value (0, identity rotation, 1).
    """
    times = key_target.key_times(rig.armature, frames)
    pose = rig.armature.pose.bones
    rotations = []
    for name in rig.bone_names:
        prop, size = rotation_property(pose[name].rotation_mode)
        rotations.append(_channel(rig, name, prop, size, times))
    upper = rig.bone_names[0]
    return rotations, _channel(rig, upper, "location", 3, times), _channel(rig, upper, "scale", 3, times)


def _planar_angles(rig: ChainRig, j: int, mode: str, values: np.ndarray) -> np.ndarray:
    """Rotation of bone ``j`` about its plane normal (exact for the in-plane rotations a 2D rig keys)."""
    q = quaternions_from_channels(mode, values)
    along = q[:, 1:] @ (rig.local_axes[j] / np.linalg.norm(rig.local_axes[j]))
    return np.unwrap(2.0 * np.arctan2(along, q[:, 0]))


def blend(rig: ChainRig, sol: ChainSolution, weights: np.ndarray | None = None) -> ChainSolution:
    """``sol`` blended with the FK pose by the chain's influence (``weights``: (N,) instead of reading it).

    Influence 1 on every frame returns ``sol`` itself: the bake stays exactly what it was before influence
    existed. Otherwise the rotation channels to write are the blend (``rotations``), Move Root's location and
    the owned scale blend linearly, and the tip, error and flags are the blended pose's (flags 0 where the
    influence is 0: the IK solve did not act).
    """
    w = influences(rig, sol.frames) if weights is None else np.asarray(weights, dtype=np.float64)
    if bool(np.all(w == 1.0)):
        return sol
    fk_rot, fk_loc, fk_scale = fk_pose(rig, sol.frames)
    pose = rig.armature.pose.bones
    rotations, deltas = [], np.empty_like(sol.deltas)
    first = int(np.argmax(sol.valid))
    for j, name in enumerate(rig.bone_names):
        mode = pose[name].rotation_mode
        _, ik = rotation_channels(rig, j, mode, sol.deltas[:, j], previous=fk_rot[j][first])
        blended = blend_rotation(mode, fk_rot[j], ik, w)
        rotations.append(blended)
        deltas[:, j] = _planar_angles(rig, j, mode, blended)
    root_offset = sol.root_offset
    if rig.location_bone is not None:
        root_offset = blend_linear(fk_loc, sol.root_offset, w)
    scale, stretch = None, sol.stretch
    if rig.scale_bone is not None:
        ik_scale = np.repeat(sol.stretch[:, None], 3, axis=1) if sol.scale is None else sol.scale
        scale = blend_linear(fk_scale, ik_scale, w)
        stretch = scale[:, 1]  # along the bone: what scales the chain's reach
    # Aligned (or other) scale inheritance under Preserve Volume: the planar prediction (rotations in the plane).
    tip_world = (_tip_composed(rig, sol, rotations, root_offset, scale) if _full(rig)
                 else _tip(rig, sol, deltas, root_offset, stretch))
    error = np.linalg.norm(tip_world - sol.target_world, axis=1)
    error[error < ERROR_RESOLUTION * float(np.sum(rig.lengths)) * _world_scale(rig, sol)] = 0.0
    flags = np.where(w > 0.0, sol.flags, 0).astype(np.int64)
    return dataclasses.replace(sol, deltas=deltas, root_offset=root_offset, stretch=stretch, error=error,
                               flags=flags, tip_world=tip_world, rotations=tuple(rotations), scale=scale)


def _world_scale(rig: ChainRig, sol: ChainSolution) -> float:
    arm = sol.armature_world if sol.armature_world is not None else np.eye(4)[None]
    x_axis = rig.axes_2d[0]
    return float(np.mean(np.linalg.norm((arm[:, :3, :3] @ sol.base[:, :3, :3]) @ x_axis, axis=1)))


def _tip(rig: ChainRig, sol: ChainSolution, deltas: np.ndarray, root_offset: np.ndarray,
         stretch: np.ndarray) -> np.ndarray:
    """World tip of the pose given by ``deltas`` (about the plane normal), Move Root's offset (the upper
    bone's rest-local axes) and the scale along the bones."""
    angles = deltas + rig.rest_angles
    ends = chain_forward_kinematics(angles, rig.lengths)[:, -1, :] * stretch[:, None]
    if rig.location_bone is not None:
        ends = ends + root_offset @ rig.axes_2d.T
    arm = sol.armature_world if sol.armature_world is not None else np.eye(4)[None]
    local = from_shoulder_2d(ends, sol.base, rig.normal, local_normal=rig.local_axes[0])
    out: np.ndarray = transform_points(arm, local)
    return out


def _full(rig: ChainRig) -> bool:
    bones = rig.armature.data.bones
    return all(bones[name].inherit_scale == "FULL" for name in rig.bone_names[1:])


def _matrices(mode: str, values: np.ndarray) -> np.ndarray:
    if mode == "QUATERNION":
        return matrices_from_quaternions(values)
    if mode == "AXIS_ANGLE":
        return matrices_from_axis_angles(values)
    return matrices_from_eulers(values, mode)


def _tip_composed(rig: ChainRig, sol: ChainSolution, rotations: list[np.ndarray], root_offset: np.ndarray,
                  scale: np.ndarray | None) -> np.ndarray:
    """World tip composed as Blender does (rest offsets and each bone's ``matrix_basis`` down the chain, full
    inheritance), so an FK pose that leaves the plane (Euler keys interpolated about an oblique axis) is
    predicted as it plays."""
    bones = rig.armature.data.bones
    pose = rig.armature.pose.bones
    names = rig.bone_names
    n = len(sol.frames)
    m = np.array(np.broadcast_to(sol.base, (n, 4, 4)))
    for j, name in enumerate(names):
        basis = np.tile(np.eye(4), (n, 1, 1))
        basis[:, :3, :3] = _matrices(pose[name].rotation_mode, rotations[j])
        if j == 0:
            if scale is not None:
                basis[:, :3, :3] *= scale[:, None, :]
            if rig.location_bone is not None:
                basis[:, :3, 3] = root_offset
        else:
            rest = np.array(bones[names[j - 1]].matrix_local, dtype=np.float64)
            m = m @ (invert_matrices(rest[None])[0] @ np.array(bones[name].matrix_local, dtype=np.float64))
        m = m @ basis
    tail = m[:, :3, 3] + float(bones[names[-1]].length) * m[:, :3, 1]
    arm = sol.armature_world if sol.armature_world is not None else np.eye(4)[None]
    out: np.ndarray = transform_points(arm, tail)
    return out


def preview_key(rig: ChainRig, frame: float) -> bytes:
    """What the blend reads at one frame (influence and FK channels), for the live preview's change check."""
    frames = np.array([frame])
    w = influences(rig, frames)
    if bool(np.all(w == 1.0)):
        return w.tobytes()
    rotations, loc, scale = fk_pose(rig, frames)
    return b"".join(a.tobytes() for a in (w, *rotations, loc, scale))
