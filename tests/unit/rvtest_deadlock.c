// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/rvtest_deadlock.c - tests that hang on purpose, for the unit
 * harness's watchdog (rvtest.c).  Not a unit test program of its own:
 * tests/unit/watchdog-test.sh runs each suite and checks that the program
 * fails within seconds with a report naming each task's wait, and that the
 * control suite, whose waiter is woken late, passes.
 *
 *   abba      two tasks take two rw_semaphores in opposite orders (a
 *             barrier makes them both hold their first), the main thread
 *             joins them: every task waits
 *   sem       a task down()s a semaphore whose count nobody returns, the
 *             main thread joins it
 *   lostwake  a task sleeps in wait_event on a condition nobody sets and
 *             wakes nobody; the main thread polls for it (running, not
 *             waiting: the slower of the two watchdog rules)
 *   control   a task waits in down_read for an rwsem the main thread holds
 *             for write while it sleeps twice the stall time, then releases
 *             it: a long wait that ends is no hang, the test passes
 *
 * Locking: each suite's locks are its own statics; the tasks are threads
 * of rvtest_run_threads or of pthread_create.
 */
#include "rvtest.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static struct rw_semaphore sem_x, sem_y;
static pthread_barrier_t both_hold;

static void *abba_thread(void *arg)
{
	long me = (long)(intptr_t)arg;

	task_attach(task_create_process(me ? "abba_b" : "abba_a"));
	if (me == 0) {
		down_write(&sem_x);
		pthread_barrier_wait(&both_hold);
		down_write(&sem_y); /* held by abba_b: waits for good */
	} else {
		down_write(&sem_y);
		pthread_barrier_wait(&both_hold);
		down_write(&sem_x);
	}
	return NULL;
}

static void test_abba(void)
{
	void *args[2] = {(void *)0L, (void *)1L};

	init_rwsem(&sem_x);
	init_rwsem(&sem_y);
	pthread_barrier_init(&both_hold, NULL, 2);
	task_attach(task_create_process("abba_main"));
	rvtest_run_threads(2, abba_thread, args);
	CU_FAIL("the ABBA deadlock ended");
}

static struct semaphore empty_sem;

static void *sem_thread(void *arg)
{
	task_attach(task_create_process("sem_waiter"));
	down(&empty_sem);
	return NULL;
}

static void test_sem(void)
{
	sema_init_fifo(&empty_sem, 0);
	task_attach(task_create_process("sem_main"));
	rvtest_run_threads(1, sem_thread, NULL);
	CU_FAIL("down() of a semaphore nobody ups returned");
}

static struct wait_queue_head never_wq;
static int never_set, sleeping;

static void *lostwake_thread(void *arg)
{
	task_attach(task_create_process("sleeper"));
	__atomic_store_n(&sleeping, 1, __ATOMIC_RELEASE);
	wait_event(&never_wq, READ_ONCE(never_set));
	__atomic_store_n(&sleeping, 2, __ATOMIC_RELEASE);
	return NULL;
}

static void test_lostwake(void)
{
	pthread_t th;

	init_waitqueue_head(&never_wq);
	task_attach(task_create_process("poller"));
	CU_ASSERT_FATAL(pthread_create(&th, NULL, lostwake_thread, NULL) == 0);
	while (__atomic_load_n(&sleeping, __ATOMIC_ACQUIRE) != 2)
		usleep(10000); /* polls: running, not in a model wait */
	CU_FAIL("wait_event returned for a condition nobody set");
}

static struct rw_semaphore ctl_sem;
static int ctl_read;

static void *control_thread(void *arg)
{
	task_attach(task_create_process("reader"));
	down_read(&ctl_sem);
	__atomic_store_n(&ctl_read, 1, __ATOMIC_RELEASE);
	up_read(&ctl_sem);
	task_exit(current);
	return NULL;
}

static void test_control(void)
{
	const char *env = getenv("RVTEST_STALL");
	long secs = env && *env ? strtol(env, NULL, 10) : 5;
	pthread_t th;

	init_rwsem(&ctl_sem);
	down_write(&ctl_sem);
	CU_ASSERT_FATAL(pthread_create(&th, NULL, control_thread, NULL) == 0);
	/* the main thread runs (sleeps outside any model wait) while the
	 * reader waits: not every task waits, and it ends before 12 x stall */
	usleep((useconds_t)(2 * secs * 1000000));
	up_write(&ctl_sem);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(__atomic_load_n(&ctl_read, __ATOMIC_ACQUIRE), 1);
}

RVTEST_SUITE(abba, rvtest_instance_init, NULL, RVTEST(test_abba))
RVTEST_SUITE(sem, rvtest_instance_init, NULL, RVTEST(test_sem))
RVTEST_SUITE(lostwake, rvtest_instance_init, NULL, RVTEST(test_lostwake))
RVTEST_SUITE(control, rvtest_instance_init, rvtest_instance_cleanup, RVTEST(test_control))
