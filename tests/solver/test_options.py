"""The two-bone solver's options (``solver/options.py``): each bound checked where it lies, the message naming
the option at fault, defaults and fractions turned into length units, and the clamp interval of the reach.

Written after mutation testing (``scripts/mutation.sh options``) found these unpinned: the solver tests only ever
pass valid options through the public API, so a loosened check or a wrong name in a message survived.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from solver.limits import Strategy
from solver.options import DEFAULT_EPS_FRACTION, DEFAULT_ROOT_FRACTION, clamp_bounds, resolve_options

VALID: dict[str, Any] = {"softness": 0.1, "inner_softness": 0.05, "eps": None, "zero_distance": None,
                         "pole_deadzone": 0.2, "limits": None, "strategy": "accept", "max_root_offset": None,
                         "root_smoothing": 2.0, "stretch_range": (0.8, 1.5), "initial_direction": (3.0, 4.0)}


def resolve(a: float = 1.0, b: float = 3.0, **changes: Any) -> Any:
    return resolve_options(a, b, **{**VALID, **changes})


def test_valid_options_in_length_units() -> None:
    o = resolve()
    assert (o.a, o.b, o.total, o.inner) == (1.0, 3.0, 4.0, 2.0)
    assert o.eps == o.zero_distance == DEFAULT_EPS_FRACTION * 4.0
    assert o.max_root_offset == DEFAULT_ROOT_FRACTION * 4.0
    assert o.outer_width == pytest.approx(0.4) and o.inner_width == pytest.approx(0.2)
    assert (o.pole_deadzone, o.root_smoothing, o.stretch_range) == (0.2, 2.0, (0.8, 1.5))
    assert o.initial_direction == pytest.approx((0.6, 0.8))
    assert o.strategy is Strategy.ACCEPT and o.limits is None
    given = resolve(eps=1e-3, zero_distance=2e-3, max_root_offset=0.7, strategy=Strategy.STRETCH)
    assert (given.eps, given.zero_distance, given.max_root_offset) == (1e-3, 2e-3, 0.7)
    assert given.strategy is Strategy.STRETCH


@pytest.mark.parametrize(("name", "value"), [
    ("softness", 0.0), ("inner_softness", 0.0), ("pole_deadzone", 0.0), ("max_root_offset", 0.0),
    ("root_smoothing", 0.0), ("stretch_range", (1.0, 1.0)), ("stretch_range", (1e-9, 1e9)),
    ("initial_direction", (0.0, -2.0)), ("initial_direction", (1e-300, 0.0)),
])
def test_the_edges_of_each_range_are_accepted(name: str, value: Any) -> None:
    resolve(**{name: value})


BAD = [
    ("a", 0.0), ("a", -1.0), ("a", math.nan), ("a", math.inf),
    ("b", 0.0), ("b", math.nan),
    ("eps", 0.0), ("eps", -1e-9), ("eps", math.inf),
    ("zero_distance", 0.0), ("zero_distance", math.nan),
    ("softness", 1.0), ("softness", -0.01), ("softness", math.nan),
    ("inner_softness", 1.0), ("inner_softness", -0.5), ("inner_softness", math.inf),
    ("pole_deadzone", 1.0), ("pole_deadzone", -0.1), ("pole_deadzone", math.nan), ("pole_deadzone", math.inf),
    ("max_root_offset", -0.1), ("max_root_offset", math.inf), ("max_root_offset", math.nan),
    ("root_smoothing", -1.0), ("root_smoothing", math.inf), ("root_smoothing", math.nan),
    ("stretch_range", (0.0, 2.0)), ("stretch_range", (1.01, 2.0)), ("stretch_range", (0.5, 0.99)),
    ("stretch_range", (-1.0, 2.0)), ("stretch_range", (math.nan, 2.0)), ("stretch_range", (0.5, math.inf)),
    ("initial_direction", (0.0, 0.0)), ("initial_direction", (math.inf, 0.0)), ("initial_direction", (math.nan, 1.0)),
]


@pytest.mark.parametrize(("name", "value"), BAD)
def test_each_bad_value_is_refused_naming_the_option(name: str, value: Any) -> None:
    with pytest.raises(ValueError, match=rf"^{name} ") as err:
        resolve(**{name: value})
    assert repr(value) in str(err.value) or str(value) in str(err.value)


def test_the_clamp_interval_and_its_collapse() -> None:
    assert clamp_bounds(1.0, 3.0, 0.25) == (2.25, 3.75)
    assert clamp_bounds(3.0, 1.0, 0.0) == (2.0, 4.0)
    # eps past half the gap: both ends meet at the middle of [|a-b|, a+b].
    assert clamp_bounds(1.0, 3.0, 1.5) == (3.0, 3.0)
    assert clamp_bounds(2.0, 2.0, 2.5) == (2.0, 2.0)
    # Exactly half the gap: the ends already meet, and stay there.
    assert clamp_bounds(1.0, 3.0, 1.0) == (3.0, 3.0)
