/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/rwsem.h - rw_semaphore, the reader/writer semaphore.
 *
 * Locking: wait_lock protects wait_list and the WAITERS bit; ownership is
 * handed to the queue head under wait_lock (rwsem.c).  Sleepers use
 * schedule() and so release the BKL while they wait.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_RWSEM_H
#define RCUVFS_VFS_BASE_RWSEM_H

#include "vfs/base/list.h"
#include "vfs/base/spinlock.h"

/*
 * count: bit 0 writer, bit 1 waiters, readers in units of 4.  Fast paths are
 * one cmpxchg; with waiters queued everything goes through wait_lock and
 * ownership is handed to the queue head (FIFO, writers not starved).
 * Sleepers use schedule() and so release the BKL while they wait.
 */
struct rw_semaphore {
	long count;
	spinlock_t wait_lock;
	struct list_head wait_list; /* under wait_lock */
};
void init_rwsem(struct rw_semaphore *sem);
void down_read(struct rw_semaphore *sem);
int down_read_trylock(struct rw_semaphore *sem); /* 1 on success */
void up_read(struct rw_semaphore *sem);
void down_write(struct rw_semaphore *sem);
int down_write_trylock(struct rw_semaphore *sem); /* 1 on success */
void up_write(struct rw_semaphore *sem);
void downgrade_write(struct rw_semaphore *sem);
bool rwsem_is_locked(const struct rw_semaphore *sem);
bool rwsem_is_write_locked(const struct rw_semaphore *sem);
bool rwsem_is_contended(struct rw_semaphore *sem); /* a waiter is queued */

#endif /* RCUVFS_VFS_BASE_RWSEM_H */
