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

/*
 * The BKL: recursive per task (current->lock_depth), released by schedule()
 * across every sleep of the model and re-taken after.  Its implementation is
 * the `bkl` switch (spin, sem-fifo, sem-steal), chosen at instance creation.
 * Counters: bkl_acquisitions, bkl_contended, bkl_sleeps, bkl_handoffs.
 */
void lock_kernel(void);
void unlock_kernel(void);
bool kernel_locked(void);
/* Some task holds the BKL (the explorer's test for a quiescent state). */
bool bkl_owned(void);
/* For schedule(): drop the BKL entirely, return the depth to restore. */
int bkl_release_for_sleep(struct task_struct *t);
void bkl_reacquire_after_sleep(struct task_struct *t, int depth);

#endif /* RCUVFS_VFS_BASE_BKL_H */
