/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/semaphore.h - counting semaphores: sem_fifo and sem_steal.
 *
 * Locking: sem->lock (spinlock_t) protects count, wait_list and the
 * counters; it is dropped before a waiter sleeps.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_SEMAPHORE_H
#define RCUVFS_VFS_BASE_SEMAPHORE_H

#include "vfs/base/list.h"
#include "vfs/base/spinlock.h"

/*
 * Two counting semaphores, named after their algorithm:
 *  sem_fifo  - 2.6.26-rc1's generic semaphore: up() with waiters hands the
 *              semaphore to the first waiter before it runs; nobody else can
 *              take it meanwhile.
 *  sem_steal - up() increments count and wakes one waiter; any running task
 *              may take the count first; the woken waiter re-checks and may
 *              sleep again.
 * Same small API: init, down, down_interruptible, down_trylock, up.
 */
struct semaphore {
	spinlock_t lock;
	int count;		    /* under lock */
	int steal;		    /* 0: FIFO hand-off, 1: stealing */
	struct list_head wait_list; /* under lock */
	uint64_t handoffs;	    /* under lock */
	uint64_t sleeps;	    /* under lock */
};
void sema_init_fifo(struct semaphore *sem, int count);
void sema_init_steal(struct semaphore *sem, int count);
void down(struct semaphore *sem);
int down_interruptible(struct semaphore *sem);
int down_trylock(struct semaphore *sem); /* 0 on success (kernel convention) */
void up(struct semaphore *sem);

#endif /* RCUVFS_VFS_BASE_SEMAPHORE_H */
