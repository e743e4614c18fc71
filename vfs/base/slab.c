// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/slab.c - kmem_cache: object caches with per-thread magazines.
 *
 * Layout, from hot to cold:
 *
 *   magazine  per thread and per cache: an array of up to SLAB_MAG_SIZE free
 *             objects plus the thread's alloc/free counts for that cache.
 *             Only the owning thread writes it (no atomics on the fast path
 *             beyond relaxed single-writer stores of the counts, which other
 *             threads sum).  A thread's magazines are one malloc'd
 *             struct slab_tls, indexed by the cache's small id (c->id).
 *   depot     per cache: an array of free objects under c->lock (spinlock_t).
 *             Magazines refill from it and spill to it SLAB_MAG_BATCH
 *             objects at a time.  (The magazine is SLUB's per-cpu sheaf and
 *             the depot its barn, docs/history.md.)
 *   slabs     chunks of objects from malloc, on c->slabs; a slab whose
 *             objects are all in the depot goes back to malloc in
 *             kmem_cache_shrink (the kernel's __kmem_cache_shrink discards
 *             empty slabs the same way; objects in other threads'
 *             magazines keep theirs, as another CPU's slab would), and all
 *             of them in kmem_cache_destroy.
 *
 * Locking:
 *   slab_mutex  (pthread mutex) protects the cache list, the id table
 *               slab_ids[], the list of thread states slab_threads, and the
 *               validity of a magazine's binding to a cache while a thread
 *               other than the owner looks at it (summing counts, flushing
 *               at thread exit, destroy).  Never taken on the fast path.
 *   c->lock     (spinlock_t) protects the depot (c->free, c->nr_free,
 *               c->free_cap) and the slab list and c->total.  Nested inside
 *               slab_mutex when both are held.
 *
 * A magazine is bound to a cache by the cache's generation (c->gen, unique
 * for the life of the process), not its address or id: when a cache is
 * destroyed its id is reused, and a thread that still holds a magazine for
 * the old generation simply drops those (dead) pointers when it next uses
 * the slot.  Nothing is ever written to another thread's magazine.
 *
 * Counts: active = c->active_base + sum over live threads of (allocs - frees)
 * for magazines bound to c's generation.  A thread's counts are folded into
 * c->active_base when the thread exits; depot-only caches (SLAB_NO_MAGAZINE,
 * or more than SLAB_MAX_CACHES live caches) count in c->active_base directly.
 * The sum is exact whenever no alloc/free runs concurrently.
 *
 * SLAB_TYPESAFE_BY_RCU: the free list lives outside the objects (the depot
 * and magazine arrays), so a free object's fields keep their values and the
 * constructor runs exactly once per object, when its slab is created.
 * kmem_cache_destroy waits for queued callbacks (rcu_barrier) and then a
 * grace period (synchronize_rcu) before the memory goes back to malloc.
 *
 * ASan (sanitizer build): objects of ordinary caches are poisoned while free
 * (the whole stride, so an overrun past `size` is caught too) and unpoisoned
 * on allocation; freeing an already poisoned object is reported as a double
 * free.  TYPESAFE_BY_RCU caches are never poisoned: RCU readers may
 * legitimately read a free object.
 */
#include "vfs/base/base.h"

#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__) || defined(RCUVFS_SANITIZE)
#include <sanitizer/asan_interface.h>
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SLAB_POISON 1
#else
#define SLAB_POISON 0
#endif
#ifndef ASAN_POISON_MEMORY_REGION
#define ASAN_POISON_MEMORY_REGION(a, s)	  ((void)(a), (void)(s))
#define ASAN_UNPOISON_MEMORY_REGION(a, s) ((void)(a), (void)(s))
#endif

#define SLAB_MAX_CACHES	 64    /* caches with magazines; others use the depot */
#define SLAB_MAG_SIZE	 32    /* objects per magazine */
#define SLAB_MAG_BATCH	 16    /* objects moved per refill / spill */
#define SLAB_CHUNK_BYTES 16384 /* target size of one slab */
#define SLAB_MIN_OBJS	 4
#define SLAB_NAME_MAX	 48

struct slab_chunk {
	struct slab_chunk *next; /* on c->slabs, under c->lock */
	size_t bytes;
	unsigned int nr_objs;
	struct rcu_head rcu; /* kmem_cache_shrink of a typesafe cache */
};

