// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/madvise.c - madvise (after mm/madvise.c, Linux 6.18).
 *
 * Advice modelled:
 *   MADV_DONTNEED   zap the range's PTEs (zap_page_range_details: its own
 *                   mmu_gather, so the TLB is flushed before the folios
 *                   go); the next access faults in zeroes (anonymous) or
 *                   the file's page.  -EINVAL on a VM_LOCKED VMA
 *                   (madvise_dontneed_free_valid_vma).
 *   MADV_FREE       anonymous VMAs only (-EINVAL otherwise): the present
 *                   PTEs of folios mapped once become clean and old
 *                   (madvise_free_pte_range), with a TLB flush of the range
 *                   before the call returns, so that a later write through
 *                   the PTE sets DIRTY again.  The model never reclaims
 *                   anonymous memory, so the pages stay and read back what
 *                   was written (as on a host without memory pressure).
 *   MADV_DONTFORK / MADV_DOFORK          set / clear VM_DONTCOPY;
 *   MADV_WIPEONFORK / MADV_KEEPONFORK    set / clear VM_WIPEONFORK
 *                   (-EINVAL for a VMA with a file, /dev/zero's private
 *                   ones included, or VM_SHARED); dup_mmap honours both
 *                   (mm/fork.c).  Splitting and merging as mprotect.
 *   MADV_NORMAL     accepted, changes nothing (the model has no
 *                   VM_RAND_READ / VM_SEQ_READ).
 * Any other advice is -EINVAL (the kernel's madvise_behavior_valid accepts
 * more; the model does not implement them).
 *
 * Argument rules (madvise_should_skip): bad advice, an unaligned start, a
 * length that page rounding wraps to 0, an end that wraps: -EINVAL; a
 * length of 0: 0.  The walk (madvise_walk_vmas) applies the advice to
 * every mapped part of the range, VMA by VMA, and returns -ENOMEM at the
 * end if it met a hole (or found no VMA at all); an error on a VMA stops
 * it, the VMAs before keeping what was done.
 *
 * Locking (get_lock_mode, 6.18): DONTNEED and FREE first try the per-VMA
 * read lock of the VMA at start (lock_vma_under_rcu), used only when the
 * range lies inside that one VMA, else fall back to mmap_lock for read;
 * faults run beside them (every PTE change is under its ptl, and page
 * tables are freed only under mmap_lock for write).  The VM_ flag advice
 * takes mmap_lock for write and write-locks every VMA it changes
 * (vma_modify_flags).
 */
#include "mm/internal.h"

#include <sys/mman.h>

RV_STAT_DEFINE(madvise_vma_locked, "madvise(DONTNEED/FREE) done under the per-VMA lock alone");
RV_STAT_DEFINE(madvise_lazyfree, "PTEs made clean and old by MADV_FREE");

enum madvise_lock_mode { MADVISE_MMAP_READ_LOCK, MADVISE_MMAP_WRITE_LOCK, MADVISE_VMA_READ_LOCK };

static bool madvise_behavior_valid(int behavior)
{
	switch (behavior) {
	case MADV_NORMAL:
	case MADV_DONTNEED:
	case MADV_FREE:
	case MADV_DONTFORK:
	case MADV_DOFORK:
	case MADV_WIPEONFORK:
	case MADV_KEEPONFORK:
		return true;
	default:
		return false;
	}
}

static enum madvise_lock_mode get_lock_mode(int behavior)
{
	switch (behavior) {
	case MADV_DONTNEED:
	case MADV_FREE:
		return MADVISE_VMA_READ_LOCK;
	default:
		return MADVISE_MMAP_WRITE_LOCK;
	}
}

/*
 * madvise_free_pte_range: make the PTEs of exclusive anonymous folios
 * clean and old.  A cmpxchg, as the model CPU sets DIRTY/ACCESSED with
 * one; then the flush (tlb_finish_mmu's), so that no writer keeps a
 * translation that would not set DIRTY again.
 */
