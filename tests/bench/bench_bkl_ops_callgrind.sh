#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/bench_bkl_ops_callgrind.sh - instructions per operation on the
# bkl_ops paths (open+close, setattr, ioctl), per bkl_ops value.
#
# Runs bench_bkl_ops --iters ITERS --repeat 1 -o bkl_ops=CONFIG under valgrind --tool=callgrind,
# collecting only inside its loop_* functions, and prints each loop's
# inclusive instruction count divided by ITERS (deterministic, unlike ns/op
# on a shared machine).  Give a second bench binary built against another
# tree (e.g. one without the switch) to compare the `none` rows.
#
# Usage: tests/bench/bench_bkl_ops_callgrind.sh [--build DIR] [--iters N] [OTHER_BENCH]
#   (the operands BUILD_DIR ITERS OTHER_BENCH of older command lines still
#   work: tests/bench/args.sh)
set -eu

bench_usage="usage: ${0##*/} [-b|--build DIR] [-n|--iters N] [OTHER_BENCH]
bkl_ops instructions per operation under callgrind, per configuration;
OTHER_BENCH, a bench_bkl_ops built from another tree, adds its rows.
  -b, --build DIR   the build tree (default build)
  -n, --iters N     operations per path (default 20000)"
bench_takes=iters
BUILD=build ITERS=20000 EXTRA=
. "$(dirname "$0")/args.sh"
bench_args "$@"
build=$BUILD
iters=$ITERS
other=$EXTRA
bench=$build/tests/bench_bkl_ops
if [ ! -x "$bench" ]; then
	echo "no $bench: build first (cmake --build $build --target bench_bkl_ops)" >&2
	exit 1
fi
command -v valgrind >/dev/null || { echo "valgrind not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

row() { # label binary config
	# a bench_bkl_ops from an older tree may take --rounds and --only, or
	# ITERS ROUNDS CONFIG
	if "$2" --help 2>/dev/null | grep -q -- --repeat; then
		set -- "$1" "$2" --iters "$iters" --repeat 1 -o bkl_ops="$3"
	elif "$2" --help 2>/dev/null | grep -q -- --iters; then
		set -- "$1" "$2" --iters "$iters" --rounds 1 --only "$3"
	else
		set -- "$1" "$2" "$iters" 1 "$3"
	fi
	label=$1
	bin=$2
	shift 2
	valgrind --tool=callgrind --callgrind-out-file="$tmp/out" --toggle-collect='loop_*' \
		"$bin" "$@" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
	callgrind_annotate --inclusive=yes "$tmp/out" 2>/dev/null |
		awk -v n="$iters" -v label="$label" '
		/:loop_open \[/    { gsub(",", "", $1); o = $1 / n }
		/:loop_setattr \[/ { gsub(",", "", $1); s = $1 / n }
		/:loop_ioctl \[/   { gsub(",", "", $1); i = $1 / n }
		END { printf "%-22s %12.1f %12.1f %12.1f\n", label, o, s, i }'
}

printf '%-22s %12s %12s %12s\n' "bkl_ops (Ir/op)" open+close setattr ioctl
for cfg in none open+release setattr ioctl all; do
	row "$cfg" "$bench" "$cfg"
done
if [ -n "$other" ]; then
	row "none ($(basename "$other"))" "$other" none
fi
