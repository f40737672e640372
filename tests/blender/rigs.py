"""Test rigs for the real-Blender bake tests: two-bone arms drawn in any plane, targets on keyed paths, and
the independent truth the tests compare against (Blender's evaluated pose, read with ``scene.frame_set``).

Nothing here calls the extension's solver: expected tip positions come from plain geometry (the tip lies on
the shoulder->target line at the soft-clamped distance).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import bpy
import harness
import numpy as np
from mathutils import Quaternion, Vector

#: Screen axes (right, up) of each plane, in armature space; the plane normal is right x up (docs/design.md).
PLANE_AXES = {"XZ": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
              "XY": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)),
              "YZ": ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0))}
ROTATION_MODES = ("QUATERNION", "AXIS_ANGLE", "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
EULER_ORDERS = ROTATION_MODES[2:]
ROTATION_PROPS = {"QUATERNION": ("rotation_quaternion", 4), "AXIS_ANGLE": ("rotation_axis_angle", 4)}


def rotation_prop(mode: str) -> tuple[str, int]:
    """The pose channel a rotation mode keys, and its number of components."""
    return ROTATION_PROPS.get(mode, ("rotation_euler", 3))


def plane_axes(plane: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(right, up, normal) unit vectors of ``plane`` in armature space."""
    u, v = (np.array(axis) for axis in PLANE_AXES[plane])
    return u, v, np.cross(u, v)


@dataclass
class ArmRig:
    """A two-bone arm ``upper`` -> ``lower`` (optionally under ``parent``) drawn in ``plane``."""

    armature: bpy.types.Object
    plane: str
    upper: str
    lower: str
    parent: str | None
    a: float  # rest length of the upper segment (armature units)
    b: float
    offset: float  # distance of the drawing plane from the armature origin, along the normal

    @property
    def length(self) -> float:
        return self.a + self.b

    def point(self, x: float, y: float) -> np.ndarray:
        """Armature-space point of the drawing plane at screen coordinates (x, y)."""
        u, v, n = plane_axes(self.plane)
        return self.offset * n + x * u + y * v

    @property
    def normal(self) -> np.ndarray:
        return plane_axes(self.plane)[2]

    @property
    def world_scale(self) -> float:
        """World length of one armature unit (the tests use uniform |scale|)."""
        return float(np.mean(np.abs(np.array(self.armature.matrix_world.to_scale()))))


def _direction(angle_deg: float) -> np.ndarray:
    return np.array([math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))])


def build_arm(name: str = "Rig", *, plane: str = "XZ", a: float = 1.0, b: float = 0.8,
              shoulder: tuple[float, float] = (0.4, 1.5), rest_angle_deg: float = -20.0,
              rest_bend_deg: float = 0.0, offset: float = 0.25, with_parent: bool = True,
              rolls: tuple[float, float, float] = (0.0, 0.3, -0.7),
              modes: tuple[str, str] = ("QUATERNION", "QUATERNION"), connected: bool = True) -> ArmRig:
    """An armature with bones ``Root`` (ending at the shoulder, optional), ``Upper`` and ``Lower``.

    The upper bone starts at ``shoulder`` (screen coordinates) pointing ``rest_angle_deg`` from the screen's
    right axis; the lower bone turns ``rest_bend_deg`` counter-clockwise from it. Bone rolls are deliberately
    not zero so the plane normal is not a bone's local axis by accident.
    """
    data = bpy.data.armatures.new(name)
    arm = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(arm)
    rig = ArmRig(arm, plane, "Upper", "Lower", "Root" if with_parent else None, a, b, offset)
    s2 = np.array(shoulder)
    e2 = s2 + a * _direction(rest_angle_deg)
    t2 = e2 + b * _direction(rest_angle_deg + rest_bend_deg)
    _select_only(arm)
    bpy.ops.object.mode_set(mode="EDIT")
    eb = data.edit_bones
    parent = None
    if with_parent:
        parent = eb.new("Root")
        parent.head, parent.tail, parent.roll = rig.point(*(s2 - (0.1, 0.6))), rig.point(*s2), rolls[0]
    upper = eb.new("Upper")
    upper.head, upper.tail, upper.roll = rig.point(*s2), rig.point(*e2), rolls[1]
    upper.parent = parent
    lower = eb.new("Lower")
    lower.head, lower.tail, lower.roll = rig.point(*e2), rig.point(*t2), rolls[2]
    lower.parent, lower.use_connect = upper, connected
    bpy.ops.object.mode_set(mode="OBJECT")
    pose = arm.pose.bones
    pose["Upper"].rotation_mode, pose["Lower"].rotation_mode = modes
    arm.soft_ik_2d.plane = plane
    return rig


