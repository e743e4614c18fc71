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

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#define BASE	   0x20000000UL
#define RW	   (PROT_READ | PROT_WRITE)
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
	struct fsync_arg fa = {.f = f};
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
	CU_ASSERT(!exited);	       /* it must wait for the walker on i_mmap_rwsem */
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
	mmt_exit(te);
	mmt_exit(tf);
	mmt_exit(drv);
	fput(f);
	CU_ASSERT(do_unlink("/exit-fsync") == 0);
	CU_ASSERT(mmt_all_freed());
}

/* ------------------------------------------------------------------ */
/* private COW fault vs truncate                                       */
/* ------------------------------------------------------------------ */

struct access_arg {
	struct mm_struct *mm;
	unsigned long addr;
	unsigned char val;
	bool write;
	int ret;
};

static void *access_fn(void *p)
{
	struct access_arg *a = p;

	a->ret = mm_access(a->mm, a->addr, &a->val, 1, a->write);
	return NULL;
}

static sigjmp_buf host_bus_jmp;

static void host_bus_handler(int sig)
{
	(void)sig;
	siglongjmp(host_bus_jmp, 1);
}

/*
 * The host kernel's answer for the same sequence without the race: a
 * private writable mapping of a 2-page file, page 1 COW'd by a write, the
 * file truncated to one page, page 1 read again.  1 if the read raised
 * SIGBUS (truncate removed the COW copy too and the page is beyond EOF).
 */
static int host_cow_then_truncate_sigbus(void)
{
	char path[] = "/tmp/rcuvfs-cowtrunc-XXXXXX";
	struct sigaction sa = {.sa_handler = host_bus_handler}, old;
	int fd = mkstemp(path), bus = 0;
	volatile unsigned char *p;

	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	CU_ASSERT_FATAL(ftruncate(fd, 2 * (off_t)PG) == 0);
	p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CU_ASSERT_FATAL(p != MAP_FAILED);
	p[PG] = 0x99; /* COW */
	CU_ASSERT_FATAL(ftruncate(fd, (off_t)PG) == 0);
	sigemptyset(&sa.sa_mask);
	CU_ASSERT_FATAL(sigaction(SIGBUS, &sa, &old) == 0);
	if (sigsetjmp(host_bus_jmp, 1) == 0)
		(void)p[PG];
	else
		bus = 1;
	sigaction(SIGBUS, &old, NULL);
	munmap((void *)p, 2 * PG);
	close(fd);
	return bus;
}

/*
 * A private write fault on page 1 found the folio in the page cache and
 * is about to copy it when the file is truncated to one page (truncate
 * runs whole: unmap, remove the folio, unmap again).  As do_cow_fault
 * does under __do_fault's folio lock, the fault must see the folio gone
 * and then the new EOF: the access fails (SIGBUS: -EIO) and nothing stays
 * mapped beyond EOF, which is what the host kernel answers for the same
 * sequence without the race (asked first).  Before the fix the copy was installed after the
 * truncate and page 1 stayed mapped and readable.
 */
static void test_cow_fault_vs_truncate(void)
{
	struct task_struct *drv = mmt_new_proc(), *t = new_proc_detached("cow");
	struct file *f = mmt_make_file("/cow-trunc", 2, 0x30);
	struct mm_struct *mm = t->mm;
	struct access_arg a = {.mm = mm, .addr = BASE + PG, .val = 0x99, .write = true};
	struct mmt_thread th;
	unsigned char b = 0;

	CU_ASSERT(vm_mmap(mm, BASE, 2 * PG, RW, MAP_PRIVATE | MAP_FIXED, f, 0) == (long)BASE);
	CU_ASSERT(host_cow_then_truncate_sigbus() == 1);
	CU_ASSERT(mm_access(mm, BASE, &b, 1, false) == 0 && b == 0x30);
	CU_ASSERT(rv_inject_set_pause("filemap_fault_cached", 1) == 0);
	mmt_thread_start(&th, t, access_fn, &a);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("filemap_fault_cached", 1, 20000) == 0);
	CU_ASSERT(vfs_truncate(f->f_inode, PG) == 0);
	rv_inject_release("filemap_fault_cached");
	mmt_thread_join(&th);
	rv_inject_clear_all();
	CU_ASSERT(a.ret == -EIO);
	CU_ASSERT(mm_pte_read(mm, BASE + PG) == 0);
	CU_ASSERT(mm_access(mm, BASE + PG, &b, 1, false) == -EIO);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 0);
	CU_ASSERT(mm_access(mm, BASE, &b, 1, false) == 0 && b == 0x30);
	mmt_exit(t);
	mmt_exit(drv);
	fput(f);
	CU_ASSERT(do_unlink("/cow-trunc") == 0);
	CU_ASSERT(mmt_all_freed());
}

/* ------------------------------------------------------------------ */
/* VM_MAYWRITE: a shared mapping of a read-only file stays read-only   */
/* ------------------------------------------------------------------ */

/* The host kernel's answer: errno of mprotect(PROT_WRITE) on a mapping of
 * an O_RDONLY file (0 if it succeeded), shared or private. */
