// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_vfs.c - namespace operations and their errors (against
 * what Linux returns), link counts, orphans, symlinks, readdir stability,
 * setattr/statfs, the inode-based API, and leak-free teardown.
 */
#include "rvtest.h"
#include "vfs/vfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#define OK(x)	  CU_ASSERT_EQUAL((x), 0)
#define ERR(x, e) CU_ASSERT_EQUAL((x), -(e))

static uint32_t nlink_of(const char *path)
{
	struct kstat st;

	if (vfs_lstat(path, &st))
		return 0xffffffff;
	return st.nlink;
}

static uint64_t ino_of(const char *path)
{
	struct kstat st;

	if (vfs_lstat(path, &st))
		return 0;
	return st.ino;
}

static int create_file(const char *path, const char *data)
{
	struct file *f;
	int err = filp_open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644, &f);

	if (err)
		return err;
	if (data && vfs_write(f, data, strlen(data), NULL) != (ssize_t)strlen(data))
		err = -EIO;
	fput(f);
	return err;
}

static void test_create_lookup_stat(void)
{
	struct kstat st;

	OK(do_mkdir("/cls", 0755));
	OK(create_file("/cls/a", "hello"));
	OK(vfs_stat("/cls/a", &st));
	CU_ASSERT(S_ISREG(st.mode));
	CU_ASSERT_EQUAL(st.mode & 07777, 0644);
	CU_ASSERT_EQUAL(st.size, 5);
	CU_ASSERT_EQUAL(st.nlink, 1);
	OK(vfs_stat("cls/a", &st)); /* relative to the root */
	OK(vfs_stat("//cls//a", &st));
	OK(vfs_stat("/cls/./a", &st));
	OK(vfs_stat("/cls/../cls/a", &st));
	OK(vfs_stat("/..", &st)); /* the root's parent is the root */
	CU_ASSERT(S_ISDIR(st.mode));
	ERR(vfs_stat("/cls/b", &st), ENOENT);
	ERR(vfs_stat("/cls/b", &st), ENOENT); /* again: now a negative dentry */
	ERR(vfs_stat("/nodir/x", &st), ENOENT);
	ERR(vfs_stat("", &st), ENOENT);
	ERR(vfs_stat("/cls/a/x", &st), ENOTDIR);
	ERR(vfs_stat("/cls/a/", &st), ENOTDIR);
	OK(vfs_stat("/cls/", &st));
	ERR(do_mkdir("/cls", 0755), EEXIST);
	ERR(do_mkdir("/cls/a", 0755), EEXIST);
	ERR(do_mkdir("/", 0755), EEXIST);
	ERR(do_mkdir("/cls/a/b", 0755), ENOTDIR);
	ERR(do_mkdir("/cls/x/y", 0755), ENOENT);
	{
		struct file *f;

		ERR(filp_open("/cls/a", O_CREAT | O_EXCL | O_RDWR, 0644, &f), EEXIST);
		ERR(filp_open("/cls/nope", O_RDONLY, 0, &f), ENOENT);
		ERR(filp_open("/cls", O_RDWR, 0, &f), EISDIR);
		ERR(filp_open("/cls", O_RDONLY | O_CREAT, 0644, &f), EISDIR);
		ERR(filp_open("/cls/a", O_RDONLY | O_DIRECTORY, 0, &f), ENOTDIR);
		OK(filp_open("/cls", O_RDONLY | O_DIRECTORY, 0, &f));
		fput(f);
	}
}

static void test_name_too_long(void)
{
	char name[300], path[PATH_MAX_LEN + 10];
	struct kstat st;

	OK(do_mkdir("/ntl", 0755));
	memset(name, 'n', sizeof(name));
	strcpy(path, "/ntl/");
	memcpy(path + 5, name, 256);
	path[5 + 256] = 0;
	ERR(do_mkdir(path, 0755), ENAMETOOLONG);
	ERR(vfs_stat(path, &st), ENAMETOOLONG);
	ERR(create_file(path, NULL), ENAMETOOLONG);
	path[5 + 255] = 0; /* 255 is fine */
	OK(create_file(path, NULL));
	OK(vfs_stat(path, &st));
	OK(do_unlink(path));
	/* a whole path of PATH_MAX bytes or more */
	memset(path, 'a', sizeof(path));
	for (int i = 0; i < PATH_MAX_LEN + 5; i += 100)
		path[i] = '/';
	path[PATH_MAX_LEN + 5] = 0;
	ERR(vfs_stat(path, &st), ENAMETOOLONG);
	/* a long name (external storage) works everywhere */
	memset(name, 'L', 200);
	snprintf(path, sizeof(path), "/ntl/%.200s", name);
	OK(create_file(path, "x"));
	OK(vfs_stat(path, &st));
	OK(do_rename(path, "/ntl/short", 0));
	OK(do_rename("/ntl/short", path, 0));
	OK(do_unlink(path));
}

static void test_unlink_rmdir_errors(void)
{
	OK(do_mkdir("/ur", 0755));
	OK(do_mkdir("/ur/d", 0755));
	OK(create_file("/ur/d/f", NULL));
	ERR(do_unlink("/ur/d"), EISDIR);
	ERR(do_unlink("/ur/nope"), ENOENT);
	ERR(do_unlink("/ur/d/f/"), ENOTDIR);
	ERR(do_unlink("/ur/d/"), EISDIR);
	ERR(do_unlink("/ur/d/f/x"), ENOTDIR);
	ERR(do_rmdir("/ur/d"), ENOTEMPTY);
	ERR(do_rmdir("/ur/d/f"), ENOTDIR);
	ERR(do_rmdir("/ur/nope"), ENOENT);
	ERR(do_rmdir("/ur/d/."), EINVAL);
	ERR(do_rmdir("/ur/d/.."), ENOTEMPTY);
	ERR(do_rmdir("/"), EBUSY);
	OK(do_unlink("/ur/d/f"));
	ERR(do_unlink("/ur/d/f"), ENOENT);
	OK(do_rmdir("/ur/d/"));
	ERR(do_rmdir("/ur/d"), ENOENT);
	ERR(do_mkdir("/ur/d/x", 0755), ENOENT);
	OK(do_mkdir("/ur/d", 0755)); /* reuse of the name (negative dentry) */
	OK(do_rmdir("/ur/d"));
}

