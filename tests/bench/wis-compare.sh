#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/wis-compare.sh - will-it-scale's lock1 and rcuvfs-stress's
# lock1 on the same filesystem, in one run, rounds alternating the two.
#
#   tests/bench/wis-compare.sh [--build DIR] [--dir DIR] [--tasks N] [--secs S] [--rounds R]
#
# Both count 2 per lock+unlock pair of byte 0, in processes, each task on
# its own file.  The reference is tests/stress/wis/wis-lock1.c (will-it-scale's
# lock1 loop and sampling, written for this comparison); with WIS_DIR set to
# a built will-it-scale tree, its lock1_processes runs as well.  Prints the
# median ops/s of each (rcuvfs-stress --summarize) and the ratio to the
# reference.  A smoke test (CTest bench.wis-compare) runs it briefly and
# checks that both report; pass/fail never depends on the ratio.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build
dir=/dev/shm
tasks=1
secs=2
rounds=3
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	--tasks) tasks=$2; shift 2 ;;
	--secs) secs=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	*) echo "wis-compare: unknown option $1" >&2; exit 2 ;;
	esac
done
stress=$build/bin/rcuvfs-stress
ref=$build/bin/wis-lock1
for b in "$stress" "$ref"; do
	[ -x "$b" ] || { echo "wis-compare: $b not built" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wis=${WIS_DIR:+$WIS_DIR/lock1_processes}
for r in $(seq "$rounds"); do
	"$ref" "$dir" "$tasks" "$secs" | awk '{ print "wis-lock1", $3 }' >>"$tmp/samples"
	"$stress" --path "$dir" --workload lock1 --mode processes --tasks "$tasks" \
		--duration "$secs" --warmup 1 --quiet --csv "$tmp/s.csv" >/dev/null
	awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
		{ print "rcuvfs-stress", $(c["ops_per_sec"]) }' "$tmp/s.csv" >>"$tmp/samples"
	if [ -n "$wis" ] && [ -x "$wis" ]; then
		# will-it-scale prints "min:.. max:.. total:.." per second; average the totals
		timeout $((secs + 5)) "$wis" -t "$tasks" -s "$((secs + 1))" 2>/dev/null |
			awk '/^min:/ { for (i = 1; i <= NF; i++) if ($i ~ /^total:/) { sub("total:", "", $i); if (n++) { s += $i } } }
			     END { if (n > 1) print "will-it-scale", s / (n - 1) }' >>"$tmp/samples"
	fi
done
echo "lock1 on $dir, $tasks task(s), processes, ${secs}s per run, $rounds round(s), $(nproc) CPUs"
"$stress" --summarize <"$tmp/samples" | awk '
	{ name[NR] = $1; med[$1] = $3; lo[$1] = $4; hi[$1] = $5 }
	END {
		printf "%-14s %12s %12s %12s %9s\n", "harness", "median ops/s", "min", "max", "/ wis-lock1"
		for (i = 1; i <= NR; i++) {
			k = name[i]
			printf "%-14s %12.0f %12.0f %12.0f %9.3f\n", k, med[k], lo[k], hi[k],
				(med["wis-lock1"] > 0 ? med[k] / med["wis-lock1"] : 0)
		}
	}'
