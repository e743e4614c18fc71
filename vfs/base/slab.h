/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/slab.h - kmem_cache: SLUB's per-CPU slab (slab=slub) or sheaves
 * (slab=sheaves), kfree_rcu batching, SLAB_TYPESAFE_BY_RCU.
 *
 * Locking: a thread's per-CPU slots are written only by that thread; a
 * cache's partial list is under its list_lock and its barn under barn_lock
 * (spinlocks); a slab's freelist changes by cmpxchg; the cache list is under
 * slab_mutex (slab.c, a pthread mutex), never taken on a fast path.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_SLAB_H
#define RCUVFS_VFS_BASE_SLAB_H

#include "vfs/base/compiler.h"

/*
 * Object caches with a per-thread "CPU" level on the fast path (flushed when
 * the thread exits): SLUB's frozen per-CPU slab taken with a cmpxchg of
 * freelist+tid (slab=slub, and caches without SLAB_SHEAVES), or a main and a
 * spare sheaf of objects over a per-cache barn of full and empty sheaves
 * (slab=sheaves, caches created with SLAB_SHEAVES: the kernel's
 * sheaf_capacity).  The choice is fixed when the cache is created, from
 * rv_sw.slab.  slab.c's top comment has the design and the kernel functions.
 *
 * SLAB_TYPESAFE_BY_RCU: a freed object may be handed out again at once, but
 * its memory remains an object of this cache (the constructor ran once, when
 * the memory first became an object) until a grace period after
 * kmem_cache_destroy.  RCU readers may therefore touch a freed object's
 * fields (refcount, lock) safely and must re-validate identity.
 *
 * Ordinary caches poison free objects with ASan's manual interface in the
 * sanitizer build, so any use after free is reported.
 *
 * Counters per cache: active objects (allocated, not freed) and total
 * objects (memory held).  kmem_cache_destroy reports (returns -EBUSY and
 * prints) objects still active: the leak check of teardown.
 */
#define SLAB_TYPESAFE_BY_RCU 0x1u
#define SLAB_HWCACHE_ALIGN   0x2u
#define SLAB_NO_MAGAZINE     0x4u /* no per-CPU level: every alloc/free at the slabs */
#define SLAB_SHEAVES	     0x8u /* sheaves when slab=sheaves (kernel: sheaf_capacity) */

struct kmem_cache;
struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
				     unsigned int flags, void (*ctor)(void *));
/* Returns 0, or -EBUSY if objects were still active (they are reported). */
int kmem_cache_destroy(struct kmem_cache *c);
void *kmem_cache_alloc(struct kmem_cache *c);
void *kmem_cache_zalloc(struct kmem_cache *c); /* typesafe caches: only without a ctor */
void kmem_cache_free(struct kmem_cache *c, void *obj);
/*
 * kfree_rcu for an object of `c`: freed after a grace period, batched (a
 * per-thread rcu_free sheaf, one call_rcu per SHEAF_CAPACITY objects).  The
 * kernel's kfree_rcu(ptr, field) finds the cache from the page; here the
 * caller names it, and the object needs no rcu_head.
 */
void kmem_cache_free_rcu(struct kmem_cache *c, void *obj);
/* Whether the cache uses sheaves (SLAB_SHEAVES under slab=sheaves). */
bool kmem_cache_has_sheaves(const struct kmem_cache *c);
long kmem_cache_active(struct kmem_cache *c);
long kmem_cache_total(struct kmem_cache *c);
const char *kmem_cache_name(const struct kmem_cache *c);
size_t kmem_cache_size(const struct kmem_cache *c);
/* Flush the calling thread's per-CPU level to the slabs and barns (also at
 * thread exit); its pending kfree_rcu batches go to call_rcu. */
void kmem_cache_flush_thread(void);
/* /proc/slabinfo-like text, one line per cache; returns bytes written. */
size_t kmem_cache_format_slabinfo(char *buf, size_t len);
/* Sum of active objects over every live cache (leak checks). */
long kmem_cache_total_active(void);
/*
 * Give the cache's empty slabs back to malloc (those whose objects are all
 * in the depot); bytes returned.  A SLAB_TYPESAFE_BY_RCU cache's slabs are
 * freed after a grace period (call_rcu).  Takes c->lock; sorts the depot
 * under it, so it is for rare calls.  kmem_cache_shrink_all queues, after
 * a grace period, a shrink of every cache and then malloc_trim(0), so that
 * what was freed through call_rcu before is included and the freed heap
 * pages leave the process (the model's drop_slab); callable anywhere.
 */
long kmem_cache_shrink(struct kmem_cache *c);
void kmem_cache_shrink_all(void);

#endif /* RCUVFS_VFS_BASE_SLAB_H */
