"""The overlay's cached rings (issue 17): reused while only the target moves, rebuilt when anything they show
changes, and the same numbers as rings built afresh."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from solver import overlay_geometry as og

RINGS = ("outer_ring", "inner_ring", "reach_band", "soft_band", "inner_soft_band")


def data(**changes: object) -> og.ChainOverlayInput:
    w = np.eye(4)
    w[:3, :3] = [[0.9, 0.2, 0.1], [-0.1, 1.1, 0.3], [0.2, -0.3, 1.0]]
    w[:3, 3] = (0.3, -0.7, 1.2)
    base = og.ChainOverlayInput(
        plane_to_world=w, lengths=(1.0, 0.8), softness=0.05, inner_softness=0.04,
        target_world=np.array([1.0, 0.2, 0.5]), solved_target_world=np.array([0.9, 0.2, 0.5]),
        tip_world=np.array([0.9, 0.21, 0.5]), bend=1, limited_joints=(), elbow_world=np.array([0.5, 0.0, 0.4]),
        center_2d=(0.0, 0.0), stretch=1.0, sensitivity=0.5)
    return dataclasses.replace(base, **changes)


def fresh(d: og.ChainOverlayInput) -> og.ChainOverlay:
    og._rings.cache_clear()
    return og.build_overlay(d)


def test_a_target_drag_reuses_the_rings_and_moves_the_markers() -> None:
    first = fresh(data())
    moved = og.build_overlay(data(target_world=np.array([0.2, 1.0, 0.4])))
    for name in RINGS:
        assert getattr(moved, name) is getattr(first, name)
        assert not getattr(moved, name).flags.writeable
    assert not np.array_equal(moved.target_marker, first.target_marker)


@pytest.mark.parametrize("changes", [
    {"softness": 0.08}, {"inner_softness": 0.0}, {"lengths": (1.0, 0.7)}, {"stretch": 1.05},
    {"center_2d": (0.05, -0.02)}, {"plane_to_world": np.diag([1.0, 1.2, 1.0, 1.0])},
])
def test_anything_the_rings_show_rebuilds_them_as_built_afresh(changes: dict[str, object]) -> None:
    og.build_overlay(data())  # the cache holds the unchanged rings
    cached = og.build_overlay(data(**changes))
    built = fresh(data(**changes))
    for name in RINGS:
        np.testing.assert_array_equal(getattr(cached, name), getattr(built, name))
    assert any(getattr(cached, name).shape != getattr(fresh(data()), name).shape
               or not np.array_equal(getattr(cached, name), getattr(fresh(data()), name)) for name in RINGS)
