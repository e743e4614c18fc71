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
# SEEDS is a list of items: a seed, A-B for the seeds A..B, fresh:N for N
# seeds from the clock (printed), and SEED:LIST, which replays only the
# calls in LIST of that seed up to its last (the others are drawn, not made:
# RCUVFS_FUZZ_KEEP); "cases" stands for the reproducers in tests/fuzz/cases
# (sequences minimise.sh cut from runs that differed, kept as regressions).
BIN=$1 SEEDS=$2 OPS=$3 PROCS=$4
. "$(dirname "$0")/../integration/lib.sh"
it_setup
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# the compared runs leave out the differences docs/robustness.md lists
export RCUVFS_FUZZ_DIFF=1

# expand the items: fresh:N, A-B, cases
list=
for item in $SEEDS; do
	case "$item" in
	fresh:*)
		fresh=
		for ((i = 0; i < ${item#fresh:}; i++)); do fresh="$fresh $(( $(date +%s%N) % 1000000007 + i))"; done
		echo "fresh seeds:$fresh"
		list="$list$fresh"
		;;
	cases) list="$list $(sed 's/#.*//' "$(dirname "$0")/cases" | tr -s ' \t\n' ' ')" ;;
	*:*) list="$list $item" ;;
	*-*) list="$list $(seq -s ' ' "${item%-*}" "${item#*-}")" ;;
	*) list="$list $item" ;;
	esac
done
SEEDS=$list

mount_tmpfs tmpfs 64m && T=$MNT
IT_KEEP_ROOT_MODE=1 mount_rcuvfs rcuvfs -o allow_other,size=64m && R=$MNT && RPID=$PID
chmod 755 "$R"
total=0
for item in $SEEDS; do
	seed=${item%%:*} keep= ops=$OPS what="$OPS calls"
	if [ "$item" != "$seed" ]; then
		keep=${item#*:} ops=$((${keep##*[,-]} + 1))
		what="calls $keep"
	fi
	mkdir "$T/s$seed" "$R/s$seed" || { fail "mkdir for seed $seed"; continue; }
	RCUVFS_FUZZ_KEEP=$keep "$TBIN/rcuvfs-fuzz" "$T/s$seed" "$seed" "$ops" >"$IT_TMP/$seed.tmpfs" 2>&1 </dev/null ||
		fail "seed $seed: rcuvfs-fuzz on tmpfs exited $?"
	RCUVFS_FUZZ_KEEP=$keep "$TBIN/rcuvfs-fuzz" "$R/s$seed" "$seed" "$ops" >"$IT_TMP/$seed.rcuvfs" 2>&1 </dev/null ||
		fail "seed $seed: rcuvfs-fuzz on rcuvfs exited $? (log: $(tail -3 "$IT_TMP/$seed.rcuvfs"))"
	rm -rf "$T/s$seed" "$R/s$seed"
	n=$(grep -c . "$IT_TMP/$seed.tmpfs")
	if [ "$n" != "$(echo "${keep:-0-$((ops - 1))}" | tr , '\n' |
		awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n }')" ]; then
		fail "seed $seed: $n lines in the log of the run on tmpfs, not one a call"
	elif cmp -s "$IT_TMP/$seed.tmpfs" "$IT_TMP/$seed.rcuvfs"; then
		pass "seed $seed: $what, rcuvfs answers as tmpfs"
	else
		first=$(diff "$IT_TMP/$seed.tmpfs" "$IT_TMP/$seed.rcuvfs" | head -1 | sed 's/[^0-9].*//')
		fail "seed $seed: rcuvfs differs from tmpfs at call $(sed -n "${first}s/ .*//p" "$IT_TMP/$seed.rcuvfs"); the calls up to it (tmpfs, then rcuvfs; minimise.sh cuts them down):"
		head -n "$first" "$IT_TMP/$seed.tmpfs" | tail -8
		sed -n "${first}p" "$IT_TMP/$seed.rcuvfs"
	fi
	total=$((total + n))
	if ! stat "$R" >/dev/null 2>&1; then
		fail "seed $seed: the mount no longer answers (daemon: $(tail -5 "$IT_TMP/rcuvfs.log"))"
		break
	fi
done
set -- $SEEDS; first=${1%%:*}; first=${first:-1}
mkdir -p "$R/race" && "$TBIN/rcuvfs-fuzz" "$R/race" "$first" "$OPS" "$PROCS" &&
	pass "$PROCS processes racing, seeds $first..$((first + PROCS - 1)), $OPS calls each: no crash, ENOTCONN or hang" ||
	fail "$PROCS racing processes (seeds $first..$((first + PROCS - 1)))"
echo "calls compared: $total"
unmount_rcuvfs "$R" "$RPID" && pass "unmount: daemon exited 0, nothing in its log"
it_finish
