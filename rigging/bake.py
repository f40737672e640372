"""Bake chains to keys: sample the targets over a frame range, solve, and write only the keys the bake owns.

Everything is checked and solved before the first key is written, so a chain that cannot be baked leaves the
file as it was.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import bpy
import numpy as np

from ..solver.chain_channels import ChannelValues
from ..solver.chain_description import ERROR_PROP, FLAGS_PROP
from ..solver.rotations import rotation_property
from . import (
    anim_keys,
    bake_records,
    chain_checks,
    chain_solve,
    fk_blend,
    key_target,
    replaced_keys,
    sampling,
    verification,
)
from . import messages as msg
from .bake_prepare import prepare as prepare  # the checks before a bake, re-exported: bake.prepare as before
from .bake_prepare import prepare_armature as prepare_armature
from .bake_prepare import prepare_each as prepare_each
from .bake_report import ChainReport as ChainReport  # what a bake reports, re-exported as before
from .bake_report import frame_list as frame_list
from .bake_report import store_report as store_report
from .chain_solve import ChainSamples, ChainSolution, channel_values
from .messages import say
from .rig import ChainRig

# Channels a bake holds at rest over its range when an earlier bake of the chain keyed them and this one does not
# (a partial re-bake after Stretch or Move Root): what the solve assumes of a channel the chain does not own.
HELD_PROPS = ("location", "scale")


@functools.lru_cache(maxsize=4096)
def bone_path(bone: str, prop: str) -> str:
    """Data path of a pose bone's property ``prop``; the add-on's own (``soft_ik_*``) are custom properties.

    Cached (a path depends on the two names alone): a bake builds each of its paths several times per chain.
    """
    return anim_keys.pose_bone_path(bone, f'["{prop}"]' if prop.startswith("soft_ik") else prop)


def _requests(rigs: Sequence[ChainRig]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Everything the chains depend on, each once, and per chain the indices of its armature, target, parent
    bone, pole and upper bone pose (armature space, when its location is an input; None when absent) in that
    list."""
    requests: list[tuple[Any, ...]] = []
    index: dict[tuple[Any, ...], int] = {}

    def want(obj: bpy.types.Object, bone: str | None = None) -> int:
        key = (obj.name, bone)
        if key not in index:
            index[key] = len(requests)
            requests.append((obj, bone))
        return index[key]

    plan = [(want(rig.armature), want(rig.chain.target),
             want(rig.armature, rig.parent_name) if rig.parent_name else None,
             want(rig.chain.pole) if rig.chain.pole is not None else None) for rig in rigs]
    # The upper bone's head, when its own location moves it: read as Blender evaluates it (drivers, NLA and a
    # connected bone's ignored location included), not from its F-curves.
    heads = [_want_pose(requests, index, rig.armature, rig.bone_names[0]) if chain_checks.upper_location_moves(rig)
             else None for rig in rigs]
    return requests, [(*p, h) for p, h in zip(plan, heads, strict=True)]


def _want_pose(requests: list[tuple[Any, ...]], index: dict[tuple[Any, ...], int], obj: bpy.types.Object,
              bone: str) -> int:
    """Index of the armature-space pose request of ``bone`` in ``requests`` (added once)."""
    key = (obj.name, bone, "ARMATURE")
    if key not in index:
        index[key] = len(requests)
        requests.append((obj, bone, "ARMATURE"))
    return index[key]


def sample_chains(context: bpy.types.Context, rigs: Sequence[ChainRig], frames: np.ndarray,
                  stepped: dict[str, str] | None = None) -> list[ChainSamples]:
    """World matrices of everything the chains depend on, sampled in one pass over the frames (``stepped``
    receives the inputs sampled by stepping a scene, name -> why: :func:`sampling.stepped_objects`)."""
    requests, plan = _requests(rigs)
    # One view per request, shared by every chain that asked for it: the solve then reads and checks an
    # armature's matrices once for all its chains (its memo is by array).
    matrices = list(sampling.sample_world_matrices(context, requests, frames, stepped=stepped))
    out = []
    for rig, (a, t, p, q, h) in zip(rigs, plan, strict=True):
        parent = None if p is None else matrices[p]
        chain_checks.check_parent_scale(rig, matrices[a], parent, frames)
        out.append(ChainSamples(armature=matrices[a], target=matrices[t], parent=parent,
                                pole=None if q is None else matrices[q],
                                upper_location=None if h is None else chain_checks.upper_location_of(
                                    rig, matrices[a], parent, matrices[h])))
    return out


