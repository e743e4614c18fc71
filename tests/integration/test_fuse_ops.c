// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/integration/test_fuse_ops.c - the daemon's op layer below libfuse.
 *
 * Calls fuse/ops.c directly (no kernel, no mount): handles not open in the
 * daemon's fd table, stale handles whose fd was reused, lookup/forget
 * balance, readdirplus counting only the entries it returned, the control
 * directory's refusals, and a teardown that leaves no model object behind.
 *
 * Locking: single-threaded.
 */
#include "tests/unit/rvtest.h"
#include "fuse/daemon.h"

#include <stdlib.h>
#include <string.h>

static struct rvf_ctx ctx0 = {0, 0, 1, 022, NULL};

static int suite_init(void)
{
	struct rvf_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	rv_switches_default(&cfg.sw);
	cfg.max_threads = 4;
	if (rv_instance_create(&cfg.sw))
		return -1;
	return rvf_fs_init(&cfg) ? -1 : 0;
}

static int suite_cleanup(void)
{
	rvf_fs_teardown();
	return rv_instance_destroy() ? -1 : 0;
}

/* The kernel's lookup count on a node (0: the node is gone). */
static uintptr_t nlookup(fuse_ino_t ino)
{
	struct inode *inode = rvf_iget(ino);
	uintptr_t n;

	if (!inode)
		return 0;
	n = (uintptr_t)inode->i_private;
	rvf_iput(inode);
	return n;
}

static fuse_ino_t make_file(const char *name, uint64_t *fh)
{
	struct fuse_entry_param e;
	int err = rvf_op_create(&ctx0, FUSE_ROOT_ID, name, 0644, O_RDWR, &e, fh);

	CU_ASSERT_EQUAL_FATAL(err, 0);
	return e.ino;
}

static void test_unknown_fh_ebadf(void)
{
	const uint64_t bad[] = {4000, 77, (5ull << 32) | 3, UINT64_MAX, 0};
	struct stat attr, st;
	char buf[64];
	size_t used;
	uint64_t fh;
	double to;
	off_t res;
	fuse_ino_t ino = make_file("ebadf", &fh);
	size_t i;

	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, ino, fh), 0);
	memset(&attr, 0, sizeof(attr));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		CU_ASSERT_EQUAL(rvf_op_read(&ctx0, ino, bad[i], buf, sizeof(buf), 0), -EBADF);
		CU_ASSERT_EQUAL(rvf_op_write(&ctx0, ino, bad[i], "x", 1, 0), -EBADF);
		CU_ASSERT_EQUAL(rvf_op_flush(&ctx0, ino, bad[i], 1), -EBADF);
		CU_ASSERT_EQUAL(rvf_op_fsync(&ctx0, ino, bad[i], 0), -EBADF);
		CU_ASSERT_EQUAL(rvf_op_fallocate(&ctx0, ino, bad[i], 0, 0, 10), -EBADF);
		CU_ASSERT_EQUAL(rvf_op_lseek(&ctx0, ino, bad[i], 0, SEEK_END, &res), -EBADF);
		CU_ASSERT_EQUAL(
		    rvf_op_setattr(&ctx0, ino, &attr, FUSE_SET_ATTR_SIZE, &bad[i], &st, &to),
		    -EBADF);
		CU_ASSERT_EQUAL(
		    rvf_op_readdir(&ctx0, FUSE_ROOT_ID, bad[i], 0, 0, buf, sizeof(buf), &used),
		    -EBADF);
		CU_ASSERT_EQUAL(
		    rvf_op_readdir(&ctx0, FUSE_ROOT_ID, bad[i], 0, 1, buf, sizeof(buf), &used),
		    -EBADF);
		CU_ASSERT_EQUAL(rvf_op_release(&ctx0, ino, bad[i]), -EBADF);
		CU_ASSERT_EQUAL(rvf_op_releasedir(&ctx0, FUSE_ROOT_ID, bad[i]), -EBADF);
	}
	rvf_op_forget(ino, 1);
}

