"""Single-frame solve in pure ``math`` (live preview while dragging: no per-call numpy overhead).

Mirrors the vectorized passes of :mod:`solver.two_bone` step by step (tests hold both to 1e-12); keep them in
sync. The result arrays drop the frame axis (0-d arrays and (2,) points).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import NDArray

from ..closed_forms import (
    FLOATS,
    TAU,
    dist2,
    fk,
    half_angles,
    sensitivity,
    shoulder_stretch,
    soft_inner,
    soft_outer,
    soft_slope,
    stretch_factor,
    wrap_pi,
)
from ..limits import ANGLE_TOLERANCE, JointLimits, Strategy, aim_bounds, gaussian_weights
from ..options import Options, clamp_bounds
from ..result import IKFlag, SolverState, TwoBoneResult

# Plain ints: IntFlag arithmetic costs about a microsecond per operation on this path.
_OUTER = int(IKFlag.CLAMPED_OUTER)
_INNER = int(IKFlag.CLAMPED_INNER)
_SOFT = int(IKFlag.SOFTENED)
_LIM_S = int(IKFlag.LIMITED_SHOULDER)
_LIM_E = int(IKFlag.LIMITED_ELBOW)
_ROOT = int(IKFlag.ROOT_MOVED)
_STRETCH = int(IKFlag.STRETCHED)
_HELD = int(IKFlag.DIRECTION_HELD)
_LIMITED = _LIM_S | _LIM_E


def _clamp_arc(angle: float, lo: float, hi: float) -> tuple[float, bool]:
    width = hi - lo
    if width >= TAU:
        return min(lo + (angle - lo) % TAU, hi), False
    center = 0.5 * (lo + hi)
    half = 0.5 * width
    delta = wrap_pi(angle - center, FLOATS)
    if delta > half + ANGLE_TOLERANCE:
        return hi, True
    if delta < -half - ANGLE_TOLERANCE:
        return lo, True
    return min(max(center + delta, lo), hi), False


def _clamp_arc_bounds(angle: float, lo: float, hi: float) -> float:
    center = 0.5 * (lo + hi)
    half = 0.5 * (hi - lo)
    delta = wrap_pi(angle - center, FLOATS)
    if delta > half:
        return hi
    if delta < -half:
        return lo
    return min(max(center + delta, lo), hi)


def _limit(
    s: float, e: float, phi: float, sx: float, sy: float, a: float, b: float, bend: int, limits: JointLimits
) -> tuple[float, float, int]:
    """Mirror of :func:`solver.limits.apply_limits` for one frame (same candidates, same order)."""
    lim_s = lim_e = False
    if limits.shoulder is not None:
        s, lim_s = _clamp_arc(s, *limits.shoulder)
    if limits.elbow is not None:
        e_min, e_max = limits.elbow
        lim_e = e < e_min - ANGLE_TOLERANCE or e > e_max + ANGLE_TOLERANCE
        e = min(max(e, e_min), e_max)
    if not (lim_s or lim_e):
        return s, e, 0
    e_lo, e_hi = aim_bounds(limits, bend)
    best = math.inf
    dist = math.sqrt(sx * sx + sy * sy)
    for e_c in (e_lo, e_hi):
        # Same tip distances as solver.limits._best_in_box: aimed at the target unless on a bound.
        vx = a + b * math.cos(e_c)
        vy = b * math.sin(e_c)
        s_c = phi - math.atan2(vy, vx)
        gap = dist - math.sqrt(vx * vx + vy * vy)
        err = gap * gap
        if limits.shoulder is None:
            s_c = wrap_pi(s_c, FLOATS)
        else:
            s_c = _clamp_arc(s_c, *limits.shoulder)[0]
            if s_c in limits.shoulder:
                cs, sn = math.cos(s_c), math.sin(s_c)
                err = dist2(cs * vx - sn * vy, sn * vx + cs * vy, sx, sy)
        if err < best:
            best, s, e = err, s_c, e_c
    if limits.shoulder is not None:
        for s_c in limits.shoulder:
            ex = a * math.cos(s_c)
            ey = a * math.sin(s_c)
            rx = sx - ex
            ry = sy - ey
            aim = wrap_pi(math.atan2(ry, rx) - s_c, FLOATS)
            e_c = _clamp_arc_bounds(aim, e_lo, e_hi)
            gap = math.sqrt(rx * rx + ry * ry) - b
            err = gap * gap
            if e_c in (e_lo, e_hi):
                err = dist2(ex + b * math.cos(s_c + e_c), ey + b * math.sin(s_c + e_c), sx, sy)
            if err < best:
                best, s, e = err, s_c, e_c
    flags = 0
    if limits.shoulder is not None and (lim_s or s in limits.shoulder):
        flags |= _LIM_S
    if limits.elbow is not None and (lim_e or e in limits.elbow):
        flags |= _LIM_E
    return s, e, flags


def _solve_point(
    tx: float, ty: float, fallback: tuple[float, float], bend: int, opts: Options, eps: float
) -> tuple[float, float, int]:
    """Hard-clamped solve + limits for a strategy's adjusted target (mirror of :func:`.limits_pass.resolve`)."""
    a, b = opts.a, opts.b
    raw_d = math.sqrt(tx * tx + ty * ty)
    if raw_d > opts.zero_distance:
        dx, dy = tx / raw_d, ty / raw_d
    else:
        dx, dy = fallback
    lo, hi = clamp_bounds(a, b, eps)
    d = min(max(raw_d, lo), hi)
    m, alpha = half_angles(d, a, b, FLOATS)
    phi = math.atan2(dy, dx)
    assert opts.limits is not None
    s, e, flags = _limit(phi - bend * alpha, bend * m, phi, d * dx, d * dy, a, b, bend, opts.limits)
    if opts.limits.shoulder is None:
        s = wrap_pi(s, FLOATS)
    return s, e, flags


