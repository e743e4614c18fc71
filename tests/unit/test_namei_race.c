// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_namei_race.c - races of the lockless paths, made
 * deterministic with injection points (a reader parks at a named point in
 * the middle of its RCU walk or folio lookup while the test thread changes
 * the namespace or truncates, then releases it), plus bounded free-running
 * loops whose *outcome* is checked (never a wrong inode, never ENOENT for a
 * rename-over target, counts balanced).  No test depends on timing.
 */
#include "rvtest.h"
#include "vfs/vfs.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define OK(x)	  CU_ASSERT_EQUAL((x), 0)
#define ERR(x, e) CU_ASSERT_EQUAL((x), -(e))
#define WAIT_MS	  10000

static uint64_t ino_of(const char *path)
{
	struct kstat st;

	return vfs_lstat(path, &st) ? 0 : st.ino;
}

static int touch(const char *path)
{
	struct file *f;
	int err = filp_open(path, O_CREAT | O_RDWR, 0644, &f);

	if (!err)
		fput(f);
	return err;
}

struct thread {
	pthread_t tid;
	void *(*fn)(void *);
	void *arg;
};

static void *thread_main(void *p)
{
	struct thread *t = p;
	void *ret;

	rv_rcu_ensure();
	ret = t->fn(t->arg);
	kmem_cache_flush_thread();
	return ret;
}

static void thread_start(struct thread *t, void *(*fn)(void *), void *arg)
{
	t->fn = fn;
	t->arg = arg;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t->tid, NULL, thread_main, t), 0);
}

static void thread_join(struct thread *t)
{
	pthread_join(t->tid, NULL);
}

struct stat_req {
	const char *path;
	unsigned int flags;
	int err;
	uint64_t ino;
};

static void *stat_thread(void *p)
{
	struct stat_req *r = p;
	struct dentry *d;

	r->err = kern_path(r->path, r->flags, &d);
	if (!r->err) {
		struct kstat st;

		vfs_getattr(d->d_inode, &st);
		r->ino = st.ino;
		dput(d);
	}
	return NULL;
}

/*
 * The reader found the old target's dentry in RCU mode and parks; the
 * rename completes (the old target dies); the reader's legitimization fails
 * and the reference walk returns the renamed file: never ENOENT, never the
 * dead inode.
 */
static void test_rcu_walk_vs_rename_over(void)
{
	struct stat_req r = {"/rr_tgt", LOOKUP_FOLLOW, -1, 0};
	struct thread t;
	uint64_t src, fallbacks = rvtest_stat("namei_rcu_fallbacks");

	OK(touch("/rr_src"));
	OK(touch("/rr_tgt"));
	src = ino_of("/rr_src");
	OK(rv_inject_set_pause("walk_rcu_after_lookup", 1));
	thread_start(&t, stat_thread, &r);
	OK(rv_inject_wait_arrivals("walk_rcu_after_lookup", 1, WAIT_MS));
	OK(do_rename("/rr_src", "/rr_tgt", 0));
	rv_inject_release("walk_rcu_after_lookup");
	thread_join(&t);
	rv_inject_clear("walk_rcu_after_lookup");
	CU_ASSERT_EQUAL(r.err, 0);
	CU_ASSERT_EQUAL(r.ino, src);
	CU_ASSERT(rvtest_stat("namei_rcu_fallbacks") > fallbacks);
	OK(do_unlink("/rr_tgt"));
}

/* The reader parks on a dentry that is then unlinked: ENOENT, not the
 * removed inode's attributes through a stale dentry; both with the dentry
 * turned negative (unused) and dropped (held open). */
static void test_rcu_walk_vs_unlink(void)
{
	for (int held = 0; held < 2; held++) {
		struct stat_req r = {"/ru_f", LOOKUP_FOLLOW, 1, 0};
		struct thread t;
		struct file *f = NULL;

		OK(touch("/ru_f"));
		if (held)
			OK(filp_open("/ru_f", O_RDONLY, 0, &f));
		OK(rv_inject_set_pause("walk_rcu_after_lookup", 1));
		thread_start(&t, stat_thread, &r);
		OK(rv_inject_wait_arrivals("walk_rcu_after_lookup", 1, WAIT_MS));
		OK(do_unlink("/ru_f"));
		rv_inject_release("walk_rcu_after_lookup");
		thread_join(&t);
		rv_inject_clear("walk_rcu_after_lookup");
		CU_ASSERT_EQUAL(r.err, -ENOENT);
		if (f)
			fput(f);
	}
}

