#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/filelocks.sh BIN_DIR [STRESS_SECS [RACE_SECS]]: file locks through
# the mount (fuse/lockops.c), for every filelock scheme and two BKL variants,
# each mount started with a small max_threads (4) so that any parked worker
# would show.
#
#  - rcuvfs-locks-test contend: 2 and 3 processes with flock, POSIX and OFD
#    locks, blocking and not, F_GETLK, EDEADLK, EINTR (signal handler without
#    SA_RESTART), close of another fd dropping POSIX locks: the transcript
#    must equal the one the same program prints on a tmpfs;
#  - 1,000 threads blocked on one file (flock, then OFD: 250x max_threads)
#    are all queued in the model, the mount answers other requests meanwhile,
#    then all are granted in turn (mutual exclusion checked);
#  - stress-ng --lockf 2 --fcntl 2 --flock 2 --lockofd 2 --verify, all four
#    at once for STRESS_SECS (default 5) s, bounded by timeout;
#  - grants racing FUSE interrupts (waiters signalled every ~40 us while the
#    holder's release grants them) neither hang nor fail, RACE_SECS
#    (default 2) s;
#  - the control files: config names the scheme, stats has the lock, BKL and
#    FUSE lock counters, locks lists held locks and waiters;
#  - unmount (SIGTERM) with waiters pending: the daemon exits 0 promptly and
#    every waiter gets an error;
#  - every daemon exits 0 at unmount (no leaked model objects).
BIN=$1
SECS=${2:-5}
RACE_SECS=${3:-2}
. "$(dirname "$0")/lib.sh"
it_setup
LT=$TBIN/rcuvfs-locks-test
[ -x "$LT" ] || { echo "FAIL: $LT not built"; exit 1; }

mount_tmpfs tmpfs || it_finish
T=$MNT
timeout 60 "$LT" contend "$T" >"$IT_TMP/contend.tmpfs" 2>&1 || fail "contend on tmpfs: $(tail -3 "$IT_TMP/contend.tmpfs")"

