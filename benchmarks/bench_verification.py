"""The verification stage of the crowd bake, A/B in one process: ``rigging/verification.py`` at a git revision
against the installed one, alternated on the same inputs, with their outputs compared bit for bit.

Run: ``.venvs/bpy-4.2/bin/python benchmarks/bench_verification.py --base <rev>`` (default ``main``). The crowd of
``bench_goals`` (16 characters x 2 chains x 2,000 frames) is baked once; the ``verification.measure`` call of
that bake is then repeated with each module (the old one loaded beside the installed one, on the same sampling
code), printing wall and process CPU medians and whether every Verification array has the same bytes.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # dev tools beside the add-on (harness, the other benchmarks), not part of it
from tests.blender import harness  # noqa: E402

harness.install_extension()

import bpy  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks import bench_goals  # noqa: E402

FIELDS = ("error", "tolerance", "deviation", "mismatch")


def old_module(verification: Any, rev: str) -> Any:
    """``rigging/verification.py`` at ``rev``, loaded as a sibling of the installed one."""
    text = subprocess.run(["git", "-C", str(REPO), "show", f"{rev}:rigging/verification.py"],
                          capture_output=True, text=True, check=True).stdout
    package = verification.__name__.rsplit(".", 1)[0]
    spec = importlib.util.spec_from_loader(package + "._verification_base", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = package
    sys.modules[spec.name] = module
    exec(compile(text, f"verification@{rev}", "exec"), module.__dict__)  # the repository's own code, at rev
    return module


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", default="main", help="git revision of the old verification.py")
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--characters", type=int, default=16)
    p.add_argument("--frames", type=int, default=2000)
    args = p.parse_args()
    verification = harness.package("rigging.verification")
    old = old_module(verification, args.base)
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    measure = verification.measure

    def spy(*a: Any, **k: Any) -> Any:
        calls.append((a, k))
        return measure(*a, **k)

    arms = bench_goals.build_crowd(args.characters, args.frames, ik_constraint=False)
    bench_goals.pose_mode_all(list(dict.fromkeys(a for a, _l, _t in arms)))
    verification.measure = spy
    bpy.ops.pose.soft_ik_bake(frame_start=1, frame_end=args.frames)
    verification.measure = measure
    (a, k), = calls
    before, after = old.measure(*a, **k), measure(*a, **k)
    same = all(np.asarray(getattr(x, f)).tobytes() == np.asarray(getattr(y, f)).tobytes()
               for x, y in zip(before, after, strict=True) for f in FIELDS)
    times: dict[str, tuple[list[float], list[float]]] = {"old": ([], []), "new": ([], [])}
    for _ in range(args.repeats):
        for tag, fn in (("old", old.measure), ("new", measure)):
            t0, c0 = time.perf_counter(), time.process_time()
            fn(*a, **k)
            times[tag][0].append(time.perf_counter() - t0)
            times[tag][1].append(time.process_time() - c0)
    print(f"Blender {bpy.app.version_string}: {len(after)} chains x {args.frames} frames, base {args.base}; "
          f"outputs identical: {same}")
    for tag, (wall, cpu) in times.items():
        print(f"  {tag}: wall median {1e3 * statistics.median(wall):.2f} ms (min {1e3 * min(wall):.2f}), "
              f"CPU median {1e3 * statistics.median(cpu):.2f} ms")
    ratio = statistics.median(times["old"][1]) / statistics.median(times["new"][1])
    print(f"  old / new (CPU medians): {ratio:.2f}x")
    return 0 if same else 1


if __name__ == "__main__":
    sys.stdout.flush()
    raise SystemExit(main())
