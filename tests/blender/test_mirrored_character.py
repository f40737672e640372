"""Mirrored characters (issue 15, part 5): a character turned around with a negative object scale is the mirror
image of the unflipped one, elbows included, in the bake, the live preview and the overlay.

Two rigs are built alike, one with ``scale.x = -1.3``, with targets (and poles) on the same armature-space paths,
so each world path is the other's mirror image. Truth is Blender's playback: the pose Blender evaluates for the
flipped rig must be the unflipped one's in armature space (the same anatomical bend), hence exactly its mirror
image in the world; the bake stays true (keyed error = played distance).
"""

from __future__ import annotations

import math

import bpy
import harness
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 41))


def character(name: str, scale: tuple[float, float, float], rest_bend_deg: float = 25.0) -> rigs.ArmRig:
    rig = rigs.build_arm(name, rest_bend_deg=rest_bend_deg)
    rigs.animate_parent(rig, FRAMES, lambda f: 0.5 * math.sin(f / 7.0), lambda f: (0.02 * f, -0.01 * f))
    rigs.place_armature(rig, location=(0.7, -0.4, 0.3), rotation=(0.0, 0.3, 0.0), scale=scale,
                        keyed_shift=lambda f: (0.03 * f, 0.0, -0.02 * f), frames=FRAMES)
    return rig


FLIPS = {"x": (-1.3, 1.3, 1.3), "z": (1.3, 1.3, -1.3), "normal": (1.3, -1.3, 1.3)}


def pair(*, pole: bool = False, flip: str = "x", **chain_props: object) -> list[tuple[rigs.ArmRig, bpy.types.Object]]:
    """An unflipped character and one flipped along ``flip`` (an in-plane axis turns it around or upside down;
    the plane normal (Y for the XZ plane) mirrors it in depth only)."""
    out = []
    for name, scale in (("Right", (1.3, 1.3, 1.3)), ("Flipped", FLIPS[flip])):
        rig = character(name, scale)
        target = rigs.circle_target(rig, FRAMES, lambda f: 0.5 + 1.3 * (0.5 + 0.5 * math.sin(f / 3.0)),
                                    lambda f: 0.25 * f - 0.6, name=f"{name}Target")
        if pole:
            holder = rigs.circle_target(rig, FRAMES, lambda f: 1.0, lambda f: 0.25 * f - 0.6 + 1.2 * math.sin(f / 5),
                                        name=f"{name}Pole")
            chain_props["pole"] = holder
        chain = rigs.add_chain(rig, target)
        for key, value in chain_props.items():
            setattr(chain, key, value)
        out.append((rig, target))
    return out


def keyed_error(rig: rigs.ArmRig, frames: list[int]) -> np.ndarray:
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, "soft_ik_error"))
    assert fc is not None
    return np.array([fc.evaluate(f) for f in frames])


def elbow_side(ev: rigs.Evaluated, normal: np.ndarray) -> np.ndarray:
    """+1/-1 per frame: the elbow's side of the shoulder->tip line about the armature-space plane normal."""
    return np.sign(np.cross(ev.tip - ev.shoulder, ev.elbow - ev.shoulder) @ normal)


@pytest.mark.parametrize("flip", list(FLIPS))
@pytest.mark.parametrize("pole", [False, True], ids=["bend", "pole"])
def test_flipped_character_bakes_true_with_the_same_bend(empty_file: bpy.types.Scene, pole: bool, flip: str) -> None:
    characters = pair(pole=pole, flip=flip, softness=0.05)
    evaluated = []
    for rig, target in characters:
        chain = rig.armature.soft_ik_2d.chains[0]
        assert chain.bend == characters[0][0].armature.soft_ik_2d.chains[0].bend, "Add Chain reads the rest bend"
        assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
        ev = rigs.evaluate(rig, target, FRAMES)
        miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
        world_length = rig.length * rig.world_scale
        np.testing.assert_allclose(keyed_error(rig, FRAMES), miss, atol=1e-5 * world_length)
        tip = rigs.expected_tip(ev, rig.length, 0.05)
        assert np.linalg.norm(ev.tip - tip, axis=1).max() < 1e-4 * rig.length
        evaluated.append(ev)
    right, flipped = evaluated
    normal = characters[0][0].normal
    # The same anatomical bend: the flipped character's pose is the unflipped one's, in its own axes ...
    for joint in ("shoulder", "elbow", "tip"):
        np.testing.assert_allclose(getattr(flipped, joint), getattr(right, joint), atol=1e-5)
    np.testing.assert_array_equal(elbow_side(flipped, normal), elbow_side(right, normal))
    # ... so in the world it is exactly its mirror image.
    mirror = np.einsum("nij,njk->nik", flipped.world, np.linalg.inv(right.world))
    assert np.linalg.det(mirror[:, :3, :3]).max() < 0, "the two characters are mirror images"
    elbow_world = np.einsum("nij,nj->ni", right.world[:, :3, :3], right.elbow) + right.world[:, :3, 3]
    mirrored = np.einsum("nij,nj->ni", mirror[:, :3, :3], elbow_world) + mirror[:, :3, 3]
    flipped_elbow = np.einsum("nij,nj->ni", flipped.world[:, :3, :3], flipped.elbow) + flipped.world[:, :3, 3]
    np.testing.assert_allclose(flipped_elbow, mirrored, atol=1e-5)


def test_flipped_character_live_preview_and_overlay_bend_arrow(empty_file: bpy.types.Scene) -> None:
    draw = harness.package("panels.overlay")
    poses = []
    for rig, target in pair(softness=0.05):
        scene = bpy.context.scene
        rigs.enter_pose_mode(rig)
        rig.armature.soft_ik_2d.live_preview = True
        for f in (4, 17, 29):
            scene.frame_set(f)
            pb = rig.armature.pose.bones
            shoulder, elbow, tip = (np.array(p) for p in (pb[rig.upper].head, pb[rig.lower].head, pb[rig.lower].tail))
            poses.append((shoulder, elbow, tip))
            world = np.array(rig.armature.matrix_world)
            # Blender's tip is where the soft IK puts it (the preview solved this frame).
            target_arm = (np.linalg.inv(world) @ np.append(np.array(target.matrix_world.translation), 1.0))[:3]
            d = np.linalg.norm(target_arm - shoulder)
            reach = rigs.soft_reach(np.array([d]), rig.length, 0.05)[0]
            expected = shoulder + (target_arm - shoulder) / d * reach
            assert np.linalg.norm(tip - expected) < 1e-4 * rig.length
            # The overlay's bend arrow points from the shoulder->target line to the side the elbow is drawn on.
            ov = draw.current_overlay(bpy.context)
            assert ov is not None
            start, end = ov.bend_arrow[0], ov.bend_arrow[1]
            elbow_world = (world @ np.append(elbow, 1.0))[:3]
            shoulder_world = (world @ np.append(shoulder, 1.0))[:3]
            line = start - shoulder_world
            line /= np.linalg.norm(line)
            off_line = elbow_world - start - ((elbow_world - start) @ line) * line
            assert (end - start) @ off_line > 0, f"the bend arrow points away from the elbow at frame {f}"
        rig.armature.soft_ik_2d.live_preview = False
    for (s0, e0, t0), (s1, e1, t1) in zip(poses[:3], poses[3:], strict=True):
        np.testing.assert_allclose(np.stack([s1, e1, t1]), np.stack([s0, e0, t0]), atol=1e-5)
