"""What Blender will play back after a bake: the lower bone's tail, measured from the keys just written.

The solver's prediction of the tip holds for the rig it models. Anything it does not model (a constraint or
driver the checks did not anticipate, an evaluation order, a modifier on a curve) would make the keyed error a
promise Blender does not keep. So after the keys are written, the lower bone's world matrix is sampled over
the baked frames with :mod:`sampling` (from the F-curves where the rig allows it, which is exact and cheap,
stepped in a temporary scene otherwise) and the tail it gives is compared with the solver's tip.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

import bpy
import numpy as np

from ..solver.rotations import rotation_property
from ..solver.spaces import invert_matrices, rotation_matrices
from . import sampling
from .chain_solve import ChainSolution
from .rig import ChainRig

# A tip Blender plays back further than this fraction of the chain length from the solver's is a mismatch.
TOLERANCE = 1e-4
# Frames whose matrices are held at a time: a long bake's stay a few MB (the memory budget of a 100k-frame bake).
CHUNK = 16384


@dataclass(frozen=True)
class Verification:
    """The measured playback of one chain over the solution's frames (frames not measured: NaN)."""

    error: np.ndarray  # (N,) distance from the lower bone's tail, as Blender evaluates it, to the target
    tolerance: np.ndarray  # (N,) TOLERANCE times the chain's world length on that frame
    deviation: np.ndarray  # (N,) distance from that tail to the solver's tip
    mismatch: np.ndarray  # (N,) bool: valid frames where the deviation exceeds the tolerance

    @property
    def worst(self) -> float:
        """The largest deviation over the mismatched frames (0 without a mismatch)."""
        return float(self.deviation[self.mismatch].max()) if self.mismatch.any() else 0.0


@dataclass(frozen=True)
class Keyed:
    """What a bake just wrote for one chain.

    Attributes:
        times: the key times, the solution's valid frames in action time.
        values: the float32 value of each F-curve it wrote (by ``FCurve.as_pointer()``) at every one of
            ``times``.
    """

    times: np.ndarray
    values: dict[int, np.ndarray]


