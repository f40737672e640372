"""Joint limits and the declared strategy that answers them (source: 加上关节限制之后，手就够不到目标了).

Clamping an analytic angle moves the tip off the target, so a limit never acts silently: the solver first
finds the best reach *within* the limits (:func:`apply_limits`, the ``accept`` strategy), flags the frame, and
the caller's :class:`Strategy` decides what happens to the remaining error.
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from . import closed_forms
from .closed_forms import ARRAYS
from .closed_forms import TAU as TAU

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

# Angles within this of a bound (radians) are snapped onto it without counting as "limited": a re-solve
# aimed exactly at a bound must not trip the limit over one rounding error.
ANGLE_TOLERANCE = 1e-12


class Strategy(enum.StrEnum):
    """What to do when a joint limit moved the tip off the target.

    - ``ACCEPT``: keep the best reach within the limits; the error stays and is reported.
    - ``MOVE_ROOT``: shift the shoulder toward the target by what is still missing, at most
      ``max_root_offset`` length units, smoothed over frames (Gaussian, ``root_smoothing`` frames) so the
      body does not shake; the chain is then re-solved from the moved shoulder.
    - ``STRETCH``: scale both bones by one factor within ``stretch_range``. Candidate factors make the
      chain reach with the elbow at a bound of its range, or with the shoulder at a bound of its arc
      (closed forms in :func:`solver.two_bone.stretch_candidates`); each distinct factor other than 1 is
      re-solved with the scaled bones and the closest tip wins, the smallest stretch on ties, no stretch
      unless it gets closer.

    Accept (and every re-solve) minimizes the distance to the *solved* target (after soft IK and the hard
    clamp), not to the raw one: the strategies compensate for limits, soft IK keeps its deliberate gap.
    """

    ACCEPT = "accept"
    MOVE_ROOT = "move_root"
    STRETCH = "stretch"


@dataclass(frozen=True)
class JointLimits:
    """Allowed angle ranges, radians, ``(min, max)`` with ``min <= max``; ``None`` = free.

    ``shoulder``: in shoulder space (from +x, counter-clockwise); an arc on the circle, so e.g.
    ``(2.5, 3.5)`` is valid and output angles are expressed inside ``[min, max]``. A range of 2*pi or more
    does not limit anything (angles are then only expressed inside it).
    ``elbow``: relative angle of the lower bone (0 = straight), compared linearly (the analytic elbow angle
    lies in [-pi, pi]).
    """

    shoulder: tuple[float, float] | None = None
    elbow: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        for name in ("shoulder", "elbow"):
            rng = getattr(self, name)
            if rng is None:
                continue
            lo, hi = (float(v) for v in rng)
            if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
                raise ValueError(f"{name} limit must be finite (min, max) with min <= max, got {rng!r}")
            object.__setattr__(self, name, (lo, hi))


def wrap_pi(x: FloatArray) -> FloatArray:
    """Wrap angles to (-pi, pi] (:func:`solver.closed_forms.wrap_pi`, as the single-frame path)."""
    return np.asarray(closed_forms.wrap_pi(x, ARRAYS), dtype=np.float64)


def clamp_arc(angle: FloatArray, lo: float, hi: float) -> tuple[FloatArray, BoolArray]:
    """Clamp angles onto the arc ``[lo, hi]`` of the circle, to the nearest end.

    Returns the clamped angles, expressed inside ``[lo, hi]``, and the mask of angles that were outside
    (by more than :data:`ANGLE_TOLERANCE`; closer ones are snapped onto the bound).
    """
    width = hi - lo
    if width >= TAU:
        inside_rep = lo + np.mod(angle - lo, TAU)
        return np.minimum(inside_rep, hi), np.zeros(angle.shape, dtype=bool)
    center = 0.5 * (lo + hi)
    half = 0.5 * width
    delta = wrap_pi(angle - center)
    above = delta > half + ANGLE_TOLERANCE
    below = delta < -half - ANGLE_TOLERANCE
    out = np.clip(center + delta, lo, hi)
    out = np.where(above, hi, np.where(below, lo, out))
    return out, above | below


def _clamp_arc_per_frame(angle: FloatArray, lo: FloatArray | float, hi: FloatArray | float) -> FloatArray:
    """:func:`clamp_arc` with per-frame bounds inside [-pi, pi] (width < 2*pi, or the full circle)."""
    center = 0.5 * (lo + hi)
    half = 0.5 * (hi - lo)
    delta = wrap_pi(angle - center)
    out = np.where(delta > half, hi, np.where(delta < -half, lo, np.clip(center + delta, lo, hi)))
    return np.asarray(out, dtype=np.float64)


def elbow_aim_range(limits: JointLimits, bend: NDArray[np.int8] | int) -> tuple[FloatArray, FloatArray]:
    """Elbow range used when the elbow is re-aimed after a shoulder clamp.

    The bend half ([0, pi] for +1, [-pi, 0] for -1) intersected with the elbow limit, so re-aiming never
    mirrors the elbow; if the intersection is empty the limit alone wins (limits are always respected).
    """
    bend_arr = np.asarray(bend, dtype=np.float64)
    half_lo = np.where(bend_arr > 0, 0.0, -math.pi)
    half_hi = np.where(bend_arr > 0, math.pi, 0.0)
    if limits.elbow is None:
        return half_lo, half_hi
    lo, hi = limits.elbow
    ilo = np.maximum(half_lo, lo)
    ihi = np.minimum(half_hi, hi)
    empty = ilo > ihi
    return np.where(empty, lo, ilo), np.where(empty, hi, ihi)


def _pick(values: FloatArray | float, idx: NDArray[np.intp]) -> FloatArray | float:
    return values if isinstance(values, float) else np.asarray(values)[idx]


def aim_bounds(limits: JointLimits, bend: int) -> tuple[float, float]:
    """:func:`elbow_aim_range` for one side, in plain floats (per candidate here, and in the single-frame path)."""
    half_lo, half_hi = (0.0, math.pi) if bend > 0 else (-math.pi, 0.0)
    if limits.elbow is None:
        return half_lo, half_hi
    lo, hi = limits.elbow
    ilo = max(half_lo, lo)
    ihi = min(half_hi, hi)
    return (lo, hi) if ilo > ihi else (ilo, ihi)


def apply_limits(
    shoulder: FloatArray,
    elbow: FloatArray,
    phi: FloatArray,
    target_x: FloatArray,
    target_y: FloatArray,
    a: FloatArray | float,
    b: FloatArray | float,
    bend: NDArray[np.int8] | int,
    limits: JointLimits,
) -> tuple[FloatArray, FloatArray, BoolArray, BoolArray]:
    """Best reach within the limits (the ``accept`` answer), vectorized over frames.

    ``shoulder``/``elbow``: analytic angles; ``phi``: target direction; ``target_x/y``: the solved target;
    ``a``, ``b``: bone lengths (scalars or per frame); ``bend``: side (+1/-1), the elbow stays in its half
    (see :func:`elbow_aim_range`).

    Where the analytic pose violates a limit, the closest tip to the target over the allowed box of
    (shoulder, elbow) lies on the box's edges, and on each edge the best point has a closed form:
    elbow fixed at a bound -> the tip runs on a circle around the shoulder, so aim it at the target and
    clamp the shoulder onto its arc; shoulder fixed at a bound -> the tip runs on a circle around the elbow,
    so aim the lower bone at the target and clamp it. The nearest of these (up to 4) candidates wins.

    Returns ``(shoulder, elbow, limited_shoulder, limited_elbow)``: output angles lie inside the limits
    exactly (the shoulder expressed inside its ``[min, max]``); a frame is flagged for a limit when the
    analytic angle violated it or the chosen pose sits on one of its bounds.
    """
    s = shoulder
    lim_s = np.zeros(s.shape, dtype=bool)
    lim_e = np.zeros(s.shape, dtype=bool)
    if limits.shoulder is not None:
        s, lim_s = clamp_arc(shoulder, *limits.shoulder)
    if limits.elbow is not None:
        e_min, e_max = limits.elbow
        lim_e = (elbow < e_min - ANGLE_TOLERANCE) | (elbow > e_max + ANGLE_TOLERANCE)
        elbow = np.clip(elbow, e_min, e_max)
    idx = np.flatnonzero(lim_s | lim_e)
    if idx.size == 0:
        return s, elbow, lim_s, lim_e
    s = s.copy()
    e = elbow.copy()
    side = bend if isinstance(bend, int) else bend[idx] > 0
    s[idx], e[idx] = _best_in_box(phi[idx], target_x[idx], target_y[idx], _pick(a, idx), _pick(b, idx), side, limits)
    if limits.shoulder is not None:
        lo, hi = limits.shoulder
        lim_s[idx] |= (s[idx] == lo) | (s[idx] == hi)
    if limits.elbow is not None:
        lo, hi = limits.elbow
        lim_e[idx] |= (e[idx] == lo) | (e[idx] == hi)
    return s, e, lim_s, lim_e


def _best_in_box(
    phi: FloatArray,
    tx: FloatArray,
    ty: FloatArray,
    a: FloatArray | float,
    b: FloatArray | float,
    side: int | BoolArray,
    limits: JointLimits,
) -> tuple[FloatArray, FloatArray]:
    """The candidates of :func:`apply_limits`; returns the nearest (ties go to the earlier candidate).

    ``side`` is the bend (+1/-1) shared by all frames, or per frame a mask of the frames with bend +1: the
    per-side constants are then picked per frame, so one pass serves both sides.

    Tip distances need no trigonometry: a candidate that is not clamped onto a bound points its last free
    bone straight at the target, so its distance is a difference of lengths; one clamped onto a bound has
    a tip that depends only on the bound.
    """

    plus = aim_bounds(limits, 1)
    minus = aim_bounds(limits, -1)

    def by_side(value: Callable[[float], float], which: int) -> FloatArray | float:
        """``value`` of the elbow aim bound ``which`` (0 = low, 1 = high) of each frame's side."""
        if isinstance(side, int):
            return value((plus if side > 0 else minus)[which])
        return np.where(side, value(plus[which]), value(minus[which]))

    e_bounds = (by_side(float, 0), by_side(float, 1))
    shape = phi.shape
    dist = np.sqrt(tx * tx + ty * ty)
    best_s: FloatArray | None = None
    best_e: FloatArray = np.empty(0)
    best_err: FloatArray = np.empty(0)
    for which, e_c in enumerate(e_bounds):
        # Elbow at a bound: the tip is the fixed vector (a + b cos e, b sin e) rotated by the shoulder.
        vx = a + b * by_side(math.cos, which)
        vy = b * by_side(math.sin, which)
        s_c = phi - np.arctan2(vy, vx)
        gap = dist - np.sqrt(vx * vx + vy * vy)
        err = gap * gap
        if limits.shoulder is None:
            s_c = wrap_pi(s_c)
        else:
            s_c = clamp_arc(s_c, *limits.shoulder)[0]
            for bound in limits.shoulder:
                c, s = math.cos(bound), math.sin(bound)
                err = np.where(s_c == bound, _dist2(c * vx - s * vy, s * vx + c * vy, tx, ty), err)
        e_arr = np.broadcast_to(e_c, shape).copy()
        best_s, best_e, best_err = _keep_better(best_s, best_e, best_err, s_c, e_arr, err)
    if limits.shoulder is not None:
        for s_bound in limits.shoulder:
            # Shoulder at a bound: the elbow is fixed, aim the lower bone at the target.
            ex = a * math.cos(s_bound)
            ey = a * math.sin(s_bound)
            rx = tx - ex
            ry = ty - ey
            aim = wrap_pi(np.arctan2(ry, rx) - s_bound)
            e_aim = _clamp_arc_per_frame(aim, e_bounds[0], e_bounds[1])
            gap = np.sqrt(rx * rx + ry * ry) - b
            err = gap * gap
            for which, e_c in enumerate(e_bounds):
                cos_t = by_side(functools.partial(_cos_sum, s_bound), which)
                sin_t = by_side(functools.partial(_sin_sum, s_bound), which)
                err = np.where(e_aim == e_c, _dist2(ex + b * cos_t, ey + b * sin_t, tx, ty), err)
            s_arr = np.full(shape, s_bound)
            best_s, best_e, best_err = _keep_better(best_s, best_e, best_err, s_arr, e_aim, err)
    assert best_s is not None
    return best_s, best_e


