// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_locks_linux.c - scenarios where the lock engine must give
 * the answer Linux 6.x gives (fs/locks.c: posix_lock_inode,
 * __locks_insert_block, posix_locks_deadlock, posix_test_lock,
 * fcntl_getlk), each checked against this machine's kernel on tmpfs with
 * real processes (the result is quoted at each test).
 *
 * Every scenario with a waiter runs twice: with waiters that sleep in their
 * own thread (F_SETLKW in a task) and with deferred requests (struct
 * file_lock_req, the path the FUSE daemon uses: granted by the thread that
 * removes the conflict).  Every suite runs once per filelock scheme, and
 * with bkl_ops=lock under global and inode.
 *
 * Waiting is bounded: a sleeping waiter is "settled" when the condition
 * that ends the scenario holds (it completed, or the blocked count says it
 * queued again); the bound only catches hangs.
 */
#include "test_locks_common.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum tw_path { TW_SLEEP, TW_DEFER };

/* One waiter: a blocking request on either path. */
struct tw {
	int path;
	struct file *f;
	unsigned int cmd; /* F_SETLKW, F_OFD_SETLKW, or 0: flock */
	int owner;
	int type; /* F_RDLCK/F_WRLCK (flock: LOCK_SH/LOCK_EX) */
	int64_t start, len;
	pthread_t th;
	struct task_struct *task;  /* sleeping path, published once running */
	struct file_lock_req *req; /* deferred path */
	int done;		   /* atomic */
	int ret;
};

static void tw_finish(struct tw *w, int ret)
{
	w->ret = ret;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
}

static bool tw_done(struct tw *w)
{
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

static int tw_call(struct tw *w, struct file_lock_req *req)
{
	struct flock l = {
	    .l_type = (short)w->type, .l_whence = SEEK_SET, .l_start = w->start, .l_len = w->len};

	if (!w->cmd)
		return flock_lock_file(w->f, (unsigned int)w->type, w->owner, req);
	return fcntl_setlk(w->f, w->cmd, &l, TL_OWNER(w->owner), w->owner, req);
}

static void *tw_main(void *p)
{
	struct tw *w = p;

	__atomic_store_n(&w->task, current, __ATOMIC_RELEASE);
	tw_finish(w, tw_call(w, NULL));
	return NULL;
}

static void tw_grant(struct file_lock_req *req, int result)
{
	tw_finish(req->private, result);
}

/*
 * Submit w; returns once it completed or queued (the blocked count reached
 * `queued`, the number of requests that wait once it waits too).
 */
static void tw_start(struct tw *w, int path, long queued)
{
	int ret;

	w->path = path;
	w->done = 0;
	w->task = NULL;
	w->req = NULL;
	if (path == TW_DEFER) {
		w->req = locks_alloc_req(tw_grant, w);
		ret = tw_call(w, w->req);
		if (ret != FILE_LOCK_DEFERRED)
			tw_finish(w, ret);
		return;
	}
	pthread_create(&w->th, NULL, tw_main, w);
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(tw_done(w) || locks_count_blocked() == queued, 10000), 0);
}

/* End w: cancel it if it still waits; -EINTR when it was cancelled. */
static int tw_end(struct tw *w)
{
	int ret = 0;

	if (w->path == TW_DEFER) {
		if (!tw_done(w))
			ret = locks_cancel_req(w->req);
		locks_put_req(w->req);
		return ret;
	}
	if (!tw_done(w)) {
		CU_ASSERT_EQUAL(WAIT_UNTIL_MS(__atomic_load_n(&w->task, __ATOMIC_ACQUIRE), 10000),
				0);
		task_signal(w->task);
	}
	pthread_join(w->th, NULL);
	return w->ret == -EINTR ? -EINTR : 0;
}

#define TW_POSIX(file, own, t, s, l)                                                               \
	(struct tw)                                                                                \
	{                                                                                          \
		.f = (file), .cmd = F_SETLKW, .owner = (own), .type = (t), .start = (s),           \
		.len = (l)                                                                         \
	}
#define TW_OFD(file, t, s, l)                                                                      \
	(struct tw)                                                                                \
	{                                                                                          \
		.f = (file), .cmd = F_OFD_SETLKW, .type = (t), .start = (s), .len = (l)            \
	}

static int tl_ofd(struct file *f, int type, int64_t start, int64_t len)
{
	struct flock l = {
	    .l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};

	return fcntl_setlk(f, F_OFD_SETLK, &l, NULL, 0, NULL);
}

