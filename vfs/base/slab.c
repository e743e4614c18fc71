// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/slab.c - kmem_cache: SLUB's two per-CPU designs, chosen by the
 * switch slab=slub|sheaves, over one slab layer.
 *
 * The slab layer (mm/slub.c's struct slab and kmem_cache_node):
 *   slab      a chunk of objects from malloc, aligned to its size so that an
 *             object's slab is its address masked (virt_to_slab).  Its free
 *             objects form a list threaded through an index array beside the
 *             objects (SLUB keeps the free pointer outside the object for
 *             caches with a constructor or SLAB_TYPESAFE_BY_RCU; here it
 *             always is, so a free object keeps every field).  The list head,
 *             the number of free objects and the `frozen` bit share one
 *             64-bit word, s->state, changed only with cmpxchg: the model of
 *             slab->freelist + slab->counters changed by cmpxchg_double.
 *   node      (one; the model has no NUMA) c->partial, the slabs that are
 *             neither full nor a CPU's, under c->list_lock (n->list_lock).
 *             Slabs whose objects are all free go back to malloc in
 *             kmem_cache_shrink (after a grace period for typesafe caches),
 *             all of them in kmem_cache_destroy.
 *
 * slab=slub (mm/slub.c before 6.18: slab_alloc_node, do_slab_free,
 * ___slab_alloc, __slab_free, get_partial_node):
 *   Every thread has a per-cache "CPU" slot holding a frozen slab and its
 *   private freelist; the freelist head and a transaction id share one word
 *   (cpu->freelist_tid), taken and returned with a cmpxchg, the kernel's
 *   this_cpu_try_cmpxchg128 of freelist+tid.  A free of an object of the
 *   slot's slab pushes onto that list; any other free (an object of another
 *   CPU's slab, or of a slab no CPU holds) is __slab_free: a cmpxchg loop
 *   pushing onto the slab's own list.  When it finds a full, unfrozen slab
 *   (no free object) it takes list_lock and puts the slab on the partial
 *   list.  When the CPU freelist is empty, ___slab_alloc takes the slab's
 *   own list (objects freed remotely), else unfreezes the now-full slab and
 *   takes one from the partial list under list_lock (freezing it), else
 *   makes a new slab.
 *
 * slab=sheaves (6.18, mm/slub.c alloc_from_pcs, free_to_pcs,
 * __pcs_replace_empty_main, __pcs_replace_full_main, barn_*):
 *   Caches created with SLAB_SHEAVES (the kernel's sheaf_capacity) get, per
 *   thread, a main and a spare sheaf: arrays of up to SHEAF_CAPACITY free
 *   objects.  alloc pops from main, free pushes to main: plain loads and
 *   stores, no atomic.  An empty main is swapped with a full spare, else
 *   exchanged for a full sheaf of the cache's barn (lists of full and empty
 *   sheaves under c->barn_lock), else refilled from slabs under list_lock.
 *   A full main goes to the spare, else to the barn for an empty one, else
 *   (barn at BARN_MAX_FULL) its objects go back to their slabs.  Caches
 *   without SLAB_SHEAVES, and every cache under slab=slub, use the slub path.
 *
 * kfree_rcu(c, obj, field): batched.  Each thread's per-cache rcu_free sheaf
 * collects pointers; a full one is submitted whole with one call_rcu.
 * After the grace period (rcu_free_sheaf_cb) a sheaves cache puts it in the
 * barn as a full sheaf, to be reused by allocations (6.18's rcu_free_sheaf);
 * a slub cache frees its objects to their slabs, as the kernel's batched
 * kvfree_rcu (mm/slab_common.c, kfree_rcu_cpu blocks of pointers) does.  The
 * kernel also drains a partial batch from a timer; the model drains one
 * when it fills, at kmem_cache_flush_thread, at thread exit and at destroy.
 * Objects are counted free when kfree_rcu is called (they are not active:
 * no one may take a new reference), and poisoned after the grace period.
 *
 * A "CPU" is a per-thread slot, not sched_getcpu(): the kernel's per-CPU
 * structures are used with preemption off (local_lock, this_cpu ops), so one
 * task at a time owns a CPU's slot.  A userspace thread can migrate between
 * sched_getcpu and the access, so two threads could share a slot, which
 * would need an atomic or a lock on every fast path: the very cost the
 * designs differ in.  A per-thread slot gives the same exclusivity.  With
 * more threads than CPUs there are more slots (and cached objects) than the
 * kernel would have.  Because nothing preempts a slot's owner, the slub
 * fast path's cmpxchg never fails here; it is kept for its cost.
 *
 * Locking:
 *   slab_mutex   (pthread mutex) the cache list, the id table slab_ids[],
 *                the thread states slab_threads, and the binding of a slot
 *                to a cache while a thread other than the owner looks at it
 *                (summing counts, thread exit, destroy).  Never on a fast path.
 *   c->list_lock (spinlock_t) the partial list, the slab list, c->total.
 *   c->barn_lock (spinlock_t) the barn's lists and every sheaf's `all` link.
 *   s->state     atomic (cmpxchg) slab freelist/count/frozen.
 *   slot         only its thread writes it (counts: relaxed stores that
 *                other threads sum); no lock.
 * Order: slab_mutex > list_lock; slab_mutex > barn_lock; list_lock and
 * barn_lock are never held together.
 *
 * A slot is bound to a cache by the cache's generation (c->gen, unique for
 * the life of the process).  When a cache is destroyed its id is reused, and
 * a thread still holding a slot of the old generation drops its (dead)
 * pointers when it next uses it; the sheaves themselves are on the cache's
 * c->all_sheaves and die with it.  Nothing is written to another thread's slot.
 *
 * Counts: active = c->active_base + sum over live threads of (allocs - frees)
 * of slots bound to c's generation; exact whenever no alloc/free runs.
 *
 * SLAB_TYPESAFE_BY_RCU: a free object keeps its fields; the constructor
 * runs once per object, when its slab is made.  kmem_cache_destroy waits for
 * callbacks (rcu_barrier, also for caches that used kfree_rcu) and a grace
 * period (synchronize_rcu) before the memory goes back to malloc.
 *
 * ASan (sanitizer build): objects of ordinary caches are poisoned while free
 * (the whole stride) and unpoisoned on allocation; freeing a poisoned object
 * is reported as a double free.  TYPESAFE_BY_RCU caches are never poisoned.
 */
#include "vfs/base/base.h"

#include <malloc.h>
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

#define SLAB_MAX_CACHES	 64    /* caches with per-CPU slots; others: slabs only */
#define SHEAF_CAPACITY	 32    /* objects per sheaf (and per kfree_rcu batch) */
#define BARN_MAX_FULL	 16    /* full sheaves a barn keeps */
#define SLAB_CHUNK_BYTES 16384 /* target size of one slab */
#define SLAB_MIN_OBJS	 4
#define SLAB_NAME_MAX	 48
#define FP_NIL		 0xffffffffu

/* s->state: freelist head (index) | free count << 32 | frozen << 63 */
#define ST_FROZEN (1ull << 63)
static inline uint32_t st_head(uint64_t s)
{
	return (uint32_t)s;
}
static inline uint32_t st_count(uint64_t s)
{
	return (uint32_t)(s >> 32) & 0x7fffffffu;
}
static inline uint64_t st_make(uint32_t head, uint32_t count, bool frozen)
{
	return (uint64_t)head | ((uint64_t)count << 32) | (frozen ? ST_FROZEN : 0);
}

RV_STAT_DEFINE(slab_alloc_fastpath, "kmem_cache_alloc served by the CPU slab or main sheaf");
RV_STAT_DEFINE(slab_alloc_slowpath, "kmem_cache_alloc that refilled (slab freelist, partial "
				    "list, new slab, spare, barn)");
RV_STAT_DEFINE(slab_free_fastpath, "kmem_cache_free to the CPU slab or main sheaf");
RV_STAT_DEFINE(slab_free_slowpath, "kmem_cache_free to a slab by cmpxchg (remote) or through "
				   "spare/barn/flush");
RV_STAT_DEFINE(slab_new_slabs, "slabs allocated");
RV_STAT_DEFINE(sheaf_barn_get, "full sheaves taken from a barn");
RV_STAT_DEFINE(sheaf_barn_put, "full sheaves given to a barn");
RV_STAT_DEFINE(sheaf_refill, "sheaves refilled from slabs");
RV_STAT_DEFINE(sheaf_flush, "sheaves whose objects went back to slabs");
RV_STAT_DEFINE(kfree_rcu_objects, "objects freed through kfree_rcu");
RV_STAT_DEFINE(kfree_rcu_batches, "kfree_rcu batches (rcu_free sheaves) submitted to call_rcu");

struct slab {
	struct kmem_cache *cache;
	struct slab *next;	  /* every slab of the cache, under list_lock */
	struct list_head partial; /* on c->partial, under list_lock */
	bool on_partial;	  /* under list_lock */
	unsigned int nr_objs;
	size_t bytes;
	uint64_t state;	     /* atomic: see st_make */
	struct rcu_head rcu; /* kmem_cache_shrink of a typesafe cache */
	uint32_t fp[];	     /* free pointers: next free index, FP_NIL ends */
};

struct slab_sheaf {
	struct rcu_head rcu; /* an rcu_free sheaf waiting for its grace period */
	struct kmem_cache *cache;
	struct list_head list; /* on barn_full / barn_empty, under barn_lock */
	struct list_head all;  /* on c->all_sheaves, under barn_lock */
	unsigned int size;
	void *objs[SHEAF_CAPACITY];
};

struct kmem_cache {
	/* read-only after creation */
	char name[SLAB_NAME_MAX];
	size_t size;   /* object size the user asked for */
	size_t stride; /* distance between objects (size rounded up to align) */
	size_t align;
	size_t offset;	   /* first object's offset in a slab */
	size_t slab_bytes; /* a power of two; slabs are aligned to it */
	unsigned int objs_per_slab;
	unsigned int flags;
	bool sheaves; /* per-CPU sheaves (else the per-CPU slab) */
	void (*ctor)(void *);
	int id;	      /* slot index, or -1: slabs only */
	uint64_t gen; /* unique per cache for the life of the process */

	spinlock_t list_lock;	  /* the node */
	struct list_head partial; /* under list_lock */
	long nr_partial;	  /* under list_lock */
	struct slab *slabs;	  /* under list_lock */
	long nr_slabs;		  /* under list_lock */
	long total;		  /* objects held; written under list_lock, read relaxed */

	spinlock_t barn_lock;	       /* the barn */
	struct list_head barn_full;    /* under barn_lock */
	struct list_head barn_empty;   /* under barn_lock */
	int nr_full, nr_empty;	       /* under barn_lock */
	struct list_head all_sheaves;  /* under barn_lock */
	struct slab_sheaf *shared_rcu; /* kfree_rcu batch of slot-less users, under barn_lock */

	int kfree_rcu_used;    /* atomic flag: destroy must rcu_barrier */
	long active_base;      /* atomic: exited threads' and slot-less counts */
	struct list_head list; /* on slab_caches, under slab_mutex */
};

/* One thread's "CPU" for one cache. */
struct slab_cpu {
	uint64_t gen; /* cache generation this slot belongs to; owner writes */
	long allocs;  /* owner writes (relaxed), others read */
	long frees;
	/* slab=slub */
	struct slab *slab;     /* the frozen CPU slab */
	uint64_t freelist_tid; /* head index | tid << 32, cmpxchg by the owner */
	/* slab=sheaves (main, spare) and kfree_rcu (rcu_free, both designs) */
	struct slab_sheaf *main, *spare, *rcu_free;
};

struct slab_tls {
	struct list_head list; /* on slab_threads, under slab_mutex */
	struct slab_cpu cpus[SLAB_MAX_CACHES];
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
	list_for_each_entry(c, &slab_caches, list)
		n += __atomic_load_n(&c->total, __ATOMIC_RELAXED);
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
/* the slab layer                                                      */
/* ------------------------------------------------------------------ */

static inline struct slab *virt_to_slab(const struct kmem_cache *c, const void *obj)
{
	return (struct slab *)((uintptr_t)obj & ~(uintptr_t)(c->slab_bytes - 1));
}

static inline void *slab_obj(const struct kmem_cache *c, struct slab *s, uint32_t idx)
{
	return (char *)s + c->offset + (size_t)idx * c->stride;
}

static inline uint32_t slab_idx(const struct kmem_cache *c, struct slab *s, const void *obj)
{
	return (uint32_t)(((const char *)obj - (const char *)s - c->offset) / c->stride);
}

static inline uint32_t fp_get(struct slab *s, uint32_t idx)
{
	return __atomic_load_n(&s->fp[idx], __ATOMIC_RELAXED);
}

static inline void fp_set(struct slab *s, uint32_t idx, uint32_t next)
{
	__atomic_store_n(&s->fp[idx], next, __ATOMIC_RELAXED);
}

/*
 * allocate_slab: one slab with every object free and constructed (the only
 * time the constructor runs on that memory), listed on c->slabs.  `frozen`:
 * for a CPU slot, which takes the whole list 0..n-1 as its private freelist
 * (the slab's own list is then empty); else every object is on the slab's
 * own list.  Called without locks.
 */
static struct slab *new_slab(struct kmem_cache *c, bool frozen)
{
	struct slab *s;
	void *mem;
	uint32_t n = c->objs_per_slab;

	if (posix_memalign(&mem, c->slab_bytes, c->slab_bytes))
		return NULL;
	s = mem;
	memset(s, 0, sizeof(*s));
	s->cache = c;
	s->nr_objs = n;
	s->bytes = c->slab_bytes;
	INIT_LIST_HEAD(&s->partial);
	for (uint32_t i = 0; i < n; i++) {
		void *obj = slab_obj(c, s, i);

		s->fp[i] = i + 1 < n ? i + 1 : FP_NIL;
		if (c->ctor)
			c->ctor(obj);
		slab_poison(c, obj);
	}
	__atomic_store_n(&s->state, frozen ? st_make(FP_NIL, 0, true) : st_make(0, n, false),
			 __ATOMIC_RELAXED);
	spin_lock(&c->list_lock);
	s->next = c->slabs;
	c->slabs = s;
	c->nr_slabs++;
	__atomic_store_n(&c->total, c->total + n, __ATOMIC_RELAXED);
	spin_unlock(&c->list_lock);
	rv_stat_inc(slab_new_slabs);
	return s;
}

static void add_partial_locked(struct kmem_cache *c, struct slab *s)
{
	if (!s->on_partial) {
		list_add_tail(&s->partial, &c->partial);
		s->on_partial = true;
		c->nr_partial++;
	}
}

static void remove_partial_locked(struct kmem_cache *c, struct slab *s)
{
	if (s->on_partial) {
		list_del_init(&s->partial);
		s->on_partial = false;
		c->nr_partial--;
	}
}

/*
 * __slab_free: push one object onto its slab's own freelist with a cmpxchg
 * loop.  A slab that no CPU holds (not frozen) and had no free object was
 * full and on no list: the free puts it on the partial list.
 */
static void slab_free_to_slab(struct kmem_cache *c, struct slab *s, uint32_t idx)
{
	uint64_t old = __atomic_load_n(&s->state, __ATOMIC_RELAXED), nw;

	do {
		if (unlikely(st_count(old) >= s->nr_objs)) {
			fprintf(stderr, "kmem_cache_free(%s): more objects freed than allocated\n",
				c->name);
			abort();
		}
		fp_set(s, idx, st_head(old));
		nw = st_make(idx, st_count(old) + 1, old & ST_FROZEN);
	} while (!__atomic_compare_exchange_n(&s->state, &old, nw, true, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	if (!(old & ST_FROZEN) && st_count(old) == 0) {
		spin_lock(&c->list_lock);
		add_partial_locked(c, s);
		spin_unlock(&c->list_lock);
	}
}

/* Free an object to its slab (no count, no poisoning: the caller's job). */
static inline void slab_free_obj(struct kmem_cache *c, void *obj)
{
	struct slab *s = virt_to_slab(c, obj);

	slab_free_to_slab(c, s, slab_idx(c, s, obj));
}

/*
 * Take up to `max` objects from partial slabs, then from new ones; the
 * slabs stay unfrozen (sheaf refill, slot-less caches).  Popping one object
 * is safe against concurrent pushes: only poppers remove, and they all hold
 * list_lock, so a head seen cannot be popped and pushed back meanwhile.
 */
static int slab_get_objects(struct kmem_cache *c, void **out, int max)
{
	int got = 0;

	while (got < max) {
		struct slab *s;

		spin_lock(&c->list_lock);
		while (got < max && !list_empty(&c->partial)) {
			uint64_t old, nw;

			s = list_first_entry(&c->partial, struct slab, partial);
			old = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
			do {
				if (st_count(old) == 0)
					break;
				nw = st_make(fp_get(s, st_head(old)), st_count(old) - 1, false);
			} while (!__atomic_compare_exchange_n(&s->state, &old, nw, true,
							      __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE));
			if (st_count(old) == 0) {
				remove_partial_locked(c, s);
				continue;
			}
			out[got++] = slab_obj(c, s, st_head(old));
			if (st_count(nw) == 0)
				remove_partial_locked(c, s);
		}
		spin_unlock(&c->list_lock);
		if (got == max)
			break;
		s = new_slab(c, false);
		if (!s)
			break;
		spin_lock(&c->list_lock);
		add_partial_locked(c, s);
		spin_unlock(&c->list_lock);
	}
	return got;
}

/* ------------------------------------------------------------------ */
/* per-thread slots                                                    */
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
	/* the destructor flushes the slots when the thread exits */
	pthread_setspecific(slab_tls_key, t);
	return t;
}

static inline struct slab_cpu *slab_cpu_get(struct kmem_cache *c)
{
	struct slab_tls *t = slab_tls;
	struct slab_cpu *m;

	if (unlikely(c->id < 0))
		return NULL;
	if (unlikely(!t)) {
		t = slab_tls_get_slow();
		if (!t)
			return NULL;
	}
	m = &t->cpus[c->id];
	if (unlikely(m->gen != c->gen)) {
		/*
		 * The slot last served a cache that has been destroyed (its
		 * memory is gone): forget its slab, sheaves and counts.  Counts
		 * are reset before the generation is published, so a reader
		 * that sees the new generation sees fresh counts (acquire in
		 * slab_sum_active).
		 */
		m->slab = NULL;
		m->freelist_tid = FP_NIL;
		m->main = m->spare = m->rcu_free = NULL;
		__atomic_store_n(&m->allocs, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&m->frees, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&m->gen, c->gen, __ATOMIC_RELEASE);
	}
	return m;
}

/* ------------------------------------------------------------------ */
/* slab=slub: the per-CPU slab                                          */
/* ------------------------------------------------------------------ */

static inline uint64_t ft_next(uint64_t ft, uint32_t head)
{
	return (uint64_t)head | (((ft >> 32) + 1) << 32);
}

/* The fast path of slab_alloc_node: pop the CPU freelist with one cmpxchg. */
static inline void *slub_alloc_fast(struct kmem_cache *c, struct slab_cpu *m)
{
	uint64_t ft = __atomic_load_n(&m->freelist_tid, __ATOMIC_RELAXED);

	for (;;) {
		struct slab *s = m->slab;
		uint32_t h = (uint32_t)ft;

		if (unlikely(!s || h == FP_NIL))
			return NULL;
		if (likely(__atomic_compare_exchange_n(&m->freelist_tid, &ft,
						       ft_next(ft, fp_get(s, h)), false,
						       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
			return slab_obj(c, s, h);
	}
}

/*
 * ___slab_alloc: the CPU freelist is empty.  Take the CPU slab's own list
 * (objects other CPUs freed), else unfreeze the full slab and take one from
 * the partial list (get_partial_node, under list_lock), else a new slab.
 */
static __noinline bool slub_refill(struct kmem_cache *c, struct slab_cpu *m)
{
	struct slab *s = m->slab;
	uint64_t old, nw;

	if (s) {
		old = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
		do {
			nw = st_count(old) ? st_make(FP_NIL, 0, true) : st_make(FP_NIL, 0, false);
		} while (!__atomic_compare_exchange_n(&s->state, &old, nw, true, __ATOMIC_ACQUIRE,
						      __ATOMIC_ACQUIRE));
		if (st_count(old)) {
			m->freelist_tid = ft_next(m->freelist_tid, st_head(old));
			return true;
		}
		m->slab = NULL; /* full, on no list: a remote free will list it */
	}
	s = NULL;
	spin_lock(&c->list_lock);
	if (!list_empty(&c->partial)) {
		s = list_first_entry(&c->partial, struct slab, partial);
		remove_partial_locked(c, s);
	}
	spin_unlock(&c->list_lock);
	if (s) {
		/* acquire_slab: take its whole freelist and freeze it */
		old = __atomic_exchange_n(&s->state, st_make(FP_NIL, 0, true), __ATOMIC_ACQUIRE);
		if (st_count(old) == 0) {
			/* cannot happen: only list_lock holders empty unfrozen slabs */
			__atomic_store_n(&s->state, st_make(FP_NIL, 0, false), __ATOMIC_RELAXED);
			s = NULL;
		}
	}
	if (!s) {
		s = new_slab(c, true);
		if (!s)
			return false;
		old = st_make(0, s->nr_objs, true); /* its private freelist: 0..n-1 */
	}
	m->slab = s;
	m->freelist_tid = ft_next(m->freelist_tid, st_head(old));
	return true;
}

/*
 * deactivate_slab: give the CPU slab's private freelist back to the slab and
 * unfreeze it; a slab with free objects goes on the partial list.
 */
static void slub_flush_cpu(struct kmem_cache *c, struct slab_cpu *m)
{
	struct slab *s = m->slab;
	uint32_t head = (uint32_t)m->freelist_tid, tail = FP_NIL, n = 0;
	uint64_t old, nw;

	if (!s)
		return;
	for (uint32_t i = head; i != FP_NIL; i = fp_get(s, i)) {
		tail = i;
		n++;
	}
	old = __atomic_load_n(&s->state, __ATOMIC_RELAXED);
	do {
		if (tail != FP_NIL)
			fp_set(s, tail, st_head(old));
		nw = st_make(n ? head : st_head(old), st_count(old) + n, false);
	} while (!__atomic_compare_exchange_n(&s->state, &old, nw, true, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	if (st_count(nw)) {
		spin_lock(&c->list_lock);
		add_partial_locked(c, s);
		spin_unlock(&c->list_lock);
	}
	m->slab = NULL;
	m->freelist_tid = ft_next(m->freelist_tid, FP_NIL);
}

/* do_slab_free: the CPU slab's objects go to its freelist with one cmpxchg. */
static inline void slub_free(struct kmem_cache *c, struct slab_cpu *m, void *obj)
{
	struct slab *s = virt_to_slab(c, obj);
	uint32_t idx = slab_idx(c, s, obj);

	if (likely(s == m->slab)) {
		uint64_t ft = __atomic_load_n(&m->freelist_tid, __ATOMIC_RELAXED);

		do {
			fp_set(s, idx, (uint32_t)ft);
		} while (!__atomic_compare_exchange_n(&m->freelist_tid, &ft, ft_next(ft, idx),
						      false, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
		rv_stat_inc(slab_free_fastpath);
		return;
	}
	slab_free_to_slab(c, s, idx);
	rv_stat_inc(slab_free_slowpath);
}

/* ------------------------------------------------------------------ */
/* slab=sheaves: per-CPU sheaves and the barn                           */
/* ------------------------------------------------------------------ */

/* An empty sheaf: from the barn, else a new one (listed on all_sheaves). */
static struct slab_sheaf *sheaf_get_empty(struct kmem_cache *c)
{
	struct slab_sheaf *sh = NULL;

	spin_lock(&c->barn_lock);
	if (c->nr_empty) {
		sh = list_first_entry(&c->barn_empty, struct slab_sheaf, list);
		list_del_init(&sh->list);
		c->nr_empty--;
	}
	spin_unlock(&c->barn_lock);
	if (sh)
		return sh;
	sh = malloc(sizeof(*sh));
	if (!sh)
		return NULL;
	sh->cache = c;
	sh->size = 0;
	INIT_LIST_HEAD(&sh->list);
	spin_lock(&c->barn_lock);
	list_add(&sh->all, &c->all_sheaves);
	spin_unlock(&c->barn_lock);
	return sh;
}

static void barn_put_empty(struct kmem_cache *c, struct slab_sheaf *sh)
{
	sh->size = 0;
	spin_lock(&c->barn_lock);
	list_add(&sh->list, &c->barn_empty);
	c->nr_empty++;
	spin_unlock(&c->barn_lock);
}

/* barn_put_full_sheaf; false when the barn holds BARN_MAX_FULL already. */
static bool barn_put_full(struct kmem_cache *c, struct slab_sheaf *sh)
{
	bool ok;

	spin_lock(&c->barn_lock);
	ok = c->nr_full < BARN_MAX_FULL;
	if (ok) {
		list_add(&sh->list, &c->barn_full);
		c->nr_full++;
	}
	spin_unlock(&c->barn_lock);
	if (ok)
		rv_stat_inc(sheaf_barn_put);
	return ok;
}

/* sheaf_flush_unused: every object back to its slab; the sheaf is empty. */
static void sheaf_flush(struct kmem_cache *c, struct slab_sheaf *sh)
{
	for (unsigned int i = 0; i < sh->size; i++)
		slab_free_obj(c, sh->objs[i]);
	sh->size = 0;
	rv_stat_inc(sheaf_flush);
}

/* __pcs_replace_empty_main: main is empty (or missing). */
static __noinline void *sheaves_alloc_slow(struct kmem_cache *c, struct slab_cpu *m)
{
	struct slab_sheaf *sh = NULL;
	void *obj;

	if (unlikely(!m->main)) {
		m->main = sheaf_get_empty(c);
		if (!m->main)
			return slab_get_objects(c, &obj, 1) ? obj : NULL;
	}
	if (m->spare && m->spare->size) {
		sh = m->spare;
		m->spare = m->main;
		m->main = sh;
	} else {
		/* barn_replace_empty_sheaf */
		spin_lock(&c->barn_lock);
		if (c->nr_full) {
			sh = list_first_entry(&c->barn_full, struct slab_sheaf, list);
			list_del_init(&sh->list);
			c->nr_full--;
			list_add(&m->main->list, &c->barn_empty);
			c->nr_empty++;
		}
		spin_unlock(&c->barn_lock);
		if (sh) {
			m->main = sh;
			rv_stat_inc(sheaf_barn_get);
		} else {
			m->main->size =
			    (unsigned int)slab_get_objects(c, m->main->objs, SHEAF_CAPACITY);
			rv_stat_inc(sheaf_refill);
			if (!m->main->size)
				return NULL;
		}
	}
	return m->main->objs[--m->main->size];
}

/* __pcs_replace_full_main: main is full (or missing); make room for one. */
static __noinline bool sheaves_free_slow(struct kmem_cache *c, struct slab_cpu *m)
{
	struct slab_sheaf *sh;

	if (unlikely(!m->main)) {
		m->main = sheaf_get_empty(c);
		return m->main != NULL;
	}
	if (!m->spare) {
		sh = sheaf_get_empty(c);
		if (sh) {
			m->spare = m->main;
			m->main = sh;
			return true;
		}
	} else if (m->spare->size == 0) {
		sh = m->spare;
		m->spare = m->main;
		m->main = sh;
		return true;
	} else if (barn_put_full(c, m->main)) {
		m->main = sheaf_get_empty(c);
		if (m->main)
			return true;
		return false; /* no memory for a sheaf: the caller frees to the slab */
	}
	sheaf_flush(c, m->main); /* barn full (or no sheaf): objects to slabs */
	return true;
}

static void sheaves_flush_cpu(struct kmem_cache *c, struct slab_cpu *m)
{
	struct slab_sheaf **shs[] = {&m->main, &m->spare};

	for (size_t i = 0; i < ARRAY_SIZE(shs); i++) {
		struct slab_sheaf *sh = *shs[i];

		if (!sh)
			continue;
		sheaf_flush(c, sh);
		barn_put_empty(c, sh);
		*shs[i] = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* kfree_rcu                                                           */
/* ------------------------------------------------------------------ */

/*
 * After the grace period: a sheaves cache reuses the sheaf as a full one
 * (rcu_free_sheaf, 6.18); a slub cache, or a full barn, frees the objects
 * to their slabs (kvfree_rcu_bulk).  The objects are poisoned only now:
 * readers could still read them until the grace period ended.
 */
static void rcu_free_sheaf_cb(struct rcu_head *head)
{
	struct slab_sheaf *sh = container_of(head, struct slab_sheaf, rcu);
	struct kmem_cache *c = sh->cache;

	for (unsigned int i = 0; i < sh->size; i++)
		slab_poison(c, sh->objs[i]);
	if (c->sheaves && sh->size == SHEAF_CAPACITY && barn_put_full(c, sh))
		return;
	sheaf_flush(c, sh);
	barn_put_empty(c, sh);
}

static void rcu_free_submit(struct kmem_cache *c, struct slab_sheaf *sh)
{
	if (!sh->size) {
		barn_put_empty(c, sh);
		return;
	}
	rv_stat_inc(kfree_rcu_batches);
	rv_rcu_ensure();
	rv_call_rcu(&sh->rcu, rcu_free_sheaf_cb);
}

void kmem_cache_free_rcu(struct kmem_cache *c, void *obj)
{
	struct slab_cpu *m;
	struct slab_sheaf *sh, **slot;

	if (unlikely(!obj))
		return;
	slab_check_double_free(c, obj);
	if (unlikely(!__atomic_load_n(&c->kfree_rcu_used, __ATOMIC_RELAXED)))
		__atomic_store_n(&c->kfree_rcu_used, 1, __ATOMIC_RELAXED);
	rv_stat_inc(kfree_rcu_objects);
	m = slab_cpu_get(c);
	if (likely(m)) {
		slot = &m->rcu_free;
		__atomic_store_n(&m->frees, m->frees + 1, __ATOMIC_RELAXED);
	} else {
		slot = NULL;
		__atomic_fetch_sub(&c->active_base, 1, __ATOMIC_RELAXED);
	}
	if (slot) {
		if (unlikely(!*slot)) {
			*slot = sheaf_get_empty(c);
			if (!*slot) {
				/* no memory for a batch: wait here instead */
				synchronize_rcu();
				slab_poison(c, obj);
				slab_free_obj(c, obj);
				return;
			}
		}
		sh = *slot;
		sh->objs[sh->size++] = obj;
		if (sh->size == SHEAF_CAPACITY) {
			*slot = NULL;
			rcu_free_submit(c, sh);
		}
		return;
	}
	/* a slot-less cache: one shared batch under barn_lock */
	for (;;) {
		struct slab_sheaf *full = NULL;

		spin_lock(&c->barn_lock);
		sh = c->shared_rcu;
		if (sh) {
			sh->objs[sh->size++] = obj;
			if (sh->size == SHEAF_CAPACITY) {
				full = sh;
				c->shared_rcu = NULL;
			}
		}
		spin_unlock(&c->barn_lock);
		if (sh) {
			if (full)
				rcu_free_submit(c, full);
			return;
		}
		sh = sheaf_get_empty(c);
		if (!sh) {
			synchronize_rcu();
			slab_poison(c, obj);
			slab_free_obj(c, obj);
			return;
		}
		spin_lock(&c->barn_lock);
		if (!c->shared_rcu) {
			c->shared_rcu = sh;
			sh = NULL;
		}
		spin_unlock(&c->barn_lock);
		if (sh)
			barn_put_empty(c, sh);
	}
}

/* ------------------------------------------------------------------ */
/* flush                                                               */
/* ------------------------------------------------------------------ */

static void slab_cpu_flush(struct kmem_cache *c, struct slab_cpu *m)
{
	if (m->rcu_free) {
		rcu_free_submit(c, m->rcu_free);
		m->rcu_free = NULL;
	}
	if (c->sheaves)
		sheaves_flush_cpu(c, m);
	else
		slub_flush_cpu(c, m);
}

/* The live cache `m` belongs to, or NULL.  Called under slab_mutex. */
static struct kmem_cache *slab_cpu_cache(struct slab_cpu *m, int id)
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
		struct slab_cpu *m = &t->cpus[i];
		struct kmem_cache *c = slab_cpu_cache(m, i);

		if (!c)
			continue;
		slab_cpu_flush(c, m);
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
		struct slab_cpu *m = &t->cpus[i];
		struct kmem_cache *c = slab_cpu_cache(m, i);

		if (c)
			slab_cpu_flush(c, m);
	}
	pthread_mutex_unlock(&slab_mutex);
}

/* ------------------------------------------------------------------ */
/* alloc / free                                                        */
/* ------------------------------------------------------------------ */

void *kmem_cache_alloc(struct kmem_cache *c)
{
	struct slab_cpu *m;
	void *obj;

	if (unlikely(rv_sw.fail_alloc.mode) && rv_should_fail_alloc(c->name))
		return NULL; /* should_failslab */
	m = slab_cpu_get(c);

	if (likely(m)) {
		if (c->sheaves) {
			struct slab_sheaf *sh = m->main;

			if (likely(sh && sh->size)) {
				obj = sh->objs[--sh->size];
				rv_stat_inc(slab_alloc_fastpath);
			} else {
				obj = sheaves_alloc_slow(c, m);
				rv_stat_inc(slab_alloc_slowpath);
			}
		} else {
			obj = slub_alloc_fast(c, m);
			if (likely(obj)) {
				rv_stat_inc(slab_alloc_fastpath);
			} else {
				obj = slub_refill(c, m) ? slub_alloc_fast(c, m) : NULL;
				rv_stat_inc(slab_alloc_slowpath);
			}
		}
		if (unlikely(!obj))
			return NULL;
		__atomic_store_n(&m->allocs, m->allocs + 1, __ATOMIC_RELAXED);
	} else {
		if (!slab_get_objects(c, &obj, 1))
			return NULL;
		rv_stat_inc(slab_alloc_slowpath);
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
	struct slab_cpu *m;

	if (unlikely(!obj))
		return;
	slab_check_double_free(c, obj);
	slab_poison(c, obj);
	m = slab_cpu_get(c);
	if (likely(m)) {
		if (c->sheaves) {
			struct slab_sheaf *sh = m->main;

			if (likely(sh && sh->size < SHEAF_CAPACITY)) {
				rv_stat_inc(slab_free_fastpath);
			} else if (sheaves_free_slow(c, m)) {
				rv_stat_inc(slab_free_slowpath);
				sh = m->main;
			} else {
				rv_stat_inc(slab_free_slowpath);
				slab_free_obj(c, obj);
				sh = NULL;
			}
			if (sh)
				sh->objs[sh->size++] = obj;
		} else {
			slub_free(c, m, obj);
		}
		__atomic_store_n(&m->frees, m->frees + 1, __ATOMIC_RELAXED);
	} else {
		slab_free_obj(c, obj);
		rv_stat_inc(slab_free_slowpath);
		__atomic_fetch_sub(&c->active_base, 1, __ATOMIC_RELAXED);
	}
}

/* ------------------------------------------------------------------ */
/* create / destroy / introspection                                    */
/* ------------------------------------------------------------------ */

static size_t pow2_at_least(size_t n)
{
	size_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
				     unsigned int flags, void (*ctor)(void *))
{
	struct kmem_cache *c;
	size_t hdr;
	unsigned int n;

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
	/* objects per slab: fill SLAB_CHUNK_BYTES with objects and their free pointers */
	n = (unsigned int)(SLAB_CHUNK_BYTES / (c->stride + sizeof(uint32_t)));
	if (n < SLAB_MIN_OBJS)
		n = SLAB_MIN_OBJS;
	for (;;) {
		hdr = (sizeof(struct slab) + n * sizeof(uint32_t) + align - 1) & ~(align - 1);
		if (n == SLAB_MIN_OBJS || hdr + n * c->stride <= SLAB_CHUNK_BYTES)
			break;
		n--;
	}
	c->objs_per_slab = n;
	c->offset = hdr;
	c->slab_bytes = pow2_at_least(hdr + n * c->stride);
	c->flags = flags;
	c->sheaves = (flags & SLAB_SHEAVES) && rv_sw.slab == SLAB_ALLOC_SHEAVES &&
		     !(flags & SLAB_NO_MAGAZINE);
	c->ctor = ctor;
	c->id = -1;
	spin_lock_init(&c->list_lock);
	INIT_LIST_HEAD(&c->partial);
	spin_lock_init(&c->barn_lock);
	INIT_LIST_HEAD(&c->barn_full);
	INIT_LIST_HEAD(&c->barn_empty);
	INIT_LIST_HEAD(&c->all_sheaves);

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
	if (c->id < 0)
		c->sheaves = false;
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
	list_for_each_entry(t, &slab_threads, list) {
		struct slab_cpu *m = &t->cpus[c->id];

		/* acquire pairs with the release in slab_cpu_get */
		if (__atomic_load_n(&m->gen, __ATOMIC_ACQUIRE) != c->gen)
			continue;
		n += __atomic_load_n(&m->allocs, __ATOMIC_RELAXED) -
		     __atomic_load_n(&m->frees, __ATOMIC_RELAXED);
	}
	return n;
}

int kmem_cache_destroy(struct kmem_cache *c)
{
	struct slab *s, *next;
	struct slab_sheaf *sh, *tmp;
	long active;

	if (!c)
		return 0;
	if (slab_tls && c->id >= 0 && slab_tls->cpus[c->id].gen == c->gen &&
	    slab_tls->cpus[c->id].rcu_free) {
		/* this thread's pending kfree_rcu batch goes first */
		rcu_free_submit(c, slab_tls->cpus[c->id].rcu_free);
		slab_tls->cpus[c->id].rcu_free = NULL;
	}
	spin_lock(&c->barn_lock);
	sh = c->shared_rcu;
	c->shared_rcu = NULL;
	spin_unlock(&c->barn_lock);
	if (sh)
		rcu_free_submit(c, sh);
	if ((c->flags & SLAB_TYPESAFE_BY_RCU) ||
	    __atomic_load_n(&c->kfree_rcu_used, __ATOMIC_RELAXED)) {
		/*
		 * Callbacks still queued may free objects of this cache: let them
		 * run first (kvfree_rcu_barrier).  Destroy may come from a thread
		 * rcuvfs did not create, hence the lazy registration.
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
	 * Other threads' slots of this cache die with it: nothing is written
	 * to them; the generation check in slab_cpu_get and slab_cpu_cache
	 * drops their pointers (to slabs and sheaves freed below).
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
	list_for_each_entry_safe(sh, tmp, &c->all_sheaves, all)
		free(sh);
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

bool kmem_cache_has_sheaves(const struct kmem_cache *c)
{
	return c->sheaves;
}

RV_STAT_DEFINE(slab_shrunk_slabs, "empty slabs given back by kmem_cache_shrink");

static void slab_free_rcu(struct rcu_head *head)
{
	free(container_of(head, struct slab, rcu));
}

/*
 * __kmem_cache_shrink (mm/slub.c): the barn's full sheaves go back to their
 * slabs first (barn_shrink), then every slab whose objects are all free on
 * its own list (unfrozen, on the partial list) goes back to malloc.  Such a
 * slab cannot change under list_lock: pushes need an allocated object and
 * pops hold list_lock.  Objects in threads' per-CPU levels keep their slabs,
 * as another CPU's would.  The calling thread is registered with liburcu (a
 * call_rcu worker is, without rcuvfs knowing it: it must not go through
 * rv_call_rcu).
 */
static long __kmem_cache_shrink(struct kmem_cache *c)
{
	struct slab **pp, *s, *dead = NULL;
	struct slab_sheaf *sh;
	long freed = 0;

	for (;;) {
		spin_lock(&c->barn_lock);
		sh = NULL;
		if (c->nr_full) {
			sh = list_first_entry(&c->barn_full, struct slab_sheaf, list);
			list_del_init(&sh->list);
			c->nr_full--;
		}
		spin_unlock(&c->barn_lock);
		if (!sh)
			break;
		sheaf_flush(c, sh);
		barn_put_empty(c, sh);
	}
	spin_lock(&c->list_lock);
	for (pp = &c->slabs; (s = *pp);) {
		uint64_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);

		if ((st & ST_FROZEN) || st_count(st) != s->nr_objs) {
			pp = &s->next;
			continue;
		}
		remove_partial_locked(c, s);
		*pp = s->next;
		s->next = dead;
		dead = s;
		c->nr_slabs--;
		__atomic_store_n(&c->total, c->total - s->nr_objs, __ATOMIC_RELAXED);
		freed += (long)s->bytes;
		rv_stat_inc(slab_shrunk_slabs);
	}
	spin_unlock(&c->list_lock);
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
	list_for_each_entry(c, &slab_caches, list)
		__kmem_cache_shrink(c);
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
	list_for_each_entry(c, &slab_caches, list)
		n += slab_sum_active(c);
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
 * ": rcuvfs <object_size> <depot_free> <flags>" (depot_free: free objects
 * outside the per-CPU level, in slabs and the barn), so tools that read the
 * kernel's columns read these.
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
	list_for_each_entry(c, &slab_caches, list) {
		long nr_slabs, nr_free = 0;
		unsigned int pages = (unsigned int)((c->slab_bytes + 4095) / 4096);
		struct slab *s;
		struct slab_sheaf *sh;

		spin_lock(&c->list_lock);
		nr_slabs = c->nr_slabs;
		for (s = c->slabs; s; s = s->next)
			nr_free += st_count(__atomic_load_n(&s->state, __ATOMIC_RELAXED));
		spin_unlock(&c->list_lock);
		spin_lock(&c->barn_lock);
		list_for_each_entry(sh, &c->barn_full, list)
			nr_free += sh->size;
		spin_unlock(&c->barn_lock);
		off = slab_appendf(
		    buf, len, off,
		    "%-17s %6ld %6ld %6zu %4u %4u : tunables %4u %4u %4u : slabdata "
		    "%6ld %6ld %6u : rcuvfs %6zu %6ld %s%s%s\n",
		    c->name, slab_sum_active(c), __atomic_load_n(&c->total, __ATOMIC_RELAXED),
		    c->stride, c->objs_per_slab, pages, 0u, 0u, 0u, nr_slabs, nr_slabs, 0u, c->size,
		    nr_free, c->flags & SLAB_TYPESAFE_BY_RCU ? "typesafe_by_rcu," : "",
		    c->id < 0	 ? "no_cpu_cache,"
		    : c->sheaves ? "sheaves,"
				 : "cpu_slab,",
		    slab_poisons(c) ? "poisoned" : "unpoisoned");
	}
	pthread_mutex_unlock(&slab_mutex);
	return off;
}
