// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fdtable/fcntl.c - fcntl(2) on a model fd (Linux: fs/fcntl.c do_fcntl):
 * F_DUPFD, F_DUPFD_CLOEXEC, F_DUPFD_QUERY, F_GETFD/F_SETFD, F_GETFL,
 * F_SETFL (f_flags under file->f_lock), and the lock commands, which reach
 * locks/ through vfs_file_hooks (fdtable/ sits beside locks/ and does not
 * include it; locks/ fills the hooks in at its init).
 *
 * Locking: the fd is looked up with fdget_raw (RCU, no file_lock); the
 * close-on-exec bit is written under files->file_lock (set_close_on_exec,
 * fdtable.c).  fcntl_setlk_fd re-reads the fd under files->file_lock after
 * a lock is granted, which orders it against close_fd (see there); no lock
 * of fdtable/ is held across a call into locks/.
 */
#include "fdtable/fdtable.h"

/* defined in fdtable.c, so every program with fd tables lists it */
RV_STAT_DECLARE(fcntl_close_races);

/*
 * fcntl(fd, F_SETLK/F_SETLKW/F_OFD_SETLK/F_OFD_SETLKW, fl), as Linux's
 * fcntl_setlk (fs/locks.c; the recovery as of 6.10, "filelock: Remove locks
 * reliably when fcntl/close race is detected"): once a POSIX lock (not an
 * unlock, not OFD) is granted, check that fd still names filp.  Another
 * thread of the owner may have closed it while this one slept in F_SETLKW;
 * that close's locks_remove_posix ran before the lock existed, so the lock
 * would outlive every fd of its owner on the file.  The lookup is under
 * files->file_lock, which orders it against close_fd's pick of the file
 * (the file is then flushed, locks_remove_posix included); on a mismatch
 * every POSIX lock of this owner on the file goes, as at that close, and
 * the call fails with -EBADF.  Before 6.10 the kernel unlocked only the
 * range just granted.
 */
static int fcntl_setlk_fd(unsigned int fd, struct file *filp, unsigned int cmd, struct flock *fl)
{
	struct files_struct *files = current->files;
	struct file *now;
	int err;

	if (!vfs_file_hooks.fcntl_setlk)
		return -EINVAL;
	err = vfs_file_hooks.fcntl_setlk(filp, cmd, fl, files, current->tgid);
	if (err || fl->l_type == F_UNLCK || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW)
		return err;
	spin_lock(&files->file_lock);
	now = files_lookup_fd_raw(files, fd);
	spin_unlock(&files->file_lock);
	if (now != filp && !RV_MUTANT(setlk_close_race_ignored)) {
		rv_stat_inc(fcntl_close_races);
		if (vfs_file_hooks.locks_remove_posix)
			vfs_file_hooks.locks_remove_posix(filp, files);
		err = -EBADF;
	}
	return err;
}

/*
 * The commands an O_PATH file allows (check_fcntl_cmd, fs/fcntl.c, Linux
 * 6.18); any other is -EBADF on one.
 */
static bool check_fcntl_cmd(unsigned int cmd)
{
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
	case F_DUPFD_QUERY:
	case F_GETFD:
	case F_SETFD:
	case F_GETFL:
		return true;
	}
	return false;
}

/* f_dupfd_query (fs/fcntl.c, Linux 6.10+): 1 when fd names `filp`. */
static int f_dupfd_query(int fd, struct file *filp)
{
	struct fd f = fdget_raw((unsigned int)fd);
	int ret;

	if (!f.file)
		return -EBADF;
	ret = f.file == filp;
	fdput(f);
	return ret;
}

#define SETFL_MASK (O_APPEND | O_NONBLOCK | O_NDELAY | O_DIRECT | O_NOATIME)

/*
 * setfl (fs/fcntl.c, Linux 6.18): only SETFL_MASK bits change; O_DIRECT
 * needs a file that can do it (-EINVAL); O_ASYNC takes effect through
 * f_op->fasync, which no model file has, so it is dropped.  The model has
 * no append-only inodes and its tasks may always set O_NOATIME (the host
 * runs the differential test as root or as the files' owner).
 */
static int setfl(struct file *filp, unsigned int arg)
{
	if (O_NONBLOCK != O_NDELAY && (arg & O_NDELAY))
		arg |= O_NONBLOCK;
	if ((arg & O_DIRECT) && !(filp->f_mode & FMODE_CAN_ODIRECT))
		return -EINVAL;
	spin_lock(&filp->f_lock);
	WRITE_ONCE(filp->f_flags, (arg & SETFL_MASK) | (filp->f_flags & ~SETFL_MASK));
	spin_unlock(&filp->f_lock);
	return 0;
}

/*
 * fcntl(2) (fs/fcntl.c, Linux 6.18): the file is taken with fdget_raw; on
 * an O_PATH file only check_fcntl_cmd's commands run; do_fcntl's argument
 * is (int)arg for the fd commands, so F_DUPFD with 2^32 + 3 means 3.
 */
int ksys_fcntl(unsigned int fd, unsigned int cmd, unsigned long arg)
{
	struct fd f = fdget_raw(fd);
	int argi = (int)arg;
	int err;

	if (!f.file)
		return -EBADF;
	if ((f.file->f_mode & FMODE_PATH) && !check_fcntl_cmd(cmd)) {
		fdput(f);
		return -EBADF;
	}
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		err = f_dupfd((unsigned int)argi, f.file, cmd == F_DUPFD_CLOEXEC ? O_CLOEXEC : 0);
		break;
	case F_DUPFD_QUERY:
		err = f_dupfd_query(argi, f.file);
		break;
	case F_GETFD:
		err = get_close_on_exec(fd) ? FD_CLOEXEC : 0;
		break;
	case F_SETFD:
		set_close_on_exec(fd, argi & FD_CLOEXEC);
		err = 0;
		break;
	case F_GETFL:
		err = (int)READ_ONCE(f.file->f_flags);
		break;
	case F_SETFL:
		err = setfl(f.file, (unsigned int)argi);
		break;
	case F_GETLK:
	case F_OFD_GETLK:
		err = vfs_file_hooks.fcntl_getlk
			  ? vfs_file_hooks.fcntl_getlk(f.file, cmd, (struct flock *)arg,
						       current->files)
			  : -EINVAL;
		break;
	case F_SETLK:
	case F_SETLKW:
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
		err = fcntl_setlk_fd(fd, f.file, cmd, (struct flock *)arg);
		break;
	default:
		err = -EINVAL;
		break;
	}
	fdput(f);
	return err;
}
