/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/bench/bench_opt.h - option parsing shared by the bench_* programs:
 * a number that is not one, or out of range, is a usage error (exit 2)
 * naming the option, never a silent 0 or a nonsense figure.  Header-only;
 * no locking (used before any thread starts).
 */
#ifndef RCUVFS_TESTS_BENCH_OPT_H
#define RCUVFS_TESTS_BENCH_OPT_H

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/cli.h"

/* The program's name, arguments and short options for messages; set by
 * the program before and as it parses (opterr = 0: the messages are ours). */
static const char *bench_prog = "bench";
static char **bench_argv;
static const char *bench_shortopts = "";

static inline void bench_bad(const char *opt, const char *arg, const char *want)
{
	fprintf(stderr, "%s: %s: '%s' is not %s (--help shows the options)\n", bench_prog, opt, arg,
		want);
	exit(2);
}

/* An integer in [min, max] from option `opt`'s argument. */
static inline long bench_opt_long(const char *opt, const char *arg, long min, long max)
{
	char *end, want[96];
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		snprintf(want, sizeof(want), "an integer in [%ld, %ld]", min, max);
		bench_bad(opt, arg, want);
	}
	return v;
}

/* A number of seconds in (0, max]. */
static inline double bench_opt_secs(const char *opt, const char *arg, double max)
{
	char *end, want[96];
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v <= 0 || v > max) {
		snprintf(want, sizeof(want), "a number of seconds in (0, %g]", max);
		bench_bad(opt, arg, want);
	}
	return v;
}

/* getopt_long's answer for an unknown option or a missing value: one
 * line naming it, exit 2 (tools/cli.h's grammar). */
static inline void bench_usage_error(void (*usage)(FILE *))
{
	(void)usage;
	exit(rv_cli_bad_option(bench_prog, bench_shortopts, bench_argv));
}

/* After getopt_long: the bench programs take no operands. */
static inline void bench_no_operands(int argc, char **argv, void (*usage)(FILE *))
{
	(void)usage;
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (try --help)\n", bench_prog,
			argv[optind]);
		exit(RV_CLI_USAGE_ERROR);
	}
}

#endif
