// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuse/ll.c - the libfuse low-level adapter: one lo_* function per FUSE
 * request, each decoding its arguments, calling the matching rvf_op_* and
 * replying exactly once.  The request counters (req_<op> in the stats
 * registry, shown in /.rcuvfs/stats) are bumped here.
 *
 * Locking: none; the ops take what they need.
 */
#include "fuse/daemon.h"

#include <stdlib.h>
#include <string.h>

#define RVF_DEFINE_REQ_STAT(op) RV_STAT_DEFINE(req_##op, "FUSE " #op " requests")
RVF_DEFINE_REQ_STAT(init)
RVF_DEFINE_REQ_STAT(destroy)
RVF_DEFINE_REQ_STAT(lookup)
RVF_DEFINE_REQ_STAT(forget)
RVF_DEFINE_REQ_STAT(getattr)
RVF_DEFINE_REQ_STAT(setattr)
RVF_DEFINE_REQ_STAT(readlink)
RVF_DEFINE_REQ_STAT(mknod)
RVF_DEFINE_REQ_STAT(mkdir)
RVF_DEFINE_REQ_STAT(unlink)
RVF_DEFINE_REQ_STAT(rmdir)
RVF_DEFINE_REQ_STAT(symlink)
RVF_DEFINE_REQ_STAT(rename)
RVF_DEFINE_REQ_STAT(link)
RVF_DEFINE_REQ_STAT(open)
RVF_DEFINE_REQ_STAT(read)
RVF_DEFINE_REQ_STAT(write)
RVF_DEFINE_REQ_STAT(flush)
RVF_DEFINE_REQ_STAT(release)
RVF_DEFINE_REQ_STAT(fsync)
RVF_DEFINE_REQ_STAT(opendir)
RVF_DEFINE_REQ_STAT(readdir)
RVF_DEFINE_REQ_STAT(readdirplus)
RVF_DEFINE_REQ_STAT(releasedir)
RVF_DEFINE_REQ_STAT(statfs)
RVF_DEFINE_REQ_STAT(access)
RVF_DEFINE_REQ_STAT(create)
RVF_DEFINE_REQ_STAT(fallocate)
RVF_DEFINE_REQ_STAT(lseek)
RVF_DEFINE_REQ_STAT(ioctl)
RVF_DEFINE_REQ_STAT(setxattr)
RVF_DEFINE_REQ_STAT(getxattr)
RVF_DEFINE_REQ_STAT(listxattr)
RVF_DEFINE_REQ_STAT(removexattr)

int rvf_writeback_cache;

static struct rvf_ctx req_ctx(fuse_req_t req)
{
	const struct fuse_ctx *fc = fuse_req_ctx(req);
	struct rvf_ctx c = {fc->uid, fc->gid, fc->pid, fc->umask, req};

	return c;
}

static void reply_entry(fuse_req_t req, int err, const struct fuse_entry_param *e)
{
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_entry(req, e);
}

static void lo_init(void *userdata, struct fuse_conn_info *conn)
{
	rv_stat_inc(req_init);
	/* stat/lookup must reach the daemon: no kernel-side caching of data
	 * beyond what timeouts allow; writes go through (no writeback cache). */
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	/*
	 * The kernel's page cache of the mount is the only copy readers see,
	 * and nothing but this kernel changes the model's files, so it is
	 * never stale: keep it (keep_cache at open, below) and do not let
	 * attribute replies drop it.  With auto_inval_data (libfuse's
	 * default) every read after a write sent GETATTR, and the new mtime
	 * made fuse_change_attributes() (fs/fuse/inode.c, Linux 6.x) call
	 * invalidate_inode_pages2() on the whole file while other processes
	 * were writing it through that cache: a folio dropped after a
	 * writer's copy into it and read back (FUSE_READ) before the
	 * writer's FUSE_WRITE reached the model held the old record, and one
	 * read back while the model was copying the write held half of it;
	 * a reader that skipped GETATTR (attributes fresh within the jiffy)
	 * or met the new mtime already cached while the invalidating reply's
	 * walk had not reached that folio yet read it under a lock that
	 * excluded the writer: stale and torn locked reads
	 * (rcuvfs-tornread, integration.apps).  Without auto_inval_data a
	 * size change still drops the cache past the new size.
	 */
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	/*
	 * -o apps: the kernel also keeps written data and sends it in page
	 * runs (writeback cache; it keeps mtime and sends it with SETATTR),
	 * and symlink targets.  Missing names are kept for entry_timeout
	 * (lo_lookup).
	 */
	if (rvf.cfg.apps && (conn->capable & FUSE_CAP_WRITEBACK_CACHE)) {
		conn->want |= FUSE_CAP_WRITEBACK_CACHE;
		rvf_writeback_cache = 1;
	}
	if (rvf.cfg.apps && (conn->capable & FUSE_CAP_CACHE_SYMLINKS))
		conn->want |= FUSE_CAP_CACHE_SYMLINKS;
	/* locks go to the model (the kernel then stops handling them locally) */
	if (conn->capable & FUSE_CAP_POSIX_LOCKS)
		conn->want |= FUSE_CAP_POSIX_LOCKS;
	if (conn->capable & FUSE_CAP_FLOCK_LOCKS)
		conn->want |= FUSE_CAP_FLOCK_LOCKS;
	/*
	 * Privilege stripping by the model (fuse/ops.c kill_privs): the kernel
	 * then leaves S_ISUID/S_ISGID to us, where it would apply the pre-6.2
	 * rule itself (fuse_setattr: setgid only with group execute).
	 * libfuse 3.14 has no FUSE_CAP_HANDLE_KILLPRIV_V2 (later versions
	 * do), so the kernel keeps asking for security.capability before
	 * every write (no SB_NOSEC).
	 */
	if (conn->capable & FUSE_CAP_HANDLE_KILLPRIV)
		conn->want |= FUSE_CAP_HANDLE_KILLPRIV;
	/* file handles (name_to_handle_at, NFS export) that outlive the
	 * kernel's inode: it looks the node up again by "." (ops.c lookup_dot) */
	if (conn->capable & FUSE_CAP_EXPORT_SUPPORT)
		conn->want |= FUSE_CAP_EXPORT_SUPPORT;
}

