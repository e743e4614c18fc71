/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mm/mm.h - public header of mm/: model address spaces.
 *
 * A model process's memory: an mm_struct with an RCU-readable VMA tree, a
 * two-level page table whose leaf pages each carry their own spinlock (split
 * PTE locks), faults taken under a per-VMA lock first (Linux 6.4+) and under
 * mmap_lock as the fallback, anon_vma reverse mapping, and fork with
 * copy-on-write (dup_mmap).  Tasks touch model memory through mm_access()
 * (rv_mm_read/rv_mm_write), which walks the page table as a TLB miss would
 * and faults when the walk finds nothing usable.
 *
 * Locking (outermost first):
 *   mm->mmap_lock (rw_semaphore)   the VMA tree and every VMA's bounds, flags,
 *                                  pgoff and file; held for write by mmap,
 *                                  munmap, mprotect, mlock, mremap, madvise's
 *                                  flag advice, fork (both mms), exit; for
 *                                  read by faults (fallback), populate,
 *                                  madvise(DONTNEED/FREE) over several VMAs,
 *                                  and msync's walk (dropped around its
 *                                  writeback).
 *   per-VMA lock                   vma->vm_lock (vma_lock=rwsem) or
 *                                  vma->vm_refcnt (vma_lock=refcnt): a fault
 *                                  holds it for read instead of mmap_lock
 *                                  (so does madvise(DONTNEED/FREE) inside
 *                                  one VMA); a
 *                                  writer of the VMA (holding mmap_lock for
 *                                  write) waits for its readers and marks it
 *                                  write-locked with vma_start_write():
 *                                  vm_lock_seq = mm_lock_seq.
 *                                  mmap_write_unlock() bumps mm_lock_seq and
 *                                  so unlocks every VMA at once.
 *   anon_vma->root->rwsem          the anon_vma_chain lists of one anon_vma tree.
 *   mm->page_table_lock (spinlock) population of the top level, first
 *                                  assignment of vma->anon_vma.
 *   pt_page->ptl (spinlock)        changes of the PTEs of one page-table page
 *                                  that depend on their old value.
 *   mm->tlb_flush_lock (spinlock)  a TLB flush that waits for translations
 *                                  in use (taken under ptl; takes nothing).
 * Lock-free:
 *   - the VMA tree under rcu_read_lock (lookups re-validate under the VMA lock:
 *     the tree's arrays are freed through RCU, VMAs too or, with
 *     vm_area_cache=typesafe, reused at once from a SLAB_TYPESAFE_BY_RCU
 *     cache, so that the VMA locked may no longer be the one looked up);
 *   - page-table walks under rcu_read_lock (page-table pages are freed through
 *     RCU after being unhooked under mmap_lock held for write);
 *   - PTEs are atomic 64-bit words: the model "hardware" sets ACCESSED/DIRTY
 *     with cmpxchg, as a CPU does.
 */
#ifndef RCUVFS_MM_H
#define RCUVFS_MM_H
#include "vfs/vfs.h"

/* ------------------------------------------------------------------ */
/* geometry                                                            */
/* ------------------------------------------------------------------ */

#ifndef PAGE_SHIFT
#define PAGE_SHIFT 12
#endif
#ifndef PAGE_SIZE
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#endif
#ifndef PAGE_MASK
#define PAGE_MASK (~(PAGE_SIZE - 1))
#endif
/* Two levels, i386-like: a 2048-entry top level of 512-entry PTE pages. */
#define PTE_INDEX_BITS 9
#define PTRS_PER_PTE   (1UL << PTE_INDEX_BITS)
#define PGDIR_SHIFT    (PAGE_SHIFT + PTE_INDEX_BITS)
#define PGDIR_SIZE     (1UL << PGDIR_SHIFT)
#define PGDIR_MASK     (~(PGDIR_SIZE - 1))
#define PTRS_PER_PGD   2048UL
#define TASK_SIZE      (PTRS_PER_PGD * PGDIR_SIZE) /* 4 GiB model address space */
#define MMAP_MIN_ADDR  0x10000UL
#define MMAP_BASE      0x10000000UL /* get_unmapped_area searches upward from here */

