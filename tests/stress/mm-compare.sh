#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/stress/mm-compare.sh - the mm issue's benchmark in one run, with
# rcuvfs-stress --model:
#   1. page_fault2/3 with pte_recheck=1, rfc and 0, cache_pages below the
#      working set (the workloads' default: half of it): ops/s, majflt per
#      op, PTE-lock round trips of the recheck per op, spurious_majflt, and
#      the 1/0 and rfc/0 ratios (best round, per CPU-second, each round);
#   2. fork-race throughput with fork_vma_lock=always vs never, the race
#      window left natural (-p window_ns=0: no injection point armed):
#      task ops/s (write + read-back rounds), forks/s, fork_lost_writes;
#   3. the two races with their windows widened (-p window_ns=1000, the
#      default), verified: numa-race (mlockall, as in the seed) under
#      pte_recheck 1/rfc/0 (spurious major faults), fork-race under
#      always/never (lost parent writes).
# Rounds rotate the order of the switch values (pte_recheck 1 rfc 0, then
# rfc 0 1, then 0 1 rfc; fork_vma_lock always never, then never always).
# On a shared machine wall-clock rates swing with other
# programs' load, so a line shows the best round's ops/s, the ops per
# CPU-second of the tasks summed over all rounds (steadier: time the tasks
# did not run is not counted), and the range of the per-round ratios.
#
# usage: tests/stress/mm-compare.sh [--build DIR] [--tasks LIST] [--mode threads|processes]
#        [--duration S] [--warmup S] [--rounds N] [--pages N]
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
	case $1 in
	--build) build=$2; shift 2 ;;
	--tasks) tasks=$2; shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--warmup) warmup=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
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

# run LABEL VALUE ARGS...: one rcuvfs-stress invocation; rows appended to $tmp/rows as
# "label round:value workload tasks ops_per_sec wall_s majflt minflt spurious nopage forks
# unstable cpu_s recheck_locked"
run() {
	local label=$1 value=$2
	shift 2
	"$stress" "${common[@]}" "$@" --csv "$tmp/run.csv" >"$tmp/run.out" 2>&1 ||
		{ cat "$tmp/run.out" >&2; echo "mm-compare: run failed: $*" >&2; rc=1; }
	[ -f "$tmp/run.csv" ] || return
	awk -F, -v l="$label" -v v="$value" '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	function g(n) { return (n in c) && $(c[n]) != "" ? $(c[n]) : 0 }
	{ print l, v, g("workload"), g("tasks"), g("ops_per_sec"), g("wall_s"),
		g("counter.majflt"), g("counter.minflt"), g("counter.spurious_majflt"),
		g("counter.pte_recheck_nopage"), g("counter.mm_forks"),
		g("counter.fork_lost_writes"), g("cpu_s"), g("counter.pte_recheck_locked") }' \
		"$tmp/run.csv" >>"$tmp/rows"
	rm -f "$tmp/run.csv"
}

for r in $(seq "$rounds"); do
	case $((r % 3)) in
	1) order="1 rfc 0" ;;
	2) order="rfc 0 1" ;;
	0) order="0 1 rfc" ;;
	esac
	if [ $((r % 2)) = 1 ]; then x=always y=never; else x=never y=always; fi
	echo "round $r/$rounds" >&2
	for v in $order; do
		run pf "$r:$v" -o "pte_recheck=$v" --workload page_fault2,page_fault3
	done
	for v in $x $y; do
		run fr "$r:$v" -o "fork_vma_lock=$v" --workload fork-race -p window_ns=0
	done
done
echo "races (window_ns=1000, --verify)" >&2
for v in 1 rfc 0; do
	run race "1:$v" -o "pte_recheck=$v" --workload numa-race --verify
done
for v in always never; do
	run race "1:$v" -o "fork_vma_lock=$v" --workload fork-race --verify
done

