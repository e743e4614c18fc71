/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuse/daemon.h - internal header of the rcuvfs FUSE daemon.
 *
 * The daemon is split so that every operation can run without a kernel:
 *   opts.c   command line: rcuvfs's own -o options (the model switches,
 *            attr_timeout, entry_timeout, max_threads, size) via fuse_opt;
 *            the rest goes to libfuse.
 *   ops.c    one function per FUSE operation (rvf_op_*), taking a small
 *            request context and returning 0 or -errno; they touch only the
 *            model (vfs, fdtable) and the control directory.
 *   ctl.c    the /.rcuvfs/ control directory (config, stats, slabinfo,
 *            locks): snapshots taken at open, served direct_io.
 *   ll.c     the thin libfuse adapter: decode a request, call rvf_op_*,
 *            reply exactly once.
 *   main.c   start-up (parse, mount, daemonize, model instance), the
 *            multithreaded loop, and teardown.
 *
 * Node ids (fuse_ino_t): FUSE_ROOT_ID is the model's root inode; the
 * control directory's objects use the small reserved ids
 * RVF_INO_CTL_DIR..RVF_INO_CTL_LAST; every other id is a model inode's
 * number (i_ino, never reused) plus RVF_NODEID_BIAS, with the inode's own
 * generation in every entry reply.  An id leads to its inode only through
 * the model's inode hash (rvf_iget: RCU lookup, get-unless-zero reference),
 * so a request naming a node that is gone (a file handle's LOOKUP of "."
 * after the kernel forgot it, export support) gets ESTALE and never
 * touches freed or reused memory.
 *
 * Lookup counts: every lookup reply (lookup, create, mknod, mkdir, symlink,
 * link, readdirplus entries actually returned) holds one inode reference
 * (ihold) and adds one to the inode's count in i_private; forget(n) drops n
 * of each.  At teardown the daemon drops the counts the kernel never forgot.
 *
 * File handles: every open file and directory is a struct file installed in
 * the daemon's model fd table (one model process whose tasks are the libfuse
 * workers); fh = fd | (uint32_t)f_gen << 32, and every request carrying fh
 * resolves it through fget + a generation check (rvf_fget), so a stale or
 * unknown handle gets EBADF; lock requests go through a per-thread cache of
 * the last handle in front of it (fuse/lockops.c lk_file), invalidated by
 * every RELEASE.  The control files' fh is their snapshot.
 */
#ifndef RCUVFS_FUSE_DAEMON_H
#define RCUVFS_FUSE_DAEMON_H

#define FUSE_USE_VERSION 314 /* >= 312: fuse_session_loop_mt takes the 3.12 loop config */
#include <fuse_lowlevel.h>
#include <sys/statvfs.h>

#include "fdtable/fdtable.h"
#include "vfs/vfs.h"

/* ---- configuration (opts.c) ------------------------------------------- */

#define RVF_DEFAULT_MAX_THREADS 64

/* -o apps: attr_timeout and entry_timeout unless given */
#define RVF_APPS_TIMEOUT 1.0

struct rvf_config {
	struct rv_switches sw;	       /* the model switches (-o name=value) */
	double attr_timeout;	       /* seconds; default 0 */
	double entry_timeout;	       /* seconds; default 0 */
	unsigned int max_threads;      /* libfuse worker limit */
	unsigned int max_idle_threads; /* idle workers kept; default max_threads */
	int foreground;		       /* -f (or -d) */
	int debug;		       /* -d */
	int singlethread;	       /* -s */
	int clone_fd;		       /* -o clone_fd */
	int test_skip_locks;	       /* -o test_skip_locks: lock requests succeed, lock nothing */
	int apps;		       /* -o apps: kernel caching for running applications */
	int attr_timeout_set;	       /* attr_timeout= given (else 0, or 1 with apps) */
	int entry_timeout_set;
	int show_help;
	int show_version;
	int list_counters; /* --list-counters: print the counter glossary */
	char *mountpoint;  /* malloc'ed by fuse_parse_cmdline */
	char *log_file;	   /* -o log=FILE: daemon mode's stderr (else syslog) */
	/* the arguments that are not options: MOUNTPOINT, or SOURCE MOUNTPOINT
	 * as mount.fuse3 passes them (an fstab line "rcuvfs /mnt fuse.rcuvfs") */
	char *nonopt[2];
	int nr_nonopt;
	int user_fsname; /* -o fsname= given: it names the mount */
	int remount;	 /* -o remount (mount -o remount): rvf_remount */
	char *opts[64];	 /* the -o options rcuvfs did not take (remount) */
	int nr_opts;
};

