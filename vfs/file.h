/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/file.h - part of vfs/vfs.h: struct file and its reference count.
 * Owned by the fd-table work (issue 3).  Do not include directly.
 */
#ifndef RCUVFS_VFS_FILE_H
#define RCUVFS_VFS_FILE_H

/* placeholder: the fd-table work defines struct file here */

#endif
