"""Many F-curves' keys evaluated at many times in one numpy pass, with Blender's own arithmetic.

Blender evaluates a curve's keys in ``fcurve_eval_keyframes`` (blenkernel ``fcurve.cc``): the key found by
``BKE_fcurve_bezt_binarysearch_index_ex`` (within 0.0001 of the time: that key's value), the segment's
interpolation (constant, linear ``change * time / duration + begin``, Bezier: handles corrected so they do not
loop, ``findzero`` solving the cubic in double, ``berekeny`` in float) and, outside the keys, the curve's
extrapolation. This module repeats exactly those float32 and double operations in the same order, over every
(curve, time) pair at once: the keys of all curves are concatenated, one ``searchsorted`` finds every sample's
segment, one Bezier solve covers every Bezier sample. numpy's elementwise float operations round as C does (no
contraction into fused multiply-adds), ``sqrt`` is exact everywhere, and ``exp``, ``log``, ``cos`` and ``acos``
come from the C library Blender calls (numpy's own where it gives the same bits on this machine, which
:func:`_libm` checks once; else Python's ``math``, which calls that library).

:func:`evaluable` says which curves this covers (the rest is sampled by Blender, :mod:`.fcurves`): a transform
channel (a float property, so no integer or discrete-value flag) without modifiers or baked samples, whose
segments are constant, linear or Bezier and whose keys are ordered and at least :data:`MIN_SPACING` apart.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import bpy
import numpy as np

# The channels whose curves this module evaluates: float properties, so Blender sets neither the integer nor the
# discrete-values flag on their curves (both change the evaluation).
TRANSFORM_PROPERTIES = frozenset(("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle", "scale"))
# Keys closer than this are left to Blender: with wider gaps at most one key lies within the binary search's
# threshold of any time, so the key it finds does not depend on the order it visits keys in.
MIN_SPACING = 0.01

_F = np.float32
_THRESHOLD = _F(0.0001)  # the binary search's, passed as a float
_FLT_EPSILON = _F(np.finfo(np.float32).eps)
_SMALL = _F(-1.0e-10)  # float(SMALL): the lowest root findzero accepts
_ONE = _F(1.000001)  # the highest
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

    Returns:
        (the keys of the evaluable curves in their order, one flag per curve of ``fcurves``).
    """
    constant, linear, bezier = interpolation_ids()
    parts: list[tuple[np.ndarray, ...]] = []
    flags: list[bool] = []
    extrapolations: list[bool] = []
    for fc in fcurves:
        points = fc.keyframe_points
        n = len(points)
        if (n == 0 or len(fc.modifiers) or len(fc.sampled_points) or not transform_path(fc.data_path)):
            flags.append(False)
            continue
        ipo_u8 = np.empty(n, dtype=np.uint8)
        points.foreach_get("interpolation", ipo_u8)
        ipo = ipo_u8.astype(np.int64)
        segments = ipo[:-1]
        if not ((segments == constant) | (segments == linear) | (segments == bezier)).all():
            flags.append(False)
            continue
        co = np.empty(2 * n, dtype=np.float32)
        points.foreach_get("co", co)
        x, y = co[0::2], co[1::2]
        if not np.isfinite(x).all() or (n > 1 and not (np.diff(x.astype(np.float64)) >= MIN_SPACING).all()):
            flags.append(False)
            continue
        left = np.empty(2 * n, dtype=np.float32)
        right = np.empty(2 * n, dtype=np.float32)
        points.foreach_get("handle_left", left)
        points.foreach_get("handle_right", right)
        parts.append((x, y, left[0::2], left[1::2], right[0::2], right[1::2], ipo))
        extrapolations.append(fc.extrapolation == "LINEAR")
        flags.append(True)
    counts = np.array([len(p[0]) for p in parts], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64) if len(parts) else counts
    columns = [np.concatenate([p[i] for p in parts]) if parts else np.empty(0, dtype=np.float32) for i in range(7)]
    keys = Keys(starts, counts, *columns[:6], interpolation=columns[6].astype(np.int64),
                linear=np.array(extrapolations, dtype=bool))
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
    out = np.empty((curves, n), dtype=np.float32)
    if curves == 0 or n == 0:
        return out
    order = None
    if n > 1 and not (times[1:] >= times[:-1]).all():
        order = np.argsort(times, kind="stable")
        times = times[order]
    first, last = keys.start, keys.start + keys.count - 1
    with np.errstate(all="ignore"):
        below = _keys_at_or_below(keys, times)
        before = times[None, :] <= keys.x[first][:, None]
        after = below == keys.count[:, None]  # at or past the last key
        out[...] = _extrapolate(keys, first, 1, times)
        tail = after & ~before
        if tail.any():
            out[tail] = _extrapolate(keys, last, -1, times)[tail]
        inside = ~(before | after)
        if inside.any():
            curve, column = np.nonzero(inside)
            out[curve, column] = _interpolate(keys, keys.start[curve] + below[curve, column] - 1, times[column])
    if order is not None:
        out[:, order] = out.copy()
    return out