def solve_chains(context: bpy.types.Context, rigs: Sequence[ChainRig], frames: np.ndarray,
                 stepped: dict[str, str] | None = None) -> list[ChainSolution]:
    """Sample and solve the chains over ``frames``, all in one pass; raises :class:`ChainError`.

    ``stepped`` receives the inputs the sampling steps a scene for (name -> why), from its own choice.
    """
    # Before any sampling or writing: every frame must have an action time to key (NLA tweak mode).
    for armature in {rig.armature for rig in rigs}:
        key_target.key_times(armature, frames)
    samples = sample_chains(context, rigs, frames, stepped)
    fps = context.scene.render.fps / context.scene.render.fps_base
    # Nothing a bake writes or reports reads the sensitivity or the solved target (only the overlay and panel do,
    # from the live preview's solve).
    solutions = chain_solve.solve_chains(rigs, frames, samples, fps=fps, sensitivity=False, solved_targets=False)
    # IK influence below 1 blends in the FK pose the bones' own keys give (fk_blend).
    return [fk_blend.blend(rig, sol) for rig, sol in zip(rigs, solutions, strict=True)]


# The Auto Handle Smoothing of a curve the bake creates, by its keys' interpolation. Linear and constant keys play
# no handle, and smoothing them is about half the cost of Blender's update of a long curve (a crowd bake's ~8 ms
# of ~70): their curves smooth none. A Bezier curve (a reduced bake) gets the preference for new curves, and so
# does the curve of a single key (Solve's): the keys the user adds by hand come next, and it costs nothing.
_NEW_CURVE_SMOOTHING = {"LINEAR": "NONE", "CONSTANT": "NONE"}


def essential_keys(values: np.ndarray) -> np.ndarray:
    """Mask of the keys a linear or constant curve needs.

    A key whose (float32, as stored) value equals both neighbours' lies on the line between them and is
    dropped, so a channel that holds still (a quaternion component that is always 0, a flag that never changes)
    costs two keys instead of one per frame. The first and last keys are always kept, so the curve outside the
    range is unaffected.

    Args:
        values: (n,) one curve's values per key, or (n, k) one column per curve.

    Returns:
        A bool mask of ``values``' shape.
    """
    v = values.astype(np.float32, copy=False)
    keep = np.ones_like(v, dtype=bool)  # in ``values``' memory layout: a column stays contiguous
    if len(v) > 2:
        changes = v[1:] != v[:-1]  # each step compared once: a key is kept where a step on either side changes
        np.logical_or(changes[1:], changes[:-1], out=keep[1:-1])
    return keep


def _value_before(fcurve: bpy.types.FCurve | None, frame: float) -> float | None:
    return None if fcurve is None or len(fcurve.keyframe_points) == 0 else fcurve.evaluate(frame)


def _rotation_modes(rig: ChainRig) -> list[str]:
    pose = rig.armature.pose.bones
    return [pose[name].rotation_mode for name in rig.bone_names]


def owned_channels(rig: ChainRig, modes: Sequence[str] | None = None) -> list[tuple[str, int]]:
    """(data path, array index) of every channel a bake of this chain writes with its current settings.

    Args:
        rig: the chain.
        modes: its bones' rotation modes, when the caller has read them already (None: read here).
    """
    return [(bone_path(bone, prop), i) for bone, prop, size in
            rig.owned_channels(_rotation_modes(rig) if modes is None else modes) for i in range(size)]


def _record_owned(chain: bpy.types.PropertyGroup, channels: Sequence[tuple[str, int]]) -> None:
    chain["baked_channels"] = "\n".join(f"{path}\t{index}" for path, index in channels)


