// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/filemap.c - file-backed mappings on the VFS page cache: faults (read,
 * private copy-on-write, shared write), i_mmap linking, the file rmap walk,
 * unmap_mapping_range for truncate and hole punching (installed as
 * vfs_hooks.unmap_mapping_range), and folio_mkclean before writeback
 * (vfs_hooks.folio_mkclean).
 *
 * Locking:
 *   - mapping->i_mmap (the VMAs mapping a file) is under i_mmap_rwsem:
 *     write to link/unlink a VMA or change the bounds of a file VMA (split,
 *     merge), read to walk it (rmap, unmap_mapping_range).
 *   - A fault that needs a folio the page cache does not hold is a major
 *     fault: it takes mapping->invalidate_lock shared around
 *     filemap_grab_folio so no folio appears beyond a new EOF.  Under the
 *     per-VMA lock it does not do the I/O; it returns VM_FAULT_RETRY and
 *     the fault is redone under mmap_lock (6.4's behaviour for I/O).
 *   - The folio lock serializes installing a PTE against truncation: the
 *     fault checks folio->mapping and i_size under it and installs the
 *     PTE (a private COW copy too) before dropping it; truncation removes
 *     the folio under it, and its second unmap_mapping_range catches PTEs
 *     installed meanwhile.  Lock order: folio lock -> ptl.
 *   - folio_mkclean runs under the folio lock (writeback's caller holds
 *     it), then takes i_mmap_rwsem (read) and PTE locks: folio lock ->
 *     i_mmap_rwsem -> ptl.  Nobody takes a folio lock under i_mmap_rwsem.
 *   - unmap_mapping_range holds only i_mmap_rwsem (read) and PTE locks: the
 *     page tables of a VMA on i_mmap stay allocated because munmap unlinks
 *     the VMA (i_mmap_rwsem write) before it frees page tables.
 */
#include "mm/internal.h"

#include <fcntl.h>
#include <string.h>

RV_STAT_DEFINE(file_faults_cow, "private file write faults (copy from the page cache)");
RV_STAT_DEFINE(file_faults_shared, "shared file write faults (folio dirtied)");
RV_STAT_DEFINE(file_faults_read, "file read faults");
RV_STAT_DEFINE(unmap_mapping_ptes, "PTEs removed by unmap_mapping_range");
RV_STAT_DEFINE(mkclean_ptes, "PTEs write-protected and cleaned before writeback (folio_mkclean)");

RV_STAT_DEFINE(pte_recheck_nopage, "major faults avoided by the PTE recheck (VM_FAULT_NOPAGE)");
RV_STAT_DEFINE(pte_recheck_locked, "PTE-lock round trips of the filemap_fault PTE recheck");
RV_STAT_DECLARE(spurious_majflt);

void mm_file_get(struct file *file)
{
	get_file(file);
}

void mm_file_put(struct file *file)
{
	fput(file);
}

void mm_file_put_deferred(struct file *file)
{
	fput_deferred(file);
}

struct address_space *mm_file_mapping(struct file *file)
{
	return file->f_mapping;
}

int mm_file_mmap_check(struct file *file, unsigned long vm_flags)
{
	if (!file->f_mapping)
		return -ENODEV;
	if (!(file->f_mode & FMODE_READ))
		return -EACCES;
	if ((vm_flags & VM_SHARED) && (vm_flags & VM_WRITE) && !(file->f_mode & FMODE_WRITE))
		return -EACCES;
	return 0;
}

void vma_link_file(struct vm_area_struct *vma)
{
	struct address_space *m = vma->vm_mapping;

	if (!m)
		return;
	down_write(&m->i_mmap_rwsem);
	list_add_tail(&vma->shared, &m->i_mmap);
	up_write(&m->i_mmap_rwsem);
}

void vma_unlink_file(struct vm_area_struct *vma)
{
	struct address_space *m = vma->vm_mapping;

	/* exit_mmap unlinks before freeing page tables, remove_vma again */
	if (!m || list_empty(&vma->shared))
		return;
	down_write(&m->i_mmap_rwsem);
	list_del_init(&vma->shared);
	up_write(&m->i_mmap_rwsem);
}

static inline int64_t mapping_size(struct address_space *m)
{
	return m->host ? __atomic_load_n(&m->host->i_size, __ATOMIC_ACQUIRE) : INT64_MAX;
}

/*
 * The PTE recheck before a major fault (docs/history.md): the PTE this fault
 * read locklessly as none may be inside another task's
 * ptep_modify_prot_start..commit window (NUMA hinting, mprotect), which
 * holds the PTE lock; the data may be mapped all along.  Returns
 * VM_FAULT_NOPAGE (the access retries) when the PTE is no longer none,
 * else 0 (go on with the I/O).
 *
 *   pte_recheck=1, as merged (filemap_fault_recheck_pte_none, mm/filemap.c,
 *     Linux 6.9, 58f327f2ce80): only VM_LOCKED VMAs (the mlockall case, a
 *     COW'd anonymous page whose file page was reclaimed), only when a
 *     page table existed (FAULT_FLAG_ORIG_PTE_VALID), a lockless look
 *     first and the PTE lock only if that still says none.
 *   pte_recheck=rfc, the first version of the patch: every VMA, whenever the page
 *     table exists at the time of the recheck (its !pmd_none guard), always
 *     under the PTE lock.
 *
 * pte_recheck_locked counts the lock round trips (before taking the lock,
 * so a test can see a fault that is about to wait on it).
 */
/* noinline: one function whose instructions callgrind can count (docs/mm.md) */
static __attribute__((noinline)) vm_fault_t filemap_fault_recheck_pte(struct vm_fault *vmf)
{
	bool none;

	if (rv_sw.pte_recheck == PTE_RECHECK_MERGED) {
		if (!(vmf->vma->vm_flags & VM_LOCKED))
			return 0;
		/* a page table existed when the fault read the PTE */
		if (!(vmf->flags & FAULT_FLAG_ORIG_PTE_VALID))
			return 0;
		if (!pte_none(ptep_get(vmf->pte)))
			goto nopage;
	} else if (!vmf->pt) {
		/* the patch's !pmd_none(*vmf->pmd): the table as it is now
		 * (another fault may have allocated it since this one began;
		 * under mmap_lock it cannot be freed again) */
		vmf->pt = pt_lookup(vmf->vma->vm_mm, vmf->address);
		if (!vmf->pt)
			return 0;
		vmf->pte = &vmf->pt->ptes[pte_index(vmf->address)];
	}
	rv_stat_inc(pte_recheck_locked);
	spin_lock(&vmf->pt->ptl);
	none = pte_none(ptep_get(vmf->pte));
	spin_unlock(&vmf->pt->ptl);
	if (none)
		return 0;
nopage:
	rv_stat_inc(pte_recheck_nopage);
	return VM_FAULT_NOPAGE;
}

static inline bool beyond_eof(struct address_space *m, int64_t index)
{
	return index >= (mapping_size(m) + PAGE_SIZE - 1) >> PAGE_SHIFT;
}

/*
 * filemap_fault (mm/filemap.c, Linux 6.9): a referenced, uptodate
 * page-cache folio for vmf->pgoff, returned LOCKED (VM_FAULT_LOCKED in
 * the kernel) after the two checks the kernel makes under the folio lock:
 * the folio is still in this mapping ("Did it get truncated?": look it up
 * again) and its index is below EOF (else VM_FAULT_SIGBUS).  Truncation
 * sets i_size first and then takes every folio's lock to remove it, so a
 * fault that passed both checks holds off truncate_inode_pages until its
 * PTE is installed, and truncate's second unmap_mapping_range removes the
 * PTE (a private COW copy included).  Minor if cached; otherwise a major
 * fault (backing-store read) that is only done under mmap_lock.
 */
static vm_fault_t filemap_fault(struct vm_fault *vmf, struct folio **out)
{
	struct address_space *m = vmf->vma->vm_mapping;
	int64_t index = (int64_t)vmf->pgoff;
	vm_fault_t ret = 0;
	struct folio *folio;
	bool did_read;
	int err;

	if (beyond_eof(m, index))
		return VM_FAULT_SIGBUS;
retry_find:
	folio = filemap_get_folio(m, index);
	if (folio) {
		/* found in the cache, not locked yet: truncation may take it */
		RV_INJECT("filemap_fault_cached");
		folio_lock(folio);
		if (READ_ONCE(folio->mapping) != m) { /* truncated meanwhile */
			folio_unlock(folio);
			folio_put(folio);
			goto retry_find;
		}
		if (!folio_test_uptodate(folio)) {
			folio_unlock(folio);
			folio_put(folio);
			return VM_FAULT_SIGBUS;
		}
		goto locked;
	}
	if (vmf->flags & FAULT_FLAG_VMA_LOCK)
		return VM_FAULT_RETRY; /* I/O: redo under mmap_lock */
	if (m->a_store && m->a_store->has_index(m, index))
		ret = VM_FAULT_MAJOR;
	/* the decision point: about to start a major fault (or, with
	 * pte_recheck, to look at the PTE again first) */
	RV_INJECT("filemap_fault_major");
	if (rv_sw.pte_recheck != PTE_RECHECK_OFF) {
		vm_fault_t r = filemap_fault_recheck_pte(vmf);

		if (r)
			return r;
	}
	/* invalidate_lock shared: no folio is created beyond a new EOF */
	/* invalidate_lock shared: no folio is created beyond a new EOF */
	down_read(&m->invalidate_lock);
	if (beyond_eof(m, index))
		err = -ERANGE;
	else
		err = __filemap_grab_folio(m, index, FGP_CREAT | FGP_LOCK, &folio, &did_read);
	up_read(&m->invalidate_lock);
	if (!err && did_read)
		vmf->io_folio = folio; /* for spurious_majflt: no reference of its own */
	if (err == -ENOMEM)
		return VM_FAULT_OOM;
	if (err)
		return VM_FAULT_SIGBUS;
locked:
	/* the size recheck under the folio lock */
	if (beyond_eof(m, index) && !RV_MUTANT(filemap_fault_no_size_recheck)) {
		folio_unlock(folio);
		folio_put(folio);
		return VM_FAULT_SIGBUS;
	}
	/* a fallocated folio a fault maps is data from now on (shmem_fault's
	 * SGP_CACHE zeroes it and marks it uptodate) */
	folio_clear_flag(folio, PG_unwritten);
	*out = folio;
	return ret;
}

/* Map a locked page-cache folio (lock and reference consumed). */
static vm_fault_t finish_file_fault(struct vm_fault *vmf, struct folio *folio, pte_t flags)
{
	vm_fault_t ret;

	folio_get(folio); /* the PTE's reference, consumed by the install */
	if (flags & _PAGE_DIRTY)
		folio_mark_dirty(folio);
	ret = finish_fault_install(vmf, folio, flags, MM_FILEPAGES);
	folio_unlock(folio);
	folio_put(folio);
	return ret;
}

RV_STAT_DEFINE(fault_around_pages, "pages mapped by fault-around (do_fault_around)");

/*
 * do_fault_around (mm/memory.c) and filemap_map_pages (mm/filemap.c),
 * Linux 6.18, with fault_around pages (the switch; Linux's
 * fault_around_bytes is 64 KiB): before a read fault goes to
 * filemap_fault, map what the page cache already holds of the
 * fault_around-aligned block around the address, clamped to the VMA and to
 * the page-table page, and below EOF.  Each folio is taken only if it can
 * be locked at once (folio_trylock), is still in this mapping, uptodate
 * and not a never-written fallocated one (shmem leaves those !uptodate),
 * and its PTE is none; it is mapped read-only as the fault itself would
 * map it.  VM_FAULT_NOPAGE when the faulting address got mapped (the fault
 * is done), else 0 and the fault goes on.  Runs under the fault's lock
 * (the per-VMA lock or mmap_lock): it does no I/O.
 */
static vm_fault_t do_fault_around(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct address_space *m = vma->vm_mapping;
	unsigned long nr = (unsigned long)rv_sw.fault_around;
	unsigned long pte_off = pte_index(vmf->address);
	unsigned long vma_off = vmf->pgoff - vma->vm_pgoff;
	unsigned long from, to, addr0 = vmf->address, pgoff0 = vmf->pgoff;
	int64_t size = mapping_size(m), start, end, file_end;
	pte_t *pte0 = vmf->pte;
	vm_fault_t ret = 0;

	if (nr <= 1 || size <= 0)
		return 0;
	from = pte_off & ~(nr - 1);
	if (from < pte_off - (pte_off < vma_off ? pte_off : vma_off))
		from = pte_off - (pte_off < vma_off ? pte_off : vma_off);
	to = from + nr;
	if (to > PTRS_PER_PTE)
		to = PTRS_PER_PTE;
	if (to > pte_off + vma_pages(vma) - vma_off)
		to = pte_off + vma_pages(vma) - vma_off;
	start = (int64_t)(vmf->pgoff + from - pte_off);
	end = (int64_t)(vmf->pgoff + to - pte_off); /* exclusive */
	file_end = (size + (int64_t)PAGE_SIZE - 1) >> PAGE_SHIFT;
	if (end > file_end)
		end = file_end;
	for (int64_t index = start; index < end; index++) {
		struct folio *folio = filemap_get_folio(m, index);
		vm_fault_t r;

		if (!folio)
			continue;
		if (!folio_trylock(folio)) {
			folio_put(folio);
			continue;
		}
		if (READ_ONCE(folio->mapping) != m || !folio_test_uptodate(folio) ||
		    folio_test_flag(folio, PG_unwritten) || beyond_eof(m, index)) {
			folio_unlock(folio);
			folio_put(folio);
			continue;
		}
		vmf->address = addr0 + (unsigned long)(index - (int64_t)pgoff0) * PAGE_SIZE;
		vmf->pgoff = (unsigned long)index;
		if (vmf->pt)
			vmf->pte = &vmf->pt->ptes[pte_index(vmf->address)];
		r = finish_file_fault(vmf, folio, _PAGE_ACCESSED);
		if (r & VM_FAULT_OOM) {
			ret = r;
			break;
		}
		if (!r) {
			rv_stat_inc(fault_around_pages);
			if (vmf->address == addr0)
				ret = VM_FAULT_NOPAGE;
		}
	}
	vmf->address = addr0;
	vmf->pgoff = pgoff0;
	vmf->pte = vmf->pt ? &vmf->pt->ptes[pte_index(addr0)] : pte0;
	vmf->found_pte = 0;
	return ret;
}

static vm_fault_t __do_file_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct folio *folio = NULL, *new;
	vm_fault_t ret;

	if (!(vmf->flags & FAULT_FLAG_WRITE)) {
		/* do_read_fault: fault-around first, then map the cache
		 * folio read-only (a shared writable mapping takes a
		 * write-notify fault later) */
		ret = do_fault_around(vmf);
		if (ret)
			return ret;
		ret = filemap_fault(vmf, &folio);
		if (ret & (VM_FAULT_ERROR | VM_FAULT_RETRY | VM_FAULT_NOPAGE))
			return ret;
		rv_stat_inc(file_faults_read);
		return ret | finish_file_fault(vmf, folio, _PAGE_ACCESSED);
	}
	if (vma->vm_flags & VM_SHARED) {
		/* do_shared_fault: map it writable and dirty the folio */
		ret = filemap_fault(vmf, &folio);
		if (ret & (VM_FAULT_ERROR | VM_FAULT_RETRY | VM_FAULT_NOPAGE))
			return ret;
		rv_stat_inc(file_faults_shared);
		return ret | finish_file_fault(vmf, folio, _PAGE_ACCESSED | _PAGE_DIRTY | _PAGE_RW);
	}
	/*
	 * do_cow_fault (mm/memory.c, Linux 6.9): a private anonymous copy of
	 * the cache folio, installed while __do_fault's folio lock is still
	 * held, so truncation (which takes that lock) cannot slip between
	 * the checks filemap_fault made and the new PTE.  The anon_vma first,
	 * through vmf_anon_prepare (6.7+): under the per-VMA lock alone it
	 * takes mmap_lock for read or retries under it.
	 */
	ret = vmf_anon_prepare(vmf);
	if (ret)
		return ret;
	new = mm_alloc_anon_folio();
	if (!new)
		return VM_FAULT_OOM;
	ret = filemap_fault(vmf, &folio);
	if (ret & (VM_FAULT_ERROR | VM_FAULT_RETRY | VM_FAULT_NOPAGE)) {
		mm_folio_put(new);
		return ret;
	}
	memcpy(mm_folio_data(new), mm_folio_data(folio), PAGE_SIZE);
	rv_stat_inc(file_faults_cow);
	ret |= finish_fault_install(
	    vmf, new, _PAGE_ACCESSED | _PAGE_DIRTY | ((vma->vm_flags & VM_WRITE) ? _PAGE_RW : 0),
	    MM_ANONPAGES);
	folio_unlock(folio);
	folio_put(folio);
	return ret;
}

