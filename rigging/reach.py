"""Stretch to reach in the Blender layer: what the stretched pose needs of the rig to play back as solved.

The math is :mod:`solver.stretch`, composed around every solver in :mod:`solver.chain_step` (the solver is given
the targets of the chain scaled by ``k`` and its pose is scaled back). The scale goes on the upper bone, as the
Stretch limit strategy's does (the lower bones inherit it); the two multiply when both are on.
"""

from __future__ import annotations

from . import messages as msg
from .messages import say
from .rig import ChainError, ChainRig


def check(rig: ChainRig) -> None:
    """Refuse what the stretched pose cannot be played back as.

    Thinning across the bone (Preserve Volume) is a non-uniform scale, which a lower bone carries along its own
    axes only with Inherit Scale: Aligned (Full would shear it, Average would change its length).

    Raises:
        ChainError: Stretch to Reach with Preserve Volume on, and a bone below the upper one whose Inherit
            Scale is not Aligned (the first such bone is named).
    """
    s = rig.settings
    if not (s.stretch_to_reach and s.preserve_volume):
        return
    bones = rig.armature.data.bones
    for name in rig.bone_names[1:]:
        if bones[name].inherit_scale != "ALIGNED":
            raise ChainError(say(msg.VOLUME_NEEDS_ALIGNED, label=rig.label, bone=name,
                                 mode=bones[name].inherit_scale))
