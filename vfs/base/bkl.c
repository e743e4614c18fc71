// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/bkl.c - the Big Kernel Lock, in the three implementations the
 * 2008 AIM7 regression thread compared (docs/history.md), chosen by the
 * `bkl` switch when the instance is created:
 *
 *   spin       a spinlock_t: PAUSE for a bounded count, then sched_yield()
 *              (userspace cannot disable preemption; a preempted holder gets
 *              the CPU back through the yield).  Never sleeps.
 *   sem-fifo   2.6.26-rc1's generic semaphore: up() hands ownership to the
 *              first waiter before it runs (counted in bkl_handoffs).
 *   sem-steal  the stealing semaphore: up() frees the lock, a running task
 *              may take it first, the woken waiter re-checks.
 *
 * The BKL is recursive per task: current->lock_depth is -1 when the task
 * does not hold it, 0 when it holds it once, n when nested n+1 times.  Only
 * the owning task reads or writes its lock_depth, so it needs no lock.
 * schedule() calls bkl_release_for_sleep() before a task sleeps and
 * bkl_reacquire_after_sleep() after it woke, so every blocking wait of the
 * model releases the BKL entirely and re-takes it at the same depth, as
 * 2.6's schedule() did (release_kernel_lock / reacquire_kernel_lock).  A
 * semaphore BKL sleeping inside lock_kernel() re-enters schedule() with
 * lock_depth == -1, so nothing is released twice.
 *
 * Counters: bkl_acquisitions (outermost acquisitions, including re-takes
 * after a sleep), bkl_contended (those that did not get the lock at the
 * first attempt), bkl_sleeps (sleeps inside a semaphore BKL's down()),
 * bkl_handoffs (sem-fifo up()s that handed ownership to a waiter).
 */
#include "vfs/base/base.h"

int __down_common(struct semaphore *sem, int state, unsigned int *slept);
bool __up_handoff(struct semaphore *sem);

RV_STAT_DEFINE(bkl_acquisitions, "outermost BKL acquisitions (including re-takes after a sleep)");
RV_STAT_DEFINE(bkl_contended, "BKL acquisitions that found the lock taken");
RV_STAT_DEFINE(bkl_sleeps, "sleeps of tasks waiting for a semaphore BKL");
RV_STAT_DEFINE(bkl_handoffs, "sem-fifo BKL releases that handed ownership to a sleeping waiter");

spinlock_t rv_bkl_spin = __SPIN_LOCK_UNLOCKED;
static struct semaphore bkl_sem = {
    .lock = __SPIN_LOCK_UNLOCKED,
    .count = 1,
    .steal = 0,
    .wait_list = LIST_HEAD_INIT(bkl_sem.wait_list),
};
/* Set at instance creation from rv_sw.bkl; read-mostly afterwards. */
int rv_bkl_kind = BKL_SPIN;

static void __bkl_acquire(void)
{
	rv_stat_inc(bkl_acquisitions);
	if (rv_bkl_kind == BKL_SPIN) {
		if (unlikely(!spin_trylock(&rv_bkl_spin))) {
			rv_stat_inc(bkl_contended);
			spin_lock(&rv_bkl_spin);
		}
	} else if (unlikely(down_trylock(&bkl_sem))) {
		unsigned int slept = 0;

		rv_stat_inc(bkl_contended);
		__down_common(&bkl_sem, TASK_UNINTERRUPTIBLE, &slept);
		if (slept)
			rv_stat_add(bkl_sleeps, slept);
	}
}

static void __bkl_release(void)
{
	if (rv_bkl_kind == BKL_SPIN)
		spin_unlock(&rv_bkl_spin);
	else if (__up_handoff(&bkl_sem))
		rv_stat_inc(bkl_handoffs);
}

/*
 * The rest of lock_kernel (bkl.h): a nested acquisition, a spin BKL whose
 * exchange found it taken (that one changed nothing: the lock word was
 * already set), or a semaphore BKL.
 */
void __lock_kernel(struct task_struct *t)
{
	if (t->lock_depth >= 0) {
		t->lock_depth++;
		return;
	}
	__bkl_acquire();
	/* set after acquiring: a sleep inside down() must not release it */
	t->lock_depth = 0;
}

/* The rest of unlock_kernel (bkl.h): a nested release, a semaphore BKL's
 * outermost one, or a task that does not hold the BKL (reported, nothing
 * released). */
void __unlock_kernel(struct task_struct *t)
{
	if (t->lock_depth < 0) {
		fprintf(stderr, "rcuvfs: unlock_kernel by task %d without the BKL\n", t->pid);
		return;
	}
	if (--t->lock_depth < 0)
		__bkl_release();
}

#ifdef RCUVFS_EXPLORE
void lock_kernel(void)
{
	RV_XPOINT_CALLER(RV_XP_BKL_LOCK, NULL);
	__lock_kernel(current);
}

void unlock_kernel(void)
{
	RV_XPOINT_CALLER(RV_XP_BKL_UNLOCK, NULL);
	__unlock_kernel(current);
}
#endif

bool kernel_locked(void)
{
	return current->lock_depth >= 0;
}

bool bkl_owned(void)
{
	/* the spin BKL's word is set while held; a semaphore BKL's count is
	 * 0 while held (a hand-off keeps it 0) */
	if (rv_bkl_kind == BKL_SPIN)
		return __atomic_load_n(&rv_bkl_spin.val, __ATOMIC_RELAXED) != 0;
	return __atomic_load_n(&bkl_sem.count, __ATOMIC_RELAXED) <= 0;
}

int bkl_release_for_sleep(struct task_struct *t)
{
	int depth = t->lock_depth;

	if (depth < 0)
		return -1;
	t->lock_depth = -1;
	__bkl_release();
	return depth;
}

void bkl_reacquire_after_sleep(struct task_struct *t, int depth)
{
	if (depth < 0)
		return;
	__bkl_acquire();
	t->lock_depth = depth;
}

static int bkl_init(void)
{
	if (bkl_owned()) {
		fprintf(stderr, "rcuvfs: BKL held at instance creation\n");
		return -EBUSY;
	}
	rv_bkl_kind = rv_sw.bkl;
	spin_lock_init(&rv_bkl_spin);
	if (rv_bkl_kind == BKL_SEM_STEAL)
		sema_init_steal(&bkl_sem, 1);
	else
		sema_init_fifo(&bkl_sem, 1);
	return 0;
}

static int bkl_teardown(void)
{
	if (bkl_owned()) {
		fprintf(stderr, "rcuvfs: BKL still held at teardown\n");
		return -EBUSY;
	}
	return 0;
}

RV_SUBSYS(bkl, bkl_init, bkl_teardown);
