"""F-curve channels at a bake's frames: many curves at once with :mod:`.keyframes`, others through Blender.

Transform channels whose keys :mod:`.keyframes` evaluates (constant, linear and Bezier segments, no modifiers)
are evaluated all at once with Blender's arithmetic; other curves are read straight from their keys when every
segment is linear or constant (no modifiers, constant extrapolation), else sampled from a temporary copy of the
curve (of its whole action when it has modifiers) with ``convert_to_samples``, or with ``FCurve.evaluate`` at
subframes. Frame drivers (:mod:`.drivers`) are evaluated over the channels they read.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import bpy
import numpy as np

from .. import anim_keys
from . import keyframes
from .drivers import driver_values, frame_driver_reason, variable_channel
from .eligibility import action_fcurves, live

# Frames evaluated at a time by :func:`.keyframes.evaluate`.
EVALUATE_BLOCK = 16384
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
        if self.times is None or not keyframes.trusted():
            return
        todo = list({fc.as_pointer(): fc for fc in fcurves if fc.as_pointer() not in self.cache}.values())
        if not todo:
            return
        keys, covered = keyframes.read(todo)
        # A long range in blocks: the evaluation's temporaries stay a few MB (the rows kept are float32).
        rows = np.concatenate([keyframes.evaluate(keys, self.times[first:first + EVALUATE_BLOCK])
                               for first in range(0, max(self.times.size, 1), EVALUATE_BLOCK)], axis=1)
        evaluated = [fc for fc, ok in zip(todo, covered, strict=True) if ok]
        if not keyframes.spot_check(evaluated, self.times, rows):
            return  # this Blender's arithmetic differs: everything is left to Blender from now on
        for fc, row in zip(evaluated, rows, strict=True):
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
