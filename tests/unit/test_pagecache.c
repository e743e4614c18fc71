// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_pagecache.c - file data through the page cache: read and
 * write, f_pos and O_APPEND, truncate up/down with partial folios, sparse
 * files and 4 GiB offsets, SEEK_DATA/SEEK_HOLE, fallocate, the size= limit
 * (ENOSPC), fsync to the backing store and re-reading after eviction, the
 * folio API (alignment, PTE encoding, get-unless-zero) and the xarray.
 */
#include "rvtest.h"
#include "vfs/vfs.h"

#include <stdlib.h>
#include <string.h>

#define OK(x)	  CU_ASSERT_EQUAL((x), 0)
#define ERR(x, e) CU_ASSERT_EQUAL((x), -(e))

static struct file *open_rw(const char *path)
{
	struct file *f = NULL;

	CU_ASSERT_EQUAL_FATAL(filp_open(path, O_CREAT | O_RDWR, 0644, &f), 0);
	return f;
}

static bool all_bytes(const char *buf, size_t n, char c)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i] != c)
			return false;
	return true;
}

static void test_read_write(void)
{
	static char big[3 * PAGE_SIZE + 100], back[sizeof(big)];
	struct file *f = open_rw("/rw");
	struct file *ro;
	struct kstat st;
	int64_t pos;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 + 3);
	CU_ASSERT_EQUAL(vfs_write(f, big, sizeof(big), NULL), (ssize_t)sizeof(big));
	CU_ASSERT_EQUAL(f->f_pos, (int64_t)sizeof(big));
	pos = 0;
	CU_ASSERT_EQUAL(vfs_read(f, back, sizeof(back), &pos), (ssize_t)sizeof(big));
	CU_ASSERT_EQUAL(memcmp(big, back, sizeof(big)), 0);
	/* unaligned overwrite across a page boundary */
	pos = PAGE_SIZE - 3;
	CU_ASSERT_EQUAL(vfs_write(f, "ABCDEF", 6, &pos), 6);
	pos = PAGE_SIZE - 4;
	CU_ASSERT_EQUAL(vfs_read(f, back, 8, &pos), 8);
	CU_ASSERT_EQUAL(back[0], big[PAGE_SIZE - 4]);
	CU_ASSERT_EQUAL(memcmp(back + 1, "ABCDEF", 6), 0);
	CU_ASSERT_EQUAL(back[7], big[PAGE_SIZE + 3]);
	/* reads stop at EOF */
	pos = sizeof(big) - 10;
	CU_ASSERT_EQUAL(vfs_read(f, back, 100, &pos), 10);
	pos = sizeof(big);
	CU_ASSERT_EQUAL(vfs_read(f, back, 100, &pos), 0);
	/* f_pos via lseek */
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_SET), 0);
	CU_ASSERT_EQUAL(vfs_read(f, back, 10, NULL), 10);
	CU_ASSERT_EQUAL(vfs_llseek(f, 5, SEEK_CUR), 15);
	CU_ASSERT_EQUAL(vfs_llseek(f, -1, SEEK_END), (int64_t)sizeof(big) - 1);
	ERR(vfs_llseek(f, -100000, SEEK_CUR), EINVAL);
	ERR(vfs_llseek(f, 0, 42), EINVAL);
	fput(f);

	/* O_APPEND and access modes */
	CU_ASSERT_EQUAL_FATAL(filp_open("/rw", O_WRONLY | O_APPEND, 0, &f), 0);
	pos = 0;
	CU_ASSERT_EQUAL(vfs_write(f, "tail", 4, &pos), 4);
	ERR(vfs_read(f, back, 4, &pos), EBADF);
	fput(f);
	OK(vfs_stat("/rw", &st));
	CU_ASSERT_EQUAL(st.size, (int64_t)sizeof(big) + 4);
	CU_ASSERT_EQUAL(st.blocks, 4 * (PAGE_SIZE / 512));
	CU_ASSERT_EQUAL_FATAL(filp_open("/rw", O_RDONLY, 0, &ro), 0);
	ERR(vfs_write(ro, "x", 1, NULL), EBADF);
	fput(ro);
	/* O_TRUNC */
	CU_ASSERT_EQUAL_FATAL(filp_open("/rw", O_RDWR | O_TRUNC, 0, &f), 0);
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.size, 0);
	CU_ASSERT_EQUAL(st.blocks, 0);
	fput(f);
	OK(do_unlink("/rw"));
}

