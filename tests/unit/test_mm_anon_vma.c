// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_mm_anon_vma.c - a fault that needs an anon_vma against
 * split and merge (mprotect, munmap, mmap extending a neighbour).
 *
 * A first-touch write fault on a VMA without an anon_vma is parked after
 * its lockless PTE read (handle_pte_fault) while another thread of the
 * process changes the VMA's bounds; the test releases the fault once the
 * changer has reached the VMA write lock it needs (vma_start_write, the
 * n-th VMA it write-locks).  Linux never lets such a fault prepare an
 * anon_vma under the per-VMA lock alone: 6.4's lock_vma_under_rcu refuses
 * the VMA (anon_vma_fault=refuse), 6.7+'s vmf_anon_prepare takes mmap_lock
 * for read or returns VM_FAULT_RETRY (anon_vma_fault=retry, the default);
 * and split/merge write-lock every VMA before they read its anon_vma.
 * Where the model did otherwise, the changer read anon_vma == NULL, the
 * fault then assigned one and mapped a folio under it, and the change
 * left the folio in a VMA that is not on its anon_vma (split: rmap finds
 * no mapping, a forked child reads zeros) or freed its anon_vma (merge:
 * rmap_walk reads freed memory).  Checked from outside: rmap_walk finds
 * each folio at its address, a child forked afterwards reads the data,
 * and mm_check is clean.
 */
#include "test_mm_util.h"

#include <sched.h>

#define BASE	0x20000000UL
#define RW	(PROT_READ | PROT_WRITE)
#define WAIT_MS 20000

struct anon_race {
	struct mm_struct *mm;
	int (*change)(struct mm_struct *mm); /* the bounds change under test */
	int locks_before;		     /* VMA write locks it takes before the contended one */
	unsigned long fault_addr;
	int change_ret, fault_ret;
};

static void *fault_fn(void *p)
{
	struct anon_race *r = p;
	unsigned char v = 0x5A;

	r->fault_ret = rv_mm_write(r->fault_addr, &v, 1);
	return NULL;
}

static void *change_fn(void *p)
{
	struct anon_race *r = p;

	r->change_ret = r->change(r->mm);
	return NULL;
}

/* Run the parked fault against r->change; both joined on return. */
static void anon_race_run(struct task_struct *t, struct anon_race *r)
{
	struct task_struct *tf = task_clone_thread(t), *tc = task_clone_thread(t);
	struct mmt_thread fth, cth;
	uint64_t misses = mmt_stat("vma_lock_misses");
	bool refuse = rv_sw.anon_vma_fault == ANON_VMA_FAULT_REFUSE;

	CU_ASSERT_FATAL(tf && tc);
	r->mm = t->mm;
	CU_ASSERT(rv_inject_set_pause("handle_pte_fault", 1) == 0);
	CU_ASSERT(rv_inject_set_delay("vma_start_write", 0, 0) == 0); /* count arrivals */
	mmt_thread_start(&fth, tf, fault_fn, r);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("handle_pte_fault", 1, WAIT_MS) == 0);
	if (refuse) {
		/* 6.4: the VMA has no anon_vma, so the fault runs under
		 * mmap_lock; the change waits for it on mmap_lock */
		CU_ASSERT(mmt_stat("vma_lock_misses") == misses + 1);
		mmt_thread_start(&cth, tc, change_fn, r);
	} else {
		/* the fault holds the VMA's read lock: the change reaches the
		 * write lock of the faulting VMA and waits there */
		CU_ASSERT(mmt_stat("vma_lock_misses") == misses);
		mmt_thread_start(&cth, tc, change_fn, r);
		CU_ASSERT_FATAL(
		    rv_inject_wait_arrivals("vma_start_write", r->locks_before + 1, WAIT_MS) == 0);
	}
	rv_inject_release("handle_pte_fault");
	mmt_thread_join(&fth);
	mmt_thread_join(&cth);
	rv_inject_clear_all();
	CU_ASSERT(r->fault_ret == 0);
	CU_ASSERT(r->change_ret == 0);
	mmt_exit(tc);
	mmt_exit(tf);
}

/* rmap_walk finds the anonymous folio mapped at addr exactly once. */
static int rmap_count_at(struct mm_struct *mm, unsigned long addr)
{
	pte_t pte = mm_pte_read(mm, addr);
	struct folio *f;
	int n;

	if (!pte_present(pte) || pte_special(pte))
		return -1;
	f = mm_folio_from_pte(pte);
	mm_folio_get(f);
	rcu_barrier(); /* an anon_vma freed by the change is really gone */
	n = rmap_walk(f, NULL, NULL);
	mm_folio_put(f);
	return n;
}

