// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/sim/engine.c - the discrete-event loop of rcuvfs-sim.
 *
 * The model's code runs as in the explorer build (librcuvfs_explore): each
 * simulated task is a host thread, one runs at a time, and control returns
 * here at every scheduling point (vfs/base/explore.c forwards its entry
 * points through rv_xsim).  Each task sits on a virtual CPU and has a
 * virtual clock.  At a point the holder
 *   1. charges the segment since its previous point (calibration),
 *   2. applies what the point did to the others (an unlocked spinlock lets
 *      its spinners retry, a wake_up_process makes its sleeper runnable after
 *      the wake-up latency, the last read-side section left lets a
 *      synchronize_rcu return),
 *   3. preempts itself if its time slice is over and a task waits in its
 *      CPU's run queue (never while it holds a spinlock_t),
 *   4. picks the running task whose clock is smallest (ties: lowest CPU),
 *      charges that task's pending access to its cache line (coherence.c;
 *      lines are served in the order their requests arrive), and hands it
 *      the baton.
 * A task that waits for a spinlock keeps its CPU (busy) and resumes at the
 * release; a task that sleeps (schedule(), synchronize_rcu) leaves its CPU,
 * which runs the next queued task after a context switch or goes idle.  A
 * woken task goes to its last CPU if idle, else to the lowest idle CPU,
 * else to the head of its last CPU's run queue (a sleeper's CFS credit); a
 * task whose time slice ran out goes to the tail.
 *
 * Locking: as sim.h says; all of `S` belongs to the baton holder.
 */
#include "sim.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "vfs/base/base.h"

enum { T_RUN, T_SPIN, T_SLEEP, T_QUEUED, T_DONE };

struct sim_task {
	int id;
	uint32_t go; /* futex: 1 holds the baton; 2 may run its epilogue */
	int state;
	int64_t clock, ready_at;
	int cpu;
	/* the pending point */
	int kind;
	const void *obj;
	bool charged;
	uint32_t prev_site;
	int prev_kind;
	/* a wait */
	bool (*ready)(const void *arg);
	const void *rarg;
	bool rcu_wait;
	uint8_t *rcu_need; /* synchronize_rcu: tasks still to leave their section */
	int rcu_left;
	struct sim_task *bnext, *rqnext;
	int spin_held, rcu_nesting;
	const void *defer_obj; /* wake_up_process(obj) happens after its point */
	uint64_t resume_tsc;   /* recording */
	struct sim_task_stats st;
	pthread_t th;
};

struct sim_cpu {
	struct sim_task *cur;
	struct sim_task *rq_head, *rq_tail;
	int64_t slice_end, idle_from, idle_ps;
	bool idle;
};

#define NBUCKETS 4096

static struct {
	const struct sim_cfg *cfg;
	const struct sim_topo *tp;
	int n, ncpu, ndone;
	struct sim_task *t;
	struct sim_cpu cpu[SIM_MAX_CPUS];
	struct sim_task *bucket[NBUCKETS]; /* waiters by object */
	int rcu_readers, spin_holders, rcu_waiters;
	uint64_t decisions, points, fallbacks, switches;
	int status;
	uint32_t finished, arrived;
	double tsc_ps;	       /* recording: picoseconds per TSC tick */
	uint64_t tsc_overhead; /* recording: ticks between two back-to-back reads */
	double host_t0;
	uint64_t next_progress;
	int64_t rec_body_ps;
	int64_t horizon; /* the earliest clock of a runnable task but the chosen one */
	uint64_t runahead;
	bool dbg;
	uint64_t dbg_kind[RV_XP_NKINDS + 1];
} S;

static __thread struct sim_task *self_task;

static long sfutex(uint32_t *w, int op, uint32_t val)
{
	return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

static void word_set(uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_RELEASE);
	sfutex(w, FUTEX_WAKE_PRIVATE, INT32_MAX);
}

static void word_wait_not(uint32_t *w, uint32_t v)
{
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) == v)
		sfutex(w, FUTEX_WAIT_PRIVATE, v);
}

static double host_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

