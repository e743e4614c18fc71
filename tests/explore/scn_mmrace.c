// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_mmrace.c - mm races whose effect only an outside
 * observer sees: a stale read-only translation after a COW, read by a
 * thread of the parent while the child writes the old page (cow-stale-read);
 * a write through a translation in use while reclaim unmaps and frees the
 * file folio (reclaim-write); a write fault whose lockless PTE read goes
 * stale because madvise(MADV_DONTNEED) zaps the page under the same
 * per-VMA read lock (dontneed-refault, a write-protect fault or a
 * NUMA-hinting fault).
 *
 * The translation model (mm/memory.c, mm/tlb.c): mm_access holds a
 * translation from its page-table walk to the end of its copy, and a
 * flush of the mm waits for it; a PTE cleared without a flush leaves the
 * translation usable, as a CPU's TLB entry is until a shootdown reaches
 * it.
 *
 * Locking: the tasks are threads of model processes; setup, check and
 * teardown run on the driver while no task runs.
 */
#include "explore.h"

#include <string.h>
#include <sys/mman.h>

#define XMBASE 0x28000000UL
#define XMRW   (PROT_READ | PROT_WRITE)

/* ---- a stale read-only translation after a COW -------------------------------- */

/*
 * wp_page_copy (mm/memory.c, Linux 6.18) replaces the PTE of the old page
 * with ptep_clear_flush before set_pte_at of the copy: the flush ends
 * every translation of the old page in this mm.  A translation of a
 * write-protected PTE is read-only, so a missing flush cannot misdirect a
 * write of this process; it lets a thread keep *reading* the old page.
 * That is only visible if somebody else writes the old page afterwards:
 * here the child, which after the parent's copy owns the old page alone
 * and writes it in place (do_wp_page's reuse of an exclusive anonymous
 * folio).  A parent thread that reads what the child wrote sees memory of
 * another process, which no order of the three operations allows (a
 * same-process observer could not tell: reading the old value before
 * the parent's own write is legal).
 *
 * Setup: the parent maps one anonymous page and writes 0x11 (its
 * translation is in use from then on: ACCESSED set), then forks: parent
 * and child map the page read-only, shared.  T0, a parent thread, reads
 * the byte; T1, another parent thread, writes 0x22 (a COW); T2, the child,
 * writes 0xcc.  Checked: T0 read 0x11 or 0x22; afterwards the parent reads
 * 0x22, the child 0xcc, and both address spaces pass mm_check.
 */
static int csr_setup(struct xs_run *r)
{
	struct task_struct *p = xs_process(r, 0, "parent");
	unsigned char v = 0x11;

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p) ||
	    vm_mmap(p->mm, XMBASE, PAGE_SIZE, XMRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL,
		    0) != (long)XMBASE ||
	    rv_mm_write(XMBASE, &v, 1))
		return -ENOMEM;
	r->task[2] = task_fork(p);
	if (!r->task[2])
		return -ENOMEM;
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

static long csr_op(struct xs_run *r, int task, int op)
{
	unsigned char v = task == 1 ? 0x22 : 0xcc;
	long ret;

	(void)r;
	(void)op;
	if (task == 0) {
		v = 0;
		ret = rv_mm_read(XMBASE, &v, 1);
		return ret ? ret : v;
	}
	return rv_mm_write(XMBASE, &v, 1);
}

static int csr_check(struct xs_run *r, char *why, size_t len)
{
	struct mm_struct *pm = r->task[0]->mm, *cm = r->task[2]->mm;
	long got = r->result[0][0];
	unsigned char pv = 0, cv = 0;

	if (r->result[1][0] || r->result[2][0]) {
		snprintf(why, len, "the parent's write %ld, the child's %ld", r->result[1][0],
			 r->result[2][0]);
		return 1;
	}
	if (got != 0x11 && got != 0x22) {
		snprintf(why, len, "a parent thread read 0x%02lx (0x11 or 0x22 expected)%s", got,
			 got == 0xcc ? ": the child's write, through a translation of the page the "
				       "parent's COW gave up"
				     : "");
		return 1;
	}
	if (mm_access(pm, XMBASE, &pv, 1, false) || mm_access(cm, XMBASE, &cv, 1, false) ||
	    pv != 0x22 || cv != 0xcc) {
		snprintf(why, len, "the parent reads 0x%02x (0x22), the child 0x%02x (0xcc)", pv,
			 cv);
		return 1;
	}
	if (mm_check(pm) || mm_check(cm)) {
		snprintf(why, len, "mm_check fails (parent or child)");
		return 1;
	}
	return 0;
}

