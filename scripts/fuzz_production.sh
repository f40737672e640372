#!/usr/bin/env bash
# Many seeds of tests/blender/test_production_fuzz.py (random production-like rigs against the two promises), on
# each Blender version given (default: 4.2 and 5.3). CI runs 12 seeds a version; this runs more, by hand.
# Usage: bash scripts/fuzz_production.sh [FIRST:COUNT] [VERSION...]     e.g. bash scripts/fuzz_production.sh 0:500 5.3
# A failure prints the seed and every choice it drew; SOFT_IK_FUZZ_SEEDS=<seed>:1 runs that seed alone.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seeds="${1:-0:300}"
shift || true
versions=("$@")
[ ${#versions[@]} -eq 0 ] && versions=(4.2 5.3)
status=0
for version in "${versions[@]}"; do
  python=".venvs/bpy-$version/bin/python"
  if [ ! -x "$python" ]; then
    echo "no environment for Blender $version: run bash scripts/setup_envs.sh $version" >&2
    status=1
    continue
  fi
  echo "===== Blender $version, seeds $seeds"
  SOFT_IK_FUZZ_SEEDS="$seeds" "$python" tests/blender/run.py -q tests/blender/test_production_fuzz.py \
    || status=1
done
exit $status
