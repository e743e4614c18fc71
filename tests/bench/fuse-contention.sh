#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/fuse-contention.sh - rcuvfs against the FUSE floor daemon on a
# quiet machine and under a fixed CPU hog, in one run.
#
#   tests/bench/fuse-contention.sh [--build DIR] [--duration S] [--repeat N]
#                                                      (as root: it mounts)
#
# Mounts rcuvfs and rcuvfs-fuse-floor (tests/bench/fuse-floor: the same
# libfuse loop answering from constants) and runs fuse-floor-load's MODES
# with WORKERS client processes, alternating the two daemons in every round, first with
# nothing else of ours running ("quiet"), then with HOGS busy loops
# ("loaded").  Daemons, load and hogs are all pinned to CPUS, so the hogs
# compete for exactly the CPUs the daemons and the load use.  Prints per
# mode and state the median ops/s of each daemon and rcuvfs/floor, then
# loaded/quiet per daemon, then each daemon's CPU time and run-queue wait
# per operation (summed over its threads from /proc/PID/task/*/schedstat:
# time running, and time runnable but waiting for a CPU), then the
# daemons' context switches per
# operation (voluntary and involuntary, summed over their threads),
# rcuvfs's spin_yields per operation and each daemon's thread count.  Ratios only: never a pass/fail on
# time.
#
# Environment: MODES [fstat flock] HOGS [8] CPUS [all: 0-(nproc-1)]; SECS [2],
#   ROUNDS [3] and WORKERS [1], the defaults of --duration, --repeat, --tasks
set -euo pipefail

bench_usage="usage: ${0##*/} [-b|--build DIR] [-d|--duration S] [-r|--repeat N] [-t|--tasks N]
rcuvfs against the FUSE floor daemon, quiet and under CPU hogs (as root).
  -b, --build DIR    the build tree (default build)
  -d, --duration S   seconds per run (default \$SECS, else 2)
  -r, --repeat N     rounds, daemons alternating (default \$ROUNDS, else 3)
  -t, --tasks N      client processes (default \$WORKERS, else 1)
Environment: MODES [fstat flock] HOGS [8] CPUS [all]"
bench_takes="duration repeat tasks"
BUILD=build DURATION=${SECS:-2} REPEAT=${ROUNDS:-3} TASKS=${WORKERS:-1}
. "$(dirname "$0")/args.sh"
bench_args "$@"
SECS=$DURATION ROUNDS=$REPEAT WORKERS=$TASKS
BIN=$BUILD/bin
TBIN=$BUILD/tests # the floor daemon and its load generator are test programs
MODES=${MODES:-fstat flock}
HOGS=${HOGS:-8}
CPUS=${CPUS:-0-$(($(nproc) - 1))}

if [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ]; then
	echo "fuse-contention.sh: needs root and /dev/fuse" >&2
	exit 77
fi
for b in "$BIN/rcuvfs" "$TBIN/rcuvfs-fuse-floor" "$TBIN/fuse-floor-load" "$BIN/rcuvfs-stress"; do
	[ -x "$b" ] || { echo "fuse-contention.sh: $b not built" >&2; exit 1; }
done
command -v taskset >/dev/null || { echo "fuse-contention.sh: taskset (util-linux) missing" >&2; exit 1; }

TMP=$(mktemp -d /tmp/rcuvfs-cont.XXXXXX)
declare -a HOGPIDS=() DPIDS=()
cleanup() {
	local p
	for p in "${HOGPIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for m in "$TMP/rcuvfs" "$TMP/floor"; do
		fusermount3 -u "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
	for p in "${HOGPIDS[@]}" "${DPIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$TMP" 2>/dev/null || true
}
trap cleanup EXIT

mkdir -p "$TMP/rcuvfs" "$TMP/floor"
taskset -c "$CPUS" "$BIN/rcuvfs" "$TMP/rcuvfs" -f >"$TMP/rcuvfs.log" 2>&1 &
DPIDS+=($!)
taskset -c "$CPUS" "$TBIN/rcuvfs-fuse-floor" "$TMP/floor" -f >"$TMP/floor.log" 2>&1 &
DPIDS+=($!)
declare -A PID=([rcuvfs]=${DPIDS[0]} [floor]=${DPIDS[1]})
for m in rcuvfs floor; do
	for ((i = 0; i < 400; i++)); do
		grep -q " $TMP/$m fuse" /proc/self/mounts && stat "$TMP/$m" >/dev/null 2>&1 && break
		sleep 0.05
	done
	grep -q " $TMP/$m fuse" /proc/self/mounts || { echo "fuse-contention.sh: $m did not mount" >&2; exit 1; }
done
: >"$TMP/rcuvfs/f"