static int host_mprotect_rdonly(int map_type)
{
	char path[] = "/tmp/rcuvfs-maywrite-XXXXXX";
	int fd = mkstemp(path), rfd, err = 0;
	void *p;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(ftruncate(fd, (off_t)PG) == 0);
	rfd = open(path, O_RDONLY);
	unlink(path);
	close(fd);
	CU_ASSERT_FATAL(rfd >= 0);
	p = mmap(NULL, PG, PROT_READ, map_type, rfd, 0);
	CU_ASSERT_FATAL(p != MAP_FAILED);
	if (mprotect(p, PG, PROT_READ | PROT_WRITE))
		err = errno;
	munmap(p, PG);
	close(rfd);
	return err;
}

/*
 * As do_mmap and mprotect do: MAP_SHARED of an O_RDONLY file cannot be
 * made writable (EACCES, the host kernel's answer too); MAP_PRIVATE can,
 * and its writes never reach the file.  Before the fix mprotect made the
 * shared mapping writable and the write reached the file.
 */
static void test_shared_rdonly_mprotect(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *w = mmt_make_file("/maywrite", 1, 0x40), *r = NULL;
	unsigned char b = 0x77;

	CU_ASSERT_FATAL(filp_open("/maywrite", O_RDONLY, 0, &r) == 0);
	CU_ASSERT(host_mprotect_rdonly(MAP_SHARED) == EACCES);
	CU_ASSERT(host_mprotect_rdonly(MAP_PRIVATE) == 0);
	/* shared: PROT_WRITE refused at mmap and at mprotect */
	CU_ASSERT(vm_mmap(mm, BASE, PG, RW, MAP_SHARED | MAP_FIXED, r, 0) == -EACCES);
	CU_ASSERT(vm_mmap(mm, BASE, PG, PROT_READ, MAP_SHARED | MAP_FIXED, r, 0) == (long)BASE);
	CU_ASSERT(vm_mprotect(mm, BASE, PG, RW) == -EACCES);
	CU_ASSERT(mm_access(mm, BASE, &b, 1, true) == -EFAULT);
	CU_ASSERT(mmt_file_has(w, 0, 0x40));
	/* private: writable after mprotect, the write stays private */
	CU_ASSERT(vm_mmap(mm, BASE + PG, PG, PROT_READ, MAP_PRIVATE | MAP_FIXED, r, 0) ==
		  (long)(BASE + PG));
	CU_ASSERT(vm_mprotect(mm, BASE + PG, PG, RW) == 0);
	b = 0x77;
	CU_ASSERT(mm_access(mm, BASE + PG, &b, 1, true) == 0);
	b = 0;
	CU_ASSERT(mm_access(mm, BASE + PG, &b, 1, false) == 0 && b == 0x77);
	CU_ASSERT(mm_access(mm, BASE, &b, 1, false) == 0 && b == 0x40);
	CU_ASSERT(mmt_file_has(w, 0, 0x40));
	CU_ASSERT(mm_validate(mm) == 0);
	mmt_exit(t);
	fput(r);
	fput(w);
	CU_ASSERT(do_unlink("/maywrite") == 0);
	CU_ASSERT(mmt_all_freed());
}

/* ------------------------------------------------------------------ */
/* dup_mmap: VM_WIPEONFORK VMAs start without an anon_vma              */
/* ------------------------------------------------------------------ */

/*
 * As dup_mmap does: the child's copy of a VM_WIPEONFORK VMA gets neither
 * the parent's pages nor its anon_vma tree; its first write prepares an
 * anon_vma of its own.  Before the fix fork linked it into the parent's
 * tree (one more anon_vma, two more chain links, visited by every rmap
 * walk of the parent's folios).
 */
static void test_wipeonfork_no_anon_vma(void)
{
	struct task_struct *p = mmt_new_proc(), *c;
	struct mm_objects before, after;
	struct vm_area_struct *cv;
	unsigned char b = 0x61;

	CU_ASSERT(mmt_map(p->mm, BASE, PG, RW) == (long)BASE);
	CU_ASSERT(rv_mm_write(BASE, &b, 1) == 0);
	mmap_write_lock(p->mm);
	vma_lookup(p->mm, BASE)->vm_flags |= VM_WIPEONFORK; /* madvise(MADV_WIPEONFORK) */
	mmap_write_unlock(p->mm);
	rcu_barrier();
	mm_objects_count(&before);
	c = task_fork(p);
	CU_ASSERT_FATAL(c != NULL);
	mm_objects_count(&after);
	CU_ASSERT(after.anon_vmas == before.anon_vmas);
	CU_ASSERT(after.avcs == before.avcs);
	mmap_read_lock(c->mm);
	cv = vma_lookup(c->mm, BASE);
	CU_ASSERT_FATAL(cv != NULL);
	CU_ASSERT(cv->anon_vma == NULL && list_empty(&cv->anon_vma_chain));
	mmap_read_unlock(c->mm);
	/* the parent's folio: found once, in the parent */
	{
		struct folio *fo = mm_folio_from_pte(mm_pte_read(p->mm, BASE));

		CU_ASSERT(rmap_walk(fo, NULL, NULL) == 1);
	}
	b = 0xff;
	CU_ASSERT(mm_access(c->mm, BASE, &b, 1, false) == 0 && b == 0); /* wiped */
	b = 0x62;
	CU_ASSERT(mm_access(c->mm, BASE, &b, 1, true) == 0);
	CU_ASSERT(mm_access(p->mm, BASE, &b, 1, false) == 0 && b == 0x61);
	CU_ASSERT(mm_validate(c->mm) == 0);
	mmt_exit(c);
	mmt_exit(p);
	CU_ASSERT(mmt_all_freed());
}

