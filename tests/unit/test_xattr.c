// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_xattr.c - extended attributes in the model (vfs/xattr.c)
 * against Linux 6.x tmpfs: XATTR_CREATE/XATTR_REPLACE, ENODATA, ERANGE and
 * size-0 length queries for get and list, the name/value limits, listings
 * in name order with trusted.* hidden from the unprivileged, the namespace
 * rules (trusted capable only, security written by the capable, user. only
 * on regular files and directories, others EOPNOTSUPP), ctime on change,
 * and attributes freed with their inode (the leak check at teardown).
 */
#include "rvtest.h"
#include "vfs/vfs.h"

#include <stdlib.h>
#include <string.h>

#define OK(x)	  CU_ASSERT_EQUAL((x), 0)
#define ERR(x, e) CU_ASSERT_EQUAL((x), -(e))

static const struct cred user = {.fsuid = 1000, .fsgid = 1000};

static struct inode *new_file(struct inode *dir, const char *name, uint32_t mode)
{
	struct inode *inode = NULL;

	int err = S_ISREG(mode) ? vfs_create(dir, name, mode & 07777, NULL, &inode)
				: vfs_mknod(dir, name, mode, 0, NULL, &inode);

	CU_ASSERT_FATAL(err == 0);
	return inode;
}

static void test_set_get_flags(void)
{
	struct inode *root = vfs_root(), *f = new_file(root, "x", S_IFREG | 0644);
	char buf[16];

	ERR(vfs_getxattr(f, "user.a", buf, sizeof(buf), NULL), ENODATA);
	ERR(vfs_setxattr(f, "user.a", "v1", 2, XATTR_REPLACE, NULL), ENODATA);
	OK(vfs_setxattr(f, "user.a", "v1", 2, XATTR_CREATE, NULL));
	ERR(vfs_setxattr(f, "user.a", "v2", 2, XATTR_CREATE, NULL), EEXIST);
	OK(vfs_setxattr(f, "user.a", "value2", 6, XATTR_REPLACE, NULL));
	OK(vfs_setxattr(f, "user.a", "value3", 6, 0, NULL));
	ERR(vfs_setxattr(f, "user.a", "v", 1, XATTR_CREATE | XATTR_REPLACE | 4, NULL), EINVAL);
	/* size 0: the length; too small: ERANGE; exact fits */
	CU_ASSERT_EQUAL(vfs_getxattr(f, "user.a", NULL, 0, NULL), 6);
	ERR(vfs_getxattr(f, "user.a", buf, 5, NULL), ERANGE);
	CU_ASSERT_EQUAL(vfs_getxattr(f, "user.a", buf, 6, &user), 6);
	CU_ASSERT_EQUAL(memcmp(buf, "value3", 6), 0);
	/* an empty value is an attribute, not a removal */
	OK(vfs_setxattr(f, "user.empty", "", 0, 0, NULL));
	CU_ASSERT_EQUAL(vfs_getxattr(f, "user.empty", buf, sizeof(buf), NULL), 0);
	OK(vfs_removexattr(f, "user.empty", NULL));
	ERR(vfs_removexattr(f, "user.empty", NULL), ENODATA);
	ERR(vfs_getxattr(f, "user.empty", buf, sizeof(buf), NULL), ENODATA);
	iput(f);
	OK(vfs_unlink(root, "x"));
	iput(root);
}

static void test_limits(void)
{
	struct inode *root = vfs_root(), *f = new_file(root, "lim", S_IFREG | 0644);
	char name[XATTR_NAME_MAX + 8];
	char *big = calloc(1, XATTR_SIZE_MAX + 1);

	CU_ASSERT_FATAL(big != NULL);
	ERR(vfs_setxattr(f, "", "v", 1, 0, NULL), ERANGE);
	memcpy(name, "user.", 5);
	memset(name + 5, 'n', XATTR_NAME_MAX - 5);
	name[XATTR_NAME_MAX] = '\0'; /* 255 bytes: the longest */
	OK(vfs_setxattr(f, name, "v", 1, 0, NULL));
	CU_ASSERT_EQUAL(vfs_getxattr(f, name, NULL, 0, NULL), 1);
	name[XATTR_NAME_MAX] = 'n';
	name[XATTR_NAME_MAX + 1] = '\0'; /* 256 */
	ERR(vfs_setxattr(f, name, "v", 1, 0, NULL), ERANGE);
	ERR(vfs_getxattr(f, name, NULL, 0, NULL), ERANGE);
	OK(vfs_setxattr(f, "user.big", big, XATTR_SIZE_MAX, 0, NULL));
	CU_ASSERT_EQUAL(vfs_getxattr(f, "user.big", big, XATTR_SIZE_MAX + 1, NULL), XATTR_SIZE_MAX);
	ERR(vfs_setxattr(f, "user.big", big, XATTR_SIZE_MAX + 1, 0, NULL), E2BIG);
	free(big);
	iput(f);
	OK(vfs_unlink(root, "lim"));
	iput(root);
}