def write_solution(rig: ChainRig, sol: ChainSolution, start: int, end: int,
                   interpolation: str = "LINEAR", records: bake_records.RecordsPass | None = None,
                   final_interpolation: str | None = None) -> verification.Keyed:
    """Write the solution's keys into scene frames [start, end]; keys outside it and other channels are untouched.

    Every curve of the chain is found or created in one pass and all of them are written in one call
    (:func:`anim_keys.write_columns`), then the keys are recorded for Clear (:mod:`bake_records`).

    Args:
        rig: the chain, checked by :func:`prepare`.
        sol: its solution over the range (invalid frames get no key).
        start, end: the baked range, scene frames (keys go to the action's time, NLA tweak mode included).
        interpolation: the transform channels' (a reduced bake may ask for BEZIER); the error and flags curves
            keep theirs.
        records: one per bake, shared by its chains (:class:`bake_records.RecordsPass`).
        final_interpolation: the transform channels' interpolation once the bake is done (a reduced bake
            rewrites these keys as Bezier), which decides a new curve's Auto Handle Smoothing
            (:data:`_NEW_CURVE_SMOOTHING`); None: ``interpolation``.

    Returns:
        What was written, for :func:`verify_written`.
    """
    obj = rig.armature
    pose = obj.pose.bones
    keep = sol.valid
    every = bool(keep.all())
    # Keys go where playback reads them: the action's own time (NLA tweak mode maps it), scene frames otherwise.
    tweaked = key_target.tweaked_strip(obj) is not None
    if not tweaked:  # scene frames are the action's (key_times would return them)
        frames, start_t, end_t = np.asarray(sol.frames, dtype=np.float64)[keep], float(start), float(end)
    else:
        frames = key_target.key_times(obj, sol.frames)[keep]
        start_t, end_t = (float(t) for t in key_target.key_times(obj, np.array([start, end], dtype=np.float64)))
    modes = _rotation_modes(rig)
    channels = owned_channels(rig, modes)
    action = anim_keys.ensure_action(obj)
    handle = anim_keys.slot_handle(obj)
    # The frames outside the range an earlier bake keyed (from the error curve, which this bake writes and finds
    # anyway: looked up here only when a dropped channel needs them before its keys in range go).
    error_path = bone_path(rig.bone_names[-1], ERROR_PROP)
    found: list[tuple[Sequence[float], Sequence[float]]] = []

    def edges_of(error_curve: Any = None) -> tuple[Sequence[float], Sequence[float]]:
        if not found:
            curve = error_curve if error_curve is not None else anim_keys.find_fcurve(obj, error_path)
            found.append(_baked_sides(obj, curve, start, end, tweaked))
        return found[0]

    replaced, held, pins = _remove_stale_channels(rig, action, handle, channels, start_t, end_t, edges_of)
    previous = _previous_rotations(obj, rig.bone_names, modes, start_t)
    lower = pose[rig.bone_names[-1]]
    # The curves animate custom properties: the properties must exist for playback to write them, on the
    # evaluated copy too. A property set from Python on an armature whose action already played is missing from
    # that copy until the object is tagged, and playback then leaves it at 0 while its curve holds the error.
    lower[ERROR_PROP] = 0.0
    lower[FLAGS_PROP] = 0
    obj.update_tag()
    blocks: list[tuple[ChannelValues, np.ndarray, Sequence[int]]] = []
    for channel in channel_values(rig, sol, modes, previous):
        rows = channel.values.reshape(len(sol.frames), -1)
        blocks.append((channel, rows, range(rows.shape[1])))
    for bone, prop, index in held:  # keyed at rest, recorded as this bake's keys: Clear gives the user's back
        rest = np.full((len(sol.frames), 1), bake_records.REST_VALUES[prop], dtype=np.float64)
        blocks.append((ChannelValues(bone, prop, rest), rest, [index]))
    # Every column of the chain in one float32 array, as stored: the essential keys and the verification's known
    # values compare float32 values, and one array costs one mask, one test of the keys needed and one write.
    columns: list[tuple[ChannelValues, int, str]] = []
    smoothing: list[str | None] = []
    for channel, rows, indices in blocks:
        transform = channel.prop not in (ERROR_PROP, FLAGS_PROP)
        shape = interpolation if transform else channel.interpolation
        columns += [(channel, i, shape) for i in indices]
        final = (final_interpolation or interpolation) if transform else channel.interpolation
        smoothing += [_NEW_CURVE_SMOOTHING.get(final) if end > start else None] * rows.shape[1]
    # One row per curve (each curve's keys contiguous: its mask and its copy for the verification are cheap);
    # ``stored`` is the (frames, curves) view the writing takes.
    by_curve = np.empty((len(columns), len(sol.frames)), dtype=np.float32)
    at = 0
    for _channel, rows, _indices in blocks:
        by_curve[at:at + rows.shape[1]] = rows.T
        at += rows.shape[1]
    if not every:
        by_curve = np.compress(keep, by_curve, axis=1)
    stored = by_curve.T
    # Every curve of the chain found or created in one pass, then written in one call.
    fcurves = anim_keys.ensure_fcurves(obj, [(bone_path(channel.bone, channel.prop), i, channel.bone)
                                             for channel, i, _shape in columns],
                                       smoothing)
    # The user's keys in range, before they are replaced: saved with the record for Clear (replaced_keys).
    curve_channels = [(channel.bone, channel.prop, i) for channel, i, _shape in columns]
    saved = replaced_keys.collect(obj, rig.chain, action, handle, curve_channels, fcurves, start_t, end_t)
    edges = edges_of(fcurves[curve_channels.index((rig.bone_names[-1], ERROR_PROP, 0))])
    for (bone, prop, i), fc in zip(curve_channels, fcurves, strict=True) if any(edges) else ():
        if (bone, prop, i) not in pins:  # a held channel's were read before its keys in range went
            static = pose[bone][prop] if prop in (ERROR_PROP, FLAGS_PROP) else getattr(pose[bone], prop)[i]
            pins[(bone, prop, i)] = anim_keys.edge_keys(fc, start_t, end_t, edges, float(static))
    cos = anim_keys.write_columns(fcurves, frames, stored, essential_keys(stored), start=start_t, end=end_t,
                                  interpolation=[shape for _channel, _i, shape in columns])
    written: list[bake_records.Written] = []
    keyed: dict[int, np.ndarray] = {}
    for (channel, i, shape), fc, co, known in zip(columns, fcurves, cos, by_curve, strict=True):
        keyed[fc.as_pointer()] = known
        kept = pins.get((channel.bone, channel.prop, i)) if pins else None
        kinds = None
        if kept:
            co, kinds = _write_edge_keys(fc, kept, co, shape, start_t)
        written.append(bake_records.Written(channel.bone, channel.prop, i, co, shape, kinds))
    _record_owned(rig.chain, channels + [(bone_path(bone, prop), index) for bone, prop, index in held])
    bake_records.record_bake(obj, rig.chain, action, handle, written, start_t, end_t, replaced, records)
    replaced_keys.store(obj, rig.chain, action, handle, saved)
    return verification.Keyed(times=frames, values=keyed)


