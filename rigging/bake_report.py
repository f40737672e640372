"""What a chain's bake reports: its summary line and the figures the chain's panel shows (range, errors, limited
and worst frames), stored on the chain."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..solver.result import LIMITED
from . import linked_data
from . import messages as msg
from .chain_solve import ChainSolution
from .messages import say
from .rig import ChainRig

WORST_FRAMES_KEPT = 10


@dataclass
class ChainReport:
    """What one chain's bake did, for the operator's report and the chain's panel.

    Attributes:
        frames: frames keyed (the valid ones).
        error_max, error_mean: tip-to-target distance over those frames (world units).
        limited_frames: frames where a joint limit changed the analytic angle.
        invalid_frames: scene frames skipped (no finite target).
        warnings: further messages, e.g. a playback mismatch.
    """

    chain_name: str
    armature_name: str
    frames: int = 0
    error_max: float = 0.0
    error_mean: float = 0.0
    limited_frames: int = 0
    invalid_frames: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """The one-line report of the bake, with the skipped frames when there are any."""
        text = say(msg.BAKE_SUMMARY, armature=self.armature_name, chain=self.chain_name, frames=self.frames,
                   max=self.error_max, mean=self.error_mean, limited=self.limited_frames)
        if self.invalid_frames:
            text += say(msg.SKIPPED_FRAMES, frames=frame_list(self.invalid_frames))
        return text


def frame_list(frames: Sequence[float], most: int = 8) -> str:
    """Up to ``most`` frames for a message, then how many more."""
    shown = ", ".join(str(f) for f in frames[:most])
    return shown + (say(msg.MORE_FRAMES, count=len(frames) - most) if len(frames) > most else "")


def store_report(rig: ChainRig, sol: ChainSolution, start: int, end: int) -> ChainReport:
    """Store the bake's range, errors and worst frames on the chain (the panel shows them) and return its report."""
    chain = rig.chain
    report = ChainReport(chain.name, rig.armature.name)
    err = sol.error[sol.valid]
    report.frames = int(sol.valid.sum())
    report.error_max = float(err.max()) if err.size else 0.0
    report.error_mean = float(err.mean()) if err.size else 0.0
    limited = (sol.flags & int(LIMITED)) != 0
    report.limited_frames = int((limited & sol.valid).sum())
    report.invalid_frames = [int(f) for f in sol.frames[~sol.valid]]
    chain.bake_start, chain.bake_end = start, end
    chain.error_max, chain.error_mean = report.error_max, report.error_mean
    chain.limited_frames = report.limited_frames
    order = np.argsort(-np.where(sol.valid, sol.error, -np.inf), kind="stable")[:WORST_FRAMES_KEPT]
    linked_data.set_items(chain.worst_frames, [{"frame": int(sol.frames[i]), "error": float(sol.error[i])}
                                               for i in order if sol.valid[i]])
    return report
