"""Many F-curves' keys evaluated at many times in one numpy pass, with Blender's own arithmetic.

Blender evaluates a curve's keys in ``fcurve_eval_keyframes`` (blenkernel ``fcurve.cc``): the key found by
``BKE_fcurve_bezt_binarysearch_index_ex`` (within 0.0001 of the time: that key's value), the segment's
interpolation (constant, linear ``change * time / duration + begin``, Bezier: handles corrected so they do not
loop, ``findzero`` solving the cubic in double, ``berekeny`` in float) and, outside the keys, the curve's
extrapolation. This module repeats exactly those float32 and double operations in the same order, over every
(curve, time) pair at once: the keys of all curves are concatenated, one ``searchsorted`` finds every sample's
segment, and the Bezier parameters (:mod:`.roots`) are solved once per group of curves sharing their key and
handle frames. numpy's elementwise float operations round as C does (no contraction into fused multiply-adds).

:func:`read` says which curves this covers (the rest is sampled by Blender, :mod:`.fcurves`): a transform
channel (a float property, so no integer or discrete-value flag) without modifiers or baked samples, whose
segments are constant, linear or Bezier and whose keys are ordered and at least :data:`MIN_SPACING` apart.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import bpy
import numpy as np

from . import roots

# The channels whose curves this module evaluates: float properties, so Blender sets neither the integer nor the
# discrete-values flag on their curves (both change the evaluation).
TRANSFORM_PROPERTIES = frozenset(("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle", "scale"))
# Keys closer than this are left to Blender: with wider gaps at most one key lies within the binary search's
# threshold of any time, so the key it finds does not depend on the order it visits keys in.
MIN_SPACING = 0.01

_F = np.float32
_THRESHOLD = _F(0.0001)  # the binary search's, passed as a float
_FLT_EPSILON = _F(np.finfo(np.float32).eps)
_THREE = _F(3.0)
_TWO = _F(2.0)


@functools.cache
def interpolation_ids() -> tuple[int, int, int]:
    """RNA values of the CONSTANT, LINEAR and BEZIER key interpolations (looked up once per session)."""
    items = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items
    return int(items["CONSTANT"].value), int(items["LINEAR"].value), int(items["BEZIER"].value)


def transform_path(data_path: str) -> bool:
    """Whether ``data_path`` is an object's or pose bone's transform channel (``location``,
    ``pose.bones["b"].scale``...)."""
    return data_path.rpartition(".")[2] in TRANSFORM_PROPERTIES


@dataclass
class Keys:
    """The keys of several curves, concatenated in curve order (float32, as Blender stores them).

    Attributes:
        start, count: (C,) each curve's first key and number of keys.
        x, y, left_x, left_y, right_x, right_y: (K,) positions and handles.
        interpolation: (K,) RNA interpolation values.
        linear: (C,) whether the curve extrapolates linearly.
    """

    start: np.ndarray
    count: np.ndarray
    x: np.ndarray
    y: np.ndarray
    left_x: np.ndarray
    left_y: np.ndarray
    right_x: np.ndarray
    right_y: np.ndarray
    interpolation: np.ndarray
    linear: np.ndarray


def read(fcurves: Sequence[Any]) -> tuple[Keys, list[bool]]:
    """The keys of the ``fcurves`` this module evaluates, and per curve whether it does (see the module docstring).

    Every curve's keys are read into one buffer (four ``foreach_get`` per curve) and checked in one pass.

    Returns:
        (the keys of the evaluable curves in their order, one flag per curve of ``fcurves``).
    """
    constant, linear, bezier = interpolation_ids()
    candidates = [(i, fc.keyframe_points, fc) for i, fc in enumerate(fcurves)
                  if not len(fc.modifiers) and not len(fc.sampled_points) and transform_path(fc.data_path)]
    counts = np.array([len(points) for _i, points, _fc in candidates], dtype=np.int64)
    candidates = [c for c, n in zip(candidates, counts.tolist(), strict=True) if n]
    counts = counts[counts > 0]
    total = int(counts.sum())
    starts = np.cumsum(counts) - counts
    ipo_u8 = np.empty(total, dtype=np.uint8)
    co, left, right = (np.empty(2 * total, dtype=np.float32) for _ in range(3))
    for (_i, points, _fc), lo, n in zip(candidates, starts.tolist(), counts.tolist(), strict=True):
        points.foreach_get("interpolation", ipo_u8[lo:lo + n])
        points.foreach_get("co", co[2 * lo:2 * (lo + n)])
        points.foreach_get("handle_left", left[2 * lo:2 * (lo + n)])
        points.foreach_get("handle_right", right[2 * lo:2 * (lo + n)])
    ipo = ipo_u8.astype(np.int64)
    x = co[0::2]
    bad = ~((ipo == constant) | (ipo == linear) | (ipo == bezier))
    if total:
        bad[starts + counts - 1] = False  # a curve's last key's interpolation only picks its extrapolation
        bad |= ~np.isfinite(x)
        close = np.zeros(total, dtype=bool)
        close[1:] = ~(np.diff(x.astype(np.float64)) >= MIN_SPACING)
        close[starts] = False  # a curve's first key has no key before it
        bad |= close
    ok = np.add.reduceat(bad, starts) == 0 if total else np.zeros(0, dtype=bool)
    flags = [False] * len(fcurves)
    for (i, _points, _fc), good in zip(candidates, ok.tolist(), strict=True):
        flags[i] = good
    keep = np.repeat(ok, counts)
    kept = counts[ok]
    keys = Keys(
        start=np.cumsum(kept) - kept,
        count=kept, x=x[keep], y=co[1::2][keep], left_x=left[0::2][keep], left_y=left[1::2][keep],
        right_x=right[0::2][keep], right_y=right[1::2][keep], interpolation=ipo[keep],
        linear=np.array([fc.extrapolation == "LINEAR" for (_i, _p, fc), good
                         in zip(candidates, ok.tolist(), strict=True) if good], dtype=bool),
    )
    return keys, flags


def evaluate(keys: Keys, times: np.ndarray) -> np.ndarray:
    """Every curve of ``keys`` at every one of ``times``, as Blender's ``evaluate_fcurve`` gives them.

    Args:
        keys: from :func:`read`.
        times: (N,) finite float32 evaluation times (Blender evaluates at float32 times), in any order.

    Returns:
        (C, N) float32.
    """
    curves, n = keys.start.size, times.size
    if curves == 0 or n == 0:
        return np.empty((curves, n), dtype=np.float32)
    order = None
    if n > 1 and not (times[1:] >= times[:-1]).all():
        order = np.argsort(times, kind="stable")
        times = times[order]
    first, last = keys.start, keys.start + keys.count - 1
    with np.errstate(all="ignore"):
        before = times[None, :] <= keys.x[first][:, None]
        after = keys.x[last][:, None] <= times[None, :]
        out = np.where(before, _extrapolate(keys, first, 1, times), _extrapolate(keys, last, -1, times))
        inside = ~(before | after)
        if inside.any():
            np.copyto(out, _interpolate(keys, times), where=inside)
    if order is not None:
        out[:, order] = out.copy()
    return out


# Samples of each evaluation compared with Blender's own FCurve.evaluate (a few µs).
SPOT_CHECKS = 24
_agreement = {"trusted": True}


def trusted() -> bool:
    """Whether :func:`evaluate` has agreed with Blender in every :func:`spot_check` of this session."""
    return _agreement["trusted"]


def spot_check(fcurves: Sequence[Any], times: np.ndarray, values: np.ndarray) -> bool:
    """Compare :data:`SPOT_CHECKS` of ``values`` (from :func:`evaluate` of ``fcurves`` at ``times``), spread over
    the curves and times and preferring samples between keys, with ``FCurve.evaluate``.

    A Blender build whose arithmetic differs (one that fuses multiply-adds, another C library) would show it
    here: then :func:`trusted` turns False for the session and every curve is left to Blender.

    Returns:
        Whether every sample compared agreed bit for bit.
    """
    if not len(fcurves) or not times.size:
        return True
    picks = np.linspace(0, values.size - 1, SPOT_CHECKS).astype(np.int64)
    curve, column = np.divmod(picks, times.size)
    for c, j in zip(curve.tolist(), column.tolist(), strict=True):
        ours = values[c, j]
        theirs = np.float32(fcurves[c].evaluate(float(times[j])))
        if not (ours == theirs or (np.isnan(ours) and np.isnan(theirs))):
            _agreement["trusted"] = False
            return False
    return True


def _segment_rows(keys: Keys, times: np.ndarray) -> np.ndarray:
    """How many of the (curve-major, time-sorted) samples fall in each segment.

    Row 0 stands for "before curve 0's first key", row ``k + 1`` for the segment from key ``k``; a curve's last
    key's row also takes the samples after it and those before the next curve's first key (discarded later).
    Repeating a per-segment table by these counts lines it up with the samples: no gather per sample.

    Returns:
        (K + 1,) int64 counts, summing to ``C * N``.
    """
    n = times.size
    below = np.searchsorted(times, keys.x, side="left")  # times before each key
    counts = np.empty(keys.x.size + 1, dtype=np.int64)
    counts[0] = below[0]
    counts[1:-1] = np.diff(below)
    # From a curve's last key to the next curve's first: the rest of this curve's times, then the next's first.
    counts[keys.start[1:]] += n
    counts[-1] = n - below[-1]
    return counts


def _extrapolate(keys: Keys, end: np.ndarray, direction: int, t: np.ndarray) -> np.ndarray:
    """``fcurve_eval_keyframes_extrapolate`` from the curves' keys ``end`` (first or last; the neighbour is
    ``end + direction``), (C, N) at times ``t``."""
    constant, linear, _bezier = interpolation_ids()
    ipo = keys.interpolation[end]
    x0, y0 = keys.x[end], keys.y[end]
    single = keys.count == 1
    neighbour = np.where(single, end, end + direction)
    # Linear keys extend towards their neighbour key, others along their outer handle.
    lin_fac = keys.x[neighbour] - x0
    handle_x = keys.left_x[end] if direction > 0 else keys.right_x[end]
    handle_y = keys.left_y[end] if direction > 0 else keys.right_y[end]
    handle_fac = x0 - handle_x
    is_lin = ipo == linear
    fac = np.where(is_lin, lin_fac, handle_fac)
    slope = np.where(is_lin, (keys.y[neighbour] - y0) / lin_fac, (y0 - handle_y) / handle_fac)
    held = (ipo == constant) | ~keys.linear | (is_lin & single) | (fac == _F(0.0))
    if held.all():
        return np.broadcast_to(y0[:, None], (end.size, t.size))
    return np.where(held[:, None], y0[:, None], y0[:, None] - slope[:, None] * (x0[:, None] - t[None, :]))


_HELD, _LINEAR, _CUBIC, _LOWER = 0, 1, roots.CUBIC, roots.LOWER
# Columns of the per-segment tables: times (float32), solve_cubic's terms (float64), values (float32).
_X0, _X1, _DURATION, _KIND = range(4)
_Y0, _Y1, _K1, _K2, _K3, _CHANGE, _FLAT = range(7)


def _corrected(keys: Keys) -> tuple[np.ndarray, ...]:
    """Each key's segment with ``BKE_fcurve_correct_bezpart`` applied (a handle longer than the segment is
    shortened to it): (v1x, v1y, v2x, v2y, v3x, v3y, v4x, v4y) float32, the next key's for a curve's last key
    being garbage."""
    size = keys.x.size
    nxt = np.minimum(np.arange(1, size + 1), size - 1)
    v1x, v1y, v4x, v4y = keys.x, keys.y, keys.x[nxt], keys.y[nxt]
    v2x, v2y, v3x, v3y = keys.right_x, keys.right_y, keys.left_x[nxt], keys.left_y[nxt]
    h1x, h1y, h2x, h2y = v1x - v2x, v1y - v2y, v4x - v3x, v4y - v3y
    span, len1, len2 = v4x - v1x, np.abs(h1x), np.abs(h2x)
    some = (len1 + len2) != _F(0.0)
    cut1, cut2 = some & (len1 > span), some & (len2 > span)
    fac1, fac2 = span / len1, span / len2
    return (v1x, v1y, np.where(cut1, v1x - fac1 * h1x, v2x), np.where(cut1, v1y - fac1 * h1y, v2y),
            np.where(cut2, v4x - fac2 * h2x, v3x), np.where(cut2, v4y - fac2 * h2y, v3y), v4x, v4y)


def _time_segments(keys: Keys) -> tuple[np.ndarray, np.ndarray]:
    """Per segment (a row per key, after a row for "before everything"), what locating a sample in it and its
    Bezier parameter need: the time axis alone (keys' and handles' frames).

    Computed once per segment with the operations Blender repeats per sample, so the per-sample remainder gives
    the same bits.

    Returns:
        (times (K + 1, 4) float32: first and next key's frame, duration, kind; ``solve_cubic``'s float64 terms
        (K + 1, 6): ``a``, ``2a³ - ab``, ``c3``, ``p³``, ``sqrt(-p)``, ``sqrt(-p³)``, for a Bezier of lower
        degree ``a`` = c2 and ``2a³ - ab`` = c1).
    """
    _constant, linear, bezier = interpolation_ids()
    v1x, _v1y, v2x, _v2y, v3x, _v3y, v4x, _v4y = _corrected(keys)
    # findzero's time-independent coefficients, in float then widened as C does.
    c1 = (_THREE * (v2x - v1x)).astype(np.float64)
    c2 = (_THREE * ((v1x - _TWO * v2x) + v3x)).astype(np.float64)
    c3 = ((v4x - v1x) + _THREE * (v2x - v3x)).astype(np.float64)
    cubic = c3 != 0.0
    a = np.where(cubic, (c2 / c3) / 3, c2)
    b = np.where(cubic, c1 / c3, c1)
    p = b / 3 - a * a
    p3 = p * p * p
    ipo = keys.interpolation
    kind = np.where(ipo == linear, _LINEAR, _HELD)
    kind = np.where(ipo == bezier, np.where(cubic, _CUBIC, _LOWER), kind)
    times = np.zeros((keys.x.size + 1, 4), dtype=np.float32)
    times[1:] = np.stack([v1x, v4x, v4x - v1x, kind.astype(np.float32)], axis=1)
    terms = np.zeros((keys.x.size + 1, 6), dtype=np.float64)
    terms[1:] = np.stack([a, np.where(cubic, 2 * a * a * a - a * b, b), c3, p3, np.sqrt(-p), np.sqrt(-p3)],
                         axis=1)
    return times, terms


def _value_segments(keys: Keys) -> np.ndarray:
    """Per segment (rows as :func:`_time_segments`'), what the values add: (K + 1, 7) float32 first and next
    key's value, ``berekeny``'s c1, c2, c3, the change, whether the handles are level (Blender then returns the
    first key's value)."""
    v1x, v1y, _v2x, v2y, _v3x, v3y, _v4x, v4y = _corrected(keys)
    nxt = np.minimum(np.arange(1, keys.x.size + 1), keys.x.size - 1)
    # The level test reads the handles before correction.
    flat = ((np.abs(v1y - v4y) < _FLT_EPSILON) & (np.abs(keys.right_y - keys.left_y[nxt]) < _FLT_EPSILON)
            & (np.abs(keys.left_y[nxt] - v4y) < _FLT_EPSILON))
    values = np.zeros((v1x.size + 1, 7), dtype=np.float32)
    values[1:] = np.stack([v1y, v4y, _THREE * (v2y - v1y), _THREE * ((v1y - _TWO * v2y) + v3y),
                           (v4y - v1y) + _THREE * (v2y - v3y), v4y - v1y, flat.astype(np.float32)], axis=1)
    return values


def _time_groups(keys: Keys) -> tuple[np.ndarray, np.ndarray]:
    """Curves whose keys lie on the same frames with the same handle frames and interpolations share every
    sample's segment and Bezier parameter (the location channels keyed together, a crowd keyed on one
    schedule): one representative per group is solved.

    Returns:
        (representative curve of each group, each curve's group).
    """
    signature: dict[bytes, int] = {}
    group = np.empty(keys.start.size, dtype=np.int64)
    for c, (lo, n) in enumerate(zip(keys.start.tolist(), keys.count.tolist(), strict=True)):
        part = slice(lo, lo + n)
        key = b"".join(arr[part].tobytes() for arr in (keys.x, keys.left_x, keys.right_x, keys.interpolation))
        group[c] = signature.setdefault(key, len(signature))
    representatives = np.zeros(len(signature), dtype=np.int64)
    representatives[group[::-1]] = np.arange(keys.start.size)[::-1]  # each group's first curve
    return representatives, group


def _curves(keys: Keys, which: np.ndarray) -> Keys:
    """The keys of the curves ``which`` alone."""
    index = np.concatenate([np.arange(lo, lo + n) for lo, n in zip(keys.start[which].tolist(),
                                                                      keys.count[which].tolist(), strict=True)])
    count = keys.count[which]
    start = np.cumsum(count) - count
    return Keys(start, count, keys.x[index], keys.y[index], keys.left_x[index], keys.left_y[index],
                keys.right_x[index], keys.right_y[index], keys.interpolation[index], keys.linear[which])


def _interpolate(keys: Keys, times: np.ndarray) -> np.ndarray:
    """``fcurve_eval_keyframes_interpolate`` of every curve at every sorted time, (C, N) (the values of samples
    outside a curve's keys are garbage).

    The time part (segment, key hits, Bezier parameter) is solved once per :func:`_time_groups` group; each
    curve then only applies its values.
    """
    curves, n = keys.start.size, times.size
    representatives, group = _time_groups(keys)
    shared = _curves(keys, representatives) if representatives.size < curves else keys
    time_rows, terms = _time_segments(shared)
    rows = _segment_rows(shared, times)
    row = np.repeat(np.arange(rows.size), rows)  # each sample's row of the tables
    seg = time_rows[row]
    t = np.tile(times, representatives.size)
    x0, kind = seg[:, _X0], seg[:, _KIND]
    # The binary search's hit: a key within its threshold of the time gives its own value.
    on_prev = (t - x0) <= _THRESHOLD
    on_next = (seg[:, _X1] - t) <= _THRESHOLD
    free = ~(on_prev | on_next)
    root = np.zeros(t.size, dtype=np.float32)
    found = np.zeros(t.size, dtype=bool)
    curved = free & (kind >= _CUBIC)
    if curved.any():
        pick = None if curved.all() else np.nonzero(curved)[0]
        sub_root, sub_found = roots.findzero(terms[row if pick is None else row[pick]], _take(x0, pick),
                                        _take(t, pick), _take(kind, pick))
        root[_take(np.arange(t.size), pick)], found[_take(np.arange(t.size), pick)] = sub_root, sub_found

    def per_curve(values: np.ndarray) -> np.ndarray:
        """A (G * N,) array of the groups' samples as (C, N), each curve its group's row."""
        by_group = values.reshape(representatives.size, n)
        return np.broadcast_to(by_group, (curves, n)) if representatives.size == 1 else by_group[group]

    # Each curve's own segment rows, lined up with its samples like its group's (the same key frames).
    values = np.repeat(_value_segments(keys), _segment_rows(keys, times), axis=0).reshape(curves, n, -1)
    y0 = values[:, :, _Y0]
    value = np.where(per_curve(on_next), values[:, :, _Y1], y0)  # also the held segments' value
    kind_c = per_curve(kind)
    free_c = per_curve(free)
    line = free_c & (kind_c == _LINEAR)
    if line.any():
        lin = (values[:, :, _CHANGE] * per_curve(t - x0)) / per_curve(seg[:, _DURATION]) + y0
        np.copyto(value, lin, where=line)
    bezier = free_c & (kind_c >= _CUBIC) & (values[:, :, _FLAT] == 0)  # level handles keep y0
    if bezier.any():
        # berekeny, in float: ((c0 + t c1) + t t c2) + t t t c3.
        r = per_curve(root)
        r2 = per_curve(root * root)
        r3 = per_curve((root * root) * root)
        y = r * values[:, :, _K1]
        y += y0
        y += r2 * values[:, :, _K2]
        y += r3 * values[:, :, _K3]
        np.copyto(value, np.where(per_curve(found), y, _F(0.0)), where=bezier)  # findzero failed: Blender gives 0
    return value


def _take(values: np.ndarray, pick: np.ndarray | None) -> np.ndarray:
    """``values[pick]``, or all of ``values`` when ``pick`` is None."""
    return values if pick is None else values[pick]
