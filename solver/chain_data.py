"""The plain data the chain step passes: one chain's sampled world matrices in, its solution out (pure).

:mod:`solver.chain_step` fills them; :mod:`solver.chain_channels` turns a solution into channel values. Both
names stay importable from :mod:`solver.chain_step`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


@dataclass(frozen=True)
class ChainSamples:
    """World matrices over the frames, as sampled for one chain (each (N, 4, 4); parent/pole may be None)."""

    armature: FloatArray
    target: FloatArray
    parent: FloatArray | None  # world matrix of the upper bone's parent pose bone
    pole: FloatArray | None
    upper_location: FloatArray | None = None  # (N, 3) the upper bone's own pose location, when not ours


@dataclass(frozen=True)
class Quaternions:
    """Quaternion channel values computed for all chains of a solve at once
    (:func:`solver.chain_channels.with_quaternions`), before the sign that joins the keys before a range.

    ``of`` is the ``deltas`` array they were computed from: a solution given other deltas
    (``dataclasses.replace``) no longer uses them (:func:`solver.chain_channels.channel_values` checks).
    """

    of: FloatArray
    values: tuple[FloatArray | None, ...]  # per chain bone (N, 4) sign-continuous, None: not in QUATERNION mode


@dataclass(frozen=True)
class ChainSolution:
    """A chain solved over frames: pose deltas, owned channel values and what the overlay and report show."""

    frames: FloatArray  # (N,)
    valid: BoolArray  # (N,) bool: frames whose inputs were all finite
    deltas: FloatArray  # (N, n_bones) pose rotation of each bone about the plane normal, from its rest
    root_offset: FloatArray  # (N, 3) upper bone pose location (its rest-local axes)
    stretch: FloatArray  # (N,) uniform scale of the upper bone
    error: FloatArray  # (N,) world-space distance from the solved tip to the raw target
    flags: NDArray[np.int64]  # (N,) solver flag bits
    sensitivity: FloatArray  # (N,) |d angle / d target| in rad per world unit (0 where not reported)
    tip_world: FloatArray  # (N, 3)
    target_world: FloatArray  # (N, 3)
    solved_target_world: FloatArray  # (N, 3) the clamped/softened target the chain reached for
    base: FloatArray  # (N, 4, 4) armature-space shoulder frame (upper bone at rest under its parent's pose)
    state: object  # the solver's state after the last frame: pass as ``previous`` to continue (live preview)
    armature_world: FloatArray | None = None  # (N or 1, 4, 4) the armature's world matrices the solve used
    parent_frame: FloatArray | None = None  # (N or 1, 4, 4) ``base`` before the upper bone's own location (None:
    # the same as ``base``)
    # Channel values to write instead of those ``deltas`` give (an IK influence below 1 blends in the FK keys,
    # rigging/fk_blend.py): per chain bone (N, k) in its own rotation mode; None: from ``deltas``.
    rotations: tuple[FloatArray, ...] | None = None
    scale: FloatArray | None = None  # (N, 3) the owned upper-bone scale when not the uniform ``stretch``
    quaternions: Quaternions | None = None  # precomputed rotation values (bake); None: from ``deltas``