struct kmem_cache {
	/* read-only after creation */
	char name[SLAB_NAME_MAX];
	size_t size;   /* object size the user asked for */
	size_t stride; /* distance between objects (size rounded up to align) */
	size_t align;
	size_t offset; /* first object's offset in a chunk */
	unsigned int objs_per_slab;
	unsigned int flags;
	void (*ctor)(void *);
	int id;	      /* magazine index, or -1: depot only */
	uint64_t gen; /* unique per cache for the life of the process */

	spinlock_t lock;	  /* the depot */
	void **free;		  /* free objects, under lock */
	long nr_free;		  /* under lock */
	long free_cap;		  /* under lock */
	struct slab_chunk *slabs; /* under lock */
	long nr_slabs;		  /* under lock */
	long total;		  /* objects held; written under lock, read relaxed */

	long active_base;      /* atomic: exited threads' and depot-only counts */
	struct list_head list; /* on slab_caches, under slab_mutex */
};

struct slab_mag {
	uint64_t gen; /* cache generation this magazine belongs to; owner writes */
	long allocs;  /* owner writes (relaxed), others read */
	long frees;
	int nr; /* objects in objs[]; owner only (or slab_mutex at exit) */
	void *objs[SLAB_MAG_SIZE];
};

struct slab_tls {
	struct list_head list; /* on slab_threads, under slab_mutex */
	struct slab_mag mags[SLAB_MAX_CACHES];
};

static pthread_mutex_t slab_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct list_head slab_caches = LIST_HEAD_INIT(slab_caches);   /* under slab_mutex */
static struct list_head slab_threads = LIST_HEAD_INIT(slab_threads); /* under slab_mutex */
static struct kmem_cache *slab_ids[SLAB_MAX_CACHES];		     /* under slab_mutex */
static uint64_t slab_next_gen = 1;				     /* under slab_mutex */

static __thread struct slab_tls *slab_tls;
static pthread_key_t slab_tls_key;
static pthread_once_t slab_once = PTHREAD_ONCE_INIT;

static void slab_thread_exit(void *arg);

static uint64_t slab_gauge_active(void)
{
	long n = kmem_cache_total_active();

	return n > 0 ? (uint64_t)n : 0;
}

static uint64_t slab_gauge_total(void)
{
	struct kmem_cache *c;
	long n = 0;

	pthread_mutex_lock(&slab_mutex);
	list_for_each_entry(c, &slab_caches, list) n +=
	    __atomic_load_n(&c->total, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&slab_mutex);
	return (uint64_t)n;
}

static void slab_init_once(void)
{
	if (pthread_key_create(&slab_tls_key, slab_thread_exit)) {
		perror("kmem_cache: pthread_key_create");
		abort();
	}
	rv_stat_register_gauge("slab_objects_active", "objects allocated and not freed, all caches",
			       slab_gauge_active);
	rv_stat_register_gauge("slab_objects_total", "objects held in slabs, all caches",
			       slab_gauge_total);
}

/* The gauges exist from start-up, before the first cache is created. */
__attribute__((constructor)) static void slab_ctor(void)
{
	pthread_once(&slab_once, slab_init_once);
}

/* ------------------------------------------------------------------ */
/* poisoning                                                           */
/* ------------------------------------------------------------------ */

static inline bool slab_poisons(const struct kmem_cache *c)
{
	return SLAB_POISON && !(c->flags & SLAB_TYPESAFE_BY_RCU);
}

static inline void slab_poison(const struct kmem_cache *c, void *obj)
{
	if (slab_poisons(c))
		ASAN_POISON_MEMORY_REGION(obj, c->stride);
}

static inline void slab_unpoison(const struct kmem_cache *c, void *obj)
{
	if (slab_poisons(c))
		ASAN_UNPOISON_MEMORY_REGION(obj, c->size);
}

static inline void slab_check_double_free(const struct kmem_cache *c, void *obj)
{
#if SLAB_POISON
	if (slab_poisons(c) && __asan_address_is_poisoned(obj)) {
		fprintf(stderr, "kmem_cache_free(%s): double free of %p\n", c->name, obj);
		__asan_report_error(__builtin_frame_address(0), __builtin_frame_address(0),
				    __builtin_frame_address(0), obj, 1, 0);
		abort();
	}
#else
	(void)c;
	(void)obj;
#endif
}

