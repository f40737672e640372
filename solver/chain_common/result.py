"""What a CCD or FABRIK solve returns.

The flag bits and their names, the per-frame result and the state that continues a solve in a later call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from ..flag_table import FlagName, FlagTable

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

# Result flags (bit field), same bit values as the two-bone solver where the meaning is shared.
CLAMPED_OUTER = 1  # the raw target was at or beyond full reach: the solved target sits on the reach circle
CLAMPED_INNER = 2  # the raw target was inside the inner ring the chain cannot fold to
SOFTENED = 4  # soft IK compressed the distance (raw distance above L - s)
LIMITED = 8  # chains: at least one joint ends the frame exactly on one of its limits
LIMIT_BLOCKED = 16  # chains: limits are set and the tip misses the solved target by more than tolerance
ROOT_MOVED = 32  # strategy 'move_root' offset the root on this frame
STRETCHED = 64  # strategy 'stretch' scaled the bones on this frame
DIRECTION_HELD = 128  # zero distance inside the inner ring: the previous direction was kept

# What each bit means, for whoever shows the flags (ChainResult.FLAG_NAMES). Bits 8 and 16 name no joint: the
# flags do not say which joint sits on its limit.
CHAIN_FLAGS = FlagTable("chain", (
    FlagName(CLAMPED_OUTER, "clamped_outer", "target at or beyond full reach: solved on the reach circle"),
    FlagName(CLAMPED_INNER, "clamped_inner", "target inside the inner ring the chain cannot fold to"),
    FlagName(SOFTENED, "softened", "soft IK compressed the distance"),
    FlagName(LIMITED, "limited", "at least one joint ends the frame on one of its limits"),
    FlagName(LIMIT_BLOCKED, "limit_blocked", "a limit is active and the tip misses the solved target"),
    FlagName(ROOT_MOVED, "root_moved", "move_root offset the root"),
    FlagName(STRETCHED, "stretched", "stretch scaled the bones"),
    FlagName(DIRECTION_HELD, "direction_held", "zero distance inside the inner ring: the previous direction was kept"),
))


@dataclass(frozen=True)
class ChainState:
    """What a frame hands to the next one (pass it as ``previous=`` to continue a live preview).

    ``angles`` (n,) radians, same convention as the result: the last frame's pose after the method's sweeps
    (before the polish), which is what the next frame warm-starts from; ``direction`` (2,) unit vector of the last
    non-zero root->target direction (used when a target sits exactly on the root); ``root_offset`` the last
    frame's unsmoothed ``move_root`` offset (the smoothing's history).
    """

    angles: FloatArray
    direction: FloatArray
    root_offset: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class ChainResult:
    """Per-frame result of :func:`solver.solve_ccd` / :func:`solver.solve_fabrik` (N frames, n bones).

    ``angles`` (N, n) radians: first from +x, others relative to the parent. ``joints`` (N, n+1, 2): root,
    joints and tip by forward kinematics, including the strategy's root offset and stretch. ``end`` (N, 2)
    tip. ``error`` (N,) distance from ``end`` to the raw target; ``error_solved`` (N,) distance to
    ``solved_target`` (N, 2), the clamped/softened target the solver aimed at. ``iterations`` (N,) sweeps
    (CCD) or backward+forward passes (FABRIK) used; 0 when the warm start already met the tolerance or the
    straight chain was exact. ``converged`` (N,) ``error_solved <= tolerance * L``. ``flags`` (N,) bit field
    (module constants, named by ``FLAG_NAMES``). ``root_offset`` (N, 2) length units, ``stretch`` (N,) factor.
    ``state`` continues the solve in a later call (``previous=state``) exactly as if the frames had been solved
    in one call.
    """

    FLAG_NAMES: ClassVar[FlagTable] = CHAIN_FLAGS  # what the bits of ``flags`` mean

    angles: FloatArray
    joints: FloatArray
    end: FloatArray
    error: FloatArray
    error_solved: FloatArray
    solved_target: FloatArray
    iterations: IntArray
    converged: BoolArray
    flags: IntArray
    root_offset: FloatArray
    stretch: FloatArray
    state: ChainState

