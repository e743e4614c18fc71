/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/percpu_counter.h - percpu_counter, per-cpu counters summed on read.
 *
 * Locking: slots are relaxed atomics (no lock on add); the global list of
 * counters is under percpu_counters_lock, taken by init and destroy (once per
 * group with the _many variants).
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_PERCPU_COUNTER_H
#define RCUVFS_VFS_BASE_PERCPU_COUNTER_H

#include "vfs/base/list.h"

/*
 * Per-cpu slots (indexed by rv_this_cpu()) updated with relaxed atomics and
 * summed on read.  Every counter is registered on a global list under one
 * global spinlock (percpu_counters_lock), as the kernel's hotplug list is;
 * percpu_counter_init_many registers a group with one allocation and one
 * acquisition of that lock.
 */
struct percpu_counter {
	int64_t *counters;     /* nr slots (shared allocation for a group) */
	struct list_head list; /* on the global list, under percpu_counters_lock */
	int group_head;	       /* 1 if this counter owns the group's allocation */
	int group_n;
	int nr; /* rows: rv_nr_cpu_ids() when it was initialised */
};
int percpu_counter_init(struct percpu_counter *fbc, int64_t amount);
int percpu_counter_init_many(struct percpu_counter *fbc, int64_t amount, int n);
void percpu_counter_destroy(struct percpu_counter *fbc);
void percpu_counter_destroy_many(struct percpu_counter *fbc, int n);
void percpu_counter_add(struct percpu_counter *fbc, int64_t amount);
int64_t percpu_counter_sum(struct percpu_counter *fbc);
static inline void percpu_counter_inc(struct percpu_counter *fbc)
{
	percpu_counter_add(fbc, 1);
}
static inline void percpu_counter_dec(struct percpu_counter *fbc)
{
	percpu_counter_add(fbc, -1);
}
/*
 * The possible CPUs (the kernel's nr_cpu_ids): the host's configured CPUs,
 * or what rv_set_nr_cpu_ids() set.  Per-CPU data is sized by it when it is
 * allocated (each counter keeps its own row count).
 */
int rv_nr_cpu_ids(void);
/* Set the possible CPUs (rcuvfs-sim: the simulated machine's count), before
 * a model instance allocates per-CPU data; n <= 0: the host's again. */
void rv_set_nr_cpu_ids(int n);
/*
 * The CPU the caller runs on (the kernel's smp_processor_id() with
 * preemption off), in [0, rv_nr_cpu_ids()): every per-CPU index of the model
 * goes through it.  sched_getcpu() on the host; under rcuvfs-sim (the
 * explorer build with the simulator attached) the task's virtual CPU.
 */
int rv_this_cpu(void);
long percpu_counter_registered(void); /* counters on the global list */

#endif /* RCUVFS_VFS_BASE_PERCPU_COUNTER_H */
