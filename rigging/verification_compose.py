"""The lower bone's tail composed as Blender does for chains read from F-curves, many chains in one pass.

After a bake, the chains whose armature :mod:`sampling` reads from F-curves are verified without stepping the
scene: the solve's parent frame and armature matrices, then each chain bone's rest offset and pose channels from
the keys just written (a connected bone's location ignored), carried up as whole columns (:mod:`tail_math`).

A crowd's chains mostly share their structure (bone count, rotation modes, connected flags, which channels move,
rest offsets, lengths): those are composed together, their frames concatenated into long columns, so the numpy
work is done once for all of them rather than once per chain; each armature's channels are read once for all its
chains. Only elementwise arithmetic runs over the concatenated columns; a product by one constant matrix (a rest
offset, an armature that does not move) stays one product per chain over its own columns, and a chain whose
columns would hold a single frame keeps :func:`compose_chain`, so every result has the bits the chain gets
composed alone.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import sampling, verification_channels
from .chain_solve import ChainSolution
from .rig import ChainRig
from .tail_math import affine, lower_basis, norm, pose_basis, rest_offset

# Frames of one chain composed at a time by :func:`compose_chain`.
CHUNK = 16384
# Rows (frames summed over chains) composed in one pass by :func:`compose_chains`, and a chain's frames per block:
# eight chains of 2,000 frames at once, a long bake's temporaries as small as one chain's blocks of CHUNK frames
# (on this size the per-call overhead is already small, and larger passes were not faster).
ROWS = 16384

# Columns of one shared product at most, a point's and an axis' (:func:`_affine_each`): OpenBLAS multiplies a 3x3
# by up to ~29,000 columns on one thread, and waking threads costs more than the product on a busy machine.
PRODUCT_COLUMNS = 8192

# (error, deviation, scale) per frame of a chain, NaN where not measured: the lower bone's tail to the target and
# to the solver's tip, and the length of its y axis in world space (the chain's world scale).
Measured = tuple[np.ndarray, np.ndarray, np.ndarray]


def compose_chain(rig: ChainRig, sol: ChainSolution, known: dict[int, np.ndarray] | None = None) -> Measured:
    """One chain's tail composed from its armature's F-curves (the solve's armature and parent frame).

    Args:
        known: F-curve pointer -> float32 values at the solution's valid frames, standing in for reading back
            the curves the bake just wrote (:func:`sampling.iter_pose_channels`).

    Returns:
        ``(error, deviation, scale)``, (N,) each.
    """
    chain = _Chain(rig, sol, known, verification_channels.Curves().armature(rig.armature))
    blocks = sampling.iter_pose_channels(rig.armature, rig.bone_names, sol.frames[chain.wanted], block=CHUNK,
                                         known=chain.known)
    with contextlib.closing(blocks):
        for block, channels in blocks:
            rows = chain.rows(block)
            count = block.stop - block.start
            point, axis = chain.armature_space([channels[name] for name in rig.bone_names])
            for m in chain.stages:
                point, axis = affine(m if len(m) == 1 else m[rows], point, axis)
            chain.error[rows] = norm(point - sol.target_world[rows].T)
            chain.deviation[rows] = norm(point - sol.tip_world[rows].T)
            chain.scale[rows] = np.broadcast_to(norm(axis), (count,))
    return chain.error, chain.deviation, chain.scale


def compose_chains(rigs: Sequence[ChainRig], solutions: Sequence[ChainSolution],
                   known: Sequence[dict[int, np.ndarray] | None]) -> list[Measured]:
    """:func:`compose_chain` of every chain, with the same bits, chains of the same structure in one pass.

    Args:
        known: per chain, as for :func:`compose_chain`.

    Returns:
        ``(error, deviation, scale)`` per chain.
    """
    out: list[Measured | None] = [None] * len(rigs)
    readings: dict[tuple[int, bytes], _Reading] = {}
    direct: list[tuple[_Chain, verification_channels.Sources]] = []
    curves = verification_channels.Curves()
    for c, (rig, sol, k) in enumerate(zip(rigs, solutions, known, strict=True)):
        chain = _Chain(rig, sol, k, curves.armature(rig.armature), index=c)
        count = len(chain.wanted)
        # A block of one frame turns a chain's moving matrices into one matrix, multiplied by BLAS with other
        # last bits: where the chain's own blocks of CHUNK frames end with one, it is composed alone.
        if count < 2 or count % CHUNK == 1:
            out[c] = compose_chain(rig, sol, k)
            continue
        sources = curves.sources(rig.armature, rig.bone_names, k)
        if sources is not None:
            direct.append((chain, sources))
            continue
        frames = sol.frames[chain.wanted]
        at = (rig.armature.as_pointer(), frames.tobytes())
        if at not in readings:
            readings[at] = _Reading(rig.armature, frames)
        readings[at].add(chain)
    step = max(2, ROWS)  # frames of a chain per block; no block of one frame either (see above)
    with contextlib.ExitStack() as stack:
        active = [(r, stack.enter_context(contextlib.closing(r.blocks(step)))) for r in readings.values()]
        sizes = [_block_size(len(chain.wanted), step) for chain, _sources in direct]
        passes = max([-(-len(chain.wanted) // size) for (chain, _s), size in zip(direct, sizes, strict=True)],
                     default=0)
        first = 0
        while active or first < passes:
            groups: dict[tuple[Any, ...], list[tuple[_Chain, slice, Any]]] = {}
            for reading, blocks in list(active):
                got = next(blocks, None)
                if got is None:
                    active.remove((reading, blocks))
                    continue
                block, channels = got
                for chain in reading.chains:
                    ch = [channels[name] for name in chain.rig.bone_names]
                    key = ("read", _structure(chain, ch[-1][1]["scale"]),
                           tuple((mode, tuple((p, None if a.shape[0] > 1 else (a.shape, a.tobytes()))
                                              for p, a in c.items())) for mode, c in ch))
                    groups.setdefault(key, []).append((chain, block, ch))
            for (chain, sources), size in zip(direct, sizes, strict=True):
                if first * size >= len(chain.wanted):
                    continue
                block = slice(first * size, min(len(chain.wanted), (first + 1) * size))
                key = ("direct", _structure(chain, _lower_scale(sources, block)),
                       verification_channels.signature(sources))
                groups.setdefault(key, []).append((chain, block, sources))
            for key, group in groups.items():
                for part in _parts(group):
                    _compose_group(part, read=key[0] == "read")
            first += 1
    for chain in [chain for r in readings.values() for chain in r.chains] + [chain for chain, _s in direct]:
        out[chain.index] = (chain.error, chain.deviation, chain.scale)
    assert all(m is not None for m in out)
    return [m for m in out if m is not None]


def _parts(group: list[tuple[_Chain, slice, Any]]) -> Iterator[list[tuple[_Chain, slice, Any]]]:
    """The chains of a group in passes of about ROWS rows: the columns' temporaries stay small enough for the
    allocator to reuse (past ~100 KB each, glibc maps and returns fresh pages for every one)."""
    part: list[tuple[_Chain, slice, Any]] = []
    rows = 0
    for piece in group:
        count = piece[1].stop - piece[1].start
        if part and rows + count > ROWS:
            yield part
            part, rows = [], 0
        part.append(piece)
        rows += count
    if part:
        yield part


def _block_size(count: int, step: int) -> int:
    """About ``step`` frames of ``count`` per block, the last block holding more than one."""
    size = min(count, step)
    while count % size == 1:
        size += 1
    return size


def _lower_scale(sources: verification_channels.Sources, block: slice) -> np.ndarray:
    """The lower bone's scale values over a block, as far as finiteness goes (see :func:`_structure`)."""
    current, given = sources[-1][1]["scale"]
    return np.concatenate([current] + [values[block] for _index, values in given or ()])


@dataclass
class _Chain:
    """What one chain's composition needs besides its channels, and its results (filled by block)."""

    rig: ChainRig
    sol: ChainSolution
    known: dict[int, np.ndarray] | None
    armature: verification_channels.Armature
    index: int = 0
    wanted: np.ndarray = field(init=False)
    every: bool = field(init=False)
    offsets: list[np.ndarray] = field(init=False)
    connected: list[bool] = field(init=False)
    length: float = field(init=False)
    stages: list[np.ndarray] = field(init=False)
    error: np.ndarray = field(init=False)
    deviation: np.ndarray = field(init=False)
    scale: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        rig, sol = self.rig, self.sol
        assert sol.armature_world is not None
        data = self.armature
        at = [data.index(name) for name in rig.bone_names]
        self.offsets = [rest_offset(data.rest(at[j - 1]), data.rest(at[j])) for j in range(1, len(at))]
        self.connected = [bool(data.connected[i]) for i in at]
        self.length = float(data.lengths[at[-1]])
        self.wanted = np.flatnonzero(sol.valid)
        self.every = len(self.wanted) == len(sol.frames)
        frame = sol.base if sol.parent_frame is None else sol.parent_frame
        if frame.strides[0] == 0:
            frame = frame[:1]  # a broadcast of one matrix (a parent that does not move)
        # Parent frame, then armature: one product for the whole range when neither moves.
        self.stages = [frame, sol.armature_world]
        if len(frame) == 1 and len(sol.armature_world) == 1:
            self.stages = [sol.armature_world @ frame]
        self.error, self.deviation, self.scale = np.full((3, len(sol.frames)), np.nan)

    def rows(self, block: slice) -> slice | np.ndarray:
        """The solution's frames a block of its valid frames covers (a plain slice when all are valid)."""
        return block if self.every else self.wanted[block]

    def armature_space(self, channels: list[tuple[str, dict[str, np.ndarray]]]) -> tuple[np.ndarray, np.ndarray]:
        """The tail and y axis ((3, N or 1)) in armature space from each chain bone's ``(mode, channels)``."""
        return _armature_space(channels, self.connected, self.length, self.offsets, affine)


class _Reading:
    """The chains of one armature over the same frames: their bones' channels are read together."""

    def __init__(self, armature: Any, frames: np.ndarray) -> None:
        self.armature = armature
        self.frames = frames
        self.chains: list[_Chain] = []

    def add(self, chain: _Chain) -> None:
        self.chains.append(chain)

    def blocks(self, step: int) -> Any:
        """:func:`sampling.iter_pose_channels` of every chain's bones, in blocks of about ``step`` frames, none
        of a single frame."""
        bones = list(dict.fromkeys(name for chain in self.chains for name in chain.rig.bone_names))
        known: dict[int, np.ndarray] = {}
        for chain in self.chains:
            known.update(chain.known or {})
        return sampling.iter_pose_channels(self.armature, bones, self.frames, block=_block_size(len(self.frames), step),
                                           known=known or None)


def _structure(chain: _Chain, lower_scale: np.ndarray) -> tuple[Any, ...]:
    """What chains composed in one pass share besides their channels' layout: everything but the moving
    channels' values and the constant matrices multiplied per chain.

    The rest offsets and lengths are shared by value (a crowd's copies of a character have the same), and
    whether the lower bone's scale is finite (:func:`tail_math.lower_basis` takes another path otherwise).
    """
    return (tuple(chain.connected), chain.length, tuple(o.tobytes() for o in chain.offsets),
            bool(np.isfinite(lower_scale).all()), tuple(len(m) == 1 for m in chain.stages))


def _compose_group(group: list[tuple[_Chain, slice, Any]], read: bool) -> None:
    """Compose chains of one structure over their blocks, in one pass, into their results.

    Args:
        group: per chain, the block of its valid frames and its channels there (``read``: as
            :func:`sampling.iter_pose_channels` gave them), else its :mod:`verification_channels` sources.
    """
    chains = [chain for chain, _block, _channels in group]
    rows = [chain.rows(block) for chain, block, _channels in group]
    bounds = np.cumsum([0] + [block.stop - block.start for _chain, block, _channels in group]).tolist()
    segments = [slice(a, b) for a, b in itertools.pairwise(bounds)]
    first = chains[0]
    merged = []
    for j in range(len(first.rig.bone_names)):
        if not read:
            merged.append(verification_channels.columns([(src, block) for _c, block, src in group], j, bounds[-1],
                                                        segments))
            continue
        mode, ch = group[0][2][j]
        merged.append((mode, {prop: a if a.shape[0] == 1 or len(group) == 1
                              else np.concatenate([channels[j][1][prop] for _c, _b, channels in group])
                              for prop, a in ch.items()}))
    point, axis = _armature_space(merged, first.connected, first.length, first.offsets,
                                  lambda offset, p, a: _affine_each([offset] * len(group), p, a, segments))
    for s, m in enumerate(first.stages):
        if len(m) == 1:
            point, axis = _affine_each([chain.stages[s] for chain in chains], point, axis, segments)
        else:
            point, axis = affine(_gather([chain.stages[s] for chain in chains], rows), point, axis)
    error = norm(point - _gather([chain.sol.target_world for chain in chains], rows).T)
    deviation = norm(point - _gather([chain.sol.tip_world for chain in chains], rows).T)
    scale = norm(axis)
    for chain, r, seg in zip(chains, rows, segments, strict=True):
        chain.error[r] = error[seg]
        chain.deviation[r] = deviation[seg]
        chain.scale[r] = np.broadcast_to(scale, (seg.stop - seg.start,)) if len(scale) == 1 else scale[seg]


def _gather(arrays: list[np.ndarray], rows: list[slice | np.ndarray]) -> np.ndarray:
    """Each chain's rows of its per-frame array, concatenated in the group's order."""
    if len(arrays) == 1:
        return arrays[0][rows[0]]
    return np.concatenate([a[r] for a, r in zip(arrays, rows, strict=True)])


def _armature_space(channels: Sequence[tuple[str, dict[str, np.ndarray]]], connected: Sequence[bool], length: float,
                    offsets: Sequence[np.ndarray],
                    move: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The lower bone's tail and y axis ((3, N or 1)) carried up the chain's bones into armature space.

    Args:
        channels: per chain bone ``(rotation mode, channels)``, upper bone first.
        connected, length: the bones' connected flags and the lower bone's rest length.
        offsets: the rest offsets (4x4) of the bones below the upper one.
        move: applies a (1, 4, 4) rest offset to ``(point, axis)``: one chain's product, or a group's per
            segment (:func:`_affine_each`), whichever gives the bits the chain gets alone.
    """
    point = axis = np.empty(0)
    for j in range(len(channels) - 1, -1, -1):
        mode, ch = channels[j]
        if j == len(channels) - 1:
            point, axis = lower_basis(mode, ch, connected[j], length)
        else:
            point, axis = pose_basis(mode, ch, connected[j], point, axis)
        if j > 0:
            point, axis = move(offsets[j - 1][None], point, axis)
    return point, axis


def _affine_each(ms: list[np.ndarray], point: np.ndarray, axis: np.ndarray, segments: list[slice]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`tail_math.affine` by one (1, 4, 4) matrix per chain over its own columns (``segments``).

    A BLAS product by one matrix, as the chain alone gets: its last bits are not those of the elementwise
    product (:func:`tail_math.linear`) a matrix per column would take. Chains sharing the matrix (the same
    object: a rest offset) share the product, over runs of up to PRODUCT_COLUMNS columns, and a point's and an
    axis' columns are multiplied together: a product's column has the same bits wherever it stands among two or
    more (one column alone is a matrix-vector product, but every segment has two or more).
    """
    if point.shape[1] == 1 and axis.shape[1] == 1 and all(m is ms[0] for m in ms):
        return affine(ms[0], point, axis)
    runs: list[tuple[np.ndarray, slice]] = []
    for m, seg in zip(ms, segments, strict=True):
        if runs and runs[-1][0] is m and seg.stop - runs[-1][1].start <= PRODUCT_COLUMNS:
            runs[-1] = (m, slice(runs[-1][1].start, seg.stop))
        else:
            runs.append((m, seg))
    total = segments[-1].stop
    point_out, axis_out = np.empty((3, total)), np.empty((3, total))
    for m, seg in runs:
        p, a = point if point.shape[1] == 1 else point[:, seg], axis if axis.shape[1] == 1 else axis[:, seg]
        if p.shape[1] > 1 and a.shape[1] > 1:
            # The point's and the axis' columns side by side in one product (the same bits, see above).
            both = m[0, :3, :3] @ np.concatenate((p, a), axis=1)
            np.add(both[:, :p.shape[1]], m[:, :3, 3].T, out=point_out[:, seg])
            axis_out[:, seg] = both[:, p.shape[1]:]
        else:
            point_out[:, seg], axis_out[:, seg] = affine(m, p, a)
    return point_out, axis_out
