/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/rcu.h - RCU glue over liburcu's memb flavour (rv_rcu_*).
 *
 * Locking: read-side sections (rcu_read_lock/unlock) nest and never block;
 * synchronize_rcu() and rcu_barrier() must not be called inside one.
 * Registration is per thread (see below).
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_RCU_H
#define RCUVFS_VFS_BASE_RCU_H

#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE 1 /* inline liburcu fast paths (read_lock/unlock) */
#endif
#include "vfs/base/compiler.h"
#include <stdbool.h>
#include <urcu/urcu-memb.h>

/*
 * Every thread that enters a read-side section or calls call_rcu must be
 * registered.  Threads rcuvfs creates call rv_thread_enter(); threads it does
 * not create (libfuse workers) are registered lazily by rv_rcu_ensure(),
 * which the model calls at its entry points, and unregistered at thread exit
 * by a pthread key destructor.  Never block inside a read-side section.
 */
#ifndef RCUVFS_EXPLORE
#define rcu_read_lock()          urcu_memb_read_lock()
#define rcu_read_unlock()        urcu_memb_read_unlock()
#define synchronize_rcu()        urcu_memb_synchronize_rcu()
#else
/* explorer build: sections are scheduling points and are counted per task,
 * so that synchronize_rcu parks while another explored task is inside one */
#define rcu_read_lock()                                                  \
	do {                                                             \
		urcu_memb_read_lock();                                   \
		if (RV_XACTIVE())                                        \
			rv_xrcu_lock();                                  \
	} while (0)
#define rcu_read_unlock()                                                \
	do {                                                             \
		urcu_memb_read_unlock();                                 \
		if (RV_XACTIVE())                                        \
			rv_xrcu_unlock();                                \
	} while (0)
#define synchronize_rcu()                                                \
	do {                                                             \
		if (RV_XACTIVE())                                        \
			rv_xsync_rcu_wait();                             \
		/* the simulator waited for a grace period of its tasks  \
		 * (each reader left its section): liburcu's would wait  \
		 * for readers parked inside theirs */                   \
		if (!RV_XSIM())                                          \
			urcu_memb_synchronize_rcu();                     \
	} while (0)
#endif
#ifndef RCUVFS_EXPLORE
#define call_rcu(head, fn)       urcu_memb_call_rcu((head), (fn))
#define rcu_barrier()            urcu_memb_barrier()
#else
/* explorer build: callbacks run at deterministic points (explore.c) */
#define call_rcu(head, fn)       rv_xcall_rcu((head), (fn))
#define rcu_barrier()            rv_xrcu_barrier()
#endif
/* rcu_dereference(p) and rcu_assign_pointer(p, v) come from liburcu. */
struct rcu_head;

extern __thread int rv_rcu_registered;
void rv_rcu_register_slow(void);
/* Register the calling thread with liburcu if it is not yet (idempotent). */
static __always_inline void rv_rcu_ensure(void)
{
	if (unlikely(!rv_rcu_registered))
		rv_rcu_register_slow();
}
/* Explicitly unregister the calling thread (also done at thread exit). */
void rv_rcu_unregister(void);
/* Whether liburcu's memb flavour uses sys_membarrier (readers then pay no fence). */
bool rv_rcu_has_membarrier(void);
/* One line for start-up reports. */
const char *rv_rcu_describe(void);
/* call_rcu counting callbacks queued and run (gauges rcu_callbacks_queued/_done). */
void rv_call_rcu(struct rcu_head *head, void (*fn)(struct rcu_head *));

#endif /* RCUVFS_VFS_BASE_RCU_H */
