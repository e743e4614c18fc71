// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_locks.c - semantics of locks/: POSIX range arithmetic,
 * conflicts, F_GETLK, flock conversion, OFD, unlock on close, deadlock
 * detection, deferred grants and cancel, limits, invalid input, listing.
 * Every suite runs once per filelock scheme (global, bkl, inode).
 */
#include "test_locks_common.h"

#include <pthread.h>

static struct inode *ino1, *ino2, *ino3;
static struct file *f1, *f2, *f3, *fro, *fwo;

static void fixture_up(void)
{
	ino1 = tl_inode(101);
	ino2 = tl_inode(102);
	ino3 = tl_inode(103);
	f1 = tl_file(ino1, FMODE_READ | FMODE_WRITE);
	f2 = tl_file(ino1, FMODE_READ | FMODE_WRITE);
	f3 = tl_file(ino1, FMODE_READ | FMODE_WRITE);
	fro = tl_file(ino1, FMODE_READ);
	fwo = tl_file(ino1, FMODE_WRITE);
}

static void fixture_down(void)
{
	char why[256];

	/* every test ends with the lists and the tree consistent */
	CU_ASSERT_EQUAL(locks_check(why, sizeof(why)), 0);
	/* close every owner used by the tests, then the files */
	for (int o = 0; o < 16; o++) {
		locks_remove_posix(f1, TL_OWNER(o));
		locks_remove_posix(f1, TL_OWNER(o)); /* idempotent */
	}
	tl_file_free(f1);
	tl_file_free(f2);
	tl_file_free(f3);
	tl_file_free(fro);
	tl_file_free(fwo);
	CU_ASSERT_EQUAL(locks_count_held(), 0);
	CU_ASSERT_EQUAL(locks_count_blocked(), 0);
	CU_ASSERT_EQUAL(locks_check(why, sizeof(why)), 0);
	tl_inode_free(ino1);
	tl_inode_free(ino2);
	tl_inode_free(ino3);
}

/* ---- POSIX range arithmetic ------------------------------------------- */

static void test_posix_split_merge(void)
{
	fixture_up();
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 100), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "W0-99");
	/* unlock in the middle splits */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_UNLCK, 10, 10), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "W0-9,W20-99");
	/* re-lock the hole: merges everything back */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 10, 10), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "W0-99");
	/* adjacent same type merges */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 100, 50), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "W0-149");
	/* adjacent other type does not */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_RDLCK, 150, 10), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "W0-149,R150-159");
	/* overlapping several: one range */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_RDLCK, 200, 10), 0);
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_RDLCK, 155, 50), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "W0-149,R150-209");
	/* unlock covering the edges of two locks trims both */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_UNLCK, 140, 20), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "W0-139,R160-209");
	/* unlock of nothing is fine */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_UNLCK, 1000, 10), 0);
	/* whole-file unlock */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_UNLCK, 0, 0), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "");
	fixture_down();
}

static void test_posix_upgrade_downgrade(void)
{
	fixture_up();
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_RDLCK, 0, 100), 0);
	/* upgrade the middle */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 10, 10), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "R0-9,W10-19,R20-99");
	/* downgrade it again: all one read lock */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_RDLCK, 10, 10), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "R0-99");
	/* upgrade the whole range to EOF */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 0), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "W0-EOF");
	/* another owner's read lock blocks an upgrade over it */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_UNLCK, 0, 0), 0);
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_RDLCK, 0, 100), 0);
	CU_ASSERT_EQUAL(tl_lock(f2, 2, F_RDLCK, 50, 10), 0);
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 100), -EAGAIN);
	/* a refused upgrade changes nothing */
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "R0-99");
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 50), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "W0-49,R50-99");
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 2), "R50-59");
	fixture_down();
}

static void test_posix_conflicts(void)
{
	fixture_up();
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_RDLCK, 0, 10), 0);
	CU_ASSERT_EQUAL(tl_lock(f2, 2, F_RDLCK, 5, 10), 0);	  /* read/read share */
	CU_ASSERT_EQUAL(tl_lock(f2, 2, F_WRLCK, 5, 10), -EAGAIN); /* over 1's read */
	CU_ASSERT_EQUAL(tl_lock(f2, 2, F_WRLCK, 10, 10), 0);	  /* beyond it */
	CU_ASSERT_EQUAL(tl_lock(f3, 3, F_RDLCK, 12, 1), -EAGAIN);
	CU_ASSERT_EQUAL(tl_lock(f3, 3, F_RDLCK, 20, 0), 0);
	/* the same owner through another fd never conflicts with itself */
	CU_ASSERT_EQUAL(tl_lock(f3, 2, F_WRLCK, 0, 0) == -EAGAIN, 1); /* 1's read at 0-9 */
	CU_ASSERT_EQUAL(tl_lock(f3, 1, F_WRLCK, 0, 5), 0);
	CU_ASSERT_EQUAL(tl_lock(f2, 1, F_UNLCK, 0, 0), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "");
	/* locks on another inode are independent */
	{
		struct file *g = tl_file(ino2, FMODE_READ | FMODE_WRITE);

		CU_ASSERT_EQUAL(tl_lock(g, 1, F_WRLCK, 0, 0), 0);
		CU_ASSERT_EQUAL(tl_lock(g, 1, F_UNLCK, 0, 0), 0);
		tl_file_free(g);
	}
	fixture_down();
}

