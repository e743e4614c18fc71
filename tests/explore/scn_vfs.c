// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_vfs.c - path-walk scenarios: rename racing an RCU path
 * walk, and the last dput of an unlinked file racing a lookup's lockref get.
 *
 * Results are instance-independent: a lookup returns 1 when it found the
 * file setup made (its inode number), 0 for ENOENT, -errno otherwise; both
 * scenarios check linearizability against every serial order, plus the
 * instance's leak check (a dentry or inode reference left behind).
 *
 * Locking: setup and check run on the driver while no task runs.
 */
#include "explore.h"

struct walk_priv {
	uint64_t ino; /* the file's inode number */
};

static long lookup_result(struct walk_priv *wp, const char *path)
{
	struct kstat st;
	int err = vfs_stat(path, &st);

	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	return st.ino == wp->ino ? 1 : -EXDEV; /* another file: never right */
}

static void format_found(int task, int op, long v, char *buf, size_t len)
{
	if (task != 0)
		snprintf(buf, len, "%ld", v);
	else
		snprintf(buf, len, "%s", v == 1 ? "found" : v == 0 ? "ENOENT" : "error");
}

/* ---- rename vs an RCU path walk ------------------------------------------------ */

static int rename_setup(struct xs_run *r)
{
	struct walk_priv *wp = r->priv;
	struct file *f = NULL;
	struct kstat st;

	if (!xs_process(r, 0, "walker") || !xs_process(r, 1, "renamer"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (do_mkdir("/xa", 0755) || filp_open("/xa/f", O_RDWR | O_CREAT, 0644, &f))
		return -EIO;
	fput(f);
	if (vfs_stat("/xa/f", &st))
		return -EIO;
	wp->ino = st.ino;
	return 0;
}

static long rename_op(struct xs_run *r, int task, int op)
{
	if (task == 1)
		return do_rename("/xa", "/xc", 0);
	return lookup_result(r->priv, op == 0 ? "/xa/f" : "/xc/f");
}

static void rename_teardown(struct xs_run *r)
{
	xs_exit_tasks(r);
	if (do_unlink("/xa/f") == 0)
		do_rmdir("/xa");
	if (do_unlink("/xc/f") == 0)
		do_rmdir("/xc");
}

static struct xscenario rename_walk = {
    .name = "rename-walk",
    .summary = "stat(/xa/f) then stat(/xc/f) (RCU path walks) vs rename(/xa, /xc)",
    .ntasks = 2,
    .nops = {2, 1},
    .opname = {{"stat(/xa/f)", "stat(/xc/f)"}, {"rename(/xa,/xc)"}},
    .variants =
	{
	    {"", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct walk_priv),
    .setup = rename_setup,
    .op = rename_op,
    .teardown = rename_teardown,
    .format = format_found,
};
XSCENARIO(rename_walk)

/* ---- the last dput vs a lookup's lockref get ------------------------------------ */

static int dput_setup(struct xs_run *r)
{
	struct walk_priv *wp = r->priv;
	struct file *f = NULL;
	struct kstat st;

	if (!xs_process(r, 0, "looker") || !xs_process(r, 1, "unlinker"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (filp_open("/xd", O_RDWR | O_CREAT, 0644, &f))
		return -EIO;
	fput(f);
	if (vfs_stat("/xd", &st))
		return -EIO;
	wp->ino = st.ino;
	return 0;
}

static long dput_op(struct xs_run *r, int task, int op)
{
	struct walk_priv *wp = r->priv;
	struct file *f = NULL;
	int err;

	if (task == 1)
		return do_unlink("/xd");
	if (op == 0)
		return lookup_result(wp, "/xd");
	/* open takes a dentry reference (lockref) and drops it at the last fput */
	err = filp_open("/xd", O_RDONLY, 0, &f);
	if (err)
		return err == -ENOENT ? 0 : err;
	err = f->f_inode->i_ino == wp->ino ? 1 : -EXDEV;
	fput(f);
	return err;
}

static int dput_check(struct xs_run *r, char *why, size_t len)
{
	struct kstat st;

	if (vfs_stat("/xd", &st) != -ENOENT) {
		snprintf(why, len, "/xd still there after unlink");
		return 1;
	}
	return 0;
}

static struct xscenario dput_lookup = {
    .name = "dput-lookup",
    .summary = "stat(/xd), open+close(/xd) (lockref gets on the dentry) vs unlink(/xd) "
	       "(the last dput kills it)",
    .ntasks = 2,
    .nops = {2, 1},
    .opname = {{"stat(/xd)", "open+close(/xd)"}, {"unlink(/xd)"}},
    .variants =
	{
	    {"", false},
	    {"lockref_relax=1", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct walk_priv),
    .setup = dput_setup,
    .op = dput_op,
    .check = dput_check,
    .teardown = xs_exit_tasks,
    .format = format_found,
};
XSCENARIO(dput_lookup)
