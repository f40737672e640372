"""``solver.chain_common.parse_options`` value by value: what CCD and FABRIK are given, and where each option's
range ends (the last accepted value beside the first refused one).

The solver tests reach these options only through whole solves, where a default off by a factor or a bound off
by one value rarely shows; the mutation run of ``chain_common/options.py`` found those holes. Truth is written
out by hand from the options' documentation (``ChainOptions``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from solver.ccd import solve_ccd
from solver.chain_common.options import DEFAULT_OPTIONS, ChainOptions, chain_options, parse_options

LENGTHS = [3.0, 1.0, 1.0]  # L = 5


def test_absolute_units_and_the_documented_defaults() -> None:
    setup = parse_options(LENGTHS)
    assert setup.lengths.dtype == np.float64 and setup.lengths.tolist() == LENGTHS
    assert setup.total_length == 5.0
    assert setup.tolerance == pytest.approx(1e-6 * 5.0, rel=1e-15)
    assert setup.sweep_tolerance == pytest.approx(1e-4 * 5.0, rel=1e-15)
    assert setup.max_iterations == 2000 and setup.polish_iterations == 500
    assert setup.polish_max_step == 0.25
    assert setup.softness == 0.0 and setup.strategy == "accept" and setup.bend == 1
    assert setup.max_root_offset == pytest.approx(0.5, rel=1e-15)  # None: 0.1 L
    assert setup.root_smoothing == 2.0 and setup.stretch_range == (0.9, 1.1)
    assert setup.lower.tolist() == [-math.inf] * 3 and setup.upper.tolist() == [math.inf] * 3
    assert setup.has_limits is False
    assert setup.warm_angles.tolist() == [0.0, 0.0, 0.0]
    assert setup.warm_direction.tolist() == [1.0, 0.0]  # straight along +x
    assert setup.previous_root_offset is None and setup.smoothing is None


def test_given_values_come_through_converted() -> None:
    setup = parse_options(LENGTHS, tolerance=1e-3, sweep_tolerance=1e-2, max_iterations=7, polish_iterations=3,
                          softness=0.2, strategy="stretch", max_root_offset=0.75, root_smoothing=0.5,
                          stretch_range=(0.5, 2.0), bend=-1, smoothing="one_euro")
    assert setup.tolerance == pytest.approx(5e-3, rel=1e-15)
    assert setup.sweep_tolerance == pytest.approx(5e-2, rel=1e-15)
    assert (setup.max_iterations, setup.polish_iterations) == (7, 3)
    assert (setup.softness, setup.strategy, setup.bend) == (0.2, "stretch", -1)
    assert setup.max_root_offset == 0.75 and setup.root_smoothing == 0.5
    assert setup.stretch_range == (0.5, 2.0) and setup.smoothing == "one_euro"


def test_the_sweeps_never_stop_before_the_tolerance() -> None:
    # A sweep tolerance below the tolerance would leave the polish nothing to stop at: it is raised to it.
    setup = parse_options(LENGTHS, tolerance=1e-3, sweep_tolerance=1e-6)
    assert setup.sweep_tolerance == pytest.approx(5e-3, rel=1e-15)


def test_limits_nan_is_open_and_any_finite_side_counts() -> None:
    setup = parse_options(LENGTHS, limits=[[np.nan, np.nan], [-1.0, np.nan], [np.nan, 0.5]])
    assert setup.lower.tolist() == [-math.inf, -1.0, -math.inf]
    assert setup.upper.tolist() == [math.inf, math.inf, 0.5]
    assert setup.has_limits is True
    only_upper = parse_options(LENGTHS, limits=[[np.nan, np.nan], [np.nan, np.nan], [np.nan, 0.5]])
    assert only_upper.has_limits is True
    only_lower = parse_options(LENGTHS, limits=[[-0.5, np.nan], [np.nan, np.nan], [np.nan, np.nan]])
    assert only_lower.has_limits is True
    open_limits = parse_options(LENGTHS, limits=[[np.nan, np.inf]] * 3)
    assert open_limits.has_limits is False
    assert parse_options(LENGTHS, limits=[[0.3, 0.3]] * 3).lower.tolist() == [0.3] * 3  # min == max is fine


def test_initial_angles_warm_start_clipped_into_the_limits_and_give_the_direction() -> None:
    setup = parse_options([1.0, 1.0], initial_angles=[math.pi / 2, 2.0], limits=[[-1.0, 1.0], [-1.5, 1.5]])
    assert setup.warm_angles.tolist() == [1.0, 1.5]  # clipped
    # The direction is the unclipped start's tip direction.
    tip = np.array([math.cos(math.pi / 2) + math.cos(math.pi / 2 + 2.0),
                    math.sin(math.pi / 2) + math.sin(math.pi / 2 + 2.0)])
    assert setup.warm_direction == pytest.approx(tip / np.hypot(*tip), abs=1e-15)


def test_initial_angles_are_copied() -> None:
    start = np.array([0.1, 0.2, 0.3])
    setup = parse_options(LENGTHS, initial_angles=start)
    start[:] = 9.0
    assert setup.warm_angles.tolist() == [0.1, 0.2, 0.3]


def test_previous_state_wins_over_initial_angles() -> None:
    state = solve_ccd(np.array([[2.0, 2.0], [1.0, 3.0]]), np.array(LENGTHS), strategy="move_root",
                      limits=[[-0.1, 0.1]] * 3).state
    setup = parse_options(LENGTHS, initial_angles=[0.5, 0.5, 0.5], previous=state)
    assert setup.warm_angles.tolist() == np.asarray(state.angles).tolist()
    assert setup.warm_direction.tolist() == np.asarray(state.direction).tolist()
    assert setup.previous_root_offset == state.root_offset


@pytest.mark.parametrize(("changes", "accepted"), [
    (dict(tolerance=1e-300), True), (dict(tolerance=0.0), False), (dict(tolerance=math.nan), False),
    (dict(max_iterations=0, polish_iterations=0), True), (dict(max_iterations=-1), False),
    (dict(polish_iterations=-1), False),
    (dict(softness=0.0), True), (dict(softness=0.999), True), (dict(softness=1.0), False),
    (dict(softness=-1e-9), False), (dict(softness=math.nan), False),
    (dict(strategy="move_root"), True), (dict(strategy="teleport"), False),
    (dict(stretch_range=(1.0, 1.0)), True), (dict(stretch_range=(1e-9, 5.0)), True),
    (dict(stretch_range=(0.0, 1.1)), False), (dict(stretch_range=(1.01, 1.1)), False),
    (dict(stretch_range=(0.9, 0.99)), False),
    (dict(bend=-1), True), (dict(bend=0), False), (dict(bend=2), False),
    (dict(max_root_offset=0.0), True), (dict(max_root_offset=-1e-9), False),
    (dict(root_smoothing=0.0), True), (dict(root_smoothing=-1e-9), False), (dict(root_smoothing=math.nan), False),
    (dict(limits=[[0.0, 1.0]] * 3), True), (dict(limits=[[0.0, 1.0]] * 2), False),
    (dict(limits=[[0.0, 1.0, 2.0]] * 3), False), (dict(limits=[[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]), False),
    (dict(initial_angles=[0.0, 0.0, math.inf]), False), (dict(initial_angles=[0.0, 0.0]), False),
])
def test_where_each_range_ends(changes: dict[str, Any], accepted: bool) -> None:
    changes = dict(changes)  # a copy: mutmut runs the suite twice in one process
    if accepted:
        parse_options(LENGTHS, **changes)
    else:
        with pytest.raises(ValueError):
            parse_options(LENGTHS, **changes)


@pytest.mark.parametrize("lengths", [[], [[1.0, 1.0]], [1.0, 0.0], [1.0, -1.0], [1.0, math.inf], [1.0, math.nan]])
def test_lengths_must_be_positive_finite_and_one_dimensional(lengths: Any) -> None:
    with pytest.raises(ValueError, match="lengths"):
        parse_options(lengths)


def test_an_options_object_and_keywords() -> None:
    base = ChainOptions(softness=0.1, bend=-1)
    assert chain_options(base, {}) is base
    assert chain_options(None, {}) is DEFAULT_OPTIONS
    changed = chain_options(base, {"bend": 1})
    assert (changed.softness, changed.bend) == (0.1, 1)
    assert parse_options(LENGTHS, base, bend=1).bend == 1 and parse_options(LENGTHS, base).softness == 0.1
    with pytest.raises(TypeError):
        parse_options(LENGTHS, base, no_such_option=1)
