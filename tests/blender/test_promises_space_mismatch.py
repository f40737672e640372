"""Space mismatch through a parent bone: parented to the right object is not enough when the declared space
names a bone (or names none). Bake and Solve refuse, naming the target, its real parent and the declared one,
and leave the file unchanged; Fix Target Space then re-parents it with its world motion, and the bake follows.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 21))


# A target parented to a chain bone (Upper, Lower) is refused as a dependency cycle before any space check
# (test_batch_and_checks); this rig has no other bone, so "another bone" is the armature object itself.
@pytest.mark.parametrize(("have_bone", "declared_bone"), [("", "Root"), ("Root", "")])
def test_bone_of_the_declared_space_must_match(empty_file: bpy.types.Scene, have_bone: str,
                                               declared_bone: str) -> None:
    rig = rigs.build_arm()
    rigs.animate_parent(rig, FRAMES, lambda f: 0.4 * math.sin(f / 5.0), lambda f: (0.02 * f, 0.0))
    rigs.place_armature(rig, keyed_shift=lambda f: (0.03 * f, 0.0, 0.0), frames=FRAMES)
    points = rigs.circle_points(rig, FRAMES, lambda f: 1.2, lambda f: 0.2 * f)
    target = rigs.new_empty("Target")
    rigs.key_in_parent_space(target, rig.armature, have_bone, FRAMES, points)
    if not have_bone:
        # A stale bone name left by an earlier Bone parenting: Blender ignores it under Object parenting.
        target.parent_bone = declared_bone
        assert target.parent_type == "OBJECT"
    chain = rigs.add_chain(rig, target, target_space="CHARACTER")
    chain.space_bone = declared_bone
    chain.softness = 0.0
    have = f"parented to bone '{have_bone}' of 'Rig'" if have_bone else "parented to 'Rig'"
    want = f"parented to bone '{declared_bone}' of 'Rig'" if declared_bone else "parented to 'Rig'"

    for call in (lambda: rigs.bake(rig, FRAMES[0], FRAMES[-1]), lambda: bpy.ops.pose.soft_ik_solve()):
        before = rigs.snapshot()
        with pytest.raises(RuntimeError) as info:
            call()
        message = str(info.value)
        for words in ("Chain 'Lower'", f"target 'Target' is {have}", f"declares CHARACTER space ({want})",
                      "Fix Target Space"):
            assert words in message, message
        rigs.assert_same_snapshot(before, rigs.snapshot())

    world = rigs.world_matrices(target, FRAMES)
    assert bpy.ops.pose.soft_ik_fix_target_space() == {"FINISHED"}
    assert target.parent == rig.armature
    assert (target.parent_bone if target.parent_type == "BONE" else "") == declared_bone
    np.testing.assert_allclose(rigs.world_matrices(target, FRAMES), world, atol=1e-5)
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}
    ev = rigs.evaluate(rig, target, FRAMES)
    assert np.linalg.norm(ev.tip_world - ev.target_world, axis=1).max() < 1e-4 * rig.length * rig.world_scale


def test_declared_space_bone_that_does_not_exist_is_refused(empty_file: bpy.types.Scene) -> None:
    rig = rigs.build_arm()
    target = rigs.new_empty("Target")
    target.parent = rig.armature
    chain = rigs.add_chain(rig, target, target_space="CHARACTER")
    chain.space_bone = "Hip"  # the armature has no such bone
    for call in (lambda: rigs.bake(rig, 1, 10), lambda: bpy.ops.pose.soft_ik_solve()):
        before = rigs.snapshot()
        with pytest.raises(RuntimeError) as info:
            call()
        assert "space bone 'Hip' is not a bone of 'Rig'" in str(info.value), str(info.value)
        rigs.assert_same_snapshot(before, rigs.snapshot())
