// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_mm_race.c - the historic mm races, reproduced
 * deterministically with injection points (docs/history.md), and
 * reclaim under a small page cache.
 *
 *  - seed-003: a private file mapping whose page was COW'd, the file folio
 *    reclaimed; the NUMA scanner holds its ptep_modify_prot_start..commit
 *    window open (PTE lock held) until a faulter that read the PTE as none
 *    reaches its major-fault decision point.  pte_recheck=0: a spurious
 *    major fault; pte_recheck=rfc: none, the faulter retries after the
 *    commit; pte_recheck=1 (as merged): the same on an mlocked VMA (the
 *    original report's mlockall), a spurious major fault on one that is not.
 *    Data correct and no deadlock either way.
 *  - fork race as users hit it (a stale TLB entry): a parent thread's
 *    store through a translation loaded before fork write-protected the
 *    page lands after another parent thread's COW copy.  never: the parent
 *    loses the write (it is in the child's page); always / elide-single:
 *    fork's TLB flush waits for the store and the COW waits for fork.
 *  - the fork race's anon_vma facet: a first-touch fault during fork waits
 *    for fork in every mode (vmf_anon_prepare retries under mmap_lock).
 *  - reclaim: contents always correct, dirty data never lost, counters exact.
 */
#include "test_mm_util.h"

#include <fcntl.h>
#include <sched.h>

#define BASE	0x20000000UL
#define RW	(PROT_READ | PROT_WRITE)
#define WAIT_MS 20000 /* bounds every wait; never reached when correct */

/* ------------------------------------------------------------------ */
/* seed-003: filemap_fault PTE recheck                                 */
/* ------------------------------------------------------------------ */

static void *numa_scanner(void *p)
{
	task_numa_work((struct mm_struct *)p);
	return NULL;
}

struct faulter_arg {
	unsigned long addr;
	unsigned char got;
	int ret;
};

static void *faulter(void *p)
{
	struct faulter_arg *fa = p;

	fa->ret = rv_mm_read(fa->addr, &fa->got, 1);
	return NULL;
}

/*
 * seed003(mlocked, in_window): the original report's situation, the page COW'd by
 * an explicit write or (mlocked) by mlockall's populate as in the report.
 * The faulter parks at its major-fault decision point while the scanner
 * holds its window open (PTE cleared, PTE lock held).  in_window: the
 * faulter goes on first, and the test waits until its recheck is about to
 * take the PTE lock (pte_recheck_locked), then lets the scanner commit;
 * otherwise the scanner commits first and the faulter's recheck (or I/O)
 * comes after.  Whether the recheck runs: pte_recheck=rfc always (the page
 * table exists), 1 only on a VM_LOCKED VMA, 0 never.
 */
static void seed003(bool mlocked, bool in_window)
{
	struct task_struct *t = mmt_new_proc(), *ts, *tf;
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/seed3", 1, 0x11);
	struct faulter_arg fa = {.addr = BASE};
	struct mmt_thread scan, fault;
	uint64_t maj, spur, nopage, locked;
	unsigned char b = 0x77;
	bool recheck = rv_sw.pte_recheck == PTE_RECHECK_RFC ||
		       (rv_sw.pte_recheck == PTE_RECHECK_MERGED && mlocked);

	if (mlocked) {
		/* the report: mlockall, and the data segment's page COW'd by it */
		CU_ASSERT(vm_mlockall(mm, MCL_CURRENT | MCL_FUTURE) == 0);
		CU_ASSERT(vm_mmap(mm, BASE, PG, RW, MAP_PRIVATE | MAP_FIXED, f, 0) == (long)BASE);
		CU_ASSERT(vma_lookup(mm, BASE)->vm_flags & VM_LOCKED);
		CU_ASSERT(mm_folio_is_anon(mm_folio_from_pte(mm_pte_read(mm, BASE))));
		CU_ASSERT(rv_mm_write(BASE, &b, 1) == 0);
	} else {
		CU_ASSERT(vm_mmap(mm, BASE, PG, RW, MAP_PRIVATE | MAP_FIXED, f, 0) == (long)BASE);
		CU_ASSERT(rv_mm_write(BASE, &b, 1) == 0); /* COW */
	}
	CU_ASSERT(mm_folio_is_anon(mm_folio_from_pte(mm_pte_read(mm, BASE))));
	/* reclaim the file folio: the next page-cache lookup misses */
	mm_reclaim_folios(1000);
	CU_ASSERT_FATAL(filemap_get_folio(f->f_mapping, 0) == NULL);

	maj = mmt_stat("majflt");
	spur = mmt_stat("spurious_majflt");
	nopage = mmt_stat("pte_recheck_nopage");
	locked = mmt_stat("pte_recheck_locked");
	CU_ASSERT(rv_inject_set_pause("numa_prot_window", 1) == 0);
	CU_ASSERT(rv_inject_set_pause("filemap_fault_major", 1) == 0);
	ts = task_clone_thread(t);
	tf = task_clone_thread(t);
	/* the scanner clears the PTE (ptep_modify_prot_start) and holds the
	 * window open with the PTE lock held */
	mmt_thread_start(&scan, ts, numa_scanner, mm);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("numa_prot_window", 1, WAIT_MS) == 0);
	CU_ASSERT(mm_pte_read(mm, BASE) == 0);
	/* the faulter reads the PTE as none and reaches its decision point */
	mmt_thread_start(&fault, tf, faulter, &fa);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("filemap_fault_major", 1, WAIT_MS) == 0);
	if (in_window) {
		CU_ASSERT_FATAL(recheck);
		rv_inject_release("filemap_fault_major");
		for (long i = 0; mmt_stat("pte_recheck_locked") == locked; i++) {
			CU_ASSERT_FATAL(i < 100000000);
			sched_yield();
		}
		rv_inject_release("numa_prot_window"); /* commit */
		mmt_thread_join(&scan);
	} else {
		rv_inject_release("numa_prot_window"); /* commit */
		mmt_thread_join(&scan);
		rv_inject_release("filemap_fault_major");
	}
	mmt_thread_join(&fault);
	rv_inject_clear_all();

	CU_ASSERT(fa.ret == 0);
	CU_ASSERT(fa.got == 0x77); /* the COW'd data, never the file's */
	if (recheck) {
		CU_ASSERT(mmt_stat("spurious_majflt") == spur);
		CU_ASSERT(mmt_stat("majflt") == maj);
		CU_ASSERT(mmt_stat("pte_recheck_nopage") == nopage + 1);
		/* the merged variant's lockless look is enough once committed */
		CU_ASSERT(mmt_stat("pte_recheck_locked") ==
			  locked + (in_window || rv_sw.pte_recheck == PTE_RECHECK_RFC));
	} else {
		CU_ASSERT(mmt_stat("spurious_majflt") == spur + 1);
		CU_ASSERT(mmt_stat("majflt") == maj + 1);
		CU_ASSERT(mmt_stat("pte_recheck_nopage") == nopage);
		CU_ASSERT(mmt_stat("pte_recheck_locked") == locked);
	}
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 1);
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 0);
	mmt_exit(tf);
	mmt_exit(ts);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/seed3") == 0);
	CU_ASSERT(mmt_all_freed());
}

