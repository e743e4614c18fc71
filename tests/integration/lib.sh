#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/lib.sh - helpers for the integration tests: mount rcuvfs
# (foreground, so the test owns its pid and exit status) and tmpfs in a
# temporary directory, unmount, and check that no daemon is left.
#
# Every unmount of a test goes through it_unmount: on a loaded machine a
# child that used the mount may not have exited when the test's last check
# ran, and the kernel then refuses the unmount (EBUSY).  it_unmount waits
# for the test's own processes first and retries a busy mount for a bounded
# time; only a mount still busy that long after they are gone fails.
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
			IT_UNMOUNT_SECS=5 it_unmount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
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

# The shell's children that are still running and are not its daemons
# (IT_PIDS), one per line: the test's own processes that may hold a mount.
it_own_children() {
	local p d mine anc=" " q=$BASHPID
	# the subshells this runs in (command substitutions) are not holders
	while [ -n "$q" ] && [ "$q" != "$$" ] && [ "$q" != 1 ]; do
		anc+="$q "
		q=$(sed 's/.*) //' "/proc/$q/stat" 2>/dev/null | cut -d' ' -f2)
	done
	for p in $(pgrep -P $$ 2>/dev/null); do
		[ "${anc/ $p /}" != "$anc" ] && continue
		mine=1
		for d in "${IT_PIDS[@]}"; do
			[ "$p" = "$d" ] && mine=0
		done
		[ $mine = 1 ] && ! pid_gone "$p" && echo "$p"
	done
	return 0 # the list is the answer (callers under set -e)
}

# it_unmount MNT [PID...]: unmount MNT (fusermount3 -u for a FUSE mount,
# umount otherwise) once the PIDs given and the shell's own children other
# than its daemons have ended (each waited for at most IT_UNMOUNT_SECS,
# default 60).  A busy mount is then retried every 0.1 s for IT_UNMOUNT_SECS.
# Returns 0 once nothing is mounted at MNT; else 1 with the reason and the
# processes holding the mount on stderr.  The caller decides whether that
# fails the test (unmount_rcuvfs does).
it_unmount() {
	local m=$1 p i out="" kids="" n
	shift
	n=$((${IT_UNMOUNT_SECS:-60} * 10))
	for p in "$@"; do
		for ((i = 0; i < n; i++)); do
			pid_gone "$p" && break
			sleep 0.1
		done
	done
	for ((i = 0; i < n; i++)); do
		kids=$(it_own_children)
		[ -z "$kids" ] && break
		sleep 0.1
	done
	for ((i = 0; i < n; i++)); do
		grep -q " $m " /proc/self/mounts || return 0
		if grep -q " $m fuse" /proc/self/mounts; then
			out=$(fusermount3 -u "$m" 2>&1) && return 0
		else
			out=$(umount "$m" 2>&1) && return 0
		fi
		case $out in
		*[Bb]usy*) sleep 0.1 ;;
		*)
			grep -q " $m " /proc/self/mounts || return 0
			echo "unmount $m: $out" >&2
			return 1
			;;
		esac
	done
	echo "unmount $m: still busy ${IT_UNMOUNT_SECS:-60} s after the test's processes" \
		"ended ($out); own processes left: ${kids:-none}; holders:" \
		"$(fuser -m "$m" 2>/dev/null | tr -s ' ')" >&2
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

# unmount_rcuvfs MNT PID [PID...]: it_unmount (after the PIDs after the
# daemon's, the test's processes on the mount), then the daemon must exit
# with 0 (non-zero: it reported leaked model objects) and leave no process.
unmount_rcuvfs() {
	local mnt=$1 pid=$2
	shift 2
	it_unmount "$mnt" "$@" || { fail "unmount $mnt (see above)"; return 1; }
	daemon_exited_clean "$mnt" "$pid"
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
