"""What Blender will play back after a bake: the lower bone's tail, measured from the keys just written.

The solver's prediction of the tip holds for the rig it models. Anything it does not model (a constraint or
driver the checks did not anticipate, an evaluation order, a modifier on a curve) would make the keyed error a
promise Blender does not keep. So after the keys are written, the lower bone's world matrix is sampled over
the baked frames with :mod:`sampling` (from the F-curves where the rig allows it, which is exact and cheap,
stepped in a temporary scene otherwise) and the tail it gives is compared with the solver's tip. Chains read
from F-curves are composed together by :mod:`verification_compose`; this module decides which, steps the rest
and turns what is measured into a :class:`Verification`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

import bpy
import numpy as np

from . import sampling
from .chain_solve import ChainSolution
from .rig import ChainRig
from .verification_compose import CHUNK, compose_chains

# A tip Blender plays back further than this fraction of the chain length from the solver's is a mismatch.
TOLERANCE = 1e-4
# Frames whose matrices are held at a time (CHUNK): a long bake's stay a few MB (the memory budget of a 100k-frame
# bake).


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
            :func:`_known`); None: read every curve.

    Returns:
        One :class:`Verification` per chain.
    """
    if not solutions:
        return []
    if keyed is None:
        keyed = [None] * len(solutions)
    # Where the armature is read from F-curves, what the bake did not write (the armature object, the chain's
    # parents) is what the solve sampled: only the chain's own bones are composed again, all such chains at once.
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
        picked = [c for c, yes in enumerate(composed) if yes]
        measured = iter(compose_chains([rigs[c] for c in picked], [solutions[c] for c in picked],
                                       [_known(solutions[c], keyed[c]) for c in picked]))
        return [_verification(rig, sol, *next(measured)) if c else measure(context, [rig], [sol])[0]
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
    return [_verification(rig, sol, error[c], deviation[c], scale[c])
            for c, (rig, sol) in enumerate(zip(rigs, solutions, strict=True))]


def _verification(rig: ChainRig, sol: ChainSolution, error: np.ndarray, deviation: np.ndarray,
                  scale: np.ndarray) -> Verification:
    """A chain's :class:`Verification` from its measured tail.

    Args:
        error, deviation: (N,) the tail's distance to the target and to the solver's tip.
        scale: (N,) the lower bone's world scale.
    """
    # The chain's world length on each frame: rest length times the lower bone's world scale (armature, parents
    # and stretch included).
    tolerance = TOLERANCE * rig.total_length * scale
    mismatch = sol.valid & ~(deviation <= tolerance)  # a NaN deviation is a mismatch (comparisons do not warn)
    return Verification(error=error, tolerance=tolerance, deviation=deviation, mismatch=mismatch)


def _known(sol: ChainSolution, keyed: Keyed | None) -> dict[int, np.ndarray] | None:
    """The values the bake wrote, by F-curve, when they are at exactly the solution's valid frames.

    A linear key plays its float32 value on its frame, and a key dropped between two equal ones plays the same
    value, so these are exactly what Blender evaluates there: the curves the bake wrote need not be read back (a
    curve with modifiers still is, :func:`sampling.iter_pose_channels`).
    """
    times = sol.frames[sol.valid]
    if keyed is not None and keyed.times.shape == times.shape and (keyed.times == times).all():
        return keyed.values
    return None


def keyed_errors(sol: ChainSolution, ver: Verification) -> np.ndarray:
    """The error to key, (N,) world units.

    The prediction where playback agrees with it (within the tolerance, so the curve keeps the prediction's
    exact zeros), the measured distance where it does not.
    """
    return np.where(ver.mismatch & np.isfinite(ver.error), ver.error, sol.error)