/* ------------------------------------------------------------------ */
/* depot and slabs                                                     */
/* ------------------------------------------------------------------ */

/* Make room for `need` free pointers.  Called with c->lock held. */
static bool depot_reserve(struct kmem_cache *c, long need)
{
	void **n;
	long cap;

	if (need <= c->free_cap)
		return true;
	cap = c->free_cap ? c->free_cap : 64;
	while (cap < need)
		cap *= 2;
	/* malloc under a spinlock: rare (geometric growth) and never re-enters */
	n = realloc(c->free, (size_t)cap * sizeof(*n));
	if (!n)
		return false;
	c->free = n;
	c->free_cap = cap;
	return true;
}

/*
 * Allocate one slab, construct its objects (the only time the constructor
 * runs on that memory) and put them in the depot.  Called without c->lock.
 */
static int slab_grow(struct kmem_cache *c)
{
	struct slab_chunk *s;
	size_t bytes = c->offset + (size_t)c->objs_per_slab * c->stride;
	void *mem;

	if (posix_memalign(&mem, c->align < sizeof(void *) ? sizeof(void *) : c->align, bytes))
		return -ENOMEM;
	s = mem;
	s->bytes = bytes;
	s->nr_objs = c->objs_per_slab;
	for (unsigned int i = 0; i < c->objs_per_slab; i++) {
		char *obj = (char *)mem + c->offset + i * c->stride;

		if (c->ctor)
			c->ctor(obj);
		slab_poison(c, obj);
	}

	spin_lock(&c->lock);
	if (!depot_reserve(c, c->total + c->objs_per_slab)) {
		spin_unlock(&c->lock);
		ASAN_UNPOISON_MEMORY_REGION(mem, bytes);
		free(mem);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < c->objs_per_slab; i++)
		c->free[c->nr_free++] = (char *)mem + c->offset + i * c->stride;
	s->next = c->slabs;
	c->slabs = s;
	c->nr_slabs++;
	__atomic_store_n(&c->total, c->total + c->objs_per_slab, __ATOMIC_RELAXED);
	spin_unlock(&c->lock);
	return 0;
}

/* Take up to `max` objects from the depot into `out`, growing if empty. */
static int depot_get(struct kmem_cache *c, void **out, int max)
{
	int n;

	for (;;) {
		spin_lock(&c->lock);
		if (c->nr_free > 0)
			break;
		spin_unlock(&c->lock);
		if (slab_grow(c))
			return 0;
	}
	n = c->nr_free < max ? (int)c->nr_free : max;
	c->nr_free -= n;
	memcpy(out, &c->free[c->nr_free], (size_t)n * sizeof(*out));
	spin_unlock(&c->lock);
	return n;
}

/* Give `n` free objects back to the depot (room is reserved: cap >= total). */
static void depot_put(struct kmem_cache *c, void *const *objs, int n)
{
	if (n <= 0)
		return;
	spin_lock(&c->lock);
	if (unlikely(c->nr_free + n > c->free_cap)) {
		/* more frees than objects: a double free (caught earlier under ASan) */
		spin_unlock(&c->lock);
		fprintf(stderr, "kmem_cache_free(%s): more objects freed than allocated\n",
			c->name);
		abort();
	}
	memcpy(&c->free[c->nr_free], objs, (size_t)n * sizeof(*objs));
	c->nr_free += n;
	spin_unlock(&c->lock);
}

/* ------------------------------------------------------------------ */
/* per-thread magazines                                                */
/* ------------------------------------------------------------------ */

static struct slab_tls *slab_tls_get_slow(void)
{
	struct slab_tls *t;

	pthread_once(&slab_once, slab_init_once);
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	pthread_mutex_lock(&slab_mutex);
	list_add(&t->list, &slab_threads);
	pthread_mutex_unlock(&slab_mutex);
	slab_tls = t;
	/* the destructor flushes the magazines when the thread exits */
	pthread_setspecific(slab_tls_key, t);
	return t;
}

