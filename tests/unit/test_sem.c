// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_sem.c - the two semaphores of vfs/base/semaphore.c:
 * counting, trylock, FIFO hand-off vs stealing, parallel up()s waking every
 * sleeper (the XFS case of the 2008 thread), interruptible waits.
 */
#include "rvtest.h"

#include <pthread.h>
#include <sched.h>

static int nr_waiters(struct semaphore *sem)
{
	int n = 0;
	struct list_head *p;

	spin_lock(&sem->lock);
	for (p = sem->wait_list.next; p != &sem->wait_list; p = p->next)
		n++;
	spin_unlock(&sem->lock);
	return n;
}

static void init_kind(struct semaphore *sem, int steal, int count)
{
	if (steal)
		sema_init_steal(sem, count);
	else
		sema_init_fifo(sem, count);
}

static void test_counting(void)
{
	for (int steal = 0; steal < 2; steal++) {
		struct semaphore sem;

		init_kind(&sem, steal, 2);
		CU_ASSERT_EQUAL(down_trylock(&sem), 0);
		CU_ASSERT_EQUAL(down_trylock(&sem), 0);
		CU_ASSERT_EQUAL(down_trylock(&sem), 1);
		up(&sem);
		down(&sem);
		CU_ASSERT_EQUAL(sem.count, 0);
		up(&sem);
		up(&sem);
		CU_ASSERT_EQUAL(sem.count, 2);
		CU_ASSERT_EQUAL(sem.handoffs, 0);
		CU_ASSERT_EQUAL(sem.sleeps, 0);
	}
}

struct downer {
	struct semaphore *sem;
	int interruptible;
	struct task_struct *task;
	int ret;
	int done;
};

