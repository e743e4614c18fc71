// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/fork.c - fork's address-space copy (dup_mmap) and the task hooks.
 *
 * dup_mmap holds the parent's mmap_lock for write (then the child's, which
 * nobody else can see yet) and copies VMA after VMA: vm_area_dup,
 * anon_vma_fork, and, where vma_needs_copy says so, the page tables with
 * copy-on-write (copy_page_range).
 *
 * mmap_lock alone no longer keeps the parent's VMAs still: another thread
 * of the parent can fault under a per-VMA lock and change PTEs of a VMA
 * while it is being copied (docs/history.md; an anon_vma it cannot prepare
 * there: vmf_anon_prepare needs mmap_lock, which fork holds).  The
 * switch fork_vma_lock decides whether each parent VMA is write-locked
 * (vma_start_write) before it is copied:
 *   always        every VMA (the 6.4 fix; default)
 *   elide-single  skip it when mm_users was 1 before mmap_lock was taken:
 *                 a single-threaded process cannot grow a thread while it
 *                 is itself forking, and other mm users (get_task_mm) go
 *                 through mmap_lock, which fork holds
 *   never         the pre-fix kernel
 * Without the VMA write lock, a parent thread's write-protect fault can
 * COW a page during the copy, before fork's TLB flush at the end: a third
 * parent thread still writing through its stale writable translation then
 * writes into the old page, which now belongs to the child, and the
 * parent loses that write (the corruption users reported, docs/history.md).
 * Injection points (for the fork-race reproductions):
 *   "dup_mmap_vma"          after the lock decision, before anything is read
 *   "dup_mmap_before_copy"  after anon_vma_fork, before vma_needs_copy
 *   "dup_mmap_flush"        after the copy, before flush_tlb_mm(oldmm)
 */
#include "mm/internal.h"

RV_STAT_DEFINE(mm_forks, "dup_mmap calls");

bool vma_needs_copy(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)
{
	(void)dst_vma;
	/* anonymous pages cannot be refaulted from anywhere: copy them.
	 * Everything else (file pages, never-touched anon) faults lazily. */
	return READ_ONCE(src_vma->anon_vma) != NULL;
}

int dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm)
{
	int mode = rv_sw.fork_vma_lock;
	bool lock_vmas;
	struct vm_area_struct *mpnt;
	int i, ret = 0;

	/* read before mmap_lock, as the proposed elision does */
	lock_vmas = mode == FORK_VMA_LOCK_ALWAYS ||
		    (mode == FORK_VMA_LOCK_ELIDE_SINGLE &&
		     __atomic_load_n(&oldmm->mm_users, __ATOMIC_ACQUIRE) != 1);
	rv_stat_inc(mm_forks);

	mmap_write_lock(oldmm);
	mmap_write_lock(mm); /* the child: uncontended */
	mm->mmap_base = oldmm->mmap_base;
	for_each_vma_idx(oldmm, i, mpnt) {
		struct vm_area_struct *tmp;

		if (lock_vmas)
			vma_start_write(mpnt);
		RV_INJECT("dup_mmap_vma");
		if (mpnt->vm_flags & VM_DONTCOPY)
			continue;
		tmp = vm_area_dup(mpnt);
		if (!tmp) {
			ret = -ENOMEM;
			break;
		}
		tmp->vm_mm = mm;
		tmp->vm_lock_seq = mm->mm_lock_seq; /* born write-locked in the child */
		tmp->vm_flags &= ~VM_LOCKED_MASK;   /* mlock is not inherited */
		/*
		 * dup_mmap (kernel/fork.c, Linux 6.9): VM_WIPEONFORK gets a
		 * clean slate in the child, with no anon_vma until its first
		 * fault (no page is copied); the rest share the parent's
		 * anon_vma tree.
		 */
		if (tmp->vm_flags & VM_WIPEONFORK) {
			tmp->anon_vma = NULL;
			ret = 0;
		} else {
			ret = anon_vma_fork(tmp, mpnt);
		}
		if (ret) {
			if (tmp->vm_file)
				mm_file_put(tmp->vm_file);
			vm_area_free_unpublished(tmp);
			break;
		}
		ret = vma_tree_append(mm, tmp);
		if (ret) {
			unlink_anon_vmas(tmp);
			if (tmp->vm_file)
				mm_file_put(tmp->vm_file);
			vm_area_free_unpublished(tmp);
			break;
		}
		vma_link_file(tmp);
		RV_INJECT("dup_mmap_before_copy");
		if (!(tmp->vm_flags & VM_WIPEONFORK) && vma_needs_copy(tmp, mpnt)) {
			ret = copy_page_range(tmp, mpnt);
			if (ret)
				break;
		}
	}
	mmap_write_unlock(mm);
	/*
	 * copy_page_range write-protected the parent's PTEs without flushing:
	 * until here another parent thread may still write through a writable
	 * translation.  dup_mmap (6.4) flushes once before mmap_lock goes, so
	 * the first write-protect fault after fork (it needs mmap_lock or, with
	 * the VMA write-locked, waits for it) copies a page no stale writer
	 * can still change.
	 */
	RV_INJECT("dup_mmap_flush");
	if (!RV_MUTANT(dup_mmap_no_flush))
		flush_tlb_mm(oldmm);
	mmap_write_unlock(oldmm);
	return ret;
}

static int mm_copy_mm(struct task_struct *child, struct task_struct *parent, unsigned long flags)
{
	struct mm_struct *oldmm = parent ? parent->mm : NULL, *mm;
	int ret;

	child->mm = NULL;
	if (!oldmm)
		return 0;
	if (flags & CLONE_VM) {
		mmget(oldmm);
		child->mm = oldmm;
		return 0;
	}
	mm = mm_alloc();
	if (!mm)
		return -ENOMEM;
	ret = dup_mmap(mm, oldmm);
	if (ret) {
		mmput(mm); /* exit_mmap undoes the partial copy */
		return ret;
	}
	child->mm = mm;
	return 0;
}

static void mm_exit_mm(struct task_struct *t)
{
	struct mm_struct *mm = t->mm;

	if (!mm)
		return;
	RV_INJECT("exit_mm");
	task_lock(t); /* exit_mm: get_task_mm sees the mm or NULL, never a freed one */
	WRITE_ONCE(t->mm, NULL);
	task_unlock(t);
	mmput(mm);
}

static const struct task_hooks mm_task_hooks = {
    .copy_mm = mm_copy_mm,
    .exit_mm = mm_exit_mm,
};

void mm_fork_hooks_install(void)
{
	task_set_hooks(TASK_HOOK_MM, &mm_task_hooks);
}

void mm_fork_hooks_remove(void)
{
	task_set_hooks(TASK_HOOK_MM, NULL);
}
