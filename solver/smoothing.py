"""Filter target positions before IK (source: 噪声要在被放大之前处理掉).

IK amplifies target noise near the reach limits, so noise is removed from the *positions* first; smoothing
joint angles afterwards would have to fight an already amplified signal and make the motion sluggish.
Both filters are causal (frame n uses frames <= n) and isotropic in 2D.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


class TargetFilter(Protocol):
    """Anything that maps an (N, 2) target trajectory (frames in time order) to a filtered one."""

    def apply(self, targets: FloatArray) -> FloatArray:
        """The filtered ``(N, 2)`` trajectory."""
        ...


@dataclass(frozen=True)
class ExponentialFilter:
    """First-order low-pass ``y[n] = y[n-1] + alpha * (x[n] - y[n-1])``, ``y[0] = x[0]``.

    ``time_constant``: frames (>= 0); ``alpha = 1 - exp(-1 / time_constant)``, 0 = no filtering. For white
    noise the variance is multiplied by ``alpha / (2 - alpha)``; a ramp lags by about ``1/alpha - 1``
    frames.
    """

    time_constant: float = 2.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.time_constant) and self.time_constant >= 0.0):
            raise ValueError("time_constant must be >= 0 frames")

    @property
    def alpha(self) -> float:
        """The per-frame blend weight of the new sample, 1 - exp(-1 / time_constant) (1: no smoothing)."""
        return 1.0 if self.time_constant == 0.0 else 1.0 - math.exp(-1.0 / self.time_constant)

    def apply(self, targets: FloatArray) -> FloatArray:
        """The filtered ``(N, 2)`` trajectory (the first frame passes unchanged)."""
        pts = _as_points(targets)
        alpha = self.alpha
        out = np.empty_like(pts)
        if pts.shape[0] == 0:
            return out
        xs = pts[:, 0].tolist()
        ys = pts[:, 1].tolist()
        fx, fy = xs[0], ys[0]
        res_x = [fx]
        res_y = [fy]
        for x, y in zip(xs[1:], ys[1:], strict=True):
            fx += alpha * (x - fx)
            fy += alpha * (y - fy)
            res_x.append(fx)
            res_y.append(fy)
        out[:, 0] = res_x
        out[:, 1] = res_y
        return out


@dataclass(frozen=True)
class OneEuroFilter:
    """One Euro filter (Casiez, Roussel, Vogel, CHI 2012): a low-pass whose cutoff rises with speed.

    Slow motion is smoothed hard (jitter removed), fast motion passes with little lag.

    - ``rate``: frames per second (Hz) of the trajectory.
    - ``min_cutoff``: cutoff frequency at rest, Hz (lower = smoother, more lag).
    - ``beta``: cutoff increase per unit speed, Hz per (length unit / s); 0 makes it a plain exponential
      filter of cutoff ``min_cutoff``.
    - ``d_cutoff``: cutoff of the low-pass on the speed estimate, Hz.

    The speed is the norm of the 2D velocity, so both coordinates share one cutoff (no axis bias).
    """

    rate: float = 24.0
    min_cutoff: float = 1.0
    beta: float = 0.0
    d_cutoff: float = 1.0

    def __post_init__(self) -> None:
        for name in ("rate", "min_cutoff", "d_cutoff"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v > 0.0):
                raise ValueError(f"{name} must be > 0")
        if not (math.isfinite(self.beta) and self.beta >= 0.0):
            raise ValueError("beta must be >= 0")

    def _alpha(self, cutoff: float) -> float:
        tau = 1.0 / (2.0 * math.pi * cutoff)
        return 1.0 / (1.0 + tau * self.rate)

    def apply(self, targets: FloatArray) -> FloatArray:
        """The filtered ``(N, 2)`` trajectory (the first frame passes unchanged)."""
        pts = _as_points(targets)
        out = np.empty_like(pts)
        if pts.shape[0] == 0:
            return out
        xs = pts[:, 0].tolist()
        ys = pts[:, 1].tolist()
        fx, fy = xs[0], ys[0]
        vx = vy = 0.0
        a_d = self._alpha(self.d_cutoff)
        rate, min_cut, beta = self.rate, self.min_cutoff, self.beta
        res_x = [fx]
        res_y = [fy]
        for x, y in zip(xs[1:], ys[1:], strict=True):
            vx += a_d * ((x - fx) * rate - vx)
            vy += a_d * ((y - fy) * rate - vy)
            a = self._alpha(min_cut + beta * math.hypot(vx, vy))
            fx += a * (x - fx)
            fy += a * (y - fy)
            res_x.append(fx)
            res_y.append(fy)
        out[:, 0] = res_x
        out[:, 1] = res_y
        return out


def _as_points(targets: ArrayLike) -> FloatArray:
    pts = np.asarray(targets, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise ValueError(f"targets must have shape (N, 2), got {pts.shape}")
    return pts


_METHODS = {"exponential": ExponentialFilter, "one_euro": OneEuroFilter}


def make_filter(method: str, **params: float) -> TargetFilter:
    """Build a filter by name, with that class's parameters as keywords.

    ``"exponential"`` (:class:`ExponentialFilter`) or ``"one_euro"`` (:class:`OneEuroFilter`).
    """
    try:
        cls = _METHODS[method]
    except KeyError:
        raise ValueError(f"unknown smoothing method {method!r}; use one of {sorted(_METHODS)}") from None
    flt: TargetFilter = cls(**params)
    return flt


def smooth_targets(targets: ArrayLike, method: str | TargetFilter = "one_euro", **params: float) -> FloatArray:
    """Filter an (N, 2) target trajectory before IK.

    ``method``: ``"one_euro"`` (default), ``"exponential"``, or a ready :class:`TargetFilter` (then
    ``params`` must be empty). ``params``: the chosen filter's parameters (see :class:`OneEuroFilter` and
    :class:`ExponentialFilter`; rates in Hz, time constants in frames).
    """
    pts = _as_points(targets)
    if isinstance(method, str):
        return make_filter(method, **params).apply(pts)
    if params:
        raise ValueError("parameters are given to the filter object, not to smooth_targets")
    return method.apply(pts)
