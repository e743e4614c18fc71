// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_slab.c - kmem_cache: counts, the per-CPU level (slab=slub's
 * CPU slab, slab=sheaves' sheaves and barn), kfree_rcu, TYPESAFE_BY_RCU,
 * ASan poisoning, leak reporting.  Needs no model instance.
 *
 * Every test runs twice: suite "slab" under slab=slub, suite "slab_sheaves"
 * under slab=sheaves with every cache asking for sheaves (SLAB_SHEAVES).
 *
 * Threads here are raw pthreads (not rvtest_run_threads, which flushes the
 * magazines explicitly) where the test is about the flush at thread exit.
 * Waits are bounded (WAIT_MS) and never decide pass/fail by timing.
 */
#include "rvtest.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define ASAN_BUILD 1
#else
#define ASAN_BUILD 0
#endif

static bool t_sheaves; /* the slab_sheaves suite is running */

/* Every cache of this file, created in the suite's mode. */
static struct kmem_cache *tcache_create(const char *name, size_t size, size_t align,
					unsigned int flags, void (*ctor)(void *))
{
	return (kmem_cache_create)(name, size, align, flags | (t_sheaves ? SLAB_SHEAVES : 0), ctor);
}
#define kmem_cache_create(...) tcache_create(__VA_ARGS__)

#define WAIT_MS 20000
#define MAGIC	0x5eedf00dcafe1234ull

struct tobj {
	uint64_t magic; /* set by the constructor only */
	long val;
	char pad[40];
};

static long ctor_calls;
static void tobj_ctor(void *p)
{
	struct tobj *o = p;

	o->magic = MAGIC;
	o->val = -1;
	__atomic_fetch_add(&ctor_calls, 1, __ATOMIC_RELAXED);
}

/* Spin (yielding) until *flag >= v or WAIT_MS elapse; true if reached. */
static bool wait_flag(int *flag, int v)
{
	uint64_t deadline = rv_now_ns() + (uint64_t)WAIT_MS * 1000000ull;

	while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < v) {
		if (rv_now_ns() > deadline)
			return false;
		sched_yield();
	}
	return true;
}

/* Find `name`'s line in slabinfo; fills active/total/depot_free. */
static bool slabinfo_of(const char *name, long *active, long *total, long *depot_free)
{
	static char buf[1 << 16];
	char *line;
	size_t n = kmem_cache_format_slabinfo(buf, sizeof(buf));

	if (n == 0 || n >= sizeof(buf))
		return false;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char nm[64];
		long a, t, ds, ns, df;
		unsigned long sz;

		if (line[0] == '#' || !strncmp(line, "slabinfo - version:", 19))
			continue;
		/* the kernel's columns, then ": rcuvfs <object_size> <depot_free> ..." */
		if (sscanf(line,
			   "%63s %ld %ld %lu %ld %*u : tunables %*u %*u %*u : slabdata %*d %ld %*u "
			   ": rcuvfs %*u %ld",
			   nm, &a, &t, &sz, &ds, &ns, &df) != 7)
			continue;
		if (strcmp(nm, name))
			continue;
		*active = a;
		*total = t;
		*depot_free = df;
		return true;
	}
	return false;
}

static void test_create_errors(void)
{
	CU_ASSERT_PTR_NULL(kmem_cache_create("t_zero", 0, 0, 0, NULL));
	CU_ASSERT_PTR_NULL(kmem_cache_create("t_align3", 16, 3, 0, NULL));
	CU_ASSERT_PTR_NULL(kmem_cache_create(NULL, 16, 0, 0, NULL));
	CU_ASSERT_EQUAL(kmem_cache_destroy(NULL), 0);
	kmem_cache_free(NULL, NULL); /* freeing NULL is a no-op (c unused) */
}

