// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/pgtable.c - two-level page tables with split PTE locks.
 *
 * The top level (mm->pgd, PTRS_PER_PGD atomic pointers) is populated under
 * mm->page_table_lock with a release store (pte_alloc), read with acquire
 * (pt_lookup) by anyone: faults, fork, zap, and lockless walkers under RCU.
 * A top-level entry is cleared only with mmap_lock held for write, by
 * free_pgtables, for a range that no VMA covers any more; the page-table
 * page is then freed after a grace period, so a lockless walker that loaded
 * the pointer just before may still read it.
 *
 * Each page-table page has its own spinlock (ptl).  A PTE changes only
 * under its ptl, except for the ACCESSED/DIRTY bits, which the model's
 * "hardware" (mm_access) sets with cmpxchg, and the RW bit that fork clears
 * with an atomic and, so a set of D by the walker is never lost.
 *
 * TLB flushes (mm/tlb.c) follow the kernel: zap frees folios only after
 * its mmu_gather flushed; change_protection and change_prot_numa flush the
 * range when they took a permission away; copy_page_range does not flush,
 * dup_mmap flushes the parent once at the end (flush_tlb_mm).
 */
#include "mm/internal.h"

#include <string.h>

RV_STAT_DEFINE(pt_pages_allocated, "page-table pages allocated");
RV_STAT_DEFINE(pt_pages_freed, "page-table pages freed through RCU");

struct pt_page *pte_alloc(struct mm_struct *mm, unsigned long addr)
{
	struct pt_page *pt = pt_lookup(mm, addr), *new;

	if (pt)
		return pt;
	new = kmem_cache_alloc(pt_page_cachep);
	if (!new)
		return NULL;
	spin_lock_init(&new->ptl);
	new->nr_present = 0;
	memset(new->ptes, 0, sizeof(new->ptes));

	spin_lock(&mm->page_table_lock);
	pt = mm->pgd[pgd_index(addr)];
	if (!pt) {
		/* release: the zeroed entries and lock are visible to whoever
		 * loads the pointer (pairs with the acquire in pt_lookup) */
		__atomic_store_n(&mm->pgd[pgd_index(addr)], new, __ATOMIC_RELEASE);
		__atomic_fetch_add(&mm->nr_ptes, 1, __ATOMIC_RELAXED);
		pt = new;
		new = NULL;
		rv_stat_inc(pt_pages_allocated);
	}
	spin_unlock(&mm->page_table_lock);
	if (new)
		kmem_cache_free(pt_page_cachep, new);
	return pt;
}

pte_t *mm_pte_lookup(struct mm_struct *mm, unsigned long addr)
{
	struct pt_page *pt = pt_lookup(mm, addr);

	return pt ? &pt->ptes[pte_index(addr)] : NULL;
}

pte_t mm_pte_read(struct mm_struct *mm, unsigned long addr)
{
	pte_t *ptep, pte = 0;

	rv_rcu_ensure();
	rcu_read_lock();
	ptep = mm_pte_lookup(mm, addr);
	if (ptep)
		pte = ptep_get(ptep);
	rcu_read_unlock();
	return pte;
}

long mm_nr_ptes(struct mm_struct *mm)
{
	return __atomic_load_n(&mm->nr_ptes, __ATOMIC_RELAXED);
}

/* Apply the RSS deltas a page-table pass batched in rss[] (no PTE lock held). */
static void add_mm_rss_vec(struct mm_struct *mm, const long *rss)
{
	for (int i = 0; i < NR_MM_COUNTERS; i++)
		if (rss[i])
			add_mm_counter(mm, i, rss[i]);
}

/*
 * Unmap [start, end) of vma.  Caller holds mmap_lock for write and has
 * write-locked the VMA (or the mm is dying), so no fault runs here.  Model
 * accesses that validated a PTE before it was cleared may still be copying
 * into its folio: the mmu_gather flushes the TLB (waiting for them) before
 * the folios lose the PTEs' references.
 */
void zap_page_range(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	zap_page_range_details(vma, start, end, false);
}

/*
 * With skip_anon (hole punch), anonymous folios (private COW copies) stay.
 * unmap_mapping_range calls this holding only i_mmap_rwsem: every change is
 * under the PTE lock, so concurrent faults are safe.  Its own mmu_gather,
 * as the kernel's zap_page_range_single.
 */
long zap_page_range_details(struct vm_area_struct *vma, unsigned long start, unsigned long end,
			    bool skip_anon)
{
	struct mmu_gather tlb;
	long zapped;

	tlb_gather_mmu(&tlb, vma->vm_mm);
	zapped = zap_page_range_tlb(&tlb, vma, start, end, skip_anon);
	tlb_finish_mmu(&tlb);
	return zapped;
}

