// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/rwsem.c - reader/writer semaphore.
 *
 * count: RWSEM_WRITER (bit 0), RWSEM_WAITERS (bit 1), readers in units of
 * RWSEM_READER.  Fast paths are one cmpxchg and never succeed while
 * RWSEM_WAITERS is set, so with waiters queued every acquisition goes
 * through wait_lock and the queue head is served first (no starvation).
 *
 * Locking: wait_lock protects wait_list and the WAITERS bit transitions;
 * while WAITERS is set, count changes only under wait_lock, except for
 * readers leaving (up_read's atomic subtract).  Ownership is handed to
 * waiters under wait_lock: the waker adds the waiter's share to count, then
 * publishes `granted` with a release store that pairs with the waiter's
 * acquire load; the task pointer is read, and a reference to the task
 * taken, before that store, because the waiter's stack frame may vanish
 * right after it and its task may exit before the wake-up.
 */
#include "vfs/base/base.h"

#define RWSEM_WRITER  1L
#define RWSEM_WAITERS 2L
#define RWSEM_READER  4L

enum rwsem_waiter_type { RWSEM_WAITING_FOR_READ, RWSEM_WAITING_FOR_WRITE };

struct rwsem_waiter {
	struct list_head list;
	struct task_struct *task;
	int type;
	int granted;
};

RV_STAT_DEFINE(rwsem_sleeps, "rw_semaphore acquisitions that had to sleep");

void init_rwsem(struct rw_semaphore *sem)
{
	sem->count = 0;
	spin_lock_init(&sem->wait_lock);
	INIT_LIST_HEAD(&sem->wait_list);
}

static inline long rwsem_count(const struct rw_semaphore *sem)
{
	return __atomic_load_n(&sem->count, __ATOMIC_RELAXED);
}

static bool rwsem_try_read_fast(struct rw_semaphore *sem)
{
	long c = rwsem_count(sem);

	while (!(c & (RWSEM_WRITER | RWSEM_WAITERS))) {
		if (__atomic_compare_exchange_n(&sem->count, &c, c + RWSEM_READER, true,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
	}
	return false;
}

static bool rwsem_try_write_fast(struct rw_semaphore *sem)
{
	long c = 0;

	return __atomic_compare_exchange_n(&sem->count, &c, RWSEM_WRITER, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/*
 * Release a waiter that now owns its share.  Once `granted` is visible the
 * waiter returns without taking wait_lock, and its task may exit and be
 * freed before wake_up_process() touches it: hold a task reference across
 * the store and the wake-up, as rwsem_mark_wake() does (get_task_struct()
 * before the store that releases the waiter, then wake_q_add_safe(), whose
 * wake_up_q() drops the reference after waking).
 */
static void rwsem_wake_granted(struct rwsem_waiter *w)
{
	struct task_struct *t = w->task;

	if (!RV_MUTANT(rwsem_wake_no_task_ref))
		get_task_struct(t);
	smp_store_release(&w->granted, 1);
	wake_up_process(t);
	if (!RV_MUTANT(rwsem_wake_no_task_ref))
		put_task_struct(t);
}

/*
 * Hand the semaphore to the head of the queue if it can have it.
 * Caller holds wait_lock.  Returns nothing; waiters woken.
 */
static void rwsem_grant(struct rw_semaphore *sem)
{
	struct rwsem_waiter *w, *n;
	long c = rwsem_count(sem);

	if (list_empty(&sem->wait_list))
		return;
	if (c & RWSEM_WRITER)
		return;
	w = list_first_entry(&sem->wait_list, struct rwsem_waiter, list);
	if (w->type == RWSEM_WAITING_FOR_WRITE) {
		if (c >= RWSEM_READER)
			return; /* readers still in; the last one calls us */
		__atomic_fetch_add(&sem->count, RWSEM_WRITER, __ATOMIC_RELAXED);
		list_del_init(&w->list);
		if (list_empty(&sem->wait_list))
			__atomic_fetch_and(&sem->count, ~RWSEM_WAITERS, __ATOMIC_RELAXED);
		rwsem_wake_granted(w);
		return;
	}
	/* readers at the head: grant all consecutive readers */
	list_for_each_entry_safe(w, n, &sem->wait_list, list) {
		if (w->type != RWSEM_WAITING_FOR_READ)
			break;
		__atomic_fetch_add(&sem->count, RWSEM_READER, __ATOMIC_RELAXED);
		list_del_init(&w->list);
		rwsem_wake_granted(w);
	}
	if (list_empty(&sem->wait_list))
		__atomic_fetch_and(&sem->count, ~RWSEM_WAITERS, __ATOMIC_RELAXED);
}

static void rwsem_down_slow(struct rw_semaphore *sem, int type, const void *site)
{
	struct rwsem_waiter w = {.task = current, .type = type};
	long c;

	spin_lock(&sem->wait_lock);
	__atomic_fetch_or(&sem->count, RWSEM_WAITERS, __ATOMIC_SEQ_CST);
	c = rwsem_count(sem);
	/* Free for us right now and nobody queued ahead: take it directly. */
	if (list_empty(&sem->wait_list) && !(c & RWSEM_WRITER) &&
	    (type == RWSEM_WAITING_FOR_READ || c < RWSEM_READER)) {
		__atomic_fetch_add(&sem->count,
				   type == RWSEM_WAITING_FOR_READ ? RWSEM_READER : RWSEM_WRITER,
				   __ATOMIC_ACQUIRE);
		__atomic_fetch_and(&sem->count, ~RWSEM_WAITERS, __ATOMIC_RELAXED);
		spin_unlock(&sem->wait_lock);
		return;
	}
	list_add_tail(&w.list, &sem->wait_list);
	/* the holder may have left between our fast-path failure and the
	 * WAITERS bit becoming visible: try to grant now */
	if (!RV_MUTANT(rwsem_down_no_grant_recheck))
		rwsem_grant(sem);
	spin_unlock(&sem->wait_lock);

	rv_stat_inc(rwsem_sleeps);
	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (smp_load_acquire(&w.granted))
			break;
		rv_wait_note(type == RWSEM_WAITING_FOR_READ ? RV_XP_RWSEM_DOWN_READ
							    : RV_XP_RWSEM_DOWN_WRITE,
			     sem, site);
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

void down_read(struct rw_semaphore *sem)
{
	RV_XPOINT_CALLER(RV_XP_RWSEM_DOWN_READ, sem);
	if (likely(rwsem_try_read_fast(sem)))
		return;
	rwsem_down_slow(sem, RWSEM_WAITING_FOR_READ, __builtin_return_address(0));
}

int down_read_trylock(struct rw_semaphore *sem)
{
	RV_XPOINT_CALLER(RV_XP_RWSEM_DOWN_READ, sem);
	return rwsem_try_read_fast(sem);
}

void down_write(struct rw_semaphore *sem)
{
	RV_XPOINT_CALLER(RV_XP_RWSEM_DOWN_WRITE, sem);
	if (likely(rwsem_try_write_fast(sem)))
		return;
	rwsem_down_slow(sem, RWSEM_WAITING_FOR_WRITE, __builtin_return_address(0));
}

int down_write_trylock(struct rw_semaphore *sem)
{
	RV_XPOINT_CALLER(RV_XP_RWSEM_DOWN_WRITE, sem);
	return rwsem_try_write_fast(sem);
}

void up_read(struct rw_semaphore *sem)
{
	RV_XPOINT_CALLER(RV_XP_RWSEM_UP_READ, sem);
	long c = __atomic_sub_fetch(&sem->count, RWSEM_READER, __ATOMIC_RELEASE);

	if (unlikely(c == RWSEM_WAITERS) && !RV_MUTANT(up_read_no_wake)) {
		spin_lock(&sem->wait_lock);
		rwsem_grant(sem);
		spin_unlock(&sem->wait_lock);
	}
}

void up_write(struct rw_semaphore *sem)
{
	RV_XPOINT_CALLER(RV_XP_RWSEM_UP_WRITE, sem);
	long c = RWSEM_WRITER;

	if (likely(__atomic_compare_exchange_n(&sem->count, &c, 0, false, __ATOMIC_RELEASE,
					       __ATOMIC_RELAXED)))
		return;
	spin_lock(&sem->wait_lock);
	__atomic_fetch_sub(&sem->count, RWSEM_WRITER, __ATOMIC_RELEASE);
	rwsem_grant(sem);
	spin_unlock(&sem->wait_lock);
}

void downgrade_write(struct rw_semaphore *sem)
{
	RV_XPOINT_CALLER(RV_XP_RWSEM_UP_WRITE, sem);
	long c = RWSEM_WRITER;

	if (__atomic_compare_exchange_n(&sem->count, &c, RWSEM_READER, false, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED))
		return;
	spin_lock(&sem->wait_lock);
	__atomic_fetch_add(&sem->count, RWSEM_READER - RWSEM_WRITER, __ATOMIC_RELEASE);
	/* only readers at the head may join us */
	if (!list_empty(&sem->wait_list) && !RV_MUTANT(downgrade_write_no_grant) &&
	    list_first_entry(&sem->wait_list, struct rwsem_waiter, list)->type ==
		RWSEM_WAITING_FOR_READ)
		rwsem_grant(sem);
	spin_unlock(&sem->wait_lock);
}

bool rwsem_is_locked(const struct rw_semaphore *sem)
{
	return (rwsem_count(sem) & ~RWSEM_WAITERS) != 0;
}

/* The kernel's rwsem_is_contended: a task is queued waiting for sem. */
bool rwsem_is_contended(struct rw_semaphore *sem)
{
	bool queued;

	spin_lock(&sem->wait_lock);
	queued = !list_empty(&sem->wait_list);
	spin_unlock(&sem->wait_lock);
	return queued;
}

bool rwsem_is_write_locked(const struct rw_semaphore *sem)
{
	return (rwsem_count(sem) & RWSEM_WRITER) != 0;
}
