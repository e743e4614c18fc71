// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_mm_file.c - file-backed mappings on the VFS page cache:
 * read faults, private copy-on-write (on first write and on a write after a
 * read), shared writes reaching the file, file rmap through i_mmap, major
 * faults retried from the per-VMA lock to mmap_lock, truncate and hole
 * punch unmapping through i_mmap, fork of file mappings, no leaks.
 */
#include "test_mm_util.h"

#include <fcntl.h>

#define BASE 0x20000000UL
#define RW   (PROT_READ | PROT_WRITE)

static void drop_file(struct file *f, const char *path)
{
	fput(f);
	CU_ASSERT(do_unlink(path) == 0);
}

static void test_private_read_and_cow(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/p", 4, 10);
	struct folio *cache;
	unsigned char c = 0xee;
	uint64_t cow;

	CU_ASSERT(vm_mmap(mm, BASE, 4 * PG, RW, MAP_PRIVATE | MAP_FIXED, f, 0) == (long)BASE);
	/* read faults map the page-cache folios read-only */
	CU_ASSERT(mmt_check(BASE, 4 * PG, 10));
	cache = mm_folio_from_pte(mm_pte_read(mm, BASE));
	CU_ASSERT(!mm_folio_is_anon(cache));
	CU_ASSERT(!pte_write(mm_pte_read(mm, BASE)));
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 4);
	CU_ASSERT(rmap_walk(cache, NULL, NULL) == 1);
	/* a write after the read: wp fault copies from the cache folio */
	cow = mmt_stat("cow_faults");
	CU_ASSERT(rv_mm_write(BASE + 5, &c, 1) == 0);
	CU_ASSERT(mmt_stat("cow_faults") == cow + 1);
	CU_ASSERT(mm_folio_is_anon(mm_folio_from_pte(mm_pte_read(mm, BASE))));
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 3);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 1);
	CU_ASSERT(rmap_walk(cache, NULL, NULL) == 0);
	CU_ASSERT(mmt_file_has(f, 0, 10)); /* the file never changes */
	/* offset mapping, first access a write: do_cow_fault */
	CU_ASSERT(vm_mmap(mm, BASE + 8 * PG, 2 * PG, RW, MAP_PRIVATE | MAP_FIXED, f, 2) ==
		  (long)(BASE + 8 * PG));
	{
		uint64_t n = mmt_stat("file_faults_cow");

		CU_ASSERT(rv_mm_write(BASE + 9 * PG, &c, 1) == 0);
		CU_ASSERT(mmt_stat("file_faults_cow") == n + 1);
	}
	CU_ASSERT(mmt_check(BASE + 8 * PG, PG, 12));
	CU_ASSERT(mmt_file_has(f, 3, 13));
	/* beyond EOF: SIGBUS */
	CU_ASSERT(vm_mmap(mm, BASE + 16 * PG, 8 * PG, PROT_READ, MAP_PRIVATE | MAP_FIXED, f, 0) ==
		  (long)(BASE + 16 * PG));
	CU_ASSERT(rv_mm_read(BASE + 21 * PG, &c, 1) == -EIO);
	mmt_exit(t);
	drop_file(f, "/p");
	CU_ASSERT(mmt_all_freed());
}

