// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/pagecache.c - folios, the page cache of an address_space, truncation,
 * and the in-memory backing store.
 *
 * Locking (see vfs/pagecache.h for the full rules):
 *   folio refcount: atomic; the cache holds one reference per folio in
 *     i_pages.  Folios come from a SLAB_TYPESAFE_BY_RCU cache, so
 *     filemap_get_folio may touch a folio that was freed and reused: it
 *     takes a reference only if the count is not zero, then re-checks that
 *     the slot still holds this folio (the kernel's folio_try_get +
 *     xas_reload pattern) and that mapping/index match.
 *   i_pages_lock: insertion and removal in i_pages, nrpages, folio->mapping.
 *   PG_locked: the folio lock (sleeping, on hashed wait queues).  Held while
 *     a new folio is filled (readers wait for PG_uptodate on it), while data
 *     is copied in by write, during writeback and during removal.
 *   Truncation runs with invalidate_lock held exclusive, so no folio is
 *     instantiated concurrently by mm's fault path (which holds it shared)
 *     and no write runs (it holds i_rwsem, as does the truncating caller).
 *   PG_stored (with PG_dirty clear: folio_store_current) says the store
 *     holds the folio's current contents; it is set by a fill from the
 *     store and by writeback, under the folio lock.  Only such a folio may
 *     leave the cache through filemap_remove_folio (reclaim): a clean folio
 *     the store never saw (fallocate, a zero-filled hole) is written back
 *     first, or its data and its block would be lost.
 *   Writeback of a mapped folio first calls vfs_hooks.folio_mkclean (mm)
 *     under the folio lock: PTE dirty bits move to the folio and the PTEs
 *     are write-protected, so a later write through a mapping re-dirties it
 *     through a fault.  Order: folio lock -> i_mmap_rwsem -> PTE lock.
 *   memstore: one spinlock per mapping's store around its xarray; read and
 *     writeback copy under it (the modelled device latency sleeps outside).
 */
#include "vfs/internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FOLIO_WAIT_TABLE_BITS 6

static struct kmem_cache *folio_cachep;
static long folios_live; /* atomic */
static uint64_t folio_alloc_seq;
static struct wait_queue_head folio_wait_table[1 << FOLIO_WAIT_TABLE_BITS];

RV_STAT_DEFINE(folio_allocs, "folios allocated (page cache and anonymous)");
RV_STAT_DEFINE(filemap_get_folio_retries,
	       "page-cache lookups retried after a failed get or a recycled folio");
RV_STAT_DEFINE(store_folio_reads, "folios read from the backing store");
RV_STAT_DEFINE(store_folio_writes, "folios written back to the backing store");
RV_STAT_DEFINE(folio_truncations, "folios removed by truncation");

static void folio_ctor(void *obj)
{
	struct folio *f = obj;

	/* free until folio_alloc publishes a reference */
	f->refcount = 0;
	f->data = NULL;
}

int pagecache_init(void)
{
	BUILD_BUG_ON(_Alignof(struct folio) < FOLIO_ALIGN);
	for (unsigned i = 0; i < ARRAY_SIZE(folio_wait_table); i++)
		init_waitqueue_head(&folio_wait_table[i]);
	folio_cachep = kmem_cache_create("folio", sizeof(struct folio), FOLIO_ALIGN,
					 SLAB_TYPESAFE_BY_RCU, folio_ctor);
	return folio_cachep ? 0 : -ENOMEM;
}

int pagecache_destroy(void)
{
	int ret = 0;
	long live = __atomic_load_n(&folios_live, __ATOMIC_RELAXED);

	if (live) {
		fprintf(stderr, "rcuvfs: vfs teardown: %ld folio(s) leaked\n", live);
		ret = -EBUSY;
	}
	if (kmem_cache_destroy(folio_cachep))
		ret = -EBUSY;
	folio_cachep = NULL;
	return ret;
}

long folio_count_live(void)
{
	return __atomic_load_n(&folios_live, __ATOMIC_RELAXED);
}

