/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/base.h - the kernel infrastructure rcuvfs's model is built from.
 *
 * This is the one public header of vfs/base.  Everything above it (vfs,
 * fdtable, locks, mm, fuse, tests) includes only this file from here.
 *
 * Contents, in order:
 *   compiler helpers (READ_ONCE, likely, OPTIMIZER_HIDE_VAR, container_of)
 *   list_head
 *   RCU glue over liburcu memb (rv_rcu_*)
 *   spinlock_t (test-and-test-and-set, bounded spin then sched_yield)
 *   seqcount_t / seqlock_t
 *   tasks and `current`, sleeping (set_current_state/schedule/wake_up_process),
 *     signals for interruptible waits, task_fork()/task_clone_thread() hooks
 *   wait queues, wait_event*, completion
 *   rw_semaphore, semaphore, the BKL (lock_kernel/unlock_kernel)
 *   lockref
 *   kmem_cache (per-thread magazines, SLAB_TYPESAFE_BY_RCU, ASan poisoning)
 *   percpu_counter (+ percpu_counter_init_many)
 *   injection points (RV_INJECT)
 *   stats registry (RV_STAT_DEFINE / rv_stat_inc)
 *   switches and the model instance
 *
 * Locking rules of the primitives themselves are stated next to each one.
 * Errors are negative errno values throughout.
 */
#ifndef RCUVFS_VFS_BASE_H
#define RCUVFS_VFS_BASE_H

#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE 1 /* inline liburcu fast paths (read_lock/unlock) */
#endif
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <urcu/urcu-memb.h>

/* ------------------------------------------------------------------ */
/* compiler helpers                                                    */
/* ------------------------------------------------------------------ */

#ifndef likely
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define __noinline     __attribute__((noinline))
#define __cacheline_aligned __attribute__((aligned(64)))
#define READ_ONCE(x)      (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)  (*(volatile __typeof__(x) *)&(x) = (v))
#define barrier()         __asm__ __volatile__("" ::: "memory")
#define smp_mb()          __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()         __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()         __atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_load_acquire(p)      __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)  __atomic_store_n((p), (v), __ATOMIC_RELEASE)
/* Hide a value from the optimizer so later uses depend on this load. */
#define OPTIMIZER_HIDE_VAR(var) __asm__("" : "=r"(var) : "0"(var))
#ifndef container_of
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#endif
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BUILD_BUG_ON(c) _Static_assert(!(c), #c)

static __always_inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	barrier();
#endif
}

/* ------------------------------------------------------------------ */
/* list_head (doubly linked, kernel shape)                             */
/* ------------------------------------------------------------------ */

