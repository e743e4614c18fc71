// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * init/initcalls.c - the model's start-up order: every subsystem's
 * init/teardown pair (RV_SUBSYS, defined beside the functions), in the
 * order rv_instance_create runs them; rv_instance_destroy runs the
 * teardowns in reverse.  The kernel fixes its start-up the same way
 * (init/main.c and the initcall levels), and for the same reason here: the
 * table is data that names every subsystem, so a program linked statically
 * against librcuvfs.a gets each subsystem's object file and its start-up,
 * whichever model functions the program itself calls.  (Constructors
 * registering themselves would start only the subsystems whose objects the
 * linker pulled in for other symbols: a program using only tasks and POSIX
 * locks would run without the fd table's start-up, every model process
 * with no files_struct and so one POSIX owner.)
 *
 * Order: lower layers first (vfs/base <- vfs <- fdtable, locks, mm), each
 * after what it uses: the BKL; the VFS (superblock, inode, dentry and page
 * caches) after the file cache, so that at teardown the files' RCU frees
 * still find the VFS; the internal tmpfs mounts (vfs/shmem.c) after the
 * VFS; then the upper layers, which fill in the VFS's and the tasks' hook
 * tables.
 *
 * This file sits above every layer of the library, and it includes only
 * vfs/base/base.h: it names the subsystems by their RV_SUBSYS objects,
 * declared here, not by their headers.  vfs/base/instance.c walks the
 * table through its declaration in vfs/base/instance.h.
 *
 * Locking: none; the table is constant.
 */
#include "vfs/base/base.h"

RV_SUBSYS_EXTERN(bkl);	    /* vfs/base/bkl.c */
RV_SUBSYS_EXTERN(file);	    /* vfs/file.c */
RV_SUBSYS_EXTERN(vfs);	    /* vfs/super.c */
RV_SUBSYS_EXTERN(shmem);    /* vfs/shmem.c */
RV_SUBSYS_EXTERN(fdtable);  /* fdtable/fdtable.c */
RV_SUBSYS_EXTERN(locks);    /* locks/locks.c */
RV_SUBSYS_EXTERN(mm);	    /* mm/mmap.c */
RV_SUBSYS_EXTERN(mm_shmem); /* mm/shmem.c */

/* one subsystem per line, in start-up order (check-layering.sh reads it) */
/* clang-format off */
const struct rv_subsys *const rv_initcalls[] = {
	&rv_subsys_bkl,
	&rv_subsys_file,
	&rv_subsys_vfs,
	&rv_subsys_shmem,
	&rv_subsys_fdtable,
	&rv_subsys_locks,
	&rv_subsys_mm,
	&rv_subsys_mm_shmem,
	NULL,
};
/* clang-format on */
