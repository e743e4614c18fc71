// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/fuzz/fuzz.c - rcuvfs-fuzz: a seeded random-syscall driver.
 *
 *   rcuvfs-fuzz DIR SEED OPS [PROCS]
 *
 * Runs OPS random system calls in DIR (in a subdirectory per process when
 * PROCS > 1, all of them sharing DIR/shared as well), drawn from SEED: open
 * and creat with the flags the kernel accepts, read/write/pread/pwrite at
 * random and extreme offsets, truncate/ftruncate, fallocate in every mode,
 * lseek SEEK_DATA/SEEK_HOLE, mmap/msync/munmap with writes, rename and
 * renameat2 (NOREPLACE, EXCHANGE), link/unlink/symlink/readlink, mkdir/rmdir,
 * getdents, chmod/utimensat, xattrs, flock and fcntl locks (invalid
 * arguments included), random ioctls, names of 255 and 256 bytes, dup2.
 *
 * With PROCS = 1 it prints one line per call, "N name args = result", with
 * nothing that differs between two file systems that behave alike (no inode
 * numbers, no addresses, no times): the same seed on tmpfs and on a mount
 * must print the same lines (fuzz.sh compares them).  With PROCS > 1 the
 * interleaving decides the answers: only crashes, ENOTCONN and calls that
 * block are failures.  Every call runs under alarm(): a call that blocks
 * longer than 20 s kills the process with the seed and its last calls.
 * RCUVFS_FUZZ_DIFF=1 leaves out, with the same draws, what a mount answers
 * otherwise by design (docs/robustness.md): O_TMPFILE (the daemon has no
 * tmpfile operation), RENAME_WHITEOUT (no whiteouts), rcuvfs's own ioctls
 * (type 0xB7), and direction bits of random ioctls (the FUSE kernel side
 * copies the argument of a _IOR/_IOW command before the daemon sees it),
 * SEEK_END/SEEK_DATA/SEEK_HOLE on directories (the FUSE kernel side seeks a
 * directory with generic_file_llseek, tmpfs refuses them).
 * RCUVFS_FUZZ_KEEP=LIST ("3,17-40,812") makes only the calls in LIST; the
 * others are drawn and not made (nor printed).  Every call's draws come
 * before it and never depend on an answer, so the calls kept get the same
 * arguments as in the full run: minimise.sh cuts a difference down this way.
 * A call that answers ENOTCONN (the daemon is gone) ends the process at once
 * with the seed and its last calls.  Exit 0, or 1 when a call answered
 * ENOTCONN or a child did not finish.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tools/cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE	 (1 << 1)
#endif

#define NFDS	8
#define HANG_S	20
#define HISTORY 16

static uint64_t rng;
static int fds[NFDS];
static bool verbose;
static unsigned long long seed_arg;
static char history[HISTORY][160];
static unsigned long nops;
static bool racing;	      /* PROCS > 1 */
static bool diff_mode;	      /* RCUVFS_FUZZ_DIFF=1: leave out the documented differences */
static const char *keep_list; /* RCUVFS_FUZZ_KEEP: the calls made; the others only drawn */
static bool skip;	      /* this call is drawn, not made */

/* A call, or when skipped, a failure without an errno: draws come before it. */
#define SYS(call) (skip ? -1L : (long)(call))

/* Whether call n is in RCUVFS_FUZZ_KEEP ("3,17-40,812"); every call without it. */
static bool kept(unsigned long n)
{
	const char *p = keep_list;

	if (!p)
		return true;
	while (*p) {
		char *e;
		unsigned long a = strtoul(p, &e, 10), b = a;

		if (*e == '-')
			b = strtoul(e + 1, &e, 10);
		if (n >= a && n <= b)
			return true;
		p = *e ? e + 1 : e;
	}
	return false;
}

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
static unsigned pick(unsigned n)
{
	return (unsigned)(rnd() % n);
}

