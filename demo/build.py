"""Builds the demo rig: a side-view (XZ plane) cut-out character walking beside a moving door.

- Leg.L / Leg.R: feet planted on the ground, WORLD targets (the classic no-foot-slide case).
- Arm.L: hand on the hip, a CHARACTER target parented to the Hips bone; its elbow has a joint limit and
  stretches where the limit stops it.
- Arm.R: hand on the door's handle, an OBJECT target parented to the door, which at times pulls it past full
  extension (soft IK at work).
The chains are added through the extension's own operators, as a user would. ``demo.character`` dresses the
rig with flat mesh pieces, a camera and a ground.
"""

from __future__ import annotations

import math

import bpy
from mathutils import Matrix, Quaternion, Vector

FRAMES = (1, 120)
NORMAL = Vector((0.0, -1.0, 0.0))  # XZ plane: rotations about -Y

# The character faces +X. ".L" is the near side (in front of the body), ".R" the far side.
BONES = {  # name: (head, tail, parent)
    "Hips": ((0.0, 0.0, 0.98), (0.0, 0.0, 1.18), None),
    "Chest": ((0.0, 0.0, 1.18), (0.0, 0.0, 1.52), "Hips"),
    "Head": ((0.0, 0.0, 1.52), (0.0, 0.0, 1.82), "Chest"),
    "UpperArm.L": ((-0.01, 0.0, 1.47), (-0.11, 0.0, 1.21), "Chest"),
    "Forearm.L": ((-0.11, 0.0, 1.21), (0.01, 0.0, 0.99), "UpperArm.L"),
    "UpperArm.R": ((0.01, 0.0, 1.47), (0.06, 0.0, 1.19), "Chest"),
    "Forearm.R": ((0.06, 0.0, 1.19), (0.23, 0.0, 1.02), "UpperArm.R"),
    "Thigh.L": ((0.0, 0.0, 0.98), (0.04, 0.0, 0.54), "Hips"),
    "Shin.L": ((0.04, 0.0, 0.54), (0.0, 0.0, 0.10), "Thigh.L"),
    "Foot.L": ((0.0, 0.0, 0.10), (0.15, 0.0, 0.10), "Shin.L"),
    "Thigh.R": ((0.0, 0.0, 0.98), (0.04, 0.0, 0.54), "Hips"),
    "Shin.R": ((0.04, 0.0, 0.54), (0.0, 0.0, 0.10), "Thigh.R"),
    "Foot.R": ((0.0, 0.0, 0.10), (0.15, 0.0, 0.10), "Shin.R"),
}
CONNECTED = {"Chest", "Head", "Forearm.L", "Forearm.R", "Shin.L", "Shin.R", "Foot.L", "Foot.R"}
# Feet stay level whatever the shin does, as cut-out feet usually are.
NO_INHERIT_ROTATION = {"Foot.L", "Foot.R"}
ELBOW_LIMIT_DEG = 55.0


def _key(obj: bpy.types.ID, path: str, frame: float, value: object, index: int = -1) -> None:
    target = obj
    if "." in path:  # pose.bones["X"].prop
        owner, prop = path.rsplit(".", 1)
        target = obj.path_resolve(owner)
        path = prop
    setattr(target, path, value)
    target.keyframe_insert(path, index=index, frame=frame)


def build_armature(scene: bpy.types.Scene) -> bpy.types.Object:
    data = bpy.data.armatures.new("DemoRig")
    arm = bpy.data.objects.new("DemoRig", data)
    scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    for name, (head, tail, parent) in BONES.items():
        eb = data.edit_bones.new(name)
        eb.head, eb.tail = head, tail
        # Roll chosen so every bone's local Z is the plane normal's axis, as a 2D rig drawn in front view has.
        eb.align_roll(Vector((0.0, -1.0, 0.0)))
        if parent:
            eb.parent = data.edit_bones[parent]
            eb.use_connect = name in CONNECTED
            eb.use_inherit_rotation = name not in NO_INHERIT_ROTATION
    bpy.ops.object.mode_set(mode="POSE")
    return arm


def animate_body(arm: bpy.types.Object) -> None:
    """Walk along +X with a bob (hips highest when a leg is under them, lowest when the feet are apart), and
    sway the chest (an animated parent of both arms)."""
    start, end = FRAMES
    chest = arm.pose.bones["Chest"]
    chest.rotation_mode = "QUATERNION"
    axis = arm.data.bones["Chest"].matrix_local.to_3x3().transposed() @ NORMAL
    for f in range(start, end + 1, 5):
        t = (f - start) / (end - start)
        _key(arm, "location", f, (2.0 * t, 0.0, -0.06 - 0.025 * math.cos(8 * math.pi * t)))
        _key(arm, 'pose.bones["Chest"].rotation_quaternion', f, Quaternion(axis, 0.12 * math.sin(2 * math.pi * t)))