static void test_alloc_free_counts(void)
{
	struct kmem_cache *c = kmem_cache_create("t_counts", 50, 0, 0, NULL);
	void *objs[300];
	long before = kmem_cache_total_active();

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_STRING_EQUAL(kmem_cache_name(c), "t_counts");
	CU_ASSERT_EQUAL(kmem_cache_size(c), 50);
	CU_ASSERT_EQUAL(kmem_cache_active(c), 0);
	CU_ASSERT_EQUAL(kmem_cache_total(c), 0);
	for (int i = 0; i < 300; i++) {
		objs[i] = kmem_cache_alloc(c);
		CU_ASSERT_PTR_NOT_NULL_FATAL(objs[i]);
		memset(objs[i], i & 0xff, 50);
		CU_ASSERT_EQUAL(((uintptr_t)objs[i]) % 8, 0);
	}
	CU_ASSERT_EQUAL(kmem_cache_active(c), 300);
	CU_ASSERT(kmem_cache_total(c) >= 300);
	CU_ASSERT_EQUAL(kmem_cache_total_active(), before + 300);
	/* distinct and not overlapping */
	for (int i = 0; i < 300; i++)
		CU_ASSERT_EQUAL(((unsigned char *)objs[i])[49], i & 0xff);
	for (int i = 0; i < 300; i += 2)
		kmem_cache_free(c, objs[i]);
	CU_ASSERT_EQUAL(kmem_cache_active(c), 150);
	for (int i = 1; i < 300; i += 2)
		kmem_cache_free(c, objs[i]);
	CU_ASSERT_EQUAL(kmem_cache_active(c), 0);
	CU_ASSERT_EQUAL(kmem_cache_total_active(), before);

	/* zalloc zeroes a recycled object */
	objs[0] = kmem_cache_zalloc(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(objs[0]);
	for (int i = 0; i < 50; i++)
		CU_ASSERT_EQUAL(((unsigned char *)objs[0])[i], 0);
	kmem_cache_free(c, objs[0]);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
}

static void test_alignment(void)
{
	struct kmem_cache *c = kmem_cache_create("t_align", 24, 128, 0, NULL);
	struct kmem_cache *h = kmem_cache_create("t_hwalign", 8, 0, SLAB_HWCACHE_ALIGN, NULL);
	void *a[40], *b[40];

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	for (int i = 0; i < 40; i++) {
		a[i] = kmem_cache_alloc(c);
		b[i] = kmem_cache_alloc(h);
		CU_ASSERT_EQUAL((uintptr_t)a[i] % 128, 0);
		CU_ASSERT_EQUAL((uintptr_t)b[i] % 64, 0);
	}
	for (int i = 0; i < 40; i++) {
		kmem_cache_free(c, a[i]);
		kmem_cache_free(h, b[i]);
	}
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
	CU_ASSERT_EQUAL(kmem_cache_destroy(h), 0);
}

/* ---- flush at thread exit ---------------------------------------- */

#define EXIT_ALLOCS 100
#define EXIT_KEEP   40

struct exit_arg {
	struct kmem_cache *c;
	void *kept[EXIT_KEEP];
};

static void *exit_worker(void *p)
{
	struct exit_arg *a = p;
	void *objs[EXIT_ALLOCS];

	for (int i = 0; i < EXIT_ALLOCS; i++)
		objs[i] = kmem_cache_alloc(a->c);
	/* free most (they sit in this thread's magazine), keep some for main */
	for (int i = 0; i < EXIT_ALLOCS - EXIT_KEEP; i++)
		kmem_cache_free(a->c, objs[i]);
	memcpy(a->kept, &objs[EXIT_ALLOCS - EXIT_KEEP], sizeof(a->kept));
	return NULL; /* no explicit flush: the thread-exit destructor does it */
}

static void test_flush_at_thread_exit(void)
{
	struct kmem_cache *c = kmem_cache_create("t_exitflush", 64, 0, 0, NULL);
	struct exit_arg args[2];
	pthread_t tid[2];
	long active, total, depot_free;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (int i = 0; i < 2; i++) {
		args[i].c = c;
		CU_ASSERT_EQUAL_FATAL(pthread_create(&tid[i], NULL, exit_worker, &args[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(tid[i], NULL);

	/* both threads are gone: their magazines are back in the depot */
	CU_ASSERT_EQUAL(kmem_cache_active(c), 2 * EXIT_KEEP);
	CU_ASSERT_FATAL(slabinfo_of("t_exitflush", &active, &total, &depot_free));
	CU_ASSERT_EQUAL(active, 2 * EXIT_KEEP);
	CU_ASSERT_EQUAL(depot_free, total - 2 * EXIT_KEEP);

	/* objects allocated by exited threads, freed here: counts stay exact */
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < EXIT_KEEP; j++)
			kmem_cache_free(c, args[i].kept[j]);
	CU_ASSERT_EQUAL(kmem_cache_active(c), 0);
	CU_ASSERT_FATAL(slabinfo_of("t_exitflush", &active, &total, &depot_free));
	if (t_sheaves) {
		CU_ASSERT(depot_free < total); /* some sit in this thread's main sheaf */
	} else {
		CU_ASSERT_EQUAL(depot_free, total); /* remote frees went to their slabs */
	}
	kmem_cache_flush_thread();
	CU_ASSERT_FATAL(slabinfo_of("t_exitflush", &active, &total, &depot_free));
	CU_ASSERT_EQUAL(depot_free, total);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
}

/* ---- concurrent alloc/free with cross-thread frees ----------------- */

#define CONC_ITERS 20000
#define CONC_RING  64

struct conc_arg {
	struct kmem_cache *c;
	long id;
	void **ring; /* shared ring: objects handed between threads */
	int errors;
};

static void *conc_worker(void *p)
{
	struct conc_arg *a = p;
	void *mine[16];
	unsigned seed = (unsigned)a->id * 7919u + 1;

	for (int it = 0; it < CONC_ITERS; it++) {
		int n = 1 + (int)(rand_r(&seed) % 16);

		for (int i = 0; i < n; i++) {
			struct tobj *o = kmem_cache_alloc(a->c);

			if (!o) {
				a->errors++;
				n = i;
				break;
			}
			o->val = a->id; /* stamp: nobody else may own it now */
			mine[i] = o;
		}
		for (int i = 0; i < n; i++) {
			struct tobj *o = mine[i];
			void *prev;

			if (o->val != a->id)
				a->errors++;
			/* swap with the shared ring: frees objects of the other thread */
			prev = __atomic_exchange_n(&a->ring[(it + i) % CONC_RING], o,
						   __ATOMIC_ACQ_REL);
			if (prev)
				kmem_cache_free(a->c, prev);
		}
	}
	return NULL;
}

static void test_concurrent_cross_free(void)
{
	struct kmem_cache *c = kmem_cache_create("t_conc", sizeof(struct tobj), 0, 0, NULL);
	void *ring[CONC_RING] = {0};
	struct conc_arg args[2];
	void *argp[2];
	long active, total, depot_free;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (int i = 0; i < 2; i++) {
		args[i] = (struct conc_arg){c, i + 1, ring, 0};
		argp[i] = &args[i];
	}
	rvtest_run_threads(2, conc_worker, argp);
	CU_ASSERT_EQUAL(args[0].errors, 0);
	CU_ASSERT_EQUAL(args[1].errors, 0);
	long in_ring = 0;
	for (int i = 0; i < CONC_RING; i++)
		in_ring += ring[i] != NULL;
	CU_ASSERT_EQUAL(kmem_cache_active(c), in_ring);
	for (int i = 0; i < CONC_RING; i++)
		kmem_cache_free(c, ring[i]);
	CU_ASSERT_EQUAL(kmem_cache_active(c), 0);
	kmem_cache_flush_thread();
	CU_ASSERT_FATAL(slabinfo_of("t_conc", &active, &total, &depot_free));
	CU_ASSERT_EQUAL(depot_free, total);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
}

static void test_no_magazine(void)
{
	struct kmem_cache *c = kmem_cache_create("t_nomag", 32, 0, SLAB_NO_MAGAZINE, NULL);
	void *o[10];
	long active, total, depot_free;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (int i = 0; i < 10; i++)
		o[i] = kmem_cache_alloc(c);
	CU_ASSERT_FATAL(slabinfo_of("t_nomag", &active, &total, &depot_free));
	CU_ASSERT_EQUAL(active, 10);
	CU_ASSERT_EQUAL(depot_free, total - 10);
	for (int i = 0; i < 10; i++)
		kmem_cache_free(c, o[i]);
	CU_ASSERT_FATAL(slabinfo_of("t_nomag", &active, &total, &depot_free));
	CU_ASSERT_EQUAL(active, 0);
	CU_ASSERT_EQUAL(depot_free, total);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
}

/* ---- many caches, ids reused ------------------------------------- */

struct tagged {
	long tag;
};
static long next_tag;
static void tagged_ctor(void *p)
{
	((struct tagged *)p)->tag = next_tag;
}

static void test_many_caches_and_id_reuse(void)
{
	enum { N = 80 }; /* more than the caches with magazines */
	struct kmem_cache *cs[N];
	void *o[N];

	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < N; i++) {
			next_tag = round * 1000 + i;
			cs[i] =
			    kmem_cache_create("t_many", sizeof(struct tagged), 0, 0, tagged_ctor);
			CU_ASSERT_PTR_NOT_NULL_FATAL(cs[i]);
			/* leave objects in this thread's magazine of the old cache */
			o[i] = kmem_cache_alloc(cs[i]);
			CU_ASSERT_PTR_NOT_NULL_FATAL(o[i]);
			/* every object comes from this cache's own slabs */
			CU_ASSERT_EQUAL(((struct tagged *)o[i])->tag, round * 1000 + i);
		}
		for (int i = 0; i < N; i++) {
			kmem_cache_free(cs[i], o[i]);
			CU_ASSERT_EQUAL(kmem_cache_active(cs[i]), 0);
		}
		for (int i = 0; i < N; i++)
			CU_ASSERT_EQUAL(kmem_cache_destroy(cs[i]), 0);
	}
}

/* ---- SLAB_TYPESAFE_BY_RCU ---------------------------------------- */

static void test_typesafe_reuse(void)
{
	struct kmem_cache *c;
	struct tobj *a, *b;
	long calls;

	ctor_calls = 0;
	c = kmem_cache_create("t_typesafe", sizeof(struct tobj), 0, SLAB_TYPESAFE_BY_RCU,
			      tobj_ctor);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(ctor_calls, 0); /* constructors run when slabs are made */
	a = kmem_cache_alloc(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	calls = ctor_calls;
	CU_ASSERT_EQUAL(calls, kmem_cache_total(c)); /* once per object of the slab */
	CU_ASSERT_EQUAL(a->magic, MAGIC);
	a->val = 42;
	kmem_cache_free(c, a);
	/* a free TYPESAFE object is still an object: fields readable, intact */
	CU_ASSERT_EQUAL(a->magic, MAGIC);
	CU_ASSERT_EQUAL(a->val, 42);
	b = kmem_cache_alloc(c);
	CU_ASSERT_PTR_EQUAL(b, a); /* same memory back at once */
	CU_ASSERT_EQUAL(b->magic, MAGIC);
	CU_ASSERT_EQUAL(b->val, 42); /* not re-constructed */
	CU_ASSERT_EQUAL(ctor_calls, calls);
	kmem_cache_free(c, b);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
	CU_ASSERT_EQUAL(ctor_calls, calls);
}

struct rcu_reader {
	struct tobj *volatile shared;
	int stage; /* 1 reader in section, 2 freed and reused, 3 reader done */
	int destroy_done;
	/* results, checked by the main thread (CUnit is not thread-safe) */
	uint64_t magic_after_reuse, magic_in_destroy;
	long val_after_reuse;
	int arrived;
	int destroy_done_seen;
};

static void *rcu_reader_main(void *p)
{
	struct rcu_reader *r = p;
	struct tobj *o;

	rv_rcu_ensure();
	rcu_read_lock();
	o = r->shared;
	__atomic_store_n(&r->stage, 1, __ATOMIC_RELEASE);
	if (!wait_flag(&r->stage, 2))
		goto out;
	/* the object was freed and handed out again while we held it */
	r->magic_after_reuse = READ_ONCE(o->magic);
	r->val_after_reuse = READ_ONCE(o->val);
	/* kmem_cache_destroy has started: memory must survive our section */
	r->arrived = rv_inject_wait_arrivals("kmem_cache_destroy_rcu", 1, WAIT_MS) == 0;
	/*
	 * Give a broken destroy (no grace period) a chance to return and free
	 * the memory under us; a correct one cannot return before our unlock.
	 * Passing never depends on this wait: it only makes a bug visible.
	 */
	for (int i = 0; i < 50 && !__atomic_load_n(&r->destroy_done, __ATOMIC_ACQUIRE); i++)
		usleep(2000);
	r->magic_in_destroy = READ_ONCE(o->magic); /* ASan: must not be freed */
	r->destroy_done_seen = __atomic_load_n(&r->destroy_done, __ATOMIC_ACQUIRE);
out:
	rcu_read_unlock();
	__atomic_store_n(&r->stage, 3, __ATOMIC_RELEASE);
	return NULL;
}

static void test_typesafe_rcu_reader_across_destroy(void)
{
	struct rcu_reader r = {0};
	struct kmem_cache *c;
	struct tobj *o, *o2;
	pthread_t tid;
	long calls;

	ctor_calls = 0;
	c = kmem_cache_create("t_typesafe_rcu", sizeof(struct tobj), 0, SLAB_TYPESAFE_BY_RCU,
			      tobj_ctor);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	o = kmem_cache_alloc(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	o->val = 1;
	calls = ctor_calls;
	r.shared = o;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&tid, NULL, rcu_reader_main, &r), 0);
	CU_ASSERT_FATAL(wait_flag(&r.stage, 1));

	/* free and reuse under the reader's nose */
	kmem_cache_free(c, o);
	o2 = kmem_cache_alloc(c);
	CU_ASSERT_PTR_EQUAL(o2, o);
	o2->val = 2;
	kmem_cache_free(c, o2);
	CU_ASSERT_EQUAL(ctor_calls, calls);
	CU_ASSERT_EQUAL(rv_inject_set_delay("kmem_cache_destroy_rcu", 0, 0), 0);
	__atomic_store_n(&r.stage, 2, __ATOMIC_RELEASE);

	/* blocks until the reader leaves its read-side section */
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
	__atomic_store_n(&r.destroy_done, 1, __ATOMIC_RELEASE);
	pthread_join(tid, NULL);
	rv_inject_clear("kmem_cache_destroy_rcu");

	CU_ASSERT_EQUAL(r.stage, 3);
	CU_ASSERT_EQUAL(r.magic_after_reuse, MAGIC);
	CU_ASSERT_EQUAL(r.val_after_reuse, 2);
	CU_ASSERT(r.arrived);
	CU_ASSERT_EQUAL(r.magic_in_destroy, MAGIC);
	CU_ASSERT_EQUAL(r.destroy_done_seen, 0);
}

/* destroy from a thread that never registered with RCU */
static void *destroy_unregistered(void *p)
{
	return (void *)(intptr_t)kmem_cache_destroy(p);
}

static void test_typesafe_destroy_unregistered_thread(void)
{
	struct kmem_cache *c =
	    kmem_cache_create("t_typesafe_unreg", 16, 0, SLAB_TYPESAFE_BY_RCU, NULL);
	pthread_t tid;
	void *ret = (void *)1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	kmem_cache_free(c, kmem_cache_alloc(c));
	CU_ASSERT_EQUAL_FATAL(pthread_create(&tid, NULL, destroy_unregistered, c), 0);
	pthread_join(tid, &ret);
	CU_ASSERT_PTR_NULL(ret);
}

/* ---- leaks ------------------------------------------------------- */

static void test_destroy_with_leak(void)
{
	struct kmem_cache *c = kmem_cache_create("t_leaky", 32, 0, 0, NULL);
	void *o[3];

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (int i = 0; i < 3; i++)
		o[i] = kmem_cache_alloc(c);
	fprintf(stderr, "(expected leak report follows)\n");
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), -EBUSY);
	/* the cache stays usable: free and destroy for real */
	CU_ASSERT_EQUAL(kmem_cache_active(c), 3);
	for (int i = 0; i < 3; i++)
		kmem_cache_free(c, o[i]);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
}

