// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/folio.c - the folios mm maps, behind the small interface of
 * mm/internal.h: an anonymous-folio allocator, reference and map counts,
 * the anon rmap fields (anon_vma, index), the shared zero page, and the
 * encoding of a folio into a PTE.
 *
 * Anonymous folios come from a SLAB_TYPESAFE_BY_RCU cache: a lockless
 * page-table walker (mm_access) that read a PTE under RCU may call
 * mm_folio_try_get on a folio freed meanwhile; the get fails on a zero
 * count, or succeeds on a reused folio and the walker's recheck of the PTE
 * then fails.  The PTE holds the folio's address (64-byte aligned) in its
 * high bits.
 *
 * Counts: refcount and mapcount are atomics.  Each PTE mapping a folio holds
 * one reference and one map count.  The zero folio is never counted.
 *
 * The anon fields (mapping = anon_vma, index) are written once, by the
 * faulting task before the PTE that publishes the folio (release store).
 */
#include "mm/internal.h"

#include <string.h>

#define MMF_ANON  0x1UL
#define MMF_ZERO  0x2UL
#define MMF_DIRTY 0x4UL

struct mm_anon_folio {
	int refcount;
	int mapcount;
	unsigned long flags;
	void *mapping; /* struct anon_vma * for anonymous folios */
	unsigned long index;
	unsigned char data[PAGE_SIZE] __attribute__((aligned(64)));
} __attribute__((aligned(64)));

static struct kmem_cache *anon_folio_cachep;
static struct mm_anon_folio zero_folio = { .refcount = 1, .flags = MMF_ZERO };
static long anon_folios_live;

RV_STAT_DEFINE(anon_folio_allocs, "anonymous folios allocated by mm");

static inline struct mm_anon_folio *AF(struct folio *f)
{
	return (struct mm_anon_folio *)f;
}

static void anon_folio_ctor(void *obj)
{
	struct mm_anon_folio *f = obj;

	__atomic_store_n(&f->refcount, 0, __ATOMIC_RELAXED);
	f->mapcount = 0;
}

int mm_folio_init(void)
{
	BUILD_BUG_ON(_Alignof(struct mm_anon_folio) < 64);
	anon_folio_cachep = kmem_cache_create("mm_anon_folio", sizeof(struct mm_anon_folio), 64,
					      SLAB_TYPESAFE_BY_RCU, anon_folio_ctor);
	if (!anon_folio_cachep)
		return -ENOMEM;
	anon_folios_live = 0;
	return 0;
}

int mm_folio_exit(void)
{
	int ret = 0;

	if (__atomic_load_n(&anon_folios_live, __ATOMIC_RELAXED)) {
		fprintf(stderr, "mm: %ld anonymous folios leaked\n", anon_folios_live);
		ret = -EBUSY;
	}
	if (anon_folio_cachep && kmem_cache_destroy(anon_folio_cachep))
		ret = -EBUSY;
	anon_folio_cachep = NULL;
	return ret;
}

struct folio *mm_alloc_anon_folio(void)
{
	struct mm_anon_folio *f = kmem_cache_alloc(anon_folio_cachep);

	if (!f)
		return NULL;
	f->flags = MMF_ANON;
	f->mapping = NULL;
	f->index = 0;
	__atomic_store_n(&f->mapcount, 0, __ATOMIC_RELAXED);
	memset(f->data, 0, PAGE_SIZE);
	/* publish the count last: a racing try_get on the recycled memory
	 * must not see a live count before the fields are reset */
	__atomic_store_n(&f->refcount, 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&anon_folios_live, 1, __ATOMIC_RELAXED);
	rv_stat_inc(anon_folio_allocs);
	return (struct folio *)f;
}

long mm_anon_folios_live(void)
{
	return __atomic_load_n(&anon_folios_live, __ATOMIC_RELAXED);
}

struct folio *mm_zero_folio(void)
{
	return (struct folio *)&zero_folio;
}

bool mm_folio_is_zero(struct folio *folio)
{
	return folio == (struct folio *)&zero_folio;
}

void mm_folio_get(struct folio *folio)
{
	if (mm_folio_is_zero(folio))
		return;
	__atomic_fetch_add(&AF(folio)->refcount, 1, __ATOMIC_RELAXED);
}

bool mm_folio_try_get(struct folio *folio)
{
	int c;

	if (mm_folio_is_zero(folio))
		return true;
	c = __atomic_load_n(&AF(folio)->refcount, __ATOMIC_RELAXED);
	do {
		if (c == 0)
			return false;
	} while (!__atomic_compare_exchange_n(&AF(folio)->refcount, &c, c + 1, false,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return true;
}

void mm_folio_put(struct folio *folio)
{
	struct mm_anon_folio *f = AF(folio);

	if (mm_folio_is_zero(folio))
		return;
	if (__atomic_sub_fetch(&f->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
		__atomic_fetch_sub(&anon_folios_live, 1, __ATOMIC_RELAXED);
		kmem_cache_free(anon_folio_cachep, f);
	}
}

int mm_folio_refcount(struct folio *folio)
{
	return __atomic_load_n(&AF(folio)->refcount, __ATOMIC_RELAXED);
}

void *mm_folio_data(struct folio *folio)
{
	return AF(folio)->data;
}

int mm_folio_mapcount(struct folio *folio)
{
	if (mm_folio_is_zero(folio))
		return 0;
	return __atomic_load_n(&AF(folio)->mapcount, __ATOMIC_ACQUIRE);
}

void mm_folio_mapcount_inc(struct folio *folio)
{
	if (!mm_folio_is_zero(folio))
		__atomic_fetch_add(&AF(folio)->mapcount, 1, __ATOMIC_RELAXED);
}

int mm_folio_mapcount_dec(struct folio *folio)
{
	if (mm_folio_is_zero(folio))
		return 0;
	return __atomic_sub_fetch(&AF(folio)->mapcount, 1, __ATOMIC_RELEASE);
}

bool mm_folio_is_anon(struct folio *folio)
{
	return (AF(folio)->flags & MMF_ANON) != 0;
}

void mm_folio_set_anon(struct folio *folio, struct anon_vma *av, unsigned long index)
{
	AF(folio)->mapping = av;
	AF(folio)->index = index;
}

struct anon_vma *mm_folio_anon_vma(struct folio *folio)
{
	if (!mm_folio_is_anon(folio))
		return NULL;
	return READ_ONCE(AF(folio)->mapping);
}

unsigned long mm_folio_index(struct folio *folio)
{
	return AF(folio)->index;
}

struct address_space *mm_folio_mapping(struct folio *folio)
{
	if (mm_folio_is_anon(folio) || mm_folio_is_zero(folio))
		return NULL;
	return AF(folio)->mapping;
}

void mm_folio_mark_dirty(struct folio *folio)
{
	__atomic_fetch_or(&AF(folio)->flags, MMF_DIRTY, __ATOMIC_RELAXED);
}

pte_t mm_folio_to_pte(struct folio *folio)
{
	return (pte_t)(uintptr_t)folio;
}

struct folio *mm_folio_from_pte(pte_t pte)
{
	return (struct folio *)(uintptr_t)(pte & ~_PAGE_FLAGS);
}
