#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/fuse-nodeid-callgrind.sh [--build DIR] [--iters N] [NAME=DAEMON...]:
# daemon-side instructions per fstat (one GETATTR) and per stat of a path
# (LOOKUP + GETATTR), counted by valgrind --tool=callgrind, for rcuvfs and
# the FUSE floor daemon, plus any daemon binaries given as NAME=PATH (say,
# an rcuvfs built from another commit, to compare node-id schemes in one
# run).  Each daemon runs in the foreground under callgrind; the counters
# are zeroed, fuse-lockloop (tests/bench/fuse-lockloop.c) runs N calls on a file of the
# mount, and the counters are dumped: per call = total / N.  What differs
# between two rcuvfs builds is their own work per request (the kernel's
# side and libfuse are the same).  Instruction counts do not depend on the
# machine's load.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bench_usage="usage: ${0##*/} [-b|--build DIR] [-n|--iters N] [NAME=DAEMON...]
FUSE daemon instructions per fstat and per stat under callgrind, rcuvfs and
the floor daemon, and each NAME=DAEMON binary given (as root: it mounts).
  -b, --build DIR   the build tree (default build)
  -n, --iters N     calls per loop (default 2000)
(the operands BUILD_DIR N of older command lines still work)"
bench_takes=iters bench_more=1
BUILD=build ITERS=2000 BENCH_MORE=
. "$here/args.sh"
bench_args "$@"
N=$ITERS
# shellcheck disable=SC2086
set -- $BENCH_MORE
. "$here/../integration/lib.sh" # it_unmount
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 1; }
TMP=$(mktemp -d /tmp/rcuvfs-idcg.XXXXXX)
DPID=
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	mountpoint -q "$TMP/m" 2>/dev/null &&
		{ IT_UNMOUNT_SECS=10 it_unmount "$TMP/m" 2>/dev/null || umount -l "$TMP/m"; }
	rm -rf "$TMP"
}
trap cleanup EXIT
[ -x "$BUILD/tests/fuse-lockloop" ] || { echo "fuse-nodeid-callgrind.sh: $BUILD/tests/fuse-lockloop not built" >&2; exit 1; }
mkdir -p "$TMP/m"

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
	IT_PIDS=("$DPID")
	for ((i = 0; i < 600; i++)); do
		grep -q " $TMP/m fuse" /proc/self/mounts && stat "$TMP/m" >/dev/null 2>&1 && break
		sleep 0.1
	done
	: >"$TMP/m/f" 2>/dev/null || true
	for mode in fstat stat; do
		"$BUILD/tests/fuse-lockloop" -w "$mode" -n 10 "$TMP/m/f" # warm
		callgrind_control -z "$DPID" >/dev/null 2>&1
		"$BUILD/tests/fuse-lockloop" -w "$mode" -n "$N" "$TMP/m/f"
		callgrind_control -d "$DPID" >/dev/null 2>&1
		sleep 0.5
		ir=$(dump_ir)
		printf "%-16s %-6s %12.0f\n" "$name" "$mode" "$(awk -v a="$ir" -v n="$N" 'BEGIN { print a / n }')"
		echo "$name $mode $ir" >>"$TMP/raw"
	done
	it_unmount "$TMP/m"
	wait "$DPID" 2>/dev/null || true
	DPID=
}

echo "# daemon instructions per call (callgrind, N=$N calls, one process)"
printf "%-16s %-6s %12s\n" daemon call "Ir/call"
measure rcuvfs "$BUILD/bin/rcuvfs"
for a in "$@"; do
	measure "${a%%=*}" "${a#*=}"
done
measure floor "$BUILD/tests/rcuvfs-fuse-floor"
echo
awk -v N="$N" '{ ir[$1, $2] = $3; names[$1] = 1 }
END {
	for (m = 1; m <= 2; m++) {
		mode = m == 1 ? "fstat" : "stat"
		for (n in names) if (n != "floor")
			printf "%s %s: %+.0f Ir/call over the floor (%.2fx)\n", n, mode,
				(ir[n, mode] - ir["floor", mode]) / N, ir[n, mode] / ir["floor", mode]
		if (("old", mode) in ir)
			printf "rcuvfs/old %s: %+.0f Ir/call (%.3fx)\n", mode,
				(ir["rcuvfs", mode] - ir["old", mode]) / N, ir["rcuvfs", mode] / ir["old", mode]
	}
}' "$TMP/raw" | sort
