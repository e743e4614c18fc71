// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_vfsattr.c - stat racing setattr (i_attr_seq), and an
 * RCU path walk that must not see a name a finished rename removed.
 *
 * stat-setattr: T0 stats a file twice (vfs_getattr: a lockless read of the
 * attributes validated by i_attr_seq); T1 chowns it from 1:1 to 2:2 (both
 * fields in one i_attr_seq write section, with a scheduling point between
 * the two stores in the explorer build).  Every stat must see 1:1 or 2:2,
 * never a mix, and not 1:1 after 2:2: linearizability against the serial
 * orders.
 *
 * rename-walk-rev: rename-walk's walks in the other order: T0 stats
 * /xr/c/f, then /xr/a/f, while T1 renames /xr/a to /xr/c.  A walk that
 * finds the file under the new name saw the rename done, so the walk that
 * starts after it must not find it under the old one (a stale positive
 * lookup: linearizability sees it, where rename-walk sees only a file
 * missing from both paths).
 *
 * Locking: setup and the checks run on the driver with no task running.
 */
#include "explore.h"

struct xa_priv {
	struct file *f;
	uint64_t ino;
};

static int sa_setup(struct xs_run *r)
{
	struct xa_priv *p = r->priv;
	struct iattr ia = {.ia_valid = ATTR_UID | ATTR_GID, .ia_uid = 1, .ia_gid = 1};

	if (!xs_process(r, 0, "stat") || !xs_process(r, 1, "chown"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (filp_open("/xattrf", O_RDWR | O_CREAT, 0644, &p->f))
		return -EIO;
	return vfs_setattr(p->f->f_inode, &ia) ? -EIO : 0;
}

static long sa_op(struct xs_run *r, int task, int op)
{
	struct xa_priv *p = r->priv;
	struct kstat st;

	if (task == 1) {
		struct iattr ia = {.ia_valid = ATTR_UID | ATTR_GID, .ia_uid = 2, .ia_gid = 2};

		return vfs_setattr(p->f->f_inode, &ia);
	}
	vfs_getattr(p->f->f_inode, &st);
	return (long)st.uid * 10 + (long)st.gid;
}

static void sa_teardown(struct xs_run *r)
{
	struct xa_priv *p = r->priv;

	xs_exit_tasks(r);
	if (p->f)
		fput(p->f);
	p->f = NULL;
	do_unlink("/xattrf");
}

static struct xscenario stat_setattr = {
    .name = "stat-setattr",
    .summary = "stat twice (vfs_getattr, i_attr_seq) vs chown 1:1 -> 2:2 (one write section)",
    .ntasks = 2,
    .nops = {2, 1},
    .opname = {{"stat", "stat"}, {"chown(2:2)"}},
    .matrix_k = 3, /* K = 3 exhausts in seconds (docs/explore.md, Depth) */
    .variants =
	{
	    {"", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct xa_priv),
    .setup = sa_setup,
    .op = sa_op,
    .teardown = sa_teardown,
};
XSCENARIO(stat_setattr)

/* ---- the walks of rename-walk in the other order ------------------------------ */

static long rw_lookup(struct xa_priv *p, const char *path)
{
	struct kstat st;
	int err = vfs_stat(path, &st);

	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	return st.ino == p->ino ? 1 : -EXDEV;
}

static int rw_setup(struct xs_run *r)
{
	struct xa_priv *p = r->priv;
	struct file *f = NULL;
	struct kstat st;

	if (!xs_process(r, 0, "walker") || !xs_process(r, 1, "renamer"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (do_mkdir("/xr", 0755) || do_mkdir("/xr/a", 0755) ||
	    filp_open("/xr/a/f", O_RDWR | O_CREAT, 0644, &f))
		return -EIO;
	fput(f);
	if (vfs_stat("/xr/a/f", &st))
		return -EIO;
	p->ino = st.ino;
	return 0;
}

static long rw_op(struct xs_run *r, int task, int op)
{
	if (task == 1)
		return do_rename("/xr/a", "/xr/c", 0);
	return rw_lookup(r->priv, op == 0 ? "/xr/c/f" : "/xr/a/f");
}

static void rw_teardown(struct xs_run *r)
{
	xs_exit_tasks(r);
	if (do_unlink("/xr/a/f") == 0)
		do_rmdir("/xr/a");
	if (do_unlink("/xr/c/f") == 0)
		do_rmdir("/xr/c");
	do_rmdir("/xr");
}

static struct xscenario rename_walk_rev = {
    .name = "rename-walk-rev",
    .summary = "stat(/xr/c/f) then stat(/xr/a/f) (RCU path walks) vs rename(/xr/a, /xr/c)",
    .ntasks = 2,
    .nops = {2, 1},
    .opname = {{"stat(/xr/c/f)", "stat(/xr/a/f)"}, {"rename(/xr/a,/xr/c)"}},
    .variants =
	{
	    {"", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct xa_priv),
    .setup = rw_setup,
    .op = rw_op,
    .teardown = rw_teardown,
};
XSCENARIO(rename_walk_rev)

/* ---- ".." across a rename --------------------------------------------------- */

/*
 * T0 stats /xp/s/../g (an RCU walk with a ".." step) while T1 renames
 * /xp/s to /xq/s.  /xp/g and /xq/g are different files: serially the
 * walk finds /xp/g (before the rename) or nothing (/xp/s is gone after
 * it), never /xq/g, which a ".." taken from s after it moved would reach.
 */
struct dd_priv {
	uint64_t ino_p, ino_q;
};

static int dd_setup(struct xs_run *r)
{
	struct dd_priv *p = r->priv;
	struct file *f = NULL;
	struct kstat st;

	if (!xs_process(r, 0, "walker") || !xs_process(r, 1, "renamer"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (do_mkdir("/xp", 0755) || do_mkdir("/xq", 0755) || do_mkdir("/xp/s", 0755))
		return -EIO;
	if (filp_open("/xp/g", O_RDWR | O_CREAT, 0644, &f))
		return -EIO;
	fput(f);
	if (filp_open("/xq/g", O_RDWR | O_CREAT, 0644, &f))
		return -EIO;
	fput(f);
	if (vfs_stat("/xp/g", &st))
		return -EIO;
	p->ino_p = st.ino;
	if (vfs_stat("/xq/g", &st))
		return -EIO;
	p->ino_q = st.ino;
	return 0;
}

static long dd_op(struct xs_run *r, int task, int op)
{
	struct dd_priv *p = r->priv;
	struct kstat st;
	int err;

	if (task == 1)
		return do_rename("/xp/s", "/xq/s", 0);
	err = vfs_stat("/xp/s/../g", &st);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	return st.ino == p->ino_p ? 1 : st.ino == p->ino_q ? 2 : -EXDEV;
}

static void dd_teardown(struct xs_run *r)
{
	xs_exit_tasks(r);
	do_rmdir("/xp/s");
	do_rmdir("/xq/s");
	do_unlink("/xp/g");
	do_unlink("/xq/g");
	do_rmdir("/xp");
	do_rmdir("/xq");
}

static struct xscenario dotdot_rename = {
    .name = "dotdot-rename",
    .summary = "stat(/xp/s/../g) (an RCU walk through \"..\") vs rename(/xp/s, /xq/s)",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"stat(/xp/s/../g)"}, {"rename(/xp/s,/xq/s)"}},
    .variants =
	{
	    {"", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct dd_priv),
    .setup = dd_setup,
    .op = dd_op,
    .teardown = dd_teardown,
};
XSCENARIO(dotdot_rename)
