#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/fuse-locks.sh - file-lock request path through the mount:
# flock and POSIX lock/unlock loops at 1 and 2 processes against rcuvfs
# (each filelock scheme), the FUSE floor daemon (answers flock, getlk and
# setlk at once) and tmpfs, in one run, alternating targets in every round.
#
#   tests/bench/fuse-locks.sh [BUILD_DIR]          (as root: it mounts)
#
# Prints the median ops/s per cell (one op = lock + unlock) and the ratio of
# each target to the floor.  Workers
# lock private files (flock) or private byte ranges (posix): the loops time
# the request path, not contention.  Environment: SECS [2], ROUNDS [3],
# WORKERS [1 2], CONFIGS [filelock=global filelock=bkl filelock=inode]
# (rcuvfs -o option sets; "default" = no options).
#
# It is a thin wrapper around tests/bench/fuse-floor/run.sh (same mounts,
# same load generator, same table), with the lock loops selected.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-build}
export MODES="flock posix"
export WORKERS=${WORKERS:-1 2}
export SECS=${SECS:-2}
export ROUNDS=${ROUNDS:-3}
export RCUVFS_CONFIGS=${CONFIGS:-filelock=global filelock=bkl filelock=inode}
exec "$here/fuse-floor/run.sh" "$BUILD"
