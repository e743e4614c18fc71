// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/bench/fuse-lockloop.c - a fixed number of lock/unlock pairs (or
 * stat calls) on one file, for instruction counts of the daemon side
 * (tests/bench/fuse-locks-callgrind.sh and fuse-nodeid-callgrind.sh compile
 * and run it).
 *
 *   fuse-lockloop flock|posix|ofd|fstat|stat FILE N
 *
 * flock: LOCK_EX + LOCK_UN; posix: F_SETLK write lock + unlock of byte 0;
 * ofd: the same with F_OFD_SETLK; fstat: fstat of the open file (a
 * GETATTR with attr_timeout=0); stat: stat of FILE's path (a LOOKUP and a
 * GETATTR with the default timeouts of 0).
 *
 * Locking: single-threaded.
 */
#define _GNU_SOURCE /* F_OFD_SETLK */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct flock fl;
	long n, i;
	int fd;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("usage: fuse-lockloop flock|posix|ofd|fstat|stat FILE N\n"
		       "N lock+unlock pairs on FILE: flock LOCK_EX+LOCK_UN, F_SETLK write\n"
		       "lock+unlock of byte 0 (posix), or the same with F_OFD_SETLK (ofd);\n"
		       "or N fstat calls on it (fstat) or stat calls of its path (stat);\n"
		       "exit 1 if one fails.\n");
		return 0;
	}
	if (argc != 4 ||
	    (strcmp(argv[1], "flock") && strcmp(argv[1], "posix") && strcmp(argv[1], "ofd") &&
	     strcmp(argv[1], "fstat") && strcmp(argv[1], "stat")) ||
	    (n = atol(argv[3])) < 1) {
		fprintf(stderr,
			"usage: fuse-lockloop flock|posix|ofd|fstat|stat FILE N (--help)\n");
		return 2;
	}
	fd = open(argv[2], O_RDWR);
	if (fd < 0) {
		perror("open");
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct stat st;

		if (!strcmp(argv[1], "fstat")) {
			if (fstat(fd, &st))
				return 1;
		} else if (!strcmp(argv[1], "stat")) {
			if (stat(argv[2], &st))
				return 1;
		} else if (!strcmp(argv[1], "flock")) {
			if (flock(fd, LOCK_EX) || flock(fd, LOCK_UN))
				return 1;
		} else {
			int cmd = !strcmp(argv[1], "ofd") ? F_OFD_SETLK : F_SETLK;

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