enum sim_access sim_kind_access(int kind)
{
	switch (kind) {
	case RV_XP_SPIN_LOCK:
	case RV_XP_SPIN_WAIT:
	case RV_XP_LOCKREF:
	case RV_XP_ATOMIC:
	case RV_XP_RWSEM_DOWN_READ:
	case RV_XP_RWSEM_DOWN_WRITE:
	case RV_XP_RWSEM_UP_READ:
	case RV_XP_RWSEM_UP_WRITE:
	case RV_XP_SEM_DOWN:
	case RV_XP_SEM_UP:
		return SA_RMW;
	case RV_XP_SPIN_UNLOCK:
	case RV_XP_STORE:
	case RV_XP_WAKE:
		return SA_WRITE;
	case RV_XP_SEQ_BEGIN:
	case RV_XP_SEQ_RETRY:
	case RV_XP_LOAD:
		return SA_READ;
	default:
		return SA_NONE;
	}
}

/* ---- waiters by object ------------------------------------------------- */

static unsigned bucket_of(const void *obj)
{
	uintptr_t a = (uintptr_t)obj;

	return (unsigned)((a >> 3) ^ (a >> 15)) & (NBUCKETS - 1);
}

static void bucket_add(struct sim_task *t)
{
	struct sim_task **p = &S.bucket[bucket_of(t->obj)];

	while (*p) /* at the tail: waiters are checked in the order they came */
		p = &(*p)->bnext;
	t->bnext = NULL;
	*p = t;
}

/* ---- the measured window --------------------------------------------- */

static bool in_window(int64_t t)
{
	return S.cfg->end_ps <= S.cfg->warm_ps || (t >= S.cfg->warm_ps && t < S.cfg->end_ps);
}

/* The part of [a, b) inside the window. */
static int64_t window_part(int64_t a, int64_t b)
{
	if (S.cfg->end_ps <= S.cfg->warm_ps)
		return b > a ? b - a : 0;
	if (a < S.cfg->warm_ps)
		a = S.cfg->warm_ps;
	if (b > S.cfg->end_ps)
		b = S.cfg->end_ps;
	return b > a ? b - a : 0;
}

/* ---- CPUs and run queues ---------------------------------------------- */

static void cpu_start(int c, struct sim_task *t, int64_t at)
{
	struct sim_cpu *cpu = &S.cpu[c];

	if (cpu->idle) {
		if (at < cpu->idle_from)
			at = cpu->idle_from;
		cpu->idle_ps += window_part(cpu->idle_from, at);
		cpu->idle = false;
	}
	cpu->cur = t;
	cpu->slice_end = at + S.tp->slice_ps;
	t->cpu = c;
	t->clock = at;
	t->state = T_RUN;
	if (at < S.horizon)
		S.horizon = at;
}

/* The current task of CPU c left it at `now`: run the next queued one or idle. */
static void cpu_release(int c, int64_t now)
{
	struct sim_cpu *cpu = &S.cpu[c];
	struct sim_task *n = cpu->rq_head;

	cpu->cur = NULL;
	if (n) {
		int64_t at = n->ready_at > now ? n->ready_at : now;

		cpu->rq_head = n->rqnext;
		if (!cpu->rq_head)
			cpu->rq_tail = NULL;
		n->rqnext = NULL;
		S.switches++;
		cpu_start(c, n, at + S.tp->ctxsw_ps);
		return;
	}
	cpu->idle = true;
	cpu->idle_from = now;
}

static void rq_add(int c, struct sim_task *t, int64_t ready)
{
	struct sim_cpu *cpu = &S.cpu[c];

	t->state = T_QUEUED;
	t->ready_at = ready;
	t->rqnext = NULL;
	if (cpu->rq_tail)
		cpu->rq_tail->rqnext = t;
	else
		cpu->rq_head = t;
	cpu->rq_tail = t;
}

/* A runnable task (woken at `ready`) needs a CPU. */
static void place(struct sim_task *t, int64_t ready)
{
	int c = t->cpu;

	if (S.cpu[c].cur) {
		c = -1;
		for (int i = 0; i < S.ncpu && c < 0; i++)
			if (!S.cpu[i].cur)
				c = i;
	}
	if (c < 0) {
		/* at the head: CFS gives a sleeper the smallest vruntime of the
		 * queue (place_entity: min_vruntime less half the latency
		 * target), so it runs when the current task leaves the CPU; no
		 * wake-up preemption of the current task is modelled */
		struct sim_cpu *cpu = &S.cpu[t->cpu];

		t->state = T_QUEUED;
		t->ready_at = ready;
		t->rqnext = cpu->rq_head;
		cpu->rq_head = t;
		if (!cpu->rq_tail)
			cpu->rq_tail = t;
		return;
	}
	S.switches++;
	cpu_start(c, t, ready);
}

