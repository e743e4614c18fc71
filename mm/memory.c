// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/memory.c - page faults and the model's memory access.
 *
 * Fault entry (handle_page_fault, the architecture's do_user_addr_fault):
 * first lock_vma_under_rcu and handle the fault under the per-VMA read lock
 * without mmap_lock; if that finds no VMA, or the handler returns
 * VM_FAULT_RETRY (it needs something the VMA lock cannot cover, e.g. I/O),
 * take mmap_lock for read and handle it again.  Every handler is entered
 * with the PTE read locklessly (vmf->orig_pte) and takes the PTE's ptl to
 * change it, re-checking that the PTE is still what it read; when it is
 * not, it installs nothing and returns VM_FAULT_NOPAGE (the access retries).
 *
 * mm_access plays the CPU: for each page it opens a "translation in use"
 * section (tlb_enter, mm/tlb.c), walks the page table under RCU (a TLB
 * miss), sets ACCESSED/DIRTY with a cmpxchg on the very PTE it read, as
 * hardware does, copies, and closes the section.  With no usable PTE it
 * leaves the section, faults and walks again.  The translation stays
 * usable until the section ends even if the PTE changes meanwhile (a stale
 * TLB entry); whoever changes a PTE in a way that matters flushes the TLB,
 * which waits for the section, as the kernel does:
 *   wp_page_copy      ptep_clear_flush before the new PTE (this file)
 *   dup_mmap          flush_tlb_mm(oldmm) at the end (mm/fork.c)
 *   zap / munmap / exit_mmap / unmap_mapping_range   mmu_gather (mm/pgtable.c)
 *   change_protection, change_prot_numa   flush_tlb_range (mm/pgtable.c)
 *   try_to_unmap, folio_mkclean   ptep_clear_flush (mm/vmscan.c, mm/filemap.c)
 * A folio whose PTE was cleared loses the PTE's reference only after such
 * a flush, so the section needs no folio reference of its own.
 */
#include "mm/internal.h"

#include <sched.h>
#include <string.h>

RV_STAT_DEFINE(minflt, "minor faults (no I/O)");
RV_STAT_DEFINE(majflt, "major faults (backing-store read)");
RV_STAT_DEFINE(spurious_majflt, "major faults whose PTE was found present when they completed");
RV_STAT_DEFINE(vma_lock_faults, "faults completed under the per-VMA lock");
RV_STAT_DEFINE(vma_lock_retries, "faults retried under mmap_lock after VM_FAULT_RETRY");
RV_STAT_DEFINE(cow_faults, "write faults that copied a folio");
RV_STAT_DEFINE(wp_reuses, "write-protect faults that reused an exclusive anonymous folio");
RV_STAT_DEFINE(wp_shared_faults, "write-protect faults on shared file mappings (folio re-dirtied)");
RV_STAT_DEFINE(numa_hint_faults, "NUMA-hinting faults");
RV_STAT_DEFINE(fault_nopage, "faults that installed nothing (PTE changed meanwhile)");

/*
 * Install folio at vmf->address if the PTE is still none.  Consumes the
 * caller's folio reference: it becomes the PTE's, or is dropped on a race.
 */
vm_fault_t finish_fault_install(struct vm_fault *vmf, struct folio *folio, pte_t flags, int counter)
{
	struct pt_page *pt;
	bool zero = mm_folio_is_zero(folio);
	pte_t found;

	if (vmf_pte_alloc(vmf)) {
		mm_folio_put(folio);
		return VM_FAULT_OOM;
	}
	pt = vmf->pt;
	spin_lock(&pt->ptl);
	found = ptep_get(vmf->pte);
	if (!pte_none(found)) {
		vmf->found_pte = found;
		spin_unlock(&pt->ptl);
		mm_folio_put(folio);
		rv_stat_inc(fault_nopage);
		return VM_FAULT_NOPAGE;
	}
	if (!zero) {
		if (counter == MM_ANONPAGES)
			folio_add_new_anon_rmap(folio, vmf->vma, vmf->address);
		else
			mm_folio_mapcount_inc(folio);
		add_mm_counter(vmf->vma->vm_mm, counter, 1);
	}
	pt->nr_present++;
	/* release: the folio's contents and rmap fields are visible to the
	 * walker that loads this PTE (acquire in ptep_get) */
	set_pte(vmf->pte, mm_folio_to_pte(folio) | _PAGE_PRESENT | flags);
	spin_unlock(&pt->ptl);
	return 0;
}

RV_STAT_DEFINE(anon_prepare_retries,
	       "faults under the per-VMA lock redone under mmap_lock to prepare an anon_vma");

/*
 * vmf_anon_prepare (mm/memory.c, Linux 6.7; mainline adds the trylock):
 * the VMA needs an anon_vma before an anonymous folio can be mapped in it.
 * Under mmap_lock, prepare it.  Under the per-VMA lock alone that is not
 * allowed: split and merge (holding mmap_lock for write) read and copy
 * vma->anon_vma, so it may only be assigned under mmap_lock.  Take
 * mmap_lock for read if that succeeds at once, else return VM_FAULT_RETRY
 * and the fault is redone under mmap_lock (handle_page_fault).
 */
vm_fault_t vmf_anon_prepare(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	vm_fault_t ret = 0;

	if (likely(smp_load_acquire(&vma->anon_vma)))
		return 0;
	if (vmf->flags & FAULT_FLAG_VMA_LOCK) {
		if (!mmap_read_trylock(vma->vm_mm)) {
			rv_stat_inc(anon_prepare_retries);
			return VM_FAULT_RETRY;
		}
	}
	if (anon_vma_prepare(vma))
		ret = VM_FAULT_OOM;
	if (vmf->flags & FAULT_FLAG_VMA_LOCK)
		mmap_read_unlock(vma->vm_mm);
	return ret;
}

static vm_fault_t do_anonymous_page(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct folio *folio;
	vm_fault_t ret;

	if (!(vmf->flags & FAULT_FLAG_WRITE))
		return finish_fault_install(vmf, mm_zero_folio(), _PAGE_SPECIAL | _PAGE_ACCESSED,
					    -1);
	ret = vmf_anon_prepare(vmf);
	if (ret)
		return ret;
	folio = mm_alloc_anon_folio();
	if (!folio)
		return VM_FAULT_OOM;
	return finish_fault_install(
	    vmf, folio, _PAGE_ACCESSED | _PAGE_DIRTY | ((vma->vm_flags & VM_WRITE) ? _PAGE_RW : 0),
	    MM_ANONPAGES);
}

/*
 * Write to a present, write-protected PTE of a writable VMA.  Entered with
 * the ptl held and the PTE equal to vmf->orig_pte; returns with it released.
 */
static vm_fault_t do_wp_page(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct pt_page *pt = vmf->pt;
	pte_t orig = vmf->orig_pte;
	bool special = pte_special(orig);
	struct folio *old = special ? mm_zero_folio() : mm_folio_from_pte(orig), *new;
	vm_fault_t ret;

	if (vma->vm_flags & VM_SHARED) {
		/* wp_page_shared: write-notify (first write after a read fault,
		 * or after folio_mkclean cleaned the PTE for writeback): the
		 * PTE becomes writable and dirty, the page-cache folio dirty */
		set_pte(vmf->pte, orig | _PAGE_RW | _PAGE_DIRTY | _PAGE_ACCESSED);
		spin_unlock(&pt->ptl);
		mm_folio_mark_dirty(old);
		rv_stat_inc(wp_shared_faults);
		return 0;
	}
	if (!special && mm_folio_is_anon(old) && mm_folio_mapcount(old) == 1 &&
	    mm_folio_refcount(old) == 1) {
		/* exclusive: nobody else can see it, reuse in place */
		set_pte(vmf->pte, orig | _PAGE_RW | _PAGE_DIRTY | _PAGE_ACCESSED);
		spin_unlock(&pt->ptl);
		rv_stat_inc(wp_reuses);
		return 0;
	}
	/* wp_page_copy */
	mm_folio_get(old);
	spin_unlock(&pt->ptl);
	ret = vmf_anon_prepare(vmf);
	if (ret) {
		mm_folio_put(old);
		return ret;
	}
	new = mm_alloc_anon_folio();
	if (!new) {
		mm_folio_put(old);
		return VM_FAULT_OOM;
	}
	if (!special)
		memcpy(mm_folio_data(new), mm_folio_data(old), PAGE_SIZE);
	/* copied, not yet installed: a write through a stale translation of
	 * the old PTE would land in `old` now (the fork race) */
	RV_INJECT("wp_page_copy");
	spin_lock(&pt->ptl);
	if (ptep_get(vmf->pte) != orig && !RV_MUTANT(wp_page_copy_no_pte_recheck)) {
		spin_unlock(&pt->ptl);
		mm_folio_put(new);
		mm_folio_put(old);
		rv_stat_inc(fault_nopage);
		return VM_FAULT_NOPAGE;
	}
	/* wp_page_copy (mm/memory.c): clear and flush the old PTE, then set
	 * the new one; the flush waits for accesses still using the old one */
	if (RV_MUTANT(wp_page_copy_no_flush))
		ptep_get_and_clear(vmf->pte);
	else
		ptep_clear_flush(vma, vmf->address, vmf->pte);
	folio_add_new_anon_rmap(new, vma, vmf->address);
	add_mm_counter(vma->vm_mm, MM_ANONPAGES, 1);
	if (!special)
		add_mm_counter(vma->vm_mm, mm_counter_of(vma, old), -1);
	set_pte(vmf->pte,
		mm_folio_to_pte(new) | _PAGE_PRESENT | _PAGE_RW | _PAGE_DIRTY | _PAGE_ACCESSED);
	if (!special) {
		mm_folio_mapcount_dec(old);
		mm_folio_put(old); /* the PTE's reference */
	}
	spin_unlock(&pt->ptl);
	mm_folio_put(old); /* ours */
	rv_stat_inc(cow_faults);
	return 0;
}

/* A PROTNONE PTE in an accessible VMA: the NUMA scanner's hint. */
static vm_fault_t do_numa_page(struct vm_fault *vmf)
{
	struct pt_page *pt = vmf->pt;
	pte_t old;

	spin_lock(&pt->ptl);
	if (ptep_get(vmf->pte) != vmf->orig_pte && !RV_MUTANT(numa_page_no_pte_recheck)) {
		spin_unlock(&pt->ptl);
		rv_stat_inc(fault_nopage);
		return VM_FAULT_NOPAGE;
	}
	/* ptep_modify_prot_start .. commit, under the ptl like the scanner */
	old = ptep_get_and_clear(vmf->pte);
	set_pte(vmf->pte, (old & ~_PAGE_PROTNONE) | _PAGE_PRESENT | _PAGE_ACCESSED);
	spin_unlock(&pt->ptl);
	rv_stat_inc(numa_hint_faults);
	return 0;
}

vm_fault_t handle_mm_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags)
{
	struct vm_fault vmf = {
	    .vma = vma,
	    .address = address & PAGE_MASK,
	    .flags = flags,
	    .pgoff = linear_page_index(vma, address & PAGE_MASK),
	};
	pte_t entry;

	/*
	 * handle_pte_fault (mm/memory.c, Linux 6.9): with no page table yet
	 * there is no PTE to read (FAULT_FLAG_ORIG_PTE_VALID stays clear) and
	 * the table is allocated only when something is installed; else the
	 * PTE is read locklessly.  Under mmap_lock or the VMA lock the table
	 * cannot be freed (free_pgtables needs mmap_lock for write and a
	 * range no VMA covers).
	 */
	vmf.pt = pt_lookup(vma->vm_mm, address);
	if (vmf.pt) {
		vmf.pte = &vmf.pt->ptes[pte_index(address)];
		vmf.orig_pte = ptep_get(vmf.pte);
		vmf.flags |= FAULT_FLAG_ORIG_PTE_VALID;
	}
	RV_INJECT("handle_pte_fault");
	if (pte_none(vmf.orig_pte)) {
		if (vma_is_anonymous(vma))
			return do_anonymous_page(&vmf);
		return do_file_fault(&vmf);
	}
	if (pte_protnone(vmf.orig_pte) && vma_is_accessible(vma))
		return do_numa_page(&vmf);
	spin_lock(&vmf.pt->ptl);
	entry = ptep_get(vmf.pte);
	if (entry != vmf.orig_pte && !RV_MUTANT(fault_no_pte_same)) {
		spin_unlock(&vmf.pt->ptl);
		rv_stat_inc(fault_nopage);
		return VM_FAULT_NOPAGE;
	}
	if (flags & FAULT_FLAG_WRITE) {
		if (!pte_write(entry))
			return do_wp_page(&vmf);
		entry |= _PAGE_DIRTY;
	}
	/* a spurious fault (another task fixed it): just mark it young */
	set_pte(vmf.pte, entry | _PAGE_ACCESSED);
	spin_unlock(&vmf.pt->ptl);
	return 0;
}

