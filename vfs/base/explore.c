// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/explore.c - the scheduler core of the interleaving explorer.
 *
 * One schedule (rv_xrun) starts a host thread per explored task.  Exactly
 * one of them holds the baton at a time; at every scheduling point the
 * holder itself asks the strategy who runs next (no scheduler thread: a
 * "continue" decision costs a function call), and if another task is chosen
 * it hands the baton over on that task's futex word and waits on its own.
 *
 * A task that cannot go on parks with a readiness test instead of spinning:
 * the spinlock it wants is held by another explored task, it sleeps in
 * schedule() until woken, it waits in synchronize_rcu for another task's
 * read-side section, or it spins in a cpu_relax() loop (ready once another
 * task has passed a point).  Tests are evaluated by the baton holder when it
 * decides.  A parked task is not enabled until its test holds; when no task
 * is enabled and some are left, the run is a deadlock (after a short grace
 * for a lock held by a thread outside the run, such as liburcu's call_rcu
 * worker, which holds a model spinlock only briefly).
 *
 * Locking: the state below (X) is touched only by the baton holder, and by
 * the driver before the first hand-over and after the last; each hand-over
 * is a release store of the next task's `go` word paired with its acquire
 * load, so the state is always read by the thread that last wrote it or
 * after a release/acquire pair.  `finished`, `arrived` and `release` are
 * futex words between the tasks and the driver.
 */
#include "vfs/base/base.h"

#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { X_RUNNING, X_READY, X_BLOCKED, X_DONE };

struct rv_xtask {
	int id;
	uint32_t go; /* futex: 1 while this task holds the baton */
	int state;   /* X_*; written by the holder */
	bool relax;  /* parked in a cpu_relax() loop */
	bool (*ready)(const void *arg);
	const void *rarg;
	uint64_t own;	    /* points this task passed */
	uint64_t others_at; /* relax: X.progress - own when it parked */
	int rcu_nesting;
	int spin_held;		 /* spinlock_t's held */
	struct rv_xstep pending; /* the point it waits at */
	pthread_t th;
};

static struct {
	const struct rv_xrun_cfg *cfg;
	int n;
	struct rv_xtask t[RV_XMAX_TASKS];
	int cur;
	uint64_t steps, preemptions, progress, max_steps;
	int status;
	int stuck;
	uint32_t finished; /* futex: the run stopped */
	uint32_t arrived;  /* futex: threads waiting for their first baton */
	uint32_t release;  /* futex: finished threads may exit */
	struct rv_xstep *trace;
	size_t trace_cap;
} X;

__thread struct rv_xtask *rv_xself;
const struct rv_xsim_ops *rv_xsim;

/* call_rcu callbacks of the explorer build, under xcb_lock (any thread). */
static pthread_mutex_t xcb_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rcu_head *xcb_head, **xcb_tail = &xcb_head;
static long xcb_queued; /* atomic: a hint read without the lock */

static const char *const kind_names[RV_XP_NKINDS] = {
    [RV_XP_START] = "start",
    [RV_XP_OP] = "op",
    [RV_XP_POINT] = "point",
    [RV_XP_INJECT] = "inject",
    [RV_XP_SPIN_LOCK] = "spin_lock",
    [RV_XP_SPIN_UNLOCK] = "spin_unlock",
    [RV_XP_SPIN_WAIT] = "spin_wait",
    [RV_XP_SEQ_BEGIN] = "read_seqcount_begin",
    [RV_XP_SEQ_RETRY] = "read_seqcount_retry",
    [RV_XP_LOCKREF] = "lockref_cmpxchg",
    [RV_XP_RWSEM_DOWN_READ] = "down_read",
    [RV_XP_RWSEM_DOWN_WRITE] = "down_write",
    [RV_XP_RWSEM_UP_READ] = "up_read",
    [RV_XP_RWSEM_UP_WRITE] = "up_write",
    [RV_XP_SEM_DOWN] = "down",
    [RV_XP_SEM_UP] = "up",
    [RV_XP_BKL_LOCK] = "lock_kernel",
    [RV_XP_BKL_UNLOCK] = "unlock_kernel",
    [RV_XP_WAKE] = "wake_up_process",
    [RV_XP_SLEEP] = "schedule",
    [RV_XP_RCU_LOCK] = "rcu_read_lock",
    [RV_XP_RCU_UNLOCK] = "rcu_read_unlock",
    [RV_XP_SYNC_RCU] = "synchronize_rcu",
    [RV_XP_RELAX] = "cpu_relax",
    [RV_XP_LOAD] = "load",
    [RV_XP_ATOMIC] = "atomic",
    [RV_XP_STORE] = "store",
    [RV_XP_PREFETCHW] = "prefetchw",
    [RV_XP_JOIN] = "pthread_join",
};

