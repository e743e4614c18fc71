// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_mm_writeback.c - fsync of files written through shared
 * mappings: writeback calls folio_mkclean (vfs_hooks.folio_mkclean), which
 * moves each PTE's dirty bit to the folio and write-protects the PTE, so a
 * write through the mapping after an fsync re-dirties the folio through a
 * write-protect fault and the next fsync writes it.  Private mappings never
 * reach the file.  A write whose translation was loaded before the fsync
 * reaches the store through that fsync: folio_mkclean's TLB flush waits
 * for the copy before writeback copies the folio.
 *
 * The store is checked directly (read_folio into a scratch folio) right
 * after each fsync, while the page is still cached and mapped: forced
 * reclaim would unmap the page first and so hide a PTE-only dirty bit.
 * Reclaim is used afterwards to check that fsync left nothing for it to
 * write and that the file reads back from the store.
 */
#include "test_mm_util.h"

#include <fcntl.h>
#include <sched.h>
#include <time.h>

#define BASE  0x20000000UL
#define RW    (PROT_READ | PROT_WRITE)
#define OK(x) CU_ASSERT_EQUAL((x), 0)

/* 1 if the backing store holds page `page` of f as val everywhere. */
static int store_has(struct file *f, int page, unsigned char val)
{
	struct address_space *m = f->f_mapping;
	struct folio *scratch = folio_alloc();
	int ok = 1;

	CU_ASSERT_FATAL(scratch != NULL);
	if (!m->a_store->has_index(m, page)) {
		folio_put(scratch);
		return 0;
	}
	scratch->index = page;
	CU_ASSERT(m->a_store->read_folio(m, scratch) == 0);
	for (unsigned i = 0; i < PG; i++)
		if (((unsigned char *)scratch->data)[i] != val)
			ok = 0;
	folio_put(scratch);
	return ok;
}

static struct folio *folio_at(struct mm_struct *mm, unsigned long addr)
{
	pte_t pte = mm_pte_read(mm, addr);

	CU_ASSERT_FATAL(pte_present(pte));
	return mm_folio_from_pte(pte);
}

static int pte_clean_ro(struct mm_struct *mm, unsigned long addr)
{
	pte_t pte = mm_pte_read(mm, addr);

	return pte_present(pte) && !pte_write(pte) && !pte_dirty(pte);
}

static void drop_file(struct file *f, const char *path)
{
	fput(f);
	CU_ASSERT(do_unlink(path) == 0);
}