static void test_gauges(void)
{
	struct kmem_cache *c = kmem_cache_create("t_gauge", 32, 0, 0, NULL);
	uint64_t active = 0, total = 0;
	void *o;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	o = kmem_cache_alloc(c);
	CU_ASSERT_EQUAL(rv_stat_read("slab_objects_active", &active), 0);
	CU_ASSERT_EQUAL(rv_stat_read("slab_objects_total", &total), 0);
	CU_ASSERT_EQUAL((long)active, kmem_cache_total_active());
	CU_ASSERT(active >= 1);
	CU_ASSERT(total >= (uint64_t)kmem_cache_total(c));
	kmem_cache_free(c, o);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
}

/* ---- ASan poisoning ---------------------------------------------- */

/*
 * Run fn in a forked child with stderr on a pipe; returns the child's wait
 * status and its stderr text.  The child is bounded by alarm().
 */
static int run_child(void (*fn)(void *), void *arg, char *out, size_t outlen)
{
	int pfd[2], status = 0;
	size_t used = 0;
	pid_t pid;

	out[0] = 0;
	if (pipe(pfd))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(pfd[0]);
		dup2(pfd[1], 2);
		alarm(60);
		fn(arg);
		_exit(0);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t n = read(pfd[0], out + used, outlen - 1 - used);

		if (n <= 0)
			break;
		used += (size_t)n;
		if (used == outlen - 1)
			break;
	}
	out[used] = 0;
	close(pfd[0]);
	waitpid(pid, &status, 0);
	return status;
}

