"""``blender --command soft_ik_2d bake SHOT.blend...``: the command-line entry (Blender 4.2+'s
``bpy.utils.register_cli_command``), a thin argument parser over :func:`pipeline.bake_files`.

Exit status: 0 when every chosen chain of every file baked, 1 when any chain was refused or any file failed,
2 for bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import bpy

from . import messages as msg
from .messages import say
from .pipeline_shot import Options

COMMAND = "soft_ik_2d"
_handle: Any = None


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # Never sys.exit() inside Blender's command handler: raise, main() returns 2.
        raise ValueError(message)


def _frames(value: str) -> tuple[int, int]:
    start, sep, end = value.partition("-")
    if value.startswith("-"):  # a negative start frame: -10-20
        start, sep, end = value[1:].partition("-")
        start = "-" + start
    try:
        first, last = int(start), int(end)
    except ValueError:
        raise argparse.ArgumentTypeError(say(msg.BAD_FRAMES, value=value)) from None
    if not sep or last < first:
        raise argparse.ArgumentTypeError(say(msg.BAD_FRAMES, value=value))
    return first, last


def parser() -> argparse.ArgumentParser:
    """The command's argument parser (``bake`` and its options); it raises ``ValueError`` on bad arguments."""
    top = _Parser(prog=f"blender --command {COMMAND}",
                  description="Soft IK 2D from the command line (background mode).")
    commands = top.add_subparsers(dest="command", required=True, parser_class=_Parser)
    bake = commands.add_parser(
        "bake", help="bake the Soft IK chains of .blend files",
        description="Bake every Soft IK chain of every armature in the active scene of each file (or those named "
                    "by --armature/--chain), save, and report per file and chain. Files are opened with auto-run "
                    "of their Python scripts off. Exit status 1 when any chain was refused or any file failed.")
    bake.add_argument("files", nargs="+", metavar="SHOT.blend")
    bake.add_argument("--frames", type=_frames, metavar="START-END",
                      help="frames to bake (default: each scene's range, or its preview range when on); "
                           "a negative start needs the = form: --frames=-10-40")
    where = bake.add_mutually_exclusive_group()
    where.add_argument("--save", action="store_true", help="save each baked file in place")
    where.add_argument("--output-dir", metavar="DIR", help="save each baked file into DIR (same file name)")
    bake.add_argument("--jobs", type=int, default=1, metavar="N",
                      help="bake N files at a time, each in its own Blender process (default 1)")
    bake.add_argument("--report", metavar="report.json", help="write the JSON report here")
    bake.add_argument("--armature", action="append", default=[], metavar="NAME",
                      help="only this armature (repeat for more)")
    bake.add_argument("--chain", action="append", default=[], metavar="NAME", help="only this chain (repeat)")
    bake.add_argument("--enable-autoexec", action="store_true",
                      help="run the files' Python scripts and drivers (only for files you trust)")
    bake.add_argument("--timeout", type=float, metavar="SECONDS",
                      help="stop a file's Blender process after this long (with several files or --jobs)")
    bake.add_argument("--blender", metavar="PATH", help="Blender binary for the worker processes (default: this)")
    return top


def options_of(args: argparse.Namespace) -> Options:
    """The pipeline's options from the parsed ``bake`` arguments (``--jobs`` below 1 runs one job)."""
    return Options(frames=args.frames, save=args.save, output_dir=args.output_dir, armatures=tuple(args.armature),
                   chains=tuple(args.chain), enable_autoexec=args.enable_autoexec, jobs=max(1, args.jobs),
                   timeout=args.timeout, blender=args.blender)


def main(argv: Sequence[str]) -> int:
    """Run the command with ``argv`` (what follows ``--command soft_ik_2d``); returns the exit status."""
    from . import pipeline

    try:
        args = parser().parse_args(list(argv))
    except ValueError as err:
        print(f"{COMMAND}: {err}", file=sys.stderr)
        return 2
    except SystemExit as stop:  # --help
        return int(stop.code or 0)
    report = pipeline.bake_files(args.files, options_of(args), report_path=args.report,
                                 progress=lambda line: print(line, flush=True))
    return 0 if report["ok"] else 1


def register() -> None:
    global _handle
    # The bpy module build may lack command-line commands; the add-on works without them there.
    register_cli = getattr(bpy.utils, "register_cli_command", None)
    if register_cli is not None:
        _handle = register_cli(COMMAND, main)


def unregister() -> None:
    global _handle
    if _handle is not None:
        bpy.utils.unregister_cli_command(_handle)
        _handle = None
