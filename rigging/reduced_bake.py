"""Editable bakes: keep fewer keys, with the played-back tip within a tolerance of the full bake on every frame.

After the full bake is written and verified (:func:`bake.verify_written`), the chain's channels are keyed again
on fewer frames: the target's own key frames (``TARGET_KEYS``) or a fit of the tip path (``FIT``,
:func:`solver.key_reduction.reduce_keys` on a model of the chain), then refined on what Blender plays back:
:func:`verification.measure` reads the lower bone's tail from the reduced keys on every frame, and every run of
frames between kept keys where the tail strays further than the budget from the full bake's gets its worst frame
as a key (:func:`solver.key_reduction.refine`), until none does. The budget on each frame is the tolerance (a
fraction of the chain's world length) minus how far the full bake's own playback was from the solved tip, so
the reduced tail is within the tolerance of the full bake's tail. On kept frames the keys are the full bake's,
so nothing changes there (should a Bezier curve through a key dropped as redundant break that, the full bake is
written again). Every rotation (and Move Root / Stretch) channel of a chain keeps the same frames, with linear
or Bezier (automatic handles) keys;
``soft_ik_error`` is keyed on every frame with the distance measured from the reduced keys, and the flags stay
as the full bake keyed them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import bpy
import numpy as np

from ..solver import key_reduction
from ..solver.chain_step import ERROR_RESOLUTION
from . import bake, verification
from . import messages as msg
from .chain_solve import ChainSolution
from .messages import say
from .rig import ChainRig
from .target_parenting import keyed_frames

REDUCTION_ITEMS = [
    ("NONE", "None", "A key on every frame where a channel moves"),
    ("TARGET_KEYS", "Target Keys", "Keys on the target's own key frames, plus the frames the tolerance needs"),
    ("FIT", "Fit", "As few keys as keep the tip within the tolerance (linear keys on the tip path)"),
]
MODES = tuple(item[0] for item in REDUCTION_ITEMS)
SHAPE_ITEMS = [
    ("LINEAR", "Linear", "Straight lines between the kept keys"),
    ("BEZIER", "Bezier", "Smooth curves through the kept keys (automatic handles), easier to reshape by hand"),
]
MAX_ROUNDS = 200
BEZIER_GUESS = 8.0


@dataclass(frozen=True)
class Reduction:
    """What reducing one chain's keys kept, and how far its playback strays from the full bake."""

    kept: int  # frames keyed on the chain's transform channels
    full: int  # frames the full bake keyed
    worst: float  # largest played-back distance from the full bake's tail (world units), over the baked frames
    tolerance: float  # the bound, in world units (on the chain's median world length)


def _model_values(rig: ChainRig, sol: ChainSolution) -> np.ndarray:
    """The channels as the tip model reads them: pose rotations, root offset (shoulder-space x, y), stretch."""
    offset = sol.root_offset @ rig.axes_2d.T
    return np.concatenate([sol.deltas, offset, sol.stretch[:, None]], axis=1)


def _first_guess(rig: ChainRig, sol: ChainSolution, mode: str, tolerance: float) -> np.ndarray:
    valid = np.flatnonzero(sol.valid)
    kept = np.zeros(len(sol.frames), dtype=bool)
    if len(valid) == 0:
        return kept
    if mode == "TARGET_KEYS":
        keyed = keyed_frames(rig.chain.target)
        kept[valid] = np.isin(sol.frames[valid], np.round(keyed))
        kept[valid[0]] = kept[valid[-1]] = True
        return kept
    values = _model_values(rig, sol)[valid]

    def tip(v: np.ndarray) -> np.ndarray:
        return key_reduction.chain_tip(v, rig.rest_angles, rig.lengths)

    kept[valid] = key_reduction.reduce_keys(sol.frames[valid], values, tip, tolerance * rig.total_length)
    return kept


def _write_kept(rig: ChainRig, sol: ChainSolution, kept: np.ndarray, start: int, end: int, shape: str) -> None:
    """Key the chain's channels on the ``kept`` frames only (the full bake's values there); flags on every
    frame as before. The error curve is keyed afterwards, measured."""
    bake.write_solution(rig, dataclasses.replace(sol, valid=kept), start, end, shape)
    keep = sol.valid
    bake.rekey_channel(rig, rig.bone_names[-1], bake.FLAGS_PROP, 0, sol.frames[keep],
                       sol.flags[keep].astype(np.float64), start, end, "CONSTANT")


