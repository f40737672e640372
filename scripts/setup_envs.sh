#!/usr/bin/env bash
# Creates the virtual environments the tests and the demo need, idempotently.
# .venvs/dev      : plain Python + numpy 2.x, pytest, hypothesis, ruff, mypy, fake-bpy-module (no Blender)
# .venvs/bpy-4.2  : Blender 4.2 LTS as a module, numpy 1.26 (what Blender 4.2 ships)
# .venvs/bpy-4.5  : Blender 4.5 LTS as a module
# .venvs/bpy-5.0  : Blender 5.0 as a module
# .venvs/plots    : matplotlib + Pillow for the demo's plots and GIF (scripts/demo.sh; not in the default list)
# Usage: scripts/setup_envs.sh [dev] [4.2] [4.5] [5.0] [plots]   (no argument: dev 4.2 4.5 5.0)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-python3.11}"
command -v "$py" >/dev/null || py=python3

declare -A BPY=( [4.2]="bpy==4.2.23 numpy==1.26.4" [4.5]="bpy==4.5.4" [5.0]="bpy==5.0.1" )
TEST_TOOLS="pytest==9.0.3 hypothesis==6.155.2"
DEV_TOOLS="numpy>=2,<3 $TEST_TOOLS ruff==0.17.6 mypy==2.4.1 fake-bpy-module-4.2==20260730"
PLOT_TOOLS="numpy>=2,<3 matplotlib==3.11.2 pillow==13.0.0"

want=("$@")
[ ${#want[@]} -eq 0 ] && want=(dev 4.2 4.5 5.0)

make_env() {  # name, stamp contents (the package list), packages...
  local dir="$root/.venvs/$1"; shift
  local spec="$*"
  if [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$spec" ]; then return 0; fi
  echo "setting up $dir ($spec)" >&2
  rm -rf "$dir"
  "$py" -m venv "$dir"
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check $spec
  echo "$spec" > "$dir/.stamp"
}

for w in "${want[@]}"; do
  case "$w" in
    dev) make_env dev $DEV_TOOLS ;;
    plots) make_env plots $PLOT_TOOLS ;;
    4.2|4.5|5.0) make_env "bpy-$w" ${BPY[$w]} $TEST_TOOLS ;;
    *) echo "unknown environment: $w" >&2; exit 2 ;;
  esac
done
