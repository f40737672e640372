"""Stretch to reach in the Blender layer: which channel it owns, and the solve composed around it.

The math is :mod:`solver.stretch`: the solver is given the targets of the chain scaled by ``k`` and its pose is
scaled back, so the analytic, CCD and FABRIK solves all stretch the same way. The scale goes on the upper bone,
as the Stretch limit strategy's does (the lower bones inherit it); the two multiply when both are on.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..solver import stretch as reach_math
from . import messages as msg
from .messages import say
from .rig import ChainError, ChainRig


def owns_scale(chain: Any) -> bool:
    """Whether a bake of ``chain`` writes the upper bone's scale (the Stretch strategy or stretch to reach)."""
    return bool(chain.limit_strategy == "STRETCH" or getattr(chain, "stretch_to_reach", False))


def check(rig: ChainRig) -> None:
    """Refuse what the stretched pose cannot be played back as: thinning across the bone (Preserve Volume) is a
    non-uniform scale, which a lower bone carries along its own axes only with Inherit Scale: Aligned (Full
    would shear it, Average would change its length)."""
    chain = rig.chain
    if not (getattr(chain, "stretch_to_reach", False) and chain.preserve_volume):
        return
    bones = rig.armature.data.bones
    for name in rig.bone_names[1:]:
        if bones[name].inherit_scale != "ALIGNED":
            raise ChainError(say(msg.VOLUME_NEEDS_ALIGNED, label=rig.label, bone=name,
                                 mode=bones[name].inherit_scale))


def scale_inputs(rig: ChainRig, targets: np.ndarray,
                 pole: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """``(targets / k, pole / k, k)`` in shoulder space for a chain with stretch to reach (``k``: (N,));
    the inputs unchanged and ``None`` otherwise."""
    chain = rig.chain
    if not getattr(chain, "stretch_to_reach", False):
        return targets, pole, None
    total = float(np.sum(rig.lengths))
    soft = min(float(chain.softness), 0.999) * total
    scaled, k = reach_math.scale_targets(targets, total, soft, float(chain.max_stretch))
    k = np.reshape(k, -1)
    return scaled.reshape(targets.shape), None if pole is None else pole / k[:, None], k


def owned_scale(rig: ChainRig, strategy_stretch: np.ndarray, k: np.ndarray) -> np.ndarray | None:
    """(N, 3) upper-bone scale with Preserve Volume (thin across the bone by 1/sqrt(k)); None for the uniform
    scale ``stretch`` already gives."""
    if not rig.chain.preserve_volume:
        return None
    across = strategy_stretch * reach_math.volume_factor(k)
    return np.stack([across, strategy_stretch * k, across], axis=1)


def flags(k: np.ndarray) -> np.ndarray:
    return reach_math.stretched_flags(k)
