// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_locks.c - file-lock scenarios: a woken POSIX waiter that
 * blocks again, and mutual exclusion between flock, OFD and POSIX owners
 * (every filelock scheme).
 *
 * Three lock owners on one file: H holds W[0,0], B holds W[10,10].  C asks
 * for W[0,10] (F_SETLKW), B for W[0,0] (F_SETLKW) and then lets go of
 * everything, H unlocks.  There is never a cycle of owners each waiting for
 * a lock another holds: in some orders B's request queues behind C's, and C,
 * woken by H's unlock, then waits for B's W[10,10]; Linux (6.18 on tmpfs,
 * with real processes) wakes the requests queued behind C before its
 * deadlock check, so nobody gets EDEADLK and everyone is granted in the end.
 * The oracle: every request succeeds and no lock is left.
 *
 * Locking: owners are opaque cookies, one per task; setup and check run on
 * the driver while no task runs.
 */
#include "explore.h"

#include <string.h>

#define OWNER(n) ((fl_owner_t)(uintptr_t)(0x10000 + (n)*64))

struct reblock_priv {
	struct file *f;
};

static int setlk(struct file *f, unsigned int cmd, int owner, int type, int64_t start, int64_t len)
{
	struct flock l = {
	    .l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};

	return fcntl_setlk(f, cmd, &l, OWNER(owner), owner + 100, NULL);
}