def _cos_sum(x: float, y: float) -> float:
    return math.cos(x + y)


def _sin_sum(x: float, y: float) -> float:
    return math.sin(x + y)


def _keep_better(
    best_s: FloatArray | None,
    best_e: FloatArray,
    best_err: FloatArray,
    s: FloatArray,
    e: FloatArray,
    err: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    if best_s is None:
        return s, e, err
    better = err < best_err
    return np.where(better, s, best_s), np.where(better, e, best_e), np.where(better, err, best_err)


def _dist2(x: FloatArray | float, y: FloatArray | float, tx: FloatArray, ty: FloatArray) -> FloatArray:
    # (x - tx)^2 equals (tx - x)^2 exactly, so the arrays go first (they fix the kind of number).
    return closed_forms.dist2(tx, ty, x, y)


def gaussian_weights(sigma: float) -> FloatArray:
    """Symmetric (zero-lag) Gaussian kernel of standard deviation ``sigma`` frames, truncated at 3 sigma."""
    if sigma <= 0.0:
        return np.ones(1)
    half = max(1, math.ceil(3.0 * sigma))
    j = np.arange(-half, half + 1, dtype=np.float64)
    return np.exp(-0.5 * (j / sigma) ** 2)


def smooth_root_offset(offset: FloatArray, sigma: float, previous: tuple[float, float] | None) -> FloatArray:
    """Zero-lag Gaussian smoothing of an (N, 2) root offset over frames.

    Frames outside the range do not exist: weights are renormalized at the edges, except that with a
    ``previous`` offset (chained solves) the frames before the first one are taken to hold that offset.
    A weighted mean never lengthens the offset beyond the largest input, so the ``max_root_offset`` cap holds.
    """
    w = gaussian_weights(sigma)
    half = (w.size - 1) // 2
    if half == 0:
        return offset.copy()
    n = offset.shape[0]
    if n == 0:
        return offset.copy()
    pad_val = np.zeros(2) if previous is None else np.asarray(previous, dtype=np.float64)
    # The padding is already zero wherever the mask is, so only the normalization needs the mask, and it
    # differs from the full kernel sum only within ``2 * half`` frames of either end.
    padded = np.concatenate([np.tile(pad_val, (half, 1)), offset, np.zeros((half, 2))])
    pad_mask = 0.0 if previous is None else 1.0
    if n <= 4 * half:  # the two ends' windows overlap: use the exact mask
        mask = np.concatenate([np.full(half, pad_mask), np.ones(n), np.zeros(half)])
        norm = np.convolve(mask, w, mode="valid")
    else:
        norm = np.full(n, np.convolve(np.ones(w.size), w, mode="valid")[0])
        head = np.concatenate([np.full(half, pad_mask), np.ones(3 * half)])
        norm[: 2 * half] = np.convolve(head, w, mode="valid")
        norm[n - 2 * half :] = np.convolve(np.concatenate([np.ones(3 * half), np.zeros(half)]), w, mode="valid")
    out = np.empty_like(offset)
    for k in range(2):
        out[:, k] = np.convolve(padded[:, k], w, mode="valid") / norm
    return out
