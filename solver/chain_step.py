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

from . import ChainResult, JointLimits, TwoBoneResult, solve_ccd, solve_fabrik, solve_two_bone
from .chain_description import ERROR_PROP, FLAGS_PROP, ChainDescription, ChainSettings
from .rotations import axis_angles_about_axis, eulers_about_axis, quaternions_about_axis
from .smoothing import TargetFilter, make_filter
from .spaces import cross, from_shoulder_2d, invert_matrices, to_shoulder_2d, transform_points

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

STRATEGIES = {"ACCEPT": "accept", "MOVE_ROOT": "move_root", "STRETCH": "stretch"}
# Tip-to-target distances below this fraction of the chain length are keyed (and reported) as 0: it is float32
# resolution, the precision of the keys and of Blender's evaluated pose (whose tip lands ~1e-7 L from ours).
ERROR_RESOLUTION = 1e-7
# Blender clamps an infinite key value to the float32 maximum: treat such magnitudes as non-finite too.
NON_FINITE = 1e30


class NoFiniteFrame(ValueError):
    """No frame has finite inputs. ``inputs`` names the ones that are not finite on some frame, among
    ``"target"``, ``"pole"``, ``"armature"`` and ``"parent"``; the Blender layer words the message."""

    def __init__(self, inputs: tuple[str, ...]) -> None:
        super().__init__("no frame has finite inputs: " + ", ".join(inputs))
        self.inputs = inputs


@dataclass(frozen=True)
class ChainSamples:
    """World matrices over the frames, as sampled for one chain (each (N, 4, 4); parent/pole may be None)."""

    armature: FloatArray
    target: FloatArray
    parent: FloatArray | None  # world matrix of the upper bone's parent pose bone
    pole: FloatArray | None
    upper_location: FloatArray | None = None  # (N, 3) the upper bone's own pose location, when not ours


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


def axes_2d(rig: ChainDescription) -> FloatArray:
    """(2, 3): the shoulder space's +x and +y in the upper bone's rest-local axes."""
    n_local = rig.local_axes[0]
    x_local = np.array([0.0, 1.0, 0.0])
    return np.stack([x_local, cross(n_local, x_local)])


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


def _strategy_options(s: ChainSettings, world_scale: float) -> dict[str, Any]:
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
    """Solve one chain over ``frames`` (time order) from its sampled world matrices.

    Args:
        rig: the chain.
        frames: (N,) scene frames, in time order.
        samples: the world matrices of those frames.
        fps: frames per second (the target filter's time base).
        previous: the solver state of an earlier solve (``ChainSolution.state``) to continue from.
        smooth_root: False: Move Root's offset is neither smoothed over frames nor blended with ``previous``'s
            (the live preview: its previous solve may be another frame, the same frame before a drag, or
            another strategy, so blending made the offset lag and depend on that history).

    Returns:
        The solution; frames with non-finite inputs are marked invalid and solved as the last valid one.

    Raises:
        NoFiniteFrame: no frame has finite inputs.
    """
    valid = np.asarray(finite_rows(samples.armature) & finite_rows(samples.target)
                       & finite_rows(samples.parent) & finite_rows(samples.pole), dtype=bool)
    valid = np.broadcast_to(valid, frames.shape).copy()
    if not valid.any():
        named = (("target", samples.target), ("pole", samples.pole), ("armature", samples.armature),
                 ("parent", samples.parent))
        raise NoFiniteFrame(tuple(name for name, m in named if not np.all(finite_rows(m))))

    n_frames = len(frames)
    arm = _constant(forward_fill(samples.armature, valid))
    arm_inv = invert_matrices(arm)
    if samples.parent is None:
        base = rig.upper_rest[None]
    else:
        base = _constant(arm_inv @ forward_fill(samples.parent, valid)) @ rig.parent_to_upper
    parent_frame = base
    if samples.upper_location is not None:
        # The upper bone's own pose location shifts the shoulder: base @ Translation(location).
        base = np.array(np.broadcast_to(base, (n_frames, 4, 4)))
        base[:, :3, 3] += np.einsum("nij,nj->ni", base[:, :3, :3], forward_fill(samples.upper_location, valid))
    axes = axes_2d(rig)

    def to_2d(world: FloatArray) -> FloatArray:
        return to_shoulder_2d(transform_points(arm_inv, world), base, rig.normal, local_normal=rig.local_axes[0])

    target_world = samples.target[:, :3, 3].copy()  # a copy: a view would keep all the (N, 4, 4) samples alive
    targets = to_2d(forward_fill(samples.target, valid)[:, :3, 3])
    pole = None if samples.pole is None else to_2d(forward_fill(samples.pole, valid)[:, :3, 3])

    # World length of one shoulder-space unit (mean over the frames), for bounds given in world units.
    world_scale = float(np.mean(np.linalg.norm((arm[:, :3, :3] @ base[:, :3, :3]) @ axes[0], axis=1)))

    s = rig.settings
    common: dict[str, Any] = {
        "softness": float(s.softness),
        "smoothing": target_filter(s, fps),
        **_strategy_options(s, world_scale),
    }
    root_smoothing = int(s.root_smoothing) if smooth_root else 0
    result: TwoBoneResult | ChainResult
    if rig.two_bone:
        a, b = (float(x) for x in rig.lengths)
        # One frame (the live preview, the Solve operator) takes the solver's scalar path: ~10x less overhead.
        single = n_frames == 1
        result = solve_two_bone(targets[0] if single else targets, a, b, bend=int(s.bend),
                                pole=None if pole is None else (pole[0] if single else pole),
                                limits=limits_of(rig), inner_softness=float(s.inner_softness),
                                previous=previous, root_smoothing=root_smoothing, **common)
        angles = np.stack([np.reshape(result.shoulder_angle, -1), np.reshape(result.elbow_angle, -1)], axis=1)
        sensitivity = np.reshape(result.sensitivity, -1) / max(world_scale, 1e-12)
    else:
        solve = solve_ccd if s.solver == "CCD" else solve_fabrik
        initial = rig.rest_angles.copy()
        result = solve(targets, rig.lengths, limits=chain_limits_of(rig), bend=int(s.bend),
                       initial_angles=initial, previous=previous, root_smoothing=root_smoothing,
                       **common)
        angles = result.angles
        sensitivity = np.zeros(n_frames)

    deltas = angles - rig.rest_angles
    if n_frames > 1:
        deltas = np.unwrap(deltas, axis=0)
    root_offset = np.reshape(result.root_offset, (n_frames, 2)) @ axes
    stretch = np.broadcast_to(np.asarray(result.stretch, dtype=np.float64), (n_frames,)).copy()

    def from_2d(p2: FloatArray) -> FloatArray:
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
                         error=error, flags=np.reshape(result.flags, -1).astype(np.int64), sensitivity=sensitivity,
                         tip_world=tip_world, target_world=target_world, solved_target_world=solved_world,
                         base=np.broadcast_to(base, (n_frames, 4, 4)), state=result.state,
                         # Copies: a view would keep every sampled matrix of the bake alive while keys are written.
                         armature_world=arm.copy(),
                         parent_frame=None if samples.upper_location is None else parent_frame.copy())


