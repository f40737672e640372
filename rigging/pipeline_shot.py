"""Bake one .blend file headless: open it without running its scripts, bake the chosen chains, save, and
describe what happened as plain data (one entry of the pipeline's JSON report, see :mod:`pipeline`).

The checks and the bake are the Bake operator's (:mod:`batch`, :mod:`bake`); only choosing the chains, the
auto-run rule for untrusted files (:mod:`autorun`) and saving are added here.
"""

from __future__ import annotations

import os
import time
import traceback
from dataclasses import dataclass
from typing import Any

import bpy
import numpy as np

from . import autorun, bake, chain_order, linked_data, sampling
from . import messages as msg
from .batch import Batch, prepare_batch, solve_batch
from .messages import say
from .rig import ChainError, ChainRig


@dataclass
class Options:
    """What to bake and where to save; the command line's flags (:mod:`cli`)."""

    frames: tuple[int, int] | None = None  # None: the scene's range (its preview range when that is on)
    save: bool = False
    output_dir: str | None = None
    armatures: tuple[str, ...] = ()
    chains: tuple[str, ...] = ()
    enable_autoexec: bool = False
    jobs: int = 1
    timeout: float | None = None
    blender: str | None = None  # the binary worker processes run (default: this Blender)


def new_entry(path: str) -> dict[str, Any]:
    """A file's report entry before anything is known (the fields README "Pipelines" lists)."""
    return {"file": path, "status": "failed", "error": None, "saved": None, "frame_start": None,
            "frame_end": None, "scene": None, "autoexec": False, "autoexec_blocked": None, "stepped_inputs": {},
            "racing_properties": [], "unsettled_frames": [], "stale_chains": [], "chains": [], "seconds": 0.0}


def _open(path: str, options: Options) -> str | None:
    """Open ``path``; the reason when it cannot be. Auto-run stays off unless asked for, whatever the user's
    preferences say (``use_scripts`` overrides them)."""
    if not os.path.isfile(path):
        return say(msg.FILE_MISSING, file=path)
    try:
        bpy.ops.wm.open_mainfile(filepath=path, load_ui=False, use_scripts=options.enable_autoexec)
    except RuntimeError as err:
        return say(msg.FILE_UNREADABLE, file=path, reason=str(err).strip().splitlines()[-1] if str(err) else "")
    if os.path.normcase(os.path.abspath(bpy.data.filepath)) != os.path.normcase(os.path.abspath(path)):
        return say(msg.FILE_UNREADABLE, file=path, reason=bpy.data.filepath or "nothing was loaded")
    return None


def _frame_range(scene: bpy.types.Scene, options: Options) -> tuple[int, int]:
    if options.frames is not None:
        return options.frames
    # As the Bake operator: the preview range when it is on.
    if scene.use_preview_range:
        return scene.frame_preview_start, scene.frame_preview_end
    return scene.frame_start, scene.frame_end


def _selection(path: str, scene: bpy.types.Scene, options: Options
               ) -> tuple[list[tuple[bpy.types.Object, bpy.types.PropertyGroup]], str | None]:
    """(armature, chain) pairs to bake, or the reason a name given on the command line matches nothing."""
    armatures = [obj for obj in scene.objects if obj.type == "ARMATURE" and len(obj.soft_ik_2d.chains)]
    if options.armatures:
        names = {obj.name for obj in armatures}
        for name in options.armatures:
            if name not in names:
                return [], say(msg.ARMATURE_NOT_FOUND, file=path, name=name, scene=scene.name,
                               found=", ".join(sorted(names)) or say(msg.NONE_FOUND))
        armatures = [obj for obj in armatures if obj.name in options.armatures]
    pairs = [(arm, chain) for arm in armatures for chain in arm.soft_ik_2d.chains]
    if options.chains:
        names = {chain.name for _arm, chain in pairs}
        for name in options.chains:
            if name not in names:
                return [], say(msg.CHAIN_NOT_FOUND, file=path, name=name,
                               found=", ".join(sorted(names)) or say(msg.NONE_FOUND))
        pairs = [(arm, chain) for arm, chain in pairs if chain.name in options.chains]
    return pairs, None


def _refused(arm: bpy.types.Object, chain: bpy.types.PropertyGroup, message: str) -> dict[str, Any]:
    return {"armature": arm.name, "chain": chain.name, "status": "refused", "message": message}


def _check(pairs: list[tuple[bpy.types.Object, bpy.types.PropertyGroup]], options: Options,
           entries: list[dict[str, Any]]) -> Batch:
    """Every chain checked on its own (the Bake operator's checks); refused ones go to ``entries``."""
    batch = Batch()
    for arm, chain in pairs:
        one = prepare_batch([(arm, [chain])])
        batch.total += 1
        if not one.rigs:
            entries.append(_refused(arm, chain, "\n".join(one.refused)))
            continue
        if not options.enable_autoexec:
            try:
                autorun.check_autorun(one.rigs[0])
            except ChainError as err:
                entries.append(_refused(arm, chain, str(err)))
                continue
        batch.rigs += one.rigs
    return batch


def _solve(context: bpy.types.Context, batch: Batch, frames: np.ndarray,
           entries: list[dict[str, Any]], stepped: dict[str, str]) -> list[Any]:
    """:func:`batch.solve_batch` (``stepped`` receives the inputs it steps a scene for), with the chains it
    drops named in ``entries`` with their messages."""
    before, known = list(batch.rigs), len(batch.refused)
    solutions = solve_batch(context, batch, frames, stepped)
    dropped = [rig for rig in before if not any(rig is kept for kept in batch.rigs)]
    new = batch.refused[known:]
    for i, rig in enumerate(dropped):
        mine = [m for m in new if rig.label in m] or ([new[i]] if len(new) == len(dropped) else new)
        entries.append(_refused(rig.armature, rig.chain, "\n".join(mine)))
    return solutions