static void lo_destroy(void *userdata)
{
	rv_stat_inc(req_destroy);
}

static void lo_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct rvf_ctx c = req_ctx(req);
	struct fuse_entry_param e;
	int err;

	rv_stat_inc(req_lookup);
	err = rvf_op_lookup(&c, parent, name, &e);
	if (err == -ENOENT && rvf.cfg.apps && rvf.cfg.entry_timeout > 0) {
		/* -o apps: a negative entry the kernel keeps (node id 0) */
		memset(&e, 0, sizeof(e));
		e.entry_timeout = rvf.cfg.entry_timeout;
		err = 0;
	}
	reply_entry(req, err, &e);
}

static void lo_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	rv_stat_inc(req_forget);
	rvf_op_forget(ino, nlookup);
	fuse_reply_none(req);
}

static void lo_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	size_t i;

	rv_stat_add(req_forget, count);
	for (i = 0; i < count; i++)
		rvf_op_forget(forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

static void lo_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rvf_ctx c = req_ctx(req);
	struct stat st;
	double timeout;
	int err;

	rv_stat_inc(req_getattr);
	err = rvf_op_getattr(&c, ino, fi ? &fi->fh : NULL, &st, &timeout);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_attr(req, &st, timeout);
}

static void lo_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		       struct fuse_file_info *fi)
{
	struct rvf_ctx c = req_ctx(req);
	struct stat st;
	double timeout;
	int err;

	rv_stat_inc(req_setattr);
	err = rvf_op_setattr(&c, ino, attr, to_set, fi ? &fi->fh : NULL, &st, &timeout);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_attr(req, &st, timeout);
}

static void lo_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct rvf_ctx c = req_ctx(req);
	char buf[PATH_MAX_LEN + 1];
	int err;

	rv_stat_inc(req_readlink);
	err = rvf_op_readlink(&c, ino, buf, sizeof(buf));
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_readlink(req, buf);
}

static void lo_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	struct rvf_ctx c = req_ctx(req);
	struct fuse_entry_param e;

	rv_stat_inc(req_mknod);
	reply_entry(req, rvf_op_mknod(&c, parent, name, mode, rdev, &e), &e);
}

static void lo_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct rvf_ctx c = req_ctx(req);
	struct fuse_entry_param e;

	rv_stat_inc(req_mkdir);
	reply_entry(req, rvf_op_mkdir(&c, parent, name, S_IFDIR | mode, &e), &e);
}

static void lo_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct rvf_ctx c = req_ctx(req);

	rv_stat_inc(req_unlink);
	fuse_reply_err(req, -rvf_op_unlink(&c, parent, name));
}

static void lo_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct rvf_ctx c = req_ctx(req);

	rv_stat_inc(req_rmdir);
	fuse_reply_err(req, -rvf_op_rmdir(&c, parent, name));
}

static void lo_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	struct rvf_ctx c = req_ctx(req);
	struct fuse_entry_param e;

	rv_stat_inc(req_symlink);
	reply_entry(req, rvf_op_symlink(&c, link, parent, name, &e), &e);
}

