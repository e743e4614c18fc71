// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/stress/model_vfs.c - model implementations of the fd and file-lock
 * workloads: fstat1/2, stat1/2, open1/3, dup1 (fdtable + vfs) and flock1/2,
 * lock1/2, ofd2, lock-verify (locks).
 *
 * Each op goes through the model the way the system call does: fdget/fdput
 * around the file, do_sys_open for open,
 * close_fd for close, flock_lock_file / fcntl_setlk (blocking: the task
 * sleeps in the model) for locks.  POSIX lock owners are the task's
 * files_struct, as in Linux: threads (CLONE_FILES) share one, model
 * processes (task_fork) have their own.  Files live at the root of the
 * run's fresh model instance.  The tool takes no lock of its own; see
 * stress.h for the shared-memory rules and wl_path.c for the checks, which
 * are the same here.
 */
#include <stdio.h>
#include <string.h>

#include "fdtable/fdtable.h"
#include "locks/locks.h"
#include "stress.h"

static int m_create(const char *path, bool counter)
{
	struct file *f;
	int r = filp_open(path, O_CREAT | O_RDWR | O_TRUNC, 0644, &f);

	if (r)
		return r;
	if (counter) {
		uint64_t zero = 0;
		int64_t pos = 0;
		ssize_t n = vfs_write(f, &zero, sizeof(zero), &pos);

		if (n != sizeof(zero)) {
			fput(f);
			return n < 0 ? (int)n : -EIO;
		}
	}
	fput(f);
	return 0;
}

/* open(2): reserve an fd, open, install; returns the fd or -errno. */
static int m_open_fd(const char *path, int flags)
{
	return do_sys_open(path, flags, 0644);
}

/* ---- setup / teardown (parent task) ---------------------------------- */

static int m_setup_shared(struct stress_run *run)
{
	struct kstat st;
	int r;

	snprintf(run->shared_path, sizeof(run->shared_path), "/shared");
	r = m_create(run->shared_path, false);
	if (r)
		return stress_setup_fail(run, "filp_open(/shared, O_CREAT)", -r);
	r = vfs_stat(run->shared_path, &st);
	if (r)
		return stress_setup_fail(run, "vfs_stat(/shared)", -r);
	run->shared_ino = st.ino;
	return 0;
}

static void m_teardown(struct stress_run *run)
{
	char p[64];

	if (run->shared_path[0])
		do_unlink(run->shared_path);
	for (int i = 0; i < 3; i++)
		if (run->vpath[i][0])
			do_unlink(run->vpath[i]);
	for (int i = 0; i < run->ntasks; i++) {
		snprintf(p, sizeof(p), "/task.%d", i);
		do_unlink(p);
	}
}

/* ---- task init / fini ------------------------------------------------- */

static int m_own_file(struct stress_task *t)
{
	struct kstat st;
	int r;

	snprintf(t->path, sizeof(t->path), "/task.%d", t->id);
	r = m_create(t->path, false);
	if (r)
		return stress_fail(t, "filp_open(own, O_CREAT)", -r);
	r = vfs_stat(t->path, &st);
	if (r)
		return stress_fail(t, "vfs_stat(own)", -r);
	t->ino = st.ino;
	return 0;
}

static int m_open_slot(struct stress_task *t, int slot, const char *path, const char *call)
{
	int fd = m_open_fd(path, O_RDWR);

	if (fd < 0)
		return stress_fail(t, call, -fd);
	t->fd[slot] = fd;
	return 0;
}

static int m_init_own(struct stress_task *t)
{
	return m_own_file(t);
}

static int m_init_own_open(struct stress_task *t)
{
	if (m_own_file(t))
		return -1;
	return m_open_slot(t, 0, t->path, "open(own)");
}

static int m_init_shared(struct stress_task *t)
{
	snprintf(t->path, sizeof(t->path), "%s", t->run->shared_path);
	t->ino = t->run->shared_ino;
	return 0;
}

