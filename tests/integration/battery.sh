#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/battery.sh BIN_DIR [rcuvfs options...]
#
# The same battery (rcuvfs-battery) on an rcuvfs mount (allow_other, so the
# battery can drop to nobody) and on a tmpfs; the outputs must be identical.
# Then ENOSPC at size=1m on both, compared the same way.  Every daemon must
# exit 0 at unmount (no leaked model objects) and leave no process.
BIN=$1
shift
. "$(dirname "$0")/lib.sh"
it_setup

mount_tmpfs tmpfs && T=$MNT
mount_rcuvfs rcuvfs -o allow_other "$@" && R=$MNT && RPID=$PID
"$TBIN/rcuvfs-battery" "$T" basic >"$IT_TMP/out.tmpfs" 2>&1 || fail "battery on tmpfs exited $?"
timeout 120 "$TBIN/rcuvfs-battery" "$R" basic >"$IT_TMP/out.rcuvfs" 2>&1 || fail "battery on rcuvfs exited $?"
if diff -u "$IT_TMP/out.tmpfs" "$IT_TMP/out.rcuvfs"; then
	pass "battery: rcuvfs matches tmpfs ($(wc -l <"$IT_TMP/out.tmpfs") checks)"
else
	fail "battery: rcuvfs differs from tmpfs (diff above)"
fi
grep -q '^done$' "$IT_TMP/out.rcuvfs" || fail "battery did not finish on rcuvfs"
# forget: once the tree is gone and the kernel drops its dentries and
# inodes, FORGET requests bring the model back to the root inode alone
rm -rf "$R/work"
for ((i = 0; i < 600; i++)); do
	echo 2 >/proc/sys/vm/drop_caches
	[ "$(awk '$1 == "vfs_inodes" {print $2}' "$R/.rcuvfs/stats")" = 1 ] && break
	sleep 0.1
done
n=$(awk '$1 == "vfs_inodes" {print $2}' "$R/.rcuvfs/stats")
f=$(awk '$1 == "req_forget" {print $2}' "$R/.rcuvfs/stats")
[ "$n" = 1 ] && [ "$f" -gt 0 ] && pass "forget: $f forgets, the model holds only the root" ||
	fail "forget: vfs_inodes $n after rm -rf and drop_caches (req_forget $f)"
unmount_rcuvfs "$R" "$RPID" && pass "unmount: daemon exited 0, no process left"

# ENOSPC at size=
mount_tmpfs tmpfs-small 1m && T=$MNT
mount_rcuvfs rcuvfs-small -o size=1m "$@" && R=$MNT && RPID=$PID
"$TBIN/rcuvfs-battery" "$T" enospc >"$IT_TMP/enospc.tmpfs" 2>&1
timeout 60 "$TBIN/rcuvfs-battery" "$R" enospc >"$IT_TMP/enospc.rcuvfs" 2>&1
if diff -u "$IT_TMP/enospc.tmpfs" "$IT_TMP/enospc.rcuvfs" && grep -q "first_error: ENOSPC" "$IT_TMP/enospc.rcuvfs"; then
	pass "enospc: size=1m gives ENOSPC as tmpfs does"
else
	fail "enospc differs"
fi
unmount_rcuvfs "$R" "$RPID" && pass "unmount after enospc"
it_finish
