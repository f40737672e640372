"""Blender's IK constraint against Soft IK 2D on twin cut-out arms following the same target path.

Each scenario builds two identical arms (``tests/blender/rigs.py``, with the 10 degree rest bend Blender's
legacy IK needs to bend at all): one gets Blender's IK constraint, the other a Soft IK chain that is baked.
Both are then played back with ``scene.frame_set`` and measured from Blender's evaluated pose (elbow angle,
tip-to-target distance, whether a bone turned over out of the plane), and rendered with Workbench.

Needs ``tests/blender`` on ``sys.path`` (``scripts/demo.py`` puts it there) and the extension enabled.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import bpy
import numpy as np
import rigs

from . import character

REST_BEND = 10.0
SOFTNESS = 0.1
SPRITE_FRONT, SPRITE_BACK = (0.17, 0.45, 0.82), (0.62, 0.62, 0.62)
SOFT_COLOR, BLENDER_COLOR = (0.17, 0.45, 0.82), (0.85, 0.35, 0.15)
TARGET_COLOR, RING_COLOR, POLE_COLOR = (0.85, 0.1, 0.15), (0.72, 0.74, 0.78), (0.1, 0.6, 0.25)
BODY_COLOR = (0.80, 0.82, 0.87)


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    frames: int
    rest_angle_deg: float
    radius: Callable[[float], float]  # armature units from the shoulder, per frame
    angle: Callable[[float], float]  # radians from the screen's right axis, per frame
    shown: tuple[int, ...]  # frames rendered side by side
    note: str
    # With a pole: its offset from the middle of the shoulder->target line, in chain lengths, per frame
    # (> 0 on the side the rest pose bends to). Both rigs get the same pole.
    pole_side: Callable[[float], float] | None = None
    plot: str = "elbow_deg"  # what the scenario's curve shows: "elbow_deg" or "facing"


SCENARIOS = (
    Scenario("reach", "Reaching past full extension", 41, -10.0,
             lambda f: 1.35 + 0.01875 * (f - 1), lambda f: math.radians(-10.0), (16, 24, 25, 33),
             "Blender's IK snaps the arm straight the moment the target is at full reach (the pop); "
             "Soft IK 2D eases into it and lets the hand trail the target a little."),
    Scenario("cross", "Target crossing the bone line", 29, -60.0,
             lambda f: 1.2, lambda f: math.radians(55.0 + 5.0 * f), (12, 15, 18, 22),
             "As the hand passes behind the shoulder, Blender's IK flips the elbow to the other side and back; "
             "Soft IK 2D keeps the bend the rig was drawn with."),
    Scenario("pole", "A pole target moving across the arm", 29, -20.0,
             lambda f: 1.3, lambda f: math.radians(-20.0 + 1.5 * f), (8, 14, 16, 24),
             "Both elbows follow the pole (green) to the other side. Blender's IK gets there by turning the arm over, "
             "out of the 2D plane: a cut-out shows the sprite's back (grey). Soft IK 2D mirrors the bend inside "
             "the plane.",
             pole_side=lambda f: 0.5 - (f - 1) / 28.0 + 0.007, plot="facing"),
)


def _arm_sprites(rig: rigs.ArmRig, collection: bpy.types.Collection) -> None:
    """Upper arm, forearm and a mitten hand with a thumb: coloured front, grey back (seen when a bone turns
    over out of the plane, as a cut-out sprite would show its mirrored side)."""
    arm = rig.armature
    bones = arm.data.bones
    depth = float(np.array(bones[rig.upper].head_local)[1])
    n = rig.normal  # -Y: toward the camera

    def xz(v: object) -> tuple[float, float]:
        a = np.array(v)
        return (float(a[0]), float(a[2]))

    s, e, t = xz(bones[rig.upper].head_local), xz(bones[rig.lower].head_local), xz(bones[rig.lower].tail_local)
    d = np.subtract(t, e) / math.dist(t, e)
    side = np.array([-d[1], d[0]])  # counter-clockwise of the forearm: the thumb's side
    palm = tuple(np.add(t, 0.08 * d))
    thumb = (tuple(np.add(t, 0.03 * d + 0.11 * side)), tuple(np.add(t, 0.12 * d + 0.17 * side)))
    parts = [("Upper", rig.upper, character.capsule(s, e, 0.13, 0.11)),
             ("Lower", rig.lower, character.capsule(e, t, 0.10, 0.085)),
             ("Hand", rig.lower, character.ellipse(palm, 0.14, 0.14, 24)),
             ("Thumb", rig.lower, character.capsule(thumb[0], thumb[1], 0.045, 0.04, 6))]
    for i, (label, bone, outline) in enumerate(parts):
        for face, color, offset in (("front", SPRITE_FRONT, 0.02 + 0.002 * i),
                                    ("back", SPRITE_BACK, -0.02 - 0.002 * i)):
            obj = character.flat_piece(f"{arm.name}.{label}.{face}", outline, depth + offset * float(n[1]),
                                       color, collection)
            character.attach(obj, arm, bone)


def _marker(target: bpy.types.Object, collection: bpy.types.Collection) -> None:
    """A red cross on the target (an Empty renders as nothing)."""
    r, w = 0.09, 0.022
    for k, (dx, dz) in enumerate(((1.0, 1.0), (1.0, -1.0))):
        outline = [(-r * dx - w * dz, -r * dz + w * dx), (r * dx - w * dz, r * dz + w * dx),
                   (r * dx + w * dz, r * dz - w * dx), (-r * dx + w * dz, -r * dz - w * dx)]
        obj = character.flat_piece(f"Target.mark{k}", outline, -0.6, TARGET_COLOR, collection)
        obj.parent = target


def _pole_marker(pole: bpy.types.Object, collection: bpy.types.Collection) -> None:
    r = 0.09
    obj = character.flat_piece("Pole.mark", [(r, 0.0), (0.0, r), (-r, 0.0), (0.0, -r)], -0.6, POLE_COLOR, collection)
    obj.parent = pole


def _pole(rig: rigs.ArmRig, target: bpy.types.Object, frames: list[int],
          side: Callable[[float], float]) -> bpy.types.Object:
    """An Empty keyed beside the middle of the shoulder->target line (as tests/blender/test_blender_ik_compare.py
    places its pole): ``side(f)`` chain lengths to the clockwise side, where bend +1 puts the elbow."""
    ev = rigs.evaluate(rig, target, frames)
    d = ev.target_arm - ev.shoulder
    clockwise = -np.cross(rig.normal, d)
    clockwise /= np.linalg.norm(clockwise, axis=1)[:, None]
    offsets = np.array([side(f) for f in frames]) * rig.length
    points_arm = ev.shoulder + 0.5 * d + offsets[:, None] * clockwise
    points = np.einsum("nij,nj->ni", ev.world[:, :3, :3], points_arm) + ev.world[:, :3, 3]
    pole = rigs.new_empty("Pole")
    rigs.key_locations(pole, frames, points)
    return pole


def _body(shoulder: tuple[float, float], collection: bpy.types.Collection) -> None:
    """A static torso and head behind the shoulder, so the arm reads as a character's."""
    x, z = shoulder
    character.flat_piece("Torso", character.capsule((x - 0.12, z - 0.1), (x - 0.2, z - 1.7), 0.3, 0.3),
                         0.3, BODY_COLOR, collection)
    character.flat_piece("Head", character.ellipse((x - 0.14, z + 0.55), 0.26, 0.3), 0.3, BODY_COLOR, collection)