static bool access_error(struct vm_area_struct *vma, unsigned int flags)
{
	if (flags & FAULT_FLAG_WRITE)
		return !(vma->vm_flags & VM_WRITE);
	return !(vma->vm_flags & VM_ACCESS_FLAGS);
}

static int fault_result(vm_fault_t ret)
{
	if (ret & VM_FAULT_OOM)
		return -ENOMEM;
	if (ret & VM_FAULT_SIGBUS)
		return -EIO;
	if (ret & VM_FAULT_SIGSEGV)
		return -EFAULT;
	if (ret & VM_FAULT_MAJOR)
		rv_stat_inc(majflt);
	else
		rv_stat_inc(minflt);
	return 0;
}

int handle_page_fault(struct mm_struct *mm, unsigned long address, unsigned int flags)
{
	struct vm_area_struct *vma;
	vm_fault_t ret;

	if (!mm)
		return -EFAULT;
	vma = lock_vma_under_rcu(mm, address);
	if (vma) {
		if (access_error(vma, flags)) {
			vma_end_read(vma);
			return -EFAULT;
		}
		ret = handle_mm_fault(vma, address, flags | FAULT_FLAG_VMA_LOCK);
		vma_end_read(vma);
		if (!(ret & VM_FAULT_RETRY)) {
			rv_stat_inc(vma_lock_faults);
			return fault_result(ret);
		}
		rv_stat_inc(vma_lock_retries);
	}
	for (;;) {
		mmap_read_lock(mm);
		vma = vma_lookup(mm, address);
		if (!vma || access_error(vma, flags)) {
			mmap_read_unlock(mm);
			return -EFAULT;
		}
		ret = handle_mm_fault(vma, address, flags);
		mmap_read_unlock(mm);
		if (!(ret & VM_FAULT_RETRY))
			return fault_result(ret);
		if (flags & FAULT_FLAG_TRIED)
			return fault_result(ret & ~VM_FAULT_RETRY);
		flags |= FAULT_FLAG_TRIED;
	}
}

