// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_ofdlock.c - OFD and POSIX locks on one file: each
 * family waits for the other, and the last close of an open file
 * description releases its OFD locks to a POSIX waiter.
 *
 * ofd-close-posix: P, a process, holds the POSIX lock W[5,5] through its
 * description fp; description fo holds the OFD lock W[0,0] (taken in
 * setup; the scenario holds fo's only reference).  OFD locks are owned by
 * the open file description, POSIX locks by the process (its files_struct)
 * and the two conflict with each other (fs/locks.c, Linux 6.12:
 * posix_locks_conflict compares fl_owner, which is the struct file for an
 * OFD lock).
 *
 *   T0 (P): F_SETLKW W[0,0] through fp (it waits under fo's OFD lock), a
 *           critical section, F_SETLK F_UNLCK of everything.
 *   T1 (O): drops fo's last reference (__fput -> locks_remove_file, which
 *           removes the OFD locks owned by fo and wakes P); F_OFD_SETLKW
 *           W[0,5] through description fo2 (it waits under P's POSIX
 *           locks, W[5,5] and then W[0,0]), a critical section,
 *           F_OFD_SETLK F_UNLCK.
 *
 * An OFD request is never put through the POSIX deadlock check
 * (posix_locks_deadlock: an OFD lock has no process to follow), and P's
 * request follows fo, which waits for nothing: there is no cycle, so in
 * every serial order every request returns 0.
 *
 * The oracle: every task finishes (a waiter nobody wakes is a deadlock the
 * explorer reports: a close that leaves fo's OFD lock behind, or an unlock
 * that does not wake O); every request and unlock returns 0; no two owners
 * are inside their sections at once, and O never enters its section while
 * P still holds W[5,5] (a conflicting lock granted twice); the lock lists'
 * invariants hold between critical sections (locks_check_live: no two held
 * locks conflict, every waiter hangs under a lock or request in a tree);
 * nothing is left at the end.
 *
 * Locking: owners are the process cookie and the descriptions; setup and
 * the checks run on the driver with no task running.
 */
#include "explore.h"

#include <string.h>

#define OFDP_OWNER ((fl_owner_t)(uintptr_t)0x50000)

struct ofd_priv {
	struct file *fp, *fo, *fo2; /* three open file descriptions of one file */
	int in;			    /* owners inside a critical section */
	int p_holds5;		    /* P still holds (or may hold) W[5,5] */
	int overlap;		    /* set when two owners were inside at once */
};

static void ofd_critical(struct ofd_priv *p)
{
	if (++p->in > 1)
		p->overlap = 1;
	rv_sched_point("critical section");
	--p->in;
}

static int ofd_setlk(struct file *f, unsigned int cmd, int type, int64_t start, int64_t len)
{
	struct flock l = {
	    .l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
	bool ofd = cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;

	return fcntl_setlk(f, cmd, &l, ofd ? NULL : OFDP_OWNER, ofd ? -1 : 500, NULL);
}

static void ofd_format(int task, int op, long v, char *buf, size_t len)
{
	(void)task;
	(void)op;
	if (v < 0)
		snprintf(buf, len, "-%s", v == -EDEADLK ? "EDEADLK" : strerror((int)-v));
	else
		snprintf(buf, len, "%ld", v);
}

static int ofd_setup(struct xs_run *r)
{
	struct ofd_priv *p = r->priv;

	if (!xs_process(r, 0, "P") || !xs_process(r, 1, "O"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (filp_open("/xofd", O_RDWR | O_CREAT, 0644, &p->fp) ||
	    filp_open("/xofd", O_RDWR, 0, &p->fo) || filp_open("/xofd", O_RDWR, 0, &p->fo2))
		return -EIO;
	if (ofd_setlk(p->fp, F_SETLK, F_WRLCK, 5, 1) ||
	    ofd_setlk(p->fo, F_OFD_SETLK, F_WRLCK, 0, 1))
		return -EIO;
	p->p_holds5 = 1;
	return 0;
}

static long ofd_op(struct xs_run *r, int task, int op)
{
	struct ofd_priv *p = r->priv;
	int err;

	if (task == 0) {
		if (op == 0) {
			err = ofd_setlk(p->fp, F_SETLKW, F_WRLCK, 0, 1);
			if (!err)
				ofd_critical(p);
			return err;
		}
		/* cleared before the unlock: a grant after it is legitimate */
		p->p_holds5 = 0;
		return ofd_setlk(p->fp, F_SETLK, F_UNLCK, 0, 0);
	}
	switch (op) {
	case 0:
		fput(p->fo); /* the last reference: __fput drops fo's OFD lock */
		p->fo = NULL;
		return 0;
	case 1:
		err = ofd_setlk(p->fo2, F_OFD_SETLKW, F_WRLCK, 0, 6);
		if (!err) {
			if (p->p_holds5)
				p->overlap = 1;
			ofd_critical(p);
		}
		return err;
	default:
		return ofd_setlk(p->fo2, F_OFD_SETLK, F_UNLCK, 0, 0);
	}
}

static int ofd_check(struct xs_run *r, char *why, size_t len)
{
	struct ofd_priv *p = r->priv;
	char msg[256];

	for (int t = 0; t < r->sc->ntasks; t++)
		for (int op = 0; op < r->sc->nops[t]; op++)
			if (r->result[t][op]) {
				char v[64];

				ofd_format(t, op, r->result[t][op], v, sizeof(v));
				snprintf(why, len,
					 "T%d's %s returned %s (every serial order gives 0)", t,
					 r->sc->opname[t][op], v);
				return 1;
			}
	if (p->overlap) {
		snprintf(why, len,
			 "an OFD and a POSIX owner inside their sections at once: conflicting "
			 "locks granted together");
		return 1;
	}
	if (locks_format_proc(NULL, 0)) {
		snprintf(why, len, "locks left after every owner unlocked and fo was closed");
		return 1;
	}
	if (locks_check(msg, sizeof(msg))) {
		snprintf(why, len, "locks_check: %s", msg);
		return 1;
	}
	return 0;
}

static void ofd_teardown(struct xs_run *r)
{
	struct ofd_priv *p = r->priv;

	xs_exit_tasks(r);
	if (p->fp)
		fput(p->fp);
	if (p->fo)
		fput(p->fo);
	if (p->fo2)
		fput(p->fo2);
	p->fp = p->fo = p->fo2 = NULL;
	do_unlink("/xofd");
}

static struct xscenario ofd_close_posix = {
    .name = "ofd-close-posix",
    .summary = "a POSIX F_SETLKW under an OFD lock whose description is closed, and an "
	       "F_OFD_SETLKW under the POSIX owner's locks",
    .ntasks = 2,
    .nops = {2, 3},
    .opname = {{"setlkw(W0-0)", "unlock(all)"},
	       {"close(fo)", "ofd_setlkw(fo2,W0-5)", "ofd_unlock(fo2)"}},
    .matrix_k = 2, /* 3,188 schedules; filelock=inode (4,177) adds nothing here */
    .variants =
	{
	    {"", false},
	},
    .priv_size = sizeof(struct ofd_priv),
    .setup = ofd_setup,
    .op = ofd_op,
    .midcheck = xs_locks_midcheck,
    .check = ofd_check,
    .teardown = ofd_teardown,
    .format = ofd_format,
};
XSCENARIO(ofd_close_posix)

/*
 * ofd-posix-handoff: one family waits for the other's lock, which its
 * owner drops and takes again at once.  `waiter=posix`: description fo
 * holds the OFD lock W[0,0]; T0, a process, F_SETLKWs W[0,0] through fp
 * (it waits under the OFD lock), a section, unlocks; T1 unlocks fo's W[0,0]
 * (waking T0), F_OFD_SETLKs it again (0, or EAGAIN when T0 has it), a
 * section when it got it, unlocks.  `waiter=ofd`: the families swapped
 * (T0 F_OFD_SETLKWs through fo, T1 is the POSIX owner through fp).  The
 * woken waiter must retry its request (fs/locks.c, Linux 6.12: the
 * F_SETLKW loop in posix_lock_inode_wait and its OFD twin in
 * do_lock_file_wait): the lock may be taken again before it runs.
 *
 * The oracle: T0's request 0, T1's retake 0 or EAGAIN, every unlock 0;
 * never both owners inside; locks_check_live between critical sections;
 * nothing left.
 */
static int ho_setup(struct xs_run *r)
{
	struct ofd_priv *p = r->priv;
	bool ofd_waits = xs_param_is(r, "waiter", "ofd");

	if (!xs_process(r, 0, "T0") || !xs_process(r, 1, "T1"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (filp_open("/xofd", O_RDWR | O_CREAT, 0644, &p->fp) ||
	    filp_open("/xofd", O_RDWR, 0, &p->fo))
		return -EIO;
	/* the holder: the other family */
	if (ofd_waits ? ofd_setlk(p->fp, F_SETLK, F_WRLCK, 0, 1)
		      : ofd_setlk(p->fo, F_OFD_SETLK, F_WRLCK, 0, 1))
		return -EIO;
	return 0;
}

static long ho_op(struct xs_run *r, int task, int op)
{
	struct ofd_priv *p = r->priv;
	bool ofd_waits = xs_param_is(r, "waiter", "ofd");
	struct file *mine = (task == 0) == ofd_waits ? p->fo : p->fp;
	bool ofd = mine == p->fo;
	int err;

	if (task == 0) {
		if (op == 1)
			return ofd_setlk(mine, ofd ? F_OFD_SETLK : F_SETLK, F_UNLCK, 0, 0);
		err = ofd_setlk(mine, ofd ? F_OFD_SETLKW : F_SETLKW, F_WRLCK, 0, 1);
		if (!err)
			ofd_critical(p);
		return err;
	}
	switch (op) {
	case 0:
		return ofd_setlk(mine, ofd ? F_OFD_SETLK : F_SETLK, F_UNLCK, 0, 1);
	case 1:
		err = ofd_setlk(mine, ofd ? F_OFD_SETLK : F_SETLK, F_WRLCK, 0, 1);
		if (!err)
			ofd_critical(p);
		return err;
	default:
		return ofd_setlk(mine, ofd ? F_OFD_SETLK : F_SETLK, F_UNLCK, 0, 0);
	}
}

static int ho_check(struct xs_run *r, char *why, size_t len)
{
	struct ofd_priv *p = r->priv;
	long retake = r->result[1][1];
	char msg[256];

	if (r->result[0][0] || (retake != 0 && retake != -EAGAIN)) {
		snprintf(why, len, "T0's wait %ld (0 expected), T1's retake %ld (0 or EAGAIN)",
			 r->result[0][0], retake);
		return 1;
	}
	if (r->result[0][1] || r->result[1][0] || r->result[1][2]) {
		snprintf(why, len, "an unlock failed");
		return 1;
	}
	if (p->overlap) {
		snprintf(why, len,
			 "an OFD and a POSIX owner inside their sections at once: conflicting "
			 "locks granted together");
		return 1;
	}
	if (locks_format_proc(NULL, 0)) {
		snprintf(why, len, "locks left after every owner unlocked");
		return 1;
	}
	if (locks_check(msg, sizeof(msg))) {
		snprintf(why, len, "locks_check: %s", msg);
		return 1;
	}
	return 0;
}

static struct xscenario ofd_posix_handoff = {
    .name = "ofd-posix-handoff",
    .summary = "a POSIX F_SETLKW woken by an OFD unlock (or the reverse) while the OFD owner "
	       "takes the lock again",
    .ntasks = 2,
    .nops = {2, 3},
    .opname = {{"setlkw(W0-0)", "unlock(all)"}, {"unlock(W0-0)", "setlk(W0-0)", "unlock(all)"}},
    .params =
	{{"waiter",
	  {"posix", "ofd"},
	  "the family that waits (T0's): POSIX under an OFD lock, or OFD under a POSIX lock"}},
    .matrix_k = 2,
    .variants =
	{
	    {"waiter=posix", false},
	    {"waiter=ofd", false},
	    {"waiter=posix,filelock=inode", false},
	    {"waiter=ofd,filelock=inode", false},
	},
    .priv_size = sizeof(struct ofd_priv),
    .setup = ho_setup,
    .op = ho_op,
    .midcheck = xs_locks_midcheck,
    .check = ho_check,
    .teardown = ofd_teardown,
    .format = ofd_format,
};
XSCENARIO(ofd_posix_handoff)