static void child_use_after_free(void *p)
{
	struct tobj *o = p;

	fprintf(stderr, "child: reading a freed object\n");
	/* volatile: the load must happen */
	(void)*(volatile long *)&o->val;
	fprintf(stderr, "child: survived the use after free\n");
}

static void child_double_free(void *p)
{
	void **a = p;

	kmem_cache_free(a[0], a[1]);
	fprintf(stderr, "child: survived the double free\n");
}

static void test_uaf_caught_by_asan(void)
{
	struct kmem_cache *c = kmem_cache_create("t_uaf", sizeof(struct tobj), 0, 0, NULL);
	static char out[1 << 16];
	struct tobj *o;
	int status;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	o = kmem_cache_alloc(c);
	o->val = 7;
	kmem_cache_free(c, o);
	if (!ASAN_BUILD) {
		/* poisoning is compiled out and free objects are never written */
		CU_ASSERT_EQUAL(*(volatile long *)&o->val, 7);
		printf("\n  note: not a sanitizer build: use-after-free detection skipped ");
		CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
		return;
	}
	status = run_child(child_use_after_free, o, out, sizeof(out));
	CU_ASSERT(status != -1);
	CU_ASSERT(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "AddressSanitizer"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "use-after-poison"));
	CU_ASSERT_PTR_NULL(strstr(out, "survived"));

	/* a double free is reported too */
	void *args[2] = {c, o};
	status = run_child(child_double_free, args, out, sizeof(out));
	CU_ASSERT(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "double free"));
	CU_ASSERT_PTR_NULL(strstr(out, "survived"));

	/* an object handed out again is fully usable */
	o = kmem_cache_alloc(c);
	o->val = 8;
	CU_ASSERT_EQUAL(o->val, 8);
	kmem_cache_free(c, o);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
}