/* A fresh folio: refcount 1, locked when `locked`, data not initialized. */
static struct folio *__folio_alloc(bool locked)
{
	struct folio *f = kmem_cache_alloc(folio_cachep);
	void *data;

	if (!f)
		return NULL;
	/*
	 * Plain malloc: the data needs no alignment (the model copies, it
	 * never maps it), and posix_memalign(PAGE_SIZE, PAGE_SIZE) costs glibc
	 * about two pages of heap per page.  malloc(PAGE_SIZE) is one chunk of
	 * PAGE_SIZE + 16 bytes.
	 */
	data = malloc(PAGE_SIZE);
	if (!data) {
		kmem_cache_free(folio_cachep, f);
		return NULL;
	}
	/* a stale RCU reader may look at this object: it only tries the
	 * refcount, which is still 0 until the release store below */
	f->data = data;
	f->flags = locked ? 1UL << PG_locked : 0;
	f->mapcount = 0;
	f->mapping = NULL;
	f->index = -1;
	f->private = NULL;
	INIT_LIST_HEAD(&f->lru);
	f->alloc_seq = __atomic_add_fetch(&folio_alloc_seq, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&folios_live, 1, __ATOMIC_RELAXED);
	rv_stat_inc(folio_allocs);
	/* pairs with the acquire of folio_try_get */
	__atomic_store_n(&f->refcount, 1, __ATOMIC_RELEASE);
	return f;
}

struct folio *folio_alloc(void)
{
	struct folio *f = __folio_alloc(false);

	if (!f)
		return NULL;
	memset(f->data, 0, PAGE_SIZE);
	folio_set_flag(f, PG_anon);
	folio_set_flag(f, PG_uptodate);
	return f;
}

void __folio_free(struct folio *f)
{
	if (folio_test_lru(f) && vfs_hooks.folio_del_lru)
		vfs_hooks.folio_del_lru(f);
	free(f->data);
	f->data = NULL;
	__atomic_store_n(&f->flags, 0, __ATOMIC_RELAXED);
	f->mapping = NULL;
	__atomic_fetch_sub(&folios_live, 1, __ATOMIC_RELAXED);
	kmem_cache_free(folio_cachep, f);
}

void folio_mark_dirty(struct folio *f)
{
	folio_set_flag(f, PG_dirty);
}

/* ---- the folio lock ---------------------------------------------------- */

static struct wait_queue_head *folio_waitqueue(struct folio *f)
{
	uintptr_t h = (uintptr_t)f / FOLIO_ALIGN;

	h ^= h >> FOLIO_WAIT_TABLE_BITS;
	return &folio_wait_table[h & ((1 << FOLIO_WAIT_TABLE_BITS) - 1)];
}

bool folio_trylock(struct folio *f)
{
	return !folio_test_set_flag(f, PG_locked);
}

void folio_lock(struct folio *f)
{
	struct wait_queue_head *wq;
	struct wait_queue_entry w = {0};

	if (likely(folio_trylock(f)))
		return;
	wq = folio_waitqueue(f);
	for (;;) {
		/* on the queue before the test: folio_unlock's check of the
		 * queue after clearing the bit pairs with this */
		prepare_to_wait(wq, &w, TASK_UNINTERRUPTIBLE);
		if (folio_trylock(f))
			break;
		schedule();
	}
	finish_wait(wq, &w);
}

void folio_wait_locked(struct folio *f)
{
	struct wait_queue_head *wq;
	struct wait_queue_entry w = {0};

	if (!folio_test_locked(f))
		return;
	wq = folio_waitqueue(f);
	for (;;) {
		prepare_to_wait(wq, &w, TASK_UNINTERRUPTIBLE);
		if (!folio_test_locked(f))
			break;
		schedule();
	}
	finish_wait(wq, &w);
}

