#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/users.sh BIN_DIR: a non-root user on a mount made by
# root.  The user is uid/gid 65534 (nobody), which rcuvfs-battery becomes
# with setuid in a child: no account is needed.
#  - with allow_other (default_permissions is always on): the same calls as
#    that user on the mount and on a tmpfs answer the same (rcuvfs-battery
#    perms: search and read bits, group class, setgid directories, S_ISUID
#    cleared by a write, protected hardlinks, sticky directories, times,
#    xattr namespaces), and the control directory refuses every change
#    (rcuvfs-battery ctl-user, against the list below);
#  - without allow_other: every call of that user answers EACCES, the
#    mount's root made 0777 first (rcuvfs-battery denied), while root's
#    calls still work.
BIN=$1
. "$(dirname "$0")/lib.sh"
it_setup

mount_tmpfs tmpfs 16m && T=$MNT
# the mount's root keeps its 1777 (as tmpfs's): the user may write there,
# not touch the control directory
IT_KEEP_ROOT_MODE=1 mount_rcuvfs rcuvfs -o allow_other && R=$MNT && RPID=$PID
"$TBIN/rcuvfs-battery" "$T" perms >"$IT_TMP/perms.tmpfs" 2>&1 || fail "perms on tmpfs exited $?"
"$TBIN/rcuvfs-battery" "$R" perms >"$IT_TMP/perms.rcuvfs" 2>&1 || fail "perms on rcuvfs exited $?"
if ! grep -q '^perms.after' "$IT_TMP/perms.tmpfs"; then
	fail "perms did not run on tmpfs: $(head -3 "$IT_TMP/perms.tmpfs")"
elif diff -u "$IT_TMP/perms.tmpfs" "$IT_TMP/perms.rcuvfs"; then
	pass "allow_other: modes enforced as on tmpfs ($(grep -c . "$IT_TMP/perms.tmpfs") answers)"
else
	fail "allow_other: a user's calls answer otherwise than on tmpfs (diff above)"
fi

cat >"$IT_TMP/ctl-user.expected" <<'EXP'
ctl-user.config_lines_ok: 1
ctl-user.write_stats: EACCES
ctl-user.rdwr_config: EACCES
ctl-user.trunc_config: EACCES
ctl-user.create: EACCES
ctl-user.mkdir: EACCES
ctl-user.symlink: EACCES
ctl-user.unlink: EACCES
ctl-user.rename_in: EACCES
ctl-user.rename_out: EACCES
ctl-user.rename_into: EACCES
ctl-user.link_out: EPERM
ctl-user.chmod: EPERM
ctl-user.chmod_dir: EPERM
ctl-user.chown: EPERM
ctl-user.truncate: EACCES
ctl-user.utimes_now: EACCES
ctl-user.xattr_set: EACCES
ctl-user.xattr_get: ENODATA
ctl-user.rmdir_self: EPERM
ctl-user.rename_self: EPERM
ctl-user.stat: ok
EXP
before=$(sha256sum <"$R/.rcuvfs/config")
"$TBIN/rcuvfs-battery" "$R" ctl-user >"$IT_TMP/ctl-user.out" 2>&1
if diff -u "$IT_TMP/ctl-user.expected" "$IT_TMP/ctl-user.out"; then
	pass "allow_other: the control directory is readable, every change refused"
else
	fail "allow_other: the control directory as a user (diff above)"
fi
[ "$(sha256sum <"$R/.rcuvfs/config")" = "$before" ] && [ "$(ls "$R/.rcuvfs" | tr '\n' ' ')" = "config locks slabinfo stats stats-help " ] &&
	pass "allow_other: the control directory is as it was" ||
	fail "allow_other: the control directory changed: $(ls -la "$R/.rcuvfs")"
unmount_rcuvfs "$R" "$RPID" && pass "allow_other: daemon exited 0, nothing in its log"

mount_rcuvfs private && R=$MNT && RPID=$PID
"$TBIN/rcuvfs-battery" "$R" denied >"$IT_TMP/denied.out" 2>&1
n=$(grep -c ': EACCES$' "$IT_TMP/denied.out")
if [ "$n" = 13 ] && [ "$(grep -c . "$IT_TMP/denied.out")" = 13 ]; then
	pass "without allow_other: all $n calls of another user answer EACCES"
else
	fail "without allow_other: $(grep -v ': EACCES$' "$IT_TMP/denied.out" | head -5)"
fi
[ "$(cat "$R/f")" = f ] && stat "$R/.rcuvfs/config" >/dev/null &&
	pass "without allow_other: root's calls work" || fail "without allow_other: root's calls"
unmount_rcuvfs "$R" "$RPID" && pass "without allow_other: daemon exited 0, nothing in its log"
it_finish