static void test_posix_whence_and_lengths(void)
{
	struct flock l;

	fixture_up();
	ino1->i_size = 1000;
	f1->f_pos = 300;
	/* SEEK_CUR */
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_CUR, .l_start = 10, .l_len = 5};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_SETLK, &l, TL_OWNER(1), 1, NULL), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "W310-314");
	/* SEEK_END with a negative start */
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_END, .l_start = -10, .l_len = 10};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_SETLK, &l, TL_OWNER(1), 1, NULL), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "W310-314,W990-999");
	/* negative length: the bytes before start */
	l = (struct flock){.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 100, .l_len = -20};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_SETLK, &l, TL_OWNER(1), 1, NULL), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "R80-99,W310-314,W990-999");
	/* len 0: to EOF, whatever the size later becomes */
	l = (struct flock){.l_type = F_RDLCK, .l_whence = SEEK_END, .l_start = 0, .l_len = 0};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_SETLK, &l, TL_OWNER(1), 1, NULL), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "R80-99,W310-314,W990-999,R1000-EOF");
	CU_ASSERT_EQUAL(tl_lock(f2, 2, F_WRLCK, 1 << 30, 1), -EAGAIN);
	/* negative length reaching exactly 0 is fine, beyond is EINVAL */
	l = (struct flock){.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 5, .l_len = -5};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_SETLK, &l, TL_OWNER(3), 3, NULL), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 3), "R0-4");
	l = (struct flock){.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 5, .l_len = -6};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_SETLK, &l, TL_OWNER(3), 3, NULL), -EINVAL);
	fixture_down();
}

/* ---- F_GETLK ----------------------------------------------------------- */

static void test_getlk(void)
{
	struct flock l;

	fixture_up();
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
	CU_ASSERT_EQUAL(fcntl_getlk(f1, F_GETLK, &l, TL_OWNER(1)), 0);
	CU_ASSERT_EQUAL(l.l_type, F_UNLCK);

	CU_ASSERT_EQUAL(tl_lock(f2, 2, F_RDLCK, 100, 50), 0);
	CU_ASSERT_EQUAL(tl_lock(f2, 2, F_WRLCK, 200, 0), 0);
	/* a read test does not conflict with a read lock */
	l = (struct flock){.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 150};
	CU_ASSERT_EQUAL(fcntl_getlk(f1, F_GETLK, &l, TL_OWNER(1)), 0);
	CU_ASSERT_EQUAL(l.l_type, F_UNLCK);
	/* a write test reports the read lock: type, pid, start, len */
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 150};
	CU_ASSERT_EQUAL(fcntl_getlk(f1, F_GETLK, &l, TL_OWNER(1)), 0);
	CU_ASSERT_EQUAL(l.l_type, F_RDLCK);
	CU_ASSERT_EQUAL(l.l_pid, 2);
	CU_ASSERT_EQUAL(l.l_start, 100);
	CU_ASSERT_EQUAL(l.l_len, 50);
	CU_ASSERT_EQUAL(l.l_whence, SEEK_SET);
	/* the lock to EOF reports len 0 */
	l = (struct flock){.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 500, .l_len = 1};
	CU_ASSERT_EQUAL(fcntl_getlk(f1, F_GETLK, &l, TL_OWNER(1)), 0);
	CU_ASSERT_EQUAL(l.l_type, F_WRLCK);
	CU_ASSERT_EQUAL(l.l_start, 200);
	CU_ASSERT_EQUAL(l.l_len, 0);
	/* the owner's own locks never show */
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
	CU_ASSERT_EQUAL(fcntl_getlk(f1, F_GETLK, &l, TL_OWNER(2)), 0);
	CU_ASSERT_EQUAL(l.l_type, F_UNLCK);
	/* an OFD lock is reported with l_pid -1 */
	CU_ASSERT_EQUAL(tl_lock(f2, 2, F_UNLCK, 0, 0), 0);
	CU_ASSERT_EQUAL(tl_setlk(f3, F_OFD_SETLK, 0, F_WRLCK, 10, 10), 0);
	l = (struct flock){.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
	CU_ASSERT_EQUAL(fcntl_getlk(f1, F_GETLK, &l, TL_OWNER(1)), 0);
	CU_ASSERT_EQUAL(l.l_type, F_WRLCK);
	CU_ASSERT_EQUAL(l.l_pid, -1);
	CU_ASSERT_EQUAL(l.l_start, 10);
	/* F_OFD_GETLK through the owning description: no conflict */
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
	CU_ASSERT_EQUAL(fcntl_getlk(f3, F_OFD_GETLK, &l, NULL), 0);
	CU_ASSERT_EQUAL(l.l_type, F_UNLCK);
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
	CU_ASSERT_EQUAL(fcntl_getlk(f2, F_OFD_GETLK, &l, NULL), 0);
	CU_ASSERT_EQUAL(l.l_type, F_WRLCK);
	CU_ASSERT_EQUAL(l.l_pid, -1);
	fixture_down();
}

/* ---- flock -------------------------------------------------------------- */

