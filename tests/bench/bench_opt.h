/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/bench/bench_opt.h - the command line of every bench_* program, on
 * tools/cli.h's grammar, parsed in one place (bench_parse):
 *
 *   -n, --iters N        operations per loop and round
 *   -r, --repeat N       rounds; configurations alternate round by round
 *   -t, --tasks LIST     task (thread) counts, e.g. 1,2,8
 *   -d, --duration S     seconds per measured row
 *   -w, --workload NAME  one part of the program only
 *   -o NAME=VALUE,...    model switches for every instance it creates; for
 *                        the switch the program compares, that value only
 *   --sweep NAME=V1,...  the values of the compared switch to run
 *   -V, --version; -h, --help
 *
 * A program takes the shared options it names (BENCH_* bits) and its own
 * (struct option rows and a handler).  A number that is not one, or out of
 * range, an unknown option, a missing value, a bad switch or an operand is
 * one line on stderr and exit 2, never a silent 0 or a nonsense figure.
 * Header-only; no locking (used before any thread starts).
 */
#ifndef RCUVFS_TESTS_BENCH_OPT_H
#define RCUVFS_TESTS_BENCH_OPT_H

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"
#include "vfs/base/base.h"

/* The program's name, arguments and short options for messages; set by
 * bench_parse (opterr = 0: the messages are ours). */
static const char *bench_prog = "bench";
static char **bench_argv;
static const char *bench_shortopts = "";

static inline void bench_bad(const char *opt, const char *arg, const char *want)
{
	fprintf(stderr, "%s: %s: '%s' is not %s (--help shows the options)\n", bench_prog, opt, arg,
		want);
	exit(RV_CLI_USAGE_ERROR);
}

/* An integer in [min, max] from option `opt`'s argument. */
static inline long bench_opt_long(const char *opt, const char *arg, long min, long max)
{
	return rv_cli_long(bench_prog, opt, arg, min, max);
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

/* The shared options a program takes (struct bench_cli.takes). */
enum {
	BENCH_ITERS = 1 << 0,	 /* -n, --iters N */
	BENCH_REPEAT = 1 << 1,	 /* -r, --repeat N */
	BENCH_TASKS = 1 << 2,	 /* -t, --tasks LIST */
	BENCH_DURATION = 1 << 3, /* -d, --duration S */
	BENCH_WORKLOAD = 1 << 4, /* -w, --workload NAME */
	BENCH_SWEEP = 1 << 5,	 /* --sweep NAME=V1,... (cli.compared) */
};

#define BENCH_MAX_TASKS	   16
#define BENCH_MAX_VALUES   16
#define BENCH_MAX_SWITCHES 32

struct bench_cli {
	/* given by the program */
	const char *prog;
	void (*usage)(FILE *out);
	unsigned takes;		    /* BENCH_* bits; -o, -V and -h always */
	long iters_min, iters_max;  /* the range of -n (0, 0: [1, 2^40]) */
	const char *workloads;	    /* -w's values, "a,b,c" */
	const char *compared;	    /* the switch --sweep and -o NAME= select (or NULL) */
	const struct option *extra; /* the program's own options, {0}-ended */
	const char *extra_short;    /* their short letters, getopt style */
	void (*on_extra)(int c, const char *arg);
	/* defaults from the program, values from the command line */
	long iters;
	int repeat;
	int tasks[BENCH_MAX_TASKS], ntasks;
	double duration;
	const char *workload;
	/* -o's NAME=VALUE pairs, each checked with rv_switch_set */
	char *sw_name[BENCH_MAX_SWITCHES], *sw_value[BENCH_MAX_SWITCHES];
	int nsw;
	/* the compared switch's values (--sweep, or -o NAME=VALUE): */
	char *values[BENCH_MAX_VALUES];
	int nvalues;
};

/* The one instance of the command line (bench_switches reads it). */
static struct bench_cli *bench_cli;

/* Split "a,b,c" (modified in place) into at most max pieces. */
static inline int bench_split(const char *opt, char *list, char **out, int max)
{
	char *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			bench_bad(opt, tok, "within a list short enough");
		out[n++] = tok;
	}
	if (!n)
		bench_bad(opt, list, "a list");
	return n;
}

