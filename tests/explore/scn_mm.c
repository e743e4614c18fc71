// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_mm.c - mm scenarios: a parent thread's first write
 * racing fork (every fork_vma_lock), and the NUMA scanner's PTE window
 * racing a file fault on a page whose file folio was reclaimed (every
 * pte_recheck; the merged recheck covers VM_LOCKED VMAs only, so without
 * mlock it still takes the spurious major fault); first-touch faults vs
 * VMA splits, merges and extension, truncate vs a COW fault, exit vs
 * fsync, and a lockless fault vs munmap and an mmap that reuses its
 * SLAB_TYPESAFE_BY_RCU VMA (vma-reuse), mremap moving a VMA under a fault
 * (mremap-fault) and madvise(MADV_DONTNEED) beside one (dontneed-fault).
 * The scenarios whose faults take
 * the per-VMA lock run under every accepted vma_lock x vm_area_cache pair
 * (vma_cross).
 *
 * What users see is checked from outside the fault and fork code:
 *  - fork-write: after fork, the parent writes again; the child's copy must
 *    still read what it read at fork (0 or the first write), never the
 *    parent's later write (copy-on-write broken), and every page the child
 *    maps must be reachable through the rmap, and both address spaces must
 *    pass mm_check.  Since faults prepare an anon_vma only under mmap_lock
 *    (vmf_anon_prepare), the first write waits for fork in every
 *    fork_vma_lock mode: no interleaving fails, not even under never.
 *  - numa-fault: the read returns the COW'd data, and no major fault
 *    happened (majflt unchanged, the file folio not read back into the page
 *    cache): the page was mapped all along.
 *
 * Locking: the tasks are threads of one model process; setup and check run
 * on the driver while no task runs.
 */
#include "explore.h"

#include <string.h>
#include <sys/mman.h>

#define XBASE 0x20000000UL
#define XRW   (PROT_READ | PROT_WRITE)

/*
 * Every accepted pair of the per-VMA lock and the VMA cache (vma_lock,
 * vm_area_cache; the typesafe caches need vma_lock=refcnt): the scenarios
 * whose faults take the per-VMA lock run each matrix line under each.
 */
static const char *const vma_cross[] = {
    "",
    "vm_area_cache=sheaves",
    "vma_lock=refcnt",
    "vma_lock=refcnt,vm_area_cache=typesafe",
    "vma_lock=refcnt,vm_area_cache=sheaves",
    "vma_lock=refcnt,vm_area_cache=typesafe-sheaves",
    NULL,
};

static uint64_t stat_of(const char *name)
{
	uint64_t v = 0;

	rv_stat_read(name, &v);
	return v;
}

/* ---- fork vs the parent's first write ----------------------------------------- */

struct fork_priv {
	struct task_struct *child;
};

static int fork_setup(struct xs_run *r)
{
	struct task_struct *p = xs_process(r, 0, "parent");

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p))
		return -ENOMEM;
	if (vm_mmap(p->mm, XBASE, 2 * PAGE_SIZE, XRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL,
		    0) != (long)XBASE)
		return -ENOMEM;
	if (xs_param_is(r, "touched", "yes")) {
		unsigned char v = 0x11;

		/* the VMA has its anon_vma: a fault on page 1 runs under the VMA lock */
		if (rv_mm_write(XBASE + PAGE_SIZE, &v, 1))
			return -EIO;
	}
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

static long fork_op(struct xs_run *r, int task, int op)
{
	struct fork_priv *fp = r->priv;
	unsigned char v = 0x42;

	if (task == 0)
		return rv_mm_write(XBASE, &v, 1);
	fp->child = task_fork(current);
	return fp->child ? 0 : -errno;
}

static int fork_check(struct xs_run *r, char *why, size_t len)
{
	struct fork_priv *fp = r->priv;
	struct mm_struct *pm = r->task[0]->mm, *cm;
	unsigned char before = 0xff, after = 0xff, v = 0x99, pv = 0;
	int bad;

	if (!fp->child) {
		snprintf(why, len, "fork failed");
		return 1;
	}
	cm = fp->child->mm;
	if (mm_access(cm, XBASE, &before, 1, false) || (before != 0 && before != 0x42)) {
		snprintf(why, len, "the child reads 0x%02x after fork (0 or 0x42 expected)",
			 before);
		return 1;
	}
	bad = mm_check(cm);
	if (bad) {
		snprintf(why, len, "mm_check of the child fails (a page its rmap cannot find?)");
		return 1;
	}
	if (mm_access(pm, XBASE, &v, 1, true) || mm_access(pm, XBASE, &pv, 1, false) ||
	    pv != 0x99) {
		snprintf(why, len, "the parent's own write is lost");
		return 1;
	}
	if (mm_access(cm, XBASE, &after, 1, false) || after != before) {
		snprintf(why, len,
			 "the parent's write after fork shows in the child (0x%02x, was 0x%02x): "
			 "copy-on-write broken",
			 after, before);
		return 1;
	}
	if (mm_check(pm) || mm_check(cm)) {
		snprintf(why, len, "mm_check fails (parent or child)");
		return 1;
	}
	return 0;
}

