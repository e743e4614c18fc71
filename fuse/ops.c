// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuse/ops.c - the FUSE operations on the model, one function per op.
 *
 * Each rvf_op_* takes a request context (who asks) and the decoded
 * arguments, runs the operation through the model (vfs inode API, page cache,
 * the daemon's fd table) and returns 0 or -errno with its results in out
 * parameters.  Nothing here calls libfuse's reply functions, so tests drive
 * the ops without a kernel; fuse/ll.c replies.
 *
 * Locking: the model takes its own locks (see vfs/fs.h, fdtable/fdtable.h);
 * ops hold none across calls into it.  Shared daemon state:
 *   inode->i_private   the kernel's lookup count on that inode (atomic),
 *                      matched by as many inode references (ihold/iput);
 *                      the count is raised only while a reference is held,
 *                      so a forget can never free an inode under a lookup.
 *   node id -> inode   the model's inode hash (vfs/inode.c: a cds_lfht read
 *                      under RCU, inserts serialized by inode_hash_lock,
 *                      entries removed by eviction and freed after a grace
 *                      period); rvf_iget's get-unless-zero reference keeps
 *                      the inode for the request, and a node whose inode
 *                      is gone or dying is not found (ESTALE).
 *   the fd table       the daemon process's files_struct (fdtable/ locks).
 *   rvf                written by rvf_fs_init/rvf_fs_teardown only, while no
 *                      request runs.
 */
#include "fuse/daemon.h"
#include "mm/mm.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rvf_daemon rvf;

/* ---- workers and the daemon's model process ---------------------------- */

void rvf_attach_worker_slow(void)
{
	struct task_struct *t, *old = rv_current;

	/* a task of some other model process (created lazily): retire it */
	if (old && (old->flags & PF_LAZY))
		task_exit(old);
	t = task_clone_thread(rvf.task);
	if (!t) {
		fprintf(stderr, "rcuvfs: cannot create a model task for a worker\n");
		abort();
	}
	/* dies with its thread: base's thread-exit destructor runs task_exit */
	t->flags |= PF_LAZY;
	task_attach(t);
}

/*
 * The page cache's reclaim (cache_pages) and unmap_mapping_range (truncate,
 * hole punch) live in mm/, whose subsystem registers itself from mm/'s own
 * objects; a static library contributes only objects something references,
 * so this reference links mm into the daemon, and rvf_fs_init refuses to
 * start without its hooks.
 */
static long (*const rvf_mm_anchor)(void) __attribute__((used)) = mm_lru_pages;

/* The daemon's resident memory (/proc/self/statm), beside the model's
 * object counts in /.rcuvfs/stats. */
