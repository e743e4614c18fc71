// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_locks_vfs.c - the lock model on real VFS files through the
 * real close paths.
 *
 * test_locks used stand-alone fake inodes and files and called
 * locks_remove_posix/locks_remove_file by hand.  Here every file is opened
 * through the VFS (filp_open, or vfs_create + vfs_open_inode) and installed
 * in a model process's fd table (fd_install); locks are taken through the fd
 * as the system calls do (fdget + fcntl_setlk/flock_lock_file, POSIX owner =
 * current->files, pid = current->tgid), and they go away only through the
 * model's own close paths: close_fd, dup2 over an fd, close_range, exec's
 * close-on-exec, task exit (filp_close -> locks_remove_posix) and the last
 * reference of an open file description (__fput -> locks_remove_file),
 * including a last reference dropped by a concurrent fget in another task
 * (forced with the fget_after_load/fget_after_get injection points).
 *
 * Model processes are task_create_process/task_fork/task_clone_thread
 * tasks; the test thread switches between them with task_attach, and
 * blocking requests run on worker threads attached to their own tasks.
 *
 * Each suite is one filelock scheme (global, bkl with sem-fifo, inode, and
 * global with bkl_ops=lock and sem-steal) with one fileref scheme; the
 * fget races run under both fileref schemes.  Every test ends with no lock
 * record, blocked request, lock context, open file, task or extra inode
 * left, and each suite's cleanup is rv_instance_destroy() == 0.
 *
 * Locking: the test takes no lock of its own; workers publish their state
 * with release stores read by the test thread with acquire loads, and every
 * wait is a bounded poll (WAIT_MS) on state, never a sleep that decides.
 */
#include "test_locks_common.h"
#include "fdtable/fdtable.h"

#include <pthread.h>
#include <stdio.h>

#define WAIT_MS 10000

static long inodes0;	       /* vfs_inodes_live() at the start of a test */
static struct task_struct *me; /* the test thread's own process */
static int file_seq;
static char path_buf[4][32];
static int nr_paths;

/* ---- processes ---------------------------------------------------------- */

/* Run the following calls as task t (the test thread's current). */
static void as(struct task_struct *t)
{
	task_attach(t);
}

/*
 * Exit t; if it was the test thread's current, go back to `me` (any locks/
 * call needs a task: under the BKL schemes, lock_kernel would otherwise
 * create a lazy one).
 */
static void texit(struct task_struct *t)
{
	bool cur = rv_current == t;

	task_exit(t);
	if (cur)
		as(me);
}

static struct task_struct *new_process(const char *comm)
{
	struct task_struct *t = task_create_process(comm);

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	return t;
}

/* ---- files ---------------------------------------------------------------- */

/* A fresh path; the file is created by the first open_fd(.., O_CREAT). */
static const char *new_path(void)
{
	char *p = path_buf[nr_paths++];

	snprintf(p, sizeof(path_buf[0]), "/lv%d", ++file_seq);
	return p;
}

/* open(2) in current's table: reserve, open, install; the fd or -errno. */
static int open_fd(const char *path, int flags)
{
	return do_sys_open(path, flags, 0644);
}

/* Create /name with vfs_create and open it with vfs_open_inode. */
static int create_open_fd(const char *path)
{
	struct inode *root = vfs_root(), *inode;
	struct file *f;
	int fd, r;

	r = vfs_create(root, path + 1, S_IFREG | 0644, NULL, &inode);
	iput(root);
	if (r)
		return r;
	fd = get_unused_fd_flags(0);
	if (fd < 0) {
		iput(inode);
		return fd;
	}
	r = vfs_open_inode(inode, O_RDWR, &f);
	iput(inode);
	if (r) {
		put_unused_fd((unsigned int)fd);
		return r;
	}
	fd_install((unsigned int)fd, f);
	return fd;
}

static uint64_t ino_of(const char *path)
{
	struct kstat st;

	CU_ASSERT_EQUAL_FATAL(vfs_stat(path, &st), 0);
	return st.ino;
}

/* ---- the system calls, through the fd --------------------------------------- */

/*
 * fcntl(fd, cmd, {type, SEEK_SET, start, len}) through the model's fd-level
 * fcntl (ksys_fcntl), which re-checks fd after a granted POSIX lock as the
 * kernel's fcntl_setlk does.  With recheck false the lock is set one level
 * below, on the struct file (locks/ fcntl_setlk), as if the fd-level check
 * did not exist: test_fcntl_close_race_norecheck_leaks shows what it is for.
 */
static int __setlk(int fd, unsigned int cmd, int type, int64_t start, int64_t len, bool recheck)
{
	struct flock l = {
	    .l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
	struct fd f;
	int r;

	if (recheck)
		return ksys_fcntl((unsigned int)fd, cmd, (unsigned long)&l);
	f = fdget((unsigned int)fd);
	if (!f.file)
		return -EBADF;
	r = fcntl_setlk(f.file, cmd, &l, (fl_owner_t)current->files, current->tgid, NULL);
	fdput(f);
	return r;
}

static int setlk(int fd, unsigned int cmd, int type, int64_t start, int64_t len)
{
	return __setlk(fd, cmd, type, start, len, true);
}

/* fcntl(fd, F_GETLK): the conflicting lock's pid, 0 if none (-errno). */
static int getlk_pid(int fd, unsigned int cmd, int type, int64_t start, int64_t len)
{
	struct flock l = {
	    .l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
	int r = ksys_fcntl((unsigned int)fd, cmd, (unsigned long)&l);

	if (r)
		return r;
	return l.l_type == F_UNLCK ? 0 : l.l_pid;
}

static int do_flock(int fd, unsigned int cmd)
{
	struct fd f = fdget((unsigned int)fd);
	int r;

	if (!f.file)
		return -EBADF;
	r = flock_lock_file(f.file, cmd, current->tgid, NULL);
	fdput(f);
	return r;
}

/* ---- listing ------------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * What pid holds on ino (OFD locks: pid -1), as tl_ranges' entries ("W0-9",
 * "OR5-EOF", "FW") sorted by strcmp, so that the order of the listing (which
 * differs between schemes: per-thread shards under `inode`) does not matter.
 */
static const char *held(uint64_t ino, pid_t pid)
{
	static char out[4096];
	char tmp[4096], *ent[256], *save = NULL;
	int n = 0;

	snprintf(tmp, sizeof(tmp), "%s", tl_ranges(ino, pid));
	for (char *e = strtok_r(tmp, ",", &save); e && n < 256; e = strtok_r(NULL, ",", &save))
		ent[n++] = e;
	qsort(ent, (size_t)n, sizeof(ent[0]), cmp_str);
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(out, ",");
		strcat(out, ent[i]);
	}
	return out;
}

/* Blocked requests ("N: -> ...") on ino in the listing; *has_pid if pid is one. */
static int blocked_lines(uint64_t ino, pid_t pid, bool *has_pid)
{
	size_t need = locks_format_proc(NULL, 0);
	char *buf = malloc(need + 1), *line, *save = NULL;
	int n = 0;

	if (has_pid)
		*has_pid = false;
	locks_format_proc(buf, need + 1);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = strstr(line, "->");
		char kind[16], type[16];
		int lpid;
		unsigned long long lino;

		if (!p || sscanf(p + 2, " %15s ADVISORY %15s %d 00:00:%llu", kind, type, &lpid,
				 &lino) != 4)
			continue;
		if (lino != ino)
			continue;
		n++;
		if (has_pid && lpid == pid)
			*has_pid = true;
	}
	free(buf);
	return n;
}

