// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_lockgrant.c - the deferred lock requests the FUSE
 * daemon's lock layer is built on (locks/locks.h file_lock_req, the grant
 * queue of locks/grant.c): a grant racing with an interrupt, and the
 * holder's release waking a queued waiter.
 *
 * fuse/lockops.c itself takes a libfuse request (fuse_req_t) and replies
 * through a mount, so the scenario drives the model calls it makes, as its
 * worker, helper and FLUSH paths do: locks_alloc_req and fcntl_setlk with
 * the request (FILE_LOCK_DEFERRED instead of sleeping: lk_defer),
 * locks_cancel_req (the helper answering an interrupt), locks_remove_posix
 * (FLUSH), and the grant callback that the waker's thread runs when it
 * leaves the engine (lkw_grant).
 *
 * deferred-grant: H holds the POSIX lock W[0,0].
 *
 *   T0 (the worker, then the helper, then FLUSH for owner W): submits
 *      F_SETLKW W[0,0] for W with a request (0, granted at once, or
 *      FILE_LOCK_DEFERRED: queued under H's lock); cancels it (an
 *      interrupt: -EINTR when it withdrew the request, 0 when a grant
 *      claimed it first); drops W's locks (locks_remove_posix) and its
 *      reference to the request.
 *   T1 (H): `waker=unlock`: F_SETLK F_UNLCK of W[0,0]; `waker=flush`:
 *      locks_remove_posix for H (the holder's FLUSH).  Either wakes the
 *      queued request: the waker queues its grant and retries it when it
 *      leaves the engine, and the grant callback runs on T1.
 *
 * A FLUSH of W that runs while T1 is still inserting the lock it grants
 * to W does not see it (locks_remove_posix's unlocked list_empty test, as
 * Linux's: a lock that the owner is being granted at that moment is the
 * caller's race); the kernel's fcntl_setlk, given the reply after the fd
 * was closed, unlocks it (its recheck, Linux 6.10+), and the grant
 * callback does the same here.
 *
 * The oracle (lockops.c's "one claim": exactly one party replies): a
 * request granted at once gets no callback and no -EINTR; a deferred one
 * gets exactly one of the callback (with 0) and a cancel returning -EINTR;
 * W is never granted while H holds W[0,0]; locks_check_live between
 * critical sections; nothing is left at the end; the request is freed by
 * its last reference (the explorer's leak check and, in the sanitizer
 * build, ASan see a request freed early or never).
 *
 * Locking: the callback runs on the waker's thread with no lock-list lock
 * held; its counters are read by the check after every task finished.
 */
#include "explore.h"

#include <string.h>

#define LG_OWNER(n) ((fl_owner_t)(uintptr_t)(0x70000 + (n)*64))

struct lg_priv {
	struct file *f;
	struct file_lock_req *req;
	int h_holds; /* H holds (or may still hold) W[0,0] */
	int grants;  /* grant callbacks run */
	int gresult; /* the last one's result */
	int overlap; /* W granted while H held the lock */
	int closed;  /* W's fd is closed (its FLUSH started) */
	/* deferred-behind: X's request, queued behind W's */
	struct file_lock_req *xreq;
	int xgrants, xresult;
};

static int lg_setlk(struct file *f, unsigned int cmd, int owner, int type,
		    struct file_lock_req *req);

static void lg_grant(struct file_lock_req *req, int result)
{
	struct lg_priv *p = req->private;

	p->grants++;
	p->gresult = result;
	if (result == 0 && p->h_holds)
		p->overlap = 1;
	/*
	 * The kernel's fcntl_setlk, given the reply 0 after the fd was closed
	 * (its recheck, Linux 6.10+), unlocks what it was granted: a FLUSH
	 * that ran while the waker was still inserting W's lock (the racy
	 * list_empty of locks_remove_posix, as Linux's) did not see it.
	 */
	if (result == 0 && p->closed)
		lg_setlk(p->f, F_SETLK, 0, F_UNLCK, NULL);
}

static int lg_setlk(struct file *f, unsigned int cmd, int owner, int type,
		    struct file_lock_req *req)
{
	struct flock l = {.l_type = (short)type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};

	return fcntl_setlk(f, cmd, &l, LG_OWNER(owner), owner + 700, req);
}

static void lg_format(int task, int op, long v, char *buf, size_t len)
{
	(void)task;
	(void)op;
	if (v < 0)
		snprintf(buf, len, "-%s", strerror((int)-v));
	else if (v == FILE_LOCK_DEFERRED && task == 0 && op == 0)
		snprintf(buf, len, "DEFERRED");
	else
		snprintf(buf, len, "%ld", v);
}

static int lg_setup(struct xs_run *r)
{
	struct lg_priv *p = r->priv;

	if (!xs_process(r, 0, "daemon") || !xs_thread_of(r, 1, 0))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (filp_open("/xgrant", O_RDWR | O_CREAT, 0644, &p->f))
		return -EIO;
	p->req = locks_alloc_req(lg_grant, p);
	if (!p->req)
		return -ENOMEM;
	if (lg_setlk(p->f, F_SETLK, 1, F_WRLCK, NULL))
		return -EIO;
	p->h_holds = 1;
	return 0;
}

static long lg_op(struct xs_run *r, int task, int op)
{
	struct lg_priv *p = r->priv;
	int err;

	if (task == 1) {
		p->h_holds = 0; /* cleared before the release: a grant after it is fine */
		if (xs_param_is(r, "waker", "flush")) {
			locks_remove_posix(p->f, LG_OWNER(1));
			return 0;
		}
		return lg_setlk(p->f, F_SETLK, 1, F_UNLCK, NULL);
	}
	switch (op) {
	case 0:
		err = lg_setlk(p->f, F_SETLKW, 0, F_WRLCK, p->req);
		if (err == 0 && p->h_holds)
			p->overlap = 1;
		return err;
	case 1:
		return locks_cancel_req(p->req);
	default:
		p->closed = 1; /* close() takes the fd out of the table, then flushes */
		locks_remove_posix(p->f, LG_OWNER(0));
		locks_put_req(p->req);
		p->req = NULL;
		return 0;
	}
}

static int lg_check(struct xs_run *r, char *why, size_t len)
{
	struct lg_priv *p = r->priv;
	long sub = r->result[0][0], can = r->result[0][1];
	char msg[256];

	if ((sub != 0 && sub != FILE_LOCK_DEFERRED) || (can != 0 && can != -EINTR) ||
	    r->result[1][0]) {
		snprintf(why, len,
			 "submit %ld (0 or DEFERRED), cancel %ld (0 or EINTR), H's release %ld",
			 sub, can, r->result[1][0]);
		return 1;
	}
	if (sub == 0 && (p->grants || can)) {
		snprintf(why, len, "granted at once, then %d grant callback(s) and cancel %ld",
			 p->grants, can);
		return 1;
	}
	if (sub == FILE_LOCK_DEFERRED && p->grants + (can == -EINTR) != 1) {
		snprintf(why, len,
			 "deferred request answered %d times: %d grant callback(s), cancel %ld "
			 "(exactly one party replies)",
			 p->grants + (can == -EINTR), p->grants, can);
		return 1;
	}
	if (p->grants && p->gresult) {
		snprintf(why, len, "the grant callback got %d (0 expected)", p->gresult);
		return 1;
	}
	if (p->overlap) {
		snprintf(why, len, "W granted W[0,0] while H held it");
		return 1;
	}
	if (locks_format_proc(NULL, 0)) {
		snprintf(why, len, "locks left after both owners released");
		return 1;
	}
	if (locks_check(msg, sizeof(msg))) {
		snprintf(why, len, "locks_check: %s", msg);
		return 1;
	}
	return 0;
}

static void lg_teardown(struct xs_run *r)
{
	struct lg_priv *p = r->priv;

	xs_exit_tasks(r);
	if (p->req)
		locks_put_req(p->req);
	p->req = NULL;
	if (p->f)
		fput(p->f);
	p->f = NULL;
	do_unlink("/xgrant");
}

static struct xscenario deferred_grant = {
    .name = "deferred-grant",
    .summary = "a deferred F_SETLKW (the FUSE daemon's) granted by the holder's unlock or "
	       "flush while an interrupt cancels it",
    .ntasks = 2,
    .nops = {3, 1},
    .opname = {{"setlkw(W0-0,req)", "cancel(req)", "flush(W)+put(req)"}, {"release(H)"}},
    .params = {{"waker",
		{"unlock", "flush"},
		"H releases W[0,0] with F_SETLK F_UNLCK, or by locks_remove_posix (FLUSH)"}},
    .matrix_k = 2,
    .variants =
	{
	    {"waker=unlock", false},
	    {"waker=flush", false},
	    {"waker=unlock,filelock=inode", false},
	    {"waker=unlock,bkl_ops=lock", false},
	},
    .priv_size = sizeof(struct lg_priv),
    .setup = lg_setup,
    .op = lg_op,
    .midcheck = xs_locks_midcheck,
    .check = lg_check,
    .teardown = lg_teardown,
    .format = lg_format,
};
XSCENARIO(deferred_grant)

/*
 * deferred-behind: as deferred-grant, with W's request submitted in setup
 * (queued under H's lock) and a second deferred request, X's F_SETLKW
 * W[0,0], queued behind W's (it conflicts with it: __locks_insert_block,
 * fs/locks.c, Linux 6.12).  T0 cancels W's request, flushes W, drops the
 * request; T1 releases H's lock (`waker=unlock` or `flush`).  Whatever
 * happens to W's request, X's must be granted exactly once, with 0: the
 * cancel wakes the requests queued behind the one it withdraws (as
 * locks_delete_block does for a leaving waiter), the waker grants the ones
 * it finds, and a grant to W that W's flush then drops wakes X again.
 * X's lock is dropped by the check; then nothing may be left.
 */
static void lgx_grant(struct file_lock_req *req, int result)
{
	struct lg_priv *p = req->private;

	p->xgrants++;
	p->xresult = result;
	if (result == 0 && p->h_holds)
		p->overlap = 1;
}

static int lgx_setup(struct xs_run *r)
{
	struct lg_priv *p = r->priv;
	int err = lg_setup(r);

	if (err)
		return err;
	p->xreq = locks_alloc_req(lgx_grant, p);
	if (!p->xreq)
		return -ENOMEM;
	if (lg_setlk(p->f, F_SETLKW, 0, F_WRLCK, p->req) != FILE_LOCK_DEFERRED ||
	    lg_setlk(p->f, F_SETLKW, 2, F_WRLCK, p->xreq) != FILE_LOCK_DEFERRED)
		return -EIO;
	return 0;
}

static long lgx_op(struct xs_run *r, int task, int op)
{
	/* T0's ops are deferred-grant's from the cancel on */
	return lg_op(r, task, task == 0 ? op + 1 : op);
}

static int lgx_check(struct xs_run *r, char *why, size_t len)
{
	struct lg_priv *p = r->priv;
	long can = r->result[0][0];
	char msg[256];

	if ((can != 0 && can != -EINTR) || r->result[1][0] || p->grants + (can == -EINTR) != 1) {
		snprintf(why, len,
			 "W's request: cancel %ld, %d grant callback(s) (exactly one party "
			 "replies); H's release %ld",
			 can, p->grants, r->result[1][0]);
		return 1;
	}
	if (p->xgrants != 1 || p->xresult) {
		snprintf(why, len,
			 "X's request, queued behind W's: %d grant callback(s), result %d (one, "
			 "with 0)",
			 p->xgrants, p->xresult);
		return 1;
	}
	if ((p->grants && p->gresult) || p->overlap) {
		snprintf(why, len, "W's grant %d, or a grant while H held the lock", p->gresult);
		return 1;
	}
	locks_remove_posix(p->f, LG_OWNER(2));
	if (locks_format_proc(NULL, 0)) {
		snprintf(why, len, "locks left after every owner released");
		return 1;
	}
	if (locks_check(msg, sizeof(msg))) {
		snprintf(why, len, "locks_check: %s", msg);
		return 1;
	}
	return 0;
}

static void lgx_teardown(struct xs_run *r)
{
	struct lg_priv *p = r->priv;

	xs_exit_tasks(r);
	if (p->xreq) {
		/* a request never granted is still queued: withdraw it first */
		locks_cancel_req(p->xreq);
		locks_put_req(p->xreq);
	}
	p->xreq = NULL;
	if (p->req) {
		locks_cancel_req(p->req);
		locks_put_req(p->req);
	}
	p->req = NULL;
	if (p->f) {
		locks_remove_posix(p->f, LG_OWNER(0));
		locks_remove_posix(p->f, LG_OWNER(1));
		locks_remove_posix(p->f, LG_OWNER(2));
		fput(p->f);
	}
	p->f = NULL;
	do_unlink("/xgrant");
}

static struct xscenario deferred_behind = {
    .name = "deferred-behind",
    .summary = "a deferred F_SETLKW cancelled by an interrupt while another deferred request "
	       "waits behind it and the holder releases the lock",
    .ntasks = 2,
    .nops = {2, 1},
    .opname = {{"cancel(req)", "flush(W)+put(req)"}, {"release(H)"}},
    .params = {{"waker",
		{"unlock", "flush"},
		"H releases W[0,0] with F_SETLK F_UNLCK, or by locks_remove_posix (FLUSH)"}},
    .matrix_k = 2,
    .variants =
	{
	    {"waker=unlock", false},
	    {"waker=flush", false},
	    {"waker=unlock,filelock=inode", false},
	},
    .priv_size = sizeof(struct lg_priv),
    .setup = lgx_setup,
    .op = lgx_op,
    .midcheck = xs_locks_midcheck,
    .check = lgx_check,
    .teardown = lgx_teardown,
    .format = lg_format,
};
XSCENARIO(deferred_behind)
