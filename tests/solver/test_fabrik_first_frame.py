"""A frame solved without a warm start from a previous frame (the first Live Preview frame, frame 0 of a bake)
tells the truth: where a joint limit keeps the tip off the target, the chain ends on that limit when that
reaches closer, the error is the real one, and the flags say a limit acts. "The error you see is the error
you get": a tip that misses the solved target by more than the tolerance always carries a flag saying why.

FABRIK from a cold start used to stop at one of its own fixed points short of the limit (a 2-bone arm with a
40 degree elbow limit, rest bend 50 degrees, target at 0.97 of the reach: the elbow stayed near 47 degrees,
the tip ~6 % L off, flags 0), and the polish froze the elbow there instead of putting it on its limit.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.ccd import solve_ccd
from solver.chain_common import CLAMPED_INNER, CLAMPED_OUTER, LIMIT_BLOCKED, LIMITED, ChainResult
from solver.fabrik import solve_fabrik

SOLVERS = {"ccd": solve_ccd, "fabrik": solve_fabrik}
A, B = 1.0, 0.8
ELBOW = (math.radians(40.0), math.radians(100.0))


def check_flags_explain_the_miss(result: ChainResult, total: float, tolerance: float, limited: bool) -> None:
    """Every frame whose tip misses its solved target by more than the tolerance says why."""
    tol = tolerance * total
    for f in range(len(result.flags)):
        miss = float(result.error_solved[f])
        flags = int(result.flags[f])
        if miss > tol:
            assert limited, (f, miss, flags)  # without limits every solved target is reachable
            assert flags & LIMIT_BLOCKED, (f, miss / total, flags)
        else:
            assert not flags & LIMIT_BLOCKED, (f, miss, flags)
        # The raw error is explained by the solved error or by a clamp.
        if float(result.error[f]) > tol + miss * (1.0 + 1e-9) + 1e-12:
            assert flags & (CLAMPED_OUTER | CLAMPED_INNER), (f, float(result.error[f]), flags)


@pytest.mark.parametrize("name", sorted(SOLVERS))
@pytest.mark.parametrize("start_shoulder_deg", [-180.0, -170.0, -150.0, -20.0, 0.0, 20.0, 30.0, 90.0])
@pytest.mark.parametrize("turn", [0.3, 0.6, 0.9])
def test_a_cold_start_blocked_by_the_elbow_limit_ends_on_it_with_the_real_error(
        name: str, start_shoulder_deg: float, turn: float) -> None:
    # The blocked_arm rig of tests/blender/test_flag_texts.py in the chain root's space.
    distance = 0.97 * (A + B)
    target = distance * np.array([[math.cos(turn), math.sin(turn)]])
    limits = [[math.nan, math.nan], list(ELBOW)]
    result = SOLVERS[name](target, [A, B], limits=limits, bend=1,
                           initial_angles=[math.radians(start_shoulder_deg), math.radians(50.0)])
    # The straightest the elbow may be (its 40 degree limit) reaches closest: the tip sits on that circle.
    reach = math.sqrt(A * A + B * B + 2.0 * A * B * math.cos(ELBOW[0]))
    assert result.angles[0, 1] == pytest.approx(ELBOW[0], abs=1e-9)
    assert float(result.error_solved[0]) == pytest.approx(distance - reach, abs=1e-6 * (A + B))
    assert int(result.flags[0]) & (LIMITED | LIMIT_BLOCKED) == LIMITED | LIMIT_BLOCKED
    assert not result.converged[0]


@st.composite
def chains(draw: st.DrawFn) -> tuple[list[float], list[list[float]], list[float], tuple[float, float]]:
    n = draw(st.integers(2, 5))
    lengths = [draw(st.floats(0.2, 2.0)) for _ in range(n)]
    limits: list[list[float]] = []
    for i in range(n):
        if i == 0 or draw(st.booleans()):
            limits.append([math.nan, math.nan] if i == 0 else [-math.pi, math.pi])
            continue
        low = draw(st.floats(-2.5, 2.0))
        limits.append([low, low + draw(st.floats(0.05, 2.5))])
    rest = [draw(st.floats(-math.pi, math.pi))] + [draw(st.floats(-2.0, 2.0)) for _ in range(n - 1)]
    total = sum(lengths)
    r = draw(st.floats(0.0, 1.2)) * total
    phi = draw(st.floats(-math.pi, math.pi))
    return lengths, limits, rest, (r * math.cos(phi), r * math.sin(phi))


@pytest.mark.parametrize("name", sorted(SOLVERS))
@given(chain=chains())
@settings(max_examples=150, deadline=None)
def test_a_cold_start_frame_that_misses_always_says_why(
        name: str, chain: tuple[list[float], list[list[float]], list[float], tuple[float, float]]) -> None:
    lengths, limits, rest, target = chain
    result = SOLVERS[name](np.array([target]), lengths, limits=limits, initial_angles=rest)
    check_flags_explain_the_miss(result, sum(lengths), 1e-6, limited=True)


@pytest.mark.parametrize("name", sorted(SOLVERS))
@given(chain=chains())
@settings(max_examples=60, deadline=None)
def test_a_cold_start_without_limits_reaches_every_solved_target(
        name: str, chain: tuple[list[float], list[list[float]], list[float], tuple[float, float]]) -> None:
    lengths, _limits, rest, target = chain
    result = SOLVERS[name](np.array([target]), lengths, initial_angles=rest)
    check_flags_explain_the_miss(result, sum(lengths), 1e-6, limited=False)


@pytest.mark.parametrize("name", sorted(SOLVERS))
@given(chain=chains(), end=st.tuples(st.floats(0.0, 1.2), st.floats(-math.pi, math.pi)), limited=st.booleans())
@settings(max_examples=40, deadline=None)
def test_every_frame_of_a_path_that_misses_says_why(
        name: str, chain: tuple[list[float], list[list[float]], list[float], tuple[float, float]],
        end: tuple[float, float], limited: bool) -> None:
    # Warm-started frames after the cold one: a straight path from the drawn target to another.
    lengths, limits, rest, start = chain
    total = sum(lengths)
    stop = (end[0] * total * math.cos(end[1]), end[0] * total * math.sin(end[1]))
    path = np.linspace(start, stop, 8)
    result = SOLVERS[name](path, lengths, limits=limits if limited else None, initial_angles=rest)
    check_flags_explain_the_miss(result, total, 1e-6, limited=limited)