static struct xscenario cow_stale_read = {
    .name = "cow-stale-read",
    .summary = "a parent thread reads a page shared with a child while another parent thread "
	       "COWs it and the child writes it",
    .ntasks = 3,
    .nops = {1, 1, 1},
    .opname = {{"read"}, {"write(0x22)"}, {"child write(0xcc)"}},
    .matrix_k = 1, /* K = 1: 331 schedules; K = 2: 12,361, 10 s (docs/explore.md) */
    .variants =
	{
	    {"", false},
	},
    .setup = csr_setup,
    .op = csr_op,
    .check = csr_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(cow_stale_read)

/* ---- a write through a translation in use vs reclaim ---------------------------- */

/*
 * try_to_unmap_one (mm/rmap.c, Linux 6.18) clears each PTE of the folio
 * with ptep_clear_flush (or defers the flush to try_to_unmap_flush, which
 * shrink_folio_list calls before the folio is freed): reclaim must not
 * write back and free a folio that a CPU can still store into.  Setup:
 * /xrw holds one page of 0x33, mapped shared and writable; the parent
 * writes 0x44 through it (a shared write fault: the PTE is writable and
 * dirty).  T0 writes 0xa0 (its translation is in use from the walk to the
 * copy); T1, a thread of the same process, reclaims the page cache.
 * Checked: T0's write returned 0 and the file reads 0xa0 afterwards (read
 * with vfs_read: from the page cache, or from the store if reclaim took
 * the folio; a write that went into a folio after its writeback is lost),
 * and the mapping reads it too; mm_check.
 */
struct rw_priv {
	struct file *f;
};

static int rw_setup(struct xs_run *r)
{
	struct rw_priv *rp = r->priv;
	struct task_struct *p = xs_process(r, 0, "writer");
	unsigned char buf[PAGE_SIZE], v = 0x44;
	int64_t pos = 0;

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p) || filp_open("/xrw", O_RDWR | O_CREAT, 0644, &rp->f))
		return -EIO;
	memset(buf, 0x33, sizeof(buf));
	if (vfs_write(rp->f, buf, PAGE_SIZE, &pos) != (ssize_t)PAGE_SIZE)
		return -EIO;
	if (vm_mmap(p->mm, XMBASE, PAGE_SIZE, XMRW, MAP_SHARED | MAP_FIXED, rp->f, 0) !=
	    (long)XMBASE)
		return -EIO;
	if (rv_mm_write(XMBASE, &v, 1))
		return -EIO;
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

static long rw_op(struct xs_run *r, int task, int op)
{
	unsigned char v = 0xa0;

	(void)r;
	(void)op;
	if (task == 1)
		return mm_reclaim_folios(1000);
	return rv_mm_write(XMBASE, &v, 1);
}

static int rw_check(struct xs_run *r, char *why, size_t len)
{
	struct rw_priv *rp = r->priv;
	unsigned char b = 0, m = 0;
	int64_t pos = 0;

	if (r->result[0][0] || r->result[1][0] < 0) {
		snprintf(why, len, "write %ld, reclaim %ld", r->result[0][0], r->result[1][0]);
		return 1;
	}
	if (vfs_read(rp->f, &b, 1, &pos) != 1 || b != 0xa0) {
		snprintf(why, len,
			 "the file reads 0x%02x after a write of 0xa0 that returned 0 (reclaim "
			 "took %ld folios): the write went to a folio already written back",
			 b, r->result[1][0]);
		return 1;
	}
	if (mm_access(r->task[0]->mm, XMBASE, &m, 1, false) || m != 0xa0) {
		snprintf(why, len, "the mapping reads 0x%02x, the file 0xa0", m);
		return 1;
	}
	if (mm_check(r->task[0]->mm)) {
		snprintf(why, len, "mm_check fails");
		return 1;
	}
	return 0;
}

