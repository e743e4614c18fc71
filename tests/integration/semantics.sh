#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/semantics.sh BIN_DIR MODE
#
# One behaviour of the mount, checked on an rcuvfs mount beside a tmpfs
# mounted alike with rcuvfs-parity's mode of the same name:
#   readdir   a walk ends while entries are renamed between its reads and
#             meets no entry twice (checked on rcuvfs alone: tmpfs's walk
#             since Linux 6.14 follows the parent's d_children list, which
#             in this pattern meets renamed entries again; its lines are
#             printed for reference)
#   whiteout  RENAME_WHITEOUT's 0:0 character device, compared with tmpfs
#   handles   open_by_handle_at after the kernel dropped its inodes (FORGET
#             counted), stale once the file is gone; compared with tmpfs
#   killpriv  privilege stripping by writes, fallocate and truncate of other
#             users, compared with tmpfs, and the requests it costs
# The daemon must exit 0 at unmount.
BIN=$1
MODE=$2
. "$(dirname "$0")/lib.sh"
it_setup

T=$IT_TMP/tmpfs
mkdir -p "$T" && mount -t tmpfs -o size=16m none "$T" && IT_MOUNTS+=("$T") || fail "mount tmpfs"
IT_KEEP_ROOT_MODE=1 mount_rcuvfs rcuvfs -o allow_other,size=16m || it_finish
R=$MNT
RPID=$PID

run() { # FS DIR: the mode's output in $IT_TMP/MODE.FS
	timeout 120 "$TBIN/rcuvfs-parity" "$2" "$MODE" >"$IT_TMP/$MODE.$1" 2>"$IT_TMP/$MODE.$1.err" ||
		fail "$MODE on $1 exited $?: $(cat "$IT_TMP/$MODE.$1.err")"
}

compare() {
	if diff -u "$IT_TMP/$MODE.tmpfs" "$IT_TMP/$MODE.rcuvfs"; then
		pass "$MODE: rcuvfs matches tmpfs ($(wc -l <"$IT_TMP/$MODE.tmpfs") lines)"
	else
		fail "$MODE: rcuvfs differs from tmpfs (diff above)"
	fi
}

expect() { # LINE: must be in rcuvfs's output
	if grep -qxF "$1" "$IT_TMP/$MODE.rcuvfs"; then
		pass "rcuvfs: $1"
	else
		fail "rcuvfs: expected '$1', got: $(grep -F "${1%%:*}:" "$IT_TMP/$MODE.rcuvfs")"
	fi
}

stat_of() { # NAME: a counter of the rcuvfs mount's stats
	awk -v n="$1" '$1 == n { print $2 }' "$R/.rcuvfs/stats"
}

case $MODE in
readdir)
	run tmpfs "$T"
	run rcuvfs "$R"
	sed 's/^/  tmpfs (reference): /' "$IT_TMP/$MODE.tmpfs"
	expect "readdir.walk_ended: yes"
	expect "readdir.at_most_n: yes"
	expect "readdir.met_twice: 0"
	expect "readdir.renamed_during_walk: yes"
	expect "readdir.rewind: 400 entries, 0 twice"
	;;
whiteout)
	run tmpfs "$T"
	run rcuvfs "$R"
	compare
	;;
handles)
	run tmpfs "$T"
	f0=$(stat_of req_forget)
	run rcuvfs "$R"
	f1=$(stat_of req_forget)
	compare
	# the handles were used after the kernel forgot the inodes
	[ "$((f1 - f0))" -gt 0 ] && pass "rcuvfs: the kernel forgot $((f1 - f0)) inodes (drop_caches)" ||
		fail "rcuvfs: no FORGET during the mode: the handles never left the kernel's cache"
	;;
killpriv)
	run tmpfs "$T"
	g0=$(stat_of req_getxattr) r0=$(stat_of req_removexattr)
	run rcuvfs "$R"
	g1=$(stat_of req_getxattr) r1=$(stat_of req_removexattr)
	compare
	echo "  rcuvfs requests during the mode: getxattr $((g1 - g0)), removexattr $((r1 - r0))"
	;;
*)
	echo "usage: semantics.sh BIN_DIR readdir|whiteout|handles|killpriv"
	exit 2
	;;
esac
unmount_rcuvfs "$R" "$RPID" && pass "unmount: daemon exited 0"
it_finish
