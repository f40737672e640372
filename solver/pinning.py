"""Pinned target ranges (a planted foot): the blend back to the target's own motion, and where ranges lie.

A pin holds a target's world transform from ``start`` to ``end`` and then hands it back to its declared space
over ``blend`` frames. Nothing here knows Blender: the Blender layer asks for the weights and the ranges to draw.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: (start, end, blend) of one pin: held on frames start..end, blended back on end+1..end+blend.
PinRange = tuple[int, int, int]


def blend_weights(blend: int) -> np.ndarray:
    """Weights (0 = held, 1 = the target's own motion) of the ``blend`` frames after a pin's end.

    Smoothstep of k / (blend + 1), k = 1..blend: the held frame before and the free frame after take weights 0
    and 1, so the target leaves the pin with zero speed and rejoins its own path with its own speed.
    """
    if blend < 0:
        raise ValueError(f"blend must be >= 0, got {blend}")
    t = np.arange(1, blend + 1, dtype=np.float64) / (blend + 1)
    return t * t * (3.0 - 2.0 * t)


def held_weights(start: int, end: int, blend: int) -> tuple[np.ndarray, np.ndarray]:
    """The frames a pin changes and the weight of the target's own motion on each (0 while held)."""
    if end < start:
        raise ValueError(f"end {end} is before start {start}")
    frames = np.arange(start, end + blend + 1, dtype=np.float64)
    weights = np.concatenate([np.zeros(end - start + 1), blend_weights(blend)])
    return frames, weights


def touched(pin: PinRange) -> tuple[int, int]:
    """The frames a pin changes: its range and its blend frames."""
    start, end, blend = pin
    return start, end + blend


def overlapping(pins: Sequence[PinRange], new: PinRange) -> int | None:
    """Index of the first of ``pins`` whose changed frames overlap those of ``new``, or None."""
    a0, a1 = touched(new)
    for i, pin in enumerate(pins):
        b0, b1 = touched(pin)
        if a0 <= b1 and b0 <= a1:
            return i
    return None


def pin_at(pins: Sequence[PinRange], frame: float) -> int | None:
    """Index of the pin holding (start..end) or blending (..end+blend) ``frame``, or None."""
    for i, pin in enumerate(pins):
        a, b = touched(pin)
        if a <= frame <= b:
            return i
    return None


def timeline_bands(pins: Sequence[PinRange], frame_to_x: np.ndarray, bottom: float, top: float) -> np.ndarray:
    """Triangles (k, 3, 2) covering each pin's held frames from ``bottom`` to ``top`` (region pixels).

    ``frame_to_x`` is (scale, offset) of the timeline's view: x = scale * frame + offset. A held range covers
    its frames from start - 0.5 to end + 0.5, like the keys Blender draws on them.
    """
    scale, offset = float(frame_to_x[0]), float(frame_to_x[1])
    tris = []
    for start, end, _blend in pins:
        x0, x1 = scale * (start - 0.5) + offset, scale * (end + 0.5) + offset
        tris += [((x0, bottom), (x1, bottom), (x1, top)), ((x0, bottom), (x1, top), (x0, top))]
    return np.array(tris, dtype=np.float64).reshape(-1, 3, 2)
