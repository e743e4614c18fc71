#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/stress/compare.sh - the same workloads against tmpfs, a fresh rcuvfs
# mount and the in-process model, in one run, with ratios to tmpfs.
#
# usage: tests/stress/compare.sh [--build DIR] [--workloads LIST] [--tasks LIST]
#        [--mode threads|processes] [--duration S] [--warmup S] [--tmpfs DIR]
#        [--repeat N] [--csv FILE] [-o DAEMON_AND_MODEL_OPTS]
# (short: -b -w -t -m -d -r; --rounds is --repeat's older name)
#
# --repeat N (default 1) runs the three targets N times in turn (tmpfs,
# rcuvfs, model, tmpfs, ...; one mount for all rounds); the table then shows
# the median ops/s of each target and the median of the per-round ratios
# with their min..max, which is the noise of the machine.  --csv FILE gets
# every round's rcuvfs-stress CSV, one after the other.
#
# A target is left out (column "-") when it cannot run: no daemon built or
# FUSE unusable (rcuvfs), or no model implementation of a workload yet.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/integration/lib.sh" # it_unmount
build=${RCUVFS_BUILD:-$root/build}
workloads=fstat1,fstat2,flock1,flock2,lock1,lock2
tasks=1,2
mode=threads
duration=2
warmup=0.5
tmpfs=/dev/shm
csv_out=
opts=
rounds=1

while [ $# -gt 0 ]; do
	case $1 in -b | --build | -w | --workloads | -t | --tasks | -m | --mode | -d | --duration | --warmup | --tmpfs | --csv | -r | --repeat | --rounds | -o) [ $# -ge 2 ] ||
		{ echo "compare: option $1 needs a value (try --help)" >&2; exit 2; } ;; esac
	case $1 in
	-b | --build) build=$2; shift 2 ;;
	-w | --workloads) workloads=$2; shift 2 ;;
	-t | --tasks) tasks=$2; shift 2 ;;
	-m | --mode) mode=$2; shift 2 ;;
	-d | --duration) duration=$2; shift 2 ;;
	--warmup) warmup=$2; shift 2 ;;
	--tmpfs) tmpfs=$2; shift 2 ;;
	--csv) csv_out=$2; shift 2 ;;
	-r | --repeat | --rounds) rounds=$2; shift 2 ;;
	-o) opts=$2; shift 2 ;;
	-h|--help) sed -n '/^# usage:/,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "compare: unknown option $1" >&2; exit 2 ;;
	esac
done
stress=$build/bin/rcuvfs-stress
daemon=$build/bin/rcuvfs
[ -x "$stress" ] || { echo "compare: $stress not built" >&2; exit 2; }
[ -d "$tmpfs" ] || tmpfs=/tmp

tmp=$(mktemp -d)
mnt=
cleanup() {
	[ -n "$mnt" ] && grep -q " $mnt " /proc/mounts && { it_unmount "$mnt" || umount -l "$mnt"; }
	[ -n "$mnt" ] && rmdir "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
common=(--workload "$workloads" --tasks "$tasks" --mode "$mode" --duration "$duration"
	--warmup "$warmup" --verify --quiet)
rc=0

case $rounds in '' | *[!0-9]* | 0) echo "compare: --repeat N, N >= 1" >&2; exit 2 ;; esac
have_fuse=0
if [ -x "$daemon" ] && [ -c /dev/fuse ]; then
	mnt=$(mktemp -d /tmp/rcuvfs-compare.XXXXXX)
	if "$daemon" "$mnt" -o allow_other${opts:+,$opts}; then
		for _ in $(seq 600); do grep -q " $mnt " /proc/mounts && break; sleep 0.1; done
		grep -q " $mnt " /proc/mounts && have_fuse=1
	fi
