/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/fs.h - part of vfs/vfs.h: super_block, inode, dentry, namei, file ops.
 * Owned by the VFS-objects work (issue 4).  Do not include directly.
 */
#ifndef RCUVFS_VFS_FS_H
#define RCUVFS_VFS_FS_H

/* placeholder: the VFS-objects work defines the objects here */

#endif
