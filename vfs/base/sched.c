// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/sched.c - model tasks, `current`, sleeping and waking, signals.
 *
 * Locking:
 *  - rv_tasks_lock (spinlock_t) protects the list of live tasks
 *    (task_struct.all_tasks) and nothing else.
 *  - task_struct.state, .futex, .sigpending, .refcount are atomics.
 *  - files/mm belong to the fdtable and mm hooks; they are written only by
 *    the hooks, at fork/clone (before the child runs) and at exit.
 *
 * Sleep protocol (the kernel's): a sleeper stores its state with a full
 * barrier (set_current_state), tests its condition, calls schedule().  A
 * waker makes the condition true, then wake_up_process() exchanges the state
 * to TASK_RUNNING (a full barrier, pairing with set_current_state) and, if
 * the task was not running, bumps the task's futex word and wakes it.
 * schedule() re-reads the futex word before re-checking the state, so a wake
 * between the check and FUTEX_WAIT makes FUTEX_WAIT return at once.
 */
#include "vfs/base/base.h"

#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread struct task_struct *rv_current;

static DEFINE_SPINLOCK(rv_tasks_lock);
static struct list_head rv_tasks = LIST_HEAD_INIT(rv_tasks);
static long rv_tasks_live;  /* under rv_tasks_lock */
static int rv_next_pid = 1; /* atomic */
static struct task_hooks rv_hooks[2];
static pthread_key_t rv_task_key;
static pthread_once_t rv_task_once = PTHREAD_ONCE_INIT;

RV_STAT_DEFINE(sched_sleeps, "schedule() calls that slept on the futex");
RV_STAT_DEFINE(sched_wakeups, "wake_up_process calls that woke a sleeping task");

static uint64_t rv_progress; /* atomic: see rv_wait_progress */

uint64_t rv_wait_progress(void)
{
	return __atomic_load_n(&rv_progress, __ATOMIC_RELAXED);
}

void rv_wait_progressed(void)
{
	__atomic_fetch_add(&rv_progress, 1, __ATOMIC_RELAXED);
}

int rv_tasks_waits(struct rv_task_wait *out, int max)
{
	struct task_struct *t;
	int n = 0, tries;

	for (tries = 0; !spin_trylock(&rv_tasks_lock); tries++) {
		if (tries > 1000)
			return -EBUSY;
		usleep(1000);
	}
	list_for_each_entry(t, &rv_tasks, all_tasks) {
		if (n < max) {
			struct rv_task_wait *w = &out[n];

			w->pid = t->pid;
			memcpy(w->comm, t->comm, sizeof(w->comm));
			w->state = __atomic_load_n(&t->state, __ATOMIC_RELAXED);
			w->lock_depth = t->lock_depth;
			w->wait.kind = __atomic_load_n(&t->wait.kind, __ATOMIC_ACQUIRE);
			w->wait.obj = t->wait.obj;
			w->wait.site = t->wait.site;
			w->host_thread = __atomic_load_n(&t->host_thread, __ATOMIC_RELAXED);
		}
		n++;
	}
	spin_unlock(&rv_tasks_lock);
	return n;
}

static long sys_futex(uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

void task_set_hooks(enum task_hook_slot slot, const struct task_hooks *hooks)
{
	if (hooks)
		rv_hooks[slot] = *hooks;
	else
		memset(&rv_hooks[slot], 0, sizeof(rv_hooks[slot]));
}

static struct task_struct *task_alloc(const char *comm, pid_t tgid)
{
	struct task_struct *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->pid = __atomic_fetch_add(&rv_next_pid, 1, __ATOMIC_RELAXED);
	t->tgid = tgid ? tgid : t->pid;
	t->lock_depth = -1;
	t->refcount = 1;
	snprintf(t->comm, sizeof(t->comm), "%s", comm ? comm : "task");
	INIT_LIST_HEAD(&t->all_tasks);
	return t;
}

static void task_link(struct task_struct *t)
{
	spin_lock(&rv_tasks_lock);
	list_add_tail(&t->all_tasks, &rv_tasks);
	rv_tasks_live++;
	spin_unlock(&rv_tasks_lock);
}

/* Run the copy hooks; on failure undo what was copied. */
static int task_copy(struct task_struct *child, struct task_struct *parent, unsigned long flags)
{
	const struct task_hooks *fh = &rv_hooks[TASK_HOOK_FILES];
	const struct task_hooks *mh = &rv_hooks[TASK_HOOK_MM];
	int err = 0;

	if (fh->copy_files) {
		err = fh->copy_files(child, parent, flags & CLONE_FILES);
		if (err)
			return err;
	}
	if (mh->copy_mm) {
		err = mh->copy_mm(child, parent, flags & CLONE_VM);
		if (err) {
			if (fh->exit_files)
				fh->exit_files(child);
			return err;
		}
	}
	return 0;
}

static struct task_struct *task_new(const char *comm, struct task_struct *parent,
				    unsigned long flags)
{
	struct task_struct *t;
	int err;

	t = task_alloc(comm, (flags & CLONE_VM) && parent ? parent->tgid : 0);
	if (!t)
		return NULL;
	err = task_copy(t, parent, flags);
	if (err) {
		free(t);
		errno = -err;
		return NULL;
	}
	task_link(t);
	return t;
}

struct task_struct *task_create_process(const char *comm)
{
	return task_new(comm, NULL, 0);
}

struct task_struct *task_fork(struct task_struct *parent)
{
	return task_new(parent->comm, parent, 0);
}

struct task_struct *task_clone_thread(struct task_struct *parent)
{
	return task_new(parent->comm, parent, CLONE_VM | CLONE_FILES);
}

void get_task_struct(struct task_struct *t)
{
	__atomic_fetch_add(&t->refcount, 1, __ATOMIC_RELAXED);
}

/*
 * The explorer's build without a sanitizer poisons a freed task_struct and
 * keeps the last RV_TASK_QUARANTINE of them before handing them back to
 * malloc, so that a wake-up of a task that has exited and been freed (the
 * use-after-free that a task reference held across the wake-up prevents,
 * rwsem_mark_wake's get_task_struct) is seen in the normal build too: like
 * a poisoned slab object, the freed task is recognised by its poison and
 * counted (rv_task_freed_touches; the instance's teardown fails on it).
 * The sanitizer build frees at once and lets ASan report the access.
 */
#if defined(RCUVFS_EXPLORE) && !defined(__SANITIZE_ADDRESS__)
#define RV_TASK_POISON	   (-0x6b6b)
#define RV_TASK_QUARANTINE 64
static struct task_struct *rv_task_quarantine[RV_TASK_QUARANTINE]; /* atomic slots */
static unsigned int rv_task_qnext;				   /* atomic */
#endif
static long rv_task_touches; /* atomic: accesses to freed tasks seen */

static void task_free(struct task_struct *t)
{
#ifdef RV_TASK_POISON
	unsigned int i = __atomic_fetch_add(&rv_task_qnext, 1, __ATOMIC_RELAXED);

	__atomic_store_n(&t->refcount, RV_TASK_POISON, __ATOMIC_RELEASE);
	free(__atomic_exchange_n(&rv_task_quarantine[i % RV_TASK_QUARANTINE], t, __ATOMIC_ACQ_REL));
#else
	free(t);
#endif
}

/* A task about to be touched by `what` must not have been freed. */
static inline void task_check_live(struct task_struct *t, const char *what)
{
#ifdef RV_TASK_POISON
	if (unlikely(__atomic_load_n(&t->refcount, __ATOMIC_ACQUIRE) == RV_TASK_POISON) &&
	    __atomic_fetch_add(&rv_task_touches, 1, __ATOMIC_RELAXED) == 0)
		fprintf(stderr, "rcuvfs: %s of task %d after it was freed (use after free)\n", what,
			t->pid);
#else
	(void)t;
	(void)what;
#endif
}

long rv_task_freed_touches(bool reset)
{
	return reset ? __atomic_exchange_n(&rv_task_touches, 0, __ATOMIC_RELAXED)
		     : __atomic_load_n(&rv_task_touches, __ATOMIC_RELAXED);
}

void put_task_struct(struct task_struct *t)
{
	if (__atomic_sub_fetch(&t->refcount, 1, __ATOMIC_ACQ_REL) == 0)
		task_free(t);
}

static void rv_task_thread_exit(void *arg)
{
	struct task_struct *t = arg;

	/* only lazily created tasks die with their thread */
	if (t && (t->flags & PF_LAZY) && rv_current == t)
		task_exit(t);
	else if (rv_current)
		task_detach();
	rv_current = NULL;
}

static void rv_task_key_init(void)
{
	if (pthread_key_create(&rv_task_key, rv_task_thread_exit)) {
		fprintf(stderr, "rcuvfs: pthread_key_create failed\n");
		exit(1);
	}
}

void task_attach(struct task_struct *t)
{
	pthread_once(&rv_task_once, rv_task_key_init);
	rv_rcu_ensure();
	if (rv_current == t)
		return;
	if (rv_current)
		task_detach();
	if (__atomic_fetch_or(&t->flags, PF_ATTACHED, __ATOMIC_ACQ_REL) & PF_ATTACHED)
		fprintf(stderr, "rcuvfs: task %d attached to two threads at once (a bug)\n",
			t->pid);
	rv_current = t;
	__atomic_store_n(&t->host_thread, (unsigned long)pthread_self(), __ATOMIC_RELAXED);
	pthread_setspecific(rv_task_key, t);
}

void task_detach(void)
{
	if (rv_current) {
		__atomic_store_n(&rv_current->host_thread, 0, __ATOMIC_RELAXED);
		__atomic_fetch_and(&rv_current->flags, ~PF_ATTACHED, __ATOMIC_ACQ_REL);
	}
	rv_current = NULL;
	pthread_once(&rv_task_once, rv_task_key_init);
	pthread_setspecific(rv_task_key, NULL);
}

struct task_struct *rv_current_slow(void)
{
	struct task_struct *t = task_create_process("lazy");

	if (!t) {
		fprintf(stderr, "rcuvfs: cannot create a task for this thread\n");
		exit(1);
	}
	t->flags |= PF_LAZY;
	task_attach(t);
	return t;
}

void task_exit(struct task_struct *t)
{
	const struct task_hooks *fh = &rv_hooks[TASK_HOOK_FILES];
	const struct task_hooks *mh = &rv_hooks[TASK_HOOK_MM];
	struct task_struct *saved = rv_current;

	/* exit hooks run with `current` == t, as do_exit does */
	rv_current = t;
	rv_rcu_ensure();
	if (t->lock_depth >= 0) {
		fprintf(stderr, "rcuvfs: task %d exits holding the BKL (depth %d)\n", t->pid,
			t->lock_depth);
		while (t->lock_depth >= 0)
			unlock_kernel();
	}
	if (fh->exit_files && t->files)
		fh->exit_files(t);
	if (mh->exit_mm && t->mm)
		mh->exit_mm(t);
	if (saved == t)
		task_detach(); /* rv_current == t here: clears PF_ATTACHED too */
	else
		rv_current = saved;

	spin_lock(&rv_tasks_lock);
	list_del_init(&t->all_tasks);
	rv_tasks_live--;
	spin_unlock(&rv_tasks_lock);
	put_task_struct(t);
}

long task_count_live(void)
{
	long n;

	spin_lock(&rv_tasks_lock);
	n = rv_tasks_live;
	spin_unlock(&rv_tasks_lock);
	return n;
}

/* Exit the calling thread's lazily created task, if any (instance teardown). */
void rv_task_exit_lazy_current(void);
void rv_task_exit_lazy_current(void)
{
	struct task_struct *t = rv_current;

	if (t && (t->flags & PF_LAZY))
		task_exit(t);
}

/*
 * BKL hand-over around sleeps.  bkl.c (the locks work) provides the real
 * definitions; these weak ones serve programs that never take the BKL, in
 * which lock_depth is always -1 and they are never called.
 */
__attribute__((weak)) int bkl_release_for_sleep(struct task_struct *t)
{
	return -1;
}

__attribute__((weak)) void bkl_reacquire_after_sleep(struct task_struct *t, int depth)
{
}

/* Explorer: a sleeper may run again once it was woken. */
static bool task_woken(const void *arg)
{
	const struct task_struct *t = arg;

	return __atomic_load_n(&t->state, __ATOMIC_SEQ_CST) == TASK_RUNNING;
}

void schedule(void)
{
	struct task_struct *t = current;
	int depth = -1;

	if (t->lock_depth >= 0)
		depth = bkl_release_for_sleep(t);
	rv_stat_inc(sched_sleeps);
	/* no note: a plain sleep; a note without a site (wait_event): here */
	if (!__atomic_load_n(&t->wait.kind, __ATOMIC_RELAXED))
		rv_wait_note(RV_XP_SLEEP, t, __builtin_return_address(0));
	else if (!t->wait.site)
		t->wait.site = __builtin_return_address(0);
	while (RV_XACTIVE() && !task_woken(t))
		rv_xblock(RV_XP_SLEEP, t, task_woken, t, __builtin_return_address(0));
	for (;;) {
		uint32_t seq = __atomic_load_n(&t->futex, __ATOMIC_ACQUIRE);

		if (__atomic_load_n(&t->state, __ATOMIC_SEQ_CST) == TASK_RUNNING)
			break;
		sys_futex(&t->futex, FUTEX_WAIT_PRIVATE, seq);
	}
	rv_wait_done();
	rv_wait_progressed();
	if (depth >= 0)
		bkl_reacquire_after_sleep(t, depth);
}

static void task_kick(struct task_struct *t)
{
	__atomic_fetch_add(&t->futex, 1, __ATOMIC_RELEASE);
	sys_futex(&t->futex, FUTEX_WAKE_PRIVATE, 1);
	rv_stat_inc(sched_wakeups);
	rv_wait_progressed();
}

bool wake_up_process(struct task_struct *t)
{
	RV_XPOINT(RV_XP_WAKE, t, 0);
	task_check_live(t, "wake_up_process");
	/* seq_cst exchange: full barrier, pairs with set_current_state() */
	if (__atomic_exchange_n(&t->state, TASK_RUNNING, __ATOMIC_SEQ_CST) == TASK_RUNNING)
		return false;
	task_kick(t);
	return true;
}

void task_signal(struct task_struct *t)
{
	int s = TASK_INTERRUPTIBLE;

	__atomic_store_n(&t->sigpending, 1, __ATOMIC_SEQ_CST);
	/* pairs with the sleeper's set_current_state + signal_pending check */
	if (__atomic_compare_exchange_n(&t->state, &s, TASK_RUNNING, false, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST))
		task_kick(t);
}

void task_clear_signal(struct task_struct *t)
{
	__atomic_store_n(&t->sigpending, 0, __ATOMIC_RELEASE);
}