void folio_unlock(struct folio *f)
{
	struct wait_queue_head *wq = folio_waitqueue(f);

	folio_clear_flag(f, PG_locked);
	smp_mb(); /* the clear before the queue check; pairs with prepare_to_wait */
	if (!list_empty(&wq->head))
		wake_up_all(wq);
}

/* ---- lookups and insertion -------------------------------------------- */

struct folio *filemap_get_folio(struct address_space *mapping, int64_t index)
{
	struct folio *f;

	rv_rcu_ensure();
	rcu_read_lock();
repeat:
	f = xa_load(&mapping->i_pages, (uint64_t)index);
	if (f) {
		RV_INJECT("filemap_get_folio_before_get");
		if (!folio_try_get(f)) {
			/* being freed (and maybe reused): look again */
			rv_stat_inc(filemap_get_folio_retries);
			goto repeat;
		}
		/* recycled or removed between load and get? */
		if (unlikely(f != xa_load(&mapping->i_pages, (uint64_t)index) ||
			     READ_ONCE(f->mapping) != mapping || READ_ONCE(f->index) != index)) {
			rv_stat_inc(filemap_get_folio_retries);
			rcu_read_unlock();
			folio_put(f);
			rcu_read_lock();
			goto repeat;
		}
	}
	rcu_read_unlock();
	return f;
}

int filemap_add_folio(struct address_space *mapping, struct folio *folio, int64_t index)
{
	int err;

	folio_get(folio); /* the cache's reference */
	folio->mapping = mapping;
	folio->index = index;
	folio_clear_flag(folio, PG_anon);
	spin_lock(&mapping->i_pages_lock);
	err = xa_insert(&mapping->i_pages, (uint64_t)index, folio);
	if (!err)
		mapping->nrpages++;
	spin_unlock(&mapping->i_pages_lock);
	if (err) {
		folio->mapping = NULL;
		folio_put(folio);
		return err;
	}
	if (vfs_hooks.folio_add_lru)
		vfs_hooks.folio_add_lru(folio);
	return 0;
}

/* Remove a locked folio from its mapping; the cache reference is dropped. */
static void __filemap_remove_folio(struct address_space *m, struct folio *f)
{
	bool in_store;

	spin_lock(&m->i_pages_lock);
	if (f->mapping != m || xa_load(&m->i_pages, (uint64_t)f->index) != f) {
		spin_unlock(&m->i_pages_lock);
		return;
	}
	xa_erase(&m->i_pages, (uint64_t)f->index);
	m->nrpages--;
	WRITE_ONCE(f->mapping, NULL);
	spin_unlock(&m->i_pages_lock);
	in_store = m->a_store && m->a_store->has_index(m, f->index);
	if (!in_store) {
		/* the data is gone: the block is free again */
		__atomic_fetch_sub(&m->nrblocks, 1, __ATOMIC_RELAXED);
		sb_release_blocks(m->host->i_sb, 1);
	}
	folio_clear_flag(f, PG_dirty);
	folio_put(f);
}

int filemap_remove_folio(struct folio *folio)
{
	struct address_space *m = folio->mapping;

	if (!m)
		return 0;
	/* never drop data or space: the store must have what the cache has */
	if (!folio_store_current(folio))
		return -EBUSY;
	__filemap_remove_folio(m, folio);
	return 0;
}

static bool store_has(struct address_space *m, int64_t index)
{
	return m->a_store && m->a_store->has_index(m, index);
}

int filemap_grab_folio(struct address_space *m, int64_t index, unsigned fgp, struct folio **out)
{
	return __filemap_grab_folio(m, index, fgp, out, NULL);
}

