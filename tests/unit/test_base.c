// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_base.c - vfs/base primitives: lockref, seqcount, rwsem,
 * wait/completion/signals, injection points, stats, switches, tasks and
 * the model instance.  Every concurrent test is bounded by iteration counts
 * or injection rendezvous, never by time.
 */
#include "rvtest.h"

#include <pthread.h>
#include <string.h>

RV_STAT_DEFINE(test_base_events, "events counted by test_base");
RV_STAT_DECLARE(lockref_fallbacks);

/* ---------------- lockref ---------------- */

#define LR_ITERS 200000
static struct lockref lr;

static void *lockref_getter(void *arg)
{
	for (int i = 0; i < LR_ITERS; i++)
		lockref_get(&lr);
	return NULL;
}

/* Each put takes the lockless path, else the locked one; the main thread
 * checks the count they leave (CUnit asserts only there). */
static void *lockref_putter(void *arg)
{
	for (int i = 0; i < LR_ITERS; i++) {
		if (lockref_put_return(&lr) >= 0 || lockref_put_not_zero(&lr))
			continue;
		spin_lock(&lr.lock);
		lr.count--;
		spin_unlock(&lr.lock);
	}
	return NULL;
}

static void test_lockref_two_threads_exact(void)
{
	lockref_init(&lr, 1);
	rvtest_run_threads(2, lockref_getter, NULL);
	CU_ASSERT_EQUAL(lr.count, 1 + 2 * LR_ITERS);
	rvtest_run_threads(2, lockref_putter, NULL);
	CU_ASSERT_EQUAL(lr.count, 1);
	CU_ASSERT_FALSE(spin_is_locked(&lr.lock));
}

static void *lockref_get_once(void *arg)
{
	lockref_get(&lr);
	return NULL;
}

static void test_lockref_fallback_counted(void)
{
	pthread_t t;
	uint64_t before = rv_stat_get(lockref_fallbacks);
	uint64_t deadline = rv_now_ns() + 10ull * 1000000000ull;

	lockref_init(&lr, 5);
	spin_lock(&lr.lock); /* a holder: the getter must fall back */
	CU_ASSERT_FATAL(pthread_create(&t, NULL, lockref_get_once, NULL) == 0);
	while (rv_stat_get(lockref_fallbacks) == before && rv_now_ns() < deadline)
		sched_yield();
	CU_ASSERT(rv_stat_get(lockref_fallbacks) > before);
	CU_ASSERT_EQUAL(lr.count, 5); /* not incremented while we hold the lock */
	spin_unlock(&lr.lock);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(lr.count, 6);
}

static void test_lockref_dead_and_zero(void)
{
	lockref_init(&lr, 0);
	CU_ASSERT_FALSE(lockref_get_not_zero(&lr));
	CU_ASSERT_TRUE(lockref_get_not_dead(&lr));
	CU_ASSERT_EQUAL(lr.count, 1);
	CU_ASSERT_FALSE(lockref_put_not_zero(&lr)); /* would reach zero */
	CU_ASSERT_FALSE(lockref_put_or_lock(&lr));  /* returns with the lock held */
	CU_ASSERT_TRUE(spin_is_locked(&lr.lock));
	lockref_mark_dead(&lr);
	spin_unlock(&lr.lock);
	CU_ASSERT_TRUE(__lockref_is_dead(&lr));
	CU_ASSERT_FALSE(lockref_get_not_dead(&lr));
	CU_ASSERT_FALSE(lockref_get_not_zero(&lr));
	CU_ASSERT_EQUAL(lockref_put_return(&lr), -1);
	lockref_init(&lr, 3);
	CU_ASSERT_TRUE(lockref_put_or_lock(&lr));
	CU_ASSERT_EQUAL(lockref_put_return(&lr), 1);
}

/* ---------------- seqcount ---------------- */

#define SEQ_ITERS 300000
static seqcount_t sc;
static spinlock_t sc_lock;
static volatile uint64_t pair_a, pair_b;
static int seq_torn, seq_done;