static void test_shared_write(void)
{
	struct task_struct *t = mmt_new_proc(), *c;
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/s", 3, 20);
	unsigned char buf[PG];
	int64_t pos = PG;

	CU_ASSERT(vm_mmap(mm, BASE, 3 * PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)BASE);
	mmt_fill(BASE, PG, 70); /* shared write fault on none */
	CU_ASSERT(mmt_file_has(f, 0, 70));
	CU_ASSERT(folio_test_dirty(mm_folio_from_pte(mm_pte_read(mm, BASE))));
	CU_ASSERT(mmt_check(BASE + PG, PG, 21)); /* read fault: read-only */
	CU_ASSERT(!pte_write(mm_pte_read(mm, BASE + PG)));
	mmt_fill(BASE + PG, PG, 80); /* write-notify wp fault */
	CU_ASSERT(mmt_file_has(f, 1, 80));
	/* write(2) is visible through the mapping */
	memset(buf, 99, PG);
	CU_ASSERT(vfs_write(f, buf, PG, &pos) == (ssize_t)PG);
	CU_ASSERT(mmt_check(BASE + PG, PG, 99));
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 2);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 0);
	/* fork: the child shares the file pages */
	c = task_fork(t);
	CU_ASSERT_FATAL(c != NULL);
	mmt_fill_mm(c->mm, BASE + 2 * PG, PG, 5);
	CU_ASSERT(mmt_check(BASE + 2 * PG, PG, 5));
	CU_ASSERT(mmt_file_has(f, 2, 5));
	{
		struct folio *fo = mm_folio_from_pte(mm_pte_read(mm, BASE + 2 * PG));

		CU_ASSERT(rmap_walk(fo, NULL, NULL) == 2);
	}
	mmt_exit(c);
	mmt_exit(t);
	drop_file(f, "/s");
	CU_ASSERT(mmt_all_freed());
}

static void test_truncate_and_punch(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/t", 4, 30), *g = mmt_make_file("/h", 4, 40);
	struct inode *inode = f->f_inode;
	unsigned char c = 1;

	CU_ASSERT(vm_mmap(mm, BASE, 4 * PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)BASE);
	CU_ASSERT(vm_mmap(mm, BASE + 8 * PG, 4 * PG, RW, MAP_PRIVATE | MAP_FIXED, f, 0) ==
		  (long)(BASE + 8 * PG));
	CU_ASSERT(mmt_check(BASE, 4 * PG, 30));
	CU_ASSERT(mmt_check(BASE + 8 * PG, 3 * PG, 30));
	CU_ASSERT(rv_mm_write(BASE + 11 * PG, &c, 1) == 0); /* a COW copy of page 3 */
	/* truncate to one page: every mapping of pages 1..3 goes, COWs too */
	CU_ASSERT(vfs_truncate(inode, PG) == 0);
	CU_ASSERT(mm_pte_read(mm, BASE + PG) == 0 && mm_pte_read(mm, BASE + 3 * PG) == 0);
	CU_ASSERT(mm_pte_read(mm, BASE + 9 * PG) == 0 && mm_pte_read(mm, BASE + 11 * PG) == 0);
	CU_ASSERT(mm_pte_read(mm, BASE) != 0);
	CU_ASSERT(rv_mm_read(BASE + 2 * PG, &c, 1) == -EIO);
	CU_ASSERT(rv_mm_read(BASE + 11 * PG, &c, 1) == -EIO);
	CU_ASSERT(mmt_check(BASE, PG, 30));
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 2);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 0);
	/* hole punch (even_cows = 0): file PTEs go, private COWs stay */
	CU_ASSERT(vm_mmap(mm, BASE + 16 * PG, 4 * PG, RW, MAP_PRIVATE | MAP_FIXED, g, 0) ==
		  (long)(BASE + 16 * PG));
	CU_ASSERT(mmt_check(BASE + 16 * PG, 4 * PG, 40));
	mmt_fill(BASE + 18 * PG, PG, 90);
	CU_ASSERT_FATAL(vfs_hooks.unmap_mapping_range != NULL);
	vfs_hooks.unmap_mapping_range(g->f_mapping, PG, 2 * PG, 0);
	CU_ASSERT(mm_pte_read(mm, BASE + 17 * PG) == 0);
	CU_ASSERT(mm_pte_read(mm, BASE + 18 * PG) != 0);
	CU_ASSERT(mm_pte_read(mm, BASE + 16 * PG) != 0 && mm_pte_read(mm, BASE + 19 * PG) != 0);
	CU_ASSERT(mmt_check(BASE + 18 * PG, PG, 90));
	CU_ASSERT(mmt_check(BASE + 17 * PG, PG, 41)); /* refaults from the cache */
	mmt_exit(t);
	drop_file(f, "/t");
	drop_file(g, "/h");
	CU_ASSERT(mmt_all_freed());
}

