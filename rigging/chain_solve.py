"""From sampled world matrices to solved chain poses: the glue between the rig and the pure solver.

No bpy here except the types passed through; the math is the solver's. Both the bake (many frames) and the
single-frame solve / live preview (one frame) go through :func:`solve_chain`, so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import solver
from ..solver import rotations
from ..solver.ccd import solve_ccd
from ..solver.chain_common import ChainResult
from ..solver.fabrik import solve_fabrik
from ..solver.flag_names import is_two_bone
from ..solver.smoothing import TargetFilter, make_filter
from ..solver.spaces import cross, from_shoulder_2d, invert_matrices, to_shoulder_2d, transform_points
from . import messages as msg
from .messages import say
from .rig import ChainRig

STRATEGIES = {"ACCEPT": "accept", "MOVE_ROOT": "move_root", "STRETCH": "stretch"}
# Tip-to-target distances below this fraction of the chain length are keyed (and reported) as 0: it is float32
# resolution, the precision of the keys and of Blender's evaluated pose (whose tip lands ~1e-7 L from ours).
ERROR_RESOLUTION = 1e-7


@dataclass(frozen=True)
class ChainSamples:
    """World matrices over the frames, as sampled for one chain (each (N, 4, 4); parent/pole may be None)."""

    armature: np.ndarray
    target: np.ndarray
    parent: np.ndarray | None  # world matrix of the upper bone's parent pose bone
    pole: np.ndarray | None
    upper_location: np.ndarray | None = None  # (N, 3) the upper bone's own pose location, when not ours


@dataclass(frozen=True)
class ChainSolution:
    frames: np.ndarray  # (N,)
    valid: np.ndarray  # (N,) bool: frames whose inputs were all finite
    deltas: np.ndarray  # (N, n_bones) pose rotation of each bone about the plane normal, from its rest
    root_offset: np.ndarray  # (N, 3) upper bone pose location (its rest-local axes)
    stretch: np.ndarray  # (N,) uniform scale of the upper bone
    error: np.ndarray  # (N,) world-space distance from the solved tip to the raw target
    flags: np.ndarray  # (N,) solver flag bits
    sensitivity: np.ndarray  # (N,) |d angle / d target| in rad per world unit (0 where not reported)
    tip_world: np.ndarray  # (N, 3)
    target_world: np.ndarray  # (N, 3)
    solved_target_world: np.ndarray  # (N, 3) the clamped/softened target the chain reached for
    base: np.ndarray  # (N, 4, 4) armature-space shoulder frame (upper bone at rest under its parent's pose)
    state: object  # the solver's state after the last frame: pass as ``previous`` to continue (live preview)
    armature_world: np.ndarray | None = None  # (N or 1, 4, 4) the armature's world matrices the solve used
    parent_frame: np.ndarray | None = None  # (N or 1, 4, 4) ``base`` before the upper bone's own location (None:
    # the same as ``base``)


def axes_2d(rig: ChainRig) -> np.ndarray:
    """(2, 3): the shoulder space's +x and +y in the upper bone's rest-local axes."""
    n_local = rig.local_axes[0]
    x_local = np.array([0.0, 1.0, 0.0])
    return np.stack([x_local, cross(n_local, x_local)])


def _forward_fill(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Replace rows of invalid frames by the last valid row (the first valid one before any), for continuity."""
    if valid.all():
        return values
    idx = np.where(valid, np.arange(len(valid)), 0)
    np.maximum.accumulate(idx, out=idx)
    first = int(np.argmax(valid))
    idx[: first] = first
    return values[idx]


# Blender clamps an infinite key value to the float32 maximum: treat such magnitudes as non-finite too.
NON_FINITE = 1e30


def _constant(m: np.ndarray) -> np.ndarray:
    """``m[:1]`` when every frame's matrix is the same (a static armature or parent), so the per-frame matrix
    work and memory of long bakes is spent only on what moves."""
    return m[:1] if len(m) > 1 and bool((m == m[0]).all()) else m


def _finite_rows(m: np.ndarray | None) -> np.ndarray | bool:
    if m is None:
        return True
    return (np.abs(m.reshape(len(m), -1)) < NON_FINITE).all(axis=1)


def _non_finite_inputs(rig: ChainRig, samples: ChainSamples) -> str:
    """The inputs that are not finite on some frame, by name, for the message of a chain with no usable frame."""
    chain = rig.chain
    named = [(samples.target, say(msg.INPUT_TARGET, name=getattr(chain.target, "name", ""))),
             (samples.pole, say(msg.INPUT_POLE, name=getattr(chain.pole, "name", ""))),
             (samples.armature, say(msg.INPUT_ARMATURE, name=rig.armature.name)),
             (samples.parent, say(msg.INPUT_PARENT, name=rig.parent_name or ""))]
    return ", ".join(text for m, text in named if not np.all(_finite_rows(m)))


