// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/stress/wis/wis-lock1.c - will-it-scale's lock1 measurement, as an
 * independent program: the reference rcuvfs-stress's lock1 is compared with
 * (tests/bench/wis-compare.sh).
 *
 *   wis-lock1 DIR TASKS SECONDS
 *
 * Like will-it-scale's lock1 in process mode: TASKS processes, each with its
 * own unlinked file in DIR, loop write-lock + unlock of byte 0 with
 * F_SETLKW and add 2 to their counter per pair; the parent reads the
 * counters once a second (after a one-second warm-up, as will-it-scale's
 * runner discards its first sample) and prints the mean ops/s over SECONDS
 * samples: "wis-lock1 TASKS OPS_PER_SEC".
 *
 * Counters live in a shared anonymous mapping, one cache line per task,
 * written only by their task (relaxed stores) and read by the parent.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct slot {
	uint64_t ops;
} __attribute__((aligned(64)));

static void worker(const char *dir, struct slot *s)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/wis-lock1.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		perror("wis-lock1: mkstemp");
		_exit(1);
	}
	unlink(path);
	for (;;) {
		struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};

		if (fcntl(fd, F_SETLKW, &l))
			_exit(1);
		l.l_type = F_UNLCK;
		if (fcntl(fd, F_SETLKW, &l))
			_exit(1);
		__atomic_store_n(&s->ops, s->ops + 2, __ATOMIC_RELAXED);
	}
}

static uint64_t total(const struct slot *s, int n)
{
	uint64_t t = 0;

	for (int i = 0; i < n; i++)
		t += __atomic_load_n(&s[i].ops, __ATOMIC_RELAXED);
	return t;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct slot *slots;
	pid_t *pids;
	int n, secs, rc = 0;
	uint64_t t0, t1;
	double s0, s1;

	if (argc != 4 || (n = atoi(argv[2])) < 1 || (secs = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: wis-lock1 DIR TASKS SECONDS\n");
		return 2;
	}
	slots = mmap(NULL, n * sizeof(*slots), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	pids = calloc(n, sizeof(*pids));
	if (slots == MAP_FAILED || !pids) {
		perror("wis-lock1");
		return 2;
	}
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("wis-lock1: fork");
			n = i;
			rc = 1;
			goto out;
		}
		if (pids[i] == 0)
			worker(argv[1], &slots[i]);
	}
	sleep(1); /* warm-up, as will-it-scale's first sample */
	t0 = total(slots, n);
	s0 = now();
	sleep(secs);
	t1 = total(slots, n);
	s1 = now();
	printf("wis-lock1 %d %.0f\n", n, (t1 - t0) / (s1 - s0));
out:
	for (int i = 0; i < n; i++) {
		int st;

		kill(pids[i], SIGKILL);
		waitpid(pids[i], &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st))
			rc = 1; /* a worker's fcntl failed */
	}
	free(pids);
	return rc;
}
