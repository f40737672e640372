"""Several two-bone chains in one solve (solver/two_bone/batch.py) equal each chain solved alone, bit for bit.

The truth is :func:`solver.solve_two_bone` on each chain by itself. The chains mix what the batch must keep
apart: lengths (either bone longer, shared by several chains), bends, soft IK on both boundaries, limits with
every strategy, poles
(whose side persists within a chain, never from the chain before), targets on the shoulder (a held direction),
filters, a previous state; blocks cut chains apart and hold several.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest

from solver.limits import JointLimits
from solver.result import SolverState
from solver.two_bone import batch, kernel
from solver.two_bone.batch import ChainCall, solve_two_bone_chains

FIELDS = ("shoulder_angle", "elbow_angle", "elbow", "end", "target", "input_target", "solved_target", "distance",
          "solved_distance", "flags", "bend", "root_offset", "stretch", "sensitivity")


def random_call(rng: np.random.Generator, case: int, frames: int) -> ChainCall:
    a, b = ((1.0, 0.6), (0.7, 1.3), (1.2, 1.2))[int(rng.integers(3))]  # chains share rigs, as in a crowd
    total = a + b
    t = np.linspace(0.0, 4 * math.pi, frames)
    reach = total * (0.55 + 0.6 * np.sin(t * rng.uniform(0.5, 2.0) + case))  # some beyond reach, some inside
    targets = np.stack([reach * np.cos(t + case), reach * np.sin(0.7 * t)], axis=1)
    if case % 5 == 3:
        targets[frames // 3: frames // 3 + 4] = 0.0  # on the shoulder: the direction is held
    if case % 7 == 0:
        targets[:3] = 0.0  # held from the first frame: the chain's own carry, not the chain before it
    pole = None
    if case % 3 == 1:
        pole = np.stack([np.cos(t * 3.0), np.sin(t * 2.0)], axis=1) * 2.0  # the side flips and persists
        undecided = (np.arange(frames) % 40) < 12  # on the target line: the side of the frame before holds
        pole[undecided] = 2.0 * targets[undecided]
    limits = None
    if case % 4:
        limits = JointLimits(shoulder=(-1.0, 1.2) if case % 2 else None, elbow=(0.3, 2.0))
    previous = SolverState(direction=(0.0, -1.0), bend=-1, root_offset=(0.01, 0.0)) if case % 6 == 5 else None
    return ChainCall(targets=targets, a=a, b=b, bend=int(rng.choice([-1, 1])), pole=pole,
                     softness=(0.0, 0.05)[case % 2], inner_softness=(0.0, 0.04)[case % 5 == 1],
                     limits=limits, strategy=("accept", "move_root", "stretch")[case % 3],
                     root_smoothing=float(rng.choice([0.0, 2.0])), stretch_range=(0.8, 1.25),
                     smoothing="one_euro" if case % 8 == 2 else None, previous=previous)


def assert_same(batched: Any, alone: Any, label: str) -> None:
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(batched, name), getattr(alone, name), err_msg=f"{label} {name}")
    assert batched.state == alone.state, label
    assert batched.sensitivity_params == alone.sensitivity_params, label


@pytest.mark.parametrize(("chains", "frames", "block"), [(24, 50, kernel.BLOCK), (9, 300, 128), (5, 700, 256)])
def test_batched_chains_equal_each_chain_solved_alone(monkeypatch: pytest.MonkeyPatch, chains: int, frames: int,
                                                      block: int) -> None:
    # Small blocks: a block holds the end of one chain and the start of the next, and a chain spans blocks.
    monkeypatch.setattr(batch, "BLOCK", block)
    rng = np.random.default_rng(chains * 1000 + frames)
    calls = [random_call(rng, case, frames + 7 * case) for case in range(chains)]
    together = solve_two_bone_chains(calls)
    assert len(together) == chains
    groups = {p.key for p in (batch._prepared(c) for c in calls) if p is not None}
    assert chains < 9 or len(groups) < chains  # chains did share blocks
    for case, (call, result) in enumerate(zip(calls, together, strict=True)):
        assert_same(result, call.solve_alone(), f"chain {case}")
    flags = np.concatenate([r.flags for r in together])
    for bit in (kernel.F_SOFT, kernel.F_OUTER, kernel.F_LIM_E, kernel.F_HELD, kernel.F_ROOT, kernel.F_STRETCH):
        assert (flags & bit).any(), f"the chains never raised flag {bit}"  # every branch was exercised


def test_one_frame_and_bad_chains_take_the_single_call() -> None:
    rng = np.random.default_rng(5)
    good = random_call(rng, 1, 40)
    one = dataclasses.replace(good, targets=good.targets[0], pole=None)
    results = solve_two_bone_chains([good, one])
    assert np.ndim(results[1].shoulder_angle) == 0  # the single-frame path's scalars
    assert_same(results[1], one.solve_alone(), "one frame")
    bad = dataclasses.replace(good, targets=np.vstack([good.targets, [[np.nan, 0.0]]]))
    with pytest.raises(ValueError, match="finite"):
        solve_two_bone_chains([good, bad])
    with pytest.raises(ValueError, match="a must be"):
        solve_two_bone_chains([good, dataclasses.replace(good, a=-1.0)])


def test_pole_side_and_held_direction_carry_across_blocks_within_a_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    """A block that starts inside a chain on undecided frames (the pole on the target line, the target on the
    shoulder) continues that chain's side and direction from the block before, not its first frame's."""
    monkeypatch.setattr(batch, "BLOCK", 16)
    n = 40
    t = np.linspace(0.0, 1.0, n)
    targets = np.stack([1.0 + 0.5 * t, 0.8 - t], axis=1)
    targets[32:36] = 0.0  # on the shoulder across the block boundary at 32 (the second chain's frame 32)
    pole = np.tile([2.0, -3.0], (n, 1))  # decides the side opposite the bend on the first frames
    pole[30:] = 2.0 * targets[30:]  # on the target line from frame 30 (at the shoulder on the held frames)
    first = ChainCall(targets=targets[:16] * 0.9, a=1.1, b=0.7, bend=-1, pole=pole[:16])  # rows 0-15 of the batch
    second = ChainCall(targets=targets, a=1.1, b=0.7, bend=-1, pole=pole)
    together = solve_two_bone_chains([first, second])
    for call, result in zip((first, second), together, strict=True):
        assert_same(result, call.solve_alone(), "carried")
    assert (together[1].bend[30:] == together[1].bend[29]).all() and together[1].bend[29] != second.bend