/*
 * Parse argv into cfg; args keeps what libfuse's session must see (mount
 * options such as allow_other, -d).  Returns 0, or -1 after printing one
 * line on stderr.
 */
int rvf_parse_args(struct fuse_args *args, struct rvf_config *cfg);
void rvf_print_help(FILE *out, const char *progname);
/* Whether a model switch has an effect on a mount (else -o refuses it). */
bool rvf_switch_acts(const char *name);
void rvf_print_version(FILE *out);
/* mount -o remount: apply ro/rw and the mount flags to the mount at
 * cfg->mountpoint (mount(2) MS_REMOUNT); exit status (0, 1, or 2 for an
 * option a remount cannot change), after one line on stderr. */
int rvf_remount(const struct rvf_config *cfg);
/* --list-counters: every counter and gauge of a mount with its help text */
int rvf_list_counters(FILE *out);
void rvf_register_gauges(void);

/* ---- the daemon ---------------------------------------------------------- */

/* the kernel caches writes (FUSE_CAP_WRITEBACK_CACHE, -o apps): set at INIT */
extern int rvf_writeback_cache;

struct rvf_daemon {
	struct rvf_config cfg;
	struct task_struct *task; /* the daemon's model process (group leader) */
	struct inode *root;	  /* referenced model root inode (FUSE_ROOT_ID) */
	int live;		  /* between rvf_fs_init and rvf_fs_teardown */
};
extern struct rvf_daemon rvf;

/* Who asks: the fields of fuse_ctx the ops use. */
struct rvf_ctx {
	uid_t uid;
	gid_t gid;
	pid_t pid;
	mode_t umask;
	fuse_req_t req; /* NULL below libfuse (op-layer tests) */
};

/*
 * Model side of start/stop: rvf_fs_init creates the daemon's model process
 * and attaches the calling thread to it (the instance must be live);
 * rvf_fs_teardown closes every handle, drops every lookup reference and
 * exits the process.  The caller then destroys the instance.
 */
int rvf_fs_init(const struct rvf_config *cfg);
void rvf_fs_teardown(void);

/*
 * Every op first makes the calling thread a task of the daemon's model
 * process (libfuse creates workers we do not control).  The task dies with
 * the thread (PF_LAZY: base's thread-exit destructor runs task_exit).
 */
void rvf_attach_worker_slow(void);
static __always_inline void rvf_enter(void)
{
	if (unlikely(rv_current == NULL || rv_current->tgid != rvf.task->tgid))
		rvf_attach_worker_slow();
}

/* ---- inode numbers ------------------------------------------------------ */

enum {
	RVF_INO_CTL_DIR = 2, /* /.rcuvfs */
	RVF_INO_CTL_CONFIG,
	RVF_INO_CTL_STATS,
	RVF_INO_CTL_SLABINFO,
	RVF_INO_CTL_LOCKS,
	RVF_INO_CTL_STATS_HELP,
	RVF_INO_CTL_LAST = RVF_INO_CTL_STATS_HELP,
};
#define RVF_CTL_NAME ".rcuvfs"

static inline bool rvf_ino_is_ctl(fuse_ino_t ino)
{
	return ino >= RVF_INO_CTL_DIR && ino <= RVF_INO_CTL_LAST;
}

