#!/usr/bin/env bash
# Set up Blender 5.0 as a Python module (first run only) and run the demo: writes demo.blend and demo.png.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup_envs.sh" 5.0
exec "$root/.venvs/bpy-5.0/bin/python" "$root/scripts/demo.py" "$@"
