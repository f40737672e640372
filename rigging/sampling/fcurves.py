"""The F-curve path: world and pose matrices composed from F-curve channels and rest matrices.

Transform channels whose keys :mod:`.keyframes` evaluates (constant, linear and Bezier segments, no modifiers)
are evaluated all at once with Blender's arithmetic; other curves are read straight from their keys when every
segment is linear or constant (no modifiers, constant extrapolation), else sampled from a temporary copy of the
curve (of its whole action when it has modifiers) with ``convert_to_samples``; anything unanimated is one row.
Exact for what :func:`.eligibility.fcurve_only_reason` lets through.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Generator, Sequence
from typing import Any

import bpy
import numpy as np

from ...solver.rotations import rotation_property
from ...solver.spaces import compose_matrices, invert_matrices
from .. import anim_keys
from . import keyframes
from .drivers import driver_values, frame_driver_reason, variable_channel
from .eligibility import acting, action_fcurves, live

# Keys in an action above which its curves are copied one at a time for sampling rather than all at once.
LARGE_ACTION_KEYS = 200_000


class ChannelSampler:
    """Samples F-curves at the requested frames: many curves at once with :mod:`.keyframes`, the others through
    temporary action copies (integer frames) or ``FCurve.evaluate``."""

    def __init__(self, frames: np.ndarray) -> None:
        self.frames = frames
        self.integral = bool(np.all(np.isfinite(frames)) and np.all(frames == np.round(frames)))
        finite = np.isfinite(frames)
        # Blender evaluates at the frame as a float (FCurve.evaluate's argument, convert_to_samples' frames).
        with np.errstate(over="ignore"):
            times = frames[finite].astype(np.float32)
        self.finite = None if finite.all() else finite
        self.times: np.ndarray | None = times if np.isfinite(times).all() else None
        self.copies: dict[Any, Any] = {}
        self.scratch: tuple[Any, Any] | None = None  # (action, F-curve owner) holding one curve copy at a time
        self.large: dict[Any, bool] = {}
        self.cache: dict[int, np.ndarray] = {}
        self.fcurves: dict[Any, dict[str, list[Any]]] = {}
        self.drivers: dict[Any, dict[str, list[Any]]] = {}

    def live_fcurves(self, obj: Any) -> dict[str, list[Any]]:
        """The F-curves the animation system applies to ``obj``, by data path."""
        if obj not in self.fcurves:
            by_path: dict[str, list[Any]] = {}
            for fc in action_fcurves(obj) or []:
                if live(fc):
                    by_path.setdefault(fc.data_path, []).append(fc)
            self.fcurves[obj] = by_path
        return self.fcurves[obj]

    def frame_drivers(self, obj: Any) -> dict[str, list[Any]]:
        """The object's transform drivers that :mod:`.drivers` evaluates, by data path;
        they override the action's curves of the same channels, as in Blender's evaluation."""
        if obj not in self.drivers:
            by_path: dict[str, list[Any]] = {}
            ad = obj.animation_data
            for fc in ad.drivers if ad is not None else ():
                if frame_driver_reason(fc, obj) is None:
                    by_path.setdefault(fc.data_path, []).append(fc)
            self.drivers[obj] = by_path
        return self.drivers[obj]

    def driven(self, fcurve: Any, owner: Any) -> np.ndarray:
        """:func:`.drivers.driver_values` of a driver of ``owner`` at the sampler's frames, once per driver."""
        key = fcurve.as_pointer()
        if key not in self.cache:
            variables = {}
            for var in fcurve.driver.variables:
                channel = variable_channel(var, owner)
                assert channel is not None  # eligibility let only readable variables through
                variables[var.name] = self.channel(*channel)
            self.cache[key] = driver_values(fcurve, self.frames, variables)
        return self.cache[key]

    def channel(self, obj: Any, path: str, index: int) -> np.ndarray:
        """What property ``path[index]`` of ``obj`` holds at the sampler's frames, (N,) float32: its frame
        driver's value, else its F-curve's, else its current value."""
        for fc in self.frame_drivers(obj).get(path, ()):
            if fc.array_index == index:
                return self.driven(fc, obj)
        for fc in self.live_fcurves(obj).get(path, ()):
            if fc.array_index == index:
                return self.values(obj.animation_data, fc)
        value = obj[path[2:-2]] if path.startswith("[") else getattr(obj, path)[index]
        return np.full(self.frames.shape, value, dtype=np.float32)

    def values(self, anim_data: Any, fcurve: Any) -> np.ndarray:
        """:meth:`sample`, once per F-curve (float32, what keys and Blender's evaluation hold anyway: half the
        memory of a long range)."""
        key = fcurve.as_pointer()
        if key not in self.cache:
            self.prefetch([fcurve])
        if key not in self.cache:
            self.cache[key] = self.sample(anim_data, fcurve).astype(np.float32)
        return self.cache[key]

    def prefetch(self, fcurves: Sequence[Any]) -> None:
        """Evaluate, in one :func:`.keyframes.evaluate` pass, those of ``fcurves`` it covers and that are not
        cached yet (the others are left to :meth:`sample`)."""
        if self.times is None:
            return
        todo = list({fc.as_pointer(): fc for fc in fcurves if fc.as_pointer() not in self.cache}.values())
        if not todo:
            return
        keys, covered = keyframes.read(todo)
        rows = keyframes.evaluate(keys, self.times)
        for fc, row in zip([fc for fc, ok in zip(todo, covered, strict=True) if ok], rows, strict=True):
            if self.finite is not None:
                full = np.full(self.frames.shape, np.nan, dtype=np.float32)
                full[self.finite] = row
                row = full
            self.cache[fc.as_pointer()] = row

    def _copy_fcurve(self, anim_data: Any, fcurve: Any) -> Any:
        action = anim_data.action
        copy = self.copies.get(action)
        if copy is None:
            copy = action.copy()
            self.copies[action] = copy
        handle = anim_data.action_slot.handle if anim_keys.LAYERED_ACTIONS else 0
        found = anim_keys.find_fcurve_in(copy, handle, fcurve.data_path, fcurve.array_index)
        if found is None:
            raise RuntimeError(f"F-curve {fcurve.data_path}[{fcurve.array_index}] missing in the action copy")
        return found

    def sample(self, anim_data: Any, fcurve: Any) -> np.ndarray:
        """``fcurve`` at the sampler's frames, float64 ``(N,)`` of float32 values.

        Subframes are read with ``FCurve.evaluate`` per frame; integer frames straight from linear or constant
        keys, else from a copy's ``convert_to_samples`` (modifiers and extrapolation included).
        """
        if not self.integral:
            return np.array(
                [fcurve.evaluate(f) if math.isfinite(f) else math.nan for f in self.frames.tolist()],
                dtype=np.float64,
            )
        piecewise = _piecewise_linear(fcurve, self.frames)
        if piecewise is not None:
            return piecewise
        start = int(self.frames.min())
        end = int(self.frames.max())
        # In a large action a curve without modifiers is copied alone: a copy of the whole action would hold a
        # second copy of every curve in it at once (a long bake's dense curves, tens of MB). A small action is
        # copied whole, once: that is faster than copying its curves key by key.
        single = len(fcurve.modifiers) == 0 and self._large(anim_data.action)
        fc = self._scratch_fcurve(fcurve) if single else self._copy_fcurve(anim_data, fcurve)
        try:
            fc.convert_to_samples(start, end + 1)  # end is exclusive
            co = np.empty(2 * len(fc.sampled_points), dtype=np.float32)
            fc.sampled_points.foreach_get("co", co)
        finally:
            if single and self.scratch is not None:
                self.scratch[1].fcurves.remove(fc)
        values = co[1::2].astype(np.float64)
        return values[(self.frames - start).astype(np.int64)]

    def _large(self, action: Any) -> bool:
        if action not in self.large:
            curves = anim_keys.all_fcurves(action)
            self.large[action] = sum(len(fc.keyframe_points) for fc in curves) > LARGE_ACTION_KEYS
        return self.large[action]

    def _scratch_fcurve(self, fcurve: Any) -> Any:
        if self.scratch is None:
            self.scratch = anim_keys.scratch_action(".soft_ik_sampling")
        copy = self.scratch[1].fcurves.new(fcurve.data_path, index=fcurve.array_index)
        anim_keys.copy_keys(fcurve, copy)
        return copy

    def close(self) -> None:
        """Remove the action copies and the scratch action."""
        for copy in self.copies.values():
            _remove_action(copy)
        self.copies.clear()
        if self.scratch is not None:
            _remove_action(self.scratch[0])
            self.scratch = None


