/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/instance.h - the model instance and subsystem registration.
 *
 * Locking: create and destroy are serialized by rv_instance_lock
 * (instance.c); one instance is live at a time; subsystems register from
 * constructors before main().
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_INSTANCE_H
#define RCUVFS_VFS_BASE_INSTANCE_H

#include "vfs/base/switches.h"

/*
 * The model instance.  Upper layers register init/teardown functions (their
 * caches, global locks) with rv_subsys_register, in layer order; they run at
 * rv_instance_create (in order) and rv_instance_destroy (reverse order).
 * Only one instance is live at a time.
 */
struct rv_subsys {
	const char *name;
	int (*init)(void);     /* 0 or -errno */
	int (*teardown)(void); /* 0, or -EBUSY on leaks (reported) */
	int order;             /* lower first: base 0, vfs 10, fdtable/locks/mm 20 */
	struct rv_subsys *next;
};
void rv_subsys_register(struct rv_subsys *s);
#define RV_SUBSYS(nm, ord, initfn, teardownfn)                                  \
	static struct rv_subsys rv_subsys_##nm = { #nm, initfn, teardownfn, ord, NULL }; \
	__attribute__((constructor)) static void rv_subsys_ctor_##nm(void)     \
	{                                                                       \
		rv_subsys_register(&rv_subsys_##nm);                            \
	}

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
