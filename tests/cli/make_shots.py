"""Writes the shot files the command-line tests bake (run by Blender with the extension installed):

    blender --background --factory-startup --python tests/cli/make_shots.py -- OUT_DIR

- ``good_a.blend``: one arm reaching for an Empty keyed on a circle (always in reach), frames 1-24.
- ``good_b.blend``: two armatures, one chain each, frames 1-30.
- ``bad.blend``: one chain whose lower bone has an acting Copy Rotation constraint (refused by name).
- ``driver.blend``: the arm of ``good_a`` whose target's X is moved by a Python-expression driver, and a
  registered text block that leaves a mark (``AUTORUN_RAN`` next to OUT_DIR) when the file's scripts run.
- ``truncated.blend``: the first half of ``good_a.blend``'s bytes.
Also ``truth.json``: per file and chain, what the tests compare playback against (chain, armature, target).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import addon_utils
import bpy

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "blender")]

import harness  # noqa: E402
import rigs  # noqa: E402

OUT = Path(sys.argv[sys.argv.index("--") + 1])


def fresh(start: int, end: int) -> None:
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = start, end


def arm_with_target(name: str, frames: range, radius: float, shoulder: tuple[float, float] = (0.4, 1.5),
                    speed: float = 0.25, **chain: object) -> tuple[rigs.ArmRig, bpy.types.Object]:
    rig = rigs.build_arm(name, shoulder=shoulder, rest_bend_deg=25.0)
    target = rigs.circle_target(rig, list(frames), lambda f: radius, lambda f: speed * f - 1.0, name=f"{name}Target")
    bpy.context.scene.frame_set(frames[0])
    added = rigs.add_chain(rig, target, **chain)
    added.name = f"{name}Arm"
    bpy.ops.object.mode_set(mode="OBJECT")
    return rig, target


def save(name: str) -> Path:
    path = OUT / name
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    return path


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    addon_utils.enable(harness.MODULE, default_set=True)
    truth: dict[str, list[dict[str, str]]] = {}

    fresh(1, 24)
    arm_with_target("Rig", range(1, 25), 1.4)
    save("good_a.blend")
    truth["good_a.blend"] = [{"armature": "Rig", "chain": "RigArm", "target": "RigTarget"}]

    fresh(1, 30)
    arm_with_target("Left", range(1, 31), 1.3)
    arm_with_target("Right", range(1, 31), 1.0, shoulder=(3.0, 1.5), speed=0.2)
    save("good_b.blend")
    truth["good_b.blend"] = [{"armature": "Left", "chain": "LeftArm", "target": "LeftTarget"},
                             {"armature": "Right", "chain": "RightArm", "target": "RightTarget"}]

    fresh(1, 24)
    rig, _ = arm_with_target("Rig", range(1, 25), 1.4)
    con = rig.armature.pose.bones["Lower"].constraints.new("COPY_ROTATION")
    con.target = bpy.data.objects["RigTarget"]
    save("bad.blend")

    fresh(1, 24)
    arm_with_target("Rig", range(1, 25), 1.4)
    target = bpy.data.objects["RigTarget"]
    driver = target.driver_add("location", 0).driver
    driver.type = "SCRIPTED"
    # Not one of Blender's simple expressions (__import__ is not in the drivers' namespace): it runs only with
    # auto-run on.
    driver.expression = "1.0 + 0.3 * __import__('math').sin(frame / 4)"
    assert not driver.is_simple_expression
    # A registered script runs when the file loads with auto-run on: the tests look for its mark.
    text = bpy.data.texts.new("on_load.py")
    text.write(f"open({str(OUT.parent / 'AUTORUN_RAN')!r}, 'w').write('ran')\n")
    text.use_module = True
    save("driver.blend")
    truth["driver.blend"] = truth["good_a.blend"]

    data = (OUT / "good_a.blend").read_bytes()
    (OUT / "truncated.blend").write_bytes(data[: len(data) // 2])
    (OUT / "truth.json").write_text(json.dumps(truth, indent=2))
    print("MADE", sorted(p.name for p in OUT.iterdir()))


main()