int __filemap_grab_folio(struct address_space *m, int64_t index, unsigned fgp, struct folio **out,
			 bool *did_read)
{
	struct folio *f;
	bool in_store;
	int err;

	if (did_read)
		*did_read = false;

repeat:
	f = filemap_get_folio(m, index);
	if (f) {
		if (fgp & FGP_LOCK) {
			folio_lock(f);
			if (f->mapping != m) { /* truncated meanwhile */
				folio_unlock(f);
				folio_put(f);
				goto repeat;
			}
		} else if (!folio_test_uptodate(f)) {
			folio_wait_locked(f); /* its creator fills it */
		}
		if (!folio_test_uptodate(f)) {
			if (fgp & FGP_LOCK)
				folio_unlock(f);
			folio_put(f);
			return -EIO;
		}
		/* shmem_get_folio_gfp, SGP_FALLOC on a folio fallocated
		 * earlier: initialize it now, lest an undo of this call take
		 * back the earlier call's guarantee */
		if (fgp & FGP_FALLOC)
			folio_clear_flag(f, PG_unwritten);
		*out = f;
		return 0;
	}
	if (!(fgp & FGP_CREAT))
		return -ENOENT;
	in_store = store_has(m, index);
	if (!in_store && sb_reserve_blocks(m->host->i_sb, 1))
		return -ENOSPC;
	f = __folio_alloc(true);
	if (!f) {
		err = -ENOMEM;
		goto out_release;
	}
	err = filemap_add_folio(m, f, index);
	if (err) { /* someone else created it */
		folio_unlock(f);
		folio_put(f);
		if (!in_store)
			sb_release_blocks(m->host->i_sb, 1);
		goto repeat;
	}
	if (!in_store)
		__atomic_fetch_add(&m->nrblocks, 1, __ATOMIC_RELAXED);
	if (in_store && !(fgp & FGP_NOFILL)) {
		err = m->a_store->read_folio(m, f);
		if (err) {
			__filemap_remove_folio(m, f);
			folio_unlock(f);
			folio_put(f);
			return err;
		}
		folio_set_flag(f, PG_stored); /* the store has what we read */
		rv_stat_inc(store_folio_reads);
		if (did_read)
			*did_read = true;
	} else if (!(fgp & FGP_NOFILL)) {
		memset(f->data, 0, PAGE_SIZE);
		if (fgp & FGP_FALLOC)
			folio_set_flag(f, PG_unwritten);
	}
	folio_mark_uptodate(f);
	if (!(fgp & FGP_LOCK))
		folio_unlock(f);
	*out = f;
	return 0;

out_release:
	if (!in_store)
		sb_release_blocks(m->host->i_sb, 1);
	return err;
}

int filemap_writeback_folio(struct folio *f)
{
	struct address_space *m = f->mapping;
	int err;

	if (!m || !m->a_store)
		return 0;
	/*
	 * A write through a shared mapping since the last writeback may be
	 * recorded only in a PTE's dirty bit: move those to the folio first
	 * (folio_clear_dirty_for_io's folio_mkclean).  Faults map a file
	 * folio only under its lock, so an unmapped folio (reclaim unmaps
	 * first) needs no walk.
	 */
	if (folio_mapcount(f) > 0 && vfs_hooks.folio_mkclean)
		vfs_hooks.folio_mkclean(f);
	/* dirty, or clean but never stored (fallocate, a zero-filled hole) */
	if (folio_store_current(f) || !folio_test_uptodate(f))
		return 0;
	folio_set_flag(f, PG_writeback);
	/* cleared before the copy: a modification during it re-dirties */
	folio_clear_flag(f, PG_dirty);
	err = m->a_store->writeback_folio(m, f);
	if (err) {
		folio_set_flag(f, PG_dirty);
	} else {
		folio_set_flag(f, PG_stored);
		/* stored zeroes are data (shmem_writeout marks a fallocated
		 * folio uptodate before it swaps it out) */
		folio_clear_flag(f, PG_unwritten);
		rv_stat_inc(store_folio_writes);
	}
	folio_clear_flag(f, PG_writeback);
	return err;
}

/*
 * The first folio of m at an index in [*idx, max], with a reference taken,
 * *idx set to its index; NULL if there is none.  A folio being freed
 * (folio_try_get fails) is looked up again.  The lookup half of the
 * kernel's find_get_entry (mm/filemap.c, Linux v6.12) without its
 * xas_reload: the callers check f->mapping (and f->index) under the folio
 * lock instead.
 */