# Wait (bounded, 60 s) until the listing of mount $1 shows $2 waiters.
wait_waiters() {
	local i
	for ((i = 0; i < 1200; i++)); do
		[ "$(grep -c -- '-> ' "$1/.rcuvfs/locks" 2>/dev/null)" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

# Unmount (SIGTERM to the daemon) while a flock and a POSIX waiter block.
unmount_with_waiters() { # cfg
	local cfg=$1 hp w1 w2 rc log
	mount_rcuvfs "lkw" -o "$cfg,max_threads=4" || return
	log=$IT_TMP/lkw.log
	# Empty the output files HERE: a background job's redirection is done
	# by the forked child, so polling a file still holding the previous
	# config's "held" could start the waiters before the holder had even
	# created u (their open then fails with ENOENT, correctly).
	: >"$IT_TMP/hold.out"
	: >"$IT_TMP/w1.out"
	: >"$IT_TMP/w2.out"
	"$LT" hold "$MNT/u" >"$IT_TMP/hold.out" 2>&1 &
	hp=$!
	for ((i = 0; i < 1200; i++)); do grep -qx held "$IT_TMP/hold.out" && break; sleep 0.05; done
	if ! grep -qx held "$IT_TMP/hold.out"; then
		fail "$cfg: holder never held its locks: $(cat "$IT_TMP/hold.out")"
		kill "$hp" 2>/dev/null
		wait "$hp" 2>/dev/null
		unmount_rcuvfs "$MNT" "$PID"
		return
	fi
	"$LT" wait "$MNT/u" flock >"$IT_TMP/w1.out" 2>&1 &
	w1=$!
	"$LT" wait "$MNT/u" posix >"$IT_TMP/w2.out" 2>&1 &
	w2=$!
	if ! wait_waiters "$MNT" 2; then
		fail "$cfg: waiters never queued: $(cat "$MNT/.rcuvfs/locks")"
	fi
	grep -Eq '^[0-9]+: FLOCK  ADVISORY  WRITE [0-9]+ ' "$MNT/.rcuvfs/locks" &&
		grep -Eq '^[0-9]+: POSIX  ADVISORY  WRITE [0-9]+ .* 0 EOF$' "$MNT/.rcuvfs/locks" &&
		grep -Eq '^[0-9]+: -> (FLOCK|POSIX)  ADVISORY  WRITE' "$MNT/.rcuvfs/locks" ||
		fail "$cfg: /.rcuvfs/locks not in /proc/locks format: $(cat "$MNT/.rcuvfs/locks")"
	kill -TERM "$PID"
	if ! wait_gone "$PID"; then
		fail "$cfg: daemon still running 60 s after SIGTERM with waiters"
		kill -9 "$PID" "$hp" "$w1" "$w2" 2>/dev/null
		return
	fi
	wait "$PID"
	rc=$?
	if [ "$rc" != 0 ] || grep -qiE "leak|AddressSanitizer|runtime error" "$log"; then
		fail "$cfg: daemon exit $rc after SIGTERM with waiters: $(tail -8 "$log")"
	fi
	for w in "$w1" "$w2"; do
		if ! wait_gone "$w"; then
			fail "$cfg: a waiter is still blocked after the daemon exited"
			kill -9 "$w" 2>/dev/null
		fi
		wait "$w" || fail "$cfg: a waiter was granted instead of failing"
	done
	# each waiter had opened u and blocked: its error is the lock's
	grep -q '^open:' "$IT_TMP/w1.out" "$IT_TMP/w2.out" &&
		fail "$cfg: a waiter could not open u: $(cat "$IT_TMP/w1.out") / $(cat "$IT_TMP/w2.out")"
	kill "$hp" 2>/dev/null
	wait "$hp" 2>/dev/null
	pass "$cfg: SIGTERM with waiters: daemon exits promptly, waiters get $(cat "$IT_TMP/w1.out") / $(cat "$IT_TMP/w2.out")"
}

for cfg in filelock=global filelock=bkl filelock=inode \
	"filelock=bkl,bkl=sem-fifo,bkl_ops=open+release+setattr+lock" \
	"filelock=inode,bkl=sem-steal,bkl_ops=release+lock"; do
	mount_rcuvfs "lk" -o "$cfg,max_threads=4" || continue
	R=$MNT
	RPID=$PID
	scheme=${cfg%%,*}
	grep -qx "$scheme" "$R/.rcuvfs/config" || fail "$cfg: config lacks $scheme"

	if timeout 120 "$LT" contend "$R" >"$IT_TMP/contend.rcuvfs" 2>&1 &&
		diff -u "$IT_TMP/contend.tmpfs" "$IT_TMP/contend.rcuvfs"; then
		pass "$cfg: 2/3-process flock, POSIX, OFD, EDEADLK, EINTR, close: as on tmpfs"
	else
		fail "$cfg: contend differs from tmpfs"
	fi

	for kind in flock ofd; do
		if timeout 120 "$LT" many "$R" 1000 "$kind" >"$IT_TMP/many.out" 2>&1; then
			pass "$cfg: 1000 $kind waiters (max_threads=4) granted in turn; $(grep side "$IT_TMP/many.out")"
		else
			fail "$cfg: 1000 $kind waiters: $(tail -4 "$IT_TMP/many.out")"
		fi
	done

	if command -v stress-ng >/dev/null; then
		mkdir -p "$R/stress"
		if timeout $((SECS * 3 + 30)) stress-ng --lockf 2 --fcntl 2 --flock 2 --lockofd 2 \
			-t "$SECS" --verify --temp-path "$R/stress" >"$IT_TMP/stress.log" 2>&1; then
			pass "$cfg: stress-ng lockf/fcntl/flock/lockofd ${SECS}s --verify"
		else
			fail "$cfg: stress-ng: $(tail -5 "$IT_TMP/stress.log")"
		fi
		rm -rf "$R/stress"
	else
		echo "note: stress-ng not installed: lock stressors skipped"
	fi

	# grants racing interrupts (a release under the BKL must never wait on
	# libfuse's request lock while an interrupt callback waits on the BKL)
	if timeout $((RACE_SECS * 3 + 60)) "$LT" race "$R" "$RACE_SECS" >"$IT_TMP/race.out" 2>&1 &&
		timeout 10 flock -n "$R/race2" true && rm -f "$R/race2"; then
		pass "$cfg: grant vs interrupt race: $(cat "$IT_TMP/race.out")"
	else
		fail "$cfg: grant vs interrupt race hung or failed: $(cat "$IT_TMP/race.out")"
	fi

	st=$R/.rcuvfs/stats
	for c in locks_posix_calls locks_flock_calls locks_deferred locks_grants locks_deadlocks \
		locks_interrupted fuse_lock_deferred fuse_lock_granted fuse_lock_interrupted \
		req_getlk req_setlk req_setlkw req_flock; do
		grep -Eq "^$c [1-9][0-9]*$" "$st" || fail "$cfg: stats: $c missing or 0"
	done
	grep -Eq '^bkl_acquisitions [0-9]+$' "$st" || fail "$cfg: stats: no bkl_acquisitions"
	case $cfg in
	*bkl*) grep -Eq '^bkl_acquisitions [1-9][0-9]*$' "$st" || fail "$cfg: BKL never taken" ;;
	esac
	[ "$(grep -c -- '-> ' "$R/.rcuvfs/locks")" = 0 ] || fail "$cfg: waiters left: $(head "$R/.rcuvfs/locks")"

	unmount_rcuvfs "$R" "$RPID" && pass "$cfg: unmount, daemon exit 0"
done

for cfg in filelock=global filelock=bkl filelock=inode; do
	unmount_with_waiters "$cfg"
done

it_finish
