// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mm/check.c - mm_check() (mm/testing.h; the test library, not
 * librcuvfs.a): the invariants of one address space, checked
 * from the outside after a test or a stress run.
 *
 * On top of mm_validate (the VMA tree) it checks what the page tables,
 * the reverse maps and the counters must agree on:
 *   - every page-table page covers part of some VMA (page tables are
 *     reachable only from live VMAs: free_pgtables freed the rest), and
 *     nr_present and mm->nr_ptes match what the tables hold;
 *   - every populated PTE lies inside a VMA;
 *   - every present anonymous PTE's folio is found by rmap_walk at that
 *     (VMA, address) (an anon_vma chain that misses it is the fork/split
 *     race's signature), and a VMA with an anon_vma is linked to it;
 *   - every file PTE maps a folio of the VMA's file at the VMA's file
 *     offset for that address, the VMA is on the file's i_mmap, and the
 *     page is below EOF (as is any PTE of a file VMA);
 *   - RSS: MM_ANONPAGES and MM_FILEPAGES equal the PTEs counted.
 *
 * Locking: mmap_lock for read (the VMAs and page tables stay), the PTEs
 * read locklessly, i_mmap_rwsem for read, rmap_walk's own locks.  Run it
 * where nothing else changes the mm's PTEs (a quiescent point: the end of
 * a test or of a run); reclaim or truncate of a shared file running at the
 * same time may remove a PTE between the count and the RSS read.
 */
#include "mm/internal.h"
#include "mm/testing.h"

#include <stdarg.h>

#define CHECK_REPORT_MAX 8

struct mm_checker {
	struct mm_struct *mm;
	int errors;
};