/* ---- waits ------------------------------------------------------------ */

static void unblock(struct sim_task *t, int64_t now)
{
	if (t->state == T_SPIN) {
		/* it spun on its CPU all along: it retries at the release */
		if (t->clock < now)
			t->clock = now;
		t->state = T_RUN;
		if (t->clock < S.horizon)
			S.horizon = t->clock;
		return;
	}
	/* a sleeper: the wake-up latency, then a CPU */
	if (in_window(now)) {
		t->st.wakeups++;
		t->st.wake_ps += S.tp->wake_ps;
	}
	place(t, now + S.tp->wake_ps);
}

/* Something changed on obj at `now`: wake the waiters whose test holds. */
static void check_obj(const void *obj, int64_t now)
{
	struct sim_task **p = &S.bucket[bucket_of(obj)];

	while (*p) {
		struct sim_task *w = *p;

		if (w->obj == obj && !w->rcu_wait && w->ready(w->rarg)) {
			*p = w->bnext;
			w->bnext = NULL;
			unblock(w, now);
			continue;
		}
		p = &w->bnext;
	}
}

static bool no_other_reader(const struct sim_task *self)
{
	return S.rcu_readers - (self->rcu_nesting > 0) == 0;
}

/*
 * Task q left its read-side section at `now` (a quiescent state): a
 * synchronize_rcu that waited for it may return once every task that was
 * inside a section when it began has left it (a grace period).
 */
static void rcu_quiescent(struct sim_task *q, int64_t now)
{
	if (!S.rcu_waiters)
		return;
	for (int i = 0; i < S.n; i++) {
		struct sim_task *w = &S.t[i];

		if (!w->rcu_wait || !w->rcu_need[q->id])
			continue;
		w->rcu_need[q->id] = 0;
		if (--w->rcu_left == 0) {
			w->rcu_wait = false;
			S.rcu_waiters--;
			free(w->rcu_need);
			w->rcu_need = NULL;
			unblock(w, now);
		}
	}
}

/* No task eligible: test every waiter (a wake the object checks missed). */
static void check_all(int64_t now)
{
	for (int i = 0; i < NBUCKETS; i++) {
		struct sim_task **p = &S.bucket[i];

		while (*p) {
			struct sim_task *w = *p;

			if (w->ready(w->rarg)) {
				*p = w->bnext;
				w->bnext = NULL;
				unblock(w, now);
				continue;
			}
			p = &w->bnext;
		}
	}
}

/* ---- decisions --------------------------------------------------------- */

static void progress(void)
{
	int64_t lo = INT64_MAX;

	for (int c = 0; c < S.ncpu; c++)
		if (S.cpu[c].cur && S.cpu[c].cur->clock < lo)
			lo = S.cpu[c].cur->clock;
	if (lo == INT64_MAX)
		return;
	fprintf(stderr, "\r\033[Krcuvfs-sim: %.1f of %.1f us virtual, %.1f s host, %llu points",
		lo / 1e6, S.cfg->end_ps / 1e6, host_now() - S.host_t0,
		(unsigned long long)S.points);
}

static struct sim_task *pick(void)
{
	struct sim_task *best = NULL;

	for (int pass = 0; pass < 2; pass++) {
		for (int c = 0; c < S.ncpu; c++) {
			struct sim_task *t = S.cpu[c].cur;

			if (t && t->state == T_RUN && (!best || t->clock < best->clock))
				best = t;
		}
		if (best || S.ndone == S.n)
			break;
		{
			int64_t now = 0;

			for (int i = 0; i < S.n; i++)
				if (S.t[i].state != T_DONE && S.t[i].clock > now)
					now = S.t[i].clock;
			check_all(now);
		}
	}
	return best;
}

/*
 * The running task with the smallest clock, its pending access charged.  An
 * access that has to wait for its line (a transfer, a queue) is charged when
 * its request is issued, and the task runs its instruction only when its
 * clock, now the line's arrival, is again the smallest: the model's
 * instructions on one line then execute in the order their lines arrive,
 * and a CPU that still holds a requested line (coherence.c: until the
 * request reaches it) runs its accesses before the requester's.
 */
static struct sim_task *choose(void)
{
	struct sim_task *best;

