#!/usr/bin/env bash
# Set up Blender 5.0 as a Python module and the plotting env (first run only), then run the demo:
# writes demo.blend (character, camera, baked action, error curves) and the pictures in docs/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup_envs.sh" 5.0 plots
work="$(mktemp -d "${TMPDIR:-/tmp}/soft_ik_2d_demo.XXXXXX")"
trap 'rm -rf "$work"' EXIT
start=$SECONDS
"$root/.venvs/bpy-5.0/bin/python" "$root/scripts/demo.py" --work "$work" "$@"
"$root/.venvs/plots/bin/python" "$root/scripts/demo_plots.py" "$work" "$root/docs"
echo "demo: done in $((SECONDS - start)) s (after the environments were set up)"
