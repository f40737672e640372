"""``solver.chain_common.targets.prepare_targets`` on its bounds: each comparison on its exact value, the refusals
word for word, the soft width that counts as none, and the filter on the shortest input it applies to.

``tests/solver/test_chain_common.py`` checks the clamp, the soft distance and the held direction on ordinary
values; the mutation run of ``chain_common`` showed the edges between them untested.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver.chain_common.options import parse_options
from solver.chain_common.result import CLAMPED_INNER, CLAMPED_OUTER, DIRECTION_HELD, SOFTENED
from solver.chain_common.targets import prepare_targets

FOLDING = [2.0, 0.5, 0.5]  # L = 3, inner radius 1


@pytest.mark.parametrize(("targets", "message"), [
    (np.zeros((4, 3)), r"targets must have shape \(N, 2\), got \(4, 3\)"),
    (np.zeros((4, 2, 1)), r"targets must have shape \(N, 2\), got \(4, 2, 1\)"),
    (np.array([[0.0, math.nan]]), r"^targets must be finite$"),
    (np.array([[math.inf, 0.0]]), r"^targets must be finite$"),
])
def test_bad_targets_are_refused_in_words(targets: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        prepare_targets(targets, parse_options(FOLDING))


def test_the_filter_applies_from_two_frames_on() -> None:
    setup = parse_options(FOLDING, smoothing="exponential")
    raw = np.array([[2.0, 0.0], [0.0, 2.0]])
    _raw, solved, _flags = prepare_targets(raw, setup)
    assert solved[0].tolist() == [2.0, 0.0]
    assert not np.allclose(solved[1], raw[1])  # the second frame is pulled toward the first
    single = prepare_targets(raw[1], setup)[1]
    assert single.tolist() == [[0.0, 2.0]]  # one frame: nothing to filter


def test_a_target_closer_to_the_root_than_a_trillionth_of_l_has_no_direction() -> None:
    setup = parse_options(FOLDING, initial_angles=[0.5, math.pi, 0.0])
    tiny = 1e-12 * 3.0
    for distance in (tiny, 0.5 * tiny):
        _raw, solved, flags = prepare_targets(np.array([[distance, 0.0]]), setup)
        assert flags.tolist() == [CLAMPED_INNER | DIRECTION_HELD]
        np.testing.assert_allclose(solved[0], [math.cos(0.5), math.sin(0.5)], rtol=0, atol=1e-12)
    _raw, solved, flags = prepare_targets(np.array([[2.0 * tiny, 0.0]]), setup)
    assert flags.tolist() == [CLAMPED_INNER] and solved[0].tolist() == [1.0, 0.0]


@pytest.mark.parametrize("softness", [5e-13, 1e-12])
def test_a_soft_width_below_rounding_is_a_plain_clamp(softness: float) -> None:
    _raw, solved, flags = prepare_targets(np.array([[2.9, 0.0], [4.0, 0.0]]), parse_options(FOLDING,
                                                                                            softness=softness))
    assert flags.tolist() == [0, CLAMPED_OUTER]
    assert solved.tolist() == [[2.9, 0.0], [3.0, 0.0]]


def test_without_softness_nothing_is_softened() -> None:
    _raw, solved, flags = prepare_targets(np.array([[2.9999, 0.0], [3.0, 0.0], [4.0, 0.0]]),
                                          parse_options(FOLDING, softness=0.0))
    assert flags.tolist() == [0, CLAMPED_OUTER, CLAMPED_OUTER]
    assert solved[:, 0].tolist() == [2.9999, 3.0, 3.0]


def test_softening_starts_past_the_knee_and_the_inner_clamp_below_the_ring() -> None:
    setup = parse_options(FOLDING, softness=0.1)
    knee = 3.0 - 0.1 * 3.0
    _raw, solved, flags = prepare_targets(np.array([[knee, 0.0], [np.nextafter(knee, 4.0), 0.0], [1.0, 0.0],
                                                    [np.nextafter(1.0, 0.0), 0.0]]), setup)
    assert flags.tolist() == [0, SOFTENED, 0, CLAMPED_INNER]
    assert solved[0, 0] == knee and solved[2, 0] == 1.0 and solved[3, 0] == 1.0