/* An offset: small, page-edge, or at the limits (2^63-1, 2^63-4096, negative). */
static int64_t offset(void)
{
	static const int64_t edge[] = {0,
				       1,
				       4095,
				       4096,
				       8191,
				       65536,
				       INT64_MAX,
				       INT64_MAX - 4095,
				       INT64_MAX - 4096,
				       INT64_MAX / 2,
				       -1,
				       -4096,
				       INT64_MIN};

	return pick(3) ? (int64_t)pick(5 * 4096) : edge[pick(sizeof(edge) / sizeof(edge[0]))];
}

static const char *name(char *buf)
{
	static const char *const base[] = {"f0",    "f1",     "f2",    "d0",	   "d1",
					   "d0/f0", "d0/f1",  "d1/d2", "d1/d2/f0", "l0",
					   "l1",    "nope/x", "f0/x"};
	unsigned k = pick(20);

	if (k < 13)
		return base[k];
	if (k < 15) { /* 255 or 256 bytes */
		memset(buf, 'n', 256);
		buf[k == 13 ? 255 : 256] = 0;
		return buf;
	}
	if (k == 15) { /* longer than PATH_MAX */
		for (int i = 0; i < PATH_MAX + 8; i += 2)
			buf[i] = 'a', buf[i + 1] = '/';
		buf[PATH_MAX + 8] = 0;
		return buf;
	}
	return base[pick(3)];
}

/* A name as the log shows it: long ones by their length. */
static const char *shown(const char *p, char *buf, size_t len)
{
	size_t n = strlen(p);

	if (n <= 48)
		return p;
	snprintf(buf, len, "<%zu bytes>", n);
	return buf;
}
#define SH(p) shown((p), (char[32]){0}, 32)

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(history[nops % HISTORY], sizeof(history[0]), fmt, ap);
	va_end(ap);
}

static void result(long r)
{
	int e = errno;
	char *h = history[nops % HISTORY];
	size_t n = strlen(h);

	if (r < 0)
		snprintf(h + n, sizeof(history[0]) - n, " = -%s", strerrorname_np(e) ?: "?");
	else
		snprintf(h + n, sizeof(history[0]) - n, " = %ld", r);
	if (verbose && !skip)
		printf("%lu %s\n", nops, h);
	if (r < 0 && e == ENOTCONN) {
		/* the daemon is gone: stop here, with the calls that led to it */
		fprintf(stderr, "rcuvfs-fuzz: seed %llu: call %lu answered ENOTCONN; last calls:\n",
			seed_arg, nops);
		for (unsigned long i = nops >= HISTORY ? nops - HISTORY + 1 : 0; i <= nops; i++)
			fprintf(stderr, "  %s\n", history[i % HISTORY]);
		fflush(stdout);
		_exit(1);
	}
	nops++;
}

static void on_alarm(int sig)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg),
			 "rcuvfs-fuzz: seed %llu: call %lu blocked over %d s; last calls:\n",
			 seed_arg, nops, HANG_S);

	(void)sig;
	write(2, msg, (size_t)n);
	for (unsigned long i = nops > HISTORY ? nops - HISTORY : 0; i <= nops; i++) {
		write(2, "  ", 2);
		write(2, history[i % HISTORY], strlen(history[i % HISTORY]));
		write(2, "\n", 1);
	}
	_exit(3);
}

static int slot(void)
{
	return (int)pick(NFDS);
}

