// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/namei.c - path walk (RCU mode with reference-walk fallback), symlink
 * following, and the namespace operations (create, mkdir, mknod, symlink,
 * link, unlink, rmdir, rename, readdir) in both API shapes (fs.h).
 *
 * RCU walk: no references and no locks.  Each step samples the child's
 * d_seq in __d_lookup_rcu and then validates the parent's d_seq, so the
 * (parent, name) -> child association held at some instant; a miss, a
 * failed validation or a failed legitimization (lockref_get_not_dead on
 * the final dentry, then its d_seq) returns -ECHILD and the whole walk is
 * redone in reference mode (counted as namei_rcu_fallbacks).  ".." also
 * validates s_rename_lock.  Nothing in RCU mode sleeps.
 *
 * Reference walk: each step holds a reference on the current directory;
 * d_lookup retries a miss while s_rename_lock moved, and lookup_slow takes
 * the directory's i_rwsem shared and allocates a negative dentry (so a
 * lookup that races a rename over an existing name waits for the rename
 * and finds the moved dentry: never ENOENT for the target).
 *
 * Namespace operations take the kernel's locks in the kernel's order:
 * s_vfs_rename_mutex (cross-directory rename) -> parent i_rwsem (ancestor
 * first, else by address: lock_rename) -> victim/target i_rwsem.  The
 * directory's readdir offsets (i_dir_offsets) and i_nr_children change only
 * with the directory's i_rwsem held exclusive; vfs_readdir holds it shared,
 * so offsets are stable cookies: removing entries never moves others.
 */
#include "vfs/internal.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

RV_STAT_DEFINE(namei_rcu_walks, "path walks completed in RCU mode");
RV_STAT_DEFINE(namei_rcu_fallbacks, "path walks redone in reference mode (-ECHILD)");
RV_STAT_DEFINE(namei_ref_walks, "path walks in reference mode");

struct nameidata {
	struct dentry *root;
	struct dentry *dentry; /* current directory; referenced in ref mode */
	uint32_t seq;	       /* RCU: d_seq sample of dentry */
	uint32_t r_seq;	       /* RCU: s_rename_lock sample */
	unsigned int flags;
	int total_links;
	int which;
	bool rcu;
	char buf[2][PATH_MAX_LEN + 2];
};

static bool is_dot(const char *n, uint32_t len)
{
	return len == 1 && n[0] == '.';
}

static bool is_dotdot(const char *n, uint32_t len)
{
	return len == 2 && n[0] == '.' && n[1] == '.';
}

/* ---- readdir offsets --------------------------------------------------- */

/* A directory's st_size as shmem keeps it: BOGO_DIRENT_SIZE for ".", ".."
 * and each entry (shmem_mknod/link/unlink/rmdir/rename2 add or subtract it;
 * RENAME_EXCHANGE moves none).  Directory i_rwsem held. */
static void dir_update_size(struct inode *dir)
{
	inode_set_size(dir, (int64_t)(2 + dir->i_nr_children) * BOGO_DIRENT_SIZE);
}

int dir_add_offset(struct inode *dir, struct dentry *d)
{
	uint64_t off = dir->i_dir_next_offset++;
	int err = xa_insert(&dir->i_dir_offsets, off, d);

	if (err)
		return err;
	d->d_offset = off;
	dir->i_nr_children++;
	dir_update_size(dir);
	return 0;
}

void dir_remove_offset(struct inode *dir, struct dentry *d)
{
	if (xa_load(&dir->i_dir_offsets, d->d_offset) == d) {
		xa_erase(&dir->i_dir_offsets, d->d_offset);
		dir->i_nr_children--;
		dir_update_size(dir);
	}
	d->d_offset = 0;
}

/* ---- the walk ---------------------------------------------------------- */

/*
 * Replace the walk's remaining path by link + "/" + rest.  An absolute link
 * restarts at the root.  Returns the new remaining path or NULL with *err.
 */
static const char *splice_link(struct nameidata *nd, const char *link, const char *rest, int *err)
{
	size_t ll = strlen(link), rl = strlen(rest);
	char *out;

	if (++nd->total_links > MAXSYMLINKS) {
		*err = -ELOOP;
		return NULL;
	}
	if (ll == 0) {
		*err = -ENOENT;
		return NULL;
	}
	if (ll + 1 + rl > PATH_MAX_LEN) {
		*err = -ENAMETOOLONG;
		return NULL;
	}
	nd->which ^= 1;
	out = nd->buf[nd->which];
	memcpy(out, link, ll);
	if (rl) {
		out[ll] = '/';
		memcpy(out + ll + 1, rest, rl + 1);
	} else {
		out[ll] = 0; /* keep the link's own trailing slash semantics */
	}
	if (link[0] == '/') {
		if (nd->rcu) {
			nd->dentry = nd->root;
			nd->seq = raw_read_seqcount(&nd->root->d_seq) & ~1u;
		} else {
			dput(nd->dentry);
			nd->dentry = dget(nd->root);
		}
	}
	return out;
}

/*
 * One RCU step.  Returns 0 (moved on), 1 with *link set (a symlink to
 * follow), or -errno (-ECHILD: redo in reference mode).
 */
static int step_rcu(struct nameidata *nd, const char *name, uint32_t len, bool last, bool follow,
		    const char **link)
{
	struct dentry *parent = nd->dentry, *child;
	struct inode *inode;
	uint32_t cseq, mode;

	if (is_dot(name, len))
		return 0;
	if (is_dotdot(name, len)) {
		if (parent == nd->root)
			return 0;
		child = READ_ONCE(parent->d_parent);
		cseq = raw_read_seqcount(&child->d_seq) & ~1u;
		if (read_seqcount_retry(&parent->d_seq, nd->seq) ||
		    (!RV_MUTANT(walk_dotdot_no_rename_check) &&
		     read_seqretry(&parent->d_sb->s_rename_lock, nd->r_seq)))
			return -ECHILD;
		nd->dentry = child;
		nd->seq = cseq;
		return 0;
	}
	child = __d_lookup_rcu(parent, name, len, &cseq);
	if (!child)
		return -ECHILD; /* lookup_slow decides (and caches a negative) */
	RV_INJECT("walk_rcu_after_lookup");
	if (!RV_MUTANT(walk_no_parent_seq_check) && read_seqcount_retry(&parent->d_seq, nd->seq))
		return -ECHILD;
	/* explorer only: Linux loads the inode later (step_into, after
	 * d_revalidate and the mount checks), so the child may change between
	 * the parent's validation and this load; its own d_seq says so */
	rv_sched_point("walk_rcu_before_inode");
	inode = READ_ONCE(child->d_inode);
	if (!inode)
		return !RV_MUTANT(walk_negative_no_seq_check) &&
			       read_seqcount_retry(&child->d_seq, cseq)
			   ? -ECHILD
			   : -ENOENT;
	mode = READ_ONCE(inode->i_mode);
	if (S_ISLNK(mode) && follow) {
		*link = READ_ONCE(inode->i_link); /* immutable; inode freed by RCU */
		if (read_seqcount_retry(&child->d_seq, cseq))
			return -ECHILD;
		return 1;
	}
	if (!last && !S_ISDIR(mode))
		return read_seqcount_retry(&child->d_seq, cseq) ? -ECHILD : -ENOTDIR;
	nd->dentry = child;
	nd->seq = cseq;
	return 0;
}

