// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/vmscan.c - reclaim of page-cache folios to the backing store and the
 * NUMA-hinting scan of an address space.
 *
 * Reclaim (docs/history.md): file folios are put on one LRU list when the VFS
 * inserts them into a mapping (vfs_hooks.folio_add_lru).  When the cache
 * holds more than rv_sw.cache_pages folios, the task that added one reclaims
 * the oldest ones (direct reclaim): isolate with a reference, trylock the
 * folio, unmap it from every VMA through i_mmap (try_to_unmap), write it
 * back unless the store already holds its current contents
 * (folio_store_current: not only dirty folios, also clean ones the store
 * never saw, from fallocate or a hole zero-filled by a fault), remove it
 * from the mapping.  A later fault on it is a major
 * fault (backing-store read, io_latency_us).  Anonymous folios are never on
 * the LRU: they are never reclaimed (the seed's mlockall case).
 *
 * Locking: lru_lock (spinlock) protects lru_list, nr_lru and PG_lru; it is
 * never held while calling into the VFS (a folio freed there calls
 * folio_del_lru, which takes it).  Reclaim runs inside filemap_add_folio's
 * callers, so it only trylocks (folio lock, i_mmap_rwsem) and skips what it
 * cannot get; PTEs change under their ptl.
 */
#include "mm/internal.h"

RV_STAT_DEFINE(reclaim_scanned, "page-cache folios considered by reclaim");
RV_STAT_DEFINE(reclaim_freed, "page-cache folios reclaimed to the backing store");
RV_STAT_DEFINE(reclaim_writebacks, "folios written back by reclaim (dirty or never stored)");
RV_STAT_DEFINE(reclaim_unstored_writebacks, "clean never-stored folios written back by reclaim");
RV_STAT_DEFINE(reclaim_unmapped, "PTEs removed by reclaim (try_to_unmap)");
RV_STAT_DEFINE(numa_scan_ptes, "PTEs made PROTNONE by the NUMA-hinting scan");

static DEFINE_SPINLOCK(lru_lock);
static struct list_head lru_list = LIST_HEAD_INIT(lru_list);
static long nr_lru;	  /* under lru_lock */
static int reclaim_depth; /* atomic: concurrent direct reclaimers */

long mm_lru_pages(void)
{
	return READ_ONCE(nr_lru);
}

/* try_to_unmap_one (mm/rmap.c, 6.9); false, with *locked set, for an
 * mlocked mapping, which keeps the folio and ends the walk. */
static bool try_to_unmap_one(struct folio *folio, struct vm_area_struct *vma, unsigned long addr,
			     struct pt_page *pt, pte_t *ptep, pte_t pte, void *arg)
{
	bool *locked = arg;

	if (READ_ONCE(vma->vm_flags) & VM_LOCKED) {
		*locked = true;
		return false;
	}
	/* clear and flush before the folio goes */
	pte = RV_MUTANT(try_to_unmap_no_flush) ? ptep_get_and_clear(ptep)
					       : ptep_clear_flush(vma, addr, ptep);
	pt->nr_present--;
	if (pte_dirty(pte))
		folio_mark_dirty(folio);
	mm_folio_mapcount_dec(folio);
	add_mm_counter(vma->vm_mm, MM_FILEPAGES, -1);
	folio_put(folio); /* the PTE's reference */
	rv_stat_inc(reclaim_unmapped);
	return true;
}

/* Unmap a locked file folio from every PTE; true if no mapping is left. */
static bool try_to_unmap(struct folio *folio)
{
	struct address_space *m = folio->mapping;
	bool locked = false;

	if (!folio_mapcount(folio))
		return true;
	if (!down_read_trylock(&m->i_mmap_rwsem))
		return false;
	/* the VMAs are on i_mmap, so their page tables are not freed */
	rmap_walk_file_locked(folio, m, NULL, try_to_unmap_one, &locked);
	up_read(&m->i_mmap_rwsem);
	return !locked && folio_mapcount(folio) == 0;
}

/* Reclaim one isolated folio we hold a reference on; true if it went. */
static bool shrink_folio(struct folio *folio)
{
	bool freed = false;

	if (!folio_trylock(folio))
		return false;
	if (!folio->mapping || folio_test_anon(folio))
		goto out; /* truncated meanwhile (or not ours to reclaim) */
	if (!try_to_unmap(folio))
		goto out;
	/* ours + the cache's: anyone else (a fault about to map it, a
	 * reader) keeps it */
	if (folio_ref_count(folio) > 2)
		goto out;
	/*
	 * The store must hold the folio's current contents before it goes:
	 * dirty folios, and clean ones it never saw (fallocate, a hole
	 * zero-filled by a fault), whose data and space would be lost.
	 */
	if (!folio_store_current(folio)) {
		bool dirty = folio_test_dirty(folio);

		if (filemap_writeback_folio(folio))
			goto out;
		rv_stat_inc(reclaim_writebacks);
		if (!dirty)
			rv_stat_inc(reclaim_unstored_writebacks);
	}
	if (filemap_remove_folio(folio))
		goto out;
	freed = true;
	rv_stat_inc(reclaim_freed);
out:
	folio_unlock(folio);
	return freed;
}

/* Reclaim up to nr folios from the cold end of the LRU; returns how many went. */
long mm_reclaim_folios(long nr)
{
	struct list_head isolated = LIST_HEAD_INIT(isolated), *pos, *next;
	long freed = 0, scan = 2 * nr;

	/* plain list_head walks: struct folio is over-aligned, so the
	 * list_for_each_entry idiom's fake entry at the head is misaligned */
	spin_lock(&lru_lock);
	for (pos = lru_list.next; pos != &lru_list && scan-- > 0; pos = next) {
		struct folio *f = list_entry(pos, struct folio, lru);

		next = pos->next;
		if (!folio_try_get(f))
			continue; /* being freed: it leaves the list itself */
		list_del_init(&f->lru);
		folio_clear_flag(f, PG_lru);
		nr_lru--;
		list_add_tail(&f->lru, &isolated);
	}
	spin_unlock(&lru_lock);

	while (!list_empty(&isolated)) {
		struct folio *f = list_entry(isolated.next, struct folio, lru);

		list_del_init(&f->lru);
		rv_stat_inc(reclaim_scanned);
		if (freed < nr && shrink_folio(f)) {
			freed++;
		} else if (f->mapping) {
			/* put back at the hot end */
			spin_lock(&lru_lock);
			if (!folio_test_lru(f)) {
				folio_set_flag(f, PG_lru);
				list_add_tail(&f->lru, &lru_list);
				nr_lru++;
			}
			spin_unlock(&lru_lock);
		}
		folio_put(f);
	}
	return freed;
}

static void mm_folio_add_lru(struct folio *folio)
{
	long over;

	spin_lock(&lru_lock);
	if (!folio_test_lru(folio)) {
		folio_set_flag(folio, PG_lru);
		list_add_tail(&folio->lru, &lru_list);
		nr_lru++;
	}
	over = rv_sw.cache_pages > 0 ? nr_lru - rv_sw.cache_pages : 0;
	spin_unlock(&lru_lock);
	if (over <= 0)
		return;
	/* direct reclaim, by at most two tasks at a time */
	if (__atomic_fetch_add(&reclaim_depth, 1, __ATOMIC_ACQUIRE) < 2)
		mm_reclaim_folios(over);
	__atomic_fetch_sub(&reclaim_depth, 1, __ATOMIC_RELEASE);
}

static void mm_folio_del_lru(struct folio *folio)
{
	spin_lock(&lru_lock);
	if (folio_test_clear_flag(folio, PG_lru)) {
		list_del_init(&folio->lru);
		nr_lru--;
	}
	spin_unlock(&lru_lock);
}

static uint64_t gauge_lru_folios(void)
{
	return (uint64_t)READ_ONCE(nr_lru);
}

void mm_vmscan_init(void)
{
	rv_stat_register_gauge("lru_folios",
			       "page-cache folios on the LRU (cache_pages bounds them)",
			       gauge_lru_folios);
	spin_lock(&lru_lock);
	INIT_LIST_HEAD(&lru_list);
	nr_lru = 0;
	spin_unlock(&lru_lock);
	reclaim_depth = 0;
	vfs_hooks.folio_add_lru = mm_folio_add_lru;
	vfs_hooks.folio_del_lru = mm_folio_del_lru;
}

void mm_vmscan_exit(void)
{
	vfs_hooks.folio_add_lru = NULL;
	vfs_hooks.folio_del_lru = NULL;
	/* folios still cached are freed by the VFS teardown; forget them */
	spin_lock(&lru_lock);
	while (!list_empty(&lru_list)) {
		struct folio *f = list_first_entry(&lru_list, struct folio, lru);

		list_del_init(&f->lru);
		folio_clear_flag(f, PG_lru);
	}
	nr_lru = 0;
	spin_unlock(&lru_lock);
}

/* ------------------------------------------------------------------ */
/* NUMA hinting scan (task_numa_work)                                  */
/* ------------------------------------------------------------------ */

long task_numa_work(struct mm_struct *mm)
{
	struct vm_area_struct *vma;
	long n = 0;
	int i;

	mmap_read_lock(mm);
	for_each_vma_idx(mm, i, vma)
		if (vma_is_accessible(vma))
			n += change_prot_numa(vma, vma->vm_start, vma->vm_end);
	mmap_read_unlock(mm);
	rv_stat_add(numa_scan_ptes, (uint64_t)n);
	return n;
}
