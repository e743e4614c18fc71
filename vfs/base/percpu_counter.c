// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/percpu_counter.c - per-cpu counters summed on read.
 *
 * A counter is a row of int64_t slots, one per possible CPU (rv_nr_cpu_ids()
 * when it was initialised, kept in fbc->nr), indexed by rv_this_cpu().
 * percpu_counter_add is one relaxed atomic add on the current CPU's slot (a
 * thread migrated between rv_this_cpu and the add just updates another CPU's
 * slot: still exact, since every slot is atomic).  percpu_counter_sum adds
 * every slot: exact whenever no add runs concurrently.
 *
 * rv_this_cpu() is sched_getcpu() on the host and the virtual CPU under
 * rcuvfs-sim, which also sets the possible CPUs to the simulated machine's
 * (rv_set_nr_cpu_ids) so that every virtual CPU has its own row.  Under the
 * simulator, the add and each slot read by the sum are accesses to the
 * slot's line (simulator-only points).
 *
 * Memory of a group of n counters (percpu_counter_init_many) is one
 * allocation laid out as the kernel's per-cpu areas are: a header, then one
 * row per CPU holding the n counters' slots for that CPU side by side
 * (padded to a cache line, so two CPUs never write the same line), then one
 * extra row whose slot i points back at the header (so any member can find
 * its group):
 *
 *   [hdr][cpu0: c0 c1 .. cn-1 pad][cpu1: ...]...[back: hdr hdr .. hdr]
 *
 * Locking: every counter is on the global list percpu_counters under the
 * global spinlock percpu_counters_lock (the kernel's hotplug list, found
 * contended by exec and fork: docs/history.md).  init and destroy take it once per
 * counter; init_many and destroy_many take it once per group.  Each
 * acquisition is counted in percpu_counter_lock_acquisitions.  hdr->live
 * (members not yet destroyed) is under the same lock; the group's memory is
 * freed when it reaches zero, so destroying members one by one is legal.
 */
#include "vfs/base/base.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PCPU_LINE	    64
#define PCPU_SLOTS_PER_LINE ((int)(PCPU_LINE / sizeof(int64_t)))

struct pcpu_group {
	int live;   /* members still registered; under percpu_counters_lock */
	int n;	    /* members */
	int stride; /* slots per CPU row */
} __attribute__((aligned(PCPU_LINE)));

static DEFINE_SPINLOCK(percpu_counters_lock);
static struct list_head percpu_counters = LIST_HEAD_INIT(percpu_counters); /* under the lock */
static long percpu_counters_nr; /* under the lock; read relaxed */
static int pcpu_nr_cpu_ids;	/* cached; 0 until first use */

RV_STAT_DEFINE(percpu_counter_lock_acquisitions,
	       "acquisitions of the global percpu_counters_lock (init/destroy)");

int rv_nr_cpu_ids(void)
{
	int n = __atomic_load_n(&pcpu_nr_cpu_ids, __ATOMIC_RELAXED);

	if (likely(n > 0))
		return n;
	n = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (n < 1)
		n = 1;
	__atomic_store_n(&pcpu_nr_cpu_ids, n, __ATOMIC_RELAXED);
	return n;
}

void rv_set_nr_cpu_ids(int n)
{
	__atomic_store_n(&pcpu_nr_cpu_ids, n > 0 ? n : 0, __ATOMIC_RELAXED);
}

int rv_this_cpu(void)
{
	int nr = rv_nr_cpu_ids(), cpu;

#ifdef RCUVFS_EXPLORE
	if (RV_XSIM())
		cpu = rv_xsim->cpu();
	else
#endif
		cpu = sched_getcpu();
	if (unlikely(cpu < 0))
		cpu = 0;
	else if (unlikely(cpu >= nr))
		cpu %= nr;
	return cpu;
}

static inline int pcpu_stride(int n)
{
	return (n + PCPU_SLOTS_PER_LINE - 1) / PCPU_SLOTS_PER_LINE * PCPU_SLOTS_PER_LINE;
}

static inline struct pcpu_group *pcpu_group_of(const struct percpu_counter *fbc)
{
	int stride = pcpu_stride(fbc->group_n);

	return (struct pcpu_group *)(intptr_t)fbc->counters[(size_t)fbc->nr * stride];
}

