// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/bench/bench_fdtable.c - cost of the fd lookups (docs/history.md).
 *
 * One run measures, per fileref scheme (inc-not-zero, file-ref), on one
 * thread, ns per lookup+release pair:
 *   ref                one atomic increment + decrement of a private counter
 *   fdget_unshared     fdget/fdput, table not shared (no reference taken)
 *   fget_shared        fget/fput, table shared, __get_file_rcu inlined
 *   fget_shared_ool    the same with __get_file_rcu out of line (the 6.7
 *                      regression shape)
 *   fdget_shared       fdget/fdput, table shared (takes a reference)
 * Rounds alternate the schemes so machine noise hits them alike; the best
 * round is reported, with the ratio to `ref` of the same scheme's rounds.
 *
 * Usage (--help): bench_fdtable [--iters N] [--repeat N] [-o fileref=NAME] [--once]
 *   --once runs every loop exactly once with N iterations and no timing
 *   report beyond the iteration count: tests/bench/bench_fdtable_callgrind.sh
 *   runs it under valgrind --tool=callgrind with --toggle-collect=loop_*
 *   and divides each loop's inclusive instruction count by N.
 *
 * Each loop is a separate noinline function named loop_<phase> so that
 * callgrind can attribute instructions to it.
 */
#include "fdtable/fdtable.h"
#include "fdtable/testing.h"
#include "bench_opt.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define FD 3

enum phase { P_REF, P_FDGET_UNSHARED, P_FGET_SHARED, P_FGET_SHARED_OOL, P_FDGET_SHARED, P_NR };
static const char *const phase_name[P_NR] = {
    "ref", "fdget_unshared", "fget_shared", "fget_shared_ool", "fdget_shared",
};
static const char *const scheme_name[2] = {"inc-not-zero", "file-ref"};

static long private_counter;
static volatile uintptr_t sink;

static __noinline void loop_ref(long n)
{
	for (long i = 0; i < n; i++) {
		__atomic_fetch_add(&private_counter, 1, __ATOMIC_SEQ_CST);
		__atomic_fetch_sub(&private_counter, 1, __ATOMIC_SEQ_CST);
	}
}

static __noinline void loop_fdget_unshared(long n)
{
	for (long i = 0; i < n; i++) {
		struct fd f = fdget(FD);

		sink = (uintptr_t)f.file;
		fdput(f);
	}
}

static __noinline void loop_fget_shared(long n)
{
	for (long i = 0; i < n; i++) {
		struct file *f = fget(FD);

		sink = (uintptr_t)f;
		fput(f);
	}
}

static __noinline void loop_fget_shared_ool(long n)
{
	for (long i = 0; i < n; i++) {
		struct file *f = fget_ool(FD);

		sink = (uintptr_t)f;
		fput(f);
	}
}

static __noinline void loop_fdget_shared(long n)
{
	for (long i = 0; i < n; i++) {
		struct fd f = fdget(FD);

		sink = (uintptr_t)f.file;
		fdput(f);
	}
}

static void (*const loops[P_NR])(long) = {
    loop_ref, loop_fdget_unshared, loop_fget_shared, loop_fget_shared_ool, loop_fdget_shared,
};

static double best[2][P_NR];

static double time_loop(enum phase p, long n)
{
	uint64_t t0 = rv_now_ns();

	loops[p](n);
	return (double)(rv_now_ns() - t0) / (double)n;
}