static void check_fail(struct mm_checker *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void check_fail(struct mm_checker *c, const char *fmt, ...)
{
	va_list ap;

	if (c->errors++ >= CHECK_REPORT_MAX)
		return;
	fprintf(stderr, "mm_check %p: ", (void *)c->mm);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

struct rmap_find {
	struct vm_area_struct *vma;
	unsigned long addr;
	bool found;
};

static bool rmap_find_one(struct folio *folio, struct vm_area_struct *vma, unsigned long addr,
			  void *arg)
{
	struct rmap_find *rf = arg;

	(void)folio;
	if (vma == rf->vma && addr == rf->addr) {
		rf->found = true;
		return false;
	}
	return true;
}

static bool vma_on_i_mmap(struct vm_area_struct *vma)
{
	struct address_space *m = vma->vm_mapping;
	struct vm_area_struct *v;
	bool found = false;

	down_read(&m->i_mmap_rwsem);
	list_for_each_entry(v, &m->i_mmap, shared)
		if (v == vma) {
			found = true;
			break;
		}
	up_read(&m->i_mmap_rwsem);
	return found;
}

static bool vma_linked_to_own_anon_vma(struct vm_area_struct *vma)
{
	struct anon_vma_chain *avc;

	list_for_each_entry(avc, &vma->anon_vma_chain, same_vma)
		if (avc->anon_vma == vma->anon_vma)
			return true;
	return false;
}

static unsigned long file_pages(struct address_space *m)
{
	int64_t size = m->host ? __atomic_load_n(&m->host->i_size, __ATOMIC_ACQUIRE) : INT64_MAX;

	return size == INT64_MAX ? ~0UL : (unsigned long)((size + PAGE_SIZE - 1) >> PAGE_SHIFT);
}

/* One populated PTE at addr of vma; counts RSS in rss[]. */
static void check_pte(struct mm_checker *c, struct vm_area_struct *vma, unsigned long addr,
		      pte_t *ptep, pte_t pte, long *rss)
{
	unsigned long index = linear_page_index(vma, addr);
	struct folio *folio;

	if (vma->vm_mapping && index >= file_pages(vma->vm_mapping))
		check_fail(c, "PTE at %#lx beyond EOF (file page %lu)", addr, index);
	if (!pte_present(pte) || pte_special(pte))
		return;
	folio = mm_folio_from_pte(pte);
	if (mm_folio_is_anon(folio)) {
		struct rmap_find rf = {vma, addr, false};

		rss[MM_ANONPAGES]++;
		rmap_walk(folio, rmap_find_one, &rf);
		if (!rf.found && ptep_get(ptep) == pte)
			check_fail(c,
				   "anonymous folio at %#lx not found by rmap (anon_vma %p, vma "
				   "anon_vma %p)",
				   addr, (void *)mm_folio_anon_vma(folio), (void *)vma->anon_vma);
		return;
	}
	rss[MM_FILEPAGES]++;
	if (!vma->vm_mapping || mm_folio_mapping(folio) != vma->vm_mapping)
		check_fail(c, "file folio at %#lx is not of the VMA's file", addr);
	else if (mm_folio_index(folio) != index)
		check_fail(c, "file folio at %#lx has index %lu, the VMA maps %lu there", addr,
			   mm_folio_index(folio), index);
}

int mm_check(struct mm_struct *mm)
{
	struct mm_checker c = {.mm = mm};
	long rss[NR_MM_COUNTERS] = {0}, tables = 0;
	struct vm_area_struct *vma;
	int i;

	rv_rcu_ensure();
	mmap_read_lock(mm);
	if (mm_validate(mm))
		check_fail(&c, "the VMA tree is inconsistent (above)");
	for_each_vma_idx(mm, i, vma) {
		if (vma->anon_vma && !vma_linked_to_own_anon_vma(vma))
			check_fail(&c, "VMA [%#lx, %#lx) is not linked to its anon_vma",
				   vma->vm_start, vma->vm_end);
		if (vma->vm_mapping && !vma_on_i_mmap(vma))
			check_fail(&c, "file VMA [%#lx, %#lx) is not on i_mmap", vma->vm_start,
				   vma->vm_end);
	}
	for (unsigned long g = 0; g < PTRS_PER_PGD; g++) {
		struct pt_page *pt = __atomic_load_n(&mm->pgd[g], __ATOMIC_ACQUIRE);
		unsigned long base = g << PGDIR_SHIFT;
		struct vm_area_struct *v;
		int populated = 0;

		if (!pt)
			continue;
		tables++;
		v = find_vma(mm, base);
		if (!v || v->vm_start >= base + PGDIR_SIZE)
			check_fail(&c, "page table for [%#lx, %#lx) covers no VMA", base,
				   base + PGDIR_SIZE);
		for (unsigned long k = 0; k < PTRS_PER_PTE; k++) {
			unsigned long addr = base + (k << PAGE_SHIFT);
			pte_t *ptep = &pt->ptes[k];
			pte_t pte = ptep_get(ptep);

			if (pte_none(pte))
				continue;
			populated++;
			v = vma_lookup(mm, addr);
			if (!v) {
				check_fail(&c, "PTE %#llx at %#lx outside every VMA",
					   (unsigned long long)pte, addr);
				continue;
			}
			check_pte(&c, v, addr, ptep, pte, rss);
		}
		spin_lock(&pt->ptl);
		if (pt->nr_present != populated)
			check_fail(&c, "page table for %#lx: nr_present %d, %d populated", base,
				   pt->nr_present, populated);
		spin_unlock(&pt->ptl);
	}
	if (tables != mm_nr_ptes(mm))
		check_fail(&c, "nr_ptes %ld, %ld page tables", mm_nr_ptes(mm), tables);
	for (int m = 0; m < NR_MM_COUNTERS; m++) {
		int64_t v = get_mm_counter(mm, m);

		if (v != rss[m])
			check_fail(&c, "RSS counter %d is %lld, %ld PTEs counted", m, (long long)v,
				   rss[m]);
	}
	mmap_read_unlock(mm);
	return c.errors ? -EINVAL : 0;
}
