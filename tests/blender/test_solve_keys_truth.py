"""Solve with Insert Keys keeps the bake's promise (issue 9): the keyed ``soft_ik_error`` of the frame it keys is
the distance Blender plays back from the new keys, and a mismatch the checks did not anticipate is warned.

Truth is read by playback only (``scene.frame_set``, the evaluated pose and ``matrix_world``), never from the
add-on; the setups are the production-truth ones (``test_production_truth``).
"""

from __future__ import annotations

from collections.abc import Callable

import bpy
import numpy as np
import pytest
import rigs
from test_production_truth import MISMATCH, TOLERANCE, _noise_on_upper_rotation, chain_rig, playback

FRAME = 12


def _solve_keyed(rig: rigs.ArmRig, capfd: pytest.CaptureFixture[str]) -> str:
    rigs.enter_pose_mode(rig)
    bpy.context.scene.frame_set(FRAME)
    capfd.readouterr()
    assert bpy.ops.pose.soft_ik_solve(insert_keys=True) == {"FINISHED"}
    return capfd.readouterr().out


def _nothing(_rig: rigs.ArmRig) -> None:
    return None


# A rest position is refused now (test_rest_position.py): it is no longer a mismatch the checks did not anticipate.
@pytest.mark.parametrize("make", [_noise_on_upper_rotation, _nothing], ids=["noise-modifier", "plain"])
def test_keyed_error_of_the_solved_frame_is_the_played_back_one(empty_file: bpy.types.Scene,
                                                               capfd: pytest.CaptureFixture[str],
                                                               make: Callable[[rigs.ArmRig], None]) -> None:
    rig, chain, target = chain_rig()
    make(rig)
    out = _solve_keyed(rig, capfd)
    miss, keyed, length = playback(rig, target, [FRAME])
    gap = abs(miss[0] - keyed[0]) / length[0]
    assert gap <= TOLERANCE, f"keyed error {keyed[0]:.6g} but Blender plays back {miss[0]:.6g} ({gap:.3g} L)"
    warnings = [line for line in out.splitlines() if line.startswith("Warning:") and MISMATCH in line]
    if make is _nothing:
        assert not warnings, out
        assert miss[0] / length[0] < TOLERANCE, "a reachable target is reached"
        return
    assert miss[0] / length[0] > 100 * TOLERANCE, "the setup was meant to move the tip off the solved pose"
    assert len(warnings) == 1 and "Chain 'Lower' of 'Rig'" in warnings[0] and f": {FRAME}" in warnings[0], out
    # Only the solved frame was re-keyed: the error keys of the other frames are the earlier bake's (if any).
    error = rigs.key_frames(rigs.fcurve(rig.armature, rigs.bone_path(rig.lower, "soft_ik_error")))
    assert FRAME in error[:, 0]
    assert np.isfinite(error).all()
    del chain