static void test_seed003(void)
{
	seed003(false, false);
}

static void test_seed003_mlockall(void)
{
	seed003(true, false);
}

static void test_seed003_mlockall_in_window(void)
{
	seed003(true, true);
}

/*
 * Two read faults on one uncached page, no scanner: the second finds the
 * folio the first read and the PTE the first installed with that folio.
 * Nothing was mapped all along: not a spurious major fault (it was counted
 * as one before spurious_majflt required a store read and a different
 * folio).  Under rfc the second fault's recheck sees the PTE and does no
 * I/O at all.
 */
static void test_two_faults_one_page(void)
{
	struct task_struct *t = mmt_new_proc(), *t1, *t2;
	struct file *f = mmt_make_file("/twofaults", 1, 0x21);
	struct faulter_arg a1 = {.addr = BASE}, a2 = {.addr = BASE};
	struct mmt_thread th1, th2;
	uint64_t spur, maj, locked;

	CU_ASSERT(vm_mmap(t->mm, BASE, PG, PROT_READ, MAP_PRIVATE | MAP_FIXED, f, 0) == (long)BASE);
	mm_reclaim_folios(1000);
	CU_ASSERT_FATAL(filemap_get_folio(f->f_mapping, 0) == NULL);
	spur = mmt_stat("spurious_majflt");
	maj = mmt_stat("majflt");
	locked = mmt_stat("pte_recheck_locked");
	t1 = task_clone_thread(t);
	t2 = task_clone_thread(t);
	CU_ASSERT(rv_inject_set_pause("filemap_fault_major", 1) == 0);
	mmt_thread_start(&th1, t1, faulter, &a1);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("filemap_fault_major", 1, WAIT_MS) == 0);
	mmt_thread_start(&th2, t2, faulter, &a2); /* reads the page, maps it */
	mmt_thread_join(&th2);
	rv_inject_release("filemap_fault_major");
	mmt_thread_join(&th1);
	rv_inject_clear_all();
	CU_ASSERT(a1.ret == 0 && a1.got == 0x21);
	CU_ASSERT(a2.ret == 0 && a2.got == 0x21);
	CU_ASSERT(mmt_stat("spurious_majflt") == spur);
	if (rv_sw.pte_recheck == PTE_RECHECK_RFC) {
		/* the second fault's recheck finds the table the first one
		 * allocated, and the PTE: no I/O */
		CU_ASSERT(mmt_stat("pte_recheck_locked") == locked + 1);
		CU_ASSERT(mmt_stat("majflt") == maj + 1);
	} else {
		/* 1: not VM_LOCKED (and no table when it read the PTE); 0 */
		CU_ASSERT(mmt_stat("pte_recheck_locked") == locked);
		/* the kernel counts a major fault for every page-cache miss */
		CU_ASSERT(mmt_stat("majflt") == maj + 2);
	}
	mmt_exit(t2);
	mmt_exit(t1);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/twofaults") == 0);
	CU_ASSERT(mmt_all_freed());
}

