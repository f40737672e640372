"""Analytic two-bone IK over a whole frame range, vectorized (source document sections 一 to 七).

Frames are processed in time order, in cache-sized blocks; the only frame-to-frame dependencies (the held
direction at zero distance and the pole hysteresis) are forward fills carried from block to block. Joint
limits then run as a second pass over larger chunks, and a strategy as a third pass over limited frames only.

Speed notes (benchmarks/bench_solver.py): the plain path computes FK from the half-angle factors instead of
cos/sin (numpy's float64 sin/cos cost ~8 ns per value here, the whole plain solve ~30 ns per frame); all float
outputs share one allocation, because fresh memory costs a page fault per 4 KiB (several times the solve).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _scalar
from .limits import TAU, JointLimits, Strategy, apply_limits, elbow_aim_range, smooth_root_offset, wrap_pi
from .options import Options, clamp_bounds, resolve_options
from .result import IKFlag, SolverState, TwoBoneResult
from .smoothing import TargetFilter, smooth_targets
from .soft import soft_distance, soft_inner_distance

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]

BLOCK = 8192  # frames per block: keeps every temporary in L2 cache (about 4x faster than whole arrays)

_F_OUTER = np.uint16(IKFlag.CLAMPED_OUTER)
_F_INNER = np.uint16(IKFlag.CLAMPED_INNER)
_F_SOFT = np.uint16(IKFlag.SOFTENED)
_F_LIM_S = np.uint16(IKFlag.LIMITED_SHOULDER)
_F_LIM_E = np.uint16(IKFlag.LIMITED_ELBOW)
_F_ROOT = np.uint16(IKFlag.ROOT_MOVED)
_F_STRETCH = np.uint16(IKFlag.STRETCHED)
_F_HELD = np.uint16(IKFlag.DIRECTION_HELD)


def solve_two_bone(
    targets: ArrayLike,
    a: float,
    b: float,
    *,
    bend: int | ArrayLike = 1,
    pole: ArrayLike | None = None,
    pole_deadzone: float = 1e-3,
    softness: float = 0.0,
    inner_softness: float = 0.0,
    limits: JointLimits | None = None,
    strategy: Strategy | str = Strategy.ACCEPT,
    max_root_offset: float | None = None,
    root_smoothing: float = 2.0,
    stretch_range: tuple[float, float] = (0.9, 1.1),
    smoothing: TargetFilter | str | None = None,
    eps: float | None = None,
    zero_distance: float | None = None,
    initial_direction: tuple[float, float] = (1.0, 0.0),
    previous: SolverState | None = None,
) -> TwoBoneResult:
    """Solve a planar two-bone chain for every frame of ``targets``.

    Positional:
        targets: ``(N, 2)`` target positions in the shoulder's 2D space (shoulder at the origin), frames in
            time order; or one target of shape ``(2,)`` (then a pure-``math`` single-frame path runs and the
            result arrays drop the frame axis). Length units are the caller's (same as ``a`` and ``b``).
        a, b: upper and lower bone lengths (> 0, length units). ``a == b`` is fine.

    Options (keyword only):
        bend: +1 or -1 (scalar, or ``(N,)`` per frame): which of the two mirrored solutions. +1 gives a
            positive elbow angle, the elbow on the clockwise side of the shoulder->target line. The side never
            changes unless the caller changes it.
        pole: optional point, ``(2,)`` fixed or ``(N, 2)`` per frame, same space as ``targets``. The elbow
            goes to the pole's side: bend = +1 where cross(direction, pole) < 0. Overrides ``bend``, which (or
            ``previous.bend`` when given) is only the fallback for the first frames.
        pole_deadzone: hysteresis, as the sine of the angle between the pole and the shoulder->target line
            (default 1e-3). Inside it the previous frame's side is kept.
        softness: soft IK width as a fraction of L = a+b (0 = hard clamp, typically 0.03-0.08). Distances
            above ``L - s`` become ``L - s*exp(-(d-(L-s))/s)``.
        inner_softness: the same at the inner radius ``|a-b|`` (fraction of L, 0 = off).
        limits: :class:`JointLimits` in radians (shoulder in shoulder space, elbow relative), or None.
        strategy: ``"accept"``, ``"move_root"`` or ``"stretch"`` (:class:`Strategy`); acts only on frames
            where a limit acted.
        max_root_offset: move_root cap, length units (default 0.1 * L).
        root_smoothing: move_root Gaussian smoothing over frames, standard deviation in frames (0 = none;
            zero lag; see :func:`solver.limits.smooth_root_offset`). Default 2.
        stretch_range: ``(min, max)`` bone scale factor for ``stretch`` (default (0.9, 1.1) = +-10%).
        smoothing: optional filter on the target positions before IK: ``"one_euro"``, ``"exponential"`` or a
            :class:`solver.smoothing.TargetFilter` with its parameters. A single target is not filtered.
        eps: distance kept from both reach boundaries, length units (default 1e-9 * L, > 0).
        zero_distance: targets closer than this to the shoulder keep the previous direction, length units
            (default 1e-9 * L).
        initial_direction: direction used when the first frames sit on the shoulder (default +x).
        previous: :class:`SolverState` of the previous solve (``result.state``) for continuity: held
            direction, pole fallback side, move_root smoothing history.

    Returns:
        :class:`solver.result.TwoBoneResult` (angles in radians, positions in length units, flags, errors,
        sensitivity, root offset, stretch, final state).
    """
    option_args = (float(a), float(b), softness, inner_softness, eps, zero_distance, pole_deadzone, limits,
                   strategy, max_root_offset, root_smoothing, stretch_range, initial_direction)
    try:
        opts = _cached_options(*option_args)
    except TypeError:  # an unhashable argument (e.g. a list): resolve without the cache
        opts = _cached_options.__wrapped__(*option_args)
    raw = np.asarray(targets, dtype=np.float64)
    if raw.shape == (2,):
        tx, ty = float(raw[0]), float(raw[1])
        if not (math.isfinite(tx) and math.isfinite(ty)):
            raise ValueError("targets must be finite")
        return _scalar.solve_single(tx, ty, opts, _single_bend(bend), _single_pole(pole), previous)
    if raw.ndim != 2 or raw.shape[1] != 2:
        raise ValueError(f"targets must have shape (N, 2) or (2,), got {raw.shape}")
    if raw.size and not (math.isfinite(raw.min()) and math.isfinite(raw.max())):  # NaN propagates to both
        raise ValueError("targets must be finite")
    aimed = raw if smoothing is None else smooth_targets(raw, smoothing)
    n = raw.shape[0]
    return _solve_frames(raw, aimed, opts, _frame_bend(bend, n), _frame_pole(pole, n), previous)


@functools.lru_cache(maxsize=64)
def _cached_options(
    a: float,
    b: float,
    softness: float,
    inner_softness: float,
    eps: float | None,
    zero_distance: float | None,
    pole_deadzone: float,
    limits: JointLimits | None,
    strategy: Strategy | str,
    max_root_offset: float | None,
    root_smoothing: float,
    stretch_range: tuple[float, float],
    initial_direction: tuple[float, float],
) -> Options:
    return resolve_options(
        a,
        b,
        softness=softness,
        inner_softness=inner_softness,
        eps=eps,
        zero_distance=zero_distance,
        pole_deadzone=pole_deadzone,
        limits=limits,
        strategy=strategy,
        max_root_offset=max_root_offset,
        root_smoothing=root_smoothing,
        stretch_range=stretch_range,
        initial_direction=initial_direction,
    )


def _single_bend(bend: int | ArrayLike) -> int:
    if bend == 1 or bend == -1:  # plain ints: the live path skips numpy
        return int(bend)  # type: ignore[arg-type]
    arr = np.asarray(bend).reshape(-1)
    if arr.size != 1 or arr[0] not in (1, -1):
        raise ValueError(f"bend must be +1 or -1, got {bend!r}")
    return int(arr[0])


def _frame_bend(bend: int | ArrayLike, n: int) -> int | NDArray[np.int8]:
    """A scalar bend stays a Python int (cheaper arithmetic); per-frame bends become an int8 array."""
    arr = np.asarray(bend)
    if arr.ndim == 0:
        return _single_bend(arr.item())
    if arr.shape != (n,):
        raise ValueError(f"bend must be a scalar or have shape ({n},), got {arr.shape}")
    if not ((arr == 1) | (arr == -1)).all():
        raise ValueError("bend must be +1 or -1")
    return arr.astype(np.int8)


def _single_pole(pole: ArrayLike | None) -> tuple[float, float] | None:
    if pole is None:
        return None
    if isinstance(pole, tuple) and len(pole) == 2:  # the live path: skip numpy
        px, py = float(pole[0]), float(pole[1])
        if not (math.isfinite(px) and math.isfinite(py)):
            raise ValueError("pole must be finite")
        return px, py
    arr = np.asarray(pole, dtype=np.float64).reshape(-1)
    if arr.shape != (2,) or not np.isfinite(arr).all():
        raise ValueError("pole for a single target must be a finite (2,) point")
    return float(arr[0]), float(arr[1])


def _frame_pole(pole: ArrayLike | None, n: int) -> FloatArray | None:
    if pole is None:
        return None
    arr = np.asarray(pole, dtype=np.float64)
    if arr.shape == (2,):
        arr = np.broadcast_to(arr, (n, 2))
    if arr.shape != (n, 2) or not np.isfinite(arr).all():
        raise ValueError(f"pole must be a finite (2,) or ({n}, 2) array")
    return arr


@dataclass
class _Frames:
    """Output buffers for N frames, filled block by block."""

    shoulder: FloatArray
    elbow_angle: FloatArray
    elbow: FloatArray
    end: FloatArray
    solved: FloatArray
    distance: FloatArray
    solved_distance: FloatArray
    stretch: FloatArray
    flags: NDArray[np.uint16]
    bend: NDArray[np.int8]

    @classmethod
    def empty(cls, n: int) -> _Frames:
        """All float outputs are views of one allocation.

        Fresh memory costs a page fault per 4 KiB on first write, several times the solve itself. The
        allocator keeps one large freed chunk for the next request of the same size, while a dozen separate
        arrays of this size are returned to the system and faulted in again on every solve.
        """
        buf = np.empty(11 * n)
        stretch = buf[10 * n :]
        stretch.fill(1.0)
        return cls(
            elbow=buf[: 2 * n].reshape(n, 2),
            end=buf[2 * n : 4 * n].reshape(n, 2),
            solved=buf[4 * n : 6 * n].reshape(n, 2),
            shoulder=buf[6 * n : 7 * n],
            elbow_angle=buf[7 * n : 8 * n],
            distance=buf[8 * n : 9 * n],
            solved_distance=buf[9 * n : 10 * n],
            stretch=stretch,
            flags=np.zeros(n, dtype=np.uint16),
            bend=np.empty(n, dtype=np.int8),
        )

    def directions(self, idx: IntArray) -> FloatArray:
        """Unit directions of the given frames (the solved distance is never 0)."""
        return np.asarray(self.solved[idx] / self.solved_distance[idx, None])


def _forward_fill(valid: NDArray[np.bool_]) -> tuple[IntArray, NDArray[np.bool_]]:
    """Index of the latest valid frame at or before each frame, and whether one exists."""
    idx = np.where(valid, np.arange(valid.size), -1)
    np.maximum.accumulate(idx, out=idx)
    return idx, idx >= 0


def _held_direction(
    tx: FloatArray, ty: FloatArray, raw_d: FloatArray, d_min: float, zero: float, carry: tuple[float, float]
) -> tuple[FloatArray, FloatArray, NDArray[np.bool_] | None]:
    if d_min > zero:
        return tx / raw_d, ty / raw_d, None
    valid = raw_d > zero
    safe = np.where(valid, raw_d, 1.0)
    dx = tx / safe
    dy = ty / safe
    idx, have = _forward_fill(valid)
    dx = np.where(have, dx[idx], carry[0])
    dy = np.where(have, dy[idx], carry[1])
    return dx, dy, ~valid


def _pole_bend(dx: FloatArray, dy: FloatArray, pole: FloatArray, deadzone: float, carry: int) -> NDArray[np.int8]:
    px = pole[:, 0]
    py = pole[:, 1]
    cross = dx * py - dy * px
    decided = np.abs(cross) > deadzone * np.hypot(px, py)
    side = np.where(cross < 0.0, 1, -1).astype(np.int8)
    idx, have = _forward_fill(decided)
    return np.where(have, side[idx], np.int8(carry)).astype(np.int8)


def _angles(d: FloatArray, a: FloatArray | float, b: FloatArray | float) -> tuple[FloatArray, FloatArray]:
    """Elbow bend magnitude ``pi - gamma`` and shoulder offset ``alpha`` for clamped distances ``d``.

    Half-angle forms of the law of cosines: ``cos^2(gamma/2) = (L^2-d^2)/(4ab)``,
    ``sin^2(gamma/2) = (d^2-r^2)/(4ab)`` (same for alpha). They equal ``acos`` of the document's clamped
    cosines but keep full relative precision at both reach boundaries, where ``acos`` loses half the digits.
    """
    total = a + b
    r = np.abs(a - b)
    lmd = total - d
    lpd = total + d
    m = np.arctan2(np.sqrt(lmd * lpd), np.sqrt((d - r) * (d + r)))
    m *= 2.0
    alpha = np.arctan2(np.sqrt((b - a + d) * lmd), np.sqrt((a - b + d) * lpd))
    alpha *= 2.0
    return m, alpha


def _half_angles(d: FloatArray, a: float, b: float) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """:func:`_angles` for scalar lengths, also returning ``(d-r)(d+r)`` and ``(L-d)(L+d)``.

    For scalar lengths ``b - a + d`` and ``a - b + d`` are ``d - r`` and ``d + r`` in some order, so the four
    factors are computed once and shared with the sensitivity.
    """
    r = abs(a - b)
    total = a + b
    dmr = d - r
    dpr = d + r
    lmd = total - d
    lpd = total + d
    inner_product = dmr * dpr
    outer_product = lmd * lpd
    m = np.arctan2(np.sqrt(outer_product), np.sqrt(inner_product))
    m *= 2.0
    near, far = (dmr, dpr) if a >= b else (dpr, dmr)  # (b - a + d, a - b + d)
    near *= lmd
    far *= lpd
    alpha = np.arctan2(np.sqrt(near), np.sqrt(far))
    alpha *= 2.0
    return m, alpha, inner_product, outer_product


def _block(
    out: _Frames,
    sl: slice,
    targets: FloatArray,
    bend: int | NDArray[np.int8],
    pole: FloatArray | None,
    opts: Options,
    carry_dir: tuple[float, float],
    carry_bend: int,
    phi_out: FloatArray | None,
) -> tuple[tuple[float, float], int]:
    """First pass over one block: analytic solve, soft IK, FK (and the target angles for :func:`_limit_pass`).

    Results go straight into the output slices and temporaries are reused (``out=``): a block fits in cache,
    so the cost is the number of array passes; the plain path makes about fifty, with no trigonometry in FK.
    """
    a, b, total, inner = opts.a, opts.b, opts.total, opts.inner
    raw_d = out.distance[sl]
    # |x + iy| of the interleaved (x, y) rows: one SIMD pass, no overflow or underflow of the squares.
    np.abs(targets.view(np.complex128)[:, 0], out=raw_d)
    tx = targets[:, 0]
    ty = targets[:, 1]
    tmp = np.empty_like(raw_d)
    d_min, d_max = float(raw_d.min()), float(raw_d.max())
    dx, dy, held = _held_direction(tx, ty, raw_d, d_min, opts.zero_distance, carry_dir)
    if pole is not None:
        bend = _pole_bend(dx, dy, pole, opts.pole_deadzone, carry_bend)
    flags = out.flags[sl]
    if held is not None:
        flags[held] |= _F_HELD

    soft = raw_d
    if opts.outer_width > 0.0:
        soft = soft_distance(soft, total, opts.outer_width)
        flags[raw_d > total - opts.outer_width] |= _F_SOFT
    if opts.inner_width > 0.0:
        flags[soft < inner + opts.inner_width] |= _F_SOFT
        soft = soft_inner_distance(soft, inner, opts.inner_width)
    if soft is not raw_d:
        d_min, d_max = float(soft.min()), float(soft.max())
    lo, hi = clamp_bounds(a, b, opts.eps)
    if d_max > hi:
        flags[soft > hi] |= _F_OUTER
    if d_min < lo:
        flags[soft < lo] |= _F_INNER
    d = out.solved_distance[sl]
    np.clip(soft, lo, hi, out=d)

    # Half-angle factors of _angles (scalar lengths: b - a + d and a - b + d are d - r and d + r).
    dmr = d - inner
    dpr = d + inner
    lmd = total - d
    lpd = d + total
    q_in = dmr * dpr  # d^2 - r^2
    p_out = lmd * lpd  # L^2 - d^2
    near, far = (dmr, dpr) if a >= b else (dpr, dmr)
    near *= lmd
    far *= lpd
    # cos/sin of the doubled half angles, divided by the *computed* sum of squares (not the exact 4ad, 4ab):
    # that keeps them consistent with the arctan2 angles to rounding even where d - r cancels.
    a_cos = far - near
    a_den = far + near
    cos_m = q_in - p_out
    m_den = q_in + p_out
    np.sqrt(near, out=near)
    np.sqrt(far, out=far)
    alpha = np.arctan2(near, far)
    alpha *= 2.0
    np.sqrt(q_in, out=q_in)
    np.sqrt(p_out, out=p_out)
    m = np.arctan2(p_out, q_in)
    m *= 2.0
    phi = np.arctan2(dy, dx)

    s = out.shoulder[sl]
    e = out.elbow_angle[sl]
    a_sin = near
    a_sin *= far
    ks = q_in
    ks *= p_out
    if isinstance(bend, int):
        if bend > 0:
            np.subtract(phi, alpha, out=s)
            e[...] = m
        else:
            np.add(phi, alpha, out=s)
            np.negative(m, out=e)
        sin_sign: float | FloatArray = 2.0 * bend
        ks *= sin_sign
    else:
        bend_f = bend.astype(np.float64)
        alpha *= bend_f
        np.subtract(phi, alpha, out=s)
        np.multiply(m, bend_f, out=e)
        sin_sign = bend_f
        sin_sign *= 2.0
        ks *= sin_sign
    _wrap_pi_inplace(s, tmp)

    sx = np.multiply(d, dx)
    sy = np.multiply(d, dy)
    out.bend[sl] = bend

    # FK from the same factors instead of cos/sin of the angles (those cost ~8 ns each per frame):
    # elbow = a (cos s, sin s) with s = phi - bend alpha; tip = elbow rotated by bend m, scaled by b/a, added.
    inv = np.divide(a, a_den, out=a_den)
    a_cos *= inv  # a cos(alpha)
    a_sin *= inv
    a_sin *= sin_sign  # bend a sin(alpha)
    inv = np.divide(b / a, m_den, out=m_den)
    kc = cos_m
    kc *= inv
    kc += 1.0  # 1 + b/a cos(m)
    ks *= inv  # bend b/a sin(m)
    ex = np.multiply(dx, a_cos)
    np.multiply(dy, a_sin, out=tmp)
    ex += tmp
    ey = np.multiply(dy, a_cos, out=a_cos)
    np.multiply(dx, a_sin, out=tmp)
    ey -= tmp
    end_x = np.multiply(ex, kc)
    np.multiply(ey, ks, out=tmp)
    end_x -= tmp
    end_y = np.multiply(ey, kc, out=kc)
    np.multiply(ex, ks, out=tmp)
    end_y += tmp

    if phi_out is not None:
        phi_out[...] = phi
    # Contiguous temporaries above, one strided copy per output column here (strided ufuncs cost 3x).
    solved = out.solved[sl]
    solved[:, 0] = sx
    solved[:, 1] = sy
    elbow = out.elbow[sl]
    elbow[:, 0] = ex
    elbow[:, 1] = ey
    end = out.end[sl]
    end[:, 0] = end_x
    end[:, 1] = end_y
    last_bend = bend if isinstance(bend, int) else int(bend[-1])
    return (float(dx[-1]), float(dy[-1])), last_bend


LIMIT_CHUNK = 4 * BLOCK  # frames per limits pass: a quarter or so hit a limit, so the box search gets ~BLOCK


def _limit_pass(out: _Frames, phi: FloatArray, bend: int | None, opts: Options) -> None:
    """Joint limits (the ``accept`` answer) over all frames, after the analytic pass.

    A separate pass in larger chunks: the box search runs only on limited frames, and its Python overhead
    is per call, so it should see as many of them at once as the cache allows.
    """
    assert opts.limits is not None
    a, b = opts.a, opts.b
    n = phi.shape[0]
    for start in range(0, n, LIMIT_CHUNK):
        sl = slice(start, min(start + LIMIT_CHUNK, n))
        s = out.shoulder[sl]
        e = out.elbow_angle[sl]
        sx = out.solved[sl, 0]
        sy = out.solved[sl, 1]
        side = out.bend[sl] if bend is None else bend
        s_lim, e_lim, lim_s, lim_e = apply_limits(s, e, phi[sl], sx, sy, a, b, side, opts.limits)
        flags = out.flags[sl]
        flags[lim_s] |= _F_LIM_S
        flags[lim_e] |= _F_LIM_E
        # Angles the limits moved (beyond re-expressing the shoulder inside its arc) need a real FK.
        moved = np.flatnonzero((s_lim != s) | (e_lim != e))
        s[...] = s_lim
        e[...] = e_lim
        if moved.size:
            ex, ey, end_x, end_y = _fk(s[moved], e[moved], a, b, 0.0, 0.0)
            rows = moved + start
            out.elbow[rows, 0] = ex
            out.elbow[rows, 1] = ey
            out.end[rows, 0] = end_x
            out.end[rows, 1] = end_y


def _wrap_pi_inplace(x: FloatArray, scratch: FloatArray) -> None:
    """:func:`solver.limits.wrap_pi` into ``x`` itself (same operations, so the same rounding)."""
    np.subtract(x, math.pi, out=scratch)
    np.divide(scratch, TAU, out=scratch)
    np.ceil(scratch, out=scratch)
    scratch *= TAU
    x -= scratch


def _resolve(
    tx: FloatArray,
    ty: FloatArray,
    fallback: FloatArray,
    bend: NDArray[np.int8],
    opts: Options,
    eps: FloatArray | float,
) -> tuple[FloatArray, FloatArray, NDArray[np.bool_], NDArray[np.bool_]]:
    """Hard-clamped analytic solve + best reach within limits for a strategy's adjusted frames.

    ``(tx, ty)`` are already soft-clamped targets seen from the moved root, or divided by the bone scale
    (angles do not change when the chain and its target scale together, so every re-solve uses the real
    bones); ``eps`` is the clamp margin in the same units (``opts.eps / k`` for scale ``k``).
    ``fallback`` (k, 2) is each frame's own direction, used if the adjusted target sits on the root.
    """
    a, b = opts.a, opts.b
    raw_d = np.sqrt(tx * tx + ty * ty)
    valid = raw_d > opts.zero_distance
    safe = np.where(valid, raw_d, 1.0)
    dx = np.where(valid, tx / safe, fallback[:, 0])
    dy = np.where(valid, ty / safe, fallback[:, 1])
    lo = opts.inner + eps
    hi = opts.total - eps
    mid = 0.5 * (abs(a - b) + a + b)
    collapsed = lo > hi
    d = np.clip(raw_d, np.where(collapsed, mid, lo), np.where(collapsed, mid, hi))
    m, alpha = _angles(d, a, b)
    phi = np.arctan2(dy, dx)
    bend_f = bend.astype(np.float64)
    s = phi - bend_f * alpha
    e = bend_f * m
    assert opts.limits is not None
    s, e, lim_s, lim_e = apply_limits(s, e, phi, d * dx, d * dy, a, b, bend, opts.limits)
    if opts.limits.shoulder is None:
        s = wrap_pi(s)
    return s, e, lim_s, lim_e


def _cap(vec: FloatArray, cap: float) -> FloatArray:
    """Shorten the (k, 2) rows longer than ``cap`` to length ``cap`` (a new array)."""
    x = vec[:, 0]
    y = vec[:, 1]
    norm = np.sqrt(x * x + y * y)
    out = np.array(vec)
    over = np.flatnonzero(norm > cap)
    if over.size:
        factor = cap / norm[over]
        out[over, 0] *= factor
        out[over, 1] *= factor
    return out


def _move_root(out: _Frames, opts: Options, previous: SolverState | None) -> FloatArray:
    n = out.shoulder.shape[0]
    limited = np.flatnonzero(out.flags & (_F_LIM_S | _F_LIM_E))
    prev = previous.root_offset if previous is not None else None
    offset = np.zeros((n, 2))
    if limited.size == 0 and (prev is None or prev == (0.0, 0.0)):
        return offset
    missing = out.solved[limited] - out.end[limited]
    offset[limited] = _cap(missing, opts.max_root_offset)
    offset = _cap(smooth_root_offset(offset, opts.root_smoothing, prev), opts.max_root_offset)
    moved_all = np.flatnonzero((offset[:, 0] != 0.0) | (offset[:, 1] != 0.0))
    for start in range(0, moved_all.size, BLOCK):
        moved = moved_all[start : start + BLOCK]
        ox = offset[moved, 0]
        oy = offset[moved, 1]
        sx = out.solved[moved, 0]
        sy = out.solved[moved, 1]
        s, e, lim_s, lim_e = _resolve(sx - ox, sy - oy, out.directions(moved), out.bend[moved], opts, opts.eps)
        ex, ey, end_x, end_y = _fk(s, e, opts.a, opts.b, ox, oy)
        # Never worse than keeping the accepted pose on the moved root (possible once smoothing bent the
        # offset away from the missing vector): that pose's tip is simply the accepted tip + offset.
        old_x = out.end[moved, 0] + ox
        old_y = out.end[moved, 1] + oy
        use_new = _dist2(end_x, end_y, sx, sy) <= _dist2(old_x, old_y, sx, sy)
        out.shoulder[moved] = np.where(use_new, s, out.shoulder[moved])
        out.elbow_angle[moved] = np.where(use_new, e, out.elbow_angle[moved])
        out.elbow[moved, 0] = np.where(use_new, ex, out.elbow[moved, 0] + ox)
        out.elbow[moved, 1] = np.where(use_new, ey, out.elbow[moved, 1] + oy)
        out.end[moved, 0] = np.where(use_new, end_x, old_x)
        out.end[moved, 1] = np.where(use_new, end_y, old_y)
        out.flags[moved] |= _F_ROOT | np.where(use_new & lim_s, _F_LIM_S, 0).astype(np.uint16)
        out.flags[moved] |= np.where(use_new & lim_e, _F_LIM_E, 0).astype(np.uint16)
    return offset


def _dist2(x: FloatArray, y: FloatArray, tx: FloatArray, ty: FloatArray) -> FloatArray:
    dx = x - tx
    dy = y - ty
    return np.asarray(dx * dx + dy * dy)


def _fk(
    s: FloatArray,
    e: FloatArray,
    a: FloatArray | float,
    b: FloatArray | float,
    root_x: FloatArray | float,
    root_y: FloatArray | float,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Forward kinematics (docs/design.md): elbow and tip coordinates from the final angles."""
    se = s + e
    ex = np.cos(s)
    ex *= a
    ey = np.sin(s)
    ey *= a
    if not (isinstance(root_x, float) and root_x == 0.0 and isinstance(root_y, float) and root_y == 0.0):
        ex += root_x
        ey += root_y
    end_x = np.cos(se)
    end_x *= b
    end_x += ex
    end_y = np.sin(se)
    end_y *= b
    end_y += ey
    return ex, ey, end_x, end_y


