"""Scenes for the bake benchmark: a pre-bent two-bone rig in the XZ plane, an animated target, a skinned mesh.

Import only after ``bpy`` is importable (after ``tests.blender.harness.install_extension()``).

- :func:`build_scene` ``(frames, *, drive, mesh, ik_constraint) -> Scene`` builds everything from an empty
  file; the target's path relative to the shoulder is the same function of the frame in every variant.
- :func:`bake_baseline` ``(scene, frames) -> float`` runs Blender's IK constraint through ``nla.bake`` and
  returns the seconds the operator took.
- :func:`add_soft_ik_chain` ``(scene)`` adds the chain with ``pose.soft_ik_add_chain`` (softness 0).
- :func:`tip_errors` ``(scene, frames) -> ndarray``: distance from the lower bone's tail to the target, read
  from Blender's evaluated scene with ``frame_set`` (independent of the add-on's code).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import bpy
import numpy as np

KEY_STEP = 10  # frames between target keys
# How the target moves: its own F-curves (world space), a Child Of constraint to an Empty turned by keys, by a
# driver of the frame or by a driver reading a variable, or hanging from the rig's animated body bone
# (character space) while the body bobs and sways.
DRIVES = ("FCURVES", "CHILD_OF", "DRIVEN", "DRIVEN_VAR", "BODY_BONE")
UPPER_TAIL = (1.0, 0.0, 0.15)  # elbow drawn bent: Blender's legacy IK cannot bend a straight chain
LOWER_TAIL = (2.0, 0.0, 0.0)


@dataclass
class Scene:
    armature: bpy.types.Object
    target: bpy.types.Object
    carrier: bpy.types.Object | None  # the Empty a Child Of constraint ties the target to
    mesh: bpy.types.Object | None


def target_polar(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distance from the shoulder (within reach: 0.45..1.65 of a 2.0 chain) and angle in the XZ plane."""
    radius = 1.05 + 0.6 * np.sin(0.013 * frames)
    angle = -0.5 + 0.6 * np.sin(0.0071 * frames + 0.3)
    return radius, angle


def _channelbag_fcurves(obj: bpy.types.Object) -> bpy.types.bpy_prop_collection:
    action = obj.animation_data.action
    if "layers" not in bpy.types.Action.bl_rna.properties or getattr(action, "is_action_legacy", False):
        return action.fcurves
    slot = obj.animation_data.action_slot
    return action.layers[0].strips[0].channelbag(slot).fcurves


def key_channel(obj: bpy.types.Object, path: str, index: int, frames: np.ndarray, values: np.ndarray) -> None:
    """Key ``obj.<path>[index]`` at every frame in one bulk write (keyframe_insert per key is quadratic)."""
    owner_path, _, prop_name = path.rpartition(".")
    owner = obj.path_resolve(owner_path) if owner_path else obj
    getattr(owner, prop_name)[index] = float(values[0])
    obj.keyframe_insert(path, index=index, frame=float(frames[0]))  # creates action, slot and F-curve
    fc = _channelbag_fcurves(obj).find(path, index=index)
    fc.keyframe_points.add(len(frames) - 1)
    co = np.empty(2 * len(frames), dtype=np.float32)
    co[0::2], co[1::2] = frames, values
    fc.keyframe_points.foreach_set("co", co)
    fc.update()  # sorts and computes the Bezier handles of the new points


def _select_bone(arm: bpy.types.Object, name: str) -> None:
    if "select" in bpy.types.PoseBone.bl_rna.properties:  # 5.0
        arm.pose.bones[name].select = True
    else:
        arm.data.bones[name].select = True


def _build_rig(scene: bpy.types.Scene, body: bool) -> bpy.types.Object:
    """The two-bone arm, shoulder at the origin; with ``body``, under a "body" bone ending at the shoulder."""
    arm = bpy.data.objects.new("rig", bpy.data.armatures.new("rig"))
    scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    upper = arm.data.edit_bones.new("upper")
    upper.head, upper.tail = (0.0, 0.0, 0.0), UPPER_TAIL
    if body:
        root = arm.data.edit_bones.new("body")
        root.head, root.tail = (0.0, 0.0, -1.0), (0.0, 0.0, 0.0)
        upper.parent, upper.use_connect = root, True
    lower = arm.data.edit_bones.new("lower")
    lower.head, lower.tail, lower.parent, lower.use_connect = UPPER_TAIL, LOWER_TAIL, upper, True
    bpy.ops.object.mode_set(mode="OBJECT")
    return arm