static void fork_teardown(struct xs_run *r)
{
	struct fork_priv *fp = r->priv;

	if (fp->child)
		task_exit(fp->child);
	fp->child = NULL;
	xs_exit_tasks(r);
}

static struct xscenario fork_write = {
    .name = "fork-write",
    .summary = "a parent thread's first write to an anon VMA vs another parent thread's fork",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"write(0x42)"}, {"fork"}},
    .params = {{"touched",
		{"no", "yes"},
		"whether another page of the VMA was written before (the VMA has an anon_vma)"}},
    .variants =
	{
	    {"fork_vma_lock=always", false},
	    {"fork_vma_lock=elide-single", false},
	    {"fork_vma_lock=never", false},
	    {"fork_vma_lock=always,touched=yes", false},
	    {"fork_vma_lock=elide-single,touched=yes", false},
	    {"fork_vma_lock=never,touched=yes", false},
	},
    .cross = vma_cross,
    .cross_k = 1, /* the other pairs at K = 1 (CTest's time; long mode: K = 3) */
    .priv_size = sizeof(struct fork_priv),
    .setup = fork_setup,
    .op = fork_op,
    .check = fork_check,
    .teardown = fork_teardown,
};
XSCENARIO(fork_write)

/* ---- NUMA scanner vs a file fault (seed-003) ----------------------------------- */

struct numa_priv {
	struct file *f;
	uint64_t majflt;
	unsigned char got;
};

static int numa_setup(struct xs_run *r)
{
	struct numa_priv *np = r->priv;
	struct task_struct *p = xs_process(r, 0, "numa");
	unsigned char buf[PAGE_SIZE], b = 0x77;
	int64_t pos = 0;

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p) || filp_open("/xnuma", O_RDWR | O_CREAT, 0644, &np->f))
		return -EIO;
	memset(buf, 0x11, sizeof(buf));
	if (vfs_write(np->f, buf, PAGE_SIZE, &pos) != (ssize_t)PAGE_SIZE)
		return -EIO;
	/* the seed: mlockall (its populate COWs the page); else an explicit COW */
	if (xs_param_is(r, "mlock", "yes") && vm_mlockall(p->mm, MCL_CURRENT | MCL_FUTURE))
		return -EIO;
	if (vm_mmap(p->mm, XBASE, PAGE_SIZE, XRW, MAP_PRIVATE | MAP_FIXED, np->f, 0) != (long)XBASE)
		return -EIO;
	/* write the COW'd page, then reclaim the file folio: a lookup misses */
	if (rv_mm_write(XBASE, &b, 1))
		return -EIO;
	mm_reclaim_folios(1000);
	if (filemap_get_folio(np->f->f_mapping, 0))
		return -EIO;
	np->majflt = stat_of("majflt");
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

static long numa_op(struct xs_run *r, int task, int op)
{
	struct numa_priv *np = r->priv;

	if (task == 0)
		return task_numa_work(current->mm);
	np->got = 0;
	if (rv_mm_read(XBASE, &np->got, 1))
		return -EFAULT;
	return np->got;
}

static int numa_check(struct xs_run *r, char *why, size_t len)
{
	struct numa_priv *np = r->priv;
	struct folio *fo;

	if (r->result[1][0] != 0x77) {
		snprintf(why, len, "the read returned %ld, not the COW'd 0x77", r->result[1][0]);
		return 1;
	}
	fo = filemap_get_folio(np->f->f_mapping, 0);
	if (fo)
		folio_put(fo);
	if (stat_of("majflt") != np->majflt || fo) {
		snprintf(why, len,
			 "a major fault for a page mapped all along (majflt +%lu, file page %s the "
			 "page cache)",
			 (unsigned long)(stat_of("majflt") - np->majflt),
			 fo ? "read back into" : "not in");
		return 1;
	}
	if (mm_check(r->task[0]->mm)) {
		snprintf(why, len, "mm_check fails");
		return 1;
	}
	return 0;
}

static void numa_teardown(struct xs_run *r)
{
	struct numa_priv *np = r->priv;

	xs_exit_tasks(r);
	if (np->f)
		fput(np->f);
	np->f = NULL;
	do_unlink("/xnuma");
}

static struct xscenario numa_fault = {
    .name = "numa-fault",
    .summary = "the NUMA scanner's PTE window vs a read fault on a COW'd page whose file "
	       "folio was reclaimed",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"task_numa_work"}, {"read"}},
    .params = {{"mlock",
		{"yes", "no"},
		"mlockall before the mapping (the seed's program), or a plain private mapping"}},
    .variants =
	{
	    {"pte_recheck=1", false},
	    {"pte_recheck=rfc", false},
	    {"pte_recheck=rfc,mlock=no", false},
	    {"pte_recheck=0", true},
	    {"pte_recheck=1,mlock=no", true}, /* as merged: VM_LOCKED VMAs only */
	},
    .cross = vma_cross,
    .priv_size = sizeof(struct numa_priv),
    .setup = numa_setup,
    .op = numa_op,
    .check = numa_check,
    .teardown = numa_teardown,
};
XSCENARIO(numa_fault)

