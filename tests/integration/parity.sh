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
	"$BIN/rcuvfs-parity" "$T" "$mode" "$@" >"$IT_TMP/$mode.tmpfs" 2>&1 || fail "$mode on tmpfs exited $?"
	timeout 300 "$BIN/rcuvfs-parity" "$R" "$mode" "$@" >"$IT_TMP/$mode.rcuvfs" 2>&1 ||
		fail "$mode on rcuvfs exited $?"
	if diff -u "$IT_TMP/$mode.tmpfs" "$IT_TMP/$mode.rcuvfs"; then
		pass "$mode: rcuvfs matches tmpfs ($(wc -l <"$IT_TMP/$mode.tmpfs") lines)"
	else
		fail "$mode: rcuvfs differs from tmpfs (diff above)"
	fi
}

mount_tmpfs tmpfs 16m && T=$MNT
mount_rcuvfs rcuvfs -o allow_other,size=16m "$@" && R=$MNT && RPID=$PID
compare fallocate
compare fsx 3000
grep -q ' operations ok' "$IT_TMP/fsx.rcuvfs" || fail "fsx did not finish cleanly on rcuvfs"
unmount_rcuvfs "$R" "$RPID" && pass "unmount: daemon exited 0, no process left"
it_finish