/*
 * The model CPU's TLB miss: a lockless walk, inside the caller's
 * translation-in-use section, that returns the folio mapped at addr after
 * setting ACCESSED (and DIRTY for a write) in the very PTE it read; NULL
 * when a fault is needed.  The successful cmpxchg proves the PTE still
 * mapped the folio when the translation was "loaded"; from then on only a
 * TLB flush, which waits for the section, ends its use.
 */
static struct folio *tlb_miss_walk(struct mm_struct *mm, unsigned long addr, bool write)
{
	struct folio *folio = NULL;
	pte_t *ptep, pte, want;

	rcu_read_lock(); /* the page-table page is freed after a grace period */
	ptep = mm_pte_lookup(mm, addr);
	if (!ptep)
		goto out;
	pte = ptep_get(ptep);
	for (int tries = 0; tries < 16; tries++) {
		if (!(pte & _PAGE_PRESENT) || (write && !pte_write(pte)))
			goto out;
		want = pte | _PAGE_ACCESSED | (write ? _PAGE_DIRTY : 0);
		rv_sched_point("tlb_miss_walk: PTE read, before the cmpxchg");
		if (want == pte ||
		    __atomic_compare_exchange_n(ptep, &pte, want, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			folio = mm_folio_from_pte(pte);
			goto out;
		}
	}
out:
	rcu_read_unlock();
	return folio;
}

#define MM_ACCESS_MAX_FAULTS 100000

/*
 * A fault for a remote access: the caller holds mmap_lock for read, as
 * GUP's faultin_page does (handle_mm_fault without FAULT_FLAG_VMA_LOCK).
 */
static int fault_remote(struct mm_struct *mm, unsigned long address, unsigned int flags)
{
	struct vm_area_struct *vma = vma_lookup(mm, address);
	vm_fault_t ret;

	if (!vma || access_error(vma, flags))
		return -EFAULT;
	ret = handle_mm_fault(vma, address, flags);
	if (ret & VM_FAULT_RETRY)
		return 0; /* walk again */
	return fault_result(ret);
}

/*
 * __mm_populate (mm/gup.c, Linux 6.9): fault in every page of the VMAs in
 * [start, start+len) under mmap_lock for read, as populate_vma_page_range
 * does: a write fault for a private writable mapping (its COW happens now,
 * so locked memory takes no fault later), a read fault otherwise.  A
 * PROT_NONE VMA is an error, -EFAULT: populate_vma_page_range (Linux 6.12)
 * asks __get_user_pages without FOLL_FORCE for a VMA that is not
 * accessible, and check_vma_flags refuses it (mlock(2) reports it as
 * -ENOMEM).  With ignore_errors (MAP_POPULATE, mlockall) a failing VMA
 * is left and the next one tried; else the first error is returned.
 */
int __mm_populate(struct mm_struct *mm, unsigned long start, unsigned long len, bool ignore_errors)
{
	int ret;

	mmap_read_lock(mm);
	ret = mm_populate_locked(mm, start, len, ignore_errors);
	mmap_read_unlock(mm);
	return ret;
}

/* the same with mmap_lock (read or write) held by the caller: mprotect_fixup
 * calls populate_vma_page_range under mmap_lock for write */
int mm_populate_locked(struct mm_struct *mm, unsigned long start, unsigned long len,
		       bool ignore_errors)
{
	unsigned long end = start + len, addr = start;
	int ret = 0;

	if (end > TASK_SIZE || end < start)
		end = TASK_SIZE;
	while (addr < end) {
		struct vm_area_struct *vma = find_vma(mm, addr);
		unsigned long vend;
		unsigned int flags;

		if (!vma || vma->vm_start >= end)
			break;
		if (addr < vma->vm_start)
			addr = vma->vm_start;
		vend = vma->vm_end < end ? vma->vm_end : end;
		if (vma->vm_flags & VM_LOCKONFAULT) {
			/* populate_vma_page_range: nothing to do until a fault */
			addr = vend;
			continue;
		}
		if (!vma_is_accessible(vma)) {
			ret = -EFAULT;
			if (!ignore_errors)
				break;
			ret = 0;
			addr = vend;
			continue;
		}
		flags = (vma->vm_flags & (VM_WRITE | VM_SHARED)) == VM_WRITE ? FAULT_FLAG_WRITE : 0;
		for (; addr < vend; addr += PAGE_SIZE) {
			for (int tries = 0;; tries++) {
				pte_t pte = mm_pte_read(mm, addr);
				vm_fault_t r;

				if ((pte & _PAGE_PRESENT) &&
				    (!(flags & FAULT_FLAG_WRITE) || pte_write(pte)))
					break;
				if (tries > MM_ACCESS_MAX_FAULTS) {
					ret = -EDEADLK;
					break;
				}
				r = handle_mm_fault(vma, addr, flags);
				if (r & VM_FAULT_RETRY)
					continue;
				ret = fault_result(r);
				/* faultin_page's vm_fault_to_errno (mm/gup.c,
				 * Linux 6.18): SIGBUS and SIGSEGV are -EFAULT
				 * to the caller (mlock(2) says ENOMEM) */
				if (ret == -EIO)
					ret = -EFAULT;
				if (ret)
					break;
			}
			if (ret)
				break;
		}
		if (ret) {
			if (!ignore_errors)
				break;
			ret = 0;
			addr = vend;
		}
	}
	return ret;
}

int mm_access(struct mm_struct *mm, unsigned long addr, void *buf, size_t len, bool write)
{
	unsigned char *p = buf;
	bool remote;
	int ret = 0;

	if (!mm)
		return -EFAULT;
	if (addr >= TASK_SIZE || len > TASK_SIZE - addr)
		return -EFAULT;
	rv_rcu_ensure();
	/*
	 * Another process's memory (access_remote_vm, mm/memory.c, Linux
	 * 6.9; the caller holds an mm_users reference, from get_task_mm):
	 * the whole access runs under mmap_lock for read, and its faults
	 * are handled under it, never under a per-VMA lock.  So fork, which
	 * holds the mm's mmap_lock for write, excludes remote accessors,
	 * which is what lets fork_vma_lock=elide-single skip the VMA locks
	 * of a single-threaded parent.
	 */
	remote = !rv_current || mm != rv_current->mm; /* no lazy task for a check */
	if (remote)
		mmap_read_lock(mm);
	while (len) {
		size_t off = addr & ~PAGE_MASK, n = PAGE_SIZE - off;
		struct folio *folio;
		int tries = 0, idx;

		if (n > len)
			n = len;
		for (;;) {
			unsigned int flags = write ? FAULT_FLAG_WRITE : 0;

			idx = tlb_enter(mm);
			folio = tlb_miss_walk(mm, addr, write);
			if (folio)
				break;
			/* fault outside the section: a fault may flush this mm */
			tlb_exit(mm, idx);
			ret = remote ? fault_remote(mm, addr, flags)
				     : handle_page_fault(mm, addr, flags);
			if (ret)
				goto out;
			if (++tries > MM_ACCESS_MAX_FAULTS) {
				ret = -EDEADLK; /* bounded: never livelock silently */
				goto out;
			}
			if (tries > 64)
				sched_yield();
		}
		/* the translation is in use, the copy not yet done */
		RV_INJECT("mm_access_copy");
		if (write)
			memcpy((unsigned char *)mm_folio_data(folio) + off, p, n);
		else
			memcpy(p, (unsigned char *)mm_folio_data(folio) + off, n);
		tlb_exit(mm, idx);
		addr += n;
		p += n;
		len -= n;
	}
out:
	if (remote)
		mmap_read_unlock(mm);
	return ret;
}

int rv_mm_read(unsigned long addr, void *buf, size_t len)
{
	return mm_access(current->mm, addr, buf, len, false);
}

int rv_mm_write(unsigned long addr, const void *buf, size_t len)
{
	return mm_access(current->mm, addr, (void *)buf, len, true);
}
