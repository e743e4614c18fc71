/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/lockref.h - lockref, a spinlock and a count in one 64-bit word.
 *
 * Locking: lockref.lock protects count against the locked paths; the
 * lockless paths change {lock, count} with one cmpxchg only while the lock
 * half reads unlocked.  lockref_mark_dead needs the lock held.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_LOCKREF_H
#define RCUVFS_VFS_BASE_LOCKREF_H

#include "vfs/base/spinlock.h"

/*
 * A spinlock and a count in one 64-bit word.  get/put try a cmpxchg of the
 * whole word while the lock is free, up to LOCKREF_RETRIES times, and fall
 * back to the spinlock (counted as lockref_fallbacks).  Whether the retry
 * loop executes cpu_relax() is the `lockref_relax` switch.
 * A dead lockref has a negative count.
 */
struct lockref {
	union {
		uint64_t lock_count;
		struct {
			spinlock_t lock;
			int32_t count;
		};
	};
};
#define LOCKREF_RETRIES 100
static inline void lockref_init(struct lockref *lr, int count)
{
	spin_lock_init(&lr->lock);
	lr->count = count;
}
void lockref_get(struct lockref *lr);
bool lockref_get_not_zero(struct lockref *lr);
bool lockref_get_not_dead(struct lockref *lr);
/* Decrement unless it would reach zero; false means "take the lock". */
bool lockref_put_not_zero(struct lockref *lr);
/* Decrement and return the new count, or -1 if the count is <= 0. */
int lockref_put_return(struct lockref *lr);
/* Decrement; if the count is <= 1, return false with the lock HELD, count untouched. */
bool lockref_put_or_lock(struct lockref *lr);
void lockref_mark_dead(struct lockref *lr); /* caller holds lr->lock */
static inline bool __lockref_is_dead(const struct lockref *lr)
{
	return READ_ONCE(lr->count) < 0;
}

#endif /* RCUVFS_VFS_BASE_LOCKREF_H */
