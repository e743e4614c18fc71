// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_fdtable.c - fd table operations and their error paths:
 * lowest-free numbering, install/close, dup/dup2/dup3/F_DUPFD, close-on-exec,
 * close_range, the nofile limit, expansion past 64, 1024 and 65536 fds, the
 * fork copy and CLONE_FILES sharing, fget/fdget and the leak checks.  Every
 * test runs in a fresh model process; the suites run once per fileref
 * scheme, and once with get_file_rcu=out-of-line.  fstatat's empty path
 * (stat_empty_path=fd|walk): the walk takes and drops the file's dentry
 * lockref, the descriptor path does not touch it.
 */
#include "rvtest.h"
#include "fdtable/fdtable.h"
#include "fdtable/testing.h"

#include <stdint.h>

static int releases; /* atomic: f_op->release calls */

static int t_release(struct inode *inode, struct file *file)
{
	__atomic_fetch_add(&releases, 1, __ATOMIC_RELAXED);
	return 0;
}

static const struct file_operations t_fops = {.release = t_release};

static struct task_struct *me;

static void begin(void)
{
	me = task_create_process("fdtest");
	CU_ASSERT_PTR_NOT_NULL_FATAL(me);
	CU_ASSERT_PTR_NOT_NULL_FATAL(me->files);
	task_attach(me);
	releases = 0;
}

static void end(void)
{
	task_exit(me);
	me = NULL;
	CU_ASSERT_EQUAL(nr_files_active(), 0);
}

static struct file *new_file(unsigned int flags)
{
	struct file *f = alloc_file(NULL, NULL, flags, &t_fops);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	return f;
}

/* open(): a new file at the lowest free fd, tagged with its fd */
static int open_file(unsigned int flags)
{
	int fd = get_unused_fd_flags(flags);
	struct file *f;

	if (fd < 0)
		return fd;
	f = new_file(O_RDWR);
	f->private_data = (void *)(uintptr_t)fd;
	fd_install((unsigned int)fd, f);
	return fd;
}

static struct file *peek(unsigned int fd)
{
	struct file *f = fget_raw(fd);

