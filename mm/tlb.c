// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/tlb.c - the model TLB: translations in use, TLB flushes that wait for
 * them, and the mmu_gather batch that frees what zap unmapped.
 *
 * A CPU keeps using a translation it loaded into its TLB after the PTE
 * changed, until a TLB flush reaches it: a flush of another CPU's TLB is a
 * shootdown IPI that the flushing CPU waits for (flush_tlb_mm_range ->
 * native_flush_tlb_multi).  The model CPU (mm_access) holds a translation
 * only from its page-table walk to the end of its copy: that span is a
 * "translation in use" section (tlb_enter .. tlb_exit, mm/internal.h), and
 * a flush of the mm waits for every section that may have loaded a PTE
 * from before the change.  A flush is mm-wide, as an IPI goes to every CPU
 * in mm_cpumask whatever the range; flush_tlb_range keeps the kernel's
 * name and arguments.
 *
 * Sections are counted per mm in two counters, tlb_users[epoch & 1], as
 * SRCU counts readers: a section increments the counter of the epoch it
 * read; a flush flips the epoch and waits for the old counter to drain,
 * twice, so sections that keep starting cannot starve it.
 *
 * Ordering (a store-buffering pair): the flusher changed the PTE, then
 * runs smp_mb() and reads the counters; a section increments its counter
 * with a seq_cst read-modify-write (a full barrier), then reads the PTE.
 * Either the flusher sees the section's increment and waits for it, or the
 * section sees the new PTE.  The wait's acquire load of a zero counter
 * pairs with the release decrement in tlb_exit: the section's copy into
 * the folio happens before the flush returns.
 *
 * Rule that follows (the kernel's mmu_gather rule): a folio whose PTE was
 * cleared is released only after a flush of that mm, so a section that
 * validated the PTE can copy without holding a folio reference.
 *
 * Locking: mm->tlb_flush_lock (spinlock) serializes epoch flips; it is
 * taken with PTE locks held (ptep_clear_flush) and takes nothing else.  A
 * section takes no lock, so a flush always finishes once the sections it
 * waits for end.  A task must not flush an mm while inside a section of
 * that mm (it would wait for itself); mm_access faults outside its section.
 */
#include "mm/internal.h"
#include "mm/testing.h"

#include <sched.h>

RV_STAT_DEFINE(tlb_flushes, "TLB flushes (flush_tlb_mm/range, ptep_clear_flush, mmu_gather)");
RV_STAT_DEFINE(tlb_flush_waits, "TLB flushes that waited for a translation in use");

/* Wait until no section counts in tlb_users[idx]. */
static void tlb_wait_drain(struct mm_struct *mm, int idx, bool *waited)
{
	for (unsigned long spins = 0; __atomic_load_n(&mm->tlb_users[idx], __ATOMIC_ACQUIRE);
	     spins++) {
		if (!*waited) {
			*waited = true;
			rv_stat_inc(tlb_flush_waits);
		}
		if (spins > 64)
			sched_yield();
		else
			cpu_relax();
	}
}

#ifdef RCUVFS_EXPLORE
struct task_struct *tlb_enter_point_test; /* mm/internal.h */

void tlb_enter_point_for_test(struct task_struct *t)
{
	tlb_enter_point_test = t;
}
#endif

void flush_tlb_mm(struct mm_struct *mm)
{
	bool waited = false;

	rv_stat_inc(tlb_flushes);
	/* the PTE changes before the counter reads: pairs with tlb_enter */
	smp_mb();
	if (!__atomic_load_n(&mm->tlb_users[0], __ATOMIC_ACQUIRE) &&
	    !__atomic_load_n(&mm->tlb_users[1], __ATOMIC_ACQUIRE))
		return; /* no translation in use: every later walk sees the change */
	spin_lock(&mm->tlb_flush_lock);
	for (int pass = 0; pass < (RV_MUTANT(flush_tlb_one_pass) ? 1 : 2); pass++) {
		int idx = __atomic_load_n(&mm->tlb_epoch, __ATOMIC_RELAXED) & 1;

		__atomic_store_n(&mm->tlb_epoch, idx ^ 1, __ATOMIC_RELAXED);
		smp_mb(); /* the flip before the wait: new sections count elsewhere */
		tlb_wait_drain(mm, idx, &waited);
	}
	spin_unlock(&mm->tlb_flush_lock);
}

void flush_tlb_range(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	(void)start;
	(void)end;
	flush_tlb_mm(vma->vm_mm);
}

pte_t ptep_clear_flush(struct vm_area_struct *vma, unsigned long addr, pte_t *ptep)
{
	pte_t pte = ptep_get_and_clear(ptep);

	if (pte_present(pte))
		flush_tlb_range(vma, addr, addr + PAGE_SIZE);
	return pte;
}

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm)
{
	tlb->mm = mm;
	tlb->need_flush = false;
	tlb->delayed_rmap = false;
	tlb->nr = 0;
}

void tlb_flush_mmu_tlbonly(struct mmu_gather *tlb)
{
	if (tlb->need_flush)
		flush_tlb_mm(tlb->mm);
	tlb->need_flush = false;
}

/* tlb_flush_rmaps (mm/mmu_gather.c, Linux 6.2+): after the flush. */
void tlb_flush_rmaps(struct mmu_gather *tlb)
{
	if (!tlb->delayed_rmap)
		return;
	for (int i = 0; i < tlb->nr; i++) {
		if (tlb->delay_rmap[i]) {
			mm_folio_mapcount_dec(tlb->folios[i]);
			tlb->delay_rmap[i] = false;
		}
	}
	tlb->delayed_rmap = false;
}

/* Flush, then drop the delayed mapcounts and the references of the PTEs
 * cleared since the last flush. */
void tlb_flush_mmu(struct mmu_gather *tlb)
{
	if (!RV_MUTANT(mmu_gather_free_before_flush))
		tlb_flush_mmu_tlbonly(tlb);
	tlb_flush_rmaps(tlb);
	for (int i = 0; i < tlb->nr; i++)
		mm_folio_put(tlb->folios[i]);
	tlb->nr = 0;
	if (RV_MUTANT(mmu_gather_free_before_flush))
		tlb_flush_mmu_tlbonly(tlb);
}

void tlb_remove_folio(struct mmu_gather *tlb, struct folio *folio, bool delay_rmap)
{
	tlb->need_flush = true;
	if (!folio)
		return;
	if (tlb->nr == MMU_GATHER_BATCH)
		tlb_flush_mmu(tlb);
	tlb->delay_rmap[tlb->nr] = delay_rmap;
	tlb->delayed_rmap |= delay_rmap;
	tlb->folios[tlb->nr++] = folio;
}

void tlb_finish_mmu(struct mmu_gather *tlb)
{
	tlb_flush_mmu(tlb);
}