/* A child forked now reads `val` at addr, as the parent does. */
static void check_fork_reads(struct task_struct *t, unsigned long addr, unsigned char val)
{
	struct task_struct *c = task_fork(t);
	unsigned char v = 0;

	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT(mm_access(t->mm, addr, &v, 1, false) == 0 && v == val);
	v = 0;
	CU_ASSERT(mm_access(c->mm, addr, &v, 1, false) == 0);
	CU_ASSERT_EQUAL(v, val);
	mmt_exit(c);
}

/* ---- split: the fault's page ends up in the new VMA ------------------ */

static int change_mprotect_low(struct mm_struct *mm)
{
	return vm_mprotect(mm, BASE, PG, PROT_READ);
}

static int change_munmap_low(struct mm_struct *mm)
{
	return vm_munmap(mm, BASE, PG);
}

static void split_race(int (*change)(struct mm_struct *mm))
{
	struct task_struct *t = mmt_new_proc();
	struct anon_race r = {.change = change, .locks_before = 0, .fault_addr = BASE + PG};

	CU_ASSERT(mmt_map(t->mm, BASE, 2 * PG, RW) == (long)BASE); /* never touched */
	anon_race_run(t, &r);
	CU_ASSERT(mm_map_count(t->mm) == (change == change_munmap_low ? 1 : 2));
	CU_ASSERT_EQUAL(rmap_count_at(t->mm, BASE + PG), 1);
	CU_ASSERT(mm_check(t->mm) == 0);
	check_fork_reads(t, BASE + PG, 0x5A);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

static void test_split_mprotect(void)
{
	split_race(change_mprotect_low);
}

static void test_split_munmap(void)
{
	split_race(change_munmap_low);
}

/* ---- merge: the VMA whose anon_vma was read as NULL ------------------ */

/*
 * a = [BASE, +1) RW, never touched (the fault's); b = [BASE+1, +1)
 * written (0x77, its own anon_vma), read-only.  mprotect makes b RW again
 * and merges it with a: b is write-locked for the flag change, then a.
 */
static int change_mprotect_b(struct mm_struct *mm)
{
	return vm_mprotect(mm, BASE + PG, PG, RW);
}

static void test_merge_mprotect(void)
{
	struct task_struct *t = mmt_new_proc();
	struct anon_race r = {.change = change_mprotect_b, .locks_before = 1, .fault_addr = BASE};
	unsigned char v = 0x77;

	CU_ASSERT(mmt_map(t->mm, BASE + PG, PG, RW) == (long)(BASE + PG));
	CU_ASSERT(rv_mm_write(BASE + PG, &v, 1) == 0);
	CU_ASSERT(vm_mprotect(t->mm, BASE + PG, PG, PROT_READ) == 0);
	CU_ASSERT(mmt_map(t->mm, BASE, PG, RW) == (long)BASE);
	CU_ASSERT_FATAL(mm_map_count(t->mm) == 2);
	anon_race_run(t, &r);
	/* refuse: the fault came first, and reused b's anon_vma (a and b
	 * differ only in protection: find_mergeable_anon_vma), so the
	 * mprotect merges them; retry: the mprotect did, and the fault was
	 * redone in the merged VMA */
	CU_ASSERT(mm_map_count(t->mm) == 1);
	CU_ASSERT_EQUAL(rmap_count_at(t->mm, BASE + PG), 1);
	CU_ASSERT_EQUAL(rmap_count_at(t->mm, BASE), 1);
	CU_ASSERT(mm_check(t->mm) == 0);
	check_fork_reads(t, BASE, 0x5A);
	check_fork_reads(t, BASE + PG, 0x77);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/*
 * a = [BASE, +1) written (0x77, an anon_vma); b = [BASE+2, +1) never
 * touched (the fault's).  mmap of the hole extends a (write-locked first)
 * and merges it with b.
 */
static int change_mmap_hole(struct mm_struct *mm)
{
	long r = mmt_map(mm, BASE + PG, PG, RW);

	return r == (long)(BASE + PG) ? 0 : (int)r;
}

static void test_merge_mmap_extend(void)
{
	struct task_struct *t = mmt_new_proc();
	struct anon_race r = {
	    .change = change_mmap_hole, .locks_before = 1, .fault_addr = BASE + 2 * PG};
	unsigned char v = 0x77;

	CU_ASSERT(mmt_map(t->mm, BASE, PG, RW) == (long)BASE);
	CU_ASSERT(rv_mm_write(BASE, &v, 1) == 0);
	CU_ASSERT(mmt_map(t->mm, BASE + 2 * PG, PG, RW) == (long)(BASE + 2 * PG));
	CU_ASSERT_FATAL(mm_map_count(t->mm) == 2);
	anon_race_run(t, &r);
	CU_ASSERT(mm_map_count(t->mm) == (rv_sw.anon_vma_fault == ANON_VMA_FAULT_REFUSE ? 2 : 1));
	CU_ASSERT_EQUAL(rmap_count_at(t->mm, BASE + 2 * PG), 1);
	CU_ASSERT_EQUAL(rmap_count_at(t->mm, BASE), 1);
	CU_ASSERT(mm_check(t->mm) == 0);
	check_fork_reads(t, BASE, 0x77);
	check_fork_reads(t, BASE + 2 * PG, 0x5A);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/*
 * Two halves of a once-split mapping that differ only in protection get
 * their anon_vma one after the other: the second reuses the first's
 * (__anon_vma_prepare's find_mergeable_anon_vma, next first, then prev),
 * so an mprotect that makes them equal again merges them into one VMA, as
 * on the host kernel.  With an anon_vma each, they stay two.
 *   mmap(rw, 2 pages); mprotect(2nd, rwx); write 1st then 2nd (order 0) or
 *   2nd then 1st (order 1); mprotect(2nd, rw)  ->  out: VMAs in the range.
 */
static long reuse_script(unsigned long w, int order, struct mm_struct *mm)
{
	unsigned char v = 0x42;
	int rwx = RW | PROT_EXEC;

	if (!mm) {
		mmap((void *)w, 2 * PG, RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		mprotect((void *)(w + PG), PG, rwx);
		*(volatile char *)(w + (order ? PG : 0)) = 1;
		*(volatile char *)(w + (order ? 0 : PG)) = 1;
		mprotect((void *)(w + PG), PG, RW);
		return mmt_host_count_vmas(w, w + 2 * PG);
	}
	CU_ASSERT(mmt_map(mm, w, 2 * PG, RW) == (long)w);
	CU_ASSERT(vm_mprotect(mm, w + PG, PG, rwx) == 0);
	CU_ASSERT(mm_access(mm, w + (order ? PG : 0), &v, 1, true) == 0);
	CU_ASSERT(mm_access(mm, w + (order ? 0 : PG), &v, 1, true) == 0);
	CU_ASSERT(vm_mprotect(mm, w + PG, PG, RW) == 0);
	return mmt_count_vmas(mm, w, w + 2 * PG);
}

static int host_reuse(long *out, int n)
{
	unsigned long w = mmt_host_window(8);

	if (!w || n != 2)
		return 1;
	out[0] = reuse_script(w, 0, NULL);
	out[1] = reuse_script(w + 4 * PG, 1, NULL);
	return 0;
}

static void test_anon_vma_reused_by_neighbour(void)
{
	struct task_struct *t = mmt_new_proc();
	long m[2], h[2];

	m[0] = reuse_script(BASE, 0, t->mm);
	m[1] = reuse_script(BASE + 4 * PG, 1, t->mm);
	CU_ASSERT(m[0] == 1 && m[1] == 1);
	if (mmt_host_run(host_reuse, h, 2) == 0) {
		if (memcmp(h, m, sizeof(h)))
			printf("\n  host %ld %ld, model %ld %ld\n", h[0], h[1], m[0], m[1]);
		CU_ASSERT(memcmp(h, m, sizeof(h)) == 0);
	} else {
		printf("\n  host oracle unavailable: model only\n");
	}
	CU_ASSERT_EQUAL(rmap_count_at(t->mm, BASE + PG), 1);
	CU_ASSERT_EQUAL(rmap_count_at(t->mm, BASE + 4 * PG), 1);
	CU_ASSERT(mm_check(t->mm) == 0);
	check_fork_reads(t, BASE + PG, 0x42);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

RVTEST_SUITE(mm_anon_vma_reuse, rvtest_instance_init, rvtest_instance_cleanup,
	     RVTEST(test_anon_vma_reused_by_neighbour))

/* first-touch faults under the per-VMA lock: under each of its designs */
MMT_VMA_SUITES(mm_anon_vma_retry, "anon_vma_fault=retry", RVTEST(test_split_mprotect),
	       RVTEST(test_split_munmap), RVTEST(test_merge_mprotect),
	       RVTEST(test_merge_mmap_extend))
MMT_VMA_SUITES(mm_anon_vma_refuse, "anon_vma_fault=refuse", RVTEST(test_split_mprotect),
	       RVTEST(test_split_munmap), RVTEST(test_merge_mprotect),
	       RVTEST(test_merge_mmap_extend))
