#!/usr/bin/env bash
# Sets up (once) a Debian chroot with Debian's own `blender` package and an X server, for the GUI tests.
#   bash scripts/gui_setup.sh SUITE      SUITE: trixie (Blender 4.3) or sid/unstable (whatever sid ships)
# The chroot is cached outside the working tree, in $GUI_CACHE (default /var/cache/soft_ik_2d) as gui-SUITE,
# and reused when its stamp file says it is complete; a half-made chroot (no stamp) is removed and rebuilt.
# The mirror is read from the host's apt sources at run time. Needs root and debootstrap (installed when
# missing). Exit status: 0 ready, 3 the suite's archive offers no installable blender, 1 any other failure.
# Prints the chroot's path on its last line.
set -euo pipefail

suite="${1:?usage: gui_setup.sh SUITE}"
[ "$suite" = unstable ] && suite=sid
cache="${GUI_CACHE:-/var/cache/soft_ik_2d}"
root="$cache/gui-$suite"
stamp="$root/.soft_ik_2d_ready"
# GUI_BLENDER_PACKAGE only exists to exercise the "no installable blender" path (exit 3).
blender_pkg="${GUI_BLENDER_PACKAGE:-blender}"
packages=("$blender_pkg" xvfb xauth libgl1-mesa-dri libegl1 libglx-mesa0 xdotool imagemagick python3-numpy)
# sid's blender 5.2 misses these dependencies: its bundled extensions add-on imports them.
sid_extra=(python3-cattr python3-requests)

# Two runs building the same chroot at once would wreck it: the second waits, then finds it ready.
mkdir -p "$cache"
exec 9>"$root.setup.lock"
flock 9
if [ -f "$stamp" ]; then
  echo "gui_setup: $suite chroot cached at $root ($(cat "$stamp"))"
  echo "$root"
  exit 0
fi

[ "$(id -u)" -eq 0 ] || { echo "gui_setup: needs root (debootstrap, chroot)" >&2; exit 1; }

mounted=()
cleanup() {
  local m i
  # Unmount in reverse order; /dev is an rbind and must go recursively (lazily if busy).
  for (( i=${#mounted[@]}-1; i>=0; i-- )); do
    m="${mounted[$i]}"
    umount -R "$m" 2>/dev/null || umount -lR "$m" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'cleanup; exit 143' TERM INT

mount_into() {  # mount_into ROOT: proc, sys, dev (rbind, rslave), tmpfs on /tmp
  local r="$1"
  mkdir -p "$r/proc" "$r/sys" "$r/dev" "$r/tmp"
  mountpoint -q "$r/proc" || { mount -t proc proc "$r/proc"; mounted+=("$r/proc"); }
  mountpoint -q "$r/sys" || { mount -t sysfs sysfs "$r/sys"; mounted+=("$r/sys"); }
  mountpoint -q "$r/dev" || { mount --rbind /dev "$r/dev"; mount --make-rslave "$r/dev"; mounted+=("$r/dev"); }
  mountpoint -q "$r/tmp" || { mount -t tmpfs tmpfs "$r/tmp"; mounted+=("$r/tmp"); }
}

# The host's mirror: the first deb URI of its sources (deb822 or one-line format), without security archives.
mirror="${GUI_MIRROR:-}"
if [ -z "$mirror" ]; then
  mirror="$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' \
    | grep -v security | head -n 1 || true)"
fi
if [ -z "$mirror" ]; then
  mirror="$(grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
    | awk '{for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) {print $i; exit}}' | grep -v security \
    | head -n 1 || true)"
fi
mirror="${mirror:-http://deb.debian.org/debian}"

if ! command -v debootstrap >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
fi

start=$(date +%s)
# A chroot without the stamp is half-made (an interrupted run): unmount anything left and start over.
if [ -e "$root" ]; then
  echo "gui_setup: removing incomplete chroot $root"
  for m in "$root/out" "$root/src" "$root/tmp" "$root/dev" "$root/sys" "$root/proc"; do
    mountpoint -q "$m" && { umount -R "$m" 2>/dev/null || umount -lR "$m"; }
  done
  rm -rf --one-file-system "$root"
fi
mkdir -p "$cache"

# sid is bootstrapped from trixie (a stable base) and gets blender from sid with apt pinning: sid's own
# Release file may be expired, and debootstrap does not accept that.
base="$suite"
[ "$suite" = sid ] && base=trixie
echo "gui_setup: debootstrap $base into $root from $mirror"
debootstrap --variant=minbase "$base" "$root" "$mirror" > "$cache/gui-$suite.debootstrap.log" 2>&1 || {
  echo "gui_setup: debootstrap failed, see $cache/gui-$suite.debootstrap.log" >&2; tail -n 20 \
    "$cache/gui-$suite.debootstrap.log" >&2; exit 1; }

apt_opts=(-o Acquire::Retries=3 -y --no-install-recommends)
if [ "$suite" = sid ]; then
  echo "deb $mirror sid main" > "$root/etc/apt/sources.list.d/sid.list"
  printf 'Package: *\nPin: release n=sid\nPin-Priority: 100\n' > "$root/etc/apt/preferences.d/sid"
  echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99no-valid-until"
fi
echo 'APT::Sandbox::User "root";' > "$root/etc/apt/apt.conf.d/99sandbox-root"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

mount_into "$root"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
  HOME=/root "$@"; }
in_root apt-get -qq update

# Which blender does the archive offer? None (or none installable) is not a failure of ours: exit 3.
target=()
[ "$suite" = sid ] && target=(-t sid)
if ! in_root apt-get "${target[@]}" -s "${apt_opts[@]}" install "$blender_pkg" > /dev/null 2>&1; then
  echo "gui_setup: the $suite archive offers no installable blender" >&2
  cleanup; mounted=()
  rm -rf --one-file-system "$root"
  exit 3
fi
extra=()
[ "$suite" = sid ] && extra=("${sid_extra[@]}")
in_root apt-get "${target[@]}" "${apt_opts[@]}" -qq install "${packages[@]}" "${extra[@]}" \
  > "$cache/gui-$suite.apt.log" 2>&1 || {
  echo "gui_setup: apt-get install failed, see $cache/gui-$suite.apt.log" >&2
  tail -n 20 "$cache/gui-$suite.apt.log" >&2; exit 1; }
in_root apt-get clean

version="$(in_root dpkg-query -W -f '${Version}' "$blender_pkg")"
cleanup; mounted=()
echo "blender $version, built $(date -u +%FT%TZ) in $(( $(date +%s) - start ))s" > "$stamp"
echo "gui_setup: $suite ready: $(cat "$stamp")"
echo "$root"
