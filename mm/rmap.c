// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/rmap.c - anon_vma and the reverse mapping of anonymous folios.
 *
 * Each VMA with anonymous pages has an anon_vma (vma->anon_vma) and a chain
 * of anon_vma_chain links (vma->anon_vma_chain), one per anon_vma whose
 * folios it may map: its own, and after fork every ancestor's.  An anon
 * folio records the anon_vma of the VMA that created it and its linear
 * index; the rmap walk visits every VMA linked to that anon_vma and checks
 * the PTE at the folio's address.
 *
 * Locking:
 *   - All anon_vmas of one fork tree share the root's rwsem: it protects
 *     every anon_vma->head list of the tree (write to link/unlink, read to
 *     walk).
 *   - vma->anon_vma_chain and vma->anon_vma change under mmap_lock held for
 *     write, except in anon_vma_prepare, which runs under mmap_lock for
 *     read (a fault under the per-VMA lock alone gets there only through
 *     vmf_anon_prepare, which takes mmap_lock for read or retries under it,
 *     as Linux 6.7+ does) and serializes on mm->page_table_lock.  So
 *     split, merge and fork, holding mmap_lock for write, read a stable
 *     vma->anon_vma.
 *   - A VMA with an anon_vma changes its bounds under that anon_vma's
 *     lock (vma_prepare), so the walk reads consistent bounds.
 *   - anon_vma lifetime: a reference per chain link and per child anon_vma;
 *     freed through RCU, so the rmap walk can take a reference under RCU
 *     from a folio that is still mapped.
 */
#include "mm/internal.h"

static struct anon_vma *anon_vma_alloc(void)
{
	struct anon_vma *av = kmem_cache_alloc(anon_vma_cachep);

	if (!av)
		return NULL;
	av->root = av;
	av->parent = NULL;
	av->refcount = 0;
	init_rwsem(&av->rwsem);
	INIT_LIST_HEAD(&av->head);
	return av;
}

static void anon_vma_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(anon_vma_cachep, container_of(head, struct anon_vma, rcu));
}

static void get_anon_vma(struct anon_vma *av)
{
	__atomic_fetch_add(&av->refcount, 1, __ATOMIC_RELAXED);
}

