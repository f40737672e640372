"""The built-in demo builds and bakes, and its error curves say what Blender plays back (no rendering).

The demo (``demo/``) is a dev tool beside the add-on, imported from the repository; the extension it drives
is the installed one.
"""

from __future__ import annotations

import sys
from pathlib import Path

import bpy
import harness
import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from demo import character  # noqa: E402
from demo.build import FRAMES, build_demo  # noqa: E402


def _played_back_misses(arm: bpy.types.Object) -> dict[str, np.ndarray]:
    """Per chain, the tip-to-target world distance on every frame, from Blender's evaluated pose."""
    scene = bpy.context.scene
    chains = list(arm.soft_ik_2d.chains)
    out: dict[str, list[float]] = {c.name: [] for c in chains}
    for f in range(FRAMES[0], FRAMES[1] + 1):
        scene.frame_set(f)
        for c in chains:
            tip = arm.matrix_world @ arm.pose.bones[c.lower_bone].tail
            out[c.name].append((tip - c.target.matrix_world.translation).length)
    return {k: np.array(v) for k, v in out.items()}


def test_demo_builds_bakes_and_measures_its_errors(empty_file: bpy.types.Scene) -> None:
    arm = build_demo(empty_file)
    character.dress_scene(empty_file, arm, bpy.data.objects["Door"])
    # Every piece follows a bone of the rig, and the camera frames the scene.
    pieces = [o for o in bpy.data.objects if o.type == "MESH" and o.parent == arm]
    assert len(pieces) >= 15 and all(o.parent_type == "BONE" and o.parent_bone in arm.data.bones for o in pieces)
    assert empty_file.camera is not None and empty_file.render.engine == "BLENDER_WORKBENCH"

    bpy.context.view_layer.objects.active = arm
    assert bpy.ops.pose.soft_ik_bake() == {"FINISHED"}
    anim_keys = harness.package("rigging.anim_keys")
    misses = _played_back_misses(arm)
    frames = np.arange(FRAMES[0], FRAMES[1] + 1)
    chains = {c.name: c for c in arm.soft_ik_2d.chains}
    assert set(chains) == {"Leg.L", "Leg.R", "Arm.L", "Arm.R"}
    for name, chain in chains.items():
        curve = anim_keys.find_fcurve(arm, f'pose.bones["{chain.lower_bone}"]["soft_ik_error"]')
        assert curve is not None, name
        keyed = np.array([curve.evaluate(float(f)) for f in frames])
        # The keyed error is what playing the scene back measures (float32 keys, millimetre-sized rig).
        np.testing.assert_allclose(keyed, misses[name], atol=2e-5, err_msg=name)
        assert abs(chain.error_max - misses[name].max()) < 2e-5, name

    # What the pictures show: the door pulls the hand out of reach (soft IK leaves a visible error) ...
    assert misses["Arm.R"].max() > 0.1
    # ... the feet stay planted within a millimetre, and the hip hand's elbow limit acted on some frames,
    # where stretching kept the hand on the hip.
    assert misses["Leg.L"].max() < 1e-3 and misses["Leg.R"].max() < 1e-3
    assert 0 < chains["Arm.L"].limited_frames < len(frames)
    assert misses["Arm.L"].max() < 1e-4
