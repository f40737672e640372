"""The elementwise functions of :mod:`solver.closed_forms` for numpy float arrays."""

from __future__ import annotations

from numpy import arctan2 as atan2
from numpy import ceil, cos, exp, isinf, maximum, minimum, sin, sqrt, where

__all__ = ["atan2", "ceil", "cos", "exp", "isinf", "maximum", "minimum", "sin", "sqrt", "where"]