static void test_link_counts(void)
{
	OK(do_mkdir("/lc", 0755));
	CU_ASSERT_EQUAL(nlink_of("/lc"), 2);
	OK(do_mkdir("/lc/s1", 0755));
	OK(do_mkdir("/lc/s2", 0755));
	CU_ASSERT_EQUAL(nlink_of("/lc"), 4);
	OK(create_file("/lc/f", "abc"));
	CU_ASSERT_EQUAL(nlink_of("/lc"), 4);
	OK(do_link("/lc/f", "/lc/s1/g"));
	CU_ASSERT_EQUAL(nlink_of("/lc/f"), 2);
	CU_ASSERT_EQUAL(ino_of("/lc/f"), ino_of("/lc/s1/g"));
	ERR(do_link("/lc/f", "/lc/s1/g"), EEXIST);
	ERR(do_link("/lc/s1", "/lc/s3"), EPERM);
	ERR(do_link("/lc/nope", "/lc/s3"), ENOENT);
	ERR(do_link("/lc/f", "/lc/nodir/x"), ENOENT);
	OK(do_unlink("/lc/f"));
	CU_ASSERT_EQUAL(nlink_of("/lc/s1/g"), 1);
	/* directory moves between parents adjust both parents */
	OK(do_rename("/lc/s2", "/lc/s1/s2", 0));
	CU_ASSERT_EQUAL(nlink_of("/lc"), 3);
	CU_ASSERT_EQUAL(nlink_of("/lc/s1"), 3);
	OK(do_rmdir("/lc/s1/s2"));
	CU_ASSERT_EQUAL(nlink_of("/lc/s1"), 2);
	OK(do_unlink("/lc/s1/g"));
	OK(do_rmdir("/lc/s1"));
	CU_ASSERT_EQUAL(nlink_of("/lc"), 2);
}

static void test_orphan(void)
{
	struct file *f;
	struct kstat st;
	char buf[16];
	long inodes;
	int64_t pos = 0;

	OK(do_mkdir("/orph", 0755));
	OK(create_file("/orph/f", "data!"));
	OK(filp_open("/orph/f", O_RDWR, 0, &f));
	inodes = vfs_inodes_live();
	OK(do_unlink("/orph/f"));
	ERR(vfs_stat("/orph/f", &st), ENOENT);
	CU_ASSERT_EQUAL(vfs_inodes_live(), inodes); /* still alive: open */
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.nlink, 0);
	CU_ASSERT_EQUAL(vfs_read(f, buf, sizeof(buf), &pos), 5);
	CU_ASSERT_EQUAL(memcmp(buf, "data!", 5), 0);
	pos = 5;
	CU_ASSERT_EQUAL(vfs_write(f, "more", 4, &pos), 4);
	vfs_getattr(f->f_inode, &st);
	CU_ASSERT_EQUAL(st.size, 9);
	/* an orphan cannot be linked back */
	{
		struct inode *root = vfs_root();

		ERR(vfs_link(f->f_inode, root, "back"), ENOENT);
		iput(root);
	}
	/* a new file may take the name meanwhile */
	OK(create_file("/orph/f", "new"));
	fput(f);
	CU_ASSERT_EQUAL(vfs_inodes_live(), inodes); /* orphan gone, new one here */
	OK(vfs_stat("/orph/f", &st));
	CU_ASSERT_EQUAL(st.size, 3);
	OK(do_unlink("/orph/f"));
	CU_ASSERT_EQUAL(vfs_inodes_live(), inodes - 1);
}

