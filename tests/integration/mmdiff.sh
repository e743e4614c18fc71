#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/mmdiff.sh TESTS_DIR SEEDS STEPS CONFIG...: the
# differential address-space test (rcuvfs-mmdiff) against the host kernel.
# The seeded mm scripts SEEDS x STEPS run in a real process, with its
# scratch files on a tmpfs, and in a model process under each CONFIG
# (rcuvfs switches, as "vma_lock=refcnt,vm_area_cache=typesafe"): every
# transcript line must be identical.  MMDIFF_OPS, when set, is passed as
# --ops.  The tmpfs is /dev/shm; without one the test exits 77 (CTest SKIP).
BIN=$1
SEEDS=$2
STEPS=$3
shift 3 || { echo "usage: $0 TESTS_DIR SEEDS STEPS CONFIG..."; exit 2; }
[ $# -gt 0 ] || { echo "usage: $0 TESTS_DIR SEEDS STEPS CONFIG... (at least one CONFIG)"; exit 2; }
MD=$BIN/rcuvfs-mmdiff
[ -x "$MD" ] || { echo "FAIL: $MD not built"; exit 1; }
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" != tmpfs ]; then
	echo "SKIP: /dev/shm is not a tmpfs"
	exit 77
fi
D=$(mktemp -d /dev/shm/rcuvfs-mmdiff.XXXXXX) || exit 1
trap 'rm -rf "$D"' EXIT
args=()
[ -n "$MMDIFF_OPS" ] && args+=(--ops "$MMDIFF_OPS")
for cfg in "$@"; do
	args+=(-o "$cfg")
done
"$MD" --dir "$D" --seeds "$SEEDS" --steps "$STEPS" "${args[@]}"
rc=$?
case $rc in
0) echo "PASS: scripts $SEEDS x $STEPS: host and model identical under $*" ;;
1) echo "FAIL: scripts $SEEDS x $STEPS: host and model differ (above)" ;;
*) echo "FAIL: rcuvfs-mmdiff exited $rc" ;;
esac
[ $rc = 0 ]