static void *seq_writer(void *arg)
{
	for (uint64_t i = 1; i <= SEQ_ITERS; i++) {
		spin_lock(&sc_lock);
		write_seqcount_begin(&sc);
		pair_a = i;
		barrier();
		pair_b = i;
		write_seqcount_end(&sc);
		spin_unlock(&sc_lock);
	}
	__atomic_store_n(&seq_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *seq_reader(void *arg)
{
	long reads = 0;

	while (!__atomic_load_n(&seq_done, __ATOMIC_ACQUIRE) || reads < 1000) {
		uint32_t s;
		uint64_t a, b;

		do {
			s = read_seqcount_begin(&sc);
			a = pair_a;
			b = pair_b;
		} while (read_seqcount_retry(&sc, s));
		if (a != b)
			__atomic_store_n(&seq_torn, 1, __ATOMIC_RELAXED);
		reads++;
	}
	return NULL;
}

static void *seq_role(void *arg)
{
	return arg ? seq_writer(NULL) : seq_reader(NULL);
}

static void test_seqcount_no_torn_pair(void)
{
	void *roles[2] = {(void *)1, NULL};

	seqcount_init(&sc);
	spin_lock_init(&sc_lock);
	seq_torn = 0;
	seq_done = 0;
	rvtest_run_threads(2, seq_role, roles);
	CU_ASSERT_EQUAL(seq_torn, 0);
	CU_ASSERT_EQUAL(pair_a, SEQ_ITERS);
	CU_ASSERT_EQUAL(sc.sequence, 2u * SEQ_ITERS);
}

static void test_seqlock_basic(void)
{
	seqlock_t sl;
	uint32_t s;

	seqlock_init(&sl);
	s = read_seqbegin(&sl);
	CU_ASSERT_FALSE(read_seqretry(&sl, s));
	write_seqlock(&sl);
	CU_ASSERT_TRUE(read_seqretry(&sl, s));
	write_sequnlock(&sl);
	CU_ASSERT_TRUE(read_seqretry(&sl, s));
	s = read_seqbegin(&sl);
	CU_ASSERT_FALSE(read_seqretry(&sl, s));
}

/* ---------------- rwsem ---------------- */

#define RW_ITERS 20000
static struct rw_semaphore rw;
static long rw_counter; /* plain: protected by rw held for write */
static int rw_bad;

static void *rw_worker(void *arg)
{
	for (int i = 0; i < RW_ITERS; i++) {
		if (i % 4) {
			down_write(&rw);
			long v = rw_counter;
			barrier();
			rw_counter = v + 1;
			up_write(&rw);
		} else {
			down_read(&rw);
			if (rwsem_is_write_locked(&rw))
				rw_bad = 1;
			up_read(&rw);
		}
	}
	return NULL;
}

static void test_rwsem_exclusion(void)
{
	init_rwsem(&rw);
	rw_counter = 0;
	rw_bad = 0;
	rvtest_run_threads(3, rw_worker, NULL);
	CU_ASSERT_EQUAL(rw_counter, 3L * (RW_ITERS - RW_ITERS / 4));
	CU_ASSERT_EQUAL(rw_bad, 0);
	CU_ASSERT_FALSE(rwsem_is_locked(&rw));
}

static void test_rwsem_trylock_downgrade(void)
{
	init_rwsem(&rw);
	CU_ASSERT_TRUE(down_write_trylock(&rw));
	CU_ASSERT_FALSE(down_read_trylock(&rw));
	CU_ASSERT_FALSE(down_write_trylock(&rw));
	downgrade_write(&rw);
	CU_ASSERT_FALSE(rwsem_is_write_locked(&rw));
	CU_ASSERT_TRUE(down_read_trylock(&rw));
	CU_ASSERT_FALSE(down_write_trylock(&rw));
	up_read(&rw);
	up_read(&rw);
	CU_ASSERT_FALSE(rwsem_is_locked(&rw));
	CU_ASSERT_TRUE(down_write_trylock(&rw));
	up_write(&rw);
}

/* A writer blocked behind a reader sleeps and is handed the lock. */
static void *rw_blocked_writer(void *arg)
{
	RV_INJECT("test_rw_before_down_write");
	down_write(&rw);
	*(int *)arg = 1;
	up_write(&rw);
	return NULL;
}

static void test_rwsem_writer_waits_for_reader(void)
{
	pthread_t t;
	int got = 0;

	init_rwsem(&rw);
	down_read(&rw);
	/* arm the point (a zero delay) so its arrival is counted */
	CU_ASSERT_EQUAL(rv_inject_set_delay("test_rw_before_down_write", 0, 0), 0);
	CU_ASSERT_FATAL(pthread_create(&t, NULL, rw_blocked_writer, &got) == 0);
	CU_ASSERT_EQUAL(rv_inject_wait_arrivals("test_rw_before_down_write", 1, 10000), 0);
	/* the writer cannot get in while we read, however long we wait */
	for (int i = 0; i < 1000; i++)
		sched_yield();
	CU_ASSERT_EQUAL(__atomic_load_n(&got, __ATOMIC_ACQUIRE), 0);
	up_read(&rw);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(got, 1);
	CU_ASSERT_FALSE(rwsem_is_locked(&rw));
	rv_inject_clear_all();
}

/* ---------------- completion, wait queues, signals ---------------- */

static struct completion done_c;
static struct task_struct *waiter_task;

static void *completion_waiter(void *arg)
{
	int *ret = arg;

	waiter_task = current;
	RV_INJECT("test_before_wait");
	*ret = wait_for_completion_interruptible(&done_c);
	return NULL;
}

static void test_completion_and_signal(void)
{
	pthread_t t;
	int ret = 99;

	init_completion(&done_c);
	CU_ASSERT_EQUAL(rv_inject_set_delay("test_before_wait", 0, 0), 0);
	CU_ASSERT_FATAL(pthread_create(&t, NULL, completion_waiter, &ret) == 0);
	CU_ASSERT_EQUAL(rv_inject_wait_arrivals("test_before_wait", 1, 10000), 0);
	complete(&done_c);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_FALSE(try_wait_for_completion(&done_c));

	/* now interrupt a waiter: it must return -EINTR */
	rv_inject_clear_all();
	CU_ASSERT_EQUAL(rv_inject_set_delay("test_before_wait", 0, 0), 0);
	ret = 99;
	waiter_task = NULL;
	CU_ASSERT_FATAL(pthread_create(&t, NULL, completion_waiter, &ret) == 0);
	CU_ASSERT_EQUAL(rv_inject_wait_arrivals("test_before_wait", 1, 10000), 0);
	task_signal(__atomic_load_n(&waiter_task, __ATOMIC_ACQUIRE));
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(ret, -EINTR);
	complete_all(&done_c);
	CU_ASSERT_TRUE(try_wait_for_completion(&done_c));
	CU_ASSERT_TRUE(try_wait_for_completion(&done_c));
	rv_inject_clear_all();
}

static struct wait_queue_head wq;
static int wq_cond;
static int wq_queued_at_wake; /* waiters on the queue when the waker woke them */
static long wq_spins;	      /* the waker's bounded wait for them ran out: -1 */

static int wq_queued(void)
{
	struct list_head *p;
	int n = 0;

	spin_lock(&wq.lock);
	for (p = wq.head.next; p != &wq.head; p = p->next)
		n++;
	spin_unlock(&wq.lock);
	return n;
}

static void *wq_waiter(void *arg)
{
	wait_event(&wq, __atomic_load_n(&wq_cond, __ATOMIC_ACQUIRE) >= 1);
	__atomic_fetch_add(&wq_cond, 1, __ATOMIC_ACQ_REL);
	return NULL;
}

static void *wq_role(void *arg)
{
	if (!arg)
		return wq_waiter(NULL);
	/* both waiters queued with the condition false: they sleep, and only
	 * this wake-up can end their wait (bounded; never reached) */
	while (wq_queued() < 2) {
		if (++wq_spins > 100000000) {
			wq_spins = -1;
			break;
		}
		sched_yield();
	}
	wq_queued_at_wake = wq_queued();
	__atomic_store_n(&wq_cond, 1, __ATOMIC_RELEASE);
	wake_up_all(&wq);
	return NULL;
}

static void test_wait_event(void)
{
	void *roles[3] = {NULL, NULL, (void *)1};

	init_waitqueue_head(&wq);
	wq_cond = 0;
	wq_spins = 0;
	rvtest_run_threads(3, wq_role, roles);
	CU_ASSERT(wq_spins >= 0);
	CU_ASSERT_EQUAL(wq_queued_at_wake, 2); /* the race happened: both were asleep */
	CU_ASSERT_EQUAL(wq_cond, 3);
	CU_ASSERT_TRUE(list_empty(&wq.head));
}

/* ---------------- injection points ---------------- */

static int inj_log[4], inj_pos;
static int inj_flag;

static void log_event(int ev)
{
	int i = __atomic_fetch_add(&inj_pos, 1, __ATOMIC_ACQ_REL);

	if (i < 4)
		inj_log[i] = ev;
}

static void *inj_a(void *arg)
{
	RV_INJECT("test_point_a"); /* waits until someone reaches point b */
	log_event(2);
	return NULL;
}

static void *inj_b(void *arg)
{
	for (int i = 0; i < 200; i++)
		sched_yield(); /* give A every chance to run first */
	log_event(1);
	RV_INJECT("test_point_b");
	return NULL;
}

static void test_inject_rendezvous_order(void)
{
	pthread_t a, b;

	inj_pos = 0;
	CU_ASSERT_EQUAL(rv_inject_set_wait_for("test_point_a", "test_point_b", 0), 0);
	CU_ASSERT_FATAL(pthread_create(&a, NULL, inj_a, NULL) == 0);
	CU_ASSERT_FATAL(pthread_create(&b, NULL, inj_b, NULL) == 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	CU_ASSERT_EQUAL(inj_pos, 2);
	CU_ASSERT_EQUAL(inj_log[0], 1);
	CU_ASSERT_EQUAL(inj_log[1], 2);
	CU_ASSERT_EQUAL(rv_inject_arrivals("test_point_a"), 1);
	CU_ASSERT_EQUAL(rv_inject_arrivals("test_point_b"), 1);
	rv_inject_clear_all();
}

static void *inj_pauser(void *arg)
{
	RV_INJECT("test_pause");
	*(int *)arg = __atomic_load_n(&inj_flag, __ATOMIC_ACQUIRE);
	return NULL;
}

static void inj_cb(void *arg)
{
	(*(int *)arg)++;
}

static void test_inject_pause_release_callback_count(void)
{
	pthread_t t;
	int seen = -1, calls = 0;

	inj_flag = 0;
	CU_ASSERT_EQUAL(rv_inject_set_pause("test_pause", 1), 0);
	CU_ASSERT_FATAL(pthread_create(&t, NULL, inj_pauser, &seen) == 0);
	CU_ASSERT_EQUAL(rv_inject_wait_arrivals("test_pause", 1, 10000), 0);
	__atomic_store_n(&inj_flag, 1, __ATOMIC_RELEASE); /* while it is parked */
	rv_inject_release("test_pause");
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(seen, 1);
	/* count = 1: the second hit passes straight through */
	RV_INJECT("test_pause");
	CU_ASSERT_EQUAL(rv_inject_arrivals("test_pause"), 2);

	CU_ASSERT_EQUAL(rv_inject_set_callback("test_cb", inj_cb, &calls, 2), 0);
	for (int i = 0; i < 5; i++)
		RV_INJECT("test_cb");
	CU_ASSERT_EQUAL(calls, 2);
	CU_ASSERT_EQUAL(rv_inject_wait_arrivals("test_never_hit", 1, 20), -ETIMEDOUT);
	rv_inject_clear_all();
	CU_ASSERT_EQUAL(rv_inject_armed, 0);
}

/* ---------------- stats ---------------- */

#define STAT_ITERS 100000
static void *stat_bumper(void *arg)
{
	for (int i = 0; i < STAT_ITERS; i++)
		rv_stat_inc(test_base_events);
	return NULL;
}

static void test_stats_sum_exact(void)
{
	uint64_t v = 0;
	char buf[16384];

	rv_stats_reset();
	rvtest_run_threads(2, stat_bumper, NULL); /* threads exit: folded */
	rv_stat_add(test_base_events, 5);
	CU_ASSERT_EQUAL(rv_stat_get(test_base_events), 2ull * STAT_ITERS + 5);
	CU_ASSERT_EQUAL(rv_stat_read("test_base_events", &v), 0);
	CU_ASSERT_EQUAL(v, 2ull * STAT_ITERS + 5);
	CU_ASSERT_EQUAL(rv_stat_read("no_such_counter", &v), -ENOENT);
	CU_ASSERT_FALSE(rv_stat_is_gauge("test_base_events"));
	CU_ASSERT_TRUE(rv_stat_is_gauge("slab_objects_active"));
	CU_ASSERT(rv_stats_format_text(buf, sizeof(buf)) < sizeof(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "test_base_events 200005\n"));
	CU_ASSERT(rv_stats_format_json(buf, sizeof(buf)) < sizeof(buf));
	CU_ASSERT_EQUAL(buf[0], '{');
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"test_base_events\": 200005"));
	CU_ASSERT_EQUAL(buf[strlen(buf) - 1], '}');
	/* a short buffer reports the size needed and stays terminated */
	CU_ASSERT(rv_stats_format_text(buf, 8) > 8);
	CU_ASSERT(strlen(buf) < 8);
	rv_stats_reset();
	CU_ASSERT_EQUAL(rv_stat_get(test_base_events), 0);
}

/*
 * A counter incremented by a thread-exit destructor that runs after the
 * counters' own (a lazily created task's exit does that): the increment
 * registers the thread's slot again and the counters' destructor runs a
 * second time.  Each count must be folded once.  glibc runs destructors in
 * key order, so the test's key, created after the counters' key, runs
 * second; the destructor records that it did (the slot was unregistered).
 */
static pthread_key_t late_key;
static int late_saw_folded;

static void late_destructor(void *arg)
{
	late_saw_folded = !rv_stat_registered;
	rv_stat_inc(test_base_events);
}

static void *late_bumper(void *arg)
{
	for (int i = 0; i < STAT_ITERS; i++)
		rv_stat_inc(test_base_events);
	pthread_setspecific(late_key, &late_key);
	return NULL;
}

static void test_stats_increment_after_fold(void)
{
	pthread_t t;

	rv_stat_inc(test_base_events); /* the counters' key exists first */
	CU_ASSERT_EQUAL_FATAL(pthread_key_create(&late_key, late_destructor), 0);
	rv_stats_reset();
	late_saw_folded = 0;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, late_bumper, NULL), 0);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(late_saw_folded, 1);
	CU_ASSERT_EQUAL(rv_stat_get(test_base_events), STAT_ITERS + 1ull);
	pthread_key_delete(late_key);
	rv_stats_reset();
}