/* write, fsync, write again after the fsync, fsync: the store has each */
static void test_write_after_fsync(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/wb", 2, 0x10);
	uint64_t min0, maj0, mk0, wps0, wr0, shf0, rwb0;
	struct folio *fo;

	OK(vfs_fsync(f, 0));
	CU_ASSERT(store_has(f, 0, 0x10));
	CU_ASSERT(vm_mmap(mm, BASE, 2 * PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)BASE);
	min0 = mmt_stat("minflt");
	maj0 = mmt_stat("majflt");
	mk0 = mmt_stat("mkclean_ptes");
	wps0 = mmt_stat("wp_shared_faults");
	wr0 = mmt_stat("store_folio_writes");
	shf0 = mmt_stat("file_faults_shared");

	/* first write: shared write fault on a none PTE */
	mmt_fill(BASE, PG, 0x20);
	CU_ASSERT(mmt_stat("file_faults_shared") == shf0 + 1);
	CU_ASSERT(mmt_stat("minflt") == min0 + 1);
	CU_ASSERT(!store_has(f, 0, 0x20));
	OK(vfs_fsync(f, 0));
	CU_ASSERT(store_has(f, 0, 0x20));
	CU_ASSERT(mmt_stat("mkclean_ptes") == mk0 + 1);
	CU_ASSERT(mmt_stat("store_folio_writes") == wr0 + 1);
	CU_ASSERT(pte_clean_ro(mm, BASE));
	fo = folio_at(mm, BASE);
	CU_ASSERT(folio_store_current(fo));

	/* the write after the fsync: a write-protect fault re-dirties */
	mmt_fill(BASE, PG, 0x30);
	CU_ASSERT(mmt_stat("wp_shared_faults") == wps0 + 1);
	CU_ASSERT(mmt_stat("minflt") == min0 + 2);
	CU_ASSERT(folio_at(mm, BASE) == fo);
	CU_ASSERT(folio_test_dirty(fo));
	CU_ASSERT(pte_write(mm_pte_read(mm, BASE)) && pte_dirty(mm_pte_read(mm, BASE)));
	OK(vfs_fsync(f, 0));
	CU_ASSERT(store_has(f, 0, 0x30));
	CU_ASSERT(mmt_stat("mkclean_ptes") == mk0 + 2);
	CU_ASSERT(mmt_stat("store_folio_writes") == wr0 + 2);
	CU_ASSERT(pte_clean_ro(mm, BASE));

	/* nothing new: fsync writes nothing and cleans nothing */
	OK(vfs_fsync(f, 0));
	CU_ASSERT(mmt_stat("mkclean_ptes") == mk0 + 2);
	CU_ASSERT(mmt_stat("store_folio_writes") == wr0 + 2);
	/* a read through the cleaned PTE does not fault */
	CU_ASSERT(mmt_check(BASE, PG, 0x30));
	CU_ASSERT(mmt_stat("minflt") == min0 + 2);
	/* page 1 was never touched */
	CU_ASSERT(store_has(f, 1, 0x11));
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 1);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 0);

	/* drop the cache: fsync left reclaim nothing to write back */
	rwb0 = mmt_stat("reclaim_writebacks");
	mm_reclaim_folios(1 << 16);
	CU_ASSERT(mmt_stat("reclaim_writebacks") == rwb0);
	CU_ASSERT(filemap_get_folio(f->f_mapping, 0) == NULL);
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 0);
	CU_ASSERT(mmt_file_has(f, 0, 0x30)); /* read back from the store */
	CU_ASSERT(mmt_file_has(f, 1, 0x11));
	/* the mapping refaults: page 0 is cached again by the read above */
	CU_ASSERT(mmt_check(BASE, PG, 0x30));
	CU_ASSERT(mmt_stat("minflt") == min0 + 3);
	CU_ASSERT(mmt_stat("majflt") == maj0);
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 1);
	mmt_exit(t);
	drop_file(f, "/wb");
	CU_ASSERT(mmt_all_freed());
}

/* A write after an fsync, then no fsync: reclaim (it unmaps first, moving
 * the PTE dirty bit) and munmap (zap moves it) still get it to the store. */
static void test_write_after_fsync_reclaim_munmap(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/wbu", 2, 0x10);
	uint64_t rwb0;

	CU_ASSERT(vm_mmap(mm, BASE, 2 * PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)BASE);
	mmt_fill(BASE, 2 * PG, 0x21);
	OK(vfs_fsync(f, 0));
	mmt_fill(BASE, 2 * PG, 0x31);
	/* page 0 through reclaim */
	rwb0 = mmt_stat("reclaim_writebacks");
	mm_reclaim_folios(1 << 16);
	CU_ASSERT(mmt_stat("reclaim_writebacks") == rwb0 + 2);
	CU_ASSERT(store_has(f, 0, 0x31) && store_has(f, 1, 0x32));
	CU_ASSERT(filemap_get_folio(f->f_mapping, 0) == NULL);
	CU_ASSERT(mmt_check(BASE, 2 * PG, 0x31)); /* major faults */
	/* page 1 through munmap + fsync */
	mmt_fill(BASE + PG, PG, 0x41);
	OK(vfs_fsync(f, 0));
	mmt_fill(BASE + PG, PG, 0x51);
	OK(vm_munmap(mm, BASE, 2 * PG));
	CU_ASSERT(store_has(f, 1, 0x41));
	OK(vfs_fsync(f, 0));
	CU_ASSERT(store_has(f, 1, 0x51) && store_has(f, 0, 0x31));
	mmt_exit(t);
	drop_file(f, "/wbu");
	CU_ASSERT(mmt_all_freed());
}

