"""Each result type names its own flag bits: bits 8 and 16 are the shoulder / elbow limit for the two-bone
solver and "a joint on a limit" / "a limit blocks the reach" for CCD and FABRIK. Checked against the solvers'
own outputs on frames whose cause is known by construction (limits that cannot be met, a target out of reach).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver import IKFlag, JointLimits, solve_ccd, solve_fabrik, solve_two_bone
from solver import chain_common as cc
from solver.chain_common import ChainResult
from solver.flag_names import CHAIN_FLAGS, TWO_BONE_FLAGS, for_result, for_solver
from solver.flag_table import FlagName, FlagTable
from solver.result import TwoBoneResult

A, B = 1.0, 0.8
# Lower joint held bent at 40..100 degrees: the straight reach A + B cannot be met.
ELBOW = (math.radians(40.0), math.radians(100.0))
FAR = np.array([[1.75, 0.0], [0.0, 1.76], [-1.25, 1.25]])  # beyond the reach the bent elbow leaves


def test_each_result_type_names_every_bit_it_writes() -> None:
    assert TwoBoneResult.FLAG_NAMES is TWO_BONE_FLAGS
    assert ChainResult.FLAG_NAMES is CHAIN_FLAGS
    assert {f.bit: f.key for f in TWO_BONE_FLAGS} == {int(f): f.name.lower() for f in IKFlag if int(f)}
    chain_bits = {name.lower(): getattr(cc, name) for name in ("CLAMPED_OUTER", "CLAMPED_INNER", "SOFTENED", "LIMITED",
                                                              "LIMIT_BLOCKED", "ROOT_MOVED", "STRETCHED",
                                                              "DIRECTION_HELD")}
    assert {f.key: f.bit for f in CHAIN_FLAGS} == chain_bits
    # The shared bits mean the same; 8 and 16 do not.
    for bit in (1, 2, 4, 32, 64, 128):
        assert [f.key for f in TWO_BONE_FLAGS.decode(bit)] == [f.key for f in CHAIN_FLAGS.decode(bit)]
    assert [f.key for f in TWO_BONE_FLAGS.decode(8 | 16)] == ["limited_shoulder", "limited_elbow"]
    assert [f.key for f in CHAIN_FLAGS.decode(8 | 16)] == ["limited", "limit_blocked"]
    assert all(f.description for table in (TWO_BONE_FLAGS, CHAIN_FLAGS) for f in table)


def test_the_chain_solvers_setting_picks_the_table() -> None:
    assert for_solver("ANALYTIC") is TWO_BONE_FLAGS
    assert for_solver("analytic", 2) is TWO_BONE_FLAGS
    # A longer chain set to ANALYTIC is solved by FABRIK (chain_solve.solve_chain): chain flags.
    assert for_solver("ANALYTIC", 5) is CHAIN_FLAGS
    for name in ("CCD", "FABRIK"):
        assert for_solver(name, 2) is CHAIN_FLAGS
        assert for_solver(name, 12) is CHAIN_FLAGS
    with pytest.raises(ValueError, match="unknown solver"):
        for_solver("SPLINE")


@pytest.mark.parametrize("solve", [solve_ccd, solve_fabrik])
def test_a_chain_blocked_by_a_limit_decodes_as_blocked_not_as_an_elbow(solve) -> None:  # type: ignore[no-untyped-def]
    limits = np.array([[-math.pi, math.pi], ELBOW])
    res = solve(FAR, np.array([A, B]), limits=limits, initial_angles=np.array([0.0, 0.5]))
    # The cause, by construction: no pose within the limits reaches these targets, so the tip stops short; the
    # frames where the elbow ends on its bound are blocked by that limit.
    assert (res.error > 0.01).all()
    on_bound = np.abs(res.angles[:, 1] - ELBOW[0]) < 1e-9
    assert on_bound.sum() >= 2
    table = for_result(res)
    for flags in res.flags[on_bound]:
        keys = [f.key for f in table.decode(int(flags))]
        assert "limit_blocked" in keys and "limited" in keys
        assert "limited_elbow" not in keys and "limited_shoulder" not in keys
        assert table.limited_joints(int(flags)) == ()  # chain flags name no joint


def test_a_two_bone_elbow_limit_decodes_as_the_elbow() -> None:
    res = solve_two_bone(FAR, A, B, limits=JointLimits(elbow=ELBOW))
    np.testing.assert_allclose(res.elbow_angle, ELBOW[0], atol=1e-9)
    table = for_result(res)
    for flags in res.flags:
        assert [f.key for f in table.decode(int(flags))] == ["limited_elbow"]
        assert table.limited_joints(int(flags)) == ("elbow",)


def test_matrix_is_the_vectorized_decode() -> None:
    rng = np.random.default_rng(3)
    flags = rng.integers(0, 512, size=(7, 5))
    for table in (TWO_BONE_FLAGS, CHAIN_FLAGS):
        m = table.matrix(flags)
        assert m.shape == (7, 5, len(table)) and m.dtype == np.bool_
        for idx in np.ndindex(flags.shape):
            assert [f for f, on in zip(table, m[idx], strict=True) if on] == list(table.decode(int(flags[idx])))
    # Nine two-bone bits since stretch to reach (256, issue 14).
    assert TWO_BONE_FLAGS.matrix(np.uint16(16)).tolist() == [False] * 4 + [True] + [False] * 4
    assert CHAIN_FLAGS.bit("limit_blocked") == 16
    with pytest.raises(KeyError, match="limited_elbow"):
        CHAIN_FLAGS.bit("limited_elbow")


def test_a_table_refuses_bits_that_are_not_distinct_powers_of_two() -> None:
    with pytest.raises(ValueError, match="powers of two"):
        FlagTable("x", (FlagName(1, "a", "a"), FlagName(3, "b", "b")))
    with pytest.raises(ValueError, match="powers of two"):
        FlagTable("x", (FlagName(2, "a", "a"), FlagName(1, "b", "b")))
    with pytest.raises(ValueError, match="keys"):
        FlagTable("x", (FlagName(1, "a", "a"), FlagName(2, "a", "b")))