struct list_head {
	struct list_head *next, *prev;
};
#define LIST_HEAD_INIT(name) { &(name), &(name) }
static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l;
	l->prev = l;
}
static inline void __list_add(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}
static inline void list_add(struct list_head *n, struct list_head *head)
{
	__list_add(n, head, head->next);
}
static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_add(n, head->prev, head);
}
static inline void list_del_init(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	INIT_LIST_HEAD(e);
}
static inline bool list_empty(const struct list_head *h)
{
	return READ_ONCE(h->next) == h;
}
static inline void list_move_tail(struct list_head *e, struct list_head *head)
{
	list_del_init(e);
	list_add_tail(e, head);
}
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member) list_entry((head)->next, type, member)
#define list_for_each_entry(pos, head, member)                                    \
	for (pos = list_entry((head)->next, __typeof__(*pos), member);           \
	     &pos->member != (head);                                              \
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_safe(pos, n, head, member)                            \
	for (pos = list_entry((head)->next, __typeof__(*pos), member),           \
	    n = list_entry(pos->member.next, __typeof__(*pos), member);          \
	     &pos->member != (head);                                              \
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

/* ------------------------------------------------------------------ */
/* RCU (liburcu memb flavour)                                          */
/* ------------------------------------------------------------------ */
/*
 * Every thread that enters a read-side section or calls call_rcu must be
 * registered.  Threads rcuvfs creates call rv_thread_enter(); threads it does
 * not create (libfuse workers) are registered lazily by rv_rcu_ensure(),
 * which the model calls at its entry points, and unregistered at thread exit
 * by a pthread key destructor.  Never block inside a read-side section.
 */
#define rcu_read_lock()          urcu_memb_read_lock()
#define rcu_read_unlock()        urcu_memb_read_unlock()
#define synchronize_rcu()        urcu_memb_synchronize_rcu()
#define call_rcu(head, fn)       urcu_memb_call_rcu((head), (fn))
#define rcu_barrier()            urcu_memb_barrier()
/* rcu_dereference(p) and rcu_assign_pointer(p, v) come from liburcu. */
struct rcu_head;

extern __thread int rv_rcu_registered;
void rv_rcu_register_slow(void);
/* Register the calling thread with liburcu if it is not yet (idempotent). */
static __always_inline void rv_rcu_ensure(void)
{
	if (unlikely(!rv_rcu_registered))
		rv_rcu_register_slow();
}
/* Explicitly unregister the calling thread (also done at thread exit). */
void rv_rcu_unregister(void);
/* Whether liburcu's memb flavour uses sys_membarrier (readers then pay no fence). */
bool rv_rcu_has_membarrier(void);
/* One line for start-up reports. */
const char *rv_rcu_describe(void);
/* call_rcu counting callbacks queued and run (gauges rcu_callbacks_queued/_done). */
void rv_call_rcu(struct rcu_head *head, void (*fn)(struct rcu_head *));

/* ------------------------------------------------------------------ */
/* spinlock_t                                                          */
/* ------------------------------------------------------------------ */
/*
 * Test-and-test-and-set on a 32-bit word.  Userspace cannot disable
 * preemption, so a waiter spins with PAUSE for RV_SPIN_LIMIT rounds and then
 * calls sched_yield(), letting a preempted holder run; figures that depend on
 * spinning say so.  32 bits so that lockref can pack it with a count.
 */
typedef struct {
	uint32_t val; /* 0 unlocked, 1 locked */
} spinlock_t;
#define __SPIN_LOCK_UNLOCKED { 0 }
#define DEFINE_SPINLOCK(x) spinlock_t x = __SPIN_LOCK_UNLOCKED
#define RV_SPIN_LIMIT 1024

void __spin_lock_slow(spinlock_t *l);
static inline void spin_lock_init(spinlock_t *l)
{
	l->val = 0;
}
static __always_inline bool spin_trylock(spinlock_t *l)
{
	return __atomic_load_n(&l->val, __ATOMIC_RELAXED) == 0 &&
	       __atomic_exchange_n(&l->val, 1, __ATOMIC_ACQUIRE) == 0;
}
static __always_inline void spin_lock(spinlock_t *l)
{
	if (likely(__atomic_exchange_n(&l->val, 1, __ATOMIC_ACQUIRE) == 0))
		return;
	__spin_lock_slow(l);
}
static __always_inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->val, 0, __ATOMIC_RELEASE);
}
static __always_inline bool spin_is_locked(const spinlock_t *l)
{
	return __atomic_load_n(&l->val, __ATOMIC_RELAXED) != 0;
}

/* ------------------------------------------------------------------ */
/* seqcount_t and seqlock_t                                            */
/* ------------------------------------------------------------------ */
/*
 * Writers of a seqcount_t must be serialized by the caller (a lock the
 * comment at the seqcount names).  Readers retry while the count is odd or
 * changed.  The read barriers pair with the write barriers in
 * write_seqcount_begin/end.
 */