static int reblock_setup(struct xs_run *r)
{
	struct reblock_priv *rp = r->priv;

	locks_move_blocks_unfixed_for_test(xs_param_is(r, "move_blocks", "unfixed"));

	if (!xs_process(r, 0, "H") || !xs_process(r, 1, "B") || !xs_process(r, 2, "C"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (filp_open("/xlocks", O_RDWR | O_CREAT, 0644, &rp->f))
		return -EIO;
	if (setlk(rp->f, F_SETLK, 0, F_WRLCK, 0, 1) || setlk(rp->f, F_SETLK, 1, F_WRLCK, 10, 1))
		return -EIO;
	return 0;
}

static long reblock_op(struct xs_run *r, int task, int op)
{
	struct reblock_priv *rp = r->priv;

	switch (task) {
	case 0: /* H */
		return setlk(rp->f, F_SETLK, 0, F_UNLCK, 0, 1);
	case 1: /* B */
		if (op == 0)
			return setlk(rp->f, F_SETLKW, 1, F_WRLCK, 0, 1);
		return setlk(rp->f, F_SETLK, 1, F_UNLCK, 0, 0);
	default: /* C */
		if (op == 0)
			return setlk(rp->f, F_SETLKW, 2, F_WRLCK, 0, 11);
		return setlk(rp->f, F_SETLK, 2, F_UNLCK, 0, 0);
	}
}

static void format_errno(int task, int op, long v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-%s", v == -EDEADLK ? "EDEADLK" : strerror((int)-v));
	else
		snprintf(buf, len, "%ld", v);
}

/*
 * The lock lists' invariants (locks_check: the blocker tree, blocked_hash,
 * the owners' record lists and their charges) after every schedule: no
 * waiter, hash entry or charge may outlive the requests that made them.
 */
static int lock_lists_check(char *why, size_t len)
{
	char msg[256];

	if (locks_check(msg, sizeof(msg)) == 0)
		return 0;
	snprintf(why, len, "locks_check: %s", msg);
	return 1;
}

static int reblock_check(struct xs_run *r, char *why, size_t len)
{
	static const char *const who[] = {"H", "B", "C"};
	size_t need;

	for (int t = 0; t < r->sc->ntasks; t++)
		for (int k = 0; k < r->sc->nops[t]; k++)
			if (r->result[t][k]) {
				char v[64];

				format_errno(t, k, r->result[t][k], v, sizeof(v));
				snprintf(why, len,
					 "%s's %s returned %s (Linux: 0, no cycle of owners)",
					 who[t], r->sc->opname[t][k], v);
				return 1;
			}
	need = locks_format_proc(NULL, 0);
	if (need) {
		snprintf(why, len,
			 "locks left after every owner unlocked (%zu bytes of /proc/locks)", need);
		return 1;
	}
	return lock_lists_check(why, len);
}

static void reblock_teardown(struct xs_run *r)
{
	struct reblock_priv *rp = r->priv;

	xs_exit_tasks(r);
	if (rp->f)
		fput(rp->f);
	rp->f = NULL;
	do_unlink("/xlocks");
}

static struct xscenario posix_reblock = {
    .name = "posix-reblock",
    .summary = "three POSIX owners: a woken F_SETLKW waiter that must wait again, with "
	       "another owner's request queued behind it",
    .ntasks = 3,
    .nops = {1, 2, 2},
    .opname = {{"unlock(0,0)"}, {"setlkw(W0-0)", "unlock(all)"}, {"setlkw(W0-10)", "unlock(all)"}},
    .params = {{"move_blocks",
		{"fixed", "unfixed"},
		"locks_move_blocks as in Linux 5.0, or as first merged (test-only: the "
		"moved waiters keep a stale fl_blocker)"}},
    .matrix_k = 1, /* three tasks: K = 2 is 30,000-60,000 schedules (long tests) */
    .variants =
	{
	    {"move_blocks=unfixed", true},
	    {"move_blocks=unfixed,filelock=inode", true},
	    {"filelock=global", false},
	    {"filelock=bkl", false},
	    {"filelock=inode", false},
	    {"filelock=inode,bkl_ops=lock", false},
	},
    .priv_size = sizeof(struct reblock_priv),
    .setup = reblock_setup,
    .op = reblock_op,
    .midcheck = xs_locks_midcheck,
    .check = reblock_check,
    .teardown = reblock_teardown,
    .format = format_errno,
};
XSCENARIO(posix_reblock)

/* ---- flock, OFD and POSIX owners: mutual exclusion ---------------------------- */

/*
 * T0 takes flock LOCK_EX through description A, then a POSIX W[0,0] as its
 * process; T1 flock LOCK_EX through description B; T2 an OFD W[0,0]
 * through description C.  flock locks conflict with flock locks only,
 * POSIX and OFD locks with each other (Linux: the two families never
 * interact).  Each owner runs a critical section while it holds its locks;
 * the oracle counts the owners inside each family's section (never more
 * than one), and every request must succeed, with nothing left after.
 */
struct excl_priv {
	struct file *fa, *fb, *fc; /* three open file descriptions of one file */
	int in_flock, in_range;	   /* owners inside each critical section */
	int overlap;		   /* set when a section had two owners */
};

static void critical(struct excl_priv *ep, int *in)
{
	if (++*in > 1)
		ep->overlap = 1;
	rv_sched_point("critical section");
	--*in;
}

static int excl_setup(struct xs_run *r)
{
	struct excl_priv *ep = r->priv;

	if (!xs_process(r, 0, "flock+posix") || !xs_process(r, 1, "flock") ||
	    !xs_process(r, 2, "ofd"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (filp_open("/xexcl", O_RDWR | O_CREAT, 0644, &ep->fa) ||
	    filp_open("/xexcl", O_RDWR, 0, &ep->fb) || filp_open("/xexcl", O_RDWR, 0, &ep->fc))
		return -EIO;
	return 0;
}

static long excl_op(struct xs_run *r, int task, int op)
{
	struct excl_priv *ep = r->priv;
	struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	int err, err2;

	switch (task) {
	case 0:
		err = flock_lock_file(ep->fa, LOCK_EX, 100, NULL);
		if (err)
			return err;
		critical(ep, &ep->in_flock);
		err = fcntl_setlk(ep->fa, F_SETLKW, &l, OWNER(0), 100, NULL);
		if (!err) {
			critical(ep, &ep->in_range);
			l.l_type = F_UNLCK;
			err = fcntl_setlk(ep->fa, F_SETLK, &l, OWNER(0), 100, NULL);
		}
		err2 = flock_lock_file(ep->fa, LOCK_UN, 100, NULL);
		return err ? err : err2;
	case 1:
		if (xs_param_is(r, "t1_lock", "none")) { /* the oracle's own check */
			critical(ep, &ep->in_flock);
			return 0;
		}
		err = flock_lock_file(ep->fb, LOCK_EX, 101, NULL);
		if (err)
			return err;
		critical(ep, &ep->in_flock);
		return flock_lock_file(ep->fb, LOCK_UN, 101, NULL);
	default:
		err = fcntl_setlk(ep->fc, F_OFD_SETLKW, &l, NULL, -1, NULL);
		if (err)
			return err;
		critical(ep, &ep->in_range);
		l.l_type = F_UNLCK;
		return fcntl_setlk(ep->fc, F_OFD_SETLK, &l, NULL, -1, NULL);
	}
}

static int excl_check(struct xs_run *r, char *why, size_t len)
{
	struct excl_priv *ep = r->priv;
	size_t need;

	for (int t = 0; t < r->sc->ntasks; t++)
		if (r->result[t][0]) {
			char v[64];

			format_errno(t, 0, r->result[t][0], v, sizeof(v));
			snprintf(why, len, "T%d's %s returned %s", t, r->sc->opname[t][0], v);
			return 1;
		}
	if (ep->overlap) {
		snprintf(why, len,
			 "two owners inside one critical section at once: an exclusive "
			 "lock granted twice");
		return 1;
	}
	need = locks_format_proc(NULL, 0);
	if (need) {
		snprintf(why, len, "locks left after every owner unlocked");
		return 1;
	}
	return lock_lists_check(why, len);
}

static void excl_teardown(struct xs_run *r)
{
	struct excl_priv *ep = r->priv;

	xs_exit_tasks(r);
	if (ep->fa)
		fput(ep->fa);
	if (ep->fb)
		fput(ep->fb);
	if (ep->fc)
		fput(ep->fc);
	ep->fa = ep->fb = ep->fc = NULL;
	do_unlink("/xexcl");
}

static struct xscenario lock_exclusion = {
    .name = "lock-exclusion",
    .summary = "flock, OFD and POSIX owners of one file, each in a critical section under "
	       "its exclusive locks",
    .ntasks = 3,
    .nops = {1, 1, 1},
    .opname = {{"flock(A,EX)+setlkw(W0)"}, {"flock(B,EX)"}, {"ofd_setlkw(C,W0)"}},
    .params = {{"t1_lock",
		{"flock", "none"},
		"T1 takes its flock lock, or enters the section without it (must fail)"}},
    .matrix_k = 1, /* three tasks: K = 2 is 23,000-63,000 schedules (long tests) */
    .variants =
	{
	    {"t1_lock=none", true},
	    {"filelock=global", false},
	    {"filelock=bkl", false},
	    {"filelock=inode", false},
	    {"filelock=inode,bkl_ops=lock", false},
	},
    .priv_size = sizeof(struct excl_priv),
    .setup = excl_setup,
    .op = excl_op,
    .midcheck = xs_locks_midcheck,
    .check = excl_check,
    .teardown = excl_teardown,
    .format = format_errno,
};
XSCENARIO(lock_exclusion)
