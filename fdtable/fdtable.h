/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdtable/fdtable.h - public header of fdtable/: files_struct, the
 * RCU-published fdtable, fd allocation/installation/close/dup, the fork
 * copy, and the fget/fdget lookups (docs/history.md).
 *
 * Locking (the kernel's, fs/file.c):
 *   files_struct.count      atomic; tasks sharing the table (CLONE_FILES).
 *   files_struct.file_lock  serializes every writer of the table: fd
 *                           allocation, close, dup2, expansion, cloexec bits,
 *                           next_fd.  fd_install alone stores without it
 *                           (see below).
 *   files_struct.fdt        RCU-published: readers load it under
 *                           rcu_read_lock; expand_files replaces it under
 *                           file_lock and frees the old table with call_rcu.
 *   fdtable.fd[i]           RCU-published file pointers: written with a
 *                           release store (rcu_assign_pointer) under
 *                           file_lock, or by fd_install without it while no
 *                           resize is in progress (expand_fdtable waits out
 *                           such installs with synchronize_rcu).
 *   bitmaps, max_fds        under file_lock (max_fds fixed per table).
 *   nofile                  the RLIMIT_NOFILE of this table (tests set it).
 *
 * Lookups:
 *   fget(fd) takes a reference through the __get_file_rcu protocol: load the
 *   slot, try to take a reference (fails on a dead file), reload the slot
 *   and compare with the comparison hidden from the optimizer, put and retry
 *   on mismatch (the object was freed and reused: struct file is
 *   SLAB_TYPESAFE_BY_RCU), then check the table was not replaced.
 *   fdget(fd) takes no reference at all when the calling task is the only
 *   user of its table (files->count == 1): nobody else can close the fd
 *   before fdput.
 *
 * All fd operations act on current->files and return kernel errors:
 * -EBADF (no such fd), -EMFILE (nofile limit or table limit reached),
 * -EINVAL (bad flags or arguments), -EBUSY (dup2 onto a reserved fd).
 * None may be called inside an RCU read-side section (expansion waits for
 * a grace period; close may sleep in f_op->release).
 */
#ifndef RCUVFS_FDTABLE_H
#define RCUVFS_FDTABLE_H

#include "vfs/vfs.h"

#include <fcntl.h>

#ifndef rcu_dereference_raw
/* an RCU-published pointer load whose user checks its own protection */
#define rcu_dereference_raw(p) __atomic_load_n(&(p), __ATOMIC_CONSUME)
#endif

#define BITS_PER_LONG	64
#define NR_OPEN_DEFAULT BITS_PER_LONG /* the embedded table's size */
#define NR_OPEN_MAX	(1024 * 1024) /* sysctl_nr_open: a table's hard limit */
#define NOFILE_DEFAULT	(1024 * 1024) /* default per-table nofile limit */

#ifndef F_DUPFD_QUERY
#define F_DUPFD_QUERY (1024 + 3) /* Linux 6.10 */
#endif
#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

struct fdtable {
	unsigned int max_fds;	      /* fixed for this table; multiple of 64 */
	struct file **fd;	      /* RCU-published entries */
	unsigned long *close_on_exec; /* file_lock */
	unsigned long *open_fds;      /* file_lock: allocated (maybe not installed) */
	unsigned long *full_fds_bits; /* file_lock: bit per full open_fds word */
	struct rcu_head rcu;	      /* deferred free after expansion */
};

struct files_struct {
	/* read mostly */
	int count;			    /* atomic: sharers (tasks) */
	bool resize_in_progress;	    /* file_lock; read by fd_install under RCU */
	struct wait_queue_head resize_wait; /* waiters for resize_in_progress */
	struct fdtable *fdt;		    /* RCU-published current table */
	struct fdtable fdtab;		    /* the embedded small table */
	unsigned int nofile;		    /* RLIMIT_NOFILE; file_lock for writers */
	/* written often, on its own cache line */
	spinlock_t file_lock __cacheline_aligned;
	unsigned int next_fd; /* file_lock: lowest possibly free fd */
	unsigned long close_on_exec_init[1];
	unsigned long open_fds_init[1];
	unsigned long full_fds_bits_init[1];
	struct file *fd_array[NR_OPEN_DEFAULT];
};

/* fdget result: the file and whether fdput must drop a reference. */
struct fd {
	struct file *file;
	unsigned int flags;
};
#define FDPUT_FPUT 1u

RV_STAT_DECLARE(fget_retries);
RV_STAT_DECLARE(fdget_light_hits);

/* ---- files_struct lifecycle ------------------------------------------ */

/* A new empty table with count 1 (NULL on ENOMEM). */
struct files_struct *alloc_files_struct(void);
/* Copy of `oldf` for fork: same files (references taken), cloexec bits
 * kept, reserved-but-uninstalled fds not copied.  NULL and *errorp on error. */
struct files_struct *dup_fd(struct files_struct *oldf, int *errorp);
static inline void get_files_struct(struct files_struct *files)
{
	__atomic_fetch_add(&files->count, 1, __ATOMIC_RELAXED);
}
/* Drop a sharer; the last one closes every file and frees the table. */
void put_files_struct(struct files_struct *files);
/* task exit: detach t->files and put it. */
void exit_files(struct task_struct *t);
/* Set the nofile limit (<= NR_OPEN_MAX); 0 or -EINVAL. */
int files_set_nofile(struct files_struct *files, unsigned int nofile);
/* The table's nofile limit: its fds are below it. */
static inline unsigned int files_nofile(struct files_struct *files)
{
	return READ_ONCE(files->nofile);
}
/* Current table size (tests watch expansion). */
unsigned int files_max_fds(struct files_struct *files);
/* fdtables allocated beyond the embedded ones and not yet freed. */
long nr_fdtables_active(void);

/* ---- fd operations (on current->files) -------------------------------- */

/* Lowest free fd >= start and < end; O_CLOEXEC in flags sets close-on-exec. */
int alloc_fd(unsigned int start, unsigned int end, unsigned int flags);
int get_unused_fd_flags(unsigned int flags);
void put_unused_fd(unsigned int fd);
/* Publish `file` (reference donated) in a reserved fd. */
void fd_install(unsigned int fd, struct file *file);
/*
 * open(2): filp_open(path, flags, mode) installed at the lowest free fd of
 * current->files (O_CLOEXEC in flags sets close-on-exec); the fd, or the
 * error of either step with no fd left reserved (fdtable/open.c).
 */
int do_sys_open(const char *path, int flags, uint32_t mode);
/*
 * fstatat(2): path from the model's root (absolute, or relative with
 * AT_FDCWD; another dfd with a relative path: -EOPNOTSUPP), or with
 * AT_EMPTY_PATH and "" the file at dfd, by descriptor or by a walk of the
 * empty path as the switch stat_empty_path says (fdtable/open.c).
 */
int vfs_fstatat(int dfd, const char *path, struct kstat *st, int flags);
int close_fd(unsigned int fd);
int ksys_dup(unsigned int fildes);
int ksys_dup2(unsigned int oldfd, unsigned int newfd);
int ksys_dup3(unsigned int oldfd, unsigned int newfd, int flags);
/* Lowest fd >= from for `file` (a reference is taken). */
int f_dupfd(unsigned int from, struct file *file, unsigned int flags);
/*
 * F_DUPFD, F_DUPFD_CLOEXEC, F_DUPFD_QUERY, F_GETFD, F_SETFD, F_GETFL,
 * F_SETFL; F_GETLK, F_SETLK,
 * F_SETLKW and their F_OFD_ forms (arg: a struct flock *; the POSIX owner
 * is current->files, with the kernel's re-check of fd after a granted lock:
 * -EBADF if another thread closed it meanwhile); others -EINVAL.
 */
int ksys_fcntl(unsigned int fd, unsigned int cmd, unsigned long arg);
/* close_range(2): flags CLOSE_RANGE_UNSHARE, CLOSE_RANGE_CLOEXEC. */
int __close_range(unsigned int fd, unsigned int max_fd, unsigned int flags);
/* exec: close every close-on-exec fd of `files`. */
void do_close_on_exec(struct files_struct *files);
/* Whether fd has close-on-exec set in current->files. */
bool get_close_on_exec(unsigned int fd);
/* Set or clear fd's close-on-exec bit in current->files (F_SETFD). */
void set_close_on_exec(unsigned int fd, bool flag);

/* ---- lookups -------------------------------------------------------------- */

/* File at fd with a reference, or NULL; refuses FMODE_PATH files. */
struct file *fget(unsigned int fd);
/* The same, O_PATH files included. */
struct file *fget_raw(unsigned int fd);
/* Shared-table lookup behind fdget (out of line, lookup inlined). */
struct file *__fget_files(struct files_struct *files, unsigned int fd, unsigned int mask);

/* Entry without a reference: caller holds file_lock or is the only user. */
static __always_inline struct file *files_lookup_fd_raw(struct files_struct *files, unsigned int fd)
{
	struct fdtable *fdt = rcu_dereference_raw(files->fdt);

	if (likely(fd < fdt->max_fds))
		return rcu_dereference_raw(fdt->fd[fd]);
	return NULL;
}

static __always_inline struct fd __fdget(unsigned int fd, unsigned int mask)
{
	struct files_struct *files = current->files;
	struct file *file;

	/* acquire: pairs with the sharer's increment (fork/clone) */
	if (likely(__atomic_load_n(&files->count, __ATOMIC_ACQUIRE) == 1)) {
		file = files_lookup_fd_raw(files, fd);
		if (!file || unlikely(file->f_mode & mask))
			return (struct fd){NULL, 0};
		rv_stat_inc(fdget_light_hits);
		return (struct fd){file, 0};
	}
	file = __fget_files(files, fd, mask);
	return (struct fd){file, file ? FDPUT_FPUT : 0};
}

/* Borrow the file at fd for the duration of a call (see the top comment). */
static __always_inline struct fd fdget(unsigned int fd)
{
	return __fdget(fd, FMODE_PATH);
}
static __always_inline struct fd fdget_raw(unsigned int fd)
{
	return __fdget(fd, 0);
}
static __always_inline void fdput(struct fd f)
{
	if (f.flags & FDPUT_FPUT)
		fput(f.file);
}

#endif /* RCUVFS_FDTABLE_H */
