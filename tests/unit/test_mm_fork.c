// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_mm_fork.c - fork: COW isolation, rmap walks finding every
 * mapping, vma_needs_copy, RSS counters exact in both rss_counters modes,
 * exit freeing everything, threads sharing an mm, and the VMA write locks
 * each fork_vma_lock mode takes.
 */
#include "test_mm_util.h"

#define BASE 0x20000000UL
#define RW   (PROT_READ | PROT_WRITE)

static void test_cow_isolation(void)
{
	struct task_struct *p = mmt_new_proc(), *c;
	struct mm_struct *pm = p->mm, *cm;
	struct folio *f;

	CU_ASSERT(mmt_map(pm, BASE, 8 * PG, RW) == (long)BASE);
	mmt_fill(BASE, 8 * PG, 10);
	c = task_fork(p);
	CU_ASSERT_FATAL(c != NULL);
	cm = c->mm;
	CU_ASSERT_FATAL(cm != NULL && cm != pm);
	CU_ASSERT(mm_map_count(cm) == 1);
	CU_ASSERT(mm_validate(cm) == 0);
	/* shared and write-protected on both sides */
	f = mm_folio_from_pte(mm_pte_read(pm, BASE));
	CU_ASSERT(mm_folio_from_pte(mm_pte_read(cm, BASE)) == f);
	CU_ASSERT(!pte_write(mm_pte_read(pm, BASE)) && !pte_write(mm_pte_read(cm, BASE)));
	CU_ASSERT(mm_folio_mapcount(f) == 2 && mm_folio_refcount(f) == 2);
	CU_ASSERT(mmt_check_mm(cm, BASE, 8 * PG, 10));
	/* the child's writes are invisible to the parent */
	mmt_fill_mm(cm, BASE, 4 * PG, 50);
	CU_ASSERT(mmt_check_mm(cm, BASE, 4 * PG, 50));
	CU_ASSERT(mmt_check_mm(pm, BASE, 8 * PG, 10));
	CU_ASSERT(mm_folio_mapcount(f) == 1);
	/* and the parent's to the child */
	mmt_fill_mm(pm, BASE + 4 * PG, 4 * PG, 90);
	CU_ASSERT(mmt_check_mm(cm, BASE + 4 * PG, 4 * PG, 14));
	CU_ASSERT(mmt_check_mm(pm, BASE + 4 * PG, 4 * PG, 90));
	/* the parent's first write to a page the child already copied
	 * reuses its folio (exclusive again) */
	{
		uint64_t reuse = mmt_stat("wp_reuses");
		unsigned char x = 1;

		CU_ASSERT(mm_access(pm, BASE, &x, 1, true) == 0);
		CU_ASSERT(mmt_stat("wp_reuses") == reuse + 1);
		CU_ASSERT(mm_folio_from_pte(mm_pte_read(pm, BASE)) == f);
	}
	CU_ASSERT(get_mm_counter(pm, MM_ANONPAGES) == 8);
	CU_ASSERT(get_mm_counter(cm, MM_ANONPAGES) == 8);
	mmt_exit(c);
	mmt_exit(p);
	CU_ASSERT(mmt_all_freed());
}

struct rmap_count {
	int n;
	struct mm_struct *mms[8];
};

static bool rmap_one(struct folio *folio, struct vm_area_struct *vma, unsigned long addr, void *arg)
{
	struct rmap_count *rc = arg;

	(void)folio;
	CU_ASSERT(addr == BASE + PG);
	if (rc->n < 8)
		rc->mms[rc->n] = vma->vm_mm;
	rc->n++;
	return true;
}

