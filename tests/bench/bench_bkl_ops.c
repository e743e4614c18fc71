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
 *   bench_bkl_ops [--iters N] [--rounds R] [--only CONFIG]
 * (--only, e.g. none, runs one configuration: for callgrind, see
 * tests/bench/bench_bkl_ops_callgrind.sh)
 */
#include "vfs/vfs.h"
#include "bench_opt.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static long iters = 200000;
static int rounds = 5;
static const char *only;

static int instance(const char *ops)
{
	struct rv_switches sw;
	char err[128];

	rv_switches_default(&sw);
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
	fprintf(f, "usage: bench_bkl_ops [--iters N] [--rounds R] [--only CONFIG]\n"
		   "What the bkl_ops switch costs on the paths it covers (open+close, setattr,\n"
		   "ioctl), one task, uncontended: ns per operation, best of R rounds, the\n"
		   "configurations alternating.  Reported, never pass/fail.\n"
		   "  -n, --iters N    operations per path and round (default 200000)\n"
		   "  -r, --rounds R   rounds (default 5)\n"
		   "  -o, --only CFG   one configuration: none, open+release, setattr, ioctl\n"
		   "                   or all (for callgrind: bench_bkl_ops_callgrind.sh)\n"
		   "  -V, --version    version and git commit\n"
		   "  -h, --help       this text\n");
}

int main(int argc, char **argv)
{
	/* bits that matter per op; "none" first */
	static const char *const cfg[] = {"none", "open+release", "setattr", "ioctl", "all"};
	enum { NCFG = sizeof(cfg) / sizeof(cfg[0]) };
	static const struct option opts[] = {
	    {"iters", required_argument, NULL, 'n'}, {"rounds", required_argument, NULL, 'r'},
	    {"only", required_argument, NULL, 'o'},  {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},     {NULL, 0, NULL, 0}};
	double best[NCFG][NR_OPS];
	int opt;

	bench_prog = "bench_bkl_ops";
	bench_argv = argv;
	opterr = 0; /* one line of ours per usage error */
	while ((opt = getopt_long(argc, argv, bench_shortopts = "n:r:o:hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			iters = bench_opt_long("--iters", optarg, 1, 1L << 40);
			break;
		case 'r':
			rounds = (int)bench_opt_long("--rounds", optarg, 1, 1000000);
			break;
		case 'o':
			only = optarg;
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
	if (only) {
		int k = 0;

		while (k < NCFG && strcmp(only, cfg[k]))
			k++;
		if (k == NCFG)
			bench_bad("--only", only, "none, open+release, setattr, ioctl or all");
	}
	for (int c = 0; c < NCFG; c++)
		for (int o = 0; o < NR_OPS; o++)
			best[c][o] = 1e30;
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < NCFG; k++) {
			int c = (k + r) % NCFG; /* rotate the order */

			if (only && strcmp(only, cfg[c]))
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
		if (!only || !strcmp(only, cfg[c]))
			printf("%-14s %12.1f %12.1f %12.1f\n", cfg[c], best[c][0], best[c][1],
			       best[c][2]);
	return 0;
}