static void test_flock(void)
{
	fixture_up();
	CU_ASSERT_EQUAL(flock_lock_file(f1, LOCK_SH | LOCK_NB, 1, NULL), 0);
	CU_ASSERT_EQUAL(flock_lock_file(f2, LOCK_SH | LOCK_NB, 2, NULL), 0);
	CU_ASSERT_EQUAL(flock_lock_file(f3, LOCK_EX | LOCK_NB, 3, NULL), -EWOULDBLOCK);
	/* re-locking the same type is a no-op */
	CU_ASSERT_EQUAL(flock_lock_file(f1, LOCK_SH | LOCK_NB, 1, NULL), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "FR");
	/* a refused conversion drops the old lock (Linux: not atomic) */
	CU_ASSERT_EQUAL(flock_lock_file(f2, LOCK_EX | LOCK_NB, 2, NULL), -EWOULDBLOCK);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 2), "");
	/* upgrade succeeds once alone */
	CU_ASSERT_EQUAL(flock_lock_file(f1, LOCK_EX | LOCK_NB, 1, NULL), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "FW");
	CU_ASSERT_EQUAL(flock_lock_file(f2, LOCK_SH | LOCK_NB, 2, NULL), -EWOULDBLOCK);
	/* downgrade lets readers in */
	CU_ASSERT_EQUAL(flock_lock_file(f1, LOCK_SH | LOCK_NB, 1, NULL), 0);
	CU_ASSERT_EQUAL(flock_lock_file(f2, LOCK_SH | LOCK_NB, 2, NULL), 0);
	/* flock and POSIX locks do not interact */
	CU_ASSERT_EQUAL(tl_lock(f3, 3, F_WRLCK, 0, 0), 0);
	CU_ASSERT_EQUAL(tl_lock(f3, 3, F_UNLCK, 0, 0), 0);
	/* flock works on read-only and write-only descriptions */
	CU_ASSERT_EQUAL(flock_lock_file(fro, LOCK_SH, 4, NULL), 0);
	CU_ASSERT_EQUAL(flock_lock_file(fwo, LOCK_EX | LOCK_NB, 5, NULL), -EWOULDBLOCK);
	/* unlock; unlocking again is fine */
	CU_ASSERT_EQUAL(flock_lock_file(f1, LOCK_UN, 1, NULL), 0);
	CU_ASSERT_EQUAL(flock_lock_file(f1, LOCK_UN, 1, NULL), 0);
	CU_ASSERT_EQUAL(flock_lock_file(f2, LOCK_UN, 2, NULL), 0);
	CU_ASSERT_EQUAL(flock_lock_file(fro, LOCK_UN | LOCK_NB, 4, NULL), 0);
	CU_ASSERT_EQUAL(flock_lock_file(fwo, LOCK_EX | LOCK_NB, 5, NULL), 0);
	/* the last fput drops it */
	locks_remove_file(fwo);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 5), "");
	CU_ASSERT_EQUAL(flock_lock_file(f1, LOCK_EX | LOCK_NB, 1, NULL), 0);
	fixture_down();
}

/* ---- OFD ---------------------------------------------------------------- */

static void test_ofd(void)
{
	fixture_up();
	/* OFD locks belong to the description */
	CU_ASSERT_EQUAL(tl_setlk(f1, F_OFD_SETLK, 0, F_WRLCK, 0, 10), 0);
	CU_ASSERT_EQUAL(tl_setlk(f1, F_OFD_SETLK, 0, F_WRLCK, 5, 10), 0); /* same description */
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, -1), "OW0-14");
	CU_ASSERT_EQUAL(tl_setlk(f2, F_OFD_SETLK, 0, F_RDLCK, 0, 1), -EAGAIN);
	/* and conflict with POSIX locks of any owner, both ways */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_RDLCK, 0, 1), -EAGAIN);
	CU_ASSERT_EQUAL(tl_lock(f2, 2, F_WRLCK, 20, 10), 0);
	CU_ASSERT_EQUAL(tl_setlk(f1, F_OFD_SETLK, 0, F_RDLCK, 25, 1), -EAGAIN);
	/* closing an fd (POSIX owner) does not drop OFD locks */
	locks_remove_posix(f1, TL_OWNER(2));
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 2), "");
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, -1), "OW0-14");
	/* the last fput of the description does */
	locks_remove_file(f1);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, -1), "");
	CU_ASSERT_EQUAL(tl_setlk(f2, F_OFD_SETLK, 0, F_RDLCK, 0, 1), 0);
	CU_ASSERT_EQUAL(tl_setlk(f2, F_OFD_SETLK, 0, F_UNLCK, 0, 0), 0);
	fixture_down();
}

/* ---- unlock on close ---------------------------------------------------- */

