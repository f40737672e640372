"""Run the Blender tests inside a bpy virtual environment: ``.venvs/bpy-5.0/bin/python tests/blender/run.py -q``.

Extra arguments go to pytest; without a path argument all of ``tests/blender`` runs. The process ends with
``os._exit`` because bpy 4.2 segfaults at interpreter exit once a property has a Python callback, which would
turn a green run red. "No tests collected" counts as a failure: CI must never silently run nothing.
"""

from __future__ import annotations

import atexit
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    names_a_path = any(Path(arg.split("::")[0]).exists() for arg in argv if not arg.startswith("-"))
    args = [*([] if names_a_path else [str(HERE)]), "-p", "no:cacheprovider", *argv]
    rc = int(pytest.main(args))
    if rc == int(pytest.ExitCode.NO_TESTS_COLLECTED):
        print("run.py: no tests were collected; treating as a failure", file=sys.stderr)
        rc = 1
    return rc


if __name__ == "__main__":
    status = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