def stretch_factor(
    solved_distance: FloatArray,
    elbow_limited: FloatArray,
    a: float,
    b: float,
    stretch_range: tuple[float, float],
) -> FloatArray:
    """Bone scale that makes a chain whose elbow sits at ``elbow_limited`` span ``solved_distance``.

    The chain spans ``D = sqrt(a^2 + b^2 + 2ab cos(elbow))``; the factor ``d / D`` is clipped to
    ``stretch_range`` (``max`` where D = 0).
    """
    span = np.sqrt(a * a + b * b + 2.0 * a * b * np.cos(elbow_limited))
    k_lo, k_hi = stretch_range
    ratio = np.where(span > 0.0, solved_distance / np.where(span > 0.0, span, 1.0), k_hi)
    return np.asarray(np.clip(ratio, k_lo, k_hi))


def stretch_candidates(
    solved_x: FloatArray,
    solved_y: FloatArray,
    solved_distance: FloatArray,
    bend: NDArray[np.int8],
    a: float,
    b: float,
    limits: JointLimits,
    stretch_range: tuple[float, float],
) -> list[FloatArray]:
    """Bone scale factors worth trying on limited frames, each clipped to ``stretch_range``.

    - Elbow at each bound of its allowed range: the chain then spans ``D(e)``, so ``k = d / D(e)``
      (:func:`stretch_factor`).
    - Shoulder at each bound ``s``: the scaled tip ``k (a u + b v)`` meets the target when ``T / k`` is at
      distance ``b`` from ``a u`` (u = (cos s, sin s)): ``w^2 d^2 - 2 w a (T.u) + a^2 - b^2 = 0`` with
      ``w = 1/k``; the positive root nearest to 1 (none real: 1).
    """
    cands: list[FloatArray] = []
    e_lo, e_hi = elbow_aim_range(limits, bend)
    for e_bound in (e_lo, e_hi):
        cands.append(stretch_factor(solved_distance, e_bound, a, b, stretch_range))
    if limits.shoulder is not None:
        d2 = solved_distance * solved_distance
        for s_bound in limits.shoulder:
            p = solved_x * math.cos(s_bound) + solved_y * math.sin(s_bound)
            disc = a * a * p * p - d2 * (a * a - b * b)
            root = np.sqrt(np.maximum(disc, 0.0))
            w1 = (a * p + root) / d2
            w2 = (a * p - root) / d2
            k1 = np.where(w1 > 0.0, 1.0 / np.where(w1 > 0.0, w1, 1.0), np.inf)
            k2 = np.where(w2 > 0.0, 1.0 / np.where(w2 > 0.0, w2, 1.0), np.inf)
            k = np.where(np.abs(k2 - 1.0) < np.abs(k1 - 1.0), k2, k1)
            k = np.where((disc < 0.0) | np.isinf(k), 1.0, k)
            cands.append(np.clip(k, *stretch_range))
    return cands


