// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/stress/model_mm.c - model implementations of the mm workloads:
 * page_fault1/2/3 (will-it-scale's loops), fork-vmas, and the two mm races
 * of docs/history.md (numa-race: the filemap_fault PTE recheck; fork-race:
 * copy-on-fork against parent faults).
 *
 * The parent's model task gets an address space in setup (exec_mm), before
 * the tasks are created: threads then share it (CLONE_VM), processes get a
 * dup_mmap copy.  Everything runs through the model's own locks (mmap_lock,
 * per-VMA locks, PTE locks, the page cache's); the tool adds none.
 *
 * File workloads (page_fault2/3, numa-race): each task has its own file of
 * `pages` pages (-p pages=, default 128), created in setup and written back
 * to the backing store, so faults that miss the page cache are major
 * faults.  Unless the user gives -o cache_pages=, the run's cache_pages is
 * set to half the working set (tasks x pages / 2): page_fault2/3 then
 * major-fault on most pages (an LRU smaller than a cyclic working set
 * misses every time).  Each file page starts with a tag (task, page) in its
 * first 16 bytes; ops write an 8-byte stamp (task, iteration) at offset 0.
 *
 * The races need a second thread in the faulting tasks' process, the
 * "companion": a NUMA scanner (numa-race) or a forker (fork-race).  It is a
 * model thread (task_clone_thread) of the process it works on, started by
 * the task that owns that process: task 0 in threads mode (one process),
 * every task in processes mode.  Its owner stops and joins it (bounded) in
 * task_fini and reports its errors from its own thread.  Companion fields
 * are written by the companion and read after the join, except `stop`
 * (atomic, written by the owner) and `err` (release store, polled by the
 * owner between ops).
 *
 * fork-race checks data from outside: the tasks of a process write their
 * own 8-byte slot of every page of one shared, already-written region and
 * read their slots back.  A slot that reads an older stamp is a write that
 * returned and was lost: under fork_vma_lock=never another task's
 * write-protect fault copied the page during fork while the store was in
 * flight through a translation fork had not flushed yet, and the store
 * went into the child's page.  The forker checks each child with
 * mm_check (the child is quiescent: nobody runs in it) before it exits.
 *
 * -p window_ns= (default 1000; 0 leaves it unarmed) arms injection points
 * inside the race windows with a callback that spins that long:
 * numa_prot_window (the scanner's ptep_modify_prot_start..commit, PTE lock
 * held); for fork-race mm_access_copy (a store in flight: translation
 * loaded, copy not done) and dup_mmap_flush (the parent's PTEs
 * write-protected, the TLB not flushed yet).
 * An armed point makes every RV_INJECT go through the injection table, so
 * throughput with a window is not comparable with throughput without one.
 *
 * Timing cannot promise that a short run hits a window, so with window_ns
 * armed each run's setup first stages one instance of its race with
 * parking injection points, single-threaded apart from the helper threads
 * it starts and before any task exists: force_numa_race (the scanner
 * parked inside numa_prot_window while a fault reads the PTE as none and
 * reaches filemap_fault_major, whose callback lets the scanner commit) and
 * force_fork_race (the choreography of test_mm_race's lost-write test:
 * a store parked at mm_access_copy, fork at dup_mmap_flush, a second
 * writer's COW at wp_page_copy).  Its outcome goes into the same counters
 * as the free-running part's, and --expect-race fails a run whose race did
 * not happen (pte_recheck=0: spurious_majflt 0; 1, rfc: pte_recheck_nopage
 * 0; fork_vma_lock=never: fork_lost_writes 0).  Every wait of the staging
 * is for an event (an arrival, a counter), bounded by --timeout as a hang
 * guard that fails the run.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mm/mm.h"
#include "mm/testing.h"
#include "stress.h"

#define PF1_PAGES 64 /* pages mapped, touched and unmapped per op */
#define RW	  (PROT_READ | PROT_WRITE)
#define FR_BASE	  0x40000000UL /* fork-race: per-task regions start here */

static int mm_setup(struct stress_run *run)
{
	int r;

	if (current->mm)
		return 0;
	r = exec_mm(current);
	if (r)
		return stress_setup_fail(run, "exec_mm", -r);
	return 0;
}

/* The parent's mm after the run (every task stopped): mm_check. */
static int mm_verify(struct stress_run *run, uint64_t total_ops)
{
	int r = mm_check(current->mm);

	(void)total_ops;
	if (r) {
		snprintf(run->verify_msg, sizeof(run->verify_msg),
			 "mm_check of the parent's mm: %s (details on stderr)", strerror(-r));
		return 0;
	}
	return 1;
}

static unsigned long run_pages(const struct stress_run *run)
{
	return (unsigned long)run->opt->params.pages;
}

static uint64_t stat_now(const char *name)
{
	uint64_t v = 0;

	rv_stat_read(name, &v);
	return v;
}

/* The tag a file page starts with (twice): never equal to a stamp. */
static uint64_t page_tag(int task, unsigned long page)
{
	return 0xa5a5000000000000ull | (uint64_t)task << 24 | page;
}

static uint64_t task_stamp(const struct stress_task *t)
{
	return (uint64_t)t->id << 40 | t->iter;
}

/* ---- page_fault1: mmap anonymous, write every page, munmap ---------- */

static int pf1_op(struct stress_task *t)
{
	struct mm_struct *mm = current->mm;
	unsigned long len = PF1_PAGES * PAGE_SIZE;
	long addr = vm_mmap(mm, 0, len, RW, MAP_PRIVATE | MAP_ANONYMOUS, NULL, 0);
	uint64_t stamp = task_stamp(t);
	int r;

	if (addr < 0)
		return stress_fail(t, "vm_mmap(MAP_ANONYMOUS)", (int)-addr);
	for (unsigned long i = 0; i < PF1_PAGES; i++) {
		r = rv_mm_write(addr + i * PAGE_SIZE, &stamp, sizeof(stamp));
		if (r) {
			vm_munmap(mm, addr, len);
			return stress_fail(t, "rv_mm_write (write fault)", -r);
		}
	}
	if (t->run->opt->verify) {
		for (unsigned long i = 0; i < PF1_PAGES; i++) {
			uint64_t v = 0;

			r = rv_mm_read(addr + i * PAGE_SIZE, &v, sizeof(v));
			if (r) {
				vm_munmap(mm, addr, len);
				return stress_fail(t, "rv_mm_read", -r);
			}
			if (v != stamp) {
				vm_munmap(mm, addr, len);
				return stress_vfail(
				    t, "page %lu of a private mapping reads %llx, wrote %llx", i,
				    (unsigned long long)v, (unsigned long long)stamp);
			}
		}
	}
	r = vm_munmap(mm, addr, len);
	if (r)
		return stress_fail(t, "vm_munmap", -r);
	return 0;
}

const struct stress_impl stress_model_page_fault1 = {
    .setup = mm_setup,
    .op = pf1_op,
    .verify = mm_verify,
};

/* ---- files of the file-backed workloads ------------------------------ */

struct mm_files {
	int n;
	struct file *file[];
};

/* cache_pages = half the working set, unless the user chose it. */
static int files_switches(struct stress_run *run)
{
	unsigned long ws = run_pages(run) * (unsigned long)run->ntasks;
	char v[32];

	if (stress_switch_given(run->opt, "cache_pages"))
		return 0;
	snprintf(v, sizeof(v), "%lu", ws / 2 ? ws / 2 : 1);
	return stress_model_parse_switch(run->switches, "cache_pages", v);
}

static int files_setup_n(struct stress_run *run, unsigned long n)
{
	struct mm_files *mf;
	char *buf;

	if (mm_setup(run))
		return -1;
	mf = calloc(1, sizeof(*mf) + run->ntasks * sizeof(mf->file[0]));
	buf = calloc(1, PAGE_SIZE);
	if (!mf || !buf) {
		free(mf);
		free(buf);
		return stress_setup_fail(run, "calloc", ENOMEM);
	}
	run->priv = mf;
	for (int i = 0; i < run->ntasks; i++) {
		char path[64];
		int r;

		snprintf(path, sizeof(path), "/mm.%d", i);
		r = filp_open(path, O_CREAT | O_RDWR | O_TRUNC, 0644, &mf->file[i]);
		if (r) {
			free(buf);
			return stress_setup_fail(run, "filp_open(O_CREAT)", -r);
		}
		mf->n = i + 1;
		for (unsigned long p = 0; p < n; p++) {
			uint64_t tag = page_tag(i, p);
			int64_t pos = (int64_t)(p * PAGE_SIZE);
			ssize_t w;

			memcpy(buf, &tag, sizeof(tag));
			memcpy(buf + sizeof(tag), &tag, sizeof(tag));
			w = vfs_write(mf->file[i], buf, PAGE_SIZE, &pos);
			if (w != (ssize_t)PAGE_SIZE) {
				free(buf);
				return stress_setup_fail(run, "vfs_write", w < 0 ? (int)-w : EIO);
			}
		}
	}
	free(buf);
	/* start cold: everything written back to the store, the cache empty */
	mm_reclaim_folios(mm_lru_pages() + 1);
	return 0;
}

static int files_setup(struct stress_run *run)
{
	return files_setup_n(run, run_pages(run));
}

static void files_teardown(struct stress_run *run)
{
	struct mm_files *mf = run->priv;

	if (!mf)
		return;
	for (int i = 0; i < mf->n; i++) {
		char path[64];

		fput(mf->file[i]);
		snprintf(path, sizeof(path), "/mm.%d", i);
		do_unlink(path);
	}
	free(mf);
	run->priv = NULL;
}

static struct file *task_file(struct stress_task *t)
{
	return ((struct mm_files *)t->run->priv)->file[t->id];
}

/*
 * Read back [stamp, tag] from every page of the mapping at addr.  A
 * private mapping's copy must still hold the file's bytes past the stamp.
 */
static int check_mapping(struct stress_task *t, unsigned long addr, unsigned long n, uint64_t stamp,
			 const char *what)
{
	for (unsigned long i = 0; i < n; i++) {
		uint64_t v[2] = {0, 0};
		int r = rv_mm_read(addr + i * PAGE_SIZE, v, sizeof(v));

		if (r)
			return stress_fail(t, "rv_mm_read", -r);
		if (v[0] != stamp || v[1] != page_tag(t->id, i))
			return stress_vfail(t,
					    "%s page %lu reads %llx %llx, expected %llx %llx "
					    "(stamp, file tag)",
					    what, i, (unsigned long long)v[0],
					    (unsigned long long)v[1], (unsigned long long)stamp,
					    (unsigned long long)page_tag(t->id, i));
	}
	return 0;
}

/* The file itself: first word `first` (stamp or tag), then the tag. */
static int check_file(struct stress_task *t, unsigned long n, uint64_t first, bool shared)
{
	struct file *f = task_file(t);

	for (unsigned long i = 0; i < n; i++) {
		uint64_t v[2] = {0, 0}, want = shared ? first : page_tag(t->id, i);
		int64_t pos = (int64_t)(i * PAGE_SIZE);
		ssize_t r = vfs_read(f, v, sizeof(v), &pos);

		if (r != (ssize_t)sizeof(v))
			return stress_fail(t, "vfs_read", r < 0 ? (int)-r : EIO);
		if (v[0] != want || v[1] != page_tag(t->id, i))
			return stress_vfail(t,
					    "file page %lu reads %llx %llx after munmap of a %s "
					    "mapping, expected %llx %llx",
					    i, (unsigned long long)v[0], (unsigned long long)v[1],
					    shared ? "shared" : "private", (unsigned long long)want,
					    (unsigned long long)page_tag(t->id, i));
	}
	return 0;
}

/* ---- mmap-cycle: the sheaves series' mmap test ------------------------ */
/*
 * Each op (cycle) maps `areas` one-page read-only views of the task's file
 * (page areas-1-k at the k-th address, so that neighbours cannot merge),
 * reads each (a fault), unmaps them, then sleeps pause_us so that RCU
 * callbacks (kfree_rcu batches of VMA tree nodes, freed VMAs) can run, as
 * the seed's test did.  The time inside vm_mmap and vm_munmap is summed in
 * the counters mmap_cycle_mmap_ns and mmap_cycle_munmap_ns.  --verify
 * checks every area reads its file page's tag.
 */
RV_STAT_DEFINE(mmap_cycle_mmap_ns, "mmap-cycle: nanoseconds spent in vm_mmap");
RV_STAT_DEFINE(mmap_cycle_munmap_ns, "mmap-cycle: nanoseconds spent in vm_munmap");

#define MC_MAX_AREAS 64

static int mc_setup(struct stress_run *run)
{
	unsigned long n = (unsigned long)run->opt->params.areas;

	if (n > MC_MAX_AREAS)
		return stress_setup_fail(run, "-p areas= (at most 64)", EINVAL);
	return files_setup_n(run, n);
}

static int mc_op(struct stress_task *t)
{
	struct mm_struct *mm = current->mm;
	unsigned long n = (unsigned long)t->run->opt->params.areas;
	struct file *f = task_file(t);
	long addr[MC_MAX_AREAS];
	uint64_t t0, t1;
	int r = 0;

	t0 = rv_now_ns();
	for (unsigned long k = 0; k < n; k++) {
		addr[k] = vm_mmap(mm, 0, PAGE_SIZE, PROT_READ, MAP_SHARED, f, n - 1 - k);
		if (addr[k] < 0) {
			r = stress_fail(t, "vm_mmap(file)", (int)-addr[k]);
			n = k;
			break;
		}
	}
	t1 = rv_now_ns();
	rv_stat_add(mmap_cycle_mmap_ns, t1 - t0);
	for (unsigned long k = 0; k < n && !r; k++) {
		uint64_t v[2] = {0, 0};
		int e = rv_mm_read((unsigned long)addr[k], v, sizeof(v));

		if (e)
			r = stress_fail(t, "rv_mm_read", -e);
		else if (t->run->opt->verify && v[1] != page_tag(t->id, n - 1 - k))
			r = stress_vfail(t,
					 "area %lu (file page %lu) reads tag %llx, expected %llx",
					 k, n - 1 - k, (unsigned long long)v[1],
					 (unsigned long long)page_tag(t->id, n - 1 - k));
	}
	t0 = rv_now_ns();
	for (unsigned long k = 0; k < n; k++) {
		int e = vm_munmap(mm, (unsigned long)addr[k], PAGE_SIZE);

		if (e && !r)
			r = stress_fail(t, "vm_munmap", -e);
	}
	t1 = rv_now_ns();
	rv_stat_add(mmap_cycle_munmap_ns, t1 - t0);
	if (t->run->opt->params.pause_us > 0)
		usleep((useconds_t)t->run->opt->params.pause_us);
	return r;
}

const struct stress_impl stress_model_mmap_cycle = {
    .setup = mc_setup,
    .op = mc_op,
    .verify = mm_verify,
    .teardown = files_teardown,
};

/* ---- exec1: the execve loop of the percpu-counter grouping ------------ */
/*
 * Each op replaces the task's address space as execve does (exec_mm:
 * mm_alloc, which registers the mm's RSS percpu counters, then mmput of the
 * old mm, which unregisters its counters), maps EXEC1_VMAS anonymous pages
 * (text, data, stack of a small static binary) and writes each (faults that
 * charge the RSS counters).  Under rss_counters=single each mm_alloc and
 * mmput takes the global percpu_counters_lock once per counter, under
 * group once: the counters percpu_counter_lock_acquisitions and
 * spin_contended show it.  In threads mode the first op detaches the task
 * from the shared mm (the model replaces one task's mm; Linux's exec would
 * kill the other threads).  --verify reads every page back and checks the
 * new mm holds exactly the VMAs mapped.
 */
#define EXEC1_VMAS 3

static int exec1_op(struct stress_task *t)
{
	uint64_t stamp = task_stamp(t);
	struct mm_struct *mm;
	long addr[EXEC1_VMAS];
	int r = exec_mm(current);

	if (r)
		return stress_fail(t, "exec_mm", -r);
	mm = current->mm;
	for (int i = 0; i < EXEC1_VMAS; i++) {
		/* alternate protections: neighbours do not merge */
		addr[i] = vm_mmap(mm, 0, PAGE_SIZE, i & 1 ? PROT_READ | PROT_WRITE | PROT_EXEC : RW,
				  MAP_PRIVATE | MAP_ANONYMOUS, NULL, 0);
		if (addr[i] < 0)
			return stress_fail(t, "vm_mmap(MAP_ANONYMOUS)", (int)-addr[i]);
		r = rv_mm_write((unsigned long)addr[i], &stamp, sizeof(stamp));
		if (r)
			return stress_fail(t, "rv_mm_write (write fault)", -r);
	}
	if (!t->run->opt->verify)
		return 0;
	if (mm->map_count != EXEC1_VMAS)
		return stress_vfail(t, "the new mm has %d VMAs, mapped %d", mm->map_count,
				    EXEC1_VMAS);
	for (int i = 0; i < EXEC1_VMAS; i++) {
		uint64_t v = 0;

		r = rv_mm_read((unsigned long)addr[i], &v, sizeof(v));
		if (r)
			return stress_fail(t, "rv_mm_read", -r);
		if (v != stamp)
			return stress_vfail(t, "page of VMA %d reads %llx, wrote %llx", i,
					    (unsigned long long)v, (unsigned long long)stamp);
	}
	return 0;
}

const struct stress_impl stress_model_exec1 = {
    .setup = mm_setup,
    .op = exec1_op,
    .verify = mm_verify,
};

/* ---- zero: a shared anonymous page per op (stress-ng's "zero") ------- */
/*
 * Each op maps one MAP_SHARED | MAP_ANONYMOUS page, writes a stamp (a
 * shared write fault, filling the shmem file's page cache) and unmaps it,
 * the mmap part of stress-ng's "zero" stressor (docs/history.md):
 * shmem_zero_setup creates a shmem inode on shm_mnt (new_inode ->
 * inode_sb_list_add under shm_mnt's s_inode_list_lock) and the munmap's
 * final fput evicts it (inode_sb_list_del, the same lock): two
 * acquisitions per op, counted in shm_inode_list_locks, with
 * shm_inode_list_contended, _spins and _yields for the waits.  --verify
 * reads the stamp back through the mapping, checks the VMA's file is a
 * fresh shm_mnt inode that is off the list once munmap returned, and at
 * the end that shm_mnt holds no inode.  Use --mode processes for
 * stress-ng's shape (one process per worker): in threads mode the tasks
 * share one mm, and its mmap_lock serializes them before the list lock.
 */
static int zero_op(struct stress_task *t)
{
	struct mm_struct *mm = current->mm;
	long addr = vm_mmap(mm, 0, PAGE_SIZE, RW, MAP_SHARED | MAP_ANONYMOUS, NULL, 0);
	uint64_t stamp = task_stamp(t), v = 0, ino = 0;
	bool verify = t->run->opt->verify;
	int r;

	if (addr < 0)
		return stress_fail(t, "vm_mmap(MAP_SHARED|MAP_ANONYMOUS)", (int)-addr);
	r = rv_mm_write((unsigned long)addr, &stamp, sizeof(stamp));
	if (r) {
		vm_munmap(mm, (unsigned long)addr, PAGE_SIZE);
		return stress_fail(t, "rv_mm_write (shared write fault)", -r);
	}
	if (verify) {
		struct vm_area_struct *vma;
		struct inode *inode = NULL;

		mmap_read_lock(mm);
		vma = vma_lookup(mm, (unsigned long)addr);
		if (vma && vma->vm_file)
			inode = vma->vm_file->f_inode;
		if (inode && inode->i_sb == shm_mnt_sb())
			ino = inode->i_ino;
		mmap_read_unlock(mm);
		if (!ino) {
			vm_munmap(mm, (unsigned long)addr, PAGE_SIZE);
			return stress_vfail(t,
					    "the shared anonymous mapping at %lx has no shm_mnt "
					    "file",
					    (unsigned long)addr);
		}
		r = rv_mm_read((unsigned long)addr, &v, sizeof(v));
		if (r || v != stamp) {
			vm_munmap(mm, (unsigned long)addr, PAGE_SIZE);
			if (r)
				return stress_fail(t, "rv_mm_read", -r);
			return stress_vfail(t, "shared anonymous page reads %llx, wrote %llx",
					    (unsigned long long)v, (unsigned long long)stamp);
		}
	}
	r = vm_munmap(mm, (unsigned long)addr, PAGE_SIZE);
	if (r)
		return stress_fail(t, "vm_munmap", -r);
	if (verify && shmem_inode_listed(ino))
		return stress_vfail(t, "shmem inode %llu is still on shm_mnt's list after munmap",
				    (unsigned long long)ino);
	return 0;
}

static int zero_verify(struct stress_run *run, uint64_t total_ops)
{
	long left = shmem_inodes_live();
	uint64_t locks = stat_now("shm_inode_list_locks");

	if (left) {
		snprintf(run->verify_msg, sizeof(run->verify_msg),
			 "%ld shmem inode(s) left on shm_mnt's list after the run", left);
		return 0;
	}
	/* every op added and deleted one inode (warm-up ops too: at least) */
	if (locks < 2 * total_ops) {
		snprintf(run->verify_msg, sizeof(run->verify_msg),
			 "shm_inode_list_locks %llu < 2 per op (%llu ops)",
			 (unsigned long long)locks, (unsigned long long)total_ops);
		return 0;
	}
	return mm_verify(run, total_ops);
}

const struct stress_impl stress_model_zero = {
    .setup = mm_setup,
    .op = zero_op,
    .verify = zero_verify,
};

/* ---- page_fault2/3: file mmap, write every page, munmap ------------- */

static int pf_file_op(struct stress_task *t, bool shared)
{
	struct mm_struct *mm = current->mm;
	unsigned long n = run_pages(t->run), len = n * PAGE_SIZE;
	long addr = vm_mmap(mm, 0, len, RW, shared ? MAP_SHARED : MAP_PRIVATE, task_file(t), 0);
	uint64_t stamp = task_stamp(t);
	bool verify = t->run->opt->verify;
	int r;

	if (addr < 0)
		return stress_fail(
		    t, shared ? "vm_mmap(MAP_SHARED, file)" : "vm_mmap(MAP_PRIVATE, file)",
		    (int)-addr);
	for (unsigned long i = 0; i < n; i++) {
		r = rv_mm_write(addr + i * PAGE_SIZE, &stamp, sizeof(stamp));
		if (r) {
			vm_munmap(mm, addr, len);
			return stress_fail(t, "rv_mm_write (file write fault)", -r);
		}
	}
	if (verify && check_mapping(t, addr, n, stamp, shared ? "shared" : "private")) {
		vm_munmap(mm, addr, len);
		return -1;
	}
	r = vm_munmap(mm, addr, len);
	if (r)
		return stress_fail(t, "vm_munmap", -r);
	/* shared: the stamps reached the file (through reclaim's writeback or
	 * still dirty in the cache); private: the file never saw them */
	if (verify && check_file(t, n, stamp, shared))
		return -1;
	return 0;
}

static int pf2_op(struct stress_task *t)
{
	return pf_file_op(t, false);
}

static int pf3_op(struct stress_task *t)
{
	return pf_file_op(t, true);
}

const struct stress_impl stress_model_page_fault2 = {
    .switches = files_switches,
    .setup = files_setup,
    .op = pf2_op,
    .verify = mm_verify,
    .teardown = files_teardown,
};

const struct stress_impl stress_model_page_fault3 = {
    .switches = files_switches,
    .setup = files_setup,
    .op = pf3_op,
    .verify = mm_verify,
    .teardown = files_teardown,
};

/* ---- fork-vmas: fork (dup_mmap) a process with `vmas` VMAs ---------- */

static int forkv_setup(struct stress_run *run)
{
	struct mm_struct *mm;
	long nvmas = (long)run->opt->params.vmas;

	if (mm_setup(run))
		return -1;
	mm = current->mm;
	for (long i = 0; i < nvmas; i++) {
		/* alternate protections so that neighbours do not merge */
		int prot = i & 1 ? PROT_READ : RW;
		long addr = vm_mmap(mm, 0, PAGE_SIZE, prot, MAP_PRIVATE | MAP_ANONYMOUS, NULL, 0);
		uint64_t v = i;

		if (addr < 0)
			return stress_setup_fail(run, "vm_mmap(MAP_ANONYMOUS)", (int)-addr);
		if ((prot & PROT_WRITE) && rv_mm_write(addr, &v, sizeof(v)))
			return stress_setup_fail(run, "rv_mm_write", EFAULT);
	}
	return 0;
}

static int forkv_op(struct stress_task *t)
{
	struct task_struct *child = task_fork(current);

	if (!child)
		return stress_fail(t, "task_fork", errno ? errno : ENOMEM);
	if (t->run->opt->verify && child->mm &&
	    mm_map_count(child->mm) != mm_map_count(current->mm)) {
		int c = mm_map_count(child->mm), p = mm_map_count(current->mm);

		task_exit(child);
		return stress_vfail(t, "forked mm has %d VMAs, parent %d", c, p);
	}
	task_exit(child);
	return 0;
}

const struct stress_impl stress_model_fork_vmas = {
    .setup = forkv_setup,
    .op = forkv_op,
    .verify = mm_verify,
};

/* ---- companions: a second model thread in the task's process -------- */

struct mm_companion {
	pthread_t tid;
	struct task_struct *task; /* a model thread of the owner's process */
	void (*fn)(struct mm_companion *c);
	double hang_timeout_s;
	int stop;	  /* atomic: set by the owner */
	int err;	  /* atomic (release): errno of a failed call, 0 if none */
	const char *call; /* the failed call (written before err) */
	uint64_t loops;	  /* scans or forks done */
};

/* Per-task state of the race workloads. */
struct mm_race_task {
	unsigned long addr, len;
	struct mm_companion *comp; /* NULL unless this task owns its process's */
	unsigned long slot;	   /* fork-race: byte offset of its slot in each page */
};

static void comp_fail(struct mm_companion *c, const char *call, int err)
{
	c->call = call;
	__atomic_store_n(&c->err, err ? err : EIO, __ATOMIC_RELEASE);
}

static bool comp_stopping(struct mm_companion *c)
{
	return __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&c->err, __ATOMIC_ACQUIRE);
}

static void *comp_main(void *arg)
{
	struct mm_companion *c = arg;

	task_attach(c->task);
	c->fn(c);
	task_exit(c->task); /* detaches this thread */
	return NULL;
}

/*
 * Owner's thread: start a companion in current's process.  c: one the
 * caller allocated (a larger struct that begins with it), or NULL; it is
 * freed when the companion stops, or here on failure.
 */
static int comp_start_with(struct stress_task *t, struct mm_companion *c,
			   void (*fn)(struct mm_companion *c))
{
	struct mm_race_task *rt = t->priv;
	pthread_attr_t attr;
	int r;

	if (!c)
		c = calloc(1, sizeof(*c));
	if (!c)
		return stress_fail(t, "calloc", ENOMEM);
	c->fn = fn;
	c->hang_timeout_s = t->run->opt->hang_timeout_s;
	c->task = task_clone_thread(current);
	if (!c->task) {
		free(c);
		return stress_fail(t, "task_clone_thread", errno ? errno : ENOMEM);
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	r = pthread_create(&c->tid, &attr, comp_main, c);
	pthread_attr_destroy(&attr);
	if (r) {
		task_exit(c->task);
		free(c);
		return stress_fail(t, "pthread_create", r);
	}
	rt->comp = c;
	return 0;
}

static int comp_start(struct stress_task *t, void (*fn)(struct mm_companion *c))
{
	return comp_start_with(t, NULL, fn);
}

/* Owner's thread, between ops: a companion error fails the task. */
static int comp_check(struct stress_task *t)
{
	struct mm_race_task *rt = t->priv;
	int err;

	if (!rt->comp)
		return 0;
	err = __atomic_load_n(&rt->comp->err, __ATOMIC_ACQUIRE);
	if (err)
		return stress_fail(t, rt->comp->call, err);
	return 0;
}

/* Owner's thread: stop and join (bounded) the companion. */
static void comp_stop(struct stress_task *t)
{
	struct mm_race_task *rt = t->priv;
	struct mm_companion *c = rt->comp;
	struct timespec ts;
	double d;

	if (!c)
		return;
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	clock_gettime(CLOCK_REALTIME, &ts);
	d = ts.tv_sec + ts.tv_nsec * 1e-9 + c->hang_timeout_s;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
	if (pthread_timedjoin_np(c->tid, NULL, &ts)) {
		fprintf(
		    stderr,
		    "rcuvfs-stress: %s: task %d's companion thread did not stop within %.0f s\n",
		    t->run->wl->name, t->id, c->hang_timeout_s);
		fflush(NULL);
		_exit(3); /* a thread cannot be killed; nothing else is safe */
	}
	rt->comp = NULL;
	if (c->err && __atomic_load_n(&t->slot->state, __ATOMIC_ACQUIRE) != SLOT_FAILED)
		stress_fail(t, c->call, c->err);
	free(c);
}

static bool owns_process(const struct stress_task *t)
{
	return t->run->opt->mode == MODE_PROCESSES || t->id == 0;
}

/* Widen a race window: an injection point that spins window_ns. */
static void window_spin(void *arg)
{
	stress_spin_ns(*(const double *)arg);
}

static int arm_window(struct stress_run *run, const char *point)
{
	int r;

	if (run->opt->params.window_ns <= 0)
		return 0;
	r = rv_inject_set_callback(point, window_spin, (void *)&run->opt->params.window_ns, 0);
	if (r)
		return stress_setup_fail(run, "rv_inject_set_callback", -r);
	return 0;
}

/* ---- staged races: helper threads of setup's model task --------------- */

struct stage_thread {
	pthread_t tid;
	struct task_struct *task;
	void (*fn)(void *arg);
	void *arg;
	bool started;
};

static void *stage_main(void *p)
{
	struct stage_thread *st = p;

	task_attach(st->task);
	st->fn(st->arg);
	task_exit(st->task);
	return NULL;
}

/* Start fn(arg) in a new model thread of current's process. */
static int stage_start(struct stress_run *run, struct stage_thread *st, void (*fn)(void *),
		       void *arg)
{
	int r;

	st->fn = fn;
	st->arg = arg;
	st->task = task_clone_thread(current);
	if (!st->task)
		return stress_setup_fail(run, "task_clone_thread", errno ? errno : ENOMEM);
	r = pthread_create(&st->tid, NULL, stage_main, st);
	if (r) {
		task_exit(st->task);
		return stress_setup_fail(run, "pthread_create", r);
	}
	st->started = true;
	return 0;
}

/* Release every parked helper (the points are cleared) and join them all. */
static void stage_finish(struct stage_thread *st, int n)
{
	rv_inject_clear_all();
	for (int i = 0; i < n; i++)
		if (st[i].started)
			pthread_join(st[i].tid, NULL);
}

static long stage_timeout_ms(const struct stress_run *run)
{
	return (long)(run->opt->hang_timeout_s * 1000);
}

/* An arrival the staging waits for, bounded by --timeout (a hang guard). */
static int stage_wait(struct stress_run *run, const char *point)
{
	char call[64];

	if (rv_inject_wait_arrivals(point, 1, stage_timeout_ms(run)) == 0)
		return 0;
	snprintf(call, sizeof(call), "staged race: wait for %s", point);
	return stress_setup_fail(run, call, ETIMEDOUT);
}

static void release_point(void *name)
{
	rv_inject_release(name);
}

static void race_teardown(struct stress_run *run)
{
	if (run->opt->params.window_ns > 0)
		rv_inject_clear_all(); /* every task and companion has been joined */
}

static void race_task_fini(struct stress_task *t)
{
	struct mm_race_task *rt = t->priv;

	if (!rt)
		return;
	comp_stop(t);
	if (rt->len)
		vm_munmap(current->mm, rt->addr, rt->len);
	free(rt);
	t->priv = NULL;
}

/* ---- numa-race (docs/history.md, seed-003) ------------------------------ */

/*
 * The scanner: NUMA-hinting passes over the process's mm (each PTE goes
 * through ptep_modify_prot_start..commit with the PTE lock held), then
 * reclaim of the file folios, so that a fault which reads a PTE as none
 * inside a window misses the page cache: a major fault.
 */
static void numa_scanner(struct mm_companion *c)
{
	while (!comp_stopping(c)) {
		task_numa_work(current->mm);
		mm_reclaim_folios(mm_lru_pages() + 1);
		c->loops++;
	}
}

struct numa_stage {
	struct mm_struct *mm;
	unsigned long addr;
};

/* The staged scanner: one ptep_modify_prot_start..commit on one page. */
static void numa_stage_scan(void *arg)
{
	struct numa_stage *ns = arg;
	struct vm_area_struct *vma;

	mmap_read_lock(ns->mm);
	vma = vma_lookup(ns->mm, ns->addr);
	if (vma)
		change_prot_numa(vma, ns->addr, ns->addr + PAGE_SIZE);
	mmap_read_unlock(ns->mm);
}

/*
 * One instance of the race, staged as in test_mm_race's seed003: a
 * private, mlocked, COW'd page of file 0 whose file folio is reclaimed; the
 * scanner parks inside its window (PTE none, PTE lock held); this thread
 * reads the page, its fault reads the PTE as none and reaches
 * filemap_fault_major, whose callback releases the scanner.  pte_recheck=0
 * then reads the file for nothing (spurious_majflt); 1 and rfc find the
 * PTE changed under the PTE lock (pte_recheck_nopage).  Either way the
 * read returns the COW'd data.
 */
static int force_numa_race(struct stress_run *run)
{
	struct mm_struct *mm = current->mm;
	struct mm_files *mf = run->priv;
	struct stage_thread st = {0};
	struct numa_stage ns = {.mm = mm};
	uint64_t stamp = 0x5eed5eed5eed5eedull, v[2] = {0, 0};
	long addr;
	int r;

	addr = vm_mmap(mm, 0, PAGE_SIZE, RW, MAP_PRIVATE, mf->file[0], 0);
	if (addr < 0)
		return stress_setup_fail(run, "staged race: vm_mmap(MAP_PRIVATE, file)",
					 (int)-addr);
	ns.addr = (unsigned long)addr;
	r = vm_mlock(mm, ns.addr, PAGE_SIZE);
	if (!r)
		r = rv_mm_write(ns.addr, &stamp, sizeof(stamp));
	if (r) {
		vm_munmap(mm, ns.addr, PAGE_SIZE);
		return stress_setup_fail(run, "staged race: vm_mlock + COW write", -r);
	}
	mm_reclaim_folios(mm_lru_pages() + 1); /* the file folio: the fault misses */
	if (rv_inject_set_pause("numa_prot_window", 1) ||
	    rv_inject_set_callback("filemap_fault_major", release_point, (void *)"numa_prot_window",
				   1)) {
		r = stress_setup_fail(run, "rv_inject_set", ENOSPC);
		goto out;
	}
	r = stage_start(run, &st, numa_stage_scan, &ns);
	if (!r)
		r = stage_wait(run, "numa_prot_window");
	if (!r && mm_pte_read(mm, ns.addr) != 0)
		r = stress_setup_fail(run, "staged race: the scanner's window left the PTE present",
				      EINVAL);
	if (!r) {
		r = rv_mm_read(ns.addr, v, sizeof(v));
		if (r)
			r = stress_setup_fail(run, "staged race: rv_mm_read", -r);
		else if (v[0] != stamp || v[1] != page_tag(0, 0))
			r = stress_setup_fail(run, "staged race: the page lost its COW'd data",
					      EIO);
	}
out:
	stage_finish(&st, 1);
	vm_munmap(mm, ns.addr, PAGE_SIZE);
	return r;
}

static int numa_setup(struct stress_run *run)
{
	if (files_setup(run))
		return -1;
	if (run->opt->params.window_ns > 0 && force_numa_race(run))
		return -1;
	return arm_window(run, "numa_prot_window");
}

static void numa_teardown(struct stress_run *run)
{
	race_teardown(run);
	files_teardown(run);
}

/*
 * Tasks of one mm set up one at a time: two mlockall populates walking the
 * same VMAs at once would both fault a page of another task's region, one
 * COWing it while the other reads the file page again after reclaim took
 * it, a major fault Linux 6.9's filemap_fault takes as well (its
 * filemap_fault_recheck_pte_none runs once, before the folio is created)
 * but that spurious_majflt cannot tell from the reported race.
 */
static pthread_mutex_t numa_init_lock = PTHREAD_MUTEX_INITIALIZER;

static int numa_task_init_locked(struct stress_task *t);

static int numa_task_init(struct stress_task *t)
{
	int ret;

	pthread_mutex_lock(&numa_init_lock);
	ret = numa_task_init_locked(t);
	pthread_mutex_unlock(&numa_init_lock);
	return ret;
}

/* Map the task's file privately, mlockall (which COWs every page: the
 * anonymous copies are never reclaimed); then start the scanner if this
 * task owns it. */
static int numa_task_init_locked(struct stress_task *t)
{
	unsigned long n = run_pages(t->run);
	struct mm_race_task *rt = calloc(1, sizeof(*rt));
	uint64_t stamp = task_stamp(t);
	long addr;

	if (!rt)
		return stress_fail(t, "calloc", ENOMEM);
	t->priv = rt;
	addr = vm_mmap(current->mm, 0, n * PAGE_SIZE, RW, MAP_PRIVATE, task_file(t), 0);
	if (addr < 0)
		return stress_fail(t, "vm_mmap(MAP_PRIVATE, file)", (int)-addr);
	rt->addr = (unsigned long)addr;
	rt->len = n * PAGE_SIZE;
	/* the original report's mlockall: VM_LOCKED (what pte_recheck=1 checks), and its
	 * populate COWs every page of the private writable mapping */
	addr = vm_mlockall(current->mm, MCL_CURRENT | MCL_FUTURE);
	if (addr)
		return stress_fail(t, "vm_mlockall", (int)-addr);
	for (unsigned long i = 0; i < n; i++) {
		int r = rv_mm_write(rt->addr + i * PAGE_SIZE, &stamp, sizeof(stamp));

		if (r)
			return stress_fail(t, "rv_mm_write", -r);
	}
	if (owns_process(t))
		return comp_start(t, numa_scanner);
	return 0;
}

/* Write a new stamp to every page, then read every page back: the COW'd
 * data, never the file's (the file tag stays in the copy's second word). */
static int numa_op(struct stress_task *t)
{
	struct mm_race_task *rt = t->priv;
	unsigned long n = rt->len / PAGE_SIZE;
	uint64_t stamp = (uint64_t)t->id << 40 | (t->iter + 1);

	if (comp_check(t))
		return -1;
	for (unsigned long i = 0; i < n; i++) {
		int r = rv_mm_write(rt->addr + i * PAGE_SIZE, &stamp, sizeof(stamp));

		if (r)
			return stress_fail(t, "rv_mm_write", -r);
	}
	/* always checked: the data must be right in every pte_recheck mode */
	return check_mapping(t, rt->addr, n, stamp, "COW'd private");
}

static int numa_verify(struct stress_run *run, uint64_t total_ops)
{
	uint64_t spur = stat_now("spurious_majflt");
	uint64_t nopage = stat_now("pte_recheck_nopage");

	if (run->opt->expect_race && rv_sw.pte_recheck == PTE_RECHECK_OFF && !spur) {
		snprintf(run->verify_msg, sizeof(run->verify_msg),
			 "--expect-race: no spurious major fault with pte_recheck=0: "
			 "the race did not happen (window_ns=%g)",
			 run->opt->params.window_ns);
		return 0;
	}
	if (run->opt->expect_race && rv_sw.pte_recheck != PTE_RECHECK_OFF && !nopage) {
		snprintf(run->verify_msg, sizeof(run->verify_msg),
			 "--expect-race: pte_recheck_nopage is 0: the recheck never found the PTE "
			 "changed, the race did not happen (window_ns=%g)",
			 run->opt->params.window_ns);
		return 0;
	}
	if (rv_sw.pte_recheck != PTE_RECHECK_OFF && spur) {
		snprintf(run->verify_msg, sizeof(run->verify_msg),
			 "%llu spurious major faults with pte_recheck=%s (must be 0)",
			 (unsigned long long)spur,
			 rv_sw.pte_recheck == PTE_RECHECK_RFC ? "rfc" : "1");
		return 0;
	}
	return mm_verify(run, total_ops);
}

const struct stress_impl stress_model_numa_race = {
    .switches = files_switches,
    .setup = numa_setup,
    .task_init = numa_task_init,
    .op = numa_op,
    .task_fini = race_task_fini,
    .verify = numa_verify,
    .teardown = numa_teardown,
};

/* ---- fork-race (docs/history.md) ---------------------------------------- */

RV_STAT_DEFINE(fork_lost_writes,
	       "fork-race: parent writes that returned and then read back older (lost)");
RV_STAT_DEFINE(fork_child_check_failures, "fork-race: forked children that failed mm_check");

/* The forker: fork the process (from inside it, as a thread calling
 * fork()), check the child from the outside, let it exit. */
static void forker(struct mm_companion *c)
{
	while (!comp_stopping(c)) {
		struct task_struct *child = task_fork(current);

		if (!child) {
			comp_fail(c, "task_fork", errno);
			return;
		}
		if (child->mm && mm_check(child->mm))
			rv_stat_inc(fork_child_check_failures);
		task_exit(child);
		c->loops++;
		sched_yield(); /* let the tasks' faults that waited for fork in */
	}
}

struct fr_stage {
	unsigned long addr;
	uint64_t val;
	int ret;
	struct task_struct *child; /* the forker's */
};

static void fr_stage_write(void *arg)
{
	struct fr_stage *w = arg;

	w->ret = rv_mm_write(w->addr, &w->val, sizeof(w->val));
}

static void fr_stage_fork(void *arg)
{
	struct fr_stage *f = arg;

	f->child = task_fork(current);
	f->ret = f->child ? 0 : -(errno ? errno : ENOMEM);
}

/*
 * One instance of the race, staged as in test_mm_race's lost-write test,
 * on the last two slots of the region's first page (no task's): A's store
 * parks with its translation loaded (mm_access_copy); fork parks with the
 * parent's PTEs write-protected and the TLB not flushed (dup_mmap_flush);
 * B writes the page: under never its write-protect fault copies the page
 * during fork (parked at wp_page_copy) while A's store lands in the old
 * page, the child's from then on; under always and elide-single B's fault
 * finds the VMA write-locked and waits for fork (vma_lock_misses).  Then
 * the parent's slots are read back: A's write missing is a lost write.
 */
static int force_fork_race(struct stress_run *run)
{
	struct fr_stage a = {
	    .addr = FR_BASE + PAGE_SIZE - 8, .val = 0xaaaaaaaaaaaaaaaaull, .ret = -1};
	struct fr_stage b = {
	    .addr = FR_BASE + PAGE_SIZE - 16, .val = 0xbbbbbbbbbbbbbbbbull, .ret = -1};
	struct fr_stage f = {.ret = -1};
	struct stage_thread st[3] = {{0}};
	uint64_t misses, va = 0, vb = 0;
	double deadline;
	int r;

	if (rv_inject_set_pause("mm_access_copy", 1) || rv_inject_set_pause("dup_mmap_flush", 1) ||
	    rv_inject_set_pause("wp_page_copy", 1)) {
		r = stress_setup_fail(run, "rv_inject_set_pause", ENOSPC);
		goto out;
	}
	r = stage_start(run, &st[0], fr_stage_write, &a);
	if (!r)
		r = stage_wait(run, "mm_access_copy");
	if (!r)
		r = stage_start(run, &st[1], fr_stage_fork, &f);
	if (!r)
		r = stage_wait(run, "dup_mmap_flush");
	if (r)
		goto out;
	misses = stat_now("vma_lock_misses");
	r = stage_start(run, &st[2], fr_stage_write, &b);
	/* B either copies during fork or waits for it: an event, bounded */
	deadline = stress_now() + run->opt->hang_timeout_s;
	while (!r && rv_inject_arrivals("wp_page_copy") == 0 &&
	       stat_now("vma_lock_misses") == misses) {
		if (stress_now() > deadline)
			r = stress_setup_fail(run, "staged race: wait for B's fault", ETIMEDOUT);
		sched_yield();
	}
	if (r)
		goto out;
	rv_inject_release("mm_access_copy"); /* A's store lands */
	pthread_join(st[0].tid, NULL);
	st[0].started = false;
	rv_inject_release("wp_page_copy");
	rv_inject_release("dup_mmap_flush");
	pthread_join(st[1].tid, NULL);
	pthread_join(st[2].tid, NULL);
	st[1].started = st[2].started = false;
	if (a.ret || b.ret || f.ret) {
		r = stress_setup_fail(run, "staged race: a write or the fork",
				      -(a.ret	? a.ret
					: b.ret ? b.ret
						: f.ret));
		goto out;
	}
	if (f.child->mm && mm_check(f.child->mm))
		rv_stat_inc(fork_child_check_failures);
	r = rv_mm_read(a.addr, &va, sizeof(va));
	if (!r)
		r = rv_mm_read(b.addr, &vb, sizeof(vb));
	if (r) {
		r = stress_setup_fail(run, "staged race: rv_mm_read", -r);
		goto out;
	}
	if (vb != b.val) /* B wrote after fork's snapshot: never lost */
		r = stress_setup_fail(run, "staged race: B's write (after fork) lost", EIO);
	else if (va != a.val)
		rv_stat_inc(fork_lost_writes); /* fr_verify judges it by fork_vma_lock */
out:
	stage_finish(st, 3);
	if (f.child)
		task_exit(f.child);
	return r;
}

static int fr_setup(struct stress_run *run)
{
	unsigned long n = run_pages(run);
	uint64_t zero = 0;
	long addr;
	int r;

	if (mm_setup(run))
		return -1;
	if (run->ntasks > (int)(PAGE_SIZE / sizeof(uint64_t)) - 2) /* 2: force_fork_race's */
		return stress_setup_fail(run, "fork-race: more tasks than slots in a page", EINVAL);
	/* the region, written once: anon_vma and writable PTEs exist, so
	 * fork write-protects them and the tasks' writes take COW faults */
	addr = vm_mmap(current->mm, FR_BASE, n * PAGE_SIZE, RW,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0);
	if (addr != (long)FR_BASE)
		return stress_setup_fail(run, "vm_mmap(fork-race region)",
					 addr < 0 ? (int)-addr : EINVAL);
	for (unsigned long i = 0; i < n; i++) {
		r = rv_mm_write(FR_BASE + i * PAGE_SIZE, &zero, sizeof(zero));
		if (r)
			return stress_setup_fail(run, "rv_mm_write", -r);
	}
	if (run->opt->params.window_ns > 0 && force_fork_race(run))
		return -1;
	if (arm_window(run, "mm_access_copy"))
		return -1;
	return arm_window(run, "dup_mmap_flush");
}

static void fr_teardown(struct stress_run *run)
{
	race_teardown(run);
}

static int fr_task_init(struct stress_task *t)
{
	struct mm_race_task *rt = calloc(1, sizeof(*rt));

	if (!rt)
		return stress_fail(t, "calloc", ENOMEM);
	t->priv = rt;
	rt->addr = FR_BASE;
	rt->slot = (unsigned long)t->id * sizeof(uint64_t);
	if (owns_process(t))
		return comp_start(t, forker);
	return 0;
}

/*
 * Write a new stamp into the task's slot of every page, then read every
 * slot back: a write that returned must be there.  Under
 * fork_vma_lock=never a lost write is the finding (counted,
 * fork_lost_writes); otherwise it fails the task.
 */
static int fr_op(struct stress_task *t)
{
	struct mm_race_task *rt = t->priv;
	unsigned long n = run_pages(t->run);
	uint64_t stamp = task_stamp(t) + 1;
	int r;

	if (comp_check(t))
		return -1;
	for (unsigned long i = 0; i < n; i++) {
		r = rv_mm_write(rt->addr + i * PAGE_SIZE + rt->slot, &stamp, sizeof(stamp));
		if (r)
			return stress_fail(t, "rv_mm_write (write-protect fault)", -r);
	}
	for (unsigned long i = 0; i < n; i++) {
		uint64_t v = 0;

		r = rv_mm_read(rt->addr + i * PAGE_SIZE + rt->slot, &v, sizeof(v));
		if (r)
			return stress_fail(t, "rv_mm_read", -r);
		if (v == stamp)
			continue;
		if (rv_sw.fork_vma_lock != FORK_VMA_LOCK_NEVER)
			return stress_vfail(
			    t, "page %lu: a write that returned is lost: reads %llx, wrote %llx", i,
			    (unsigned long long)v, (unsigned long long)stamp);
		rv_stat_inc(fork_lost_writes);
	}
	return 0;
}

static int fr_verify(struct stress_run *run, uint64_t total_ops)
{
	uint64_t bad = stat_now("fork_child_check_failures");
	uint64_t lost = stat_now("fork_lost_writes");

	if (bad) {
		snprintf(run->verify_msg, sizeof(run->verify_msg),
			 "mm_check failed on %llu forked children", (unsigned long long)bad);
		return 0;
	}
	if (run->opt->expect_race && !lost && rv_sw.fork_vma_lock == FORK_VMA_LOCK_NEVER) {
		snprintf(run->verify_msg, sizeof(run->verify_msg),
			 "--expect-race: no parent write lost with fork_vma_lock=never: "
			 "the race did not happen (window_ns=%g)",
			 run->opt->params.window_ns);
		return 0;
	}
	if (lost && rv_sw.fork_vma_lock != FORK_VMA_LOCK_NEVER) {
		snprintf(run->verify_msg, sizeof(run->verify_msg),
			 "%llu parent writes lost although fork write-locks the parent's VMAs",
			 (unsigned long long)lost);
		return 0;
	}
	return mm_verify(run, total_ops);
}

const struct stress_impl stress_model_fork_race = {
    .setup = fr_setup,
    .task_init = fr_task_init,
    .op = fr_op,
    .task_fini = race_task_fini,
    .verify = fr_verify,
    .teardown = fr_teardown,
};

/* ---- vma-reuse: faults against VMAs freed and reused -------------------- */
/*
 * A region of `pages` slots (at most VR_SLOTS), slot s at VR_BASE + 2 s
 * pages (a gap page between slots, so that nothing merges), each a
 * one-page read-only shared view of page s of task 0's file when mapped.
 * All slots but one (the hole) are mapped.  A companion thread of the
 * process (the remapper) loops: munmap a slot, then mmap the hole (the
 * unmapped slot becomes the hole), so that with vm_area_cache=typesafe
 * the VMA just freed comes straight back from the thread's slab slot as
 * another slot's VMA.
 * Each op reads every slot: a mapped slot must read page s's tag, an
 * unmapped one fault with -EFAULT.  A fault that found slot s's VMA under
 * RCU and took its reference after the reuse must see, by the recheck in
 * lock_vma_under_rcu (counted vma_lock_recycled), that the VMA no longer
 * covers its address; going through it would read another page of the
 * file or fail beyond its end: --verify fails on either.  -p window_ns=
 * (default 1000) spins at the injection point lock_vma_under_rcu, between
 * the tree lookup and the reference, to widen the window.  Threads mode
 * shares one mm and one remapper; in processes mode each process has its
 * own.
 */
#define VR_BASE	 0x50000000UL
#define VR_SLOTS 64

static unsigned long vr_slots(const struct stress_run *run)
{
	unsigned long n = run_pages(run);

	return n > VR_SLOTS ? VR_SLOTS : n < 2 ? 2 : n;
}

static unsigned long vr_addr(unsigned long slot)
{
	return VR_BASE + 2 * slot * PAGE_SIZE;
}

static int vr_setup(struct stress_run *run)
{
	if (files_setup_n(run, vr_slots(run)))
		return -1;
	return arm_window(run, "lock_vma_under_rcu");
}

static long vr_map(struct stress_run *run, unsigned long slot)
{
	struct file *f = ((struct mm_files *)run->priv)->file[0];

	return vm_mmap(current->mm, vr_addr(slot), PAGE_SIZE, PROT_READ, MAP_SHARED | MAP_FIXED, f,
		       slot);
}

struct vr_comp {
	struct mm_companion c;
	struct stress_run *run;
};

static void remapper(struct mm_companion *c)
{
	struct stress_run *run = ((struct vr_comp *)c)->run;
	unsigned long n = vr_slots(run), hole = n - 1, k = 0;

	while (!comp_stopping(c)) {
		/* the next slot round-robin moves into the hole */
		unsigned long from = (hole + 1 + k % (n - 1)) % n;
		long a;
		int r;

		r = vm_munmap(current->mm, vr_addr(from), PAGE_SIZE);
		if (r) {
			comp_fail(c, "vm_munmap (remapper)", -r);
			return;
		}
		a = vr_map(run, hole);
		if (a != (long)vr_addr(hole)) {
			comp_fail(c, "vm_mmap (remapper)", a < 0 ? (int)-a : EINVAL);
			return;
		}
		hole = from;
		c->loops++;
		k++;
	}
}

static int vr_task_init(struct stress_task *t)
{
	struct mm_race_task *rt = calloc(1, sizeof(*rt));
	unsigned long n = vr_slots(t->run);

	if (!rt)
		return stress_fail(t, "calloc", ENOMEM);
	t->priv = rt;
	if (!owns_process(t))
		return 0;
	for (unsigned long s = 0; s + 1 < n; s++) { /* all but the last: the hole */
		long a = vr_map(t->run, s);

		if (a != (long)vr_addr(s))
			return stress_fail(t, "vm_mmap (vma-reuse slot)", a < 0 ? (int)-a : EINVAL);
	}
	{
		struct vr_comp *vc = calloc(1, sizeof(*vc));

		if (!vc)
			return stress_fail(t, "calloc", ENOMEM);
		vc->run = t->run;
		if (comp_start_with(t, &vc->c, remapper))
			return -1;
	}
	rt->addr = VR_BASE;
	rt->len = 2 * n * PAGE_SIZE; /* race_task_fini unmaps the region */
	return 0;
}

static int vr_op(struct stress_task *t)
{
	unsigned long n = vr_slots(t->run);

	if (comp_check(t))
		return -1;
	for (unsigned long s = 0; s < n; s++) {
		uint64_t v[2] = {0, 0};
		int r = rv_mm_read(vr_addr(s), v, sizeof(v));

		if (r == -EFAULT)
			continue; /* unmapped just now */
		if (r)
			return stress_vfail(t,
					    "slot %lu: the read failed: %s (a fault through "
					    "another slot's VMA reads beyond the file?)",
					    s, strerror(-r));
		if (t->run->opt->verify && (v[0] != page_tag(0, s) || v[1] != page_tag(0, s)))
			return stress_vfail(t,
					    "slot %lu reads tag %llx, expected page %lu's %llx: "
					    "the fault went through another slot's VMA",
					    s, (unsigned long long)v[0], s,
					    (unsigned long long)page_tag(0, s));
	}
	return 0;
}

static void vr_teardown(struct stress_run *run)
{
	race_teardown(run);
	files_teardown(run);
}

const struct stress_impl stress_model_vma_reuse = {
    .setup = vr_setup,
    .task_init = vr_task_init,
    .op = vr_op,
    .task_fini = race_task_fini,
    .verify = mm_verify,
    .teardown = vr_teardown,
};
