/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tools/cli.h - the command-line grammar every rcuvfs program shares.
 *
 *   -h, --help          usage on stdout, exit 0
 *   -V, --version       "PROGRAM VERSION (git COMMIT)" on stdout, exit 0
 *   -o NAME=VALUE,...   model switches, where a program has them
 *   --sweep NAME=V1,..  one run per value of a switch, where it has runs
 *   -t, --tasks LIST    -d, --duration S    -r, --repeat N
 *   --json FILE         --csv FILE          -q, --quiet
 *   a usage error: one line on stderr naming what was wrong, exit 2
 *
 * Programs parse with getopt_long with opterr = 0 and hand '?' (and ':')
 * to rv_cli_bad_option, so the message is theirs and one line long; a
 * program of operands only calls RV_CLI_OPERANDS first.
 *
 * Locking: none (start-up, single-threaded).
 */
#ifndef RCUVFS_TOOLS_CLI_H
#define RCUVFS_TOOLS_CLI_H

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcuvfs_git.h"

#define RV_CLI_USAGE_ERROR 2

static inline void rv_cli_fversion(FILE *f, const char *prog)
{
	fprintf(f, "%s %s (git %s)\n", prog, RCUVFS_VERSION, RCUVFS_GIT_COMMIT);
}

static inline void rv_cli_version(const char *prog)
{
	rv_cli_fversion(stdout, prog);
}

/*
 * After getopt_long returned '?' or ':' (opterr = 0; shortopts is the
 * string given to it): one line naming what was wrong, and the exit status
 * 2 for main to return.
 */
static inline int rv_cli_bad_option(const char *prog, const char *shortopts, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	const char *o = optopt ? strchr(shortopts, optopt) : NULL;

	if (!optopt)
		fprintf(stderr, "%s: unknown option '%s' (try --help)\n", prog, arg);
	else if (!strncmp(arg, "--", 2))
		fprintf(stderr, "%s: option '%s' needs a value (try --help)\n", prog, arg);
	else if (o && o[1] == ':')
		fprintf(stderr, "%s: option '-%c' needs a value (try --help)\n", prog, optopt);
	else
		fprintf(stderr, "%s: unknown option '-%c' (try --help)\n", prog, optopt);
	return RV_CLI_USAGE_ERROR;
}

/* An integer in [min, max] from option opt's argument, or one line and exit 2. */
static inline long rv_cli_long(const char *prog, const char *opt, const char *arg, long min,
			       long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		fprintf(stderr, "%s: %s: '%s' is not an integer in [%ld, %ld] (try --help)\n", prog,
			opt, arg, min, max);
		exit(RV_CLI_USAGE_ERROR);
	}
	return v;
}

/*
 * For a program whose first argument is a mode word (rcuvfs-fddiff model
 * ...), with at most the one option keep (e.g. "-k") before it: -h/--help
 * and -V/--version alone, and one line with exit 2 for any other option
 * there.  Returns only when the program goes on parsing.
 */
static inline void rv_cli_mode_first(int argc, char **argv, const char *prog,
				     void (*usage)(FILE *out), const char *keep)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		exit(0);
	}
	if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		rv_cli_version(prog);
		exit(0);
	}
	if (argc > 1 && argv[1][0] == '-' && (!keep || strcmp(argv[1], keep))) {
		fprintf(stderr, "%s: unknown option '%s' (try --help)\n", prog, argv[1]);
		exit(RV_CLI_USAGE_ERROR);
	}
}

/*
 * For a program whose command line is operands only (test helpers such as
 * rcuvfs-holder FILE): -h/--help prints usage(stdout) and exits 0,
 * -V/--version the version line, any other option before the operands is
 * one line and exit 2; "--" or the first operand ends the options, so an
 * operand may start with '-' after "--".  Returns the index in argv of the
 * first operand.
 */
static inline int rv_cli_operands(int argc, char **argv, const char *prog, void (*usage)(FILE *out))
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {NULL, 0, NULL, 0}};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == 'V') {
			rv_cli_version(prog);
			exit(0);
		}
		exit(rv_cli_bad_option(prog, "+hV", argv));
	}
	return optind;
}

/*
 * The same, with argv and argc moved past the options: argv[0] is still
 * the program's name and argv[1] its first operand.
 */
#define RV_CLI_OPERANDS(argc, argv, prog, usage)                                                   \
	do {                                                                                       \
		int rv_cli_first_ = rv_cli_operands((argc), (argv), (prog), (usage));              \
		(argv)[rv_cli_first_ - 1] = (argv)[0];                                             \
		(argv) += rv_cli_first_ - 1;                                                       \
		(argc) -= rv_cli_first_ - 1;                                                       \
	} while (0)

#endif /* RCUVFS_TOOLS_CLI_H */