/* F_GETLK (owner >= 0) or F_OFD_GETLK (owner < 0) on f; the answer as text. */
static const char *tl_getlk(struct file *f, int owner, int type, int64_t start, int64_t len)
{
	static __thread char out[96];
	struct flock l = {
	    .l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
	int err = fcntl_getlk(f, owner < 0 ? F_OFD_GETLK : F_GETLK, &l,
			      owner < 0 ? NULL : TL_OWNER(owner));

	if (err)
		snprintf(out, sizeof(out), "err %d", err);
	else if (l.l_type == F_UNLCK)
		snprintf(out, sizeof(out), "unlocked");
	else
		snprintf(out, sizeof(out), "%c %lld+%lld pid %d", l.l_type == F_WRLCK ? 'W' : 'R',
			 (long long)l.l_start, (long long)l.l_len, (int)l.l_pid);
	return out;
}

/*
 * What a blocked request waits under (its fl_blocker: a held lock or another
 * request), from the listing: `waiter` is the text after "-> " (e.g.
 * "POSIX  ADVISORY  WRITE 2 00:00:101 0 199"); returns the blocker's text
 * (after "N: " and any "-> "), or "" when the waiter is not listed.
 */
static const char *tl_blocker_of(const char *waiter)
{
	static __thread char out[128];
	size_t need = locks_format_proc(NULL, 0);
	char *buf = malloc(need + 1), *line, *save = NULL;
	char stack[9][128];

	locks_format_proc(buf, need + 1);
	out[0] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *arrow = strstr(line, "-> "), *p = strchr(line, ':');
		int level = 0;

		if (!p)
			continue;
		if (arrow) {
			/* "N: " then level-1 spaces then "-> " */
			level = (int)(arrow - (p + 2)) + 1;
			if (level > 8)
				level = 8;
			if (!strcmp(arrow + 3, waiter)) {
				snprintf(out, sizeof(out), "%s", stack[level - 1]);
				break;
			}
		}
		snprintf(stack[level], sizeof(stack[level]), "%s", arrow ? arrow + 3 : p + 2);
	}
	free(buf);
	return out;
}

static struct inode *ino;
static struct file *f1, *f2, *f3;

static void fixture_up(void)
{
	ino = tl_inode(101);
	f1 = tl_file(ino, FMODE_READ | FMODE_WRITE);
	f2 = tl_file(ino, FMODE_READ | FMODE_WRITE);
	f3 = tl_file(ino, FMODE_READ | FMODE_WRITE);
}

static void fixture_down(void)
{
	for (int o = 0; o < 8; o++)
		locks_remove_posix(f1, TL_OWNER(o));
	tl_file_free(f1);
	tl_file_free(f2);
	tl_file_free(f3);
	CU_ASSERT_EQUAL(locks_count_held(), 0);
	CU_ASSERT_EQUAL(locks_count_blocked(), 0);
	tl_inode_free(ino);
}

/* ---- a woken waiter that blocks again -------------------------------------- */

/*
 * H holds W[0,0], B holds W[10,10]; C waits for W[0,10] behind H; B waits
 * for W[0,0] and queues behind C (C's range conflicts with it); H unlocks.
 * C retries and now conflicts with B's W[10,10].  posix_lock_inode wakes
 * the requests queued behind C before the deadlock check, so B's request
 * is no longer in the graph: C waits again, B is granted [0,0].
 * Host (6.18, tmpfs, four processes): C keeps waiting, B gets [0,0], C gets
 * [0,10] once B unlocks; no EDEADLK.
 */