/* One round of every phase under one scheme; fills best[] (min ns/op). */
static int run_scheme(int scheme, long iters, bool once)
{
	struct rv_switches s;
	struct task_struct *me, *thr = NULL;
	struct fd d;
	struct file *f;
	char err[128];
	int fd;

	bench_switches(&s);
	if (rv_switch_set(&s, "fileref", scheme_name[scheme], err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if (rv_instance_create(&s))
		return -1;
	me = task_create_process("bench");
	task_attach(me);
	for (fd = 0; fd <= FD; fd++) {
		f = alloc_file(NULL, NULL, O_RDWR, NULL);
		fd_install((unsigned int)get_unused_fd_flags(0), f);
	}
	d = fdget(FD);
	if (!d.file || d.flags) {
		fprintf(stderr, "bench: setup failed\n");
		return -1;
	}
	fdput(d);

	for (int p = 0; p < P_NR; p++) {
		double ns;

		if (p == P_FGET_SHARED) {
			/* a second task shares the table (it never runs) */
			thr = task_clone_thread(me);
		}
		loops[p](once ? 0 : iters / 10); /* warm up */
		ns = once ? (loops[p](iters), 0.0) : time_loop((enum phase)p, iters);
		if (best[scheme][p] == 0 || ns < best[scheme][p])
			best[scheme][p] = ns;
	}
	task_exit(thr);
	task_exit(me);
	return rv_instance_destroy();
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_fdtable [-n N] [-r N] [-o NAME=VALUE,...] [--sweep fileref=V,...]\n"
		"                     [--once]\n"
		"fd lookups on one thread, per fileref scheme: ns per lookup+release pair\n"
		"for fdget (unshared and shared table) and fget/fput (inline and out-of-line\n"
		"__get_file_rcu), and the ratio to an atomic inc+dec reference; best of N\n"
		"rounds, schemes alternating.  Reported, never pass/fail.\n"
		"  -n, --iters N      pairs per loop and round (default 20000000)\n"
		"  -r, --repeat N     rounds (default 5)\n" BENCH_HELP_O
		"                     (-o fileref=NAME: inc-not-zero or file-ref only)\n"
		"      --sweep fileref=NAME,...  these schemes (default both)\n"
		"      --once         each loop once, N pairs, no timing (for callgrind:\n"
		"                     bench_fdtable_callgrind.sh)\n" BENCH_HELP_TAIL);
}

static bool once;

static void on_option(int c, const char *arg)
{
	(void)c;
	(void)arg;
	once = true; /* --once */
}

int main(int argc, char **argv)
{
	static const struct option extra[] = {{"once", no_argument, NULL, 'O'}, {NULL, 0, NULL, 0}};
	static struct bench_cli cli = {.prog = "bench_fdtable",
				       .usage = usage,
				       .takes = BENCH_ITERS | BENCH_REPEAT | BENCH_SWEEP,
				       .compared = "fileref",
				       .extra = extra,
				       .on_extra = on_option,
				       .iters = 20 * 1000 * 1000,
				       .repeat = 5};
	long iters;
	int rounds;

	bench_parse(&cli, argc, argv);
	bench_check_values(scheme_name, 2);
	iters = cli.iters;
	rounds = cli.repeat;
	if (once)
		rounds = 1;
	rv_rcu_ensure();

	for (int r = 0; r < rounds; r++) {
		for (int s = 0; s < 2; s++) {
			if (!bench_runs(scheme_name[s]))
				continue;
			if (run_scheme(s, iters, once)) {
				fprintf(stderr, "bench_fdtable: instance failed\n");
				return 1;
			}
		}
	}
	if (once) {
		printf("iters %ld\n", iters);
		return 0;
	}

	printf("bench_fdtable: %ld iterations x %d rounds (best round), one thread\n", iters,
	       rounds);
	printf("rcu: %s\nsys_membarrier: %s\n", rv_rcu_describe(),
	       rv_rcu_has_membarrier() ? "active"
				       : "NOT active (every rcu_read_lock pays a fence)");
	printf("%-18s", "phase");
	for (int s = 0; s < 2; s++)
		if (bench_runs(scheme_name[s]))
			printf(" %14s %7s", scheme_name[s], "x ref");
	printf("\n");
	for (int p = 0; p < P_NR; p++) {
		printf("%-18s", phase_name[p]);
		for (int s = 0; s < 2; s++)
			if (bench_runs(scheme_name[s]))
				printf(" %11.2f ns %7.2f", best[s][p], best[s][p] / best[s][P_REF]);
		printf("\n");
	}
	return 0;
}
