// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/bench/fuse-lockloop.c - a fixed number of lock/unlock pairs (or
 * stat calls) on one file, for instruction counts of the daemon side
 * (built into build/tests; tests/bench/fuse-locks-callgrind.sh and
 * fuse-nodeid-callgrind.sh run it).
 *
 *   fuse-lockloop -w flock|posix|ofd|fstat|stat -n N FILE
 *   (or, the older form, fuse-lockloop KIND FILE N)
 *
 * flock: LOCK_EX + LOCK_UN; posix: F_SETLK write lock + unlock of byte 0;
 * ofd: the same with F_OFD_SETLK; fstat: fstat of the open file (a
 * GETATTR with attr_timeout=0); stat: stat of FILE's path (a LOOKUP and a
 * GETATTR with the default timeouts of 0).
 *
 * Locking: single-threaded.
 */
/* F_OFD_SETLK: _GNU_SOURCE, which the build defines */
#include "tools/cli.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: fuse-lockloop -w flock|posix|ofd|fstat|stat -n N FILE\n"
		     "N lock+unlock pairs on FILE: flock LOCK_EX+LOCK_UN, F_SETLK write\n"
		     "lock+unlock of byte 0 (posix), or the same with F_OFD_SETLK (ofd);\n"
		     "or N fstat calls on it (fstat) or stat calls of its path (stat);\n"
		     "exit 1 if one fails.\n"
		     "  -w, --workload W  flock, posix, ofd, fstat or stat\n"
		     "  -n, --iters N     lock+unlock pairs\n"
		     "  -V, --version     version and git commit\n"
		     "  -h, --help        this text\n");
}

int main(int argc, char **argv)
{
	static const char shortopts[] = "w:n:hV";
	static const struct option opts[] = {{"workload", required_argument, NULL, 'w'},
					     {"iters", required_argument, NULL, 'n'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {NULL, 0, NULL, 0}};
	const char *kind = NULL;
	struct flock fl;
	long n = 0, i;
	char *end;
	const char *file;
	int fd, c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			kind = optarg;
			break;
		case 'n':
			n = strtol(optarg, &end, 10);
			if (*end || n < 1) {
				fprintf(stderr,
					"fuse-lockloop: --iters: '%s' is not a positive "
					"number\n",
					optarg);
				return RV_CLI_USAGE_ERROR;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			rv_cli_version("fuse-lockloop");
			return 0;
		default:
			return rv_cli_bad_option("fuse-lockloop", shortopts, argv);
		}
	}
	if (!kind && argc - optind == 3) { /* KIND FILE N */
		kind = argv[optind];
		file = argv[optind + 1];
		n = strtol(argv[optind + 2], &end, 10);
		if (*end || n < 1) {
			fprintf(stderr, "fuse-lockloop: N: '%s' is not a positive number\n",
				argv[optind + 2]);
			return RV_CLI_USAGE_ERROR;
		}
	} else if (kind && n && argc - optind == 1) {
		file = argv[optind];
	} else {
		fprintf(stderr,
			"fuse-lockloop: -w KIND, -n N and one FILE are needed (try --help)\n");
		return RV_CLI_USAGE_ERROR;
	}
	if (strcmp(kind, "flock") && strcmp(kind, "posix") && strcmp(kind, "ofd") &&
	    strcmp(kind, "fstat") && strcmp(kind, "stat")) {
		fprintf(stderr,
			"fuse-lockloop: --workload: '%s' is not flock, posix, ofd, fstat or stat\n",
			kind);
		return RV_CLI_USAGE_ERROR;
	}
	fd = open(file, O_RDWR);
	if (fd < 0) {
		perror("open");
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct stat st;

		if (!strcmp(kind, "fstat")) {
			if (fstat(fd, &st))
				return 1;
		} else if (!strcmp(kind, "stat")) {
			if (stat(file, &st))
				return 1;
		} else if (!strcmp(kind, "flock")) {
			if (flock(fd, LOCK_EX) || flock(fd, LOCK_UN))
				return 1;
		} else {
			int cmd = !strcmp(kind, "ofd") ? F_OFD_SETLK : F_SETLK;

			memset(&fl, 0, sizeof(fl));
			fl.l_type = F_WRLCK;
			fl.l_whence = SEEK_SET;
			fl.l_len = 1;
			if (fcntl(fd, cmd, &fl))
				return 1;
			fl.l_type = F_UNLCK;
			if (fcntl(fd, cmd, &fl))
				return 1;
		}
	}
	close(fd);
	return 0;
}