	if (f)
		fput(f);
	return f;
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

static int init_ool(void)
{
	static const char *const s[] = {"get_file_rcu=out-of-line", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

static int init_walk(void)
{
	static const char *const s[] = {"stat_empty_path=walk", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

static int cleanup(void)
{
	int err = rvtest_instance_cleanup();

	/* teardown has run rcu_barrier: every table and file is gone */
	if (nr_fdtables_active() != 0) {
		fprintf(stderr, "fd tables leaked: %ld\n", nr_fdtables_active());
		return -1;
	}
	return err;
}

static void test_lowest_free(void)
{
	begin();
	CU_ASSERT_EQUAL(open_file(0), 0);
	CU_ASSERT_EQUAL(open_file(0), 1);
	CU_ASSERT_EQUAL(open_file(0), 2);
	CU_ASSERT_EQUAL(open_file(0), 3);
	CU_ASSERT_EQUAL(close_fd(1), 0);
	CU_ASSERT_EQUAL(releases, 1);
	CU_ASSERT_EQUAL(open_file(0), 1);
	CU_ASSERT_EQUAL(close_fd(2), 0);
	CU_ASSERT_EQUAL(close_fd(0), 0);
	CU_ASSERT_EQUAL(open_file(0), 0);
	CU_ASSERT_EQUAL(open_file(0), 2);
	CU_ASSERT_EQUAL(open_file(0), 4);
	/* alloc_fd with a start */
	CU_ASSERT_EQUAL(alloc_fd(10, 100, 0), 10);
	CU_ASSERT_EQUAL(alloc_fd(10, 100, 0), 11);
	CU_ASSERT_EQUAL(alloc_fd(0, 100, 0), 5);
	CU_ASSERT_EQUAL(alloc_fd(12, 13, 0), 12);
	CU_ASSERT_EQUAL(alloc_fd(12, 13, 0), -EMFILE);
	put_unused_fd(10);
	put_unused_fd(11);
	put_unused_fd(12);
	put_unused_fd(5);
	CU_ASSERT_EQUAL(get_unused_fd_flags(0), 5);
	put_unused_fd(5);
	end();
	CU_ASSERT_EQUAL(releases, 8);
}

static void test_install_close_errors(void)
{
	int fd;
	struct file *f;

	begin();
	fd = open_file(0);
	f = fget(fd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL((uintptr_t)f->private_data, (uintptr_t)fd);
	CU_ASSERT_EQUAL(file_count(f), 2);
	fput(f);
	CU_ASSERT_PTR_NULL(fget(1));	   /* never allocated */
	CU_ASSERT_PTR_NULL(fget(1000000)); /* beyond the table */
	CU_ASSERT_EQUAL(close_fd(1), -EBADF);
	CU_ASSERT_EQUAL(close_fd(1u << 30), -EBADF);
	/* a reserved but uninstalled fd is not a file */
	CU_ASSERT_EQUAL(get_unused_fd_flags(0), 1);
	CU_ASSERT_PTR_NULL(fget(1));
	CU_ASSERT_EQUAL(close_fd(1), -EBADF);
	put_unused_fd(1);
	CU_ASSERT_EQUAL(close_fd(fd), 0);
	CU_ASSERT_EQUAL(close_fd(fd), -EBADF);
	CU_ASSERT_PTR_NULL(fget(fd));
	CU_ASSERT_EQUAL(releases, 1);
	end();
}

static void test_o_path_lookup(void)
{
	int fd;
	struct file *f;
	struct fd d;

	begin();
	fd = get_unused_fd_flags(0);
	f = alloc_file(NULL, NULL, O_PATH, &t_fops);
	fd_install(fd, f);
	CU_ASSERT_PTR_NULL(fget(fd));
	CU_ASSERT_PTR_NULL(fget_ool(fd));
	d = fdget(fd);
	CU_ASSERT_PTR_NULL(d.file);
	d = fdget_raw(fd);
	CU_ASSERT_PTR_EQUAL(d.file, f);
	fdput(d);
	f = fget_raw(fd);
	CU_ASSERT_PTR_NOT_NULL(f);
	fput(f);
	end();
}

static void test_cloexec(void)
{
	int a, b, c;

	begin();
	a = open_file(O_CLOEXEC);
	b = open_file(0);
	c = open_file(O_CLOEXEC);
	CU_ASSERT(get_close_on_exec(a));
	CU_ASSERT_FALSE(get_close_on_exec(b));
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_GETFD, 0), FD_CLOEXEC);
	CU_ASSERT_EQUAL(ksys_fcntl(b, F_GETFD, 0), 0);
	CU_ASSERT_EQUAL(ksys_fcntl(c, F_SETFD, 0), 0);
	CU_ASSERT_EQUAL(ksys_fcntl(b, F_SETFD, FD_CLOEXEC), 0);
	CU_ASSERT_EQUAL(ksys_fcntl(b, F_GETFD, 0), FD_CLOEXEC);
	CU_ASSERT_EQUAL(ksys_fcntl(c, F_GETFD, 0), 0);
	CU_ASSERT_EQUAL(ksys_fcntl(99, F_GETFD, 0), -EBADF);
	do_close_on_exec(me->files);
	CU_ASSERT_PTR_NULL(peek(a));
	CU_ASSERT_PTR_NULL(peek(b));
	CU_ASSERT_PTR_NOT_NULL(peek(c));
	CU_ASSERT_EQUAL(releases, 2);
	/* a reused fd starts without close-on-exec unless asked */
	CU_ASSERT_EQUAL(open_file(0), 0);
	CU_ASSERT_FALSE(get_close_on_exec(0));
	CU_ASSERT_EQUAL(ksys_fcntl(0, F_GETFL, 0), O_RDWR);
	CU_ASSERT_EQUAL(ksys_fcntl(0, 12345, 0), -EINVAL);
	end();
}

static void test_dup(void)
{
	int a, b;
	struct file *f;

	begin();
	a = open_file(0);
	open_file(0);
	close_fd(0);
	CU_ASSERT_EQUAL(ksys_dup(1), 0); /* lowest free */
	f = peek(1);
	CU_ASSERT_PTR_EQUAL(peek(0), f);
	CU_ASSERT_EQUAL(file_count(f), 2);
	CU_ASSERT_EQUAL(ksys_dup(7), -EBADF);
	b = ksys_dup(1);
	CU_ASSERT_EQUAL(b, 2);
	CU_ASSERT_FALSE(get_close_on_exec(b)); /* dup never copies cloexec */
	CU_ASSERT_EQUAL(file_count(f), 3);
	close_fd(0);
	close_fd(1);
	CU_ASSERT_EQUAL(releases, 1); /* the first file only */
	CU_ASSERT_EQUAL(file_count(f), 1);
	close_fd(b);
	CU_ASSERT_EQUAL(releases, 2);
	(void)a;
	end();
}

static void test_dup2_dup3(void)
{
	int a, b;
	struct file *fa, *fb;

	begin();
	a = open_file(0);
	b = open_file(0);
	fa = peek(a);
	fb = peek(b);
	/* dup2 onto an open fd closes what was there */
	CU_ASSERT_EQUAL(ksys_dup2(a, b), b);
	CU_ASSERT_EQUAL(releases, 1);
	CU_ASSERT_PTR_EQUAL(peek(b), fa);
	CU_ASSERT_EQUAL(file_count(fa), 2);
	(void)fb;
	/* dup2 onto itself: the fd if valid, EBADF otherwise */
	CU_ASSERT_EQUAL(ksys_dup2(a, a), a);
	CU_ASSERT_EQUAL(ksys_dup2(40, 40), -EBADF);
	CU_ASSERT_EQUAL(ksys_dup2(40, 41), -EBADF);
	/* onto a free fd far away (expansion) */
	CU_ASSERT_EQUAL(ksys_dup2(a, 200), 200);
	CU_ASSERT(files_max_fds(me->files) > 200);
	CU_ASSERT_PTR_EQUAL(peek(200), fa);
	/* onto a reserved, uninstalled fd: EBUSY */
	CU_ASSERT_EQUAL(get_unused_fd_flags(0), 2);
	CU_ASSERT_EQUAL(ksys_dup2(a, 2), -EBUSY);
	put_unused_fd(2);
	/* beyond nofile */
	CU_ASSERT_EQUAL(files_set_nofile(me->files, 300), 0);
	CU_ASSERT_EQUAL(ksys_dup2(a, 300), -EBADF);
	CU_ASSERT_EQUAL(ksys_dup2(a, 299), 299);
	CU_ASSERT_EQUAL(files_set_nofile(me->files, NR_OPEN_MAX + 1), -EINVAL);
	/* dup3 */
	CU_ASSERT_EQUAL(ksys_dup3(a, a, 0), -EINVAL);
	CU_ASSERT_EQUAL(ksys_dup3(a, 5, O_NONBLOCK), -EINVAL);
	CU_ASSERT_EQUAL(ksys_dup3(a, 5, O_CLOEXEC), 5);
	CU_ASSERT(get_close_on_exec(5));
	CU_ASSERT_EQUAL(ksys_dup3(a, 5, 0), 5); /* replaces itself, clears cloexec */
	CU_ASSERT_FALSE(get_close_on_exec(5));
	CU_ASSERT_EQUAL(file_count(fa), 5);
	CU_ASSERT_EQUAL(ksys_dup3(77, 6, 0), -EBADF);
	end();
	CU_ASSERT_EQUAL(releases, 2);
}

static void test_fcntl_dupfd(void)
{
	int a;

	begin();
	a = open_file(0);
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD, 10), 10);
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD, 10), 11);
	CU_ASSERT_FALSE(get_close_on_exec(10));
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD_CLOEXEC, 0), 1);
	CU_ASSERT(get_close_on_exec(1));
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD, 1000), 1000);
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD, NOFILE_DEFAULT), -EINVAL);
	/* do_fcntl passes (int)arg: 2^40 is 0 (Linux 6.18), 2^40 - 1 is -1 */
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD, 1UL << 40), 2);
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD, (1UL << 40) - 1), -EINVAL);
	CU_ASSERT_EQUAL(ksys_fcntl(55, F_DUPFD, 0), -EBADF);
	files_set_nofile(me->files, 12);
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD, 11), -EMFILE);
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD, 12), -EINVAL);
	CU_ASSERT_EQUAL(file_count(peek(a)), 6);
	end();
	CU_ASSERT_EQUAL(releases, 1);
}

