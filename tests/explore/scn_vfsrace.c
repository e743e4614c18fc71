// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_vfsrace.c - lookups that must revalidate what they read
 * locklessly: each scenario runs one lookup against the namespace changes
 * that make an unvalidated read wrong, and checks its result for
 * linearizability against every serial order (results are
 * instance-independent: which of the files setup made was found, or the
 * error).
 *
 * rename-reparent: T0 stats /xa/f (an RCU walk); T1 renames /xa to /xc,
 * then /xc/g over /xc/f.  /xa/f is file 1, then missing: never file 2.  A
 * walk that entered /xa's dentry before the first rename finds file 2
 * under it after the second; only the parent's d_seq validation after the
 * child lookup (lookup_fast, fs/namei.c, Linux 6.12) sends it to the
 * reference walk.
 *
 * exchange-unlink: T0 stats /xa/f; T1 exchanges /xa and /xb
 * (RENAME_EXCHANGE), then unlinks /xb/f (the dentry the walk found, now
 * under the other name, goes negative).  /xa/f is file 1, then file 2:
 * never missing.  The walk's child was positive when it was looked up; a
 * walk that answers ENOENT for the negative dentry without validating its
 * d_seq (step_into under LOOKUP_RCU, Linux 6.12) reports a name that
 * exists on both sides of the rename as missing.
 *
 * mknod-slash-rename: T0 mknods "/xm/f/" (a regular file with a trailing
 * slash: EEXIST if /xm/f exists, else ENOENT, decided by a d_lookup with
 * no directory lock); T1 renames /xm/g over /xm/f.  /xm/f exists
 * throughout: EEXIST.  d_move unhashes the old dentry before it hashes the
 * new one; d_lookup (fs/dcache.c, Linux 6.12) retries a miss while
 * rename_lock moved, else it misses a name that never went away.
 *
 * dotdot-rmdir: T0 looks up ".." of /xa/d by inode (vfs_lookup, the FUSE
 * path: dget_parent); T1 renames /xa/d to /xb/d and removes /xa.  ".." is
 * /xa or /xb, never missing.  dget_parent (fs/dcache.c, Linux 6.12)
 * re-validates d_seq after taking its reference: without that, a
 * reference taken on /xa after the rename and the rmdir reads a negative
 * dentry.
 *
 * stat-dying: T0 stats /xl (an RCU walk, legitimized at the end with
 * lockref_get_not_dead); T1 unlinks /xl while a file holds it open, then
 * closes the file (the last dput kills the dentry).  The walk finds file
 * 1 or nothing; lockref_get_not_dead (lib/lockref.c, Linux 6.12) must
 * fail on the dead count, else the walk holds a reference to a dentry that
 * is being freed and its dput kills it a second time (the instance's
 * counts, a crash, or the leak check at teardown).
 *
 * Locking: setup, checks and teardown run on the driver while no task
 * runs.
 */
#include "explore.h"

#include <string.h>

struct vr_priv {
	uint64_t ino[3];      /* the files (and directories) setup made */
	struct file *f;	      /* stat-dying: the file holding /xl open */
	struct inode *dinode; /* dotdot-rmdir: /xa/d's inode */
};

/* 1 + the index of the inode found, 0 for ENOENT, -errno otherwise. */
static long vr_which(struct vr_priv *p, uint64_t ino)
{
	for (int i = 0; i < 3; i++)
		if (p->ino[i] && ino == p->ino[i])
			return i + 1;
	return -EXDEV; /* a file setup never made: never right */
}

static long vr_stat(struct vr_priv *p, const char *path)
{
	struct kstat st;
	int err = vfs_stat(path, &st);

	if (err == -ENOENT)
		return 0;
	return err ? err : vr_which(p, st.ino);
}

static int vr_make(struct vr_priv *p, int i, const char *path, bool dir)
{
	struct file *f = NULL;
	struct kstat st;

	if (dir ? do_mkdir(path, 0755) : filp_open(path, O_RDWR | O_CREAT, 0644, &f))
		return -EIO;
	if (f)
		fput(f);
	if (vfs_stat(path, &st))
		return -EIO;
	if (i >= 0)
		p->ino[i] = st.ino;
	return 0;
}

static void vr_format(int task, int op, long v, char *buf, size_t len)
{
	(void)op;
	if (task != 0)
		snprintf(buf, len, "%ld", v);
	else if (v > 0)
		snprintf(buf, len, "file%ld", v);
	else
		snprintf(buf, len, "%s", v == 0 ? "ENOENT" : v == -EEXIST ? "EEXIST" : "error");
}

