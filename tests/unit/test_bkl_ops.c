// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_bkl_ops.c - the `bkl_ops` switch on the VFS paths: open
 * (do_dentry_open, reached by filp_open and vfs_open_inode), release (the
 * last fput's f_op->release), setattr (vfs_setattr, do_truncate, O_TRUNC)
 * and ioctl (vfs_ioctl and its RCUVFS_IOC_* commands).
 *
 * For every suite's bkl_ops value, each path takes the BKL exactly when its
 * bit is set: bkl_acquisitions grows by the expected amount, and a callback
 * at the path's injection point (bkl_ops_open, bkl_ops_release,
 * bkl_ops_setattr, bkl_ops_ioctl) sees kernel_locked() true or false.  With
 * bkl_ops=none (and bkl_ops=lock) no path takes it.  A path that sleeps with
 * the BKL (an O_TRUNC open or a truncate waiting for an i_rwsem another
 * task holds) does not hold it while asleep: a third task takes
 * lock_kernel() meanwhile, for each BKL kind.  Every wait is bounded.
 */
#include "rvtest.h"
#include "vfs/vfs.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>

#define OK(x) CU_ASSERT_EQUAL((x), 0)

static uint64_t acq(void)
{
	uint64_t v = 0;

	CU_ASSERT(rv_stat_read("bkl_acquisitions", &v) == 0);
	return v;
}

/* ---- observing the BKL inside a path ----------------------------------- */

struct probe {
	int hits;
	int locked; /* hits that saw kernel_locked() */
	int depth;  /* lock_depth at the last hit */
};

static void probe_cb(void *arg)
{
	struct probe *p = arg;

	p->hits++;
	if (kernel_locked())
		p->locked++;
	p->depth = current->lock_depth;
}

static struct probe pr_open, pr_release, pr_setattr, pr_ioctl;

static void probes_arm(void)
{
	memset(&pr_open, 0, sizeof(pr_open));
	memset(&pr_release, 0, sizeof(pr_release));
	memset(&pr_setattr, 0, sizeof(pr_setattr));
	memset(&pr_ioctl, 0, sizeof(pr_ioctl));
	OK(rv_inject_set_callback("bkl_ops_open", probe_cb, &pr_open, 0));
	OK(rv_inject_set_callback("bkl_ops_release", probe_cb, &pr_release, 0));
	OK(rv_inject_set_callback("bkl_ops_setattr", probe_cb, &pr_setattr, 0));
	OK(rv_inject_set_callback("bkl_ops_ioctl", probe_cb, &pr_ioctl, 0));
}

/* The suite's value of bkl_ops (what the instance was created with). */
static unsigned ops;

static int on(unsigned bit)
{
	return (ops & bit) ? 1 : 0;
}

/* hits == n, and all (or none) of them under the BKL per the bit */
#define CHECK_PROBE(p, n, bit)                                                                     \
	do {                                                                                       \
		CU_ASSERT_EQUAL((p).hits, (n));                                                    \
		CU_ASSERT_EQUAL((p).locked, on(bit) ? (n) : 0);                                    \
	} while (0)

/* ---- each path, single task -------------------------------------------- */

