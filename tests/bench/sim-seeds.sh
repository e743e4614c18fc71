#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/sim-seeds.sh [--build DIR] [--calibration FILE] - the seeds'
# scaling results
# simulated (rcuvfs-sim, docs/sim.md): each comparison on the seed's
# topology and task counts, both designs in one run, printed in the seed's
# table shape with the seed's figure beside the simulated one.
#   --build DIR         the build directory (bin/rcuvfs-sim; default build)
#   --calibration FILE  a calibration file (default: tools/sim/calibration/devvm.cal;
#                made on another build it is used by kind pair only)
# Environment: US (virtual microseconds per run, default 200), OUT (a
# directory for the CSV of every run, default out/sim).
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
bench_usage="usage: ${0##*/} [-b|--build DIR] [--calibration FILE]
The seeds' scaling comparisons on simulated CPUs (rcuvfs-sim), each beside
the seed's figure.
  -b, --build DIR         the build tree (default build)
      --calibration FILE  a calibration file (default tools/sim/calibration/devvm.cal)
Environment: US, OUT (the script's header)"
bench_takes=calibration bench_operand2=extra
BUILD=build OPT_CALIBRATION= EXTRA=
. "$(dirname "$0")/args.sh"
bench_args "$@"
B=$BUILD
CAL=${OPT_CALIBRATION:-${EXTRA:-$SRC/tools/sim/calibration/devvm.cal}}
SIM=$B/bin/rcuvfs-sim
T=$SRC/tools/sim/topologies
US=${US:-200}
OUT=${OUT:-$SRC/out/sim}
mkdir -p "$OUT"
sim() { "$SIM" -C "$CAL" --csv "$@"; }
# csv columns: 1 workload 2 sweep (the switch) 3 topology 4 cpus 5 tasks 6 us 7 ops 8 ops/s 9 idle%
#              10 vol/op 11 wake/op 12 xfer/op ...
ratio_table() { # FILE A B SEEDS(space-separated, per row)
	awk -F, -v a="$2" -v b="$3" -v seeds="$4" '
	BEGIN { n = split(seeds, s, " ") }
	NR > 1 { k = $4 " " $5; v[k, $2] = $8; if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
	END {
		printf "%-6s %-6s %14s %14s %10s %10s\n", "cpus", "tasks", a, b, "sim", "seed"
		for (i = 1; i <= m; i++) {
			k = order[i]; split(k, ct, " ")
			x = v[k, a]; y = v[k, b]
			r = x > 0 ? sprintf("%+.0f%%", (y / x - 1) * 100) : "-"
			printf "%-6s %-6s %14.0f %14.0f %10s %10s\n", ct[1], ct[2], x, y, r, (i <= n ? s[i] : "-")
		}
	}' "$1"
}
echo "# rcuvfs-sim seed comparisons; $("$SIM" -V); calibration $CAL; $US us virtual per run"
echo
echo "## 1. lockref cpu_relax (Cascade Lake 2x24x2): ops/s, lockref_relax=1 (stock) vs 0 (no PAUSE)"
for w in fstat2 open3; do
	# open3 collapses to a few ops per 100 us at 48-96 CPUs: ten times the time
	d=$US; [ $w = open3 ] && d=$((US * 10))
	# fstat2 as the seed ran it: processes (will-it-scale's), glibc's
	# fstatat(fd, "", AT_EMPTY_PATH) on a 6.2 kernel, i.e. the empty-path walk
	extra=""; [ $w = fstat2 ] && extra="-m processes -o stat_empty_path=walk"
	# shellcheck disable=SC2086
	sim -T $T/cascadelake-2x24x2.topo -w $w -c 1,2,8,24,48,96 -d $d $extra \
		--sweep lockref_relax=1,0 > "$OUT/lockref-$w.csv"
	echo "### $w${extra:+ ($extra)}"
	case $w in
	fstat2) seeds="+1% +2% +69% +144% +209% +423%" ;;
	open3) seeds="+1% 0% +18% +84% +72% +134%" ;;
	esac
	ratio_table "$OUT/lockref-$w.csv" lockref_relax=1 lockref_relax=0 "$seeds"
