// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/folio.c - the folios mm maps, behind the small interface of
 * mm/internal.h, on top of the VFS's struct folio (vfs/pagecache.h):
 * anonymous folios from folio_alloc(), reference and map counts, the anon
 * rmap fields (folio->private = anon_vma, folio->index), the shared zero
 * page, and the PTE encoding.
 *
 * The model CPU (mm_access) uses a folio it found in a PTE without a
 * reference of its own: a folio loses a PTE's reference only after a TLB
 * flush of that mm, which waits for the access (mm/tlb.c).  Other lockless
 * lookups (the fork checker) use mm_folio_try_get on these
 * SLAB_TYPESAFE_BY_RCU folios and re-read the PTE.
 *
 * Counts: each PTE mapping a folio holds one reference and one map count
 * (atomics).  The zero folio is never counted.
 *
 * The anon fields are written once, by the faulting task, before the PTE
 * that publishes the folio (release store in set_pte).
 */
#include "mm/internal.h"

static unsigned char zero_page_data[PAGE_SIZE] __attribute__((aligned(4096)));
static struct folio zero_folio = {
    .refcount = 1,
    .data = zero_page_data,
    .index = -1,
};

int mm_folio_init(void)
{
	zero_folio.flags = 1UL << PG_uptodate;
	return 0;
}

int mm_folio_exit(void)
{
	return 0;
}

struct folio *mm_alloc_anon_folio(void)
{
	return folio_alloc(); /* refcount 1, zeroed, PG_anon */
}

long mm_anon_folios_live(void)
{
	return folio_count_live();
}

struct folio *mm_zero_folio(void)
{
	return &zero_folio;
}

bool mm_folio_is_zero(struct folio *folio)
{
	return folio == &zero_folio;
}

void mm_folio_get(struct folio *folio)
{
	if (!mm_folio_is_zero(folio))
		folio_get(folio);
}

bool mm_folio_try_get(struct folio *folio)
{
	return mm_folio_is_zero(folio) || folio_try_get(folio);
}

void mm_folio_put(struct folio *folio)
{
	if (!mm_folio_is_zero(folio))
		folio_put(folio);
}

int mm_folio_refcount(struct folio *folio)
{
	return folio_ref_count(folio);
}

void *mm_folio_data(struct folio *folio)
{
	return folio->data;
}

int mm_folio_mapcount(struct folio *folio)
{
	if (mm_folio_is_zero(folio))
		return 0;
	return __atomic_load_n(&folio->mapcount, __ATOMIC_ACQUIRE);
}

void mm_folio_mapcount_inc(struct folio *folio)
{
	if (!mm_folio_is_zero(folio))
		__atomic_fetch_add(&folio->mapcount, 1, __ATOMIC_RELAXED);
}

int mm_folio_mapcount_dec(struct folio *folio)
{
	if (mm_folio_is_zero(folio))
		return 0;
	return __atomic_sub_fetch(&folio->mapcount, 1, __ATOMIC_RELEASE);
}

bool mm_folio_is_anon(struct folio *folio)
{
	return folio_test_anon(folio);
}

void mm_folio_set_anon(struct folio *folio, struct anon_vma *av, unsigned long index)
{
	folio->private = av;
	folio->index = (int64_t)index;
}

struct anon_vma *mm_folio_anon_vma(struct folio *folio)
{
	if (!mm_folio_is_anon(folio))
		return NULL;
	return READ_ONCE(folio->private);
}

unsigned long mm_folio_index(struct folio *folio)
{
	return (unsigned long)folio->index;
}

struct address_space *mm_folio_mapping(struct folio *folio)
{
	if (mm_folio_is_zero(folio) || mm_folio_is_anon(folio))
		return NULL;
	return READ_ONCE(folio->mapping);
}

void mm_folio_mark_dirty(struct folio *folio)
{
	folio_mark_dirty(folio);
}

pte_t mm_folio_to_pte(struct folio *folio)
{
	BUILD_BUG_ON(FOLIO_ALIGN - 1 < _PAGE_FLAGS);
	return (pte_t)folio_to_pteval(folio);
}

struct folio *mm_folio_from_pte(pte_t pte)
{
	return pteval_to_folio((uintptr_t)pte);
}
