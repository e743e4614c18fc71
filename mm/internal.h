/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mm/internal.h - declarations shared by the files of mm/ only.
 * Locking rules: see mm/mm.h.
 */
#ifndef RCUVFS_MM_INTERNAL_H
#define RCUVFS_MM_INTERNAL_H
#include "mm/mm.h"

extern struct kmem_cache *vm_area_cachep;
extern struct kmem_cache *vma_lock_cachep;
extern struct kmem_cache *mm_cachep;
extern struct kmem_cache *anon_vma_cachep;
extern struct kmem_cache *anon_vma_chain_cachep;
extern struct kmem_cache *pt_page_cachep;
extern long mm_live; /* atomic: mm_structs allocated */

/* The VMA tree: see mm.h.  nr is published with release after v[]. */
struct vma_array {
	int nr;
	int cap;
	struct rcu_head rcu;
	struct vm_area_struct *v[];
};

/* mm/folio.c: the folio interface mm uses (anonymous allocator, PTE encoding) */
int mm_folio_init(void);
int mm_folio_exit(void);
struct folio *mm_alloc_anon_folio(void); /* zeroed, one reference */
bool mm_folio_try_get(struct folio *folio);
pte_t mm_folio_to_pte(struct folio *folio);
bool mm_folio_is_zero(struct folio *folio);
void mm_folio_mapcount_inc(struct folio *folio);
/* Returns the new mapcount. */
int mm_folio_mapcount_dec(struct folio *folio);
void mm_folio_set_anon(struct folio *folio, struct anon_vma *av, unsigned long index);
struct anon_vma *mm_folio_anon_vma(struct folio *folio);
unsigned long mm_folio_index(struct folio *folio);
struct address_space *mm_folio_mapping(struct folio *folio);
void mm_folio_mark_dirty(struct folio *folio);

/* mm/pgtable.c */
static inline unsigned long pgd_index(unsigned long addr)
{
	return (addr >> PGDIR_SHIFT) & (PTRS_PER_PGD - 1);
}
static inline unsigned long pte_index(unsigned long addr)
{
	return (addr >> PAGE_SHIFT) & (PTRS_PER_PTE - 1);
}
static inline unsigned long pgd_addr_end(unsigned long addr, unsigned long end)
{
	unsigned long boundary = (addr + PGDIR_SIZE) & PGDIR_MASK;

	return (boundary - 1 < end - 1) ? boundary : end;
}
/* The page-table page covering addr, or NULL (acquire: pairs with pte_alloc). */
static inline struct pt_page *pt_lookup(struct mm_struct *mm, unsigned long addr)
{
	return __atomic_load_n(&mm->pgd[pgd_index(addr)], __ATOMIC_ACQUIRE);
}
static inline pte_t ptep_get(pte_t *ptep)
{
	return __atomic_load_n(ptep, __ATOMIC_ACQUIRE);
}

/*
 * The locked PTE-range walk, in the shape of walk_pte_range (mm/pagewalk.c,
 * Linux v6.12): for each page-table page that exists over [start, end),
 * take its lock, call pte_entry on each PTE of the part of the range it
 * covers, then table_done (if not NULL) with the lock still held, and drop
 * the lock.  Absent tables are skipped (no pte_hole).  The caller keeps the
 * tables allocated (mmap_lock or the VMA lock).  static inline: callers
 * pass constant callbacks, which the compiler inlines, so the walk costs
 * what a loop written out does.
 */