	for (;;) {
		int64_t before;

		best = pick();
		if (!best)
			return NULL;
		if (best->charged)
			break;
		before = best->clock;
		best->charged = true;
		if (best->kind == RV_XP_PREFETCHW && best->obj && !S.cfg->recording) {
			/* the line moves here; the CPU does not wait for it */
			(void)sim_coh_access(best->cpu, best->obj, SA_WRITE, best->clock);
		} else {
			enum sim_access a = sim_kind_access(best->kind);

			if (a != SA_NONE && best->obj && !S.cfg->recording)
				best->clock = sim_coh_access(best->cpu, best->obj, a, best->clock);
		}
		if (best->clock == before)
			break;
	}
	S.horizon = INT64_MAX;
	for (int c = 0; c < S.ncpu; c++) {
		struct sim_task *t = S.cpu[c].cur;

		if (t && t != best && t->state == T_RUN && t->clock < S.horizon)
			S.horizon = t->clock;
	}
	return best;
}

static void run_callbacks(void)
{
	if (S.rcu_readers == 0 && S.spin_holders == 0)
		rv_xrcu_run_callbacks();
}

/* May the running task go on without a decision (SIM_LOOKAHEAD_PS)? */
static bool run_ahead(struct sim_task *t)
{
	enum sim_access a;

	if (S.cfg->recording || t->state != T_RUN || S.cpu[t->cpu].cur != t ||
	    t->clock - SIM_LOOKAHEAD_PS > S.horizon || (S.horizon == INT64_MAX && S.ndone < S.n))
		return false;
	if (t->kind == RV_XP_PREFETCHW)
		return false; /* charged by choose() */
	a = sim_kind_access(t->kind);
	if (a != SA_NONE && t->obj) {
		uintptr_t line = (uintptr_t)t->obj >> 6;

		if (!sim_coh_local(t->cpu, t->obj, a, t->clock))
			return false;
		for (int c = 0; c < S.ncpu; c++) { /* someone waiting for that line */
			struct sim_task *o = S.cpu[c].cur;

			if (o && o != t && o->state == T_RUN && !o->charged && o->obj &&
			    (uintptr_t)o->obj >> 6 == line &&
			    (a != SA_READ || sim_kind_access(o->kind) != SA_READ))
				return false;
		}
		t->clock = sim_coh_access(t->cpu, t->obj, a, t->clock);
	}
	t->charged = true;
	S.runahead++;
	return true;
}

/* The holder `self` (running, waiting or done) lets the next task run. */
static void yield_baton(struct sim_task *self)
{
	struct sim_task *next;

	if (run_ahead(self))
		return;
	S.decisions++;
	if (S.dbg)
		S.dbg_kind[self->kind < RV_XP_NKINDS + 1 ? self->kind : 0]++;
	run_callbacks();
	next = choose();
	if (!next) {
		if (S.ndone < S.n)
			S.status = -1;
		word_set(&S.finished, 1);
		if (self->state == T_DONE)
			return;
		for (;;)
			pause(); /* a deadlock: the driver reports and exits */
	}
	if (next == self) {
		if (S.cfg->recording)
			self->resume_tsc = __rdtsc();
		return;
	}
	__atomic_store_n(&self->go, 0, __ATOMIC_RELAXED);
	word_set(&next->go, 1);
	if (self->state == T_DONE)
		return;
	word_wait_not(&self->go, 0);
	if (S.cfg->recording)
		self->resume_tsc = __rdtsc();
}

/* Arrival at a point: the segment before it, then the deferred wake. */
static void arrive(struct sim_task *t, int kind, const void *obj, const void *site)
{
	uint32_t off = site ? sim_site_offset(site) : 0;

	if (S.cfg->recording) {
		uint64_t now = __rdtsc();
		uint64_t d = now - t->resume_tsc;
		int64_t ps;

		d = d > S.tsc_overhead ? d - S.tsc_overhead : 0; /* the reads themselves */
		ps = (int64_t)((double)d * S.tsc_ps);

		sim_calib_record(S.cfg->calib, t->prev_site, t->prev_kind, off, kind, ps);
		t->clock += ps; /* virtual time goes on as measured */
	} else {
		bool fb = false;

		t->clock +=
		    sim_calib_cost(S.cfg->calib, t->prev_site, t->prev_kind, off, kind, &fb);
		S.fallbacks += fb;
	}
	t->prev_site = off;
	t->prev_kind = kind;
	t->kind = kind;
	t->obj = obj;
	t->charged = false;
	t->st.points++;
	S.points++;
	if (S.cfg->progress && S.points >= S.next_progress) {
		S.next_progress = S.points + 2000000;
		progress();
	}
	if (t->defer_obj) {
		const void *o = t->defer_obj;

		t->defer_obj = NULL;
		check_obj(o, t->clock);
	}
}

