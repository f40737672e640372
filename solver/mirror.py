"""Mirroring a chain to the other side of a character: the opposite side's names and angles (pure Python).

Names follow Blender's own convention for symmetric bones (what Symmetrize and X-Axis Mirror pair): a side
marker ``L``/``R`` (either case) after a separator ``.``, ``_``, ``-`` or space at the end of the name
(``Hand.L``, ``arm_r``) or before one at its start (``L.Hand``), else a word ``Left``/``Right`` (any of
``left``, ``Left``, ``LEFT``) at the start or end. A numeric suffix (``Hand.L.001``) is kept. Names with no
side have no opposite.

Angles: the mirror is the reflection x -> -x of armature space (Blender's bone mirror axis). When the plane
contains the x axis (``XZ``, ``XY``) the reflection reverses the plane's orientation, so every angle measured
counter-clockwise about the plane normal changes sign: the bend side flips and a limit range (lo, hi) becomes
(-hi, -lo). In the ``YZ`` plane (normal along x) the reflection only moves the chain to the other depth and
angles stay as they are.
"""

from __future__ import annotations

import re

_SEPARATORS = "._- "
_SIDES = {"L": "R", "R": "L", "l": "r", "r": "l"}
_NUMBER = re.compile(r"^(.*?)(\.\d+)$")
_WORDS = (("Left", "Right"), ("left", "right"), ("LEFT", "RIGHT"))


def _swap_word(word: str) -> str | None:
    for left, right in _WORDS:
        if word == left:
            return right
        if word == right:
            return left
    return None


def flip_name(name: str) -> str | None:
    """The opposite side's name (``Hand.L`` -> ``Hand.R``), or None when ``name`` names no side."""
    match = _NUMBER.match(name)
    base, number = (match.group(1), match.group(2)) if match else (name, "")
    if len(base) >= 2 and base[-1] in _SIDES and base[-2] in _SEPARATORS:
        return base[:-1] + _SIDES[base[-1]] + number
    if len(base) >= 2 and base[0] in _SIDES and base[1] in _SEPARATORS:
        return _SIDES[base[0]] + base[1:] + number
    for size in (4, 5):  # "Left", "Right"
        if len(base) > size:
            start = _swap_word(base[:size])
            if start is not None:
                return start + base[size:] + number
            end = _swap_word(base[-size:])
            if end is not None:
                return base[:-size] + end + number
    return None


def plane_reverses_angles(plane: str) -> bool:
    """Whether mirroring x -> -x reverses the orientation of ``plane`` ('XZ', 'XY' or 'YZ'), i.e. negates the
    angles measured about its normal."""
    if plane not in ("XZ", "XY", "YZ"):
        raise ValueError(f"unknown plane {plane!r}")
    return plane != "YZ"


def mirror_bend(bend: int, plane: str) -> int:
    """The bend side (+1/-1) of the mirrored chain."""
    side = -1 if bend < 0 else 1
    return -side if plane_reverses_angles(plane) else side


def mirror_range(low: float, high: float, plane: str) -> tuple[float, float]:
    """An angle limit (low, high) of the mirrored chain."""
    return (-high, -low) if plane_reverses_angles(plane) else (low, high)