def add_hand(rig: ArmRig, a: float = 0.4, b: float = 0.3, *, bend_deg: float = 25.0, roll: float = 0.4,
             connected: bool = True) -> ArmRig:
    """A second two-bone arm, ``Hand`` -> ``Finger``, hanging from the tail of ``rig``'s lower bone and drawn in
    its plane (the hand of a character whose arm is a chain too); returns it as an :class:`ArmRig` of the same
    armature."""
    _select_only(rig.armature)
    bpy.ops.object.mode_set(mode="EDIT")
    eb = rig.armature.data.edit_bones
    lower = eb[rig.lower]
    u, v, _n = plane_axes(rig.plane)
    tail = np.array(lower.tail)
    along = np.array(lower.tail - lower.head)
    angle = math.degrees(math.atan2(float(along @ v), float(along @ u)))
    gap = np.zeros(3) if connected else 0.05 * u
    knuckle = tail + gap + a * (_direction(angle) @ np.array([u, v]))
    tip = knuckle + b * (_direction(angle + bend_deg) @ np.array([u, v]))
    hand = eb.new("Hand")
    hand.head, hand.tail, hand.roll = tail + gap, knuckle, roll
    hand.parent, hand.use_connect = lower, connected
    finger = eb.new("Finger")
    finger.head, finger.tail, finger.roll = knuckle, tip, -roll
    finger.parent, finger.use_connect = hand, True
    bpy.ops.object.mode_set(mode="OBJECT")
    return dataclasses.replace(rig, upper="Hand", lower="Finger", parent=rig.lower, a=a, b=b)


def _select_only(obj: bpy.types.Object) -> None:
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


def animate_parent(rig: ArmRig, frames: Iterable[int], angle: Callable[[float], float],
                   shift: Callable[[float], tuple[float, float]]) -> None:
    """Key the parent bone: a rotation of ``angle(f)`` radians about the plane normal and an in-plane shift
    of ``shift(f)`` (screen coordinates), both expressed in the bone's rest-local axes as Blender wants."""
    assert rig.parent is not None
    pb = rig.armature.pose.bones[rig.parent]
    rest = np.array(rig.armature.data.bones[rig.parent].matrix_local)[:3, :3]
    axis_local = rest.T @ rig.normal
    u, v, _n = plane_axes(rig.plane)
    pb.rotation_mode = "QUATERNION"
    for f in frames:
        pb.rotation_quaternion = Quaternion(Vector(axis_local), angle(f))
        dx, dy = shift(f)
        pb.location = rest.T @ (dx * u + dy * v)
        pb.keyframe_insert("rotation_quaternion", frame=f)
        pb.keyframe_insert("location", frame=f)


def place_armature(rig: ArmRig, location: Sequence[float] = (0.7, -0.4, 0.3),
                   rotation: Sequence[float] = (0.4, -0.3, 0.9), scale: Sequence[float] = (1.3, 1.3, 1.3),
                   keyed_shift: Callable[[float], Sequence[float]] | None = None,
                   frames: Iterable[int] = ()) -> None:
    """Move/rotate/scale (negative scale = mirrored) the armature object, optionally with location keys."""
    obj = rig.armature
    obj.rotation_mode = "XYZ"
    obj.location, obj.rotation_euler, obj.scale = location, rotation, scale
    if keyed_shift is not None:
        for f in frames:
            obj.location = np.add(location, keyed_shift(f))
            obj.keyframe_insert("location", frame=f)


def new_empty(name: str, parent: bpy.types.Object | None = None, bone: str = "") -> bpy.types.Object:
    obj = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(obj)
    if parent is not None:
        obj.parent = parent
        if bone:
            obj.parent_type, obj.parent_bone = "BONE", bone
    return obj


def key_locations(obj: bpy.types.Object, frames: Sequence[int], locations: np.ndarray) -> None:
    """One linear location key per frame (values in the object's parent space)."""
    for f, loc in zip(frames, locations, strict=True):
        obj.location = [float(x) for x in loc]
        obj.keyframe_insert("location", frame=f)
    for fc in harness.package("rigging.anim_keys").iter_fcurves(obj):
        for kp in fc.keyframe_points:
            kp.interpolation = "LINEAR"


