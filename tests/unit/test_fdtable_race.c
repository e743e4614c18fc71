// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_fdtable_race.c - races of the fd-table lookups, forced
 * with injection points so that every outcome is deterministic:
 *
 *  - fget racing close-and-reopen that recycles the same slab object for
 *    another file (at another fd, and at the same fd): fget returns the file
 *    installed when it validated; the design without the slot reload returns
 *    the wrong file (shown);
 *  - a get on a dead object whose reuse is under way: the get fails and the
 *    new file starts with exactly one reference (count initialised last);
 *  - a reader racing expand_files: it validated a slot of the old table,
 *    the table was replaced and the fd closed in the new one;
 *  - the last fdput racing fget, both interleavings: exactly one teardown;
 *  - bounded stress with identity checks (fget, fget_ool, fdget; expansion).
 *
 * Each suite runs once per fileref scheme.  Waits are bounded (5 s) and
 * never decide the outcome; the ASan build checks for use-after-free.
 */
#include "rvtest.h"
#include "fdtable/fdtable.h"
#include "fdtable/testing.h"

#include <pthread.h>
#include <stdint.h>

#define WAIT_MS 5000

static int releases; /* atomic */

static int t_release(struct inode *inode, struct file *file)
{
	__atomic_fetch_add(&releases, 1, __ATOMIC_RELAXED);
	return 0;
}

static const struct file_operations t_fops = {.release = t_release};

static struct task_struct *me;

static void begin(void)
{
	me = task_create_process("race");
	CU_ASSERT_PTR_NOT_NULL_FATAL(me);
	task_attach(me);
	releases = 0;
}

static void end(void)
{
	rv_inject_clear_all();
	task_exit(me);
	me = NULL;
	rcu_barrier();
	CU_ASSERT_EQUAL(nr_files_active(), 0);
}

static struct file *new_file(uintptr_t tag)
{
	struct file *f = alloc_file(NULL, NULL, O_RDWR, &t_fops);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	f->private_data = (void *)tag;
	return f;
}

/* ---- one-shot reader thread ---------------------------------------------- */

enum { LOOK_FGET, LOOK_FGET_OOL, LOOK_NORECHECK, LOOK_FILES };

struct reader {
	struct task_struct *task;   /* attached by the thread; exited at its end */
	struct files_struct *files; /* LOOK_FILES: look up in this table */
	unsigned int fd;
	int how;
	struct file *result;
	uint64_t gen;
	uintptr_t tag;
	int done; /* atomic */
	pthread_t th;
};

static void *reader_main(void *p)
{
	struct reader *r = p;
	struct file *f;

	task_attach(r->task);
	switch (r->how) {
	case LOOK_FGET:
		f = fget(r->fd);
		break;
	case LOOK_FGET_OOL:
		f = fget_ool(r->fd);
		break;
	case LOOK_NORECHECK:
		f = fget_norecheck_for_test(r->fd);
		break;
	default:
		f = __fget_files(r->files, r->fd, FMODE_PATH);
		break;
	}
	r->result = f;
	if (f) {
		r->gen = f->f_gen;
		r->tag = (uintptr_t)f->private_data;
		fput(f);
	}
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	task_exit(r->task);
	return NULL;
}

static void reader_start(struct reader *r, struct task_struct *task, unsigned int fd, int how)
{
	r->task = task;
	r->fd = fd;
	r->how = how;
	r->done = 0;
	CU_ASSERT_FATAL(pthread_create(&r->th, NULL, reader_main, r) == 0);
}

static bool reader_wait_done(struct reader *r)
{
	uint64_t deadline = rv_now_ns() + (uint64_t)WAIT_MS * 1000000;

	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		if (rv_now_ns() > deadline)
			return false;
		sched_yield();
	}
	return true;
}