static void test_unlock_on_close(void)
{
	struct file *g;

	fixture_up();
	g = tl_file(ino2, FMODE_READ | FMODE_WRITE);
	/* owner 1 locks through two descriptions of ino1 and one of ino2 */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 10), 0);
	CU_ASSERT_EQUAL(tl_lock(f2, 1, F_RDLCK, 20, 10), 0);
	CU_ASSERT_EQUAL(tl_lock(g, 1, F_WRLCK, 0, 0), 0);
	CU_ASSERT_EQUAL(tl_lock(f3, 2, F_RDLCK, 40, 10), 0);
	/* closing ANY fd of ino1 drops all of owner 1's locks on ino1 ... */
	locks_remove_posix(f3, TL_OWNER(1));
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "");
	/* ... visible to another owner at once; not those on other inodes */
	CU_ASSERT_EQUAL(tl_lock(f3, 2, F_WRLCK, 0, 30), 0);
	CU_ASSERT_STRING_EQUAL(tl_ranges(102, 1), "W0-EOF");
	/* nor another owner's */
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 2), "W0-29,R40-49");
	/* POSIX locks survive the last fput of a description (owner != file) */
	locks_remove_file(g);
	CU_ASSERT_STRING_EQUAL(tl_ranges(102, 1), "W0-EOF");
	locks_remove_posix(g, TL_OWNER(1));
	CU_ASSERT_STRING_EQUAL(tl_ranges(102, 1), "");
	free(g);
	fixture_down();
}

/* ---- deferred grants ---------------------------------------------------- */

#define MAX_GRANTS 2048
static struct file_lock_req *granted[MAX_GRANTS];
static int granted_result[MAX_GRANTS];
static int nr_granted;
static char grant_listing[4096];

static void record_grant(struct file_lock_req *req, int result)
{
	/* runs with no lock-list lock held: listing must not deadlock */
	locks_format_proc(grant_listing, sizeof(grant_listing));
	granted_result[nr_granted] = result;
	granted[nr_granted++] = req;
}

static struct file_lock_req *submit_posix(struct file *f, int owner, int type, int64_t start,
					  int64_t len, int *ret)
{
	struct file_lock_req *req = locks_alloc_req(record_grant, NULL);
	struct flock l = {
	    .l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};

	*ret = fcntl_setlk(f, F_SETLKW, &l, TL_OWNER(owner), owner, req);
	return req;
}

static void test_deferred_grant_and_cancel(void)
{
	struct file_lock_req *a, *b, *c;
	int ret;

	fixture_up();
	nr_granted = 0;
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 100), 0);
	/* no conflict: completes synchronously, no callback */
	a = submit_posix(f2, 2, F_WRLCK, 200, 10, &ret);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_EQUAL(nr_granted, 0);
	CU_ASSERT_EQUAL(locks_cancel_req(a), 0); /* nothing to cancel */
	locks_put_req(a);
	/* conflicts: deferred */
	a = submit_posix(f2, 2, F_WRLCK, 0, 10, &ret);
	CU_ASSERT_EQUAL(ret, FILE_LOCK_DEFERRED);
	b = submit_posix(f3, 3, F_RDLCK, 50, 10, &ret);
	CU_ASSERT_EQUAL(ret, FILE_LOCK_DEFERRED);
	c = submit_posix(f3, 4, F_RDLCK, 50, 10, &ret);
	CU_ASSERT_EQUAL(ret, FILE_LOCK_DEFERRED);
	CU_ASSERT_EQUAL(locks_count_blocked(), 3);
	CU_ASSERT_EQUAL(locks_check(NULL, 0), 0);
	/* cancel one: EINTR, never granted */
	CU_ASSERT_EQUAL(locks_cancel_req(c), -EINTR);
	CU_ASSERT_EQUAL(locks_count_blocked(), 2);
	/* unlocking the holder grants both remaining, inside this call */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_UNLCK, 0, 0), 0);
	CU_ASSERT_EQUAL(nr_granted, 2);
	CU_ASSERT_EQUAL(granted_result[0], 0);
	CU_ASSERT_EQUAL(granted_result[1], 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(grant_listing, "POSIX  ADVISORY  WRITE 2 00:00:101 0 9"));
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 2), "W0-9,W200-209");
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 3), "R50-59");
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 4), "");
	/* cancel after the grant: too late */
	CU_ASSERT_EQUAL(locks_cancel_req(a), 0);
	CU_ASSERT_EQUAL(locks_count_blocked(), 0);
	locks_put_req(a);
	locks_put_req(b);
	locks_put_req(c);
	/* flock deferred too */
	nr_granted = 0;
	CU_ASSERT_EQUAL(flock_lock_file(f1, LOCK_EX, 1, NULL), 0);
	a = locks_alloc_req(record_grant, NULL);
	CU_ASSERT_EQUAL(flock_lock_file(f2, LOCK_SH, 2, a), FILE_LOCK_DEFERRED);
	CU_ASSERT_EQUAL(flock_lock_file(f1, LOCK_UN, 1, NULL), 0);
	CU_ASSERT_EQUAL(nr_granted, 1);
	CU_ASSERT_EQUAL(granted_result[0], 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(tl_ranges(101, 2), "FR"));
	locks_put_req(a);
	fixture_down();
}

/*
 * locks_check finds what it is there to find: with two held records and a
 * tree of three deferred waiters in place, each invariant is broken behind
 * the engine's back (through the waiters' fl_blocker pointers), checked and
 * restored, so the test ends clean.
 */
static bool check_fails_with(const char *what)
{
	char why[256];

	return locks_check(why, sizeof(why)) == -EINVAL && strstr(why, what) != NULL;
}

