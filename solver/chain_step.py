"""From sampled world matrices to solved chain poses, and from those to the values of the channels a chain owns.

Pure code on plain data (:class:`ChainDescription`, numpy arrays): the Blender layer samples the matrices and
writes the channel values, this module does everything in between. The bake (many frames) and the Solve
operator / live preview (one frame) go through :func:`solve_chain`, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import ChainResult, JointLimits, TwoBoneResult, solve_ccd, solve_fabrik
from .chain_data import ChainSamples as ChainSamples  # re-exported: the step's public data
from .chain_data import ChainSolution as ChainSolution
from .chain_description import ChainDescription, ChainSettings
from .chain_maps import ShoulderMaps, inverted, points_of, stacked
from .chain_results import ERROR_RESOLUTION as ERROR_RESOLUTION  # re-exported (rigging reads it here)
from .chain_results import ChainInputs, solutions
from .smoothing import TargetFilter, make_filter
from .stretch import scale_targets
from .two_bone.batch import ChainCall, solve_two_bone_chains

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

STRATEGIES = {"ACCEPT": "accept", "MOVE_ROOT": "move_root", "STRETCH": "stretch"}
# Frames x chains whose matrices one solve_chains pass stacks (each stack (rows, 4, 4) float64: 12.8 MB; a crowd
# of 32 chains x 2,000 frames in one pass).
ROWS_AT_ONCE = 100_000
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


class _Memo:
    """Per solve: what a chain computes of a sampled matrix stack, once for every chain that shares the array (the
    chains of one armature share its samples)."""

    def __init__(self) -> None:
        self.finite: dict[int, BoolArray | bool] = {}
        self.constant: dict[int, FloatArray] = {}

    def finite_rows(self, m: FloatArray | None) -> BoolArray | bool:
        """:func:`finite_rows`, once per array."""
        if m is None:
            return True
        if id(m) not in self.finite:
            self.finite[id(m)] = finite_rows(m)
        return self.finite[id(m)]

    def filled(self, m: FloatArray, valid: BoolArray) -> FloatArray:
        """``_constant(forward_fill(m, valid))``, once per array when every frame is valid."""
        if not valid.all():
            return _constant(forward_fill(m, valid))
        if id(m) not in self.constant:
            self.constant[id(m)] = _constant(m)
        return self.constant[id(m)]


def _valid_frames(frames: FloatArray, samples: ChainSamples, index: int, memo: _Memo) -> BoolArray:
    """Frames whose inputs are all finite; raises :class:`NoFiniteFrame` (chain ``index``) when there is none."""
    valid = np.asarray(memo.finite_rows(samples.armature) & memo.finite_rows(samples.target)
                       & memo.finite_rows(samples.parent) & memo.finite_rows(samples.pole), dtype=bool)
    valid = valid.copy() if valid.shape == frames.shape else np.broadcast_to(valid, frames.shape).copy()
    if not valid.any():
        named = (("target", samples.target), ("pole", samples.pole), ("armature", samples.armature),
                 ("parent", samples.parent))
        raise NoFiniteFrame(tuple(name for name, m in named if not np.all(finite_rows(m))), index)
    return valid


def _inputs(rig: ChainDescription, frames: FloatArray, samples: ChainSamples, valid: BoolArray, arm: FloatArray,
            arm_inv: FloatArray) -> ChainInputs:
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
    return ChainInputs(valid=valid, arm=arm, base=base, parent_frame=parent_frame,
                       pole=None if samples.pole is None else forward_fill(samples.pole, valid)[:, :3, 3])


def _filled_targets(raw: FloatArray, valid: Sequence[BoolArray]) -> FloatArray:
    """The (3, K, N) world target planes each chain aims at: ``raw`` with its invalid frames filled."""
    if all(bool(v.all()) for v in valid):
        return raw
    filled = raw.copy()
    for k, v in enumerate(valid):
        filled[:, k] = forward_fill(raw[:, k].T, v).T
    return filled


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
    memo = _Memo()
    # Chain by chain, every read of its sampled matrices together (while they are in cache): a crowd's samples
    # are several times the cache, and each pass over them costs about as much as the arithmetic after.
    target_planes = np.empty((3, len(samples), n_frames))
    valid, arms = [], []
    for k, s in enumerate(samples):
        valid.append(_valid_frames(frames, s, k, memo))
        arms.append(memo.filled(s.armature, valid[-1]))
        target_planes[:, k] = s.target[:, :3, 3].T  # a copy: a view would keep all the samples alive
    aimed = _filled_targets(target_planes, valid)
    arm = stacked(arms)
    arm_inv = inverted(arm)
    inputs = [_inputs(rig, frames, s, v, a, arm_inv[k, :len(a)])
              for k, (rig, s, v, a) in enumerate(zip(rigs, samples, valid, arms, strict=True))]
    maps = ShoulderMaps.of(arm, arm_inv, stacked([c.base for c in inputs]), rigs)
    targets = maps.planes_to_2d(aimed, slice(None))
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
    results: list[TwoBoneResult | ChainResult] = [
        two_bone[k] if k in two_bone else _solve_chain_solver(rig, reach[k][0], float(world_scale[k]), fps,
                                                              before[k], smooth_root)
        for k, rig in enumerate(rigs)]
    k_reach = [r[2] for r in reach]

    def to_world(points: Sequence[FloatArray]) -> FloatArray:
        """(3, K, N) world positions of each chain's shoulder-space points, scaled back by stretch to reach."""
        scaled = np.empty((len(points), n_frames, 2))
        for k, (p, k_r) in enumerate(zip(points, k_reach, strict=True)):
            np.multiply(np.reshape(p, (n_frames, 2)), 1.0 if k_r is None else k_r[:, None], out=scaled[k])
        return maps.to_world_planes(scaled)

    tip_planes = to_world([r.end for r in results])
    # Nothing a bake writes reads the solved target (the overlay does, from the live preview's one frame).
    solved_world = (points_of(to_world([r.solved_target for r in results])) if solved_targets
                    else np.broadcast_to(np.nan, (len(rigs), n_frames, 3)))
    per_world_unit = ([_sensitivity(r, n_frames, float(w)) for r, w in zip(results, world_scale, strict=True)]
                      if sensitivity else None)
    return solutions(rigs, frames, inputs, results, per_world_unit, tip_planes, target_planes, solved_world,
                     world_scale, k_reach)


def _sensitivity(result: TwoBoneResult | ChainResult, n_frames: int, world_scale: float) -> FloatArray:
    """(N,) a two-bone result's sensitivity per world unit; zeros for CCD/FABRIK (not reported)."""
    if isinstance(result, TwoBoneResult):
        out: FloatArray = np.reshape(result.sensitivity, -1) / max(world_scale, 1e-12)
        return out
    return np.zeros(n_frames)


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


def _solve_chain_solver(rig: ChainDescription, targets: FloatArray, world_scale: float, fps: float,
                        previous: Any, smooth_root: bool) -> ChainResult:
    """A CCD or FABRIK chain's solver call on its shoulder-space targets."""
    s = rig.settings
    solve = solve_ccd if s.solver == "CCD" else solve_fabrik
    result = solve(targets, rig.lengths, limits=chain_limits_of(rig), bend=int(s.bend),
                   initial_angles=rig.rest_angles.copy(), previous=previous,
                   root_smoothing=int(s.root_smoothing) if smooth_root else 0, softness=float(s.softness),
                   smoothing=target_filter(s, fps), **strategy_options(s, world_scale))
    return result
