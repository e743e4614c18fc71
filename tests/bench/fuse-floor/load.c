// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/bench/fuse-floor/load.c - the loops the FUSE benchmarks time.
 *
 *   fuse-floor-load MODE PATH WORKERS SECONDS
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
	fprintf(out, "usage: fuse-floor-load fstat|stat|flock|posix PATH WORKERS SECONDS\n"
		     "WORKERS processes loop on PATH for SECONDS (a whole number): fstat of\n"
		     "an open fd, stat by path, flock LOCK_EX+LOCK_UN of PATH.K (K: the\n"
		     "worker's index, created), or F_SETLK write lock+unlock of the worker's\n"
		     "own byte of PATH; prints the total operations per second.\n"
		     "  -V, --version  version and git commit\n"
		     "  -h, --help     this text\n");
}

int main(int argc, char **argv)
{
	int go[2], res[2], workers, secs, i, status, failed = 0;
	uint64_t total = 0, n;
	pid_t pid;

	RV_CLI_OPERANDS(argc, argv, "fuse-floor-load", usage);
	if (argc != 5 || (strcmp(argv[1], "fstat") && strcmp(argv[1], "stat") &&
			  strcmp(argv[1], "flock") && strcmp(argv[1], "posix"))) {
		fprintf(stderr, "usage: %s fstat|stat|flock|posix PATH WORKERS SECONDS (--help)\n",
			argv[0]);
		return 2;
	}
	workers = atoi(argv[3]);
	secs = atoi(argv[4]);
	if (workers < 1 || secs < 1) {
		fprintf(stderr,
			"fuse-floor-load: WORKERS and SECONDS must be whole numbers >= 1\n");
		return 2;
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
			n = run_worker(argv[1], argv[2], i);
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
