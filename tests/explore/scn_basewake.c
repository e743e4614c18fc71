// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_basewake.c - wake-ups of sleeping primitives whose
 * waiter goes away or whose count outlasts the waiter woken for it.
 *
 * rwsem-exit: a reader holds a process's mmap_lock (taken in setup); T1
 * exits that process, whose exit_mmap waits for mmap_lock for write; T0
 * releases the read lock (up_read from another task, as
 * up_read_non_owner).  The grant publishes the waiter's `granted` before
 * it wakes the task: the exiting task may see it, finish its exit and be
 * freed while up_read still has to call wake_up_process on it.
 * rwsem_mark_wake (kernel/locking/rwsem.c, Linux 6.12) holds a task
 * reference across that (get_task_struct, wake_q_add_safe).  The oracle is
 * the freed task itself: the explorer's build poisons a freed task_struct
 * and counts any wake-up of it (vfs/base/sched.c), the sanitizer build
 * reports the access; both fail the schedule.
 *
 * sem-steal-wakes: a stealing semaphore of count 0; T0 and T1 down() and
 * up() it; T2 up()s twice, then down()s and up()s.  Two up()s may wake two
 * waiters before either runs, so a woken waiter can take a count and
 * leave another count free with a waiter still queued: the case "fix #2"
 * of the 2008 semaphore thread passes the wake-up on for
 * (vfs/base/semaphore.c, __down_steal).  The oracle: everyone finishes
 * (a waiter left asleep with a count free is a deadlock the explorer
 * reports), the count is 2 again and nobody is queued.
 *
 * Locking: the semaphore is the scenario's own static; setup and the
 * checks run on the driver with no task running.
 */
#include "explore.h"

#include <string.h>

/* ---- rwsem-exit --------------------------------------------------------------- */

struct rwx_priv {
	struct task_struct *victim; /* the process that exits */
	struct mm_struct *mm;	    /* its mm, pinned (mmgrab) */
	bool unlocked;		    /* T0 released the read lock */
};

static int rwx_setup(struct xs_run *r)
{
	struct rwx_priv *p = r->priv;

	p->victim = task_create_process("victim");
	if (!p->victim || !xs_process(r, 0, "reader") || !xs_process(r, 1, "exiter"))
		return -ENOMEM;
	task_attach(p->victim);
	if (exec_mm(p->victim))
		return -ENOMEM;
	p->mm = p->victim->mm;
	mmgrab(p->mm);
	mmap_read_lock(p->mm); /* released by T0 */
	return 0;
}

static long rwx_op(struct xs_run *r, int task, int op)
{
	struct rwx_priv *p = r->priv;

	(void)op;
	if (task == 0) {
		mmap_read_unlock(p->mm);
		p->unlocked = true;
		return 0;
	}
	task_exit(p->victim); /* exit_mmap: mmap_write_lock */
	p->victim = NULL;
	return 0;
}

static int rwx_check(struct xs_run *r, char *why, size_t len)
{
	long n = rv_task_freed_touches(false);

	(void)r;
	if (n) {
		snprintf(why, len, "%ld wake-up(s) of the exited task after it was freed", n);
		return 1;
	}
	return 0;
}

static void rwx_teardown(struct xs_run *r)
{
	struct rwx_priv *p = r->priv;

	if (p->mm && !p->unlocked)
		mmap_read_unlock(p->mm);
	if (p->victim)
		task_exit(p->victim);
	p->victim = NULL;
	if (p->mm)
		mmdrop(p->mm);
	p->mm = NULL;
	xs_exit_tasks(r);
}

static struct xscenario rwsem_exit = {
    .name = "rwsem-exit",
    .summary = "up_read of a process's mmap_lock vs the exit of that process waiting for it "
	       "for write: the woken task may be freed before the wake-up",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"up_read(mmap_lock)"}, {"exit(process)"}},
    .matrix_k = 3, /* 130 schedules */
    .variants =
	{
	    {"", false},
	},
    .priv_size = sizeof(struct rwx_priv),
    .setup = rwx_setup,
    .op = rwx_op,
    .check = rwx_check,
    .teardown = rwx_teardown,
};
XSCENARIO(rwsem_exit)

/* ---- sem-steal-wakes ---------------------------------------------------------- */

static struct semaphore xw_sem;
static int xw_inside;
static int xw_bad;

static int ssw_setup(struct xs_run *r)
{
	for (int t = 0; t < 3; t++)
		if (!xs_process(r, t, "sem"))
			return -ENOMEM;
	sema_init_steal(&xw_sem, 0);
	xw_inside = xw_bad = 0;
	return 0;
}

static long ssw_op(struct xs_run *r, int task, int op)
{
	(void)r;
	if (task == 2 && op < 2) {
		up(&xw_sem);
		return 0;
	}
	if (op == 0 || (task == 2 && op == 2)) {
		down(&xw_sem);
		if (++xw_inside > 2) /* two counts: at most two holders */
			xw_bad++;
		return 0;
	}
	xw_inside--;
	up(&xw_sem);
	return 0;
}

static int ssw_check(struct xs_run *r, char *why, size_t len)
{
	(void)r;
	if (xw_bad || xw_sem.count != 2 || !list_empty(&xw_sem.wait_list)) {
		snprintf(why, len, "%d times more than two holders; count %d, %s", xw_bad,
			 xw_sem.count,
			 list_empty(&xw_sem.wait_list) ? "nobody queued" : "waiters queued");
		return 1;
	}
	return 0;
}

static struct xscenario sem_steal_wakes = {
    .name = "sem-steal-wakes",
    .summary = "two waiters on a stealing semaphore of 0 and two up()s: a woken waiter leaves "
	       "a count free with another queued",
    .ntasks = 3,
    .nops = {2, 2, 4},
    .opname = {{"down", "up"}, {"down", "up"}, {"up", "up", "down", "up"}},
    .matrix_k = 1, /* three tasks: 494 schedules (K = 2: 13,238) */
    .variants =
	{
	    {"", false},
	},
    .setup = ssw_setup,
    .op = ssw_op,
    .check = ssw_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(sem_steal_wakes)
