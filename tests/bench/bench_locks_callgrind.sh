#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/bench_locks_callgrind.sh - instructions per uncontended
# lock+unlock pair in the model.
#
# Runs bench_locks --callgrind under valgrind --tool=callgrind once per
# filelock scheme (bkl=spin), collecting only inside loop_flock and
# loop_posix, and prints each loop's inclusive instruction count divided by
# the pair count (deterministic, unlike ns/pair on a shared machine).  The
# first pairs of each loop warm the kmem_cache magazines; with the default
# 100000 pairs they weigh nothing.
#
# Usage: tests/bench/bench_locks_callgrind.sh [--build DIR] [--iters PAIRS]
#   DIR defaults to build, PAIRS to 100000; the operands BUILD_DIR PAIRS of
#   older command lines still work (tests/bench/args.sh).
set -eu

bench_usage="usage: ${0##*/} [-b|--build DIR] [-n|--iters PAIRS]
Model lock+unlock instructions per pair under callgrind, per filelock scheme.
  -b, --build DIR   the build tree (default build)
  -n, --iters PAIRS lock+unlock pairs per scheme (default 100000)"
bench_takes=iters
BUILD=build ITERS=100000
. "$(dirname "$0")/args.sh"
bench_args "$@"
build=$BUILD
pairs=$ITERS
bench=$build/tests/bench_locks
if [ ! -x "$bench" ]; then
	echo "no $bench: build first (cmake --build $build --target bench_locks)" >&2
	exit 1
fi
command -v valgrind >/dev/null || { echo "valgrind not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-8s %14s %14s\n' scheme flock posix
for scheme in global bkl inode; do
	valgrind --tool=callgrind --callgrind-out-file="$tmp/$scheme.out" \
		--toggle-collect='loop_*' "$bench" --callgrind --iters "$pairs" \
		-o filelock="$scheme" >"$tmp/$scheme.log" 2>&1 ||
		{ cat "$tmp/$scheme.log" >&2; exit 1; }
	callgrind_annotate --inclusive=yes "$tmp/$scheme.out" 2>/dev/null |
		sed -n 's/^ *\([0-9,]*\) ([^)]*) *[^ ]*bench_locks.c:loop_\([a-z_]*\).*/\2 \1/p' |
		tr -d , >"$tmp/$scheme.ir"
	f=$(awk -v n="$pairs" '$1 == "flock" { printf "%.1f", $2 / n }' "$tmp/$scheme.ir")
	p=$(awk -v n="$pairs" '$1 == "posix" { printf "%.1f", $2 / n }' "$tmp/$scheme.ir")
	printf '%-8s %14s %14s\n' "$scheme" "${f:-?}" "${p:-?}"
done
echo "(instructions per lock+unlock pair, loop overhead included; $pairs pairs; bkl=spin)"