/* ---- workers: a thread attached to its own task ------------------------------ */

enum { W_SETLKW, W_SETLKW_NORECHECK, W_FLOCK, W_FGET_PUT, W_FGET_HOLD };

struct worker {
	struct task_struct *task;
	int op;
	int fd;
	unsigned int cmd; /* W_SETLKW: F_SETLKW/F_OFD_SETLKW; W_FLOCK: LOCK_* */
	int type;
	int64_t start, len;
	struct file *file; /* W_FGET_*: what fget returned */
	uint64_t gen;	   /* its f_gen */
	int ret;
	int holding; /* W_FGET_HOLD: has the reference, waits for go */
	int go;
	int done;
	pthread_t th;
};

static void *worker_main(void *p)
{
	struct worker *w = p;
	struct file *f;

	task_attach(w->task);
	switch (w->op) {
	case W_SETLKW:
	case W_SETLKW_NORECHECK:
		w->ret = __setlk(w->fd, w->cmd, w->type, w->start, w->len, w->op == W_SETLKW);
		break;
	case W_FLOCK:
		w->ret = do_flock(w->fd, w->cmd);
		break;
	case W_FGET_PUT:
		/* a lookup that may end up dropping the last reference itself */
		f = fget((unsigned int)w->fd);
		w->file = f;
		if (f) {
			w->gen = f->f_gen;
			fput(f);
		}
		break;
	case W_FGET_HOLD:
		f = fget((unsigned int)w->fd);
		w->file = f;
		__atomic_store_n(&w->holding, 1, __ATOMIC_RELEASE);
		w->ret = WAIT_UNTIL_MS(__atomic_load_n(&w->go, __ATOMIC_ACQUIRE), WAIT_MS);
		if (f)
			fput(f);
		break;
	}
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	task_detach();
	kmem_cache_flush_thread();
	return NULL;
}

static void worker_start(struct worker *w, struct task_struct *t, int op, int fd)
{
	/* one host thread per task: the test thread steps off t if it is on it */
	if (rv_current == t)
		as(me);
	w->task = t;
	w->op = op;
	w->fd = fd;
	w->done = 0;
	CU_ASSERT_FATAL(pthread_create(&w->th, NULL, worker_main, w) == 0);
}

static bool worker_done(struct worker *w)
{
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE) != 0;
}

static int worker_wait(struct worker *w)
{
	return WAIT_UNTIL_MS(worker_done(w), WAIT_MS);
}

/*
 * Join a worker.  One that has not finished in time is interrupted (a lock
 * wait returns -EINTR) so that a failing test fails instead of hanging;
 * one that still does not finish aborts the program.
 */
static void worker_join(struct worker *w)
{
	if (worker_wait(w)) {
		CU_FAIL("worker did not finish in time");
		task_signal(w->task);
		__atomic_store_n(&w->go, 1, __ATOMIC_RELEASE);
		if (worker_wait(w)) {
			fprintf(stderr, "test_locks_vfs: worker stuck; aborting\n");
			abort();
		}
	}
	pthread_join(w->th, NULL);
}

/* Start a blocking request and wait until it is queued (nblocked total). */
static void worker_block(struct worker *w, struct task_struct *t, int op, int fd, long nblocked)
{
	worker_start(w, t, op, fd);
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(locks_count_blocked() == nblocked || worker_done(w), WAIT_MS),
			0);
	CU_ASSERT_FALSE(worker_done(w));
}

/* ---- per-test setup and the leak checks --------------------------------------- */

static void begin(void)
{
	rv_inject_clear_all();
	inodes0 = vfs_inodes_live();
	nr_paths = 0;
	me = task_create_process("test");
	CU_ASSERT_PTR_NOT_NULL_FATAL(me);
	as(me);
}

/*
 * Unlink the test's files (every process but `me` has exited) and check
 * nothing is left: no lock record, request, context, file, task or inode.
 */
static void end(void)
{
	rv_inject_clear_all();
	as(me);
	for (int i = 0; i < nr_paths; i++)
		CU_ASSERT_EQUAL(do_unlink(path_buf[i]), 0);
	task_exit(me);
	me = NULL;
	rcu_barrier();
	CU_ASSERT_EQUAL(locks_count_held(), 0);
	CU_ASSERT_EQUAL(locks_count_blocked(), 0);
	CU_ASSERT_EQUAL(locks_count_contexts(), 0);
	CU_ASSERT_EQUAL(nr_files_active(), 0);
	CU_ASSERT_EQUAL(vfs_inodes_live(), inodes0);
	CU_ASSERT_EQUAL(task_count_live(), 0);
}

/* ---- POSIX: close of any fd drops the owner's locks --------------------------- */