def reduce_written(context: bpy.types.Context, rigs: Sequence[ChainRig],
                   verified: Sequence[tuple[ChainSolution, str | None]], start: int, end: int, mode: str,
                   tolerance: float, shape: str = "LINEAR"
                   ) -> tuple[list[tuple[ChainSolution, str | None]], list[Reduction]]:
    """Re-key the chains of a written, verified bake on fewer frames (see the module).

    Args:
        verified: per chain of ``rigs``, its written solution and warning (:func:`bake.verify_written`).
        start, end: the baked range (inclusive): keys are replaced only inside it.
        mode: one of ``MODES``; ``"NONE"`` keeps the full bake and returns ``verified`` as it is.
        tolerance: the largest played-back distance from the full bake's tail, as a fraction of the chain's
            world length.
        shape: the interpolation of the kept keys, ``"LINEAR"`` or ``"BEZIER"`` (a Bezier result that strays
            is written again as the full linear bake).

    Returns:
        Each solution with the error now keyed (measured from the reduced keys) and its warning, and per
        chain what was kept (empty for ``"NONE"``).

    Raises:
        ValueError: an unknown ``mode`` (a programming error: the operator's enum lists ``MODES``).
    """
    if mode not in MODES:
        raise ValueError(f"unknown key reduction {mode!r}")
    if mode == "NONE":
        for rig in rigs:
            rig.chain.kept_keys = -1
        return list(verified), []
    solutions = [sol for sol, _warning in verified]
    full = verification.measure(context, rigs, solutions)
    out: list[tuple[ChainSolution, str | None]] = []
    reductions: list[Reduction] = []
    for rig, (sol, warning), ver_full in zip(rigs, verified, full, strict=True):
        world_length = ver_full.tolerance / verification.TOLERANCE
        # The full bake's tail is within ver_full.deviation of the solved tip: what is left of the tolerance.
        budget = np.maximum(tolerance * world_length - np.nan_to_num(ver_full.deviation), 0.0)
        # A curve through the keys strays less than a chord of the tip path: Bezier starts from a coarser fit
        # (playback adds what it needs).
        kept = _first_guess(rig, sol, mode, tolerance * (BEZIER_GUESS if shape == "BEZIER" else 1.0))
        ver = ver_full
        for _ in range(MAX_ROUNDS):
            _write_kept(rig, sol, kept, start, end, shape)
            ver = verification.measure(context, [rig], [sol])[0]
            new = key_reduction.refine(kept, np.where(sol.valid, ver.deviation, np.nan), budget)
            if np.array_equal(new, kept):
                break
            kept = new
        # refine trusts kept frames to play the full bake's pose. Linear keys do (a key dropped as equal to both
        # neighbours lies on their line); a Bezier curve through such a dropped key need not. Then the full bake
        # is written again, linear (exact on every frame).
        moved = np.abs(np.nan_to_num(ver.deviation) - np.nan_to_num(ver_full.deviation))
        if np.any(kept & sol.valid & (moved > verification.TOLERANCE * world_length)) or not np.array_equal(
                key_reduction.refine(kept, np.where(sol.valid, ver.deviation, np.nan), budget), kept):
            kept = sol.valid.copy()
            _write_kept(rig, sol, kept, start, end, "LINEAR")
            ver = verification.measure(context, [rig], [sol])[0]
        error = np.where(np.isfinite(ver.error), ver.error, sol.error)
        error = np.where(error < ERROR_RESOLUTION * world_length, 0.0, error)
        keep = sol.valid
        bake.rekey_channel(rig, rig.bone_names[-1], bake.ERROR_PROP, 0, sol.frames[keep], error[keep], start, end)
        sol = dataclasses.replace(sol, error=error)
        # The distance to the full bake's tail is at most the deviation from the solved tip plus the full bake's.
        worst = float(np.nanmax(np.where(keep & ~kept, ver.deviation + np.nan_to_num(ver_full.deviation), 0.0)))
        reductions.append(Reduction(kept=int((kept & keep).sum()), full=int(keep.sum()), worst=worst,
                                    tolerance=float(tolerance * np.nanmedian(world_length[keep]))
                                    if keep.any() else 0.0))
        rig.chain.kept_keys = int((kept & keep).sum())
        out.append((sol, warning))
    return out, reductions


def summary(rig: ChainRig, reduction: Reduction) -> str:
    """The report line of one reduced chain: frames kept of the full bake's, tolerance and worst distance."""
    return say(msg.REDUCED_KEYS, label=rig.label, kept=reduction.kept, full=reduction.full,
               tolerance=reduction.tolerance, worst=reduction.worst)
