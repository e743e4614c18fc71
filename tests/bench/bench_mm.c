// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/bench/bench_mm.c - fork of a large address space and mm_struct
 * creation (docs/history.md).
 *
 * One run measures:
 *   1. model fork of a process with N VMAs (default 10,000: one page each,
 *      a one-page hole between them so nothing merges, each page written
 *      so every VMA has an anon_vma and a PTE to copy), under
 *      fork_vma_lock=always, elide-single and never, single-threaded
 *      parent: ns per task_fork (dup_mmap) and per fork+exit.  Rounds
 *      alternate the modes; the best round of each is reported, with its
 *      ratio to never (seed: ~5% regression for always).
 *   2. a real fork() of a host process with the same N mappings, made
 *      before the model starts (a helper child process does it): ns per
 *      fork() call in the parent, and per fork+_exit+waitpid.
 *   3. mm_alloc+mmput loops with rss_counters=single vs group at 1 and 2
 *      threads (seed: percpu_counter_init_many, +39% on execve).
 * Timing never decides anything here; the figures are reported.
 *
 *   4. page_fault2 (private file mapping, write every page: COW) and
 *      page_fault3 (shared file mapping, write every page) over a 256-page
 *      file with cache_pages=64 (below the working set: major faults),
 *      pte_recheck 1, rfc and 0, with majflt, spurious_majflt and PTE-lock counts (seed:
 *      -6.9%..+0.3% on a ramdisk).
 *   5. fork-race: a multithreaded parent (1,000 VMAs, one thread unmapping,
 *      re-mapping and faulting them) forks; fork_vma_lock always vs never,
 *      forks/s, faults/s and children that fail mm_check.
 *
 *   6. --workload fork-count [-o fork_vma_lock=MODE] [--iters N]: no
 *      timing (MODE always unless given); set up the
 *      same N-VMA parent as 1, fork it once to warm the caches, then fork
 *      and exit it N times (default 10) in that one mode and stop.  For
 *      instruction counts (tests/bench/bench_mm_fork_callgrind.sh): runs
 *      with N and 2N iterations differ by N forks exactly, so setup and
 *      teardown cancel.  The forks run in fork_count_loop() (never
 *      inlined), each task_fork is one call, and rcu_barrier() at the end
 *      of the loop runs the RCU frees of the N children inside it.
 *
 * Usage (--help): bench_mm [--vmas N] [--forks F] [--repeat N] [--mm-iters M] [--no-touch]
 *                 [--workload fork|mm|pf|fr|fork-count] [-o NAME=VALUE,...] [--iters N]
 */
#include "mm/mm.h"
#include "mm/testing.h"
#include "bench_opt.h"

#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define BASE 0x20000000UL

static int nvmas = 10000, nforks = 20, nrounds = 5, touch = 1;
static long mm_iters = 20000;
static const char *only;		      /* --workload fork|mm|pf|fr|fork-count */
static int count_mode = -1, count_iters = 10; /* fork_vma_lock, --iters (section 6) */

static bool section(const char *name)
{
	return !only || !strcmp(only, name);
}

static const char *const mode_name[3] = {"always", "elide-single", "never"};

/* Create an instance with up to two switches set (NULL names skipped). */
static int instance_with2(const char *n1, const char *v1, const char *n2, const char *v2)
{
	struct rv_switches sw;
	char err[128];

	bench_switches(&sw);
	if ((n1 && rv_switch_set(&sw, n1, v1, err, sizeof(err))) ||
	    (n2 && rv_switch_set(&sw, n2, v2, err, sizeof(err)))) {
		fprintf(stderr, "bench_mm: %s\n", err);
		exit(2);
	}
	return rv_instance_create(&sw);
}

static int instance_with(const char *name, const char *value)
{
	return instance_with2(name, value, NULL, NULL);
}

static uint64_t stat_of(const char *name)
{
	uint64_t v = 0;

	rv_stat_read(name, &v);
	return v;
}

/* ------------------------------------------------------------------ */
/* 1. model fork                                                       */
/* ------------------------------------------------------------------ */

struct fork_result {
	double fork_ns, fork_exit_ns;
};

