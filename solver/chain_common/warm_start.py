"""Poses a frame starts from, on Python floats: the even arc, the folded pose, the predictor step."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..limits import TAU

# A warm-start chain whose relative angles are all below this (radians) counts as straight: it has no bend
# side, and CCD/FABRIK cannot bend a straight chain that is collinear with its target.
STRAIGHT_EPS = 1e-9

# The frame loop's predictor (:func:`predict_step`) acts only when the warm start's tip is within this fraction
# of L of the target (a frame-to-frame motion, where a first-order step is accurate); further, the method's
# own iterations do the whole way. Its damping (times L) keeps the step small on a nearly straight chain.
PREDICT_REACH = 0.05
PREDICT_DAMPING = 1e-3


def wrap(x: float) -> float:
    """``x`` wrapped to ``[-pi, pi)``."""
    return x - TAU * math.floor(x / TAU + 0.5)


def arc_start(
    direction_angle: float, distance: float, lengths: Sequence[float], bend: int,
    lower: Sequence[float], upper: Sequence[float],
) -> list[float]:
    """A warm start for a straight chain: an even arc whose tip points at the target.

    A straight chain collinear with a target inside its reach is a fixed point of both CCD and FABRIK, so
    it would never bend. This pose bends every joint by the same angle ``bend * k`` (``bend = +1``: relative
    angles positive, the middle joints on the clockwise side of the root->target line, matching the two-bone
    solver's bend sign), with ``k`` chosen so the chord is close to ``distance``, then rotates the first bone
    so the tip lies on the root->target ray. Clipped to the limits; if the limits forbid the ``bend`` side,
    the other side is used.
    """
    n = len(lengths)
    total = math.fsum(lengths)
    if n == 1:
        return [min(max(direction_angle, lower[0]), upper[0])]
    shortfall = max(0.0, 1.0 - distance / total)
    # Chord of an even arc of n equal bones: L * (1 - (n^2 - 1) k^2 / 24 + ...); capped at a half-turn total.
    k = min(math.sqrt(24.0 * shortfall / (n * n - 1)), math.pi / n)
    k = max(k, 1e-6)
    pose: list[float] = []
    for side in (bend, -bend):
        rel = [min(max(side * k, lower[i]), upper[i]) for i in range(1, n)]
        x = y = a = 0.0
        for i in range(n):
            a += 0.0 if i == 0 else rel[i - 1]
            x += lengths[i] * math.cos(a)
            y += lengths[i] * math.sin(a)
        first = direction_angle - math.atan2(y, x)
        pose = [min(max(first, lower[0]), upper[0]), *rel]
        if any(abs(r) > STRAIGHT_EPS for r in rel):
            break
    return pose


def predict_step(
    warm: list[float], tx: float, ty: float, lengths: Sequence[float], lower: Sequence[float],
    upper: Sequence[float], damping: float, reach: float, max_step: float, tolerance: float,
) -> list[float]:
    """One damped Gauss-Newton step from ``warm`` toward ``(tx, ty)``: the frame loop's warm-start predictor.

    The smallest joint change that moves the tip onto the target to first order,
    ``delta = J^T (J J^T + damping I)^-1 (target - tip)`` (``damping`` in length units squared), shortened
    so no joint turns more than ``max_step`` radians (a nearly straight chain asked to shorten would
    otherwise get a huge step), clipped to the limits; the same step as :func:`polish`, on Python floats
    for one frame. Returns ``warm`` itself when its tip is within ``tolerance`` of the target (a settled
    frame stays exactly as it is) or further than ``reach`` (length units), where a first-order step is no
    good guess and the method's own iterations do the whole way; otherwise a new list.

    Why: frame ``f``'s pose misses frame ``f + 1``'s target by the target's motion over one frame, and CCD
    needs ~20 sweeps to remove that (linear convergence); after this step the tip is off by a second-order
    residual (typically below ``sweep_tolerance``), so one sweep is enough. Being the minimal change, the
    step adds no motion in the chain's null space (no drift, no momentum when the target stops).
    """
    n = len(warm)
    px = [0.0] * n
    py = [0.0] * n
    cos = math.cos
    sin = math.sin
    x = y = a = 0.0
    for i in range(n):
        px[i] = x
        py[i] = y
        a += warm[i]
        x += lengths[i] * cos(a)
        y += lengths[i] * sin(a)
    ex = tx - x
    ey = ty - y
    error_sq = ex * ex + ey * ey
    if error_sq > reach * reach or error_sq <= tolerance * tolerance:
        return warm
    # Column i of the tip Jacobian is the lever (tip - joint i) turned by +90 degrees: (-(y - py), x - px).
    sxx = syy = sxy = 0.0
    for i in range(n):
        lx = x - px[i]
        ly = y - py[i]
        sxx += ly * ly
        syy += lx * lx
        sxy -= lx * ly
    sxx += damping
    syy += damping
    det = sxx * syy - sxy * sxy
    if not det > 0.0:
        return warm
    wx = (syy * ex - sxy * ey) / det
    wy = (sxx * ey - sxy * ex) / det
    delta = [(x - px[i]) * wy - (y - py[i]) * wx for i in range(n)]
    biggest = max(max(delta), -min(delta))
    shrink = max_step / biggest if biggest > max_step else 1.0
    out = [0.0] * n
    for i in range(n):
        new = warm[i] + delta[i] * shrink
        out[i] = lower[i] if new < lower[i] else upper[i] if new > upper[i] else new
    return out


def tip_error(angles: Sequence[float], tx: float, ty: float, lengths: Sequence[float]) -> float:
    """Distance from the tip of the chain posed by ``angles`` to ``(tx, ty)`` (length units)."""
    x = y = a = 0.0
    for i in range(len(angles)):
        a += angles[i]
        x += lengths[i] * math.cos(a)
        y += lengths[i] * math.sin(a)
    return math.hypot(tx - x, ty - y)


def folded_pose(
    phi: float, lengths: Sequence[float], bend: int, lower: Sequence[float], upper: Sequence[float],
) -> list[float] | None:
    """The pose reaching the inner ring toward ``phi``, or ``None`` when the limits forbid it.

    The longest bone lies along ``phi``, every other bone points the opposite way (relative angles 0 or a
    half-turn, on the ``bend`` side when the limits allow).
    """
    n = len(lengths)
    longest = max(range(n), key=lambda i: lengths[i])
    absolute = [phi if i == longest else phi + math.pi for i in range(n)]
    pose = [phi + wrap(absolute[0] - phi)]
    for i in range(1, n):
        turn = absolute[i] - absolute[i - 1]
        if turn == 0.0:
            if not lower[i] <= 0.0 <= upper[i]:  # a straight joint its limits forbid: the fold is out of reach
                return None
            pose.append(0.0)
            continue
        for side in (bend, -bend):
            if lower[i] <= side * math.pi <= upper[i]:
                pose.append(side * math.pi)
                break
        else:
            return None
    if not lower[0] <= pose[0] <= upper[0]:
        first = pose[0] - TAU if pose[0] - TAU >= lower[0] else pose[0] + TAU
        if not lower[0] <= first <= upper[0]:
            return None
        pose[0] = first
    return pose

