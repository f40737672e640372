"""Our bake against Blender's own IK constraint on the same rig and target path.

Blender's legacy IK cannot bend a perfectly straight chain, so both rigs are drawn with a 10 degree rest bend;
the IK constraint gets a pole on the rest-bend side and the ``pole_angle`` that keeps its chain in the plane
(found by trying angles, as a user would). Softness 0, no limits.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import rigs

FRAMES = list(range(1, 41))
REST_BEND = 10.0


def twin_rigs() -> tuple[rigs.ArmRig, rigs.ArmRig]:
    ours = rigs.build_arm("Ours", rest_bend_deg=REST_BEND, with_parent=False)
    theirs = rigs.build_arm("Theirs", rest_bend_deg=REST_BEND, with_parent=False)
    for rig in (ours, theirs):
        rigs.place_armature(rig, scale=(1.3, 1.3, 1.3))
    return ours, theirs


def pole_path(rig: rigs.ArmRig, target: bpy.types.Object, side: np.ndarray) -> bpy.types.Object:
    """An Empty keyed beside the middle of the shoulder->target line: ``side`` > 0 on its clockwise side
    (where bend +1 puts the elbow), < 0 on the other."""
    ev = rigs.evaluate(rig, target, FRAMES)
    d = ev.target_arm - ev.shoulder
    clockwise = -np.cross(rig.normal, d)
    points_arm = ev.shoulder + 0.5 * d + side[:, None] * clockwise
    points = np.einsum("nij,nj->ni", ev.world[:, :3, :3], points_arm) + ev.world[:, :3, 3]
    pole = rigs.new_empty("Pole")
    rigs.key_locations(pole, FRAMES, points)
    return pole


def blender_ik(rig: rigs.ArmRig, target: bpy.types.Object, pole: bpy.types.Object,
               calibration_frames: list[int]) -> float:
    con = rig.armature.pose.bones[rig.lower].constraints.new("IK")
    con.target, con.pole_target, con.chain_count = target, pole, 2
    return rigs.calibrate_pole_angle(rig, con, target, calibration_frames)


def test_tip_positions_agree_with_blender_ik(empty_file: bpy.types.Scene) -> None:
    ours, theirs = twin_rigs()
    # Reachable everywhere: from near the inner radius (0.2) to near full extension (1.8).
    target = rigs.circle_target(ours, FRAMES, lambda f: 1.0 + 0.7 * math.sin(f / 4.0), lambda f: 0.3 * f)
    pole = pole_path(ours, target, np.ones(len(FRAMES)))
    assert blender_ik(theirs, target, pole, FRAMES[:1]) < 1e-5
    chain = rigs.add_chain(ours, target)
    assert chain.bend == 1  # from the rest bend
    chain.softness = 0.0
    assert rigs.bake(ours, FRAMES[0], FRAMES[-1]) == {"FINISHED"}

    ev_ours = rigs.evaluate(ours, target, FRAMES)
    ev_theirs = rigs.evaluate(theirs, target, FRAMES)
    world_length = ours.length * ours.world_scale
    blender_miss = np.linalg.norm(ev_theirs.tip_world - ev_theirs.target_world, axis=1)
    assert blender_miss.max() < 1e-3 * world_length  # the baseline itself works on this rig
    gap = np.linalg.norm(ev_ours.tip_world - ev_theirs.tip_world, axis=1)
    assert (gap <= blender_miss + 1e-4 * world_length).all(), (gap.max(), blender_miss.max())
    # Same solution branch: the elbows agree too.
    elbow_gap = np.linalg.norm(ev_ours.elbow - ev_theirs.elbow, axis=1)
    assert elbow_gap.max() < 1e-3 * ours.length
    assert rigs.plane_offset(theirs, ev_theirs).max() < 1e-4 * ours.length
    assert rigs.plane_offset(ours, ev_ours).max() < 1e-4 * ours.length


def test_pole_crossing_twists_blender_out_of_plane_but_not_ours(empty_file: bpy.types.Scene) -> None:
    ours, theirs = twin_rigs()
    target = rigs.circle_target(ours, FRAMES, lambda f: 1.2, lambda f: 0.05 * f)
    side = np.linspace(1.0, -1.0, len(FRAMES)) + 0.013  # crosses between two frames, never on the line
    pole = pole_path(ours, target, side)
    blender_ik(theirs, target, pole, FRAMES[:1])
    chain = rigs.add_chain(ours, target)
    chain.softness, chain.pole = 0.0, pole
    assert rigs.bake(ours, FRAMES[0], FRAMES[-1]) == {"FINISHED"}

    ev_ours = rigs.evaluate(ours, target, FRAMES)
    ev_theirs = rigs.evaluate(theirs, target, FRAMES)
    after = side < 0
    # Blender keeps its rest bend and turns the whole chain 180 degrees about shoulder->target: the bones'
    # local normal axes flip (a cut-out would show mirrored sprites).
    theirs_axes = ev_theirs.normal_axes @ ours.normal
    assert theirs_axes[~after].min() > 0.99
    assert theirs_axes[after].max() < -0.99
    # Ours mirrors the bend inside the plane: axes stay along the normal, the elbow follows the pole.
    assert (ev_ours.normal_axes @ ours.normal).min() > 1 - 1e-6
    assert rigs.plane_offset(ours, ev_ours).max() < 1e-4 * ours.length
    d = ev_ours.target_arm - ev_ours.shoulder
    pole_arm = np.array([(np.linalg.inv(w) @ np.append(p, 1.0))[:3]
                         for w, p in zip(ev_ours.world, pole_world(pole), strict=True)])
    elbow_side = np.sign(np.cross(d, ev_ours.elbow - ev_ours.shoulder) @ ours.normal)
    pole_side = np.sign(np.cross(d, pole_arm - ev_ours.shoulder) @ ours.normal)
    np.testing.assert_array_equal(elbow_side, pole_side)
    # Both still reach the target.
    world_length = ours.length * ours.world_scale
    assert np.linalg.norm(ev_ours.tip_world - ev_ours.target_world, axis=1).max() < 1e-4 * world_length
    assert np.linalg.norm(ev_theirs.tip_world - ev_theirs.target_world, axis=1).max() < 1e-3 * world_length


def pole_world(pole: bpy.types.Object) -> np.ndarray:
    out = []
    for f in FRAMES:
        bpy.context.scene.frame_set(f)
        out.append(np.array(pole.matrix_world.translation))
    return np.array(out)
