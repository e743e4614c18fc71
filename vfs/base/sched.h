/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/sched.h - model tasks, `current`, sleeping and waking, signals.
 *
 * Locking: the instance's task list is under rv_tasks_lock (sched.c);
 * task_struct.state, .futex, .sigpending and .refcount are atomics;
 * lock_depth is read and written only by the owning task; files and mm are
 * written only by their hooks at fork/clone, exec and exit; mm is changed
 * under alloc_lock (task_lock), which get_task_mm holds to take its
 * reference, as in the kernel.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_SCHED_H
#define RCUVFS_VFS_BASE_SCHED_H

#include "vfs/base/list.h"
#include "vfs/base/spinlock.h"
#include <sys/types.h>

/*
 * A model task is a host thread with a task_struct.  A model process is the
 * set of tasks sharing one tgid, one files_struct and one mm_struct.  The
 * fields `files` and `mm` belong to fdtable/ and mm/ respectively, which
 * install their fork/exit behaviour through task_set_hooks().
 *
 * Sleeping is the kernel's pattern: set_current_state(TASK_(UN)INTERRUPTIBLE),
 * test the condition, schedule(); the waker makes the condition true and
 * calls wake_up_process().  schedule() releases the BKL (if the task holds
 * it) for the duration of the sleep and re-takes it after, as 2.6 kernels
 * did in schedule().  Sleeping happens on a per-task futex word.
 */
struct files_struct;
struct mm_struct;

/*
 * Where a task waits: set by the wait primitives (schedule()'s callers, the
 * spinlock's contended path) just before they sleep or yield, cleared when
 * the wait ends.  kind is an enum rv_xkind (RV_XP_SLEEP, RV_XP_RWSEM_DOWN_*,
 * RV_XP_SEM_DOWN, RV_XP_SPIN_WAIT, ...; 0 = not waiting), obj the lock or
 * wait queue, site the code that called the primitive.  Written only by the
 * task itself; read by the unit tests' watchdog (rv_tasks_waits), which
 * dumps them when every wait has stopped making progress.
 */
struct rv_wait_point {
	int kind; /* atomic; 0: not waiting */
	const void *obj;
	const void *site;
};

enum task_state {
	TASK_RUNNING = 0,
	TASK_INTERRUPTIBLE = 1,
	TASK_UNINTERRUPTIBLE = 2,
};

struct task_struct {
	pid_t pid;		    /* unique per task, never reused in an instance */
	pid_t tgid;		    /* model process id (the group leader's pid) */
	struct files_struct *files; /* owned by fdtable/; NULL until installed */
	struct mm_struct *mm;	    /* owned by mm/; NULL for "kernel threads" */
	int lock_depth;		    /* BKL recursion depth; -1 when not held */
	int state;		    /* enum task_state; atomic */
	uint32_t futex;		    /* sleep word: bumped by every wake-up */
	int sigpending;		    /* atomic: a signal is pending (EINTR) */
	int refcount;		    /* atomic: get_task_struct/put_task_struct */
	uint32_t flags;		    /* PF_* */
	void *host_private;	    /* free for the thread's owner (stress, fuse) */
	struct list_head all_tasks; /* on the instance's task list, under its lock */
	spinlock_t alloc_lock;	    /* task_lock: changes of mm (and reads that mmget it) */
	struct rv_wait_point wait;  /* where it sleeps or spins (the watchdog) */
	unsigned long host_thread;  /* pthread_t of the attached thread, 0 if none */
	char comm[16];
};

/* The kernel's task_lock/task_unlock (alloc_lock). */
static inline void task_lock(struct task_struct *t)
{
	spin_lock(&t->alloc_lock);
}
static inline void task_unlock(struct task_struct *t)
{
	spin_unlock(&t->alloc_lock);
}
#define PF_LAZY	    0x1 /* created lazily for a thread rcuvfs did not create */
#define PF_ATTACHED 0x2 /* some thread's current (atomic bit) */

extern __thread __tls_hot struct task_struct *rv_current;
struct task_struct *rv_current_slow(void);
/* `current`: the calling thread's task; created lazily (with RCU registration). */
static __always_inline struct task_struct *get_current(void)
{
	struct task_struct *t = rv_current;

	if (likely(t != NULL))
		return t;
	return rv_current_slow();
}
#define current get_current()

/* clone flags understood by task_fork / task_clone_thread hooks */
#ifndef CLONE_VM
#define CLONE_VM    0x100 /* Linux's values; <sched.h> may define them too */
#define CLONE_FILES 0x400
#endif