static int init_inc(void)
{
	static const char *const s[] = {"fileref=inc-not-zero", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

static int init_ref(void)
{
	static const char *const s[] = {"fileref=file-ref", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

static int cleanup(void)
{
	return rvtest_instance_cleanup();
}

/* ---- the recycled object ---------------------------------------------- */

/*
 * The reader loads A from fd 0 and stops.  A is closed and freed; B reuses
 * A's memory at fd 1, C is installed at fd 0.  The reader's reference lands
 * on B; only the slot reload tells it B is not what fd 0 holds.
 */
static void recycle_other_fd(int how)
{
	struct reader r = {0};
	struct file *a, *b, *c;
	uint64_t retries0 = rvtest_stat("fget_retries");

	begin();
	a = new_file(0);
	fd_install(get_unused_fd_flags(0), a);
	rv_inject_set_pause("fget_after_load", 1);
	reader_start(&r, task_clone_thread(me), 0, how);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("fget_after_load", 1, WAIT_MS) == 0);

	CU_ASSERT_EQUAL(close_fd(0), 0);
	CU_ASSERT_EQUAL(releases, 1); /* A is dead and back in the cache */
	CU_ASSERT_EQUAL(get_unused_fd_flags(0), 0);
	CU_ASSERT_EQUAL(get_unused_fd_flags(0), 1);
	b = new_file(1);
	CU_ASSERT_PTR_EQUAL(b, a); /* same object (the magazine is LIFO) */
	fd_install(1, b);
	c = new_file(0);
	fd_install(0, c);

	rv_inject_release("fget_after_load");
	pthread_join(r.th, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.result);
	if (how == LOOK_NORECHECK) {
		/* the broken design: asked for fd 0, got the file at fd 1 */
		CU_ASSERT_EQUAL(r.gen, b->f_gen);
		CU_ASSERT_EQUAL(r.tag, 1);
	} else {
		CU_ASSERT_EQUAL(r.gen, c->f_gen);
		CU_ASSERT_EQUAL(r.tag, 0);
		CU_ASSERT(rvtest_stat("fget_retries") - retries0 >= 1);
	}
	CU_ASSERT_EQUAL(file_count(b), 1);
	CU_ASSERT_EQUAL(file_count(c), 1);
	end();
	CU_ASSERT_EQUAL(releases, 3);
}

static void test_recycle_other_fd(void)
{
	recycle_other_fd(LOOK_FGET);
}

static void test_recycle_other_fd_ool(void)
{
	recycle_other_fd(LOOK_FGET_OOL);
}

static void test_recycle_other_fd_norecheck_is_wrong(void)
{
	recycle_other_fd(LOOK_NORECHECK);
}

/* Recycled for a new file at the same fd: that file is the right answer. */
static void test_recycle_same_fd(void)
{
	struct reader r = {0};
	struct file *a, *b;

	begin();
	a = new_file(0);
	fd_install(get_unused_fd_flags(0), a);
	rv_inject_set_pause("fget_after_load", 1);
	reader_start(&r, task_clone_thread(me), 0, LOOK_FGET);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("fget_after_load", 1, WAIT_MS) == 0);
	CU_ASSERT_EQUAL(close_fd(0), 0);
	b = new_file(0);
	CU_ASSERT_PTR_EQUAL(b, a);
	fd_install(get_unused_fd_flags(0), b);
	rv_inject_release("fget_after_load");
	pthread_join(r.th, NULL);
	CU_ASSERT_PTR_EQUAL(r.result, b);
	CU_ASSERT_EQUAL(r.gen, b->f_gen);
	CU_ASSERT_EQUAL(file_count(b), 1);
	end();
	CU_ASSERT_EQUAL(releases, 2);
}

/* ---- a get on a dead object while it is being reused ------------------------ */

static struct reader *init_last_reader;

static void release_reader_and_wait(void *arg)
{
	rv_inject_release("fget_after_load");
	CU_ASSERT(reader_wait_done(init_last_reader));
}

/*
 * The reader's get runs after the object died and while alloc_file is
 * building the next file in it, before the count is written.  It must fail
 * (inc-not-zero sees 0; file-ref lands in the dead zone and is not undone),
 * and the new file must start with exactly one reference.
 */
static void test_get_during_reuse(void)
{
	struct reader r = {0};
	struct file *a, *b;
	uint64_t retries0 = rvtest_stat("fget_retries");

	begin();
	a = new_file(0);
	fd_install(get_unused_fd_flags(0), a);
	rv_inject_set_pause("fget_after_load", 1);
	reader_start(&r, task_clone_thread(me), 0, LOOK_FGET);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("fget_after_load", 1, WAIT_MS) == 0);
	CU_ASSERT_EQUAL(close_fd(0), 0);

	init_last_reader = &r;
	rv_inject_set_callback("alloc_file_before_count", release_reader_and_wait, NULL, 1);
	b = new_file(7);
	CU_ASSERT_PTR_EQUAL(b, a);
	CU_ASSERT(__atomic_load_n(&r.done, __ATOMIC_ACQUIRE));
	CU_ASSERT_PTR_NULL(r.result); /* fd 0 is empty after the retry */
	CU_ASSERT_EQUAL(file_count(b), 1);
	if (rv_sw.fileref == FILEREF_FILE_REF) {
		CU_ASSERT_EQUAL(b->f_ref.refcnt, FILE_REF_ONEREF);
	} else {
		CU_ASSERT_EQUAL(b->f_ref.refcnt, 1);
	}
	CU_ASSERT_EQUAL(rvtest_stat("fget_retries") - retries0, 1);
	pthread_join(r.th, NULL);
	fput(b);
	CU_ASSERT_EQUAL(releases, 2);
	end();
}

/* ---- expand_files under a reader ---------------------------------------------- */

/*
 * The reader (another process looking into this one's table, as
 * pidfd_getfd does) validated fd 0 in the 128-slot table.  The table is
 * replaced by a 256-slot one, fd 0 is closed there and C installed.  The
 * stale table still names A, so the slot reload matches; only the table
 * recheck sends the reader round again.  The old table is freed by call_rcu
 * after the reader leaves its read-side section (ASan checks).
 */
static void test_reader_vs_expand(void)
{
	struct reader r = {0};
	struct file *a, *c;
	long tables;

	begin();
	a = new_file(0);
	fd_install(get_unused_fd_flags(0), a);
	fd_install(get_unused_fd_flags(0), new_file(1));
	CU_ASSERT_EQUAL(ksys_dup2(1, 100), 100);
	CU_ASSERT_EQUAL(files_max_fds(me->files), 128);
	tables = nr_fdtables_active();

	r.files = me->files;
	rv_inject_set_pause("fget_after_get", 1);
	reader_start(&r, task_create_process("peer"), 0, LOOK_FILES);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("fget_after_get", 1, WAIT_MS) == 0);

	CU_ASSERT_EQUAL(ksys_dup2(1, 200), 200); /* 128 -> 256 slots */
	CU_ASSERT_EQUAL(files_max_fds(me->files), 256);
	CU_ASSERT_EQUAL(nr_fdtables_active(), tables + 1); /* old one not yet freed */
	CU_ASSERT_EQUAL(close_fd(0), 0);
	CU_ASSERT_EQUAL(releases, 0); /* the reader holds A */
	c = new_file(0);
	fd_install(get_unused_fd_flags(0), c);

	rv_inject_release("fget_after_get");
	pthread_join(r.th, NULL);
	CU_ASSERT_EQUAL(r.gen, c->f_gen);
	CU_ASSERT_EQUAL(releases, 1); /* A torn down once, by the reader */
	rcu_barrier();
	CU_ASSERT_EQUAL(nr_fdtables_active(), tables);
	end();
}