static void test_check_detects(void)
{
	struct file_lock_req *a, *b, *c;
	struct file_lock *h1, *h2;
	struct list_head *prev;
	int ret;

	fixture_up();
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 10), 0);  /* h1: W0-9 */
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_RDLCK, 20, 10), 0); /* h2: R20-29 */
	a = submit_posix(f2, 2, F_WRLCK, 0, 1, &ret);	     /* under h1 */
	CU_ASSERT_EQUAL(ret, FILE_LOCK_DEFERRED);
	b = submit_posix(f3, 3, F_WRLCK, 20, 1, &ret); /* under h2 */
	CU_ASSERT_EQUAL(ret, FILE_LOCK_DEFERRED);
	c = submit_posix(f3, 4, F_WRLCK, 0, 1, &ret); /* conflicts with a: under a */
	CU_ASSERT_EQUAL(ret, FILE_LOCK_DEFERRED);
	h1 = a->fl.fl_blocker;
	h2 = b->fl.fl_blocker;
	CU_ASSERT_PTR_EQUAL(c->fl.fl_blocker, &a->fl);
	CU_ASSERT_EQUAL(locks_count_blocked(), 3);
	CU_ASSERT_EQUAL(locks_check(NULL, 0), 0);
	/* a held lock shrunk without waking its waiters */
	h1->fl_start = 5;
	CU_ASSERT(check_fails_with("does not conflict with its blocker"));
	h1->fl_start = 0;
	/* a waiter under a process's lock missing from the deadlock graph */
	prev = a->fl.fl_link.prev;
	list_del_init(&a->fl.fl_link);
	CU_ASSERT(check_fails_with("not on blocked_hash"));
	list_add(&a->fl.fl_link, prev);
	CU_ASSERT_EQUAL(locks_check(NULL, 0), 0);
	/* two adjacent write records of one owner left unmerged */
	h2->fl_type = F_WRLCK;
	h2->fl_start = 10;
	CU_ASSERT(check_fails_with("were not merged"));
	/* one owner's records overlapping */
	h2->fl_start = 5;
	CU_ASSERT(check_fails_with("out of order or overlapping"));
	h2->fl_type = F_RDLCK;
	h2->fl_start = 20;
	/* a record of another owner that conflicts with a held one */
	h2->fl_owner = TL_OWNER(5);
	h2->fl_start = 5;
	CU_ASSERT(check_fails_with("conflict"));
	h2->fl_owner = TL_OWNER(1);
	h2->fl_start = 20;
	/* a waiter whose fl_blocker is not the node it hangs under */
	c->fl.fl_blocker = h1;
	CU_ASSERT(check_fails_with("but fl_blocker is"));
	c->fl.fl_blocker = &a->fl;
	CU_ASSERT_EQUAL(locks_check(NULL, 0), 0);
	CU_ASSERT_EQUAL(locks_cancel_req(c), -EINTR);
	CU_ASSERT_EQUAL(locks_cancel_req(a), -EINTR);
	CU_ASSERT_EQUAL(locks_cancel_req(b), -EINTR);
	locks_put_req(a);
	locks_put_req(b);
	locks_put_req(c);
	fixture_down();
}

/* ---- deadlock detection --------------------------------------------------- */