static void test_typesafe_not_poisoned(void)
{
	struct kmem_cache *c = kmem_cache_create("t_ts_nopoison", sizeof(struct tobj), 0,
						 SLAB_TYPESAFE_BY_RCU, tobj_ctor);
	struct tobj *o;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	o = kmem_cache_alloc(c);
	kmem_cache_free(c, o);
#if ASAN_BUILD
	CU_ASSERT_EQUAL(__asan_address_is_poisoned(o), 0);
#endif
	/* a reader may touch it (would be a report if it were poisoned) */
	CU_ASSERT_EQUAL(*(volatile uint64_t *)&o->magic, MAGIC);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
}

/* ---- reported figure (never pass/fail on time) -------------------- */

static double pair_ns(struct kmem_cache *c, long n)
{
	void *batch[8];
	uint64_t t0 = rv_now_ns();

	for (long i = 0; i < n; i++) {
		for (int j = 0; j < 8; j++) {
			batch[j] = c ? kmem_cache_alloc(c) : malloc(64);
			OPTIMIZER_HIDE_VAR(batch[j]);
		}
		for (int j = 0; j < 8; j++) {
			if (c)
				kmem_cache_free(c, batch[j]);
			else
				free(batch[j]);
		}
	}
	return (double)(rv_now_ns() - t0) / (double)(n * 8);
}

static void test_report_fast_path_ns(void)
{
	struct kmem_cache *mag = kmem_cache_create("t_bench_mag", 64, 0, 0, NULL);
	struct kmem_cache *dep = kmem_cache_create("t_bench_depot", 64, 0, SLAB_NO_MAGAZINE, NULL);
	long n = 200000;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mag);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dep);
	pair_ns(mag, 1000); /* warm: slabs exist */
	pair_ns(dep, 1000);
	printf("\n  alloc+free pair, 64-byte objects, 1 thread%s: %s %.1f ns, "
	       "no per-CPU level %.1f ns, malloc/free %.1f ns ",
	       ASAN_BUILD ? " (ASan build: not representative)" : "",
	       t_sheaves ? "sheaves" : "CPU slab", pair_ns(mag, n), pair_ns(dep, n),
	       pair_ns(NULL, n));
	CU_ASSERT_EQUAL(kmem_cache_active(mag), 0);
	CU_ASSERT_EQUAL(kmem_cache_destroy(mag), 0);
	CU_ASSERT_EQUAL(kmem_cache_destroy(dep), 0);
}

/* ---- the per-CPU level of each design ------------------------------ */

static void test_mode_selected(void)
{
	struct kmem_cache *c = kmem_cache_create("t_mode", 64, 0, 0, NULL);
	struct kmem_cache *plain = (kmem_cache_create)("t_mode_plain", 64, 0, 0, NULL);
	char buf[16384];

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
	CU_ASSERT_EQUAL(kmem_cache_has_sheaves(c), t_sheaves);
	CU_ASSERT_FALSE(kmem_cache_has_sheaves(plain)); /* no SLAB_SHEAVES: the CPU slab */
	kmem_cache_format_slabinfo(buf, sizeof(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, t_sheaves ? "sheaves," : "cpu_slab,"));
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
	CU_ASSERT_EQUAL(kmem_cache_destroy(plain), 0);
}