def _keys_at_or_below(keys: Keys, times: np.ndarray) -> np.ndarray:
    """(C, N) how many keys of each curve lie at or before each of the sorted ``times``.

    One searchsorted of every key into the times and a running count: a key at or before ``times[j]`` counts
    from the first time not before it on.
    """
    curves, n = keys.start.size, times.size
    position = np.searchsorted(times, keys.x, side="left")
    curve = np.repeat(np.arange(curves), keys.count)
    counts = np.bincount(curve * (n + 1) + position, minlength=curves * (n + 1)).reshape(curves, n + 1)
    return np.cumsum(counts[:, :n], axis=1)


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


@dataclass
class _Segments:
    """Per key, what its segment's evaluation needs that does not depend on the time (computed once per key
    with the operations Blender repeats per sample, so the per-sample remainder gives the same bits).

    Attributes:
        kind: ``_HELD``, ``_LINEAR``, ``_CUBIC`` or ``_LOWER`` (Bezier whose time polynomial is of lower degree).
        change, duration: float32, for linear segments.
        x0, a, qa, p3, b, c3: float64 terms of ``solve_cubic`` (``qa`` = ``2a³ - ab``, ``p3`` = ``p³``; for
            ``_LOWER``: ``a`` = c2, ``b`` = c1).
        root_p, root_p3: ``sqrt(-p)`` and ``sqrt(-p³)`` (the three-root case).
        k0, k1, k2, k3: float32 ``berekeny`` coefficients.
    """

    kind: np.ndarray
    change: np.ndarray
    duration: np.ndarray
    x0: np.ndarray
    a: np.ndarray
    qa: np.ndarray
    p3: np.ndarray
    b: np.ndarray
    c3: np.ndarray
    root_p: np.ndarray
    root_p3: np.ndarray
    k0: np.ndarray
    k1: np.ndarray
    k2: np.ndarray
    k3: np.ndarray


_HELD, _LINEAR, _CUBIC, _LOWER = 0, 1, 2, 3