/* ---- truncate vs a COW fault ------------------------------------------------- */

struct trunc_priv {
	struct file *f;
};

static int trunc_setup(struct xs_run *r)
{
	struct trunc_priv *tp = r->priv;
	struct task_struct *p = xs_process(r, 0, "cow");
	unsigned char buf[PAGE_SIZE];
	int64_t pos = 0;

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p) || filp_open("/xtrunc", O_RDWR | O_CREAT, 0644, &tp->f))
		return -EIO;
	for (int i = 0; i < 2; i++) {
		memset(buf, 0x11 + i, sizeof(buf));
		if (vfs_write(tp->f, buf, PAGE_SIZE, &pos) != (ssize_t)PAGE_SIZE)
			return -EIO;
	}
	if (vm_mmap(p->mm, XBASE, 2 * PAGE_SIZE, XRW, MAP_PRIVATE | MAP_FIXED, tp->f, 0) !=
	    (long)XBASE)
		return -EIO;
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

static long trunc_op(struct xs_run *r, int task, int op)
{
	struct trunc_priv *tp = r->priv;
	unsigned char v = 0x55;

	if (task == 0) /* the first access to page 1 is a write: do_cow_fault */
		return rv_mm_write(XBASE + PAGE_SIZE, &v, 1);
	return vfs_truncate(tp->f->f_inode, PAGE_SIZE);
}

static int trunc_check(struct xs_run *r, char *why, size_t len)
{
	struct mm_struct *mm = r->task[0]->mm;
	unsigned char v = 0;
	int err = mm_access(mm, XBASE + PAGE_SIZE, &v, 1, false);

	/* page 1 is beyond EOF now: Linux raises SIGBUS on any access */
	if (!err) {
		snprintf(why, len,
			 "page 1 is beyond EOF after truncate but still mapped and readable "
			 "(0x%02x): a COW copy installed after truncate's unmap",
			 v);
		return 1;
	}
	if (mm_check(mm)) {
		snprintf(why, len, "mm_check fails");
		return 1;
	}
	return 0;
}

static void trunc_teardown(struct xs_run *r)
{
	struct trunc_priv *tp = r->priv;

	xs_exit_tasks(r);
	if (tp->f)
		fput(tp->f);
	tp->f = NULL;
	do_unlink("/xtrunc");
}

static struct xscenario truncate_cow = {
    .name = "truncate-cow",
    .summary = "a write fault copying page 1 of a private file mapping vs truncate to one page",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"write(page 1)"}, {"truncate(1 page)"}},
    .variants =
	{
	    {"", false},
	},
    .cross = vma_cross,
    .cross_k = 1, /* the other pairs at K = 1 (CTest's time; long mode: K = 3) */
    .priv_size = sizeof(struct trunc_priv),
    .setup = trunc_setup,
    .op = trunc_op,
    .check = trunc_check,
    .teardown = trunc_teardown,
};
XSCENARIO(truncate_cow)

/* ---- exit_mmap vs fsync ------------------------------------------------------ */

struct exit_priv {
	struct file *f;
	struct task_struct *exiting; /* the process whose mm goes away */
};

static int exit_setup(struct xs_run *r)
{
	struct exit_priv *ep = r->priv;
	unsigned char buf[PAGE_SIZE], v = 0x5a;
	int64_t pos = 0;

	ep->exiting = task_create_process("exiting");
	if (!ep->exiting || !xs_process(r, 0, "fsync") || !xs_process(r, 1, "exiter"))
		return -ENOMEM;
	task_attach(ep->exiting);
	if (exec_mm(ep->exiting) || filp_open("/xexit", O_RDWR | O_CREAT, 0644, &ep->f))
		return -EIO;
	memset(buf, 0x10, sizeof(buf));
	if (vfs_write(ep->f, buf, PAGE_SIZE, &pos) != (ssize_t)PAGE_SIZE)
		return -EIO;
	if (vm_mmap(ep->exiting->mm, XBASE, PAGE_SIZE, XRW, MAP_SHARED | MAP_FIXED, ep->f, 0) !=
	    (long)XBASE)
		return -EIO;
	/* a dirty PTE: fsync's folio_mkclean walks into this page table */
	return mm_access(ep->exiting->mm, XBASE, &v, 1, true) ? -EIO : 0;
}

static long exit_op(struct xs_run *r, int task, int op)
{
	struct exit_priv *ep = r->priv;

	if (task == 0)
		return vfs_fsync(ep->f, 0);
	task_exit(ep->exiting);
	ep->exiting = NULL;
	return 0;
}

