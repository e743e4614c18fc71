#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/fuse-requests.sh - FUSE requests per application operation
# and operations per second, on rcuvfs (default and -o apps) and on
# libfuse's passthrough_ll over a tmpfs, in one run.
#
#   tests/bench/fuse-requests.sh [--build DIR] [--repeat N]   (as root: it mounts)
#
# passthrough_ll is built from the libfuse3-dev examples
# (/usr/share/doc/libfuse3-dev/examples/passthrough_ll.c) into the run's
# temporary directory and run with its defaults (cache=auto: 1 s attribute
# and entry timeouts, no writeback cache, no xattrs, locks left to the
# kernel), and as passthrough_ll0 with timeout=0 (rcuvfs's default
# timeouts); passthrough_ll0dp (not run unless named in TARGETS) adds
# default_permissions, which rcuvfs always has.  Workloads (each against a fresh directory on every target):
#
#   write        N writes of 100 bytes to one open file (dd bs=100)
#   sqlite       N single-row INSERT commits, rollback journal (sqlite3)
#   sqlite-wal   the same in WAL mode
#   git-status   git status of a committed tree of FILES files in 10 dirs
#   make         make of an unchanged tree of OBJS objects
#
# Requests are counted on rcuvfs from /.rcuvfs/stats (req_* before and
# after), on passthrough_ll from libfuse's debug output (-d: one "unique:
# N, opcode: OP" line per request) of a second passthrough_ll mount used
# only for counting; ops/s are timed on the mounts without -d (median of
# ROUNDS runs, the targets alternating).  Prints the
# requests per operation and ops/s per target, then each target's requests
# per operation by type.  No pass/fail on time.
#
# Environment: WRITES [20000] COMMITS [500] STATUS [20] MAKES [20]
#   FILES [200] (the git tree, in 10 dirs)  OBJS [100] (the make tree)
#   ROUNDS [3]: timed runs per cell (the default of --repeat), targets
#   alternating; the median is shown
#   WORKLOADS ["write sqlite sqlite-wal git-status make"]: which to run
#   SETTLE [1.1]: seconds between a tree's setup and its runs (git status
#   and make then see timestamps in the past, as on a real tree)
#   TARGETS ["rcuvfs apps passthrough_ll0 passthrough_ll tmpfs"]
set -euo pipefail

bench_usage="usage: ${0##*/} [-b|--build DIR] [-r|--repeat N]
FUSE requests per application operation (write, SQLite, git status, make)
through rcuvfs and passthrough_ll (as root: it mounts).
  -b, --build DIR    the build tree (default build)
  -r, --repeat N     timed runs per cell (default \$ROUNDS, else 3)