typedef struct {
	uint32_t sequence;
} seqcount_t;
#define SEQCNT_ZERO { 0 }
static inline void seqcount_init(seqcount_t *s)
{
	s->sequence = 0;
}
static __always_inline uint32_t raw_read_seqcount(const seqcount_t *s)
{
	uint32_t seq = __atomic_load_n(&s->sequence, __ATOMIC_ACQUIRE);
	return seq;
}
static __always_inline uint32_t read_seqcount_begin(const seqcount_t *s)
{
	uint32_t seq;

	while (unlikely((seq = __atomic_load_n(&s->sequence, __ATOMIC_ACQUIRE)) & 1))
		cpu_relax();
	return seq;
}
static __always_inline bool read_seqcount_retry(const seqcount_t *s, uint32_t start)
{
	smp_rmb(); /* pairs with smp_wmb() in write_seqcount_begin/end */
	return unlikely(__atomic_load_n(&s->sequence, __ATOMIC_RELAXED) != start);
}
static __always_inline void write_seqcount_begin(seqcount_t *s)
{
	__atomic_store_n(&s->sequence, s->sequence + 1, __ATOMIC_RELAXED);
	smp_wmb(); /* pairs with smp_rmb() in read_seqcount_retry */
}
static __always_inline void write_seqcount_end(seqcount_t *s)
{
	smp_wmb();
	__atomic_store_n(&s->sequence, s->sequence + 1, __ATOMIC_RELAXED);
}
/* Invalidate all readers (d_seq on unhash) without a write section. */
static inline void write_seqcount_invalidate(seqcount_t *s)
{
	smp_wmb();
	__atomic_store_n(&s->sequence, s->sequence + 2, __ATOMIC_RELAXED);
}

typedef struct {
	seqcount_t seqcount;
	spinlock_t lock;
} seqlock_t;
static inline void seqlock_init(seqlock_t *sl)
{
	seqcount_init(&sl->seqcount);
	spin_lock_init(&sl->lock);
}
static __always_inline uint32_t read_seqbegin(const seqlock_t *sl)
{
	return read_seqcount_begin(&sl->seqcount);
}
static __always_inline bool read_seqretry(const seqlock_t *sl, uint32_t start)
{
	return read_seqcount_retry(&sl->seqcount, start);
}
static inline void write_seqlock(seqlock_t *sl)
{
	spin_lock(&sl->lock);
	write_seqcount_begin(&sl->seqcount);
}
static inline void write_sequnlock(seqlock_t *sl)
{
	write_seqcount_end(&sl->seqcount);
	spin_unlock(&sl->lock);
}

/* ------------------------------------------------------------------ */
/* tasks, `current`, sleeping                                          */
/* ------------------------------------------------------------------ */
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

enum task_state {
	TASK_RUNNING = 0,
	TASK_INTERRUPTIBLE = 1,
	TASK_UNINTERRUPTIBLE = 2,
};

struct task_struct {
	pid_t pid;                  /* unique per task, never reused in an instance */
	pid_t tgid;                 /* model process id (the group leader's pid) */
	struct files_struct *files; /* owned by fdtable/; NULL until installed */
	struct mm_struct *mm;       /* owned by mm/; NULL for "kernel threads" */
	int lock_depth;             /* BKL recursion depth; -1 when not held */
	int state;                  /* enum task_state; atomic */
	uint32_t futex;             /* sleep word: bumped by every wake-up */
	int sigpending;             /* atomic: a signal is pending (EINTR) */
	int refcount;               /* atomic: get_task_struct/put_task_struct */
	uint32_t flags;             /* PF_* */
	void *host_private;         /* free for the thread's owner (stress, fuse) */
	struct list_head all_tasks; /* on the instance's task list, under its lock */
	char comm[16];
};
#define PF_LAZY     0x1 /* created lazily for a thread rcuvfs did not create */
#define PF_ATTACHED 0x2 /* some thread's current (atomic bit) */

extern __thread struct task_struct *rv_current;
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
	int (*copy_files)(struct task_struct *child, struct task_struct *parent, unsigned long flags);
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
/* Sleep until woken (state back to TASK_RUNNING); drops/retakes the BKL. */
void schedule(void);
/* Wake `t` if it sleeps; returns true if it changed its state. */
bool wake_up_process(struct task_struct *t);
/* Signals: interruptible waits return -EINTR while one is pending. */
void task_signal(struct task_struct *t);
void task_clear_signal(struct task_struct *t);
static inline bool signal_pending(struct task_struct *t)
{
	return __atomic_load_n(&t->sigpending, __ATOMIC_ACQUIRE) != 0;
}

/* ------------------------------------------------------------------ */
/* wait queues, wait_event, completion                                 */
/* ------------------------------------------------------------------ */