/* ------------------------------------------------------------------ */
/* page-table entries                                                  */
/* ------------------------------------------------------------------ */
/*
 * A PTE is one 64-bit atomic word: a folio reference (mm_folio_to_pte) in
 * the high bits, these flags in the low ones.  PROTNONE without PRESENT is
 * x86's encoding of an inaccessible but populated entry: PROT_NONE VMAs and
 * NUMA hinting (told apart by the VMA's protection).
 */
typedef uint64_t pte_t;
#define _PAGE_PRESENT  0x01ULL
#define _PAGE_RW       0x02ULL
#define _PAGE_DIRTY    0x04ULL
#define _PAGE_ACCESSED 0x08ULL
#define _PAGE_PROTNONE 0x10ULL
#define _PAGE_SPECIAL  0x20ULL /* the shared zero page: no refcount, no rmap */
#define _PAGE_FLAGS    0x3fULL

static inline bool pte_none(pte_t pte)
{
	return pte == 0;
}
static inline bool pte_present(pte_t pte)
{
	return (pte & (_PAGE_PRESENT | _PAGE_PROTNONE)) != 0;
}
static inline bool pte_protnone(pte_t pte)
{
	return (pte & (_PAGE_PRESENT | _PAGE_PROTNONE)) == _PAGE_PROTNONE;
}
static inline bool pte_write(pte_t pte)
{
	return (pte & _PAGE_RW) != 0;
}
static inline bool pte_dirty(pte_t pte)
{
	return (pte & _PAGE_DIRTY) != 0;
}
static inline bool pte_young(pte_t pte)
{
	return (pte & _PAGE_ACCESSED) != 0;
}
static inline bool pte_special(pte_t pte)
{
	return (pte & _PAGE_SPECIAL) != 0;
}

/*
 * A page-table page.  ptes[] are read locklessly (under RCU) and written
 * with atomics; changes that depend on the old value hold ptl.  Freed
 * through RCU after being unhooked from the top level.
 */
struct pt_page {
	spinlock_t ptl;
	int nr_present; /* under ptl: populated entries (debug/teardown checks) */
	struct rcu_head rcu;
	pte_t ptes[PTRS_PER_PTE];
};

/* ------------------------------------------------------------------ */
/* VMA flags and the VMA                                               */
/* ------------------------------------------------------------------ */

#define VM_NONE		0x00000000UL
#define VM_READ		0x00000001UL
#define VM_WRITE	0x00000002UL
#define VM_EXEC		0x00000004UL
#define VM_SHARED	0x00000008UL
#define VM_MAYREAD	0x00000010UL
#define VM_MAYWRITE	0x00000020UL
#define VM_MAYEXEC	0x00000040UL
#define VM_MAYSHARE	0x00000080UL
#define VM_LOCKED	0x00002000UL
#define VM_DONTCOPY	0x00020000UL
#define VM_LOCKONFAULT	0x00080000UL /* with VM_LOCKED: lock pages as they fault in */
#define VM_LOCKED_MASK	(VM_LOCKED | VM_LOCKONFAULT)
#define VM_ACCOUNT	0x00100000UL /* charged to the commit (a private writable mapping) */
#define VM_NORESERVE	0x00200000UL /* MAP_NORESERVE: not charged */
#define VM_WIPEONFORK	0x02000000UL
#define VM_ACCESS_FLAGS (VM_READ | VM_WRITE | VM_EXEC)

struct anon_vma;
struct mm_struct;

