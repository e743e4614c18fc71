// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/semaphore.c - counting semaphores, in the two algorithms the 2008
 * BKL thread compared (docs/history.md).
 *
 * sem_fifo (2.6.26-rc1 kernel/semaphore.c): down() takes a free count or
 * queues at the tail of wait_list and sleeps.  up() with waiters does not
 * increment count: it removes the first waiter, marks it `up` and wakes it.
 * That waiter now owns the semaphore although it is not running yet; a
 * running task calling down() meanwhile finds count == 0 and queues behind.
 * Every such up() is counted as a hand-off.
 *
 * sem_steal (Ingo Molnar's fix, with "fix #2" and "fix3" of the thread):
 * up() always increments count and wakes the first waiter, rotating it to the
 * tail so that parallel up()s wake different waiters.  Any task may take the
 * count first (steal); the woken waiter re-checks count under the lock and
 * sleeps again if it lost.  A waiter leaving with count still positive and
 * others queued passes the wake-up on.
 *
 * Locking: sem->lock (a spinlock_t) protects count, wait_list, the waiters'
 * `up` flags and the sleeps/handoffs counters.  Sleeping is the model's
 * set_current_state + schedule(); the lock is dropped before schedule(), so
 * a task holding the BKL releases it while it sleeps here (schedule() does).
 * Waiters live on their sleeper's stack; an up() touches a waiter only under
 * sem->lock, and the waiter unlinks itself (fifo: up() unlinks it) under
 * sem->lock before returning.
 */
#include "vfs/base/base.h"

struct semaphore_waiter {
	struct list_head list; /* on sem->wait_list, under sem->lock */
	struct task_struct *task;
	int up; /* fifo: ownership handed over by up(), under sem->lock */
};

/*
 * Private to vfs/base: the BKL (bkl.c) needs to know whether a down() slept
 * and whether an up() handed ownership over, for its counters.
 */
int __down_common(struct semaphore *sem, int state, unsigned int *slept);
bool __up_handoff(struct semaphore *sem);

static void sema_init_common(struct semaphore *sem, int count, int steal)
{
	spin_lock_init(&sem->lock);
	sem->count = count;
	sem->steal = steal;
	INIT_LIST_HEAD(&sem->wait_list);
	sem->handoffs = 0;
	sem->sleeps = 0;
}

void sema_init_fifo(struct semaphore *sem, int count)
{
	sema_init_common(sem, count, 0);
}

void sema_init_steal(struct semaphore *sem, int count)
{
	sema_init_common(sem, count, 1);
}

/* fifo: wake the first waiter, which owns the semaphore from now on. */
static void __up_fifo(struct semaphore *sem)
{
	struct semaphore_waiter *w =
	    list_first_entry(&sem->wait_list, struct semaphore_waiter, list);
	struct task_struct *task = w->task;

	list_del_init(&w->list);
	w->up = 1; /* read by the waiter under sem->lock */
	sem->handoffs++;
	wake_up_process(task);
}

/* steal: wake the first waiter; it competes for count when it runs. */
static void __up_steal(struct semaphore *sem)
{
	struct semaphore_waiter *w =
	    list_first_entry(&sem->wait_list, struct semaphore_waiter, list);

	/* rotate so that parallel up()s reach different sleepers ("fix3") */
	list_move_tail(&w->list, &sem->wait_list);
	wake_up_process(w->task);
}

/* Called with sem->lock held and count <= 0; returns with it held. */
static int __down_fifo(struct semaphore *sem, int state, unsigned int *slept, const void *site)
{
	struct task_struct *task = current;
	struct semaphore_waiter w = {.task = task, .up = 0};

	list_add_tail(&w.list, &sem->wait_list);
	for (;;) {
		if (state == TASK_INTERRUPTIBLE && signal_pending(task)) {
			if (!RV_MUTANT(sem_fifo_eintr_stays_queued))
				list_del_init(&w.list);
			return -EINTR;
		}
		set_current_state(state);
		sem->sleeps++;
		(*slept)++;
		spin_unlock(&sem->lock);
		rv_wait_note(RV_XP_SEM_DOWN, sem, site);
		schedule();
		spin_lock(&sem->lock);
		if (w.up) /* up() unlinked us and gave us the count */
			return 0;
	}
}

static int __down_steal(struct semaphore *sem, int state, unsigned int *slept, const void *site)
{
	struct task_struct *task = current;
	struct semaphore_waiter w = {.task = task, .up = 0};
	int ret = 0;

	list_add_tail(&w.list, &sem->wait_list);
	for (;;) {
		if (state == TASK_INTERRUPTIBLE && signal_pending(task)) {
			ret = -EINTR;
			break;
		}
		set_current_state(state);
		sem->sleeps++;
		(*slept)++;
		spin_unlock(&sem->lock);
		rv_wait_note(RV_XP_SEM_DOWN, sem, site);
		schedule();
		/* woken, not yet competing for count: a running task may steal
		 * it here (tests park the waiter at this point to make it so) */
		RV_INJECT("sem_steal_woken");
		spin_lock(&sem->lock);
		if (sem->count > 0)
			break;
	}
	list_del_init(&w.list);
	if (!ret)
		sem->count--;
	/* "fix #2": a count is still free and someone sleeps: pass the wake on */
	if (sem->count > 0 && !list_empty(&sem->wait_list) && !RV_MUTANT(sem_steal_no_pass_on))
		__up_steal(sem);
	return ret;
}

/* site: the code that called down() (where the watchdog says it waits) */
static int __down_at(struct semaphore *sem, int state, unsigned int *slept, const void *site)
{
	int ret = 0;

	spin_lock(&sem->lock);
	if (likely(sem->count > 0))
		sem->count--;
	else if (sem->steal)
		ret = __down_steal(sem, state, slept, site);
	else
		ret = __down_fifo(sem, state, slept, site);
	spin_unlock(&sem->lock);
	/* schedule() returned with TASK_RUNNING: no state to restore */
	return ret;
}

int __down_common(struct semaphore *sem, int state, unsigned int *slept)
{
	return __down_at(sem, state, slept, __builtin_return_address(0));
}

bool __up_handoff(struct semaphore *sem)
{
	bool handoff = false;

	spin_lock(&sem->lock);
	if (sem->steal) {
		sem->count++;
		if (unlikely(!list_empty(&sem->wait_list)))
			__up_steal(sem);
	} else if (likely(list_empty(&sem->wait_list))) {
		sem->count++;
	} else {
		__up_fifo(sem);
		handoff = true;
	}
	spin_unlock(&sem->lock);
	return handoff;
}

void down(struct semaphore *sem)
{
	RV_XPOINT_CALLER(RV_XP_SEM_DOWN, sem);
	unsigned int slept = 0;

	__down_at(sem, TASK_UNINTERRUPTIBLE, &slept, __builtin_return_address(0));
}

int down_interruptible(struct semaphore *sem)
{
	RV_XPOINT_CALLER(RV_XP_SEM_DOWN, sem);
	unsigned int slept = 0;

	return __down_at(sem, TASK_INTERRUPTIBLE, &slept, __builtin_return_address(0));
}

int down_trylock(struct semaphore *sem)
{
	RV_XPOINT_CALLER(RV_XP_SEM_DOWN, sem);
	int ret = 1;

	spin_lock(&sem->lock);
	if (sem->count > 0) {
		sem->count--;
		ret = 0;
	}
	spin_unlock(&sem->lock);
	return ret;
}

void up(struct semaphore *sem)
{
	RV_XPOINT_CALLER(RV_XP_SEM_UP, sem);
	__up_handoff(sem);
}
