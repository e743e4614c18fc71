#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/lib.sh - helpers for the integration tests: mount rcuvfs
# (foreground, so the test owns its pid and exit status) and tmpfs in a
# temporary directory, unmount, and check that no daemon is left.
#
# Every test script sources this, sets BIN (build/bin) and calls it_setup.
# Test programs (rcuvfs-battery, rcuvfs-fuzz, ...) are in TBIN, build/tests
# beside build/bin unless set.
# A test that cannot run here (not root, no /dev/fuse) exits 77 (CTest SKIP),
# except in CI (CI=true), where FUSE is there and a skip fails the run.

TBIN=${TBIN:-$(dirname "${BIN:-.}")/tests}
set -u
IT_FAILS=0
IT_PIDS=()
IT_MOUNTS=()

it_setup() {
	if [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ] || ! command -v fusermount3 >/dev/null; then
		it_skip "needs root, /dev/fuse and fusermount3"
	fi
	[ -x "$BIN/rcuvfs" ] || { echo "FAIL: $BIN/rcuvfs not built"; exit 1; }
	IT_TMP=$(mktemp -d /tmp/rcuvfs-it.XXXXXX)
	chmod 755 "$IT_TMP" # unprivileged checks must reach the mounts
	trap it_cleanup EXIT
}

# it_skip REASON: exit 77 (CTest: skipped), or 1 in CI, where nothing may skip.
it_skip() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: cannot run in CI (CI=true): $*"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

it_cleanup() {
	local m p
	for m in "${IT_MOUNTS[@]}"; do
		if mountpoint -q "$m" 2>/dev/null; then
			fusermount3 -u "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
		fi
	done
	for p in "${IT_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	rm -rf "$IT_TMP" 2>/dev/null || true
}

fail() {
	echo "FAIL: $*"
	IT_FAILS=$((IT_FAILS + 1))
}

pass() {
	echo "ok: $*"
}

# Wait (bounded) until the mount at $1 is a FUSE mount answering stat.
wait_mounted() {
	local i
	for ((i = 0; i < 1200; i++)); do
		if grep -q " $1 fuse" /proc/self/mounts && stat "$1" >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# Wait (bounded, 60 s) until nothing is mounted at $1 any more.
wait_unmounted() {
	local i
	for ((i = 0; i < 1200; i++)); do
		grep -q " $1 " /proc/self/mounts || return 0
		sleep 0.05
	done
	return 1
}

# Whether pid $1 is gone (a zombie not yet reaped by our init counts as gone).
pid_gone() {
	local st
	[ -e "/proc/$1" ] || return 0
	st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 0
	[ "$st" = Z ]
}

wait_gone() { # pid, bounded (60 s)
	local i
	for ((i = 0; i < 1200; i++)); do
		pid_gone "$1" && return 0
		sleep 0.05
	done
	return 1
}

# mount_rcuvfs NAME [rcuvfs options...]: foreground daemon in the background;
# sets MNT and PID; its stderr goes to $IT_TMP/NAME.log.  The daemon is
# $BIN/rcuvfs, or $IT_DAEMON when set (the daemon's test build).
mount_rcuvfs() {
	local name=$1
	shift
	MNT=$IT_TMP/$name
	mkdir -p "$MNT"
	# A new daemon on a name used before: the old mount must be gone, or
	# the new one would stack on it and wait_mounted could see the old one
	if ! wait_unmounted "$MNT"; then
		fail "an earlier mount is still at $MNT: $(grep " $MNT " /proc/self/mounts)"
		return 1
	fi
	"${IT_DAEMON:-$BIN/rcuvfs}" "$MNT" -f "$@" >"$IT_TMP/$name.log" 2>&1 &
	PID=$!
	IT_PIDS+=("$PID")
	IT_MOUNTS+=("$MNT")
	if ! wait_mounted "$MNT"; then
		fail "rcuvfs did not mount at $MNT: $(cat "$IT_TMP/$name.log")"
		return 1
	fi
	# the root is 1777 as on tmpfs; IT_KEEP_ROOT_MODE=1 leaves it so
	[ -n "${IT_KEEP_ROOT_MODE:-}" ] || chmod 755 "$MNT"
}

# unmount_rcuvfs MNT PID: fusermount3 -u, then the daemon must exit with 0
# (non-zero: it reported leaked model objects) and leave no process.
unmount_rcuvfs() {
	fusermount3 -u "$1" || { fail "fusermount3 -u $1"; return 1; }
	daemon_exited_clean "$1" "$2"
}

# daemon_exited_clean MNT PID: the daemon of MNT ends (bounded) with exit
# status 0 and nothing in its log (leaked objects, sanitizer reports).
daemon_exited_clean() {
	local mnt=$1 pid=$2 rc log
	log=$IT_TMP/$(basename "$mnt").log
	if ! wait_gone "$pid"; then
		fail "daemon $pid still running after unmount"
		return 1
	fi
	wait "$pid" 2>/dev/null
	rc=$?
	if [ "$rc" != 0 ]; then
		fail "daemon exit status $rc after unmount: $(tail -20 "$log")"
		return 1
	fi
	if grep -qiE "leak|ERROR: AddressSanitizer|runtime error" "$log"; then
		fail "daemon log reports problems: $(grep -iE 'leak|AddressSanitizer|runtime error' "$log" | head -5)"
		return 1
	fi
	return 0
}

mount_tmpfs() { # NAME [size]
	MNT=$IT_TMP/$1
	mkdir -p "$MNT"
	mount -t tmpfs -o "size=${2:-256m},mode=755" none "$MNT" || { fail "mount tmpfs"; return 1; }
	IT_MOUNTS+=("$MNT")
}

it_finish() {
	if [ "$IT_FAILS" -gt 0 ]; then
		echo "$IT_FAILS failure(s)"
		exit 1
	fi
	echo "all passed"
	exit 0
}
