#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/unit/watchdog-test.sh - the unit harness's watchdog turns a hang
# into a failure with a report.  Runs each suite of rvtest_deadlock (tests
# that hang on purpose) with RVTEST_STALL=1 under a bound far below
# CTest's: each must exit 1 (not be killed by the bound) and print, for
# each task, the wait it is stuck in, the code that waits and a stack.
# The control suite, whose waiter is woken after twice the stall time,
# must pass: a long wait that ends is not a hang.
#
# Usage: watchdog-test.sh PATH/TO/rvtest_deadlock
set -u
prog=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

fail() { echo "FAIL: $*"; status=1; }

start() { # suite bound-seconds: in the background, the status into $tmp/suite.rc
	(RVTEST_STALL=1 timeout -s KILL "$2" "$prog" "$1" >"$tmp/$1.out" 2>"$tmp/$1.err"
	 echo $? >"$tmp/$1.rc") &
}

expect() { # suite pattern...
	s=$1
	shift
	for p in "$@"; do
		grep -q -e "$p" "$tmp/$s.err" || fail "$s: no '$p' in the report"
	done
}

# all four at once (each waits, mostly)
start abba 60
start sem 60
start lostwake 90
start control 60
wait

rc=$(cat "$tmp/abba.rc")
[ "$rc" = 1 ] || fail "abba: exit $rc, expected 1 from the watchdog (137: killed by the bound)"
expect abba "rvtest: watchdog: abba test_abba" "every task on a thread waited" \
	'task [0-9]* "abba_a": down_write rw_semaphore .* (held for write)' \
	'task [0-9]* "abba_b": down_write rw_semaphore .* (held for write)' \
	'task [0-9]* "abba_main": pthread_join' \
	'at abba_thread rvtest_deadlock.c:' '#0 ' 'the test hangs: failed'

rc=$(cat "$tmp/sem.rc")
[ "$rc" = 1 ] || fail "sem: exit $rc, expected 1"
expect sem '"sem_waiter": down semaphore .* (count 0)' 'at sem_thread rvtest_deadlock.c:' \
	'"sem_main": pthread_join'

# the slower rule: the poller runs, so 12 x RVTEST_STALL
rc=$(cat "$tmp/lostwake.rc")
[ "$rc" = 1 ] || fail "lostwake: exit $rc, expected 1"
expect lostwake "while tasks waited" '"sleeper": schedule on ' \
	'at lostwake_thread rvtest_deadlock.c:' '"poller": running, not in a model wait'

rc=$(cat "$tmp/control.rc")
[ "$rc" = 0 ] || fail "control: exit $rc, expected 0 (the watchdog fired on a wait that ends?)"
grep -q "watchdog" "$tmp/control.err" && fail "control: the watchdog reported"

if [ $status != 0 ]; then
	for f in "$tmp"/*.err; do
		echo "--- $f"
		cat "$f"
	done
else
	echo "watchdog: the three hangs fail with their reports, the control passes"
	sed -n '/watchdog/,$p' "$tmp/abba.err"
fi
exit $status
