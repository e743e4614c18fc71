// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_mm_reclaim_vfs.c - reclaim (mm/vmscan.c) against the VFS
 * page cache and its backing store: a folio may leave the cache only when
 * the store holds its current contents.  Folios that were never written
 * back (fallocate, a hole zero-filled by a shared read fault) must be
 * written back by reclaim, not dropped: their data and their space (st_blocks,
 * statfs, SEEK_DATA, the size= reservation) survive reclaim.  Dirty and
 * fsync'd data survive too.
 *
 * Two suites, both with size=64k (16 blocks): `reclaim_forced` drops the
 * whole LRU with mm_reclaim_folios(); `reclaim_cache4` runs with
 * cache_pages=4, so the writes themselves trigger direct reclaim.
 */
#include "test_mm_util.h"

#include <stdlib.h>

#define OK(x)	  CU_ASSERT_EQUAL((x), 0)
#define ERR(x, e) CU_ASSERT_EQUAL((x), -(e))
#define BPP	  (PAGE_SIZE / 512) /* st_blocks per page */

static struct file *open_rw(const char *path)
{
	struct file *f = NULL;

	CU_ASSERT_EQUAL_FATAL(filp_open(path, O_CREAT | O_RDWR, 0644, &f), 0);
	return f;
}

static uint64_t bfree(void)
{
	struct kstatfs s;

	vfs_statfs(&s);
	return s.f_bfree;
}

static int64_t blocks_of(struct file *f)
{
	struct kstat st;

	vfs_getattr(f->f_inode, &st);
	return st.blocks;
}

static long cached_pages(struct file *f, long from, long n)
{
	long c = 0;

	for (long i = from; i < from + n; i++) {
		struct folio *fo = filemap_get_folio(f->f_mapping, i);

		if (fo) {
			c++;
			folio_put(fo);
		}
	}
	return c;
}

/* 1 if page `page` of f reads as `val` everywhere. */
static int page_is(struct file *f, long page, unsigned char val)
{
	unsigned char buf[PG];
	int64_t pos = page * PG;

	if (vfs_read(f, buf, PG, &pos) != (ssize_t)PG)
		return 0;
	for (long i = 0; i < PG; i++)
		if (buf[i] != val)
			return 0;
	return 1;
}

static void write_page(struct file *f, long page, unsigned char val)
{
	unsigned char buf[PG];
	int64_t pos = page * PG;

	memset(buf, val, PG);
	CU_ASSERT_EQUAL(vfs_write(f, buf, PG, &pos), (ssize_t)PG);
}

/* Reclaim everything reclaimable (forced suite). */
static void reclaim_all(void)
{
	mm_reclaim_folios(1 << 16);
}

/* ---- fallocate: never written back, clean ------------------------------- */

static void check_fallocated_survives(void (*pressure)(void))
{
	struct file *f = open_rw("/fa"), *g;
	uint64_t unstored0 = mmt_stat("reclaim_unstored_writebacks");

	CU_ASSERT_EQUAL(bfree(), 16);
	OK(vfs_fallocate(f, 0, 0, 8 * PG));
	CU_ASSERT_EQUAL(blocks_of(f), 8 * BPP);
	CU_ASSERT_EQUAL(bfree(), 8);
	pressure();
	/* the pages really left the cache */
	CU_ASSERT(cached_pages(f, 0, 8) < 8);
	CU_ASSERT(mmt_stat("reclaim_unstored_writebacks") > unstored0);
	/* ... but their space did not */
	CU_ASSERT_EQUAL(blocks_of(f), 8 * BPP);
	CU_ASSERT_EQUAL(bfree(), 8);
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_DATA), 0);
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_HOLE), 8 * PG);
	for (long i = 0; i < 8; i++)
		CU_ASSERT(page_is(f, i, 0));
	/* the reservation holds: another file gets the other 8 blocks only */
	g = open_rw("/other");
	for (long i = 0; i < 8; i++)
		write_page(g, i, (unsigned char)(0x40 + i));
	{
		int64_t pos = 8 * PG;

		ERR(vfs_write(g, "x", 1, &pos), ENOSPC);
	}
	CU_ASSERT_EQUAL(bfree(), 0);
	/* and writing into the fallocated range needs no new space */
	for (long i = 0; i < 8; i++)
		write_page(f, i, (unsigned char)(0x80 + i));
	pressure();
	for (long i = 0; i < 8; i++) {
		CU_ASSERT(page_is(f, i, (unsigned char)(0x80 + i)));
		CU_ASSERT(page_is(g, i, (unsigned char)(0x40 + i)));
	}
	CU_ASSERT_EQUAL(bfree(), 0);
	fput(g);
	fput(f);
	OK(do_unlink("/other"));
	OK(do_unlink("/fa"));
	CU_ASSERT_EQUAL(bfree(), 16);
}