def rekey_channel(rig: ChainRig, bone: str, prop: str, index: int, frames: np.ndarray, values: np.ndarray,
                  start: int, end: int, interpolation: str = "LINEAR") -> None:
    """Replace the keys of one owned channel in scene frames [start, end] after :func:`write_solution`.

    Say, a verification pass re-keying the measured error: written in the action's time like the bake's own
    keys and recorded, so Clear removes them too. ``frames`` are scene frames; keys a linear curve does not
    need are dropped as in the bake.
    """
    obj = rig.armature
    times = key_target.key_times(obj, np.asarray(frames, dtype=np.float64))
    start_t, end_t = (float(t) for t in key_target.key_times(obj, np.array([start, end], dtype=np.float64)))
    values = np.asarray(values, dtype=np.float64)
    needed = essential_keys(values)
    fc = anim_keys.ensure_fcurve(obj, bone_path(bone, prop), index, bone)
    anim_keys.write_keys(fc, times[needed], values[needed], start=start_t, end=end_t, interpolation=interpolation)
    co = np.stack([times[needed], values[needed]], axis=1).astype(np.float32)
    bake_records.record_bake(obj, rig.chain, anim_keys.ensure_action(obj), anim_keys.slot_handle(obj),
                             [bake_records.Written(bone, prop, index, co, interpolation)], start_t, end_t)


EdgeKeys = dict[tuple[str, str, int], list[tuple[float, float, str]]]  # per (bone, prop, index): anim_keys.edge_keys


