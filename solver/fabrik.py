"""FABRIK (forward and backward reaching IK) for planar N-bone chains, solved over frames in time order."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from numpy.typing import ArrayLike

from .chain_common import (
    SLOW_RATIO,
    SLOW_SWEEPS,
    STALL_FRACTION,
    TAU,
    ChainOptions,
    ChainResult,
    ChainSetup,
    ChainState,
    FrameKernel,
    parse_options,
    run_chain_solver,
    wrap,
)


def fabrik_frame(
    angles: Sequence[float], tx: float, ty: float, lengths: Sequence[float],
    lower: Sequence[float], upper: Sequence[float], *, tolerance: float, sweep_tolerance: float,
    max_iterations: int, limited: bool, positions: tuple[list[float], list[float]] | None = None,
) -> tuple[list[float], int]:
    """Solve one frame by FABRIK from the warm start ``angles``; returns ``(angles, iterations used)``.

    One iteration is a backward pass (tip pinned to the target, each joint pulled onto the line to its old
    position at bone length) and a forward pass (root pinned back at the origin). With limits, the forward
    pass rebuilds the chain from clipped relative angles, so every iteration ends inside the limits. The
    returned relative angles are unwrapped next to the warm start's (no jumps by a full turn). Stopping
    rules as :func:`solver.ccd.ccd_frame`.

    ``positions``: optional ``(px, py)`` lists of the warm start's n+1 joint positions, used (and updated
    in place) instead of recomputing them; the frame loop passes the previous frame's.
    """
    ang = list(angles)
    n = len(ang)
    cos = math.cos
    sin = math.sin
    atan2 = math.atan2
    hypot = math.hypot
    if positions is None:
        px = [0.0] * (n + 1)
        py = [0.0] * (n + 1)
        x = y = a = 0.0
        for i in range(n):
            a += ang[i]
            x += lengths[i] * cos(a)
            y += lengths[i] * sin(a)
            px[i + 1] = x
            py[i + 1] = y
    else:
        px, py = positions
    stall = STALL_FRACTION * tolerance
    backward = range(n - 1, -1, -1)
    previous_error = math.inf
    slow = 0
    used = 0
    while True:
        error = hypot(tx - px[n], ty - py[n])
        if (
            error <= tolerance
            or (used and error <= sweep_tolerance)
            or used >= max_iterations
            or previous_error - error < stall
            or slow >= SLOW_SWEEPS
        ):
            break
        slow = slow + 1 if error > SLOW_RATIO * previous_error else 0
        previous_error = error
        used += 1
        px[n] = tx
        py[n] = ty
        # The joint just placed stays in (x, y) rather than being read back from the lists (about a third
        # of the pass's cost on Python floats).
        x = tx
        y = ty
        for i in backward:
            dx = px[i] - x
            dy = py[i] - y
            r = hypot(dx, dy)
            if r > 0.0:
                k = lengths[i] / r
                x += dx * k
                y += dy * k
            else:
                x -= lengths[i]
            px[i] = x
            py[i] = y
        px[0] = 0.0
        py[0] = 0.0
        if limited:
            parent = 0.0
            for i in range(n):
                rel = ang[i] + wrap(atan2(py[i + 1] - py[i], px[i + 1] - px[i]) - parent - ang[i])
                if rel < lower[i]:
                    rel = lower[i]
                elif rel > upper[i]:
                    rel = upper[i]
                ang[i] = rel
                parent += rel
                px[i + 1] = px[i] + lengths[i] * cos(parent)
                py[i + 1] = py[i] + lengths[i] * sin(parent)
        else:
            x = y = 0.0
            for i in range(n):
                dx = px[i + 1] - x
                dy = py[i + 1] - y
                r = hypot(dx, dy)
                if r > 0.0:
                    k = lengths[i] / r
                    x += dx * k
                    y += dy * k
                else:
                    x += lengths[i]
                px[i + 1] = x
                py[i + 1] = y
    if not limited and used:
        parent = 0.0
        for i in range(n):
            turn = atan2(py[i + 1] - py[i], px[i + 1] - px[i]) - parent - ang[i]
            ang[i] += turn - TAU * math.floor(turn / TAU + 0.5)
            parent += ang[i]
    return ang, used


def make_fabrik_kernel(setup: ChainSetup) -> FrameKernel:
    """Bind the chain's options to :func:`fabrik_frame` for :func:`solver.chain_common.solve_frames`."""
    lens = [float(v) for v in setup.lengths]
    lower = [float(v) for v in setup.lower]
    upper = [float(v) for v in setup.upper]
    tol = setup.tolerance
    coarse = setup.sweep_tolerance
    cap = setup.max_iterations
    limited = setup.has_limits
    n = len(lens)
    # The previous frame's output pose and its joint positions: FABRIK works on positions, so the next
    # frame reuses them instead of recomputing them from the angles (unless the frame loop replaced the
    # warm start, e.g. by the exactly straight chain).
    last: list[list[float]] = [[]]
    px = [0.0] * (n + 1)
    py = [0.0] * (n + 1)

    def kernel(warm: list[float], tx: float, ty: float) -> tuple[list[float], int]:
        cached = (px, py) if warm is last[0] else None
        pose, used = fabrik_frame(
            warm, tx, ty, lens, lower, upper, tolerance=tol, sweep_tolerance=coarse, max_iterations=cap,
            limited=limited, positions=cached,
        )
        if cached is None:
            x = y = a = 0.0
            for i in range(n):
                a += pose[i]
                x += lens[i] * math.cos(a)
                y += lens[i] * math.sin(a)
                px[i + 1] = x
                py[i + 1] = y
        last[0] = pose
        return pose, used

    return kernel


def solve_fabrik(
    targets: ArrayLike,
    lengths: ArrayLike,
    options: ChainOptions | None = None,
    *,
    previous: ChainState | None = None,
    **changes: Any,
) -> ChainResult:
    """Solve a planar N-bone chain by FABRIK for every frame, in time order.

    Same inputs, options and result as :func:`solver.ccd.solve_ccd`, without ``max_step`` (a FABRIK pass
    moves each joint by at most the tip's displacement, so it needs no damping). ``max_iterations`` caps the
    backward+forward passes per frame; ``sweep_tolerance`` is where the passes hand over to the vectorized
    Gauss-Newton polish. FABRIK spreads a motion over the whole chain, where CCD curls the joints nearest
    the tip first.

    Raises:
        ValueError: an option is out of range or has the wrong shape, or a target is not finite.
        TypeError: a keyword names no option.
    """
    setup = parse_options(lengths, options, previous, **changes)
    return run_chain_solver(targets, setup, make_fabrik_kernel(setup))