static struct folio *filemap_find_get(struct address_space *m, uint64_t *idx, uint64_t max)
{
	struct folio *f;

	for (;;) {
		rcu_read_lock();
		f = xa_find(&m->i_pages, idx, max);
		if (!f || folio_try_get(f)) {
			rcu_read_unlock();
			return f;
		}
		rcu_read_unlock();
		cpu_relax(); /* being freed: look again */
	}
}

int filemap_write_and_wait_range(struct address_space *m, int64_t start, int64_t end)
{
	uint64_t idx = (uint64_t)(start >> PAGE_SHIFT);
	uint64_t last = (uint64_t)(end >> PAGE_SHIFT);
	int ret = 0;

	for (;;) {
		struct folio *f;
		int err;

		f = filemap_find_get(m, &idx, last);
		if (!f)
			break;
		folio_lock(f);
		/* fallocated, never written: zeroes with a block, nothing to
		 * sync (tmpfs's fsync is a no-op; storing it would make it data) */
		if (f->mapping == m && !folio_test_flag(f, PG_unwritten)) {
			err = filemap_writeback_folio(f);
			if (err && !ret)
				ret = err;
		}
		folio_unlock(f);
		folio_put(f);
		if (idx == UINT64_MAX)
			break;
		idx++;
	}
	return ret;
}

/* Zero bytes [from, to) of the folio at idx, a partial page of a truncated
 * or punched range (truncate_inode_partial_folio); the store learns it at
 * the next writeback. */
static void zero_partial_folio(struct address_space *m, int64_t idx, size_t from, size_t to)
{
	struct folio *f = NULL;

	if (filemap_grab_folio(m, idx, FGP_LOCK, &f) == -ENOENT && store_has(m, idx))
		filemap_grab_folio(m, idx, FGP_LOCK | FGP_CREAT, &f);
	if (!f)
		return; /* a hole: nothing to zero */
	memset((char *)f->data + from, 0, to - from);
	if (store_has(m, idx))
		folio_mark_dirty(f);
	folio_unlock(f);
	folio_put(f);
}

void truncate_inode_pages_range(struct address_space *m, int64_t lstart, int64_t lend)
{
	/*
	 * whole pages: [start, end).  In unsigned arithmetic, as the kernel's
	 * truncate_inode_pages_range does with its pgoff_t: lstart and lend
	 * may be within a page of MAX_LFS_FILESIZE (2^63-1), where the
	 * rounding overflows a loff_t.
	 */
	uint64_t start = ((uint64_t)lstart + PAGE_SIZE - 1) >> PAGE_SHIFT;
	uint64_t end = lend < 0 ? UINT64_MAX : ((uint64_t)lend + 1) >> PAGE_SHIFT;
	size_t soff = (size_t)(lstart & (PAGE_SIZE - 1));
	uint64_t idx = start;
	long dropped;

	while (idx < end) {
		struct folio *f;

		f = filemap_find_get(m, &idx, end - 1);
		if (!f)
			break;
		RV_INJECT("truncate_before_folio_lock");
		folio_lock(f);
		if (f->mapping == m && f->index == (int64_t)idx) {
			/*
			 * truncate_cleanup_folio: a fault may have mapped it
			 * after the caller's unmap_mapping_range (it held the
			 * folio lock then); unmap it now, under the lock, so no
			 * PTE outlives the removal.  Page-cache PTEs only: a
			 * private COW copy is the process's own page.
			 */
			if (folio_mapcount(f) > 0 && vfs_hooks.unmap_mapping_range)
				vfs_hooks.unmap_mapping_range(m, (int64_t)(idx << PAGE_SHIFT),
							      PAGE_SIZE, 0);
			__filemap_remove_folio(m, f);
			rv_stat_inc(folio_truncations);
		}
		folio_unlock(f);
		folio_put(f);
		if (idx == UINT64_MAX)
			break;
		idx++;
	}
	/* the partial folios: zero the part inside the range */
	if (lend < 0) {
		if (soff)
			zero_partial_folio(m, lstart >> PAGE_SHIFT, soff, PAGE_SIZE);
	} else if ((lstart >> PAGE_SHIFT) == (lend >> PAGE_SHIFT)) {
		if (soff || (lend & (PAGE_SIZE - 1)) != PAGE_SIZE - 1)
			zero_partial_folio(m, lstart >> PAGE_SHIFT, soff,
					   (size_t)(lend & (PAGE_SIZE - 1)) + 1);
	} else {
		if (soff)
			zero_partial_folio(m, lstart >> PAGE_SHIFT, soff, PAGE_SIZE);
		if ((lend & (PAGE_SIZE - 1)) != PAGE_SIZE - 1)
			zero_partial_folio(m, lend >> PAGE_SHIFT, 0,
					   (size_t)(lend & (PAGE_SIZE - 1)) + 1);
	}
	/* the store's whole pages inside: each was counted once (the cache
	 * removal above skipped the release for indices the store held) */
	if (start < end && m->a_store && m->a_store->truncate) {
		dropped = m->a_store->truncate(m, (int64_t)start,
					       end == UINT64_MAX ? -1 : (int64_t)(end - 1));
		if (dropped) {
			__atomic_fetch_sub(&m->nrblocks, dropped, __ATOMIC_RELAXED);
			sb_release_blocks(m->host->i_sb, dropped);
		}
	}
}