static void test_fallocate_reclaim(void)
{
	check_fallocated_survives(reclaim_all);
}

/* ---- write + fsync: clean, in the store --------------------------------- */

static void check_fsynced_survives(void (*pressure)(void))
{
	struct file *f = open_rw("/fs");
	uint64_t reads0, unstored0 = mmt_stat("reclaim_unstored_writebacks");

	for (long i = 0; i < 6; i++)
		write_page(f, i, (unsigned char)(0x10 + i));
	OK(vfs_fsync(f, 0));
	reads0 = mmt_stat("store_folio_reads");
	pressure();
	CU_ASSERT(cached_pages(f, 0, 6) < 6);
	/* clean and in the store: dropped without another writeback */
	CU_ASSERT_EQUAL(mmt_stat("reclaim_unstored_writebacks"), unstored0);
	CU_ASSERT_EQUAL(blocks_of(f), 6 * BPP);
	CU_ASSERT_EQUAL(bfree(), 10);
	for (long i = 0; i < 6; i++)
		CU_ASSERT(page_is(f, i, (unsigned char)(0x10 + i)));
	CU_ASSERT(mmt_stat("store_folio_reads") > reads0);
	fput(f);
	OK(do_unlink("/fs"));
	CU_ASSERT_EQUAL(bfree(), 16);
}

static void test_fsync_reclaim(void)
{
	check_fsynced_survives(reclaim_all);
}

/* ---- dirty, never synced ------------------------------------------------ */

static void check_dirty_survives(void (*pressure)(void))
{
	struct file *f = open_rw("/dirty");
	uint64_t wb0 = mmt_stat("reclaim_writebacks");

	for (long i = 0; i < 6; i++)
		write_page(f, i, (unsigned char)(0x20 + i));
	pressure();
	CU_ASSERT(cached_pages(f, 0, 6) < 6);
	CU_ASSERT(mmt_stat("reclaim_writebacks") > wb0);
	CU_ASSERT_EQUAL(blocks_of(f), 6 * BPP);
	CU_ASSERT_EQUAL(bfree(), 10);
	for (long i = 0; i < 6; i++)
		CU_ASSERT(page_is(f, i, (unsigned char)(0x20 + i)));
	fput(f);
	OK(do_unlink("/dirty"));
	CU_ASSERT_EQUAL(bfree(), 16);
}

static void test_dirty_reclaim(void)
{
	check_dirty_survives(reclaim_all);
}

/* ---- a hole zero-filled by a shared read fault --------------------------- */

#define HBASE 0x20000000UL

static void test_hole_fault_reclaim(void)
{
	struct task_struct *t = mmt_new_proc();
	struct file *f = open_rw("/hole");
	unsigned char buf[PG];

	OK(vfs_truncate(f->f_inode, 4 * PG)); /* sparse: no blocks */
	CU_ASSERT_EQUAL(blocks_of(f), 0);
	CU_ASSERT(vm_mmap(t->mm, HBASE, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, f,
			  0) == (long)HBASE);
	/* a read fault instantiates a zero-filled, uptodate, clean folio that
	 * takes a block (tmpfs allocates a page here too) */
	CU_ASSERT(rv_mm_read(HBASE + PG, buf, PG) == 0);
	CU_ASSERT_EQUAL(buf[0], 0);
	CU_ASSERT_EQUAL(blocks_of(f), BPP);
	CU_ASSERT_EQUAL(bfree(), 15);
	reclaim_all();
	CU_ASSERT_EQUAL(cached_pages(f, 0, 4), 0);
	CU_ASSERT_EQUAL(blocks_of(f), BPP);
	CU_ASSERT_EQUAL(bfree(), 15);
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_DATA), PG);
	/* the page comes back from the store on the next access */
	CU_ASSERT(rv_mm_read(HBASE + PG, buf, PG) == 0);
	CU_ASSERT_EQUAL(buf[PG - 1], 0);
	/* a shared write dirties it through the PTE; reclaim keeps that too */
	memset(buf, 0x5a, PG);
	CU_ASSERT(rv_mm_write(HBASE + 2 * PG, buf, PG) == 0);
	reclaim_all();
	CU_ASSERT_EQUAL(cached_pages(f, 0, 4), 0);
	CU_ASSERT(page_is(f, 2, 0x5a));
	CU_ASSERT(page_is(f, 1, 0));
	CU_ASSERT_EQUAL(blocks_of(f), 2 * BPP);
	mmt_exit(t);
	fput(f);
	OK(do_unlink("/hole"));
	CU_ASSERT_EQUAL(bfree(), 16);
}

