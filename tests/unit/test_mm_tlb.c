// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_mm_tlb.c - every place the kernel flushes the TLB after
 * a PTE change flushes in the model too, and the flush waits for a model
 * access that loaded the old translation (a shootdown waits for every CPU).
 *
 * One pattern per site: a thread of the process is parked inside its
 * access, translation loaded, copy not done (injection point
 * mm_access_copy); another thread makes the change.  The change must not
 * return before the access is done: it waits in its flush
 * (tlb_flush_waits + 1, the changer not finished).  Without the flush the
 * changer returns at once, which the test sees as "done before any flush
 * waited".  Where users can see it, the outcome is checked from outside
 * too:
 *
 *   site                      kernel                      seen from outside
 *   mprotect(PROT_READ)       change_protection           the byte written is there when mprotect
 * returns NUMA-hinting scan         change_prot_numa            the byte written is there when the
 * scan returns reclaim of a file page    try_to_unmap_one            the file has the byte after
 * reclaim (else: lost, a write into a freed folio) munmap                    unmap_region
 * (mmu_gather)   munmap does not return while the store is in flight COW of a shared page
 * wp_page_copy                the copy does not replace the PTE under a reader hole punch
 * unmap_mapping_range         the page reads as zeroes once the punch returned
 */
#include "test_mm_util.h"

#include <fcntl.h>
#include <sched.h>

#define BASE	0x30000000UL
#define RW	(PROT_READ | PROT_WRITE)
#define PUNCH	(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)
#define WAIT_MS 20000

struct acc_arg {
	unsigned long addr;
	unsigned char val;
	bool write;
	int ret;
};

static void *accessor(void *p)
{
	struct acc_arg *a = p;

	a->ret = a->write ? rv_mm_write(a->addr, &a->val, 1) : rv_mm_read(a->addr, &a->val, 1);
	return NULL;
}

static unsigned char read_byte(struct mm_struct *mm, unsigned long addr)
{
	unsigned char v = 0;

	CU_ASSERT(mm_access(mm, addr, &v, 1, false) == 0);
	return v;
}

/* The byte at addr, or -1 (workers record, the main thread asserts). */
static int peek_byte(struct mm_struct *mm, unsigned long addr)
{
	unsigned char v = 0;

	return mm_access(mm, addr, &v, 1, false) ? -1 : v;
}

/* The change under test, run by a thread of the process. */
struct change {
	struct mm_struct *mm;
	struct file *f;
	long (*fn)(struct change *c);
	long ret;
	int after; /* a byte read right after fn returned (-1: none) */
};

static void *changer(void *p)
{
	struct change *c = p;

	c->ret = c->fn(c);
	return NULL;
}

/*
 * Park `acc` inside its access, start `c`, and check that c waits in a
 * TLB flush until the access is released.  Returns whether it did.
 */
static bool change_waits_for_access(struct task_struct *t, struct acc_arg *acc, struct change *c)
{
	struct task_struct *ta = task_clone_thread(t), *tc = task_clone_thread(t);
	struct mmt_thread ath, cth;
	uint64_t waits;
	bool waited;

	CU_ASSERT_FATAL(ta && tc);
	CU_ASSERT(rv_inject_set_pause("mm_access_copy", 1) == 0);
	mmt_thread_start(&ath, ta, accessor, acc);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("mm_access_copy", 1, WAIT_MS) == 0);
	waits = mmt_stat("tlb_flush_waits");
	mmt_thread_start(&cth, tc, changer, c);
	/* either the change waits in a flush, or it finished without one */
	for (long i = 0;
	     mmt_stat("tlb_flush_waits") == waits && !__atomic_load_n(&cth.done, __ATOMIC_ACQUIRE);
	     i++) {
		CU_ASSERT_FATAL(i < 100000000);
		sched_yield();
	}
	waited = !__atomic_load_n(&cth.done, __ATOMIC_ACQUIRE);
	rv_inject_release("mm_access_copy");
	mmt_thread_join(&ath);
	mmt_thread_join(&cth);
	rv_inject_clear_all();
	CU_ASSERT(acc->ret == 0);
	mmt_exit(tc);
	mmt_exit(ta);
	return waited;
}

static long change_mprotect_ro(struct change *c)
{
	long r = vm_mprotect(c->mm, BASE, PG, PROT_READ);

	c->after = peek_byte(c->mm, BASE);
	return r;
}