static void test_deadlock(void)
{
	struct file *g1, *g2, *g3;
	struct file_lock_req *ra, *rb, *rc;
	int ret;

	fixture_up();
	g1 = tl_file(ino1, FMODE_READ | FMODE_WRITE);
	g2 = tl_file(ino2, FMODE_READ | FMODE_WRITE);
	g3 = tl_file(ino3, FMODE_READ | FMODE_WRITE);
	/* two owners across two inodes: A holds 1, B holds 2, B waits for 1 */
	CU_ASSERT_EQUAL(tl_lock(g1, 1, F_WRLCK, 0, 0), 0);
	CU_ASSERT_EQUAL(tl_lock(g2, 2, F_WRLCK, 0, 0), 0);
	rb = submit_posix(g1, 2, F_WRLCK, 0, 0, &ret);
	CU_ASSERT_EQUAL(ret, FILE_LOCK_DEFERRED);
	/* A asking for 2 with F_SETLKW closes the cycle: EDEADLK, no sleep */
	CU_ASSERT_EQUAL(tl_setlk(g2, F_SETLKW, 1, F_WRLCK, 0, 0), -EDEADLK);
	/* F_SETLK is just EAGAIN */
	CU_ASSERT_EQUAL(tl_setlk(g2, F_SETLK, 1, F_WRLCK, 0, 0), -EAGAIN);
	/* OFD requests never get EDEADLK */
	ra = locks_alloc_req(record_grant, NULL);
	{
		struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET};

		CU_ASSERT_EQUAL(fcntl_setlk(g2, F_OFD_SETLKW, &l, NULL, 0, ra), FILE_LOCK_DEFERRED);
	}
	CU_ASSERT_EQUAL(locks_cancel_req(ra), -EINTR);
	locks_put_req(ra);
	CU_ASSERT_EQUAL(locks_cancel_req(rb), -EINTR);
	locks_put_req(rb);

	/* three owners: A holds 1, B 2, C 3; A waits 2, B waits 3; C asks 1 */
	CU_ASSERT_EQUAL(tl_lock(g3, 3, F_WRLCK, 0, 0), 0);
	ra = submit_posix(g2, 1, F_WRLCK, 0, 0, &ret);
	CU_ASSERT_EQUAL(ret, FILE_LOCK_DEFERRED);
	rb = submit_posix(g3, 2, F_WRLCK, 0, 0, &ret);
	CU_ASSERT_EQUAL(ret, FILE_LOCK_DEFERRED);
	CU_ASSERT_EQUAL(tl_setlk(g1, F_SETLKW, 3, F_WRLCK, 0, 0), -EDEADLK);
	/* no false EDEADLK: C asking for a range of 1 that nobody holds */
	CU_ASSERT_EQUAL(tl_lock(g1, 1, F_UNLCK, 100, 0), 0);
	CU_ASSERT_EQUAL(tl_setlk(g1, F_SETLKW, 3, F_WRLCK, 100, 10), 0);
	/* no false EDEADLK: D (not in the cycle) waits for 1 */
	rc = submit_posix(g1, 4, F_WRLCK, 0, 10, &ret);
	CU_ASSERT_EQUAL(ret, FILE_LOCK_DEFERRED);
	CU_ASSERT_EQUAL(locks_check(NULL, 0), 0);
	CU_ASSERT_EQUAL(locks_cancel_req(ra), -EINTR);
	CU_ASSERT_EQUAL(locks_cancel_req(rb), -EINTR);
	CU_ASSERT_EQUAL(locks_cancel_req(rc), -EINTR);
	locks_put_req(ra);
	locks_put_req(rb);
	locks_put_req(rc);
	/* a chain without a cycle: A waits for B, B waits for C: C asking for
	 * something D holds is fine */
	CU_ASSERT_EQUAL(tl_lock(g1, 1, F_UNLCK, 0, 0), 0);
	CU_ASSERT_EQUAL(tl_lock(g1, 4, F_WRLCK, 0, 10), 0);
	ra = submit_posix(g2, 1, F_WRLCK, 0, 0, &ret);
	CU_ASSERT_EQUAL(ret, FILE_LOCK_DEFERRED);
	rb = submit_posix(g3, 2, F_WRLCK, 0, 0, &ret);
	CU_ASSERT_EQUAL(ret, FILE_LOCK_DEFERRED);
	rc = submit_posix(g1, 3, F_WRLCK, 0, 10, &ret);
	CU_ASSERT_EQUAL(ret, FILE_LOCK_DEFERRED);
	CU_ASSERT_EQUAL(locks_cancel_req(ra), -EINTR);
	CU_ASSERT_EQUAL(locks_cancel_req(rb), -EINTR);
	CU_ASSERT_EQUAL(locks_cancel_req(rc), -EINTR);
	locks_put_req(ra);
	locks_put_req(rb);
	locks_put_req(rc);
	for (int o = 0; o < 8; o++) {
		locks_remove_posix(g1, TL_OWNER(o));
		locks_remove_posix(g2, TL_OWNER(o));
		locks_remove_posix(g3, TL_OWNER(o));
	}
	free(g1);
	free(g2);
	free(g3);
	fixture_down();
}

/* ---- limits ------------------------------------------------------------ */

static void test_owner_limit(void)
{
	long old = locks_set_owner_limit(8);
	int ok = 0, err = 0;

	fixture_up();
	for (int i = 0; i < 20; i++) {
		int r = tl_lock(f1, 1, F_WRLCK, i * 10, 1);

		if (r == 0)
			ok++;
		else if (r == -ENOLCK)
			err++;
	}
	CU_ASSERT(ok >= 6 && ok <= 8);
	CU_ASSERT_EQUAL(ok + err, 20);
	/* other owners are not affected */
	CU_ASSERT_EQUAL(tl_lock(f2, 2, F_WRLCK, 1000, 1), 0);
	/* merging a range into an existing one at the limit is still refused
	 * (records are charged before the list lock), but close always works */
	locks_remove_posix(f1, TL_OWNER(1));
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "");
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 1), 0);
	locks_set_owner_limit(old);
	fixture_down();
}

/* ---- invalid input ------------------------------------------------------- */