/* ".." in RCU mode after a cross-directory rename of the directory it
 * climbs out of: without validating that directory's d_seq (and
 * s_rename_lock) the walker would follow the moved dentry's new parent and
 * return a file that was never at that path (the test fails with the
 * validation removed).  The reader parks (callback at its second RCU step, on "pb") while
 * /pa/pb moves to /pc/pb; it must answer ENOENT (the walk redone after the
 * rename), never /pc/x. */
static int dd_hits, dd_arrived, dd_release;

static void dotdot_park_cb(void *arg)
{
	uint64_t deadline = rv_now_ns() + (uint64_t)WAIT_MS * 1000000;

	if (++dd_hits != 2)
		return;
	__atomic_store_n(&dd_arrived, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&dd_release, __ATOMIC_ACQUIRE) && rv_now_ns() < deadline)
		cpu_relax();
}

static void test_rcu_dotdot_vs_rename(void)
{
	struct stat_req r = {"/pa/pb/../x", LOOKUP_FOLLOW, 1, 0};
	struct thread t;
	uint64_t deadline;

	OK(do_mkdir("/pa", 0755));
	OK(do_mkdir("/pa/pb", 0755));
	OK(do_mkdir("/pc", 0755));
	OK(touch("/pa/x"));
	OK(touch("/pc/x"));
	dd_hits = dd_arrived = dd_release = 0;
	OK(rv_inject_set_callback("walk_rcu_after_lookup", dotdot_park_cb, NULL, 2));
	thread_start(&t, stat_thread, &r);
	deadline = rv_now_ns() + (uint64_t)WAIT_MS * 1000000;
	while (!__atomic_load_n(&dd_arrived, __ATOMIC_ACQUIRE) && rv_now_ns() < deadline)
		sched_yield();
	CU_ASSERT(dd_arrived);
	OK(do_rename("/pa/pb", "/pc/pb", 0));
	__atomic_store_n(&dd_release, 1, __ATOMIC_RELEASE);
	thread_join(&t);
	rv_inject_clear("walk_rcu_after_lookup");
	CU_ASSERT_EQUAL(r.err, -ENOENT);
	CU_ASSERT_NOT_EQUAL(r.ino, ino_of("/pc/x"));
	OK(do_rmdir("/pc/pb"));
	OK(do_unlink("/pc/x"));
	OK(do_unlink("/pa/x"));
	OK(do_rmdir("/pc"));
	OK(do_rmdir("/pa"));
}

/* Inside d_move's window neither the old nor the new name is hashed: a
 * lockless lookup misses there, and s_rename_lock shows a writer, which is
 * what makes d_lookup retry instead of reporting ENOENT. */
static int window_checked, window_missed, window_seq_odd;

static void d_move_window_cb(void *arg)
{
	struct dentry *root = rv_sb->s_root;
	uint32_t seq;

	rcu_read_lock();
	window_missed = __d_lookup_rcu(root, "rw_tgt", 6, &seq) == NULL &&
			__d_lookup_rcu(root, "rw_src", 6, &seq) == NULL;
	rcu_read_unlock();
	window_seq_odd = raw_read_seqcount(&rv_sb->s_rename_lock.seqcount) & 1;
	window_checked = 1;
}

static void test_rename_window_seqlock(void)
{
	OK(touch("/rw_src"));
	OK(touch("/rw_tgt"));
	OK(rv_inject_set_callback("d_move_unhashed", d_move_window_cb, NULL, 1));
	OK(do_rename("/rw_src", "/rw_tgt", 0));
	rv_inject_clear("d_move_unhashed");
	CU_ASSERT(window_checked);
	CU_ASSERT(window_missed);
	CU_ASSERT(window_seq_odd);
	OK(do_unlink("/rw_tgt"));
}

/* Free-running: one task renames fresh files over a name, another stats the
 * name; a bounded number of rounds; the outcome is checked. */
enum { ROUNDS = 3000 };
static uint64_t created_inos[ROUNDS + 1];
static int renamer_done;