static int exit_check(struct xs_run *r, char *why, size_t len)
{
	struct exit_priv *ep = r->priv;
	unsigned char b = 0;
	int64_t pos = 0;

	if (r->result[0][0] != 0) {
		snprintf(why, len, "fsync returned %ld", r->result[0][0]);
		return 1;
	}
	if (vfs_read(ep->f, &b, 1, &pos) != 1 || b != 0x5a) {
		snprintf(why, len, "the byte written through the mapping reads 0x%02x, not 0x5a",
			 b);
		return 1;
	}
	return 0;
}

static void exit_teardown(struct xs_run *r)
{
	struct exit_priv *ep = r->priv;

	if (ep->exiting)
		task_exit(ep->exiting);
	ep->exiting = NULL;
	xs_exit_tasks(r);
	if (ep->f)
		fput(ep->f);
	ep->f = NULL;
	do_unlink("/xexit");
}

static struct xscenario exit_fsync = {
    .name = "exit-fsync",
    .summary = "fsync of a file (folio_mkclean walks i_mmap into page tables) vs the exit of "
	       "a process that maps it shared and dirty (run under ASan: a page table freed "
	       "under the walker is a use-after-free)",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"fsync"}, {"exit(mapping process)"}},
    .variants =
	{
	    {"", false},
	},
    .priv_size = sizeof(struct exit_priv),
    .setup = exit_setup,
    .op = exit_op,
    .check = exit_check,
    .teardown = exit_teardown,
};
XSCENARIO(exit_fsync)

/* ---- a VMA split vs a first-touch fault ---------------------------------------- */

static int split_setup(struct xs_run *r)
{
	struct task_struct *p = xs_process(r, 0, "split");

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p))
		return -ENOMEM;
	if (xs_param_is(r, "change", "merge")) {
		unsigned char v = 0x77;

		/* a = page 0, never touched; b = page 1, written (its own
		 * anon_vma), then read-only: two VMAs that mprotect will merge */
		if (vm_mmap(p->mm, XBASE + PAGE_SIZE, PAGE_SIZE, XRW,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL,
			    0) != (long)(XBASE + PAGE_SIZE) ||
		    rv_mm_write(XBASE + PAGE_SIZE, &v, 1) ||
		    vm_mprotect(p->mm, XBASE + PAGE_SIZE, PAGE_SIZE, PROT_READ) ||
		    vm_mmap(p->mm, XBASE, PAGE_SIZE, XRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			    NULL, 0) != (long)XBASE)
			return -ENOMEM;
		return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
	}
	if (xs_param_is(r, "change", "extend")) {
		/* page 0 only, never touched; T1 maps page 1 next to it */
		if (vm_mmap(p->mm, XBASE, PAGE_SIZE, XRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			    NULL, 0) != (long)XBASE)
			return -ENOMEM;
		return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
	}
	/* two pages, never touched: no anon_vma yet */
	if (vm_mmap(p->mm, XBASE, 2 * PAGE_SIZE, XRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL,
		    0) != (long)XBASE)
		return -ENOMEM;
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

/* The page the fault touches: page 1 (split), page 0 (merge, extend). */
static unsigned long split_addr(const struct xs_run *r)
{
	return xs_param_is(r, "change", "merge") || xs_param_is(r, "change", "extend")
		   ? XBASE
		   : XBASE + PAGE_SIZE;
}

static long split_op(struct xs_run *r, int task, int op)
{
	unsigned char v = 0x5a;

	if (task == 0) /* a first touch: the fault needs an anon_vma */
		return rv_mm_write(split_addr(r), &v, 1);
	if (xs_param_is(r, "change", "munmap"))
		return vm_munmap(current->mm, XBASE, PAGE_SIZE);
	if (xs_param_is(r, "change", "merge")) /* b becomes RW again: a and b merge */
		return vm_mprotect(current->mm, XBASE + PAGE_SIZE, PAGE_SIZE, XRW);
	if (xs_param_is(r, "change", "extend")) { /* a new mapping that extends page 0's VMA */
		long addr = vm_mmap(current->mm, XBASE + PAGE_SIZE, PAGE_SIZE, XRW,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0);

		return addr == (long)(XBASE + PAGE_SIZE) ? 0 : addr;
	}
	return vm_mprotect(current->mm, XBASE, PAGE_SIZE, PROT_READ); /* split off page 0 */
}

static int split_check(struct xs_run *r, char *why, size_t len)
{
	struct task_struct *t = r->task[0], *child;
	struct mm_struct *mm = t->mm;
	unsigned long addr = split_addr(r);
	pte_t pte = mm_pte_read(mm, addr);
	unsigned char v = 0;
	struct folio *f;
	int n;

	if (r->result[0][0] || r->result[1][0]) {
		snprintf(why, len, "write %ld, bounds change %ld", r->result[0][0],
			 r->result[1][0]);
		return 1;
	}
	if (!pte_present(pte)) {
		snprintf(why, len, "the page is not mapped after its write");
		return 1;
	}
	f = mm_folio_from_pte(pte);
	mm_folio_get(f);
	n = rmap_walk(f, NULL, NULL);
	mm_folio_put(f);
	if (n != 1) {
		snprintf(why, len,
			 "rmap finds the written page's folio %d times, not once (its VMA "
			 "is not on its anon_vma)",
			 n);
		return 1;
	}
	if (mm_check(mm)) {
		snprintf(why, len, "mm_check fails");
		return 1;
	}
	/* what a user sees: a child forked now reads the data */
	child = task_fork(t);
	if (!child) {
		snprintf(why, len, "fork failed");
		return 1;
	}
	n = mm_access(child->mm, addr, &v, 1, false);
	task_exit(child);
	if (n || v != 0x5a) {
		snprintf(why, len, "a child forked after both reads 0x%02x, not 0x5a", v);
		return 1;
	}
	return 0;
}

