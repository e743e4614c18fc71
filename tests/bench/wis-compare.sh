#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/wis-compare.sh - will-it-scale's lock1 and rcuvfs-stress's
# lock1 on the same filesystem, in one run, rounds alternating the two.
#
#   tests/bench/wis-compare.sh [--build DIR] [--dir DIR] [--tasks N] [--duration S]
#                              [--repeat N] [--check RATIO]
# (short: -b -t -d -r; --secs and --rounds are the older names of
# --duration and --repeat)
#
# Both are processes, task i bound to the i-th allowed CPU, each task on its
# own file, locking and unlocking byte 0 with F_SETLKW and counting 2 per
# pair.  The reference is tests/stress/wis/wis-lock1.c (will-it-scale's
# lock1 loop and counting, written for this comparison; its header says
# where it follows will-it-scale and where not); rcuvfs-stress runs
# `--workload lock1 --mode processes --pin`.  With WIS_DIR set to a built
# will-it-scale tree its lock1_processes runs in the same rounds (as root
# with its /tmp bound to DIR in a private mount namespace, so its files are
# on DIR too; otherwise in /tmp); its ops per CPU-second are the totals of
# all its one-second samples over the CPU time of it and its workers
# (tests/stress/wis/wis-cputime.c, a child subreaper).
#
# Prints, per harness, the median ops/s over the rounds with min and max,
# and the median ops per CPU-second of the tasks (ops / the tasks' own CPU
# time in the window), each with its ratio to wis-lock1.  On a shared
# machine ops/s depends on how much CPU the tasks got; ops per CPU-second
# does not (it is the cost of one op), so --check compares that: exit 1
# unless rcuvfs-stress / wis-lock1 lies within [1/RATIO, RATIO].  Counting
# one op per pair instead of two is a ratio of 2 (or 0.5).  Exit 2: usage,
# or a harness that did not run.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build
dir=/dev/shm
tasks=1
secs=2
rounds=3
check=
while [ $# -gt 0 ]; do
	case $1 in -b | --build | --dir | -t | --tasks | -d | --duration | --secs | -r | --repeat | --rounds | --check) [ $# -ge 2 ] ||
		{ echo "wis-compare: option $1 needs a value (try --help)" >&2; exit 2; } ;; esac
	case $1 in
	-b | --build) build=$2; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	-t | --tasks) tasks=$2; shift 2 ;;
	-d | --duration | --secs) secs=$2; shift 2 ;;
	-r | --repeat | --rounds) rounds=$2; shift 2 ;;
	--check) check=$2; shift 2 ;;
	-h|--help) sed -n '3,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "wis-compare: unknown option $1 (try --help)" >&2; exit 2 ;;
	esac
