// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_failslab.c - the fail_alloc switch (failslab.h) and the
 * sweep: a scripted single-threaded workload over the fd table, POSIX and
 * flock locks, namei (create, symlink, link, rename, exchange, long names,
 * xattrs), the page cache (write, read back, truncate, fallocate, punch)
 * and mm (file and anonymous mappings, faults, a split munmap, fork) runs
 * once per k = 1, 2, ... with fail_alloc=nth:k, until k passes the number
 * of allocations the workload makes.
 *
 * Each step is one model operation.  With the k-th allocation failing, the
 * step that makes it must answer what it answers without the fault or
 * -ENOMEM; after -ENOMEM the same step is retried (the one fault is spent)
 * and must then give its normal answer, and every later step too: a
 * failure that left half-done state (a lock list, fd table, dcache or page
 * cache entry, VMA) shows as a wrong answer later, in mm_check, or as a leak
 * when the instance is torn down (kmem_cache_destroy's active-object check,
 * the live inode/dentry/fdtable counters).
 */
#include "test_mm_util.h"
#include "vfs/vfs.h"
#include "fdtable/fdtable.h"
#include "locks/locks.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>

#define LONGNAME "/d/a-name-longer-than-the-inline-dentry-name-storage"
#define MAPADDR	 0x20000000UL

struct wl {
	struct task_struct *t, *child;
	int fd;
	char buf[PG];
};

static int wl_open(struct wl *w, const char *path, int flags)
{
	int fd = do_sys_open(path, flags, 0644);

	if (fd < 0)
		return fd;
	w->fd = fd;
	return 0;
}

static int wl_setlk(struct wl *w, short type, int64_t start, int64_t len)
{
	struct fd f = fdget((unsigned int)w->fd);
	struct flock l = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
	int r;

	if (!f.file)
		return -EBADF;
	r = fcntl_setlk(f.file, F_SETLK, &l, (fl_owner_t)current->files, current->tgid, NULL);
	fdput(f);
	return r;
}

/* F_GETLK from another owner: the first lock in [start, start+len). */
static int wl_getlk(struct wl *w, int64_t start, int64_t len, int64_t *found)
{
	struct fd f = fdget((unsigned int)w->fd);
	struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
	int r;

	if (!f.file)
		return -EBADF;
	r = fcntl_getlk(f.file, F_GETLK, &l, (fl_owner_t)w);
	fdput(f);
	*found = l.l_type == F_UNLCK ? -1 : l.l_start;
	return r;
}

static int wl_write_page(struct wl *w, int page)
{
	struct fd f = fdget((unsigned int)w->fd);
	int64_t pos = (int64_t)page * PG;
	ssize_t r;

	if (!f.file)
		return -EBADF;
	memset(w->buf, 'a' + page, PG);
	r = vfs_write(f.file, w->buf, PG, &pos);
	fdput(f);
	return r == PG ? 0 : r < 0 ? (int)r : -EIO;
}

/* Page `page` reads as `first` then `rest` (the maps wrote one byte). */
static int wl_check_page(struct wl *w, int page, char first, char rest)
{
	struct fd f = fdget((unsigned int)w->fd);
	int64_t pos = (int64_t)page * PG;
	ssize_t r;

	if (!f.file)
		return -EBADF;
	r = vfs_read(f.file, w->buf, PG, &pos);
	fdput(f);
	if (r < 0)
		return (int)r;
	for (ssize_t i = 0; i < r; i++)
		if (w->buf[i] != (i ? rest : first))
			return -EIO;
	return r == PG ? 0 : -EIO;
}

static int wl_file_op(struct wl *w, int op)
{
	struct fd f = fdget((unsigned int)w->fd);
	long r;

	if (!f.file)
		return -EBADF;
	switch (op) {
	case 0:
		r = vfs_fallocate(f.file, 0, 4 * PG, 4 * PG);
		break;
	case 1:
		r = vfs_fallocate(f.file, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, PG, PG);
		break;
	case 2:
		r = flock_lock_file(f.file, LOCK_EX, current->tgid, NULL);
		break;
	case 3:
		r = vfs_setxattr(f.file->f_inode, "user.k", "value", 5, 0, NULL);
		break;
	default:
		r = vm_mmap(current->mm, MAPADDR, 3 * PG, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_FIXED, f.file, 0);
		r = r == (long)MAPADDR ? 0 : r;
		break;
	}
	fdput(f);
	return (int)r;
}

