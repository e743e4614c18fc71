// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/bench/bench_mm_shared_write.c - the model access fast path: one
 * task writes 64 bytes at a time (rv_mm_write, no faults: the PTE stays
 * writable) into one page of a shared file mapping and into one page of
 * an anonymous mapping, rounds alternating.  Both take the same path (a
 * translation-in-use section around the page-table walk and the copy,
 * mm/tlb.c); before the model TLB, a shared file page also paid a
 * recheck of the PTE after the copy.  Each figure is the best round in ns
 * per write.
 *
 * Reported, never pass/fail.  Usage (--help):
 *   bench_mm_shared_write [--iters N] [--repeat N] [--workload shared|anon]
 * --workload runs one kind (for callgrind: instructions per
 * write are the difference of two runs' totals divided by the difference
 * of their write counts).
 */
#include "mm/mm.h"
#include "bench_opt.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define SHARED_ADDR 0x20000000UL
#define ANON_ADDR   0x30000000UL

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double loop(unsigned long base, long n)
{
	char buf[64];
	double t0;

	memset(buf, 'w', sizeof(buf));
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (rv_mm_write(base + (unsigned long)(i & 63) * 64, buf, sizeof(buf)))
			return -1;
	return (now_ns() - t0) / (double)n;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_mm_shared_write [-n N] [-r N] [-w shared|anon] [-o NAME=VALUE,...]\n"
		"The model access fast path: 64-byte rv_mm_write()s into one page of a shared\n"
		"file mapping and of an anonymous one (no faults), rounds alternating; ns per\n"
		"write per round and the best of each.  Reported, never pass/fail.\n"
		"  -n, --iters N      writes per kind and round (default 2000000)\n"
		"  -r, --repeat N     rounds (default 5)\n"
		"  -w, --workload W   shared or anon only (for callgrind)\n" BENCH_HELP_O
		    BENCH_HELP_TAIL);
}

int main(int argc, char **argv)
{
	static struct bench_cli cli = {.prog = "bench_mm_shared_write",
				       .usage = usage,
				       .takes = BENCH_ITERS | BENCH_REPEAT | BENCH_WORKLOAD,
				       .workloads = "shared,anon",
				       .iters = 2000000,
				       .repeat = 5};
	long n;
	int rounds;
	const char *only;
	double best_sh = 1e30, best_an = 1e30;
	struct task_struct *t;
	struct file *f = NULL;
	char page[PAGE_SIZE];
	int64_t pos = 0;
	struct rv_switches sw;

	bench_parse(&cli, argc, argv);
	n = cli.iters;
	rounds = cli.repeat;
	only = cli.workload;
	bench_switches(&sw);
	if (rv_instance_create(&sw))
		return 1;
	t = task_create_process("bench");
	task_attach(t);
	if (exec_mm(t) || filp_open("/shared", O_CREAT | O_RDWR, 0644, &f))
		return 1;
	memset(page, 'a', sizeof(page));
	if (vfs_write(f, page, sizeof(page), &pos) != (ssize_t)sizeof(page))
		return 1;
	if (vm_mmap(t->mm, SHARED_ADDR, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		    f, 0) != (long)SHARED_ADDR ||
	    vm_mmap(t->mm, ANON_ADDR, PAGE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0) != (long)ANON_ADDR)
		return 1;
	/* fault both in: the loops only walk and copy */
	if (rv_mm_write(SHARED_ADDR, "x", 1) || rv_mm_write(ANON_ADDR, "x", 1))
		return 1;
	for (int r = 0; r < rounds; r++) {
		double sh = 0, an = 0;

		if (!only || !strcmp(only, "shared"))
			sh = loop(SHARED_ADDR, n);
		if (!only || !strcmp(only, "anon"))
			an = loop(ANON_ADDR, n);
		if (sh < 0 || an < 0)
			return 1;
		if (sh > 0 && sh < best_sh)
			best_sh = sh;
		if (an > 0 && an < best_an)
			best_an = an;
		printf("round %d: shared file %.1f ns/write  anon %.1f ns/write\n", r, sh, an);
	}
	if (!only)
		printf("best: shared file %.1f ns/write, anon %.1f ns/write, difference %.1f ns\n",
		       best_sh, best_an, best_sh - best_an);
	vm_munmap(t->mm, SHARED_ADDR, PAGE_SIZE);
	fput(f);
	task_exit(t);
	return rv_instance_destroy() ? 1 : 0;
}
