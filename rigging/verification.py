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

from ..solver.spaces import invert_matrices
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
        return float(self.deviation[self.mismatch].max()) if self.mismatch.any() else 0.0


def measure(context: bpy.types.Context, rigs: Sequence[ChainRig],
            solutions: Sequence[ChainSolution]) -> list[Verification]:
    """Sample every chain's lower bone over its solution's frames and compare with the prediction."""
    if not solutions:
        return []
    # Where the armature is read from F-curves, what the bake did not write (the armature object, the chain's
    # parents) is what the solve sampled: only the chain's own bones are composed again.
    composed = [sol.armature_world is not None
                and not sampling.stepped_objects(context, [(rig.armature, rig.bone_names[-1])])
                for rig, sol in zip(rigs, solutions, strict=True)]
    if all(composed):
        return [_compose_chain(rig, sol) for rig, sol in zip(rigs, solutions, strict=True)]
    if any(composed):
        return [_compose_chain(rig, sol) if c else measure(context, [rig], [sol])[0]
                for rig, sol, c in zip(rigs, solutions, composed, strict=True)]
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


def _compose_chain(rig: ChainRig, sol: ChainSolution) -> Verification:
    """The lower bone's tail composed as Blender does for a rig read from F-curves (:mod:`sampling`): the
    solve's parent frame and armature matrices, then each chain bone's rest offset and ``matrix_basis`` from the
    keys just written (a connected bone's location ignored)."""
    assert sol.armature_world is not None
    frame = sol.base if sol.parent_frame is None else sol.parent_frame
    arm_obj = rig.armature
    bones = arm_obj.data.bones
    names = rig.bone_names
    rests = [np.array(bones[name].matrix_local, dtype=np.float64) for name in names]
    offsets = [invert_matrices(rests[j - 1][None])[0] @ rests[j] for j in range(1, len(names))]
    length = bones[names[-1]].length
    frames = sol.frames
    wanted = np.flatnonzero(sol.valid)
    n = len(frames)
    every = len(wanted) == n  # the usual case: plain slices instead of copies by index
    if frame.strides[0] == 0:
        frame = frame[:1]  # a broadcast of one matrix (a parent that does not move)
    error, deviation, scale = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
    with contextlib.closing(sampling.iter_pose_bases(arm_obj, names, frames[wanted], block=CHUNK)) as blocks:
        for block, bases in blocks:
            rows: slice | np.ndarray = block if every else wanted[block]
            parent = frame if len(frame) == 1 else frame[rows]
            world = sol.armature_world if len(sol.armature_world) == 1 else sol.armature_world[rows]
            count = block.stop - block.start
            # The tail (a point) and the bone's y axis (a direction) carried from the lower bone up to world
            # space: products with two vectors per frame instead of 4x4 matrix products down the chain.
            carried = np.zeros((1, 4, 2))
            carried[0, 1, :] = (length, 1.0)
            carried[0, 3, 0] = 1.0
            for j in range(len(names) - 1, -1, -1):
                basis = bases[names[j]]
                if bones[names[j]].use_connect:
                    basis = basis.copy()
                    basis[:, :3, 3] = 0.0  # Blender ignores a connected bone's location
                carried = basis @ carried
                if j > 0:
                    carried = offsets[j - 1] @ carried
            carried = world @ (parent @ carried)
            carried = np.broadcast_to(carried, (count, 4, 2))
            tail, along = carried[:, :3, 0], carried[:, :3, 1]
            error[rows] = np.linalg.norm(tail - sol.target_world[rows], axis=1)
            deviation[rows] = np.linalg.norm(tail - sol.tip_world[rows], axis=1)
            scale[rows] = np.linalg.norm(along, axis=1)
    tolerance = TOLERANCE * rig.total_length * scale
    with np.errstate(invalid="ignore"):
        mismatch = sol.valid & ~(deviation <= tolerance)
    return Verification(error=error, tolerance=tolerance, deviation=deviation, mismatch=mismatch)


def keyed_errors(sol: ChainSolution, ver: Verification) -> np.ndarray:
    """The error to key: the prediction where playback agrees with it (within the tolerance, so the curve keeps
    the prediction's exact zeros), the measured distance where it does not."""
    return np.where(ver.mismatch & np.isfinite(ver.error), ver.error, sol.error)
