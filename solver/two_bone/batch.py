"""Several two-bone chains in one vectorized solve: their frames concatenated into shared kernel blocks.

A bake of many chains paid each chain's own passes of the block kernel (about fifty ufunc calls per block,
whatever its frame count). Here chains whose kernel options agree (lengths, soft widths, clamp margins: the
characters of a crowd share their rigs) and that take the same branch (pole or not) share blocks; the only
frame-to-frame state, the held direction and the pole side, is forward-filled within each chain, never from
the chain before it. The limits pass and the strategies then run on each chain's own rows with its own
options. Every result equals :func:`solver.solve_two_bone`'s for the same chain, bit for bit: each row sees the
same operations.

Per-row lengths (one group for chains of different lengths) were measured slower than one call per chain: the
per-row option arrays (``np.repeat`` and the kernel's array-bound clip) cost more than the calls they saved, so
chains of different lengths keep one kernel pass each (benchmarks/bench_chains.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..limits import JointLimits, Strategy
from ..options import Options
from ..result import SolverState, TwoBoneResult
from ..smoothing import TargetFilter, smooth_targets
from .arguments import cached_options, frame_bend, frame_pole
from .kernel import BLOCK, Frames, solve_block
from .solve import finish, solve_frames, solve_two_bone

FloatArray = NDArray[np.float64]
BendRows = int | NDArray[np.int8]


@dataclass(frozen=True)
class ChainCall:
    """One chain's arguments of :func:`solver.solve_two_bone` (the ones a chain's settings give; the others
    keep their defaults). ``targets``: (N, 2), frames in time order."""

    targets: FloatArray
    a: float
    b: float
    bend: int = 1
    pole: FloatArray | None = None
    softness: float = 0.0
    inner_softness: float = 0.0
    limits: JointLimits | None = None
    strategy: Strategy | str = Strategy.ACCEPT
    max_root_offset: float | None = None
    root_smoothing: float = 2.0
    stretch_range: tuple[float, float] = (0.9, 1.1)
    smoothing: TargetFilter | str | None = None
    previous: SolverState | None = None

    def solve_alone(self) -> TwoBoneResult:
        """:func:`solver.solve_two_bone` of this chain by itself."""
        return solve_two_bone(self.targets, self.a, self.b, bend=self.bend, pole=self.pole, softness=self.softness,
                              inner_softness=self.inner_softness, limits=self.limits, strategy=self.strategy,
                              max_root_offset=self.max_root_offset, root_smoothing=self.root_smoothing,
                              stretch_range=self.stretch_range, smoothing=self.smoothing, previous=self.previous)


@dataclass(frozen=True)
class _Prepared:
    """One chain's checked arguments, as :func:`solver.solve_two_bone` checks them."""

    raw: FloatArray
    aimed: FloatArray
    opts: Options
    bend: BendRows
    pole: FloatArray | None
    previous: SolverState | None

    @property
    def key(self) -> tuple[object, ...]:
        """What the block kernel reads of this chain beyond its rows: chains with the same key share blocks."""
        o = self.opts
        return (self.pole is None, o.a, o.b, o.total, o.inner, o.eps, o.zero_distance, o.outer_width,
                o.inner_width, o.pole_deadzone)


def _prepared(call: ChainCall) -> _Prepared | None:
    """The chain's checked arguments, or None when it must take :func:`solver.solve_two_bone` itself: one
    frame or none, or an argument that call would reject (then it raises its own error)."""
    raw = np.asarray(call.targets, dtype=np.float64)
    if raw.ndim != 2 or raw.shape[1] != 2 or raw.shape[0] < 2 or not np.isfinite(raw).all():
        return None
    try:
        opts = cached_options(float(call.a), float(call.b), call.softness, call.inner_softness, None, None, 1e-3,
                              call.limits, call.strategy, call.max_root_offset, call.root_smoothing,
                              call.stretch_range, (1.0, 0.0))
        n = raw.shape[0]
        bend, pole = frame_bend(call.bend, n), frame_pole(call.pole, n)
    except (TypeError, ValueError):
        return None
    aimed = raw if call.smoothing is None else smooth_targets(raw, call.smoothing)
    return _Prepared(raw, aimed, opts, bend, pole, call.previous)


