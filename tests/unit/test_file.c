// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_file.c - struct file and its reference count under both
 * fileref schemes: counting, the dead state of a freed (TYPESAFE_BY_RCU)
 * object, reuse with a fresh identity, the order of the teardown hooks, and
 * the file-ref dead/saturation zones.
 */
#include "rvtest.h"
#include "vfs/vfs.h"

#include <string.h>

static char trace[64];
static int trace_len;
static struct file *last_released;

static void trace_add(char c)
{
	if (trace_len < (int)sizeof(trace) - 1)
		trace[trace_len++] = c;
	trace[trace_len] = 0;
}

static void trace_reset(void)
{
	trace_len = 0;
	trace[0] = 0;
}

static int t_release(struct inode *inode, struct file *file)
{
	last_released = file;
	trace_add('R');
	return 0;
}

static int t_flush(struct file *file, void *owner)
{
	CU_ASSERT_PTR_EQUAL(owner, (void *)0x1234);
	trace_add('F');
	return 0;
}

static void t_locks_remove_posix(struct file *file, void *owner)
{
	CU_ASSERT_PTR_EQUAL(owner, (void *)0x1234);
	trace_add('P');
}

static void t_locks_remove_file(struct file *file)
{
	trace_add('L');
}

static void t_put_path(struct file *file)
{
	trace_add('D');
}

static const struct file_operations t_fops = {
    .release = t_release,
    .flush = t_flush,
};

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
	memset(&vfs_file_hooks, 0, sizeof(vfs_file_hooks));
	return rvtest_instance_cleanup();
}

static void test_count_basic(void)
{
	struct file *f = alloc_file(NULL, NULL, O_RDWR, &t_fops);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(file_count(f), 1);
	CU_ASSERT(f->f_mode & FMODE_READ);
	CU_ASSERT(f->f_mode & FMODE_WRITE);
	get_file(f);
	CU_ASSERT_EQUAL(file_count(f), 2);
	CU_ASSERT(file_tryget(f));
	CU_ASSERT_EQUAL(file_count(f), 3);
	fput(f);
	fput(f);
	CU_ASSERT_EQUAL(file_count(f), 1);
	last_released = NULL;
	fput(f);
	CU_ASSERT_PTR_EQUAL(last_released, f);
}

/* A freed object stays a struct file: a late RCU get must fail, and the
 * object's next life starts with exactly one reference and a new identity. */
static void test_dead_then_reused(void)
{
	struct file *f = alloc_file(NULL, NULL, O_RDONLY, &t_fops), *g;
	uint64_t gen;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	gen = f->f_gen;
	fput(f);
	CU_ASSERT_EQUAL(file_count(f), 0);
	rcu_read_lock();
	CU_ASSERT_FALSE(file_tryget(f)); /* memory still valid: typesafe */
	CU_ASSERT_FALSE(file_tryget(f));
	rcu_read_unlock();
	CU_ASSERT_EQUAL(file_count(f), 0);
	if (rv_sw.fileref == FILEREF_FILE_REF) {
		/* failed gets are not undone: they stay in the dead zone */
		CU_ASSERT(f->f_ref.refcnt >= FILE_REF_RELEASED);
	} else {
		CU_ASSERT_EQUAL(f->f_ref.refcnt, 0);
	}
	g = alloc_file(NULL, NULL, O_WRONLY, &t_fops);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_PTR_EQUAL(g, f); /* this thread's magazine is LIFO */
	CU_ASSERT_NOT_EQUAL(g->f_gen, gen);
	CU_ASSERT_EQUAL(file_count(g), 1);
	CU_ASSERT(g->f_mode & FMODE_WRITE);
	CU_ASSERT_FALSE(g->f_mode & FMODE_READ);
	fput(g);
}

static void test_gen_unique(void)
{
	struct file *f[16];

	for (int i = 0; i < 16; i++) {
		f[i] = alloc_file(NULL, NULL, O_RDONLY, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f[i]);
		for (int j = 0; j < i; j++)
			CU_ASSERT_NOT_EQUAL(f[i]->f_gen, f[j]->f_gen);
	}
	for (int i = 0; i < 16; i++)
		fput(f[i]);
	CU_ASSERT_EQUAL(nr_files_active(), 0);
}

static void test_o_path(void)
{
	struct file *f = alloc_file(NULL, NULL, O_PATH | O_RDWR, NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->f_mode, FMODE_PATH);
	fput(f);
}

static void test_hook_order(void)
{
	struct file *f = alloc_file(NULL, NULL, O_RDWR, &t_fops);

	vfs_file_hooks.locks_remove_posix = t_locks_remove_posix;
	vfs_file_hooks.locks_remove_file = t_locks_remove_file;
	vfs_file_hooks.file_put_path = t_put_path;
	get_file(f);
	trace_reset();
	/* not the last reference: flush and POSIX locks only */
	CU_ASSERT_EQUAL(filp_close(f, (void *)0x1234), 0);
	CU_ASSERT_STRING_EQUAL(trace, "FP");
	trace_reset();
	CU_ASSERT_EQUAL(filp_close(f, (void *)0x1234), 0);
	/* last: flush, POSIX locks, then __fput: file locks, release, path */
	CU_ASSERT_STRING_EQUAL(trace, "FPLRD");
	memset(&vfs_file_hooks, 0, sizeof(vfs_file_hooks));
}

/* file-ref only: the last put moves NOREF to DEAD; imbalanced puts stay dead. */
static void test_file_ref_zones(void)
{
	file_ref_t r;

	r.refcnt = FILE_REF_ONEREF;
	CU_ASSERT(file_ref_get(&r));
	CU_ASSERT_EQUAL(r.refcnt, 1);
	CU_ASSERT_FALSE(file_ref_put(&r));
	CU_ASSERT_TRUE(file_ref_put(&r));
	CU_ASSERT_EQUAL(r.refcnt, FILE_REF_DEAD);
	CU_ASSERT_FALSE(file_ref_get(&r));
	CU_ASSERT_EQUAL(r.refcnt, FILE_REF_DEAD + 1);
	/* a get that raced a last put: the putter must not tear down */
	r.refcnt = FILE_REF_ONEREF;
	CU_ASSERT_FALSE(__file_ref_put(&r, FILE_REF_NOREF)); /* cmpxchg sees 0, fails */
	CU_ASSERT_EQUAL(r.refcnt, FILE_REF_ONEREF);
	/* saturation: the count sticks, the object is leaked on purpose */
	r.refcnt = FILE_REF_MAXREF;
	CU_ASSERT(file_ref_get(&r));
	CU_ASSERT_EQUAL(r.refcnt, FILE_REF_SATURATED);
	CU_ASSERT_FALSE(file_ref_put(&r));
}

RVTEST_SUITE(file_inc_not_zero, init_inc, cleanup, RVTEST(test_count_basic),
	     RVTEST(test_dead_then_reused), RVTEST(test_gen_unique), RVTEST(test_o_path),
	     RVTEST(test_hook_order));
RVTEST_SUITE(file_file_ref, init_ref, cleanup, RVTEST(test_count_basic),
	     RVTEST(test_dead_then_reused), RVTEST(test_gen_unique), RVTEST(test_o_path),
	     RVTEST(test_hook_order), RVTEST(test_file_ref_zones));
