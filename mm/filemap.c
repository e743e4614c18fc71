// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/filemap.c - file-backed mappings: the page-cache side of faults
 * (read, private COW, shared write), i_mmap linking, the file rmap walk,
 * and unmap_mapping_range for truncate and hole punching.
 *
 * Waiting for vfs/pagecache.h (issue 4): until it publishes folios and
 * address spaces, file mappings are refused with -ENODEV.
 */
#include "mm/internal.h"

void mm_file_get(struct file *file)
{
	(void)file;
}

void mm_file_put(struct file *file)
{
	(void)file;
}

int mm_file_mmap_check(struct file *file, unsigned long vm_flags)
{
	(void)file;
	(void)vm_flags;
	return -ENODEV;
}

struct address_space *mm_file_mapping(struct file *file)
{
	(void)file;
	return NULL;
}

void vma_link_file(struct vm_area_struct *vma)
{
	(void)vma;
}

void vma_unlink_file(struct vm_area_struct *vma)
{
	(void)vma;
}

vm_fault_t do_file_fault(struct vm_fault *vmf)
{
	(void)vmf;
	return VM_FAULT_SIGBUS;
}

int rmap_walk_file(struct folio *folio, rmap_one_fn fn, void *arg)
{
	(void)folio;
	(void)fn;
	(void)arg;
	return 0;
}

int mm_filemap_init(void)
{
	return 0;
}

void mm_filemap_exit(void)
{
}
