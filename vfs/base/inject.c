// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/inject.c - named injection points for deterministic race tests.
 *
 * Locking: rv_inject_lock (a pthread mutex: this is test machinery, never a
 * model lock) protects the table of points.  Entries are never freed while
 * the process lives; clearing only disarms them, so a thread parked on an
 * entry's futex word never touches freed memory.  `arrivals` and `released`
 * are futex words updated with atomics and woken with FUTEX_WAKE.
 *
 * rv_inject_armed counts armed points; RV_INJECT() calls rv_inject_hit()
 * only while it is non-zero.
 */
#include "vfs/base/base.h"

#include <linux/futex.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RV_INJECT_MAX 64

struct rv_inject_point {
	char name[64];
	int used;
	int action; /* enum rv_inject_action; RV_INJ_NONE: only counting */
	int limit;  /* hits the action applies to; 0 = all */
	int hits;   /* under rv_inject_lock */
	unsigned long usec;
	void (*fn)(void *);
	void *arg;
	struct rv_inject_point *other;
	uint32_t arrivals; /* futex word */
	uint32_t released; /* futex word */
};

int rv_inject_armed;
static pthread_mutex_t rv_inject_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rv_inject_point rv_points[RV_INJECT_MAX];

static long futex_op(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

/* Caller holds rv_inject_lock. */
static struct rv_inject_point *point_find(const char *name, bool create)
{
	struct rv_inject_point *free_slot = NULL;

	for (int i = 0; i < RV_INJECT_MAX; i++) {
		struct rv_inject_point *p = &rv_points[i];

		if (p->used && !strcmp(p->name, name))
			return p;
		if (!p->used && !free_slot)
			free_slot = p;
	}
	if (!create || !free_slot || strlen(name) >= sizeof(free_slot->name))
		return NULL;
	memset(free_slot, 0, sizeof(*free_slot));
	snprintf(free_slot->name, sizeof(free_slot->name), "%s", name);
	free_slot->used = 1;
	__atomic_fetch_add(&rv_inject_armed, 1, __ATOMIC_RELAXED);
	return free_slot;
}

static int point_set(const char *name, int action, int limit, struct rv_inject_point **out)
{
	struct rv_inject_point *p;

	pthread_mutex_lock(&rv_inject_lock);
	p = point_find(name, true);
	if (!p) {
		pthread_mutex_unlock(&rv_inject_lock);
		return -ENOSPC;
	}
	p->action = action;
	p->limit = limit;
	p->hits = 0;
	__atomic_store_n(&p->arrivals, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&p->released, 0, __ATOMIC_RELAXED);
	*out = p;
	return 0; /* lock still held: caller fills the rest and unlocks */
}

int rv_inject_set_delay(const char *name, unsigned long usec, int count)
{
	struct rv_inject_point *p;
	int err = point_set(name, RV_INJ_DELAY, count, &p);

	if (err)
		return err;
	p->usec = usec;
	pthread_mutex_unlock(&rv_inject_lock);
	return 0;
}

int rv_inject_set_pause(const char *name, int count)
{
	struct rv_inject_point *p;
	int err = point_set(name, RV_INJ_PAUSE, count, &p);

	if (err)
		return err;
	pthread_mutex_unlock(&rv_inject_lock);
	return 0;
}

int rv_inject_set_wait_for(const char *name, const char *other, int count)
{
	struct rv_inject_point *p, *o;
	int err = point_set(name, RV_INJ_WAIT_FOR, count, &p);

	if (err)
		return err;
	o = point_find(other, true);
	if (!o) {
		p->action = RV_INJ_NONE;
		pthread_mutex_unlock(&rv_inject_lock);
		return -ENOSPC;
	}
	p->other = o;
	pthread_mutex_unlock(&rv_inject_lock);
	return 0;
}

int rv_inject_set_callback(const char *name, void (*fn)(void *), void *arg, int count)
{
	struct rv_inject_point *p;
	int err = point_set(name, RV_INJ_CALLBACK, count, &p);

	if (err)
		return err;
	p->fn = fn;
	p->arg = arg;
	pthread_mutex_unlock(&rv_inject_lock);
	return 0;
}

static void point_release_waiters(struct rv_inject_point *p)
{
	__atomic_store_n(&p->released, 1, __ATOMIC_RELEASE);
	futex_op(&p->released, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
}

void rv_inject_clear(const char *name)
{
	struct rv_inject_point *p;

	pthread_mutex_lock(&rv_inject_lock);
	p = point_find(name, false);
	if (p) {
		p->action = RV_INJ_NONE;
		point_release_waiters(p);
	}
	pthread_mutex_unlock(&rv_inject_lock);
}

void rv_inject_clear_all(void)
{
	pthread_mutex_lock(&rv_inject_lock);
	for (int i = 0; i < RV_INJECT_MAX; i++) {
		struct rv_inject_point *p = &rv_points[i];

		if (!p->used)
			continue;
		p->action = RV_INJ_NONE;
		point_release_waiters(p);
		/* forget the point: callers guarantee no thread is still parked
		 * (tests call this after joining their threads) */
		p->used = 0;
	}
	__atomic_store_n(&rv_inject_armed, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&rv_inject_lock);
}

long rv_inject_arrivals(const char *name)
{
	struct rv_inject_point *p;
	long n = 0;

	pthread_mutex_lock(&rv_inject_lock);
	p = point_find(name, false);
	if (p)
		n = __atomic_load_n(&p->arrivals, __ATOMIC_ACQUIRE);
	pthread_mutex_unlock(&rv_inject_lock);
	return n;
}

/* Wait until *word >= target; timeout_ms < 0 waits forever. */
static int wait_word_at_least(uint32_t *word, uint32_t target, long timeout_ms)
{
	uint64_t deadline = timeout_ms < 0 ? 0 : rv_now_ns() + (uint64_t)timeout_ms * 1000000ull;

	for (;;) {
		uint32_t v = __atomic_load_n(word, __ATOMIC_ACQUIRE);
		struct timespec ts = {0, 10 * 1000 * 1000}; /* re-check every 10ms */

		if (v >= target)
			return 0;
		if (timeout_ms >= 0 && rv_now_ns() >= deadline)
			return -ETIMEDOUT;
		futex_op(word, FUTEX_WAIT_PRIVATE, v, &ts);
	}
}

int rv_inject_wait_arrivals(const char *name, long n, long timeout_ms)
{
	struct rv_inject_point *p;

	pthread_mutex_lock(&rv_inject_lock);
	p = point_find(name, true);
	pthread_mutex_unlock(&rv_inject_lock);
	if (!p)
		return -ENOSPC;
	return wait_word_at_least(&p->arrivals, (uint32_t)n, timeout_ms);
}

void rv_inject_release(const char *name)
{
	struct rv_inject_point *p;

	pthread_mutex_lock(&rv_inject_lock);
	p = point_find(name, false);
	if (p)
		point_release_waiters(p);
	pthread_mutex_unlock(&rv_inject_lock);
}

void rv_inject_hit(const char *name)
{
	struct rv_inject_point *p;
	int action;

	pthread_mutex_lock(&rv_inject_lock);
	p = point_find(name, false);
	if (!p) {
		pthread_mutex_unlock(&rv_inject_lock);
		return;
	}
	action = p->action;
	if (p->limit > 0 && p->hits >= p->limit)
		action = RV_INJ_NONE;
	if (action != RV_INJ_NONE)
		p->hits++;
	pthread_mutex_unlock(&rv_inject_lock);

	/* publish the arrival before parking so a test can observe it */
	__atomic_fetch_add(&p->arrivals, 1, __ATOMIC_RELEASE);
	futex_op(&p->arrivals, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);

	switch (action) {
	case RV_INJ_DELAY:
		usleep(p->usec);
		break;
	case RV_INJ_PAUSE:
		wait_word_at_least(&p->released, 1, -1);
		break;
	case RV_INJ_WAIT_FOR:
		wait_word_at_least(&p->other->arrivals, 1, -1);
		break;
	case RV_INJ_CALLBACK:
		p->fn(p->arg);
		break;
	default:
		break;
	}
}
