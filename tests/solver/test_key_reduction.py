"""Key reduction on the chain's tip path (solver/key_reduction.py): the bound holds on every frame, far fewer
keys are kept than frames, and the check is on the tip, not per channel."""

from __future__ import annotations

import numpy as np
import pytest

from solver.key_reduction import chain_tip, interpolate_kept, reduce_keys, refine

LENGTHS = np.array([1.0, 0.8])
REST = np.array([-0.3, 0.2])


def walk(n: int = 241) -> tuple[np.ndarray, np.ndarray]:
    f = np.arange(1, n + 1, dtype=np.float64)
    values = np.zeros((n, 5))
    # A walk at 24 fps: a step every ~40 frames.
    values[:, 0] = 0.6 * np.sin(f / 40.0)
    values[:, 1] = 0.9 + 0.5 * np.sin(f / 25.0 + 0.4)
    values[:, 4] = 1.0
    return f, values


def test_interpolation_is_linear_between_kept_frames() -> None:
    f = np.arange(5.0)
    v = np.array([[0.0], [9.0], [9.0], [9.0], [4.0]])
    out = interpolate_kept(f, v, [True, False, False, False, True])
    assert out[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_refine_adds_the_worst_frame_of_each_segment_over_budget() -> None:
    kept = np.array([True, False, False, True, False, False, True])
    dev = np.array([0.0, 0.5, 0.9, 9.0, 0.2, 0.1, 0.0])
    new = refine(kept, dev, 0.3)
    assert new[2] and not new[1] and not new[4]  # worst of the first segment; the second is within budget
    assert np.array_equal(refine(new, dev, 10.0), new)  # nothing over budget: unchanged
    assert new[3]  # a kept frame is never judged (its keys are the full bake's)


@pytest.mark.parametrize(("tolerance", "fewer"), [(1e-2, 10), (1e-3, 3), (1e-4, 1)])
def test_bound_on_every_frame_with_far_fewer_keys(tolerance: float, fewer: int) -> None:
    f, values = walk()
    budget = tolerance * LENGTHS.sum()

    def tip(v: np.ndarray) -> np.ndarray:
        return chain_tip(v, REST, LENGTHS)

    kept = reduce_keys(f, values, tip, budget)
    deviation = np.linalg.norm(tip(interpolate_kept(f, values, kept)) - tip(values), axis=1)
    assert deviation.max() <= budget
    assert kept[0] and kept[-1]
    assert kept.sum() <= len(f) / fewer, kept.sum()


def test_tip_check_not_per_channel() -> None:
    """Two joints moving in opposite directions: each channel alone moves a lot, the tip barely moves along its
    path... the reduction keeps what the tip needs, and a channel-wise bound of the same size would not hold it."""
    f, values = walk(121)
    budget = 1e-3 * LENGTHS.sum()

    def tip(v: np.ndarray) -> np.ndarray:
        return chain_tip(v, REST, LENGTHS)

    kept = reduce_keys(f, values, tip, budget)
    # Dropping any one kept interior frame breaks the bound somewhere (the set is not padded).
    interior = np.flatnonzero(kept)[1:-1]
    broken = 0
    for i in interior[:10]:
        k = kept.copy()
        k[i] = False
        dev = np.linalg.norm(tip(interpolate_kept(f, values, k)) - tip(values), axis=1)
        broken += int(dev.max() > budget)
    assert broken == min(10, len(interior))


def test_chain_tip_matches_forward_kinematics() -> None:
    v = np.array([[0.0, 0.0, 0.5, -0.25, 1.1]])
    tip = chain_tip(v, [0.0, 0.0], LENGTHS)
    assert tip[0].tolist() == pytest.approx([1.8 * 1.1 + 0.5, -0.25])


def test_refine_splits_long_runs_in_the_middle_too() -> None:
    kept = np.zeros(1001, dtype=bool)
    kept[[0, -1]] = True
    dev = np.zeros(1001)
    dev[3] = 1.0  # the worst frame right at one end: splitting only there would make a lopsided tree
    new = refine(kept, dev, 0.5, split_longer=256)
    assert np.flatnonzero(new).tolist() == [0, 3, 500, 1000]
    assert np.flatnonzero(refine(kept, dev, 0.5)).tolist() == [0, 3, 1000]


def test_long_bake_bound_holds() -> None:
    f, values = walk(20000)
    budget = 1e-3 * LENGTHS.sum()

    def tip(v: np.ndarray) -> np.ndarray:
        return chain_tip(v, REST, LENGTHS)

    kept = reduce_keys(f, values, tip, budget)
    deviation = np.linalg.norm(tip(interpolate_kept(f, values, kept)) - tip(values), axis=1)
    assert deviation.max() <= budget and kept.sum() < len(f) / 3