static int m_init_shared_open(struct stress_task *t)
{
	m_init_shared(t);
	return m_open_slot(t, 0, t->path, "open(shared)");
}

static void m_fini_close(struct stress_task *t)
{
	for (int i = 0; i < 3; i++)
		if (t->fd[i] >= 0) {
			close_fd(t->fd[i]);
			t->fd[i] = -1;
		}
}

static int m_check_ino(struct stress_task *t, const struct kstat *st, const char *call)
{
	if (t->run->opt->verify && st->ino != (uint64_t)t->ino)
		return stress_vfail(t, "%s returned inode %llu, expected %llu", call,
				    (unsigned long long)st->ino, (unsigned long long)t->ino);
	return 0;
}

/* ---- fstat / stat / open / dup ---------------------------------------- */

static int m_fstat_fd(struct stress_task *t, int fd, const char *call)
{
	struct kstat st;
	struct fd f = fdget(fd);

	if (!f.file)
		return stress_fail(t, call, EBADF);
	vfs_getattr(f.file->f_inode, &st);
	fdput(f);
	return m_check_ino(t, &st, call);
}

/* fstat(fd) as glibc 2.33+ issues it: fstatat(fd, "", AT_EMPTY_PATH), whose
 * empty path the switch stat_empty_path serves by descriptor or by a walk */
static int m_op_fstat(struct stress_task *t)
{
	struct kstat st;
	int r = vfs_fstatat(t->fd[0], "", &st, AT_EMPTY_PATH);

	if (r)
		return stress_fail(t, "vfs_fstatat", -r);
	return m_check_ino(t, &st, "vfs_fstatat");
}

static int m_op_stat(struct stress_task *t)
{
	struct kstat st;
	int r = vfs_stat(t->path, &st);

	if (r)
		return stress_fail(t, "vfs_stat", -r);
	return m_check_ino(t, &st, "vfs_stat");
}

static int m_op_open(struct stress_task *t)
{
	int fd = m_open_fd(t->path, O_RDWR), r;

	if (fd < 0)
		return stress_fail(t, "open", -fd);
	if (t->run->opt->verify && m_fstat_fd(t, fd, "fstat(opened)")) {
		close_fd(fd);
		return -1;
	}
	r = close_fd(fd);
	if (r)
		return stress_fail(t, "close_fd", -r);
	return 0;
}

static int m_op_dup(struct stress_task *t)
{
	int fd = ksys_dup(t->fd[0]), r;

	if (fd < 0)
		return stress_fail(t, "ksys_dup", -fd);
	if (t->run->opt->verify) {
		if (fd == t->fd[0]) {
			close_fd(fd);
			return stress_vfail(t, "dup returned its argument %d", fd);
		}
		if (m_fstat_fd(t, fd, "fstat(dup)")) {
			close_fd(fd);
			return -1;
		}
	}
	r = close_fd(fd);
	if (r)
		return stress_fail(t, "close_fd(dup)", -r);
	return 0;
}

const struct stress_impl stress_model_fstat1 = {
    .task_init = m_init_own_open,
    .op = m_op_fstat,
    .task_fini = m_fini_close,
    .teardown = m_teardown,
};
const struct stress_impl stress_model_fstat2 = {
    .setup = m_setup_shared,
    .task_init = m_init_shared_open,
    .op = m_op_fstat,
    .task_fini = m_fini_close,
    .teardown = m_teardown,
};
const struct stress_impl stress_model_stat1 = {
    .task_init = m_init_own,
    .op = m_op_stat,
    .teardown = m_teardown,
};
const struct stress_impl stress_model_stat2 = {
    .setup = m_setup_shared,
    .task_init = m_init_shared,
    .op = m_op_stat,
    .teardown = m_teardown,
};
const struct stress_impl stress_model_open1 = {
    .task_init = m_init_own,
    .op = m_op_open,
    .teardown = m_teardown,
};
const struct stress_impl stress_model_open3 = {
    .setup = m_setup_shared,
    .task_init = m_init_shared,
    .op = m_op_open,
    .teardown = m_teardown,
};
const struct stress_impl stress_model_dup1 = {
    .setup = m_setup_shared,
    .task_init = m_init_shared_open,
    .op = m_op_dup,
    .task_fini = m_fini_close,
    .teardown = m_teardown,
};

