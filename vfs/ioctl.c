// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/ioctl.c - vfs_ioctl: a restricted set of rcuvfs's own ioctl commands
 * (RCUVFS_IOC_*, vfs/fs.h), so that the BKL's historic ioctl path exists in
 * the model and can be reached through FUSE, and the file-attribute
 * ioctls lsattr/chattr use (FS_IOC_GETFLAGS/SETFLAGS, FS_IOC_FSGETXATTR/
 * FSSETXATTR).  Anything else is -ENOTTY, as for a file system without
 * ->unlocked_ioctl.
 *
 * Locking: with bkl_ops=ioctl the command runs under the BKL, as 2.6.26's
 * vfs_ioctl ran every file system's ->ioctl (unlocked_ioctl came later);
 * the switch is read once per call.  The commands themselves only read
 * fields fixed for the file's life (f_gen, f_inode->i_generation), so they
 * need no other lock.
 */
#include "vfs/internal.h"

#include <string.h>

RV_STAT_DEFINE(vfs_ioctls, "vfs_ioctl calls");

/*
 * The file-attribute ioctls (fs/ioctl.c ioctl_getflags/ioctl_fssetxattr ->
 * vfs_fileattr_get/set; through FUSE, fuse_fileattr_get/set send them as
 * FUSE_IOCTL with a 4-byte flags word or a struct fsxattr).  The model
 * keeps no attribute flags: they read as 0, and setting 0 (what chattr
 * writes back for an unchanged file) succeeds; any flag is EOPNOTSUPP
 * (tmpfs's shmem_fileattr_set keeps APPEND, IMMUTABLE, NODUMP, NOATIME).
 */
static long fileattr_ioctl(struct file *file, unsigned int cmd, void *arg)
{
	struct fsxattr *fa = arg;

	if (!arg)
		return -EFAULT;
	switch (cmd) {
	case FS_IOC_GETFLAGS:
		*(unsigned int *)arg = 0; /* ioctl_getflags writes an int */
		return 0;
	case FS_IOC_SETFLAGS:
		return *(const unsigned int *)arg ? -EOPNOTSUPP : 0;
	case FS_IOC_FSGETXATTR:
		memset(fa, 0, sizeof(*fa));
		return 0;
	case FS_IOC_FSSETXATTR:
		return fa->fsx_xflags || fa->fsx_extsize || fa->fsx_projid || fa->fsx_cowextsize
			   ? -EOPNOTSUPP
			   : 0;
	}
	return -ENOTTY;
}

static long rcuvfs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	uint64_t *out = (uint64_t *)arg;

	switch (cmd) {
	case FS_IOC_GETFLAGS:
	case FS_IOC_SETFLAGS:
	case FS_IOC_FSGETXATTR:
	case FS_IOC_FSSETXATTR:
		return fileattr_ioctl(file, cmd, (void *)arg);
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