static void test_rmap_walk_fork(void)
{
	struct task_struct *p = mmt_new_proc(), *c[3], *gc;
	struct rmap_count rc = {0};
	struct folio *f;

	CU_ASSERT(mmt_map(p->mm, BASE, 4 * PG, RW) == (long)BASE);
	mmt_fill(BASE, 4 * PG, 1);
	f = mm_folio_from_pte(mm_pte_read(p->mm, BASE + PG));
	mm_folio_get(f);
	CU_ASSERT(rmap_walk(f, NULL, NULL) == 1);
	for (int i = 0; i < 3; i++) {
		c[i] = task_fork(p);
		CU_ASSERT_FATAL(c[i] != NULL);
	}
	gc = task_fork(c[1]);
	CU_ASSERT_FATAL(gc != NULL);
	CU_ASSERT(mm_folio_mapcount(f) == 5);
	CU_ASSERT(rmap_walk(f, rmap_one, &rc) == 5);
	CU_ASSERT(rc.n == 5);
	for (int i = 0; i < 5; i++) {
		struct mm_struct *m = rc.mms[i];

		CU_ASSERT(m == p->mm || m == c[0]->mm || m == c[1]->mm || m == c[2]->mm ||
			  m == gc->mm);
	}
	/* a child that writes gets its own folio and leaves the walk */
	mmt_fill_mm(c[0]->mm, BASE + PG, PG, 77);
	CU_ASSERT(rmap_walk(f, NULL, NULL) == 4);
	{
		struct folio *nf = mm_folio_from_pte(mm_pte_read(c[0]->mm, BASE + PG));

		CU_ASSERT(nf != f && rmap_walk(nf, NULL, NULL) == 1);
	}
	/* the grandchild's own new folio is found through its own anon_vma */
	mmt_fill_mm(gc->mm, BASE + 3 * PG, PG, 33);
	CU_ASSERT(rmap_walk(mm_folio_from_pte(mm_pte_read(gc->mm, BASE + 3 * PG)), NULL, NULL) ==
		  1);
	mmt_exit(c[1]);
	CU_ASSERT(rmap_walk(f, NULL, NULL) == 3);
	mmt_exit(gc);
	CU_ASSERT(rmap_walk(f, NULL, NULL) == 2);
	/* after a split the walk still finds the mapping in the right piece */
	CU_ASSERT(vm_mprotect(p->mm, BASE, PG, PROT_READ) == 0);
	CU_ASSERT(rmap_walk(f, NULL, NULL) == 2);
	mmt_exit(c[0]);
	mmt_exit(c[2]);
	CU_ASSERT(rmap_walk(f, NULL, NULL) == 1);
	mmt_exit(p);
	CU_ASSERT(rmap_walk(f, NULL, NULL) == 0);
	mm_folio_put(f);
	CU_ASSERT(mmt_all_freed());
}

static void test_fork_lazy_vmas(void)
{
	struct task_struct *p = mmt_new_proc(), *c;
	uint64_t forks;

	/* never written (no anon_vma): no page tables copied, the child
	 * faults lazily; a read-faulted zero page does not need copying */
	CU_ASSERT(mmt_map(p->mm, BASE, 4 * PG, RW) == (long)BASE);
	{
		unsigned char b;

		CU_ASSERT(rv_mm_read(BASE, &b, 1) == 0);
	}
	forks = mmt_stat("mm_forks");
	c = task_fork(p);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT(mmt_stat("mm_forks") == forks + 1);
	CU_ASSERT(mm_nr_ptes(c->mm) == 0);
	CU_ASSERT(mm_pte_read(c->mm, BASE) == 0);
	CU_ASSERT(mmt_check_mm(c->mm, BASE, PG, 0));
	/* VM_DONTCOPY VMAs are not inherited */
	mmap_write_lock(p->mm);
	vma_lookup(p->mm, BASE)->vm_flags |= VM_DONTCOPY;
	mmap_write_unlock(p->mm);
	{
		struct task_struct *c2 = task_fork(p);

		CU_ASSERT_FATAL(c2 != NULL);
		CU_ASSERT(mm_map_count(c2->mm) == 0);
		mmt_exit(c2);
	}
	mmt_exit(c);
	mmt_exit(p);
	CU_ASSERT(mmt_all_freed());
}

static void test_threads_share_mm(void)
{
	struct task_struct *p = mmt_new_proc(), *th;

	th = task_clone_thread(p);
	CU_ASSERT_FATAL(th != NULL);
	CU_ASSERT(th->mm == p->mm);
	CU_ASSERT(p->mm->mm_users == 2);
	CU_ASSERT(mmt_map(p->mm, BASE, PG, RW) == (long)BASE);
	mmt_fill(BASE, PG, 4);
	mmt_exit(p); /* the thread keeps the mm alive */
	CU_ASSERT(th->mm->mm_users == 1);
	CU_ASSERT(mmt_check_mm(th->mm, BASE, PG, 4));
	mmt_exit(th);
	CU_ASSERT(mmt_all_freed());
}