def shoulder_positions(rig: ArmRig, frames: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Blender's evaluated armature-space shoulder (upper bone head) and armature world matrix per frame."""
    scene = bpy.context.scene
    heads, worlds = [], []
    for f in frames:
        scene.frame_set(f)
        heads.append(np.array(rig.armature.pose.bones[rig.upper].head))
        worlds.append(np.array(rig.armature.matrix_world))
    return np.array(heads), np.array(worlds)


def circle_points(rig: ArmRig, frames: Sequence[int], radius: Callable[[float], float],
                  angle: Callable[[float], float]) -> np.ndarray:
    """World points circling the (moving) shoulder in the rig's plane: at frame f, ``radius(f)`` armature
    units from the shoulder, ``angle(f)`` radians from the screen's right axis."""
    heads, worlds = shoulder_positions(rig, frames)
    u, v, _n = plane_axes(rig.plane)
    points = []
    for f, head, world in zip(frames, heads, worlds, strict=True):
        p = head + radius(f) * (math.cos(angle(f)) * u + math.sin(angle(f)) * v)
        points.append((world @ np.append(p, 1.0))[:3])
    return np.array(points)


def circle_target(rig: ArmRig, frames: Sequence[int], radius: Callable[[float], float],
                  angle: Callable[[float], float], name: str = "Target") -> bpy.types.Object:
    """An unparented Empty keyed along :func:`circle_points`."""
    target = new_empty(name)
    key_locations(target, frames, circle_points(rig, frames, radius, angle))
    return target


def parent_matrix(parent: bpy.types.Object, bone: str = "") -> np.ndarray:
    """World matrix a child of ``parent`` (or of its ``bone``: hung at the bone's tail) lives in, now."""
    world = np.array(parent.matrix_world)
    if not bone:
        return world
    pose = np.array(parent.pose.bones[bone].matrix)
    tail = np.eye(4)
    tail[1, 3] = parent.data.bones[bone].length
    return world @ pose @ tail


def key_in_parent_space(obj: bpy.types.Object, parent: bpy.types.Object, bone: str, frames: Sequence[int],
                        world_points: np.ndarray) -> None:
    """Parent ``obj`` (identity parent inverse) and key its location so it follows ``world_points``."""
    obj.parent = parent
    if bone:
        obj.parent_type, obj.parent_bone = "BONE", bone
    local = []
    for f, p in zip(frames, world_points, strict=True):
        bpy.context.scene.frame_set(f)
        local.append((np.linalg.inv(parent_matrix(parent, bone)) @ np.append(p, 1.0))[:3])
    key_locations(obj, frames, np.array(local))


def world_matrices(obj: bpy.types.Object, frames: Sequence[float]) -> np.ndarray:
    out = []
    for f in frames:
        bpy.context.scene.frame_set(int(f))
        out.append(np.array(obj.matrix_world))
    return np.array(out)


def tweak(anim: bpy.types.AnimData, track: bpy.types.NlaTrack, strip: bpy.types.NlaStrip) -> None:
    """Enter NLA tweak mode on ``strip`` of ``track``, as the NLA editor's Tab does: only it selected, its track
    active."""
    action = strip.action
    for other in anim.nla_tracks:
        other.select = False
        for each in other.strips:
            each.select = False
    track.select, strip.select = True, True
    anim.nla_tracks.active = track
    anim.use_tweak_mode = True
    assert anim.use_tweak_mode and anim.action == action


# --- adding chains the way a user does -------------------------------------------------------------------------


def enter_pose_mode(rig: ArmRig, active_bone: str | None = None) -> None:
    _select_only(rig.armature)
    if rig.armature.mode != "POSE":
        bpy.ops.object.mode_set(mode="POSE")
    if active_bone is not None:
        rig.armature.data.bones.active = rig.armature.data.bones[active_bone]


def pose_mode_together(armatures: list[bpy.types.Object]) -> None:
    """The armatures (only they) selected and in one multi-object pose mode, the first active: the bake and Clear
    operators then act on every chain of each."""
    if bpy.context.object is not None and bpy.context.object.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in armatures)
    bpy.context.view_layer.objects.active = armatures[0]
    bpy.ops.object.mode_set(mode="POSE")


