"""Issue 17's faster chain step gives the results of the step before it (tests/solver/frozen_chain_step.py).

Randomized rigs cover what the matrix glue meets: armatures and parents with non-uniform, negative scale and
shear, moving or static; planes off the axes; poles; the upper bone's own location; joint limits with every
strategy; stretch to reach; target filters; CCD and FABRIK chains; frames with non-finite inputs; chains of
different kinds solved together; one frame (the live preview's).

Bit for bit: the new step applies the same stages in the same order of additions, it only
does so with ufuncs over whole planes of frames instead of a broadcast ``einsum`` (``solver.chain_maps``), and
solves the two-bone chains in one batched call (``solver.two_bone.batch``); every field must be equal.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from solver.chain_description import ChainDescription, ChainSettings
from solver.chain_step import ChainSamples, solve_chains
from tests.solver import frozen_chain_step as before

FRAMES = 40


def random_affine(rng: np.random.Generator, *, shear: bool, shift: float) -> np.ndarray:
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    lin = q @ np.diag(rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 2.0, 3))
    if shear:
        lin = lin @ (np.eye(3) + np.triu(rng.uniform(-0.3, 0.3, (3, 3)), 1))
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = lin, rng.uniform(-shift, shift, 3)
    return m


def moving(rng: np.random.Generator, *, shear: bool, shift: float) -> np.ndarray:
    """Per frame an affine matrix that drifts smoothly (so the solve's continuity has something to follow)."""
    start, end = random_affine(rng, shear=shear, shift=shift), random_affine(rng, shear=shear, shift=shift)
    t = np.linspace(0.0, 1.0, FRAMES)[:, None, None]
    return (1 - t) * start + t * end


def rest_rotation(rng: np.random.Generator) -> np.ndarray:
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    if np.linalg.det(q) < 0:
        q[:, 0] *= -1
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = q, rng.uniform(-1, 1, 3)
    return m


def random_description(rng: np.random.Generator, case: int) -> ChainDescription:
    kind = ("ANALYTIC", "ANALYTIC", "ANALYTIC", "CCD", "FABRIK")[case % 5]
    n = 2 if kind == "ANALYTIC" else 3
    upper = rest_rotation(rng)
    axis = np.array([rng.uniform(-1, 1), rng.uniform(-0.2, 0.2), rng.uniform(-1, 1)])
    axis /= np.linalg.norm(axis)
    settings: dict[str, Any] = {"solver": kind, "bend": int(rng.choice([-1, 1])),
                                "softness": float(rng.choice([0.0, 0.05])),
                                "inner_softness": float(rng.choice([0.0, 0.03])),
                                "limit_strategy": ("ACCEPT", "MOVE_ROOT", "STRETCH")[case % 3],
                                "root_smoothing": int(rng.choice([0, 3])),
                                "smoothing": ("NONE", "NONE", "EXPONENTIAL", "ONE_EURO")[case % 4],
                                "stretch_to_reach": case % 7 == 2, "preserve_volume": case % 2 == 0}
    if case % 3:
        settings |= {"use_shoulder_limit": True, "shoulder_min": -0.4, "shoulder_max": 0.5,
                     "use_elbow_limit": bool(case % 2), "elbow_min": 0.2, "elbow_max": 1.8}
    return ChainDescription(
        bone_names=tuple(f"b{i}" for i in range(n)), parent_name="p" if case % 2 else None,
        lengths=rng.uniform(0.5, 2.0, n), rest_angles=rng.uniform(-0.5, 0.5, n),
        normal=upper[:3, :3] @ axis, local_axes=np.tile(axis, (n, 1)), upper_rest=upper,
        parent_to_upper=rest_rotation(rng) if case % 2 else upper, settings=ChainSettings(**settings))


def translations(points: np.ndarray) -> np.ndarray:
    m = np.tile(np.eye(4), (len(points), 1, 1))
    m[:, :3, 3] = points
    return m


def random_samples(rng: np.random.Generator, rig: ChainDescription, case: int) -> ChainSamples:
    arm = moving(rng, shear=case % 4 == 3, shift=3.0) if case % 3 == 1 else np.tile(
        random_affine(rng, shear=case % 4 == 3, shift=3.0), (FRAMES, 1, 1))
    parent = None
    if rig.parent_name is not None:
        parent = moving(rng, shear=True, shift=1.0) if case % 4 < 2 else np.tile(
            random_affine(rng, shear=False, shift=1.0), (FRAMES, 1, 1))
        parent = arm @ parent  # the sampled parent is a world matrix
    # Targets around the shoulder, most in reach, some beyond or inside the inner radius.
    frame = arm[0] @ (rig.upper_rest if parent is None else np.linalg.inv(arm[0]) @ parent[0] @ rig.parent_to_upper)
    t = np.linspace(0, 2 * math.pi, FRAMES)
    reach = rig.total_length * (0.6 + 0.5 * np.sin(3 * t + case))
    local = np.stack([reach * np.cos(t + case), reach * np.sin(t), 0.2 * np.cos(5 * t)], axis=1)
    target = local @ frame[:3, :3].T + frame[:3, 3]
    pole = None
    if case % 4 == 1:
        pole = translations(target + rng.normal(size=3) * 2.0)
    if case % 5 == 4:
        target[[3, 17]] = np.nan  # invalid frames: filled from the last valid one
        if pole is not None:
            pole[25, 0, 3] = np.inf
    location = rng.uniform(-0.2, 0.2, (FRAMES, 3)) if case % 6 == 5 else None
    return ChainSamples(armature=arm, target=translations(target), parent=parent, pole=pole,
                        upper_location=location)


def random_batch(rng: np.random.Generator, first: int,
                 count: int) -> tuple[list[ChainDescription], list[ChainSamples], np.ndarray]:
    """``count`` random chains (cases ``first`` on), their samples, and the frames."""
    cases = [first + c for c in range(count)]
    rigs = [random_description(rng, c) for c in cases]
    samples = [random_samples(rng, rig, c) for rig, c in zip(rigs, cases, strict=True)]
    return rigs, samples, np.arange(1.0, FRAMES + 1.0)


def assert_same(new: Any, old: Any, label: str) -> None:
    """Every field of two solutions equal (arrays exactly, the solver state's floats exactly)."""
    for name in ("frames", "valid", "flags", "deltas", "root_offset", "stretch", "error", "sensitivity",
                 "tip_world", "target_world", "solved_target_world", "base", "armature_world", "parent_frame",
                 "scale", "rotations"):
        a, b = getattr(new, name), getattr(old, name)
        assert (a is None) == (b is None), f"{label} {name}"
        if a is not None:
            np.testing.assert_array_equal(a, b, err_msg=f"{label} {name}")
    assert _floats(new.state) == _floats(old.state), f"{label} state"


@pytest.mark.parametrize("seed", range(6))
def test_faster_step_equals_the_frozen_step_on_random_rigs(seed: int) -> None:
    rigs, samples, frames = random_batch(np.random.default_rng(1700 + seed), seed * 12, 12)
    new = solve_chains(rigs, frames, samples, fps=24.0)
    old = before.solve_chains(rigs, frames, samples, fps=24.0)  # type: ignore[arg-type]
    for k, (a, b) in enumerate(zip(new, old, strict=True)):
        assert_same(a, b, f"seed {seed} chain {k} ({rigs[k].settings.solver})")
    # And one chain at a time, the live preview's one frame included.
    for rig, s in zip(rigs[:4], samples[:4], strict=True):
        one = ChainSamples(armature=s.armature[5:6], target=s.target[5:6],
                           parent=None if s.parent is None else s.parent[5:6],
                           pole=None if s.pole is None else s.pole[5:6],
                           upper_location=None if s.upper_location is None else s.upper_location[5:6])
        a = solve_chains([rig], frames[5:6], [one], smooth_root=False)[0]
        b = before.solve_chains([rig], frames[5:6], [one], smooth_root=False)[0]  # type: ignore[list-item]
        assert_same(a, b, "one frame")


def _floats(state: Any) -> list[float]:
    if isinstance(state, (int, float)):
        return [float(state)]
    if isinstance(state, np.ndarray):
        return state.astype(float).ravel().tolist()
    if isinstance(state, (tuple, list)):
        return [v for item in state for v in _floats(item)]
    if hasattr(state, "__dataclass_fields__"):
        return [v for f in state.__dataclass_fields__ for v in _floats(getattr(state, f))]
    return []


def test_bake_path_skips_the_solved_targets_only() -> None:
    rng = np.random.default_rng(3)
    rigs = [random_description(rng, c) for c in range(5)]
    samples = [random_samples(rng, rig, c) for c, rig in enumerate(rigs)]
    frames = np.arange(1.0, FRAMES + 1.0)
    full = solve_chains(rigs, frames, samples)
    lean = solve_chains(rigs, frames, samples, sensitivity=False, solved_targets=False)
    for a, b in zip(full, lean, strict=True):
        assert np.isnan(b.solved_target_world).all() and not b.solved_target_world.flags.writeable
        assert not b.sensitivity.any()
        for name in ("deltas", "root_offset", "stretch", "error", "flags", "tip_world", "valid"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.parametrize("points", [40, 100])
def test_maps_in_parts_give_the_same_bits(monkeypatch: pytest.MonkeyPatch, points: int) -> None:
    """The maps run a few chains at a time (chain_maps.POINTS_AT_ONCE); where the parts are cut changes
    nothing (here one chain, or two, per part, poles on some of them)."""
    from solver import chain_maps

    rng = np.random.default_rng(77 + points)
    rigs = [random_description(rng, c) for c in range(9)]
    samples = [random_samples(rng, rig, c) for c, rig in enumerate(rigs)]
    frames = np.arange(1.0, FRAMES + 1.0)
    old = before.solve_chains(rigs, frames, samples)  # type: ignore[arg-type]
    monkeypatch.setattr(chain_maps, "POINTS_AT_ONCE", points)
    new = solve_chains(rigs, frames, samples)
    for k, (a, b) in enumerate(zip(new, old, strict=True)):
        assert_same(a, b, f"parts of {points} points, chain {k}")