static void test_rename(void)
{
	uint64_t a, b;
	struct kstat st;

	OK(do_mkdir("/rn", 0755));
	OK(do_mkdir("/rn/d1", 0755));
	OK(do_mkdir("/rn/d2", 0755));
	OK(do_mkdir("/rn/d1/sub", 0755));
	OK(create_file("/rn/a", "A"));
	OK(create_file("/rn/b", "BB"));
	a = ino_of("/rn/a");
	b = ino_of("/rn/b");

	ERR(do_rename("/rn/nope", "/rn/x", 0), ENOENT);
	ERR(do_rename("/rn/a", "/rn/b", RENAME_NOREPLACE), EEXIST);
	ERR(do_rename("/rn/a", "/rn/b", RENAME_NOREPLACE | RENAME_EXCHANGE), EINVAL);
	ERR(do_rename("/rn/a", "/rn/x", RENAME_EXCHANGE), ENOENT);
	ERR(do_rename("/rn/a", "/rn/d1", 0), EISDIR);
	ERR(do_rename("/rn/d1", "/rn/a", 0), ENOTDIR);
	ERR(do_rename("/rn/d1", "/rn/d1/sub/x", 0), EINVAL); /* into its own subtree */
	ERR(do_rename("/rn/d1", "/rn/d1/x", 0), EINVAL);
	ERR(do_rename("/rn/d1/sub", "/rn/d1", 0), ENOTEMPTY); /* over its ancestor */
	ERR(do_rename("/rn/d2", "/rn/d1", 0), ENOTEMPTY);
	ERR(do_rename("/rn/.", "/rn/x", 0), EBUSY);
	ERR(do_rename("/rn/a", "/rn/..", 0), EBUSY);
	ERR(do_rename("/rn/a", "/rn/nodir/x", 0), ENOENT);
	ERR(do_rename("/rn/a/x", "/rn/y", 0), ENOTDIR);
	OK(do_rename("/rn/a", "/rn/a", 0)); /* same entry: nothing */

	/* over an existing file: the target's inode goes, a takes the name */
	OK(do_rename("/rn/a", "/rn/b", 0));
	ERR(vfs_stat("/rn/a", &st), ENOENT);
	CU_ASSERT_EQUAL(ino_of("/rn/b"), a);
	CU_ASSERT_NOT_EQUAL(ino_of("/rn/b"), b);
	OK(vfs_stat("/rn/b", &st));
	CU_ASSERT_EQUAL(st.size, 1);

	/* hard links to the same inode: rename is a no-op */
	OK(do_link("/rn/b", "/rn/b2"));
	OK(do_rename("/rn/b", "/rn/b2", 0));
	CU_ASSERT_EQUAL(ino_of("/rn/b"), a);
	CU_ASSERT_EQUAL(nlink_of("/rn/b"), 2);
	OK(do_unlink("/rn/b2"));

	/* dir over an empty dir, cross-directory */
	OK(do_mkdir("/rn/d2/empty", 0755));
	OK(do_rename("/rn/d1/sub", "/rn/d2/empty", 0));
	CU_ASSERT_EQUAL(nlink_of("/rn/d1"), 2);
	CU_ASSERT_EQUAL(nlink_of("/rn/d2"), 3);
	ERR(vfs_stat("/rn/d1/sub", &st), ENOENT);
	OK(vfs_stat("/rn/d2/empty", &st));

	/* exchange a file and a directory across directories */
	OK(create_file("/rn/d1/file", "f"));
	a = ino_of("/rn/d1/file");
	b = ino_of("/rn/d2/empty");
	OK(do_rename("/rn/d1/file", "/rn/d2/empty", RENAME_EXCHANGE));
	CU_ASSERT_EQUAL(ino_of("/rn/d1/file"), b);
	CU_ASSERT_EQUAL(ino_of("/rn/d2/empty"), a);
	OK(vfs_stat("/rn/d1/file", &st));
	CU_ASSERT(S_ISDIR(st.mode));
	CU_ASSERT_EQUAL(nlink_of("/rn/d1"), 3);
	CU_ASSERT_EQUAL(nlink_of("/rn/d2"), 2);
	ERR(do_rename("/rn/d1", "/rn/d1/file", RENAME_EXCHANGE), EINVAL);

	/* clean up */
	OK(do_unlink("/rn/d2/empty"));
	OK(do_rmdir("/rn/d1/file"));
	OK(do_unlink("/rn/b"));
	OK(do_rmdir("/rn/d1"));
	OK(do_rmdir("/rn/d2"));
	OK(do_rmdir("/rn"));
}

static void test_symlinks(void)
{
	char buf[64];
	struct kstat st;
	char path[64];

	OK(do_mkdir("/sl", 0755));
	OK(do_mkdir("/sl/dir", 0755));
	OK(create_file("/sl/dir/f", "12345"));
	OK(do_symlink("dir/f", "/sl/rel"));
	OK(do_symlink("/sl/dir", "/sl/abs"));
	OK(do_symlink("nowhere", "/sl/dangling"));
	CU_ASSERT_EQUAL(do_readlink("/sl/rel", buf, sizeof(buf)), 5);
	CU_ASSERT_EQUAL(memcmp(buf, "dir/f", 5), 0);
	CU_ASSERT_EQUAL(do_readlink("/sl/rel", buf, 3), 3);
	ERR(do_readlink("/sl/dir", buf, sizeof(buf)), EINVAL);
	OK(vfs_stat("/sl/rel", &st));
	CU_ASSERT_EQUAL(st.size, 5);
	CU_ASSERT(S_ISREG(st.mode));
	OK(vfs_lstat("/sl/rel", &st));
	CU_ASSERT(S_ISLNK(st.mode));
	CU_ASSERT_EQUAL(st.size, 5);
	OK(vfs_stat("/sl/abs/f", &st)); /* a symlink in the middle */
	CU_ASSERT_EQUAL(st.size, 5);
	OK(vfs_stat("/sl/abs/", &st));
	CU_ASSERT(S_ISDIR(st.mode));
	OK(vfs_stat("/sl/abs/../rel", &st)); /* ".." from the target */
	ERR(vfs_stat("/sl/dangling", &st), ENOENT);
	OK(vfs_lstat("/sl/dangling", &st));
	ERR(do_symlink("", "/sl/empty"), ENOENT);
	ERR(do_symlink("x", "/sl/rel"), EEXIST);
	{
		struct file *f;

		ERR(filp_open("/sl/rel", O_RDONLY | O_NOFOLLOW, 0, &f), ELOOP);
		OK(filp_open("/sl/rel", O_RDONLY, 0, &f));
		fput(f);
	}
	/* loops */
	OK(do_symlink("/sl/loop2", "/sl/loop1"));
	OK(do_symlink("/sl/loop1", "/sl/loop2"));
	ERR(vfs_stat("/sl/loop1", &st), ELOOP);
	ERR(vfs_stat("/sl/loop1/x", &st), ELOOP);
	OK(vfs_lstat("/sl/loop1", &st));
	/* a chain of 40 links resolves, 41 is ELOOP (MAXSYMLINKS) */
	OK(do_symlink("dir/f", "/sl/c0"));
	for (int i = 1; i <= 41; i++) {
		char target[16];

		snprintf(target, sizeof(target), "c%d", i - 1);
		snprintf(path, sizeof(path), "/sl/c%d", i);
		OK(do_symlink(target, path));
	}
	OK(vfs_stat("/sl/c39", &st)); /* c39 -> ... -> c0 -> dir/f: 40 links */
	ERR(vfs_stat("/sl/c40", &st), ELOOP);
	ERR(vfs_stat("/sl/c41", &st), ELOOP);
}