struct wait_queue_entry {
	struct task_struct *task;
	struct list_head entry; /* on wait_queue_head.head, under its lock */
	int exclusive;
	int woken; /* set by the waker under the queue lock */
};
struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
};
void init_waitqueue_head(struct wait_queue_head *wq);
void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w, int state);
void prepare_to_wait_exclusive(struct wait_queue_head *wq, struct wait_queue_entry *w, int state);
void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w);
/* Wake all non-exclusive waiters and up to nr exclusive ones (nr<=0: all). */
void __wake_up(struct wait_queue_head *wq, int nr);
#define wake_up(wq)     __wake_up((wq), 1)
#define wake_up_all(wq) __wake_up((wq), 0)

#define wait_event(wq, cond)                                                       \
	do {                                                                       \
		struct wait_queue_entry __w = { 0 };                                     \
		for (;;) {                                                         \
			prepare_to_wait((wq), &__w, TASK_UNINTERRUPTIBLE);         \
			if (cond)                                                  \
				break;                                             \
			schedule();                                                \
		}                                                                  \
		finish_wait((wq), &__w);                                           \
	} while (0)
/* Evaluates to 0 when cond became true, -EINTR on a pending signal. */
#define wait_event_interruptible(wq, cond)                                         \
	({                                                                         \
		struct wait_queue_entry __w = { 0 };                                     \
		int __ret = 0;                                                     \
		for (;;) {                                                         \
			prepare_to_wait((wq), &__w, TASK_INTERRUPTIBLE);           \
			if (cond)                                                  \
				break;                                             \
			if (signal_pending(current)) {                             \
				__ret = -EINTR;                                    \
				break;                                             \
			}                                                          \
			schedule();                                                \
		}                                                                  \
		finish_wait((wq), &__w);                                           \
		__ret;                                                             \
	})

struct completion {
	unsigned int done; /* under wait.lock */
	struct wait_queue_head wait;
};
void init_completion(struct completion *c);
void complete(struct completion *c);
void complete_all(struct completion *c);
void wait_for_completion(struct completion *c);
int wait_for_completion_interruptible(struct completion *c);
bool try_wait_for_completion(struct completion *c);

/* ------------------------------------------------------------------ */
/* rw_semaphore                                                        */
/* ------------------------------------------------------------------ */
/*
 * count: bit 0 writer, bit 1 waiters, readers in units of 4.  Fast paths are
 * one cmpxchg; with waiters queued everything goes through wait_lock and
 * ownership is handed to the queue head (FIFO, writers not starved).
 * Sleepers use schedule() and so release the BKL while they wait.
 */
struct rw_semaphore {
	long count;
	spinlock_t wait_lock;
	struct list_head wait_list; /* under wait_lock */
};
void init_rwsem(struct rw_semaphore *sem);
void down_read(struct rw_semaphore *sem);
int down_read_trylock(struct rw_semaphore *sem); /* 1 on success */
void up_read(struct rw_semaphore *sem);
void down_write(struct rw_semaphore *sem);
int down_write_trylock(struct rw_semaphore *sem); /* 1 on success */
void up_write(struct rw_semaphore *sem);
void downgrade_write(struct rw_semaphore *sem);
bool rwsem_is_locked(const struct rw_semaphore *sem);
bool rwsem_is_write_locked(const struct rw_semaphore *sem);
bool rwsem_is_contended(struct rw_semaphore *sem); /* a waiter is queued */

/* ------------------------------------------------------------------ */
/* semaphore and the Big Kernel Lock                                   */
/* ------------------------------------------------------------------ */
/*
 * Two counting semaphores, named after their algorithm:
 *  sem_fifo  - 2.6.26-rc1's generic semaphore: up() with waiters hands the
 *              semaphore to the first waiter before it runs; nobody else can
 *              take it meanwhile.
 *  sem_steal - up() increments count and wakes one waiter; any running task
 *              may take the count first; the woken waiter re-checks and may
 *              sleep again.
 * Same small API: init, down, down_interruptible, down_trylock, up.
 */
