#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/stress/mm-compare.sh - the mm benchmark in one run, with
# rcuvfs-stress --model:
#   1. page_fault2/3 with pte_recheck=1, rfc and 0, cache_pages below the
#      working set (the workloads' default: half of it): ops/s, majflt per
#      op, the recheck's PTE-lock round trips per op, spurious_majflt, and
#      the 1/0 and rfc/0 ratios;
#   2. fork-race throughput with fork_vma_lock=always vs never, the race
#      window left natural (-p window_ns=0: no injection point armed):
#      task ops/s (write + read-back rounds), forks/s, fork_lost_writes;
#   3. the two races with their windows widened (-p window_ns=1000, the
#      default), verified: numa-race (which mlockalls, as in the original
#      report) under pte_recheck 1/rfc/0 (spurious major faults), fork-race
#      under always/never (lost parent writes).
# Each part is one rcuvfs-stress invocation that sweeps the switch
# (--sweep) in rounds alternating its values (--repeat N); the tables show
# rcuvfs-stress's own statistics: the median ops/s over the rounds with min
# and max, and, from the round closest to the median, the ops per CPU-second
# of the tasks (steadier on a shared machine: time the tasks did not run is
# not counted) and the counters.  page_fault2/3 count one op per page
# faulted, as will-it-scale does.
#
# usage: tests/stress/mm-compare.sh [--build DIR] [--tasks LIST] [--mode threads|processes]
#        [--duration S] [--warmup S] [--repeat N] [--pages N]
# (short: -b -t -m -d -r; --rounds is --repeat's older name)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${RCUVFS_BUILD:-$root/build}
tasks=1,2
mode=threads
duration=2
warmup=0.5
rounds=3
pages=128

while [ $# -gt 0 ]; do
	case $1 in -b | --build | -t | --tasks | -m | --mode | -d | --duration | --warmup | -r | --repeat | --rounds | --pages) [ $# -ge 2 ] ||
		{ echo "mm-compare: option $1 needs a value (try --help)" >&2; exit 2; } ;; esac
	case $1 in
	-b | --build) build=$2; shift 2 ;;
	-t | --tasks) tasks=$2; shift 2 ;;
	-m | --mode) mode=$2; shift 2 ;;
	-d | --duration) duration=$2; shift 2 ;;
	--warmup) warmup=$2; shift 2 ;;
	-r | --repeat | --rounds) rounds=$2; shift 2 ;;
	--pages) pages=$2; shift 2 ;;
	-h|--help) sed -n '/^# usage:/,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "mm-compare: unknown option $1" >&2; exit 2 ;;
	esac
