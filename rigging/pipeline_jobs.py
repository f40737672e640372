"""Bake files in worker processes, N at a time, one Blender process per file.

A worker runs the same command on its one file and writes its report to a temporary JSON file; a worker that
crashes, is killed or hangs past ``--timeout`` leaves no report, and that file alone is reported failed.
Worker processes get the add-on the way the parent has it (enabled from the user's preferences, or enabled
by the worker when the parent enabled it only for itself) and the parent's environment (user directories).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

import bpy

from . import messages as msg
from .messages import say
from .pipeline_shot import new_entry

# The add-on's root package: bl_ext.<repository>.soft_ik_2d.
ADDON_PACKAGE = __package__.rpartition(".")[0] if __package__ else "soft_ik_2d"
LOG_TAIL = 4000


def worker_command(path: str, argv: Sequence[str], report: str, blender: str | None = None) -> list[str]:
    """The command line of the worker that bakes ``path``.

    Args:
        argv: the pipeline's own flags (:func:`pipeline.options_argv`: no files, no --jobs/--report).
        report: where the worker writes its JSON report.
        blender: the Blender binary; None takes this Blender's, and without one (Blender as a Python module)
            the worker is this Python interpreter importing ``bpy``.
    """
    args = ["bake", path, *argv, "--jobs", "1", "--report", report]
    code = ("import sys, addon_utils\n"
            f"mod = sys.modules.get({ADDON_PACKAGE!r})\n"
            "if not getattr(mod, '__addon_enabled__', False):\n"
            f"    mod = addon_utils.enable({ADDON_PACKAGE!r})\n"
            "from importlib import import_module\n"
            f"sys.exit(import_module({ADDON_PACKAGE!r} + '.rigging.cli').main({args!r}))\n")
    binary = blender or bpy.app.binary_path
    if binary:
        # --python-expr runs whatever the auto-run setting is; the file itself is opened with scripts off.
        return [binary, "--background", "--python-exit-code", "3", "--python-expr", code]
    # Blender as a Python module (no binary): the same in a new interpreter.
    return [sys.executable, "-c", "import bpy\n" + code]


def _tail(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()[-LOG_TAIL:]
    except OSError:
        return ""


def _run_one(path: str, argv: Sequence[str], options_timeout: float | None, blender: str | None,
             scratch: str, index: int) -> dict[str, Any]:
    if not os.path.isfile(path):  # no need to start Blender to say so
        missing = new_entry(os.path.abspath(path))
        missing.update(error=say(msg.FILE_MISSING, file=path), process_seconds=0.0, exit_status=None)
        return missing
    report = os.path.join(scratch, f"{index}.json")
    log = os.path.join(scratch, f"{index}.log")
    started = time.perf_counter()
    status: int | None = None
    timed_out = False
    with open(log, "w", encoding="utf-8") as out:
        try:
            proc = subprocess.run(worker_command(path, argv, report, blender), stdout=out, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=options_timeout, check=False)
            status = proc.returncode
        except subprocess.TimeoutExpired:
            timed_out = True
    seconds = round(time.perf_counter() - started, 3)
    entry: dict[str, Any] | None = None
    if not timed_out:
        try:
            with open(report, encoding="utf-8") as f:
                files = json.load(f).get("files", [])
            entry = files[0] if len(files) == 1 else None
        except (OSError, ValueError):
            entry = None
    if entry is None:
        entry = new_entry(os.path.abspath(path))
        entry.update(error=(say(msg.FILE_TIMED_OUT, file=path, seconds=options_timeout) if timed_out
                            else say(msg.FILE_CRASHED, file=path, status=status)), log=_tail(log))
    entry["process_seconds"] = seconds
    entry["exit_status"] = status
    return entry


def run_workers(paths: Sequence[str], argv: Sequence[str], jobs: int, timeout: float | None,
                blender: str | None, done: Callable[[dict[str, Any]], None]) -> list[dict[str, Any]]:
    """Bake each of ``paths`` in its own worker process, ``jobs`` at a time.

    Args:
        argv: the workers' flags (see :func:`worker_command`).
        timeout: seconds after which a worker is stopped and its file reported failed (None: no limit).
        blender: the workers' Blender binary (None: this one).
        done: called with each file's entry as it finishes, in this thread, in completion order.

    Returns:
        The entries in the order of ``paths``.
    """
    entries: list[dict[str, Any] | None] = [None] * len(paths)
    with tempfile.TemporaryDirectory(prefix="soft_ik_2d_jobs_") as scratch, \
            ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(_run_one, path, argv, timeout, blender, scratch, i): i
                   for i, path in enumerate(paths)}
        for future in as_completed(futures):
            entry = future.result()
            entries[futures[future]] = entry
            done(entry)
    return [e for e in entries if e is not None]
