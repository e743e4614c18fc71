// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_path.c - path walk and inode attributes: a name renamed
 * away and back during RCU walks (ABA), ".." across a rename of the
 * directory it starts from, stat (the lockless i_attr_seq reader) vs two
 * setattrs, readdir of an offset-map directory in small batches vs
 * renames in it, and open vs unlink and re-creation of the name.
 *
 * Oracles are outside the code under test: results are
 * instance-independent (which of the files setup made a lookup found,
 * which setattr's fields a stat saw) and checked for linearizability
 * against every serial order; readdir, which Linux does not make
 * linearizable against rename, is checked against what it does promise:
 * every entry present throughout is listed exactly once, a renamed entry
 * at most once under either name, and the walk ends.
 *
 * Locking: setup, check and teardown run on the driver while no task runs.
 */
#include "explore.h"

#include <string.h>

/* ---- shared: which file a lookup found ------------------------------------------ */

struct path_priv {
	uint64_t ino[4];   /* inode numbers of the files setup made (0: none) */
	struct file *f;	   /* stat-setattr-mode: the file whose attributes change */
	struct file *dirf; /* readdir-rename: the open directory */
	unsigned int seen[6];
	int other; /* readdir-rename: names not in the directory */
};

/* 1 + the index of the file found, 0 for ENOENT, -errno otherwise. */
static long which_file(struct path_priv *pp, const char *path)
{
	struct kstat st;
	int err = vfs_stat(path, &st);

	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	for (int i = 0; i < 4; i++)
		if (pp->ino[i] && st.ino == pp->ino[i])
			return i + 1;
	return -EXDEV; /* a file setup never made: never right */
}

static int make_file(struct path_priv *pp, int i, const char *path)
{
	struct file *f = NULL;
	struct kstat st;

	if (filp_open(path, O_RDWR | O_CREAT, 0644, &f))
		return -EIO;
	fput(f);
	if (vfs_stat(path, &st))
		return -EIO;
	pp->ino[i] = st.ino;
	return 0;
}

static void format_which(int task, int op, long v, char *buf, size_t len)
{
	(void)op;
	if (task != 0)
		snprintf(buf, len, "%ld", v);
	else if (v > 0)
		snprintf(buf, len, "file%ld", v);
	else
		snprintf(buf, len, "%s", v == 0 ? "ENOENT" : "error");
}

/* ---- rename ABA vs RCU walks ---------------------------------------------------- */

/*
 * T1 renames /xa to /xc and back; T0 looks up /xa/f and then /xc/f.  The
 * directory's name returns to what it was (ABA), so a walk that validated
 * only the name it saw, not the d_seq/s_rename_lock sequence, could pass
 * a stale lookup: /xa/f found after the walk already met /xc/f's dentry
 * in the old place would be fine, but /xc/f found while the rename back
 * has completed before the walk began is not.  rename-walk (scn_vfs.c)
 * has only the first rename; here a serial order must explain a positive
 * and a negative result on both names.
 *
 * Mutations tried (each a temporary edit, not kept): step_rcu without the
 * parent's d_seq recheck after __d_lookup_rcu, and d_lookup without its
 * s_rename_lock retry of a miss, both survive K = 2 (9,185 schedules,
 * exhausted).  Equivalent here: with a one-level parent a stale parent
 * still names the dentry the path named at some instant of the stat, and
 * a miss falls back to lookup_slow under the parent's i_rwsem, which the
 * rename holds.
 */
static int aba_setup(struct xs_run *r)
{
	struct path_priv *pp = r->priv;

	if (!xs_process(r, 0, "walker") || !xs_process(r, 1, "renamer"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (do_mkdir("/xa", 0755) || make_file(pp, 0, "/xa/f"))
		return -EIO;
	return 0;
}

static long aba_op(struct xs_run *r, int task, int op)
{
	if (task == 1)
		return op == 0 ? do_rename("/xa", "/xc", 0) : do_rename("/xc", "/xa", 0);
	return which_file(r->priv, op == 0 ? "/xa/f" : "/xc/f");
}

static int aba_check(struct xs_run *r, char *why, size_t len)
{
	struct path_priv *pp = r->priv;

	if (which_file(pp, "/xa/f") != 1 || which_file(pp, "/xc/f") != 0) {
		snprintf(why, len, "after renaming /xa away and back, /xa/f is not the file");
		return 1;
	}
	return 0;
}

static void aba_teardown(struct xs_run *r)
{
	xs_exit_tasks(r);
	do_unlink("/xa/f");
	do_rmdir("/xa");
	do_unlink("/xc/f");
	do_rmdir("/xc");
}

static struct xscenario rename_aba = {
    .name = "rename-aba",
    .summary = "stat(/xa/f), stat(/xc/f) (RCU walks) vs rename(/xa,/xc), rename(/xc,/xa)",
    .ntasks = 2,
    .nops = {2, 2},
    .opname = {{"stat(/xa/f)", "stat(/xc/f)"}, {"rename(/xa,/xc)", "rename(/xc,/xa)"}},
    .variants =
	{
	    {"", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct path_priv),
    .setup = aba_setup,
    .op = aba_op,
    .check = aba_check,
    .teardown = aba_teardown,
    .format = format_which,
};
XSCENARIO(rename_aba)

/* ---- ".." across a rename ------------------------------------------------------- */

/*
 * /xa/d is a directory, /xa/f file 1 and /xb/f file 2.  T1 moves d from
 * /xa to /xb; T0 looks up /xa/d/../f and then /xb/d/../f.  Before the
 * move the first is file 1 and the second ENOENT, after it the first is
 * ENOENT and the second file 2.  A ".." that follows d's new parent while
 * the walk came from the old one (the RCU walk's ".." step validates
 * s_rename_lock for that) would give file 2 for the first path, or file 1
 * for the second: no serial order does.
 *
 * Shown to catch (a temporary edit): step_rcu's ".." step without its
 * d_seq and s_rename_lock validation gives file 2 for /xa/d/../f, found
 * at K = 2 after 3,172 schedules (dotdot-cross@7.1, one preemption).
 */
static int dotdot_setup(struct xs_run *r)
{
	struct path_priv *pp = r->priv;

	if (!xs_process(r, 0, "walker") || !xs_process(r, 1, "renamer"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (do_mkdir("/xa", 0755) || do_mkdir("/xb", 0755) || do_mkdir("/xa/d", 0755) ||
	    make_file(pp, 0, "/xa/f") || make_file(pp, 1, "/xb/f"))
		return -EIO;
	return 0;
}

static long dotdot_op(struct xs_run *r, int task, int op)
{
	if (task == 1)
		return do_rename("/xa/d", "/xb/d", 0);
	return which_file(r->priv, op == 0 ? "/xa/d/../f" : "/xb/d/../f");
}

static void dotdot_teardown(struct xs_run *r)
{
	xs_exit_tasks(r);
	do_rmdir("/xa/d");
	do_rmdir("/xb/d");
	do_unlink("/xa/f");
	do_unlink("/xb/f");
	do_rmdir("/xa");
	do_rmdir("/xb");
}

static struct xscenario dotdot_rename = {
    .name = "dotdot-cross",
    .summary = "stat(/xa/d/../f), stat(/xb/d/../f) vs rename(/xa/d,/xb/d)",
    .ntasks = 2,
    .nops = {2, 1},
    .opname = {{"stat(/xa/d/../f)", "stat(/xb/d/../f)"}, {"rename(/xa/d,/xb/d)"}},
    .variants =
	{
	    {"", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct path_priv),
    .setup = dotdot_setup,
    .op = dotdot_op,
    .teardown = dotdot_teardown,
    .format = format_which,
};
XSCENARIO(dotdot_rename)

/* ---- stat vs setattr ------------------------------------------------------------ */

/*
 * The file starts as mode 0600, uid 0, gid 0 (state 0).  T1 applies
 * setattr A (mode 0611, uid 11, gid 11) and then B (0622, 22, 22); T0
 * reads the attributes twice with vfs_getattr, the lockless reader of
 * i_attr_seq.  A result names the state whose mode, uid and gid it saw, or
 * is -EPROTO when the fields come from two states: no serial order gives
 * that, so linearizability rejects a stat that mixes two setattrs.
 * vfs_getattr has a scheduling point between its loads of the mode and
 * of the owner, where a writer can run a whole setattr.
 *
 * Shown to catch (a temporary edit): vfs_getattr without its
 * read_seqcount_retry returns the initial mode with A's owner, found
 * after 2 schedules (stat-setattr-mode@6.1).
 */
static const struct {
	uint32_t mode;
	uid_t uid;
} attr_state[3] = {{0600, 0}, {0611, 11}, {0622, 22}};

static int attr_setup(struct xs_run *r)
{
	struct path_priv *pp = r->priv;
	struct iattr ia = {.ia_valid = ATTR_MODE, .ia_mode = 0600};

	if (!xs_process(r, 0, "stat") || !xs_process(r, 1, "chmod"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (filp_open("/xs", O_RDWR | O_CREAT, 0600, &pp->f) || vfs_setattr(pp->f->f_inode, &ia))
		return -EIO;
	return 0;
}

static long attr_op(struct xs_run *r, int task, int op)
{
	struct path_priv *pp = r->priv;
	struct inode *inode = pp->f->f_inode;
	struct kstat st;

	if (task == 1) {
		struct iattr ia = {
		    .ia_valid = ATTR_MODE | ATTR_UID | ATTR_GID,
		    .ia_mode = attr_state[op + 1].mode,
		    .ia_uid = attr_state[op + 1].uid,
		    .ia_gid = (gid_t)attr_state[op + 1].uid,
		};

		return vfs_setattr(inode, &ia);
	}
	vfs_getattr(inode, &st);
	for (int s = 0; s < 3; s++)
		if ((st.mode & 07777) == attr_state[s].mode && st.uid == attr_state[s].uid &&
		    st.gid == (gid_t)attr_state[s].uid)
			return s;
	return -EPROTO;
}

static void attr_format(int task, int op, long v, char *buf, size_t len)
{
	(void)op;
	if (task != 0 || v < 0 || v > 2)
		snprintf(buf, len, v == -EPROTO ? "mixed" : "%ld", v);
	else
		snprintf(buf, len, "%s", (const char *[]){"initial", "A", "B"}[v]);
}

static void attr_teardown(struct xs_run *r)
{
	struct path_priv *pp = r->priv;

	xs_exit_tasks(r);
	if (pp->f)
		fput(pp->f);
	pp->f = NULL;
	do_unlink("/xs");
}

static struct xscenario stat_setattr = {
    .name = "stat-setattr-mode",
    .summary = "getattr twice (the i_attr_seq reader) vs setattr A, setattr B (mode, uid, gid)",
    .ntasks = 2,
    .nops = {2, 2},
    .opname = {{"stat", "stat"}, {"setattr(A)", "setattr(B)"}},
    .variants =
	{
	    {"", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct path_priv),
    .setup = attr_setup,
    .op = attr_op,
    .teardown = attr_teardown,
    .format = attr_format,
};
XSCENARIO(stat_setattr)

/* ---- readdir vs rename in an offset-map directory -------------------------------- */

/*
 * /xr holds a, b and c.  T0 lists it through an open directory, one entry
 * per vfs_iterate_dir call (a reader with a one-entry buffer, as a FUSE
 * READDIR with a small size), so renames run between its calls; T1
 * renames b to z and z back to b (each rename gives the entry a new
 * offset).  Linux promises (offset_iterate_dir, and the d_children walk
 * of 6.14+) that the walk ends, that a and c, present throughout, are
 * listed exactly once, and that the moving entry is met at most once
 * (b and z together at most once).  A serial order is not required: the
 * walk may miss the moving entry entirely.
 *
 * Shown to catch (a temporary edit): readdir_walk bounding each call by
 * the directory's current next offset instead of the end recorded when
 * the walk started lists b twice (at its old offset, then at the one the
 * rename back gave it), found after 22 schedules (readdir-rename@16.1).
 */
static const char *const rd_names[] = {".", "..", "a", "b", "c", "z"};

struct rd_ctx {
	struct path_priv *pp;
	int emitted;
};

static int rd_actor(void *ctx, const char *name, size_t namelen, uint64_t ino, unsigned dtype,
		    int64_t next_pos)
{
	struct rd_ctx *c = ctx;

	(void)ino;
	(void)dtype;
	(void)next_pos;
	if (c->emitted)
		return 1; /* the buffer holds one entry */
	c->emitted = 1;
	for (size_t i = 0; i < ARRAY_SIZE(rd_names); i++)
		if (namelen == strlen(rd_names[i]) && !memcmp(name, rd_names[i], namelen)) {
			c->pp->seen[i]++;
			return 0;
		}
	c->pp->other++;
	return 0;
}

static int rd_setup(struct xs_run *r)
{
	struct path_priv *pp = r->priv;

	if (!xs_process(r, 0, "lister") || !xs_process(r, 1, "renamer"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (do_mkdir("/xr", 0755) || make_file(pp, 0, "/xr/a") || make_file(pp, 1, "/xr/b") ||
	    make_file(pp, 2, "/xr/c"))
		return -EIO;
	if (filp_open("/xr", O_RDONLY | O_DIRECTORY, 0, &pp->dirf))
		return -EIO;
	return 0;
}

static long rd_op(struct xs_run *r, int task, int op)
{
	struct path_priv *pp = r->priv;
	struct rd_ctx c = {.pp = pp};
	int64_t pos = 0;

	if (task == 1)
		return op == 0 ? do_rename("/xr/b", "/xr/z", 0) : do_rename("/xr/z", "/xr/b", 0);
	/* the walk: one entry per call until a call emits none; bounded */
	for (int calls = 0; calls < 16; calls++) {
		c.emitted = 0;
		pos = vfs_iterate_dir(pp->dirf, pos, rd_actor, &c);
		if (pos < 0)
			return pos;
		if (!c.emitted)
			return calls;
	}
	return -ELOOP; /* the walk did not end */
}

static int rd_check(struct xs_run *r, char *why, size_t len)
{
	struct path_priv *pp = r->priv;

	if (r->result[0][0] < 0) {
		snprintf(why, len, "the walk failed or did not end (%ld)", r->result[0][0]);
		return 1;
	}
	if (pp->other) {
		snprintf(why, len, "the walk listed %d name(s) never in the directory", pp->other);
		return 1;
	}
	for (int i = 0; i < 5; i++) { /* ".", "..", "a", "c" */
		if (i == 3)
			continue;
		if (pp->seen[i] != 1) {
			snprintf(why, len, "'%s', present throughout, listed %u times", rd_names[i],
				 pp->seen[i]);
			return 1;
		}
	}
	if (pp->seen[3] + pp->seen[5] > 1) {
		snprintf(why, len, "the renamed entry listed %u times as b and %u times as z",
			 pp->seen[3], pp->seen[5]);
		return 1;
	}
	return 0;
}

static void rd_teardown(struct xs_run *r)
{
	struct path_priv *pp = r->priv;

	xs_exit_tasks(r);
	if (pp->dirf)
		fput(pp->dirf);
	pp->dirf = NULL;
	do_unlink("/xr/a");
	do_unlink("/xr/b");
	do_unlink("/xr/c");
	do_unlink("/xr/z");
	do_rmdir("/xr");
}

static struct xscenario readdir_rename = {
    .name = "readdir-rename",
    .summary = "readdir of /xr (a, b, c), one entry per vfs_iterate_dir call, vs "
	       "rename(/xr/b,/xr/z), rename(/xr/z,/xr/b)",
    .ntasks = 2,
    .nops = {1, 2},
    .opname = {{"readdir(/xr)"}, {"rename(b,z)", "rename(z,b)"}},
    .variants =
	{
	    {"", false},
	},
    .priv_size = sizeof(struct path_priv),
    .setup = rd_setup,
    .op = rd_op,
    .check = rd_check,
    .teardown = rd_teardown,
};
XSCENARIO(readdir_rename)

/* ---- unlink and re-create vs open ------------------------------------------------ */

/*
 * /xu is file 1.  T1 unlinks it and creates a new /xu (file 2); T0 opens
 * /xu twice and reports which file it got (through the open file's
 * inode, and the inode's link count: 0 once unlinked), or ENOENT.  A
 * serial order explains every result: an open gives file 1, nothing, or
 * file 2, never a file not linked at /xu during the open (a freed or
 * recycled inode: -EXDEV, and ASan in the sanitizer build), and a second
 * open never goes back to file 1 after the first saw file 2 or ENOENT
 * following the unlink.  dput-lookup covers the last dput of the dentry
 * against stat and open; this one adds the name's re-creation.
 *
 * Shown to catch (a temporary edit): the RCU walk's legitimize step
 * without its final d_seq recheck hands open a dentry that the unlink
 * made negative, and open dereferences its NULL inode (the schedule dies
 * of SIGSEGV after 384 schedules, unlink-open@21.1,75.0).  step_rcu
 * answering ENOENT for a negative child without the d_seq recheck
 * survives: a name that was negative at some instant of the open is a
 * linearizable ENOENT here.
 */
static int uo_setup(struct xs_run *r)
{
	struct path_priv *pp = r->priv;

	if (!xs_process(r, 0, "opener") || !xs_process(r, 1, "unlinker"))
		return -ENOMEM;
	task_attach(r->task[0]);
	return make_file(pp, 0, "/xu");
}

static long uo_op(struct xs_run *r, int task, int op)
{
	struct path_priv *pp = r->priv;
	struct file *f = NULL;
	long ret = -EXDEV;
	int err;

	if (task == 1) {
		if (op == 0)
			return do_unlink("/xu");
		err = filp_open("/xu", O_RDWR | O_CREAT | O_EXCL, 0644, &f);
		if (err)
			return err;
		fput(f);
		return 0;
	}
	err = filp_open("/xu", O_RDONLY, 0, &f);
	if (err)
		return err == -ENOENT ? 0 : err;
	if (f->f_inode->i_ino == pp->ino[0])
		ret = 1;
	else if (f->f_inode->i_nlink == 1)
		ret = 2; /* a file other than the first, still linked: the new one */
	fput(f);
	return ret;
}

static void uo_teardown(struct xs_run *r)
{
	xs_exit_tasks(r);
	do_unlink("/xu");
}

static struct xscenario unlink_open = {
    .name = "unlink-open",
    .summary = "open(/xu) twice vs unlink(/xu), then create /xu anew (O_EXCL)",
    .ntasks = 2,
    .nops = {2, 2},
    .opname = {{"open(/xu)", "open(/xu)"}, {"unlink(/xu)", "create(/xu)"}},
    .variants =
	{
	    {"", false},
	},
    .linearizable = true,
    .priv_size = sizeof(struct path_priv),
    .setup = uo_setup,
    .op = uo_op,
    .teardown = uo_teardown,
    .format = format_which,
};
XSCENARIO(unlink_open)
