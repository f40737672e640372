"""Pose a chain from one frame of a solution, without keys (the Solve operator and the live preview)."""

from __future__ import annotations

import numpy as np

from ..solver.chain_description import CURVE_PROPS, FLAGS_PROP
from ..solver.rotations import rotation_property
from .chain_solve import ChainSolution, channel_values
from .rig import ChainRig


def apply_frame(rig: ChainRig, sol: ChainSolution, index: int = -1) -> None:
    """Set the channels the chain owns to frame ``index`` of ``sol`` (no keys are inserted).

    The rotation is written in each bone's own rotation mode and continues from the bone's current value, so
    Euler angles do not jump by 360 degrees.
    """
    pose = rig.armature.pose.bones
    bones = [pose[name] for name in rig.bone_names]
    modes = [pb.rotation_mode for pb in bones]
    current = [np.array(getattr(pb, rotation_property(pb.rotation_mode)[0]), dtype=np.float64) for pb in bones]
    for channel in channel_values(rig, sol, modes, current, index=index):
        pb = pose[channel.bone]
        row = channel.values[0]
        if channel.prop == FLAGS_PROP:
            pb[channel.prop] = int(row[0])
        elif channel.prop in CURVE_PROPS:
            pb[channel.prop] = float(row[0])
        else:
            setattr(pb, channel.prop, row.tolist())