/* ------------------------------------------------------------------ */
/* lock_vma_under_rcu retries on a detached VMA                        */
/* ------------------------------------------------------------------ */

/*
 * A fault found the VMA under RCU and is about to read-lock it when
 * mmap(MAP_FIXED) replaces it.  As lock_vma_under_rcu does, the detached
 * VMA sends the lookup round again, and the fault completes under the new
 * VMA's lock; before the fix it fell back to mmap_lock.
 */
static void test_lock_vma_retry_replaced(void)
{
	struct task_struct *drv = mmt_new_proc(), *t = new_proc_detached("replaced");
	struct mm_struct *mm = t->mm;
	struct access_arg a = {.mm = mm, .addr = BASE, .val = 0x11, .write = true};
	uint64_t faults, misses, replaced;
	struct vm_area_struct *old;
	struct mmt_thread th;
	unsigned char b = 0;
	bool recycled;

	CU_ASSERT(mmt_map(mm, BASE, PG, RW) == (long)BASE);
	old = vma_lookup(mm, BASE);
	faults = mmt_stat("vma_lock_faults");
	misses = mmt_stat("vma_lock_misses");
	replaced = mmt_stat("vma_lock_replaced");
	CU_ASSERT(rv_inject_set_pause("lock_vma_under_rcu", 1) == 0);
	mmt_thread_start(&th, t, access_fn, &a);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("lock_vma_under_rcu", 1, 20000) == 0);
	/* a new VMA in the same place (different protection: no merge) */
	CU_ASSERT(vm_mmap(mm, BASE, PG, PROT_READ | PROT_WRITE | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0) == (long)BASE);
	/*
	 * With vm_area_cache=typesafe(-sheaves) the old VMA is freed at once
	 * and this thread's slab slot hands the same object to the new VMA:
	 * the fault then finds it attached, in this mm, covering the address,
	 * which it is: it locks it with no retry.  Otherwise the new VMA is
	 * another object and the old one is detached.
	 */
	recycled = vma_lookup(mm, BASE) == old;
	CU_ASSERT(recycled == mmt_vma_typesafe());
	rv_inject_release("lock_vma_under_rcu");
	mmt_thread_join(&th);
	rv_inject_clear_all();
	CU_ASSERT(a.ret == 0);
	CU_ASSERT(mmt_stat("vma_lock_replaced") == replaced + (recycled ? 0 : 1));
	CU_ASSERT(mmt_stat("vma_lock_misses") == misses);
	CU_ASSERT(mmt_stat("vma_lock_faults") == faults + 1);
	CU_ASSERT(mm_access(mm, BASE, &b, 1, false) == 0 && b == 0x11);
	mmt_exit(t);
	mmt_exit(drv);
	CU_ASSERT(mmt_all_freed());
}

/* ------------------------------------------------------------------ */
/* SLAB_TYPESAFE_BY_RCU: the VMA found under RCU is reused before it is */
/* locked                                                              */
/* ------------------------------------------------------------------ */

/*
 * A fault of process A at X has found X's VMA in the tree under RCU and
 * is parked before it takes the VMA's reference (injection point
 * lock_vma_under_rcu).  munmap frees that VMA; with vm_area_cache=typesafe
 * it goes back to this thread's slab slot at once and the next mmap gets
 * the same object.  Here the next mmap is of A at another address Y (an
 * anonymous area); then X is mapped again, read-only from a file.  The
 * stale object is now attached, in A, not write-locked: its reference
 * count and sequence let the reader lock it, and only the range check
 * after the lock (6.15's lock_vma_under_rcu: "Check if the vma we locked
 * is the right one") sees that it does not cover X.  The read must return
 * the file's byte; faulting through Y's VMA would map the zero page at X
 * and read 0.  Without a typesafe cache the VMA stays allocated until the
 * reader leaves RCU: it is found detached and the lookup goes round again.
 */
/*
 * Map an anonymous page at a->addr in t's mm, start t's access to it and
 * park it in lock_vma_under_rcu, after its tree lookup and before it takes
 * the VMA's reference.  Returns the VMA the access holds.
 */
static struct vm_area_struct *park_fault_after_lookup(struct task_struct *t, struct access_arg *a,
						      struct mmt_thread *th)
{
	struct vm_area_struct *stale;

	CU_ASSERT(mmt_map(t->mm, a->addr, PG, RW) == (long)a->addr);
	stale = vma_lookup(t->mm, a->addr);
	CU_ASSERT_FATAL(stale != NULL);
	CU_ASSERT(rv_inject_set_pause("lock_vma_under_rcu", 1) == 0);
	mmt_thread_start(th, t, access_fn, a);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("lock_vma_under_rcu", 1, 20000) == 0);
	return stale;
}

static void release_parked_fault(struct mmt_thread *th)
{
	rv_inject_release("lock_vma_under_rcu");
	mmt_thread_join(th);
	rv_inject_clear_all();
}

