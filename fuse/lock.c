// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuse/lock.c - getlk, setlk and flock through the mount, on locks/.
 *
 * The kernel forwards locks once the daemon implements them
 * (FUSE_CAP_POSIX_LOCKS, FUSE_CAP_FLOCK_LOCKS).  POSIX owners are the
 * request's lock_owner (the kernel's hash of current->files, or of the open
 * file for OFD locks, which arrive as ordinary POSIX requests); pids come
 * from the lock's l_pid (the locker's tgid; 0 for unlocks) for POSIX and
 * from the requester for flock.
 *
 * Blocking requests never park a worker.  They are submitted to locks/ with
 * a struct file_lock_req and, when they must wait, come back
 * FILE_LOCK_DEFERRED: the request is answered later by whichever thread
 * removes the conflict (lock_granted, called by locks/ after it dropped every
 * lock-list lock), or by a FUSE interrupt (lock_interrupted: EINTR once
 * locks_cancel_req withdrew it), or by shutdown (ENOLCK).  locks/ decides
 * grant vs cancel with one atomic state; here one more pair of bits decides
 * who answers:
 *
 *   W_SUBMITTED  the submitting thread has registered the interrupt function
 *   W_DONE       the outcome is known (w->result)
 *
 * Each side sets its bit with one atomic OR; the side that sets the second
 * bit replies (finish).  So a grant that fires before fcntl_setlk even
 * returned, or an interrupt delivered inside fuse_req_interrupt_func, is
 * answered by the submitter once registration is complete, and nobody
 * replies to a request whose interrupt function libfuse might still call.
 * finish() first unregisters the interrupt function
 * (fuse_req_interrupt_func(req, NULL, NULL) waits for a running callback to
 * return, under libfuse's req->lock) unless it runs inside that callback.
 * No lock of ours is held across fuse_reply_* or fuse_req_interrupt_func.
 *
 * flush drops the flushing owner's POSIX locks (close(2) semantics);
 * release drops what is still held through the handle: the POSIX/OFD locks
 * of every owner that locked through it (recorded here per handle: the
 * kernel's release carries no owner for OFD locks) and, through the last
 * fput, the flock locks.  The kernel sends RELEASE asynchronously after the
 * last close, so a flock or OFD lock can outlive close() briefly.
 *
 * Locking: pending_lock (spinlock) protects the pending list; owners_lock
 * (spinlock) the per-handle owner records.  Both are leaves: nothing is
 * called with them held.
 */
#include "fuse/daemon.h"
#include "locks/locks.h"

#include <stdlib.h>
#include <string.h>

RV_STAT_DEFINE(req_getlk, "FUSE getlk requests");
RV_STAT_DEFINE(req_setlk, "FUSE setlk requests (POSIX and OFD)");
RV_STAT_DEFINE(req_flock, "FUSE flock requests");
RV_STAT_DEFINE(fuse_lock_deferred, "lock requests queued as deferred grants");
RV_STAT_DEFINE(fuse_lock_interrupted, "deferred lock requests answered EINTR after an interrupt");
RV_STAT_DEFINE(fuse_lock_shutdown, "deferred lock requests answered at unmount");

#define W_SUBMITTED 1
#define W_DONE	    2

struct rvf_lockwait {
	fuse_req_t req;
	struct file *file;	  /* reference held until finish */
	struct file_lock_req *lr; /* our reference on the locks/ request */
	int state;		  /* atomic: W_SUBMITTED | W_DONE */
	int result;		  /* written before W_DONE is set */
	struct list_head pending; /* on pending_list; pending_lock */
};

static DEFINE_SPINLOCK(pending_lock);
static struct list_head pending_list = LIST_HEAD_INIT(pending_list);

/* ---- owners that locked through a handle --------------------------------- */

#define OWNERS_BUCKETS 256
struct fh_owners {
	uint64_t fh;
	int n, cap;
	uint64_t *owner;
	struct fh_owners *next;
};
static DEFINE_SPINLOCK(owners_lock);
static struct fh_owners *owners_hash[OWNERS_BUCKETS];

static struct fh_owners **owners_slot(uint64_t fh)
{
	struct fh_owners **p = &owners_hash[(fh ^ (fh >> 32)) % OWNERS_BUCKETS];

	while (*p && (*p)->fh != fh)
		p = &(*p)->next;
	return p;
}

static void owners_record(uint64_t fh, uint64_t owner)
{
	struct fh_owners *o, **p;
	uint64_t *nv;
	int i;

	spin_lock(&owners_lock);
	p = owners_slot(fh);
	o = *p;
	if (!o) {
		o = calloc(1, sizeof(*o));
		if (!o)
			goto out;
		o->fh = fh;
		*p = o;
	}
	for (i = 0; i < o->n; i++)
		if (o->owner[i] == owner)
			goto out;
	if (o->n == o->cap) {
		nv = realloc(o->owner, (size_t)(o->cap ? 2 * o->cap : 4) * sizeof(*nv));
		if (!nv)
			goto out;
		o->owner = nv;
		o->cap = o->cap ? 2 * o->cap : 4;
	}
	o->owner[o->n++] = owner;
out:
	spin_unlock(&owners_lock);
}

static struct fh_owners *owners_take(uint64_t fh)
{
	struct fh_owners *o, **p;

	spin_lock(&owners_lock);
	p = owners_slot(fh);
	o = *p;
	if (o)
		*p = o->next;
	spin_unlock(&owners_lock);
	return o;
}

/*
 * Teardown: the kernel will send no more flush or release, so drop the
 * POSIX locks of every owner recorded on a handle still open (closing the
 * handles afterwards drops flock and OFD locks through the last fput).
 */
void rvf_locks_drop_all(void)
{
	struct fh_owners *o;
	struct file *file;
	int i;

	for (i = 0; i < OWNERS_BUCKETS; i++) {
		spin_lock(&owners_lock);
		while ((o = owners_hash[i]) != NULL) {
			owners_hash[i] = o->next;
			spin_unlock(&owners_lock);
			file = rvf_fget(o->fh);
			if (file) {
				for (int k = 0; k < o->n; k++)
					locks_remove_posix(file,
							   (fl_owner_t)(uintptr_t)o->owner[k]);
				fput(file);
			}
			free(o->owner);
			free(o);
			spin_lock(&owners_lock);
		}
		spin_unlock(&owners_lock);
	}
}

/* ---- deferred requests ---------------------------------------------------------- */

static void lockwait_finish(struct rvf_lockwait *w, bool in_interrupt)
{
	spin_lock(&pending_lock);
	list_del_init(&w->pending);
	spin_unlock(&pending_lock);
	/* no interrupt callback may run on w after this (see top comment) */
	if (!in_interrupt)
		fuse_req_interrupt_func(w->req, NULL, NULL);
	fuse_reply_err(w->req, -w->result);
	locks_put_req(w->lr);
	fput(w->file);
	free(w);
}

static void lockwait_complete(struct rvf_lockwait *w, int result, bool in_interrupt)
{
	w->result = result;
	/* release: result is visible to whoever sees W_DONE */
	if (__atomic_fetch_or(&w->state, W_DONE, __ATOMIC_ACQ_REL) & W_SUBMITTED)
		lockwait_finish(w, in_interrupt);
}

/* locks/: the conflict is gone (result 0) or the request failed. */
static void lock_granted(struct file_lock_req *lr, int result)
{
	lockwait_complete(lr->private, result, false);
}

/* libfuse: the requester got a signal (called under libfuse's req->lock). */
static void lock_interrupted(fuse_req_t req, void *data)
{
	struct rvf_lockwait *w = data;

	if (locks_cancel_req(w->lr) == -EINTR) {
		rv_stat_inc(fuse_lock_interrupted);
		lockwait_complete(w, -EINTR, true);
	}
	/* else a grant claimed it first and answers */
}

static struct rvf_lockwait *lockwait_alloc(fuse_req_t req, struct file *file)
{
	struct rvf_lockwait *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->lr = locks_alloc_req(lock_granted, w);
	if (!w->lr) {
		free(w);
		return NULL;
	}
	w->req = req;
	w->file = file;
	INIT_LIST_HEAD(&w->pending);
	spin_lock(&pending_lock);
	list_add_tail(&w->pending, &pending_list);
	spin_unlock(&pending_lock);
	return w;
}

/* After submitting: ret is locks/'s answer for w->lr. */
static void lockwait_submitted(struct rvf_lockwait *w, int ret)
{
	if (ret != FILE_LOCK_DEFERRED) {
		/* answered synchronously: the grant callback never runs */
		w->result = ret;
		w->state = W_DONE | W_SUBMITTED;
		spin_lock(&pending_lock);
		list_del_init(&w->pending);
		spin_unlock(&pending_lock);
		fuse_reply_err(w->req, -ret);
		locks_put_req(w->lr);
		fput(w->file);
		free(w);
		return;
	}
	rv_stat_inc(fuse_lock_deferred);
	fuse_req_interrupt_func(w->req, lock_interrupted, w);
	if (__atomic_fetch_or(&w->state, W_SUBMITTED, __ATOMIC_ACQ_REL) & W_DONE)
		lockwait_finish(w, false);
}

/* Answer every deferred request still waiting (after the loop ended). */
void rvf_locks_shutdown(void)
{
	struct rvf_lockwait *w;

	for (;;) {
		spin_lock(&pending_lock);
		if (list_empty(&pending_list)) {
			spin_unlock(&pending_lock);
			break;
		}
		w = list_first_entry(&pending_list, struct rvf_lockwait, pending);
		list_del_init(&w->pending);
		spin_unlock(&pending_lock);
		/* no worker runs any more: only this thread completes requests */
		if (locks_cancel_req(w->lr) == -EINTR) {
			rv_stat_inc(fuse_lock_shutdown);
			lockwait_complete(w, -ENOLCK, false);
		}
	}
}

/* ---- the operations ---------------------------------------------------------------- */

static struct file *lock_fget(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct file *file;

	if (rvf_ino_is_ctl(ino)) {
		fuse_reply_err(req, ENOLCK);
		return NULL;
	}
	rvf_enter();
	file = rvf_fget(fi->fh);
	if (!file)
		fuse_reply_err(req, EBADF);
	return file;
}

void rvf_ll_getlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, struct flock *lock)
{
	struct file *file;
	int err;

	rv_stat_inc(req_getlk);
	file = lock_fget(req, ino, fi);
	if (!file)
		return;
	err = fcntl_getlk(file, F_GETLK, lock, (fl_owner_t)(uintptr_t)fi->lock_owner);
	fput(file);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_lock(req, lock);
}

void rvf_ll_setlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, struct flock *lock,
		  int sleep)
{
	fl_owner_t owner = (fl_owner_t)(uintptr_t)fi->lock_owner;
	struct rvf_lockwait *w;
	struct file *file;
	int err;

	rv_stat_inc(req_setlk);
	file = lock_fget(req, ino, fi);
	if (!file)
		return;
	if (lock->l_type != F_UNLCK)
		owners_record(fi->fh, fi->lock_owner);
	if (!sleep || lock->l_type == F_UNLCK) {
		err = fcntl_setlk(file, F_SETLK, lock, owner, lock->l_pid, NULL);
		fput(file);
		fuse_reply_err(req, -err);
		return;
	}
	w = lockwait_alloc(req, file);
	if (!w) {
		fput(file);
		fuse_reply_err(req, ENOLCK);
		return;
	}
	lockwait_submitted(w, fcntl_setlk(file, F_SETLKW, lock, owner, lock->l_pid, w->lr));
}

