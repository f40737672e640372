"""The entry point :func:`solve_two_bone` and the driver that runs the passes over a frame range in order."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..limits import JointLimits, Strategy
from ..options import Options
from ..result import SolverState, TwoBoneResult
from ..smoothing import TargetFilter, smooth_targets
from . import single_frame
from .arguments import cached_options, frame_bend, frame_pole, single_bend, single_pole
from .kernel import BLOCK, Frames, solve_block
from .limits_pass import limit_pass
from .strategies import apply_move_root, apply_stretch

FloatArray = NDArray[np.float64]


def solve_two_bone(
    targets: ArrayLike,
    a: float,
    b: float,
    *,
    bend: int | ArrayLike = 1,
    pole: ArrayLike | None = None,
    pole_deadzone: float = 1e-3,
    softness: float = 0.0,
    inner_softness: float = 0.0,
    limits: JointLimits | None = None,
    strategy: Strategy | str = Strategy.ACCEPT,
    max_root_offset: float | None = None,
    root_smoothing: float = 2.0,
    stretch_range: tuple[float, float] = (0.9, 1.1),
    smoothing: TargetFilter | str | None = None,
    eps: float | None = None,
    zero_distance: float | None = None,
    initial_direction: tuple[float, float] = (1.0, 0.0),
    previous: SolverState | None = None,
) -> TwoBoneResult:
    """Solve a planar two-bone chain for every frame of ``targets``.

    Every argument after ``a`` and ``b`` is keyword only.

    Args:
        targets: ``(N, 2)`` target positions in the shoulder's 2D space (shoulder at the origin), frames in
            time order; or one target of shape ``(2,)`` (then a pure-``math`` single-frame path runs and the
            result arrays drop the frame axis). Length units are the caller's (same as ``a`` and ``b``).
        a, b: upper and lower bone lengths (> 0, length units). ``a == b`` is fine.
        bend: +1 or -1 (scalar, or ``(N,)`` per frame): which of the two mirrored solutions. +1 gives a
            positive elbow angle, the elbow on the clockwise side of the shoulder->target line. The side never
            changes unless the caller changes it.
        pole: optional point, ``(2,)`` fixed or ``(N, 2)`` per frame, same space as ``targets``. The elbow
            goes to the pole's side: bend = +1 where cross(direction, pole) < 0. Overrides ``bend``, which (or
            ``previous.bend`` when given) is only the fallback for the first frames.
        pole_deadzone: hysteresis, as the sine of the angle between the pole and the shoulder->target line
            (default 1e-3). Inside it the previous frame's side is kept.
        softness: soft IK width as a fraction of L = a+b (0 = hard clamp, typically 0.03-0.08). Distances
            above ``L - s`` become ``L - s*exp(-(d-(L-s))/s)``.
        inner_softness: the same at the inner radius ``|a-b|`` (fraction of L, 0 = off).
        limits: :class:`JointLimits` in radians (shoulder in shoulder space, elbow relative), or None.
        strategy: ``"accept"``, ``"move_root"`` or ``"stretch"`` (:class:`Strategy`); acts only on frames
            where a limit acted.
        max_root_offset: move_root cap, length units (default 0.1 * L).
        root_smoothing: move_root Gaussian smoothing over frames, standard deviation in frames (0 = none;
            zero lag; see :func:`solver.limits.smooth_root_offset`). Default 2.
        stretch_range: ``(min, max)`` bone scale factor for ``stretch`` (default (0.9, 1.1) = +-10%).
        smoothing: optional filter on the target positions before IK: ``"one_euro"``, ``"exponential"`` or a
            :class:`solver.smoothing.TargetFilter` with its parameters. A single target is not filtered.
        eps: distance kept from both reach boundaries, length units (default 1e-9 * L, > 0).
        zero_distance: targets closer than this to the shoulder keep the previous direction, length units
            (default 1e-9 * L).
        initial_direction: direction used when the first frames sit on the shoulder (default +x).
        previous: :class:`SolverState` of the previous solve (``result.state``) for continuity: held
            direction, pole fallback side, move_root smoothing history.

    Returns:
        :class:`solver.result.TwoBoneResult` (angles in radians, positions in length units, flags, errors,
        sensitivity, root offset, stretch, final state).

    Raises:
        ValueError: a target is not finite or an argument is out of range or of the wrong shape.
    """
    option_args = (float(a), float(b), softness, inner_softness, eps, zero_distance, pole_deadzone, limits,
                   strategy, max_root_offset, root_smoothing, stretch_range, initial_direction)
    try:
        opts = cached_options(*option_args)
    except TypeError:  # an unhashable argument (e.g. a list): resolve without the cache
        opts = cached_options.__wrapped__(*option_args)
    raw = np.asarray(targets, dtype=np.float64)
    if raw.shape == (2,):
        tx, ty = float(raw[0]), float(raw[1])
        if not (math.isfinite(tx) and math.isfinite(ty)):
            raise ValueError("targets must be finite")
        return single_frame.solve_single(tx, ty, opts, single_bend(bend), single_pole(pole), previous)
    if raw.ndim != 2 or raw.shape[1] != 2:
        raise ValueError(f"targets must have shape (N, 2) or (2,), got {raw.shape}")
    if raw.size and not (math.isfinite(raw.min()) and math.isfinite(raw.max())):  # NaN propagates to both
        raise ValueError("targets must be finite")
    aimed = raw if smoothing is None else smooth_targets(raw, smoothing)
    n = raw.shape[0]
    return solve_frames(raw, aimed, opts, frame_bend(bend, n), frame_pole(pole, n), previous)


def solve_frames(
    raw: FloatArray,
    aimed: FloatArray,
    opts: Options,
    bend: int | NDArray[np.int8],
    pole: FloatArray | None,
    previous: SolverState | None,
) -> TwoBoneResult:
    """The passes over checked arguments: block kernel, limits pass, strategy; then the result and its state.

    ``raw`` are the input targets, ``aimed`` the (optionally filtered) ones the solve aims at.
    """
    n = aimed.shape[0]
    out = Frames.empty(n)
    aimed_rows = np.ascontiguousarray(aimed)  # rows viewed as complex numbers in solve_block
    carry_dir = previous.direction if previous is not None else opts.initial_direction
    if previous is not None:
        carry_bend = previous.bend
    else:
        carry_bend = bend if isinstance(bend, int) else (int(bend[0]) if n else 1)
    phi = None if opts.limits is None else np.empty(n)
    for start in range(0, n, BLOCK):
        sl = slice(start, min(start + BLOCK, n))
        dx, dy, used = solve_block(
            out,
            sl,
            aimed_rows[sl],
            bend if isinstance(bend, int) else bend[sl],
            None if pole is None else pole[sl],
            opts,
            carry_dir,
            carry_bend,
            None if phi is None else phi[sl],
        )
        carry_dir, carry_bend = (float(dx[-1]), float(dy[-1])), used if isinstance(used, int) else int(used[-1])
    return finish(out, phi, bend, pole, opts, previous, raw, aimed, carry_dir)


def finish(
    out: Frames,
    phi: FloatArray | None,
    bend: int | NDArray[np.int8],
    pole: FloatArray | None,
    opts: Options,
    previous: SolverState | None,
    raw: FloatArray,
    aimed: FloatArray,
    carry_dir: tuple[float, float],
) -> TwoBoneResult:
    """The passes after the block kernel (limits, strategy) on one chain's rows, and its result and state.

    Args:
        out: the chain's buffers, filled by the block kernel.
        phi: the target angles the kernel wrote (None without limits).
        bend, pole, opts, previous: the chain's checked arguments.
        raw, aimed: its input and (filtered) aimed-at targets.
        carry_dir: the direction after its last frame.
    """
    n = aimed.shape[0]
    if phi is not None:
        scalar_bend = bend if isinstance(bend, int) and pole is None else None  # a pole decides per frame
        limit_pass(out, phi, scalar_bend, opts)

    root = np.zeros((n, 2))
    if opts.limits is not None and opts.strategy is Strategy.MOVE_ROOT:
        root = apply_move_root(out, opts, previous)
    elif opts.limits is not None and opts.strategy is Strategy.STRETCH:
        apply_stretch(out, opts)

    if n:
        state = SolverState(
            direction=carry_dir, bend=int(out.bend[-1]), root_offset=(float(root[-1, 0]), float(root[-1, 1]))
        )
    else:
        state = previous if previous is not None else SolverState(direction=opts.initial_direction)
    return TwoBoneResult(
        shoulder_angle=out.shoulder,
        elbow_angle=out.elbow_angle,
        elbow=out.elbow,
        end=out.end,
        target=aimed,
        input_target=raw,
        solved_target=out.solved,
        distance=out.distance,
        solved_distance=out.solved_distance,
        flags=out.flags,
        bend=out.bend,
        root_offset=root,
        stretch=out.stretch,
        state=state,
        sensitivity_params=(opts.a, opts.b, opts.outer_width, opts.inner_width, opts.zero_distance),
    )