const char *rv_xkind_name(int kind)
{
	return kind >= 0 && kind < RV_XP_NKINDS && kind_names[kind] ? kind_names[kind] : "?";
}

const char *rv_xstatus_name(int status)
{
	switch (status) {
	case RV_X_DONE:
		return "done";
	case RV_X_DEADLOCK:
		return "deadlock";
	case RV_X_STEPLIMIT:
		return "step limit";
	case RV_X_HANG:
		return "hang";
	case RV_X_DIVERGED:
		return "diverged";
	case RV_X_CRASHED:
		return "sanitizer error";
	case RV_X_INVARIANT:
		return "invariant broken";
	}
	return "?";
}

static long xfutex(uint32_t *w, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, w, op, val, ts, NULL, 0);
}

static void word_set(uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_RELEASE);
	xfutex(w, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
}

/* Wait while *w == v. */
static void word_wait(uint32_t *w, uint32_t v)
{
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) == v)
		xfutex(w, FUTEX_WAIT_PRIVATE, v, NULL);
}

uint64_t rv_xsteps(void)
{
	return X.steps;
}

int rv_xtask_index(void)
{
	if (rv_xsim)
		return rv_xself ? rv_xsim->task_index() : -1;
	return rv_xself ? rv_xself->id : -1;
}

static bool task_enabled(const struct rv_xtask *t)
{
	switch (t->state) {
	case X_READY:
		return true;
	case X_BLOCKED:
		if (t->relax)
			return X.progress - t->own > t->others_at;
		return t->ready(t->rarg);
	default:
		return false;
	}
}

static uint32_t enabled_mask(void)
{
	uint32_t en = 0;

	for (int i = 0; i < X.n; i++)
		if (task_enabled(&X.t[i]))
			en |= 1u << i;
	return en;
}

static bool all_done(void)
{
	for (int i = 0; i < X.n; i++)
		if (X.t[i].state != X_DONE)
			return false;
	return true;
}

static void run_stop(int status, int stuck)
{
	X.status = status;
	X.stuck = stuck;
	word_set(&X.finished, 1);
}

static void trace_add(int next, bool preempted)
{
	struct rv_xstep *s;

	if (!X.cfg->keep_trace)
		return;
	if (X.steps >= X.trace_cap) {
		size_t cap = X.trace_cap ? X.trace_cap * 2 : 4096;
		struct rv_xstep *nt = realloc(X.trace, cap * sizeof(*nt));

		if (!nt)
			return; /* the trace stops growing; the run goes on */
		X.trace = nt;
		X.trace_cap = cap;
	}
	s = &X.trace[X.steps];
	*s = X.t[next].pending;
	s->task = next;
	s->preempted = preempted;
}

/* The link of a queued rcu_head: liburcu's own node, unused while we hold it. */
static struct rcu_head **xcb_next(struct rcu_head *h)
{
	return (struct rcu_head **)&h->next;
}

void rv_xcall_rcu(struct rcu_head *head, void (*fn)(struct rcu_head *))
{
	head->func = fn;
	*xcb_next(head) = NULL;
	pthread_mutex_lock(&xcb_lock);
	*xcb_tail = head;
	xcb_tail = xcb_next(head);
	__atomic_add_fetch(&xcb_queued, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&xcb_lock);
}