def _animate_body(arm: bpy.types.Object, key_frames: np.ndarray) -> None:
    """The body bone bobs (location) and sways about the plane normal (quaternion), keyed like the target."""
    from mathutils import Vector

    bone = arm.data.bones["body"]
    axis = np.array(bone.matrix_local.to_3x3().inverted() @ Vector((0.0, 1.0, 0.0)))
    sway = 0.2 * np.sin(0.011 * key_frames)
    quat = np.column_stack([np.cos(sway / 2), np.sin(sway / 2)[:, None] * axis[None, :]])
    path = 'pose.bones["body"]'
    for i in range(4):
        key_channel(arm, f"{path}.rotation_quaternion", i, key_frames, quat[:, i])
    key_channel(arm, f"{path}.location", 1, key_frames, 0.1 * np.sin(0.05 * key_frames))


def _add_skinned_mesh(scene: bpy.types.Scene, arm: bpy.types.Object) -> bpy.types.Object:
    """A 201 x 201 grid (40,401 vertices) in the XZ plane along the arm, weighted to both bones."""
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=200, y_subdivisions=200, size=2.0, location=(1.0, 0.0, 0.0),
                                    rotation=(math.pi / 2, 0.0, 0.0))
    mesh = bpy.context.active_object
    co = np.empty(3 * len(mesh.data.vertices))
    mesh.data.vertices.foreach_get("co", co)
    x = np.round(co[0::3] + 1.0, 2)  # 0 at the shoulder, 2 at the hand
    for name, weight in (("upper", np.clip(1.5 - x, 0.0, 1.0)), ("lower", np.clip(x - 0.5, 0.0, 1.0))):
        group = mesh.vertex_groups.new(name=name)
        for w in np.unique(weight):
            if w > 0:
                group.add(np.flatnonzero(weight == w).tolist(), float(w), "REPLACE")
    mesh.modifiers.new("skin", "ARMATURE").object = arm
    mesh.parent = arm
    return mesh


def build_scene(frames: int, *, drive: str, mesh: bool, ik_constraint: bool) -> Scene:
    """Fresh file with the rig and a target keyed every :data:`KEY_STEP` frames over [1, frames].

    ``drive`` (one of :data:`DRIVES`): ``FCURVES`` keys the target's own world location; ``CHILD_OF`` ties it
    to an Empty with keyed rotation through a Child Of constraint and keys only its distance (the bake composes
    the constraint from F-curves); ``DRIVEN`` is the same with the Empty turned by a driver of the frame alone
    (a simple expression the sampler evaluates as Blender does, composed too); ``DRIVEN_VAR`` the same driver
    plus a variable reading a keyed Empty's world location, which only Blender evaluates, so the bake steps the
    carrier in a temporary scene and composes the target over it; ``BODY_BONE`` parents it to the rig's
    animated "body" bone, which also carries the arm, and keys its location there (composed from F-curves).
    ``ik_constraint``: Blender's IK on the lower bone (the baseline's rig). The scene's frame range is set to
    [1, frames].
    """
    if drive not in DRIVES:
        raise ValueError(f"drive must be one of {DRIVES}")
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    key_frames = np.arange(1, frames + KEY_STEP + 1, KEY_STEP, dtype=np.float64)
    radius, angle = target_polar(key_frames)
    arm = _build_rig(scene, body=drive == "BODY_BONE")
    target = bpy.data.objects.new("target", None)
    scene.collection.objects.link(target)
    carrier = None
    if drive in ("CHILD_OF", "DRIVEN", "DRIVEN_VAR"):
        carrier = bpy.data.objects.new("carrier", None)
        scene.collection.objects.link(carrier)
        child_of = target.constraints.new("CHILD_OF")
        child_of.target = carrier
        child_of.set_inverse_pending = False
        # A Y rotation by -angle takes (r, 0, 0) to (r cos angle, 0, r sin angle).
        if drive == "CHILD_OF":
            key_channel(carrier, "rotation_euler", 1, key_frames, -angle)
        else:
            # target_polar's angle, negated, as a simple expression (evaluated without Python).
            driver = carrier.driver_add("rotation_euler", 1).driver
            driver.expression = "0.5 - 0.6 * sin(0.0071 * frame + 0.3)"
            if drive == "DRIVEN_VAR":
                # A variable whose value stays 0 (a keyed Empty at the origin): the same motion, but the driver
                # reads another object's location in its own axes (Local Space), which only Blender evaluates
                # (a World or Transform Space location is that object's channel, composed from F-curves).
                source = bpy.data.objects.new("source", None)
                scene.collection.objects.link(source)
                key_channel(source, "location", 0, key_frames[[0, -1]], np.zeros(2))
                var = driver.variables.new()
                var.type = "TRANSFORMS"
                var.targets[0].id = source
                var.targets[0].transform_type = "LOC_X"
                var.targets[0].transform_space = "LOCAL_SPACE"  # in its own axes: only Blender evaluates it
                driver.expression += f" + {var.name}"
        key_channel(target, "location", 0, key_frames, radius)
    elif drive == "BODY_BONE":
        # The target hangs from the body bone's tail (the shoulder), in the bone's axes.
        target.parent, target.parent_type, target.parent_bone = arm, "BONE", "body"
        to_bone = np.array(arm.data.bones["body"].matrix_local.to_3x3().inverted())
        offsets = np.column_stack([radius * np.cos(angle), np.zeros_like(angle), radius * np.sin(angle)])
        local = offsets @ to_bone.T
        for i in range(3):
            key_channel(target, "location", i, key_frames, local[:, i])
        _animate_body(arm, key_frames)
    else:
        key_channel(target, "location", 0, key_frames, radius * np.cos(angle))
        key_channel(target, "location", 2, key_frames, radius * np.sin(angle))
    mesh_obj = _add_skinned_mesh(scene, arm) if mesh else None
    if ik_constraint:
        ik = arm.pose.bones["lower"].constraints.new("IK")
        ik.target = target
        ik.chain_count = 2
    scene.frame_set(1)
    return Scene(arm, target, carrier, mesh_obj)