/* every model fork's duration, per mode, for min and median */
static uint64_t *samples[3];
static int nsamples[3];

static uint64_t lock_pass_ns; /* min over all rounds */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static struct fork_result model_fork_round(int mode)
{
	struct fork_result r = {0, 0};
	struct task_struct *p;
	uint64_t t_fork = 0, t0, t1;

	if (instance_with("fork_vma_lock", mode_name[mode])) {
		fprintf(stderr, "bench_mm: instance creation failed\n");
		exit(2);
	}
	p = task_create_process("bench");
	task_attach(p);
	if (exec_mm(p))
		exit(2);
	for (int i = 0; i < nvmas; i++) {
		unsigned long a = BASE + 2UL * i * PAGE_SIZE;
		unsigned char b = 1;

		if (vm_mmap(p->mm, a, PAGE_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0) != (long)a)
			exit(2);
		if (touch && rv_mm_write(a, &b, 1))
			exit(2);
	}
	/* warm the caches */
	task_exit(task_fork(p));
	rcu_barrier();
	t0 = rv_now_ns();
	for (int f = 0; f < nforks; f++) {
		uint64_t a = rv_now_ns();
		struct task_struct *c = task_fork(p);

		uint64_t d = rv_now_ns() - a;

		t_fork += d;
		samples[mode][nsamples[mode]++] = d;
		if (!c)
			exit(2);
		task_exit(c);
	}
	t1 = rv_now_ns();
	/* the lock pass alone: what always adds to dup_mmap, measured
	 * without the rest of fork (less exposed to machine noise) */
	for (int rep = 0; rep < nforks; rep++) {
		struct vm_area_struct *v;
		int i;
		uint64_t a;

		mmap_write_lock(p->mm);
		a = rv_now_ns();
		for_each_vma_idx(p->mm, i, v)
			vma_start_write(v);
		a = rv_now_ns() - a;
		mmap_write_unlock(p->mm);
		if (!lock_pass_ns || a < lock_pass_ns)
			lock_pass_ns = a;
	}
	r.fork_ns = (double)t_fork / nforks;
	r.fork_exit_ns = (double)(t1 - t0) / nforks;
	task_exit(p);
	if (rv_instance_destroy())
		fprintf(stderr, "bench_mm: teardown reported leaks\n");
	return r;
}

/* ------------------------------------------------------------------ */
/* 2. real fork()                                                      */
/* ------------------------------------------------------------------ */

static struct fork_result real_fork(void)
{
	struct fork_result r = {-1, -1};
	int pfd[2];
	pid_t helper;

