#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/mmap-cycle.sh - the sheaves series' mmap test in the model,
# beside the series' figures: one task maps 5 one-page read-only file areas,
# faults them in, unmaps them, pauses (rcuvfs-stress -w mmap-cycle), for the
# baseline and each step; prints the time inside vm_mmap (the series'
# figure) and vm_munmap, and their change against the baseline.
#
#   tests/bench/mmap-cycle.sh [--stress PATH] [--iters N] [--pause-us US] [--csv FILE]
# (-n is --iters, the cycles per step; --cycles is its older name)
#
# --csv FILE also writes the measured rows for rcuvfs-plot (ratio bars of
# every step against the baseline): metadata as "# key: value" lines, then
# workload,tasks,sweep,value with workload mmap_us / munmap_us (the model's
# time in the calls) and seed_little / seed_medium / seed_big (the series'
# figures, the baseline as 100), sweep the step ("baseline", "(1)", ...).
#
# Steps: baseline slab=slub (vma_lock=rwsem, vm_area_cache=rcu: 6.4-6.14's
# per-VMA rw_semaphore from its own cache, VMAs freed after a grace
# period); (1) slab=sheaves (the VMA tree's nodes through sheaves); (2) +
# vma_lock=refcnt, vm_area_cache=typesafe (6.15's vm_refcnt, a
# SLAB_TYPESAFE_BY_RCU vm_area cache); (3) + vm_area_cache=sheaves (the
# series' test: the vm_area cache through sheaves with kfree_rcu instead of
# typesafe); and, beside the seed, (4) vm_area_cache=typesafe-sheaves, what
# mainline 6.18 has (both).
set -eu
stress=${STRESS:-build/bin/rcuvfs-stress}
cycles=20000
pause=500
csv=
while [ $# -gt 0 ]; do
	case $1 in --stress | -n | --iters | --cycles | --pause-us | --csv) [ $# -ge 2 ] ||
		{ echo "mmap-cycle: option $1 needs a value (try --help)" >&2; exit 2; } ;; esac
	case $1 in
	--stress) stress=$2; shift 2 ;;
	-n | --iters | --cycles) cycles=$2; shift 2 ;;
	--pause-us) pause=$2; shift 2 ;;
	--csv) csv=$2; shift 2 ;;
	-h|--help) sed -n '3,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "mmap-cycle: unknown option $1 (try --help)" >&2; exit 2 ;;
	esac
done
if [ -n "$csv" ]; then
	# opened first: a bad path fails before the runs
	: >"$csv" || exit 2
	{
		echo "# tool: tests/bench/mmap-cycle.sh"
		echo "# version: $("$stress" --version | sed 's/^rcuvfs-stress //')"
		echo "# kernel: $(uname -r)"
		echo "# cpu_model: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
		echo "# cpus_used: 1"
		echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "# command: $0 --iters $cycles --pause-us $pause"
		echo "# value: time relative to the baseline (lower is faster)"
		echo "workload,tasks,sweep,value"
	} >>"$csv"
fi

# one run: prints "mmap_ns munmap_ns alloc_fast alloc_slow rcu_callbacks"
run() {
	out=$("$stress" --model "$@" -w mmap-cycle --tasks 1 --warmup 0 --verify --quiet \
		-p cycles="$cycles",pause_us="$pause" 2>&1) || {
		echo "$out" >&2
		echo "mmap-cycle.sh: rcuvfs-stress failed ($*)" >&2
		exit 1
	}
	get() { echo "$out" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
	echo "$(get mmap_cycle_mmap_ns) $(get mmap_cycle_munmap_ns) $(get slab_alloc_fastpath)" \
	     "$(get slab_alloc_slowpath) $(get rcu_callbacks_queued)"
}

base=$(run -o slab=slub)
step1=$(run -o slab=sheaves)
step2=$(run -o slab=sheaves,vma_lock=refcnt,vm_area_cache=typesafe)
step3=$(run -o slab=sheaves,vma_lock=refcnt,vm_area_cache=sheaves)
step4=$(run -o slab=sheaves,vma_lock=refcnt,vm_area_cache=typesafe-sheaves)
echo "mmap-cycle: $cycles cycles of 5 one-page file areas, ${pause} us pause, 1 task"
printf '%-34s %10s %8s %10s %8s %10s %10s %8s   %s\n' step mmap_us change munmap_us change \
	alloc_fast alloc_slow rcu_cbs "seed (little/medium/big core)"
row() {
	name=$1 vals=$2 seed=$3
	set -- $vals
	set -- $base "$@"
	awk -v n="$name" -v s="$seed" -v bm="$1" -v bu="$2" -v m="$6" -v u="$7" -v af="$8" \
	    -v as="$9" -v rc="${10}" 'BEGIN {
		printf "%-34s %10.0f %+7.1f%% %10.0f %+7.1f%% %10d %10d %8d   %s\n", n, m / 1000,
		       (m - bm) * 100 / bm, u / 1000, (u - bu) * 100 / bu, af, as, rc, s }'
	[ -z "$csv" ] && return 0
	# the step's first word ("baseline", "(1)"); the seed's "-12.8% / ..." as 87.2 ...
	awk -v n="${name%% *}" -v s="$seed" -v m="$6" -v u="$7" 'BEGIN {
		printf "mmap_us,1,%s,%.1f\nmunmap_us,1,%s,%.1f\n", n, m / 1000, n, u / 1000
		k = split(s, p, "/"); split("little medium big", core, " ")
		# a step the seed did not measure gets no seed bars
		for (i = 1; i <= 3 && (k == 3 || n == "baseline"); i++) {
			v = (k == 3) ? p[i] : "0"; gsub(/[ %+]/, "", v)
			printf "seed_%s,1,%s,%.1f\n", core[i], n, 100 + v
		}
	}' >>"$csv"
}
row "baseline (slab=slub)" "$base" "-"
row "(1) sheaves for tree nodes" "$step1" "-12.8% / -32.8% / -17.8%"
row "(2) + vma_lock=refcnt,typesafe" "$step2" "-32.2% / -79.9% / -90.9%"
row "(3) + vm_area_cache=sheaves" "$step3" "-37.0% / -78.8% / -92.7%"
row "(4) vm_area_cache=typesafe-sheaves" "$step4" "- (not measured; mainline 6.18)"
