"""The pure-math single-frame path must agree with the vectorized one, and chain through ``state``."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from solver import JointLimits, SolverState, solve_two_bone

FIELDS = [
    "shoulder_angle",
    "elbow_angle",
    "elbow",
    "end",
    "solved_target",
    "error",
    "error_solved",
    "distance",
    "solved_distance",
    "sensitivity",
    "root_offset",
    "stretch",
]


@st.composite
def single_cases(draw: st.DrawFn) -> tuple:
    a = draw(st.floats(0.1, 10.0))
    b = draw(st.sampled_from([a, draw(st.floats(0.1, 10.0))]))
    total = a + b
    ang = draw(st.floats(-math.pi, math.pi))
    scale = draw(st.sampled_from([0.0, 1e-12, abs(a - b) / total, 0.5, 0.97, 1.0, 1.5, 1e6]))
    target = (total * scale * math.cos(ang), total * scale * math.sin(ang))
    limits = None
    if draw(st.booleans()):
        lo = draw(st.floats(-3.5, 3.0))
        elo = draw(st.floats(-math.pi, 2.5))
        limits = JointLimits(shoulder=(lo, lo + draw(st.floats(0.1, 3.0))), elbow=(elo, elo + 0.6))
    previous = None
    if draw(st.booleans()):
        d_ang = draw(st.floats(-math.pi, math.pi))
        previous = SolverState(
            direction=(math.cos(d_ang), math.sin(d_ang)),
            bend=draw(st.sampled_from([1, -1])),
            root_offset=(draw(st.floats(-0.1, 0.1)), draw(st.floats(-0.1, 0.1))),
        )
    pole = draw(st.sampled_from([None, (0.0, 1.0), (1.0, -1.0), target]))
    options = {
        "bend": draw(st.sampled_from([1, -1])),
        "pole": pole,
        "softness": draw(st.sampled_from([0.0, 0.05])),
        "inner_softness": draw(st.sampled_from([0.0, 0.03])),
        "limits": limits,
        "strategy": draw(st.sampled_from(["accept", "move_root", "stretch"])),
        "previous": previous,
    }
    return a, b, target, options


def _near_a_limit(res: object, limits: JointLimits | None) -> bool:
    if limits is None:
        return False
    angles = []
    if limits.shoulder is not None:
        angles += [(res.shoulder_angle[0], bound) for bound in limits.shoulder]  # type: ignore[attr-defined]
    if limits.elbow is not None:
        angles += [(res.elbow_angle[0], bound) for bound in limits.elbow]  # type: ignore[attr-defined]
    return any(abs(math.remainder(x - bound, 2 * math.pi)) < 1e-9 for x, bound in angles)


@settings(max_examples=150, deadline=None)
@given(single_cases())
@example((4.0, 4.0, (-4.993762038565709, 10.91156912190818), {  # found by hypothesis: elbow 7.8e-4 rad
    "bend": 1, "pole": None, "softness": 0.0, "inner_softness": 0.0,
    "limits": JointLimits(shoulder=(0.0, 2.0), elbow=(0.0, 0.6)), "strategy": "move_root",
    "previous": SolverState(direction=(1.0, 0.0), bend=1, root_offset=(0.0, 1e-06))}))
@example((1.0, 0.984375, (1.7414528962512084, 0.9513600531677153), {  # found by hypothesis: a target at full reach
    "bend": -1, "pole": None, "softness": 0.0, "inner_softness": 0.0,  # on the elbow's limit; the paths split on
    "limits": JointLimits(shoulder=(0.0, 1.0), elbow=(0.0, 0.6)), "strategy": "stretch",  # stretching 1e-9
    "previous": None}))
def test_single_target_agrees_with_the_vectorized_path(case: tuple) -> None:
    a, b, target, options = case
    single = solve_two_bone(np.array(target), a, b, **options)
    batch = solve_two_bone(np.array([target]), a, b, **options)
    scale = max(a + b, math.hypot(*target))
    for name in FIELDS:
        got = np.asarray(getattr(single, name))
        want = np.asarray(getattr(batch, name))[0]
        assert got.shape == want.shape, name
        tol = 1e-12 * (scale if name not in ("shoulder_angle", "elbow_angle", "stretch") else 1.0)
        if name in ("shoulder_angle", "elbow_angle"):
            # Near a straight or folded elbow the law of cosines is ill-conditioned: a rounding difference of
            # ~1e-15 in cos(elbow) moves the angle by that over |sin(elbow)| (1.1e-12 at elbow 7.8e-4 rad).
            tol += 1e-14 / max(abs(math.sin(float(np.asarray(batch.elbow_angle)[0]))), 1e-6)
        if name == "sensitivity":
            tol = 1e-12 * float(want)
        np.testing.assert_allclose(got, want, rtol=0, atol=tol, err_msg=name)
    if not _near_a_limit(batch, options["limits"]):  # at a bound, one ulp may decide "limited" either way
        assert int(single.flags) == int(batch.flags[0])
    assert int(single.bend) == int(batch.bend[0])
    assert single.state.bend == batch.state.bend
    np.testing.assert_allclose(single.state.direction, batch.state.direction, atol=1e-15)
    np.testing.assert_allclose(single.state.root_offset, batch.state.root_offset, atol=1e-12 * scale)


def test_chained_single_solves_match_one_batch_solve() -> None:
    # Direction hold and pole hysteresis carry over through result.state exactly as inside a batch.
    rng = np.random.default_rng(7)
    targets = rng.normal(size=(60, 2)) * 1.5
    targets[10:14] = 0.0  # on the shoulder: previous direction held
    poles = rng.normal(size=(60, 2))
    poles[20:30] = targets[20:30] * 2.0  # on the line: hysteresis keeps the side
    batch = solve_two_bone(targets, 1.0, 0.7, pole=poles, softness=0.05)
    state = None
    for i in range(60):
        one = solve_two_bone(targets[i], 1.0, 0.7, pole=poles[i], softness=0.05, previous=state)
        np.testing.assert_allclose(one.end, batch.end[i], atol=1e-12)
        assert int(one.bend) == int(batch.bend[i])
        state = one.state
    assert (np.diff(batch.bend[20:30]) == 0).all()


def test_batch_continues_from_a_previous_state() -> None:
    targets = np.array([[0.5, 0.5], [0.0, 0.0], [0.0, 0.0], [0.3, -1.0]])
    whole = solve_two_bone(targets, 1.0, 0.8, pole=(0.0, 1.0))
    first = solve_two_bone(targets[:2], 1.0, 0.8, pole=(0.0, 1.0))
    rest = solve_two_bone(targets[2:], 1.0, 0.8, pole=(0.0, 1.0), previous=first.state)
    np.testing.assert_allclose(np.concatenate([first.end, rest.end]), whole.end, atol=1e-12)