struct semaphore {
	spinlock_t lock;
	int count;                  /* under lock */
	int steal;                  /* 0: FIFO hand-off, 1: stealing */
	struct list_head wait_list; /* under lock */
	uint64_t handoffs;          /* under lock */
	uint64_t sleeps;            /* under lock */
};
void sema_init_fifo(struct semaphore *sem, int count);
void sema_init_steal(struct semaphore *sem, int count);
void down(struct semaphore *sem);
int down_interruptible(struct semaphore *sem);
int down_trylock(struct semaphore *sem); /* 0 on success (kernel convention) */
void up(struct semaphore *sem);

/*
 * The BKL: recursive per task (current->lock_depth), released by schedule()
 * across every sleep of the model and re-taken after.  Its implementation is
 * the `bkl` switch (spin, sem-fifo, sem-steal), chosen at instance creation.
 * Counters: bkl_acquisitions, bkl_contended, bkl_sleeps, bkl_handoffs.
 */
void lock_kernel(void);
void unlock_kernel(void);
bool kernel_locked(void);
/* For schedule(): drop the BKL entirely, return the depth to restore. */
int bkl_release_for_sleep(struct task_struct *t);
void bkl_reacquire_after_sleep(struct task_struct *t, int depth);

/* ------------------------------------------------------------------ */
/* lockref                                                             */
/* ------------------------------------------------------------------ */
/*
 * A spinlock and a count in one 64-bit word.  get/put try a cmpxchg of the
 * whole word while the lock is free, up to LOCKREF_RETRIES times, and fall
 * back to the spinlock (counted as lockref_fallbacks).  Whether the retry
 * loop executes cpu_relax() is the `lockref_relax` switch (SEEDS.md s.2).
 * A dead lockref has a negative count.
 */
struct lockref {
	union {
		uint64_t lock_count;
		struct {
			spinlock_t lock;
			int32_t count;
		};
	};
};
#define LOCKREF_RETRIES 100
static inline void lockref_init(struct lockref *lr, int count)
{
	spin_lock_init(&lr->lock);
	lr->count = count;
}
void lockref_get(struct lockref *lr);
bool lockref_get_not_zero(struct lockref *lr);
bool lockref_get_not_dead(struct lockref *lr);
/* Decrement unless it would reach zero; false means "take the lock". */
bool lockref_put_not_zero(struct lockref *lr);
/* Decrement and return the new count, or -1 if the count is <= 0. */
int lockref_put_return(struct lockref *lr);
/* Decrement; if the count is <= 1, return false with the lock HELD, count untouched. */
bool lockref_put_or_lock(struct lockref *lr);
void lockref_mark_dead(struct lockref *lr); /* caller holds lr->lock */
static inline bool __lockref_is_dead(const struct lockref *lr)
{
	return READ_ONCE(lr->count) < 0;
}

/* ------------------------------------------------------------------ */
/* kmem_cache                                                          */
/* ------------------------------------------------------------------ */
/*
 * Object caches with per-thread magazines on the fast path (flushed to the
 * cache's depot when the thread exits) and a depot under a spinlock.
 *
 * SLAB_TYPESAFE_BY_RCU: a freed object may be handed out again at once, but
 * its memory remains an object of this cache (the constructor ran once, when
 * the memory first became an object) until a grace period after
 * kmem_cache_destroy.  RCU readers may therefore touch a freed object's
 * fields (refcount, lock) safely and must re-validate identity.
 *
 * Ordinary caches poison free objects with ASan's manual interface in the
 * sanitizer build, so any use after free is reported.
 *
 * Counters per cache: active objects (allocated, not freed) and total
 * objects (memory held).  kmem_cache_destroy reports (returns -EBUSY and
 * prints) objects still active: the leak check of teardown.
 *
 * Room left for sheaves / kfree_rcu batching (SEEDS.md s.8): the magazine
 * is the per-cpu sheaf, the depot is the barn.
 */
#define SLAB_TYPESAFE_BY_RCU 0x1u
#define SLAB_HWCACHE_ALIGN   0x2u
#define SLAB_NO_MAGAZINE     0x4u /* every alloc/free through the depot */

struct kmem_cache;
struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
				     unsigned int flags, void (*ctor)(void *));