static uint64_t gauge_rss_bytes(void)
{
	unsigned long size, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

int rvf_fs_init(const struct rvf_config *cfg)
{
	if (!vfs_hooks.folio_add_lru || !vfs_hooks.unmap_mapping_range) {
		fprintf(stderr, "rcuvfs: the model's mm is not linked: no reclaim (cache_pages)\n");
		return -ENOSYS;
	}
	if (cfg != &rvf.cfg)
		rvf.cfg = *cfg;
	rvf.task = task_create_process("rcuvfs");
	if (!rvf.task)
		return -ENOMEM;
	task_attach(rvf.task);
	rvf.root = vfs_root();
	if (!rvf.root) {
		task_exit(rvf.task);
		rvf.task = NULL;
		return -ENOENT;
	}
	rvf_register_gauges();
	rvf.live = 1;
	return 0;
}

/* The daemon's own gauges, beside the model's. */
void rvf_register_gauges(void)
{
	rv_stat_register_gauge("rss_bytes", "the daemon's resident memory (bytes)",
			       gauge_rss_bytes);
}

/*
 * --list-counters: the counters a mount's .rcuvfs/stats shows, with their
 * help (the gauges register when an instance starts: start one with the
 * default switches, mount nothing).
 */
int rvf_list_counters(FILE *out)
{
	struct rv_switches sw;
	int ret;

	rv_switches_default(&sw);
	ret = rv_instance_create(&sw);
	if (ret) {
		fprintf(stderr, "rcuvfs: %s\n", strerror(-ret));
		return 1;
	}
	rvf_register_gauges();
	ret = rv_stats_doc(out, RV_DOC_TEXT);
	rv_instance_destroy();
	return ret ? 1 : 0;
}

static uintptr_t *nlookup_of(struct inode *inode)
{
	return (uintptr_t *)&inode->i_private;
}

/* Drop every lookup count the kernel did not forget (unmount, kill). */
static void drop_all_lookups(void)
{
	struct inode **vec = NULL, *inode;
	size_t n = 0, cap = 0, i;
	uintptr_t cnt;

	spin_lock(&rv_sb->s_inode_list_lock);
	list_for_each_entry(inode, &rv_sb->s_inodes, i_sb_list) {
		if (!__atomic_load_n(nlookup_of(inode), __ATOMIC_RELAXED))
			continue;
		if (n == cap) {
			struct inode **nv;

			cap = cap ? 2 * cap : 64;
			nv = realloc(vec, cap * sizeof(*vec));
			if (!nv)
				break; /* reported as leaks by the instance teardown */
			vec = nv;
		}
		/* safe: a non-zero count means we hold references */
		ihold(inode);
		vec[n++] = inode;
	}
	spin_unlock(&rv_sb->s_inode_list_lock);
	for (i = 0; i < n; i++) {
		cnt = __atomic_exchange_n(nlookup_of(vec[i]), 0, __ATOMIC_RELAXED);
		while (cnt--)
			iput(vec[i]);
		iput(vec[i]);
	}
	free(vec);
}

void rvf_fs_teardown(void)
{
	if (!rvf.live)
		return;
	rvf_enter();
	rvf_locks_shutdown(); /* no-op in the daemon: main ran it after the loop */
	rvf_locks_drop_all();
	rvf_ctl_teardown();
	drop_all_lookups();
	iput(rvf.root);
	rvf.root = NULL;
	/* closes every handle the kernel did not release (last files sharer) */
	if (rv_current != rvf.task) {
		task_exit(rv_current);
		task_attach(rvf.task);
	}
	task_exit(rvf.task);
	rvf.task = NULL;
	rvf.live = 0;
}

/* ---- inodes, attributes, entries --------------------------------------- */

/*
 * Node ids: the root is FUSE_ROOT_ID; every other node's id is its inode
 * number plus RVF_NODEID_BIAS (above the control files' ids).  Inode
 * numbers come from a 64-bit counter and are never reused, so an id names
 * one inode for the life of the mount; the id goes to the kernel only
 * after the inode was put into the model's inode hash (make_entry), and
 * rvf_iget finds it there under RCU with a get-unless-zero reference:
 * an id whose inode was evicted, or that was never given out, finds
 * nothing, whatever now occupies the old inode's memory.
 */
struct inode *rvf_iget(fuse_ino_t ino)
{
	if (ino == FUSE_ROOT_ID)
		return rvf.root; /* pinned by the daemon: no reference */
	if (unlikely(ino <= RVF_NODEID_BIAS))
		return NULL;
	return ilookup(rv_sb, ino - RVF_NODEID_BIAS);
}

static fuse_ino_t rvf_ino(struct inode *inode)
{
	if (inode == rvf.root)
		return FUSE_ROOT_ID;
	insert_inode_hash(inode); /* shmem_encode_fh's lazy hashing */
	return inode->i_ino + RVF_NODEID_BIAS;
}

static void kstat_to_stat(const struct kstat *ks, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ks->ino;
	st->st_mode = ks->mode;
	st->st_nlink = ks->nlink;
	st->st_uid = ks->uid;
	st->st_gid = ks->gid;
	st->st_rdev = ks->rdev;
	st->st_size = ks->size;
	st->st_blocks = ks->blocks;
	st->st_blksize = ks->blksize;
	st->st_atim = ks->atime;
	st->st_mtim = ks->mtime;
	st->st_ctim = ks->ctime;
}

static void inode_stat(struct inode *inode, struct stat *st)
{
	struct kstat ks;

	vfs_getattr(inode, &ks);
	kstat_to_stat(&ks, st);
}

/*
 * Turn a referenced inode into an entry reply: the reference becomes one
 * kernel lookup count.  The root is pinned by the daemon and never counted.
 */
static void make_entry(struct inode *inode, struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	e->ino = rvf_ino(inode);
	e->generation = inode->i_generation;
	inode_stat(inode, &e->attr);
	e->attr_timeout = rvf.cfg.attr_timeout;
	e->entry_timeout = rvf.cfg.entry_timeout;
	if (inode == rvf.root)
		iput(inode);
	else
		__atomic_fetch_add(nlookup_of(inode), 1, __ATOMIC_RELAXED);
}

/* Names the control directory reserves in the root. */
static bool reserved_name(fuse_ino_t parent, const char *name)
{
	return parent == FUSE_ROOT_ID && !strcmp(name, RVF_CTL_NAME);
}

/* Whether a new name may go in parent: not in or over the control files. */
static int may_create(fuse_ino_t parent, const char *name)
{
	if (rvf_ino_is_ctl(parent))
		return -EPERM;
	if (reserved_name(parent, name))
		return -EEXIST;
	return 0;
}

static const struct cred *ctx_cred(const struct rvf_ctx *ctx, struct cred *c)
{
	c->fsuid = ctx->uid;
	c->fsgid = ctx->gid;
	c->groups = NULL;
	c->ngroups = 0;
	/* the kernel's vfs_prepare_mode ran above FUSE, with the caller's
	 * supplementary groups the request does not carry */
	c->mode_prepared = ctx->req != NULL;
	/* and its xattr privilege checks (cap_inode_setxattr/removexattr) */
	c->xattr_checked = ctx->req != NULL;
	return c;
}

/*
 * Privilege stripping, which the kernel leaves to the daemon once it
 * negotiated FUSE_CAP_HANDLE_KILLPRIV (lo_init): fuse_setattr (fs/fuse/dir.c,
 * Linux 6.x) then drops the ATTR_KILL_SUID/ATTR_KILL_SGID that
 * file_remove_privs (write, fallocate), do_truncate (truncate, open with
 * O_TRUNC) and chown_common pass it, so the model applies them here with
 * the caller's credentials: setattr_should_drop_suidgid's rule for a write,
 * fallocate or truncate, chown_common's for a chown.  The capability
 * (security.capability) the kernel still removes itself, with a REMOVEXATTR
 * in the writer's name (cap_inode_killpriv), which the model accepts
 * (xattr_checked).  privs_to_drop says what to drop (0 in the common case:
 * no S_ISUID/S_ISGID); the caller's supplementary groups are read
 * (fuse_req_getgroups, from /proc) only when they decide: a setgid file
 * without group execute whose group is not the caller's fsgid.
 */
static unsigned int privs_to_drop(const struct rvf_ctx *ctx, struct inode *inode, bool chown)
{
	uint32_t mode = READ_ONCE(inode->i_mode);
	gid_t groups[64];
	struct cred c;
	int n;

	if (likely(!(mode & (S_ISUID | S_ISGID))))
		return 0;
	ctx_cred(ctx, &c);
	if ((mode & (S_ISGID | S_IXGRP)) == S_ISGID && c.fsuid != 0 &&
	    c.fsgid != READ_ONCE(inode->i_gid) && ctx->req) {
		n = fuse_req_getgroups(ctx->req, (int)ARRAY_SIZE(groups), groups);
		if (n > 0) {
			c.groups = groups;
			c.ngroups = n < (int)ARRAY_SIZE(groups) ? n : (int)ARRAY_SIZE(groups);
		}
	}
	return chown ? vfs_chown_drop_suidgid(inode, &c) : vfs_should_drop_suidgid(inode, &c);
}

static void kill_privs(const struct rvf_ctx *ctx, struct inode *inode)
{
	struct iattr ia;

	memset(&ia, 0, sizeof(ia));
	ia.ia_valid = privs_to_drop(ctx, inode, false);
	if (unlikely(ia.ia_valid))
		vfs_setattr(inode, &ia);
}

/*
 * LOOKUP of "." and "..": the kernel sends them only for export
 * (fs/fuse/inode.c, Linux 6.x: fuse_get_dentry looks up "." in the node of
 * a file handle whose inode it dropped, of any file type; fuse_get_parent
 * looks up ".." in a directory to reconnect it).  The kernel may hold no
 * lookup count on the node, so it may be gone: rvf_iget finds it only
 * while its inode lives.  An inode that lives on unlinked (a reference
 * still held somewhere) is gone for a handle too, as on tmpfs, whose
 * shmem_fh_to_dentry finds no alias for it: ESTALE.  The kernel compares
 * the reply's generation with the handle's as well (fuse_get_dentry).
 */
static int lookup_dot(fuse_ino_t ino, bool dotdot, struct fuse_entry_param *e)
{
	struct inode *inode = rvf_iget(ino), *parent;
	int err;

	if (!inode)
		return -ESTALE;
	if (!dotdot) {
		if (READ_ONCE(inode->i_nlink) == 0) {
			rvf_iput(inode);
			return -ESTALE;
		}
		if (inode == rvf.root)
			ihold(inode); /* make_entry consumes a reference */
		make_entry(inode, e); /* the reference becomes the lookup count */
		return 0;
	}
	err = vfs_lookup(inode, "..", &parent);
	rvf_iput(inode);
	if (err)
		return err;
	make_entry(parent, e);
	return 0;
}

int rvf_op_lookup(const struct rvf_ctx *ctx, fuse_ino_t parent, const char *name,
		  struct fuse_entry_param *e)
{
	struct inode *dir, *inode;
	int err;

	if (rvf_ino_is_ctl(parent) || reserved_name(parent, name))
		return rvf_ctl_lookup(parent, name, e);
	rvf_enter();
	if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
		return lookup_dot(parent, name[1] == '.', e);
	dir = rvf_iget(parent);
	if (!dir)
		return -ESTALE;
	err = vfs_lookup(dir, name, &inode);
	rvf_iput(dir);
	if (err)
		return err;
	make_entry(inode, e);
	return 0;
}

void rvf_op_forget(fuse_ino_t ino, uint64_t nlookup)
{
	struct inode *inode;

	if (ino == FUSE_ROOT_ID || rvf_ino_is_ctl(ino) || !nlookup)
		return;
	rvf_enter();
	inode = rvf_iget(ino);
	if (!inode)
		return; /* not a node the kernel holds: nothing to drop */
	__atomic_fetch_sub(nlookup_of(inode), (uintptr_t)nlookup, __ATOMIC_RELAXED);
	while (nlookup--)
		iput(inode);
	iput(inode); /* ours: the last one may free it */
}

int rvf_op_getattr(const struct rvf_ctx *ctx, fuse_ino_t ino, const uint64_t *fh, struct stat *st,
		   double *timeout)
{
	struct inode *inode;

	*timeout = rvf.cfg.attr_timeout;
	if (rvf_ino_is_ctl(ino))
		return rvf_ctl_getattr(ino, st);
	rvf_enter();
	inode = rvf_iget(ino);
	if (!inode)
		return -ESTALE;
	/* stat and fstat both arrive here without a handle: the seqcount path */
	inode_stat(inode, st);
	rvf_iput(inode);
	return 0;
}

static int setattr_inode(const struct rvf_ctx *ctx, struct inode *inode, const struct stat *attr,
			 int to_set, const uint64_t *fh, struct stat *st)
{
	struct file *file = NULL;
	struct iattr ia;
	int err;

	if (fh) {
		file = rvf_fget(*fh);
		if (!file)
			return -EBADF;
		if (file->f_inode != inode) {
			fput(file);
			return -EBADF;
		}
	}
	memset(&ia, 0, sizeof(ia));
	if (to_set & FUSE_SET_ATTR_MODE) {
		ia.ia_valid |= ATTR_MODE;
		ia.ia_mode = attr->st_mode;
	}
	if (to_set & FUSE_SET_ATTR_UID) {
		ia.ia_valid |= ATTR_UID;
		ia.ia_uid = attr->st_uid;
	}
	if (to_set & FUSE_SET_ATTR_GID) {
		ia.ia_valid |= ATTR_GID;
		ia.ia_gid = attr->st_gid;
	}
	if (to_set & FUSE_SET_ATTR_SIZE) {
		ia.ia_valid |= ATTR_SIZE;
		ia.ia_size = attr->st_size;
	}
	if (to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_ATIME_NOW)) {
		ia.ia_valid |= ATTR_ATIME;
		if (!(to_set & FUSE_SET_ATTR_ATIME_NOW)) {
			ia.ia_valid |= ATTR_ATIME_SET;
			ia.ia_atime = attr->st_atim;
		}
	}
	if (to_set & (FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW)) {
		ia.ia_valid |= ATTR_MTIME;
		if (!(to_set & FUSE_SET_ATTR_MTIME_NOW)) {
			ia.ia_valid |= ATTR_MTIME_SET;
			ia.ia_mtime = attr->st_mtim;
		}
	}
	/*
	 * chown(path, -1, -1) reaches the kernel's notify_change as
	 * ATTR_CTIME alone, which the kernel's FUSE client forwards only
	 * with a writeback cache: here it is a SETATTR with nothing valid.
	 * tmpfs (shmem_setattr via setattr_copy) sets ctime to now for it,
	 * and so do we.
	 */
	if ((to_set & FUSE_SET_ATTR_CTIME) || !to_set)
		ia.ia_valid |= ATTR_CTIME;
	/*
	 * The kernel's ATTR_KILL_SUID/SGID, left to us (privs_to_drop): a
	 * chown drops them as chown_common says, a truncate as do_truncate
	 * does.  A SETATTR with nothing valid is chown(f, -1, -1) or
	 * file_remove_privs's notify_change before a write: the same bits for
	 * a caller without CAP_FSETID, and only a chown reaches here from one
	 * with it, so chown's rule serves both.  setattr_prepare would refuse
	 * the mode change to a non-owner (EPERM), but a write's stripping
	 * passes ATTR_FORCE, which the request does not carry: only an
	 * explicit chown gets EPERM here.
	 */
	if (to_set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID) || !to_set) {
		unsigned int kill = privs_to_drop(ctx, inode, true);

		if (kill && to_set && ctx->uid != 0 && ctx->uid != READ_ONCE(inode->i_uid)) {
			if (file)
				fput(file);
			return -EPERM;
		}
		ia.ia_valid |= kill;
	} else if (to_set & FUSE_SET_ATTR_SIZE)
		ia.ia_valid |= privs_to_drop(ctx, inode, false);
	/* vfs_setattr takes the BKL itself when bkl_ops has setattr */
	err = ia.ia_valid ? vfs_setattr(inode, &ia) : 0;
	if (file)
		fput(file);
	if (!err)
		inode_stat(inode, st);
	return err;
}

