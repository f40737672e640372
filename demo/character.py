"""Dresses the demo rig as a cut-out character: flat mesh pieces parented to their bones, a door panel, a tiled
ground, a framing orthographic camera and a Workbench render set-up (all made in code, no assets).

Pieces are drawn in the rig's rest pose (armature space, the XZ plane) and layered along Y, the camera's
depth axis (-Y is nearer): the far arm and leg behind the body, the near ones in front of it, as a cut-out
puppet is stacked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import bpy
from mathutils import Matrix

from .build import BONES

Point = tuple[float, float]  # (x, z) in the plane
RGB = tuple[float, float, float]

SKIN, SHIRT, TROUSERS, SHOE = (0.96, 0.74, 0.58), (0.17, 0.45, 0.82), (0.22, 0.24, 0.36), (0.16, 0.11, 0.09)
HAIR, INK, DOOR_WOOD, DOOR_INSET, BRASS = ((0.33, 0.19, 0.10), (0.08, 0.08, 0.10), (0.62, 0.40, 0.22),
                                           (0.52, 0.32, 0.17), (0.93, 0.74, 0.25))
GROUND_A, GROUND_B, SKY = (0.55, 0.60, 0.52), (0.47, 0.52, 0.45), (0.93, 0.94, 0.96)
FAR_SHADE = 0.72  # the far-side limbs are darker, as cut-out puppets usually show depth

CAMERA_CENTER = (1.2, 0.95)  # (x, z) the orthographic camera looks at
CAMERA_WIDTH = 4.4


def _linear(c: RGB) -> tuple[float, float, float, float]:
    """sRGB display colour -> the scene-linear value Blender stores."""
    def lin(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    return (lin(c[0]), lin(c[1]), lin(c[2]), 1.0)


def material(color: RGB) -> bpy.types.Material:
    """One flat material per colour, shared by the pieces of that colour."""
    name = "Cutout {:.3f} {:.3f} {:.3f}".format(*color)
    mat = bpy.data.materials.get(name)
    if mat is None:
        mat = bpy.data.materials.new(name)
        mat.diffuse_color = _linear(color)
    return mat


def ellipse(center: Point, rx: float, rz: float, n: int = 28) -> list[Point]:
    return [(center[0] + rx * math.cos(2 * math.pi * i / n), center[1] + rz * math.sin(2 * math.pi * i / n))
            for i in range(n)]


def capsule(p0: Sequence[float], p1: Sequence[float], r0: float, r1: float, n: int = 10) -> list[Point]:
    """Outline of a limb from p0 to p1 with end radii r0, r1 (round ends), counter-clockwise."""
    dx, dz = p1[0] - p0[0], p1[1] - p0[1]
    heading = math.atan2(dz, dx)
    pts: list[Point] = []
    for i in range(n + 1):  # the far end's half circle, then the near end's
        a = heading - math.pi / 2 + math.pi * i / n
        pts.append((p1[0] + r1 * math.cos(a), p1[1] + r1 * math.sin(a)))
    for i in range(n + 1):
        a = heading + math.pi / 2 + math.pi * i / n
        pts.append((p0[0] + r0 * math.cos(a), p0[1] + r0 * math.sin(a)))
    return pts


def flat_piece(name: str, outline: Sequence[Point], depth: float, color: RGB,
               collection: bpy.types.Collection | None = None) -> bpy.types.Object:
    """One flat n-gon in the XZ plane at y = ``depth``."""
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([(x, depth, z) for x, z in outline], [], [list(range(len(outline)))])
    mesh.materials.append(material(color))
    obj = bpy.data.objects.new(name, mesh)
    (collection or bpy.context.scene.collection).objects.link(obj)
    return obj


def attach(obj: bpy.types.Object, arm: bpy.types.Object, bone: str) -> None:
    """Parent ``obj`` (drawn in the rest pose, armature space) to ``bone`` so it follows the bone's pose."""
    obj.parent = arm
    obj.parent_type = "BONE"
    obj.parent_bone = bone
    rest = arm.data.bones[bone].matrix_local @ Matrix.Translation((0.0, arm.data.bones[bone].length, 0.0))
    obj.matrix_parent_inverse = rest.inverted()


