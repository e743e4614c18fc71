#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/explore/midcheck-test.sh - the lock lists' invariants checked
# between the critical sections of a schedule catch a broken state that
# heals before the end.  With move_blocks=unfixed (locks_move_blocks as
# first merged for Linux 5.0) a granted request's waiters move to the new
# lock record but keep fl_blocker pointing at the finished request, until
# that record's unlock wakes them: at the end of every schedule the lists
# are right again.  The explorer must find it at K = 1 through the
# mid-schedule check, --end-checks-only must exhaust the same space
# without a failure (K = 2's 30,754 schedules too, docs/explore.md), the
# fixed design must pass the mid-schedule check, and the found id must
# replay to the same broken invariant.
#
# Usage: midcheck-test.sh PATH/TO/rcuvfs-explore
set -eu
x=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
s=posix-reblock

if "$x" --scenario $s -o move_blocks=unfixed --preemptions 1 --quiet --json "$tmp/mid.json" \
	>"$tmp/mid.out" 2>&1; then
	echo "FAIL: the mid-schedule check did not find the stale fl_blocker"; cat "$tmp/mid.out"
	exit 1
fi
grep -q '"reason": "at step [0-9]*, between critical sections: locks_check_live: waiter .* hangs under .* but fl_blocker is ' "$tmp/mid.json" ||
	{ echo "FAIL: not the stale fl_blocker"; cat "$tmp/mid.json"; exit 1; }
id=$(sed -n 's/.*"failing_schedule": "\([^"]*\)".*/\1/p' "$tmp/mid.json")
echo "found between critical sections: $id"
for k in 1; do
	"$x" --scenario $s -o move_blocks=unfixed --preemptions $k --end-checks-only --expect clean \
		--quiet --json "$tmp/end$k.json" >"$tmp/end$k.out" 2>&1 ||
		{ echo "FAIL: the end-of-schedule checks alone found something at K = $k"; cat "$tmp/end$k.json"; exit 1; }
	grep -q '"exhausted": true' "$tmp/end$k.json" ||
		{ echo "FAIL: K = $k not exhausted"; cat "$tmp/end$k.json"; exit 1; }
	echo "ok: with the end-of-schedule checks only, K = $k is exhausted clean"
done
"$x" --scenario $s -o move_blocks=fixed --preemptions 1 --expect clean --quiet >/dev/null 2>&1 ||
	{ echo "FAIL: the fixed design fails the mid-schedule check"; exit 1; }
if "$x" --replay "$id" >"$tmp/replay.out" 2>&1; then
	echo "FAIL: the replay of $id passed"; cat "$tmp/replay.out"; exit 1
fi
grep -q '^FAILED: at step [0-9]*, between critical sections: locks_check_live: waiter' "$tmp/replay.out" ||
	{ echo "FAIL: the replay did not break the invariant"; cat "$tmp/replay.out"; exit 1; }
grep -q 'stopped: invariant broken' "$tmp/replay.out" ||
	{ echo "FAIL: the replay's trace does not say where the tasks were"; exit 1; }
echo "ok: the fixed design is clean; $id replays to the same invariant"