static void test_posix_close_any_fd(void)
{
	pid_t pid;
	struct task_struct *p, *q, *thr;
	const char *path;
	uint64_t ino;
	int a, b, c, qa;

	begin();
	p = new_process("p");
	q = new_process("q");
	path = new_path();
	as(p);
	a = open_fd(path, O_CREAT | O_RDWR);
	CU_ASSERT_FATAL(a >= 0);
	ino = ino_of(path);
	b = open_fd(path, O_RDWR); /* a second open file description */
	c = ksys_dup(a);
	CU_ASSERT_FATAL(b >= 0 && c >= 0);
	as(q);
	qa = open_fd(path, O_RDWR);
	CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_RDLCK, 100, 10), 0);

	/* a lock through one description, dropped by closing a dup of it */
	as(p);
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 0, 10), 0);
	CU_ASSERT_EQUAL(setlk(b, F_SETLK, F_RDLCK, 20, 10), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "R20-29,W0-9");
	as(q);
	CU_ASSERT_EQUAL(getlk_pid(qa, F_GETLK, F_WRLCK, 0, 0), p->tgid);
	CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_WRLCK, 0, 1), -EAGAIN);
	as(p);
	CU_ASSERT_EQUAL(close_fd((unsigned int)c), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");
	CU_ASSERT_STRING_EQUAL(held(ino, q->tgid), "R100-109"); /* another owner's stay */
	as(q);
	CU_ASSERT_EQUAL(getlk_pid(qa, F_GETLK, F_WRLCK, 0, 0), 0);

	/* locked through a, dropped by closing the other description b */
	as(p);
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 0, 10), 0);
	CU_ASSERT_EQUAL(close_fd((unsigned int)b), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");

	/* dup2 over an fd of the file closes it: the locks go */
	b = open_fd(path, O_RDWR);
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 0, 10), 0);
	c = open_fd(path, O_RDONLY);
	CU_ASSERT_EQUAL(ksys_dup2((unsigned int)c, (unsigned int)b), b);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");
	CU_ASSERT_EQUAL(close_fd((unsigned int)c), 0); /* b still holds that file */

	/* close_range and exec's close-on-exec */
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 0, 10), 0);
	CU_ASSERT_EQUAL(__close_range((unsigned int)b, (unsigned int)b, 0), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");
	b = open_fd(path, O_RDWR | O_CLOEXEC);
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 0, 10), 0);
	do_close_on_exec(p->files);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");
	CU_ASSERT_EQUAL(close_fd((unsigned int)b), -EBADF);

	/* a thread shares the owner: its close drops the process's locks */
	thr = task_clone_thread(p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(thr);
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 0, 10), 0);
	as(thr);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "W0-9");
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 50, 1), 0); /* same owner: merges */
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "W0-9,W50-50");
	b = open_fd(path, O_RDONLY);
	CU_ASSERT_EQUAL(close_fd((unsigned int)b), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");
	/* the thread's exit closes nothing (the table is still shared) */
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 0, 10), 0);
	as(p);
	texit(thr);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "W0-9");

	/* process exit closes every fd: the locks go */
	pid = p->tgid;
	texit(p);
	CU_ASSERT_STRING_EQUAL(held(ino, pid), "");
	as(q);
	CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_WRLCK, 0, 0), 0); /* absorbs its R100-109 */
	CU_ASSERT_STRING_EQUAL(held(ino, q->tgid), "W0-EOF");
	texit(q);
	CU_ASSERT_EQUAL(locks_count_held(), 0);
	end();
}

/* ---- fork: POSIX locks are not copied, flock locks are shared ----------------- */

static void test_fork(void)
{
	pid_t pid;
	struct task_struct *p, *c, *q;
	const char *path;
	uint64_t ino;
	int a, ca, cb, qa;

	begin();
	p = new_process("p");
	q = new_process("q");
	path = new_path();
	as(p);
	a = create_open_fd(path); /* vfs_create + vfs_open_inode */
	CU_ASSERT_FATAL(a >= 0);
	ino = ino_of(path);
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 0, 10), 0);
	CU_ASSERT_EQUAL(do_flock(a, LOCK_EX), 0);
	CU_ASSERT_EQUAL(setlk(a, F_OFD_SETLK, F_RDLCK, 100, 1), 0);
	c = task_fork(p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_NOT_EQUAL(c->files, p->files);

	as(c);
	ca = a; /* the inherited fd: the same description */
	/* the child owns none of the parent's POSIX locks: they conflict */
	CU_ASSERT_STRING_EQUAL(held(ino, c->tgid), "");
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "FW,W0-9");
	CU_ASSERT_EQUAL(getlk_pid(ca, F_GETLK, F_RDLCK, 5, 1), p->tgid);
	CU_ASSERT_EQUAL(setlk(ca, F_SETLK, F_RDLCK, 5, 1), -EAGAIN);
	CU_ASSERT_EQUAL(setlk(ca, F_SETLK, F_WRLCK, 50, 10), 0);
	/* ... but the flock and OFD locks belong to the shared description */
	CU_ASSERT_EQUAL(do_flock(ca, LOCK_EX | LOCK_NB), 0);
	CU_ASSERT_EQUAL(setlk(ca, F_OFD_SETLK, F_WRLCK, 100, 1), 0); /* its own: converts */
	CU_ASSERT_STRING_EQUAL(held(ino, -1), "OW100-100");
	cb = open_fd(path, O_RDWR); /* a new description conflicts with both */
	CU_ASSERT_EQUAL(do_flock(cb, LOCK_SH | LOCK_NB), -EWOULDBLOCK);
	CU_ASSERT_EQUAL(setlk(cb, F_OFD_SETLK, F_RDLCK, 100, 1), -EAGAIN);
	/* the child's close of any fd drops only the child's POSIX locks */
	CU_ASSERT_EQUAL(close_fd((unsigned int)cb), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, c->tgid), "");
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "FW,W0-9");
	CU_ASSERT_EQUAL(setlk(ca, F_SETLK, F_WRLCK, 50, 10), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, c->tgid), "W50-59");
	CU_ASSERT_EQUAL(close_fd((unsigned int)ca), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, c->tgid), "");
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "FW,W0-9");
	CU_ASSERT_STRING_EQUAL(held(ino, -1), "OW100-100");

	/* the child closed its copy: the parent's close is the description's
	 * last reference, so its POSIX, flock and OFD locks all go */
	as(q);
	qa = open_fd(path, O_RDWR);
	CU_ASSERT_EQUAL(do_flock(qa, LOCK_SH | LOCK_NB), -EWOULDBLOCK);
	as(p);
	CU_ASSERT_EQUAL(close_fd((unsigned int)a), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");
	CU_ASSERT_STRING_EQUAL(held(ino, -1), "");
	as(q);
	CU_ASSERT_EQUAL(do_flock(qa, LOCK_SH | LOCK_NB), 0);
	/* flock and record locks do not interact; OFD and POSIX owners differ */
	CU_ASSERT_EQUAL(setlk(qa, F_OFD_SETLK, F_WRLCK, 0, 0), 0);
	CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_WRLCK, 0, 0), -EAGAIN);
	CU_ASSERT_EQUAL(setlk(qa, F_OFD_SETLK, F_UNLCK, 0, 0), 0);
	CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_WRLCK, 0, 0), 0);
	CU_ASSERT_EQUAL(do_flock(qa, LOCK_UN), 0);
	CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_UNLCK, 0, 0), 0);

	/* fork again: the parent's close leaves the shared flock lock */
	as(p);
	a = open_fd(path, O_RDWR);
	CU_ASSERT_EQUAL(do_flock(a, LOCK_EX), 0);
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 0, 1), 0);
	texit(c);
	c = task_fork(p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(close_fd((unsigned int)a), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "FW"); /* POSIX gone, flock stays */
	as(q);
	CU_ASSERT_EQUAL(do_flock(qa, LOCK_SH | LOCK_NB), -EWOULDBLOCK);
	CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_WRLCK, 0, 1), 0);
	CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_UNLCK, 0, 1), 0);
	/* the child unlocks it for both (one description) */
	as(c);
	CU_ASSERT_EQUAL(do_flock(a, LOCK_UN), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");
	CU_ASSERT_EQUAL(do_flock(a, LOCK_SH), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, c->tgid), "FR");
	/* the child's exit drops the last reference: the flock lock goes */
	as(q);
	pid = c->tgid;
	texit(c);
	CU_ASSERT_STRING_EQUAL(held(ino, pid), "");
	CU_ASSERT_EQUAL(do_flock(qa, LOCK_EX | LOCK_NB), 0);
	texit(q);
	texit(p);
	end();
}

