#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The main job: install what is missing, build, then
#  1. mount rcuvfs in a temporary directory and run fstat/flock/POSIX-lock
#     stress against tmpfs, the mount and the in-process model, side by side
#     (tests/stress/compare.sh: mounts, measures, unmounts);
#  2. reproduce the 2008 BKL regression in the model (tests/bench/bkl-regression).
# Run as root (apt-get, FUSE mount).  Takes about two minutes.
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh
echo "== build =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
echo "== fstat/flock/lock stress: tmpfs vs rcuvfs mount vs model (1 s per run) =="
RCUVFS_BUILD=$PWD/build ./tests/stress/compare.sh --duration 1 --warmup 0.3
echo
echo "== the BKL regression (SEEDS.md s.6): bkl-mix under three BKL implementations =="
RCUVFS_STRESS=$PWD/build/bin/rcuvfs-stress ./tests/bench/bkl-regression --jobs 300
