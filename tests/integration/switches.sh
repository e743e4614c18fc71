#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/switches.sh BIN_DIR: every model switch the daemon
# accepts acts in the daemon, shown through the mount (mode= is checked by
# parity.sh, the file-lock schemes and BKL kinds by filelocks.sh):
#   cache_pages   8 MiB written with cache_pages=64 leaves at most 64 folios
#                 cached (the default keeps all 2048), reclaim wrote the rest
#                 back, reading it again after drop_caches reads the backing
#                 store (store_folio_reads), and the data is exact
#   io_latency_us every backing-store read sleeps: reading back N folios
#                 takes at least N x the latency (a lower bound: sleeps are
#                 never shorter)
#   size          statfs reports it, a write beyond it gets ENOSPC
#   bkl_ops       open, truncate and ioctl take the BKL (bkl_acquisitions),
#                 nothing does without a BKL switch
#   filelock=bkl  flock takes the BKL
# and the daemon refuses the switches of model address spaces.
BIN=$1
. "$(dirname "$0")/lib.sh"
it_setup

stat_of() { awk -v k="$2" '$1 == k {print $2}' "$1/.rcuvfs/stats"; }

head -c 8M /dev/urandom >"$IT_TMP/data" || fail "no test data"

# cache_pages: the default keeps every folio
mount_rcuvfs cache-default && R=$MNT && RPID=$PID
cp "$IT_TMP/data" "$R/d"
f=$(stat_of "$R" vfs_folios) r=$(stat_of "$R" reclaim_freed)
[ "$f" -ge 2048 ] && [ "$r" = 0 ] && pass "cache_pages=0: all $f folios stay, no reclaim" ||
	fail "cache_pages=0: vfs_folios $f reclaim_freed $r"
unmount_rcuvfs "$R" "$RPID"

mount_rcuvfs cache64 -o cache_pages=64 && R=$MNT && RPID=$PID
cp "$IT_TMP/data" "$R/d"
f=$(stat_of "$R" vfs_folios) l=$(stat_of "$R" lru_folios) r=$(stat_of "$R" reclaim_freed)
w=$(stat_of "$R" reclaim_writebacks)
[ "$f" -le 64 ] && [ "$l" -le 64 ] && [ "$r" -ge 1984 ] && [ "$w" -ge 1984 ] &&
	pass "cache_pages=64: $f folios cached after 8 MiB, $r reclaimed ($w written back)" ||
	fail "cache_pages=64: vfs_folios $f lru_folios $l reclaim_freed $r reclaim_writebacks $w"
s0=$(stat_of "$R" store_folio_reads)
echo 3 >/proc/sys/vm/drop_caches
cmp -s "$IT_TMP/data" "$R/d" && pass "cache_pages=64: data exact after reclaim" ||
	fail "cache_pages=64: data differs after reclaim"
s1=$(stat_of "$R" store_folio_reads) f=$(stat_of "$R" vfs_folios)
[ "$((s1 - s0))" -ge 1984 ] && [ "$f" -le 64 ] &&
	pass "cache_pages=64: re-reading read $((s1 - s0)) folios from the store, $f cached" ||
	fail "cache_pages=64: store_folio_reads $s0 -> $s1, vfs_folios $f"
unmount_rcuvfs "$R" "$RPID"

# io_latency_us: a lower bound on the time of backing-store reads
# single-threaded (-s), so that the kernel's parallel readahead requests
# cannot overlap their sleeps
mount_rcuvfs latency -s -o cache_pages=16,io_latency_us=2000 && R=$MNT && RPID=$PID
head -c 1M "$IT_TMP/data" >"$R/d"
echo 3 >/proc/sys/vm/drop_caches
s0=$(stat_of "$R" store_folio_reads)
t0=$(date +%s%N)
cat "$R/d" >/dev/null
t1=$(date +%s%N)
s1=$(stat_of "$R" store_folio_reads)
n=$((s1 - s0)) ms=$(((t1 - t0) / 1000000))
[ "$n" -ge 200 ] && [ "$ms" -ge $((n * 2)) ] &&
	pass "io_latency_us=2000: $n store reads took $ms ms (>= $((n * 2)))" ||
	fail "io_latency_us=2000: $n store reads in $ms ms"
unmount_rcuvfs "$R" "$RPID"

# size
mount_rcuvfs size1m -o size=1m && R=$MNT && RPID=$PID
b=$(stat -f -c %b "$R")
[ "$b" = 256 ] && pass "size=1m: statfs reports 256 blocks" || fail "size=1m: statfs $b blocks"
head -c 2M "$IT_TMP/data" >"$R/big" 2>"$IT_TMP/enospc.err"
grep -q "No space left" "$IT_TMP/enospc.err" && pass "size=1m: a 2 MiB write gets ENOSPC" ||
	fail "size=1m: $(cat "$IT_TMP/enospc.err")"
rm -f "$R/big"
unmount_rcuvfs "$R" "$RPID"

# bkl_ops and filelock=bkl
for opts in "" "bkl_ops=open+setattr+ioctl" "filelock=bkl"; do
	mount_rcuvfs bkl -o "${opts:-bkl=spin}" && R=$MNT && RPID=$PID
	a0=$(stat_of "$R" bkl_acquisitions)
	echo x >"$R/f"
	truncate -s 0 "$R/f"
	python3 -c "import fcntl,os; fd=os.open('$R/f', os.O_RDONLY); fcntl.ioctl(fd, 0xB700); os.close(fd)"
	a1=$(stat_of "$R" bkl_acquisitions)
	flock "$R/f" true
	a2=$(stat_of "$R" bkl_acquisitions)
	case "$opts" in
	"") [ "$a2" = "$a0" ] && pass "no BKL switch: bkl_acquisitions stays $a0" ||
		fail "default: bkl_acquisitions $a0 -> $a2" ;;
	bkl_ops*) [ "$((a1 - a0))" -ge 4 ] &&
		pass "$opts: open, truncate, ioctl took the BKL $((a1 - a0)) times" ||
		fail "$opts: bkl_acquisitions $a0 -> $a1 -> $a2" ;;
	filelock=bkl) [ "$a1" = "$a0" ] && [ "$((a2 - a1))" -ge 2 ] &&
		pass "$opts: flock took the BKL $((a2 - a1)) times, other paths none" ||
		fail "$opts: bkl_acquisitions $a0 -> $a1 -> $a2" ;;
	esac
	unmount_rcuvfs "$R" "$RPID"
done

# switches of model address spaces: refused in one line
for sw in pte_recheck=0 fork_vma_lock=never anon_vma_fault=refuse rss_counters=single \
	vma_lock=refcnt vm_area_cache=sheaves; do
	"$BIN/rcuvfs" "$IT_TMP/none" -o "$sw" >"$IT_TMP/sw.log" 2>&1 && fail "-o $sw accepted"
	[ "$(wc -l <"$IT_TMP/sw.log")" = 1 ] && grep -q "would do nothing here" "$IT_TMP/sw.log" &&
		pass "-o $sw refused: does nothing on a mount" || fail "-o $sw: $(cat "$IT_TMP/sw.log")"
done
it_finish
