#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/mountform.sh BIN: the daemon as mount(8) and fstab run it.
#  1. mount -t fuse.rcuvfs SRC DIR -o filelock=inode,log=FILE: mount.fuse3
#     runs "rcuvfs SRC DIR -o rw,dev,suid,..." from the standard PATH (it
#     clears PATH), so the test runs in a private mount namespace with
#     BIN/rcuvfs bind-mounted over as /usr/local/bin/rcuvfs;
#  2. mount -o remount,ro DIR makes the running mount read-only (EROFS),
#     remount,rw writable again, a remount asking for a model switch is
#     refused in one line;
#     SRC is the mount's source (the first field of /proc/mounts), and
#     "umount SRC" finds it; -o fsname= given with SRC wins over it;
#     the mount's switches are the ones given, and /.rcuvfs/locks names the
#     mount's real device (as /proc/locks does: MAJOR:MINOR in hex) and the
#     file's inode number;
#  3. in daemon mode the log file gets the start line and, at umount, the
#     unmount report (no model object leaked);
#  4. "rcuvfs SOURCE MOUNTPOINT" directly (SOURCE the source), "rcuvfs
#     MOUNTPOINT" ("rcuvfs") and -o fsname=NAME (NAME), and three arguments
#     refused;
#  5. an unwritable -o log= fails at start, before mounting.
here=$(cd "$(dirname "$0")" && pwd)
BIN=$1
. "$here/lib.sh"
it_setup
command -v unshare >/dev/null || it_skip "needs unshare (util-linux)"
[ -x /sbin/mount.fuse3 ] || [ -x /usr/sbin/mount.fuse3 ] || it_skip "needs mount.fuse3 (fuse3)"
m=$IT_TMP/m
log=$IT_TMP/rcuvfs.log
mkdir -p "$m" "$IT_TMP/bin"
ln -s "$(cd "$BIN" && pwd)/rcuvfs" "$IT_TMP/bin/rcuvfs"

# 1-3 in a private mount namespace (the bind mount and the FUSE mount stay in it)
unshare -m bash -s "$m" "$log" "$IT_TMP" >"$IT_TMP/ns.out" 2>&1 <<'NS'
m=$1 log=$2 tmp=$3
mount --make-rprivate / || exit 2
mount --bind "$tmp/bin" /usr/local/bin || exit 2
mount -t fuse.rcuvfs rcuvfs-src1 "$m" -o filelock=inode,log="$log" || { echo "mount failed"; exit 1; }
grep -q " $m fuse.rcuvfs " /proc/self/mounts && echo "mounted: fuse.rcuvfs"
echo "source: $(awk -v m="$m" '$2 == m { print $1 }' /proc/self/mounts)"
grep '^filelock=' "$m/.rcuvfs/config"
: >"$m/f"
dev=$(stat -c '%Hd %Ld' "$m/f")
ino=$(stat -c '%i' "$m/f")
flock "$m/f" -c "cat '$m/.rcuvfs/locks'" >"$tmp/locks"
set -- $dev
printf 'want: %02x:%02x:%s\n' "$1" "$2" "$ino"
sed 's/^/locks: /' "$tmp/locks"
# mount -o remount,ro / rw: the running mount changes, no new daemon
: >"$m/rw"
mount -o remount,ro "$m" && echo "remount ro: ok"
grep -q " $m fuse.rcuvfs ro," /proc/self/mounts && echo "remount ro: ro in /proc/mounts"
echo x 2>"$tmp/erofs" >>"$m/rw"; grep -q "Read-only file system" "$tmp/erofs" && echo "remount ro: EROFS"
mount -o remount,rw "$m" && echo x >>"$m/rw" && echo "remount rw: writable"
mount -o remount,filelock=bkl "$m" 2>"$tmp/fixed"; echo "remount switch: status $?"
sed 's/^/remount switch: /' "$tmp/fixed"
umount rcuvfs-src1 && echo "unmounted"
# -o fsname= wins over SOURCE
mount -t fuse.rcuvfs rcuvfs-src2 "$m" -o fsname=rcuvfs-named || { echo "mount 2 failed"; exit 1; }
echo "named: $(awk -v m="$m" '$2 == m { print $1 }' /proc/self/mounts)"
umount rcuvfs-named && echo "unmounted named"
NS
cat "$IT_TMP/ns.out"
grep -qx "mounted: fuse.rcuvfs" "$IT_TMP/ns.out" || fail "mount -t fuse.rcuvfs did not mount"
grep -qx "filelock=inode" "$IT_TMP/ns.out" || fail "the mount's config lacks filelock=inode"
want=$(sed -n 's/^want: //p' "$IT_TMP/ns.out")
[ -n "$want" ] && grep -q "^locks: 1: FLOCK  ADVISORY  WRITE [0-9]* $want 0 EOF$" "$IT_TMP/ns.out" ||
	fail "/.rcuvfs/locks does not name the mount's device and inode ($want)"