/* One reference-mode step; link text copied into linkbuf. */
static int step_ref(struct nameidata *nd, const char *name, uint32_t len, bool last, bool follow,
		    char *linkbuf)
{
	struct dentry *parent = nd->dentry, *child;
	struct inode *inode;
	uint32_t mode;
	int err;

	if (is_dot(name, len))
		return 0;
	if (is_dotdot(name, len)) {
		if (parent == nd->root)
			return 0;
		nd->dentry = dget_parent(parent);
		dput(parent);
		return 0;
	}
	child = d_lookup(parent, name, len);
	if (!child) {
		struct inode *dir = parent->d_inode;

		/* lookup_slow: a rename or create in this directory holds
		 * i_rwsem exclusive; we see its result, not its middle */
		if (!dir)
			return -ENOENT;
		down_read(&dir->i_rwsem);
		err = d_lookup_or_alloc(parent, name, len, &child);
		up_read(&dir->i_rwsem);
		if (err)
			return err;
	}
	rcu_read_lock();
	inode = READ_ONCE(child->d_inode);
	if (!inode) {
		rcu_read_unlock();
		dput(child);
		return -ENOENT;
	}
	mode = READ_ONCE(inode->i_mode);
	if (S_ISLNK(mode) && follow) {
		strcpy(linkbuf, inode->i_link);
		rcu_read_unlock();
		dput(child);
		return 1;
	}
	rcu_read_unlock();
	if (!last && !S_ISDIR(mode)) {
		dput(child);
		return -ENOTDIR;
	}
	dput(parent);
	nd->dentry = child;
	return 0;
}

/* Walk `path` from the root; on success nd->dentry is the final dentry
 * (unreferenced in RCU mode). */
static int link_path_walk(struct nameidata *nd, const char *path)
{
	char linkbuf[PATH_MAX_LEN + 1];
	const char *p = path;
	bool must_dir = false;

	for (;;) {
		const char *comp, *rest;
		const char *link = NULL;
		uint32_t len;
		bool last, follow;
		int ret;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		while (*p && *p != '/')
			p++;
		len = (uint32_t)(p - comp);
		if (len > NAME_MAX_LEN)
			return -ENAMETOOLONG;
		rest = p;
		while (*rest == '/')
			rest++;
		last = *rest == 0;
		if (last && rest != p)
			must_dir = true;
		follow = !last || must_dir || (nd->flags & LOOKUP_FOLLOW);
		if (nd->rcu)
			ret = step_rcu(nd, comp, len, last, follow, &link);
		else
			ret = step_ref(nd, comp, len, last, follow, linkbuf);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			int err = 0;

			p = splice_link(nd, nd->rcu ? link : linkbuf, rest, &err);
			if (!p)
				return err;
			continue;
		}
		p = rest;
	}
	if (must_dir) {
		struct inode *inode = READ_ONCE(nd->dentry->d_inode);

		if (!inode || !S_ISDIR(READ_ONCE(inode->i_mode)))
			return -ENOTDIR;
	}
	return 0;
}

static int path_lookup_rcu(const char *path, unsigned int flags, struct dentry **out,
			   struct nameidata *nd)
{
	struct super_block *sb = rv_sb;
	struct dentry *d;
	int err;

	nd->rcu = true;
	nd->flags = flags;
	nd->total_links = 0;
	nd->which = 0;
	rcu_read_lock();
	nd->root = sb->s_root;
	nd->r_seq = read_seqbegin(&sb->s_rename_lock);
	nd->dentry = nd->root;
	nd->seq = raw_read_seqcount(&nd->root->d_seq) & ~1u;
	err = link_path_walk(nd, path);
	if (err) {
		rcu_read_unlock();
		return err;
	}
	/* legitimize: a reference that fails on a dead dentry, then the
	 * d_seq sample must still hold */
	d = nd->dentry;
	if (!lockref_get_not_dead(&d->d_lockref)) {
		rcu_read_unlock();
		return -ECHILD;
	}
	if (!RV_MUTANT(walk_legitimize_no_seq_check) && read_seqcount_retry(&d->d_seq, nd->seq)) {
		rcu_read_unlock();
		dput(d);
		return -ECHILD;
	}
	rcu_read_unlock();
	*out = d;
	return 0;
}

static int path_lookup_ref(const char *path, unsigned int flags, struct dentry **out,
			   struct nameidata *nd)
{
	int err;

	nd->rcu = false;
	nd->flags = flags;
	nd->total_links = 0;
	nd->which = 0;
	nd->root = rv_sb->s_root;
	nd->dentry = dget(nd->root);
	err = link_path_walk(nd, path);
	if (err) {
		dput(nd->dentry);
		return err;
	}
	if (!READ_ONCE(nd->dentry->d_inode)) {
		dput(nd->dentry);
		return -ENOENT;
	}
	*out = nd->dentry;
	return 0;
}

static int check_path(const char *path)
{
	if (!path)
		return -EFAULT;
	if (!*path)
		return -ENOENT;
	if (strnlen(path, PATH_MAX_LEN) >= PATH_MAX_LEN)
		return -ENAMETOOLONG;
	return 0;
}

int kern_path(const char *path, unsigned int flags, struct dentry **out)
{
	struct nameidata nd; /* ~8 KiB on the stack: the symlink buffers are
			      * only written when a link is followed */
	int err = check_path(path);

	if (err)
		return err;
	rv_rcu_ensure();
	if (!(flags & LOOKUP_NORCU)) {
		err = path_lookup_rcu(path, flags, out, &nd);
		if (err != -ECHILD) {
			if (!err)
				rv_stat_inc(namei_rcu_walks);
			return err;
		}
		rv_stat_inc(namei_rcu_fallbacks);
	}
	rv_stat_inc(namei_ref_walks);
	return path_lookup_ref(path, flags, out, &nd);
}