struct rd_ctx {
	char names[4096][16];
	int64_t next[4096];
	int n, max;
};

static int rd_actor(void *p, const char *name, size_t len, uint64_t ino, unsigned dtype,
		    int64_t next)
{
	struct rd_ctx *c = p;

	if (c->n >= c->max)
		return 1;
	memcpy(c->names[c->n], name, len);
	c->names[c->n][len] = 0;
	c->next[c->n] = next;
	c->n++;
	return 0;
}

static void test_readdir_stable_while_removing(void)
{
	enum { N = 1500, BATCH = 37 };
	static struct rd_ctx ctx;
	static unsigned char seen[N];
	struct inode *dir = NULL;
	struct dentry *dd;
	int64_t pos = 0;
	int total = 0, dots = 0;
	char path[64];

	OK(do_mkdir("/rd", 0755));
	for (int i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/rd/e%d", i);
		OK(create_file(path, NULL));
	}
	OK(kern_path("/rd", LOOKUP_FOLLOW, &dd));
	dir = dd->d_inode;
	ihold(dir);
	dput(dd);
	memset(seen, 0, sizeof(seen));
	/* the rm -rf pattern: read a batch, unlink what was read, continue
	 * from the cookie */
	for (;;) {
		int64_t r;

		ctx.n = 0;
		ctx.max = BATCH;
		r = vfs_readdir(dir, pos, rd_actor, &ctx);
		CU_ASSERT(r >= 0);
		if (ctx.n == 0)
			break;
		for (int i = 0; i < ctx.n; i++) {
			int k;

			if (!strcmp(ctx.names[i], ".") || !strcmp(ctx.names[i], "..")) {
				dots++;
				continue;
			}
			CU_ASSERT_EQUAL(sscanf(ctx.names[i], "e%d", &k), 1);
			CU_ASSERT(k >= 0 && k < N);
			if (k >= 0 && k < N) {
				CU_ASSERT_EQUAL(seen[k], 0);
				seen[k] = 1;
			}
			total++;
			snprintf(path, sizeof(path), "/rd/%s", ctx.names[i]);
			OK(do_unlink(path));
		}
		CU_ASSERT_EQUAL(r, ctx.next[ctx.n - 1]);
		pos = r;
	}
	CU_ASSERT_EQUAL(dots, 2);
	CU_ASSERT_EQUAL(total, N);

	/* removing entries ahead of the cookie: they vanish, the rest stay */
	for (int i = 0; i < 100; i++) {
		snprintf(path, sizeof(path), "/rd/e%d", i);
		OK(create_file(path, NULL));
	}
	ctx.n = 0;
	ctx.max = 2 + 10;
	pos = vfs_readdir(dir, 0, rd_actor, &ctx);
	CU_ASSERT_EQUAL(ctx.n, 12);
	for (int i = 50; i < 100; i += 2) {
		snprintf(path, sizeof(path), "/rd/e%d", i);
		OK(do_unlink(path));
	}
	ctx.n = 0;
	ctx.max = 4096;
	CU_ASSERT(vfs_readdir(dir, pos, rd_actor, &ctx) > pos);
	CU_ASSERT_EQUAL(ctx.n, 90 - 25);
	for (int i = 0; i < ctx.n; i++) {
		int k = atoi(ctx.names[i] + 1);

		CU_ASSERT(k >= 10);
		CU_ASSERT(!(k >= 50 && (k % 2) == 0));
	}
	for (int i = 0; i < 100; i++) {
		snprintf(path, sizeof(path), "/rd/e%d", i);
		if (i < 50 || i % 2)
			OK(do_unlink(path));
	}
	OK(do_rmdir("/rd"));
	/* readdir of a removed directory is empty, not an error */
	ctx.n = 0;
	CU_ASSERT_EQUAL(vfs_readdir(dir, 0, rd_actor, &ctx), 0);
	CU_ASSERT_EQUAL(ctx.n, 0);
	iput(dir);
}

/*
 * A walk through an open directory ends while its entries are renamed back
 * and forth (each rename gives the entry a new, higher offset): it stops at
 * the end recorded when it started, meets no entry twice, and a rewind
 * (position 0) records the end again and sees every entry.
 */
