#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/bench_mm_fork_callgrind.sh - instructions per model fork of a
# 10,000-VMA process under fork_vma_lock=always, elide-single and never.
#
# Runs `bench_mm --workload fork-count -o fork_vma_lock=M --iters N` and `--iters 2N` under valgrind
# --tool=callgrind for each mode; the two runs differ by exactly N forks, so
# setup (10,000 mmaps and faults, instance creation, teardown) cancels:
#   per fork = (I(2N) - I(N)) / N
# for three scopes:
#   dup_mmap    inclusive count of dup_mmap: the VMA copy the switch
#               changes.  Repeats to ~0.01 % between runs (bench_mm runs an
#               rcu_barrier after each child's exit, so every fork starts
#               from the same allocator state).
#   task_fork   inclusive: dup_mmap plus mm_alloc and the task; mm_alloc
#               varies by ~0.1 M instructions per fork between runs.
#   fork+exit   the whole program's total: fork, exit, the RCU frees in
#               liburcu's thread and rcu_barrier.  glibc malloc's work
#               depends on how that thread interleaves with the main one, so
#               this varies by up to ~10 % between runs: printed for scale,
#               not used for the ratios.
# Instructions are not time: the per-VMA write lock of `always` is a
# down_write/up_write pair, i.e. two locked read-modify-writes per VMA
# (~20 cycles each even uncontended and cache-hot) but two instructions
# in this count, and callgrind models no cache misses at all.
#
# Usage: tests/bench/bench_mm_fork_callgrind.sh [--build DIR] [--iters N] [--vmas VMAS]
#   DIR defaults to build, N to 10 (about 1 minute on 2 cores), VMAS (the
#   forked process's VMAs) to bench_mm's 10000; the operands BUILD_DIR N
#   VMAS of older command lines still work (tests/bench/args.sh).
set -eu

bench_usage="usage: ${0##*/} [-b|--build DIR] [-n|--iters N] [--vmas VMAS]
dup_mmap instructions per fork under callgrind, per fork_vma_lock mode.
  -b, --build DIR   the build tree (default build)
  -n, --iters N     forks (default 10; the script runs N and 2N)
      --vmas VMAS   VMAs of the forked process (default bench_mm's 10000)"
bench_takes="iters vmas"
BUILD=build ITERS=10 EXTRA= OPT_VMAS=
. "$(dirname "$0")/args.sh"
bench_args "$@"
build=$BUILD
n=$ITERS
vmas=${OPT_VMAS:-$EXTRA}
vmas_opt=${vmas:+--vmas $vmas}
bench=$build/tests/bench_mm
if [ ! -x "$bench" ]; then
	echo "no $bench: build first (cmake --build $build --target bench_mm)" >&2
	exit 1
fi
command -v valgrind >/dev/null || { echo "valgrind not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# inclusive count of function $2 in callgrind output $1 (0 if absent)
incl() {
	callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
		sed -n "s/^ *\([0-9,]*\) ([^)]*) *[^ ]*:$2 \[.*/\1/p" | head -n 1 | tr -d , |
		grep . || echo 0
}

modes="always elide-single never"
for mode in $modes; do
	for k in 1 2; do
		it=$((n * k))
		out=$tmp/$mode.$k
		valgrind --tool=callgrind --callgrind-out-file="$out.cg" \
			"$bench" --workload fork-count -o fork_vma_lock="$mode" --iters "$it" $vmas_opt >"$out.log" 2>&1 ||
			{ cat "$out.log" >&2; exit 1; }
		locks=$(sed -n 's/.* \([0-9]*\) VMAs write-locked$/\1/p' "$out.log")
		total=$(sed -n 's/^totals: *//p' "$out.cg")
		echo "$(incl "$out.cg" dup_mmap) $(incl "$out.cg" task_fork) $total $locks" \
			>"$out.ir"
	done
	# per fork: dup_mmap, task_fork, total, VMAs locked
	paste -d ' ' "$tmp/$mode.1.ir" "$tmp/$mode.2.ir" |
		awk -v n="$n" '{ printf "%.0f %.0f %.0f %.0f\n", ($5 - $1) / n, ($6 - $2) / n,
			($7 - $3) / n, ($8 - $4) / n }' >"$tmp/$mode.per"
done

vmas=$(sed -n 's/.* forks of \([0-9]*\) VMAs.*/\1/p' "$tmp/never.1.log")
echo "model fork of $vmas VMAs: instructions per fork = (I(2N) - I(N)) / N, N = $n"
printf '%-20s %12s %12s %14s %12s\n' fork_vma_lock dup_mmap task_fork fork+exit \
	"VMAs locked"
for mode in $modes; do
	read -r d t a l <"$tmp/$mode.per"
	printf '%-20s %12s %12s %14s %12s\n' "$mode" "$d" "$t" "$a" "$l"
done
read -r nd nt na nl <"$tmp/never.per"
for mode in always elide-single; do
	read -r d t a l <"$tmp/$mode.per"
	awk -v m="$mode/never" -v d="$d" -v t="$t" -v nd="$nd" -v nt="$nt" \
		'BEGIN { printf "%-20s %11.4fx %11.4fx\n", m, d / nd, t / nt }'
done
read -r ad at aa al <"$tmp/always.per"
awk -v ad="$ad" -v nd="$nd" -v v="$vmas" 'BEGIN {
	printf "always - never: %.1f instructions per VMA in dup_mmap\n", (ad - nd) / v }'
echo "(instructions, not time: the per-VMA write lock is two locked atomics per VMA,"
echo " each far dearer in cycles than in instructions, and callgrind models no cache"
echo " misses; dup_mmap repeats to ~0.01 %, task_fork to ~1 %, fork+exit only to ~10 %)"