/* ---- fd_install racing expand_files ----------------------------------------- */

struct installer {
	struct task_struct *task;
	unsigned int fd;
	struct file *file;
	pthread_t th;
};

static void *installer_main(void *p)
{
	struct installer *in = p;

	task_attach(in->task);
	fd_install(in->fd, in->file);
	task_exit(in->task);
	return NULL;
}

struct expander {
	struct task_struct *task;
	unsigned int start;
	int fd;
	pthread_t th;
};

static void *expander_main(void *p)
{
	struct expander *ex = p;

	task_attach(ex->task);
	ex->fd = alloc_fd(ex->start, NOFILE_DEFAULT, 0);
	task_exit(ex->task);
	return NULL;
}

/*
 * An fd_install that loaded the old table (no resize in progress yet) stops
 * before its unlocked store.  A sharer starts expand_files (64 -> 128
 * slots): it sets resize_in_progress and must wait a grace period before
 * copying, or the store would land in the old table after the copy and the
 * file would be lost.  While it waits, an fd_install that sees the resize
 * takes file_lock instead, and a second expander (-> 256 slots) waits on
 * resize_wait.  Then the first installer is released.
 */
static void test_install_vs_expand(void)
{
	struct installer in = {0};
	struct expander ex = {0}, ex2 = {0};
	struct file *f, *f2;
	unsigned int fd2;
	uint64_t deadline;
	bool seen = false;

	begin();
	in.fd = (unsigned int)get_unused_fd_flags(0);
	in.file = new_file(in.fd);
	fd2 = (unsigned int)get_unused_fd_flags(0);
	f2 = new_file(fd2);
	in.task = task_clone_thread(me);
	ex.task = task_clone_thread(me);
	ex.start = 100;
	ex2.task = task_clone_thread(me);
	ex2.start = 200;
	rv_inject_set_pause("fd_install_before_store", 1);
	rv_inject_set_delay("expand_files_resize_wait", 0, 0); /* count arrivals */
	CU_ASSERT_FATAL(pthread_create(&in.th, NULL, installer_main, &in) == 0);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("fd_install_before_store", 1, WAIT_MS) == 0);
	CU_ASSERT_FATAL(pthread_create(&ex.th, NULL, expander_main, &ex) == 0);
	deadline = rv_now_ns() + (uint64_t)WAIT_MS * 1000000;
	while (rv_now_ns() < deadline) {
		if (__atomic_load_n(&me->files->resize_in_progress, __ATOMIC_ACQUIRE)) {
			seen = true;
			break;
		}
		sched_yield();
	}
	CU_ASSERT(seen);
	if (seen) {
		/* the resize is held up by the paused installer: the locked path */
		fd_install(fd2, f2);
		CU_ASSERT_FATAL(pthread_create(&ex2.th, NULL, expander_main, &ex2) == 0);
		CU_ASSERT(rv_inject_wait_arrivals("expand_files_resize_wait", 1, WAIT_MS) == 0);
	}
	rv_inject_release("fd_install_before_store");
	pthread_join(in.th, NULL);
	pthread_join(ex.th, NULL);
	if (seen)
		pthread_join(ex2.th, NULL);
	else
		task_exit(ex2.task);
	CU_ASSERT_EQUAL(ex.fd, 100);
	CU_ASSERT_EQUAL(ex2.fd, 200);
	CU_ASSERT_EQUAL(files_max_fds(me->files), 256);
	f = fget(in.fd);
	CU_ASSERT_PTR_EQUAL(f, in.file);
	if (f)
		fput(f);
	f = fget(fd2);
	CU_ASSERT_PTR_EQUAL(f, f2);
	if (f)
		fput(f);
	put_unused_fd(100);
	put_unused_fd(200);
	end();
	CU_ASSERT_EQUAL(releases, 2);
}