def _segments(keys: Keys) -> _Segments:
    """:class:`_Segments` of every key (a curve's last key's entries are never used)."""
    _constant, linear, bezier = interpolation_ids()
    nxt = np.minimum(np.arange(1, keys.x.size + 1), keys.x.size - 1)
    v1x, v1y, v4x, v4y = keys.x, keys.y, keys.x[nxt], keys.y[nxt]
    v2x, v2y, v3x, v3y = keys.right_x, keys.right_y, keys.left_x[nxt], keys.left_y[nxt]
    ipo = keys.interpolation
    # All handles level: Blender returns the first key's value.
    flat = ((np.abs(v1y - v4y) < _FLT_EPSILON) & (np.abs(v2y - v3y) < _FLT_EPSILON)
            & (np.abs(v3y - v4y) < _FLT_EPSILON))
    # BKE_fcurve_correct_bezpart: a handle longer than the segment is shortened to it.
    h1x, h1y, h2x, h2y = v1x - v2x, v1y - v2y, v4x - v3x, v4y - v3y
    span, len1, len2 = v4x - v1x, np.abs(h1x), np.abs(h2x)
    some = (len1 + len2) != _F(0.0)
    cut1, cut2 = some & (len1 > span), some & (len2 > span)
    fac1, fac2 = span / len1, span / len2
    v2x, v2y = np.where(cut1, v1x - fac1 * h1x, v2x), np.where(cut1, v1y - fac1 * h1y, v2y)
    v3x, v3y = np.where(cut2, v4x - fac2 * h2x, v3x), np.where(cut2, v4y - fac2 * h2y, v3y)
    # findzero's time-independent coefficients, in float then widened as C does.
    c1 = (_THREE * (v2x - v1x)).astype(np.float64)
    c2 = (_THREE * ((v1x - _TWO * v2x) + v3x)).astype(np.float64)
    c3 = ((v4x - v1x) + _THREE * (v2x - v3x)).astype(np.float64)
    cubic = c3 != 0.0
    a = np.where(cubic, (c2 / c3) / 3, c2)
    b = np.where(cubic, c1 / c3, c1)
    p = b / 3 - a * a
    p3 = p * p * p
    kind = np.where(ipo == linear, _LINEAR, _HELD)
    kind = np.where((ipo == bezier) & ~flat, np.where(cubic, _CUBIC, _LOWER), kind)
    return _Segments(
        kind=kind, change=v4y - v1y, duration=v4x - v1x, x0=v1x, a=a, qa=2 * a * a * a - a * b, p3=p3, b=b, c3=c3,
        root_p=np.sqrt(-p), root_p3=np.sqrt(-p3),
        k0=v1y, k1=_THREE * (v2y - v1y), k2=_THREE * ((v1y - _TWO * v2y) + v3y), k3=(v4y - v1y) + _THREE * (v2y - v3y),
    )