void rvf_ll_flock(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, int op)
{
	pid_t pid = fuse_req_ctx(req)->pid;
	struct rvf_lockwait *w;
	struct file *file;
	int err;

	rv_stat_inc(req_flock);
	file = lock_fget(req, ino, fi);
	if (!file)
		return;
	if ((op & LOCK_NB) || (op & ~LOCK_NB) == LOCK_UN) {
		err = flock_lock_file(file, (unsigned int)op, pid, NULL);
		fput(file);
		fuse_reply_err(req, -err);
		return;
	}
	w = lockwait_alloc(req, file);
	if (!w) {
		fput(file);
		fuse_reply_err(req, ENOLCK);
		return;
	}
	lockwait_submitted(w, flock_lock_file(file, (unsigned int)op, pid, w->lr));
}

/* flush: close(2) drops the closing owner's POSIX locks on the inode. */
void rvf_locks_flush(struct file *file, uint64_t lock_owner)
{
	locks_remove_posix(file, (fl_owner_t)(uintptr_t)lock_owner);
}

/* release: POSIX/OFD locks of every owner that locked through fh. */
void rvf_locks_release(struct file *file, uint64_t fh)
{
	struct fh_owners *o = owners_take(fh);
	int i;

	if (!o)
		return;
	for (i = 0; i < o->n; i++)
		locks_remove_posix(file, (fl_owner_t)(uintptr_t)o->owner[i]);
	free(o->owner);
	free(o);
}

size_t rvf_locks_format(char *buf, size_t len)
{
	return locks_format_proc(buf, len);
}