static void test_readdir_ends_while_renaming(void)
{
	enum { N = 100, BATCH = 7 };
	static struct rd_ctx ctx;
	static unsigned char seen[N];
	char cur[N]; /* each entry's current prefix */
	struct file *f = NULL;
	int64_t pos = 0;
	int total = 0, round = 0;
	char a[64], b[64];

	memset(cur, 'a', sizeof(cur));

	OK(do_mkdir("/rr", 0755));
	for (int i = 0; i < N; i++) {
		snprintf(a, sizeof(a), "/rr/a%d", i);
		OK(create_file(a, NULL));
	}
	OK(filp_open("/rr", O_RDONLY | O_DIRECTORY, 0, &f));
	if (!f)
		return;
	memset(seen, 0, sizeof(seen));
	for (;;) {
		int64_t r;

		ctx.n = 0;
		ctx.max = BATCH;
		r = vfs_iterate_dir(f, pos, rd_actor, &ctx);
		CU_ASSERT(r >= 0);
		if (ctx.n == 0 || total > 4 * N)
			break;
		for (int i = 0; i < ctx.n; i++) {
			int k = -1;

			if (!strcmp(ctx.names[i], ".") || !strcmp(ctx.names[i], ".."))
				continue;
			CU_ASSERT_EQUAL(sscanf(ctx.names[i] + 1, "%d", &k), 1);
			if (k >= 0 && k < N) {
				CU_ASSERT_EQUAL(seen[k], 0); /* never met twice */
				seen[k] = 1;
			}
			total++;
		}
		/* between two reads, the even entries move to new offsets
		 * (behind the walk's end); the odd ones stay to be read */
		for (int i = 0; i < N; i += 2) {
			snprintf(a, sizeof(a), "/rr/%c%d", cur[i], i);
			cur[i] = cur[i] == 'a' ? 'b' : 'a';
			snprintf(b, sizeof(b), "/rr/%c%d", cur[i], i);
			OK(do_rename(a, b, 0));
		}
		round++;
		pos = r;
	}
	CU_ASSERT(total <= N);
	CU_ASSERT(total >= N / 2); /* every odd entry, at least */
	CU_ASSERT(round > 1);
	/* a rewind records the end again: every entry, once */
	ctx.n = 0;
	ctx.max = 4096;
	CU_ASSERT(vfs_iterate_dir(f, 0, rd_actor, &ctx) > 2);
	CU_ASSERT_EQUAL(ctx.n, N + 2);
	/* entries created after the walk started are behind its end */
	OK(create_file("/rr/late", NULL));
	ctx.n = 0;
	CU_ASSERT(vfs_iterate_dir(f, 2 + N / 2, rd_actor, &ctx) >= 0);
	for (int i = 0; i < ctx.n; i++)
		CU_ASSERT(strcmp(ctx.names[i], "late") != 0);
	/* vfs_readdir on the inode has no end: it sees the new entry */
	ctx.n = 0;
	CU_ASSERT(vfs_readdir(f->f_inode, 0, rd_actor, &ctx) > 2);
	CU_ASSERT_EQUAL(ctx.n, N + 3);
	fput(f);
	for (int i = 0; i < N; i++) {
		snprintf(a, sizeof(a), "/rr/%c%d", cur[i], i);
		OK(do_unlink(a));
	}
	OK(do_unlink("/rr/late"));
	OK(do_rmdir("/rr"));
}

static void test_setattr_statfs(void)
{
	struct kstat st;
	struct iattr ia = {0};
	struct dentry *d;
	struct kstatfs sfs;

	OK(create_file("/sa", "0123456789"));
	OK(kern_path("/sa", 0, &d));
	ia.ia_valid = ATTR_MODE | ATTR_UID | ATTR_GID | ATTR_ATIME | ATTR_ATIME_SET | ATTR_MTIME |
		      ATTR_MTIME_SET;
	ia.ia_mode = 0600;
	ia.ia_uid = 1000;
	ia.ia_gid = 100;
	ia.ia_atime.tv_sec = 1000;
	ia.ia_atime.tv_nsec = 123456789;
	ia.ia_mtime.tv_sec = 2000;
	ia.ia_mtime.tv_nsec = 987654321;
	OK(vfs_setattr(d->d_inode, &ia));
	vfs_getattr(d->d_inode, &st);
	CU_ASSERT(S_ISREG(st.mode));
	CU_ASSERT_EQUAL(st.mode & 07777, 0600);
	CU_ASSERT_EQUAL(st.uid, 1000);
	CU_ASSERT_EQUAL(st.gid, 100);
	CU_ASSERT_EQUAL(st.atime.tv_sec, 1000);
	CU_ASSERT_EQUAL(st.atime.tv_nsec, 123456789);
	CU_ASSERT_EQUAL(st.mtime.tv_nsec, 987654321);
	CU_ASSERT(st.ctime.tv_sec > 2000);
	ia.ia_valid = ATTR_SIZE;
	ia.ia_size = 4;
	OK(vfs_setattr(d->d_inode, &ia));
	vfs_getattr(d->d_inode, &st);
	CU_ASSERT_EQUAL(st.size, 4);
	ia.ia_size = -1;
	ERR(vfs_setattr(d->d_inode, &ia), EINVAL);
	dput(d);
	OK(kern_path("/", 0, &d));
	ia.ia_size = 0;
	ERR(vfs_setattr(d->d_inode, &ia), EISDIR);
	dput(d);
	OK(do_truncate("/sa", 100));
	OK(vfs_stat("/sa", &st));
	CU_ASSERT_EQUAL(st.size, 100);
	ERR(do_truncate("/sa", -1), EINVAL);
	ERR(do_truncate("/nope", 1), ENOENT);
	vfs_statfs(&sfs);
	CU_ASSERT_EQUAL(sfs.f_bsize, PAGE_SIZE);
	CU_ASSERT(sfs.f_bfree <= sfs.f_blocks);
	CU_ASSERT_EQUAL(sfs.f_namelen, 255);
	OK(do_unlink("/sa"));
}

static void test_mknod(void)
{
	struct kstat st;

	OK(do_mknod("/fifo", S_IFIFO | 0600, 0));
	OK(vfs_stat("/fifo", &st));
	CU_ASSERT(S_ISFIFO(st.mode));
	OK(do_mknod("/reg", 0640, 0)); /* type 0: regular */
	OK(vfs_stat("/reg", &st));
	CU_ASSERT(S_ISREG(st.mode));
	ERR(do_mknod("/d", S_IFDIR | 0755, 0), EPERM);
	ERR(do_mknod("/fifo", S_IFIFO | 0600, 0), EEXIST);
	OK(do_unlink("/fifo"));
	OK(do_unlink("/reg"));
}