grep -qx "source: rcuvfs-src1" "$IT_TMP/ns.out" || fail "SOURCE is not the mount's source"
for l in "remount ro: ok" "remount ro: ro in /proc/mounts" "remount ro: EROFS" "remount rw: writable" \
	"remount switch: status 2"; do
	grep -qx "$l" "$IT_TMP/ns.out" || fail "mount -o remount: no '$l'"
done
grep -q "^remount switch: rcuvfs: -o remount: 'filelock=bkl' is fixed" "$IT_TMP/ns.out" ||
	fail "mount -o remount with a switch: no message"
grep -qx "unmounted" "$IT_TMP/ns.out" || fail "umount SOURCE failed"
grep -qx "named: rcuvfs-named" "$IT_TMP/ns.out" || fail "-o fsname= did not name the mount"
grep -qx "unmounted named" "$IT_TMP/ns.out" || fail "umount FSNAME failed"
for i in $(seq 100); do grep -q "unmounted $m" "$log" 2>/dev/null && break; sleep 0.1; done
grep -q "^rcuvfs .* on $m (device " "$log" || fail "the log lacks the start line"
grep -q "^rcuvfs: unmounted $m, no model object leaked$" "$log" ||
	fail "the log lacks the unmount report"

# 4. the two-argument form directly; three arguments are refused
source_of() { awk -v m="$1" '$2 == m { print $1 }' /proc/self/mounts; }
"$BIN/rcuvfs" src-direct "$m" -o filelock=bkl || fail "rcuvfs SOURCE MOUNTPOINT failed"
IT_MOUNTS+=("$m")
grep -qx "filelock=bkl" "$m/.rcuvfs/config" || fail "SOURCE MOUNTPOINT: switch not applied"
[ "$(source_of "$m")" = src-direct ] || fail "SOURCE MOUNTPOINT: source $(source_of "$m")"
it_unmount "$m"
"$BIN/rcuvfs" "$m" || fail "rcuvfs MOUNTPOINT failed"
[ "$(source_of "$m")" = rcuvfs ] || fail "MOUNTPOINT alone: source $(source_of "$m"), not rcuvfs"
it_unmount "$m"
"$BIN/rcuvfs" "$m" -o 'fsname=mine' || fail "-o fsname=mine failed"
[ "$(source_of "$m")" = mine ] || fail "-o fsname=mine: source $(source_of "$m")"
it_unmount "$m"
pass "sources: SOURCE, rcuvfs, -o fsname="
"$BIN/rcuvfs" a "$m" c >"$IT_TMP/three.out" 2>&1 && fail "three arguments accepted"
grep -q "unexpected argument 'c'" "$IT_TMP/three.out" || fail "three arguments: no message"
mountpoint -q "$m" && fail "three arguments mounted"

# 5. an unwritable log file fails at start, nothing mounted
"$BIN/rcuvfs" "$m" -o log="$IT_TMP/no/such/dir/log" >"$IT_TMP/log.out" 2>&1 &&
	fail "an unwritable log= was accepted"
grep -q "log=" "$IT_TMP/log.out" || fail "an unwritable log=: no message"
mountpoint -q "$m" && fail "an unwritable log= mounted"
it_finish
