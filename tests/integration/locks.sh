#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/locks.sh BIN_DIR [STRESS_SECS]: file locks through the
# mount, for every filelock scheme (and the BKL variants).
#  - rcuvfs-locktest contend (2 and 3 processes, flock and fcntl, blocking
#    and not, F_GETLK, EDEADLK, EINTR, close drops POSIX locks, OFD) gives
#    the output it gives on tmpfs;
#  - 1,000 threads blocked on one file (flock, then OFD; max_threads=64) are
#    all granted in turn while the mount keeps answering;
#  - stress-ng --lockf 2 --fcntl 2 --flock 2 --lockofd 2 --verify runs
#    STRESS_SECS (default 5) without failures or hangs;
#  - SIGTERM with a waiter pending: the daemon exits 0 promptly and the
#    waiter gets an error.
BIN=$1
SECS=${2:-5}
. "$(dirname "$0")/lib.sh"
it_setup

mount_tmpfs tmpfs && T=$MNT
"$BIN/rcuvfs-locktest" "$T" contend >"$IT_TMP/contend.tmpfs" 2>&1 || fail "locktest on tmpfs"
"$BIN/rcuvfs-locktest" "$T" many 1000 /proc/locks >"$IT_TMP/many.tmpfs" 2>&1 || fail "many on tmpfs"

for cfg in filelock=global filelock=bkl filelock=inode "filelock=bkl,bkl=sem-fifo,bkl_ops=lock" \
	"filelock=inode,bkl=sem-steal,bkl_ops=open+release+setattr+lock"; do
	mount_rcuvfs "locks" -o "$cfg,max_threads=64" && R=$MNT && RPID=$PID || continue
	timeout 120 "$BIN/rcuvfs-locktest" "$R" contend >"$IT_TMP/contend.rcuvfs" 2>&1
	if diff -u "$IT_TMP/contend.tmpfs" "$IT_TMP/contend.rcuvfs"; then
		pass "$cfg: contend matches tmpfs"
	else
		fail "$cfg: contend differs from tmpfs"
	fi
	timeout 120 "$BIN/rcuvfs-locktest" "$R" many 1000 "$R/.rcuvfs/locks" >"$IT_TMP/many.rcuvfs" 2>&1
	if diff -u "$IT_TMP/many.tmpfs" "$IT_TMP/many.rcuvfs"; then
		pass "$cfg: 1000 waiters granted in turn, mount answering meanwhile"
	else
		fail "$cfg: many waiters differ"
	fi
	if command -v stress-ng >/dev/null; then
		mkdir -p "$R/stress"
		if timeout $((SECS * 4 + 60)) stress-ng --lockf 2 --fcntl 2 --flock 2 --lockofd 2 \
			-t "$SECS" --verify --temp-path "$R/stress" >"$IT_TMP/stress.log" 2>&1; then
			pass "$cfg: stress-ng lock stressors ${SECS}s --verify"
		else
			fail "$cfg: stress-ng: $(tail -5 "$IT_TMP/stress.log")"
		fi
		rm -rf "$R/stress"
	fi
	grep -Eq '^(locks_deferred|req_flock|bkl_acquisitions) [0-9]+' "$R/.rcuvfs/stats" ||
		fail "$cfg: stats lack lock counters"
	unmount_rcuvfs "$R" "$RPID" && pass "$cfg: unmount clean"
done

# a waiter pending at shutdown gets an error, and the daemon exits promptly
mount_rcuvfs hold && R=$MNT && RPID=$PID
"$BIN/rcuvfs-locktest" "$R" hold >"$IT_TMP/hold.out" 2>&1 &
HPID=$!
for ((i = 0; i < 400; i++)); do grep -q "hold.blocked" "$IT_TMP/hold.out" && break; sleep 0.05; done
grep -q "hold.blocked" "$IT_TMP/hold.out" || fail "hold: waiter never blocked"
kill -TERM "$RPID"
if wait_gone "$RPID"; then
	wait "$RPID"
	rc=$?
	[ "$rc" = 0 ] && pass "shutdown with a waiter: daemon exit 0" || fail "shutdown: exit $rc"
else
	fail "shutdown with a waiter: daemon still running"
fi
for ((i = 0; i < 200; i++)); do pid_gone "$HPID" && break; sleep 0.05; done
wait "$HPID" 2>/dev/null
res=$(sed -n 's/^hold.b_result: //p' "$IT_TMP/hold.out")
if [ -n "$res" ] && [ "$res" != ok ]; then
	pass "shutdown with a waiter: the waiter got $res"
else
	fail "shutdown with a waiter: result '$res'"
fi
it_finish