/* Returns 0, or -EBUSY if objects were still active (they are reported). */
int kmem_cache_destroy(struct kmem_cache *c);
void *kmem_cache_alloc(struct kmem_cache *c);
void *kmem_cache_zalloc(struct kmem_cache *c); /* typesafe caches: only without a ctor */
void kmem_cache_free(struct kmem_cache *c, void *obj);
long kmem_cache_active(struct kmem_cache *c);
long kmem_cache_total(struct kmem_cache *c);
const char *kmem_cache_name(const struct kmem_cache *c);
size_t kmem_cache_size(const struct kmem_cache *c);
/* Flush the calling thread's magazines to the depots (also at thread exit). */
void kmem_cache_flush_thread(void);
/* /proc/slabinfo-like text, one line per cache; returns bytes written. */
size_t kmem_cache_format_slabinfo(char *buf, size_t len);
/* Sum of active objects over every live cache (leak checks). */
long kmem_cache_total_active(void);

/* ------------------------------------------------------------------ */
/* percpu_counter                                                      */
/* ------------------------------------------------------------------ */
/*
 * Per-cpu slots (indexed by sched_getcpu()) updated with relaxed atomics and
 * summed on read.  Every counter is registered on a global list under one
 * global spinlock (percpu_counters_lock), as the kernel's hotplug list is;
 * percpu_counter_init_many registers a group with one allocation and one
 * acquisition of that lock (SEEDS.md s.5).
 */
struct percpu_counter {
	int64_t *counters;     /* nr_cpu_ids slots (shared allocation for a group) */
	struct list_head list; /* on the global list, under percpu_counters_lock */
	int group_head;        /* 1 if this counter owns the group's allocation */
	int group_n;
};
int percpu_counter_init(struct percpu_counter *fbc, int64_t amount);
int percpu_counter_init_many(struct percpu_counter *fbc, int64_t amount, int n);
void percpu_counter_destroy(struct percpu_counter *fbc);
void percpu_counter_destroy_many(struct percpu_counter *fbc, int n);
void percpu_counter_add(struct percpu_counter *fbc, int64_t amount);
int64_t percpu_counter_sum(struct percpu_counter *fbc);
static inline void percpu_counter_inc(struct percpu_counter *fbc)
{
	percpu_counter_add(fbc, 1);
}
static inline void percpu_counter_dec(struct percpu_counter *fbc)
{
	percpu_counter_add(fbc, -1);
}
int rv_nr_cpu_ids(void);
long percpu_counter_registered(void); /* counters on the global list */

/* ------------------------------------------------------------------ */
/* injection points                                                    */
/* ------------------------------------------------------------------ */
/*
 * RV_INJECT("name") marks a place in model code where a test can install an
 * action.  Unarmed, it costs one load and a predictable branch of a global.
 * Actions (set by tests, looked up by name when the point is hit):
 *   RV_INJ_DELAY      sleep `arg` microseconds
 *   RV_INJ_PAUSE      park until rv_inject_release(name) (tests observe the
 *                     arrival with rv_inject_wait_arrivals)
 *   RV_INJ_WAIT_FOR   park until another thread has arrived at point `other`
 *   RV_INJ_CALLBACK   call fn(arg) in the hitting thread
 * `count` limits how many hits the action applies to (0 = every hit).
 * Arrivals are counted only at points that exist when hit: set a point
 * (a zero delay is enough) before starting threads whose arrival a test
 * waits for.
 * Parking spins/yields on plain atomics: it is legal inside RCU read-side
 * sections as long as the releasing thread does not wait for a grace period.
 */
enum rv_inject_action {
	RV_INJ_NONE = 0,
	RV_INJ_DELAY,
	RV_INJ_PAUSE,
	RV_INJ_WAIT_FOR,
	RV_INJ_CALLBACK,
};
extern int rv_inject_armed;
void rv_inject_hit(const char *name);
#define RV_INJECT(name)                                                   \
	do {                                                              \
		if (unlikely(__atomic_load_n(&rv_inject_armed, __ATOMIC_RELAXED))) \
			rv_inject_hit(name);                              \
	} while (0)