/* ---- splitting a path into parent + last component ------------------- */

enum last_type { LAST_NORM, LAST_ROOT, LAST_DOT, LAST_DOTDOT };

struct parent_path {
	struct dentry *dir; /* referenced */
	char name[NAME_MAX_LEN + 1];
	uint32_t len;
	int type;
	bool trailing_slash;
};

static int path_parentat(const char *path, struct parent_path *pp)
{
	char *dirpart;
	size_t n;
	const char *end, *slash;
	int err = check_path(path);

	if (err)
		return err;
	n = strlen(path);
	end = path + n;
	pp->trailing_slash = false;
	while (end > path && end[-1] == '/') {
		end--;
		pp->trailing_slash = true;
	}
	if (end == path) { /* "/" or "///" */
		pp->type = LAST_ROOT;
		pp->len = 0;
		pp->name[0] = 0;
		pp->dir = dget(rv_sb->s_root);
		return 0;
	}
	slash = end;
	while (slash > path && slash[-1] != '/')
		slash--;
	if ((size_t)(end - slash) > NAME_MAX_LEN)
		return -ENAMETOOLONG;
	pp->len = (uint32_t)(end - slash);
	memcpy(pp->name, slash, pp->len);
	pp->name[pp->len] = 0;
	pp->type = is_dot(pp->name, pp->len)	  ? LAST_DOT
		   : is_dotdot(pp->name, pp->len) ? LAST_DOTDOT
						  : LAST_NORM;
	dirpart = strndup(path, (size_t)(slash - path));
	if (!dirpart)
		return -ENOMEM;
	if (!*dirpart) {
		pp->dir = dget(rv_sb->s_root);
		err = 0;
	} else {
		err = kern_path(dirpart, LOOKUP_FOLLOW, &pp->dir);
		if (!err && !S_ISDIR(pp->dir->d_inode->i_mode)) {
			dput(pp->dir);
			err = -ENOTDIR;
		}
	}
	free(dirpart);
	return err;
}

/* ---- namespace operations on (directory dentry, name) ---------------- */

static int check_name(const char *name, uint32_t len)
{
	if (len == 0)
		return -ENOENT;
	if (len > NAME_MAX_LEN)
		return -ENAMETOOLONG;
	if (memchr(name, '/', len))
		return -EINVAL;
	return 0;
}

static int dir_inode_check(struct dentry *dir, struct inode **dinode)
{
	struct inode *inode = READ_ONCE(dir->d_inode);

	if (!inode)
		return -ENOENT;
	if (!S_ISDIR(inode->i_mode))
		return -ENOTDIR;
	*dinode = inode;
	return 0;
}

/* The checks the one-name operations start with (rename orders its own). */
static int dir_name_check(struct dentry *dir, const char *name, uint32_t len, struct inode **dinode)
{
	int err = dir_inode_check(dir, dinode);

	return err ? err : check_name(name, len);
}

/*
 * mode_strip_sgid (fs/inode.c, Linux 6.0+, applied by vfs_prepare_mode
 * before ->create/->mknod): a non-directory created group-executable and
 * setgid in a setgid directory keeps S_ISGID only if the creator is in the
 * directory's group (the group the file gets) or capable (CAP_FSETID; in
 * the model: fsuid 0).  NULL cred is root.
 */
static uint32_t mode_strip_sgid(const struct inode *dir, uint32_t mode, const struct cred *cred)
{
	if ((mode & (S_ISGID | S_IXGRP)) != (S_ISGID | S_IXGRP))
		return mode;
	if (S_ISDIR(mode) || !(dir->i_mode & S_ISGID))
		return mode;
	if (!cred || cred->mode_prepared || cred->fsuid == 0 || cred->fsgid == dir->i_gid)
		return mode;
	return mode & ~(uint32_t)S_ISGID;
}

/* Create an object at the negative dentry d; dir i_rwsem held exclusive. */
static int __create_locked(struct inode *dinode, struct dentry *d, uint32_t mode, dev_t rdev,
			   const char *target, const struct cred *cred, struct inode **out)
{
	struct inode *inode;
	bool long_link = S_ISLNK(mode) && strlen(target) >= SHORT_SYMLINK_LEN;
	int err;

	mode = mode_strip_sgid(dinode, mode, cred);
	/* shmem_symlink: a target of SHORT_SYMLINK_LEN bytes or more lives in
	 * a page of its own, which takes a block (ENOSPC on a full mount) */
	if (long_link && sb_reserve_blocks(dinode->i_sb, 1))
		return -ENOSPC;
	inode = new_inode(dinode->i_sb, mode, cred);
	if (!inode) {
		if (long_link)
			sb_release_blocks(dinode->i_sb, 1);
		return -ENOMEM;
	}
	if (long_link)
		inode->i_data.nrblocks = 1; /* released at eviction */
	/*
	 * inode_init_owner (fs/inode.c, 6.x): in a setgid directory the new
	 * inode takes the directory's group, and a new directory inherits
	 * S_ISGID; elsewhere the creator's fsgid (new_inode set it).  Not
	 * published yet: no lock needed.
	 */
	if (dinode->i_mode & S_ISGID) {
		inode->i_gid = dinode->i_gid;
		if (S_ISDIR(mode))
			inode->i_mode |= S_ISGID;
	}
	inode->i_rdev = rdev;
	if (S_ISLNK(mode)) {
		inode->i_link = rv_strdup("symlink", target);
		if (!inode->i_link) {
			iput(inode);
			return -ENOMEM;
		}
		inode->i_size = (int64_t)strlen(target);
	}
	if (S_ISDIR(mode)) {
		inode->i_nlink = 2;
		inode->i_size = 2 * BOGO_DIRENT_SIZE;
	}
	err = dir_add_offset(dinode, d);
	if (err) {
		iput(inode);
		return err;
	}
	if (out) {
		ihold(inode);
		*out = inode;
	}
	d_instantiate(d, inode); /* consumes new_inode's reference */
	d_make_persistent(d);
	if (S_ISDIR(mode))
		inode_inc_nlink(dinode);
	inode_touch(dinode, true, true);
	return 0;
}