@functools.lru_cache(maxsize=16)
def _edge_weights(sigma: float) -> tuple[float, float]:
    """(sum of the kernel's left half, its centre weight) of :func:`solver.limits.gaussian_weights`."""
    w = gaussian_weights(sigma)
    half = (w.size - 1) // 2
    return float(w[:half].sum()), float(w[half])


def _smoothed_root(raw: tuple[float, float], opts: Options, prev: SolverState | None) -> tuple[float, float]:
    """One frame of :func:`solver.limits.smooth_root_offset`: the history is ``previous.root_offset``."""
    if opts.root_smoothing <= 0.0 or prev is None:
        return raw
    left, center = _edge_weights(opts.root_smoothing)
    norm = left + center
    return (
        (left * prev.root_offset[0] + center * raw[0]) / norm,
        (left * prev.root_offset[1] + center * raw[1]) / norm,
    )


def _stretch_candidates(sx: float, sy: float, d: float, bend: int, opts: Options) -> list[float]:
    """Mirror of :func:`solver.two_bone.stretch_candidates` for one frame (same order)."""
    assert opts.limits is not None
    a, b = opts.a, opts.b
    lo, hi = opts.stretch_range
    e_lo, e_hi = aim_bounds(opts.limits, bend)
    cands = [stretch_factor(d, e_lo, a, b, lo, hi, FLOATS), stretch_factor(d, e_hi, a, b, lo, hi, FLOATS)]
    if opts.limits.shoulder is not None:
        for s_bound in opts.limits.shoulder:
            cands.append(shoulder_stretch(sx, sy, d, s_bound, a, b, lo, hi, FLOATS))
    return cands


def _cap(x: float, y: float, cap: float) -> tuple[float, float]:
    norm = math.sqrt(x * x + y * y)
    if norm > cap:
        scale = cap / norm
        return x * scale, y * scale
    return x, y