static void test_invalid(void)
{
	struct file *opath;
	struct flock l;

	fixture_up();
	opath = tl_file(ino1, FMODE_PATH);
	/* bad whence, bad type, negative start */
	l = (struct flock){.l_type = F_WRLCK, .l_whence = 7};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_SETLK, &l, TL_OWNER(1), 1, NULL), -EINVAL);
	l = (struct flock){.l_type = 42, .l_whence = SEEK_SET};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_SETLK, &l, TL_OWNER(1), 1, NULL), -EINVAL);
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = -1};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_SETLK, &l, TL_OWNER(1), 1, NULL), -EINVAL);
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_CUR, .l_start = -1};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_SETLK, &l, TL_OWNER(1), 1, NULL), -EINVAL);
	/* overflow */
	l = (struct flock){
	    .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = INT64_MAX, .l_len = 2};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_SETLK, &l, TL_OWNER(1), 1, NULL), -EOVERFLOW);
	f1->f_pos = 10;
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_CUR, .l_start = INT64_MAX};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_SETLK, &l, TL_OWNER(1), 1, NULL), -EOVERFLOW);
	l = (struct flock){
	    .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = INT64_MAX, .l_len = 1};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_SETLK, &l, TL_OWNER(1), 1, NULL), 0);
	CU_ASSERT_EQUAL(tl_lock(f1, 1, F_UNLCK, 0, 0), 0);
	/* mode: a read lock needs FMODE_READ, a write lock FMODE_WRITE */
	l = (struct flock){.l_type = F_RDLCK, .l_whence = SEEK_SET};
	CU_ASSERT_EQUAL(fcntl_setlk(fwo, F_SETLK, &l, TL_OWNER(1), 1, NULL), -EBADF);
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET};
	CU_ASSERT_EQUAL(fcntl_setlk(fro, F_SETLK, &l, TL_OWNER(1), 1, NULL), -EBADF);
	l = (struct flock){.l_type = F_UNLCK, .l_whence = SEEK_SET};
	CU_ASSERT_EQUAL(fcntl_setlk(fro, F_SETLK, &l, TL_OWNER(1), 1, NULL), 0);
	/* F_GETLK tests only locks */
	l = (struct flock){.l_type = F_UNLCK, .l_whence = SEEK_SET};
	CU_ASSERT_EQUAL(fcntl_getlk(f1, F_GETLK, &l, TL_OWNER(1)), -EINVAL);
	/* OFD requires l_pid == 0 */
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_pid = 5};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_OFD_SETLK, &l, NULL, 0, NULL), -EINVAL);
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_pid = 5};
	CU_ASSERT_EQUAL(fcntl_getlk(f1, F_OFD_GETLK, &l, NULL), -EINVAL);
	/* wrong commands */
	l = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET};
	CU_ASSERT_EQUAL(fcntl_setlk(f1, F_GETLK, &l, TL_OWNER(1), 1, NULL), -EINVAL);
	CU_ASSERT_EQUAL(fcntl_getlk(f1, F_SETLK, &l, TL_OWNER(1)), -EINVAL);
	/* O_PATH descriptions: EBADF */
	CU_ASSERT_EQUAL(fcntl_setlk(opath, F_SETLK, &l, TL_OWNER(1), 1, NULL), -EBADF);
	CU_ASSERT_EQUAL(flock_lock_file(opath, LOCK_SH, 1, NULL), -EBADF);
	/* flock: bad operations */
	CU_ASSERT_EQUAL(flock_lock_file(f1, 0, 1, NULL), -EINVAL);
	CU_ASSERT_EQUAL(flock_lock_file(f1, LOCK_SH | LOCK_EX, 1, NULL), -EINVAL);
	CU_ASSERT_EQUAL(flock_lock_file(f1, 64, 1, NULL), -EINVAL);
	CU_ASSERT_STRING_EQUAL(tl_ranges(101, 1), "");
	free(opath);
	fixture_down();
}

/* ---- listing -------------------------------------------------------------- */