void truncate_inode_pages(struct address_space *m, int64_t lstart)
{
	truncate_inode_pages_range(m, lstart, -1);
}

void filemap_unfalloc_range(struct address_space *m, int64_t start, int64_t end)
{
	uint64_t idx = (uint64_t)start;

	while (end >= 0 && idx <= (uint64_t)end) {
		struct folio *f;

		f = filemap_find_get(m, &idx, (uint64_t)end);
		if (!f)
			break;
		folio_lock(f);
		/* written or faulted meanwhile: somebody's data now, keep it */
		if (f->mapping == m && f->index == (int64_t)idx &&
		    folio_test_flag(f, PG_unwritten) && !folio_mapcount(f))
			__filemap_remove_folio(m, f);
		folio_unlock(f);
		folio_put(f);
		idx++;
	}
}

/* Whether the cache holds data at idx (a folio that is not PG_unwritten). */
static bool cache_has_data(struct address_space *m, uint64_t idx)
{
	struct folio *f;
	bool data;

	rcu_read_lock();
	f = xa_load(&m->i_pages, idx);
	/* a recycled folio's flags may be stale: as racy as the kernel's
	 * lockless mapping_seek_hole_data, never unsafe (typesafe by RCU) */
	data = f && !folio_test_flag(f, PG_unwritten);
	rcu_read_unlock();
	return data;
}

/*
 * The walk computes byte positions in uint64_t: the page after the last one
 * a 2^63-1 byte file has starts at 2^63, which no loff_t holds.  Linux 6.x's
 * mapping_seek_hole_data computes that position as a loff_t
 * (round_up((u64)pos + 1, seek_size)), which wraps to LLONG_MIN, so on a
 * tmpfs file with data in its last page SEEK_DATA answers ENXIO and
 * SEEK_HOLE answers LLONG_MIN; here the answers are the data's page start
 * and end (the hole at EOF), what the function means to return.
 */
