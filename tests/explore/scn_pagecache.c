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

#include <string.h>
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
	do_unlink("/xwb");
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

/* ---- writeback vs truncate vs a write fault ---------------------------------------- */

/*
 * /xwb holds page 0 (0x11) and page 1 (0x22), mapped shared and writable.
 * T0 writes 0x66 and then 0x67 into page 0 (a write fault, then a write
 * through the translation it cached) and 0x77 into page 1 (which may be
 * beyond EOF by then: SIGBUS, -EFAULT here); T1, a thread of the same
 * process, fsyncs (writeback: folio_mkclean write-protects and cleans
 * the PTEs, flushing the translations, before the copy to the store) and
 * truncates the file to one page.  After the schedule: the size is one
 * page and page 1 is not mapped; the file extended back to two pages
 * reads zeros in page 1 (no data from beyond EOF survives the truncate);
 * and with every folio reclaimed (so the next read comes from the store),
 * page 0 reads 0x67 (no dirty data lost between the writes, the
 * writeback and reclaim).
 *
 * Shown to catch (a temporary edit): folio_mkclean setting the clean
 * read-only PTE without clearing and flushing the old one first (T0's
 * cached translation writes 0x67 after writeback's copy, the folio stays
 * clean and reclaim drops it), found after 974 schedules
 * (writeback-truncate@33.1).  Survivors, equivalent here:
 * folio_mkclean not moving the PTE's dirty bit to the folio (every fault
 * that makes a shared PTE writable dirties the folio itself) or doing
 * nothing at all (the PTE stays dirty and try_to_unmap moves the bit at
 * reclaim), and inode_truncate_locked without its second
 * unmap_mapping_range (a fault after the size change finds EOF under the
 * folio lock; that unmap is for private COW copies, truncate-cow).
 */
static int wb_setup(struct xs_run *r)
{
	struct pc_priv *pp = r->priv;
	struct task_struct *p = xs_process(r, 0, "writer");
	unsigned char buf[PAGE_SIZE];
	int64_t pos = 0;

	if (!p)
		return -ENOMEM;
	task_attach(p);
	if (exec_mm(p) || filp_open("/xwb", O_RDWR | O_CREAT, 0644, &pp->f))
		return -EIO;
	for (int i = 0; i < 2; i++) {
		memset(buf, 0x11 * (i + 1), sizeof(buf));
		if (vfs_write(pp->f, buf, PAGE_SIZE, &pos) != (ssize_t)PAGE_SIZE)
			return -EIO;
	}
	if (vfs_fsync(pp->f, 0))
		return -EIO;
	if (vm_mmap(p->mm, XPC_BASE, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_FIXED, pp->f, 0) != (long)XPC_BASE)
		return -EIO;
	return xs_thread_of(r, 1, 0) ? 0 : -ENOMEM;
}

static long wb_op(struct xs_run *r, int task, int op)
{
	struct pc_priv *pp = r->priv;
	unsigned char v = (unsigned char)(0x66 + op);

	if (task == 1)
		return op == 0 ? vfs_fsync(pp->f, 0) : vfs_truncate(pp->f->f_inode, PAGE_SIZE);
	if (op == 2)
		v = 0x77;
	return rv_mm_write(XPC_BASE + (op == 2 ? PAGE_SIZE : 0), &v, 1) ? -EFAULT : 0;
}

static int wb_check(struct xs_run *r, char *why, size_t len)
{
	struct pc_priv *pp = r->priv;
	struct inode *inode = pp->f->f_inode;
	unsigned char buf[PAGE_SIZE], v;
	int64_t pos;

	if (r->result[1][0] || r->result[1][1] || r->result[0][0] || r->result[0][1]) {
		snprintf(why, len, "fsync %ld, truncate %ld, the writes to page 0 %ld, %ld",
			 r->result[1][0], r->result[1][1], r->result[0][0], r->result[0][1]);
		return 1;
	}
	if (__atomic_load_n(&inode->i_size, __ATOMIC_RELAXED) != PAGE_SIZE) {
		snprintf(why, len, "size %lld after truncate to one page", (long long)__atomic_load_n(&inode->i_size, __ATOMIC_RELAXED));
		return 1;
	}
	if (!mm_access(r->task[0]->mm, XPC_BASE + PAGE_SIZE, &v, 1, false)) {
		snprintf(why, len, "page 1 is beyond EOF but still mapped and readable (0x%02x)", v);
		return 1;
	}
	if (mm_check(r->task[0]->mm)) {
		snprintf(why, len, "mm_check fails");
		return 1;
	}
	/* everything to the store, then read back from it */
	if (vfs_truncate(inode, 2 * PAGE_SIZE))
		return snprintf(why, len, "extending the file failed"), 1;
	mm_reclaim_folios(1000);
	pos = PAGE_SIZE;
	if (vfs_read(pp->f, buf, PAGE_SIZE, &pos) != (ssize_t)PAGE_SIZE)
		return snprintf(why, len, "reading page 1 failed"), 1;
	for (size_t i = 0; i < PAGE_SIZE; i++)
		if (buf[i]) {
			snprintf(why, len, "page 1, truncated away and extended again, reads 0x%02x "
				 "at %zu: data from beyond EOF survived the truncate", buf[i], i);
			return 1;
		}
	pos = 0;
	if (vfs_read(pp->f, buf, PAGE_SIZE, &pos) != (ssize_t)PAGE_SIZE)
		return snprintf(why, len, "reading page 0 failed"), 1;
	if (buf[0] != 0x67 || buf[1] != 0x11) {
		snprintf(why, len, "page 0 reads %02x %02x after reclaim, not 67 11: a dirty "
			 "write was lost", buf[0], buf[1]);
		return 1;
	}
	return 0;
}

static struct xscenario writeback_truncate = {
	.name = "writeback-truncate",
	.summary = "writes to pages 0 (twice) and 1 of a shared file mapping vs fsync, then "
		   "truncate to one page",
	.ntasks = 2,
	.nops = {3, 2},
	.opname = {{"write(page 0)=66", "write(page 0)=67", "write(page 1)"},
		   {"fsync", "truncate(1 page)"}},
	.variants = {
		{"", false},
	},
	.priv_size = sizeof(struct pc_priv),
	.setup = wb_setup,
	.op = wb_op,
	.check = wb_check,
	.teardown = mlock_teardown,
};
XSCENARIO(writeback_truncate)