fi
# the model: only the workloads it implements
model_wl=$("$stress" --list | awk -v want=",$workloads," 'NR > 1 && $3 == "yes" &&
	index(want, "," $1 ",") { printf "%s%s", n++ ? "," : "", $1 }')
echo "tmpfs: $tmpfs" >&2
[ $have_fuse = 1 ] && echo "rcuvfs: $mnt" >&2
[ -n "$model_wl" ] && echo "model: $model_wl" >&2
: >"$tmp/all"
[ -n "$csv_out" ] && : >"$csv_out"
for r in $(seq "$rounds"); do
	[ "$rounds" -gt 1 ] && echo "round $r of $rounds" >&2
	"$stress" --path "$tmpfs" "${common[@]}" --csv "$tmp/tmpfs.csv" >"$tmp/tmpfs.out" || rc=1
	if [ $have_fuse = 1 ]; then
		"$stress" --path "$mnt" "${common[@]}" --csv "$tmp/rcuvfs.csv" >"$tmp/rcuvfs.out" || rc=1
	fi
	if [ -n "$model_wl" ]; then
		"$stress" --model ${opts:+-o "$opts"} "${common[@]}" --workload "$model_wl" \
			--csv "$tmp/model.csv" >"$tmp/model.out" || rc=1
	fi
	[ $rc = 0 ] || { cat "$tmp"/*.out >&2; echo "compare: a run failed" >&2; break; }
	for t in tmpfs rcuvfs model; do
		[ -f "$tmp/$t.csv" ] && awk -F, -v t=$t -v r="$r" '/^#/ { next }
			!h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
			{ print r, t, $(c["workload"]), $(c["tasks"]), $(c["ops_per_sec"]) }' "$tmp/$t.csv"
		if [ -n "$csv_out" ] && [ -f "$tmp/$t.csv" ]; then cat "$tmp/$t.csv" >>"$csv_out"; fi
	done >>"$tmp/all"
	rm -f "$tmp"/*.csv
done
[ $have_fuse = 1 ] && it_unmount "$mnt"
# samples: ops/s of each target, and each round's ratios to tmpfs
awk '{ v[$1, $2, $3, $4] = $5; k[$3 " " $4] = 1; R[$1] = 1 }
	END { for (r in R) for (x in k) { split(x, p, " "); a = v[r, "tmpfs", p[1], p[2]]
		for (t = 1; t <= 3; t++) { n = t == 1 ? "tmpfs" : t == 2 ? "rcuvfs" : "model"
			b = v[r, n, p[1], p[2]]; if (b == "") continue
			print n, p[1], p[2], b
			if (t > 1 && a > 0) print n "/tmpfs", p[1], p[2], b / a } } }' "$tmp/all" |
	"$stress" --summarize >"$tmp/stats"

if [ "$rounds" -gt 1 ]; then
	echo "ops/s (median of $rounds rounds), $mode, $(nproc) CPUs, ${duration} s per run;" \
		"ratios: median of the rounds' ratios [min-max]"
else
	echo "ops/s, $mode, $(nproc) CPUs, ${duration} s per run"
fi
awk -v order="$workloads" -v tasklist="$tasks" -v rounds="$rounds" '
{ med[$1, $2, $3] = $5; lo[$1, $2, $3] = $6; hi[$1, $2, $3] = $7 }
function f(x) { return x == "" ? "-" : sprintf("%.0f", x) }
function r(t, w, n,   m) { m = med[t, w, n]; if (m == "") return "-"
	if (rounds < 2) return sprintf("%.3f", m)
	return sprintf("%.3f [%.3f-%.3f]", m, lo[t, w, n], hi[t, w, n]) }
END {
	wr = rounds > 1 ? 22 : 14
	printf "%-12s %5s %12s %12s %12s %*s %*s\n", "workload", "tasks", "tmpfs", "rcuvfs",
		"model", wr, "rcuvfs/tmpfs", wr, "model/tmpfs"
	n = split(order, w, ","); m = split(tasklist, ts, ",")
	for (i = 1; i <= n; i++)
		for (j = 1; j <= m; j++)
			printf "%-12s %5s %12s %12s %12s %*s %*s\n", w[i], ts[j],
				f(med["tmpfs", w[i], ts[j]]), f(med["rcuvfs", w[i], ts[j]]),
				f(med["model", w[i], ts[j]]), wr, r("rcuvfs/tmpfs", w[i], ts[j]),
				wr, r("model/tmpfs", w[i], ts[j])
}' "$tmp/stats"
exit $rc