# context switches of all threads of pid $1: "voluntary involuntary"
ctxsw() {
	cat /proc/"$1"/task/*/status 2>/dev/null |
		awk '/^voluntary_ctxt_switches/ { v += $2 } /^nonvoluntary_ctxt_switches/ { n += $2 }
		     END { print v + 0, n + 0 }'
}
# run and run-queue wait time (ns) of all threads of pid $1: "run wait"
schedns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ r += $1; w += $2 } END { printf "%.0f %.0f\n", r, w }'
}
stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/rcuvfs/.rcuvfs/stats"; }

hogs_start() {
	local i
	for ((i = 0; i < HOGS; i++)); do
		taskset -c "$CPUS" bash -c 'while :; do :; done' &
		HOGPIDS+=($!)
	done
}
hogs_stop() {
	local p
	for p in "${HOGPIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${HOGPIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	HOGPIDS=()
}

RAW=$TMP/raw
: >"$RAW"
echo "# rcuvfs FUSE contention benchmark: $(nproc) CPUs, pinned to $CPUS, $HOGS hogs," \
	"$WORKERS worker(s), ${SECS}s per run, $ROUNDS rounds, $(date -u +%F)"
for state in quiet loaded; do
	[ $state = loaded ] && hogs_start
	for ((r = 1; r <= ROUNDS; r++)); do
		for mode in $MODES; do
			for t in rcuvfs floor; do
				read -r v0 n0 < <(ctxsw "${PID[$t]}")
				read -r r0 w0 < <(schedns "${PID[$t]}")
				y0=$(stat_of spin_yields)
				ops=$(taskset -c "$CPUS" "$TBIN/fuse-floor-load" -w "$mode" -t "$WORKERS" -d "$SECS" "$TMP/$t/f")
				read -r v1 n1 < <(ctxsw "${PID[$t]}")
				read -r r1 w1 < <(schedns "${PID[$t]}")
				y1=$(stat_of spin_yields)
				[ $t = floor ] && y1=$y0
				tot=$((ops * SECS))
				[ "$tot" -gt 0 ] || tot=1
				echo "$mode-$state $t $ops $(awk -v a=$((v1 - v0)) -v b=$((n1 - n0)) -v y=$((y1 - y0)) -v o=$tot \
					-v r=$((r1 - r0)) -v w=$((w1 - w0)) \
					'BEGIN { printf "%.3f %.3f %.4f %.0f %.0f", a / o, b / o, y / o, r / o, w / o }')" >>"$RAW"
			done
		done
	done
	[ $state = loaded ] && hogs_stop
done
THREADS="rcuvfs $(ls /proc/"${PID[rcuvfs]}"/task | wc -l), floor $(ls /proc/"${PID[floor]}"/task | wc -l)"

# medians per cell (rcuvfs-stress --summarize: "cell target n median ...")
med() { # column -> "cell target median" lines
	awk -v c="$1" '{ print $1, 1, $2, $c }' "$RAW" | "$BIN/rcuvfs-stress" --summarize |
		awk '{ print $1, $3, $5 }'
}
med 3 >"$TMP/ops"
med 4 >"$TMP/vol"
med 5 >"$TMP/inv"
med 6 >"$TMP/yld"
med 7 >"$TMP/run"
med 8 >"$TMP/wait"
awk -v modes="$MODES" '
FILENAME == ARGV[1] { ops[$1, $2] = $3; next }
FILENAME == ARGV[2] { vol[$1, $2] = $3; next }
FILENAME == ARGV[3] { inv[$1, $2] = $3; next }
FILENAME == ARGV[4] { yld[$1, $2] = $3; next }
FILENAME == ARGV[5] { run[$1, $2] = $3; next }
{ wt[$1, $2] = $3 }
END {
	n = split(modes, m, " ")
	print "# operations per second (median), all workers"
	printf "%-6s %-7s %12s %12s %13s\n", "loop", "state", "rcuvfs", "floor", "rcuvfs/floor"
	for (i = 1; i <= n; i++)
		for (s = 0; s < 2; s++) {
			st = s ? "loaded" : "quiet"; c = m[i] "-" st
			printf "%-6s %-7s %12.0f %12.0f %13.2f\n", m[i], st, ops[c, "rcuvfs"], ops[c, "floor"],
			       (ops[c, "floor"] > 0 ? ops[c, "rcuvfs"] / ops[c, "floor"] : 0)
		}
	print ""
	print "# loaded/quiet (how much of its quiet rate each daemon keeps under the hogs)"
	printf "%-6s %12s %12s\n", "loop", "rcuvfs", "floor"
	for (i = 1; i <= n; i++) {
		q = m[i] "-quiet"; l = m[i] "-loaded"
		printf "%-6s %12.2f %12.2f\n", m[i],
		       (ops[q, "rcuvfs"] > 0 ? ops[l, "rcuvfs"] / ops[q, "rcuvfs"] : 0),
		       (ops[q, "floor"] > 0 ? ops[l, "floor"] / ops[q, "floor"] : 0)
	}
	print ""
	print "# daemon time per operation (ns, all its threads): running / waiting for a CPU"
	printf "%-6s %-7s %16s %16s\n", "loop", "state", "rcuvfs", "floor"
	for (i = 1; i <= n; i++)
		for (s = 0; s < 2; s++) {
			st = s ? "loaded" : "quiet"; c = m[i] "-" st
			printf "%-6s %-7s %7.0f / %6.0f %7.0f / %6.0f\n", m[i], st,
			       run[c, "rcuvfs"], wt[c, "rcuvfs"], run[c, "floor"], wt[c, "floor"]
		}
	print ""
	print "# daemon context switches per operation (voluntary / involuntary), rcuvfs spin_yields per operation"
	printf "%-6s %-7s %16s %16s %12s\n", "loop", "state", "rcuvfs", "floor", "spin_yields"
	for (i = 1; i <= n; i++)
		for (s = 0; s < 2; s++) {
			st = s ? "loaded" : "quiet"; c = m[i] "-" st
			printf "%-6s %-7s %7.3f / %6.3f %7.3f / %6.3f %12.4f\n", m[i], st,
			       vol[c, "rcuvfs"], inv[c, "rcuvfs"], vol[c, "floor"], inv[c, "floor"], yld[c, "rcuvfs"]
		}
}' "$TMP/ops" "$TMP/vol" "$TMP/inv" "$TMP/yld" "$TMP/run" "$TMP/wait"
echo
echo "# daemon threads after the run: $THREADS"