int rvf_op_setattr(const struct rvf_ctx *ctx, fuse_ino_t ino, const struct stat *attr, int to_set,
		   const uint64_t *fh, struct stat *st, double *timeout)
{
	struct inode *inode;
	int err;

	*timeout = rvf.cfg.attr_timeout;
	if (rvf_ino_is_ctl(ino))
		return -EPERM;
	rvf_enter();
	inode = rvf_iget(ino);
	if (!inode)
		return -ESTALE;
	err = setattr_inode(ctx, inode, attr, to_set, fh, st);
	rvf_iput(inode);
	return err;
}

int rvf_op_readlink(const struct rvf_ctx *ctx, fuse_ino_t ino, char *buf, size_t len)
{
	struct inode *inode;
	ssize_t n;

	if (rvf_ino_is_ctl(ino))
		return -EINVAL;
	rvf_enter();
	inode = rvf_iget(ino);
	if (!inode)
		return -ESTALE;
	n = vfs_readlink(inode, buf, len - 1);
	rvf_iput(inode);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return 0;
}

/* Common tail of the ops that create a name. */
static int new_entry(int err, struct inode *inode, struct fuse_entry_param *e)
{
	if (err)
		return err;
	make_entry(inode, e);
	return 0;
}

int rvf_op_mknod(const struct rvf_ctx *ctx, fuse_ino_t parent, const char *name, mode_t mode,
		 dev_t rdev, struct fuse_entry_param *e)
{
	struct inode *dir, *inode = NULL;
	struct cred c;
	int err;

	err = may_create(parent, name);
	if (err)
		return err;
	rvf_enter();
	dir = rvf_iget(parent);
	if (!dir)
		return -ESTALE;
	err = vfs_mknod(dir, name, mode, rdev, ctx_cred(ctx, &c), &inode);
	rvf_iput(dir);
	return new_entry(err, inode, e);
}

