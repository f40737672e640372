"""CCD and FABRIK take one shared options type (``ChainOptions``), keyword changes to it, or both."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pytest

from solver import ChainOptions, ChainResult, solve_ccd, solve_fabrik
from solver.chain_common import DEFAULT_OPTIONS

LENGTHS = np.array([1.0, 0.8, 0.6, 0.5])
LIMITS = np.array([[-2.0, 2.0], [-0.3, 1.2], [-1.0, 1.0], [0.0, 0.9]])
SOLVERS = [solve_ccd, solve_fabrik]


def path(n: int = 12) -> np.ndarray:
    t = np.linspace(0.0, 1.5, n)
    reach = 2.9 * (0.55 + 0.5 * np.sin(3.0 * t))
    return np.stack([reach * np.cos(t), reach * np.sin(t)], axis=1)


def same(x: ChainResult, y: ChainResult) -> None:
    for field in ("angles", "joints", "error", "flags", "iterations", "root_offset", "stretch"):
        np.testing.assert_array_equal(getattr(x, field), getattr(y, field), err_msg=field)


@pytest.mark.parametrize("solve", SOLVERS, ids=["ccd", "fabrik"])
def test_an_options_object_solves_as_the_same_keywords(solve: Callable[..., ChainResult]) -> None:
    keywords = dict(limits=LIMITS, softness=0.05, strategy="move_root", max_root_offset=0.2, root_smoothing=1.0,
                    tolerance=1e-7, bend=-1, initial_angles=[0.1, 0.2, 0.1, 0.0])
    by_object = solve(path(), LENGTHS, ChainOptions(**keywords))  # type: ignore[arg-type]
    by_keywords = solve(path(), LENGTHS, **keywords)
    same(by_object, by_keywords)
    # The options act: without them the chain takes another pose (else the comparison proves nothing).
    assert not np.array_equal(by_object.angles, solve(path(), LENGTHS).angles)
    assert np.any(by_object.flags & 32)  # move_root acted on a limit-blocked frame


@pytest.mark.parametrize("solve", SOLVERS, ids=["ccd", "fabrik"])
def test_keywords_change_the_options_they_name_and_keep_the_others(solve: Callable[..., ChainResult]) -> None:
    base = ChainOptions(limits=LIMITS, strategy="stretch", stretch_range=(0.8, 1.3))
    changed = solve(path(), LENGTHS, base, strategy="accept")
    same(changed, solve(path(), LENGTHS, dataclasses.replace(base, strategy="accept")))
    stretched = solve(path(), LENGTHS, base)
    assert np.any(stretched.stretch != 1.0) and np.all(changed.stretch == 1.0)


@pytest.mark.parametrize("solve", SOLVERS, ids=["ccd", "fabrik"])
def test_an_unknown_keyword_is_refused(solve: Callable[..., ChainResult]) -> None:
    with pytest.raises(TypeError, match="softnes"):
        solve(path(), LENGTHS, softnes=0.1)


def test_max_step_is_ccds_own_keyword() -> None:
    with pytest.raises(TypeError, match="max_step"):
        solve_fabrik(path(), LENGTHS, max_step=0.1)
    with pytest.raises(ValueError, match="max_step"):
        solve_ccd(path(), LENGTHS, max_step=0.0)
    damped = solve_ccd(path(), LENGTHS, max_step=0.05)
    assert not np.array_equal(damped.iterations, solve_ccd(path(), LENGTHS).iterations)


def test_the_defaults_are_the_documented_ones() -> None:
    assert DEFAULT_OPTIONS == ChainOptions()
    assert dataclasses.asdict(DEFAULT_OPTIONS) == dict(
        limits=None, tolerance=1e-6, max_iterations=2000, sweep_tolerance=1e-4, polish_iterations=500, softness=0.0,
        strategy="accept", max_root_offset=None, root_smoothing=2.0, stretch_range=(0.9, 1.1), smoothing=None,
        initial_angles=None, bend=1,
    )


def test_previous_continues_a_solve_with_options() -> None:
    opts = ChainOptions(limits=LIMITS, softness=0.03)
    whole = solve_fabrik(path(), LENGTHS, opts)
    first = solve_fabrik(path()[:5], LENGTHS, opts)
    rest = solve_fabrik(path()[5:], LENGTHS, opts, previous=first.state)
    np.testing.assert_array_equal(np.concatenate([first.angles, rest.angles]), whole.angles)
