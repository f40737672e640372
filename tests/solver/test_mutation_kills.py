"""Promises that mutation testing (scripts/mutation.sh) showed no test held: each test here fails on mutants
of ``solver/`` that survived the rest of the suite. Grouped by module; the survivors list is in DEVELOPERS.md.
"""

from __future__ import annotations

import numpy as np
import pytest

from solver.smoothing import ExponentialFilter, OneEuroFilter, smooth_targets
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


# --- solver/smoothing.py ----------------------------------------------------------------------------------------


def _one_euro_reference(points: np.ndarray, rate: float, min_cutoff: float, beta: float, d_cutoff: float) -> np.ndarray:
    """The 1 euro filter as Casiez et al. publish it (speed from the previous filtered value, 2D speed norm)."""

    def alpha(cutoff: float) -> float:
        return 1.0 / (1.0 + rate / (2.0 * np.pi * cutoff))

    out = [points[0]]
    speed = np.zeros(2)
    for x in points[1:]:
        speed = speed + alpha(d_cutoff) * ((x - out[-1]) * rate - speed)
        out.append(out[-1] + alpha(min_cutoff + beta * np.linalg.norm(speed)) * (x - out[-1]))
    return np.array(out)


def test_one_euro_filter_matches_the_published_filter_with_a_speed_term() -> None:
    rng = np.random.default_rng(5)
    t = np.arange(60) / 24.0
    points = np.c_[np.cos(3 * t), 0.5 * np.sin(5 * t)] * 2.0 + rng.normal(scale=0.02, size=(60, 2))
    params = dict(rate=24.0, min_cutoff=0.8, beta=0.7, d_cutoff=1.3)
    np.testing.assert_allclose(OneEuroFilter(**params).apply(points), _one_euro_reference(points, **params),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("flt", [ExponentialFilter(2.0), OneEuroFilter(beta=0.5)])
def test_filters_keep_empty_and_single_frame_trajectories(flt: ExponentialFilter | OneEuroFilter) -> None:
    assert flt.apply(np.zeros((0, 2))).shape == (0, 2)
    np.testing.assert_array_equal(flt.apply(np.array([[1.5, -2.0]])), [[1.5, -2.0]])
    out = flt.apply(np.array([[0, 0], [3, 4]]))  # integer input still filters in float64
    assert out.dtype == np.float64 and 0.0 < out[1, 0] < 3.0


def test_exponential_filter_time_constants() -> None:
    points = np.random.default_rng(2).normal(size=(10, 2))
    np.testing.assert_allclose(ExponentialFilter(0.0).apply(points), points, rtol=1e-12, atol=1e-12)  # allowed: none
    assert ExponentialFilter(0.5).alpha == pytest.approx(1.0 - np.exp(-2.0))  # below one frame is allowed too
    with pytest.raises(ValueError):
        ExponentialFilter(-0.1)


def test_one_euro_filter_rejects_a_negative_beta_and_nan() -> None:
    for bad in (-0.1, float("nan")):
        with pytest.raises(ValueError):
            OneEuroFilter(beta=bad)


@pytest.mark.parametrize("bad", [np.zeros(3), np.zeros((4, 3)), np.zeros((2, 2, 2))])
def test_trajectories_of_the_wrong_shape_raise_value_error(bad: np.ndarray) -> None:
    with pytest.raises(ValueError):
        smooth_targets(bad)


def test_smooth_targets_passes_its_parameters_and_defaults_to_one_euro() -> None:
    points = np.random.default_rng(4).normal(size=(12, 2))
    np.testing.assert_allclose(smooth_targets(points, "exponential", time_constant=0.0), points, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(smooth_targets(points), OneEuroFilter().apply(points))
