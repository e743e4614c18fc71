#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/explore/selftest.sh - the bounded-preemption search enumerates
# exactly the schedules it should.  selftest-counter's tasks run, each,
# "start -> op point -> (load; point; store) -> end": with lock=atomic two
# segments per task, with lock=none three.  Counted independently (every
# interleaving of the two tasks' segments, a preemption being a switch
# away from a task with segments left, the first choice free): two
# 2-segment tasks give 2, 4, 6, 6 schedules at K = 0..3; two 3-segment
# tasks 2, 6, 14, 18, 20 at K = 0..4, of which 0, 2, 6, 10, 12 lose an
# update (both loads before either store).  Then PCT must find the lost
# update and its id must replay it.
#
# Usage: selftest.sh PATH/TO/rcuvfs-explore
set -eu
x=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

field() { sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" "$tmp/row.json"; }

check() { # lock K schedules failures
	"$x" --scenario selftest-counter -o lock="$1" --preemptions "$2" --keep-going --quiet \
		--json "$tmp/row.json" >/dev/null 2>&1 || true
	s=$(field schedules)
	f=$(field failures)
	if [ "$s" != "$3" ] || [ "$f" != "$4" ]; then
		echo "FAIL: lock=$1 K=$2: $s schedules, $f failing (expected $3, $4)"
		status=1
	else
		echo "ok: lock=$1 K=$2: $s schedules, $f failing"
	fi
}

check atomic 0 2 0
check atomic 1 4 0
check atomic 2 6 0
check atomic 3 6 0
check none 0 2 0
check none 1 6 2
check none 2 14 6
check none 3 18 10
check none 4 20 12
# PCT with one change point finds the lost update within 50 seeded schedules
# (6 of the 14 schedules with at most two switches lose it), and replays it
"$x" --scenario selftest-counter -o lock=none --pct 1 --schedules 50 --seed 1 --quiet \
	--json "$tmp/row.json" >/dev/null 2>&1 || true
id=$(sed -n 's/.*"failing_schedule": "\([^"]*\)".*/\1/p' "$tmp/row.json")
if [ -z "$id" ]; then
	echo "FAIL: PCT did not find the lost update"; status=1
elif "$x" --replay "$id" >/dev/null 2>&1; then
	echo "FAIL: PCT's schedule $id does not replay the failure"; status=1
else
	echo "ok: PCT found $id, which replays"
fi
# a combination of model switches no kernel had is refused (exit 2),
# naming both switches, before any schedule runs
rc=0
"$x" --scenario selftest-counter -o vm_area_cache=typesafe >"$tmp/combo.out" 2>&1 || rc=$?
if [ $rc != 2 ] || ! grep -q 'vm_area_cache=typesafe needs vma_lock=refcnt' "$tmp/combo.out"; then
	echo "FAIL: vm_area_cache=typesafe without vma_lock=refcnt: exit $rc: $(cat "$tmp/combo.out")"
	status=1
else
	echo "ok: vm_area_cache=typesafe without vma_lock=refcnt refused"
fi
exit $status