def add_chain(rig: ArmRig, target: bpy.types.Object | None = None, **props: object) -> bpy.types.PropertyGroup:
    """``pose.soft_ik_add_chain`` with the lower bone active and ``target`` selected; returns the new chain."""
    enter_pose_mode(rig, rig.lower)
    if target is not None:
        target.select_set(True)
    count = len(rig.armature.soft_ik_2d.chains)
    assert bpy.ops.pose.soft_ik_add_chain(**props) == {"FINISHED"}
    if target is not None:
        target.select_set(False)
    chains = rig.armature.soft_ik_2d.chains
    assert len(chains) == count + 1
    return chains[-1]


def bake(rig: ArmRig, start: int, end: int, **props: object) -> set[str]:
    enter_pose_mode(rig)
    return bpy.ops.pose.soft_ik_bake(frame_start=start, frame_end=end, **props)


# --- reading the result -----------------------------------------------------------------------------------------


@dataclass
class Evaluated:
    """Blender's evaluated pose per frame: armature-space joints, world joints, target world position."""

    shoulder: np.ndarray  # (N, 3) armature space
    elbow: np.ndarray
    tip: np.ndarray
    world: np.ndarray  # (N, 4, 4) armature object matrix
    target_world: np.ndarray  # (N, 3)
    normal_axes: np.ndarray  # (N, 2, 3) each bone's pose matrix applied to its rest-local normal (arm space)

    @property
    def tip_world(self) -> np.ndarray:
        return np.einsum("nij,nj->ni", self.world[:, :3, :3], self.tip) + self.world[:, :3, 3]

    @property
    def target_arm(self) -> np.ndarray:
        inv = np.linalg.inv(self.world)
        return np.einsum("nij,nj->ni", inv[:, :3, :3], self.target_world) + inv[:, :3, 3]


def evaluate(rig: ArmRig, target: bpy.types.Object, frames: Sequence[int],
             upper: str | None = None, lower: str | None = None) -> Evaluated:
    """Step the scene through ``frames`` and read Blender's evaluated pose (constraints included)."""
    scene = bpy.context.scene
    arm = rig.armature
    upper, lower = upper or rig.upper, lower or rig.lower
    bones = arm.data.bones
    local_n = [np.array(bones[name].matrix_local)[:3, :3].T @ rig.normal for name in (upper, lower)]
    rows: dict[str, list[np.ndarray]] = {k: [] for k in ("s", "e", "t", "w", "g", "n")}
    for f in frames:
        scene.frame_set(f)
        pb = arm.pose.bones
        rows["s"].append(np.array(pb[upper].head))
        rows["e"].append(np.array(pb[lower].head))
        rows["t"].append(np.array(pb[lower].tail))
        rows["w"].append(np.array(arm.matrix_world))
        rows["g"].append(np.array(target.matrix_world.translation))
        axes = []
        for name, n_local in zip((upper, lower), local_n, strict=True):
            m = np.array(pb[name].matrix)[:3, :3]
            axis = m @ n_local
            axes.append(axis / np.linalg.norm(axis))
        rows["n"].append(np.array(axes))
    return Evaluated(*(np.array(rows[k]) for k in ("s", "e", "t", "w", "g", "n")))


def soft_reach(d: np.ndarray, length: float, softness: float) -> np.ndarray:
    """Distance the tip reaches for a target ``d`` away (docs/design.md: L - s*exp(-(d-(L-s))/s) above the knee)."""
    s = softness * length
    if s <= 0:
        return np.minimum(d, length)
    knee = length - s
    return np.where(d > knee, length - s * np.exp(-(np.maximum(d, knee) - knee) / s), d)


def expected_tip(ev: Evaluated, length: float, softness: float) -> np.ndarray:
    """Where the tip must be (armature space) for targets between the inner and outer reach, no limits:
    on the shoulder->target line (the target projected on the plane) at the soft-clamped distance."""
    to_target = ev.target_arm - ev.shoulder
    d = np.linalg.norm(to_target, axis=1)
    return ev.shoulder + to_target / d[:, None] * soft_reach(d, length, softness)[:, None]


def fcurve(obj: bpy.types.ID, path: str, index: int = 0) -> bpy.types.FCurve | None:
    return harness.package("rigging.anim_keys").find_fcurve(obj, path, index)


