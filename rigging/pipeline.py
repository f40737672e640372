"""Bake whole files headless: the function behind ``blender --command soft_ik_2d bake`` (:mod:`cli`), callable
from Python too (a pipeline that already runs ``blender -b --python``)::

    from bl_ext.user_default.soft_ik_2d.rigging import pipeline
    report = pipeline.bake_files(["shot_010.blend"], pipeline.Options(save=True), report_path="report.json")

One file with one job is baked in this Blender (it opens the file, replacing the one loaded); several files, or
``jobs`` > 1, each in its own worker process (:mod:`pipeline_jobs`), so a file that crashes Blender takes only
itself down. The report (``report["ok"]``, one entry per file with one entry per chain) is the JSON written to
``report_path``; README "Pipelines" describes its fields.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import bpy

from . import messages as msg
from . import pipeline_jobs, pipeline_shot
from .messages import say
from .pipeline_shot import Options

__all__ = ["Options", "bake_files", "options_argv"]

REPORT_VERSION = 1


def options_argv(options: Options) -> list[str]:
    """The command-line flags that give ``options`` (what each worker process is told)."""
    argv: list[str] = []
    if options.frames is not None:
        # One word: a negative start frame would otherwise read as an option.
        argv.append(f"--frames={options.frames[0]}-{options.frames[1]}")
    if options.save:
        argv.append("--save")
    if options.output_dir:
        argv += ["--output-dir", os.path.abspath(options.output_dir)]
    for name in options.armatures:
        argv += ["--armature", name]
    for name in options.chains:
        argv += ["--chain", name]
    if options.enable_autoexec:
        argv.append("--enable-autoexec")
    return argv


def progress_line(entry: dict[str, Any], index: int, count: int, saving: bool = True) -> str:
    """The line printed when one file is done.

    Args:
        entry: the file's report entry (:func:`rigging.pipeline_shot.bake_shot`).
        index, count: the file's place among the files (from 1) and how many there are.
        saving: whether the run saves files; when not, a file with baked chains says it was not saved.

    Returns:
        Its failure and reason, or how many chains were baked and refused (by name), the largest error, where it
        was saved and the seconds it took.
    """
    name = os.path.basename(entry["file"])
    seconds = float(entry.get("process_seconds", entry.get("seconds", 0.0)))
    chains = entry.get("chains", [])
    baked = [c for c in chains if c["status"] == "baked"]
    if entry["status"] in ("failed", "empty") and entry.get("error"):
        return say(msg.PROGRESS_FAILED, index=index, count=count, file=name, reason=entry["error"], seconds=seconds)
    saved = (say(msg.PROGRESS_SAVED, path=entry["saved"]) if entry.get("saved")
             else say(msg.PROGRESS_NOT_SAVED) if baked and not saving else "")
    error = max((c["error_max"] for c in baked), default=0.0)
    refused = [f"{c['armature']}/{c['chain']}" for c in chains if c["status"] != "baked"]
    names = f" ({', '.join(refused)})" if refused else ""
    if not baked:
        return say(msg.PROGRESS_NONE_BAKED, index=index, count=count, file=name, refused=len(refused), names=names,
                   seconds=seconds)
    line = say(msg.PROGRESS_BAKED, index=index, count=count, file=name, baked=len(baked), refused=len(refused),
               names=names, error=error, saved=saved, seconds=seconds)
    # Chains left out (--chains) whose keys the bake made out of date: said under the file's line.
    return "\n".join([line, *entry.get("stale_chains", [])])


def _ok(entry: dict[str, Any]) -> bool:
    return entry["status"] in ("baked", "empty")


def bake_files(paths: Sequence[str], options: Options | None = None, report_path: str | None = None,
               progress: Callable[[str], None] | None = print) -> dict[str, Any]:
    """Bake every chosen chain of every file in ``paths``.

    Args:
        options: what to bake and how (frames, saving, chains, jobs, ...); the defaults when None.
        report_path: where the JSON report is written too (None: not written).
        progress: called with one line per file as it finishes (:func:`progress_line`); None is silent.

    Returns:
        The report (README "Pipelines" lists its fields); ``report["ok"]`` is False when any file failed or
        any chain was refused.
    """
    options = options or Options()
    started = time.perf_counter()
    count = len(paths)
    finished = 0

    def done(entry: dict[str, Any]) -> None:
        nonlocal finished
        finished += 1
        if progress is not None:
            progress(progress_line(entry, finished, count, bool(options.save or options.output_dir)))

    if count == 1 and options.jobs <= 1:
        entries = [pipeline_shot.bake_shot(paths[0], options)]
        done(entries[0])
    else:
        entries = pipeline_jobs.run_workers(list(paths), options_argv(options), options.jobs, options.timeout,
                                            options.blender, done)
    chains = [c for e in entries for c in e.get("chains", [])]
    report = {
        "version": REPORT_VERSION,
        "blender": bpy.app.version_string,
        "ok": all(_ok(e) for e in entries) and all(c["status"] == "baked" for c in chains),
        "jobs": options.jobs,
        "seconds": round(time.perf_counter() - started, 3),
        "files": entries,
    }
    if report_path:
        folder = os.path.dirname(os.path.abspath(report_path))
        os.makedirs(folder, exist_ok=True)
        tmp = report_path + ".part"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2, ensure_ascii=False)
        os.replace(tmp, report_path)  # a reader never sees half a report
    if progress is not None and count > 1:
        progress(say(msg.PIPELINE_DONE, files=count, baked=sum(c["status"] == "baked" for c in chains),
                     refused=sum(c["status"] != "baked" for c in chains),
                     failed=sum(e["status"] == "failed" for e in entries), report=report_path or "-"))
    return report
