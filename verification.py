"""What Blender will play back after a bake: the lower bone's tail, measured from the keys just written.

The solver's prediction of the tip holds for the rig it models. Anything it does not model (a constraint or
driver the checks did not anticipate, an evaluation order, a modifier on a curve) would make the keyed error a
promise Blender does not keep. So after the keys are written, the lower bone's world matrix is sampled over
the baked frames with :mod:`sampling` (from the F-curves where the rig allows it, which is exact and cheap,
stepped in a temporary scene otherwise) and the tail it gives is compared with the solver's tip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import bpy
import numpy as np

from . import sampling
from .chain_solve import ChainSolution
from .rig import ChainRig

# A tip Blender plays back further than this fraction of the chain length from the solver's is a mismatch.
TOLERANCE = 1e-4
# Frames sampled per call: the matrices of a long bake stay a few MB (the memory budget of a 100k-frame bake).
CHUNK = 16384


@dataclass(frozen=True)
class Verification:
    """The measured playback of one chain over the solution's frames (invalid frames: NaN)."""

    tip_world: np.ndarray  # (N, 3) lower bone tail as Blender evaluates it
    error: np.ndarray  # (N,) distance from that tail to the target
    tolerance: np.ndarray  # (N,) TOLERANCE times the chain's world length on that frame
    deviation: np.ndarray  # (N,) distance from that tail to the solver's tip
    mismatch: np.ndarray  # (N,) bool: valid frames where the deviation exceeds the tolerance

    @property
    def worst(self) -> float:
        return float(self.deviation[self.mismatch].max()) if self.mismatch.any() else 0.0


def measure(context: bpy.types.Context, rigs: Sequence[ChainRig],
            solutions: Sequence[ChainSolution]) -> list[Verification]:
    """Sample every chain's lower bone over its solution's frames and compare with the prediction."""
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
    if not solutions:
        return []
    frames = solutions[0].frames
    if any(sol.frames.shape != frames.shape or (sol.frames != frames).any() for sol in solutions):
        raise ValueError("chains baked together share their frames")
    valid_any = np.zeros(len(frames), dtype=bool)
    for sol in solutions:
        valid_any |= sol.valid
    wanted = np.flatnonzero(valid_any)
    bones = [i for i, (_obj, bone, _kind) in enumerate(requests) if bone is not None]
    world_of = {i: index[(requests[i][0].name, None)] for i in bones}
    tails = {i: np.full((len(frames), 3), np.nan) for i in bones}
    scales = {i: np.full(len(frames), np.nan) for i in bones}
    for first in range(0, len(wanted), CHUNK):
        rows = wanted[first:first + CHUNK]
        m = sampling.sample_world_matrices(context, requests, frames[rows])
        for i in bones:
            obj, bone, _kind = requests[i]
            world = m[world_of[i]]
            # Blender's tail: the pose matrix moved along its own y axis by the rest length (pose scale included).
            tail = m[i, :, :3, 3] + obj.data.bones[bone].length * m[i, :, :3, 1]
            tails[i][rows] = np.einsum("nij,nj->ni", world[:, :3, :3], tail) + world[:, :3, 3]
            scales[i][rows] = np.linalg.norm(np.einsum("nij,nj->ni", world[:, :3, :3], m[i, :, :3, 1]), axis=1)
    out = []
    for rig, sol in zip(rigs, solutions, strict=True):
        r = index[(rig.armature.name, rig.bone_names[-1])]
        tip = tails[r]
        # The chain's world length on each frame: rest length times the lower bone's world scale (armature,
        # parents and stretch included).
        tolerance = TOLERANCE * rig.total_length * scales[r]
        error = np.linalg.norm(tip - sol.target_world, axis=1)
        deviation = np.linalg.norm(tip - sol.tip_world, axis=1)
        with np.errstate(invalid="ignore"):
            mismatch = sol.valid & ~(deviation <= tolerance)
        out.append(Verification(tip_world=tip, error=error, tolerance=tolerance, deviation=deviation,
                                mismatch=mismatch))
    return out


def keyed_errors(sol: ChainSolution, ver: Verification) -> np.ndarray:
    """The error to key: the prediction where playback agrees with it (within the tolerance, so the curve keeps
    the prediction's exact zeros), the measured distance where it does not."""
    return np.where(ver.mismatch & np.isfinite(ver.error), ver.error, sol.error)
