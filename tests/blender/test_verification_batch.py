"""Issue 17: the verification composes the chains of a bake together (rigging/verification_compose.py).

Chains of the same structure are composed in one pass over their concatenated frames, each armature's channels
taken from what the bake wrote. What each chain gets must be what it gets composed alone, bit for bit, however
the frames are cut into blocks and passes, and it must be what Blender plays back.
"""

from __future__ import annotations

import bpy
import harness
import numpy as np
import pytest
import rigs
from test_production_truth import FRAMES, TOLERANCE, chain_rig, playback


def _crowd() -> list[tuple[rigs.ArmRig, bpy.types.Object]]:
    """Four arms on moving, mirrored armatures: two of one structure (reaching elsewhere), one with an
    Euler upper bone, one with an axis-angle lower bone (three structures)."""
    out = []
    for k, (upper_mode, lower_mode) in enumerate((("QUATERNION", "QUATERNION"), ("QUATERNION", "QUATERNION"),
                                                  ("XYZ", "QUATERNION"), ("QUATERNION", "AXIS_ANGLE"))):
        rig, _chain, target = chain_rig()
        target.delta_location = (0.05 * k, 0.0, -0.04 * k)
        rig.armature.pose.bones[rig.upper].rotation_mode = upper_mode
        rig.armature.pose.bones[rig.lower].rotation_mode = lower_mode
        out.append((rig, target))
    return out


def _bake_capturing(crowd: list[tuple[rigs.ArmRig, bpy.types.Object]], monkeypatch: pytest.MonkeyPatch) -> list:
    """Bake the crowd together; returns each call of ``verification.measure`` (args, result)."""
    verification = harness.package("rigging.verification")
    calls = []
    measure = verification.measure

    def spy(*args: object, **kwargs: object) -> object:
        result = measure(*args, **kwargs)
        calls.append((args, result))
        return result

    monkeypatch.setattr(verification, "measure", spy)
    rigs.pose_mode_together([rig.armature for rig, _target in crowd])
    assert bpy.ops.pose.soft_ik_bake(frame_start=FRAMES[0], frame_end=FRAMES[-1]) == {"FINISHED"}
    monkeypatch.setattr(verification, "measure", measure)
    return calls


@pytest.mark.parametrize(("rows", "chunk"), [(65536, 16384), (16, 16384), (7, 16384), (29, 16384), (65536, 29)])
def test_chains_composed_together_are_each_composed_alone_and_true(
        empty_file: bpy.types.Scene, monkeypatch: pytest.MonkeyPatch, rows: int, chunk: int) -> None:
    """Whatever the passes (``rows``) and the single-chain blocks (``chunk``: 30 frames end a block of 29 with
    one, which is composed alone), each chain's error, deviation and scale have the bits of its composition
    alone, and its error is the distance Blender plays back."""
    crowd = _crowd()
    calls = _bake_capturing(crowd, monkeypatch)
    assert len(calls) == 1
    (_context, prepared, solutions, keyed), baked = calls[0]
    assert len(prepared) == len(crowd)
    verification = harness.package("rigging.verification")
    compose = harness.package("rigging.verification_compose")
    monkeypatch.setattr(compose, "ROWS", rows)
    monkeypatch.setattr(compose, "CHUNK", chunk)
    known = [verification._known(sol, k) for sol, k in zip(solutions, keyed, strict=True)]
    assert all(k is not None for k in known), "the bake's written values are used"
    for given in (known, [None] * len(known)):  # from what the bake wrote, and read back through the sampler
        together = compose.compose_chains(prepared, solutions, given)
        for c, (rig, sol) in enumerate(zip(prepared, solutions, strict=True)):
            alone = compose.compose_chain(rig, sol, given[c])
            for got, want in zip(together[c], alone, strict=True):
                assert got.tobytes() == want.tobytes()
            if chunk == 16384:  # the bake's own measurement too (a block of one frame has other last bits)
                assert together[c][0].tobytes() == baked[c].error.tobytes()
    for rig, target in crowd:
        c = next(c for c, chain in enumerate(prepared) if chain.armature == rig.armature)
        miss, _keyed, length = playback(rig, target)
        measured = together[c][0]
        assert np.isfinite(measured).all()
        assert (np.abs(measured - miss) / length).max() <= TOLERANCE, rig.armature.name
