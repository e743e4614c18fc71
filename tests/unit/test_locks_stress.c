// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_locks_stress.c - locks/ under concurrency, for every
 * filelock scheme (and, for filelock=bkl, every BKL kind):
 *  - mutual exclusion: tasks of different owners increment a plain
 *    (non-atomic) counter only while holding an exclusive POSIX, flock or
 *    OFD lock, with blocking waits; the count must be exact;
 *  - 1,000 blocked requests on one range (deferred, and sleeping tasks)
 *    are all granted in turn, one holder at a time;
 *  - waiters interrupted at random leave the blocker tree consistent.
 * Pass/fail never depends on timing; every wait is bounded.
 */
#include "test_locks_common.h"

#include <pthread.h>

static struct inode *sino;

static int suite_up(const char *filelock, const char *bkl)
{
	char s1[64], s2[64];
	const char *s[] = {s1, s2, NULL};

	snprintf(s1, sizeof(s1), "filelock=%s", filelock);
	snprintf(s2, sizeof(s2), "bkl=%s", bkl);
	if (rvtest_instance_with(s))
		return -1;
	sino = tl_inode(7);
	return 0;
}

static int suite_down(void)
{
	tl_inode_free(sino);
	return rvtest_instance_cleanup();
}

/* ---- mutual exclusion ----------------------------------------------------- */

enum mx_kind { MX_POSIX, MX_FLOCK, MX_OFD };

#define MX_TASKS 4
#define MX_ITERS 1000

static long mx_counter;
static int mx_errors;

struct mx_arg {
	int idx;
	enum mx_kind kind;
};

static void *mx_main(void *p)
{
	struct mx_arg *a = p;
	struct file *f = tl_file(sino, FMODE_READ | FMODE_WRITE);

	for (int i = 0; i < MX_ITERS; i++) {
		int err;
		long v;

		switch (a->kind) {
		case MX_POSIX:
			err = tl_setlk(f, F_SETLKW, a->idx + 1, F_WRLCK, 0, 1);
			break;
		case MX_FLOCK:
			err = flock_lock_file(f, LOCK_EX, a->idx + 1, NULL);
			break;
		default:
			err = tl_setlk(f, F_OFD_SETLKW, 0, F_WRLCK, 0, 1);
			break;
		}
		if (err) {
			__atomic_fetch_add(&mx_errors, 1, __ATOMIC_RELAXED);
			continue;
		}
		v = READ_ONCE(mx_counter);
		if ((i & 63) == a->idx)
			sched_yield(); /* widen the window while holding the lock */
		WRITE_ONCE(mx_counter, v + 1);
		switch (a->kind) {
		case MX_POSIX:
			err = tl_setlk(f, F_SETLK, a->idx + 1, F_UNLCK, 0, 1);
			break;
		case MX_FLOCK:
			err = flock_lock_file(f, LOCK_UN, a->idx + 1, NULL);
			break;
		default:
			err = tl_setlk(f, F_OFD_SETLK, 0, F_UNLCK, 0, 1);
			break;
		}
		if (err)
			__atomic_fetch_add(&mx_errors, 1, __ATOMIC_RELAXED);
	}
	tl_file_free(f);
	return NULL;
}

static void run_mx(enum mx_kind kind)
{
	struct mx_arg args[MX_TASKS];
	void *argp[MX_TASKS];

	mx_counter = 0;
	mx_errors = 0;
	for (int i = 0; i < MX_TASKS; i++) {
		args[i] = (struct mx_arg){i, kind};
		argp[i] = &args[i];
	}
	rvtest_run_threads(MX_TASKS, mx_main, argp);
	CU_ASSERT_EQUAL(mx_errors, 0);
	CU_ASSERT_EQUAL(mx_counter, (long)MX_TASKS * MX_ITERS);
	CU_ASSERT_EQUAL(locks_count_held(), 0);
	CU_ASSERT_EQUAL(locks_count_blocked(), 0);
}

static void test_mx_posix(void)
{
	run_mx(MX_POSIX);
}

