// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fdtable/open.c - open(2) on the model: do_sys_open, the shape of Linux's
 * do_sys_openat2 (fs/open.c, 6.x): reserve the lowest free fd, open the
 * file by path, install it in the reserved slot; if the open fails, the
 * reservation is given back.
 *
 * Also vfs_fstatat (fs/stat.c): fstatat(2), which glibc from 2.33 on uses
 * for fstat(fd) as fstatat(fd, "", AT_EMPTY_PATH).  Its empty path follows
 * the switch stat_empty_path:
 *   fd    6.6+ (9013c51c630a; vfs_empty_path() since 6.10): vfs_fstat, the
 *         file borrowed with fdget and its inode's attributes read, no
 *         dentry reference;
 *   walk  before 6.6: vfs_statx -> user_path_at_empty(LOOKUP_EMPTY), a walk
 *         of the empty name.  In RCU mode path_init borrows the file under
 *         rcu_read_lock and samples its dentry's d_seq, link_path_walk has
 *         nothing to walk, complete_walk legitimizes the path
 *         (lockref_get_not_dead on the dentry's lockref, then the d_seq
 *         sample must still hold), vfs_getattr reads the attributes and
 *         path_put drops the reference (dput).  A failed legitimization
 *         redoes it in reference mode (dget under the borrowed file).
 *   The walk's other costs (getname's names_cache allocation, the mount's
 *   per-CPU count) are not modelled: the model has neither.
 *
 * Locking: get_unused_fd_flags and put_unused_fd take current->files'
 * file_lock; filp_open takes the VFS's locks (see vfs/fs.h) with no lock of
 * fdtable/ held; fd_install publishes into the reserved slot (fdtable.c).
 * vfs_fstatat's walk holds rcu_read_lock from the borrow to the
 * legitimization; its dentry reference is dropped with no lock held.
 */
#include "fdtable/fdtable.h"

#include <fcntl.h>

RV_STAT_DEFINE(stat_empty_path_walks,
	       "fstatat(fd, \"\", AT_EMPTY_PATH) calls that walked the empty path");

int do_sys_open(const char *path, int flags, uint32_t mode)
{
	struct file *f;
	int fd = get_unused_fd_flags(flags & O_CLOEXEC), err;

	if (fd < 0)
		return fd;
	err = filp_open(path, flags & ~O_CLOEXEC, mode, &f);
	if (err) {
		put_unused_fd((unsigned int)fd);
		return err;
	}
	fd_install((unsigned int)fd, f);
	return fd;
}

/* The walk of an empty path from dfd (before 6.6; see the top comment). */
static int stat_empty_walk(unsigned int dfd, struct kstat *st)
{
	struct dentry *d;
	struct fd f;
	uint32_t seq;

	rv_stat_inc(stat_empty_path_walks);
	rcu_read_lock(); /* path_init, LOOKUP_RCU */
	f = fdget_raw(dfd);
	if (!f.file) {
		rcu_read_unlock();
		return -EBADF;
	}
	d = f.file->f_dentry;
	seq = read_seqcount_begin(&d->d_seq);
	fdput(f);
	/* complete_walk -> try_to_unlazy -> legitimize_path */
	if (lockref_get_not_dead(&d->d_lockref)) {
		RV_INJECT("fstatat_empty_legitimized");
		if (!read_seqcount_retry(&d->d_seq, seq)) {
			rcu_read_unlock();
			goto got;
		}
		rcu_read_unlock();
		dput(d);
	} else {
		rcu_read_unlock();
	}
	/* -ECHILD: path_init again in reference mode (path_get) */
	f = fdget_raw(dfd);
	if (!f.file)
		return -EBADF;
	d = dget(f.file->f_dentry);
	fdput(f);
got:
	vfs_getattr(d->d_inode, st);
	dput(d); /* path_put */
	return 0;
}

int vfs_fstatat(int dfd, const char *path, struct kstat *st, int flags)
{
	struct fd f;

	if (!path || !st)
		return -EFAULT;
	if (flags & ~(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT))
		return -EINVAL;
	if (*path) {
		/* the model's walks start at its root: absolute paths or AT_FDCWD */
		if (dfd != AT_FDCWD && *path != '/')
			return -EOPNOTSUPP;
		return (flags & AT_SYMLINK_NOFOLLOW) ? vfs_lstat(path, st) : vfs_stat(path, st);
	}
	if (!(flags & AT_EMPTY_PATH))
		return -ENOENT;
	if (dfd < 0)
		return dfd == AT_FDCWD ? vfs_stat("/", st) : -EBADF;
	if (rv_sw.stat_empty_path == STAT_EMPTY_PATH_WALK)
		return stat_empty_walk((unsigned int)dfd, st);
	/* vfs_fstat */
	f = fdget_raw((unsigned int)dfd);
	if (!f.file)
		return -EBADF;
	vfs_getattr(f.file->f_inode, st);
	fdput(f);
	return 0;
}
