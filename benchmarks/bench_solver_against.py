"""The two-bone solver of this tree against another copy of ``solver/``, interleaved in one process.

    git archive <commit> solver | tar -x -C /tmp/before
    .venvs/dev/bin/python benchmarks/bench_solver_against.py /tmp/before [--rounds 6] [--single]

For a refactor that must keep the speed: both copies run the same cases in alternating order, round after
round, so the shared machine's noise reaches both alike; the table gives the best of all rounds per copy and
the ratio. Single-frame cases (the live preview's path, bench_solver.py's point) in microseconds per call,
batch cases (1e5 frames of bench_solver.py's animation path, reading ``error``) in M solves/s. The other
copy's root is the directory holding its ``solver/`` package; it is loaded under the name ``solver_other``.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root holds the solver package

from bench_solver import A, B, animation_targets

import solver


def load_copy(root: Path) -> ModuleType:
    """Import the ``solver`` package under ``root`` as ``solver_other`` (its relative imports follow)."""
    init = root / "solver" / "__init__.py"
    spec = importlib.util.spec_from_file_location("solver_other", init, submodule_search_locations=[str(init.parent)])
    if spec is None or spec.loader is None:
        raise SystemExit(f"no solver package under {root}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["solver_other"] = module
    spec.loader.exec_module(module)
    return module


def cases(m: ModuleType) -> dict[str, dict[str, object]]:
    """bench_solver.py's three configurations, built from copy ``m``'s own types."""
    return {
        "plain": {},
        "soft+limits+move_root+pole": dict(softness=0.05, inner_softness=0.02, strategy="move_root", pole=(0.0, -1.0),
                                           limits=m.JointLimits(shoulder=(-2.5, 2.5), elbow=(-2.8, 2.8))),
        "soft+limits+stretch": dict(softness=0.05, inner_softness=0.02, strategy="stretch",
                                    limits=m.JointLimits(shoulder=(-2.5, 2.5), elbow=(0.1, 2.9))),
    }


def best(fn: Callable[[], object], repeats: int) -> float:
    """Best CPU time of ``repeats`` runs (the machine is shared: wall-clock time would count others)."""
    out = math.inf
    for _ in range(repeats):
        start = time.process_time()
        fn()
        out = min(out, time.process_time() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="directory holding the other solver/ package")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--single", action="store_true", help="single-frame cases only")
    args = parser.parse_args()
    copies = {"other": load_copy(args.other), "this": solver}
    point = np.array([262.0, 40.0])
    targets = animation_targets(np.random.default_rng(0), 100_000, A + B)
    calls = 4000
    single: dict[tuple[str, str], float] = {}
    batch: dict[tuple[str, str], float] = {}
    for rnd in range(args.rounds):
        order = list(copies.items()) if rnd % 2 == 0 else list(copies.items())[::-1]
        for tag, m in order:
            state = m.SolverState()
            for name, options in cases(m).items():

                def one(m: ModuleType = m, o: dict[str, object] = options, st: object = state) -> None:
                    for _ in range(calls):
                        m.solve_two_bone(point, A, B, previous=st, **o)

                us = best(one, 2) / calls * 1e6
                single[name, tag] = min(single.get((name, tag), math.inf), us)
                if args.single:
                    continue

                def many(m: ModuleType = m, o: dict[str, object] = options) -> None:
                    _ = m.solve_two_bone(targets, A, B, **o).error

                rate = targets.shape[0] / best(many, 2) / 1e6
                batch[name, tag] = max(batch.get((name, tag), 0.0), rate)
    print(f"numpy {np.__version__}, python {sys.version.split()[0]}, {args.rounds} interleaved rounds")
    print(f"{'case':<44}{'other':>9}{'this':>9}{'this/other':>12}")
    for name in cases(solver):
        o, t = single[name, "other"], single[name, "this"]
        print(f"{'single ' + name + ' (us/call)':<44}{o:>9.2f}{t:>9.2f}{t / o:>12.3f}")
    for name in cases(solver) if batch else ():
        o, t = batch[name, "other"], batch[name, "this"]
        print(f"{'batch 1e5 ' + name + ' (M/s)':<44}{o:>9.2f}{t:>9.2f}{t / o:>12.3f}")


if __name__ == "__main__":
    main()