static int wl_touch(unsigned long addr, size_t len, bool write)
{
	char c = 'z';

	for (size_t off = 0; off < len; off += PG) {
		int r = mm_access(current->mm, addr + off, &c, 1, write);

		if (r)
			return r;
	}
	return 0;
}

/* One model operation per step; 0 when it gave its normal answer. */
static int wl_step(struct wl *w, int i)
{
	char link[64];
	int64_t at;
	ssize_t n;
	int r;

	switch (i) {
	case 0:
		w->t = task_create_process("failslab");
		if (!w->t)
			return -ENOMEM;
		task_attach(w->t);
		return 0;
	case 1:
		return exec_mm(w->t);
	case 2:
		return do_mkdir("/d", 0755);
	case 3:
		return wl_open(w, "/d/a", O_CREAT | O_RDWR);
	case 4:
	case 5:
	case 6:
		return wl_write_page(w, i - 4);
	case 7:
		return do_symlink("/d/a", "/d/l");
	case 8:
		n = do_readlink("/d/l", link, sizeof(link));
		return n == 4 && !memcmp(link, "/d/a", 4) ? 0 : n < 0 ? (int)n : -EIO;
	case 9:
		return do_link("/d/a", "/d/b");
	case 10:
		return do_rename("/d/b", LONGNAME, 0);
	case 11:
		return do_rename("/d/l", LONGNAME, RENAME_EXCHANGE);
	case 12:
		return wl_file_op(w, 3);
	case 13:
		return wl_setlk(w, F_WRLCK, 0, 10);
	case 14:
		return wl_setlk(w, F_WRLCK, 20, 10);
	case 15:
		return wl_setlk(w, F_UNLCK, 5, 20); /* leaves [0,5) and [25,30) */
	case 16:
		r = wl_getlk(w, 0, 100, &at);
		return r ? r : at == 0 ? 0 : -EIO;
	case 17:
		r = wl_getlk(w, 5, 100, &at);
		return r ? r : at == 25 ? 0 : -EIO;
	case 18:
		return wl_file_op(w, 2);
	case 19:
		r = ksys_dup2((unsigned int)w->fd, 10);
		return r == 10 ? 0 : r < 0 ? r : -EIO;
	case 20:
		r = ksys_dup2((unsigned int)w->fd, 300); /* expands the table */
		return r == 300 ? 0 : r < 0 ? r : -EIO;
	case 21:
		return wl_file_op(w, 4);
	case 22:
		return wl_touch(MAPADDR, 3 * PG, true);
	case 23:
		r = (int)mmt_map(current->mm, MAPADDR + 8 * PG, 6 * PG, PROT_READ | PROT_WRITE);
		return r == (int)(MAPADDR + 8 * PG) ? 0 : r < 0 ? r : -EIO;
	case 24:
		return wl_touch(MAPADDR + 8 * PG, 6 * PG, true);
	case 25:
		w->child = task_fork(w->t);
		return w->child ? 0 : -ENOMEM;
	case 26:
		task_attach(w->child);
		r = wl_touch(MAPADDR + 8 * PG, 2 * PG, true); /* COW in the child */
		task_attach(w->t);
		return r;
	case 27:
		return vm_munmap(current->mm, MAPADDR + 10 * PG, PG); /* splits */
	case 28:
		return wl_check_page(w, 1, 'z', 'b'); /* written through the shared map */
	case 29:
		return do_truncate("/d/a", 2 * PG);
	case 30:
		return wl_file_op(w, 0);
	case 31:
		return wl_file_op(w, 1);
	case 32:
		return wl_check_page(w, 0, 'z', 'a');
	case 33:
		return mm_check(current->mm) || mm_check(w->child->mm) ? -EIO : 0;
	case 34:
		return close_fd(300);
	case 35:
		return close_fd(10);
	case 36:
		return wl_setlk(w, F_UNLCK, 0, 0);
	case 37:
		return do_unlink(LONGNAME);
	case 38:
		return do_unlink("/d/l");
	case 39:
		return do_unlink("/d/a");
	case 40:
		return close_fd((unsigned int)w->fd);
	case 41:
		return do_rmdir("/d");
	}
	return 1; /* past the end */
}

struct sweep {
	int k, ran, enomem, absorbed, bad;
};

