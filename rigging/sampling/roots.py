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
# A bound on how far numpy's exp, log, cos and acos may be from the C library's, relative to the value: 2**-46,
# 64 ULP, where 1-2 ULP were measured (numpy 1.26 and 2.5 on AVX-512, 2 million arguments each). Roots whose
# float32 value it leaves open (ill-conditioned cubics: a small root of large terms) are ~2 % of random curves
# with free handles.
SLACK = 2.0 ** -46




def findzero(terms: np.ndarray, x0: np.ndarray, x: np.ndarray, kind: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``findzero`` + ``solve_cubic`` at times ``x`` in Bezier segments (first key's time ``x0``, ``kind``
    CUBIC or LOWER, float64 ``terms`` from :func:`.keyframes._time_segments`): the first root in [SMALL, 1.000001].

    Where numpy's ``exp``/``log``/``cos``/``acos`` round as the C library does (:func:`libm`), one pass with them.
    Elsewhere (numpy's SIMD versions on some CPUs) a pass with numpy's functions carries bounds of each result
    that hold whatever the C library gives (:data:`SLACK`), and only the elements whose float32 root the bounds
    do not settle are solved again with the C library's, element by element: the same bits at a fraction of
    the cost (a Python call per element was ~0.15-0.2 µs, more than Blender's own sampling).

    Returns:
        (float32 roots, whether one was found), per element.
    """
    functions = libm()
    if all(f is u for f, u in zip(functions, UFUNCS, strict=True)):
        root, found, _unsettled = _solve(terms, x0, x, kind, _Bounds(functions, 0.0))
        return root, found
    root, found, unsettled = _solve(terms, x0, x, kind, _Bounds(UFUNCS, SLACK))
    redo = np.nonzero(unsettled)[0]
    if redo.size:
        root[redo], found[redo], _unsettled = _solve(terms[redo], x0[redo], x[redo], kind[redo],
                                                     _Bounds(functions, 0.0))
    return root, found


class _Span:
    """Bounds ``lo <= v <= hi`` of a float64 array computed as Blender computes it; ``hi is lo`` when exact.

    Rounded IEEE operations are monotonic, so a monotonic step applied to both ends bounds its exact result.
    """

    __slots__ = ("hi", "lo")

    def __init__(self, lo: np.ndarray, hi: np.ndarray | None = None) -> None:
        self.lo = lo
        self.hi = lo if hi is None else hi

    def map(self, step: Callable[[np.ndarray], np.ndarray], *, decreasing: bool = False) -> _Span:
        """``step`` (monotonic) of every value between the ends."""
        if self.hi is self.lo:
            return _Span(step(self.lo))
        a, b = step(self.lo), step(self.hi)
        return _Span(b, a) if decreasing else _Span(a, b)

    def __add__(self, other: _Span) -> _Span:
        if self.hi is self.lo and other.hi is other.lo:
            return _Span(self.lo + other.lo)
        return _Span(self.lo + other.lo, self.hi + other.hi)

    def __sub__(self, other: _Span) -> _Span:
        if self.hi is self.lo and other.hi is other.lo:
            return _Span(self.lo - other.lo)
        return _Span(self.lo - other.hi, self.hi - other.lo)


class _Bounds:
    """The four C functions ``solve_cubic`` calls, applied to spans: exact (``slack`` 0: the functions give the C
    library's bits) or widened by ``slack`` times the magnitude at each end."""

    def __init__(self, functions: tuple[_Unary, _Unary, _Unary, _Unary], slack: float) -> None:
        self.exp, self.log, self.cos, self.acos = functions
        self.slack = slack

    def call(self, function: _Unary, arg: _Span, *, decreasing: bool = False) -> _Span:
        out = arg.map(function, decreasing=decreasing)
        if not self.slack:
            return out
        return _Span(out.lo - np.abs(out.lo) * self.slack, out.hi + np.abs(out.hi) * self.slack)

    def cube_root(self, v: np.ndarray, negative: np.ndarray) -> _Span:
        """``exp(log(|v|) / 3)``, negated where ``negative`` (sqrt3d; its ``copysign`` when given the sign bit)."""
        e = self.call(self.exp, self.call(self.log, _Span(np.abs(v))).map(lambda y: y / 3.0))
        if e.hi is e.lo:
            return _Span(np.where(negative, -e.lo, e.lo))
        return _Span(np.where(negative, -e.hi, e.lo), np.where(negative, -e.lo, e.hi))


def _solve(terms: np.ndarray, x0: np.ndarray, x: np.ndarray, kind: np.ndarray,
           bounds: _Bounds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`findzero` with ``bounds``' functions; also returns where the bounds leave a float32 candidate
    (and so the root) unsettled (never with exact functions)."""
    c0 = (x0 - x).astype(np.float64)
    root = np.zeros(x.shape, dtype=np.float32)
    found = np.zeros(x.shape, dtype=bool)
    unsettled = np.zeros(x.shape, dtype=bool)

    def offer(where: np.ndarray | None, candidate: _Span) -> None:
        # solve_cubic keeps the first candidate in range, in the order it computes them (one per element of
        # the indices ``where``, None: every element).
        cand = candidate.lo.astype(np.float32)
        if candidate.hi is not candidate.lo:
            # Unsettled: the ends differ, the range may hold the exact value, and no earlier root was kept.
            hi = candidate.hi.astype(np.float32)
            open_ = ~((cand == hi) | (hi < _SMALL) | (cand > _ONE) | (np.isnan(cand) & np.isnan(hi)))
            if where is None:
                unsettled[...] |= open_ & ~found
            else:
                unsettled[where] |= open_ & ~found[where]
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
            cubes = bounds.cube_root(first, np.signbit(first)) + bounds.cube_root(second, np.signbit(second))
            offer(_within(ci, oi), cubes - _Span(a if oi is None else a[oi]))
        double = d == 0.0
        if double.any():
            di = np.nonzero(double)[0]
            v = -q[di]
            r_span, ad = bounds.cube_root(v, v < 0.0), _Span(a[di])
            offer(_within(ci, di), r_span.map(lambda r: 2 * r) - ad)
            offer(_within(ci, di), r_span.map(lambda r: -r, decreasing=True) - ad)
        three = ~(one | double)  # d < 0, or NaN
        if three.any():
            ti = np.nonzero(three)[0]
            at, st = _Span(a[ti]), sub[ti]
            phi = bounds.call(bounds.acos, _Span(-q[ti] / st[:, ROOT_P3]), decreasing=True)
            r = st[:, ROOT_P]  # sqrt(-p) > 0: d < 0 needs p < 0
            # phi / 3 lies in [0, pi / 3], where cos decreases; then pc > 0, so qc decreases with pc.
            pc = bounds.call(bounds.cos, phi.map(lambda v: v / 3), decreasing=True)
            qc = pc.map(lambda c: np.sqrt(3 - 3 * c * c), decreasing=True)
            offer(_within(ci, ti), pc.map(lambda c: 2 * r * c) - at)
            offer(_within(ci, ti), (pc + qc).map(lambda s: -r * s, decreasing=True) - at)
            offer(_within(ci, ti), (pc - qc).map(lambda s: -r * s, decreasing=True) - at)
    lower = np.nonzero(kind == LOWER)[0]
    if lower.size:
        sub = terms[lower]
        a, b, c = sub[:, A], sub[:, QA], c0[lower]
        quadratic = a != 0.0
        disc = b * b - 4 * a * c
        two, touch = quadratic & (disc > 0), quadratic & (disc == 0)
        r = np.sqrt(disc[two])
        offer(lower[two], _Span((-b[two] - r) / (2 * a[two])))
        offer(lower[two], _Span((-b[two] + r) / (2 * a[two])))
        offer(lower[touch], _Span(-b[touch] / (2 * a[touch])))
        line = ~quadratic & (b != 0.0)
        offer(lower[line], _Span(-c[line] / b[line]))
        found[lower[~quadratic & (b == 0.0) & (c == 0.0)]] = True  # the root 0
    return root, found, unsettled


def _within(outer: np.ndarray | None, inner: np.ndarray | None) -> np.ndarray | None:
    """``inner`` (indices into the elements ``outer`` picks, None: all) as indices into the whole."""
    if outer is None:
        return inner
    return outer if inner is None else outer[inner]




_Unary = Callable[[np.ndarray], np.ndarray]
# numpy's versions of the C functions solve_cubic calls, in :func:`libm`'s order.
UFUNCS: tuple[_Unary, _Unary, _Unary, _Unary] = (np.exp, np.log, np.cos, np.arccos)


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
        (UFUNCS[0], _c_exp, rng.uniform(-700.0, 240.0, 512)),
        (UFUNCS[1], _c_log, np.exp(rng.uniform(-690.0, 690.0, 512))),
        (UFUNCS[2], _c_cos, rng.uniform(0.0, math.pi, 512)),
        (UFUNCS[3], _c_acos, rng.uniform(-1.0, 1.0, 512)),
    ]
    chosen = []
    for ufunc, scalar, args in battery:
        chosen.append(ufunc if np.array_equal(ufunc(args), _elementwise(scalar)(args)) else _elementwise(scalar))
    return chosen[0], chosen[1], chosen[2], chosen[3]
