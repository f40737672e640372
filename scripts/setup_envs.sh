#!/usr/bin/env bash
# Creates the virtual environments the tests and the demo need, idempotently.
# .venvs/dev      : plain Python + numpy 2.x, pytest, hypothesis, ruff, mypy, fake-bpy-module (no Blender)
# .venvs/bpy-4.2  : Blender 4.2 LTS as a module, numpy 1.26 (what Blender 4.2 ships)
# .venvs/bpy-4.5  : Blender 4.5 LTS as a module
# .venvs/bpy-5.0  : Blender 5.0 as a module
# .venvs/bpy-5.2  : Blender 5.2 LTS as a module (Python 3.13: the bpy wheels from 5.1 on exist only for 3.13)
# .venvs/bpy-5.3  : Blender 5.3 as a module (Python 3.13)
# Python 3.11 envs use $PYTHON (default python3.11); Python 3.13 envs use $PYTHON313, else the newest pyenv
# interpreter 3.13.* ($PYENV_ROOT, `pyenv root`, ~/.pyenv), else python3.13 on PATH.
# .venvs/plots    : matplotlib + Pillow for the demo's plots and GIF (scripts/demo.sh; not in the default list)
# Usage: scripts/setup_envs.sh [dev] [4.2] [4.5] [5.0] [5.2] [5.3] [plots]   (no argument: all but plots)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-python3.11}"
command -v "$py" >/dev/null || py=python3

declare -A BPY=( [4.2]="bpy==4.2.23 numpy==1.26.4" [4.5]="bpy==4.5.4" [5.0]="bpy==5.0.1"
                 [5.2]="bpy==5.2.3" [5.3]="bpy==5.3.0" )
TEST_TOOLS="pytest==9.0.3 hypothesis==6.155.2"
DEV_TOOLS="numpy>=2,<3 $TEST_TOOLS ruff==0.17.6 mypy==2.4.1 fake-bpy-module-4.2==20260730"
PLOT_TOOLS="numpy>=2,<3 matplotlib==3.11.2 pillow==13.0.0"

want=("$@")
[ ${#want[@]} -eq 0 ] && want=(dev 4.2 4.5 5.0 5.2 5.3)

# Prints the path of a Python 3.13 interpreter, or fails saying where it looked. pyenv's shim for python3.13 only
# answers when 3.13 is the selected pyenv version, so the interpreters are looked up in pyenv's versions directory.
find_python313() {
  local cand roots=() r
  if [ -n "${PYTHON313:-}" ]; then
    "$PYTHON313" -c 'import sys; assert sys.version_info[:2] == (3, 13)' 2>/dev/null && { echo "$PYTHON313"; return 0; }
    echo "PYTHON313=$PYTHON313 is not a Python 3.13 interpreter" >&2; return 1
  fi
  [ -n "${PYENV_ROOT:-}" ] && roots+=("$PYENV_ROOT")
  command -v pyenv >/dev/null && r="$(pyenv root 2>/dev/null)" && roots+=("$r")
  roots+=("$HOME/.pyenv")
  for r in "${roots[@]}"; do
    cand="$(ls -d "$r"/versions/3.13.*/bin/python3.13 2>/dev/null | sort -V | tail -n 1 || true)"
    [ -n "$cand" ] && [ -x "$cand" ] && { echo "$cand"; return 0; }
  done
  cand="$(command -v python3.13 || true)"
  if [ -n "$cand" ] && "$cand" -c 'import sys; assert sys.version_info[:2] == (3, 13)' 2>/dev/null; then
    echo "$cand"; return 0
  fi
  echo "no Python 3.13 found (bpy 5.1 and later need it): looked for versions/3.13.*/bin/python3.13 under" \
    "${roots[*]} and for python3.13 on PATH. Install one ('pyenv install 3.13') or set PYTHON313." >&2
  return 1
}

# A bpy env takes about 1 GB installed, and pip needs as much again while it unpacks the wheel. A full disk
# used to break an install half-way (a bpy without its libtbb) and stop the set-up, so every env after it was
# missing too; now the space is checked first, and each env is tried whatever happened to the one before.
NEED_MB=2500

free_mb() { df -Pm "$1" | awk 'NR == 2 {print $4}'; }

make_env() {  # name, python, stamp contents (the package list), packages...
  local dir="$root/.venvs/$1" python="$2"; shift 2
  local spec="$*" free
  if [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$spec" ]; then return 0; fi
  echo "setting up $dir ($spec)" >&2
  rm -rf "$dir"
  mkdir -p "$root/.venvs"
  free="$(free_mb "$root/.venvs")"
  if [ "$free" -lt "$NEED_MB" ]; then
    echo "cannot set up $dir: only ${free} MB free on the disk of $root/.venvs, and an env needs about" \
      "$NEED_MB MB while it installs. Free some space (old clones, /tmp) and run this again." >&2
    return 1
  fi
  "$python" -m venv "$dir"
  if ! "$dir/bin/python" -m pip install --quiet --disable-pip-version-check $spec; then
    echo "cannot set up $dir: pip failed to install $spec (${free} MB were free before; now" \
      "$(free_mb "$root/.venvs") MB). The half-made env is removed; run this again." >&2
    rm -rf "$dir"
    return 1
  fi
  echo "$spec" > "$dir/.stamp"
}

failed=()
for w in "${want[@]}"; do
  case "$w" in
    dev) make_env dev "$py" $DEV_TOOLS || failed+=("$w") ;;
    plots) make_env plots "$py" $PLOT_TOOLS || failed+=("$w") ;;
    4.2|4.5|5.0) make_env "bpy-$w" "$py" ${BPY[$w]} $TEST_TOOLS || failed+=("$w") ;;
    5.2|5.3) if py313="$(find_python313)"; then make_env "bpy-$w" "$py313" ${BPY[$w]} $TEST_TOOLS || failed+=("$w")
             else failed+=("$w"); fi ;;
    *) echo "unknown environment: $w" >&2; exit 2 ;;
  esac
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "set-up failed for: ${failed[*]} (the messages above say why)" >&2
  exit 1
fi