struct vm_area_struct {
	/* bounds, pgoff, flags: written under mmap_lock (write) AND the VMA
	 * write-locked; read under either lock, or racily under RCU and then
	 * re-validated under the VMA read lock (lock_vma_under_rcu). */
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_pgoff; /* in pages: file offset, or vm_start>>PAGE_SHIFT for anon */
	unsigned long vm_flags;
	struct mm_struct *vm_mm;
	struct file *vm_file;		  /* NULL for anonymous; holds a reference */
	struct address_space *vm_mapping; /* vm_file's mapping (i_mmap member); NULL
					   * if anonymous (private /dev/zero too) */
	/* set once: under mmap_lock (write), or under mmap_lock (read) plus
	 * mm->page_table_lock (anon_vma_prepare; never under the VMA read lock
	 * alone: vmf_anon_prepare); cleared under mmap_lock (write) */
	struct anon_vma *anon_vma;
	struct list_head anon_vma_chain; /* anon_vma_chain.same_vma, same rules */
	/* per-VMA lock (Linux 6.4): write-locked while vm_lock_seq == mm_lock_seq */
	int vm_lock_seq; /* written by the writer holding mmap_lock (write)
			  * with the VMA's readers drained */
	/* vma_lock=rwsem (6.4-6.14): the rw_semaphore comes from its own cache,
	 * vma_lock_cachep (6.4's "mm: separate vma->lock from vm_area_struct"),
	 * allocated and freed with the VMA */
	bool detached; /* rwsem: removed from the tree; VMA write-locked */
	struct vma_lock *vm_lock;
	struct list_head shared; /* on vm_mapping's i_mmap list */
	struct rcu_head rcu;
	/*
	 * vma_lock=refcnt (6.15's vm_refcnt): 0 detached (not in the tree), 1
	 * attached, +1 per reader, +VMA_LOCK_OFFSET while a writer drains the
	 * readers.  Atomic.  Last, so that vm_area_dup and vm_area_alloc can
	 * copy or clear everything before it: with vm_area_cache=typesafe a
	 * stale reader may try to take a reference on the object at any time,
	 * and it must keep reading 0 until the VMA is attached.
	 */
	int vm_refcnt;
};

struct vma_lock {
	struct rw_semaphore lock;
};

/*
 * vm_refcnt's writer bit and the readers' limit (include/linux/mm_types.h,
 * 6.15): readers stop below VMA_LOCK_OFFSET, so a reader's inc-not-zero
 * fails while a writer has added it.
 */
#define VMA_LOCK_OFFSET 0x40000000
#define VMA_REF_LIMIT	(VMA_LOCK_OFFSET - 1)

/* A VMA out of the tree (munmap, merge, exit), or not yet in it. */
static inline bool vma_is_detached(const struct vm_area_struct *vma)
{
	if (rv_sw.vma_lock == VMA_LOCK_REFCNT)
		return __atomic_load_n(&vma->vm_refcnt, __ATOMIC_ACQUIRE) == 0;
	return READ_ONCE(vma->detached);
}

/*
 * The kernel's test is vm_ops == NULL; the model's is no page cache behind
 * the VMA: anonymous memory, and a private /dev/zero mapping, which keeps
 * its vm_file (mm/shmem.c mmap_zero).
 */