static void test_vma_reuse_same_mm(void)
{
	struct task_struct *drv = mmt_new_proc(), *t = new_proc_detached("reuse");
	struct mm_struct *mm = t->mm;
	const unsigned long x = BASE, y = BASE + 16 * PG;
	struct access_arg a = {.mm = mm, .addr = x, .val = 0xee, .write = false};
	struct file *f = mmt_make_file("/vma-reuse", 1, 0x40);
	struct vm_area_struct *stale;
	uint64_t recycled0 = mmt_stat("vma_lock_recycled");
	struct mmt_thread th;
	bool recycled;

	stale = park_fault_after_lookup(t, &a, &th);
	/* the reader holds `stale`, found in the tree; it took no reference */
	CU_ASSERT(vm_munmap(mm, x, PG) == 0);
	CU_ASSERT(mmt_map(mm, y, PG, RW) == (long)y);
	CU_ASSERT(vm_mmap(mm, x, PG, PROT_READ, MAP_PRIVATE | MAP_FIXED, f, 0) == (long)x);
	/* the race happened: the object the reader holds is now Y's VMA */
	recycled = vma_lookup(mm, y) == stale;
	CU_ASSERT(recycled == mmt_vma_typesafe());
	CU_ASSERT(vma_lookup(mm, x) != stale);
	release_parked_fault(&th);
	/* the fault landed in X's mapping: the file's byte */
	CU_ASSERT(a.ret == 0);
	CU_ASSERT(a.val == 0x40);
	CU_ASSERT(mm_pte_read(mm, y) == 0); /* Y was never touched */
	CU_ASSERT(mmt_stat("vma_lock_recycled") == recycled0 + (recycled ? 1 : 0));
	CU_ASSERT(mm_check(mm) == 0);
	mmt_exit(t);
	mmt_exit(drv);
	fput(f);
	CU_ASSERT(do_unlink("/vma-reuse") == 0);
	CU_ASSERT(mmt_all_freed());
}

/*
 * The same, with the VMA reused by another process B at the same address
 * X.  The stale object is attached, covers X and is not write-locked;
 * only vm_mm tells that it is B's (vma_start_read's check, 6.15's
 * lock_vma_under_rcu before it).  A's write must land in A's new mapping
 * of X, and B, which never touched X, must not get a page: faulting
 * through B's VMA would install one in B's page table.
 */
static void test_vma_reuse_other_mm(void)
{
	struct task_struct *drv = mmt_new_proc(), *t = new_proc_detached("reuse-a");
	struct task_struct *tb = new_proc_detached("reuse-b");
	struct mm_struct *mm = t->mm, *mmb = tb->mm;
	const unsigned long x = BASE;
	struct access_arg a = {.mm = mm, .addr = x, .val = 0x11, .write = true};
	struct vm_area_struct *stale;
	uint64_t recycled0 = mmt_stat("vma_lock_recycled");
	struct mmt_thread th;
	unsigned char b = 0;
	bool recycled;

	stale = park_fault_after_lookup(t, &a, &th);
	CU_ASSERT(vm_munmap(mm, x, PG) == 0);
	CU_ASSERT(mmt_map(mmb, x, PG, RW) == (long)x);
	CU_ASSERT(mmt_map(mm, x, PG, RW) == (long)x);
	recycled = vma_lookup(mmb, x) == stale;
	CU_ASSERT(recycled == mmt_vma_typesafe());
	/*
	 * The reader's first check compares the object's vm_lock_seq (B's
	 * sequence when it was mapped) with A's mm_lock_seq; an equal pair
	 * would make it fall back before it takes a reference.  Move A's
	 * sequence on so that the reference is taken and vm_mm decides.
	 */
	while (READ_ONCE(stale->vm_lock_seq) == READ_ONCE(mm->mm_lock_seq)) {
		mmap_write_lock(mm);
		mmap_write_unlock(mm);
	}
	release_parked_fault(&th);
	CU_ASSERT(a.ret == 0);
	CU_ASSERT(mm_access(mm, x, &b, 1, false) == 0 && b == 0x11);
	/* the fault did not land in B */
	CU_ASSERT(mm_pte_read(mmb, x) == 0);
	CU_ASSERT(get_mm_counter(mmb, MM_ANONPAGES) == 0);
	CU_ASSERT(mmt_stat("vma_lock_recycled") == recycled0 + (recycled ? 1 : 0));
	CU_ASSERT(mm_check(mm) == 0 && mm_check(mmb) == 0);
	mmt_exit(tb);
	mmt_exit(t);
	mmt_exit(drv);
	CU_ASSERT(mmt_all_freed());
}

/* ------------------------------------------------------------------ */
/* get_task_mm under task_lock                                         */
/* ------------------------------------------------------------------ */

struct gtm_arg {
	struct task_struct *t;
	struct mm_struct *mm;
};

static void *get_task_mm_fn(void *p)
{
	struct gtm_arg *g = p;

	g->mm = get_task_mm(g->t);
	return NULL;
}

/*
 * get_task_mm has loaded t->mm and not yet taken its reference when t
 * exits.  As in the kernel, it holds task_lock across both, so exit_mm
 * cannot clear t->mm and drop the last reference in between: the caller
 * gets a usable mm, freed only by its own mmput.  Before the fix nothing
 * stopped the exit, and the mm was freed under the caller.
 */