static void test_truncate_partial(void)
{
	static char buf[3 * PAGE_SIZE];
	struct file *f = open_rw("/tr");
	struct kstat st;
	int64_t pos = 0;
	long folios = folio_count_live();

	memset(buf, 'x', sizeof(buf));
	CU_ASSERT_EQUAL(vfs_write(f, buf, sizeof(buf), &pos), (ssize_t)sizeof(buf));
	CU_ASSERT_EQUAL(folio_count_live(), folios + 3);
	OK(vfs_truncate(f->f_inode, 5000)); /* keeps page 0 and part of page 1 */
	CU_ASSERT_EQUAL(folio_count_live(), folios + 2);
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.size, 5000);
	OK(vfs_truncate(f->f_inode, sizeof(buf))); /* up again: a sparse tail */
	memset(buf, '?', sizeof(buf));
	pos = 0;
	CU_ASSERT_EQUAL(vfs_read(f, buf, sizeof(buf), &pos), (ssize_t)sizeof(buf));
	CU_ASSERT(all_bytes(buf, 5000, 'x'));
	CU_ASSERT(all_bytes(buf + 5000, sizeof(buf) - 5000, 0)); /* zeroed, not stale */
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.blocks, 2 * (PAGE_SIZE / 512));
	OK(vfs_truncate(f->f_inode, 0));
	CU_ASSERT_EQUAL(folio_count_live(), folios);
	fput(f);
	OK(do_unlink("/tr"));
}

static void test_sparse_4g(void)
{
	const int64_t off = (4LL << 30) + 10; /* beyond 32 bits */
	struct file *f = open_rw("/sparse");
	struct kstat st;
	char buf[64];
	int64_t pos = off;

	CU_ASSERT_EQUAL(vfs_write(f, "Z", 1, &pos), 1);
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.size, off + 1);
	CU_ASSERT_EQUAL(st.blocks, PAGE_SIZE / 512); /* one page allocated */
	pos = 0;
	memset(buf, 1, sizeof(buf));
	CU_ASSERT_EQUAL(vfs_read(f, buf, sizeof(buf), &pos), (ssize_t)sizeof(buf));
	CU_ASSERT(all_bytes(buf, sizeof(buf), 0));
	pos = off - 5;
	CU_ASSERT_EQUAL(vfs_read(f, buf, sizeof(buf), &pos), 6);
	CU_ASSERT(all_bytes(buf, 5, 0));
	CU_ASSERT_EQUAL(buf[5], 'Z');
	/* holes and data */
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_DATA), off & PAGE_MASK);
	CU_ASSERT_EQUAL(vfs_llseek(f, off, SEEK_DATA), off);
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_HOLE), 0);
	CU_ASSERT_EQUAL(vfs_llseek(f, off & PAGE_MASK, SEEK_HOLE), off + 1); /* EOF */
	ERR(vfs_llseek(f, off + 1, SEEK_DATA), ENXIO);
	ERR(vfs_llseek(f, off + 1, SEEK_HOLE), ENXIO);
	ERR(vfs_llseek(f, -1, SEEK_DATA), ENXIO);
	/* a second data page further on; the hole between is found */
	pos = 3 * PAGE_SIZE;
	CU_ASSERT_EQUAL(vfs_write(f, "data", 4, &pos), 4);
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_DATA), 3 * PAGE_SIZE);
	CU_ASSERT_EQUAL(vfs_llseek(f, 3 * PAGE_SIZE + 1, SEEK_HOLE), 4 * PAGE_SIZE);
	CU_ASSERT_EQUAL(vfs_llseek(f, 4 * PAGE_SIZE, SEEK_DATA), off & PAGE_MASK);
	/* truncating below the 4 GiB page frees it */
	OK(vfs_truncate(f->f_inode, 1LL << 32));
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.blocks, PAGE_SIZE / 512);
	fput(f);
	OK(do_unlink("/sparse"));
}