static void test_mx_flock(void)
{
	run_mx(MX_FLOCK);
}

static void test_mx_ofd(void)
{
	run_mx(MX_OFD);
}

/* ---- 1,000 deferred waiters ----------------------------------------------- */

#define NWAIT 1000

static struct file_lock_req *dq[NWAIT + 1];
static int dq_n, dq_bad;
static int dq_holding; /* owners holding the lock: must stay <= 1 */

static void dq_grant(struct file_lock_req *req, int result)
{
	if (result)
		dq_bad++;
	if (++dq_holding > 1)
		dq_bad++;
	dq[dq_n++] = req;
}

static void test_deferred_1000(void)
{
	struct file *holder = tl_file(sino, FMODE_READ | FMODE_WRITE);
	struct file *fw = tl_file(sino, FMODE_READ | FMODE_WRITE);
	struct file_lock_req *reqs[NWAIT];
	int deferred = 0;

	dq_n = dq_bad = 0;
	dq_holding = 1;
	CU_ASSERT_EQUAL(tl_lock(holder, 0, F_WRLCK, 0, 100), 0);
	for (int i = 0; i < NWAIT; i++) {
		struct flock l = {
		    .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 100};

		reqs[i] = locks_alloc_req(dq_grant, (void *)(uintptr_t)(i + 1));
		if (fcntl_setlk(fw, F_SETLKW, &l, TL_OWNER(i + 1), i + 1, reqs[i]) ==
		    FILE_LOCK_DEFERRED)
			deferred++;
	}
	CU_ASSERT_EQUAL(deferred, NWAIT);
	CU_ASSERT_EQUAL(locks_count_blocked(), NWAIT);
	/* release the holder; each grant's owner releases in turn */
	dq_holding--;
	CU_ASSERT_EQUAL(tl_lock(holder, 0, F_UNLCK, 0, 0), 0);
	for (int k = 0; k < NWAIT; k++) {
		int owner;

		if (dq_n != k + 1) {
			CU_FAIL("no grant after an unlock");
			break;
		}
		owner = (int)(uintptr_t)dq[k]->private;
		/* granted in FIFO order: the blocker tree keeps arrival order */
		CU_ASSERT_EQUAL(owner, k + 1);
		if (k % 100 == 0) /* the listing holds 1,000 lines: sample it */
			CU_ASSERT_STRING_EQUAL(tl_ranges(7, owner), "W0-99");
		dq_holding--;
		CU_ASSERT_EQUAL(tl_lock(fw, owner, F_UNLCK, 0, 0), 0);
	}
	CU_ASSERT_EQUAL(dq_n, NWAIT);
	CU_ASSERT_EQUAL(dq_bad, 0);
	CU_ASSERT_EQUAL(locks_count_blocked(), 0);
	for (int i = 0; i < NWAIT; i++)
		locks_put_req(reqs[i]);
	tl_file_free(holder);
	tl_file_free(fw);
}

/* ---- 1,000 sleeping waiters ----------------------------------------------- */

static long sw_counter;
static int sw_inside, sw_bad;

struct sw_arg {
	struct file *f;
	int owner;
	int ret;
};

static void *sw_main(void *p)
{
	struct sw_arg *a = p;
	long v;

	rv_rcu_ensure();
	a->ret = tl_setlk(a->f, F_SETLKW, a->owner, F_WRLCK, 0, 100);
	if (a->ret == 0) {
		if (__atomic_add_fetch(&sw_inside, 1, __ATOMIC_ACQ_REL) != 1)
			__atomic_fetch_add(&sw_bad, 1, __ATOMIC_RELAXED);
		v = READ_ONCE(sw_counter);
		WRITE_ONCE(sw_counter, v + 1);
		__atomic_sub_fetch(&sw_inside, 1, __ATOMIC_ACQ_REL);
		tl_setlk(a->f, F_SETLK, a->owner, F_UNLCK, 0, 0);
	}
	kmem_cache_flush_thread();
	return NULL;
}

