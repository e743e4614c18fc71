// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuse/lockops.c - file locks through the mount: GETLK, SETLK, SETLKW and
 * FLOCK requests onto the lock model (locks/locks.h), FLUSH and RELEASE
 * clean-up, deferred grants, interrupts and unmount.
 *
 * Mapping.  POSIX requests are owned by the kernel's lock_owner (a hash of
 * the locker's files_struct, or of the open file for OFD locks: the kernel
 * forwards F_OFD_* as plain POSIX requests whose owner is the file); the pid
 * is the request's l_pid (the locker's tgid; 0 for unlocks).  flock requests
 * are owned by the daemon's struct file behind fh (one FUSE open per kernel
 * open file, so the same thing).  FLUSH drops lock_owner's POSIX locks on the
 * inode (close() of any fd); RELEASE drops the flock locks held through fh
 * and the POSIX locks of every owner that locked only through this fh (an
 * OFD owner is bound to one open file; a process owner that used only this
 * fh has been flushed already, so dropping it again is a no-op).  The owners
 * each fh used are kept in lkf_hash (below) for that.
 *
 * Handles.  A lock request borrows the file behind its fh (no reference;
 * the fd holds one until the handle's RELEASE, which the kernel sends only
 * after every request on the handle was answered: see lk_file), through a
 * per-thread cache of the last handle that every RELEASE invalidates.
 *
 * Blocking requests never park a worker.  A SETLKW or blocking FLOCK is
 * first tried without waiting; on a conflict it becomes a struct rvf_lkw
 * around a model file_lock_req submitted with locks_submit_req semantics
 * (FILE_LOCK_DEFERRED), and the worker returns to libfuse.  The model calls
 * lkw_grant() on the thread that removed the conflict, after that thread
 * dropped every lock-list lock; lkw_grant only queues the waiter on the
 * thread's pending list, and the reply is sent when the thread leaves its
 * outermost lockops entry point (lk_scope_exit), with no model lock, no
 * BKL and no libfuse request lock held.  A grant on a thread outside any
 * lockops scope (a close inside the VFS, teardown) goes to the helper.
 *
 * One claim.  Grant, interrupt and unmount race through the model's
 * file_lock_req state (one compare-and-swap, locks.h): the grant callback
 * runs only for the winner of WAITING -> GRANTED, and locks_cancel_req
 * returns -EINTR only for the winner of WAITING -> CANCELLED.  Exactly one
 * party replies: a synchronous result other than FILE_LOCK_DEFERRED and
 * -EINTR (the submitter), the grant callback (the granting thread), or a
 * cancel that returned -EINTR (the helper for interrupts: EINTR; shutdown:
 * ENOLCK).  An interrupt that arrives before the request was queued
 * (locks_cancel_req finds it idle) is caught by the submitter, which
 * re-reads w->intr after a full barrier and cancels it itself.
 *
 * Interrupts.  libfuse calls lkw_interrupt() holding the request's own
 * mutex; it only marks the waiter and queues it for the helper thread, which
 * calls locks_cancel_req (model locks) and replies.  Every reply of a
 * registered request is preceded by fuse_req_interrupt_func(req, NULL,
 * NULL), which waits for a running lkw_interrupt (it takes the request
 * mutex) and stops later ones, so the waiter is never used after it is
 * freed.  No thread calls fuse_reply_* or fuse_req_interrupt_func holding
 * lkw_lock, helper.lock, an lkf_hash bucket lock or any model lock.
 *
 * -o test_skip_locks (test only): every lock request succeeds at once and
 * locks nothing, so tests can show that lock verification catches it.
 *
 * Entry points (declared in fuse/daemon.h): rvf_ll_getlk/setlk/flock (the
 * libfuse ops), rvf_locks_flush and rvf_locks_release (ops.c, FLUSH and
 * RELEASE), rvf_locks_shutdown (main.c after the loop, and teardown;
 * idempotent), rvf_locks_drop_all (teardown: POSIX locks of handles the
 * kernel never released), rvf_locks_format (/.rcuvfs/locks).
 *
 * Locks here (none nests inside a model lock; the model and libfuse never
 * call us holding one of them):
 *   lkw_lock        the list of pending waiters (lkw_all), for shutdown
 *   helper.lock     the helper's two queues; leaf
 *   lkf_hash[].lock owners per fh; may be held across locks_remove_posix
 *                   (model locks nest inside it), never across a reply
 *   lk_gen          atomic: bumped by every RELEASE before its fd closes
 * Waiter lifetime: refs (atomic) held by the submitter, by the completion
 * (dropped after the reply) and by each queued interrupt; the model request
 * and the waiter are freed by the last put.
 */