static void test_fallocate(void)
{
	struct file *f = open_rw("/fa");
	struct kstat st;
	char buf[16];
	int64_t pos = 0;

	OK(vfs_fallocate(f, 0, PAGE_SIZE, 2 * PAGE_SIZE + 1));
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.size, 3 * PAGE_SIZE + 1);
	CU_ASSERT_EQUAL(st.blocks, 3 * (PAGE_SIZE / 512));
	/* fallocated, never written: a hole to SEEK_DATA, as on tmpfs */
	ERR(vfs_llseek(f, 0, SEEK_DATA), ENXIO);
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_HOLE), 0);
	CU_ASSERT_EQUAL(vfs_read(f, buf, sizeof(buf), &pos), (ssize_t)sizeof(buf));
	CU_ASSERT(all_bytes(buf, sizeof(buf), 0));
	/* reading and fsync leave it a hole; a write makes its page data */
	OK(vfs_fsync(f, 0));
	ERR(vfs_llseek(f, 0, SEEK_DATA), ENXIO);
	pos = 2 * PAGE_SIZE + 5;
	CU_ASSERT_EQUAL(vfs_write(f, "w", 1, &pos), 1);
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_DATA), 2 * PAGE_SIZE);
	CU_ASSERT_EQUAL(vfs_llseek(f, 2 * PAGE_SIZE, SEEK_HOLE), 3 * PAGE_SIZE);
	/* within the size: the size does not change */
	OK(vfs_fallocate(f, 0, 0, 10));
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.size, 3 * PAGE_SIZE + 1);
	CU_ASSERT_EQUAL(st.blocks, 4 * (PAGE_SIZE / 512));
	/* a second fallocate over a fallocated page initializes it (shmem's
	 * SGP_FALLOC), so it is data from then on */
	OK(vfs_fallocate(f, 0, PAGE_SIZE, PAGE_SIZE));
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_DATA), PAGE_SIZE);
	ERR(vfs_fallocate(f, 0, -1, 10), EINVAL);
	ERR(vfs_fallocate(f, 0, 0, 0), EINVAL);
	/* the modes tmpfs lacks, and a punch that would change the size */
	ERR(vfs_fallocate(f, FALLOC_FL_ZERO_RANGE, 0, 10), EOPNOTSUPP);
	ERR(vfs_fallocate(f, FALLOC_FL_COLLAPSE_RANGE, 0, PAGE_SIZE), EOPNOTSUPP);
	ERR(vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE, 0, 10), EOPNOTSUPP);
	ERR(vfs_fallocate(f, 0x8000, 0, 10), EOPNOTSUPP);
	fput(f);
	OK(do_unlink("/fa"));
}

static void test_fallocate_keep_size(void)
{
	struct file *f = open_rw("/fk");
	struct kstat st;
	int64_t pos = 0;

	CU_ASSERT_EQUAL(vfs_write(f, "abc", 3, &pos), 3);
	OK(vfs_fallocate(f, FALLOC_FL_KEEP_SIZE, 0, 4 * PAGE_SIZE));
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.size, 3);
	CU_ASSERT_EQUAL(st.blocks, 4 * (PAGE_SIZE / 512));
	/* beyond EOF too: blocks, no size */
	OK(vfs_fallocate(f, FALLOC_FL_KEEP_SIZE, 10 * PAGE_SIZE, PAGE_SIZE));
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.size, 3);
	CU_ASSERT_EQUAL(st.blocks, 5 * (PAGE_SIZE / 512));
	/* truncation gives them back */
	OK(vfs_truncate(f->f_inode, 0));
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.blocks, 0);
	fput(f);
	OK(do_unlink("/fk"));
}