int rvf_op_mkdir(const struct rvf_ctx *ctx, fuse_ino_t parent, const char *name, mode_t mode,
		 struct fuse_entry_param *e)
{
	struct inode *dir, *inode = NULL;
	struct cred c;
	int err;

	err = may_create(parent, name);
	if (err)
		return err;
	rvf_enter();
	dir = rvf_iget(parent);
	if (!dir)
		return -ESTALE;
	err = vfs_mkdir(dir, name, mode, ctx_cred(ctx, &c), &inode);
	rvf_iput(dir);
	return new_entry(err, inode, e);
}

int rvf_op_symlink(const struct rvf_ctx *ctx, const char *target, fuse_ino_t parent,
		   const char *name, struct fuse_entry_param *e)
{
	struct inode *dir, *inode = NULL;
	struct cred c;
	int err;

	err = may_create(parent, name);
	if (err)
		return err;
	rvf_enter();
	dir = rvf_iget(parent);
	if (!dir)
		return -ESTALE;
	err = vfs_symlink(dir, name, target, ctx_cred(ctx, &c), &inode);
	rvf_iput(dir);
	return new_entry(err, inode, e);
}

int rvf_op_link(const struct rvf_ctx *ctx, fuse_ino_t ino, fuse_ino_t newparent,
		const char *newname, struct fuse_entry_param *e)
{
	struct inode *inode, *dir;
	int err;

	if (rvf_ino_is_ctl(ino))
		return -EPERM;
	err = may_create(newparent, newname);
	if (err)
		return err;
	rvf_enter();
	inode = rvf_iget(ino);
	dir = rvf_iget(newparent);
	err = inode && dir ? vfs_link(inode, dir, newname) : -ESTALE;
	if (dir)
		rvf_iput(dir);
	if (err) {
		if (inode)
			rvf_iput(inode);
		return err;
	}
	if (inode == rvf.root)
		ihold(inode);
	make_entry(inode, e); /* our reference becomes the lookup count */
	return 0;
}

