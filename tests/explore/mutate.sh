#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/explore/mutate.sh - the mutation table: what finds each planted bug.
#
# Each mutation site of the model (RV_MUTANT(name), vfs/base/mutant.h; the
# catalogue is tests/explore/mutants.txt) is a plausible concurrency bug
# next to the real code.  This script builds the tree once with every site
# compiled in and selectable at run time (-DRCUVFS_MUTANTS=ON, an
# out-of-tree build directory, incremental), then for each mutant
# (RCUVFS_MUTANT=name):
#   - runs the explorer at CI settings: what the explore label runs
#     (every scenario's matrix, exit-fsync and tlb-epoch at K = 3, PCT with seed 1 over
#     every matrix: explore.matrix.pct-ci), stopping at the first
#     configuration whose result is not the expected one; a clean design
#     that fails is the mutant found, with its schedule id.  The scenarios
#     of the mutant's area run first (the same matrix lines and bounds, a
#     subset of the label: a mutant they find, the label finds), the whole
#     label only when they find nothing;
#   - runs the unit tests of the mutant's area (the catalogue's regex; the
#     harness's watchdog turns a hang into a failure within seconds);
#   - records whether the mutated code ran at all (RCUVFS_MUTANT_HIT).
# and prints one row per mutant: found by the explorer (schedule id), by
# unit tests (which), or missed, with the reason (never reached; reached
# but no oracle saw it; equivalent, as argued in the catalogue).
#
# Usage: mutate.sh [--src DIR] [--build DIR] [--only NAME[,NAME...]]
#                  [--area AREA] [--no-unit | --unit-if-missed | --no-explore]
#                  [--no-build] [--sanitize]
#                  [--check] [--expect-explorer] [--explore-timeout SEC]
#                  [--unit-timeout SEC] [--markdown]
#   --check            only check that the catalogue and the sources agree
#   --unit-if-missed   run the unit tests only for mutants the explorer missed
#   --no-explore       run only the unit tests (the explorer column is "-")
#   --expect-explorer  exit 1 unless the explorer found every mutant not
#                      argued equivalent (long mode)
#   --markdown         print the table as Markdown (docs/explore.md)
#   --sanitize         build and run the ASan+UBSan build (default build
#                      directory build-mutants-asan): what the sanitizer
#                      build's explore label sees (a use-after-free, a use
#                      of a dead stack frame)
# Exit: 0 done (the table is the result), 1 the catalogue and the sources
# disagree (or --expect-explorer and a mutant was missed), 2 usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=
only=
area=
unit=1
unit_missed=0
noexplore=0
expect_x=0
dobuild=1
checkonly=0
markdown=0
sanitize=0
xtimeout=900
utimeout=900

usage() {
	sed -n '/^# Usage:/,/^# Exit:/p' "$0" | sed 's/^# \{0,1\}//'
}
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=$2; shift ;;
	--build) build=$2; shift ;;
	--only) only=$2; shift ;;
	--area) area=$2; shift ;;
	--no-unit) unit=0 ;;
	--unit-if-missed) unit_missed=1 ;;
	--no-explore) noexplore=1 ;;
	--expect-explorer) expect_x=1 ;;
	--no-build) dobuild=0 ;;
	--check) checkonly=1 ;;
	--markdown) markdown=1 ;;
	--sanitize) sanitize=1 ;;
	--explore-timeout) xtimeout=$2; shift ;;
	--unit-timeout) utimeout=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "mutate.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$build" ] || build=$src/build-mutants
[ $sanitize = 0 ] || [ "$build" != "$src/build-mutants" ] || build=$src/build-mutants-asan
cat=$src/tests/explore/mutants.txt

