// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/mlock.c - mlock, mlock2, munlock, mlockall, munlockall (after
 * mm/mlock.c, Linux 6.9; mlock2 and MCL_ONFAULT as in 6.18).
 *
 * VM_LOCKED is a VMA flag: do_mlock sets it on the VMAs of the range
 * (splitting at the ends, apply_vma_lock_flags / mlock_fixup) under
 * mmap_lock for write, drops the lock and faults every page in
 * (__mm_populate), except in VM_LOCKONFAULT VMAs (mlock2 with
 * MLOCK_ONFAULT), whose pages are locked as they fault in.
 * mlockall(MCL_CURRENT) does it for every VMA;
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

/*
 * do_mlock / munlock and apply_vma_lock_flags (Linux 6.9, the same in
 * 6.18): flags is VM_LOCKED, VM_LOCKED | VM_LOCKONFAULT (mlock2's
 * MLOCK_ONFAULT), or 0 (munlock); each VMA's VM_LOCKED_MASK is replaced
 * (mlock_fixup), so mlock() over an on-fault range makes it a plain
 * locked one.  A length that page rounding wraps to 0 locks nothing and
 * succeeds; a range whose end wraps past the top of the address space is
 * EINVAL; the part past TASK_SIZE has no VMA, ENOMEM after the VMAs
 * before it were locked.  (An unprivileged
 * mlock checks RLIMIT_MEMLOCK first and answers ENOMEM for a wrapping
 * length; the model has no rlimit and answers as a caller with
 * CAP_IPC_LOCK, as munlock always does.)  The populate comes only after
 * the flags went on everywhere, and skips VM_LOCKONFAULT VMAs.
 */
static int mlock_range(struct mm_struct *mm, unsigned long start, unsigned long len,
		       unsigned long flags)
{
	unsigned long end;
	int ret;

	len = (len + (start & ~PAGE_MASK) + PAGE_SIZE - 1) & PAGE_MASK;
	start &= PAGE_MASK;
	end = start + len;
	if (end < start)
		return -EINVAL;
	if (!len)
		return 0;
	mmap_write_lock(mm);
	ret = vma_modify_flags(mm, start, end, flags, VM_LOCKED_MASK & ~flags);
	mmap_write_unlock(mm);
	if (ret || !flags)
		return ret;
	return mlock_posix_error(__mm_populate(mm, start, len, false));
}

int vm_mlock(struct mm_struct *mm, unsigned long addr, unsigned long len)
{
	return mlock_range(mm, addr, len, VM_LOCKED);
}

/* mlock2: MLOCK_ONFAULT is the only flag */
int vm_mlock2(struct mm_struct *mm, unsigned long addr, unsigned long len, unsigned int flags)
{
	if (flags & ~MLOCK_ONFAULT)
		return -EINVAL;
	return mlock_range(mm, addr, len,
			   VM_LOCKED | ((flags & MLOCK_ONFAULT) ? VM_LOCKONFAULT : 0));
}

int vm_munlock(struct mm_struct *mm, unsigned long addr, unsigned long len)
{
	return mlock_range(mm, addr, len, 0);
}

/*
 * mlockall / apply_mlockall_flags (Linux 6.18): MCL_ONFAULT alone is
 * EINVAL; def_flags loses both lock bits, then MCL_FUTURE sets VM_LOCKED
 * (and VM_LOCKONFAULT with MCL_ONFAULT) for later mmaps; MCL_CURRENT
 * replaces every VMA's lock bits and populates (errors ignored; the
 * on-fault VMAs are skipped).
 */
int vm_mlockall(struct mm_struct *mm, int flags)
{
	unsigned long to_add = VM_LOCKED;
	int ret = 0;

	if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) || flags == MCL_ONFAULT)
		return -EINVAL;
	if (flags & MCL_ONFAULT)
		to_add |= VM_LOCKONFAULT;
	mmap_write_lock(mm);
	mm->def_flags &= ~VM_LOCKED_MASK;
	if (flags & MCL_FUTURE)
		mm->def_flags |= to_add;
	if (flags & MCL_CURRENT)
		ret = vma_modify_flags_all(mm, to_add, VM_LOCKED_MASK & ~to_add);
	mmap_write_unlock(mm);
	if (!ret && (flags & MCL_CURRENT))
		__mm_populate(mm, 0, TASK_SIZE, true);
	return ret;
}

int vm_munlockall(struct mm_struct *mm)
{
	int ret;

	mmap_write_lock(mm);
	mm->def_flags &= ~VM_LOCKED_MASK;
	ret = vma_modify_flags_all(mm, 0, VM_LOCKED_MASK);
	mmap_write_unlock(mm);
	return ret;
}