static int vr_tasks(struct xs_run *r)
{
	if (!xs_process(r, 0, "lookup") || !xs_process(r, 1, "changer"))
		return -ENOMEM;
	task_attach(r->task[0]);
	return 0;
}

/* Remove whatever of these paths exists, children first. */
static void vr_clean(const char *const *paths)
{
	for (; *paths; paths++)
		if (do_unlink(*paths))
			do_rmdir(*paths);
}

/* ---- rename-reparent ---------------------------------------------------------- */

static int rrp_setup(struct xs_run *r)
{
	struct vr_priv *p = r->priv;

	if (vr_tasks(r))
		return -ENOMEM;
	return vr_make(p, -1, "/xa", true) || vr_make(p, 0, "/xa/f", false) ||
		       vr_make(p, 1, "/xa/g", false)
		   ? -EIO
		   : 0;
}

static long rrp_op(struct xs_run *r, int task, int op)
{
	if (task == 0)
		return vr_stat(r->priv, "/xa/f");
	return op == 0 ? do_rename("/xa", "/xc", 0) : do_rename("/xc/g", "/xc/f", 0);
}

static void rrp_teardown(struct xs_run *r)
{
	static const char *const paths[] = {"/xa/f", "/xa/g", "/xc/f", "/xc/g", "/xa", "/xc", NULL};

	xs_exit_tasks(r);
	vr_clean(paths);
}