static int do_create_at(struct dentry *dir, const char *name, uint32_t len, uint32_t mode,
			dev_t rdev, const char *target, const struct cred *cred, struct inode **out)
{
	struct inode *dinode;
	struct dentry *d;
	int err;

	err = dir_name_check(dir, name, len, &dinode);
	if (err)
		return err;
	if (is_dot(name, len) || is_dotdot(name, len))
		return -EEXIST;
	if (target) {
		size_t tl = strlen(target);

		if (tl == 0)
			return -ENOENT;
		if (tl >= PATH_MAX_LEN)
			return -ENAMETOOLONG;
	}
	down_write(&dinode->i_rwsem);
	err = d_lookup_or_alloc(dir, name, len, &d);
	if (err)
		goto out_unlock;
	if (d->d_inode)
		err = -EEXIST;
	else
		err = __create_locked(dinode, d, mode, rdev, target, cred, out);
	dput(d);
out_unlock:
	up_write(&dinode->i_rwsem);
	return err;
}

static int do_unlink_at(struct dentry *dir, const char *name, uint32_t len)
{
	struct inode *dinode, *inode;
	struct dentry *d;
	int err;

	err = dir_name_check(dir, name, len, &dinode);
	if (err)
		return err;
	if (is_dot(name, len) || is_dotdot(name, len))
		return -EISDIR;
	down_write(&dinode->i_rwsem);
	err = d_lookup_or_alloc(dir, name, len, &d);
	if (err)
		goto out_unlock;
	inode = d->d_inode;
	if (!inode) {
		err = -ENOENT;
	} else if (S_ISDIR(inode->i_mode)) {
		err = -EISDIR;
	} else {
		down_write(&inode->i_rwsem);
		dir_remove_offset(dinode, d);
		inode_dec_nlink(inode);
		up_write(&inode->i_rwsem);
		inode_touch(dinode, true, true);
		d_delete_persistent(d);
	}
	dput(d);
out_unlock:
	up_write(&dinode->i_rwsem);
	return err;
}

static int do_rmdir_at(struct dentry *dir, const char *name, uint32_t len)
{
	struct inode *dinode, *inode;
	struct dentry *d;
	int err;

	err = dir_name_check(dir, name, len, &dinode);
	if (err)
		return err;
	if (is_dot(name, len))
		return -EINVAL;
	if (is_dotdot(name, len))
		return -ENOTEMPTY;
	down_write(&dinode->i_rwsem);
	err = d_lookup_or_alloc(dir, name, len, &d);
	if (err)
		goto out_unlock;
	inode = d->d_inode;
	if (!inode) {
		err = -ENOENT;
	} else if (!S_ISDIR(inode->i_mode)) {
		err = -ENOTDIR;
	} else {
		down_write(&inode->i_rwsem);
		if (inode->i_nr_children) {
			err = -ENOTEMPTY;
		} else {
			inode->i_flags |= S_DEAD;
			inode_set_nlink(inode, 0);
			inode_touch(inode, false, true);
		}
		up_write(&inode->i_rwsem);
		if (!err) {
			dir_remove_offset(dinode, d);
			inode_dec_nlink(dinode);
			inode_touch(dinode, true, true);
			shrink_dcache_parent_negative(d);
			d_delete_persistent(d);
		}
	}
	dput(d);
out_unlock:
	up_write(&dinode->i_rwsem);
	return err;
}

static int do_link_at(struct inode *inode, struct dentry *dir, const char *name, uint32_t len)
{
	struct inode *dinode;
	struct dentry *d;
	int err;

	err = dir_name_check(dir, name, len, &dinode);
	if (err)
		return err;
	if (is_dot(name, len) || is_dotdot(name, len))
		return -EEXIST;
	if (S_ISDIR(inode->i_mode))
		return -EPERM;
	down_write(&dinode->i_rwsem);
	err = d_lookup_or_alloc(dir, name, len, &d);
	if (err)
		goto out_unlock;
	if (d->d_inode) {
		err = -EEXIST;
		goto out_dput;
	}
	down_write(&inode->i_rwsem);
	if (inode->i_nlink == 0) {
		err = -ENOENT; /* an orphan cannot be linked back */
	} else {
		err = dir_add_offset(dinode, d);
		if (!err) {
			ihold(inode);
			inode_inc_nlink(inode);
			d_instantiate(d, inode);
			d_make_persistent(d);
			inode_touch(dinode, true, true);
		}
	}
	up_write(&inode->i_rwsem);
out_dput:
	dput(d);
out_unlock:
	up_write(&dinode->i_rwsem);
	return err;
}

/* lock_rename: the kernel's order for the two parents. */
static void lock_rename(struct dentry *p1, struct dentry *p2)
{
	struct inode *i1 = p1->d_inode, *i2 = p2->d_inode;

	if (p1 == p2) {
		down_write(&i1->i_rwsem);
		return;
	}
	down_write(&p1->d_sb->s_vfs_rename_mutex);
	/* ancestry is stable: only cross-directory renames change it */
	if (d_is_ancestor(p2, p1) || (!d_is_ancestor(p1, p2) && p2 < p1)) {
		down_write(&i2->i_rwsem);
		down_write(&i1->i_rwsem);
	} else {
		down_write(&i1->i_rwsem);
		down_write(&i2->i_rwsem);
	}
}

static void unlock_rename(struct dentry *p1, struct dentry *p2)
{
	up_write(&p1->d_inode->i_rwsem);
	if (p1 != p2) {
		up_write(&p2->d_inode->i_rwsem);
		up_write(&p1->d_sb->s_vfs_rename_mutex);
	}
}

/*
 * RENAME_WHITEOUT as shmem_rename2/shmem_whiteout do it (mm/shmem.c, Linux
 * 6.x): a character device 0:0 (WHITEOUT_DEV, mode 0 besides S_IFCHR)
 * owned by the renamer takes the old name, counted in the old directory's
 * size like any entry.  shmem creates it before the move and hashes it
 * beside the old dentry; the model's dcache holds one dentry per name, so
 * it is created at the name the move left negative, under the same locks
 * (both parents' i_rwsem held exclusive: no one sees the name empty).
 * Unlike shmem, an allocation failure there (-ENOMEM, the model's only
 * failure for it) fails the call with the rename done.
 */
static int rename_whiteout(struct inode *odi, struct dentry *olddir, const char *oldname,
			   uint32_t oldlen, const struct cred *cred)
{
	struct dentry *w;
	int err = d_lookup_or_alloc(olddir, oldname, oldlen, &w);

	if (err)
		return err;
	err = w->d_inode ? -EEXIST : __create_locked(odi, w, S_IFCHR, 0, NULL, cred, NULL);
	dput(w);
	return err;
}

