/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/spinlock.h - spinlock_t (test-and-test-and-set) and the monotonic clock.
 *
 * Locking: a spinlock_t is not recursive; it may be taken inside an RCU
 * read-side section; the holder must not sleep (schedule()) while holding it.
 * The slow path is in spinlock.c and counts spin_contended.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_SPINLOCK_H
#define RCUVFS_VFS_BASE_SPINLOCK_H

#include "vfs/base/compiler.h"

/*
 * Test-and-test-and-set on a 32-bit word.  Userspace cannot disable
 * preemption, so a waiter spins with PAUSE for RV_SPIN_LIMIT rounds and then
 * calls sched_yield(), letting a preempted holder run; figures that depend on
 * spinning say so.  32 bits so that lockref can pack it with a count.
 */
typedef struct {
	uint32_t val; /* 0 unlocked, 1 locked */
} spinlock_t;
#define __SPIN_LOCK_UNLOCKED { 0 }
#define DEFINE_SPINLOCK(x) spinlock_t x = __SPIN_LOCK_UNLOCKED
#define RV_SPIN_LIMIT 1024

void __spin_lock_slow(spinlock_t *l);
static inline void spin_lock_init(spinlock_t *l)
{
	l->val = 0;
}
static __always_inline bool spin_trylock(spinlock_t *l)
{
	return __atomic_load_n(&l->val, __ATOMIC_RELAXED) == 0 &&
	       __atomic_exchange_n(&l->val, 1, __ATOMIC_ACQUIRE) == 0;
}
static __always_inline void spin_lock(spinlock_t *l)
{
	if (likely(__atomic_exchange_n(&l->val, 1, __ATOMIC_ACQUIRE) == 0))
		return;
	__spin_lock_slow(l);
}
static __always_inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->val, 0, __ATOMIC_RELEASE);
}
static __always_inline bool spin_is_locked(const spinlock_t *l)
{
	return __atomic_load_n(&l->val, __ATOMIC_RELAXED) != 0;
}

/* Monotonic nanoseconds (benchmarks, injection timeouts). */
uint64_t rv_now_ns(void);

#endif /* RCUVFS_VFS_BASE_SPINLOCK_H */