static void test_open_release(void)
{
	struct file *f = NULL;
	uint64_t a0;

	probes_arm();
	a0 = acq();
	/* open of a new file: the create is outside, the open part inside */
	OK(filp_open("/o", O_CREAT | O_RDWR, 0644, &f));
	CU_ASSERT_EQUAL(acq() - a0, (uint64_t)on(BKL_OP_OPEN));
	CHECK_PROBE(pr_open, 1, BKL_OP_OPEN);
	CHECK_PROBE(pr_setattr, 0, BKL_OP_SETATTR);
	CU_ASSERT_FALSE(kernel_locked());

	/* a second reference: fput of it is not the release */
	get_file(f);
	fput(f);
	CU_ASSERT_EQUAL(pr_release.hits, 0);
	a0 = acq();
	fput(f);
	CU_ASSERT_EQUAL(acq() - a0, (uint64_t)on(BKL_OP_RELEASE));
	CHECK_PROBE(pr_release, 1, BKL_OP_RELEASE);
	CU_ASSERT_FALSE(kernel_locked());

	/* open of an existing file, by path and by inode (the FUSE shape) */
	a0 = acq();
	OK(filp_open("/o", O_RDONLY, 0, &f));
	CU_ASSERT_EQUAL(acq() - a0, (uint64_t)on(BKL_OP_OPEN));
	{
		struct dentry *d;
		struct file *g = NULL;

		OK(kern_path("/o", 0, &d));
		a0 = acq();
		OK(vfs_open_inode(d->d_inode, O_RDONLY, &g));
		CU_ASSERT_EQUAL(acq() - a0, (uint64_t)on(BKL_OP_OPEN));
		dput(d);
		fput(g);
	}
	fput(f);
	CHECK_PROBE(pr_open, 3, BKL_OP_OPEN);
	CHECK_PROBE(pr_release, 3, BKL_OP_RELEASE);

	/* an open that fails before the ->open part takes nothing */
	a0 = acq();
	CU_ASSERT_EQUAL(filp_open("/o", O_RDONLY | O_DIRECTORY, 0, &f), -ENOTDIR);
	CU_ASSERT_EQUAL(acq(), a0);
	CU_ASSERT_EQUAL(pr_open.hits, 3);
	/* a directory (the FUSE opendir shape) */
	{
		struct inode *root = vfs_root();

		a0 = acq();
		OK(vfs_open_inode(root, O_RDONLY | O_DIRECTORY, &f));
		CU_ASSERT_EQUAL(acq() - a0, (uint64_t)on(BKL_OP_OPEN));
		iput(root);
		a0 = acq();
		fput(f);
		CU_ASSERT_EQUAL(acq() - a0, (uint64_t)on(BKL_OP_RELEASE));
	}
	CU_ASSERT_FALSE(kernel_locked());
	rv_inject_clear_all();
	OK(do_unlink("/o"));
}

static void test_setattr(void)
{
	struct file *f = NULL;
	struct dentry *d;
	struct iattr ia = {.ia_valid = ATTR_MODE, .ia_mode = 0600};
	struct kstat st;
	uint64_t a0;
	int64_t pos = 0;

	OK(filp_open("/s", O_CREAT | O_RDWR, 0644, &f));
	CU_ASSERT_EQUAL(vfs_write(f, "0123456789", 10, &pos), 10);
	fput(f);
	OK(kern_path("/s", 0, &d));
	probes_arm();
	a0 = acq();
	OK(vfs_setattr(d->d_inode, &ia));
	CU_ASSERT_EQUAL(acq() - a0, (uint64_t)on(BKL_OP_SETATTR));
	CHECK_PROBE(pr_setattr, 1, BKL_OP_SETATTR);
	vfs_getattr(d->d_inode, &st);
	CU_ASSERT_EQUAL(st.mode & 07777, 0600);

	/* truncate is a setattr */
	a0 = acq();
	OK(do_truncate("/s", 5));
	CU_ASSERT_EQUAL(acq() - a0, (uint64_t)on(BKL_OP_SETATTR));
	CHECK_PROBE(pr_setattr, 2, BKL_OP_SETATTR);

	/* validation failures happen before the BKL */
	{
		struct inode *root = vfs_root();
		struct iattr sz = {.ia_valid = ATTR_SIZE, .ia_size = 0};

		a0 = acq();
		CU_ASSERT_EQUAL(vfs_setattr(root, &sz), -EISDIR);
		CU_ASSERT_EQUAL(acq(), a0);
		iput(root);
	}

	/* O_TRUNC: setattr nested inside the open part (depth 1 when both) */
	a0 = acq();
	OK(filp_open("/s", O_WRONLY | O_TRUNC, 0, &f));
	CU_ASSERT_EQUAL(acq() - a0, (uint64_t)(on(BKL_OP_OPEN) | on(BKL_OP_SETATTR)));
	CU_ASSERT_EQUAL(pr_setattr.hits, 3);
	/* under the open's BKL even when setattr itself does not take it */
	CU_ASSERT_EQUAL(pr_setattr.locked, on(BKL_OP_SETATTR) ? 3 : on(BKL_OP_OPEN));
	CU_ASSERT_EQUAL(pr_setattr.depth, on(BKL_OP_OPEN) + on(BKL_OP_SETATTR) - 1);
	vfs_getattr(d->d_inode, &st);
	CU_ASSERT_EQUAL(st.size, 0);
	fput(f);
	dput(d);
	CU_ASSERT_FALSE(kernel_locked());
	rv_inject_clear_all();
	OK(do_unlink("/s"));
}