/*
 * spurious_majflt: this fault read the folio from the store and then found
 * the PTE populated with a different folio: the data was mapped all along
 * (the original report's case: the COW'd anonymous copy, hidden for a moment by a
 * NUMA-hinting update) and the I/O was for nothing.  Not counted: a fault
 * that found the folio already read by another one, or a PTE another
 * fault installed with this very folio (two faults on one uncached page).
 * Still counted, though benign: two COW faults of one page in one mm, the
 * other one installing its copy first (no workload here does that).
 */
vm_fault_t do_file_fault(struct vm_fault *vmf)
{
	vm_fault_t ret = __do_file_fault(vmf);

	if (vmf->io_folio && (ret & VM_FAULT_NOPAGE) && pte_present(vmf->found_pte) &&
	    mm_folio_from_pte(vmf->found_pte) != vmf->io_folio)
		rv_stat_inc(spurious_majflt);
	return ret;
}

int rmap_walk_file(struct folio *folio, rmap_one_fn fn, void *arg)
{
	struct address_space *m = mm_folio_mapping(folio);
	unsigned long index = mm_folio_index(folio);
	struct vm_area_struct *vma;
	int found = 0;

	if (!m)
		return 0;
	down_read(&m->i_mmap_rwsem);
	list_for_each_entry(vma, &m->i_mmap, shared) {
		unsigned long addr;

		addr = vma_address(vma, index);
		if (addr == (unsigned long)-EFAULT)
			continue;
		if (!pte_maps_folio(vma->vm_mm, addr, folio))
			continue;
		found++;
		if (fn && !fn(folio, vma, addr, arg))
			break;
	}
	up_read(&m->i_mmap_rwsem);
	return found;
}

