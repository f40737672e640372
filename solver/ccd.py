"""Cyclic coordinate descent (CCD) for planar N-bone chains, solved over a frame range in time order."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from numpy.typing import ArrayLike

from .chain_common import (
    SLOW_RATIO,
    SLOW_SWEEPS,
    STALL_FRACTION,
    ChainOptions,
    ChainResult,
    ChainSetup,
    ChainState,
    FrameKernel,
    parse_options,
    run_chain_solver,
)

DEFAULT_MAX_STEP = 0.5  # radians per joint per sweep
# A joint's turn in one sweep moves the bones after it by at most (turn * their reach); that is capped at
# this multiple of the current tip error, so the chain moves about as much as the target asks for.
DAMPING_REACH = 4.0


def _joint_positions(
    ang: Sequence[float], lengths: Sequence[float], px: list[float], py: list[float],
) -> tuple[float, float]:
    """Fill ``px, py`` with the joint positions (root first) and return the tip."""
    x = y = a = 0.0
    cos = math.cos
    sin = math.sin
    for i in range(len(ang)):
        px[i] = x
        py[i] = y
        a += ang[i]
        x += lengths[i] * cos(a)
        y += lengths[i] * sin(a)
    return x, y


def ccd_frame(
    angles: Sequence[float], tx: float, ty: float, lengths: Sequence[float],
    lower: Sequence[float], upper: Sequence[float], *, tolerance: float, sweep_tolerance: float,
    max_iterations: int, max_step: float, inverse_reach: Sequence[float] | None = None,
) -> tuple[list[float], int]:
    """Solve one frame by CCD from the warm start ``angles``; returns ``(angles, sweeps used)``.

    One sweep visits the joints from the tip to the root and turns each one so the tip swings toward the
    target, then clips it to ``[lower, upper]``. Damping bounds each turn by ``max_step`` radians and by
    ``DAMPING_REACH * error / reach`` (``reach``: the length of the chain beyond the joint): without it a
    joint that the tip passes close to whips the rest of the chain round for a tiny gain, and neighbouring
    frames land on different solutions. Stops when
    the tip is within ``tolerance`` (length units), or within ``sweep_tolerance`` after at least one sweep
    (the polish finishes the frame), after ``max_iterations`` sweeps, when a sweep gains less than
    ``STALL_FRACTION * tolerance`` (a limit blocks the chain), or after ``SLOW_SWEEPS`` sweeps in a row
    that each removed less than 2 % of the error (the crawl near full extension). ``inverse_reach``:
    ``1 / reach`` per joint, precomputed by the frame loop (computed here when omitted).
    """
    ang = list(angles)
    n = len(ang)
    px = [0.0] * n
    py = [0.0] * n
    if inverse_reach is None:
        inverse_reach = [1.0 / math.fsum(lengths[i:]) for i in range(n)]
    cos = math.cos
    sin = math.sin
    atan2 = math.atan2
    stall = STALL_FRACTION * tolerance
    previous_error = math.inf
    slow = 0
    used = 0
    x, y = _joint_positions(ang, lengths, px, py)
    while True:
        # After a sweep only the tip is current (rotated along); the joints are refreshed before the next.
        error = math.hypot(tx - x, ty - y)
        if (
            error <= tolerance
            or (used and error <= sweep_tolerance)
            or used >= max_iterations
            or previous_error - error < stall
            or slow >= SLOW_SWEEPS
        ):
            return ang, used
        slow = slow + 1 if error > SLOW_RATIO * previous_error else 0
        previous_error = error
        if used:
            x, y = _joint_positions(ang, lengths, px, py)
        used += 1
        # No joint turn may swing the bones beyond it (out to ``reach[i]``) further than DAMPING_REACH times
        # the tip's error: a joint with the tip close to it would otherwise spin the rest of the chain round.
        reach_cap = DAMPING_REACH * error
        for i in range(n - 1, -1, -1):
            jx = px[i]
            jy = py[i]
            ux = x - jx
            uy = y - jy
            vx = tx - jx
            vy = ty - jy
            turn = atan2(ux * vy - uy * vx, ux * vx + uy * vy)
            cap = reach_cap * inverse_reach[i]
            if cap > max_step:
                cap = max_step
            if turn > cap:
                turn = cap
            elif turn < -cap:
                turn = -cap
            new = ang[i] + turn
            if new < lower[i]:
                new = lower[i]
            elif new > upper[i]:
                new = upper[i]
            turn = new - ang[i]
            if turn != 0.0:
                ang[i] = new
                c = cos(turn)
                s = sin(turn)
                x = jx + c * ux - s * uy
                y = jy + s * ux + c * uy


def make_ccd_kernel(setup: ChainSetup, max_step: float) -> FrameKernel:
    """Bind the chain's options to :func:`ccd_frame` for :func:`solver.chain_common.solve_frames`."""
    lens = [float(v) for v in setup.lengths]
    lower = [float(v) for v in setup.lower]
    upper = [float(v) for v in setup.upper]
    tol = setup.tolerance
    coarse = setup.sweep_tolerance
    cap = setup.max_iterations
    inverse_reach = [1.0 / math.fsum(lens[i:]) for i in range(len(lens))]

    def kernel(warm: list[float], tx: float, ty: float) -> tuple[list[float], int]:
        return ccd_frame(
            warm, tx, ty, lens, lower, upper, tolerance=tol, sweep_tolerance=coarse, max_iterations=cap,
            max_step=max_step, inverse_reach=inverse_reach,
        )

    return kernel


