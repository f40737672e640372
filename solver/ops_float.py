"""The elementwise functions of :mod:`solver.closed_forms` for Python floats.

A module rather than an object: its attributes load as fast as ``math.sqrt``, which the single-frame path
feels.
"""

from __future__ import annotations

from math import atan2, ceil, cos, exp, isinf, sin, sqrt

__all__ = ["atan2", "ceil", "cos", "exp", "isinf", "maximum", "minimum", "sin", "sqrt", "where"]

maximum = max
minimum = min


def where(condition: bool, yes: float, no: float) -> float:
    """``yes`` if ``condition`` else ``no`` (both already evaluated, as with ``numpy.where``)."""
    return yes if condition else no