/* ------------------------------------------------------------------ */
/* fork race                                                           */
/* ------------------------------------------------------------------ */

struct forker_arg {
	struct task_struct *parent;
	struct task_struct *child;
};

static void *forker(void *p)
{
	struct forker_arg *fk = p;

	fk->child = task_fork(fk->parent);
	return NULL;
}

static void *toucher(void *p)
{
	unsigned char v = 0x42;

	return MMT_RC(rv_mm_write(*(unsigned long *)p, &v, 1));
}

/*
 * The anon_vma facet of the fork race, which no kernel could reach: fork
 * parked between anon_vma_fork (the parent VMA had no anon_vma) and
 * vma_needs_copy; another parent thread's first write to the VMA needs an
 * anon_vma.  never: the fault takes the VMA read lock, but
 * vmf_anon_prepare cannot get mmap_lock (fork holds it) and retries under
 * it; always / elide-single (multithreaded parent): the VMA is
 * write-locked, the fault falls back to mmap_lock.  Either way the fault
 * waits for fork, and the child is consistent (mm_check: its folios are
 * found by rmap).  Before vmf_anon_prepare, never let the fault prepare
 * the anon_vma and map a folio that the child then mapped without being
 * on its anon_vma.
 */
static void test_fork_first_touch(void)
{
	struct task_struct *t = mmt_new_proc(), *t2, *tfork;
	struct mm_struct *mm = t->mm;
	struct forker_arg fk = {.parent = t};
	struct mmt_thread fth, wth;
	unsigned long addr = BASE;
	uint64_t misses, retries;
	bool never = rv_sw.fork_vma_lock == FORK_VMA_LOCK_NEVER;

	CU_ASSERT(mmt_map(mm, BASE, PG, RW) == (long)BASE); /* never touched */
	t2 = task_clone_thread(t);			    /* the faulting thread */
	tfork = task_clone_thread(t);			    /* the forking thread */
	CU_ASSERT(rv_inject_set_pause("dup_mmap_before_copy", 1) == 0);
	mmt_thread_start(&fth, tfork, forker, &fk);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("dup_mmap_before_copy", 1, WAIT_MS) == 0);
	misses = mmt_stat("vma_lock_misses");
	retries = mmt_stat("anon_prepare_retries");
	mmt_thread_start(&wth, t2, toucher, &addr);
	for (long i = 0;
	     mmt_stat("vma_lock_misses") == misses && mmt_stat("anon_prepare_retries") == retries;
	     i++) {
		CU_ASSERT_FATAL(i < 100000000);
		CU_ASSERT_FATAL(!__atomic_load_n(&wth.done, __ATOMIC_ACQUIRE));
		sched_yield();
	}
	CU_ASSERT(mmt_stat("anon_prepare_retries") == retries + (never ? 1 : 0));
	CU_ASSERT(mmt_stat("vma_lock_misses") == misses + (never ? 0 : 1));
	CU_ASSERT(!__atomic_load_n(&wth.done, __ATOMIC_ACQUIRE));
	rv_inject_release("dup_mmap_before_copy");
	mmt_thread_join(&fth);
	CU_ASSERT(mmt_thread_join_rc(&wth) == 0);
	rv_inject_clear_all();
	CU_ASSERT_FATAL(fk.child != NULL);
	/* the write came after fork: the parent has it, the child does not */
	{
		unsigned char v = 0;

		CU_ASSERT(mm_access(mm, BASE, &v, 1, false) == 0 && v == 0x42);
		CU_ASSERT(mm_access(fk.child->mm, BASE, &v, 1, false) == 0 && v == 0);
	}
	mmt_exit(fk.child);
	mmt_exit(tfork);
	mmt_exit(t2);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/* ------------------------------------------------------------------ */