/* Run every queued callback (and those they queue). */
static void xcb_drain(void)
{
	for (;;) {
		struct rcu_head *h;

		pthread_mutex_lock(&xcb_lock);
		h = xcb_head;
		xcb_head = NULL;
		xcb_tail = &xcb_head;
		__atomic_store_n(&xcb_queued, 0, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&xcb_lock);
		if (!h)
			return;
		while (h) {
			struct rcu_head *next = *xcb_next(h);

			h->func(h);
			h = next;
		}
	}
}

void rv_xrcu_run_callbacks(void)
{
	struct rv_xtask *self = rv_xself;

	rv_xself = NULL; /* the callbacks are not a task: they pass no point */
	xcb_drain();
	rv_xself = self;
}

void rv_xrcu_barrier(void)
{
	urcu_memb_synchronize_rcu();
	xcb_drain();
}

void rv_xspin_acquired(void)
{
	if (rv_xsim) {
		if (rv_xself)
			rv_xsim->spin(1);
		return;
	}
	if (rv_xself)
		rv_xself->spin_held++;
}

void rv_xspin_released(void)
{
	if (rv_xsim) {
		if (rv_xself)
			rv_xsim->spin(-1);
		return;
	}
	if (rv_xself)
		rv_xself->spin_held--;
}

/* No explored task is in a read-side section or holds a spinlock. */
static bool all_quiescent(void)
{
	for (int i = 0; i < X.n; i++)
		if (X.t[i].rcu_nesting > 0 || X.t[i].spin_held > 0)
			return false;
	return true;
}

/* No explored task holds a spinlock_t, and nobody holds the BKL. */
static bool no_lock_held(void)
{
	for (int i = 0; i < X.n; i++)
		if (X.t[i].spin_held > 0)
			return false;
	return !bkl_owned();
}

/* At a decision: the run's midcheck, where no critical section is open. */
static bool midcheck_fails(void)
{
	struct rv_xtask *self = rv_xself;
	int bad;

	if (!X.cfg->midcheck || !no_lock_held())
		return false;
	rv_xself = NULL; /* the check is not a task: it passes no point */
	bad = X.cfg->midcheck(X.cfg->arg);
	rv_xself = self;
	return bad != 0;
}

/* At a decision: run the callbacks whose grace period has elapsed. */
static void run_callbacks(void)
{
	struct rv_xtask *self = rv_xself;

	if (!__atomic_load_n(&xcb_queued, __ATOMIC_RELAXED) || !all_quiescent())
		return;
	rv_xself = NULL; /* the callbacks are not a task: they pass no point */
	xcb_drain();
	rv_xself = self;
}

/*
 * Who runs next, asked by the baton holder `cur` (-1: the driver, at the
 * start).  Returns a task, -1 when every task has finished, -2 when the run
 * stopped (deadlock, step limit, divergence).
 */
static int decide(int cur)
{
	struct rv_xdecision d;
	uint32_t en;
	int next;

	run_callbacks();
	if (midcheck_fails()) {
		run_stop(RV_X_INVARIANT, cur);
		return -2;
	}
	en = enabled_mask();
	if (!en) {
		if (all_done())
			return -1;
		/* a lock held by a thread outside the run: give it 200 ms */
		for (int k = 0; k < 2000 && !en; k++) {
			usleep(100);
			en = enabled_mask();
		}
		if (!en) {
			int stuck = -1;

			for (int i = 0; i < X.n && stuck < 0; i++)
				if (X.t[i].state != X_DONE)
					stuck = i;
			run_stop(RV_X_DEADLOCK, stuck);
			return -2;
		}
	}
	if (X.steps >= X.max_steps) {
		run_stop(RV_X_STEPLIMIT, cur);
		return -2;
	}
	d.step = X.steps;
	d.cur = cur;
	d.cur_enabled = cur >= 0 && (en >> cur & 1);
	d.enabled = en;
	d.ntasks = X.n;
	next = X.cfg->choose(X.cfg->ctx, &d);
	if (next < 0 || next >= X.n || !(en >> next & 1)) {
		run_stop(RV_X_DIVERGED, cur);
		return -2;
	}
	if (d.cur_enabled && next != cur)
		X.preemptions++;
	trace_add(next, d.cur_enabled && next != cur);
	X.steps++;
	X.cur = next;
	return next;
}