/* Private mappings never reach the file; mkclean leaves their PTEs alone. */
static void test_private_never_reaches_file(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/priv", 2, 0x40);
	const unsigned long SH = BASE + 4 * PG;
	uint64_t mk0, cow0, rwb0;
	pte_t ppte;

	OK(vfs_fsync(f, 0));
	CU_ASSERT(vm_mmap(mm, BASE, 2 * PG, RW, MAP_PRIVATE | MAP_FIXED, f, 0) == (long)BASE);
	CU_ASSERT(vm_mmap(mm, SH, 2 * PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)SH);
	mk0 = mmt_stat("mkclean_ptes");
	cow0 = mmt_stat("cow_faults");
	/* read faults on both: read-only PTEs of the same cache folio */
	CU_ASSERT(mmt_check(BASE, PG, 0x40));
	CU_ASSERT(mmt_check(SH, PG, 0x40));
	CU_ASSERT(folio_at(mm, BASE) == folio_at(mm, SH));
	OK(vfs_fsync(f, 0));
	CU_ASSERT(mmt_stat("mkclean_ptes") == mk0); /* nothing writable */

	/* private writes: a COW after the read, a do_cow_fault on page 1 */
	mmt_fill(BASE, 2 * PG, 0x50);
	CU_ASSERT(mmt_stat("cow_faults") == cow0 + 1);
	CU_ASSERT(mm_folio_is_anon(folio_at(mm, BASE)));
	OK(vfs_fsync(f, 0));
	CU_ASSERT(store_has(f, 0, 0x40) && store_has(f, 1, 0x41));
	CU_ASSERT(mmt_file_has(f, 0, 0x40) && mmt_file_has(f, 1, 0x41));
	CU_ASSERT(mmt_stat("mkclean_ptes") == mk0);

	/* a shared write beside them: only the shared PTE is cleaned */
	mmt_fill(SH, PG, 0x60);
	ppte = mm_pte_read(mm, BASE);
	OK(vfs_fsync(f, 0));
	CU_ASSERT(mmt_stat("mkclean_ptes") == mk0 + 1);
	CU_ASSERT(store_has(f, 0, 0x60) && store_has(f, 1, 0x41));
	CU_ASSERT(mm_pte_read(mm, BASE) == ppte); /* the private copy's PTE untouched */
	CU_ASSERT(pte_clean_ro(mm, SH));
	CU_ASSERT(mmt_check(BASE, 2 * PG, 0x50)); /* private copies keep theirs */
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 2);
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 1);

	rwb0 = mmt_stat("reclaim_writebacks");
	mm_reclaim_folios(1 << 16);
	CU_ASSERT(mmt_stat("reclaim_writebacks") == rwb0);
	CU_ASSERT(mmt_file_has(f, 0, 0x60) && mmt_file_has(f, 1, 0x41));
	CU_ASSERT(mmt_check(BASE, 2 * PG, 0x50));
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 2);
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 0);
	mmt_exit(t);
	drop_file(f, "/priv");
	CU_ASSERT(mmt_all_freed());
}

/* One page mapped shared by two VMAs of a process and by a forked child:
 * every writer's PTE is cleaned, each write after an fsync faults once. */
