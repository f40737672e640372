"""The report's worst frames: the same as a full stable sort, whatever the ties, NaNs and invalid frames."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.worst_frames import worst_frames

# Few distinct values, so ties (and ties across the count-th place) are common.
VALUES = st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.0, np.inf, np.nan])


def full_sort(error: np.ndarray, valid: np.ndarray, count: int) -> np.ndarray:
    order = np.argsort(-np.where(valid, error, -np.inf), kind="stable")[:count]
    return order[valid[order]]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(VALUES, st.booleans()), max_size=40), st.integers(0, 12))
def test_same_frames_as_a_full_stable_sort(rows: list[tuple[float, bool]], count: int) -> None:
    error = np.array([e for e, _v in rows], dtype=np.float64)
    valid = np.array([v for _e, v in rows], dtype=bool)
    np.testing.assert_array_equal(worst_frames(error, valid, count), full_sort(error, valid, count))


def test_largest_errors_first_ties_in_frame_order() -> None:
    error = np.array([1.0, 3.0, 2.0, 3.0, 0.5, 2.0])
    valid = np.array([True, True, True, True, True, False])
    assert worst_frames(error, valid, 3).tolist() == [1, 3, 2]


def test_invalid_frames_never_listed() -> None:
    error = np.array([9.0, 1.0, 8.0])
    valid = np.array([False, True, False])
    assert worst_frames(error, valid, 2).tolist() == [1]


@pytest.mark.parametrize("frames", [2000, 20001])
def test_long_bake(frames: int) -> None:
    rng = np.random.default_rng(frames)
    error = np.round(rng.random(frames), 2)  # many ties
    valid = rng.random(frames) > 0.1
    np.testing.assert_array_equal(worst_frames(error, valid, 10), full_sort(error, valid, 10))