/* -o NAME=VALUE[,NAME=VALUE...]: each pair checked now, applied per instance. */
static inline void bench_add_switches(struct bench_cli *c, char *arg)
{
	char *pairs[BENCH_MAX_SWITCHES], err[160];
	int n = bench_split("-o", arg, pairs, BENCH_MAX_SWITCHES);
	struct rv_switches sw;

	rv_switches_default(&sw);
	for (int i = 0; i < n; i++) {
		char *eq = strchr(pairs[i], '=');

		if (eq)
			*eq = '\0';
		if (rv_switch_set(&sw, pairs[i], eq ? eq + 1 : NULL, err, sizeof(err))) {
			fprintf(stderr, "%s: -o: %s\n", c->prog, err);
			exit(RV_CLI_USAGE_ERROR);
		}
		if (c->nsw == BENCH_MAX_SWITCHES)
			bench_bad("-o", pairs[i], "within 32 switches");
		c->sw_name[c->nsw] = pairs[i];
		c->sw_value[c->nsw++] = eq ? eq + 1 : NULL;
		if (c->compared && !strcmp(pairs[i], c->compared)) {
			c->values[0] = eq + 1;
			c->nvalues = 1;
		}
	}
}

/* --sweep NAME=V1,V2,...: only the switch the program compares. */
static inline void bench_add_sweep(struct bench_cli *c, char *arg)
{
	char *eq = strchr(arg, '='), err[160], want[96];
	struct rv_switches sw;

	snprintf(want, sizeof(want), "%s=VALUE,... (this program compares %s)", c->compared,
		 c->compared);
	if (!eq || strncmp(arg, c->compared, (size_t)(eq - arg)) ||
	    strlen(c->compared) != (size_t)(eq - arg))
		bench_bad("--sweep", arg, want);
	c->nvalues = bench_split("--sweep", eq + 1, c->values, BENCH_MAX_VALUES);
	rv_switches_default(&sw);
	for (int i = 0; i < c->nvalues; i++)
		if (rv_switch_set(&sw, c->compared, c->values[i], err, sizeof(err))) {
			fprintf(stderr, "%s: --sweep: %s\n", c->prog, err);
			exit(RV_CLI_USAGE_ERROR);
		}
}

/*
 * Parse argv into c (defaults already in it); --help and --version exit 0,
 * a usage error exits 2.  c must outlive the program's use of it.
 */