static void test_many_mappings(void)
{
	struct task_struct *t = mmt_new_proc(), *c;
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/many", 1, 0x10);
	const unsigned long A = BASE, B = BASE + 4 * PG;
	uint64_t mk0, wps0;

	CU_ASSERT(vm_mmap(mm, A, PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)A);
	CU_ASSERT(vm_mmap(mm, B, PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)B);
	c = task_fork(t);
	CU_ASSERT_FATAL(c != NULL);
	mk0 = mmt_stat("mkclean_ptes");
	wps0 = mmt_stat("wp_shared_faults");

	mmt_fill(A, PG, 0x70);		   /* parent, VMA A: writable, dirty */
	CU_ASSERT(mmt_check(B, PG, 0x70)); /* parent, VMA B: read-only */
	OK(vfs_fsync(f, 0));
	CU_ASSERT(store_has(f, 0, 0x70));
	CU_ASSERT(mmt_stat("mkclean_ptes") == mk0 + 1);

	mmt_fill_mm(c->mm, A, PG, 0x71); /* child: fault on none, writable */
	OK(vfs_fsync(f, 0));
	CU_ASSERT(store_has(f, 0, 0x71));
	CU_ASSERT(mmt_stat("mkclean_ptes") == mk0 + 2);
	CU_ASSERT(pte_clean_ro(c->mm, A) && pte_clean_ro(mm, A) && pte_clean_ro(mm, B));

	mmt_fill(B, PG, 0x72); /* write-notify on B */
	OK(vfs_fsync(f, 0));
	CU_ASSERT(store_has(f, 0, 0x72));
	mmt_fill(A, PG, 0x73); /* A was cleaned by the first fsync */
	mmt_fill_mm(c->mm, A, PG, 0x74);
	CU_ASSERT(mmt_stat("wp_shared_faults") == wps0 + 3);
	OK(vfs_fsync(f, 0));
	CU_ASSERT(store_has(f, 0, 0x74));
	CU_ASSERT(mmt_stat("mkclean_ptes") == mk0 + 5);
	CU_ASSERT(mmt_check_mm(c->mm, A, PG, 0x74) && mmt_check(B, PG, 0x74));
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 2);
	CU_ASSERT(get_mm_counter(c->mm, MM_FILEPAGES) == 1);
	mmt_exit(c);
	mmt_exit(t);
	drop_file(f, "/many");
	CU_ASSERT(mmt_all_freed());
}

/*
 * The copy straddles the fsync: the writer has validated its writable PTE
 * (and set DIRTY) and is parked before its copy (injection point
 * mm_access_copy, inside its translation-in-use section) when another
 * thread's fsync cleans the PTE.  folio_mkclean's flush must wait for the
 * copy (tlb_flush_waits), so the fsync that was running while the write
 * was in flight writes the new bytes: nothing is left dirty for later.
 */
static void *straddle_writer(void *arg)
{
	unsigned char buf[PG];

	(void)arg;
	memset(buf, 0x90, PG);
	return (void *)(long)rv_mm_write(BASE, buf, PG);
}

static void *straddle_fsync(void *arg)
{
	return (void *)(long)vfs_fsync((struct file *)arg, 0);
}

static void test_write_straddles_fsync(void)
{
	struct task_struct *t = mmt_new_proc(), *tw, *tf;
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/straddle", 1, 0x10);
	struct mmt_thread wth, fth;
	uint64_t waits;
	struct folio *fo;

	CU_ASSERT(vm_mmap(mm, BASE, PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)BASE);
	mmt_fill(BASE, PG, 0x80); /* mapped writable and dirty */
	fo = folio_at(mm, BASE);
	tw = task_clone_thread(t);
	tf = task_clone_thread(t);
	CU_ASSERT_FATAL(tw != NULL && tf != NULL);
	CU_ASSERT(rv_inject_set_pause("mm_access_copy", 1) == 0);
	mmt_thread_start(&wth, tw, straddle_writer, NULL);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("mm_access_copy", 1, 20000) == 0);
	waits = mmt_stat("tlb_flush_waits");
	mmt_thread_start(&fth, tf, straddle_fsync, f);
	/* fsync reaches folio_mkclean's flush and waits for the writer */
	for (long i = 0; mmt_stat("tlb_flush_waits") == waits; i++) {
		CU_ASSERT_FATAL(i < 100000000);
		CU_ASSERT_FATAL(!__atomic_load_n(&fth.done, __ATOMIC_ACQUIRE));
		sched_yield();
	}
	CU_ASSERT(!__atomic_load_n(&fth.done, __ATOMIC_ACQUIRE));
	rv_inject_release("mm_access_copy");
	CU_ASSERT(mmt_thread_join(&wth) == NULL);
	CU_ASSERT(mmt_thread_join(&fth) == NULL);
	rv_inject_clear_all();
	CU_ASSERT(store_has(f, 0, 0x90)); /* the in-flight write made it */
	CU_ASSERT(pte_clean_ro(mm, BASE));
	CU_ASSERT(!folio_test_dirty(fo));
	mmt_exit(tf);
	mmt_exit(tw);
	mmt_exit(t);
	drop_file(f, "/straddle");
	CU_ASSERT(mmt_all_freed());
}

