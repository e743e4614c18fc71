// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rcuvfs-tornread - the lock-checked reader/writer loop of LTP's fcntl36
 * ("OFD r/w lock vs POSIX read lock"), with the lock holders tracked in
 * shared memory so that a torn read can be told from a lock failure.
 *
 *   rcuvfs-tornread FILE [--iters N] [--duration S] [--records N]
 *                   [--writers N] [--ofd-readers N] [--posix-readers N]
 *                   [--record-size BYTES] [--seed N]
 *
 * FILE is created (truncated) with RECORDS records of RECORD_SIZE bytes
 * (default 64 x 1 KiB: four records share each 4 KiB page).  Writer
 * processes take an OFD write lock on a random record, fill it with one
 * byte value and unlock; reader processes take an OFD read lock or a
 * classic POSIX read lock on a random record, read it and check that all
 * its bytes are equal.  Every process has its own open file description.
 * Inside each locked section the process marks itself a holder of the
 * record in a shared counter: a writer meeting any other holder, or a
 * reader meeting a writer, is an overlap (the locks failed); a reader
 * whose record is not one value while no writer overlapped it is a torn
 * read, and one whose record is one value but not the one the record's last
 * writer wrote (kept in shared memory, stored before that writer unlocked)
 * a stale read: both are failures of the data path.
 *
 * The run stops after N operations in all (default 200,000) or S seconds,
 * whichever comes first.  Prints one line
 *   ops N torn N stale N overlaps N writes N reads N
 * and exits 0 only if torn, stale and overlaps are all 0 (1 otherwise, 2 on a
 * usage error).
 */
#include "tools/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared {
	atomic_long ops, torn, stale, overlaps, writes, reads;
	atomic_int stop;
	atomic_int *value;    /* per record: the byte its last writer wrote */
	atomic_int holders[]; /* per record: +1 per reader, +0x10000 per writer */
};

#define WRITER 0x10000

static struct shared *sh;
static const char *path;
static long max_ops = 200000;
static double max_secs = 0;
static int nrec = 64, recsz = 1024;
static int writers = 2, ofd_readers = 2, posix_readers = 2;
static unsigned seed = 1;

static void die(const char *what)
{
	fprintf(stderr, "rcuvfs-tornread: %s: %s\n", what, strerror(errno));
	_exit(3);
}

static int lock(int fd, int cmd, short type, int rec)
{
	struct flock fl = {
	    .l_type = type, .l_whence = SEEK_SET, .l_start = (off_t)rec * recsz, .l_len = recsz};

	while (fcntl(fd, cmd, &fl) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return 0;
}

/* kind: 0 writer, 1 OFD reader, 2 POSIX reader */
static void worker(int kind, int id)
{
	unsigned r = seed * 7919u + (unsigned)id * 104729u;
	char *buf = malloc((size_t)recsz);
	int fd = open(path, O_RDWR);
	int setlkw = kind == 2 ? F_SETLKW : F_OFD_SETLKW;
	unsigned char val = (unsigned char)(id * 37 + 1);

	if (fd < 0 || !buf)
		die("open");
	while (!atomic_load(&sh->stop)) {
		int rec = (int)(rand_r(&r) % (unsigned)nrec);
		off_t off = (off_t)rec * recsz;

		if (atomic_fetch_add(&sh->ops, 1) >= max_ops) {
			atomic_store(&sh->stop, 1);
			break;
		}
		if (kind == 0) {
			if (lock(fd, setlkw, F_WRLCK, rec))
				die("F_OFD_SETLKW F_WRLCK");
			if (atomic_fetch_add(&sh->holders[rec], WRITER) != 0)
				atomic_fetch_add(&sh->overlaps, 1);
			memset(buf, ++val, (size_t)recsz);
			if (pwrite(fd, buf, (size_t)recsz, off) != recsz)
				die("pwrite");
			atomic_store(&sh->value[rec], val);
			if (atomic_fetch_sub(&sh->holders[rec], WRITER) != WRITER)
				atomic_fetch_add(&sh->overlaps, 1);
			atomic_fetch_add(&sh->writes, 1);
		} else {
			int bad = 0, ovl = 0;

			if (lock(fd, setlkw, F_RDLCK, rec))
				die(kind == 2 ? "F_SETLKW F_RDLCK" : "F_OFD_SETLKW F_RDLCK");
			if (atomic_fetch_add(&sh->holders[rec], 1) >= WRITER)
				ovl = 1;
			if (pread(fd, buf, (size_t)recsz, off) != recsz)
				die("pread");
			for (int i = 1; i < recsz; i++)
				if (buf[i] != buf[0]) {
					if (!bad && atomic_load(&sh->torn) < 5)
						fprintf(stderr,
							"rcuvfs-tornread: torn read: record %d "
							"(offset %lld): "
							"byte 0 = %u, byte %d = %u\n",
							rec, (long long)off, (unsigned char)buf[0],
							i, (unsigned char)buf[i]);
					bad = 1;
					break;
				}
			if (atomic_fetch_sub(&sh->holders[rec], 1) >= WRITER)
				ovl = 1;
			if (!ovl && !bad && (unsigned char)buf[0] != atomic_load(&sh->value[rec])) {
				if (atomic_fetch_add(&sh->stale, 1) < 5)
					fprintf(
					    stderr,
					    "rcuvfs-tornread: stale read: record %d holds %u, its "
					    "last writer wrote %u\n",
					    rec, (unsigned char)buf[0],
					    atomic_load(&sh->value[rec]));
			}
			if (ovl)
				atomic_fetch_add(&sh->overlaps, 1);
			else if (bad)
				atomic_fetch_add(&sh->torn, 1);
			atomic_fetch_add(&sh->reads, 1);
		}
		lock(fd, kind == 2 ? F_SETLK : F_OFD_SETLK, F_UNLCK, rec);
	}
	close(fd);
	_exit(0);
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: rcuvfs-tornread FILE [-n|--iters N] [-d|--duration S] [--records N]\n"
	    "  [--writers N] [--ofd-readers N] [--posix-readers N] [--record-size BYTES] "
	    "[--seed N]\n"
	    "OFD write locks for writers, OFD and POSIX read locks for readers, on\n"
	    "records of FILE; prints ops, torn and stale reads and lock overlaps; exit 0\n"
	    "only if all are 0.\n"
	    "  -n, --iters N        operations in all (default 200000; --ops: older name)\n"
	    "  -d, --duration S     stop after S seconds, a whole number (--seconds: older name)\n"
	    "      --records N      records (default 64)\n"
	    "      --record-size B  bytes per record (default 1024)\n"
	    "      --writers N      OFD writers (default 2)\n"
	    "      --ofd-readers N  OFD readers (default 2)\n"
	    "      --posix-readers N  POSIX readers (default 2)\n"
	    "      --seed N         the random seed\n"
	    "  -V, --version        version and git commit\n"
	    "  -h, --help           this text\n");
}

