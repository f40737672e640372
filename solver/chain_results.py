"""From every chain's solver result to its :class:`ChainSolution`, for all chains of a solve at once (pure numpy).

What a solution holds besides the solver's angles (pose deltas, stretch, flags, the tip's error) took a dozen
small array operations per chain, most of a many-chain bake's solve after the kernel. Here each is one pass
over a stack of every chain's frames (the deltas: one stack per bone count), with the same elementwise
operations, so every chain gets the bits the chain-by-chain step gave it (tests/solver/test_chain_step_speedup.py
against the frozen copy).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from . import ChainResult, TwoBoneResult
from .chain_data import ChainSolution
from .chain_description import ChainDescription
from .stretch import stretched_flags, volume_factor

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

# Tip-to-target distances below this fraction of the chain length are keyed (and reported) as 0: it is float32
# resolution, the precision of the keys and of Blender's evaluated pose (whose tip lands ~1e-7 L from ours).
ERROR_RESOLUTION = 1e-7


@dataclass(frozen=True)
class ChainInputs:
    """One chain's inputs after the invalid frames are filled: matrices keep one row when they do not move."""

    valid: BoolArray
    arm: FloatArray  # (1 or N, 4, 4)
    base: FloatArray  # (1 or N, 4, 4) the shoulder frame in armature space
    parent_frame: FloatArray  # ``base`` before the upper bone's own location
    pole: FloatArray | None  # (N, 3) world, filled


def angles_of(result: TwoBoneResult | ChainResult) -> tuple[FloatArray, ...]:
    """Each joint's solved angle over the frames, (N,) per joint: shoulder first."""
    if isinstance(result, TwoBoneResult):
        return np.reshape(result.shoulder_angle, -1), np.reshape(result.elbow_angle, -1)
    return tuple(result.angles.T)


def pose_deltas(rigs: Sequence[ChainDescription], angles: Sequence[tuple[FloatArray, ...]], n_frames: int
                ) -> list[FloatArray]:
    """Per chain its pose deltas (N, n_bones): the angles less the rest angles, unwrapped over the frames.

    Chains with the same number of bones share one stack, bone by bone along the frames (each chain's deltas
    are a transposed view of its rows). ``np.unwrap(axis=0)`` per chain; where no step reaches pi (the usual
    bake) only its exact ``+ 0.0``.
    """
    out: list[FloatArray] = [np.empty(0)] * len(rigs)
    by_bones: dict[int, list[int]] = {}
    for k, a in enumerate(angles):
        by_bones.setdefault(len(a), []).append(k)
    for bones, members in by_bones.items():
        stack = np.empty((len(members), bones, n_frames))
        for g, k in enumerate(members):
            for j, column in enumerate(angles[k]):
                stack[g, j] = column
        stack -= np.stack([rigs[k].rest_angles for k in members])[:, :, None]
        if n_frames > 1:
            steps = np.abs(stack[..., 1:] - stack[..., :-1]).reshape(len(members), -1).max(axis=1)
            plain = steps < np.pi  # NaN steps are not
            if plain.all():
                stack[..., 1:] += 0.0  # what np.unwrap adds there (a -0.0 becomes +0.0, as it does)
            else:
                for g in range(len(members)):
                    if plain[g]:
                        stack[g, :, 1:] += 0.0
                    else:
                        stack[g] = np.unwrap(stack[g].T, axis=0).T
        for g, k in enumerate(members):
            out[k] = stack[g].T
    return out


def tip_errors(rigs: Sequence[ChainDescription], tip_world: FloatArray, target_world: FloatArray,
               world_scale: FloatArray) -> FloatArray:
    """(K, N) world distance from every chain's solved tip to its raw target, 0 below float32 resolution.

    Args:
        rigs: the chains.
        tip_world, target_world: (3, K, N) as coordinate planes.
        world_scale: (K,) world length of one shoulder-space unit.
    """
    miss = tip_world - target_world
    # np.linalg.norm(axis=1)'s sum in its order (x, then y, then z; numpy 1.26 to 2.x), on whole coordinate
    # planes: a reduction over rows of three costs ~3x more.
    error: FloatArray = np.sqrt(miss[0] * miss[0] + miss[1] * miss[1] + miss[2] * miss[2])
    # Below float32 resolution the figure is rounding, not a miss: keyed as 0 so a reached target gives a flat
    # curve (a few keys) instead of one key of noise per frame.
    floor = [ERROR_RESOLUTION * float(np.sum(rig.lengths)) * float(w) for rig, w in zip(rigs, world_scale,
                                                                                        strict=True)]
    error[error < np.array(floor)[:, None]] = 0.0
    return error