static void one_op(void)
{
	char b1[PATH_MAX + 16], b2[PATH_MAX + 16], buf[8192];
	const char *p = name(b1), *q;
	int s = slot(), fd = fds[s], flags;
	int64_t off = offset();
	size_t len = pick(3) ? pick(sizeof(buf)) : 0;
	long r = 0;
	void *m;

	memset(buf, 'x', sizeof(buf));
	skip = !kept(nops);
	errno = 0;
	switch (pick(30)) {
	case 0:
	case 1: {
		static const int fl[] = {O_CREAT,     O_EXCL,	   O_TRUNC,   O_APPEND,
					 O_DIRECTORY, O_NOFOLLOW,  O_CLOEXEC, O_NONBLOCK,
					 O_SYNC,      O_DSYNC,	   O_NOATIME, O_PATH,
					 O_TMPFILE,   O_LARGEFILE, O_NOCTTY};
		flags = (int)pick(3); /* O_RDONLY, O_WRONLY, O_RDWR */
		for (int i = pick(4); i > 0; i--)
			flags |= fl[pick(sizeof(fl) / sizeof(fl[0]))];
		if ((flags & O_TMPFILE) == O_TMPFILE) {
			p = pick(2) ? "d0" : ".";
			if (diff_mode) /* the same draws, without the flag */
				flags &= ~O_TMPFILE | O_DIRECTORY;
		}
		note("open %s 0x%x", SH(p), flags);
		r = SYS(open(p, flags, 0644));
		if (r >= 0) {
			if (fd >= 0)
				close(fd);
			fds[s] = (int)r;
			r = 0; /* the number differs between runs with other fds */
		}
		break;
	}
	case 2:
		note("pwrite %d %zu %" PRId64, s, len, off);
		r = SYS(pwrite(fd, buf, len, off));
		break;
	case 3:
		note("pread %d %zu %" PRId64, s, len, off);
		r = SYS(pread(fd, buf, len, off));
		break;
	case 4:
		note("write %d %zu", s, len);
		r = SYS(write(fd, buf, len));
		break;
	case 5:
		note("read %d %zu", s, len);
		r = SYS(read(fd, buf, len));
		break;
	case 6:
		note("ftruncate %d %" PRId64, s, off);
		r = SYS(ftruncate(fd, off));
		break;
	case 7:
		note("truncate %s %" PRId64, SH(p), off);
		r = SYS(truncate(p, off));
		break;
	case 8: {
		static const int mode[] = {0,
					   FALLOC_FL_KEEP_SIZE,
					   FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					   FALLOC_FL_PUNCH_HOLE,
					   FALLOC_FL_ZERO_RANGE,
					   FALLOC_FL_COLLAPSE_RANGE,
					   FALLOC_FL_INSERT_RANGE,
					   FALLOC_FL_UNSHARE_RANGE,
					   0x100};
		int md = mode[pick(sizeof(mode) / sizeof(mode[0]))];
		int64_t l = pick(4) ? (int64_t)pick(3 * 4096) : offset();

		note("fallocate %d 0x%x %" PRId64 " %" PRId64, s, md, off, l);
		r = SYS(fallocate(fd, md, off, l));
		break;
	}
	case 9: {
		int wh = (int)pick(6);
		struct stat st;

		/* a directory: generic_file_llseek on the mount; a file whose EOF
		 * is inside the last page below 2^63: Linux's own overflow in
		 * mapping_seek_hole_data (docs/robustness.md) */
		if (diff_mode && wh > SEEK_CUR && !fstat(fd, &st) &&
		    (S_ISDIR(st.st_mode) ||
		     ((wh == SEEK_DATA || wh == SEEK_HOLE) && st.st_size > INT64_MAX - 4095)))
			wh = SEEK_SET;

		note("lseek %d %" PRId64 " %d", s, off, wh);
		r = SYS(lseek(fd, off, wh));
		break;
	}
	case 10: {
		size_t ml = 4096 * (1 + pick(3));
		int64_t mo = pick(4) ? 4096 * (int64_t)pick(4) : off;

		note("mmap %d %zu %" PRId64, s, ml, mo);
		m = skip ? MAP_FAILED : mmap(NULL, ml, PROT_READ | PROT_WRITE, MAP_SHARED, fd, mo);
		if (m == MAP_FAILED) {
			r = -1;
			break;
		}
		/* write only inside the file: past EOF is SIGBUS (and racing, a
		 * truncate by another process can put the page past EOF) */
		struct stat st;
		if (!racing && !fstat(fd, &st) && st.st_size > mo &&
		    (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR)
			((volatile char *)m)[0] = 'm';
		r = msync(m, ml, MS_SYNC);
		munmap(m, ml);
		break;
	}
	case 11:
	case 12: {
		static const unsigned rf[] = {0, RENAME_NOREPLACE, RENAME_EXCHANGE, 4,
					      RENAME_NOREPLACE | RENAME_EXCHANGE};
		unsigned f = rf[pick(5)];

		if (diff_mode && f == 4)
			f = 0;

		q = name(b2);
		note("rename %s %s %u", SH(p), SH(q), f);
		r = SYS(syscall(SYS_renameat2, AT_FDCWD, p, AT_FDCWD, q, f));
		break;
	}
	case 13:
		q = name(b2);
		note("link %s %s", SH(p), SH(q));
		r = SYS(link(p, q));
		break;
	case 14:
	case 15:
		note("unlink %s", SH(p));
		r = SYS(unlink(p));
		break;
	case 16:
		q = name(b2);
		note("symlink %s %s", SH(q), SH(p));
		r = SYS(symlink(q, p));
		break;
	case 17:
		note("readlink %s", SH(p));
		r = SYS(readlink(p, buf, sizeof(buf)));
		break;
	case 18:
		note("mkdir %s", SH(p));
		r = SYS(mkdir(p, 0755));
		break;
	case 19:
		note("rmdir %s", SH(p));
		r = SYS(rmdir(p));
		break;
	case 20: {
		DIR *d;

		note("getdents %s", SH(p));
		d = skip ? NULL : opendir(p);
		if (!d) {
			r = -1;
			break;
		}
		while (readdir(d))
			r++;
		closedir(d);
		break;
	}
	case 21: {
		mode_t md = pick(2) ? 0600 : 07777;

		note("chmod %s", SH(p));
		r = SYS(chmod(p, md));
		break;
	}
	case 22: {
		struct timespec ts[2] = {{1, pick(2) ? 0 : 2000000000L}, {0, UTIME_NOW}};

		note("utimensat %s %ld", SH(p), ts[0].tv_nsec);
		r = SYS(utimensat(AT_FDCWD, p, ts, 0));
		break;
	}
	case 23: {
		static const char *const xn[] = {"user.a", "user.b", "trusted.t", "bogus.x",
						 "user."};
		const char *x = xn[pick(5)];

		bool set = pick(2);
		int xf = set ? (int)pick(4) : 0; /* drawn in this order since the first version */
		size_t xl = set ? pick(64) : 64;

		note("xattr %d %s", s, x);
		r = SYS(set ? fsetxattr(fd, x, buf, xl, xf) : fgetxattr(fd, x, buf, xl));
		break;
	}
	case 24: {
		static const int fo[] = {LOCK_SH | LOCK_NB, LOCK_EX | LOCK_NB, LOCK_UN, 0,
					 LOCK_SH | LOCK_EX};
		int o = fo[pick(5)];

		note("flock %d %d", s, o);
		r = SYS(flock(fd, o));
		break;
	}
	case 25: {
		static const int cmd[] = {F_SETLK, F_GETLK, F_OFD_SETLK, F_OFD_GETLK};
		struct flock l = {.l_type = (short)pick(4),
				  .l_whence = (short)pick(4),
				  .l_start = offset(),
				  .l_len = pick(3) ? (int64_t)pick(100) : offset()};
		int c = cmd[pick(4)];

		note("fcntl-lock %d %d type %d whence %d %" PRId64 " %" PRId64, s, c, l.l_type,
		     l.l_whence, (int64_t)l.l_start, (int64_t)l.l_len);
		r = SYS(fcntl(fd, c, &l));
		break;
	}
	case 26: {
		unsigned long cmd =
		    pick(2) ? (unsigned long)rnd() & 0xffffffff : _IOR(0xB7, pick(4), uint64_t);
		uint64_t arg = 0;

		if (diff_mode)
			cmd = (cmd & ~(3ul << 30)) ^ (((cmd >> 8) & 0xff) == 0xB7 ? 0x100 : 0);

		note("ioctl %d 0x%lx", s, cmd);
		r = SYS(ioctl(fd, cmd, &arg));
		break;
	}
	case 27: {
		int t = slot();

		note("dup2 %d %d", s, t);
		if (fd >= 0 && fds[t] == fd) { /* dup2 onto itself: nothing to do */
			r = 0;
			break;
		}
		r = SYS(dup2(fd, fds[t] >= 0 ? fds[t] : 900 + t));
		if (r >= 0) {
			fds[t] = (int)r;
			r = 0;
		}
		break;
	}
	case 28:
		note("close %d", s);
		r = SYS(close(fd));
		for (int i = 0; !skip && i < NFDS; i++)
			if (fds[i] == fd)
				fds[i] = -1;
		break;
	default: {
		struct stat st;

		note("stat %s", SH(p));
		r = SYS(lstat(p, &st));
		if (!r)
			r = S_ISDIR(st.st_mode) ? 1 : S_ISLNK(st.st_mode) ? 2 : (long)st.st_size;
		break;
	}
	}
	result(r);
}

static int run(const char *dir, unsigned long long seed, unsigned long ops)
{
	rng = seed;
	seed_arg = seed;
	for (int i = 0; i < NFDS; i++)
		fds[i] = -1;
	if (chdir(dir)) {
		perror(dir);
		return 1;
	}
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	for (unsigned long i = 0; i < ops; i++) {
		alarm(HANG_S);
		one_op();
	}
	alarm(0);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: rcuvfs-fuzz DIR SEED OPS [PROCS]\n"
		     "OPS seeded random system calls under DIR (a mount, or tmpfs with\n"
		     "RCUVFS_FUZZ_DIFF=1 for the differential run) from PROCS processes\n"
		     "(1..64, default 1); tests/fuzz/fuzz.sh runs it.\n"
		     "  -V, --version  version and git commit\n"
		     "  -h, --help     this text\n");
}