/* RSS exact, run once per rss_counters mode. */
static void test_rss_exact(void)
{
	struct task_struct *p = mmt_new_proc(), *c;
	struct mm_struct *pm = p->mm;

	CU_ASSERT(pm->rss_mode == rv_sw.rss_counters);
	CU_ASSERT(mmt_map(pm, BASE, 64 * PG, RW) == (long)BASE);
	{
		unsigned char b;

		for (int i = 0; i < 16; i++) /* zero pages: not counted */
			CU_ASSERT(rv_mm_read(BASE + 48 * PG + i * PG, &b, 1) == 0);
	}
	mmt_fill(BASE, 40 * PG, 0);
	CU_ASSERT(get_mm_counter(pm, MM_ANONPAGES) == 40);
	CU_ASSERT(get_mm_rss(pm) == 40);
	c = task_fork(p);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT(get_mm_counter(c->mm, MM_ANONPAGES) == 40);
	mmt_fill_mm(c->mm, BASE, 10 * PG, 1);	       /* COW: replaces, same count */
	mmt_fill_mm(c->mm, BASE + 48 * PG, 4 * PG, 1); /* over zero pages: +4 */
	CU_ASSERT(get_mm_counter(c->mm, MM_ANONPAGES) == 44);
	CU_ASSERT(get_mm_counter(pm, MM_ANONPAGES) == 40);
	CU_ASSERT(vm_munmap(pm, BASE, 20 * PG) == 0);
	CU_ASSERT(get_mm_counter(pm, MM_ANONPAGES) == 20);
	CU_ASSERT(vm_munmap(c->mm, BASE + 30 * PG, 34 * PG) == 0);
	CU_ASSERT(get_mm_counter(c->mm, MM_ANONPAGES) == 30);
	CU_ASSERT(get_mm_counter(c->mm, MM_FILEPAGES) == 0);
	mmt_exit(c);
	mmt_exit(p);
	CU_ASSERT(mmt_stat("mm_bad_rss") == 0);
	CU_ASSERT(mmt_all_freed());
}

/* Every VMA is write-locked by fork, or none, per fork_vma_lock. */
static void test_fork_vma_lock_mode(void)
{
	struct task_struct *p = mmt_new_proc(), *c, *th;
	const int n = 50;
	uint64_t before;
	long expect_single, expect_multi;

	for (int i = 0; i < n; i++)
		CU_ASSERT(mmt_map(p->mm, BASE + 2UL * i * PG, PG, RW) ==
			  (long)(BASE + 2UL * i * PG));
	mmt_fill(BASE, PG, 1);
	switch (rv_sw.fork_vma_lock) {
	case FORK_VMA_LOCK_ALWAYS:
		expect_single = n;
		expect_multi = n;
		break;
	case FORK_VMA_LOCK_ELIDE_SINGLE:
		expect_single = 0;
		expect_multi = n;
		break;
	default:
		expect_single = 0;
		expect_multi = 0;
	}
	/* single-threaded parent */
	before = mmt_stat("vma_write_locks");
	c = task_fork(p);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT((long)(mmt_stat("vma_write_locks") - before) == expect_single);
	CU_ASSERT(mmt_check_mm(c->mm, BASE, PG, 1));
	mmt_exit(c);
	/* multithreaded parent */
	th = task_clone_thread(p);
	CU_ASSERT_FATAL(th != NULL);
	before = mmt_stat("vma_write_locks");
	c = task_fork(p);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT((long)(mmt_stat("vma_write_locks") - before) == expect_multi);
	CU_ASSERT(mm_map_count(c->mm) == n);
	mmt_exit(c);
	mmt_exit(th);
	mmt_exit(p);
	CU_ASSERT(mmt_all_freed());
}

/* Fork while another thread of the parent keeps writing its memory. */
struct writer_arg {
	unsigned long addr;
	int stop;    /* atomic */
	long writes; /* atomic */
	long failed; /* writes that returned an error (the main thread asserts 0) */
};