done
echo
echo "## 2. percpu counter grouping (Skylake-SP 26 cores): exec1 ops/s, rss_counters=single vs group"
sim -T $T/skylake-26.topo -w exec1 -c 1,2,4,8,16,26 -d $((US * 20)) \
	--sweep rss_counters=single,group > "$OUT/exec1.csv"
ratio_table "$OUT/exec1.csv" rss_counters=single rss_counters=group "- - - - - +39%"
echo
echo "## 3. The BKL: bkl-mix, 2000 tasks (work_us=20, cs_ns=1000): jobs/s, idle %, voluntary switches per job"
for topo in core2-quad:4 cascadelake-2x24x2:8 cascadelake-2x24x2:16; do
	f=$T/${topo%:*}.topo c=${topo#*:}
	# 20 ms of warm-up: the 2000 tasks start runnable, 500 per CPU; the
	# regime (tasks queued on the BKL) sets in once each has run a job
	sim -T $f -w bkl-mix -c $c -t 2000 -d 20000 --warmup 20000 \
		--sweep bkl=spin,sem-fifo,sem-steal > "$OUT/bkl-$c.csv"
done
printf "%-20s %5s %-10s %12s %8s %8s %10s %s\n" topology cpus bkl jobs/s "x spin" idle% vol/job seed
for c in 4 8 16; do
	awk -F, -v c=$c 'NR > 1 { v[$2] = $8; row[++n] = $0 }
	END {
		for (i = 1; i <= n; i++) {
			split(row[i], f, ",")
			seed = f[2] == "bkl=sem-fifo" ? (c == 4 ? "0.59 (quad-core), worse with more CPUs" : "worse than on 4") : f[2] == "bkl=sem-steal" ? "0.993" : "1.00"
			printf "%-20s %5s %-10s %12.0f %8.2f %8.2f %10.3f %s\n", f[3], f[4], substr(f[2], 5), f[8], f[8] / v["bkl=spin"], f[9], f[10], seed
		}
	}' "$OUT/bkl-$c.csv"
done
echo
echo "## 4. new_inode_prefetch (Ice Lake 2x16x2, 64 processes): zero ops/s, 1 vs 0"
sim -T $T/icelake-2x16x2.topo -w zero -m processes -c 64 -d $((US * 2)) \
	--sweep new_inode_prefetch=1,0 > "$OUT/zero.csv"
ratio_table "$OUT/zero.csv" new_inode_prefetch=1 new_inode_prefetch=0 "+6.3%"
echo
echo "## 5a. fileref (Cascade Lake 2x24x2): ops/s, inc-not-zero vs file-ref"
for w in fstat2 dup1; do
	sim -T $T/cascadelake-2x24x2.topo -w $w -c 1,2,8,24,48,96 -d $US \
		--sweep fileref=inc-not-zero,file-ref > "$OUT/fileref-$w.csv"
	echo "### $w"
	ratio_table "$OUT/fileref-$w.csv" fileref=inc-not-zero fileref=file-ref ""
done
echo
echo "## 5b. __get_file_rcu (Cascade Lake 2x24x2): ops/s, inlined vs out of line"
for w in fstat2 dup1; do
	sim -T $T/cascadelake-2x24x2.topo -w $w -c 1,2,8,24,48,96 -d $US \
		--sweep get_file_rcu=inline,out-of-line > "$OUT/get_file_rcu-$w.csv"
	echo "### $w"
	ratio_table "$OUT/get_file_rcu-$w.csv" get_file_rcu=inline get_file_rcu=out-of-line ""
done
echo
echo "## 5c. fork_vma_lock (Cascade Lake, one single-threaded forking process, 1000 VMAs): forks/s"
sim -T $T/cascadelake-2x24x2.topo -w fork-vmas -m processes -p vmas=1000 -c 1 -d $((US * 500)) \
	--sweep fork_vma_lock=never,always,elide-single > "$OUT/fork.csv"
ratio_table "$OUT/fork.csv" fork_vma_lock=never fork_vma_lock=always "~-5%"
awk -F, 'NR > 1 { printf "  %-28s %12.0f forks/s\n", $2, $8 }' "$OUT/fork.csv"
