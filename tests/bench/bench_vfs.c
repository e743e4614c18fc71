// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/bench/bench_vfs.c - stat by path: the in-model RCU path walk beside
 * real stat() on tmpfs, in one run.
 *
 * Workloads (will-it-scale's names, docs/history.md):
 *   stat1  each task stats its own file      (no shared cache line)
 *   stat2  every task stats one shared file  (the final dentry's lockref
 *                                             is the contended line)
 * at 1 and N tasks (default 2), in-model with lockref_relax=0 and =1, the
 * in-model reference walk alone (LOOKUP_NORCU: a lockref get/put on every
 * component, relax=0), and as real stat() calls on /dev/shm (tmpfs) with
 * the same path depth.  Each
 * in-model stat is the kernel's shape: RCU walk of 4 components,
 * legitimize the final dentry with lockref_get_not_dead, getattr under the
 * inode's seqcount, dput (lockref_put_or_lock).  Configurations alternate
 * round by round (best of N rounds) so machine noise hits them alike.
 *
 * Reported: wall ns per stat per task, thread CPU ns per stat (on a shared
 * 2-CPU machine a task that waits for a CPU shows wall >> cpu; contention
 * on a cache line shows as cpu growing with tasks), total Mstat/s, the
 * N-task/1-task total ratio, lockref fallbacks (to the spinlock) and RCU-walk fallbacks per
 * million stats.  Timing never decides anything; nothing here is a test.
 *
 * Usage (--help): bench_vfs [--iters N] [--tasks T] [--repeat N]
 */
#include "vfs/vfs.h"
#include "bench_opt.h"

#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define TMPFS_MAGIC 0x01021994

RV_STAT_DECLARE(lockref_fallbacks);
RV_STAT_DECLARE(namei_rcu_fallbacks);

enum impl { IMPL_MODEL, IMPL_REAL, IMPL_MODEL_REF };

struct cfg {
	const char *workload; /* stat1 / stat2 */
	int shared;
	int tasks;
	int impl;
	int relax;
	double best_ns;		   /* per stat per task, best round */
	double cpu_ns;		   /* thread CPU time per stat in that round */
	double lockref_fb, rcu_fb; /* per million stats, from the best round */
};

static long iters = 200000;
static int ntasks = 2, rounds = 3;
static pthread_barrier_t bar;
static char real_dir[128];

struct worker {
	pthread_t tid;
	int idx;
	const struct cfg *c;
	char path[256];
	int err;
	long sink;	 /* per worker: a shared sink would be a contended line */
	uint64_t cpu_ns; /* thread CPU time of the loop */
	uint64_t t0, t1; /* wall clock around the loop, taken by the worker */
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *model_worker(void *p)
{
	struct worker *w = p;
	struct task_struct *t;
	struct kstat st;

	rv_rcu_ensure();
	t = task_create_process("bench_vfs");
	task_attach(t);
	pthread_barrier_wait(&bar);
	w->t0 = rv_now_ns();
	w->cpu_ns = thread_cpu_ns();
	for (long i = 0; i < iters; i++) {
		if (w->c->impl == IMPL_MODEL_REF) {
			/* the reference walk alone: a lockref get/put on every
			 * component, the pre-RCU-walk design */
			struct dentry *d;

			if (kern_path(w->path, LOOKUP_FOLLOW | LOOKUP_NORCU, &d)) {
				w->err = 1;
				break;
			}
			vfs_getattr(d->d_inode, &st);
			dput(d);
		} else if (vfs_stat(w->path, &st)) {
			w->err = 1;
			break;
		}
		w->sink += st.size;
	}
	w->cpu_ns = thread_cpu_ns() - w->cpu_ns;
	w->t1 = rv_now_ns();
	pthread_barrier_wait(&bar);
	task_exit(t);
	kmem_cache_flush_thread();
	return NULL;
}

static void *real_worker(void *p)
{
	struct worker *w = p;
	struct stat st;

	pthread_barrier_wait(&bar);
	w->t0 = rv_now_ns();
	w->cpu_ns = thread_cpu_ns();
	for (long i = 0; i < iters; i++) {
		if (stat(w->path, &st)) {
			w->err = 1;
			break;
		}
		w->sink += st.st_size;
	}
	w->cpu_ns = thread_cpu_ns() - w->cpu_ns;
	w->t1 = rv_now_ns();
	pthread_barrier_wait(&bar);
	return NULL;
}

/* One timed run of a configuration; wall ns per stat per task, and the
 * mean thread CPU ns per stat in *cpu. */
static double run_cfg(const struct cfg *c, double *cpu)
{
	struct worker w[c->tasks];
	uint64_t t0, t1;
	const char *base = c->impl == IMPL_REAL ? real_dir : "/dev/shm/rcuvfs-bench";

	pthread_barrier_init(&bar, NULL, (unsigned)c->tasks + 1);
	for (int i = 0; i < c->tasks; i++) {
		w[i].idx = i;
		w[i].c = c;
		w[i].err = 0;
		if (c->shared)
			snprintf(w[i].path, sizeof(w[i].path), "%s/shared", base);
		else
			snprintf(w[i].path, sizeof(w[i].path), "%s/t%d", base, i);
		if (pthread_create(&w[i].tid, NULL,
				   c->impl == IMPL_REAL ? real_worker : model_worker, &w[i])) {
			perror("pthread_create");
			exit(1);
		}
	}
	/* the workers time themselves: the main thread may be descheduled
	 * between a barrier and its clock read on a loaded machine */
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	t0 = UINT64_MAX;
	t1 = 0;
	*cpu = 0;
	for (int i = 0; i < c->tasks; i++) {
		pthread_join(w[i].tid, NULL);
		if (w[i].t0 < t0)
			t0 = w[i].t0;
		if (w[i].t1 > t1)
			t1 = w[i].t1;
		*cpu += (double)w[i].cpu_ns / (double)iters / c->tasks;
		if (w[i].err) {
			fprintf(stderr, "bench_vfs: stat of %s failed\n", w[i].path);
			exit(1);
		}
	}
	pthread_barrier_destroy(&bar);
	return (double)(t1 - t0) / (double)iters;
}

static int model_setup(void)
{
	char path[64];
	struct file *f;

	if (do_mkdir("/dev", 0755) || do_mkdir("/dev/shm", 01777) ||
	    do_mkdir("/dev/shm/rcuvfs-bench", 0755))
		return -1;
	if (filp_open("/dev/shm/rcuvfs-bench/shared", O_CREAT | O_RDWR, 0644, &f))
		return -1;
	fput(f);
	for (int i = 0; i < ntasks; i++) {
		snprintf(path, sizeof(path), "/dev/shm/rcuvfs-bench/t%d", i);
		if (filp_open(path, O_CREAT | O_RDWR, 0644, &f))
			return -1;
		fput(f);
	}
	return 0;
}

static int real_setup(void)
{
	struct statfs sfs;
	char path[192];

	if (statfs("/dev/shm", &sfs) || (unsigned long)sfs.f_type != TMPFS_MAGIC) {
		fprintf(stderr, "bench_vfs: /dev/shm is not tmpfs; real stat() rows skipped\n");
		return -1;
	}
	snprintf(real_dir, sizeof(real_dir), "/dev/shm/rcuvfs-bench.%d", (int)getpid());
	if (mkdir(real_dir, 0755))
		return -1;
	for (int i = -1; i < ntasks; i++) {
		FILE *fp;

		if (i < 0)
			snprintf(path, sizeof(path), "%s/shared", real_dir);
		else
			snprintf(path, sizeof(path), "%s/t%d", real_dir, i);
		fp = fopen(path, "w");
		if (!fp)
			return -1;
		fclose(fp);
	}
	return 0;
}

static void real_cleanup(void)
{
	char path[192];

	for (int i = -1; i < ntasks; i++) {
		if (i < 0)
			snprintf(path, sizeof(path), "%s/shared", real_dir);
		else
			snprintf(path, sizeof(path), "%s/t%d", real_dir, i);
		unlink(path);
	}
	rmdir(real_dir);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_vfs [-n N] [-t T] [-r N] [-o NAME=VALUE,...]\n"
		   "stat by path: the model's RCU path walk (lockref_relax 0 and 1, and the\n"
		   "ref-walk reference) beside real stat() on /dev/shm, stat1 and stat2, at 1\n"
		   "and T tasks, configurations alternating round by round (best of N): wall\n"
		   "and CPU ns per stat, Mstat/s, fallbacks.  Reported, never pass/fail.\n"
		   "  -n, --iters N      stats per task and round (default 200000)\n"
		   "  -t, --tasks T      the second task count, 1..64 (default 2)\n"
		   "  -r, --repeat N     rounds (default 3)\n" BENCH_HELP_O BENCH_HELP_TAIL);
}

int main(int argc, char **argv)
{
	static struct bench_cli cli = {
	    .prog = "bench_vfs", .usage = usage, .takes = BENCH_ITERS | BENCH_TASKS | BENCH_REPEAT};
	struct cfg cfgs[32];
	int n = 0, have_real;
	int task_counts[2];

	cli.iters = iters;
	cli.repeat = rounds;
	cli.tasks[0] = ntasks;
	cli.ntasks = 1;
	bench_parse(&cli, argc, argv);
	iters = cli.iters;
	rounds = cli.repeat;
	ntasks = cli.tasks[cli.ntasks - 1];
	if (ntasks > 64) {
		char t[16];

		snprintf(t, sizeof(t), "%d", ntasks);
		bench_bad("--tasks", t, "an integer in [1, 64]");
	}
	task_counts[0] = 1;
	task_counts[1] = ntasks;
	have_real = real_setup() == 0;

	for (int s = 0; s <= 1; s++) /* stat1, then stat2 */
		for (int k = 0; k < (ntasks > 1 ? 2 : 1); k++) {
			for (int relax = 0; relax <= 1; relax++)
				cfgs[n++] = (struct cfg){s ? "stat2" : "stat1",
							 s,
							 task_counts[k],
							 IMPL_MODEL,
							 relax,
							 1e30,
							 0,
							 0,
							 0};
			cfgs[n++] = (struct cfg){s ? "stat2" : "stat1",
						 s,
						 task_counts[k],
						 IMPL_MODEL_REF,
						 0,
						 1e30,
						 0,
						 0,
						 0};
			if (have_real)
				cfgs[n++] = (struct cfg){s ? "stat2" : "stat1",
							 s,
							 task_counts[k],
							 IMPL_REAL,
							 0,
							 1e30,
							 0,
							 0,
							 0};
		}

	for (int r = 0; r < rounds; r++) {
		for (int relax = 0; relax <= 1; relax++) {
			struct rv_switches sw;

			bench_switches(&sw);
			sw.lockref_relax = relax;
			if (rv_instance_create(&sw) || model_setup()) {
				fprintf(stderr, "bench_vfs: model setup failed\n");
				return 1;
			}
			for (int i = 0; i < n; i++) {
				struct cfg *c = &cfgs[i];
				uint64_t lf0, rf0;
				double ns, cpu;

				if (c->impl == IMPL_REAL || c->relax != relax)
					continue;
				lf0 = rv_stat_get(lockref_fallbacks);
				rf0 = rv_stat_get(namei_rcu_fallbacks);
				ns = run_cfg(c, &cpu);
				if (ns < c->best_ns) {
					double stats = (double)iters * c->tasks / 1e6;

					c->best_ns = ns;
					c->cpu_ns = cpu;
					c->lockref_fb =
					    (double)(rv_stat_get(lockref_fallbacks) - lf0) / stats;
					c->rcu_fb =
					    (double)(rv_stat_get(namei_rcu_fallbacks) - rf0) /
					    stats;
				}
			}
			if (rv_instance_destroy()) {
				fprintf(stderr, "bench_vfs: teardown reported leaks\n");
				return 1;
			}
		}
		for (int i = 0; i < n; i++) {
			struct cfg *c = &cfgs[i];
			double ns, cpu;

			if (c->impl != IMPL_REAL)
				continue;
			ns = run_cfg(c, &cpu);
			if (ns < c->best_ns) {
				c->best_ns = ns;
				c->cpu_ns = cpu;
			}
		}
	}
	if (have_real)
		real_cleanup();

	printf(
	    "stat by path (4 components), %ld stats per task, best of %d rounds; %ld CPUs online\n",
	    iters, rounds, sysconf(_SC_NPROCESSORS_ONLN));
	printf("RCU: %s\n", rv_rcu_describe());
	printf("%-6s %-16s %5s %12s %9s %8s %7s %13s %9s\n", "load", "impl", "tasks",
	       "ns/stat/task", "cpu_ns", "Mstat/s", "xN/x1", "lockref_fb/M", "rcu_fb/M");
	for (int s = 0; s <= 1; s++)
		for (int i = 0; i < n; i++) {
			struct cfg *c = &cfgs[i];
			char impl[32];
			double total = (double)c->tasks * 1e3 / c->best_ns;
			double scale = 0;

			if (c->shared != s)
				continue;
			/* ratio of this row's total throughput to its 1-task row */
			for (int j = 0; j < n; j++)
				if (cfgs[j].shared == s && cfgs[j].impl == c->impl &&
				    cfgs[j].relax == c->relax && cfgs[j].tasks == 1)
					scale = total / (1e3 / cfgs[j].best_ns);
			if (c->impl == IMPL_REAL)
				snprintf(impl, sizeof(impl), "tmpfs stat()");
			else if (c->impl == IMPL_MODEL_REF)
				snprintf(impl, sizeof(impl), "model ref-walk");
			else
				snprintf(impl, sizeof(impl), "model relax=%d", c->relax);
			if (c->impl == IMPL_REAL)
				printf("%-6s %-16s %5d %12.1f %9.1f %8.2f %7.2f %13s %9s\n",
				       c->workload, impl, c->tasks, c->best_ns, c->cpu_ns, total,
				       scale, "-", "-");
			else
				printf("%-6s %-16s %5d %12.1f %9.1f %8.2f %7.2f %13.1f %9.1f\n",
				       c->workload, impl, c->tasks, c->best_ns, c->cpu_ns, total,
				       scale, c->lockref_fb, c->rcu_fb);
		}
	/* model vs real, per row */
	if (have_real) {
		printf("\nmodel relax=0 / tmpfs stat() time per stat:");
		for (int i = 0; i < n; i++) {
			struct cfg *c = &cfgs[i];

			if (c->impl != IMPL_MODEL || c->relax != 0)
				continue;
			for (int j = 0; j < n; j++)
				if (cfgs[j].impl == IMPL_REAL && cfgs[j].shared == c->shared &&
				    cfgs[j].tasks == c->tasks)
					printf("  %s/%d: %.2f", c->workload, c->tasks,
					       c->best_ns / cfgs[j].best_ns);
		}
		printf("\n");
	}
	return 0;
}