static void test_ioctl(void)
{
	struct file *f = NULL, *g = NULL;
	uint64_t a0, gen = 0, gen2 = 0, ver = 0;

	OK(filp_open("/i", O_CREAT | O_RDWR, 0644, &f));
	OK(filp_open("/i", O_RDONLY, 0, &g));
	probes_arm();
	a0 = acq();
	OK(vfs_ioctl(f, RCUVFS_IOC_NOP, 0));
	CU_ASSERT_EQUAL(acq() - a0, (uint64_t)on(BKL_OP_IOCTL));
	CHECK_PROBE(pr_ioctl, 1, BKL_OP_IOCTL);
	OK(vfs_ioctl(f, RCUVFS_IOC_GETGEN, (unsigned long)&gen));
	OK(vfs_ioctl(g, RCUVFS_IOC_GETGEN, (unsigned long)&gen2));
	CU_ASSERT_EQUAL(gen, f->f_gen);
	CU_ASSERT_EQUAL(gen2, g->f_gen);
	CU_ASSERT_NOT_EQUAL(gen, gen2); /* one per open file description */
	OK(vfs_ioctl(g, RCUVFS_IOC_GETVERSION, (unsigned long)&ver));
	CU_ASSERT_EQUAL(ver, f->f_inode->i_generation);
	CU_ASSERT_EQUAL(vfs_ioctl(f, RCUVFS_IOC_GETGEN, 0), -EFAULT);
	CU_ASSERT_EQUAL(vfs_ioctl(f, _IOR(RCUVFS_IOC_MAGIC, 99, uint64_t), (unsigned long)&gen),
			-ENOTTY);
	CU_ASSERT_EQUAL(vfs_ioctl(f, 0x5401 /* TCGETS */, (unsigned long)&gen), -ENOTTY);
	CHECK_PROBE(pr_ioctl, 7, BKL_OP_IOCTL);
	CU_ASSERT_EQUAL(acq() - a0, 7 * (uint64_t)on(BKL_OP_IOCTL));
	/* the numbers encode direction and size (what FUSE relies on) */
	CU_ASSERT_EQUAL(_IOC_DIR(RCUVFS_IOC_GETGEN), _IOC_READ);
	CU_ASSERT_EQUAL(_IOC_SIZE(RCUVFS_IOC_GETGEN), sizeof(uint64_t));
	CU_ASSERT_EQUAL(_IOC_DIR(RCUVFS_IOC_NOP), _IOC_NONE);
	CU_ASSERT_EQUAL(_IOC_SIZE(RCUVFS_IOC_NOP), 0);
	CU_ASSERT_FALSE(kernel_locked());
	rv_inject_clear_all();
	fput(g);
	fput(f);
	OK(do_unlink("/i"));
}

/* ---- released across a sleep --------------------------------------------- */

/*
 * The main task holds the file's i_rwsem.  Task A runs a path that takes
 * the BKL and then sleeps on that i_rwsem (O_TRUNC open, or truncate).
 * Once A has been inside the path (injection arrival) and has given the BKL
 * up for its sleep (lock_depth -1 again), task B takes lock_kernel(): it can
 * only finish while A still sleeps if A's sleep released the BKL.
 */
static struct task_struct *volatile a_task;
static int a_err, a_done, b_done, b_saw_locked;
static int a_kind; /* 0: O_TRUNC open, 1: do_truncate */