static struct xscenario split_fault = {
    .name = "split-fault",
    .summary = "a first-touch write fault vs mprotect or munmap splitting its VMA, "
	       "mprotect merging it with a neighbour, or mmap extending it",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"write(first touch)"}, {"change bounds"}},
    .params = {{"change",
		{"mprotect", "munmap", "merge", "extend"},
		"split page 0 off (mprotect, munmap; the fault is on page 1), merge the "
		"fault's VMA with a written neighbour (mprotect), or extend it with a new "
		"mapping (mmap; the fault is on page 0 for both)"}},
    .variants =
	{
	    {"change=mprotect", false},
	    {"change=munmap", false},
	    {"change=merge", false},
	    {"change=mprotect,anon_vma_fault=refuse", false},
	    {"change=munmap,anon_vma_fault=refuse", false},
	    {"change=merge,anon_vma_fault=refuse", false},
	    {"change=extend", false},
	    {"change=extend,anon_vma_fault=refuse", false},
	},
    .cross = vma_cross,
    .cross_k = 1, /* the other pairs at K = 1 (CTest's time; long mode: K = 3) */
    .setup = split_setup,
    .op = split_op,
    .check = split_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(split_fault)

/* ---- fork vs a COW fault and a write through a stale translation ------------ */

/*
 * The corruption users reported against per-VMA locks (fixed by fork's VMA
 * write locks): page 0 is written before (mapped writable, its translation
 * in use by T0's write).  T1 forks: the copy write-protects the page and
 * shares it with the child, and the TLB flush comes at the end.  T2's write
 * meanwhile takes a write-protect fault and, under the VMA lock alone,
 * COWs the page for the parent; T0, still writing through its stale
 * writable translation, writes into the old page, now the child's.  Seen
 * from outside: after all three, the parent must read both its threads'
 * writes.
 */
static int forkcow_setup(struct xs_run *r)
{
	struct task_struct *p = xs_process(r, 0, "parent");
	unsigned char v = 0x11;

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p) ||
	    vm_mmap(p->mm, XBASE, PAGE_SIZE, XRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL,
		    0) != (long)XBASE ||
	    rv_mm_write(XBASE + 2, &v, 1))
		return -ENOMEM;
	return xs_thread_of(r, 1, 0) && xs_thread_of(r, 2, 0) ? 0 : -ENOMEM;
}

static long forkcow_op(struct xs_run *r, int task, int op)
{
	struct fork_priv *fp = r->priv;
	unsigned char a = 0xa0, b = 0xb0;

	if (task == 0)
		return rv_mm_write(XBASE, &a, 1);
	if (task == 2)
		return rv_mm_write(XBASE + 1, &b, 1);
	fp->child = task_fork(current);
	return fp->child ? 0 : -errno;
}

static int forkcow_check(struct xs_run *r, char *why, size_t len)
{
	struct fork_priv *fp = r->priv;
	unsigned char pv[3] = {0}, cv[3] = {0};

	if (!fp->child) {
		snprintf(why, len, "fork failed");
		return 1;
	}
	if (mm_access(r->task[0]->mm, XBASE, pv, 3, false) ||
	    mm_access(fp->child->mm, XBASE, cv, 3, false)) {
		snprintf(why, len, "the page cannot be read");
		return 1;
	}
	if (pv[0] != 0xa0 || pv[1] != 0xb0 || pv[2] != 0x11) {
		snprintf(why, len,
			 "the parent reads %02x %02x %02x, not a0 b0 11: a parent thread's write "
			 "went to the child's page (child reads %02x %02x %02x)",
			 pv[0], pv[1], pv[2], cv[0], cv[1], cv[2]);
		return 1;
	}
	if ((cv[0] != 0 && cv[0] != 0xa0) || (cv[1] != 0 && cv[1] != 0xb0) || cv[2] != 0x11) {
		snprintf(why, len, "the child reads %02x %02x %02x", cv[0], cv[1], cv[2]);
		return 1;
	}
	if (mm_check(r->task[0]->mm) || mm_check(fp->child->mm)) {
		snprintf(why, len, "mm_check fails");
		return 1;
	}
	return 0;
}