/* A running task at a point: preempt it when its slice is over. */
static void maybe_preempt(struct sim_task *t)
{
	struct sim_cpu *cpu = &S.cpu[t->cpu];

	if (!cpu->rq_head || t->clock < cpu->slice_end || t->spin_held > 0)
		return;
	if (in_window(t->clock))
		t->st.invol_switches++;
	rq_add(t->cpu, t, t->clock);
	cpu_release(t->cpu, t->clock);
}

static void sim_point(int kind, const void *obj, const char *name, const void *site)
{
	struct sim_task *t = self_task;

	(void)name;
	arrive(t, kind, obj, site);
	if (kind == RV_XP_WAKE)
		t->defer_obj = obj;
	else if (kind == RV_XP_SPIN_UNLOCK && obj)
		check_obj(obj, t->clock);
	maybe_preempt(t);
	yield_baton(t);
}

static void sim_block(int kind, const void *obj, bool (*ready)(const void *arg), const void *arg,
		      const void *site)
{
	struct sim_task *t = self_task;

	arrive(t, kind, obj, site);
	if (ready(arg)) { /* already true: not a wait */
		maybe_preempt(t);
		yield_baton(t);
		return;
	}
	t->ready = ready;
	t->rarg = arg;
	t->obj = obj;
	if (kind == RV_XP_SLEEP) {
		t->state = T_SLEEP;
		if (in_window(t->clock))
			t->st.vol_switches++;
		cpu_release(t->cpu, t->clock);
	} else {
		t->state = T_SPIN;
	}
	bucket_add(t);
	yield_baton(t);
}

static void sim_relax(const void *site)
{
	struct sim_task *t = self_task;

	arrive(t, RV_XP_RELAX, NULL, site);
	if (!S.cfg->recording)
		t->clock += S.tp->pause_ps;
	t->charged = true;
	maybe_preempt(t);
	yield_baton(t);
}

static void sim_rcu(int delta, const void *site)
{
	struct sim_task *t = self_task;

	if (delta > 0) {
		if (t->rcu_nesting++ == 0)
			S.rcu_readers++;
		sim_point(RV_XP_RCU_LOCK, NULL, NULL, site);
		return;
	}
	if (t->rcu_nesting == 0) { /* entered before the run (no point then) */
		sim_point(RV_XP_RCU_UNLOCK, NULL, NULL, site);
		return;
	}
	if (--t->rcu_nesting == 0) {
		S.rcu_readers--;
		rcu_quiescent(t, t->clock);
	}
	sim_point(RV_XP_RCU_UNLOCK, NULL, NULL, site);
}

static bool always_false(const void *arg)
{
	(void)arg;
	return false;
}

static void sim_sync_rcu(const void *site)
{
	struct sim_task *t = self_task;

	arrive(t, RV_XP_SYNC_RCU, NULL, site);
	if (no_other_reader(t)) {
		yield_baton(t);
		return;
	}
	t->rcu_need = calloc((size_t)S.n, 1);
	if (!t->rcu_need) {
		fprintf(stderr, "rcuvfs-sim: out of memory (synchronize_rcu)\n");
		exit(1);
	}
	t->rcu_left = 0;
	for (int i = 0; i < S.n; i++)
		if (i != t->id && S.t[i].rcu_nesting > 0) {
			t->rcu_need[i] = 1;
			t->rcu_left++;
		}
	S.rcu_waiters++;
	t->rcu_wait = true;
	t->ready = always_false;
	t->rarg = NULL;
	t->state = T_SLEEP;
	if (in_window(t->clock))
		t->st.vol_switches++;
	cpu_release(t->cpu, t->clock);
	yield_baton(t);
}

static void sim_spin(int delta)
{
	struct sim_task *t = self_task;

	if (delta > 0 && t->spin_held++ == 0)
		S.spin_holders++;
	else if (delta < 0 && --t->spin_held == 0)
		S.spin_holders--;
}

static int sim_task_index(void)
{
	return self_task ? self_task->id : -1;
}

