#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/sim-plots.sh [--build DIR] --out OUT [--calibration FILE] - the
# seeds' comparisons on simulated CPUs
# (tests/bench/sim-seeds.sh, docs/sim.md) and their plots: the tables go to
# stdout and OUT/sim.txt, every run's CSV to OUT/sim/, and for each design
# pair compared across CPU counts a plot of ops/s against the simulated
# CPUs, one line per design (rcuvfs-plot --kind lines), OUT/sim/NAME-scaling.png.
# Prints the plots it wrote after the tables.  Section 6 of scripts/main.sh.
# CALIBRATION: as sim-seeds.sh (default tools/sim/calibration/devvm.cal,
# used by site pair only by the build that made it: on another machine or
# compiler make one first, tools/sim/calibrate.sh BUILD/bin/rcuvfs-sim FILE).
# Environment: US (virtual microseconds per run, as sim-seeds.sh).  The
# operands BUILD OUT [CALIBRATION] of older command lines still work.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
bench_usage="usage: ${0##*/} [-b|--build DIR] --out OUT [--calibration FILE]
The seeds' comparisons on simulated CPUs (tests/bench/sim-seeds.sh) and their
plots: tables on stdout and in OUT/sim.txt, CSVs and PNGs in OUT/sim/.
  -b, --build DIR         the build tree (default build)
      --out OUT           the output directory
      --calibration FILE  as sim-seeds.sh's (default tools/sim/calibration/devvm.cal)"
bench_takes="out calibration" bench_operand2=extra
BUILD=build OPT_OUT= OPT_CALIBRATION= OPERAND_2= OPERAND_3=
. "$SRC/tests/bench/args.sh"
bench_args "$@"
B=$BUILD
OUT=${OPT_OUT:-$OPERAND_2}
[ -n "$OUT" ] || bench_bad "no --out OUT (try --help)"
CAL=${OPT_CALIBRATION:-$OPERAND_3}
mkdir -p "$OUT/sim"
OUT="$OUT/sim" "$SRC/tests/bench/sim-seeds.sh" --build "$B" ${CAL:+--calibration "$CAL"} |
	tee "$OUT/sim.txt"
# the CSVs with one run per CPU count and design (the BKL, zero and fork ones
# compare designs at one count: their tables say it)
set --
for n in lockref-open3 lockref-fstat2 exec1 fileref-fstat2 fileref-dup1 get_file_rcu-fstat2 \
	get_file_rcu-dup1; do
	[ -s "$OUT/sim/$n.csv" ] && set -- "$@" "$OUT/sim/$n.csv"
done
echo
echo "plots:"
"$B/bin/rcuvfs-plot" --out "$OUT/sim" --kind lines "$@"
