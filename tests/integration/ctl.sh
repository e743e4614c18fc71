#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/ctl.sh BIN_DIR: the /.rcuvfs control directory.
# Its files parse; creating, renaming, removing give EPERM, opening for
# write EACCES (rcuvfs-battery ctl prints each result, compared with the
# expected list below); config shows the switches given at mount; stats
# count the requests just made.
BIN=$1
. "$(dirname "$0")/lib.sh"
it_setup

mount_rcuvfs ctl -o filelock=inode,bkl=sem-fifo,fileref=file-ref && R=$MNT && RPID=$PID
cat >"$IT_TMP/ctl.expected" <<'EXP'
ctl.config_lines_ok: 1
ctl.stats_lines_ok: 1
ctl.slabinfo_lines_ok: 1
ctl.locks_readable: 1
ctl.write_stats: EACCES
ctl.rdwr_config: EACCES
ctl.trunc_config: EACCES
ctl.create: EPERM
ctl.mkdir: EPERM
ctl.mknod: EPERM
ctl.symlink: EPERM
ctl.unlink: EPERM
ctl.rename_in: EPERM
ctl.rename_out: EPERM
ctl.link_out: EPERM
ctl.chmod: EPERM
ctl.truncate: EPERM
ctl.rmdir_self: EPERM
ctl.rename_self: EPERM
ctl.mkdir_over: EEXIST
ctl.stat: ok
ctl.stat.mode: 100444
ctl.snapshot_stable: 1
ctl.hidden_in_root: 1
EXP
"$TBIN/rcuvfs-battery" "$R" ctl >"$IT_TMP/ctl.out" 2>&1
if diff -u "$IT_TMP/ctl.expected" "$IT_TMP/ctl.out"; then
	pass "control directory: parses, changes refused"
else
	fail "control directory results differ (diff above)"
fi
for kv in filelock=inode bkl=sem-fifo fileref=file-ref attr_timeout=0 entry_timeout=0 apps=0 \
	writeback_cache=0; do
	grep -qx "$kv" "$R/.rcuvfs/config" || fail "config lacks $kv"
done
pass "config shows the switches in force"
# config lists only what the mount accepts: the switches of model address
# spaces are refused at mount, so they are not shown as if in force
sw=
for sw in $("$BIN/rcuvfs" --help | sed -n "s/.*by the kernel.s mm)://p"); do
	grep -q "^$sw=" "$R/.rcuvfs/config" && fail "config lists $sw, which the mount refuses"
done
[ -n "$sw" ] || fail "rcuvfs --help names no refused switch"
pass "config omits the switches the mount refuses"
# stats-help names every counter of stats with its kind and help text, the
# same glossary rcuvfs --list-counters prints
awk '{print $1}' "$R/.rcuvfs/stats" | sort >"$IT_TMP/stats.names"
awk '$2 == "counter" || $2 == "gauge" {print $1}' "$R/.rcuvfs/stats-help" | sort >"$IT_TMP/help.names"
diff -u "$IT_TMP/stats.names" "$IT_TMP/help.names" && pass "stats-help names every counter of stats" ||
	fail "stats and stats-help name different counters (diff above)"
awk 'NF < 3 {bad = 1} END {exit bad}' "$R/.rcuvfs/stats-help" || fail "stats-help: a line without help text"
"$BIN/rcuvfs" --list-counters | diff -u - "$R/.rcuvfs/stats-help" &&
	pass "rcuvfs --list-counters prints the mount's stats-help" ||
	fail "rcuvfs --list-counters and stats-help differ (diff above)"
before=$(awk '$1 == "req_mkdir" {print $2}' "$R/.rcuvfs/stats")
mkdir "$R/a" "$R/b" "$R/c"
after=$(awk '$1 == "req_mkdir" {print $2}' "$R/.rcuvfs/stats")
[ "$((after - before))" = 3 ] && pass "stats count requests (req_mkdir +3)" ||
	fail "req_mkdir went from '$before' to '$after'"
for name in req_getattr req_lookup fget_retries; do
	grep -q "^$name [0-9]" "$R/.rcuvfs/stats" || fail "stats lacks $name"
done
grep -q . "$R/.rcuvfs/slabinfo" || fail "slabinfo is empty"
# rcuvfs's restricted ioctls reach the model (vfs_ioctl) through the mount
echo x >"$R/ioc"
out=$(python3 - "$R/ioc" <<'PY' 2>&1
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.ioctl(fd, 0xB700)                                   # RCUVFS_IOC_NOP
gen = struct.unpack("Q", fcntl.ioctl(fd, 0x8008B701, bytes(8)))[0]  # GETGEN
try:
    fcntl.ioctl(fd, 0xB7FF)
    print("unknown ioctl accepted")
except OSError as e:
    print("gen", gen > 0, "unknown", e.errno)
PY
)
[ "$out" = "gen True unknown 25" ] && pass "ioctl: NOP, GETGEN, ENOTTY for others" || fail "ioctl: $out"
grep -q "^req_ioctl [1-9]" "$R/.rcuvfs/stats" || fail "req_ioctl not counted"
unmount_rcuvfs "$R" "$RPID" && pass "unmount"
it_finish
