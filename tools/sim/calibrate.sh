#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tools/sim/calibrate.sh RCUVFS_SIM OUT - the calibration the seed comparisons
# use: every workload and design they run, measured on this machine (one
# task, one CPU; see docs/sim.md "Calibration"), in one file with a section
# per workload (a workload calibrated twice: its later pairs override).
set -eu
SIM=${1:?usage: calibrate.sh RCUVFS_SIM OUT}
OUT=${2:?usage: calibrate.sh RCUVFS_SIM OUT}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
cal() { i=$((i + 1)); "$SIM" --calibrate "$tmp/$i.cal" "$@"; }
cal -w fstat2,open3,dup1,fstat1,open1 --sweep lockref_relax=1,0
cal -w fstat2,dup1 --sweep fileref=inc-not-zero,file-ref
cal -w fstat2,dup1 --sweep get_file_rcu=inline,out-of-line
# fstat2 as the lockref comparison runs it: processes, the pre-6.6 empty-path walk
cal -w fstat2 -m processes -o stat_empty_path=walk --sweep lockref_relax=1,0
cal -w exec1 --sweep rss_counters=group,single --calibrate-ops 5000
cal -w bkl-mix --sweep bkl=spin,sem-fifo,sem-steal
cal -w zero -m processes --sweep new_inode_prefetch=1,0 --calibrate-ops 5000
cal -w fork-vmas -m processes -p vmas=1000 --sweep fork_vma_lock=always,never,elide-single --calibrate-ops 200
{ head -1 "$tmp/1.cal"; for f in $(ls "$tmp"/*.cal | sort -t/ -k2 -n); do grep -v '^# rcuvfs-sim calibration' "$f"; done; } > "$OUT"