static void run_woken_waiter_blocks_again(int path)
{
	struct tw c, b;

	fixture_up();
	c = TW_POSIX(f1, 3, F_WRLCK, 0, 11);
	b = TW_POSIX(f1, 2, F_WRLCK, 0, 1);
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 1), 0);
	CU_ASSERT_EQUAL(tl_lock(f1, 2, F_WRLCK, 10, 1), 0);
	tw_start(&c, path, 1);
	tw_start(&b, path, 2);
	CU_ASSERT_FALSE(tw_done(&c));
	CU_ASSERT_FALSE(tw_done(&b));
	CU_ASSERT_STRING_EQUAL(tl_blocker_of("POSIX  ADVISORY  WRITE 2 00:00:101 0 0"),
			       "POSIX  ADVISORY  WRITE 3 00:00:101 0 10");
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_UNLCK, 0, 1), 0);
	/* settled: C finished (wrongly), or B got its lock and C waits again */
	CU_ASSERT_EQUAL(
	    WAIT_UNTIL_MS(tw_done(&c) || (tw_done(&b) && locks_count_blocked() == 1), 10000), 0);
	CU_ASSERT_FALSE(tw_done(&c));
	CU_ASSERT_TRUE(tw_done(&b));
	CU_ASSERT_EQUAL(b.ret, 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 2), "W0-0,W10-10");
	CU_ASSERT_STRING_EQUAL(tl_blocker_of("POSIX  ADVISORY  WRITE 3 00:00:101 0 10"),
			       "POSIX  ADVISORY  WRITE 2 00:00:101 10 10");
	/* B lets go: C gets its range */
	CU_ASSERT_EQUAL(tl_lock(f1, 2, F_UNLCK, 0, 0), 0);
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(tw_done(&c), 10000), 0);
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 3), "W0-10");
	tw_end(&c);
	tw_end(&b);
	fixture_down();
}

static void test_woken_waiter_blocks_again_sleep(void)
{
	run_woken_waiter_blocks_again(TW_SLEEP);
}

static void test_woken_waiter_blocks_again_deferred(void)
{
	run_woken_waiter_blocks_again(TW_DEFER);
}

/* ---- who is in the deadlock graph ------------------------------------------ */

/*
 * C holds W[10,10]; the open file F holds an OFD W[0,0] and waits (OFD) for
 * W[10,10] behind C's POSIX lock, so __locks_insert_block hashes F's request
 * (its blocker is POSIX).  C asking for W[0,0] closes C -> F -> C: EDEADLK.
 * Host (6.18, tmpfs): C's F_SETLKW returns EDEADLK at once.
 */
static void run_ofd_waiter_in_graph(int path)
{
	struct tw fw, cw;

	fixture_up();
	fw = TW_OFD(f2, F_WRLCK, 10, 1);
	cw = TW_POSIX(f1, 3, F_WRLCK, 0, 1);
	CU_ASSERT_EQUAL(tl_lock(f1, 3, F_WRLCK, 10, 1), 0);
	CU_ASSERT_EQUAL(tl_ofd(f2, F_WRLCK, 0, 1), 0);
	tw_start(&fw, path, 1);
	CU_ASSERT_FALSE(tw_done(&fw));
	tw_start(&cw, path, 2);
	CU_ASSERT_TRUE(tw_done(&cw));
	CU_ASSERT_EQUAL(cw.ret, -EDEADLK);
	CU_ASSERT_EQUAL(tw_end(&cw), 0);
	CU_ASSERT_EQUAL(tw_end(&fw), -EINTR);
	fixture_down();
}

static void test_ofd_waiter_in_graph_sleep(void)
{
	run_ofd_waiter_in_graph(TW_SLEEP);
}

static void test_ofd_waiter_in_graph_deferred(void)
{
	run_ofd_waiter_in_graph(TW_DEFER);
}

/*
 * A holds W[0,0], P holds W[5,5]; the open file O waits (OFD) for W[0,1]
 * behind A; P waits for W[0,0] and queues behind O's request (they
 * conflict), whose flags are OFD: P's request is not hashed.  A asking for
 * W[5,5] therefore finds no chain: Linux lets A wait (the cycle A -> P ->
 * O -> A goes through an OFD request, which the detector cannot follow).
 * Host (6.18, tmpfs): A's F_SETLKW blocks; no EDEADLK.
 */
static void run_posix_under_ofd_waiter(int path)
{
	struct tw ow, pw, aw;

	fixture_up();
	ow = TW_OFD(f2, F_WRLCK, 0, 2);
	pw = TW_POSIX(f1, 2, F_WRLCK, 0, 1);
	aw = TW_POSIX(f1, 1, F_WRLCK, 5, 1);
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 1), 0);
	CU_ASSERT_EQUAL(tl_lock(f1, 2, F_WRLCK, 5, 1), 0);
	tw_start(&ow, path, 1);
	tw_start(&pw, path, 2);
	CU_ASSERT_STRING_EQUAL(tl_blocker_of("POSIX  ADVISORY  WRITE 2 00:00:101 0 0"),
			       "OFDLCK ADVISORY  WRITE -1 00:00:101 0 1");
	tw_start(&aw, path, 3);
	CU_ASSERT_FALSE(tw_done(&aw));
	CU_ASSERT_EQUAL(locks_count_blocked(), 3);
	CU_ASSERT_EQUAL(tw_end(&aw), -EINTR);
	CU_ASSERT_EQUAL(tw_end(&pw), -EINTR);
	CU_ASSERT_EQUAL(tw_end(&ow), -EINTR);
	fixture_down();
}

