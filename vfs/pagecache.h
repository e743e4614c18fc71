/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/pagecache.h - part of vfs/vfs.h: address_space, folio, backing store.
 * Owned by the VFS-objects work (issue 4).  Do not include directly.
 */
#ifndef RCUVFS_VFS_PAGECACHE_H
#define RCUVFS_VFS_PAGECACHE_H

/* placeholder: the VFS-objects work defines folios and address spaces here */

#endif