int main(int argc, char **argv)
{
	unsigned long long seed;
	unsigned long ops;
	int procs = 1, bad = 0;

	RV_CLI_OPERANDS(argc, argv, "rcuvfs-fuzz", usage);
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: rcuvfs-fuzz DIR SEED OPS [PROCS]\n");
		return 2;
	}
	seed = strtoull(argv[2], NULL, 0);
	ops = strtoul(argv[3], NULL, 0);
	if (argc == 5)
		procs = atoi(argv[4]);
	if (procs < 1 || procs > 64) {
		fprintf(stderr, "rcuvfs-fuzz: PROCS must be 1..64\n");
		return 2;
	}
	umask(022);
	diff_mode = getenv("RCUVFS_FUZZ_DIFF") && !strcmp(getenv("RCUVFS_FUZZ_DIFF"), "1");
	keep_list = getenv("RCUVFS_FUZZ_KEEP");
	if (keep_list && !*keep_list)
		keep_list = NULL; /* set and empty: every call */
	if (keep_list && strspn(keep_list, "0123456789,-") != strlen(keep_list)) {
		fprintf(
		    stderr,
		    "rcuvfs-fuzz: RCUVFS_FUZZ_KEEP: a list of call numbers and ranges (3,17-40)\n");
		return 2;
	}
	if (procs == 1) {
		verbose = true;
		return run(argv[1], seed, ops);
	}
	racing = true;
	for (int i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			/* every process in the same directory: they race on the names */
			int rc = run(argv[1], seed + (unsigned long long)i, ops);

			_exit(rc);
		}
		if (pid < 0) {
			perror("fork");
			return 1;
		}
	}
	for (int i = 0; i < procs; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "rcuvfs-fuzz: seed %llu..%llu: a process %s %d\n", seed,
				seed + (unsigned long long)procs - 1,
				WIFSIGNALED(st) ? "died of signal" : "exited with",
				WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
			bad = 1;
		}
	}
	return bad;
}
