"""The crowd bake counted in machine instructions (valgrind's callgrind), this checkout against a git revision.

Run: ``.venvs/bpy-5.3/bin/python benchmarks/bench_instructions.py --base <rev>`` (default ``HEAD~1``; valgrind
must be on the PATH). Times on a shared machine swing by a third within minutes; an instruction count is the
same to ~0.1% run after run, so small changes to the work a bake does can be seen. Each side runs in its own
process under ``callgrind --instr-atstart=no``, building ``bench_goals``' crowd (16 characters x 2 chains) with
counting off and baking it with counting on (``callgrind_control -i on/off``), ``--bakes`` times after a first
bake that is not counted; the base revision is checked out in a temporary git worktree. Printed: instructions
per bake for each side and their ratio, at ``--frames`` (default 20: what a bake costs whatever its length,
mostly per chain; 2000 frames adds what each frame costs). ``--extra-bones N`` gives each character N more bones
that no chain uses (a production rig's spine, face, fingers and props: 150 makes a character of 154 bones), so
what a bake costs per bone of the rig shows.

``--live`` counts a Live Preview drag instead of a bake: ``bench_live_preview``'s armature of 16 chains, every target
moved then ``view_layer.update()``, per update over 100 updates counted after 20 uncounted (the drag goal's
figure, in instructions: the timed one swings by half on a shared machine).

``--floor`` counts, instead of a base revision, issue 17's "sample + write keys" floor on this checkout
(``bench_goals.sample_floor`` and ``bench_goals.write_floor``, the timed part only, after each uncounted bake on its
file): the floor goal's ratio without the machine's noise. It is a lower bound of the timed ratio, not the goal:
the bake's numpy passes over long arrays cost more time per instruction than Blender's key writes.

Instructions are not time: memory stalls, the cache and the second core are not in them (the quaternions' two
threads count as much work as one), so a change that trades instructions for memory traffic is judged by the
timed benchmarks.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def add_bones(bpy: Any, armatures: list[Any], count: int) -> None:
    """``count`` bones no chain uses on each armature, in a row above the arms (the same in every revision)."""
    for arm in armatures:
        bpy.context.view_layer.objects.active = arm
        bpy.ops.object.mode_set(mode="EDIT")
        for b in range(count):
            bone = arm.data.edit_bones.new(f"extra{b}")
            bone.head, bone.tail = (0.0, 1.0 + b, 5.0), (0.0, 1.0 + b, 5.5)
        bpy.ops.object.mode_set(mode="OBJECT")
    bpy.context.scene.frame_set(1)


def child(repo: Path, frames: int, bakes: int, extra_bones: int, floor: bool = False) -> None:
    """In the counted process: the crowd built uncounted, each bake counted, with the add-on of ``repo``
    (``floor``: each bake uncounted, then the floor on its file counted)."""
    sys.path[0:0] = [str(repo)]  # that checkout's dev tools (harness, bench_goals), not part of the add-on
    from benchmarks import bench_goals as goals  # installs that checkout's extension

    bpy = goals.bpy
    pid = str(os.getpid())
    for i in range(bakes + 1):

        def counting(on: bool, first: bool = i == 0) -> None:
            if not first:
                subprocess.run(["callgrind_control", "-i", "on" if on else "off", pid], capture_output=True,
                               check=True)

        arms = goals.build_crowd(16, frames, ik_constraint=False)
        armatures = list(dict.fromkeys(a for a, _l, _t in arms))
        if extra_bones:
            add_bones(bpy, armatures, extra_bones)
        goals.pose_mode_all(armatures)
        if not floor:
            counting(True)
        if bpy.ops.pose.soft_ik_bake(frame_start=1, frame_end=frames) != {"FINISHED"}:
            raise RuntimeError("soft_ik_bake failed")
        if not floor:
            counting(False)
            continue
        # As bench_goals.crowd_against_floor measures it: on the bake's file, its curves written again.
        curves = goals.baked_curves(armatures)
        bpy.ops.object.mode_set(mode="OBJECT")
        counting(True)
        goals.sample_floor([t for _a, _l, t in arms], frames)
        counting(False)
        goals.write_floor(curves, frames, counted=counting)


LIVE_CHAINS, LIVE_UPDATES = 16, 100


def live_child(repo: Path) -> None:
    """In the counted process: Live Preview drags of the checkout at ``repo``, the updates counted."""
    sys.path[0:0] = [str(repo)]
    from benchmarks import bench_live_preview as live  # installs that checkout's extension

    pid = str(os.getpid())
    arm, targets = live.build(LIVE_CHAINS, keyed_frames=LIVE_UPDATES)
    arm.soft_ik_2d.live_preview = True
    live.drag(targets, 20)
    subprocess.run(["callgrind_control", "-i", "on", pid], capture_output=True, check=True)
    live.drag(targets, LIVE_UPDATES)
    subprocess.run(["callgrind_control", "-i", "off", pid], capture_output=True, check=True)


def count(repo: Path, frames: int, bakes: int, extra_bones: int, scratch: Path, floor: bool = False,
          live: bool = False) -> int:
    """Instructions per bake of the checkout at ``repo`` (``floor``: of the floor after each bake; ``live``: per
    Live Preview drag update instead)."""
    out = scratch / f"callgrind.{repo.name}{'.floor' if floor else ''}{'.live' if live else ''}.out"
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}", sys.executable,
         str(Path(__file__).resolve()), "--child", str(repo), "--frames", str(frames), "--bakes", str(bakes),
         "--extra-bones", str(extra_bones), *(["--floor"] if floor else []), *(["--live"] if live else [])],
        capture_output=True, text=True, check=False)
    found = re.findall(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or not found:
        raise RuntimeError(f"callgrind run of {repo} failed (rc {proc.returncode}):\n{proc.stderr[-3000:]}")
    return int(found[-1]) // (LIVE_UPDATES if live else bakes)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", default="HEAD~1", help="git revision to compare this checkout with")
    p.add_argument("--frames", type=int, default=20)
    p.add_argument("--bakes", type=int, default=2, help="bakes counted per side (after one uncounted)")
    p.add_argument("--extra-bones", type=int, default=0, help="bones no chain uses, added to each character")
    p.add_argument("--floor", action="store_true",
                   help="compare with the sample + write keys floor on this checkout instead of a base revision")
    p.add_argument("--live", action="store_true", help="count a Live Preview drag update (16 chains) instead of a bake")
    p.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        if args.live:
            live_child(args.child)
        else:
            child(args.child, args.frames, args.bakes, args.extra_bones, args.floor)
        sys.stdout.flush()
        os._exit(0)  # bpy 4.2 crashes at interpreter exit once properties have Python callbacks
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("valgrind (callgrind) is not on the PATH")
        return 2
    rig = f", {4 + args.extra_bones} bones a character" if args.extra_bones else ""
    if args.floor:
        with tempfile.TemporaryDirectory(prefix="soft_ik_instructions_") as tmp:
            ours = count(REPO, args.frames, args.bakes, args.extra_bones, Path(tmp))
            floor = count(REPO, args.frames, args.bakes, args.extra_bones, Path(tmp), floor=True)
        print(f"crowd bake, 16x2 chains x {args.frames} frames{rig}, instructions per bake: this checkout {ours:,}, "
              f"the sample + write keys floor {floor:,}: x{ours / floor:.3f} the floor (the goal: <= 2 in time)")
        return 0
    with tempfile.TemporaryDirectory(prefix="soft_ik_instructions_") as tmp:
        scratch = Path(tmp)
        base = scratch / "base"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(base), args.base],
                       capture_output=True, check=True)
        try:
            (base / ".venvs").symlink_to(REPO / ".venvs")
            ours = count(REPO, args.frames, args.bakes, args.extra_bones, scratch, live=args.live)
            theirs = count(base, args.frames, args.bakes, args.extra_bones, scratch, live=args.live)
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base)],
                           capture_output=True, check=False)
    if args.live:
        print(f"live preview drag, {LIVE_CHAINS} chains on one armature, instructions per update: this checkout "
              f"{ours:,}, {args.base} {theirs:,}: x{ours / theirs:.4f}")
        return 0
    print(f"crowd bake, 16x2 chains x {args.frames} frames{rig}, instructions per bake: this checkout {ours:,}, "
          f"{args.base} {theirs:,}: x{ours / theirs:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