static void *renamer(void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		if (touch("/rs_src"))
			break;
		created_inos[i + 1] = ino_of("/rs_src");
		if (do_rename("/rs_src", "/rs_tgt", 0))
			break;
	}
	__atomic_store_n(&renamer_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

struct seen {
	uint64_t *inos;
	long n, enoent, other_err;
};

static void *stat_loop(void *arg)
{
	struct seen *s = arg;
	long i = 0;

	while (!__atomic_load_n(&renamer_done, __ATOMIC_ACQUIRE) && i < 20 * ROUNDS) {
		struct stat_req r = {"/rs_tgt", (i & 1) ? LOOKUP_NORCU : 0, 0, 0};

		stat_thread(&r);
		if (r.err == -ENOENT)
			s->enoent++;
		else if (r.err)
			s->other_err++;
		else
			s->inos[s->n++] = r.ino;
		i++;
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_lookup_vs_rename_stress(void)
{
	struct seen s = {0};
	struct thread a, b;
	long wrong = 0;

	s.inos = calloc(20 * ROUNDS, sizeof(uint64_t));
	OK(touch("/rs_tgt"));
	created_inos[0] = ino_of("/rs_tgt");
	renamer_done = 0;
	thread_start(&a, renamer, NULL);
	thread_start(&b, stat_loop, &s);
	thread_join(&a);
	thread_join(&b);
	qsort(created_inos, ROUNDS + 1, sizeof(uint64_t), cmp_u64);
	for (long i = 0; i < s.n; i++)
		if (!bsearch(&s.inos[i], created_inos, ROUNDS + 1, sizeof(uint64_t), cmp_u64))
			wrong++;
	CU_ASSERT_EQUAL(s.enoent, 0);
	CU_ASSERT_EQUAL(s.other_err, 0);
	CU_ASSERT_EQUAL(wrong, 0);
	printf("\n    [%ld stats beside %d renames: %ld ENOENT, %ld wrong inodes]\n", s.n, ROUNDS,
	       s.enoent, wrong);
	free(s.inos);
	OK(do_unlink("/rs_tgt"));
}

/* lockref get/put of one hot dentry from 2 threads: the count balances. */
enum { HOT_ITERS = 100000 };
static long hot_stat_errors; /* atomic; the main thread asserts 0 */

static void *hot_loop(void *arg)
{
	struct dentry *d = arg;

	for (int i = 0; i < HOT_ITERS; i++) {
		dget(d);
		dput(d);
	}
	for (int i = 0; i < HOT_ITERS / 10; i++) {
		struct stat_req r = {"/hot", 0, 0, 0};

		stat_thread(&r);
		if (r.err)
			__atomic_fetch_add(&hot_stat_errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void hot_dentry_round(void)
{
	struct thread a, b;
	struct dentry *d;
	int before;

	OK(touch("/hot"));
	OK(kern_path("/hot", 0, &d));
	before = d->d_lockref.count;
	CU_ASSERT_EQUAL(before, 2); /* persistent pin + ours */
	hot_stat_errors = 0;
	thread_start(&a, hot_loop, d);
	thread_start(&b, hot_loop, d);
	thread_join(&a);
	thread_join(&b);
	CU_ASSERT_EQUAL(hot_stat_errors, 0);
	CU_ASSERT_EQUAL(d->d_lockref.count, before);
	CU_ASSERT_FALSE(spin_is_locked(&d->d_lockref.lock));
	dput(d);
	OK(do_unlink("/hot"));
}

static void test_lockref_hot_dentry(void)
{
	static const char *const relax[] = {"lockref_relax=1", NULL};

	hot_dentry_round();
	printf("\n    [lockref_relax=0: lockref_fallbacks %llu]",
	       (unsigned long long)rvtest_stat("lockref_fallbacks"));
	CU_ASSERT_EQUAL_FATAL(rv_instance_destroy(), 0);
	CU_ASSERT_EQUAL_FATAL(rvtest_instance_with(relax), 0);
	hot_dentry_round();
	printf(" [lockref_relax=1: lockref_fallbacks %llu]\n",
	       (unsigned long long)rvtest_stat("lockref_fallbacks"));
	CU_ASSERT_EQUAL_FATAL(rv_instance_destroy(), 0);
	CU_ASSERT_EQUAL_FATAL(rv_instance_create(NULL), 0);
}

/* Folio lookup racing truncate: the reader loaded the slot, parks before
 * folio_try_get; the folio is truncated away, freed, and its memory reused
 * for another file; the reader must not return it. */
struct folio_req {
	struct address_space *m;
	struct folio *result;
};

static void *folio_lookup_thread(void *p)
{
	struct folio_req *r = p;

	r->result = filemap_get_folio(r->m, 0);
	return NULL;
}

static void test_folio_lookup_vs_truncate(void)
{
	static char page[PAGE_SIZE];
	struct file *f, *g;
	struct folio_req r;
	struct thread t;
	struct folio *old, *now;
	uint64_t retries = rvtest_stat("filemap_get_folio_retries");
	int64_t pos;

	CU_ASSERT_EQUAL_FATAL(filp_open("/ft_a", O_CREAT | O_RDWR, 0644, &f), 0);
	CU_ASSERT_EQUAL_FATAL(filp_open("/ft_b", O_CREAT | O_RDWR, 0644, &g), 0);
	memset(page, 'a', sizeof(page));
	pos = 0;
	CU_ASSERT_EQUAL(vfs_write(f, page, PAGE_SIZE, &pos), PAGE_SIZE);
	old = filemap_get_folio(f->f_mapping, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(old);
	folio_put(old);

	/* 1: truncated and recycled for another mapping -> NULL */
	r.m = f->f_mapping;
	r.result = (struct folio *)1;
	OK(rv_inject_set_pause("filemap_get_folio_before_get", 1));
	thread_start(&t, folio_lookup_thread, &r);
	OK(rv_inject_wait_arrivals("filemap_get_folio_before_get", 1, WAIT_MS));
	OK(vfs_truncate(f->f_inode, 0));
	memset(page, 'b', sizeof(page));
	pos = 0;
	CU_ASSERT_EQUAL(vfs_write(g, page, PAGE_SIZE, &pos), PAGE_SIZE);
	now = filemap_get_folio(g->f_mapping, 0);
	/* the race this case is about: the freed folio's memory now caches
	 * the other file's page (the slab hands this thread back the object
	 * it freed last); the parked reader holds a pointer to it */
	CU_ASSERT_PTR_EQUAL(now, old);
	rv_inject_release("filemap_get_folio_before_get");
	thread_join(&t);
	rv_inject_clear("filemap_get_folio_before_get");
	CU_ASSERT_PTR_NULL(r.result);
	CU_ASSERT(rvtest_stat("filemap_get_folio_retries") > retries);
	CU_ASSERT_EQUAL(folio_ref_count(now), 2); /* cache + ours: no stray get */
	CU_ASSERT_EQUAL(((char *)now->data)[0], 'b');
	folio_put(now);

	/* 2: truncated and rewritten at the same index -> the new folio */
	memset(page, 'c', sizeof(page));
	pos = 0;
	CU_ASSERT_EQUAL(vfs_write(f, page, PAGE_SIZE, &pos), PAGE_SIZE);
	r.result = NULL;
	OK(rv_inject_set_pause("filemap_get_folio_before_get", 1));
	thread_start(&t, folio_lookup_thread, &r);
	OK(rv_inject_wait_arrivals("filemap_get_folio_before_get", 1, WAIT_MS));
	OK(vfs_truncate(f->f_inode, 0));
	memset(page, 'd', sizeof(page));
	pos = 0;
	CU_ASSERT_EQUAL(vfs_write(f, page, PAGE_SIZE, &pos), PAGE_SIZE);
	rv_inject_release("filemap_get_folio_before_get");
	thread_join(&t);
	rv_inject_clear("filemap_get_folio_before_get");
	now = filemap_get_folio(f->f_mapping, 0);
	CU_ASSERT_PTR_EQUAL(r.result, now);
	if (r.result) {
		CU_ASSERT_PTR_EQUAL(r.result->mapping, f->f_mapping);
		CU_ASSERT_EQUAL(((char *)r.result->data)[0], 'd');
		folio_put(r.result);
	}
	if (now)
		folio_put(now);
	fput(f);
	fput(g);
	OK(do_unlink("/ft_a"));
	OK(do_unlink("/ft_b"));
}

/* Free-running: readers look folios up while a writer truncates and
 * rewrites; every folio returned belongs to the mapping at that index. */
static int trunc_done;
static struct file *trunc_file;

static void *trunc_writer(void *arg)
{
	static char page[2 * PAGE_SIZE];

	memset(page, 'w', sizeof(page));
	for (int i = 0; i < 2000; i++) {
		int64_t pos = 0;

		vfs_write(trunc_file, page, sizeof(page), &pos);
		vfs_truncate(trunc_file->f_inode, (i & 1) ? 100 : 0);
	}
	__atomic_store_n(&trunc_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *trunc_reader(void *arg)
{
	long *bad = arg;
	long n = 0;

	while (!__atomic_load_n(&trunc_done, __ATOMIC_ACQUIRE) && n < 2000000) {
		int64_t idx = n & 1;
		struct folio *f = filemap_get_folio(trunc_file->f_mapping, idx);

		if (f) {
			if (f->index != idx || folio_ref_count(f) < 1)
				(*bad)++;
			folio_put(f);
		}
		n++;
	}
	return NULL;
}

static void test_folio_lookup_vs_truncate_stress(void)
{
	struct thread a, b;
	long bad = 0;
	long folios = folio_count_live();

	CU_ASSERT_EQUAL_FATAL(filp_open("/fts", O_CREAT | O_RDWR, 0644, &trunc_file), 0);
	trunc_done = 0;
	thread_start(&a, trunc_writer, NULL);
	thread_start(&b, trunc_reader, &bad);
	thread_join(&a);
	thread_join(&b);
	CU_ASSERT_EQUAL(bad, 0);
	OK(vfs_truncate(trunc_file->f_inode, 0));
	CU_ASSERT_EQUAL(folio_count_live(), folios);
	fput(trunc_file);
	OK(do_unlink("/fts"));
}

/* Free-running: two tasks create, look up (both RCU and reference mode,
 * racing on the same missing names, so both allocate negative dentries for
 * one name: cds_lfht_add_unique decides) and unlink in one directory.  The
 * outcome: every call returns what the namespace allows, and the directory
 * ends empty with balanced counts. */
static long churn_bad;

static void *churn(void *arg)
{
	long me = (long)arg;
	char mine[64], other[64], shared[64];
	struct kstat st;

	for (int i = 0; i < 1500; i++) {
		int e;

		snprintf(mine, sizeof(mine), "/ch/t%ld_%d", me, i);
		snprintf(other, sizeof(other), "/ch/t%ld_%d", 1 - me, i);
		snprintf(shared, sizeof(shared), "/ch/missing%d", i);
		if (kern_path(shared, (i & 1) ? LOOKUP_NORCU : 0, &(struct dentry *){NULL}) !=
		    -ENOENT)
			__atomic_fetch_add(&churn_bad, 1, __ATOMIC_RELAXED);
		if (touch(mine))
			__atomic_fetch_add(&churn_bad, 1, __ATOMIC_RELAXED);
		e = vfs_stat(other, &st); /* may or may not exist yet */
		if (e && e != -ENOENT)
			__atomic_fetch_add(&churn_bad, 1, __ATOMIC_RELAXED);
		if (vfs_stat(mine, &st) || do_unlink(mine))
			__atomic_fetch_add(&churn_bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_create_lookup_unlink_churn(void)
{
	struct thread a, b;
	struct dentry *d;

	OK(do_mkdir("/ch", 0755));
	churn_bad = 0;
	thread_start(&a, churn, (void *)0L);
	thread_start(&b, churn, (void *)1L);
	thread_join(&a);
	thread_join(&b);
	CU_ASSERT_EQUAL(churn_bad, 0);
	OK(kern_path("/ch", 0, &d));
	CU_ASSERT_EQUAL(d->d_inode->i_nr_children, 0);
	CU_ASSERT_EQUAL(d->d_inode->i_nlink, 2);
	dput(d);
	OK(do_rmdir("/ch"));
}

RVTEST_SUITE(namei_race, rvtest_instance_init, rvtest_instance_cleanup,
	     RVTEST(test_rcu_walk_vs_rename_over), RVTEST(test_rcu_walk_vs_unlink),
	     RVTEST(test_rcu_dotdot_vs_rename), RVTEST(test_rename_window_seqlock),
	     RVTEST(test_lookup_vs_rename_stress), RVTEST(test_lockref_hot_dentry),
	     RVTEST(test_folio_lookup_vs_truncate), RVTEST(test_folio_lookup_vs_truncate_stress),
	     RVTEST(test_create_lookup_unlink_churn));
