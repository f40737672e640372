"""World space to every chain's shoulder plane and back, for a stack of chains at once (pure numpy).

The chain step (:mod:`solver.chain_step`) maps every chain's targets and poles from world space into its
shoulder plane (armature inverse, then shoulder-frame inverse, then the plane's axes) and the solved points
back out. Before issue 17 each stage was a broadcast ``einsum`` over (K, N, 3) points, most of a many-chain
bake's solve; here each stage is a few ufunc passes over whole coordinate planes, in the same order of
additions, so every chain's solver sees the same bits as before (tests/solver/test_chain_step_speedup.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .chain_description import ChainDescription
from .spaces import invert_matrices

FloatArray = NDArray[np.float64]


def stacked(matrices: Sequence[FloatArray]) -> FloatArray:
    """(K, R, 4, 4): one row for every chain when none moves, else every chain's N rows."""
    rows = max(len(m) for m in matrices)
    return np.stack([m if len(m) == rows else np.broadcast_to(m, (rows, 4, 4)) for m in matrices])


def inverted(m: FloatArray) -> FloatArray:
    """:func:`spaces.invert_matrices` of (K, R, 4, 4) matrices, in one call."""
    return invert_matrices(m.reshape(-1, 4, 4)).reshape(m.shape)


# The order numpy's einsum ("knij,knj->kni"; numpy 1.26, 2.4, 2.5) adds a 3-term row product in: the maps
# accumulate in it, so the solvers see the bits the einsum-based step gave them (CCD/FABRIK stop on a
# tolerance, and a rounding of their input would move their output by up to it).
EINSUM_ORDER = (0, 2, 1)


def _map(linear: FloatArray, offset: FloatArray | None, columns: FloatArray,
         order: Sequence[int] = EINSUM_ORDER) -> FloatArray:
    """Per chain and row, the affine map ``linear @ p + offset`` of points given as coordinate planes.

    Planes (one contiguous (K, P) array per coordinate) make every ufunc's inner loop run along the frames
    rather than over two or three coordinates: several times faster than a broadcast ``einsum``, and each row
    gets the same operations whatever the other chains in the stack.

    Args:
        linear: (K, R, D, E), R in (1, P): one map per chain for every point, or one per point.
        offset: (K, R, D), or None for a linear map.
        columns: (E, K, P) the points' coordinates, plane by plane.
        order: the order the E products are added in (for E = 3; E = 2 adds them in index order).

    Returns:
        (D, K, P) the mapped coordinates, plane by plane.
    """
    terms = order if linear.shape[-1] == len(order) else range(linear.shape[-1])
    first, *rest = terms
    out = np.empty((linear.shape[-2], *columns.shape[1:]))
    # One scratch plane for the products: a fresh temporary per product (a plane is ~128 KB, past the
    # allocator's reuse) cost ~1.8x the arithmetic itself.
    product = np.empty(columns.shape[1:])
    for d, acc in enumerate(out):
        row = linear[..., d, :]
        np.multiply(row[..., first], columns[first], out=acc)
        for j in rest:
            np.multiply(row[..., j], columns[j], out=product)
            acc += product
        if offset is not None:
            acc += offset[..., d]
    return out


# Points (chains x frames) per pass of the maps: each coordinate plane (128 KB) and the stages' intermediates
# stay in the L2 cache (measured ~1.6-2x faster than whole stacks of 25 chains x 2,000 frames).
POINTS_AT_ONCE = 16_384


def _parts(chains: int, points: int) -> list[slice]:
    """Slices of the chain axis with about :data:`POINTS_AT_ONCE` points each (at least one chain)."""
    step = max(1, POINTS_AT_ONCE // max(points, 1))
    return [slice(k, k + step) for k in range(0, chains, step)]


def _planes(points: FloatArray) -> FloatArray:
    """(K, P, E) points as (E, K, P) coordinate planes."""
    return np.ascontiguousarray(np.moveaxis(points, -1, 0))


def points_of(planes: FloatArray) -> FloatArray:
    """(D, K, P) coordinate planes as (K, P, D) points (one strided write per plane: ~4x faster than a
    contiguous copy of the moved axes)."""
    out = np.empty((*planes.shape[1:], planes.shape[0]))
    for d, plane in enumerate(planes):
        out[..., d] = plane
    return out


@dataclass(frozen=True)
class ShoulderMaps:
    """The maps of K chains between world space and their shoulder planes, over R rows (1: the matrices do not
    move; else one per frame)."""

    arm: FloatArray  # (K, R, 4, 4) armature world matrices
    arm_inv: FloatArray
    base: FloatArray  # (K, R, 4, 4) shoulder frames in armature space
    base_inv: FloatArray
    plane: FloatArray  # (K, 1, 2, 3) the shoulder plane's x and y in the upper bone's rest-local axes

    @classmethod
    def of(cls, arm: FloatArray, arm_inv: FloatArray, base: FloatArray, rigs: Sequence[ChainDescription]
           ) -> ShoulderMaps:
        """The maps of ``rigs`` given their stacked armature matrices (and inverses) and shoulder frames."""
        pairs = [rig.shoulder_basis for rig in rigs]
        plane = np.stack([np.stack([x for x, _ in pairs]), np.stack([y for _, y in pairs])], axis=1)[:, None]
        return cls(arm=arm, arm_inv=arm_inv, base=base, base_inv=inverted(base), plane=plane)

    def to_2d(self, world: FloatArray, which: Sequence[int] | slice) -> FloatArray:
        """(K', N, 2) shoulder-plane coordinates of world points (K', N, 3) of the chains ``which``."""
        return self.planes_to_2d(_planes(world), which)

    def planes_to_2d(self, world: FloatArray, which: Sequence[int] | slice) -> FloatArray:
        """:meth:`to_2d` of world points given as coordinate planes (3, K', N)."""
        chains = np.arange(len(self.plane))[which]
        out = np.empty((*world.shape[1:], 2))
        for part in _parts(len(chains), world.shape[2]):
            k = chains[part]
            arm_inv, base_inv = self.arm_inv[k], self.base_inv[k]
            local = _map(base_inv[..., :3, :3], base_inv[..., :3, 3],
                         _map(arm_inv[..., :3, :3], arm_inv[..., :3, 3], world[:, part]))
            out[part] = points_of(_map(self.plane[k], None, local, order=(0, 1, 2)))  # np.sum's order, as before
        return out

    def to_world(self, p2: FloatArray) -> FloatArray:
        """(K, N, 3) world positions of every chain's shoulder-plane points (K, N, 2)."""
        return points_of(self.to_world_planes(p2))

    def to_world_planes(self, p2: FloatArray) -> FloatArray:
        """:meth:`to_world` as coordinate planes (3, K, N)."""
        out = np.empty((3, *p2.shape[:2]))
        for part in _parts(len(p2), p2.shape[1]):
            local = _map(np.swapaxes(self.plane[part], -1, -2), None, _planes(p2[part]))
            arm, base = self.arm[part], self.base[part]
            out[:, part] = _map(arm[..., :3, :3], arm[..., :3, 3], _map(base[..., :3, :3], base[..., :3, 3], local))
        return out

    def world_scale(self) -> FloatArray:
        """(K,) world length of one shoulder-space unit (mean over the rows), for bounds given in world units:
        the length of the upper bone's rest +Y (the shoulder space's +x at rest) in world space."""
        linear = self.arm[..., :3, :3] @ self.base[..., :3, :3]
        out: FloatArray = np.mean(np.linalg.norm(linear[..., 1], axis=-1), axis=1)
        return out