def solve_single(
    tx: float,
    ty: float,
    opts: Options,
    bend: int,
    pole: tuple[float, float] | None,
    prev: SolverState | None,
) -> TwoBoneResult:
    """Solve one frame; see :func:`solver.solve_two_bone` for the options (already resolved in ``opts``)."""
    a, b, total, inner = opts.a, opts.b, opts.total, opts.inner
    flags = 0
    raw_d = math.sqrt(tx * tx + ty * ty)
    if not 1e-150 < raw_d < 1e150:  # squares may have overflowed/underflowed (same rule as the batch path)
        raw_d = math.hypot(tx, ty)
    if raw_d > opts.zero_distance:
        dx, dy = tx / raw_d, ty / raw_d
    else:
        dx, dy = prev.direction if prev is not None else opts.initial_direction
        flags |= _HELD
    if pole is not None:
        px, py = pole
        cross = dx * py - dy * px
        if abs(cross) > opts.pole_deadzone * math.hypot(px, py):
            bend = 1 if cross < 0.0 else -1
        elif prev is not None:
            bend = prev.bend

    d = raw_d
    # Only past a knee: elsewhere the soft forms return ``d`` itself.
    if opts.outer_width > 0.0 and d > total - opts.outer_width:
        flags |= _SOFT
        d = soft_outer(d, total, opts.outer_width, FLOATS)
    if opts.inner_width > 0.0 and d < inner + opts.inner_width:
        flags |= _SOFT
        d = soft_inner(d, inner, opts.inner_width, FLOATS)
    lo, hi = clamp_bounds(a, b, opts.eps)
    if d > hi:
        flags |= _OUTER
    if d < lo:
        flags |= _INNER
    d = min(max(d, lo), hi)

    m, alpha = half_angles(d, a, b, FLOATS)
    phi = math.atan2(dy, dx)
    s = wrap_pi(phi - bend * alpha, FLOATS)  # wrapped before the limits, as in the batch path
    e = bend * m
    sx, sy = d * dx, d * dy
    limits = opts.limits
    if limits is not None:
        s, e, lim_flags = _limit(s, e, phi, sx, sy, a, b, bend, limits)
        flags |= lim_flags
    slope = soft_slope(raw_d, a, b, opts.outer_width, opts.inner_width, FLOATS)
    amplification = sensitivity(
        raw_d, d, (d - inner) * (d + inner), (total - d) * (total + d), slope, a, b, opts.zero_distance, FLOATS
    )

    root_x = root_y = 0.0
    scale = 1.0
    if limits is not None and opts.strategy is Strategy.MOVE_ROOT:
        missing = (0.0, 0.0)
        if flags & _LIMITED:
            ex, ey, end_x, end_y = fk(s, e, a, b, 0.0, 0.0, FLOATS)
            missing = _cap(sx - end_x, sy - end_y, opts.max_root_offset)
        root_x, root_y = _cap(*_smoothed_root(missing, opts, prev), opts.max_root_offset)
        if root_x != 0.0 or root_y != 0.0:
            s_new, e_new, lim_flags = _solve_point(sx - root_x, sy - root_y, (dx, dy), bend, opts, opts.eps)
            flags |= _ROOT
            _, _, old_x, old_y = fk(s, e, a, b, 0.0, 0.0, FLOATS)
            _, _, new_x, new_y = fk(s_new, e_new, a, b, root_x, root_y, FLOATS)
            if dist2(new_x, new_y, sx, sy) <= dist2(old_x + root_x, old_y + root_y, sx, sy):
                s, e = s_new, e_new
                flags |= lim_flags
    elif limits is not None and opts.strategy is Strategy.STRETCH and flags & _LIMITED:
        tol = max(1e-9 * total, 2.0 * opts.eps)  # as in strategies.apply_stretch
        _, _, end_x, end_y = fk(s, e, a, b, 0.0, 0.0, FLOATS)
        best = math.sqrt(dist2(end_x, end_y, sx, sy))
        chosen = 0
        tried = [1.0]
        for k in _stretch_candidates(sx, sy, d, bend, opts):
            if k in tried:  # re-solves to a pose already scored (mirror of the batch path)
                continue
            tried.append(k)
            s_new, e_new, lim_flags = _solve_point(sx / k, sy / k, (dx, dy), bend, opts, opts.eps / k)
            _, _, end_x, end_y = fk(s_new, e_new, a * k, b * k, 0.0, 0.0, FLOATS)
            err = math.sqrt(dist2(end_x, end_y, sx, sy))
            if err < best - tol or (err <= best + tol and abs(k - 1.0) < abs(scale - 1.0)):
                best, s, e, scale, chosen = err, s_new, e_new, k, lim_flags
        if scale != 1.0:
            flags |= chosen | _STRETCH

    ex, ey, end_x, end_y = fk(s, e, a * scale, b * scale, root_x, root_y, FLOATS)
    # hypot: the squares overflow for targets beyond ~1e154, which the batch path accepts.
    error = math.hypot(end_x - tx, end_y - ty)
    error_solved = math.hypot(end_x - sx, end_y - sy)
    # One buffer, then views: a dozen separate np.array calls would cost more than the solve itself.
    scalars = [s, e, error, error_solved, raw_d, d, amplification, scale]
    points = [ex, ey, end_x, end_y, tx, ty, sx, sy, root_x, root_y]
    buf = np.array(scalars + points)
    # Frozen dataclasses set each field through object.__setattr__ in __init__ (about 1.5 us for these 15
    # fields, as much as the solve); filling the instance dict directly gives the same objects.
    state = object.__new__(SolverState)
    state.__dict__.update(direction=(dx, dy), bend=bend, root_offset=(root_x, root_y))
    result = object.__new__(TwoBoneResult)
    result.__dict__.update(
        shoulder_angle=buf[0, ...],
        elbow_angle=buf[1, ...],
        elbow=buf[8:10],
        end=buf[10:12],
        target=buf[12:14],
        input_target=buf[12:14],
        solved_target=buf[14:16],
        distance=buf[4, ...],
        solved_distance=buf[5, ...],
        flags=_flag_array(flags),
        bend=_bend_array(bend),
        root_offset=buf[16:18],
        stretch=buf[7, ...],
        state=state,
        sensitivity_params=(a, b, opts.outer_width, opts.inner_width, opts.zero_distance),
        # The lazily computed properties, pre-filled: here the math is cheaper than numpy on first access.
        error=buf[2, ...],
        error_solved=buf[3, ...],
        sensitivity=buf[6, ...],
    )
    return result


@functools.lru_cache(maxsize=256)
def _flag_array(flags: int) -> NDArray[np.uint16]:
    """Shared read-only 0-d flag arrays (only 256 possible values)."""
    arr = np.array(flags, dtype=np.uint16)
    arr.setflags(write=False)
    return arr


@functools.lru_cache(maxsize=2)
def _bend_array(bend: int) -> NDArray[np.int8]:
    arr = np.array(bend, dtype=np.int8)
    arr.setflags(write=False)
    return arr
