// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fdtable/open.c - open(2) on the model: do_sys_open, the shape of Linux's
 * do_sys_openat2 (fs/open.c, 6.x): reserve the lowest free fd, open the
 * file by path, install it in the reserved slot; if the open fails, the
 * reservation is given back.
 *
 * Locking: get_unused_fd_flags and put_unused_fd take current->files'
 * file_lock; filp_open takes the VFS's locks (see vfs/fs.h) with no lock of
 * fdtable/ held; fd_install publishes into the reserved slot (fdtable.c).
 */
#include "fdtable/fdtable.h"

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