static void test_posix_under_ofd_waiter_sleep(void)
{
	run_posix_under_ofd_waiter(TW_SLEEP);
}

static void test_posix_under_ofd_waiter_deferred(void)
{
	run_posix_under_ofd_waiter(TW_DEFER);
}

/* ---- list order: which lock F_GETLK reports --------------------------------- */

/*
 * posix_lock_inode keeps an owner's locks together and sorted by start, a
 * new owner's at the tail, and extends a lock it merges with in place.
 * Host (6.18, tmpfs): each answer below.
 */
static void test_getlk_reports_in_linux_order(void)
{
	fixture_up();
	/* one owner: [100,109] then [0,9]: Linux reports start 0 */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 100, 10), 0);
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 10), 0);
	CU_ASSERT_STRING_EQUAL(tl_getlk(f1, 2, F_WRLCK, 0, 200), "W 0+10 pid 1");
	CU_ASSERT_STRING_EQUAL(tl_getlk(f2, -1, F_RDLCK, 0, 0), "W 0+10 pid 1");
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_UNLCK, 0, 0), 0);
	/* a merge stays where the lock was: 1 [0,9], 2 [20,29], 1 adds [10,15] */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 10), 0);
	CU_ASSERT_EQUAL(tl_lock(f1, 2, F_WRLCK, 20, 10), 0);
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 10, 6), 0);
	CU_ASSERT_STRING_EQUAL(tl_getlk(f1, 3, F_WRLCK, 0, 0), "W 0+16 pid 1");
	/* a type change of a whole lock replaces it at its place */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_RDLCK, 0, 16), 0);
	CU_ASSERT_STRING_EQUAL(tl_getlk(f1, 3, F_WRLCK, 0, 0), "R 0+16 pid 1");
	/* a split: the left part is a new record before the right one */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 5, 2), 0);
	CU_ASSERT_STRING_EQUAL(tl_getlk(f1, 3, F_RDLCK, 0, 0), "W 5+2 pid 1");
	CU_ASSERT_STRING_EQUAL(tl_getlk(f1, 3, F_WRLCK, 0, 0), "R 0+5 pid 1");
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "R0-4,W5-6,R7-15");
	/* the owner's locks stay together and sorted ahead of owner 2's */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 40, 10), 0);
	CU_ASSERT_STRING_EQUAL(tl_getlk(f1, 3, F_WRLCK, 20, 100), "W 40+10 pid 1");
	fixture_down();
}

/* A waiter queues behind the first conflicting lock in that order. */
static void run_waiter_queues_behind_first(int path)
{
	struct tw w;

	fixture_up();
	w = TW_POSIX(f2, 2, F_WRLCK, 0, 200);
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 100, 10), 0);
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 10), 0);
	tw_start(&w, path, 1);
	CU_ASSERT_STRING_EQUAL(tl_blocker_of("POSIX  ADVISORY  WRITE 2 00:00:101 0 199"),
			       "POSIX  ADVISORY  WRITE 1 00:00:101 0 9");
	CU_ASSERT_EQUAL(tw_end(&w), -EINTR);
	fixture_down();
}

static void test_waiter_queues_behind_first_sleep(void)
{
	run_waiter_queues_behind_first(TW_SLEEP);
}

static void test_waiter_queues_behind_first_deferred(void)
{
	run_waiter_queues_behind_first(TW_DEFER);
}

/*
 * The range arithmetic of the in-place walk against a byte map: random
 * F_SETLK requests of four owners on [0,64); each answer (0 or EAGAIN) and
 * each owner's resulting ranges must match the map.
 */