/* ---- flock and OFD: the description's last reference -------------------------- */

static void test_flock_ofd_last_reference(void)
{
	pid_t pid;
	struct task_struct *p, *q;
	const char *path;
	uint64_t ino;
	int a, b, c, qa;

	begin();
	p = new_process("p");
	q = new_process("q");
	path = new_path();
	as(q);
	qa = open_fd(path, O_CREAT | O_RDWR);
	ino = ino_of(path);
	as(p);
	a = open_fd(path, O_RDWR);
	CU_ASSERT_FATAL(a >= 0 && qa >= 0);
	CU_ASSERT_EQUAL(do_flock(a, LOCK_EX), 0);
	CU_ASSERT_EQUAL(setlk(a, F_OFD_SETLK, F_WRLCK, 0, 10), 0);
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 20, 10), 0);
	b = ksys_dup(a);
	c = ksys_fcntl((unsigned int)a, F_DUPFD, 10);
	CU_ASSERT_EQUAL(c, 10);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "FW,W20-29");
	CU_ASSERT_STRING_EQUAL(held(ino, -1), "OW0-9");

	/* close one fd: POSIX goes (close), flock and OFD stay (description alive) */
	CU_ASSERT_EQUAL(close_fd((unsigned int)a), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "FW");
	CU_ASSERT_STRING_EQUAL(held(ino, -1), "OW0-9");
	as(q);
	CU_ASSERT_EQUAL(do_flock(qa, LOCK_SH | LOCK_NB), -EWOULDBLOCK);
	CU_ASSERT_EQUAL(setlk(qa, F_OFD_SETLK, F_RDLCK, 5, 1), -EAGAIN);
	CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_RDLCK, 20, 10), 0); /* POSIX was dropped */
	CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_UNLCK, 0, 0), 0);
	as(p);
	CU_ASSERT_EQUAL(close_fd((unsigned int)b), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "FW");
	CU_ASSERT_EQUAL(close_fd((unsigned int)c), 0); /* the last reference */
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");
	CU_ASSERT_STRING_EQUAL(held(ino, -1), "");
	as(q);
	CU_ASSERT_EQUAL(do_flock(qa, LOCK_EX | LOCK_NB), 0);
	CU_ASSERT_EQUAL(setlk(qa, F_OFD_SETLK, F_WRLCK, 0, 0), 0);
	pid = q->tgid;
	texit(q); /* exit: the last reference of q's description */
	CU_ASSERT_STRING_EQUAL(held(ino, pid), "");
	CU_ASSERT_STRING_EQUAL(held(ino, -1), "");
	texit(p);
	end();
}

/* ---- the last reference dropped by a concurrent fget --------------------------- */

/*
 * Thread T of P looks fd a up and stops after taking its speculative
 * reference (fget_after_get).  P closes a: close_fd drops P's POSIX locks,
 * and its fput is not the last.  The flock and OFD locks and the blocked
 * flock of Q stay.  T resumes, finds the slot empty, drops its reference:
 * the last one, so __fput -> locks_remove_file runs in T, wakes Q, and Q is
 * granted.
 */
static void test_last_fput_in_fget(void)
{
	struct task_struct *p, *t, *q;
	struct worker wt = {0}, wq = {0};
	const char *path;
	uint64_t ino;
	int a, qa;

	begin();
	p = new_process("p");
	q = new_process("q");
	path = new_path();
	as(p);
	a = open_fd(path, O_CREAT | O_RDWR);
	CU_ASSERT_FATAL(a >= 0);
	ino = ino_of(path);
	t = task_clone_thread(p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(do_flock(a, LOCK_EX), 0);
	CU_ASSERT_EQUAL(setlk(a, F_OFD_SETLK, F_WRLCK, 0, 1), 0);
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 10, 1), 0);
	as(q);
	qa = open_fd(path, O_RDWR);
	wq.cmd = LOCK_SH;
	worker_block(&wq, q, W_FLOCK, qa, 1);

	as(p);
	rv_inject_set_pause("fget_after_get", 1);
	worker_start(&wt, t, W_FGET_PUT, a);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("fget_after_get", 1, WAIT_MS) == 0);
	CU_ASSERT_EQUAL(close_fd((unsigned int)a), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "FW"); /* POSIX dropped by the close */
	CU_ASSERT_STRING_EQUAL(held(ino, -1), "OW0-0");
	CU_ASSERT_EQUAL(nr_files_active(), 2); /* T's reference keeps it */
	CU_ASSERT_FALSE(worker_done(&wq));
	CU_ASSERT_EQUAL(locks_count_blocked(), 1);

	rv_inject_release("fget_after_get");
	worker_join(&wt);
	CU_ASSERT_PTR_NULL(wt.file); /* the fd was closed: fget found nothing */
	CU_ASSERT_EQUAL(nr_files_active(), 1);
	CU_ASSERT_STRING_EQUAL(held(ino, -1), "");
	worker_join(&wq);
	CU_ASSERT_EQUAL(wq.ret, 0);
	CU_ASSERT_STRING_EQUAL(held(ino, q->tgid), "FR");
	CU_ASSERT_EQUAL(locks_count_blocked(), 0);
	texit(t);
	texit(p);
	texit(q);
	end();
}

