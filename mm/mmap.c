// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/mmap.c - mm_struct lifetime, the VMA tree, per-VMA write locks,
 * mmap/munmap/mprotect with splitting and merging, and the mm subsystem's
 * instance lifecycle.
 *
 * Locking (see mm/mm.h for the whole picture):
 *   - The VMA tree (mm->mm_mt) and each VMA's bounds/flags/pgoff change only
 *     with mmap_lock held for write, and a VMA is write-locked
 *     (vma_start_write) before anything of it changes, so that faults
 *     holding its per-VMA read lock never see it change under them.
 *   - New VMAs are born write-locked: vm_lock_seq = mm->mm_lock_seq of the
 *     mmap_lock write section that creates them (they never take vm_lock).
 *   - The per-VMA lock is vma_lock=rwsem (6.4-6.14: an rw_semaphore from
 *     vma_lock_cachep) or vma_lock=refcnt (6.15: vm_refcnt; a VMA is
 *     attached, refcount 1, when it enters the tree and detached, 0, when
 *     it leaves; vma_start_write and vma_mark_detached add VMA_LOCK_OFFSET
 *     and sleep on mm->vma_writer_wait until the readers are gone).
 *   - Lookups without mmap_lock (lock_vma_under_rcu) run under RCU; retired
 *     tree arrays are freed through RCU.  VMAs are freed after a grace
 *     period (vm_area_cache=rcu, sheaves) or at once into a
 *     SLAB_TYPESAFE_BY_RCU cache (typesafe, typesafe-sheaves): a VMA found
 *     under RCU may then be another VMA by the time it is locked, which
 *     lock_vma_under_rcu rechecks (mm and range) once it holds the lock.
 *   - mm_users / mm_count are atomics; the last mmput tears the address
 *     space down (exit_mmap), the last mmdrop frees the struct.
 */
#include "mm/internal.h"
#include "mm/testing.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef PROT_SEM
#define PROT_SEM 0x8 /* asm-generic/mman-common.h; glibc leaves it out */
#endif

struct kmem_cache *vm_area_cachep;
struct kmem_cache *vma_lock_cachep; /* vma_lock=rwsem: 6.4-6.14's vma_lock_cachep */
struct kmem_cache *mm_cachep;
struct kmem_cache *anon_vma_cachep;
struct kmem_cache *anon_vma_chain_cachep;
struct kmem_cache *pt_page_cachep;
/*
 * VMA tree nodes: arrays of up to VMA_NODE_SLOTS entries come from their own
 * cache and are freed with kfree_rcu, as maple nodes are (lib/maple_tree.c
 * mt_free_rcu; 6.18 gives maple_node_cache sheaves and frees nodes with
 * kfree_rcu), so slab= reaches mmap and munmap.  Larger arrays are malloc'd
 * and freed with call_rcu.
 */
#define VMA_NODE_SLOTS 16
struct kmem_cache *vma_node_cachep;
long mm_live;

RV_STAT_DEFINE(vma_write_locks, "VMAs write-locked by vma_start_write (slow path taken)");
RV_STAT_DEFINE(
    vma_detach_waits,
    "vma_mark_detached found a reader's temporary reference and waited (vma_lock=refcnt)");
RV_STAT_DEFINE(vma_merges, "VMAs merged into a neighbour");
RV_STAT_DEFINE(vma_splits, "VMA splits");
RV_STAT_DEFINE(mm_bad_rss, "mm_structs freed with a non-zero RSS counter (bug)");

/* ------------------------------------------------------------------ */
/* per-VMA write lock                                                  */
/* ------------------------------------------------------------------ */

/*
 * vm_refcnt's writer side (mm/memory.c, 6.15; mm/mmap_lock.c since 6.16).
 * __vma_enter_locked adds VMA_LOCK_OFFSET unless the count is 0 (a
 * detached VMA: only vma_mark_attached raises it, and mmap_lock excludes
 * that), which makes every later reader's limited inc-not-zero fail, then
 * sleeps until only the writer (and the tree's reference, unless detaching)
 * is left.  __vma_exit_locked takes the offset off again; it returns true
 * when that left 0, i.e. the VMA is detached.
 */