static void test_get_task_mm_vs_exit(void)
{
	struct task_struct *drv = mmt_new_proc(), *t = new_proc_detached("target");
	struct task_struct *tg = new_proc_detached("getter"), *te = new_proc_detached("exiter");
	struct gtm_arg g = {.t = t};
	struct mmt_thread gth, eth;
	struct mm_objects o;
	unsigned char b = 0x21;
	long mms;

	mm_objects_count(&o);
	mms = o.mms; /* t's among them */
	CU_ASSERT(mmt_map(t->mm, BASE, PG, RW) == (long)BASE);
	CU_ASSERT(mm_access(t->mm, BASE, &b, 1, true) == 0);
	CU_ASSERT(rv_inject_set_pause("get_task_mm", 1) == 0);
	CU_ASSERT(rv_inject_set_delay("exit_mm", 0, 0) == 0);
	mmt_thread_start(&gth, tg, get_task_mm_fn, &g);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("get_task_mm", 1, 20000) == 0);
	mmt_thread_start(&eth, te, exit_fn, t);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("exit_mm", 1, 20000) == 0);
	if (!spin_is_locked(&t->alloc_lock)) {
		/* nothing holds the exit back: it frees the mm under the getter */
		mmt_thread_join(&eth);
		mm_objects_count(&o);
		CU_ASSERT(o.mms == mms); /* fails: the getter's mm is gone */
	}
	rv_inject_release("get_task_mm");
	mmt_thread_join(&gth);
	mmt_thread_join(&eth);
	rv_inject_clear_all();
	CU_ASSERT_FATAL(g.mm != NULL);
	mm_objects_count(&o);
	CU_ASSERT(o.mms == mms); /* t exited, the getter holds its mm */
	b = 0;
	CU_ASSERT(mm_access(g.mm, BASE, &b, 1, false) == 0 && b == 0x21);
	CU_ASSERT(mm_check(g.mm) == 0); /* an mm no task has: mmt_exit cannot check it */
	mmput(g.mm);
	mm_objects_count(&o);
	CU_ASSERT(o.mms == mms - 1);
	mmt_exit(te);
	mmt_exit(tg);
	mmt_exit(drv);
	CU_ASSERT(mmt_all_freed());
}

/* ------------------------------------------------------------------ */
/* a remote accessor vs fork of a single-threaded parent               */
/* ------------------------------------------------------------------ */

struct forker_arg {
	struct task_struct *parent;
	struct task_struct *child;
};

static void *forker_fn(void *p)
{
	struct forker_arg *fk = p;

	fk->child = task_fork(fk->parent);
	return NULL;
}

struct remote_arg {
	struct task_struct *target;
	unsigned long addr;
	int ret;
};

/* Another process writes the target's memory, as process_vm_writev would. */
static void *remote_write_fn(void *p)
{
	struct remote_arg *r = p;
	struct mm_struct *mm = get_task_mm(r->target);
	unsigned char v = 0x42;

	r->ret = mm ? mm_access(mm, r->addr, &v, 1, true) : -ESRCH;
	if (mm)
		mmput(mm);
	return NULL;
}

/*
 * A single-threaded parent forks (so elide-single takes no VMA lock: it
 * read mm_users == 1 before mmap_lock) while another process writes a
 * never-touched VMA of it, fork being between anon_vma_fork and
 * vma_needs_copy for that VMA.  A remote access takes mmap_lock for read
 * (access_remote_vm), so it waits for fork; the child inherits nothing it
 * cannot find by rmap.  Before the fix the remote write faulted under the
 * per-VMA lock mid-copy: the child mapped a folio its rmap could not find
 * (mm_check of the child failed).
 */
static void test_remote_access_vs_fork(void)
{
	struct task_struct *drv = mmt_new_proc(), *p = new_proc_detached("parent");
	struct task_struct *tr = new_proc_detached("remote");
	struct forker_arg fk = {.parent = p};
	struct remote_arg ra = {.target = p, .addr = BASE};
	struct mm_struct *mm = p->mm;
	struct mmt_thread fth, rth;
	uint64_t locks;
	unsigned char b = 0;
	bool wrote;

	CU_ASSERT(mmt_map(mm, BASE, PG, RW) == (long)BASE); /* never touched */
	locks = mmt_stat("vma_write_locks");
	CU_ASSERT(rv_inject_set_pause("dup_mmap_before_copy", 1) == 0);
	mmt_thread_start(&fth, p, forker_fn, &fk); /* the parent's only task */
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("dup_mmap_before_copy", 1, 20000) == 0);
	mmt_thread_start(&rth, tr, remote_write_fn, &ra);
	wrote = wait_done_or(&rth, rwsem_queued, &mm->mmap_lock);
	CU_ASSERT(!wrote); /* queued behind fork's mmap_lock */
	rv_inject_release("dup_mmap_before_copy");
	mmt_thread_join(&fth);
	mmt_thread_join(&rth);
	rv_inject_clear_all();
	CU_ASSERT_FATAL(fk.child != NULL);
	if (rv_sw.fork_vma_lock == FORK_VMA_LOCK_ELIDE_SINGLE)
		CU_ASSERT(mmt_stat("vma_write_locks") == locks); /* the elision ran */
	CU_ASSERT(ra.ret == 0);
	CU_ASSERT(mm_check(fk.child->mm) == 0);
	CU_ASSERT(mm_access(mm, BASE, &b, 1, false) == 0 && b == 0x42);
	b = 0xff;
	CU_ASSERT(mm_access(fk.child->mm, BASE, &b, 1, false) == 0 && b == 0); /* after fork */
	mmt_exit(fk.child);
	mmt_exit(tr);
	mmt_exit(p);
	mmt_exit(drv);
	CU_ASSERT(mmt_all_freed());
}

/* Another process stores one byte into the target's memory. */
struct remote_store {
	struct task_struct *target;
	unsigned long addr;
	unsigned char val;
	int ret;
};

static void *remote_store_fn(void *p)
{
	struct remote_store *r = p;
	struct mm_struct *mm = get_task_mm(r->target);

	r->ret = mm ? mm_access(mm, r->addr, &r->val, 1, true) : -ESRCH;
	if (mm)
		mmput(mm);
	return NULL;
}

