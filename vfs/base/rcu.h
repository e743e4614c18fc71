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
#define rcu_read_lock()	  urcu_memb_read_lock()
#define rcu_read_unlock() urcu_memb_read_unlock()
#define synchronize_rcu() urcu_memb_synchronize_rcu()
#else
/* explorer build: sections are scheduling points and are counted per task,
 * so that synchronize_rcu parks while another explored task is inside one */
#define rcu_read_lock()                                                                            \
	do {                                                                                       \
		urcu_memb_read_lock();                                                             \
		if (RV_XACTIVE())                                                                  \
			rv_xrcu_lock();                                                            \
	} while (0)
#define rcu_read_unlock()                                                                          \
	do {                                                                                       \
		urcu_memb_read_unlock();                                                           \
		if (RV_XACTIVE())                                                                  \
			rv_xrcu_unlock();                                                          \
	} while (0)
#define synchronize_rcu()                                                                          \
	do {                                                                                       \
		if (RV_XACTIVE())                                                                  \
			rv_xsync_rcu_wait();                                                       \
		/* the simulator waited for a grace period of its tasks                            \
		 * (each reader left its section): liburcu's would wait                            \
		 * for readers parked inside theirs */                                             \
		if (!RV_XSIM())                                                                    \
			urcu_memb_synchronize_rcu();                                               \
	} while (0)
#endif
#ifndef RCUVFS_EXPLORE
#define call_rcu(head, fn) urcu_memb_call_rcu((head), (fn))
#define rcu_barrier()	   urcu_memb_barrier()
#else
/* explorer build: callbacks run at deterministic points (explore.c) */
#define call_rcu(head, fn) rv_xcall_rcu((head), (fn))
#define rcu_barrier()	   rv_xrcu_barrier()
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

/*
 * rcu_read_unlock for a hot path that must stay a leaf (fget): the common
 * case with no call at all.  rv_rcu_read_unlock_leaf() ends the section
 * and returns RV_RCU_UNLOCKED, or returns what the caller must still do,
 * out of line: RV_RCU_UNLOCK_CALL (nothing done yet: call
 * rcu_read_unlock(); a nested section, no sys_membarrier, or a liburcu
 * this code was not checked against) or RV_RCU_UNLOCK_WAKE (the section
 * ended and a synchronize_rcu waits on readers: call rv_rcu_wake_up_gp()).
 *
 * The inline case is liburcu memb's own unlock (_urcu_memb_read_unlock in
 * urcu/static/urcu-memb.h, reached under _LGPL_SOURCE), reading its reader
 * state directly (URCU_TLS(urcu_memb_reader).ctr, urcu_memb_gp.futex):
 * that is liburcu's internal layout, so it is compiled only when CMake
 * found a liburcu whose layout it was checked against
 * (RCUVFS_URCU_INLINE_UNLOCK, set for 0.13.x); with any other version every
 * unlock takes the public call.  The two changes from liburcu's: the
 * grace-period wake-up (a futex call) is left to the caller, out of line,
 * and urcu_memb_has_sys_membarrier is read once (liburcu sets it at
 * initialization, before any reader), with the no-membarrier case on the
 * public call.  unit.test_base.rcu compares its effect on the reader state
 * with the public rcu_read_unlock's, so a changed layout fails there.
 */
enum rv_rcu_unlock_res { RV_RCU_UNLOCKED, RV_RCU_UNLOCK_CALL, RV_RCU_UNLOCK_WAKE };
#ifdef RCUVFS_URCU_INLINE_UNLOCK
static __always_inline enum rv_rcu_unlock_res rv_rcu_read_unlock_leaf(void)
{
	unsigned long tmp = URCU_TLS(urcu_memb_reader).ctr;

	if (unlikely((tmp & URCU_GP_CTR_NEST_MASK) != URCU_GP_COUNT ||
		     !CMM_LOAD_SHARED(urcu_memb_has_sys_membarrier)))
		return RV_RCU_UNLOCK_CALL;
	cmm_barrier(); /* the section before the store (membarrier on the writer side) */
	CMM_STORE_SHARED(URCU_TLS(urcu_memb_reader).ctr, tmp - URCU_GP_COUNT);
	cmm_barrier(); /* the store before the futex load */
	if (unlikely(uatomic_read(&urcu_memb_gp.futex) == -1))
		return RV_RCU_UNLOCK_WAKE;
	return RV_RCU_UNLOCKED;
}

/* After RV_RCU_UNLOCK_WAKE: wake the waiting synchronize_rcu. */
static inline void rv_rcu_wake_up_gp(void)
{
	urcu_common_wake_up_gp(&urcu_memb_gp);
}
#else
static __always_inline enum rv_rcu_unlock_res rv_rcu_read_unlock_leaf(void)
{
	return RV_RCU_UNLOCK_CALL;
}

static inline void rv_rcu_wake_up_gp(void)
{
}
#endif

#endif /* RCUVFS_VFS_BASE_RCU_H */