static inline void walk_pte_range_locked(
    struct mm_struct *mm, unsigned long start, unsigned long end,
    void (*pte_entry)(pte_t *ptep, unsigned long addr, struct pt_page *pt, void *priv),
    void (*table_done)(struct pt_page *pt, void *priv), void *priv)
{
	for (unsigned long addr = start, next; addr < end; addr = next) {
		struct pt_page *pt = pt_lookup(mm, addr);

		next = pgd_addr_end(addr, end);
		if (!pt)
			continue;
		spin_lock(&pt->ptl);
		for (unsigned long a = addr; a < next; a += PAGE_SIZE)
			pte_entry(&pt->ptes[pte_index(a)], a, pt, priv);
		if (table_done)
			table_done(pt, priv);
		spin_unlock(&pt->ptl);
	}
}
static inline void set_pte(pte_t *ptep, pte_t pte)
{
	__atomic_store_n(ptep, pte, __ATOMIC_RELEASE);
}
static inline pte_t ptep_get_and_clear(pte_t *ptep)
{
	return __atomic_exchange_n(ptep, 0, __ATOMIC_ACQ_REL);
}
/* Populate the top-level entry for addr if empty; NULL on -ENOMEM. */
struct pt_page *pte_alloc(struct mm_struct *mm, unsigned long addr);
/* Unmap [start, end) of a VMA: drop folio references, mapcounts and RSS. */
void zap_page_range(struct vm_area_struct *vma, unsigned long start, unsigned long end);
/* The same, keeping anonymous folios when skip_anon; returns PTEs removed.
 * Flushes the TLB before the folios go (its own mmu_gather). */
long zap_page_range_details(struct vm_area_struct *vma, unsigned long start, unsigned long end,
			    bool skip_anon);
/* Zap into the caller's mmu_gather (munmap, exit_mmap: one flush for all VMAs). */
struct mmu_gather;
long zap_page_range_tlb(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long start,
			unsigned long end, bool skip_anon);
/* Free page-table pages wholly inside [floor, ceiling) (RCU-deferred). */
void free_pgtables(struct mm_struct *mm, unsigned long floor, unsigned long ceiling);
int copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma);
/* mprotect's PTE pass: new VMA flags already set. */
void change_protection(struct vm_area_struct *vma, unsigned long start, unsigned long end);

static inline void add_mm_counter(struct mm_struct *mm, int member, long value)
{
	percpu_counter_add(&mm->rss_stat[member], value);
}
static inline int mm_counter_of(struct vm_area_struct *vma, struct folio *folio)
{
	(void)vma;
	return mm_folio_is_anon(folio) ? MM_ANONPAGES : MM_FILEPAGES;
}

/*
 * The user address at which vma maps file page pgoff, or -EFAULT when the
 * VMA does not cover it (the kernel's vma_address for one page).
 */
static inline unsigned long vma_address(const struct vm_area_struct *vma, unsigned long pgoff)
{
	if (pgoff < vma->vm_pgoff || pgoff - vma->vm_pgoff >= vma_pages(vma))
		return (unsigned long)-EFAULT;
	return vma->vm_start + ((pgoff - vma->vm_pgoff) << PAGE_SHIFT);
}

/*
 * The PTE at addr if it maps folio, returned with its PTE lock held (*ptp:
 * unlock and nr_present) and the value it held (*ptev); NULL, with no lock
 * held, otherwise.  The caller keeps the page table allocated (the VMA is
 * on i_mmap).  The locked half of the kernel's page_check_address.
 */
static inline pte_t *folio_check_address(struct folio *folio, struct mm_struct *mm,
					 unsigned long addr, struct pt_page **ptp, pte_t *ptev)
{
	struct pt_page *pt = pt_lookup(mm, addr);
	pte_t *ptep, pte;

	if (!pt)
		return NULL;
	/* the table is loaded, its lock not yet taken: what keeps it
	 * allocated is the VMA being on i_mmap (no RCU here) */
	RV_INJECT("folio_check_address");
	spin_lock(&pt->ptl);
	ptep = &pt->ptes[pte_index(addr)];
	pte = ptep_get(ptep);
	if (pte_present(pte) && !pte_special(pte) && mm_folio_from_pte(pte) == folio) {
		*ptp = pt;
		*ptev = pte;
		return ptep;
	}
	spin_unlock(&pt->ptl);
	return NULL;
}