static int do_rename_at(struct dentry *olddir, const char *oldname, uint32_t oldlen,
			struct dentry *newdir, const char *newname, uint32_t newlen,
			unsigned int flags, const struct cred *cred)
{
	struct inode *odi, *ndi, *si, *ti;
	struct dentry *old = NULL, *new = NULL;
	bool isdir, exchange = flags & RENAME_EXCHANGE;
	struct d_rename_pre pre = {0};
	uint64_t reserved = 0;
	int err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	/* do_renameat2: neither NOREPLACE nor WHITEOUT goes with EXCHANGE */
	if ((flags & (RENAME_NOREPLACE | RENAME_WHITEOUT)) && exchange)
		return -EINVAL;
	err = dir_inode_check(olddir, &odi);
	if (!err)
		err = dir_inode_check(newdir, &ndi);
	if (!err)
		err = check_name(oldname, oldlen);
	if (!err)
		err = check_name(newname, newlen);
	if (err)
		return err;
	if (is_dot(oldname, oldlen) || is_dotdot(oldname, oldlen))
		return -EBUSY;
	if (is_dot(newname, newlen) || is_dotdot(newname, newlen))
		return (flags & RENAME_NOREPLACE) ? -EEXIST : -EBUSY;

	lock_rename(olddir, newdir);
	err = d_lookup_or_alloc(olddir, oldname, oldlen, &old);
	if (err)
		goto out_unlock;
	si = old->d_inode;
	if (!si) {
		err = -ENOENT;
		goto out_unlock;
	}
	err = d_lookup_or_alloc(newdir, newname, newlen, &new);
	if (err)
		goto out_unlock;
	ti = new->d_inode;
	if (old == new || si == ti) {
		err = 0; /* same file: POSIX says do nothing */
		goto out_unlock;
	}
	if (exchange && !ti) {
		err = -ENOENT;
		goto out_unlock;
	}
	if ((flags & RENAME_NOREPLACE) && ti) {
		err = -EEXIST;
		goto out_unlock;
	}
	isdir = S_ISDIR(si->i_mode);
	if (olddir != newdir) {
		/* moving a directory into its own subtree */
		if (isdir && d_is_ancestor(old, newdir)) {
			err = -EINVAL;
			goto out_unlock;
		}
		/* the target is an ancestor of the source */
		if (ti && d_is_ancestor(new, olddir)) {
			err = exchange ? -EINVAL : -ENOTEMPTY;
			goto out_unlock;
		}
	}
	/*
	 * Everything the rename allocates, before it changes anything: the
	 * dcache's hash nodes and long names, the new directory's offset
	 * slot (shmem_rename2 adds the offset, simple_offset_rename, before
	 * the VFS's d_move; a failure there leaves both names as they were).
	 */
	err = d_rename_prealloc(&pre, exchange ? new->d_name.len : newlen,
				exchange ? old->d_name.len : 0);
	if (err)
		goto out_unlock;
	if (!exchange) {
		reserved = ndi->i_dir_next_offset;
		err = xa_reserve(&ndi->i_dir_offsets, reserved);
		if (err) {
			reserved = 0; /* offsets start past . and .. */
			goto out_unlock;
		}
	}
	if (exchange) {
		uint64_t o1 = old->d_offset, o2 = new->d_offset;
		bool tdir = S_ISDIR(ti->i_mode);

		xa_store(&odi->i_dir_offsets, o1, new);
		xa_store(&ndi->i_dir_offsets, o2, old);
		old->d_offset = o2;
		new->d_offset = o1;
		d_exchange(old, new, &pre);
		if (olddir != newdir && isdir != tdir) {
			if (isdir) {
				inode_dec_nlink(odi);
				inode_inc_nlink(ndi);
			} else {
				inode_inc_nlink(odi);
				inode_dec_nlink(ndi);
			}
		}
		inode_touch(si, false, true);
		inode_touch(ti, false, true);
		goto out_times;
	}
	if (ti) {
		bool tdir = S_ISDIR(ti->i_mode);

		if (isdir && !tdir) {
			err = -ENOTDIR;
			goto out_unlock;
		}
		if (!isdir && tdir) {
			err = -EISDIR;
			goto out_unlock;
		}
		down_write(&ti->i_rwsem);
		if (tdir && ti->i_nr_children) {
			up_write(&ti->i_rwsem);
			err = -ENOTEMPTY;
			goto out_unlock;
		}
		if (tdir) {
			ti->i_flags |= S_DEAD;
			inode_set_nlink(ti, 0);
			inode_dec_nlink(ndi);
		} else {
			inode_dec_nlink(ti);
		}
		up_write(&ti->i_rwsem);
		dir_remove_offset(ndi, new);
		if (tdir)
			shrink_dcache_parent_negative(new);
	}
	RV_INJECT("rename_before_d_move");
	dir_remove_offset(odi, old);
	d_move(old, new, newdir, newname, newlen, &pre);
	err = dir_add_offset(ndi, old);
	if (!err && (flags & RENAME_WHITEOUT))
		err = rename_whiteout(odi, olddir, oldname, oldlen, cred);
	if (isdir && olddir != newdir) {
		inode_dec_nlink(odi);
		inode_inc_nlink(ndi);
	}
	inode_touch(si, false, true);
out_times:
	inode_touch(odi, true, true);
	if (ndi != odi)
		inode_touch(ndi, true, true);
out_unlock:
	if (reserved)
		xa_release(&ndi->i_dir_offsets, reserved);
	d_rename_pre_free(&pre);
	unlock_rename(olddir, newdir);
	if (old)
		dput(old);
	if (new)
		dput(new);
	return err;
}

/* ---- inode-based API -------------------------------------------------- */

struct inode *vfs_root(void)
{
	struct inode *root = rv_sb->s_root_inode;

	ihold(root);
	return root;
}

/* The dentry of a directory inode (directories have exactly one). */
static int dir_dentry(struct inode *dir, struct dentry **out)
{
	struct dentry *d;

	if (!S_ISDIR(dir->i_mode))
		return -ENOTDIR;
	d = d_find_alias(dir);
	if (!d)
		return -ENOENT; /* removed */
	*out = d;
	return 0;
}