static inline bool vma_is_anonymous(const struct vm_area_struct *vma)
{
	return vma->vm_mapping == NULL;
}
static inline bool is_cow_mapping(unsigned long flags)
{
	return (flags & (VM_SHARED | VM_MAYWRITE)) == VM_MAYWRITE;
}
static inline bool vma_is_accessible(const struct vm_area_struct *vma)
{
	return (vma->vm_flags & VM_ACCESS_FLAGS) != 0;
}
static inline unsigned long vma_pages(const struct vm_area_struct *vma)
{
	return (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
}
static inline unsigned long linear_page_index(const struct vm_area_struct *vma, unsigned long addr)
{
	return ((addr - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
}

/* ------------------------------------------------------------------ */
/* the VMA tree                                                        */
/* ------------------------------------------------------------------ */
/*
 * A sorted array of VMA pointers published through RCU (binary search:
 * O(log n) lookups).  Writers hold mmap_lock for write; appending into spare
 * capacity is done in place (pointer stored before the release of nr), any
 * other change builds a new array and frees the old one after a grace
 * period.  Lookups under RCU may see a VMA whose bounds are being changed or
 * that was just detached: lock_vma_under_rcu re-validates under the VMA lock.
 */
struct vma_array;

/* ------------------------------------------------------------------ */
/* mm_struct                                                           */
/* ------------------------------------------------------------------ */

enum mm_counter_type {
	MM_FILEPAGES,  /* file folios mapped (private or shared) */
	MM_ANONPAGES,  /* anonymous folios */
	MM_SWAPENTS,   /* unused in the model (no swap) */
	MM_SHMEMPAGES, /* folios of shared file mappings */
	NR_MM_COUNTERS
};

struct mm_struct {
	struct rw_semaphore mmap_lock;
	int mm_lock_seq;	    /* written under mmap_lock (write) */
	int mm_users;		    /* atomic: tasks + mmget users */
	int mm_count;		    /* atomic: references to the struct */
	int map_count;		    /* VMAs; under mmap_lock */
	struct vma_array *mm_mt;    /* the VMA tree; RCU-published */
	spinlock_t page_table_lock; /* see the top of the file */
	struct pt_page **pgd;	    /* PTRS_PER_PGD entries, atomic pointers */
	long nr_ptes;		    /* atomic: page-table pages allocated */
	unsigned long mmap_base;
	unsigned long task_size;
	unsigned long def_flags; /* under mmap_lock (write): VM_LOCKED after mlockall(MCL_FUTURE) */
	int rss_mode;		 /* enum rss_counters_mode at creation */
	struct percpu_counter rss_stat[NR_MM_COUNTERS];
	/* the model TLB (mm/tlb.c): translations in use, counted per epoch */
	int tlb_epoch __attribute__((aligned(64))); /* atomic; flipped under tlb_flush_lock */
	long tlb_users[2];			    /* atomic: sections open, by epoch & 1 */
	spinlock_t tlb_flush_lock;		    /* serializes flushes that must wait */
	/* vma_lock=refcnt: a writer waits here for a VMA's readers to drain
	 * (the kernel's rcuwait mm->vma_writer_wait) */
	struct wait_queue_head vma_writer_wait;
};

/* ------------------------------------------------------------------ */
/* mmap_lock and per-VMA locks                                         */
/* ------------------------------------------------------------------ */

static inline void mmap_read_lock(struct mm_struct *mm)
{
	down_read(&mm->mmap_lock);
}
static inline bool mmap_read_trylock(struct mm_struct *mm)
{
	return down_read_trylock(&mm->mmap_lock) != 0;
}
static inline void mmap_read_unlock(struct mm_struct *mm)
{
	up_read(&mm->mmap_lock);
}
static inline void mmap_write_lock(struct mm_struct *mm)
{
	down_write(&mm->mmap_lock);
}
/*
 * Releasing mmap_lock for write releases every VMA write lock taken under
 * it: bump mm_lock_seq (release, paired with the acquire in vma_start_read)
 * before up_write.
 */
static inline void vma_end_write_all(struct mm_struct *mm)
{
	smp_store_release(&mm->mm_lock_seq, mm->mm_lock_seq + 1);
}
static inline void mmap_write_unlock(struct mm_struct *mm)
{
	vma_end_write_all(mm);
	up_write(&mm->mmap_lock);
}
static inline void mmap_write_downgrade(struct mm_struct *mm)
{
	vma_end_write_all(mm);
	downgrade_write(&mm->mmap_lock);
}
static inline void mmap_assert_write_locked(struct mm_struct *mm)
{
	(void)mm;
}

/*
 * Read-lock a VMA without mmap_lock, against the caller's mm (a VMA of a
 * typesafe cache may belong to another mm by now): 0, -EBUSY when it is
 * write-locked or contended (fall back to mmap_lock), -EAGAIN when it is
 * detached (vma_lock=refcnt only: look it up again).  Called under
 * rcu_read_lock.
 *
 * rwsem (6.4-6.14 vma_start_read): a trylock of vm_lock between two
 * checks of vm_lock_seq against mm_lock_seq; the recheck pairs with
 * vma_start_write's store of vm_lock_seq under the write lock.
 *
 * refcnt (6.15 vma_start_read in include/linux/mm.h, since 6.16
 * mm/mmap_lock.c): the early sequence check, then
 * __refcount_inc_not_zero_limited_acquire(vm_refcnt, VMA_REF_LIMIT), which
 * fails on a detached VMA (0: -EAGAIN) and while a writer holds
 * VMA_LOCK_OFFSET, then the sequence again.  A VMA now attached to another
 * mm is dropped here after pinning that mm (mmgrab): vma_refcount_put
 * wakes the VMA's mm, which could otherwise be freed under it (the fix
 * "mm: fix a UAF when vma->mm is freed after vma->vm_refcnt got dropped").
 */
int __vma_start_read(struct mm_struct *mm, struct vm_area_struct *vma);
/* Drop a read lock (vma_refcount_put for refcnt). */
void vma_end_read(struct vm_area_struct *vma);
/* A read lock on the caller's own VMA, or false (tests, and the API). */
static inline bool vma_start_read(struct vm_area_struct *vma)
{
	return __vma_start_read(vma->vm_mm, vma) == 0;
}
/* Caller holds mmap_lock for write.  Waits for readers of the VMA to leave. */
void vma_start_write(struct vm_area_struct *vma);
static inline bool vma_is_write_locked(struct vm_area_struct *vma)
{
	return READ_ONCE(vma->vm_lock_seq) == READ_ONCE(vma->vm_mm->mm_lock_seq);
}

/* ------------------------------------------------------------------ */
/* mm lifetime                                                         */
/* ------------------------------------------------------------------ */

struct mm_struct *mm_alloc(void);
void mmget(struct mm_struct *mm);
bool mmget_not_zero(struct mm_struct *mm);
void mmput(struct mm_struct *mm); /* last user: exit_mmap */
void mmgrab(struct mm_struct *mm);
void mmdrop(struct mm_struct *mm); /* last reference: free */
/* Give task `t` a fresh, empty address space (exec); drops its old one. */
int exec_mm(struct task_struct *t);
/* get_task_mm: a user reference on t's mm (mmput when done), or NULL. */
struct mm_struct *get_task_mm(struct task_struct *t);

int64_t get_mm_counter(struct mm_struct *mm, int member);
static inline int64_t get_mm_rss(struct mm_struct *mm)
{
	return get_mm_counter(mm, MM_FILEPAGES) + get_mm_counter(mm, MM_ANONPAGES) +
	       get_mm_counter(mm, MM_SHMEMPAGES);
}

/* ------------------------------------------------------------------ */
/* VMAs: lookup, mmap, munmap, mprotect                                */
/* ------------------------------------------------------------------ */

/* First VMA with vm_end > addr, or NULL.  mmap_lock held. */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);
/* The VMA containing addr, or NULL.  mmap_lock held. */
struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr);
/* The VMA containing addr, read-locked, found without mmap_lock; NULL: fall back. */
struct vm_area_struct *lock_vma_under_rcu(struct mm_struct *mm, unsigned long addr);
/* Lookup under RCU only (caller in rcu_read_lock; result may be stale). */
struct vm_area_struct *find_vma_rcu(struct mm_struct *mm, unsigned long addr);
int mm_map_count(struct mm_struct *mm);
/* The i-th VMA in address order (mmap_lock held), NULL past the end. */
struct vm_area_struct *mm_vma_at(struct mm_struct *mm, int i);
#define for_each_vma_idx(mm, i, vma) for ((i) = 0; ((vma) = mm_vma_at((mm), (i))) != NULL; (i)++)

/*
 * mmap: prot is PROT_*, flags MAP_PRIVATE or MAP_SHARED, with MAP_ANONYMOUS
 * (MAP_SHARED: a shmem file, shmem_zero_setup) or a file (and pgoff in
 * pages; the model's /dev/zero from dev_zero_open too), optionally MAP_FIXED.  Returns the address
 * or a negative errno.  Takes mmap_lock itself (vm_mmap); do_mmap expects it
 * held for write.
 */
long vm_mmap(struct mm_struct *mm, unsigned long addr, unsigned long len, int prot, int flags,
	     struct file *file, unsigned long pgoff);
long do_mmap(struct mm_struct *mm, unsigned long addr, unsigned long len, int prot, int flags,
	     struct file *file, unsigned long pgoff);
int vm_munmap(struct mm_struct *mm, unsigned long addr, unsigned long len);
int do_munmap(struct mm_struct *mm, unsigned long addr, unsigned long len);
int vm_mprotect(struct mm_struct *mm, unsigned long addr, unsigned long len, int prot);

/*
 * Shared anonymous memory (mm/shmem.c): give a VM_SHARED VMA without a
 * file (do_mmap of MAP_SHARED | MAP_ANONYMOUS, a MAP_SHARED mapping of
 * /dev/zero opened O_RDWR) an unlinked shmem file of its size on shm_mnt,
 * replacing any vm_file it held.  mmap_lock held for write; 0 or -ENOMEM.
 */
int shmem_zero_setup(struct vm_area_struct *vma);

/*
 * mlock (mm/mlock.c): VM_LOCKED on the VMAs of a range (split at its ends),
 * VMA by VMA up to a hole, then every page faulted in (a private writable
 * mapping is COW'd now, as populate_vma_page_range does).  Folios mapped
 * by a VM_LOCKED VMA are not reclaimed.  mlock2(MLOCK_ONFAULT) adds
 * VM_LOCKONFAULT and populates nothing.  mlockall(MCL_CURRENT) locks
 * every VMA, MCL_FUTURE every later mmap (mm->def_flags), MCL_ONFAULT
 * with either makes it on-fault.  Children of fork inherit neither flag.
 * No RLIMIT_MEMLOCK (as with CAP_IPC_LOCK).  0, -ENOMEM (a hole in the
 * range, a PROT_NONE VMA, or a page that could not be faulted), -EINVAL.
 */
int vm_mlock(struct mm_struct *mm, unsigned long addr, unsigned long len);
int vm_mlock2(struct mm_struct *mm, unsigned long addr, unsigned long len, unsigned int flags);
int vm_munlock(struct mm_struct *mm, unsigned long addr, unsigned long len);
int vm_mlockall(struct mm_struct *mm, int flags);
int vm_munlockall(struct mm_struct *mm);

/*
 * madvise (mm/madvise.c, after Linux 6.18): MADV_DONTNEED, MADV_FREE,
 * MADV_DONTFORK/DOFORK, MADV_WIPEONFORK/KEEPONFORK, MADV_NORMAL; other
 * advice -EINVAL.  Takes its locks itself (the per-VMA lock or mmap_lock).
 * 0, -EINVAL (bad advice, unaligned start, wrapping length, an advice a
 * VMA refuses), -ENOMEM (a hole: reported after the mapped parts got the
 * advice).
 */
int do_madvise(struct mm_struct *mm, unsigned long start, size_t len_in, int behavior);

/*
 * mremap (mm/mremap.c, after Linux 6.18): shrink, grow in place, move
 * (MREMAP_MAYMOVE), to a fixed address (MREMAP_FIXED; with the same
 * length, several VMAs at once), or keeping the source mapped and empty
 * (MREMAP_DONTUNMAP).  Takes mmap_lock itself.  The new address, or
 * -EINVAL, -EFAULT (no VMA at addr, a source past its VMA), -ENOMEM
 * (cannot grow in place without MREMAP_MAYMOVE, no room, no memory).
 */
long do_mremap(struct mm_struct *mm, unsigned long addr, unsigned long old_len,
	       unsigned long new_len, unsigned long flags, unsigned long new_addr);

/*
 * msync (mm/msync.c, after Linux 6.18): MS_SYNC writes back the files of
 * the shared file (and shmem) VMAs of the range; MS_ASYNC and
 * MS_INVALIDATE only check.  Takes mmap_lock itself.  0, -EINVAL (bad
 * flags, MS_SYNC with MS_ASYNC, unaligned start), -ENOMEM (a wrapping
 * end, a hole in the range: at once with MS_ASYNC alone, else after the
 * walk), -EBUSY (MS_INVALIDATE on a VM_LOCKED VMA), or the writeback's
 * error.
 */
int do_msync(struct mm_struct *mm, unsigned long start, size_t len, int flags);

/* ------------------------------------------------------------------ */
/* page tables                                                         */
/* ------------------------------------------------------------------ */

/* Lockless walk (caller in rcu_read_lock): the PTE slot or NULL if no table. */
pte_t *mm_pte_lookup(struct mm_struct *mm, unsigned long addr);
/* Read the PTE for addr (0 if none). */
pte_t mm_pte_read(struct mm_struct *mm, unsigned long addr);
long mm_nr_ptes(struct mm_struct *mm);

/* ------------------------------------------------------------------ */
/* faults                                                              */
/* ------------------------------------------------------------------ */

typedef unsigned int vm_fault_t;
#define VM_FAULT_OOM	   0x0001
#define VM_FAULT_SIGBUS	   0x0002
#define VM_FAULT_MAJOR	   0x0004
#define VM_FAULT_SIGSEGV   0x0040
#define VM_FAULT_NOPAGE	   0x0100 /* nothing installed: the access retries */
#define VM_FAULT_RETRY	   0x0400 /* retry under mmap_lock (or again) */
#define VM_FAULT_COMPLETED 0x4000
#define VM_FAULT_ERROR	   (VM_FAULT_OOM | VM_FAULT_SIGBUS | VM_FAULT_SIGSEGV)

#define FAULT_FLAG_WRITE	  0x01
#define FAULT_FLAG_TRIED	  0x20
#define FAULT_FLAG_ORIG_PTE_VALID 0x800 /* a page table existed: orig_pte was read */
#define FAULT_FLAG_VMA_LOCK	  0x1000

/* Handle one fault on a VMA held by mmap_lock or its read lock (FAULT_FLAG_VMA_LOCK). */
vm_fault_t handle_mm_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags);
/*
 * The architecture's fault entry: per-VMA lock first, mmap_lock fallback.
 * Returns 0, -EFAULT (no VMA or access denied), -ENOMEM, or -EIO.
 */