/* A released handle whose fd now holds another file is stale: EBADF. */
static void test_stale_fh_ebadf(void)
{
	uint64_t fh1, fh2;
	fuse_ino_t a = make_file("stale-a", &fh1), b;
	char buf[8];
	int direct;

	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, a, fh1), 0);
	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, a, fh1), -EBADF); /* double release */
	b = make_file("stale-b", &fh2);
	/* the lowest free fd is reused: same fd, another generation */
	CU_ASSERT_EQUAL((uint32_t)fh1, (uint32_t)fh2);
	CU_ASSERT_NOT_EQUAL(fh1, fh2);
	CU_ASSERT_EQUAL(rvf_op_write(&ctx0, b, fh1, "x", 1, 0), -EBADF);
	CU_ASSERT_EQUAL(rvf_op_read(&ctx0, b, fh1, buf, sizeof(buf), 0), -EBADF);
	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, b, fh1), -EBADF);
	/* the live handle still works */
	CU_ASSERT_EQUAL(rvf_op_write(&ctx0, b, fh2, "ok", 2, 0), 2);
	CU_ASSERT_EQUAL(rvf_op_read(&ctx0, b, fh2, buf, sizeof(buf), 0), 2);
	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, b, fh2), 0);
	/* reopen works and the old handles stay dead */
	CU_ASSERT_EQUAL(rvf_op_open(&ctx0, a, O_RDONLY, &fh1, &direct), 0);
	CU_ASSERT_EQUAL(direct, 0);
	CU_ASSERT_EQUAL(rvf_op_read(&ctx0, a, fh2, buf, sizeof(buf), 0), -EBADF);
	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, a, fh1), 0);
	rvf_op_forget(a, 1);
	rvf_op_forget(b, 1);
}

static void test_lookup_forget_balance(void)
{
	struct fuse_entry_param e;
	uint64_t fh;
	fuse_ino_t ino = make_file("counted", &fh);
	int i;

	CU_ASSERT_EQUAL(nlookup(ino), 1);
	for (i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL_FATAL(rvf_op_lookup(&ctx0, FUSE_ROOT_ID, "counted", &e), 0);
		CU_ASSERT_EQUAL(e.ino, ino);
	}
	CU_ASSERT_EQUAL(nlookup(ino), 6);
	CU_ASSERT_EQUAL(rvf_op_lookup(&ctx0, FUSE_ROOT_ID, "nonexistent", &e), -ENOENT);
	rvf_op_forget(ino, 4);
	CU_ASSERT_EQUAL(nlookup(ino), 2);
	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, ino, fh), 0);
	CU_ASSERT_EQUAL(rvf_op_unlink(&ctx0, FUSE_ROOT_ID, "counted"), 0);
	/* unlinked, still looked up: an orphan the kernel may still stat */
	{
		struct stat st;
		double to;

		CU_ASSERT_EQUAL(rvf_op_getattr(&ctx0, ino, NULL, &st, &to), 0);
		CU_ASSERT_EQUAL(st.st_nlink, 0);
	}
	rvf_op_forget(ino, 2); /* frees the inode */
}

/* readdirplus takes a lookup count only for the entries that fit. */
static void test_readdirplus_counts(void)
{
	struct fuse_entry_param e;
	fuse_ino_t dir, ino[8];
	char buf[4096], name[16];
	size_t used, pos, entsz;
	uint64_t dfh;
	int i, returned;

	CU_ASSERT_EQUAL_FATAL(rvf_op_mkdir(&ctx0, FUSE_ROOT_ID, "rdp", S_IFDIR | 0755, &e), 0);
	dir = e.ino;
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "e%d", i);
		CU_ASSERT_EQUAL_FATAL(rvf_op_mknod(&ctx0, dir, name, S_IFREG | 0644, 0, &e), 0);
		ino[i] = e.ino;
		CU_ASSERT_EQUAL(nlookup(ino[i]), 1);
	}
	CU_ASSERT_EQUAL_FATAL(rvf_op_opendir(&ctx0, dir, &dfh), 0);
	/* room for ".", ".." and three entries of 2-character names */
	entsz = fuse_add_direntry_plus(NULL, NULL, 0, "e0", NULL, 0);
	CU_ASSERT_EQUAL_FATAL(
	    rvf_op_readdir(&ctx0, dir, dfh, 0, 1, buf, 5 * entsz + entsz / 2, &used), 0);
	CU_ASSERT_EQUAL(used, 5 * entsz);
	for (returned = 0, i = 0; i < 8; i++)
		if (nlookup(ino[i]) == 2)
			returned++;
		else
			CU_ASSERT_EQUAL(nlookup(ino[i]), 1);
	CU_ASSERT_EQUAL(returned, 3);
	/* the rest, from the cookie of the last returned entry */
	{
		uint64_t off = 0;

		/* struct fuse_direntplus: fuse_entry_out (128 bytes), then
		 * fuse_dirent { ino, off, namelen, type, name } */
		for (pos = 0; pos < used; pos += entsz)
			memcpy(&off, buf + pos + 128 + 8, sizeof(off));
		CU_ASSERT_EQUAL(
		    rvf_op_readdir(&ctx0, dir, dfh, (off_t)off, 1, buf, sizeof(buf), &used), 0);
		CU_ASSERT_EQUAL(used, 5 * entsz);
	}
	for (i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(nlookup(ino[i]), 2);
		rvf_op_forget(ino[i], 2);
	}
	CU_ASSERT_EQUAL(rvf_op_releasedir(&ctx0, dir, dfh), 0);
	rvf_op_forget(dir, 1);
}

