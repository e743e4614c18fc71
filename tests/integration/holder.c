// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/integration/holder.c - rcuvfs-holder: a process holding a file open
 * and mapped while the test unmounts under it.
 *
 *   rcuvfs-holder FILE [map-only]
 *
 * Creates FILE (12 KiB of 'a'), maps its first 8 KiB shared and dirties
 * the first byte;
 * with map-only it then closes the descriptor and keeps only the mapping.
 * Prints "ready" and then answers commands read from stdin, one per line:
 *   check   read the mapping, write to it, msync; with a descriptor also
 *           pwrite "zz" to the unmapped third page, drop it from the page
 *           cache (POSIX_FADV_DONTNEED) and pread it back, so the file
 *           system serves that read, and fstat.  Prints "ok ..." with what
 *           it saw, or "bad STEP: errno-name" for the first failed call.
 *   close   munmap and close; prints "closed".
 * Every command runs under alarm(20): a call that blocks longer prints
 * "blocked in STEP" and exits 3.  Exit 0 after close or at end of input.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tools/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define LEN 8192 /* mapped; the file has one page more */

static const char *volatile step = "start";

static void on_alarm(int sig)
{
	char msg[64];
	int n = snprintf(msg, sizeof(msg), "blocked in %s\n", step);

	(void)sig;
	(void)!write(1, msg, (size_t)n);
	_exit(3);
}

static int bad(const char *what)
{
	printf("bad %s: %s\n", what, strerrorname_np(errno) ?: "?");
	return 1;
}

static int check(char *m, int fd)
{
	char buf[4] = {0};
	struct stat st;

	step = "mapping read";
	if (m[0] != 'M')
		return printf("bad mapping read: '%c'\n", m[0]), 1;
	step = "mapping write";
	m[1] = 'N';
	step = "msync";
	if (msync(m, LEN, MS_SYNC))
		return bad("msync");
	if (fd < 0)
		return printf("ok mapping MN, msync\n"), 0;
	step = "pwrite";
	if (pwrite(fd, "zz", 2, LEN + 100) != 2)
		return bad("pwrite");
	step = "fadvise";
	errno = posix_fadvise(fd, LEN, 4096, POSIX_FADV_DONTNEED);
	if (errno)
		return bad("fadvise");
	step = "pread";
	if (pread(fd, buf, 2, LEN + 100) != 2)
		return bad("pread");
	step = "fstat";
	if (fstat(fd, &st))
		return bad("fstat");
	printf("ok mapping MN, msync, pwrite, pread %.2s, size %lld\n", buf, (long long)st.st_size);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: rcuvfs-holder FILE [map-only]\n"
		     "Creates FILE, maps it shared and holds it open and mapped (or only\n"
		     "mapped) across an unmount, for tests/integration/lifecycle.sh.\n"
		     "  -V, --version  version and git commit\n"
		     "  -h, --help     this text\n");
}

int main(int argc, char **argv)
{
	char line[64], fill[LEN + 4096];
	bool map_only;
	char *m;
	int fd;

	RV_CLI_OPERANDS(argc, argv, "rcuvfs-holder", usage);
	map_only = argc == 3 && !strcmp(argv[2], "map-only");
	/* a FILE starting with '-' is an option given by mistake */
	if (argc < 2 || argc > 3 || (argc == 3 && !map_only) || argv[1][0] == '-') {
		fprintf(stderr, "usage: rcuvfs-holder FILE [map-only]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	alarm(20);
	memset(fill, 'a', sizeof(fill));
	fd = open(argv[1], O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0 || write(fd, fill, sizeof(fill)) != (ssize_t)sizeof(fill))
		return bad("create"), 1;
	m = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return bad("mmap"), 1;
	m[0] = 'M';
	if (map_only) {
		close(fd);
		fd = -1;
	}
	alarm(0);
	printf("ready\n");
	while (fgets(line, sizeof(line), stdin)) {
		alarm(20);
		if (!strcmp(line, "check\n")) {
			check(m, fd);
		} else if (!strcmp(line, "close\n")) {
			step = "close";
			munmap(m, LEN);
			if (fd >= 0)
				close(fd);
			printf("closed\n");
			return 0;
		} else {
			printf("bad command\n");
		}
		alarm(0);
	}
	return 0;
}