/*
 * The same with a completed fget: T holds the file, P closes the fd (POSIX
 * locks go at once), T's later fput is the last and drops the flock lock,
 * granting Q's blocked flock.
 */
static void test_last_fput_after_fget(void)
{
	struct task_struct *p, *t, *q;
	struct worker wt = {0}, wq = {0};
	const char *path;
	uint64_t ino;
	int a, qa;

	begin();
	p = new_process("p");
	q = new_process("q");
	path = new_path();
	as(p);
	a = open_fd(path, O_CREAT | O_RDWR);
	ino = ino_of(path);
	t = task_clone_thread(p);
	CU_ASSERT_EQUAL(do_flock(a, LOCK_EX), 0);
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 0, 0), 0);
	worker_start(&wt, t, W_FGET_HOLD, a);
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(__atomic_load_n(&wt.holding, __ATOMIC_ACQUIRE), WAIT_MS), 0);
	CU_ASSERT_PTR_NOT_NULL(wt.file);

	as(q);
	qa = open_fd(path, O_RDWR);
	wq.cmd = F_SETLKW;
	wq.type = F_WRLCK;
	wq.start = 0;
	wq.len = 1;
	worker_block(&wq, q, W_SETLKW, qa, 1);
	as(p);
	CU_ASSERT_EQUAL(close_fd((unsigned int)a), 0);
	/* the POSIX waiter is granted by the close... */
	worker_join(&wq);
	CU_ASSERT_EQUAL(wq.ret, 0);
	CU_ASSERT_STRING_EQUAL(held(ino, q->tgid), "W0-0");
	/* ... a flock waiter only by the last fput, in T */
	memset(&wq, 0, sizeof(wq));
	wq.cmd = LOCK_EX;
	worker_block(&wq, q, W_FLOCK, qa, 1);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "FW");
	__atomic_store_n(&wt.go, 1, __ATOMIC_RELEASE);
	worker_join(&wt);
	worker_join(&wq);
	CU_ASSERT_EQUAL(wq.ret, 0);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");
	CU_ASSERT_STRING_EQUAL(held(ino, q->tgid), "FW,W0-0");
	texit(t);
	texit(p);
	texit(q);
	end();
}

/*
 * A stale fget: T loaded description A from fd 0 and stops before its get.
 * A is closed (its locks go), and the same slab object becomes description B
 * at fd 1, which takes a flock lock; C is installed at fd 0.  T's get lands
 * on B, the slot reload sends it round, and its put is not B's last: B's
 * lock is untouched, T returns C.
 */
static void test_stale_fget_recycled(void)
{
	struct task_struct *p, *t, *q;
	struct worker wt = {0};
	struct file *fa, *fb, *fc;
	const char *path;
	uint64_t ino;
	int qa;

	begin();
	p = new_process("p");
	q = new_process("q");
	path = new_path();
	as(p);
	CU_ASSERT_EQUAL_FATAL(open_fd(path, O_CREAT | O_RDWR), 0);
	ino = ino_of(path);
	t = task_clone_thread(p);
	fa = files_lookup_fd_raw(p->files, 0);
	CU_ASSERT_EQUAL(do_flock(0, LOCK_EX), 0);
	rv_inject_set_pause("fget_after_load", 1);
	worker_start(&wt, t, W_FGET_PUT, 0);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("fget_after_load", 1, WAIT_MS) == 0);

	CU_ASSERT_EQUAL(close_fd(0), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");
	CU_ASSERT_EQUAL(get_unused_fd_flags(0), 0);
	CU_ASSERT_EQUAL(get_unused_fd_flags(0), 1);
	CU_ASSERT_EQUAL_FATAL(filp_open(path, O_RDWR, 0, &fb), 0);
	fd_install(1, fb);
	CU_ASSERT_EQUAL(filp_open(path, O_RDONLY, 0, &fc), 0);
	fd_install(0, fc);
	CU_ASSERT_PTR_EQUAL(fb, fa); /* the object was recycled */
	CU_ASSERT_EQUAL(do_flock(1, LOCK_EX), 0);

	rv_inject_release("fget_after_load");
	worker_join(&wt);
	CU_ASSERT_PTR_EQUAL(wt.file, fc);
	CU_ASSERT_EQUAL(wt.gen, fc->f_gen);
	CU_ASSERT_EQUAL(file_count(fb), 1);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "FW");
	as(q);
	qa = open_fd(path, O_RDWR);
	CU_ASSERT_EQUAL(do_flock(qa, LOCK_SH | LOCK_NB), -EWOULDBLOCK);
	as(p);
	texit(t);
	texit(p);
	as(q);
	CU_ASSERT_EQUAL(do_flock(qa, LOCK_SH | LOCK_NB), 0);
	texit(q);
	end();
}

/* ---- blocked waiters woken by close and by the last fput ----------------------- */

