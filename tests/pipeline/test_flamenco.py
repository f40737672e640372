"""The Flamenco 3 job type (scripts/flamenco/soft_ik_2d_bake.js) compiled under node with a stub of Flamenco's
author API (flamenco_stub.js): the exact command lines of its tasks. scripts/cli_tests.sh runs such command
lines with a real Blender."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
JOB_TYPE = HERE.parents[1] / "scripts" / "flamenco" / "soft_ik_2d_bake.js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def compile_job(**settings: object) -> subprocess.CompletedProcess[str]:
    assert NODE is not None
    return subprocess.run([NODE, str(HERE / "flamenco_stub.js"), str(JOB_TYPE), json.dumps(settings)],
                          capture_output=True, text=True, timeout=60, check=False)


def command_lines(**settings: object) -> list[list[str]]:
    proc = compile_job(**settings)
    assert proc.returncode == 0, proc.stderr
    tasks = json.loads(proc.stdout)
    out = []
    for task in tasks:
        assert task["type"] == "blender" and task["dependencies"] == []
        (command,) = task["commands"]
        assert command["type"] == "exec"
        out.append([command["parameters"]["exe"], *command["parameters"]["args"]])
    return out


def test_one_task_per_shot_saving_in_place() -> None:
    lines = command_lines(shots="/farm/ep1/sh010.blend\n/farm/ep1/sh020.blend", report_dir="/farm/reports")
    assert lines == [
        ["{blender}", "--command", "soft_ik_2d", "bake", "/farm/ep1/sh010.blend", "--save",
         "--report", "/farm/reports/sh010.json"],
        ["{blender}", "--command", "soft_ik_2d", "bake", "/farm/ep1/sh020.blend", "--save",
         "--report", "/farm/reports/sh020.json"],
    ]


def test_every_setting_becomes_its_flag() -> None:
    lines = command_lines(shots=" /s/a.blend ; /t/a.blend;", report_dir="/r", frames="-5-120", output_dir="/baked",
                          armatures="Hero, Sidekick", chains="ArmL", enable_autoexec=True,
                          blender_cmd="/opt/blender-4.2/blender")
    common = ["--frames=-5-120", "--output-dir", "/baked", "--armature", "Hero", "--armature", "Sidekick",
              "--chain", "ArmL", "--enable-autoexec"]
    assert lines == [
        ["/opt/blender-4.2/blender", "--command", "soft_ik_2d", "bake", "/s/a.blend", *common, "--report", "/r/a.json"],
        # The same file name twice: the second report is numbered, not overwritten.
        ["/opt/blender-4.2/blender", "--command", "soft_ik_2d", "bake", "/t/a.blend", *common,
         "--report", "/r/a-2.json"],
    ]


def test_auto_run_stays_off_by_default() -> None:
    (line,) = command_lines(shots="/s/a.blend", report_dir="/r")
    assert "--enable-autoexec" not in line and "-y" not in line


@pytest.mark.parametrize("settings", [{"shots": " \n ;", "report_dir": "/r"},
                                      {"shots": "/s/a.blend", "report_dir": "/r", "frames": "1..10"}])
def test_bad_settings_refused(settings: dict[str, str]) -> None:
    proc = compile_job(**settings)
    assert proc.returncode == 2 and "refused the job" in proc.stderr
