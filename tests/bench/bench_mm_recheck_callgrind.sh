#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/bench_mm_recheck_callgrind.sh - instructions per major fault
# of filemap_fault's PTE recheck under pte_recheck=0, 1 and rfc.
#
# Runs `bench_mm --workload pf --repeat 1 -o pte_recheck=V --passes P` (page_fault2
# and page_fault3 over a 256-page file with cache_pages=64: most faults are
# major) under valgrind --tool=callgrind twice per value:
#   recheck  --toggle-collect=filemap_fault_recheck_pte: the recheck alone
#            (a noinline function), exactly repeatable;
#   fault    --toggle-collect=handle_mm_fault: whole faults, reclaim inside
#            them included, which moves by ~0.1 % between runs with the
#            interleaving of liburcu's callback thread.
# Both are divided by the major faults of the run (bench_mm's majflt).
# `locks` is the PTE-lock round trips of the recheck.  Instructions are not
# time: the lock round trip of rfc is a locked exchange (~20 cycles
# uncontended) and a cache line that a contending fault or the NUMA
# scanner may hold.
#
# Usage: tests/bench/bench_mm_recheck_callgrind.sh [--build DIR] [--iters PASSES]
#   DIR defaults to build, PASSES to 20 (about 20 s on 2 cores); the
#   operands BUILD_DIR PASSES of older command lines still work.
set -eu

bench_usage="usage: ${0##*/} [-b|--build DIR] [-n|--iters PASSES]
pte_recheck's instructions per major fault under callgrind (0, 1, rfc).
  -b, --build DIR    the build tree (default build)
  -n, --iters PASSES passes over the file (default 20)"
bench_takes=iters
BUILD=build ITERS=20
. "$(dirname "$0")/args.sh"
bench_args "$@"
build=$BUILD
passes=$ITERS
bench=$build/tests/bench_mm
if [ ! -x "$bench" ]; then
	echo "no $bench: build first (cmake --build $build --target bench_mm)" >&2
	exit 1
fi
command -v valgrind >/dev/null || { echo "valgrind not installed" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ir SCOPE VALUE: the callgrind total of one run; leaves bench_mm's output in $tmp/out
ir() {
	valgrind --tool=callgrind --toggle-collect="$1" --callgrind-out-file="$tmp/cg" \
		"$bench" --workload pf --repeat 1 -o pte_recheck="$2" --passes "$passes" \
		>"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	sed -n 's/^summary: //p' "$tmp/cg"
}

echo "bench_mm --workload pf --passes $passes under callgrind: instructions per major fault"
printf "%-12s %10s %10s %14s %14s\n" pte_recheck majflt locks recheck/majflt fault/majflt
for v in 0 1 rfc; do
	r=$(ir filemap_fault_recheck_pte "$v")
	f=$(ir handle_mm_fault "$v")
	awk -v v="$v" -v r="$r" -v f="$f" '
	/^page_fault[23] pte_recheck=/ { maj += $4; locks += $6 }
	END {
		if (maj == 0) { print "no major faults" > "/dev/stderr"; exit 1 }
		printf "%-12s %10d %10d %14.1f %14.1f\n", v, maj, locks, r / maj, f / maj
	}' "$tmp/out"
done
