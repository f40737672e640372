"""Target smoothing in a bake is set in Hz and seconds, so it means the same at any frame rate, measured from
playback of a target that jumps (the tip follows the smoothed target, which closes the gap by ``alpha`` per
frame): Exponential of cutoff fc has ``alpha = 1 - exp(-1 / tau)``, tau = fps / (2 pi fc) frames; One Euro
with no speed coefficient is a low-pass of cutoff fc with ``alpha = 1 / (1 + fps / (2 pi fc))``.
"""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 31))
JUMP = 11  # the target jumps on this frame
CUTOFF = 1.5  # Hz


@pytest.mark.parametrize("method", ["EXPONENTIAL", "ONE_EURO"])
@pytest.mark.parametrize("fps", [24, 60])
def test_smoothing_has_its_time_constant_in_seconds(empty_file: bpy.types.Scene, fps: int, method: str) -> None:
    scene = empty_file
    scene.render.fps, scene.render.fps_base = fps, 1.0
    rig = rigs.build_arm(rest_bend_deg=20.0)
    # Both positions well inside the reach: the tip is wherever the smoothed target is.
    a = rigs.circle_points(rig, [1], lambda f: 1.0, lambda f: 0.2)
    b = rigs.circle_points(rig, [1], lambda f: 1.4, lambda f: 0.7)
    target = rigs.new_empty("Target")
    for f, p in ((FRAMES[0], a[0]), (JUMP - 1, a[0]), (JUMP, b[0]), (FRAMES[-1], b[0])):
        target.location = p.tolist()
        target.keyframe_insert("location", frame=f)
    for fc in rigs.harness.package("rigging.anim_keys").iter_fcurves(target):
        for kp in fc.keyframe_points:
            kp.interpolation = "CONSTANT"
    chain = rigs.add_chain(rig, target)
    chain.softness = 0.0
    chain.smoothing, chain.smoothing_cutoff, chain.smoothing_beta = method, CUTOFF, 0.0
    assert rigs.bake(rig, FRAMES[0], FRAMES[-1]) == {"FINISHED"}

    ev = rigs.evaluate(rig, target, FRAMES)
    gap = np.linalg.norm(ev.tip_world - b[0], axis=1) / np.linalg.norm(a[0] - b[0])
    tau = fps / (2 * math.pi * CUTOFF)  # frames
    keep = math.exp(-1 / tau) if method == "EXPONENTIAL" else 1 - 1 / (1 + tau)  # 1 - alpha
    n = np.array(FRAMES) - JUMP
    expected = np.where(n < 0, 1.0, keep ** (n + 1.0))
    np.testing.assert_allclose(gap, expected, atol=1e-4)
