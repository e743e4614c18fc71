// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/stress/wis/wis-lock1.c - will-it-scale's lock1 measurement, as an
 * independent program: the reference rcuvfs-stress's lock1 is compared with
 * (tests/bench/wis-compare.sh).
 *
 *   wis-lock1 [--tasks TASKS] [--duration SECONDS] DIR   (or DIR TASKS SECONDS)
 *
 * What it shares with will-it-scale's lock1_processes (tests/lock1.c and
 * main.c of will-it-scale): TASKS forked processes; task i bound to the
 * i-th CPU this process may use (will-it-scale binds task i to core
 * i % cores; on a machine without SMT the same CPUs); each creates its own
 * file with mkstemp and unlinks it, then loops: fcntl(F_SETLKW) write lock
 * of l_start 0, l_len 1 (SEEK_SET), fcntl(F_SETLKW) unlock of the same
 * byte, add 2 to its own counter (one cache line per task, in a shared
 * mapping, read by the parent without a lock).  The parent samples the
 * counters around the measured window.  Where it differs: the file is in
 * DIR (will-it-scale's is in /tmp), the warm-up is one second (will-it-scale
 * discards its first six one-second samples) and the window is one sample of
 * SECONDS (will-it-scale averages one-second samples); neither changes what
 * an op costs.
 *
 * Prints "wis-lock1 TASKS OPS_PER_SEC OPS_PER_CPU_SEC": the rate over the
 * window, and the ops per second of the tasks' own CPU time in it (their
 * runtime from /proc/PID/schedstat, or user + system ticks from
 * /proc/PID/stat): on a shared machine the
 * second is the steadier figure, since it does not count the time a task
 * waited for a CPU.
 */
#include "tools/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
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

static void worker(const char *dir, struct slot *s, int cpu)
{
	char path[4096];
	int fd;

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("wis-lock1: sched_setaffinity");
			_exit(1);
		}
	}

	snprintf(path, sizeof(path), "%s/wis-lock1.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		perror("wis-lock1: mkstemp");
		_exit(1);
	}
	unlink(path);
	for (;;) {
		struct flock l = {
		    .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};

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

/*
 * CPU time of the processes in ns: the scheduler's runtime from
 * /proc/PID/schedstat, else user + system ticks from /proc/PID/stat
 * (-1: neither readable).
 */
static double cpu_ns(const pid_t *pids, int n)
{
	double t = 0;
	long hz = sysconf(_SC_CLK_TCK);

	for (int i = 0; i < n; i++) {
		char path[64], buf[1024], *p;
		unsigned long long ns, ut, st;
		FILE *f;
		size_t len;

		snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pids[i]);
		f = fopen(path, "r");
		if (f) {
			int ok = fscanf(f, "%llu", &ns) == 1;

			fclose(f);
			if (ok) {
				t += (double)ns;
				continue;
			}
		}
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pids[i]);
		f = fopen(path, "r");
		if (!f || hz <= 0) {
			if (f)
				fclose(f);
			return -1;
		}
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = '\0';
		/* after the command name in parentheses: state (field 3) ...
		 * utime (14), stime (15) */
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				 &ut, &st) != 2)
			return -1;
		t += (double)(ut + st) * 1e9 / hz;
	}
	return t;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: wis-lock1 [-t TASKS] [-d SECONDS] DIR\n"
		     "       wis-lock1 DIR TASKS SECONDS\n"
		     "will-it-scale's lock1 loop: TASKS processes, each on its own file in DIR,\n"
		     "pinned, for SECONDS (tests/bench/wis-compare.sh runs it).\n"
		     "  -t, --tasks N      processes (default 1)\n"
		     "  -d, --duration S   seconds, a whole number (default 1)\n"
		     "  -V, --version      version and git commit\n"
		     "  -h, --help         this text\n");
}

/* A whole number >= 1 (seconds, processes). */
static int whole(const char *opt, const char *arg)
{
	return (int)rv_cli_long("wis-lock1", opt, arg, 1, 1000000);
}

int main(int argc, char **argv)
{
	static const char shortopts[] = "t:d:hV";
	static const struct option opts[] = {{"tasks", required_argument, NULL, 't'},
					     {"duration", required_argument, NULL, 'd'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {NULL, 0, NULL, 0}};
	struct slot *slots;
	pid_t *pids;
	const char *dir;
	int n, secs, rc = 0, opt;
	uint64_t t0, t1;
	double s0, s1;
	double c0, c1;
	cpu_set_t allowed;
	int cpus[CPU_SETSIZE], ncpus = 0;

	opterr = 0;
	n = secs = 1;
	while ((opt = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			n = whole("--tasks", optarg);
			break;
		case 'd':
			secs = whole("--duration", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			rv_cli_version("wis-lock1");
			return 0;
		default:
			return rv_cli_bad_option("wis-lock1", shortopts, argv);
		}
	}
	if (argc - optind == 3) { /* DIR TASKS SECONDS */
		n = whole("TASKS", argv[optind + 1]);
		secs = whole("SECONDS", argv[optind + 2]);
	} else if (argc - optind != 1) {
		fprintf(stderr, "wis-lock1: one DIR is needed (try --help)\n");
		return RV_CLI_USAGE_ERROR;
	}
	dir = argv[optind];
	slots = mmap(NULL, n * sizeof(*slots), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	pids = calloc(n, sizeof(*pids));
	if (slots == MAP_FAILED || !pids) {
		perror("wis-lock1");
		return 2;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &allowed))
				cpus[ncpus++] = c;
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("wis-lock1: fork");
			n = i;
			rc = 1;
			goto out;
		}
		if (pids[i] == 0)
			worker(dir, &slots[i], ncpus ? cpus[i % ncpus] : -1);
	}
	sleep(1); /* warm-up, as will-it-scale's first sample */
	c0 = cpu_ns(pids, n);
	t0 = total(slots, n);
	s0 = now();
	sleep(secs);
	t1 = total(slots, n);
	s1 = now();
	c1 = cpu_ns(pids, n);
	printf("wis-lock1 %d %.0f ", n, (t1 - t0) / (s1 - s0));
	if (c0 >= 0 && c1 > c0)
		printf("%.0f\n", (t1 - t0) / ((c1 - c0) * 1e-9));
	else
		printf("-\n");
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
