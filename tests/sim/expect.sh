#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/sim/expect.sh RCUVFS_SIM SRC [--twice|--regen]
# A small deterministic simulation (fixed topologies, the uniform
# calibration, so that neither this machine nor the build changes a byte):
# open3 on 8 Cascade Lake CPUs under both lockref_relax designs, and bkl-mix
# with 16 tasks on the quad-core under the FIFO and stealing semaphores.
#   (default)  compare with tests/sim/expect.txt
#   --twice    run it twice and compare the two outputs (determinism)
#   --regen    rewrite tests/sim/expect.txt from this build's output
set -eu
SIM=${1:?usage: expect.sh RCUVFS_SIM SRC [--twice|--regen]}
SRC=${2:?usage: expect.sh RCUVFS_SIM SRC [--twice|--regen]}
MODE=${3:-}
T=$SRC/tools/sim/topologies
run() {
	# the first line names the commit: left out
	"$SIM" -T "$T/cascadelake-2x24x2.topo" -C uniform:20 -w open3 -c 8 -d 20 \
		--sweep lockref_relax=1,0 | tail -n +2
	"$SIM" -T "$T/core2-quad.topo" -C uniform:20 -w bkl-mix -c 4 -t 16 -d 200 \
		--sweep bkl=sem-fifo,sem-steal | tail -n +3
}
out=$(mktemp)
trap 'rm -f "$out" "$out.2"' EXIT
run > "$out"
case $MODE in
--regen)
	cp "$out" "$SRC/tests/sim/expect.txt"
	cat "$out"
	;;
--twice)
	run > "$out.2"
	if ! cmp -s "$out" "$out.2"; then
		echo "sim.determinism: two runs differ:"
		diff "$out" "$out.2" || true
		exit 1
	fi
	echo "sim.determinism: two runs, same bytes ($(wc -c < "$out") bytes)"
	;;
*)
	if ! diff -u "$SRC/tests/sim/expect.txt" "$out"; then
		echo "sim.expect: the output differs from tests/sim/expect.txt"
		echo "(if the change is intended: tests/sim/expect.sh BIN SRC --regen, and say why in the commit)"
		exit 1
	fi
	echo "sim.expect: as expected"
	;;
esac