static void test_mprotect_flush(void)
{
	struct task_struct *t = mmt_new_proc();
	struct acc_arg acc = {.addr = BASE, .val = 0xAA, .write = true, .ret = -1};
	struct change c = {.mm = t->mm, .fn = change_mprotect_ro, .after = -1};
	unsigned char b = 0xCC;

	CU_ASSERT(mmt_map(t->mm, BASE, PG, RW) == (long)BASE);
	mmt_fill(BASE, PG, 0x11);
	CU_ASSERT(change_waits_for_access(t, &acc, &c));
	CU_ASSERT(c.ret == 0);
	/* the store was done when mprotect returned: no write after it */
	CU_ASSERT(c.after == 0xAA);
	CU_ASSERT(rv_mm_write(BASE, &b, 1) == -EFAULT);
	CU_ASSERT(read_byte(t->mm, BASE) == 0xAA);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

static long do_numa_scan(struct change *c)
{
	long r = task_numa_work(c->mm);

	c->after = peek_byte(c->mm, BASE); /* takes the hinting fault */
	return r;
}

static void test_numa_scan_flush(void)
{
	struct task_struct *t = mmt_new_proc();
	struct acc_arg acc = {.addr = BASE, .val = 0xAA, .write = true, .ret = -1};
	struct change c = {.mm = t->mm, .fn = do_numa_scan, .after = -1};
	uint64_t hints = mmt_stat("numa_hint_faults");

	CU_ASSERT(mmt_map(t->mm, BASE, PG, RW) == (long)BASE);
	mmt_fill(BASE, PG, 0x11);
	CU_ASSERT(change_waits_for_access(t, &acc, &c));
	CU_ASSERT(c.ret >= 1);
	CU_ASSERT(c.after == 0xAA);
	CU_ASSERT(mmt_stat("numa_hint_faults") == hints + 1);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

static long do_reclaim(struct change *c)
{
	(void)c;
	return mm_reclaim_folios(1 << 16);
}

static void test_reclaim_flush(void)
{
	struct task_struct *t = mmt_new_proc();
	struct file *f = mmt_make_file("/tlb-reclaim", 1, 0x10);
	struct acc_arg acc = {.addr = BASE, .val = 0xAA, .write = true, .ret = -1};
	struct change c = {.mm = t->mm, .f = f, .fn = do_reclaim, .after = -1};
	uint64_t maj;

	CU_ASSERT(vm_mmap(t->mm, BASE, PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)BASE);
	mmt_fill(BASE, PG, 0x80); /* writable and dirty */
	CU_ASSERT(change_waits_for_access(t, &acc, &c));
	CU_ASSERT(c.ret >= 1); /* the folio went to the store */
	/* the store has the byte whose write was in flight during reclaim:
	 * it reads back through a major fault */
	maj = mmt_stat("majflt");
	CU_ASSERT(read_byte(t->mm, BASE) == 0xAA);
	CU_ASSERT(mmt_stat("majflt") == maj + 1);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/tlb-reclaim") == 0);
	CU_ASSERT(mmt_all_freed());
}

static long do_munmap_page(struct change *c)
{
	return vm_munmap(c->mm, BASE, PG);
}

static void test_munmap_flush(void)
{
	struct task_struct *t = mmt_new_proc();
	struct acc_arg acc = {.addr = BASE, .val = 0xAA, .write = true, .ret = -1};
	struct change c = {.mm = t->mm, .fn = do_munmap_page, .after = -1};

	CU_ASSERT(mmt_map(t->mm, BASE, PG, RW) == (long)BASE);
	mmt_fill(BASE, PG, 0x11);
	CU_ASSERT(change_waits_for_access(t, &acc, &c));
	CU_ASSERT(c.ret == 0);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/* A write into the shared page COWs it under a parked reader. */
static long do_cow_write(struct change *c)
{
	unsigned char b = 0xBB;

	return mm_access(c->mm, BASE + 1, &b, 1, true);
}

static void test_wp_page_copy_flush(void)
{
	struct task_struct *t = mmt_new_proc(), *child;
	struct acc_arg acc = {.addr = BASE, .write = false, .ret = -1};
	struct change c = {.mm = t->mm, .fn = do_cow_write, .after = -1};
	uint64_t cows = mmt_stat("cow_faults");

	CU_ASSERT(mmt_map(t->mm, BASE, PG, RW) == (long)BASE);
	mmt_fill(BASE, PG, 0x11);
	child = task_fork(t); /* the page is shared and write-protected */
	CU_ASSERT_FATAL(child != NULL);
	CU_ASSERT(change_waits_for_access(t, &acc, &c));
	CU_ASSERT(c.ret == 0);
	CU_ASSERT(acc.val == 0x11);
	CU_ASSERT(mmt_stat("cow_faults") == cows + 1);
	CU_ASSERT(read_byte(t->mm, BASE + 1) == 0xBB);
	CU_ASSERT(read_byte(child->mm, BASE + 1) == 0x11);
	mmt_exit(child);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

static long do_punch(struct change *c)
{
	long r = vfs_fallocate(c->f, PUNCH, 0, PG);

	c->after = peek_byte(c->mm, BASE);
	return r;
}

static void test_punch_flush(void)
{
	struct task_struct *t = mmt_new_proc();
	struct file *f = mmt_make_file("/tlb-punch", 1, 0x10);
	struct acc_arg acc = {.addr = BASE, .val = 0xAA, .write = true, .ret = -1};
	struct change c = {.mm = t->mm, .f = f, .fn = do_punch, .after = -1};

	CU_ASSERT(vm_mmap(t->mm, BASE, PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)BASE);
	mmt_fill(BASE, PG, 0x80);
	CU_ASSERT(change_waits_for_access(t, &acc, &c));
	CU_ASSERT(c.ret == 0);
	/* punched: zeroes once the punch returned, the store before it */
	CU_ASSERT(c.after == 0);
	CU_ASSERT(read_byte(t->mm, BASE) == 0);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/tlb-punch") == 0);
	CU_ASSERT(mmt_all_freed());
}

/* madvise(MADV_DONTNEED): zap's mmu_gather flushes before the folio goes */
static long do_dontneed(struct change *c)
{
	long r = do_madvise(c->mm, BASE, PG, MADV_DONTNEED);

	c->after = peek_byte(c->mm, BASE);
	return r;
}

static void test_madvise_dontneed_flush(void)
{
	struct task_struct *t = mmt_new_proc();
	struct acc_arg acc = {.addr = BASE, .val = 0xAA, .write = true, .ret = -1};
	struct change c = {.mm = t->mm, .fn = do_dontneed, .after = -1};

	CU_ASSERT(mmt_map(t->mm, BASE, PG, RW) == (long)BASE);
	mmt_fill(BASE, PG, 0x11);
	CU_ASSERT(change_waits_for_access(t, &acc, &c));
	CU_ASSERT(c.ret == 0);
	CU_ASSERT(c.after == 0); /* zeroes once DONTNEED returned */
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/* madvise(MADV_FREE): the PTE made clean is flushed, so no writer keeps a
 * translation that would not set DIRTY again */
static long do_free(struct change *c)
{
	return do_madvise(c->mm, BASE, PG, MADV_FREE);
}

static void test_madvise_free_flush(void)
{
	struct task_struct *t = mmt_new_proc();
	struct acc_arg acc = {.addr = BASE, .val = 0xAA, .write = true, .ret = -1};
	struct change c = {.mm = t->mm, .fn = do_free, .after = -1};

	CU_ASSERT(mmt_map(t->mm, BASE, PG, RW) == (long)BASE);
	mmt_fill(BASE, PG, 0x11);
	CU_ASSERT(change_waits_for_access(t, &acc, &c));
	CU_ASSERT(c.ret == 0);
	CU_ASSERT(read_byte(t->mm, BASE) == 0xAA);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/* mremap: move_ptes flushes the old range before dropping the PTE lock */
static long do_mremap_move(struct change *c)
{
	long r = do_mremap(c->mm, BASE, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, BASE + 64 * PG);

	c->after = peek_byte(c->mm, BASE + 64 * PG);
	return r;
}

static void test_mremap_flush(void)
{
	struct task_struct *t = mmt_new_proc();
	struct acc_arg acc = {.addr = BASE, .val = 0xAA, .write = true, .ret = -1};
	struct change c = {.mm = t->mm, .fn = do_mremap_move, .after = -1};

	CU_ASSERT(mmt_map(t->mm, BASE, PG, RW) == (long)BASE);
	mmt_fill(BASE, PG, 0x11);
	CU_ASSERT(change_waits_for_access(t, &acc, &c));
	CU_ASSERT(c.ret == (long)(BASE + 64 * PG));
	CU_ASSERT(c.after == 0xAA); /* the store is at the new address when mremap returns */
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

RVTEST_SUITE(mm_tlb, rvtest_instance_init, rvtest_instance_cleanup, RVTEST(test_mprotect_flush),
	     RVTEST(test_numa_scan_flush), RVTEST(test_reclaim_flush), RVTEST(test_munmap_flush),
	     RVTEST(test_wp_page_copy_flush), RVTEST(test_punch_flush),
	     RVTEST(test_madvise_dontneed_flush), RVTEST(test_madvise_free_flush),
	     RVTEST(test_mremap_flush))