/* inode_init_owner and mode_strip_sgid (Linux 6.x) in a setgid directory. */
static void test_setgid_dir(void)
{
	struct inode *root = vfs_root(), *d, *f, *sub, *x;
	struct cred owner = {.fsuid = 0, .fsgid = 0};
	struct cred member = {.fsuid = 1000, .fsgid = 50};
	struct cred stranger = {.fsuid = 1001, .fsgid = 60};
	struct kstat st;

	OK(vfs_mkdir(root, "sg", 02777, &owner, &d));
	{
		struct iattr ia = {.ia_valid = ATTR_GID, .ia_gid = 50};

		OK(vfs_setattr(d, &ia));
	}
	/* a file takes the directory's group, not the creator's */
	OK(vfs_create(d, "f", 0644, &stranger, &f));
	vfs_getattr(f, &st);
	CU_ASSERT_EQUAL(st.uid, 1001);
	CU_ASSERT_EQUAL(st.gid, 50);
	CU_ASSERT_EQUAL(st.mode, S_IFREG | 0644);
	iput(f);
	/* a subdirectory inherits the group and S_ISGID */
	OK(vfs_mkdir(d, "sub", 0755, &stranger, &sub));
	vfs_getattr(sub, &st);
	CU_ASSERT_EQUAL(st.gid, 50);
	CU_ASSERT_EQUAL(st.mode, S_IFDIR | 02755);
	/* and passes both on */
	OK(vfs_mknod(sub, "n", S_IFIFO | 0600, 0, &stranger, &x));
	vfs_getattr(x, &st);
	CU_ASSERT_EQUAL(st.gid, 50);
	iput(x);
	/* setgid + group-executable: kept by a member, stripped otherwise */
	OK(vfs_create(d, "m", 02755, &member, &x));
	vfs_getattr(x, &st);
	CU_ASSERT_EQUAL(st.mode, S_IFREG | 02755);
	iput(x);
	OK(vfs_create(d, "s", 02755, &stranger, &x));
	vfs_getattr(x, &st);
	CU_ASSERT_EQUAL(st.mode, S_IFREG | 0755);
	iput(x);
	/* not group-executable: mode_strip_sgid leaves it (mandatory-locking bit) */
	OK(vfs_create(d, "l", 02644, &stranger, &x));
	vfs_getattr(x, &st);
	CU_ASSERT_EQUAL(st.mode, S_IFREG | 02644);
	iput(x);
	/* root (CAP_FSETID) keeps it */
	OK(vfs_create(d, "r", 02755, NULL, &x));
	vfs_getattr(x, &st);
	CU_ASSERT_EQUAL(st.mode, S_IFREG | 02755);
	iput(x);
	/* outside a setgid directory: the creator's group, no inheritance */
	OK(vfs_mkdir(root, "plain", 0755, &stranger, &x));
	vfs_getattr(x, &st);
	CU_ASSERT_EQUAL(st.gid, 60);
	CU_ASSERT_EQUAL(st.mode, S_IFDIR | 0755);
	iput(x);
	OK(vfs_rmdir(root, "plain"));
	OK(vfs_unlink(sub, "n"));
	iput(sub);
	OK(vfs_rmdir(d, "sub"));
	OK(vfs_unlink(d, "f"));
	OK(vfs_unlink(d, "m"));
	OK(vfs_unlink(d, "s"));
	OK(vfs_unlink(d, "l"));
	OK(vfs_unlink(d, "r"));
	iput(d);
	OK(vfs_rmdir(root, "sg"));
	iput(root);
}

static void test_inode_api(void)
{
	struct inode *root = vfs_root(), *d, *f, *g, *l;
	struct kstat st;
	char buf[16];
	struct cred cred = {.fsuid = 42, .fsgid = 43};

	OK(vfs_mkdir(root, "api", 0700, &cred, &d));
	vfs_getattr(d, &st);
	CU_ASSERT_EQUAL(st.uid, 42);
	CU_ASSERT_EQUAL(st.gid, 43);
	OK(vfs_create(d, "f", 0600, NULL, &f));
	ERR(vfs_create(d, "f", 0600, NULL, &g), EEXIST);
	OK(vfs_lookup(d, "f", &g));
	CU_ASSERT_PTR_EQUAL(g, f);
	iput(g);
	OK(vfs_lookup(d, ".", &g));
	CU_ASSERT_PTR_EQUAL(g, d);
	iput(g);
	OK(vfs_lookup(d, "..", &g));
	CU_ASSERT_PTR_EQUAL(g, root);
	iput(g);
	ERR(vfs_lookup(d, "nope", &g), ENOENT);
	ERR(vfs_lookup(f, "x", &g), ENOTDIR);
	OK(vfs_symlink(d, "l", "f", NULL, &l));
	CU_ASSERT_EQUAL(vfs_readlink(l, buf, sizeof(buf)), 1);
	iput(l);
	OK(vfs_link(f, d, "f2"));
	vfs_getattr(f, &st);
	CU_ASSERT_EQUAL(st.nlink, 2);
	OK(vfs_rename(d, "f2", root, "moved", 0));
	OK(vfs_unlink(root, "moved"));
	OK(vfs_mknod(d, "p", S_IFIFO | 0600, 0, NULL, &g));
	iput(g);
	ERR(vfs_rmdir(root, "api"), ENOTEMPTY);
	OK(vfs_unlink(d, "p"));
	OK(vfs_unlink(d, "l"));
	OK(vfs_unlink(d, "f"));
	OK(vfs_rmdir(root, "api"));
	/* the removed directory: creating in it fails like Linux (ENOENT) */
	ERR(vfs_create(d, "x", 0600, NULL, &g), ENOENT);
	vfs_getattr(d, &st);
	CU_ASSERT_EQUAL(st.nlink, 0);
	iput(f);
	iput(d);
	iput(root);
}

