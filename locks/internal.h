/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * locks/internal.h - what the files of locks/ share; private to locks/.
 *
 * locks.c is the lock engine (fs/locks.c's part of Linux); the model-only
 * parts live beside it: owner.c (per-owner ENOLCK accounting), grant.c
 * (the per-thread queue of deferred grants), proc.c (the /proc/locks
 * listing and the counts) and check.c (the invariant checker).  This
 * header holds the structures and the engine state they read, declared
 * here and defined in the file named beside each, and the inline fast
 * paths the engine calls into the other files.  Which lock protects which
 * field is stated at each structure and in locks.c's top comment.
 */
#ifndef RCUVFS_LOCKS_INTERNAL_H
#define RCUVFS_LOCKS_INTERNAL_H

#include "locks/locks.h"

struct file_lock_context {
	spinlock_t flc_lock;	     /* inode scheme: the two lists below */
	spinlock_t *flc_lockp;	     /* the lists' spinlock: &flc_lock (inode),
					&file_lock_lock (global); NULL: the BKL */
	struct list_head flc_flock;  /* held flock locks; flc */
	struct list_head flc_posix;  /* held POSIX and OFD locks; flc */
	struct file_lock *flc_spare; /* a free flock record (constructed); flc */
	uint64_t flc_ino;	     /* the inode's number, for the listing */
	struct list_head flc_all;    /* lk_ctx_list; lk_ctx_lock */
};

#define LOCK_SHARDS	      16
#define BLOCKED_HASH_SIZE     128
#define MAX_DEADLK_ITERATIONS 10 /* as Linux: longer cycles are not detected */
#define OWNER_HASH_SIZE	      256

struct lock_shard {
	spinlock_t lock;       /* inode scheme; else the scheme's lock */
	struct list_head list; /* held locks */
	long nr;	       /* held locks on list */
} __cacheline_aligned;

struct owner_acct {
	struct list_head link; /* on owner_hash[], under its lock */
	fl_owner_t owner;
	long count;		 /* lock records charged */
	struct file_lock *spare; /* a free record (constructed state) for the
				    owner's next lock; bucket lock */
};

struct owner_bucket {
	spinlock_t lock;
	struct list_head head; /* owner_acct records; lock */
	int idle;	       /* records on head with count 0; lock */
} __cacheline_aligned;

/*
 * Records whose count dropped to 0 stay in their bucket, up to this many
 * per bucket, so an owner that locks and unlocks over and over (the common
 * case: one lock at a time) does not allocate and free its record each time.
 */
#define OWNER_IDLE_MAX 2

/* locks.c: the engine's state (see its top comment for the locking). */
extern int lk_scheme;	     /* enum filelock_scheme of the live instance */
extern bool lk_bkl_ops_lock; /* bkl_ops contains `lock` */
extern spinlock_t file_lock_lock;
extern spinlock_t blocked_lock_lock;
extern struct list_head blocked_hash[BLOCKED_HASH_SIZE]; /* blocked lock */
extern long nr_blocked;					 /* blocked lock */
extern struct lock_shard lock_shards[LOCK_SHARDS];
extern struct kmem_cache *filelock_cache;
extern long lk_nr_ctx; /* atomic: contexts allocated */
#ifdef RCUVFS_EXPLORE
#define LK_XREQ_MAX 64
extern struct file_lock *lk_xreq[LK_XREQ_MAX];
extern int lk_xreq_lost;
#endif

void locks_retry_req(struct file_lock_req *req);
void locks_put_req(struct file_lock_req *req);

/* Conflicts (fs/locks.c posix_locks_conflict, flock_locks_conflict). */
static inline bool locks_overlap(const struct file_lock *a, const struct file_lock *b)
{
	return a->fl_end >= b->fl_start && b->fl_end >= a->fl_start;
}

static inline bool posix_locks_conflict(const struct file_lock *caller, const struct file_lock *sys)
{
	if (caller->fl_owner == sys->fl_owner)
		return false;
	if (!locks_overlap(caller, sys))
		return false;
	return caller->fl_type == F_WRLCK || sys->fl_type == F_WRLCK;
}

static inline bool flock_locks_conflict(const struct file_lock *caller, const struct file_lock *sys)
{
	if (caller->fl_file == sys->fl_file)
		return false;
	return caller->fl_type == F_WRLCK || sys->fl_type == F_WRLCK;
}

static inline unsigned int blocked_hash_key(fl_owner_t owner)
{
	uintptr_t h = (uintptr_t)owner;

	return (unsigned int)((h >> 4) ^ (h >> 12)) % BLOCKED_HASH_SIZE;
}

/* ------------------------------------------------------------------ */
/* entry points and the grant queue (grant.c)                         */
/* ------------------------------------------------------------------ */

/*
 * This thread's queue of deferred requests to retry (see the top): a FIFO
 * through req->grant_next, empty when lk_grant_head is NULL (so an entry
 * point initialises nothing).
 */
extern __thread __tls_hot struct file_lock_req *lk_grant_head, *lk_grant_tail;
extern __thread __tls_hot int lk_depth; /* nesting of entry points */

void locks_run_grants(void);

static inline void lk_queue_grant(struct file_lock_req *req)
{
	req->grant_next = NULL;
	if (lk_grant_head)
		lk_grant_tail->grant_next = req;
	else
		lk_grant_head = req;
	lk_grant_tail = req;
}

/* Inlined: every entry point pays these on its fast path.  bkl_ops, like
 * the scheme, is fixed for an instance's life. */
static __always_inline void lk_enter(void)
{
	lk_depth++;
	if (unlikely(lk_bkl_ops_lock))
		lock_kernel();
}

static __always_inline void lk_exit(void)
{
	if (unlikely(lk_bkl_ops_lock))
		unlock_kernel();
	/* the outermost exit runs the queue; calls made by grant callbacks
	 * see lk_depth > 1 and only append to it */
	if (unlikely(lk_grant_head != NULL) && lk_depth == 1)
		locks_run_grants();
	lk_depth--;
}

/* ------------------------------------------------------------------ */
/* per-owner accounting: the inline fast path (owner.c)               */
/* ------------------------------------------------------------------ */

extern struct owner_bucket owner_hash[OWNER_HASH_SIZE];
extern long lk_owner_limit;

int owner_charge(fl_owner_t owner, long n, struct file_lock **rec);
void owner_uncharge(fl_owner_t owner, long n, struct file_lock *rec);
int owner_init(void);
int owner_teardown(bool report);

static inline struct owner_bucket *owner_bucket(fl_owner_t owner)
{
	uintptr_t h = (uintptr_t)owner;

	h ^= h >> 17;
	h *= 0x9E3779B97F4A7C15ull;
	return &owner_hash[(h >> 32) % OWNER_HASH_SIZE];
}

static __always_inline struct owner_acct *owner_find(struct owner_bucket *b, fl_owner_t owner)
{
	struct owner_acct *a;

	list_for_each_entry(a, &b->head, link)
		if (a->owner == owner)
			return a;
	return NULL;
}

/*
 * This thread's last owner, its record and bucket: a lock+unlock loop
 * looks the same owner up twice per pair.  owner_gen is bumped, under the
 * record's bucket lock, whenever a record leaves its bucket; a cached
 * record is used only after owner_gen was re-read under that bucket's lock
 * and found unchanged (so it is still linked there, for the same owner).
 */
extern unsigned long owner_gen; /* atomic; written under a bucket lock */
extern __thread __tls_hot struct owner_last {
	fl_owner_t owner;
	struct owner_acct *a;
	struct owner_bucket *b;
	unsigned long gen;
} lk_owner_last;

/* Lock owner's bucket (*bp) and find its record (NULL: none). */
static __always_inline struct owner_acct *owner_find_lock(fl_owner_t owner,
							  struct owner_bucket **bp)
{
	bool hit = lk_owner_last.a && lk_owner_last.owner == owner;
	struct owner_bucket *b = hit ? lk_owner_last.b : owner_bucket(owner);
	struct owner_acct *a;

	spin_lock(&b->lock);
	*bp = b;
	if (likely(hit && lk_owner_last.gen == __atomic_load_n(&owner_gen, __ATOMIC_RELAXED)))
		return lk_owner_last.a;
	a = owner_find(b, owner);
	if (a) {
		lk_owner_last.owner = owner;
		lk_owner_last.a = a;
		lk_owner_last.b = b;
		lk_owner_last.gen = __atomic_load_n(&owner_gen, __ATOMIC_RELAXED);
	}
	return a;
}

/*
 * The common cases of owner_charge(owner, 1, rec) and owner_uncharge(owner,
 * 1, rec), inlined into the uncontended lock path: the owner's record is
 * in its bucket and has a spare (charge) or none (uncharge), under the
 * limit, and the uncharge keeps the record.  Same effect as the general
 * functions, which handle everything else.
 */
static __always_inline struct file_lock *owner_charge_spare(fl_owner_t owner)
{
	struct owner_bucket *b;
	struct owner_acct *a;
	struct file_lock *rec = NULL;

	a = owner_find_lock(owner, &b);
	if (likely(a && a->spare && a->count < READ_ONCE(lk_owner_limit))) {
		if (!a->count)
			b->idle--;
		a->count++;
		rec = a->spare;
		a->spare = NULL;
	}
	spin_unlock(&b->lock);
	return rec;
}

static __always_inline void owner_uncharge_one(fl_owner_t owner, struct file_lock *rec)
{
	struct owner_bucket *b;
	struct owner_acct *a;

	a = owner_find_lock(owner, &b);
	if (likely(a && !a->spare && (a->count == 1 ? b->idle < OWNER_IDLE_MAX : a->count > 1))) {
		if (!--a->count)
			b->idle++;
		a->spare = rec;
		spin_unlock(&b->lock);
		return;
	}
	spin_unlock(&b->lock);
	owner_uncharge(owner, 1, rec);
}

#endif /* RCUVFS_LOCKS_INTERNAL_H */
