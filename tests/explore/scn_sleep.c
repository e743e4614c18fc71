// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_sleep.c - more of the sleeping primitives of vfs/base
 * as scenarios of their own (scn_base.c has the others): rw_semaphore hand-off and downgrade,
 * semaphore hand-off and stealing, and waits interrupted by a signal.
 *
 * rwsem-readers-writer: two readers and a writer take and release one
 * rw_semaphore; each counts itself in and out of its critical section.
 * The oracle: never a writer with anyone else inside (checked at every
 * entry), and every task finishes: a lost wake-up (a grant nobody makes)
 * leaves a task asleep with nobody to wake it, which the explorer reports
 * as a deadlock.
 *
 * rwsem-downgrade: T1 takes the rwsem for write, downgrades it and waits
 * (a completion) for T0, a reader, to get in; T0 down_read()s, signals,
 * up_read()s.  downgrade_write must let the readers queued at the head in
 * (rwsem_downgrade_wake): if T0 queued while T1 held it for write, nothing
 * else would wake it.
 *
 * sem-handoff: three tasks down() and up() one semaphore of count 1, FIFO
 * (hand-off) or stealing (sem=steal); mutual exclusion and no task left
 * asleep.
 *
 * sem-signal-count: T0 down_interruptible()s a semaphore of count 0; T1 signals
 * T0, then up()s.  T0 gets the count or -EINTR; either way the count is
 * conserved (1 left iff T0 got -EINTR) and T2's down() then succeeds.
 *
 * completion-signal: T0 and T2 wait for one completion, T0 interruptibly;
 * T1 signals T0 and complete()s once.  Exactly one waiter may consume it;
 * if T0 leaves with -EINTR the wake-up it consumed must reach T2.
 *
 * Locking: the primitives are the scenario's own statics; setup and the
 * checks run on the driver with no task running.
 */
#include "explore.h"

#include <string.h>

static struct rw_semaphore xb_rwsem;
static struct semaphore xb_sem;
static struct completion xb_done, xb_in;
static int xb_readers, xb_writers, xb_bad;

static int xb_setup(struct xs_run *r)
{
	for (int t = 0; t < r->sc->ntasks; t++)
		if (!xs_process(r, t, "base"))
			return -ENOMEM;
	init_rwsem(&xb_rwsem);
	if (xs_param_is(r, "sem", "steal"))
		sema_init_steal(&xb_sem, 1);
	else
		sema_init_fifo(&xb_sem, 1);
	init_completion(&xb_done);
	init_completion(&xb_in);
	xb_readers = xb_writers = xb_bad = 0;
	return 0;
}

/* ---- rwsem hand-off ------------------------------------------------------------ */

static long rh_op(struct xs_run *r, int task, int op)
{
	if (task == 1) {
		down_write(&xb_rwsem);
		xb_writers++;
		if (xb_readers || xb_writers > 1)
			xb_bad++;
		rv_sched_point("rwsem-readers-writer: writer inside");
		xb_writers--;
		up_write(&xb_rwsem);
		return 0;
	}
	down_read(&xb_rwsem);
	xb_readers++;
	if (xb_writers)
		xb_bad++;
	rv_sched_point("rwsem-readers-writer: reader inside");
	xb_readers--;
	up_read(&xb_rwsem);
	return 0;
}

static int xb_excl_check(struct xs_run *r, char *why, size_t len)
{
	if (xb_bad) {
		snprintf(why, len, "a writer shared the lock %d times", xb_bad);
		return 1;
	}
	return 0;
}

static struct xscenario rwsem_handoff = {
    .name = "rwsem-readers-writer",
    .summary = "two readers and a writer on one rw_semaphore: exclusion, no lost wake-up",
    .ntasks = 3,
    .nops = {1, 1, 1},
    .opname = {{"read section"}, {"write section"}, {"read section"}},
    .matrix_k = 3, /* K = 3 exhausts in seconds (docs/explore.md, Depth) */
    .variants =
	{
	    {"", false},
	},
    .setup = xb_setup,
    .op = rh_op,
    .check = xb_excl_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(rwsem_handoff)

/* ---- rwsem downgrade ------------------------------------------------------------ */

static long rd_op(struct xs_run *r, int task, int op)
{
	if (task == 1) {
		down_write(&xb_rwsem);
		downgrade_write(&xb_rwsem);
		wait_for_completion(&xb_in); /* a reader gets in beside us */
		up_read(&xb_rwsem);
		return 0;
	}
	down_read(&xb_rwsem);
	complete(&xb_in);
	up_read(&xb_rwsem);
	return 0;
}

static struct xscenario rwsem_downgrade = {
    .name = "rwsem-downgrade",
    .summary = "a writer downgrades and waits for a reader to join it",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"read, signal"}, {"write, downgrade, wait"}},
    .matrix_k = 3, /* K = 3 exhausts in seconds (docs/explore.md, Depth) */
    .variants =
	{
	    {"", false},
	},
    .setup = xb_setup,
    .op = rd_op,
    .teardown = xs_exit_tasks,
};
XSCENARIO(rwsem_downgrade)

