/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/slab.h - kmem_cache, object caches with per-thread magazines.
 *
 * Locking: a thread's magazines are written only by that thread; each
 * cache's depot is under its spinlock; the cache list is under slab_mutex
 * (slab.c, a pthread mutex), never taken on the allocation fast path.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_SLAB_H
#define RCUVFS_VFS_BASE_SLAB_H

#include "vfs/base/compiler.h"

/*
 * Object caches with per-thread magazines on the fast path (flushed to the
 * cache's depot when the thread exits) and a depot under a spinlock.
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
 *
 * Room left for sheaves / kfree_rcu batching (SLUB, 6.18): the magazine
 * is the per-cpu sheaf, the depot is the barn.
 */
#define SLAB_TYPESAFE_BY_RCU 0x1u
#define SLAB_HWCACHE_ALIGN   0x2u
#define SLAB_NO_MAGAZINE     0x4u /* every alloc/free through the depot */

struct kmem_cache;
struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
				     unsigned int flags, void (*ctor)(void *));
/* Returns 0, or -EBUSY if objects were still active (they are reported). */
int kmem_cache_destroy(struct kmem_cache *c);
void *kmem_cache_alloc(struct kmem_cache *c);
void *kmem_cache_zalloc(struct kmem_cache *c); /* typesafe caches: only without a ctor */
void kmem_cache_free(struct kmem_cache *c, void *obj);
long kmem_cache_active(struct kmem_cache *c);
long kmem_cache_total(struct kmem_cache *c);
const char *kmem_cache_name(const struct kmem_cache *c);
size_t kmem_cache_size(const struct kmem_cache *c);
/* Flush the calling thread's magazines to the depots (also at thread exit). */
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