/*
 * The copy straddles an munmap and an fsync: the writer is parked in its
 * copy (writable translation loaded, DIRTY set in the PTE) when another
 * thread munmaps the page, and a third fsyncs while munmap waits in its
 * TLB flush.  zap_pte_range (mm/memory.c, Linux 6.2+, "mm: delay
 * page_remove_rmap() until after the TLB has been flushed") flushes
 * before it drops the PTE lock when it clears a dirty PTE of a file
 * folio, and removes the rmap only after that flush: the folio still
 * looks mapped, so fsync's folio_mkclean walks to the PTE, waits on its
 * lock until the flush (and so the copy) is done, and writes the new
 * bytes.  When zap dropped the mapcount at once and flushed only at the
 * end of munmap, fsync skipped folio_mkclean, wrote the old bytes and
 * cleaned the folio; the copy landed after it: a write that returned
 * before munmap and fsync returned never reached the file.
 */
struct unmap_arg {
	struct mm_struct *mm;
	struct file *f;
};

static void *straddle_munmap(void *arg)
{
	return (void *)(long)vm_munmap(((struct unmap_arg *)arg)->mm, BASE, PG);
}

static void test_write_straddles_munmap_fsync(void)
{
	struct task_struct *t = mmt_new_proc(), *tw, *tu, *tf;
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/straddle-unmap", 1, 0x10);
	struct unmap_arg ua = {mm, f};
	struct mmt_thread wth, uth, fth;
	uint64_t waits;

	CU_ASSERT(vm_mmap(mm, BASE, PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)BASE);
	mmt_fill(BASE, PG, 0x80); /* mapped writable and dirty */
	OK(vfs_fsync(f, 0));
	CU_ASSERT(store_has(f, 0, 0x80));
	tw = task_clone_thread(t);
	tu = task_clone_thread(t);
	tf = task_clone_thread(t);
	CU_ASSERT_FATAL(tw != NULL && tu != NULL && tf != NULL);
	CU_ASSERT(rv_inject_set_pause("mm_access_copy", 1) == 0);
	mmt_thread_start(&wth, tw, straddle_writer, NULL);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("mm_access_copy", 1, 20000) == 0);
	waits = mmt_stat("tlb_flush_waits");
	mmt_thread_start(&uth, tu, straddle_munmap, &ua);
	/* munmap has cleared the PTE and waits in its flush for the writer */
	for (long i = 0; mmt_stat("tlb_flush_waits") == waits; i++) {
		CU_ASSERT_FATAL(i < 100000000);
		CU_ASSERT_FATAL(!__atomic_load_n(&uth.done, __ATOMIC_ACQUIRE));
		sched_yield();
	}
	/* fsync either walks to the PTE (parked before its lock) or, when the
	 * folio no longer looks mapped, writes back at once */
	CU_ASSERT(rv_inject_set_pause("folio_check_address", 1) == 0);
	mmt_thread_start(&fth, tf, straddle_fsync, f);
	for (long i = 0; !rv_inject_arrivals("folio_check_address") &&
			 !__atomic_load_n(&fth.done, __ATOMIC_ACQUIRE);
	     i++) {
		CU_ASSERT_FATAL(i < 100000000);
		sched_yield();
	}
	rv_inject_release("mm_access_copy");
	CU_ASSERT(mmt_thread_join(&wth) == NULL);
	rv_inject_release("folio_check_address");
	CU_ASSERT(mmt_thread_join(&fth) == NULL);
	CU_ASSERT(mmt_thread_join(&uth) == NULL);
	rv_inject_clear_all();
	/* the fsync that ran while the write was in flight wrote it */
	CU_ASSERT(store_has(f, 0, 0x90));
	/* and nothing was left behind: the write returned, munmap and fsync
	 * returned, so the file has it after one more fsync and reclaim */
	OK(vfs_fsync(f, 0));
	mm_reclaim_folios(1 << 16);
	CU_ASSERT(store_has(f, 0, 0x90));
	mmt_exit(tf);
	mmt_exit(tu);
	mmt_exit(tw);
	mmt_exit(t);
	drop_file(f, "/straddle-unmap");
	CU_ASSERT(mmt_all_freed());
}