static void test_sleeping_1000(void)
{
	struct file *holder = tl_file(sino, FMODE_READ | FMODE_WRITE);
	struct file *fw = tl_file(sino, FMODE_READ | FMODE_WRITE);
	static struct sw_arg args[NWAIT];
	static pthread_t th[NWAIT];
	pthread_attr_t attr;
	int started = 0;

	sw_counter = 0;
	sw_inside = sw_bad = 0;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	CU_ASSERT_EQUAL(tl_lock(holder, 0, F_WRLCK, 0, 0), 0);
	for (int i = 0; i < NWAIT; i++) {
		args[i] = (struct sw_arg){fw, i + 1, -1};
		if (pthread_create(&th[i], &attr, sw_main, &args[i]))
			break;
		started++;
	}
	CU_ASSERT_EQUAL(started, NWAIT);
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(locks_count_blocked() == started, 120000), 0);
	CU_ASSERT_EQUAL(tl_lock(holder, 0, F_UNLCK, 0, 0), 0);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_attr_destroy(&attr);
	for (int i = 0; i < started; i++)
		CU_ASSERT_EQUAL(args[i].ret, 0);
	CU_ASSERT_EQUAL(sw_counter, started);
	CU_ASSERT_EQUAL(sw_bad, 0);
	CU_ASSERT_EQUAL(locks_count_blocked(), 0);
	CU_ASSERT_EQUAL(locks_count_held(), 0);
	tl_file_free(holder);
	tl_file_free(fw);
}

/* ---- interrupted waiters keep the tree consistent ------------------------- */

#define IW_TASKS 16

struct iw_arg {
	struct file *f;
	int owner;
	struct task_struct *task;
	int ret;
	int done;
};

static void *iw_main(void *p)
{
	struct iw_arg *a = p;

	__atomic_store_n(&a->task, current, __ATOMIC_RELEASE);
	/* overlapping ranges of different types: a real tree, not a chain */
	a->ret = tl_setlk(a->f, F_SETLKW, a->owner, (a->owner & 1) ? F_RDLCK : F_WRLCK,
			  (a->owner % 4) * 10, 25);
	if (a->ret == 0)
		tl_setlk(a->f, F_SETLK, a->owner, F_UNLCK, 0, 0);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_interrupted_waiters(void)
{
	struct file *holder = tl_file(sino, FMODE_READ | FMODE_WRITE);
	struct file *fw = tl_file(sino, FMODE_READ | FMODE_WRITE);
	struct iw_arg args[IW_TASKS];
	pthread_t th[IW_TASKS];
	int eintr = 0, ok = 0;
	char buf[8192];

	CU_ASSERT_EQUAL(tl_lock(holder, 0, F_WRLCK, 0, 0), 0);
	for (int i = 0; i < IW_TASKS; i++) {
		args[i] = (struct iw_arg){.f = fw, .owner = i + 1};
		pthread_create(&th[i], NULL, iw_main, &args[i]);
	}
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(locks_count_blocked() == IW_TASKS, 30000), 0);
	/* interrupt every third one while the tree is full */
	for (int i = 0; i < IW_TASKS; i += 3)
		task_signal(args[i].task);
	for (int i = 0; i < IW_TASKS; i += 3)
		CU_ASSERT_EQUAL(
		    WAIT_UNTIL_MS(__atomic_load_n(&args[i].done, __ATOMIC_ACQUIRE), 30000), 0);
	/* the others re-queue (an interrupted waiter wakes those behind it) */
	CU_ASSERT_EQUAL(
	    WAIT_UNTIL_MS(locks_count_blocked() == IW_TASKS - (IW_TASKS + 2) / 3, 30000), 0);
	/* the listing shows exactly the remaining waiters */
	locks_format_proc(buf, sizeof(buf));
	{
		int arrows = 0;

		for (char *p = buf; (p = strstr(p, "->")); p += 2)
			arrows++;
		CU_ASSERT_EQUAL(arrows, IW_TASKS - (IW_TASKS + 2) / 3);
		CU_ASSERT_EQUAL(locks_count_blocked(), arrows);
	}
	CU_ASSERT_EQUAL(tl_lock(holder, 0, F_UNLCK, 0, 0), 0);
	for (int i = 0; i < IW_TASKS; i++) {
		pthread_join(th[i], NULL);
		if (args[i].ret == -EINTR)
			eintr++;
		else if (args[i].ret == 0)
			ok++;
	}
	CU_ASSERT_EQUAL(eintr, (IW_TASKS + 2) / 3);
	CU_ASSERT_EQUAL(ok, IW_TASKS - eintr);
	CU_ASSERT_EQUAL(locks_count_blocked(), 0);
	CU_ASSERT_EQUAL(locks_count_held(), 0);
	tl_file_free(holder);
	tl_file_free(fw);
}