def _limits(rig: ChainRig) -> solver.JointLimits | None:
    chain = rig.chain
    shoulder = elbow = None
    if chain.use_shoulder_limit:
        r = float(rig.rest_angles[0])
        shoulder = (r + chain.shoulder_min, r + chain.shoulder_max)
    if chain.use_elbow_limit:
        elbow = (float(chain.elbow_min), float(chain.elbow_max))
    if shoulder is None and elbow is None:
        return None
    return solver.JointLimits(shoulder=shoulder, elbow=elbow)


def _chain_limits(rig: ChainRig) -> np.ndarray | None:
    """Per-joint limits for CCD/FABRIK: the upper joint from its rest direction, every other one like the
    elbow (relative, 0 = straight)."""
    chain = rig.chain
    if not (chain.use_shoulder_limit or chain.use_elbow_limit):
        return None
    n = len(rig.bone_names)
    lim = np.tile([-np.inf, np.inf], (n, 1))
    if chain.use_shoulder_limit:
        lim[0] = rig.rest_angles[0] + np.array([chain.shoulder_min, chain.shoulder_max])
    if chain.use_elbow_limit:
        lim[1:] = [chain.elbow_min, chain.elbow_max]
    return lim


def _strategy_options(rig: ChainRig, world_scale: float) -> dict[str, Any]:
    chain = rig.chain
    return {
        "strategy": STRATEGIES[chain.limit_strategy],
        # The solve runs in the upper bone's rest units: convert the world-space offset bound.
        "max_root_offset": float(chain.max_root_offset) / max(world_scale, 1e-12),
        "stretch_range": (float(chain.stretch_min), float(chain.stretch_max)),
    }


def _target_filter(rig: ChainRig, fps: float) -> TargetFilter | None:
    chain = rig.chain
    if chain.smoothing == "NONE":
        return None
    if chain.smoothing == "EXPONENTIAL":
        # A one-pole low-pass with cutoff fc has time constant 1/(2 pi fc) seconds.
        return make_filter("exponential", time_constant=fps / (2 * np.pi * float(chain.smoothing_cutoff)))
    return make_filter("one_euro", rate=fps, min_cutoff=float(chain.smoothing_cutoff),
                       beta=float(chain.smoothing_beta))