static int sim_task_cpu(void)
{
	return self_task ? self_task->cpu : 0;
}

static const struct rv_xsim_ops sim_ops = {
    .point = sim_point,
    .block = sim_block,
    .relax = sim_relax,
    .rcu = sim_rcu,
    .sync_rcu = sim_sync_rcu,
    .spin = sim_spin,
    .task_index = sim_task_index,
    .cpu = sim_task_cpu,
};

/* ---- public ----------------------------------------------------------- */

int64_t sim_now(void)
{
	return self_task ? self_task->clock : 0;
}

void sim_advance(int64_t ps)
{
	if (self_task && ps > 0)
		self_task->clock += ps;
}

int sim_self(void)
{
	return self_task ? self_task->id : -1;
}

const struct sim_task_stats *sim_task_stats(int task)
{
	return task >= 0 && task < S.n ? &S.t[task].st : NULL;
}

static void *task_main(void *arg)
{
	struct sim_task *t = arg;

	if (S.cfg->prologue)
		S.cfg->prologue(t->id, S.cfg->arg);
	__atomic_fetch_add(&S.arrived, 1, __ATOMIC_RELEASE);
	sfutex(&S.arrived, FUTEX_WAKE_PRIVATE, INT32_MAX);
	word_wait_not(&t->go, 0);
	if (!S.cfg->plain) {
		self_task = t;
		rv_xself = (struct rv_xtask *)t; /* opaque to explore.c in sim mode */
	}
	if (S.cfg->recording)
		t->resume_tsc = __rdtsc();
	{
		/* the thread's CPU time: a preemption by other work is not in it */
		struct timespec c0, c1;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
		if (S.cfg->recording)
			t->resume_tsc = __rdtsc();
		S.cfg->body(t->id, S.cfg->arg);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
		if (S.cfg->recording || S.cfg->plain)
			S.rec_body_ps += (int64_t)(c1.tv_sec - c0.tv_sec) * 1000000000000ll +
					 (int64_t)(c1.tv_nsec - c0.tv_nsec) * 1000;
	}
	if (!S.cfg->plain)
		arrive(t, RV_XP_NKINDS, NULL, NULL); /* the last segment */
	rv_xself = NULL;
	if (t->rcu_nesting > 0) { /* left after the run, without a point */
		t->rcu_nesting = 0;
		S.rcu_readers--;
		rcu_quiescent(t, t->clock);
	}
	t->st.clock = t->clock;
	t->st.cpu = t->cpu;
	t->state = T_DONE;
	S.ndone++;
	cpu_release(t->cpu, t->clock);
	yield_baton(t);
	self_task = NULL;
	/* the epilogue, when the driver says so */
	word_wait_not(&t->go, 0);
	while (__atomic_load_n(&t->go, __ATOMIC_ACQUIRE) != 2)
		sfutex(&t->go, FUTEX_WAIT_PRIVATE, __atomic_load_n(&t->go, __ATOMIC_RELAXED));
	if (S.cfg->epilogue)
		S.cfg->epilogue(t->id, S.cfg->arg);
	return NULL;
}

static double tsc_ps_per_tick(void)
{
	double t0 = host_now();
	uint64_t c0 = __rdtsc();

	while (host_now() - t0 < 0.05)
		;
	return (host_now() - t0) * 1e12 / (double)(__rdtsc() - c0);
}

