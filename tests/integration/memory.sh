#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/memory.sh BIN_DIR: the daemon gives memory back.
# Page data costs one malloc'd page per page (not two), and after large
# frees the caches return their empty slabs and the heap its free pages
# (kmem_cache_shrink_all).  Start: the daemon's RSS (rss_bytes in
# /.rcuvfs/stats) once its worker threads exist (after a 16 MiB warm-up).
# Then 256 MiB in one file, and 5,000 small files: while they exist the
# RSS holds the data (at most 1.1 x its size above the start), and once
# they are removed and the kernel forgot them (vfs_folios 0, vfs_inodes 1)
# the RSS returns within 2x of the start.
BIN=$1
. "$(dirname "$0")/lib.sh"
it_setup
# ASan's allocator keeps freed memory in quarantine and ignores
# malloc_trim: the RSS would measure ASan, not the daemon
if ldd "$BIN/rcuvfs" 2>/dev/null | grep -q libasan; then
	echo "SKIP: an ASan build's RSS is ASan's quarantine"
	exit 77
fi

stat_of() { awk -v k="$2" '$1 == k {print $2}' "$1/.rcuvfs/stats"; }

# wait (bounded, 60 s) until the model holds only the root, then until the
# RSS is within 2x of $start (the heap trim runs from an RCU callback)
settle() {
	local i
	for ((i = 0; i < 600; i++)); do
		echo 2 >/proc/sys/vm/drop_caches
		[ "$(stat_of "$R" vfs_folios)" = 0 ] && [ "$(stat_of "$R" vfs_inodes)" = 1 ] && break
		sleep 0.1
	done
	for ((i = 0; i < 600; i++)); do
		[ "$(stat_of "$R" rss_bytes)" -le $((2 * start)) ] && return 0
		sleep 0.1
	done
	return 1
}

mount_rcuvfs mem && R=$MNT && RPID=$PID
head -c 16M /dev/zero >"$R/warm"
rm "$R/warm"
start=$((1 << 60)) # the first settle only waits for the model
settle
start=$(stat_of "$R" rss_bytes)
[ "$start" -gt 0 ] || fail "no rss_bytes in stats"

head -c 256M /dev/zero | tr '\0' 'x' >"$R/big"
rss=$(stat_of "$R" rss_bytes)
[ "$rss" -le $((start + 256 * 1024 * 1024 * 11 / 10)) ] &&
	pass "256 MiB written: RSS $((rss >> 20)) MiB (start $((start >> 20)) MiB): one page per page" ||
	fail "256 MiB written: RSS $((rss >> 20)) MiB from $((start >> 20)) MiB"
rm "$R/big"
if settle; then
	pass "256 MiB removed: RSS $(($(stat_of "$R" rss_bytes) >> 10)) KiB, start $((start >> 10)) KiB"
else
	fail "256 MiB removed: RSS $(stat_of "$R" rss_bytes) > 2 x $start (vfs_folios $(stat_of "$R" vfs_folios))"
fi

mkdir "$R/small"
python3 -c "
import os
for i in range(5000):
    with open('$R/small/%d' % i, 'wb') as f:
        f.write(b's' * 4096)
" || fail "creating the small files"

n=$(stat_of "$R" vfs_inodes)
[ "$n" -ge 5001 ] || fail "5,000 small files: vfs_inodes $n"
rm -rf "$R/small"
if settle; then
	pass "5,000 small files removed: RSS $(($(stat_of "$R" rss_bytes) >> 10)) KiB, start $((start >> 10)) KiB ($(stat_of "$R" slab_shrunk_slabs) slabs given back)"
else
	fail "5,000 small files removed: RSS $(stat_of "$R" rss_bytes) > 2 x $start"
fi
unmount_rcuvfs "$R" "$RPID" && pass "unmount: daemon exited 0"
it_finish
