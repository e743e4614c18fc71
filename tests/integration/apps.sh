#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/apps.sh BIN [--long] - real applications on an rcuvfs
# mount, each beside a tmpfs running the same thing:
#
#   sqlite   4 sqlite3 processes inserting concurrently, in rollback and in
#            WAL mode: the rows per process equal the commits each reported,
#            PRAGMA integrity_check says ok
#   git      init, commits (fixed dates), gc, fsck --full, a local clone
#            (hard links) and a file:// clone: the commit ids equal
#            tmpfs's, both clones fsck clean
#   tar      the project's sources extracted onto the mount and archived
#            back (sorted, fixed owners and mtimes): the archive is byte for
#            byte the one tmpfs gives, and every file's checksum matches
#   torn     rcuvfs-tornread: OFD write locks, OFD and POSIX read locks on
#            1 KiB records, no torn or stale locked read
# on rcuvfs's default mount and (sqlite, git, torn) on -o apps.  --long:
# more rows and commits, the torn-read loop for 20 M operations (at most
# 3,000 s; on the default mount), and a
# build of the project's sources on the mount compared object by object
# with the same build on a tmpfs at the same path.
set -u
BIN=$1
LONG=0
[ "${2:-}" = --long ] && LONG=1
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
it_setup
for c in sqlite3 git tar sha256sum; do
	command -v $c >/dev/null || it_skip "$c not installed (scripts/deps.sh)"
done
[ -x "$TBIN/rcuvfs-tornread" ] || { echo "FAIL: $TBIN/rcuvfs-tornread not built"; exit 1; }

if [ $LONG = 1 ]; then
	ROWS=2000 COMMITS=40 TORN_OPS=20000000 TORN_SECS=3000
else
	ROWS=150 COMMITS=5 TORN_OPS=150000 TORN_SECS=8
fi

# --- sqlite: 4 writers, rollback journal and WAL ----------------------------
# sqlite_run DIR MODE: prints "ok" or what differs
sqlite_run() {
	local d=$1/sqlite-$2 p i ok=1 commits rows pids=()
	mkdir "$d"
	sqlite3 "$d/db" "PRAGMA journal_mode=$2; CREATE TABLE t(p INTEGER, i INTEGER, v TEXT);" >/dev/null
	for p in 0 1 2 3; do
		for ((i = 0; i < ROWS; i++)); do
			echo "INSERT INTO t VALUES($p, $i, 'row $p $i');"
		done >"$d/in$p.sql"
		# each INSERT is a transaction; a failed one prints an error
		# line and the CLI goes on: commits = ROWS - errors
		sqlite3 -cmd ".timeout 60000" "$d/db" <"$d/in$p.sql" >"$d/out$p" 2>"$d/err$p" &
		pids+=($!)
	done
	wait "${pids[@]}" # not the daemon, a child of this shell too
	for p in 0 1 2 3; do
		commits=$((ROWS - $(grep -c . "$d/err$p")))
		rows=$(sqlite3 "$d/db" "SELECT count(*) FROM t WHERE p = $p")
		if [ "$rows" != "$commits" ]; then
			echo "$2: process $p reported $commits commits, the table has $rows rows"
			ok=0
		fi
	done
	i=$(sqlite3 "$d/db" "PRAGMA integrity_check")
	[ "$i" = ok ] || { echo "$2: integrity_check: $i"; ok=0; }
	[ $ok = 1 ] && echo "ok $(sqlite3 "$d/db" "SELECT count(*) FROM t") rows"
}

# --- git: fixed dates, so the commit ids are the same on any file system ----
git_run() {
	local d=$1/git r c
	mkdir "$d"
	r=$d/repo
	export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
	git init -q -b main "$r" || return 1
	for ((c = 0; c < COMMITS; c++)); do
		export GIT_AUTHOR_DATE="@$((1700000000 + c)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + c)) +0000"
		mkdir -p "$r/d$((c % 3))"
		seq $((c * 100)) $((c * 100 + 500)) >"$r/d$((c % 3))/f$c"
		[ $c -gt 0 ] && echo "change $c" >>"$r/d0/f0"
		[ $c -gt 2 ] && git -C "$r" rm -q "d$(((c - 3) % 3))/f$((c - 3))"
		git -C "$r" add -A && git -C "$r" commit -qm "commit $c" || return 1
	done
	git -C "$r" gc -q --aggressive || return 1
	git -C "$r" fsck --full --strict 2>&1 | grep -v '^Checking' && return 1
	git clone -q "$r" "$d/clone1" || return 1
	git clone -q --no-local "file://$r" "$d/clone2" || return 1
	for c in clone1 clone2; do
		git -C "$d/$c" fsck --full --strict 2>&1 | grep -v '^Checking' && return 1
		[ "$(git -C "$d/$c" rev-parse HEAD)" = "$(git -C "$r" rev-parse HEAD)" ] || return 1
	done
	git -C "$r" status --porcelain | grep . && return 1
	git -C "$r" log --format=%H | sha256sum
}