int sim_run(const struct sim_cfg *cfg, struct sim_result *res)
{
	int n = cfg->ntasks;

	memset(res, 0, sizeof(*res));
	free(S.t); /* the previous run's tasks (sim_task_stats read them) */
	memset(&S, 0, sizeof(S));
	if (n < 1 || cfg->topo->ncpus < 1 || cfg->topo->ncpus > SIM_MAX_CPUS)
		return -EINVAL;
	S.cfg = cfg;
	S.tp = cfg->topo;
	S.n = n;
	S.ncpu = cfg->topo->ncpus;
	S.t = calloc((size_t)n, sizeof(*S.t));
	if (!S.t)
		return -ENOMEM;
	if (cfg->recording) {
		S.tsc_ps = tsc_ps_per_tick();
		S.tsc_overhead = UINT64_MAX;
		for (int i = 0; i < 10000; i++) {
			uint64_t a = __rdtsc(), b = __rdtsc();

			if (b - a < S.tsc_overhead)
				S.tsc_overhead = b - a;
		}
	}
	sim_coh_init(cfg->topo);
	sim_window_lo = cfg->warm_ps;
	sim_window_hi = cfg->end_ps;
	for (int i = 0; i < n; i++) {
		struct sim_task *t = &S.t[i];

		t->id = i;
		t->cpu = i % S.ncpu;
		t->prev_kind = RV_XP_START;
		t->kind = RV_XP_START;
		t->charged = true;
	}
	for (int c = 0; c < S.ncpu; c++) {
		S.cpu[c].idle = true;
		S.cpu[c].idle_from = 0;
	}
	/* task i on CPU i % ncpu; the first ones run, the others wait in order */
	for (int i = 0; i < n; i++) {
		struct sim_task *t = &S.t[i];

		if (i < S.ncpu)
			cpu_start(i, t, 0);
		else
			rq_add(t->cpu, t, 0);
	}
	for (int i = 0; i < n; i++) {
		pthread_attr_t attr;
		int r;

		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 256 * 1024);
		r = pthread_create(&S.t[i].th, &attr, task_main, &S.t[i]);
		pthread_attr_destroy(&attr);
		if (r) {
			fprintf(stderr, "rcuvfs-sim: cannot create task thread %d: %s\n", i,
				strerror(r));
			exit(1);
		}
		/* one at a time: each runs its prologue alone */
		for (;;) {
			uint32_t a = __atomic_load_n(&S.arrived, __ATOMIC_ACQUIRE);

			if ((int)a > i)
				break;
			sfutex(&S.arrived, FUTEX_WAIT_PRIVATE, a);
		}
	}
	S.horizon = INT64_MAX;
	S.dbg = getenv("RCUVFS_SIM_DEBUG") != NULL;
	S.host_t0 = host_now();
	S.next_progress = 2000000;
	rv_xsim = &sim_ops;
	{
		struct sim_task *first = choose();

		word_set(&first->go, 1);
	}
	word_wait_not(&S.finished, 0);
	if (cfg->progress)
		fprintf(stderr, "\r\033[K");
	res->status = S.status;
	res->host_s = host_now() - S.host_t0;
	if (S.status) {
		fprintf(stderr, "rcuvfs-sim: deadlock: no task can run; waiting:\n");
		for (int i = 0; i < n; i++)
			if (S.t[i].state != T_DONE)
				fprintf(stderr, "  task %d: %s on %p (state %d, rcu %d, spin %d)\n",
					i, rv_xkind_name(S.t[i].kind), S.t[i].obj, S.t[i].state,
					S.t[i].rcu_nesting, S.t[i].spin_held);
		fflush(stderr);
		_exit(1);
	}
	rv_xsim = NULL;
	rv_xrcu_run_callbacks();
	for (int i = 0; i < n; i++) {
		if (S.t[i].clock > res->end_ps)
			res->end_ps = S.t[i].clock;
	}
	for (int c = 0; c < S.ncpu; c++) {
		struct sim_cpu *cpu = &S.cpu[c];
		int64_t idle = cpu->idle_ps;

		if (cpu->idle)
			idle += window_part(cpu->idle_from, res->end_ps);
		res->idle_ps[c] = idle;
		res->busy_ps[c] = window_part(0, res->end_ps) - idle;
	}
	res->points = S.points;
	if (getenv("RCUVFS_SIM_DEBUG"))
		fprintf(stderr, "rcuvfs-sim: %llu points, %llu decisions, %llu run ahead, %.2f s\n",
			(unsigned long long)S.points, (unsigned long long)S.decisions,
			(unsigned long long)S.runahead, res->host_s);
	for (int k = 0; S.dbg && k <= RV_XP_NKINDS; k++)
		if (S.dbg_kind[k])
			fprintf(stderr, "  decisions at %s: %llu\n", rv_xkind_name(k),
				(unsigned long long)S.dbg_kind[k]);
	res->decisions = S.decisions;
	res->fallback_segments = S.fallbacks;
	res->switches = S.switches;
	res->rec_body_ps = S.rec_body_ps;
	res->tsc_step_ps = (int64_t)((double)S.tsc_overhead * S.tsc_ps);
	/* epilogues, one task at a time */
	for (int i = 0; i < n; i++) {
		word_set(&S.t[i].go, 2);
		pthread_join(S.t[i].th, NULL);
	}
	sim_coh_fini();
	return 0;
}