def measure(context: bpy.types.Context, rigs: Sequence[ChainRig], solutions: Sequence[ChainSolution],
            keyed: Sequence[Keyed | None] | None = None) -> list[Verification]:
    """Sample every chain's lower bone over its solution's frames and compare with the prediction.

    Args:
        keyed: per chain, what the bake wrote, so curves it wrote need not be read back (see
            :func:`_compose_chain`); None: read every curve.

    Returns:
        One :class:`Verification` per chain.
    """
    if not solutions:
        return []
    if keyed is None:
        keyed = [None] * len(solutions)
    # Where the armature is read from F-curves, what the bake did not write (the armature object, the chain's
    # parents) is what the solve sampled: only the chain's own bones are composed again.
    # One eligibility check for all the chains first: a reason is found for a set of bones whenever one is found
    # for one of them, so none for all means none for each (a crowd checks each armature once, not per chain).
    if all(sol.armature_world is not None for sol in solutions) and not sampling.stepped_objects(
            context, [(rig.armature, rig.bone_names[-1]) for rig in rigs]):
        composed = [True] * len(solutions)
    else:
        composed = [sol.armature_world is not None
                    and not sampling.stepped_objects(context, [(rig.armature, rig.bone_names[-1])])
                    for rig, sol in zip(rigs, solutions, strict=True)]
    if any(composed):
        return [_compose_chain(rig, sol, k) if c else measure(context, [rig], [sol])[0]
                for rig, sol, c, k in zip(rigs, solutions, composed, keyed, strict=True)]
    # Each lower bone in armature space and each armature's world matrix: the tail is one point per frame, so
    # moving it to world space costs less than a matrix product per frame.
    requests: list[tuple[bpy.types.Object, str | None, str]] = []
    index: dict[tuple[str, str | None], int] = {}
    for rig in rigs:
        for key, request in (((rig.armature.name, rig.bone_names[-1]), (rig.armature, rig.bone_names[-1], "ARMATURE")),
                             ((rig.armature.name, None), (rig.armature, None, "WORLD"))):
            if key not in index:
                index[key] = len(requests)
                requests.append(request)
    frames = solutions[0].frames
    if any(sol.frames.shape != frames.shape or (sol.frames != frames).any() for sol in solutions):
        raise ValueError("chains baked together share their frames")
    valid_any = np.zeros(len(frames), dtype=bool)
    for sol in solutions:
        valid_any |= sol.valid
    wanted = np.flatnonzero(valid_any)
    n = len(frames)
    error, deviation, scale = (np.full((len(rigs), n), np.nan) for _ in range(3))
    with contextlib.closing(sampling.iter_world_matrices(context, requests, frames[wanted], block=CHUNK)) as blocks:
        for block, m in blocks:
            rows = wanted[block]
            for c, (rig, sol) in enumerate(zip(rigs, solutions, strict=True)):
                lower = rig.bone_names[-1]
                pose = m[index[(rig.armature.name, lower)]]
                world = m[index[(rig.armature.name, None)]]
                # Blender's tail: the pose matrix moved along its own y axis by the rest length (pose scale
                # included), then into world space.
                tail = pose[:, :3, 3] + rig.armature.data.bones[lower].length * pose[:, :3, 1]
                tail = np.einsum("nij,nj->ni", world[:, :3, :3], tail) + world[:, :3, 3]
                error[c, rows] = np.linalg.norm(tail - sol.target_world[rows], axis=1)
                deviation[c, rows] = np.linalg.norm(tail - sol.tip_world[rows], axis=1)
                scale[c, rows] = np.linalg.norm(np.einsum("nij,nj->ni", world[:, :3, :3], pose[:, :3, 1]), axis=1)
    out = []
    for c, (rig, sol) in enumerate(zip(rigs, solutions, strict=True)):
        # The chain's world length on each frame: rest length times the lower bone's world scale (armature,
        # parents and stretch included).
        tolerance = TOLERANCE * rig.total_length * scale[c]
        with np.errstate(invalid="ignore"):
            mismatch = sol.valid & ~(deviation[c] <= tolerance)
        out.append(Verification(error=error[c], tolerance=tolerance, deviation=deviation[c], mismatch=mismatch))
    return out


def _compose_chain(rig: ChainRig, sol: ChainSolution, keyed: Keyed | None = None) -> Verification:
    """The lower bone's tail composed as Blender does for a rig read from F-curves (:mod:`sampling`).

    The solve's parent frame and armature matrices, then each chain bone's rest offset and pose channels from the
    keys just written (a connected bone's location ignored). With ``keyed`` (what the bake wrote, at the
    solution's valid frames) the curves the bake wrote are not read back: a linear key plays its float32 value
    on its frame, and a key dropped between two equal ones plays the same value, so the buffer is exactly what
    Blender evaluates there (a curve with modifiers is still read, :func:`sampling.iter_pose_channels`)."""
    assert sol.armature_world is not None
    frame = sol.base if sol.parent_frame is None else sol.parent_frame
    arm_obj = rig.armature
    bones = arm_obj.data.bones
    names = rig.bone_names
    rests = [np.array(bones[name].matrix_local, dtype=np.float64) for name in names]
    offsets = [_rest_offset(rests[j - 1], rests[j]) for j in range(1, len(names))]
    connected = [bones[name].use_connect for name in names]
    length = bones[names[-1]].length
    frames = sol.frames
    wanted = np.flatnonzero(sol.valid)
    n = len(frames)
    every = len(wanted) == n  # the usual case: plain slices instead of copies by index
    known = None
    if keyed is not None and keyed.times.shape == wanted.shape and (keyed.times == frames[wanted]).all():
        known = keyed.values
    if frame.strides[0] == 0:
        frame = frame[:1]  # a broadcast of one matrix (a parent that does not move)
    # Parent frame, then armature: one product for the whole range when neither moves.
    stages = [frame, sol.armature_world]
    if len(frame) == 1 and len(sol.armature_world) == 1:
        stages = [sol.armature_world @ frame]
    error, deviation, scale = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
    blocks = sampling.iter_pose_channels(arm_obj, names, frames[wanted], block=CHUNK, known=known)
    with contextlib.closing(blocks):
        for block, channels in blocks:
            rows: slice | np.ndarray = block if every else wanted[block]
            count = block.stop - block.start
            # The tail (a point) and the bone's y axis (a direction) carried from the lower bone up to world
            # space, as (3, N or 1) columns: a few products per frame instead of 4x4 matrix products down the
            # chain (numpy's stacked products of small matrices, and reductions over short rows, cost several
            # times more than whole-column arithmetic).
            for j in range(len(names) - 1, -1, -1):
                mode, ch = channels[names[j]]
                if j == len(names) - 1:
                    point, axis = _lower_basis(mode, ch, connected[j], length)
                else:
                    point, axis = _pose_basis(mode, ch, connected[j], point, axis)
                if j > 0:
                    point, axis = _affine(offsets[j - 1][None], point, axis)
            for m in stages:
                point, axis = _affine(m if len(m) == 1 else m[rows], point, axis)
            error[rows] = _norm(point - sol.target_world[rows].T)
            deviation[rows] = _norm(point - sol.tip_world[rows].T)
            scale[rows] = np.broadcast_to(_norm(axis), (count,))
    tolerance = TOLERANCE * rig.total_length * scale
    with np.errstate(invalid="ignore"):
        mismatch = sol.valid & ~(deviation <= tolerance)
    return Verification(error=error, tolerance=tolerance, deviation=deviation, mismatch=mismatch)