Environment: WRITES COMMITS STATUS MAKES FILES OBJS WORKLOADS SETTLE TARGETS
(the script's header)"
bench_takes=repeat
BUILD=build REPEAT=${ROUNDS:-3}
. "$(dirname "$0")/args.sh"
bench_args "$@"
ROUNDS=$REPEAT
BIN=$BUILD/bin
WRITES=${WRITES:-20000}
COMMITS=${COMMITS:-500}
STATUS=${STATUS:-20}
MAKES=${MAKES:-20}
SETTLE=${SETTLE:-1.1}
FILES=${FILES:-200}
OBJS=${OBJS:-100}
TARGETS=${TARGETS:-rcuvfs apps passthrough_ll0 passthrough_ll tmpfs}
EX=/usr/share/doc/libfuse3-dev/examples

if [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ]; then
	echo "fuse-requests.sh: needs root and /dev/fuse" >&2
	exit 77
fi
for c in sqlite3 git make dd cc pkg-config; do
	command -v $c >/dev/null || { echo "fuse-requests.sh: $c not installed (scripts/deps.sh)" >&2; exit 1; }
done
[ -x "$BIN/rcuvfs" ] || { echo "fuse-requests.sh: $BIN/rcuvfs not built" >&2; exit 1; }
[ -f "$EX/passthrough_ll.c" ] || { echo "fuse-requests.sh: $EX/passthrough_ll.c missing (libfuse3-dev)" >&2; exit 1; }

TMP=$(mktemp -d /tmp/rcuvfs-req.XXXXXX)
declare -a MOUNTS=() DPIDS=()
cleanup() {
	local m p
	for m in "${MOUNTS[@]}"; do
		fusermount3 -u "$m" 2>/dev/null || umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
	for p in "${DPIDS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$TMP" 2>/dev/null || true
}
trap cleanup EXIT

cc -O2 -o "$TMP/pll-bin" "$EX/passthrough_ll.c" -I"$EX" $(pkg-config --cflags --libs fuse3) \
	2>"$TMP/cc.log" || { cat "$TMP/cc.log" >&2; exit 1; }

waitmnt() {
	local i
	for ((i = 0; i < 400; i++)); do
		grep -q " $1 fuse" /proc/self/mounts && stat "$1" >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "fuse-requests.sh: nothing mounted at $1" >&2
	exit 1
}

# target name -> mountpoint (ops/s) and counting mountpoint
declare -A MNT CNT
mkdir -p "$TMP/back" "$TMP/backc"
mount -t tmpfs none "$TMP/back" && MOUNTS+=("$TMP/back")
mount -t tmpfs none "$TMP/backc" && MOUNTS+=("$TMP/backc")
for t in $TARGETS; do
	m=$TMP/$t
	mkdir -p "$m"
	case $t in
	rcuvfs)
		"$BIN/rcuvfs" "$m" -f >"$TMP/$t.log" 2>&1 &
		DPIDS+=($!)
		CNT[$t]=$m ;;
	apps)
		"$BIN/rcuvfs" "$m" -f -o apps >"$TMP/$t.log" 2>&1 &
		DPIDS+=($!)
		CNT[$t]=$m ;;
	passthrough_ll | passthrough_ll0 | passthrough_ll0dp)
		case $t in
		passthrough_ll) o= ;;
		passthrough_ll0) o=,timeout=0 ;;
		*) o=,timeout=0,default_permissions ;;
		esac
		mkdir -p "$TMP/back/$t" "$TMP/backc/$t" "$TMP/$t-count"
		"$TMP/pll-bin" -f -o source="$TMP/back/$t$o" "$m" >"$TMP/$t.log" 2>&1 &
		DPIDS+=($!)
		"$TMP/pll-bin" -d -o source="$TMP/backc/$t$o" "$TMP/$t-count" >"$TMP/$t.debug" 2>&1 &
		DPIDS+=($!)
		MOUNTS+=("$TMP/$t-count")
		waitmnt "$TMP/$t-count"
		CNT[$t]=$TMP/$t-count ;;
	tmpfs)
		mount -t tmpfs none "$m"
		CNT[$t]=- ;;
	*) echo "fuse-requests.sh: unknown target $t" >&2; exit 2 ;;
	esac
	MOUNTS+=("$m")
	MNT[$t]=$m
	[ "$t" = tmpfs ] || waitmnt "$m"
done

# requests so far on counting mountpoint $1, as "op count" lines
snapshot() {
	if [ -e "$1/.rcuvfs/stats" ]; then
		awk '/^req_/ { sub(/^req_/, "", $1); print $1, $2 }' "$1/.rcuvfs/stats"
	elif [ -e "${1%-count}.debug" ]; then
		sleep 0.3 # asynchronous RELEASE and FORGET
		grep -aoE '^unique: [0-9]+, opcode: [A-Z_]+' "${1%-count}.debug" |
			awk '{ op = tolower($4); if (op == "batch_forget") op = "forget"; n[op]++ }
			     END { for (o in n) print o, n[o] }'
	fi
}

# per-op difference of two snapshots less the requests of taking one (the
# difference of two snapshots in a row): "op requests_per_op", "total T"
delta() { # snap0 snap1 snap2 ops
	awk -v ops="$4" 'FILENAME == ARGV[1] { a[$1] = $2; next }
		FILENAME == ARGV[2] { b[$1] = $2; next }
		{ d = $2 - b[$1] - (b[$1] - a[$1]); if ($1 == "init" || $1 == "destroy") next
		  if (d > 0) { printf "%s %.3f\n", $1, d / ops; t += d } }
		END { printf "total %.3f\n", t / ops }' "$1" "$2" "$3"
}

# --- workloads: setup DIR, run DIR (the measured part) -----------------------
setup_write() { :; }
run_write() { dd if=/dev/zero of="$1/w" bs=100 count="$WRITES" status=none; }

mksql() { # n file
	local i
	for ((i = 0; i < $1; i++)); do echo "INSERT INTO t(b) VALUES('row $i');"; done >"$2"
}
setup_sqlite() { sqlite3 "$1/db" "PRAGMA journal_mode=DELETE; CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);" >/dev/null; }
run_sqlite() { sqlite3 "$1/db" <"$TMP/ins.sql"; }
setup_sqlite-wal() { sqlite3 "$1/db" "PRAGMA journal_mode=WAL; CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);" >/dev/null; }
run_sqlite-wal() { sqlite3 "$1/db" <"$TMP/ins.sql"; }

