#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/smoke.sh [--fuse] REGEX... -- COMMAND [ARG...]: a benchmark's
# smoke run (CTest label "bench"): COMMAND, with tiny counts, must exit 0,
# every REGEX (grep -E) must match at least one line of its output, and no
# figure may be nan, inf or absurd (16 or more digits before the point: an
# unset "best" of 1e30).  It checks that the command still runs and prints
# its table, never what the figures are.  --fuse: the command mounts; exit
# 77 (skipped) without root, /dev/fuse or fusermount3, except in CI
# (CI=true), where that fails.
set -u
fuse=0
if [ "${1:-}" = --fuse ]; then
	fuse=1
	shift
fi
pats=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	pats+=("$1")
	shift
done
[ "${1:-}" = -- ] && [ $# -ge 2 ] || { echo "usage: smoke.sh [--fuse] REGEX... -- COMMAND [ARG...]" >&2; exit 2; }
shift
if [ $fuse = 1 ] && { [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ] || ! command -v fusermount3 >/dev/null; }; then
	if [ "${CI:-}" = true ]; then
		echo "FAIL: cannot mount in CI (CI=true): needs root, /dev/fuse and fusermount3"
		exit 1
	fi
	echo "SKIP: needs root, /dev/fuse and fusermount3"
	exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
rc=$?
cat "$out"
bad=0
if [ $rc != 0 ]; then
	echo "FAIL: $1 exited $rc"
	bad=1
fi
for p in "${pats[@]}"; do
	grep -Eq -- "$p" "$out" || { echo "FAIL: no line matches /$p/"; bad=1; }
done
if grep -Eiq '(^|[^a-z_])(-?nan|-?inf)([^a-z_]|$)|[0-9]{16,}' "$out"; then
	echo "FAIL: a figure is nan, inf or absurd:"
	grep -Ein '(^|[^a-z_])(-?nan|-?inf)([^a-z_]|$)|[0-9]{16,}' "$out" | head -5
	bad=1
fi
[ $bad = 0 ] && echo "smoke: ok"
exit $bad
