"""What a two-bone solve returns: per-frame arrays, flags and the state that chains one solve to the next."""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from .flag_table import FlagName, FlagTable
from .sensitivity import angle_sensitivity, soft_chain_factor

FloatArray = NDArray[np.float64]
FlagArray = NDArray[np.uint16]
BendArray = NDArray[np.int8]


class IKFlag(enum.IntFlag):
    """Per-frame bit field (``result.flags``), values fixed by docs/design.md."""

    NONE = 0
    CLAMPED_OUTER = 1  # the hard clamp at a+b-eps moved the distance
    CLAMPED_INNER = 2  # the hard clamp at |a-b|+eps moved the distance
    SOFTENED = 4  # outer or inner soft IK compressed the distance
    LIMITED_SHOULDER = 8  # the shoulder limit changed the analytic shoulder angle
    LIMITED_ELBOW = 16  # the elbow limit changed the analytic elbow angle
    ROOT_MOVED = 32  # move_root: the frame's root offset is non-zero
    STRETCHED = 64  # stretch: the frame's bone scale differs from 1
    DIRECTION_HELD = 128  # target (numerically) at the shoulder: previous direction kept
    STRETCHED_TO_REACH = 256  # stretch to reach scaled the chain (solver.stretch, composed around the solve)


LIMITED = IKFlag.LIMITED_SHOULDER | IKFlag.LIMITED_ELBOW
STRATEGY_APPLIED = IKFlag.ROOT_MOVED | IKFlag.STRETCHED

# Set by stretch to reach (solver.stretch), which is composed around every solver: CCD/FABRIK flags carry it too.
REACH_FLAG = FlagName(int(IKFlag.STRETCHED_TO_REACH), "stretched_to_reach",
                      "stretch to reach scaled the bones so the tip gets closer to the target")
# What each IKFlag bit means, for whoever shows the flags (TwoBoneResult.FLAG_NAMES).
TWO_BONE_FLAGS = FlagTable("two_bone", (
    FlagName(int(IKFlag.CLAMPED_OUTER), "clamped_outer", "target beyond full reach: clamped at full extension"),
    FlagName(int(IKFlag.CLAMPED_INNER), "clamped_inner", "target inside the inner ring: clamped at full fold"),
    FlagName(int(IKFlag.SOFTENED), "softened", "soft IK compressed the distance"),
    FlagName(int(IKFlag.LIMITED_SHOULDER), "limited_shoulder", "the shoulder limit changed the shoulder angle",
             joint="shoulder"),
    FlagName(int(IKFlag.LIMITED_ELBOW), "limited_elbow", "the elbow limit changed the elbow angle", joint="elbow"),
    FlagName(int(IKFlag.ROOT_MOVED), "root_moved", "move_root offset the root"),
    FlagName(int(IKFlag.STRETCHED), "stretched", "stretch scaled the bones"),
    FlagName(int(IKFlag.DIRECTION_HELD), "direction_held", "target on the shoulder: the previous direction was kept"),
    REACH_FLAG,
))