int vfs_lookup(struct inode *dir, const char *name, struct inode **out)
{
	struct dentry *dd, *d;
	struct inode *inode;
	uint32_t len = (uint32_t)strlen(name);
	int err;

	rv_rcu_ensure();
	err = dir_dentry(dir, &dd);
	if (err)
		return err;
	err = check_name(name, len);
	if (err)
		goto out;
	if (is_dot(name, len)) {
		ihold(dir);
		*out = dir;
		goto out;
	}
	if (is_dotdot(name, len)) {
		d = dget_parent(dd);
	} else {
		d = d_lookup(dd, name, len);
		if (!d) {
			down_read(&dir->i_rwsem);
			err = d_lookup_or_alloc(dd, name, len, &d);
			up_read(&dir->i_rwsem);
			if (err)
				goto out;
		}
	}
	spin_lock(&d->d_lockref.lock);
	inode = d->d_inode;
	if (inode)
		ihold(inode);
	spin_unlock(&d->d_lockref.lock);
	dput(d);
	if (!inode)
		err = -ENOENT;
	else
		*out = inode;
out:
	dput(dd);
	return err;
}

#define WITH_DIR_DENTRY(dir, dd, call)                                                             \
	({                                                                                         \
		struct dentry *dd;                                                                 \
		int __e;                                                                           \
		rv_rcu_ensure();                                                                   \
		__e = dir_dentry((dir), &dd);                                                      \
		if (!__e) {                                                                        \
			__e = (call);                                                              \
			dput(dd);                                                                  \
		}                                                                                  \
		__e;                                                                               \
	})

int vfs_create(struct inode *dir, const char *name, uint32_t mode, const struct cred *cred,
	       struct inode **out)
{
	return WITH_DIR_DENTRY(dir, dd,
			       do_create_at(dd, name, (uint32_t)strlen(name),
					    S_IFREG | (mode & 07777), 0, NULL, cred, out));
}

int vfs_mkdir(struct inode *dir, const char *name, uint32_t mode, const struct cred *cred,
	      struct inode **out)
{
	return WITH_DIR_DENTRY(dir, dd,
			       do_create_at(dd, name, (uint32_t)strlen(name),
					    S_IFDIR | (mode & 07777), 0, NULL, cred, out));
}

static int mknod_mode_ok(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case 0:
	case S_IFREG:
	case S_IFIFO:
	case S_IFCHR:
	case S_IFBLK:
	case S_IFSOCK:
		return 0;
	case S_IFDIR:
		return -EPERM;
	default:
		return -EINVAL;
	}
}

int vfs_mknod(struct inode *dir, const char *name, uint32_t mode, dev_t rdev,
	      const struct cred *cred, struct inode **out)
{
	int err = mknod_mode_ok(mode);

	if (err)
		return err;
	if (!(mode & S_IFMT))
		mode |= S_IFREG;
	return WITH_DIR_DENTRY(
	    dir, dd, do_create_at(dd, name, (uint32_t)strlen(name), mode, rdev, NULL, cred, out));
}

int vfs_symlink(struct inode *dir, const char *name, const char *target, const struct cred *cred,
		struct inode **out)
{
	return WITH_DIR_DENTRY(
	    dir, dd,
	    do_create_at(dd, name, (uint32_t)strlen(name), S_IFLNK | 0777, 0, target, cred, out));
}

int vfs_link(struct inode *inode, struct inode *dir, const char *name)
{
	return WITH_DIR_DENTRY(dir, dd, do_link_at(inode, dd, name, (uint32_t)strlen(name)));
}

int vfs_unlink(struct inode *dir, const char *name)
{
	return WITH_DIR_DENTRY(dir, dd, do_unlink_at(dd, name, (uint32_t)strlen(name)));
}

int vfs_rmdir(struct inode *dir, const char *name)
{
	return WITH_DIR_DENTRY(dir, dd, do_rmdir_at(dd, name, (uint32_t)strlen(name)));
}

int vfs_rename(struct inode *olddir, const char *oldname, struct inode *newdir, const char *newname,
	       unsigned int flags)
{
	return vfs_rename_cred(olddir, oldname, newdir, newname, flags, NULL);
}

int vfs_rename_cred(struct inode *olddir, const char *oldname, struct inode *newdir,
		    const char *newname, unsigned int flags, const struct cred *cred)
{
	struct dentry *od, *nd;
	int err;

	rv_rcu_ensure();
	err = dir_dentry(olddir, &od);
	if (err)
		return err;
	err = dir_dentry(newdir, &nd);
	if (!err) {
		err = do_rename_at(od, oldname, (uint32_t)strlen(oldname), nd, newname,
				   (uint32_t)strlen(newname), flags, cred);
		dput(nd);
	}
	dput(od);
	return err;
}

ssize_t vfs_readlink(struct inode *inode, char *buf, size_t len)
{
	size_t n;

	if (!S_ISLNK(inode->i_mode))
		return -EINVAL;
	n = strlen(inode->i_link);
	if (n > len)
		n = len;
	memcpy(buf, inode->i_link, n);
	return (ssize_t)n;
}

static unsigned int mode_to_dtype(uint32_t mode)
{
	return (mode & S_IFMT) >> 12; /* DT_* == S_IF* >> 12 */
}

/*
 * The walk behind vfs_readdir and vfs_iterate_dir.  Entries at offsets
 * >= end are not emitted: a rename gives the moved entry a new offset at the
 * top of the map (dir_add_offset), so without an end a walk that keeps
 * running into renamed entries never finishes.
 */
