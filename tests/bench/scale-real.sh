#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/scale-real.sh [--build DIR] [--duration S] [--repeat N] - the
# simulator checked against this
# machine: each workload and design pair run for real (rcuvfs-stress
# --model, tasks pinned one per CPU, rounds alternating the designs) at
# 1, 2, 4, ... up to this machine's CPUs, beside rcuvfs-sim's prediction
# for the same CPU counts on this machine's topology (described from /sys
# and measured by tools/sim/host-topo.sh) with a calibration made here
# (tools/sim/calibrate.sh).  Works on any CPU count.
# --duration: seconds per real run (default $SECS, else 1); --repeat:
# rounds (default $REPEAT, else 3).  Environment: US (virtual microseconds per simulated run, default 300),
# WORKLOADS ("workload:switch=a,b" items), OUT (default out/sim-real).
set -eu
bench_usage="usage: ${0##*/} [-b|--build DIR] [-d|--duration S] [-r|--repeat N]
rcuvfs-sim's predictions beside real runs on this machine, per workload and
design pair, at 1, 2, 4, ... CPUs.
  -b, --build DIR    the build tree (default build)
  -d, --duration S   seconds per real run (default \$SECS, else 1)
  -r, --repeat N     rounds, designs alternating (default \$REPEAT, else 3)
Environment: US, WORKLOADS, OUT (the script's header)"
bench_takes="duration repeat"
BUILD=build DURATION=${SECS:-1} REPEAT=${REPEAT:-3}
. "$(dirname "$0")/args.sh"
bench_args "$@"
B=$BUILD SECS=$DURATION
SRC=$(cd "$(dirname "$0")/../.." && pwd)
SIM=$B/bin/rcuvfs-sim STRESS=$B/bin/rcuvfs-stress
US=${US:-300}
OUT=${OUT:-$SRC/out/sim-real}
WORKLOADS=${WORKLOADS:-"open3:lockref_relax=1,0 fstat2:lockref_relax=1,0 dup1:fileref=inc-not-zero,file-ref exec1:rss_counters=group,single bkl-mix:bkl=spin,sem-fifo,sem-steal zero:new_inode_prefetch=1,0"}
mkdir -p "$OUT"
ncpu=$(getconf _NPROCESSORS_ONLN)
cpus=1; c=2
while [ $c -le $ncpu ]; do cpus="$cpus,$c"; c=$((c * 2)); done
case ",$cpus," in *",$ncpu,"*) ;; *) cpus="$cpus,$ncpu" ;; esac
[ -f "$OUT/host.topo" ] || "$SRC/tools/sim/host-topo.sh" "$SIM" "$OUT/host.topo"
[ -f "$OUT/host.cal" ] || "$SRC/tools/sim/calibrate.sh" "$SIM" "$OUT/host.cal"
echo "# scale-real: $("$SIM" -V); $ncpu CPUs; real: $SECS s x $REPEAT rounds, pinned; sim: $US us virtual"
# real_cpu: ops per CPU-second of the real run times the CPUs (its rate had
# its tasks not waited for a CPU), the figure the simulation predicts
printf "%-9s %-28s %5s %14s %14s %14s %8s %8s\n" workload design cpus real_ops/s real_cpu sim_ops/s sim/real sim/cpu
for item in $WORKLOADS; do
	w=${item%%:*} sw=${item#*:}
	mode=threads extra=""; [ "$w" = zero ] && mode=processes
	# fstat2 as tests/bench/sim-seeds.sh runs it (the seed's processes and
	# pre-6.6 empty-path walk)
	[ "$w" = fstat2 ] && mode=processes extra="-o stat_empty_path=walk"
	tasks=$cpus; [ "$w" = bkl-mix ] && tasks=$(echo "$cpus" | tr ',' '\n' | sed 's/$/*64/' | bc | paste -sd,)
	# shellcheck disable=SC2086
	"$STRESS" --model -w "$w" -m $mode $extra -t "$tasks" --pin -d "$SECS" --warmup 0.2 \
		--repeat "$REPEAT" --sweep "$sw" --csv "$OUT/real-$w.csv" -q > /dev/null 2>&1 || true
	i=0
	for c in $(echo "$cpus" | tr ',' ' '); do
		i=$((i + 1))
		t=$(echo "$tasks" | cut -d, -f$i)
		# shellcheck disable=SC2086
		"$SIM" -T "$OUT/host.topo" -C "$OUT/host.cal" -w "$w" -m $mode $extra -c "$c" -t "$t" \
			-d "$US" --sweep "$sw" --csv | tail -n +2
	done > "$OUT/sim-$w.csv"
	awk -F, -v w="$w" '
	FNR == 1 { file++ }
	file == 1 && /^#/ { next }
	file == 1 && !hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
	file == 1 {
		d = $col["sweep"]; t = $col["tasks"]; r = $col["ops_per_sec"]
		k = d SUBSEP t; sum[k] += r; n[k]++
		# per CPU-second of the run: what the tasks did while they ran (on a
		# shared machine they wait for a CPU; the simulation does not)
		cs = $col["cpu_s"]; if (cs > 0) pc[k] += $col["ops"] / cs
		next
	}
	file == 2 {
		k = $2 SUBSEP $5
		real = n[k] ? sum[k] / n[k] : 0
		cpu = n[k] ? pc[k] / n[k] * $4 : 0
		printf "%-9s %-28s %5s %14.0f %14.0f %14.0f %8s %8s\n", w, $2, $4, real, cpu, $8,
			(real > 0 ? sprintf("%.2f", $8 / real) : "-"), (cpu > 0 ? sprintf("%.2f", $8 / cpu) : "-")
	}' "$OUT/real-$w.csv" "$OUT/sim-$w.csv"
done