/* ---- locks ------------------------------------------------------------ */

enum { MLK_FLOCK, MLK_OFD, MLK_POSIX };

/* One lock or unlock through the fd, as the system call does (the model's
 * ksys_fcntl for POSIX and OFD locks, with the kernel's fd re-check). */
static int m_lock(struct stress_task *t, int fd, int kind, bool lock)
{
	static const char *const calls[3][2] = {
	    {"flock_lock_file(LOCK_UN)", "flock_lock_file(LOCK_EX)"},
	    {"ksys_fcntl(F_OFD_SETLKW, F_UNLCK)", "ksys_fcntl(F_OFD_SETLKW, F_WRLCK)"},
	    {"ksys_fcntl(F_SETLKW, F_UNLCK)", "ksys_fcntl(F_SETLKW, F_WRLCK)"},
	};
	int r;

	if (kind == MLK_FLOCK) {
		struct fd f = fdget(fd);

		if (!f.file)
			return stress_fail(t, calls[kind][lock], EBADF);
		r = flock_lock_file(f.file, lock ? LOCK_EX : LOCK_UN, current->tgid, NULL);
		fdput(f);
	} else {
		/* byte 0 only, as will-it-scale's lock1/lock2 (and the --path runs) */
		struct flock fl = {.l_type = lock ? F_WRLCK : F_UNLCK,
				   .l_whence = SEEK_SET,
				   .l_start = 0,
				   .l_len = 1};

		r = ksys_fcntl((unsigned int)fd, kind == MLK_OFD ? F_OFD_SETLKW : F_SETLKW,
			       (unsigned long)&fl);
	}
	if (r)
		return stress_fail(t, calls[kind][lock], r < 0 ? -r : EPROTO);
	return 0;
}

static int m_lock_unlock(struct stress_task *t, int kind)
{
	bool shared = t->ino == t->run->shared_ino;
	bool excl = shared && t->run->opt->verify && t->run->ntasks > 1 &&
		    (kind != MLK_POSIX || t->run->opt->mode == MODE_PROCESSES);
	bool skip = t->run->opt->test_skip_lock;

	if (!skip && m_lock(t, t->fd[0], kind, true))
		return -1;
	if (excl && stress_excl_enter(t, 0, "lock")) {
		if (!skip)
			m_lock(t, t->fd[0], kind, false);
		return -1;
	}
	/* as wl_path.c excl_section: a window that a non-excluding lock
	 * cannot survive */
	if (excl && (skip || t->run->opt->test_race_window))
		stress_race_window(t);
	if (excl)
		stress_excl_exit(t, 0);
	return skip ? 0 : m_lock(t, t->fd[0], kind, false);
}

static int m_op_flock(struct stress_task *t)
{
	return m_lock_unlock(t, MLK_FLOCK);
}

static int m_op_posix(struct stress_task *t)
{
	return m_lock_unlock(t, MLK_POSIX);
}

static int m_op_ofd(struct stress_task *t)
{
	return m_lock_unlock(t, MLK_OFD);
}

const struct stress_impl stress_model_flock1 = {
    .task_init = m_init_own_open,
    .op = m_op_flock,
    .task_fini = m_fini_close,
    .teardown = m_teardown,
};
const struct stress_impl stress_model_flock2 = {
    .setup = m_setup_shared,
    .task_init = m_init_shared_open,
    .op = m_op_flock,
    .task_fini = m_fini_close,
    .teardown = m_teardown,
};
const struct stress_impl stress_model_lock1 = {
    .task_init = m_init_own_open,
    .op = m_op_posix,
    .task_fini = m_fini_close,
    .teardown = m_teardown,
};
const struct stress_impl stress_model_lock2 = {
    .setup = m_setup_shared,
    .task_init = m_init_shared_open,
    .op = m_op_posix,
    .task_fini = m_fini_close,
    .teardown = m_teardown,
};
const struct stress_impl stress_model_ofd2 = {
    .setup = m_setup_shared,
    .task_init = m_init_shared_open,
    .op = m_op_ofd,
    .task_fini = m_fini_close,
    .teardown = m_teardown,
};