/* ---- grant and cancel racing for one request ------------------------------ */

#define GC_ITERS 500

static pthread_barrier_t gc_bar;
static struct file_lock_req *gc_req;
static int gc_granted, gc_grant_result, gc_cancel_ret, gc_bad;
static int gc_grant_won, gc_cancel_won; /* iterations each side won */
static int gc_cancel_in_grant;		/* the forced case: cancel from inside grant() */
static struct file *gc_holder, *gc_fw;

static void gc_grant(struct file_lock_req *req, int result)
{
	gc_grant_result = result;
	__atomic_fetch_add(&gc_granted, 1, __ATOMIC_ACQ_REL);
	/* the cancel arrives after the grant claimed the request and before
	 * the grant returned: too late, it must report nothing cancelled */
	if (gc_cancel_in_grant)
		gc_cancel_ret = locks_cancel_req(req);
}

static void *gc_main(void *p)
{
	int id = (int)(uintptr_t)p;

	for (int i = 0; i < GC_ITERS; i++) {
		if (id == 0) {
			struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 10};

			gc_granted = 0;
			gc_cancel_ret = 1;
			if (tl_lock(gc_holder, 0, F_WRLCK, 0, 10))
				gc_bad++;
			gc_req = locks_alloc_req(gc_grant, NULL);
			if (fcntl_setlk(gc_fw, F_SETLKW, &l, TL_OWNER(1), 1, gc_req) !=
			    FILE_LOCK_DEFERRED)
				gc_bad++;
		}
		pthread_barrier_wait(&gc_bar);
		if (id == 0)
			tl_lock(gc_holder, 0, F_UNLCK, 0, 0); /* may run the grant */
		else
			gc_cancel_ret = locks_cancel_req(gc_req);
		pthread_barrier_wait(&gc_bar);
		if (id == 0) {
			int granted = __atomic_load_n(&gc_granted, __ATOMIC_ACQUIRE);

			/* exactly one of: the grant ran, the cancel withdrew it */
			if (granted + (gc_cancel_ret == -EINTR) != 1 || granted > 1)
				gc_bad++;
			if (granted)
				gc_grant_won++;
			else
				gc_cancel_won++;
			if (granted && (gc_grant_result || gc_cancel_ret != 0))
				gc_bad++;
			/* the lock is held iff it was granted */
			if (locks_count_held() != granted)
				gc_bad++;
			tl_lock(gc_fw, 1, F_UNLCK, 0, 0);
			if (locks_count_held() || locks_count_blocked())
				gc_bad++;
			locks_put_req(gc_req);
		}
	}
	return NULL;
}

static void *gc_unlock_main(void *p)
{
	rv_rcu_ensure();
	tl_lock(gc_holder, 0, F_UNLCK, 0, 0); /* runs the grant queue */
	return NULL;
}

/*
 * Each side of the race won inside its window, deterministically: cancel
 * first parks the unlocker's grant at locks_before_retry (the request woken
 * but not yet re-applied) and cancels meanwhile; grant first cancels from
 * inside grant() (the request claimed, the grant not yet returned).
 */
