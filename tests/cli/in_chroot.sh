#!/usr/bin/env bash
# Inside the GUI chroot (called by scripts/cli_tests.sh): /src is the repository (read-only), /out the results.
# Builds and installs the zip with this Blender's own extension CLI (background mode: no X display), then runs
# tests/cli/scenario.py with the chroot's Python. Log: /out/scenario.log.
set -uo pipefail
export BLENDER_USER_RESOURCES=/tmp/user
mkdir -p "$HOME" "$BLENDER_USER_RESOURCES" /tmp/dist
blender --version | head -n 1
if ! blender --factory-startup --command extension build --source-dir /src --output-dir /tmp/dist \
    > /out/build.log 2>&1; then
  echo "cli in_chroot: extension build failed" >&2; cat /out/build.log >&2; exit 1
fi
zip="$(ls /tmp/dist/*.zip)"
if ! blender --factory-startup --command extension install-file -r user_default -e "$zip" \
    > /out/install.log 2>&1; then
  echo "cli in_chroot: extension install-file failed" >&2; cat /out/install.log >&2; exit 1
fi
echo "built and installed $(basename "$zip")"
PYTHONDONTWRITEBYTECODE=1 CLI_K="${CLI_K:-}" python3 /src/tests/cli/scenario.py 2>&1 | tee /out/scenario.log
exit "${PIPESTATUS[0]}"