/*
 * The file rmap walk, in the shape of rmap_walk_file with
 * page_vma_mapped_walk (mm/rmap.c, Linux v6.12): for each VMA on the
 * folio's mapping's i_mmap that invalid_vma (if not NULL) does not skip and
 * that maps the folio, rmap_one runs with the PTE lock held, the PTE's
 * address and value; the lock is dropped after it, and a false return ends
 * the walk.  The caller holds the folio lock and i_mmap_rwsem (read), which
 * keep the VMAs' page tables allocated.  static inline: callers pass
 * constant callbacks, which the compiler inlines.
 */
static inline void rmap_walk_file_locked(
    struct folio *folio, struct address_space *m, bool (*invalid_vma)(struct vm_area_struct *vma),
    bool (*rmap_one)(struct folio *folio, struct vm_area_struct *vma, unsigned long addr,
		     struct pt_page *pt, pte_t *ptep, pte_t pte, void *arg),
    void *arg)
{
	unsigned long index = mm_folio_index(folio);
	struct vm_area_struct *vma;

	list_for_each_entry(vma, &m->i_mmap, shared) {
		unsigned long addr;
		struct pt_page *pt;
		pte_t *ptep, pte;
		bool more;

		if (invalid_vma && invalid_vma(vma))
			continue;
		addr = vma_address(vma, index);
		if (addr == (unsigned long)-EFAULT)
			continue;
		ptep = folio_check_address(folio, vma->vm_mm, addr, &pt, &pte);
		if (!ptep)
			continue;
		more = rmap_one(folio, vma, addr, pt, ptep, pte, arg);
		spin_unlock(&pt->ptl);
		if (!more)
			break;
	}
}

/*
 * mm/tlb.c: the model TLB.  A model access holds a translation from its
 * page-table walk to the end of its copy (tlb_enter .. tlb_exit); a TLB
 * flush of the mm waits for every such section that may have loaded a PTE
 * from before the change, as a shootdown IPI waits for every CPU.
 */
#ifdef RCUVFS_EXPLORE
/* The explorer build only: a scheduling point in tlb_enter between the
 * epoch read and the count (tlb_enter_point_for_test, mm/testing.h). */
extern struct task_struct *tlb_enter_point_test;
#endif
static inline int tlb_enter(struct mm_struct *mm)
{
	int idx = __atomic_load_n(&mm->tlb_epoch, __ATOMIC_RELAXED) & 1;

#ifdef RCUVFS_EXPLORE
	/* a section that read the epoch before a flush flipped it and
	 * counts itself after: the flush's second pass is for it */
	if (tlb_enter_point_test && tlb_enter_point_test == rv_current)
		rv_sched_point("tlb_enter: epoch read, not yet counted");
#endif

	/* seq_cst: a full barrier before the walk's PTE loads; pairs with the
	 * smp_mb() in flush_tlb_mm after the PTE change */
	__atomic_fetch_add(&mm->tlb_users[idx], 1, __ATOMIC_SEQ_CST);
	return idx;
}
static inline void tlb_exit(struct mm_struct *mm, int idx)
{
	/* release: the copy is done before a waiting flush returns */
	__atomic_fetch_sub(&mm->tlb_users[idx], 1, __ATOMIC_RELEASE);
}
void flush_tlb_mm(struct mm_struct *mm);
void flush_tlb_range(struct vm_area_struct *vma, unsigned long start, unsigned long end);
/* Clear the PTE and flush its translation (ptl held); returns the old PTE. */
pte_t ptep_clear_flush(struct vm_area_struct *vma, unsigned long addr, pte_t *ptep);

/*
 * mmu_gather: zap clears PTEs and queues the folios whose PTE references
 * it drops; tlb_flush_mmu / tlb_finish_mmu flush the TLB and only then put
 * them (the kernel's tlb_gather_mmu .. tlb_finish_mmu).  A folio queued
 * with delay_rmap (a dirty PTE of a file folio) also keeps its mapcount
 * until the flush (tlb_flush_rmaps), and zap flushes before it drops the
 * PTE lock: writeback (folio_mkclean) still sees the folio mapped and
 * waits on that lock until no stale writer is left (zap_pte_range).
 */
