"""The Bezier parameter of F-curve samples, solved as Blender solves it: ``findzero`` + ``solve_cubic``.

Blender finds a Bezier segment's parameter at a time by solving the time cubic in double precision (Cardano
with ``exp(log(x) / 3)`` cube roots, or the trigonometric form for three real roots) and keeps the first root
in [-1e-10, 1.000001] as a float. :func:`findzero` repeats exactly those operations over arrays; the segments'
time-independent terms come precomputed (:func:`.keyframes._time_segments`). ``sqrt`` is exact everywhere;
``exp``, ``log``, ``cos`` and ``acos`` come from :func:`libm`, with the bits of the C library Blender calls.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

_F = np.float32
_SMALL = _F(-1.0e-10)  # float(SMALL): the lowest root findzero accepts
_ONE = _F(1.000001)  # the highest
# Segment kinds (:mod:`.keyframes`) and the columns of its solve_cubic terms.
CUBIC, LOWER = 2, 3
A, QA, C3, P3, ROOT_P, ROOT_P3 = range(6)




def findzero(terms: np.ndarray, x0: np.ndarray, x: np.ndarray, kind: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``findzero`` + ``solve_cubic`` at times ``x`` in Bezier segments (first key's time ``x0``, ``kind``
    CUBIC or LOWER, float64 ``terms`` from :func:`.keyframes._time_segments`): the first root in [SMALL, 1.000001].

    Returns:
        (float32 roots, whether one was found), per element.
    """
    exp, log, cos, acos = libm()
    c0 = (x0 - x).astype(np.float64)
    root = np.zeros(x.shape, dtype=np.float32)
    found = np.zeros(x.shape, dtype=bool)

    def offer(where: np.ndarray | None, candidate: np.ndarray) -> None:
        # solve_cubic keeps the first candidate in range, in the order it computes them (one per element of
        # the indices ``where``, None: every element).
        cand = candidate.astype(np.float32)
        ok = (cand >= _SMALL) & (cand <= _ONE)
        if where is None:
            if not found.any():  # the first candidate of every element
                root[...] = cand
                found[...] = ok
                return
            take = ok & ~found
            np.copyto(root, cand, where=take)
            found[...] |= take
        else:
            take = ok & ~found[where]
            chosen = where[take]
            root[chosen] = cand[take]
            found[chosen] = True

    def cbrt(v: np.ndarray) -> np.ndarray:
        # sqrt3d; at 0, exp(log(0) / 3) is its 0 too.
        e = exp(log(np.abs(v)) / 3.0)
        return np.where(v < 0.0, -e, e)

    cubic = kind == CUBIC
    every = cubic.all()
    if every or cubic.any():
        ci = None if every else np.nonzero(cubic)[0]
        sub = terms if ci is None else terms[ci]
        a = sub[:, A]
        q = (sub[:, QA] + (c0 if ci is None else c0[ci]) / sub[:, C3]) / 2
        d = q * q + sub[:, P3]
        one = d > 0.0
        all_one = one.all()
        if all_one or one.any():  # one real root, offered alone
            oi = None if all_one else np.nonzero(one)[0]
            qo = -(q if oi is None else q[oi])
            r = np.sqrt(d if oi is None else d[oi])
            # sqrt3d of -q + r and -q - r: neither is -0.0 (r > 0), so copysign gives sqrt3d's sign exactly.
            first, second = qo + r, qo - r
            cubes = np.copysign(exp(log(np.abs(first)) / 3.0), first)
            cubes += np.copysign(exp(log(np.abs(second)) / 3.0), second)
            offer(_within(ci, oi), cubes - (a if oi is None else a[oi]))
        double = d == 0.0
        if double.any():
            di = np.nonzero(double)[0]
            r, ad = cbrt(-q[di]), a[di]
            for candidate in (2 * r - ad, -r - ad):
                offer(_within(ci, di), candidate)
        three = ~(one | double)  # d < 0, or NaN
        if three.any():
            ti = np.nonzero(three)[0]
            at, st = a[ti], sub[ti]
            phi = acos(-q[ti] / st[:, ROOT_P3])
            r = st[:, ROOT_P]
            pc = cos(phi / 3)
            qc = np.sqrt(3 - 3 * pc * pc)
            for candidate in (2 * r * pc - at, -r * (pc + qc) - at, -r * (pc - qc) - at):
                offer(_within(ci, ti), candidate)
    lower = np.nonzero(kind == LOWER)[0]
    if lower.size:
        sub = terms[lower]
        a, b, c = sub[:, A], sub[:, QA], c0[lower]
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


def _within(outer: np.ndarray | None, inner: np.ndarray | None) -> np.ndarray | None:
    """``inner`` (indices into the elements ``outer`` picks, None: all) as indices into the whole."""
    if outer is None:
        return inner
    return outer if inner is None else outer[inner]




_Unary = Callable[[np.ndarray], np.ndarray]


def _c_exp(v: float) -> float:
    """C's ``exp``: infinity where Python's raises OverflowError."""
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf


def _c_log(v: float) -> float:
    """C's ``log``: -inf at 0 and NaN below, where Python's raises."""
    if v == 0.0:
        return -math.inf
    return math.log(v) if v > 0.0 or math.isnan(v) else math.nan


def _c_cos(v: float) -> float:
    """C's ``cos``: NaN at infinities, where Python's raises."""
    return math.cos(v) if math.isfinite(v) else math.nan


def _c_acos(v: float) -> float:
    """C's ``acos``: NaN outside [-1, 1], where Python's raises."""
    return math.acos(v) if -1.0 <= v <= 1.0 else math.nan


def _elementwise(function: Callable[[float], float]) -> _Unary:
    """``function`` applied to each element of a float64 array."""
    def call(values: np.ndarray) -> np.ndarray:
        return np.array([function(v) for v in values.ravel().tolist()], dtype=np.float64).reshape(values.shape)
    return call


@functools.cache
def libm() -> tuple[_Unary, _Unary, _Unary, _Unary]:
    """``exp``, ``log``, ``cos``, ``acos`` over float64 arrays with the C library's bits.

    numpy's ufuncs are taken when they agree with Python's ``math`` (the C library, which Blender calls too) on
    a spread of arguments: numpy's own SIMD versions (on some CPUs) may round differently, and then each element
    goes through ``math`` (C's results where ``math`` raises).
    """
    rng = np.random.default_rng(17)
    battery: list[tuple[_Unary, Callable[[float], float], np.ndarray]] = [
        (np.exp, _c_exp, rng.uniform(-700.0, 240.0, 512)),
        (np.log, _c_log, np.exp(rng.uniform(-690.0, 690.0, 512))),
        (np.cos, _c_cos, rng.uniform(0.0, math.pi, 512)),
        (np.arccos, _c_acos, rng.uniform(-1.0, 1.0, 512)),
    ]
    chosen = []
    for ufunc, scalar, args in battery:
        chosen.append(ufunc if np.array_equal(ufunc(args), _elementwise(scalar)(args)) else _elementwise(scalar))
    return chosen[0], chosen[1], chosen[2], chosen[3]