/* fork queued behind a reader of mmap_lock, or at its flush */
static bool fork_queued_or_at_flush(void *mmap_lock)
{
	return rwsem_is_contended(mmap_lock) || rv_inject_arrivals("dup_mmap_flush") > 0;
}

/*
 * The fork race through remote accesses, with a single-threaded parent
 * (elide-single takes no VMA lock).  Process A stores 0xAA into a written
 * page of the parent and is parked in its copy (translation loaded); the
 * parent forks.  A remote access holds mmap_lock for read across the
 * access (access_remote_vm), so fork waits for A's store before it
 * write-protects anything, and the child and the parent both have 0xAA.
 * When a remote access faulted under the per-VMA lock and copied without
 * mmap_lock, fork ran past A's loaded translation and write-protected the
 * page: a store of process B could then COW it under the VMA lock fork
 * did not take, before fork's flush, and A's store land in the old page,
 * now the child's (the fork race of test_mm_race.c, with no thread of the
 * parent involved).
 */
static void test_remote_store_vs_fork(void)
{
	struct task_struct *drv = mmt_new_proc(), *p = new_proc_detached("parent");
	struct task_struct *ta = new_proc_detached("remote-a"), *tb = new_proc_detached("remote-b");
	struct forker_arg fk = {.parent = p};
	struct remote_store ra = {.target = p, .addr = BASE, .val = 0xAA, .ret = -1};
	struct remote_store rb = {.target = p, .addr = BASE + 1, .val = 0xBB, .ret = -1};
	struct mm_struct *mm = p->mm;
	struct mmt_thread ath, bth, fth;
	unsigned char fill[PG], b = 0;
	bool fork_ran_past;

	CU_ASSERT(mmt_map(mm, BASE, PG, RW) == (long)BASE);
	memset(fill, 0x11, PG);
	CU_ASSERT(mm_access(mm, BASE, fill, PG, true) == 0);
	CU_ASSERT(rv_inject_set_pause("mm_access_copy", 1) == 0);
	CU_ASSERT(rv_inject_set_pause("dup_mmap_flush", 1) == 0);
	mmt_thread_start(&ath, ta, remote_store_fn, &ra);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("mm_access_copy", 1, 20000) == 0);
	mmt_thread_start(&fth, p, forker_fn, &fk); /* the parent's only task */
	/* fork queues behind A's mmap_lock, or runs to its flush */
	CU_ASSERT(!wait_done_or(&fth, fork_queued_or_at_flush, &mm->mmap_lock));
	fork_ran_past = rv_inject_arrivals("dup_mmap_flush") > 0;
	/* a fork past the stores' translation is the race's window: B could
	 * now COW the page before the flush and A's store land in the child's */
	CU_ASSERT(!fork_ran_past);
	rv_inject_release("mm_access_copy");
	mmt_thread_join(&ath);
	rv_inject_release("dup_mmap_flush");
	mmt_thread_join(&fth);
	rv_inject_clear_all();
	mmt_thread_start(&bth, tb, remote_store_fn, &rb);
	mmt_thread_join(&bth);
	CU_ASSERT_FATAL(fk.child != NULL);
	CU_ASSERT(ra.ret == 0 && rb.ret == 0);
	/* both stores returned: the parent has both */
	CU_ASSERT(mm_access(mm, BASE, &b, 1, false) == 0 && b == 0xAA);
	CU_ASSERT(mm_access(mm, BASE + 1, &b, 1, false) == 0 && b == 0xBB);
	CU_ASSERT(mm_access(fk.child->mm, BASE + 1, &b, 1, false) == 0 && b == 0x11);
	mmt_exit(fk.child);
	mmt_exit(tb);
	mmt_exit(ta);
	mmt_exit(p);
	mmt_exit(drv);
	CU_ASSERT(mmt_all_freed());
}

/* ------------------------------------------------------------------ */
/* mlock, munlock, mlockall                                            */
/* ------------------------------------------------------------------ */

/*
 * As mm/mlock.c: mlock splits the VMA and populates the range (a private
 * writable file mapping is COW'd by it), a folio mapped by a VM_LOCKED
 * VMA survives reclaim until munlock, a hole is -ENOMEM, fork does not
 * inherit VM_LOCKED, mlockall(MCL_FUTURE) locks and populates later
 * mmaps, MCL_ONFAULT alone and no flag are -EINVAL.
 */
