/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tests/unit/test_mm_util.h - helpers shared by the test_mm*.c programs. */
#ifndef RCUVFS_TESTS_TEST_MM_UTIL_H
#define RCUVFS_TESTS_TEST_MM_UTIL_H

#include "rvtest.h"
#include "mm/mm.h"
#include "mm/testing.h"

#include <pthread.h>
#include <sys/mman.h>
#include <string.h>

#define PG PAGE_SIZE

/* A new model process with a fresh address space, attached to this thread. */
static inline struct task_struct *mmt_new_proc(void)
{
	struct task_struct *t = task_create_process("mmtest");

	CU_ASSERT_FATAL(t != NULL);
	task_attach(t);
	CU_ASSERT_FATAL(exec_mm(t) == 0);
	return t;
}

static inline uint64_t mmt_stat(const char *name)
{
	uint64_t v = 0;

	CU_ASSERT(rv_stat_read(name, &v) == 0);
	return v;
}

static inline long mmt_map(struct mm_struct *mm, unsigned long addr, unsigned long len, int prot)
{
	return vm_mmap(mm, addr, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | (addr ? MAP_FIXED : 0),
		       NULL, 0);
}

static inline void mmt_fill(unsigned long addr, unsigned long len, unsigned char seed)
{
	unsigned char buf[PG];

	for (unsigned long off = 0; off < len; off += PG) {
		memset(buf, (unsigned char)(seed + off / PG), PG);
		CU_ASSERT_FATAL(rv_mm_write(addr + off, buf, PG) == 0);
	}
}

/* 1 if every page of [addr, addr+len) holds the mmt_fill(seed) pattern. */
static inline int mmt_check(unsigned long addr, unsigned long len, unsigned char seed)
{
	unsigned char buf[PG];

	for (unsigned long off = 0; off < len; off += PG) {
		if (rv_mm_read(addr + off, buf, PG))
			return 0;
		for (unsigned long i = 0; i < PG; i++)
			if (buf[i] != (unsigned char)(seed + off / PG))
				return 0;
	}
	return 1;
}

static inline void mmt_fill_mm(struct mm_struct *mm, unsigned long addr, unsigned long len,
			       unsigned char seed)
{
	unsigned char buf[PG];

	for (unsigned long off = 0; off < len; off += PG) {
		memset(buf, (unsigned char)(seed + off / PG), PG);
		CU_ASSERT_FATAL(mm_access(mm, addr + off, buf, PG, true) == 0);
	}
}

static inline int mmt_check_mm(struct mm_struct *mm, unsigned long addr, unsigned long len,
			       unsigned char seed)
{
	unsigned char buf[PG];

	for (unsigned long off = 0; off < len; off += PG) {
		if (mm_access(mm, addr + off, buf, PG, false))
			return 0;
		for (unsigned long i = 0; i < PG; i++)
			if (buf[i] != (unsigned char)(seed + off / PG))
				return 0;
	}
	return 1;
}

/*
 * task_exit after mm_check of the task's address space (every mm test ends
 * its tasks this way, so every test checks the page tables, rmap and RSS).
 */
static inline void mmt_exit(struct task_struct *t)
{
	if (t->mm)
		CU_ASSERT(mm_check(t->mm) == 0);
	task_exit(t);
}

/* All mm objects gone (after every task exited): waits for RCU. */
static inline int mmt_all_freed(void)
{
	struct mm_objects o;

	rcu_barrier();
	kmem_cache_flush_thread();
	mm_objects_count(&o);
	if (o.mms || o.vmas || o.anon_vmas || o.avcs || o.pt_pages || o.anon_folios) {
		fprintf(
		    stderr,
		    "mm objects left: mms %ld vmas %ld anon_vmas %ld avcs %ld pt %ld folios %ld\n",
		    o.mms, o.vmas, o.anon_vmas, o.avcs, o.pt_pages, o.anon_folios);
		return 0;
	}
	return 1;
}

/* A host thread attached to task `t` running fn(arg). */
struct mmt_thread {
	pthread_t tid;
	struct task_struct *task;
	void *(*fn)(void *);
	void *arg;
	int done; /* atomic */
	void *ret;
};

