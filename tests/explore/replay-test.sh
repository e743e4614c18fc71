#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/explore/replay-test.sh - the explorer finds the fget race of the
# design without the slot reload, prints a schedule id, and --replay of that
# id fails the same way twice with the same trace (schedules replay exactly).
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
