"""Joint limits in a real bake: on a rig whose rest pose is not straight, the angles Blender plays back stay
within the declared limits on every frame, with each strategy.

The limits are measured as the panel describes them (properties.py): the upper bone's angle from its rest
direction (under its parent's pose) within [Upper Min, Upper Max], and the lower segment's angle relative to
the upper segment (0 = straight) within [Lower Min, Lower Max]. Angles come from the evaluated pose bones.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import promises
import pytest
import rigs

FRAMES = list(range(1, 49))
TOL = 2e-4  # radians: float32 keys and bone matrices
SHOULDER = (math.radians(-50.0), math.radians(35.0))
ELBOW = (math.radians(-110.0), math.radians(-15.0))  # the rest pose bends this way (bend -1)


def limited_rig() -> tuple[rigs.ArmRig, bpy.types.Object]:
    rig = promises.bent_arm()
    rigs.animate_parent(rig, FRAMES, lambda f: 0.5 * math.sin(f / 8.0), lambda f: (0.01 * f, -0.01 * f))
    rigs.place_armature(rig, scale=(-1.3, 1.3, 1.3), keyed_shift=lambda f: (0.02 * f, 0.0, -0.01 * f),
                        frames=FRAMES)
    # Sweeping all the way round the shoulder, near and far: both limits of both joints are needed.
    target = rigs.circle_target(rig, FRAMES, lambda f: rig.length * (0.3 + 0.6 * (0.5 + 0.5 * math.sin(f / 3.0))),
                                lambda f: -2.0 + 4.0 * f / FRAMES[-1])
    return rig, target


def test_the_rest_pose_is_really_not_straight(empty_file: bpy.types.Scene) -> None:
    rig = promises.bent_arm()
    shoulder, elbow = promises.rest_angles(rig)
    assert abs(shoulder) > math.radians(10.0) and abs(elbow) > math.radians(10.0), (shoulder, elbow)


@pytest.mark.parametrize("strategy", ["ACCEPT", "MOVE_ROOT", "STRETCH"])
def test_played_back_angles_stay_within_the_limits(empty_file: bpy.types.Scene, strategy: str) -> None:
    rig, target = limited_rig()
    free = promises.joints(rig, FRAMES)  # no keys yet: the rest pose under the animated parent
    assert np.abs(free.shoulder_delta).max() < 1e-5
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0
    chain.use_shoulder_limit, chain.shoulder_min, chain.shoulder_max = True, *SHOULDER
    chain.use_elbow_limit, chain.elbow_min, chain.elbow_max = True, *ELBOW
    chain.limit_strategy = strategy
    chain.max_root_offset = 0.2
    chain.stretch_min, chain.stretch_max = 0.7, 1.3
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    assert chain.limited_frames > 0

    got = promises.joints(rig, FRAMES)
    s, e = got.shoulder_delta, got.elbow
    worst = [(f, round(math.degrees(x), 3)) for f, x in zip(FRAMES, s, strict=True)
             if not SHOULDER[0] - TOL <= x <= SHOULDER[1] + TOL]
    assert not worst, f"upper bone outside [{SHOULDER}] from its rest direction (frame, degrees): {worst[:6]}"
    worst = [(f, round(math.degrees(x), 3)) for f, x in zip(FRAMES, e, strict=True)
             if not ELBOW[0] - TOL <= x <= ELBOW[1] + TOL]
    assert not worst, f"lower bone outside [{ELBOW}] from the upper segment (frame, degrees): {worst[:6]}"
    # The limits really acted: each joint sits on one of its bounds on some frames, and both bounds of the
    # shoulder's range are used (the target sweeps around it).
    on = {name: [np.abs(values - bound) < TOL for bound in bounds]
          for name, values, bounds in (("shoulder", s, SHOULDER), ("elbow", e, ELBOW))}
    assert on["shoulder"][0].any() and on["shoulder"][1].any(), "the shoulder limit never acted"
    assert (on["elbow"][0] | on["elbow"][1]).any(), "the elbow limit never acted"
    # Between bounds, the chain still reaches for the target (the limit did not act everywhere).
    ev = rigs.evaluate(rig, target, FRAMES)
    miss = np.linalg.norm(ev.tip_world - ev.target_world, axis=1)
    free_frames = ~(on["shoulder"][0] | on["shoulder"][1] | on["elbow"][0] | on["elbow"][1])
    assert free_frames.sum() >= 5
    if strategy == "ACCEPT":
        assert miss[free_frames].max() < 1e-4 * rig.length * rig.world_scale


def test_stretch_stays_within_its_range(empty_file: bpy.types.Scene) -> None:
    """Stretch scales the chain by one factor within [Stretch Min, Stretch Max]: the bone lengths Blender plays
    back, over their rest lengths, stay in the range, and reach both ends when the limits leave no other way."""
    rig = promises.bent_arm()
    rigs.place_armature(rig, scale=(0.8, 0.8, 0.8))
    # Far targets need the elbow straighter than 60 degrees allows (stretch), near ones more bent than 100 (shrink).
    target = rigs.circle_target(rig, FRAMES, lambda f: rig.length * (0.35 + 0.85 * (0.5 + 0.5 * math.sin(f / 3.0))),
                                lambda f: 0.05 * f)
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0
    chain.use_elbow_limit, chain.elbow_min, chain.elbow_max = True, math.radians(-100.0), math.radians(-60.0)
    # Stretch makes up for the limit, not for the reach: at most full length, 1.148 times the 60 degree reach.
    chain.limit_strategy, chain.stretch_min, chain.stretch_max = "STRETCH", 0.9, 1.1
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    ev = rigs.evaluate(rig, target, FRAMES)
    upper = np.linalg.norm(ev.elbow - ev.shoulder, axis=1) / rig.a
    lower = np.linalg.norm(ev.tip - ev.elbow, axis=1) / rig.b
    np.testing.assert_allclose(lower, upper, atol=1e-5)  # one factor for both bones
    assert upper.min() >= 0.9 - 1e-5 and upper.max() <= 1.1 + 1e-5, (upper.min(), upper.max())
    assert (np.abs(upper - 0.9) < 1e-5).any() and (np.abs(upper - 1.1) < 1e-5).any()
