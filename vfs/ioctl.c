// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/ioctl.c - vfs_ioctl: a restricted set of rcuvfs's own ioctl commands
 * (RCUVFS_IOC_*, vfs/fs.h), so that the BKL's historic ioctl path exists in
 * the model and can be reached through FUSE.
 *
 * Locking: with bkl_ops=ioctl the command runs under the BKL, as 2.6.26's
 * vfs_ioctl ran every file system's ->ioctl (unlocked_ioctl came later);
 * the switch is read once per call.  The commands themselves only read
 * fields fixed for the file's life (f_gen, f_inode->i_generation), so they
 * need no other lock.
 */
#include "vfs/internal.h"

RV_STAT_DEFINE(vfs_ioctls, "vfs_ioctl calls");

static long rcuvfs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	uint64_t *out = (uint64_t *)arg;

	switch (cmd) {
	case RCUVFS_IOC_NOP:
		return 0;
	case RCUVFS_IOC_GETGEN:
		if (!out)
			return -EFAULT;
		*out = file->f_gen;
		return 0;
	case RCUVFS_IOC_GETVERSION:
		if (!out)
			return -EFAULT;
		*out = file->f_inode->i_generation;
		return 0;
	default:
		return -ENOTTY;
	}
}

long vfs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	const bool bkl = rv_sw.bkl_ops & BKL_OP_IOCTL; /* read-mostly, once */
	long ret;

	rv_stat_inc(vfs_ioctls);
	if (file->f_mode & FMODE_PATH)
		return -EBADF;
	if (unlikely(bkl))
		lock_kernel();
	RV_INJECT("bkl_ops_ioctl");
	ret = rcuvfs_ioctl(file, cmd, arg);
	if (unlikely(bkl))
		unlock_kernel();
	return ret;
}
