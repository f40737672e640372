# Sourced by scripts/gui_tests.sh and scripts/cli_tests.sh: the mounts a test run needs inside a cached Debian
# chroot, undone on exit or on a CI stage timeout (the tree must never stay bind-mounted).
mounted=()
unmount_all() {
  local i
  for (( i=${#mounted[@]}-1; i>=0; i-- )); do
    umount -R "${mounted[$i]}" 2>/dev/null || umount -lR "${mounted[$i]}" 2>/dev/null || true
  done
  mounted=()
}
trap unmount_all EXIT
trap 'unmount_all; exit 143' TERM INT

bind() {  # bind SRC DST [ro]
  mkdir -p "$2"
  mount --bind "$1" "$2" && mounted+=("$2")
  [ "${3:-}" = ro ] && mount -o remount,bind,ro "$2"
  return 0
}

# mount_chroot ROOT REPO OUT: takes the chroot's lock on fd 8 (one run per chroot at a time: the cache is shared
# by every clone on the machine, and another run's clean-up would unmount this one's /src and /out under it),
# clears mounts a killed earlier run left behind, then mounts proc, sys, dev, a fresh /tmp, the repository
# read-only at /src and OUT at /out. Undo with `unmount_all; flock -u 8`.
mount_chroot() {
  local root="$1" m
  exec 8>"$root.lock"
  flock 8
  for m in out src tmp dev sys proc; do
    mountpoint -q "$root/$m" && { umount -R "$root/$m" 2>/dev/null || umount -lR "$root/$m"; }
  done
  mkdir -p "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
  mount -t proc proc "$root/proc" && mounted+=("$root/proc")
  mount -t sysfs sysfs "$root/sys" && mounted+=("$root/sys")
  mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" && mounted+=("$root/dev")
  mount -t tmpfs tmpfs "$root/tmp" && mounted+=("$root/tmp")
  bind "$2" "$root/src" ro
  bind "$3" "$root/out"
}
