#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tools/sim/host-topo.sh RCUVFS_SIM [OUT] - describe this machine as an
# rcuvfs-sim topology: its shape from /sys (packages, cores, SMT siblings),
# its latencies measured by `rcuvfs-sim --measure-host` (a line bounced
# between two cores, two SMT siblings, two sockets when it has them; PAUSE,
# a locked cmpxchg, futex wake-up and switch).  What the machine does not
# have is marked "estimate" with the figure it falls back to.
set -eu
SIM=${1:?usage: host-topo.sh RCUVFS_SIM [OUT]}
OUT=${2:-/dev/stdout}
sysd=/sys/devices/system/cpu
ncpu=$(ls -d $sysd/cpu[0-9]* | wc -l)
pkg() { cat $sysd/cpu$1/topology/physical_package_id; }
core() { cat $sysd/cpu$1/topology/core_id; }
sockets=$(for c in $(seq 0 $((ncpu - 1))); do pkg $c; done | sort -u | wc -l)
threads=$(cat $sysd/cpu0/topology/thread_siblings_list | tr ',' '\n' | while read r; do
	case $r in *-*) echo $(( ${r#*-} - ${r%-*} + 1 ));; *) echo 1;; esac; done | paste -sd+ | bc)
cores=$((ncpu / sockets / threads))
# partner CPUs of CPU 0: another core of its socket, its sibling, another socket
other_core= sib= other_sock=
for c in $(seq 1 $((ncpu - 1))); do
	if [ "$(pkg $c)" != "$(pkg 0)" ]; then [ -n "$other_sock" ] || other_sock=$c
	elif [ "$(core $c)" = "$(core 0)" ]; then [ -n "$sib" ] || sib=$c
	else [ -n "$other_core" ] || other_core=$c; fi
done
when=$(date -u +%Y-%m-%d)
model=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
meas() { "$SIM" --measure-host "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
m0=$("$SIM" --measure-host "0,${other_core:-${sib:-${other_sock:-0}}}")
get() { echo "$m0" | awk -v k="$1" '$1 == k { print $2 }'; }
src="source: measured on this machine ($model) by rcuvfs-sim --measure-host on $when"
xfer=$(get xfer_ns)
if [ -n "$xfer" ]; then core_line="core_ns = $xfer   # $src (CPUs 0,$other_core)"
else core_line="core_ns = 50   # estimate: a single core here (unused): no transfer to measure"; fi
if [ -n "$sib" ]; then s=$(meas 0,$sib xfer_ns); smt_line="smt_ns = $s   # $src (CPUs 0,$sib)"
else smt_line="smt_ns = ${xfer:-50}   # estimate: no SMT siblings here (unused): as core_ns"; fi
if [ -n "$other_sock" ]; then s=$(meas 0,$other_sock xfer_ns); sock_line="socket_ns = $s   # $src (CPUs 0,$other_sock)"
else sock_line="socket_ns = ${xfer:-50}   # estimate: one socket here (unused): as core_ns"; fi
if [ -n "$other_core" ]; then wake_line="wake_ns = $(get wake_ns)   # $src (futex ping-pong 0,$other_core: wake-up plus switch)"
else wake_line="wake_ns = $(get ctxsw_ns)   # estimate: one core here: as ctxsw_ns"; fi
n=$ncpu; [ $n -gt 8 ] && n=8; lg=0; while [ $n -gt 1 ]; do n=$((n / 2)); lg=$((lg + 1)); done
cat > "$OUT" <<EOT
# SPDX-License-Identifier: GPL-2.0-or-later
# This machine as rcuvfs-sim sees it, written by tools/sim/host-topo.sh on $when:
# $model, $sockets socket(s) x $cores core(s) x $threads thread(s) (from /sys).
name = host-$(hostname | tr -c 'a-zA-Z0-9\n' -)
sockets = $sockets
cores = $cores
threads = $threads
$smt_line
$core_line
$sock_line
llc_ns = $(awk -v x="${xfer:-50}" 'BEGIN { printf "%.1f", x / 2 }')   # estimate: not measured; half a core-to-core transfer (first touches only)
atomic_ns = $(get atomic_ns)   # $src
pause_ns = $(get pause_ns)   # $src
$wake_line
ctxsw_ns = $(get ctxsw_ns)   # $src (futex ping-pong on CPU 0)
slice_ns = $((750000 * (1 + lg)))   # source: kernel/sched/fair.c, 0.75 ms x (1 + ilog2(min(ncpus, 8)))
EOT
