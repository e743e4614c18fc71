// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_xattr.c - extended attributes set, removed, read and
 * listed concurrently on one tmpfs inode (vfs/xattr.c).
 *
 * The file starts with user.a = "0".  T0 replaces user.a with "1"
 * (XATTR_REPLACE) and then creates user.b = "2" (XATTR_CREATE); T1 reads
 * user.a, creates user.b = "3" (XATTR_CREATE: exactly one of the two
 * creates may succeed) and lists the names.  Results are
 * instance-independent (a value's digit, a listing as a bit set of names,
 * an errno) and must be those of some serial order: a get that sees no
 * user.a while it is being replaced, a listing that misses a name present
 * throughout, two successful creates, all fail it.  The check adds the
 * end state: user.b holds the value of the create that succeeded.
 *
 * Shown to catch (a temporary edit): __vfs_setxattr replacing in two
 * critical sections (unlink the old entry, drop and retake i_xattr_lock,
 * insert the new one) lets get(user.a) answer ENODATA, found after 157
 * schedules (xattr-race@5.1).  Re-taking the lock between the existence
 * check and the insert is equivalent (one critical section still holds
 * both) and survives.
 *
 * Locking: setup, check and teardown run on the driver while no task runs.
 */
#include "explore.h"

#include <string.h>

struct xattr_priv {
	struct file *f;
};

static long xa_get(struct inode *inode, const char *name)
{
	char v[8];
	ssize_t n = vfs_getxattr(inode, name, v, sizeof(v), NULL);

	if (n < 0)
		return n;
	if (n != 1 || v[0] < '0' || v[0] > '9')
		return -EPROTO;
	return v[0] - '0';
}

/* A listing as a bit set: 1 user.a, 2 user.b, 4 anything else. */
static long xa_list(struct inode *inode)
{
	char buf[64];
	ssize_t n = vfs_listxattr(inode, buf, sizeof(buf), NULL);
	long set = 0;

	if (n < 0)
		return n;
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
		if (!strcmp(buf + i, "user.a"))
			set |= set & 1 ? 4 : 1;
		else if (!strcmp(buf + i, "user.b"))
			set |= set & 2 ? 4 : 2;
		else
			set |= 4;
	}
	return set;
}

static int xa_setup(struct xs_run *r)
{
	struct xattr_priv *xp = r->priv;

	if (!xs_process(r, 0, "setter") || !xs_process(r, 1, "getter"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (filp_open("/xx", O_RDWR | O_CREAT, 0644, &xp->f) ||
	    vfs_setxattr(xp->f->f_inode, "user.a", "0", 1, XATTR_CREATE, NULL))
		return -EIO;
	return 0;
}

static long xa_op(struct xs_run *r, int task, int op)
{
	struct xattr_priv *xp = r->priv;
	struct inode *inode = xp->f->f_inode;

	if (task == 0)
		return op == 0 ? vfs_setxattr(inode, "user.a", "1", 1, XATTR_REPLACE, NULL)
			       : vfs_setxattr(inode, "user.b", "2", 1, XATTR_CREATE, NULL);
	switch (op) {
	case 0:
		return xa_get(inode, "user.a");
	case 1:
		return vfs_setxattr(inode, "user.b", "3", 1, XATTR_CREATE, NULL);
	default:
		return xa_list(inode);
	}
}

static int xa_check(struct xs_run *r, char *why, size_t len)
{
	struct xattr_priv *xp = r->priv;
	long b = xa_get(xp->f->f_inode, "user.b");
	long want = r->result[0][1] == 0 ? 2 : 3;

	if ((r->result[0][1] == 0) == (r->result[1][1] == 0)) {
		snprintf(why, len, "both or neither XATTR_CREATE of user.b succeeded (%ld, %ld)",
			 r->result[0][1], r->result[1][1]);
		return 1;
	}
	if (b != want || xa_get(xp->f->f_inode, "user.a") != 1 || xa_list(xp->f->f_inode) != 3) {
		snprintf(why, len,
			 "end state: user.b = %ld (expected %ld), or user.a or the "
			 "listing wrong",
			 b, want);
		return 1;
	}
	return 0;
}

static void xa_format(int task, int op, long v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "%s",
			 v == -ENODATA	? "ENODATA"
			 : v == -EEXIST ? "EEXIST"
					: "err");
	else if (task == 1 && op == 2)
		snprintf(buf, len, "{%s%s%s}", v & 1 ? "a" : "", v & 2 ? "b" : "",
			 v & 4 ? "?" : "");
	else
		snprintf(buf, len, "%ld", v);
}

static void xa_teardown(struct xs_run *r)
{
	struct xattr_priv *xp = r->priv;

	xs_exit_tasks(r);
	if (xp->f)
		fput(xp->f);
	xp->f = NULL;
	do_unlink("/xx");
}

static struct xscenario xattr_race = {
    .name = "xattr-race",
    .summary = "setxattr(a, REPLACE), setxattr(b, CREATE) vs getxattr(a), setxattr(b, CREATE), "
	       "listxattr",
    .ntasks = 2,
    .nops = {2, 3},
    .opname = {{"set(a=1,REPLACE)", "set(b=2,CREATE)"}, {"get(a)", "set(b=3,CREATE)", "list"}},
    .variants =
	{
	    {"", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct xattr_priv),
    .setup = xa_setup,
    .op = xa_op,
    .check = xa_check,
    .teardown = xa_teardown,
    .format = xa_format,
};
XSCENARIO(xattr_race)