# ---- the catalogue and the sources name the same sites -------------------
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$cat" | grep -v '^[[:space:]]*$' | sed 's/ *|.*//' | sort >"$tmp/listed"
(cd "$src" && grep -rhoE 'RV_MUTANT\([a-z0-9_]+\)' --include='*.c' --include='*.h' \
	vfs fdtable locks mm) | sed 's/RV_MUTANT(\(.*\))/\1/' | grep -v '^name$' |
	sort -u >"$tmp/sites"
bad=0
for m in $(comm -23 "$tmp/sites" "$tmp/listed"); do
	echo "mutate.sh: site RV_MUTANT($m) is not in tests/explore/mutants.txt" >&2
	bad=1
done
for m in $(comm -13 "$tmp/sites" "$tmp/listed"); do
	echo "mutate.sh: tests/explore/mutants.txt lists $m, which no source has" >&2
	bad=1
done
dups=$(uniq -d "$tmp/listed")
[ -z "$dups" ] || { echo "mutate.sh: listed twice: $dups" >&2; bad=1; }
[ $bad = 0 ] || exit 1
if [ $checkonly = 1 ]; then
	echo "mutate.sh: $(wc -l <"$tmp/sites") mutation sites, all in the catalogue"
	exit 0
fi

# ---- one build serves every mutant ----------------------------------------
if [ $dobuild = 1 ]; then
	san=OFF
	[ $sanitize = 0 ] || san=ON
	cmake -S "$src" -B "$build" -DRCUVFS_WERROR=ON -DRCUVFS_MUTANTS=ON -DRCUVFS_SANITIZE=$san \
		>"$tmp/cmake.log" 2>&1 &&
		cmake --build "$build" -j2 >>"$tmp/cmake.log" 2>&1 || {
		tail -20 "$tmp/cmake.log" >&2
		echo "mutate.sh: the mutation build failed" >&2
		exit 2
	}
fi
x=$build/bin/rcuvfs-explore
# the sanitizer build's explore label runs setlkw-eintr with this too
[ $sanitize = 0 ] ||
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_stack_use_after_return=1"
[ -x "$x" ] || { echo "mutate.sh: no $x (build with -DRCUVFS_MUTANTS=ON)" >&2; exit 2; }

# the row of the first configuration that is not as expected
unexpected_row() {
	grep '"as_expected": false' "$1" | head -1
}
field() { # json-line key
	printf '%s\n' "$1" | sed -n "s/.*\"$2\": \"\([^\"]*\)\".*/\1/p"
}






if [ $markdown = 1 ]; then
	echo "| mutant | area | explorer (CI settings) | unit tests | result |"
	echo "|---|---|---|---|---|"
else
	printf '%-34s %-8s %-9s %-9s %s\n' mutant area explorer unit "result / reason"