static struct xscenario rename_reparent = {
    .name = "rename-reparent",
    .summary = "stat(/xa/f) (an RCU walk) vs rename(/xa, /xc), rename(/xc/g, /xc/f): the walk "
	       "must not find g under the directory it entered as /xa",
    .ntasks = 2,
    .nops = {1, 2},
    .opname = {{"stat(/xa/f)"}, {"rename(/xa,/xc)", "rename(/xc/g,/xc/f)"}},
    .matrix_k = 2,
    .variants =
	{
	    {"", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct vr_priv),
    .setup = rrp_setup,
    .op = rrp_op,
    .teardown = rrp_teardown,
    .format = vr_format,
};
XSCENARIO(rename_reparent)

/* ---- exchange-unlink ---------------------------------------------------------- */

static int exu_setup(struct xs_run *r)
{
	struct vr_priv *p = r->priv;

	if (vr_tasks(r))
		return -ENOMEM;
	return vr_make(p, -1, "/xa", true) || vr_make(p, -1, "/xb", true) ||
		       vr_make(p, 0, "/xa/f", false) || vr_make(p, 1, "/xb/f", false)
		   ? -EIO
		   : 0;
}

static long exu_op(struct xs_run *r, int task, int op)
{
	if (task == 0)
		return vr_stat(r->priv, "/xa/f");
	return op == 0 ? do_rename("/xa", "/xb", RENAME_EXCHANGE) : do_unlink("/xb/f");
}

static void exu_teardown(struct xs_run *r)
{
	static const char *const paths[] = {"/xa/f", "/xb/f", "/xa", "/xb", NULL};

	xs_exit_tasks(r);
	vr_clean(paths);
}

static struct xscenario exchange_unlink = {
    .name = "exchange-unlink",
    .summary = "stat(/xa/f) (an RCU walk) vs exchange(/xa, /xb), unlink(/xb/f): /xa/f is "
	       "never missing",
    .ntasks = 2,
    .nops = {1, 2},
    .opname = {{"stat(/xa/f)"}, {"exchange(/xa,/xb)", "unlink(/xb/f)"}},
    .matrix_k = 2,
    .variants =
	{
	    {"", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct vr_priv),
    .setup = exu_setup,
    .op = exu_op,
    .teardown = exu_teardown,
    .format = vr_format,
};
XSCENARIO(exchange_unlink)

/* ---- mknod-slash-rename ------------------------------------------------------- */

static int msr_setup(struct xs_run *r)
{
	struct vr_priv *p = r->priv;

	if (vr_tasks(r))
		return -ENOMEM;
	return vr_make(p, -1, "/xm", true) || vr_make(p, 0, "/xm/f", false) ||
		       vr_make(p, 1, "/xm/g", false)
		   ? -EIO
		   : 0;
}

static long msr_op(struct xs_run *r, int task, int op)
{
	int err;

	(void)op;
	if (task == 1)
		return do_rename("/xm/g", "/xm/f", 0);
	err = do_mknod("/xm/f/", S_IFREG | 0644, 0);
	return err == -ENOENT ? 0 : err; /* 0: "missing" */
}

static void msr_teardown(struct xs_run *r)
{
	static const char *const paths[] = {"/xm/f", "/xm/g", "/xm", NULL};

	xs_exit_tasks(r);
	vr_clean(paths);
}

static struct xscenario mknod_slash_rename = {
    .name = "mknod-slash-rename",
    .summary = "mknod(\"/xm/f/\") (EEXIST or ENOENT from an unlocked d_lookup) vs "
	       "rename(/xm/g, /xm/f): /xm/f exists throughout",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"mknod(/xm/f/)"}, {"rename(/xm/g,/xm/f)"}},
    .matrix_k = 2,
    .variants =
	{
	    {"", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct vr_priv),
    .setup = msr_setup,
    .op = msr_op,
    .teardown = msr_teardown,
    .format = vr_format,
};
XSCENARIO(mknod_slash_rename)

/* ---- dotdot-rmdir ------------------------------------------------------------- */

static int ddr_setup(struct xs_run *r)
{
	struct vr_priv *p = r->priv;
	struct inode *root, *xa = NULL;
	int err;

	if (vr_tasks(r))
		return -ENOMEM;
	if (vr_make(p, 0, "/xa", true) || vr_make(p, 1, "/xb", true) ||
	    vr_make(p, -1, "/xa/d", true))
		return -EIO;
	root = vfs_root();
	err = vfs_lookup(root, "xa", &xa);
	iput(root);
	if (err)
		return -EIO;
	err = vfs_lookup(xa, "d", &p->dinode);
	iput(xa);
	return err ? -EIO : 0;
}

static long ddr_op(struct xs_run *r, int task, int op)
{
	struct vr_priv *p = r->priv;
	struct inode *dir = NULL;
	long ret;
	int err;

	if (task == 1)
		return op == 0 ? do_rename("/xa/d", "/xb/d", 0) : do_rmdir("/xa");
	err = vfs_lookup(p->dinode, "..", &dir);
	if (err)
		return err == -ENOENT ? 0 : err;
	ret = vr_which(p, dir->i_ino);
	iput(dir);
	return ret;
}

static void ddr_teardown(struct xs_run *r)
{
	static const char *const paths[] = {"/xa/d", "/xb/d", "/xa", "/xb", NULL};
	struct vr_priv *p = r->priv;

	xs_exit_tasks(r);
	if (p->dinode)
		iput(p->dinode);
	p->dinode = NULL;
	vr_clean(paths);
}

static struct xscenario dotdot_rmdir = {
    .name = "dotdot-rmdir",
    .summary = "lookup(\"..\") of /xa/d by inode (dget_parent) vs rename(/xa/d, /xb/d), "
	       "rmdir(/xa): \"..\" is /xa or /xb, never missing",
    .ntasks = 2,
    .nops = {1, 2},
    .opname = {{"lookup(d, ..)"}, {"rename(/xa/d,/xb/d)", "rmdir(/xa)"}},
    .matrix_k = 2,
    .variants =
	{
	    {"", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct vr_priv),
    .setup = ddr_setup,
    .op = ddr_op,
    .teardown = ddr_teardown,
    .format = vr_format,
};
XSCENARIO(dotdot_rmdir)

/* ---- stat-dying --------------------------------------------------------------- */

static int sdy_setup(struct xs_run *r)
{
	struct vr_priv *p = r->priv;

	if (vr_tasks(r) || vr_make(p, 0, "/xl", false))
		return -EIO;
	return filp_open("/xl", O_RDONLY, 0, &p->f) ? -EIO : 0;
}

static long sdy_op(struct xs_run *r, int task, int op)
{
	struct vr_priv *p = r->priv;

	if (task == 0)
		return vr_stat(p, "/xl");
	if (op == 0)
		return do_unlink("/xl");
	fput(p->f); /* the last reference to the unlinked dentry: it dies */
	p->f = NULL;
	return 0;
}

static void sdy_teardown(struct xs_run *r)
{
	struct vr_priv *p = r->priv;

	xs_exit_tasks(r);
	if (p->f)
		fput(p->f);
	p->f = NULL;
	do_unlink("/xl");
}

static struct xscenario stat_dying = {
    .name = "stat-dying",
    .summary = "stat(/xl) (an RCU walk legitimized by lockref_get_not_dead) vs unlink(/xl) "
	       "and the close that kills its dentry",
    .ntasks = 2,
    .nops = {1, 2},
    .opname = {{"stat(/xl)"}, {"unlink(/xl)", "close"}},
    .matrix_k = 2,
    .variants =
	{
	    {"", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct vr_priv),
    .setup = sdy_setup,
    .op = sdy_op,
    .teardown = sdy_teardown,
    .format = vr_format,
};
XSCENARIO(stat_dying)