def solve_two_bone_chains(calls: Sequence[ChainCall]) -> list[TwoBoneResult]:
    """``[call.solve_alone() for call in calls]``, bit for bit, with one block-kernel pass per group of chains
    with the same kernel options instead of one per chain.

    Args:
        calls: the chains' arguments; chains of one frame (the live preview's) or with arguments
            :func:`solver.solve_two_bone` rejects are solved (or rejected) by it, one by one.

    Returns:
        One result per call, in order. Results of a batch share buffers (each its own rows of them).

    Raises:
        ValueError: as :func:`solver.solve_two_bone` for the first call it rejects.
    """
    results: list[TwoBoneResult | None] = [None] * len(calls)
    groups: dict[tuple[object, ...], list[tuple[int, _Prepared]]] = {}
    for i, call in enumerate(calls):
        ready = _prepared(call)
        if ready is None:
            results[i] = call.solve_alone()
        else:
            groups.setdefault(ready.key, []).append((i, ready))
    for members in groups.values():
        if len(members) == 1:  # nothing to share: the one-chain driver, without the batch's bookkeeping
            i, p = members[0]
            results[i] = solve_frames(p.raw, p.aimed, p.opts, p.bend, p.pole, p.previous)
            continue
        for (i, _), result in zip(members, _solve_group([p for _, p in members]), strict=True):
            results[i] = result
    return [r for r in results if r is not None]


def _bend_rows(chains: Sequence[_Prepared], counts: NDArray[np.intp]) -> BendRows:
    """Every chain's bend, row by row: an int when all chains keep the same fixed side."""
    if all(isinstance(c.bend, int) for c in chains) and len({c.bend for c in chains}) == 1:
        return chains[0].bend
    return np.concatenate([np.full(n, c.bend, dtype=np.int8) if isinstance(c.bend, int) else c.bend
                           for c, n in zip(chains, counts, strict=True)])


def _solve_group(chains: Sequence[_Prepared]) -> list[TwoBoneResult]:
    """Chains with the same kernel options, solved in shared blocks (see the module text)."""
    counts = np.array([len(c.aimed) for c in chains], dtype=np.intp)
    ends = np.cumsum(counts)
    starts = ends - counts
    total_rows = int(ends[-1])
    out = Frames.empty(total_rows)
    aimed = np.concatenate([c.aimed for c in chains])  # contiguous: rows viewed as complex numbers
    bend = _bend_rows(chains, counts)
    pole = None if chains[0].pole is None else np.concatenate([c.pole for c in chains if c.pole is not None])
    chain_of_row = np.repeat(np.arange(len(chains)), counts)
    # Each chain's state before its first frame, as solve_frames starts it.
    carry_x = np.empty(len(chains))
    carry_y = np.empty(len(chains))
    carry_bend = np.empty(len(chains), dtype=np.int8)
    for k, c in enumerate(chains):
        carry_x[k], carry_y[k] = c.previous.direction if c.previous is not None else c.opts.initial_direction
        carry_bend[k] = c.previous.bend if c.previous is not None else (
            c.bend if isinstance(c.bend, int) else int(c.bend[0]))
    phi = np.empty(total_rows) if any(c.opts.limits is not None for c in chains) else None
    for start in range(0, total_rows, BLOCK):
        sl = slice(start, min(start + BLOCK, total_rows))
        rows = chain_of_row[sl]
        dx, dy, used = solve_block(
            out, sl, aimed[sl], bend if isinstance(bend, int) else bend[sl], None if pole is None else pole[sl],
            chains[0].opts, (carry_x[rows], carry_y[rows]), carry_bend[rows],
            None if phi is None else phi[sl], np.maximum(starts[rows] - start, 0))
        # The carries of the chains in this block: their last row in it.
        present = np.arange(rows[0], rows[-1] + 1)
        last = np.minimum(ends[present], sl.stop) - 1 - start
        carry_x[present], carry_y[present] = dx[last], dy[last]
        carry_bend[present] = used if isinstance(used, int) else used[last]
    return [finish(out.rows(slice(s, e)), None if phi is None or c.opts.limits is None else phi[s:e], c.bend,
                   c.pole, c.opts, c.previous, c.raw, c.aimed, (float(carry_x[k]), float(carry_y[k])))
            for k, (c, s, e) in enumerate(zip(chains, starts, ends, strict=True))]