/*
 * folio_mkclean (vfs_hooks.folio_mkclean): writeback is about to copy a
 * locked file folio to the store.  A write through a shared mapping made
 * since the folio was last cleaned set only the PTE's dirty bit (the model
 * CPU sets it in mm_access), so for every shared VMA mapping the folio,
 * under the PTE lock: take RW and DIRTY off the PTE atomically (the walker
 * sets DIRTY with a cmpxchg, which then fails and sees the PTE read-only)
 * and mark the folio dirty when DIRTY was set.  The next write through the
 * mapping takes a write-protect fault (do_wp_page's shared case), which
 * makes the PTE writable and dirty and dirties the folio again.  Private
 * VMAs map page-cache folios read-only: nothing to clean.  Returns the
 * number of PTEs changed.  Each PTE is cleared and flushed before the
 * clean one is set (page_vma_mkclean_one): a writer that validated the
 * old PTE finishes its copy before the flush returns, so writeback's copy
 * after this sees its bytes.
 *
 * Locking: folio lock (held by the caller: no PTE can newly map the folio)
 * -> i_mmap_rwsem (read) -> PTE lock.  The page tables of a VMA on i_mmap
 * stay allocated (see the top).
 */
/* Private VMAs map page-cache folios read-only: nothing to clean. */
static bool mkclean_invalid_vma(struct vm_area_struct *vma)
{
	return !(vma->vm_flags & VM_SHARED);
}