static int64_t readdir_walk(struct inode *dir, struct file *file, int64_t pos, filldir_t actor,
			    void *ctx)
{
	uint64_t idx, end = UINT64_MAX;

	if (!S_ISDIR(dir->i_mode))
		return -ENOTDIR;
	if (pos < 0)
		return -EINVAL;
	rv_rcu_ensure();
	down_read(&dir->i_rwsem);
	if (dir->i_flags & S_DEAD)
		goto out;
	if (file) {
		/*
		 * The end of this file's walk, as fs/libfs.c's offset
		 * directories record it (Linux 6.11-6.13, and 6.6.y from
		 * 6.6.75: offset_dir_open stores the next free offset in
		 * file->private_data and offset_dir_llseek stores it again
		 * on a seek to 0; offset_iterate_dir stops at the first
		 * entry at or past it).  Here the walk from position 0 (an
		 * open's first read and every rewind: the FUSE client sends
		 * READDIR at offset 0 for both) records it, and so does the
		 * first walk of a file that starts elsewhere.  i_rwsem is
		 * held shared: i_dir_next_offset moves only under it held
		 * exclusive.  The kernel serializes the walks of one open
		 * file (f_pos_lock); concurrent walks of one handle here
		 * each store a valid end.  Mainline (6.14+) walks the
		 * parent's d_children list instead, where created and
		 * renamed entries go to the head, behind a walk in
		 * progress: the same guarantee, that a walk meets each
		 * entry at most once and ends.
		 */
		uintptr_t rec = __atomic_load_n((uintptr_t *)&file->private_data, __ATOMIC_RELAXED);

		if (pos == 0 || rec == 0) {
			rec = (uintptr_t)dir->i_dir_next_offset;
			__atomic_store_n((uintptr_t *)&file->private_data, rec, __ATOMIC_RELAXED);
		}
		end = rec;
	}
	if (pos == 0) {
		if (actor(ctx, ".", 1, dir->i_ino, DT_DIR, 1))
			goto out;
		pos = 1;
	}
	if (pos == 1) {
		uint64_t pino = dir->i_ino;
		struct dentry *d;

		rcu_read_lock();
		d = READ_ONCE(dir->i_dentry);
		if (d) {
			struct inode *pi = READ_ONCE(READ_ONCE(d->d_parent)->d_inode);

			if (pi)
				pino = pi->i_ino;
		}
		rcu_read_unlock();
		if (actor(ctx, "..", 2, pino, DT_DIR, 2))
			goto out;
		pos = 2;
	}
	idx = (uint64_t)pos;
	while (idx < end) {
		struct dentry *d = xa_find(&dir->i_dir_offsets, &idx, end - 1);
		struct inode *inode;

		if (!d)
			break;
		inode = d->d_inode;
		if (actor(ctx, d->d_name.name, d->d_name.len, inode->i_ino,
			  mode_to_dtype(inode->i_mode), (int64_t)idx + 1))
			break;
		pos = (int64_t)idx + 1;
		idx++;
	}
out:
	up_read(&dir->i_rwsem);
	return pos;
}

int64_t vfs_readdir(struct inode *dir, int64_t pos, filldir_t actor, void *ctx)
{
	return readdir_walk(dir, NULL, pos, actor, ctx);
}

int64_t vfs_iterate_dir(struct file *file, int64_t pos, filldir_t actor, void *ctx)
{
	return readdir_walk(file->f_inode, file, pos, actor, ctx);
}

/* ---- path-based syscalls ---------------------------------------------- */

static int stat_path(const char *path, unsigned int flags, struct kstat *st)
{
	struct dentry *d;
	int err = kern_path(path, flags, &d);

	if (err)
		return err;
	vfs_getattr(d->d_inode, st);
	dput(d);
	return 0;
}

int vfs_stat(const char *path, struct kstat *st)
{
	return stat_path(path, LOOKUP_FOLLOW, st);
}

int vfs_lstat(const char *path, struct kstat *st)
{
	return stat_path(path, 0, st);
}

static int create_path(const char *path, uint32_t mode, dev_t rdev, const char *target)
{
	struct parent_path pp;
	int err = path_parentat(path, &pp);

	if (err)
		return err;
	if (pp.type != LAST_NORM)
		err = -EEXIST;
	else if (pp.trailing_slash && !S_ISDIR(mode)) {
		/* "a/" names a directory: EEXIST if a exists, else ENOENT */
		struct dentry *d = d_lookup(pp.dir, pp.name, pp.len);

		err = d && d->d_inode ? -EEXIST : -ENOENT;
		if (d)
			dput(d);
	} else {
		err = do_create_at(pp.dir, pp.name, pp.len, mode, rdev, target, NULL, NULL);
	}
	dput(pp.dir);
	return err;
}

int do_mkdir(const char *path, uint32_t mode)
{
	return create_path(path, S_IFDIR | (mode & 07777), 0, NULL);
}

int do_mknod(const char *path, uint32_t mode, dev_t rdev)
{
	int err = mknod_mode_ok(mode);

	if (err)
		return err;
	if (!(mode & S_IFMT))
		mode |= S_IFREG;
	return create_path(path, mode, rdev, NULL);
}

int do_symlink(const char *target, const char *linkpath)
{
	if (!target)
		return -EFAULT;
	return create_path(linkpath, S_IFLNK | 0777, 0, target);
}

int do_unlink(const char *path)
{
	struct parent_path pp;
	int err = path_parentat(path, &pp);

	if (err)
		return err;
	if (pp.type != LAST_NORM) {
		err = -EISDIR;
	} else if (pp.trailing_slash) {
		/* "x/": ENOTDIR for a non-directory, EISDIR for a directory */
		struct dentry *d;

		err = kern_path(path, 0, &d);
		if (!err) {
			dput(d);
			err = -EISDIR;
		}
	} else {
		err = do_unlink_at(pp.dir, pp.name, pp.len);
	}
	dput(pp.dir);
	return err;
}

int do_rmdir(const char *path)
{
	struct parent_path pp;
	int err = path_parentat(path, &pp);

	if (err)
		return err;
	switch (pp.type) {
	case LAST_ROOT:
		err = -EBUSY;
		break;
	case LAST_DOT:
		err = -EINVAL;
		break;
	case LAST_DOTDOT:
		err = -ENOTEMPTY;
		break;
	default:
		err = do_rmdir_at(pp.dir, pp.name, pp.len);
	}
	dput(pp.dir);
	return err;
}

int do_rename(const char *oldpath, const char *newpath, unsigned int flags)
{
	struct parent_path op, np;
	int err = path_parentat(oldpath, &op);

	if (err)
		return err;
	err = path_parentat(newpath, &np);
	if (err) {
		dput(op.dir);
		return err;
	}
	if (op.type != LAST_NORM)
		err = -EBUSY;
	else if (np.type != LAST_NORM)
		err = (flags & RENAME_NOREPLACE) ? -EEXIST : -EBUSY;
	else
		err = do_rename_at(op.dir, op.name, op.len, np.dir, np.name, np.len, flags, NULL);
	dput(op.dir);
	dput(np.dir);
	return err;
}

int do_link(const char *oldpath, const char *newpath)
{
	struct parent_path np;
	struct dentry *od;
	int err = kern_path(oldpath, 0, &od);

	if (err)
		return err;
	err = path_parentat(newpath, &np);
	if (!err) {
		if (np.type != LAST_NORM)
			err = -EEXIST;
		else
			err = do_link_at(od->d_inode, np.dir, np.name, np.len);
		dput(np.dir);
	}
	dput(od);
	return err;
}

ssize_t do_readlink(const char *path, char *buf, size_t len)
{
	struct dentry *d;
	ssize_t ret;
	int err = kern_path(path, 0, &d);

	if (err)
		return err;
	ret = vfs_readlink(d->d_inode, buf, len);
	dput(d);
	return ret;
}

