// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_mm_punch.c - fallocate(FALLOC_FL_PUNCH_HOLE) against
 * mappings, faults and reclaim.  After a punch returns, every mapping of a
 * whole punched page reads zeroes and the file reads zeroes there, however
 * a fault or reclaim interleaved with it: the punch parks at the injection
 * point "punch_hole_after_unmap" (after it unmapped the range through
 * i_mmap, before it drops the folios) while the test faults the page back
 * in, or reclaims it to the backing store.
 *
 *   fault:   the re-faulted PTE maps the folio the punch is about to drop;
 *            truncate_inode_pages_range must unmap it again under the folio
 *            lock (truncate_cleanup_folio), or the mapping keeps reading the
 *            old data from a folio that left the file.
 *   reclaim: the punched pages move from the cache to the store; the punch
 *            must drop them there too, or the old data comes back on the
 *            next read and the blocks stay used.
 * Private COW copies survive a punch (unmap_mapping_range, even_cows 0).
 */
#include "test_mm_util.h"

#include <fcntl.h>

#define BASE	0x30000000UL
#define RW	(PROT_READ | PROT_WRITE)
#define WAIT_MS 60000
#define PUNCH	(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)

struct punch_arg {
	struct file *file;
	int64_t off, len;
	int ret;
};

static void *punch_fn(void *p)
{
	struct punch_arg *a = p;

	a->ret = vfs_fallocate(a->file, PUNCH, a->off, a->len);
	return NULL;
}

static int64_t blocks_of(struct file *f)
{
	struct kstat st;

	vfs_getattr(f->f_inode, &st);
	return st.blocks;
}

/* 1 if bytes [off, off+len) of the file read as val. */
static int file_is(struct file *f, int64_t off, size_t len, unsigned char val)
{
	unsigned char buf[PG];
	int64_t pos = off;

	if (len > sizeof(buf) || vfs_read(f, buf, len, &pos) != (ssize_t)len)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (buf[i] != val)
			return 0;
	return 1;
}

/* 1 if [addr, addr+len) of current's memory reads as val. */
static int mem_is(unsigned long addr, size_t len, unsigned char val)
{
	unsigned char buf[PG];

	if (len > sizeof(buf) || rv_mm_read(addr, buf, len))
		return 0;
	for (size_t i = 0; i < len; i++)
		if (buf[i] != val)
			return 0;
	return 1;
}

static void test_punch_mapped(void)
{
	struct task_struct *t = mmt_new_proc();
	struct file *f = mmt_make_file("/pm", 4, 10);
	unsigned char c = 0x77;
	uint64_t n0 = mmt_stat("unmap_mapping_ptes");

	CU_ASSERT(vm_mmap(t->mm, BASE, 4 * PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)BASE);
	CU_ASSERT(vm_mmap(t->mm, BASE + 8 * PG, 4 * PG, RW, MAP_PRIVATE | MAP_FIXED, f, 0) ==
		  (long)(BASE + 8 * PG));
	CU_ASSERT(mmt_check(BASE, 4 * PG, 10));
	CU_ASSERT(mmt_check(BASE + 8 * PG, 4 * PG, 10));
	CU_ASSERT(rv_mm_write(BASE + 10 * PG, &c, 1) == 0); /* a COW copy of page 2 */
	/* bytes 100 .. 3*PG-1: page 0 partial, pages 1 and 2 whole */
	CU_ASSERT(vfs_fallocate(f, PUNCH, 100, 3 * PG - 100) == 0);
	CU_ASSERT(mmt_stat("unmap_mapping_ptes") > n0);
	/* the whole pages left both mappings; the partial page stays mapped
	 * and shows the zeroes through the same folio */
	CU_ASSERT(mm_pte_read(t->mm, BASE + PG) == 0 && mm_pte_read(t->mm, BASE + 2 * PG) == 0);
	CU_ASSERT(mm_pte_read(t->mm, BASE) != 0);
	CU_ASSERT(mem_is(BASE, 100, 10));
	CU_ASSERT(mem_is(BASE + 100, PG - 100, 0));
	CU_ASSERT(mem_is(BASE + PG, PG, 0) && mem_is(BASE + 2 * PG, PG, 0));
	CU_ASSERT(mem_is(BASE + 3 * PG, PG, 13));
	/* the private COW copy is the process's own: it stays */
	CU_ASSERT(mm_pte_read(t->mm, BASE + 10 * PG) != 0);
	CU_ASSERT(mem_is(BASE + 10 * PG, 1, 0x77) && mem_is(BASE + 10 * PG + 1, PG - 1, 12));
	CU_ASSERT(mem_is(BASE + 9 * PG, PG, 0));
	CU_ASSERT(file_is(f, PG, PG, 0) && file_is(f, 2 * PG, PG, 0));
	/* re-faulted shared pages are holes again (zero-filled, one block) */
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/pm") == 0);
	CU_ASSERT(mmt_all_freed());
}

