"""Validated solver options shared by the vectorized and the single-frame paths."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .limits import JointLimits, Strategy

DEFAULT_EPS_FRACTION = 1e-9
DEFAULT_ROOT_FRACTION = 0.1


@dataclass(frozen=True)
class Options:
    """Resolved options in length units (see :func:`solver.solve_two_bone` for their meaning)."""

    a: float
    b: float
    total: float  # a + b
    inner: float  # |a - b|
    eps: float
    zero_distance: float
    outer_width: float  # soft width, length units
    inner_width: float
    pole_deadzone: float
    limits: JointLimits | None
    strategy: Strategy
    max_root_offset: float
    root_smoothing: float
    stretch_range: tuple[float, float]
    initial_direction: tuple[float, float]


def clamp_bounds(a: float, b: float, eps: float) -> tuple[float, float]:
    """Hard clamp interval ``[|a-b| + eps, a+b - eps]``; collapses to its midpoint if eps exceeds the gap."""
    lo = abs(a - b) + eps
    hi = a + b - eps
    if lo > hi:
        lo = hi = 0.5 * (abs(a - b) + a + b)
    return lo, hi


def _positive(name: str, value: float) -> float:
    v = float(value)
    if not (math.isfinite(v) and v > 0.0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return v


def _fraction(name: str, value: float) -> float:
    v = float(value)
    if not (math.isfinite(v) and 0.0 <= v < 1.0):
        raise ValueError(f"{name} must be a fraction in [0, 1), got {value!r}")
    return v


def resolve_options(
    a: float,
    b: float,
    *,
    softness: float,
    inner_softness: float,
    eps: float | None,
    zero_distance: float | None,
    pole_deadzone: float,
    limits: JointLimits | None,
    strategy: Strategy | str,
    max_root_offset: float | None,
    root_smoothing: float,
    stretch_range: tuple[float, float],
    initial_direction: tuple[float, float],
) -> Options:
    """Check every option and convert fractions to length units; raises ``ValueError`` on bad input.

    Pure function of hashable arguments, so callers may cache it (the live single-frame path does).
    """
    a_f = _positive("a", a)
    b_f = _positive("b", b)
    total = a_f + b_f
    eps_f = DEFAULT_EPS_FRACTION * total if eps is None else _positive("eps", eps)
    zero_f = DEFAULT_EPS_FRACTION * total if zero_distance is None else _positive("zero_distance", zero_distance)
    dead = float(pole_deadzone)
    if not (math.isfinite(dead) and 0.0 <= dead < 1.0):
        raise ValueError(f"pole_deadzone must be in [0, 1), got {pole_deadzone!r}")
    root_max = DEFAULT_ROOT_FRACTION * total if max_root_offset is None else float(max_root_offset)
    if not (math.isfinite(root_max) and root_max >= 0.0):
        raise ValueError(f"max_root_offset must be >= 0, got {max_root_offset!r}")
    sigma = float(root_smoothing)
    if not (math.isfinite(sigma) and sigma >= 0.0):
        raise ValueError(f"root_smoothing must be >= 0 frames, got {root_smoothing!r}")
    k_lo, k_hi = (float(v) for v in stretch_range)
    if not (math.isfinite(k_lo) and math.isfinite(k_hi) and 0.0 < k_lo <= 1.0 <= k_hi):
        raise ValueError(f"stretch_range must satisfy 0 < min <= 1 <= max, got {stretch_range!r}")
    dx, dy = (float(v) for v in initial_direction)
    norm = math.hypot(dx, dy)
    if not (math.isfinite(norm) and norm > 0.0):
        raise ValueError(f"initial_direction must be a non-zero finite vector, got {initial_direction!r}")
    return Options(
        a=a_f,
        b=b_f,
        total=total,
        inner=abs(a_f - b_f),
        eps=eps_f,
        zero_distance=zero_f,
        outer_width=_fraction("softness", softness) * total,
        inner_width=_fraction("inner_softness", inner_softness) * total,
        pole_deadzone=dead,
        limits=limits,
        strategy=Strategy(strategy),
        max_root_offset=root_max,
        root_smoothing=sigma,
        stretch_range=(k_lo, k_hi),
        initial_direction=(dx / norm, dy / norm),
    )
