#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/mmap-cycle-callgrind.sh - instructions per cycle inside
# vm_mmap and vm_munmap of the sheaves series' mmap test (rcuvfs-stress -w
# mmap-cycle: 5 one-page read-only file areas mapped, faulted in, unmapped,
# then a pause), for the baseline and each step of mmap-cycle.sh:
#   baseline  slab=slub (vma_lock=rwsem, vm_area_cache=rcu)
#   (1)       slab=sheaves
#   (2)       + vma_lock=refcnt, vm_area_cache=typesafe
#   (3)       + vm_area_cache=sheaves (kfree_rcu through sheaves)
#   (4)       vm_area_cache=typesafe-sheaves (6.18)
# Each configuration runs twice under valgrind --tool=callgrind, once with
# --toggle-collect=vm_mmap and once with vm_munmap; the totals are divided
# by the cycles.  Work deferred to RCU callbacks (VMAs freed after a grace
# period, kfree_rcu batches) runs on liburcu's thread and is not counted:
# the series timed the mmap calls alone too.  Instructions are not time:
# an atomic or a cache miss costs many cycles and counts one instruction.
#
# Usage: tests/bench/mmap-cycle-callgrind.sh [--build DIR] [--iters CYCLES]
#   DIR defaults to build, CYCLES to 2000 (about 1 minute on 2 cores); the
#   operands BUILD_DIR CYCLES of older command lines still work.
set -eu

bench_usage="usage: ${0##*/} [-b|--build DIR] [-n|--iters CYCLES]
vm_mmap and vm_munmap instructions per cycle under callgrind, per allocator step.
  -b, --build DIR     the build tree (default build)
  -n, --iters CYCLES  mmap+munmap cycles (default 2000)"
bench_takes=iters
BUILD=build ITERS=2000
. "$(dirname "$0")/args.sh"
bench_args "$@"
build=$BUILD
cycles=$ITERS
stress=$build/bin/rcuvfs-stress
if [ ! -x "$stress" ]; then
	echo "no $stress: build first" >&2
	exit 1
fi
command -v valgrind >/dev/null || { echo "valgrind not installed" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ir FUNCTION SWITCHES: instructions inside FUNCTION over the whole run
ir() {
	valgrind --tool=callgrind --toggle-collect="$1" --callgrind-out-file="$tmp/cg" \
		"$stress" --model -o "$2" -w mmap-cycle --tasks 1 --warmup 0 --quiet \
		-p cycles="$cycles",pause_us=500 >"$tmp/out" 2>"$tmp/err" ||
		{ cat "$tmp/err" "$tmp/out" >&2; exit 1; }
	sed -n 's/^summary: //p' "$tmp/cg"
}

echo "mmap-cycle under callgrind, $cycles cycles of 5 areas: instructions per cycle"
printf '%-36s %12s %8s %14s %8s\n' step vm_mmap change vm_munmap change
base_m= base_u=
for step in "baseline:slab=slub" \
	"(1) slab=sheaves:slab=sheaves" \
	"(2) + vma_lock=refcnt,typesafe:slab=sheaves,vma_lock=refcnt,vm_area_cache=typesafe" \
	"(3) + vm_area_cache=sheaves:slab=sheaves,vma_lock=refcnt,vm_area_cache=sheaves" \
	"(4) vm_area_cache=typesafe-sheaves:slab=sheaves,vma_lock=refcnt,vm_area_cache=typesafe-sheaves"; do
	name=${step%%:*} sw=${step#*:}
	m=$(ir vm_mmap "$sw")
	u=$(ir vm_munmap "$sw")
	[ -n "$base_m" ] || { base_m=$m base_u=$u; }
	awk -v n="$name" -v m="$m" -v u="$u" -v bm="$base_m" -v bu="$base_u" -v c="$cycles" 'BEGIN {
		printf "%-36s %12.0f %+7.1f%% %14.0f %+7.1f%%\n", n, m / c, (m - bm) * 100 / bm,
		       u / c, (u - bu) * 100 / bu }'
done