static long num(const char *s, long lo, long hi)
{
	char *e;
	long v;

	errno = 0;
	v = strtol(s, &e, 10);
	if (errno || e == s || *e || v < lo || v > hi) {
		fprintf(stderr, "rcuvfs-tornread: bad number '%s' (%ld..%ld)\n", s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const char shortopts[] = "n:d:hV";
	static const struct option opts[] = {{"iters", required_argument, NULL, 'n'},
					     {"ops", required_argument, NULL, 'n'},
					     {"duration", required_argument, NULL, 'd'},
					     {"seconds", required_argument, NULL, 'd'},
					     {"records", required_argument, NULL, 'R'},
					     {"record-size", required_argument, NULL, 'S'},
					     {"writers", required_argument, NULL, 'W'},
					     {"ofd-readers", required_argument, NULL, 'O'},
					     {"posix-readers", required_argument, NULL, 'P'},
					     {"seed", required_argument, NULL, 's'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {NULL, 0, NULL, 0}};
	int nproc, i, fd, fails = 0, c;
	struct timespec t0, t1;
	char *zero;
	pid_t *pids;

	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			max_ops = num(optarg, 1, 1L << 50);
			break;
		case 'd':
			max_secs = (double)num(optarg, 1, 1000000);
			break;
		case 'R':
			nrec = (int)num(optarg, 1, 1 << 20);
			break;
		case 'S':
			recsz = (int)num(optarg, 2, 1 << 20);
			break;
		case 'W':
			writers = (int)num(optarg, 1, 256);
			break;
		case 'O':
			ofd_readers = (int)num(optarg, 0, 256);
			break;
		case 'P':
			posix_readers = (int)num(optarg, 0, 256);
			break;
		case 's':
			seed = (unsigned)num(optarg, 0, 1L << 31);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			rv_cli_version("rcuvfs-tornread");
			return 0;
		default:
			return rv_cli_bad_option("rcuvfs-tornread", shortopts, argv);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "rcuvfs-tornread: one FILE operand expected (try --help)\n");
		return 2;
	}
	path = argv[optind];

	sh = mmap(NULL, sizeof(*sh) + 2 * sizeof(atomic_int) * (size_t)nrec, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	sh->value = &sh->holders[nrec];
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	zero = calloc((size_t)nrec, (size_t)recsz);
	if (fd < 0 || !zero)
		die(path);
	if (pwrite(fd, zero, (size_t)nrec * (size_t)recsz, 0) != (ssize_t)nrec * recsz)
		die("pwrite (initial)");
	close(fd);
	free(zero);
	nproc = writers + ofd_readers + posix_readers;
	pids = calloc((size_t)nproc, sizeof(*pids));
	if (!pids)
		die("calloc");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < nproc; i++) {
		int kind = i < writers ? 0 : i < writers + ofd_readers ? 1 : 2;

		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (pids[i] == 0)
			worker(kind, i);
	}
	while (max_secs > 0 && !atomic_load(&sh->stop)) {
		usleep(20000);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if ((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9 >=
		    max_secs)
			atomic_store(&sh->stop, 1);
	}
	for (i = 0; i < nproc; i++) {
		int st;

		if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			fails++;
	}
	free(pids);
	long ops = atomic_load(&sh->ops);
	if (ops > max_ops)
		ops = max_ops;
	printf("ops %ld torn %ld stale %ld overlaps %ld writes %ld reads %ld\n", ops,
	       atomic_load(&sh->torn), atomic_load(&sh->stale), atomic_load(&sh->overlaps),
	       atomic_load(&sh->writes), atomic_load(&sh->reads));
	if (fails) {
		fprintf(stderr, "rcuvfs-tornread: %d worker(s) failed\n", fails);
		return 1;
	}
	return atomic_load(&sh->torn) || atomic_load(&sh->stale) || atomic_load(&sh->overlaps) ? 1
											       : 0;
}