done
stress=$build/bin/rcuvfs-stress
[ -x "$stress" ] || { echo "mm-compare: $stress not built" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(--model --tasks "$tasks" --mode "$mode" --duration "$duration" --warmup "$warmup"
	--quiet -p "pages=$pages")
rc=0

# run NAME ARGS...: one rcuvfs-stress invocation writing $tmp/NAME.csv
run() {
	local name=$1
	shift
	echo "$name: rcuvfs-stress $*" >&2
	"$stress" "${common[@]}" "$@" --csv "$tmp/$name.csv" >"$tmp/$name.out" 2>&1 ||
		{ cat "$tmp/$name.out" >&2; echo "mm-compare: run failed: $*" >&2; rc=1; }
	[ -f "$tmp/$name.csv" ] || : >"$tmp/$name.csv"
}
run pf --sweep pte_recheck=1,rfc,0 --repeat "$rounds" --workload page_fault2,page_fault3
run fr --sweep fork_vma_lock=always,never --repeat "$rounds" --workload fork-race -p window_ns=0
run numa --sweep pte_recheck=1,rfc,0 --workload numa-race --verify
run fork --sweep fork_vma_lock=always,never --workload fork-race --verify

# print PART: format the CSV rows (the statistics are rcuvfs-stress's)
table() {
	awk -F, -v part="$1" '
	FNR == 1 { h = 0 }
	/^#/ { next }
	!h { delete c; for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
	function g(n) { return (n in c) && $(c[n]) != "" ? $(c[n]) : 0 }
	function ratio(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "-" }
	{
		k = g("workload") SUBSEP g("tasks"); sw = g("sweep"); sub(/.*=/, "", sw)
		key[++n] = k; val[n] = sw
		med[k, sw] = g("ops_per_sec_median"); lo[k, sw] = g("ops_per_sec_min")
		hi[k, sw] = g("ops_per_sec_max")
		sd[k, sw] = g("ops_per_sec_median") > 0 ? 100 * g("ops_per_sec_stddev") / g("ops_per_sec_median") : 0
		opcpu[k, sw] = g("cpu_s") > 0 ? g("ops") / g("cpu_s") : 0
		ops = g("ops") > 0 ? g("ops") : 1
		maj[k, sw] = g("counter.majflt") / ops; minf[k, sw] = g("counter.minflt") / ops
		sp[k, sw] = g("counter.spurious_majflt"); nop[k, sw] = g("counter.pte_recheck_nopage")
		lck[k, sw] = g("counter.pte_recheck_locked"); lckp[k, sw] = lck[k, sw] / ops
		majt[k, sw] = g("counter.majflt")
		forks[k, sw] = g("wall_s") > 0 ? g("counter.mm_forks") / g("wall_s") : 0
		un[k, sw] = g("counter.fork_lost_writes"); wl[k] = g("workload"); tk[k] = g("tasks")
	}
	END {
		if (part == "pf") {
			printf "%-12s %5s %7s %11s %21s %5s %10s %10s %10s %9s %8s %9s %9s\n", "workload",
				"tasks", "recheck", "pages/s", "min..max", "sd%", "pages/cpu-s", "majflt/pg",
				"minflt/pg", "locks/pg", "spurious", "x/0 med", "x/0 cpu"
			for (i = 1; i <= n; i++) {
				k = key[i]; v = val[i]
				printf "%-12s %5s %7s %11.0f %10.0f..%-10.0f %4.1f%% %10.0f %10.3f %10.3f %9.3f %8d %9s %9s\n",
					wl[k], tk[k], v, med[k, v], lo[k, v], hi[k, v], sd[k, v], opcpu[k, v],
					maj[k, v], minf[k, v], lckp[k, v], sp[k, v],
					v != "0" ? ratio(med[k, v], med[k, 0]) : "",
					v != "0" ? ratio(opcpu[k, v], opcpu[k, 0]) : ""
			}
		} else if (part == "fr") {
			printf "%-13s %5s %10s %21s %5s %10s %10s %10s %9s %9s\n", "fork_vma_lock", "tasks",
				"op/s", "min..max", "sd%", "op/cpu-s", "forks/s", "lost", "a/n med",
				"a/n cpu"
			for (i = 1; i <= n; i++) {
				k = key[i]; v = val[i]
				printf "%-13s %5s %10.0f %10.0f..%-10.0f %4.1f%% %10.0f %10.0f %10d %9s %9s\n", v,
					tk[k], med[k, v], lo[k, v], hi[k, v], sd[k, v], opcpu[k, v], forks[k, v],
					un[k, v], v == "always" ? ratio(med[k, "always"], med[k, "never"]) : "",
					v == "always" ? ratio(opcpu[k, "always"], opcpu[k, "never"]) : ""
			}
		} else {
			for (i = 1; i <= n; i++) {
				k = key[i]; v = val[i]
				printf "%-10s %-20s %5s %10.0f %9d %10d %9d %9d %10d\n", wl[k],
					(wl[k] == "numa-race" ? "pte_recheck=" : "fork_vma_lock=") v, tk[k],
					med[k, v], majt[k, v], sp[k, v], nop[k, v], lck[k, v], un[k, v]
			}
		}
	}' "${@:2}"
}

echo "rcuvfs-stress --model, $mode, $(nproc) CPUs, ${duration} s per run, $rounds rounds, pages=$pages"
printf "\n1. page_fault2/3, pte_recheck 1, rfc, 0 (cache_pages = half the working set)\n"
table pf "$tmp/pf.csv"
printf "\n2. fork-race throughput, always vs never (window_ns=0: natural window)\n"
table fr "$tmp/fr.csv"
printf "\n3. the races, windows widened (window_ns=1000), --verify\n"
printf "%-10s %-20s %5s %10s %9s %10s %9s %9s %10s\n" workload switch tasks op/s majflt spurious \
	nopage locks lost
table race "$tmp/numa.csv" "$tmp/fork.csv"
[ $rc = 0 ] || echo "mm-compare: a run failed (see above)" >&2
exit $rc