	if (pipe(pfd))
		return r;
	helper = fork();
	if (helper == 0) {
		long pg = sysconf(_SC_PAGESIZE);
		char *area = mmap(NULL, (size_t)(2L * nvmas + 2) * pg, PROT_NONE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		struct fork_result res = {-1, -1};
		uint64_t t_fork = 0, best_fork = UINT64_MAX, best_total = UINT64_MAX;

		if (area == MAP_FAILED)
			_exit(1);
		/* 10,000 separate mappings: alternate pages made accessible */
		for (int i = 0; i < nvmas; i++) {
			char *a = area + 2L * i * pg;

			if (mprotect(a, pg, PROT_READ | PROT_WRITE))
				_exit(1);
			if (touch)
				a[0] = 1;
		}
		for (int round = 0; round < nrounds; round++) {
			uint64_t t0 = rv_now_ns();

			t_fork = 0;
			for (int f = 0; f < nforks; f++) {
				uint64_t a = rv_now_ns();
				pid_t c = fork();

				if (c == 0)
					_exit(0);
				t_fork += rv_now_ns() - a;
				waitpid(c, NULL, 0);
			}
			if (t_fork < best_fork)
				best_fork = t_fork;
			if (rv_now_ns() - t0 < best_total)
				best_total = rv_now_ns() - t0;
		}
		res.fork_ns = (double)best_fork / nforks;
		res.fork_exit_ns = (double)best_total / nforks;
		if (write(pfd[1], &res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (helper > 0) {
		if (read(pfd[0], &r, sizeof(r)) != sizeof(r))
			r.fork_ns = r.fork_exit_ns = -1;
		waitpid(helper, NULL, 0);
	}
	close(pfd[0]);
	return r;
}

/* ------------------------------------------------------------------ */
/* 3. mm_struct create/destroy                                         */
/* ------------------------------------------------------------------ */

static pthread_barrier_t mm_bar;

static void *mm_loop(void *arg)
{
	(void)arg;
	rv_rcu_ensure();
	pthread_barrier_wait(&mm_bar);
	for (long i = 0; i < mm_iters; i++) {
		struct mm_struct *mm = mm_alloc();

		if (!mm)
			exit(2);
		mmput(mm);
	}
	kmem_cache_flush_thread();
	return NULL;
}

static double mm_round(const char *mode, int threads)
{
	pthread_t tid[2];
	uint64_t t0;
	double secs;

	if (instance_with("rss_counters", mode))
		exit(2);
	pthread_barrier_init(&mm_bar, NULL, (unsigned)threads + 1);
	for (int i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, mm_loop, NULL);
	pthread_barrier_wait(&mm_bar);
	t0 = rv_now_ns();
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	secs = (double)(rv_now_ns() - t0) / 1e9;
	pthread_barrier_destroy(&mm_bar);
	if (rv_instance_destroy())
		fprintf(stderr, "bench_mm: teardown reported leaks\n");
	return (double)mm_iters * threads / secs;
}

/* ------------------------------------------------------------------ */
/* 4. page_fault2/3 with pte_recheck 1, rfc, 0; cache below working set */
/* ------------------------------------------------------------------ */

static int pf_pages = 256, pf_cache = 64, pf_iters = 200;
static const char *const recheck_name[3] = {"0", "1", "rfc"}; /* by switch value */
static int pf_only = -1;				      /* -o pte_recheck=V: V only */

struct pf_result {
	double pages_per_s;
	uint64_t majflt, spurious, locked;
};

static struct pf_result pf_round(int shared, int recheck)
{
	struct pf_result r = {0, 0, 0, 0};
	struct task_struct *p;
	struct file *f = NULL;
	unsigned char buf[4096];
	char cache[32];
	uint64_t t0, maj0, sp0, lk0;

	snprintf(cache, sizeof(cache), "%d", pf_cache);
	if (instance_with2("pte_recheck", recheck_name[recheck], "cache_pages", cache))
		exit(2);
	p = task_create_process("pf");
	task_attach(p);
	if (exec_mm(p) || filp_open("/pf", O_RDWR | O_CREAT, 0644, &f))
		exit(2);
	memset(buf, 7, sizeof(buf));
	for (int i = 0; i < pf_pages; i++) {
		int64_t pos = (int64_t)i * PAGE_SIZE;

		if (vfs_write(f, buf, PAGE_SIZE, &pos) != (ssize_t)PAGE_SIZE)
			exit(2);
	}
	maj0 = stat_of("majflt");
	sp0 = stat_of("spurious_majflt");
	lk0 = stat_of("pte_recheck_locked");
	t0 = rv_now_ns();
	for (int it = 0; it < pf_iters; it++) {
		long a = vm_mmap(p->mm, 0, (unsigned long)pf_pages * PAGE_SIZE,
				 PROT_READ | PROT_WRITE, shared ? MAP_SHARED : MAP_PRIVATE, f, 0);
		uint64_t v = (uint64_t)it;

		if (a < 0)
			exit(2);
		for (int i = 0; i < pf_pages; i++)
			if (rv_mm_write((unsigned long)a + (unsigned long)i * PAGE_SIZE, &v,
					sizeof(v)))
				exit(2);
		vm_munmap(p->mm, (unsigned long)a, (unsigned long)pf_pages * PAGE_SIZE);
	}
	r.pages_per_s = (double)pf_pages * pf_iters / ((double)(rv_now_ns() - t0) / 1e9);
	r.majflt = stat_of("majflt") - maj0;
	r.spurious = stat_of("spurious_majflt") - sp0;
	r.locked = stat_of("pte_recheck_locked") - lk0;
	task_exit(p);
	fput(f);
	do_unlink("/pf");
	if (rv_instance_destroy())
		fprintf(stderr, "bench_mm: teardown reported leaks\n");
	return r;
}

/* ------------------------------------------------------------------ */
/* 5. fork-race: forks while another parent thread faults              */
/* ------------------------------------------------------------------ */

#define FR_VMAS	 1000
#define FR_PAGES 4

struct fr_arg {
	struct task_struct *task;
	struct mm_struct *mm;
	int stop; /* atomic */
	long faults;
};

static void *fr_faulter(void *p)
{
	struct fr_arg *fa = p;

	rv_rcu_ensure();
	task_attach(fa->task);
	for (long v = 0; !__atomic_load_n(&fa->stop, __ATOMIC_ACQUIRE); v = (v + 1) % FR_VMAS) {
		unsigned long a = BASE + v * 2UL * FR_PAGES * PAGE_SIZE;
		unsigned char b = 1;

		vm_munmap(fa->mm, a, FR_PAGES * PAGE_SIZE);
		if (vm_mmap(fa->mm, a, FR_PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0) != (long)a)
			exit(2);
		for (int i = 0; i < FR_PAGES; i++) {
			if (mm_access(fa->mm, a + (unsigned long)i * PAGE_SIZE, &b, 1, true))
				exit(2);
			__atomic_store_n(&fa->faults, fa->faults + 1, __ATOMIC_RELAXED);
		}
	}
	task_detach();
	kmem_cache_flush_thread();
	return NULL;
}

struct fr_result {
	double forks_per_s, faults_per_s;
	uint64_t unstable;
};

static struct fr_result fork_race_round(int mode, int nfork)
{
	struct fr_result r = {0, 0, 0};
	struct fr_arg fa = {0};
	struct task_struct *p, *th;
	pthread_t tid;
	uint64_t t0;
	double secs;

	if (instance_with("fork_vma_lock", mode_name[mode]))
		exit(2);
	p = task_create_process("fr");
	task_attach(p);
	if (exec_mm(p))
		exit(2);
	for (int v = 0; v < FR_VMAS; v++)
		if (vm_mmap(p->mm, BASE + v * 2UL * FR_PAGES * PAGE_SIZE, FR_PAGES * PAGE_SIZE,
			    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL,
			    0) < 0)
			exit(2);
	th = task_clone_thread(p); /* the parent is multithreaded */
	fa.mm = p->mm;
	fa.task = th;
	pthread_create(&tid, NULL, fr_faulter, &fa);
	/* start timing once the faulter runs (bounded) */
	for (int i = 0; i < 1000000 && !__atomic_load_n(&fa.faults, __ATOMIC_RELAXED); i++)
		sched_yield();
	t0 = rv_now_ns();
	for (int i = 0; i < nfork; i++) {
		struct task_struct *c = task_fork(p);

		if (!c)
			exit(2);
		if (mm_check(c->mm))
			r.unstable++;
		task_exit(c);
	}
	secs = (double)(rv_now_ns() - t0) / 1e9;
	__atomic_store_n(&fa.stop, 1, __ATOMIC_RELEASE);
	pthread_join(tid, NULL);
	r.forks_per_s = nfork / secs;
	r.faults_per_s = (double)fa.faults / secs;
	task_exit(th);
	task_exit(p);
	if (rv_instance_destroy())
		fprintf(stderr, "bench_mm: teardown reported leaks\n");
	return r;
}

/* ------------------------------------------------------------------ */
/* 6. N forks in one mode, for instruction counts (no timing)          */
/* ------------------------------------------------------------------ */

static __attribute__((noinline)) void fork_count_loop(struct task_struct *p, int n)
{
	for (int f = 0; f < n; f++) {
		struct task_struct *c = task_fork(p);

		if (!c)
			exit(2);
		task_exit(c);
		/* the child's RCU frees run before the next fork: every fork
		 * starts from the same allocator state, so the count repeats */
		rcu_barrier();
	}
}

static void fork_count(int mode, int n)
{
	struct task_struct *p;

	if (instance_with("fork_vma_lock", mode_name[mode])) {
		fprintf(stderr, "bench_mm: instance creation failed\n");
		exit(2);
	}
	p = task_create_process("bench");
	task_attach(p);
	if (exec_mm(p))
		exit(2);
	for (int i = 0; i < nvmas; i++) {
		unsigned long a = BASE + 2UL * i * PAGE_SIZE;
		unsigned char b = 1;

		if (vm_mmap(p->mm, a, PAGE_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0) != (long)a)
			exit(2);
		if (touch && rv_mm_write(a, &b, 1))
			exit(2);
	}
	fork_count_loop(p, 1); /* warm the caches, as section 1 does */
	fork_count_loop(p, n);
	printf("fork_vma_lock=%s: %d forks of %d VMAs, %llu VMAs write-locked\n", mode_name[mode],
	       n, nvmas, (unsigned long long)stat_of("vma_write_locks"));
	task_exit(p);
	if (rv_instance_destroy())
		fprintf(stderr, "bench_mm: teardown reported leaks\n");
}

static void bench_fork(struct fork_result real)
{
	struct fork_result best[3];

	for (int m = 0; m < 3; m++) {
		best[m].fork_ns = best[m].fork_exit_ns = 1e30;
		samples[m] = calloc((size_t)nforks * nrounds, sizeof(uint64_t));
	}
	for (int r = 0; r < nrounds; r++) {
		for (int k = 0; k < 3; k++) {
			int m = (k + r) % 3; /* rotate the order between rounds */
			struct fork_result x = model_fork_round(m);

			if (x.fork_ns < best[m].fork_ns)
				best[m].fork_ns = x.fork_ns;
			if (x.fork_exit_ns < best[m].fork_exit_ns)
				best[m].fork_exit_ns = x.fork_exit_ns;
		}
	}

	double fmin[3], fmed[3];

	for (int m = 0; m < 3; m++) {
		qsort(samples[m], (size_t)nsamples[m], sizeof(uint64_t), cmp_u64);
		fmin[m] = (double)samples[m][0];
		fmed[m] = (double)samples[m][nsamples[m] / 2];
	}
	printf("\n%-28s %10s %10s %10s %13s %13s\n", "fork (single-threaded)", "min us",
	       "median us", "round us", "min vs never", "med vs never");
	for (int m = 0; m < 3; m++)
		printf("model fork_vma_lock=%-8s %10.1f %10.1f %10.1f %12.3fx %12.3fx\n",
		       mode_name[m], fmin[m] / 1e3, fmed[m] / 1e3, best[m].fork_ns / 1e3,
		       fmin[m] / fmin[2], fmed[m] / fmed[2]);
	printf("(round us: best round's mean; fork+exit per round: always %.1f, elide-single "
	       "%.1f, never %.1f us)\n",
	       best[0].fork_exit_ns / 1e3, best[1].fork_exit_ns / 1e3, best[2].fork_exit_ns / 1e3);
	printf("vma_start_write of all %d VMAs alone: %.1f us (min) = %.1f ns/VMA = %.1f%% of "
	       "never's min fork\n",
	       nvmas, (double)lock_pass_ns / 1e3, (double)lock_pass_ns / nvmas,
	       100.0 * (double)lock_pass_ns / fmin[2]);
	if (real.fork_ns > 0) {
		printf("the same lock pass relative to a host fork(): %.2f%%\n",
		       100.0 * (double)lock_pass_ns / real.fork_ns);
		printf("host fork() of %d mappings: %.1f us/fork, %.1f us/fork+exit+wait (best "
		       "round)\n",
		       nvmas, real.fork_ns / 1e3, real.fork_exit_ns / 1e3);
		printf("model(always)/host fork: %.3fx (fork), %.3fx (fork+exit)\n",
		       best[0].fork_ns / real.fork_ns, best[0].fork_exit_ns / real.fork_exit_ns);
	} else {
		printf("host fork(): measurement failed\n");
	}
}

static void bench_mm_alloc(void)
{
	static const char *const rss_name[2] = {"single", "group"};
	double mmops[2][2] = {{0}};

	for (int r = 0; r < nrounds; r++)
		for (int m = 0; m < 2; m++)
			for (int t = 1; t <= 2; t++) {
				double v = mm_round(rss_name[m], t);

				if (v > mmops[m][t - 1])
					mmops[m][t - 1] = v;
			}

	printf("\n%-28s %14s %14s\n", "mm_alloc+mmput", "1 thread/s", "2 threads/s");
	for (int m = 0; m < 2; m++)
		printf("rss_counters=%-15s %14.0f %14.0f\n", rss_name[m], mmops[m][0], mmops[m][1]);
	printf("group/single: %.3fx (1 thread), %.3fx (2 threads)\n", mmops[1][0] / mmops[0][0],
	       mmops[1][1] / mmops[0][1]);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_mm [--vmas N] [--forks F] [-r N] [--mm-iters M] [--no-touch]\n"
		   "                [-w fork|mm|pf|fr|fork-count] [-o NAME=VALUE,...] [-n N]\n"
		   "Model fork of an N-VMA process under each fork_vma_lock beside a host fork()\n"
		   "(fork), mm_alloc+mmput under each rss_counters (mm), page_fault2/3 with\n"
		   "pte_recheck 1, rfc, 0 (pf), fork-race always vs never (fr); rounds rotate\n"
		   "the configurations, best round reported.  Never pass/fail.\n"
		   "  -v, --vmas N       VMAs of the forked process, 1..100000 (default 10000)\n"
		   "  -f, --forks F      forks per round (default 20; fork-race: 10F)\n"
		   "  -r, --repeat N     rounds (default 5)\n"
		   "      --mm-iters M   mm_alloc+mmput per thread and round (default 20000)\n"
		   "      --no-touch     leave the N pages unwritten (no anon_vma, no PTEs)\n"
		   "  -w, --workload W   one section: fork, mm, pf or fr; or fork-count: no\n"
		   "                     timing, fork+exit N times in one fork_vma_lock mode\n"
		   "                     (for callgrind: bench_mm_fork_callgrind.sh)\n"
		   "  -n, --iters N      forks for fork-count (default 10)\n" BENCH_HELP_O
		   "                     (-o fork_vma_lock=M: fork-count's mode, default always;\n"
		   "                     -o pte_recheck=V: pf with this value only, for\n"
		   "                     callgrind: instructions per major fault)\n"
		   "      --passes N     pf: passes over the file per round (default "
		   "200)\n" BENCH_HELP_TAIL);
}

static void on_option(int c, const char *arg)
{
	switch (c) {
	case 'v':
		nvmas = (int)bench_opt_long("--vmas", arg, 1, 100000);
		break;
	case 'f':
		nforks = (int)bench_opt_long("--forks", arg, 1, 1000000);
		break;
	case 'M':
		mm_iters = bench_opt_long("--mm-iters", arg, 1, 1L << 40);
		break;
	case 'T':
		touch = 0;
		break;
	default: /* --passes */
		pf_iters = (int)bench_opt_long("--passes", arg, 1, 1000000);
	}
}

int main(int argc, char **argv)
{
	static const struct option extra[] = {
	    {"vmas", required_argument, NULL, 'v'},	{"forks", required_argument, NULL, 'f'},
	    {"mm-iters", required_argument, NULL, 'M'}, {"no-touch", no_argument, NULL, 'T'},
	    {"passes", required_argument, NULL, 'p'},	{NULL, 0, NULL, 0}};
	static struct bench_cli cli = {.prog = "bench_mm",
				       .usage = usage,
				       .takes = BENCH_REPEAT | BENCH_ITERS | BENCH_WORKLOAD,
				       .iters_min = 1,
				       .iters_max = 1000000,
				       .workloads = "fork,mm,pf,fr,fork-count",
				       .extra = extra,
				       .extra_short = "v:f:",
				       .on_extra = on_option};
	const char *v;

	cli.repeat = nrounds;
	cli.iters = count_iters;
	bench_parse(&cli, argc, argv);
	nrounds = cli.repeat;
	count_iters = (int)cli.iters;
	only = cli.workload;
	if ((v = bench_switch_value("pte_recheck")))
		for (int k = 0; k < 3; k++)
			if (!strcmp(v, recheck_name[k]))
				pf_only = k;
	if (only && !strcmp(only, "fork-count")) {
		/* section 6 alone: no host fork, no timing */
		v = bench_switch_value("fork_vma_lock");
		count_mode = 0;
		for (int m = 0; v && m < 3; m++)
			if (!strcmp(v, mode_name[m]))
				count_mode = m;
		fork_count(count_mode, count_iters);
		return 0;
	}

	printf("bench_mm: %d VMAs (%s), %d forks per round, best of %d rounds, %s\n", nvmas,
	       touch ? "each page written" : "untouched", nforks, nrounds, rv_rcu_describe());
	if (section("fork")) {
		/* the host fork first: liburcu's threads do not survive fork() */
		struct fork_result real = real_fork();

		bench_fork(real);
	}
	if (section("mm"))
		bench_mm_alloc();
	/* page_fault2/3: rounds rotate the order of recheck 1, rfc, 0; best of each */
	if (section("pf")) {
		static const int order[3] = {1, 2, 0}; /* 1, rfc, 0 */
		struct pf_result best_pf[2][3];

		memset(best_pf, 0, sizeof(best_pf));
		for (int r = 0; r < nrounds; r++)
			for (int sh = 0; sh < 2; sh++)
				for (int k = 0; k < 3; k++) {
					int rc = order[(k + r) % 3];
					struct pf_result x;

					if (pf_only >= 0 && rc != pf_only)
						continue;
					x = pf_round(sh, rc);
					if (x.pages_per_s > best_pf[sh][rc].pages_per_s)
						best_pf[sh][rc] = x;
				}
		printf(
		    "\npage_fault2/3: %d-page file, cache_pages=%d, %d passes, best of %d rounds\n",
		    pf_pages, pf_cache, pf_iters, nrounds);
		printf("%-28s %12s %10s %10s %10s %12s\n", "", "pages/s", "majflt", "spurious",
		       "locks", "vs 0");
		for (int sh = 0; sh < 2; sh++)
			for (int k = 0; k < 3; k++) {
				int rc = order[k];

				if (pf_only >= 0 && rc != pf_only)
					continue;
				printf("%s pte_recheck=%-3s     %12.0f %10llu %10llu %10llu",
				       sh ? "page_fault3" : "page_fault2", recheck_name[rc],
				       best_pf[sh][rc].pages_per_s,
				       (unsigned long long)best_pf[sh][rc].majflt,
				       (unsigned long long)best_pf[sh][rc].spurious,
				       (unsigned long long)best_pf[sh][rc].locked);
				if (best_pf[sh][0].pages_per_s > 0)
					printf(" %11.3fx\n", best_pf[sh][rc].pages_per_s /
								 best_pf[sh][0].pages_per_s);
				else
					printf(" %12s\n", "-");
			}
	}

	/* fork-race: always vs never */
	if (section("fr")) {
		struct fr_result fr[3];
		int modes[2] = {0, 2};

		memset(fr, 0, sizeof(fr));
		for (int r = 0; r < nrounds; r++)
			for (int k = 0; k < 2; k++) {
				int m = modes[(k + r) % 2];
				struct fr_result x = fork_race_round(m, 10 * nforks);

				if (x.forks_per_s > fr[m].forks_per_s) {
					uint64_t u = fr[m].unstable + x.unstable;

					fr[m] = x;
					fr[m].unstable = u;
				} else {
					fr[m].unstable += x.unstable;
				}
			}
		printf("\nfork-race: %d VMAs x %d pages, one thread re-mapping and faulting, "
		       "%d forks per round, best of %d rounds\n",
		       FR_VMAS, FR_PAGES, 10 * nforks, nrounds);
		for (int k = 0; k < 2; k++) {
			int m = modes[k];

			printf("fork_vma_lock=%-8s %10.1f forks/s %12.0f faults/s  "
			       "children failing mm_check %llu (all rounds)\n",
			       mode_name[m], fr[m].forks_per_s, fr[m].faults_per_s,
			       (unsigned long long)fr[m].unstable);
		}
		printf("always/never forks/s: %.3fx\n", fr[0].forks_per_s / fr[2].forks_per_s);
	}
	return 0;
}