static void park_forever(struct rv_xtask *self)
{
	word_wait(&self->go, 0);
	for (;;)
		pause();
}

static void hand_to(struct rv_xtask *next)
{
	word_set(&next->go, 1);
}

/* The holder `self` (READY, BLOCKED or DONE) lets the strategy decide. */
static void yield_baton(struct rv_xtask *self)
{
	int next = decide(self->id);

	if (next == -2) {
		if (self->state == X_DONE)
			return;
		__atomic_store_n(&self->go, 0, __ATOMIC_RELAXED);
		park_forever(self);
	}
	if (next == -1) { /* self was the last */
		run_stop(RV_X_DONE, -1);
		return;
	}
	if (next == self->id) {
		self->state = X_RUNNING;
		return;
	}
	__atomic_store_n(&self->go, 0, __ATOMIC_RELAXED);
	hand_to(&X.t[next]);
	if (self->state == X_DONE)
		return;
	word_wait(&self->go, 0);
	self->state = X_RUNNING;
}

void rv_xpoint(int kind, const void *obj, const char *name, const void *site)
{
	struct rv_xtask *self = rv_xself;

	if (!self)
		return;
	if (rv_xsim) {
		rv_xsim->point(kind, obj, name, site ? site : __builtin_return_address(0));
		return;
	}
	self->pending.kind = kind;
	self->pending.obj = obj;
	self->pending.name = name;
	self->pending.site = site ? site : __builtin_return_address(0);
	self->own++;
	X.progress++;
	self->state = X_READY;
	yield_baton(self);
}

void rv_xblock(int kind, const void *obj, bool (*ready)(const void *arg), const void *arg,
	       const void *site)
{
	struct rv_xtask *self = rv_xself;

	if (!self)
		return;
	if (rv_xsim) {
		rv_xsim->block(kind, obj, ready, arg, site ? site : __builtin_return_address(0));
		return;
	}
	self->pending.kind = kind;
	self->pending.obj = obj;
	self->pending.name = NULL;
	self->pending.site = site ? site : __builtin_return_address(0);
	self->ready = ready;
	self->rarg = arg;
	self->relax = false;
	self->state = X_BLOCKED;
	yield_baton(self);
}

void rv_xrelax(void)
{
	struct rv_xtask *self = rv_xself;

	if (!self)
		return;
	if (rv_xsim) {
		rv_xsim->relax(__builtin_return_address(0));
		return;
	}
	self->pending.kind = RV_XP_RELAX;
	self->pending.obj = NULL;
	self->pending.name = NULL;
	self->pending.site = __builtin_return_address(0);
	self->relax = true;
	self->others_at = X.progress - self->own;
	self->state = X_BLOCKED;
	yield_baton(self);
	self->relax = false;
}

void rv_xrcu_lock(void)
{
	struct rv_xtask *self = rv_xself;

	if (!self)
		return;
	if (rv_xsim) {
		rv_xsim->rcu(1, __builtin_return_address(0));
		return;
	}
	self->rcu_nesting++;
	rv_xpoint(RV_XP_RCU_LOCK, NULL, NULL, __builtin_return_address(0));
}

void rv_xrcu_unlock(void)
{
	struct rv_xtask *self = rv_xself;

	if (!self)
		return;
	if (rv_xsim) {
		rv_xsim->rcu(-1, __builtin_return_address(0));
		return;
	}
	self->rcu_nesting--;
	rv_xpoint(RV_XP_RCU_UNLOCK, NULL, NULL, __builtin_return_address(0));
}

static bool no_other_reader(const void *arg)
{
	const struct rv_xtask *self = arg;

	for (int i = 0; i < X.n; i++)
		if (&X.t[i] != self && X.t[i].rcu_nesting > 0)
			return false;
	return true;
}

void rv_xsync_rcu_wait(void)
{
	struct rv_xtask *self = rv_xself;

	if (!self)
		return;
	if (rv_xsim) {
		rv_xsim->sync_rcu(__builtin_return_address(0));
		return;
	}
	while (!no_other_reader(self))
		rv_xblock(RV_XP_SYNC_RCU, NULL, no_other_reader, self, __builtin_return_address(0));
}

