#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/fuzz/fuzz.sh BIN_DIR SEEDS OPS PROCS: rcuvfs-fuzz against tmpfs and
# against an rcuvfs mount.
#  - for each seed, one process on a fresh directory of each: the two logs of
#    calls and answers must be the same line for line (the first difference
#    is printed with the calls before it: seed and a reproducer);
#  - then PROCS processes on one directory of the mount, racing: no crash,
#    no ENOTCONN, no call blocked beyond the driver's bound;
#  - the daemon must exit 0 at unmount with nothing in its log (leaks,
#    sanitizer reports: the build's daemon is the ASan+UBSan one there).
# SEEDS is a list ("1 2 3") or "fresh:N" for N seeds from the clock, printed.
BIN=$1 SEEDS=$2 OPS=$3 PROCS=$4
. "$(dirname "$0")/../integration/lib.sh"
it_setup
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# the compared runs leave out the differences docs/robustness.md lists
export RCUVFS_FUZZ_DIFF=1

case "$SEEDS" in
fresh:*)
	n=${SEEDS#fresh:} SEEDS=
	for ((i = 0; i < n; i++)); do SEEDS="$SEEDS $(( $(date +%s%N) % 1000000007 + i))"; done
	echo "seeds:$SEEDS"
	;;
esac

mount_tmpfs tmpfs 64m && T=$MNT
IT_KEEP_ROOT_MODE=1 mount_rcuvfs rcuvfs -o allow_other,size=64m && R=$MNT && RPID=$PID
chmod 755 "$R"
total=0
for seed in $SEEDS; do
	mkdir "$T/s$seed" "$R/s$seed" || { fail "mkdir for seed $seed"; continue; }
	"$BIN/rcuvfs-fuzz" "$T/s$seed" "$seed" "$OPS" >"$IT_TMP/$seed.tmpfs" 2>&1 ||
		fail "seed $seed: rcuvfs-fuzz on tmpfs exited $?"
	"$BIN/rcuvfs-fuzz" "$R/s$seed" "$seed" "$OPS" >"$IT_TMP/$seed.rcuvfs" 2>&1 ||
		fail "seed $seed: rcuvfs-fuzz on rcuvfs exited $? (log: $(tail -3 "$IT_TMP/$seed.rcuvfs"))"
	if cmp -s "$IT_TMP/$seed.tmpfs" "$IT_TMP/$seed.rcuvfs"; then
		pass "seed $seed: $OPS calls, rcuvfs answers as tmpfs"
	else
		first=$(diff "$IT_TMP/$seed.tmpfs" "$IT_TMP/$seed.rcuvfs" | head -1 | sed 's/[^0-9].*//')
		fail "seed $seed: rcuvfs differs from tmpfs at call $first; the calls up to it (tmpfs, then rcuvfs):"
		head -n "$first" "$IT_TMP/$seed.tmpfs" | tail -8
		sed -n "${first}p" "$IT_TMP/$seed.rcuvfs"
	fi
	total=$((total + OPS))
	if ! stat "$R" >/dev/null 2>&1; then
		fail "seed $seed: the mount no longer answers (daemon: $(tail -5 "$IT_TMP/rcuvfs.log"))"
		break
	fi
done
set -- $SEEDS; first=${1:-1}
mkdir -p "$R/race" && "$BIN/rcuvfs-fuzz" "$R/race" "$first" "$OPS" "$PROCS" &&
	pass "$PROCS processes racing, seeds $first..$((first + PROCS - 1)), $OPS calls each: no crash, ENOTCONN or hang" ||
	fail "$PROCS racing processes (seeds $first..$((first + PROCS - 1)))"
echo "calls compared: $total"
unmount_rcuvfs "$R" "$RPID" && pass "unmount: daemon exited 0, nothing in its log"
it_finish