static void test_negative_dentries_bounded(void)
{
	char path[64];
	struct kstat st;
	long before = vfs_dentries_live();

	OK(do_mkdir("/neg", 0755));
	for (int i = 0; i < 6000; i++) {
		snprintf(path, sizeof(path), "/neg/missing%d", i);
		ERR(vfs_stat(path, &st), ENOENT);
	}
	/* unused negatives beyond the cap (4096) are killed at their last dput */
	CU_ASSERT(vfs_dentries_live() - before <= 4096 + 2);
	CU_ASSERT(vfs_dentries_live() - before >= 1000);
	/* removing the directory takes its negatives with it */
	OK(do_rmdir("/neg"));
	CU_ASSERT(vfs_dentries_live() - before <= 1);
}

static void test_deep_tree(void)
{
	char path[PATH_MAX_LEN];
	size_t len = 0;
	struct kstat st;

	for (int i = 0; i < 300; i++) {
		len += (size_t)snprintf(path + len, sizeof(path) - len, "/d%d", i % 10);
		OK(do_mkdir(path, 0755));
	}
	OK(vfs_stat(path, &st));
	CU_ASSERT(S_ISDIR(st.mode));
	strcat(path, "/../../..");
	OK(vfs_stat(path, &st));
	/* left in place: teardown frees the whole tree */
}

static void test_teardown_frees_everything(void)
{
	/* a private instance: build a tree with data, negatives and orphans
	 * closed, destroy, and require a clean teardown */
	char path[64];
	struct kstat st;

	CU_ASSERT_EQUAL(rv_instance_destroy(), 0);
	CU_ASSERT_EQUAL(rv_instance_create(NULL), 0);
	OK(do_mkdir("/t", 0755));
	for (int i = 0; i < 50; i++) {
		snprintf(path, sizeof(path), "/t/f%d", i);
		OK(create_file(path, "some data"));
		snprintf(path, sizeof(path), "/t/neg%d", i);
		ERR(vfs_stat(path, &st), ENOENT);
	}
	OK(do_symlink("/t/f1", "/t/l"));
	OK(do_mkdir("/t/d/", 0755));
	CU_ASSERT(folio_count_live() > 0);
	CU_ASSERT_EQUAL(rv_instance_destroy(), 0);
	CU_ASSERT_EQUAL(rv_instance_create(NULL), 0);
	CU_ASSERT_EQUAL(vfs_inodes_live(), 1); /* the root */
}

/*
 * O_TRUNC truncates whatever the access mode (do_open: O_TRUNC asks for
 * MAY_WRITE, handle_truncate runs for O_RDONLY too), also through a
 * symlink and with O_CREAT on an existing file; a new file is not
 * truncated.  Each open runs on the model and, when /dev/shm is a tmpfs,
 * on a host file there: both sizes must be 0.
 */
static long long host_size_after_open(const char *dir, int flags, bool via_link)
{
	char path[96], link[100];
	struct stat st;
	int fd;
	long long r = -1;

	snprintf(path, sizeof(path), "%s/rcuvfs-otrunc-%d", dir, (int)getpid());
	snprintf(link, sizeof(link), "%s.l", path);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0 || write(fd, "hello", 5) != 5)
		goto out;
	close(fd);
	if (via_link && symlink(path, link))
		goto out;
	fd = open(via_link ? link : path, flags, 0644);
	if (fd < 0)
		goto out;
	if (!fstat(fd, &st))
		r = st.st_size;
	close(fd);
out:
	unlink(link);
	unlink(path);
	return r;
}

static void test_open_trunc_any_access_mode(void)
{
	static const int modes[] = {O_RDONLY | O_TRUNC, O_RDONLY | O_TRUNC | O_CREAT,
				    O_WRONLY | O_TRUNC, O_RDWR | O_TRUNC | O_CREAT};
	struct statfs sfs;
	bool host = !statfs("/dev/shm", &sfs) && sfs.f_type == 0x01021994; /* TMPFS_MAGIC */
	struct kstat st;
	struct file *f;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		for (int via_link = 0; via_link < 2; via_link++) {
			OK(create_file("/otr", "hello"));
			if (via_link)
				OK(do_symlink("/otr", "/otr.l"));
			OK(filp_open(via_link ? "/otr.l" : "/otr", modes[i], 0644, &f));
			OK(vfs_stat("/otr", &st));
			CU_ASSERT_EQUAL(st.size, 0);
			fput(f);
			if (via_link)
				OK(do_unlink("/otr.l"));
			OK(do_unlink("/otr"));
			if (host)
				CU_ASSERT_EQUAL(
				    host_size_after_open("/dev/shm", modes[i], via_link), 0);
		}
	}
}

