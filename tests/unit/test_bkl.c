// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_bkl.c - the Big Kernel Lock in its three kinds: recursion
 * through current->lock_depth, mutual exclusion, release across every sleep
 * of the model (and re-take at the same depth), and the counters
 * (bkl_acquisitions, bkl_contended, bkl_sleeps, bkl_handoffs).
 */
#include "rvtest.h"

#include <pthread.h>
#include <sched.h>

static int kind; /* enum bkl_kind of the running suite */

static void test_recursion(void)
{
	uint64_t acq = rvtest_stat("bkl_acquisitions");

	CU_ASSERT_FALSE(kernel_locked());
	CU_ASSERT_EQUAL(current->lock_depth, -1);
	lock_kernel();
	CU_ASSERT_TRUE(kernel_locked());
	CU_ASSERT_EQUAL(current->lock_depth, 0);
	lock_kernel();
	lock_kernel();
	CU_ASSERT_EQUAL(current->lock_depth, 2);
	unlock_kernel();
	unlock_kernel();
	CU_ASSERT_TRUE(kernel_locked());
	unlock_kernel();
	CU_ASSERT_FALSE(kernel_locked());
	/* only the outermost acquisition counts */
	CU_ASSERT_EQUAL(rvtest_stat("bkl_acquisitions") - acq, 1);
}

static long counter;
#define ITERS 20000

static void *mx_main(void *arg)
{
	for (int i = 0; i < ITERS; i++) {
		long v;

		lock_kernel();
		if (i & 1)
			lock_kernel(); /* nested sections too */
		v = READ_ONCE(counter);
		if ((i & 1023) == 0)
			sched_yield();
		WRITE_ONCE(counter, v + 1);
		if (i & 1)
			unlock_kernel();
		unlock_kernel();
	}
	return NULL;
}

static void test_mutual_exclusion(void)
{
	counter = 0;
	rvtest_run_threads(4, mx_main, NULL);
	CU_ASSERT_EQUAL(counter, 4L * ITERS);
	CU_ASSERT(rvtest_stat("bkl_acquisitions") >= 4 * ITERS);
}

/* A BKL holder that sleeps releases it; it has it again after, same depth. */
static struct completion sleep_done;
static int sleeper_ready, sleeper_back, sleeper_depth;

static void *sleeper_main(void *arg)
{
	lock_kernel();
	lock_kernel();
	__atomic_store_n(&sleeper_ready, 1, __ATOMIC_RELEASE);
	wait_for_completion(&sleep_done); /* schedule() drops the BKL */
	sleeper_depth = current->lock_depth;
	__atomic_store_n(&sleeper_back, kernel_locked() ? 1 : -1, __ATOMIC_RELEASE);
	unlock_kernel();
	unlock_kernel();
	return NULL;
}

static void test_released_across_sleep(void)
{
	pthread_t th;

	init_completion(&sleep_done);
	sleeper_ready = sleeper_back = 0;
	pthread_create(&th, NULL, sleeper_main, NULL);
	CU_ASSERT_EQUAL(WAIT_UNTIL(__atomic_load_n(&sleeper_ready, __ATOMIC_ACQUIRE)), 0);
	/* this only returns because the sleeper released the BKL */
	lock_kernel();
	complete(&sleep_done);
	/* it cannot run on with the BKL while we hold it */
	CU_ASSERT_EQUAL(__atomic_load_n(&sleeper_back, __ATOMIC_ACQUIRE), 0);
	unlock_kernel();
	CU_ASSERT_EQUAL(WAIT_UNTIL(__atomic_load_n(&sleeper_back, __ATOMIC_ACQUIRE)), 0);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(sleeper_back, 1);
	CU_ASSERT_EQUAL(sleeper_depth, 1);
}

/* Contention counters: a waiter blocked behind a holder. */
static int waiter_done;
static struct task_struct *waiter_task;

static void *waiter_main(void *arg)
{
	__atomic_store_n(&waiter_task, current, __ATOMIC_RELEASE);
	lock_kernel();
	unlock_kernel();
	__atomic_store_n(&waiter_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_counters(void)
{
	uint64_t cont = rvtest_stat("bkl_contended"), sleeps = rvtest_stat("bkl_sleeps");
	uint64_t hand = rvtest_stat("bkl_handoffs");
	pthread_t th;

	waiter_done = 0;
	waiter_task = NULL;
	lock_kernel();
	pthread_create(&th, NULL, waiter_main, NULL);
	CU_ASSERT_EQUAL(WAIT_UNTIL(rvtest_stat("bkl_contended") > cont), 0);
	if (kind != BKL_SPIN) {
		/* queued and asleep: its state is set under the semaphore's
		 * lock after it joined the wait list */
		CU_ASSERT_EQUAL(WAIT_UNTIL(__atomic_load_n(&waiter_task, __ATOMIC_ACQUIRE) &&
					   __atomic_load_n(&waiter_task->state, __ATOMIC_ACQUIRE) ==
					       TASK_UNINTERRUPTIBLE),
				0);
	}
	unlock_kernel();
	CU_ASSERT_EQUAL(WAIT_UNTIL(__atomic_load_n(&waiter_done, __ATOMIC_ACQUIRE)), 0);
	pthread_join(th, NULL);
	if (kind != BKL_SPIN)
		CU_ASSERT(rvtest_stat("bkl_sleeps") > sleeps);
	switch (kind) {
	case BKL_SPIN:
		CU_ASSERT_EQUAL(rvtest_stat("bkl_sleeps"), sleeps);
		CU_ASSERT_EQUAL(rvtest_stat("bkl_handoffs"), hand);
		break;
	case BKL_SEM_FIFO:
		CU_ASSERT_EQUAL(rvtest_stat("bkl_handoffs"), hand + 1);
		break;
	case BKL_SEM_STEAL:
		CU_ASSERT_EQUAL(rvtest_stat("bkl_handoffs"), hand);
		break;
	}
}

static int init_kind(const char *value, int k)
{
	char setting[32];
	const char *s[] = {setting, NULL};

	snprintf(setting, sizeof(setting), "bkl=%s", value);
	kind = k;
	return rvtest_instance_with(s) ? -1 : 0;
}

static int init_spin(void)
{
	return init_kind("spin", BKL_SPIN);
}

static int init_fifo(void)
{
	return init_kind("sem-fifo", BKL_SEM_FIFO);
}

static int init_steal(void)
{
	return init_kind("sem-steal", BKL_SEM_STEAL);
}

#define BKL_CASES                                                                                  \
	RVTEST(test_recursion), RVTEST(test_mutual_exclusion), RVTEST(test_released_across_sleep), \
	    RVTEST(test_counters)

RVTEST_SUITE(bkl_spin, init_spin, rvtest_instance_cleanup, BKL_CASES)
RVTEST_SUITE(bkl_sem_fifo, init_fifo, rvtest_instance_cleanup, BKL_CASES)
RVTEST_SUITE(bkl_sem_steal, init_steal, rvtest_instance_cleanup, BKL_CASES)