/*
 * A writer thread rewrites 4 shared pages until told to stop while this
 * thread runs a fixed number of fsyncs (PTE cleaning racing the walker's
 * DIRTY cmpxchg, write-notify faults, copies in flight).  Only the end
 * state is checked, so the outcome does not depend on how the two
 * interleave: after the writer stopped, one more fsync leaves the store
 * equal to the last write of every page, and reclaim then finds nothing
 * to write back.
 */
#define RACE_PAGES  4
#define RACE_FSYNCS 1000

struct race {
	int started;			/* atomic */
	int stop;			/* atomic */
	unsigned char last[RACE_PAGES]; /* the writer's last value per page */
};

static void *race_writer(void *arg)
{
	struct race *r = arg;
	unsigned char buf[PG];

	for (long i = 1; !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE); i++) {
		int p = (int)(i % RACE_PAGES);

		memset(buf, (unsigned char)i, PG);
		if (rv_mm_write(BASE + (unsigned long)p * PG, buf, PG))
			return (void *)1;
		r->last[p] = (unsigned char)i;
		__atomic_store_n(&r->started, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void test_fsync_races_writer(void)
{
	struct task_struct *t = mmt_new_proc(), *w;
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/race", RACE_PAGES, 0);
	struct race r = {0};
	struct mmt_thread th;
	struct timespec t0, now;
	uint64_t rwb0;

	CU_ASSERT(vm_mmap(mm, BASE, RACE_PAGES * PG, RW, MAP_SHARED | MAP_FIXED, f, 0) ==
		  (long)BASE);
	for (int p = 0; p < RACE_PAGES; p++)
		r.last[p] = (unsigned char)p; /* make_file's contents */
	w = task_clone_thread(t);
	CU_ASSERT_FATAL(w != NULL);
	mmt_thread_start(&th, w, race_writer, &r);
	/* let the writer get going (bounded wait; it only helps overlap) */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!__atomic_load_n(&r.started, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&th.done, __ATOMIC_ACQUIRE)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 10)
			break;
		sched_yield();
	}
	for (int i = 0; i < RACE_FSYNCS; i++)
		CU_ASSERT(vfs_fsync(f, 0) == 0);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	CU_ASSERT(mmt_thread_join(&th) == NULL);
	OK(vfs_fsync(f, 0));
	for (int p = 0; p < RACE_PAGES; p++)
		CU_ASSERT(store_has(f, p, r.last[p]));
	rwb0 = mmt_stat("reclaim_writebacks");
	mm_reclaim_folios(1 << 16);
	CU_ASSERT(mmt_stat("reclaim_writebacks") == rwb0);
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 0);
	mmt_exit(w);
	mmt_exit(t);
	drop_file(f, "/race");
	CU_ASSERT(mmt_all_freed());
}

RVTEST_SUITE(mm_writeback, rvtest_instance_init, rvtest_instance_cleanup,
	     RVTEST(test_write_after_fsync), RVTEST(test_write_after_fsync_reclaim_munmap),
	     RVTEST(test_private_never_reaches_file), RVTEST(test_many_mappings),
	     RVTEST(test_write_straddles_fsync), RVTEST(test_write_straddles_munmap_fsync),
	     RVTEST(test_fsync_races_writer));
