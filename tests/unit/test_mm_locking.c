// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_mm_locking.c - mm paths whose locking follows a named
 * kernel function, each shown against the race it closes.  Every race is
 * driven with injection points and rendezvous (no sleeps): a thread parks
 * at a point, the test observes from outside what the other side could do
 * meanwhile (a queued waiter on a lock, a page table still allocated, the
 * data a process reads), then releases it.  Workers record, the main
 * thread asserts.
 */
#include "test_mm_util.h"

#include <fcntl.h>
#include <sched.h>

#define BASE 0x20000000UL
#define RW   (PROT_READ | PROT_WRITE)
#define SPIN_LIMIT 100000000L /* bounds every wait; never reached when correct */

/* A model process with a fresh address space, not attached to any thread. */
static struct task_struct *new_proc_detached(const char *comm)
{
	struct task_struct *t = task_create_process(comm);

	CU_ASSERT_FATAL(t != NULL);
	CU_ASSERT_FATAL(exec_mm(t) == 0);
	return t;
}

/* Wait until `th` finished or cond(arg) holds; returns whether th finished. */
static bool wait_done_or(struct mmt_thread *th, bool (*cond)(void *), void *arg)
{
	for (long i = 0;; i++) {
		if (__atomic_load_n(&th->done, __ATOMIC_ACQUIRE))
			return true;
		if (cond(arg))
			return false;
		CU_ASSERT_FATAL(i < SPIN_LIMIT);
		sched_yield();
	}
}

static bool rwsem_queued(void *sem)
{
	return rwsem_is_contended(sem);
}

/* ------------------------------------------------------------------ */
/* exit_mmap unlinks the VMAs from rmap before freeing page tables     */
/* ------------------------------------------------------------------ */

struct fsync_arg {
	struct file *f;
	int ret;
};

static void *fsync_fn(void *p)
{
	struct fsync_arg *a = p;

	a->ret = vfs_fsync(a->f, 0);
	return NULL;
}

static void *exit_fn(void *p)
{
	task_exit(p);
	return NULL;
}

/*
 * fsync's folio_mkclean walks i_mmap and is parked inside a VMA's page
 * table (loaded, not yet locked) when the process exits.  exit_mmap must
 * not free that table while the VMA is still on i_mmap: it unlinks the
 * VMA first, which waits for the walker (i_mmap_rwsem).  Before the fix
 * the table was freed under the walker (ASan: use-after-free in
 * folio_check_address).
 */
static void test_exit_mmap_vs_fsync(void)
{
	struct task_struct *drv = mmt_new_proc(), *t = new_proc_detached("exiting");
	struct task_struct *tf = new_proc_detached("fsync"), *te = new_proc_detached("exiter");
	struct file *f = mmt_make_file("/exit-fsync", 1, 0x10);
	struct address_space *m = f->f_mapping;
	struct mm_struct *mm = t->mm;
	struct fsync_arg fa = { .f = f };
	struct mmt_thread fth, eth;
	unsigned char v = 0x5a;
	long ptes_at_block;
	bool exited;

	CU_ASSERT(vm_mmap(mm, BASE, PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)BASE);
	CU_ASSERT(mm_access(mm, BASE, &v, 1, true) == 0); /* dirty, mapped */
	CU_ASSERT(mm_nr_ptes(mm) == 1);
	CU_ASSERT(rv_inject_set_pause("folio_check_address", 1) == 0);
	mmt_thread_start(&fth, tf, fsync_fn, &fa);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("folio_check_address", 1, 20000) == 0);
	/* the walker holds i_mmap_rwsem (read) and a pointer to the table */
	mmgrab(mm); /* keep the struct to look at it */
	mmt_thread_start(&eth, te, exit_fn, t);
	exited = wait_done_or(&eth, rwsem_queued, &m->i_mmap_rwsem);
	ptes_at_block = mm_nr_ptes(mm);
	CU_ASSERT(!exited); /* it must wait for the walker on i_mmap_rwsem */
	CU_ASSERT(ptes_at_block == 1); /* the walker's table is still there */
	rv_inject_release("folio_check_address");
	mmt_thread_join(&fth);
	mmt_thread_join(&eth);
	rv_inject_clear_all();
	CU_ASSERT(fa.ret == 0);
	CU_ASSERT(mm_nr_ptes(mm) == 0);
	mmdrop(mm);
	CU_ASSERT(mmt_file_has(f, 0, 0x5a) == 0); /* one byte changed, not the page */
	{
		unsigned char b = 0;
		int64_t pos = 0;

		CU_ASSERT(vfs_read(f, &b, 1, &pos) == 1 && b == 0x5a);
	}
	task_exit(te);
	task_exit(tf);
	task_exit(drv);
	fput(f);
	CU_ASSERT(do_unlink("/exit-fsync") == 0);
	CU_ASSERT(mmt_all_freed());
}

RVTEST_SUITE(mm_locking, rvtest_instance_init, rvtest_instance_cleanup,
	     RVTEST(test_exit_mmap_vs_fsync))