static struct xscenario fork_cow = {
    .name = "fork-cow",
    .summary = "two parent threads write a page the parent wrote before while a third "
	       "forks (a COW fault and a stale writable translation)",
    .ntasks = 3,
    .nops = {1, 1, 1},
    .opname = {{"write(0xa0 @0)"}, {"fork"}, {"write(0xb0 @1)"}},
    .matrix_k = 1,
    .variants =
	{
	    {"fork_vma_lock=always", false},
	    {"fork_vma_lock=elide-single", false},
	    {"fork_vma_lock=never", true},
	},
    .cross = vma_cross,
    .priv_size = sizeof(struct fork_priv),
    .setup = forkcow_setup,
    .op = forkcow_op,
    .check = forkcow_check,
    .teardown = fork_teardown,
};
XSCENARIO(fork_cow)

/* ---- a lockless fault vs munmap and an mmap that reuses its VMA -------------- */

/*
 * SLAB_TYPESAFE_BY_RCU VMAs (6.15): T0 reads X, a never-touched anonymous
 * page; its fault finds X's VMA under RCU (lock_vma_under_rcu) and may be
 * preempted before it takes the VMA's reference.  T1, a thread of the same
 * process, unmaps X, maps an anonymous page at Y (with a typesafe cache,
 * its slab slot hands X's freed object to Y at once: X was mapped on T1's
 * thread, task_setup), then maps a file
 * page of 0x40 bytes at X.  Once it holds the reference, lock_vma_under_rcu
 * checks that the VMA still covers the address ("Check if the vma we
 * locked is the right one"); recheck=no (test-only) drops that check, so
 * the fault goes through Y's VMA at X and maps the zero page over the
 * file's page.  Seen from outside: T0 reads 0 (the anonymous page), the
 * file's byte, or nothing (-EFAULT); afterwards X reads the file's byte,
 * Y has no page table entry, and mm_check passes.  With the VMA freed
 * after a grace period (rcu, sheaves) the parked fault keeps X's object
 * alive and finds it detached, with or without the check.
 */
#define REUSE_Y (XBASE + 16 * PAGE_SIZE)

struct reuse_priv {
	struct file *f;
};

static int reuse_setup(struct xs_run *r)
{
	struct reuse_priv *rp = r->priv;
	struct task_struct *p = xs_process(r, 0, "reuse");
	unsigned char buf[PAGE_SIZE];
	int64_t pos = 0;

	lock_vma_under_rcu_norecheck_for_test(xs_param_is(r, "recheck", "no"));
	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p) || filp_open("/xreuse", O_RDWR | O_CREAT, 0644, &rp->f))
		return -EIO;
	memset(buf, 0x40, sizeof(buf));
	if (vfs_write(rp->f, buf, PAGE_SIZE, &pos) != (ssize_t)PAGE_SIZE)
		return -EIO;
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

/* X is mapped by T1's own thread: its VMA comes from T1's slab slot, to
 * which munmap frees it and from which the next mmap takes it again. */
static int reuse_task_setup(struct xs_run *r, int task)
{
	long ret;

	(void)r;
	if (task != 1)
		return 0;
	ret = vm_mmap(current->mm, XBASE, PAGE_SIZE, XRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		      NULL, 0);
	return ret == (long)XBASE ? 0 : -ENOMEM;
}

static long reuse_op(struct xs_run *r, int task, int op)
{
	struct reuse_priv *rp = r->priv;
	struct mm_struct *mm = current->mm;
	unsigned char v = 0xee;
	long ret;

	if (task == 0) {
		ret = rv_mm_read(XBASE, &v, 1);
		return ret ? ret : v;
	}
	switch (op) {
	case 0:
		return vm_munmap(mm, XBASE, PAGE_SIZE);
	case 1:
		ret = vm_mmap(mm, REUSE_Y, PAGE_SIZE, XRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			      NULL, 0);
		return ret == (long)REUSE_Y ? 0 : ret;
	default:
		ret = vm_mmap(mm, XBASE, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_FIXED, rp->f, 0);
		return ret == (long)XBASE ? 0 : ret;
	}
}

static int reuse_check(struct xs_run *r, char *why, size_t len)
{
	struct mm_struct *mm = r->task[0]->mm;
	long got = r->result[0][0];
	unsigned char v = 0;
	int err;

	for (int op = 0; op < 3; op++)
		if (r->result[1][op]) {
			snprintf(why, len, "T1's %s returned %ld", r->sc->opname[1][op],
				 r->result[1][op]);
			return 1;
		}
	if (got != 0 && got != 0x40 && got != -EFAULT) {
		snprintf(why, len, "T0's read of X returned %ld (0, 0x40 or -EFAULT expected)",
			 got);
		return 1;
	}
	err = mm_access(mm, XBASE, &v, 1, false);
	if (err || v != 0x40) {
		snprintf(why, len,
			 "X maps the file now but reads %s0x%02x, not 0x40: the fault went "
			 "through another VMA (T0 read %ld)",
			 err ? "nothing, " : "", v, got);
		return 1;
	}
	if (!pte_none(mm_pte_read(mm, REUSE_Y))) {
		snprintf(why, len, "Y, never touched, has a page table entry");
		return 1;
	}
	if (mm_check(mm)) {
		snprintf(why, len, "mm_check fails");
		return 1;
	}
	return 0;
}