static void test_punch_hole(void)
{
	static char buf[4 * PAGE_SIZE], back[4 * PAGE_SIZE];
	struct file *f = open_rw("/ph");
	struct address_space *m = f->f_inode->i_mapping;
	struct kstat st;
	int64_t pos = 0;

	memset(buf, 'p', sizeof(buf));
	CU_ASSERT_EQUAL(vfs_write(f, buf, sizeof(buf), &pos), (ssize_t)sizeof(buf));
	/* page 3 in the store only: punch must drop it there too */
	OK(vfs_fsync(f, 0));
	{
		struct folio *folio = filemap_get_folio(m, 3);

		CU_ASSERT_FATAL(folio != NULL);
		folio_lock(folio);
		OK(filemap_remove_folio(folio));
		folio_unlock(folio);
		folio_put(folio);
	}
	/* bytes 100 .. 3*PAGE_SIZE+99: page 0 and 3 partial, 1 and 2 whole */
	OK(vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 100, 3 * PAGE_SIZE));
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.size, 4 * PAGE_SIZE);
	CU_ASSERT_EQUAL(st.blocks, 2 * (PAGE_SIZE / 512));
	pos = 0;
	CU_ASSERT_EQUAL(vfs_read(f, back, sizeof(back), &pos), (ssize_t)sizeof(back));
	CU_ASSERT(all_bytes(back, 100, 'p'));
	CU_ASSERT(all_bytes(back + 100, 3 * PAGE_SIZE, 0));
	CU_ASSERT(all_bytes(back + 3 * PAGE_SIZE + 100, PAGE_SIZE - 100, 'p'));
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_HOLE), PAGE_SIZE);
	CU_ASSERT_EQUAL(vfs_llseek(f, PAGE_SIZE, SEEK_DATA), 3 * PAGE_SIZE);
	/* the store's copy of page 3 was zeroed too: evict and re-read */
	OK(vfs_fsync(f, 0));
	{
		struct folio *folio = filemap_get_folio(m, 3);

		CU_ASSERT_FATAL(folio != NULL);
		folio_lock(folio);
		OK(filemap_remove_folio(folio));
		folio_unlock(folio);
		folio_put(folio);
	}
	pos = 3 * PAGE_SIZE;
	CU_ASSERT_EQUAL(vfs_read(f, back, PAGE_SIZE, &pos), PAGE_SIZE);
	CU_ASSERT(all_bytes(back, 100, 0));
	CU_ASSERT(all_bytes(back + 100, PAGE_SIZE - 100, 'p'));
	/* within one page, and beyond EOF (nothing there: no error) */
	OK(vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 3 * PAGE_SIZE + 200, 10));
	pos = 3 * PAGE_SIZE + 190;
	CU_ASSERT_EQUAL(vfs_read(f, back, 30, &pos), 30);
	CU_ASSERT(all_bytes(back, 10, 'p'));
	CU_ASSERT(all_bytes(back + 10, 10, 0));
	CU_ASSERT(all_bytes(back + 20, 10, 'p'));
	OK(vfs_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 1LL << 30, PAGE_SIZE));
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.size, 4 * PAGE_SIZE);
	CU_ASSERT_EQUAL(st.blocks, 2 * (PAGE_SIZE / 512));
	fput(f);
	OK(do_unlink("/ph"));
}

static void test_fsync_store_reclaim(void)
{
	static char buf[2 * PAGE_SIZE], back[2 * PAGE_SIZE];
	struct file *f = open_rw("/fs");
	struct address_space *m = f->f_inode->i_mapping;
	struct folio *folio;
	struct kstat st;
	uint64_t reads0, reads1;
	int64_t pos = 0;

	memset(buf, 'a', PAGE_SIZE);
	memset(buf + PAGE_SIZE, 'b', PAGE_SIZE);
	CU_ASSERT_EQUAL(vfs_write(f, buf, sizeof(buf), &pos), (ssize_t)sizeof(buf));
	folio = filemap_get_folio(m, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(folio);
	CU_ASSERT(folio_test_dirty(folio));
	CU_ASSERT(folio_test_uptodate(folio));
	CU_ASSERT_EQUAL(folio->index, 0);
	CU_ASSERT_PTR_EQUAL(folio->mapping, m);
	folio_put(folio);
	OK(vfs_fsync(f, 0));
	folio = filemap_get_folio(m, 0);
	CU_ASSERT_FALSE(folio_test_dirty(folio));
	CU_ASSERT(memstore_ops.has_index(m, 0));
	/* what reclaim does: remove a clean folio; data stays in the store */
	folio_lock(folio);
	filemap_remove_folio(folio);
	folio_unlock(folio);
	folio_put(folio);
	CU_ASSERT_PTR_NULL(filemap_get_folio(m, 0));
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.blocks, 2 * (PAGE_SIZE / 512)); /* still counted */
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_DATA), 0);
	rv_stat_read("store_folio_reads", &reads0);
	pos = 0;
	CU_ASSERT_EQUAL(vfs_read(f, back, sizeof(back), &pos), (ssize_t)sizeof(back));
	CU_ASSERT_EQUAL(memcmp(buf, back, sizeof(buf)), 0);
	rv_stat_read("store_folio_reads", &reads1);
	CU_ASSERT_EQUAL(reads1, reads0 + 1);
	/* truncation drops the store's copy too, and the partial page is zeroed */
	OK(vfs_truncate(f->f_inode, 100));
	CU_ASSERT_FALSE(memstore_ops.has_index(m, 1));
	OK(vfs_truncate(f->f_inode, PAGE_SIZE));
	pos = 0;
	CU_ASSERT_EQUAL(vfs_read(f, back, PAGE_SIZE, &pos), PAGE_SIZE);
	CU_ASSERT(all_bytes(back, 100, 'a'));
	CU_ASSERT(all_bytes(back + 100, PAGE_SIZE - 100, 0));
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.blocks, PAGE_SIZE / 512);
	fput(f);
	OK(do_unlink("/fs"));
}

