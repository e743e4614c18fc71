// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_pagecache.c - page-cache scenarios: mlock racing
 * reclaim of the folio it locks.
 *
 * mlock-reclaim: a file page (0x33) is mapped shared and read (its PTE is
 * present).  T0 mlocks the page, then reads it; T1, a thread of the same
 * process, reclaims the page cache (mm_reclaim_folios: try_to_unmap,
 * write back, remove).  Reclaim may take the folio before mlock sets
 * VM_LOCKED (mlock's populate then faults it back in); once mlock has
 * returned, the folio is mapped by a VM_LOCKED VMA and must stay: T0's
 * read after it may not be a major fault (the `majflt` counter), the
 * folio is still in the page cache at the end, and mm_check holds.
 * mlock=no (T0 does not lock) must and does fail: reclaim then takes the
 * page and the read is a major fault, which shows the oracle sees it.
 *
 * Shown to catch (temporary edits): try_to_unmap without its VM_LOCKED
 * test, found in the first schedule (mlock-reclaim/mlock=yes@-); mlock
 * populating the range before it sets VM_LOCKED (reclaim takes the page
 * in between and the read after mlock is a major fault), found after 68
 * schedules (mlock-reclaim/mlock=yes@9.1).
 *
 * Locking: setup, check and teardown run on the driver while no task runs.
 */
#include "explore.h"

#include <sys/mman.h>

#define XPC_BASE 0x30000000UL

struct pc_priv {
	struct file *f;
};

static uint64_t pc_stat(const char *name)
{
	uint64_t v = 0;

	rv_stat_read(name, &v);
	return v;
}

static int mlock_setup(struct xs_run *r)
{
	struct pc_priv *pp = r->priv;
	struct task_struct *p = xs_process(r, 0, "locker");
	unsigned char buf[PAGE_SIZE], b;
	int64_t pos = 0;

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p) || filp_open("/xml", O_RDWR | O_CREAT, 0644, &pp->f))
		return -EIO;
	memset(buf, 0x33, sizeof(buf));
	if (vfs_write(pp->f, buf, PAGE_SIZE, &pos) != (ssize_t)PAGE_SIZE)
		return -EIO;
	if (vm_mmap(p->mm, XPC_BASE, PAGE_SIZE, PROT_READ, MAP_SHARED | MAP_FIXED, pp->f, 0) !=
	    (long)XPC_BASE)
		return -EIO;
	if (rv_mm_read(XPC_BASE, &b, 1) || b != 0x33)
		return -EIO;
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

/* T0: mlock (0 or -errno); then the read: the byte, plus 0x100 if it was a
 * major fault.  T1: the number of folios reclaimed. */
static long mlock_op(struct xs_run *r, int task, int op)
{
	unsigned char b = 0;
	uint64_t maj;

	(void)r;
	if (task == 1)
		return mm_reclaim_folios(1000);
	if (op == 0)
		return xs_param_is(r, "mlock", "no") ? 0 : vm_mlock(current->mm, XPC_BASE, PAGE_SIZE);
	maj = pc_stat("majflt");
	if (rv_mm_read(XPC_BASE, &b, 1))
		return -EFAULT;
	return b | (pc_stat("majflt") != maj ? 0x100 : 0);
}

static int mlock_check(struct xs_run *r, char *why, size_t len)
{
	struct pc_priv *pp = r->priv;
	struct folio *fo;

	if (r->result[0][0]) {
		snprintf(why, len, "mlock returned %ld", r->result[0][0]);
		return 1;
	}
	if (r->result[0][1] != 0x33) {
		snprintf(why, len,
			 "the read after mlock returned %#lx: %s", r->result[0][1],
			 r->result[0][1] & 0x100 ? "a major fault, the locked page was reclaimed"
						 : "wrong data");
		return 1;
	}
	fo = filemap_get_folio(pp->f->f_mapping, 0);
	if (!fo) {
		snprintf(why, len, "the page is no longer in the page cache (reclaimed while mlocked, or never locked)");
		return 1;
	}
	folio_put(fo);
	if (mm_check(r->task[0]->mm)) {
		snprintf(why, len, "mm_check fails");
		return 1;
	}
	return 0;
}

static void mlock_teardown(struct xs_run *r)
{
	struct pc_priv *pp = r->priv;

	xs_exit_tasks(r);
	if (pp->f)
		fput(pp->f);
	pp->f = NULL;
	do_unlink("/xml");
}

static struct xscenario mlock_reclaim = {
	.name = "mlock-reclaim",
	.summary = "mlock a mapped file page, then read it, vs reclaim of the page cache",
	.ntasks = 2,
	.nops = {2, 1},
	.opname = {{"mlock", "read"}, {"reclaim"}},
	.params = {{"mlock", {"yes", "no"}, "T0 mlocks the page, or (a known failure) does not"}},
	.variants = {
		{"mlock=yes", false},
		{"mlock=no", true},
	},
	.priv_size = sizeof(struct pc_priv),
	.setup = mlock_setup,
	.op = mlock_op,
	.check = mlock_check,
	.teardown = mlock_teardown,
};
XSCENARIO(mlock_reclaim)