def _stretch(out: _Frames, opts: Options) -> FloatArray:
    scale = out.stretch
    limited = np.flatnonzero(out.flags & (_F_LIM_S | _F_LIM_E))
    if limited.size == 0 or opts.limits is None:
        return scale
    a, b = opts.a, opts.b
    tol = 1e-9 * opts.total
    n_cands = 4 if opts.limits.shoulder is not None else 2
    chunk = max(1, LIMIT_CHUNK // n_cands)
    for start in range(0, limited.size, chunk):
        idx = limited[start : start + chunk]
        sx = out.solved[idx, 0]
        sy = out.solved[idx, 1]
        bend = out.bend[idx]
        cands = stretch_candidates(sx, sy, out.solved_distance[idx], bend, a, b, opts.limits, opts.stretch_range)
        # Every new candidate of every frame in one re-solve (Python overhead is per call, not per frame).
        # A factor of 1 or one already tried re-solves to a pose already scored, which cannot win: skipped.
        k_all = np.concatenate(cands)
        c = len(cands)
        m = idx.size
        fresh = k_all != 1.0
        for j in range(1, c):
            part = fresh[j * m : (j + 1) * m]
            for i in range(j):
                part &= cands[j] != cands[i]
        rows = np.flatnonzero(fresh)
        k_rows = k_all[rows]
        frame = rows % m
        sx_rows = sx[frame]
        sy_rows = sy[frame]
        s_rows, e_rows, lim_s_rows, lim_e_rows = _resolve(
            sx_rows / k_rows,
            sy_rows / k_rows,
            out.directions(idx[frame]),
            bend[frame],
            opts,
            opts.eps / k_rows,
        )
        _, _, end_x, end_y = _fk(s_rows, e_rows, a * k_rows, b * k_rows, 0.0, 0.0)
        err_all = np.full(k_all.size, np.inf)
        err_all[rows] = np.sqrt(_dist2(end_x, end_y, sx_rows, sy_rows))
        s_all = np.zeros(k_all.size)
        s_all[rows] = s_rows
        e_all = np.zeros(k_all.size)
        e_all[rows] = e_rows
        lim_s_all = np.zeros(k_all.size, dtype=bool)
        lim_s_all[rows] = lim_s_rows
        lim_e_all = np.zeros(k_all.size, dtype=bool)
        lim_e_all[rows] = lim_e_rows
        lim_all = np.where(lim_s_all, _F_LIM_S, 0) | np.where(lim_e_all, _F_LIM_E, 0)

        best_err = np.sqrt(_dist2(out.end[idx, 0], out.end[idx, 1], sx, sy))
        best_k = np.ones(idx.size)
        best_s = out.shoulder[idx]
        best_e = out.elbow_angle[idx]
        best_lim = np.zeros(idx.size, dtype=np.uint16)
        for j in range(c):
            part = slice(j * idx.size, (j + 1) * idx.size)
            k = k_all[part]
            err = err_all[part]
            # Closer by more than rounding, or as close with less stretch: accepting the error wins ties.
            better = (err < best_err - tol) | ((err <= best_err + tol) & (np.abs(k - 1.0) < np.abs(best_k - 1.0)))
            best_err = np.where(better, err, best_err)
            best_k = np.where(better, k, best_k)
            best_s = np.where(better, s_all[part], best_s)
            best_e = np.where(better, e_all[part], best_e)
            best_lim = np.where(better, lim_all[part], best_lim).astype(np.uint16)
        ex, ey, end_x, end_y = _fk(best_s, best_e, a * best_k, b * best_k, 0.0, 0.0)
        stretched = best_k != 1.0
        out.shoulder[idx] = best_s
        out.elbow_angle[idx] = best_e
        out.elbow[idx, 0] = ex
        out.elbow[idx, 1] = ey
        out.end[idx, 0] = end_x
        out.end[idx, 1] = end_y
        out.flags[idx] |= np.where(stretched, best_lim | _F_STRETCH, 0).astype(np.uint16)
        scale[idx] = best_k
    return scale


def _solve_frames(
    raw: FloatArray,
    aimed: FloatArray,
    opts: Options,
    bend: int | NDArray[np.int8],
    pole: FloatArray | None,
    previous: SolverState | None,
) -> TwoBoneResult:
    n = aimed.shape[0]
    out = _Frames.empty(n)
    aimed_rows = np.ascontiguousarray(aimed)  # rows viewed as complex numbers in _block
    carry_dir = previous.direction if previous is not None else opts.initial_direction
    if previous is not None:
        carry_bend = previous.bend
    else:
        carry_bend = bend if isinstance(bend, int) else (int(bend[0]) if n else 1)
    phi = None if opts.limits is None else np.empty(n)
    for start in range(0, n, BLOCK):
        sl = slice(start, min(start + BLOCK, n))
        carry_dir, carry_bend = _block(
            out,
            sl,
            aimed_rows[sl],
            bend if isinstance(bend, int) else bend[sl],
            None if pole is None else pole[sl],
            opts,
            carry_dir,
            carry_bend,
            None if phi is None else phi[sl],
        )
    if phi is not None:
        scalar_bend = bend if isinstance(bend, int) and pole is None else None  # a pole decides per frame
        _limit_pass(out, phi, scalar_bend, opts)

    root = np.zeros((n, 2))
    if opts.limits is not None and opts.strategy is Strategy.MOVE_ROOT:
        root = _move_root(out, opts, previous)
    elif opts.limits is not None and opts.strategy is Strategy.STRETCH:
        _stretch(out, opts)

    if n:
        state = SolverState(
            direction=carry_dir, bend=int(out.bend[-1]), root_offset=(float(root[-1, 0]), float(root[-1, 1]))
        )
    else:
        state = previous if previous is not None else SolverState(direction=opts.initial_direction)
    return TwoBoneResult(
        shoulder_angle=out.shoulder,
        elbow_angle=out.elbow_angle,
        elbow=out.elbow,
        end=out.end,
        target=aimed,
        input_target=raw,
        solved_target=out.solved,
        distance=out.distance,
        solved_distance=out.solved_distance,
        flags=out.flags,
        bend=out.bend,
        root_offset=root,
        stretch=out.stretch,
        state=state,
        sensitivity_params=(opts.a, opts.b, opts.outer_width, opts.inner_width, opts.zero_distance),
    )
