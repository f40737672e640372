"""The root-offset smoothing of ``move_root`` (``solver.limits``) against a plain weighted mean written out here,
and the joint-limit type's range check.

Whole solves smooth the offset over frames whose truth is hard to state; these pin the kernel and the edge
handling down directly (the mutation run of ``limits.py`` left them open: a kernel of the wrong width, the
previous offset ignored at the start of a chained solve).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver.limits import JointLimits, gaussian_weights, smooth_root_offset


def naive_smooth(offset: np.ndarray, sigma: float, previous: tuple[float, float] | None) -> np.ndarray:
    """Each frame: the Gaussian-weighted mean of the frames within 3 sigma that exist (before the first one,
    ``previous`` when given), weights renormalised over those."""
    half = max(1, math.ceil(3.0 * sigma))
    out = np.empty_like(offset)
    for i in range(len(offset)):
        total, weight = np.zeros(2), 0.0
        for j in range(-half, half + 1):
            w = math.exp(-0.5 * (j / sigma) ** 2)
            k = i + j
            if 0 <= k < len(offset):
                total += w * offset[k]
                weight += w
            elif k < 0 and previous is not None:
                total += w * np.asarray(previous)
                weight += w
        out[i] = total / weight
    return out


@pytest.mark.parametrize(("sigma", "half"), [(0.2, 1), (0.5, 2), (1.0, 3), (2.0, 6), (2.1, 7)])
def test_gaussian_weights_reach_three_sigma(sigma: float, half: int) -> None:
    j = np.arange(-half, half + 1)
    assert gaussian_weights(sigma) == pytest.approx(np.exp(-0.5 * (j / sigma) ** 2), rel=1e-15)


@pytest.mark.parametrize("sigma", [0.0, -1.0])
def test_no_smoothing_is_one_weight(sigma: float) -> None:
    assert gaussian_weights(sigma).tolist() == [1.0]


@pytest.mark.parametrize("n", [1, 2, 5, 12, 13, 40])
@pytest.mark.parametrize("previous", [None, (0.3, -0.2)])
@pytest.mark.parametrize("sigma", [0.5, 1.0])
def test_smoothing_is_the_weighted_mean_of_the_frames_that_exist(
        n: int, previous: tuple[float, float] | None, sigma: float) -> None:
    rng = np.random.default_rng(n)
    offset = rng.normal(size=(n, 2))
    got = smooth_root_offset(offset, sigma, previous)
    assert got == pytest.approx(naive_smooth(offset, sigma, previous), abs=1e-14)


def test_no_smoothing_or_no_frames_returns_a_copy() -> None:
    offset = np.array([[1.0, 2.0], [3.0, 4.0]])
    same = smooth_root_offset(offset, 0.0, (5.0, 5.0))
    assert same.tolist() == offset.tolist() and same is not offset
    assert smooth_root_offset(np.zeros((0, 2)), 1.0, (1.0, 1.0)).shape == (0, 2)


def test_a_limit_may_be_one_angle_and_a_bad_one_says_which() -> None:
    assert JointLimits(shoulder=(0.3, 0.3)).shoulder == (0.3, 0.3)
    with pytest.raises(ValueError, match=r"^elbow limit must be finite \(min, max\) with min <= max, got \(1, 0\)"):
        JointLimits(elbow=(1, 0))