echo "rcuvfs-stress --model, $mode, $(nproc) CPUs, ${duration} s per run, $rounds rounds, pages=$pages"
awk -v tasklist="$tasks" -v rounds="$rounds" -v PAGES="$pages" '
{
	split($2, rv, ":"); rd = rv[1]; val = rv[2]
	k = $1 SUBSEP val SUBSEP $3 SUBSEP $4
	ops = $5 * $6
	if (!(k in best) || $5 > best[k]) { best[k] = $5; bfk[k] = $6 > 0 ? $11 / $6 : 0 }
	tops[k] += ops; maj[k] += $7; minf[k] += $8; sp[k] += $9; nop[k] += $10
	un[k] += $12; cpu[k] += $13; lck[k] += $14
	per[$1, val, $3, $4, rd] = $5
}
function perop(a, k) { return tops[k] > 0 ? a[k] / tops[k] : 0 }
function opcpu(k) { return cpu[k] > 0 ? tops[k] / cpu[k] : 0 }
function ratio(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "-" }
function range(t, w, tk, v1, v0,   r, lo, hi, q) {
	lo = ""; hi = ""
	for (r = 1; r <= rounds; r++) {
		if (!((t, v1, w, tk, r) in per) || !((t, v0, w, tk, r) in per) || per[t, v0, w, tk, r] == 0)
			continue
		q = per[t, v1, w, tk, r] / per[t, v0, w, tk, r]
		if (lo == "" || q < lo) lo = q
		if (hi == "" || q > hi) hi = q
	}
	return lo == "" ? "-" : sprintf("%.2f..%.2f", lo, hi)
}
END {
	m = split(tasklist, ts, ",")
	printf "\n1. page_fault2/3, pte_recheck 1, rfc, 0 (cache_pages = half the working set)\n"
	printf "%-12s %5s %7s %10s %11s %10s %9s %9s %9s %8s %8s %8s %12s\n", "workload",
		"tasks", "recheck", "best op/s", "pages/s", "op/cpu-s", "majflt/op", "minflt/op",
		"locks/op", "spurious", "x/0 best", "x/0 cpu", "x/0 rounds"
	split("page_fault2 page_fault3", w, " ")
	nv = split("1 rfc 0", vals, " ")
	for (i = 1; i <= 2; i++)
		for (j = 1; j <= m; j++)
			for (q = 1; q <= nv; q++) {
				v = vals[q]
				k = "pf" SUBSEP v SUBSEP w[i] SUBSEP ts[j]
				k0 = "pf" SUBSEP 0 SUBSEP w[i] SUBSEP ts[j]
				printf "%-12s %5s %7s %10.0f %11.0f %10.0f %9.1f %9.1f %9.1f %8d %8s %8s %12s\n",
					w[i], ts[j], v, best[k], best[k] * PAGES, opcpu(k), perop(maj, k),
					perop(minf, k), perop(lck, k), sp[k],
					v != "0" ? ratio(best[k], best[k0]) : "",
					v != "0" ? ratio(opcpu(k), opcpu(k0)) : "",
					v != "0" ? range("pf", w[i], ts[j], v, 0) : ""
			}
	printf "\n2. fork-race throughput, always vs never (window_ns=0: natural window)\n"
	printf "%-13s %5s %10s %10s %10s %10s %9s %9s %12s\n", "fork_vma_lock", "tasks",
		"best op/s", "op/cpu-s", "forks/s", "lost", "a/n best", "a/n cpu", "a/n rounds"
	split("always never", lk, " ")
	for (j = 1; j <= m; j++)
		for (i = 1; i <= 2; i++) {
			k = "fr" SUBSEP lk[i] SUBSEP "fork-race" SUBSEP ts[j]
			kn = "fr" SUBSEP "never" SUBSEP "fork-race" SUBSEP ts[j]
			printf "%-13s %5s %10.0f %10.0f %10.0f %10d %9s %9s %12s\n", lk[i], ts[j], best[k],
				opcpu(k), bfk[k], un[k], i == 1 ? ratio(best[k], best[kn]) : "",
				i == 1 ? ratio(opcpu(k), opcpu(kn)) : "",
				i == 1 ? range("fr", "fork-race", ts[j], "always", "never") : ""
		}
	printf "(forks/s: in the best round by task ops/s; lost: writes lost, all rounds)\n"
	printf "\n3. the races, windows widened (window_ns=1000), --verify\n"
	printf "%-10s %-20s %5s %10s %9s %10s %9s %9s %10s\n", "workload", "switch", "tasks",
		"op/s", "majflt", "spurious", "nopage", "locks", "lost"
	for (j = 1; j <= m; j++) {
		for (q = 1; q <= nv; q++) {
			v = vals[q]
			k = "race" SUBSEP v SUBSEP "numa-race" SUBSEP ts[j]
			printf "%-10s %-20s %5s %10.0f %9d %10d %9d %9d %10s\n", "numa-race",
				"pte_recheck=" v, ts[j], best[k], maj[k], sp[k], nop[k], lck[k], "-"
		}
		for (i = 1; i <= 2; i++) {
			k = "race" SUBSEP lk[i] SUBSEP "fork-race" SUBSEP ts[j]
			printf "%-10s %-20s %5s %10.0f %9s %10s %9s %9s %10d\n", "fork-race",
				"fork_vma_lock=" lk[i], ts[j], best[k], "-", "-", "-", "-", un[k]
		}
	}
}' "$tmp/rows"
[ $rc = 0 ] || echo "mm-compare: a run failed (see above)" >&2
exit $rc