int rvf_op_unlink(const struct rvf_ctx *ctx, fuse_ino_t parent, const char *name)
{
	struct inode *dir;
	int err;

	if (rvf_ino_is_ctl(parent) || reserved_name(parent, name))
		return -EPERM;
	rvf_enter();
	dir = rvf_iget(parent);
	if (!dir)
		return -ESTALE;
	err = vfs_unlink(dir, name);
	rvf_iput(dir);
	return err;
}

int rvf_op_rmdir(const struct rvf_ctx *ctx, fuse_ino_t parent, const char *name)
{
	struct inode *dir;
	int err;

	if (rvf_ino_is_ctl(parent) || reserved_name(parent, name))
		return -EPERM;
	rvf_enter();
	dir = rvf_iget(parent);
	if (!dir)
		return -ESTALE;
	err = vfs_rmdir(dir, name);
	rvf_iput(dir);
	return err;
}

int rvf_op_rename(const struct rvf_ctx *ctx, fuse_ino_t parent, const char *name,
		  fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	struct inode *dir, *newdir;
	struct cred c;
	int err;

	if (rvf_ino_is_ctl(parent) || rvf_ino_is_ctl(newparent) || reserved_name(parent, name) ||
	    reserved_name(newparent, newname))
		return -EPERM;
	rvf_enter();
	dir = rvf_iget(parent);
	newdir = rvf_iget(newparent);
	/* RENAME_WHITEOUT: the whiteout is the caller's, as shmem_mknod makes it */
	err = dir && newdir ? vfs_rename_cred(dir, name, newdir, newname, flags, ctx_cred(ctx, &c))
			    : -ESTALE;
	if (dir)
		rvf_iput(dir);
	if (newdir)
		rvf_iput(newdir);
	return err;
}

/* ---- handles ------------------------------------------------------------------ */

int rvf_fh_install(struct file *file, uint64_t *fh)
{
	int fd = get_unused_fd_flags(0);

	if (fd < 0) {
		fput(file);
		return fd;
	}
	/* read the generation before fd_install publishes (and may lose) the file */
	*fh = (uint64_t)(unsigned int)fd | ((uint64_t)(uint32_t)file->f_gen << 32);
	fd_install((unsigned int)fd, file);
	return 0;
}

/* Close the fd behind fh (release, releasedir), dropping its locks first. */
static int fh_close(uint64_t fh)
{
	struct file *file = rvf_fget(fh);

	if (!file)
		return -EBADF;
	rvf_locks_release(file, fh);
	fput(file);
	/*
	 * The kernel sends one release per handle, so nobody else closes this
	 * fd between the check above and close_fd; a forged handle racing its
	 * own release is the only way to close a reused fd, and both are bugs
	 * of the sender.
	 */
	/* the last fput's release runs under the BKL when bkl_ops has release */
	return close_fd((unsigned int)fh);
}

/*
 * The model file's flags for a FUSE open.  O_APPEND stays with the kernel:
 * the FUSE kernel side turns it into the offset of each FUSE_WRITE
 * (generic_write_checks_count() sets ki_pos to i_size for IOCB_APPEND, under
 * the inode lock fuse_cache_write_iter() holds across the request; Linux
 * 6.x), and the write-back of a mapped page (FUSE_WRITE_CACHE) carries the
 * page's own offset, which an O_APPEND model file would move to EOF.
 */
static int open_flags(int flags)
{
	return flags & (O_ACCMODE | O_TRUNC);
}

int rvf_op_open(const struct rvf_ctx *ctx, fuse_ino_t ino, int flags, uint64_t *fh, int *direct_io)
{
	struct inode *inode;
	struct file *file;
	int err;

	*direct_io = 0;
	if (rvf_ino_is_ctl(ino)) {
		*direct_io = 1;
		return rvf_ctl_open(ino, flags, fh);
	}
	rvf_enter();
	inode = rvf_iget(ino);
	if (!inode)
		return -ESTALE;
	/* O_TRUNC: do_truncate's privilege stripping (the kernel truncates
	 * through this open: atomic_o_trunc) */
	if (flags & O_TRUNC)
		kill_privs(ctx, inode);
	/* the open runs under the BKL when bkl_ops has open (vfs/) */
	err = vfs_open_inode(inode, open_flags(flags), &file);
	rvf_iput(inode);
	if (err)
		return err;
	return rvf_fh_install(file, fh);
}