def _remove_action(action: Any) -> None:
    """Remove a temporary action; one nothing uses skips Blender's search of the file for its users (do_unlink),
    ~50-300 µs per action in a crowd's file."""
    bpy.data.actions.remove(action, do_unlink=action.users > 0)


def _piecewise_linear(fcurve: Any, frames: np.ndarray) -> np.ndarray | None:
    """``fcurve`` at integer ``frames`` straight from its keys, or None when it is not a linear/constant curve.

    Applies when every segment is linear or constant, the curve has no modifiers and constant extrapolation (a
    bake's own curves): no copy, no Blender call per frame.
    """
    count = len(fcurve.keyframe_points)
    if len(fcurve.modifiers) or fcurve.extrapolation != "CONSTANT" or count == 0:
        return None
    if count > 1:
        # The interpolations first (one int per key): a Bezier curve, the common case, is rejected without
        # reading its keys' coordinates.
        interpolation = anim_keys.read_keys_attribute(fcurve, "interpolation")[:-1]  # the last key's is unused
        linear, constant = _interpolation_ids()
        held = interpolation == constant
        if not (held | (interpolation == linear)).all():
            return None
    co = anim_keys.read_keys_attribute(fcurve, "co").astype(np.float64)
    x, y = co[:, 0], co[:, 1]
    if count == 1:
        return np.full(frames.shape, y[0])
    if not (np.diff(x) > 0).all():
        return None
    values = np.interp(frames, x, y)
    if held.any():
        # A constant segment holds its first key's value up to (not including) the next key.
        segment = np.searchsorted(x, frames, side="right") - 1
        inside = (segment >= 0) & (segment < len(held))
        step = np.zeros(frames.shape, dtype=bool)
        step[inside] = held[segment[inside]]
        values = np.where(step, y[np.clip(segment, 0, len(x) - 1)], values)
    # Blender interpolates in float32: so does this, within its rounding.
    return values.astype(np.float32).astype(np.float64)