/*
 * zap_pte_range (mm/memory.c): RSS goes now, folio references after the
 * flush.  A dirty PTE of a file folio: the folio is marked dirty, and a
 * writer may still be storing through its stale translation, so the TLB
 * is flushed before the PTE lock is dropped (force_flush: "Do the actual
 * TLB flush before dropping ptl") and the folio's mapcount drops only
 * after that flush (delay_rmap, Linux 6.2+, 5df397dec7c4): writeback's
 * folio_mkclean sees the folio mapped, walks to this PTE, waits on its
 * lock and then copies a folio no writer can change.  Other mapcounts go
 * at once: no writer can use a clean translation without setting DIRTY
 * in the PTE first (the model CPU's walk does), so none is in flight.
 */
struct zap_walk {
	struct mmu_gather *tlb;
	struct vm_area_struct *vma;
	bool skip_anon;
	bool force_flush; /* this table: a dirty file folio waits for the flush */
	long rss[NR_MM_COUNTERS], zapped;
};

static void zap_pte(pte_t *ptep, unsigned long addr, struct pt_page *pt, void *priv)
{
	struct zap_walk *z = priv;
	struct folio *folio;
	pte_t pte;

	(void)addr;
	pte = ptep_get(ptep);
	if (pte_none(pte))
		return;
	if (z->skip_anon && (pte_special(pte) || mm_folio_is_anon(mm_folio_from_pte(pte))))
		return;
	pte = ptep_get_and_clear(ptep);
	pt->nr_present--;
	z->zapped++;
	if (pte_special(pte)) {
		tlb_remove_folio(z->tlb, NULL, false);
		return;
	}
	folio = mm_folio_from_pte(pte);
	z->rss[mm_counter_of(z->vma, folio)]--;
	if (pte_dirty(pte) && !mm_folio_is_anon(folio)) {
		mm_folio_mark_dirty(folio);
		z->force_flush = true;
		tlb_remove_folio(z->tlb, folio, true);
		return;
	}
	mm_folio_mapcount_dec(folio);
	tlb_remove_folio(z->tlb, folio, false);
}

/* the flush before dropping the PTE lock, then the rmaps */
static void zap_table_done(struct pt_page *pt, void *priv)
{
	struct zap_walk *z = priv;

	(void)pt;
	if (z->force_flush) {
		tlb_flush_mmu_tlbonly(z->tlb);
		tlb_flush_rmaps(z->tlb);
		z->force_flush = false;
	}
}

long zap_page_range_tlb(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long start,
			unsigned long end, bool skip_anon)
{
	struct zap_walk z = {.tlb = tlb, .vma = vma, .skip_anon = skip_anon};

	walk_pte_range_locked(vma->vm_mm, start, end, zap_pte, zap_table_done, &z);
	add_mm_rss_vec(vma->vm_mm, z.rss);
	return z.zapped;
}

static void pt_page_free_rcu(struct rcu_head *head)
{
	struct pt_page *pt = container_of(head, struct pt_page, rcu);

	kmem_cache_free(pt_page_cachep, pt);
	rv_stat_inc(pt_pages_freed);
}

/*
 * Free page-table pages whose whole span lies in [floor, ceiling): no VMA
 * maps any of it.  mmap_lock held for write.
 */
void free_pgtables(struct mm_struct *mm, unsigned long floor, unsigned long ceiling)
{
	unsigned long first = (floor + PGDIR_SIZE - 1) >> PGDIR_SHIFT;
	unsigned long last = ceiling >> PGDIR_SHIFT; /* exclusive */

	if (ceiling > TASK_SIZE)
		last = PTRS_PER_PGD;
	for (unsigned long i = first; i < last && i < PTRS_PER_PGD; i++) {
		struct pt_page *pt = __atomic_load_n(&mm->pgd[i], __ATOMIC_RELAXED);

		if (!pt)
			continue;
		if (pt->nr_present)
			fprintf(stderr, "mm: freeing a page table with %d entries\n",
				pt->nr_present);
		__atomic_store_n(&mm->pgd[i], NULL, __ATOMIC_RELEASE);
		__atomic_fetch_sub(&mm->nr_ptes, 1, __ATOMIC_RELAXED);
		rv_call_rcu(&pt->rcu, pt_page_free_rcu);
	}
}

/*
 * fork: copy the PTEs of src_vma into dst_vma (same range, new mm).  Both
 * mms' mmap_locks are held for write.  For a COW mapping, a writable PTE
 * is write-protected in both parent and child and the folio shared (one
 * more reference and map count); the first write on either side then
 * takes a write-protect fault that copies (or reuses, if alone by then).
 *
 * The child's RSS counters grow per page table, as copy_pte_range
 * (mm/memory.c, Linux 6.12) calls add_mm_rss_vec once per table it
 * filled: when a later table cannot be allocated (-ENOMEM), the PTEs
 * already copied are counted, and the failed fork's exit_mmap, which
 * subtracts every PTE it zaps, leaves the counters at zero.
 */
int copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)
{
	struct mm_struct *dst_mm = dst_vma->vm_mm, *src_mm = src_vma->vm_mm;
	bool cow = is_cow_mapping(src_vma->vm_flags);
	unsigned long end = src_vma->vm_end;

	for (unsigned long addr = src_vma->vm_start, next; addr < end; addr = next) {
		struct pt_page *src_pt = pt_lookup(src_mm, addr), *dst_pt;
		long rss[NR_MM_COUNTERS] = {0};

		next = pgd_addr_end(addr, end);
		if (!src_pt)
			continue;
		dst_pt = pte_alloc(dst_mm, addr);
		if (!dst_pt)
			return -ENOMEM;
		/* lock order: parent's table, then the child's (fork only) */
		spin_lock(&src_pt->ptl);
		spin_lock(&dst_pt->ptl);
		for (unsigned long a = addr; a < next; a += PAGE_SIZE) {
			pte_t *src_ptep = &src_pt->ptes[pte_index(a)];
			pte_t pte = ptep_get(src_ptep);
			struct folio *folio;

			if (pte_none(pte))
				continue;
			if (cow && pte_write(pte)) {
				/* atomic: the walker may set DIRTY meanwhile */
				pte = __atomic_fetch_and(src_ptep, ~_PAGE_RW, __ATOMIC_ACQ_REL);
				pte &= ~_PAGE_RW;
			}
			if (!pte_special(pte)) {
				folio = mm_folio_from_pte(pte);
				mm_folio_get(folio);
				mm_folio_mapcount_inc(folio);
				rss[mm_counter_of(dst_vma, folio)]++;
			}
			set_pte(&dst_pt->ptes[pte_index(a)], pte & ~_PAGE_ACCESSED);
			dst_pt->nr_present++;
		}
		spin_unlock(&dst_pt->ptl);
		spin_unlock(&src_pt->ptl);
		add_mm_rss_vec(dst_mm, rss);
	}
	return 0;
}

struct change_prot_walk {
	unsigned long flags;
	bool flush;
};

static void change_pte(pte_t *ptep, unsigned long addr, struct pt_page *pt, void *priv)
{
	struct change_prot_walk *w = priv;
	unsigned long flags = w->flags;
	pte_t old, new;

	(void)addr;
	(void)pt;
	old = ptep_get(ptep);
	do {
		if (pte_none(old))
			break;
		new = old;
		if (!(flags & VM_ACCESS_FLAGS)) {
			new &= ~(_PAGE_PRESENT | _PAGE_RW);
			new |= _PAGE_PROTNONE;
		} else {
			if (pte_protnone(new))
				new = (new & ~_PAGE_PROTNONE) | _PAGE_PRESENT;
			/* write permission returns through a fault */
			if (!(flags & VM_WRITE))
				new &= ~_PAGE_RW;
		}
	} while (new != old && !__atomic_compare_exchange_n(ptep, &old, new, false,
							    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	/* a permission taken away must leave every TLB */
	if (!pte_none(old) &&
	    (new & ~old &_PAGE_PROTNONE || (old & ~new &(_PAGE_RW | _PAGE_PRESENT))))
		w->flush = true;
}

/* mprotect: make PTEs of [start, end) agree with vma->vm_flags (already set). */
void change_protection(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	struct change_prot_walk w = {.flags = vma->vm_flags};

	walk_pte_range_locked(vma->vm_mm, start, end, change_pte, NULL, &w);
	/* do_mprotect_pkey's mmu_gather: tlb_finish_mmu flushes the range */
	if (w.flush && !RV_MUTANT(change_protection_no_flush))
		flush_tlb_range(vma, start, end);
}

/*
 * The NUMA-hinting scan (change_pte_range with MM_CP_PROT_NUMA): each
 * present PTE goes through ptep_modify_prot_start, which clears it, and
 * ptep_modify_prot_commit, which installs the PROTNONE version, with the
 * PTE lock held across the window as the kernel does.  A concurrent fault
 * reading the PTE locklessly inside the window sees pte_none.
 */
static void prot_numa_pte(pte_t *ptep, unsigned long addr, struct pt_page *pt, void *priv)
{
	long *changed = priv;
	pte_t old = ptep_get(ptep);

	(void)addr;
	(void)pt;
	if (!(old & _PAGE_PRESENT) || pte_special(old))
		return;
	old = ptep_get_and_clear(ptep); /* ptep_modify_prot_start */
	RV_INJECT("numa_prot_window");
	/* ptep_modify_prot_commit; RW stays as the saved write bit */
	set_pte(ptep, (old & ~_PAGE_PRESENT) | _PAGE_PROTNONE);
	(*changed)++;
}

long change_prot_numa(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	long changed = 0;

	if (start < vma->vm_start)
		start = vma->vm_start;
	if (end > vma->vm_end)
		end = vma->vm_end;
	walk_pte_range_locked(vma->vm_mm, start, end, prot_numa_pte, NULL, &changed);
	/* change_prot_numa's mmu_gather (tlb_finish_mmu) */
	if (changed && !RV_MUTANT(change_prot_numa_no_flush))
		flush_tlb_range(vma, start, end);
	return changed;
}
