#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole test suite: installs what is missing, builds with -Werror, runs
# every CTest test (unit, integration on real FUSE mounts, stress, and the
# benchmarks' smoke runs, label bench: about a minute), then
# builds with ASan+UBSan and runs every test again (the daemon's leak check
# at unmount included).  Run as root (FUSE
# mounts, apt-get).  RCUVFS_LONG_TESTS=1 adds the long runs.
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh
jobs=$(nproc)
long=${RCUVFS_LONG_TESTS:-0}
[ "$long" = 1 ] && long=ON || long=OFF

echo "== build (-Werror) =="
cmake -S . -B build -DRCUVFS_WERROR=ON -DRCUVFS_LONG_TESTS=$long >/dev/null
cmake --build build -j"$jobs"
# Tests run $jobs at a time; the ones that mount or must not share the
# machine are RUN_SERIAL in their CMakeLists (ctest runs those alone), and
# no test's outcome depends on time, so a busier machine changes only how
# long the run takes.
run_tests() { # build dir
	echo "== $1: unit tests (CUnit run summaries below) =="
	(cd "$1" && ctest -V -L unit --timeout 900 -j"$jobs")
	echo "== $1: integration (real FUSE mounts) and stress tests =="
	(cd "$1" && ctest --output-on-failure -LE unit --timeout 900 -j"$jobs")
}
run_tests build

echo "== build (ASan+UBSan) =="
cmake -S . -B build-asan -DRCUVFS_WERROR=ON -DRCUVFS_SANITIZE=ON -DRCUVFS_LONG_TESTS=$long >/dev/null
cmake --build build-asan -j"$jobs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_tests build-asan
echo "rcuvfs: all tests passed (normal and ASan+UBSan builds)"
