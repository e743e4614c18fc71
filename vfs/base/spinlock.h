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
#define __SPIN_LOCK_UNLOCKED                                                                       \
	{                                                                                          \
		0                                                                                  \
	}
#define DEFINE_SPINLOCK(x) spinlock_t x = __SPIN_LOCK_UNLOCKED
#define RV_SPIN_LIMIT	   1024

void __spin_lock_slow(spinlock_t *l);
/*
 * What one contended acquisition cost its waiter: PAUSE rounds spun and
 * sched_yield calls (the explorer build parks instead and counts neither).
 */
struct spin_wait {
	uint64_t spins, yields;
};
void __spin_lock_slow_counted(spinlock_t *l, struct spin_wait *w);
static inline void spin_lock_init(spinlock_t *l)
{
	l->val = 0;
}
/*
 * The value a holder stores: 1, or in the explorer build 2 for an explored
 * task, so that a waiter knows whether to park (the holder runs only when
 * scheduled) or to spin (a thread outside the run, which is never parked).
 */
#ifdef RCUVFS_EXPLORE
#define RV_SPIN_HELD (RV_XACTIVE() ? 2u : 1u)
#else
#define RV_SPIN_HELD 1u
#endif
static __always_inline bool spin_trylock(spinlock_t *l)
{
	bool ok;

	RV_XPOINT(RV_XP_SPIN_LOCK, l, "trylock");
	ok = __atomic_load_n(&l->val, __ATOMIC_RELAXED) == 0 &&
	     __atomic_exchange_n(&l->val, RV_SPIN_HELD, __ATOMIC_ACQUIRE) == 0;
	if (RV_XACTIVE() && ok)
		rv_xspin_acquired();
	return ok;
}
static __always_inline void spin_lock(spinlock_t *l)
{
	RV_XPOINT(RV_XP_SPIN_LOCK, l, 0);
	if (likely(__atomic_exchange_n(&l->val, RV_SPIN_HELD, __ATOMIC_ACQUIRE) == 0)) {
		if (RV_XACTIVE())
			rv_xspin_acquired();
		return;
	}
	__spin_lock_slow(l);
	if (RV_XACTIVE())
		rv_xspin_acquired();
}
/*
 * spin_lock that adds its wait to *w (a lock whose contention a benchmark
 * reports: the superblock's inode-list lock).  Same semantics otherwise.
 */
static __always_inline void spin_lock_counted(spinlock_t *l, struct spin_wait *w)
{
	RV_XPOINT(RV_XP_SPIN_LOCK, l, 0);
	if (likely(__atomic_exchange_n(&l->val, RV_SPIN_HELD, __ATOMIC_ACQUIRE) == 0)) {
		if (RV_XACTIVE())
			rv_xspin_acquired();
		return;
	}
	__spin_lock_slow_counted(l, w);
	if (RV_XACTIVE())
		rv_xspin_acquired();
}
static __always_inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->val, 0, __ATOMIC_RELEASE);
	if (RV_XACTIVE())
		rv_xspin_released();
	RV_XPOINT(RV_XP_SPIN_UNLOCK, l, 0);
}
static __always_inline bool spin_is_locked(const spinlock_t *l)
{
	return __atomic_load_n(&l->val, __ATOMIC_RELAXED) != 0;
}

/*
 * spin_lock_prefetch: pull the lock's cache line in for writing (x86
 * prefetchw, a NOP hint on CPUs without it), as the kernel's
 * include/linux/prefetch.h did until 6.5.
 */
static __always_inline void spin_lock_prefetch(const spinlock_t *l)
{
	RV_SPOINT(RV_XP_PREFETCHW, l); /* the simulator moves the line here */
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const volatile char *)l));
#else
	__builtin_prefetch(l, 1, 3);
#endif
}

/* Monotonic nanoseconds (benchmarks, injection timeouts). */
uint64_t rv_now_ns(void);

#endif /* RCUVFS_VFS_BASE_SPINLOCK_H */