static void lo_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		      const char *newname, unsigned int flags)
{
	struct rvf_ctx c = req_ctx(req);

	rv_stat_inc(req_rename);
	fuse_reply_err(req, -rvf_op_rename(&c, parent, name, newparent, newname, flags));
}

static void lo_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	struct rvf_ctx c = req_ctx(req);
	struct fuse_entry_param e;

	rv_stat_inc(req_link);
	reply_entry(req, rvf_op_link(&c, ino, newparent, newname, &e), &e);
}

/*
 * With the writeback cache the kernel reads pages to fill partial writes
 * through whichever handle writes them, so a write-only open must read too
 * (the kernel checked the caller's permission already).
 */
static int open_flags_wb(int flags)
{
	if (rvf_writeback_cache && (flags & O_ACCMODE) == O_WRONLY)
		flags = (flags & ~O_ACCMODE) | O_RDWR;
	return flags;
}

static void lo_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rvf_ctx c = req_ctx(req);
	int err, direct_io;

	rv_stat_inc(req_open);
	err = rvf_op_open(&c, ino, open_flags_wb(fi->flags), &fi->fh, &direct_io);
	if (err) {
		fuse_reply_err(req, -err);
		return;
	}
	fi->direct_io = direct_io;
	/* the cache is this kernel's own writes (lo_init): an open keeps it */
	fi->keep_cache = !direct_io;
	if (fuse_reply_open(req, fi) == -ENOENT) /* interrupted: undo the open */
		rvf_op_release(&c, ino, fi->fh);
}

static void lo_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		      struct fuse_file_info *fi)
{
	struct rvf_ctx c = req_ctx(req);
	struct fuse_entry_param e;
	int err;

	rv_stat_inc(req_create);
	err = rvf_op_create(&c, parent, name, mode, open_flags_wb(fi->flags), &e, &fi->fh);
	if (err) {
		fuse_reply_err(req, -err);
		return;
	}
	fi->keep_cache = 1;
	if (fuse_reply_create(req, &e, fi) == -ENOENT) {
		rvf_op_release(&c, e.ino, fi->fh);
		rvf_op_forget(e.ino, 1);
	}
}

static void lo_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct rvf_ctx c = req_ctx(req);
	char *buf = malloc(size ? size : 1);
	ssize_t n;

	rv_stat_inc(req_read);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	n = rvf_op_read(&c, ino, fi->fh, buf, size, off);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_buf(req, buf, (size_t)n);
	free(buf);
}

static void lo_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct rvf_ctx c = req_ctx(req);
	ssize_t n;

	rv_stat_inc(req_write);
	n = rvf_op_write(&c, ino, fi->fh, buf, size, off);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_write(req, (size_t)n);
}

static void lo_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rvf_ctx c = req_ctx(req);

	rv_stat_inc(req_flush);
	fuse_reply_err(req, -rvf_op_flush(&c, ino, fi->fh, fi->lock_owner));
}

static void lo_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rvf_ctx c = req_ctx(req);

	rv_stat_inc(req_release);
	fuse_reply_err(req, -rvf_op_release(&c, ino, fi->fh));
}

static void lo_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	struct rvf_ctx c = req_ctx(req);

	rv_stat_inc(req_fsync);
	fuse_reply_err(req, -rvf_op_fsync(&c, ino, fi->fh, datasync));
}

static void lo_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rvf_ctx c = req_ctx(req);
	int err;

	rv_stat_inc(req_opendir);
	err = rvf_op_opendir(&c, ino, &fi->fh);
	if (err) {
		fuse_reply_err(req, -err);
		return;
	}
	if (fuse_reply_open(req, fi) == -ENOENT)
		rvf_op_releasedir(&c, ino, fi->fh);
}

static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi, int plus)
{
	struct rvf_ctx c = req_ctx(req);
	char *buf = malloc(size ? size : 1);
	size_t used;
	int err;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	err = rvf_op_readdir(&c, ino, fi->fh, off, plus, buf, size, &used);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_buf(req, buf, used);
	free(buf);
}

static void lo_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	rv_stat_inc(req_readdir);
	do_readdir(req, ino, size, off, fi, 0);
}

static void lo_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			   struct fuse_file_info *fi)
{
	rv_stat_inc(req_readdirplus);
	do_readdir(req, ino, size, off, fi, 1);
}

static void lo_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct rvf_ctx c = req_ctx(req);

	rv_stat_inc(req_releasedir);
	fuse_reply_err(req, -rvf_op_releasedir(&c, ino, fi->fh));
}

static void lo_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct rvf_ctx c = req_ctx(req);
	struct statvfs st;
	int err;

	rv_stat_inc(req_statfs);
	err = rvf_op_statfs(&c, ino, &st);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_statfs(req, &st);
}