static void test_emfile(void)
{
	begin();
	CU_ASSERT_EQUAL(files_set_nofile(me->files, 10), 0);
	for (int i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(open_file(0), i);
	CU_ASSERT_EQUAL(get_unused_fd_flags(0), -EMFILE);
	CU_ASSERT_EQUAL(ksys_dup(3), -EMFILE);
	close_fd(4);
	CU_ASSERT_EQUAL(ksys_dup(3), 4);
	CU_ASSERT_EQUAL(get_unused_fd_flags(0), -EMFILE);
	end();
}

static void test_close_range(void)
{
	begin();
	for (int i = 0; i < 20; i++)
		open_file(0);
	CU_ASSERT_EQUAL(__close_range(5, 4, 0), -EINVAL);
	CU_ASSERT_EQUAL(__close_range(0, 1, 0x80), -EINVAL);
	CU_ASSERT_EQUAL(__close_range(5, 9, 0), 0);
	CU_ASSERT_EQUAL(releases, 5);
	for (int i = 0; i < 20; i++) {
		if (i >= 5 && i <= 9) {
			CU_ASSERT_PTR_NULL(peek(i));
		} else {
			CU_ASSERT_PTR_NOT_NULL(peek(i));
		}
	}
	CU_ASSERT_EQUAL(open_file(0), 5); /* next_fd went back */
	/* CLOEXEC marks without closing, up to "infinity" */
	CU_ASSERT_EQUAL(__close_range(12, ~0U, CLOSE_RANGE_CLOEXEC), 0);
	CU_ASSERT_EQUAL(releases, 5);
	CU_ASSERT_FALSE(get_close_on_exec(11));
	CU_ASSERT(get_close_on_exec(12));
	CU_ASSERT(get_close_on_exec(19));
	do_close_on_exec(me->files);
	CU_ASSERT_EQUAL(releases, 13);
	CU_ASSERT_PTR_NOT_NULL(peek(11));
	CU_ASSERT_PTR_NULL(peek(12));
	/* close everything from 3 on */
	CU_ASSERT_EQUAL(__close_range(3, ~0U, 0), 0);
	CU_ASSERT_EQUAL(releases, 18);
	CU_ASSERT_PTR_NOT_NULL(peek(2));
	CU_ASSERT_EQUAL(__close_range(100, 200, 0), 0); /* nothing there */
	end();
	CU_ASSERT_EQUAL(releases, 21);
}

/* close_range(UNSHARE) in a task sharing its table: only its copy changes. */
static void test_close_range_unshare(void)
{
	struct task_struct *thr;
	struct files_struct *shared;

	begin();
	for (int i = 0; i < 4; i++)
		open_file(0);
	thr = task_clone_thread(me);
	CU_ASSERT_PTR_NOT_NULL_FATAL(thr);
	shared = me->files;
	CU_ASSERT_PTR_EQUAL(thr->files, shared);
	CU_ASSERT_EQUAL(shared->count, 2);
	CU_ASSERT_EQUAL(__close_range(0, 1, CLOSE_RANGE_UNSHARE), 0);
	CU_ASSERT_PTR_NOT_EQUAL(me->files, shared);
	CU_ASSERT_EQUAL(shared->count, 1);
	CU_ASSERT_PTR_NULL(peek(0));
	CU_ASSERT_PTR_NOT_NULL(peek(2));
	CU_ASSERT_EQUAL(releases, 0); /* the thread's table still holds them */
	CU_ASSERT_PTR_NOT_NULL(files_lookup_fd_raw(shared, 0));
	task_exit(thr);
	CU_ASSERT_EQUAL(releases, 2);
	/* unshare on an unshared table: in place */
	CU_ASSERT_EQUAL(__close_range(2, 2, CLOSE_RANGE_UNSHARE), 0);
	CU_ASSERT_EQUAL(releases, 3);
	end();
	CU_ASSERT_EQUAL(releases, 4);
}

/* Expansion past 64, 1024 and 65536 fds; entries survive every copy. */
static void test_expand(void)
{
	static const unsigned int marks[] = {0, 63, 64, 1023, 1024, 65535, 65536};
	const unsigned int n = 65537 + 10;
	struct file *f[ARRAY_SIZE(marks)];
	unsigned int last_max = 0, grows = 0;
	uint64_t exp0;

	begin();
	CU_ASSERT_EQUAL(files_max_fds(me->files), NR_OPEN_DEFAULT);
	rv_stat_read("fdtable_expansions", &exp0);
	for (unsigned int i = 0, m = 0; i < n; i++) {
		int fd = get_unused_fd_flags(i & 1 ? O_CLOEXEC : 0);

		CU_ASSERT_EQUAL_FATAL(fd, (int)i);
		if (m < ARRAY_SIZE(marks) && marks[m] == i) {
			f[m] = new_file(O_RDWR);
			fd_install(i, f[m]);
			m++;
		}
		if (files_max_fds(me->files) != last_max) {
			last_max = files_max_fds(me->files);
			CU_ASSERT(last_max > i);
			grows++;
		}
	}
	CU_ASSERT(files_max_fds(me->files) > 65536);
	CU_ASSERT(grows >= 4);
	{
		uint64_t exp1;

		rv_stat_read("fdtable_expansions", &exp1);
		CU_ASSERT_EQUAL(exp1 - exp0, grows - 1);
	}
	for (unsigned int m = 0; m < ARRAY_SIZE(marks); m++) {
		CU_ASSERT_PTR_EQUAL(peek(marks[m]), f[m]);
		CU_ASSERT_EQUAL(get_close_on_exec(marks[m]), (marks[m] & 1) != 0);
	}
	CU_ASSERT_PTR_NULL(peek(65537));
	/* old tables wait for a grace period */
	rcu_barrier();
	CU_ASSERT_EQUAL(nr_fdtables_active(), 1);
	for (unsigned int i = 0; i < n; i++) {
		bool installed = false;

		for (unsigned int m = 0; m < ARRAY_SIZE(marks); m++)
			installed |= marks[m] == i;
		if (!installed)
			put_unused_fd(i);
	}
	/* the fd hint went back down: lowest free again */
	CU_ASSERT_EQUAL(get_unused_fd_flags(0), 1);
	put_unused_fd(1);
	CU_ASSERT_EQUAL(ksys_dup2(0, NR_OPEN_MAX), -EBADF);
	end();
	CU_ASSERT_EQUAL(releases, (int)ARRAY_SIZE(marks));
	CU_ASSERT_EQUAL(nr_fdtables_active(), 0);
}

/* fork: the child sees the same files, each with one more reference. */
static void test_fork_copy(void)
{
	struct task_struct *child;
	struct file *fa, *fc;
	int a, b, c;

	begin();
	a = open_file(0);
	b = open_file(O_CLOEXEC);
	c = open_file(0);
	CU_ASSERT_EQUAL(ksys_dup2(a, 150), 150);    /* an expanded table */
	CU_ASSERT_EQUAL(get_unused_fd_flags(0), 3); /* reserved, not installed */
	fa = peek(a);
	fc = peek(c);
	CU_ASSERT_EQUAL(file_count(fa), 2);

	child = task_fork(me);
	CU_ASSERT_PTR_NOT_NULL_FATAL(child);
	CU_ASSERT_PTR_NOT_EQUAL(child->files, me->files);
	CU_ASSERT_EQUAL(child->files->count, 1);
	CU_ASSERT_EQUAL(me->files->count, 1);
	CU_ASSERT_EQUAL(file_count(fa), 4);
	CU_ASSERT_EQUAL(file_count(fc), 2);
	CU_ASSERT(files_max_fds(child->files) > 150);

	task_attach(child);
	CU_ASSERT_PTR_EQUAL(peek(a), fa);
	CU_ASSERT_PTR_EQUAL(peek(150), fa);
	CU_ASSERT_PTR_EQUAL(peek(c), fc);
	CU_ASSERT(get_close_on_exec(b));
	/* the reserved fd 3 was not copied: the child may use it */
	CU_ASSERT_EQUAL(get_unused_fd_flags(0), 3);
	put_unused_fd(3);
	/* closing in the child leaves the parent's */
	CU_ASSERT_EQUAL(close_fd(c), 0);
	CU_ASSERT_EQUAL(releases, 0);
	CU_ASSERT_EQUAL(file_count(fc), 1);
	do_close_on_exec(child->files);
	CU_ASSERT_EQUAL(releases, 0);
	task_exit(child); /* detaches this thread from child */
	CU_ASSERT_EQUAL(file_count(fa), 2);
	CU_ASSERT_EQUAL(releases, 0);

	task_attach(me);
	CU_ASSERT_PTR_EQUAL(peek(c), fc);
	CU_ASSERT_PTR_NOT_NULL(peek(b));
	put_unused_fd(3);
	end();
	CU_ASSERT_EQUAL(releases, 3);
}

/* fdget takes no reference on an unshared table and one on a shared one. */
static void test_fdget_light(void)
{
	struct task_struct *thr;
	uint64_t h0, h1;
	struct file *f;
	struct fd d;
	int a;

	begin();
	a = open_file(0);
	f = peek(a);
	rv_stat_read("fdget_light_hits", &h0);
	d = fdget(a);
	CU_ASSERT_PTR_EQUAL(d.file, f);
	CU_ASSERT_EQUAL(d.flags, 0);
	CU_ASSERT_EQUAL(file_count(f), 1);
	fdput(d);
	rv_stat_read("fdget_light_hits", &h1);
	CU_ASSERT_EQUAL(h1 - h0, 1);
	d = fdget(a + 1);
	CU_ASSERT_PTR_NULL(d.file);

	thr = task_clone_thread(me);
	CU_ASSERT_EQUAL(me->files->count, 2);
	d = fdget(a);
	CU_ASSERT_PTR_EQUAL(d.file, f);
	CU_ASSERT_EQUAL(d.flags, FDPUT_FPUT);
	CU_ASSERT_EQUAL(file_count(f), 2);
	fdput(d);
	CU_ASSERT_EQUAL(file_count(f), 1);
	rv_stat_read("fdget_light_hits", &h0);
	CU_ASSERT_EQUAL(h0, h1);
	CU_ASSERT_PTR_EQUAL(fget_ool(a), f);
	fput(f);
	task_exit(thr);
	CU_ASSERT_EQUAL(me->files->count, 1);
	end();
}

/* fcntl as Linux 6.18's do_fcntl (found by fddiff) */
static void test_fcntl_as_linux(void)
{
	int a, b, p;
	struct file *f;

	begin();
	CU_ASSERT_EQUAL(files_set_nofile(me->files, 10), 0);
	a = open_file(0);
	b = open_file(0);
	/* the fd argument is (int)arg: 2^32 + 5 is 5 */
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD, (1UL << 32) + 5), 5);
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD, 10), -EINVAL);
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD, (unsigned long)-1), -EINVAL);
	/* F_DUPFD_QUERY: same description or not, -EBADF for a closed fd */
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD_QUERY, 5), 1);
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD_QUERY, b), 0);
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_DUPFD_QUERY, 7), -EBADF);
	/* F_SETFL changes only O_APPEND, O_NONBLOCK, O_DIRECT, O_NOATIME */
	f = peek(a);
	f->f_mode |= FMODE_CAN_ODIRECT;
	CU_ASSERT_EQUAL(
	    ksys_fcntl(a, F_SETFL, O_APPEND | O_NONBLOCK | O_WRONLY | O_TRUNC | O_ASYNC), 0);
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_GETFL, 0), O_RDWR | O_APPEND | O_NONBLOCK);
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_SETFL, O_DIRECT), 0);
	CU_ASSERT_EQUAL(ksys_fcntl(a, F_GETFL, 0), O_RDWR | O_DIRECT);
	CU_ASSERT_EQUAL(ksys_fcntl(b, F_SETFL, O_DIRECT), -EINVAL);
	/* an O_PATH file: only the fd commands and F_GETFL */
	p = get_unused_fd_flags(0);
	fd_install(p, alloc_file(NULL, NULL, O_PATH, &t_fops));
	CU_ASSERT_EQUAL(ksys_fcntl(p, F_SETFL, O_APPEND), -EBADF);
	CU_ASSERT_EQUAL(ksys_fcntl(p, 9999, 0), -EBADF);
	CU_ASSERT_EQUAL(ksys_fcntl(p, F_GETFL, 0), O_PATH);
	CU_ASSERT(ksys_fcntl(p, F_DUPFD, 0) >= 0);
	CU_ASSERT_EQUAL(ksys_fcntl(a, 9999, 0), -EINVAL);
	end();
}