/* fork race, as users hit it: a parent write lost through a stale TLB */
/* ------------------------------------------------------------------ */

/*
 * Three threads of one parent and one page P, written (so it has an
 * anon_vma and a writable PTE) with 0x11:
 *   A  writes 0xAA at P+0; its translation is loaded (writable PTE) and it
 *      is parked before the copy (mm_access_copy): a store in flight
 *      through a TLB entry fork has not flushed yet;
 *   F  forks; parked after copy_page_range write-protected P, before
 *      dup_mmap's flush_tlb_mm (dup_mmap_flush);
 *   B  writes 0xBB at P+1: a write-protect fault.
 * never: B's fault takes the per-VMA lock, wp_page_copy copies P (without
 * A's byte); parked there (wp_page_copy) while A's store lands in the old
 * page, which is the child's from now on.  always / elide-single: B's
 * fault finds the VMA write-locked, waits for mmap_lock, and fork's flush
 * (after A finished) comes before the copy.  Checked from outside by
 * reading both address spaces: every write that returned must be in the
 * parent.
 */
struct wr_arg {
	unsigned long addr;
	unsigned char val;
	int ret;
};

static void *writer_one(void *p)
{
	struct wr_arg *w = p;

	w->ret = rv_mm_write(w->addr, &w->val, 1);
	return NULL;
}

static unsigned char read_byte(struct mm_struct *mm, unsigned long addr)
{
	unsigned char v = 0;

	CU_ASSERT(mm_access(mm, addr, &v, 1, false) == 0);
	return v;
}

