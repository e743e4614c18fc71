// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/mremap.c - mremap (after mm/mremap.c, Linux 6.18).
 *
 * do_mremap(mm, addr, old_len, new_len, flags, new_addr):
 *   Both lengths are page-aligned first (6.18), then check_mremap_params:
 *   unknown flags, an unaligned addr, new_len 0 or above TASK_SIZE:
 *   -EINVAL; with MREMAP_FIXED or MREMAP_DONTUNMAP also a new_addr that
 *   is unaligned or leaves no room for new_len, FIXED or DONTUNMAP
 *   without MAYMOVE, DONTUNMAP with a resize, source and target
 *   overlapping: -EINVAL.  Then, under mmap_lock (write):
 *   - FIXED with old_len == new_len (remap_move, 6.17+): every VMA of the
 *     source range moves, split at its ends, the gaps between them kept;
 *     no VMA at addr: -EFAULT; a VMA that may not take part
 *     (vma_multi_allowed: its file has a get_unmapped_area of its own and
 *     is no shmem, a private /dev/zero mapping here) when it is not the
 *     first, or is the first and the range runs past its end (into a
 *     hole too): -EFAULT, after the VMAs before it moved.
 *   - else the VMA containing addr (none: -EFAULT), check_prep_vma: when
 *     the call maps something new (grows, or moves), an old_len of 0 on a
 *     private mapping is -EINVAL, a source that runs past the VMA's end
 *     -EFAULT (a shrink's source only as far as new_len: the part
 *     unmapped may cross VMAs and holes), a growth whose page offset
 *     wraps -EINVAL;
 *     mremap_at: same size: addr; shrink: munmap of the tail, addr; grow:
 *     in place if [addr, addr+old_len) ends the VMA and the growth fits
 *     in the hole after it, else -ENOMEM without MAYMOVE, else move_vma to
 *     a new address; mremap_to (FIXED or DONTUNMAP): munmap of the target
 *     (FIXED), shrink first, move_vma.
 *   A VM_LOCKED VMA that grew is populated after mmap_lock is dropped.
 *
 * move_vma (6.18): the source VMA is write-locked first ("We don't want
 * racing faults": mm/mremap: write-lock VMA while remapping it to a new
 * address range, 6.4), so no fault under its per-VMA lock can install a
 * PTE in the old range once its page tables have moved (the write would
 * be lost with the old range); copy_vma makes the target VMA (born
 * write-locked; an anonymous VMA never faulted takes the pgoff of its new
 * address, so that it can merge there), move_page_tables moves the PTEs
 * under both PTE locks and the rmap locks (take_rmap_locks: i_mmap_rwsem,
 * then the anon_vma's), flushing the old range before the locks go when
 * a present PTE moved (move_ptes since "mremap: properly flush TLB before
 * releasing the page", the CVE-2018-18281 fix); then the source range is
 * unmapped (unmap_source_vma) or, with MREMAP_DONTUNMAP, kept empty: its
 * VMA loses VM_LOCKED / VM_LOCKONFAULT and, if it moved whole, its
 * anon_vma links (dontunmap_complete).  A page table that cannot be
 * allocated moves what moved back and unmaps the target: -ENOMEM.  The
 * model merges the target VMA with its neighbours after the move (the
 * kernel's copy_vma does before): the same layout; with DONTUNMAP it
 * merges before clearing the source's lock flags, since a source merged
 * with the target loses them whole (copy_vma, dontunmap_complete).
 *
 * Not modelled: mseal (-EPERM), hugetlb alignment, VM_DONTEXPAND/PFNMAP,
 * the map-count and memory limits, userfaultfd events.
 */
#include "mm/internal.h"

#include <sys/mman.h>

#ifdef RCUVFS_EXPLORE
extern bool mremap_nolock_test; /* mm/mmap.c: the explorer's test-only variant */
#endif

RV_STAT_DEFINE(mremap_moves, "VMAs moved by mremap (move_vma)");
RV_STAT_DEFINE(mremap_ptes_moved, "PTEs moved by mremap (move_ptes)");

struct vma_remap {
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	unsigned long addr, old_len, new_len, flags, new_addr;
	bool mlocked; /* VM_LOCKED and grew: populate the growth */
};

static bool vrm_implies_new_addr(const struct vma_remap *vrm)
{
	return vrm->flags & (MREMAP_FIXED | MREMAP_DONTUNMAP);
}

static long check_mremap_params(const struct vma_remap *vrm)
{
	if (vrm->flags & ~(MREMAP_FIXED | MREMAP_MAYMOVE | MREMAP_DONTUNMAP))
		return -EINVAL;
	if (vrm->addr & ~PAGE_MASK)
		return -EINVAL;
	if (!vrm->new_len || vrm->new_len > TASK_SIZE)
		return -EINVAL;
	if (!vrm_implies_new_addr(vrm))
		return 0;
	if (vrm->new_addr > TASK_SIZE - vrm->new_len)
		return -EINVAL;
	if (vrm->new_addr & ~PAGE_MASK)
		return -EINVAL;
	if (!(vrm->flags & MREMAP_MAYMOVE))
		return -EINVAL;
	if ((vrm->flags & MREMAP_DONTUNMAP) && vrm->old_len != vrm->new_len)
		return -EINVAL;
	/* vrm_overlaps */
	if (vrm->addr + vrm->old_len > vrm->new_addr && vrm->new_addr + vrm->new_len > vrm->addr)
		return -EINVAL;
	return 0;
}

/* check_prep_vma: vrm->vma holds addr (or is NULL) */
static long check_prep_vma(struct vma_remap *vrm)
{
	struct vm_area_struct *vma = vrm->vma;
	unsigned long pgoff, old_len;

	if (!vma)
		return -EFAULT;
	if (!vrm_implies_new_addr(vrm))
		vrm->new_addr = vrm->addr;
	/* below only when the call maps something new: it grows or moves */
	if (vrm->new_len <= vrm->old_len && !vrm_implies_new_addr(vrm))
		return 0;
	if (!vrm->old_len && !(vma->vm_flags & (VM_SHARED | VM_MAYSHARE)))
		return -EINVAL;
	/* a shrink (with MREMAP_FIXED or DONTUNMAP: it moves) may unmap past
	 * the VMA's end: only the part that moves, new_len, must lie in it */
	old_len = vrm->new_len < vrm->old_len ? vrm->new_len : vrm->old_len;
	if (old_len > vma->vm_end - vrm->addr)
		return -EFAULT;
	if (vrm->new_len == old_len)
		return 0;
	if (vma->vm_flags & VM_LOCKED)
		vrm->mlocked = vrm->new_len > vrm->old_len;
	pgoff = vma->vm_pgoff + ((vrm->addr - vma->vm_start) >> PAGE_SHIFT);
	if (pgoff + (vrm->new_len >> PAGE_SHIFT) < pgoff)
		return -EINVAL;
	return 0;
}

/*
 * move_ptes: move the PTEs of [old, old+len) to [new, new+len), page
 * table by page table, under both PTE locks (the old one first, as the
 * kernel's nesting).  Returns the length moved (short: a page table could
 * not be allocated).
 */
static unsigned long move_page_tables(struct vm_area_struct *vma, unsigned long old_addr,
				      unsigned long new_addr, unsigned long len)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long done = 0;

	while (done < len) {
		unsigned long o = old_addr + done, n = new_addr + done;
		unsigned long step = pgd_addr_end(o, old_addr + len) - o;
		struct pt_page *opt = pt_lookup(mm, o), *npt;
		bool flush = false;

		/* the target's table boundary too */
		if (pgd_addr_end(n, new_addr + len) - n < step)
			step = pgd_addr_end(n, new_addr + len) - n;
		if (!opt) {
			done += step;
			continue;
		}
		npt = pte_alloc(mm, n);
		if (!npt)
			break;
		spin_lock(&opt->ptl);
		if (npt != opt)
			spin_lock(&npt->ptl);
		for (unsigned long off = 0; off < step; off += PAGE_SIZE) {
			pte_t *optep = &opt->ptes[pte_index(o + off)];
			pte_t pte;

			if (pte_none(ptep_get(optep)))
				continue;
			pte = ptep_get_and_clear(optep);
			opt->nr_present--;
			if (pte & _PAGE_PRESENT)
				flush = true;
			set_pte(&npt->ptes[pte_index(n + off)], pte);
			npt->nr_present++;
			rv_stat_inc(mremap_ptes_moved);
		}
		/* a writer may still hold a translation of the old PTEs: flush
		 * before the PTE lock goes (move_ptes' force_flush) */
		if (flush)
			flush_tlb_range(vma, o, o + step);
		if (npt != opt)
			spin_unlock(&npt->ptl);
		spin_unlock(&opt->ptl);
		done += step;
	}
	return done;
}

/* take_rmap_locks / drop_rmap_locks */
static void take_rmap_locks(struct vm_area_struct *vma)
{
	if (vma->vm_mapping)
		down_write(&vma->vm_mapping->i_mmap_rwsem);
	if (vma->anon_vma)
		anon_vma_lock_write(vma->anon_vma);
}

static void drop_rmap_locks(struct vm_area_struct *vma)
{
	if (vma->anon_vma)
		anon_vma_unlock_write(vma->anon_vma);
	if (vma->vm_mapping)
		up_write(&vma->vm_mapping->i_mmap_rwsem);
}

/* copy_vma: a VMA for [new_addr, +new_len) that maps what vma maps at addr */
static struct vm_area_struct *copy_vma(struct vma_remap *vrm)
{
	struct vm_area_struct *vma = vrm->vma, *new;
	unsigned long pgoff = vma->vm_pgoff + ((vrm->addr - vma->vm_start) >> PAGE_SHIFT);

	if (vma_is_anonymous(vma) && !vma->anon_vma)
		pgoff = vrm->new_addr >> PAGE_SHIFT;
	new = vm_area_dup(vma); /* born write-locked; takes a file reference */
	if (!new)
		return NULL;
	new->vm_start = vrm->new_addr;
	new->vm_end = vrm->new_addr + vrm->new_len;
	new->vm_pgoff = pgoff;
	INIT_LIST_HEAD(&new->anon_vma_chain);
	new->anon_vma = NULL;
	if (anon_vma_clone(new, vma))
		goto out_free;
	new->anon_vma = vma->anon_vma;
	if (vma_insert(vrm->mm, new)) {
		unlink_anon_vmas(new);
		goto out_free;
	}
	return new;
out_free:
	if (new->vm_file)
		mm_file_put(new->vm_file);
	vm_area_free_unpublished(new);
	return NULL;
}

static long move_vma(struct vma_remap *vrm)
{
	struct mm_struct *mm = vrm->mm;
	struct vm_area_struct *vma = vrm->vma, *new;
	unsigned long moved, start = vma->vm_start, end = vma->vm_end;

	/* "We don't want racing faults." */
	RV_INJECT("mremap_before_write_lock");
#ifdef RCUVFS_EXPLORE
	if (!mremap_nolock_test)
		vma_start_write(vma);
#else
	vma_start_write(vma);
#endif
	new = copy_vma(vrm);
	if (!new)
		return -ENOMEM;
	take_rmap_locks(vma);
	RV_INJECT("mremap_move_ptes");
	moved = move_page_tables(vma, vrm->addr, vrm->new_addr, vrm->old_len);
	if (moved < vrm->old_len) {
		/* move back what moved (the tables exist), unmap the target */
		move_page_tables(new, vrm->new_addr, vrm->addr, moved);
		drop_rmap_locks(vma);
		do_munmap(mm, vrm->new_addr, vrm->new_len);
		return -ENOMEM;
	}
	drop_rmap_locks(vma);
	rv_stat_inc(mremap_moves);
	if (vrm->flags & MREMAP_DONTUNMAP) {
		struct vm_area_struct *m;

		/*
		 * copy_vma (mm/vma.c, Linux 6.18) merges the target range with
		 * its neighbours before the page tables move; a source never
		 * faulted (no anon_vma: the target took the pgoff of its own
		 * address) that is the target's neighbour is merged with it,
		 * and copy_vma hands the merged VMA back as the source.  So
		 * merge first: dontunmap_complete then clears the lock flags
		 * of the whole merged VMA (and unlinks nothing: it is the new
		 * VMA too), else of the source VMA alone.
		 */
		vma_merge_around(mm, new);
		m = vma_lookup(mm, vrm->addr); /* the range stays mapped */
		WRITE_ONCE(m->vm_flags, m->vm_flags & ~VM_LOCKED_MASK);
		if (!(m->vm_start <= vrm->new_addr && vrm->new_addr < m->vm_end) &&
		    vrm->addr == start && vrm->addr + vrm->old_len == end)
			unlink_anon_vmas(m);
		return (long)vrm->new_addr;
	}
	do_munmap(mm, vrm->addr, vrm->old_len);
	vma_merge_around(mm, new);
	return (long)vrm->new_addr;
}

/* vrm_set_new_addr: the target, MAP_FIXED or searched from a hint */
static long vrm_set_new_addr(struct vma_remap *vrm)
{
	unsigned long hint = vrm_implies_new_addr(vrm) ? vrm->new_addr : 0, a;

	if (vrm->flags & MREMAP_FIXED)
		return 0;
	a = mm_get_unmapped_area(vrm->mm, hint, vrm->new_len);
	if (!a)
		return -ENOMEM;
	vrm->new_addr = a;
	return 0;
}

static long mremap_to(struct vma_remap *vrm)
{
	long err;

	if (vrm->flags & MREMAP_FIXED) {
		err = do_munmap(vrm->mm, vrm->new_addr, vrm->new_len);
		if (err)
			return err;
	}
	if (vrm->new_len < vrm->old_len) {
		err = do_munmap(vrm->mm, vrm->addr + vrm->new_len, vrm->old_len - vrm->new_len);
		if (err)
			return err;
		vrm->old_len = vrm->new_len;
	}
	/* the VMA, maybe split by the munmaps: find it again */
	vrm->vma = vma_lookup(vrm->mm, vrm->addr);
	if (!vrm->vma)
		return -EFAULT;
	err = vrm_set_new_addr(vrm);
	if (err)
		return err;
	return move_vma(vrm);
}

static long mremap_at(struct vma_remap *vrm)
{
	struct vm_area_struct *vma = vrm->vma, *next;
	unsigned long delta;
	long err;

	if (vrm->new_len == vrm->old_len)
		return (long)vrm->addr;
	if (vrm->new_len < vrm->old_len) {
		err = do_munmap(vrm->mm, vrm->addr + vrm->new_len, vrm->old_len - vrm->new_len);
		return err ? err : (long)vrm->addr;
	}
	/* expand_vma: in place when the range ends the VMA and the hole fits */
	delta = vrm->new_len - vrm->old_len;
	if (vma->vm_end - vrm->addr == vrm->old_len && vma->vm_end + delta > vma->vm_end &&
	    vma->vm_end + delta <= TASK_SIZE) {
		next = find_vma(vrm->mm, vma->vm_end);
		if (!next || next->vm_start >= vma->vm_end + delta) {
			vma_expand_in_place(vrm->mm, vma, delta);
			return (long)vrm->addr;
		}
	}
	if (!(vrm->flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	err = vrm_set_new_addr(vrm);
	if (err)
		return err;
	return move_vma(vrm);
}

/*
 * vma_multi_allowed (mm/mremap.c, Linux 6.18): a VMA may take part in a
 * move of several VMAs unless its file has a get_unmapped_area of its own
 * that could ignore MREMAP_FIXED; shmem (and hugetlb, and
 * thp_get_unmapped_area) are known to obey it.  Anonymous memory and
 * shmem files (shared anonymous, shared /dev/zero, tmpfs) may; of the
 * model's files only /dev/zero has a get_unmapped_area of its own
 * (get_unmapped_area_zero, drivers/char/mem.c), so a private /dev/zero
 * mapping, which keeps its vm_file, may not.  The model's own
 * filesystem's files have none (as a tmpfs file, the host's scratch files
 * in rcuvfs-mmdiff, is shmem and may).
 */
static bool vma_multi_allowed(struct vm_area_struct *vma)
{
	/* a shmem VMA's vm_file is its shmem file (shared /dev/zero too):
	 * only a private /dev/zero mapping still has zero_fops */
	return !vma->vm_file || vma->vm_file->f_op != &zero_fops;
}

/* remap_move (6.17+): FIXED, same length: every VMA of the range moves */
static long remap_move(struct vma_remap *vrm)
{
	unsigned long start = vrm->addr, end = vrm->addr + vrm->old_len;
	unsigned long target = vrm->new_addr, last_end = 0, pos = start;
	long res = -EFAULT;
	bool seen = false;

	for (;;) {
		struct vm_area_struct *vma = find_vma(vrm->mm, pos);
		unsigned long a, len, offset;
		long r;

		if (!vma || vma->vm_start >= end)
			break;
		a = vma->vm_start > start ? vma->vm_start : start;
		len = (vma->vm_end < end ? vma->vm_end : end) - a;
		if (!seen && start < vma->vm_start)
			return -EFAULT; /* no gap at the start */
		offset = seen ? vma->vm_start - last_end : 0;
		last_end = vma->vm_end;
		pos = vma->vm_end;
		if (!vma_multi_allowed(vma) && (seen || vma->vm_end < end))
			return -EFAULT;
		vrm->vma = vma;
		vrm->addr = a;
		vrm->new_addr = target + offset;
		vrm->old_len = vrm->new_len = len;
		r = check_prep_vma(vrm);
		if (!r)
			r = mremap_to(vrm);
		if (r < 0)
			return r;
		if (!seen)
			res = r;
		seen = true;
		target = (unsigned long)r + len;
	}
	return res;
}

long do_mremap(struct mm_struct *mm, unsigned long addr, unsigned long old_len,
	       unsigned long new_len, unsigned long flags, unsigned long new_addr)
{
	struct vma_remap vrm = {
	    .mm = mm,
	    .addr = addr,
	    .old_len = old_len,
	    .new_len = new_len,
	    .flags = flags,
	    .new_addr = new_addr,
	};
	long res;

	/* 6.18 page-aligns both lengths before check_mremap_params: a
	 * DONTUNMAP move of old_len 4096 to new_len 4095 is no resize */
	vrm.old_len = (vrm.old_len + PAGE_SIZE - 1) & PAGE_MASK;
	vrm.new_len = (vrm.new_len + PAGE_SIZE - 1) & PAGE_MASK;
	res = check_mremap_params(&vrm);
	if (res)
		return res;
	mmap_write_lock(mm);
	if ((flags & MREMAP_FIXED) && vrm.old_len == vrm.new_len) {
		res = remap_move(&vrm);
	} else {
		vrm.vma = vma_lookup(mm, addr);
		res = check_prep_vma(&vrm);
		if (!res)
			res = vrm_implies_new_addr(&vrm) ? mremap_to(&vrm) : mremap_at(&vrm);
	}
	mmap_write_unlock(mm);
	task_work_run(); /* the last fput of a file VMA the target replaced */
	/* a VM_LOCKED VMA that grew: populate the growth */
	if (res >= 0 && vrm.mlocked && vrm.new_len > vrm.old_len)
		__mm_populate(mm, (unsigned long)res + vrm.old_len, vrm.new_len - vrm.old_len,
			      true);
	return res;
}