static void test_folio_api(void)
{
	struct folio *f = folio_alloc(), *g;
	uintptr_t pte;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL((uintptr_t)f % FOLIO_ALIGN, 0);
	CU_ASSERT(folio_test_anon(f));
	CU_ASSERT(folio_test_uptodate(f));
	CU_ASSERT_PTR_NULL(f->mapping);
	CU_ASSERT(all_bytes(f->data, PAGE_SIZE, 0));
	pte = folio_to_pteval(f) | 0x25; /* low bits free for PTE flags */
	CU_ASSERT_PTR_EQUAL(pteval_to_folio(pte), f);
	CU_ASSERT_EQUAL(folio_ref_count(f), 1);
	CU_ASSERT(folio_try_get(f));
	CU_ASSERT_EQUAL(folio_ref_count(f), 2);
	folio_put(f);
	CU_ASSERT(folio_trylock(f));
	CU_ASSERT_FALSE(folio_trylock(f));
	folio_unlock(f);
	folio_lock(f);
	folio_unlock(f);
	folio_put(f);
	/* TYPESAFE_BY_RCU: the freed object is still a folio; a stale getter fails */
	CU_ASSERT_FALSE(folio_try_get(f));
	g = folio_alloc();
	CU_ASSERT_PTR_NOT_NULL(g);
	folio_put(g);
}

static void test_xarray(void)
{
	struct xarray xa;
	static const uint64_t idx[] = {
	    0, 1, 63, 64, 4095, 1ULL << 20, 1ULL << 32, UINT64_MAX - 1, UINT64_MAX};
	uint64_t i;
	int tag[ARRAY_SIZE(idx)];

	xa_init(&xa);
	for (unsigned k = 0; k < ARRAY_SIZE(idx); k++)
		OK(xa_insert(&xa, idx[k], &tag[k]));
	ERR(xa_insert(&xa, 64, &tag[0]), EEXIST);
	CU_ASSERT_EQUAL(xa.nr, ARRAY_SIZE(idx));
	for (unsigned k = 0; k < ARRAY_SIZE(idx); k++)
		CU_ASSERT_PTR_EQUAL(xa_load(&xa, idx[k]), &tag[k]);
	CU_ASSERT_PTR_NULL(xa_load(&xa, 2));
	CU_ASSERT_PTR_NULL(xa_load(&xa, 1ULL << 33));
	i = 65;
	CU_ASSERT_PTR_EQUAL(xa_find(&xa, &i, UINT64_MAX), &tag[4]);
	CU_ASSERT_EQUAL(i, 4095);
	i = 4096;
	CU_ASSERT_PTR_NULL(xa_find(&xa, &i, 1000000));
	i = (1ULL << 32) + 1;
	CU_ASSERT_PTR_EQUAL(xa_find(&xa, &i, UINT64_MAX), &tag[7]);
	CU_ASSERT_EQUAL(i, UINT64_MAX - 1);
	CU_ASSERT_PTR_EQUAL(xa_erase(&xa, 64), &tag[3]);
	CU_ASSERT_PTR_NULL(xa_erase(&xa, 64));
	for (unsigned k = 0; k < ARRAY_SIZE(idx); k++)
		xa_erase(&xa, idx[k]);
	CU_ASSERT(xa_empty(&xa));
	CU_ASSERT_EQUAL(xa.nr, 0);
	OK(xa_insert(&xa, 5, &tag[0]));
	xa_destroy(&xa);
	CU_ASSERT(xa_empty(&xa));
}