def _write_edge_keys(fcurve: bpy.types.FCurve, keys: list[tuple[float, float, str]], co: np.ndarray, shape: str,
                     start: float) -> tuple[np.ndarray, np.ndarray | None]:
    """Write the keys that keep the frames an earlier bake keyed outside the range (:func:`anim_keys.edge_keys`),
    each side in one write, after the range's own keys ``co`` (interpolation ``shape``).

    They are this bake's keys, with the bake's interpolation (one per recorded channel) unless they hold a constant
    key's value. ``start``: the range's first frame (action time); the keys lie before it or after the range.
    Returns the curve's keys written by the bake, in frame order, and their interpolations where they are not all
    ``shape`` (else None).
    """
    kinds = np.full(len(co), anim_keys.interpolation_value(shape), dtype=np.int32)
    for side in (sorted(k for k in keys if k[0] < start), sorted(k for k in keys if k[0] > start)):
        if not side:
            continue
        kind = "CONSTANT" if side[0][2] == "CONSTANT" else shape
        written = anim_keys.write_keys(fcurve, [k[0] for k in side], [k[1] for k in side], start=side[0][0],
                                       end=side[-1][0], interpolation=kind)
        written_kinds = np.full(len(written), anim_keys.interpolation_value(kind), dtype=np.int32)
        before = side[0][0] < start
        co = np.concatenate([written, co] if before else [co, written])
        kinds = np.concatenate([written_kinds, kinds] if before else [kinds, written_kinds])
    return co, None if (kinds == anim_keys.interpolation_value(shape)).all() else kinds


def _remove_stale_channels(rig: ChainRig, action: bpy.types.Action, handle: int,
                           channels: Sequence[tuple[str, int]], start: float, end: float,
                           edges_of: Callable[[], tuple[Sequence[float], Sequence[float]]],
                           ) -> tuple[list[tuple[str, str, int]], list[tuple[str, str, int]], EdgeKeys]:
    """Remove the bake's keys in range from channels an earlier bake owned but this one does not.

    Say the strategy changed: stale scale/location keys would keep acting. The user's keys those bakes replaced
    there come back (:func:`replaced_keys.give_back`).

    Returns:
        Those channels as (bone, prop, index), and the ones among them this bake must hold at rest over its
        range: a location or scale whose curve still has keys (an earlier bake's outside the range, the
        user's) would play them into the range, which the solve took at rest (:data:`HELD_PROPS`); and the
        keys that keep those channels' values on the frames outside the range an earlier bake keyed
        (``edges_of()``, :func:`anim_keys.edge_keys`), read before their keys in range go.
    """
    obj = rig.armature
    wanted = set(channels)
    out, held = [], []
    pins: EdgeKeys = {}
    for w in bake_records.recorded_channels(obj, rig.chain, action, handle):
        if (bone_path(w.bone, w.prop), w.index) in wanted:
            continue
        in_range = (w.co[:, 0] >= np.float32(start)) & (w.co[:, 0] <= np.float32(end))
        inside = w.co[in_range]
        fc = anim_keys.find_fcurve(obj, bone_path(w.bone, w.prop), w.index)
        if fc is not None and w.prop in HELD_PROPS and any(edges_of()):
            pins[(w.bone, w.prop, w.index)] = anim_keys.edge_keys(fc, start, end, edges_of())
        if fc is not None and len(inside):
            anim_keys.remove_keys_at(fc, inside, kinds=w.key_kinds()[in_range])
            replaced_keys.give_back(obj, rig.chain, action, handle, w.bone, w.prop, w.index, fc, start, end)
            if len(fc.keyframe_points) == 0:
                bake_records.drop_empty_curve(obj, fc, w.bone, w.prop, w.index)
                fc = None
        if fc is not None and w.prop in HELD_PROPS and len(fc.keyframe_points) and w.bone in obj.pose.bones:
            held.append((w.bone, w.prop, w.index))
        out.append((w.bone, w.prop, w.index))
    return out, held, pins