int handle_page_fault(struct mm_struct *mm, unsigned long address, unsigned int flags);

/*
 * Model memory access: copy to/from model addresses page by page, each page
 * found by a lockless page-table walk (a TLB miss) that takes a folio
 * reference, faulting when the walk finds no usable PTE.  0 or -errno.
 * When mm is not the calling task's (a remote access, as access_remote_vm)
 * the caller holds an mm_users reference and the access runs under
 * mmap_lock for read.
 */
int mm_access(struct mm_struct *mm, unsigned long addr, void *buf, size_t len, bool write);
int rv_mm_read(unsigned long addr, void *buf, size_t len);	  /* current->mm */
int rv_mm_write(unsigned long addr, const void *buf, size_t len); /* current->mm */

/*
 * NUMA hinting: make present PTEs of [start, end) PROTNONE so the next
 * access takes a NUMA-hint fault (change_prot_numa).  Holds the PTE lock
 * across each ptep_modify_prot_start..commit window (injection point
 * "numa_prot_window").  Returns the number of PTEs changed.
 */
long change_prot_numa(struct vm_area_struct *vma, unsigned long start, unsigned long end);

/* ------------------------------------------------------------------ */
/* reverse mapping                                                     */
/* ------------------------------------------------------------------ */

struct anon_vma {
	struct anon_vma *root;	   /* the root of this tree: its rwsem is the tree's lock */
	struct anon_vma *parent;   /* holds a reference; NULL for a root */
	int refcount;		   /* atomic: one per chain link, one per child */
	struct rw_semaphore rwsem; /* used in the root only */
	struct list_head head;	   /* anon_vma_chain.same_anon_vma, under root->rwsem */
	struct rcu_head rcu;
};

