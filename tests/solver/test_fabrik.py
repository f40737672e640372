"""FABRIK-specific behaviour: one iteration against a hand-written backward/forward pass, limits in the
forward pass, angle unwrapping next to the warm start."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver.fabrik import fabrik_frame, solve_fabrik

INF = math.inf


def one_iteration(angles: list[float], target: tuple[float, float], lengths: list[float],
                  lower: list[float] | None = None, upper: list[float] | None = None) -> list[float]:
    n = len(lengths)
    limited = lower is not None
    out, used = fabrik_frame(
        angles, target[0], target[1], lengths, lower or [-INF] * n, upper or [INF] * n, tolerance=1e-12,
        sweep_tolerance=1e-12, max_iterations=1, limited=limited,
    )
    assert used == 1
    return out


def test_one_iteration_matches_a_hand_backward_forward_pass() -> None:
    lengths = np.array([1.0, 0.7, 0.4])
    start = [0.2, 0.3, -0.4]
    target = np.array([0.3, 1.2])
    absolute = np.cumsum(start)
    p = np.vstack([[0.0, 0.0], np.cumsum(np.stack([lengths * np.cos(absolute), lengths * np.sin(absolute)], 1), 0)])
    p[-1] = target
    for i in (2, 1, 0):
        v = p[i] - p[i + 1]
        p[i] = p[i + 1] + v / np.linalg.norm(v) * lengths[i]
    p[0] = 0.0
    for i in (0, 1, 2):
        v = p[i + 1] - p[i]
        p[i + 1] = p[i] + v / np.linalg.norm(v) * lengths[i]
    direction = np.arctan2(*(np.diff(p, axis=0)[:, ::-1].T))
    expected = np.diff(np.concatenate([[0.0], direction]))
    assert one_iteration(start, (target[0], target[1]), list(lengths)) == pytest.approx(expected)


def test_limited_forward_pass_keeps_every_iteration_inside_the_limits() -> None:
    lower = [-0.2, -0.3, -0.3]
    upper = [0.2, 0.3, 0.3]
    out = one_iteration([0.0, 0.0, 0.0], (0.0, 2.5), [1.0, 1.0, 1.0], lower, upper)
    assert all(lo <= a <= hi for a, lo, hi in zip(out, lower, upper, strict=True))
    assert out == pytest.approx([0.2, 0.3, 0.3])  # everything curls as far as allowed toward +y


def test_relative_angles_are_unwrapped_next_to_the_warm_start() -> None:
    # The elbow sits at 3.1 rad (almost folded) and the target asks for 3.2: the answer stays continuous
    # (3.2) instead of wrapping to 3.2 - 2 pi.
    lengths = np.array([1.0, 0.6])
    target = np.array([[1.0 + 0.6 * math.cos(3.2), 0.6 * math.sin(3.2)]])
    res = solve_fabrik(target, lengths, initial_angles=[0.0, 3.1])
    assert res.converged[0]
    assert res.angles[0, 1] > math.pi
    assert res.angles[0, 1] == pytest.approx(3.2, abs=1e-4)


def test_fabrik_spreads_a_bend_over_the_chain() -> None:
    # A characteristic difference from CCD: from the straight pose FABRIK bends every joint, not mainly
    # the ones nearest the tip.
    lengths = np.ones(8)
    res = solve_fabrik([[4.0, 4.0]], lengths)
    assert res.converged[0]
    assert np.count_nonzero(np.abs(res.angles[0, 1:]) > 0.05) >= 5