static void rw_teardown(struct xs_run *r)
{
	struct rw_priv *rp = r->priv;

	xs_exit_tasks(r);
	if (rp->f)
		fput(rp->f);
	rp->f = NULL;
	do_unlink("/xrw");
}

static struct xscenario reclaim_write = {
    .name = "reclaim-write",
    .summary = "a write through a translation in use vs reclaim of the shared file page",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"write(0xa0)"}, {"reclaim"}},
    .variants =
	{
	    {"", false},
	},
    .priv_size = sizeof(struct rw_priv),
    .setup = rw_setup,
    .op = rw_op,
    .check = rw_check,
    .teardown = rw_teardown,
};
XSCENARIO(reclaim_write)

/* ---- a fault with a stale lockless PTE read vs MADV_DONTNEED ----------------- */

/*
 * Since "mm: use per_vma lock for MADV_DONTNEED" (Linux 6.16) the zap runs
 * under the VMA's read lock, beside faults holding the same lock: between
 * a fault's lockless PTE read (handle_pte_fault's vmf->orig_pte) and the
 * PTE lock the page may be zapped and its folio freed.  Every handler
 * rechecks under the PTE lock: handle_pte_fault's pte_same before it
 * handles a write-protect fault, do_numa_page's pte_same before it
 * restores a PROTNONE PTE (mm/memory.c, Linux 6.18).  Without it the
 * handler rebuilds a PTE from the stale value, for a folio that is gone.
 *
 * Setup: a two-page anonymous VMA, page 0 written 0x11, page 1 0x22; then
 *   pte=ro        mprotect it read-only and writable again (the PTEs stay
 *                 read-only: write permission returns through a fault,
 *                 which reuses the exclusive folio in place);
 *   pte=protnone  the NUMA-hinting scan (task_numa_work) makes both PTEs
 *                 PROTNONE: the next access is a NUMA-hinting fault.
 * T0 writes 0x5a to page 1; T1, a thread of the same process,
 * madvise(MADV_DONTNEED)s page 1.  Checked: both return 0; page 1 reads
 * 0x5a (the write came last) or 0 (the zap did), page 0 reads 0x11,
 * mm_check (RSS, rmap, page tables).
 */
static int dr_setup(struct xs_run *r)
{
	struct task_struct *p = xs_process(r, 0, "refault");
	unsigned char a = 0x11, b = 0x22;

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p) ||
	    vm_mmap(p->mm, XMBASE, 2 * PAGE_SIZE, XMRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		    NULL, 0) != (long)XMBASE ||
	    rv_mm_write(XMBASE, &a, 1) || rv_mm_write(XMBASE + PAGE_SIZE, &b, 1))
		return -ENOMEM;
	if (xs_param_is(r, "pte", "protnone")) {
		if (task_numa_work(p->mm) != 2)
			return -EIO;
	} else if (vm_mprotect(p->mm, XMBASE, 2 * PAGE_SIZE, PROT_READ) ||
		   vm_mprotect(p->mm, XMBASE, 2 * PAGE_SIZE, XMRW) ||
		   pte_write(mm_pte_read(p->mm, XMBASE + PAGE_SIZE))) {
		return -EIO;
	}
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

static long dr_op(struct xs_run *r, int task, int op)
{
	unsigned char v = 0x5a;

	(void)r;
	(void)op;
	if (task == 0)
		return rv_mm_write(XMBASE + PAGE_SIZE, &v, 1);
	return do_madvise(current->mm, XMBASE + PAGE_SIZE, PAGE_SIZE, MADV_DONTNEED);
}

static int dr_check(struct xs_run *r, char *why, size_t len)
{
	struct mm_struct *mm = r->task[0]->mm;
	unsigned char v = 0xee;

	if (r->result[0][0] || r->result[1][0]) {
		snprintf(why, len, "write %ld, madvise %ld", r->result[0][0], r->result[1][0]);
		return 1;
	}
	if (mm_access(mm, XMBASE + PAGE_SIZE, &v, 1, false) || (v != 0x5a && v != 0)) {
		snprintf(why, len, "page 1 reads 0x%02x (0x5a or 0 expected)", v);
		return 1;
	}
	if (mm_access(mm, XMBASE, &v, 1, false) || v != 0x11) {
		snprintf(why, len, "page 0, outside the range, reads 0x%02x", v);
		return 1;
	}
	if (mm_check(mm)) {
		snprintf(why, len, "mm_check fails (RSS, rmap or page tables)");
		return 1;
	}
	return 0;
}

