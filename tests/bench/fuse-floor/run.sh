#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/fuse-floor/run.sh - rcuvfs against the FUSE floor and tmpfs.
#
#   tests/bench/fuse-floor/run.sh [BUILD_DIR]        (as root: it mounts)
#
# Mounts rcuvfs (once per entry of RCUVFS_CONFIGS), the floor daemon and a
# tmpfs in a temporary directory, then runs, alternating between targets in
# every round, each MODE loop with each WORKERS count for SECS seconds, ROUNDS
# times.  Prints the median ops/s per cell and the ratio to the floor, then
# the daemons' CPU time per operation (from /proc/PID/stat before and after
# each run): less sensitive to a loaded machine than throughput.
#
# Environment (defaults in brackets):
#   MODES [fstat stat]   loops of fuse-floor-load (fstat stat flock posix)
#   WORKERS [1 2]        worker processes
#   SECS [2]  ROUNDS [3]
#   RCUVFS_CONFIGS [default]  space-separated rcuvfs -o option sets; the word
#                        "default" means no options (e.g. "filelock=global
#                        filelock=bkl filelock=inode")
set -euo pipefail

BUILD=${1:-build}
BIN=$BUILD/bin
MODES=${MODES:-fstat stat}
WORKERS=${WORKERS:-1 2}
SECS=${SECS:-2}
ROUNDS=${ROUNDS:-3}
RCUVFS_CONFIGS=${RCUVFS_CONFIGS:-default}

for b in rcuvfs rcuvfs-fuse-floor fuse-floor-load; do
	[ -x "$BIN/$b" ] || { echo "run.sh: $BIN/$b not built" >&2; exit 1; }
done

TMP=$(mktemp -d /tmp/rcuvfs-bench.XXXXXX)
RAW=$TMP/raw
: >"$RAW"
declare -a MOUNTS=() NAMES=()

cleanup() {
	for m in "${MOUNTS[@]}"; do
		fusermount3 -u "$m" 2>/dev/null || umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
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
"$BIN/rcuvfs-fuse-floor" "$TMP/floor"
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
				v=$("$BIN/fuse-floor-load" "$mode" "${MOUNTS[$t]}/f" "$w" "$SECS")
				c1=$(cpu_ticks "${PIDS[$t]}")
				# daemon CPU per operation, microseconds (0: no daemon)
				cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$HZ" -v ops="$v" -v s="$SECS" \
					'BEGIN { printf "%.2f", (ops > 0 ? (b - a) * 1e6 / hz / (ops * s) : 0) }')
				echo "$mode $w ${NAMES[$t]} $v $cpu" >>"$RAW"
			done
		done
	done
done

# median per (mode, workers, target); ratio to the floor of the same cell.
# table 1: ops/s (column 4); table 2: daemon CPU microseconds per op (column 5)
report() {
awk -v names="${NAMES[*]}" -v col="$1" -v title="$2" -v fmt="$3" '
BEGIN { print "# " title }
{ key = $1 " " $2 " " $3; n[key]++; v[key, n[key]] = $col; cells[$1 " " $2] = 1; if (!($1 " " $2 in order)) order[$1 " " $2] = NR }
function median(key,   i, j, t, a, c) {
	c = n[key]
	for (i = 1; i <= c; i++) a[i] = v[key, i]
	for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return (c % 2) ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
}
END {
	nt = split(names, tn, " ")
	printf "%-6s %-7s", "loop", "workers"
	for (i = 1; i <= nt; i++) printf " %16s", tn[i]
	for (i = 1; i <= nt; i++) if (tn[i] != "floor") printf " %14s", tn[i] "/floor"
	printf "\n"
	PROCINFO["sorted_in"] = "@val_num_asc"
	m = 0
	for (c in order) keys[++m] = c
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (order[keys[j]] < order[keys[i]]) { t = keys[i]; keys[i] = keys[j]; keys[j] = t }
	for (k = 1; k <= m; k++) {
		split(keys[k], kw, " ")
		printf "%-6s %-7s", kw[1], kw[2]
		fl = median(keys[k] " floor")
		for (i = 1; i <= nt; i++) printf " %16" fmt, median(keys[k] " " tn[i])
		for (i = 1; i <= nt; i++) if (tn[i] != "floor") printf " %14.2f", (fl > 0 ? median(keys[k] " " tn[i]) / fl : 0)
		printf "\n"
	}
}' "$RAW"
}
cp "$RAW" "${RAW_COPY:-/dev/null}"
report 4 "operations per second (median of $ROUNDS)" ".0f"
echo
report 5 "daemon CPU microseconds per operation (user+system; tmpfs: none)" ".2f"
