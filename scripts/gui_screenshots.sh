#!/usr/bin/env bash
# README screenshots from Blender's real GUI: the Soft IK sidebar beside the viewport with the overlay, in
# English and Chinese, written to docs/ (docs/gui_sidebar.png, docs/gui_sidebar_zh.png).
#   bash scripts/gui_screenshots.sh [SUITE]      SUITE: trixie (default) or sid
# Runs tests/gui/screenshots.py through scripts/gui_tests.sh (same chroot, zip and window).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GUI_SCREENSHOTS="$repo/docs" exec bash "$repo/scripts/gui_tests.sh" "${1:-trixie}"