int rvf_op_create(const struct rvf_ctx *ctx, fuse_ino_t parent, const char *name, mode_t mode,
		  int flags, struct fuse_entry_param *e, uint64_t *fh)
{
	struct inode *dir, *inode;
	struct file *file;
	struct cred c;
	int err;

	err = may_create(parent, name);
	if (err)
		return err;
	rvf_enter();
	dir = rvf_iget(parent);
	if (!dir)
		return -ESTALE;
	err = vfs_create(dir, name, (mode & 07777) | S_IFREG, ctx_cred(ctx, &c), &inode);
	rvf_iput(dir);
	if (err)
		return err;
	err = vfs_open_inode(inode, open_flags(flags) & ~O_TRUNC, &file);
	if (!err)
		err = rvf_fh_install(file, fh);
	if (err) {
		iput(inode); /* the name stays, as when a kernel create's open fails */
		return err;
	}
	make_entry(inode, e);
	return 0;
}

ssize_t rvf_op_read(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, char *buf, size_t size,
		    off_t off)
{
	struct file *file;
	int64_t pos = off;
	ssize_t n;

	if (rvf_ino_is_ctl(ino))
		return rvf_ctl_read(ino, fh, buf, size, off);
	rvf_enter();
	file = rvf_fget(fh);
	if (!file)
		return -EBADF;
	n = vfs_read(file, buf, size, &pos);
	fput(file);
	return n;
}

ssize_t rvf_op_write(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, const char *buf,
		     size_t size, off_t off)
{
	struct file *file;
	int64_t pos = off;
	ssize_t n;

	if (rvf_ino_is_ctl(ino))
		return -EBADF;
	rvf_enter();
	file = rvf_fget(fh);
	if (!file)
		return -EBADF;
	kill_privs(ctx, file->f_inode); /* file_remove_privs */
	n = vfs_write(file, buf, size, &pos);
	fput(file);
	return n;
}

int rvf_op_flush(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, uint64_t lock_owner)
{
	struct file *file;

	if (rvf_ino_is_ctl(ino))
		return 0;
	rvf_enter();
	file = rvf_fget(fh);
	if (!file)
		return -EBADF;
	rvf_locks_flush(file, lock_owner);
	fput(file);
	return 0;
}

int rvf_op_release(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh)
{
	if (rvf_ino_is_ctl(ino))
		return rvf_ctl_release(ino, fh);
	rvf_enter();
	return fh_close(fh);
}

int rvf_op_fsync(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, int datasync)
{
	struct file *file;
	int err;

	if (rvf_ino_is_ctl(ino))
		return 0;
	rvf_enter();
	file = rvf_fget(fh);
	if (!file)
		return -EBADF;
	err = vfs_fsync(file, datasync);
	fput(file);
	return err;
}

int rvf_op_opendir(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t *fh)
{
	struct inode *inode;
	struct file *file;
	int err;

	if (rvf_ino_is_ctl(ino))
		return rvf_ctl_open(ino, O_RDONLY, fh);
	rvf_enter();
	inode = rvf_iget(ino);
	if (!inode)
		return -ESTALE;
	err = vfs_open_inode(inode, O_RDONLY | O_DIRECTORY, &file);
	rvf_iput(inode);
	if (err)
		return err;
	return rvf_fh_install(file, fh);
}

int rvf_op_releasedir(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh)
{
	if (rvf_ino_is_ctl(ino))
		return 0;
	rvf_enter();
	return fh_close(fh);
}

/* ---- readdir ------------------------------------------------------------------ */

struct rd_plain {
	const struct rvf_ctx *ctx;
	char *buf;
	size_t size, pos;
	bool root;
};

static int rd_plain_actor(void *arg, const char *name, size_t namelen, uint64_t ino, unsigned dtype,
			  int64_t next_pos)
{
	struct rd_plain *rd = arg;
	struct stat st;
	char nm[NAME_MAX_LEN + 1];
	size_t sz;

	if (namelen > NAME_MAX_LEN)
		return 0;
	memcpy(nm, name, namelen);
	nm[namelen] = '\0';
	if (rd->root && !strcmp(nm, RVF_CTL_NAME))
		return 0; /* hidden behind the control directory */
	memset(&st, 0, sizeof(st));
	st.st_ino = ino;
	st.st_mode = dtype << 12;
	sz = fuse_add_direntry(rd->ctx->req, rd->buf + rd->pos, rd->size - rd->pos, nm, &st,
			       next_pos);
	if (sz > rd->size - rd->pos)
		return 1; /* does not fit: not emitted, the next call resumes here */
	rd->pos += sz;
	return 0;
}

/* readdirplus: names first (under the directory lock), lookups after. */
struct rd_name {
	int64_t next_pos;
	uint64_t ino;
	char name[];
};

struct rd_collect {
	struct rd_name **v;
	size_t n, cap;
	size_t budget; /* estimated reply bytes still free */
	bool root;
};

static int rd_collect_actor(void *arg, const char *name, size_t namelen, uint64_t ino,
			    unsigned dtype, int64_t next_pos)
{
	struct rd_collect *rc = arg;
	struct rd_name *r;
	size_t est = fuse_add_direntry_plus(NULL, NULL, 0, "", NULL, 0) + ((namelen + 7) & ~7ul);

	if (est > rc->budget)
		return 1;
	if (rc->root && namelen == strlen(RVF_CTL_NAME) && !memcmp(name, RVF_CTL_NAME, namelen))
		return 0;
	if (rc->n == rc->cap) {
		struct rd_name **nv;

		rc->cap = rc->cap ? 2 * rc->cap : 64;
		nv = realloc(rc->v, rc->cap * sizeof(*nv));
		if (!nv)
			return 1;
		rc->v = nv;
	}
	r = malloc(sizeof(*r) + namelen + 1);
	if (!r)
		return 1;
	r->next_pos = next_pos;
	r->ino = ino;
	memcpy(r->name, name, namelen);
	r->name[namelen] = '\0';
	rc->v[rc->n++] = r;
	rc->budget -= est;
	return 0;
}

