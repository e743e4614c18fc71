#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/explore/replay-test.sh - the explorer finds the fget race of the
# design without the slot reload, prints a schedule id, and --replay of that
# id fails the same way twice with the same trace (schedules replay exactly).
# Then the same for a fault through a reused SLAB_TYPESAFE_BY_RCU VMA
# (vma-reuse without lock_vma_under_rcu's range check): the replay shows
# the fault parked at lock_vma_under_rcu across T1's munmap and mmaps, and
# the design with the check reads the file's byte in the same schedule.
#
# Usage: replay-test.sh PATH/TO/rcuvfs-explore
set -eu
x=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if "$x" --scenario fget-reopen -o fget=norecheck --preemptions 2 --json "$tmp/rows.json" \
	>"$tmp/explore.out" 2>&1; then
	echo "FAIL: the explorer did not find the fget race without the reload"; cat "$tmp/explore.out"
	exit 1
fi
id=$(sed -n 's/.*"failing_schedule": "\([^"]*\)".*/\1/p' "$tmp/rows.json")
[ -n "$id" ] || { echo "FAIL: no schedule id in the JSON"; cat "$tmp/rows.json"; exit 1; }
echo "found: $id"
for i in 1 2; do
	if "$x" --replay "$id" >"$tmp/replay$i.out" 2>&1; then
		echo "FAIL: replay $i of $id passed"; cat "$tmp/replay$i.out"; exit 1
	fi
done
grep -q '^FAILED: not linearizable: T0.fget(0)=B' "$tmp/replay1.out" ||
	{ echo "FAIL: replay did not show fget returning B"; cat "$tmp/replay1.out"; exit 1; }
grep -q 'fget_after_load' "$tmp/replay1.out" ||
	{ echo "FAIL: the trace does not show the preemption after the slot load"; exit 1; }
cmp -s "$tmp/replay1.out" "$tmp/replay2.out" ||
	{ echo "FAIL: two replays differ"; diff "$tmp/replay1.out" "$tmp/replay2.out"; exit 1; }
# the fixed design passes the same schedule
fixed=$(echo "$id" | sed 's/fget=norecheck/fget=inline/')
"$x" --replay "$fixed" >"$tmp/fixed.out" 2>&1 ||
	{ echo "FAIL: the fixed design fails $fixed"; cat "$tmp/fixed.out"; exit 1; }
echo "ok: replays of $id fail identically; $fixed passes"

vr='vma_lock=refcnt,vm_area_cache=typesafe'
if "$x" --scenario vma-reuse -o "$vr,recheck=no" --preemptions 2 --json "$tmp/vr.json" \
	>"$tmp/vr.out" 2>&1; then
	echo "FAIL: the explorer did not find the fault through the reused VMA"; cat "$tmp/vr.out"
	exit 1
fi
id=$(sed -n 's/.*"failing_schedule": "\([^"]*\)".*/\1/p' "$tmp/vr.json")
[ -n "$id" ] || { echo "FAIL: no vma-reuse schedule id"; cat "$tmp/vr.json"; exit 1; }
if "$x" --replay "$id" >"$tmp/vr1.out" 2>&1; then
	echo "FAIL: replay of $id passed"; cat "$tmp/vr1.out"; exit 1
fi
grep -q '^FAILED: X maps the file now but reads 0x00, not 0x40' "$tmp/vr1.out" ||
	{ echo "FAIL: replay of $id: not the wrong-VMA fault"; cat "$tmp/vr1.out"; exit 1; }
# T0 is parked at lock_vma_under_rcu while T1 runs its three operations
awk '/T0   inject lock_vma_under_rcu/ { p = 1 } p && /T1   op mmap\(X, file\)/ { q = 1 }
     q && /T0   point vma_start_read: referenced/ { ok = 1 } END { exit !ok }' "$tmp/vr1.out" ||
	{ echo "FAIL: the trace does not show the fault parked across the reuse"; cat "$tmp/vr1.out"; exit 1; }
fixed=$(echo "$id" | sed 's/,recheck=no//')
"$x" --replay "$fixed" >"$tmp/vrfixed.out" 2>&1 ||
	{ echo "FAIL: the design with the check fails $fixed"; cat "$tmp/vrfixed.out"; exit 1; }
grep -q 'T0.read(X)=64 ' "$tmp/vrfixed.out" ||
	{ echo "FAIL: with the check, T0 does not read the file's byte in $fixed"; cat "$tmp/vrfixed.out"; exit 1; }
echo "ok: $id replays the wrong-VMA fault; $fixed reads the file"