static void test_ranges_match_byte_map(void)
{
	enum { N = 64, OWNERS = 4 };
	char map[OWNERS][N]; /* 0, 'R', 'W' */
	unsigned int seed = 13;

	fixture_up();
	memset(map, 0, sizeof(map));
	for (int step = 0; step < 20000; step++) {
		int o = rand_r(&seed) % OWNERS, t = rand_r(&seed) % 3;
		int start = rand_r(&seed) % N, len = 1 + rand_r(&seed) % 12;
		int type = t == 0 ? F_RDLCK : t == 1 ? F_WRLCK : F_UNLCK;
		bool conflict = false;
		char want[512] = "", *w = want;

		if (start + len > N)
			len = N - start;
		for (int b = start; b < start + len && type != F_UNLCK; b++)
			for (int q = 0; q < OWNERS; q++)
				if (q != o && map[q][b] && (type == F_WRLCK || map[q][b] == 'W'))
					conflict = true;
		CU_ASSERT_EQUAL_FATAL(tl_lock(f1, o, type, start, len), conflict ? -EAGAIN : 0);
		if (!conflict)
			for (int b = start; b < start + len; b++)
				map[o][b] = type == F_UNLCK ? 0 : type == F_RDLCK ? 'R' : 'W';
		for (int b = 0; b < N;) {
			int e = b;

			if (!map[o][b]) {
				b++;
				continue;
			}
			while (e + 1 < N && map[o][e + 1] == map[o][b])
				e++;
			w += sprintf(w, "%s%c%d-%d", w == want ? "" : ",", map[o][b], b, e);
			b = e + 1;
		}
		CU_ASSERT_STRING_EQUAL_FATAL(tl_ranges(101, o), want);
	}
	for (int o = 0; o < OWNERS; o++)
		locks_remove_posix(f1, TL_OWNER(o));
	fixture_down();
}

/* ---- a merge does not wake the waiters of the lock it extends --------------- */

static long nr_retries;

static void count_retry(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&nr_retries, 1, __ATOMIC_RELAXED);
}

/*
 * 1 holds W[0,9], 2 waits for W[5,5]; 1 locks W[10,19].  posix_lock_inode
 * extends [0,9] to [0,19] in place: 2 stays queued, not woken.  The
 * sleeping waiter is parked at its retry point (so a wake-up leaves it off
 * the tree until released); the deferred one counts its retries.
 */
static void run_merge_does_not_wake(int path)
{
	struct tw w;

	fixture_up();
	w = TW_POSIX(f2, 2, F_WRLCK, 5, 1);
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 10), 0);
	nr_retries = 0;
	if (path == TW_SLEEP)
		rv_inject_set_pause("locks_before_retry", 0);
	else
		rv_inject_set_callback("locks_before_retry", count_retry, NULL, 0);
	tw_start(&w, path, 1);
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 10, 10), 0);
	CU_ASSERT_EQUAL(rv_inject_arrivals("locks_before_retry"), 0);
	CU_ASSERT_EQUAL(nr_retries, 0);
	CU_ASSERT_EQUAL(locks_count_blocked(), 1);
	CU_ASSERT_STRING_EQUAL(tl_blocker_of("POSIX  ADVISORY  WRITE 2 00:00:101 5 5"),
			       "POSIX  ADVISORY  WRITE 1 00:00:101 0 19");
	if (path == TW_SLEEP)
		rv_inject_release("locks_before_retry");
	/* an unlock does wake it */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_UNLCK, 0, 0), 0);
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(tw_done(&w), 10000), 0);
	CU_ASSERT_EQUAL(w.ret, 0);
	rv_inject_clear_all();
	tw_end(&w);
	locks_remove_posix(f2, TL_OWNER(2));
	fixture_down();
}

static void test_merge_does_not_wake_sleep(void)
{
	run_merge_does_not_wake(TW_SLEEP);
}

static void test_merge_does_not_wake_deferred(void)
{
	run_merge_does_not_wake(TW_DEFER);
}

/* ---- F_OFD_GETLK with F_UNLCK ---------------------------------------------- */

/*
 * fcntl_getlk (since 6.4) accepts l_type F_UNLCK for F_OFD_GETLK and reports
 * the first lock the description itself holds on the range
 * (posix_test_locks_conflict).  Plain F_GETLK still refuses it.
 * Host (6.18, tmpfs): as asserted.
 */
