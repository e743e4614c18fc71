/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/vfs.h - the public header of the model's VFS layer.
 *
 * Upper layers (fdtable, locks, mm, fuse, tests) include only this header
 * from vfs/.  It is split into parts for readability; the parts are never
 * included directly from outside vfs/:
 *   vfs/file.h       struct file and its refcount (fileref switch)
 *   vfs/fs.h         super_block, inode, dentry, path walk, namespace ops,
 *                    file operations, the vfs_hooks table
 *   vfs/pagecache.h  address_space, folio, backing store
 */
#ifndef RCUVFS_VFS_H
#define RCUVFS_VFS_H

#include "vfs/base/base.h"

struct super_block;
struct inode;
struct dentry;
struct file;
struct address_space;
struct folio;

#include "vfs/file.h"
#include "vfs/pagecache.h"
#include "vfs/fs.h"

#endif /* RCUVFS_VFS_H */