#include "fuse/daemon.h"
#include "locks/locks.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

RV_STAT_DEFINE(req_getlk, "FUSE getlk requests");
RV_STAT_DEFINE(req_setlk, "FUSE setlk requests (non-blocking)");
RV_STAT_DEFINE(req_setlkw, "FUSE setlkw requests (blocking)");
RV_STAT_DEFINE(req_flock, "FUSE flock requests");
RV_STAT_DEFINE(fuse_lock_deferred, "blocking lock requests answered later (deferred grants)");
RV_STAT_DEFINE(fuse_lock_granted, "deferred lock requests answered by the thread that granted");
RV_STAT_DEFINE(fuse_lock_interrupted, "deferred lock requests answered EINTR after an interrupt");
RV_STAT_DEFINE(fuse_lock_shutdown, "deferred lock requests answered ENOLCK at unmount");
RV_STAT_DEFINE(fuse_lock_helper_grants, "grants answered by the helper thread (outside a scope)");

/* ---- deferred waiters ---------------------------------------------------- */

struct rvf_lkw {
	struct file_lock_req *lreq; /* the model request; private == this */
	fuse_req_t req;
	struct file *file;	      /* reference until the reply */
	int refs;		      /* atomic */
	int intr;		      /* atomic: lkw_interrupt ran */
	int result;		      /* the grant's result */
	struct rvf_lkw *pending_next; /* a thread's pending FIFO */
	struct list_head grant_link;  /* helper.grants */
	struct list_head cancel_link; /* helper.cancels */
	struct list_head all;	      /* lkw_all; lkw_lock */
};

static pthread_mutex_t lkw_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list_head lkw_all = LIST_HEAD_INIT(lkw_all);

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct list_head grants, cancels; /* lock */
	pthread_t thread;
	bool started, stop; /* lock */
} helper = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .cond = PTHREAD_COND_INITIALIZER,
    .grants = LIST_HEAD_INIT(helper.grants),
    .cancels = LIST_HEAD_INIT(helper.cancels),
};

/* This thread's scope depth and pending grants (replied at scope exit): a
 * FIFO through pending_next, empty when lk_pending is NULL. */
static __thread int lk_scope;
static __thread struct rvf_lkw *lk_pending, *lk_pending_tail;

static void lkw_get(struct rvf_lkw *w)
{
	__atomic_fetch_add(&w->refs, 1, __ATOMIC_RELAXED);
}

static void lkw_put(struct rvf_lkw *w)
{
	if (__atomic_sub_fetch(&w->refs, 1, __ATOMIC_ACQ_REL))
		return;
	locks_put_req(w->lreq);
	free(w);
}

/* Answer the request (the caller won the claim) and drop the completion ref. */
static void lkw_complete(struct rvf_lkw *w, int result)
{
	/* waits for a running lkw_interrupt, and no later one will run */
	fuse_req_interrupt_func(w->req, NULL, NULL);
	pthread_mutex_lock(&lkw_lock);
	list_del_init(&w->all);
	pthread_mutex_unlock(&lkw_lock);
	fuse_reply_err(w->req, result < 0 ? -result : 0);
	w->req = NULL;
	fput(w->file); /* may drop locks (last reference): grants join the pending list */
	w->file = NULL;
	lkw_put(w);
}

/* Inlined: every lock request pays them; the replies are out of line. */
static __always_inline void lk_scope_enter(void)
{
	lk_scope++;
}

/* At the outermost exit; replies queued while replying join the loop. */
static __noinline void lk_scope_reply_pending(void)
{
	struct rvf_lkw *w;

	while ((w = lk_pending) != NULL) {
		lk_pending = w->pending_next;
		w->pending_next = NULL;
		rv_stat_inc(fuse_lock_granted);
		lkw_complete(w, w->result);
	}
}