static void test_ofd_getlk_unlck(void)
{
	fixture_up();
	CU_ASSERT_EQUAL(tl_ofd(f1, F_RDLCK, 0, 5), 0);
	CU_ASSERT_EQUAL(tl_ofd(f1, F_WRLCK, 10, 10), 0);
	CU_ASSERT_STRING_EQUAL(tl_getlk(f1, -1, F_UNLCK, 0, 0), "R 0+5 pid -1");
	CU_ASSERT_STRING_EQUAL(tl_getlk(f1, -1, F_UNLCK, 8, 100), "W 10+10 pid -1");
	CU_ASSERT_STRING_EQUAL(tl_getlk(f1, -1, F_UNLCK, 5, 5), "unlocked");
	/* another description's locks are not its own */
	CU_ASSERT_STRING_EQUAL(tl_getlk(f2, -1, F_UNLCK, 0, 0), "unlocked");
	CU_ASSERT_STRING_EQUAL(tl_getlk(f2, -1, F_RDLCK, 0, 0), "W 10+10 pid -1");
	/* nor a POSIX owner's */
	CU_ASSERT_EQUAL(tl_lock(f2, 2, F_WRLCK, 50, 1), 0);
	CU_ASSERT_STRING_EQUAL(tl_getlk(f2, -1, F_UNLCK, 50, 1), "unlocked");
	/* F_GETLK with F_UNLCK: EINVAL */
	CU_ASSERT_STRING_EQUAL(tl_getlk(f1, 2, F_UNLCK, 0, 0), "err -22");
	/* still l_pid must be 0 */
	{
		struct flock l = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_pid = 1};

		CU_ASSERT_EQUAL(fcntl_getlk(f1, F_OFD_GETLK, &l, NULL), -EINVAL);
	}
	locks_remove_posix(f2, TL_OWNER(2));
	fixture_down();
}

/*
 * The daemon's GETLK: the kernel forwards F_OFD_GETLK as a GETLK whose owner
 * is the open file's lock owner, and an F_UNLCK one keeps its type.
 * locks_test_lock answers it for any owner, as vfs_test_lock does.
 */
static void test_test_lock_unlck_owner(void)
{
	struct flock l = {.l_type = F_UNLCK, .l_whence = SEEK_SET};

	fixture_up();
	CU_ASSERT_EQUAL(tl_lock(f1, 4, F_WRLCK, 30, 5), 0);
	CU_ASSERT_EQUAL(locks_test_lock(f1, &l, TL_OWNER(4)), 0);
	CU_ASSERT_EQUAL(l.l_type, F_WRLCK);
	CU_ASSERT_EQUAL(l.l_start, 30);
	CU_ASSERT_EQUAL(l.l_len, 5);
	CU_ASSERT_EQUAL(l.l_pid, 4);
	l = (struct flock){.l_type = F_UNLCK, .l_whence = SEEK_SET};
	CU_ASSERT_EQUAL(locks_test_lock(f1, &l, TL_OWNER(5)), 0);
	CU_ASSERT_EQUAL(l.l_type, F_UNLCK);
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET};
	CU_ASSERT_EQUAL(locks_test_lock(f1, &l, TL_OWNER(5)), 0);
	CU_ASSERT_EQUAL(l.l_type, F_WRLCK);
	CU_ASSERT_EQUAL(l.l_pid, 4);
	l = (struct flock){.l_type = 7, .l_whence = SEEK_SET};
	CU_ASSERT_EQUAL(locks_test_lock(f1, &l, TL_OWNER(5)), -EINVAL);
	fixture_down();
}

/* ---- retries under the BKL ------------------------------------------------- */

static int retry_bkl_held, retry_bkl_free;

static void note_bkl(void *arg)
{
	(void)arg;
	if (kernel_locked())
		__atomic_fetch_add(&retry_bkl_held, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&retry_bkl_free, 1, __ATOMIC_RELAXED);
}

/*
 * With bkl_ops=lock every lock entry point runs under the BKL (2.6's
 * fcntl_setlk and flock paths took it around the whole request, retries
 * included); a woken request retries under it too, sleeping or deferred.
 * Without it the retry holds no BKL (beyond the bkl scheme's list lock,
 * taken inside the retry).
 */
static void run_retry_bkl(int path, int flock)
{
	struct tw w;
	bool want = (rv_sw.bkl_ops & BKL_OP_LOCK) != 0;

	fixture_up();
	w = flock ? (struct tw){.f = f2, .owner = 2, .type = LOCK_EX}
		  : TW_POSIX(f2, 2, F_WRLCK, 0, 1);
	if (flock) {
		CU_ASSERT_EQUAL(flock_lock_file(f1, LOCK_EX, 1, NULL), 0);
	} else {
		CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 1), 0);
	}
	retry_bkl_held = retry_bkl_free = 0;
	tw_start(&w, path, 1);
	rv_inject_set_callback("locks_before_retry", note_bkl, NULL, 0);
	if (flock) {
		CU_ASSERT_EQUAL(flock_lock_file(f1, LOCK_UN, 1, NULL), 0);
	} else {
		CU_ASSERT_EQUAL(tl_lock(f1, 1, F_UNLCK, 0, 1), 0);
	}
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(tw_done(&w), 10000), 0);
	rv_inject_clear_all();
	CU_ASSERT_EQUAL(w.ret, 0);
	CU_ASSERT_EQUAL(retry_bkl_held, want ? 1 : 0);
	CU_ASSERT_EQUAL(retry_bkl_free, want ? 0 : 1);
	tw_end(&w);
	if (flock) {
		CU_ASSERT_EQUAL(flock_lock_file(f2, LOCK_UN, 2, NULL), 0);
	} else {
		locks_remove_posix(f2, TL_OWNER(2));
	}
	fixture_down();
}