struct anon_vma_chain {
	struct vm_area_struct *vma;
	struct anon_vma *anon_vma;
	struct list_head same_vma;	/* on vma->anon_vma_chain */
	struct list_head same_anon_vma; /* on anon_vma->head, under root->rwsem */
};

int anon_vma_prepare(struct vm_area_struct *vma);
int anon_vma_clone(struct vm_area_struct *dst, struct vm_area_struct *src);
int anon_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma);
void unlink_anon_vmas(struct vm_area_struct *vma);

/*
 * rmap walk: call fn for every (VMA, address) whose PTE maps `folio`
 * (anonymous: the anon_vma tree; file: the mapping's i_mmap).  fn returns
 * false to stop.  Returns the number of mappings found.  The caller holds a
 * folio reference.
 */
typedef bool (*rmap_one_fn)(struct folio *folio, struct vm_area_struct *vma, unsigned long addr,
			    void *arg);
int rmap_walk(struct folio *folio, rmap_one_fn fn, void *arg);

/* ------------------------------------------------------------------ */
/* folios as mm sees them                                              */
/* ------------------------------------------------------------------ */
/*
 * mm reaches folios only through these functions (mm/folio.c), so the
 * anonymous allocator can be pointed at the VFS's page cache folios.
 */
struct folio *mm_folio_from_pte(pte_t pte);
void *mm_folio_data(struct folio *folio);
int mm_folio_mapcount(struct folio *folio);
int mm_folio_refcount(struct folio *folio);
bool mm_folio_is_anon(struct folio *folio);
struct folio *mm_zero_folio(void);
void mm_folio_get(struct folio *folio);
void mm_folio_put(struct folio *folio);
/* Anonymous folios currently allocated (leak checks). */
long mm_anon_folios_live(void);

/* ------------------------------------------------------------------ */
/* fork                                                                */
/* ------------------------------------------------------------------ */

/* Copy oldmm's VMAs and page tables into the new mm (both write-locked inside). */
int dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm);
/* Whether fork must copy this VMA's page tables (else the child faults lazily). */
bool vma_needs_copy(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma);

/* ------------------------------------------------------------------ */
/* reclaim and NUMA hinting                                            */
/* ------------------------------------------------------------------ */

/* Reclaim up to nr page-cache folios (unmap, write back, remove). */
long mm_reclaim_folios(long nr);
/* Page-cache folios on the LRU. */
long mm_lru_pages(void);
/* One NUMA-hinting scan of every accessible VMA (mmap_lock read). */
long task_numa_work(struct mm_struct *mm);

/* ------------------------------------------------------------------ */
/* diagnostics                                                         */
/* ------------------------------------------------------------------ */

struct mm_objects {
	long mms, vmas, anon_vmas, avcs, pt_pages, anon_folios;
};
void mm_objects_count(struct mm_objects *o);
/* Check the tree's invariants (sorted, disjoint, bounds); 0 or -EINVAL with a message. */
int mm_validate(struct mm_struct *mm);

#endif /* RCUVFS_MM_H */