/*
 * mlock over a file mapping that reaches past EOF: the populate's SIGBUS is
 * -EFAULT to __mm_populate (faultin_page's vm_fault_to_errno), which
 * mlock(2) reports as ENOMEM; VM_LOCKED stays on, as apply_vma_lock_flags
 * set it before the populate.
 */
static void test_mlock_beyond_eof(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/e", 2, 50);
	struct vm_area_struct *vma;

	CU_ASSERT(vm_mmap(mm, BASE, 4 * PG, PROT_READ, MAP_PRIVATE | MAP_FIXED, f, 0) ==
		  (long)BASE);
	CU_ASSERT(vm_mlock(mm, BASE, 4 * PG) == -ENOMEM);
	mmap_read_lock(mm);
	vma = vma_lookup(mm, BASE);
	CU_ASSERT(vma && (vma->vm_flags & VM_LOCKED));
	mmap_read_unlock(mm);
	CU_ASSERT(mm_pte_read(mm, BASE) != 0 && mm_pte_read(mm, BASE + PG) != 0);
	CU_ASSERT(vm_mlock(mm, BASE, 2 * PG) == 0);
	mmt_exit(t);
	drop_file(f, "/e");
	CU_ASSERT(mmt_all_freed());
}

/* A folio not in the cache but in the store: major fault, retried from the
 * per-VMA lock to mmap_lock. */
static void test_major_fault_retry(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/m", 2, 50);
	struct folio *fo;
	uint64_t maj, retries;

	fo = filemap_get_folio(f->f_mapping, 1);
	CU_ASSERT_FATAL(fo != NULL);
	folio_lock(fo);
	CU_ASSERT(filemap_writeback_folio(fo) == 0);
	filemap_remove_folio(fo);
	folio_unlock(fo);
	folio_put(fo);
	CU_ASSERT(filemap_get_folio(f->f_mapping, 1) == NULL);
	CU_ASSERT(vm_mmap(mm, BASE, 2 * PG, PROT_READ, MAP_PRIVATE | MAP_FIXED, f, 0) ==
		  (long)BASE);
	maj = mmt_stat("majflt");
	retries = mmt_stat("vma_lock_retries");
	CU_ASSERT(mmt_check(BASE + PG, PG, 51));
	CU_ASSERT(mmt_stat("majflt") == maj + 1);
	CU_ASSERT(mmt_stat("vma_lock_retries") == retries + 1);
	/* cached now: a minor fault elsewhere */
	CU_ASSERT(mmt_check(BASE, PG, 50));
	CU_ASSERT(mmt_stat("majflt") == maj + 1);
	mmt_exit(t);
	drop_file(f, "/m");
	CU_ASSERT(mmt_all_freed());
}

static void test_file_mmap_errors(void)
{
	struct task_struct *t = mmt_new_proc();
	struct file *f = mmt_make_file("/e", 1, 0), *ro = NULL;

	CU_ASSERT(filp_open("/e", O_RDONLY, 0, &ro) == 0);
	CU_ASSERT(vm_mmap(t->mm, BASE, PG, RW, MAP_SHARED | MAP_FIXED, ro, 0) == -EACCES);
	CU_ASSERT(vm_mmap(t->mm, BASE, PG, RW, MAP_PRIVATE | MAP_FIXED, ro, 0) == (long)BASE);
	CU_ASSERT(vm_mmap(t->mm, BASE, PG, PROT_READ, MAP_SHARED | MAP_FIXED, ro, 0) == (long)BASE);
	fput(ro);
	mmt_exit(t);
	drop_file(f, "/e");
	CU_ASSERT(mmt_all_freed());
}

/*
 * Fault-around (do_fault_around + filemap_map_pages, Linux 6.18) with
 * fault_around=16, Linux's 64 KiB: a read fault maps the cached pages of
 * the aligned 16-page block around it, clamped to the VMA and to EOF,
 * read-only, skipping pages not in the cache; a write fault maps one page.
 */