static void test_ctl_refusals(void)
{
	struct fuse_entry_param e;
	uint64_t fh;
	char buf[65536];
	ssize_t n;
	int direct;

	CU_ASSERT_EQUAL_FATAL(rvf_op_lookup(&ctx0, FUSE_ROOT_ID, RVF_CTL_NAME, &e), 0);
	CU_ASSERT_EQUAL(e.ino, RVF_INO_CTL_DIR);
	CU_ASSERT_EQUAL(rvf_op_lookup(&ctx0, RVF_INO_CTL_DIR, "stats", &e), 0);
	CU_ASSERT_EQUAL(rvf_op_open(&ctx0, e.ino, O_WRONLY, &fh, &direct), -EACCES);
	CU_ASSERT_EQUAL(rvf_op_open(&ctx0, e.ino, O_RDONLY, &fh, &direct), 0);
	CU_ASSERT_EQUAL(direct, 1);
	n = rvf_op_read(&ctx0, e.ino, fh, buf, sizeof(buf) - 1, 0);
	CU_ASSERT(n > 0);
	buf[n > 0 ? n : 0] = '\0';
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "fget_retries "));
	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, e.ino, fh), 0);
	/* control handles are ids, not pointers: unknown and stale ones are EBADF */
	CU_ASSERT_EQUAL(rvf_op_read(&ctx0, e.ino, fh, buf, 16, 0), -EBADF);
	CU_ASSERT_EQUAL(rvf_op_read(&ctx0, e.ino, 0xdeadbeefull, buf, 16, 0), -EBADF);
	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, e.ino, fh), -EBADF);
	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, e.ino, 0), -EBADF);
	/* one left open: teardown frees it (ASan's leak check would report it) */
	CU_ASSERT_EQUAL(rvf_op_open(&ctx0, e.ino, O_RDONLY, &fh, &direct), 0);
	CU_ASSERT_EQUAL(rvf_op_mkdir(&ctx0, RVF_INO_CTL_DIR, "x", S_IFDIR | 0755, &e), -EPERM);
	CU_ASSERT_EQUAL(rvf_op_unlink(&ctx0, RVF_INO_CTL_DIR, "stats"), -EPERM);
	CU_ASSERT_EQUAL(rvf_op_rmdir(&ctx0, FUSE_ROOT_ID, RVF_CTL_NAME), -EPERM);
	CU_ASSERT_EQUAL(rvf_op_rename(&ctx0, FUSE_ROOT_ID, RVF_CTL_NAME, FUSE_ROOT_ID, "x", 0),
			-EPERM);
	CU_ASSERT_EQUAL(rvf_op_mkdir(&ctx0, FUSE_ROOT_ID, RVF_CTL_NAME, S_IFDIR | 0755, &e),
			-EEXIST);
}

/* Handles and lookups the kernel never released are dropped at teardown. */
/*
 * A node the kernel forgot, looked up again by "." (a file handle after
 * the kernel dropped its inode): the same node while the file exists;
 * ESTALE once it is gone, also when a new inode took the old one's memory
 * (the test makes new inodes until one does, and says so: node ids that
 * were inode addresses named the new inode then).  ".." of a directory is
 * its parent.  Requests naming a gone node get ESTALE too.
 */