static void *sleeper_a(void *arg)
{
	struct file *f = NULL;

	a_task = current;
	if (a_kind == 0) {
		a_err = filp_open("/z", O_WRONLY | O_TRUNC, 0, &f);
		if (!a_err)
			fput(f);
	} else {
		a_err = do_truncate("/z", 1);
	}
	__atomic_store_n(&a_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *taker_b(void *arg)
{
	lock_kernel();
	b_saw_locked = kernel_locked();
	unlock_kernel();
	__atomic_store_n(&b_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void check_release_across_sleep(int kindsel, const char *point)
{
	struct file *f = NULL;
	struct dentry *d;
	struct inode *inode;
	pthread_t ta, tb;
	uint64_t a0;
	int64_t pos = 0;
	int waited;

	OK(filp_open("/z", O_CREAT | O_RDWR, 0644, &f));
	CU_ASSERT_EQUAL(vfs_write(f, "zzzz", 4, &pos), 4);
	fput(f);
	OK(kern_path("/z", 0, &d));
	inode = d->d_inode;
	a_task = NULL;
	a_err = -1;
	a_done = b_done = b_saw_locked = 0;
	a_kind = kindsel;
	OK(rv_inject_set_callback(point, probe_cb, &pr_open, 0));
	memset(&pr_open, 0, sizeof(pr_open));

	down_write(&inode->i_rwsem);
	a0 = acq();
	pthread_create(&ta, NULL, sleeper_a, NULL);
	/* A is inside the path, under the BKL ... */
	OK(rv_inject_wait_arrivals(point, 1, 10000));
	/* ... and then gave the BKL up to sleep on our i_rwsem */
	waited =
	    WAIT_UNTIL(a_task && __atomic_load_n(&a_task->lock_depth, __ATOMIC_ACQUIRE) == -1 &&
		       __atomic_load_n(&a_task->state, __ATOMIC_ACQUIRE) != TASK_RUNNING);
	CU_ASSERT_EQUAL(waited, 0);
	CU_ASSERT_EQUAL(pr_open.locked, 1); /* it did hold the BKL there */
	pthread_create(&tb, NULL, taker_b, NULL);
	/* B gets the BKL while A still sleeps (bounded: on failure, our
	 * up_write below lets A finish and release it, and B completes) */
	waited = WAIT_UNTIL(__atomic_load_n(&b_done, __ATOMIC_ACQUIRE));
	CU_ASSERT_EQUAL(waited, 0);
	CU_ASSERT_EQUAL(b_saw_locked, 1);
	CU_ASSERT_EQUAL(__atomic_load_n(&a_done, __ATOMIC_ACQUIRE), 0);
	up_write(&inode->i_rwsem);
	pthread_join(tb, NULL);
	pthread_join(ta, NULL);
	OK(a_err);
	/* A: outermost take + re-take after the sleep (+ its fput's release
	 * for the open); B: one */
	CU_ASSERT_EQUAL(acq() - a0, 3 + (uint64_t)(kindsel == 0 ? on(BKL_OP_RELEASE) : 0));
	{
		struct kstat st;

		vfs_getattr(inode, &st);
		CU_ASSERT_EQUAL(st.size, kindsel == 0 ? 0 : 1);
	}
	rv_inject_clear_all();
	dput(d);
	OK(do_unlink("/z"));
}

/* Registered only in the suites whose bkl_ops has the path's bit. */
static void test_open_sleep_releases_bkl(void)
{
	CU_ASSERT_FATAL(on(BKL_OP_OPEN));
	check_release_across_sleep(0, "bkl_ops_open");
}

static void test_setattr_sleep_releases_bkl(void)
{
	CU_ASSERT_FATAL(on(BKL_OP_SETATTR));
	check_release_across_sleep(1, "bkl_ops_setattr");
}

/* ---- suites: one instance per bkl_ops value (and BKL kind) -------------- */

static int make(const char *bkl_ops, const char *bkl)
{
	const char *settings[3] = {NULL, NULL, NULL};
	char a[64], b[64];

	snprintf(a, sizeof(a), "bkl_ops=%s", bkl_ops);
	snprintf(b, sizeof(b), "bkl=%s", bkl);
	settings[0] = a;
	settings[1] = b;
	if (rvtest_instance_with(settings))
		return -1;
	ops = rv_sw.bkl_ops;
	return 0;
}

static int cleanup(void)
{
	rv_inject_clear_all();
	return rvtest_instance_cleanup();
}

/* Every suite checks the three paths; the sleep checks go only where the
 * path takes the BKL (elsewhere there is nothing to release). */
#define OPS_SUITE(nm, opsval, kindval, ...)                                                        \
	static int init_##nm(void)                                                                 \
	{                                                                                          \
		return make(opsval, kindval);                                                      \
	}                                                                                          \
	RVTEST_SUITE(nm, init_##nm, cleanup, RVTEST(test_open_release), RVTEST(test_setattr),      \
		     RVTEST(test_ioctl), ##__VA_ARGS__)
#define SLEEP_OPEN    RVTEST(test_open_sleep_releases_bkl)
#define SLEEP_SETATTR RVTEST(test_setattr_sleep_releases_bkl)

OPS_SUITE(bkl_ops_none, "none", "spin")
OPS_SUITE(bkl_ops_lock_only, "lock", "spin")
OPS_SUITE(bkl_ops_open, "open", "spin", SLEEP_OPEN)
OPS_SUITE(bkl_ops_release, "release", "spin")
OPS_SUITE(bkl_ops_setattr, "setattr", "spin", SLEEP_SETATTR)
OPS_SUITE(bkl_ops_ioctl, "ioctl", "spin")
OPS_SUITE(bkl_ops_all_spin, "all", "spin", SLEEP_OPEN, SLEEP_SETATTR)
OPS_SUITE(bkl_ops_all_fifo, "all", "sem-fifo", SLEEP_OPEN, SLEEP_SETATTR)
OPS_SUITE(bkl_ops_all_steal, "all", "sem-steal", SLEEP_OPEN, SLEEP_SETATTR)
OPS_SUITE(bkl_ops_open_fifo, "open", "sem-fifo", SLEEP_OPEN)
