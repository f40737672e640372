#!/usr/bin/env bash
# Inside the GUI chroot (called by scripts/gui_tests.sh): /src is the repository (read-only), /out the results.
# Starts Xvfb, builds and installs the zip with this Blender's own extension CLI, then runs each
# tests/gui/test_*.py in its own Blender process with a timeout. Logs: /out/<test file>.log.
set -uo pipefail
export BLENDER_USER_RESOURCES=/tmp/user LIBGL_ALWAYS_SOFTWARE=1 DISPLAY=:99
mkdir -p "$HOME" "$BLENDER_USER_RESOURCES" /tmp/dist
: > /out/files.txt

Xvfb :99 -screen 0 1600x1000x24 -nolisten tcp > /out/xvfb.log 2>&1 &
xvfb=$!
trap 'kill "$xvfb" 2>/dev/null; wait "$xvfb" 2>/dev/null' EXIT
for _ in $(seq 100); do [ -S /tmp/.X11-unix/X99 ] && break; sleep 0.1; done
[ -S /tmp/.X11-unix/X99 ] || { echo "in_chroot: Xvfb did not start" >&2; cat /out/xvfb.log >&2; exit 1; }

blender --version | head -n 1
# The manifest excludes tests, scripts and docs from the zip; the build reads the read-only tree as it is.
if ! blender --factory-startup --command extension build --source-dir /src --output-dir /tmp/dist \
    > /out/build.log 2>&1; then
  echo "in_chroot: extension build failed" >&2; cat /out/build.log >&2; exit 1
fi
zip="$(ls /tmp/dist/*.zip)"
if ! blender --factory-startup --command extension install-file -r user_default -e "$zip" \
    > /out/install.log 2>&1; then
  echo "in_chroot: extension install-file failed" >&2; cat /out/install.log >&2; exit 1
fi
echo "built and installed $(basename "$zip")"

tests=(/src/tests/gui/test_*.py)
# scripts/gui_screenshots.sh: only the README screenshots.
[ -n "${GUI_SCREENSHOTS:-}" ] && tests=(/src/tests/gui/screenshots.py)
for test in "${tests[@]}"; do
  name="$(basename "$test" .py)"
  if [ -n "${GUI_FILES:-}" ]; then  # space-separated substrings of test file names
    keep=0
    for pattern in $GUI_FILES; do case "$name" in *"$pattern"*) keep=1 ;; esac; done
    [ "$keep" -eq 1 ] || continue
  fi
  start=$(date +%s)
  rm -rf "/out/$name"
  SOFT_IK_GUI_TEST="$test" SOFT_IK_GUI_OUT=/out SOFT_IK_GUI_K="${GUI_K:-}" \
    SOFT_IK_GUI_SCREENSHOTS="${GUI_SCREENSHOTS:-}" \
    timeout -k 10 "${GUI_TIMEOUT:-300}" blender --factory-startup --enable-event-simulate \
    --python /src/tests/gui/runner.py > "/out/$name.log" 2>&1
  rc=$?
  grep -E '^GUI-(RESULT|INFO)' "/out/$name.log"
  if [ ! -f "/out/$name/results.json" ]; then
    echo "CRASHED $name (rc=$rc): Blender ended without reporting; see $name.log" | tee -a /out/files.txt
    tail -n 30 "/out/$name.log"
  else
    echo "ok $name rc=$rc $(( $(date +%s) - start ))s" >> /out/files.txt
    # The failures' tracebacks (the runner prints each after its result line).
    awk '/^GUI-RESULT failed/ {on = 1; next} /^GUI-RESULT|^GUI-INFO/ {on = 0} on' "/out/$name.log" | head -n 80
  fi
done
exit 0
