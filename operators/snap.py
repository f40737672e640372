"""Snap FK to IK: put the active chain's target (and pole) where the FK pose has its tip (and elbow side).

The FK pose is what the bones' own keys give (read like the bake reads its inputs, :mod:`rigging.sampling`, so
a Live Preview pose does not count). The target is written in its own parent space (its declared space), one
location per frame, so that turning IK on there, or raising its influence, changes nothing visible. IK to FK
needs no operator: the bake writes the IK pose as FK keys (docs/design.md).
"""

from __future__ import annotations

import bpy
import numpy as np
from bpy.props import BoolProperty, IntProperty

from ..rigging import anim_keys, linked_data, sampling
from ..rigging import messages as msg
from ..rigging.messages import say
from ..rigging.rig import (
    ChainError,
    check_pose_position,
    check_posed_parents,
    check_target,
    read_chain,
    space_mismatch,
)
from ..solver.snap import bend_sides, snap_pole, snap_target
from .common import active_chain_poll


def fk_joints(context: bpy.types.Context, armature: bpy.types.Object, bones: tuple[str, ...],
              frames: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The FK joints in world space as the bones' own keys give them (what plays without a bake).

    Args:
        bones: the chain's bone names, root first.
        frames: the N scene frames.

    Returns:
        ``(heads, tip, world)``: the bones' world heads ``(n_bones, N, 3)``, the last bone's tail ``(N, 3)``,
        and the armature's world matrices ``(N, 4, 4)``.
    """
    m = sampling.sample_world_matrices(context, [*((armature, name, "WORLD") for name in bones), (armature, None)],
                                       frames)
    heads = m[:-1, :, :3, 3]
    length = float(armature.data.bones[bones[-1]].length)
    tip = m[-2, :, :3, 3] + length * m[-2, :, :3, 1]
    return heads, tip, m[-1]


def fk_bend(heads: np.ndarray, tip: np.ndarray, world: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """The side the FK elbow bends to, per frame, in the chain's ``bend`` convention.

    Measured about the armature-space plane normal: a mirrored armature (negative determinant) flips the world
    picture, not the side.

    Args:
        heads, tip, world: as :func:`fk_joints` returns them; the elbow is the second head.
        normal: (3,) the armature's plane normal, in armature space.

    Returns:
        (N,) +1 or -1, 0 where the arm is straight.
    """
    axes = world[:, :3, :3]
    n_world = np.einsum("nij,j->ni", axes, normal)
    mirrored = np.where(np.linalg.det(axes) < 0.0, -1, 1)
    return bend_sides(heads[0], heads[1], tip, n_world) * mirrored


def snap_points(chain: bpy.types.PropertyGroup, heads: np.ndarray,
                tip: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Where the target (and pole) go so the IK solve gives the FK pose, in world space.

    The target goes on the shoulder->tip line at the distance whose soft reach is the FK tip (on the tip itself
    under Stretch to Reach); the pole half the chain's length out from the joint farthest from that line.

    Args:
        heads, tip: as :func:`fk_joints` returns them.

    Returns:
        ``(targets, poles, straight)``: target points (N, 3); pole points (N, 3) and a (N,) mask of the frames
        where the arm is straight (the pole stays where it was), both None when the chain has no pole.
    """
    joints = np.concatenate([heads, tip[None]], axis=0)
    length = np.sum(np.linalg.norm(np.diff(joints, axis=0), axis=2), axis=0)  # (N,) world chain length
    # Stretch to reach takes the soft band's place: the target goes on the tip itself.
    width = 0.0 if chain.stretch_to_reach else float(chain.softness) * length
    targets = snap_target(heads[0], tip, length, width)
    if chain.pole is None:
        return targets, None, None
    # The joint farthest from the shoulder->tip line shows the bend side (the elbow of a two-bone arm).
    line = tip - heads[0]
    unit = line / np.maximum(np.linalg.norm(line, axis=1), 1e-300)[:, None]
    rel = heads[1:] - heads[0][None]
    off = np.linalg.norm(rel - np.sum(rel * unit[None], axis=2)[..., None] * unit[None], axis=2)
    elbow = heads[1:][np.argmax(off, axis=0), np.arange(len(tip))]
    poles, straight = snap_pole(heads[0], elbow, tip, 0.5 * length)
    return targets, poles, straight


def _place(obj: bpy.types.Object, world_point: np.ndarray) -> None:
    """Set ``obj``'s location so its world position is ``world_point`` at the current frame, through whatever
    its parenting (object, bone, Child Of) does: world = P @ basis, P read from the evaluated object."""
    world = np.array(obj.matrix_world, dtype=np.float64)
    basis = np.array(obj.matrix_basis, dtype=np.float64)
    parent = world @ np.linalg.inv(basis)
    obj.location = (np.linalg.inv(parent) @ np.append(world_point, 1.0))[:3].tolist()


class POSE_OT_soft_ik_snap_target(bpy.types.Operator):
    """Put the active chain's target on the FK tip and its pole on the FK elbow side: turning IK on shows no jump"""

    bl_idname = "pose.soft_ik_snap_target"
    bl_label = "Snap Target to FK"
    bl_options = {"REGISTER", "UNDO"}

    insert_keys: BoolProperty(name="Insert Keys", description="Key the target's (and pole's) location where it "
                              "is snapped", default=True)
    use_frame_range: BoolProperty(name="Frame Range", description="Snap and key every frame from Start to End "
                                  "from the FK animation, not only the current frame", default=False)
    frame_start: IntProperty(name="Start Frame", description="First frame to snap (default: the scene's)")
    frame_end: IntProperty(name="End Frame", description="Last frame to snap (included)")

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if not active_chain_poll(cls, context):
            return False
        settings = context.active_object.soft_ik_2d
        chain = settings.chains[settings.active_chain_index]
        if chain.target is None:
            cls.poll_message_set(say(msg.POLL_NO_TARGET, chain=chain.name))
            return False
        problem = linked_data.editing_problem(chain.target)
        if problem is not None:
            cls.poll_message_set(problem)
            return False
        return True

    def invoke(self, context: bpy.types.Context, event: bpy.types.Event) -> set[str]:
        if not self.properties.is_property_set("frame_start"):
            self.frame_start = context.scene.frame_start
        if not self.properties.is_property_set("frame_end"):
            self.frame_end = context.scene.frame_end
        return self.execute(context)

    def execute(self, context: bpy.types.Context) -> set[str]:
        armature = context.active_object
        settings = armature.soft_ik_2d
        chain = settings.chains[settings.active_chain_index]
        scene = context.scene
        current = scene.frame_current
        try:
            rig = read_chain(armature, chain)
            # The FK pose it snaps to is the evaluated one: at rest, not the animated pose.
            check_pose_position(armature)
            check_posed_parents(armature)
            check_target(armature, chain)
            mismatch = space_mismatch(armature, chain)
            if mismatch:
                raise ChainError(say(msg.FIX_SPACE_FIRST, label=rig.label, problem=mismatch))
            if self.use_frame_range and self.frame_end < self.frame_start:
                raise ChainError(say(msg.END_BEFORE_START, end=self.frame_end, start=self.frame_start))
        except ChainError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        frames = (np.arange(self.frame_start, self.frame_end + 1) if self.use_frame_range
                  else np.array([current]))
        heads, tip, world = fk_joints(context, armature, rig.bone_names, frames.astype(np.float64))
        targets, poles, straight = snap_points(chain, heads, tip)
        notes = []
        if chain.pole is None and rig.two_bone:
            # Without a pole the chain's Bend picks the elbow side: FK's, or turning IK on flips the elbow.
            sides = fk_bend(heads, tip, world, rig.normal)
            sides = sides[sides != 0]
            if sides.size and bool((sides == sides[0]).all()) and int(sides[0]) != int(chain.bend):
                chain.bend = int(sides[0])
                notes.append(({"INFO"}, say(msg.SNAP_SET_BEND, label=rig.label, bend=int(sides[0]))))
            elif sides.size and not bool((sides == sides[0]).all()):
                notes.append(({"WARNING"}, say(msg.SNAP_BEND_MIXED, label=rig.label)))
        keyed = self.insert_keys or self.use_frame_range
        moved = [(chain.target, targets, np.ones(len(frames), dtype=bool))]
        if poles is not None and straight is not None:
            moved.append((chain.pole, poles, ~straight))
        try:
            for i, f in enumerate(frames.tolist()):
                if len(frames) > 1 or f != scene.frame_current:
                    scene.frame_set(int(f))
                for obj, points, use in moved:
                    if not use[i]:
                        continue
                    _place(obj, points[i])
                    if keyed:
                        obj.keyframe_insert("location", frame=f)
            if len(frames) > 1:
                # One key per frame, linear between them: the snapped path is the FK tip's, sampled per frame.
                for obj, _points, _use in moved:
                    _linear_keys(obj, float(frames[0]), float(frames[-1]))
        finally:
            if len(frames) > 1:
                scene.frame_set(current)
        self.report({"INFO"}, say(msg.SNAPPED, pole=say(msg.SNAPPED_POLE) if poles is not None else "", count=1,
                                  frames=len(frames)))
        for level, text in notes:
            self.report(level, text)
        return {"FINISHED"}


def _linear_keys(obj: bpy.types.Object, start: float, end: float) -> None:
    for i in range(3):
        fc = anim_keys.find_fcurve(obj, "location", i)
        if fc is None:
            continue
        for kp in fc.keyframe_points:
            if start <= kp.co[0] <= end:
                kp.interpolation = "LINEAR"


classes = (POSE_OT_soft_ik_snap_target,)
