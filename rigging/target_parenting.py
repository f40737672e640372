"""Re-parent a target to its declared space while keeping its world-space motion on every frame.

Converting only the keyed frames is not enough: between keys the old and the new parent move differently, so
the interpolated keys would drift from the old motion (0.18 units were seen on a walking character). The
target is keyed on every frame of the scene's range (and of its own keys) instead; frames where a channel
holds still are merged away again, which is exact for the linear keys written.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
from mathutils import Matrix, Vector

from ..solver.rotations import rotation_property
from ..solver.spaces import invert_matrices
from . import anim_keys, sampling
from .bake import essential_keys

TRANSFORM_PATHS = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle", "scale")


def keyed_frames(obj: bpy.types.Object) -> np.ndarray:
    """Frames of every key on the object's own transform channels (sorted, unique)."""
    frames: set[float] = set()
    for path in TRANSFORM_PATHS:
        for index in range(4):
            fc = anim_keys.find_fcurve(obj, path, index)
            if fc is not None:
                co = np.empty(2 * len(fc.keyframe_points), dtype=np.float64)
                fc.keyframe_points.foreach_get("co", co)
                frames.update(co[0::2].tolist())
    return np.array(sorted(frames), dtype=np.float64)


def _parent_matrices(context: bpy.types.Context, parent: bpy.types.Object | None, bone: str,
                     frames: np.ndarray) -> np.ndarray:
    if parent is None:
        return np.broadcast_to(np.eye(4), (len(frames), 4, 4)).copy()
    m = sampling.sample_world_matrices(context, [(parent, bone or None)], frames)[0]
    if bone:
        # A child of a bone hangs from the bone's tail, not its head.
        tail = np.eye(4)
        tail[1, 3] = parent.data.bones[bone].length
        m = m @ tail
    return m


# An axis-angle rotation whose half-angle sine is below this turns by nothing: any axis will do.
_NO_TURN = 1e-9


def _turns(angle: float) -> bool:
    """Whether an axis-angle rotation by ``angle`` turns at all (its axis means something)."""
    return abs(math.sin(angle / 2)) >= _NO_TURN


def local_channel_values(obj: bpy.types.Object, local: np.ndarray) -> dict[str, np.ndarray]:
    """The transform channels of ``obj`` that give the local matrices ``local``.

    Args:
        local: (N, 4, 4) matrices in the object's parent space (what its own channels compose to).

    Returns:
        ``{"location": (N, 3), <rotation property of its mode>: (N, 3 or 4), "scale": (N, 3)}``, the rotation
        in the object's own rotation mode and continuous over the frames (no quaternion sign flips, no Euler
        jumps of 2 pi).
    """
    mode = obj.rotation_mode
    loc: list[tuple[float, ...]] = []
    rot: list[tuple[float, ...]] = []
    scl: list[tuple[float, ...]] = []
    previous = obj.rotation_euler.copy() if mode not in {"QUATERNION", "AXIS_ANGLE"} else None
    last_quat = None
    last_axis_angle: tuple[float, Vector] | None = None
    for m in local:
        t, q, s = Matrix(m.tolist()).decompose()
        loc.append(tuple(t[:]))
        scl.append(tuple(s[:]))
        if mode in {"QUATERNION", "AXIS_ANGLE"}:
            if last_quat is not None and last_quat.dot(q) < 0:
                q.negate()
            last_quat = q
        if mode == "QUATERNION":
            rot.append(tuple(q[:]))
        elif mode == "AXIS_ANGLE":
            axis, angle = q.to_axis_angle()
            if last_axis_angle is not None:
                # Of the equivalent values (angle + 2k pi about the axis, or minus that about the opposite
                # axis) take the nearest to the last frame's, or the keys turn the long way round in between.
                last_angle, last_axis = last_axis_angle
                if not _turns(angle):  # no rotation: any axis will do, keep the last one
                    axis = last_axis.copy()
                elif axis.dot(last_axis) < 0:
                    axis, angle = -axis, -angle
                angle += 2 * math.pi * round((last_angle - angle) / (2 * math.pi))
            last_axis_angle = (angle, axis)
            rot.append((angle, *axis))
        else:
            e = q.to_euler(mode, previous)
            previous = e
            rot.append(tuple(e[:]))
    if mode == "AXIS_ANGLE":
        # The frames before the first turn have no axis of their own: they take that turn's, or the keys between
        # the last of them and the turn would swing the axis over (off the target's motion between frames).
        turning = next((i for i, r in enumerate(rot) if _turns(r[0])), 0)
        rot[:turning] = [(r[0], *rot[turning][1:]) for r in rot[:turning]]
    rot_path, _size = rotation_property(mode)
    return {"location": np.array(loc), rot_path: np.array(rot), "scale": np.array(scl)}


def conversion_frames(context: bpy.types.Context, obj: bpy.types.Object) -> np.ndarray:
    """Every frame of the scene's range (the preview range when it is on) and of the object's keys, with
    any subframe keys kept."""
    scene = context.scene
    preview = scene.use_preview_range
    start = scene.frame_preview_start if preview else scene.frame_start
    end = scene.frame_preview_end if preview else scene.frame_end
    keyed = keyed_frames(obj)
    if len(keyed):
        start, end = min(start, int(np.floor(keyed[0]))), max(end, int(np.ceil(keyed[-1])))
    return np.union1d(np.arange(start, end + 1, dtype=np.float64), keyed)


def reparent_keep_motion(context: bpy.types.Context, target: bpy.types.Object, parent: bpy.types.Object | None,
                         bone: str) -> int:
    """Parent ``target`` to ``parent`` (and ``bone``), converting its keys so its world motion is unchanged.

    The motion is kept on every frame of :func:`conversion_frames`. A target without keys whose place in the
    new parent's space does not change is placed once; otherwise every channel is keyed (linear) wherever it
    moves.

    Args:
        parent: the new parent, or None for world space.
        bone: a bone of ``parent`` to parent to, or "" for the object itself.

    Returns:
        The number of frames converted.
    """
    frames = conversion_frames(context, target)
    animated = len(keyed_frames(target)) > 0
    world = sampling.sample_world_matrices(context, [(target, None)], frames)[0]
    parent_world = _parent_matrices(context, parent, bone, frames)
    local = invert_matrices(parent_world) @ world
    still = float(np.abs(local - local[0]).max()) <= 1e-9 * max(1.0, float(np.abs(local[0]).max()))

    target.parent = parent
    if parent is not None:
        target.parent_type = "BONE" if bone else "OBJECT"
        target.parent_bone = bone
    target.matrix_parent_inverse = Matrix.Identity(4)
    if not animated and still:
        target.matrix_basis = Matrix(local[0].tolist())
        return 1
    values = local_channel_values(target, local)
    start, end = float(frames[0]), float(frames[-1])
    for path, vals in values.items():
        for i in range(vals.shape[1]):
            fc = anim_keys.ensure_fcurve(target, path, i, "Object Transforms")
            needed = essential_keys(vals[:, i])
            anim_keys.write_keys(fc, frames[needed], vals[needed, i], start=start, end=end, interpolation="LINEAR")
    return len(frames)
