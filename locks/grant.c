// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * locks/grant.c - the per-thread queue of deferred grants: how a blocking
 * FUSE request is answered by the thread that removes its conflict.
 *
 * When a waker finds a deferred request (FL_DEFERRED) among the waiters it
 * wakes, it does not retry it in place: under the blocked lock it takes a
 * reference and appends the request to its own thread's queue
 * (lk_queue_grant).  The queue is run when the thread leaves its outermost
 * locks/ entry point (lk_exit), after every lock-list lock and the BKL
 * taken for bkl_ops=lock are dropped, so a grant callback (which replies
 * to FUSE) never runs under a lock of the engine.  Retrying (locks.c's
 * locks_retry_req) may append more requests; grant callbacks that unlock
 * append too (lk_depth > 1 there), and the loop below picks them up
 * instead of recursing.  The queue is thread-local: no lock protects it.
 * Linux has no such queue: lockd's lm_grant is called from the waker
 * directly; the model defers it so that no worker thread ever parks.
 */
#include "locks/internal.h"

__thread __tls_hot struct file_lock_req *lk_grant_head, *lk_grant_tail;
__thread __tls_hot int lk_depth;

/* Run this thread's grant queue; nested grants are appended to it. */
void locks_run_grants(void)
{
	struct file_lock_req *req;

	while ((req = lk_grant_head) != NULL) {
		lk_grant_head = req->grant_next;
		req->grant_next = NULL;
		locks_retry_req(req);
		locks_put_req(req);
	}
}