/* ---- the store API rule ------------------------------------------------- */

/* filemap_remove_folio refuses a folio whose contents the store lacks. */
static void test_remove_requires_store(void)
{
	struct file *f = open_rw("/rm");
	struct folio *fo;

	OK(vfs_fallocate(f, 0, 0, PG));
	fo = filemap_get_folio(f->f_mapping, 0);
	CU_ASSERT_FATAL(fo != NULL);
	CU_ASSERT_FALSE(folio_store_current(fo));
	folio_lock(fo);
	ERR(filemap_remove_folio(fo), EBUSY);
	CU_ASSERT(fo->mapping == f->f_mapping);
	OK(filemap_writeback_folio(fo));
	CU_ASSERT(folio_store_current(fo));
	OK(filemap_remove_folio(fo));
	folio_unlock(fo);
	folio_put(fo);
	CU_ASSERT_EQUAL(blocks_of(f), BPP);
	/* read back from the store: current again until modified */
	CU_ASSERT(page_is(f, 0, 0));
	fo = filemap_get_folio(f->f_mapping, 0);
	CU_ASSERT_FATAL(fo != NULL);
	CU_ASSERT(folio_store_current(fo));
	folio_put(fo);
	write_page(f, 0, 7);
	fo = filemap_get_folio(f->f_mapping, 0);
	CU_ASSERT_FATAL(fo != NULL);
	CU_ASSERT_FALSE(folio_store_current(fo));
	folio_put(fo);
	fput(f);
	OK(do_unlink("/rm"));
}

static int forced_init(void)
{
	static const char *const settings[] = {"size=64k", NULL};

	return rvtest_instance_with(settings) ? -1 : 0;
}

RVTEST_SUITE(reclaim_forced, forced_init, rvtest_instance_cleanup, RVTEST(test_fallocate_reclaim),
	     RVTEST(test_fsync_reclaim), RVTEST(test_dirty_reclaim),
	     RVTEST(test_hole_fault_reclaim), RVTEST(test_remove_requires_store));

/* ---- cache_pages=4: the writes themselves reclaim ------------------------ */

/* Pressure by cache traffic: read another file's 12 pages (stored). */
static void cache_traffic(void)
{
	struct file *p = NULL;

	CU_ASSERT_FATAL(filp_open("/pressure", O_RDONLY, 0, &p) == 0);
	for (long i = 0; i < 12; i++)
		CU_ASSERT(page_is(p, i, 0));
	fput(p);
}

static int cache4_init(void)
{
	static const char *const settings[] = {"size=96k", "cache_pages=4", NULL};

	return rvtest_instance_with(settings) ? -1 : 0;
}

/*
 * size=96k (24 blocks).  test_cache4_setup fallocates the 12-page
 * `/pressure` file, whose folios the cache limit already pushes out (to the
 * store: they were never stored); cache_traffic() reads them back in,
 * which reclaims whatever else is cached.
 */
static void test_cache4_fallocate(void)
{
	struct file *f = open_rw("/fa4");
	uint64_t free0 = bfree();

	OK(vfs_fallocate(f, 0, 0, 8 * PG));
	CU_ASSERT_EQUAL(bfree(), free0 - 8);
	cache_traffic();
	CU_ASSERT(cached_pages(f, 0, 8) <= 4);
	CU_ASSERT_EQUAL(blocks_of(f), 8 * BPP);
	CU_ASSERT_EQUAL(bfree(), free0 - 8);
	for (long i = 0; i < 8; i++)
		write_page(f, i, (unsigned char)(0x60 + i));
	cache_traffic();
	for (long i = 0; i < 8; i++)
		CU_ASSERT(page_is(f, i, (unsigned char)(0x60 + i)));
	CU_ASSERT_EQUAL(bfree(), free0 - 8);
	fput(f);
	OK(do_unlink("/fa4"));
	CU_ASSERT_EQUAL(bfree(), free0);
}

static void test_cache4_setup(void)
{
	struct file *p = open_rw("/pressure");

	OK(vfs_fallocate(p, 0, 0, 12 * PG));
	fput(p);
	CU_ASSERT(mm_lru_pages() <= 4);
	CU_ASSERT_EQUAL(bfree(), 12);
}

RVTEST_SUITE(reclaim_cache4, cache4_init, rvtest_instance_cleanup, RVTEST(test_cache4_setup),
	     RVTEST(test_cache4_fallocate));
