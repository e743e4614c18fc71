// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/spinlock.c - slow path of spinlock_t, and the monotonic clock.
 *
 * The waiter spins on a plain load (test-and-test-and-set) with PAUSE for
 * RV_SPIN_LIMIT rounds, then yields the CPU: userspace cannot disable
 * preemption, so a preempted holder must be allowed to run.  Contended
 * acquisitions are counted as spin_contended.  In the explorer build an
 * explored waiter parks while another explored task holds the lock (the
 * holder stores 2; see RV_SPIN_HELD) and yields while a thread outside the
 * run holds it (1).
 */
#include "vfs/base/base.h"

#include <sched.h>
#include <time.h>

RV_STAT_DEFINE(spin_contended, "spinlock_t acquisitions that found the lock held");
RV_STAT_DEFINE(spin_yields, "sched_yield calls by spinlock_t waiters after the spin limit");

/* Explorer: may the parked waiter try again (no explored task holds it)? */
static bool spin_not_held_by_task(const void *arg)
{
	const spinlock_t *l = arg;

	return __atomic_load_n(&l->val, __ATOMIC_RELAXED) < 2;
}

void __spin_lock_slow(spinlock_t *l)
{
	struct spin_wait w = {0, 0};

	__spin_lock_slow_counted(l, &w);
}

void __spin_lock_slow_counted(spinlock_t *l, struct spin_wait *w)
{
	unsigned int spins = 0, noted = 0;

	rv_stat_inc(spin_contended);
	if (RV_XACTIVE()) {
		for (;;) {
			uint32_t v = __atomic_load_n(&l->val, __ATOMIC_RELAXED);

			if (v >= 2)
				rv_xblock(RV_XP_SPIN_WAIT, l, spin_not_held_by_task, l, NULL);
			else if (v == 1) {
				w->yields++;
				sched_yield(); /* a thread outside the run holds it */
			} else if (__atomic_exchange_n(&l->val, RV_SPIN_HELD, __ATOMIC_ACQUIRE) ==
				   0)
				return;
		}
	}
	for (;;) {
		while (__atomic_load_n(&l->val, __ATOMIC_RELAXED)) {
			if (++spins < RV_SPIN_LIMIT) {
				w->spins++;
				cpu_relax();
			} else {
				w->yields++;
				if (!noted++)
					rv_wait_note(RV_XP_SPIN_WAIT, l, NULL);
				rv_stat_inc(spin_yields);
				sched_yield();
				spins = 0;
			}
		}
		if (__atomic_exchange_n(&l->val, 1, __ATOMIC_ACQUIRE) == 0) {
			if (noted) { /* the watchdog may have seen us wait */
				rv_wait_done();
				rv_wait_progressed();
			}
			return;
		}
	}
}

uint64_t rv_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
