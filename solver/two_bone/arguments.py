"""Argument checking of :func:`solver.solve_two_bone`.

Options are resolved once (cached); bends and poles are shaped for the single-frame or the per-frame path.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..limits import JointLimits, Strategy
from ..options import Options, resolve_options

FloatArray = NDArray[np.float64]


@functools.lru_cache(maxsize=64)
def cached_options(
    a: float,
    b: float,
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
    """:func:`solver.options.resolve_options` of hashable arguments, cached (the live path calls it per frame)."""
    return resolve_options(
        a,
        b,
        softness=softness,
        inner_softness=inner_softness,
        eps=eps,
        zero_distance=zero_distance,
        pole_deadzone=pole_deadzone,
        limits=limits,
        strategy=strategy,
        max_root_offset=max_root_offset,
        root_smoothing=root_smoothing,
        stretch_range=stretch_range,
        initial_direction=initial_direction,
    )


def single_bend(bend: int | ArrayLike) -> int:
    """The bend of a single target as a plain int.

    Raises:
        ValueError: ``bend`` is not +1 or -1 (or holds more than one value).
    """
    if bend == 1 or bend == -1:  # plain ints: the live path skips numpy
        return int(bend)  # type: ignore[arg-type]
    arr = np.asarray(bend).reshape(-1)
    if arr.size != 1 or arr[0] not in (1, -1):
        raise ValueError(f"bend must be +1 or -1, got {bend!r}")
    return int(arr[0])


def frame_bend(bend: int | ArrayLike, n: int) -> int | NDArray[np.int8]:
    """A scalar bend stays a Python int (cheaper arithmetic); per-frame bends become an int8 array."""
    arr = np.asarray(bend)
    if arr.ndim == 0:
        return single_bend(arr.item())
    if arr.shape != (n,):
        raise ValueError(f"bend must be a scalar or have shape ({n},), got {arr.shape}")
    if not ((arr == 1) | (arr == -1)).all():
        raise ValueError("bend must be +1 or -1")
    return arr.astype(np.int8)


def single_pole(pole: ArrayLike | None) -> tuple[float, float] | None:
    """The pole of a single target as two floats (or None).

    Raises:
        ValueError: the pole is not a finite ``(2,)`` point.
    """
    if pole is None:
        return None
    if isinstance(pole, tuple) and len(pole) == 2:  # the live path: skip numpy
        px, py = float(pole[0]), float(pole[1])
        if not (math.isfinite(px) and math.isfinite(py)):
            raise ValueError("pole must be finite")
        return px, py
    arr = np.asarray(pole, dtype=np.float64).reshape(-1)
    if arr.shape != (2,) or not np.isfinite(arr).all():
        raise ValueError("pole for a single target must be a finite (2,) point")
    return float(arr[0]), float(arr[1])


def frame_pole(pole: ArrayLike | None, n: int) -> FloatArray | None:
    """The pole of ``n`` frames as an ``(n, 2)`` array (a fixed ``(2,)`` pole broadcast), or None.

    Raises:
        ValueError: the pole is not finite or has another shape.
    """
    if pole is None:
        return None
    arr = np.asarray(pole, dtype=np.float64)
    if arr.shape == (2,):
        arr = np.broadcast_to(arr, (n, 2))
    if arr.shape != (n, 2) or not np.isfinite(arr).all():
        raise ValueError(f"pole must be a finite (2,) or ({n}, 2) array")
    return arr