/*
 * A punch that ends inside page 0: shmem_fallocate's unmap_end is -1 and
 * passes its unsigned test, so unmap_mapping_range unmaps every shared PTE
 * of the file from the first whole page after offset to the end (Linux
 * 6.18, seen on the host's tmpfs); private COW copies stay, data too.
 */
static void test_punch_in_page0(void)
{
	struct task_struct *t = mmt_new_proc();
	struct file *f = mmt_make_file("/p0", 4, 20);
	unsigned char c = 0x55;

	CU_ASSERT(vm_mmap(t->mm, BASE, 4 * PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)BASE);
	CU_ASSERT(vm_mmap(t->mm, BASE + 8 * PG, 4 * PG, RW, MAP_PRIVATE | MAP_FIXED, f, 0) ==
		  (long)(BASE + 8 * PG));
	CU_ASSERT(mmt_check(BASE, 4 * PG, 20));
	CU_ASSERT(rv_mm_write(BASE + 11 * PG, &c, 1) == 0); /* a COW copy of page 3 */
	/* bytes 10..109: page 1 on loses its shared PTEs, page 0 keeps its */
	CU_ASSERT(vfs_fallocate(f, PUNCH, 10, 100) == 0);
	CU_ASSERT(mm_pte_read(t->mm, BASE) != 0);
	for (int i = 1; i < 4; i++)
		CU_ASSERT(mm_pte_read(t->mm, BASE + (unsigned long)i * PG) == 0);
	CU_ASSERT(mm_pte_read(t->mm, BASE + 11 * PG) != 0);
	/* at offset 0 every shared PTE goes */
	CU_ASSERT(mmt_check(BASE + PG, 3 * PG, 21));
	CU_ASSERT(vfs_fallocate(f, PUNCH, 0, 5) == 0);
	for (int i = 0; i < 4; i++)
		CU_ASSERT(mm_pte_read(t->mm, BASE + (unsigned long)i * PG) == 0);
	CU_ASSERT(mem_is(BASE, 5, 0) && mem_is(BASE + 5, 5, 20) && mem_is(BASE + 10, 100, 0));
	CU_ASSERT(mem_is(BASE + 3 * PG, PG, 23));
	CU_ASSERT(mem_is(BASE + 11 * PG, 1, 0x55));
	/* a punch of whole pages past page 0 unmaps just those */
	CU_ASSERT(vfs_fallocate(f, PUNCH, 2 * PG, PG) == 0);
	CU_ASSERT(mm_pte_read(t->mm, BASE + 3 * PG) != 0 && mm_pte_read(t->mm, BASE) != 0);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/p0") == 0);
	CU_ASSERT(mmt_all_freed());
}

