/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/failslab.h - fault injection for the model's allocations, after
 * the kernel's failslab (mm/failslab.c with lib/fault-inject.c).
 *
 * Locking: none.  The policy is the live instance's fail_alloc switch
 * (rv_sw, fixed while it lives); the counters are atomics, so a multi-
 * threaded workload fails allocations at points that depend on the
 * interleaving, a single-threaded one at the same points every run.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_FAILSLAB_H
#define RCUVFS_VFS_BASE_FAILSLAB_H

#include "vfs/base/compiler.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The fail_alloc switch (-o fail_alloc=SPEC):
 *   none          no injection (the default)
 *   every:N       every N-th allocation fails (failslab's interval=N)
 *   nth:K         only the K-th allocation fails (the sweep's one fault)
 *   p:PCT         each allocation fails with probability PCT percent
 *                 (0..100, decimals allowed; failslab's probability)
 * each optionally followed by :SITE, a substring of the site names that
 * take part (failslab's cache_filter; a kmem_cache's site is its name,
 * the model's other allocations name theirs: "xa_node", "fdtable", ...).
 * Allocations count from the end of instance creation (setup allocates
 * its caches and root), so `nth:K` numbers the allocations of the workload.
 */
enum rv_fail_mode { RV_FAIL_NONE = 0, RV_FAIL_EVERY, RV_FAIL_NTH, RV_FAIL_PROB };
struct rv_fail_spec {
	int mode;      /* enum rv_fail_mode */
	uint64_t n;    /* every:N, nth:K, or p: in parts per million */
	char site[32]; /* "" = every site */
};
int rv_fail_spec_parse(struct rv_fail_spec *spec, const char *text);
int rv_fail_spec_format(const struct rv_fail_spec *spec, char *buf, size_t len);

/* Whether this allocation at `site` is to fail (counts it if it takes part). */
bool rv_should_fail_alloc(const char *site);
/* Instance lifecycle (instance.c): start counting / stop injecting. */
void rv_fail_alloc_arm(void);
void rv_fail_alloc_disarm(void);
/* Allocations that took part and that failed, since the instance was created. */
uint64_t rv_fail_alloc_calls(void);
uint64_t rv_fail_alloc_injected(void);

/* malloc/calloc/strdup of the model's own objects, under the policy. */
static inline void *rv_malloc(const char *site, size_t n)
{
	return rv_should_fail_alloc(site) ? NULL : malloc(n);
}
static inline void *rv_calloc(const char *site, size_t nmemb, size_t n)
{
	return rv_should_fail_alloc(site) ? NULL : calloc(nmemb, n);
}
static inline char *rv_strdup(const char *site, const char *s)
{
	return rv_should_fail_alloc(site) ? NULL : strdup(s);
}

#endif /* RCUVFS_VFS_BASE_FAILSLAB_H */
