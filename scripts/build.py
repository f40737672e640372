"""Validate and build the extension zip with Blender's own tooling, in-process (Blender as a Python module).

Usage: ``.venvs/bpy-4.2/bin/python scripts/build.py [--output-dir dist]``. Prints the zip's path. The same
``extension validate`` + ``extension build`` that ``blender --command extension build`` runs, without a
Blender binary; the user directory is a throwaway one, so nothing of a real Blender configuration is touched.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "blender"))  # the harness: a dev tool beside the add-on, not part of it
import harness  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output-dir", type=Path, default=ROOT / "dist")
    args = parser.parse_args()
    harness.isolate_user_resources()
    import bpy  # noqa: F401  (loads Blender's bundled bl_pkg, which the harness drives)

    print(harness.build_zip(args.output_dir.resolve()))
    return 0


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    os._exit(rc)  # bpy 4.2 can crash at interpreter exit