/* ---- lock-verify: counters in the locked files (see wl_path.c) -------- */

static const char *const mlv_name[] = {"flock", "ofd", "posix"};

static int mlv_nkinds(const struct stress_run *run)
{
	return run->opt->mode == MODE_PROCESSES ? 3 : 2;
}

static int mlv_setup(struct stress_run *run)
{
	int r;

	if (m_setup_shared(run))
		return -1;
	for (int k = 0; k < 3; k++) {
		snprintf(run->vpath[k], sizeof(run->vpath[k]), "/counter.%s", mlv_name[k]);
		r = m_create(run->vpath[k], true);
		if (r)
			return stress_setup_fail(run, "filp_open(counter, O_CREAT)+vfs_write", -r);
	}
	return 0;
}

static int mlv_init(struct stress_task *t)
{
	for (int k = 0; k < 3; k++)
		if (m_open_slot(t, k, t->run->vpath[k], "open(counter)"))
			return -1;
	return 0;
}

static int mlv_rw(struct stress_task *t, int fd, uint64_t *v, bool write)
{
	struct fd f = fdget(fd);
	int64_t pos = 0;
	ssize_t n;

	if (!f.file)
		return stress_fail(t, write ? "vfs_write(counter)" : "vfs_read(counter)", EBADF);
	n = write ? vfs_write(f.file, v, sizeof(*v), &pos) : vfs_read(f.file, v, sizeof(*v), &pos);
	fdput(f);
	if (n != sizeof(*v))
		return stress_fail(t, write ? "vfs_write(counter)" : "vfs_read(counter)",
				   n < 0 ? (int)-n : EIO);
	return 0;
}

static int mlv_op(struct stress_task *t)
{
	const struct stress_opts *o = t->run->opt;
	bool window = o->test_skip_lock || o->test_race_window;

	for (int k = 0; k < mlv_nkinds(t->run); k++) {
		uint64_t v;

		if (!o->test_skip_lock && m_lock(t, t->fd[k], k, true))
			return -1;
		if (mlv_rw(t, t->fd[k], &v, false))
			return -1;
		if (window && k == MLK_FLOCK)
			stress_race_window(t);
		v++;
		if (mlv_rw(t, t->fd[k], &v, true))
			return -1;
		if (!o->test_skip_lock && m_lock(t, t->fd[k], k, false))
			return -1;
	}
	return 0;
}

static int mlv_verify(struct stress_run *run, uint64_t total_ops)
{
	for (int k = 0; k < mlv_nkinds(run); k++) {
		struct file *f;
		uint64_t v = 0;
		int64_t pos = 0;
		ssize_t n;
		int r = filp_open(run->vpath[k], O_RDONLY, 0, &f);

		if (r)
			return stress_setup_fail(run, "filp_open(counter) in verify", -r);
		n = vfs_read(f, &v, sizeof(v), &pos);
		fput(f);
		if (n != sizeof(v))
			return stress_setup_fail(run, "vfs_read(counter) in verify",
						 n < 0 ? (int)-n : EIO);
		if (v != total_ops) {
			snprintf(
			    run->verify_msg, sizeof(run->verify_msg),
			    "%s-locked counter is %llu after %llu locked increments (%lld lost)",
			    mlv_name[k], (unsigned long long)v, (unsigned long long)total_ops,
			    (long long)(total_ops - v));
			return 0;
		}
	}
	return 1;
}

const struct stress_impl stress_model_lock_verify = {
    .setup = mlv_setup,
    .task_init = mlv_init,
    .op = mlv_op,
    .task_fini = m_fini_close,
    .verify = mlv_verify,
    .teardown = m_teardown,
};
