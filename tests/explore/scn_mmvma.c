// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_mmvma.c - faults under the per-VMA lock in an
 * already-touched VMA while mprotect or munmap changes it, and a write
 * through a translation that mprotect must shoot down.
 *
 * touched-fault: a three-page private anonymous VMA whose page 0 was
 * written in setup (it has its anon_vma, so a fault on an untouched page
 * of it runs under the per-VMA lock, not under mmap_lock as a first touch
 * does).  T0 writes an untouched page; T1, a thread of the same process,
 *   change=mprotect-all   makes the whole VMA read-only (no split: only
 *                         vma_apply_range's vma_start_write keeps the
 *                         fault out while the flags change);
 *   change=mprotect-tail  makes page 2, the one T0 writes, read-only
 *                         (a split: __split_vma's vma_start_write);
 *   change=munmap-all     unmaps the whole VMA.
 * The oracle is what a user could see, against every serial order: a
 * page of a read-only VMA is never writable (its PTE has no write bit:
 * a write after mprotect faults, one before it was write-protected by
 * change_protection), nothing is mapped in an unmapped range, T0's
 * write either succeeded or faulted (and succeeded only if it could have
 * come first), and mm_check holds between critical sections and at the
 * end.
 *
 * tlb-mprotect: T0 writes page 0 of a written RW mapping (its translation
 * is in use: mm_access's TLB section) while T1 mprotects it read-only and
 * then reads it.  Once mprotect returned no write can land any more: a
 * value that changes after T1's read came through a stale translation
 * that mprotect's flush did not shoot down.
 *
 * Locking: the tasks are threads of one model process; the checks run
 * with every task parked (midcheck) or after the schedule, on the driver.
 */
#include "explore.h"

#include <string.h>
#include <sys/mman.h>

#define XVBASE 0x30000000UL
#define XVRW   (PROT_READ | PROT_WRITE)

static const char *const xv_cross[] = {
    "",
    "vma_lock=refcnt",
    NULL,
};

static int xv_setup(struct xs_run *r)
{
	struct task_struct *p = xs_process(r, 0, "faulter");
	unsigned char v = 0x11;

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p))
		return -ENOMEM;
	if (vm_mmap(p->mm, XVBASE, 3 * PAGE_SIZE, XVRW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		    NULL, 0) != (long)XVBASE)
		return -ENOMEM;
	/* the VMA gets its anon_vma: later faults in it take the per-VMA lock */
	if (rv_mm_write(XVBASE, &v, 1))
		return -EIO;
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

static unsigned long xv_page(const struct xs_run *r)
{
	return xs_param_is(r, "change", "mprotect-tail") ? XVBASE + 2 * PAGE_SIZE
							 : XVBASE + PAGE_SIZE;
}

static long xv_op(struct xs_run *r, int task, int op)
{
	unsigned char v = 0x5a;

	if (task == 0)
		return rv_mm_write(xv_page(r), &v, 1);
	if (xs_param_is(r, "change", "mprotect-all"))
		return vm_mprotect(current->mm, XVBASE, 3 * PAGE_SIZE, PROT_READ);
	if (xs_param_is(r, "change", "mprotect-tail"))
		return vm_mprotect(current->mm, XVBASE + 2 * PAGE_SIZE, PAGE_SIZE, PROT_READ);
	return vm_munmap(current->mm, XVBASE, 3 * PAGE_SIZE);
}

/* mm_check takes mmap_lock for read: only while nobody holds it */
static int xv_midcheck(struct xs_run *r, char *why, size_t len)
{
	struct mm_struct *mm = r->task[0]->mm;

	if (rwsem_is_locked(&mm->mmap_lock))
		return 0;
	if (mm_check(mm)) {
		snprintf(why, len, "mm_check fails");
		return 1;
	}
	return 0;
}

static int xv_check(struct xs_run *r, char *why, size_t len)
{
	struct mm_struct *mm = r->task[0]->mm;
	unsigned long page = xv_page(r);
	long w = r->result[0][0];
	bool munmap = xs_param_is(r, "change", "munmap-all");

	if (r->result[1][0]) {
		snprintf(why, len, "the change failed: %ld", r->result[1][0]);
		return 1;
	}
	if (w != 0 && w != -EFAULT) {
		snprintf(why, len, "the write returned %ld (0 or -EFAULT expected)", w);
		return 1;
	}
	for (unsigned long a = XVBASE; a < XVBASE + 3 * PAGE_SIZE; a += PAGE_SIZE) {
		pte_t pte = mm_pte_read(mm, a);

		if (munmap && pte_present(pte)) {
			snprintf(why, len, "page %#lx is mapped after munmap of its range", a);
			return 1;
		}
		if (!munmap && pte_present(pte) && pte_write(pte) &&
		    (xs_param_is(r, "change", "mprotect-all") || a == XVBASE + 2 * PAGE_SIZE)) {
			snprintf(why, len,
				 "page %#lx is writable in a read-only VMA (a fault "
				 "installed it after mprotect)",
				 a);
			return 1;
		}
	}
	if (!munmap) {
		unsigned char v = 0;

		if (mm_access(mm, page, &v, 1, false) || v != (w ? 0 : 0x5a)) {
			snprintf(why, len, "the page reads 0x%02x after a write that returned %ld",
				 v, w);
			return 1;
		}
	}
	if (mm_check(mm)) {
		snprintf(why, len, "mm_check fails");
		return 1;
	}
	return 0;
}

static struct xscenario touched_fault = {
    .name = "touched-fault",
    .summary = "a fault under the per-VMA lock in a touched VMA vs mprotect of all of it, "
	       "mprotect splitting off the faulted page, or munmap of all of it",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"write(untouched page)"}, {"change"}},
    .params = {{"change",
		{"mprotect-all", "mprotect-tail", "munmap-all"},
		"mprotect the VMA read-only, mprotect its page 2 (the written one: a "
		"split), or munmap it"}},
    .matrix_k = 3, /* K = 3 exhausts in seconds (docs/explore.md, Depth) */
    .cross_k = 2,
    .variants =
	{
	    {"change=mprotect-all", false},
	    {"change=mprotect-tail", false},
	    {"change=munmap-all", false},
	},
    .cross = xv_cross,
    .setup = xv_setup,
    .op = xv_op,
    .midcheck = xv_midcheck,
    .check = xv_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(touched_fault)

