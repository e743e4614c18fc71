#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/stress/compare.sh - the same workloads against tmpfs, a fresh rcuvfs
# mount and the in-process model, in one run, with ratios to tmpfs.
#
# usage: tests/stress/compare.sh [--build DIR] [--workloads LIST] [--tasks LIST]
#        [--mode threads|processes] [--duration S] [--warmup S] [--tmpfs DIR]
#        [--csv FILE] [-o DAEMON_AND_MODEL_OPTS]
#
# A target is left out (column "-") when it cannot run: no daemon built or
# FUSE unusable (rcuvfs), or no model implementation of a workload yet.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${RCUVFS_BUILD:-$root/build}
workloads=fstat1,fstat2,flock1,flock2,lock1,lock2
tasks=1,2
mode=threads
duration=2
warmup=0.5
tmpfs=/dev/shm
csv_out=
opts=

while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--workloads) workloads=$2; shift 2 ;;
	--tasks) tasks=$2; shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	--duration) duration=$2; shift 2 ;;
	--warmup) warmup=$2; shift 2 ;;
	--tmpfs) tmpfs=$2; shift 2 ;;
	--csv) csv_out=$2; shift 2 ;;
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
	[ -n "$mnt" ] && grep -q " $mnt " /proc/mounts && fusermount3 -u "$mnt"
	[ -n "$mnt" ] && rmdir "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
common=(--workload "$workloads" --tasks "$tasks" --mode "$mode" --duration "$duration"
	--warmup "$warmup" --verify --quiet)
rc=0

echo "tmpfs: $tmpfs" >&2
"$stress" --path "$tmpfs" "${common[@]}" --csv "$tmp/tmpfs.csv" >"$tmp/tmpfs.out" || rc=1

if [ -x "$daemon" ] && [ -c /dev/fuse ]; then
	mnt=$(mktemp -d /tmp/rcuvfs-compare.XXXXXX)
	if "$daemon" "$mnt" -o allow_other${opts:+,$opts}; then
		for _ in $(seq 600); do grep -q " $mnt " /proc/mounts && break; sleep 0.1; done
		echo "rcuvfs: $mnt" >&2
		"$stress" --path "$mnt" "${common[@]}" --csv "$tmp/rcuvfs.csv" >"$tmp/rcuvfs.out" || rc=1
		fusermount3 -u "$mnt"
	fi
fi

# the model: only the workloads it implements
model_wl=$("$stress" --list | awk -v want=",$workloads," 'NR > 1 && $3 == "yes" &&
	index(want, "," $1 ",") { printf "%s%s", n++ ? "," : "", $1 }')
if [ -n "$model_wl" ]; then
	echo "model: $model_wl" >&2
	"$stress" --model ${opts:+-o "$opts"} "${common[@]}" --workload "$model_wl" \
		--csv "$tmp/model.csv" >"$tmp/model.out" || rc=1
fi
[ $rc = 0 ] || { cat "$tmp"/*.out >&2; echo "compare: a run failed" >&2; }

for t in tmpfs rcuvfs model; do
	[ -f "$tmp/$t.csv" ] && awk -F, -v t=$t '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
		{ print t, $(c["workload"]), $(c["tasks"]), $(c["ops_per_sec"]) }' "$tmp/$t.csv"
done >"$tmp/all"
if [ -n "$csv_out" ]; then
	for t in tmpfs rcuvfs model; do
		[ -f "$tmp/$t.csv" ] && cat "$tmp/$t.csv"
	done >"$csv_out"
fi

echo "ops/s, $mode, $(nproc) CPUs, ${duration} s per run"
awk -v order="$workloads" -v tasklist="$tasks" '
{ v[$1, $2, $3] = $4 }
function f(x) { return x == "" ? "-" : sprintf("%.0f", x) }
function r(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf("%.3f", a / b) }
END {
	printf "%-12s %5s %12s %12s %12s %14s %13s\n", "workload", "tasks", "tmpfs", "rcuvfs",
		"model", "rcuvfs/tmpfs", "model/tmpfs"
	n = split(order, w, ","); m = split(tasklist, ts, ",")
	for (i = 1; i <= n; i++)
		for (j = 1; j <= m; j++) {
			a = v["tmpfs", w[i], ts[j]]; b = v["rcuvfs", w[i], ts[j]]
			c = v["model", w[i], ts[j]]
			printf "%-12s %5s %12s %12s %12s %14s %13s\n", w[i], ts[j], f(a), f(b), f(c),
				r(b, a), r(c, a)
		}
}' "$tmp/all"
exit $rc