static inline void bench_parse(struct bench_cli *c, int argc, char **argv)
{
	static const struct option shared[] = {
	    {"iters", required_argument, NULL, 'n'},	{"repeat", required_argument, NULL, 'r'},
	    {"tasks", required_argument, NULL, 't'},	{"duration", required_argument, NULL, 'd'},
	    {"workload", required_argument, NULL, 'w'}, {"sweep", required_argument, NULL, 1},
	};
	static const unsigned bit[] = {BENCH_ITERS,    BENCH_REPEAT,   BENCH_TASKS,
				       BENCH_DURATION, BENCH_WORKLOAD, BENCH_SWEEP};
	static const char letter[] = "nrtdw";
	struct option opts[64];
	static char shortopts[64];
	size_t no = 0, ns = 0;
	int opt;

	bench_prog = c->prog;
	bench_argv = argv;
	bench_cli = c;
	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		if (!(c->takes & bit[i]))
			continue;
		opts[no++] = shared[i];
		if (i < sizeof(letter) - 1) {
			shortopts[ns++] = letter[i];
			shortopts[ns++] = ':';
		}
	}
	opts[no++] = (struct option){"help", no_argument, NULL, 'h'};
	opts[no++] = (struct option){"version", no_argument, NULL, 'V'};
	for (const struct option *e = c->extra; e && e->name; e++)
		opts[no++] = *e;
	opts[no] = (struct option){NULL, 0, NULL, 0};
	snprintf(shortopts + ns, sizeof(shortopts) - ns, "o:hV%s",
		 c->extra_short ? c->extra_short : "");
	bench_shortopts = shortopts;
	if (!c->iters_max) {
		c->iters_min = 1;
		c->iters_max = 1L << 40;
	}
	opterr = 0; /* one line of ours per usage error */
	while ((opt = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			c->iters = bench_opt_long("--iters", optarg, c->iters_min, c->iters_max);
			break;
		case 'r':
			c->repeat = (int)bench_opt_long("--repeat", optarg, 1, 1000000);
			break;
		case 't': {
			char *t[BENCH_MAX_TASKS];

			c->ntasks = bench_split("--tasks", optarg, t, BENCH_MAX_TASKS);
			for (int i = 0; i < c->ntasks; i++)
				c->tasks[i] = (int)bench_opt_long("--tasks", t[i], 1, 1024);
			break;
		}
		case 'd':
			c->duration = bench_opt_secs("--duration", optarg, 3600);
			break;
		case 'w': {
			const char *w = c->workloads;
			size_t len = strlen(optarg);
			char want[160];

			while (w && (strncmp(w, optarg, len) || (w[len] && w[len] != ','))) {
				w = strchr(w, ',');
				w = w ? w + 1 : NULL;
			}
			snprintf(want, sizeof(want), "one of %s", c->workloads);
			if (!w || !len)
				bench_bad("--workload", optarg, want);
			c->workload = optarg;
			break;
		}
		case 1:
			bench_add_sweep(c, optarg);
			break;
		case 'o':
			bench_add_switches(c, optarg);
			break;
		case 'V':
			rv_cli_version(c->prog);
			exit(0);
		case 'h':
			c->usage(stdout);
			exit(0);
		case '?':
		case ':':
			exit(rv_cli_bad_option(c->prog, shortopts, argv));
		default:
			c->on_extra(opt, optarg);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (try --help)\n", c->prog,
			argv[optind]);
		exit(RV_CLI_USAGE_ERROR);
	}
}

/* The default switches with -o's on top: every instance the program creates. */
static inline void bench_switches(struct rv_switches *sw)
{
	char err[160];

	rv_switches_default(sw);
	for (int i = 0; bench_cli && i < bench_cli->nsw; i++)
		if (rv_switch_set(sw, bench_cli->sw_name[i], bench_cli->sw_value[i], err,
				  sizeof(err))) {
			fprintf(stderr, "%s: %s\n", bench_prog, err); /* checked at parse time */
			exit(RV_CLI_USAGE_ERROR);
		}
}

/* The value -o gave switch `name` (the last one), or NULL. */
static inline const char *bench_switch_value(const char *name)
{
	const char *v = NULL;

	for (int i = 0; bench_cli && i < bench_cli->nsw; i++)
		if (!strcmp(bench_cli->sw_name[i], name))
			v = bench_cli->sw_value[i];
	return v;
}

/* Whether value v of the compared switch is to run (all when none was chosen). */
static inline bool bench_runs(const char *v)
{
	if (!bench_cli || !bench_cli->nvalues)
		return true;
	for (int i = 0; i < bench_cli->nvalues; i++)
		if (!strcmp(bench_cli->values[i], v))
			return true;
	return false;
}

/* Every value chosen for the compared switch is one the program runs. */
static inline void bench_check_values(const char *const *known, int n)
{
	char want[160] = "";

	for (int i = 0; i < n; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s", i ? ", " : "",
			 known[i]);
	for (int i = 0; bench_cli && i < bench_cli->nvalues; i++) {
		int k = 0;

		while (k < n && strcmp(known[k], bench_cli->values[i]))
			k++;
		if (k == n)
			bench_bad(bench_cli->compared, bench_cli->values[i], want);
	}
}

/* The shared options' help lines, for the programs' usage texts. */
#define BENCH_HELP_O                                                                               \
	"  -o NAME=VALUE,...  model switches for every instance (rcuvfs-stress --help\n"           \
	"                     lists them)\n"
#define BENCH_HELP_TAIL                                                                            \
	"  -V, --version      version and git commit\n"                                            \
	"  -h, --help         this text\n"

#endif
