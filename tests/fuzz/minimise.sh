#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/fuzz/minimise.sh BIN_DIR SEED CALL [OPTIONS]: the fewest calls of
# rcuvfs-fuzz SEED up to CALL (the first call whose answer differs, as
# fuzz.sh prints it) whose answers still differ between tmpfs and an rcuvfs
# mount (started with -o OPTIONS when given).
#
# rcuvfs-fuzz draws every call's arguments whatever the earlier answers were,
# so leaving calls out (RCUVFS_FUZZ_KEEP) changes no other call's arguments.
# The search removes runs of calls, halving the run length down to one call
# while a removal keeps the logs different (ddmin's complement step); CALL
# itself is always kept.  It prints the calls kept, with both logs, and the
# RCUVFS_FUZZ_KEEP value that replays them:
#   RCUVFS_FUZZ_DIFF=1 RCUVFS_FUZZ_KEEP=LIST rcuvfs-fuzz DIR SEED CALL+1
BIN=$1 SEED=$2 CALL=$3 OPTS=${4:-}
. "$(dirname "$0")/../integration/lib.sh"
[ -n "$CALL" ] || { echo "usage: minimise.sh BIN_DIR SEED CALL [OPTIONS]"; exit 2; }
it_setup
export RCUVFS_FUZZ_DIFF=1

mount_tmpfs tmpfs 64m && T=$MNT
IT_KEEP_ROOT_MODE=1 mount_rcuvfs rcuvfs -o "allow_other,size=64m${OPTS:+,$OPTS}" && R=$MNT && RPID=$PID
chmod 755 "$R"
n=0

# differs LIST: whether the calls in LIST answer differently on the two
differs() {
	n=$((n + 1))
	rm -rf "$T/m" "$R/m"
	mkdir "$T/m" "$R/m"
	RCUVFS_FUZZ_KEEP=$1 "$TBIN/rcuvfs-fuzz" "$T/m" "$SEED" $((CALL + 1)) >"$IT_TMP/t" 2>&1 </dev/null
	RCUVFS_FUZZ_KEEP=$1 "$TBIN/rcuvfs-fuzz" "$R/m" "$SEED" $((CALL + 1)) >"$IT_TMP/r" 2>&1 </dev/null
	! cmp -s "$IT_TMP/t" "$IT_TMP/r"
}

joined() { local IFS=,; echo "$*"; }

keep=($(seq 0 "$CALL"))
differs "$(joined "${keep[@]}")" || { fail "seed $SEED: calls 0..$CALL answer alike"; it_finish; }
chunk=$(((${#keep[@]} + 1) / 2))
while [ "$chunk" -ge 1 ]; do
	i=0
	while [ "$i" -lt $((${#keep[@]} - 1)) ]; do
		# leave out keep[i .. i+chunk-1], never the last call
		end=$((i + chunk))
		[ "$end" -gt $((${#keep[@]} - 1)) ] && end=$((${#keep[@]} - 1))
		try=("${keep[@]:0:i}" "${keep[@]:end}")
		if differs "$(joined "${try[@]}")"; then
			keep=("${try[@]}")
		else
			i=$end
		fi
	done
	[ "$chunk" = 1 ] && break
	chunk=$(((chunk + 1) / 2))
done
list=$(joined "${keep[@]}")
differs "$list"
echo "seed $SEED: ${#keep[@]} calls of $((CALL + 1)) still differ ($n runs); RCUVFS_FUZZ_KEEP=$list"
echo "--- tmpfs"; cat "$IT_TMP/t"
echo "--- rcuvfs"; cat "$IT_TMP/r"
unmount_rcuvfs "$R" "$RPID" || true
it_finish