def solve_ccd(
    targets: ArrayLike,
    lengths: ArrayLike,
    options: ChainOptions | None = None,
    *,
    previous: ChainState | None = None,
    max_step: float = DEFAULT_MAX_STEP,
    **changes: Any,
) -> ChainResult:
    """Solve a planar N-bone chain by CCD for every frame, in time order.

    Frame ``f`` starts from frame ``f - 1``'s pose (frame 0 from ``previous.angles``, else ``initial_angles``, default
    straight along +x), so a smooth target path gives a smooth chain. That warm start is first moved by one
    minimal-change Gauss-Newton step toward the frame's target when its tip is within
    ``chain_common.PREDICT_REACH`` (5 % of L) of it (:func:`solver.chain_common.predict_step`): a target
    moving smoothly then costs one sweep per frame instead of ~20, and the chain follows it with the
    smallest joint change; CCD's own way of moving (the joints nearest the tip first) acts on larger jumps.

    CCD alone converges linearly, very slowly near full extension: its sweeps stop at ``sweep_tolerance``
    and damped Gauss-Newton steps (the smallest joint change, vectorized over all frames) finish to
    ``tolerance``. The defaults reach 1e-6 L on reachable targets for chains of up to 32 bones, even from the
    straight rest pose.

    Args:
        targets: ``(N, 2)`` (or one ``(2,)``) targets in the chain root's space, length units.
        lengths: ``(n,)`` bone lengths.
        options: the options shared with FABRIK (:class:`solver.chain_common.ChainOptions`, where each is
            described; default: its defaults). ``max_iterations`` caps the CCD sweeps per frame.
        previous: ``result.state`` of an earlier solve: warm start of the first frame (over
            ``initial_angles``), so a live preview solving one frame per call reproduces a bake.
        max_step: damping, the largest turn of one joint in one sweep (radians); each turn is also kept
            below ``DAMPING_REACH * error / reach beyond the joint`` (see :func:`ccd_frame`).
        **changes: option fields by keyword, applied to ``options`` (``solve_ccd(t, lengths, limits=lim)``).

    Returns:
        :class:`solver.chain_common.ChainResult`. Targets at or beyond full reach give the exactly straight
        chain pointing at them (when the limits allow it), with ``error`` equal to the clamped distance.

    Raises:
        ValueError: an option is out of range or has the wrong shape, or a target is not finite.
        TypeError: a keyword names no option.
    """
    if not max_step > 0.0:
        raise ValueError("max_step must be positive")
    setup = parse_options(lengths, options, previous, **changes)
    return run_chain_solver(targets, setup, make_ccd_kernel(setup, float(max_step)), predict=True)