/* node id = i_ino + RVF_NODEID_BIAS (the root's number is not used) */
#define RVF_NODEID_BIAS 16

/*
 * The inode behind a node id, referenced (rvf_iput it), or NULL when no
 * inode has that id any more (ESTALE).  The root (FUSE_ROOT_ID) comes back
 * unreferenced: the daemon pins it, and rvf_iput leaves it alone.
 */
struct inode *rvf_iget(fuse_ino_t ino);
static inline void rvf_iput(struct inode *inode)
{
	if (inode != rvf.root)
		iput(inode);
}

/* ---- operations (ops.c); 0 or -errno; results through pointers --------- */

/* Entry replies: e->ino, e->generation, e->attr, timeouts; one lookup count. */
int rvf_op_lookup(const struct rvf_ctx *ctx, fuse_ino_t parent, const char *name,
		  struct fuse_entry_param *e);
void rvf_op_forget(fuse_ino_t ino, uint64_t nlookup);
int rvf_op_getattr(const struct rvf_ctx *ctx, fuse_ino_t ino, const uint64_t *fh, struct stat *st,
		   double *timeout);
/* to_set: FUSE_SET_ATTR_* bits */
int rvf_op_setattr(const struct rvf_ctx *ctx, fuse_ino_t ino, const struct stat *attr, int to_set,
		   const uint64_t *fh, struct stat *st, double *timeout);
/* buf gets the NUL-terminated target (len includes room for the NUL) */
int rvf_op_readlink(const struct rvf_ctx *ctx, fuse_ino_t ino, char *buf, size_t len);
int rvf_op_mknod(const struct rvf_ctx *ctx, fuse_ino_t parent, const char *name, mode_t mode,
		 dev_t rdev, struct fuse_entry_param *e);
int rvf_op_mkdir(const struct rvf_ctx *ctx, fuse_ino_t parent, const char *name, mode_t mode,
		 struct fuse_entry_param *e);
int rvf_op_unlink(const struct rvf_ctx *ctx, fuse_ino_t parent, const char *name);
int rvf_op_rmdir(const struct rvf_ctx *ctx, fuse_ino_t parent, const char *name);
int rvf_op_symlink(const struct rvf_ctx *ctx, const char *target, fuse_ino_t parent,
		   const char *name, struct fuse_entry_param *e);
int rvf_op_rename(const struct rvf_ctx *ctx, fuse_ino_t parent, const char *name,
		  fuse_ino_t newparent, const char *newname, unsigned int flags);
int rvf_op_link(const struct rvf_ctx *ctx, fuse_ino_t ino, fuse_ino_t newparent,
		const char *newname, struct fuse_entry_param *e);
/* *direct_io set for the control files */
int rvf_op_open(const struct rvf_ctx *ctx, fuse_ino_t ino, int flags, uint64_t *fh, int *direct_io);
int rvf_op_create(const struct rvf_ctx *ctx, fuse_ino_t parent, const char *name, mode_t mode,
		  int flags, struct fuse_entry_param *e, uint64_t *fh);
/* Returns bytes read into buf (<= size) or -errno. */
ssize_t rvf_op_read(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, char *buf, size_t size,
		    off_t off);
ssize_t rvf_op_write(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, const char *buf,
		     size_t size, off_t off);
int rvf_op_flush(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, uint64_t lock_owner);
int rvf_op_release(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh);
int rvf_op_fsync(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, int datasync);
int rvf_op_opendir(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t *fh);
/*
 * Fill buf (size bytes) with directory entries from cookie off on, in
 * fuse_add_direntry(_plus) format; *used gets the bytes filled.  With plus,
 * one lookup count is taken for each entry actually returned.
 */
int rvf_op_readdir(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, off_t off, int plus,
		   char *buf, size_t size, size_t *used);
