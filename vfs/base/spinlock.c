// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/spinlock.c - slow path of spinlock_t, and the monotonic clock.
 *
 * The waiter spins on a plain load (test-and-test-and-set) with PAUSE for
 * RV_SPIN_LIMIT rounds, then yields the CPU: userspace cannot disable
 * preemption, so a preempted holder must be allowed to run.  Contended
 * acquisitions are counted as spin_contended.
 */
#include "vfs/base/base.h"

#include <sched.h>
#include <time.h>

RV_STAT_DEFINE(spin_contended, "spinlock_t acquisitions that found the lock held");
RV_STAT_DEFINE(spin_yields, "sched_yield calls by spinlock_t waiters after the spin limit");

void __spin_lock_slow(spinlock_t *l)
{
	unsigned int spins = 0;

	rv_stat_inc(spin_contended);
	for (;;) {
		while (__atomic_load_n(&l->val, __ATOMIC_RELAXED)) {
			if (++spins < RV_SPIN_LIMIT) {
				cpu_relax();
			} else {
				rv_stat_inc(spin_yields);
				sched_yield();
				spins = 0;
			}
		}
		if (__atomic_exchange_n(&l->val, 1, __ATOMIC_ACQUIRE) == 0)
			return;
	}
}

uint64_t rv_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