static void test_waiters_woken_by_close(void)
{
	struct task_struct *p, *q1, *q2, *q3;
	struct worker w1 = {0}, w2 = {0}, w3 = {0};
	const char *path;
	uint64_t ino;
	int a, b, fd1, fd2, fd3;
	bool has;

	begin();
	p = new_process("p");
	q1 = new_process("q1");
	q2 = new_process("q2");
	q3 = new_process("q3");
	path = new_path();
	as(p);
	a = open_fd(path, O_CREAT | O_RDWR);
	ino = ino_of(path);
	b = ksys_dup(a);
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 0, 10), 0);
	CU_ASSERT_EQUAL(setlk(a, F_OFD_SETLK, F_WRLCK, 100, 10), 0);
	as(q1);
	fd1 = open_fd(path, O_RDWR);
	as(q2);
	fd2 = open_fd(path, O_RDWR);
	as(q3);
	fd3 = open_fd(path, O_RDWR);

	w1 = (struct worker){.cmd = F_SETLKW, .type = F_WRLCK, .start = 0, .len = 1};
	worker_block(&w1, q1, W_SETLKW, fd1, 1);
	w2 = (struct worker){.cmd = F_SETLKW, .type = F_RDLCK, .start = 5, .len = 1};
	worker_block(&w2, q2, W_SETLKW, fd2, 2);
	w3 = (struct worker){.cmd = F_OFD_SETLKW, .type = F_RDLCK, .start = 105, .len = 1};
	worker_block(&w3, q3, W_SETLKW, fd3, 3);
	CU_ASSERT_EQUAL(blocked_lines(ino, q2->tgid, &has), 3);
	CU_ASSERT(has);

	/* closing the dup drops the POSIX lock: both POSIX waiters get theirs */
	as(p);
	CU_ASSERT_EQUAL(close_fd((unsigned int)b), 0);
	worker_join(&w1);
	worker_join(&w2);
	CU_ASSERT_EQUAL(w1.ret, 0);
	CU_ASSERT_EQUAL(w2.ret, 0);
	CU_ASSERT_STRING_EQUAL(held(ino, q1->tgid), "W0-0");
	CU_ASSERT_STRING_EQUAL(held(ino, q2->tgid), "R5-5");
	/* the OFD waiter waits for the description's last reference */
	CU_ASSERT_FALSE(worker_done(&w3));
	CU_ASSERT_EQUAL(blocked_lines(ino, q3->tgid, NULL), 1);
	CU_ASSERT_EQUAL(close_fd((unsigned int)a), 0);
	worker_join(&w3);
	CU_ASSERT_EQUAL(w3.ret, 0);
	CU_ASSERT_STRING_EQUAL(held(ino, -1), "OR105-105");
	CU_ASSERT_EQUAL(locks_count_blocked(), 0);
	texit(p);
	texit(q1);
	texit(q2);
	texit(q3);
	end();
}

/*
 * Three processes wait behind P's lock; the middle one is interrupted
 * (-EINTR, no stale entry in the listing) and exits; P's close (POSIX) or
 * last fput (flock) grants the first, whose exit grants the third.
 */
static void run_interrupted(bool use_flock)
{
	struct task_struct *p, *q[3];
	struct worker w[3];
	const char *path;
	uint64_t ino;
	int a, b, fd[3];
	bool has;

	begin();
	p = new_process("p");
	path = new_path();
	as(p);
	a = open_fd(path, O_CREAT | O_RDWR);
	ino = ino_of(path);
	b = ksys_dup(a);
	if (use_flock) {
		CU_ASSERT_EQUAL(do_flock(a, LOCK_EX), 0);
	} else {
		CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 0, 10), 0);
	}
	for (int i = 0; i < 3; i++) {
		q[i] = new_process("q");
		as(q[i]);
		fd[i] = open_fd(path, O_RDWR);
		if (use_flock)
			w[i] = (struct worker){.cmd = LOCK_EX};
		else
			w[i] = (struct worker){
			    .cmd = F_SETLKW, .type = F_WRLCK, .start = 0, .len = 10};
		worker_block(&w[i], q[i], use_flock ? W_FLOCK : W_SETLKW, fd[i], i + 1);
	}
	as(p);
	task_signal(q[1]);
	worker_join(&w[1]);
	CU_ASSERT_EQUAL(w[1].ret, -EINTR);
	/* its children were woken and re-queue behind the first waiter */
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(locks_count_blocked() == 2, WAIT_MS), 0);
	CU_ASSERT_EQUAL(blocked_lines(ino, q[1]->tgid, &has), 2);
	CU_ASSERT_FALSE(has);
	CU_ASSERT_STRING_EQUAL(held(ino, q[1]->tgid), "");
	texit(q[1]);
	CU_ASSERT_EQUAL(blocked_lines(ino, 0, NULL), 2);

	CU_ASSERT_EQUAL(close_fd((unsigned int)a), 0);
	if (use_flock) {
		/* the description lives on in b: nothing changes */
		CU_ASSERT_FALSE(worker_done(&w[0]));
		CU_ASSERT_EQUAL(locks_count_blocked(), 2);
		CU_ASSERT_EQUAL(close_fd((unsigned int)b), 0);
	}
	worker_join(&w[0]);
	CU_ASSERT_EQUAL(w[0].ret, 0);
	CU_ASSERT_STRING_EQUAL(held(ino, q[0]->tgid), use_flock ? "FW" : "W0-9");
	/* the third, woken by the first's grant, re-queues behind its lock */
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(locks_count_blocked() == 1, WAIT_MS), 0);
	CU_ASSERT_FALSE(worker_done(&w[2]));
	CU_ASSERT_EQUAL(blocked_lines(ino, q[2]->tgid, &has), 1);
	CU_ASSERT(has);
	texit(q[0]);
	worker_join(&w[2]);
	CU_ASSERT_EQUAL(w[2].ret, 0);
	CU_ASSERT_STRING_EQUAL(held(ino, q[2]->tgid), use_flock ? "FW" : "W0-9");
	CU_ASSERT_EQUAL(locks_count_blocked(), 0);
	texit(q[2]);
	texit(p);
	end();
}

static void test_interrupted_posix(void)
{
	run_interrupted(false);
}

static void test_interrupted_flock(void)
{
	run_interrupted(true);
}

/* ---- fcntl racing close in another thread of the owner ------------------------- */

/*
 * Thread W of P sleeps in F_SETLKW on fd a (fdget took a reference: the
 * table is shared).  Thread P closes a: its locks_remove_posix finds
 * nothing, since W holds no lock yet.  Q unlocks, W is granted.  With the
 * kernel's recheck W finds a closed, drops the lock and gets -EBADF; W's
 * fdput is the last reference.  Without it the lock outlives every fd P had
 * on the file (and its struct file): only a later close by P of some fd of
 * the inode (or P's exit with one open) removes it.
 */