static void test_mlock(void)
{
	struct task_struct *t = mmt_new_proc(), *c;
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/mlock", 4, 0x50);
	struct vm_area_struct *v;
	unsigned char b = 0;
	uint64_t minf;

	CU_ASSERT(vm_mmap(mm, BASE, 4 * PG, RW, MAP_PRIVATE | MAP_FIXED, f, 0) == (long)BASE);
	CU_ASSERT(vm_mmap(mm, BASE + 8 * PG, 2 * PG, PROT_READ, MAP_SHARED | MAP_FIXED, f, 0) ==
		  (long)(BASE + 8 * PG));
	CU_ASSERT(vm_mlock(mm, BASE + PG, 2 * PG) == 0);
	CU_ASSERT(mm_map_count(mm) == 4); /* split at both ends */
	v = vma_lookup(mm, BASE + PG);
	CU_ASSERT(v && (v->vm_flags & VM_LOCKED) && v->vm_start == BASE + PG &&
		  v->vm_end == BASE + 3 * PG);
	CU_ASSERT(!(vma_lookup(mm, BASE)->vm_flags & VM_LOCKED));
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 2); /* populated: COW'd */
	minf = mmt_stat("minflt");
	CU_ASSERT(mm_access(mm, BASE + PG, &b, 1, true) == 0); /* no fault left */
	CU_ASSERT(mmt_stat("minflt") == minf);
	CU_ASSERT(vm_mlock(mm, BASE + 3 * PG, 4 * PG) == -ENOMEM); /* hole */
	/* a shared file page mapped by a locked VMA stays in the cache */
	CU_ASSERT(vm_mlock(mm, BASE + 8 * PG, PG) == 0);
	mm_reclaim_folios(1000);
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 1);
	{
		struct folio *fo = filemap_get_folio(f->f_mapping, 0);

		CU_ASSERT(fo != NULL);
		if (fo)
			folio_put(fo);
	}
	CU_ASSERT(vm_munlock(mm, BASE + 8 * PG, PG) == 0);
	mm_reclaim_folios(1000);
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 0);
	/* fork: no VM_LOCKED in the child */
	c = task_fork(t);
	CU_ASSERT_FATAL(c != NULL);
	mmap_read_lock(c->mm);
	v = vma_lookup(c->mm, BASE + PG);
	CU_ASSERT(v && !(v->vm_flags & VM_LOCKED));
	mmap_read_unlock(c->mm);
	mmt_exit(c);
	/* munlock merges back; mlockall */
	CU_ASSERT(vm_munlock(mm, BASE, 4 * PG) == 0);
	CU_ASSERT(mm_map_count(mm) == 2);
	CU_ASSERT(vm_mlockall(mm, 0) == -EINVAL);
	CU_ASSERT(vm_mlockall(mm, MCL_ONFAULT) == -EINVAL);
	CU_ASSERT(vm_mlockall(mm, MCL_CURRENT | MCL_FUTURE) == 0);
	CU_ASSERT(vma_lookup(mm, BASE)->vm_flags & VM_LOCKED);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 4);
	CU_ASSERT(mmt_map(mm, BASE + 16 * PG, 2 * PG, RW) == (long)(BASE + 16 * PG));
	CU_ASSERT(vma_lookup(mm, BASE + 16 * PG)->vm_flags & VM_LOCKED);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 6); /* populated at mmap */
	CU_ASSERT(vm_munlockall(mm) == 0);
	CU_ASSERT(!(vma_lookup(mm, BASE)->vm_flags & VM_LOCKED));
	CU_ASSERT(mmt_map(mm, BASE + 32 * PG, PG, RW) == (long)(BASE + 32 * PG));
	CU_ASSERT(!(vma_lookup(mm, BASE + 32 * PG)->vm_flags & VM_LOCKED));
	CU_ASSERT(mm_access(mm, BASE + 2 * PG, &b, 1, false) == 0 && b == 0x52);
	CU_ASSERT(mm_validate(mm) == 0);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/mlock") == 0);
	CU_ASSERT(mmt_all_freed());
}

/* vm_flags of the VMA at addr (0: none). */
static unsigned long flags_at(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *v;
	unsigned long f;

	mmap_read_lock(mm);
	v = vma_lookup(mm, addr);
	f = v ? v->vm_flags : 0;
	mmap_read_unlock(mm);
	return f;
}

/*
 * [A][hole][B]: mprotect over all of it changes A before it meets the
 * hole (do_mprotect_pkey walks VMA by VMA), returns -ENOMEM, and leaves B;
 * a range starting in the hole changes nothing.  A refused VMA (-EACCES:
 * a read-only shared file mapping asked for PROT_WRITE) likewise leaves
 * the VMAs before it changed.
 */
static void test_mprotect_stops_at_hole(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/mprot_ro", 2, 0x20), *ro = NULL;
	unsigned char b = 0;

	CU_ASSERT(mmt_map(mm, BASE, 2 * PG, RW) == (long)BASE);
	CU_ASSERT(mmt_map(mm, BASE + 3 * PG, 2 * PG, RW) == (long)(BASE + 3 * PG));
	mmt_fill(BASE, 2 * PG, 1);
	CU_ASSERT(vm_mprotect(mm, BASE, 5 * PG, PROT_READ) == -ENOMEM);
	CU_ASSERT((flags_at(mm, BASE) & VM_ACCESS_FLAGS) == VM_READ);
	CU_ASSERT((flags_at(mm, BASE + PG) & VM_ACCESS_FLAGS) == VM_READ);
	CU_ASSERT((flags_at(mm, BASE + 3 * PG) & VM_ACCESS_FLAGS) == (VM_READ | VM_WRITE));
	CU_ASSERT(rv_mm_write(BASE, &b, 1) == -EFAULT); /* the PTEs too */
	/* starting in the hole: nothing changes */
	CU_ASSERT(vm_mprotect(mm, BASE + 2 * PG, 2 * PG, PROT_NONE) == -ENOMEM);
	CU_ASSERT((flags_at(mm, BASE + 3 * PG) & VM_ACCESS_FLAGS) == (VM_READ | VM_WRITE));
	/* -EACCES on the second VMA: the first is changed already */
	CU_ASSERT_FATAL(filp_open("/mprot_ro", O_RDONLY, 0, &ro) == 0);
	CU_ASSERT(vm_mmap(mm, BASE + 5 * PG, PG, PROT_READ, MAP_SHARED | MAP_FIXED, ro, 0) ==
		  (long)(BASE + 5 * PG));
	CU_ASSERT(vm_mprotect(mm, BASE + 3 * PG, 3 * PG, RW | PROT_EXEC) == -EACCES);
	CU_ASSERT((flags_at(mm, BASE + 3 * PG) & VM_ACCESS_FLAGS) == (VM_ACCESS_FLAGS));
	CU_ASSERT((flags_at(mm, BASE + 5 * PG) & VM_ACCESS_FLAGS) == VM_READ);
	CU_ASSERT(mm_validate(mm) == 0);
	mmt_exit(t);
	fput(ro);
	fput(f);
	CU_ASSERT(do_unlink("/mprot_ro") == 0);
	CU_ASSERT(mmt_all_freed());
}

