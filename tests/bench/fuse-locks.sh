#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/bench/fuse-locks.sh - file-lock request path through the mount:
# flock and POSIX lock/unlock loops at 1 and 2 processes against rcuvfs
# (each filelock scheme), the FUSE floor daemon (answers flock, getlk and
# setlk at once) and tmpfs, in one run, alternating targets in every round.
#
#   tests/bench/fuse-locks.sh [--build DIR] [--duration S] [--repeat N]
#                             [--tasks LIST]       (as root: it mounts)
#
# Prints the median ops/s per cell (one op = lock + unlock) and the ratio of
# each target to the floor.  Workers
# lock private files (flock) or private byte ranges (posix): the loops time
# the request path, not contention.  Environment: SECS [2], ROUNDS [3],
# WORKERS [1 2] (the defaults of --duration, --repeat, --tasks), CONFIGS
# [filelock=global filelock=bkl filelock=inode] (rcuvfs -o option sets;
# "default" = no options).
#
# It is a thin wrapper around tests/bench/fuse-floor/run.sh (same mounts,
# same load generator, same table), with the lock loops selected.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bench_usage="usage: ${0##*/} [-b|--build DIR] [-d|--duration S] [-r|--repeat N] [-t|--tasks LIST]
flock and POSIX lock loops through rcuvfs (per filelock scheme), the FUSE
floor daemon and tmpfs (as root: it mounts).
  -b, --build DIR    the build tree (default build)
  -d, --duration S   seconds per run (default \$SECS, else 2)
  -r, --repeat N     rounds, targets alternating (default \$ROUNDS, else 3)
  -t, --tasks LIST   worker process counts (default \$WORKERS, else 1,2)
Environment: CONFIGS [filelock=global filelock=bkl filelock=inode]"
bench_takes="duration repeat tasks"
BUILD=build DURATION=${SECS:-2} REPEAT=${ROUNDS:-3} TASKS=${WORKERS:-1 2}
. "$here/args.sh"
bench_args "$@"
export MODES="flock posix"
export RCUVFS_CONFIGS=${CONFIGS:-filelock=global filelock=bkl filelock=inode}
exec "$here/fuse-floor/run.sh" --build "$BUILD" --duration "$DURATION" --repeat "$REPEAT" \
	--tasks "$(echo $TASKS | tr ' ' ,)"
