// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_base.c - the sleeping locks of vfs/base as scenarios of
 * their own: the rw_semaphore's hand-off to queued readers and writers
 * (and downgrade_write), the counting semaphore's FIFO hand-off and
 * stealing re-check with a signal racing the wake-up, and the BKL's
 * recursion and its release across a sleep, under each `bkl` scheme.
 *
 * Oracles, outside the lock code: each task marks its critical section in
 * the scenario's own counters with a scheduling point inside it, so the
 * explorer runs the others there; entering a section that another task
 * holds in a conflicting mode is recorded as a violation (mutual
 * exclusion as a user of the lock sees it).  After the schedule: no
 * violation, the lock free with nobody queued, and every task finished
 * (the explorer reports a lost wake-up as a deadlock, with where each
 * task sleeps).
 *
 * Locking: the counters are touched only by the task holding the baton
 * (one task runs at a time); setup, check and teardown run on the driver.
 */
#include "explore.h"

struct base_priv {
	struct rw_semaphore rwsem;
	struct semaphore sem;
	int readers, writers; /* tasks inside the critical section, by mode */
	int violations;
	char first[160]; /* the first violation */
};

static void violation(struct base_priv *bp, const char *what, int task)
{
	if (!bp->violations++)
		snprintf(bp->first, sizeof(bp->first),
			 "%s (T%d enters with %d reader(s), %d writer(s) inside)", what, task,
			 bp->readers, bp->writers);
}

static void enter(struct base_priv *bp, int task, bool write)
{
	if (bp->writers || (write && bp->readers))
		violation(bp,
			  write ? "exclusive section entered while held"
				: "shared section entered while held exclusive",
			  task);
	if (write)
		bp->writers++;
	else
		bp->readers++;
}

static void leave(struct base_priv *bp, bool write)
{
	if (write)
		bp->writers--;
	else
		bp->readers--;
}

/* A critical section in mode `write` (exclusive) or shared. */
static void section(struct base_priv *bp, int task, bool write, const char *point)
{
	enter(bp, task, write);
	rv_sched_point(point);
	leave(bp, write);
}

static int report_violations(struct base_priv *bp, char *why, size_t len)
{
	if (bp->violations) {
		snprintf(why, len, "%d exclusion violation(s), first: %s", bp->violations,
			 bp->first);
		return 1;
	}
	return 0;
}

/* ---- rw_semaphore ---------------------------------------------------------------- */

/*
 * T0 and T2 read, T1 writes (writer=downgrade: writes, downgrade_write,
 * reads on, up_read).  Whoever comes second or third queues, and the
 * releases hand the semaphore to the queue head (rwsem_grant): a writer
 * only once the readers are out, the readers at the head together.
 *
 * Shown to catch (a temporary edit): rwsem_grant handing a queued writer
 * the semaphore while readers are still in, found after 16 schedules
 * (rwsem-handoff/writer=plain@7.2,10.1).  rwsem_down_slow without its
 * grant after queueing survives (1,000 schedules, exhausted): equivalent
 * under the explorer's sequentially consistent steps, since a reader that
 * leaves after the WAITERS bit is set takes wait_lock and grants itself.
 */
static int rwsem_setup(struct xs_run *r)
{
	struct base_priv *bp = r->priv;

	init_rwsem(&bp->rwsem);
	if (!xs_process(r, 0, "reader") || !xs_thread_of(r, 1, 0) || !xs_thread_of(r, 2, 0))
		return -ENOMEM;
	return 0;
}

static long rwsem_op(struct xs_run *r, int task, int op)
{
	struct base_priv *bp = r->priv;

	(void)op;
	if (task != 1) {
		down_read(&bp->rwsem);
		section(bp, task, false, "rwsem: reading");
		up_read(&bp->rwsem);
		return 0;
	}
	down_write(&bp->rwsem);
	section(bp, task, true, "rwsem: writing");
	if (xs_param_is(r, "writer", "downgrade")) {
		downgrade_write(&bp->rwsem);
		section(bp, task, false, "rwsem: reading after downgrade");
		up_read(&bp->rwsem);
	} else {
		up_write(&bp->rwsem);
	}
	return 0;
}

