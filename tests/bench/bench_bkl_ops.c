// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/bench/bench_bkl_ops.c - what the `bkl_ops` switch costs on the VFS
 * paths it covers, one task, uncontended:
 *
 *   open+close  filp_open(O_RDONLY) of an existing file + fput (open and
 *               release paths)
 *   setattr     vfs_setattr(ATTR_MODE)
 *   ioctl       vfs_ioctl(RCUVFS_IOC_NOP)
 *
 * for bkl_ops=none and with the path's bits set, rounds alternating the
 * configurations; each figure is the best round (ns per operation).  The
 * `none` rows are the paths as they run with the switch off: one load of
 * the read-mostly rv_sw.bkl_ops and a predicted branch each.  Built against
 * a tree without the switch (the same file compiles there without the ioctl
 * row), they give the off-cost comparison in docs/vfs.md (bkl_ops).
 *
 * Reported, never pass/fail.  Usage (--help):
 *   bench_bkl_ops [--iters N] [--repeat N] [-o bkl_ops=CONFIG]
 * (-o bkl_ops=CONFIG, e.g. none, runs one configuration: for callgrind,
 * see tests/bench/bench_bkl_ops_callgrind.sh)
 */
#include "vfs/vfs.h"
#include "bench_opt.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static long iters = 200000;
static int rounds = 5;

static int instance(const char *ops)
{
	struct rv_switches sw;
	char err[128];

	bench_switches(&sw);
	if (rv_switch_set(&sw, "bkl_ops", ops, err, sizeof(err))) {
		fprintf(stderr, "bench_bkl_ops: %s\n", err);
		return -1;
	}
	return rv_instance_create(&sw);
}

enum { OP_OPEN, OP_SETATTR, OP_IOCTL, NR_OPS };
static const char *const op_names[NR_OPS] = {"open+close", "setattr", "ioctl"};

/* One noinline loop per path, so callgrind can count each alone. */
static __attribute__((noinline)) void loop_open(void)
{
	for (long i = 0; i < iters; i++) {
		struct file *g;

		if (filp_open("/b", O_RDONLY, 0, &g))
			exit(2);
		fput(g);
	}
}

static __attribute__((noinline)) void loop_setattr(struct inode *inode)
{
	for (long i = 0; i < iters; i++) {
		struct iattr ia = {.ia_valid = ATTR_MODE, .ia_mode = (i & 1) ? 0600 : 0644};

		vfs_setattr(inode, &ia);
	}
}

static __attribute__((noinline)) void loop_ioctl(struct file *f)
{
#ifdef RCUVFS_IOC_NOP
	for (long i = 0; i < iters; i++)
		vfs_ioctl(f, RCUVFS_IOC_NOP, 0);
#endif
}

static double run_op(int op)
{
	struct file *f = NULL;
	struct dentry *d = NULL;
	uint64_t t0, t1;

	if (filp_open("/b", O_CREAT | O_RDWR, 0644, &f) || kern_path("/b", 0, &d))
		exit(2);
	t0 = rv_now_ns();
	if (op == OP_OPEN)
		loop_open();
	else if (op == OP_SETATTR)
		loop_setattr(d->d_inode);
	else
		loop_ioctl(f);
	t1 = rv_now_ns();
	dput(d);
	fput(f);
	do_unlink("/b");
	return (double)(t1 - t0) / (double)iters;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_bkl_ops [-n N] [-r N] [-o NAME=VALUE,...] [--sweep bkl_ops=V,...]\n"
		"What the bkl_ops switch costs on the paths it covers (open+close, setattr,\n"
		"ioctl), one task, uncontended: ns per operation, best of N rounds, the\n"
		"configurations alternating.  Reported, never pass/fail.\n"
		"  -n, --iters N      operations per path and round (default 200000)\n"
		"  -r, --repeat N     rounds (default 5)\n" BENCH_HELP_O
		"                     (-o bkl_ops=CFG: that configuration only, for callgrind:\n"
		"                     bench_bkl_ops_callgrind.sh)\n"
		"      --sweep bkl_ops=CFG,...  these configurations only, among none,\n"
		"                     open+release, setattr, ioctl and all (the "
		"default)\n" BENCH_HELP_TAIL);
}

int main(int argc, char **argv)
{
	/* bits that matter per op; "none" first */
	static const char *const cfg[] = {"none", "open+release", "setattr", "ioctl", "all"};
	enum { NCFG = sizeof(cfg) / sizeof(cfg[0]) };
	static struct bench_cli cli = {.prog = "bench_bkl_ops",
				       .usage = usage,
				       .takes = BENCH_ITERS | BENCH_REPEAT | BENCH_SWEEP,
				       .compared = "bkl_ops"};
	double best[NCFG][NR_OPS];

	cli.iters = iters;
	cli.repeat = rounds;
	bench_parse(&cli, argc, argv);
	iters = cli.iters;
	rounds = cli.repeat;
	bench_check_values(cfg, NCFG);
	for (int c = 0; c < NCFG; c++)
		for (int o = 0; o < NR_OPS; o++)
			best[c][o] = 1e30;
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < NCFG; k++) {
			int c = (k + r) % NCFG; /* rotate the order */

			if (!bench_runs(cfg[c]))
				continue;
			if (instance(cfg[c]))
				return 2;
			for (int o = 0; o < NR_OPS; o++) {
				double ns = run_op(o);

				if (ns < best[c][o])
					best[c][o] = ns;
			}
			if (rv_instance_destroy())
				return 2;
		}
	}
	printf("bench_bkl_ops: %ld iterations, best of %d rounds, ns/op\n", iters, rounds);
	printf("%-14s %12s %12s %12s\n", "bkl_ops", op_names[0], op_names[1], op_names[2]);
	for (int c = 0; c < NCFG; c++)
		if (bench_runs(cfg[c]))
			printf("%-14s %12.1f %12.1f %12.1f\n", cfg[c], best[c][0], best[c][1],
			       best[c][2]);
	return 0;
}