static void *downer_main(void *p)
{
	struct downer *d = p;

	__atomic_store_n(&d->task, current, __ATOMIC_RELEASE);
	if (d->interruptible)
		d->ret = down_interruptible(d->sem);
	else
		down(d->sem);
	__atomic_store_n(&d->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The XFS case: count 0, two sleepers, two up()s: both must wake. */
static void test_parallel_ups_wake_all(void)
{
	for (int steal = 0; steal < 2; steal++) {
		struct semaphore sem;
		struct downer d[2] = {{.sem = &sem}, {.sem = &sem}};
		pthread_t th[2];

		init_kind(&sem, steal, 0);
		for (int i = 0; i < 2; i++)
			pthread_create(&th[i], NULL, downer_main, &d[i]);
		CU_ASSERT_EQUAL(WAIT_UNTIL(nr_waiters(&sem) == 2), 0);
		up(&sem);
		up(&sem);
		CU_ASSERT_EQUAL(WAIT_UNTIL(__atomic_load_n(&d[0].done, __ATOMIC_ACQUIRE) &&
					   __atomic_load_n(&d[1].done, __ATOMIC_ACQUIRE)),
				0);
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(sem.count, 0);
		CU_ASSERT_EQUAL(sem.handoffs, steal ? 0 : 2);
	}
}

/* FIFO: up() with a sleeper hands over; a trylock right after fails. */
static void test_fifo_handoff_vs_steal(void)
{
	for (int steal = 0; steal < 2; steal++) {
		struct semaphore sem;
		struct downer d = {.sem = &sem};
		pthread_t th;

		init_kind(&sem, steal, 1);
		down(&sem);
		if (steal)
			CU_ASSERT_EQUAL(rv_inject_set_pause("sem_steal_woken", 1), 0);
		pthread_create(&th, NULL, downer_main, &d);
		CU_ASSERT_EQUAL(WAIT_UNTIL(nr_waiters(&sem) == 1), 0);
		up(&sem);
		if (!steal) {
			/* owned by the woken waiter even if it has not run yet */
			CU_ASSERT_EQUAL(down_trylock(&sem), 1);
			CU_ASSERT_EQUAL(sem.handoffs, 1);
			CU_ASSERT_EQUAL(WAIT_UNTIL(__atomic_load_n(&d.done, __ATOMIC_ACQUIRE)), 0);
			up(&sem);
		} else {
			/* a running task steals it: the woken waiter is parked
			 * before it re-checks count, so the steal happens every
			 * run; released, the waiter finds count 0 and sleeps
			 * again, then gets it at the next up() */
			uint64_t sleeps;

			CU_ASSERT_EQUAL(rv_inject_wait_arrivals("sem_steal_woken", 1, 10000), 0);
			CU_ASSERT_EQUAL(down_trylock(&sem), 0); /* the steal */
			CU_ASSERT_EQUAL(__atomic_load_n(&d.done, __ATOMIC_ACQUIRE), 0);
			spin_lock(&sem.lock);
			sleeps = sem.sleeps;
			spin_unlock(&sem.lock);
			rv_inject_release("sem_steal_woken");
			/* it sleeps again (sleeps counts it), still not done */
			CU_ASSERT_EQUAL(WAIT_UNTIL(({
						spin_lock(&sem.lock);
						uint64_t __s = sem.sleeps;
						spin_unlock(&sem.lock);
						__s > sleeps;
					})),
					0);
			CU_ASSERT_EQUAL(__atomic_load_n(&d.done, __ATOMIC_ACQUIRE), 0);
			up(&sem);
			CU_ASSERT_EQUAL(WAIT_UNTIL(__atomic_load_n(&d.done, __ATOMIC_ACQUIRE)), 0);
			up(&sem);
			CU_ASSERT_EQUAL(sem.handoffs, 0);
			rv_inject_clear_all();
		}
		pthread_join(th, NULL);
		CU_ASSERT_EQUAL(sem.count, 1);
		CU_ASSERT(list_empty(&sem.wait_list));
	}
}

static void test_interruptible(void)
{
	for (int steal = 0; steal < 2; steal++) {
		struct semaphore sem;
		struct downer d = {.sem = &sem, .interruptible = 1};
		pthread_t th;

		init_kind(&sem, steal, 0);
		pthread_create(&th, NULL, downer_main, &d);
		CU_ASSERT_EQUAL(WAIT_UNTIL(nr_waiters(&sem) == 1), 0);
		task_signal(__atomic_load_n(&d.task, __ATOMIC_ACQUIRE));
		CU_ASSERT_EQUAL(WAIT_UNTIL(__atomic_load_n(&d.done, __ATOMIC_ACQUIRE)), 0);
		pthread_join(th, NULL);
		CU_ASSERT_EQUAL(d.ret, -EINTR);
		CU_ASSERT_EQUAL(nr_waiters(&sem), 0);
		CU_ASSERT_EQUAL(sem.count, 0);
		up(&sem);
		CU_ASSERT_EQUAL(sem.count, 1);
	}
}

/* Mutual exclusion: a plain counter incremented under a binary semaphore. */
static struct semaphore mx_sem;
static long mx_counter;
#define MX_ITERS 20000

static void *mx_main(void *arg)
{
	for (int i = 0; i < MX_ITERS; i++) {
		long v;

		down(&mx_sem);
		v = READ_ONCE(mx_counter);
		if ((i & 255) == 0)
			sched_yield(); /* widen the window */
		WRITE_ONCE(mx_counter, v + 1);
		up(&mx_sem);
	}
	return NULL;
}

static void test_mutual_exclusion(void)
{
	for (int steal = 0; steal < 2; steal++) {
		init_kind(&mx_sem, steal, 1);
		mx_counter = 0;
		rvtest_run_threads(4, mx_main, NULL);
		CU_ASSERT_EQUAL(mx_counter, 4L * MX_ITERS);
		CU_ASSERT_EQUAL(mx_sem.count, 1);
	}
}

RVTEST_SUITE(semaphore, rvtest_instance_init, rvtest_instance_cleanup, RVTEST(test_counting),
	     RVTEST(test_parallel_ups_wake_all), RVTEST(test_fifo_handoff_vs_steal),
	     RVTEST(test_interruptible), RVTEST(test_mutual_exclusion))