setup_git-status() {
	local d i j
	mkdir "$1/repo"
	git -C "$1/repo" init -q
	for ((i = 0; i < 10; i++)); do
		mkdir "$1/repo/d$i"
		for ((j = 0; j < FILES / 10; j++)); do echo "file $i $j" >"$1/repo/d$i/f$j.txt"; done
	done
	git -C "$1/repo" add -A
	git -C "$1/repo" -c user.name=b -c user.email=b@b commit -qm init
	sleep "$SETTLE" # let the index's timestamps leave the racy window
	git -C "$1/repo" status --porcelain >/dev/null
}
run_git-status() {
	local i
	for ((i = 0; i < STATUS; i++)); do git -C "$1/repo" status --porcelain >/dev/null; done
}

setup_make() {
	local i
	mkdir "$1/mk"
	for ((i = 0; i < OBJS; i++)); do echo "int f$i(void) { return $i; }" >"$1/mk/s$i.c"; done
	{
		echo 'SRCS := $(wildcard s*.c)'
		echo 'OBJS := $(SRCS:.c=.o)'
		echo 'all: prog'
		echo 'prog: $(OBJS)'
		printf '\tcat $^ > $@\n'
		echo '%.o: %.c'
		printf '\tcp $< $@\n'
	} >"$1/mk/Makefile"
	make -s -C "$1/mk" >/dev/null
	sleep "$SETTLE"
}
run_make() {
	local i
	for ((i = 0; i < MAKES; i++)); do make -s -C "$1/mk" >/dev/null; done
}

mksql "$COMMITS" "$TMP/ins.sql"
declare -A OPS=([write]=$WRITES [sqlite]=$COMMITS [sqlite-wal]=$COMMITS [git-status]=$STATUS [make]=$MAKES)
WORKLOADS=${WORKLOADS:-write sqlite sqlite-wal git-status make}
declare -A REQ RATE
for w in $WORKLOADS; do
	for t in $TARGETS; do
		c=${CNT[$t]}
		REQ[$w.$t]=-
		[ "$c" != - ] || continue
		d=$c/$w.count
		mkdir "$d"
		"setup_$w" "$d"
		snapshot "$c" >"$TMP/snap0"
		snapshot "$c" >"$TMP/snap1"
		(cd "$d" && "run_$w" "$d")
		snapshot "$c" >"$TMP/snap2"
		delta "$TMP/snap0" "$TMP/snap1" "$TMP/snap2" "${OPS[$w]}" >"$TMP/$w.$t.req"
		REQ[$w.$t]=$(awk '$1 == "total" { print $2 }' "$TMP/$w.$t.req")
		rm -rf "$d"
	done
done
# timed runs: ROUNDS rounds, the targets alternating within each
: >"$TMP/rates"
for ((r = 0; r < ROUNDS; r++)); do
	for w in $WORKLOADS; do
		for t in $TARGETS; do
			d=${MNT[$t]}/$w.time
			mkdir "$d"
			"setup_$w" "$d"
			s=$(date +%s.%N)
			(cd "$d" && "run_$w" "$d")
			e=$(date +%s.%N)
			awk -v s="$s" -v e="$e" -v n="${OPS[$w]}" -v k="$w.$t" \
				'BEGIN { printf "%s %.0f\n", k, n / (e - s) }' >>"$TMP/rates"
			rm -rf "$d"
		done
	done
done
while read -r k v; do RATE[$k]=$v; done < <(sort -k1,1 -k2,2n "$TMP/rates" |
	awk '{ v[$1, ++n[$1]] = $2 } END { for (k in n) print k, v[k, int((n[k] + 1) / 2)] }')

echo "# rcuvfs FUSE requests per operation: $(nproc) CPUs, $(date -u +%Y-%m-%d)," \
	"commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# ops/s: median of $ROUNDS; write: $WRITES x 100 B; sqlite: $COMMITS commits; git-status: $STATUS runs, $FILES files;" \
	"make: $MAKES runs, $OBJS objects"
printf '%-11s' workload
for t in $TARGETS; do [ "$t" = tmpfs ] || printf ' %16s' "$t req/op"; done
for t in $TARGETS; do printf ' %16s' "$t op/s"; done
echo
for w in $WORKLOADS; do
	printf '%-11s' "$w"
	for t in $TARGETS; do [ "$t" = tmpfs ] || printf ' %16s' "${REQ[$w.$t]}"; done
	for t in $TARGETS; do printf ' %16s' "${RATE[$w.$t]}"; done
	echo
done
echo
echo "# requests per operation by type"
for w in $WORKLOADS; do
	for t in $TARGETS; do
		[ "$t" = tmpfs ] && continue
		printf '%-11s %-15s %s\n' "$w" "$t" \
			"$(awk '$1 != "total" { printf "%s %s  ", $1, $2 }' "$TMP/$w.$t.req")"
	done
done
