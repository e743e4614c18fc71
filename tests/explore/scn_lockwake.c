// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_lockwake.c - a woken POSIX waiter that does not get
 * its lock while other requests wait behind it.
 *
 * setlkw-requeue: A holds W[5,5], B holds W[0,0].  A asks for W[0,0]
 * (F_SETLKW: it waits under B's lock) and so does C, whose request
 * conflicts with A's and so waits behind A's request, not behind the lock
 * (__locks_insert_block, fs/locks.c, Linux 6.12).  B unlocks W[0,0] (A is
 * woken; C stays queued behind A's request), takes W[0,0] again with
 * F_SETLK before A retries, and asks for W[5,5] with F_SETLKW, which A
 * holds: B waits for A.  A's retry now finds B's W[0,0] and a cycle of
 * owners: EDEADLK.  A leaves with C still queued behind its request:
 * locks_delete_block must wake the requests queued behind a waiter that
 * is done, even when the waker already took that waiter out of the tree
 * (its fl_blocker is NULL), or C hangs under a request that no longer
 * exists.  In other orders A is granted, or B's F_SETLK fails, or B gets
 * the EDEADLK.  Each then unlocks everything.
 *
 * The oracle: every task finishes (a waiter nobody wakes is a deadlock the
 * explorer reports); the lock lists' invariants hold between critical
 * sections (locks_check_live: every waiter hangs under a lock or request
 * in a tree); EDEADLK only for one of A and B and only while B held
 * W[0,0]; C and every unlock succeed; nothing is left.
 *
 * setlkw-signal: the same start (A waits under B's W[0,0]); C signals
 * A, then asks for W[0,0] too (behind A's request); B unlocks W[0,0].
 * A's wait may end with EINTR (the signal) just before B's unlock takes A
 * out of the tree and clears its fl_blocker: A, leaving, finds fl_blocker
 * NULL with C still queued behind its request, and locks_delete_block
 * must take the slow path and wake C (fs/locks.c, Linux 6.12: its
 * lockless exit checks fl_blocked_requests too), else C waits under a
 * request that is gone.  A's F_SETLKW returns 0 (then A unlocks) or EINTR,
 * C's 0; C's lock is removed by the check, after which nothing may be
 * left.  The same oracle otherwise.
 *
 * setlkw-eintr: A waits under B's W[0,0]; S signals A; B unlocks W[0,0].
 * A's F_SETLKW returns EINTR or 0 (then A unlocks).  The waker's last
 * access to a waiter it wakes is the release store of fl_blocker = NULL
 * after the wake-up (__locks_wake_up_blocks, fs/locks.c, Linux 6.12): a
 * waiter that left its wait with EINTR sees that store in its lockless
 * locks_delete_block and returns, and its request (on its stack) is gone.
 * Published before the unlink and the wake-up, the store lets A return
 * while B is still to lock A's wait queue: a use-after-return that the
 * sanitizer build reports with ASan's detect_stack_use_after_return
 * (explore.setlkw-eintr.uar).
 *
 * Locking: owners are opaque cookies; setup and the checks run on the
 * driver with no task running.
 */
#include "explore.h"

#include <string.h>

#define LWOWNER(n) ((fl_owner_t)(uintptr_t)(0x30000 + (n)*64))

enum { LW_A, LW_C, LW_B }; /* task numbers */

struct lw_priv {
	struct file *f;
};

static int lw_setlk(struct file *f, unsigned int cmd, int owner, int type, int64_t start,
		    int64_t len)
{
	struct flock l = {
	    .l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};

	return fcntl_setlk(f, cmd, &l, LWOWNER(owner), owner + 300, NULL);
}

static void lw_format(int task, int op, long v, char *buf, size_t len)
{
	(void)task;
	(void)op;
	if (v < 0)
		snprintf(buf, len, "-%s", v == -EDEADLK ? "EDEADLK" : strerror((int)-v));
	else
		snprintf(buf, len, "%ld", v);
}

static int lw_setup(struct xs_run *r)
{
	struct lw_priv *p = r->priv;

	if (!xs_process(r, LW_A, "A") || !xs_process(r, LW_C, "C") || !xs_process(r, LW_B, "B"))
		return -ENOMEM;
	task_attach(r->task[LW_A]);
	if (filp_open("/xrequeue", O_RDWR | O_CREAT, 0644, &p->f))
		return -EIO;
	if (lw_setlk(p->f, F_SETLK, LW_A, F_WRLCK, 5, 1) ||
	    lw_setlk(p->f, F_SETLK, LW_B, F_WRLCK, 0, 1))
		return -EIO;
	return 0;
}

static long lw_op(struct xs_run *r, int task, int op)
{
	struct lw_priv *p = r->priv;

	if (task != LW_B)
		return op == 0 ? lw_setlk(p->f, F_SETLKW, task, F_WRLCK, 0, 1)
			       : lw_setlk(p->f, F_SETLK, task, F_UNLCK, 0, 0);
	switch (op) {
	case 0:
		return lw_setlk(p->f, F_SETLK, LW_B, F_UNLCK, 0, 1);
	case 1:
		return lw_setlk(p->f, F_SETLK, LW_B, F_WRLCK, 0, 1);
	case 2:
		return lw_setlk(p->f, F_SETLKW, LW_B, F_WRLCK, 5, 1);
	default:
		return lw_setlk(p->f, F_SETLK, LW_B, F_UNLCK, 0, 0);
	}
}

static int lw_check(struct xs_run *r, char *why, size_t len)
{
	long a = r->result[LW_A][0], c = r->result[LW_C][0];
	long bset = r->result[LW_B][1], bw = r->result[LW_B][2];
	char msg[256];

	if ((a != 0 && a != -EDEADLK) || (bw != 0 && bw != -EDEADLK) || c != 0 ||
	    (bset != 0 && bset != -EAGAIN) || (a == -EDEADLK && bw == -EDEADLK) ||
	    ((a == -EDEADLK || bw == -EDEADLK) && bset != 0)) {
		snprintf(why, len,
			 "A's F_SETLKW %ld, C's %ld, B's F_SETLK %ld and F_SETLKW %ld: EDEADLK is "
			 "for one of A and B, only while B holds W[0,0]",
			 a, c, bset, bw);
		return 1;
	}
	if (r->result[LW_A][1] || r->result[LW_C][1] || r->result[LW_B][0] || r->result[LW_B][3]) {
		snprintf(why, len, "an unlock failed");
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

static void lw_teardown(struct xs_run *r)
{
	struct lw_priv *p = r->priv;

	xs_exit_tasks(r);
	if (p->f)
		fput(p->f);
	p->f = NULL;
	do_unlink("/xrequeue");
}

static struct xscenario setlkw_requeue = {
    .name = "setlkw-requeue",
    .summary = "a woken F_SETLKW that gets EDEADLK on its retry while another request waits "
	       "behind it: the request behind must be woken",
    .ntasks = 3,
    .nops = {2, 2, 4},
    .opname = {{"setlkw(W0-0)", "unlock(all)"},
	       {"setlkw(W0-0)", "unlock(all)"},
	       {"unlock(W0-0)", "setlk(W0-0)", "setlkw(W5-5)", "unlock(all)"}},
    .matrix_k = 1, /* three tasks */
    .variants =
	{
	    {"", false},
	    {"filelock=inode", false},
	},
    .priv_size = sizeof(struct lw_priv),
    .setup = lw_setup,
    .op = lw_op,
    .midcheck = xs_locks_midcheck,
    .check = lw_check,
    .teardown = lw_teardown,
    .format = lw_format,
};
XSCENARIO(setlkw_requeue)

static long lws_op(struct xs_run *r, int task, int op)
{
	struct lw_priv *p = r->priv;

	switch (task) {
	case LW_A:
		return op == 0 ? lw_setlk(p->f, F_SETLKW, LW_A, F_WRLCK, 0, 1)
			       : lw_setlk(p->f, F_SETLK, LW_A, F_UNLCK, 0, 0);
	case LW_C:
		if (op == 0) {
			task_signal(r->task[LW_A]);
			return 0;
		}
		return lw_setlk(p->f, F_SETLKW, LW_C, F_WRLCK, 0, 1);
	default:
		return lw_setlk(p->f, F_SETLK, LW_B, F_UNLCK, 0, 1);
	}
}

static int lws_check(struct xs_run *r, char *why, size_t len)
{
	struct lw_priv *p = r->priv;
	long a = r->result[LW_A][0], c = r->result[LW_C][1];
	char msg[256];

	if ((a != 0 && a != -EINTR) || c != 0) {
		snprintf(why, len, "A's F_SETLKW %ld (0 or EINTR), C's %ld (0)", a, c);
		return 1;
	}
	if (r->result[LW_A][1] || r->result[LW_B][0] ||
	    lw_setlk(p->f, F_SETLK, LW_C, F_UNLCK, 0, 0)) {
		snprintf(why, len, "an unlock failed");
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

static struct xscenario setlkw_signal = {
    .name = "setlkw-signal",
    .summary = "an F_SETLKW interrupted by a signal as its lock is released, with another "
	       "request waiting behind it: the request behind must be woken",
    .ntasks = 3,
    .nops = {2, 2, 1},
    .opname = {{"setlkw(W0-0)", "unlock(all)"}, {"signal(A)", "setlkw(W0-0)"}, {"unlock(W0-0)"}},
    .matrix_k = 1, /* three tasks */
    .variants =
	{
	    {"", false},
	    {"filelock=inode", false},
	},
    .priv_size = sizeof(struct lw_priv),
    .setup = lw_setup,
    .op = lws_op,
    .midcheck = xs_locks_midcheck,
    .check = lws_check,
    .teardown = lw_teardown,
    .format = lw_format,
};
XSCENARIO(setlkw_signal)

static int lwe_setup(struct xs_run *r)
{
	struct lw_priv *p = r->priv;

	if (!xs_process(r, 0, "A") || !xs_process(r, 1, "B") || !xs_process(r, 2, "S"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (filp_open("/xrequeue", O_RDWR | O_CREAT, 0644, &p->f))
		return -EIO;
	return lw_setlk(p->f, F_SETLK, 1, F_WRLCK, 0, 1) ? -EIO : 0;
}

static long lwe_op(struct xs_run *r, int task, int op)
{
	struct lw_priv *p = r->priv;

	switch (task) {
	case 0:
		return op == 0 ? lw_setlk(p->f, F_SETLKW, 0, F_WRLCK, 0, 1)
			       : lw_setlk(p->f, F_SETLK, 0, F_UNLCK, 0, 0);
	case 1:
		return lw_setlk(p->f, F_SETLK, 1, F_UNLCK, 0, 1);
	default:
		task_signal(r->task[0]);
		return 0;
	}
}

static int lwe_check(struct xs_run *r, char *why, size_t len)
{
	long a = r->result[0][0];
	char msg[256];

	if ((a != 0 && a != -EINTR) || r->result[0][1] || r->result[1][0]) {
		snprintf(why, len, "A's F_SETLKW %ld (0 or EINTR), unlocks %ld %ld", a,
			 r->result[0][1], r->result[1][0]);
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

static struct xscenario setlkw_eintr = {
    .name = "setlkw-eintr",
    .summary = "an F_SETLKW interrupted by a signal as its lock is released: the waker must "
	       "be done with the request before the waiter sees it woken",
    .ntasks = 3,
    .nops = {2, 1, 1},
    .opname = {{"setlkw(W0-0)", "unlock(all)"}, {"unlock(W0-0)"}, {"signal(A)"}},
    .matrix_k = 2, /* 4,371 schedules; filelock=inode (6,290) adds nothing here */
    .variants =
	{
	    {"", false},
	},
    .priv_size = sizeof(struct lw_priv),
    .setup = lwe_setup,
    .op = lwe_op,
    .midcheck = xs_locks_midcheck,
    .check = lwe_check,
    .teardown = lw_teardown,
    .format = lw_format,
};
XSCENARIO(setlkw_eintr)