static int readdir_plus(const struct rvf_ctx *ctx, struct file *file, off_t off, char *buf,
			size_t size, size_t *used)
{
	struct inode *dir = file->f_inode;
	struct rd_collect rc = {NULL, 0, 0, size, dir == rvf.root};
	struct fuse_entry_param e;
	struct inode *inode;
	size_t pos = 0, i, sz;
	int64_t ret;
	bool full = false;

	ret = vfs_iterate_dir(file, off, rd_collect_actor, &rc);
	for (i = 0; i < rc.n; i++) {
		struct rd_name *r = rc.v[i];
		bool dot = !strcmp(r->name, ".") || !strcmp(r->name, "..");

		if (full)
			goto next;
		memset(&e, 0, sizeof(e));
		inode = NULL;
		if (dot) {
			/* the kernel takes no lookup count for . and ..: attributes only */
			e.attr.st_ino = r->ino;
			e.attr.st_mode = S_IFDIR;
		} else if (vfs_lookup(dir, r->name, &inode) == 0) {
			e.ino = rvf_ino(inode);
			e.generation = inode->i_generation;
			inode_stat(inode, &e.attr);
			e.attr_timeout = rvf.cfg.attr_timeout;
			e.entry_timeout = rvf.cfg.entry_timeout;
		} else {
			goto next; /* removed since the walk: skip it */
		}
		sz = fuse_add_direntry_plus(ctx->req, buf + pos, size - pos, r->name, &e,
					    r->next_pos);
		if (sz > size - pos) {
			full = true; /* not returned: no lookup count */
			if (inode)
				iput(inode);
			goto next;
		}
		pos += sz;
		if (inode) {
			if (inode == rvf.root)
				iput(inode);
			else
				__atomic_fetch_add(nlookup_of(inode), 1, __ATOMIC_RELAXED);
		}
	next:
		free(r);
	}
	free(rc.v);
	*used = pos;
	return ret < 0 ? (int)ret : 0;
}

int rvf_op_readdir(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, off_t off, int plus,
		   char *buf, size_t size, size_t *used)
{
	struct rd_plain rd = {ctx, buf, size, 0, false};
	struct file *file;
	struct inode *dir;
	int64_t ret;
	int err = 0;

	*used = 0;
	if (rvf_ino_is_ctl(ino))
		return rvf_ctl_readdir(ino, off, plus, ctx->req, buf, size, used);
	rvf_enter();
	file = rvf_fget(fh);
	if (!file)
		return -EBADF;
	dir = file->f_inode;
	if (plus) {
		err = readdir_plus(ctx, file, off, buf, size, used);
	} else {
		rd.root = dir == rvf.root;
		ret = vfs_iterate_dir(file, off, rd_plain_actor, &rd);
		if (ret < 0)
			err = (int)ret;
		*used = rd.pos;
	}
	fput(file);
	return err;
}

/* ---- the rest ------------------------------------------------------------------ */

int rvf_op_statfs(const struct rvf_ctx *ctx, fuse_ino_t ino, struct statvfs *st)
{
	struct kstatfs ks;

	rvf_enter();
	vfs_statfs(&ks);
	memset(st, 0, sizeof(*st));
	st->f_bsize = ks.f_bsize;
	st->f_frsize = ks.f_bsize;
	st->f_blocks = ks.f_blocks;
	st->f_bfree = ks.f_bfree;
	st->f_bavail = ks.f_bavail;
	st->f_files = ks.f_files;
	st->f_ffree = ks.f_ffree;
	st->f_favail = ks.f_ffree;
	st->f_namemax = ks.f_namelen;
	return 0;
}

/* access(2) when the kernel asks (it checks modes itself: default_permissions). */
int rvf_op_access(const struct rvf_ctx *ctx, fuse_ino_t ino, int mask)
{
	struct stat st;
	unsigned int bits;

	if (rvf_ino_is_ctl(ino)) {
		rvf_ctl_getattr(ino, &st);
	} else {
		struct inode *inode;

		rvf_enter();
		inode = rvf_iget(ino);
		if (!inode)
			return -ESTALE;
		inode_stat(inode, &st);
		rvf_iput(inode);
	}
	if (mask == F_OK)
		return 0;
	if (ctx->uid == 0) {
		/* root: everything but executing a file nobody may execute */
		if ((mask & X_OK) && !S_ISDIR(st.st_mode) && !(st.st_mode & 0111))
			return -EACCES;
		return 0;
	}
	if (ctx->uid == st.st_uid)
		bits = (st.st_mode >> 6) & 7;
	else if (ctx->gid == st.st_gid)
		bits = (st.st_mode >> 3) & 7;
	else
		bits = st.st_mode & 7;
	return ((unsigned int)mask & ~bits) ? -EACCES : 0;
}

int rvf_op_fallocate(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, int mode, off_t off,
		     off_t len)
{
	struct file *file;
	int err;

	if (rvf_ino_is_ctl(ino))
		return -EBADF;
	rvf_enter();
	file = rvf_fget(fh);
	if (!file)
		return -EBADF;
	kill_privs(ctx, file->f_inode); /* fuse_file_fallocate's file_modified */
	/* the modes tmpfs has (vfs_fallocate says EOPNOTSUPP to the others) */
	err = vfs_fallocate(file, mode, off, len);
	fput(file);
	return err;
}