static __always_inline void lk_scope_exit(void)
{
	if (unlikely(lk_pending != NULL) && lk_scope == 1)
		lk_scope_reply_pending();
	lk_scope--;
}

static void *helper_main(void *arg);

/* helper.lock held */
static void helper_start_locked(void)
{
	if (helper.started || helper.stop)
		return;
	if (pthread_create(&helper.thread, NULL, helper_main, NULL)) {
		fprintf(stderr, "rcuvfs: cannot start the lock helper thread\n");
		abort();
	}
	helper.started = true;
}

static void helper_queue(struct list_head *link, struct list_head *q)
{
	pthread_mutex_lock(&helper.lock);
	list_add_tail(link, q);
	helper_start_locked();
	pthread_cond_signal(&helper.cond);
	pthread_mutex_unlock(&helper.lock);
}

/* The model's grant callback: no lock-list lock held; queue the reply. */
static void lkw_grant(struct file_lock_req *lreq, int result)
{
	struct rvf_lkw *w = lreq->private;

	w->result = result;
	if (lk_scope > 0) {
		w->pending_next = NULL;
		if (lk_pending)
			lk_pending_tail->pending_next = w;
		else
			lk_pending = w;
		lk_pending_tail = w;
	} else {
		rv_stat_inc(fuse_lock_helper_grants);
		helper_queue(&w->grant_link, &helper.grants);
	}
}

/*
 * libfuse's interrupt callback: the request's mutex is held; only queue.
 * libfuse can call it twice for one request (once per FUSE_INTERRUPT it
 * matches; the kernel resends one after an EAGAIN reply; seen in the
 * filelocks race test as a hung daemon with w->refs 3), so only the first
 * queues: a second list_add_tail of cancel_link while it is still on
 * helper.cancels or the helper's private list corrupts the list, and the
 * helper then spins under helper.lock, blocking every later interrupt
 * callback and, behind their request mutexes, the replies.
 */
static void lkw_interrupt(fuse_req_t req, void *data)
{
	struct rvf_lkw *w = data;

	(void)req;
	if (__atomic_exchange_n(&w->intr, 1, __ATOMIC_SEQ_CST))
		return; /* queued once already: one cancel suffices */
	lkw_get(w);
	helper_queue(&w->cancel_link, &helper.cancels);
}

static void *helper_main(void *arg)
{
	struct list_head grants = LIST_HEAD_INIT(grants);
	struct list_head cancels = LIST_HEAD_INIT(cancels);
	struct rvf_lkw *w;
	bool stop;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&helper.lock);
		while (list_empty(&helper.grants) && list_empty(&helper.cancels) && !helper.stop)
			pthread_cond_wait(&helper.cond, &helper.lock);
		stop = helper.stop && list_empty(&helper.grants) && list_empty(&helper.cancels);
		while (!list_empty(&helper.grants))
			list_move_tail(helper.grants.next, &grants);
		while (!list_empty(&helper.cancels))
			list_move_tail(helper.cancels.next, &cancels);
		pthread_mutex_unlock(&helper.lock);
		if (stop)
			break;
		rvf_enter();
		lk_scope_enter();
		while (!list_empty(&grants)) {
			w = list_first_entry(&grants, struct rvf_lkw, grant_link);
			list_del_init(&w->grant_link);
			lkw_complete(w, w->result);
		}
		while (!list_empty(&cancels)) {
			w = list_first_entry(&cancels, struct rvf_lkw, cancel_link);
			list_del_init(&w->cancel_link);
			smp_mb(); /* pairs with the submitter's barrier (see the top) */
			if (locks_cancel_req(w->lreq) == -EINTR) {
				rv_stat_inc(fuse_lock_interrupted);
				lkw_complete(w, -EINTR);
			}
			lkw_put(w);
		}
		lk_scope_exit();
	}
	return NULL;
}

/* ---- owners per fh (for RELEASE) ----------------------------------------- */

#define LKF_BUCKETS 256

struct lkf_rec {
	struct list_head link; /* bucket list */
	struct file *file;     /* not referenced: removed at its RELEASE */
	struct inode *inode;
	uint64_t *owners;
	size_t n, cap;
};