int rvf_op_releasedir(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh);
int rvf_op_statfs(const struct rvf_ctx *ctx, fuse_ino_t ino, struct statvfs *st);
int rvf_op_access(const struct rvf_ctx *ctx, fuse_ino_t ino, int mask);
int rvf_op_fallocate(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, int mode, off_t off,
		     off_t len);
/* in/in_size: what the caller passed (write direction); out gets *out_len
 * bytes (at most out_size).  Unknown commands and short buffers: -ENOTTY. */
int rvf_op_ioctl(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, unsigned int cmd,
		 const void *in, size_t in_size, void *out, size_t out_size, size_t *out_len);
int rvf_op_lseek(const struct rvf_ctx *ctx, fuse_ino_t ino, uint64_t fh, off_t off, int whence,
		 off_t *out);

/* xattrs: get/list return the length (size 0: the length needed) or -errno */
int rvf_op_setxattr(const struct rvf_ctx *ctx, fuse_ino_t ino, const char *name, const void *value,
		    size_t size, int flags);
ssize_t rvf_op_getxattr(const struct rvf_ctx *ctx, fuse_ino_t ino, const char *name, void *buf,
			size_t size);
ssize_t rvf_op_listxattr(const struct rvf_ctx *ctx, fuse_ino_t ino, char *buf, size_t size);
int rvf_op_removexattr(const struct rvf_ctx *ctx, fuse_ino_t ino, const char *name);

/* ---- handles --------------------------------------------------------------- */

/* Install file in the daemon's fd table (reference donated); fh out. */
int rvf_fh_install(struct file *file, uint64_t *fh);
/* The file behind fh with a reference (fput it), or NULL: EBADF. */
/* Inlined: every request with a handle pays it (lock requests twice a pair). */
static __always_inline struct file *rvf_fget(uint64_t fh)
{
	struct file *file = fget((unsigned int)fh);

	if (!file)
		return NULL;
	/* a reused fd holds a file of another generation: the handle is stale */
	if (unlikely((uint32_t)file->f_gen != (uint32_t)(fh >> 32))) {
		fput(file);
		return NULL;
	}
	return file;
}

/* ---- control directory (ctl.c) ------------------------------------------ */

int rvf_ctl_lookup(fuse_ino_t parent, const char *name, struct fuse_entry_param *e);
int rvf_ctl_getattr(fuse_ino_t ino, struct stat *st);
int rvf_ctl_open(fuse_ino_t ino, int flags, uint64_t *fh);
ssize_t rvf_ctl_read(fuse_ino_t ino, uint64_t fh, char *buf, size_t size, off_t off);
int rvf_ctl_release(fuse_ino_t ino, uint64_t fh);
/* Free snapshots whose RELEASE never arrived (teardown). */
void rvf_ctl_teardown(void);
int rvf_ctl_readdir(fuse_ino_t ino, off_t off, int plus, fuse_req_t req, char *buf, size_t size,
		    size_t *used);
/* Text of one control file into a malloc'ed buffer (tests use it too). */
char *rvf_ctl_render(fuse_ino_t ino, size_t *len);

/* ---- locks (lockops.c): these reply themselves (deferred grants) --------- */

void rvf_ll_getlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, struct flock *lock);
void rvf_ll_setlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, struct flock *lock,
		  int sleep);
void rvf_ll_flock(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, int op);
/* flush: drop lock_owner's POSIX locks; release: every lock through fh. */
void rvf_locks_flush(struct file *file, uint64_t lock_owner);
void rvf_locks_release(struct file *file, uint64_t fh);
/* Answer every deferred lock request still pending (after the loop). */
void rvf_locks_shutdown(void);
/* Teardown: drop every POSIX lock still held through an open handle. */
void rvf_locks_drop_all(void);
/* /proc/locks text (returns bytes needed, like snprintf). */
size_t rvf_locks_format(char *buf, size_t len);

/* The libfuse operations table (ll.c). */
extern const struct fuse_lowlevel_ops rvf_ll_ops;

#endif /* RCUVFS_FUSE_DAEMON_H */