def _interpolate(keys: Keys, seg: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``fcurve_eval_keyframes_interpolate`` at times ``t`` strictly between a curve's first and last keys, in
    the segments starting at keys ``seg`` (one pair per element)."""
    x0, x1, y0, y1 = keys.x[seg], keys.x[seg + 1], keys.y[seg], keys.y[seg + 1]
    # The binary search's hit: a key within its threshold of the time gives its own value.
    on_prev = (t - x0) <= _THRESHOLD
    on_next = (x1 - t) <= _THRESHOLD
    segs = _segments(keys)
    kind = segs.kind[seg]
    value = np.where(on_next, y1, y0)  # also the held segments' value
    free = ~(on_prev | on_next)
    line = np.nonzero(free & (kind == _LINEAR))[0]
    if line.size:
        s = seg[line]
        value[line] = (segs.change[s] * (t[line] - segs.x0[s])) / segs.duration[s] + y0[line]
    curved = np.nonzero(free & (kind >= _CUBIC))[0]
    if curved.size:
        s = seg[curved]
        root, found = _findzero(segs, s, t[curved])
        y = ((segs.k0[s] + root * segs.k1[s]) + (root * root) * segs.k2[s]) + ((root * root) * root) * segs.k3[s]
        value[curved] = np.where(found, y, _F(0.0))  # findzero failed: Blender returns 0
    return value


def _findzero(segs: _Segments, s: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``findzero`` + ``solve_cubic`` in segments ``s`` at times ``x``: the first root in [SMALL, 1.000001].

    Returns:
        (float32 roots, whether one was found), per element.
    """
    exp, log, cos, acos = _libm()
    c0 = (segs.x0[s] - x).astype(np.float64)
    root = np.zeros(x.shape, dtype=np.float32)
    found = np.zeros(x.shape, dtype=bool)

    def offer(where: np.ndarray, candidate: np.ndarray) -> None:
        # solve_cubic keeps the first candidate in range, in the order it computes them (one per element of
        # the indices ``where``).
        cand = candidate.astype(np.float32)
        take = ~found[where] & (cand >= _SMALL) & (cand <= _ONE)
        root[where[take]] = cand[take]
        found[where[take]] = True

    def cbrt(v: np.ndarray) -> np.ndarray:
        # sqrt3d; at 0, exp(log(0) / 3) is its 0 too.
        e = exp(log(np.abs(v)) / 3.0)
        return np.where(v < 0.0, -e, e)

    kind = segs.kind[s]
    cubic = np.nonzero(kind == _CUBIC)[0]
    if cubic.size:
        k = s[cubic]
        a = segs.a[k]
        q = (segs.qa[k] + c0[cubic] / segs.c3[k]) / 2
        d = q * q + segs.p3[k]
        one = d > 0.0
        double = d == 0.0
        three = ~(one | double)  # d < 0, or NaN
        if one.all():  # the common case: one real root, offered alone
            r = np.sqrt(d)
            offer(cubic, cbrt(-q + r) + cbrt(-q - r) - a)
        elif one.any():
            r = np.sqrt(d[one])
            offer(cubic[one], cbrt(-q[one] + r) + cbrt(-q[one] - r) - a[one])
        if double.any():
            r, ad = cbrt(-q[double]), a[double]
            for candidate in (2 * r - ad, -r - ad):
                offer(cubic[double], candidate)
        if three.any():
            kt, at = k[three], a[three]
            phi = acos(-q[three] / segs.root_p3[kt])
            r = segs.root_p[kt]
            pc = cos(phi / 3)
            qc = np.sqrt(3 - 3 * pc * pc)
            for candidate in (2 * r * pc - at, -r * (pc + qc) - at, -r * (pc - qc) - at):
                offer(cubic[three], candidate)
    lower = np.nonzero(kind == _LOWER)[0]
    if lower.size:
        k = s[lower]
        a, b, c = segs.a[k], segs.b[k], c0[lower]
        quadratic = a != 0.0
        disc = b * b - 4 * a * c
        two, touch = quadratic & (disc > 0), quadratic & (disc == 0)
        r = np.sqrt(disc[two])
        offer(lower[two], (-b[two] - r) / (2 * a[two]))
        offer(lower[two], (-b[two] + r) / (2 * a[two]))
        offer(lower[touch], -b[touch] / (2 * a[touch]))
        line = ~quadratic & (b != 0.0)
        offer(lower[line], -c[line] / b[line])
        found[lower[~quadratic & (b == 0.0) & (c == 0.0)]] = True  # the root 0
    return root, found


_Unary = Callable[[np.ndarray], np.ndarray]


def _c_exp(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf


def _c_log(v: float) -> float:
    if v == 0.0:
        return -math.inf
    return math.log(v) if v > 0.0 or math.isnan(v) else math.nan


def _c_cos(v: float) -> float:
    return math.cos(v) if math.isfinite(v) else math.nan


def _c_acos(v: float) -> float:
    return math.acos(v) if -1.0 <= v <= 1.0 else math.nan


def _elementwise(function: Callable[[float], float]) -> _Unary:
    def call(values: np.ndarray) -> np.ndarray:
        return np.array([function(v) for v in values.ravel().tolist()], dtype=np.float64).reshape(values.shape)
    return call


@functools.cache
def _libm() -> tuple[_Unary, _Unary, _Unary, _Unary]:
    """``exp``, ``log``, ``cos``, ``acos`` over float64 arrays with the C library's bits.

    numpy's ufuncs are taken when they agree with Python's ``math`` (the C library, which Blender calls too) on
    a spread of arguments: numpy's own SIMD versions (on some CPUs) may round differently, and then each element
    goes through ``math`` (C's results where ``math`` raises).
    """
    rng = np.random.default_rng(17)
    battery: list[tuple[_Unary, Callable[[float], float], np.ndarray]] = [
        (np.exp, _c_exp, rng.uniform(-700.0, 240.0, 2048)),
        (np.log, _c_log, np.exp(rng.uniform(-690.0, 690.0, 2048))),
        (np.cos, _c_cos, rng.uniform(0.0, math.pi, 2048)),
        (np.arccos, _c_acos, rng.uniform(-1.0, 1.0, 2048)),
    ]
    chosen = []
    for ufunc, scalar, args in battery:
        chosen.append(ufunc if np.array_equal(ufunc(args), _elementwise(scalar)(args)) else _elementwise(scalar))
    return chosen[0], chosen[1], chosen[2], chosen[3]
