"""Runs one ``tests/gui/test_*.py`` inside Blender's real window (started by ``scripts/gui_tests.sh``).

    blender --factory-startup --enable-event-simulate --python tests/gui/runner.py

Options come through the environment (Blender ignores ``--python`` after a ``--``): ``SOFT_IK_GUI_TEST`` the
test file, ``SOFT_IK_GUI_OUT`` a directory for its results and grabs, ``SOFT_IK_GUI_K`` an optional substring
of the test names to run. Each ``test_*`` function is a generator: it yields (a delay in seconds, or None for
one tick) whenever Blender must process events or redraw, and runs from ``bpy.app.timers``. One line per test,
``GUI-RESULT passed|failed|skipped NAME [reason]``, goes to stdout and to ``results.json``; Blender then quits.
A Python traceback printed to the console while a test runs (e.g. from a panel's ``draw``) fails that test.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
import traceback
from pathlib import Path

sys.dont_write_bytecode = True  # the source tree is mounted read-only
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "blender")]

import bpy  # noqa: E402
import gui  # noqa: E402

TEST_TIMEOUT = float(os.environ.get("SOFT_IK_GUI_TEST_TIMEOUT", "240"))


def _load(path: Path):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Runner:
    def __init__(self, path: Path, out: Path, pattern: str) -> None:
        self.path, self.out, self.pattern = path, out, pattern
        self.results: list[dict[str, str]] = []
        self.tests: list[tuple[str, object]] = []
        self.current: tuple[str, object, float, int] | None = None

    def collect(self) -> None:
        module = _load(self.path)
        for name in dir(module):
            fn = getattr(module, name)
            if name.startswith("test_") and callable(fn) and self.pattern in name:
                self.tests.append((name, fn))
        self.tests.sort(key=lambda item: item[1].__code__.co_firstlineno)  # type: ignore[attr-defined]

    def record(self, name: str, outcome: str, reason: str = "") -> None:
        self.results.append({"name": name, "outcome": outcome, "reason": reason})
        first = reason.strip().splitlines()[-1] if reason.strip() else ""
        print(f"GUI-RESULT {outcome} {self.path.stem}::{name} {first}".rstrip(), flush=True)
        if outcome == "failed":
            print(reason, flush=True)

    def tick(self) -> float | None:
        try:
            return self._tick()
        except Exception:  # the runner itself must never stop the timer silently
            traceback.print_exc()
            self.finish()
            return None

    def _tick(self) -> float | None:
        if self.current is None:
            if not self.tests:
                self.finish()
                return None
            name, fn = self.tests.pop(0)
            gui.G.start_test(name, self.out)
            try:
                gen = fn(gui.G)  # type: ignore[operator]
            except Exception:
                self.record(name, "failed", traceback.format_exc())
                return 0.05
            self.current = (name, gen, time.monotonic(), gui.G.tap.mark())
        name, gen, started, mark = self.current
        try:
            delay = next(gen)  # type: ignore[call-overload]
        except StopIteration:
            errors = gui.G.tap.tracebacks_since(mark)
            if errors:
                self.record(name, "failed", "Python error in Blender's console during the test:\n" + errors)
            else:
                self.record(name, "passed", f"{time.monotonic() - started:.1f}s")
            self._end_test()
            return 0.05
        except gui.Skip as exc:
            self.record(name, "skipped", str(exc))
            self._end_test()
            return 0.05
        except Exception:
            self.record(name, "failed", traceback.format_exc())
            self._end_test()
            return 0.05
        if time.monotonic() - started > TEST_TIMEOUT:
            where, frame = [], gen
            while frame is not None and hasattr(frame, "gi_code"):
                line = frame.gi_frame.f_lineno if frame.gi_frame else "?"  # type: ignore[attr-defined]
                where.append(f"{frame.gi_code.co_name}:{line}")  # type: ignore[attr-defined]
                frame = frame.gi_yieldfrom  # type: ignore[attr-defined]
            print(f"GUI-INFO {name} timed out in {' > '.join(where)}", flush=True)
            gen.close()  # type: ignore[attr-defined]
            self.record(name, "failed", f"timed out after {TEST_TIMEOUT:.0f} s")
            self._end_test()
            return 0.05
        return 0.05 if delay is None else float(delay)

    def _end_test(self) -> None:
        self.current = None
        try:
            gui.G.end_test()
        except Exception:
            traceback.print_exc()

    def finish(self) -> None:
        try:
            (self.out / "results.json").write_text(json.dumps(self.results, indent=1), encoding="utf-8")
        except OSError:  # no results file: scripts/gui_tests.sh counts the file as crashed
            traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        # quit_blender needs a window in the context; os._exit is the fallback if it does not end the process.
        try:
            with bpy.context.temp_override(window=bpy.context.window_manager.windows[0]):
                bpy.ops.wm.quit_blender()
        except Exception:
            traceback.print_exc()
            os._exit(1)


def main() -> None:
    path = Path(os.environ["SOFT_IK_GUI_TEST"]).resolve()
    out = Path(os.environ.get("SOFT_IK_GUI_OUT", "/tmp/soft_ik_gui")) / path.stem
    out.mkdir(parents=True, exist_ok=True)
    bpy.context.preferences.view.show_splash = False
    gui.G.install_tap()
    runner = Runner(path, out, os.environ.get("SOFT_IK_GUI_K", ""))
    try:
        import harness

        harness.enable()  # installed by scripts/gui_tests.sh; an install does not enable it in a new process
        runner.collect()
    except Exception:
        runner.record("collect", "failed", traceback.format_exc())
        runner.tests = []
    print(f"GUI-INFO Blender {bpy.app.version_string}, {len(runner.tests)} test(s) in {path.name}", flush=True)
    bpy.app.timers.register(runner.tick, first_interval=1.0, persistent=True)


main()
