"""The elementwise functions of :mod:`solver.closed_forms` for Python floats (a module: its attributes load
as fast as ``math.sqrt``, which matters on the single-frame path)."""

from __future__ import annotations

from math import atan2, ceil, cos, exp, isinf, sin, sqrt

__all__ = ["atan2", "ceil", "cos", "exp", "isinf", "maximum", "minimum", "sin", "sqrt", "where"]

maximum = max
minimum = min


def where(condition: bool, yes: float, no: float) -> float:
    """``yes`` if ``condition`` else ``no`` (both already evaluated, as with ``numpy.where``)."""
    return yes if condition else no
