"""World units on a scaled armature: Max Root Offset (Move Root) and the sensitivity the panel shows are in world
units, whatever the armature object's scale.

Offsets are measured from playback: the upper bone's evaluated head against where its head is with no pose
location (its rest under the parent's pose), both through the armature's world matrix. The sensitivity is
measured by moving the target in Live Preview and differencing the joint angles Blender shows.
"""

from __future__ import annotations

import math

import bpy
import harness
import numpy as np
import promises
import pytest
import rigs

FRAMES = list(range(1, 41))
CAP_ARM = 0.1  # the cap, in armature units (set on the chain in world units: CAP_ARM * scale)


def scaled_rig(scale: float) -> rigs.ArmRig:
    rig = rigs.build_arm(rest_bend_deg=30.0)
    rigs.place_armature(rig, scale=(scale, scale, scale))
    return rig


@pytest.mark.parametrize("scaled", ["object", "parent_bone"])
@pytest.mark.parametrize("scale", [2.0, 0.5])
def test_max_root_offset_is_a_world_distance(empty_file: bpy.types.Scene, scale: float, scaled: str) -> None:
    """The armature object, or the upper bone's parent in the pose, is scaled: either way the chain's world
    size changes, and the cap is a world distance."""
    if scaled == "object":
        rig, unit = scaled_rig(scale), 1.0
    else:
        rig, unit = rigs.build_arm(rest_bend_deg=30.0), scale  # the chain's armature-space size is scaled
        rig.armature.pose.bones["Root"].scale = (scale, scale, scale)
    # With the elbow kept at 60 degrees or more the tip reaches 1.56 from the shoulder: targets from 1.5 to 1.78
    # need no offset, less than the cap, or more than the cap.
    target = rigs.circle_target(rig, FRAMES, lambda f: unit * (1.5 + 0.28 * (0.5 - 0.5 * math.cos(f / 4.0))),
                                lambda f: 0.05 * f)
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0
    chain.use_elbow_limit, chain.elbow_min, chain.elbow_max = True, math.radians(60.0), math.radians(170.0)
    chain.limit_strategy = "MOVE_ROOT"
    chain.root_smoothing = 0
    cap = CAP_ARM * scale
    chain.max_root_offset = cap
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}

    got = promises.joints(rig, FRAMES)
    worlds = promises.armature_worlds(rig, FRAMES)
    offset = np.linalg.norm(promises.to_world(worlds, got.head) - promises.to_world(worlds, got.rest_head), axis=1)
    ev = rigs.evaluate(rig, target, FRAMES)
    miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
    tol = 1e-5 * rig.length * scale
    assert offset.max() <= cap + tol, f"root moved {offset.max():.6f} world units, cap {cap}"
    capped = np.abs(offset - cap) <= tol
    reached = miss <= tol
    assert (capped | reached).all(), [(f, o, m) for f, o, m, ok in
                                      zip(FRAMES, offset, miss, capped | reached, strict=True) if not ok][:5]
    # All three cases happen: capped (and missing), moved less than the cap (and reaching), not moved.
    assert (capped & (miss > 10 * tol)).sum() >= 3
    assert ((offset > 0.2 * cap) & (offset < 0.9 * cap) & reached).sum() >= 3
    assert (offset < tol).sum() >= 3


def sensitivity_from_blender(rig: rigs.ArmRig, target: bpy.types.Object, step: float) -> float:
    """Largest singular value of d(shoulder, elbow angles)/d(target), radians per world unit, from the poses
    Live Preview gives for targets moved ``step`` world units along the plane's two axes."""
    world = np.array(rig.armature.matrix_world)
    u, v, n = rigs.plane_axes(rig.plane)
    base = np.array(target.location)

    def angles(p: np.ndarray) -> np.ndarray:
        target.location = p.tolist()
        bpy.context.view_layer.update()
        pb = rig.armature.pose.bones
        s, e, t = (np.array(x) for x in (pb[rig.upper].head, pb[rig.lower].head, pb[rig.lower].tail))
        shoulder = promises.signed_angle(u, e - s, n)[0]
        elbow = promises.signed_angle(e - s, t - e, n)[0]
        return np.array([shoulder, elbow])

    columns = []
    for axis in (u, v):
        w = world[:3, :3] @ axis
        w /= np.linalg.norm(w)
        columns.append((angles(base + step * w) - angles(base - step * w)) / (2 * step))
    target.location = base.tolist()
    bpy.context.view_layer.update()
    return float(np.linalg.svd(np.array(columns).T, compute_uv=False)[0])


@pytest.mark.parametrize("scale", [2.0, 0.5])
def test_panel_sensitivity_is_the_solvers_figure_in_world_units(empty_file: bpy.types.Scene, scale: float) -> None:
    rig = scaled_rig(scale)
    target = rigs.new_empty("Target")
    bpy.context.view_layer.update()
    distance = 0.9 * rig.length  # armature units from the shoulder
    u, v, _n = rigs.plane_axes(rig.plane)
    head = np.array(rig.armature.pose.bones[rig.upper].head)
    world = np.array(rig.armature.matrix_world)
    direction = math.cos(0.4) * u + math.sin(0.4) * v
    target.location = (world @ np.append(head + distance * direction, 1.0))[:3].tolist()
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0
    rig.armature.soft_ik_2d.live_preview = True
    bpy.context.view_layer.update()

    status = harness.package("panels.status").frame_status(rig.armature, chain)
    assert status.sensitivity_degrees is not None
    # The pure solver, in the armature's own units (the figure depends only on the distance and lengths).
    solver = harness.package("solver")
    per_arm_unit = float(solver.solve_two_bone(np.array([distance, 0.0]), rig.a, rig.b).sensitivity)
    per_world_unit = per_arm_unit / scale
    length_world = rig.length * scale
    # The panel: degrees per 1 % of the chain's world length of target motion.
    assert status.sensitivity_degrees == pytest.approx(math.degrees(per_world_unit * 0.01 * length_world), rel=1e-5)
    entry = harness.package("rigging.live_preview").preview_of(rig.armature, chain)
    assert float(entry.solution.sensitivity[0]) == pytest.approx(per_world_unit, rel=1e-5)
    # And what Blender shows when the target really moves, in world units.
    measured = sensitivity_from_blender(rig, target, 1e-3 * length_world)
    assert measured == pytest.approx(per_world_unit, rel=2e-2)


@pytest.mark.parametrize("scale", [2.0, 0.5])
def test_small_misses_are_keyed_in_world_units_not_rounded_away(empty_file: bpy.types.Scene, scale: float) -> None:
    """Only errors below float32 resolution (1e-7 of the chain length) are keyed as 0: a target just out of reach
    (3e-5 to 1.5e-4 of the length) keys the world distance Blender shows."""
    rig = scaled_rig(scale)
    frames = list(range(1, 6))
    target = rigs.circle_target(rig, frames, lambda f: rig.length * (1 + 3e-5 * f), lambda f: 0.3)
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0
    assert rigs.bake(rig, frames[0], frames[-1]) == {"FINISHED"}
    ev = rigs.evaluate(rig, target, frames)
    miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
    np.testing.assert_allclose(miss, rig.length * scale * 3e-5 * np.array(frames), rtol=0.05)
    fc = rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, "soft_ik_error"))
    keyed = np.array([fc.evaluate(f) for f in frames])
    np.testing.assert_allclose(keyed, miss, atol=0.02 * miss.min())
