/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/instance.h - the model instance and subsystem registration.
 *
 * Locking: create and destroy are serialized by rv_instance_lock
 * (instance.c); one instance is live at a time.  The table of subsystems
 * is constant.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_INSTANCE_H
#define RCUVFS_VFS_BASE_INSTANCE_H

#include "vfs/base/switches.h"

/*
 * The model instance.  Each subsystem (its caches, global locks, hooks)
 * defines its init/teardown pair with RV_SUBSYS beside them; the pairs run
 * from one fixed, ordered table, rv_initcalls (init/initcalls.c, the only
 * file that names every subsystem, as the kernel's initcall levels are
 * fixed): init in table order at rv_instance_create, teardown in reverse at
 * rv_instance_destroy.  Because the table names every subsystem, a program
 * linked statically against librcuvfs.a gets all of them, whichever
 * functions it calls.  Only one instance is live at a time.
 */
struct rv_subsys {
	const char *name;
	int (*init)(void);     /* 0 or -errno */
	int (*teardown)(void); /* 0, or -EBUSY on leaks (reported) */
};
#define RV_SUBSYS(nm, initfn, teardownfn)                                                          \
	const struct rv_subsys rv_subsys_##nm = {#nm, initfn, teardownfn}
/* For init/initcalls.c only: names a subsystem's RV_SUBSYS definition. */
#define RV_SUBSYS_EXTERN(nm) extern const struct rv_subsys rv_subsys_##nm
/*
 * The subsystems in start-up order, NULL-terminated: defined in
 * init/initcalls.c, a file of the library above every layer (it may name
 * every folder's subsystem); vfs/base/instance.c only walks it.
 */
extern const struct rv_subsys *const rv_initcalls[];

/* Create the instance with these switches (NULL: defaults); 0 or -errno. */
int rv_instance_create(const struct rv_switches *sw);
/*
 * Tear down: runs teardown hooks, rcu_barrier, destroys caches.  Returns 0,
 * or -EBUSY when anything leaked (each leak is reported on stderr).
 * The calling thread's task (if any) must have exited first.
 */
int rv_instance_destroy(void);
bool rv_instance_live(void);

#endif /* RCUVFS_VFS_BASE_INSTANCE_H */