static struct xscenario dontneed_refault = {
    .name = "dontneed-refault",
    .summary = "a write-protect or NUMA-hinting write fault vs madvise(MADV_DONTNEED) of the "
	       "page, both under the per-VMA lock",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"write(page 1)"}, {"madvise(DONTNEED)"}},
    .params = {{"pte",
		{"ro", "protnone"},
		"page 1's PTE before: read-only on an exclusive anonymous folio, or PROTNONE "
		"(NUMA hinting)"}},
    .variants =
	{
	    {"pte=ro", false},
	    {"pte=protnone", false},
	},
    .setup = dr_setup,
    .op = dr_op,
    .check = dr_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(dontneed_refault)

/* ---- a translation that straddles a flush's epoch flip ----------------------- */

/*
 * flush_tlb_mm (mm/tlb.c) waits for the translations in use the way SRCU
 * waits for readers (srcu_readers_active_idx_check after each of the two
 * flips of srcu_idx in srcu_advance_state, kernel/rcu/srcutree.c): a
 * section counts itself in the counter of the epoch it read, a flush
 * flips the epoch and drains the old counter, twice.  One flip is not
 * enough: a section B that read epoch 0, was preempted, and counts itself
 * in counter 0 after a flush F0 flipped to 1 and drained 0 is left in
 * counter 0 while the epoch is 1; the next flush F1 flips to 0, drains
 * counter 1 only, and returns while B still uses a translation of the PTE
 * F1's caller changed.  F0 flips at all only if a section C is in use
 * when it looks.
 *
 * X and Y are two one-page anonymous mappings of one process, written
 * before (their translations are writable).  T0 writes 0xa0 to X (B);
 * T1 mprotects Y read-only (F0); T2 reads Y (C), then mprotects X
 * read-only (F1: it waits for mmap_lock while T1's mprotect holds it) and
 * reads X.  A scheduling point between tlb_enter's epoch read and its
 * count exists only for T0, and only in this scenario
 * (tlb_enter_point_for_test).  Checked as tlb-mprotect: nothing lands in
 * X after T2's mprotect of X returned (the end value equals T2's read),
 * and the write's result agrees with the end value.  The shortest failing
 * schedule needs three preemptions (C inside its section, then B after
 * its epoch read, both at F0's flip; B inside its section at F1): no
 * task can block at any of the three places, so none of them comes free.
 */
#define XMY (XMBASE + 4 * PAGE_SIZE)

struct te_priv {
	bool seen;	     /* T2's mprotect of X has returned and X was read */
	unsigned char after; /* X's byte then */
};

static int te_setup(struct xs_run *r)
{
	struct task_struct *p = xs_process(r, 0, "epoch");
	unsigned char a = 0x11, b = 0x22;

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p) ||
	    vm_mmap(p->mm, XMBASE, PAGE_SIZE, XMRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL,
		    0) != (long)XMBASE ||
	    vm_mmap(p->mm, XMY, PAGE_SIZE, XMRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL,
		    0) != (long)XMY ||
	    rv_mm_write(XMBASE, &a, 1) || rv_mm_write(XMY, &b, 1))
		return -ENOMEM;
	tlb_enter_point_for_test(p);
	return xs_thread_of(r, 1, 0) && xs_thread_of(r, 2, 0) ? 0 : -ENOMEM;
}

static long te_op(struct xs_run *r, int task, int op)
{
	unsigned char v = 0xa0;
	long ret;

	(void)r;
	if (task == 0)
		return rv_mm_write(XMBASE, &v, 1);
	if (task == 1)
		return vm_mprotect(current->mm, XMY, PAGE_SIZE, PROT_READ);
	if (op == 1)
		return vm_mprotect(current->mm, XMBASE, PAGE_SIZE, PROT_READ);
	ret = rv_mm_read(XMY, &v, 1);
	return ret ? ret : v;
}

