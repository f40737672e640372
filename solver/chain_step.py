"""From sampled world matrices to solved chain poses, and from those to the values of the channels a chain owns.

Pure code on plain data (:class:`ChainDescription`, numpy arrays): the Blender layer samples the matrices and
writes the channel values, this module does everything in between. The bake (many frames) and the Solve
operator / live preview (one frame) go through :func:`solve_chain`, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import ChainResult, JointLimits, TwoBoneResult, solve_ccd, solve_fabrik
from .chain_data import ChainSamples as ChainSamples  # re-exported: the step's public data
from .chain_data import ChainSolution as ChainSolution
from .chain_description import ChainDescription, ChainSettings
from .chain_maps import ShoulderMaps, inverted, stacked
from .smoothing import TargetFilter, make_filter
from .stretch import scale_targets, stretched_flags, volume_factor
from .two_bone.batch import ChainCall, solve_two_bone_chains

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

STRATEGIES = {"ACCEPT": "accept", "MOVE_ROOT": "move_root", "STRETCH": "stretch"}
# Tip-to-target distances below this fraction of the chain length are keyed (and reported) as 0: it is float32
# resolution, the precision of the keys and of Blender's evaluated pose (whose tip lands ~1e-7 L from ours).
ERROR_RESOLUTION = 1e-7
# Frames x chains whose matrices one solve_chains pass stacks (each stack (rows, 4, 4) float64: 6.4 MB).
ROWS_AT_ONCE = 50_000
# Blender clamps an infinite key value to the float32 maximum: treat such magnitudes as non-finite too.
NON_FINITE = 1e30


class NoFiniteFrame(ValueError):
    """No frame has finite inputs. ``inputs`` names the ones that are not finite on some frame, among
    ``"target"``, ``"pole"``, ``"armature"`` and ``"parent"``; ``chain`` is the chain's index in the solve.
    The Blender layer words the message."""

    def __init__(self, inputs: tuple[str, ...], chain: int = 0) -> None:
        super().__init__(f"chain {chain}: no frame has finite inputs: " + ", ".join(inputs))
        self.inputs = inputs
        self.chain = chain


def forward_fill(values: FloatArray, valid: BoolArray) -> FloatArray:
    """Replace rows of invalid frames by the last valid row (the first valid one before any), for continuity."""
    if valid.all():
        return values
    idx = np.where(valid, np.arange(len(valid)), 0)
    np.maximum.accumulate(idx, out=idx)
    first = int(np.argmax(valid))
    idx[: first] = first
    return values[idx]


def _constant(m: FloatArray) -> FloatArray:
    """``m[:1]`` when every frame's matrix is the same (a static armature or parent), so the per-frame matrix
    work and memory of long bakes is spent only on what moves."""
    return m[:1] if len(m) > 1 and bool((m == m[0]).all()) else m


def finite_rows(m: FloatArray | None) -> BoolArray | bool:
    """Per frame, whether every entry of ``m`` is finite (True for a missing input)."""
    if m is None:
        return True
    # Two reductions without temporaries settle the usual case (a NaN fails them: its max is NaN).
    if -NON_FINITE < float(m.min()) and float(m.max()) < NON_FINITE:
        return np.ones(len(m), dtype=bool)
    return np.asarray((np.abs(m.reshape(len(m), -1)) < NON_FINITE).all(axis=1))


def limits_of(rig: ChainDescription) -> JointLimits | None:
    """The two-bone solver's joint limits: the shoulder from the upper bone's rest direction."""
    s = rig.settings
    shoulder = elbow = None
    if s.use_shoulder_limit:
        r = float(rig.rest_angles[0])
        shoulder = (r + s.shoulder_min, r + s.shoulder_max)
    if s.use_elbow_limit:
        elbow = (float(s.elbow_min), float(s.elbow_max))
    if shoulder is None and elbow is None:
        return None
    return JointLimits(shoulder=shoulder, elbow=elbow)


def chain_limits_of(rig: ChainDescription) -> FloatArray | None:
    """Per-joint limits for CCD/FABRIK: the upper joint from its rest direction, every other one like the
    elbow (relative, 0 = straight)."""
    s = rig.settings
    if not (s.use_shoulder_limit or s.use_elbow_limit):
        return None
    n = len(rig.bone_names)
    lim = np.tile([-np.inf, np.inf], (n, 1))
    if s.use_shoulder_limit:
        lim[0] = rig.rest_angles[0] + np.array([s.shoulder_min, s.shoulder_max])
    if s.use_elbow_limit:
        lim[1:] = [s.elbow_min, s.elbow_max]
    return lim


def strategy_options(s: ChainSettings, world_scale: float) -> dict[str, Any]:
    """The limit strategy's keyword arguments for the two-bone, CCD and FABRIK solvers.

    Args:
        s: the chain's settings.
        world_scale: world length of one shoulder-space unit (Move Root's offset bound is given in world units).

    Returns:
        ``strategy``, ``max_root_offset`` (shoulder-space units) and ``stretch_range``.
    """
    return {
        "strategy": STRATEGIES[s.limit_strategy],
        # The solve runs in the upper bone's rest units: convert the world-space offset bound.
        "max_root_offset": float(s.max_root_offset) / max(world_scale, 1e-12),
        "stretch_range": (float(s.stretch_min), float(s.stretch_max)),
    }


def target_filter(s: ChainSettings, fps: float) -> TargetFilter | None:
    """The chain's target filter at ``fps`` frames per second, or None."""
    if s.smoothing == "NONE":
        return None
    if s.smoothing == "EXPONENTIAL":
        # A one-pole low-pass with cutoff fc has time constant 1/(2 pi fc) seconds.
        return make_filter("exponential", time_constant=fps / (2 * np.pi * float(s.smoothing_cutoff)))
    return make_filter("one_euro", rate=fps, min_cutoff=float(s.smoothing_cutoff),
                       beta=float(s.smoothing_beta))


def solve_chain(rig: ChainDescription, frames: FloatArray, samples: ChainSamples, *, fps: float = 24.0,
                previous: Any = None, smooth_root: bool = True) -> ChainSolution:
    """Solve one chain over ``frames``: :func:`solve_chains` for one chain (``previous``: its state or None)."""
    return solve_chains([rig], frames, [samples], fps=fps, previous=[previous], smooth_root=smooth_root)[0]


@dataclass(frozen=True)
class _Inputs:
    """One chain's inputs after the invalid frames are filled: matrices keep one row when they do not move."""

    valid: BoolArray
    arm: FloatArray  # (1 or N, 4, 4)
    base: FloatArray  # (1 or N, 4, 4) the shoulder frame in armature space
    parent_frame: FloatArray  # ``base`` before the upper bone's own location
    target_world: FloatArray  # (N, 3) raw, for the error
    target: FloatArray  # (N, 3) world, filled
    pole: FloatArray | None  # (N, 3) world, filled


def _valid_frames(frames: FloatArray, samples: ChainSamples, index: int) -> BoolArray:
    """Frames whose inputs are all finite; raises :class:`NoFiniteFrame` (chain ``index``) when there is none."""
    valid = np.asarray(finite_rows(samples.armature) & finite_rows(samples.target)
                       & finite_rows(samples.parent) & finite_rows(samples.pole), dtype=bool)
    valid = np.broadcast_to(valid, frames.shape).copy()
    if not valid.any():
        named = (("target", samples.target), ("pole", samples.pole), ("armature", samples.armature),
                 ("parent", samples.parent))
        raise NoFiniteFrame(tuple(name for name, m in named if not np.all(finite_rows(m))), index)
    return valid


def _inputs(rig: ChainDescription, frames: FloatArray, samples: ChainSamples, valid: BoolArray, arm: FloatArray,
            arm_inv: FloatArray) -> _Inputs:
    """One chain's filled inputs and shoulder frame; ``arm`` its filled armature matrices, ``arm_inv`` their
    inverses."""
    if samples.parent is None:
        base = rig.upper_rest[None]
    else:
        base = _constant(arm_inv @ forward_fill(samples.parent, valid)) @ rig.parent_to_upper
    parent_frame = base
    if samples.upper_location is not None:
        # The upper bone's own pose location shifts the shoulder: base @ Translation(location).
        base = np.array(np.broadcast_to(base, (len(frames), 4, 4)))
        base[:, :3, 3] += np.einsum("nij,nj->ni", base[:, :3, :3], forward_fill(samples.upper_location, valid))
    return _Inputs(valid=valid, arm=arm, base=base, parent_frame=parent_frame,
                   # Copies: a view would keep all the (N, 4, 4) samples alive.
                   target_world=samples.target[:, :3, 3].copy(),
                   target=forward_fill(samples.target, valid)[:, :3, 3],
                   pole=None if samples.pole is None else forward_fill(samples.pole, valid)[:, :3, 3])


def solve_chains(rigs: Sequence[ChainDescription], frames: FloatArray, samples: Sequence[ChainSamples], *,
                 fps: float = 24.0, previous: Sequence[Any] | None = None,
                 smooth_root: bool = True, sensitivity: bool = True,
                 solved_targets: bool = True) -> list[ChainSolution]:
    """Solve several chains over the same ``frames`` (time order) from their sampled world matrices.

    The matrix work from world space to every chain's shoulder space and back is done for all chains at once
    (it is most of a chain's cost: many small array operations); each chain's own solver call follows its
    settings.

    Args:
        rigs: the chains.
        frames: (N,) scene frames, in time order.
        samples: per chain, the world matrices of those frames.
        fps: frames per second (the target filter's time base).
        previous: per chain, the solver state of an earlier solve (``ChainSolution.state``) or None.
        smooth_root: False: Move Root's offset is neither smoothed over frames nor blended with ``previous``'s
            (the live preview: its previous solve may be another frame, the same frame before a drag, or
            another strategy, so blending made the offset lag and depend on that history).
        sensitivity: False: report none (zeros). A bake keys no sensitivity, and it costs about a quarter of
            a two-bone solve.
        solved_targets: False: ``solved_target_world`` is a read-only NaN view (no memory), not computed.

    Returns:
        One solution per chain; frames with non-finite inputs are marked invalid and solved as the last valid
        one.

    Raises:
        NoFiniteFrame: a chain has no frame with finite inputs (the first such chain).
    """
    n_frames = len(frames)
    per_call = max(1, ROWS_AT_ONCE // max(n_frames, 1))
    if len(rigs) > per_call:
        # Long bakes: a few chains at a time, so the stacked per-frame matrices stay small in memory.
        out: list[ChainSolution] = []
        for start in range(0, len(rigs), per_call):
            part = slice(start, start + per_call)
            try:
                out += solve_chains(rigs[part], frames, samples[part], fps=fps, smooth_root=smooth_root,
                                    previous=None if previous is None else previous[part], sensitivity=sensitivity,
                                    solved_targets=solved_targets)
            except NoFiniteFrame as err:
                raise NoFiniteFrame(err.inputs, err.chain + start) from err
        return out
    valid = [_valid_frames(frames, s, k) for k, s in enumerate(samples)]
    arms = [_constant(forward_fill(s.armature, v)) for s, v in zip(samples, valid, strict=True)]
    arm = stacked(arms)
    arm_inv = inverted(arm)
    inputs = [_inputs(rig, frames, s, v, a, arm_inv[k, :len(a)])
              for k, (rig, s, v, a) in enumerate(zip(rigs, samples, valid, arms, strict=True))]
    maps = ShoulderMaps.of(arm, arm_inv, stacked([c.base for c in inputs]), rigs)
    targets = maps.to_2d(np.stack([c.target for c in inputs]), slice(None))
    with_pole = [k for k, c in enumerate(inputs) if c.pole is not None]
    poles: list[FloatArray | None] = [None] * len(rigs)
    if with_pole:
        mapped = maps.to_2d(np.stack([p for p in (inputs[k].pole for k in with_pole) if p is not None]), with_pole)
        for k, p2 in zip(with_pole, mapped, strict=True):
            poles[k] = p2
    world_scale = maps.world_scale()

    # Stretch to reach: each such chain's solver sees its targets scaled by 1/k; its pose is scaled back below.
    reach = [_reach_inputs(rig, targets[k], poles[k]) for k, rig in enumerate(rigs)]
    before = [None] * len(rigs) if previous is None else previous
    # Every two-bone chain in one solver call (its kernel passes shared by the chains' frames).
    calls = {k: _two_bone_call(rig, reach[k][0], reach[k][1], float(world_scale[k]), fps, before[k], smooth_root)
             for k, rig in enumerate(rigs) if rig.two_bone}
    two_bone = dict(zip(calls, solve_two_bone_chains(list(calls.values())), strict=True))
    results: list[tuple[TwoBoneResult | ChainResult, tuple[FloatArray, FloatArray]]] = [
        (two_bone[k], _two_bone_outputs(two_bone[k], n_frames, float(world_scale[k]), sensitivity)) if k in two_bone
        else _solve_chain_solver(rig, reach[k][0], float(world_scale[k]), fps, before[k], smooth_root)
        for k, rig in enumerate(rigs)]
    k_reach = [r[2] for r in reach]

    def to_world(points: Sequence[FloatArray]) -> FloatArray:
        """(K, N, 3) world positions of each chain's shoulder-space points, scaled back by stretch to reach."""
        return maps.to_world(np.stack([np.reshape(p, (n_frames, 2)) * (1.0 if k is None else k[:, None])
                                       for p, k in zip(points, k_reach, strict=True)]))

    tip_world = to_world([r.end for r, _ in results])
    # Nothing a bake writes reads the solved target (the overlay does, from the live preview's one frame).
    solved_world = (to_world([r.solved_target for r, _ in results]) if solved_targets
                    else np.broadcast_to(np.nan, (len(rigs), n_frames, 3)))
    return [_solution(rig, frames, c, result, angles_sensitivity, tip_world[k], solved_world[k],
                      float(world_scale[k]), k_reach[k])
            for k, (rig, c, (result, angles_sensitivity)) in enumerate(zip(rigs, inputs, results, strict=True))]


def _reach_inputs(rig: ChainDescription, targets: FloatArray, pole: FloatArray | None
                  ) -> tuple[FloatArray, FloatArray | None, FloatArray | None]:
    """``(targets / k, pole / k, k)`` for a chain with stretch to reach (:mod:`solver.stretch`; ``k``: (N,)),
    the inputs and None otherwise."""
    s = rig.settings
    if not s.stretch_to_reach:
        return targets, pole, None
    total = rig.total_length
    scaled, k = scale_targets(targets, total, min(float(s.softness), 0.999) * total, float(s.max_stretch))
    k = np.reshape(k, -1)
    return scaled.reshape(targets.shape), None if pole is None else pole / k[:, None], k


def _two_bone_call(rig: ChainDescription, targets: FloatArray, pole: FloatArray | None, world_scale: float,
                   fps: float, previous: Any, smooth_root: bool) -> ChainCall:
    """A two-bone chain's solver arguments on its shoulder-space targets (one frame, as the live preview and
    the Solve operator ask, takes the solver's scalar path: ~10x less overhead)."""
    s = rig.settings
    a, b = (float(v) for v in rig.lengths)
    single = len(targets) == 1
    return ChainCall(targets=targets[0] if single else targets, a=a, b=b, bend=int(s.bend),
                     pole=None if pole is None else (pole[0] if single else pole), softness=float(s.softness),
                     inner_softness=float(s.inner_softness), limits=limits_of(rig), smoothing=target_filter(s, fps),
                     previous=previous, root_smoothing=int(s.root_smoothing) if smooth_root else 0,
                     **strategy_options(s, world_scale))


def _two_bone_outputs(result: TwoBoneResult, n_frames: int, world_scale: float, want_sensitivity: bool
                      ) -> tuple[FloatArray, FloatArray]:
    """(angles (N, 2), sensitivity (N,) per world unit, zeros unless wanted) of a two-bone result."""
    angles = np.stack([np.reshape(result.shoulder_angle, -1), np.reshape(result.elbow_angle, -1)], axis=1)
    sensitivity = (np.reshape(result.sensitivity, -1) / max(world_scale, 1e-12) if want_sensitivity
                   else np.zeros(n_frames))
    return angles, sensitivity


def _solve_chain_solver(rig: ChainDescription, targets: FloatArray, world_scale: float, fps: float,
                        previous: Any, smooth_root: bool) -> tuple[ChainResult, tuple[FloatArray, FloatArray]]:
    """A CCD or FABRIK chain's solver call on its shoulder-space targets, with (angles, zero sensitivity)."""
    s = rig.settings
    solve = solve_ccd if s.solver == "CCD" else solve_fabrik
    result = solve(targets, rig.lengths, limits=chain_limits_of(rig), bend=int(s.bend),
                   initial_angles=rig.rest_angles.copy(), previous=previous,
                   root_smoothing=int(s.root_smoothing) if smooth_root else 0, softness=float(s.softness),
                   smoothing=target_filter(s, fps), **strategy_options(s, world_scale))
    return result, (result.angles, np.zeros(len(targets)))


def _unwrapped(deltas: FloatArray) -> FloatArray:
    """``np.unwrap(deltas, axis=0)``; where no step reaches pi (the usual bake) only its exact ``+ 0.0`` is
    applied, without its dozen full-array passes."""
    if bool((np.abs(np.diff(deltas, axis=0)) < np.pi).all()):
        deltas[1:] += 0.0  # what np.unwrap adds there (a -0.0 becomes +0.0, as it does)
        return deltas
    out: FloatArray = np.unwrap(deltas, axis=0)
    return out


def _solution(rig: ChainDescription, frames: FloatArray, c: _Inputs, result: TwoBoneResult | ChainResult,
              angles_sensitivity: tuple[FloatArray, FloatArray], tip_world: FloatArray, solved_world: FloatArray,
              world_scale: float, k_reach: FloatArray | None = None) -> ChainSolution:
    n_frames = len(frames)
    angles, sensitivity = angles_sensitivity
    deltas = angles - rig.rest_angles
    if n_frames > 1:
        deltas = _unwrapped(deltas)
    root_offset = np.reshape(result.root_offset, (n_frames, 2)) @ rig.axes_2d
    stretch = np.broadcast_to(np.asarray(result.stretch, dtype=np.float64), (n_frames,)).copy()
    flags = np.reshape(result.flags, -1).astype(np.int64)
    scale = None
    if k_reach is not None:
        root_offset = root_offset * k_reach[:, None]
        if rig.settings.preserve_volume:
            # Thin across the bone (x, z) by 1/sqrt(k), along it (y) by k; the strategy's uniform scale on top.
            across = stretch * volume_factor(k_reach)
            scale = np.stack([across, stretch * k_reach, across], axis=1)
        stretch = stretch * k_reach
        flags |= stretched_flags(k_reach)
    miss = (tip_world - c.target_world).T
    # np.linalg.norm(axis=1)'s sum in its order (x, then y, then z; numpy 1.26 to 2.x), on whole coordinate rows:
    # a reduction over rows of three costs ~3x more.
    error = np.sqrt(miss[0] * miss[0] + miss[1] * miss[1] + miss[2] * miss[2])
    # Below float32 resolution the figure is rounding, not a miss: keyed as 0 so a reached target gives a flat
    # curve (a few keys) instead of one key of noise per frame.
    error[error < ERROR_RESOLUTION * float(np.sum(rig.lengths)) * world_scale] = 0.0
    moved = c.base is not c.parent_frame
    return ChainSolution(frames=frames, valid=c.valid, deltas=deltas, root_offset=root_offset, stretch=stretch,
                         error=error, flags=flags, sensitivity=sensitivity, scale=scale,
                         tip_world=tip_world, target_world=c.target_world, solved_target_world=solved_world,
                         base=np.broadcast_to(c.base, (n_frames, 4, 4)), state=result.state,
                         # Copies: a view would keep every sampled matrix of the bake alive while keys are written.
                         armature_world=c.arm.copy(), parent_frame=c.parent_frame.copy() if moved else None)