def _baked_sides(obj: bpy.types.Object, error_curve: bpy.types.FCurve | None, start: int, end: int,
                 tweaked: bool) -> tuple[Sequence[float], Sequence[float]]:
    """The frames outside the range up to those an earlier bake of the chain keyed, in action time: those before
    it (going back) and after it (going on), as far as its error curve's keys reach on that side.

    Their keyed error promises their pose, so this bake keeps what its curves play there
    (:func:`anim_keys.edge_keys`); elsewhere outside the range nothing was promised, and no key is added.
    """
    if error_curve is None or len(error_curve.keyframe_points) == 0:
        return (), ()
    frames = anim_keys.read_keys_attribute(error_curve, "co")[:, 0]
    low, high = float(frames[0]), float(frames[-1])
    if not tweaked:
        # Walked from the range outwards as far as that span reaches on the side: frames between the range and
        # an earlier bake's (never keyed) too, as a new curve's extrapolation reaches the earlier frames through them.
        return (range(start - 1, math.ceil(low) - 1, -1) if low < start else (),
                range(end + 1, math.floor(high) + 1) if high > end else ())
    # In NLA tweak mode scene frames map to strip time: the scene frames of the range's own repeat of the strip
    # (another repeat plays the same strip times), at most _TWEAK_SIDE either side.
    strip = key_target.tweaked_strip(obj)
    assert strip is not None
    period = max(float(strip.action_frame_end - strip.action_frame_start), 1.0) * float(strip.scale)
    first_frame = float(strip.frame_start) + math.floor((start - float(strip.frame_start)) / period) * period
    last_frame = min(first_frame + period, float(strip.frame_end))
    sides: list[list[float]] = []
    for first, last, step in ((start - 1, max(start - _TWEAK_SIDE, math.ceil(first_frame)), -1),
                              (end + 1, min(end + _TWEAK_SIDE, math.ceil(last_frame) - 1), 1)):
        scene = np.arange(first, last + step, step, dtype=np.float64)
        if len(scene) == 0:
            sides.append([])
            continue
        times = key_target.key_times(obj, scene) * step  # increasing away from the range within one repeat
        run = np.concatenate([[True], np.diff(times) > 0]) & (times <= (high if step > 0 else -low))
        sides.append((times[: len(run) if run.all() else int(np.argmin(run))] * step).tolist())
    return sides[0], sides[1]


# Scene frames either side of the range looked at in NLA tweak mode (a strip repeat is rarely longer).
_TWEAK_SIDE = 1000


def _previous_rotations(obj: bpy.types.Object, bones: Sequence[str], modes: Sequence[str],
                        start: float) -> list[np.ndarray | None]:
    """Each bone's keyed rotation just before the range (None unless every component is keyed), the curves of
    all of them looked up in one pass.

    Euler and quaternion values continue from it.
    """
    wanted = []
    for bone, mode in zip(bones, modes, strict=True):
        prop, size = rotation_property(mode)
        wanted.append([(bone_path(bone, prop), i) for i in range(size)])
    curves = iter(anim_keys.find_fcurves(obj, [channel for channels in wanted for channel in channels]))
    out: list[np.ndarray | None] = []
    for channels in wanted:
        values = [_value_before(next(curves), start - 1) for _channel in channels]
        out.append(None if any(v is None for v in values) else np.array(values, dtype=np.float64))
    return out


def verify_written(context: bpy.types.Context, rigs: Sequence[ChainRig], solutions: Sequence[ChainSolution],
                   start: int, end: int, keyed: Sequence[verification.Keyed | None] | None = None,
                   ) -> list[tuple[ChainSolution, str | None]]:
    """Measure what Blender plays back from the keys just written (:mod:`verification`).

    Where the lower bone's tail differs from the solved tip by more than the tolerance, the error curve is
    re-keyed with the measured distance and the chain gets a warning naming the frames.

    Args:
        keyed: what :func:`write_solution` returned per chain (None: read the curves back).

    Returns:
        Each solution with the errors it keyed, and its warning or None.
    """
    out: list[tuple[ChainSolution, str | None]] = []
    for rig, sol, ver in zip(rigs, solutions, verification.measure(context, rigs, solutions, keyed), strict=True):
        if not ver.mismatch.any():
            out.append((sol, None))
            continue
        sol = dataclasses.replace(sol, error=verification.keyed_errors(sol, ver))
        lower = rig.bone_names[-1]
        keep = sol.valid
        rekey_channel(rig, lower, ERROR_PROP, 0, sol.frames[keep], sol.error[keep], start, end)
        frames = [int(f) for f in sol.frames[ver.mismatch]]
        length = float(np.nanmedian(ver.tolerance[ver.mismatch])) / verification.TOLERANCE
        out.append((sol, say(msg.PLAYBACK_MISMATCH, label=rig.label, size=ver.worst,
                             fraction=ver.worst / max(length, 1e-300), count=len(frames),
                             frames=frame_list(frames))))
    return out


def clear_bakes(armature: bpy.types.Object, chains: Sequence[bpy.types.PropertyGroup]) -> bake_records.ClearResult:
    """Remove exactly the keys the bakes of each chain wrote and still hold as written.

    From the actions they were written into (:func:`bake_records.clear`).
    """
    return bake_records.clear(armature, chains)
