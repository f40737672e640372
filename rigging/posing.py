"""Pose a chain from one frame of a solution, without keys (the Solve operator and the live preview)."""

from __future__ import annotations

import bpy
import numpy as np

from ..solver.rotations import rotation_property
from .bake import ERROR_PROP, FLAGS_PROP
from .chain_solve import ChainSolution, rotation_channels
from .reach import owns_scale
from .rig import ChainRig


def apply_frame(rig: ChainRig, sol: ChainSolution, index: int = -1) -> None:
    """Set the chain bones' pose channels to frame ``index`` of ``sol`` (no keys are inserted).

    The rotation is written in each bone's own rotation mode and continues from the bone's current value, so
    Euler angles do not jump by 360 degrees.
    """
    pose = rig.armature.pose.bones
    for j, name in enumerate(rig.bone_names):
        pb: bpy.types.PoseBone = pose[name]
        prop, _size = rotation_property(pb.rotation_mode)
        current = np.array(getattr(pb, prop), dtype=np.float64)
        if sol.rotations is not None:  # an IK influence below 1: the blend with the FK keys
            values = sol.rotations[j][index:index + 1 or None]
        else:
            _, values = rotation_channels(rig, j, pb.rotation_mode, sol.deltas[index:index + 1 or None, j],
                                          previous=current)
        setattr(pb, prop, values[0].tolist())
    upper = pose[rig.bone_names[0]]
    if rig.chain.limit_strategy == "MOVE_ROOT":
        upper.location = sol.root_offset[index].tolist()
    if owns_scale(rig.chain):
        upper.scale = [float(sol.stretch[index])] * 3 if sol.scale is None else sol.scale[index].tolist()
    lower = pose[rig.bone_names[-1]]
    lower[ERROR_PROP] = float(sol.error[index])
    lower[FLAGS_PROP] = int(sol.flags[index])