int64_t mapping_seek_data(struct address_space *m, int64_t pos, int64_t end, bool data)
{
	int64_t idx = pos >> PAGE_SHIFT;
	uint64_t res;

	if (data) {
		uint64_t ci = (uint64_t)idx;
		int64_t si = -1, best = -1;
		struct folio *f;

		for (;;) {
			rcu_read_lock();
			f = xa_find(&m->i_pages, &ci, UINT64_MAX);
			if (f && folio_test_flag(f, PG_unwritten) &&
			    (int64_t)ci < (end >> PAGE_SHIFT)) {
				rcu_read_unlock();
				ci++; /* fallocated, never written: a hole */
				continue;
			}
			rcu_read_unlock();
			break;
		}
		if (f && !folio_test_flag(f, PG_unwritten))
			best = (int64_t)ci;
		if (m->a_store && m->a_store->next_index)
			si = m->a_store->next_index(m, idx);
		if (si >= 0 && (best < 0 || si < best))
			best = si;
		if (best < 0)
			return end;
		res = (uint64_t)best << PAGE_SHIFT;
	} else {
		for (;;) {
			if (!cache_has_data(m, (uint64_t)idx) && !store_has(m, idx))
				break;
			if (((uint64_t)idx << PAGE_SHIFT) >= (uint64_t)end)
				break;
			idx++;
		}
		res = (uint64_t)idx << PAGE_SHIFT;
	}
	if (res < (uint64_t)pos)
		res = (uint64_t)pos;
	return res > (uint64_t)end ? end : (int64_t)res;
}

ssize_t filemap_read_at(struct address_space *m, void *buf, size_t count, int64_t pos)
{
	size_t done = 0;

	while (done < count) {
		int64_t idx = pos >> PAGE_SHIFT;
		size_t off = (size_t)(pos & (PAGE_SIZE - 1));
		size_t n = PAGE_SIZE - off;
		struct folio *f = filemap_get_folio(m, idx);

		if (n > count - done)
			n = count - done;
		if (!f && store_has(m, idx)) {
			int err = filemap_grab_folio(m, idx, FGP_CREAT, &f);

			if (err)
				return done ? (ssize_t)done : err;
		}
		if (f) {
			if (!folio_test_uptodate(f)) {
				folio_wait_locked(f);
				if (!folio_test_uptodate(f)) {
					folio_put(f);
					return done ? (ssize_t)done : -EIO;
				}
			}
			memcpy((char *)buf + done, (char *)f->data + off, n);
			folio_set_flag(f, PG_referenced);
			folio_put(f);
		} else {
			memset((char *)buf + done, 0, n); /* a hole */
		}
		done += n;
		pos += (int64_t)n;
	}
	return (ssize_t)done;
}

ssize_t filemap_write_at(struct address_space *m, const void *buf, size_t count, int64_t pos)
{
	size_t done = 0;

	while (done < count) {
		int64_t idx = pos >> PAGE_SHIFT;
		size_t off = (size_t)(pos & (PAGE_SIZE - 1));
		size_t n = PAGE_SIZE - off;
		unsigned fgp = FGP_CREAT | FGP_LOCK;
		struct folio *f;
		int err;

		if (n > count - done)
			n = count - done;
		if (n == PAGE_SIZE)
			fgp |= FGP_NOFILL;
		err = filemap_grab_folio(m, idx, fgp, &f);
		if (err)
			return done ? (ssize_t)done : err;
		memcpy((char *)f->data + off, (const char *)buf + done, n);
		folio_mark_dirty(f);
		folio_clear_flag(f, PG_unwritten); /* data now (shmem_write_end) */
		folio_unlock(f);
		folio_put(f);
		done += n;
		pos += (int64_t)n;
	}
	return (ssize_t)done;
}

/* ---- the in-memory backing store -------------------------------------- */

struct memstore {
	spinlock_t lock;
	struct xarray pages; /* index -> PAGE_SIZE buffer; lock */
};

static struct memstore *memstore_get(struct address_space *m, bool create)
{
	struct memstore *ms =
	    __atomic_load_n((struct memstore **)&m->store_private, __ATOMIC_ACQUIRE);