def _ring(center: tuple[float, float], radius: float, collection: bpy.types.Collection) -> None:
    """A thin grey circle at full reach."""
    mesh = bpy.data.meshes.new("Reach")
    n, w = 96, 0.012
    verts = [(center[0] + (radius + s * w) * math.cos(2 * math.pi * i / n), 0.6,
              center[1] + (radius + s * w) * math.sin(2 * math.pi * i / n)) for i in range(n) for s in (-1, 1)]
    faces = [[2 * i, 2 * ((i + 1) % n), 2 * ((i + 1) % n) + 1, 2 * i + 1] for i in range(n)]
    mesh.from_pydata(verts, [], faces)
    mesh.materials.append(character.material(RING_COLOR))
    obj = bpy.data.objects.new("Reach", mesh)
    collection.objects.link(obj)


def _measure(rig: rigs.ArmRig, target: bpy.types.Object, frames: list[int]) -> dict[str, list[float]]:
    """From Blender's evaluated pose: signed elbow angle (degrees, + = the rest bend's side), hand-to-target
    distance, target distance from the shoulder (fractions of full reach), and whether a bone has turned over
    (its local plane normal pointing away from the plane's normal)."""
    ev = rigs.evaluate(rig, target, frames)
    n = rig.normal
    up, lo = ev.elbow - ev.shoulder, ev.tip - ev.elbow
    elbow = np.degrees(np.arctan2(np.cross(up, lo) @ n, np.einsum("ij,ij->i", up, lo)))
    miss = np.linalg.norm(ev.tip - ev.target_arm, axis=1) / rig.length
    reach = np.linalg.norm(ev.target_arm - ev.shoulder, axis=1) / rig.length
    facing = (ev.normal_axes @ n).min(axis=1)  # 1: both sprites face the camera, -1: one shows its back
    return {"elbow_deg": elbow.tolist(), "miss": miss.tolist(), "reach": reach.tolist(),
            "facing": facing.tolist(), "turned_over": (facing < 0.0).astype(float).tolist()}