/* Warm alloc/free pairs never leave the fast path, in either design. */
static void test_fast_path_stays_fast(void)
{
	struct kmem_cache *c = kmem_cache_create("t_fast", 64, 0, 0, NULL);
	uint64_t as, fs, af;
	void *o;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	kmem_cache_free(c, kmem_cache_alloc(c)); /* warm */
	as = rvtest_stat("slab_alloc_slowpath");
	fs = rvtest_stat("slab_free_slowpath");
	af = rvtest_stat("slab_alloc_fastpath");
	for (int i = 0; i < 1000; i++) {
		o = kmem_cache_alloc(c);
		CU_ASSERT_PTR_NOT_NULL_FATAL(o);
		kmem_cache_free(c, o);
	}
	CU_ASSERT_EQUAL(rvtest_stat("slab_alloc_slowpath"), as);
	CU_ASSERT_EQUAL(rvtest_stat("slab_free_slowpath"), fs);
	CU_ASSERT_EQUAL(rvtest_stat("slab_alloc_fastpath"), af + 1000);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
}

#define REMOTE_N 100

struct remote_arg {
	struct kmem_cache *c;
	void *objs[REMOTE_N];
};

static void *remote_alloc_worker(void *p)
{
	struct remote_arg *a = p;

	for (int i = 0; i < REMOTE_N; i++)
		a->objs[i] = kmem_cache_alloc(a->c);
	return NULL;
}

/*
 * Objects allocated by another thread and freed here: under slab=slub every
 * such free is __slab_free (a cmpxchg on the owning slab, the slow path), and
 * the slabs come back to the partial list; under slab=sheaves they go into
 * this thread's sheaves on the fast path until one fills.
 */
static void test_remote_free(void)
{
	struct kmem_cache *c = kmem_cache_create("t_remote", 64, 0, 0, NULL);
	struct remote_arg a = {.c = c};
	pthread_t t;
	uint64_t fs, ff;
	long active, total, depot_free;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, remote_alloc_worker, &a), 0);
	pthread_join(t, NULL);
	for (int i = 0; i < REMOTE_N; i++)
		CU_ASSERT_PTR_NOT_NULL_FATAL(a.objs[i]);
	fs = rvtest_stat("slab_free_slowpath");
	ff = rvtest_stat("slab_free_fastpath");
	for (int i = 0; i < REMOTE_N; i++)
		kmem_cache_free(c, a.objs[i]);
	if (t_sheaves) {
		/* 32 per sheaf: main fills, becomes the spare, a second fills, one to the barn */
		CU_ASSERT(rvtest_stat("slab_free_slowpath") - fs <= 4);
		CU_ASSERT(rvtest_stat("slab_free_fastpath") - ff >= REMOTE_N - 4);
	} else {
		CU_ASSERT_EQUAL(rvtest_stat("slab_free_slowpath") - fs, REMOTE_N);
		CU_ASSERT_EQUAL(rvtest_stat("slab_free_fastpath"), ff);
	}
	kmem_cache_flush_thread();
	CU_ASSERT_FATAL(slabinfo_of("t_remote", &active, &total, &depot_free));
	CU_ASSERT_EQUAL(active, 0);
	CU_ASSERT_EQUAL(depot_free, total);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
}

#define BARN_N 160 /* five sheaves' worth */

RV_STAT_DECLARE(sheaf_refill);

struct barn_arg {
	struct kmem_cache *c;
	void *objs[BARN_N];
	int step; /* 1: allocated; 2: main freed them; 3: worker allocated again */
	uint64_t refills;
	int reused;
};

static void *barn_worker(void *p)
{
	struct barn_arg *a = p;
	uint64_t r0;

	for (int i = 0; i < BARN_N; i++)
		a->objs[i] = kmem_cache_alloc(a->c);
	__atomic_store_n(&a->step, 1, __ATOMIC_RELEASE);
	if (!wait_flag(&a->step, 2))
		return NULL;
	/* this thread's sheaves are empty: the barn's full sheaves serve it */
	r0 = rv_stat_get(sheaf_refill);
	for (int i = 0; i < 64; i++) {
		void *o = kmem_cache_alloc(a->c);

		for (int j = 0; j < BARN_N; j++)
			if (o == a->objs[j]) {
				a->reused++;
				break;
			}
		kmem_cache_free(a->c, o);
	}
	a->refills = rv_stat_get(sheaf_refill) - r0;
	kmem_cache_flush_thread();
	__atomic_store_n(&a->step, 3, __ATOMIC_RELEASE);
	return NULL;
}

/* slab=sheaves: full sheaves travel through the barn between threads. */
static void test_barn_exchange(void)
{
	struct kmem_cache *c = kmem_cache_create("t_barn", 64, 0, 0, NULL);
	struct barn_arg a = {.c = c};
	pthread_t t;
	uint64_t put, get;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, barn_worker, &a), 0);
	CU_ASSERT_FATAL(wait_flag(&a.step, 1));
	put = rvtest_stat("sheaf_barn_put");
	get = rvtest_stat("sheaf_barn_get");
	for (int i = 0; i < BARN_N; i++)
		kmem_cache_free(c, a.objs[i]);
	if (t_sheaves) {
		CU_ASSERT(rvtest_stat("sheaf_barn_put") - put >= 2);
	} else {
		CU_ASSERT_EQUAL(rvtest_stat("sheaf_barn_put"), put);
	}
	__atomic_store_n(&a.step, 2, __ATOMIC_RELEASE);
	CU_ASSERT(wait_flag(&a.step, 3));
	pthread_join(t, NULL);
	if (t_sheaves) {
		CU_ASSERT(rvtest_stat("sheaf_barn_get") - get >= 1);
		CU_ASSERT_EQUAL(a.refills, 0); /* no trip to the slabs */
		CU_ASSERT_EQUAL(a.reused, 64); /* every allocation: an object main freed */
	} else {
		/* slub: the worker's CPU slab still has free objects of its own */
		CU_ASSERT_EQUAL(rvtest_stat("sheaf_barn_get"), get);
	}
	kmem_cache_flush_thread();
	CU_ASSERT_EQUAL(kmem_cache_active(c), 0);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
}