static void madvise_free_pte(pte_t *ptep, unsigned long addr, struct pt_page *pt, void *priv)
{
	long *changed = priv;
	pte_t old = ptep_get(ptep), new;
	struct folio *folio;

	(void)addr;
	(void)pt;
	if (!(old & _PAGE_PRESENT) || pte_special(old))
		return;
	folio = mm_folio_from_pte(old);
	/* folio_maybe_mapped_shared: a COW-shared folio stays */
	if (!mm_folio_is_anon(folio) || mm_folio_mapcount(folio) != 1)
		return;
	do {
		new = old & ~(_PAGE_DIRTY | _PAGE_ACCESSED);
	} while (new != old && !__atomic_compare_exchange_n(ptep, &old, new, false,
							    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	if (new != old) {
		(*changed)++;
		rv_stat_inc(madvise_lazyfree);
	}
}

static int madvise_free_single_vma(struct vm_area_struct *vma, unsigned long start,
				   unsigned long end)
{
	long changed = 0;

	if (!vma_is_anonymous(vma))
		return -EINVAL;
	walk_pte_range_locked(vma->vm_mm, start, end, madvise_free_pte, NULL, &changed);
	if (changed)
		flush_tlb_range(vma, start, end);
	return 0;
}

static int madvise_dontneed_free(struct vm_area_struct *vma, unsigned long start, unsigned long end,
				 int behavior)
{
	/* madvise_dontneed_free_valid_vma: VM_LOCKED pages stay */
	if (vma->vm_flags & VM_LOCKED)
		return -EINVAL;
	if (behavior == MADV_FREE)
		return madvise_free_single_vma(vma, start, end);
	zap_page_range_details(vma, start, end, false);
	return 0;
}

/* madvise_vma_behavior for the VM_ flag advice: split, set, merge */
static int madvise_update_flags(struct vm_area_struct *vma, unsigned long start, unsigned long end,
				int behavior)
{
	unsigned long old = vma->vm_flags, nf = old;

	switch (behavior) {
	case MADV_DONTFORK:
		nf |= VM_DONTCOPY;
		break;
	case MADV_DOFORK:
		nf &= ~VM_DONTCOPY;
		break;
	case MADV_WIPEONFORK:
		/* anonymous private memory only */
		if (vma->vm_file || (vma->vm_flags & VM_SHARED))
			return -EINVAL;
		nf |= VM_WIPEONFORK;
		break;
	case MADV_KEEPONFORK:
		nf &= ~VM_WIPEONFORK;
		break;
	default: /* MADV_NORMAL */
		break;
	}
	if (nf == old)
		return 0;
	return vma_modify_flags(vma->vm_mm, start, end, nf & ~old, old & ~nf);
}

static int madvise_vma_behavior(struct vm_area_struct *vma, unsigned long start, unsigned long end,
				int behavior)
{
	if (behavior == MADV_DONTNEED || behavior == MADV_FREE)
		return madvise_dontneed_free(vma, start, end, behavior);
	return madvise_update_flags(vma, start, end, behavior);
}

/*
 * madvise_walk_vmas: every mapped part of [start, end), VMA by VMA (looked
 * up again by address after each, since a flag change may split or merge).
 */
static int madvise_walk_vmas(struct mm_struct *mm, unsigned long start, unsigned long end,
			     int behavior)
{
	struct vm_area_struct *vma = find_vma(mm, start);
	int unmapped_error = 0, err;

	for (;;) {
		unsigned long tmp;

		if (!vma)
			return -ENOMEM;
		if (start < vma->vm_start) {
			unmapped_error = -ENOMEM;
			start = vma->vm_start;
			if (start >= end)
				break;
		}
		tmp = vma->vm_end < end ? vma->vm_end : end;
		err = madvise_vma_behavior(vma, start, tmp, behavior);
		if (err)
			return err;
		start = tmp;
		if (start >= end)
			break;
		vma = find_vma(mm, start);
	}
	return unmapped_error;
}

int do_madvise(struct mm_struct *mm, unsigned long start, size_t len_in, int behavior)
{
	unsigned long end;
	size_t len;
	int err;

	/* madvise_should_skip */
	if (!madvise_behavior_valid(behavior))
		return -EINVAL;
	if (start & ~PAGE_MASK)
		return -EINVAL;
	len = (len_in + PAGE_SIZE - 1) & PAGE_MASK;
	if (len_in && !len)
		return -EINVAL;
	end = start + len;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;

	if (get_lock_mode(behavior) == MADVISE_VMA_READ_LOCK) {
		/* try_vma_read_lock: one VMA covering the whole range */
		struct vm_area_struct *vma = lock_vma_under_rcu(mm, start);

		if (vma) {
			if (end <= vma->vm_end) {
				RV_INJECT("madvise_vma_locked");
				err = madvise_vma_behavior(vma, start, end, behavior);
				vma_end_read(vma);
				rv_stat_inc(madvise_vma_locked);
				return err;
			}
			vma_end_read(vma);
		}
		mmap_read_lock(mm);
		err = madvise_walk_vmas(mm, start, end, behavior);
		mmap_read_unlock(mm);
		return err;
	}
	mmap_write_lock(mm);
	err = madvise_walk_vmas(mm, start, end, behavior);
	mmap_write_unlock(mm);
	return err;
}
