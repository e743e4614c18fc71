#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# subdir-test.sh SRC: a user's project takes rcuvfs in with add_subdirectory
# (BUILD_TESTING off: no CUnit, no tests) and links rcuvfs::rcuvfs; the
# program builds and runs.  Compiles the model once more (about 10 s).
set -eu
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.18)
project(user C)
set(BUILD_TESTING OFF)
add_subdirectory($src rcuvfs)
add_executable(consumer $src/tests/install/consumer/main.c)
target_link_libraries(consumer PRIVATE rcuvfs::rcuvfs)
CM
cmake -S "$tmp" -B "$tmp/b" >"$tmp/log" 2>&1 &&
	cmake --build "$tmp/b" -j"$(nproc)" --target consumer >>"$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; echo "FAIL: add_subdirectory build"; exit 1; }
"$tmp/b/consumer"