def run_scenario(sc: Scenario, out_dir: Path, size: int = 300) -> dict[str, object]:
    """Build, bake, measure and render one scenario into ``out_dir``; returns its measurements."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    frames = list(range(1, sc.frames + 1))
    scene.frame_start, scene.frame_end = 1, sc.frames
    kw = dict(rest_bend_deg=REST_BEND, rest_angle_deg=sc.rest_angle_deg, with_parent=False, shoulder=(0.0, 0.0))
    ours, theirs = rigs.build_arm("SoftIK", **kw), rigs.build_arm("BlenderIK", **kw)  # type: ignore[arg-type]
    target = rigs.circle_target(ours, frames, sc.radius, sc.angle)
    con = theirs.armature.pose.bones[theirs.lower].constraints.new("IK")
    con.target, con.chain_count = target, 2
    pole = _pole(ours, target, frames, sc.pole_side) if sc.pole_side else None
    if pole is not None:
        # The pole angle that keeps Blender's chain in the plane at the start, found as a user would.
        con.pole_target = pole
        rigs.calibrate_pole_angle(theirs, con, target, frames[:1])
    chain = rigs.add_chain(ours, target)
    chain.softness = SOFTNESS
    if pole is not None:
        chain.pole = pole
    if rigs.bake(ours, 1, sc.frames) != {"FINISHED"}:
        raise RuntimeError(f"the {sc.name} scenario's bake failed")
    bpy.ops.object.mode_set(mode="OBJECT")

    shared = bpy.data.collections.new("Shared")
    scene.collection.children.link(shared)
    shoulder = np.array(ours.armature.data.bones[ours.upper].head_local)
    _marker(target, shared)
    if pole is not None:
        _pole_marker(pole, shared)
    _ring((float(shoulder[0]), float(shoulder[2])), ours.length, shared)
    _body((float(shoulder[0]), float(shoulder[2])), shared)
    per_rig: dict[str, bpy.types.Collection] = {}
    for rig in (ours, theirs):
        coll = bpy.data.collections.new(rig.armature.name)
        scene.collection.children.link(coll)
        _arm_sprites(rig, coll)
        per_rig[rig.armature.name] = coll
    character.render_setup(scene, (size, size))
    character.camera(scene, (float(shoulder[0]) + 0.15, float(shoulder[2])), 4.5)

    data: dict[str, object] = {"name": sc.name, "title": sc.title, "note": sc.note, "frames": frames,
                               "shown": list(sc.shown), "softness": SOFTNESS, "plot": sc.plot}
    for key, rig in (("soft", ours), ("blender", theirs)):
        data[key] = _measure(rig, target, frames)
        for name, coll in per_rig.items():
            coll.hide_render = name != rig.armature.name
        for f in sc.shown:
            character.render_frame(scene, f, str(out_dir / f"{sc.name}_{key}_{f:03d}.png"))
    return data