static struct lkf_bucket {
	pthread_mutex_t lock;
	struct list_head head;
} lkf_hash[LKF_BUCKETS];
static pthread_once_t lkf_once = PTHREAD_ONCE_INIT;

/*
 * The handle cache.  lk_gen is bumped by every RELEASE (rvf_locks_release,
 * before the fd is closed) and by teardown's rvf_locks_drop_all: records of
 * lkf_hash are removed only there.  Each thread remembers the last handle a
 * lock request came through, its file and the generation then, and the
 * last owner it noted in lkf_hash through that file.  While no handle was
 * released since, the handle still names the same file (its fd is closed
 * only at its RELEASE) and the note is still there (a record outlives
 * every lock request on its file), so the common case of one owner locking
 * again through the same handle costs a few comparisons; a handle that was
 * released (stale, or an fd and generation met again) never matches.
 */
static unsigned long lk_gen; /* atomic */
static __thread struct {
	fuse_ino_t ino; /* never a control file's; 0: empty */
	uint64_t fh;
	struct file *file;
	unsigned long gen;
	uint64_t owner; /* noted through file, when owner_ok */
	bool owner_ok;
} lk_last;

static void lkf_init(void)
{
	for (int i = 0; i < LKF_BUCKETS; i++) {
		pthread_mutex_init(&lkf_hash[i].lock, NULL);
		INIT_LIST_HEAD(&lkf_hash[i].head);
	}
}

static struct lkf_bucket *lkf_bucket(struct inode *inode)
{
	uintptr_t h = (uintptr_t)inode;

	pthread_once(&lkf_once, lkf_init);
	return &lkf_hash[((h >> 6) ^ (h >> 14)) % LKF_BUCKETS];
}

static struct lkf_rec *lkf_find(struct lkf_bucket *b, struct file *file)
{
	struct lkf_rec *r;

	list_for_each_entry(r, &b->head, link)
		if (r->file == file)
			return r;
	return NULL;
}

static bool lkf_has(const struct lkf_rec *r, uint64_t owner)
{
	for (size_t i = r->n; i-- > 0;)
		if (r->owners[i] == owner)
			return true;
	return false;
}

/* Remember that owner locks through file (before the model sees the lock);
 * file is lk_last.file (lk_file looked it up). */
static __noinline int lkf_note_slow(struct file *file, uint64_t owner)
{
	struct lkf_bucket *b;
	struct lkf_rec *r;
	int err = 0;

	b = lkf_bucket(file->f_inode);
	pthread_mutex_lock(&b->lock);
	r = lkf_find(b, file);
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r) {
			err = -ENOLCK;
			goto out;
		}
		r->file = file;
		r->inode = file->f_inode;
		list_add(&r->link, &b->head);
	}
	if (!lkf_has(r, owner)) {
		if (r->n == r->cap) {
			size_t cap = r->cap ? 2 * r->cap : 4;
			uint64_t *no = realloc(r->owners, cap * sizeof(*no));

			if (!no) {
				err = -ENOLCK;
				goto out;
			}
			r->owners = no;
			r->cap = cap;
		}
		r->owners[r->n++] = owner;
	}
	/* lk_last.gen was read before the lookup: a removal since then (a
	 * RELEASE) makes the next request miss */
	lk_last.owner = owner;
	lk_last.owner_ok = true;
out:
	pthread_mutex_unlock(&b->lock);
	return err;
}

static __always_inline int lkf_note(struct file *file, uint64_t owner)
{
	if (likely(lk_last.owner_ok && lk_last.owner == owner))
		return 0;
	return lkf_note_slow(file, owner);
}

/* RELEASE: drop the POSIX locks of owners that locked only through file. */
static void lkf_release(struct file *file)
{
	struct lkf_bucket *b = lkf_bucket(file->f_inode);
	struct lkf_rec *r, *o;
	bool shared;

	pthread_mutex_lock(&b->lock);
	r = lkf_find(b, file);
	if (r) {
		list_del_init(&r->link);
		for (size_t i = 0; i < r->n; i++) {
			shared = false;
			list_for_each_entry(o, &b->head, link) {
				if (o->inode == r->inode && lkf_has(o, r->owners[i])) {
					shared = true;
					break;
				}
			}
			/* under the bucket lock: a concurrent lkf_note by this
			 * owner through another fh waits, so its lock survives */
			if (!shared)
				locks_remove_posix(file, (fl_owner_t)(uintptr_t)r->owners[i]);
		}
	}
	pthread_mutex_unlock(&b->lock);
	if (r) {
		free(r->owners);
		free(r);
	}
}

