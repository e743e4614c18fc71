// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/shmem.c - shared anonymous mappings are shmem files: shmem_zero_setup,
 * and /dev/zero's mmap (mmap_zero, drivers/char/mem.c).
 *
 * What the kernel does:
 *   mmap(MAP_SHARED | MAP_ANONYMOUS): do_mmap ignores pgoff (0) and sets
 *   VM_SHARED | VM_MAYSHARE; the VMA is set up under mmap_lock (write) by
 *   mmap_region (mm/mmap.c up to 6.11; __mmap_new_vma in mm/vma.c from
 *   6.12), which calls shmem_zero_setup(vma) for a VM_SHARED VMA without a
 *   file.  shmem_zero_setup (mm/shmem.c) creates an unlinked shmem file of
 *   the VMA's size, shmem_kernel_file_setup("dev/zero", size, vm_flags)
 *   (since 4.1; shmem_file_setup before, which ran the LSM
 *   checks), on shm_mnt: new_inode -> inode_sb_list_add under
 *   s_inode_list_lock, once per mapping.  It puts the VMA's old vm_file if
 *   any (/dev/zero's) and installs the new one; vm_ops = shmem_anon_vm_ops
 *   (shmem_vm_ops before 6.2).  The 2025 mmap_prepare conversion
 *   (shmem_zero_setup_desc, mmap_prepare_zero) makes the same file before
 *   the VMA exists; the lock traffic is the same: one inode_sb_list_add
 *   per mapping, one inode_sb_list_del at its last unmap (the final fput,
 *   which the kernel defers to task_work on return to user space, after
 *   munmap dropped mmap_lock: the model's fput_deferred/task_work_run).
 *   /dev/zero's mmap (mmap_zero, 2.6-6.x, mmap_prepare_zero after the
 *   conversion): a VM_SHARED mapping gets shmem_zero_setup; any other is
 *   made anonymous (vma_set_anonymous).  VM_SHARED survives do_mmap only
 *   for MAP_SHARED of a /dev/zero opened for writing: opened O_RDONLY the
 *   mapping loses VM_SHARED and VM_MAYWRITE (stays VM_MAYSHARE) and is
 *   private.  So a shmem inode comes from MAP_SHARED of an O_RDWR /dev/zero
 *   (the stress-ng "zero" stressor's case, docs/history.md), never from
 *   a MAP_PRIVATE one: no kernel version calls shmem_zero_setup for a
 *   private /dev/zero mapping (2.4 zeromap_page_range'd it; 2.6+ make it
 *   anonymous).  The shmem file of a /dev/zero mapping keeps the caller's
 *   pgoff: pages at or past the file's size (the mapping's length) are
 *   SIGBUS, as on the host.
 *
 * The model: the VMA's vm_file is the shmem file and vm_mapping its page
 * cache, so faults, fork (dup_mmap shares the file: the child sees the
 * parent's writes and the parent the child's), reclaim and rmap are those
 * of a shared file mapping.  A private mapping made anonymous
 * (vma_set_anonymous: the kernel clears vm_ops only) keeps vm_file, its
 * reference and the caller's vm_pgoff, as in mainline (mmap_zero up to
 * 6.16, mmap_prepare_zero in 6.17, mmap_zero_prepare's success hook in
 * 6.18): /proc/PID/maps shows it as /dev/zero at that offset, and it
 * merges as a file mapping does, with a neighbour mapping the same open
 * file at the adjacent offset, never with an anonymous one.  The model's
 * vm_ops == NULL is vm_mapping == NULL (vma_is_anonymous): no page cache,
 * not on any i_mmap, anonymous faults.
 *
 * Locking: shmem_zero_setup and mmap_zero run under mmap_lock held for
 * write on a VMA not yet in the tree; they take shm_mnt's
 * s_inode_list_lock (through the VFS) and nothing else.  zero_fops.mmap
 * is set at instance init and cleared at teardown.
 */
#include "mm/internal.h"

RV_STAT_DEFINE(shmem_zero_setups,
	       "shared anonymous mappings given a shmem file (shmem_zero_setup)");

int shmem_zero_setup(struct vm_area_struct *vma)
{
	struct file *file;
	int err = shmem_kernel_file_setup("dev/zero", (int64_t)(vma->vm_end - vma->vm_start),
					  vma->vm_flags, &file);

	if (err)
		return err;
	if (vma->vm_file)
		mm_file_put_deferred(vma->vm_file);
	vma->vm_file = file; /* the file's one reference is the VMA's */
	vma->vm_mapping = mm_file_mapping(file);
	rv_stat_inc(shmem_zero_setups);
	return 0;
}

/* drivers/char/mem.c mmap_zero (Linux 6.x; mmap_zero_prepare in 6.18) */
static int mmap_zero(struct file *file, struct vm_area_struct *vma)
{
	(void)file;
	if (vma->vm_flags & VM_SHARED)
		return shmem_zero_setup(vma);
	/* vma_set_anonymous: vm_file and vm_pgoff stay (the top of the file) */
	vma->vm_mapping = NULL;
	return 0;
}

static int shmem_mm_init(void)
{
	zero_fops.mmap = mmap_zero;
	return 0;
}

static int shmem_mm_teardown(void)
{
	zero_fops.mmap = NULL;
	return 0;
}

RV_SUBSYS(mm_shmem, shmem_mm_init, shmem_mm_teardown);