def add_targets(scene: bpy.types.Scene, arm: bpy.types.Object) -> dict[str, bpy.types.Object]:
    start, end = FRAMES

    def empty(name: str, size: float = 0.05, data: bpy.types.ID | None = None) -> bpy.types.Object:
        obj = bpy.data.objects.new(name, data)
        obj.empty_display_type = "SPHERE"
        obj.empty_display_size = size
        scene.collection.objects.link(obj)
        return obj

    # Feet: WORLD space, each planted while the body passes over it, then stepping forward.
    feet = {}
    for side, phase, x0 in (("L", 0.0, 0.0), ("R", 0.5, 0.0)):
        foot = empty(f"Foot.{side}")
        for f in range(start, end + 1, 5):
            t = (f - start) / (end - start)
            cycle = (2 * t + phase) % 1.0
            step = math.floor(2 * t + phase)
            # Swing half: 1.0 forward, lifted; stance half: planted while the body passes over it.
            lift = max(0.0, math.sin(2 * math.pi * cycle)) * 0.08 if cycle < 0.5 else 0.0
            x = x0 - phase + step + (2.0 * cycle - 0.25 if cycle < 0.5 else 0.75)
            _key(foot, "location", f, (x, 0.0, 0.1 + lift))
        feet[side] = foot

    # Left hand: CHARACTER space, resting on the hip (parented to the Hips bone, which hangs from its tail).
    hand_l = empty("Hand.L")
    hand_l.parent = arm
    hand_l.parent_type = "BONE"
    hand_l.parent_bone = "Hips"
    for f, dx in ((start, 0.0), ((start + end) // 2, -0.06), (end, 0.0)):
        _key(hand_l, "location", f, (0.03 + dx, -0.18, 0.0))  # bone space of Hips: +Y up the bone, +X forward

    # Right hand: OBJECT space, holding the handle of a door that slides ahead and back, at times further than
    # the arm reaches. The door is a mesh (demo.character gives it its panel) with the handle at its origin.
    door = empty("Door", data=bpy.data.meshes.new("Door"))
    for f in range(start, end + 1, 5):
        t = (f - start) / (end - start)
        _key(door, "location", f, (2.0 * t + 0.47 + 0.2 * math.sin(3 * math.pi * t), 0.0, 1.2))
    hand_r = empty("Hand.R")
    hand_r.parent = door
    hand_r.location = (0.0, 0.0, 0.0)
    return {"Foot.L": feet["L"], "Foot.R": feet["R"], "Hand.L": hand_l, "Hand.R": hand_r, "Door": door}


def add_chain(arm: bpy.types.Object, lower: str, target: bpy.types.Object, space: str, name: str) -> None:
    """Add a chain exactly as a user does: active lower bone, target selected, run the operator."""
    for obj in bpy.context.scene.objects:
        obj.select_set(obj in (arm, target))
    bpy.context.view_layer.objects.active = arm
    arm.data.bones.active = arm.data.bones[lower]
    result = bpy.ops.pose.soft_ik_add_chain(chain_length=2, target_space=space, name=name)
    if result != {"FINISHED"}:
        raise RuntimeError(f"adding chain {name} failed: {result}")


def build_demo(scene: bpy.types.Scene | None = None) -> bpy.types.Object:
    scene = scene or bpy.context.scene
    scene.frame_start, scene.frame_end = FRAMES
    arm = build_armature(scene)
    animate_body(arm)
    targets = add_targets(scene, arm)
    add_chain(arm, "Shin.L", targets["Foot.L"], "WORLD", "Leg.L")
    add_chain(arm, "Shin.R", targets["Foot.R"], "WORLD", "Leg.R")
    add_chain(arm, "Forearm.L", targets["Hand.L"], "CHARACTER", "Arm.L")
    add_chain(arm, "Forearm.R", targets["Hand.R"], "OBJECT", "Arm.R")
    settings = arm.soft_ik_2d
    settings.chains["Arm.L"].space_bone = "Hips"
    settings.chains["Arm.R"].space_object = targets["Door"]
    for chain in settings.chains:
        chain.softness = 0.05
    # The hip hand's elbow may not fold past ELBOW_LIMIT_DEG; where that stops it, the arm stretches (within
    # 10 %) instead of leaving the hand off the hip, and the error report says which frames it happened on.
    arm_l = settings.chains["Arm.L"]
    arm_l.use_elbow_limit = True
    fold = math.radians(ELBOW_LIMIT_DEG)
    arm_l.elbow_min, arm_l.elbow_max = (0.0, fold) if arm_l.bend > 0 else (-fold, 0.0)
    arm_l.limit_strategy = "STRETCH"
    return arm


def world_matrix_of_bone(arm: bpy.types.Object, bone: str) -> Matrix:
    return arm.matrix_world @ arm.pose.bones[bone].matrix
