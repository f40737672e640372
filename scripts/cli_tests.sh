#!/usr/bin/env bash
# The command-line tests: `blender --command soft_ik_2d bake` with Debian's real blender binary, in background
# mode, inside the GUI stage's cached chroot (scripts/gui_setup.sh; no X display is started).
#   bash scripts/cli_tests.sh SUITE      SUITE: trixie (Blender 4.3) or sid/unstable (skipped when its archive
#                                        has no installable blender)
# First compiles the Flamenco job type (scripts/flamenco/) with node on the host, so the chroot run executes
# the exact command lines it generates. Prints pytest's closing line "N passed, M failed in Ts".
# Env: CLI_K=substring selects tests by name; CLI_OUT=DIR keeps the results (default: a temp dir).
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
suite="${1:?usage: cli_tests.sh SUITE}"
[ "$suite" = unstable ] && suite=sid
out="${CLI_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/soft_ik_2d_cli.XXXXXX")}/$suite"
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)

root="$(bash "$repo/scripts/gui_setup.sh" "$suite" | tail -n 1)"
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 3 ]; then
  echo "cli-$suite: skipped: the $suite archive offers no installable blender"
  echo "1 skipped in $(( $(date +%s) - start ))s"
  exit 0
elif [ "$rc" -ne 0 ]; then
  echo "cli-$suite: setting up the chroot failed (rc=$rc)"
  echo "1 failed in $(( $(date +%s) - start ))s"
  exit 1
fi

# The Flamenco job compiler's tasks for the chroot's paths (tests/cli/scenario.py runs their command lines).
if ! node "$repo/tests/pipeline/flamenco_stub.js" "$repo/scripts/flamenco/soft_ik_2d_bake.js" \
    '{"shots": "/tmp/cli/flamenco/good_a.blend\n/tmp/cli/flamenco/good_b.blend", "output_dir": "/tmp/cli/flamenco/baked", "report_dir": "/tmp/cli/flamenco/reports"}' \
    > "$out/flamenco_tasks.json"; then
  echo "cli-$suite: compiling the Flamenco job with node failed"
  echo "1 failed in $(( $(date +%s) - start ))s"
  exit 1
fi

source "$(dirname "${BASH_SOURCE[0]}")/chroot_mounts.sh"

mount_chroot "$root" "$repo" "$out"
chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp/home LANG=C.UTF-8 CLI_K="${CLI_K:-}" \
  bash /src/tests/cli/in_chroot.sh
rc=$?
unmount_all
flock -u 8
grep -h '^CLI-TIMING' "$out/scenario.log" 2>/dev/null
summary="$(grep -E '^([0-9]+ failed, )?[0-9]+ passed in ' "$out/scenario.log" 2>/dev/null | tail -n 1)"
version="$(awk '{print $2}' "$root/.soft_ik_2d_ready" | tr -d ,)"
echo "cli-$suite (Blender $version): ${summary:-no summary (rc=$rc)}; results: $out"
if [ -z "$summary" ]; then echo "1 failed in $(( $(date +%s) - start ))s"; fi
[ "$rc" -eq 0 ]