fi
grep -v '^#' "$cat" | grep -v '^[[:space:]]*$' | while IFS='|' read -r name marea regex desc; do
	name=$(echo $name)
	marea=$(echo $marea)
	regex=$(echo $regex)
	if [ -n "$only" ]; then
		case ",$only," in *",$name,"*) ;; *) continue ;; esac
	fi
	[ -z "$area" ] || [ "$area" = "$marea" ] || continue
	hit=$tmp/hit.$name
	rm -f "$hit"
	# the explorer at CI settings: the explore label's two explorer runs
	xres=missed
	xwhy=
	case $marea in
	fdtable) first=fget-reopen,fget-dup2,fget-expand,fget-expand-reopen,fd-install-expand,open-close-range,open-dup2,close-setlkw,fork-expand ;;
	mm) first=cow-stale-read,reclaim-write,dontneed-refault,merge-fault,tlb-epoch,touched-fault,tlb-mprotect,split-fault,fork-cow,fork-write,vma-reuse,truncate-cow,numa-fault ;;
	locks) first=posix-deadlock,close-setlkw,setlkw-signal,setlkw-eintr,posix-deadlock-nested,posix-reblock,lock-exclusion ;;
	vfs) first=stat-setattr,rename-walk,rename-walk-rev,dput-lookup,rename-reparent,exchange-unlink,mknod-slash-rename,dotdot-rmdir ;;
	*) first=rwsem-readers-writer,rwsem-downgrade,sem-handoff,sem-signal-count,completion-signal,rwsem-handoff,sem-signal,bkl-sleep,stat-setattr,rwsem-exit,stat-dying,sem-steal-wakes ;;
	esac
	"$x" --list | grep -q "^${first%%,*}\$" || first=
	[ $noexplore = 0 ] || xres=-
	[ $noexplore = 0 ] && for args in ${first:+"--scenario $first --matrix --max-schedules 100000"} \
		    "--scenario all --matrix --max-schedules 100000" \
		    "--scenario exit-fsync --matrix --preemptions 3" \
		    "--scenario tlb-epoch --matrix --preemptions 3" \
		    "--scenario all --matrix --cross-first --pct 3 --schedules 500 --seed 1"; do
		RCUVFS_MUTANT=$name RCUVFS_MUTANT_HIT=$hit timeout -s KILL "$xtimeout" \
			"$x" $args --stop-unexpected --quiet --json "$tmp/x.json" \
			>"$tmp/x.out" 2>&1
		rc=$?
		if [ $rc = 137 ]; then
			xres=timeout
			xwhy="the explorer ran past ${xtimeout}s"
			break
		fi
		row=$(unexpected_row "$tmp/x.json")
		if [ -n "$row" ]; then
			xres=found
			xwhy="$(field "$row" failing_schedule): $(field "$row" reason)"
			[ -n "$(field "$row" failing_schedule)" ] ||
				xwhy="$(field "$row" scenario) $(field "$row" switches): $(field "$row" result) not as expected"
			break
		fi
	done
	# the area's unit tests
	ures=-
	uwhy=
	if [ $unit = 1 ] && { [ $unit_missed = 0 ] || [ $xres != found ]; }; then
		(cd "$build" && RCUVFS_MUTANT=$name RCUVFS_MUTANT_HIT=$hit \
			timeout -s KILL "$utimeout" ctest -L unit -LE long -R "$regex" -j2 \
			--timeout 300 >"$tmp/u.out" 2>&1)
		failed=$(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) .*/\1/p' "$tmp/u.out" | tr '\n' ' ')
		if [ -n "$failed" ]; then
			ures=found
			uwhy="$failed"
		elif grep -q "tests passed" "$tmp/u.out"; then
			ures=missed
		else
			ures=error
			uwhy="ctest: $(tail -1 "$tmp/u.out")"
		fi
	fi
	case $desc in
	*EQUIVALENT*) equiv=1 ;; # "EQUIVALENT: ...", "EQUIVALENT in this model: ..."
	*) equiv=0 ;;
	esac
	if [ $xres = found ]; then
		verdict="explorer: $xwhy"
	elif [ $ures = found ]; then
		verdict="unit tests: $uwhy"
	elif [ $equiv = 1 ]; then
		verdict="equivalent (see mutants.txt)"
	elif [ ! -e "$hit" ]; then
		verdict="missed: the mutated code never ran"
	else
		verdict="missed: ran, no oracle saw it"
	fi
	[ $xres != found ] || [ $ures != found ] || verdict="$verdict; unit tests: $uwhy"
	[ $xres = found ] || [ $equiv = 1 ] || echo "$name" >>"$tmp/missed"
	if [ $markdown = 1 ]; then
		echo "| \`$name\` | $marea | $xres | $ures | $(echo "$verdict" | sed 's/|/\\|/g') |"
	else
		printf '%-34s %-8s %-9s %-9s %s\n' "$name" "$marea" "$xres" "$ures" "$verdict"
	fi
done
if [ $expect_x = 1 ] && [ -s "$tmp/missed" ]; then
	echo "mutate.sh: the explorer missed $(wc -l <"$tmp/missed") mutants: $(tr '\n' ' ' <"$tmp/missed")"
	exit 1
fi
exit 0
