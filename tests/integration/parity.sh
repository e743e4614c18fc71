#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/parity.sh BIN_DIR [rcuvfs options...]
#
# The mount as a file system: each rcuvfs-parity mode on an rcuvfs mount
# and on a tmpfs mounted with the same size, outputs compared mode by mode
# (one pass/fail line each).  Every daemon must exit 0 at unmount.
BIN=$1
shift
. "$(dirname "$0")/lib.sh"
it_setup

# compare MODE [ARG]: run the mode on $T and $R, diff the outputs
compare() {
	local mode=$1
	shift
	"$TBIN/rcuvfs-parity" "$T" "$mode" "$@" >"$IT_TMP/$mode.tmpfs" 2>&1 || fail "$mode on tmpfs exited $?"
	timeout 300 "$TBIN/rcuvfs-parity" "$R" "$mode" "$@" >"$IT_TMP/$mode.rcuvfs" 2>&1 ||
		fail "$mode on rcuvfs exited $?"
	if diff -u "$IT_TMP/$mode.tmpfs" "$IT_TMP/$mode.rcuvfs"; then
		pass "$mode: rcuvfs matches tmpfs ($(wc -l <"$IT_TMP/$mode.tmpfs") lines)"
	else
		fail "$mode: rcuvfs differs from tmpfs (diff above)"
	fi
}

# tmpfs with its default root mode (1777), rcuvfs likewise
T=$IT_TMP/tmpfs
mkdir -p "$T" && mount -t tmpfs -o size=16m none "$T" && IT_MOUNTS+=("$T") || fail "mount tmpfs"
IT_KEEP_ROOT_MODE=1 mount_rcuvfs rcuvfs -o allow_other,size=16m "$@" && R=$MNT && RPID=$PID
compare owner
compare ioctl
compare xattr
compare fallocate
compare sizes
compare fsx 3000
grep -q ' operations ok' "$IT_TMP/fsx.rcuvfs" || fail "fsx did not finish cleanly on rcuvfs"
unmount_rcuvfs "$R" "$RPID" && pass "unmount: daemon exited 0, no process left"

# -o mode= sets the root's mode as tmpfs's mode= does
T=$IT_TMP/tmpfs-0710
mkdir -p "$T" && mount -t tmpfs -o size=1m,mode=0710 none "$T" && IT_MOUNTS+=("$T") || fail "mount tmpfs"
IT_KEEP_ROOT_MODE=1 mount_rcuvfs rcuvfs-0710 -o mode=0710 "$@" && R=$MNT && RPID=$PID
a=$(stat -c %a "$T") b=$(stat -c %a "$R")
[ "$a" = "$b" ] && pass "mode=0710: root mode $b as on tmpfs" || fail "mode=0710: tmpfs $a rcuvfs $b"
grep -q '^mode=0710$' "$R/.rcuvfs/config" || fail "config does not show mode=0710"
unmount_rcuvfs "$R" "$RPID" && pass "unmount after mode="
"$BIN/rcuvfs" "$IT_TMP/none" -o mode=8888 >"$IT_TMP/badmode.log" 2>&1 && fail "mode=8888 accepted"
grep -q "bad value '8888' for mode" "$IT_TMP/badmode.log" && pass "mode=8888 refused in one line" ||
	fail "mode=8888: $(cat "$IT_TMP/badmode.log")"
it_finish