def rotation_channels(rig: ChainDescription, bone_index: int, rotation_mode: str, deltas: FloatArray,
                      previous: FloatArray | None = None) -> tuple[str, FloatArray]:
    """The pose rotation property and its values ((N, k)) for one bone in its own rotation mode."""
    axis = rig.local_axes[bone_index]
    if rotation_mode == "QUATERNION":
        return "rotation_quaternion", quaternions_about_axis(axis, deltas, previous=previous)
    if rotation_mode == "AXIS_ANGLE":
        return "rotation_axis_angle", axis_angles_about_axis(axis, deltas, previous=previous)
    return "rotation_euler", eulers_about_axis(axis, deltas, rotation_mode, previous=previous)


@dataclass(frozen=True)
class ChannelValues:
    """The values one solve gives one owned property of one pose bone: (N, size), one row per frame."""

    bone: str
    prop: str
    values: FloatArray
    interpolation: str = "LINEAR"


def channel_values(rig: ChainDescription, sol: ChainSolution, rotation_modes: Sequence[str],
                   previous: Sequence[FloatArray | None] | None = None, index: int | None = None
                   ) -> list[ChannelValues]:
    """The values of every channel the chain owns (:meth:`ChainDescription.owned_channels`, same order).

    Args:
        rig: the chain.
        sol: its solution.
        rotation_modes: each bone's rotation mode, ``bone_names`` order.
        previous: each bone's rotation value to continue from (Euler angles and quaternion signs), or None.
        index: one frame of ``sol`` (rows of shape (1, size)); None: every frame.

    Returns:
        One entry per owned property; the flags are CONSTANT-interpolated (bits do not blend).
    """
    rows = slice(None) if index is None else slice(index, index + 1 or None)
    out = []
    for j, (name, mode) in enumerate(zip(rig.bone_names, rotation_modes, strict=True)):
        prop, values = rotation_channels(rig, j, mode, sol.deltas[rows, j],
                                         previous=None if previous is None else previous[j])
        out.append(ChannelValues(name, prop, values))
    if rig.location_bone is not None:
        out.append(ChannelValues(rig.location_bone, "location", sol.root_offset[rows]))
    if rig.scale_bone is not None:
        out.append(ChannelValues(rig.scale_bone, "scale", np.repeat(sol.stretch[rows, None], 3, axis=1)))
    lower = rig.bone_names[-1]
    out.append(ChannelValues(lower, ERROR_PROP, sol.error[rows, None]))
    out.append(ChannelValues(lower, FLAGS_PROP, sol.flags[rows, None].astype(np.float64), "CONSTANT"))
    return out
