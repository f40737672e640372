"""The time-ordered frame loop: each frame warm-starts from the previous one and runs the method's kernel."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from .options import ChainSetup, reach_radii
from .warm_start import (
    PREDICT_DAMPING,
    PREDICT_REACH,
    STRAIGHT_EPS,
    arc_start,
    folded_pose,
    predict_step,
    tip_error,
    wrap,
)

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

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

# kernel(warm angles, target x, target y) -> (angles, iterations used)
FrameKernel = Callable[[list[float], float, float], tuple[list[float], int]]


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
    (:func:`folded_pose`; both when the limits allow it), and a straight warm start with a target inside
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
            folded = folded_pose(phi, lens, setup.bend, lower, upper)
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