#define MMU_GATHER_BATCH 64
struct mmu_gather {
	struct mm_struct *mm;
	bool need_flush;
	bool delayed_rmap; /* some entry has delay_rmap set */
	int nr;
	struct folio *folios[MMU_GATHER_BATCH];
	bool delay_rmap[MMU_GATHER_BATCH];
};
void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm);
/*
 * A present PTE was cleared; folio (or NULL: the zero page) loses its
 * reference after the flush, and its mapcount then too with delay_rmap
 * (else the caller dropped it already).  A full batch is flushed first.
 */
void tlb_remove_folio(struct mmu_gather *tlb, struct folio *folio, bool delay_rmap);
/* Flush only; then tlb_flush_rmaps drops the delayed mapcounts (PTE lock held). */
void tlb_flush_mmu_tlbonly(struct mmu_gather *tlb);
void tlb_flush_rmaps(struct mmu_gather *tlb);
void tlb_flush_mmu(struct mmu_gather *tlb);
void tlb_finish_mmu(struct mmu_gather *tlb);

/* mm/rmap.c */
static inline void anon_vma_lock_write(struct anon_vma *av)
{
	down_write(&av->root->rwsem);
}
static inline void anon_vma_unlock_write(struct anon_vma *av)
{
	up_write(&av->root->rwsem);
}
bool pte_maps_folio(struct mm_struct *mm, unsigned long addr, struct folio *folio);

/*
 * vma_is_fork_child (mm/vma.c, Linux 6.18; vma_had_uncowed_parents in
 * 6.16): a VMA with an anon_vma whose chain has more than one link was
 * forked from a parent (it may map the parent's folios).  Its anon_vma is
 * not spread over more memory by a merge, nor reused by a neighbour:
 * that would widen what the tree's root lock covers.  Stable under
 * mmap_lock (read): the chain grows only under mmap_lock for write (fork,
 * split) or, in anon_vma_prepare, before anon_vma is published.
 */
static inline bool vma_is_fork_child(const struct vm_area_struct *vma)
{
	const struct list_head *h;

	if (!vma || !smp_load_acquire(&vma->anon_vma))
		return false;
	h = &vma->anon_vma_chain;
	return !(h->next != h && h->next == h->prev); /* !list_is_singular */
}

/* mm/mmap.c */
/* The VMAs before and after vma in the tree (NULL at the ends); mmap_lock held. */
struct vm_area_struct *vma_prev_of(struct vm_area_struct *vma);
struct vm_area_struct *vma_next_of(struct vm_area_struct *vma);
struct vm_area_struct *vm_area_alloc(struct mm_struct *mm);
struct vm_area_struct *vm_area_dup(struct vm_area_struct *orig);
void vm_area_free(struct vm_area_struct *vma); /* per vm_area_cache (mmap.c) */
/* A VMA that never entered the tree (no reader can hold it): freed now. */
void vm_area_free_unpublished(struct vm_area_struct *vma);
void vma_link_file(struct vm_area_struct *vma);
void vma_unlink_file(struct vm_area_struct *vma);
/* mremap's helpers (mm/mmap.c); mmap_lock held for write */
unsigned long mm_get_unmapped_area(struct mm_struct *mm, unsigned long hint, unsigned long len);
int vma_insert(struct mm_struct *mm, struct vm_area_struct *vma);
void vma_merge_around(struct mm_struct *mm, struct vm_area_struct *vma);
void vma_expand_in_place(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long delta);
/* Append a VMA at the end of the tree (fork builds the child this way). */
int vma_tree_append(struct mm_struct *mm, struct vm_area_struct *vma);
void exit_mmap(struct mm_struct *mm);
/*
 * Set and clear VM_ flags on [start, end) (mmap_lock held for write), VMA
 * by VMA as apply_vma_lock_flags: split at the ends, write-locked before
 * they change, merged back; a hole stops the walk with -ENOMEM, the VMAs
 * before it changed.  vma_modify_flags_all: every VMA, holes allowed
 * (mlockall, munlockall).
 */
