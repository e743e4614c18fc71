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
 * Usage (--help): bench_fdtable [--iters N] [--rounds R] [--scheme NAME] [--once]
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
	static const char *const sw_inc[] = {"fileref", "inc-not-zero"};
	static const char *const sw_ref[] = {"fileref", "file-ref"};
	const char *const *sw = scheme ? sw_ref : sw_inc;
	struct rv_switches s;
	struct task_struct *me, *thr = NULL;
	struct fd d;
	struct file *f;
	char err[128];
	int fd;

	rv_switches_default(&s);
	if (rv_switch_set(&s, sw[0], sw[1], err, sizeof(err))) {
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
	fprintf(f, "usage: bench_fdtable [--iters N] [--rounds R] [--scheme NAME] [--once]\n"
		   "fd lookups on one thread, per fileref scheme: ns per lookup+release pair\n"
		   "for fdget (unshared and shared table) and fget/fput (inline and out-of-line\n"
		   "__get_file_rcu), and the ratio to an atomic inc+dec reference; best of R\n"
		   "rounds, schemes alternating.  Reported, never pass/fail.\n"
		   "  -n, --iters N      pairs per loop and round (default 20000000)\n"
		   "  -r, --rounds R     rounds (default 5)\n"
		   "  -s, --scheme NAME  inc-not-zero or file-ref only\n"
		   "      --once         each loop once, N pairs, no timing (for callgrind:\n"
		   "                     bench_fdtable_callgrind.sh)\n"
		   "  -V, --version      version and git commit\n"
		   "  -h, --help         this text\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"iters", required_argument, NULL, 'n'},
					     {"rounds", required_argument, NULL, 'r'},
					     {"scheme", required_argument, NULL, 's'},
					     {"once", no_argument, NULL, 'O'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {NULL, 0, NULL, 0}};
	long iters = 20 * 1000 * 1000;
	int rounds = 5, only = -1, c;
	bool once = false;

	bench_prog = "bench_fdtable";
	bench_argv = argv;
	opterr = 0; /* one line of ours per usage error */
	while ((c = getopt_long(argc, argv, bench_shortopts = "n:r:s:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			iters = bench_opt_long("--iters", optarg, 1, 1L << 40);
			break;
		case 'r':
			rounds = (int)bench_opt_long("--rounds", optarg, 1, 1000000);
			break;
		case 's':
			only = !strcmp(optarg, "file-ref")	 ? 1
			       : !strcmp(optarg, "inc-not-zero") ? 0
								 : -2;
			if (only == -2)
				bench_bad("--scheme", optarg, "inc-not-zero or file-ref");
			break;
		case 'O':
			once = true;
			break;
		case 'V':
			rv_cli_version(bench_prog);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			bench_usage_error(usage);
		}
	}
	bench_no_operands(argc, argv, usage);
	if (once)
		rounds = 1;
	rv_rcu_ensure();

	for (int r = 0; r < rounds; r++) {
		for (int s = 0; s < 2; s++) {
			if (only >= 0 && s != only)
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
		if (only < 0 || s == only)
			printf(" %14s %7s", scheme_name[s], "x ref");
	printf("\n");
	for (int p = 0; p < P_NR; p++) {
		printf("%-18s", phase_name[p]);
		for (int s = 0; s < 2; s++)
			if (only < 0 || s == only)
				printf(" %11.2f ns %7.2f", best[s][p], best[s][p] / best[s][P_REF]);
		printf("\n");
	}
	return 0;
}