static void test_lookup_dot_after_forget(void)
{
	struct fuse_entry_param e, e2, d;
	struct inode *old, *now;
	struct stat st;
	double to;
	uint64_t fh;
	fuse_ino_t ino = make_file("dot", &fh);
	uint64_t gen;
	int reused = 0;

	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, ino, fh), 0);
	CU_ASSERT_EQUAL(rvf_op_lookup(&ctx0, FUSE_ROOT_ID, "dot", &e), 0);
	gen = e.generation;
	old = rvf_iget(ino);
	CU_ASSERT_PTR_NOT_NULL_FATAL(old);
	rvf_iput(old);	       /* only its address is kept, to compare */
	rvf_op_forget(ino, 1); /* create's count */
	rvf_op_forget(ino, 1); /* the lookup's: the kernel holds nothing */
	CU_ASSERT_EQUAL(rvf_op_lookup(&ctx0, ino, ".", &e), 0);
	CU_ASSERT_EQUAL(e.ino, ino);
	CU_ASSERT_EQUAL(e.generation, gen);
	rvf_op_forget(ino, 1);
	CU_ASSERT_EQUAL(rvf_op_unlink(&ctx0, FUSE_ROOT_ID, "dot"), 0);
	CU_ASSERT_EQUAL(rvf_op_lookup(&ctx0, ino, ".", &e2), -ESTALE);
	CU_ASSERT_EQUAL(rvf_op_getattr(&ctx0, ino, NULL, &st, &to), -ESTALE);
	/* new inodes until one reuses the freed object (the slab's LIFO
	 * usually hands it back at once; RCU may delay it) */
	for (int i = 0; i < 64 && !reused; i++) {
		char name[32];

		snprintf(name, sizeof(name), "dot%d", i);
		rcu_barrier();
		CU_ASSERT_EQUAL_FATAL(rvf_op_mkdir(&ctx0, FUSE_ROOT_ID, name, S_IFDIR | 0755, &d),
				      0);
		now = rvf_iget(d.ino);
		CU_ASSERT_PTR_NOT_NULL_FATAL(now);
		rvf_iput(now);
		reused = now == old;
		CU_ASSERT_NOT_EQUAL(d.ino, ino); /* ids are never reused */
		CU_ASSERT_EQUAL(rvf_op_lookup(&ctx0, ino, ".", &e2), -ESTALE);
		CU_ASSERT_EQUAL(rvf_op_getattr(&ctx0, ino, NULL, &st, &to), -ESTALE);
		rvf_op_forget(ino, 1); /* a forget of a gone node changes nothing */
		CU_ASSERT_EQUAL(rvf_op_lookup(&ctx0, d.ino, "..", &e2), 0);
		CU_ASSERT_EQUAL(e2.ino, FUSE_ROOT_ID);
		CU_ASSERT_EQUAL(rvf_op_lookup(&ctx0, d.ino, ".", &e2), 0);
		CU_ASSERT_EQUAL(e2.ino, d.ino);
		rvf_op_forget(d.ino, 2);
		CU_ASSERT_EQUAL(rvf_op_rmdir(&ctx0, FUSE_ROOT_ID, name), 0);
	}
	/* the case this test exists for happened */
	CU_ASSERT(reused);
}

/* evict_sb_list_del callback: requests naming the node being evicted */
struct evict_probe {
	struct inode *inode;
	fuse_ino_t ino;
	int hits, hashed_at_zero, getattr, lookup_dot;
};

static void probe_evict(void *arg)
{
	struct evict_probe *p = arg;
	struct fuse_entry_param e;
	struct stat st;
	double to;

	p->hits++;
	/* the window: still in the inode hash, its count already 0 */
	p->hashed_at_zero = p->inode->i_hashed && p->inode->i_count == 0;
	p->getattr = rvf_op_getattr(&ctx0, p->ino, NULL, &st, &to);
	p->lookup_dot = rvf_op_lookup(&ctx0, p->ino, ".", &e);
}

/*
 * A request naming a node whose inode is being evicted (its last reference
 * dropped, not yet out of the inode hash) finds nothing: ESTALE, no
 * reference taken on a dying inode.  The requests run from inside the
 * eviction (injection point evict_sb_list_del); the test asserts that the
 * inode was in that window.
 */
static void test_request_during_eviction(void)
{
	struct evict_probe p = {NULL, 0, 0, 0, 1, 1};
	uint64_t fh;

	p.ino = make_file("evicting", &fh);
	p.inode = rvf_iget(p.ino);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p.inode);
	rvf_iput(p.inode);
	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, p.ino, fh), 0);
	rvf_op_forget(p.ino, 1); /* the kernel holds nothing; the name pins it */
	CU_ASSERT_EQUAL_FATAL(rv_inject_set_callback("evict_sb_list_del", probe_evict, &p, 1), 0);
	CU_ASSERT_EQUAL(rvf_op_unlink(&ctx0, FUSE_ROOT_ID, "evicting"), 0); /* the last iput */
	rv_inject_clear_all();
	CU_ASSERT_EQUAL(p.hits, 1);
	CU_ASSERT(p.hashed_at_zero);
	CU_ASSERT_EQUAL(p.getattr, -ESTALE);
	CU_ASSERT_EQUAL(p.lookup_dot, -ESTALE);
	CU_ASSERT_EQUAL(nlookup(p.ino), 0);
}

