// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_pagecache.c - page-cache scenarios: mlock racing
 * reclaim of the folio it locks; writes through a shared file mapping
 * racing writeback and truncate; shared anonymous and /dev/zero mappings
 * created and removed concurrently (shm_mnt's inode list).
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
		return xs_param_is(r, "mlock", "no") ? 0
						     : vm_mlock(current->mm, XPC_BASE, PAGE_SIZE);
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
		snprintf(why, len, "the read after mlock returned %#lx: %s", r->result[0][1],
			 r->result[0][1] & 0x100 ? "a major fault, the locked page was reclaimed"
						 : "wrong data");
		return 1;
	}
	fo = filemap_get_folio(pp->f->f_mapping, 0);
	if (!fo) {
		snprintf(why, len,
			 "the page is no longer in the page cache (reclaimed while mlocked, or "
			 "never locked)");
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
    .variants =
	{
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
	if (vm_mmap(p->mm, XPC_BASE, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		    pp->f, 0) != (long)XPC_BASE)
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
		snprintf(why, len, "size %lld after truncate to one page",
			 (long long)__atomic_load_n(&inode->i_size, __ATOMIC_RELAXED));
		return 1;
	}
	if (!mm_access(r->task[0]->mm, XPC_BASE + PAGE_SIZE, &v, 1, false)) {
		snprintf(why, len, "page 1 is beyond EOF but still mapped and readable (0x%02x)",
			 v);
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
			snprintf(why, len,
				 "page 1, truncated away and extended again, reads 0x%02x "
				 "at %zu: data from beyond EOF survived the truncate",
				 buf[i], i);
			return 1;
		}
	pos = 0;
	if (vfs_read(pp->f, buf, PAGE_SIZE, &pos) != (ssize_t)PAGE_SIZE)
		return snprintf(why, len, "reading page 0 failed"), 1;
	if (buf[0] != 0x67 || buf[1] != 0x11) {
		snprintf(why, len,
			 "page 0 reads %02x %02x after reclaim, not 67 11: a dirty "
			 "write was lost",
			 buf[0], buf[1]);
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
    .variants =
	{
	    {"", false},
	},
    .priv_size = sizeof(struct pc_priv),
    .setup = wb_setup,
    .op = wb_op,
    .check = wb_check,
    .teardown = mlock_teardown,
};
XSCENARIO(writeback_truncate)

/* ---- shmem and /dev/zero shared mappings created concurrently ---------------------- */

/*
 * Two processes each create a shared anonymous page: T0 with mmap
 * (MAP_SHARED | MAP_ANONYMOUS: shmem_zero_setup), T1 by mapping /dev/zero
 * shared (mmap_zero, the same shmem file underneath); each writes its own
 * byte and reads it back, then T0 unmaps its page (the last reference:
 * its inode is evicted and leaves shm_mnt's list) while T1 keeps its
 * mapping.  Both inodes go on and off shm_mnt's s_inodes under its
 * s_inode_list_lock.  Checked between critical sections (midcheck, no
 * task inside a spinlock): the list's links are consistent, and its
 * length is within the in-flight adds and removals of s_nr_inodes;
 * after the schedule: each page reads its own byte (two distinct files),
 * exactly T1's inode is left (the baseline plus one, and listed).
 *
 * No plausible concurrency bug of this path is in the explorer's reach:
 * list_add and list_del have no scheduling point inside, so a dropped
 * s_inode_list_lock changes no interleaving (a memory-ordering bug, see
 * docs/explore.md "Limits").  The oracle does see a lost removal (evict
 * leaving a shm_mnt inode on the list: the first schedule fails).
 */
#define XZ_BASE 0x40000000UL

struct zero_priv {
	long base;     /* shm_mnt inodes before the schedule */
	uint64_t ino1; /* T1's shmem inode */
};

static int zero_setup(struct xs_run *r)
{
	struct zero_priv *zp = r->priv;

	if (!xs_process(r, 0, "anon") || !xs_process(r, 1, "devzero"))
		return -ENOMEM;
	for (int i = 0; i < 2; i++) {
		task_attach(r->task[i]);
		if (exec_mm(r->task[i]))
			return -EIO;
		task_detach();
	}
	task_attach(r->task[0]);
	zp->base = shmem_inodes_live();
	return 0;
}

static long zero_op(struct xs_run *r, int task, int op)
{
	struct zero_priv *zp = r->priv;
	struct mm_struct *mm = current->mm;
	unsigned char v = task ? 0x42 : 0x41, got = 0;
	struct file *f = NULL;
	long addr;

	if (op == 1) /* T0 only */
		return vm_munmap(mm, XZ_BASE, PAGE_SIZE);
	if (task == 0) {
		addr = vm_mmap(mm, XZ_BASE, PAGE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, NULL, 0);
	} else {
		int err = dev_zero_open(O_RDWR, &f);

		if (err)
			return err;
		addr = vm_mmap(mm, XZ_BASE, PAGE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_FIXED, f, 0);
		fput(f); /* the mapping holds its own (shmem) file */
	}
	if (addr != (long)XZ_BASE)
		return addr < 0 ? addr : -EIO;
	if (task == 1) {
		struct vm_area_struct *vma = mm_vma_at(mm, 0);

		if (vma && vma->vm_file)
			zp->ino1 = vma->vm_file->f_inode->i_ino;
	}
	if (rv_mm_write(XZ_BASE, &v, 1) || rv_mm_read(XZ_BASE, &got, 1))
		return -EFAULT;
	return got;
}

/* The list's links, read raw: every decision where midcheck runs has no
 * task inside s_inode_list_lock. */
static int zero_midcheck(struct xs_run *r, char *why, size_t len)
{
	struct zero_priv *zp = r->priv;
	struct super_block *sb = shm_mnt_sb();
	struct list_head *pos;
	long n = 0, nr;

	if (!sb)
		return 0;
	for (pos = sb->s_inodes.next; pos != &sb->s_inodes; pos = pos->next) {
		if (pos->next->prev != pos || ++n > zp->base + 8) {
			snprintf(why, len, "shm_mnt's s_inodes is corrupt at entry %ld", n);
			return 1;
		}
	}
	/* s_nr_inodes moves just after the list (outside the lock): each task
	 * may be between the two */
	nr = __atomic_load_n(&sb->s_nr_inodes, __ATOMIC_RELAXED);
	if (n < nr - 2 || n > nr + 2 || n > zp->base + 2 || n < zp->base) {
		snprintf(why, len, "shm_mnt lists %ld inodes, s_nr_inodes %ld, %ld before", n, nr,
			 zp->base);
		return 1;
	}
	return 0;
}

static int zero_check(struct xs_run *r, char *why, size_t len)
{
	struct zero_priv *zp = r->priv;
	struct super_block *sb = shm_mnt_sb();
	unsigned char got = 0;
	long n = 0;

	if (r->result[0][0] != 0x41 || r->result[1][0] != 0x42 || r->result[0][1]) {
		snprintf(why, len, "T0 read %#lx (want 0x41), T1 %#lx (want 0x42), munmap %ld",
			 r->result[0][0], r->result[1][0], r->result[0][1]);
		return 1;
	}
	if (mm_access(r->task[1]->mm, XZ_BASE, &got, 1, false) || got != 0x42) {
		snprintf(why, len, "T1's page reads %#x at the end", got);
		return 1;
	}
	for (struct list_head *pos = sb->s_inodes.next; pos != &sb->s_inodes && n < 100;
	     pos = pos->next)
		n++;
	if (n != zp->base + 1) {
		snprintf(why, len, "shm_mnt lists %ld inodes at the end, want %ld", n,
			 zp->base + 1);
		return 1;
	}
	if (shmem_inodes_live() != zp->base + 1 || !zp->ino1 || !shmem_inode_listed(zp->ino1)) {
		snprintf(why, len, "%ld shm_mnt inodes (want %ld), T1's %s", shmem_inodes_live(),
			 zp->base + 1,
			 zp->ino1 && shmem_inode_listed(zp->ino1) ? "listed" : "not listed");
		return 1;
	}
	return 0;
}

static struct xscenario shmem_zero = {
    .name = "shmem-zero",
    .summary = "mmap MAP_SHARED|MAP_ANONYMOUS, write, munmap vs mmap of /dev/zero MAP_SHARED, "
	       "write (two processes, shm_mnt's inode list)",
    .ntasks = 2,
    .nops = {2, 1},
    .opname = {{"mmap(shared anon)+write", "munmap"}, {"mmap(/dev/zero)+write"}},
    .variants =
	{
	    {"", false},
	},
    /* K = 2 is 18,833 schedules (clean, 7.7 s on the loaded development
     * machine): CTest runs K = 1 (201) */
    .matrix_k = 1,
    .priv_size = sizeof(struct zero_priv),
    .setup = zero_setup,
    .op = zero_op,
    .midcheck = zero_midcheck,
    .check = zero_check,
    .teardown = xs_exit_tasks,
};
XSCENARIO(shmem_zero)