/* ---- the operations -------------------------------------------------------- */

/*
 * The file behind a lock request's handle, borrowed: no reference is taken.
 * NULL: replied already (EBADF for a stale or unknown handle, ENOLCK for a
 * control file).  Lifetime: the handle's fd holds a reference until its
 * RELEASE (fh_close in ops.c; teardown only after the loop's workers have
 * ended), and the kernel sends RELEASE after the last reference to its
 * struct file is dropped (fs/fuse/file.c fuse_release from __fput), which
 * comes after every lock request on it was answered: the locking syscall
 * holds the file while it waits (fdget; an uninterruptible wait once the
 * daemon has read the request: fs/fuse/dev.c request_wait_answer), and the
 * kernel's close path sends its lock requests before f_op->release.  So
 * the file is pinned until this request's reply, and the handlers below
 * use it only before replying; a request that waits (lk_defer) takes its
 * own reference.  The slow path looks the handle up with fget and the
 * generation check (rvf_fget) and drops the reference again.
 */
/*
 * -o test_skip_locks: the request succeeds at once (a GETLK finds no lock).
 * Only the daemon's test build (RCUVFS_TEST_DAEMON, build/tests) has the
 * option; the production daemon never skips.
 */
static __noinline bool lk_skip(fuse_req_t req, struct flock *getlk)
{
#ifndef RCUVFS_TEST_DAEMON
	return false;
#endif
	if (likely(!rvf.cfg.test_skip_locks))
		return false;
	if (getlk) {
		getlk->l_type = F_UNLCK;
		fuse_reply_lock(req, getlk);
	} else {
		fuse_reply_err(req, 0);
	}
	return true;
}

static __noinline struct file *lk_file_slow(fuse_req_t req, fuse_ino_t ino, uint64_t fh,
					    unsigned long gen, struct flock *getlk)
{
	struct file *file;

	if (rvf_ino_is_ctl(ino)) {
		if (!lk_skip(req, getlk))
			fuse_reply_err(req, ENOLCK);
		return NULL;
	}
	if (lk_skip(req, getlk))
		return NULL;
	rvf_enter();
	file = rvf_fget(fh);
	if (!file) {
		fuse_reply_err(req, EBADF);
		return NULL;
	}
	fput(file); /* the fd's reference pins it (above) */
	lk_last.ino = ino;
	lk_last.fh = fh;
	lk_last.file = file;
	lk_last.gen = gen;
	lk_last.owner_ok = false;
	return file;
}

/*
 * The handle's file, or NULL when the request was answered here: a control
 * file (ENOLCK), -o test_skip_locks, a stale handle.  Those are checked only
 * on a cache miss: the cache is keyed by inode and handle and is never
 * filled for a control file or under test_skip_locks (a control file's fh
 * is a pointer, which could equal a model handle).  getlk: the GETLK's lock.
 */
static __always_inline struct file *lk_file(fuse_req_t req, fuse_ino_t ino,
					    struct fuse_file_info *fi, struct flock *getlk)
{
	unsigned long gen = __atomic_load_n(&lk_gen, __ATOMIC_ACQUIRE);

	/* a hit means this thread was attached (rvf_enter) in this instance:
	 * the cache was filled after it, and teardown bumps lk_gen */
	if (likely(lk_last.ino == ino && lk_last.fh == fi->fh && lk_last.gen == gen))
		return lk_last.file;
	return lk_file_slow(req, ino, fi->fh, gen, getlk);
}

void rvf_ll_getlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, struct flock *lock)
{
	struct file *file;
	int err;

	rv_stat_inc(req_getlk);
	file = lk_file(req, ino, fi, lock);
	if (!file)
		return;
	/* the kernel forwards F_OFD_GETLK as a GETLK owned by the open file, an
	 * F_UNLCK one (which lock do I hold here?) included: the test below
	 * fcntl answers both (a plain F_GETLK of F_UNLCK never gets here) */
	err = locks_test_lock(file, lock, (fl_owner_t)(uintptr_t)fi->lock_owner);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_lock(req, lock);
}