/*
 * mlock([A][hole]) and munlock likewise (apply_vma_lock_flags): A gets
 * VM_LOCKED, the call returns -ENOMEM and populates nothing (do_mlock
 * populates only after the flags were applied everywhere).
 */
static void test_mlock_stops_at_hole(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;

	CU_ASSERT(mmt_map(mm, BASE, 2 * PG, RW) == (long)BASE);
	CU_ASSERT(mmt_map(mm, BASE + 3 * PG, PG, RW) == (long)(BASE + 3 * PG));
	/* the whole address space, from 0: a hole at the start, nothing locked */
	CU_ASSERT(vm_mlock(mm, 0, TASK_SIZE) == -ENOMEM);
	CU_ASSERT(!(flags_at(mm, BASE) & VM_LOCKED));
	CU_ASSERT(vm_mlock(mm, BASE + PG, 3 * PG) == -ENOMEM);
	CU_ASSERT(!(flags_at(mm, BASE) & VM_LOCKED));
	CU_ASSERT(flags_at(mm, BASE + PG) & VM_LOCKED);
	CU_ASSERT(!(flags_at(mm, BASE + 3 * PG) & VM_LOCKED));
	CU_ASSERT(mm_map_count(mm) == 3);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 0);
	CU_ASSERT(vm_mlock(mm, BASE + 2 * PG, PG) == -ENOMEM); /* in the hole: nothing */
	CU_ASSERT(vm_mlock(mm, BASE, 4 * PG) == -ENOMEM);
	CU_ASSERT(flags_at(mm, BASE) & VM_LOCKED);
	CU_ASSERT(mm_map_count(mm) == 2); /* [BASE, +2) merged back, locked */
	CU_ASSERT(vm_munlock(mm, BASE, 4 * PG) == -ENOMEM);
	CU_ASSERT(!(flags_at(mm, BASE + PG) & VM_LOCKED));
	CU_ASSERT(mm_validate(mm) == 0);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/*
 * mlock of a PROT_NONE VMA: the VMA gets VM_LOCKED, the populate that
 * follows fails on it (populate_vma_page_range: -EFAULT, no FOLL_FORCE for
 * an inaccessible VMA) and mlock(2) answers -ENOMEM; the accessible VMA
 * before it is populated.  mlockall ignores the error.
 */
static void test_mlock_prot_none(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;

	CU_ASSERT(mmt_map(mm, BASE, PG, RW) == (long)BASE);
	CU_ASSERT(mmt_map(mm, BASE + PG, 2 * PG, PROT_NONE) == (long)(BASE + PG));
	CU_ASSERT(vm_mlock(mm, BASE + PG, 2 * PG) == -ENOMEM);
	CU_ASSERT(flags_at(mm, BASE + PG) & VM_LOCKED);
	CU_ASSERT(vm_munlock(mm, BASE + PG, 2 * PG) == 0);
	CU_ASSERT(vm_mlock(mm, BASE, 3 * PG) == -ENOMEM);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 1);
	CU_ASSERT(vm_munlock(mm, BASE, 3 * PG) == 0);
	CU_ASSERT(vm_mlockall(mm, MCL_CURRENT) == 0);
	CU_ASSERT(flags_at(mm, BASE + PG) & VM_LOCKED);
	CU_ASSERT(vm_munlockall(mm) == 0);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

static int init_elide(void)
{
	static const char *const s[] = {"fork_vma_lock=elide-single", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

RVTEST_SUITE(mm_locking, rvtest_instance_init, rvtest_instance_cleanup,
	     RVTEST(test_exit_mmap_vs_fsync), RVTEST(test_cow_fault_vs_truncate),
	     RVTEST(test_shared_rdonly_mprotect), RVTEST(test_wipeonfork_no_anon_vma),
	     RVTEST(test_get_task_mm_vs_exit), RVTEST(test_mlock),
	     RVTEST(test_mprotect_stops_at_hole), RVTEST(test_mlock_stops_at_hole),
	     RVTEST(test_mlock_prot_none))
MMT_VMA_SUITES(mm_vma_reuse, NULL, RVTEST(test_lock_vma_retry_replaced),
	       RVTEST(test_vma_reuse_same_mm), RVTEST(test_vma_reuse_other_mm))
RVTEST_SUITE(mm_locking_elide, init_elide, rvtest_instance_cleanup,
	     RVTEST(test_remote_access_vs_fork), RVTEST(test_remote_store_vs_fork))
RVTEST_SUITE(mm_locking_always, rvtest_instance_init, rvtest_instance_cleanup,
	     RVTEST(test_remote_access_vs_fork))
