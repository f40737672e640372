"""Helpers for the ``test_promises_*`` files: rigs whose rest pose is not straight and joint angles read back
from Blender's evaluated pose (``scene.frame_set`` + pose bone matrices), never from the extension's solver.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import bpy
import numpy as np
import rigs


def signed_angle(u: np.ndarray, v: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Counter-clockwise angle (about ``n``) from ``u`` to ``v``, row-wise, in (-pi, pi]."""
    u, v = np.atleast_2d(u), np.atleast_2d(v)
    return np.arctan2(np.cross(u, v) @ n, np.sum(u * v, axis=1))


def bent_arm(*, shift: float = 0.35, rest_bend_deg: float = 25.0, **kwargs: object) -> rigs.ArmRig:
    """A two-bone arm whose rest pose is not straight in both ways the solver cares about: the lower bone is
    disconnected with its head ``shift`` off the upper bone's axis (in the plane), so the upper segment (head
    to head) is not along the upper bone (rest shoulder angle != 0), and the lower bone turns ``rest_bend_deg``
    away from the upper one (rest elbow angle != 0)."""
    rig = rigs.build_arm(connected=False, rest_bend_deg=rest_bend_deg, **kwargs)  # type: ignore[arg-type]
    rigs.enter_pose_mode(rig)
    bpy.ops.object.mode_set(mode="EDIT")
    eb = rig.armature.data.edit_bones
    lower, upper = eb[rig.lower], eb[rig.upper]
    y = np.array(upper.tail - upper.head)
    y /= np.linalg.norm(y)
    side = np.cross(rig.normal, y)  # in the plane, perpendicular to the upper bone
    lower.head = (np.array(lower.head) + shift * side).tolist()
    bpy.ops.object.mode_set(mode="POSE")
    bones = rig.armature.data.bones
    a = float(np.linalg.norm(np.array(bones[rig.lower].head_local) - np.array(bones[rig.upper].head_local)))
    b = float(bones[rig.lower].length)
    return dataclasses.replace(rig, a=a, b=b)


def rest_angles(rig: rigs.ArmRig) -> tuple[float, float]:
    """(shoulder, elbow) of the rest pose: the upper segment from the upper bone's axis, the lower bone from
    the upper segment (0 = straight)."""
    bones = rig.armature.data.bones
    upper, lower = bones[rig.upper], bones[rig.lower]
    seg_up = np.array(lower.head_local) - np.array(upper.head_local)
    seg_low = np.array(lower.tail_local) - np.array(lower.head_local)
    y = np.array(upper.tail_local) - np.array(upper.head_local)
    return (float(signed_angle(y, seg_up, rig.normal)[0]), float(signed_angle(seg_up, seg_low, rig.normal)[0]))


@dataclasses.dataclass
class Joints:
    """Blender's evaluated joints per frame (armature space)."""

    shoulder_delta: np.ndarray  # (N,) upper bone's turn from its rest direction under the parent's pose
    elbow: np.ndarray  # (N,) lower segment from the upper segment (head to head), 0 = straight
    head: np.ndarray  # (N, 3) upper bone head
    rest_head: np.ndarray  # (N, 3) where the upper head would be with no pose location of its own


def joints(rig: rigs.ArmRig, frames: Sequence[int]) -> Joints:
    scene = bpy.context.scene
    arm = rig.armature
    bones = arm.data.bones
    rows: dict[str, list[np.ndarray]] = {k: [] for k in ("y", "y0", "s", "e", "t", "h0")}
    for f in frames:
        scene.frame_set(f)
        pb = arm.pose.bones
        rest = np.array(bones[rig.upper].matrix_local)
        if rig.parent is not None:
            rest = np.array(pb[rig.parent].matrix) @ np.linalg.inv(np.array(bones[rig.parent].matrix_local)) @ rest
        rows["y"].append(np.array(pb[rig.upper].matrix)[:3, 1])
        rows["y0"].append(rest[:3, 1])
        rows["h0"].append(rest[:3, 3])
        rows["s"].append(np.array(pb[rig.upper].head))
        rows["e"].append(np.array(pb[rig.lower].head))
        rows["t"].append(np.array(pb[rig.lower].tail))
    r = {k: np.array(v) for k, v in rows.items()}
    return Joints(shoulder_delta=signed_angle(r["y0"], r["y"], rig.normal),
                  elbow=signed_angle(r["e"] - r["s"], r["t"] - r["e"], rig.normal), head=r["s"], rest_head=r["h0"])


def to_world(world: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Armature-space points (N, 3) through per-frame world matrices (N, 4, 4)."""
    return np.einsum("nij,nj->ni", world[:, :3, :3], points) + world[:, :3, 3]


def armature_worlds(rig: rigs.ArmRig, frames: Sequence[int]) -> np.ndarray:
    return rigs.world_matrices(rig.armature, frames)


def degrees(x: float) -> float:
    return math.degrees(x)
