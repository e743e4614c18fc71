#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# man-test.sh SRC BUILD: the man pages (docs/man/*.scd, built into
# BUILD/man by scdoc) render with man, and each documents every option its
# tool's --help lists (long options; for rcuvfs the -o options of its own),
# so a new option without a man entry fails here.  Skipped (77) without scdoc.
set -u
src=$1 build=$2
[ -d "$build/man" ] || { echo "SKIP: scdoc not installed, no man pages built"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
for page in rcuvfs rcuvfs-stress rcuvfs-plot rcuvfs-explore rcuvfs-sim; do
	[ -s "$build/man/$page.1" ] || { bad "$page.1 not built"; continue; }
	if command -v man >/dev/null; then
		man -l "$build/man/$page.1" 2>/dev/null | grep -q "^NAME" || bad "$page.1 does not render"
	fi
done
check() { # PAGE OPTIONS...: each option must appear in PAGE's source
	page=$1
	shift
	for o in "$@"; do
		grep -qF -- "$o" "$src/docs/man/$page.1.scd" || bad "$page(1) does not document $o"
	done
}
opts() { grep -o -- '--[a-z][a-z-]*' | sort -u; }
check rcuvfs-stress $("$build/bin/rcuvfs-stress" --help | opts)
check rcuvfs-plot $("$build/bin/rcuvfs-plot" --help | opts)
[ -x "$build/bin/rcuvfs-explore" ] && check rcuvfs-explore $("$build/bin/rcuvfs-explore" --help 2>&1 | opts)
[ -x "$build/bin/rcuvfs-sim" ] && check rcuvfs-sim $("$build/bin/rcuvfs-sim" --help 2>&1 | opts)
if [ -x "$build/bin/rcuvfs" ]; then
	check rcuvfs $("$build/bin/rcuvfs" --help 2>&1 | sed -n '/^rcuvfs options/,/^$/p' |
		sed -n 's/^ *-o \([a-z_]*\).*/\1/p' | grep -v '^test_')
fi
[ $fail = 0 ] && echo "man pages: ok"
exit $fail