static void pcpu_lock(void)
{
	/* counted outside the lock: the first count of a thread may allocate */
	rv_stat_inc(percpu_counter_lock_acquisitions);
	spin_lock(&percpu_counters_lock);
}

int percpu_counter_init_many(struct percpu_counter *fbc, int64_t amount, int n)
{
	int nr = rv_nr_cpu_ids(), stride = pcpu_stride(n);
	struct pcpu_group *g;
	int64_t *rows;
	size_t bytes;

	if (!fbc || n <= 0)
		return -EINVAL;
	bytes = sizeof(*g) + ((size_t)nr + 1) * (size_t)stride * sizeof(int64_t);
	g = aligned_alloc(PCPU_LINE, (bytes + PCPU_LINE - 1) / PCPU_LINE * PCPU_LINE);
	if (!g)
		return -ENOMEM;
	memset(g, 0, bytes);
	g->live = n;
	g->n = n;
	g->stride = stride;
	rows = (int64_t *)(g + 1);
	for (int i = 0; i < n; i++) {
		fbc[i].counters = rows + i;
		fbc[i].group_head = i == 0;
		fbc[i].group_n = n;
		fbc[i].nr = nr;
		rows[(size_t)nr * stride + i] = (int64_t)(intptr_t)g; /* back row */
		rows[i] = amount; /* the initial value lives in CPU 0's slot */
	}

	pcpu_lock();
	for (int i = 0; i < n; i++)
		list_add(&fbc[i].list, &percpu_counters);
	__atomic_store_n(&percpu_counters_nr, percpu_counters_nr + n, __ATOMIC_RELAXED);
	spin_unlock(&percpu_counters_lock);
	return 0;
}

int percpu_counter_init(struct percpu_counter *fbc, int64_t amount)
{
	return percpu_counter_init_many(fbc, amount, 1);
}

void percpu_counter_destroy_many(struct percpu_counter *fbc, int n)
{
	struct pcpu_group *to_free[16]; /* freed after the unlock */
	int nfree = 0;

	if (!fbc || n <= 0)
		return;
	pcpu_lock();
	for (int i = 0; i < n; i++) {
		struct pcpu_group *g;

		if (!fbc[i].counters)
			continue; /* never initialised or already destroyed */
		g = pcpu_group_of(&fbc[i]);
		list_del_init(&fbc[i].list);
		__atomic_store_n(&percpu_counters_nr, percpu_counters_nr - 1, __ATOMIC_RELAXED);
		if (--g->live == 0) {
			if (nfree < (int)ARRAY_SIZE(to_free))
				to_free[nfree++] = g;
			else
				free(g); /* many groups at once: rare */
		}
		fbc[i].counters = NULL;
	}
	spin_unlock(&percpu_counters_lock);
	for (int i = 0; i < nfree; i++)
		free(to_free[i]);
}

void percpu_counter_destroy(struct percpu_counter *fbc)
{
	percpu_counter_destroy_many(fbc, 1);
}

void percpu_counter_add(struct percpu_counter *fbc, int64_t amount)
{
	int cpu = rv_this_cpu();
	int64_t *slot;

	if (unlikely(cpu >= fbc->nr)) /* the possible CPUs grew after the init */
		cpu %= fbc->nr;
	slot = &fbc->counters[(size_t)cpu * pcpu_stride(fbc->group_n)];
	RV_SPOINT(RV_XP_ATOMIC, slot); /* the simulator charges the slot's line */
	__atomic_fetch_add(slot, amount, __ATOMIC_RELAXED);
}

int64_t percpu_counter_sum(struct percpu_counter *fbc)
{
	int nr = fbc->nr, stride = pcpu_stride(fbc->group_n);
	int64_t sum = 0;

	for (int cpu = 0; cpu < nr; cpu++) {
		RV_SPOINT(RV_XP_LOAD, &fbc->counters[(size_t)cpu * stride]);
		sum += __atomic_load_n(&fbc->counters[(size_t)cpu * stride], __ATOMIC_RELAXED);
	}
	return sum;
}

long percpu_counter_registered(void)
{
	return __atomic_load_n(&percpu_counters_nr, __ATOMIC_RELAXED);
}
