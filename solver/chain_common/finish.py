"""The pipeline's last step: strategies on limit-blocked frames, forward kinematics and the result."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..fk import chain_forward_kinematics
from ..limits import smooth_root_offset
from .frame_loop import FrameKernel, solve_frames
from .options import ChainSetup
from .polish import polish
from .result import LIMIT_BLOCKED, LIMITED, ROOT_MOVED, STRETCHED, ChainResult, ChainState
from .targets import prepare_targets

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


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