/* One run with the k-th allocation failing (k 0: none). */
static void run_once(int k, struct sweep *sw)
{
	struct rv_switches s;
	struct wl w = {0};
	char err[128];
	bool saw = false;
	int i, r;

	rv_switches_default(&s);
	if (k) {
		snprintf(err, sizeof(err), "nth:%d", k);
		CU_ASSERT_FATAL(rv_switch_set(&s, "fail_alloc", err, err, sizeof(err)) == 0);
	}
	CU_ASSERT_FATAL(rv_instance_create(&s) == 0);
	for (i = 0; (r = wl_step(&w, i)) != 1; i++) {
		/* fcntl's answer when it cannot allocate a lock record (fcntl_setlk,
		 * posix_lock_inode: "no luck"); the rest answer ENOMEM */
		if (r == -ENOLCK && i >= 13 && i <= 15)
			r = -ENOMEM;
		if (r == -ENOMEM && !saw) {
			saw = true;
			r = wl_step(&w, i); /* the fault is spent: now as without it */
		}
		if (r) {
			fprintf(stderr, "fail_alloc=nth:%d: step %d answers %d\n", k, i, r);
			sw->bad++;
			break;
		}
	}
	sw->ran = k ? (int)rv_fail_alloc_injected() : 1;
	if (saw)
		sw->enomem++;
	else if (k && sw->ran)
		sw->absorbed++; /* the operation got by without it (a spare, a retry) */
	if (w.child)
		task_exit(w.child);
	if (w.t) {
		task_attach(w.t);
		task_exit(w.t);
	}
	if (vfs_inodes_live() > 1 || nr_fdtables_active()) {
		fprintf(stderr, "fail_alloc=nth:%d: %ld inodes, %ld fd tables left\n", k,
			vfs_inodes_live(), nr_fdtables_active());
		sw->bad++;
	}
	if (rv_instance_destroy()) {
		fprintf(stderr, "fail_alloc=nth:%d: teardown found leaks\n", k);
		sw->bad++;
	}
}

static void test_fail_alloc_sweep(void)
{
	struct sweep sw = {0};
	int k, allocs;

	/* without faults the workload runs through, and counts its allocations */
	run_once(0, &sw);
	CU_ASSERT_EQUAL_FATAL(sw.bad, 0);
	for (k = 1; k < 100000; k++) {
		run_once(k, &sw);
		if (!sw.ran)
			break; /* k is past the workload's allocations */
	}
	allocs = k - 1;
	printf(
	    "\nfail_alloc sweep: %d allocation sites, %d answered -ENOMEM, %d absorbed, %d bad\n",
	    allocs, sw.enomem, sw.absorbed, sw.bad);
	CU_ASSERT_EQUAL(sw.bad, 0);
	/* the workload allocates in every layer: far more than its 42 steps */
	CU_ASSERT(allocs > 60);
	CU_ASSERT(sw.enomem > allocs / 2);
}

/* The switch's syntax, its formatting and the counters. */
static void test_fail_alloc_switch(void)
{
	static const char *const good[][2] = {
	    {"none", "none"},
	    {"every:3", "every:3"},
	    {"nth:7:dentry", "nth:7:dentry"},
	    {"p:0.5", "p:0.5"},
	    {"p:100:xa_node", "p:100:xa_node"},
	};
	static const char *const bad[] = {"every:0", "nth:",   "p:101", "p:-1",	    "often:3",
					  "nth:3:",  "nth:3x", "every", "nth:2:a:b"};
	struct rv_switches s;
	struct file *f = NULL;
	char err[160], out[64];

	rv_switches_default(&s);
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		CU_ASSERT(rv_switch_set(&s, "fail_alloc", good[i][0], err, sizeof(err)) == 0);
		rv_switch_format(&s, "fail_alloc", out, sizeof(out));
		CU_ASSERT_STRING_EQUAL(out, good[i][1]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CU_ASSERT(rv_switch_set(&s, "fail_alloc", bad[i], err, sizeof(err)) == -EINVAL);

	/* every:1 with a site filter: only that cache's allocations fail */
	CU_ASSERT(rv_switch_set(&s, "fail_alloc", "every:1:filp", err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(rv_instance_create(&s) == 0);
	CU_ASSERT(do_mkdir("/x", 0755) == 0);
	CU_ASSERT(filp_open("/x/f", O_CREAT | O_RDWR, 0644, &f) == -ENOMEM);
	CU_ASSERT(rv_fail_alloc_injected() == 1);
	CU_ASSERT(rv_fail_alloc_calls() == 1);
	CU_ASSERT(do_unlink("/x/f") == 0); /* created before the file failed */
	CU_ASSERT(do_rmdir("/x") == 0);
	CU_ASSERT(rv_instance_destroy() == 0);
}

RVTEST_SUITE(failslab, NULL, NULL, RVTEST(test_fail_alloc_switch), RVTEST(test_fail_alloc_sweep))
