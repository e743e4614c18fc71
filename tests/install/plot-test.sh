#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# plot-test.sh BIN: rcuvfs-plot turns rcuvfs-stress's CSV and JSON into
# PNG and SVG: a sweep over two BKLs at two task counts gives a scaling
# plot (lines) and a ratio plot (bars) from each format; a table of
# values (the allocator steps) gives bars for every step it has; rcuvfs-sim's
# CSV gives ops/s against its simulated CPUs; a file with no
# runs is an error (exit 1); a bad option a usage error (exit 2).
# Skipped (77) without gnuplot.
set -u
bin=$1
command -v gnuplot >/dev/null || { echo "SKIP: gnuplot not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
"$bin/rcuvfs-stress" --model --sweep bkl=spin,sem-fifo --workload bkl-mix --tasks 2,4 \
	--ops-per-task 50 --repeat 2 --quiet --csv "$tmp/r.csv" --json "$tmp/r.json" >/dev/null ||
	bad "rcuvfs-stress"
for f in r.csv r.json; do
	rm -rf "$tmp/out"
	"$bin/rcuvfs-plot" --out "$tmp/out" "$tmp/$f" >"$tmp/list" || bad "rcuvfs-plot $f exited $?"
	for k in scaling ratios; do
		png=$tmp/out/r-$k.png
		grep -qx "$png" "$tmp/list" || bad "$f: $png not reported"
		[ "$(head -c 8 "$png" 2>/dev/null | od -An -c | tr -d ' \n')" = '211PNG\r\n032\n' ] ||
			bad "$f: $png is not a PNG"
	done
done
"$bin/rcuvfs-plot" --format svg --kind bars --out "$tmp/svg" "$tmp/r.csv" >/dev/null || bad "svg"
grep -q '<svg' "$tmp/svg/r-ratios.svg" 2>/dev/null || bad "--format svg wrote no SVG"
grep -q 'sem-fifo' "$tmp/svg/r-ratios.svg" || bad "the ratio plot does not name the sweep values"
grep -q "kernel $(uname -r)" "$tmp/svg/r-ratios.svg" || bad "the title does not name the kernel"
# a "value" table (tests/bench/mmap-cycle.sh --csv): every step it has is a bar,
# titled with its "# value:" line; a step missing from one group is a gap
printf '%s\n' '# tool: mmap-cycle' '# value: time relative to the baseline' \
	'workload,tasks,sweep,value' 'mmap_us,1,baseline,10' 'mmap_us,1,(1),8' 'mmap_us,1,(2),5' \
	'seed_big,1,baseline,100' 'seed_big,1,(1),80' 'seed_big,1,(2),10' 'seed_big,1,(3),7' \
	>"$tmp/alloc.csv"
"$bin/rcuvfs-plot" --format svg --out "$tmp/a" "$tmp/alloc.csv" >"$tmp/alist" || bad "value table: exit $?"
grep -qx "$tmp/a/alloc-ratios.svg" "$tmp/alist" || bad "value table: no ratio plot"
for t in 'baseline' '(1)' '(2)' '(3)' 'time relative to the baseline' 'mmap_us' 'seed_big'; do
	grep -qF "$t" "$tmp/a/alloc-ratios.svg" 2>/dev/null || bad "value table: the plot does not show $t"
done
# rcuvfs-sim --csv: ops/s against the simulated CPUs, titled with the topology
if [ -x "$bin/rcuvfs-sim" ]; then
	src=$(cd "$(dirname "$0")/../.." && pwd)
	"$bin/rcuvfs-sim" -T "$src/tools/sim/topologies/cascadelake-2x24x2.topo" -C uniform:20 \
		-w open3 -c 1,2,4 -d 5 --sweep lockref_relax=1,0 --csv >"$tmp/sim.csv" || bad "rcuvfs-sim"
	"$bin/rcuvfs-plot" --format svg --kind lines --out "$tmp/s" "$tmp/sim.csv" >/dev/null ||
		bad "sim CSV: exit $?"
	for t in 'against CPUs' 'cascadelake-2x24x2' 'CPUs (simulated' 'lockref_relax=0'; do
		grep -qF "$t" "$tmp/s/sim-scaling.svg" 2>/dev/null || bad "sim CSV: the plot does not show $t"
	done
fi
printf '# tool: rcuvfs-stress\nworkload,tasks,ops_per_sec\n' >"$tmp/empty.csv"
"$bin/rcuvfs-plot" --out "$tmp/e" "$tmp/empty.csv" >/dev/null 2>&1
[ $? = 1 ] || bad "a file with no runs must exit 1"
"$bin/rcuvfs-plot" --bogus x >/dev/null 2>&1
[ $? = 2 ] || bad "a bad option must exit 2"
[ $fail = 0 ] && echo "rcuvfs-plot: ok"
exit $fail