/* ---- a write through a translation mprotect must shoot down ----------------- */

static long xt_op(struct xs_run *r, int task, int op)
{
	unsigned char v = 0xa0;

	if (task == 0)
		return rv_mm_write(XVBASE, &v, 1);
	if (op == 0)
		return vm_mprotect(current->mm, XVBASE, PAGE_SIZE, PROT_READ);
	if (rv_mm_read(XVBASE, &v, 1))
		return -EIO;
	return v;
}

static int xt_check(struct xs_run *r, char *why, size_t len)
{
	unsigned char v = 0;

	if (r->result[1][0] || r->result[1][1] < 0) {
		snprintf(why, len, "mprotect %ld, read %ld", r->result[1][0], r->result[1][1]);
		return 1;
	}
	if (mm_access(r->task[0]->mm, XVBASE, &v, 1, false)) {
		snprintf(why, len, "the page cannot be read");
		return 1;
	}
	if (v != r->result[1][1]) {
		snprintf(why, len,
			 "the page read 0x%02lx after mprotect returned and 0x%02x at the "
			 "end: a write through a stale writable translation landed after mprotect",
			 r->result[1][1], v);
		return 1;
	}
	if (r->result[0][0] == 0 && v != 0xa0) {
		snprintf(why, len, "the write returned 0 but the page reads 0x%02x", v);
		return 1;
	}
	return 0;
}

static struct xscenario tlb_mprotect = {
    .name = "tlb-mprotect",
    .summary = "a write through an in-use translation vs mprotect read-only, then a read",
    .ntasks = 2,
    .nops = {1, 2},
    .opname = {{"write(0xa0)"}, {"mprotect(READ)", "read"}},
    .matrix_k = 3, /* K = 3 exhausts in seconds (docs/explore.md, Depth) */
    .variants =
	{
	    {"", false},
	},
    .setup = xv_setup,
    .op = xt_op,
    .midcheck = xv_midcheck,
    .check = xt_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(tlb_mprotect)