enum lk_kind { LK_POSIX, LK_FLOCK };

/*
 * A blocking request that conflicted: queue it in the model and return.
 * file is borrowed (lk_file); the waiter takes a reference of its own, held
 * until its reply.  Inside a scope.
 */
static void lk_defer(fuse_req_t req, struct file *file, enum lk_kind kind, struct flock *lock,
		     uint64_t owner, int op, pid_t pid)
{
	struct rvf_lkw *w = calloc(1, sizeof(*w));
	int ret;

	if (w)
		w->lreq = locks_alloc_req(lkw_grant, w);
	if (!w || !w->lreq) {
		free(w);
		fuse_reply_err(req, ENOLCK);
		return;
	}
	w->req = req;
	w->file = get_file(file);
	w->refs = 2; /* the submitter's and the completion's */
	INIT_LIST_HEAD(&w->grant_link);
	INIT_LIST_HEAD(&w->cancel_link);
	pthread_mutex_lock(&lkw_lock);
	list_add_tail(&w->all, &lkw_all);
	pthread_mutex_unlock(&lkw_lock);
	/* an interrupt that already came runs lkw_interrupt right here */
	fuse_req_interrupt_func(req, lkw_interrupt, w);

	if (kind == LK_POSIX)
		ret = fcntl_setlk(file, F_SETLKW, lock, (fl_owner_t)(uintptr_t)owner, pid, w->lreq);
	else
		ret = flock_lock_file(file, (unsigned int)op, pid, w->lreq);

	if (ret == FILE_LOCK_DEFERRED) {
		rv_stat_inc(fuse_lock_deferred);
		/* an interrupt the helper found before the request was queued */
		smp_mb();
		if (__atomic_load_n(&w->intr, __ATOMIC_SEQ_CST) &&
		    locks_cancel_req(w->lreq) == -EINTR) {
			rv_stat_inc(fuse_lock_interrupted);
			lkw_complete(w, -EINTR);
		}
	} else if (ret != -EINTR) {
		/* completed at once (no grant callback): ours to answer */
		lkw_complete(w, ret);
	} /* -EINTR: a cancel claimed it, and answers */
	lkw_put(w);
}

/* SETLKW: first without waiting, then deferred (lk_defer). */
static __noinline void lk_setlkw(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
				 struct flock *lock)
{
	struct file *file;
	int err;

	rv_stat_inc(req_setlkw);
	file = lk_file(req, ino, fi, NULL);
	if (!file)
		return;
	lk_scope_enter();
	if (lock->l_type != F_UNLCK) {
		err = lkf_note(file, fi->lock_owner);
		if (err)
			goto reply;
	}
	/* first without waiting: the common, uncontended case costs no waiter
	 * (fcntl_setlk only reads *lock) */
	err = fcntl_setlk(file, F_SETLK, lock, (fl_owner_t)(uintptr_t)fi->lock_owner, lock->l_pid,
			  NULL);
	if (err == -EAGAIN) {
		lk_defer(req, file, LK_POSIX, lock, fi->lock_owner, 0, lock->l_pid);
		lk_scope_exit();
		return;
	}
reply:
	lk_scope_exit();
	fuse_reply_err(req, -err);
}

/* SETLK here, SETLKW in lk_setlkw: this path keeps only req across its calls. */
void rvf_ll_setlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, struct flock *lock,
		  int sleep)
{
	struct file *file;
	int err = 0;

	if (sleep) {
		lk_setlkw(req, ino, fi, lock);
		return;
	}
	rv_stat_inc(req_setlk);
	file = lk_file(req, ino, fi, NULL);
	if (!file)
		return;
	lk_scope_enter();
	if (lock->l_type != F_UNLCK)
		err = lkf_note(file, fi->lock_owner);
	if (!err)
		err = fcntl_setlk(file, F_SETLK, lock, (fl_owner_t)(uintptr_t)fi->lock_owner,
				  lock->l_pid, NULL);
	/* pending grants first: then the reply is a tail call */
	lk_scope_exit();
	fuse_reply_err(req, -err);
}

