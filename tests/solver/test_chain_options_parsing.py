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
from solver.chain_common.options import reach_radii as cc_reach_radii

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


def test_a_short_chain_gets_a_unit_direction_and_a_start_below_a_limit_is_raised() -> None:
    setup = parse_options([0.25, 0.25], initial_angles=[-2.0, 0.0], limits=[[-1.0, 1.0], [-1.0, 1.0]])
    assert setup.warm_angles.tolist() == [-1.0, 0.0]
    # The tip of the unclipped start is 0.5 from the root: its direction is still a unit vector.
    assert setup.warm_direction == pytest.approx([math.cos(-2.0), math.sin(-2.0)], abs=1e-15)


def test_whole_numbers_become_floats() -> None:
    setup = parse_options([3, 1, 1], initial_angles=[0, 1, 0])
    assert setup.lengths.dtype == np.float64 and setup.warm_angles.dtype == np.float64
    assert setup.warm_angles.tolist() == [0.0, 1.0, 0.0]


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


# Each refusal names the option (the message is all a caller sees); None marks an accepted value.
@pytest.mark.parametrize(("changes", "refusal"), [
    (dict(tolerance=1e-300), None), (dict(tolerance=0.0), "tolerance must be positive"),
    (dict(tolerance=math.nan), "tolerance must be positive"),
    (dict(max_iterations=0, polish_iterations=0), None),
    (dict(max_iterations=-1), "max_iterations and polish_iterations must be >= 0"),
    (dict(polish_iterations=-1), "max_iterations and polish_iterations must be >= 0"),
    (dict(softness=0.0), None), (dict(softness=0.999), None),
    (dict(softness=1.0), r"softness is a fraction of the chain length in \[0, 1\)"),
    (dict(softness=-1e-9), "softness is a fraction"), (dict(softness=math.nan), "softness is a fraction"),
    (dict(strategy="move_root"), None),
    (dict(strategy="teleport"), r"strategy must be one of \('accept', 'move_root', 'stretch'\), got 'teleport'"),
    (dict(stretch_range=(1.0, 1.0)), None), (dict(stretch_range=(1e-9, 5.0)), None),
    (dict(stretch_range=(0.0, 1.1)), "stretch_range must satisfy 0 < min <= 1 <= max"),
    (dict(stretch_range=(1.01, 1.1)), "stretch_range must satisfy"),
    (dict(stretch_range=(0.9, 0.99)), "stretch_range must satisfy"),
    (dict(bend=-1), None), (dict(bend=0), r"bend must be \+1 or -1"), (dict(bend=2), r"bend must be \+1 or -1"),
    (dict(max_root_offset=0.0), None), (dict(max_root_offset=-1e-9), "max_root_offset must be >= 0"),
    (dict(root_smoothing=0.0), None), (dict(root_smoothing=-1e-9), "root_smoothing must be >= 0 frames"),
    (dict(root_smoothing=math.nan), "root_smoothing must be >= 0 frames"),
    (dict(limits=[[0.0, 1.0]] * 3), None),
    (dict(limits=[[0.0, 1.0]] * 2), r"limits must have shape \(3, 2\), got \(2, 2\)"),
    (dict(limits=[[0.0, 1.0, 2.0]] * 3), r"limits must have shape \(3, 2\)"),
    (dict(limits=[[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]), "every limit needs min <= max"),
    (dict(initial_angles=[0.0, 0.0, math.inf]), "initial/previous angles must be 3 finite numbers"),
    (dict(initial_angles=[0.0, 0.0]), "initial/previous angles must be 3 finite numbers"),
])
def test_where_each_range_ends(changes: dict[str, Any], refusal: str | None) -> None:
    changes = dict(changes)  # a copy: mutmut runs the suite twice in one process
    if refusal is None:
        parse_options(LENGTHS, **changes)
    else:
        with pytest.raises(ValueError, match=f"^{refusal}"):
            parse_options(LENGTHS, **changes)


@pytest.mark.parametrize("lengths", [[], [[1.0, 1.0]], [1.0, 0.0], [1.0, -1.0], [1.0, math.inf], [1.0, math.nan]])
def test_lengths_must_be_positive_finite_and_one_dimensional(lengths: Any) -> None:
    with pytest.raises(ValueError, match=r"^lengths must be a non-empty 1-D array of positive finite numbers$"):
        parse_options(lengths)


def test_an_options_object_and_keywords() -> None:
    base = ChainOptions(softness=0.1, bend=-1)
    assert chain_options(base, {}) is base
    assert chain_options(None, {}) is DEFAULT_OPTIONS
    changed = chain_options(base, {"bend": 1})
    assert (changed.softness, changed.bend) == (0.1, 1)
    assert parse_options(LENGTHS, base, bend=1).bend == 1 and parse_options(LENGTHS, base).softness == 0.1
    assert cc_reach_radii(np.array([3.0, 1.0, 1.0])) == (1.0, 5.0)  # the longest bone folded back: 3 - 2
    assert cc_reach_radii(np.array([1.0, 1.0, 1.0])) == (0.0, 3.0)
    assert cc_reach_radii(np.array([2.0, 0.5])) == (1.5, 2.5)
    with pytest.raises(TypeError):
        parse_options(LENGTHS, base, no_such_option=1)