@dataclass(frozen=True)
class SolverState:
    """Continuity carried from the last solved frame into the next solve (live preview, chunked bakes).

    ``direction``: unit shoulder->target direction of the last frame (used when the next target sits on the
    shoulder). ``bend``: last frame's bend side (+1/-1), the fallback of pole hysteresis.
    ``root_offset``: last frame's root offset (length units), the history of the move_root smoothing filter.
    """

    direction: tuple[float, float] = (1.0, 0.0)
    bend: int = 1
    root_offset: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class TwoBoneResult:
    """Per-frame output of :func:`solver.solve_two_bone`.

    Arrays have a leading frame axis of length N; for a single target of shape ``(2,)`` that axis is dropped
    (0-d arrays and ``(2,)`` points). Angles in radians, positions and distances in the targets' length units,
    all in shoulder space (shoulder at the origin before any root offset).

    - ``shoulder_angle``: upper bone direction from +x, counter-clockwise. Wrapped to (-pi, pi] without
      shoulder limits; inside ``[min, max]`` of the shoulder limit otherwise.
    - ``elbow_angle``: lower bone rotation relative to the upper bone (0 = straight), in [-pi, pi].
    - ``elbow``, ``end``: elbow and tip positions recomputed by forward kinematics from the final angles,
      bone lengths times ``stretch``, plus ``root_offset``.
    - ``target``: the target the solver aimed at (after the optional smoothing filter);
      ``input_target``: the caller's target (before smoothing).
    - ``solved_target``: ``target`` after clamping/softening of its distance, along the (held) direction.
    - ``error``: ``|end - input_target|`` (the raw target, before smoothing). ``error_solved``:
      ``|end - solved_target|``. Both are measured on the FK tip ``end``; computed on first access.
    - ``distance``: raw shoulder->target distance; ``solved_distance``: after soft IK and clamping.
    - ``flags``: :class:`IKFlag` bits per frame. ``bend``: the side used per frame (+1/-1).
    - ``sensitivity``: largest singular value of d(shoulder, elbow)/d(target) of the analytic solution, in
      radians per length unit (see :mod:`solver.sensitivity`); computed on first access from ``distance``,
      ``solved_distance`` and ``sensitivity_params`` = (a, b, outer soft width, inner soft width,
      zero_distance), so a bake that never reads it does not pay for it.
    - ``root_offset`` (N, 2): shoulder displacement applied by ``move_root``; ``stretch`` (N,): bone scale
      applied by ``stretch``.
    - ``state``: :class:`SolverState` of the last frame, to pass as ``previous=`` to the next solve.
    """

    FLAG_NAMES: ClassVar[FlagTable] = TWO_BONE_FLAGS  # what the bits of ``flags`` mean

    shoulder_angle: FloatArray
    elbow_angle: FloatArray
    elbow: FloatArray
    end: FloatArray
    target: FloatArray
    input_target: FloatArray
    solved_target: FloatArray
    distance: FloatArray
    solved_distance: FloatArray
    flags: FlagArray
    bend: BendArray
    root_offset: FloatArray
    stretch: FloatArray
    state: SolverState
    sensitivity_params: tuple[float, float, float, float, float]

    @functools.cached_property
    def error(self) -> FloatArray:
        """``|end - input_target|`` per frame (length units)."""
        return _distance(self.end, self.input_target)

    @functools.cached_property
    def error_solved(self) -> FloatArray:
        """``|end - solved_target|`` per frame (length units): floating-point level unless a limit acted."""
        return _distance(self.end, self.solved_target)

    @functools.cached_property
    def sensitivity(self) -> FloatArray:
        """Local amplification |d angles / d target|, radians per length unit (:mod:`solver.sensitivity`)."""
        a, b, outer_width, inner_width, zero = self.sensitivity_params
        k = soft_chain_factor(self.distance, a, b, outer_width, inner_width)
        return angle_sensitivity(self.distance, self.solved_distance, k, a, b, zero)

    def _has(self, bits: IKFlag) -> NDArray[np.bool_]:
        return np.asarray((self.flags & np.uint16(bits)) != 0)

    @property
    def clamped_outer(self) -> NDArray[np.bool_]:
        """Frames where the outer hard clamp acted."""
        return self._has(IKFlag.CLAMPED_OUTER)

    @property
    def clamped_inner(self) -> NDArray[np.bool_]:
        """Frames where the inner hard clamp acted."""
        return self._has(IKFlag.CLAMPED_INNER)

    @property
    def softened(self) -> NDArray[np.bool_]:
        """Frames whose distance soft IK compressed."""
        return self._has(IKFlag.SOFTENED)

    @property
    def limited(self) -> NDArray[np.bool_]:
        """Frames where a shoulder or elbow limit changed the analytic angles."""
        return self._has(LIMITED)

    @property
    def strategy_applied(self) -> NDArray[np.bool_]:
        """Frames where move_root or stretch changed the chain."""
        return self._has(STRATEGY_APPLIED)

    @property
    def direction_held(self) -> NDArray[np.bool_]:
        """Frames whose target sat on the shoulder, solved along the previous direction."""
        return self._has(IKFlag.DIRECTION_HELD)


_BLOCK = 8192  # rows per pass: temporaries stay in cache and no large scratch array is allocated


def _distance(p: FloatArray, q: FloatArray) -> FloatArray:
    """``|p - q|`` over the last axis of two ``(..., 2)`` point arrays.

    C-contiguous ``(N, 2)`` float64 rows are read as complex numbers: ``abs`` is then one SIMD pass (and
    safe from overflow), where a sum over an axis of length 2 costs several times more.
    """
    if p.ndim != 2 or not (_complex_rows(p) and _complex_rows(q)) or p.shape != q.shape:
        diff = p - q
        return np.asarray(np.sqrt(np.sum(diff * diff, axis=-1)))
    n = p.shape[0]
    out = np.empty(n)
    pz = p.view(np.complex128)[:, 0]
    qz = q.view(np.complex128)[:, 0]
    scratch = np.empty(min(n, _BLOCK), dtype=np.complex128)
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        diff = np.subtract(pz[start:stop], qz[start:stop], out=scratch[: stop - start])
        np.abs(diff, out=out[start:stop])
    return out


def _complex_rows(x: FloatArray) -> bool:
    return x.dtype == np.float64 and x.shape[-1] == 2 and x.flags.c_contiguous
