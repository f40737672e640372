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

One module per step: :mod:`.options` (checking), :mod:`.targets` (reach), :mod:`.warm_start` and
:mod:`.frame_loop` (the sweeps), :mod:`.polish`, :mod:`.finish` (strategies, result, the whole pipeline);
:mod:`.result` holds the result types and the flag bits.
"""

from ..limits import TAU
from .finish import finish, run_chain_solver
from .frame_loop import COLLINEAR_EPS, RESTART_ERROR, SLOW_RATIO, SLOW_SWEEPS, STALL_FRACTION, FrameKernel, solve_frames
from .options import DEFAULT_OPTIONS, STRATEGIES, ChainOptions, ChainSetup, chain_options, parse_options, reach_radii
from .polish import polish
from .result import (
    CHAIN_FLAGS,
    CLAMPED_INNER,
    CLAMPED_OUTER,
    DIRECTION_HELD,
    LIMIT_BLOCKED,
    LIMITED,
    ROOT_MOVED,
    SOFTENED,
    STRETCHED,
    ChainResult,
    ChainState,
)
from .targets import prepare_targets
from .warm_start import PREDICT_DAMPING, PREDICT_REACH, STRAIGHT_EPS, arc_start, predict_step, tip_error, wrap

__all__ = [
    "CHAIN_FLAGS",
    "CLAMPED_INNER",
    "CLAMPED_OUTER",
    "COLLINEAR_EPS",
    "DEFAULT_OPTIONS",
    "DIRECTION_HELD",
    "LIMITED",
    "LIMIT_BLOCKED",
    "PREDICT_DAMPING",
    "PREDICT_REACH",
    "RESTART_ERROR",
    "ROOT_MOVED",
    "SLOW_RATIO",
    "SLOW_SWEEPS",
    "SOFTENED",
    "STALL_FRACTION",
    "STRAIGHT_EPS",
    "STRATEGIES",
    "STRETCHED",
    "TAU",
    "ChainOptions",
    "ChainResult",
    "ChainSetup",
    "ChainState",
    "FrameKernel",
    "arc_start",
    "chain_options",
    "finish",
    "parse_options",
    "polish",
    "predict_step",
    "prepare_targets",
    "reach_radii",
    "run_chain_solver",
    "solve_frames",
    "tip_error",
    "wrap",
]