static void test_punch_vs_fault(void)
{
	struct task_struct *t = mmt_new_proc(), *p = task_clone_thread(t);
	struct file *f = mmt_make_file("/pf", 4, 20);
	struct punch_arg a = {f, PG, 2 * PG, -1};
	struct mmt_thread th;
	struct folio *old;

	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT(vm_mmap(t->mm, BASE, 4 * PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)BASE);
	CU_ASSERT(mmt_check(BASE, 4 * PG, 20));
	old = filemap_get_folio(f->f_mapping, 1);
	CU_ASSERT_FATAL(old != NULL);
	CU_ASSERT(rv_inject_set_pause("punch_hole_after_unmap", 1) == 0);
	mmt_thread_start(&th, p, punch_fn, &a);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("punch_hole_after_unmap", 1, WAIT_MS) == 0);
	/* the punch unmapped pages 1-2; a fault maps page 1's cached folio
	 * again before the punch drops it (the race happened) */
	CU_ASSERT(mm_pte_read(t->mm, BASE + PG) == 0);
	CU_ASSERT(mem_is(BASE + PG, PG, 21));
	CU_ASSERT(folio_mapcount(old) == 1);
	rv_inject_release("punch_hole_after_unmap");
	mmt_thread_join(&th);
	rv_inject_clear_all();
	CU_ASSERT(a.ret == 0);
	/* after the punch: no PTE maps the dropped folio; the mapping and the
	 * file read zeroes, and a write through the mapping reaches the file */
	CU_ASSERT(folio_mapcount(old) == 0);
	CU_ASSERT(old->mapping == NULL);
	folio_put(old);
	CU_ASSERT(mem_is(BASE + PG, PG, 0) && mem_is(BASE + 2 * PG, PG, 0));
	CU_ASSERT(file_is(f, PG, PG, 0));
	mmt_fill(BASE + PG, PG, 99);
	CU_ASSERT(file_is(f, PG, PG, 99));
	CU_ASSERT(mem_is(BASE, PG, 20) && mem_is(BASE + 3 * PG, PG, 23));
	mmt_exit(p);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/pf") == 0);
	CU_ASSERT(mmt_all_freed());
}

static void test_punch_vs_reclaim(void)
{
	struct task_struct *t = mmt_new_proc(), *p = task_clone_thread(t);
	struct file *f = mmt_make_file("/pr", 4, 30);
	struct punch_arg a = {f, PG, 2 * PG, -1};
	struct mmt_thread th;
	struct folio *fo;
	uint64_t freed0 = mmt_stat("reclaim_freed");

	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT(blocks_of(f) == 4 * (PG / 512));
	CU_ASSERT(rv_inject_set_pause("punch_hole_after_unmap", 1) == 0);
	mmt_thread_start(&th, p, punch_fn, &a);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("punch_hole_after_unmap", 1, WAIT_MS) == 0);
	/* reclaim writes the (dirty) pages back and drops them from the cache
	 * while the punch waits: the old data now lives in the store only */
	mm_reclaim_folios(64);
	CU_ASSERT(mmt_stat("reclaim_freed") >= freed0 + 2);
	fo = filemap_get_folio(f->f_mapping, 1);
	CU_ASSERT(fo == NULL);
	if (fo)
		folio_put(fo);
	rv_inject_release("punch_hole_after_unmap");
	mmt_thread_join(&th);
	rv_inject_clear_all();
	CU_ASSERT(a.ret == 0);
	/* the punched pages are gone from the store too: zeroes, holes, and
	 * their blocks are free */
	CU_ASSERT(file_is(f, PG, PG, 0) && file_is(f, 2 * PG, PG, 0));
	CU_ASSERT(file_is(f, 0, PG, 30) && file_is(f, 3 * PG, PG, 33));
	CU_ASSERT(vfs_llseek(f, 0, SEEK_HOLE) == PG);
	CU_ASSERT(vfs_llseek(f, PG, SEEK_DATA) == 3 * PG);
	CU_ASSERT(blocks_of(f) == 2 * (PG / 512));
	mmt_exit(p);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/pr") == 0);
	CU_ASSERT(mmt_all_freed());
}

RVTEST_SUITE(mm_punch, rvtest_instance_init, rvtest_instance_cleanup, RVTEST(test_punch_mapped),
	     RVTEST(test_punch_in_page0), RVTEST(test_punch_vs_fault),
	     RVTEST(test_punch_vs_reclaim))
