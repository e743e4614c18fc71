#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# mount-test.sh STRESS DAEMON: every --path workload of rcuvfs-stress, briefly
# and verified, at 1 and 2 tasks, threads and processes, against a real
# rcuvfs mount in a temporary directory.  Exit 77 (CTest: skipped) when the
# daemon is not built or FUSE is unusable here.
#
# If the daemon offers the test-only option test_skip_locks (its lock
# requests succeed without locking), a second mount checks that lock-verify
# with --test-race-window FAILS there: the verification works end to end.
set -u
stress=$1
daemon=$2
[ -x "$daemon" ] || { echo "skip: $daemon not built"; exit 77; }
[ -c /dev/fuse ] || { echo "skip: no /dev/fuse"; exit 77; }
command -v fusermount3 >/dev/null || { echo "skip: no fusermount3"; exit 77; }

mnt=$(mktemp -d /tmp/rcuvfs-stress-mnt.XXXXXX)
mounted=0
cleanup() {
	[ "$mounted" = 1 ] && fusermount3 -u "$mnt" 2>/dev/null
	rmdir "$mnt" 2>/dev/null
}
trap cleanup EXIT

mount_it() { # options...
	"$daemon" "$mnt" -o allow_other "$@" || return 1
	for _ in $(seq 600); do
		if grep -q " $mnt " /proc/mounts; then mounted=1; return 0; fi
		sleep 0.1
	done
	echo "mount-test: $mnt not mounted after 10 s" >&2
	return 1
}
umount_it() {
	fusermount3 -u "$mnt" && mounted=0
}

if ! mount_it; then
	echo "skip: cannot mount rcuvfs here"
	exit 77
fi
rc=0
for mode in threads processes; do
	"$stress" --path "$mnt" --workload all --mode "$mode" --tasks 1,2 \
		--duration 0.2 --warmup 0.05 --verify --quiet --timeout 60 || rc=1
done
umount_it || rc=1

if [ $rc = 0 ] && "$daemon" --help 2>&1 | grep -q test_skip_locks; then
	mount_it -o test_skip_locks || exit 1
	out=$("$stress" --path "$mnt" --workload lock-verify --mode processes --tasks 2 \
		--duration 0.1 --warmup 0 --verify --quiet --timeout 60 --test-race-window 2>&1)
	st=$?
	echo "$out"
	if [ $st -ne 1 ] || ! grep -q "verification failed" <<<"$out"; then
		echo "mount-test: lock-verify passed on a daemon that skips locks" >&2
		rc=1
	fi
	umount_it || rc=1
else
	echo "note: daemon has no test_skip_locks option; end-to-end verification check skipped"
fi
exit $rc