static void test_fork_lost_write(void)
{
	struct task_struct *t = mmt_new_proc(), *ta, *tb, *tf;
	struct mm_struct *mm = t->mm;
	struct forker_arg fk = {.parent = t};
	struct wr_arg wa = {.addr = BASE, .val = 0xAA, .ret = -1};
	struct wr_arg wb = {.addr = BASE + 1, .val = 0xBB, .ret = -1};
	struct mmt_thread ath, bth, fth;
	bool never = rv_sw.fork_vma_lock == FORK_VMA_LOCK_NEVER;
	unsigned char pa, pb, ca, cb;
	uint64_t misses;

	CU_ASSERT(mmt_map(mm, BASE, PG, RW) == (long)BASE);
	mmt_fill(BASE, PG, 0x11);
	ta = task_clone_thread(t);
	tb = task_clone_thread(t);
	tf = task_clone_thread(t);
	CU_ASSERT_FATAL(ta && tb && tf);
	CU_ASSERT(rv_inject_set_pause("mm_access_copy", 1) == 0);
	CU_ASSERT(rv_inject_set_pause("dup_mmap_flush", 1) == 0);
	CU_ASSERT(rv_inject_set_pause("wp_page_copy", 1) == 0);
	/* A: translation loaded, store not yet done */
	mmt_thread_start(&ath, ta, writer_one, &wa);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("mm_access_copy", 1, WAIT_MS) == 0);
	/* F: the PTE is write-protected and shared with the child, no flush yet */
	mmt_thread_start(&fth, tf, forker, &fk);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("dup_mmap_flush", 1, WAIT_MS) == 0);
	CU_ASSERT(!pte_write(mm_pte_read(mm, BASE)));
	/* B: COWs during fork (never), or waits for fork (the fix) */
	misses = mmt_stat("vma_lock_misses");
	mmt_thread_start(&bth, tb, writer_one, &wb);
	for (long i = 0;
	     rv_inject_arrivals("wp_page_copy") == 0 && mmt_stat("vma_lock_misses") == misses;
	     i++) {
		CU_ASSERT_FATAL(i < 100000000);
		sched_yield();
	}
	CU_ASSERT(rv_inject_arrivals("wp_page_copy") == (never ? 1 : 0));
	/* A's store lands (in the page that is the child's, under never) */
	rv_inject_release("mm_access_copy");
	mmt_thread_join(&ath);
	CU_ASSERT(wa.ret == 0);
	rv_inject_release("wp_page_copy");
	rv_inject_release("dup_mmap_flush");
	mmt_thread_join(&fth);
	mmt_thread_join(&bth);
	rv_inject_clear_all();
	CU_ASSERT(wb.ret == 0);
	CU_ASSERT_FATAL(fk.child != NULL);

	/* from outside: what each address space holds */
	pa = read_byte(mm, BASE);
	pb = read_byte(mm, BASE + 1);
	ca = read_byte(fk.child->mm, BASE);
	cb = read_byte(fk.child->mm, BASE + 1);
	CU_ASSERT(pb == 0xBB);
	CU_ASSERT(cb == 0x11); /* B wrote after the child's snapshot */
	if (never) {
		/* A's write returned, and the parent does not have it: the
		 * child got it instead */
		CU_ASSERT(pa == 0x11);
		CU_ASSERT(ca == 0xAA);
	} else {
		/* A's store finished before fork's flush: in both */
		CU_ASSERT(pa == 0xAA);
		CU_ASSERT(ca == 0xAA);
	}
	mmt_exit(fk.child);
	mmt_exit(tf);
	mmt_exit(tb);
	mmt_exit(ta);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/*
 * The TLB itself: a store whose translation was loaded before fork
 * write-protected the page holds up fork's flush (tlb_flush_waits), so fork
 * cannot return, and no write-protect fault can copy the page, until the
 * store is done.  Without a flush that waits, fork returns, a parent write
 * COWs the page, and the parked store then lands in the child's page.
 */
static void test_fork_flush_waits(void)
{
	struct task_struct *t = mmt_new_proc(), *ta, *tf;
	struct mm_struct *mm = t->mm;
	struct forker_arg fk = {.parent = t};
	struct wr_arg wa = {.addr = BASE, .val = 0xAA, .ret = -1};
	struct mmt_thread ath, fth;
	uint64_t waits, flushes;
	unsigned char b = 0xBB;

	CU_ASSERT(mmt_map(mm, BASE, PG, RW) == (long)BASE);
	mmt_fill(BASE, PG, 0x11);
	ta = task_clone_thread(t);
	tf = task_clone_thread(t);
	CU_ASSERT_FATAL(ta && tf);
	CU_ASSERT(rv_inject_set_pause("mm_access_copy", 1) == 0);
	mmt_thread_start(&ath, ta, writer_one, &wa);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("mm_access_copy", 1, WAIT_MS) == 0);
	waits = mmt_stat("tlb_flush_waits");
	flushes = mmt_stat("tlb_flushes");
	mmt_thread_start(&fth, tf, forker, &fk);
	for (long i = 0; mmt_stat("tlb_flush_waits") == waits; i++) {
		CU_ASSERT_FATAL(i < 100000000);
		CU_ASSERT_FATAL(!__atomic_load_n(&fth.done, __ATOMIC_ACQUIRE));
		sched_yield();
	}
	CU_ASSERT(!__atomic_load_n(&fth.done, __ATOMIC_ACQUIRE));
	CU_ASSERT(mmt_stat("tlb_flushes") == flushes + 1);
	rv_inject_release("mm_access_copy");
	mmt_thread_join(&ath);
	mmt_thread_join(&fth);
	rv_inject_clear_all();
	CU_ASSERT(wa.ret == 0);
	CU_ASSERT_FATAL(fk.child != NULL);
	/* the parent's first write after fork COWs a page that has A's byte */
	CU_ASSERT(rv_mm_write(BASE + 1, &b, 1) == 0);
	CU_ASSERT(read_byte(mm, BASE) == 0xAA);
	CU_ASSERT(read_byte(mm, BASE + 1) == 0xBB);
	CU_ASSERT(read_byte(fk.child->mm, BASE) == 0xAA);
	CU_ASSERT(read_byte(fk.child->mm, BASE + 1) == 0x11);
	mmt_exit(fk.child);
	mmt_exit(tf);
	mmt_exit(ta);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/* ------------------------------------------------------------------ */