/* X's byte as any reader would see it now (its page is never freed) */
static int te_x(struct xs_run *r)
{
	pte_t pte = mm_pte_read(r->task[0]->mm, XMBASE);

	if (!pte_present(pte))
		return -1;
	return *(unsigned char *)mm_folio_data(mm_folio_from_pte(pte));
}

/*
 * From the first decision after T2's mprotect of X returned, X may not
 * change: a read then (by anybody) and every later one agree.  Checked
 * between critical sections, so the write that lands late is seen whether
 * or not a read by a task happens to fall after it.
 */
static int te_midcheck(struct xs_run *r, char *why, size_t len)
{
	struct te_priv *tp = r->priv;
	int x;

	if (!r->op_end[2][1])
		return 0;
	x = te_x(r);
	if (!tp->seen) {
		tp->seen = true;
		tp->after = (unsigned char)x;
		return 0;
	}
	if (x != tp->after) {
		snprintf(why, len,
			 "X read 0x%02x after mprotect returned, 0x%02x later: a write through a "
			 "translation the flush did not wait for landed after mprotect",
			 tp->after, x);
		return 1;
	}
	return 0;
}

static int te_check(struct xs_run *r, char *why, size_t len)
{
	long w = r->result[0][0];
	int x = te_x(r);

	if (r->result[1][0] || r->result[2][0] != 0x22 || r->result[2][1]) {
		snprintf(why, len, "mprotect(Y) %ld, read(Y) %ld, mprotect(X) %ld", r->result[1][0],
			 r->result[2][0], r->result[2][1]);
		return 1;
	}
	if (w != 0 && w != -EFAULT) {
		snprintf(why, len, "the write returned %ld (0 or -EFAULT)", w);
		return 1;
	}
	if (te_midcheck(r, why, len))
		return 1;
	if ((w == 0) != (x == 0xa0)) {
		snprintf(why, len, "the write returned %ld and X reads 0x%02x", w, x);
		return 1;
	}
	if (mm_check(r->task[0]->mm)) {
		snprintf(why, len, "mm_check fails");
		return 1;
	}
	return 0;
}

static struct xscenario tlb_epoch = {
    .name = "tlb-epoch",
    .summary = "a write whose translation straddles one flush's epoch flip (mprotect of "
	       "another mapping while a third thread reads it) vs the next flush (mprotect "
	       "of its own page)",
    .ntasks = 3,
    .nops = {1, 1, 2},
    .opname = {{"write(X)"}, {"mprotect(Y, READ)"}, {"read(Y)", "mprotect(X, READ)"}},
    /* K = 1 (216 schedules) in CTest; K = 2 holds 4,952, and the failure
     * needs K = 3, whose space (77,051 schedules, 18 s of CPU) is for the
     * long tests */
    .matrix_k = 1,
    .priv_size = sizeof(struct te_priv),
    .midcheck = te_midcheck,
    .variants =
	{
	    {"", false},
	},
    .setup = te_setup,
    .op = te_op,
    .check = te_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(tlb_epoch)

/* ---- a fault in the VMA a merge removes ------------------------------------- */

/*
 * vma_merge_existing_range and vma_expand (mm/vma.c, Linux 6.18)
 * vma_start_write every VMA they change or remove, the next one included
 * ("vma_start_write(next)" before it is removed): a fault under the
 * per-VMA read lock of the removed VMA finishes first, and none starts on
 * it afterwards.  Without that lock the fault runs on in a VMA that is
 * detached: remove_vma's unlink_anon_vmas has cleared its anon_vma (the
 * folio it maps gets no anon_vma: rmap cannot find it), and once a grace
 * period passed (vm_area_free's call_rcu) its object is freed and may be
 * handed to the next mmap.  Under vma_lock=refcnt, vma_mark_detached
 * waits for the readers itself (6.15), so the line is clean there either
 * way.
 *
 * Setup: a two-page anonymous mapping, page 0 written (0x11; the VMA's
 * anon_vma), then page 0 made read-only: a = [0, 1) read-only and
 * b = [1, 2) writable share the anon_vma.  T0 writes 0x5a to page 1, never
 * touched: a fault under b's read lock.  T1, a thread of the same process,
 * makes page 0 writable again (a and b merge; b goes), then maps an
 * anonymous page Y elsewhere (the VMA object it gets may be b's).
 * Checked: all return 0; page 0 reads 0x11, page 1 0x5a; rmap finds
 * page 1's folio once; Y has no PTE; mm_check; a child forked afterwards
 * reads 0x5a at page 1.
 */
#define XMMY (XMBASE + 16 * PAGE_SIZE)

static int mf_setup(struct xs_run *r)
{
	struct task_struct *p = xs_process(r, 0, "merge");
	unsigned char v = 0x11;

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p) ||
	    vm_mmap(p->mm, XMBASE, 2 * PAGE_SIZE, XMRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		    NULL, 0) != (long)XMBASE ||
	    rv_mm_write(XMBASE, &v, 1) || vm_mprotect(p->mm, XMBASE, PAGE_SIZE, PROT_READ) ||
	    mm_map_count(p->mm) != 2)
		return -ENOMEM;
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

