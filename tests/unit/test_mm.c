// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_mm.c - mm: the VMA tree (insert, split, merge, lookups
 * under RCU during updates), per-VMA lock rules, page-table walks and each
 * anonymous fault type with contents checked, mprotect, NUMA hints, munmap
 * freeing folios and page tables.
 */
#include "test_mm_util.h"

#define BASE 0x20000000UL

/* ------------------------------------------------------------------ */
/* VMA tree                                                            */
/* ------------------------------------------------------------------ */

static void test_mmap_lookup(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	long a = mmt_map(mm, 0, 3 * PG, PROT_READ | PROT_WRITE);
	struct vm_area_struct *vma;

	CU_ASSERT_FATAL(a > 0);
	CU_ASSERT(((unsigned long)a & ~PAGE_MASK) == 0);
	mmap_read_lock(mm);
	vma = vma_lookup(mm, a + PG);
	CU_ASSERT_FATAL(vma != NULL);
	CU_ASSERT(vma->vm_start == (unsigned long)a && vma->vm_end == (unsigned long)a + 3 * PG);
	CU_ASSERT(vma_lookup(mm, a + 3 * PG) == NULL);
	CU_ASSERT(find_vma(mm, a - PG) == vma);
	CU_ASSERT(mm_map_count(mm) == 1);
	CU_ASSERT(mm_validate(mm) == 0);
	mmap_read_unlock(mm);
	/* errors */
	CU_ASSERT(vm_mmap(mm, 0, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, NULL, 0) == -EINVAL);
	CU_ASSERT(vm_mmap(mm, BASE + 1, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			  NULL, 0) == -EINVAL);
	CU_ASSERT(vm_mmap(mm, 0, PG, PROT_READ, MAP_PRIVATE, NULL, 0) == -EBADF);
	CU_ASSERT(vm_munmap(mm, BASE + 1, PG) == -EINVAL);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

static void test_merge_split(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	int rw = PROT_READ | PROT_WRITE;

	/* adjacent compatible mappings merge */
	CU_ASSERT(mmt_map(mm, BASE, 4 * PG, rw) == (long)BASE);
	CU_ASSERT(mmt_map(mm, BASE + 4 * PG, 4 * PG, rw) == (long)(BASE + 4 * PG));
	CU_ASSERT(mm_map_count(mm) == 1);
	/* below, too */
	CU_ASSERT(mmt_map(mm, BASE - 2 * PG, 2 * PG, rw) == (long)(BASE - 2 * PG));
	CU_ASSERT(mm_map_count(mm) == 1);
	/* different protection does not merge */
	CU_ASSERT(mmt_map(mm, BASE + 8 * PG, PG, PROT_READ) == (long)(BASE + 8 * PG));
	CU_ASSERT(mm_map_count(mm) == 2);
	mmt_fill(BASE - 2 * PG, 10 * PG, 7);

	/* mprotect in the middle splits into three, back merges into one */
	CU_ASSERT(vm_mprotect(mm, BASE + PG, 2 * PG, PROT_READ) == 0);
	CU_ASSERT(mm_map_count(mm) == 4);
	CU_ASSERT(mm_validate(mm) == 0);
	CU_ASSERT(vm_mprotect(mm, BASE + PG, 2 * PG, rw) == 0);
	CU_ASSERT(mm_map_count(mm) == 2);
	CU_ASSERT(mm_validate(mm) == 0);
	CU_ASSERT(mmt_check(BASE - 2 * PG, 10 * PG, 7));

	/* munmap in the middle splits; contents around it survive */
	CU_ASSERT(vm_munmap(mm, BASE + 2 * PG, PG) == 0);
	CU_ASSERT(mm_map_count(mm) == 3);
	CU_ASSERT(mmt_check(BASE - 2 * PG, 4 * PG, 7));
	CU_ASSERT(mmt_check(BASE + 3 * PG, PG, 7 + 5));
	{
		unsigned char c;

		CU_ASSERT(rv_mm_read(BASE + 2 * PG, &c, 1) == -EFAULT);
	}
	/* munmap across several VMAs and partial ends */
	CU_ASSERT(vm_munmap(mm, BASE + PG, 7 * PG + PG / 2) == 0);
	CU_ASSERT(mm_map_count(mm) == 1);
	CU_ASSERT(mm_validate(mm) == 0);
	CU_ASSERT(mmt_check(BASE - 2 * PG, 3 * PG, 7));
	/* mprotect over a hole fails */
	CU_ASSERT(vm_mprotect(mm, BASE - 2 * PG, 10 * PG, PROT_READ) == -ENOMEM);
	/* MAP_FIXED over an existing mapping replaces it (zero-filled) */
	CU_ASSERT(mmt_map(mm, BASE - PG, PG, rw) == (long)(BASE - PG));
	CU_ASSERT(mmt_check(BASE - 2 * PG, PG, 7));
	{
		unsigned char buf[PG], z[PG] = {0};

		CU_ASSERT(rv_mm_read(BASE - PG, buf, PG) == 0);
		CU_ASSERT(memcmp(buf, z, PG) == 0);
	}
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

static void test_many_vmas(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	const int n = 2000;

	/* one page mapped, one page hole: nothing merges */
	for (int i = 0; i < n; i++)
		CU_ASSERT_FATAL(mmt_map(mm, BASE + 2UL * i * PG, PG, PROT_READ | PROT_WRITE) ==
				(long)(BASE + 2UL * i * PG));
	CU_ASSERT(mm_map_count(mm) == n);
	mmap_read_lock(mm);
	for (int i = 0; i < n; i++) {
		struct vm_area_struct *v = vma_lookup(mm, BASE + 2UL * i * PG + 17);

		CU_ASSERT(v && v->vm_start == BASE + 2UL * i * PG);
		CU_ASSERT(vma_lookup(mm, BASE + (2UL * i + 1) * PG) == NULL);
	}
	mmap_read_unlock(mm);
	/* remove every other VMA, from the middle out */
	for (int i = 1; i < n; i += 2)
		CU_ASSERT(vm_munmap(mm, BASE + 2UL * i * PG, PG) == 0);
	CU_ASSERT(mm_map_count(mm) == n / 2);
	CU_ASSERT(mm_validate(mm) == 0);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/* Readers under RCU while a writer maps, splits, merges and unmaps. */
struct rcu_churn {
	struct mm_struct *mm;
	unsigned long stable;
	int stop; /* atomic */
	long found, misses, bad;
};

static void *rcu_reader(void *p)
{
	struct rcu_churn *c = p;

	/* at least 1000 lookups whatever the writer's pace (no timing) */
	for (long it = 0;
	     it < 200000 && (it < 1000 || !__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)); it++) {
		unsigned long addr = (it & 1) ? c->stable : BASE + (unsigned long)(it % 64) * PG;
		struct vm_area_struct *v = lock_vma_under_rcu(c->mm, addr);

		if (!v) {
			c->misses++;
			continue;
		}
		if (v->vm_start > addr || v->vm_end <= addr || vma_is_detached(v) ||
		    v->vm_mm != c->mm)
			c->bad++;
		c->found++;
		vma_end_read(v);
	}
	return NULL;
}

static void test_rcu_lookup_during_updates(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct rcu_churn c = {.mm = mm, .stable = BASE + 1024 * PG};
	struct mmt_thread th;
	struct task_struct *reader = task_clone_thread(t);

	CU_ASSERT_FATAL(reader != NULL);
	CU_ASSERT(mmt_map(mm, c.stable, PG, PROT_READ) == (long)c.stable);
	mmt_thread_start(&th, reader, rcu_reader, &c);
	for (int round = 0; round < 300 && !__atomic_load_n(&th.done, __ATOMIC_ACQUIRE); round++) {
		CU_ASSERT(mmt_map(mm, BASE, 64 * PG, PROT_READ | PROT_WRITE) == (long)BASE);
		CU_ASSERT(vm_mprotect(mm, BASE + 8 * PG, 8 * PG, PROT_READ) == 0);
		CU_ASSERT(vm_munmap(mm, BASE + 30 * PG, 2 * PG) == 0);
		CU_ASSERT(vm_mprotect(mm, BASE + 8 * PG, 8 * PG, PROT_READ | PROT_WRITE) == 0);
		CU_ASSERT(vm_munmap(mm, BASE, 64 * PG) == 0);
	}
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
	mmt_thread_join(&th);
	CU_ASSERT(c.bad == 0);
	CU_ASSERT(c.found > 0);
	mmt_exit(reader);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/* ------------------------------------------------------------------ */
/* per-VMA locks                                                       */
/* ------------------------------------------------------------------ */

static void test_vma_lock_rules(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct vm_area_struct *v, *v2;
	long a;

	/* a new VMA is born write-locked within its mmap_lock section */
	mmap_write_lock(mm);
	a = do_mmap(mm, BASE, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		    NULL, 0);
	CU_ASSERT_FATAL(a == (long)BASE);
	v = vma_lookup(mm, BASE);
	CU_ASSERT(vma_is_write_locked(v));
	CU_ASSERT(!vma_start_read(v));
	CU_ASSERT(lock_vma_under_rcu(mm, BASE) == NULL);
	mmap_write_unlock(mm);
	/* mmap_write_unlock released it */
	CU_ASSERT(!vma_is_write_locked(v));
	v2 = lock_vma_under_rcu(mm, BASE);
	CU_ASSERT(v2 == v);
	if (v2) {
		/* readers share */
		CU_ASSERT(vma_start_read(v));
		vma_end_read(v);
		vma_end_read(v2);
	}
	/* an explicit write lock refuses readers until mmap_write_unlock */
	mmap_write_lock(mm);
	vma_start_write(v);
	CU_ASSERT(!vma_start_read(v));
	vma_start_write(v); /* idempotent: returns early on the sequence match */
	mmap_write_unlock(mm);
	CU_ASSERT(vma_start_read(v));
	vma_end_read(v);
	/* mmap_write_unlock releases all of them at once */
	CU_ASSERT(mmt_map(mm, BASE + 2 * PG, PG, PROT_READ) == (long)(BASE + 2 * PG));
	mmap_write_lock(mm);
	v = vma_lookup(mm, BASE);
	v2 = vma_lookup(mm, BASE + 2 * PG);
	vma_start_write(v);
	vma_start_write(v2);
	CU_ASSERT(!vma_start_read(v) && !vma_start_read(v2));
	mmap_write_unlock(mm);
	CU_ASSERT(vma_start_read(v) && vma_start_read(v2));
	vma_end_read(v);
	vma_end_read(v2);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

struct unmap_arg {
	struct mm_struct *mm;
	unsigned long addr;
};

static void *unmapper(void *p)
{
	struct unmap_arg *u = p;

	return MMT_RC(vm_munmap(u->mm, u->addr, PG));
}

/* vma_start_write waits for the VMA's readers (a fault in progress). */
static void test_vma_write_waits_for_reader(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct task_struct *t2 = task_clone_thread(t);
	struct unmap_arg u = {mm, BASE};
	struct mmt_thread th;
	struct vm_area_struct *v;

	CU_ASSERT(mmt_map(mm, BASE, PG, PROT_READ | PROT_WRITE) == (long)BASE);
	v = lock_vma_under_rcu(mm, BASE);
	CU_ASSERT_FATAL(v != NULL);
	mmt_thread_start(&th, t2, unmapper, &u);
	/* the unmapper gets mmap_lock, then blocks in vma_start_write */
	for (int i = 0; i < 1000 && !rwsem_is_write_locked(&mm->mmap_lock); i++)
		sched_yield();
	CU_ASSERT(!__atomic_load_n(&th.done, __ATOMIC_ACQUIRE)); /* it cannot finish */
	CU_ASSERT(v->vm_start == BASE && !vma_is_detached(v));
	vma_end_read(v);
	CU_ASSERT(mmt_thread_join_rc(&th) == 0);
	CU_ASSERT(mm_map_count(mm) == 0);
	mmt_exit(t2);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/*
 * 6.15's vm_refcnt, step by step: 1 while the VMA is in the tree, +1 per
 * reader; a writer (munmap's vma_start_write) adds VMA_LOCK_OFFSET and
 * waits, which makes a new reader's limited inc-not-zero fail; once the
 * reader leaves the writer goes on, and the unmapped VMA is detached (0):
 * a reader that still holds the pointer gets -EAGAIN (look it up again).
 * The memory is kept readable by an RCU read section (vm_area_cache=rcu)
 * or by the typesafe cache.
 */
static void test_vm_refcnt_states(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct task_struct *t2 = task_clone_thread(t);
	struct unmap_arg u = {mm, BASE};
	struct mmt_thread th;
	struct vm_area_struct *v;
	long i;

	CU_ASSERT_FATAL(t2 != NULL);
	CU_ASSERT(mmt_map(mm, BASE, PG, PROT_READ | PROT_WRITE) == (long)BASE);
	v = vma_lookup(mm, BASE);
	CU_ASSERT_FATAL(v != NULL);
	CU_ASSERT_EQUAL(__atomic_load_n(&v->vm_refcnt, __ATOMIC_ACQUIRE), 1);
	CU_ASSERT(lock_vma_under_rcu(mm, BASE) == v);
	CU_ASSERT_EQUAL(__atomic_load_n(&v->vm_refcnt, __ATOMIC_ACQUIRE), 2);
	mmt_thread_start(&th, t2, unmapper, &u);
	/* the writer's offset arrives (bounded; the writer then waits for us) */
	for (i = 0; i < 10000000 &&
		    __atomic_load_n(&v->vm_refcnt, __ATOMIC_ACQUIRE) != VMA_LOCK_OFFSET + 2;
	     i++)
		sched_yield();
	CU_ASSERT_EQUAL(__atomic_load_n(&v->vm_refcnt, __ATOMIC_ACQUIRE), VMA_LOCK_OFFSET + 2);
	CU_ASSERT(!__atomic_load_n(&th.done, __ATOMIC_ACQUIRE));
	rcu_read_lock();
	CU_ASSERT_EQUAL(__vma_start_read(mm, v), -EBUSY); /* over VMA_REF_LIMIT */
	CU_ASSERT_EQUAL(__atomic_load_n(&v->vm_refcnt, __ATOMIC_ACQUIRE), VMA_LOCK_OFFSET + 2);
	vma_end_read(v);
	CU_ASSERT(mmt_thread_join_rc(&th) == 0);
	CU_ASSERT_EQUAL(__atomic_load_n(&v->vm_refcnt, __ATOMIC_ACQUIRE), 0);
	CU_ASSERT_EQUAL(__vma_start_read(mm, v), -EAGAIN);
	rcu_read_unlock();
	CU_ASSERT(mm_map_count(mm) == 0);
	mmt_exit(t2);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

static void *fault_writer(void *p)
{
	unsigned long addr = *(unsigned long *)p;
	unsigned char c = 0x5a;

	return MMT_RC(rv_mm_write(addr, &c, 1));
}

/* A fault finds its VMA write-locked: falls back to mmap_lock and waits. */
static void test_fault_falls_back(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct task_struct *t2 = task_clone_thread(t);
	unsigned long addr = BASE;
	uint64_t misses, vl;
	struct mmt_thread th;
	unsigned char c = 0;

	CU_ASSERT(mmt_map(mm, BASE, PG, PROT_READ | PROT_WRITE) == (long)BASE);
	vl = mmt_stat("vma_lock_faults");
	misses = mmt_stat("vma_lock_misses");
	mmap_write_lock(mm);
	vma_start_write(vma_lookup(mm, BASE));
	mmt_thread_start(&th, t2, fault_writer, &addr);
	/* the fault must miss the VMA lock (it cannot complete meanwhile) */
	for (long i = 0; mmt_stat("vma_lock_misses") == misses; i++) {
		CU_ASSERT_FATAL(i < 100000000);
		sched_yield();
	}
	CU_ASSERT(!__atomic_load_n(&th.done, __ATOMIC_ACQUIRE));
	mmap_write_unlock(mm);
	CU_ASSERT(mmt_thread_join_rc(&th) == 0);
	CU_ASSERT(mmt_stat("vma_lock_misses") > misses);
	CU_ASSERT(rv_mm_read(BASE, &c, 1) == 0);
	CU_ASSERT(c == 0x5a);
	/* uncontended: the fault completes under the VMA lock */
	c = 1;
	CU_ASSERT(mmt_map(mm, BASE + 2 * PG, PG, PROT_READ | PROT_WRITE) == (long)(BASE + 2 * PG));
	CU_ASSERT(rv_mm_write(BASE + 2 * PG, &c, 1) == 0);
	CU_ASSERT(mmt_stat("vma_lock_faults") > vl);
	mmt_exit(t2);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/* ------------------------------------------------------------------ */
/* page tables and faults                                              */
/* ------------------------------------------------------------------ */

static void test_anon_faults(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	unsigned char buf[PG], z[PG] = {0};
	uint64_t cow;
	pte_t pte;
	struct folio *f;

	CU_ASSERT(mmt_map(mm, BASE, 4 * PG, PROT_READ | PROT_WRITE) == (long)BASE);
	CU_ASSERT(mm_pte_read(mm, BASE) == 0);
	CU_ASSERT(mm_nr_ptes(mm) == 0);
	/* read fault: the zero page, read-only, not counted */
	CU_ASSERT(rv_mm_read(BASE, buf, PG) == 0);
	CU_ASSERT(memcmp(buf, z, PG) == 0);
	pte = mm_pte_read(mm, BASE);
	CU_ASSERT(pte_present(pte) && pte_special(pte) && !pte_write(pte));
	CU_ASSERT(mm_folio_from_pte(pte) == mm_zero_folio());
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 0);
	CU_ASSERT(mm_nr_ptes(mm) == 1);
	/* write after read: COW from the zero page */
	cow = mmt_stat("cow_faults");
	mmt_fill(BASE, PG, 1);
	CU_ASSERT(mmt_stat("cow_faults") == cow + 1);
	pte = mm_pte_read(mm, BASE);
	CU_ASSERT(pte_present(pte) && !pte_special(pte) && pte_write(pte) && pte_dirty(pte));
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 1);
	/* write fault on none: a new page directly */
	mmt_fill(BASE + PG, 3 * PG, 2);
	CU_ASSERT(mmt_stat("cow_faults") == cow + 1);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 4);
	CU_ASSERT(mmt_check(BASE, PG, 1) && mmt_check(BASE + PG, 3 * PG, 2));
	/* an access spanning pages */
	{
		unsigned char w[100], r[100];

		for (int i = 0; i < 100; i++)
			w[i] = (unsigned char)i;
		CU_ASSERT(rv_mm_write(BASE + PG - 50, w, 100) == 0);
		CU_ASSERT(rv_mm_read(BASE + PG - 50, r, 100) == 0);
		CU_ASSERT(memcmp(w, r, 100) == 0);
	}
	f = mm_folio_from_pte(mm_pte_read(mm, BASE + PG));
	CU_ASSERT(mm_folio_mapcount(f) == 1 && mm_folio_refcount(f) == 1);
	CU_ASSERT(mm_folio_is_anon(f));
	/* rmap of an unshared folio finds exactly its one mapping */
	CU_ASSERT(rmap_walk(f, NULL, NULL) == 1);
	/* the page-table walk sees ACCESSED set by the model hardware */
	CU_ASSERT(pte_young(mm_pte_read(mm, BASE + PG)));
	/* munmap frees folios and page tables */
	CU_ASSERT(vm_munmap(mm, BASE, 4 * PG) == 0);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 0);
	CU_ASSERT(mm_nr_ptes(mm) == 0);
	rcu_barrier();
	CU_ASSERT(mm_anon_folios_live() == 0);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

static void test_access_errors(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	unsigned char c = 1;

	CU_ASSERT(rv_mm_read(BASE, &c, 1) == -EFAULT);
	CU_ASSERT(mmt_map(mm, BASE, PG, PROT_READ) == (long)BASE);
	CU_ASSERT(rv_mm_read(BASE, &c, 1) == 0 && c == 0);
	CU_ASSERT(rv_mm_write(BASE, &c, 1) == -EFAULT);
	CU_ASSERT(mmt_map(mm, BASE + 2 * PG, PG, PROT_NONE) == (long)(BASE + 2 * PG));
	CU_ASSERT(rv_mm_read(BASE + 2 * PG, &c, 1) == -EFAULT);
	CU_ASSERT(rv_mm_read(TASK_SIZE - 1, &c, 2) == -EFAULT);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/* do_mprotect_pkey's arch_validate_prot: unknown PROT bits are EINVAL (after the length checks). */
static void test_mprotect_bad_prot(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;

	CU_ASSERT(mmt_map(mm, BASE, 2 * PG, PROT_READ) == (long)BASE);
	CU_ASSERT(vm_mprotect(mm, BASE, PG, 0x100) == -EINVAL);
	CU_ASSERT(vm_mprotect(mm, BASE, PG, PROT_READ | 0x1000000) == -EINVAL);
	CU_ASSERT(vm_mprotect(mm, BASE, 0, 0x100) == 0);	 /* len 0: done first */
	CU_ASSERT(vm_mprotect(mm, BASE, -PG, 0x100) == -ENOMEM); /* the end wraps */
	CU_ASSERT(vm_mprotect(mm, BASE, PG, PROT_READ | PROT_WRITE | 0x8) == 0); /* PROT_SEM */
	CU_ASSERT(mm_map_count(mm) == 2);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/*
 * VM_ACCOUNT and VM_NORESERVE (do_mmap, accountable_mapping, mprotect_fixup;
 * Linux 6.18) are VMA flags, so they decide merges: a private writable
 * mapping is charged (VM_ACCOUNT) and keeps the charge through mprotect to
 * read-only once it has an anon_vma, so a read-only neighbour stays apart;
 * without an anon_vma the charge goes and they merge.  MAP_NORESERVE
 * mappings are VM_NORESERVE and never charged.
 */
static void test_vm_account_flags(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct vm_area_struct *vma;
	unsigned char c = 1;

	CU_ASSERT(mmt_map(mm, BASE, PG, PROT_READ | PROT_WRITE) == (long)BASE);
	CU_ASSERT(rv_mm_write(BASE, &c, 1) == 0); /* an anon_vma */
	CU_ASSERT(vm_mprotect(mm, BASE, PG, PROT_READ) == 0);
	CU_ASSERT(mmt_map(mm, BASE + PG, PG, PROT_READ) == (long)(BASE + PG));
	CU_ASSERT(mm_map_count(mm) == 2);
	mmap_read_lock(mm);
	vma = vma_lookup(mm, BASE);
	CU_ASSERT(vma && (vma->vm_flags & VM_ACCOUNT));
	vma = vma_lookup(mm, BASE + PG);
	CU_ASSERT(vma && !(vma->vm_flags & VM_ACCOUNT));
	mmap_read_unlock(mm);
	/* no anon_vma: mprotect drops the charge, and the two merge */
	CU_ASSERT(mmt_map(mm, BASE + 8 * PG, PG, PROT_READ | PROT_WRITE) == (long)(BASE + 8 * PG));
	CU_ASSERT(vm_mprotect(mm, BASE + 8 * PG, PG, PROT_READ) == 0);
	CU_ASSERT(mmt_map(mm, BASE + 9 * PG, PG, PROT_READ) == (long)(BASE + 9 * PG));
	CU_ASSERT(mm_map_count(mm) == 3);
	/* MAP_NORESERVE: VM_NORESERVE, no VM_ACCOUNT, not merged with a charged neighbour */
	CU_ASSERT(vm_mmap(mm, BASE + 16 * PG, PG, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, NULL,
			  0) == (long)(BASE + 16 * PG));
	CU_ASSERT(mmt_map(mm, BASE + 17 * PG, PG, PROT_READ | PROT_WRITE) ==
		  (long)(BASE + 17 * PG));
	CU_ASSERT(mm_map_count(mm) == 5);
	mmap_read_lock(mm);
	vma = vma_lookup(mm, BASE + 16 * PG);
	CU_ASSERT(vma && (vma->vm_flags & (VM_NORESERVE | VM_ACCOUNT)) == VM_NORESERVE);
	mmap_read_unlock(mm);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/*
 * mprotect_fixup (Linux 6.18): a private VM_LOCKED VMA made writable is
 * populated at once (its pages COW'd), so locked memory takes no fault later.
 */
static void test_mprotect_locked_populates(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;

	CU_ASSERT(mmt_map(mm, BASE, 2 * PG, PROT_READ) == (long)BASE);
	CU_ASSERT(mmt_map(mm, BASE + 4 * PG, 2 * PG, PROT_READ) == (long)(BASE + 4 * PG));
	CU_ASSERT(vm_mlock(mm, BASE, 2 * PG) == 0);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 0); /* the zero page */
	CU_ASSERT(vm_mprotect(mm, BASE, 6 * PG, PROT_READ | PROT_WRITE) == -ENOMEM);
	CU_ASSERT(vm_mprotect(mm, BASE, 2 * PG, PROT_READ | PROT_WRITE) == 0);
	CU_ASSERT(vm_mprotect(mm, BASE + 4 * PG, 2 * PG, PROT_READ | PROT_WRITE) == 0);
	/* the locked VMA's two pages, not the unlocked one's */
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 2);
	CU_ASSERT(pte_write(mm_pte_read(mm, BASE)) && pte_write(mm_pte_read(mm, BASE + PG)));
	CU_ASSERT(mm_pte_read(mm, BASE + 4 * PG) == 0);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/*
 * do_mprotect_pkey and mprotect_fixup (mm/mprotect.c, Linux 6.18): each
 * VMA of the range is changed, merged, then populated (a private VM_LOCKED
 * VMA made writable: populate_vma_page_range) before the walk moves on.
 * A and B have no anon_vma, C has one.  A's populate gives A a new
 * anon_vma (B, its only neighbour, has none to reuse), B merges into A,
 * and C, whose anon_vma differs, stays apart: two VMAs, not one.
 */
static void test_mprotect_locked_populate_in_walk(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct vm_area_struct *a, *c;

	CU_ASSERT(mmt_map(mm, BASE, PG, PROT_READ) == (long)BASE);
	CU_ASSERT(mmt_map(mm, BASE + PG, PG, PROT_READ | PROT_EXEC) == (long)(BASE + PG));
	CU_ASSERT(mmt_map(mm, BASE + 2 * PG, PG, PROT_READ | PROT_WRITE) == (long)(BASE + 2 * PG));
	mmt_fill(BASE + 2 * PG, PG, 1);
	CU_ASSERT(vm_mprotect(mm, BASE + 2 * PG, PG, PROT_READ) == 0);
	CU_ASSERT(vm_mlock(mm, BASE, 3 * PG) == 0);
	CU_ASSERT(mm_map_count(mm) == 3);
	CU_ASSERT(vm_mprotect(mm, BASE, 3 * PG, PROT_READ | PROT_WRITE) == 0);
	CU_ASSERT(mm_map_count(mm) == 2);
	mmap_read_lock(mm);
	a = vma_lookup(mm, BASE);
	c = vma_lookup(mm, BASE + 2 * PG);
	CU_ASSERT(a && c && a != c && a->vm_end == BASE + 2 * PG);
	CU_ASSERT(a && c && a->anon_vma && c->anon_vma && a->anon_vma != c->anon_vma);
	mmap_read_unlock(mm);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 3);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/*
 * mprotect_fixup (mm/mprotect.c, Linux 6.18) returns at once when newflags
 * equals the old flags, before the VM_ACCOUNT drop for an unwritable
 * anonymous VMA without an anon_vma is considered.  A fork child's copy of
 * a charged read-only VM_WIPEONFORK VMA has no anon_vma (dup_mmap);
 * mprotect to the protection it already has keeps its VM_ACCOUNT.
 */
static void test_mprotect_same_prot_keeps_account(void)
{
	struct task_struct *p = mmt_new_proc(), *c;
	struct vm_area_struct *vma;

	CU_ASSERT(mmt_map(p->mm, BASE, 2 * PG, PROT_READ | PROT_WRITE) == (long)BASE);
	mmt_fill(BASE, 2 * PG, 1);
	CU_ASSERT(vm_mprotect(p->mm, BASE, 2 * PG, PROT_READ) == 0);
	CU_ASSERT(do_madvise(p->mm, BASE, 2 * PG, MADV_WIPEONFORK) == 0);
	c = task_fork(p);
	CU_ASSERT_FATAL(c != NULL);
	mmap_read_lock(c->mm);
	vma = vma_lookup(c->mm, BASE);
	CU_ASSERT(vma && !vma->anon_vma && (vma->vm_flags & VM_ACCOUNT));
	mmap_read_unlock(c->mm);
	CU_ASSERT(vm_mprotect(c->mm, BASE + PG, PG, PROT_READ) == 0);
	CU_ASSERT(mm_map_count(c->mm) == 1);
	mmap_read_lock(c->mm);
	vma = vma_lookup(c->mm, BASE + PG);
	CU_ASSERT(vma && vma->vm_start == BASE && (vma->vm_flags & VM_ACCOUNT));
	mmap_read_unlock(c->mm);
	mmt_exit(c);
	mmt_exit(p);
	CU_ASSERT(mmt_all_freed());
}

/*
 * mprotect_fixup and mlock_fixup (Linux 6.18) return at once when a VMA's
 * flags do not change: no split, no merge.  A fork child's copies of three
 * VMAs that differed only by VM_LOCKED are identical but stay apart through
 * munlock, mprotect to their own protection and munlockall.  A changed VMA
 * that both neighbours could take, with different anon_vmas, goes to the
 * previous one (vma_merge_existing_range).
 */
static void test_modify_flags_merges(void)
{
	struct task_struct *p = mmt_new_proc(), *c;
	struct mm_struct *mm = p->mm;
	struct vm_area_struct *vma;
	const int rw = PROT_READ | PROT_WRITE;

	CU_ASSERT(mmt_map(mm, BASE, 3 * PG, rw) == (long)BASE);
	CU_ASSERT(vm_mlock(mm, BASE + PG, PG) == 0);
	CU_ASSERT(mm_map_count(mm) == 3);
	c = task_fork(p);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT(mm_map_count(c->mm) == 3); /* VM_LOCKED not inherited: 3 alike */
	CU_ASSERT(vm_munlock(c->mm, BASE, 3 * PG) == 0);
	CU_ASSERT(vm_mprotect(c->mm, BASE, 3 * PG, rw) == 0);
	CU_ASSERT(vm_munlockall(c->mm) == 0);
	CU_ASSERT(mm_map_count(c->mm) == 3);
	mmt_exit(c);
	/* left preference: A (anon_vma), B (none), C (another anon_vma) */
	CU_ASSERT(mmt_map(mm, BASE + 8 * PG, PG, rw) == (long)(BASE + 8 * PG));
	CU_ASSERT(mmt_map(mm, BASE + 9 * PG, PG, PROT_NONE) == (long)(BASE + 9 * PG));
	CU_ASSERT(mmt_map(mm, BASE + 10 * PG, PG, rw) == (long)(BASE + 10 * PG));
	mmt_fill(BASE + 8 * PG, PG, 1);
	mmt_fill(BASE + 10 * PG, PG, 2);
	CU_ASSERT(vm_mprotect(mm, BASE + 9 * PG, PG, rw) == 0);
	mmap_read_lock(mm);
	vma = vma_lookup(mm, BASE + 9 * PG);
	CU_ASSERT(vma && vma->vm_start == BASE + 8 * PG && vma->vm_end == BASE + 10 * PG);
	mmap_read_unlock(mm);
	CU_ASSERT(mmt_check(BASE + 8 * PG, PG, 1) && mmt_check(BASE + 10 * PG, PG, 2));
	mmt_exit(p);
	CU_ASSERT(mmt_all_freed());
}

static void test_mprotect_and_wp_reuse(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	uint64_t reuse, cow;
	struct folio *f;
	unsigned char c = 9;

	CU_ASSERT(mmt_map(mm, BASE, 2 * PG, PROT_READ | PROT_WRITE) == (long)BASE);
	mmt_fill(BASE, 2 * PG, 40);
	f = mm_folio_from_pte(mm_pte_read(mm, BASE));
	/* read-only: PTEs lose RW, writes fail, data stays */
	CU_ASSERT(vm_mprotect(mm, BASE, 2 * PG, PROT_READ) == 0);
	CU_ASSERT(!pte_write(mm_pte_read(mm, BASE)));
	CU_ASSERT(rv_mm_write(BASE, &c, 1) == -EFAULT);
	CU_ASSERT(mmt_check(BASE, 2 * PG, 40));
	/* PROT_NONE: PTEs stay populated but inaccessible */
	CU_ASSERT(vm_mprotect(mm, BASE, 2 * PG, PROT_NONE) == 0);
	CU_ASSERT(pte_protnone(mm_pte_read(mm, BASE)));
	CU_ASSERT(rv_mm_read(BASE, &c, 1) == -EFAULT);
	/* back to read-write: the first write takes a wp fault that reuses
	 * the exclusive folio in place */
	CU_ASSERT(vm_mprotect(mm, BASE, 2 * PG, PROT_READ | PROT_WRITE) == 0);
	CU_ASSERT(mm_map_count(mm) == 1);
	CU_ASSERT(mmt_check(BASE, 2 * PG, 40));
	reuse = mmt_stat("wp_reuses");
	cow = mmt_stat("cow_faults");
	CU_ASSERT(rv_mm_write(BASE, &c, 1) == 0);
	CU_ASSERT(mmt_stat("wp_reuses") == reuse + 1);
	CU_ASSERT(mmt_stat("cow_faults") == cow);
	CU_ASSERT(mm_folio_from_pte(mm_pte_read(mm, BASE)) == f);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 2);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

static void test_numa_hint(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	uint64_t numa;
	long n;

	CU_ASSERT(mmt_map(mm, BASE, 4 * PG, PROT_READ | PROT_WRITE) == (long)BASE);
	mmt_fill(BASE, 3 * PG, 60);
	mmap_read_lock(mm);
	n = change_prot_numa(vma_lookup(mm, BASE), BASE, BASE + 4 * PG);
	mmap_read_unlock(mm);
	CU_ASSERT(n == 3);
	CU_ASSERT(pte_protnone(mm_pte_read(mm, BASE)));
	numa = mmt_stat("numa_hint_faults");
	CU_ASSERT(mmt_check(BASE, 3 * PG, 60));
	CU_ASSERT(mmt_stat("numa_hint_faults") == numa + 3);
	/* the saved write bit came back: writing needs no further fault */
	CU_ASSERT(pte_write(mm_pte_read(mm, BASE)));
	mmt_fill(BASE, 3 * PG, 61);
	CU_ASSERT(mmt_check(BASE, 3 * PG, 61));
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 3);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/* Page tables over several top-level slots; partial unmaps keep shared tables. */
static void test_pgtable_span(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	unsigned long a = 0x40000000UL - 2 * PG; /* straddles a PGDIR boundary */

	CU_ASSERT(mmt_map(mm, a, PGDIR_SIZE + 4 * PG, PROT_READ | PROT_WRITE) == (long)a);
	mmt_fill(a, 4 * PG, 3);
	mmt_fill(a + PGDIR_SIZE, 4 * PG, 9);
	CU_ASSERT(mm_nr_ptes(mm) == 3);
	/* unmapping the only part in the first table frees that table;
	 * tables still covered by the VMA stay */
	CU_ASSERT(vm_munmap(mm, a, 2 * PG) == 0);
	CU_ASSERT(mm_nr_ptes(mm) == 2);
	CU_ASSERT(mmt_check(a + 2 * PG, 2 * PG, 5));
	CU_ASSERT(vm_munmap(mm, a + 2 * PG, PGDIR_SIZE) == 0);
	CU_ASSERT(mm_nr_ptes(mm) == 1);
	CU_ASSERT(mmt_check(a + PGDIR_SIZE + 2 * PG, 2 * PG, 11));
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 2);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/*
 * mm_check finds what it is there to find: each invariant is broken behind
 * the model's back (RSS, a VMA's bounds, a file's size), checked, and
 * restored, so the address space exits clean.
 */
static void test_mm_check_detects(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/mmcheck", 2, 0x30);
	struct vm_area_struct *vma;
	int64_t size;

	CU_ASSERT(mmt_map(mm, BASE, 2 * PG, PROT_READ | PROT_WRITE) == (long)BASE);
	mmt_fill(BASE, 2 * PG, 1);
	CU_ASSERT(vm_mmap(mm, BASE + 16 * PG, 2 * PG, PROT_READ, MAP_SHARED | MAP_FIXED, f, 0) ==
		  (long)(BASE + 16 * PG));
	CU_ASSERT(mmt_check(BASE + 16 * PG, 2 * PG, 0x30));
	CU_ASSERT(mm_check(mm) == 0);
	/* RSS that does not match the PTEs */
	percpu_counter_add(&mm->rss_stat[MM_ANONPAGES], 1);
	CU_ASSERT(mm_check(mm) != 0);
	percpu_counter_add(&mm->rss_stat[MM_ANONPAGES], -1);
	CU_ASSERT(mm_check(mm) == 0);
	/* a PTE outside every VMA (the VMA shrunk without a zap) */
	mmap_write_lock(mm);
	vma = vma_lookup(mm, BASE);
	vma->vm_start += PG;
	vma->vm_pgoff += 1;
	mmap_write_unlock(mm);
	CU_ASSERT(mm_check(mm) != 0);
	mmap_write_lock(mm);
	vma->vm_start -= PG;
	vma->vm_pgoff -= 1;
	mmap_write_unlock(mm);
	CU_ASSERT(mm_check(mm) == 0);
	/* a file page mapped beyond EOF (the size shrunk without truncate's unmap) */
	size = f->f_mapping->host->i_size;
	__atomic_store_n(&f->f_mapping->host->i_size, (int64_t)PG, __ATOMIC_RELEASE);
	CU_ASSERT(mm_check(mm) != 0);
	__atomic_store_n(&f->f_mapping->host->i_size, size, __ATOMIC_RELEASE);
	CU_ASSERT(mm_check(mm) == 0);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/mmcheck") == 0);
	CU_ASSERT(mmt_all_freed());
}

RVTEST_SUITE(mm_vma, rvtest_instance_init, rvtest_instance_cleanup, RVTEST(test_mmap_lookup),
	     RVTEST(test_merge_split), RVTEST(test_many_vmas))
/* the per-VMA lock's rules and races, under each of its designs */
MMT_VMA_SUITES(mm_vma_lock, NULL, RVTEST(test_vma_lock_rules),
	       RVTEST(test_vma_write_waits_for_reader), RVTEST(test_fault_falls_back),
	       RVTEST(test_rcu_lookup_during_updates))
MMT_VMA_SUITE1(mm_vm_refcnt, _rcu, "vma_lock=refcnt", "vm_area_cache=rcu", NULL,
	       RVTEST(test_vm_refcnt_states))
MMT_VMA_SUITE1(mm_vm_refcnt, _typesafe, "vma_lock=refcnt", "vm_area_cache=typesafe", NULL,
	       RVTEST(test_vm_refcnt_states))
RVTEST_SUITE(mm_fault, rvtest_instance_init, rvtest_instance_cleanup, RVTEST(test_anon_faults),
	     RVTEST(test_access_errors), RVTEST(test_mprotect_bad_prot),
	     RVTEST(test_vm_account_flags), RVTEST(test_mprotect_locked_populates),
	     RVTEST(test_mprotect_locked_populate_in_walk),
	     RVTEST(test_mprotect_same_prot_keeps_account), RVTEST(test_modify_flags_merges),
	     RVTEST(test_mprotect_and_wp_reuse), RVTEST(test_numa_hint), RVTEST(test_pgtable_span),
	     RVTEST(test_mm_check_detects))