static bool page_vma_mkclean_one(struct folio *folio, struct vm_area_struct *vma,
				 unsigned long addr, struct pt_page *pt, pte_t *ptep, pte_t pte,
				 void *arg)
{
	int *cleaned = arg;

	(void)pt;
	if (pte & (_PAGE_RW | _PAGE_DIRTY)) {
		/* clear, flush (a writer that validated the PTE finishes its
		 * copy first), then the clean read-only PTE */
		pte = ptep_clear_flush(vma, addr, ptep);
		if (pte_dirty(pte))
			folio_mark_dirty(folio);
		set_pte(ptep, pte & ~(_PAGE_RW | _PAGE_DIRTY));
		(*cleaned)++;
	}
	return true;
}

static int folio_mkclean(struct folio *folio)
{
	struct address_space *m = folio->mapping;
	int cleaned = 0;
	bool lock;

	if (!m || !folio_mapcount(folio))
		return 0;
	lock = !RV_MUTANT(mkclean_no_i_mmap_lock);
	if (lock)
		down_read(&m->i_mmap_rwsem);
	rmap_walk_file_locked(folio, m, mkclean_invalid_vma, page_vma_mkclean_one, &cleaned);
	if (lock)
		up_read(&m->i_mmap_rwsem);
	if (cleaned)
		rv_stat_add(mkclean_ptes, (uint64_t)cleaned);
	return cleaned;
}