static void run_fcntl_close_race(bool recheck)
{
	struct task_struct *p, *t, *q;
	struct worker w = {0};
	const char *path;
	uint64_t ino, races0 = 0, races1 = 0;
	int a, b, qa;

	begin();
	CU_ASSERT_EQUAL(rv_stat_read("fcntl_close_races", &races0), 0);
	p = new_process("p");
	q = new_process("q");
	path = new_path();
	as(q);
	qa = open_fd(path, O_CREAT | O_RDWR);
	ino = ino_of(path);
	CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_WRLCK, 0, 10), 0);
	as(p);
	a = open_fd(path, O_RDWR);
	t = task_clone_thread(p);
	w = (struct worker){.cmd = F_SETLKW, .type = F_WRLCK, .start = 0, .len = 10};
	worker_block(&w, t, recheck ? W_SETLKW : W_SETLKW_NORECHECK, a, 1);
	CU_ASSERT_EQUAL(close_fd((unsigned int)a), 0);
	CU_ASSERT_EQUAL(nr_files_active(), 2); /* W's fdget reference */
	CU_ASSERT_FALSE(worker_done(&w));
	as(q);
	CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_UNLCK, 0, 0), 0);
	worker_join(&w);
	CU_ASSERT_EQUAL(nr_files_active(), 1);
	CU_ASSERT_EQUAL(rv_stat_read("fcntl_close_races", &races1), 0);
	/* the model's fcntl saw the race exactly when it was the one called */
	CU_ASSERT_EQUAL(races1 - races0, recheck ? 1u : 0u);
	if (recheck) {
		CU_ASSERT_EQUAL(w.ret, -EBADF);
		CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");
		CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_WRLCK, 0, 0), 0);
	} else {
		/* the stale lock: P has no fd on the file, yet holds it */
		CU_ASSERT_EQUAL(w.ret, 0);
		CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "W0-9");
		CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_WRLCK, 0, 0), -EAGAIN);
		as(p);
		b = open_fd(path, O_RDONLY);
		CU_ASSERT_EQUAL(close_fd((unsigned int)b), 0);
		CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");
	}
	texit(t);
	texit(p);
	texit(q);
	end();
}

static void test_fcntl_close_race(void)
{
	run_fcntl_close_race(true);
}

static void test_fcntl_close_race_norecheck_leaks(void)
{
	run_fcntl_close_race(false);
}

/* ---- SEEK_CUR and SEEK_END on a real file ----------------------------------------- */

static int setlk_whence(int fd, int type, int whence, int64_t start, int64_t len)
{
	struct flock l = {
	    .l_type = (short)type, .l_whence = (short)whence, .l_start = start, .l_len = len};
	struct fd f = fdget((unsigned int)fd);
	int r;

	if (!f.file)
		return -EBADF;
	r = fcntl_setlk(f.file, F_SETLK, &l, (fl_owner_t)current->files, current->tgid, NULL);
	fdput(f);
	return r;
}

/* The offsets come from the file's f_pos and the inode's i_size as the VFS keeps them. */
static void test_whence_real_file(void)
{
	static const char data[100];
	struct task_struct *p;
	struct fd f;
	const char *path;
	uint64_t ino;
	int a;

	begin();
	p = new_process("p");
	path = new_path();
	as(p);
	a = open_fd(path, O_CREAT | O_RDWR);
	ino = ino_of(path);
	f = fdget((unsigned int)a);
	CU_ASSERT_EQUAL(vfs_write(f.file, data, sizeof(data), NULL), 100); /* f_pos 100 */
	CU_ASSERT_EQUAL(vfs_llseek(f.file, 40, SEEK_SET), 40);
	fdput(f);
	CU_ASSERT_EQUAL(setlk_whence(a, F_WRLCK, SEEK_CUR, -10, 5), 0);	      /* 30-34 */
	CU_ASSERT_EQUAL(setlk_whence(a, F_RDLCK, SEEK_END, -10, 0), 0);	      /* 90-EOF */
	CU_ASSERT_EQUAL(setlk_whence(a, F_WRLCK, SEEK_END, 0, -5), 0);	      /* 95-99 */
	CU_ASSERT_EQUAL(setlk_whence(a, F_WRLCK, SEEK_CUR, -41, 1), -EINVAL); /* before 0 */
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "R100-EOF,R90-94,W30-34,W95-99");
	CU_ASSERT_EQUAL(do_truncate(path, 10), 0);
	CU_ASSERT_EQUAL(setlk_whence(a, F_UNLCK, SEEK_END, 0, 0), 0); /* 10-EOF */
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");
	texit(p);
	end();
}

/* ---- an unlinked (orphan) file ---------------------------------------------------- */

/*
 * Locks on a file unlinked while open keep working through the open files;
 * the last close evicts the inode and frees its lock context at once.
 */
static void test_orphan(void)
{
	struct task_struct *p, *q;
	const char *path;
	uint64_t ino;
	long ctx0 = locks_count_contexts();
	int a, qa;

	begin();
	p = new_process("p");
	q = new_process("q");
	path = new_path();
	as(p);
	a = open_fd(path, O_CREAT | O_RDWR);
	ino = ino_of(path);
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 0, 10), 0);
	CU_ASSERT_EQUAL(do_flock(a, LOCK_SH), 0);
	CU_ASSERT_EQUAL(locks_count_contexts(), ctx0 + 1);
	as(q);
	qa = open_fd(path, O_RDWR);
	CU_ASSERT_EQUAL(do_unlink(path), 0);
	nr_paths--; /* end() must not unlink it again */
	CU_ASSERT_EQUAL(getlk_pid(qa, F_GETLK, F_RDLCK, 5, 1), p->tgid);
	CU_ASSERT_EQUAL(do_flock(qa, LOCK_EX | LOCK_NB), -EWOULDBLOCK);
	CU_ASSERT_EQUAL(do_flock(qa, LOCK_SH | LOCK_NB), 0);
	as(p);
	CU_ASSERT_EQUAL(close_fd((unsigned int)a), 0);
	CU_ASSERT_STRING_EQUAL(held(ino, p->tgid), "");
	as(q);
	CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_WRLCK, 0, 0), 0);
	CU_ASSERT_EQUAL(do_flock(qa, LOCK_EX | LOCK_NB), 0);
	CU_ASSERT_EQUAL(vfs_inodes_live(), inodes0 + 1);
	CU_ASSERT_EQUAL(close_fd((unsigned int)qa), 0); /* evicts the orphan */
	CU_ASSERT_EQUAL(locks_count_held(), 0);
	CU_ASSERT_EQUAL(locks_count_contexts(), ctx0);
	CU_ASSERT_EQUAL(vfs_inodes_live(), inodes0);
	texit(p);
	texit(q);
	end();
}