/* ---- fstatat(fd, "", AT_EMPTY_PATH) ------------------------------------ */

struct legit_seen {
	struct dentry *d;
	int count; /* the dentry's lockref count at the legitimization */
};

static void at_legitimized(void *arg)
{
	struct legit_seen *l = arg;

	l->count = l->d->d_lockref.count;
}

/* One fstatat of the empty path on an open file of /statme: the dentry's
 * lockref count seen at the walk's legitimization (-1: no walk), and
 * before and after the call. */
static void fstatat_empty(bool shared, int *before, int *during, int *after)
{
	struct kstat st, want;
	struct task_struct *thr = NULL;
	struct legit_seen l = {NULL, -1};
	struct file *f;
	int fd;

	begin();
	if (shared) { /* a shared table: fdget takes a file reference */
		thr = task_clone_thread(me);
		CU_ASSERT_PTR_NOT_NULL_FATAL(thr);
	}
	CU_ASSERT_EQUAL_FATAL(do_mknod("/statme", S_IFREG | 0600, 0), 0);
	fd = do_sys_open("/statme", O_RDONLY, 0);
	CU_ASSERT_FATAL(fd >= 0);
	f = peek((unsigned int)fd);
	l.d = f->f_dentry;
	*before = l.d->d_lockref.count;
	rv_inject_set_callback("fstatat_empty_legitimized", at_legitimized, &l, 1);
	CU_ASSERT_EQUAL(vfs_fstatat(fd, "", &st, AT_EMPTY_PATH), 0);
	rv_inject_clear_all();
	*during = l.count;
	*after = l.d->d_lockref.count;
	CU_ASSERT_EQUAL(vfs_stat("/statme", &want), 0);
	CU_ASSERT_EQUAL(st.ino, want.ino);
	CU_ASSERT_EQUAL(st.mode, want.mode);
	/* the empty path without AT_EMPTY_PATH, a bad descriptor, bad flags */
	CU_ASSERT_EQUAL(vfs_fstatat(fd, "", &st, 0), -ENOENT);
	CU_ASSERT_EQUAL(vfs_fstatat(1000, "", &st, AT_EMPTY_PATH), -EBADF);
	CU_ASSERT_EQUAL(vfs_fstatat(fd, "", &st, AT_EMPTY_PATH | 0x40000000), -EINVAL);
	CU_ASSERT_EQUAL(vfs_fstatat(AT_FDCWD, "/statme", &st, 0), 0);
	CU_ASSERT_EQUAL(st.ino, want.ino);
	CU_ASSERT_EQUAL(vfs_fstatat(fd, "statme", &st, 0), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(close_fd((unsigned int)fd), 0);
	CU_ASSERT_EQUAL(do_unlink("/statme"), 0);
	if (thr)
		task_exit(thr);
	end();
}

/* stat_empty_path=walk: the walk legitimizes with a reference on the
 * dentry (the file's own plus one) and path_put drops it */
static void test_fstatat_empty_walk(void)
{
	for (int shared = 0; shared < 2; shared++) {
		int before, during, after;

		fstatat_empty(shared, &before, &during, &after);
		CU_ASSERT(before >= 1);
		CU_ASSERT_EQUAL(during, before + 1);
		CU_ASSERT_EQUAL(after, before);
	}
}

/* stat_empty_path=fd: by descriptor, no walk, the dentry untouched */
static void test_fstatat_empty_fd(void)
{
	for (int shared = 0; shared < 2; shared++) {
		int before, during, after;

		fstatat_empty(shared, &before, &during, &after);
		CU_ASSERT_EQUAL(during, -1);
		CU_ASSERT_EQUAL(after, before);
	}
}

RVTEST_SUITE(fdtable_inc_not_zero, init_inc, cleanup, RVTEST(test_lowest_free),
	     RVTEST(test_install_close_errors), RVTEST(test_o_path_lookup), RVTEST(test_cloexec),
	     RVTEST(test_dup), RVTEST(test_dup2_dup3), RVTEST(test_fcntl_dupfd),
	     RVTEST(test_emfile), RVTEST(test_close_range), RVTEST(test_close_range_unshare),
	     RVTEST(test_expand), RVTEST(test_fork_copy), RVTEST(test_fdget_light),
	     RVTEST(test_fcntl_as_linux), RVTEST(test_fstatat_empty_fd));
RVTEST_SUITE(fdtable_file_ref, init_ref, cleanup, RVTEST(test_lowest_free),
	     RVTEST(test_install_close_errors), RVTEST(test_o_path_lookup), RVTEST(test_cloexec),
	     RVTEST(test_dup), RVTEST(test_dup2_dup3), RVTEST(test_fcntl_dupfd),
	     RVTEST(test_emfile), RVTEST(test_close_range), RVTEST(test_close_range_unshare),
	     RVTEST(test_expand), RVTEST(test_fork_copy), RVTEST(test_fdget_light),
	     RVTEST(test_fcntl_as_linux));
RVTEST_SUITE(fdtable_get_file_rcu_out_of_line, init_ool, cleanup, RVTEST(test_lowest_free),
	     RVTEST(test_o_path_lookup), RVTEST(test_dup), RVTEST(test_fork_copy),
	     RVTEST(test_fdget_light), RVTEST(test_fstatat_empty_fd));
RVTEST_SUITE(fstatat_walk, init_walk, cleanup, RVTEST(test_fstatat_empty_walk));