/* reclaim                                                             */
/* ------------------------------------------------------------------ */

static void test_reclaim_small_cache(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	const int n = 32;
	struct file *f = mmt_make_file("/r", n, 0);
	int cached = 0, order[32], k = 0;
	uint64_t maj, minf;

	CU_ASSERT(rv_sw.cache_pages == 8);
	CU_ASSERT(mm_lru_pages() <= 8);
	CU_ASSERT(mmt_stat("reclaim_writebacks") >= (uint64_t)(n - 8));
	for (int i = 0; i < n; i++) {
		struct folio *fo = filemap_get_folio(f->f_mapping, i);

		if (fo) {
			cached++;
			folio_put(fo);
			order[k++] = i;
		}
	}
	/* the cached pages first: their faults add nothing to the cache, so
	 * none of them is reclaimed before it is read */
	for (int i = 0; i < n; i++) {
		struct folio *fo = filemap_get_folio(f->f_mapping, i);

		if (fo)
			folio_put(fo);
		else
			order[k++] = i;
	}
	/* read faults: a major fault for every page not cached, exactly */
	CU_ASSERT(vm_mmap(mm, BASE, n * PG, RW, MAP_PRIVATE | MAP_FIXED, f, 0) == (long)BASE);
	maj = mmt_stat("majflt");
	minf = mmt_stat("minflt");
	for (int i = 0; i < n; i++)
		CU_ASSERT(
		    mmt_check(BASE + (unsigned long)order[i] * PG, PG, (unsigned char)order[i]));
	CU_ASSERT((long)(mmt_stat("majflt") - maj) == n - cached);
	CU_ASSERT((long)(mmt_stat("minflt") - minf) == cached);
	CU_ASSERT(mm_lru_pages() <= 8);
	/* shared writes: dirty folios reclaimed while mapped are written
	 * back first, nothing is lost */
	CU_ASSERT(vm_mmap(mm, BASE + 64 * PG, n * PG, RW, MAP_SHARED | MAP_FIXED, f, 0) ==
		  (long)(BASE + 64 * PG));
	mmt_fill(BASE + 64 * PG, n * PG, 100);
	CU_ASSERT(mm_lru_pages() <= 8);
	CU_ASSERT(mmt_check(BASE + 64 * PG, n * PG, 100));
	CU_ASSERT(mmt_check(BASE, n * PG, 100)); /* private, never written: sees the file */
	{
		unsigned char buf[PG];

		for (int i = 0; i < n; i++) {
			int64_t pos = (int64_t)i * PG;

			CU_ASSERT(vfs_read(f, buf, PG, &pos) == (ssize_t)PG);
			CU_ASSERT(buf[0] == (unsigned char)(100 + i) && buf[PG - 1] == buf[0]);
		}
	}
	/* private COW copies are anonymous: reclaim never touches them */
	mmt_fill(BASE, 4 * PG, 200);
	mm_reclaim_folios(1000);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 4);
	CU_ASSERT(mmt_check(BASE, 4 * PG, 200));
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) <= 8);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/r") == 0);
	CU_ASSERT(mmt_all_freed());
}

/*
 * The guards of the two variants: no PTE lock where no page table exists.
 * rfc looks at the table as it is at the recheck, 1 at whether one existed
 * when the fault read the PTE (FAULT_FLAG_ORIG_PTE_VALID), and only in a
 * VM_LOCKED VMA.  Four major faults: pages 0 and 1 of an unlocked mapping,
 * then pages 0 and 1 of a second one faulted in by mlock; in each pair the
 * first finds no page table, the second finds the one the first allocated.
 */