struct task_hooks {
	/* Called for the child with the parent's task; return -errno to fail. */
	int (*copy_files)(struct task_struct *child, struct task_struct *parent,
			  unsigned long flags);
	int (*copy_mm)(struct task_struct *child, struct task_struct *parent, unsigned long flags);
	/* Called when a task exits (after its last use of files/mm). */
	void (*exit_files)(struct task_struct *t);
	void (*exit_mm)(struct task_struct *t);
};
enum task_hook_slot { TASK_HOOK_FILES, TASK_HOOK_MM };
/* Install copy/exit hooks for one slot (files or mm); NULL members clear them. */
void task_set_hooks(enum task_hook_slot slot, const struct task_hooks *hooks);

/* A new model process with an empty files table and no mm (hooks decide). */
struct task_struct *task_create_process(const char *comm);
/* fork(): a new model process; files and mm copied through the hooks. */
struct task_struct *task_fork(struct task_struct *parent);
/* clone(CLONE_VM|CLONE_FILES|CLONE_THREAD): a new task in parent's process. */
struct task_struct *task_clone_thread(struct task_struct *parent);
/*
 * Make `t` the calling thread's current (and register it with RCU).  A task
 * is one thread: attaching a task that another thread still has attached is
 * a bug (they would share its sleep word and BKL depth); it is reported.
 */
void task_attach(struct task_struct *t);
/* Detach the calling thread from its task without exiting it. */
void task_detach(void);
/* Exit `t`: run the exit hooks, drop the task reference. */
void task_exit(struct task_struct *t);
void get_task_struct(struct task_struct *t);
void put_task_struct(struct task_struct *t);
/* Accesses to a freed task_struct seen so far (the explorer's build poisons
 * freed tasks; 0 elsewhere); reset: return the count and clear it. */
long rv_task_freed_touches(bool reset);
/* Number of live tasks in the instance (tests check for leaks). */
long task_count_live(void);

static __always_inline void set_current_state(int state)
{
	/* full barrier: the condition test after this must not be reordered
	 * before the store; pairs with the barrier in wake_up_process. */
	__atomic_store_n(&current->state, state, __ATOMIC_SEQ_CST);
}
static __always_inline void __set_current_state(int state)
{
	__atomic_store_n(&current->state, state, __ATOMIC_RELAXED);
}
/*
 * Note what the calling task is about to wait on (the next schedule(), or a
 * spin); schedule() clears it when it returns.  Cheap: three stores, on
 * paths that are about to sleep anyway.
 */
static __always_inline void rv_wait_note(int kind, const void *obj, const void *site)
{
	struct task_struct *t = rv_current;

	if (t) {
		t->wait.obj = obj;
		t->wait.site = site;
		__atomic_store_n(&t->wait.kind, kind, __ATOMIC_RELEASE);
	}
}
static __always_inline void rv_wait_done(void)
{
	struct task_struct *t = rv_current;

	if (t)
		__atomic_store_n(&t->wait.kind, 0, __ATOMIC_RELEASE);
}
/* Sleep until woken (state back to TASK_RUNNING); drops/retakes the BKL.
 * Without a note, the wait is recorded as RV_XP_SLEEP at the caller. */
void schedule(void);

/* ---- the watchdog's view (unit tests) --------------------------------------- */

/* Bumped by every wake-up, every end of a sleep and every contended spin
 * acquisition: a deadlock is waiters while it stands still. */
uint64_t rv_wait_progress(void);
void rv_wait_progressed(void);
struct rv_task_wait {
	pid_t pid;
	char comm[16];
	int state;		   /* enum task_state */
	int lock_depth;		   /* BKL */
	struct rv_wait_point wait; /* kind 0: not waiting */
	unsigned long host_thread; /* pthread_t, 0 if no thread has it */
};
/*
 * Copy up to max live tasks' wait points into out; returns the number of
 * live tasks (more than max: the rest left out), or -EBUSY when the task
 * list's lock stayed taken (it is tried, never waited for: the caller may
 * be a watchdog looking at a deadlock).
 */
int rv_tasks_waits(struct rv_task_wait *out, int max);
/* Wake `t` if it sleeps; returns true if it changed its state. */
bool wake_up_process(struct task_struct *t);
/* Signals: interruptible waits return -EINTR while one is pending. */
void task_signal(struct task_struct *t);
void task_clear_signal(struct task_struct *t);
static inline bool signal_pending(struct task_struct *t)
{
	return __atomic_load_n(&t->sigpending, __ATOMIC_ACQUIRE) != 0;
}

#endif /* RCUVFS_VFS_BASE_SCHED_H */