RVTEST_SUITE(pagecache, rvtest_instance_init, rvtest_instance_cleanup, RVTEST(test_read_write),
	     RVTEST(test_truncate_partial), RVTEST(test_sparse_4g), RVTEST(test_fallocate),
	     RVTEST(test_fallocate_keep_size), RVTEST(test_punch_hole),
	     RVTEST(test_fsync_store_reclaim), RVTEST(test_folio_api), RVTEST(test_xarray));

/* ---- the size= limit ------------------------------------------------- */

static int enospc_init(void)
{
	static const char *const settings[] = {"size=64k", NULL};

	return rvtest_instance_with(settings) ? -1 : 0;
}

static void test_enospc(void)
{
	static char buf[20 * PAGE_SIZE];
	struct file *f = open_rw("/big");
	struct kstat st;
	struct kstatfs sfs;
	int64_t pos = 0;

	vfs_statfs(&sfs);
	CU_ASSERT_EQUAL(sfs.f_blocks, 16);
	CU_ASSERT_EQUAL(sfs.f_bfree, 16);
	memset(buf, 'q', sizeof(buf));
	/* a short write up to the limit, then ENOSPC */
	CU_ASSERT_EQUAL(vfs_write(f, buf, sizeof(buf), &pos), 16 * PAGE_SIZE);
	ERR(vfs_write(f, buf, 1, &pos), ENOSPC);
	vfs_statfs(&sfs);
	CU_ASSERT_EQUAL(sfs.f_bfree, 0);
	/* overwriting allocated pages needs no space */
	pos = 0;
	CU_ASSERT_EQUAL(vfs_write(f, buf, PAGE_SIZE, &pos), PAGE_SIZE);
	/* truncate frees; fallocate is limited the same way */
	OK(vfs_truncate(f->f_inode, 8 * PAGE_SIZE));
	vfs_statfs(&sfs);
	CU_ASSERT_EQUAL(sfs.f_bfree, 8);
	/* a failed fallocate gives back what it took (shmem_undo_range):
	 * 9 pages do not fit in the 8 free, and none stays reserved */
	ERR(vfs_fallocate(f, 0, 8 * PAGE_SIZE, 9 * PAGE_SIZE), ENOSPC);
	vfs_statfs(&sfs);
	CU_ASSERT_EQUAL(sfs.f_bfree, 8);
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.size, 8 * PAGE_SIZE);
	ERR(vfs_fallocate(f, FALLOC_FL_KEEP_SIZE, 4 * PAGE_SIZE, 13 * PAGE_SIZE), ENOSPC);
	vfs_statfs(&sfs);
	CU_ASSERT_EQUAL(sfs.f_bfree, 8);
	/* beyond the capacity statfs reports: refused at once */
	ERR(vfs_fallocate(f, 0, 0, 1LL << 40), ENOSPC);
	vfs_statfs(&sfs);
	CU_ASSERT_EQUAL(sfs.f_bfree, 8);
	OK(vfs_fallocate(f, 0, 8 * PAGE_SIZE, 4 * PAGE_SIZE));
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT(st.blocks >= 12 * (PAGE_SIZE / 512));
	fput(f);
	OK(do_unlink("/big"));
	vfs_statfs(&sfs);
	CU_ASSERT_EQUAL(sfs.f_bfree, 16);
	/* holes cost nothing */
	f = open_rw("/sparse");
	pos = 1LL << 40;
	CU_ASSERT_EQUAL(vfs_write(f, "x", 1, &pos), 1);
	vfs_statfs(&sfs);
	CU_ASSERT_EQUAL(sfs.f_bfree, 15);
	fput(f);
	OK(do_unlink("/sparse"));
}

RVTEST_SUITE(pagecache_size_limit, enospc_init, rvtest_instance_cleanup, RVTEST(test_enospc));