static void test_fault_around(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/fa", 40, 60), *g = mmt_make_file("/fb", 2, 70);
	unsigned char c;
	int64_t pos = 2 * PG;

	CU_ASSERT(vm_mmap(mm, BASE, 40 * PG, PROT_READ, MAP_PRIVATE | MAP_FIXED, f, 0) ==
		  (long)BASE);
	CU_ASSERT(rv_mm_read(BASE + 5 * PG, &c, 1) == 0 && c == 65);
	for (int i = 0; i < 20; i++)
		CU_ASSERT((mm_pte_read(mm, BASE + (unsigned long)i * PG) != 0) == (i < 16));
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 16);
	CU_ASSERT(!pte_write(mm_pte_read(mm, BASE)));
	/* a page not in the cache (punched) is left to its own fault */
	CU_ASSERT(vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 20 * PG, PG) == 0);
	CU_ASSERT(rv_mm_read(BASE + 17 * PG, &c, 1) == 0 && c == 77);
	CU_ASSERT(mm_pte_read(mm, BASE + 20 * PG) == 0);
	CU_ASSERT(mm_pte_read(mm, BASE + 19 * PG) != 0 && mm_pte_read(mm, BASE + 21 * PG) != 0);
	CU_ASSERT(mm_pte_read(mm, BASE + 32 * PG) == 0);
	/* clamped to the VMA: 3 pages mapped at page 66 of the window, pgoff 8 */
	CU_ASSERT(vm_mmap(mm, BASE + 66 * PG, 3 * PG, PROT_READ, MAP_SHARED | MAP_FIXED, f, 8) ==
		  (long)(BASE + 66 * PG));
	CU_ASSERT(rv_mm_read(BASE + 67 * PG, &c, 1) == 0 && c == 69);
	CU_ASSERT(mm_pte_read(mm, BASE + 66 * PG) != 0 && mm_pte_read(mm, BASE + 68 * PG) != 0);
	CU_ASSERT(mm_pte_read(mm, BASE + 65 * PG) == 0 && mm_pte_read(mm, BASE + 69 * PG) == 0);
	/* clamped to EOF: a file of 2 pages and 1 byte, mapped over 8 pages */
	CU_ASSERT(vfs_write(g, "x", 1, &pos) == 1);
	CU_ASSERT(vm_mmap(mm, BASE + 80 * PG, 8 * PG, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_FIXED, g, 0) == (long)(BASE + 80 * PG));
	CU_ASSERT(rv_mm_read(BASE + 80 * PG, &c, 1) == 0 && c == 70);
	CU_ASSERT(mm_pte_read(mm, BASE + 82 * PG) != 0 && mm_pte_read(mm, BASE + 83 * PG) == 0);
	CU_ASSERT(!pte_write(mm_pte_read(mm, BASE + 81 * PG)));
	c = 5;
	CU_ASSERT(rv_mm_write(BASE + 81 * PG, &c, 1) == 0);
	CU_ASSERT(pte_write(mm_pte_read(mm, BASE + 81 * PG)));
	CU_ASSERT(rv_mm_read(BASE + 83 * PG, &c, 1) == -EIO);
	mmt_exit(t);
	drop_file(f, "/fa");
	drop_file(g, "/fb");
	CU_ASSERT(mmt_all_freed());
}

static int fault_around_init(void)
{
	static const char *const s[] = {"fault_around=16", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

RVTEST_SUITE(mm_fault_around, fault_around_init, rvtest_instance_cleanup, RVTEST(test_fault_around))

RVTEST_SUITE(mm_file, rvtest_instance_init, rvtest_instance_cleanup,
	     RVTEST(test_private_read_and_cow), RVTEST(test_shared_write),
	     RVTEST(test_truncate_and_punch), RVTEST(test_major_fault_retry),
	     RVTEST(test_file_mmap_errors), RVTEST(test_mlock_beyond_eof))
