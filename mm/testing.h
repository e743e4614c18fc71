/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mm/testing.h - mm/'s test-only entry points: the address-space checker
 * (mm/check.c) and the explorer's broken-design switch.  They are in the
 * test library (rcuvfs_testing) and the explorer's build, never in
 * librcuvfs.a, and this header is not installed.  Tests and the tools that
 * verify (rcuvfs-stress) include it beside mm/mm.h.
 *
 * Locking: mm_check takes mmap_lock for read and the rmap locks; call it at
 * a quiescent point (see mm/check.c).
 */
#ifndef RCUVFS_MM_TESTING_H
#define RCUVFS_MM_TESTING_H

#include "mm/mm.h"

/*
 * mm_validate plus page tables, rmap and RSS (mm/check.c): every present
 * anonymous PTE found by rmap, every file PTE's VMA on i_mmap and below
 * EOF, RSS equal to the PTEs, page tables only under live VMAs.  Call at a
 * quiescent point; 0 or -EINVAL with messages on stderr.
 */
int mm_check(struct mm_struct *mm);
#ifdef RCUVFS_EXPLORE
/* The explorer build only: lock_vma_under_rcu without its range check
 * once the lock is held (vm_mm is still checked).  Reset by mm's init. */
void lock_vma_under_rcu_norecheck_for_test(bool on);
/* The explorer build only: mremap moves a VMA without write-locking it
 * first (before "mm/mremap: write-lock VMA while remapping it to a new
 * address range", 6.4).  Reset by mm's init. */
void mremap_nolock_for_test(bool on);
/* The explorer build only: a scheduling point in tlb_enter between its
 * read of the flush epoch and its count (mm/tlb.c), so that a section of
 * task t can straddle a flush's epoch flip; NULL: none.  Off by default:
 * it adds a decision to every access.  Reset by mm's init. */
void tlb_enter_point_for_test(struct task_struct *t);
#endif

#endif /* RCUVFS_MM_TESTING_H */
