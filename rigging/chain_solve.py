"""The Blender side of the solve step: runs :mod:`solver.chain_step` on a read chain and words its faults.

The math from sampled world matrices to channel values is pure (``solver/chain_step.py``, tested without
Blender); here a chain with no usable frame becomes a :class:`ChainError` naming the chain and its inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..solver import chain_step
from ..solver.chain_channels import channel_values, rotation_channels, with_quaternions
from ..solver.chain_step import ChainSamples, ChainSolution
from . import messages as msg
from .messages import say
from .rig import ChainError, ChainRig

__all__ = ["ChainSamples", "ChainSolution", "channel_values", "rotation_channels", "solve_chain", "solve_chains"]

_INPUT_TEXTS = {"target": msg.INPUT_TARGET, "pole": msg.INPUT_POLE, "armature": msg.INPUT_ARMATURE,
                "parent": msg.INPUT_PARENT}


def _input_names(rig: ChainRig, inputs: tuple[str, ...]) -> str:
    """The inputs that are not finite on some frame, by name, for the message of a chain with no usable frame."""
    chain = rig.chain
    names = {"target": getattr(chain.target, "name", ""), "pole": getattr(chain.pole, "name", ""),
             "armature": rig.armature.name, "parent": rig.parent_name or ""}
    return ", ".join(say(_INPUT_TEXTS[k], name=names[k]) for k in inputs)


def solve_chain(rig: ChainRig, frames: np.ndarray, samples: ChainSamples, *, fps: float = 24.0,
                previous: Any = None, smooth_root: bool = True) -> ChainSolution:
    """:func:`solver.chain_step.solve_chain`; raises :class:`ChainError` when no frame has finite inputs."""
    return solve_chains([rig], frames, [samples], fps=fps, previous=[previous], smooth_root=smooth_root)[0]


def solve_chains(rigs: Sequence[ChainRig], frames: np.ndarray, samples: Sequence[ChainSamples], *,
                 fps: float = 24.0, previous: Sequence[Any] | None = None,
                 smooth_root: bool = True, sensitivity: bool = True,
                 solved_targets: bool = True) -> list[ChainSolution]:
    """:func:`solver.chain_step.solve_chains` (all chains in one pass); raises :class:`ChainError` naming the
    first chain with no frame whose inputs are all finite.

    Over several frames the solutions also carry their quaternion channels
    (:func:`solver.chain_channels.with_quaternions`, the bones' current rotation modes), which
    :func:`channel_values` uses for the bake's keys.
    """
    try:
        solutions = chain_step.solve_chains(rigs, frames, samples, fps=fps, previous=previous,
                                            smooth_root=smooth_root, sensitivity=sensitivity,
                                            solved_targets=solved_targets)
    except chain_step.NoFiniteFrame as err:
        rig = rigs[err.chain]
        raise ChainError(say(msg.NEVER_FINITE, label=rig.label, inputs=_input_names(rig, err.inputs))) from err
    if len(frames) < 2:  # one frame (Solve, live preview): posed from floats, nothing to share
        return solutions
    # A bake keys every chain's rotations next: their quaternions for all chains in one pass.
    modes = [[rig.armature.pose.bones[name].rotation_mode for name in rig.bone_names] for rig in rigs]
    return with_quaternions(rigs, solutions, modes)
