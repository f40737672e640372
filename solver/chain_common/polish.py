"""The polish: damped Gauss-Newton steps, vectorized over frames, from the sweeps' pose to the tolerance."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..fk import chain_forward_kinematics
from .frame_loop import STALL_FRACTION
from .options import ChainSetup

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


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

