// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * locks/check.c - locks_check and locks_check_live (locks/testing.h; the
 * test library, not librcuvfs.a): the invariants of the
 * lock lists, the blocker trees, blocked_hash and the owner accounting,
 * checked from the outside (as mm_check does for mm/).
 *
 * Locking: none is taken.  locks_check runs when no task is inside locks/
 * (the end of a test); locks_check_live runs in the explorer build while
 * every explored task is parked at a scheduling point, so nothing changes
 * under it.  In the explorer build it also walks the waiters of requests
 * that hang in no tree (lk_xreq, kept by locks.c).  The walk is bounded
 * by nr_blocked, so a cycle in a broken tree is reported, not followed.
 */
#include "locks/internal.h"
#include "locks/testing.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define LK_CHECK_REPORT_MAX 8

struct lk_checker {
	char *why;
	size_t len;
	int errors;
	long waiters, hashed; /* found in the trees */
	long budget;	      /* nodes left to visit (a cycle stops here) */
	struct file_lock_context **ctx;
	size_t nctx, capctx;
};

static void lk_check_fail(struct lk_checker *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void lk_check_fail(struct lk_checker *c, const char *fmt, ...)
{
	va_list ap;

	if (c->errors == 0 && c->len) {
		va_start(ap, fmt);
		vsnprintf(c->why, c->len, fmt, ap);
		va_end(ap);
	}
	if (c->errors++ >= LK_CHECK_REPORT_MAX)
		return;
	fputs("locks_check: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static bool lk_on_hash_bucket(const struct file_lock *w)
{
	const struct file_lock *fl;

	list_for_each_entry(fl, &blocked_hash[blocked_hash_key(w->fl_owner)], fl_link) {
		if (fl == w)
			return true;
	}
	return false;
}

/* The waiters below node (a held lock or a waiter), recursively. */
static void lk_check_waiters(struct lk_checker *c, struct file_lock *node, bool posix)
{
	bool (*conflict)(const struct file_lock *, const struct file_lock *) =
	    posix ? posix_locks_conflict : flock_locks_conflict;
	struct file_lock *w;

	list_for_each_entry(w, &node->fl_blocked_requests, fl_blocked_member) {
		bool want_hash = (node->fl_flags & (FL_POSIX | FL_OFDLCK)) == FL_POSIX;
		bool hashed = !list_empty(&w->fl_link);

		if (--c->budget < 0) {
			lk_check_fail(c,
				      "the blocker tree has more waiters than nr_blocked "
				      "(%ld): a cycle?",
				      nr_blocked);
			return;
		}
		c->waiters++;
		if (w->fl_blocker != node)
			lk_check_fail(c, "waiter %p hangs under %p but fl_blocker is %p", (void *)w,
				      (void *)node, (void *)w->fl_blocker);
		if (!!(w->fl_flags & FL_POSIX) != posix)
			lk_check_fail(c, "waiter %p (flags %#x) under a %s lock", (void *)w,
				      w->fl_flags, posix ? "POSIX" : "flock");
		else if (!conflict(node, w))
			lk_check_fail(c,
				      "waiter %p (type %d, %lld-%lld) does not conflict with its "
				      "blocker %p (type %d, %lld-%lld)",
				      (void *)w, w->fl_type, (long long)w->fl_start,
				      (long long)w->fl_end, (void *)node, node->fl_type,
				      (long long)node->fl_start, (long long)node->fl_end);
		if (hashed != want_hash)
			lk_check_fail(c, "waiter %p is %s blocked_hash but its blocker %p is %s",
				      (void *)w, hashed ? "on" : "not on", (void *)node,
				      want_hash ? "a POSIX non-OFD lock" : "not one");
		else if (hashed && !lk_on_hash_bucket(w))
			lk_check_fail(c, "waiter %p is hashed outside its owner's bucket",
				      (void *)w);
		c->hashed += hashed;
		lk_check_waiters(c, w, posix);
	}
}

static void lk_check_held(struct lk_checker *c, struct file_lock_context *ctx, struct file_lock *fl,
			  bool posix)
{
	if (fl->fl_ctx != ctx)
		lk_check_fail(c, "held lock %p on inode %llu's list has fl_ctx %p", (void *)fl,
			      (unsigned long long)ctx->flc_ino, (void *)fl->fl_ctx);
	if (fl->fl_blocker || !list_empty(&fl->fl_blocked_member))
		lk_check_fail(c, "held lock %p waits (fl_blocker %p)", (void *)fl,
			      (void *)fl->fl_blocker);
	if (list_empty(&fl->fl_link))
		lk_check_fail(c, "held lock %p is not on the global list", (void *)fl);
	if ((fl->fl_type != F_RDLCK && fl->fl_type != F_WRLCK) ||
	    !(fl->fl_flags & (posix ? FL_POSIX : FL_FLOCK)) || fl->fl_start < 0 ||
	    fl->fl_end < fl->fl_start)
		lk_check_fail(c, "held lock %p: flags %#x type %d range %lld-%lld", (void *)fl,
			      fl->fl_flags, fl->fl_type, (long long)fl->fl_start,
			      (long long)fl->fl_end);
	lk_check_waiters(c, fl, posix);
}

/* Consecutive records of one owner, a before b in flc_posix. */
static void lk_check_posix_pair(struct lk_checker *c, const struct file_lock *a,
				const struct file_lock *b, unsigned long long ino)
{
	if (b->fl_start <= a->fl_end)
		lk_check_fail(c,
			      "inode %llu: owner %p's records %lld-%lld and %lld-%lld out of "
			      "order or overlapping",
			      ino, a->fl_owner, (long long)a->fl_start, (long long)a->fl_end,
			      (long long)b->fl_start, (long long)b->fl_end);
	else if (a->fl_type == b->fl_type && a->fl_end + 1 == b->fl_start)
		lk_check_fail(c,
			      "inode %llu: owner %p's adjacent %s records %lld-%lld and "
			      "%lld-%lld were not merged",
			      ino, a->fl_owner, a->fl_type == F_WRLCK ? "write" : "read",
			      (long long)a->fl_start, (long long)a->fl_end, (long long)b->fl_start,
			      (long long)b->fl_end);
}

static long lk_check_ctx(struct lk_checker *c, struct file_lock_context *ctx)
{
	unsigned long long ino = (unsigned long long)ctx->flc_ino;
	struct file_lock *fl, *g;
	long n = 0;

	list_for_each_entry(fl, &ctx->flc_flock, fl_list) {
		n++;
		lk_check_held(c, ctx, fl, false);
		for (g = list_entry((fl)->fl_list.next, struct file_lock, fl_list);
		     &g->fl_list != &ctx->flc_flock;
		     g = list_entry((g)->fl_list.next, struct file_lock, fl_list))
			if (g->fl_file == fl->fl_file || flock_locks_conflict(fl, g))
				lk_check_fail(c, "inode %llu: flock records %p and %p %s", ino,
					      (void *)fl, (void *)g,
					      g->fl_file == fl->fl_file ? "of one open file"
									: "conflict");
	}
	list_for_each_entry(fl, &ctx->flc_posix, fl_list) {
		struct file_lock *next = list_entry((fl)->fl_list.next, struct file_lock, fl_list);
		bool last = &next->fl_list == &ctx->flc_posix;

		n++;
		lk_check_held(c, ctx, fl, true);
		if (!last && next->fl_owner == fl->fl_owner)
			lk_check_posix_pair(c, fl, next, ino);
		for (g = next; &g->fl_list != &ctx->flc_posix;
		     g = list_entry((g)->fl_list.next, struct file_lock, fl_list)) {
			if (posix_locks_conflict(fl, g))
				lk_check_fail(c, "inode %llu: held locks %p and %p conflict", ino,
					      (void *)fl, (void *)g);
			/* an owner that reappears after another owner's records */
			if (g->fl_owner == fl->fl_owner && g != next &&
			    list_entry((g)->fl_list.prev, struct file_lock, fl_list)->fl_owner !=
				fl->fl_owner)
				lk_check_fail(c,
					      "inode %llu: owner %p's records are not contiguous",
					      ino, fl->fl_owner);
		}
	}
	return n;
}

static bool lk_check_add_ctx(struct lk_checker *c, struct file_lock_context *ctx)
{
	for (size_t i = 0; i < c->nctx; i++)
		if (c->ctx[i] == ctx)
			return false;
	if (c->nctx == c->capctx) {
		size_t cap = c->capctx ? 2 * c->capctx : 16;
		void *p = realloc(c->ctx, cap * sizeof(*c->ctx));

		if (!p)
			return false;
		c->ctx = p;
		c->capctx = cap;
	}
	c->ctx[c->nctx++] = ctx;
	return true;
}

/* Records the owner holds on every list (POSIX and OFD only). */
static long lk_check_owner_records(struct lk_checker *c, fl_owner_t owner)
{
	long n = 0;

	for (size_t i = 0; i < c->nctx; i++) {
		struct file_lock *fl;

		list_for_each_entry(fl, &c->ctx[i]->flc_posix, fl_list)
			n += fl->fl_owner == owner;
	}
	return n;
}

/* locks_check_live: the waiters of requests that hang in no tree. */
static void lk_check_detached(struct lk_checker *c)
{
#ifdef RCUVFS_EXPLORE
	if (__atomic_load_n(&lk_xreq_lost, __ATOMIC_RELAXED)) {
		/* a request we cannot see may hold waiters: count only up to */
		c->waiters = nr_blocked;
		return;
	}
	for (int i = 0; i < LK_XREQ_MAX; i++) {
		struct file_lock *req = lk_xreq[i];

		if (!req || req->fl_blocker)
			continue; /* in a tree: walked from its held lock */
		lk_check_waiters(c, req, (req->fl_flags & FL_POSIX) != 0);
	}
#else
	(void)c;
#endif
}

static int lk_check(char *why, size_t len, bool live)
{
	struct lk_checker c = {.why = why, .len = len, .budget = nr_blocked};
	long global = 0, on_lists = 0, hash_entries = 0;

	if (len)
		why[0] = '\0';
	for (int i = 0; i < LOCK_SHARDS; i++) {
		struct file_lock *fl;
		long n = 0;

		list_for_each_entry(fl, &lock_shards[i].list, fl_link) {
			n++;
			if (!fl->fl_ctx)
				lk_check_fail(&c, "lock %p on the global list has no context",
					      (void *)fl);
			else
				lk_check_add_ctx(&c, fl->fl_ctx);
		}
		if (n != lock_shards[i].nr)
			lk_check_fail(&c, "global list shard %d holds %ld locks, counts %ld", i, n,
				      lock_shards[i].nr);
		global += n;
	}
	for (size_t i = 0; i < c.nctx; i++)
		on_lists += lk_check_ctx(&c, c.ctx[i]);
	if (live)
		lk_check_detached(&c);
	if (on_lists != global)
		lk_check_fail(&c, "%ld locks on the inodes' lists, %ld on the global list",
			      on_lists, global);
	if (c.waiters != nr_blocked)
		lk_check_fail(&c, "%ld waiters in the blocker trees, nr_blocked %ld", c.waiters,
			      nr_blocked);
	for (int i = 0; i < BLOCKED_HASH_SIZE; i++) {
		struct file_lock *fl;

		list_for_each_entry(fl, &blocked_hash[i], fl_link) {
			hash_entries++;
			if (!fl->fl_blocker)
				lk_check_fail(&c, "request %p is on blocked_hash with no blocker",
					      (void *)fl);
			if (hash_entries > nr_blocked + 1)
				break; /* a broken bucket; reported below */
		}
	}
	if (hash_entries != c.hashed)
		lk_check_fail(&c, "blocked_hash holds %ld requests, the trees' hashed waiters %ld",
			      hash_entries, c.hashed);
	for (int i = 0; i < OWNER_HASH_SIZE; i++) {
		struct owner_acct *a;

		list_for_each_entry(a, &owner_hash[i].head, link) {
			long n = lk_check_owner_records(&c, a->owner);

			/* live: a record is charged before it is inserted and
			 * uncharged after it is taken off, outside the list lock */
			if (live ? n > a->count : n != a->count)
				lk_check_fail(&c, "owner %p is charged %ld records and holds %ld",
					      a->owner, a->count, n);
		}
	}
	free(c.ctx);
	return c.errors ? -EINVAL : 0;
}

int locks_check(char *why, size_t len)
{
	return lk_check(why, len, false);
}

int locks_check_live(char *why, size_t len)
{
	return lk_check(why, len, true);
}
