// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/rcu.c - RCU glue over liburcu's memb flavour.
 *
 * Registration state is per thread (rv_rcu_registered).  A thread registered
 * lazily gets a pthread key whose destructor unregisters it at thread exit,
 * so libfuse workers and test threads never leave a stale reader behind.
 * rv_call_rcu counts callbacks queued and run (gauges rcu_callbacks_queued,
 * rcu_callbacks_done): their difference is the RCU backlog.
 */
#include "vfs/base/base.h"

#include <pthread.h>
#include <stdlib.h>

__thread int rv_rcu_registered;
static pthread_key_t rv_rcu_key;
static pthread_once_t rv_rcu_once = PTHREAD_ONCE_INIT;
static uint64_t rcu_cb_queued, rcu_cb_done; /* atomic */

static void rv_rcu_thread_exit(void *arg)
{
	(void)arg;
	kmem_cache_flush_thread();
	if (rv_rcu_registered) {
		urcu_memb_unregister_thread();
		rv_rcu_registered = 0;
	}
}

static uint64_t gauge_cb_queued(void)
{
	return __atomic_load_n(&rcu_cb_queued, __ATOMIC_RELAXED);
}

static uint64_t gauge_cb_done(void)
{
	return __atomic_load_n(&rcu_cb_done, __ATOMIC_RELAXED);
}

static void rv_rcu_key_init(void)
{
	if (pthread_key_create(&rv_rcu_key, rv_rcu_thread_exit)) {
		fprintf(stderr, "rcuvfs: pthread_key_create failed\n");
		exit(1);
	}
	rv_stat_register_gauge("rcu_callbacks_queued", "call_rcu callbacks queued by the model",
			       gauge_cb_queued);
	rv_stat_register_gauge("rcu_callbacks_done",
			       "call_rcu callbacks of the model that have run", gauge_cb_done);
}

void rv_rcu_register_slow(void)
{
	pthread_once(&rv_rcu_once, rv_rcu_key_init);
	urcu_memb_register_thread();
	rv_rcu_registered = 1;
	/* a non-NULL value makes the destructor run at thread exit */
	pthread_setspecific(rv_rcu_key, (void *)1);
}

void rv_rcu_unregister(void)
{
	if (!rv_rcu_registered)
		return;
	urcu_memb_unregister_thread();
	rv_rcu_registered = 0;
}

bool rv_rcu_has_membarrier(void)
{
	urcu_memb_init(); /* idempotent; probes sys_membarrier */
	return urcu_memb_has_sys_membarrier != 0;
}

const char *rv_rcu_describe(void)
{
	return rv_rcu_has_membarrier()
		   ? "liburcu memb flavour, sys_membarrier in use (readers run without fences)"
		   : "liburcu memb flavour, sys_membarrier NOT available (readers pay a full "
		     "barrier per read-side section)";
}

/*
 * liburcu stores the callback in the rcu_head itself, so counting
 * completions needs a wrapper: a small heap record carrying the caller's
 * head and function, freed by the trampoline that runs the callback.
 * Deferred frees are not hot paths (one malloc beside a wait-free enqueue);
 * if the allocation fails the callback is queued uncounted.
 */
struct rv_rcu_wrap {
	struct rcu_head head;
	struct rcu_head *user;
	void (*fn)(struct rcu_head *);
};

static void rv_rcu_trampoline(struct rcu_head *head)
{
	struct rv_rcu_wrap *w = caa_container_of(head, struct rv_rcu_wrap, head);
	struct rcu_head *user = w->user;
	void (*fn)(struct rcu_head *) = w->fn;

	free(w);
	fn(user);
	__atomic_fetch_add(&rcu_cb_done, 1, __ATOMIC_RELAXED);
}

void rv_call_rcu(struct rcu_head *head, void (*fn)(struct rcu_head *))
{
	struct rv_rcu_wrap *w = malloc(sizeof(*w));

	rv_rcu_ensure();
	if (unlikely(!w)) {
		call_rcu(head, fn);
		return;
	}
	w->user = head;
	w->fn = fn;
	__atomic_fetch_add(&rcu_cb_queued, 1, __ATOMIC_RELAXED);
	call_rcu(&w->head, rv_rcu_trampoline);
}