static bool get_anon_vma_not_zero(struct anon_vma *av)
{
	int c = __atomic_load_n(&av->refcount, __ATOMIC_RELAXED);

	do {
		if (c <= 0)
			return false;
	} while (!__atomic_compare_exchange_n(&av->refcount, &c, c + 1, false, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	return true;
}

static void put_anon_vma(struct anon_vma *av)
{
	while (av && __atomic_sub_fetch(&av->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
		struct anon_vma *parent = av->parent;

		rv_call_rcu(&av->rcu, anon_vma_free_rcu);
		av = parent; /* a child held a reference on its parent */
	}
}

/* Caller holds av->root->rwsem for write. */
static void anon_vma_chain_link(struct vm_area_struct *vma, struct anon_vma_chain *avc,
				struct anon_vma *av)
{
	avc->vma = vma;
	avc->anon_vma = av;
	get_anon_vma(av);
	list_add_tail(&avc->same_anon_vma, &av->head);
	list_add(&avc->same_vma, &vma->anon_vma_chain);
}

/*
 * anon_vma_compatible (mm/vma.c, Linux 6.18): b continues a (adjacent,
 * same file, contiguous pgoff) and their flags differ at most in the
 * access bits, so a later mprotect could merge them.
 */
static bool anon_vma_compatible(struct vm_area_struct *a, struct vm_area_struct *b)
{
	return a->vm_end == b->vm_start && a->vm_file == b->vm_file &&
	       !((a->vm_flags ^ b->vm_flags) & ~VM_ACCESS_FLAGS) &&
	       b->vm_pgoff == a->vm_pgoff + ((b->vm_start - a->vm_start) >> PAGE_SHIFT);
}

/* reusable_anon_vma: old's anon_vma, if a and b are compatible and old is no fork child */
static struct anon_vma *reusable_anon_vma(struct vm_area_struct *old, struct vm_area_struct *a,
					  struct vm_area_struct *b)
{
	struct anon_vma *av;

	if (!anon_vma_compatible(a, b))
		return NULL;
	av = smp_load_acquire(&old->anon_vma); /* a fault may be preparing it */
	return av && !vma_is_fork_child(old) ? av : NULL;
}

/*
 * find_mergeable_anon_vma (mm/vma.c, Linux 6.18): the anon_vma of a
 * neighbour, next first, then prev, that vma could later merge with, so
 * that an mprotect making them equal again merges them (two different
 * anon_vmas never merge).  mmap_lock held (read at least).
 */
static struct anon_vma *find_mergeable_anon_vma(struct vm_area_struct *vma)
{
	struct vm_area_struct *next = vma_next_of(vma), *prev;
	struct anon_vma *av = NULL;

	if (next)
		av = reusable_anon_vma(next, vma, next);
	if (av)
		return av;
	prev = vma_prev_of(vma);
	if (prev)
		av = reusable_anon_vma(prev, prev, vma);
	return av;
}

/*
 * __anon_vma_prepare (mm/rmap.c, Linux 6.18): reuse a compatible
 * neighbour's anon_vma (find_mergeable_anon_vma) or allocate one, and link
 * it under its root's lock and page_table_lock, unless another fault of
 * the VMA (also under mmap_lock for read) got there first.
 */
int anon_vma_prepare(struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	struct anon_vma *av, *allocated = NULL;
	struct anon_vma_chain *avc;

	if (likely(smp_load_acquire(&vma->anon_vma)))
		return 0;
	avc = kmem_cache_alloc(anon_vma_chain_cachep);
	if (!avc)
		return -ENOMEM;
	av = find_mergeable_anon_vma(vma);
	if (!av) {
		av = allocated = anon_vma_alloc();
		if (!av) {
			kmem_cache_free(anon_vma_chain_cachep, avc);
			return -ENOMEM;
		}
	}
	anon_vma_lock_write(av);
	spin_lock(&mm->page_table_lock);
	if (!vma->anon_vma) {
		anon_vma_chain_link(vma, avc, av);
		/* release: the chain is linked before the anon_vma is seen
		 * (pairs with the acquire above and in anon_vma_fork) */
		smp_store_release(&vma->anon_vma, av);
		avc = NULL;
		allocated = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	anon_vma_unlock_write(av);
	if (avc) /* lost the race: another fault prepared it */
		kmem_cache_free(anon_vma_chain_cachep, avc);
	if (allocated)
		kmem_cache_free(anon_vma_cachep, allocated);
	return 0;
}

/* Give dst a link to every anon_vma src is linked to (split, fork). */
int anon_vma_clone(struct vm_area_struct *dst, struct vm_area_struct *src)
{
	struct anon_vma_chain *pavc;
	struct anon_vma *root = NULL;

	list_for_each_entry(pavc, &src->anon_vma_chain, same_vma) {
		struct anon_vma_chain *avc = kmem_cache_alloc(anon_vma_chain_cachep);

		if (!avc) {
			if (root)
				up_write(&root->rwsem);
			unlink_anon_vmas(dst);
			return -ENOMEM;
		}
		if (!root) {
			root = pavc->anon_vma->root;
			down_write(&root->rwsem);
		}
		anon_vma_chain_link(dst, avc, pavc->anon_vma);
	}
	if (root)
		up_write(&root->rwsem);
	return 0;
}

/*
 * fork: the child VMA gets links to the parent's anon_vmas (so the rmap
 * of folios it shares with the parent finds it) and an anon_vma of its own
 * (a child of the parent's) for the folios it will create.
 */
int anon_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma)
{
	struct anon_vma *pav = smp_load_acquire(&pvma->anon_vma), *av;
	struct anon_vma_chain *avc;
	int ret;

	vma->anon_vma = NULL;
	INIT_LIST_HEAD(&vma->anon_vma_chain);
	if (!pav)
		return 0;
	ret = anon_vma_clone(vma, pvma);
	if (ret)
		return ret;
	av = anon_vma_alloc();
	avc = kmem_cache_alloc(anon_vma_chain_cachep);
	if (!av || !avc) {
		if (av)
			kmem_cache_free(anon_vma_cachep, av);
		if (avc)
			kmem_cache_free(anon_vma_chain_cachep, avc);
		unlink_anon_vmas(vma);
		return -ENOMEM;
	}
	av->root = pav->root;
	av->parent = pav;
	get_anon_vma(pav);
	anon_vma_lock_write(av);
	anon_vma_chain_link(vma, avc, av);
	vma->anon_vma = av;
	anon_vma_unlock_write(av);
	return 0;
}

void unlink_anon_vmas(struct vm_area_struct *vma)
{
	struct anon_vma_chain *avc, *n;
	struct anon_vma *root;

	if (list_empty(&vma->anon_vma_chain)) {
		vma->anon_vma = NULL;
		return;
	}
	root =
	    list_first_entry(&vma->anon_vma_chain, struct anon_vma_chain, same_vma)->anon_vma->root;
	down_write(&root->rwsem);
	list_for_each_entry(avc, &vma->anon_vma_chain, same_vma)
		list_del_init(&avc->same_anon_vma);
	up_write(&root->rwsem);
	/* the references go after the lock: the last one may free the root */
	list_for_each_entry_safe(avc, n, &vma->anon_vma_chain, same_vma) {
		list_del_init(&avc->same_vma);
		put_anon_vma(avc->anon_vma);
		kmem_cache_free(anon_vma_chain_cachep, avc);
	}
	vma->anon_vma = NULL;
}

void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma, unsigned long addr)
{
	mm_folio_set_anon(folio, vma->anon_vma, linear_page_index(vma, addr));
	mm_folio_mapcount_inc(folio);
}

bool pte_maps_folio(struct mm_struct *mm, unsigned long addr, struct folio *folio)
{
	bool ret = false;
	pte_t *ptep, pte;

	rcu_read_lock();
	ptep = mm_pte_lookup(mm, addr);
	if (ptep) {
		pte = ptep_get(ptep);
		ret = pte_present(pte) && !pte_special(pte) && mm_folio_from_pte(pte) == folio;
	}
	rcu_read_unlock();
	return ret;
}

static int rmap_walk_anon(struct folio *folio, rmap_one_fn fn, void *arg)
{
	unsigned long index = mm_folio_index(folio);
	struct anon_vma_chain *avc;
	struct anon_vma *av;
	int found = 0;

	rv_rcu_ensure();
	rcu_read_lock();
	/* mapped => some VMA's chain still holds the anon_vma (RCU-freed) */
	av = mm_folio_mapcount(folio) > 0 ? mm_folio_anon_vma(folio) : NULL;
	if (!av || !get_anon_vma_not_zero(av)) {
		rcu_read_unlock();
		return 0;
	}
	rcu_read_unlock();
	down_read(&av->root->rwsem);
	list_for_each_entry(avc, &av->head, same_anon_vma) {
		struct vm_area_struct *vma = avc->vma;
		unsigned long start = READ_ONCE(vma->vm_start), end = READ_ONCE(vma->vm_end);
		unsigned long pgoff = READ_ONCE(vma->vm_pgoff), addr;

		if (index < pgoff || index - pgoff >= (end - start) >> PAGE_SHIFT)
			continue;
		addr = start + ((index - pgoff) << PAGE_SHIFT);
		if (!pte_maps_folio(vma->vm_mm, addr, folio))
			continue;
		found++;
		if (fn && !fn(folio, vma, addr, arg))
			break;
	}
	up_read(&av->root->rwsem);
	put_anon_vma(av);
	return found;
}

int rmap_walk(struct folio *folio, rmap_one_fn fn, void *arg)
{
	if (mm_folio_is_zero(folio))
		return 0;
	if (mm_folio_is_anon(folio))
		return rmap_walk_anon(folio, fn, arg);
	return rmap_walk_file(folio, fn, arg);
}
