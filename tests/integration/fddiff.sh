#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/fddiff.sh TEST_BIN_DIR (build/tests) SEEDS STEPS CONFIG...: the
# differential fd-table test (rcuvfs-fddiff) against the host kernel: the
# seeded scripts SEEDS x STEPS run by real processes with their files in a
# scratch directory on /dev/shm (a tmpfs) and by the model in-process under
# each CONFIG (rcuvfs switches, as "fileref=file-ref"): every transcript
# line must be identical.  Without a tmpfs at /dev/shm it exits 77 (CTest
# SKIP).
BIN=$1
SEEDS=$2
STEPS=$3
shift 3 2>/dev/null || { echo "usage: $0 BIN_DIR SEEDS STEPS CONFIG..."; exit 2; }
# no CONFIG would compare nothing and pass
[ $# -gt 0 ] || { echo "usage: $0 BIN_DIR SEEDS STEPS CONFIG... (at least one CONFIG)"; exit 2; }
FD=$BIN/rcuvfs-fddiff
[ -x "$FD" ] || { echo "FAIL: $FD not built"; exit 1; }
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" != tmpfs ]; then
	echo "SKIP: /dev/shm is not a tmpfs"
	exit 77
fi
T=$(mktemp -d /dev/shm/rcuvfs-fddiff.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
if "$FD" model "$T" "$SEEDS" "$STEPS" "$@"; then
	echo "PASS: fd tables, $SEEDS x $STEPS: host and model identical under $*"
	exit 0
fi
echo "FAIL: fd tables, $SEEDS x $STEPS: host and model differ or the run failed (above)"
exit 1
