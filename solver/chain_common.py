"""Shared machinery of the long-chain solvers (CCD and FABRIK, source document 八).

A chain of ``n`` bones is solved in its root space (the root joint at the origin, see docs/design.md).
``angles[..., 0]`` is the first bone's direction from +x, each next angle is relative to its parent,
counter-clockwise, in radians. Everything here is solver-independent:

* option parsing (lengths, per-joint limits, tolerance, strategy);
* reachability: the root->target distance is clamped to the chain's reach ring and optionally softened
  (:func:`prepare_targets`, vectorized over frames);
* the time-ordered frame loop (:func:`solve_frames`): frame ``f`` starts from frame ``f - 1``'s pose and
  the method's own iterations (a CCD or FABRIK kernel, pure ``math``) bring the tip within
  ``sweep_tolerance`` (default 1e-4 L), at least one sweep per frame. This pass carries the continuity and
  the method's character (which of the infinitely many poses the chain takes). For CCD the warm start is
  first moved by one minimal-change Gauss-Newton step toward the new target (:func:`predict_step`, only
  when the tip is within ``PREDICT_REACH`` of it): CCD converges linearly, so following a target that moves
  0.3 % L per frame took ~24 sweeps per frame, and takes one sweep after the step. On a moving target CCD's
  character then shows where the target jumps (beyond ``PREDICT_REACH`` per frame) and in the start pose;
  between, the chain follows with the smallest joint change. FABRIK needs ~4 passes per frame without it
  and its passes are what spread a motion over its chain, so it does not use the step. A frame the
  method leaves further than ``RESTART_ERROR`` (1 % L) from the target after a jump of more than
  ``PREDICT_REACH`` (a folded chain unfolding toward full reach, where both methods crawl) is solved again
  from an even arc;
* the polish (:func:`polish`): damped Gauss-Newton / Levenberg-Marquardt steps, vectorized over all frames
  at once, take every frame from there to ``tolerance`` (default 1e-6 L) by the smallest joint change;
* strategies for limit-blocked frames, forward kinematics and the result (:func:`finish`).

The next frame warm-starts from the previous frame's swept pose (within ``sweep_tolerance`` of its
target), not from its polished pose, which is what lets the polish run vectorized over frames; the two
differ by a first-order-minimal change below ``sweep_tolerance``. A static target therefore settles over
a few frames by at most about ``sweep_tolerance * L / bone length`` radians.

Why the frame loop is pure Python over ``math`` floats: frames depend on each other (warm start), so they
cannot be vectorized over time, and a per-frame numpy call costs about 1 µs per operation, more than a
whole joint update on Python floats for chains of up to a few dozen bones.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .fk import chain_forward_kinematics
from .flag_table import FlagName, FlagTable
from .limits import smooth_root_offset
from .smoothing import TargetFilter, smooth_targets
from .soft import soft_distance

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

# Result flags (bit field), same bit values as the two-bone solver where the meaning is shared.
CLAMPED_OUTER = 1  # the raw target was at or beyond full reach: the solved target sits on the reach circle
CLAMPED_INNER = 2  # the raw target was inside the inner ring the chain cannot fold to
SOFTENED = 4  # soft IK compressed the distance (raw distance above L - s)
LIMITED = 8  # chains: at least one joint ends the frame exactly on one of its limits
LIMIT_BLOCKED = 16  # chains: limits are set and the tip misses the solved target by more than tolerance
ROOT_MOVED = 32  # strategy 'move_root' offset the root on this frame
STRETCHED = 64  # strategy 'stretch' scaled the bones on this frame
DIRECTION_HELD = 128  # zero distance inside the inner ring: the previous direction was kept

# What each bit means, for whoever shows the flags (ChainResult.FLAG_NAMES). Bits 8 and 16 name no joint: the
# flags do not say which joint sits on its limit.
CHAIN_FLAGS = FlagTable("chain", (
    FlagName(CLAMPED_OUTER, "clamped_outer", "target at or beyond full reach: solved on the reach circle"),
    FlagName(CLAMPED_INNER, "clamped_inner", "target inside the inner ring the chain cannot fold to"),
    FlagName(SOFTENED, "softened", "soft IK compressed the distance"),
    FlagName(LIMITED, "limited", "at least one joint ends the frame on one of its limits"),
    FlagName(LIMIT_BLOCKED, "limit_blocked", "a limit is active and the tip misses the solved target"),
    FlagName(ROOT_MOVED, "root_moved", "move_root offset the root"),
    FlagName(STRETCHED, "stretched", "stretch scaled the bones"),
    FlagName(DIRECTION_HELD, "direction_held", "zero distance inside the inner ring: the previous direction was kept"),
))

STRATEGIES = ("accept", "move_root", "stretch")
TAU = 2.0 * math.pi
# A warm-start chain whose relative angles are all below this (radians) counts as straight: it has no bend
# side, and CCD/FABRIK cannot bend a straight chain that is collinear with its target.
STRAIGHT_EPS = 1e-9
# Iterations stop early when one iteration improves the tip error by less than this fraction of the
# tolerance: the frame is blocked by a limit (or converging too slowly to matter).
STALL_FRACTION = 1e-3
# Sweeps also stop after this many consecutive sweeps that each keep more than SLOW_RATIO of the error:
# CCD and FABRIK crawl near full extension (rate -> 1), where the polish converges much faster.
SLOW_RATIO = 0.98
SLOW_SWEEPS = 10
# A frame whose target jumped (further than PREDICT_REACH from the warm start's tip) and whose sweeps stopped
# (after at least SLOW_SWEEPS of them) with the tip further than this fraction of L from the target, no joint
# on a limit, is solved again from :func:`arc_start` (see :func:`_restart`). Only after a jump: on a
# continuous motion that would switch between poses from frame to frame.
RESTART_ERROR = 0.01
# A chain whose relative angles are all this close (radians) to 0 or a half-turn lies on one line: a swept
# pose like that, off its target by more than sweep_tolerance, is solved again from arc_start.
COLLINEAR_EPS = 1e-4

# The frame loop's predictor (:func:`predict_step`) acts only when the warm start's tip is within this fraction
# of L of the target (a frame-to-frame motion, where a first-order step is accurate); further, the method's
# own iterations do the whole way. Its damping (times L) keeps the step small on a nearly straight chain.
PREDICT_REACH = 0.05
PREDICT_DAMPING = 1e-3

# kernel(warm angles, target x, target y) -> (angles, iterations used)
FrameKernel = Callable[[list[float], float, float], tuple[list[float], int]]


@dataclass(frozen=True)
class ChainState:
    """What a frame hands to the next one (pass it as ``previous=`` to continue a live preview).

    ``angles`` (n,) radians, same convention as the result: the last frame's pose after the method's sweeps
    (before the polish), which is what the next frame warm-starts from; ``direction`` (2,) unit vector of the last
    non-zero root->target direction (used when a target sits exactly on the root); ``root_offset`` the last
    frame's unsmoothed ``move_root`` offset (the smoothing's history).
    """

    angles: FloatArray
    direction: FloatArray
    root_offset: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class ChainResult:
    """Per-frame result of :func:`solver.solve_ccd` / :func:`solver.solve_fabrik` (N frames, n bones).

    ``angles`` (N, n) radians: first from +x, others relative to the parent. ``joints`` (N, n+1, 2): root,
    joints and tip by forward kinematics, including the strategy's root offset and stretch. ``end`` (N, 2)
    tip. ``error`` (N,) distance from ``end`` to the raw target; ``error_solved`` (N,) distance to
    ``solved_target`` (N, 2), the clamped/softened target the solver aimed at. ``iterations`` (N,) sweeps
    (CCD) or backward+forward passes (FABRIK) used; 0 when the warm start already met the tolerance or the
    straight chain was exact. ``converged`` (N,) ``error_solved <= tolerance * L``. ``flags`` (N,) bit field
    (module constants, named by ``FLAG_NAMES``). ``root_offset`` (N, 2) length units, ``stretch`` (N,) factor.
    ``state`` continues the solve in a later call (``previous=state``) exactly as if the frames had been solved
    in one call.
    """

    FLAG_NAMES: ClassVar[FlagTable] = CHAIN_FLAGS  # what the bits of ``flags`` mean

    angles: FloatArray
    joints: FloatArray
    end: FloatArray
    error: FloatArray
    error_solved: FloatArray
    solved_target: FloatArray
    iterations: IntArray
    converged: BoolArray
    flags: IntArray
    root_offset: FloatArray
    stretch: FloatArray
    state: ChainState


@dataclass(frozen=True)
class ChainSetup:
    """Validated options shared by both solvers (built by :func:`parse_options`)."""

    lengths: FloatArray
    lower: FloatArray  # (n,) -inf where unlimited
    upper: FloatArray  # (n,) +inf where unlimited
    has_limits: bool
    total_length: float
    tolerance: float  # absolute, length units
    max_iterations: int
    sweep_tolerance: float  # absolute, length units: the method's sweeps stop here, the polish goes on
    polish_iterations: int
    polish_max_step: float  # radians per joint per polish step
    softness: float  # fraction of L
    strategy: str
    max_root_offset: float  # length units
    root_smoothing: float  # Gaussian sigma, frames
    stretch_range: tuple[float, float]
    bend: int
    warm_angles: FloatArray  # (n,) first frame's warm start
    warm_direction: FloatArray  # (2,)
    previous_root_offset: tuple[float, float] | None
    smoothing: TargetFilter | str | None


def parse_options(
    lengths: ArrayLike,
    *,
    limits: ArrayLike | None,
    tolerance: float,
    max_iterations: int,
    sweep_tolerance: float,
    polish_iterations: int,
    softness: float,
    strategy: str,
    max_root_offset: float | None,
    stretch_range: tuple[float, float],
    initial_angles: ArrayLike | None,
    previous: ChainState | None,
    bend: int,
    root_smoothing: float = 2.0,
    smoothing: TargetFilter | str | None = None,
) -> ChainSetup:
    """Validate the options documented on the solvers and convert them to absolute units."""
    lens = np.asarray(lengths, dtype=np.float64)
    if lens.ndim != 1 or lens.size == 0 or not np.all(np.isfinite(lens)) or np.any(lens <= 0.0):
        raise ValueError("lengths must be a non-empty 1-D array of positive finite numbers")
    n = lens.size
    total = float(lens.sum())
    lower = np.full(n, -np.inf)
    upper = np.full(n, np.inf)
    if limits is not None:
        lim = np.asarray(limits, dtype=np.float64)
        if lim.shape != (n, 2):
            raise ValueError(f"limits must have shape ({n}, 2), got {lim.shape}")
        lower = np.where(np.isnan(lim[:, 0]), -np.inf, lim[:, 0])
        upper = np.where(np.isnan(lim[:, 1]), np.inf, lim[:, 1])
        if np.any(lower > upper):
            raise ValueError("every limit needs min <= max")
    if not tolerance > 0.0:
        raise ValueError("tolerance must be positive")
    if max_iterations < 0 or polish_iterations < 0:
        raise ValueError("max_iterations and polish_iterations must be >= 0")
    if not 0.0 <= softness < 1.0:
        raise ValueError("softness is a fraction of the chain length in [0, 1)")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    lo_k, hi_k = float(stretch_range[0]), float(stretch_range[1])
    if not 0.0 < lo_k <= 1.0 <= hi_k:
        raise ValueError("stretch_range must satisfy 0 < min <= 1 <= max")
    if bend not in (1, -1):
        raise ValueError("bend must be +1 or -1")
    root_cap = 0.1 * total if max_root_offset is None else float(max_root_offset)
    if root_cap < 0.0:
        raise ValueError("max_root_offset must be >= 0")
    if not root_smoothing >= 0.0:
        raise ValueError("root_smoothing must be >= 0 frames")

    if previous is not None:
        warm = np.asarray(previous.angles, dtype=np.float64).copy()
        direction = np.asarray(previous.direction, dtype=np.float64).copy()
    else:
        warm = np.zeros(n) if initial_angles is None else np.asarray(initial_angles, dtype=np.float64).copy()
        tip = chain_forward_kinematics(warm, lens)[-1] if warm.shape == (n,) else np.zeros(2)
        norm = float(np.hypot(tip[0], tip[1]))
        direction = tip / norm if norm > 0.0 else np.array([1.0, 0.0])
    if warm.shape != (n,) or not np.all(np.isfinite(warm)):
        raise ValueError(f"initial/previous angles must be {n} finite numbers")
    warm = np.clip(warm, lower, upper)
    return ChainSetup(
        lengths=lens,
        lower=lower,
        upper=upper,
        has_limits=bool(np.any(np.isfinite(lower)) or np.any(np.isfinite(upper))),
        total_length=total,
        tolerance=float(tolerance) * total,
        max_iterations=int(max_iterations),
        sweep_tolerance=max(float(sweep_tolerance), float(tolerance)) * total,
        polish_iterations=int(polish_iterations),
        polish_max_step=0.25,
        softness=float(softness),
        strategy=strategy,
        max_root_offset=root_cap,
        root_smoothing=float(root_smoothing),
        stretch_range=(lo_k, hi_k),
        bend=int(bend),
        warm_angles=warm,
        warm_direction=direction,
        previous_root_offset=None if previous is None else previous.root_offset,
        smoothing=smoothing,
    )


def reach_radii(lengths: FloatArray) -> tuple[float, float]:
    """``(inner, outer)`` reach of a chain: it can put its tip at any distance in ``[inner, outer]``.

    ``outer`` is the sum of the lengths; ``inner`` is ``max(0, 2 * longest - L)`` (the longest bone folded
    back against all the others).
    """
    total = float(lengths.sum())
    return max(0.0, 2.0 * float(lengths.max()) - total), total


def prepare_targets(targets: ArrayLike, setup: ChainSetup) -> tuple[FloatArray, FloatArray, IntArray]:
    """Filter (option ``smoothing``), clamp and soften the raw targets (vectorized over frames).

    ``targets`` is (N, 2), or (2,) for one frame. Returns ``(raw (N, 2), solved (N, 2), flags (N,))``.
    The distance is clamped to the reach ring ``[inner, L]`` (a target at or beyond full reach lands
    exactly on the outer circle, so the error equals the clamped distance) after soft IK (``softness * L``
    wide, :func:`solver.soft.soft_distance`). A target exactly on the root with a non-zero inner radius
    keeps the last non-zero direction.
    """
    raw = np.asarray(targets, dtype=np.float64)
    if raw.shape == (2,):  # one frame (a live preview); the result keeps the frame axis
        raw = raw[None, :]
    if raw.ndim != 2 or raw.shape[1] != 2:
        raise ValueError(f"targets must have shape (N, 2), got {raw.shape}")
    if not np.all(np.isfinite(raw)):
        raise ValueError("targets must be finite")
    aimed = raw if setup.smoothing is None or len(raw) < 2 else smooth_targets(raw, setup.smoothing)
    inner, outer = reach_radii(setup.lengths)
    dist = np.hypot(aimed[:, 0], aimed[:, 1])
    flags = np.zeros(len(raw), dtype=np.int64)

    tiny = 1e-12 * outer
    nonzero = dist > tiny
    # Last non-zero direction, carried forward over frames (first frame: the warm start's direction).
    idx = np.where(nonzero, np.arange(len(raw)), -1)
    np.maximum.accumulate(idx, out=idx)
    safe = np.where(nonzero, dist, 1.0)
    unit_now = aimed / safe[:, None]
    unit = np.where((idx >= 0)[:, None], unit_now[np.maximum(idx, 0)], setup.warm_direction[None, :])

    soft_width = setup.softness * outer
    if soft_width <= 1e-12 * outer:  # below rounding: a plain clamp (and no overflow in exp(-x / s))
        soft_width = 0.0
    solved_d = soft_distance(dist, outer, soft_width) if soft_width > 0.0 else dist.copy()
    flags |= np.where(dist > outer - soft_width, SOFTENED, 0) if soft_width > 0.0 else 0
    flags |= np.where(dist >= outer, CLAMPED_OUTER, 0)
    solved_d = np.minimum(solved_d, outer)
    below = solved_d < inner
    flags |= np.where(below, CLAMPED_INNER, 0)
    flags |= np.where(below & ~nonzero, DIRECTION_HELD, 0)
    solved_d = np.maximum(solved_d, inner)
    solved = unit * solved_d[:, None]
    return raw, solved, flags


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


def _restart(
    kernel: FrameKernel, pose: list[float], used: int, tx: float, ty: float, dist: float, warm: list[float],
    lengths: Sequence[float], bend: int, lower: Sequence[float], upper: Sequence[float],
) -> tuple[list[float], int]:
    """The better of ``pose`` and a solve from :func:`arc_start`, for a frame the sweeps left far off.

    CCD and FABRIK crawl when a folded chain has to unfold toward full extension (a far jump of the
    target), and the polish, made to finish from close by, may then run out of steps. An even arc aimed at
    the target starts close to it. Not done when a joint sits on a limit (the frame is limit-blocked, the
    arc would not help); the frame has jumped anyway, so continuity is not at stake.
    """
    if any(pose[i] <= lower[i] or pose[i] >= upper[i] for i in range(len(pose))):
        return pose, used
    phi = warm[0] + wrap(math.atan2(ty, tx) - warm[0])
    again, more = kernel(arc_start(phi, dist, lengths, bend, lower, upper), tx, ty)
    if tip_error(again, tx, ty, lengths) < tip_error(pose, tx, ty, lengths):
        return again, used + more
    return pose, used + more


def _folded_pose(
    phi: float, lengths: Sequence[float], bend: int, lower: Sequence[float], upper: Sequence[float],
) -> list[float] | None:
    """The pose reaching the inner ring toward ``phi``: the longest bone along ``phi``, every other bone
    pointing the opposite way (relative angles 0 or a half-turn, on the ``bend`` side when the limits allow);
    ``None`` when the limits forbid it."""
    n = len(lengths)
    longest = max(range(n), key=lambda i: lengths[i])
    absolute = [phi if i == longest else phi + math.pi for i in range(n)]
    pose = [phi + wrap(absolute[0] - phi)]
    for i in range(1, n):
        turn = absolute[i] - absolute[i - 1]
        if turn == 0.0:
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


def _collinear(pose: Sequence[float]) -> bool:
    """Whether every relative angle of ``pose`` is within ``COLLINEAR_EPS`` of a multiple of a half-turn."""
    return all(abs(math.sin(r)) <= COLLINEAR_EPS for r in pose[1:])


def solve_frames(
    kernel: FrameKernel, solved: FloatArray, setup: ChainSetup, *, predict: bool = False,
) -> tuple[FloatArray, IntArray]:
    """Run ``kernel`` over the frames in time order; each frame warm-starts from the previous frame's pose.

    ``predict``: move each warm start by :func:`predict_step` before the kernel runs (CCD: it cuts the
    sweeps per frame on a moving target from ~20 to 1).

    Before the kernel runs, three cases are settled without iterating: a target on the outer reach circle
    gets the exactly straight chain pointing at it, a target on the inner ring the folded chain
    (:func:`_folded_pose`; both when the limits allow it), and a straight warm start with a target inside
    reach (the root included) is replaced by :func:`arc_start` (the only way to give it a bend side). A
    swept pose left collinear off its target, no joint on a limit, is solved again from :func:`arc_start`
    (the better of the two is kept). Every angle ends within half a turn of the previous frame's (the same
    pose, without whole turns).
    """
    lens = [float(v) for v in setup.lengths]
    lower = [float(v) for v in setup.lower]
    upper = [float(v) for v in setup.upper]
    n = len(lens)
    outer = setup.total_length
    tol = setup.tolerance
    warm = [float(v) for v in setup.warm_angles]
    restart = RESTART_ERROR * outer
    inner = reach_radii(setup.lengths)[0]
    sweep_tol = setup.sweep_tolerance
    step_cap = setup.polish_max_step
    damping = (PREDICT_DAMPING * outer) ** 2
    reach = PREDICT_REACH * outer
    poses: list[list[float]] = []
    iterations: list[int] = []
    xs = solved[:, 0].tolist()
    ys = solved[:, 1].tolist()
    hypot = math.hypot
    for tx, ty in zip(xs, ys, strict=True):
        dist = hypot(tx, ty)
        # Solved targets on the outer circle are at distance L up to rounding.
        full = dist >= outer * (1.0 - 1e-12)
        straight = n > 1 and max(warm[1:]) <= STRAIGHT_EPS and min(warm[1:]) >= -STRAIGHT_EPS
        # A target exactly on the root (reachable when no bone is longer than the rest together) needs the
        # bend of the arc as much as any other: a straight chain folding onto its root is collinear with it.
        if inner > 0.0 and dist <= inner * (1.0 + 1e-12):
            # On the inner ring only one pose reaches: the longest bone at the target, the others folded back
            # along it. Both methods (and the polish) crawl into that singular pose, so it is set directly.
            phi = warm[0] + wrap(math.atan2(ty, tx) - warm[0]) if dist > 0.0 else warm[0]
            folded = _folded_pose(phi, lens, setup.bend, lower, upper)
            if folded is not None:
                warm = folded
                poses.append(folded)
                iterations.append(0)
                continue
        if (dist > 0.0 and full) or (straight and dist < outer - tol):
            phi = warm[0] + wrap(math.atan2(ty, tx) - warm[0]) if dist > 0.0 else warm[0]
            if full:
                pose = [phi] + [0.0] * (n - 1)
                if all(lower[i] <= pose[i] <= upper[i] for i in range(n)):
                    warm = pose
                    poses.append(pose)
                    iterations.append(0)
                    continue
            else:
                warm = arc_start(phi, dist, lens, setup.bend, lower, upper)
        start = predict_step(warm, tx, ty, lens, lower, upper, damping, reach, step_cap, tol) if predict else warm
        pose, used = kernel(start, tx, ty)
        if (used >= SLOW_SWEEPS and dist > 0.0 and tip_error(pose, tx, ty, lens) > restart
                and tip_error(warm, tx, ty, lens) > reach):
            pose, used = _restart(kernel, pose, used, tx, ty, dist, warm, lens, setup.bend, lower, upper)
        elif (n > 1 and -COLLINEAR_EPS <= math.sin(pose[1]) <= COLLINEAR_EPS and _collinear(pose)
              and tip_error(pose, tx, ty, lens) > sweep_tol
              and not any(pose[i] <= lower[i] or pose[i] >= upper[i] for i in range(n))):
            # The method ended on a (nearly) collinear chain off its target, no joint on a limit (FABRIK lands
            # there when a joint falls exactly onto the target or the root, CCD when it folds a bone back
            # along the line): a fixed point of both methods and a stationary point of the polish, so the
            # frame would miss for good. The even arc gives it a bend to work from; its result is kept when
            # it is closer or bent (the polish finishes a bent chain, never a collinear one).
            phi = warm[0] + wrap(math.atan2(ty, tx) - warm[0]) if dist > 0.0 else warm[0]
            again, more = kernel(arc_start(phi, dist, lens, setup.bend, lower, upper), tx, ty)
            if not _collinear(again) or tip_error(again, tx, ty, lens) < tip_error(pose, tx, ty, lens):
                pose = again
            used += more
        for i in range(n):
            # Sweeps from a far warm start can wind a joint by whole turns; the same pose with the smallest
            # turn from the previous frame keeps the keys free of full spins (when the limits allow it).
            turn = pose[i] - warm[i]
            if turn > math.pi or turn < -math.pi:
                unwound = warm[i] + wrap(turn)
                if lower[i] <= unwound <= upper[i]:
                    pose[i] = unwound
        warm = pose
        poses.append(warm)
        iterations.append(used)
    out = np.array(poses, dtype=np.float64).reshape(len(poses), n)
    return out, np.array(iterations, dtype=np.int64)


def polish(angles: FloatArray, solved: FloatArray, setup: ChainSetup) -> tuple[FloatArray, IntArray]:
    """Finish every frame with damped Gauss-Newton steps, vectorized over frames; ``(angles, steps)``.

    CCD and FABRIK converge linearly, with a rate that tends to 1 near full extension and near the folded
    limit, so reaching ``1e-6 L`` by sweeps alone would take hundreds or thousands of sweeps there. Once
    the method's own sweeps have brought a frame within ``sweep_tolerance``, each step here applies the
    smallest joint change that moves the tip onto the target to first order,
    ``delta = J^T (J J^T + lambda^2 I)^-1 (target - tip)`` (a 2x2 solve per frame, ``J`` the tip Jacobian
    of the relative angles). Being the minimal change, it adds no motion in the chain's null space, so it
    neither alters the method's pose character nor the frame-to-frame continuity. A joint whose step would
    cross a limit is put exactly onto it and the others solve for the rest of the error, so a limit-blocked
    frame ends on its limit (flagged) rather than short of it. A step that does not reduce the error is
    undone and retried with more damping (Levenberg-Marquardt); a frame ends at the tolerance, at
    ``polish_iterations`` steps, or when no damping helps any more (limit-blocked frames).
    """
    ang = angles.copy()
    n_frames = len(ang)
    steps = np.zeros(n_frames, dtype=np.int64)
    lens = setup.lengths
    lower = setup.lower
    upper = setup.upper
    tol = setup.tolerance
    # Above the rounding of J J^T (~1e-16 L^2), far below its entries on any bent chain.
    base_damping = (1e-6 * setup.total_length) ** 2
    # Levenberg-Marquardt factor per frame (times trace(J J^T)): raised after a failed step, lowered after
    # a good one, so nearly straight chains (where Gauss-Newton overshoots) still converge.
    mu = np.zeros(n_frames)
    mu_give_up = 1e8
    active = np.arange(n_frames)
    best_err = np.full(n_frames, np.inf)
    backup = ang.copy()
    while active.size:
        a = ang[active]
        joints = chain_forward_kinematics(a, lens)
        err = np.hypot(*(solved[active] - joints[:, -1, :]).T)
        worse = err >= best_err[active]
        if np.any(worse):
            back = active[worse]
            ang[back] = backup[back]
            a[worse] = backup[back]
            joints[worse] = chain_forward_kinematics(a[worse], lens)
            mu[back] = np.maximum(mu[back] * 10.0, 1e-3)
        gain = best_err[active] - err
        good = active[~worse]
        mu[good] *= 0.1
        best_err[good] = err[~worse]
        keep = (best_err[active] > tol) & (steps[active] < setup.polish_iterations) & (mu[active] < mu_give_up)
        keep &= worse | (gain >= STALL_FRACTION * tol)
        active = active[keep]
        if active.size == 0:
            break
        a = a[keep]
        joints = joints[keep]
        e = solved[active] - joints[:, -1, :]
        lever = joints[:, -1:, :] - joints[:, :-1, :]
        jx = -lever[..., 1]
        jy = lever[..., 0]
        free = np.ones(a.shape, dtype=bool)
        delta = np.zeros_like(a)
        # A joint whose step would cross its limit is put onto that limit and the other joints solve for
        # what is left of the error: freezing it where it stands stalled a chain short of its limit (FABRIK
        # stops at such a fixed point from a cold start), missing the target with no limit flag.
        pinned = np.zeros_like(a)
        rest = e
        for _round in range(3):
            fx = np.where(free, jx, 0.0)
            fy = np.where(free, jy, 0.0)
            sxx = np.einsum("fi,fi->f", fx, fx)
            sxy = np.einsum("fi,fi->f", fx, fy)
            syy = np.einsum("fi,fi->f", fy, fy)
            damping = base_damping + mu[active] * (sxx + syy)
            sxx = sxx + damping
            syy = syy + damping
            det = sxx * syy - sxy * sxy
            safe = np.where(det > 0.0, det, np.inf)
            wx = (syy * rest[:, 0] - sxy * rest[:, 1]) / safe
            wy = (sxx * rest[:, 1] - sxy * rest[:, 0]) / safe
            delta = fx * wx[:, None] + fy * wy[:, None]
            crossing = free & ((a + delta < lower) | (a + delta > upper))
            if not np.any(crossing):
                break
            pinned = np.where(crossing, np.clip(a + delta, lower, upper) - a, pinned)
            free &= ~crossing
            rest = e - np.stack([np.einsum("fi,fi->f", jx, pinned), np.einsum("fi,fi->f", jy, pinned)], axis=1)
        delta = np.where(free, delta, pinned)
        biggest = np.max(np.abs(delta), axis=1)
        shrink = np.minimum(1.0, setup.polish_max_step / np.maximum(biggest, 1e-300))
        backup[active] = a
        ang[active] = np.clip(a + delta * shrink[:, None], lower, upper)
        steps[active] += 1
    return ang, steps


def run_chain_solver(
    targets: ArrayLike, setup: ChainSetup, kernel: FrameKernel, *, predict: bool = False,
) -> ChainResult:
    """Whole pipeline: reach clamp/softening, time-ordered sweeps, vectorized polish, strategy, result.

    ``iterations`` counts the method's sweeps plus the polish steps of each frame. ``predict``: see
    :func:`solve_frames`.
    """
    raw, solved, flags = prepare_targets(targets, setup)
    swept, sweeps = solve_frames(kernel, solved, setup, predict=predict)
    angles, steps = polish(swept, solved, setup)
    carry = swept[-1] if len(swept) else setup.warm_angles
    return finish(raw, solved, flags, angles, sweeps + steps, setup, carry)


def finish(
    raw: FloatArray, solved: FloatArray, flags: IntArray, angles: FloatArray, iterations: IntArray,
    setup: ChainSetup, carry: FloatArray,
) -> ChainResult:
    """Apply the strategy on limit-blocked frames, recompute everything by forward kinematics.

    Strategies act only on frames flagged ``LIMIT_BLOCKED`` (the chain has joint limits and the tip misses
    the solved target by more than the tolerance; usually a joint sits on its limit, flagged ``LIMITED``
    too); the pose itself is kept, so continuity is untouched:

    * ``accept``: nothing moves; the error is reported.
    * ``move_root``: the root moves by the residual (solved target - tip), shortened to
      ``max_root_offset``, then smoothed over frames (zero-lag Gaussian, ``root_smoothing`` frames, as the
      two-bone solver: :func:`solver.limits.smooth_root_offset`) so the body does not shake with the hand.
    * ``stretch``: every bone is scaled by the factor that brings the tip closest to the solved target
      (projection of the target on the tip direction), clipped to ``stretch_range``.
    """
    flags = flags.copy()
    joints = chain_forward_kinematics(angles, setup.lengths)
    tip = joints[:, -1, :]
    eps_angle = 1e-12
    at_limit = (np.isfinite(setup.lower) & (angles <= setup.lower + eps_angle)) | (
        np.isfinite(setup.upper) & (angles >= setup.upper - eps_angle)
    )
    limited = np.any(at_limit, axis=1)
    residual = solved - tip
    miss = np.hypot(residual[:, 0], residual[:, 1])
    # Without limits every solved target is reachable and the polish reaches it; with limits a miss is
    # theirs even where no joint ends exactly on one (a chain held at a stationary pose short of them, e.g.
    # collinear with its target): flagged all the same, so no frame misses with flags saying nothing.
    blocked = (limited | setup.has_limits) & (miss > setup.tolerance)
    flags |= np.where(limited, LIMITED, 0)
    flags |= np.where(blocked, LIMIT_BLOCKED, 0)

    n_frames = len(angles)
    offset = np.zeros((n_frames, 2))
    stretch = np.ones(n_frames)
    raw_offset = np.zeros((n_frames, 2))
    if setup.strategy == "move_root":
        scale = np.minimum(1.0, setup.max_root_offset / np.maximum(miss, 1e-300))
        raw_offset = np.where(blocked[:, None], residual * scale[:, None], 0.0)
        offset = smooth_root_offset(raw_offset, setup.root_smoothing, setup.previous_root_offset)
        flags |= np.where(np.any(offset != 0.0, axis=1), ROOT_MOVED, 0)
    elif setup.strategy == "stretch":
        tip_sq = np.maximum(np.einsum("fi,fi->f", tip, tip), 1e-300)
        best = np.einsum("fi,fi->f", tip, solved) / tip_sq
        stretch = np.where(blocked, np.clip(best, *setup.stretch_range), 1.0)
        flags |= np.where(stretch != 1.0, STRETCHED, 0)
    joints = joints * stretch[:, None, None] + offset[:, None, :]
    end = joints[:, -1, :]
    error = np.hypot(*(raw - end).T)
    error_solved = np.hypot(*(solved - end).T)
    # The next frame warm-starts from the last frame's swept pose (``carry``), exactly as inside one call,
    # so a preview solving one frame per call reproduces a bake of the whole range.
    norms = np.hypot(solved[:, 0], solved[:, 1])
    moved = np.flatnonzero(norms > 0.0)
    direction = solved[moved[-1]] / norms[moved[-1]] if moved.size else setup.warm_direction.copy()
    last_offset = (float(raw_offset[-1, 0]), float(raw_offset[-1, 1])) if n_frames else (0.0, 0.0)
    state = ChainState(angles=np.array(carry, dtype=np.float64), direction=direction, root_offset=last_offset)
    return ChainResult(
        angles=angles,
        joints=joints,
        end=end,
        error=error,
        error_solved=error_solved,
        solved_target=solved,
        iterations=iterations,
        converged=error_solved <= setup.tolerance,
        flags=flags,
        root_offset=offset,
        stretch=stretch,
        state=state,
    )