int rvf_op_lseek(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, off_t off, int whence,
		 off_t *out)
{
	struct file *file;
	int64_t ret;

	if (rvf_ino_is_ctl(ino))
		return -ESPIPE;
	rvf_enter();
	file = rvf_fget(fh);
	if (!file)
		return -EBADF;
	ret = vfs_llseek(file, off, whence);
	fput(file);
	if (ret < 0)
		return (int)ret;
	*out = ret;
	return 0;
}

/*
 * The ioctls the model answers, with what each reads and writes: rcuvfs's
 * restricted commands (RCUVFS_IOC_*, under the BKL with bkl_ops=ioctl) and
 * the file-attribute ones the kernel's fuse_fileattr_get/set send for
 * lsattr/chattr (FS_IOC_GETFLAGS/SETFLAGS with a 4-byte word, whatever the
 * command's encoded size, and FS_IOC_FSGETXATTR/FSSETXATTR).  Anything
 * else, including a known number with a buffer too small, is ENOTTY: the
 * answer of a file system without that ioctl (vfs_ioctl's -ENOIOCTLCMD).
 */
static const struct {
	unsigned int cmd;
	size_t in, out;
} rvf_ioctls[] = {
    {RCUVFS_IOC_NOP, 0, 0},
    {RCUVFS_IOC_GETGEN, 0, sizeof(uint64_t)},
    {RCUVFS_IOC_GETVERSION, 0, sizeof(uint64_t)},
    {FS_IOC_GETFLAGS, 0, sizeof(unsigned int)},
    {FS_IOC_SETFLAGS, sizeof(unsigned int), 0},
    {FS_IOC_FSGETXATTR, 0, sizeof(struct fsxattr)},
    {FS_IOC_FSSETXATTR, sizeof(struct fsxattr), 0},
};

int rvf_op_ioctl(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, unsigned int cmd,
		 const void *in, size_t in_size, void *out, size_t out_size, size_t *out_len)
{
	union {
		uint64_t u64;
		unsigned int flags;
		struct fsxattr fsx;
	} buf;
	struct file *file;
	size_t i;
	long ret;

	*out_len = 0;
	if (rvf_ino_is_ctl(ino))
		return -ENOTTY;
	for (i = 0; i < ARRAY_SIZE(rvf_ioctls); i++)
		if (rvf_ioctls[i].cmd == cmd)
			break;
	if (i == ARRAY_SIZE(rvf_ioctls) || in_size < rvf_ioctls[i].in ||
	    out_size < rvf_ioctls[i].out)
		return -ENOTTY;
	memset(&buf, 0, sizeof(buf));
	if (rvf_ioctls[i].in)
		memcpy(&buf, in, rvf_ioctls[i].in);
	rvf_enter();
	file = rvf_fget(fh);
	if (!file)
		return -EBADF;
	ret = vfs_ioctl(file, cmd, (unsigned long)(uintptr_t)&buf);
	fput(file);
	if (ret < 0)
		return (int)ret;
	if (rvf_ioctls[i].out) {
		memcpy(out, &buf, rvf_ioctls[i].out);
		*out_len = rvf_ioctls[i].out;
	}
	return 0;
}

/* ---- extended attributes (vfs/xattr.c); the control files have none ---- */

int rvf_op_setxattr(const struct rvf_ctx *ctx, fuse_ino_t ino, const char *name, const void *value,
		    size_t size, int flags)
{
	struct inode *inode;
	int ret;
	struct cred c;

	if (rvf_ino_is_ctl(ino))
		return -EPERM;
	rvf_enter();
	inode = rvf_iget(ino);
	if (!inode)
		return -ESTALE;
	ret = vfs_setxattr(inode, name, value, size, flags, ctx_cred(ctx, &c));
	rvf_iput(inode);
	return ret;
}

ssize_t rvf_op_getxattr(const struct rvf_ctx *ctx, fuse_ino_t ino, const char *name, void *buf,
			size_t size)
{
	struct inode *inode;
	ssize_t ret;
	struct cred c;

	if (rvf_ino_is_ctl(ino))
		return -ENODATA;
	rvf_enter();
	inode = rvf_iget(ino);
	if (!inode)
		return -ESTALE;
	ret = vfs_getxattr(inode, name, buf, size, ctx_cred(ctx, &c));
	rvf_iput(inode);
	return ret;
}

ssize_t rvf_op_listxattr(const struct rvf_ctx *ctx, fuse_ino_t ino, char *buf, size_t size)
{
	struct inode *inode;
	ssize_t ret;
	struct cred c;

	if (rvf_ino_is_ctl(ino))
		return 0;
	rvf_enter();
	inode = rvf_iget(ino);
	if (!inode)
		return -ESTALE;
	ret = vfs_listxattr(inode, buf, size, ctx_cred(ctx, &c));
	rvf_iput(inode);
	return ret;
}

int rvf_op_removexattr(const struct rvf_ctx *ctx, fuse_ino_t ino, const char *name)
{
	struct inode *inode;
	int ret;
	struct cred c;

	if (rvf_ino_is_ctl(ino))
		return -EPERM;
	rvf_enter();
	inode = rvf_iget(ino);
	if (!inode)
		return -ESTALE;
	ret = vfs_removexattr(inode, name, ctx_cred(ctx, &c));
	rvf_iput(inode);
	return ret;
}
