// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/mlock.c - mlock, munlock, mlockall, munlockall (after mm/mlock.c,
 * Linux 6.9).
 *
 * VM_LOCKED is a VMA flag: do_mlock sets it on the VMAs of the range
 * (splitting at the ends, apply_vma_lock_flags / mlock_fixup) under
 * mmap_lock for write, drops the lock and faults every page in
 * (__mm_populate).  mlockall(MCL_CURRENT) does it for every VMA;
 * MCL_FUTURE puts VM_LOCKED in mm->def_flags, which do_mmap adds to every
 * new VMA (and vm_mmap then populates it).  The model has no unevictable
 * LRU: reclaim's try_to_unmap refuses a folio mapped by a VM_LOCKED VMA,
 * which is what keeps it.  Anonymous memory is never reclaimed anyway; a
 * private writable file mapping is COW'd by the populate, so its file
 * folios are no longer mapped and may go (the situation of the filemap_fault PTE recheck).
 *
 * Locking: VMA flags change under mmap_lock (write) with the VMA
 * write-locked (vma_modify_flags); def_flags under mmap_lock (write).
 */
#include "mm/internal.h"

#include <sys/mman.h>


/* __mlock_posix_error_return: what mlock(2) reports for a populate error */
static int mlock_posix_error(int err)
{
	if (err == -EFAULT)
		return -ENOMEM;
	if (err == -ENOMEM)
		return -EAGAIN;
	return err;
}

static int mlock_range(struct mm_struct *mm, unsigned long start, unsigned long len, bool on)
{
	unsigned long end;
	int ret;

	/*
	 * do_mlock / munlock and apply_vma_lock_flags (Linux 6.9, the same in
	 * 6.18): a length that page rounding wraps to 0 locks nothing and
	 * succeeds; a range whose end wraps past the top of the address space
	 * is EINVAL; one past TASK_SIZE has no VMA there, ENOMEM.  (An
	 * unprivileged mlock checks RLIMIT_MEMLOCK first and answers ENOMEM
	 * for a wrapping length; the model has no rlimit and answers as a
	 * caller with CAP_IPC_LOCK, as munlock always does.)
	 */
	len = (len + (start & ~PAGE_MASK) + PAGE_SIZE - 1) & PAGE_MASK;
	start &= PAGE_MASK;
	end = start + len;
	if (end < start)
		return -EINVAL;
	if (end > TASK_SIZE)
		return -ENOMEM;
	if (!len)
		return 0;
	mmap_write_lock(mm);
	ret = vma_modify_flags(mm, start, end, on ? VM_LOCKED : 0, on ? 0 : VM_LOCKED);
	mmap_write_unlock(mm);
	if (ret || !on)
		return ret;
	return mlock_posix_error(__mm_populate(mm, start, len, false));
}

int vm_mlock(struct mm_struct *mm, unsigned long addr, unsigned long len)
{
	return mlock_range(mm, addr, len, true);
}

int vm_munlock(struct mm_struct *mm, unsigned long addr, unsigned long len)
{
	return mlock_range(mm, addr, len, false);
}

int vm_mlockall(struct mm_struct *mm, int flags)
{
	int ret;

	if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE)))
		return -EINVAL; /* MCL_ONFAULT (VM_LOCKONFAULT) is not modelled */
	mmap_write_lock(mm);
	/* apply_mlockall_flags: MCL_FUTURE is replaced, not or-ed */
	if (flags & MCL_FUTURE)
		mm->def_flags |= VM_LOCKED;
	else
		mm->def_flags &= ~VM_LOCKED;
	ret = (flags & MCL_CURRENT) ? vma_modify_flags(mm, 0, TASK_SIZE, VM_LOCKED, 0) : 0;
	mmap_write_unlock(mm);
	if (!ret && (flags & MCL_CURRENT))
		__mm_populate(mm, 0, TASK_SIZE, true);
	return ret;
}

int vm_munlockall(struct mm_struct *mm)
{
	int ret;

	mmap_write_lock(mm);
	mm->def_flags &= ~VM_LOCKED;
	ret = vma_modify_flags(mm, 0, TASK_SIZE, 0, VM_LOCKED);
	mmap_write_unlock(mm);
	return ret;
}
