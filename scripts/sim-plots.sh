#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/sim-plots.sh BUILD OUT - the seeds' comparisons on simulated CPUs
# (tests/bench/sim-seeds.sh, docs/sim.md) and their plots: the tables go to
# stdout and OUT/sim.txt, every run's CSV to OUT/sim/, and for each design
# pair compared across CPU counts a plot of ops/s against the simulated
# CPUs, one line per design (rcuvfs-plot --kind lines), OUT/sim/NAME-scaling.png.
# Prints the plots it wrote after the tables.  Section 6 of scripts/main.sh.
# Environment: US (virtual microseconds per run, as sim-seeds.sh).
set -eu
B=${1:?usage: sim-plots.sh BUILD OUT}
OUT=${2:?usage: sim-plots.sh BUILD OUT}
SRC=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT/sim"
OUT="$OUT/sim" "$SRC/tests/bench/sim-seeds.sh" "$B" | tee "$OUT/sim.txt"
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