static inline struct slab_mag *slab_mag_get(struct kmem_cache *c)
{
	struct slab_tls *t = slab_tls;
	struct slab_mag *m;

	if (unlikely(c->id < 0))
		return NULL;
	if (unlikely(!t)) {
		t = slab_tls_get_slow();
		if (!t)
			return NULL;
	}
	m = &t->mags[c->id];
	if (unlikely(m->gen != c->gen)) {
		/*
		 * The slot last served a cache that has been destroyed (its
		 * memory is gone): forget its objects and counts.  Counts are
		 * reset before the generation is published, so a reader that
		 * sees the new generation sees fresh counts (acquire in
		 * slab_sum_active).
		 */
		m->nr = 0;
		__atomic_store_n(&m->allocs, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&m->frees, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&m->gen, c->gen, __ATOMIC_RELEASE);
	}
	return m;
}

/* Move the magazine's objects back to its cache's depot. */
static void slab_mag_drain(struct kmem_cache *c, struct slab_mag *m)
{
	depot_put(c, m->objs, m->nr);
	m->nr = 0;
}

/* The live cache `m` belongs to, or NULL.  Called under slab_mutex. */
static struct kmem_cache *slab_mag_cache(struct slab_mag *m, int id)
{
	struct kmem_cache *c = slab_ids[id];
	uint64_t gen = __atomic_load_n(&m->gen, __ATOMIC_ACQUIRE);

	return c && gen && c->gen == gen ? c : NULL;
}

static void slab_thread_exit(void *arg)
{
	struct slab_tls *t = arg;

	pthread_mutex_lock(&slab_mutex);
	for (int i = 0; i < SLAB_MAX_CACHES; i++) {
		struct slab_mag *m = &t->mags[i];
		struct kmem_cache *c = slab_mag_cache(m, i);

		if (!c)
			continue;
		slab_mag_drain(c, m);
		__atomic_fetch_add(&c->active_base, m->allocs - m->frees, __ATOMIC_RELAXED);
	}
	list_del_init(&t->list);
	pthread_mutex_unlock(&slab_mutex);
	/* a later destructor that allocates again gets a fresh state */
	slab_tls = NULL;
	free(t);
}

void kmem_cache_flush_thread(void)
{
	struct slab_tls *t = slab_tls;

	if (!t)
		return;
	pthread_mutex_lock(&slab_mutex);
	for (int i = 0; i < SLAB_MAX_CACHES; i++) {
		struct slab_mag *m = &t->mags[i];
		struct kmem_cache *c = slab_mag_cache(m, i);

		if (c)
			slab_mag_drain(c, m);
	}
	pthread_mutex_unlock(&slab_mutex);
}

/* ------------------------------------------------------------------ */
/* alloc / free                                                        */
/* ------------------------------------------------------------------ */

static __noinline void *slab_alloc_refill(struct kmem_cache *c, struct slab_mag *m)
{
	m->nr = depot_get(c, m->objs, SLAB_MAG_BATCH);
	if (m->nr == 0)
		return NULL;
	return m->objs[--m->nr];
}

static __noinline void slab_free_spill(struct kmem_cache *c, struct slab_mag *m)
{
	m->nr -= SLAB_MAG_BATCH;
	depot_put(c, &m->objs[m->nr], SLAB_MAG_BATCH);
}

void *kmem_cache_alloc(struct kmem_cache *c)
{
	struct slab_mag *m;
	void *obj;

	if (unlikely(rv_sw.fail_alloc.mode) && rv_should_fail_alloc(c->name))
		return NULL; /* should_failslab */
	m = slab_mag_get(c);

	if (likely(m)) {
		if (likely(m->nr > 0))
			obj = m->objs[--m->nr];
		else
			obj = slab_alloc_refill(c, m);
		if (unlikely(!obj))
			return NULL;
		__atomic_store_n(&m->allocs, m->allocs + 1, __ATOMIC_RELAXED);
	} else {
		if (!depot_get(c, &obj, 1))
			return NULL;
		__atomic_fetch_add(&c->active_base, 1, __ATOMIC_RELAXED);
	}
	slab_unpoison(c, obj);
	return obj;
}

void *kmem_cache_zalloc(struct kmem_cache *c)
{
	void *obj;

	if (unlikely(c->ctor)) {
		/* zeroing would undo the constructor (kernel: WARN_ON_ONCE) */
		static int warned;

		if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
			fprintf(stderr, "kmem_cache_zalloc(%s): cache has a constructor\n",
				c->name);
	}
	obj = kmem_cache_alloc(c);
	if (obj)
		memset(obj, 0, c->size);
	return obj;
}

