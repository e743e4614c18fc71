// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/xattr.c - extended attributes, as tmpfs keeps them (Linux 6.x:
 * fs/xattr.c's syscall checks and simple_xattr_*, mm/shmem.c's handlers).
 *
 * Namespaces: "user." (regular files and directories only), "trusted."
 * (capable callers only: fsuid 0 in the model; to others a write is
 * -EPERM, a read -ENODATA, and listings hide them as simple_xattr_list
 * does), "security." (anyone reads,
 * only capable callers write: cap_inode_setxattr).  Any other prefix,
 * "system." (POSIX ACLs) included, is -EOPNOTSUPP: no handler; a prefix
 * alone ("user.") is -EINVAL.
 * Limits: a name of 1..XATTR_NAME_MAX bytes (else -ERANGE), a value of at
 * most XATTR_SIZE_MAX bytes (else -E2BIG), a listing of at most
 * XATTR_LIST_MAX bytes.  XATTR_CREATE on an existing name is -EEXIST,
 * XATTR_REPLACE or remove of a missing one -ENODATA; a get or list whose
 * buffer is too small is -ERANGE, and size 0 asks for the length.  Setting
 * an empty value creates an empty attribute (__vfs_setxattr's "empty EA, do
 * not remove").  A change updates ctime (shmem_xattr_handler_set).
 *
 * Order: simple_xattrs (6.2 to 6.18) is an rbtree whose comparator
 * (rbtree_simple_xattr_cmp) returns strcmp(node, key), the other way round
 * from the usual, so simple_xattr_list's in-order walk yields names in
 * descending strcmp order; the model's list keeps that order.
 *
 * Locking: inode->i_xattrs is a list sorted as above, under
 * inode->i_xattr_lock (simple_xattrs->lock).  Writers also hold i_rwsem
 * exclusive (vfs_setxattr/vfs_removexattr take inode_lock), so a
 * check-then-set with XATTR_CREATE/XATTR_REPLACE is atomic; readers take
 * only i_xattr_lock.  Eviction frees the list (simple_xattrs_free).
 */
#include "vfs/internal.h"

#include <stdlib.h>
#include <string.h>

struct simple_xattr {
	struct list_head list; /* inode->i_xattrs, by name; i_xattr_lock */
	char *name;
	size_t size;
	char value[];
};

RV_STAT_DEFINE(xattr_sets, "extended attributes set or removed");

enum xattr_ns { XNS_NONE, XNS_BARE, XNS_USER, XNS_TRUSTED, XNS_SECURITY };

static enum xattr_ns xattr_namespace(const char *name)
{
	static const struct {
		const char *prefix;
		enum xattr_ns ns;
	} handlers[] = {
	    {"user.", XNS_USER},
	    {"trusted.", XNS_TRUSTED},
	    {"security.", XNS_SECURITY},
	};

	for (size_t i = 0; i < ARRAY_SIZE(handlers); i++) {
		size_t n = strlen(handlers[i].prefix);

		if (!strncmp(name, handlers[i].prefix, n))
			return name[n] ? handlers[i].ns : XNS_BARE;
	}
	return XNS_NONE;
}

static bool capable(const struct cred *cred)
{
	return !cred || cred->fsuid == 0;
}

/* fs/xattr.c's name checks: 1..XATTR_NAME_MAX bytes, then a handler. */
static int xattr_check_name(const char *name, enum xattr_ns *ns)
{
	size_t len = strnlen(name, XATTR_NAME_MAX + 1);

	if (len == 0 || len > XATTR_NAME_MAX)
		return -ERANGE;
	*ns = xattr_namespace(name);
	/* xattr_resolve_name: no handler, or a handler's prefix alone */
	if (*ns == XNS_NONE)
		return -EOPNOTSUPP;
	return *ns == XNS_BARE ? -EINVAL : 0;
}

/*
 * xattr_permission and cap_inode_setxattr, less the mode-bit checks the
 * model leaves to its caller (the kernel checks them above FUSE).
 */
static int xattr_permission(const struct inode *inode, enum xattr_ns ns, bool write,
			    const struct cred *cred)
{
	switch (ns) {
	case XNS_TRUSTED: /* invisible to the unprivileged */
		return capable(cred) ? 0 : write ? -EPERM : -ENODATA;
	case XNS_SECURITY:
		/* cap_inode_setxattr/removexattr ask for CAP_SYS_ADMIN
		 * (CAP_SETFCAP for security.capability); under FUSE the kernel
		 * asked already, and cap_inode_killpriv removes
		 * security.capability with the writer's credentials, unchecked
		 * (security/commoncap.c, 6.x) */
		return !write || capable(cred) || (cred && cred->xattr_checked) ? 0 : -EPERM;
	case XNS_USER:
		if (!S_ISREG(inode->i_mode) && !S_ISDIR(inode->i_mode))
			return write ? -EPERM : -ENODATA;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/* The entry for name, or the first one after it in listing order
 * (descending names): the insertion point. */
static struct simple_xattr *xattr_find(struct inode *inode, const char *name, bool *found)
{
	struct simple_xattr *x;

	list_for_each_entry(x, &inode->i_xattrs, list) {
		int c = strcmp(name, x->name);

		if (c >= 0) {
			*found = c == 0;
			return x;
		}
	}
	*found = false;
	return NULL;
}

static int __vfs_setxattr(struct inode *inode, const char *name, const void *value, size_t size,
			  int flags)
{
	struct simple_xattr *x, *new = NULL;
	bool found;

	if (value) {
		new = rv_malloc("xattr", sizeof(*new) + size);
		if (!new)
			return -ENOMEM;
		new->name = rv_strdup("xattr", name);
		if (!new->name) {
			free(new);
			return -ENOMEM;
		}
		new->size = size;
		memcpy(new->value, value, size);
	}
	spin_lock(&inode->i_xattr_lock);
	x = xattr_find(inode, name, &found);
	if (found ? (flags & XATTR_CREATE) : ((flags & XATTR_REPLACE) || !value)) {
		spin_unlock(&inode->i_xattr_lock);
		if (new) {
			free(new->name);
			free(new);
		}
		return found ? -EEXIST : -ENODATA;
	}
	if (new) /* before x, or at the end */
		list_add_tail(&new->list, x ? &x->list : &inode->i_xattrs);
	if (found)
		list_del_init(&x->list);
	spin_unlock(&inode->i_xattr_lock);
	if (found) {
		free(x->name);
		free(x);
	}
	return 0;
}

int vfs_setxattr(struct inode *inode, const char *name, const void *value, size_t size, int flags,
		 const struct cred *cred)
{
	enum xattr_ns ns;
	int err;

	rv_rcu_ensure();
	if (flags & ~(XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	err = xattr_check_name(name, &ns);
	if (err)
		return err;
	if (size > XATTR_SIZE_MAX)
		return -E2BIG;
	err = xattr_permission(inode, ns, true, cred);
	if (err)
		return err;
	down_write(&inode->i_rwsem);
	err = __vfs_setxattr(inode, name, value ? value : "", size, flags);
	up_write(&inode->i_rwsem);
	if (!err) {
		inode_touch(inode, false, true);
		rv_stat_inc(xattr_sets);
	}
	return err;
}

int vfs_removexattr(struct inode *inode, const char *name, const struct cred *cred)
{
	enum xattr_ns ns;
	int err;

	rv_rcu_ensure();
	err = xattr_check_name(name, &ns);
	if (err)
		return err;
	err = xattr_permission(inode, ns, true, cred);
	if (err)
		return err;
	down_write(&inode->i_rwsem);
	err = __vfs_setxattr(inode, name, NULL, 0, XATTR_REPLACE);
	up_write(&inode->i_rwsem);
	if (!err) {
		inode_touch(inode, false, true);
		rv_stat_inc(xattr_sets);
	}
	return err;
}

ssize_t vfs_getxattr(struct inode *inode, const char *name, void *buf, size_t size,
		     const struct cred *cred)
{
	struct simple_xattr *x;
	enum xattr_ns ns;
	ssize_t ret;
	bool found;
	int err;

	rv_rcu_ensure();
	err = xattr_check_name(name, &ns);
	if (err)
		return err;
	err = xattr_permission(inode, ns, false, cred);
	if (err)
		return err;
	if (size > XATTR_SIZE_MAX)
		size = XATTR_SIZE_MAX;
	spin_lock(&inode->i_xattr_lock);
	x = xattr_find(inode, name, &found);
	if (!found) {
		ret = -ENODATA;
	} else {
		ret = (ssize_t)x->size;
		if (size) {
			if (size < x->size)
				ret = -ERANGE;
			else
				memcpy(buf, x->value, x->size);
		}
	}
	spin_unlock(&inode->i_xattr_lock);
	return ret;
}

ssize_t vfs_listxattr(struct inode *inode, char *buf, size_t size, const struct cred *cred)
{
	struct simple_xattr *x;
	size_t used = 0;
	bool trusted = capable(cred);
	ssize_t ret = 0;

	rv_rcu_ensure();
	if (size > XATTR_LIST_MAX)
		size = XATTR_LIST_MAX;
	spin_lock(&inode->i_xattr_lock);
	list_for_each_entry(x, &inode->i_xattrs, list) {
		size_t n = strlen(x->name) + 1;

		/* simple_xattr_list: trusted.* only for the capable */
		if (!trusted && xattr_namespace(x->name) == XNS_TRUSTED)
			continue;
		if (size) {
			if (used + n > size) {
				ret = -ERANGE;
				break;
			}
			memcpy(buf + used, x->name, n);
		}
		used += n;
	}
	spin_unlock(&inode->i_xattr_lock);
	if (ret)
		return ret;
	/* listxattr(2): a list longer than any buffer may be */
	if (used > XATTR_LIST_MAX)
		return -E2BIG;
	return (ssize_t)used;
}

void inode_free_xattrs(struct inode *inode)
{
	struct simple_xattr *x, *next;

	list_for_each_entry_safe(x, next, &inode->i_xattrs, list) {
		list_del_init(&x->list);
		free(x->name);
		free(x);
	}
}