def _xz(name: str, end: int) -> Point:
    p = BONES[name][end]
    return (p[0], p[2])


def dress(arm: bpy.types.Object, collection: bpy.types.Collection | None = None) -> list[bpy.types.Object]:
    """Make the character's pieces and parent each to its bone; returns them."""
    pieces: list[bpy.types.Object] = []

    def piece(name: str, bone: str, outline: Sequence[Point], depth: float, color: RGB) -> None:
        obj = flat_piece(name, outline, depth, color, collection)
        attach(obj, arm, bone)
        pieces.append(obj)

    for side, base, shade in (("L", -0.20, 1.0), ("R", 0.20, FAR_SHADE)):
        def tone(c: RGB, s: float = shade) -> RGB:
            return (c[0] * s, c[1] * s, c[2] * s)
        upper, fore = f"UpperArm.{side}", f"Forearm.{side}"
        piece(f"Sleeve.{side}", upper, capsule(_xz(upper, 0), _xz(upper, 1), 0.055, 0.045), base, tone(SHIRT))
        piece(f"Forearm.{side}", fore, capsule(_xz(fore, 0), _xz(fore, 1), 0.04, 0.033), base + 0.01, tone(SKIN))
        wrist = _xz(fore, 1)
        head = _xz(fore, 0)
        length = math.dist(head, wrist)
        ux, uz = (wrist[0] - head[0]) / length, (wrist[1] - head[1]) / length
        palm = (wrist[0] + 0.035 * ux, wrist[1] + 0.035 * uz)
        piece(f"Hand.{side}", fore, ellipse(palm, 0.048, 0.048, 20), base - 0.01, tone(SKIN))
        # The leg sits between the body and its arm: the far one behind the body, the near one in front of it.
        leg = base / 2
        thigh, shin, foot = f"Thigh.{side}", f"Shin.{side}", f"Foot.{side}"
        piece(f"Thigh.{side}", thigh, capsule(_xz(thigh, 0), _xz(thigh, 1), 0.08, 0.062), leg, tone(TROUSERS))
        piece(f"Shin.{side}", shin, capsule(_xz(shin, 0), _xz(shin, 1), 0.062, 0.048), leg + 0.01, tone(TROUSERS))
        piece(f"Shoe.{side}", foot, capsule((-0.03, 0.055), (0.17, 0.045), 0.05, 0.04), leg - 0.01, tone(SHOE))

    piece("Pelvis", "Hips", ellipse((0.0, 1.0), 0.12, 0.1), 0.01, TROUSERS)
    piece("Torso", "Chest", capsule((0.0, 1.12), (0.0, 1.42), 0.125, 0.135), 0.0, SHIRT)
    piece("Neck", "Head", capsule((0.0, 1.48), (0.01, 1.58), 0.045, 0.045), 0.005, SKIN)
    piece("Hair", "Head", ellipse((-0.025, 1.755), 0.125, 0.105), 0.003, HAIR)
    piece("Face", "Head", ellipse((0.02, 1.69), 0.115, 0.13), -0.005, SKIN)
    piece("Nose", "Head", ellipse((0.13, 1.675), 0.022, 0.022, 12), -0.006, (0.90, 0.62, 0.48))
    piece("Eye", "Head", ellipse((0.075, 1.715), 0.014, 0.018, 12), -0.007, INK)
    piece("Mouth", "Head", capsule((0.05, 1.62), (0.095, 1.625), 0.006, 0.006, 4), -0.007, INK)
    return pieces


