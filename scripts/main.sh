#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The main job: install what is missing, build, and demonstrate rcuvfs.
# Run as root (apt-get, FUSE mount).
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
echo "== rcuvfs: lockref get/put in the model (vfs/base) =="
./build/bin/bench_lockref 1000000 2