/* ---- semaphore hand-off ------------------------------------------------------- */

static long sh_op(struct xs_run *r, int task, int op)
{
	down(&xb_sem);
	if (++xb_writers > 1)
		xb_bad++;
	rv_sched_point("sem-handoff: inside");
	xb_writers--;
	up(&xb_sem);
	return 0;
}

static struct xscenario sem_handoff = {
    .name = "sem-handoff",
    .summary = "three tasks down() and up() a semaphore of 1 (FIFO hand-off or stealing)",
    .ntasks = 3,
    .nops = {1, 1, 1},
    .opname = {{"section"}, {"section"}, {"section"}},
    .params = {{"sem", {"fifo", "steal"}, "semaphore kind: FIFO hand-off or stealing"}},
    .matrix_k = 2,
    .variants =
	{
	    {"sem=fifo", false},
	    {"sem=steal", false},
	},
    .setup = xb_setup,
    .op = sh_op,
    .check = xb_excl_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(sem_handoff)

/* ---- a semaphore wait interrupted -------------------------------------------- */

static int ss_setup(struct xs_run *r)
{
	int err = xb_setup(r);

	if (!err && down_trylock(&xb_sem)) /* count 0 */
		err = -EIO;
	return err;
}

static long ss_op(struct xs_run *r, int task, int op)
{
	switch (task) {
	case 0:
		return down_interruptible(&xb_sem);
	case 1:
		task_signal(r->task[0]);
		up(&xb_sem);
		return 0;
	default: /* after the others: takes what is left, or waits for T0's up */
		if (down_trylock(&xb_sem))
			return 1;
		up(&xb_sem);
		return 0;
	}
}

static int ss_check(struct xs_run *r, char *why, size_t len)
{
	long got = r->result[0][0];
	int left;

	if (got != 0 && got != -EINTR) {
		snprintf(why, len, "down_interruptible returned %ld", got);
		return 1;
	}
	left = down_trylock(&xb_sem) ? 0 : 1;
	if (left != (got == 0 ? 0 : 1)) {
		snprintf(why, len,
			 "down_interruptible returned %ld and the count is %d after: the "
			 "count went to a waiter that had left",
			 got, left);
		return 1;
	}
	if (!left)
		return 0;
	up(&xb_sem);
	return 0;
}

static struct xscenario sem_signal = {
    .name = "sem-signal-count",
    .summary = "down_interruptible of a semaphore of 0 vs a signal and an up()",
    .ntasks = 3,
    .nops = {1, 1, 1},
    .opname = {{"down_interruptible"}, {"signal T0, up"}, {"trylock"}},
    .matrix_k = 3, /* K = 3 exhausts in seconds (docs/explore.md, Depth) */
    .variants =
	{
	    {"", false},
	},
    .setup = ss_setup,
    .op = ss_op,
    .check = ss_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(sem_signal)

/* ---- a completion wait interrupted ------------------------------------------- */

static long cs2_op(struct xs_run *r, int task, int op)
{
	switch (task) {
	case 0: {
		int ret = wait_for_completion_interruptible(&xb_done);

		if (ret == 0) /* got it: pass it on, so that T2 gets one too */
			complete(&xb_done);
		return ret;
	}
	case 1:
		task_signal(r->task[0]);
		complete(&xb_done);
		return 0;
	default:
		/* T1's completion, directly or passed on by T0 */
		wait_for_completion(&xb_done);
		return 0;
	}
}

static struct xscenario completion_signal = {
    .name = "completion-signal",
    .summary = "two waiters of one completion, one interrupted by a signal, one complete()",
    .ntasks = 3,
    .nops = {1, 1, 1},
    .opname = {{"wait_interruptible"}, {"signal T0, complete"}, {"wait"}},
    .matrix_k = 2,
    .variants =
	{
	    {"", false},
	},
    .setup = xb_setup,
    .op = cs2_op,
    .teardown = xs_exit_tasks,
};
XSCENARIO(completion_signal)
