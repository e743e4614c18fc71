#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cli-test.sh STRESS DIR: what a user scripting rcuvfs-stress relies on.
#  - --json - and --csv - give a clean stream on stdout, the table on stderr;
#  - an output file that cannot be created fails at once (exit 2), before
#    any run;
#  - every file carries the metadata (kernel, CPU, date, command, version,
#    commit, switches or mount config);
#  - --repeat N reports N samples with median, min, max, stddev; the scaling
#    column is 1 at one task; --sweep runs one configuration per value;
#  - --cpus/--pin place the tasks: each task's CPUs (sched_getcpu) are
#    reported, and with --cpus 1,0 --pin task 0 ran on CPU 1 only, task 1
#    on CPU 0 only, in threads and processes;
#  - --version, --list's counting, the exit codes in --help;
#  - a combination of model switches no kernel had is refused at once.
# Fixed work (--ops-per-task) keeps it short; nothing depends on timing.
set -u
stress=$1 dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
quick="--path $dir --workload fstat1 --tasks 1,2 --ops-per-task 2000 --quiet"

# clean streams
"$stress" $quick --json - >"$tmp/j.out" 2>"$tmp/j.err" || bad "--json - exited $?"
head -c1 "$tmp/j.out" | grep -q '{' || bad "--json -: stdout does not start with the JSON object"
tail -1 "$tmp/j.out" | grep -qx ']}' || bad "--json -: stdout does not end with the JSON object"
grep -q '^target:' "$tmp/j.out" && bad "--json -: the table went to stdout"
grep -q '^target:' "$tmp/j.err" || bad "--json -: the table is not on stderr"
"$stress" $quick --csv - >"$tmp/c.out" 2>"$tmp/c.err" || bad "--csv - exited $?"
grep -v '^#' "$tmp/c.out" | head -1 | grep -q '^workload,target,mode,tasks,' ||
	bad "--csv -: the first non-comment line is not the header"
[ "$(grep -vc '^#' "$tmp/c.out")" = 3 ] || bad "--csv -: expected a header and 2 rows"
grep -q '^target:' "$tmp/c.err" || bad "--csv -: the table is not on stderr"
"$stress" $quick --json - --csv - >/dev/null 2>&1
[ $? = 2 ] || bad "--json - --csv - together must be a usage error"

# a bad output path fails before the first run (a run would take an hour)
timeout 60 "$stress" --path "$dir" --workload fstat1 --tasks 1 --duration 3600 --quiet \
	--json "$tmp/no/such/dir/x.json" >"$tmp/b.out" 2>"$tmp/b.err"
rc=$?
[ $rc = 2 ] || bad "unwritable --json path: exit $rc, expected 2 at once"
grep -q 'x.json' "$tmp/b.err" || bad "unwritable --json path: no message naming it"
timeout 60 "$stress" --path "$dir" --workload fstat1 --tasks 1 --duration 3600 --quiet \
	--csv "$tmp/no/such/dir/x.csv" >/dev/null 2>&1
[ $? = 2 ] || bad "unwritable --csv path: expected exit 2 at once"

# metadata in both files, --repeat statistics, scaling
"$stress" $quick --repeat 3 --json "$tmp/r.json" --csv "$tmp/r.csv" >/dev/null 2>&1 ||
	bad "--repeat 3 run failed"
kernel=$(uname -r)
for key in '"kernel": "'"$kernel"'"' '"cpu_model": "' '"cpus_online": ' '"date": "' \
	'"command": "' '"commit": "' '"version": "' '"mount_config": {'; do
	grep -qF "$key" "$tmp/r.json" || bad "JSON metadata lacks $key"
done
for key in "# kernel: $kernel" '# cpu_model: ' '# date: ' '# command: ' '# commit: ' \
	'# version: ' '# cpus_used: '; do
	grep -qF "$key" "$tmp/r.csv" || bad "CSV metadata lacks '$key'"
done
grep -q '"repeats": 3, ' "$tmp/r.json" || bad "JSON: repeats is not 3"
grep -q '"ops_per_sec_samples": \[[0-9.]*, [0-9.]*, [0-9.]*\]' "$tmp/r.json" ||
	bad "JSON: not 3 samples"
grep -q '"tasks": 1, .*' "$tmp/r.json" || bad "JSON: no 1-task run"
awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
	{ med = $c["ops_per_sec_median"]; lo = $c["ops_per_sec_min"]; hi = $c["ops_per_sec_max"]
	  if ($c["repeats"] != 3 || med < lo || med > hi || $c["ops_per_sec"] != med) bad = 1
	  if ($c["tasks"] == 1 && $c["scaling"] != "1.0000") bad = 1
	  if ($c["tasks"] == 2 && $c["scaling"] == "") bad = 1 }
	END { exit bad }' "$tmp/r.csv" || bad "CSV: statistics or scaling columns wrong"

# --sweep: one configuration per value, in every file
"$stress" --model -o bkl_ops=none --sweep bkl=spin,sem-fifo --workload bkl-mix --tasks 2 \
	--ops-per-task 200 --quiet --csv "$tmp/s.csv" >/dev/null 2>&1 || bad "--sweep run failed"
grep -q ',bkl=spin,' "$tmp/s.csv" && grep -q ',bkl=sem-fifo,' "$tmp/s.csv" ||
	bad "--sweep: not one row per value"
grep -q '# switch.bkl_ops: none' "$tmp/s.csv" || bad "CSV metadata lacks the model's switches"
"$stress" --path "$dir" --sweep bkl=spin --workload fstat1 >/dev/null 2>&1
[ $? = 2 ] || bad "--sweep without --model must be a usage error"