static void reuse_teardown(struct xs_run *r)
{
	struct reuse_priv *rp = r->priv;

	xs_exit_tasks(r);
	if (rp->f)
		fput(rp->f);
	rp->f = NULL;
	do_unlink("/xreuse");
}

static struct xscenario vma_reuse = {
    .name = "vma-reuse",
    .summary = "a lockless read fault at X vs munmap(X), mmap(Y) reusing X's VMA object, "
	       "and a file mapped at X",
    .ntasks = 2,
    .nops = {1, 3},
    .opname = {{"read(X)"}, {"munmap(X)", "mmap(Y)", "mmap(X, file)"}},
    .params = {{"recheck",
		{"yes", "no"},
		"lock_vma_under_rcu checks the locked VMA covers the address, or not "
		"(test-only)"}},
    .variants =
	{
	    {"vma_lock=refcnt,vm_area_cache=typesafe,recheck=no", true},
	    {"vma_lock=refcnt,vm_area_cache=typesafe-sheaves,recheck=no", true},
	    {"vma_lock=refcnt,vm_area_cache=typesafe", false},
	    {"vma_lock=refcnt,vm_area_cache=typesafe-sheaves", false},
	    {"vma_lock=refcnt,recheck=no", false},
	    {"vma_lock=refcnt,vm_area_cache=sheaves,recheck=no", false},
	    {"recheck=no", false},
	    {"vm_area_cache=sheaves,recheck=no", false},
	    {"", false},
	    {"vm_area_cache=sheaves", false},
	    {"vma_lock=refcnt", false},
	    {"vma_lock=refcnt,vm_area_cache=sheaves", false},
	},
    .priv_size = sizeof(struct reuse_priv),
    .setup = reuse_setup,
    .task_setup = reuse_task_setup,
    .op = reuse_op,
    .check = reuse_check,
    .teardown = reuse_teardown,
};
XSCENARIO(vma_reuse)

/* ---- mremap vs a fault under the per-VMA lock --------------------------------- */

/*
 * The race "mm/mremap: write-lock VMA while remapping it to a new address
 * range" (Linux 6.4, in the per-VMA lock series) closed: page 0 of a two-
 * page anonymous VMA is written before, so the VMA has its anon_vma and
 * T0's first write to page 1 faults under the VMA's read lock alone.  T1
 * moves the VMA (mremap MREMAP_MAYMOVE | MREMAP_FIXED, same length).
 * move_vma write-locks the source VMA before its page tables move, so the
 * fault either finishes first (its page moves) or falls back to mmap_lock
 * and finds nothing there afterwards (-EFAULT).  Without that lock
 * (wlock=no, test-only) the fault installs its page in the old range after
 * the page tables moved; the write succeeds, and unmapping the old range
 * throws it away.  Seen from outside: T0's write succeeded => the byte is
 * at the new address; mremap returned the new address; the old range is
 * unmapped; mm_check passes.
 */
#define MREMAP_NEW (XBASE + 16 * PAGE_SIZE)

static int mremap_setup(struct xs_run *r)
{
	struct task_struct *p = xs_process(r, 0, "mremap");
	unsigned char v = 0x11;

	mremap_nolock_for_test(xs_param_is(r, "wlock", "no"));
	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p))
		return -ENOMEM;
	if (vm_mmap(p->mm, XBASE, 2 * PAGE_SIZE, XRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL,
		    0) != (long)XBASE ||
	    rv_mm_write(XBASE, &v, 1))
		return -ENOMEM;
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

static long mremap_op(struct xs_run *r, int task, int op)
{
	unsigned char v = 0x5a;

	(void)r;
	(void)op;
	if (task == 0)
		return rv_mm_write(XBASE + PAGE_SIZE, &v, 1);
	return do_mremap(current->mm, XBASE, 2 * PAGE_SIZE, 2 * PAGE_SIZE,
			 MREMAP_MAYMOVE | MREMAP_FIXED, MREMAP_NEW);
}

static int mremap_check(struct xs_run *r, char *why, size_t len)
{
	struct mm_struct *mm = r->task[0]->mm;
	long wr = r->result[0][0];
	unsigned char v = 0xee, v0 = 0xee;

	if (r->result[1][0] != (long)MREMAP_NEW) {
		snprintf(why, len, "mremap returned %ld", r->result[1][0]);
		return 1;
	}
	if (wr != 0 && wr != -EFAULT) {
		snprintf(why, len, "T0's write returned %ld (0 or -EFAULT expected)", wr);
		return 1;
	}
	if (mm_access(mm, MREMAP_NEW, &v0, 1, false) || v0 != 0x11 ||
	    mm_access(mm, MREMAP_NEW + PAGE_SIZE, &v, 1, false)) {
		snprintf(why, len, "the moved VMA does not read back page 0 (0x%02x)", v0);
		return 1;
	}
	if (wr == 0 && v != 0x5a) {
		snprintf(why, len,
			 "T0's write succeeded but the moved page 1 reads 0x%02x, not 0x5a: the "
			 "fault mapped its page in the old range after the page tables moved",
			 v);
		return 1;
	}
	if (mm_access(mm, XBASE, &v, 1, false) != -EFAULT) {
		snprintf(why, len, "the old range is still mapped");
		return 1;
	}
	if (mm_check(mm)) {
		snprintf(why, len, "mm_check fails");
		return 1;
	}
	return 0;
}