static void test_listing(void)
{
	char buf[2048];
	struct file_lock_req *r;
	int ret;
	size_t n;

	fixture_up();
	nr_granted = 0;
	CU_ASSERT_EQUAL(locks_format_proc(buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "");
	CU_ASSERT_EQUAL(tl_lock(f1, 7, F_WRLCK, 0, 0), 0);
	r = submit_posix(f2, 8, F_RDLCK, 10, 5, &ret);
	CU_ASSERT_EQUAL(ret, FILE_LOCK_DEFERRED);
	CU_ASSERT_EQUAL(flock_lock_file(f3, LOCK_SH, 9, NULL), 0);
	CU_ASSERT_EQUAL(tl_setlk(f3, F_OFD_SETLK, 0, F_RDLCK, 5, 0) == -EAGAIN, 1);
	n = locks_format_proc(buf, sizeof(buf));
	if (getenv("TL_DEBUG"))
		fputs(buf, stderr);
	CU_ASSERT_EQUAL(n, strlen(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "1: POSIX  ADVISORY  WRITE 7 00:00:101 0 EOF\n"
					   "1: -> POSIX  ADVISORY  READ  8 00:00:101 10 14\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, ": FLOCK  ADVISORY  READ  9 00:00:101 0 EOF\n"));
	/* truncation: returns what it needs, NUL-terminates */
	CU_ASSERT_EQUAL(locks_format_proc(buf, 10), n);
	CU_ASSERT_EQUAL(strlen(buf), 9);
	CU_ASSERT_EQUAL(locks_cancel_req(r), -EINTR);
	locks_put_req(r);
	CU_ASSERT_EQUAL(tl_lock(f1, 7, F_UNLCK, 0, 0), 0);
	CU_ASSERT_EQUAL(tl_setlk(f3, F_OFD_SETLK, 0, F_RDLCK, 5, 0), 0);
	locks_format_proc(buf, sizeof(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "OFDLCK ADVISORY  READ  -1 00:00:101 5 EOF\n"));
	CU_ASSERT_EQUAL(nr_granted, 0);
	fixture_down();
}

/* ---- sleeping waiters and signals ----------------------------------------- */

struct sleeper {
	struct file *f;
	int owner;
	int flock;
	struct task_struct *task; /* published once running */
	int ret;
	int done;
};

static void *sleeper_main(void *p)
{
	struct sleeper *s = p;

	__atomic_store_n(&s->task, current, __ATOMIC_RELEASE);
	if (s->flock)
		s->ret = flock_lock_file(s->f, LOCK_EX, s->owner, NULL);
	else
		s->ret = tl_setlk(s->f, F_SETLKW, s->owner, F_WRLCK, 0, 10);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void run_interrupt(int use_flock)
{
	struct sleeper s[3];
	pthread_t th[3];

	fixture_up();
	if (use_flock) {
		CU_ASSERT_EQUAL(flock_lock_file(f1, LOCK_EX, 1, NULL), 0);
	} else {
		CU_ASSERT_EQUAL(tl_lock(f1, 1, F_WRLCK, 0, 0), 0);
	}
	for (int i = 0; i < 3; i++) {
		s[i] = (struct sleeper){.f = i == 1 ? f3 : f2, .owner = 2 + i, .flock = use_flock};
		if (use_flock)
			s[i].f = tl_file(ino1, FMODE_READ);
		pthread_create(&th[i], NULL, sleeper_main, &s[i]);
		/* wait until it is queued: keeps the order deterministic */
		CU_ASSERT_EQUAL(WAIT_UNTIL_MS(locks_count_blocked() == i + 1, 10000), 0);
	}
	/* interrupt the middle one */
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(__atomic_load_n(&s[1].task, __ATOMIC_ACQUIRE), 10000), 0);
	task_signal(s[1].task);
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(__atomic_load_n(&s[1].done, __ATOMIC_ACQUIRE), 10000), 0);
	CU_ASSERT_EQUAL(s[1].ret, -EINTR);
	/* the tree is consistent: the other two still wait, then get it in turn */
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(locks_count_blocked() == 2, 10000), 0);
	CU_ASSERT_EQUAL(s[0].done, 0);
	CU_ASSERT_EQUAL(s[2].done, 0);
	if (use_flock) {
		CU_ASSERT_EQUAL(flock_lock_file(f1, LOCK_UN, 1, NULL), 0);
	} else {
		CU_ASSERT_EQUAL(tl_lock(f1, 1, F_UNLCK, 0, 0), 0);
	}
	/* FIFO: the first queued gets it; the other waits while it holds it */
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(__atomic_load_n(&s[0].done, __ATOMIC_ACQUIRE), 10000), 0);
	CU_ASSERT_EQUAL(s[0].ret, 0);
	CU_ASSERT_EQUAL(__atomic_load_n(&s[2].done, __ATOMIC_ACQUIRE), 0);
	if (use_flock) {
		CU_ASSERT_EQUAL(flock_lock_file(s[0].f, LOCK_UN, s[0].owner, NULL), 0);
	} else {
		CU_ASSERT_EQUAL(tl_lock(s[0].f, s[0].owner, F_UNLCK, 0, 0), 0);
	}
	CU_ASSERT_EQUAL(WAIT_UNTIL_MS(__atomic_load_n(&s[2].done, __ATOMIC_ACQUIRE), 10000), 0);
	CU_ASSERT_EQUAL(s[2].ret, 0);
	if (use_flock) {
		CU_ASSERT_EQUAL(flock_lock_file(s[2].f, LOCK_UN, s[2].owner, NULL), 0);
	} else {
		CU_ASSERT_EQUAL(tl_lock(s[2].f, s[2].owner, F_UNLCK, 0, 0), 0);
	}
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		if (use_flock)
			tl_file_free(s[i].f);
	}
	CU_ASSERT_EQUAL(s[0].ret, 0);
	CU_ASSERT_EQUAL(s[2].ret, 0);
	CU_ASSERT_EQUAL(locks_count_blocked(), 0);
	fixture_down();
}

static void test_interrupt_posix(void)
{
	run_interrupt(0);
}

static void test_interrupt_flock(void)
{
	run_interrupt(1);
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

#define LOCK_CASES                                                                                 \
	RVTEST(test_posix_split_merge), RVTEST(test_posix_upgrade_downgrade),                      \
	    RVTEST(test_posix_conflicts), RVTEST(test_posix_whence_and_lengths),                   \
	    RVTEST(test_getlk), RVTEST(test_flock), RVTEST(test_ofd),                              \
	    RVTEST(test_unlock_on_close), RVTEST(test_deferred_grant_and_cancel),                  \
	    RVTEST(test_check_detects), RVTEST(test_deadlock), RVTEST(test_owner_limit),           \
	    RVTEST(test_invalid), RVTEST(test_listing), RVTEST(test_interrupt_posix),              \
	    RVTEST(test_interrupt_flock)

RVTEST_SUITE(locks_global, init_global, rvtest_instance_cleanup, LOCK_CASES)
RVTEST_SUITE(locks_bkl, init_bkl, rvtest_instance_cleanup, LOCK_CASES)
RVTEST_SUITE(locks_inode, init_inode, rvtest_instance_cleanup, LOCK_CASES)
RVTEST_SUITE(locks_global_bklops, init_global_bklops, rvtest_instance_cleanup, LOCK_CASES)