int rv_inject_set_delay(const char *name, unsigned long usec, int count);
int rv_inject_set_pause(const char *name, int count);
int rv_inject_set_wait_for(const char *name, const char *other, int count);
int rv_inject_set_callback(const char *name, void (*fn)(void *), void *arg, int count);
void rv_inject_clear(const char *name);
/* Disarm and forget every point; no thread may be parked at one. */
void rv_inject_clear_all(void);
/* Arrivals at `name` since it was set. */
long rv_inject_arrivals(const char *name);
/* Wait (bounded by timeout_ms; <0 forever) until `n` arrivals; 0 or -ETIMEDOUT. */
int rv_inject_wait_arrivals(const char *name, long n, long timeout_ms);
/* Release threads parked at a PAUSE point (all current and future hits). */
void rv_inject_release(const char *name);

/* ------------------------------------------------------------------ */
/* stats registry                                                      */
/* ------------------------------------------------------------------ */
/*
 * One registry of counters: lower_snake_case names that say unit and
 * subject (fget_retries, bkl_handoffs).  Each counter is per-thread and
 * summed on read; increments are plain single-writer stores.  Define a
 * counter once, in the .c file that owns it:
 *     RV_STAT_DEFINE(fget_retries, "fget slot reloads that found another file");
 * and bump it with rv_stat_inc(fget_retries).  Other files declare it with
 * RV_STAT_DECLARE(name).  Counters reset at instance creation.
 */
