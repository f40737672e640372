"""Promises that mutation testing (scripts/mutation.sh) showed no test held: each test here fails on mutants
of ``solver/`` that survived the rest of the suite. Grouped by module; the survivors list is in DEVELOPERS.md.
"""

from __future__ import annotations

import numpy as np
import pytest

from solver.soft import soft_distance, soft_distance_derivative, soft_inner_distance

# --- solver/soft.py ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("total", "width"), [(2.0, 0.5), (3.0, 0.2), (1.0, 0.9)])
def test_soft_distance_derivative_is_the_slope_of_soft_distance(total: float, width: float) -> None:
    d = np.linspace(0.2 * total, 2.0 * total, 41)
    h = 1e-6
    slope = (soft_distance(d + h, total, width) - soft_distance(d - h, total, width)) / (2 * h)
    np.testing.assert_allclose(soft_distance_derivative(d, total, width), slope, rtol=1e-6, atol=1e-6)


def test_zero_width_leaves_distances_unchanged_beyond_the_boundary() -> None:
    d = np.array([0.5, 1.5, 3.0])
    np.testing.assert_array_equal(soft_distance(d, 2.0, 0.0), d)
    np.testing.assert_array_equal(soft_inner_distance(d, 1.0, 0.0), d)
    np.testing.assert_array_equal(soft_distance_derivative(d, 2.0, 0.0), np.ones(3))


@pytest.mark.parametrize("width", [0.0, 0.5])
def test_soft_functions_return_float64_arrays_of_the_input_shape_for_integer_input(width: float) -> None:
    d = np.array([[0, 1], [2, 3]])
    for out in (soft_distance(d, 3.0, width), soft_inner_distance(d, 1.0, width),
                soft_distance_derivative(d, 3.0, width)):
        assert out.dtype == np.float64
        assert out.shape == d.shape