static long mf_op(struct xs_run *r, int task, int op)
{
	unsigned char v = 0x5a;
	long ret;

	(void)r;
	if (task == 0)
		return rv_mm_write(XMBASE + PAGE_SIZE, &v, 1);
	if (op == 0)
		return vm_mprotect(current->mm, XMBASE, PAGE_SIZE, XMRW);
	ret = vm_mmap(current->mm, XMMY, PAGE_SIZE, XMRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		      NULL, 0);
	return ret == (long)XMMY ? 0 : ret;
}

static int mf_check(struct xs_run *r, char *why, size_t len)
{
	struct task_struct *t = r->task[0], *child;
	struct mm_struct *mm = t->mm;
	unsigned char v0 = 0, v1 = 0, cv = 0;
	pte_t pte;
	struct folio *f;
	int n;

	if (r->result[0][0] || r->result[1][0] || r->result[1][1]) {
		snprintf(why, len, "write %ld, mprotect %ld, mmap %ld", r->result[0][0],
			 r->result[1][0], r->result[1][1]);
		return 1;
	}
	if (mm_access(mm, XMBASE, &v0, 1, false) ||
	    mm_access(mm, XMBASE + PAGE_SIZE, &v1, 1, false) || v0 != 0x11 || v1 != 0x5a) {
		snprintf(why, len, "pages 0 and 1 read 0x%02x 0x%02x (0x11 0x5a expected)", v0, v1);
		return 1;
	}
	pte = mm_pte_read(mm, XMBASE + PAGE_SIZE);
	f = mm_folio_from_pte(pte);
	mm_folio_get(f);
	n = rmap_walk(f, NULL, NULL);
	mm_folio_put(f);
	if (n != 1) {
		snprintf(why, len,
			 "rmap finds page 1's folio %d times, not once: the fault mapped it "
			 "through a VMA the merge removed",
			 n);
		return 1;
	}
	if (!pte_none(mm_pte_read(mm, XMMY))) {
		snprintf(why, len, "Y, never touched, has a page table entry");
		return 1;
	}
	if (mm_check(mm)) {
		snprintf(why, len, "mm_check fails");
		return 1;
	}
	child = task_fork(t);
	if (!child) {
		snprintf(why, len, "fork failed");
		return 1;
	}
	n = mm_access(child->mm, XMBASE + PAGE_SIZE, &cv, 1, false);
	task_exit(child);
	if (n || cv != 0x5a) {
		snprintf(why, len, "a child forked afterwards reads 0x%02x at page 1, not 0x5a",
			 cv);
		return 1;
	}
	return 0;
}