/* ---- the last fdput racing fget -------------------------------------------------- */

/* The reader loaded A; the borrower's fdput drops A's last reference. */
static void test_last_fdput_before_get(void)
{
	struct reader r = {0};
	struct task_struct *thr;
	struct fd d;

	begin();
	fd_install(get_unused_fd_flags(0), new_file(0));
	thr = task_clone_thread(me);
	d = fdget(0);
	CU_ASSERT_EQUAL(d.flags, FDPUT_FPUT); /* shared table: a real reference */
	rv_inject_set_pause("fget_after_load", 1);
	reader_start(&r, thr, 0, LOOK_FGET);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("fget_after_load", 1, WAIT_MS) == 0);
	CU_ASSERT_EQUAL(close_fd(0), 0);
	CU_ASSERT_EQUAL(releases, 0);
	fdput(d);
	CU_ASSERT_EQUAL(releases, 1);
	rv_inject_release("fget_after_load");
	pthread_join(r.th, NULL);
	CU_ASSERT_PTR_NULL(r.result);
	CU_ASSERT_EQUAL(releases, 1);
	end();
}

/* The reader holds a speculative reference when the borrower's fdput runs:
 * the reader's put after the failed recheck is the last one. */
static void test_last_fdput_after_get(void)
{
	struct reader r = {0};
	struct task_struct *thr;
	struct fd d;

	begin();
	fd_install(get_unused_fd_flags(0), new_file(0));
	thr = task_clone_thread(me);
	d = fdget(0);
	rv_inject_set_pause("fget_after_get", 1);
	reader_start(&r, thr, 0, LOOK_FGET);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("fget_after_get", 1, WAIT_MS) == 0);
	CU_ASSERT_EQUAL(close_fd(0), 0);
	fdput(d);
	CU_ASSERT_EQUAL(releases, 0); /* the reader's reference keeps it */
	CU_ASSERT_EQUAL(file_count(d.file), 1);
	rv_inject_release("fget_after_get");
	pthread_join(r.th, NULL);
	CU_ASSERT_PTR_NULL(r.result);
	CU_ASSERT_EQUAL(releases, 1);
	end();
}

