"""Baking files headless from Python (issue 16), in the ``bpy`` module: ``rigging.pipeline.bake_files`` on one
file, in this process, as a pipeline running ``blender -b --python`` calls it. The command line itself, worker
processes, crashes and the Flamenco command lines run against a real Blender binary in scripts/cli_tests.sh.

Truth: the saved file opened again and played back (``scene.frame_set``, the lower bone's tail in world space
against the target's world position).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import bpy
import harness
import numpy as np
import pytest
import rigs

FRAMES = list(range(1, 21))


def _shot(path: Path, carrier_expression: str | None = None) -> None:
    """An arm reaching for an Empty keyed on a circle; with ``carrier_expression`` the Empty hangs from a
    'Carrier' Empty whose X location is driven by that expression."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = FRAMES[0], FRAMES[-1]
    rig = rigs.build_arm("Rig", rest_bend_deg=25.0)
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.3, lambda f: 0.3 * f)
    if carrier_expression is not None:
        carrier = rigs.new_empty("Carrier")
        driver = carrier.driver_add("location", 0).driver
        driver.type = "SCRIPTED"
        driver.expression = carrier_expression
        target.parent = carrier
    scene.frame_set(FRAMES[0])
    chain = rigs.add_chain(rig, target)
    chain.name = "Arm"
    if carrier_expression is not None:
        chain.target_space, chain.space_object = "OBJECT", bpy.data.objects["Carrier"]
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.wm.save_as_mainfile(filepath=str(path))


def _playback(path: Path) -> np.ndarray:
    bpy.ops.wm.open_mainfile(filepath=str(path), load_ui=False)
    scene, arm, target = bpy.context.scene, bpy.data.objects["Rig"], bpy.data.objects["Target"]
    out = []
    for f in FRAMES:
        scene.frame_set(f)
        tail = np.array(arm.matrix_world @ arm.pose.bones["Lower"].tail)
        out.append(np.linalg.norm(tail - np.array(target.matrix_world.translation)))
    return np.array(out)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_bake_files_in_process_saves_a_true_bake(tmp_path: Path) -> None:
    pipeline = harness.package("rigging.pipeline")
    shot = tmp_path / "shot.blend"
    _shot(shot)
    before = _sha(shot)
    report_path = tmp_path / "report.json"
    lines: list[str] = []
    report = pipeline.bake_files([str(shot)], pipeline.Options(output_dir=str(tmp_path / "out")),
                                 report_path=str(report_path), progress=lines.append)
    assert report["ok"] and json.loads(report_path.read_text()) == report
    (entry,) = report["files"]
    assert entry["status"] == "baked" and entry["saved"] == str(tmp_path / "out" / "shot.blend")
    (chain,) = entry["chains"]
    assert (chain["armature"], chain["chain"], chain["frames"]) == ("Rig", "Arm", len(FRAMES))
    assert len(lines) == 1 and lines[0].startswith("[1/1] shot.blend: 1 chain(s) baked, 0 refused")
    assert _sha(shot) == before  # --output-dir leaves the input as it was
    distance = _playback(tmp_path / "out" / "shot.blend")
    assert distance.max() < 1e-4 * 1.8
    assert chain["error_max"] == pytest.approx(distance.max(), abs=1e-5)


def test_python_driver_refused_by_name_simple_expression_baked(tmp_path: Path) -> None:
    pipeline = harness.package("rigging.pipeline")
    python, simple = tmp_path / "python.blend", tmp_path / "simple.blend"
    _shot(python, "0.1 + 0.0 * len('ab')")
    _shot(simple, "0.1 + 0.01 * frame")
    before = _sha(python)
    report = pipeline.bake_files([str(python)], pipeline.Options(save=True), progress=None)
    (entry,) = report["files"]
    assert not report["ok"] and entry["status"] == "refused" and entry["saved"] is None
    message = entry["chains"][0]["message"]
    # Found through the target's parent: the driver that moves the Carrier the target hangs from.
    assert "driver location[0] of 'Carrier' needs auto-run" in message and "len('ab')" in message, message
    assert _sha(python) == before
    report = pipeline.bake_files([str(simple)], pipeline.Options(save=True), progress=None)
    assert report["ok"], report
    assert _playback(simple).max() < 1e-4 * 1.8


