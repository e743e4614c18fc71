#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# wis-compat.sh STRESS LOCKCOUNT.so DIR: rcuvfs-stress counts and locks as
# will-it-scale does.  For each lock workload with a will-it-scale namesake
# (lock1, lock2, flock1, flock2; and ofd2, counted the same way), a fixed
# amount of work runs under an LD_PRELOAD library that counts the lock
# system calls from outside; the "ops" rcuvfs-stress reports must equal the
# number of lock calls (one per fcntl/flock call, so 2 per lock+unlock
# pair), and every fcntl lock must be of byte 0 (l_start 0, l_len 1).
# Deterministic: fixed work (--ops-per-task), no timing.
set -eu
stress=$1 lib=$2 dir=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
pairs=500
for wl in lock1 lock2 ofd2 flock1 flock2; do
	: >"$tmp/count"
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
	RCUVFS_LOCKCOUNT_OUT="$tmp/count" LD_PRELOAD="$lib" \
		"$stress" --path "$dir" --workload "$wl" --tasks 2 --ops-per-task $pairs \
		--quiet --json "$tmp/out.json" >/dev/null
	ops=$(grep -o '"ops": [0-9]*' "$tmp/out.json" | head -1 | sed 's/.*: //')
	line=$(tail -1 "$tmp/count")
	set -- $line
	fcntl=$2 byte0=$4 other=$6 flocks=$8
	case $wl in flock*) calls=$flocks ;; *) calls=$fcntl ;; esac
	echo "$wl: rcuvfs-stress ops $ops; lock calls $calls (fcntl $fcntl, of byte 0 $byte0, other ranges $other; flock $flocks)"
	want=$((2 * 2 * pairs)) # 2 tasks x pairs x 2 calls
	[ "$calls" = "$want" ] || { echo "  FAIL: expected $want lock calls"; fail=1; }
	[ "$ops" = "$calls" ] || { echo "  FAIL: ops ($ops) != lock calls ($calls): not will-it-scale's counting"; fail=1; }
	case $wl in flock*) ;; *)
		[ "$other" = 0 ] || { echo "  FAIL: $other fcntl locks not of byte 0 (will-it-scale locks l_start 0, l_len 1)"; fail=1; } ;;
	esac
done
[ $fail = 0 ] && echo "will-it-scale counting and ranges: ok"
exit $fail