/* ---- bounded stress with identity checks ----------------------------------------- */

#define STRESS_FDS    8
#define STRESS_ITERS  20000
#define STRESS_ROUNDS 4

struct stress {
	struct task_struct *task;
	int *stop; /* atomic */
	long bad;  /* wrong identity seen */
	long hits;
	int how;
	unsigned int nfds; /* look at fds [0, nfds) plus the expansion fds */
	pthread_t th;
};

static void *stress_reader(void *p)
{
	struct stress *s = p;
	unsigned int fd = 0;
	long n = 0;

	task_attach(s->task);
	/* at least 1000 lookups, so hits > 0 does not depend on scheduling:
	 * at most two of the first STRESS_FDS fds are closed at any time */
	while (n++ < 1000 || !__atomic_load_n(s->stop, __ATOMIC_ACQUIRE)) {
		struct file *f;
		struct fd d = {NULL, 0};

		fd = (fd + 1) % (s->nfds + STRESS_FDS);
		/* the second half names the fds the writer opens far away */
		unsigned int look = fd < s->nfds ? fd : 64u << (fd - s->nfds);

		if (s->how == 0) {
			f = fget(look);
		} else if (s->how == 1) {
			f = fget_ool(look);
		} else {
			d = fdget(look);
			f = d.file;
		}
		if (!f)
			continue;
		s->hits++;
		if ((uintptr_t)f->private_data != look || file_count(f) < 1)
			s->bad++;
		if (s->how == 2)
			fdput(d);
		else
			fput(f);
	}
	task_exit(s->task);
	return NULL;
}

static void stress_round(int round)
{
	struct stress rd[3];
	int stop = 0;
	long bad = 0, hits = 0;

	begin();
	for (unsigned int i = 0; i < STRESS_FDS; i++)
		fd_install(get_unused_fd_flags(0), new_file(i));
	for (int i = 0; i < 3; i++) {
		rd[i] = (struct stress){
		    .task = task_clone_thread(me), .stop = &stop, .how = i, .nfds = STRESS_FDS};
		CU_ASSERT_FATAL(pthread_create(&rd[i].th, NULL, stress_reader, &rd[i]) == 0);
	}
	for (int it = 0; it < STRESS_ITERS; it++) {
		unsigned int k = (unsigned int)(it + round) % STRESS_FDS;
		unsigned int k2 = (k + 1 + (unsigned int)it % (STRESS_FDS - 1)) % STRESS_FDS;

		/* free two, reopen two: the objects change fds (LIFO reuse) */
		close_fd(k);
		close_fd(k2);
		for (int j = 0; j < 2; j++) {
			int fd = get_unused_fd_flags(0);

			fd_install((unsigned int)fd, new_file((uintptr_t)fd));
		}
		/* now and then grow the table under the readers */
		if (it % (STRESS_ITERS / 7) == 0) {
			unsigned int far = 64u << (it / (STRESS_ITERS / 7));
			int fd = alloc_fd(far, NOFILE_DEFAULT, 0);

			if (fd >= 0)
				fd_install((unsigned int)fd, new_file((uintptr_t)fd));
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 3; i++) {
		pthread_join(rd[i].th, NULL);
		bad += rd[i].bad;
		hits += rd[i].hits;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(hits > 0);
	CU_ASSERT(files_max_fds(me->files) >= 4096);
	end();
}

static void test_stress_identity(void)
{
	for (int round = 0; round < STRESS_ROUNDS; round++)
		stress_round(round);
}

#define RACE_TESTS                                                                                 \
	RVTEST(test_recycle_other_fd), RVTEST(test_recycle_other_fd_ool),                          \
	    RVTEST(test_recycle_other_fd_norecheck_is_wrong), RVTEST(test_recycle_same_fd),        \
	    RVTEST(test_get_during_reuse), RVTEST(test_reader_vs_expand),                          \
	    RVTEST(test_install_vs_expand), RVTEST(test_last_fdput_before_get),                    \
	    RVTEST(test_last_fdput_after_get), RVTEST(test_stress_identity)

RVTEST_SUITE(fdtable_race_inc_not_zero, init_inc, cleanup, RACE_TESTS);
RVTEST_SUITE(fdtable_race_file_ref, init_ref, cleanup, RACE_TESTS);