/* ---------------- switches ---------------- */

static void test_switches_parse_format(void)
{
	struct rv_switches sw;
	char err[256], buf[4096];

	rv_switches_default(&sw);
	CU_ASSERT_EQUAL(sw.filelock, FILELOCK_GLOBAL);
	CU_ASSERT_EQUAL(sw.pte_recheck, 1);
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "filelock", "inode", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(sw.filelock, FILELOCK_INODE);
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "bkl", "sem-steal", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(sw.bkl, BKL_SEM_STEAL);
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "bkl_ops", "open+lock", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(sw.bkl_ops, BKL_OP_OPEN | BKL_OP_LOCK);
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "size", "64m", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(sw.size, 64ull << 20);
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "cache_pages", "100", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(sw.cache_pages, 100);

	CU_ASSERT_EQUAL(rv_switch_set(&sw, "filelock", "bogus", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "global|bkl|inode"));
	CU_ASSERT_EQUAL(sw.filelock, FILELOCK_INODE); /* unchanged on error */
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "nosuch", "1", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown switch"));
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "cache_pages", "-1", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "cache_pages", "12x", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "size", "99999999999t", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "bkl_ops", "open+nope", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "pte_recheck", "2", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "0|1|rfc"));
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "pte_recheck", "rfc", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(sw.pte_recheck, PTE_RECHECK_RFC);
	CU_ASSERT(rv_switch_format(&sw, "pte_recheck", buf, sizeof(buf)) > 0);
	CU_ASSERT_STRING_EQUAL(buf, "rfc");
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "pte_recheck", "1", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "pte_recheck", NULL, err, sizeof(err)), -EINVAL);

	CU_ASSERT(rv_switches_format(&sw, buf, sizeof(buf)) < sizeof(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "filelock=inode\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "bkl=sem-steal\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "bkl_ops=open+lock\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "size=67108864\n"));
	/* every switch formats and re-parses to the same value */
	for (int i = 0; rv_switch_name(i); i++) {
		struct rv_switches copy;
		char v[128];

		rv_switches_default(&copy);
		CU_ASSERT(rv_switch_format(&sw, rv_switch_name(i), v, sizeof(v)) > 0);
		CU_ASSERT_EQUAL(rv_switch_set(&copy, rv_switch_name(i), v, err, sizeof(err)), 0);
	}
	CU_ASSERT_TRUE(rv_switch_known("fork_vma_lock"));
	CU_ASSERT_FALSE(rv_switch_known("fork"));
}

/*
 * vm_area_cache=typesafe and typesafe-sheaves need vma_lock=refcnt: the
 * check names both switches, and rv_instance_create refuses the pair
 * before any subsystem starts (no instance is left live).
 */
static void test_switches_vma_combinations(void)
{
	static const char *const caches[] = {"rcu", "typesafe", "sheaves", "typesafe-sheaves"};
	static const char *const locks[] = {"rwsem", "refcnt"};
	struct rv_switches sw;
	char err[256];

	for (size_t l = 0; l < ARRAY_SIZE(locks); l++) {
		for (size_t c = 0; c < ARRAY_SIZE(caches); c++) {
			bool bad = l == 0 && (c == 1 || c == 3);

			rv_switches_default(&sw);
			CU_ASSERT_EQUAL(rv_switch_set(&sw, "vma_lock", locks[l], err, sizeof(err)),
					0);
			CU_ASSERT_EQUAL(
			    rv_switch_set(&sw, "vm_area_cache", caches[c], err, sizeof(err)), 0);
			err[0] = 0;
			CU_ASSERT_EQUAL(rv_switches_check(&sw, err, sizeof(err)),
					bad ? -EINVAL : 0);
			if (bad) {
				CU_ASSERT_PTR_NOT_NULL(strstr(err, "vma_lock=refcnt"));
				CU_ASSERT_PTR_NOT_NULL(strstr(err, "vm_area_cache="));
				CU_ASSERT_PTR_NOT_NULL(strstr(err, caches[c]));
				CU_ASSERT_EQUAL(rv_instance_create(&sw), -EINVAL);
				CU_ASSERT_FALSE(rv_instance_live());
			} else {
				CU_ASSERT_EQUAL(err[0], 0);
				CU_ASSERT_EQUAL(rv_instance_create(&sw), 0);
				CU_ASSERT_EQUAL(rv_sw.vma_lock, (int)l);
				CU_ASSERT_EQUAL(rv_sw.vm_area_cache, (int)c);
				CU_ASSERT_EQUAL(rv_instance_destroy(), 0);
			}
		}
	}
	/* defaults: 6.4-6.14's design */
	rv_switches_default(&sw);
	CU_ASSERT_EQUAL(sw.vma_lock, VMA_LOCK_RWSEM);
	CU_ASSERT_EQUAL(sw.vm_area_cache, VM_AREA_CACHE_RCU);
	CU_ASSERT_EQUAL(rv_switch_set(&sw, "vm_area_cache", "slab", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "rcu|typesafe|sheaves|typesafe-sheaves"));
}

/* ---------------- tasks and instances ---------------- */

static int hook_copies, hook_exits, hook_shared;

static int fake_copy_files(struct task_struct *child, struct task_struct *parent,
			   unsigned long flags)
{
	hook_copies++;
	if (flags & CLONE_FILES)
		hook_shared++;
	return 0;
}

static void fake_exit_files(struct task_struct *t)
{
	hook_exits++;
}

static void test_task_fork_clone_hooks(void)
{
	static const struct task_hooks fake = {.copy_files = fake_copy_files,
					       .exit_files = fake_exit_files};
	struct task_struct *p, *c, *th;
	long live = task_count_live();

	task_set_hooks(TASK_HOOK_FILES, &fake);
	hook_copies = hook_exits = hook_shared = 0;
	p = task_create_process("parent");
	CU_ASSERT_FATAL(p != NULL);
	p->files = (void *)1; /* pretend fdtable installed one */
	c = task_fork(p);
	th = task_clone_thread(p);
	CU_ASSERT_FATAL(c && th);
	CU_ASSERT_EQUAL(hook_copies, 3);
	CU_ASSERT_EQUAL(hook_shared, 1);
	CU_ASSERT_NOT_EQUAL(c->tgid, p->tgid);
	CU_ASSERT_EQUAL(th->tgid, p->tgid);
	CU_ASSERT_NOT_EQUAL(th->pid, p->pid);
	CU_ASSERT_EQUAL(task_count_live(), live + 3);
	th->files = c->files = (void *)1;
	task_exit(th);
	task_exit(c);
	task_exit(p);
	CU_ASSERT_EQUAL(hook_exits, 3);
	CU_ASSERT_EQUAL(task_count_live(), live);
	task_set_hooks(TASK_HOOK_FILES, NULL);
}

static void test_instance_cycle(void)
{
	static const char *const bkl_sem[] = {"filelock=bkl", "bkl=sem-fifo", "fileref=file-ref",
					      NULL};
	static const char *const inode[] = {"filelock=inode", "lockref_relax=1", NULL};

	CU_ASSERT_EQUAL(rv_instance_destroy(), -ENOENT);
	CU_ASSERT_EQUAL_FATAL(rvtest_instance_with(bkl_sem), 0);
	CU_ASSERT_TRUE(rv_instance_live());
	CU_ASSERT_EQUAL(rv_sw.filelock, FILELOCK_BKL);
	CU_ASSERT_EQUAL(rv_sw.bkl, BKL_SEM_FIFO);
	CU_ASSERT_EQUAL(rv_sw.fileref, FILEREF_FILE_REF);
	CU_ASSERT_EQUAL(rv_instance_create(NULL), -EBUSY);
	CU_ASSERT_EQUAL(rv_instance_destroy(), 0);
	CU_ASSERT_FALSE(rv_instance_live());
	CU_ASSERT_EQUAL_FATAL(rvtest_instance_with(inode), 0);
	CU_ASSERT_EQUAL(rv_sw.filelock, FILELOCK_INODE);
	CU_ASSERT_EQUAL(rv_sw.lockref_relax, 1);
	CU_ASSERT_EQUAL(rv_sw.bkl, BKL_SPIN);
	(void)current; /* a lazily created task is exited by destroy */
	CU_ASSERT_EQUAL(rv_instance_destroy(), 0);
	CU_ASSERT_EQUAL(task_count_live(), 0);
	CU_ASSERT_EQUAL(kmem_cache_total_active(), 0);
	CU_ASSERT_EQUAL_FATAL(rv_instance_create(NULL), 0);
	CU_ASSERT_EQUAL(rv_sw.filelock, FILELOCK_GLOBAL);
	CU_ASSERT_EQUAL(rv_instance_destroy(), 0);
}

static int rcu_cb_ran;
static void rcu_test_cb(struct rcu_head *h)
{
	__atomic_fetch_add(&rcu_cb_ran, 1, __ATOMIC_RELAXED);
}

static void test_rcu_callbacks_counted(void)
{
	static struct rcu_head heads[10];
	uint64_t q0 = 0, d0 = 0, q1 = 0, d1 = 0;

	rcu_barrier();
	CU_ASSERT_EQUAL(rv_stat_read("rcu_callbacks_queued", &q0), 0);
	CU_ASSERT_EQUAL(rv_stat_read("rcu_callbacks_done", &d0), 0);
	for (int i = 0; i < 10; i++)
		rv_call_rcu(&heads[i], rcu_test_cb);
	rcu_barrier();
	rv_stat_read("rcu_callbacks_queued", &q1);
	rv_stat_read("rcu_callbacks_done", &d1);
	CU_ASSERT_EQUAL(q1 - q0, 10);
	CU_ASSERT_EQUAL(d1 - d0, 10);
	CU_ASSERT_EQUAL(rcu_cb_ran, 10);
}

static void test_rcu_report(void)
{
	const char *d = rv_rcu_describe();

	CU_ASSERT_PTR_NOT_NULL(strstr(d, "liburcu memb"));
	CU_ASSERT_EQUAL(!!strstr(d, "NOT"), !rv_rcu_has_membarrier());
	printf("\n    [%s] ", d);
}

/*
 * rv_rcu_read_unlock_leaf (vfs/base/rcu.h) reads and writes liburcu's
 * reader state itself.  Its effect must be the public unlock's: the
 * reader's ctr after "lock; leaf unlock" equals the one after "lock;
 * urcu_memb_read_unlock()", the exported function of the liburcu the
 * program runs with (not the inline copy of the headers), and the state
 * before the section.  A nested section is refused and left alone.  A
 * liburcu whose reader state changed fails here (or does not compile).
 */
static unsigned long reader_ctr(void)
{
#ifdef RCUVFS_URCU_INLINE_UNLOCK
	return URCU_TLS(urcu_memb_reader).ctr;
#else
	return 0;
#endif
}

/* liburcu's exported function, which _LGPL_SOURCE hides behind its inline copy */
#pragma push_macro("urcu_memb_read_unlock")
#undef urcu_memb_read_unlock
void urcu_memb_read_unlock(void);
static void liburcu_exported_read_unlock(void)
{
	urcu_memb_read_unlock();
}
#pragma pop_macro("urcu_memb_read_unlock")

static void test_rcu_unlock_leaf_matches_liburcu(void)
{
	unsigned long before, inside, after_public, after_leaf, nested;
	enum rv_rcu_unlock_res r;

	rv_rcu_ensure();
	before = reader_ctr();
	rcu_read_lock();
	inside = reader_ctr();
	liburcu_exported_read_unlock();
	after_public = reader_ctr();
	rcu_read_lock();
	r = rv_rcu_read_unlock_leaf();
	if (r == RV_RCU_UNLOCK_CALL)
		rcu_read_unlock();
	else if (r == RV_RCU_UNLOCK_WAKE)
		rv_rcu_wake_up_gp();
	after_leaf = reader_ctr();
#ifdef RCUVFS_URCU_INLINE_UNLOCK
	CU_ASSERT_NOT_EQUAL(inside, before); /* the state shows the section */
	/* with sys_membarrier, the leaf itself ended the section */
	CU_ASSERT_EQUAL(r, rv_rcu_has_membarrier() ? RV_RCU_UNLOCKED : RV_RCU_UNLOCK_CALL);
#else
	CU_ASSERT_EQUAL(r, RV_RCU_UNLOCK_CALL);
	(void)inside;
#endif
	CU_ASSERT_EQUAL(after_public, before);
	CU_ASSERT_EQUAL(after_leaf, after_public);
	rcu_read_lock();
	rcu_read_lock();
	nested = reader_ctr();
	CU_ASSERT_EQUAL(rv_rcu_read_unlock_leaf(), RV_RCU_UNLOCK_CALL);
	CU_ASSERT_EQUAL(reader_ctr(), nested);
	rcu_read_unlock();
	rcu_read_unlock();
	CU_ASSERT_EQUAL(reader_ctr(), before);
	if (reader_ctr() == before)
		synchronize_rcu(); /* no reader left: returns */
	else
		__atomic_store_n(&URCU_TLS(urcu_memb_reader).ctr, before, __ATOMIC_RELAXED);
}

RVTEST_SUITE(rcu, NULL, NULL, RVTEST(test_rcu_unlock_leaf_matches_liburcu))
RVTEST_SUITE(lockref, NULL, NULL, RVTEST(test_lockref_two_threads_exact),
	     RVTEST(test_lockref_fallback_counted), RVTEST(test_lockref_dead_and_zero))
RVTEST_SUITE(seqcount, NULL, NULL, RVTEST(test_seqcount_no_torn_pair), RVTEST(test_seqlock_basic))
RVTEST_SUITE(rwsem, NULL, NULL, RVTEST(test_rwsem_exclusion), RVTEST(test_rwsem_trylock_downgrade),
	     RVTEST(test_rwsem_writer_waits_for_reader))
RVTEST_SUITE(wait, NULL, NULL, RVTEST(test_completion_and_signal), RVTEST(test_wait_event))
RVTEST_SUITE(inject, NULL, NULL, RVTEST(test_inject_rendezvous_order),
	     RVTEST(test_inject_pause_release_callback_count))
RVTEST_SUITE(stats, NULL, NULL, RVTEST(test_stats_sum_exact),
	     RVTEST(test_stats_increment_after_fold))
RVTEST_SUITE(switches, NULL, NULL, RVTEST(test_switches_parse_format),
	     RVTEST(test_switches_vma_combinations))
RVTEST_SUITE(instance, NULL, NULL, RVTEST(test_task_fork_clone_hooks), RVTEST(test_instance_cycle),
	     RVTEST(test_rcu_report), RVTEST(test_rcu_callbacks_counted))