void kmem_cache_free(struct kmem_cache *c, void *obj)
{
	struct slab_mag *m;

	if (unlikely(!obj))
		return;
	slab_check_double_free(c, obj);
	slab_poison(c, obj);
	m = slab_mag_get(c);
	if (likely(m)) {
		if (unlikely(m->nr == SLAB_MAG_SIZE))
			slab_free_spill(c, m);
		m->objs[m->nr++] = obj;
		__atomic_store_n(&m->frees, m->frees + 1, __ATOMIC_RELAXED);
	} else {
		depot_put(c, &obj, 1);
		__atomic_fetch_sub(&c->active_base, 1, __ATOMIC_RELAXED);
	}
}

/* ------------------------------------------------------------------ */
/* create / destroy / introspection                                    */
/* ------------------------------------------------------------------ */

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
				     unsigned int flags, void (*ctor)(void *))
{
	struct kmem_cache *c;

	if (!name || size == 0 || size > (1ul << 30) || (align & (align - 1)))
		return NULL;
	pthread_once(&slab_once, slab_init_once);
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	snprintf(c->name, sizeof(c->name), "%s", name);
	/* 8-byte minimum: ASan's shadow granule and pointer alignment */
	if (align < 8)
		align = 8;
	if ((flags & SLAB_HWCACHE_ALIGN) && align < 64)
		align = 64;
	c->align = align;
	c->size = size;
	c->stride = (size + align - 1) & ~(align - 1);
	c->offset = (sizeof(struct slab_chunk) + align - 1) & ~(align - 1);
	c->objs_per_slab = (unsigned int)(SLAB_CHUNK_BYTES / c->stride);
	if (c->objs_per_slab < SLAB_MIN_OBJS)
		c->objs_per_slab = SLAB_MIN_OBJS;
	c->flags = flags;
	c->ctor = ctor;
	c->id = -1;
	spin_lock_init(&c->lock);

	pthread_mutex_lock(&slab_mutex);
	c->gen = slab_next_gen++;
	if (!(flags & SLAB_NO_MAGAZINE)) {
		for (int i = 0; i < SLAB_MAX_CACHES; i++) {
			if (!slab_ids[i]) {
				slab_ids[i] = c;
				c->id = i;
				break;
			}
		}
	}
	list_add_tail(&c->list, &slab_caches);
	pthread_mutex_unlock(&slab_mutex);
	return c;
}

/* Exact when no alloc/free runs concurrently.  Called under slab_mutex. */
static long slab_sum_active(struct kmem_cache *c)
{
	struct slab_tls *t;
	long n = __atomic_load_n(&c->active_base, __ATOMIC_RELAXED);

	if (c->id < 0)
		return n;
	list_for_each_entry(t, &slab_threads, list)
	{
		struct slab_mag *m = &t->mags[c->id];

		/* acquire pairs with the release in slab_mag_get */
		if (__atomic_load_n(&m->gen, __ATOMIC_ACQUIRE) != c->gen)
			continue;
		n += __atomic_load_n(&m->allocs, __ATOMIC_RELAXED) -
		     __atomic_load_n(&m->frees, __ATOMIC_RELAXED);
	}
	return n;
}

int kmem_cache_destroy(struct kmem_cache *c)
{
	struct slab_chunk *s, *next;
	long active;

	if (!c)
		return 0;
	if (c->flags & SLAB_TYPESAFE_BY_RCU) {
		/*
		 * Callbacks still queued may free objects of this cache: let them
		 * run first.  Destroy may come from a thread rcuvfs did not
		 * create, hence the lazy registration.
		 */
		rv_rcu_ensure();
		RV_INJECT("kmem_cache_destroy_rcu");
		rcu_barrier();
		/* a deferred shrink that ran in it may have queued slab frees */
		rcu_barrier();
	}

	pthread_mutex_lock(&slab_mutex);
	active = slab_sum_active(c);
	if (active != 0) {
		pthread_mutex_unlock(&slab_mutex);
		fprintf(stderr,
			"kmem_cache_destroy: cache %s has %ld active objects of %ld (leak); "
			"memory kept\n",
			c->name, active, __atomic_load_n(&c->total, __ATOMIC_RELAXED));
		return -EBUSY;
	}
	/*
	 * Other threads' magazines of this cache die with it: nothing is
	 * written to them; the generation check in slab_mag_get and
	 * slab_mag_cache drops their (free) objects.
	 */
	if (c->id >= 0)
		slab_ids[c->id] = NULL;
	list_del_init(&c->list);
	pthread_mutex_unlock(&slab_mutex);

	if (c->flags & SLAB_TYPESAFE_BY_RCU) {
		/* readers that found an object before destroy may still read it */
		synchronize_rcu();
	}
	for (s = c->slabs; s; s = next) {
		next = s->next;
		ASAN_UNPOISON_MEMORY_REGION(s, s->bytes);
		free(s);
	}
	free(c->free);
	free(c);
	return 0;
}