static bool __vma_enter_locked(struct vm_area_struct *vma, bool detaching)
{
	struct mm_struct *mm = vma->vm_mm;
	int tgt = VMA_LOCK_OFFSET + (detaching ? 0 : 1);
	int old = __atomic_load_n(&vma->vm_refcnt, __ATOMIC_RELAXED);

	do {
		if (!old)
			return false;
	} while (!__atomic_compare_exchange_n(&vma->vm_refcnt, &old, old + VMA_LOCK_OFFSET, true,
					      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	if (!RV_MUTANT(vma_enter_locked_no_wait))
		wait_event(&mm->vma_writer_wait,
			   __atomic_load_n(&vma->vm_refcnt, __ATOMIC_ACQUIRE) == tgt);
	return true;
}

static bool __vma_exit_locked(struct vm_area_struct *vma)
{
	return __atomic_sub_fetch(&vma->vm_refcnt, VMA_LOCK_OFFSET, __ATOMIC_ACQ_REL) == 0;
}

void vma_start_write(struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	int seq = mm->mm_lock_seq;

	if (vma->vm_lock_seq == seq)
		return;		      /* already write-locked in this mmap_lock section */
	RV_INJECT("vma_start_write"); /* about to wait for the VMA's readers */
	if (rv_sw.vma_lock == VMA_LOCK_REFCNT) {
		/* __vma_start_write (6.15): a detached VMA has no readers to wait for */
		bool locked = __vma_enter_locked(vma, false);

		WRITE_ONCE(vma->vm_lock_seq, seq);
		if (locked)
			__vma_exit_locked(vma); /* stays attached: the tree's reference */
	} else {
		/* wait for the VMA's readers (faults) to leave, then mark it */
		down_write(&vma->vm_lock->lock);
		WRITE_ONCE(vma->vm_lock_seq, seq);
		up_write(&vma->vm_lock->lock);
	}
	rv_stat_inc(vma_write_locks);
}

/*
 * vma_mark_attached / vma_mark_detached (include/linux/mm.h and
 * mm/memory.c, 6.15): a VMA entering the tree gets its reference (a
 * release store of 1: a reader that takes a reference sees the VMA
 * initialized); one leaving drops it and, if a reader still holds a
 * temporary reference (it will see the VMA write-locked, or of another mm,
 * and drop it), waits for it.  vma_lock=rwsem keeps the detached flag.
 */
static void vma_mark_attached(struct vm_area_struct *vma)
{
	if (rv_sw.vma_lock == VMA_LOCK_REFCNT)
		__atomic_store_n(&vma->vm_refcnt, 1, __ATOMIC_RELEASE);
	else
		WRITE_ONCE(vma->detached, false);
}

static void vma_mark_detached(struct vm_area_struct *vma)
{
	if (rv_sw.vma_lock != VMA_LOCK_REFCNT) {
		WRITE_ONCE(vma->detached, true);
		return;
	}
	if (__atomic_sub_fetch(&vma->vm_refcnt, 1, __ATOMIC_ACQ_REL) != 0) {
		rv_stat_inc(vma_detach_waits);
		if (__vma_enter_locked(vma, true))
			__vma_exit_locked(vma);
	}
}

/* ------------------------------------------------------------------ */
/* VMA objects                                                         */
/* ------------------------------------------------------------------ */

static bool vm_area_typesafe(void)
{
	return rv_sw.vm_area_cache == VM_AREA_CACHE_TYPESAFE ||
	       rv_sw.vm_area_cache == VM_AREA_CACHE_TYPESAFE_SHEAVES;
}

/*
 * Everything up to vm_refcnt; vm_refcnt itself is left alone, at 0: a VMA
 * being set up is detached, and a stale reader of a typesafe cache that
 * tries it fails its inc-not-zero (6.15's vma_init clears the object, its
 * vm_area_init_from copies field by field for the same reason).
 */
#define VMA_BEFORE_REFCNT offsetof(struct vm_area_struct, vm_refcnt)

/* 6.4-6.14 vma_lock_alloc: the rw_semaphore from its own cache */
static int vma_lock_alloc(struct vm_area_struct *vma)
{
	vma->vm_lock = NULL;
	if (rv_sw.vma_lock != VMA_LOCK_RWSEM)
		return 0;
	vma->vm_lock = kmem_cache_alloc(vma_lock_cachep);
	if (!vma->vm_lock)
		return -ENOMEM;
	init_rwsem(&vma->vm_lock->lock);
	return 0;
}

static void vma_init_common(struct vm_area_struct *vma, struct mm_struct *mm)
{
	vma->vm_mm = mm;
	INIT_LIST_HEAD(&vma->anon_vma_chain);
	INIT_LIST_HEAD(&vma->shared);
	vma->detached = true; /* until it enters the tree */
	/* born write-locked: the caller holds mmap_lock for write */
	vma->vm_lock_seq = mm->mm_lock_seq;
}

struct vm_area_struct *vm_area_alloc(struct mm_struct *mm)
{
	struct vm_area_struct *vma = kmem_cache_alloc(vm_area_cachep);

	if (!vma)
		return NULL;
	memset(vma, 0, VMA_BEFORE_REFCNT);
	/* 0 already if the object was a VMA (freed detached); a stale reader
	 * never changes a 0, so storing it races with nobody */
	__atomic_store_n(&vma->vm_refcnt, 0, __ATOMIC_RELAXED);
	if (vma_lock_alloc(vma)) {
		kmem_cache_free(vm_area_cachep, vma);
		return NULL;
	}
	vma_init_common(vma, mm);
	return vma;
}

struct vm_area_struct *vm_area_dup(struct vm_area_struct *orig)
{
	struct vm_area_struct *vma = kmem_cache_alloc(vm_area_cachep);

	if (!vma)
		return NULL;
	memcpy(vma, orig, VMA_BEFORE_REFCNT);
	__atomic_store_n(&vma->vm_refcnt, 0, __ATOMIC_RELAXED);
	if (vma_lock_alloc(vma)) {
		kmem_cache_free(vm_area_cachep, vma);
		return NULL;
	}
	vma_init_common(vma, orig->vm_mm);
	if (vma->vm_file)
		mm_file_get(vma->vm_file);
	return vma;
}

static void __vm_area_free(struct vm_area_struct *vma)
{
	if (vma->vm_lock)
		kmem_cache_free(vma_lock_cachep, vma->vm_lock);
	kmem_cache_free(vm_area_cachep, vma);
}

static void vm_area_free_rcu_cb(struct rcu_head *head)
{
	__vm_area_free(container_of(head, struct vm_area_struct, rcu));
}

/*
 * vm_area_free, per vm_area_cache:
 *   rcu       call_rcu, then free (6.4-6.14 vm_area_free_rcu_cb with the
 *             vm_lock beside it);
 *   sheaves   kfree_rcu into the cache's rcu_free sheaf (the sheaves RFC's
 *             vm_area_struct cache, which could not be typesafe as well);
 *   typesafe, typesafe-sheaves
 *             kmem_cache_free at once (6.15 vm_area_free; 6.18 adds
 *             sheaf_capacity to the same SLAB_TYPESAFE_BY_RCU cache).
 * The VMA is detached (refcount 0) by then.
 */
void vm_area_free(struct vm_area_struct *vma)
{
	switch (rv_sw.vm_area_cache) {
	case VM_AREA_CACHE_RCU:
		rv_call_rcu(&vma->rcu, vm_area_free_rcu_cb);
		break;
	case VM_AREA_CACHE_SHEAVES:
		if (vma->vm_lock)
			kmem_cache_free_rcu(vma_lock_cachep, vma->vm_lock);
		kmem_cache_free_rcu(vm_area_cachep, vma);
		break;
	default:
		__vm_area_free(vma);
		break;
	}
}

void vm_area_free_unpublished(struct vm_area_struct *vma)
{
	__vm_area_free(vma);
}

/* Detach a write-locked VMA already out of the tree and free it. */
static void remove_vma(struct vm_area_struct *vma)
{
	vma_mark_detached(vma);
	unlink_anon_vmas(vma);
	vma_unlink_file(vma);
	if (vma->vm_file)
		mm_file_put_deferred(vma->vm_file);
	vm_area_free(vma);
}

/* ------------------------------------------------------------------ */
/* the VMA tree: an RCU-published sorted array                         */
/* ------------------------------------------------------------------ */

static void vma_array_free_rcu(struct rcu_head *head)
{
	free(container_of(head, struct vma_array, rcu));
}

static struct vma_array *vma_array_alloc(int cap)
{
	struct vma_array *a;

	if (cap <= VMA_NODE_SLOTS) {
		cap = VMA_NODE_SLOTS;
		a = kmem_cache_alloc(vma_node_cachep);
	} else {
		a = rv_malloc("vma_array", sizeof(*a) + (size_t)cap * sizeof(a->v[0]));
	}

	if (a) {
		a->nr = 0;
		a->cap = cap;
	}
	return a;
}

/* Free a retired (unpublished) array after a grace period. */
static void vma_array_free(struct vma_array *a)
{
	if (a->cap == VMA_NODE_SLOTS)
		kmem_cache_free_rcu(vma_node_cachep, a);
	else
		rv_call_rcu(&a->rcu, vma_array_free_rcu);
}

static inline int vma_nr(struct mm_struct *mm)
{
	return mm->mm_mt ? mm->mm_mt->nr : 0;
}

/*
 * Replace nremove entries at lo with nins new ones.  mmap_lock held for
 * write.  Appending into spare room is in place (entries stored before the
 * release of nr, paired with the acquire in find_vma_rcu); anything else
 * publishes a new array and retires the old one through RCU.
 */
static int vma_tree_splice(struct mm_struct *mm, int lo, int nremove, struct vm_area_struct **ins,
			   int nins)
{
	struct vma_array *old = mm->mm_mt, *a;
	int nr = old ? old->nr : 0;
	int newnr = nr - nremove + nins;

	if (old && nremove == 0 && lo == nr && newnr <= old->cap) {
		for (int k = 0; k < nins; k++) {
			vma_mark_attached(
			    ins[k]); /* vma_iter_store: attached as it enters the tree */
			__atomic_store_n(&old->v[nr + k], ins[k], __ATOMIC_RELEASE);
		}
		smp_store_release(&old->nr, newnr);
		return 0;
	}
	a = vma_array_alloc(newnr < 8 ? 16 : newnr * 2);
	if (!a)
		return -ENOMEM;
	for (int k = 0; k < nins; k++)
		vma_mark_attached(ins[k]);
	if (lo)
		memcpy(a->v, old->v, (size_t)lo * sizeof(a->v[0]));
	if (nins)
		memcpy(a->v + lo, ins, (size_t)nins * sizeof(a->v[0]));
	if (nr - lo - nremove > 0)
		memcpy(a->v + lo + nins, old->v + lo + nremove,
		       (size_t)(nr - lo - nremove) * sizeof(a->v[0]));
	a->nr = newnr;
	rcu_assign_pointer(mm->mm_mt, a);
	if (old)
		vma_array_free(old);
	return 0;
}

int vma_tree_append(struct mm_struct *mm, struct vm_area_struct *vma)
{
	int ret = vma_tree_splice(mm, vma_nr(mm), 0, &vma, 1);

	if (!ret)
		mm->map_count++;
	return ret;
}

/* First index whose VMA ends above addr (n if none).  Racy-safe under RCU. */
static int vma_array_search(struct vma_array *a, int n, unsigned long addr)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		struct vm_area_struct *v = __atomic_load_n(&a->v[mid], __ATOMIC_ACQUIRE);

		if (READ_ONCE(v->vm_end) > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static int find_vma_idx(struct mm_struct *mm, unsigned long addr)
{
	struct vma_array *a = mm->mm_mt;

	return a ? vma_array_search(a, a->nr, addr) : 0;
}

struct vm_area_struct *mm_vma_at(struct mm_struct *mm, int i)
{
	struct vma_array *a = mm->mm_mt;

	return (a && i >= 0 && i < a->nr) ? a->v[i] : NULL;
}

int mm_map_count(struct mm_struct *mm)
{
	return vma_nr(mm);
}

struct vm_area_struct *vma_prev_of(struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;

	return mm_vma_at(mm, find_vma_idx(mm, vma->vm_start) - 1);
}

struct vm_area_struct *vma_next_of(struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;

	return mm_vma_at(mm, find_vma_idx(mm, vma->vm_start) + 1);
}

struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	return mm_vma_at(mm, find_vma_idx(mm, addr));
}

struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma = find_vma(mm, addr);

	return (vma && vma->vm_start <= addr) ? vma : NULL;
}

struct vm_area_struct *find_vma_rcu(struct mm_struct *mm, unsigned long addr)
{
	struct vma_array *a = rcu_dereference(mm->mm_mt);
	int n, i;

	if (!a)
		return NULL;
	n = smp_load_acquire(&a->nr);
	i = vma_array_search(a, n, addr);
	return i < n ? __atomic_load_n(&a->v[i], __ATOMIC_ACQUIRE) : NULL;
}

RV_STAT_DEFINE(vma_lock_misses, "lock_vma_under_rcu failures (fall back to mmap_lock)");
RV_STAT_DEFINE(
    vma_lock_replaced,
    "lock_vma_under_rcu lookups retried: the VMA was detached (the kernel's VMA_LOCK_MISS)");
RV_STAT_DEFINE(vma_lock_recycled,
	       "lock_vma_under_rcu locked a VMA that is no longer this mm's at that address "
	       "(reused from a typesafe cache, or its bounds changed): fall back to mmap_lock");

static bool vma_refcount_inc_limited(struct vm_area_struct *vma, int *oldp)
{
	/* __refcount_inc_not_zero_limited_acquire(&vma->vm_refcnt, &old, VMA_REF_LIMIT) */
	int old = __atomic_load_n(&vma->vm_refcnt, __ATOMIC_RELAXED);

	do {
		if (!old || old + 1 > VMA_REF_LIMIT) {
			*oldp = old;
			return false;
		}
	} while (!__atomic_compare_exchange_n(&vma->vm_refcnt, &old, old + 1, true,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	*oldp = old;
	return true;
}

/* vma_refcount_put (6.15): the last reader wakes a writer waiting alone */
static void vma_refcount_put(struct vm_area_struct *vma)
{
	/* vm_mm read first: once our reference is gone the VMA may be reused */
	struct mm_struct *mm = READ_ONCE(vma->vm_mm);
	int cnt = __atomic_sub_fetch(&vma->vm_refcnt, 1, __ATOMIC_ACQ_REL);

	/* is_vma_writer_only: the writer's offset and at most the tree's reference */
	if (cnt && (cnt & VMA_LOCK_OFFSET) && cnt <= VMA_LOCK_OFFSET + 1 &&
	    !RV_MUTANT(vma_refcount_put_no_wake))
		wake_up_all(&mm->vma_writer_wait);
}

int __vma_start_read(struct mm_struct *mm, struct vm_area_struct *vma)
{
	int oldcnt;

	/* the early check: a race may make it fail falsely, never succeed falsely */
	if (READ_ONCE(vma->vm_lock_seq) == READ_ONCE(mm->mm_lock_seq))
		return -EBUSY;
	if (rv_sw.vma_lock == VMA_LOCK_RWSEM) {
		if (!down_read_trylock(&vma->vm_lock->lock))
			return -EBUSY;
		rv_sched_point("vma_start_read: locked, before the recheck");
		if (!RV_MUTANT(vma_start_read_no_seq_recheck) &&
		    unlikely(READ_ONCE(vma->vm_lock_seq) == smp_load_acquire(&mm->mm_lock_seq))) {
			up_read(&vma->vm_lock->lock);
			return -EBUSY;
		}
		return 0;
	}
	rv_sched_point("vma_start_read: early check passed, before the reference");
	if (unlikely(!vma_refcount_inc_limited(vma, &oldcnt)))
		return oldcnt ? -EBUSY : -EAGAIN; /* -EAGAIN: detached under us */
	rv_sched_point("vma_start_read: referenced, before the recheck");
	if (unlikely(READ_ONCE(vma->vm_mm) != mm)) {
		/*
		 * Reused for another mm: pin that mm across the put, whose
		 * wake-up touches it (mm/mmap_lock.c vma_start_read since the
		 * UAF fix).  mmdrop is not for an RCU read section.
		 */
		struct mm_struct *other = READ_ONCE(vma->vm_mm);

		rcu_read_unlock();
		mmgrab(other);
		vma_refcount_put(vma);
		mmdrop(other);
		rcu_read_lock();
		rv_stat_inc(vma_lock_recycled);
		return -EBUSY;
	}
	/* acquire: pairs with vma_end_write_all's release of mm_lock_seq */
	if (!RV_MUTANT(vma_start_read_ref_no_seq_recheck) &&
	    unlikely(READ_ONCE(vma->vm_lock_seq) == smp_load_acquire(&mm->mm_lock_seq))) {
		vma_refcount_put(vma);
		return -EBUSY;
	}
	return 0;
}

void vma_end_read(struct vm_area_struct *vma)
{
	if (rv_sw.vma_lock == VMA_LOCK_REFCNT) {
		vma_refcount_put(vma);
		return;
	}
	/*
	 * Once our reader count is gone a writer may free the VMA (through
	 * call_rcu or kfree_rcu); up_read may still touch the semaphore's
	 * wait_lock after that, so keep the memory alive across it, as the
	 * kernel does.
	 */
	rcu_read_lock();
	up_read(&vma->vm_lock->lock);
	rcu_read_unlock();
}

/*
 * lock_vma_under_rcu (mm/memory.c, Linux 6.4 to 6.15; mm/mmap_lock.c since
 * 6.16): a VMA found detached was replaced by another one (munmap,
 * MAP_FIXED over it): count the miss and look again instead of falling
 * back to mmap_lock (6.4-6.14 sees vma->detached once the read lock is
 * held; 6.15's vma_start_read returns -EAGAIN when the reference count was
 * 0).  A failed lock falls back.  Once the lock is held the VMA is checked
 * to be this mm's and to cover addr: with a SLAB_TYPESAFE_BY_RCU cache the
 * object found under RCU may have been freed and reused as another VMA,
 * of this mm or another one, before the reference was taken (6.15's
 * "Check if the vma we locked is the right one"); it also catches bounds
 * that changed before the lock.  Such a VMA is a miss (the kernel's
 * VMA_LOCK_ABORT), counted vma_lock_recycled.
 */
#ifdef RCUVFS_EXPLORE
/*
 * The explorer's test-only variant: no range check after the lock (the
 * vma-reuse scenario shows what the check is for).  Only the explorer
 * build has it; the fault path of librcuvfs is unchanged.
 */
static bool vma_norecheck_test;
#define vma_range_recheck() (!vma_norecheck_test)

void lock_vma_under_rcu_norecheck_for_test(bool on)
{
	vma_norecheck_test = on;
}

/* mremap's move_vma without the source VMA's write lock (mm/mremap.c) */
bool mremap_nolock_test;

void mremap_nolock_for_test(bool on)
{
	mremap_nolock_test = on;
}
#else
#define vma_range_recheck() true
#endif

struct vm_area_struct *lock_vma_under_rcu(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;
	int r;

	rv_rcu_ensure();
retry:
	rcu_read_lock();
	vma = find_vma_rcu(mm, addr);
	if (!vma || addr < READ_ONCE(vma->vm_start))
		goto miss;
	RV_INJECT("lock_vma_under_rcu");
	r = __vma_start_read(mm, vma);
	if (r == -EAGAIN) {
		rcu_read_unlock();
		rv_stat_inc(vma_lock_replaced);
		goto retry; /* the area was replaced with another one */
	}
	if (r)
		goto miss;
	/* the lock is held: the VMA cannot change or be freed under us now */
	if (unlikely(READ_ONCE(vma->vm_mm) != mm ||
		     (vma_range_recheck() && (addr < vma->vm_start || addr >= vma->vm_end)))) {
		vma_end_read(vma);
		rv_stat_inc(vma_lock_recycled);
		goto miss;
	}
	if (unlikely(vma_is_detached(vma)) && !RV_MUTANT(lock_vma_detached_no_retry)) {
		/* vma_lock=rwsem: detached while we took the lock */
		vma_end_read(vma);
		rcu_read_unlock();
		rv_stat_inc(vma_lock_replaced);
		goto retry;
	}
	/*
	 * anon_vma_fault=refuse, Linux 6.4's lock_vma_under_rcu: only
	 * anonymous VMAs, and only those that already have an anon_vma
	 * ("find_mergeable_anon_vma uses adjacent vmas which are not
	 * locked"); everything else faults under mmap_lock.  6.7+ takes
	 * every VMA and leaves the anon_vma to vmf_anon_prepare.
	 */
	if (rv_sw.anon_vma_fault == ANON_VMA_FAULT_REFUSE &&
	    (!vma_is_anonymous(vma) || !READ_ONCE(vma->anon_vma))) {
		vma_end_read(vma);
		goto miss;
	}
	rcu_read_unlock();
	return vma;
miss:
	rcu_read_unlock();
	rv_stat_inc(vma_lock_misses);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* mm_struct lifetime                                                  */
/* ------------------------------------------------------------------ */

struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = kmem_cache_zalloc(mm_cachep);
	int ret;

	if (!mm)
		return NULL;
	mm->pgd = rv_calloc("pgd", PTRS_PER_PGD, sizeof(mm->pgd[0]));
	if (!mm->pgd)
		goto fail;
	init_rwsem(&mm->mmap_lock);
	spin_lock_init(&mm->page_table_lock);
	spin_lock_init(&mm->tlb_flush_lock);
	init_waitqueue_head(&mm->vma_writer_wait);
	mm->mm_users = 1;
	mm->mm_count = 1;
	mm->mmap_base = MMAP_BASE;
	mm->task_size = TASK_SIZE;
	mm->rss_mode = rv_sw.rss_counters;
	if (mm->rss_mode == RSS_COUNTERS_SINGLE) {
		/* one registration (one global-lock round trip) per counter */
		int i;

		for (i = 0; i < NR_MM_COUNTERS; i++) {
			ret = percpu_counter_init(&mm->rss_stat[i], 0);
			if (ret)
				break;
		}
		if (i < NR_MM_COUNTERS) {
			while (i--)
				percpu_counter_destroy(&mm->rss_stat[i]);
			goto fail;
		}
	} else {
		/* the group: one allocation, one acquisition (docs/history.md) */
		if (percpu_counter_init_many(mm->rss_stat, 0, NR_MM_COUNTERS))
			goto fail;
	}
	__atomic_fetch_add(&mm_live, 1, __ATOMIC_RELAXED);
	return mm;
fail:
	free(mm->pgd);
	kmem_cache_free(mm_cachep, mm);
	return NULL;
}

void mmgrab(struct mm_struct *mm)
{
	__atomic_fetch_add(&mm->mm_count, 1, __ATOMIC_RELAXED);
}

void mmget(struct mm_struct *mm)
{
	__atomic_fetch_add(&mm->mm_users, 1, __ATOMIC_RELAXED);
}

bool mmget_not_zero(struct mm_struct *mm)
{
	int c = __atomic_load_n(&mm->mm_users, __ATOMIC_RELAXED);

	do {
		if (!c)
			return false;
	} while (!__atomic_compare_exchange_n(&mm->mm_users, &c, c + 1, false, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	return true;
}

static void __mmdrop(struct mm_struct *mm)
{
	bool bad = false;

	for (int i = 0; i < NR_MM_COUNTERS; i++) {
		int64_t v = percpu_counter_sum(&mm->rss_stat[i]);

		if (v) {
			fprintf(stderr, "mm: BUG: bad rss-counter state mm:%p type:%d val:%lld\n",
				(void *)mm, i, (long long)v);
			bad = true;
		}
	}
	if (bad)
		rv_stat_inc(mm_bad_rss);
	if (mm->rss_mode == RSS_COUNTERS_SINGLE) {
		for (int i = 0; i < NR_MM_COUNTERS; i++)
			percpu_counter_destroy(&mm->rss_stat[i]);
	} else {
		percpu_counter_destroy_many(mm->rss_stat, NR_MM_COUNTERS);
	}
	free(mm->pgd);
	__atomic_fetch_sub(&mm_live, 1, __ATOMIC_RELAXED);
	kmem_cache_free(mm_cachep, mm);
}

void mmdrop(struct mm_struct *mm)
{
	if (__atomic_sub_fetch(&mm->mm_count, 1, __ATOMIC_ACQ_REL) == 0)
		__mmdrop(mm);
}

void mmput(struct mm_struct *mm)
{
	if (__atomic_sub_fetch(&mm->mm_users, 1, __ATOMIC_ACQ_REL) == 0) {
		exit_mmap(mm);
		mmdrop(mm);
	}
}

int64_t get_mm_counter(struct mm_struct *mm, int member)
{
	return percpu_counter_sum(&mm->rss_stat[member]);
}

void exit_mmap(struct mm_struct *mm)
{
	struct vma_array *a;
	struct vm_area_struct *vma;
	struct mmu_gather tlb;
	int i;

	/*
	 * The last user is gone: no fault can run, so no VMA write locks.
	 * rmap walkers (folio_mkclean from fsync, try_to_unmap from reclaim,
	 * unmap_mapping_range from truncate) still find the VMAs through
	 * i_mmap and the anon_vma chains and lock their page tables: as
	 * free_pgtables does (mm/memory.c, Linux 6.10: "Hide vma from rmap
	 * and truncate_pagecache before freeing pgtables"), unlink every VMA
	 * from both before the page tables go.  Unlinking a file VMA takes
	 * i_mmap_rwsem for write, so it waits for a walker that is inside
	 * the VMA's page table.  One mmu_gather for the whole mm, as
	 * exit_mmap's tlb_gather_mmu_fullmm.
	 */
	mmap_write_lock(mm);
	tlb_gather_mmu(&tlb, mm);
	for_each_vma_idx(mm, i, vma)
		zap_page_range_tlb(&tlb, vma, vma->vm_start, vma->vm_end, false);
	for_each_vma_idx(mm, i, vma) {
		unlink_anon_vmas(vma);
		vma_unlink_file(vma);
	}
	free_pgtables(mm, 0, TASK_SIZE);
	tlb_finish_mmu(&tlb);
	for_each_vma_idx(mm, i, vma)
		remove_vma(vma); /* already unlinked: the file reference and the VMA */
	a = mm->mm_mt;
	rcu_assign_pointer(mm->mm_mt, NULL);
	if (a)
		vma_array_free(a);
	mm->map_count = 0;
	mmap_write_unlock(mm);
	task_work_run(); /* the files' last fputs, outside mmap_lock (exit_task_work) */
}

/*
 * get_task_mm (kernel/fork.c, Linux 6.9): under task_lock, t->mm cannot be
 * cleared by exit_mm (or replaced by exec) and so still holds the task's
 * own mm_users reference: a plain mmget is safe.  Without the lock the mm
 * could be freed between the load and the get.
 */
struct mm_struct *get_task_mm(struct task_struct *t)
{
	struct mm_struct *mm;

	task_lock(t);
	mm = t->mm;
	RV_INJECT("get_task_mm");
	if (mm)
		mmget(mm);
	task_unlock(t);
	return mm;
}

int exec_mm(struct task_struct *t)
{
	struct mm_struct *mm = mm_alloc(), *old;

	if (!mm)
		return -ENOMEM;
	task_lock(t); /* exec_mmap */
	old = t->mm;
	WRITE_ONCE(t->mm, mm);
	task_unlock(t);
	if (old)
		mmput(old);
	return 0;
}

/* ------------------------------------------------------------------ */
/* split and merge                                                     */
/* ------------------------------------------------------------------ */

/*
 * vma_prepare / vma_complete (mm/vma.c, Linux 6.8; mm/mmap.c since 6.3):
 * the bounds of a VMA change under i_mmap_rwsem (write) of its file and
 * then the lock of its anon_vma, so file and anonymous rmap walkers (which
 * read vm_start/vm_end/vm_pgoff under those locks) see the old bounds or
 * the new ones.  The VMA itself is write-locked before: no fault runs in it.
 */
struct vma_prepare {
	struct address_space *mapping;
	struct anon_vma *anon_vma;
};

static void vma_prepare(struct vma_prepare *vp, struct vm_area_struct *vma)
{
	vp->mapping = vma->vm_mapping;
	vp->anon_vma = vma->anon_vma;
	if (vp->mapping)
		down_write(&vp->mapping->i_mmap_rwsem);
	if (vp->anon_vma)
		anon_vma_lock_write(vp->anon_vma);
}

static void vma_complete(struct vma_prepare *vp)
{
	if (vp->anon_vma)
		anon_vma_unlock_write(vp->anon_vma);
	if (vp->mapping)
		up_write(&vp->mapping->i_mmap_rwsem);
}

/*
 * Split v[i] at addr: v[i] keeps [start, addr), a new VMA at i+1 gets the
 * rest.  __split_vma: the VMA is write-locked before anything of it is read
 * (vm_area_dup copies its anon_vma): a fault under its read lock finishes
 * first, and no later one runs until mmap_lock is released.
 */
static int split_vma(struct mm_struct *mm, int i, unsigned long addr)
{
	struct vm_area_struct *vma = mm_vma_at(mm, i), *new;
	struct vma_prepare vp;
	int ret;

	if (!RV_MUTANT(split_vma_no_write_lock))
		vma_start_write(vma);
	new = vm_area_dup(vma);
	if (!new)
		return -ENOMEM;
	new->vm_start = addr;
	new->vm_pgoff += (addr - vma->vm_start) >> PAGE_SHIFT;
	INIT_LIST_HEAD(&new->anon_vma_chain);
	ret = anon_vma_clone(new, vma);
	if (ret)
		goto out_free;
	ret = vma_tree_splice(mm, i + 1, 0, &new, 1);
	if (ret) {
		unlink_anon_vmas(new);
		goto out_free;
	}
	/* lockless lookups of [addr, end) see either the old VMA (write
	 * locked: they fall back to mmap_lock) or the new one (born locked);
	 * rmap walkers see the bounds change and the new VMA at once */
	vma_prepare(&vp, vma);
	WRITE_ONCE(vma->vm_end, addr);
	if (new->vm_mapping)
		list_add_tail(&new->shared, &new->vm_mapping->i_mmap);
	vma_complete(&vp);
	mm->map_count++;
	rv_stat_inc(vma_splits);
	return 0;
out_free:
	if (new->vm_file)
		mm_file_put(new->vm_file);
	vm_area_free_unpublished(new);
	return ret;
}

/* What only mmap_lock (held for write) protects: bounds, flags, file, pgoff. */
static bool vma_mergeable_layout(struct vm_area_struct *a, struct vm_area_struct *b)
{
	if (a->vm_end != b->vm_start || a->vm_flags != b->vm_flags || a->vm_file != b->vm_file)
		return false;
	return a->vm_pgoff + vma_pages(a) == b->vm_pgoff;
}

/*
 * is_mergeable_anon_vma (mm/vma.c, Linux 6.18), for a pair: one anon_vma
 * must be able to describe both, so two different ones never merge; when
 * only one of them has an anon_vma, the merged VMA takes it (the kernel's
 * dup_anon_vma, or the target's own), which is refused for a fork child:
 * whether it is the VMA that changed (case 1) or the neighbour (case 2),
 * the result is the same.  So in a forked child an untouched VMA does not
 * merge with an inherited one that has anonymous pages, where the parent's
 * would.  (6.12's version also refused an anon_vma-less target: Jann
 * Horn's report, fixed in 6.16 by "mm/vma: fix incorrectly disallowed
 * anonymous VMA merges".)
 */
static bool is_mergeable_anon_vma(struct vm_area_struct *a, struct vm_area_struct *b)
{
	if (!a->anon_vma && b->anon_vma)
		return !vma_is_fork_child(b);
	if (a->anon_vma && !b->anon_vma)
		return !vma_is_fork_child(a);
	return a->anon_vma == b->anon_vma;
}

/*
 * Merge v[i] and v[i+1] if compatible; returns true if merged.  Both VMAs
 * are write-locked before their anon_vmas are read (vma_merge's
 * vma_start_write of every VMA it changes or removes), then the kept VMA
 * grows under vma_prepare's locks.
 */
static bool vma_merge_at(struct mm_struct *mm, int i)
{
	struct vm_area_struct *a = mm_vma_at(mm, i), *b = mm_vma_at(mm, i + 1);
	struct vma_prepare vp;

	if (!a || !b || !vma_mergeable_layout(a, b))
		return false;
	vma_start_write(a);
	if (!RV_MUTANT(vma_merge_no_write_lock_next))
		vma_start_write(b);
	if (!is_mergeable_anon_vma(a, b))
		return false;
	if (!a->anon_vma && b->anon_vma) {
		/* keep b (it owns the anon pages): it grows downward */
		if (vma_tree_splice(mm, i, 1, NULL, 0))
			return false;
		vma_prepare(&vp, b);
		WRITE_ONCE(b->vm_start, a->vm_start);
		b->vm_pgoff = a->vm_pgoff;
		if (a->vm_mapping)
			list_del_init(&a->shared);
		vma_complete(&vp);
		remove_vma(a);
	} else {
		if (vma_tree_splice(mm, i + 1, 1, NULL, 0))
			return false;
		vma_prepare(&vp, a);
		WRITE_ONCE(a->vm_end, b->vm_end);
		if (b->vm_mapping)
			list_del_init(&b->shared);
		vma_complete(&vp);
		remove_vma(b);
	}
	mm->map_count--;
	rv_stat_inc(vma_merges);
	return true;
}

/* ------------------------------------------------------------------ */
/* mmap                                                                */
/* ------------------------------------------------------------------ */

static unsigned long calc_vm_flags(int prot, int flags)
{
	unsigned long vm = 0;

	if (prot & PROT_READ)
		vm |= VM_READ;
	if (prot & PROT_WRITE)
		vm |= VM_WRITE;
	if (prot & PROT_EXEC)
		vm |= VM_EXEC;
	vm |= VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
	if ((flags & MAP_TYPE) == MAP_SHARED)
		vm |= VM_SHARED | VM_MAYSHARE;
	return vm;
}

static unsigned long get_unmapped_area(struct mm_struct *mm, unsigned long hint, unsigned long len)
{
	int n = vma_nr(mm);
	unsigned long addr;

	if (hint && hint >= MMAP_MIN_ADDR && hint + len <= TASK_SIZE && hint + len > hint) {
		struct vm_area_struct *v = find_vma(mm, hint);

		if (!v || v->vm_start >= hint + len)
			return hint;
	}
	/* fast path: above the last mapping */
	addr = n ? mm_vma_at(mm, n - 1)->vm_end : mm->mmap_base;
	if (addr < mm->mmap_base)
		addr = mm->mmap_base;
	if (addr + len <= TASK_SIZE)
		return addr;
	/* first gap from mmap_base upward */
	addr = mm->mmap_base;
	for (int i = find_vma_idx(mm, addr); i < n; i++) {
		struct vm_area_struct *v = mm_vma_at(mm, i);

		if (addr + len <= v->vm_start)
			return addr;
		addr = v->vm_end;
	}
	return addr + len <= TASK_SIZE ? addr : 0;
}

long do_mmap(struct mm_struct *mm, unsigned long addr, unsigned long len, int prot, int flags,
	     struct file *file, unsigned long pgoff)
{
	unsigned long vm_flags, end;
	struct vm_area_struct *vma, *prev, *next;
	int i, ret, type = flags & MAP_TYPE;
	bool new_object;

	if (!len)
		return -EINVAL;
	len = (len + PAGE_SIZE - 1) & PAGE_MASK;
	if (!len || len > TASK_SIZE)
		return -ENOMEM;
	if (type != MAP_PRIVATE && type != MAP_SHARED)
		return -EINVAL;
	if (flags & MAP_ANONYMOUS) {
		file = NULL; /* the kernel ignores the fd too */
	} else if (!file) {
		return -EBADF;
	}
	/*
	 * do_mmap (mm/mmap.c, Linux 6.x): the offset's overflow and the
	 * file's checks (file_mmap_ok against MAX_LFS_FILESIZE, the access
	 * mode) come before mmap_region, so a refused MAP_FIXED leaves what
	 * was mapped there.
	 */
	vm_flags = calc_vm_flags(prot, flags);
	if (file) {
		unsigned long maxsize = (unsigned long)file->f_inode->i_sb->s_maxbytes;

		if (pgoff + (len >> PAGE_SHIFT) < pgoff)
			return -EOVERFLOW;
		if (len > maxsize || pgoff > (maxsize - len) >> PAGE_SHIFT)
			return -EOVERFLOW;
		ret = mm_file_mmap_check(file, vm_flags);
		if (ret)
			return ret;
	}
	if (flags & MAP_FIXED) {
		if (addr & ~PAGE_MASK)
			return -EINVAL;
		if (addr < MMAP_MIN_ADDR || addr + len > TASK_SIZE || addr + len < addr)
			return -ENOMEM;
		ret = do_munmap(mm, addr, len);
		if (ret)
			return ret;
	} else {
		addr = get_unmapped_area(mm, addr & PAGE_MASK, len);
		if (!addr)
			return -ENOMEM;
	}
	end = addr + len;
	if (file) {
		/*
		 * do_mmap (mm/mmap.c, Linux 6.9), MAP_SHARED of a file not
		 * open for writing: the mapping may never become writable, so
		 * it loses VM_MAYWRITE (mprotect checks it) and VM_SHARED
		 * (nothing to write back); it stays VM_MAYSHARE.
		 */
		if ((vm_flags & VM_SHARED) && !(file->f_mode & FMODE_WRITE))
			vm_flags &= ~(VM_MAYWRITE | VM_SHARED);
	} else if (vm_flags & VM_SHARED) {
		pgoff = 0; /* do_mmap: MAP_SHARED | MAP_ANONYMOUS ignores pgoff */
	} else {
		pgoff = addr >> PAGE_SHIFT;
	}
	/*
	 * do_mmap and mmap_region's accountable_mapping (Linux 6.18):
	 * MAP_NORESERVE is VM_NORESERVE (the model's overcommit policy is the
	 * default heuristic one, which honours it); a private writable
	 * mapping without it is charged to the commit, VM_ACCOUNT.  Both are
	 * VMA flags, so they keep VMAs from merging with ones that differ.
	 */
	if (flags & MAP_NORESERVE)
		vm_flags |= VM_NORESERVE;
	if ((vm_flags & (VM_NORESERVE | VM_SHARED | VM_WRITE)) == VM_WRITE)
		vm_flags |= VM_ACCOUNT;
	vm_flags |= mm->def_flags; /* mlockall(MCL_FUTURE) */
	/*
	 * A new object behind the mapping (a shmem file for a shared
	 * anonymous one or a shared /dev/zero one) has no neighbour to
	 * extend: __mmap_region (Linux 6.18) merges with the file that
	 * mmap_prepare left, which no existing VMA holds.  A private
	 * /dev/zero mapping keeps the caller's file and pgoff, and merges
	 * with a neighbour of the same open file at the adjacent offset.
	 */
	new_object = (vm_flags & VM_SHARED) && (!file || (file->f_op && file->f_op->mmap));

	i = find_vma_idx(mm, addr); /* the first VMA after the new range */
	prev = mm_vma_at(mm, i - 1);
	next = mm_vma_at(mm, i);
	/* extend a compatible neighbour instead of adding a VMA */
	/* a new range has no anon_vma: the neighbour's must not be a fork
	 * child's (is_mergeable_anon_vma case 2, Linux 6.18) */
	if (!new_object && prev && prev->vm_end == addr && prev->vm_flags == vm_flags &&
	    prev->vm_file == file && prev->vm_pgoff + vma_pages(prev) == pgoff &&
	    !vma_is_fork_child(prev)) {
		struct vma_prepare vp;

		if (!RV_MUTANT(mmap_extend_no_write_lock))
			vma_start_write(prev);
		vma_prepare(&vp, prev);
		WRITE_ONCE(prev->vm_end, end);
		vma_complete(&vp);
		rv_stat_inc(vma_merges);
		vma_merge_at(mm, i - 1);
		return (long)addr;
	}
	if (!new_object && next && next->vm_start == end && next->vm_flags == vm_flags &&
	    next->vm_file == file && next->vm_pgoff == pgoff + (len >> PAGE_SHIFT) &&
	    !vma_is_fork_child(next)) {
		struct vma_prepare vp;

		vma_start_write(next);
		vma_prepare(&vp, next);
		WRITE_ONCE(next->vm_start, addr);
		next->vm_pgoff = pgoff;
		vma_complete(&vp);
		rv_stat_inc(vma_merges);
		return (long)addr;
	}

	vma = vm_area_alloc(mm);
	if (!vma)
		return -ENOMEM;
	vma->vm_start = addr;
	vma->vm_end = end;
	vma->vm_flags = vm_flags;
	vma->vm_pgoff = pgoff;
	ret = 0;
	if (file) {
		vma->vm_file = file;
		vma->vm_mapping = mm_file_mapping(file);
		mm_file_get(file);
		/* call_mmap (__mmap_new_file_vma from 6.12): may replace
		 * vm_file or make the VMA anonymous (/dev/zero) */
		if (file->f_op && file->f_op->mmap)
			ret = file->f_op->mmap(file, vma);
	} else if (vm_flags & VM_SHARED) {
		ret = shmem_zero_setup(vma); /* mm/shmem.c */
	}
	if (!ret)
		ret = vma_tree_splice(mm, i, 0, &vma, 1);
	if (ret) {
		if (vma->vm_file)
			mm_file_put_deferred(
			    vma->vm_file); /* a shmem file: evicted at task_work_run */
		vm_area_free_unpublished(vma);
		return ret;
	}
	vma_link_file(vma);
	mm->map_count++;
	return (long)addr;
}

long vm_mmap(struct mm_struct *mm, unsigned long addr, unsigned long len, int prot, int flags,
	     struct file *file, unsigned long pgoff)
{
	long ret;

	bool populate;

	mmap_write_lock(mm);
	ret = do_mmap(mm, addr, len, prot, flags, file, pgoff);
	/* do_mmap: a locked mapping is populated unless it locks on fault */
	populate =
	    ret >= 0 && ((mm->def_flags & VM_LOCKED_MASK) == VM_LOCKED || (flags & MAP_POPULATE));
	mmap_write_unlock(mm);
	/* vm_mmap_pgoff: mm_populate after dropping mmap_lock, errors ignored */
	if (populate)
		__mm_populate(mm, (unsigned long)ret, len, true);
	task_work_run(); /* last fputs of what MAP_FIXED replaced or an error dropped */
	return ret;
}

/* ------------------------------------------------------------------ */
/* helpers for mremap (mm/mremap.c)                                    */
/* ------------------------------------------------------------------ */

unsigned long mm_get_unmapped_area(struct mm_struct *mm, unsigned long hint, unsigned long len)
{
	return get_unmapped_area(mm, hint & PAGE_MASK, len);
}

/* Put a new VMA (born write-locked, not overlapping any) into the tree. */
int vma_insert(struct mm_struct *mm, struct vm_area_struct *vma)
{
	int ret = vma_tree_splice(mm, find_vma_idx(mm, vma->vm_start), 0, &vma, 1);

	if (ret)
		return ret;
	vma_link_file(vma);
	mm->map_count++;
	return 0;
}

/* Merge vma with its neighbours where compatible (next first, then prev). */
void vma_merge_around(struct mm_struct *mm, struct vm_area_struct *vma)
{
	int i = find_vma_idx(mm, vma->vm_start);

	vma_merge_at(mm, i);
	if (i > 0)
		vma_merge_at(mm, i - 1);
}

/*
 * mremap's expand_vma_in_place (mm/mremap.c, Linux 6.18, through
 * vma_merge_extend): the VMA, write-locked, grows by delta over a hole,
 * then merges with the next VMA if compatible.
 */
void vma_expand_in_place(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long delta)
{
	struct vma_prepare vp;

	vma_start_write(vma);
	vma_prepare(&vp, vma);
	WRITE_ONCE(vma->vm_end, vma->vm_end + delta);
	vma_complete(&vp);
	vma_merge_at(mm, find_vma_idx(mm, vma->vm_start));
}

/* ------------------------------------------------------------------ */
/* munmap                                                              */
/* ------------------------------------------------------------------ */

/*
 * Split so that [start, end) begins and ends on VMA boundaries; returns
 * the index range [*first, *last] of VMAs inside it (*first > *last: none).
 */
static int split_range(struct mm_struct *mm, unsigned long start, unsigned long end, int *first,
		       int *last)
{
	int i = find_vma_idx(mm, start), j, ret;
	struct vm_area_struct *vma = mm_vma_at(mm, i);

	*first = i;
	*last = i - 1;
	if (!vma || vma->vm_start >= end)
		return 0;
	if (vma->vm_start < start) {
		ret = split_vma(mm, i, start);
		if (ret)
			return ret;
		i++;
	}
	j = find_vma_idx(mm, end - 1);
	vma = mm_vma_at(mm, j);
	if (!vma || vma->vm_start >= end)
		j--;
	else if (vma->vm_end > end) {
		ret = split_vma(mm, j, end);
		if (ret)
			return ret;
	}
	*first = i;
	*last = j;
	return 0;
}

int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	unsigned long end, floor, ceiling;
	struct vm_area_struct *prev, *next;
	struct mmu_gather tlb;
	int first, last, ret, n;

	if ((start & ~PAGE_MASK) || start >= TASK_SIZE || len > TASK_SIZE - start)
		return -EINVAL;
	len = (len + PAGE_SIZE - 1) & PAGE_MASK;
	if (!len)
		return -EINVAL;
	end = start + len;
	ret = split_range(mm, start, end, &first, &last);
	if (ret)
		return ret;
	n = last - first + 1;
	if (n <= 0)
		return 0;
	struct vm_area_struct *gone[n];

	for (int k = 0; k < n; k++) {
		gone[k] = mm_vma_at(mm, first + k);
		if (!RV_MUTANT(munmap_no_write_lock))
			vma_start_write(gone[k]);
	}
	/* unmap_region: one mmu_gather for every VMA of the range */
	tlb_gather_mmu(&tlb, mm);
	for (int k = 0; k < n; k++)
		zap_page_range_tlb(&tlb, gone[k], gone[k]->vm_start, gone[k]->vm_end, false);
	tlb_finish_mmu(&tlb);
	prev = mm_vma_at(mm, first - 1);
	next = mm_vma_at(mm, last + 1);
	floor = prev ? prev->vm_end : 0;
	ceiling = next ? next->vm_start : TASK_SIZE;
	ret = vma_tree_splice(mm, first, n, NULL, 0);
	if (ret)
		return ret; /* the pages are gone but the VMAs stay: as after a partial munmap */
	for (int k = 0; k < n; k++)
		remove_vma(gone[k]);
	mm->map_count -= n;
	/*
	 * free_pgd_range(tlb, addr, end, floor, ceiling): only the tables
	 * the unmapped range touched, those wholly between its neighbours;
	 * every other table of the gap went when the range that touched it
	 * was unmapped (walking the whole gap costs O(gap), 2048 entries for
	 * a lone mapping).
	 */
	if (floor < (start & PGDIR_MASK))
		floor = start & PGDIR_MASK;
	if (ceiling > ((end + PGDIR_SIZE - 1) & PGDIR_MASK))
		ceiling = (end + PGDIR_SIZE - 1) & PGDIR_MASK;
	free_pgtables(mm, floor, ceiling);
	return 0;
}

int vm_munmap(struct mm_struct *mm, unsigned long addr, unsigned long len)
{
	int ret;

	mmap_write_lock(mm);
	ret = do_munmap(mm, addr, len);
	mmap_write_unlock(mm);
	task_work_run(); /* a file's last fput: on the return to user space */
	return ret;
}

/* ------------------------------------------------------------------ */
/* mprotect                                                            */
/* ------------------------------------------------------------------ */

/*
 * Apply a VM_ flags change to [start, end) VMA by VMA, in address order,
 * as do_mprotect_pkey (mm/mprotect.c) and apply_vma_lock_flags
 * (mm/mlock.c) do in Linux 6.12: each VMA is split at the range's ends and
 * changed before the next is looked at, so a hole (-ENOMEM) or a refused
 * VMA (newflags returns an errno: mprotect's -EACCES) stops the walk with
 * the VMAs before it already changed.  A hole at start changes nothing.
 * newflags(v, arg) gives the VMA's new flags or a negative errno; fixup,
 * if set, runs on each changed VMA (mprotect's change_protection).  Each
 * changed VMA is merged with the previous VMA, then the next, before the
 * walk goes on, as vma_modify_flags does inside mprotect_fixup and
 * mlock_fixup (Linux 6.18); then after(mm, start, end, arg), if set, runs
 * on the changed range with mmap_lock still held: mprotect_fixup's
 * populate_vma_page_range, whose new anon_vma can keep the next VMA of the
 * walk from merging with this one.  A VMA whose flags do not change is
 * neither split nor merged: mprotect_fixup and mlock_fixup return at once
 * when newflags == oldflags, so adjacent VMAs that stayed apart (a fork
 * child's copies) stay apart.
 */
static int vma_apply_range(struct mm_struct *mm, unsigned long start, unsigned long end,
			   long (*newflags)(struct vm_area_struct *v, unsigned long arg),
			   unsigned long arg, void (*fixup)(struct vm_area_struct *v),
			   void (*after)(struct mm_struct *mm, unsigned long start,
					 unsigned long end, unsigned long arg))
{
	int i = find_vma_idx(mm, start), ret = 0;
	struct vm_area_struct *v = mm_vma_at(mm, i);
	unsigned long addr = start;

	if (!v || v->vm_start > start)
		return -ENOMEM;
	while (addr < end) {
		unsigned long vend;
		long nf;
		int f, l;

		i = find_vma_idx(mm, addr);
		v = mm_vma_at(mm, i);
		if (!v || v->vm_start > addr) {
			ret = -ENOMEM;
			break;
		}
		nf = newflags(v, arg);
		if (nf < 0) {
			ret = (int)nf;
			break;
		}
		vend = v->vm_end < end ? v->vm_end : end;
		if ((unsigned long)nf != v->vm_flags) {
			ret = split_range(mm, addr, vend, &f, &l);
			if (ret)
				break;
			i = f;
			v = mm_vma_at(mm, i);
			if (!RV_MUTANT(vma_flags_no_write_lock))
				vma_start_write(v);
			WRITE_ONCE(v->vm_flags, (unsigned long)nf);
			if (fixup)
				fixup(v);
			/* vma_merge_existing_range: the previous VMA first,
			 * then the next */
			if (i > 0 && vma_merge_at(mm, i - 1))
				i--;
			vma_merge_at(mm, i);
			if (after)
				after(mm, addr, vend, arg);
		}
		addr = vend;
	}
	return ret;
}

/*
 * An mprotect call: its protection and range, and whether the VMA the walk
 * is at must be populated (a private VM_LOCKED VMA made writable).
 */
struct mprotect_ctx {
	int prot;
	bool populate;
};

/*
 * do_mprotect_pkey: every VM_READ/WRITE/EXEC needs its VM_MAY*, else
 * -EACCES.  mprotect_fixup (mm/mprotect.c, Linux 6.18): a private mapping
 * made writable is charged (VM_ACCOUNT) unless it already is or is
 * VM_NORESERVE; the charge is dropped again only from an anonymous VMA
 * that has no anon_vma yet.  A private VM_LOCKED VMA made writable is
 * populated (COW'd) at once, so locked memory takes no fault later.
 */
static long mprotect_newflags(struct vm_area_struct *v, unsigned long arg)
{
	struct mprotect_ctx *c = (struct mprotect_ctx *)arg;
	unsigned long nf =
	    (v->vm_flags & ~VM_ACCESS_FLAGS) | (calc_vm_flags(c->prot, 0) & VM_ACCESS_FLAGS);

	if ((nf & ~(nf >> 4)) & VM_ACCESS_FLAGS)
		return -EACCES;
	/* mprotect_fixup (Linux 6.18) returns before it looks at VM_ACCOUNT
	 * when the flags stay the same: an unwritable anonymous VMA without
	 * an anon_vma (a fork child's VM_WIPEONFORK copy) stays charged */
	if (nf == v->vm_flags) {
		c->populate = false;
		return (long)nf;
	}
	if (nf & VM_WRITE) {
		if (!(v->vm_flags & (VM_ACCOUNT | VM_WRITE | VM_SHARED | VM_NORESERVE)))
			nf |= VM_ACCOUNT;
	} else if ((v->vm_flags & VM_ACCOUNT) && vma_is_anonymous(v) && !v->anon_vma) {
		nf &= ~VM_ACCOUNT;
	}
	c->populate =
	    (v->vm_flags & (VM_WRITE | VM_SHARED | VM_LOCKED)) == VM_LOCKED && (nf & VM_WRITE);
	return (long)nf;
}

/*
 * mprotect_fixup (mm/mprotect.c, Linux 6.18) calls populate_vma_page_range
 * on the VMA it has just changed (and merged), under mmap_lock for write,
 * before do_mprotect_pkey moves to the next VMA; errors are ignored.
 */
static void mprotect_populate(struct mm_struct *mm, unsigned long start, unsigned long end,
			      unsigned long arg)
{
	const struct mprotect_ctx *c = (const struct mprotect_ctx *)arg;

	if (c->populate)
		mm_populate_locked(mm, start, end - start, true);
}

static void mprotect_fixup_ptes(struct vm_area_struct *v)
{
	change_protection(v, v->vm_start, v->vm_end);
}

/*
 * do_mprotect_pkey (mm/mprotect.c, Linux 6.12): len 0 is done; one that
 * PAGE_ALIGN wraps to 0 (or whose end wraps) is -ENOMEM; then VMA by VMA
 * (vma_apply_range): a hole or a VMA that may not get the protection stops
 * it, and the VMAs before stay changed.
 */
static int do_mprotect(struct mm_struct *mm, unsigned long start, unsigned long len,
		       struct mprotect_ctx *c)
{
	unsigned long end;

	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (!len)
		return 0;
	len = (len + PAGE_SIZE - 1) & PAGE_MASK;
	end = start + len;
	if (end <= start)
		return -ENOMEM;
	/*
	 * do_mprotect_pkey (Linux 6.18): arch_validate_prot, the generic one
	 * x86 uses, refuses any bit but PROT_READ, PROT_WRITE, PROT_EXEC and
	 * PROT_SEM (accepted and ignored), after the length checks (a zero
	 * length succeeds whatever prot is).  The model has no
	 * VM_GROWSDOWN/VM_GROWSUP VMA, so PROT_GROWSDOWN/UP are refused too.
	 */
	if (c->prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM))
		return -EINVAL;
	/* past TASK_SIZE there is no VMA: the walk stops there, -ENOMEM */
	return vma_apply_range(mm, start, end, mprotect_newflags, (unsigned long)c,
			       mprotect_fixup_ptes, mprotect_populate);
}

struct flags_change {
	unsigned long set, clear;
};

static long modify_newflags(struct vm_area_struct *v, unsigned long arg)
{
	const struct flags_change *fc = (const void *)arg;

	return (long)((v->vm_flags & ~fc->clear) | fc->set);
}

int vma_modify_flags(struct mm_struct *mm, unsigned long start, unsigned long end,
		     unsigned long set, unsigned long clear)
{
	struct flags_change fc = {set, clear};

	return vma_apply_range(mm, start, end, modify_newflags, (unsigned long)&fc, NULL, NULL);
}

/* every VMA, holes allowed (mlockall, munlockall: apply_mlockall_flags) */
int vma_modify_flags_all(struct mm_struct *mm, unsigned long set, unsigned long clear)
{
	int last = vma_nr(mm) - 1;

	if (last < 0)
		return 0;
	/* apply_mlockall_flags: mlock_fixup on each VMA in address order; an
	 * unchanged one is neither changed nor merged, a changed one merges
	 * with the previous VMA, then the next */
	for (int k = 0; k < vma_nr(mm); k++) {
		struct vm_area_struct *v = mm_vma_at(mm, k);
		unsigned long nf = (v->vm_flags & ~clear) | set;

		if (nf == v->vm_flags)
			continue;
		vma_start_write(v);
		WRITE_ONCE(v->vm_flags, nf);
		if (k > 0 && vma_merge_at(mm, k - 1))
			k--;
		vma_merge_at(mm, k);
	}
	return 0;
}

int vm_mprotect(struct mm_struct *mm, unsigned long addr, unsigned long len, int prot)
{
	struct mprotect_ctx c = {.prot = prot};
	int ret;

	mmap_write_lock(mm);
	ret = do_mprotect(mm, addr, len, &c);
	mmap_write_unlock(mm);
	return ret;
}

/* ------------------------------------------------------------------ */
/* diagnostics                                                         */
/* ------------------------------------------------------------------ */

int mm_validate(struct mm_struct *mm)
{
	unsigned long prev_end = 0;
	struct vm_area_struct *vma;
	int i;

	for_each_vma_idx(mm, i, vma) {
		if (vma->vm_start >= vma->vm_end || (vma->vm_start & ~PAGE_MASK) ||
		    (vma->vm_end & ~PAGE_MASK) || vma->vm_start < prev_end || vma->vm_mm != mm ||
		    vma_is_detached(vma)) {
			fprintf(stderr, "mm_validate: bad VMA %d [%#lx, %#lx) after %#lx\n", i,
				vma->vm_start, vma->vm_end, prev_end);
			return -EINVAL;
		}
		if (vma->anon_vma && list_empty(&vma->anon_vma_chain)) {
			fprintf(stderr, "mm_validate: VMA %d has an anon_vma but no chain\n", i);
			return -EINVAL;
		}
		prev_end = vma->vm_end;
	}
	if (i != mm->map_count) {
		fprintf(stderr, "mm_validate: map_count %d, tree has %d\n", mm->map_count, i);
		return -EINVAL;
	}
	return 0;
}

void mm_objects_count(struct mm_objects *o)
{
	o->mms = __atomic_load_n(&mm_live, __ATOMIC_RELAXED);
	o->vmas = vm_area_cachep ? kmem_cache_active(vm_area_cachep) : 0;
	o->anon_vmas = anon_vma_cachep ? kmem_cache_active(anon_vma_cachep) : 0;
	o->avcs = anon_vma_chain_cachep ? kmem_cache_active(anon_vma_chain_cachep) : 0;
	o->pt_pages = pt_page_cachep ? kmem_cache_active(pt_page_cachep) : 0;
	o->anon_folios = mm_anon_folios_live();
}

/* ------------------------------------------------------------------ */
/* instance lifecycle                                                  */
/* ------------------------------------------------------------------ */

static int mm_subsys_teardown(void);

static int mm_subsys_init(void)
{
	mm_live = 0;
#ifdef RCUVFS_EXPLORE
	vma_norecheck_test = false;
	mremap_nolock_test = false;
	tlb_enter_point_test = NULL;
#endif
	/*
	 * vm_area_struct: 6.4-6.14 kernel/fork.c proc_caches_init (SLAB_HWCACHE_ALIGN,
	 * vm_lock from vma_lock_cachep); 6.15 SLAB_TYPESAFE_BY_RCU; 6.18
	 * mm/vma_init.c vma_state_init adds sheaf_capacity 32 to it.
	 */
	vm_area_cachep =
	    kmem_cache_create("vm_area_struct", sizeof(struct vm_area_struct), 0,
			      SLAB_HWCACHE_ALIGN | (vm_area_typesafe() ? SLAB_TYPESAFE_BY_RCU : 0) |
				  (rv_sw.vm_area_cache == VM_AREA_CACHE_SHEAVES ||
					   rv_sw.vm_area_cache == VM_AREA_CACHE_TYPESAFE_SHEAVES
				       ? SLAB_SHEAVES
				       : 0),
			      NULL);
	vma_lock_cachep = rv_sw.vma_lock == VMA_LOCK_RWSEM
			      ? kmem_cache_create("vma_lock", sizeof(struct vma_lock), 0, 0, NULL)
			      : NULL;
	mm_cachep =
	    kmem_cache_create("mm_struct", sizeof(struct mm_struct), 0, SLAB_HWCACHE_ALIGN, NULL);
	anon_vma_cachep = kmem_cache_create("anon_vma", sizeof(struct anon_vma), 0, 0, NULL);
	anon_vma_chain_cachep =
	    kmem_cache_create("anon_vma_chain", sizeof(struct anon_vma_chain), 0, 0, NULL);
	pt_page_cachep = kmem_cache_create("pt_page", sizeof(struct pt_page), 64, 0, NULL);
	vma_node_cachep = kmem_cache_create("vma_tree_node",
					    sizeof(struct vma_array) +
						VMA_NODE_SLOTS * sizeof(struct vm_area_struct *),
					    0, SLAB_SHEAVES, NULL);
	if ((rv_sw.vma_lock == VMA_LOCK_RWSEM && !vma_lock_cachep) || !vma_node_cachep ||
	    !vm_area_cachep || !mm_cachep || !anon_vma_cachep || !anon_vma_chain_cachep ||
	    !pt_page_cachep || mm_folio_init() || mm_filemap_init()) {
		mm_subsys_teardown();
		return -ENOMEM;
	}
	mm_vmscan_init();
	mm_fork_hooks_install();
	return 0;
}

static int destroy_cache(struct kmem_cache **c)
{
	int ret = 0;

	if (*c)
		ret = kmem_cache_destroy(*c);
	*c = NULL;
	return ret;
}

static int mm_subsys_teardown(void)
{
	int ret = 0;

	mm_fork_hooks_remove();
	mm_filemap_exit();
	mm_vmscan_exit();
	rcu_barrier(); /* VMAs, arrays, page tables, anon_vmas freed through RCU */
	if (__atomic_load_n(&mm_live, __ATOMIC_RELAXED)) {
		fprintf(stderr, "mm: %ld mm_structs leaked\n", mm_live);
		ret = -EBUSY;
	}
	if (destroy_cache(&vm_area_cachep) | destroy_cache(&vma_lock_cachep) |
	    destroy_cache(&mm_cachep) | destroy_cache(&anon_vma_cachep) |
	    destroy_cache(&anon_vma_chain_cachep) | destroy_cache(&pt_page_cachep) |
	    destroy_cache(&vma_node_cachep))
		ret = -EBUSY;
	if (mm_folio_exit())
		ret = -EBUSY;
	return ret;
}

RV_SUBSYS(mm, mm_subsys_init, mm_subsys_teardown);
