#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The main job: install what is missing, build (progress shown), then
# measure, saving everything into out/<UTC date and time>/:
#  1. fstat/flock/POSIX-lock loops against tmpfs, a fresh rcuvfs mount and
#     the in-process model, side by side (tests/stress/compare.sh);
#  2. the 2008 BKL regression in the model: bkl-mix under the three BKL
#     implementations (tests/bench/bkl-regression);
#  3. pte_recheck 1, rfc and 0 on page_fault2/3 and fork_vma_lock on fork-vmas, in
#     the model (rcuvfs-stress --sweep --repeat);
#  4. scaling of the will-it-scale namesakes on tmpfs, 1 and all CPUs;
#  5. the allocator steps of the sheaves series' mmap test in the model,
#     beside the series' figures (tests/bench/mmap-cycle.sh);
#  6. the seeds' 4-96 CPU comparisons on simulated CPUs (rcuvfs-sim,
#     tests/bench/sim-seeds.sh), with the seed's figure beside each;
# each as CSV and JSON where rcuvfs-stress wrote them, the tables as text,
# PNG plots (rcuvfs-plot) and summary.md, which shows the tables and embeds
# the plots.  Prints where.  Run as root (apt-get, FUSE mount).  About
# four minutes on 2 CPUs after the build, and ten more for the simulation.
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh
out=${RCUVFS_OUT:-out/$(date -u +%Y-%m-%dT%H%M%SZ)}
mkdir -p "$out"
jobs=$(nproc)
echo "== build (build/, RelWithDebInfo, $jobs jobs) =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$jobs"
bin=$PWD/build/bin
stress=$bin/rcuvfs-stress
tmpfs=/dev/shm
[ -d "$tmpfs" ] || tmpfs=/tmp
cpus=$(nproc)
tasks=1
[ "$cpus" -gt 1 ] && tasks=1,$cpus

section() { echo; echo "== $1 =="; }
# run NAME ARGS...: rcuvfs-stress writing out/NAME.{csv,json,txt}
run() {
	name=$1
	shift
	"$stress" "$@" --csv "$out/$name.csv" --json "$out/$name.json" | tee "$out/$name.txt"
}

section "1. fstat/flock/lock: tmpfs vs rcuvfs mount vs model, 3 rounds of 0.5 s"
RCUVFS_BUILD=$PWD/build ./tests/stress/compare.sh --repeat 3 --duration 0.5 --warmup 0.2 \
	--csv "$out/compare.csv" | tee "$out/compare.txt"

section "2. the BKL regression: bkl-mix under three BKL implementations, 3 rounds"
./tests/bench/bkl-regression --stress "$stress" --jobs 300 --repeat 3 --csv "$out/bkl.csv" |
	tee "$out/bkl.txt"

section "3a. pte_recheck 1, rfc and 0: page_fault2/3 in the model, 3 rounds"
run pte_recheck --model --sweep pte_recheck=1,rfc,0 --workload page_fault2,page_fault3 \
	--tasks "$tasks" --duration 1 --warmup 0.2 --repeat 3 --quiet
section "3b. fork_vma_lock: fork of a process with 10,000 VMAs in the model, 3 rounds"
run fork_vma_lock --model --sweep fork_vma_lock=always,elide-single,never --workload fork-vmas \
	--tasks 1 --duration 1 --warmup 0.2 --repeat 3 --quiet

section "4. scaling on $tmpfs: will-it-scale's namesakes, 3 rounds"
run scaling --path "$tmpfs" --workload fstat1,fstat2,open1,lock1,lock2,flock1 \
	--tasks "$tasks" --duration 0.5 --warmup 0.2 --repeat 3 --verify --quiet

section "5. allocators: the sheaves series' mmap test in the model, 3,000 cycles per step"
./tests/bench/mmap-cycle.sh --stress "$stress" --iters 3000 --csv "$out/allocators.csv" |
	tee "$out/allocators.txt"

section "6. simulated CPUs: the seeds' comparisons on their topologies (rcuvfs-sim)"
./scripts/sim-plots.sh --build build --out "$out" | tee "$out/sim.log"
simplots=$(sed '1,/^plots:$/d' "$out/sim.log")

section "plots"
plots=$("$bin/rcuvfs-plot" --out "$out" "$out/bkl.csv" "$out/pte_recheck.csv" \
	"$out/fork_vma_lock.csv" "$out/scaling.csv" "$out/allocators.csv" || true)
# the simulated ones (section 6): ops/s against CPUs, one line per design
plots="$plots
$simplots"
echo "$plots"

# summary.md: the tables and the plots
{
	echo "# rcuvfs main job, $(date -u +%Y-%m-%d)"
	echo
	echo "$(grep -m1 '^# cpu_model: ' "$out/scaling.csv" | sed 's/^# cpu_model: //'), $cpus CPUs," \
		"kernel $(uname -r), rcuvfs $("$stress" --version | sed 's/^rcuvfs-stress //')."
	echo "Figures from one run on this machine: compare ratios within a table;"
	echo "docs/benchmarks.md says what a small machine can and cannot show."
	echo
	img() { [ -f "$out/$1" ] && printf '\n![%s](%s)\n' "$1" "$1"; return 0; }
	table() { echo; echo '```'; cat "$out/$1"; echo '```'; }
	echo "## 1. tmpfs vs rcuvfs vs the model"
	table compare.txt
	echo
	echo "## 2. The BKL regression (bkl-mix, 256 tasks)"
	table bkl.txt
	img bkl-ratios.png
	echo
	echo "## 3. pte_recheck and fork_vma_lock in the model"
	table pte_recheck.txt
	img pte_recheck-ratios.png
	img pte_recheck-scaling.png
	table fork_vma_lock.txt
	img fork_vma_lock-ratios.png
	echo
	echo "## 4. Scaling on tmpfs"
	table scaling.txt
	img scaling-scaling.png
	echo
	echo "## 5. Allocators: the sheaves series' mmap test"
	echo
	echo "Time in mmap and munmap per step relative to the baseline (slab=slub), beside"
	echo "the series' own figures for little, medium and big cores (seed_*)."
	table allocators.txt
	img allocators-ratios.png
	echo
	echo "## 6. Simulated CPUs (rcuvfs-sim; docs/sim.md says what it can and cannot show)"
	table sim.txt
	for p in lockref-open3 lockref-fstat2 exec1 fileref-fstat2 fileref-dup1 \
		get_file_rcu-fstat2 get_file_rcu-dup1; do
		img "sim/$p-scaling.png"
	done
	echo
	echo "Files: $(cd "$out" && ls | tr '\n' ' ')"
} >"$out/summary.md"
echo
echo "rcuvfs: results in $out/ (summary.md, CSV, JSON, PNG)"