static void *busy_writer(void *p)
{
	struct writer_arg *w = p;
	unsigned char v = 0;

	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE) && w->writes < 2000000) {
		if (rv_mm_write(w->addr + (unsigned long)(w->writes % 8) * PG, &v, 1))
			w->failed++;
		__atomic_store_n(&w->writes, w->writes + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void test_fork_with_concurrent_writer(void)
{
	struct task_struct *p = mmt_new_proc(), *th;
	struct writer_arg w = {.addr = BASE + 64 * PG};
	struct mmt_thread mt;

	CU_ASSERT(mmt_map(p->mm, BASE, 128 * PG, RW) == (long)BASE);
	mmt_fill(BASE, 64 * PG, 5);
	th = task_clone_thread(p);
	CU_ASSERT_FATAL(th != NULL);
	mmt_thread_start(&mt, th, busy_writer, &w);
	/* the writer is running before the first fork (bounded wait) */
	for (long i = 0; !__atomic_load_n(&w.writes, __ATOMIC_ACQUIRE); i++) {
		CU_ASSERT_FATAL(i < 100000000);
		sched_yield();
	}
	for (int i = 0; i < 20; i++) {
		struct task_struct *c = task_fork(p);

		CU_ASSERT_FATAL(c != NULL);
		CU_ASSERT(mm_validate(c->mm) == 0);
		CU_ASSERT(mmt_check_mm(c->mm, BASE, 64 * PG, 5));
		mmt_exit(c);
	}
	__atomic_store_n(&w.stop, 1, __ATOMIC_RELEASE);
	mmt_thread_join(&mt);
	CU_ASSERT(w.writes > 0);
	CU_ASSERT_EQUAL(w.failed, 0);
	mmt_exit(th);
	mmt_exit(p);
	CU_ASSERT(mmt_all_freed());
}

/*
 * A fork whose page-table allocation fails part way through a VMA: the
 * parent's VMA spans two page tables, the child's first table is
 * allocated (fail_alloc counts pt_page allocations: two for the parent,
 * the child's first is the third) and its second fails.  The child's
 * counters must cover the PTEs copied into the first table, so that the
 * failed fork's teardown brings them back to zero (copy_pte_range's
 * add_mm_rss_vec per table); counted for the whole VMA after the loop, the
 * error return skips them and teardown leaves them negative.
 */
static void test_fork_pt_alloc_fails_rss(void)
{
	struct task_struct *p = mmt_new_proc(), *c;
	struct mm_struct *pm = p->mm;
	unsigned long base = 4 * PGDIR_SIZE;
	uint64_t bad = mmt_stat("mm_bad_rss");

	CU_ASSERT(mmt_map(pm, base, 2 * PGDIR_SIZE, RW) == (long)base);
	mmt_fill(base, 3 * PG, 1);
	mmt_fill(base + PGDIR_SIZE, 2 * PG, 4);
	CU_ASSERT(mm_nr_ptes(pm) == 2);
	c = task_fork(p); /* the child's second page table: fail_alloc nth:4 */
	CU_ASSERT(c == NULL);
	CU_ASSERT(rv_fail_alloc_injected() == 1);
	if (c)
		mmt_exit(c);
	CU_ASSERT_EQUAL(mmt_stat("mm_bad_rss"), bad);
	CU_ASSERT(get_mm_counter(pm, MM_ANONPAGES) == 5);
	CU_ASSERT(mmt_check(base, 3 * PG, 1) && mmt_check(base + PGDIR_SIZE, 2 * PG, 4));
	mmt_exit(p);
	CU_ASSERT(mmt_all_freed());
}

/*
 * In a forked child, an inherited VMA with anonymous pages is a fork child
 * (two anon_vma_chain links): an anon_vma-less neighbour does not merge
 * with it, neither one made compatible by mprotect nor a new mmap next to
 * it (is_mergeable_anon_vma, Linux 6.18).  The parent, whose VMAs have one
 * link, merges both.  The host kernel runs the same script when it can.
 *   [X1 rw, written][Y1 r]  ..  [X2 rw, written]  then
 *   mprotect(Y1, rw); mmap(rw, fixed, right after X2)
 * out: VMAs in [X1, Y1 end) and [X2, new end), in the child then the parent.
 */
static void fork_merge_script_setup(unsigned long w, bool host, struct mm_struct *mm)
{
	if (host) {
		mmap((void *)w, 2 * PG, RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		mmap((void *)(w + 2 * PG), 2 * PG, PROT_READ,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		mmap((void *)(w + 8 * PG), 2 * PG, RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
		     0);
		memset((void *)w, 1, 2 * PG);
		memset((void *)(w + 8 * PG), 2, 2 * PG);
		return;
	}
	CU_ASSERT(mmt_map(mm, w, 2 * PG, RW) == (long)w);
	CU_ASSERT(mmt_map(mm, w + 2 * PG, 2 * PG, PROT_READ) == (long)(w + 2 * PG));
	CU_ASSERT(mmt_map(mm, w + 8 * PG, 2 * PG, RW) == (long)(w + 8 * PG));
	mmt_fill_mm(mm, w, 2 * PG, 1);
	mmt_fill_mm(mm, w + 8 * PG, 2 * PG, 2);
}

static void fork_merge_script_ops(unsigned long w, bool host, struct mm_struct *mm, long *out)
{
	if (host) {
		mprotect((void *)(w + 2 * PG), 2 * PG, RW);
		mmap((void *)(w + 10 * PG), PG, RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		out[0] = mmt_host_count_vmas(w, w + 4 * PG);
		out[1] = mmt_host_count_vmas(w + 8 * PG, w + 11 * PG);
		return;
	}
	CU_ASSERT(vm_mprotect(mm, w + 2 * PG, 2 * PG, RW) == 0);
	CU_ASSERT(mmt_map(mm, w + 10 * PG, PG, RW) == (long)(w + 10 * PG));
	out[0] = mmt_count_vmas(mm, w, w + 4 * PG);
	out[1] = mmt_count_vmas(mm, w + 8 * PG, w + 11 * PG);
}

static int host_fork_merge(long *out, int n)
{
	unsigned long w = mmt_host_window(16);
	long *shared = mmap(NULL, PG, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t c;
	int st;

	if (!w || shared == MAP_FAILED || n != 4)
		return 1;
	fork_merge_script_setup(w, true, NULL);
	c = fork();
	if (c == 0) {
		fork_merge_script_ops(w, true, NULL, shared);
		_exit(0);
	}
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	out[0] = shared[0];
	out[1] = shared[1];
	fork_merge_script_ops(w, true, NULL, out + 2);
	return 0;
}

static void test_fork_child_no_merge(void)
{
	struct task_struct *p = mmt_new_proc(), *c;
	long m[4], h[4];

	fork_merge_script_setup(BASE, false, p->mm);
	c = task_fork(p);
	CU_ASSERT_FATAL(c != NULL);
	fork_merge_script_ops(BASE, false, c->mm, m);
	fork_merge_script_ops(BASE, false, p->mm, m + 2);
	/* the model's own answer, whatever the host */
	CU_ASSERT(m[0] == 2 && m[1] == 2); /* child: kept apart */
	CU_ASSERT(m[2] == 1 && m[3] == 1); /* parent: merged */
	if (mmt_host_run(host_fork_merge, h, 4) == 0) {
		if (memcmp(h, m, sizeof(h)))
			printf("\n  host %ld %ld %ld %ld, model %ld %ld %ld %ld\n", h[0], h[1],
			       h[2], h[3], m[0], m[1], m[2], m[3]);
		CU_ASSERT(memcmp(h, m, sizeof(h)) == 0);
	} else {
		printf("\n  host oracle unavailable: model only\n");
	}
	CU_ASSERT(mmt_check_mm(c->mm, BASE, 2 * PG, 1) &&
		  mmt_check_mm(c->mm, BASE + 8 * PG, 2 * PG, 2));
	mmt_exit(c);
	mmt_exit(p);
	CU_ASSERT(mmt_all_freed());
}

static int init_fail_pt(void)
{
	static const char *const s[] = {"fail_alloc=nth:4:pt_page", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

static int init_single(void)
{
	static const char *const s[] = {"rss_counters=single", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}
static int init_group(void)
{
	static const char *const s[] = {"rss_counters=group", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

RVTEST_SUITE(mm_fork, rvtest_instance_init, rvtest_instance_cleanup, RVTEST(test_cow_isolation),
	     RVTEST(test_rmap_walk_fork), RVTEST(test_fork_lazy_vmas),
	     RVTEST(test_threads_share_mm), RVTEST(test_fork_with_concurrent_writer),
	     RVTEST(test_fork_child_no_merge))
RVTEST_SUITE(mm_fork_fail_pt, init_fail_pt, rvtest_instance_cleanup,
	     RVTEST(test_fork_pt_alloc_fails_rss))
RVTEST_SUITE(mm_rss_single, init_single, rvtest_instance_cleanup, RVTEST(test_rss_exact))
RVTEST_SUITE(mm_rss_group, init_group, rvtest_instance_cleanup, RVTEST(test_rss_exact))
MMT_VMA_SUITES(mm_fork_lock_always, "fork_vma_lock=always", RVTEST(test_fork_vma_lock_mode))
MMT_VMA_SUITES(mm_fork_lock_elide, "fork_vma_lock=elide-single", RVTEST(test_fork_vma_lock_mode))
MMT_VMA_SUITES(mm_fork_lock_never, "fork_vma_lock=never", RVTEST(test_fork_vma_lock_mode))