long kmem_cache_active(struct kmem_cache *c)
{
	long n;

	pthread_mutex_lock(&slab_mutex);
	n = slab_sum_active(c);
	pthread_mutex_unlock(&slab_mutex);
	return n;
}

long kmem_cache_total(struct kmem_cache *c)
{
	return __atomic_load_n(&c->total, __ATOMIC_RELAXED);
}

const char *kmem_cache_name(const struct kmem_cache *c)
{
	return c->name;
}

size_t kmem_cache_size(const struct kmem_cache *c)
{
	return c->size;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;

	return x < y ? -1 : x > y;
}

/* First index in the sorted free[0..n) whose object is >= p. */
static long free_lower_bound(void *const *free, long n, const void *p)
{
	long lo = 0, hi = n;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if ((uintptr_t)free[mid] < (uintptr_t)p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

RV_STAT_DEFINE(slab_shrunk_slabs, "empty slabs given back by kmem_cache_shrink");

static void slab_free_rcu(struct rcu_head *head)
{
	free(container_of(head, struct slab_chunk, rcu));
}

/* The calling thread is registered with liburcu (a call_rcu worker is,
 * without rcuvfs knowing it: it must not go through rv_call_rcu). */
static long __kmem_cache_shrink(struct kmem_cache *c)
{
	struct slab_chunk **pp, *s, *dead = NULL;
	long freed = 0, i, j;

	spin_lock(&c->lock);
	if (c->nr_free < c->objs_per_slab) {
		spin_unlock(&c->lock);
		return 0;
	}
	/* sorted, each slab's free objects are one run of the array */
	qsort(c->free, (size_t)c->nr_free, sizeof(*c->free), cmp_ptr);
	for (pp = &c->slabs; (s = *pp);) {
		char *lo = (char *)s + c->offset, *hi = lo + (size_t)s->nr_objs * c->stride;
		long a = free_lower_bound(c->free, c->nr_free, lo);
		long b = free_lower_bound(c->free, c->nr_free, hi);

		if (b - a != (long)s->nr_objs) {
			pp = &s->next;
			continue;
		}
		/* marked by their low bit (objects are at least pointer
		 * aligned), which keeps the array sorted for the next search */
		for (i = a; i < b; i++)
			c->free[i] = (void *)((uintptr_t)c->free[i] | 1);
		*pp = s->next;
		s->next = dead;
		dead = s;
		c->nr_slabs--;
		__atomic_store_n(&c->total, c->total - s->nr_objs, __ATOMIC_RELAXED);
		freed += (long)s->bytes;
		rv_stat_inc(slab_shrunk_slabs);
	}
	for (i = j = 0; i < c->nr_free; i++)
		if (!((uintptr_t)c->free[i] & 1))
			c->free[j++] = c->free[i];
	c->nr_free = j;
	spin_unlock(&c->lock);
	for (s = dead; s; s = dead) {
		dead = s->next;
		ASAN_UNPOISON_MEMORY_REGION(s, s->bytes);
		/* an RCU reader may still look at an object of a typesafe
		 * cache: its slab goes after a grace period (SLUB's
		 * rcu_free_slab) */
		if (c->flags & SLAB_TYPESAFE_BY_RCU)
			call_rcu(&s->rcu, slab_free_rcu);
		else
			free(s);
	}
	return freed;
}

long kmem_cache_shrink(struct kmem_cache *c)
{
	rv_rcu_ensure();
	return __kmem_cache_shrink(c);
}

static struct rcu_head slab_shrink_head, slab_trim_head;
static int slab_shrink_queued; /* atomic: a deferred shrink is on its way */

static void slab_trim_rcu(struct rcu_head *head)
{
	malloc_trim(0);
	__atomic_store_n(&slab_shrink_queued, 0, __ATOMIC_RELEASE);
}

static void slab_shrink_rcu(struct rcu_head *head)
{
	struct kmem_cache *c;

	pthread_mutex_lock(&slab_mutex);
	list_for_each_entry(c, &slab_caches, list) __kmem_cache_shrink(c);
	pthread_mutex_unlock(&slab_mutex);
	/* behind the typesafe slabs just queued; a call_rcu worker runs
	 * this, registered by liburcu itself: plain call_rcu */
	call_rcu(&slab_trim_head, slab_trim_rcu);
}

void kmem_cache_shrink_all(void)
{
	/*
	 * From RCU callbacks, so that what the caller freed through call_rcu
	 * before (inodes, dentries, xarray nodes) is free when the caches are
	 * shrunk; then the heap's free pages go back to the system (glibc
	 * keeps them): malloc_trim from a callback queued behind the
	 * typesafe slabs' deferred frees.
	 */
	rv_rcu_ensure();
	if (!__atomic_exchange_n(&slab_shrink_queued, 1, __ATOMIC_ACQ_REL))
		rv_call_rcu(&slab_shrink_head, slab_shrink_rcu);
}

long kmem_cache_total_active(void)
{
	struct kmem_cache *c;
	long n = 0;

	pthread_mutex_lock(&slab_mutex);
	list_for_each_entry(c, &slab_caches, list) n += slab_sum_active(c);
	pthread_mutex_unlock(&slab_mutex);
	return n;
}

static size_t slab_appendf(char *buf, size_t len, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t slab_appendf(char *buf, size_t len, size_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (off + 1 >= len)
		return off;
	va_start(ap, fmt);
	n = vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
	if (n < 0)
		return off;
	if ((size_t)n >= len - off)
		return len - 1; /* truncated: bytes written excludes the NUL */
	return off + (size_t)n;
}

/*
 * /proc/slabinfo's layout (mm/slab_common.c print_slabinfo_header and
 * cache_show, SLUB, 6.x): the "slabinfo - version: 2.1" line, the "# name"
 * header, then per cache name, active_objs, num_objs, objsize (the slot:
 * object, padding and alignment, as the kernel's s->size), objperslab,
 * pagesperslab, ": tunables 0 0 0" (SLUB has none), ": slabdata
 * active_slabs num_slabs 0".  The model's own columns come after, as
 * ": rcuvfs <object_size> <depot_free> <flags>" (depot_free excludes
 * objects in magazines), so tools that read the kernel's columns read these.
 */
size_t kmem_cache_format_slabinfo(char *buf, size_t len)
{
	struct kmem_cache *c;
	size_t off = 0;

	if (!buf || len == 0)
		return 0;
	buf[0] = 0;
	off = slab_appendf(buf, len, off,
			   "slabinfo - version: 2.1\n"
			   "# name            <active_objs> <num_objs> <objsize> <objperslab> "
			   "<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : "
			   "slabdata <active_slabs> <num_slabs> <sharedavail> : rcuvfs "
			   "<object_size> <depot_free> <flags>\n");
	pthread_mutex_lock(&slab_mutex);
	list_for_each_entry(c, &slab_caches, list)
	{
		long nr_slabs, nr_free;
		size_t slab_bytes = c->offset + (size_t)c->objs_per_slab * c->stride;
		unsigned int pages = (unsigned int)((slab_bytes + 4095) / 4096);

		spin_lock(&c->lock);
		nr_slabs = c->nr_slabs;
		nr_free = c->nr_free;
		spin_unlock(&c->lock);
		off = slab_appendf(buf, len, off,
				   "%-17s %6ld %6ld %6zu %4u %4u : tunables %4u %4u %4u : slabdata "
				   "%6ld %6ld %6u : rcuvfs %6zu %6ld %s%s%s\n",
				   c->name, slab_sum_active(c),
				   __atomic_load_n(&c->total, __ATOMIC_RELAXED), c->stride,
				   c->objs_per_slab, pages, 0u, 0u, 0u, nr_slabs, nr_slabs, 0u, c->size,
				   nr_free, c->flags & SLAB_TYPESAFE_BY_RCU ? "typesafe_by_rcu," : "",
				   c->id < 0 ? "depot_only," : "magazines,",
				   slab_poisons(c) ? "poisoned" : "unpoisoned");
	}
	pthread_mutex_unlock(&slab_mutex);
	return off;
}