def test_command_line_arguments(tmp_path: Path) -> None:
    cli = harness.package("rigging.cli")
    if hasattr(bpy.utils, "register_cli_command"):
        assert cli._handle is not None
    assert cli.main(["bake"]) == 2  # no file
    assert cli.main(["bake", "a.blend", "--frames", "20-10"]) == 2
    assert cli.main(["bake", "a.blend", "--save", "--output-dir", "x"]) == 2
    # A negative start frame needs the = form (argparse would read -5-12 as an option).
    args = cli.parser().parse_args(["bake", "a.blend", "b.blend", "--frames=-5-12", "--jobs", "2",
                                    "--chain", "L", "--chain", "R"])
    options = cli.options_of(args)
    assert (options.frames, options.jobs, options.chains) == ((-5, 12), 2, ("L", "R"))
    assert harness.package("rigging.pipeline").options_argv(options) == ["--frames=-5-12", "--chain", "L",
                                                                          "--chain", "R"]
    missing = tmp_path / "missing.blend"
    assert cli.main(["bake", str(missing), "--report", str(tmp_path / "r.json")]) == 1
    entry = json.loads((tmp_path / "r.json").read_text())["files"][0]
    assert entry["status"] == "failed" and "does not exist" in entry["error"]


def test_chain_dropped_by_the_solve_named_others_baked(tmp_path: Path) -> None:
    """A chain whose target is never finite is refused by the solve (not by the checks): it is named with its
    message, the other chain of the file bakes, and the file is saved (status partial)."""
    pipeline = harness.package("rigging.pipeline")
    shot = tmp_path / "two.blend"
    _shot(shot)
    bpy.ops.wm.open_mainfile(filepath=str(shot))
    other = rigs.build_arm("Other", shoulder=(4.0, 1.5), rest_bend_deg=25.0)
    lost = rigs.circle_target(other, FRAMES, lambda f: 1.0, lambda f: 0.2 * f, name="Lost")
    for fc in harness.package("rigging.anim_keys").iter_fcurves(lost):
        for kp in fc.keyframe_points:
            kp.co.y = kp.handle_left.y = kp.handle_right.y = float("nan")
    bpy.context.scene.frame_set(FRAMES[0])
    rigs.add_chain(other, lost).name = "LostArm"
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.wm.save_mainfile()
    report = pipeline.bake_files([str(shot)], pipeline.Options(save=True), progress=None)
    (entry,) = report["files"]
    assert not report["ok"] and entry["status"] == "partial" and entry["saved"] == str(shot), entry
    chains = {c["chain"]: c for c in entry["chains"]}
    assert chains["Arm"]["status"] == "baked"
    assert chains["LostArm"]["status"] == "refused" and "LostArm" in chains["LostArm"]["message"], chains
    assert "finite" in chains["LostArm"]["message"]
    assert _playback(shot).max() < 1e-4 * 1.8


def test_a_hand_chain_under_the_arm_chain_bakes_true_and_one_left_out_is_named(tmp_path: Path) -> None:
    """The pipeline solves the chains in the Bake operator's levels (``chain_order``): the hand after the arm."""
    pipeline = harness.package("rigging.pipeline")
    shot = tmp_path / "hands.blend"
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = FRAMES[0], FRAMES[-1]
    rig = rigs.build_arm("Rig", rest_bend_deg=25.0)
    hand = rigs.add_hand(rig)
    target = rigs.circle_target(rig, FRAMES, lambda f: 1.3, lambda f: 0.3 * f)
    hand_target = rigs.circle_target(rig, FRAMES, lambda f: 1.9, lambda f: 0.3 * f + 0.4, name="HandTarget")
    rigs.add_chain(hand, hand_target).name = "Hand"  # listed first
    rigs.add_chain(rig, target).name = "Arm"
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.wm.save_as_mainfile(filepath=str(shot))
    report = pipeline.bake_files([str(shot)], pipeline.Options(save=True), progress=None)
    (entry,) = report["files"]
    assert entry["status"] == "baked" and entry["stale_chains"] == [], entry
    keyed = {c["chain"]: c["error_max"] for c in entry["chains"]}
    bpy.ops.wm.open_mainfile(filepath=str(shot), load_ui=False)
    scene, arm = bpy.context.scene, bpy.data.objects["Rig"]
    hand_goal = bpy.data.objects["HandTarget"]
    miss = []
    for f in FRAMES:
        scene.frame_set(f)
        tail = np.array(arm.matrix_world @ arm.pose.bones["Finger"].tail)
        miss.append(np.linalg.norm(tail - np.array(hand_goal.matrix_world.translation)))
        assert arm.pose.bones["Finger"]["soft_ik_error"] == pytest.approx(miss[-1], abs=1e-4)
    assert keyed["Hand"] == pytest.approx(max(miss), abs=1e-5)

    lines: list[str] = []
    report = pipeline.bake_files([str(shot)], pipeline.Options(save=True, chains=("Arm",), frames=(5, 9)),
                                 progress=lines.append)
    (entry,) = report["files"]
    assert len(entry["stale_chains"]) == 1 and "Chain 'Hand' of 'Rig' hangs from" in entry["stale_chains"][0]
    assert "frames 5-9" in entry["stale_chains"][0] and entry["stale_chains"][0] in lines[0]
