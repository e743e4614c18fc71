#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/bench_fdtable_callgrind.sh - instructions per fd lookup.
#
# Runs bench_fdtable --once under valgrind --tool=callgrind, once per fileref
# scheme, collecting only inside the loop_* functions, and prints each
# loop's inclusive instruction count divided by the iteration count
# (deterministic, unlike ns/op on a shared machine).
#
# Usage: tests/bench/bench_fdtable_callgrind.sh [--build DIR] [--iters N]
#   DIR defaults to build, N (pairs per loop) to 100000; the operands
#   BUILD_DIR ITERS of older command lines still work (tests/bench/args.sh).
set -eu

bench_usage="usage: ${0##*/} [-b|--build DIR] [-n|--iters N]
fget/fdget instructions per pair under callgrind, per fileref scheme.
  -b, --build DIR   the build tree (default build)
  -n, --iters N     pairs per loop (default 100000)"
bench_takes=iters
BUILD=build ITERS=100000
. "$(dirname "$0")/args.sh"
bench_args "$@"
build=$BUILD
iters=$ITERS
bench=$build/tests/bench_fdtable
if [ ! -x "$bench" ]; then
	echo "no $bench: build first (cmake --build $build --target bench_fdtable)" >&2
	exit 1
fi
command -v valgrind >/dev/null || { echo "valgrind not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-18s %14s %14s\n' phase inc-not-zero file-ref
for scheme in inc-not-zero file-ref; do
	valgrind --tool=callgrind --callgrind-out-file="$tmp/$scheme.out" \
		--toggle-collect='loop_*' "$bench" --once --iters "$iters" -o fileref="$scheme" \
		>"$tmp/$scheme.log" 2>&1 || { cat "$tmp/$scheme.log" >&2; exit 1; }
	callgrind_annotate --inclusive=yes "$tmp/$scheme.out" 2>/dev/null |
		sed -n 's/^ *\([0-9,]*\) ([^)]*) *[^ ]*bench_fdtable.c:loop_\([a-z_]*\).*/\2 \1/p' |
		tr -d , >"$tmp/$scheme.ir"
done
for phase in ref fdget_unshared fget_shared fget_shared_ool fdget_shared; do
	a=$(awk -v p="$phase" -v n="$iters" '$1 == p { printf "%.1f", $2 / n }' "$tmp/inc-not-zero.ir")
	b=$(awk -v p="$phase" -v n="$iters" '$1 == p { printf "%.1f", $2 / n }' "$tmp/file-ref.ir")
	printf '%-18s %14s %14s\n' "$phase" "${a:-?}" "${b:-?}"
done
echo "(instructions per lookup+release pair, loop overhead included; $iters iterations)"