	if (ms || !create)
		return ms;
	ms = rv_calloc("memstore", 1, sizeof(*ms));
	if (!ms)
		return NULL;
	spin_lock_init(&ms->lock);
	xa_init(&ms->pages);
	{
		struct memstore *expected = NULL;

		if (!__atomic_compare_exchange_n((struct memstore **)&m->store_private, &expected,
						 ms, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			free(ms);
			ms = expected;
		}
	}
	return ms;
}

static int memstore_read_folio(struct address_space *m, struct folio *f)
{
	struct memstore *ms = memstore_get(m, false);
	void *p;

	if (rv_sw.io_latency_us > 0)
		usleep((useconds_t)rv_sw.io_latency_us);
	if (!ms) {
		memset(f->data, 0, PAGE_SIZE);
		return 0;
	}
	spin_lock(&ms->lock);
	p = xa_load(&ms->pages, (uint64_t)f->index);
	if (p)
		memcpy(f->data, p, PAGE_SIZE);
	else
		memset(f->data, 0, PAGE_SIZE);
	spin_unlock(&ms->lock);
	return 0;
}

static int memstore_writeback_folio(struct address_space *m, struct folio *f)
{
	struct memstore *ms = memstore_get(m, true);
	void *p, *fresh = NULL;

	if (!ms)
		return -ENOMEM;
	if (rv_sw.io_latency_us > 0)
		usleep((useconds_t)rv_sw.io_latency_us);
	for (;;) {
		spin_lock(&ms->lock);
		p = xa_load(&ms->pages, (uint64_t)f->index);
		if (p || fresh)
			break;
		spin_unlock(&ms->lock);
		fresh = rv_malloc("memstore_page", PAGE_SIZE);
		if (!fresh)
			return -ENOMEM;
	}
	if (!p) {
		p = fresh;
		fresh = NULL;
		if (xa_insert(&ms->pages, (uint64_t)f->index, p)) {
			spin_unlock(&ms->lock);
			free(p);
			return -ENOMEM;
		}
	}
	memcpy(p, f->data, PAGE_SIZE);
	spin_unlock(&ms->lock);
	free(fresh);
	return 0;
}

static bool memstore_has_index(struct address_space *m, int64_t index)
{
	struct memstore *ms = memstore_get(m, false);
	bool has;

	if (!ms)
		return false;
	rcu_read_lock();
	has = xa_load(&ms->pages, (uint64_t)index) != NULL;
	rcu_read_unlock();
	return has;
}

static int64_t memstore_next_index(struct address_space *m, int64_t index)
{
	struct memstore *ms = memstore_get(m, false);
	uint64_t idx = (uint64_t)index;
	void *p;

	if (!ms)
		return -1;
	rcu_read_lock();
	p = xa_find(&ms->pages, &idx, UINT64_MAX);
	rcu_read_unlock();
	return p ? (int64_t)idx : -1;
}

static long memstore_truncate(struct address_space *m, int64_t start, int64_t end)
{
	struct memstore *ms = memstore_get(m, false);
	uint64_t idx = (uint64_t)start, max = end < 0 ? UINT64_MAX : (uint64_t)end;
	long n = 0;

	if (!ms)
		return 0;
	spin_lock(&ms->lock);
	for (;;) {
		void *p = xa_find(&ms->pages, &idx, max);

		if (!p)
			break;
		xa_erase(&ms->pages, idx);
		/* readers copy under the lock, has_index only tests the slot */
		free(p);
		n++;
		if (idx == UINT64_MAX)
			break;
		idx++;
	}
	spin_unlock(&ms->lock);
	return n;
}

static void memstore_release(struct address_space *m)
{
	struct memstore *ms = memstore_get(m, false);

	if (!ms)
		return;
	memstore_truncate(m, 0, -1);
	xa_destroy(&ms->pages);
	m->store_private = NULL;
	free(ms);
}

const struct backing_store_ops memstore_ops = {
    .name = "memstore",
    .read_folio = memstore_read_folio,
    .writeback_folio = memstore_writeback_folio,
    .has_index = memstore_has_index,
    .next_index = memstore_next_index,
    .truncate = memstore_truncate,
    .release = memstore_release,
};