# --cpus / --pin: where every task ran, as sched_getcpu() saw it, in threads
# and in processes; the tasks must have run only on their CPU (the kernel
# enforces an affinity mask, so this holds in every run)
"$stress" $quick --cpus 0 --pin --json "$tmp/p.json" >/dev/null 2>&1 || bad "--cpus 0 --pin failed"
grep -q '"cpus_used": 1' "$tmp/p.json" || bad "--cpus 0: cpus_used is not 1"
grep -q '"task_cpus": \["0", "0"\]' "$tmp/p.json" || bad "--cpus 0 --pin: the 2 tasks did not run on CPU 0 only"
allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
case ",$allowed," in
*,0-*|*,0,1,*) two=1 ;;
*) two=0; echo "SKIP: --pin on CPUs 0 and 1: only CPUs $allowed allowed" ;;
esac
if [ $two = 1 ]; then
	pin="--workload lock1 --tasks 2 --ops-per-task 20000 --quiet"
	for mode in threads processes; do
		# reversed: task 0 on CPU 1, task 1 on CPU 0; never what the scheduler does by default
		"$stress" --path "$dir" $pin --mode $mode --cpus 1,0 --pin --json "$tmp/pin.json" \
			--csv "$tmp/pin.csv" >"$tmp/pin.txt" 2>&1 || bad "--cpus 1,0 --pin ($mode) failed"
		grep -q '"task_cpus": \["1", "0"\]' "$tmp/pin.json" ||
			bad "--cpus 1,0 --pin ($mode): tasks 0 and 1 did not run on CPUs 1 and 0 only"
		awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
			{ exit $c["task_cpus"] != "1 0" }' "$tmp/pin.csv" ||
			bad "--cpus 1,0 --pin ($mode): the CSV's task_cpus is not \"1 0\""
		grep -q '^    cpus per task: 1 0$' "$tmp/pin.txt" ||
			bad "--cpus 1,0 --pin ($mode): the table does not show the CPUs per task"
		# --cpus alone confines every task to the list
		"$stress" --path "$dir" $pin --mode $mode --cpus 1 --json "$tmp/one.json" >/dev/null 2>&1 ||
			bad "--cpus 1 ($mode) failed"
		grep -q '"task_cpus": \["1", "1"\]' "$tmp/one.json" ||
			bad "--cpus 1 ($mode): a task ran outside CPU 1"
	done
fi
"$stress" $quick --cpus 100000 >/dev/null 2>&1
[ $? = 2 ] || bad "--cpus with an unavailable CPU must be a usage error"

# a combination of switches no kernel had: refused before any run (exit
# 2), naming both switches; in a --sweep too
for args in "-o vm_area_cache=typesafe" "-o vma_lock=rwsem --sweep vm_area_cache=rcu,typesafe-sheaves"; do
	timeout 60 "$stress" --model $args --workload mmap-cycle --tasks 1 --duration 3600 \
		--quiet >"$tmp/v.out" 2>"$tmp/v.err"
	rc=$?
	[ $rc = 2 ] || bad "$args: exit $rc, expected 2 at once"
	grep -q 'vm_area_cache=typesafe.* needs vma_lock=refcnt (got vma_lock=rwsem)' "$tmp/v.err" ||
		bad "$args: no message naming both switches: $(cat "$tmp/v.err")"
done
"$stress" --help | grep -q 'vm_area_cache=rcu|typesafe|sheaves|typesafe-sheaves' ||
	bad "--help does not list vm_area_cache's values"

# --version, --list, --help
"$stress" --version | grep -Eq '^rcuvfs-stress [0-9.]+ \(git [^)]+\)$' || bad "--version"
[ "$("$stress" --list | grep -c '^ *counts: ')" = "$(($("$stress" --list | grep -c '^[a-z]') - 1))" ] ||
	bad "--list: not every workload says how it counts"
"$stress" --list | grep -A1 '^lock1 ' | grep -q 'counts: 2 per lock+unlock pair' ||
	bad "--list: lock1 does not count 2 per pair"
# --list-counters: every counter with a kind and a help text
"$stress" --list-counters >"$tmp/lc.out" || bad "--list-counters: exit $?"
awk '($2 != "counter" && $2 != "gauge") || NF < 3 {bad = 1} END {exit bad || NR < 50}' \
	"$tmp/lc.out" || bad "--list-counters: a line without kind or help, or too few lines"
grep -q '^fget_retries counter ' "$tmp/lc.out" || bad "--list-counters lacks fget_retries"

# a run while every CPU is taken by other work warns that the machine was
# busy (a 1-task run leaves at least half of 2 CPUs idle on its own account,
# the machine's idle share is near 0 while the hogs run)
if [ "$(nproc)" -ge 2 ]; then
	hogs=""
	for i in $(seq "$(nproc)"); do
		sh -c 'while :; do :; done' &
		hogs="$hogs $!"
	done
	"$stress" --model --workload fstat1 --tasks 1 --duration 0.5 --warmup 0.1 --quiet \
		>/dev/null 2>"$tmp/busy.err"
	kill $hogs
	wait $hogs 2>/dev/null
	grep -q 'warning: fstat1: the machine was busy during the measurement' "$tmp/busy.err" ||
		bad "no busy-machine warning with every CPU taken: $(cat "$tmp/busy.err")"
fi

for code in 0 1 2 3 130; do
	"$stress" --help | grep -Eq "^  $code +[a-z]" || bad "--help does not list exit status $code"
done
[ $fail = 0 ] && echo "rcuvfs-stress command line: ok"
exit $fail