/* A blocking flock: first without waiting, then deferred (lk_defer). */
static __noinline void lk_flock_wait(fuse_req_t req, struct file *file, int op, pid_t pid)
{
	int err;

	lk_scope_enter();
	err = flock_lock_file(file, (unsigned int)op | LOCK_NB, pid, NULL);
	if (err == -EWOULDBLOCK) {
		lk_defer(req, file, LK_FLOCK, NULL, 0, op, pid);
		lk_scope_exit();
		return;
	}
	lk_scope_exit();
	fuse_reply_err(req, -err);
}

void rvf_ll_flock(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, int op)
{
	struct file *file;
	pid_t pid;
	int err;

	rv_stat_inc(req_flock);
	file = lk_file(req, ino, fi, NULL);
	if (!file)
		return;
	pid = fuse_req_ctx(req)->pid;
	/* LOCK_UN and LOCK_NB never wait: this path keeps only req */
	if (!(op & (LOCK_UN | LOCK_NB))) {
		lk_flock_wait(req, file, op, pid);
		return;
	}
	lk_scope_enter();
	err = flock_lock_file(file, (unsigned int)op, pid, NULL);
	lk_scope_exit();
	fuse_reply_err(req, -err);
}

/* ---- hooks ------------------------------------------------------------------ */

size_t rvf_locks_format(char *buf, size_t len)
{
	return locks_format_proc(buf, len);
}

void rvf_locks_flush(struct file *file, uint64_t lock_owner)
{
	lk_scope_enter();
	locks_remove_posix(file, (fl_owner_t)(uintptr_t)lock_owner);
	lk_scope_exit();
}

void rvf_locks_release(struct file *file, uint64_t fh)
{
	(void)fh;
	/* before the fd is closed: no thread's handle cache matches it again */
	__atomic_fetch_add(&lk_gen, 1, __ATOMIC_RELEASE);
	lk_scope_enter();
	lkf_release(file);
	/* flock (and model OFD) locks through it, here rather than in the last
	 * fput, which may run under the BKL (bkl_ops=release) */
	locks_remove_file(file);
	lk_scope_exit();
}

void rvf_locks_shutdown(void)
{
	struct rvf_lkw **v = NULL, *w;
	size_t n = 0, cap = 0, i;

	rvf_enter();
	lk_scope_enter();
	pthread_mutex_lock(&lkw_lock);
	list_for_each_entry(w, &lkw_all, all) {
		if (n == cap) {
			struct rvf_lkw **nv;

			cap = cap ? 2 * cap : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		lkw_get(w);
		v[n++] = w;
	}
	pthread_mutex_unlock(&lkw_lock);
	for (i = 0; i < n; i++) {
		if (locks_cancel_req(v[i]->lreq) == -EINTR) {
			rv_stat_inc(fuse_lock_shutdown);
			lkw_complete(v[i], -ENOLCK);
		}
		lkw_put(v[i]);
	}
	free(v);
	lk_scope_exit();

	pthread_mutex_lock(&helper.lock);
	helper.stop = true;
	pthread_cond_signal(&helper.cond);
	pthread_mutex_unlock(&helper.lock);
	if (helper.started)
		pthread_join(helper.thread, NULL);
	/* a later instance (op-layer tests) may start it again */
	helper.started = false;
	helper.stop = false;
}

void rvf_locks_drop_all(void)
{
	struct lkf_rec *r, *t;

	pthread_once(&lkf_once, lkf_init);
	__atomic_fetch_add(&lk_gen, 1, __ATOMIC_RELEASE);
	lk_scope_enter();
	for (int i = 0; i < LKF_BUCKETS; i++) {
		pthread_mutex_lock(&lkf_hash[i].lock);
		list_for_each_entry_safe(r, t, &lkf_hash[i].head, link) {
			/* r->file is still in the fd table: records go at RELEASE */
			for (size_t k = 0; k < r->n; k++)
				locks_remove_posix(r->file, (fl_owner_t)(uintptr_t)r->owners[k]);
			list_del_init(&r->link);
			free(r->owners);
			free(r);
		}
		pthread_mutex_unlock(&lkf_hash[i].lock);
	}
	lk_scope_exit();
}