static void test_list(void)
{
	struct inode *root = vfs_root(), *f = new_file(root, "l", S_IFREG | 0644);
	static const char want_root[] = "user.b\0user.a\0trusted.t\0security.s\0";
	static const char want_user[] = "user.b\0user.a\0security.s\0";
	char buf[128];

	CU_ASSERT_EQUAL(vfs_listxattr(f, NULL, 0, NULL), 0);
	OK(vfs_setxattr(f, "user.b", "2", 1, 0, NULL));
	OK(vfs_setxattr(f, "trusted.t", "3", 1, 0, NULL));
	OK(vfs_setxattr(f, "user.a", "1", 1, 0, NULL));
	OK(vfs_setxattr(f, "security.s", "4", 1, 0, NULL));
	/* in descending name order (6.18's simple_xattrs rbtree), trusted.
	 * for root only */
	CU_ASSERT_EQUAL(vfs_listxattr(f, NULL, 0, NULL), (ssize_t)sizeof(want_root) - 1);
	CU_ASSERT_EQUAL(vfs_listxattr(f, buf, sizeof(buf), NULL), (ssize_t)sizeof(want_root) - 1);
	CU_ASSERT_EQUAL(memcmp(buf, want_root, sizeof(want_root) - 1), 0);
	ERR(vfs_listxattr(f, buf, sizeof(want_root) - 2, NULL), ERANGE);
	CU_ASSERT_EQUAL(vfs_listxattr(f, buf, sizeof(buf), &user), (ssize_t)sizeof(want_user) - 1);
	CU_ASSERT_EQUAL(memcmp(buf, want_user, sizeof(want_user) - 1), 0);
	CU_ASSERT_EQUAL(vfs_listxattr(f, NULL, 0, &user), (ssize_t)sizeof(want_user) - 1);
	/* freed with the inode: the instance teardown reports leaks */
	iput(f);
	OK(vfs_unlink(root, "l"));
	iput(root);
}

static void test_namespaces(void)
{
	struct inode *root = vfs_root(), *f = new_file(root, "ns", S_IFREG | 0644);
	struct inode *p = new_file(root, "fifo", S_IFIFO | 0644), *l = NULL;
	struct kstat st0, st1;
	char buf[8];

	/* no handler: EOPNOTSUPP (ACLs too); a prefix alone: EINVAL */
	ERR(vfs_setxattr(f, "foo.bar", "v", 1, 0, NULL), EOPNOTSUPP);
	ERR(vfs_setxattr(f, "user.", "v", 1, 0, NULL), EINVAL);
	ERR(vfs_getxattr(f, "system.posix_acl_access", buf, sizeof(buf), NULL), EOPNOTSUPP);
	/* trusted.: capable only */
	ERR(vfs_setxattr(f, "trusted.t", "v", 1, 0, &user), EPERM);
	OK(vfs_setxattr(f, "trusted.t", "v", 1, 0, NULL));
	ERR(vfs_getxattr(f, "trusted.t", buf, sizeof(buf), &user), ENODATA);
	ERR(vfs_removexattr(f, "trusted.t", &user), EPERM);
	/* security.: anyone reads, the capable write */
	ERR(vfs_setxattr(f, "security.s", "v", 1, 0, &user), EPERM);
	OK(vfs_setxattr(f, "security.s", "v", 1, 0, NULL));
	CU_ASSERT_EQUAL(vfs_getxattr(f, "security.s", buf, sizeof(buf), &user), 1);
	/* user.: regular files and directories only */
	OK(vfs_setxattr(root, "user.d", "v", 1, 0, &user));
	OK(vfs_removexattr(root, "user.d", &user));
	ERR(vfs_setxattr(p, "user.x", "v", 1, 0, NULL), EPERM);
	ERR(vfs_getxattr(p, "user.x", buf, sizeof(buf), NULL), ENODATA);
	OK(vfs_symlink(root, "sl", "ns", NULL, &l));
	ERR(vfs_setxattr(l, "user.x", "v", 1, 0, NULL), EPERM);
	OK(vfs_setxattr(l, "trusted.x", "v", 1, 0, NULL));
	/* a change is a ctime change */
	vfs_getattr(f, &st0);
	while (1) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_sec != st0.ctime.tv_sec || now.tv_nsec != st0.ctime.tv_nsec)
			break;
	}
	OK(vfs_setxattr(f, "user.c", "v", 1, 0, NULL));
	vfs_getattr(f, &st1);
	CU_ASSERT(st1.ctime.tv_sec != st0.ctime.tv_sec || st1.ctime.tv_nsec != st0.ctime.tv_nsec);
	iput(l);
	iput(p);
	iput(f);
	OK(vfs_unlink(root, "sl"));
	OK(vfs_unlink(root, "fifo"));
	OK(vfs_unlink(root, "ns"));
	iput(root);
}

RVTEST_SUITE(xattr, rvtest_instance_init, rvtest_instance_cleanup, RVTEST(test_set_get_flags),
	     RVTEST(test_limits), RVTEST(test_list), RVTEST(test_namespaces))