static void lo_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	struct rvf_ctx c = req_ctx(req);

	rv_stat_inc(req_access);
	fuse_reply_err(req, -rvf_op_access(&c, ino, mask));
}

static void lo_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
			 struct fuse_file_info *fi)
{
	struct rvf_ctx c = req_ctx(req);

	rv_stat_inc(req_fallocate);
	fuse_reply_err(req, -rvf_op_fallocate(&c, ino, fi->fh, mode, offset, length));
}

static void lo_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
		     struct fuse_file_info *fi)
{
	struct rvf_ctx c = req_ctx(req);
	off_t res;
	int err;

	rv_stat_inc(req_lseek);
	err = rvf_op_lseek(&c, ino, fi->fh, off, whence, &res);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_lseek(req, res);
}

static void lo_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
		     struct fuse_file_info *fi, unsigned flags, const void *in_buf, size_t in_bufsz,
		     size_t out_bufsz)
{
	struct rvf_ctx c = req_ctx(req);
	char out[64];
	size_t len;
	int err;

	rv_stat_inc(req_ioctl);
	if (flags & FUSE_IOCTL_COMPAT) {
		fuse_reply_err(req, ENOSYS);
		return;
	}
	err = rvf_op_ioctl(&c, ino, fi->fh, cmd, in_buf, in_bufsz, out,
			   out_bufsz < sizeof(out) ? out_bufsz : sizeof(out), &len);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_ioctl(req, 0, len ? out : NULL, len);
}

static void lo_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
			size_t size, int flags)
{
	struct rvf_ctx c = req_ctx(req);

	rv_stat_inc(req_setxattr);
	fuse_reply_err(req, -rvf_op_setxattr(&c, ino, name, value, size, flags));
}

/* getxattr and listxattr: size 0 asks for the length (fuse_reply_xattr) */
static void reply_xattr(fuse_req_t req, ssize_t n, const char *buf, size_t size)
{
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else if (size == 0)
		fuse_reply_xattr(req, (size_t)n);
	else
		fuse_reply_buf(req, buf, (size_t)n);
}

static void lo_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	struct rvf_ctx c = req_ctx(req);
	char *buf = NULL;
	ssize_t n;

	rv_stat_inc(req_getxattr);
	if (size > XATTR_SIZE_MAX)
		size = XATTR_SIZE_MAX;
	if (size && !(buf = malloc(size))) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	n = rvf_op_getxattr(&c, ino, name, buf, size);
	reply_xattr(req, n, buf, size);
	free(buf);
}

static void lo_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	struct rvf_ctx c = req_ctx(req);
	char *buf = NULL;
	ssize_t n;

	rv_stat_inc(req_listxattr);
	if (size > XATTR_LIST_MAX)
		size = XATTR_LIST_MAX;
	if (size && !(buf = malloc(size))) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	n = rvf_op_listxattr(&c, ino, buf, size);
	reply_xattr(req, n, buf, size);
	free(buf);
}

static void lo_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	struct rvf_ctx c = req_ctx(req);

	rv_stat_inc(req_removexattr);
	fuse_reply_err(req, -rvf_op_removexattr(&c, ino, name));
}

const struct fuse_lowlevel_ops rvf_ll_ops = {
    .init = lo_init,
    .destroy = lo_destroy,
    .lookup = lo_lookup,
    .forget = lo_forget,
    .forget_multi = lo_forget_multi,
    .getattr = lo_getattr,
    .setattr = lo_setattr,
    .readlink = lo_readlink,
    .mknod = lo_mknod,
    .mkdir = lo_mkdir,
    .unlink = lo_unlink,
    .rmdir = lo_rmdir,
    .symlink = lo_symlink,
    .rename = lo_rename,
    .link = lo_link,
    .open = lo_open,
    .create = lo_create,
    .read = lo_read,
    .write = lo_write,
    .flush = lo_flush,
    .release = lo_release,
    .fsync = lo_fsync,
    .opendir = lo_opendir,
    .readdir = lo_readdir,
    .readdirplus = lo_readdirplus,
    .releasedir = lo_releasedir,
    .statfs = lo_statfs,
    .access = lo_access,
    .fallocate = lo_fallocate,
    .setxattr = lo_setxattr,
    .getxattr = lo_getxattr,
    .listxattr = lo_listxattr,
    .removexattr = lo_removexattr,
    .lseek = lo_lseek,
    .getlk = rvf_ll_getlk,
    .setlk = rvf_ll_setlk,
    .flock = rvf_ll_flock,
    .ioctl = lo_ioctl,
};