/* ---- deadlock detection between real owners ------------------------------------ */

/*
 * The POSIX owner is the files_struct: a thread waits as its process.  P's
 * thread T sleeps waiting for Q's lock on byte 10; Q asking (blocking) for
 * P's byte 0 would close the cycle: EDEADLK, even though P's main thread,
 * not T, holds byte 0 (Linux's documented answer for threads).  A forked
 * child is another owner: its request just waits, and P's close of the
 * fd the child also has (the child's own copy stays open) grants it.
 */
static void test_deadlock_owners(void)
{
	struct task_struct *p, *t, *q, *c;
	struct worker wt = {0}, wc = {0};
	const char *path;
	int a, qa;

	begin();
	p = new_process("p");
	q = new_process("q");
	path = new_path();
	as(p);
	a = open_fd(path, O_CREAT | O_RDWR);
	t = task_clone_thread(p);
	CU_ASSERT_EQUAL(setlk(a, F_SETLK, F_WRLCK, 0, 1), 0);
	as(q);
	qa = open_fd(path, O_RDWR);
	CU_ASSERT_EQUAL(setlk(qa, F_SETLK, F_WRLCK, 10, 1), 0);
	wt = (struct worker){.cmd = F_SETLKW, .type = F_WRLCK, .start = 10, .len = 1};
	worker_block(&wt, t, W_SETLKW, a, 1);
	CU_ASSERT_EQUAL(setlk(qa, F_SETLKW, F_WRLCK, 0, 1), -EDEADLK);
	CU_ASSERT_EQUAL(setlk(qa, F_OFD_SETLKW, F_RDLCK, 20, 1), 0); /* OFD: no cycle check */

	/* a forked child of P is not P: it waits for P's byte 0 */
	as(p);
	c = task_fork(p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	wc = (struct worker){.cmd = F_SETLKW, .type = F_RDLCK, .start = 0, .len = 1};
	worker_block(&wc, c, W_SETLKW, a, 2);
	/* Q's close drops its POSIX lock: T is granted byte 10 */
	as(q);
	CU_ASSERT_EQUAL(close_fd((unsigned int)qa), 0);
	worker_join(&wt);
	CU_ASSERT_EQUAL(wt.ret, 0);
	CU_ASSERT_STRING_EQUAL(held(ino_of(path), p->tgid), "W0-0,W10-10");
	/* P's close (the child keeps its fd): the child gets byte 0 */
	as(p);
	CU_ASSERT_EQUAL(close_fd((unsigned int)a), 0);
	worker_join(&wc);
	CU_ASSERT_EQUAL(wc.ret, 0);
	CU_ASSERT_STRING_EQUAL(held(ino_of(path), p->tgid), "");
	CU_ASSERT_STRING_EQUAL(held(ino_of(path), c->tgid), "R0-0");
	texit(t);
	texit(c);
	texit(p);
	texit(q);
	end();
}

/* ---- suites: filelock scheme x fileref scheme ------------------------------------ */

#define SUITE_INIT(name, ...)                                                                      \
	static int init_##name(void)                                                               \
	{                                                                                          \
		static const char *const s[] = {__VA_ARGS__, NULL};                                \
		return rvtest_instance_with(s) ? -1 : 0;                                           \
	}

SUITE_INIT(global_inc, "filelock=global", "fileref=inc-not-zero")
SUITE_INIT(global_ref, "filelock=global", "fileref=file-ref")
SUITE_INIT(bkl_inc, "filelock=bkl", "bkl=sem-fifo", "fileref=inc-not-zero")
SUITE_INIT(bkl_ref, "filelock=bkl", "bkl=sem-steal", "fileref=file-ref")
SUITE_INIT(inode_inc, "filelock=inode", "fileref=inc-not-zero")
SUITE_INIT(inode_ref, "filelock=inode", "fileref=file-ref")
SUITE_INIT(bklops, "filelock=global", "bkl=spin", "bkl_ops=lock", "fileref=inc-not-zero")
SUITE_INIT(bkl_all, "filelock=bkl", "bkl=sem-fifo", "bkl_ops=all", "fileref=file-ref")

static int cleanup(void)
{
	int r = rv_instance_destroy();

	if (r)
		fprintf(stderr, "test_locks_vfs: rv_instance_destroy: %d\n", r);
	/* contexts live in the inodes, freed at eviction during teardown */
	if (locks_count_contexts())
		fprintf(stderr, "test_locks_vfs: %ld lock contexts leaked\n",
			locks_count_contexts());
	return r || locks_count_contexts() ? -1 : 0;
}

#define CASES                                                                                      \
	RVTEST(test_posix_close_any_fd), RVTEST(test_fork), RVTEST(test_flock_ofd_last_reference), \
	    RVTEST(test_last_fput_in_fget), RVTEST(test_last_fput_after_fget),                     \
	    RVTEST(test_stale_fget_recycled), RVTEST(test_waiters_woken_by_close),                 \
	    RVTEST(test_interrupted_posix), RVTEST(test_interrupted_flock),                        \
	    RVTEST(test_fcntl_close_race), RVTEST(test_fcntl_close_race_norecheck_leaks),          \
	    RVTEST(test_deadlock_owners), RVTEST(test_orphan), RVTEST(test_whence_real_file)

RVTEST_SUITE(locks_vfs_global_inc, init_global_inc, cleanup, CASES)
RVTEST_SUITE(locks_vfs_global_ref, init_global_ref, cleanup, CASES)
RVTEST_SUITE(locks_vfs_bkl_inc, init_bkl_inc, cleanup, CASES)
RVTEST_SUITE(locks_vfs_bkl_ref, init_bkl_ref, cleanup, CASES)
RVTEST_SUITE(locks_vfs_inode_inc, init_inode_inc, cleanup, CASES)
RVTEST_SUITE(locks_vfs_inode_ref, init_inode_ref, cleanup, CASES)
RVTEST_SUITE(locks_vfs_bklops, init_bklops, cleanup, CASES)
RVTEST_SUITE(locks_vfs_bkl_all, init_bkl_all, cleanup, CASES)