/*
 * Truncate / hole punch: remove the PTEs mapping file pages of
 * [start, start+len) bytes (len 0: to the end) from every VMA on i_mmap;
 * with even_cows, also the private anonymous copies of those pages
 * (truncate), without it only the page-cache folios (hole punch).
 */
static void unmap_mapping_range(struct address_space *m, int64_t start, int64_t len, int even_cows)
{
	unsigned long first = (unsigned long)start >> PAGE_SHIFT;
	unsigned long last =
	    len > 0 ? ((unsigned long)start + (unsigned long)len - 1) >> PAGE_SHIFT : ~0UL;
	struct vm_area_struct *vma;

	down_read(&m->i_mmap_rwsem);
	list_for_each_entry(vma, &m->i_mmap, shared) {
		unsigned long vfirst = vma->vm_pgoff, vlast = vma->vm_pgoff + vma_pages(vma) - 1;
		unsigned long s, e;
		long n;

		if (last < vfirst || first > vlast)
			continue;
		s = vma->vm_start + ((first > vfirst ? first - vfirst : 0) << PAGE_SHIFT);
		e = vma->vm_start + (((last < vlast ? last : vlast) - vfirst + 1) << PAGE_SHIFT);
		n = zap_page_range_details(vma, s, e, !even_cows);
		rv_stat_add(unmap_mapping_ptes, (uint64_t)n);
	}
	up_read(&m->i_mmap_rwsem);
}

int mm_filemap_init(void)
{
	vfs_hooks.unmap_mapping_range = unmap_mapping_range;
	vfs_hooks.folio_mkclean = folio_mkclean;
	return 0;
}

void mm_filemap_exit(void)
{
	vfs_hooks.unmap_mapping_range = NULL;
	vfs_hooks.folio_mkclean = NULL;
}
