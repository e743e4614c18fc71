// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/stress/wl_path.c - the --path implementations: real system calls
 * against files in a directory (an rcuvfs mount, tmpfs, any filesystem).
 *
 * Files: setup (parent) creates the run's shared file and the lock-verify
 * counter files; each task creates its own file in task_init ("own file"
 * workloads) and opens its own descriptors, so every task has its own open
 * file description: flock2 and ofd2 contend for real, in threads mode too
 * (stress-ng's flock stressor shares one description and never contends).
 * POSIX locks belong to the process: lock2's threads share one owner and do
 * not exclude each other (as will-it-scale), so lock2 checks exclusion only
 * in processes mode and lock-verify uses POSIX locks only there.
 *
 * Locking of the tool's own data: see stress.h.  The shared `holder` words
 * are taken with an atomic exchange right after the file lock is granted and
 * cleared before it is released; finding them taken is a broken exclusion.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stress.h"

static int create_file(const char *path, uint64_t init, bool with_counter)
{
	int fd = open(path, O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	if (with_counter && pwrite(fd, &init, sizeof(init), 0) != sizeof(init)) {
		int e = errno ? errno : EIO;

		close(fd);
		errno = e;
		return -1;
	}
	if (close(fd) < 0)
		return -1;
	return 0;
}

/* ---- setup / teardown shared by every path workload ------------------ */

static int setup_shared(struct stress_run *run)
{
	struct stat st;

	snprintf(run->shared_path, sizeof(run->shared_path), "%s/shared", run->dir);
	if (create_file(run->shared_path, 0, false))
		return stress_setup_fail(run, "open(shared, O_CREAT)", errno);
	if (stat(run->shared_path, &st))
		return stress_setup_fail(run, "stat(shared)", errno);
	run->shared_ino = st.st_ino;
	return 0;
}

static void teardown_files(struct stress_run *run)
{
	char p[PATH_MAX + 32];

	if (run->shared_path[0])
		unlink(run->shared_path);
	for (int i = 0; i < 3; i++)
		if (run->vpath[i][0])
			unlink(run->vpath[i]);
	for (int i = 0; i < run->ntasks; i++) {
		snprintf(p, sizeof(p), "%s/task.%d", run->dir, i);
		unlink(p);
	}
}

/* ---- task helpers ---------------------------------------------------- */

static int own_file(struct stress_task *t)
{
	struct stat st;

	snprintf(t->path, sizeof(t->path), "%s/task.%d", t->run->dir, t->id);
	if (create_file(t->path, 0, false))
		return stress_fail(t, "open(own, O_CREAT)", errno);
	if (stat(t->path, &st))
		return stress_fail(t, "stat(own)", errno);
	t->ino = st.st_ino;
	return 0;
}

static int open_fd(struct stress_task *t, int slot, const char *path, const char *call)
{
	t->fd[slot] = open(path, O_RDWR | O_CLOEXEC);
	if (t->fd[slot] < 0)
		return stress_fail(t, call, errno);
	return 0;
}

static int init_own_open(struct stress_task *t)
{
	if (own_file(t))
		return -1;
	return open_fd(t, 0, t->path, "open(own)");
}

static int init_own(struct stress_task *t)
{
	return own_file(t);
}

static int init_shared_open(struct stress_task *t)
{
	snprintf(t->path, sizeof(t->path), "%s", t->run->shared_path);
	t->ino = t->run->shared_ino;
	return open_fd(t, 0, t->path, "open(shared)");
}

static int init_shared(struct stress_task *t)
{
	snprintf(t->path, sizeof(t->path), "%s", t->run->shared_path);
	t->ino = t->run->shared_ino;
	return 0;
}

static void fini_close(struct stress_task *t)
{
	for (int i = 0; i < 3; i++)
		if (t->fd[i] >= 0) {
			close(t->fd[i]);
			t->fd[i] = -1;
		}
}

static int check_ino(struct stress_task *t, const struct stat *st, const char *call)
{
	if (t->run->opt->verify && st->st_ino != t->ino)
		return stress_vfail(t, "%s returned inode %llu, expected %llu", call,
				    (unsigned long long)st->st_ino, (unsigned long long)t->ino);
	return 0;
}

/* ---- fstat / stat ---------------------------------------------------- */

/* always inlined: op_fstat is a measured path and must not gain a call */
static inline __attribute__((always_inline)) int fstat_fd(struct stress_task *t, int fd,
							  const char *call)
{
	struct stat st;

	if (fstat(fd, &st))
		return stress_fail(t, call, errno);
	return check_ino(t, &st, call);
}

static int op_fstat(struct stress_task *t)
{
	return fstat_fd(t, t->fd[0], "fstat");
}

static int op_stat(struct stress_task *t)
{
	struct stat st;

	if (stat(t->path, &st))
		return stress_fail(t, "stat", errno);
	return check_ino(t, &st, "stat");
}

const struct stress_impl path_fstat1 = {
    .task_init = init_own_open,
    .op = op_fstat,
    .task_fini = fini_close,
    .teardown = teardown_files,
};
const struct stress_impl path_fstat2 = {
    .setup = setup_shared,
    .task_init = init_shared_open,
    .op = op_fstat,
    .task_fini = fini_close,
    .teardown = teardown_files,
};
const struct stress_impl path_stat1 = {
    .task_init = init_own,
    .op = op_stat,
    .teardown = teardown_files,
};
const struct stress_impl path_stat2 = {
    .setup = setup_shared,
    .task_init = init_shared,
    .op = op_stat,
    .teardown = teardown_files,
};

/* ---- open / dup ------------------------------------------------------ */

static int op_open(struct stress_task *t)
{
	int fd = open(t->path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return stress_fail(t, "open", errno);
	if (t->run->opt->verify && fstat_fd(t, fd, "fstat(opened)")) {
		close(fd);
		return -1;
	}
	if (close(fd))
		return stress_fail(t, "close", errno);
	return 0;
}

static int op_dup(struct stress_task *t)
{
	int fd = dup(t->fd[0]);

	if (fd < 0)
		return stress_fail(t, "dup", errno);
	if (t->run->opt->verify) {
		if (fd == t->fd[0]) {
			close(fd);
			return stress_vfail(t, "dup returned its argument %d", fd);
		}
		if (fstat_fd(t, fd, "fstat(dup)")) {
			close(fd);
			return -1;
		}
	}
	if (close(fd))
		return stress_fail(t, "close(dup)", errno);
	return 0;
}

const struct stress_impl path_open1 = {
    .task_init = init_own,
    .op = op_open,
    .teardown = teardown_files,
};
const struct stress_impl path_open3 = {
    .setup = setup_shared,
    .task_init = init_shared,
    .op = op_open,
    .teardown = teardown_files,
};
const struct stress_impl path_dup1 = {
    .setup = setup_shared,
    .task_init = init_shared_open,
    .op = op_dup,
    .task_fini = fini_close,
    .teardown = teardown_files,
};

/* ---- locks ----------------------------------------------------------- */

static int do_flock(int fd, int how)
{
	int r;

	do
		r = flock(fd, how);
	while (r < 0 && errno == EINTR);
	return r;
}

/*
 * One byte at offset 0, as will-it-scale's lock1/lock2 lock it (l_start 0,
 * l_len 1); lock-verify's counter lives under the same byte.
 */
static int do_fcntl_lock(int fd, int cmd, short type)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	int r;

	/* l_pid must be 0 for OFD locks */
	do
		r = fcntl(fd, cmd, &fl);
	while (r < 0 && errno == EINTR);
	return r;
}

/* Exclusion is checked for shared-file workloads whose tasks have different owners. */
static bool excl_checked(struct stress_task *t, bool posix)
{
	return t->run->opt->verify && t->run->ntasks > 1 &&
	       (!posix || t->run->opt->mode == MODE_PROCESSES);
}

/*
 * Inside the lock: take the holder word, and with --test-race-window (or
 * --test-skip-lock, which takes no lock at all) wait there once, at most
 * 1 s, for the other tasks: a lock that excludes keeps them out, so the
 * wait times out; one that does not lets the next task in while the
 * holder word is taken, and the exclusion check fails for sure.
 */
static int excl_section(struct stress_task *t, bool excl, const char *what)
{
	const struct stress_opts *o = t->run->opt;

	if (!excl)
		return 0;
	if (stress_excl_enter(t, 0, what))
		return -1;
	if (o->test_skip_lock || o->test_race_window)
		stress_race_window(t);
	stress_excl_exit(t, 0);
	return 0;
}

static int op_flock(struct stress_task *t)
{
	bool excl = t->ino == t->run->shared_ino && excl_checked(t, false);
	bool skip = t->run->opt->test_skip_lock;

	if (!skip && do_flock(t->fd[0], LOCK_EX))
		return stress_fail(t, "flock(LOCK_EX)", errno);
	if (excl_section(t, excl, "flock(LOCK_EX)"))
		return -1;
	if (!skip && do_flock(t->fd[0], LOCK_UN))
		return stress_fail(t, "flock(LOCK_UN)", errno);
	return 0;
}

static int lock_unlock(struct stress_task *t, int cmd, const char *lockcall, const char *unlockcall,
		       bool posix)
{
	bool excl = t->ino == t->run->shared_ino && excl_checked(t, posix);
	bool skip = t->run->opt->test_skip_lock;

	if (!skip && do_fcntl_lock(t->fd[0], cmd, F_WRLCK))
		return stress_fail(t, lockcall, errno);
	if (excl_section(t, excl, lockcall))
		return -1;
	if (!skip && do_fcntl_lock(t->fd[0], cmd, F_UNLCK))
		return stress_fail(t, unlockcall, errno);
	return 0;
}

static int op_posix_lock(struct stress_task *t)
{
	return lock_unlock(t, F_SETLKW, "fcntl(F_SETLKW, F_WRLCK)", "fcntl(F_SETLKW, F_UNLCK)",
			   true);
}

static int op_ofd_lock(struct stress_task *t)
{
	return lock_unlock(t, F_OFD_SETLKW, "fcntl(F_OFD_SETLKW, F_WRLCK)",
			   "fcntl(F_OFD_SETLKW, F_UNLCK)", false);
}

const struct stress_impl path_flock1 = {
    .task_init = init_own_open,
    .op = op_flock,
    .task_fini = fini_close,
    .teardown = teardown_files,
};
const struct stress_impl path_flock2 = {
    .setup = setup_shared,
    .task_init = init_shared_open,
    .op = op_flock,
    .task_fini = fini_close,
    .teardown = teardown_files,
};
const struct stress_impl path_lock1 = {
    .task_init = init_own_open,
    .op = op_posix_lock,
    .task_fini = fini_close,
    .teardown = teardown_files,
};
const struct stress_impl path_lock2 = {
    .setup = setup_shared,
    .task_init = init_shared_open,
    .op = op_posix_lock,
    .task_fini = fini_close,
    .teardown = teardown_files,
};
const struct stress_impl path_ofd2 = {
    .setup = setup_shared,
    .task_init = init_shared_open,
    .op = op_ofd_lock,
    .task_fini = fini_close,
    .teardown = teardown_files,
};

/* ---- lock-verify ----------------------------------------------------- */
/*
 * Three counter files, one per lock kind (flock, OFD, POSIX), so that the
 * kinds never meet on one file (Linux does not make them exclude each
 * other).  One op = for each kind in use: lock, pread the u64 counter,
 * pwrite counter + 1, unlock.  verify: each counter == total ops.
 */
enum { LV_FLOCK, LV_OFD, LV_POSIX };
static const char *const lv_name[] = {"flock", "ofd", "posix"};

static bool lv_posix_used(const struct stress_run *run)
{
	return run->opt->mode == MODE_PROCESSES;
}

static int lv_setup(struct stress_run *run)
{
	if (setup_shared(run))
		return -1;
	for (int k = 0; k < 3; k++) {
		snprintf(run->vpath[k], sizeof(run->vpath[k]), "%s/counter.%s", run->dir,
			 lv_name[k]);
		if (create_file(run->vpath[k], 0, true))
			return stress_setup_fail(run, "open(counter, O_CREAT)+pwrite", errno);
	}
	return 0;
}

static int lv_init(struct stress_task *t)
{
	for (int k = 0; k < 3; k++)
		if (open_fd(t, k, t->run->vpath[k], "open(counter)"))
			return -1;
	return 0;
}

static int lv_lock(struct stress_task *t, int k, bool lock)
{
	int fd = t->fd[k];

	if (t->run->opt->test_skip_lock)
		return 0;
	switch (k) {
	case LV_FLOCK:
		if (do_flock(fd, lock ? LOCK_EX : LOCK_UN))
			return stress_fail(t, lock ? "flock(LOCK_EX)" : "flock(LOCK_UN)", errno);
		return 0;
	case LV_OFD:
		if (do_fcntl_lock(fd, F_OFD_SETLKW, lock ? F_WRLCK : F_UNLCK))
			return stress_fail(t,
					   lock ? "fcntl(F_OFD_SETLKW, F_WRLCK)"
						: "fcntl(F_OFD_SETLKW, F_UNLCK)",
					   errno);
		return 0;
	default:
		if (do_fcntl_lock(fd, F_SETLKW, lock ? F_WRLCK : F_UNLCK))
			return stress_fail(
			    t, lock ? "fcntl(F_SETLKW, F_WRLCK)" : "fcntl(F_SETLKW, F_UNLCK)",
			    errno);
		return 0;
	}
}

static int lv_op(struct stress_task *t)
{
	bool window = t->run->opt->test_skip_lock || t->run->opt->test_race_window;
	int nk = lv_posix_used(t->run) ? 3 : 2;

	for (int k = 0; k < nk; k++) {
		uint64_t v;
		ssize_t n;

		if (lv_lock(t, k, true))
			return -1;
		n = pread(t->fd[k], &v, sizeof(v), 0);
		if (n != sizeof(v))
			return stress_fail(t, "pread(counter)", n < 0 ? errno : EIO);
		if (window && k == LV_FLOCK)
			stress_race_window(t);
		v++;
		n = pwrite(t->fd[k], &v, sizeof(v), 0);
		if (n != sizeof(v))
			return stress_fail(t, "pwrite(counter)", n < 0 ? errno : EIO);
		if (lv_lock(t, k, false))
			return -1;
	}
	return 0;
}

static int lv_verify(struct stress_run *run, uint64_t total_ops)
{
	int nk = lv_posix_used(run) ? 3 : 2;

	for (int k = 0; k < nk; k++) {
		uint64_t v;
		int fd = open(run->vpath[k], O_RDONLY | O_CLOEXEC);
		ssize_t n;

		if (fd < 0)
			return stress_setup_fail(run, "open(counter) in verify", errno);
		n = pread(fd, &v, sizeof(v), 0);
		close(fd);
		if (n != sizeof(v))
			return stress_setup_fail(run, "pread(counter) in verify",
						 n < 0 ? errno : EIO);
		if (v != total_ops) {
			snprintf(
			    run->verify_msg, sizeof(run->verify_msg),
			    "%s-locked counter is %llu after %llu locked increments (%lld lost)",
			    lv_name[k], (unsigned long long)v, (unsigned long long)total_ops,
			    (long long)(total_ops - v));
			return 0;
		}
	}
	return 1;
}

const struct stress_impl path_lock_verify = {
    .setup = lv_setup,
    .task_init = lv_init,
    .op = lv_op,
    .task_fini = fini_close,
    .verify = lv_verify,
    .teardown = teardown_files,
};

/*
 * zero: the host kernel's own shmem_zero_setup (one inode on its shm_mnt
 * per mapping, evicted at munmap's task_work fput).  Nothing touches DIR:
 * it is the kernel the model's zero is compared with.  --verify reads the
 * stamp back through the mapping.
 */
static int op_zero(struct stress_task *t)
{
	uint64_t stamp = (uint64_t)t->id << 40 | t->iter;
	long pg = sysconf(_SC_PAGESIZE);
	volatile uint64_t *p =
	    mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return stress_fail(t, "mmap(MAP_SHARED|MAP_ANONYMOUS)", errno);
	*p = stamp;
	if (t->run->opt->verify && *p != stamp) {
		uint64_t v = *p;

		munmap((void *)p, (size_t)pg);
		return stress_vfail(t, "shared anonymous page reads %llx, wrote %llx",
				    (unsigned long long)v, (unsigned long long)stamp);
	}
	if (munmap((void *)p, (size_t)pg))
		return stress_fail(t, "munmap", errno);
	return 0;
}

const struct stress_impl path_zero = {
    .op = op_zero,
};
