#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/explore/trace-html-test.sh - --trace-html writes the replayed
# schedule as a page whose structure matches the text trace: one lane
# (column) per task, one row per step with the task's cell in its lane,
# the preempting step marked, code locations, the locks held, the results
# and the oracle's verdict.  Replays the fget=norecheck race (a real,
# found schedule), then checks the page against the text trace of the same
# replay.
#
# Usage: trace-html-test.sh PATH/TO/rcuvfs-explore
set -u
x=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
id='fget-reopen/fget=norecheck@3.1'

"$x" --replay "$id" --trace-html "$tmp/t.html" >"$tmp/t.txt" 2>&1
[ -s "$tmp/t.html" ] || { echo "FAIL: no HTML written"; cat "$tmp/t.txt"; exit 1; }
steps=$(grep -cE '^[* ] +[0-9]+  T[0-9]' "$tmp/t.txt")
rows=$(grep -c '<tr class="step">' "$tmp/t.html")
[ "$steps" -gt 10 ] || fail "the text trace has $steps steps"
[ "$rows" = "$steps" ] || fail "$rows step rows in the page, $steps steps in the text trace"
lanes=$(grep -o '<th class="lane">' "$tmp/t.html" | wc -l)
[ "$lanes" = 2 ] || fail "$lanes lanes, expected 2 (T0, T1)"
# each row has exactly one cell that ran, in the lane of the task the text names
grep '<tr class="step">' "$tmp/t.html" |
	sed 's/<td class="step">[0-9]*<\/td>//; s/<td class="run[^"]*">.*//' |
	awk '{ n = gsub(/<td><\/td>/, ""); print n }' >"$tmp/lane"
grep -E '^[* ] +[0-9]+  T[0-9]' "$tmp/t.txt" | sed 's/^[* ] *[0-9]*  T\([0-9]\).*/\1/' >"$tmp/task"
cmp -s "$tmp/lane" "$tmp/task" || fail "the running cell is not in the lane of the step's task"
pre_txt=$(grep -cE '^\* +[0-9]+  T' "$tmp/t.txt")
pre_html=$(grep -c 'class="run preempt"' "$tmp/t.html")
[ "$pre_txt" -ge 1 ] && [ "$pre_html" = "$pre_txt" ] ||
	fail "$pre_html preemptions marked in the page, $pre_txt in the text"
grep -q '<span class="where">__get_file_rcu fget.c:[0-9]*' "$tmp/t.html" ||
	fail "no code location of fget's window"
grep -q '<span class="held">holds: spin_lock' "$tmp/t.html" ||
	fail "no lock held shown (close_fd holds file_lock)"
grep -q '<p class="results">results: T0.fget(0)=B ' "$tmp/t.html" || fail "no results line"
grep -q '<p class="verdict">FAILED: not linearizable' "$tmp/t.html" || fail "no verdict"
if [ $status != 0 ]; then
	cat "$tmp/t.txt"
else
	echo "trace-html: $rows steps in 2 lanes, $pre_html preemption marked, verdict shown"
fi
exit $status