def door_panel(door: bpy.types.Object) -> None:
    """Fill the Door object's mesh: a panel behind the character, its handle at the object's origin."""
    mesh = door.data
    outlines = [
        ([(-0.07, -1.2), (0.55, -1.2), (0.55, 0.75), (-0.07, 0.75)], 0.40, 0),
        ([(0.0, -1.05), (0.48, -1.05), (0.48, -0.15), (0.0, -0.15)], 0.395, 1),
        ([(0.0, 0.1), (0.48, 0.1), (0.48, 0.62), (0.0, 0.62)], 0.395, 1),
        (ellipse((0.0, 0.0), 0.035, 0.035, 16), 0.39, 2),
    ]
    verts: list[tuple[float, float, float]] = []
    faces: list[list[int]] = []
    for outline, depth, _mat in outlines:
        faces.append(list(range(len(verts), len(verts) + len(outline))))
        verts.extend((x, depth, z) for x, z in outline)
    mesh.from_pydata(verts, [], faces)
    for c in (DOOR_WOOD, DOOR_INSET, BRASS):
        mesh.materials.append(material(c))
    mesh.polygons.foreach_set("material_index", [m for _o, _d, m in outlines])
    mesh.update()


def ground(collection: bpy.types.Collection | None = None, x_range: tuple[float, float] = (-2.0, 4.5),
           tile: float = 0.25) -> bpy.types.Object:
    """A strip of alternating tiles under the feet (z <= 0), so a planted foot visibly stays put."""
    verts: list[tuple[float, float, float]] = []
    faces: list[list[int]] = []
    x = x_range[0]
    while x < x_range[1]:
        i = len(verts)
        verts += [(x, 0.5, -0.4), (x + tile, 0.5, -0.4), (x + tile, 0.5, 0.0), (x, 0.5, 0.0)]
        faces.append([i, i + 1, i + 2, i + 3])
        x += tile
    mesh = bpy.data.meshes.new("Ground")
    mesh.from_pydata(verts, [], faces)
    mesh.materials.append(material(GROUND_A))
    mesh.materials.append(material(GROUND_B))
    mesh.polygons.foreach_set("material_index", [i % 2 for i in range(len(faces))])
    mesh.update()
    obj = bpy.data.objects.new("Ground", mesh)
    (collection or bpy.context.scene.collection).objects.link(obj)
    return obj


def camera(scene: bpy.types.Scene, center: Point = CAMERA_CENTER, width: float = CAMERA_WIDTH,
           name: str = "Camera") -> bpy.types.Object:
    """An orthographic camera looking along +Y (front view of the XZ plane) at ``center``."""
    data = bpy.data.cameras.new(name)
    data.type = "ORTHO"
    data.ortho_scale = width
    obj = bpy.data.objects.new(name, data)
    obj.location = (center[0], -10.0, center[1])
    obj.rotation_euler = (math.pi / 2, 0.0, 0.0)
    scene.collection.objects.link(obj)
    scene.camera = obj
    return obj


def render_setup(scene: bpy.types.Scene, size: tuple[int, int] = (640, 360)) -> None:
    """Workbench, flat material colours, outlines, plain sRGB: what a cut-out looks like in the viewport."""
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.render.resolution_x, scene.render.resolution_y = size
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"
    shading = scene.display.shading
    shading.light = "FLAT"
    shading.color_type = "MATERIAL"
    shading.show_object_outline = True
    shading.object_outline_color = (0.05, 0.05, 0.06)
    scene.view_settings.view_transform = "Standard"
    if scene.world is None:
        scene.world = bpy.data.worlds.new("Sky")
    scene.world.color = _linear(SKY)[:3]


def viewport_setup() -> None:
    """So the saved file opens ready to play: every 3D view looks through the camera with the render's flat
    colours. (Editors are left as they are: headless, an area's type cannot be changed reliably.)"""
    for screen in bpy.data.screens:
        for area in screen.areas:
            if area.type == "VIEW_3D":
                space = area.spaces.active
                space.region_3d.view_perspective = "CAMERA"
                space.shading.type = "SOLID"
                space.shading.light = "FLAT"
                space.shading.color_type = "MATERIAL"
                space.shading.show_object_outline = True


def dress_scene(scene: bpy.types.Scene, arm: bpy.types.Object, door: bpy.types.Object) -> None:
    """Everything the demo file needs around the rig: pieces, door panel, ground, camera, render settings."""
    dress(arm)
    door_panel(door)
    ground()
    camera(scene)
    render_setup(scene)
    viewport_setup()


def render_frame(scene: bpy.types.Scene, frame: int, path: str) -> None:
    scene.frame_set(frame)
    scene.render.filepath = path
    bpy.ops.render.render(write_still=True)