#define RV_STAT_MAX 256
struct rv_stat {
	const char *name;
	const char *help;
	int idx;
};
struct rv_stat_tls {
	uint64_t v[RV_STAT_MAX];
	struct list_head list; /* on the registry's thread list */
	int registered;
};
extern __thread struct rv_stat_tls rv_stat_tls;
void rv_stat_register(struct rv_stat *s);
void rv_stat_tls_register(void);
#define RV_STAT_DEFINE(nm, helptext)                                          \
	struct rv_stat rv_stat_##nm = { #nm, helptext, -1 };                  \
	__attribute__((constructor)) static void rv_stat_ctor_##nm(void)     \
	{                                                                     \
		rv_stat_register(&rv_stat_##nm);                              \
	}
#define RV_STAT_DECLARE(nm) extern struct rv_stat rv_stat_##nm
static __always_inline void rv_stat_add_idx(int idx, uint64_t n)
{
	if (unlikely(!rv_stat_tls.registered))
		rv_stat_tls_register();
	__atomic_store_n(&rv_stat_tls.v[idx], rv_stat_tls.v[idx] + n, __ATOMIC_RELAXED);
}
#define rv_stat_add(nm, n) rv_stat_add_idx(rv_stat_##nm.idx, (n))
#define rv_stat_inc(nm)    rv_stat_add_idx(rv_stat_##nm.idx, 1)
/* Read one counter by name (sum over threads); -ENOENT if unknown. */
int rv_stat_read(const char *name, uint64_t *out);
#define rv_stat_get(nm) rv_stat_sum_idx(rv_stat_##nm.idx)
uint64_t rv_stat_sum_idx(int idx);
/* Registered gauges: values computed at read time (slab objects, RCU). */
void rv_stat_register_gauge(const char *name, const char *help, uint64_t (*fn)(void));
/* Whether `name` is a gauge (a level computed at read time, not a count). */
bool rv_stat_is_gauge(const char *name);
/* Iterate every counter and gauge in registry order (counters first). */
void rv_stat_foreach(void (*fn)(const char *name, uint64_t value, const char *help, void *arg),
		     void *arg);
/* "name value\n" per counter; returns bytes needed (like snprintf). */
size_t rv_stats_format_text(char *buf, size_t len);
/* {"name": value, ...}; returns bytes needed (like snprintf). */
size_t rv_stats_format_json(char *buf, size_t len);
void rv_stats_reset(void);

/* ------------------------------------------------------------------ */
/* switches and the model instance                                     */
/* ------------------------------------------------------------------ */
/*
 * The historic designs, chosen at instance creation and fixed for its life.
 * One vocabulary everywhere (mount options, rcuvfs-stress -o, config, stats).
 * Hot paths read the global `rv_sw` (read-mostly, written only while no
 * instance is live).
 */
enum filelock_scheme { FILELOCK_GLOBAL = 0, FILELOCK_BKL, FILELOCK_INODE };
enum bkl_kind { BKL_SPIN = 0, BKL_SEM_FIFO, BKL_SEM_STEAL };
enum bkl_op_bits {
	BKL_OP_OPEN = 1u << 0,
	BKL_OP_RELEASE = 1u << 1,
	BKL_OP_SETATTR = 1u << 2,
	BKL_OP_IOCTL = 1u << 3,
	BKL_OP_LOCK = 1u << 4,
};
enum fileref_scheme { FILEREF_INC_NOT_ZERO = 0, FILEREF_FILE_REF };
enum fork_vma_lock_mode { FORK_VMA_LOCK_ALWAYS = 0, FORK_VMA_LOCK_ELIDE_SINGLE, FORK_VMA_LOCK_NEVER };
enum rss_counters_mode { RSS_COUNTERS_GROUP = 0, RSS_COUNTERS_SINGLE };

struct rv_switches {
	int filelock;      /* enum filelock_scheme */
	int bkl;           /* enum bkl_kind */
	unsigned bkl_ops;  /* enum bkl_op_bits */
	int fileref;       /* enum fileref_scheme */
	int lockref_relax; /* 0/1 */
	int pte_recheck;   /* 0/1 */
	int fork_vma_lock; /* enum fork_vma_lock_mode */
	int rss_counters;  /* enum rss_counters_mode */
	long cache_pages;  /* page-cache capacity in pages; 0 = unlimited */
	long io_latency_us;/* backing-store latency per folio */
	uint64_t size;     /* filesystem size limit in bytes; 0 = unlimited */
};
extern struct rv_switches rv_sw; /* the live instance's switches */
void rv_switches_default(struct rv_switches *sw);
/* Set one switch from text; 0, or -EINVAL with a message in err. */
int rv_switch_set(struct rv_switches *sw, const char *name, const char *value, char *err,
		  size_t errlen);
/* Whether `name` is a switch. */
bool rv_switch_known(const char *name);
/* Format one switch's value. */
int rv_switch_format(const struct rv_switches *sw, const char *name, char *buf, size_t len);
/* "name=value\n" for every switch; returns bytes needed. */
size_t rv_switches_format(const struct rv_switches *sw, char *buf, size_t len);
/* Help text: one line per switch with values and default. */
void rv_switches_help(FILE *out, const char *prefix);
/* Iterate switch names in table order. */
const char *rv_switch_name(int i); /* NULL past the end */

/*
 * The model instance.  Upper layers register init/teardown functions (their
 * caches, global locks) with rv_subsys_register, in layer order; they run at
 * rv_instance_create (in order) and rv_instance_destroy (reverse order).
 * Only one instance is live at a time.
 */
struct rv_subsys {
	const char *name;
	int (*init)(void);     /* 0 or -errno */
	int (*teardown)(void); /* 0, or -EBUSY on leaks (reported) */
	int order;             /* lower first: base 0, vfs 10, fdtable/locks/mm 20 */
	struct rv_subsys *next;
};
void rv_subsys_register(struct rv_subsys *s);
#define RV_SUBSYS(nm, ord, initfn, teardownfn)                                  \
	static struct rv_subsys rv_subsys_##nm = { #nm, initfn, teardownfn, ord, NULL }; \
	__attribute__((constructor)) static void rv_subsys_ctor_##nm(void)     \
	{                                                                       \
		rv_subsys_register(&rv_subsys_##nm);                            \
	}

/* Create the instance with these switches (NULL: defaults); 0 or -errno. */
int rv_instance_create(const struct rv_switches *sw);
/*
 * Tear down: runs teardown hooks, rcu_barrier, destroys caches.  Returns 0,
 * or -EBUSY when anything leaked (each leak is reported on stderr).
 * The calling thread's task (if any) must have exited first.
 */
int rv_instance_destroy(void);
bool rv_instance_live(void);

/* Monotonic nanoseconds (benchmarks, injection timeouts). */
uint64_t rv_now_ns(void);

#endif /* RCUVFS_VFS_BASE_H */
