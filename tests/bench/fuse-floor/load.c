// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/bench/fuse-floor/load.c - the loops the FUSE benchmarks time.
 *
 *   fuse-floor-load -w MODE [-t WORKERS] [-d SECONDS] PATH
 *   (or, the older form, fuse-floor-load MODE PATH WORKERS SECONDS)
 *
 * MODE is fstat (fstat of one open fd: GETATTR with a handle-less inode),
 * stat (stat by path: LOOKUP + GETATTR with timeouts 0), flock (LOCK_EX +
 * LOCK_UN on a private fd) or posix (F_SETLK write lock + unlock of byte 0).
 * WORKERS processes (fork, like will-it-scale's process mode) start together
 * after a barrier, loop on PATH for SECONDS and the total operations per
 * second is printed as one number.  Lock modes lock per-worker byte ranges /
 * files so that workers do not block each other: they measure the request
 * path, not contention.
 *
 * Locking: none; each worker writes its count to its own pipe.
 */
#include "tools/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	perror(what);
	_exit(2);
}

static uint64_t run_worker(const char *mode, const char *path, int idx)
{
	char wpath[4096];
	struct flock fl;
	struct stat st;
	uint64_t n = 0;
	int fd;

	if (!strcmp(mode, "flock")) {
		/* one file per worker: flock has no ranges */
		snprintf(wpath, sizeof(wpath), "%s.%d", path, idx);
		fd = open(wpath, O_RDWR | O_CREAT, 0644);
	} else {
		fd = open(path, O_RDWR);
	}
	if (fd < 0)
		die("open");
	while (!stop) {
		if (!strcmp(mode, "fstat")) {
			if (fstat(fd, &st))
				die("fstat");
		} else if (!strcmp(mode, "stat")) {
			if (stat(path, &st))
				die("stat");
		} else if (!strcmp(mode, "flock")) {
			if (flock(fd, LOCK_EX) || flock(fd, LOCK_UN))
				die("flock");
		} else if (!strcmp(mode, "posix")) {
			memset(&fl, 0, sizeof(fl));
			fl.l_type = F_WRLCK;
			fl.l_whence = SEEK_SET;
			fl.l_start = idx;
			fl.l_len = 1;
			if (fcntl(fd, F_SETLK, &fl))
				die("F_SETLK");
			fl.l_type = F_UNLCK;
			if (fcntl(fd, F_SETLK, &fl))
				die("F_SETLK unlock");
		} else {
			fprintf(stderr, "unknown mode %s\n", mode);
			_exit(2);
		}
		n++;
	}
	close(fd);
	return n;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fuse-floor-load -w fstat|stat|flock|posix [-t WORKERS] [-d SECONDS] PATH\n"
		"       fuse-floor-load fstat|stat|flock|posix PATH WORKERS SECONDS\n"
		"WORKERS processes loop on PATH for SECONDS (a whole number): fstat of\n"
		"an open fd, stat by path, flock LOCK_EX+LOCK_UN of PATH.K (K: the\n"
		"worker's index, created), or F_SETLK write lock+unlock of the worker's\n"
		"own byte of PATH; prints the total operations per second.\n"
		"  -w, --workload W   the loop: fstat, stat, flock or posix\n"
		"  -t, --tasks N      worker processes (default 1)\n"
		"  -d, --duration S   seconds, a whole number (default 1)\n"
		"  -V, --version      version and git commit\n"
		"  -h, --help         this text\n");
}

/* A whole number >= 1 (seconds, processes). */
static int whole(const char *opt, const char *arg)
{
	return (int)rv_cli_long("fuse-floor-load", opt, arg, 1, 1000000);
}

int main(int argc, char **argv)
{
	static const char shortopts[] = "w:t:d:hV";
	static const struct option opts[] = {
	    {"workload", required_argument, NULL, 'w'}, {"tasks", required_argument, NULL, 't'},
	    {"duration", required_argument, NULL, 'd'}, {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},	{NULL, 0, NULL, 0}};
	int go[2], res[2], workers = 1, secs = 1, i, status, failed = 0, opt;
	const char *mode = NULL, *path;
	uint64_t total = 0, n;
	pid_t pid;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		switch (opt) {
		case 'w':
			mode = optarg;
			break;
		case 't':
			workers = whole("--tasks", optarg);
			break;
		case 'd':
			secs = whole("--duration", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			rv_cli_version("fuse-floor-load");
			return 0;
		default:
			return rv_cli_bad_option("fuse-floor-load", shortopts, argv);
		}
	}
	if (!mode && argc - optind == 4) { /* MODE PATH WORKERS SECONDS */
		mode = argv[optind];
		path = argv[optind + 1];
		workers = whole("WORKERS", argv[optind + 2]);
		secs = whole("SECONDS", argv[optind + 3]);
	} else if (mode && argc - optind == 1) {
		path = argv[optind];
	} else {
		fprintf(stderr, "fuse-floor-load: -w MODE and one PATH are needed (try --help)\n");
		return RV_CLI_USAGE_ERROR;
	}
	if (strcmp(mode, "fstat") && strcmp(mode, "stat") && strcmp(mode, "flock") &&
	    strcmp(mode, "posix")) {
		fprintf(stderr,
			"fuse-floor-load: --workload: '%s' is not fstat, stat, flock or posix\n",
			mode);
		return RV_CLI_USAGE_ERROR;
	}
	if (pipe(go) || pipe(res))
		die("pipe");
	for (i = 0; i < workers; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			char c;

			close(go[1]);
			signal(SIGALRM, on_alarm);
			if (read(go[0], &c, 1) != 0) /* EOF is the start signal */
				_exit(2);
			alarm(secs);
			n = run_worker(mode, path, i);
			if (write(res[1], &n, sizeof(n)) != sizeof(n))
				_exit(2);
			_exit(0);
		}
	}
	close(go[0]);
	close(res[1]);
	close(go[1]); /* EOF releases every worker at once: the barrier */
	for (i = 0; i < workers; i++) {
		if (read(res[0], &n, sizeof(n)) != sizeof(n)) {
			failed = 1;
			break;
		}
		total += n;
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	if (failed)
		return 1;
	/* every worker ran exactly `secs` seconds from the barrier */
	printf("%.0f\n", (double)total / secs);
	return 0;
}
