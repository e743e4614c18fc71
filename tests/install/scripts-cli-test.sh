#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/install/scripts-cli-test.sh SRC: the benchmark scripts the docs tell
# users to run (each one of them) keep the tools' command-line grammar (tools/cli.h) where it
# applies to a script: --help exits 0 with the usage on stdout; an unknown
# option, or an option given without its value, exits 2 with one line on
# stderr naming it and nothing on stdout.  Runs no benchmark.
set -u
src=$1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# SCRIPT OPTION-THAT-TAKES-A-VALUE
for s in "tests/stress/compare.sh --repeat" "tests/stress/mm-compare.sh --repeat" \
	"tests/bench/mmap-cycle.sh --iters" "tests/bench/wis-compare.sh --duration" \
	"tests/bench/bkl-regression --jobs" \
	"tests/bench/bench_bkl_ops_callgrind.sh --iters" "tests/bench/bench_fdtable_callgrind.sh --iters" \
	"tests/bench/bench_locks_callgrind.sh --iters" "tests/bench/bench_mm_fork_callgrind.sh --vmas" \
	"tests/bench/bench_mm_recheck_callgrind.sh --iters" "tests/bench/mmap-cycle-callgrind.sh --iters" \
	"tests/bench/fuse-locks-callgrind.sh --build" "tests/bench/fuse-floor/run.sh --duration" \
	"tests/bench/fuse-locks.sh --tasks" "tests/bench/fuse-contention.sh --repeat" \
	"tests/bench/fuse-requests.sh --repeat" "tests/bench/scale-real.sh --duration" \
	"tests/bench/sim-seeds.sh --calibration" "scripts/sim-plots.sh --out" \
	"tests/bench/fuse-nodeid-callgrind.sh --iters"; do
	set -- $s
	p=$src/$1
	timeout 30 "$p" --help >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 0 ] || bad "$1 --help: exit $rc"
	[ -s "$tmp/out" ] || bad "$1 --help: nothing on stdout"
	for args in "--no-such-option" "$2"; do
		timeout 30 "$p" $args >"$tmp/out" 2>"$tmp/err"
		rc=$?
		[ $rc = 2 ] || bad "$1 $args: exit $rc, expected 2"
		[ -s "$tmp/out" ] && bad "$1 $args: wrote to stdout"
		[ "$(wc -l <"$tmp/err")" = 1 ] || bad "$1 $args: $(wc -l <"$tmp/err") lines on stderr"
		grep -q -- "$args" "$tmp/err" || bad "$1 $args: the message does not name it: $(head -1 "$tmp/err")"
	done
done
[ $fail = 0 ] && echo "benchmark scripts' command lines: ok"
exit $fail