/* build_open_flags and may_open as Linux 6.18's open(2) (found by fddiff) */
static void test_open_flags_as_linux(void)
{
	struct file *f;

	OK(do_mkdir("/ofl", 0755));
	OK(create_file("/ofl/a", "data"));
	OK(do_symlink("a", "/ofl/l"));
	/* O_DIRECTORY | O_CREAT: -EINVAL before the walk */
	ERR(filp_open("/ofl/none", O_RDONLY | O_CREAT | O_DIRECTORY, 0644, &f), EINVAL);
	/* O_TRUNC and access mode 3 ask for write access: a directory refuses */
	ERR(filp_open("/ofl", O_RDONLY | O_TRUNC, 0, &f), EISDIR);
	ERR(filp_open("/ofl", 3, 0, &f), EISDIR);
	/* O_PATH keeps O_DIRECTORY, O_NOFOLLOW and itself; it creates and
	 * truncates nothing, opens a symlink with O_NOFOLLOW and any directory */
	OK(filp_open("/ofl/a", O_PATH | O_RDWR | O_TRUNC | O_APPEND | O_NOFOLLOW, 0, &f));
	CU_ASSERT_EQUAL(f->f_flags, (unsigned int)(O_PATH | O_NOFOLLOW));
	CU_ASSERT_EQUAL(f->f_mode, FMODE_PATH);
	fput(f);
	CU_ASSERT_EQUAL(nlink_of("/ofl/a"), 1);
	ERR(filp_open("/ofl/b", O_PATH | O_CREAT, 0644, &f), ENOENT);
	OK(filp_open("/ofl/l", O_PATH | O_NOFOLLOW, 0, &f));
	CU_ASSERT(S_ISLNK(f->f_inode->i_mode));
	fput(f);
	ERR(filp_open("/ofl/l", O_RDONLY | O_NOFOLLOW, 0, &f), ELOOP);
	OK(filp_open("/ofl", O_PATH | O_WRONLY, 0, &f));
	fput(f);
	/* O_CLOEXEC belongs to the fd, not to the file */
	OK(filp_open("/ofl/a", O_RDONLY | O_CLOEXEC, 0, &f));
	CU_ASSERT_EQUAL(f->f_flags & O_CLOEXEC, 0);
	/* the access mode 3 reads and writes nothing, but lseeks and preads */
	fput(f);
	OK(filp_open("/ofl/a", 3, 0, &f));
	CU_ASSERT_EQUAL(f->f_mode & (FMODE_READ | FMODE_WRITE), 0);
	CU_ASSERT(f->f_mode & FMODE_PREAD);
	CU_ASSERT_EQUAL(vfs_read(f, (char[4]){0}, 4, NULL), -EBADF);
	fput(f);
	{
		struct kstat st;

		OK(vfs_stat("/ofl/a", &st));
		CU_ASSERT_EQUAL(st.size, 4); /* no O_PATH open truncated it */
	}
	OK(do_unlink("/ofl/l"));
	OK(do_unlink("/ofl/a"));
	OK(do_rmdir("/ofl"));
}

/* lseek on a directory: offset_dir_llseek (fddiff found SEEK_END working) */
static void test_dir_llseek(void)
{
	struct file *f;

	OK(do_mkdir("/dls", 0755));
	OK(filp_open("/dls", O_RDONLY, 0, &f));
	CU_ASSERT_EQUAL(vfs_llseek(f, 4100, SEEK_END), -EINVAL);
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_DATA), -EINVAL);
	CU_ASSERT_EQUAL(vfs_llseek(f, -1, SEEK_SET), -EINVAL);
	CU_ASSERT_EQUAL(vfs_llseek(f, 17, SEEK_SET), 17);
	CU_ASSERT_EQUAL(vfs_llseek(f, 3, SEEK_CUR), 20);
	CU_ASSERT_EQUAL(vfs_llseek(f, INT64_MAX, SEEK_CUR), -EINVAL);
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_CUR), 20);
	fput(f);
	OK(do_rmdir("/dls"));
}

/*
 * SEEK_DATA/SEEK_HOLE with data in the page that holds offset 2^63-1: Linux
 * 6.18's mapping_seek_hole_data wraps that page's end to -2^63 (fddiff).
 */
static void test_seek_last_page(void)
{
	const int64_t last = INT64_MAX & ~(int64_t)(PAGE_SIZE - 1);
	int64_t pos = INT64_MAX - 38;
	struct file *f;

	OK(create_file("/slp", NULL));
	OK(filp_open("/slp", O_RDWR, 0, &f));
	CU_ASSERT_EQUAL(vfs_write(f, "0123456789abc", 13, &pos), 13);
	CU_ASSERT_EQUAL(vfs_llseek(f, 24, SEEK_DATA), -ENXIO);
	CU_ASSERT_EQUAL(vfs_llseek(f, last + 5, SEEK_DATA), -ENXIO);
	CU_ASSERT_EQUAL(vfs_llseek(f, 24, SEEK_HOLE), 24);
	CU_ASSERT_EQUAL(vfs_llseek(f, last + 5, SEEK_HOLE), INT64_MIN);
	CU_ASSERT_EQUAL(vfs_llseek(f, 0, SEEK_CUR), 24); /* f_pos stayed */
	/* data below the last page is found as before */
	pos = 8192;
	CU_ASSERT_EQUAL(vfs_write(f, "x", 1, &pos), 1);
	CU_ASSERT_EQUAL(vfs_llseek(f, 24, SEEK_DATA), 8192);
	CU_ASSERT_EQUAL(vfs_llseek(f, 8192, SEEK_HOLE), 8192 + PAGE_SIZE);
	fput(f);
	OK(do_unlink("/slp"));
}

RVTEST_SUITE(vfs_namespace, rvtest_instance_init, rvtest_instance_cleanup,
	     RVTEST(test_create_lookup_stat), RVTEST(test_name_too_long),
	     RVTEST(test_unlink_rmdir_errors), RVTEST(test_link_counts), RVTEST(test_orphan),
	     RVTEST(test_rename), RVTEST(test_symlinks), RVTEST(test_readdir_stable_while_removing),
	     RVTEST(test_readdir_ends_while_renaming), RVTEST(test_setattr_statfs),
	     RVTEST(test_mknod), RVTEST(test_inode_api), RVTEST(test_setgid_dir),
	     RVTEST(test_negative_dentries_bounded), RVTEST(test_deep_tree),
	     RVTEST(test_open_trunc_any_access_mode), RVTEST(test_open_flags_as_linux),
	     RVTEST(test_dir_llseek), RVTEST(test_seek_last_page),
	     RVTEST(test_teardown_frees_everything));