# --- tar: sources in, a normalised archive out -------------------------------
tar_run() {
	local d=$1/tar
	mkdir "$d"
	git -C "$SRC" ls-files -z | tar -C "$SRC" --null -T - -cf - | tar -C "$d" -xpf - || return 1
	(cd "$d" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$1.sums" || return 1
	tar -C "$d" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - . | sha256sum
	sha256sum <"$1.sums"
}

torn_run() { # the long run on the default mount only
	local ops=$TORN_OPS secs=$TORN_SECS
	[ "${prof:-}" = apps ] && ops=150000 secs=8
	"$TBIN/rcuvfs-tornread" "$1/torn" --iters "$ops" --duration "$secs" --writers 4 --records 8 2>&1
}

# run_all NAME DIR PARTS...: each part's output in $IT_TMP/NAME.PART
run_all() {
	local name=$1 dir=$2 part
	shift 2
	for part in "$@"; do
		"${part}_run" "$dir" >"$IT_TMP/$name.$part" 2>&1 || echo "FAILED (status $?)" >>"$IT_TMP/$name.$part"
	done
}

mount_tmpfs tmpfs 2g || it_finish
TMPFS=$MNT
run_all tmpfs "$TMPFS" git tar torn
# sqlite_run's two modes
for m in DELETE WAL; do sqlite_run "$TMPFS" $m >"$IT_TMP/tmpfs.sqlite.$m" 2>&1; done
grep -q '^ops [0-9]* torn 0 stale 0 overlaps 0 ' "$IT_TMP/tmpfs.torn" ||
	fail "tmpfs: locked records: $(cat "$IT_TMP/tmpfs.torn")"

check() { # name part what
	if [ "$(cat "$IT_TMP/$1.$2")" = "$(cat "$IT_TMP/tmpfs.$2")" ]; then
		pass "$1: $3 as on tmpfs"
	else
		fail "$1: $3: rcuvfs: $(head -5 "$IT_TMP/$1.$2") / tmpfs: $(head -5 "$IT_TMP/tmpfs.$2")"
	fi
}

for prof in default apps; do
	if [ $prof = apps ]; then
		mount_rcuvfs "r-$prof" -o apps,size=2g || continue
	else
		mount_rcuvfs "r-$prof" -o size=2g || continue
	fi
	R=$MNT RPID=$PID
	if [ $prof = apps ]; then
		for kv in apps=1 writeback_cache=1 attr_timeout=1 entry_timeout=1; do
			grep -qx "$kv" "$R/.rcuvfs/config" || fail "-o apps: config lacks $kv"
		done
	fi
	for m in DELETE WAL; do
		# the row counts may differ from tmpfs's (a busy error is a
		# reported failure): each must match its own commits
		sqlite_run "$R" $m >"$IT_TMP/$prof.sqlite.$m" 2>&1
		if grep -q '^ok' "$IT_TMP/$prof.sqlite.$m" && grep -q '^ok' "$IT_TMP/tmpfs.sqlite.$m"; then
			pass "$prof: sqlite3 x4 journal_mode=$m: rows = reported commits, integrity_check ok" \
				"($(cat "$IT_TMP/$prof.sqlite.$m"); tmpfs $(cat "$IT_TMP/tmpfs.sqlite.$m"))"
		else
			fail "$prof: sqlite3 x4 journal_mode=$m: $(head -5 "$IT_TMP/$prof.sqlite.$m")" \
				"/ tmpfs: $(head -5 "$IT_TMP/tmpfs.sqlite.$m")"
		fi
	done
	run_all $prof "$R" git torn
	check $prof git "git commit/gc/fsck/clone, commit ids"
	if [ $prof = default ]; then
		run_all $prof "$R" tar
		check $prof tar "tar round trip of the sources (archive and checksums)"
	fi
	if grep -q '^ops [0-9]* torn 0 stale 0 overlaps 0 ' "$IT_TMP/$prof.torn"; then
		pass "$prof: locked records: $(head -1 "$IT_TMP/$prof.torn")"
	else
		fail "$prof: locked records: $(cat "$IT_TMP/$prof.torn")"
	fi
	rm -rf "${R:?}"/* 2>/dev/null
	unmount_rcuvfs "$R" "$RPID"
done

# --- long: the project's build on the mount vs on a tmpfs, at one path ------
if [ $LONG = 1 ]; then
	B=$IT_TMP/build-here
	mkdir -p "$B" "$IT_TMP/objs"
	# one copy of the sources for both builds (the tree may change meanwhile)
	git -C "$SRC" ls-files -z | tar -C "$SRC" --null -T - -cf "$IT_TMP/src.tar"
	build_at() { # name: build the sources at $B, keep the objects
		tar -C "$B" -xf "$IT_TMP/src.tar" &&
			cmake -S "$B" -B "$B/build" >/dev/null &&
			cmake --build "$B/build" -j2 >"$IT_TMP/build-$1.log" 2>&1 &&
			(cd "$B/build" && find . -name '*.o' -print0 | sort -z | xargs -0 sha256sum) >"$IT_TMP/objs/$1"
	}
	mount -t tmpfs -o size=2g none "$B" && IT_MOUNTS+=("$B")
	build_at tmpfs || fail "build on tmpfs: $(tail -5 "$IT_TMP/build-tmpfs.log")"
	umount "$B"
	"$BIN/rcuvfs" "$B" -f -o size=2g >"$IT_TMP/build-here.log" 2>&1 &
	BPID=$!
	IT_PIDS+=("$BPID")
	wait_mounted "$B" || fail "rcuvfs did not mount at $B"
	build_at rcuvfs || fail "build on rcuvfs: $(tail -5 "$IT_TMP/build-rcuvfs.log")"
	n=$(wc -l <"$IT_TMP/objs/tmpfs")
	if [ "$n" -gt 50 ] && cmp -s "$IT_TMP/objs/tmpfs" "$IT_TMP/objs/rcuvfs"; then
		pass "build of the sources: $n objects identical to tmpfs's"
	else
		fail "build of the sources: objects differ ($n on tmpfs): $(diff "$IT_TMP/objs/tmpfs" "$IT_TMP/objs/rcuvfs" | head -5)"
	fi
	rm -rf "${B:?}"/* 2>/dev/null
	unmount_rcuvfs "$B" "$BPID"
fi
it_finish
