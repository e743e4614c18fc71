#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/lockdiff.sh BIN_DIR model|mount SEEDS STEPS CONFIG...:
# the differential lock test (rcuvfs-lockdiff) against the host kernel.
#
#   model  the random lock scripts SEEDS x STEPS and the blocking scenarios,
#          run by real processes on a tmpfs and by the model in-process
#          under each CONFIG (rcuvfs switches, as "filelock=inode"): every
#          transcript line must be identical
#   mount  the same scripts and scenarios on a tmpfs and on an rcuvfs mount
#          started with each CONFIG: identical but for the FUSE protocol's
#          documented limits (rcuvfs-lockdiff normalises exactly those);
#          every daemon must exit 0 at unmount (no leaked model objects)
#
# The tmpfs is a private mount when run as root, else a directory on
# /dev/shm when that is a tmpfs; the mount mode needs root and /dev/fuse
# (else it exits 77: CTest SKIP).
BIN=$1
MODE=$2
SEEDS=$3
STEPS=$4
shift 4 || { echo "usage: $0 BIN_DIR model|mount SEEDS STEPS CONFIG..."; exit 2; }
# no CONFIG would compare nothing and pass
[ $# -gt 0 ] || { echo "usage: $0 BIN_DIR model|mount SEEDS STEPS CONFIG... (at least one CONFIG)"; exit 2; }
LD=$(dirname "$BIN")/tests/rcuvfs-lockdiff # TBIN, before lib.sh sets it
[ -x "$LD" ] || { echo "FAIL: $LD not built"; exit 1; }
. "$(dirname "$0")/lib.sh"

if [ "$MODE" = model ]; then
	if [ "$(id -u)" = 0 ]; then
		IT_TMP=$(mktemp -d /tmp/rcuvfs-lockdiff.XXXXXX)
		trap it_cleanup EXIT
		mount_tmpfs tmpfs 64m || it_finish
		T=$MNT
	elif [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
		T=$(mktemp -d /dev/shm/rcuvfs-lockdiff.XXXXXX)
		trap 'rm -rf "$T"' EXIT
	else
		echo "SKIP: needs root (to mount a tmpfs) or a tmpfs at /dev/shm"
		exit 77
	fi
	if timeout 600 "$LD" model "$T" "$SEEDS" "$STEPS" "$@"; then
		pass "scripts $SEEDS x $STEPS: host and model identical under $*"
	else
		fail "scripts $SEEDS x $STEPS: host and model differ (above)"
	fi
	if timeout 600 "$LD" scen-model "$T" "$@"; then
		pass "scenarios: host and model identical under $*"
	else
		fail "scenarios: host and model differ (above)"
	fi
	it_finish
fi

[ "$MODE" = mount ] || { echo "usage: $0 BIN_DIR model|mount SEEDS STEPS CONFIG..."; exit 2; }
it_setup
mount_tmpfs tmpfs 64m || it_finish
T=$MNT
for cfg in "$@"; do
	mount_rcuvfs "lockdiff" -o "$cfg" || continue
	if timeout 600 "$LD" mount "$T" "$MNT" "$SEEDS" "$STEPS"; then
		pass "$cfg: scripts $SEEDS x $STEPS: tmpfs and mount agree but for the FUSE limits"
	else
		fail "$cfg: scripts $SEEDS x $STEPS: tmpfs and mount differ (above)"
	fi
	if timeout 600 "$LD" scen-mount "$T" "$MNT"; then
		pass "$cfg: scenarios: tmpfs and mount agree but for the FUSE limits"
	else
		fail "$cfg: scenarios: tmpfs and mount differ (above)"
	fi
	unmount_rcuvfs "$MNT" "$PID" && pass "$cfg: unmount, daemon exit 0"
done
it_finish