static void test_retry_bkl_sleep(void)
{
	run_retry_bkl(TW_SLEEP, 0);
	run_retry_bkl(TW_SLEEP, 1);
}

static void test_retry_bkl_deferred(void)
{
	run_retry_bkl(TW_DEFER, 0);
	run_retry_bkl(TW_DEFER, 1);
}

/* ---- two threads charging a new owner at once ------------------------------ */

/*
 * Active file_lock_owner records, from the model's slabinfo: drops when an
 * owner's accounting record is freed.
 */
static long owner_records_active(void)
{
	static char buf[65536];
	const char *p;
	long active = -1;

	kmem_cache_format_slabinfo(buf, sizeof(buf));
	p = strstr(buf, "\nfile_lock_owner ");
	if (p && sscanf(p + 1, "file_lock_owner %ld", &active) != 1)
		active = -1;
	return active;
}

#define RACE_OWNER 5000

static int race_nested_ret = 1;

/* At owner_charge's unlocked window: the same owner locks elsewhere first. */
static void charge_same_owner(void *arg)
{
	race_nested_ret = tl_lock(arg, RACE_OWNER, F_WRLCK, 100, 1);
}

/* What the lock lists answer after the race, found by a worker (aliased
 * records make the list walks loop, so the main thread bounds the wait). */
static struct {
	int lock3, lock4, check;
	long held;
	char getlk[4][32], why[160];
	int done; /* atomic */
} race_out;

