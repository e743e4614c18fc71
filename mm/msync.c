// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/msync.c - msync (after mm/msync.c, Linux 6.18: sys_msync).
 *
 * do_msync(mm, start, len, flags):
 *   Arguments: flags other than MS_ASYNC, MS_INVALIDATE and MS_SYNC, an
 *   unaligned start, MS_ASYNC with MS_SYNC: -EINVAL; the length is
 *   rounded up to pages, an end that wraps: -ENOMEM; a length of 0: 0.
 *   The walk, from find_vma(start): no VMA left before the end: -ENOMEM;
 *   a hole before the next VMA: with flags exactly MS_ASYNC -ENOMEM at
 *   once, else the walk goes on and -ENOMEM is returned at the end
 *   (unless an error came first); a VM_LOCKED VMA with MS_INVALIDATE:
 *   -EBUSY, the VMAs before it done; with MS_SYNC a VM_SHARED VMA with a
 *   file (a shared file mapping, shared anonymous memory: shmem) is
 *   written back: vfs_fsync_range on the range's file offsets, with
 *   mmap_lock dropped around it (a reference on the file held), then the
 *   walk looks the next VMA up again from the end of this one.
 *   MS_ASYNC and MS_INVALIDATE do nothing else (MS_INVALIDATE only
 *   checks for locked VMAs).
 *
 * The model writes the whole file back (vfs_fsync: the model has no
 * range variant); what is observable, the return value and the resident
 * pages, is the same.
 *
 * Locking: mmap_lock for read over the walk, not held across the
 * writeback (which takes the folio locks and i_mmap_rwsem through
 * folio_mkclean).
 */
#include "mm/internal.h"

#include <sys/mman.h>

int do_msync(struct mm_struct *mm, unsigned long start, size_t len, int flags)
{
	struct vm_area_struct *vma;
	unsigned long end;
	int unmapped_error = 0, error;

	if (flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC))
		return -EINVAL;
	if (start & ~PAGE_MASK)
		return -EINVAL;
	if ((flags & MS_ASYNC) && (flags & MS_SYNC))
		return -EINVAL;
	len = (len + ~PAGE_MASK) & PAGE_MASK;
	end = start + len;
	if (end < start)
		return -ENOMEM;
	if (end == start)
		return 0;
	mmap_read_lock(mm);
	vma = find_vma(mm, start);
	for (;;) {
		struct file *file;

		error = -ENOMEM;
		if (!vma)
			break;
		if (start < vma->vm_start) {
			if (flags == MS_ASYNC)
				break;
			start = vma->vm_start;
			if (start >= end)
				break;
			unmapped_error = -ENOMEM;
		}
		if ((flags & MS_INVALIDATE) && (vma->vm_flags & VM_LOCKED)) {
			error = -EBUSY;
			break;
		}
		file = vma->vm_file;
		start = vma->vm_end;
		if ((flags & MS_SYNC) && file && (vma->vm_flags & VM_SHARED)) {
			mm_file_get(file);
			mmap_read_unlock(mm);
			error = vfs_fsync(file, 1);
			mm_file_put(file);
			if (error || start >= end)
				return error ? error : unmapped_error;
			mmap_read_lock(mm);
			vma = find_vma(mm, start);
		} else {
			if (start >= end) {
				error = 0;
				break;
			}
			vma = find_vma(mm, vma->vm_end);
		}
	}
	mmap_read_unlock(mm);
	return error ? error : unmapped_error;
}
