/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/explore.h - scheduling points of the interleaving explorer
 * (rcuvfs-explore) and the scheduler core it drives.
 *
 * Locking: in an explorer run, every model task is a host thread, but only
 * the one holding the baton runs model code; it passes the baton at a
 * scheduling point.  The scheduler's state (explore.c) is read and written
 * only by the baton holder, and by the driver while no task holds it; each
 * hand-over is a release store of the next task's futex word paired with the
 * acquire load of its wait, so the next holder sees everything before it.
 * Threads that are not explored tasks (the driver, liburcu's call_rcu worker)
 * pass the points without stopping and may run at any time.
 *
 * The points exist only in the explorer build of the model (RCUVFS_EXPLORE
 * defined: the library rcuvfs_explore, which rcuvfs-explore links).  In the
 * ordinary build RV_XPOINT() expands to nothing and RV_XACTIVE() to 0, so
 * the hot paths compile to what they were (the callgrind benchmarks count
 * the same instructions).  Where in the explorer build a point sits:
 *   spinlock_t       before each acquisition attempt, after each release
 *   seqcount         at read begin and at read retry
 *   lockref          before each cmpxchg of the lock-and-count word
 *   rwsem, semaphore, BKL   at every acquire and release
 *   wake_up_process  before the wake
 *   RCU              after rcu_read_lock, after rcu_read_unlock
 *   RV_INJECT        at every injection point (named after it)
 *   rv_sched_point() where a lockless protocol's interleaving matters
 * A task that would wait (a held spinlock, schedule() until woken,
 * synchronize_rcu while another task is inside a read-side section, any
 * cpu_relax() spin loop) parks with a readiness test instead of spinning, so
 * that a schedule never spins and replays exactly.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_EXPLORE_H
#define RCUVFS_VFS_BASE_EXPLORE_H

#include <stdbool.h>
#include <stdint.h>

/* What a task is about to do when it reaches a point (trace column). */
enum rv_xkind {
	RV_XP_START = 0,   /* the task's first step */
	RV_XP_OP,	   /* a scenario operation begins (name: the op) */
	RV_XP_POINT,	   /* rv_sched_point(name) in a lockless protocol */
	RV_XP_INJECT,	   /* RV_INJECT(name) */
	RV_XP_SPIN_LOCK,   /* spin_lock / spin_trylock attempt */
	RV_XP_SPIN_UNLOCK, /* just released a spinlock_t */
	RV_XP_SPIN_WAIT,   /* parked: the spinlock_t is held */
	RV_XP_SEQ_BEGIN,   /* read_seqcount_begin */
	RV_XP_SEQ_RETRY,   /* read_seqcount_retry */
	RV_XP_LOCKREF,	   /* lockref cmpxchg */
	RV_XP_RWSEM_DOWN_READ,
	RV_XP_RWSEM_DOWN_WRITE,
	RV_XP_RWSEM_UP_READ,
	RV_XP_RWSEM_UP_WRITE,
	RV_XP_SEM_DOWN,
	RV_XP_SEM_UP,
	RV_XP_BKL_LOCK,
	RV_XP_BKL_UNLOCK,
	RV_XP_WAKE,	  /* wake_up_process */
	RV_XP_SLEEP,	  /* parked in schedule() until woken */
	RV_XP_RCU_LOCK,	  /* inside a new read-side section */
	RV_XP_RCU_UNLOCK, /* just left a read-side section */
	RV_XP_SYNC_RCU,	  /* parked in synchronize_rcu for a reader */
	RV_XP_RELAX,	  /* parked in a cpu_relax() loop */
	/* simulator-only points (RV_SPOINT: no point in the explorer) */
	RV_XP_LOAD,	 /* a load of a shared line */
	RV_XP_ATOMIC,	 /* a read-modify-write atomic on a shared line */
	RV_XP_STORE,	 /* a plain store to a shared line */
	RV_XP_PREFETCHW, /* a prefetch for writing: the line requested, not waited for */
	RV_XP_JOIN,	 /* a unit test's thread joining another (rvtest's watchdog only) */
	RV_XP_NKINDS
};

#ifdef RCUVFS_EXPLORE
/*
 * The explorer's runtime (explore.c) exists only in its build of the model;
 * librcuvfs.a has none of it.  In the ordinary build every call into it sits
 * behind RV_XACTIVE(), a constant 0, and the hooks the primitives name are
 * empty macros (after this block).
 */
const char *rv_xkind_name(int kind);

struct rv_xtask;
/* The calling thread's explored task; NULL outside an explorer run. */
extern __thread struct rv_xtask *rv_xself;

/* Out of line: the slow side of every point (explore.c). */
void rv_xpoint(int kind, const void *obj, const char *name, const void *site);
/* Park until ready(arg) holds (evaluated by whoever schedules); site: the
 * code address the trace names (NULL: the caller). */
void rv_xblock(int kind, const void *obj, bool (*ready)(const void *arg), const void *arg,
	       const void *site);
/* Park until another task has made progress (a cpu_relax() spin loop). */
void rv_xrelax(void);
void rv_xrcu_lock(void);
void rv_xrcu_unlock(void);
/* Park while another explored task is inside a read-side section. */
void rv_xsync_rcu_wait(void);
/*
 * call_rcu and rcu_barrier of the explorer build.  Callbacks are queued
 * here, not in liburcu (whose worker batches for 10 ms, which would make
 * every schedule's teardown wait), and run by the baton holder at a
 * decision where no explored task is inside a read-side section or holds a
 * spinlock (a grace period has elapsed for all of them, and a callback
 * cannot wait for a parked task), or by rcu_barrier after a real
 * synchronize_rcu.  Both points are deterministic.
 */
struct rcu_head;
void rv_xcall_rcu(struct rcu_head *head, void (*fn)(struct rcu_head *));
void rv_xrcu_barrier(void);
/* spinlock_t bookkeeping of the explorer build (a task holding one). */
void rv_xspin_acquired(void);
void rv_xspin_released(void);
#else
#define rv_xspin_acquired()                                                                        \
	do {                                                                                       \
	} while (0)
#define rv_xspin_released()                                                                        \
	do {                                                                                       \
	} while (0)
#define rv_xrelax()                                                                                \
	do {                                                                                       \
	} while (0)
#define rv_xblock(kind, obj, ready, arg, site)                                                     \
	do {                                                                                       \
		(void)(ready);                                                                     \
	} while (0)
#endif

/*
 * The simulator (rcuvfs-sim, tools/sim) runs the same points as a
 * discrete-event loop: when rv_xsim is set (before any task starts, never
 * during an explorer run) every entry point below forwards to it, and
 * rv_xself then points at the simulator's own task (never dereferenced
 * here).  NULL in rcuvfs-explore: its behaviour is unchanged.
 */
struct rv_xsim_ops {
	void (*point)(int kind, const void *obj, const char *name, const void *site);
	void (*block)(int kind, const void *obj, bool (*ready)(const void *arg), const void *arg,
		      const void *site);
	void (*relax)(const void *site);
	void (*rcu)(int delta, const void *site); /* read-side section entered (+1) / left (-1) */
	void (*sync_rcu)(const void *site);	  /* park while another task is in a section */
	void (*spin)(int delta);		  /* a spinlock_t taken (+1) / released (-1) */
	int (*task_index)(void);
	int (*cpu)(void); /* the calling task's virtual CPU (rv_this_cpu) */
};
extern const struct rv_xsim_ops *rv_xsim;
/* Run the queued call_rcu callbacks now (the simulator, at a quiescent state). */
void rv_xrcu_run_callbacks(void);

#ifdef RCUVFS_EXPLORE
#define RV_XACTIVE() __builtin_expect(rv_xself != 0, 0)
/* Simulator-only point: an access the explorer need not interleave at. */
#define RV_XSIM() __builtin_expect(rv_xself != 0 && rv_xsim != 0, 0)
#define RV_SPOINT(kind, obj)                                                                       \
	do {                                                                                       \
		if (RV_XSIM())                                                                     \
			rv_xpoint((kind), (obj), 0, 0);                                            \
	} while (0)
#define RV_XPOINT(kind, obj, name)                                                                 \
	do {                                                                                       \
		if (RV_XACTIVE())                                                                  \
			rv_xpoint((kind), (obj), (name), 0);                                       \
	} while (0)
/* In an out-of-line primitive: name its caller as the site. */
#define RV_XPOINT_CALLER(kind, obj)                                                                \
	do {                                                                                       \
		if (RV_XACTIVE())                                                                  \
			rv_xpoint((kind), (obj), 0, __builtin_return_address(0));                  \
	} while (0)
#else
#define RV_XACTIVE() 0
#define RV_XSIM()    0
#define RV_SPOINT(kind, obj)                                                                       \
	do {                                                                                       \
	} while (0)
#define RV_XPOINT(kind, obj, name)                                                                 \
	do {                                                                                       \
	} while (0)
#define RV_XPOINT_CALLER(kind, obj)                                                                \
	do {                                                                                       \
	} while (0)
#endif

/* A scheduling point inside a lockless protocol (nothing outside the explorer). */
#define rv_sched_point(name) RV_XPOINT(RV_XP_POINT, 0, (name))

/* ---- the scheduler core, driven by rcuvfs-explore ------------------------ */
#ifdef RCUVFS_EXPLORE

#define RV_XMAX_TASKS 8

/* One decision: who runs next.  A strategy returns a task in `enabled`. */
struct rv_xdecision {
	uint64_t step;	  /* decisions made before this one in the run */
	int cur;	  /* the task that reached the point; -1 at the start */
	bool cur_enabled; /* it may continue (switching away preempts it) */
	uint32_t enabled; /* bit i: task i may run */
	int ntasks;
};
typedef int (*rv_xchoose_fn)(void *ctx, const struct rv_xdecision *d);

/* One step of the trace: the task chosen and the point it was waiting at. */
struct rv_xstep {
	int task;
	int kind;
	const char *name;
	const void *obj;
	const void *site; /* code address: the point's caller */
	bool preempted;	  /* chosen while the previous task could continue */
};

enum rv_xstatus {
	RV_X_DONE = 0,	/* every task finished */
	RV_X_DEADLOCK,	/* tasks left, none can run */
	RV_X_STEPLIMIT, /* more steps than the limit (a livelock?) */
	RV_X_HANG,	/* a task ran past the time limit without a point */
	RV_X_DIVERGED,	/* the strategy chose a task that cannot run (replay) */
	RV_X_CRASHED,	/* (a snapshot) the process is dying: a sanitizer error */
	RV_X_INVARIANT, /* the run's midcheck failed at a decision */
};
const char *rv_xstatus_name(int status);

struct rv_xrun_cfg {
	int ntasks;
	void (*body)(int task, void *arg); /* runs in task `task`'s thread */
	/* Optional: runs in each task's thread before the schedule starts, the
	 * tasks one after another in order, outside the run (no scheduling
	 * points): what a task must have done on its own thread beforehand
	 * (objects from its own per-CPU slab slot). */
	void (*prologue)(int task, void *arg);
	void *arg;
	rv_xchoose_fn choose;
	void *ctx;
	/* Optional: an invariant of the model's state, checked by the baton
	 * holder at every decision where no explored task holds a spinlock_t
	 * or the BKL (the states between critical sections: a broken state
	 * there is visible to every other task, even when it heals before the
	 * end).  Called with no scheduling points; nonzero stops the run with
	 * RV_X_INVARIANT (the tasks stay parked, as after a deadlock). */
	int (*midcheck)(void *arg);
	uint64_t max_steps; /* 0: 1,000,000 */
	long hang_ms;	    /* 0: 20,000 */
	bool keep_trace;    /* record every step (replay); else only counts */
};

struct rv_xresult {
	int status; /* enum rv_xstatus */
	uint64_t steps;
	uint64_t preemptions;
	int stuck_task;		      /* DEADLOCK/HANG: a task left (-1: none) */
	const struct rv_xstep *trace; /* keep_trace: `steps` entries; valid until the next run */
	/* per task: the point it was parked at when the run stopped */
	struct rv_xstep last[RV_XMAX_TASKS];
	bool finished[RV_XMAX_TASKS];
};

/*
 * One schedule: start cfg->ntasks threads, run each body one at a time
 * under the strategy, return when all finished (RV_X_DONE, threads joined)
 * or when the run cannot go on.  After a status other than RV_X_DONE, task
 * threads are left parked (holding whatever they hold): the process must
 * not run another schedule; report and _exit.
 */
int rv_xrun(const struct rv_xrun_cfg *cfg, struct rv_xresult *res);
/* The running schedule's trace so far (a crash report: ASan's death callback). */
void rv_xrun_snapshot(struct rv_xresult *res);
/* The step counter of the running schedule (op begin/end stamps). */
uint64_t rv_xsteps(void);
/* The explored task index of the caller, or -1. */
int rv_xtask_index(void);
#endif /* RCUVFS_EXPLORE: the scheduler core */

#endif /* RCUVFS_VFS_BASE_EXPLORE_H */