def enter_pose_mode(s: Scene) -> None:
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    bpy.context.view_layer.objects.active = s.armature
    s.armature.select_set(True)
    bpy.ops.object.mode_set(mode="POSE")


def bake_baseline(s: Scene, frames: int) -> tuple[float, float]:
    """Blender's IK constraint baked to keys (headless recipe: pose mode, bones selected, only_selected).

    Returns (wall seconds, CPU seconds of all threads) of the ``nla.bake`` call.
    """
    import time

    enter_pose_mode(s)
    for name in ("upper", "lower"):
        _select_bone(s.armature, name)
    t0, c0 = time.perf_counter(), time.process_time()
    result = bpy.ops.nla.bake(frame_start=1, frame_end=frames, only_selected=True, visual_keying=True,
                              clear_constraints=True, bake_types={"POSE"})
    elapsed = time.perf_counter() - t0, time.process_time() - c0
    if result != {"FINISHED"}:
        raise RuntimeError(f"nla.bake returned {result}")
    if len(s.armature.pose.bones["lower"].constraints):
        raise RuntimeError("nla.bake left the IK constraint in place")
    return elapsed


def add_soft_ik_chain(s: Scene) -> bpy.types.PropertyGroup:
    """The user's way: pose mode, lower bone active, the target selected, Add Soft IK Chain; softness 0."""
    enter_pose_mode(s)
    s.armature.data.bones.active = s.armature.data.bones["lower"]
    s.target.select_set(True)
    # A target on the body bone lives in character space; otherwise it is not parented: WORLD.
    space = "CHARACTER" if s.target.parent == s.armature else "WORLD"
    result = bpy.ops.pose.soft_ik_add_chain(target_space=space)
    if result != {"FINISHED"}:
        raise RuntimeError(f"soft_ik_add_chain returned {result}")
    chain = s.armature.soft_ik_2d.chains[-1]
    if chain.target != s.target:
        raise RuntimeError(f"the chain reaches for {chain.target.name!r}, not the selected target")
    chain.softness = 0.0
    return chain


def tip_errors(s: Scene, frames: list[int]) -> np.ndarray:
    """|tail of the lower bone - target| in world space at ``frames`` (moves the scene's frame)."""
    scene = bpy.context.scene
    out = []
    for f in frames:
        scene.frame_set(f)
        tip = s.armature.matrix_world @ s.armature.pose.bones["lower"].tail
        out.append((tip - s.target.matrix_world.translation).length)
    return np.array(out)
