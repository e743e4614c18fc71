/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/base.h - the kernel infrastructure rcuvfs's model is built from.
 *
 * This is the one public header of vfs/base.  Everything above it (vfs,
 * fdtable, locks, mm, fuse, tests) includes only this file from here.  Each
 * primitive has its own header beside its .c, which states its locking
 * rules at the top:
 *
 *   explore.h         scheduling points of rcuvfs-explore (explorer build only)
 *   compiler.h        READ_ONCE, barriers, likely, container_of, cpu_relax
 *   list.h            list_head
 *   rcu.h             RCU glue over liburcu memb (rv_rcu_*)
 *   spinlock.h        spinlock_t (bounded spin then sched_yield), rv_now_ns
 *   seqlock.h         seqcount_t / seqlock_t
 *   sched.h           tasks and `current`, set_current_state/schedule/
 *                     wake_up_process, signals, task_fork/task_clone_thread
 *   wait.h            wait queues, wait_event*, completion
 *   rwsem.h           rw_semaphore
 *   semaphore.h       semaphore (sem_fifo, sem_steal)
 *   bkl.h             the BKL (lock_kernel/unlock_kernel)
 *   lockref.h         lockref
 *   slab.h            kmem_cache (per-CPU slab or sheaves, kfree_rcu, TYPESAFE_BY_RCU, ASan)
 *   percpu_counter.h  percpu_counter (+ percpu_counter_init_many)
 *   inject.h          injection points (RV_INJECT)
 *   mutant.h          named mutation sites (RV_MUTANT; mutation builds only)
 *   stats.h           stats registry (RV_STAT_DEFINE / rv_stat_inc)
 *   switches.h        the switches (rv_sw)
 *   instance.h        the model instance, subsystem registration
 *
 * Across primitives: nothing sleeps (schedule(), a semaphore, an rwsem, a
 * semaphore BKL) while holding a spinlock_t or inside an RCU read-side
 * section.  Errors are negative errno values throughout.
 */
#ifndef RCUVFS_VFS_BASE_H
#define RCUVFS_VFS_BASE_H

#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE 1 /* inline liburcu fast paths (read_lock/unlock) */
#endif
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "vfs/base/explore.h"
#include "vfs/base/mutant.h"
#include "vfs/base/compiler.h"
#include "vfs/base/list.h"
#include "vfs/base/rcu.h"
#include "vfs/base/spinlock.h"
#include "vfs/base/seqlock.h"
#include "vfs/base/sched.h"
#include "vfs/base/wait.h"
#include "vfs/base/rwsem.h"
#include "vfs/base/semaphore.h"
#include "vfs/base/bkl.h"
#include "vfs/base/lockref.h"
#include "vfs/base/slab.h"
#include "vfs/base/failslab.h"
#include "vfs/base/percpu_counter.h"
#include "vfs/base/inject.h"
#include "vfs/base/stats.h"
#include "vfs/base/switches.h"
#include "vfs/base/instance.h"

#endif /* RCUVFS_VFS_BASE_H */