static int rwsem_check(struct xs_run *r, char *why, size_t len)
{
	struct base_priv *bp = r->priv;

	if (report_violations(bp, why, len))
		return 1;
	if (rwsem_is_locked(&bp->rwsem) || rwsem_is_contended(&bp->rwsem) || bp->rwsem.count) {
		snprintf(why, len, "the rw_semaphore is not free at the end (count %ld)",
			 bp->rwsem.count);
		return 1;
	}
	return 0;
}

static struct xscenario rwsem_handoff = {
    .name = "rwsem-handoff",
    .summary = "down_read/up_read (T0, T2) vs down_write/up_write or downgrade_write (T1)",
    .ntasks = 3,
    .nops = {1, 1, 1},
    .opname = {{"read section"}, {"write section"}, {"read section"}},
    .params = {{"writer",
		{"plain", "downgrade"},
		"the writer releases with up_write, or downgrades and reads on"}},
    .variants =
	{
	    {"writer=plain", false},
	    {"writer=downgrade", false},
	},
    .priv_size = sizeof(struct base_priv),
    .setup = rwsem_setup,
    .op = rwsem_op,
    .check = rwsem_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(rwsem_handoff)

/* ---- semaphore: hand-off, stealing, a signal racing the wake-up ------------------- */

/*
 * A binary semaphore (count 1), sem=fifo (the hand-off of 2.6.26-rc1) or
 * sem=steal (the woken waiter re-checks the count).  T0 holds it across a
 * section; T1 takes it with down_interruptible; T2 sends T1 a signal, then
 * takes the semaphore itself.  T1 gets it (0) or is interrupted (-EINTR)
 * and must not then hold it: a hand-off that lands on an interrupted
 * waiter would leak the count, which the end state shows (count not back
 * to 1).
 *
 * Shown to catch (temporary edits): sem=fifo, __down_fifo honouring a
 * pending signal after up() handed it the count (the count is lost, T2
 * sleeps for ever: a deadlock), found after 213 schedules
 * (sem-signal/sem=fifo@7.1,16.2); sem=steal, a woken waiter that takes
 * the count without re-checking it, two holders, after 220
 * (sem-signal/sem=steal@7.1,15.2,20.1).
 */
static int sem_setup(struct xs_run *r)
{
	struct base_priv *bp = r->priv;

	if (xs_param_is(r, "sem", "steal"))
		sema_init_steal(&bp->sem, 1);
	else
		sema_init_fifo(&bp->sem, 1);
	if (!xs_process(r, 0, "holder") || !xs_thread_of(r, 1, 0) || !xs_thread_of(r, 2, 0))
		return -ENOMEM;
	return 0;
}

static long sem_op(struct xs_run *r, int task, int op)
{
	struct base_priv *bp = r->priv;
	int ret = 0;

	(void)op;
	switch (task) {
	case 0:
		down(&bp->sem);
		section(bp, task, true, "sem: holding");
		up(&bp->sem);
		return 0;
	case 1:
		ret = down_interruptible(&bp->sem);
		if (ret == 0) {
			section(bp, task, true, "sem: holding");
			up(&bp->sem);
		}
		task_clear_signal(current);
		return ret;
	default:
		task_signal(r->task[1]);
		down(&bp->sem);
		section(bp, task, true, "sem: holding");
		up(&bp->sem);
		return 0;
	}
}

static int sem_check(struct xs_run *r, char *why, size_t len)
{
	struct base_priv *bp = r->priv;

	if (report_violations(bp, why, len))
		return 1;
	if (r->result[1][0] != 0 && r->result[1][0] != -EINTR) {
		snprintf(why, len, "down_interruptible returned %ld", r->result[1][0]);
		return 1;
	}
	if (bp->sem.count != 1 || !list_empty(&bp->sem.wait_list)) {
		snprintf(why, len, "the semaphore is not free at the end: count %d%s",
			 bp->sem.count, list_empty(&bp->sem.wait_list) ? "" : ", waiters queued");
		return 1;
	}
	return 0;
}

static void sem_format(int task, int op, long v, char *buf, size_t len)
{
	(void)op;
	snprintf(buf, len, task == 1 && v == -EINTR ? "EINTR" : "%ld", v);
}

static struct xscenario sem_signal = {
    .name = "sem-signal",
    .summary = "down/up (T0) vs down_interruptible/up (T1) vs signal T1 then down/up (T2)",
    .ntasks = 3,
    .nops = {1, 1, 1},
    .opname = {{"down, up"}, {"down_interruptible, up"}, {"signal T1, down, up"}},
    .params = {{"sem", {"fifo", "steal"}, "the semaphore: FIFO hand-off or stealing"}},
    .variants =
	{
	    {"sem=fifo", false},
	    {"sem=steal", false},
	},
    .priv_size = sizeof(struct base_priv),
    .setup = sem_setup,
    .op = sem_op,
    .check = sem_check,
    .teardown = xs_exit_tasks,
    .format = sem_format,
};
XSCENARIO(sem_signal)

/* ---- the BKL: recursion, release across a sleep, re-take ------------------------- */

/*
 * T0 takes the BKL twice (recursion), then sleeps in down() on a
 * semaphore of count 0, which releases the BKL (schedule()), and after
 * the wake-up holds it again at the same depth; T1 takes the BKL, ups the
 * semaphore and drops the BKL.  T1 can only get the BKL while T0 sleeps,
 * or before or after T0's whole section: a re-take that did not wait for
 * T1, or a sleep that did not release it (a deadlock), fails.  Under each
 * `bkl` scheme (spin, sem-fifo, sem-steal).
 *
 * Shown to catch (a temporary edit): bkl_reacquire_after_sleep restoring
 * the depth without re-taking the lock, found under every scheme after
 * 16 to 26 schedules (bkl-sleep/bkl=spin@19.0, sem-fifo@24.0).
 */
static int bkl_setup(struct xs_run *r)
{
	struct base_priv *bp = r->priv;

	sema_init_fifo(&bp->sem, 0);
	if (!xs_process(r, 0, "sleeper") || !xs_thread_of(r, 1, 0))
		return -ENOMEM;
	return 0;
}

static long bkl_op(struct xs_run *r, int task, int op)
{
	struct base_priv *bp = r->priv;
	long ret = 0;

	(void)op;
	lock_kernel();
	if (task == 1) { /* its section spans the up() */
		enter(bp, task, true);
		up(&bp->sem);
		rv_sched_point("bkl: held, the sleeper woken");
		leave(bp, true);
		unlock_kernel();
		return 0;
	}
	section(bp, task, true, "bkl: held");
	lock_kernel(); /* nested */
	section(bp, task, true, "bkl: held twice");
	down(&bp->sem); /* sleeps with the BKL released unless T1 was first */
	if (current->lock_depth != 1)
		ret = -EPROTO;
	section(bp, task, true, "bkl: held again after the sleep");
	unlock_kernel();
	if (current->lock_depth != 0)
		ret = -EPROTO;
	unlock_kernel();
	return ret;
}

static int bkl_check(struct xs_run *r, char *why, size_t len)
{
	struct base_priv *bp = r->priv;

	if (report_violations(bp, why, len))
		return 1;
	if (r->result[0][0]) {
		snprintf(why, len, "the BKL's depth was not restored after the sleep");
		return 1;
	}
	if (bkl_owned() || bp->sem.count != 0) {
		snprintf(why, len, "the BKL is still held, or the semaphore's count is %d",
			 bp->sem.count);
		return 1;
	}
	return 0;
}

static struct xscenario bkl_sleep = {
    .name = "bkl-sleep",
    .summary = "lock_kernel twice, down() sleeping (the BKL released and re-taken) vs "
	       "lock_kernel, up(), unlock_kernel",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"BKL x2, down, unlock x2"}, {"BKL, up, unlock"}},
    .variants =
	{
	    {"bkl=spin", false},
	    {"bkl=sem-fifo", false},
	    {"bkl=sem-steal", false},
	},
    .priv_size = sizeof(struct base_priv),
    .setup = bkl_setup,
    .op = bkl_op,
    .check = bkl_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(bkl_sleep)
