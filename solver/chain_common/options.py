"""The options shared by CCD and FABRIK: checked once and converted to absolute units (:class:`ChainSetup`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..fk import chain_forward_kinematics
from ..smoothing import TargetFilter
from .result import ChainState

FloatArray = NDArray[np.float64]

STRATEGIES = ("accept", "move_root", "stretch")


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


@dataclass(frozen=True)
class ChainOptions:
    """The options CCD and FABRIK share, with their defaults.

    Both solvers take one of these, keyword changes to it, or both (``solve_fabrik(t, lengths, opts,
    softness=0.05)``): ``dataclasses.replace`` applies the keywords, so an unknown one raises ``TypeError``.

    Attributes:
        limits: ``(n, 2)`` radians ``(min, max)`` per joint (the first in root space, the others relative to
            the parent), ``None`` for none; NaN or inf leaves that side open. Respected on every frame.
        tolerance: fraction of ``L = sum(lengths)``; a frame has converged when its tip is within
            ``tolerance * L`` of the solved target.
        max_iterations: cap on the method's sweeps (CCD) or backward+forward passes (FABRIK) per frame.
        sweep_tolerance: fraction of L where the method's sweeps hand over to the vectorized polish (at
            least one sweep per frame unless the warm start already meets ``tolerance``).
        polish_iterations: cap on the polish's damped Gauss-Newton steps per frame.
        softness: soft IK width as a fraction of L (0 = hard clamp), applied to the root->target distance.
        strategy: ``'accept'``, ``'move_root'`` or ``'stretch'``; acts only where limits keep the tip off
            the target.
        max_root_offset: ``move_root`` cap, length units (None: 0.1 L).
        root_smoothing: ``move_root`` Gaussian sigma in frames (0 = none).
        stretch_range: ``(min, max)`` bone scale factors for ``stretch``.
        smoothing: optional filter on the targets before IK, as the two-bone solver (``'one_euro'``,
            ``'exponential'`` or a :class:`solver.smoothing.TargetFilter`); errors are still measured to the
            raw targets.
        initial_angles: ``(n,)`` warm start of the first frame (default straight along +x; a ``previous``
            state wins), clipped into the limits.
        bend: +1 or -1, the side a straight chain bends to (relative angles positive for +1, as the
            two-bone solver's bend sign).
    """

    limits: ArrayLike | None = None
    tolerance: float = 1e-6
    max_iterations: int = 2000
    sweep_tolerance: float = 1e-4
    polish_iterations: int = 500
    softness: float = 0.0
    strategy: str = "accept"
    max_root_offset: float | None = None
    root_smoothing: float = 2.0
    stretch_range: tuple[float, float] = (0.9, 1.1)
    smoothing: TargetFilter | str | None = None
    initial_angles: ArrayLike | None = None
    bend: int = 1


DEFAULT_OPTIONS = ChainOptions()


def chain_options(options: ChainOptions | None, changes: dict[str, Any]) -> ChainOptions:
    """``options`` (default :data:`DEFAULT_OPTIONS`) with the keyword ``changes`` applied.

    Raises:
        TypeError: a keyword names no option.
    """
    base = DEFAULT_OPTIONS if options is None else options
    return dataclasses.replace(base, **changes) if changes else base


def parse_options(
    lengths: ArrayLike, options: ChainOptions | None = None, previous: ChainState | None = None, **changes: Any,
) -> ChainSetup:
    """Check the options and convert them to absolute units for a chain of bones of ``lengths``.

    Args:
        lengths: ``(n,)`` positive bone lengths.
        options: the shared options (default :data:`DEFAULT_OPTIONS`); keyword ``changes`` are applied to it.
        previous: the state of an earlier solve; its angles warm-start the first frame (over
            ``initial_angles``).

    Raises:
        ValueError: an option is out of range or has the wrong shape.
        TypeError: a keyword names no option.
    """
    opts = chain_options(options, changes)
    limits, tolerance, softness, strategy = opts.limits, opts.tolerance, opts.softness, opts.strategy
    max_iterations, polish_iterations = opts.max_iterations, opts.polish_iterations
    sweep_tolerance, max_root_offset, stretch_range = opts.sweep_tolerance, opts.max_root_offset, opts.stretch_range
    initial_angles, bend, root_smoothing = opts.initial_angles, opts.bend, opts.root_smoothing
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
        smoothing=opts.smoothing,
    )


def reach_radii(lengths: FloatArray) -> tuple[float, float]:
    """``(inner, outer)`` reach of a chain: it can put its tip at any distance in ``[inner, outer]``.

    ``outer`` is the sum of the lengths; ``inner`` is ``max(0, 2 * longest - L)`` (the longest bone folded
    back against all the others).
    """
    total = float(lengths.sum())
    return max(0.0, 2.0 * float(lengths.max()) - total), total

