#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# expect-fail.sh STATUS REGEX COMMAND...: pass when COMMAND exits with STATUS
# and its output (stdout+stderr) matches the extended REGEX.  Used to test
# that rcuvfs-stress's verification catches a broken lock.
want=$1 re=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne "$want" ]; then
	echo "expect-fail: exit status $rc, expected $want" >&2
	exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
	echo "expect-fail: output does not match /$re/" >&2
	exit 1
fi
echo "expect-fail: failed as expected (status $rc)"