static void *race_observe(void *arg)
{
	static const int64_t at[4] = {100, 200, 300, 400};

	(void)arg;
	race_out.check = locks_check(race_out.why, sizeof(race_out.why));
	/* a third lock of the owner and one of another owner reuse freed records */
	race_out.lock3 = tl_lock(f1, RACE_OWNER, F_WRLCK, 300, 1);
	race_out.lock4 = tl_lock(f1, RACE_OWNER + 1, F_WRLCK, 400, 1);
	race_out.held = locks_count_held();
	for (int i = 0; i < 4; i++)
		snprintf(race_out.getlk[i], sizeof(race_out.getlk[i]), "%s",
			 tl_getlk(f2, 7, F_WRLCK, at[i], 1));
	__atomic_store_n(&race_out.done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * owner_charge allocates an owner record outside the bucket lock and frees
 * it when another caller inserted the same owner meanwhile.  A recycled
 * record still pointed at its last owner's freed spare lock record, and
 * that free released it again while a live lock used it.  The consequence,
 * seen from outside: the owner's next locks alias one record, the lock
 * lists loop (the daemon's lock calls hang) or F_GETLK answers wrongly (and
 * ASan reports the use after free).  First recycle an owner record that had
 * a spare (two locks, two unlocks, in a bucket whose idle records are full:
 * seen as file_lock_owner's active count dropping), then race a new owner's
 * first lock with a nested lock of the same owner.
 */
static void test_owner_charge_race(void)
{
	long before, died = 0;
	pthread_t th;
	int o;

	fixture_up();
	for (o = 10; o < 4000 && !died; o++) {
		CU_ASSERT_EQUAL_FATAL(tl_lock(f1, o, F_WRLCK, 0, 1), 0);
		CU_ASSERT_EQUAL_FATAL(tl_lock(f1, o, F_WRLCK, 2, 1), 0);
		before = owner_records_active();
		CU_ASSERT_EQUAL_FATAL(tl_lock(f1, o, F_UNLCK, 0, 1), 0);
		CU_ASSERT_EQUAL_FATAL(tl_lock(f1, o, F_UNLCK, 2, 1), 0);
		died = before - owner_records_active();
	}
	CU_ASSERT_EQUAL_FATAL(died, 1);

	race_nested_ret = 1;
	rv_inject_set_callback("owner_charge_unlocked", charge_same_owner, f1, 1);
	CU_ASSERT_EQUAL(tl_lock(f1, RACE_OWNER, F_WRLCK, 200, 1), 0);
	rv_inject_clear_all();
	CU_ASSERT_EQUAL(race_nested_ret, 0); /* the race happened */

	memset(&race_out, 0, sizeof(race_out));
	pthread_create(&th, NULL, race_observe, NULL);
	if (WAIT_UNTIL_MS(__atomic_load_n(&race_out.done, __ATOMIC_ACQUIRE), 10000)) {
		/* the worker spins in a looping list with a lock held: nothing
		 * after this could run */
		fprintf(stderr, "test_owner_charge_race: the lock lists loop "
				"(two locks share one record)\n");
		_exit(1);
	}
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(race_out.check, 0);
	if (race_out.check)
		fprintf(stderr, "locks_check: %s\n", race_out.why);
	CU_ASSERT_EQUAL(race_out.lock3, 0);
	CU_ASSERT_EQUAL(race_out.lock4, 0);
	CU_ASSERT_EQUAL(race_out.held, 4);
	CU_ASSERT_STRING_EQUAL(race_out.getlk[0], "W 100+1 pid 5000");
	CU_ASSERT_STRING_EQUAL(race_out.getlk[1], "W 200+1 pid 5000");
	CU_ASSERT_STRING_EQUAL(race_out.getlk[2], "W 300+1 pid 5000");
	CU_ASSERT_STRING_EQUAL(race_out.getlk[3], "W 400+1 pid 5001");
	locks_remove_posix(f1, TL_OWNER(RACE_OWNER));
	locks_remove_posix(f1, TL_OWNER(RACE_OWNER + 1));
	CU_ASSERT_EQUAL(locks_count_held(), 0);
	fixture_down();
}

/* ---- suites: one per scheme ----------------------------------------------- */

static int init_global(void)
{
	static const char *const s[] = {"filelock=global", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

static int init_bkl(void)
{
	static const char *const s[] = {"filelock=bkl", "bkl=sem-fifo", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

static int init_inode(void)
{
	static const char *const s[] = {"filelock=inode", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

static int init_global_bklops(void)
{
	static const char *const s[] = {"filelock=global", "bkl=sem-steal", "bkl_ops=lock", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

static int init_inode_bklops(void)
{
	static const char *const s[] = {"filelock=inode", "bkl=spin", "bkl_ops=lock", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

static int init_bkl_bklops(void)
{
	static const char *const s[] = {"filelock=bkl", "bkl=sem-fifo", "bkl_ops=lock", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

#define LINUX_CASES                                                                                \
	RVTEST(test_woken_waiter_blocks_again_sleep),                                              \
	    RVTEST(test_woken_waiter_blocks_again_deferred),                                       \
	    RVTEST(test_ofd_waiter_in_graph_sleep), RVTEST(test_ofd_waiter_in_graph_deferred),     \
	    RVTEST(test_posix_under_ofd_waiter_sleep),                                             \
	    RVTEST(test_posix_under_ofd_waiter_deferred),                                          \
	    RVTEST(test_getlk_reports_in_linux_order), RVTEST(test_ranges_match_byte_map),         \
	    RVTEST(test_waiter_queues_behind_first_sleep),                                         \
	    RVTEST(test_waiter_queues_behind_first_deferred),                                      \
	    RVTEST(test_merge_does_not_wake_sleep), RVTEST(test_merge_does_not_wake_deferred),     \
	    RVTEST(test_ofd_getlk_unlck), RVTEST(test_test_lock_unlck_owner),                      \
	    RVTEST(test_retry_bkl_sleep), RVTEST(test_retry_bkl_deferred),                         \
	    RVTEST(test_owner_charge_race)

RVTEST_SUITE(locks_linux_global, init_global, rvtest_instance_cleanup, LINUX_CASES)
RVTEST_SUITE(locks_linux_bkl, init_bkl, rvtest_instance_cleanup, LINUX_CASES)
RVTEST_SUITE(locks_linux_inode, init_inode, rvtest_instance_cleanup, LINUX_CASES)
RVTEST_SUITE(locks_linux_global_bklops, init_global_bklops, rvtest_instance_cleanup, LINUX_CASES)
RVTEST_SUITE(locks_linux_inode_bklops, init_inode_bklops, rvtest_instance_cleanup, LINUX_CASES)
RVTEST_SUITE(locks_linux_bkl_bklops, init_bkl_bklops, rvtest_instance_cleanup, LINUX_CASES)