int do_truncate(const char *path, int64_t length)
{
	struct dentry *d;
	int err;

	if (length < 0)
		return -EINVAL;
	err = kern_path(path, LOOKUP_FOLLOW, &d);
	if (err)
		return err;
	err = vfs_truncate(d->d_inode, length);
	dput(d);
	return err;
}

/* ---- open -------------------------------------------------------------- */

/*
 * Make a struct file; consumes the dentry reference (may be NULL).  The
 * common open path of filp_open and vfs_open_inode (the FUSE daemon's open,
 * create and opendir).  With bkl_ops=open the part that stands for the
 * file system's ->open (O_TRUNC, the file's creation) runs under the BKL,
 * as 2.6's chrdev_open and the driver ->open methods did; a sleep inside it
 * (i_rwsem for O_TRUNC) releases the BKL through schedule().
 */
static int do_dentry_open(struct inode *inode, struct dentry *d, int flags, struct file **out)
{
	const bool bkl = rv_sw.bkl_ops & BKL_OP_OPEN; /* read-mostly, once */
	struct file *f;
	int err;

	if ((flags & O_DIRECTORY) && !S_ISDIR(inode->i_mode)) {
		err = -ENOTDIR;
		goto out_dput;
	}
	/*
	 * may_open (fs/namei.c, Linux 6.18), which an O_PATH open skips
	 * (do_o_path): a symlink is -ELOOP; a directory is -EISDIR when the
	 * open asks for write access, which O_TRUNC and the access mode 3 do
	 * (ACC_MODE).
	 */
	if (!(flags & O_PATH)) {
		if (S_ISLNK(inode->i_mode)) {
			err = -ELOOP;
			goto out_dput;
		}
		if (S_ISDIR(inode->i_mode) &&
		    ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC))) {
			err = -EISDIR;
			goto out_dput;
		}
	}
	if (unlikely(bkl))
		lock_kernel();
	RV_INJECT("bkl_ops_open");
	/*
	 * O_TRUNC truncates a regular file whatever the access mode, as
	 * do_open() in fs/namei.c (Linux 6.x) does: build_open_flags() makes
	 * O_TRUNC ask for MAY_WRITE, and handle_truncate() runs for an
	 * O_RDONLY|O_TRUNC open too.
	 */
	if ((flags & O_TRUNC) && S_ISREG(inode->i_mode)) {
		err = vfs_truncate(inode, 0);
		if (err)
			goto out_unlock;
	}
	ihold(inode);
	f = alloc_file(inode, d, (unsigned int)flags,
		       S_ISDIR(inode->i_mode) ? &rv_dir_fops : &rv_file_fops);
	if (!f) {
		iput(inode);
		err = -ENOMEM;
		goto out_unlock;
	}
	f->f_mapping = inode->i_mapping;
	/* shmem_file_open (Linux 6.6+): regular files accept O_DIRECT */
	if (S_ISREG(inode->i_mode) && !(flags & O_PATH))
		f->f_mode |= FMODE_CAN_ODIRECT;
	if (unlikely(bkl))
		unlock_kernel();
	*out = f;
	return 0;
out_unlock:
	if (unlikely(bkl))
		unlock_kernel();
out_dput:
	if (d)
		dput(d);
	return err;
}

int vfs_open_inode(struct inode *inode, int flags, struct file **out)
{
	rv_rcu_ensure();
	return do_dentry_open(inode, d_find_alias(inode), flags, out);
}

/*
 * build_open_flags (fs/open.c, Linux 6.18, with build_open_how of open(2)):
 * the open flags a file keeps, or -EINVAL.  Unknown bits are dropped; O_PATH
 * keeps only O_DIRECTORY, O_NOFOLLOW and O_CLOEXEC besides itself (so an
 * O_PATH file shows neither an access mode nor O_LARGEFILE in F_GETFL);
 * O_DIRECTORY with O_CREAT is refused (Linux 6.4+); O_CLOEXEC is the fd's,
 * never the file's; __O_SYNC implies O_DSYNC.  O_TMPFILE is not modelled.
 */
int build_open_flags(int flags)
{
	flags &= RV_VALID_OPEN_FLAGS;
	if (flags & O_PATH)
		flags &= O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CLOEXEC;
	if ((flags & (O_DIRECTORY | O_CREAT)) == (O_DIRECTORY | O_CREAT))
		return -EINVAL;
	if (flags & (O_TMPFILE & ~O_DIRECTORY))
		return -EOPNOTSUPP;
	if (flags & (O_SYNC & ~O_DSYNC))
		flags |= O_DSYNC;
	return flags & ~O_CLOEXEC;
}

int filp_open(const char *path, int flags, uint32_t mode, struct file **out)
{
	struct parent_path pp;
	struct dentry *d;
	struct inode *dinode;
	int err;

	rv_rcu_ensure();
	flags = build_open_flags(flags);
	if (flags < 0)
		return flags;
	if (!(flags & O_CREAT)) {
		err = kern_path(path, (flags & O_NOFOLLOW) ? 0 : LOOKUP_FOLLOW, &d);
		if (err)
			return err;
		return do_dentry_open(d->d_inode, d, flags, out);
	}
	err = path_parentat(path, &pp);
	if (err)
		return err;
	if (pp.type != LAST_NORM || pp.trailing_slash) {
		dput(pp.dir);
		return -EISDIR;
	}
	err = check_name(pp.name, pp.len);
	if (err) {
		dput(pp.dir);
		return err;
	}
	dinode = pp.dir->d_inode;
	down_write(&dinode->i_rwsem);
	err = d_lookup_or_alloc(pp.dir, pp.name, pp.len, &d);
	if (!err) {
		if (!d->d_inode) {
			err = __create_locked(dinode, d, S_IFREG | (mode & 07777), 0, NULL, NULL,
					      NULL);
			flags &= ~O_TRUNC;
		} else if (flags & O_EXCL) {
			err = -EEXIST;
		} else if (S_ISDIR(d->d_inode->i_mode)) {
			err = -EISDIR; /* Linux: O_CREAT never opens a directory */
		}
		if (err)
			dput(d);
	}
	up_write(&dinode->i_rwsem);
	dput(pp.dir);
	if (err)
		return err;
	if (S_ISLNK(d->d_inode->i_mode)) {
		dput(d);
		if (flags & O_NOFOLLOW)
			return -ELOOP;
		err = kern_path(path, LOOKUP_FOLLOW, &d);
		if (err)
			return err;
	}
	return do_dentry_open(d->d_inode, d, flags, out);
}