# Rest offsets by the rest matrices' values (see _rest_offset); cleared when it grows past a few thousand.
_REST_OFFSETS: dict[tuple[bytes, bytes], np.ndarray] = {}


def _rest_offset(parent: np.ndarray, child: np.ndarray) -> np.ndarray:
    """A bone's rest matrix in its parent's rest space, ``parent^-1 @ child`` (4x4), read-only.

    Cached by the rest matrices' values (a changed rest pose is another key): the characters of a crowd share
    their rest poses, and the general inverse costs more than the rest of a short chain's verification. The
    product is computed from the arrays as given (their memory layout picks numpy's multiplication loop, hence
    the last bits).
    """
    key = (parent.tobytes(), child.tobytes())
    offset = _REST_OFFSETS.get(key)
    if offset is None:
        if len(_REST_OFFSETS) >= 4096:
            _REST_OFFSETS.clear()
        offset = _REST_OFFSETS[key] = invert_matrices(parent[None])[0] @ child
        offset.flags.writeable = False
    return offset


def _norm(v: np.ndarray) -> np.ndarray:
    return np.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])


def _linear(m: np.ndarray, *vectors: np.ndarray) -> list[np.ndarray]:
    """``m @ v`` per frame for (N or 1, 3, 3) matrices and each (3, N or 1) column vector ``v``."""
    if len(m) == 1:
        return [m[0] @ v for v in vectors]
    mt = np.ascontiguousarray(m.transpose(1, 2, 0))  # (3, 3, N): rows of whole columns, made once
    return [mt[:, 0] * v[0] + mt[:, 1] * v[1] + mt[:, 2] * v[2] for v in vectors]


