#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/fuse-locks-callgrind.sh [BUILD_DIR] [N]: daemon-side
# instructions per lock+unlock pair, rcuvfs (each filelock scheme) against
# the FUSE floor daemon, counted by valgrind --tool=callgrind (deterministic:
# independent of the load on a shared machine, unlike fuse-locks.sh).
#
# Each daemon runs in the foreground under callgrind; for each loop (flock:
# LOCK_EX + LOCK_UN; posix: F_SETLK write lock + unlock of byte 0; ofd: the
# same with F_OFD_SETLK, which reaches the daemon as a POSIX request owned by
# the open file) the counters
# are zeroed (callgrind_control -z), tests/bench/fuse-lockloop.c (build/tests/fuse-lockloop) runs N pairs
# on an already created file, and the counters are dumped (callgrind_control
# -d).  The dump also holds the file's open/flush/release and libfuse's idle
# loop wake-ups, the same for every daemon; per pair = total / N.  What
# differs between rcuvfs and the floor is the model's work per request
# (the kernel's side, the round trip and libfuse are the same).
#
# Usage: tests/bench/fuse-locks-callgrind.sh [--build DIR] [--iters N]
#   DIR defaults to build, N (pairs per loop) to 2000; the operands
#   BUILD_DIR N of older command lines still work (tests/bench/args.sh).
set -euo pipefail
bench_usage="usage: ${0##*/} [-b|--build DIR] [-n|--iters N]
FUSE daemon instructions per lock+unlock pair under callgrind, rcuvfs per
filelock scheme against the floor daemon (as root: it mounts).
  -b, --build DIR   the build tree (default build)
  -n, --iters N     pairs per loop (default 2000)"
bench_takes=iters
BUILD=build ITERS=2000
. "$(dirname "$0")/args.sh"
bench_args "$@"
N=$ITERS
BIN=$BUILD/bin
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh" # it_unmount
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 1; }
[ -x "$BUILD/tests/fuse-lockloop" ] || { echo "fuse-locks-callgrind.sh: $BUILD/tests/fuse-lockloop not built" >&2; exit 1; }
TMP=$(mktemp -d /tmp/rcuvfs-lockcg.XXXXXX)
DPID=
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	mountpoint -q "$TMP/m" 2>/dev/null &&
		{ IT_UNMOUNT_SECS=10 it_unmount "$TMP/m" 2>/dev/null || umount -l "$TMP/m"; }
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP/m"

# total Ir of the last dump in $1
dump_ir() {
	local f
	f=$(ls -t "$TMP"/cg.out.* 2>/dev/null | head -1)
	awk '/^(summary|totals):/ { v = $2 } END { print v + 0 }' "$f"
}

measure() { # name daemon args...
	local name=$1 mode ir
	shift
	rm -f "$TMP"/cg.out*
	valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out.%p" --dump-instr=no \
		"$@" "$TMP/m" -f >"$TMP/d.log" 2>&1 &
	DPID=$!
	IT_PIDS=("$DPID") # it_unmount waits for the other children, not the daemon
	for ((i = 0; i < 600; i++)); do
		grep -q " $TMP/m fuse" /proc/self/mounts && stat "$TMP/m" >/dev/null 2>&1 && break
		sleep 0.1
	done
	: >"$TMP/m/f" 2>/dev/null || true
	for mode in flock posix ofd; do
		"$BUILD/tests/fuse-lockloop" -w "$mode" -n 10 "$TMP/m/f" # warm: the lock context, caches
		callgrind_control -z "$DPID" >/dev/null 2>&1
		"$BUILD/tests/fuse-lockloop" -w "$mode" -n "$N" "$TMP/m/f"
		callgrind_control -d "$DPID" >/dev/null 2>&1
		sleep 0.5
		ir=$(dump_ir)
		awk -v n="$name" -v m="$mode" -v ir="$ir" -v N="$N" \
			'BEGIN { printf "%-16s %-6s %12.0f\n", n, m, ir / N }'
		echo "$name $mode $ir" >>"$TMP/raw"
	done
	it_unmount "$TMP/m"
	wait "$DPID" 2>/dev/null || true
	DPID=
}

echo "# daemon instructions per lock+unlock pair (callgrind, N=$N pairs, one process)"
printf "%-16s %-6s %12s\n" daemon loop "Ir/pair"
for s in global bkl inode; do
	measure "rcuvfs:$s" "$BIN/rcuvfs" -o "filelock=$s"
done
measure floor "$BUILD/tests/rcuvfs-fuse-floor"
echo
awk '{ ir[$1, $2] = $3; names[$1] = 1 }
END {
	for (m = 1; m <= 3; m++) {
		mode = m == 1 ? "flock" : m == 2 ? "posix" : "ofd"
		for (n in names) if (n != "floor")
			printf "%s %s: %+.0f Ir/pair over the floor (%.2fx)\n", n, mode,
				(ir[n, mode] - ir["floor", mode]) / '"$N"', ir[n, mode] / ir["floor", mode]
	}
}' "$TMP/raw" | sort