int vma_modify_flags(struct mm_struct *mm, unsigned long start, unsigned long end,
		     unsigned long set, unsigned long clear);
int vma_modify_flags_all(struct mm_struct *mm, unsigned long set, unsigned long clear);

/* mm/memory.c: fault in [start, start+len) under mmap_lock (read), as GUP
 * does; mm_populate_locked with mmap_lock already held by the caller */
int mm_populate_locked(struct mm_struct *mm, unsigned long start, unsigned long len,
		       bool ignore_errors);
int __mm_populate(struct mm_struct *mm, unsigned long start, unsigned long len, bool ignore_errors);

/* mm/filemap.c: the file side (VFS page cache) */
void mm_file_get(struct file *file);
void mm_file_put(struct file *file);
/*
 * The kernel's fput under mmap_lock (remove_vma, mmap's error path,
 * shmem_zero_setup): a last reference is torn down at task_work_run(),
 * which vm_munmap, vm_mmap and exit_mmap call after dropping mmap_lock;
 * so a shmem inode is evicted (inode_sb_list_del) outside mmap_lock.
 */
void mm_file_put_deferred(struct file *file);
/* Whether file can be mapped with these VM_ flags; 0 or -errno. */
int mm_file_mmap_check(struct file *file, unsigned long vm_flags);
/* The file's address_space, for vm_mapping. */
struct address_space *mm_file_mapping(struct file *file);
/* Fault in a file page (do_read_fault / do_cow_fault / do_shared_fault). */
struct vm_fault;
vm_fault_t do_file_fault(struct vm_fault *vmf);
/* rmap walk of a file folio through i_mmap. */
int rmap_walk_file(struct folio *folio, rmap_one_fn fn, void *arg);
int mm_filemap_init(void);
void mm_filemap_exit(void);

/* mm/memory.c */
struct vm_fault {
	struct vm_area_struct *vma;
	unsigned long address; /* page aligned */
	unsigned int flags;    /* FAULT_FLAG_* */
	unsigned long pgoff;   /* linear_page_index(vma, address) */
	struct pt_page *pt;    /* NULL until allocated if no page table existed */
	pte_t *pte;
	pte_t orig_pte;		/* the PTE as read locklessly (FAULT_FLAG_ORIG_PTE_VALID) */
	struct folio *io_folio; /* the folio this fault read from the store, if any */
	pte_t found_pte;	/* what finish_fault_install found instead of none */
};
/* Allocate the page table of vmf->address if the fault found none. */
static inline int vmf_pte_alloc(struct vm_fault *vmf)
{
	if (vmf->pt)
		return 0;
	vmf->pt = pte_alloc(vmf->vma->vm_mm, vmf->address);
	if (!vmf->pt)
		return -ENOMEM;
	vmf->pte = &vmf->pt->ptes[pte_index(vmf->address)];
	return 0;
}
/* Install folio at vmf->address if the PTE is still none (ptl taken inside).
 * Consumes the caller's folio reference either way; VM_FAULT_NOPAGE if raced. */
vm_fault_t finish_fault_install(struct vm_fault *vmf, struct folio *folio, pte_t flags,
				int counter);
void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma, unsigned long addr);
/* The VMA's anon_vma before an anonymous folio goes in: 0, VM_FAULT_OOM or VM_FAULT_RETRY. */
vm_fault_t vmf_anon_prepare(struct vm_fault *vmf);

/* mm/vmscan.c */
void mm_vmscan_init(void);
void mm_vmscan_exit(void);

/* mm/fork.c */
void mm_fork_hooks_install(void);
void mm_fork_hooks_remove(void);

#endif /* RCUVFS_MM_INTERNAL_H */
