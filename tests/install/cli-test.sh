#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/install/cli-test.sh BIN PROGRAM...: the command-line grammar every
# user-facing PROGRAM in BIN shares (tools/cli.h):
#   --help            exit 0, the usage on stdout (a line "usage: ...");
#   -V, --version     exit 0, first line "PROGRAM VERSION (git COMMIT)";
#   a bad option      (long or short, or a missing value) exit 2 with one
#                     line on stderr naming it and nothing on stdout;
#   -o SWITCH=BAD     where a program takes switches: exit 2, one line
#                     naming the switch.
# The PROGRAMs are named (CMakeLists.txt lists them): BIN also holds the
# unit tests (CUnit's command line, not this one).
set -u
[ $# -ge 2 ] || { echo "usage: cli-test.sh BIN PROGRAM..." >&2; exit 2; }
bin=$1
shift
fail=0
bad() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# switch_args PROGRAM: the arguments that make PROGRAM read -o (empty: none)
switch_args() {
	case $1 in
	rcuvfs) echo "$tmp/mnt" ;;
	rcuvfs-stress) echo "--model --workload fstat1 --duration 0.01" ;;
	rcuvfs-explore) echo "--scenario all" ;;
	rcuvfs-sim) echo "--workload fstat1" ;;
	bench_*) echo "" ;; # -o is checked before anything runs
	*) echo "-" ;;
	esac
}
mkdir -p "$tmp/mnt"
n=0
for name in "$@"; do
	p=$bin/$name
	[ -f "$p" ] && [ -x "$p" ] || { bad "$p: no such program"; continue; }
	n=$((n + 1))
	timeout 30 "$p" --help >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 0 ] || bad "$name --help: exit $rc"
	grep -qi '^usage:' "$tmp/out" || bad "$name --help: no 'usage:' line on stdout"
	for v in -V --version; do
		timeout 30 "$p" $v >"$tmp/out" 2>"$tmp/err"
		rc=$?
		[ $rc = 0 ] || bad "$name $v: exit $rc"
		head -1 "$tmp/out" | grep -Eq "^$name [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-f][0-9a-f-]*(dirty)?\)$" ||
			bad "$name $v: first line '$(head -1 "$tmp/out")'"
	done
	for opt in --no-such-option -j --scenario-no-such; do
		timeout 30 "$p" $opt >"$tmp/out" 2>"$tmp/err"
		rc=$?
		[ $rc = 2 ] || bad "$name $opt: exit $rc, expected 2"
		[ -s "$tmp/out" ] && bad "$name $opt: wrote to stdout"
		[ "$(wc -l <"$tmp/err")" = 1 ] || bad "$name $opt: $(wc -l <"$tmp/err") lines on stderr"
		grep -q -- "$opt" "$tmp/err" || grep -q -- "'-${opt#-}'" "$tmp/err" ||
			bad "$name $opt: the message does not name it: $(head -1 "$tmp/err")"
	done
	args=$(switch_args "$name")
	[ "$args" = - ] && continue
	timeout 30 "$p" -o filelock=no-such-scheme $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] || bad "$name -o filelock=no-such-scheme: exit $rc, expected 2"
	[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q filelock "$tmp/err" ||
		bad "$name -o filelock=no-such-scheme: '$(cat "$tmp/err")'"
done
[ $fail = 0 ] && echo "command-line grammar: ok ($n programs)"
exit $fail