static inline void *mmt_thread_main(void *p)
{
	struct mmt_thread *th = p;

	rv_rcu_ensure();
	task_attach(th->task);
	th->ret = th->fn(th->arg);
	task_detach();
	kmem_cache_flush_thread();
	__atomic_store_n(&th->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static inline void mmt_thread_start(struct mmt_thread *th, struct task_struct *t,
				    void *(*fn)(void *), void *arg)
{
	th->task = t;
	th->fn = fn;
	th->arg = arg;
	th->done = 0;
	CU_ASSERT_FATAL(pthread_create(&th->tid, NULL, mmt_thread_main, th) == 0);
}

static inline void *mmt_thread_join(struct mmt_thread *th)
{
	pthread_join(th->tid, NULL);
	return th->ret;
}

/* A worker's int result (a model call's return), for the main thread to
 * assert: workers never call CU_ASSERT. */
#define MMT_RC(x) ((void *)(intptr_t)(x))
static inline long mmt_thread_join_rc(struct mmt_thread *th)
{
	return (long)(intptr_t)mmt_thread_join(th);
}

/* A file at path of `pages` pages, page i filled with seed + i. */
static inline struct file *mmt_make_file(const char *path, int pages, unsigned char seed)
{
	struct file *f = NULL;
	unsigned char buf[PG];

	CU_ASSERT_FATAL(filp_open(path, O_RDWR | O_CREAT, 0644, &f) == 0);
	for (int i = 0; i < pages; i++) {
		int64_t pos = (int64_t)i * PG;

		memset(buf, (unsigned char)(seed + i), PG);
		CU_ASSERT_FATAL(vfs_write(f, buf, PG, &pos) == (ssize_t)PG);
	}
	return f;
}

/* 1 if page `page` of f reads (vfs_read, through the cache) as val. */
static inline int mmt_file_has(struct file *f, int page, unsigned char val)
{
	unsigned char buf[PG];
	int64_t pos = (int64_t)page * PG;

	if (vfs_read(f, buf, PG, &pos) != (ssize_t)PG)
		return 0;
	for (unsigned i = 0; i < PG; i++)
		if (buf[i] != val)
			return 0;
	return 1;
}

/*
 * One suite per combination of vma_lock x vm_area_cache that
 * rv_switches_check accepts, for the tests of the per-VMA lock: nm itself
 * (rwsem, rcu: 6.4-6.14), then nm_rwsem_sheaves, nm_refcnt_rcu,
 * nm_refcnt_typesafe (6.15), nm_refcnt_sheaves (the sheaves RFC's test) and
 * nm_refcnt_typesafe_sheaves (6.18).  extra: one more "name=value" for
 * every suite, or NULL.
 */
#define MMT_VMA_SUITE1(nm, combo, lock, cache, extra, ...)                                         \
	static int mmt_init_##nm##combo(void)                                                      \
	{                                                                                          \
		static const char *const s[] = {lock, cache, extra, NULL};                         \
		return rvtest_instance_with(s) ? -1 : 0;                                           \
	}                                                                                          \
	RVTEST_SUITE(nm##combo, mmt_init_##nm##combo, rvtest_instance_cleanup, __VA_ARGS__)
#define MMT_VMA_SUITES(nm, extra, ...)                                                             \
	MMT_VMA_SUITE1(nm, , "vma_lock=rwsem", "vm_area_cache=rcu", extra, __VA_ARGS__)            \
	MMT_VMA_SUITE1(nm, _rwsem_sheaves, "vma_lock=rwsem", "vm_area_cache=sheaves", extra,       \
		       __VA_ARGS__)                                                                \
	MMT_VMA_SUITE1(nm, _refcnt_rcu, "vma_lock=refcnt", "vm_area_cache=rcu", extra,             \
		       __VA_ARGS__)                                                                \
	MMT_VMA_SUITE1(nm, _refcnt_typesafe, "vma_lock=refcnt", "vm_area_cache=typesafe", extra,   \
		       __VA_ARGS__)                                                                \
	MMT_VMA_SUITE1(nm, _refcnt_sheaves, "vma_lock=refcnt", "vm_area_cache=sheaves", extra,     \
		       __VA_ARGS__)                                                                \
	MMT_VMA_SUITE1(nm, _refcnt_typesafe_sheaves, "vma_lock=refcnt",                            \
		       "vm_area_cache=typesafe-sheaves", extra, __VA_ARGS__)

/* Whether VMAs are freed at once into a SLAB_TYPESAFE_BY_RCU cache. */
static inline bool mmt_vma_typesafe(void)
{
	return rv_sw.vm_area_cache == VM_AREA_CACHE_TYPESAFE ||
	       rv_sw.vm_area_cache == VM_AREA_CACHE_TYPESAFE_SHEAVES;
}

/* ---- the host kernel as an oracle ------------------------------------ */

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Run fn in a forked host process (so that its mappings and forks leave
 * the test alone); fn fills out[0..n) and returns 0, or non-zero when the
 * host cannot run the case.  Returns 0 with out filled, -1 when the host
 * gave no answer (the caller then checks the model alone).
 */
static inline int mmt_host_run(int (*fn)(long *out, int n), long *out, int n)
{
	int pfd[2], st;
	ssize_t got;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		if (fn(out, n) || write(pfd[1], out, (size_t)n * sizeof(*out)) !=
				      (ssize_t)((size_t)n * sizeof(*out)))
			_exit(3);
		_exit(0);
	}
	close(pfd[1]);
	got = pid > 0 ? read(pfd[0], out, (size_t)n * sizeof(*out)) : -1;
	close(pfd[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
	    got != (ssize_t)((size_t)n * sizeof(*out)))
		return -1;
	return 0;
}

#include <sys/utsname.h>

/* Whether the host kernel is at least major.minor (false if unknown). */
static inline bool mmt_host_kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

/* A PROT_NONE reservation of `pages` pages on the host, or 0. */
static inline unsigned long mmt_host_window(unsigned long pages)
{
	void *p =
	    mmap(NULL, pages * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? 0 : (unsigned long)p;
}

/* Host VMAs (lines of /proc/self/maps) that intersect [start, end), or -1. */
static inline long mmt_host_count_vmas(unsigned long start, unsigned long end)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	long n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		if (sscanf(line, "%lx-%lx", &s, &e) == 2 && s < end && e > start)
			n++;
	}
	fclose(f);
	return n;
}

/* Model VMAs that intersect [start, end). */
static inline long mmt_count_vmas(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct vm_area_struct *v;
	long n = 0;
	int i;

	mmap_read_lock(mm);
	for_each_vma_idx(mm, i, v)
		if (v->vm_start < end && v->vm_end > start)
			n++;
	mmap_read_unlock(mm);
	return n;
}

#endif