static void test_teardown_drops_everything(void)
{
	struct fuse_entry_param e;
	uint64_t fh;
	fuse_ino_t ino = make_file("left-open", &fh);

	CU_ASSERT_EQUAL(rvf_op_lookup(&ctx0, FUSE_ROOT_ID, "left-open", &e), 0);
	CU_ASSERT_EQUAL(rvf_op_write(&ctx0, ino, fh, "data", 4, 0), 4);
	/* no release, no forget: suite_cleanup must still free everything */
}

/*
 * chown(path, -1, -1): notify_change gets ATTR_CTIME alone, which the
 * kernel's FUSE client sends as FATTR_CTIME on some kernels and as a
 * SETATTR with nothing valid on others.  Either way ctime becomes now, as
 * on tmpfs (setattr_copy).  A SETATTR with nothing valid used to change
 * nothing.
 */
static void test_setattr_nothing_valid_sets_ctime(void)
{
	struct inode *inode;
	struct stat attr, st;
	uint64_t fh;
	double to;
	fuse_ino_t ino = make_file("ctime", &fh);

	inode = rvf_iget(ino);
	CU_ASSERT_PTR_NOT_NULL_FATAL(inode);
	rvf_iput(inode);			  /* the create's lookup count keeps it */
	inode->i_ctime = (struct timespec){1, 0}; /* long ago (single-threaded) */
	memset(&attr, 0, sizeof(attr));
	CU_ASSERT_EQUAL(rvf_op_setattr(&ctx0, ino, &attr, 0, NULL, &st, &to), 0);
	CU_ASSERT(st.st_ctim.tv_sec > 1);
	inode->i_ctime = (struct timespec){1, 0};
	CU_ASSERT_EQUAL(rvf_op_setattr(&ctx0, ino, &attr, FUSE_SET_ATTR_CTIME, NULL, &st, &to), 0);
	CU_ASSERT(st.st_ctim.tv_sec > 1);
	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, ino, fh), 0);
	rvf_op_forget(ino, 1);
}

/*
 * A handle opened O_APPEND writes at the offset of each FUSE_WRITE: the
 * kernel turned O_APPEND into that offset, and the write-back of a mapped
 * page of the file carries the page's offset.  The daemon's model file
 * used to keep O_APPEND and moved such a write to EOF (the page's bytes
 * appended, the page itself unchanged).
 */
static void test_append_handle_writes_at_offset(void)
{
	uint64_t fh, afh;
	int direct;
	char buf[16] = {0};
	fuse_ino_t ino = make_file("append", &fh);

	CU_ASSERT_EQUAL(rvf_op_write(&ctx0, ino, fh, "aaaaaaaa", 8, 0), 8);
	CU_ASSERT_EQUAL(rvf_op_open(&ctx0, ino, O_RDWR | O_APPEND, &afh, &direct), 0);
	CU_ASSERT_EQUAL(rvf_op_write(&ctx0, ino, afh, "M", 1, 0), 1);  /* a page's write-back */
	CU_ASSERT_EQUAL(rvf_op_write(&ctx0, ino, afh, "zz", 2, 8), 2); /* an append: offset = EOF */
	CU_ASSERT_EQUAL(rvf_op_read(&ctx0, ino, fh, buf, sizeof(buf), 0), 10);
	CU_ASSERT_STRING_EQUAL(buf, "Maaaaaaazz");
	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, ino, afh), 0);
	CU_ASSERT_EQUAL(rvf_op_release(&ctx0, ino, fh), 0);
	rvf_op_forget(ino, 1);
}

RVTEST_SUITE(fuse_ops, suite_init, suite_cleanup, RVTEST(test_unknown_fh_ebadf),
	     RVTEST(test_stale_fh_ebadf), RVTEST(test_lookup_forget_balance),
	     RVTEST(test_readdirplus_counts), RVTEST(test_ctl_refusals),
	     RVTEST(test_setattr_nothing_valid_sets_ctime),
	     RVTEST(test_append_handle_writes_at_offset), RVTEST(test_lookup_dot_after_forget),
	     RVTEST(test_request_during_eviction), RVTEST(test_teardown_drops_everything))
