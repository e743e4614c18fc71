// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/integration/fddiff.c - differential test of fd tables and open
 * files: the same seeded script run step by step by real processes and
 * threads on this machine (files in a scratch directory on a tmpfs) and by
 * model processes and threads in-process (fdtable/, vfs/), each printing one
 * canonical line per step; the transcripts must be identical.
 *
 *   fddiff model DIR SEEDS STEPS SW...   host (DIR, on a tmpfs) vs the model
 *                                        under each switch set SW (as
 *                                        "fileref=file-ref"; "" for the
 *                                        defaults)
 *   fddiff print host DIR SEED STEPS     one transcript, for reading
 *   fddiff print model SW SEED STEPS
 *   -k N (first): print up to N differences per comparison, not just one
 *
 * SEEDS is N or A-B.  Exit status 0: identical; 1: a difference (seed,
 * step, both lines and a command that reproduces it are printed); 2: the
 * run itself failed or a bad option.
 *
 * The script.  Up to NPROC processes of NTHR threads each; process 0 lives
 * from the start, the others are created by fork steps and end by exit
 * steps.  Every process runs with RLIMIT_NOFILE = NOFILE (the model:
 * files_set_nofile), so EMFILE is frequent.  Steps: open and openat (every
 * access mode including 3, O_CLOEXEC, O_APPEND, O_TRUNC, O_PATH,
 * O_DIRECTORY, O_EXCL, O_NOFOLLOW, O_CREAT, O_NONBLOCK; a directory fd or a
 * bad one as dirfd), close, dup, dup2, dup3, fcntl (F_DUPFD and
 * F_DUPFD_CLOEXEC at and past the limit, F_DUPFD_QUERY, F_GETFD, F_SETFD,
 * F_GETFL, F_SETFL, an unknown command), close_range (CLOSE_RANGE_CLOEXEC,
 * CLOSE_RANGE_UNSHARE, both, a bad flag), lseek (SEEK_SET, SEEK_CUR,
 * SEEK_END, SEEK_DATA, SEEK_HOLE, a bad whence; offsets at the limits),
 * read, write, pread, pwrite (every mode, O_PATH, directories, offsets and
 * counts at the limits), fork (the child gets a copy of the acting
 * thread's table and shares its open file descriptions), exit, exec, and
 * truncate and unlink of the script's files.  The generator depends only on
 * the seed, never on results: fd numbers are drawn, not remembered.
 *
 * The canonical line: step, acting thread, the call, its result (value or
 * errno; bytes read), then the acting thread's table: for each open fd
 * below NOFILE, the file (by name: f0 f1 d d/g l n x, or "unlinked"),
 * "cx" when close-on-exec, F_GETFL decoded, the offset (lseek(fd, 0,
 * SEEK_CUR); its errno when that fails, as for O_PATH), and the open file
 * description as the first (process, thread, fd) in script order that
 * refers to it ("=p0.t0:3", printed when that is not the fd itself).  The host
 * finds that with kcmp(KCMP_FILE) against every live thread; the model by
 * comparing struct file pointers.  Nothing is normalised (docs/fdtable.md).
 *
 * Execution on the host.  The driver forks process 0 from a clean state
 * (every fd closed, RLIMIT_NOFILE set); each script thread waits on its own
 * mailbox (process-shared semaphores in a MAP_SHARED file, so that no fd of
 * the tool is in the tables the script acts on) and answers there.  fork is
 * a real fork() of the acting thread; the child starts thread 1 again.
 * exec is a real execve() of this binary ("--exec-child"): the kernel kills
 * the other thread, unshares and closes the close-on-exec fds; the new image
 * maps the mailboxes again and starts thread 1.  So that the dynamic loader
 * of the new image finds free fds, the soft limit is raised by EXEC_SLACK
 * for the execve and set back in the new image before it answers.  Waits
 * are made in slices (sem_wait_sliced: lost wake-ups were seen).
 *
 * Execution in the model.  One host thread (the driver) attaches to the
 * acting model task for each step; the model's system-call layer below does
 * what Linux's does around the model's entry points (argument checks in the
 * kernel's order, fdget/fdget_pos, force_o_largefile).  exec is
 * begin_new_exec's files part: the other thread exits (de_thread), the
 * table is unshared, do_close_on_exec runs; then thread 1 is cloned again.
 *
 * Locking: the driver runs one step at a time; a host script thread acts
 * only between the post of its mailbox and its answer; in the model only
 * the driver thread touches model objects.
 */
#include "fdtable/fdtable.h"
#include "tools/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/kcmp.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NPROC	   3
#define NTHR	   2
#define NOFILE	   10 /* RLIMIT_NOFILE of every script process */
#define EXEC_SLACK 16 /* fds the new image's loader may use during exec */
#define MAXIO	   48 /* largest read/write count */
#define WAIT_S	   60 /* a script thread answers within this */
#define LINE	   2048

#ifndef O_LARGEFILE_KERNEL
#define O_LARGEFILE_KERNEL 0100000 /* x86-64's; glibc's O_LARGEFILE is 0 there */
#endif

/* ---- the script ---------------------------------------------------------- */

enum op {
	OP_HELLO,
	OP_OPEN,  /* openat(dirfd, name, flags, 0644) */
	OP_CLOSE, /* close(fd) */
	OP_DUP,	  /* dup(fd) */
	OP_DUP2,  /* dup2(fd, fd2) */
	OP_DUP3,  /* dup3(fd, fd2, flags) */
	OP_FCNTL, /* fcntl(fd, cmd, arg) */
	OP_CLOSE_RANGE,
	OP_LSEEK,  /* lseek(fd, off, whence) */
	OP_READ,   /* read(fd, buf, count) */
	OP_WRITE,  /* write(fd, buf, count) */
	OP_PREAD,  /* pread(fd, buf, count, off) */
	OP_PWRITE, /* pwrite(fd, buf, count, off) */
	OP_FORK,   /* fork() into process slot q */
	OP_EXIT,   /* the process exits */
	OP_EXEC,   /* execve() */
	OP_TRUNC,  /* truncate(name, off) */
	OP_UNLINK, /* unlink(name) */
	OP_QUIT,   /* internal: the thread ends (exit and teardown) */
};

/* The script's names; AT_FDCWD opens use the whole path, dirfd opens rel[]. */
enum { N_F0, N_F1, N_D, N_G, N_L, N_N, N_X, NNAMES };
static const char *const names[NNAMES] = {"f0", "f1", "d", "d/g", "l", "n", "x"};
#define NSUMNAMES NNAMES
enum { R_G, R_NX, R_EMPTY, R_UP, NREL };
static const char *const rel[NREL] = {"g", "nx", "", "../f1"};

struct cmd {
	int op;
	int fd, fd2; /* fd numbers as drawn (unsigned in the kernel) */
	int dirfd;   /* OP_OPEN: AT_FDCWD or an fd */
	int name;    /* names[] (AT_FDCWD) or rel[] (a dirfd) */
	int flags;   /* open, dup3, close_range flags */
	int cmd;     /* fcntl command */
	int64_t arg; /* fcntl argument */
	int64_t off; /* lseek, pread, pwrite, truncate */
	int whence;  /* lseek */
	int count;   /* read/write */
	int q;	     /* OP_FORK: the child's process slot */
	int stepno;  /* write data and exec argv */
};

struct fdent {
	int fd;
	int file;    /* names[] index, -1: unlinked or unknown */
	int cloexec; /* F_GETFD */
	int fl;	     /* F_GETFL */
	int64_t off; /* lseek(fd, 0, SEEK_CUR); -errno when it fails */
	int lp, lt, lfd;
};

struct reply {
	int64_t ret; /* >= 0, or -errno */
	int ndata;
	unsigned char data[MAXIO];
	int nfds;
	struct fdent fds[NOFILE];
	char err[160]; /* the run failed here (host thread problems) */
};

struct step {
	int p, t;
	struct cmd c;
};

static uint64_t rng;
static uint64_t rnd(void)
{
	/* splitmix64: the script depends on the seed only */
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
static int rn(int n)
{
	return (int)(rnd() % (uint64_t)n);
}

static int gen_fd(void)
{
	static const int far[] = {NOFILE, NOFILE + 1, 1000000, INT_MAX, -1, -2};
	int r = rn(100);

	if (r < 60)
		return rn(6); /* lowest-free allocation packs them here */
	if (r < 92)
		return rn(NOFILE);
	return far[rn((int)(sizeof(far) / sizeof(far[0])))];
}

static int64_t gen_off(void)
{
	int r = rn(100);

	if (r < 45)
		return rn(40);
	if (r < 65)
		return 4096 * (int64_t)rn(6) + rn(20) - 10;
	if (r < 75)
		return -rn(10) - 1;
	if (r < 83)
		return INT64_MAX - rn(40);
	if (r < 88)
		return INT64_MIN + rn(3);
	if (r < 94)
		return (int64_t)1 << 40;
	return ((int64_t)1 << 62) + rn(3);
}

static int gen_open_flags(void)
{
	static const int acc[] = {O_RDONLY, O_WRONLY, O_RDWR, O_RDWR, O_RDONLY, 3};
	int f = acc[rn(6)];

	if (rn(100) < 30)
		f |= O_CLOEXEC;
	if (rn(100) < 20)
		f |= O_APPEND;
	if (rn(100) < 15)
		f |= O_TRUNC;
	if (rn(100) < 12)
		f |= O_PATH;
	if (rn(100) < 10)
		f |= O_DIRECTORY;
	if (rn(100) < 30)
		f |= O_CREAT;
	if (rn(100) < 12)
		f |= O_EXCL;
	if (rn(100) < 15)
		f |= O_NOFOLLOW;
	if (rn(100) < 8)
		f |= O_NONBLOCK;
	return f;
}

static int gen_setfl(void)
{
	static const int bits[] = {O_APPEND, O_NONBLOCK, O_DIRECT, O_NOATIME, O_ASYNC,
				   O_RDWR,   O_WRONLY,	 O_TRUNC,  O_CREAT,   O_DSYNC};
	int f = 0;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (rn(100) < (i < 2 ? 40 : 12))
			f |= bits[i];
	return f;
}

static void gen_fcntl(struct cmd *c)
{
	int r = rn(100);

	c->op = OP_FCNTL;
	if (r < 30) {
		static const int64_t far[] = {-1, ((int64_t)1 << 32) + 2, INT_MAX, NOFILE,
					      NOFILE - 1};

		c->cmd = r < 15 ? F_DUPFD : F_DUPFD_CLOEXEC;
		c->arg = rn(100) < 80 ? rn(NOFILE + 2) : far[rn(5)];
	} else if (r < 40) {
		c->cmd = F_GETFD;
	} else if (r < 55) {
		static const int64_t v[] = {0, FD_CLOEXEC, 2, 3, -1, ((int64_t)1 << 32)};

		c->cmd = F_SETFD;
		c->arg = v[rn(6)];
	} else if (r < 65) {
		c->cmd = F_GETFL;
	} else if (r < 88) {
		c->cmd = F_SETFL;
		c->arg = gen_setfl();
	} else if (r < 96) {
		c->cmd = F_DUPFD_QUERY;
		c->arg = gen_fd();
	} else {
		c->cmd = 9999; /* unknown */
	}
}

/*
 * The script for `seed`: `nsteps` steps, process 0 alive at the start.
 * Process liveness is the generator's only state (fork and exit cannot
 * fail in either run).
 */
static int gen_script(uint64_t seed, int nsteps, struct step *st)
{
	bool live[NPROC] = {true};
	int nlive = 1;

	rng = seed * 0x2545f4914f6cdd1dull + 1;
	for (int i = 0; i < nsteps; i++) {
		struct step *x = &st[i];
		struct cmd *c = &x->c;
		int r = rn(1000);

		memset(x, 0, sizeof(*x));
		do
			x->p = rn(NPROC);
		while (!live[x->p]);
		x->t = rn(NTHR);
		c->stepno = i;
		c->fd = gen_fd();
		if (r < 190) {
			c->op = OP_OPEN;
			c->flags = gen_open_flags();
			if (rn(100) < 80) {
				static const int w[] = {N_F0, N_F0, N_F0, N_F1, N_F1, N_D, N_G,
							N_L,  N_L,  N_N,  N_N,	N_N,  N_X};

				c->dirfd = AT_FDCWD;
				c->name = w[rn((int)(sizeof(w) / sizeof(w[0])))];
			} else {
				c->dirfd = gen_fd();
				c->name = rn(NREL);
			}
		} else if (r < 270) {
			c->op = OP_CLOSE;
		} else if (r < 300) {
			c->op = OP_DUP;
		} else if (r < 340) {
			c->op = OP_DUP2;
			c->fd2 = rn(100) < 15 ? c->fd : gen_fd();
		} else if (r < 370) {
			static const int fl[] = {0,	    0,		O_CLOEXEC,
						 O_CLOEXEC, O_NONBLOCK, O_CLOEXEC | 1};

			c->op = OP_DUP3;
			c->fd2 = rn(100) < 10 ? c->fd : gen_fd();
			c->flags = fl[rn(6)];
		} else if (r < 500) {
			gen_fcntl(c);
		} else if (r < 530) {
			static const int fl[] = {0,
						 0,
						 CLOSE_RANGE_CLOEXEC,
						 CLOSE_RANGE_CLOEXEC,
						 CLOSE_RANGE_UNSHARE,
						 CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC,
						 1,
						 8};
			int k = rn(4);

			c->op = OP_CLOSE_RANGE;
			c->fd2 = k == 0	  ? c->fd + rn(4)
				 : k == 1 ? NOFILE - 1
				 : k == 2 ? -1
					  : c->fd - 1;
			c->flags = fl[rn(8)];
		} else if (r < 620) {
			static const int wh[] = {SEEK_SET,  SEEK_SET,  SEEK_CUR,  SEEK_END,
						 SEEK_DATA, SEEK_DATA, SEEK_HOLE, SEEK_HOLE,
						 5,	    -1};

			c->op = OP_LSEEK;
			c->whence = wh[rn(10)];
			c->off = gen_off();
		} else if (r < 820) {
			static const int ops[] = {OP_READ, OP_WRITE, OP_PREAD, OP_PWRITE};

			c->op = ops[rn(4)];
			c->count = rn(100) < 10 ? 0 : 1 + rn(MAXIO);
			c->off = gen_off();
		} else if (r < 850) {
			int q = rn(NPROC);

			c->op = OP_FORK;
			if (live[q]) {
				c->op = OP_DUP; /* no free process slot drawn */
				continue;
			}
			c->q = q;
			live[q] = true;
			nlive++;
		} else if (r < 865) {
			c->op = OP_EXIT;
			if (nlive < 2) {
				c->op = OP_CLOSE;
				continue;
			}
			live[x->p] = false;
			nlive--;
		} else if (r < 890) {
			c->op = OP_EXEC;
		} else if (r < 960) {
			static const int w[] = {N_F0, N_F0, N_F1, N_F1, N_N, N_D, N_X};

			c->op = OP_TRUNC;
			c->name = w[rn(7)];
			c->off = rn(100) < 70 ? rn(30) : gen_off();
		} else {
			c->op = OP_UNLINK;
			c->name = rn(100) < 85 ? N_N : N_X;
		}
	}
	return nsteps;
}

/* ---- canonical text -------------------------------------------------------- */

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
#define E(x)                                                                                       \
	case x:                                                                                    \
		return #x
		E(EBADF);
		E(EINVAL);
		E(EMFILE);
		E(ENOENT);
		E(EEXIST);
		E(EISDIR);
		E(ENOTDIR);
		E(ELOOP);
		E(ENXIO);
		E(EFBIG);
		E(EPERM);
		E(EACCES);
		E(ESPIPE);
		E(EOVERFLOW);
		E(ENOMEM);
		E(EBUSY);
		E(ENOSYS);
		E(EFAULT);
		E(ETXTBSY);
		E(EAGAIN);
#undef E
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

/* Open flags and F_GETFL values: access mode, then named bits, rest in hex. */
static void fmt_oflags(char *out, size_t len, int f)
{
	static const struct {
		int bit;
		const char *name;
	} b[] = {
	    {O_CREAT, "CREAT"},		{O_EXCL, "EXCL"},
	    {O_NOCTTY, "NOCTTY"},	{O_TRUNC, "TRUNC"},
	    {O_APPEND, "APPEND"},	{O_NONBLOCK, "NONBLOCK"},
	    {O_DSYNC, "DSYNC"},		{O_ASYNC, "ASYNC"},
	    {O_DIRECT, "DIRECT"},	{O_LARGEFILE_KERNEL, "LARGEFILE"},
	    {O_DIRECTORY, "DIRECTORY"}, {O_NOFOLLOW, "NOFOLLOW"},
	    {O_NOATIME, "NOATIME"},	{O_CLOEXEC, "CLOEXEC"},
	    {O_PATH, "PATH"},
	};
	static const char *const acc[] = {"RDONLY", "WRONLY", "RDWR", "ACC3"};
	size_t n = (size_t)snprintf(out, len, "%s", acc[f & O_ACCMODE]);

	f &= ~O_ACCMODE;
	for (size_t i = 0; i < sizeof(b) / sizeof(b[0]) && n < len; i++)
		if ((f & b[i].bit) == b[i].bit && b[i].bit) {
			n += (size_t)snprintf(out + n, len - n, "|%s", b[i].name);
			f &= ~b[i].bit;
		}
	if (f && n < len)
		snprintf(out + n, len - n, "|0x%x", (unsigned)f);
}

static const char *fcntl_name(int cmd)
{
	switch (cmd) {
	case F_DUPFD:
		return "F_DUPFD";
	case F_DUPFD_CLOEXEC:
		return "F_DUPFD_CLOEXEC";
	case F_DUPFD_QUERY:
		return "F_DUPFD_QUERY";
	case F_GETFD:
		return "F_GETFD";
	case F_SETFD:
		return "F_SETFD";
	case F_GETFL:
		return "F_GETFL";
	case F_SETFL:
		return "F_SETFL";
	}
	return "F_UNKNOWN";
}

static const char *whence_name(int w)
{
	static const char *const n[] = {"SEEK_SET", "SEEK_CUR", "SEEK_END", "SEEK_DATA",
					"SEEK_HOLE"};

	return w >= 0 && w <= 4 ? n[w] : "WHENCE?";
}

static void fmt_cmd(char *out, size_t len, const struct step *s)
{
	const struct cmd *c = &s->c;
	char fl[160];
	int n = snprintf(out, len, "%d p%d.t%d ", c->stepno, s->p, s->t);

	out += n;
	len -= (size_t)n;
	switch (c->op) {
	case OP_OPEN:
		fmt_oflags(fl, sizeof(fl), c->flags);
		if (c->dirfd == AT_FDCWD)
			snprintf(out, len, "open(%s, %s)", names[c->name], fl);
		else
			snprintf(out, len, "openat(%d, \"%s\", %s)", c->dirfd, rel[c->name], fl);
		break;
	case OP_CLOSE:
		snprintf(out, len, "close(%d)", c->fd);
		break;
	case OP_DUP:
		snprintf(out, len, "dup(%d)", c->fd);
		break;
	case OP_DUP2:
		snprintf(out, len, "dup2(%d, %d)", c->fd, c->fd2);
		break;
	case OP_DUP3:
		snprintf(out, len, "dup3(%d, %d, 0x%x)", c->fd, c->fd2, (unsigned)c->flags);
		break;
	case OP_FCNTL:
		if (c->cmd == F_SETFL) {
			fmt_oflags(fl, sizeof(fl), (int)c->arg);
			snprintf(out, len, "fcntl(%d, F_SETFL, %s)", c->fd, fl);
		} else {
			snprintf(out, len, "fcntl(%d, %s, %lld)", c->fd, fcntl_name(c->cmd),
				 (long long)c->arg);
		}
		break;
	case OP_CLOSE_RANGE:
		snprintf(out, len, "close_range(%u, %u, 0x%x)", (unsigned)c->fd, (unsigned)c->fd2,
			 (unsigned)c->flags);
		break;
	case OP_LSEEK:
		snprintf(out, len, "lseek(%d, %lld, %s)", c->fd, (long long)c->off,
			 whence_name(c->whence));
		break;
	case OP_READ:
		snprintf(out, len, "read(%d, %d)", c->fd, c->count);
		break;
	case OP_WRITE:
		snprintf(out, len, "write(%d, %d)", c->fd, c->count);
		break;
	case OP_PREAD:
		snprintf(out, len, "pread(%d, %d, %lld)", c->fd, c->count, (long long)c->off);
		break;
	case OP_PWRITE:
		snprintf(out, len, "pwrite(%d, %d, %lld)", c->fd, c->count, (long long)c->off);
		break;
	case OP_FORK:
		snprintf(out, len, "fork() -> p%d", c->q);
		break;
	case OP_EXIT:
		snprintf(out, len, "exit()");
		break;
	case OP_EXEC:
		snprintf(out, len, "execve()");
		break;
	case OP_TRUNC:
		snprintf(out, len, "truncate(%s, %lld)", names[c->name], (long long)c->off);
		break;
	case OP_UNLINK:
		snprintf(out, len, "unlink(%s)", names[c->name]);
		break;
	default:
		snprintf(out, len, "op%d", c->op);
		break;
	}
}

static void fmt_reply(char *out, size_t len, const struct step *s, const struct reply *r)
{
	size_t n;

	if (r->ret < 0 && r->ret >= -4095)
		n = (size_t)snprintf(out, len, " = -%s", errname((int)-r->ret));
	else if (s->c.op == OP_FORK || s->c.op == OP_EXEC || s->c.op == OP_EXIT)
		n = (size_t)snprintf(out, len, " = ok");
	else
		n = (size_t)snprintf(out, len, " = %lld", (long long)r->ret);
	if (r->ndata && n < len) {
		n += (size_t)snprintf(out + n, len - n, " \"");
		for (int i = 0; i < r->ndata && n + 3 < len; i++)
			n += (size_t)snprintf(
			    out + n, len - n, "%c",
			    r->data[i] ? (r->data[i] >= 32 && r->data[i] < 127 ? r->data[i] : '?')
				       : '.');
		n += (size_t)snprintf(out + n, len - n, "\"");
	}
	if (s->c.op == OP_EXIT)
		return; /* the acting process is gone */
	n += (size_t)snprintf(out + n, len - n, " |");
	if (!r->nfds && n < len)
		n += (size_t)snprintf(out + n, len - n, " empty");
	for (int i = 0; i < r->nfds && n < len; i++) {
		const struct fdent *e = &r->fds[i];
		char fl[160], off[32];

		fmt_oflags(fl, sizeof(fl), e->fl);
		if (e->off < 0)
			snprintf(off, sizeof(off), "-%s", errname((int)-e->off));
		else
			snprintf(off, sizeof(off), "%lld", (long long)e->off);
		n += (size_t)snprintf(out + n, len - n, " %d:%s%s %s @%s", e->fd,
				      e->file >= 0 ? names[e->file] : "unlinked",
				      e->cloexec ? " cx" : "", fl, off);
		if (e->lp != s->p || e->lt != s->t || e->lfd != e->fd)
			n += (size_t)snprintf(out + n, len - n, " =p%d.t%d:%d", e->lp, e->lt,
					      e->lfd);
		if (n < len)
			n += (size_t)snprintf(out + n, len - n, ";");
	}
}

/* The bytes a write of step `stepno` writes (the content tells which step). */
static void write_data(unsigned char *buf, int count, int stepno)
{
	for (int i = 0; i < count; i++)
		buf[i] = (unsigned char)('A' + (stepno + i) % 26);
	if (count)
		buf[0] = (unsigned char)('a' + stepno % 26);
}

/* ---- host: real processes and threads ------------------------------------------ */

struct mbox {
	sem_t req, rep;
	struct cmd c;
	struct reply r;
};

struct ctl {
	struct mbox mb[NPROC][NTHR];
	pid_t tid[NPROC][NTHR]; /* the script's threads (kcmp targets) */
	bool live[NPROC];	/* the driver's view, read by summaries */
	char dir[4096];
	char exe[4096];
	char err[256];	 /* a host process's own failure */
	long lost_wakes; /* atomic: waits that found their semaphore posted */
};

static struct ctl *ctl;
static char host_path[NNAMES][4200];
static char ctl_path[4200];

static int neg(long r)
{
	return r < 0 ? -errno : (int)r;
}

static void host_fail(const char *fmt, ...)
{
	va_list ap;

	if (ctl->err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(ctl->err, sizeof(ctl->err), fmt, ap);
	va_end(ap);
}

static int kcmp_file(pid_t a, pid_t b, int fa, int fb)
{
	return (int)syscall(SYS_kcmp, a, b, KCMP_FILE, fa, fb);
}

/* Which script name the inode is (lstat, so that l is the link itself). */
static int host_file_of(int fd)
{
	struct stat st, sn;

	if (fstat(fd, &st))
		return -1;
	for (int i = 0; i < NSUMNAMES; i++)
		if (!lstat(host_path[i], &sn) && sn.st_ino == st.st_ino && sn.st_dev == st.st_dev)
			return i;
	return -1;
}

/* The acting thread's table, canonical (see the top comment). */
static void host_summary(int p, int t, struct reply *r)
{
	pid_t me = (pid_t)syscall(SYS_gettid);

	r->nfds = 0;
	for (int fd = 0; fd < NOFILE; fd++) {
		struct fdent *e = &r->fds[r->nfds];
		int cx = fcntl(fd, F_GETFD);
		off_t o;

		if (cx < 0)
			continue;
		e->fd = fd;
		e->cloexec = cx & FD_CLOEXEC;
		e->fl = fcntl(fd, F_GETFL);
		o = lseek(fd, 0, SEEK_CUR);
		e->off = o < 0 ? -errno : o;
		e->file = host_file_of(fd);
		e->lp = p;
		e->lt = t;
		e->lfd = fd;
		for (int q = 0; q < NPROC; q++) {
			for (int u = 0; u < NTHR && ctl->live[q]; u++) {
				for (int g = 0; g < NOFILE; g++) {
					if (q == p && u == t && g == fd)
						goto found;
					if (kcmp_file(me, ctl->tid[q][u], fd, g) == 0) {
						e->lp = q;
						e->lt = u;
						e->lfd = g;
						goto found;
					}
				}
			}
		}
	found:
		r->nfds++;
	}
}

/*
 * Wait for a mailbox semaphore in slices of SLICE_MS, up to max_s seconds
 * (0: forever).  On the host this test was seen to lose wake-ups: a script
 * thread of an execve'd image slept in FUTEX_WAIT on a process-shared
 * semaphore whose value the driver had raised (sem_post saw waiters and
 * woke).  A slice that times out with the semaphore posted is counted in
 * ctl->lost_wakes and the wait goes on; the transcript does not depend on
 * it.
 */
#define SLICE_MS 100
static int sem_wait_sliced(sem_t *s, int max_s)
{
	for (long waited = 0; !max_s || waited < (long)max_s * 1000; waited += SLICE_MS) {
		struct timespec ts;
		int v = 0;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += SLICE_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (!sem_timedwait(s, &ts))
			return 0;
		if (errno == EINTR) {
			waited -= SLICE_MS;
			continue;
		}
		if (errno != ETIMEDOUT)
			return -1;
		if (!sem_getvalue(s, &v) && v > 0)
			__atomic_fetch_add(&ctl->lost_wakes, 1, __ATOMIC_RELAXED);
	}
	return -1;
}

static int sem_wait_bounded(sem_t *s)
{
	return sem_wait_sliced(s, WAIT_S);
}

static void host_exec_cmd(int p, int t, const struct cmd *c, struct reply *r);
static __attribute__((noreturn)) void host_process(int p, int t, bool exec_answer);

static void host_answer(int p, int t)
{
	host_summary(p, t, &ctl->mb[p][t].r);
	sem_post(&ctl->mb[p][t].rep);
}

struct hthread {
	int p, t;
	bool hello; /* announce itself (not the thread that answers an exec) */
};

static void *host_thread(void *arg)
{
	struct hthread *h = arg;
	int p = h->p, t = h->t;
	struct mbox *mb = &ctl->mb[p][t];

	__atomic_store_n(&ctl->tid[p][t], (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (h->hello) {
		memset(&mb->r, 0, sizeof(mb->r));
		sem_post(&mb->rep);
	}
	for (;;) {
		if (sem_wait_sliced(&mb->req, 0))
			break;
		if (mb->c.op == OP_QUIT)
			break;
		memset(&mb->r, 0, sizeof(mb->r));
		host_exec_cmd(p, t, &mb->c, &mb->r);
		host_answer(p, t);
		/* the process's children that exited (fork steps) */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	return NULL;
}

/*
 * A script process: thread `t` is the calling one, the other is started.
 * After an exec the calling thread answers the exec step first, once the
 * other thread is known (its tid is a kcmp target of the summary).
 */
static __attribute__((noreturn)) void host_process(int p, int t, bool exec_answer)
{
	static struct hthread h[NTHR];
	pthread_t th;

	for (int u = 0; u < NTHR; u++) {
		h[u] = (struct hthread){p, u, !(exec_answer && u == t)};
		if (u != t) {
			ctl->tid[p][u] = 0;
			if (pthread_create(&th, NULL, host_thread, &h[u])) {
				host_fail("p%d: pthread_create failed", p);
				_exit(2);
			}
			while (!__atomic_load_n(&ctl->tid[p][u], __ATOMIC_ACQUIRE))
				sched_yield();
		}
	}
	if (exec_answer) {
		memset(&ctl->mb[p][t].r, 0, sizeof(ctl->mb[p][t].r));
		host_answer(p, t);
	}
	host_thread(&h[t]);
	_exit(0);
}

static void host_exec_cmd(int p, int t, const struct cmd *c, struct reply *r)
{
	unsigned char buf[MAXIO];
	long n;

	switch (c->op) {
	case OP_HELLO:
		return;
	case OP_OPEN:
		if (c->dirfd == AT_FDCWD)
			n = open(host_path[c->name], c->flags, 0644);
		else
			n = openat(c->dirfd, rel[c->name], c->flags, 0644);
		r->ret = neg(n);
		return;
	case OP_CLOSE:
		r->ret = neg(close(c->fd));
		return;
	case OP_DUP:
		r->ret = neg(dup(c->fd));
		return;
	case OP_DUP2:
		r->ret = neg(dup2(c->fd, c->fd2));
		return;
	case OP_DUP3:
		r->ret = neg(dup3(c->fd, c->fd2, c->flags));
		return;
	case OP_FCNTL:
		r->ret = neg(syscall(SYS_fcntl, c->fd, c->cmd, (unsigned long)c->arg));
		return;
	case OP_CLOSE_RANGE:
		r->ret = neg(syscall(SYS_close_range, (unsigned)c->fd, (unsigned)c->fd2,
				     (unsigned)c->flags));
		return;
	case OP_LSEEK: {
		off_t o = (off_t)syscall(SYS_lseek, c->fd, (off_t)c->off, (unsigned)c->whence);

		/* a negative result outside the errno range is a value (-2^63) */
		r->ret = o < 0 && o >= -4095 ? -errno : o;
		return;
	}
	case OP_READ:
	case OP_PREAD:
		if (c->op == OP_READ)
			n = read(c->fd, buf, (size_t)c->count);
		else
			n = pread(c->fd, buf, (size_t)c->count, (off_t)c->off);
		r->ret = n < 0 ? -errno : n;
		if (n > 0) {
			r->ndata = (int)n;
			memcpy(r->data, buf, (size_t)n);
		}
		return;
	case OP_WRITE:
	case OP_PWRITE:
		write_data(buf, c->count, c->stepno);
		if (c->op == OP_WRITE)
			n = write(c->fd, buf, (size_t)c->count);
		else
			n = pwrite(c->fd, buf, (size_t)c->count, (off_t)c->off);
		r->ret = n < 0 ? -errno : n;
		return;
	case OP_FORK: {
		pid_t pid = fork();

		if (pid == 0)
			host_process(c->q, 0, false);
		r->ret = pid < 0 ? -errno : 0;
		return;
	}
	case OP_EXIT:
		r->ret = 0;
		sem_post(&ctl->mb[p][t].rep);
		_exit(0);
	case OP_EXEC: {
		char ps[16], ts[16];
		char *argv[] = {ctl->exe, "--exec-child", ctl_path, ps, ts, NULL};
		struct rlimit rl;

		snprintf(ps, sizeof(ps), "%d", p);
		snprintf(ts, sizeof(ts), "%d", t);
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = NOFILE + EXEC_SLACK;
		setrlimit(RLIMIT_NOFILE, &rl);
		execve(ctl->exe, argv, environ);
		r->ret = -errno;
		rl.rlim_cur = NOFILE;
		setrlimit(RLIMIT_NOFILE, &rl);
		return;
	}
	case OP_TRUNC:
		r->ret = neg(truncate(host_path[c->name], (off_t)c->off));
		return;
	case OP_UNLINK:
		r->ret = neg(unlink(host_path[c->name]));
		return;
	}
	r->ret = -ENOSYS;
}

static int host_map_ctl(bool create)
{
	int fd = open(ctl_path, create ? O_RDWR | O_CREAT | O_TRUNC : O_RDWR, 0600);
	void *m;

	if (fd < 0)
		return -errno;
	if (create && ftruncate(fd, sizeof(struct ctl))) {
		close(fd);
		return -errno;
	}
	m = mmap(NULL, sizeof(struct ctl), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -errno;
	ctl = m;
	return 0;
}

static void host_paths(const char *dir)
{
	for (int i = 0; i < NNAMES; i++)
		snprintf(host_path[i], sizeof(host_path[i]), "%s/%s", dir, names[i]);
}

/* The new image of an exec step: mailboxes again, answer, thread 1 again. */
static int exec_child(const char *path, int p, int t)
{
	struct rlimit rl;
	int err;

	snprintf(ctl_path, sizeof(ctl_path), "%s", path);
	err = host_map_ctl(false);
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = NOFILE;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (err)
		return 2; /* the driver times out on the answer */
	host_paths(ctl->dir);
	ctl->tid[p][t] = (pid_t)syscall(SYS_gettid);
	host_process(p, t, true);
}

/* ---- model: the system-call layer -------------------------------------------- */

static struct task_struct *mtask[NPROC][NTHR];
static const char *const model_root = "";

static int model_path_of(int name, char *buf, size_t len)
{
	return snprintf(buf, len, "%s/%s", model_root, names[name]) >= (int)len ? -ENAMETOOLONG : 0;
}

/*
 * openat(2), as do_sys_openat2 (fs/open.c, Linux 6.18): the flags are
 * checked first (build_open_flags), then the name (getname: "" is
 * -ENOENT), then an fd is reserved (-EMFILE), then the walk starts at
 * dirfd (path_init: -EBADF, -ENOTDIR) and the file is opened.  The open
 * syscalls add O_LARGEFILE on 64-bit (force_o_largefile).  The model's
 * walk takes absolute paths: a dirfd of the script's directory d is
 * replaced by its path (the only directories are / and /d).
 */
static int model_openat(int dirfd, const char *name, int flags)
{
	struct file *f;
	char path[256];
	int fd, r, oflags;

	flags |= O_LARGEFILE_KERNEL;
	oflags = build_open_flags(flags);
	if (oflags < 0)
		return oflags;
	if (!name[0])
		return -ENOENT;
	fd = get_unused_fd_flags((unsigned int)flags & O_CLOEXEC);
	if (fd < 0)
		return fd;
	if (name[0] == '/' || dirfd == AT_FDCWD) {
		snprintf(path, sizeof(path), "%s", name);
	} else {
		struct fd d = fdget_raw((unsigned int)dirfd);
		struct kstat st;

		if (!d.file) {
			r = -EBADF;
			goto fail;
		}
		if (!S_ISDIR(d.file->f_inode->i_mode)) {
			fdput(d);
			r = -ENOTDIR;
			goto fail;
		}
		r = vfs_stat("/d", &st);
		snprintf(path, sizeof(path), "%s/%s",
			 !r && st.ino == d.file->f_inode->i_ino ? "/d" : "", name);
		fdput(d);
	}
	r = filp_open(path, oflags, 0644, &f);
	if (r)
		goto fail;
	fd_install((unsigned int)fd, f);
	return fd;
fail:
	put_unused_fd((unsigned int)fd);
	return r;
}

/* read/write/lseek take the file with fdget_pos: O_PATH files are -EBADF. */
static int64_t model_lseek(unsigned int fd, int64_t off, unsigned int whence)
{
	struct fd f = fdget(fd);
	int64_t r;

	if (!f.file)
		return -EBADF;
	/* ksys_lseek: a whence past SEEK_MAX is refused before the file's llseek */
	r = whence <= SEEK_MAX ? vfs_llseek(f.file, off, (int)whence) : -EINVAL;
	fdput(f);
	return r;
}

static int64_t model_rw(const struct cmd *c, unsigned char *buf)
{
	struct fd f;
	int64_t pos = c->off, r;

	/* ksys_pread64/ksys_pwrite64: a negative position before the fd */
	if ((c->op == OP_PREAD || c->op == OP_PWRITE) && pos < 0)
		return -EINVAL;
	f = fdget((unsigned int)c->fd);
	if (!f.file)
		return -EBADF;
	switch (c->op) {
	case OP_READ:
		r = vfs_read(f.file, buf, (size_t)c->count, NULL);
		break;
	case OP_WRITE:
		r = vfs_write(f.file, buf, (size_t)c->count, NULL);
		break;
	case OP_PREAD:
		r = (f.file->f_mode & FMODE_PREAD) ? vfs_read(f.file, buf, (size_t)c->count, &pos)
						   : -ESPIPE;
		break;
	default:
		r = (f.file->f_mode & FMODE_PWRITE) ? vfs_write(f.file, buf, (size_t)c->count, &pos)
						    : -ESPIPE;
		break;
	}
	fdput(f);
	return r;
}

static int model_file_of(struct file *f)
{
	struct kstat st;

	for (int i = 0; i < NSUMNAMES; i++) {
		char path[64];

		model_path_of(i, path, sizeof(path));
		if (!vfs_lstat(path, &st) && st.ino == f->f_inode->i_ino)
			return i;
	}
	return -1;
}

static struct file *model_peek(struct task_struct *t, unsigned int fd)
{
	struct files_struct *files = t->files;
	struct file *f;

	spin_lock(&files->file_lock);
	f = files_lookup_fd_raw(files, fd);
	spin_unlock(&files->file_lock);
	return f;
}

static void model_summary(int p, int t, struct reply *r)
{
	r->nfds = 0;
	for (int fd = 0; fd < NOFILE; fd++) {
		struct fdent *e = &r->fds[r->nfds];
		struct file *f;
		int cx = ksys_fcntl((unsigned int)fd, F_GETFD, 0);

		if (cx < 0)
			continue;
		f = model_peek(mtask[p][t], (unsigned int)fd);
		e->fd = fd;
		e->cloexec = cx & FD_CLOEXEC;
		e->fl = ksys_fcntl((unsigned int)fd, F_GETFL, 0);
		e->off = model_lseek((unsigned int)fd, 0, SEEK_CUR);
		e->file = f ? model_file_of(f) : -1;
		e->lp = p;
		e->lt = t;
		e->lfd = fd;
		for (int q = 0; q < NPROC; q++) {
			for (int u = 0; u < NTHR && mtask[q][u]; u++) {
				for (int g = 0; g < NOFILE; g++) {
					if (q == p && u == t && g == fd)
						goto found;
					if (model_peek(mtask[q][u], (unsigned int)g) == f) {
						e->lp = q;
						e->lt = u;
						e->lfd = g;
						goto found;
					}
				}
			}
		}
	found:
		r->nfds++;
	}
}

/*
 * begin_new_exec's files part (fs/exec.c, Linux 6.18): de_thread (the other
 * thread exits), unshare_files, then do_close_on_exec.
 */
static int model_exec(int p, int t)
{
	struct files_struct *files;
	int err = 0;

	task_exit(mtask[p][1 - t]);
	mtask[p][1 - t] = NULL;
	task_attach(mtask[p][t]);
	files = current->files;
	if (__atomic_load_n(&files->count, __ATOMIC_ACQUIRE) > 1) {
		struct files_struct *copy = dup_fd(files, &err);

		if (!copy)
			return err;
		current->files = copy;
		put_files_struct(files);
	}
	do_close_on_exec(current->files);
	mtask[p][1 - t] = task_clone_thread(mtask[p][t]);
	return mtask[p][1 - t] ? 0 : -ENOMEM;
}

static char model_err[256];

static void model_step(const struct step *s, struct reply *r)
{
	const struct cmd *c = &s->c;
	unsigned char buf[MAXIO];
	char path[64];
	int p = s->p, t = s->t;

	memset(r, 0, sizeof(*r));
	task_attach(mtask[p][t]);
	switch (c->op) {
	case OP_OPEN:
		if (c->dirfd == AT_FDCWD) {
			model_path_of(c->name, path, sizeof(path));
			r->ret = model_openat(AT_FDCWD, path, c->flags);
		} else {
			r->ret = model_openat(c->dirfd, rel[c->name], c->flags);
		}
		break;
	case OP_CLOSE:
		r->ret = close_fd((unsigned int)c->fd);
		break;
	case OP_DUP:
		r->ret = ksys_dup((unsigned int)c->fd);
		break;
	case OP_DUP2:
		r->ret = ksys_dup2((unsigned int)c->fd, (unsigned int)c->fd2);
		break;
	case OP_DUP3:
		r->ret = ksys_dup3((unsigned int)c->fd, (unsigned int)c->fd2, c->flags);
		break;
	case OP_FCNTL:
		r->ret =
		    ksys_fcntl((unsigned int)c->fd, (unsigned int)c->cmd, (unsigned long)c->arg);
		break;
	case OP_CLOSE_RANGE:
		r->ret = __close_range((unsigned int)c->fd, (unsigned int)c->fd2,
				       (unsigned int)c->flags);
		break;
	case OP_LSEEK:
		r->ret = model_lseek((unsigned int)c->fd, c->off, (unsigned int)c->whence);
		break;
	case OP_READ:
	case OP_PREAD:
		r->ret = model_rw(c, buf);
		if (r->ret > 0) {
			r->ndata = (int)r->ret;
			memcpy(r->data, buf, (size_t)r->ret);
		}
		break;
	case OP_WRITE:
	case OP_PWRITE:
		write_data(buf, c->count, c->stepno);
		r->ret = model_rw(c, buf);
		break;
	case OP_FORK: {
		struct task_struct *child = task_fork(mtask[p][t]);

		if (!child) {
			r->ret = -ENOMEM;
			break;
		}
		mtask[c->q][0] = child;
		mtask[c->q][1] = task_clone_thread(child);
		if (!mtask[c->q][1])
			snprintf(model_err, sizeof(model_err), "task_clone_thread failed");
		task_attach(mtask[p][t]);
		r->ret = 0;
		break;
	}
	case OP_EXIT:
		task_detach();
		for (int u = NTHR - 1; u >= 0; u--) {
			task_exit(mtask[p][u]);
			mtask[p][u] = NULL;
		}
		r->ret = 0;
		return;
	case OP_EXEC:
		r->ret = model_exec(p, t);
		break;
	case OP_TRUNC:
		model_path_of(c->name, path, sizeof(path));
		r->ret = do_truncate(path, c->off);
		break;
	case OP_UNLINK:
		model_path_of(c->name, path, sizeof(path));
		r->ret = do_unlink(path);
		break;
	default:
		r->ret = -ENOSYS;
	}
	model_summary(p, t, r);
}

/* ---- transcripts ------------------------------------------------------------- */

struct transcript {
	char **line;
	int n;
};

static void tr_add(struct transcript *tr, const struct step *s, const struct reply *r)
{
	char c[LINE], a[LINE * 2];

	fmt_cmd(c, sizeof(c), s);
	fmt_reply(a, sizeof(a), s, r);
	tr->line[tr->n] = malloc(strlen(c) + strlen(a) + 1);
	if (!tr->line[tr->n]) {
		fprintf(stderr, "rcuvfs-fddiff: out of memory\n");
		exit(2);
	}
	strcpy(tr->line[tr->n], c);
	strcat(tr->line[tr->n], a);
	tr->n++;
}

static void tr_free(struct transcript *tr)
{
	for (int i = 0; i < tr->n; i++)
		free(tr->line[i]);
	free(tr->line);
	memset(tr, 0, sizeof(*tr));
}

/* ---- runs --------------------------------------------------------------------- */

static char run_err[512];
static long host_lost_wakes; /* over every host run of this invocation */

static void run_fail(const char *fmt, ...)
{
	va_list ap;

	if (run_err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(run_err, sizeof(run_err), fmt, ap);
	va_end(ap);
}

static int host_create_files(const char *dir)
{
	int fd;

	host_paths(dir);
	for (int i = NNAMES - 1; i >= 0; i--) {
		unlink(host_path[i]);
		rmdir(host_path[i]);
	}
	if (mkdir(host_path[N_D], 0755) || symlink("f0", host_path[N_L]))
		return -errno;
	for (int i = 0; i < NNAMES; i++) {
		if (i == N_D || i == N_L || i == N_X || i == N_N)
			continue;
		fd = open(host_path[i], O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return -errno;
		close(fd);
	}
	return 0;
}

static void host_remove_files(void)
{
	char nx[4300];

	snprintf(nx, sizeof(nx), "%s/nx", host_path[N_D]);
	unlink(nx);
	for (int i = NNAMES - 1; i >= 0; i--) {
		unlink(host_path[i]);
		rmdir(host_path[i]);
	}
}

static int host_wait_hello(int p)
{
	for (int u = 0; u < NTHR; u++)
		if (sem_wait_bounded(&ctl->mb[p][u].rep)) {
			run_fail("p%d.t%d: no hello within %d s%s%s", p, u, WAIT_S,
				 ctl->err[0] ? ": " : "", ctl->err);
			return -1;
		}
	return 0;
}

/* Tell every live thread to end and reap what is left. */
static void host_stop(void)
{
	for (int p = 0; p < NPROC; p++) {
		if (!ctl->live[p])
			continue;
		for (int u = NTHR - 1; u >= 0; u--) {
			ctl->mb[p][u].c.op = OP_QUIT;
			sem_post(&ctl->mb[p][u].req);
		}
		ctl->live[p] = false;
	}
	/* the driver is the subreaper of every script process */
	for (int ms = 0; ms < WAIT_S * 1000; ms++) {
		pid_t w = waitpid(-1, NULL, WNOHANG);

		if (w < 0 && errno == ECHILD)
			break;
		if (w <= 0)
			usleep(1000);
	}
}

static int run_host(const char *dir, const struct step *st, int n, struct transcript *tr)
{
	pid_t pid;
	int r;

	snprintf(ctl_path, sizeof(ctl_path), "%s/.fddiff-ctl", dir);
	r = host_map_ctl(true);
	if (r) {
		run_fail("%s: %s", ctl_path, strerror(-r));
		return -1;
	}
	memset(ctl, 0, sizeof(*ctl));
	snprintf(ctl->dir, sizeof(ctl->dir), "%s", dir);
	if (!realpath("/proc/self/exe", ctl->exe)) {
		run_fail("realpath /proc/self/exe: %s", strerror(errno));
		return -1;
	}
	for (int p = 0; p < NPROC; p++)
		for (int u = 0; u < NTHR; u++)
			if (sem_init(&ctl->mb[p][u].req, 1, 0) ||
			    sem_init(&ctl->mb[p][u].rep, 1, 0)) {
				run_fail("sem_init: %s", strerror(errno));
				return -1;
			}
	r = host_create_files(dir);
	if (r) {
		run_fail("creating the files in %s: %s", dir, strerror(-r));
		return -1;
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		run_fail("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		struct rlimit rl;

		syscall(SYS_close_range, 0u, ~0u, 0u);
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = NOFILE;
		if (rl.rlim_max < NOFILE + EXEC_SLACK)
			rl.rlim_max = NOFILE + EXEC_SLACK;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			host_fail("setrlimit: %s", strerror(errno));
		host_process(0, 0, false);
	}
	ctl->live[0] = true;
	if (host_wait_hello(0))
		goto out;
	for (int i = 0; i < n; i++) {
		const struct step *s = &st[i];
		struct mbox *mb = &ctl->mb[s->p][s->t];

		mb->c = s->c;
		if (s->c.op == OP_FORK)
			ctl->live[s->c.q] = false;
		sem_post(&mb->req);
		if (sem_wait_bounded(&mb->rep)) {
			int rq = -1, rp = -1;
			char stat[128] = "?", path[64];
			FILE *f;

			sem_getvalue(&mb->req, &rq);
			sem_getvalue(&mb->rep, &rp);
			snprintf(path, sizeof(path), "/proc/%d/stat", (int)ctl->tid[s->p][s->t]);
			f = fopen(path, "r");
			if (f) {
				if (!fgets(stat, sizeof(stat), f))
					snprintf(stat, sizeof(stat), "?");
				fclose(f);
			}
			run_fail("step %d p%d.t%d: no answer within %d s (tid %d: %s; req %d rep "
				 "%d)%s%s",
				 i, s->p, s->t, WAIT_S, (int)ctl->tid[s->p][s->t], stat, rq, rp,
				 ctl->err[0] ? ": " : "", ctl->err);
			goto out;
		}
		if (s->c.op == OP_FORK && mb->r.ret == 0) {
			/* the summary was made before the child's threads exist:
			 * wait for them, then summarise again with them live */
			if (host_wait_hello(s->c.q))
				goto out;
			ctl->live[s->c.q] = true;
			mb->c.op = OP_HELLO;
			sem_post(&mb->req);
			if (sem_wait_bounded(&mb->rep)) {
				run_fail("step %d: no answer after fork", i);
				goto out;
			}
		}
		if (s->c.op == OP_EXEC && mb->r.ret == 0) {
			/* the other thread is new: its hello */
			if (sem_wait_bounded(&ctl->mb[s->p][1 - s->t].rep)) {
				run_fail("step %d: no new thread after exec", i);
				goto out;
			}
		}
		if (s->c.op == OP_EXIT)
			ctl->live[s->p] = false;
		tr_add(tr, s, &mb->r);
	}
out:
	host_stop();
	host_lost_wakes += ctl->lost_wakes;
	host_remove_files();
	unlink(ctl_path);
	munmap(ctl, sizeof(*ctl));
	ctl = NULL;
	return run_err[0] ? -1 : 0;
}

static int model_create_files(void)
{
	struct file *f;
	char path[64];
	int r;

	model_path_of(N_D, path, sizeof(path));
	r = do_mkdir(path, 0755);
	if (!r) {
		model_path_of(N_L, path, sizeof(path));
		r = do_symlink("f0", path);
	}
	for (int i = 0; i < NNAMES && !r; i++) {
		if (i == N_D || i == N_L || i == N_X || i == N_N)
			continue;
		model_path_of(i, path, sizeof(path));
		r = filp_open(path, O_RDWR | O_CREAT | O_TRUNC, 0644, &f);
		if (!r)
			fput(f);
	}
	return r;
}

static int run_model(const struct rv_switches *sw, const struct step *st, int n,
		     struct transcript *tr)
{
	struct task_struct *driver;
	struct reply r;
	char path[64];
	int err;

	model_err[0] = 0;
	err = rv_instance_create(sw);
	if (err) {
		run_fail("rv_instance_create: %s", strerror(-err));
		return -1;
	}
	driver = task_create_process("fddiff");
	if (!driver) {
		run_fail("task_create_process failed");
		goto out;
	}
	task_attach(driver);
	err = model_create_files();
	if (err) {
		run_fail("model: creating the files: %s", strerror(-err));
		goto out;
	}
	memset(mtask, 0, sizeof(mtask));
	mtask[0][0] = task_create_process("p0");
	if (!mtask[0][0] || files_set_nofile(mtask[0][0]->files, NOFILE) ||
	    !(mtask[0][1] = task_clone_thread(mtask[0][0]))) {
		run_fail("model: process 0 not created");
		goto out;
	}
	for (int i = 0; i < n && !model_err[0]; i++) {
		model_step(&st[i], &r);
		tr_add(tr, &st[i], &r);
	}
	if (model_err[0])
		run_fail("model: %s", model_err);
out:
	task_detach();
	for (int p = 0; p < NPROC; p++)
		for (int u = NTHR - 1; u >= 0; u--)
			if (mtask[p][u]) {
				task_exit(mtask[p][u]);
				mtask[p][u] = NULL;
			}
	if (driver) {
		task_attach(driver);
		do_unlink("/d/nx");
		for (int i = NNAMES - 1; i >= 0; i--) {
			model_path_of(i, path, sizeof(path));
			if (do_unlink(path))
				do_rmdir(path);
		}
		task_exit(driver);
	}
	if (nr_files_active())
		run_fail("model: %ld files still open after every process exited",
			 nr_files_active());
	if (rv_instance_live() && rv_instance_destroy())
		run_fail("rv_instance_destroy: model objects leaked");
	return run_err[0] ? -1 : 0;
}

/* ---- main ------------------------------------------------------------------------ */

static int max_diffs = 1;

static int compare(const char *what, const struct transcript *a, const struct transcript *b,
		   uint64_t seed, int steps, const char *dir, const char *swtext)
{
	int n = a->n < b->n ? a->n : b->n, diffs = 0;

	for (int i = 0; i < n && diffs < max_diffs; i++) {
		if (!strcmp(a->line[i], b->line[i]))
			continue;
		printf("DIFF %s at step %d\n  linux  %s\n  model  %s\n", what, i, a->line[i],
		       b->line[i]);
		if (i > 0)
			printf("  previous: %s\n", a->line[i - 1]);
		printf("  reproduce: rcuvfs-fddiff model %s %llu %d '%s'\n", dir,
		       (unsigned long long)seed, steps, swtext);
		diffs++;
	}
	if (a->n != b->n) {
		printf("DIFF %s: linux has %d lines, model %d\n", what, a->n, b->n);
		diffs++;
	}
	return diffs;
}

static int parse_seeds(const char *s, uint64_t *lo, uint64_t *hi)
{
	char *end;

	*lo = strtoull(s, &end, 0);
	if (end == s)
		return -1;
	*hi = *lo;
	if (*end == '-') {
		s = end + 1;
		*hi = strtoull(s, &end, 0);
		if (end == s)
			return -1;
	}
	return *end || *hi < *lo ? -1 : 0;
}

static int parse_steps(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *end || end == s || v <= 0 || v > 10000000 ? -1 : (int)v;
}

static int parse_sw(const char *text, struct rv_switches *sw)
{
	char buf[512], err[256], *save = NULL, *kv;

	rv_switches_default(sw);
	snprintf(buf, sizeof(buf), "%s", text);
	for (kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq) {
			fprintf(stderr, "rcuvfs-fddiff: %s: not name=value\n", kv);
			return -1;
		}
		*eq = 0;
		if (rv_switch_set(sw, kv, eq + 1, err, sizeof(err))) {
			fprintf(stderr, "rcuvfs-fddiff: %s\n", err);
			return -1;
		}
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rcuvfs-fddiff [-k MAXDIFFS] model DIR SEEDS STEPS SWITCHES...\n"
		   "       rcuvfs-fddiff print host DIR SEED STEPS\n"
		   "       rcuvfs-fddiff print model SWITCHES SEED STEPS\n"
		   "Runs seeded fd-table scripts in real processes (files in DIR, a tmpfs\n"
		   "directory) and in the model; every line must be identical.\n"
		   "SEEDS: N or A-B; SWITCHES: e.g. fileref=file-ref (\"\" = defaults).\n"
		   "Exit: 0 identical, 1 differences (printed), 2 the run failed or usage.\n");
}

static __attribute__((noreturn)) void bad_usage(const char *why)
{
	fprintf(stderr, "rcuvfs-fddiff: %s (try --help)\n", why);
	exit(2);
}

static int dir_ok(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "rcuvfs-fddiff: %s: not a directory\n", dir);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct rv_switches sw;
	uint64_t lo, hi;
	int steps, status = 0;
	long lines = 0;
	struct step *st;

	if (argc == 5 && !strcmp(argv[1], "--exec-child"))
		return exec_child(argv[2], atoi(argv[3]), atoi(argv[4]));
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	rv_cli_mode_first(argc, argv, "rcuvfs-fddiff", usage, "-k");
	if (argc > 1 && !strcmp(argv[1], "-k")) {
		char *end;

		if (argc < 3 || (max_diffs = (int)strtol(argv[2], &end, 10)) <= 0 || *end)
			bad_usage("-k needs a positive number");
		argv += 2;
		argc -= 2;
	}
	if (argc < 2)
		bad_usage("no mode");
	if (!strcmp(argv[1], "print")) {
		struct transcript tr = {0};
		bool host;

		if (argc != 6 || (strcmp(argv[2], "host") && strcmp(argv[2], "model")))
			bad_usage("print host DIR SEED STEPS | print model SWITCHES SEED STEPS");
		host = !strcmp(argv[2], "host");
		if (parse_seeds(argv[4], &lo, &hi) || lo != hi)
			bad_usage("SEED: one number");
		if ((steps = parse_steps(argv[5])) < 0)
			bad_usage("STEPS: a positive number");
		if (host ? dir_ok(argv[3]) : parse_sw(argv[3], &sw))
			return 2;
		st = calloc((size_t)steps, sizeof(*st));
		tr.line = calloc((size_t)steps, sizeof(char *));
		if (!st || !tr.line)
			return 2;
		int n = gen_script(lo, steps, st);

		status = host ? run_host(argv[3], st, n, &tr) : run_model(&sw, st, n, &tr);
		for (int i = 0; i < tr.n; i++)
			printf("%s\n", tr.line[i]);
		if (status)
			fprintf(stderr, "rcuvfs-fddiff: run failed: %s\n", run_err);
		if (host_lost_wakes)
			fprintf(stderr, "rcuvfs-fddiff: %ld lost semaphore wake-ups recovered\n",
				host_lost_wakes);
		tr_free(&tr);
		free(st);
		return status ? 2 : 0;
	}
	if (!strcmp(argv[1], "model")) {
		int nsw = argc - 5;

		if (argc < 6)
			bad_usage("model DIR SEEDS STEPS SWITCHES... (at least one switch set)");
		if (parse_seeds(argv[3], &lo, &hi))
			bad_usage("SEEDS: N or A-B");
		if ((steps = parse_steps(argv[4])) < 0)
			bad_usage("STEPS: a positive number");
		if (dir_ok(argv[2]))
			return 2;
		for (int i = 0; i < nsw; i++)
			if (parse_sw(argv[5 + i], &sw))
				return 2;
		st = calloc((size_t)steps, sizeof(*st));
		if (!st)
			return 2;
		for (uint64_t seed = lo; seed <= hi; seed++) {
			struct transcript ref = {0};
			int n = gen_script(seed, steps, st);

			ref.line = calloc((size_t)n, sizeof(char *));
			/* the host run first: no fork while a model instance runs */
			if (!ref.line || run_host(argv[2], st, n, &ref)) {
				fprintf(stderr, "rcuvfs-fddiff: seed %llu: host run failed: %s\n",
					(unsigned long long)seed, run_err);
				return 2;
			}
			for (int i = 0; i < nsw; i++) {
				struct transcript mt = {0};
				char what[600];

				parse_sw(argv[5 + i], &sw);
				mt.line = calloc((size_t)n, sizeof(char *));
				if (!mt.line || run_model(&sw, st, n, &mt)) {
					fprintf(stderr,
						"rcuvfs-fddiff: seed %llu: model run failed: %s\n",
						(unsigned long long)seed, run_err);
					return 2;
				}
				snprintf(what, sizeof(what), "seed %llu '%s'",
					 (unsigned long long)seed, argv[5 + i]);
				if (compare(what, &ref, &mt, seed, steps, argv[2], argv[5 + i]))
					status = 1;
				lines += ref.n;
				tr_free(&mt);
			}
			tr_free(&ref);
		}
		free(st);
		printf("fddiff model: seeds %llu-%llu x %d steps x %d switch sets: %ld lines, %s\n",
		       (unsigned long long)lo, (unsigned long long)hi, steps, nsw, lines,
		       status ? "DIFFERENCES" : "identical");
		if (host_lost_wakes)
			printf(
			    "  host: %ld lost semaphore wake-ups recovered by the %d ms slices\n",
			    host_lost_wakes, SLICE_MS);
		return status;
	}
	fprintf(stderr, "rcuvfs-fddiff: unknown mode '%s' or wrong arguments (try --help)\n",
		argv[1]);
	return RV_CLI_USAGE_ERROR;
}