#define RCU_N 96 /* three full batches */

struct kfree_reader {
	int stage; /* 1: in the read-side section; 2: main allocated; 3: reader left */
};

static void *kfree_reader_main(void *p)
{
	struct kfree_reader *r = p;

	rv_rcu_ensure();
	rcu_read_lock();
	__atomic_store_n(&r->stage, 1, __ATOMIC_RELEASE);
	wait_flag(&r->stage, 2);
	rcu_read_unlock();
	__atomic_store_n(&r->stage, 3, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * kmem_cache_free_rcu: while a reader is inside a read-side section that
 * began before the frees, none of the objects may be handed out again; after
 * the grace period they are (sheaves: the rcu_free sheaves come back through
 * the barn; slub: the objects back on their slabs).
 */
static void test_kfree_rcu_waits_for_readers(void)
{
	struct kmem_cache *c = kmem_cache_create("t_kfree_rcu", sizeof(struct tobj), 0, 0, NULL);
	struct kfree_reader r = {0};
	void *freed[RCU_N], *held[400];
	pthread_t t;
	uint64_t batches;
	int early = 0, reused = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (int i = 0; i < RCU_N; i++)
		freed[i] = kmem_cache_alloc(c);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, kfree_reader_main, &r), 0);
	CU_ASSERT_FATAL(wait_flag(&r.stage, 1));
	batches = rvtest_stat("kfree_rcu_batches");
	for (int i = 0; i < RCU_N; i++)
		kmem_cache_free_rcu(c, freed[i]);
	CU_ASSERT_EQUAL(rvtest_stat("kfree_rcu_batches") - batches, RCU_N / 32);
	CU_ASSERT_EQUAL(kmem_cache_active(c), 0); /* counted free at once */
	for (int i = 0; i < 400; i++) {
		held[i] = kmem_cache_alloc(c);
		for (int j = 0; j < RCU_N; j++)
			early += held[i] == freed[j];
	}
	CU_ASSERT_EQUAL(early, 0); /* the grace period cannot have ended */
	for (int i = 0; i < 400; i++)
		kmem_cache_free(c, held[i]);
	__atomic_store_n(&r.stage, 2, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	rcu_barrier();
	for (int i = 0; i < 400; i++) {
		held[i] = kmem_cache_alloc(c);
		for (int j = 0; j < RCU_N; j++)
			reused += held[i] == freed[j];
	}
	CU_ASSERT(reused > 0);
	for (int i = 0; i < 400; i++)
		kmem_cache_free(c, held[i]);
	kmem_cache_flush_thread();
	CU_ASSERT_EQUAL(kmem_cache_active(c), 0);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
}

/*
 * /.rcuvfs/slabinfo reads like /proc/slabinfo (version 2.1, SLUB): the
 * version line, the "# name" header, then per cache 16 whitespace-separated
 * kernel fields (name, active_objs, num_objs, objsize, objperslab,
 * pagesperslab, ":", "tunables", 3 numbers, ":", "slabdata", 3 numbers)
 * with the model's columns only after them.
 */
static void test_slabinfo_kernel_layout(void)
{
	static char buf[1 << 16];
	struct kmem_cache *c = kmem_cache_create("t_layout", 100, 0, 0, NULL);
	void *o;
	char *save = NULL, *line;
	int seen = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	o = kmem_cache_alloc(c);
	CU_ASSERT_FATAL(kmem_cache_format_slabinfo(buf, sizeof(buf)) < sizeof(buf));
	line = strtok_r(buf, "\n", &save);
	CU_ASSERT_STRING_EQUAL(line, "slabinfo - version: 2.1");
	line = strtok_r(NULL, "\n", &save);
	CU_ASSERT(!strncmp(line,
			   "# name            <active_objs> <num_objs> <objsize> "
			   "<objperslab> <pagesperslab> : tunables <limit> <batchcount> "
			   "<sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>",
			   150));
	while ((line = strtok_r(NULL, "\n", &save))) {
		char nm[64], t1[16], t2[16], t3[16], t4[16], t5[16];
		unsigned long act, num, sz, per, pages, lim, batch, shared, as, ns, avail, osz;
		int n =
		    sscanf(line,
			   "%63s %lu %lu %lu %lu %lu %15s %15s %lu %lu %lu %15s %15s %lu %lu %lu "
			   "%15s %15s %lu",
			   nm, &act, &num, &sz, &per, &pages, t1, t2, &lim, &batch, &shared, t3, t4,
			   &as, &ns, &avail, t5, t4, &osz);

		CU_ASSERT_EQUAL(n, 19);
		CU_ASSERT_STRING_EQUAL(t1, ":");
		CU_ASSERT_STRING_EQUAL(t2, "tunables");
		CU_ASSERT_STRING_EQUAL(t3, ":");
		CU_ASSERT_STRING_EQUAL(t5, ":");
		CU_ASSERT(act <= num);
		CU_ASSERT(pages >= 1);
		if (!strcmp(nm, "t_layout")) {
			seen = 1;
			CU_ASSERT_EQUAL(act, 1);
			CU_ASSERT(sz >= 100 && sz % 8 == 0); /* the slot, aligned */
			CU_ASSERT_EQUAL(osz, 100);	     /* the object asked for */
			CU_ASSERT(per * sz <= pages * 4096);
			CU_ASSERT_EQUAL(num, per * ns);
		}
	}
	CU_ASSERT(seen);
	kmem_cache_free(c, o);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
}

static int slab_suite_init(void)
{
	rv_rcu_ensure();
	t_sheaves = false;
	rv_sw.slab = SLAB_ALLOC_SLUB;
	return 0;
}

static int sheaves_suite_init(void)
{
	rv_rcu_ensure();
	t_sheaves = true;
	rv_sw.slab = SLAB_ALLOC_SHEAVES;
	return 0;
}

static int slab_suite_cleanup(void)
{
	t_sheaves = false;
	rv_sw.slab = SLAB_ALLOC_SLUB;
	return 0;
}

/* kmem_cache_shrink gives back exactly the slabs with no live object. */
static void test_shrink(void)
{
	struct kmem_cache *c = kmem_cache_create("t_shrink", 200, 0, 0, NULL);
	static void *objs[4000];
	long total, per_slab;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	objs[0] = kmem_cache_alloc(c);
	per_slab = kmem_cache_total(c);
	CU_ASSERT_FATAL(per_slab > 1);
	for (int i = 1; i < 4000; i++) {
		objs[i] = kmem_cache_alloc(c);
		CU_ASSERT_PTR_NOT_NULL_FATAL(objs[i]);
	}
	total = kmem_cache_total(c);
	CU_ASSERT(total >= 4000);
	/* nothing free: nothing to give back */
	CU_ASSERT_EQUAL(kmem_cache_shrink(c), 0);
	/* keep objs[0] (its slab stays); free the rest to the per-CPU level */
	for (int i = 1; i < 4000; i++)
		kmem_cache_free(c, objs[i]);
	kmem_cache_flush_thread(); /* this thread's per-CPU level back to the slabs */
	CU_ASSERT(kmem_cache_shrink(c) > 0);
	CU_ASSERT_EQUAL(kmem_cache_total(c), per_slab); /* the one slab in use */
	CU_ASSERT_EQUAL(kmem_cache_active(c), 1);
	/* the cache still works, and the live object was not touched */
	memset(objs[0], 0x5a, 200);
	for (int i = 1; i < 100; i++) {
		objs[i] = kmem_cache_alloc(c);
		CU_ASSERT_PTR_NOT_NULL_FATAL(objs[i]);
		memset(objs[i], i, 200);
	}
	CU_ASSERT_EQUAL(((unsigned char *)objs[0])[199], 0x5a);
	for (int i = 0; i < 100; i++)
		kmem_cache_free(c, objs[i]);
	CU_ASSERT_EQUAL(kmem_cache_destroy(c), 0);
}

RVTEST_SUITE(slab, slab_suite_init, slab_suite_cleanup, RVTEST(test_create_errors),
	     RVTEST(test_alloc_free_counts), RVTEST(test_alignment),
	     RVTEST(test_flush_at_thread_exit), RVTEST(test_concurrent_cross_free),
	     RVTEST(test_no_magazine), RVTEST(test_many_caches_and_id_reuse),
	     RVTEST(test_typesafe_reuse), RVTEST(test_typesafe_rcu_reader_across_destroy),
	     RVTEST(test_typesafe_destroy_unregistered_thread), RVTEST(test_destroy_with_leak),
	     RVTEST(test_gauges), RVTEST(test_uaf_caught_by_asan),
	     RVTEST(test_typesafe_not_poisoned), RVTEST(test_slabinfo_kernel_layout),
	     RVTEST(test_shrink), RVTEST(test_mode_selected), RVTEST(test_fast_path_stays_fast),
	     RVTEST(test_remote_free), RVTEST(test_barn_exchange),
	     RVTEST(test_kfree_rcu_waits_for_readers), RVTEST(test_report_fast_path_ns));
RVTEST_SUITE(slab_sheaves, sheaves_suite_init, slab_suite_cleanup, RVTEST(test_create_errors),
	     RVTEST(test_alloc_free_counts), RVTEST(test_alignment),
	     RVTEST(test_flush_at_thread_exit), RVTEST(test_concurrent_cross_free),
	     RVTEST(test_no_magazine), RVTEST(test_many_caches_and_id_reuse),
	     RVTEST(test_typesafe_reuse), RVTEST(test_typesafe_rcu_reader_across_destroy),
	     RVTEST(test_typesafe_destroy_unregistered_thread), RVTEST(test_destroy_with_leak),
	     RVTEST(test_gauges), RVTEST(test_uaf_caught_by_asan),
	     RVTEST(test_typesafe_not_poisoned), RVTEST(test_slabinfo_kernel_layout),
	     RVTEST(test_shrink), RVTEST(test_mode_selected), RVTEST(test_fast_path_stays_fast),
	     RVTEST(test_remote_free), RVTEST(test_barn_exchange),
	     RVTEST(test_kfree_rcu_waits_for_readers), RVTEST(test_report_fast_path_ns));
