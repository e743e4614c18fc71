#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# mount-test.sh STRESS DAEMON TEST_DAEMON: every --path workload of rcuvfs-stress, briefly
# and verified, at 1 and 2 tasks, threads and processes, against a real
# rcuvfs mount in a temporary directory.  The daemon runs in the foreground
# (tests/integration/lib.sh): at unmount it must exit 0 (no leaked model
# objects) with no leak or sanitizer report in its log.  Exit 77 (CTest:
# skipped) when the daemon is not built or FUSE is unusable here; in CI
# (CI=true) that is a failure instead.
#
# A second mount, of the daemon's test build TEST_DAEMON (the production
# daemon has no such option), with the test-only option test_skip_locks
# (its lock requests succeed without locking), checks that lock-verify,
# flock2, ofd2 and lock2 with --test-race-window FAIL there: the
# verification works end to end, for every lock kind.
stress=$1
daemon=$2
test_daemon=${3:-}
BIN=$(dirname "$daemon")
. "$(dirname "$0")/../integration/lib.sh"
[ -x "$daemon" ] || it_skip "$daemon not built"
it_setup

mount_rcuvfs mnt -o allow_other || it_finish
for mode in threads processes; do
	if "$stress" --path "$MNT" --workload all --mode "$mode" --tasks 1,2 \
		--duration 0.2 --warmup 0.05 --verify --quiet --timeout 60; then
		pass "every --path workload, $mode, verified"
	else
		fail "rcuvfs-stress --path, $mode"
	fi
done
unmount_rcuvfs "$MNT" "$PID" && pass "unmount, daemon exit 0, no leak report"

if "$daemon" --help 2>&1 | grep -q test_skip_locks; then
	fail "the production daemon offers the test-only option test_skip_locks"
fi
if [ -x "$test_daemon" ] && "$test_daemon" --help 2>&1 | grep -q test_skip_locks; then
	IT_DAEMON=$test_daemon mount_rcuvfs skip -o allow_other,test_skip_locks || it_finish
	out=$("$stress" --path "$MNT" --workload lock-verify --mode processes --tasks 2 \
		--duration 0.1 --warmup 0 --verify --quiet --timeout 60 --test-race-window 2>&1)
	st=$?
	echo "$out"
	if [ $st -ne 1 ] || ! grep -q "verification failed" <<<"$out"; then
		fail "lock-verify passed on a daemon that skips locks"
	else
		pass "lock-verify fails on a daemon that skips locks"
	fi
	# the exclusion checks, every lock kind (lock2: processes only)
	for wm in flock2:threads flock2:processes ofd2:threads ofd2:processes lock2:processes; do
		out=$("$stress" --path "$MNT" --workload "${wm%%:*}" --mode "${wm#*:}" --tasks 2 \
			--duration 0.1 --warmup 0 --verify --quiet --timeout 60 --test-race-window 2>&1)
		st=$?
		if [ $st -ne 1 ] || ! grep -q "granted while task [01] holds the lock" <<<"$out"; then
			echo "$out"
			fail "${wm%%:*} (${wm#*:}) passed its exclusion check on a daemon that skips locks"
		else
			pass "${wm%%:*} (${wm#*:}) fails its exclusion check on a daemon that skips locks"
		fi
	done
	unmount_rcuvfs "$MNT" "$PID" && pass "unmount (test_skip_locks), daemon exit 0"
else
	fail "no test build of the daemon with test_skip_locks ($test_daemon): the end-to-end check cannot run"
fi
it_finish
