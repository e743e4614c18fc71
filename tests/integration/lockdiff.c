// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/integration/lockdiff.c - differential test of file locks: the same
 * lock script run step by step against the host kernel (real processes and
 * threads on a tmpfs, or on an rcuvfs mount) and against the model
 * in-process (model processes and threads, the model's fcntl/flock entry
 * points), each printing one canonical line per step.
 *
 *   lockdiff model DIR SEEDS STEPS SW...   host (DIR, a tmpfs) vs the model
 *                                          under each switch set SW (as
 *                                          "filelock=inode,bkl_ops=lock"):
 *                                          the transcripts must be identical
 *   lockdiff mount TMPFS MNT SEEDS STEPS   host tmpfs vs an rcuvfs mount:
 *                                          identical but for the FUSE
 *                                          protocol's documented limits
 *   lockdiff scen-model DIR SW...          the blocking scenarios, host vs model
 *   lockdiff scen-mount TMPFS MNT          the blocking scenarios, tmpfs vs mount
 *   lockdiff print host DIR SEED STEPS | print model SW SEED STEPS
 *   lockdiff print scen host DIR | print scen model SW
 *                                          one transcript, for reading
 *   -k N (first): print up to N differences per comparison, not just one
 *
 * SEEDS is N or A-B.  Exit status 0: no difference; 1: a difference (the
 * seed, the step and both lines are printed); 2: the run itself failed.
 *
 * The script.  NPROC processes of NTHR threads each; POSIX locks are owned
 * by the process (its files_struct: the threads share it), OFD and flock
 * locks by the open file description.  Every process has NSLOT descriptor
 * slots: slots 0 and 1 are descriptions opened once by the driver before it
 * forks the processes (so every process shares them), the others are the
 * process's own (read-write, read-only, write-only and O_PATH ones).  Steps
 * are F_SETLK/F_GETLK, F_OFD_SETLK/F_OFD_GETLK (F_UNLCK queries included),
 * flock LOCK_NB and LOCK_UN, close, dup+close, dup2 onto another slot,
 * reopen, lseek (for SEEK_CUR ranges), truncate (for SEEK_END ranges), and
 * invalid inputs (bad l_type, l_whence, negative and overflowing ranges,
 * l_pid for OFD commands, bad flock commands, closed descriptors, locks the
 * open mode does not permit, O_PATH).  The generator depends only on the
 * seed, never on results.  A state line (the held locks on the script's
 * files, from /proc/locks or the model's listing, canonical and sorted)
 * follows every STATE_EVERY steps and the last one.
 *
 * Execution.  On the host the driver forks one process per script process,
 * each with NTHR threads; each thread reads its commands from its own pipe
 * and answers on another, so the order of steps is exactly the script's.
 * In the model each model thread (task_fork'ed process, task_clone_thread
 * threads) is a worker pthread attached to its task, driven through pipes
 * the same way.  pids in answers are printed as the script's process index.
 *
 * Blocking scenarios run commands asynchronously: a waiter is known to be
 * queued when the lock listing (/proc/locks, MNT/.rcuvfs/locks, or the
 * model's) shows it, never after a sleep; every wait is bounded (60 s) and a
 * hang fails the run.  EINTR is a signal (handler without SA_RESTART) on
 * the host and task_signal in the model.
 *
 * Through the mount the kernel's FUSE client forwards every lock to the
 * daemon, which sees an OFD lock as a POSIX lock owned by the file.  Three
 * things then differ from tmpfs, and only these are normalised (each is a
 * check, not a mask: the mount's value must be the one the limit predicts):
 *   - F_OFD_GETLK: the kernel reports l_pid -1 whatever the holder;
 *   - F_GETLK finding an OFD lock: l_pid is the pid of the process that
 *     took it (tmpfs: -1);
 *   - a wait whose cycle runs through an OFD owner the kernel leaves out of
 *     the wait graph gets EDEADLK (scenarios fuse-ofd-deadlock and
 *     fuse-deadlock-through-ofd-waiter; tmpfs: it waits).
 * State lines are not compared through the mount (the kernel has no lock
 * records of a FUSE file; the daemon's listing shows OFD locks as POSIX).
 * The kernel sends a description's RELEASE after close() has returned, so
 * after each step that may drop one the driver waits until the daemon's
 * live file count equals the script's open descriptions (mount_quiesce).
 *
 * Locking: the driver is one thread; each worker touches only its own
 * process's slot table, and only while the driver waits for its answer
 * (the pipe orders it) or, for asynchronous commands, on a lock call that
 * reads no slot after it blocked.
 */
#include "tools/cli.h"
#include "fdtable/fdtable.h"
#include "locks/locks.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#define NPROC	    3
#define NTHR	    2
#define NSLOT	    7
#define NFILE	    2
#define STATE_EVERY 50
#define WAIT_MS	    60000
#define LINE	    256
#define BAD_FD	    1000000 /* never open: above any fd limit */

#ifndef LOCK_MAND
#define LOCK_MAND 32
#endif

/* ---- the script --------------------------------------------------------- */

enum op {
	OP_HELLO,    /* answer pid and tid */
	OP_OPEN,     /* slot = open(file arg, flags cmd) */
	OP_CLOSE,    /* close(slot) */
	OP_DUPCLOSE, /* n = dup(slot); close(slot); slot = n */
	OP_DUP2,     /* dup2(slot, slot2) */
	OP_LSEEK,    /* lseek(slot, arg, SEEK_SET) */
	OP_TRUNC,    /* truncate(file arg, len) */
	OP_FCNTL,    /* fcntl(slot, cmd, {type, whence, start, len, pidf}) */
	OP_FLOCK,    /* flock(slot, cmd) */
	OP_EXIT,
};

struct cmd {
	int op;
	int slot, slot2; /* slot -1: an fd number never open */
	int cmd;
	int type, whence, pidf;
	int64_t start, len, arg;
};

struct reply {
	int ret; /* 0 or -errno */
	int64_t val;
	struct flock fl;
};

/* The slots every process starts with: file and open flags. */
static const struct {
	int file, flags;
} slot_init[NSLOT] = {
    {0, O_RDWR}, {1, O_RDWR}, /* opened by the driver: shared by all */
    {0, O_RDWR}, {1, O_RDWR}, {0, O_RDONLY}, {1, O_WRONLY}, {0, O_PATH},
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

struct step {
	int p, t;
	struct cmd c;
};

/* The generator's view of a process's slots (results never feed back). */
struct gslot {
	bool open;
	int file, flags;
};

static int64_t gen_start(void)
{
	int r = rn(100);

	if (r < 80)
		return rn(40);
	if (r < 92)
		return -rn(20) - 1;
	if (r < 96)
		return INT64_MAX - rn(4);
	return INT64_MIN + rn(4);
}

static int64_t gen_len(void)
{
	int r = rn(100);

	if (r < 20)
		return 0;
	if (r < 75)
		return rn(20) + 1;
	if (r < 93)
		return -rn(12) - 1;
	if (r < 97)
		return INT64_MAX - rn(3);
	return INT64_MIN + rn(3);
}

static int gen_slot(struct gslot *gs)
{
	int r = rn(100), s;

	if (r < 3)
		return -1; /* never-open fd number */
	for (int i = 0; i < 8; i++) {
		s = rn(NSLOT);
		if (gs[s].open || r < 6)
			return s;
	}
	return rn(NSLOT);
}

static void gen_fcntl(struct cmd *c)
{
	static const int cmds[] = {F_SETLK, F_GETLK, F_OFD_SETLK, F_OFD_GETLK};
	static const int types[] = {F_RDLCK, F_WRLCK, F_UNLCK};
	int r = rn(100);

	c->op = OP_FCNTL;
	c->cmd = cmds[rn(4)];
	c->type = r < 97 ? types[rn(3)] : (r < 99 ? 7 : -1);
	if (c->type == F_UNLCK && (c->cmd == F_SETLK || c->cmd == F_OFD_SETLK) && rn(2))
		c->type = types[rn(2)]; /* fewer unlocks than locks */
	r = rn(100);
	c->whence = r < 70 ? SEEK_SET : r < 84 ? SEEK_CUR : r < 98 ? SEEK_END : 3 + rn(2);
	c->start = gen_start();
	c->len = gen_len();
	c->pidf = rn(100) < 4 ? 1 + rn(100) : 0;
}

static void gen_flock(struct cmd *c)
{
	static const int bad[] = {0,
				  LOCK_NB,
				  LOCK_SH | LOCK_EX,
				  LOCK_SH | LOCK_EX | LOCK_NB,
				  LOCK_MAND | LOCK_SH,
				  LOCK_MAND | LOCK_EX | LOCK_NB,
				  64 | LOCK_SH};
	int r = rn(100);

	c->op = OP_FLOCK;
	if (r < 40)
		c->cmd = LOCK_SH | LOCK_NB;
	else if (r < 75)
		c->cmd = LOCK_EX | LOCK_NB;
	else if (r < 93)
		c->cmd = rn(2) ? LOCK_UN : LOCK_UN | LOCK_NB;
	else
		c->cmd = bad[rn((int)(sizeof(bad) / sizeof(bad[0])))];
}

/*
 * The script for `seed`: the processes' setup (open their own slots), then
 * `nsteps` random steps.  Returns the number of steps written to st.
 */
static int gen_script(uint64_t seed, int nsteps, struct step *st)
{
	struct gslot gs[NPROC][NSLOT];
	int n = 0;

	rng = seed * 0x2545f4914f6cdd1dull + 1;
	for (int p = 0; p < NPROC; p++)
		for (int s = 0; s < NSLOT; s++) {
			gs[p][s] = (struct gslot){true, slot_init[s].file, slot_init[s].flags};
			if (s < 2)
				continue;
			st[n++] = (struct step){p,
						0,
						{.op = OP_OPEN,
						 .slot = s,
						 .cmd = slot_init[s].flags,
						 .arg = slot_init[s].file}};
		}
	for (int i = 0; i < nsteps; i++) {
		struct step *x = &st[n++];
		struct cmd *c = &x->c;
		struct gslot *g;
		int r = rn(1000);

		memset(x, 0, sizeof(*x));
		x->p = rn(NPROC);
		x->t = rn(NTHR);
		g = gs[x->p];
		c->slot = gen_slot(g);
		if (r < 450) {
			gen_fcntl(c);
		} else if (r < 700) {
			gen_flock(c);
		} else if (r < 740) {
			c->op = OP_LSEEK;
			c->arg = rn(30);
		} else if (r < 770) {
			c->op = OP_TRUNC;
			c->slot = 0;
			c->arg = rn(NFILE);
			c->len = rn(40);
		} else if (r < 830) {
			/* reopen a closed slot, or close an open one */
			int s = 2 + rn(NSLOT - 2);

			c->slot = s;
			if (!g[s].open) {
				c->op = OP_OPEN;
				g[s] = (struct gslot){true, slot_init[s].file, slot_init[s].flags};
				c->cmd = g[s].flags;
				c->arg = g[s].file;
			} else {
				c->op = OP_CLOSE;
				g[s].open = false;
			}
		} else if (r < 880) {
			c->op = OP_CLOSE;
			if (c->slot >= 0)
				g[c->slot].open = false;
		} else if (r < 950) {
			c->op = OP_DUPCLOSE;
		} else {
			int a = c->slot, b = rn(NSLOT);

			c->op = OP_DUP2;
			if (a < 0 || !g[a].open || !g[b].open || a == b) {
				c->op = OP_DUPCLOSE; /* dup2 onto a closed slot: not scripted */
				continue;
			}
			c->slot2 = b;
			g[b] = g[a];
		}
	}
	return n;
}

/* ---- executing one command ---------------------------------------------- */

static int slots_host[NSLOT];	      /* host: this process's fds */
static int slots_model[NPROC][NSLOT]; /* model: each process's fds */
static char host_path[NFILE][4096];   /* host files */
static const char *const model_path[NFILE] = {"/ld0", "/ld1"};

static int slot_fd(const int *slots, int slot)
{
	return slot < 0 ? BAD_FD : slots[slot];
}

static int neg(int r)
{
	return r < 0 ? -errno : r;
}

static void exec_host(const struct cmd *c, struct reply *r)
{
	int fd = slot_fd(slots_host, c->slot), n;

	memset(r, 0, sizeof(*r));
	switch (c->op) {
	case OP_HELLO:
		r->val = syscall(SYS_gettid);
		r->ret = getpid();
		return;
	case OP_OPEN:
		n = open(host_path[c->arg], c->cmd);
		r->ret = neg(n < 0 ? -1 : 0);
		if (n >= 0)
			slots_host[c->slot] = n;
		return;
	case OP_CLOSE:
		r->ret = neg(close(fd));
		if (c->slot >= 0)
			slots_host[c->slot] = -1;
		return;
	case OP_DUPCLOSE:
		n = dup(fd);
		r->ret = neg(n < 0 ? -1 : 0);
		if (n >= 0) {
			close(fd);
			slots_host[c->slot] = n;
		}
		return;
	case OP_DUP2:
		r->ret = neg(dup2(fd, slots_host[c->slot2]) < 0 ? -1 : 0);
		return;
	case OP_LSEEK:
		r->val = lseek(fd, c->arg, SEEK_SET);
		r->ret = neg(r->val < 0 ? -1 : 0);
		return;
	case OP_TRUNC:
		r->ret = neg(truncate(host_path[c->arg], c->len));
		return;
	case OP_FCNTL:
		r->fl = (struct flock){.l_type = (short)c->type,
				       .l_whence = (short)c->whence,
				       .l_start = c->start,
				       .l_len = c->len,
				       .l_pid = c->pidf};
		r->ret = neg(fcntl(fd, c->cmd, &r->fl));
		return;
	case OP_FLOCK:
		r->ret = neg(flock(fd, c->cmd));
		return;
	}
	r->ret = -ENOSYS;
}

/*
 * The model's system-call layer, as Linux's: fcntl(2) lock commands take
 * the file with fdget_raw (fs/fcntl.c do_fcntl; O_PATH is refused by the
 * lock code), flock(2) with fdget (fs/locks.c SYSCALL_DEFINE2(flock)); the
 * POSIX owner is current->files and the pid current->tgid.  A POSIX lock
 * granted while another thread closed the fd is dropped again (fs/locks.c
 * fcntl_setlk's re-check of the fd).
 */
static int model_fcntl_lock(unsigned int fd, int cmd, struct flock *l)
{
	struct files_struct *files = current->files;
	struct fd f = fdget_raw(fd);
	struct file *now;
	int r;

	if (!f.file)
		return -EBADF;
	if (cmd == F_GETLK || cmd == F_OFD_GETLK) {
		r = fcntl_getlk(f.file, (unsigned int)cmd, l, (fl_owner_t)files);
		fdput(f);
		return r;
	}
	r = fcntl_setlk(f.file, (unsigned int)cmd, l, (fl_owner_t)files, current->tgid, NULL);
	if (!r && l->l_type != F_UNLCK && (cmd == F_SETLK || cmd == F_SETLKW)) {
		spin_lock(&files->file_lock);
		now = files_lookup_fd_raw(files, fd);
		spin_unlock(&files->file_lock);
		if (now != f.file) {
			locks_remove_posix(f.file, (fl_owner_t)files);
			r = -EBADF;
		}
	}
	fdput(f);
	return r;
}

static int model_flock(unsigned int fd, unsigned int cmd)
{
	struct fd f;
	int r = flock_check_cmd(cmd);

	if (r)
		return r < 0 ? r : 0;
	f = fdget(fd);
	if (!f.file)
		return -EBADF;
	r = flock_lock_file(f.file, cmd, current->tgid, NULL);
	fdput(f);
	return r;
}

static int model_open(const char *path, int flags)
{
	return do_sys_open(path, flags, 0644);
}

static int64_t model_lseek(unsigned int fd, int64_t off)
{
	struct fd f = fdget(fd);
	int64_t r;

	if (!f.file)
		return -EBADF;
	r = vfs_llseek(f.file, off, SEEK_SET);
	fdput(f);
	return r;
}

static void exec_model(int p, const struct cmd *c, struct reply *r)
{
	int *slots = slots_model[p];
	unsigned int fd = (unsigned int)slot_fd(slots, c->slot);
	int n;

	memset(r, 0, sizeof(*r));
	switch (c->op) {
	case OP_HELLO:
		r->val = current->pid;
		r->ret = current->tgid;
		return;
	case OP_OPEN:
		n = model_open(model_path[c->arg], c->cmd);
		r->ret = n < 0 ? n : 0;
		if (n >= 0)
			slots[c->slot] = n;
		return;
	case OP_CLOSE:
		r->ret = close_fd(fd);
		if (c->slot >= 0)
			slots[c->slot] = -1;
		return;
	case OP_DUPCLOSE:
		n = ksys_dup(fd);
		r->ret = n < 0 ? n : 0;
		if (n >= 0) {
			close_fd(fd);
			slots[c->slot] = n;
		}
		return;
	case OP_DUP2:
		n = ksys_dup2(fd, (unsigned int)slots[c->slot2]);
		r->ret = n < 0 ? n : 0;
		return;
	case OP_LSEEK:
		r->val = model_lseek(fd, c->arg);
		r->ret = r->val < 0 ? (int)r->val : 0;
		if (r->val < 0)
			r->val = -1;
		return;
	case OP_TRUNC:
		r->ret = do_truncate(model_path[c->arg], c->len);
		return;
	case OP_FCNTL:
		r->fl = (struct flock){.l_type = (short)c->type,
				       .l_whence = (short)c->whence,
				       .l_start = c->start,
				       .l_len = c->len,
				       .l_pid = c->pidf};
		r->ret = model_fcntl_lock(fd, c->cmd, &r->fl);
		return;
	case OP_FLOCK:
		r->ret = model_flock(fd, (unsigned int)c->cmd);
		return;
	}
	r->ret = -ENOSYS;
}

/* ---- backends: host processes or model workers, driven through pipes ---- */

enum { BE_HOST, BE_MODEL };

struct backend {
	int kind;
	const char *dir;     /* host: the directory of the files */
	char listing[4096];  /* host: /proc/locks or MNT/.rcuvfs/locks */
	bool mount;	     /* host: dir is an rcuvfs mount */
	char dev[32];	     /* host /proc/locks: "maj:min:" of the files */
	uint64_t ino[NFILE]; /* inode numbers of the files */
	int cmdfd[NPROC][NTHR], repfd[NPROC][NTHR];
	pid_t pid[NPROC]; /* tgid of each script process */
	pid_t tid[NPROC][NTHR];
	pid_t child[NPROC]; /* host: the forked processes */
	pthread_t thr[NPROC][NTHR];
	struct task_struct *task[NPROC][NTHR];
	struct task_struct *driver;
	bool pending[NPROC][NTHR];
	struct cmd pend[NPROC][NTHR];
	long files0;   /* mount: files the daemon holds besides the script's */
	char err[512]; /* why the run failed */
};

static void be_fail(struct backend *b, const char *fmt, ...)
{
	va_list ap;

	if (b->err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(b->err, sizeof(b->err), fmt, ap);
	va_end(ap);
}

static bool write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static bool read_all(int fd, void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
	}
	return true;
}

struct worker {
	int p, t;
	int in, out;
	struct task_struct *task; /* model */
};

static void on_sigusr1(int sig)
{
	(void)sig;
}

static void *host_worker(void *arg)
{
	struct worker *w = arg;
	struct cmd c;
	struct reply r;

	while (read_all(w->in, &c, sizeof(c)) && c.op != OP_EXIT) {
		exec_host(&c, &r);
		if (!write_all(w->out, &r, sizeof(r)))
			break;
	}
	return NULL;
}

static void *model_worker(void *arg)
{
	struct worker *w = arg;
	struct cmd c;
	struct reply r;

	task_attach(w->task);
	while (read_all(w->in, &c, sizeof(c)) && c.op != OP_EXIT) {
		exec_model(w->p, &c, &r);
		/* the signal is delivered on the way back to user space */
		if (signal_pending(current))
			task_clear_signal(current);
		if (!write_all(w->out, &r, sizeof(r)))
			break;
	}
	task_exit(w->task);
	close(w->in);
	close(w->out);
	free(w);
	return NULL;
}

static int be_submit(struct backend *b, int p, int t, const struct cmd *c)
{
	if (b->pending[p][t]) {
		be_fail(b, "p%d.t%d: a command is still pending", p, t);
		return -1;
	}
	if (!write_all(b->cmdfd[p][t], c, sizeof(*c))) {
		be_fail(b, "p%d.t%d: command pipe: %s", p, t, strerror(errno));
		return -1;
	}
	b->pending[p][t] = true;
	b->pend[p][t] = *c;
	return 0;
}

/* Whether p.t's answer is there (ms: how long to wait for it). */
static bool be_ready(struct backend *b, int p, int t, int ms)
{
	struct pollfd pfd = {.fd = b->repfd[p][t], .events = POLLIN};

	return poll(&pfd, 1, ms) == 1;
}

static int be_reap(struct backend *b, int p, int t, struct reply *r)
{
	if (!b->pending[p][t]) {
		be_fail(b, "p%d.t%d: nothing pending", p, t);
		return -1;
	}
	if (!be_ready(b, p, t, WAIT_MS)) {
		be_fail(b, "p%d.t%d: no answer within %d ms (hang)", p, t, WAIT_MS);
		return -1;
	}
	if (!read_all(b->repfd[p][t], r, sizeof(*r))) {
		be_fail(b, "p%d.t%d: answer pipe closed", p, t);
		return -1;
	}
	b->pending[p][t] = false;
	return 0;
}

static int be_run(struct backend *b, int p, int t, const struct cmd *c, struct reply *r)
{
	if (be_submit(b, p, t, c))
		return -1;
	return be_reap(b, p, t, r);
}

static int mkpipes(struct backend *b, int p, int t, int *in, int *out)
{
	int c[2], r[2];

	if (pipe(c))
		return -errno;
	if (pipe(r)) {
		close(c[0]);
		close(c[1]);
		return -errno;
	}
	b->cmdfd[p][t] = c[1];
	*in = c[0];
	b->repfd[p][t] = r[0];
	*out = r[1];
	return 0;
}

static int be_hello(struct backend *b)
{
	struct cmd c = {.op = OP_HELLO};
	struct reply r;

	for (int p = 0; p < NPROC; p++)
		for (int t = 0; t < NTHR; t++) {
			if (be_run(b, p, t, &c, &r))
				return -1;
			b->pid[p] = (pid_t)r.ret;
			b->tid[p][t] = (pid_t)r.val;
		}
	return 0;
}

static int host_start(struct backend *b)
{
	int in[NPROC][NTHR], out[NPROC][NTHR];
	struct stat st;
	int fd;

	for (int f = 0; f < NFILE; f++) {
		snprintf(host_path[f], sizeof(host_path[f]), "%s/ld%d", b->dir, f);
		unlink(host_path[f]);
		fd = open(host_path[f], O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || fstat(fd, &st)) {
			be_fail(b, "create %s: %s", host_path[f], strerror(errno));
			return -1;
		}
		close(fd);
		b->ino[f] = st.st_ino;
		snprintf(b->dev, sizeof(b->dev), "%02x:%02x:", major(st.st_dev), minor(st.st_dev));
	}
	if (b->mount) {
		snprintf(b->listing, sizeof(b->listing), "%s/.rcuvfs/locks", b->dir);
		b->dev[0] = 0;
	} else {
		snprintf(b->listing, sizeof(b->listing), "/proc/locks");
	}
	/* the shared descriptions: opened before the fork, closed after it */
	for (int s = 0; s < 2; s++) {
		slots_host[s] = open(host_path[slot_init[s].file], slot_init[s].flags);
		if (slots_host[s] < 0) {
			be_fail(b, "open %s: %s", host_path[s], strerror(errno));
			return -1;
		}
	}
	for (int s = 2; s < NSLOT; s++)
		slots_host[s] = -1;
	for (int p = 0; p < NPROC; p++)
		for (int t = 0; t < NTHR; t++)
			if (mkpipes(b, p, t, &in[p][t], &out[p][t])) {
				be_fail(b, "pipe: %s", strerror(errno));
				return -1;
			}
	fflush(NULL);
	for (int p = 0; p < NPROC; p++) {
		pid_t pid = fork();

		if (pid < 0) {
			be_fail(b, "fork: %s", strerror(errno));
			return -1;
		}
		if (pid == 0) {
			struct sigaction sa = {.sa_handler = on_sigusr1}; /* no SA_RESTART */
			struct worker w[NTHR];
			pthread_t th[NTHR];

			sigaction(SIGUSR1, &sa, NULL);
			for (int t = 0; t < NTHR; t++)
				w[t] = (struct worker){p, t, in[p][t], out[p][t], NULL};
			for (int t = 1; t < NTHR; t++)
				if (pthread_create(&th[t], NULL, host_worker, &w[t]))
					_exit(2);
			host_worker(&w[0]);
			_exit(0); /* thread 0 is told last: the others are done */
		}
		b->child[p] = pid;
	}
	for (int s = 0; s < 2; s++)
		close(slots_host[s]);
	for (int p = 0; p < NPROC; p++)
		for (int t = 0; t < NTHR; t++) {
			close(in[p][t]);
			close(out[p][t]);
		}
	return be_hello(b);
}

static int model_start(struct backend *b, const struct rv_switches *sw)
{
	struct kstat st;
	int r, fd;

	r = rv_instance_create(sw);
	if (r) {
		be_fail(b, "rv_instance_create: %s", strerror(-r));
		return -1;
	}
	b->driver = task_create_process("lockdiff");
	if (!b->driver) {
		be_fail(b, "task_create_process failed");
		return -1;
	}
	task_attach(b->driver);
	for (int f = 0; f < NFILE; f++) {
		struct file *file;

		r = filp_open(model_path[f], O_RDWR | O_CREAT | O_TRUNC, 0644, &file);
		if (r) {
			be_fail(b, "filp_open %s: %s", model_path[f], strerror(-r));
			return -1;
		}
		fput(file);
		if (vfs_stat(model_path[f], &st) == 0)
			b->ino[f] = st.ino;
	}
	int shared[2];

	for (int s = 0; s < 2; s++) {
		shared[s] = model_open(model_path[slot_init[s].file], slot_init[s].flags);
		if (shared[s] < 0) {
			be_fail(b, "open %s: %s", model_path[s], strerror(-shared[s]));
			return -1;
		}
	}
	for (int p = 0; p < NPROC; p++) {
		b->task[p][0] = task_fork(b->driver);
		for (int t = 1; t < NTHR && b->task[p][0]; t++)
			b->task[p][t] = task_clone_thread(b->task[p][0]);
		for (int t = 0; t < NTHR; t++)
			if (!b->task[p][t]) {
				be_fail(b, "task_fork/task_clone_thread failed");
				return -1;
			}
		for (int s = 0; s < NSLOT; s++)
			slots_model[p][s] = s < 2 ? shared[s] : -1;
	}
	for (int s = 0; s < 2; s++)
		close_fd((unsigned int)shared[s]);
	for (int p = 0; p < NPROC; p++)
		for (int t = 0; t < NTHR; t++) {
			struct worker *w = malloc(sizeof(*w));

			if (!w || mkpipes(b, p, t, &w->in, &w->out)) {
				free(w);
				be_fail(b, "worker setup failed");
				return -1;
			}
			w->p = p;
			w->t = t;
			w->task = b->task[p][t];
			fd = pthread_create(&b->thr[p][t], NULL, model_worker, w);
			if (fd) {
				be_fail(b, "pthread_create: %s", strerror(fd));
				return -1;
			}
		}
	(void)fd;
	return be_hello(b);
}

/* Interrupt a waiter: a signal on the host, task_signal in the model. */
static void be_signal(struct backend *b, int p, int t)
{
	if (b->kind == BE_HOST)
		syscall(SYS_tgkill, b->pid[p], b->tid[p][t], SIGUSR1);
	else
		task_signal(b->task[p][t]);
}

/* End every process; 0 when the run left nothing behind. */
static int be_stop(struct backend *b)
{
	struct cmd ex = {.op = OP_EXIT};
	struct reply r;
	int ret = b->err[0] ? -1 : 0;

	/* interrupt what still waits, then tell threads 1.. before thread 0 */
	for (int p = 0; p < NPROC; p++)
		for (int t = 0; t < NTHR; t++)
			if (b->pending[p][t] && b->cmdfd[p][t] > 0) {
				be_signal(b, p, t);
				if (be_reap(b, p, t, &r))
					ret = -1;
			}
	for (int t = NTHR - 1; t >= 0; t--)
		for (int p = 0; p < NPROC; p++) {
			if (b->cmdfd[p][t] > 0) {
				write_all(b->cmdfd[p][t], &ex, sizeof(ex));
				if (b->kind == BE_MODEL && b->thr[p][t])
					pthread_join(b->thr[p][t], NULL);
			}
		}
	for (int p = 0; p < NPROC; p++) {
		if (b->kind == BE_HOST && b->child[p] > 0) {
			int status;

			if (waitpid(b->child[p], &status, 0) != b->child[p] || !WIFEXITED(status) ||
			    WEXITSTATUS(status)) {
				be_fail(b, "process %d did not exit cleanly", p);
				ret = -1;
			}
		}
		for (int t = 0; t < NTHR; t++) {
			if (b->cmdfd[p][t] > 0)
				close(b->cmdfd[p][t]);
			if (b->repfd[p][t] > 0)
				close(b->repfd[p][t]);
		}
	}
	if (b->kind == BE_HOST) {
		for (int f = 0; f < NFILE; f++)
			unlink(host_path[f]);
		return ret;
	}
	if (b->driver) {
		if (locks_count_held() || locks_count_blocked()) {
			be_fail(b, "model: %ld held locks, %ld blocked requests after exit",
				locks_count_held(), locks_count_blocked());
			ret = -1;
		}
		for (int f = 0; f < NFILE; f++)
			do_unlink(model_path[f]);
		task_exit(b->driver);
	}
	if (rv_instance_live() && rv_instance_destroy()) {
		be_fail(b, "rv_instance_destroy: model objects leaked");
		ret = -1;
	}
	return ret;
}

/* ---- canonical text ----------------------------------------------------- */

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case EAGAIN:
		return "EAGAIN";
	case EBADF:
		return "EBADF";
	case EINVAL:
		return "EINVAL";
	case EDEADLK:
		return "EDEADLK";
	case EINTR:
		return "EINTR";
	case EOVERFLOW:
		return "EOVERFLOW";
	case ENOLCK:
		return "ENOLCK";
	case EACCES:
		return "EACCES";
	case ENOENT:
		return "ENOENT";
	case EMFILE:
		return "EMFILE";
	case ENOSYS:
		return "ENOSYS";
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static const char *typename(int t)
{
	static char buf[16];

	switch (t) {
	case F_RDLCK:
		return "R";
	case F_WRLCK:
		return "W";
	case F_UNLCK:
		return "U";
	}
	snprintf(buf, sizeof(buf), "T%d", t);
	return buf;
}

static const char *cmdname(int c)
{
	switch (c) {
	case F_GETLK:
		return "F_GETLK";
	case F_SETLK:
		return "F_SETLK";
	case F_SETLKW:
		return "F_SETLKW";
	case F_OFD_GETLK:
		return "F_OFD_GETLK";
	case F_OFD_SETLK:
		return "F_OFD_SETLK";
	case F_OFD_SETLKW:
		return "F_OFD_SETLKW";
	}
	return "F_?";
}

static const char *flockname(int c)
{
	static char buf[48];
	const char *base;

	switch (c & ~LOCK_NB) {
	case LOCK_SH:
		base = "SH";
		break;
	case LOCK_EX:
		base = "EX";
		break;
	case LOCK_UN:
		base = "UN";
		break;
	default:
		snprintf(buf, sizeof(buf), "0x%x", c);
		return buf;
	}
	snprintf(buf, sizeof(buf), "%s%s", base, (c & LOCK_NB) ? "|NB" : "");
	return buf;
}

/* A pid as the script's process ("p1"), -1, or "pid?" (not one of ours). */
static const char *pidname(const struct backend *b, pid_t pid, char *buf, size_t len)
{
	if (pid == -1)
		return "-1";
	for (int p = 0; p < NPROC; p++)
		if (b->pid[p] == pid) {
			snprintf(buf, len, "p%d", p);
			return buf;
		}
	snprintf(buf, len, "pid?%d", (int)pid);
	return buf;
}

static void fmt_cmd(char *out, size_t len, const struct step *s)
{
	const struct cmd *c = &s->c;
	char slot[16];
	int n;

	if (c->slot < 0)
		snprintf(slot, sizeof(slot), "badfd");
	else
		snprintf(slot, sizeof(slot), "s%d", c->slot);
	n = snprintf(out, len, "p%d.t%d ", s->p, s->t);
	out += n;
	len -= (size_t)n;
	switch (c->op) {
	case OP_OPEN:
		snprintf(out, len, "open(f%lld, %s) -> s%d", (long long)c->arg,
			 c->cmd == O_RDWR     ? "O_RDWR"
			 : c->cmd == O_RDONLY ? "O_RDONLY"
			 : c->cmd == O_WRONLY ? "O_WRONLY"
					      : "O_PATH",
			 c->slot);
		break;
	case OP_CLOSE:
		snprintf(out, len, "close(%s)", slot);
		break;
	case OP_DUPCLOSE:
		snprintf(out, len, "dup+close(%s)", slot);
		break;
	case OP_DUP2:
		snprintf(out, len, "dup2(%s, s%d)", slot, c->slot2);
		break;
	case OP_LSEEK:
		snprintf(out, len, "lseek(%s, %lld)", slot, (long long)c->arg);
		break;
	case OP_TRUNC:
		snprintf(out, len, "truncate(f%lld, %lld)", (long long)c->arg, (long long)c->len);
		break;
	case OP_FCNTL:
		snprintf(out, len, "fcntl(%s, %s, %s %s %lld %lld pid=%d)", slot, cmdname(c->cmd),
			 typename(c->type),
			 c->whence == SEEK_SET	 ? "SET"
			 : c->whence == SEEK_CUR ? "CUR"
			 : c->whence == SEEK_END ? "END"
						 : "WHENCE?",
			 (long long)c->start, (long long)c->len, c->pidf);
		break;
	case OP_FLOCK:
		snprintf(out, len, "flock(%s, %s)", slot, flockname(c->cmd));
		break;
	default:
		snprintf(out, len, "op%d", c->op);
		break;
	}
}

/*
 * The answer: "= 0", "= -EAGAIN", lseek's offset, and for a GETLK that
 * succeeded the lock found ({U}: none; else type start len whence pid).
 * pid_override: text to print for l_pid instead (mount normalisation).
 */
static void fmt_reply(char *out, size_t len, const struct backend *b, const struct step *s,
		      const struct reply *r, const char *pid_override)
{
	const struct cmd *c = &s->c;
	char pb[32];

	if (r->ret < 0) {
		snprintf(out, len, "= -%s", errname(-r->ret));
		return;
	}
	if (c->op == OP_LSEEK) {
		snprintf(out, len, "= %lld", (long long)r->val);
		return;
	}
	if (c->op == OP_FCNTL && (c->cmd == F_GETLK || c->cmd == F_OFD_GETLK)) {
		if (r->fl.l_type == F_UNLCK) {
			snprintf(out, len, "= 0 {U}");
			return;
		}
		snprintf(out, len, "= 0 {%s %lld %lld %s %s}", typename(r->fl.l_type),
			 (long long)r->fl.l_start, (long long)r->fl.l_len,
			 r->fl.l_whence == SEEK_SET ? "SET" : "WHENCE?",
			 pid_override ? pid_override : pidname(b, r->fl.l_pid, pb, sizeof(pb)));
		return;
	}
	snprintf(out, len, "= %d", r->ret);
}

/* ---- the lock listing, canonical ---------------------------------------- */

struct lent {
	char text[192];
	int depth;
	int parent; /* index of the entry it is blocked on, -1 for held */
};

/*
 * The listing's text into *out.  *snapshot: whether it is one consistent
 * picture.  The model's and the daemon's are (taken under the lock-list
 * locks; the daemon's control file is a snapshot made at open).
 * /proc/locks is a seq_file: each read() is made under the kernel's
 * file_rwsem, but between two read()s other processes may add or remove
 * locks, and the next read() resumes at a position that no longer means
 * the same entry (an entry is printed twice or not at all).  A read() that
 * returns less than a page minus a line ended at the end of the list
 * within one pass: that one is a snapshot.
 */
static int read_listing(struct backend *b, char **out, bool *snapshot)
{
	size_t need, cap = 65536, n = 0;
	ssize_t got;
	char *buf;
	int fd;

	*snapshot = true;
	if (b->kind == BE_MODEL) {
		need = locks_format_proc(NULL, 0);
		buf = malloc(need + 1);
		if (!buf)
			return -ENOMEM;
		locks_format_proc(buf, need + 1);
		*out = buf;
		return 0;
	}
	fd = open(b->listing, O_RDONLY);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	while (buf) {
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (n == 0 && !b->mount && (size_t)got + 256 > (size_t)sysconf(_SC_PAGESIZE))
			*snapshot = false; /* the first read() may have stopped at a full page */
		n += (size_t)got;
		if (cap - n - 1 == 0) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		if (*snapshot && !b->mount)
			break; /* complete: a further read() could repeat entries */
	}
	close(fd);
	if (!buf)
		return -ENOMEM;
	buf[n] = 0;
	*out = buf;
	return 0;
}

/*
 * The entries on the script's files: "f0 POSIX W p1 0-EOF", each blocked
 * request with its depth under the held lock (the listing's "->" lines).
 */
static int parse_listing(struct backend *b, struct lent *e, int max, bool *snapshot)
{
	char *buf = NULL, *line, *save = NULL;
	int n = 0;

	if (read_listing(b, &buf, snapshot))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *arrow, kind[16], type[16], devino[64], s0[32],
		     s1[32], pb[32];
		int depth = 0, pid, f;
		const char *rest;
		unsigned long long ino;
		char *lastc;

		if (!colon)
			continue;
		rest = colon + 1;
		arrow = strstr(rest, "->");
		if (arrow) {
			depth = (int)(arrow - rest); /* deeper levels are indented more */
			rest = arrow + 2;
		}
		if (sscanf(rest, "%15s ADVISORY %15s %d %63s %31s %31s", kind, type, &pid, devino,
			   s0, s1) != 6)
			continue;
		lastc = strrchr(devino, ':');
		if (!lastc || sscanf(lastc + 1, "%llu", &ino) != 1)
			continue;
		if (b->dev[0] && strncmp(devino, b->dev, strlen(b->dev)) != 0)
			continue;
		for (f = 0; f < NFILE && b->ino[f] != ino; f++)
			;
		if (f == NFILE)
			continue;
		e[n].depth = arrow ? depth + 1 : 0;
		e[n].parent = -1;
		if (arrow)
			for (int k = n - 1; k >= 0; k--)
				if (e[k].depth < e[n].depth) {
					e[n].parent = k;
					break;
				}
		if (arrow && e[n].parent < 0)
			continue; /* the held lock was on another file */
		snprintf(e[n].text, sizeof(e[n].text), "f%d %s %s %s %s-%s", f, kind,
			 type[0] == 'W'	  ? "W"
			 : type[0] == 'R' ? "R"
					  : type,
			 pidname(b, pid, pb, sizeof(pb)), s0, s1);
		n++;
	}
	free(buf);
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_str(const void *a, const void *b);

/*
 * Canonical text of entry i and what waits on it: "T <- [w1 <- [..], w2]".
 * Siblings are sorted: an unlock wakes all of them at once, so their order
 * in the queue decides nothing.
 */
static void fmt_tree(const struct lent *e, int n, int i, char *out, size_t len)
{
	char *kids[64];
	int m = 0;
	size_t pos = strlen(out);

	snprintf(out + pos, len - pos, "%s", e[i].text);
	for (int k = i + 1; k < n && m < 64; k++) {
		if (e[k].parent != i)
			continue;
		kids[m] = calloc(1, len);
		if (!kids[m])
			break;
		fmt_tree(e, n, k, kids[m], len);
		m++;
	}
	qsort(kids, (size_t)m, sizeof(kids[0]), cmp_str);
	for (int k = 0; k < m; k++) {
		pos = strlen(out);
		snprintf(out + pos, len - pos, "%s%s", k ? ", " : " <- [", kids[k]);
		free(kids[k]);
	}
	if (m) {
		pos = strlen(out);
		snprintf(out + pos, len - pos, "]");
	}
}

/*
 * One reading: "state: ..." for the held locks (sorted: the listing's order
 * is that of the global list, which neither side promises) with their
 * waiters; *blocked: the number of waiters.
 */
static int fmt_state_once(struct backend *b, char *out, size_t len, int *blocked, bool *snapshot)
{
	static struct lent e[512];
	char *items[512];
	int n = parse_listing(b, e, 512, snapshot), m = 0;
	size_t pos;

	if (n < 0)
		return -1;
	*blocked = 0;
	for (int i = 0; i < n; i++) {
		if (e[i].parent >= 0) {
			(*blocked)++;
			continue;
		}
		items[m] = calloc(1, 2048);
		if (!items[m])
			return -1;
		fmt_tree(e, n, i, items[m], 2048);
		m++;
	}
	qsort(items, (size_t)m, sizeof(items[0]), cmp_str);
	snprintf(out, len, "state:");
	for (int i = 0; i < m; i++) {
		pos = strlen(out);
		snprintf(out + pos, len - pos, " {%s}", items[i]);
		free(items[i]);
	}
	if (!m) {
		pos = strlen(out);
		snprintf(out + pos, len - pos, " none");
	}
	return 0;
}

#define STABLE_READS 3

/*
 * The listing, canonical.  A /proc/locks longer than a page is read in
 * several passes that need not agree (read_listing); our own entries change
 * only when the script acts, so such a reading counts once STABLE_READS
 * consecutive readings agree.
 */
static int fmt_state(struct backend *b, char *out, size_t len, int *blocked)
{
	int same = 0, nb = 0;
	char *prev = calloc(1, len);
	bool snap;

	if (!prev)
		return -1;
	for (int tries = 0; tries < 1000; tries++) {
		if (fmt_state_once(b, out, len, &nb, &snap)) {
			free(prev);
			return -1;
		}
		same = tries && !strcmp(out, prev) && nb == *blocked ? same + 1 : 1;
		*blocked = nb;
		if (snap || same >= STABLE_READS) {
			free(prev);
			return 0;
		}
		snprintf(prev, len, "%s", out);
	}
	free(prev);
	return -1;
}

static int count_blocked(struct backend *b)
{
	static char text[8192];
	int k = 0;

	return fmt_state(b, text, sizeof(text), &k) ? -1 : k;
}

/* ---- transcripts -------------------------------------------------------- */

struct rec {
	struct step s;
	struct reply r;
	int kind; /* R_STEP, R_STATE, R_NOTE */
	int fuse; /* scenario lines the FUSE limits change: FUSE_* */
	char text[4096];
};
enum { R_STEP, R_STATE, R_NOTE };
/* a wait that the mount answers with EDEADLK at once, and its later answer */
enum { FUSE_NONE, FUSE_DEADLK_WAIT, FUSE_DEADLK_REAP };

struct transcript {
	struct rec *v;
	int n, cap;
	pid_t pid[NPROC];
};

static struct rec *tr_add(struct transcript *tr)
{
	if (tr->n == tr->cap) {
		int cap = tr->cap ? tr->cap * 2 : 1024;
		struct rec *v = realloc(tr->v, (size_t)cap * sizeof(*v));

		if (!v) {
			fprintf(stderr, "lockdiff: out of memory\n");
			exit(2);
		}
		tr->v = v;
		tr->cap = cap;
	}
	memset(&tr->v[tr->n], 0, sizeof(tr->v[0]));
	return &tr->v[tr->n++];
}

static void tr_step(struct transcript *tr, struct backend *b, const struct step *s,
		    const struct reply *r)
{
	struct rec *x = tr_add(tr);
	char c[LINE], a[LINE];

	x->kind = R_STEP;
	x->s = *s;
	x->r = *r;
	fmt_cmd(c, sizeof(c), s);
	fmt_reply(a, sizeof(a), b, s, r, NULL);
	snprintf(x->text, sizeof(x->text), "%s %s", c, a);
}

static void tr_state(struct transcript *tr, struct backend *b)
{
	struct rec *x = tr_add(tr);

	int k = 0;

	x->kind = R_STATE;
	if (fmt_state(b, x->text, sizeof(x->text), &k))
		be_fail(b, "cannot read the lock listing %s", b->listing);
}

static struct rec *tr_note(struct transcript *tr, const char *fmt, ...)
{
	struct rec *x = tr_add(tr);
	va_list ap;

	x->kind = R_NOTE;
	va_start(ap, fmt);
	vsnprintf(x->text, sizeof(x->text), fmt, ap);
	va_end(ap);
	return x;
}

static void tr_free(struct transcript *tr)
{
	free(tr->v);
	memset(tr, 0, sizeof(*tr));
}

/*
 * The open file descriptions of a script run, tracked from the answers (the
 * mount's release wait below needs their number).
 */
struct descs {
	int slot[NPROC][NSLOT]; /* description index, -1: closed */
	int ref[NPROC * NSLOT + 2];
	bool opath[NPROC * NSLOT + 2];
	int n;
};

static void descs_init(struct descs *d)
{
	memset(d, 0, sizeof(*d));
	for (int p = 0; p < NPROC; p++)
		for (int s = 0; s < NSLOT; s++)
			d->slot[p][s] = s < 2 ? s : -1;
	d->ref[0] = d->ref[1] = NPROC; /* the driver's copies are closed */
	d->n = 2;
}

static void descs_put(struct descs *d, int i)
{
	if (i >= 0)
		d->ref[i]--;
}

/* Apply a step that succeeded; false when it cannot be tracked. */
static bool descs_step(struct descs *d, const struct step *s)
{
	int *sl = d->slot[s->p], a = s->c.slot;

	if (a < 0)
		return true;
	switch (s->c.op) {
	case OP_OPEN: {
		int i = 2;

		while (i < d->n && d->ref[i] > 0) /* reuse a dead index */
			i++;
		if (i == d->n) {
			if ((size_t)d->n == sizeof(d->ref) / sizeof(d->ref[0]))
				return false;
			d->n++;
		}
		descs_put(d, sl[a]);
		sl[a] = i;
		d->ref[i] = 1;
		d->opath[i] = s->c.cmd == O_PATH;
		return true;
	}
	case OP_CLOSE:
		descs_put(d, sl[a]);
		sl[a] = -1;
		return true;
	case OP_DUP2:
		if (sl[a] >= 0)
			d->ref[sl[a]]++;
		descs_put(d, sl[s->c.slot2]);
		sl[s->c.slot2] = sl[a];
		return true;
	}
	return true;
}

/* Open descriptions the daemon has (O_PATH ones never reach it). */
static long descs_live(const struct descs *d)
{
	long n = 0;

	for (int i = 0; i < d->n; i++)
		n += d->ref[i] > 0 && !d->opath[i];
	return n;
}

/* The daemon's count of live model files (opened, not yet released). */
static long mount_files(struct backend *b)
{
	char path[4200], line[256];
	long allocs = -1, frees = -1, v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/.rcuvfs/stats", b->dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "file_allocs %ld", &v) == 1)
			allocs = v;
		else if (sscanf(line, "file_frees %ld", &v) == 1)
			frees = v;
	}
	fclose(f);
	return allocs < 0 || frees < 0 ? -1 : allocs - frees;
}

/*
 * Through the mount a description's last close returns before the daemon
 * has released it (the kernel sends RELEASE in the background), so its
 * flock and OFD locks outlive close() for a moment: a documented FUSE limit
 * that would make the next step's answer depend on timing.  After a step
 * that may drop a description, wait (bounded) until the daemon holds as
 * many files as the script has descriptions; its file_frees count is raised
 * after the file's locks are gone.
 */
static void mount_quiesce(struct backend *b, const struct descs *d)
{
	long want = descs_live(d) + b->files0, got = -1;

	for (int ms = 0; ms < WAIT_MS; ms++) {
		got = mount_files(b);
		if (got == want)
			return;
		usleep(1000);
	}
	be_fail(b, "the daemon holds %ld files, the script %ld descriptions", got, want);
}

/* Run a random script; state lines when `state`. */
static int run_script(struct backend *b, const struct step *st, int n, bool state,
		      struct transcript *tr)
{
	struct descs d;
	struct reply r;

	descs_init(&d);
	if (b->mount) {
		/* files the daemon holds besides the script's (none expected) */
		b->files0 = 0;
		mount_quiesce(b, &d);
	}
	for (int i = 0; i < n && !b->err[0]; i++) {
		if (be_run(b, st[i].p, st[i].t, &st[i].c, &r))
			break;
		if (r.ret == 0 && !descs_step(&d, &st[i]))
			be_fail(b, "too many descriptions to track");
		if (b->mount && r.ret == 0 &&
		    (st[i].c.op == OP_CLOSE || st[i].c.op == OP_DUP2 || st[i].c.op == OP_DUPCLOSE))
			mount_quiesce(b, &d);
		tr_step(tr, b, &st[i], &r);
		if (state && (i % STATE_EVERY == STATE_EVERY - 1 || i == n - 1))
			tr_state(tr, b);
	}
	memcpy(tr->pid, b->pid, sizeof(tr->pid));
	return b->err[0] ? -1 : 0;
}

/* ---- blocking scenarios ------------------------------------------------- */

enum sk {
	S_RUN,	  /* run, wait for the answer, print it */
	S_ASYNC,  /* submit; the answer is reaped later */
	S_WAITQ,  /* wait until the listing shows n blocked requests */
	S_REAP,	  /* wait for p.t's answer, print it */
	S_SIGNAL, /* interrupt p.t */
	S_STATE,  /* print the listing */
	S_END,
};

struct sstep {
	int kind, p, t;
	struct cmd c;
	int n, n_fuse; /* S_WAITQ: requests waiting, on the host and through FUSE */
	/* through the mount, this asynchronous request fails with EDEADLK at
	 * once instead of waiting (the daemon sees OFD owners as POSIX ones) */
	bool fuse_deadlk;
};

#define FCMD(CMD, SL, TY, S, L)                                                                    \
	{                                                                                          \
		.op = OP_FCNTL, .slot = SL, .cmd = CMD, .type = TY, .start = S, .len = L           \
	}
#define LK(P, T, CMD, SL, TY, S, L)                                                                \
	{                                                                                          \
		.kind = S_RUN, .p = P, .t = T, .c = FCMD(CMD, SL, TY, S, L)                        \
	}
#define LKA(P, T, CMD, SL, TY, S, L)                                                               \
	{                                                                                          \
		.kind = S_ASYNC, .p = P, .t = T, .c = FCMD(CMD, SL, TY, S, L)                      \
	}
/* a wait the daemon refuses with EDEADLK: it sees OFD owners as POSIX ones */
#define LKA_FUSE_DEADLK(P, T, CMD, SL, TY, S, L)                                                   \
	{                                                                                          \
		.kind = S_ASYNC, .p = P, .t = T, .c = FCMD(CMD, SL, TY, S, L), .fuse_deadlk = true \
	}
#define FL(P, T, SL, CMD)                                                                          \
	{                                                                                          \
		.kind = S_RUN, .p = P, .t = T, .c = {.op = OP_FLOCK, .slot = SL, .cmd = CMD }      \
	}
#define FLA(P, T, SL, CMD)                                                                         \
	{                                                                                          \
		.kind = S_ASYNC, .p = P, .t = T, .c = {.op = OP_FLOCK, .slot = SL, .cmd = CMD }    \
	}
#define WAITQ(N)                                                                                   \
	{                                                                                          \
		.kind = S_WAITQ, .n = N, .n_fuse = N                                               \
	}
#define WAITQ_FUSE(N, NF)                                                                          \
	{                                                                                          \
		.kind = S_WAITQ, .n = N, .n_fuse = NF                                              \
	}
#define REAP(P, T)                                                                                 \
	{                                                                                          \
		.kind = S_REAP, .p = P, .t = T                                                     \
	}
#define SIG(P, T)                                                                                  \
	{                                                                                          \
		.kind = S_SIGNAL, .p = P, .t = T                                                   \
	}
#define STATE                                                                                      \
	{                                                                                          \
		.kind = S_STATE                                                                    \
	}
#define END                                                                                        \
	{                                                                                          \
		.kind = S_END                                                                      \
	}

struct scenario {
	const char *name;
	struct sstep s[40];
};

/*
 * Slots: s2 (f0, read-write) is each process's own description of f0, s0
 * the description every process shares.  POSIX: F_SETLK(W) through s2.
 */
static const struct scenario scenarios[] = {
    {"posix-grant-order",
     /* H=p0 holds W[0,EOF]; A=p1 waits W[0,0]; B=p2 waits R[0,0] (behind
      * A's request: it conflicts with it); after H unlocks, A is granted
      * before B wakes (B waits on A's request, woken when A is done), B
      * queues on A's lock */
     {LK(0, 0, F_SETLK, 2, F_WRLCK, 0, 0), LKA(1, 0, F_SETLKW, 2, F_WRLCK, 0, 1), WAITQ(1),
      LKA(2, 0, F_SETLKW, 2, F_RDLCK, 0, 1), WAITQ(2), STATE, LK(0, 0, F_SETLK, 2, F_UNLCK, 0, 0),
      REAP(1, 0), WAITQ(1), STATE, LK(1, 0, F_SETLK, 2, F_UNLCK, 0, 0), REAP(2, 0), WAITQ(0), STATE,
      END}},
    {"posix-wake-disjoint",
     /* waiters on disjoint ranges are all direct waiters of the holder; a
      * partial unlock wakes them all, those still in conflict queue again */
     {LK(0, 0, F_SETLK, 2, F_WRLCK, 0, 20), LKA(1, 0, F_SETLKW, 2, F_WRLCK, 0, 5), WAITQ(1),
      LKA(2, 0, F_SETLKW, 2, F_WRLCK, 10, 5), WAITQ(2), LKA(2, 1, F_SETLKW, 2, F_RDLCK, 17, 1),
      WAITQ(3), STATE, LK(0, 0, F_SETLK, 2, F_UNLCK, 0, 10), REAP(1, 0), WAITQ(2), STATE,
      LK(0, 1, F_SETLK, 2, F_UNLCK, 0, 0), REAP(2, 0), REAP(2, 1), STATE, END}},
    {"posix-edeadlk-simple",
     /* A holds [0,0], B holds [1,1]; A waits for [1,1]; B asks [0,0] */
     {LK(0, 0, F_SETLK, 2, F_WRLCK, 0, 1), LK(1, 0, F_SETLK, 2, F_WRLCK, 1, 1),
      LKA(0, 1, F_SETLKW, 2, F_WRLCK, 1, 1), WAITQ(1), LK(1, 1, F_SETLKW, 2, F_WRLCK, 0, 1), STATE,
      LK(1, 0, F_SETLK, 2, F_UNLCK, 0, 0), REAP(0, 1), STATE, END}},
    {"posix-rewait-no-deadlock",
     /* H holds W[0,0], B holds W[10,10]; C waits W[0,10] behind H; B waits
      * W[0,0] under C's request; H unlocks: C retries and must wait for
      * B's [10,10] (no EDEADLK: B's request was woken first), B gets [0,0] */
     {LK(0, 0, F_SETLK, 2, F_WRLCK, 0, 1), LK(1, 0, F_SETLK, 2, F_WRLCK, 10, 1),
      LKA(2, 0, F_SETLKW, 2, F_WRLCK, 0, 11), WAITQ(1), LKA(1, 1, F_SETLKW, 2, F_WRLCK, 0, 1),
      WAITQ(2), STATE, LK(0, 0, F_SETLK, 2, F_UNLCK, 0, 1), REAP(1, 1), WAITQ(1), STATE,
      LK(1, 0, F_SETLK, 2, F_UNLCK, 0, 0), REAP(2, 0), STATE, END}},
    {"ofd-blocker-edeadlk",
     /* C=p1 holds W[10,10]; OFD F (p0's s2) holds W[0,0]; F waits for
      * W[10,10] (its blocker is POSIX: F enters the wait graph); C asks
      * W[0,0]: EDEADLK */
     {LK(1, 0, F_SETLK, 2, F_WRLCK, 10, 1), LK(0, 0, F_OFD_SETLK, 2, F_WRLCK, 0, 1),
      LKA(0, 0, F_OFD_SETLKW, 2, F_WRLCK, 10, 1), WAITQ(1), LK(1, 0, F_SETLKW, 2, F_WRLCK, 0, 1),
      STATE, LK(1, 0, F_SETLK, 2, F_UNLCK, 0, 0), REAP(0, 0), STATE, END}},
    {"posix-behind-ofd-and-posix",
     /* OFD F (p0 s2) holds W[0,0]; C=p1 holds W[10,10] and waits W[0,0]
      * behind F (an OFD blocker: C is not in the wait graph); B=p2 holds
      * W[20,20], waits W[10,10] behind C; C's owner asks W[20,20]:
      * EDEADLK (B waits on C, a POSIX lock); then F unlocks */
     {LK(0, 0, F_OFD_SETLK, 2, F_WRLCK, 0, 1), LK(1, 0, F_SETLK, 2, F_WRLCK, 10, 1),
      LK(2, 0, F_SETLK, 2, F_WRLCK, 20, 1), LKA(1, 1, F_SETLKW, 2, F_WRLCK, 0, 1), WAITQ(1),
      LKA(2, 1, F_SETLKW, 2, F_WRLCK, 10, 1), WAITQ(2), LK(1, 0, F_SETLKW, 2, F_WRLCK, 20, 1),
      STATE, LK(0, 0, F_OFD_SETLK, 2, F_UNLCK, 0, 0), REAP(1, 1), STATE,
      LK(1, 0, F_SETLK, 2, F_UNLCK, 0, 0), REAP(2, 1), STATE, END}},
    {"fuse-ofd-deadlock",
     /* OFD F (p0 s2) holds W[0,0]; C=p1 holds W[10,10] and waits W[0,0]
      * behind F; F waits W[10,10]: on Linux a deadlock nobody detects (an
      * OFD request is never checked) until C is interrupted and unlocks;
      * through the mount F's request is a POSIX one: EDEADLK at once */
     {LK(0, 0, F_OFD_SETLK, 2, F_WRLCK, 0, 1), LK(1, 0, F_SETLK, 2, F_WRLCK, 10, 1),
      LKA(1, 1, F_SETLKW, 2, F_WRLCK, 0, 1), WAITQ(1),
      LKA_FUSE_DEADLK(0, 0, F_OFD_SETLKW, 2, F_WRLCK, 10, 1), WAITQ_FUSE(2, 1), STATE, SIG(1, 1),
      REAP(1, 1), LK(1, 0, F_SETLK, 2, F_UNLCK, 0, 0), REAP(0, 0), STATE, END}},
    {"fuse-deadlock-through-ofd-waiter",
     /* OFD F1 (p0 s2) holds W[0,0], OFD F2 (p1 s2) W[5,5], C=p2 W[10,10];
      * F2 waits for [0,0] behind F1 (an OFD blocker: F2 stays out of the
      * wait graph), F1 waits for [10,10] behind C; C asks [5,5]: Linux
      * follows F2 no further and lets C wait (a deadlock nobody detects);
      * through the mount the cycle C -> F2 -> F1 -> C gives C EDEADLK */
     {LK(0, 0, F_OFD_SETLK, 2, F_WRLCK, 0, 1), LK(1, 0, F_OFD_SETLK, 2, F_WRLCK, 5, 1),
      LK(2, 0, F_SETLK, 2, F_WRLCK, 10, 1), LKA(1, 1, F_OFD_SETLKW, 2, F_WRLCK, 0, 1), WAITQ(1),
      LKA(0, 1, F_OFD_SETLKW, 2, F_WRLCK, 10, 1), WAITQ(2),
      LKA_FUSE_DEADLK(2, 1, F_SETLKW, 2, F_WRLCK, 5, 1), WAITQ_FUSE(3, 2), STATE, SIG(2, 1),
      REAP(2, 1), LK(2, 0, F_SETLK, 2, F_UNLCK, 0, 0), REAP(0, 1),
      LK(0, 0, F_OFD_SETLK, 2, F_UNLCK, 0, 0), REAP(1, 1), STATE, END}},
    {"ofd-waiters",
     /* two descriptions of one process conflict: p0 s0 (shared) and s2 */
     {LK(0, 0, F_OFD_SETLK, 2, F_WRLCK, 0, 10), LKA(0, 1, F_OFD_SETLKW, 0, F_WRLCK, 5, 10),
      WAITQ(1), LKA(1, 0, F_OFD_SETLKW, 2, F_RDLCK, 0, 1), WAITQ(2), STATE,
      LK(0, 0, F_OFD_SETLK, 2, F_UNLCK, 0, 0), REAP(0, 1), REAP(1, 0), STATE,
      /* both were granted at once, in either order: query each alone */
      LK(2, 0, F_OFD_GETLK, 2, F_WRLCK, 0, 1), LK(2, 0, F_OFD_GETLK, 2, F_WRLCK, 5, 1), END}},
    {"flock-waiters",
     /* H=p0 EX; A=p1 EX waits; B=p2 SH waits behind A; H unlocks: A, then
      * B behind A; A unlocks: B */
     {FL(0, 0, 2, LOCK_EX), FLA(1, 0, 2, LOCK_EX), WAITQ(1), FLA(2, 0, 2, LOCK_SH), WAITQ(2), STATE,
      FL(0, 0, 2, LOCK_UN), REAP(1, 0), WAITQ(1), STATE, FL(1, 0, 2, LOCK_UN), REAP(2, 0), STATE,
      END}},
    {"flock-shared-description",
     /* s0 is shared by every process: a flock through it is one lock */
     {FL(0, 0, 0, LOCK_EX), FL(1, 0, 0, LOCK_EX | LOCK_NB), FL(2, 0, 2, LOCK_SH | LOCK_NB),
      FLA(1, 1, 2, LOCK_SH), WAITQ(1), STATE, FL(2, 0, 0, LOCK_UN), REAP(1, 1), STATE, END}},
    {"eintr",
     /* a POSIX, an OFD and a flock waiter, each interrupted */
     {LK(0, 0, F_SETLK, 2, F_WRLCK, 0, 0),
      FL(0, 0, 3, LOCK_EX),
      LKA(1, 0, F_SETLKW, 2, F_RDLCK, 5, 1),
      WAITQ(1),
      LKA(2, 0, F_OFD_SETLKW, 2, F_WRLCK, 0, 1),
      WAITQ(2),
      FLA(1, 1, 3, LOCK_SH),
      WAITQ(3),
      STATE,
      SIG(1, 0),
      REAP(1, 0),
      WAITQ(2),
      SIG(2, 0),
      REAP(2, 0),
      WAITQ(1),
      SIG(1, 1),
      REAP(1, 1),
      WAITQ(0),
      STATE,
      END}},
};
#define NSCEN ((int)(sizeof(scenarios) / sizeof(scenarios[0])))

static bool is_blocking(const struct cmd *c)
{
	if (c->op == OP_FCNTL)
		return c->cmd == F_SETLKW || c->cmd == F_OFD_SETLKW;
	return c->op == OP_FLOCK && !(c->cmd & LOCK_NB);
}

/*
 * A blocking command expected to be answered at once (EDEADLK, or granted):
 * its answer, or "waits" when the listing shows it queued instead (left
 * pending: the scenario's end interrupts it).  A request that queued stays
 * queued until a lock changes, so this does not depend on timing.
 */
static void run_or_queue(struct backend *b, const struct step *s, struct transcript *tr)
{
	int before = count_blocked(b);
	struct reply r;
	char cm[LINE];

	if (be_submit(b, s->p, s->t, &s->c))
		return;
	for (int ms = 0; ms < WAIT_MS; ms += 2) {
		if (be_ready(b, s->p, s->t, 2)) {
			if (be_reap(b, s->p, s->t, &r) == 0)
				tr_step(tr, b, s, &r);
			return;
		}
		if (count_blocked(b) > before) {
			fmt_cmd(cm, sizeof(cm), s);
			tr_note(tr, "%s waits", cm);
			return;
		}
	}
	be_fail(b, "p%d.t%d: neither answered nor queued", s->p, s->t);
}

static bool line_matches(const struct rec *ref, const struct rec *got, const struct backend *bm,
			 bool fuse, char *want, size_t len, long *normalised);
static long norm_scratch; /* the scenario runner's early checks: not counted */

static int run_scenario(struct backend *b, const struct scenario *sc, const struct transcript *ref,
			bool fuse, struct transcript *tr)
{
	bool fuse_answered[NPROC][NTHR] = {{false}}, fuse_waiting[NPROC][NTHR] = {{false}};
	struct reply r;
	int checked = 0;
	char want[4096];

	tr_note(tr, "scenario %s", sc->name);
	for (int p = 0; p < NPROC; p++)
		for (int sl = 2; sl < NSLOT; sl++) {
			struct cmd o = {.op = OP_OPEN,
					.slot = sl,
					.cmd = slot_init[sl].flags,
					.arg = slot_init[sl].file};

			if (be_run(b, p, 0, &o, &r) || r.ret)
				be_fail(b, "p%d: open slot %d: %s", p, sl, strerror(-r.ret));
		}
	for (int i = 0; sc->s[i].kind != S_END && !b->err[0]; i++) {
		const struct sstep *x = &sc->s[i];
		struct step s = {x->p, x->t, x->c};
		int k = 0;

		switch (x->kind) {
		case S_RUN:
			if (is_blocking(&x->c)) {
				run_or_queue(b, &s, tr);
				break;
			}
			if (be_run(b, x->p, x->t, &x->c, &r) == 0)
				tr_step(tr, b, &s, &r);
			break;
		case S_ASYNC:
			if (x->fuse_deadlk && b->mount) {
				/* the daemon answers at once (checked by compare) */
				if (be_run(b, x->p, x->t, &x->c, &r) == 0)
					tr_step(tr, b, &s, &r);
				fuse_answered[x->p][x->t] = true;
				break;
			}
			if (be_submit(b, x->p, x->t, &x->c) == 0 && x->fuse_deadlk) {
				char cm[LINE];

				fmt_cmd(cm, sizeof(cm), &s);
				struct rec *nr = tr_note(tr, "%s waits", cm);

				nr->fuse = FUSE_DEADLK_WAIT;
				nr->s = s;
				fuse_waiting[x->p][x->t] = true;
			}
			break;
		case S_REAP:
			s.c = b->pend[x->p][x->t];
			if (fuse_answered[x->p][x->t]) {
				fuse_answered[x->p][x->t] = false;
				tr_note(tr, "p%d.t%d: answered when submitted", x->p, x->t);
				break;
			}
			if (!b->pending[x->p][x->t]) {
				tr_note(tr, "p%d.t%d: answered earlier", x->p, x->t);
				break;
			}
			if (be_reap(b, x->p, x->t, &r) == 0) {
				tr_step(tr, b, &s, &r);
				if (fuse_waiting[x->p][x->t])
					tr->v[tr->n - 1].fuse = FUSE_DEADLK_REAP;
			}
			fuse_waiting[x->p][x->t] = false;
			break;
		case S_SIGNAL:
			be_signal(b, x->p, x->t);
			break;
		case S_STATE:
			tr_state(tr, b);
			break;
		case S_WAITQ:
			/* until n requests wait, or an answer came instead */
			for (int ms = 0; ms < WAIT_MS; ms += 2) {
				bool answered = false;

				k = count_blocked(b);
				if (k == (b->mount ? x->n_fuse : x->n))
					break;
				for (int p = 0; p < NPROC; p++)
					for (int t = 0; t < NTHR; t++)
						if (b->pending[p][t] && be_ready(b, p, t, 0)) {
							struct step a = {p, t, b->pend[p][t]};

							be_reap(b, p, t, &r);
							tr_step(tr, b, &a, &r);
							tr_note(
							    tr,
							    "answered before %d requests waited",
							    x->n);
							answered = true;
						}
				if (answered)
					break;
				usleep(2000);
			}
			if (k < 0)
				be_fail(b, "cannot read the lock listing %s", b->listing);
			break;
		}
		for (; ref && checked < tr->n; checked++)
			if (checked >= ref->n ||
			    !line_matches(&ref->v[checked], &tr->v[checked], b, fuse, want,
					  sizeof(want), &norm_scratch))
				break;
		if (ref && checked < tr->n) {
			tr_note(tr, "(scenario stopped at its first difference)");
			break;
		}
	}
	memcpy(tr->pid, b->pid, sizeof(tr->pid));
	return b->err[0] ? -1 : 0;
}

/* ---- comparing ---------------------------------------------------------- */

/* Lines changed by each normalisation (see the file comment). */
enum { NORM_OFD_GETLK_PID, NORM_GETLK_OFD_HOLDER, NORM_FUSE_DEADLK, NORM_N };
static long norm_count[NORM_N];
static int norm_last; /* the kind fuse_normalise applied */

/*
 * Through the mount: the answer the FUSE protocol predicts from the tmpfs
 * one, in the mount's own terms (see the file comment).  Returns the text
 * of the expected mount line, or NULL when the tmpfs line is expected as is.
 */
static bool fuse_normalise(const struct rec *ref, const struct rec *mnt, const struct backend *bm,
			   char *out, size_t len)
{
	const struct cmd *c = &ref->s.c;
	char cm[LINE], a[LINE], pb[32];

	norm_last = NORM_FUSE_DEADLK;
	if (ref->fuse == FUSE_DEADLK_WAIT) {
		/* the daemon's deadlock check sees F as a POSIX owner */
		fmt_cmd(cm, sizeof(cm), &ref->s);
		snprintf(out, len, "%s = -EDEADLK", cm);
		return true;
	}
	if (ref->fuse == FUSE_DEADLK_REAP) {
		snprintf(out, len, "p%d.t%d: answered when submitted", ref->s.p, ref->s.t);
		return true;
	}
	if (ref->kind != R_STEP || c->op != OP_FCNTL || ref->r.ret < 0 ||
	    ref->r.fl.l_type == F_UNLCK || mnt->kind != R_STEP)
		return false;
	if (c->cmd == F_OFD_GETLK) {
		/* the kernel's FUSE client reports -1 for every holder */
		norm_last = NORM_OFD_GETLK_PID;
		fmt_cmd(cm, sizeof(cm), &ref->s);
		fmt_reply(a, sizeof(a), bm, &ref->s, &ref->r, "-1");
		snprintf(out, len, "%s %s", cm, a);
		return true;
	}
	if (c->cmd == F_GETLK && ref->r.fl.l_pid == -1) {
		/* an OFD holder: the daemon knows the pid of the process that
		 * took it, some script process */
		int p = -1;

		for (int k = 0; k < NPROC; k++)
			if (mnt->r.fl.l_pid == bm->pid[k])
				p = k;
		if (p < 0)
			return false;
		norm_last = NORM_GETLK_OFD_HOLDER;
		snprintf(pb, sizeof(pb), "p%d", p);
		fmt_cmd(cm, sizeof(cm), &ref->s);
		fmt_reply(a, sizeof(a), bm, &ref->s, &ref->r, pb);
		snprintf(out, len, "%s %s", cm, a);
		return true;
	}
	return false;
}

/*
 * Whether `got` is the line `ref` predicts: the same text, or through the
 * mount (fuse) the text the FUSE limits make of it (*normalised counts those
 * that changed); want receives the expected text.  State lines are not
 * compared through the mount.
 */
static bool line_matches(const struct rec *ref, const struct rec *got, const struct backend *bm,
			 bool fuse, char *want, size_t len, long *normalised)
{
	snprintf(want, len, "%s", ref->text);
	norm_last = -1;
	if (fuse && ref->kind == R_STATE && got->kind == R_STATE)
		return true;
	bool match;

	if (fuse && fuse_normalise(ref, got, bm, want, len) && strcmp(want, ref->text))
		(*normalised)++;
	else
		norm_last = -1;
	match = strcmp(want, got->text) == 0;
	if (match && norm_last >= 0 && normalised != &norm_scratch)
		norm_count[norm_last]++;
	return match;
}

/* Differences printed per comparison (-k N); later lines may follow from the first. */
static int max_diffs = 1;

/* Print the first max_diffs differences; 0 when equal. */
static int compare(const char *what, const char *an, const struct transcript *a, const char *bn,
		   const struct transcript *b, const struct backend *bm, bool fuse,
		   long *normalised)
{
	int n = a->n < b->n ? a->n : b->n, diffs = 0;
	char exp[4096];

	for (int i = 0; i < n && diffs < max_diffs; i++) {
		if (!line_matches(&a->v[i], &b->v[i], bm, fuse, exp, sizeof(exp), normalised)) {
			int step = 0;

			for (int k = 0; k < i; k++)
				step += a->v[k].kind == R_STEP;
			printf("DIFF %s at line %d (step %d)\n  %-6s %s\n", what, i, step, an,
			       a->v[i].text);
			if (strcmp(exp, a->v[i].text))
				printf("  %-6s %s (expected through FUSE)\n", "", exp);
			printf("  %-6s %s\n", bn, b->v[i].text);
			if (i > 0)
				printf("  previous: %s\n", a->v[i - 1].text);
			diffs++;
		}
	}
	if (a->n != b->n) {
		printf("DIFF %s: %s has %d lines, %s %d\n", what, an, a->n, bn, b->n);
		diffs++;
	}
	return diffs;
}

/* ---- main --------------------------------------------------------------- */

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

static int parse_sw(const char *text, struct rv_switches *sw)
{
	char buf[512], err[256], *save = NULL, *kv;

	rv_switches_default(sw);
	snprintf(buf, sizeof(buf), "%s", text);
	for (kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq) {
			fprintf(stderr, "lockdiff: %s: not name=value\n", kv);
			return -1;
		}
		*eq = 0;
		if (rv_switch_set(sw, kv, eq + 1, err, sizeof(err))) {
			fprintf(stderr, "lockdiff: %s\n", err);
			return -1;
		}
	}
	return 0;
}

static void usage_text(FILE *f)
{
	fprintf(f, "usage: rcuvfs-lockdiff [-k MAXDIFFS] model DIR SEEDS STEPS SWITCHES...\n"
		   "       rcuvfs-lockdiff mount TMPFS_DIR MOUNT_DIR SEEDS STEPS\n"
		   "       rcuvfs-lockdiff scen-model DIR SWITCHES...\n"
		   "       rcuvfs-lockdiff scen-mount TMPFS_DIR MOUNT_DIR\n"
		   "       rcuvfs-lockdiff print host DIR SEED STEPS\n"
		   "       rcuvfs-lockdiff print model SWITCHES SEED STEPS\n"
		   "       rcuvfs-lockdiff print scen host DIR | print scen model SWITCHES\n"
		   "SEEDS: N or A-B; SWITCHES: e.g. filelock=inode,bkl_ops=lock\n"
		   "  -V, --version  version and git commit\n"
		   "  -h, --help     this text\n");
}

/* A command line that names no valid mode: one line, exit 2. */
static void usage(void)
{
	fprintf(stderr, "rcuvfs-lockdiff: bad command line (try --help)\n");
	exit(2);
}

/* One run on a fresh backend: a script (st != NULL) or every scenario. */
static bool no_state; /* mount comparisons: no state lines on either side */

static struct backend *be_new(int kind, const char *dir, bool mount)
{
	struct backend *b = calloc(1, sizeof(*b));

	if (!b) {
		fprintf(stderr, "lockdiff: out of memory\n");
		exit(2);
	}
	b->kind = kind;
	b->dir = dir;
	b->mount = mount;
	return b;
}

static int be_start(struct backend *b, const struct rv_switches *sw)
{
	return b->kind == BE_HOST ? host_start(b) : model_start(b, sw);
}

static int be_report(struct backend *b, int r)
{
	if (r)
		fprintf(stderr, "lockdiff: %s run failed: %s\n",
			b->kind == BE_HOST ? b->dir : "model", b->err);
	return r;
}

/* One script on a fresh backend; *pids: the processes' pids (mapping). */
static int run_one(int kind, const char *dir, bool mount, const struct rv_switches *sw,
		   const struct step *st, int n, struct transcript *tr)
{
	struct backend *b = be_new(kind, dir, mount);
	int r = be_start(b, sw);

	if (!r)
		r = run_script(b, st, n, !no_state, tr);
	if (be_stop(b))
		r = -1;
	r = be_report(b, r);
	free(b);
	return r;
}

/*
 * Every scenario, each on a fresh backend (no lock left from the one
 * before), into tr[i].  With ref, a scenario stops at its first line that
 * differs from ref[i] (fuse: as the FUSE limits predict): what follows would
 * follow from that difference, and a waiter Linux would not leave waiting
 * could otherwise hang it.
 */
static int run_scenarios(int kind, const char *dir, bool mount, const struct rv_switches *sw,
			 const struct transcript *ref, bool fuse, struct transcript *tr)
{
	int r = 0;

	for (int i = 0; i < NSCEN && !r; i++) {
		struct backend *b = be_new(kind, dir, mount);

		r = be_start(b, sw);
		if (!r)
			r = run_scenario(b, &scenarios[i], ref ? &ref[i] : NULL, fuse, &tr[i]);
		/* be_stop interrupts what still waits */
		if (be_stop(b))
			r = -1;
		r = be_report(b, r);
		free(b);
	}
	return r;
}

static void print_tr(const struct transcript *tr)
{
	for (int i = 0; i < tr->n; i++)
		printf("%s\n", tr->v[i].text);
}

static void print_norm(void)
{
	printf("  normalised and matched: %ld F_OFD_GETLK l_pid -1, %ld F_GETLK OFD holder's pid, "
	       "%ld waits through OFD owners refused with EDEADLK\n",
	       norm_count[NORM_OFD_GETLK_PID], norm_count[NORM_GETLK_OFD_HOLDER],
	       norm_count[NORM_FUSE_DEADLK]);
}

/* Compare scenario transcripts one by one; the number that differ. */
static int compare_scen(const char *what, const char *an, const struct transcript *a,
			const char *bn, const struct transcript *b, const struct backend *bm,
			bool fuse, long *normalised, long *lines)
{
	int bad = 0;
	char w[600];

	for (int i = 0; i < NSCEN; i++) {
		snprintf(w, sizeof(w), "%s scenario %s", what, scenarios[i].name);
		bad += compare(w, an, &a[i], bn, &b[i], bm, fuse, normalised) != 0;
		*lines += a[i].n;
	}
	return bad;
}

int main(int argc, char **argv)
{
	static struct backend bm; /* the mount run's pids, for the normalisation */
	static struct transcript sref[NSCEN], sgot[NSCEN];
	struct rv_switches sw;
	uint64_t lo, hi;
	int steps, status = 0;
	long lines = 0, normalised = 0;
	struct step *st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	rv_cli_mode_first(argc, argv, "rcuvfs-lockdiff", usage_text, "-k");
	if (argc > 3 && !strcmp(argv[1], "-k")) {
		max_diffs = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "print") && argc == 5 && !strcmp(argv[2], "scen")) {
		bool host = !strcmp(argv[3], "host");

		if (!host && parse_sw(argv[4], &sw))
			return 2;
		status = run_scenarios(host ? BE_HOST : BE_MODEL, argv[4], false, &sw, NULL, false,
				       sref);
		for (int i = 0; i < NSCEN; i++)
			print_tr(&sref[i]);
		return status ? 2 : 0;
	}
	if (!strcmp(argv[1], "print") && argc == 6) {
		struct transcript tr = {0};
		bool host = !strcmp(argv[2], "host");

		if (parse_seeds(argv[4], &lo, &hi) || (steps = atoi(argv[5])) <= 0)
			usage();
		if (!host && parse_sw(argv[3], &sw))
			return 2;
		st = calloc((size_t)steps + NPROC * NSLOT, sizeof(*st));
		int n = gen_script(lo, steps, st);

		status = run_one(host ? BE_HOST : BE_MODEL, argv[3], false, &sw, st, n, &tr);
		print_tr(&tr);
		tr_free(&tr);
		free(st);
		return status ? 2 : 0;
	}
	if (!strcmp(argv[1], "model") && argc >= 6) {
		int nsw = argc - 5;

		if (parse_seeds(argv[3], &lo, &hi) || (steps = atoi(argv[4])) <= 0)
			usage();
		for (int i = 0; i < nsw; i++)
			if (parse_sw(argv[5 + i], &sw))
				return 2;
		st = calloc((size_t)steps + NPROC * NSLOT, sizeof(*st));
		for (uint64_t seed = lo; seed <= hi; seed++) {
			struct transcript ref = {0};
			int n = gen_script(seed, steps, st);

			/* the host run first: no fork while a model instance runs */
			if (run_one(BE_HOST, argv[2], false, NULL, st, n, &ref)) {
				free(st);
				return 2;
			}
			for (int i = 0; i < nsw; i++) {
				struct transcript mt = {0};
				char what[600];

				parse_sw(argv[5 + i], &sw);
				if (run_one(BE_MODEL, NULL, false, &sw, st, n, &mt)) {
					free(st);
					return 2;
				}
				snprintf(what, sizeof(what), "seed %llu %s",
					 (unsigned long long)seed, argv[5 + i]);
				if (compare(what, "linux", &ref, "model", &mt, NULL, false, NULL))
					status = 1;
				lines += ref.n;
				tr_free(&mt);
			}
			tr_free(&ref);
		}
		free(st);
		printf(
		    "lockdiff model: seeds %llu-%llu x %d steps x %d switch sets: %ld lines, %s\n",
		    (unsigned long long)lo, (unsigned long long)hi, steps, nsw, lines,
		    status ? "DIFFERENCES" : "identical");
		return status;
	}
	if (!strcmp(argv[1], "scen-model") && argc >= 4) {
		for (int i = 3; i < argc; i++)
			if (parse_sw(argv[i], &sw))
				return 2;
		if (run_scenarios(BE_HOST, argv[2], false, NULL, NULL, false, sref))
			return 2;
		for (int i = 3; i < argc; i++) {
			parse_sw(argv[i], &sw);
			if (run_scenarios(BE_MODEL, NULL, false, &sw, sref, false, sgot))
				return 2;
			if (compare_scen(argv[i], "linux", sref, "model", sgot, NULL, false, NULL,
					 &lines))
				status = 1;
			for (int k = 0; k < NSCEN; k++)
				tr_free(&sgot[k]);
		}
		printf("lockdiff scen-model: %d scenarios x %d switch sets: %ld lines, %s\n", NSCEN,
		       argc - 3, lines, status ? "DIFFERENCES" : "identical");
		return status;
	}
	if (!strcmp(argv[1], "scen-mount") && argc == 4) {
		if (run_scenarios(BE_HOST, argv[2], false, NULL, NULL, false, sref) ||
		    run_scenarios(BE_HOST, argv[3], true, NULL, sref, true, sgot))
			return 2;
		/* the pids differ per scenario: compare each with its own */
		for (int i = 0; i < NSCEN; i++) {
			char w[128];

			memcpy(bm.pid, sgot[i].pid, sizeof(bm.pid));
			snprintf(w, sizeof(w), "scenario %s", scenarios[i].name);
			status |= compare(w, "tmpfs", &sref[i], "mount", &sgot[i], &bm, true,
					  &normalised) != 0;
			lines += sref[i].n;
		}
		printf("lockdiff scen-mount: %d scenarios: %ld lines, %ld normalised, %s\n", NSCEN,
		       lines, normalised,
		       status ? "DIFFERENCES" : "identical but for the FUSE limits");
		print_norm();
		return status;
	}
	if (!strcmp(argv[1], "mount") && argc == 6) {
		if (parse_seeds(argv[4], &lo, &hi) || (steps = atoi(argv[5])) <= 0)
			usage();
		st = calloc((size_t)steps + NPROC * NSLOT, sizeof(*st));
		no_state = true;
		for (uint64_t seed = lo; seed <= hi; seed++) {
			struct transcript ref = {0}, mt = {0};
			int n = gen_script(seed, steps, st);
			char what[64];

			if (run_one(BE_HOST, argv[2], false, NULL, st, n, &ref) ||
			    run_one(BE_HOST, argv[3], true, NULL, st, n, &mt)) {
				free(st);
				return 2;
			}
			memcpy(bm.pid, mt.pid, sizeof(bm.pid));
			snprintf(what, sizeof(what), "seed %llu", (unsigned long long)seed);
			if (compare(what, "tmpfs", &ref, "mount", &mt, &bm, true, &normalised))
				status = 1;
			lines += ref.n;
			tr_free(&ref);
			tr_free(&mt);
		}
		free(st);
		printf(
		    "lockdiff mount: seeds %llu-%llu x %d steps: %ld lines, %ld normalised, %s\n",
		    (unsigned long long)lo, (unsigned long long)hi, steps, lines, normalised,
		    status ? "DIFFERENCES" : "identical but for the FUSE limits");
		print_norm();
		return status;
	}
	usage();
	return 2;
}
