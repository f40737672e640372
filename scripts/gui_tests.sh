#!/usr/bin/env bash
# The GUI tests: tests/gui/test_*.py in Blender's real window (Debian's blender in a chroot, Xvfb, software GL).
#   bash scripts/gui_tests.sh [SUITE...]        SUITE: trixie (required), sid/unstable (skipped when its
#                                              archive has no installable blender); default: trixie sid
# Per suite: sets up the cached chroot (scripts/gui_setup.sh), builds the zip with that Blender's own
# `--command extension build`, installs it with `--command extension install-file` into a throwaway user
# directory, then runs one Blender process per test file (each under a timeout). Prints one pytest-like line
# per suite and, last, "N passed, M failed, K skipped in Ts" for all of them. Exit status 1 if anything failed.
# Env: GUI_K=substring selects tests by name, GUI_FILES=substring test files; GUI_OUT=DIR keeps results and grabs (default: a temp dir);
#      GUI_TIMEOUT seconds per test file (default 300); GUI_SCREENSHOTS=DIR also writes README screenshots there.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ "$#" -gt 0 ] || set -- trixie sid
timeout_s="${GUI_TIMEOUT:-300}"
out_root="${GUI_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/soft_ik_2d_gui.XXXXXX")}"
mkdir -p "$out_root"
start_all=$(date +%s)
total_p=0 total_f=0 total_s=0 summary=()

source "$(dirname "${BASH_SOURCE[0]}")/chroot_mounts.sh"

run_suite() {
  local suite="$1" root rc out start p=0 f=0 s=0
  start=$(date +%s)
  out="$out_root/$suite"
  rm -rf "$out"
  mkdir -p "$out"
  root="$(bash "$repo/scripts/gui_setup.sh" "$suite" | tail -n 1)"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 3 ]; then
    echo "gui-$suite: skipped: the $suite archive offers no installable blender"
    summary+=("gui-$suite: 0 passed, 0 failed, 1 skipped (no installable blender)")
    total_s=$(( total_s + 1 ))
    return 0
  elif [ "$rc" -ne 0 ]; then
    echo "gui-$suite: setting up the chroot failed (rc=$rc)"
    summary+=("gui-$suite: 0 passed, 1 failed (chroot set-up)")
    total_f=$(( total_f + 1 ))
    return 1
  fi

  mount_chroot "$root" "$repo" "$out"

  # Everything below runs inside the chroot; the source is read-only there, so nothing lands in the tree.
  chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp/home LANG=C.UTF-8 \
    GUI_K="${GUI_K:-}" GUI_FILES="${GUI_FILES:-}" GUI_TIMEOUT="$timeout_s" GUI_SCREENSHOTS="${GUI_SCREENSHOTS:+/out/screenshots}" \
    bash /src/tests/gui/in_chroot.sh
  rc=$?
  [ "$rc" -eq 0 ] || echo "gui-$suite: the run inside the chroot ended with rc=$rc"
  if [ -n "${GUI_SCREENSHOTS:-}" ] && [ -d "$out/screenshots" ]; then
    mkdir -p "$GUI_SCREENSHOTS"
    cp "$out"/screenshots/*.png "$GUI_SCREENSHOTS"/ 2>/dev/null || true
  fi
  unmount_all
  flock -u 8

  p=$(grep -ch '^GUI-RESULT passed ' "$out"/*.log 2>/dev/null | awk '{s += $1} END {print s + 0}')
  f=$(grep -ch '^GUI-RESULT failed ' "$out"/*.log 2>/dev/null | awk '{s += $1} END {print s + 0}')
  s=$(grep -ch '^GUI-RESULT skipped ' "$out"/*.log 2>/dev/null | awk '{s += $1} END {print s + 0}')
  # A test file whose Blender crashed, hung or never reported counts as a failure.
  local crashed
  crashed=$(grep -c '^CRASHED ' "$out/files.txt" 2>/dev/null || true)
  f=$(( f + ${crashed:-0} ))
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  local version
  version="$(awk '{print $2}' "$root/.soft_ik_2d_ready" | tr -d ,)"
  echo "gui-$suite (Blender $version): $p passed, $f failed, $s skipped in $(( $(date +%s) - start ))s"
  summary+=("gui-$suite (Blender $version): $p passed, $f failed, $s skipped in $(( $(date +%s) - start ))s")
  total_p=$(( total_p + p )) total_f=$(( total_f + f )) total_s=$(( total_s + s ))
}

for suite in "$@"; do
  [ "$suite" = unstable ] && suite=sid
  run_suite "$suite"
done

echo
printf '%s\n' "${summary[@]}"
echo "results: $out_root"
echo "$total_p passed, $total_f failed, $total_s skipped in $(( $(date +%s) - start_all ))s"
[ "$total_f" -eq 0 ]