def key_frames(fc: bpy.types.FCurve) -> np.ndarray:
    co = np.empty(2 * len(fc.keyframe_points))
    fc.keyframe_points.foreach_get("co", co)
    return co.reshape(-1, 2)


def bone_path(bone: str, prop: str) -> str:
    return f'pose.bones["{bone}"]["{prop}"]' if prop.startswith("soft_ik") else f'pose.bones["{bone}"].{prop}'


# --- snapshots: "the file is unchanged" --------------------------------------------------------------------------


def _plain(value: object) -> object:
    if hasattr(value, "__len__") and not isinstance(value, str):
        return tuple(_plain(v) for v in value)  # type: ignore[union-attr]
    if isinstance(value, bpy.types.ID):
        return ("ID", value.name)
    return value


def _rna_values(struct: bpy.types.bpy_struct, raw: bool = True) -> dict[str, object]:
    out: dict[str, object] = {}
    for prop in struct.bl_rna.properties:
        if prop.identifier == "rna_type" or prop.type == "COLLECTION":
            continue
        out[prop.identifier] = _plain(getattr(struct, prop.identifier))
    for key in struct.keys() if raw else ():
        value = struct[key]
        if not hasattr(value, "to_dict"):  # nested groups are RNA properties, already read above
            out[f"[{key}]"] = _plain(value)
    return out


def snapshot() -> dict[str, object]:
    """Every F-curve key (all attributes), pose channel, object transform/parent and chain setting."""
    anim_keys = harness.package("rigging.anim_keys")
    state: dict[str, object] = {"objects": sorted(o.name for o in bpy.data.objects),
                                "actions": sorted(a.name for a in bpy.data.actions)}
    for obj in bpy.data.objects:
        state[f"{obj.name}.matrix_basis"] = _plain(obj.matrix_basis)
        state[f"{obj.name}.parent"] = (obj.parent.name if obj.parent else None, obj.parent_type, obj.parent_bone)
        for fc in anim_keys.iter_fcurves(obj):
            keys = anim_keys.read_keys(fc)
            state[f"{obj.name}:{fc.data_path}[{fc.array_index}]"] = {k: v.tolist() for k, v in keys.items()}
        if obj.type == "ARMATURE":
            for pb in obj.pose.bones:
                state[f"{obj.name}.pose[{pb.name}]"] = _rna_values(pb)
            settings = obj.soft_ik_2d
            state[f"{obj.name}.soft_ik_2d"] = _rna_values(settings, raw=False)
            for i, chain in enumerate(settings.chains):
                state[f"{obj.name}.chains[{i}]"] = _rna_values(chain)
    return state


def assert_same_snapshot(before: dict[str, object], after: dict[str, object]) -> None:
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, "the file changed: " + "; ".join(
        f"{k}: {before.get(k)!r} -> {after.get(k)!r}" for k in changed[:5])


# --- Blender's own IK constraint, the baseline -----------------------------------------------------------------


def plane_offset(rig: ArmRig, ev: Evaluated) -> np.ndarray:
    """Per frame, the largest distance of the elbow or tip from the plane through the shoulder (arm units)."""
    n = rig.normal
    return np.maximum(np.abs((ev.elbow - ev.shoulder) @ n), np.abs((ev.tip - ev.shoulder) @ n))


def calibrate_pole_angle(rig: ArmRig, constraint: bpy.types.Constraint, target: bpy.types.Object,
                         frames: Sequence[int]) -> float:
    """The ``pole_angle`` that keeps Blender's IK chain in the rig's plane, found as a user would: by trying
    angles (a coarse scan, then a golden-section refinement) and watching the elbow leave the plane.

    Returns the worst out-of-plane distance (armature units) at the chosen angle."""
    def cost(angle: float) -> float:
        constraint.pole_angle = angle
        return float(plane_offset(rig, evaluate(rig, target, frames)).max())

    grid = np.radians(np.arange(-180.0, 180.0, 10.0))
    best = float(grid[int(np.argmin([cost(g) for g in grid]))])
    lo, hi = best - math.radians(10.0), best + math.radians(10.0)
    ratio = (math.sqrt(5.0) - 1) / 2
    for _ in range(30):
        m1, m2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if cost(m1) < cost(m2):
            hi = m2
        else:
            lo = m1
    return cost((lo + hi) / 2)