@functools.cache
def _interpolation_ids() -> tuple[int, int]:
    """RNA values of the LINEAR and CONSTANT key interpolations (looked up once: an RNA enum walk per curve
    cost more than reading a short curve's keys)."""
    items = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items
    return int(items["LINEAR"].value), int(items["CONSTANT"].value)


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
        values = np.tile(np.array(getattr(owner, prop), dtype=np.float64), (n if live or driven else 1, 1))
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
    out = []
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
            while name is not None and (obj, name) not in seen:
                seen.add((obj, name))
                owners.append((obj, obj.pose.bones[name], anim_keys.pose_bone_path(name) + "."))
                parent = obj.data.bones[name].parent
                name = parent.name if parent is not None else None

        for obj, bone, kind in requests:
            if bone is None or kind != "ARMATURE":
                visit_object(obj)
            if bone is not None:
                visit_bone(obj, bone)
        self.sampler.prefetch(transform_fcurves(self.sampler, owners))

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
            for (obj, bone, kind), i in zip(requests, idx, strict=True):
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
        out: list[np.ndarray | None] = []
        for path, index in channels:
            fc = next((f for f in live_curves.get(path, ()) if f.array_index == index), None)
            if fc is None:
                out.append(None)
            elif frames_arr.size <= EVALUATE_FRAMES:
                out.append(np.array([fc.evaluate(f) for f in frames_arr.tolist()], dtype=np.float64))
            else:
                out.append(np.asarray(sampler.values(id_block.animation_data, fc), dtype=np.float64))
        return out
    finally:
        sampler.close()