def solutions(rigs: Sequence[ChainDescription], frames: FloatArray, inputs: Sequence[ChainInputs],
              results: Sequence[TwoBoneResult | ChainResult], sensitivity: Sequence[FloatArray] | None,
              tip_world: FloatArray, target_world: FloatArray, solved_world: FloatArray, world_scale: FloatArray,
              k_reach: Sequence[FloatArray | None]) -> list[ChainSolution]:
    """Every chain's solution from its solver result.

    Args:
        rigs: the chains.
        frames: (N,) the solve's frames.
        inputs: per chain, its filled inputs.
        results: per chain, its solver's result (in the solver's scaled space for stretch to reach).
        sensitivity: per chain (N,) per world unit; None: zeros (not reported).
        tip_world, target_world: (3, K, N) the solved tips and raw targets, as coordinate planes.
        solved_world: (K, N, 3) the solved targets.
        world_scale: (K,) world length of one shoulder-space unit.
        k_reach: per chain, stretch to reach's scale (N,), or None.
    """
    n_frames = len(frames)
    deltas = pose_deltas(rigs, [angles_of(r) for r in results], n_frames)
    error = tip_errors(rigs, tip_world, target_world, world_scale)
    # Views of the planes, (N, 3) per chain: verification reads them back as planes.
    tips, targets = np.moveaxis(tip_world, 0, -1), np.moveaxis(target_world, 0, -1)
    stretch = np.empty((len(rigs), n_frames))
    flags = np.empty((len(rigs), n_frames), dtype=np.int64)
    per_world_unit = np.zeros((len(rigs), n_frames)) if sensitivity is None else sensitivity
    still: dict[bytes, FloatArray] = {}  # the product of a root that never moves, per axes and length
    out = []
    for k, (rig, c, result, k_r) in enumerate(zip(rigs, inputs, results, k_reach, strict=True)):
        stretch[k] = np.asarray(result.stretch, dtype=np.float64)
        flags[k] = np.reshape(result.flags, -1)
        root_offset = root_offset_of(np.reshape(result.root_offset, (n_frames, 2)), rig.axes_2d, still)
        scale = None
        if k_r is not None:
            root_offset = root_offset * k_r[:, None]
            if rig.settings.preserve_volume:
                # Thin across the bone (x, z) by 1/sqrt(k), along it (y) by k; the strategy's uniform scale on top.
                across = stretch[k] * volume_factor(k_r)
                scale = np.stack([across, stretch[k] * k_r, across], axis=1)
            stretch[k] *= k_r
            flags[k] |= stretched_flags(k_r)
        moved = c.base is not c.parent_frame
        out.append(ChainSolution(
            frames=frames, valid=c.valid, deltas=deltas[k], root_offset=root_offset, stretch=stretch[k],
            error=error[k], flags=flags[k], sensitivity=per_world_unit[k],
            scale=scale, tip_world=tips[k], target_world=targets[k], solved_target_world=solved_world[k],
            base=np.broadcast_to(c.base, (n_frames, 4, 4)), state=result.state,
            # Copies: a view would keep every sampled matrix of the bake alive while keys are written.
            armature_world=c.arm.copy(), parent_frame=c.parent_frame.copy() if moved else None))
    return out


def root_offset_of(offset: FloatArray, axes: FloatArray, still: dict[bytes, FloatArray]) -> FloatArray:
    """``offset @ axes``, the root offset in the upper bone's rest-local axes.

    Most chains never move their root (all zeros): their product is the same for every chain with the same
    axes, so it is computed once (by the same matmul, so with the bits it gives) and copied.

    Args:
        offset: (N, 2) the solver's root offset, shoulder-space units.
        axes: (2, 3) the shoulder plane's axes in the upper bone's rest-local axes.
        still: per solve, the product of an all-zero offset by axes and length (filled here).
    """
    if not offset.flags.c_contiguous or offset.view(np.int64).any():  # any bit set: -0.0 is not +0.0 here
        out: FloatArray = offset @ axes
        return out
    key = axes.tobytes() + len(offset).to_bytes(8, "little")
    if key not in still:
        still[key] = offset @ axes
    return still[key].copy()