static void *task_main(void *arg)
{
	struct rv_xtask *self = arg;

	if (X.cfg->prologue)
		X.cfg->prologue(self->id, X.cfg->arg); /* rv_xself NULL: no points */
	rv_xself = self;
	__atomic_fetch_add(&X.arrived, 1, __ATOMIC_RELEASE);
	xfutex(&X.arrived, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
	word_wait(&self->go, 0);
	self->state = X_RUNNING;
	X.cfg->body(self->id, X.cfg->arg);
	/* the thread's exit (TLS destructors) waits until the run is over */
	rv_xself = NULL;
	self->state = X_DONE;
	X.progress++;
	yield_baton(self);
	word_wait(&X.release, 0);
	return NULL;
}

static void fill_result(struct rv_xresult *res)
{
	res->status = X.status;
	res->steps = X.steps;
	res->preemptions = X.preemptions;
	res->stuck_task = X.stuck;
	res->trace = X.cfg->keep_trace ? X.trace : NULL;
	for (int i = 0; i < X.n; i++) {
		res->last[i] = X.t[i].pending;
		res->last[i].task = i;
		res->finished[i] = X.t[i].state == X_DONE;
	}
}

void rv_xrun_snapshot(struct rv_xresult *res)
{
	memset(res, 0, sizeof(*res));
	if (X.cfg)
		fill_result(res);
}

int rv_xrun(const struct rv_xrun_cfg *cfg, struct rv_xresult *res)
{
	struct timespec slice = {0, 50 * 1000 * 1000};
	uint64_t deadline;
	long hang_ms = cfg->hang_ms > 0 ? cfg->hang_ms : 20000;
	int first, n = cfg->ntasks;

	memset(res, 0, sizeof(*res));
	if (n < 1 || n > RV_XMAX_TASKS)
		return -EINVAL;
	X.cfg = cfg;
	X.n = n;
	X.cur = -1;
	X.steps = X.preemptions = X.progress = 0;
	X.max_steps = cfg->max_steps ? cfg->max_steps : 1000000;
	X.status = RV_X_DONE;
	X.stuck = -1;
	X.finished = X.arrived = X.release = 0;
	for (int i = 0; i < n; i++) {
		struct rv_xtask *t = &X.t[i];

		memset(t, 0, sizeof(*t));
		t->id = i;
		t->state = X_READY;
		t->pending.kind = RV_XP_START;
	}
	for (int i = 0; i < n; i++) {
		if (pthread_create(&X.t[i].th, NULL, task_main, &X.t[i])) {
			fprintf(stderr, "rcuvfs-explore: cannot create a task thread\n");
			return -EAGAIN;
		}
		/* with a prologue, one thread at a time: each runs it alone */
		for (int want = cfg->prologue ? i + 1 : 0;;) {
			uint32_t a = __atomic_load_n(&X.arrived, __ATOMIC_ACQUIRE);

			if ((int)a >= want)
				break;
			xfutex(&X.arrived, FUTEX_WAIT_PRIVATE, a, NULL);
		}
	}
	for (;;) {
		uint32_t a = __atomic_load_n(&X.arrived, __ATOMIC_ACQUIRE);

		if ((int)a == n)
			break;
		xfutex(&X.arrived, FUTEX_WAIT_PRIVATE, a, NULL);
	}
	first = decide(-1);
	if (first >= 0)
		hand_to(&X.t[first]);
	deadline = rv_now_ns() + (uint64_t)hang_ms * 1000000ull;
	while (!__atomic_load_n(&X.finished, __ATOMIC_ACQUIRE)) {
		if (rv_now_ns() > deadline) {
			X.status = RV_X_HANG;
			X.stuck = __atomic_load_n(&X.cur, __ATOMIC_RELAXED);
			break;
		}
		xfutex(&X.finished, FUTEX_WAIT_PRIVATE, 0, &slice);
	}
	fill_result(res);
	if (X.status == RV_X_DONE) {
		word_set(&X.release, 1);
		for (int i = 0; i < n; i++)
			pthread_join(X.t[i].th, NULL);
	}
	return 0;
}