done
stress=$build/bin/rcuvfs-stress
ref=$build/tests/wis-lock1
cputime=$build/tests/wis-cputime
for b in "$stress" "$ref" "$cputime"; do
	[ -x "$b" ] || { echo "wis-compare: $b not built" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wis=${WIS_DIR:+$WIS_DIR/lock1_processes}
if [ -n "$wis" ] && [ ! -x "$wis" ]; then
	echo "wis-compare: $wis not built (make lock1_processes in WIS_DIR)" >&2
	exit 2
fi
# will-it-scale puts its files in /tmp: bind DIR there for it when we can
wisns=
if [ -n "$wis" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	unshare -m true 2>/dev/null; then
	wisns=1
fi
wis_where="/tmp"
[ -n "$wisns" ] && wis_where="$dir (bound on its /tmp)"

# with --check, up to 3 more rounds when a harness has no CPU-time sample yet
# (a round in which the machine did not run its tasks at all)
r=0
extra=0
while :; do
	r=$((r + 1))
	if [ $r -gt "$rounds" ]; then
		[ -n "$check" ] && [ $extra -lt 3 ] || break
		[ "$(grep -c '^wis-lock1 cpu' "$tmp/samples")" -gt 0 ] &&
			[ "$(grep -c '^rcuvfs-stress cpu' "$tmp/samples")" -gt 0 ] && break
		extra=$((extra + 1))
		echo "wis-compare: a harness has no CPU time yet; one more round" >&2
	fi
	"$ref" --tasks "$tasks" --duration "$secs" "$dir" >"$tmp/ref" || { echo "wis-compare: wis-lock1 failed" >&2; exit 2; }
	awk '{ print "wis-lock1 ops", $3; if ($4 != "-") print "wis-lock1 cpu", $4 }' "$tmp/ref" >>"$tmp/samples"
	"$stress" --path "$dir" --workload lock1 --mode processes --tasks "$tasks" --pin \
		--duration "$secs" --warmup 1 --quiet --csv "$tmp/s.csv" >/dev/null ||
		{ echo "wis-compare: rcuvfs-stress failed" >&2; exit 2; }
	awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
		{ print "rcuvfs-stress ops", $(c["ops_per_sec"])
		  if ($(c["cpu_s"]) > 0) print "rcuvfs-stress cpu", $(c["ops"]) / $(c["cpu_s"]) }' \
		"$tmp/s.csv" >>"$tmp/samples"
	if [ -n "$wis" ]; then
		# six one-second warm-up samples, then SECS measured ones and "average:"
		# wis-cputime: the CPU time of will-it-scale and of the workers it
		# leaves behind; ops per CPU-second = all its samples' totals / that
		if [ -n "$wisns" ]; then
			# the binary is opened before the bind hides its directory (it may be in /tmp)
			"$cputime" timeout $((secs + 20)) unshare -m sh -c 'exec 3<"$2" && mount --make-rprivate / &&
				mount --bind "$1" /tmp && exec /proc/self/fd/3 -t "$3" -s "$4"' sh \
				"$dir" "$wis" "$tasks" "$secs" >"$tmp/wis" 2>&1 || true
		else
			"$cputime" timeout $((secs + 20)) "$wis" -t "$tasks" -s "$secs" >"$tmp/wis" 2>&1 || true
		fi
		awk '/^average:/ { sub("average:", ""); print "will-it-scale ops", $1 }
			/^min:.* total:/ { for (i = 1; i <= NF; i++) if ($i ~ /^total:/) { sub("total:", "", $i); all += $i } }
			/^wis-cputime / { cpu = $2 }
			END { if (cpu > 0 && all > 0) print "will-it-scale cpu", all / cpu }' "$tmp/wis" >>"$tmp/samples"
		grep -q '^average:' "$tmp/wis" || { echo "wis-compare: will-it-scale gave no average:" >&2
			cat "$tmp/wis" >&2; exit 2; }
	fi
done
echo "lock1 on $dir, $tasks task(s), processes, pinned, ${secs}s per run after 1 s of warm-up," \
	"$((r - 1)) round(s), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "$wis" ] && echo "will-it-scale: $wis, files in $wis_where"
"$stress" --summarize <"$tmp/samples" >"$tmp/stats"
awk -v check="$check" '
	{ k = $1 " " $2; med[k] = $4; lo[k] = $5; hi[k] = $6; if (!($1 in seen)) { seen[$1] = 1; name[++n] = $1 } }
	function ratio(k, ref) { return (ref > 0 && k != "") ? k / ref : 0 }
	END {
		printf "%-14s %12s %12s %12s %9s %14s %9s\n", "harness", "median ops/s", "min", "max",
			"/ wis-lock1", "ops/CPU-s", "/ wis-lock1"
		r0 = med["wis-lock1 ops"]; c0 = med["wis-lock1 cpu"]
		for (i = 1; i <= n; i++) {
			h = name[i]
			if ((h " cpu") in med)
				cpu = sprintf("%14.0f %9.3f", med[h " cpu"], ratio(med[h " cpu"], c0))
			else
				cpu = sprintf("%14s %9s", "-", "-")
			printf "%-14s %12.0f %12.0f %12.0f %9.3f %s\n", h, med[h " ops"], lo[h " ops"],
				hi[h " ops"], ratio(med[h " ops"], r0), cpu
		}
		if (!(med["wis-lock1 ops"] > 0) || !(med["rcuvfs-stress ops"] > 0)) {
			print "FAIL: a harness reported no ops"; exit 1
		}
		if (check != "") {
			q = ratio(med["rcuvfs-stress cpu"], c0)
			if (!(c0 > 0) || !(q > 0)) { print "FAIL: no CPU time to compare"; exit 1 }
			if (q < 1 / check || q > check) {
				printf "FAIL: rcuvfs-stress / wis-lock1 ops per CPU-second %.3f, outside [%.3f, %.3f]\n",
					q, 1 / check, check
				exit 1
			}
			printf "ok: rcuvfs-stress / wis-lock1 ops per CPU-second %.3f, within [%.3f, %.3f]\n",
				q, 1 / check, check
		}
	}' "$tmp/stats"
