// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_selftest.c - the explorer's own check: a textbook lost
 * update.  Two tasks increment one counter; with lock=none the increment
 * is a load, a scheduling point and a store, and one preemption between
 * them loses an update (the final count 1 matches no serial order); with a
 * spinlock_t around it or an atomic add, every schedule gives 2.
 *
 * Locking: the counter is the scenario's; lock=spinlock protects it with
 * counter_lock.
 */
#include "explore.h"

struct counter_priv {
	spinlock_t lock;
	long count;
};

static int counter_setup(struct xs_run *r)
{
	struct counter_priv *cp = r->priv;

	spin_lock_init(&cp->lock);
	cp->count = 0;
	if (!xs_process(r, 0, "inc") || !xs_thread_of(r, 1, 0))
		return -ENOMEM;
	return 0;
}

static long counter_op(struct xs_run *r, int task, int op)
{
	struct counter_priv *cp = r->priv;
	long v;

	if (xs_param_is(r, "lock", "atomic")) {
		__atomic_fetch_add(&cp->count, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (xs_param_is(r, "lock", "spinlock"))
		spin_lock(&cp->lock);
	v = READ_ONCE(cp->count);
	rv_sched_point("counter: loaded");
	WRITE_ONCE(cp->count, v + 1);
	if (xs_param_is(r, "lock", "spinlock"))
		spin_unlock(&cp->lock);
	return 0;
}

static int counter_check(struct xs_run *r, char *why, size_t len)
{
	struct counter_priv *cp = r->priv;

	if (cp->count != 2) {
		snprintf(why, len, "two increments left the counter at %ld (a lost update)",
			 cp->count);
		return 1;
	}
	return 0;
}

static struct xscenario selftest_counter = {
    .name = "selftest-counter",
    .summary = "the explorer's own check: two increments of one counter, unlocked, under "
	       "a spinlock_t, or atomic",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"inc"}, {"inc"}},
    .params = {{"lock", {"none", "spinlock", "atomic"}, "how the increment is protected"}},
    .variants =
	{
	    {"lock=none", true},
	    {"lock=spinlock", false},
	    {"lock=atomic", false},
	},
    .priv_size = sizeof(struct counter_priv),
    .setup = counter_setup,
    .op = counter_op,
    .check = counter_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(selftest_counter)

/* ---- ABBA: the explorer's deadlock detection ------------------------------------ */

/*
 * Two tasks take two rw_semaphores for write, T0 in the order A, B and T1
 * in the order B, A (order=abba), or both A, B (order=aabb).  One
 * preemption between T0's two acquisitions deadlocks abba: both tasks
 * sleep in down_write and none can run, which the explorer reports with
 * where each task is parked.
 */
struct abba_priv {
	struct rw_semaphore a, b;
};

static int abba_setup(struct xs_run *r)
{
	struct abba_priv *ap = r->priv;

	init_rwsem(&ap->a);
	init_rwsem(&ap->b);
	if (!xs_process(r, 0, "ab") || !xs_thread_of(r, 1, 0))
		return -ENOMEM;
	return 0;
}

static long abba_op(struct xs_run *r, int task, int op)
{
	struct abba_priv *ap = r->priv;
	bool reverse = task == 1 && xs_param_is(r, "order", "abba");
	struct rw_semaphore *first = reverse ? &ap->b : &ap->a;
	struct rw_semaphore *second = reverse ? &ap->a : &ap->b;

	down_write(first);
	down_write(second);
	up_write(second);
	up_write(first);
	return 0;
}

static struct xscenario selftest_abba = {
    .name = "selftest-abba",
    .summary = "the explorer's own check: two rw_semaphores taken in opposite orders "
	       "(a deadlock) or in the same order",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"lock A, B"}, {"lock B, A | A, B"}},
    .params = {{"order", {"abba", "aabb"}, "T1's order"}},
    .variants =
	{
	    {"order=abba", true},
	    {"order=aabb", false},
	},
    .priv_size = sizeof(struct abba_priv),
    .setup = abba_setup,
    .op = abba_op,
    .teardown = xs_exit_tasks,
};
XSCENARIO(selftest_abba)
