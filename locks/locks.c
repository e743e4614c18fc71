// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * locks/locks.c - the lock engine: flock, POSIX and OFD locks, the blocker
 * tree, deadlock detection, sleeping and deferred waits, the global list of
 * held locks.  It follows fs/locks.c; the model's own parts are beside it:
 * owner.c (per-owner ENOLCK accounting), grant.c (the per-thread queue that
 * runs deferred grants), proc.c (the /proc/locks listing and the counts)
 * and check.c (the invariant checker); internal.h is what they share.
 *
 * Data.  Each inode that ever had a lock has a file_lock_context with two
 * lists of held locks, flc_flock and flc_posix (OFD locks are POSIX locks
 * whose owner is the struct file).  flc_posix is in Linux's order (see
 * posix_lock_ctx): each owner's locks contiguous and sorted by start, a new
 * owner's at the tail, so F_GETLK and a waiter find the conflicting lock
 * Linux finds; flc_flock in arrival order.  Requests that wait hang in a
 * blocker tree under the held lock they conflict with (fl_blocker, fl_
 * blocked_requests, fl_blocked_member): a new waiter that conflicts with a
 * waiter already there becomes that waiter's child, so an unlock wakes only
 * the first level, as Linux 5.x does.  A waiter queued under a POSIX
 * (non-OFD) lock or request is also on blocked_hash, keyed by owner, for
 * deadlock detection across inodes (__locks_insert_block).
 * Held locks are on a global list (one list, or LOCK_SHARDS per-thread
 * shards under the inode scheme) for the /proc/locks listing.
 * Free records kept for reuse: each POSIX/OFD owner's accounting record
 * holds a spare (owner_acct), each context one flock record (flc_spare,
 * under the list lock); contexts are on lk_ctx_list (lk_ctx_lock, taken
 * only when a context comes or goes, and at teardown) so teardown can free
 * the spares before the record cache goes.
 *
 * Uncontended fast paths (same results as the general code, which handles
 * everything they decline): posix_lock_fast (a lock by an owner holding
 * nothing on the inode that conflicts with nothing; an unlock of an
 * owner's one lock that the range covers), and the no-wait entries
 * __fcntl_setlk_nowait and flock_nowait, whose requests never enter the
 * blocker tree.
 *
 * Locking, by the `filelock` switch (snapshotted at instance creation):
 *
 *   field / action                 global          bkl       inode
 *   ctx lists, held lock fields    file_lock_lock  BKL       ctx->flc_lock
 *   blocker tree, blocked_hash     file_lock_lock  BKL       blocked_lock_lock
 *   global list                    file_lock_lock  BKL       shard->lock
 *
 * Lock order under `inode`: flc_lock -> blocked_lock_lock, flc_lock ->
 * shard->lock, and (listing only) shard->lock -> blocked_lock_lock; the
 * engine never takes a shard lock while holding blocked_lock_lock.  Under
 * `global` and `bkl` the "nested" acquisitions are no-ops: one lock covers
 * everything.  file_lock_lock is a spinlock_t: nothing sleeps or allocates
 * under it (allocations happen before, frees after, waits between an
 * explicit drop and retake), as in Matthew Wilcox's 2008 patch.  The BKL
 * is released by schedule() when a waiter sleeps.
 *
 * A held lock's fields are written under its list lock; the listing reads
 * them under the global-list lock, so in-place range changes also take the
 * shard lock under `inode`.  A held lock is freed only after it has been
 * taken off every list and has no waiters (waking them detaches them under
 * the blocked lock), so a walker holding either lock never sees a freed one.
 *
 * Waking.  A sleeping request waits on its own fl_wait for
 * list_empty(&fl_blocked_member); the waker unlinks it, wakes it, and
 * store-releases fl_blocker = NULL last (paired with the acquire in
 * locks_delete_block), after which it never touches the request again.
 * A deferred request (FL_DEFERRED) is instead put on the waking thread's
 * grant queue with a reference; the queue is run when that thread leaves
 * its outermost locks/ entry point, after every lock-list lock and the BKL
 * taken by bkl_ops=lock are dropped: it retries the request and calls
 * req->grant(req, result) when it completes.  Grants found while running
 * the queue (including from grant callbacks that unlock) are appended to
 * the same queue instead of recursing.
 *
 * Claiming.  req->state moves WAITING -> GRANTED (a retry found no conflict,
 * under the list lock, before inserting the lock; or an error result) or
 * WAITING -> CANCELLED (locks_cancel_req, under the blocked lock) by one
 * compare-and-swap: exactly one side wins.  A retry re-inserts a request in
 * the tree only after re-reading WAITING under the blocked lock, so a
 * cancelled request is never re-queued.
 */
#include "locks/internal.h"
#include "locks/testing.h"

#include <stdlib.h>
#include <string.h>

RV_STAT_DEFINE(locks_posix_calls, "POSIX/OFD lock, unlock and test requests");
RV_STAT_DEFINE(locks_flock_calls, "flock lock and unlock requests");
RV_STAT_DEFINE(locks_conflicts, "lock requests that found a conflicting lock");
RV_STAT_DEFINE(locks_waits, "sleeps of tasks waiting for a file lock");
RV_STAT_DEFINE(locks_deferred, "lock requests queued to be granted later (deferred)");
RV_STAT_DEFINE(locks_grants, "deferred lock requests completed through their grant callback");
RV_STAT_DEFINE(locks_deadlocks, "lock requests refused with EDEADLK");
RV_STAT_DEFINE(locks_enolck, "lock requests refused with ENOLCK (owner limit or memory)");
RV_STAT_DEFINE(locks_interrupted, "lock waits ended by a signal or a cancel (EINTR)");

int lk_scheme;	      /* enum filelock_scheme of the live instance */
bool lk_bkl_ops_lock; /* bkl_ops contains `lock` */
DEFINE_SPINLOCK(file_lock_lock);
DEFINE_SPINLOCK(blocked_lock_lock);
struct list_head blocked_hash[BLOCKED_HASH_SIZE]; /* blocked lock */
long nr_blocked;				  /* blocked lock */
struct lock_shard lock_shards[LOCK_SHARDS];
struct kmem_cache *filelock_cache;
static struct kmem_cache *flreq_cache;
long lk_nr_ctx; /* atomic: contexts allocated */
/* Every context, so teardown can free their spare records before the cache
 * goes (contexts themselves go with their inodes, after the teardown). */
static DEFINE_SPINLOCK(lk_ctx_lock);
static struct list_head lk_ctx_list = LIST_HEAD_INIT(lk_ctx_list); /* lk_ctx_lock */
#ifdef RCUVFS_EXPLORE
/* The explorer's broken design: __locks_move_blocks leaves fl_blocker. */
static bool lk_move_blocks_unfixed;
#else
#define lk_move_blocks_unfixed false
#endif

#ifdef RCUVFS_EXPLORE
/*
 * The explorer build keeps the requests that may have waiters of their own
 * while they hang in no tree (woken, not yet retried): a plain request from
 * locks_lock_wait's start to its end, a deferred one from allocation to
 * free.  locks_check_live walks their waiters too.  Slots change by atomic
 * exchange (no lock: a lock would add scheduling points); the check runs
 * while every explored task is parked.
 */
struct file_lock *lk_xreq[LK_XREQ_MAX];
int lk_xreq_lost; /* atomic: requests that found no slot */

static void lk_xreq_add(struct file_lock *fl)
{
	for (int i = 0; i < LK_XREQ_MAX; i++) {
		struct file_lock *none = NULL;

		if (__atomic_compare_exchange_n(&lk_xreq[i], &none, fl, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return;
	}
	__atomic_fetch_add(&lk_xreq_lost, 1, __ATOMIC_RELAXED);
}

static void lk_xreq_del(struct file_lock *fl)
{
	for (int i = 0; i < LK_XREQ_MAX; i++) {
		struct file_lock *want = fl;

		if (__atomic_compare_exchange_n(&lk_xreq[i], &want, NULL, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return;
	}
	__atomic_fetch_sub(&lk_xreq_lost, 1, __ATOMIC_RELAXED);
}
#else
static inline void lk_xreq_add(struct file_lock *fl)
{
	(void)fl;
}

static inline void lk_xreq_del(struct file_lock *fl)
{
	(void)fl;
}
#endif

static __thread struct lock_shard *lk_shard; /* lk_my_shard */
static int lk_shard_next;		     /* atomic */

/* ------------------------------------------------------------------ */
/* the scheme's locks                                                  */
/* ------------------------------------------------------------------ */

/*
 * The POSIX fast path (__posix_lock_fast, from __fcntl_setlk_nowait) is
 * compiled once per scheme: its helpers take `sch`, a constant
 * enum filelock_scheme, or LK_ANY (every other caller) to read lk_scheme
 * at run time.  The scheme is fixed for an instance's life, as every
 * context's flc_lockp.
 */
#define LK_ANY (-1)

/* The scheme's list lock: resolved once per context (flc_lockp), or known. */
static __always_inline void __flc_lock(struct file_lock_context *ctx, int sch)
{
	if (sch == FILELOCK_BKL)
		lock_kernel();
	else if (sch == FILELOCK_GLOBAL)
		spin_lock(&file_lock_lock);
	else if (sch == FILELOCK_INODE)
		spin_lock(&ctx->flc_lock);
	else if (likely(ctx->flc_lockp))
		spin_lock(ctx->flc_lockp);
	else
		lock_kernel();
}

static __always_inline void __flc_unlock(struct file_lock_context *ctx, int sch)
{
	if (sch == FILELOCK_BKL)
		unlock_kernel();
	else if (sch == FILELOCK_GLOBAL)
		spin_unlock(&file_lock_lock);
	else if (sch == FILELOCK_INODE)
		spin_unlock(&ctx->flc_lock);
	else if (likely(ctx->flc_lockp))
		spin_unlock(ctx->flc_lockp);
	else
		unlock_kernel();
}

static inline void flc_lock(struct file_lock_context *ctx)
{
	__flc_lock(ctx, LK_ANY);
}

static inline void flc_unlock(struct file_lock_context *ctx)
{
	__flc_unlock(ctx, LK_ANY);
}

/* The wait-graph lock when a list lock is already held. */
static inline void blocked_lock_nested(void)
{
	if (lk_scheme == FILELOCK_INODE)
		spin_lock(&blocked_lock_lock);
}

static inline void blocked_unlock_nested(void)
{
	if (lk_scheme == FILELOCK_INODE)
		spin_unlock(&blocked_lock_lock);
}

/* The wait-graph lock on its own. */
static inline void blocked_lock(void)
{
	if (lk_scheme == FILELOCK_INODE)
		spin_lock(&blocked_lock_lock);
	else if (lk_scheme == FILELOCK_BKL)
		lock_kernel();
	else
		spin_lock(&file_lock_lock);
}

static inline void blocked_unlock(void)
{
	if (lk_scheme == FILELOCK_INODE)
		spin_unlock(&blocked_lock_lock);
	else if (lk_scheme == FILELOCK_BKL)
		unlock_kernel();
	else
		spin_unlock(&file_lock_lock);
}

static __always_inline bool lk_is_inode(int sch)
{
	return sch == LK_ANY ? lk_scheme == FILELOCK_INODE : sch == FILELOCK_INODE;
}

static __always_inline void __shard_lock_nested(struct lock_shard *s, int sch)
{
	if (lk_is_inode(sch))
		spin_lock(&s->lock);
}

static __always_inline void __shard_unlock_nested(struct lock_shard *s, int sch)
{
	if (lk_is_inode(sch))
		spin_unlock(&s->lock);
}

static inline void shard_lock_nested(struct lock_shard *s)
{
	__shard_lock_nested(s, LK_ANY);
}

static inline void shard_unlock_nested(struct lock_shard *s)
{
	__shard_unlock_nested(s, LK_ANY);
}

/* ------------------------------------------------------------------ */
/* lock records                                                        */
/* ------------------------------------------------------------------ */

/* Every field, one store each (cheaper than memset + the list heads). */
static __always_inline void __locks_init_lock(struct file_lock *fl)
{
	fl->fl_blocker = NULL;
	INIT_LIST_HEAD(&fl->fl_list);
	INIT_LIST_HEAD(&fl->fl_link);
	INIT_LIST_HEAD(&fl->fl_blocked_requests);
	INIT_LIST_HEAD(&fl->fl_blocked_member);
	fl->fl_owner = NULL;
	fl->fl_flags = 0;
	fl->fl_type = 0;
	fl->fl_link_shard = NULL;
	fl->fl_pid = 0;
	fl->fl_start = 0;
	fl->fl_end = OFFSET_MAX;
	fl->fl_file = NULL;
	fl->fl_ctx = NULL;
	fl->fl_req = NULL;
	init_waitqueue_head(&fl->fl_wait);
}

void locks_init_lock(struct file_lock *fl)
{
	__locks_init_lock(fl);
}

/*
 * A request on the caller's stack that never waits (no FL_SLEEP): only the
 * fields such a request is read through.  It never enters the tree or a
 * list, so fl_list, fl_link, fl_blocked_member and fl_wait stay unset;
 * fl_blocked_requests is set (locks_move_blocks and locks_delete_block look
 * at it).  Requests that may wait use __locks_init_lock.
 */
static __always_inline void locks_init_nowait_request(struct file_lock *fl)
{
	fl->fl_blocker = NULL;
	INIT_LIST_HEAD(&fl->fl_blocked_requests);
	fl->fl_owner = NULL;
	fl->fl_flags = 0;
	fl->fl_type = 0;
	fl->fl_pid = 0;
	fl->fl_start = 0;
	fl->fl_end = OFFSET_MAX;
	fl->fl_file = NULL;
	fl->fl_ctx = NULL;
	fl->fl_req = NULL;
}

/*
 * filelock_cache's constructor.  A record goes back to the cache in this
 * state: off every list (list_del_init), no waiters (woken and detached),
 * no blocker (held records never wait), fl_wait unused (only requests are
 * slept on); so an allocation need not initialise it again and sets only
 * the scalars below.  locks_free_lock checks it in sanitizer builds.
 */
static void locks_ctor(void *obj)
{
	locks_init_lock(obj);
}

static struct file_lock *locks_alloc_lock(void)
{
	struct file_lock *fl = kmem_cache_alloc(filelock_cache);

	if (fl) {
		fl->fl_flags = 0;
		fl->fl_ctx = NULL;
		fl->fl_req = NULL;
	}
	return fl;
}

#if defined(__SANITIZE_ADDRESS__) || defined(RCUVFS_SANITIZE)
static void locks_check_constructed(const struct file_lock *fl)
{
	if (fl->fl_blocker || !list_empty(&fl->fl_list) || !list_empty(&fl->fl_link) ||
	    !list_empty(&fl->fl_blocked_requests) || !list_empty(&fl->fl_blocked_member) ||
	    !list_empty(&fl->fl_wait.head)) {
		fprintf(stderr, "rcuvfs: locks: lock record %p freed while still linked\n",
			(void *)fl);
		abort();
	}
}
#else
static inline void locks_check_constructed(const struct file_lock *fl)
{
	(void)fl;
}
#endif

/* Back to the cache, in the constructed state (see locks_ctor). */
static inline void locks_free_record(struct file_lock *fl)
{
	locks_check_constructed(fl);
	kmem_cache_free(filelock_cache, fl);
}

/*
 * Free a record that is on no list; uncharges its owner.  flock records are
 * not charged: a description holds at most one per inode, so they are
 * bounded by the open files themselves.
 */
static void locks_free_lock(struct file_lock *fl)
{
	if (fl->fl_flags & FL_FLOCK) {
		locks_free_record(fl);
		return;
	}
	locks_check_constructed(fl);
	owner_uncharge(fl->fl_owner, 1, fl);
}

/* Preallocate n records charged to owner (before any list lock). */
static int locks_prealloc(fl_owner_t owner, int n, struct file_lock **a, struct file_lock **b)
{
	*a = *b = NULL;
	if (!n)
		return 0;
	if (owner_charge(owner, n, a))
		goto enolck;
	if (*a) {
		/* the owner's spare: constructed, as locks_alloc_lock gives */
		(*a)->fl_flags = 0;
		(*a)->fl_ctx = NULL;
		(*a)->fl_req = NULL;
	} else {
		*a = locks_alloc_lock();
	}
	if (n > 1)
		*b = locks_alloc_lock();
	if (!*a || (n > 1 && !*b)) {
		if (*a)
			locks_free_record(*a);
		if (*b)
			locks_free_record(*b);
		*a = *b = NULL;
		owner_uncharge(owner, n, NULL);
		goto enolck;
	}
	(*a)->fl_owner = owner;
	if (*b)
		(*b)->fl_owner = owner;
	return 0;
enolck:
	rv_stat_inc(locks_enolck);
	return -ENOLCK;
}

/* Copy what a held lock keeps of a request (or of another held lock). */
static void locks_copy_lock(struct file_lock *new, const struct file_lock *fl)
{
	new->fl_owner = fl->fl_owner;
	new->fl_flags = fl->fl_flags &(FL_POSIX | FL_FLOCK | FL_OFDLCK);
	new->fl_type = fl->fl_type;
	new->fl_pid = fl->fl_pid;
	new->fl_start = fl->fl_start;
	new->fl_end = fl->fl_end;
	new->fl_file = fl->fl_file;
}

static void locks_copy_conflock(struct file_lock *to, const struct file_lock *fl)
{
	locks_copy_lock(to, fl);
}

static void locks_dispose_list(struct list_head *dispose)
{
	while (!list_empty(dispose)) {
		struct file_lock *fl = list_first_entry(dispose, struct file_lock, fl_list);

		list_del_init(&fl->fl_list);
		locks_free_lock(fl);
	}
}

/* ------------------------------------------------------------------ */
/* global list of held locks                                           */
/* ------------------------------------------------------------------ */

/* The inode scheme's shard of this thread (Linux's this_cpu_ptr of
 * file_lock_list): assigned round robin at the thread's first lock. */
static __noinline struct lock_shard *lk_my_shard_slow(void)
{
	lk_shard =
	    &lock_shards[__atomic_fetch_add(&lk_shard_next, 1, __ATOMIC_RELAXED) % LOCK_SHARDS];
	return lk_shard;
}

static __always_inline struct lock_shard *lk_my_shard(void)
{
	struct lock_shard *s = lk_shard;

	return likely(s != NULL) ? s : lk_my_shard_slow();
}

/* Called under the list lock. */
static __always_inline void __locks_insert_global_locks(struct file_lock *fl, int sch)
{
	struct lock_shard *s = lk_is_inode(sch) ? lk_my_shard() : &lock_shards[0];

	fl->fl_link_shard = s;
	__shard_lock_nested(s, sch);
	list_add_tail(&fl->fl_link, &s->list);
	s->nr++;
	__shard_unlock_nested(s, sch);
}

static __always_inline void __locks_delete_global_locks(struct file_lock *fl, int sch)
{
	struct lock_shard *s = fl->fl_link_shard;

	__shard_lock_nested(s, sch);
	list_del_init(&fl->fl_link);
	s->nr--;
	__shard_unlock_nested(s, sch);
}

static __always_inline void locks_insert_global_locks(struct file_lock *fl)
{
	__locks_insert_global_locks(fl, LK_ANY);
}

static __always_inline void locks_delete_global_locks(struct file_lock *fl)
{
	__locks_delete_global_locks(fl, LK_ANY);
}

/* Change a held lock's range in place (the listing reads it). */
static void locks_set_range(struct file_lock *fl, int64_t start, int64_t end)
{
	struct lock_shard *s = fl->fl_link_shard;

	shard_lock_nested(s);
	fl->fl_start = start;
	fl->fl_end = end;
	shard_unlock_nested(s);
}

/* ------------------------------------------------------------------ */
/* the blocker tree                                                    */
/* ------------------------------------------------------------------ */

/* Unlink a waiter from its blocker and the hash.  Blocked lock held. */
static void __locks_delete_block(struct file_lock *waiter)
{
	if (!list_empty(&waiter->fl_link))
		list_del_init(&waiter->fl_link);
	if (!list_empty(&waiter->fl_blocked_member)) {
		list_del_init(&waiter->fl_blocked_member);
		nr_blocked--;
	}
}

static void locks_get_req(struct file_lock_req *req)
{
	__atomic_fetch_add(&req->refcount, 1, __ATOMIC_RELAXED);
}

/* Wake every direct waiter of blocker.  Blocked lock held. */
static void __locks_wake_up_blocks(struct file_lock *blocker)
{
	while (!list_empty(&blocker->fl_blocked_requests)) {
		struct file_lock *waiter = list_first_entry(&blocker->fl_blocked_requests,
							    struct file_lock, fl_blocked_member);

		if (RV_MUTANT(locks_wake_done_early))
			smp_store_release(&waiter->fl_blocker, NULL);
		__locks_delete_block(waiter);
		if (waiter->fl_flags & FL_DEFERRED) {
			struct file_lock_req *req = waiter->fl_req;

			/* retried by this thread once it dropped its locks */
			locks_get_req(req);
			lk_queue_grant(req);
		} else if (!RV_MUTANT(locks_wake_up_lost)) {
			wake_up_all(&waiter->fl_wait);
		}
		/* the "done" point: paired with the acquire in locks_delete_block */
		smp_store_release(&waiter->fl_blocker, NULL);
	}
}

/* Wake the waiters of a held lock.  List lock held. */
static void locks_wake_up_blocks(struct file_lock *blocker)
{
	/* waiters are added to a held lock only under the list lock */
	if (list_empty(&blocker->fl_blocked_requests))
		return;
	blocked_lock_nested();
	__locks_wake_up_blocks(blocker);
	blocked_unlock_nested();
}

/*
 * Queue waiter behind blocker; if a waiter already queued there conflicts
 * with it, behind that one instead (recursively).  Blocked lock held.
 * As Linux 6.x __locks_insert_block (the test is on the blocker since OFD
 * locks came, 3.15):
 * the waiter enters the deadlock graph (blocked_hash) when the blocker it
 * finally queues under is a POSIX, non-OFD lock or request, whatever the
 * waiter's own flags: an OFD waiter queued under a process's lock is in it,
 * a process's waiter queued under an OFD request is not.
 */
static void __locks_insert_block(struct file_lock *blocker, struct file_lock *waiter,
				 bool (*conflict)(const struct file_lock *,
						  const struct file_lock *))
{
	struct file_lock *fl;

new_blocker:
	list_for_each_entry(fl, &blocker->fl_blocked_requests, fl_blocked_member) {
		if (conflict(fl, waiter)) {
			blocker = fl;
			goto new_blocker;
		}
	}
	waiter->fl_blocker = blocker;
	list_add_tail(&waiter->fl_blocked_member, &blocker->fl_blocked_requests);
	if ((blocker->fl_flags & (FL_POSIX | FL_OFDLCK)) == FL_POSIX)
		list_add_tail(&waiter->fl_link, &blocked_hash[blocked_hash_key(waiter->fl_owner)]);
	nr_blocked++;
}

/*
 * Take a request out of the tree (if it is in it) and wake the requests
 * waiting behind it.  Called by the requester when it is done waiting.
 */
static __noinline void __locks_delete_block_slow(struct file_lock *waiter)
{
	blocked_lock();
	__locks_wake_up_blocks(waiter);
	if (waiter->fl_blocker)
		__locks_delete_block(waiter);
	smp_store_release(&waiter->fl_blocker, NULL);
	blocked_unlock();
}

static __always_inline void locks_delete_block(struct file_lock *waiter)
{
	/* paired with the release in __locks_wake_up_blocks */
	if (!smp_load_acquire(&waiter->fl_blocker) &&
	    (RV_MUTANT(delete_block_ignores_waiters) || list_empty(&waiter->fl_blocked_requests)))
		return;
	__locks_delete_block_slow(waiter);
}

/* The held lock at the root of the tree the owner of block_fl waits in. */
static struct file_lock *what_owner_is_waiting_for(struct file_lock *block_fl)
{
	struct file_lock *fl;

	list_for_each_entry(fl, &blocked_hash[blocked_hash_key(block_fl->fl_owner)], fl_link) {
		if (fl->fl_owner == block_fl->fl_owner) {
			while (fl->fl_blocker && !RV_MUTANT(deadlock_no_chain_walk))
				fl = fl->fl_blocker;
			return fl;
		}
	}
	return NULL;
}

/* Would caller_fl waiting on block_fl close a cycle?  Blocked lock held. */
static bool posix_locks_deadlock(struct file_lock *caller_fl, struct file_lock *block_fl)
{
	int i = 0;

	if (caller_fl->fl_flags & FL_OFDLCK)
		return false;
	while ((block_fl = what_owner_is_waiting_for(block_fl))) {
		if (i++ > MAX_DEADLK_ITERATIONS)
			return false;
		if (block_fl->fl_owner == caller_fl->fl_owner)
			return true;
	}
	return false;
}

/* Claim a deferred request for completion (no-op for plain requests). */
static bool lk_claim(struct file_lock *request)
{
	int s = FLR_WAITING;

	if (!(request->fl_flags & FL_DEFERRED))
		return true;
	return __atomic_compare_exchange_n(&request->fl_req->state, &s, FLR_GRANTED, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/*
 * Queue request behind blocker (conflict path with FL_SLEEP).  List lock
 * held.  Returns FILE_LOCK_DEFERRED, -EDEADLK, or -ECANCELED for a
 * cancelled request.  As Linux 6.x posix_lock_inode: the requests queued
 * behind this one are woken before the deadlock check, so the check never
 * walks from one of them up to this request: a woken waiter that blocks
 * again would otherwise see a cycle through its own waiters that is not
 * there.  The woken ones re-evaluate; flock
 * (flock_lock_inode -> locks_insert_block) wakes them too, after queueing.
 */
static int locks_block_on(struct file_lock *blocker, struct file_lock *request,
			  bool (*conflict)(const struct file_lock *, const struct file_lock *))
{
	int error = FILE_LOCK_DEFERRED;

	blocked_lock_nested();
	if ((request->fl_flags & FL_DEFERRED) &&
	    __atomic_load_n(&request->fl_req->state, __ATOMIC_ACQUIRE) != FLR_WAITING) {
		error = -ECANCELED;
	} else {
		if (!RV_MUTANT(block_on_no_wake_first))
			__locks_wake_up_blocks(request);
		if (conflict == posix_locks_conflict && !RV_MUTANT(posix_deadlock_no_check) &&
		    posix_locks_deadlock(request, blocker))
			error = -EDEADLK;
		else
			__locks_insert_block(blocker, request, conflict);
	}
	blocked_unlock_nested();
	return error;
}

/*
 * A granted request's waiters move to the lock record that now stands for
 * it (Linux 6.x locks_move_blocks, called where posix_lock_inode and
 * flock_lock_inode insert a new record): they stay queued, in their order
 * and graph membership, instead of waking.  List lock held (no waiter can be
 * added to the request meanwhile).
 */
static __noinline void __locks_move_blocks(struct file_lock *new, struct file_lock *request)
{
	blocked_lock_nested();
	while (!list_empty(&request->fl_blocked_requests)) {
		struct file_lock *fl = list_first_entry(&request->fl_blocked_requests,
							struct file_lock, fl_blocked_member);

		list_move_tail(&fl->fl_blocked_member, &new->fl_blocked_requests);
		if (!lk_move_blocks_unfixed)
			fl->fl_blocker = new;
	}
	blocked_unlock_nested();
}

#ifdef RCUVFS_EXPLORE
/*
 * The explorer's broken design: locks_move_blocks as first merged for Linux 5.0 (NeilBrown's
 * "fs/locks: allow a lock request to block other requests"), which spliced
 * the request's waiters onto the new record and then set fl_blocker on
 * each entry of the request's list, now empty ("locks: fix error in
 * locks_move_blocks()" walks the new record's list instead).  The moved
 * waiters keep fl_blocker pointing at the finished request until the new
 * record wakes them: a state no end-of-run check sees.
 */
void locks_move_blocks_unfixed_for_test(bool on)
{
	lk_move_blocks_unfixed = on;
}
#endif

static __always_inline void locks_move_blocks(struct file_lock *new, struct file_lock *request)
{
	if (unlikely(!list_empty(&request->fl_blocked_requests)))
		__locks_move_blocks(new, request);
}

/* ------------------------------------------------------------------ */
/* held-lock list changes (list lock held)                             */
/* ------------------------------------------------------------------ */

/* Insert fl before `before` (the list head: at the tail). */
static __always_inline void __locks_insert_lock_ctx(struct file_lock *fl,
						    struct file_lock_context *ctx,
						    struct list_head *before, int sch)
{
	fl->fl_ctx = ctx;
	list_add_tail(&fl->fl_list, before);
	__locks_insert_global_locks(fl, sch);
}

static __always_inline void
locks_insert_lock_ctx(struct file_lock *fl, struct file_lock_context *ctx, struct list_head *before)
{
	__locks_insert_lock_ctx(fl, ctx, before, LK_ANY);
}

static void locks_delete_lock_ctx(struct file_lock *fl, struct list_head *dispose)
{
	locks_delete_global_locks(fl);
	list_del_init(&fl->fl_list);
	locks_wake_up_blocks(fl);
	list_add(&fl->fl_list, dispose);
}

/* ------------------------------------------------------------------ */
/* contexts                                                            */
/* ------------------------------------------------------------------ */

/* Install a context on inode (first lock); ctx is the NULL just read. */
static __noinline struct file_lock_context *locks_new_lock_context(struct inode *inode,
								   struct file_lock_context *ctx)
{
	struct file_lock_context *new = rv_calloc("flctx", 1, sizeof(*new));

	if (!new)
		return NULL;
	spin_lock_init(&new->flc_lock);
	new->flc_lockp = lk_scheme == FILELOCK_INODE ? &new->flc_lock
			 : lk_scheme == FILELOCK_BKL ? NULL
						     : &file_lock_lock;
	INIT_LIST_HEAD(&new->flc_flock);
	INIT_LIST_HEAD(&new->flc_posix);
	new->flc_ino = inode->i_ino;
	if (!__atomic_compare_exchange_n(&inode->i_flctx, &ctx, new, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		free(new); /* somebody else installed one: ctx is it */
		return ctx;
	}
	spin_lock(&lk_ctx_lock);
	list_add(&new->flc_all, &lk_ctx_list);
	spin_unlock(&lk_ctx_lock);
	__atomic_fetch_add(&lk_nr_ctx, 1, __ATOMIC_RELAXED);
	return new;
}

static __always_inline struct file_lock_context *locks_get_lock_context(struct inode *inode,
									int type)
{
	/* paired with the release of the cmpxchg in locks_new_lock_context */
	struct file_lock_context *ctx = smp_load_acquire(&inode->i_flctx);

	if (likely(ctx) || type == F_UNLCK)
		return ctx;
	return locks_new_lock_context(inode, ctx);
}

void locks_free_lock_context(struct inode *inode)
{
	struct file_lock_context *ctx = inode->i_flctx;

	if (!ctx)
		return;
	if (!list_empty(&ctx->flc_flock) || !list_empty(&ctx->flc_posix))
		fprintf(stderr, "rcuvfs: locks: inode %llu freed with locks held\n",
			(unsigned long long)ctx->flc_ino);
	inode->i_flctx = NULL;
	spin_lock(&lk_ctx_lock);
	list_del_init(&ctx->flc_all);
	spin_unlock(&lk_ctx_lock);
	__atomic_fetch_sub(&lk_nr_ctx, 1, __ATOMIC_RELAXED);
	if (ctx->flc_spare)
		locks_free_record(ctx->flc_spare);
	free(ctx);
}

/* ------------------------------------------------------------------ */
/* POSIX and OFD                                                       */
/* ------------------------------------------------------------------ */

/*
 * Apply a POSIX/OFD request to ctx.  Returns 0, FILE_LOCK_DEFERRED (queued
 * in the tree), -EAGAIN (conflict, no FL_SLEEP; *conflock filled), -EDEADLK,
 * -ENOLCK, or -ECANCELED (a deferred request was cancelled).
 *
 * Follows Linux 6.x posix_lock_inode (the list walk is unchanged since
 * 2.6): the first conflicting lock in list order blocks the request; then
 * the owner's locks, which are contiguous in the list and sorted by start,
 * are walked from the owner's first one.  A lock of the same type that
 * overlaps or touches the request is extended in place and stands for it
 * (its waiters are not woken: it only grew), later ones it absorbs are
 * deleted; a lock of the other type that the request covers is replaced at
 * its place by the new record (the old one's waiters wake); partial overlaps
 * are trimmed in place (their waiters wake); a split keeps the original
 * record as the right part and inserts the left part before it.  A new
 * record goes before the first of the owner's locks that lies wholly after
 * it, or at the tail (a new owner's locks start at the tail).  Unlike
 * Linux, which allocates two records up front, the second one (a split) is
 * allocated only when the lists show a split, with the list lock dropped.
 */
static int posix_lock_ctx(struct file_lock_context *ctx, struct file_lock *request,
			  struct file_lock *conflock)
{
	struct file_lock *new_fl, *new_fl2 = NULL, *fl, *tmp;
	struct file_lock *cur, *left, *right;
	struct list_head dispose = LIST_HEAD_INIT(dispose);
	int64_t start = request->fl_start, end = request->fl_end;
	bool unlock = request->fl_type == F_UNLCK;
	bool added, split;
	int error;

	rv_stat_inc(locks_posix_calls);
	/* the lock record; a split record only if the lists say so (below) */
	new_fl = NULL;
	if (!unlock) {
		error = locks_prealloc(request->fl_owner, 1, &new_fl, &tmp);
		if (error)
			return error;
	}
retry:
	flc_lock(ctx);
	/*
	 * One pass: the first conflicting lock in list order (the owner's own
	 * never conflict), and whether one of the owner's locks will be split
	 * in two (a second record).
	 */
	split = false;
	list_for_each_entry(fl, &ctx->flc_posix, fl_list) {
		if (fl->fl_owner == request->fl_owner) {
			if (fl->fl_type != request->fl_type && fl->fl_start < start &&
			    fl->fl_end > end)
				split = true;
			continue;
		}
		if (unlock || !posix_locks_conflict(request, fl))
			continue;
		rv_stat_inc(locks_conflicts);
		if (conflock)
			locks_copy_conflock(conflock, fl);
		error = -EAGAIN;
		if (request->fl_flags & FL_SLEEP)
			error = locks_block_on(fl, request, posix_locks_conflict);
		goto out;
	}
	if (split && !new_fl2) {
		/* allocate outside the list lock and look again */
		flc_unlock(ctx);
		error = locks_prealloc(request->fl_owner, 1, &new_fl2, &tmp);
		if (error)
			goto out_unlocked;
		goto retry;
	}
	if (!lk_claim(request)) {
		error = -ECANCELED;
		goto out;
	}
	error = 0;

	/*
	 * [start, end] is the request's range, grown by merges; cur is the
	 * record that stands for the request once it merged with or replaced
	 * one (Linux reassigns `request`); `added` as in Linux (an unlock
	 * never adds a record).
	 */
	cur = left = right = NULL;
	added = unlock;
	list_for_each_entry(fl, &ctx->flc_posix, fl_list)
		if (fl->fl_owner == request->fl_owner)
			break;
	for (tmp = list_entry(fl->fl_list.next, struct file_lock, fl_list);
	     &fl->fl_list != &ctx->flc_posix && fl->fl_owner == request->fl_owner;
	     fl = tmp, tmp = list_entry(tmp->fl_list.next, struct file_lock, fl_list)) {
		if (fl->fl_type == request->fl_type) {
			/* start - 1, not end + 1: end may be OFFSET_MAX */
			if (fl->fl_end < start - 1)
				continue;
			if (fl->fl_start - 1 > end)
				break; /* wholly after: the new record goes here */
			if (fl->fl_start < start)
				start = fl->fl_start;
			if (fl->fl_end > end)
				end = fl->fl_end;
			if (added) {
				locks_delete_lock_ctx(fl, &dispose);
				continue;
			}
			cur = fl;
			added = true;
			continue;
		}
		if (fl->fl_end < start)
			continue;
		if (fl->fl_start > end)
			break;
		if (fl->fl_start < start)
			left = fl;
		if (fl->fl_end > end) {
			right = fl;
			break;
		}
		if (fl->fl_start >= start) {
			/* wholly covered */
			if (added) {
				locks_delete_lock_ctx(fl, &dispose);
				continue;
			}
			/* the new record takes fl's place */
			locks_copy_lock(new_fl, request);
			locks_move_blocks(new_fl, request);
			cur = new_fl;
			new_fl = NULL;
			locks_insert_lock_ctx(cur, ctx, &fl->fl_list);
			locks_delete_lock_ctx(fl, &dispose);
			added = true;
		}
	}
	/* fl: where the walk stopped (the list head when it ran off the end) */
	if (!added) {
		locks_copy_lock(new_fl, request);
		locks_move_blocks(new_fl, request);
		cur = new_fl;
		new_fl = NULL;
		cur->fl_start = start;
		cur->fl_end = end;
		locks_insert_lock_ctx(cur, ctx, &fl->fl_list);
		fl = cur;
	} else if (cur && (cur->fl_start != start || cur->fl_end != end)) {
		locks_set_range(cur, start, end);
	}
	if (right) {
		if (left == right) {
			/* split: a copy before fl becomes the left part */
			left = new_fl2;
			new_fl2 = NULL;
			locks_copy_lock(left, right);
			locks_insert_lock_ctx(left, ctx, &fl->fl_list);
		}
		locks_set_range(right, end + 1, right->fl_end);
		locks_wake_up_blocks(right);
	}
	if (left) {
		locks_set_range(left, left->fl_start, start - 1);
		locks_wake_up_blocks(left);
	}
out:
	flc_unlock(ctx);
out_unlocked:
	locks_dispose_list(&dispose);
	if (new_fl)
		locks_free_lock(new_fl);
	if (new_fl2)
		locks_free_lock(new_fl2);
	if (error == -EDEADLK)
		rv_stat_inc(locks_deadlocks);
	return error;
}

/*
 * The two uncontended cases a lock+unlock loop makes, without the general
 * walk and with the same result as it (posix_lock_ctx, Linux 6.x
 * posix_lock_inode):
 *
 *   lock    the owner holds no lock on the inode and no lock conflicts:
 *           the general walk finds nothing to merge, replace or split and
 *           puts the new record at the tail, as here;
 *   unlock  the owner holds at most one lock on the inode, and it lies
 *           wholly inside the range: the general walk deletes it (waking
 *           its waiters), as here; none: nothing to do.
 *
 * Anything else (a lock of the owner's to merge with or trim, a conflict,
 * a deferred request's claim) returns LK_SLOW with nothing changed, and the
 * caller runs the general walk.  The record is charged before the list lock
 * as there; on LK_SLOW it is given back and the general walk charges again.
 */
#define LK_SLOW 1

static __always_inline int __posix_lock_fast(struct file_lock_context *ctx,
					     struct file_lock *request, bool may_have_waiters,
					     int sch)
{
	struct file_lock *fl, *mine = NULL, *new_fl = NULL, *unused;
	fl_owner_t owner = request->fl_owner;
	bool unlock = request->fl_type == F_UNLCK;

	if (!unlock) {
		/* a spare was a held record or an unused preallocated one: its
		 * fl_req is NULL (only requests have one); copy and insert set
		 * the rest */
		new_fl = owner_charge_spare(owner);
		if (unlikely(!new_fl) && locks_prealloc(owner, 1, &new_fl, &unused)) {
			rv_stat_inc(locks_posix_calls);
			return -ENOLCK;
		}
	}
	__flc_lock(ctx, sch);
	list_for_each_entry(fl, &ctx->flc_posix, fl_list) {
		if (fl->fl_owner == owner) {
			if (!unlock || mine)
				goto slow;
			mine = fl;
		} else if (!unlock && posix_locks_conflict(request, fl)) {
			goto slow;
		}
	}
	if (!unlock) {
		locks_copy_lock(new_fl, request);
		/* a request that never waited has no waiters of its own */
		if (may_have_waiters)
			locks_move_blocks(new_fl, request);
		__locks_insert_lock_ctx(new_fl, ctx, &ctx->flc_posix, sch);
	} else if (mine) {
		if (mine->fl_start < request->fl_start || mine->fl_end > request->fl_end)
			goto slow;
		__locks_delete_global_locks(mine, sch);
		list_del_init(&mine->fl_list);
		locks_wake_up_blocks(mine);
	}
	__flc_unlock(ctx, sch);
	rv_stat_inc(locks_posix_calls);
	if (mine) {
		/* locks_free_lock of a POSIX record */
		locks_check_constructed(mine);
		owner_uncharge_one(owner, mine);
	}
	return 0;
slow:
	__flc_unlock(ctx, sch);
	if (new_fl)
		locks_free_lock(new_fl);
	return LK_SLOW;
}

static __always_inline int posix_lock_fast(struct file_lock_context *ctx, struct file_lock *request,
					   bool may_have_waiters)
{
	return __posix_lock_fast(ctx, request, may_have_waiters, LK_ANY);
}

/*
 * posix_test_lock (Linux 6.x, with posix_test_locks_conflict since 6.4): the
 * first lock in list order that conflicts with fl, or, for an fl of type
 * F_UNLCK, the first lock of fl's own owner that overlaps it.
 */
static bool posix_test_locks_conflict(const struct file_lock *caller, const struct file_lock *sys)
{
	if (caller->fl_type == F_UNLCK)
		return caller->fl_owner == sys->fl_owner && locks_overlap(caller, sys);
	return posix_locks_conflict(caller, sys);
}

static void posix_test_lock_ctx(struct file_lock_context *ctx, struct file_lock *fl)
{
	struct file_lock *cfl;

	rv_stat_inc(locks_posix_calls);
	if (!ctx || list_empty(&ctx->flc_posix)) {
		fl->fl_type = F_UNLCK;
		return;
	}
	flc_lock(ctx);
	list_for_each_entry(cfl, &ctx->flc_posix, fl_list) {
		if (posix_test_locks_conflict(fl, cfl)) {
			locks_copy_conflock(fl, cfl);
			goto out;
		}
	}
	fl->fl_type = F_UNLCK;
out:
	flc_unlock(ctx);
}

/* ------------------------------------------------------------------ */
/* flock                                                               */
/* ------------------------------------------------------------------ */

/*
 * Apply a flock request (Linux 6.x flock_lock_inode).  A conversion drops
 * the old lock first (so a refused LOCK_NB conversion leaves none, as Linux
 * does).  The record comes from ctx->flc_spare when there is one, and a
 * record that leaves the list becomes the spare when there is none, so a
 * description that locks and unlocks in turn allocates nothing (Linux
 * allocates before taking flc_lock; the spare is taken under it, and only
 * without one is the lock dropped to allocate, before anything was looked
 * at).
 */
static __always_inline int __flock_lock_ctx(struct file_lock_context *ctx,
					    struct file_lock *request, bool may_have_waiters)
{
	struct file_lock *new_fl = NULL, *old = NULL, *fl;
	bool unlock = request->fl_type == F_UNLCK;
	int error = 0;

	rv_stat_inc(locks_flock_calls);
	flc_lock(ctx);
	if (!unlock) {
		new_fl = ctx->flc_spare;
		ctx->flc_spare = NULL;
		if (unlikely(!new_fl)) {
			flc_unlock(ctx);
			new_fl = locks_alloc_lock();
			if (!new_fl)
				return -ENOMEM; /* flock_lock_inode's answer, not fcntl's ENOLCK */
			flc_lock(ctx);
		}
		/* not charged to the owner (see locks_free_lock); fl_req is NULL
		 * (a spare was a held record, only requests have one) */
	}
	list_for_each_entry(fl, &ctx->flc_flock, fl_list) {
		if (request->fl_file != fl->fl_file)
			continue;
		if (request->fl_type == fl->fl_type) {
			error = lk_claim(request) ? 0 : -ECANCELED;
			goto out;
		}
		/* a description holds one flock lock per inode: no dispose list */
		locks_delete_global_locks(fl);
		list_del_init(&fl->fl_list);
		if (!RV_MUTANT(flock_convert_no_wake))
			locks_wake_up_blocks(fl);
		old = fl;
		break;
	}
	if (unlock) {
		error = lk_claim(request) ? 0 : -ECANCELED;
		goto out;
	}
	list_for_each_entry(fl, &ctx->flc_flock, fl_list) {
		if (!flock_locks_conflict(request, fl))
			continue;
		rv_stat_inc(locks_conflicts);
		error = -EAGAIN;
		if (request->fl_flags & FL_SLEEP)
			error = locks_block_on(fl, request, flock_locks_conflict);
		goto out;
	}
	if (!lk_claim(request)) {
		error = -ECANCELED;
		goto out;
	}
	/* flock_lock_inode (6.x): waiters move, the record goes to the tail;
	 * a request that never waited has no waiters */
	locks_copy_lock(new_fl, request);
	if (may_have_waiters)
		locks_move_blocks(new_fl, request);
	locks_insert_lock_ctx(new_fl, ctx, &ctx->flc_flock);
	new_fl = NULL;
out:
	/* records off every list, in the constructed state: one is kept */
	if (!ctx->flc_spare) {
		if (old) {
			locks_check_constructed(old);
			ctx->flc_spare = old;
			old = NULL;
		} else if (new_fl) {
			ctx->flc_spare = new_fl;
			new_fl = NULL;
		}
	}
	flc_unlock(ctx);
	/* flock records are not charged (locks_free_lock) */
	if (old)
		locks_free_record(old);
	if (new_fl)
		locks_free_record(new_fl);
	return error;
}

static int flock_lock_ctx(struct file_lock_context *ctx, struct file_lock *request)
{
	return __flock_lock_ctx(ctx, request, true);
}

/* ------------------------------------------------------------------ */
/* waiting: sleeping and deferred                                      */
/* ------------------------------------------------------------------ */

static __always_inline int locks_apply(struct file_lock_context *ctx, struct file_lock *fl,
				       struct file_lock *conflock)
{
	int error;

	if (fl->fl_flags & FL_FLOCK)
		return flock_lock_ctx(ctx, fl);
	if (!(fl->fl_flags & FL_DEFERRED)) {
		error = posix_lock_fast(ctx, fl, true);
		if (error != LK_SLOW)
			return error;
	}
	return posix_lock_ctx(ctx, fl, conflock);
}

/* Apply fl, sleeping (interruptibly) while it conflicts if FL_SLEEP. */
static __always_inline int locks_lock_wait(struct file_lock_context *ctx, struct file_lock *fl,
					   struct file_lock *conflock)
{
	int error;

	lk_xreq_add(fl);
	for (;;) {
		error = locks_apply(ctx, fl, conflock);
		if (error != FILE_LOCK_DEFERRED)
			break;
		rv_stat_inc(locks_waits);
		RV_INJECT("locks_before_wait");
		error = wait_event_interruptible(&fl->fl_wait, list_empty(&fl->fl_blocked_member));
		if (error) {
			rv_stat_inc(locks_interrupted);
			break;
		}
		/* woken: the same point as a deferred request's retry */
		RV_INJECT("locks_before_retry");
		if (RV_MUTANT(locks_wait_no_retry))
			break; /* mutant: woken taken for granted */
	}
	locks_delete_block(fl);
	lk_xreq_del(fl);
	return error;
}

struct file_lock_req *locks_alloc_req(void (*grant)(struct file_lock_req *, int), void *priv)
{
	struct file_lock_req *req = flreq_cache ? kmem_cache_alloc(flreq_cache) : NULL;

	if (!req)
		return NULL;
	__locks_init_lock(&req->fl);
	req->fl.fl_req = req;
	req->state = FLR_IDLE;
	req->refcount = 1;
	req->grant_next = NULL;
	req->grant = grant;
	req->private = priv;
	lk_xreq_add(&req->fl);
	return req;
}

void locks_put_req(struct file_lock_req *req)
{
	if (__atomic_sub_fetch(&req->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
		lk_xreq_del(&req->fl);
		kmem_cache_free(flreq_cache, req);
	}
}

/* Retry a woken deferred request; complete it through grant() if done. */
void locks_retry_req(struct file_lock_req *req)
{
	struct file_lock *fl = &req->fl;
	int error;

	if (__atomic_load_n(&req->state, __ATOMIC_ACQUIRE) != FLR_WAITING)
		return;
	/*
	 * Under the BKL when bkl_ops=lock, as the entry points (2.6 held it
	 * across the whole of fcntl_setlk and flock, retries included); the
	 * queue runs after lk_exit dropped the caller's, and grant() runs
	 * without it.
	 */
	if (lk_bkl_ops_lock)
		lock_kernel();
	RV_INJECT("locks_before_retry");
	error = locks_apply(fl->fl_ctx, fl, NULL);
	if (error != FILE_LOCK_DEFERRED)
		locks_delete_block(fl);
	if (lk_bkl_ops_lock)
		unlock_kernel();
	if (error == FILE_LOCK_DEFERRED)
		return; /* queued again */
	if (error == -ECANCELED)
		return;
	/* 0 was claimed under the list lock; an error still needs the claim */
	if (error && !lk_claim(fl))
		return;
	rv_stat_inc(locks_grants);
	req->grant(req, error);
}

static int locks_submit_ctx(struct file_lock_context *ctx, struct file_lock_req *req)
{
	struct file_lock *fl = &req->fl;
	int error, s;

	fl->fl_flags |= FL_DEFERRED | FL_SLEEP;
	fl->fl_req = req;
	fl->fl_ctx = ctx;
	__atomic_store_n(&req->state, FLR_WAITING, __ATOMIC_RELEASE);
	error = locks_apply(ctx, fl, NULL);
	if (error == FILE_LOCK_DEFERRED) {
		rv_stat_inc(locks_deferred);
		return error;
	}
	locks_delete_block(fl);
	if (error == -ECANCELED)
		return -EINTR;
	if (error) {
		s = FLR_WAITING;
		if (!__atomic_compare_exchange_n(&req->state, &s, FLR_IDLE, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			return -EINTR;
	}
	return error;
}

int locks_cancel_req(struct file_lock_req *req)
{
	int s = FLR_WAITING, ret = 0;
	bool claimed;

	lk_enter();
	if (RV_MUTANT(cancel_claim_unlocked)) {
		/* tests the state, then takes the lock and stores: not one claim */
		claimed = __atomic_load_n(&req->state, __ATOMIC_ACQUIRE) == FLR_WAITING;
		blocked_lock();
		if (claimed)
			__atomic_store_n(&req->state, FLR_CANCELLED, __ATOMIC_RELEASE);
	} else {
		blocked_lock();
		claimed = __atomic_compare_exchange_n(&req->state, &s, FLR_CANCELLED, false,
						      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	}
	if (claimed) {
		ret = -EINTR;
		if (!RV_MUTANT(cancel_no_wake_behind))
			__locks_wake_up_blocks(&req->fl);
		if (req->fl.fl_blocker)
			__locks_delete_block(&req->fl);
		smp_store_release(&req->fl.fl_blocker, NULL);
	}
	blocked_unlock();
	lk_exit();
	if (ret)
		rv_stat_inc(locks_interrupted);
	return ret;
}

/* ------------------------------------------------------------------ */
/* the file level                                                      */
/* ------------------------------------------------------------------ */

static bool lk_file_ok(struct file *filp)
{
	return filp && filp->f_inode && !(filp->f_mode & FMODE_PATH);
}

/*
 * The body of posix_lock_file (FL_POSIX) and flock_lock_inode_wait
 * (FL_FLOCK, owned by the open file): apply fl to filp's inode, sleeping
 * while it conflicts if FL_SLEEP.
 */
static __always_inline int __lk_lock_file_wait(struct file *filp, struct file_lock *fl,
					       unsigned int kind, struct file_lock *conflock)
{
	struct file_lock_context *ctx;
	int error;

	/* posix_lock_inode and flock_lock_inode: no context, no memory */
	ctx = locks_get_lock_context(filp->f_inode, fl->fl_type);
	if (!ctx)
		return fl->fl_type == F_UNLCK ? 0 : -ENOMEM;
	fl->fl_flags |= kind;
	fl->fl_file = filp;
	if (kind == FL_FLOCK)
		fl->fl_owner = filp;
	lk_enter();
	error = locks_lock_wait(ctx, fl, conflock);
	lk_exit();
	return error;
}

static int lk_lock_file_wait(struct file *filp, struct file_lock *fl, unsigned int kind,
			     struct file_lock *conflock)
{
	if (!lk_file_ok(filp))
		return -EBADF;
	return __lk_lock_file_wait(filp, fl, kind, conflock);
}

int posix_lock_file(struct file *filp, struct file_lock *fl, struct file_lock *conflock)
{
	return lk_lock_file_wait(filp, fl, FL_POSIX, conflock);
}

void posix_test_lock(struct file *filp, struct file_lock *fl)
{

	if (!lk_file_ok(filp)) {
		fl->fl_type = F_UNLCK;
		return;
	}
	fl->fl_flags |= FL_POSIX;
	lk_enter();
	posix_test_lock_ctx(smp_load_acquire(&filp->f_inode->i_flctx), fl);
	lk_exit();
}

int flock_lock_inode_wait(struct file *filp, struct file_lock *fl)
{
	return lk_lock_file_wait(filp, fl, FL_FLOCK, NULL);
}

int locks_submit_req(struct file *filp, struct file_lock_req *req)
{
	struct file_lock_context *ctx;
	int error;

	if (!lk_file_ok(filp))
		return -EBADF;
	if (__atomic_load_n(&req->state, __ATOMIC_ACQUIRE) == FLR_WAITING)
		return -EBUSY;
	ctx = locks_get_lock_context(filp->f_inode, req->fl.fl_type);
	if (!ctx)
		return req->fl.fl_type == F_UNLCK ? 0 : -ENOMEM;
	req->fl.fl_file = filp;
	if (req->fl.fl_flags & FL_FLOCK)
		req->fl.fl_owner = filp;
	lk_enter();
	if (req->fl.fl_type == F_UNLCK) {
		/* an unlock never waits: no deferral needed */
		req->fl.fl_flags &= ~(FL_SLEEP | FL_DEFERRED);
		error = locks_apply(ctx, &req->fl, NULL);
	} else {
		error = locks_submit_ctx(ctx, req);
	}
	lk_exit();
	return error;
}

/*
 * flock(2)'s checks of cmd, made before it looks at the fd (Linux 5.16+
 * SYSCALL_DEFINE2(flock)): LOCK_MAND is ignored (its support was removed in
 * 5.16, Jeff Layton's "fs: remove LOCK_MAND flock lock support"), then
 * flock_translate_cmd(cmd & ~LOCK_NB) accepts LOCK_SH, LOCK_EX, LOCK_UN.
 */
int flock_check_cmd(unsigned int cmd)
{
	if (cmd & LOCK_MAND)
		return 1;
	switch (cmd & ~LOCK_NB) {
	case LOCK_SH:
	case LOCK_EX:
	case LOCK_UN:
		return 0;
	}
	return -EINVAL;
}

/*
 * LOCK_NB and LOCK_UN (which never wait): flock_lock_inode_wait without
 * the waiter bookkeeping.  The request never enters the blocker tree, so
 * it has no waiters to move and no block to delete; it sets only the
 * fields flock_lock_ctx reads.
 */
static __noinline int flock_nowait(struct file *filp, int type, pid_t pid)
{
	struct file_lock_context *ctx;
	struct file_lock fl;
	int error;

	/* flock_lock_inode: no context, no memory (an unlock has nothing to do) */
	ctx = locks_get_lock_context(filp->f_inode, type);
	if (!ctx)
		return type == F_UNLCK ? 0 : -ENOMEM;
	fl.fl_flags = FL_FLOCK;
	fl.fl_type = type;
	fl.fl_pid = pid;
	fl.fl_file = filp;
	fl.fl_owner = filp;
	fl.fl_start = 0;
	fl.fl_end = OFFSET_MAX;
	lk_enter();
	error = __flock_lock_ctx(ctx, &fl, false);
	lk_exit();
	return error;
}

/* LOCK_SH/LOCK_EX without LOCK_NB: deferred (req) or sleeping. */
static __noinline int flock_wait(struct file *filp, int type, pid_t pid, struct file_lock_req *req)
{
	struct file_lock fl;

	if (req) {
		__locks_init_lock(&req->fl);
		req->fl.fl_req = req;
		req->fl.fl_flags = FL_FLOCK;
		req->fl.fl_type = type;
		req->fl.fl_pid = pid;
		req->fl.fl_start = 0;
		req->fl.fl_end = OFFSET_MAX;
		return locks_submit_req(filp, req);
	}
	__locks_init_lock(&fl);
	fl.fl_flags = FL_FLOCK | FL_SLEEP;
	fl.fl_type = type;
	fl.fl_pid = pid;
	/* flock_lock_inode_wait without a second check of filp */
	return __lk_lock_file_wait(filp, &fl, FL_FLOCK, NULL);
}

int flock_lock_file(struct file *filp, unsigned int cmd, pid_t pid, struct file_lock_req *req)
{
	int type;

	/* flock_check_cmd's answers: LOCK_MAND (never one of the three) is
	 * ignored, anything else but LOCK_SH, LOCK_EX, LOCK_UN is -EINVAL */
	switch (cmd & ~LOCK_NB) {
	case LOCK_SH:
		type = F_RDLCK;
		break;
	case LOCK_EX:
		type = F_WRLCK;
		break;
	case LOCK_UN:
		type = F_UNLCK;
		break;
	default:
		return (cmd & LOCK_MAND) ? 0 : -EINVAL;
	}
	if (!lk_file_ok(filp) || !(filp->f_mode & (FMODE_READ | FMODE_WRITE)))
		return -EBADF;
	if ((cmd & LOCK_NB) || type == F_UNLCK)
		return flock_nowait(filp, type, pid);
	return flock_wait(filp, type, pid, req);
}

/* struct flock -> [fl_start, fl_end] (flock_to_posix_lock in Linux). */
static __always_inline int flock_to_posix_lock(struct file *filp, struct file_lock *fl,
					       const struct flock *l)
{
	int64_t start;

	if (likely(l->l_whence == SEEK_SET)) {
		/* base 0: l_start > OFFSET_MAX - 0 never holds */
		start = l->l_start;
	} else {
		switch (l->l_whence) {
		case SEEK_CUR:
			start = READ_ONCE(filp->f_pos);
			break;
		case SEEK_END:
			start = READ_ONCE(filp->f_inode->i_size);
			break;
		default:
			return -EINVAL;
		}
		if (l->l_start > OFFSET_MAX - start)
			return -EOVERFLOW;
		start += l->l_start;
	}
	/* POSIX-2001 defines negative lengths: the range ends before start */
	if (start < 0)
		return -EINVAL;
	if (l->l_len > 0) {
		if (l->l_len - 1 > OFFSET_MAX - start)
			return -EOVERFLOW;
		fl->fl_end = start + (l->l_len - 1);
	} else if (l->l_len < 0) {
		fl->fl_end = start - 1;
		start += l->l_len;
		if (start < 0)
			return -EINVAL;
	} else {
		fl->fl_end = OFFSET_MAX;
	}
	fl->fl_start = start;
	switch (l->l_type) {
	case F_RDLCK:
	case F_WRLCK:
	case F_UNLCK:
		fl->fl_type = l->l_type;
		return 0;
	default:
		return -EINVAL;
	}
}

/* The answer of a test into *l (posix_lock_to_flock). */
static void posix_lock_to_flock(struct flock *l, const struct file_lock *fl)
{
	l->l_type = fl->fl_type;
	if (fl->fl_type != F_UNLCK) {
		l->l_pid = (fl->fl_flags & FL_OFDLCK) ? -1 : fl->fl_pid;
		l->l_start = fl->fl_start;
		l->l_len = fl->fl_end == OFFSET_MAX ? 0 : fl->fl_end - fl->fl_start + 1;
		l->l_whence = SEEK_SET;
	}
}

int locks_test_lock(struct file *filp, struct flock *l, fl_owner_t owner)
{
	struct file_lock fl;
	int error;

	if (!lk_file_ok(filp))
		return -EBADF;
	__locks_init_lock(&fl);
	error = flock_to_posix_lock(filp, &fl, l);
	if (error)
		return error;
	fl.fl_flags = FL_POSIX;
	fl.fl_owner = owner;
	posix_test_lock(filp, &fl);
	posix_lock_to_flock(l, &fl);
	return 0;
}

/*
 * As Linux 6.x fcntl_getlk: F_GETLK wants F_RDLCK or F_WRLCK; F_OFD_GETLK
 * also takes F_UNLCK (since 6.4: "which lock does this description hold
 * here?"), and l_pid 0.
 */
int fcntl_getlk(struct file *filp, unsigned int cmd, struct flock *l, fl_owner_t owner)
{
	struct file_lock fl;
	int error;

	if (cmd != F_GETLK && cmd != F_OFD_GETLK)
		return -EINVAL;
	if (!lk_file_ok(filp))
		return -EBADF;
	if (cmd != F_OFD_GETLK && l->l_type != F_RDLCK && l->l_type != F_WRLCK)
		return -EINVAL;
	__locks_init_lock(&fl);
	error = flock_to_posix_lock(filp, &fl, l);
	if (error)
		return error;
	fl.fl_flags = FL_POSIX;
	fl.fl_owner = owner;
	if (cmd == F_OFD_GETLK) {
		if (l->l_pid != 0)
			return -EINVAL;
		fl.fl_flags |= FL_OFDLCK;
		fl.fl_owner = filp;
	}
	posix_test_lock(filp, &fl);
	posix_lock_to_flock(l, &fl);
	return 0;
}

/*
 * fcntl_setlk for F_SETLK and F_OFD_SETLK without a req: the same checks in
 * the same order, then posix_lock_fast and, when it declines, the general
 * walk.  A request that cannot wait never enters the blocker tree, so it
 * has no waiters to move and no block to delete (locks_lock_wait's
 * locks_delete_block finds nothing for it); the request on the stack sets
 * only the fields the fast path reads, and the rest before the general walk.
 */
static const unsigned int lk_type_mode[3] = {
    [F_RDLCK] = FMODE_READ,
    [F_WRLCK] = FMODE_WRITE,
    [F_UNLCK] = 0,
};

/* The general walk for __fcntl_setlk_nowait's request, passed by value so
 * that the fast path can keep the request's fields in registers. */
static __noinline int posix_setlk_slow(struct file_lock_context *ctx, struct file_lock fl)
{
	fl.fl_blocker = NULL;
	INIT_LIST_HEAD(&fl.fl_blocked_requests);
	fl.fl_ctx = NULL;
	fl.fl_req = NULL;
	return posix_lock_ctx(ctx, &fl, NULL);
}

int __fcntl_setlk_nowait(struct file *filp, bool ofd, const struct flock *l, fl_owner_t owner,
			 pid_t pid)
{
	struct file_lock_context *ctx;
	struct file_lock fl;
	int error;

	if (!lk_file_ok(filp))
		return -EBADF;
	error = flock_to_posix_lock(filp, &fl, l);
	if (error)
		return error;
	/* a read lock needs FMODE_READ, a write lock FMODE_WRITE (F_RDLCK 0,
	 * F_WRLCK 1, F_UNLCK 2: flock_to_posix_lock checked the type) */
	if (lk_type_mode[fl.fl_type] & ~filp->f_mode)
		return -EBADF;
	fl.fl_flags = FL_POSIX;
	fl.fl_owner = owner;
	fl.fl_pid = pid;
	if (ofd) {
		if (l->l_pid != 0)
			return -EINVAL;
		fl.fl_flags |= FL_OFDLCK;
		fl.fl_owner = filp;
		fl.fl_pid = -1;
	}
	fl.fl_file = filp;
	/* posix_lock_inode: no context, no memory (an unlock has nothing to do) */
	ctx = locks_get_lock_context(filp->f_inode, fl.fl_type);
	if (!ctx)
		return fl.fl_type == F_UNLCK ? 0 : -ENOMEM;
	lk_enter();
	/* the fast path compiled for the instance's scheme */
	if (lk_scheme == FILELOCK_BKL)
		error = __posix_lock_fast(ctx, &fl, false, FILELOCK_BKL);
	else if (lk_scheme == FILELOCK_INODE)
		error = __posix_lock_fast(ctx, &fl, false, FILELOCK_INODE);
	else
		error = __posix_lock_fast(ctx, &fl, false, FILELOCK_GLOBAL);
	if (error == LK_SLOW)
		error = posix_setlk_slow(ctx, fl);
	lk_exit();
	return error;
}

/* Every fcntl_setlk (the F_SETLK and F_OFD_SETLK without a req go to
 * __fcntl_setlk_nowait from the inline in locks.h). */
int __fcntl_setlk(struct file *filp, unsigned int cmd, const struct flock *l, fl_owner_t owner,
		  pid_t pid, struct file_lock_req *req)
{
	struct file_lock local, *fl = req ? &req->fl : &local;
	int error;

	if (cmd != F_SETLKW && cmd != F_OFD_SETLK && cmd != F_OFD_SETLKW && cmd != F_SETLK)
		return -EINVAL;
	if (!lk_file_ok(filp))
		return -EBADF;
	__locks_init_lock(fl);
	if (req)
		fl->fl_req = req;
	error = flock_to_posix_lock(filp, fl, l);
	if (error)
		return error;
	if ((fl->fl_type == F_RDLCK && !(filp->f_mode & FMODE_READ)) ||
	    (fl->fl_type == F_WRLCK && !(filp->f_mode & FMODE_WRITE)))
		return -EBADF;
	fl->fl_flags = FL_POSIX;
	fl->fl_owner = owner;
	fl->fl_pid = pid;
	if (cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW) {
		if (l->l_pid != 0)
			return -EINVAL;
		fl->fl_flags |= FL_OFDLCK;
		fl->fl_owner = filp;
		fl->fl_pid = -1;
	}
	if (cmd == F_SETLKW || cmd == F_OFD_SETLKW)
		fl->fl_flags |= FL_SLEEP;
	if (req && (fl->fl_flags & FL_SLEEP))
		return locks_submit_req(filp, req);
	fl->fl_flags &= ~FL_DEFERRED;
	fl->fl_req = NULL;
	/* posix_lock_file without a second check of filp */
	return __lk_lock_file_wait(filp, fl, FL_POSIX, NULL);
}

void locks_remove_posix(struct file *filp, fl_owner_t owner)
{
	struct file_lock_context *ctx;
	struct file_lock fl;

	if (!lk_file_ok(filp))
		return;
	ctx = smp_load_acquire(&filp->f_inode->i_flctx);
	/* racy check as Linux's: a lock being added concurrently by this
	 * owner through another fd is the caller's race */
	if (!ctx || list_empty(&ctx->flc_posix))
		return;
	__locks_init_lock(&fl);
	fl.fl_flags = FL_POSIX;
	fl.fl_type = F_UNLCK;
	fl.fl_owner = owner;
	fl.fl_file = filp;
	lk_enter();
	posix_lock_ctx(ctx, &fl, NULL); /* whole range: allocates nothing */
	lk_exit();
}

void locks_remove_file(struct file *filp)
{
	struct file_lock_context *ctx;
	struct file_lock fl;

	if (!lk_file_ok(filp))
		return;
	ctx = smp_load_acquire(&filp->f_inode->i_flctx);
	if (!ctx)
		return;
	lk_enter();
	if (!RV_MUTANT(remove_file_keeps_ofd) && !list_empty(&ctx->flc_posix)) {
		__locks_init_lock(&fl);
		fl.fl_flags = FL_POSIX | FL_OFDLCK;
		fl.fl_type = F_UNLCK;
		fl.fl_owner = filp;
		fl.fl_file = filp;
		posix_lock_ctx(ctx, &fl, NULL);
	}
	if (!list_empty(&ctx->flc_flock)) {
		__locks_init_lock(&fl);
		fl.fl_flags = FL_FLOCK;
		fl.fl_type = F_UNLCK;
		fl.fl_owner = filp;
		fl.fl_file = filp;
		flock_lock_ctx(ctx, &fl);
	}
	lk_exit();
}

/* The fd-level fcntl (ksys_fcntl, fdtable/) reaches the lock commands
 * through vfs_file_hooks: plain (blocking) requests, no deferral. */
static int lk_fcntl_getlk_hook(struct file *file, unsigned int cmd, struct flock *fl, void *owner)
{
	return fcntl_getlk(file, cmd, fl, owner);
}

static int lk_fcntl_setlk_hook(struct file *file, unsigned int cmd, struct flock *fl, void *owner,
			       pid_t pid)
{
	return fcntl_setlk(file, cmd, fl, owner, pid, NULL);
}

/* ------------------------------------------------------------------ */
/* instance lifecycle                                                  */
/* ------------------------------------------------------------------ */

static int locks_init(void)
{
	lk_scheme = rv_sw.filelock;
	lk_bkl_ops_lock = (rv_sw.bkl_ops & BKL_OP_LOCK) != 0;
#ifdef RCUVFS_EXPLORE
	lk_move_blocks_unfixed = false;
#endif
	spin_lock_init(&file_lock_lock);
	spin_lock_init(&blocked_lock_lock);
	for (int i = 0; i < BLOCKED_HASH_SIZE; i++)
		INIT_LIST_HEAD(&blocked_hash[i]);
	nr_blocked = 0;
	for (int i = 0; i < LOCK_SHARDS; i++) {
		spin_lock_init(&lock_shards[i].lock);
		INIT_LIST_HEAD(&lock_shards[i].list);
		lock_shards[i].nr = 0;
	}
	filelock_cache =
	    kmem_cache_create("file_lock_cache", sizeof(struct file_lock), 0, 0, locks_ctor);
	flreq_cache = kmem_cache_create("file_lock_req", sizeof(struct file_lock_req), 0, 0, NULL);
	if (owner_init() || !filelock_cache || !flreq_cache)
		return -ENOMEM;
	vfs_file_hooks.locks_remove_posix = locks_remove_posix;
	vfs_file_hooks.locks_remove_file = locks_remove_file;
	vfs_file_hooks.fcntl_getlk = lk_fcntl_getlk_hook;
	vfs_file_hooks.fcntl_setlk = lk_fcntl_setlk_hook;
	vfs_hooks.locks_free_context = locks_free_lock_context;
	return 0;
}

static int locks_teardown(void)
{
	struct file_lock_context *ctx;
	int ret = 0;
	long held = locks_count_held(), blocked = locks_count_blocked();

	vfs_file_hooks.locks_remove_posix = NULL;
	vfs_file_hooks.locks_remove_file = NULL;
	vfs_file_hooks.fcntl_getlk = NULL;
	vfs_file_hooks.fcntl_setlk = NULL;
	/* vfs_hooks.locks_free_context stays: inodes are evicted after us */
	if (held || blocked) {
		fprintf(stderr, "rcuvfs: locks: %ld held and %ld blocked locks at teardown\n", held,
			blocked);
		ret = -EBUSY;
	}
	if (owner_teardown(!held))
		ret = -EBUSY;
	spin_lock(&lk_ctx_lock);
	list_for_each_entry(ctx, &lk_ctx_list, flc_all) {
		if (ctx->flc_spare) {
			locks_free_record(ctx->flc_spare);
			ctx->flc_spare = NULL;
		}
	}
	spin_unlock(&lk_ctx_lock);
	if (filelock_cache && kmem_cache_destroy(filelock_cache))
		ret = -EBUSY;
	if (flreq_cache && kmem_cache_destroy(flreq_cache))
		ret = -EBUSY;
	filelock_cache = flreq_cache = NULL;
	return ret;
}

RV_SUBSYS(locks, locks_init, locks_teardown);
