#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/fuse-floor/run.sh - rcuvfs against the FUSE floor and tmpfs.
#
#   tests/bench/fuse-floor/run.sh [--build DIR] [--duration S] [--repeat N]
#                                 [--tasks LIST]       (as root: it mounts)
#
# Mounts rcuvfs (once per entry of RCUVFS_CONFIGS), the floor daemon and a
# tmpfs in a temporary directory, then runs, alternating between targets in
# every round, each MODE loop with each worker count (--tasks) for --duration
# seconds, --repeat times.  Prints the median ops/s per cell and the ratio to the floor, then
# the daemons' CPU time per operation (from /proc/PID/stat before and after
# each run): less sensitive to a loaded machine than throughput.
#
# Environment (defaults in brackets):
#   MODES [fstat stat]   loops of fuse-floor-load (fstat stat flock posix)
#   WORKERS [1 2]  SECS [2]  ROUNDS [3]: the defaults of --tasks, --duration
#                        and --repeat
#   RCUVFS_CONFIGS [default]  space-separated rcuvfs -o option sets; the word
#                        "default" means no options (e.g. "filelock=global
#                        filelock=bkl filelock=inode")
set -euo pipefail
. "$(dirname "$0")/../../integration/lib.sh" # it_unmount

bench_usage="usage: ${0##*/} [-b|--build DIR] [-d|--duration S] [-r|--repeat N] [-t|--tasks LIST]
rcuvfs against the FUSE floor daemon and tmpfs (as root: it mounts).
  -b, --build DIR    the build tree (default build)
  -d, --duration S   seconds per run (default \$SECS, else 2)
  -r, --repeat N     rounds, targets alternating (default \$ROUNDS, else 3)
  -t, --tasks LIST   worker process counts (default \$WORKERS, else 1,2)
Environment: MODES [fstat stat], RCUVFS_CONFIGS [default] (the script's header)"
bench_takes="duration repeat tasks"
BUILD=build DURATION=${SECS:-2} REPEAT=${ROUNDS:-3} TASKS=${WORKERS:-1 2}
. "$(dirname "$0")/../args.sh"
bench_args "$@"
SECS=$DURATION ROUNDS=$REPEAT WORKERS=$TASKS
BIN=$BUILD/bin
TBIN=$BUILD/tests # the floor daemon and the load generator
MODES=${MODES:-fstat stat}
RCUVFS_CONFIGS=${RCUVFS_CONFIGS:-default}

for b in "$BIN/rcuvfs" "$TBIN/rcuvfs-fuse-floor" "$TBIN/fuse-floor-load" "$BIN/rcuvfs-stress"; do
	[ -x "$b" ] || { echo "run.sh: $b not built" >&2; exit 1; }
done

TMP=$(mktemp -d /tmp/rcuvfs-bench.XXXXXX)
RAW=$TMP/raw
: >"$RAW"
declare -a MOUNTS=() NAMES=()

cleanup() {
	for m in "${MOUNTS[@]}"; do
		IT_UNMOUNT_SECS=10 it_unmount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
	rm -rf "$TMP" 2>/dev/null || true
}
trap cleanup EXIT

declare -a PIDS=()
# The daemon serving mountpoint $1 (its command line names it), or "-".
daemon_pid() {
	local p c
	for p in /proc/[0-9]*; do
		c=$( { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null) || continue
		if [[ "$c" == *" $1 "* ]]; then
			echo "${p#/proc/}"
			return
		fi
	done
	echo -
}

# CPU time (clock ticks, user + system) of pid $1 so far; 0 for "-".
cpu_ticks() {
	[ "$1" = - ] && { echo 0; return; }
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

add_target() { # name mountpoint
	NAMES+=("$1")
	MOUNTS+=("$2")
	PIDS+=("$(daemon_pid "$2")")
}

i=0
for cfg in $RCUVFS_CONFIGS; do
	m=$TMP/rcuvfs$i
	mkdir -p "$m"
	if [ "$cfg" = default ]; then
		"$BIN/rcuvfs" "$m"
		name=rcuvfs
	else
		"$BIN/rcuvfs" "$m" -o "$cfg"
		name="rcuvfs:$(sed 's/filelock=//g; s/,/+/g' <<<"$cfg")"
	fi
	add_target "$name" "$m"
	i=$((i + 1))
done
mkdir -p "$TMP/floor" "$TMP/tmpfs"
"$TBIN/rcuvfs-fuse-floor" "$TMP/floor"
add_target floor "$TMP/floor"
mount -t tmpfs -o size=64m none "$TMP/tmpfs"
add_target tmpfs "$TMP/tmpfs"

for m in "${MOUNTS[@]}"; do
	[ "$m" = "$TMP/floor" ] && continue
	: >"$m/f"
	for w in $WORKERS; do for ((k = 0; k < w; k++)); do : >"$m/f.$k"; done; done
done

HZ=$(getconf CLK_TCK)

echo "# rcuvfs FUSE floor benchmark: $(nproc) CPUs, ${SECS}s per run, $ROUNDS rounds, $(date -u +%F)"
for ((r = 1; r <= ROUNDS; r++)); do
	for mode in $MODES; do
		for w in $WORKERS; do
			for t in "${!NAMES[@]}"; do
				c0=$(cpu_ticks "${PIDS[$t]}")
				v=$("$TBIN/fuse-floor-load" -w "$mode" -t "$w" -d "$SECS" "${MOUNTS[$t]}/f")
				c1=$(cpu_ticks "${PIDS[$t]}")
				# daemon CPU per operation, microseconds (0: no daemon)
				cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$HZ" -v ops="$v" -v s="$SECS" \
					'BEGIN { printf "%.2f", (ops > 0 ? (b - a) * 1e6 / hz / (ops * s) : 0) }')
				echo "$mode $w ${NAMES[$t]} $v $cpu" >>"$RAW"
			done
		done
	done
done

# median per (mode, workers, target), from rcuvfs-stress --summarize (the
# statistics of its --repeat); ratio to the floor of the same cell.
# table 1: ops/s (column 4); table 2: daemon CPU microseconds per op (column 5)
report() {
awk -v col="$1" '{ print $1, $2, $3, $col }' "$RAW" | "$BIN/rcuvfs-stress" --summarize >"$TMP/sum"
awk -v names="${NAMES[*]}" -v title="$2" -v fmt="$3" '
BEGIN { print "# " title }
# "mode workers target n median min max stddev"
{ cell = $1 " " $2; med[cell, $3] = $5; if (!(cell in seen)) { seen[cell] = 1; order[++m] = cell } }
END {
	nt = split(names, tn, " ")
	printf "%-6s %-7s", "loop", "workers"
	for (i = 1; i <= nt; i++) printf " %16s", tn[i]
	for (i = 1; i <= nt; i++) if (tn[i] != "floor") printf " %14s", tn[i] "/floor"
	printf "\n"
	for (k = 1; k <= m; k++) {
		split(order[k], kw, " ")
		printf "%-6s %-7s", kw[1], kw[2]
		fl = med[order[k], "floor"]
		for (i = 1; i <= nt; i++) printf " %16" fmt, med[order[k], tn[i]]
		for (i = 1; i <= nt; i++) if (tn[i] != "floor") printf " %14.2f", (fl > 0 ? med[order[k], tn[i]] / fl : 0)
		printf "\n"
	}
}' "$TMP/sum"
}
cp "$RAW" "${RAW_COPY:-/dev/null}"
report 4 "operations per second (median of $ROUNDS)" ".0f"
echo
report 5 "daemon CPU microseconds per operation (user+system; tmpfs: none)" ".2f"