static void test_recheck_guard(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/guard", 2, 0x31);
	const unsigned long b2 = BASE + PGDIR_SIZE; /* another page table */
	uint64_t locked, maj, after_unlocked;
	unsigned char b;

	CU_ASSERT(vm_mmap(mm, BASE, 2 * PG, PROT_READ, MAP_PRIVATE | MAP_FIXED, f, 0) ==
		  (long)BASE);
	CU_ASSERT(vm_mmap(mm, b2, 2 * PG, PROT_READ, MAP_PRIVATE | MAP_FIXED, f, 0) == (long)b2);
	mm_reclaim_folios(1000);
	CU_ASSERT_FATAL(filemap_get_folio(f->f_mapping, 0) == NULL);
	CU_ASSERT(mm_nr_ptes(mm) == 0);
	locked = mmt_stat("pte_recheck_locked");
	maj = mmt_stat("majflt");
	CU_ASSERT(rv_mm_read(BASE, &b, 1) == 0 && b == 0x31);
	CU_ASSERT(rv_mm_read(BASE + PG, &b, 1) == 0 && b == 0x32);
	after_unlocked = mmt_stat("pte_recheck_locked");
	CU_ASSERT(after_unlocked == locked + (rv_sw.pte_recheck == PTE_RECHECK_RFC));
	mm_reclaim_folios(1000);
	CU_ASSERT_FATAL(filemap_get_folio(f->f_mapping, 0) == NULL);
	CU_ASSERT(vm_mlock(mm, b2, 2 * PG) == 0); /* populates: two read faults */
	CU_ASSERT(mmt_stat("pte_recheck_locked") ==
		  after_unlocked + (rv_sw.pte_recheck != PTE_RECHECK_OFF));
	CU_ASSERT(mmt_stat("majflt") == maj + 4);
	CU_ASSERT(mm_access(mm, b2 + PG, &b, 1, false) == 0 && b == 0x32);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/guard") == 0);
	CU_ASSERT(mmt_all_freed());
}

static int init_recheck0(void)
{
	static const char *const s[] = {"pte_recheck=0", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}
static int init_recheck1(void)
{
	static const char *const s[] = {"pte_recheck=1", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}
static int init_recheck_rfc(void)
{
	static const char *const s[] = {"pte_recheck=rfc", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}
static int init_small_cache(void)
{
	static const char *const s[] = {"cache_pages=8", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

RVTEST_SUITE(mm_seed003_recheck0, init_recheck0, rvtest_instance_cleanup, RVTEST(test_seed003),
	     RVTEST(test_seed003_mlockall), RVTEST(test_two_faults_one_page),
	     RVTEST(test_recheck_guard))
RVTEST_SUITE(mm_seed003_recheck1, init_recheck1, rvtest_instance_cleanup, RVTEST(test_seed003),
	     RVTEST(test_seed003_mlockall), RVTEST(test_seed003_mlockall_in_window),
	     RVTEST(test_two_faults_one_page), RVTEST(test_recheck_guard))
RVTEST_SUITE(mm_seed003_recheck_rfc, init_recheck_rfc, rvtest_instance_cleanup,
	     RVTEST(test_seed003), RVTEST(test_seed003_mlockall),
	     RVTEST(test_seed003_mlockall_in_window), RVTEST(test_two_faults_one_page),
	     RVTEST(test_recheck_guard))
/* fork's VMA write locks against faults: under each per-VMA lock design */
MMT_VMA_SUITES(mm_fork_race_never, "fork_vma_lock=never", RVTEST(test_fork_first_touch),
	       RVTEST(test_fork_lost_write))
MMT_VMA_SUITES(mm_fork_race_always, "fork_vma_lock=always", RVTEST(test_fork_first_touch),
	       RVTEST(test_fork_lost_write), RVTEST(test_fork_flush_waits))
MMT_VMA_SUITES(mm_fork_race_elide, "fork_vma_lock=elide-single", RVTEST(test_fork_first_touch),
	       RVTEST(test_fork_lost_write))
RVTEST_SUITE(mm_reclaim, init_small_cache, rvtest_instance_cleanup,
	     RVTEST(test_reclaim_small_cache))