static void gc_forced(bool cancel_first)
{
	struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 10};
	pthread_t t;

	gc_granted = 0;
	gc_cancel_ret = 1;
	gc_cancel_in_grant = !cancel_first;
	CU_ASSERT_EQUAL(tl_lock(gc_holder, 0, F_WRLCK, 0, 10), 0);
	gc_req = locks_alloc_req(gc_grant, NULL);
	CU_ASSERT_EQUAL_FATAL(fcntl_setlk(gc_fw, F_SETLKW, &l, TL_OWNER(1), 1, gc_req),
			      FILE_LOCK_DEFERRED);
	if (cancel_first)
		CU_ASSERT_EQUAL(rv_inject_set_pause("locks_before_retry", 1), 0);
	CU_ASSERT_FATAL(pthread_create(&t, NULL, gc_unlock_main, NULL) == 0);
	if (cancel_first) {
		CU_ASSERT_EQUAL(rv_inject_wait_arrivals("locks_before_retry", 1, 10000), 0);
		gc_cancel_ret = locks_cancel_req(gc_req);
		rv_inject_release("locks_before_retry");
	}
	pthread_join(t, NULL);
	rv_inject_clear_all();
	gc_cancel_in_grant = 0;
	if (cancel_first) {
		CU_ASSERT_EQUAL(gc_cancel_ret, -EINTR);
		CU_ASSERT_EQUAL(gc_granted, 0);
		CU_ASSERT_EQUAL(locks_count_held(), 0);
	} else {
		CU_ASSERT_EQUAL(gc_granted, 1);
		CU_ASSERT_EQUAL(gc_grant_result, 0);
		CU_ASSERT_EQUAL(gc_cancel_ret, 0);
		CU_ASSERT_EQUAL(locks_count_held(), 1);
	}
	tl_lock(gc_fw, 1, F_UNLCK, 0, 0);
	CU_ASSERT_EQUAL(locks_count_held(), 0);
	CU_ASSERT_EQUAL(locks_count_blocked(), 0);
	locks_put_req(gc_req);
}

static void test_grant_cancel_race(void)
{
	void *args[2] = {(void *)0, (void *)1};

	gc_holder = tl_file(sino, FMODE_READ | FMODE_WRITE);
	gc_fw = tl_file(sino, FMODE_READ | FMODE_WRITE);
	gc_bad = 0;
	gc_grant_won = gc_cancel_won = 0;
	pthread_barrier_init(&gc_bar, NULL, 2);
	rvtest_run_threads(2, gc_main, args);
	pthread_barrier_destroy(&gc_bar);
	CU_ASSERT_EQUAL(gc_bad, 0);
	CU_ASSERT_EQUAL(gc_grant_won + gc_cancel_won, GC_ITERS);
	printf("\n    [free-running: grant won %d, cancel won %d of %d]\n", gc_grant_won,
	       gc_cancel_won, GC_ITERS);
	gc_forced(true);
	gc_forced(false);
	tl_file_free(gc_holder);
	tl_file_free(gc_fw);
}

/* ---- one suite per scheme x BKL kind ----------------------------------------- */

#define STRESS_CASES                                                                               \
	RVTEST(test_mx_posix), RVTEST(test_mx_flock), RVTEST(test_mx_ofd),                         \
	    RVTEST(test_deferred_1000), RVTEST(test_sleeping_1000),                                \
	    RVTEST(test_interrupted_waiters), RVTEST(test_grant_cancel_race)

#define STRESS_SUITE(nm, filelock, bkl)                                                            \
	static int init_##nm(void)                                                                 \
	{                                                                                          \
		return suite_up(filelock, bkl);                                                    \
	}                                                                                          \
	RVTEST_SUITE(nm, init_##nm, suite_down, STRESS_CASES)

/* The BKL kind matters only where the BKL is taken (filelock=bkl): the
 * global and inode schemes run once. */
STRESS_SUITE(global, "global", "spin")
STRESS_SUITE(bkl_spin, "bkl", "spin")
STRESS_SUITE(bkl_sem_fifo, "bkl", "sem-fifo")
STRESS_SUITE(bkl_sem_steal, "bkl", "sem-steal")
STRESS_SUITE(inode, "inode", "spin")
