/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/stats.h - the stats registry (RV_STAT_DEFINE / rv_stat_inc).
 *
 * Locking: each counter is per thread, written only by its thread with
 * relaxed stores; readers sum over the registry's thread list under its
 * mutex (stats.c).  Increments take no lock.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_STATS_H
#define RCUVFS_VFS_BASE_STATS_H

#include "vfs/base/list.h"

/*
 * One registry of counters: lower_snake_case names that say unit and
 * subject (fget_retries, bkl_handoffs).  Each counter is per-thread and
 * summed on read; increments are plain single-writer stores.  Define a
 * counter once, in the .c file that owns it:
 *     RV_STAT_DEFINE(fget_retries, "fget slot reloads that found another file");
 * and bump it with rv_stat_inc(fget_retries).  Other files declare it with
 * RV_STAT_DECLARE(name).  Counters reset at instance creation.
 */
#define RV_STAT_MAX 256
struct rv_stat {
	const char *name;
	const char *help;
	int idx;
};
struct rv_stat_tls {
	uint64_t v[RV_STAT_MAX];
	struct list_head list; /* on the registry's thread list */
};
extern __thread __tls_hot struct rv_stat_tls rv_stat_tls;
/* On its own, not in the block: the test is one compare with the thread
 * pointer's offset, not an address computation shared with v[]. */
extern __thread __tls_hot int rv_stat_registered;
void rv_stat_register(struct rv_stat *s);
void rv_stat_tls_register(void);
#define RV_STAT_DEFINE(nm, helptext)                                                               \
	struct rv_stat rv_stat_##nm = {#nm, helptext, -1};                                         \
	__attribute__((constructor)) static void rv_stat_ctor_##nm(void)                           \
	{                                                                                          \
		rv_stat_register(&rv_stat_##nm);                                                   \
	}
#define RV_STAT_DECLARE(nm) extern struct rv_stat rv_stat_##nm
static __always_inline void rv_stat_add_idx(int idx, uint64_t n)
{
	if (unlikely(!rv_stat_registered))
		rv_stat_tls_register();
#if defined(__x86_64__)
	/* this_cpu_add's shape (arch/x86/include/asm/percpu.h): one add to
	 * the thread's own slot, so a reader on another thread sees the old
	 * or the new value, never a torn one, and the add costs one
	 * instruction instead of an address computation, a load and a store. */
	__asm__ volatile("addq %1, %0" : "+m"(rv_stat_tls.v[idx]) : "er"((uint64_t)n));
#else
	__atomic_store_n(&rv_stat_tls.v[idx], rv_stat_tls.v[idx] + n, __ATOMIC_RELAXED);
#endif
}
#define rv_stat_add(nm, n) rv_stat_add_idx(rv_stat_##nm.idx, (n))
#define rv_stat_inc(nm)	   rv_stat_add_idx(rv_stat_##nm.idx, 1)
/* Read one counter by name (sum over threads); -ENOENT if unknown. */
int rv_stat_read(const char *name, uint64_t *out);
#define rv_stat_get(nm) rv_stat_sum_idx(rv_stat_##nm.idx)
uint64_t rv_stat_sum_idx(int idx);
/* Registered gauges: values computed at read time (slab objects, RCU). */
void rv_stat_register_gauge(const char *name, const char *help, uint64_t (*fn)(void));
/* Whether `name` is a gauge (a level computed at read time, not a count). */
bool rv_stat_is_gauge(const char *name);
/* Iterate every counter and gauge in registry order (counters first). */
void rv_stat_foreach(void (*fn)(const char *name, uint64_t value, const char *help, void *arg),
		     void *arg);
/* "name value\n" per counter; returns bytes needed (like snprintf). */
size_t rv_stats_format_text(char *buf, size_t len);
/* {"name": value, ...}; returns bytes needed (like snprintf). */
size_t rv_stats_format_json(char *buf, size_t len);
void rv_stats_reset(void);
/*
 * Every registered counter and gauge, sorted by name, with its help text:
 * "name kind help" per line (RV_DOC_TEXT) or a Markdown table (RV_DOC_MD);
 * -EINVAL (after naming each on stderr) if one has no help text.
 */
int rv_stats_doc(FILE *out, int fmt);

#endif /* RCUVFS_VFS_BASE_STATS_H */