def solve_chain(rig: ChainRig, frames: np.ndarray, samples: ChainSamples, *, fps: float = 24.0,
                previous: Any = None, smooth_root: bool = True, sensitivity: bool = True) -> ChainSolution:
    """Solve one chain over ``frames`` (time order) from its sampled world matrices.

    ``smooth_root=False``: Move Root's offset is neither smoothed over frames nor blended with ``previous``'s
    (the live preview: its previous solve may be another frame, the same frame before a drag, or another
    strategy, so blending made the offset lag and depend on that history instead of matching the bake).
    ``sensitivity=False`` reports none (zeros): a bake keys no sensitivity, and it costs about a quarter of the
    two-bone solve.
    """
    valid = np.asarray(_finite_rows(samples.armature) & _finite_rows(samples.target)
                       & _finite_rows(samples.parent) & _finite_rows(samples.pole), dtype=bool)
    valid = np.broadcast_to(valid, frames.shape).copy()
    if not valid.any():
        raise ValueError(say(msg.NEVER_FINITE, label=rig.label, inputs=_non_finite_inputs(rig, samples)))

    n_frames = len(frames)
    arm = _constant(_forward_fill(samples.armature, valid))
    arm_inv = invert_matrices(arm)
    if samples.parent is None:
        base = rig.upper_rest[None]
    else:
        base = _constant(arm_inv @ _forward_fill(samples.parent, valid)) @ rig.parent_to_upper
    parent_frame = base
    if samples.upper_location is not None:
        # The upper bone's own pose location shifts the shoulder: base @ Translation(location).
        base = np.array(np.broadcast_to(base, (n_frames, 4, 4)))
        base[:, :3, 3] += np.einsum("nij,nj->ni", base[:, :3, :3], _forward_fill(samples.upper_location, valid))
    axes = axes_2d(rig)

    def to_2d(world: np.ndarray) -> np.ndarray:
        return to_shoulder_2d(transform_points(arm_inv, world), base, rig.normal, local_normal=rig.local_axes[0])

    target_world = samples.target[:, :3, 3].copy()  # a copy: a view would keep all the (N, 4, 4) samples alive
    targets = to_2d(_forward_fill(samples.target, valid)[:, :3, 3])
    pole = None if samples.pole is None else to_2d(_forward_fill(samples.pole, valid)[:, :3, 3])

    # World length of one shoulder-space unit (mean over the frames), for bounds given in world units.
    world_scale = float(np.mean(np.linalg.norm((arm[:, :3, :3] @ base[:, :3, :3]) @ axes[0], axis=1)))

    chain = rig.chain
    common: dict[str, Any] = {
        "softness": float(chain.softness),
        "smoothing": _target_filter(rig, fps),
        **_strategy_options(rig, world_scale),
    }
    root_smoothing = int(chain.root_smoothing) if smooth_root else 0
    if is_two_bone(chain.solver, len(rig.bone_names)):
        a, b = (float(x) for x in rig.lengths)
        result: solver.TwoBoneResult | ChainResult
        # One frame (the live preview, the Solve operator) takes the solver's scalar path: ~10x less overhead.
        single = n_frames == 1
        result = solver.solve_two_bone(targets[0] if single else targets, a, b, bend=int(chain.bend),
                                       pole=None if pole is None else (pole[0] if single else pole),
                                       limits=_limits(rig), inner_softness=float(chain.inner_softness),
                                       previous=previous, root_smoothing=root_smoothing, **common)
        angles = np.stack([np.reshape(result.shoulder_angle, -1), np.reshape(result.elbow_angle, -1)], axis=1)
        gain = np.reshape(result.sensitivity, -1) / max(world_scale, 1e-12) if sensitivity else np.zeros(n_frames)
    else:
        solve = solve_ccd if chain.solver == "CCD" else solve_fabrik
        initial = rig.rest_angles.copy()
        result = solve(targets, rig.lengths, limits=_chain_limits(rig), bend=int(chain.bend),
                       initial_angles=initial, previous=previous, root_smoothing=root_smoothing,
                       **common)
        angles = result.angles
        gain = np.zeros(n_frames)

    deltas = angles - rig.rest_angles
    if n_frames > 1:
        deltas = np.unwrap(deltas, axis=0)
    root_offset = np.reshape(result.root_offset, (n_frames, 2)) @ axes
    stretch = np.broadcast_to(np.asarray(result.stretch, dtype=np.float64), (n_frames,)).copy()

    def from_2d(p2: np.ndarray) -> np.ndarray:
        return transform_points(arm, from_shoulder_2d(p2, base, rig.normal, local_normal=rig.local_axes[0]))

    ends = np.reshape(result.end, (n_frames, 2))
    reached = np.reshape(result.solved_target, (n_frames, 2))
    if len(base) == 1 and len(arm) == 1:
        # Static frames (and the one-frame live solve): both point sets in one call, half the overhead.
        both = from_2d(np.concatenate([ends, reached]))
        tip_world, solved_world = both[:n_frames], both[n_frames:]
    else:
        # Moving frames: one call each, rather than stacking every per-frame matrix twice (memory of long bakes).
        tip_world, solved_world = from_2d(ends), from_2d(reached)
    error = np.linalg.norm(tip_world - target_world, axis=1)
    # Below float32 resolution the figure is rounding, not a miss: keyed as 0 so a reached target gives a flat
    # curve (a few keys) instead of one key of noise per frame.
    error[error < ERROR_RESOLUTION * float(np.sum(rig.lengths)) * world_scale] = 0.0
    return ChainSolution(frames=frames, valid=valid, deltas=deltas, root_offset=root_offset, stretch=stretch,
                         error=error, flags=np.reshape(result.flags, -1).astype(np.int64), sensitivity=gain,
                         tip_world=tip_world, target_world=target_world, solved_target_world=solved_world,
                         base=np.broadcast_to(base, (n_frames, 4, 4)), state=result.state,
                         # Copies: a view would keep every sampled matrix of the bake alive while keys are written.
                         armature_world=arm.copy(),
                         parent_frame=None if samples.upper_location is None else parent_frame.copy())


def rotation_channels(rig: ChainRig, bone_index: int, rotation_mode: str, deltas: np.ndarray,
                      previous: np.ndarray | None = None) -> tuple[str, np.ndarray]:
    """The pose rotation property and its values ((N, k)) for one bone in its own rotation mode."""
    axis = rig.local_axes[bone_index]
    if rotation_mode == "QUATERNION":
        return "rotation_quaternion", rotations.quaternions_about_axis(axis, deltas, previous=previous)
    if rotation_mode == "AXIS_ANGLE":
        return "rotation_axis_angle", rotations.axis_angles_about_axis(axis, deltas, previous=previous)
    return "rotation_euler", rotations.eulers_about_axis(axis, deltas, rotation_mode, previous=previous)