def _affine(m: np.ndarray, point: np.ndarray, axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A point and a direction ((3, N or 1)) moved by (N or 1, 4, 4) affine matrices."""
    point, axis = _linear(m[:, :3, :3], point, axis)
    return point + m[:, :3, 3].T, axis


def _pose_basis(mode: str, ch: dict[str, np.ndarray], connected: bool, point: np.ndarray,
                axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A point and a direction ((3, N or 1)) moved by a pose bone's ``matrix_basis``.

    ``T(location) R(rotation) S(scale)`` (:func:`solver.spaces.compose_matrices`) from its channels ((N or 1,
    k) each); a connected bone's location is ignored.
    """
    rotation = ch[rotation_property(mode)[0]]
    scl = ch["scale"].T
    point, axis = point * scl, axis * scl
    if mode == "QUATERNION":
        point, axis = _rotate_by_quaternions(rotation, point, axis)
    else:
        point, axis = _linear(rotation_matrices(rotation, mode), point, axis)
    return (point if connected else point + ch["location"].T), axis


def _lower_basis(mode: str, ch: dict[str, np.ndarray], connected: bool, length: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_pose_basis` of the lower bone's tail ``(0, length, 0)`` and y axis ``(0, 1, 0)``.

    Both lie along y, so only the rotation's y column is needed: ``r_y * (length * s_y)`` and ``r_y * s_y`` are
    the very products the full rotation adds two exact zeros to (the x and z terms, ``r * 0``), so every
    non-zero coordinate has the same bits (a zero's sign may differ; only norms of these points are kept).
    Scales that are not finite take the full path (``0 * inf`` is NaN there).

    Returns:
        The point and the direction, (3, N or 1) each.
    """
    scl = ch["scale"]
    if not np.isfinite(scl).all():
        return _pose_basis(mode, ch, connected, np.array([[0.0], [length], [0.0]]), np.array([[0.0], [1.0], [0.0]]))
    sy = scl[:, 1].astype(np.float64)  # float64 products, as the full path's float64 point and axis give
    rotation = ch[rotation_property(mode)[0]]
    column = _quaternion_y_column(rotation) if mode == "QUATERNION" else _matrix_y_column(rotation, mode)
    axis = column * sy
    point = column * (length * sy)
    return (point if connected else point + ch["location"].T), axis


def _matrix_y_column(rotation: np.ndarray, mode: str) -> np.ndarray:
    """(3, N or 1) the y column of the rotation matrices of Euler or axis-angle values ((N or 1, k))."""
    return np.array(rotation_matrices(rotation, mode)[:, :, 1].T, dtype=np.float64, order="C")


def _quaternion_y_column(q: np.ndarray) -> np.ndarray:
    """(3, N or 1) the y column of :func:`_rotate_by_quaternions`'s matrix of the (N or 1, 4) quaternions."""
    w, x, y, z = np.array(q.T, dtype=np.float64, order="C")
    norm = np.sqrt(w * w + x * x + y * y + z * z)
    zero = norm == 0.0
    if zero.any():
        w[zero], x[zero], y[zero], z[zero], norm[zero] = 0.0, 1.0, 0.0, 0.0, 1.0
    s = 2.0 / (norm * norm)
    xs, ys, zs = x * s, y * s, z * s
    return np.stack([x * ys - w * zs, 1.0 - (x * xs + z * zs), y * zs + w * xs])


def _rotate_by_quaternions(q: np.ndarray, *vectors: np.ndarray) -> list[np.ndarray]:
    """``vectors`` ((3, N or 1)) rotated by the (N or 1, 4) quaternions ``(w, x, y, z)``.

    Normalized first as Blender does (an all-zero one is a half turn about X,
    :func:`solver.rotations.matrices_from_quaternions`).
    """
    w, x, y, z = np.array(q.T, dtype=np.float64, order="C")  # whole contiguous columns, one copy
    norm = np.sqrt(w * w + x * x + y * y + z * z)
    zero = norm == 0.0
    if zero.any():
        w[zero], x[zero], y[zero], z[zero], norm[zero] = 0.0, 1.0, 0.0, 0.0, 1.0
    s = 2.0 / (norm * norm)  # the rotation matrix of q / |q|, without dividing each component
    xs, ys, zs = x * s, y * s, z * s
    wx, wy, wz, xx, xy, xz, yy, yz, zz = w * xs, w * ys, w * zs, x * xs, x * ys, x * zs, y * ys, y * zs, z * zs
    m = ((1.0 - (yy + zz), xy - wz, xz + wy), (xy + wz, 1.0 - (xx + zz), yz - wx), (xz - wy, yz + wx, 1.0 - (xx + yy)))
    return [np.stack([r[0] * v[0] + r[1] * v[1] + r[2] * v[2] for r in m]) for v in vectors]


def keyed_errors(sol: ChainSolution, ver: Verification) -> np.ndarray:
    """The error to key, (N,) world units.

    The prediction where playback agrees with it (within the tolerance, so the curve keeps the prediction's
    exact zeros), the measured distance where it does not.
    """
    return np.where(ver.mismatch & np.isfinite(ver.error), ver.error, sol.error)