static struct xscenario mremap_fault = {
    .name = "mremap-fault",
    .summary = "a first-touch write fault under the per-VMA lock vs mremap moving its VMA",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"write(page 1)"}, {"mremap(move)"}},
    .params = {{"wlock",
		{"yes", "no"},
		"move_vma write-locks the source VMA before moving its page tables, or "
		"not (test-only: before the 6.4 fix)"}},
    .variants =
	{
	    {"", false},
	    {"wlock=no", true},
	    {"anon_vma_fault=refuse", false},
	},
    .cross = vma_cross,
    .cross_k = 1,
    .setup = mremap_setup,
    .op = mremap_op,
    .check = mremap_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(mremap_fault)

/* ---- madvise(MADV_DONTNEED) vs a fault, both under the per-VMA lock ------------- */

/*
 * Since "mm: use per_vma lock for MADV_DONTNEED" (Linux 6.16),
 * MADV_DONTNEED on a range inside one VMA zaps under that VMA's read lock,
 * beside faults holding the same lock: nothing but the PTE lock orders
 * them.  Page 1 was read before (the shared zero page is mapped); T0's
 * write to it takes a write-protect fault that drops the PTE lock to copy
 * (wp_page_copy) and must find, when it takes it again, that T1's
 * DONTNEED cleared the PTE meanwhile (the PTE recheck: VM_FAULT_NOPAGE, the
 * access retries).  With zero=no, page 1 is untouched: a first-touch
 * fault (do_anonymous_page) against the zap.  Seen from outside: both
 * return 0; page 1 reads 0x5a (the write came last) or 0 (the zap came
 * last); RSS, rmap and page tables agree (mm_check).  No test-only
 * variant: a fault without the PTE recheck is not a kernel that existed,
 * and the historic MADV_DONTNEED vs fault race (DONTNEED under mmap_sem
 * for read against a THP fault, "mm: thp: fix pmd_bad() triggering in
 * code paths holding mmap_sem read mode", 3.4) was at the pmd level,
 * which the model's two-level tables do not have.
 */
static int dontneed_setup(struct xs_run *r)
{
	struct task_struct *p = xs_process(r, 0, "dontneed");
	unsigned char v = 0x11;

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p))
		return -ENOMEM;
	if (vm_mmap(p->mm, XBASE, 2 * PAGE_SIZE, XRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL,
		    0) != (long)XBASE ||
	    rv_mm_write(XBASE, &v, 1))
		return -ENOMEM;
	if (xs_param_is(r, "zero", "yes") && rv_mm_read(XBASE + PAGE_SIZE, &v, 1))
		return -EIO;
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

static long dontneed_op(struct xs_run *r, int task, int op)
{
	unsigned char v = 0x5a;

	(void)r;
	(void)op;
	if (task == 0)
		return rv_mm_write(XBASE + PAGE_SIZE, &v, 1);
	return do_madvise(current->mm, XBASE + PAGE_SIZE, PAGE_SIZE, MADV_DONTNEED);
}

static int dontneed_check(struct xs_run *r, char *why, size_t len)
{
	struct mm_struct *mm = r->task[0]->mm;
	unsigned char v = 0xee;

	if (r->result[0][0] || r->result[1][0]) {
		snprintf(why, len, "write %ld, madvise %ld", r->result[0][0], r->result[1][0]);
		return 1;
	}
	if (mm_access(mm, XBASE + PAGE_SIZE, &v, 1, false) || (v != 0x5a && v != 0)) {
		snprintf(why, len, "page 1 reads 0x%02x (0x5a or 0 expected)", v);
		return 1;
	}
	if (mm_access(mm, XBASE, &v, 1, false) || v != 0x11) {
		snprintf(why, len, "page 0, outside the range, reads 0x%02x", v);
		return 1;
	}
	if (mm_check(mm)) {
		snprintf(why, len, "mm_check fails (RSS, rmap or page tables)");
		return 1;
	}
	return 0;
}

static struct xscenario dontneed_fault = {
    .name = "dontneed-fault",
    .summary = "madvise(MADV_DONTNEED) under the per-VMA lock vs a write fault on the same page",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"write(page 1)"}, {"madvise(DONTNEED)"}},
    .params = {{"zero",
		{"yes", "no"},
		"page 1 maps the zero page before (a write-protect fault), or nothing (a "
		"first-touch fault)"}},
    .variants =
	{
	    {"", false},
	    {"zero=no", false},
	    {"anon_vma_fault=refuse", false},
	},
    .cross = vma_cross,
    .cross_k = 1,
    .setup = dontneed_setup,
    .op = dontneed_op,
    .check = dontneed_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(dontneed_fault)
