"""The F-curve path: world and pose matrices composed from F-curve channels and rest matrices.

Channels come from :class:`.channels.ChannelSampler` (every curve a composition reads evaluated in one pass
first, :meth:`Composer.prefetch`); anything unanimated is one row. Exact for what
:func:`.eligibility.fcurve_only_reason` lets through.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Sequence
from typing import Any

import numpy as np

from ...solver.rotations import rotation_property
from ...solver.spaces import compose_matrices, invert_matrices, rotation_matrices
from .. import anim_keys
from .channels import LARGE_ACTION_KEYS, ChannelSampler
from .eligibility import acting

__all__ = ["COMPOSE_BLOCK", "LARGE_ACTION_KEYS", "ChannelSampler", "Composer", "compose_request", "iter_pose_bases",
           "iter_pose_channels", "sample_channels", "sample_fcurves", "transform_fcurves"]


def _channel_values(sampler: ChannelSampler, block: slice, id_block: Any, owner: Any, prefix: str,
                    known: dict[int, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """The transform channels of an object or pose bone ``owner`` of ``id_block`` over ``block``.

    Read from the object's F-curves (and an object's frame-only drivers, which override them), current values
    elsewhere.

    Args:
        block: the frames wanted, a slice of the sampler's.
        prefix: the owner's data path prefix (``""`` or ``'pose.bones["name"].'``).
        known: F-curve pointer -> values at every frame of the sampler's, standing in for reading a curve whose
            values at those frames are known exactly (a bake's own, just written).

    Returns:
        ``{"location", rotation property of its mode, "scale": (N, k), or (1, k) when nothing of it moves}``.
    """
    fcurves = sampler.live_fcurves(id_block)
    # Only object channels take frame drivers (eligibility steps a bone with a driver on the way).
    drivers = sampler.frame_drivers(id_block) if not prefix else {}
    rot_path, _size = rotation_property(owner.rotation_mode)
    n = len(range(*block.indices(sampler.frames.size)))
    channels = {}
    for prop in ("location", rot_path, "scale"):
        # A channel without F-curves stays one row: compose_matrices broadcasts it (no per-frame rotation math
        # for a constant rotation).
        live = fcurves.get(prefix + prop, ())
        driven = drivers.get(prop, ())
        # A tuple of the current value first: numpy reads a mathutils value item by item (~3 µs on 4.2).
        values = np.array([getattr(owner, prop)[:]], dtype=np.float64)
        if live or driven:
            values = np.repeat(values, n, axis=0)
        for fc in live:
            if fc.array_index < values.shape[1]:
                given = None if known is None or len(fc.modifiers) else known.get(fc.as_pointer())
                values[:, fc.array_index] = (sampler.values(id_block.animation_data, fc) if given is None
                                             else given)[block]
        for fc in driven:  # after the action's curves: Blender evaluates drivers last
            if fc.array_index < values.shape[1]:
                values[:, fc.array_index] = sampler.driven(fc, id_block)[block]
        channels[prop] = values
    return channels


def transform_fcurves(sampler: ChannelSampler, owners: Sequence[tuple[Any, Any, str]]) -> list[Any]:
    """The F-curves :func:`_channel_values` reads for each ``(id_block, owner, prefix)``: location, the owner's
    rotation mode's property and scale."""
    out: list[Any] = []
    for id_block, owner, prefix in owners:
        fcurves = sampler.live_fcurves(id_block)
        if not fcurves:
            continue
        rot_path, _size = rotation_property(owner.rotation_mode)
        for prop in ("location", rot_path, "scale"):
            out += fcurves.get(prefix + prop, ())
    return out


def _channels(sampler: ChannelSampler, block: slice, id_block: Any, owner: Any, prefix: str) -> np.ndarray:
    """``matrix_basis`` of an object or pose bone ``owner``: (N, 4, 4), or (1, 4, 4) when nothing moves."""
    mode = owner.rotation_mode
    channels = _channel_values(sampler, block, id_block, owner, prefix)
    return compose_matrices(channels["location"], channels[rotation_property(mode)[0]], channels["scale"], mode)


class Composer:
    """World matrices of objects and pose bones composed from F-curves (see :func:`fcurve_only_reason` for
    when that is exact), over the frames ``block`` of the sampler's. Each object's and bone's matrices are
    computed once; unanimated ones are one row.

    Args:
        given: world matrices ``(len(sampler.frames), 4, 4)`` of objects stepped in a scene, used as they are
            (the parents and Child Of targets ``fcurve_only_reason(..., given=...)`` took as given).
    """

    def __init__(self, sampler: ChannelSampler, block: slice, given: dict[Any, np.ndarray] | None = None) -> None:
        self.sampler = sampler
        self.block = block
        self.world: dict[Any, np.ndarray] = {obj: m[block] for obj, m in (given or {}).items()}
        self.pose: dict[tuple[Any, str], np.ndarray] = {}

    def prefetch(self, requests: Sequence[tuple[Any, str | None, str]]) -> None:
        """Evaluate every transform curve composing ``requests`` will read in one :meth:`ChannelSampler.prefetch`
        pass: the objects, bones, parents and Child Of targets :meth:`object_world` and :meth:`bone_pose` visit."""
        seen: set[tuple[Any, str | None]] = set()
        owners: list[tuple[Any, Any, str]] = []

        def visit_object(obj: Any) -> None:
            if obj in self.world or (obj, None) in seen:
                return
            seen.add((obj, None))
            owners.append((obj, obj, ""))
            if obj.parent is not None:
                visit_object(obj.parent)
                if obj.parent_type == "BONE":
                    visit_bone(obj.parent, obj.parent_bone)
            for con in acting(obj.constraints):
                visit_object(con.target)
                if con.subtarget:
                    visit_bone(con.target, con.subtarget)

        def visit_bone(obj: Any, name: str) -> None:
            bone = obj.data.bones[name]
            while bone is not None and (obj, bone.name) not in seen:
                seen.add((obj, bone.name))
                owners.append((obj, obj.pose.bones[bone.name], anim_keys.pose_bone_path(bone.name) + "."))
                bone = bone.parent

        for obj, bone, kind in requests:
            if bone is None or kind != "ARMATURE":
                visit_object(obj)
            if bone is not None:
                visit_bone(obj, bone)
        self.sampler.prefetch(transform_fcurves(self.sampler, owners))

    def compose_roots(self, requests: Sequence[tuple[Any, int]], out: np.ndarray) -> set[Any]:
        """Write the world matrices of the requested objects ``(obj, row of out)`` that have no parent and no
        acting constraint (their world matrix is their basis) into ``out[row, block]``.

        Objects of one rotation mode and channel shape (which channels move) are composed in one pass, with
        the operations :func:`solver.spaces.compose_matrices` applies to each (elementwise, so the same bits).

        Returns:
            The objects written (later requests read their matrices from the composer).
        """
        groups: dict[tuple[str, int, int, int], list[tuple[Any, int, dict[str, np.ndarray]]]] = {}
        for obj, row in requests:
            if obj in self.world or obj.parent is not None or acting(obj.constraints):
                continue
            channels = _channel_values(self.sampler, self.block, obj, obj, "")
            mode = obj.rotation_mode
            rot_path = rotation_property(mode)[0]
            shape = (mode, len(channels["location"]), len(channels[rot_path]), len(channels["scale"]))
            groups.setdefault(shape, []).append((obj, row, channels))
        done: set[Any] = set()
        for (mode, *lengths), members in groups.items():
            rot_path = rotation_property(mode)[0]
            rot = np.stack([ch[rot_path] for _obj, _row, ch in members])
            scale = np.stack([ch["scale"] for _obj, _row, ch in members])
            linear = rotation_matrices(rot.reshape(-1, rot.shape[2]), mode).reshape(*rot.shape[:2], 3, 3)
            linear = linear * scale[:, :, None, :]
            moving = max(lengths) > 1
            for j, (obj, row, channels) in enumerate(members):
                # Written in place: the crowd's matrices are most of the memory this touches.
                target = out[row, self.block]
                location = channels["location"]
                if linear.shape[1] == 1:  # one matrix, its translation moving or not
                    still = np.zeros((4, 4))
                    still[:3, :3] = linear[j, 0]
                    still[:3, 3] = location[0]
                    still[3, 3] = 1.0
                    target[...] = still
                    if len(location) > 1:
                        target[:, :3, 3] = location
                else:
                    target[:, :3, :3] = linear[j]
                    target[:, :3, 3] = location
                    target[:, 3, :3] = 0.0
                    target[:, 3, 3] = 1.0
                self.world[obj] = target if moving else target[:1]
                done.add(obj)
        return done

    def object_world(self, obj: Any) -> np.ndarray:
        """(N or 1, 4, 4) ``matrix_world``."""
        if obj not in self.world:
            local = _channels(self.sampler, self.block, obj, obj, "")
            if obj.parent is not None:
                parent = self.object_world(obj.parent)
                if obj.parent_type == "BONE":
                    # Blender parents to the bone's tail: its pose matrix moved to the posed tail.
                    tail = np.array(self.bone_pose(obj.parent, obj.parent_bone))
                    length = obj.parent.data.bones[obj.parent_bone].length
                    tail[:, :3, 3] += length * tail[:, :3, 1]
                    parent = parent @ tail
                local = parent @ (np.array(obj.matrix_parent_inverse, dtype=np.float64) @ local)
            for con in acting(obj.constraints):  # plain Child Of only (fcurve_only_reason)
                target = self.object_world(con.target)
                if con.subtarget:
                    target = target @ self.bone_pose(con.target, con.subtarget)
                local = target @ (np.array(con.inverse_matrix, dtype=np.float64) @ local)
            self.world[obj] = local
        return self.world[obj]

    def bone_pose(self, obj: Any, name: str) -> np.ndarray:
        """(N or 1, 4, 4) armature-space ``pose_bone.matrix``: parent pose @ rest offset @ basis."""
        key = (obj, name)
        if key not in self.pose:
            bone = obj.data.bones[name]
            pb = obj.pose.bones[name]
            prefix = anim_keys.pose_bone_path(name) + "."
            basis = _channels(self.sampler, self.block, obj, pb, prefix)
            if bone.use_connect:
                basis[:, :3, 3] = 0.0  # a connected bone's location channel is ignored
            rest = np.array(bone.matrix_local, dtype=np.float64)
            if bone.parent is None:
                pose = rest @ basis
            else:
                # Closed-form inverse: LAPACK's costs milliseconds per call on a busy machine (thread start-up).
                offset = invert_matrices(np.array(bone.parent.matrix_local, dtype=np.float64)[None])[0] @ rest
                # Parent first: an unanimated parent is one row, so only one product per frame remains.
                pose = (self.bone_pose(obj, bone.parent.name) @ offset) @ basis
            self.pose[key] = pose
        return self.pose[key]


# Frames composed at a time: the matrix products' temporaries stay a few MB however long the range is.
COMPOSE_BLOCK = 8192


def sample_fcurves(
    requests: list[tuple[Any, str | None, str]], frames: np.ndarray, out: np.ndarray, idx: list[int],
    given: dict[Any, np.ndarray] | None = None,
) -> None:
    """Compose ``requests`` from F-curves into ``out[idx]`` (``given``: see :class:`Composer`)."""
    sampler = ChannelSampler(frames)
    try:
        Composer(sampler, slice(None), given).prefetch(requests)
        for first in range(0, frames.size, COMPOSE_BLOCK):
            block = slice(first, first + COMPOSE_BLOCK)
            composer = Composer(sampler, block, given)
            done = composer.compose_roots([(obj, i) for (obj, bone, _kind), i in zip(requests, idx, strict=True)
                                           if bone is None], out)
            for (obj, bone, kind), i in zip(requests, idx, strict=True):
                if bone is not None or obj not in done:
                    compose_request(composer, obj, bone, kind, out[i, block])
    finally:
        sampler.close()


def compose_request(composer: Any, obj: Any, bone: str | None, kind: str, out: np.ndarray) -> None:
    """Write one request's matrices for the composer's block into ``out``.

    That is the object's world matrix, a pose bone's armature-space matrix (``ARMATURE``) or its world matrix.
    """
    if bone is None:
        out[...] = composer.object_world(obj)
    elif kind == "ARMATURE":
        out[...] = composer.bone_pose(obj, bone)
    else:
        np.matmul(composer.object_world(obj), composer.bone_pose(obj, bone), out=out)


def iter_pose_bases(
    obj: Any, bones: Sequence[str], frames: Sequence[float] | np.ndarray, *, block: int = COMPOSE_BLOCK,
) -> Generator[tuple[slice, dict[str, np.ndarray]], None, None]:
    """``matrix_basis`` of pose bones ``bones`` of ``obj`` from its F-curves, in blocks of frames.

    Current values where unanimated; exact for what :func:`fcurve_only_reason` lets through. Consume it to the
    end (or close it) so copies are removed.

    Returns:
        A generator of ``(rows, {bone: (len(frames[rows]) or 1, 4, 4)})``.
    """
    with contextlib.closing(iter_pose_channels(obj, bones, frames, block=block)) as blocks:
        for rows, channels in blocks:
            yield rows, {name: compose_matrices(ch["location"], ch[rotation_property(mode)[0]], ch["scale"], mode)
                         for name, (mode, ch) in channels.items()}


def iter_pose_channels(
    obj: Any, bones: Sequence[str], frames: Sequence[float] | np.ndarray, *, block: int = COMPOSE_BLOCK,
    known: dict[int, np.ndarray] | None = None,
) -> Generator[tuple[slice, dict[str, tuple[str, dict[str, np.ndarray]]]], None, None]:
    """The channels behind :func:`iter_pose_bases`, in blocks of frames.

    Args:
        known: F-curve pointer -> float32 values at every one of ``frames``, used instead of reading that curve
            (when it has no modifiers).

    Returns:
        A generator of ``(rows, {bone: (rotation_mode, {"location", rotation property, "scale":
        (len(frames[rows]) or 1, k)})})``.
    """
    frames_arr = np.asarray(frames, dtype=np.float64).reshape(-1)
    sampler = ChannelSampler(frames_arr)
    prefixes = {name: anim_keys.pose_bone_path(name) + "." for name in bones}
    try:
        sampler.prefetch([fc for fc in transform_fcurves(sampler, [(obj, obj.pose.bones[name], prefixes[name])
                                                                   for name in bones])
                          if known is None or fc.as_pointer() not in known or len(fc.modifiers)])
        for first in range(0, frames_arr.size, block):
            rows = slice(first, min(first + block, frames_arr.size))
            out = {}
            for name in bones:
                pb = obj.pose.bones[name]
                out[name] = (pb.rotation_mode, _channel_values(sampler, rows, obj, pb, prefixes[name], known))
            yield rows, out
    finally:
        sampler.close()


# Up to this many frames (Solve, the live preview's handler) channels are evaluated in place: no scratch action
# is created, which inside a depsgraph handler would trigger another update.
EVALUATE_FRAMES = 16


def sample_channels(id_block: Any, channels: Sequence[tuple[str, int]],
                    frames: Sequence[float] | np.ndarray) -> list[np.ndarray | None]:
    """Each ``(data_path, index)`` channel of ``id_block`` at ``frames`` (its action's time).

    Returns:
        Per channel, its values from the F-curve the animation system applies, ``(N,)`` float64 (float32
        precision, as Blender evaluates); None where no curve does.
    """
    frames_arr = np.asarray(frames, dtype=np.float64).reshape(-1)
    sampler = ChannelSampler(frames_arr)
    try:
        live_curves = sampler.live_fcurves(id_block)
        curves = [next((f for f in live_curves.get(path, ()) if f.array_index == index), None)
                  for path, index in channels]
        if frames_arr.size > EVALUATE_FRAMES:
            sampler.prefetch([fc for fc in curves if fc is not None])
        out: list[np.ndarray | None] = []
        for fc in curves:
            if fc is None:
                out.append(None)
            elif frames_arr.size <= EVALUATE_FRAMES:
                out.append(np.array([fc.evaluate(f) for f in frames_arr.tolist()], dtype=np.float64))
            else:
                out.append(np.asarray(sampler.values(id_block.animation_data, fc), dtype=np.float64))
        return out
    finally:
        sampler.close()