static struct xscenario merge_fault = {
    .name = "merge-fault",
    .summary = "a fault under the per-VMA lock of the upper VMA vs mprotect merging the lower "
	       "one with it (the upper VMA removed), then an mmap",
    .ntasks = 2,
    .nops = {1, 2},
    .opname = {{"write(page 1)"}, {"mprotect(page 0, RW)", "mmap(Y)"}},
    .variants =
	{
	    {"", false},
	    {"vma_lock=refcnt", false},
	},
    .setup = mf_setup,
    .op = mf_op,
    .check = mf_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(merge_fault)

/* ---- reclaim's rmap walk vs a VMA change of the mapping -------------------- */

/*
 * try_to_unmap (mm/rmap.c's rmap_walk_file, Linux 6.18) finds a file
 * folio's PTEs through i_mmap, computing each VMA's address from its
 * vm_start and vm_pgoff under i_mmap_rwsem.  What changes a file VMA
 * changes i_mmap and the bounds under i_mmap_rwsem for write: move_vma
 * (mm/mremap.c) moves the page tables under it (take_rmap_locks) with the
 * new VMA in i_mmap first, __split_vma and vma_complete (mm/vma.c) insert
 * the new half and shrink the old one under it, munmap unlinks the VMA
 * after zapping its PTEs.  A walker sees a PTE in one VMA or the other,
 * never neither while it is mapped: a walk that missed a PTE would let
 * reclaim write back and free a folio that is still mapped.
 *
 * Setup: /xrm holds two pages (0x33, 0x44), mapped shared at A; page 0 is
 * written 0x55 through the mapping (dirty), page 1 read.  T0 changes the
 * mapping; T1, a thread of the same process, reclaims the page cache:
 *   change=mremap   mremap(MREMAP_MAYMOVE | MREMAP_FIXED) moves it to B;
 *   change=split    mprotect makes page 1 read-only (a split);
 *   change=munmap   munmap of page 1 (a split, then an unmap).
 * Checked: the change returned what it should; the mapping reads 0x55
 * 0x44 where it still maps (page 1 read-only after split), nothing where
 * it does not; the file reads 0x55 0x44 (from the cache or the store);
 * mm_check.
 *
 * walker=writeback puts fsync in T1's place: writeback's folio_mkclean
 * (mm/rmap.c, Linux 6.18: rmap_walk of the folio, page_vma_mkclean_one
 * through page_vma_mapped_walk) must find page 0's PTE wherever the change
 * left it, clean it and write-protect it, so that the next store through
 * the mapping faults and dirties the folio again (page_mkwrite, mtime).
 * Also checked then: page 0's PTE, mapped at the end, is neither dirty nor
 * writable.
 *
 * Both walkers are clean at K = 2, and so is a move_vma without
 * take_rmap_locks (a temporary edit): a walk that misses the PTE in both
 * VMAs leaves the folio mapped by its mapcount, and shrink_folio keeps a
 * folio try_to_unmap did not fully unmap; and copy_vma links the new VMA
 * into i_mmap after the old one, so a walk that found the PTE gone from
 * the old VMA meets it in the new one (the order move_vma's
 * need_rmap_locks relies on when it skips the locks).
 */
#define XMB (XMBASE + 32 * PAGE_SIZE)

static int rm_setup(struct xs_run *r)
{
	struct rw_priv *rp = r->priv;
	struct task_struct *p = xs_process(r, 0, "mover");
	unsigned char buf[PAGE_SIZE], v = 0x55;
	int64_t pos = 0;

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p) || filp_open("/xrm", O_RDWR | O_CREAT, 0644, &rp->f))
		return -EIO;
	for (int i = 0; i < 2; i++) {
		memset(buf, 0x33 + 0x11 * i, sizeof(buf));
		if (vfs_write(rp->f, buf, PAGE_SIZE, &pos) != (ssize_t)PAGE_SIZE)
			return -EIO;
	}
	if (vm_mmap(p->mm, XMBASE, 2 * PAGE_SIZE, XMRW, MAP_SHARED | MAP_FIXED, rp->f, 0) !=
	    (long)XMBASE)
		return -EIO;
	if (rv_mm_write(XMBASE, &v, 1) || rv_mm_read(XMBASE + PAGE_SIZE, &v, 1))
		return -EIO;
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

static long rm_op(struct xs_run *r, int task, int op)
{
	(void)op;
	if (task == 1)
		return xs_param_is(r, "walker", "writeback")
			   ? vfs_fsync(((struct rw_priv *)r->priv)->f, 0)
			   : mm_reclaim_folios(1000);
	if (xs_param_is(r, "change", "split"))
		return vm_mprotect(current->mm, XMBASE + PAGE_SIZE, PAGE_SIZE, PROT_READ);
	if (xs_param_is(r, "change", "munmap"))
		return vm_munmap(current->mm, XMBASE + PAGE_SIZE, PAGE_SIZE);
	return do_mremap(current->mm, XMBASE, 2 * PAGE_SIZE, 2 * PAGE_SIZE,
			 MREMAP_MAYMOVE | MREMAP_FIXED, XMB);
}