def _write(context: bpy.types.Context, rigs: list[ChainRig], solutions: list[Any], start: int, end: int,
           entries: list[dict[str, Any]]) -> None:
    """The Bake operator's writing: local actions, keys, the playback measurement and the stored report."""
    notes: dict[str, str] = {}
    for arm in dict.fromkeys(rig.armature for rig in rigs):
        note = linked_data.ensure_local_action(arm)
        if note is not None:
            notes[arm.name] = note
    keyed = [bake.write_solution(rig, sol, start, end) for rig, sol in zip(rigs, solutions, strict=True)]
    for rig, (sol, warning) in zip(rigs, bake.verify_written(context, rigs, solutions, start, end, keyed),
                                   strict=True):
        report = bake.store_report(rig, sol, start, end)
        warnings = [*([warning] if warning else []), *([notes[rig.armature.name]] if rig.armature.name in notes
                                                        else []), *report.warnings]
        entries.append({"armature": report.armature_name, "chain": report.chain_name, "status": "baked",
                        "frames": report.frames, "error_max": report.error_max, "error_mean": report.error_mean,
                        "limited_frames": report.limited_frames, "skipped_frames": report.invalid_frames,
                        "warnings": warnings, "summary": report.summary()})


def _save(path: str, options: Options) -> tuple[str | None, str | None]:
    """(where the file was saved, why it could not be)."""
    if options.save:
        target = path
    elif options.output_dir:
        target = os.path.join(options.output_dir, os.path.basename(path))
    else:
        return None, None
    try:
        if options.save:
            bpy.ops.wm.save_mainfile(filepath=target)
        else:
            os.makedirs(options.output_dir or ".", exist_ok=True)
            # copy: the loaded file stays the input; relative paths are remapped to the new folder.
            bpy.ops.wm.save_as_mainfile(filepath=target, copy=True)
    except (RuntimeError, OSError) as err:
        return None, say(msg.FILE_NOT_SAVED, file=path, path=target, reason=str(err).strip())
    return os.path.abspath(target), None


def bake_shot(path: str, options: Options) -> dict[str, Any]:
    """Open, bake and save one file in this Blender.

    Never raises for the file's faults (nor for a bug of the add-on met on it): they are the entry's status
    and error. A file where no chain bakes is not saved: it stays exactly as it was.

    Returns:
        The file's report entry (:func:`new_entry`, filled in).
    """
    started = time.perf_counter()
    entry = new_entry(os.path.abspath(path))
    entry["autoexec"] = options.enable_autoexec
    entry["error"] = _open(path, options)
    if entry["error"] is None:
        try:
            _bake_open_file(path, options, entry)
        except Exception as err:  # one file's bug must not stop the others; nothing was saved
            entry.update(status="failed", saved=None, chains=[], log=traceback.format_exc()[-4000:],
                         error=say(msg.FILE_INTERNAL_ERROR, file=path, reason=f"{type(err).__name__}: {err}"))
    entry["seconds"] = round(time.perf_counter() - started, 3)
    return entry


def _bake_open_file(path: str, options: Options, entry: dict[str, Any]) -> None:
    context = bpy.context
    scene = context.scene
    entry["scene"] = scene.name
    start, end = _frame_range(scene, options)
    entry["frame_start"], entry["frame_end"] = start, end
    pairs, problem = _selection(path, scene, options)
    if problem is None and not pairs:
        entry["status"], entry["error"] = "empty", say(msg.NO_CHAINS_IN_FILE, file=path, scene=scene.name)
        return
    if problem is None and end < start:
        problem = say(msg.END_BEFORE_START, end=end, start=start)
    if problem is not None:
        entry["error"] = problem
        return
    chains: list[dict[str, Any]] = []
    batch = _check(pairs, options, chains)
    frames = np.arange(start, end + 1, dtype=np.float64)
    if batch.rigs:
        stepped: dict[str, str] = {}
        entry["stepped_inputs"] = stepped
        # As the Bake operator: a chain hanging from another's solve is sampled after that one is written.
        levels, loops = chain_order.levels(batch.rigs)
        chains += [_refused(rig.armature, rig.chain, message) for rig, message in loops]
        written: list[ChainRig] = []
        with sampling.listen() as heard:
            for level in levels:
                part = Batch(rigs=level)
                solutions = _solve(context, part, frames, chains, stepped)
                if part.rigs:
                    _write(context, part.rigs, solutions, start, end, chains)
                    written += part.rigs
        entry["racing_properties"] = list(heard.channels)
        entry["unsettled_frames"] = heard.unsettled_frames()
        entry["stale_chains"] = chain_order.stale_dependents(written, start, end)
    # Report the chains in the file's order, whatever order they were refused or baked in.
    order = {(arm.name, chain.name): i for i, (arm, chain) in enumerate(pairs)}
    entry["chains"] = sorted(chains, key=lambda c: order[(c["armature"], c["chain"])])
    blocked = getattr(bpy.app, "autoexec_fail_message", "") if getattr(bpy.app, "autoexec_fail", False) else ""
    entry["autoexec_blocked"] = blocked or None
    baked = sum(1 for c in chains if c["status"] == "baked")
    if baked == 0:
        entry["status"] = "refused"
        return
    entry["saved"], entry["error"] = _save(path, options)
    entry["status"] = "failed" if entry["error"] else ("baked" if baked == len(chains) else "partial")
