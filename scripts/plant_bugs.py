"""Plant known bugs in the add-on one at a time and check that the Blender tests catch each (on demand, slow).

Each plant in ``tests/blender/planted_bugs.json`` is ``{"file", "old", "new", "caught_by", "what"}``: ``old`` must
occur exactly once in ``file``; it is replaced by ``new``, the tests run (``caught_by``'s file by default, or the
whole ``tests/blender`` with ``--all``) in one Blender version (solver tests in the dev venv), and the file is
restored, also on Ctrl-C.
A plant the tests do not catch is a promise nothing pins down: write the test that would, see it fail with the
plant, then pass without it.

    .venvs/dev/bin/python scripts/plant_bugs.py [--blender 5.0] [--all] [--only WORD] [plants.json]

Prints one line per plant (CAUGHT / SURVIVED / SKIPPED) and exits 1 if any survived. The working tree must have
no uncommitted change in the planted files (a plant is undone by writing back what was read).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_tests(python: Path, args: list[str]) -> tuple[bool, str]:
    """(failed, last summary line) of ``tests/blender/run.py -q -x`` with ``args`` (solver tests: pytest in the
    dev venv)."""
    if args and args[0].startswith("tests/solver"):
        command = [str(ROOT / ".venvs/dev/bin/python"), "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *args]
    else:
        command = [str(python), "tests/blender/run.py", "-q", "-x", *args]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    lines = proc.stdout.strip().splitlines()
    failed = [ln.split(" - ")[0] for ln in lines if ln.startswith(("FAILED", "ERROR"))]
    summary = lines[-1] if lines else proc.stderr.strip().splitlines()[-1:]
    return proc.returncode != 0, f"{failed[0] if failed else ''} {summary}".strip()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("plants", nargs="?", default=str(ROOT / "tests/blender/planted_bugs.json"))
    parser.add_argument("--blender", default="5.0", help="bpy venv version (.venvs/bpy-<version>)")
    parser.add_argument("--all", action="store_true", help="run the whole tests/blender for each plant")
    parser.add_argument("--only", default="", help="only plants whose file or caught_by contains this")
    opts = parser.parse_args(argv)
    python = ROOT / ".venvs" / f"bpy-{opts.blender}" / "bin" / "python"
    plants = json.loads(Path(opts.plants).read_text(encoding="utf-8"))
    dirty = subprocess.run(["git", "status", "--porcelain", "--", *sorted({p["file"] for p in plants})], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.strip()
    if dirty:
        print(f"plant_bugs: uncommitted changes in planted files, commit or stash first:\n{dirty}", file=sys.stderr)
        return 2
    survived = 0
    for i, plant in enumerate(plants):
        if opts.only and opts.only not in plant["file"] and opts.only not in plant["caught_by"]:
            continue
        path = ROOT / plant["file"]
        source = path.read_text(encoding="utf-8")
        label = f"[{i}] {plant['file']}: {plant['old'].strip()[:60]!r}"
        if source.count(plant["old"]) != 1:
            print(f"SKIPPED  {label} (found {source.count(plant['old'])} times: the code moved, update the plant)")
            continue
        target = plant["caught_by"].split("::")[0]
        try:
            path.write_text(source.replace(plant["old"], plant["new"]), encoding="utf-8")
            failed, summary = run_tests(python, [] if opts.all else [target])
        finally:
            path.write_text(source, encoding="utf-8")
        survived += not failed
        print(f"{'CAUGHT ' if failed else 'SURVIVED'} {label} -> {summary}", flush=True)
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
