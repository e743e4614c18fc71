/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/bkl.h - the Big Kernel Lock (lock_kernel/unlock_kernel).
 *
 * Locking: recursive per task; current->lock_depth is touched only by its
 * task.  schedule() releases the BKL across every sleep and re-takes it at the
 * same depth, so it never deadlocks against a lock its holder sleeps on.
 * Never take it while holding a spinlock_t (a semaphore BKL sleeps).
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_BKL_H
#define RCUVFS_VFS_BASE_BKL_H

#include "vfs/base/sched.h"
#include "vfs/base/spinlock.h"
#include "vfs/base/stats.h"
#include "vfs/base/switches.h"

/*
 * The BKL: recursive per task (current->lock_depth), released by schedule()
 * across every sleep of the model and re-taken after.  Its implementation is
 * the `bkl` switch (spin, sem-fifo, sem-steal), chosen at instance creation.
 * Counters: bkl_acquisitions, bkl_contended, bkl_sleeps, bkl_handoffs.
 */
/* The BKL's state, for the inline fast paths below only. */
extern spinlock_t rv_bkl_spin;
extern int rv_bkl_kind; /* enum bkl_kind, set at instance creation */
RV_STAT_DECLARE(bkl_acquisitions);
void __lock_kernel(struct task_struct *t);   /* nested, contended, or a semaphore BKL */
void __unlock_kernel(struct task_struct *t); /* nested, a semaphore BKL, or a bad call */
#ifdef RCUVFS_EXPLORE
/* The explorer build keeps them out of line: each names its caller as the
 * scheduling point's site. */
void lock_kernel(void);
void unlock_kernel(void);
#else
/*
 * lib/kernel_lock.c's lock_kernel and unlock_kernel (2.6.26-2.6.38): the
 * outermost acquisition of an uncontended spin BKL (the depth test, then
 * __lock_kernel's spin_lock) and its release inline in every caller;
 * nesting, contention and the semaphore BKLs (2.6.8-2.6.26) take the calls.
 * As there, the BKL has no owner field: lock_depth says whether a task
 * holds it, the lock word whether any task does.
 */
static __always_inline void lock_kernel(void)
{
	struct task_struct *t = current;

	if (likely(t->lock_depth < 0) && likely(rv_bkl_kind == BKL_SPIN) &&
	    likely(__atomic_exchange_n(&rv_bkl_spin.val, RV_SPIN_HELD, __ATOMIC_ACQUIRE) == 0)) {
		rv_stat_inc(bkl_acquisitions);
		t->lock_depth = 0;
		return;
	}
	__lock_kernel(t);
}

static __always_inline void unlock_kernel(void)
{
	/* the caller took the BKL, which created its task: no lazy creation */
	struct task_struct *t = rv_current;

	if (likely(t->lock_depth == 0) && likely(rv_bkl_kind == BKL_SPIN)) {
		t->lock_depth = -1;
		spin_unlock(&rv_bkl_spin);
		return;
	}
	__unlock_kernel(t);
}
#endif
bool kernel_locked(void);
/* Some task holds the BKL (the explorer's test for a quiescent state). */
bool bkl_owned(void);
/* For schedule(): drop the BKL entirely, return the depth to restore. */
int bkl_release_for_sleep(struct task_struct *t);
void bkl_reacquire_after_sleep(struct task_struct *t, int depth);

#endif /* RCUVFS_VFS_BASE_BKL_H */