static int rm_check(struct xs_run *r, char *why, size_t len)
{
	struct rw_priv *rp = r->priv;
	struct mm_struct *mm = r->task[0]->mm;
	bool moved = xs_param_is(r, "change", "mremap"),
	     unmapped = xs_param_is(r, "change", "munmap");
	unsigned long at = moved ? XMB : XMBASE;
	unsigned char m[2] = {0}, f[2] = {0}, v;
	int64_t pos = 0;

	if (r->result[0][0] != (moved ? (long)XMB : 0) || r->result[1][0] < 0) {
		snprintf(why, len, "the change returned %ld, reclaim %ld", r->result[0][0],
			 r->result[1][0]);
		return 1;
	}
	if (mm_access(mm, at, &m[0], 1, false) || m[0] != 0x55 ||
	    (!unmapped && (mm_access(mm, at + PAGE_SIZE, &m[1], 1, false) || m[1] != 0x44))) {
		snprintf(why, len, "the mapping reads 0x%02x 0x%02x (0x55 0x44 expected)", m[0],
			 m[1]);
		return 1;
	}
	if ((moved && mm_access(mm, XMBASE, &v, 1, false) != -EFAULT) ||
	    (unmapped && mm_access(mm, XMBASE + PAGE_SIZE, &v, 1, false) != -EFAULT)) {
		snprintf(why, len, "a range no longer mapped can still be read");
		return 1;
	}
	if (xs_param_is(r, "change", "split") && pte_write(mm_pte_read(mm, XMBASE + PAGE_SIZE))) {
		snprintf(why, len, "page 1 is writable after mprotect(READ)");
		return 1;
	}
	if (vfs_read(rp->f, &f[0], 1, &pos) != 1 || (pos = PAGE_SIZE, 0) ||
	    vfs_read(rp->f, &f[1], 1, &pos) != 1 || f[0] != 0x55 || f[1] != 0x44) {
		snprintf(why, len, "the file reads 0x%02x 0x%02x (0x55 0x44 expected)", f[0], f[1]);
		return 1;
	}
	if (xs_param_is(r, "walker", "writeback")) {
		pte_t pte = mm_pte_read(mm, at);

		if (pte_present(pte) && (pte_dirty(pte) || pte_write(pte))) {
			snprintf(why, len,
				 "page 0's PTE is %s after fsync returned: folio_mkclean missed it",
				 pte_dirty(pte) ? "dirty" : "writable");
			return 1;
		}
	}
	if (mm_check(mm)) {
		snprintf(why, len, "mm_check fails");
		return 1;
	}
	return 0;
}

static void rm_teardown(struct xs_run *r)
{
	struct rw_priv *rp = r->priv;

	xs_exit_tasks(r);
	if (rp->f)
		fput(rp->f);
	rp->f = NULL;
	do_unlink("/xrm");
}

static struct xscenario reclaim_vma = {
    .name = "reclaim-vma",
    .summary = "reclaim's or writeback's rmap walk (try_to_unmap, folio_mkclean) vs mremap "
	       "moving, mprotect splitting or munmap of part of the shared file mapping",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"change"}, {"reclaim"}},
    .params = {{"change",
		{"mremap", "split", "munmap"},
		"move the mapping (mremap), make page 1 read-only (a split), or unmap page 1"},
	       {"walker",
		{"reclaim", "writeback"},
		"T1 reclaims the page cache (try_to_unmap) or fsyncs the file (folio_mkclean)"}},
    .variants =
	{
	    {"change=mremap", false},
	    {"change=split", false},
	    {"change=munmap", false},
	    {"change=mremap,walker=writeback", false},
	    {"change=split,walker=writeback", false},
	    {"change=munmap,walker=writeback", false},
	},
    .priv_size = sizeof(struct rw_priv),
    .setup = rm_setup,
    .op = rm_op,
    .check = rm_check,
    .teardown = rm_teardown,
};
XSCENARIO(reclaim_vma)
