/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * locks/locks.h - public header of locks/: file locks of the model.
 *
 * flock(2) locks (owned by the open file description), POSIX record locks
 * (fcntl F_SETLK/F_SETLKW/F_GETLK, owned by an opaque owner: the model's
 * files_struct, or FUSE's lock_owner) and OFD locks (F_OFD_*, owned by the
 * open file description), with Linux's semantics on tmpfs.
 *
 * The lock lists of an inode hang off inode->i_flctx (allocated lazily,
 * freed by the VFS through vfs_hooks.locks_free_context).  Which lock
 * protects them is the `filelock` switch, fixed for an instance's life:
 *   global  one spinlock (file_lock_lock) over every list and the wait graph
 *   bkl     the Big Kernel Lock (vfs/base: lock_kernel)
 *   inode   a per-inode flc_lock, a global blocked_lock_lock for the wait
 *           graph, sharded global lists for the listing (Linux 3.18+)
 * and, when `bkl_ops` contains `lock`, every entry point below additionally
 * runs under the BKL (as 2.6's fcntl and flock paths did).
 *
 * Blocking.  A request with FL_SLEEP (F_SETLKW, flock without LOCK_NB)
 * either sleeps in the calling task (interruptible: -EINTR when
 * signal_pending(current)) or, when a struct file_lock_req is passed, comes
 * back FILE_LOCK_DEFERRED without sleeping: it is then granted later by
 * whichever thread removes the conflict, which calls req->grant(req, result)
 * after it has dropped every lock-list lock (and the BKL it took itself).
 * locks_cancel_req() races with the grant through one atomic state: exactly
 * one of "grant callback runs" and "cancel returns -EINTR" happens.
 *
 * Errors are negative errno values.  Limits: each owner may hold at most
 * locks_owner_limit() lock records (default LOCKS_OWNER_LIMIT_DEFAULT);
 * beyond it requests fail with -ENOLCK (Linux's only limit is memory).
 */
#ifndef RCUVFS_LOCKS_H
#define RCUVFS_LOCKS_H

#include "vfs/vfs.h"

#include <fcntl.h>
#include <sys/file.h>

typedef void *fl_owner_t;

/* fl_flags */
#define FL_POSIX    0x01u
#define FL_FLOCK    0x02u
#define FL_OFDLCK   0x04u /* with FL_POSIX: owned by the open file */
#define FL_SLEEP    0x08u /* wait (or defer) instead of -EAGAIN */
#define FL_DEFERRED 0x10u /* request embedded in a struct file_lock_req */

/* Returned when a request has been queued to be granted later. */
#define FILE_LOCK_DEFERRED 1
#define OFFSET_MAX	   INT64_MAX

#define LOCKS_OWNER_LIMIT_DEFAULT 65536L

struct file_lock_context;
struct file_lock_req;

/*
 * One lock or lock request.  Held locks are owned by the engine; requests
 * are the caller's (stack or a file_lock_req).  Locks on fields: "blocked"
 * is the wait-graph lock of the scheme, "flc" the list lock of the scheme.
 */
struct lock_shard; /* locks.c: one shard of the global list */
/* A new field needs a store in locks_init_lock (it sets each one, no memset). */
struct file_lock {
	struct file_lock *fl_blocker;	      /* what this request waits on; blocked */
	struct list_head fl_list;	      /* on ctx flc_flock/flc_posix; flc */
	struct list_head fl_link;	      /* held: global list; waiting POSIX: blocked hash */
	struct list_head fl_blocked_requests; /* requests waiting on this; blocked */
	struct list_head fl_blocked_member;   /* on fl_blocker's list; blocked */
	fl_owner_t fl_owner;		      /* POSIX owner; OFD/flock: the struct file */
	unsigned int fl_flags;		      /* FL_* */
	int fl_type;			      /* F_RDLCK, F_WRLCK, F_UNLCK */
	pid_t fl_pid;			      /* reported by F_GETLK and the listing */
	struct lock_shard *fl_link_shard;     /* held: its global list shard */
	int64_t fl_start, fl_end;	      /* inclusive; fl_end OFFSET_MAX: to EOF */
	struct file *fl_file;		      /* the open file it was taken through */
	struct file_lock_context *fl_ctx;     /* held locks: the list it is on */
	struct file_lock_req *fl_req;	      /* FL_DEFERRED: the request */
	struct wait_queue_head fl_wait;	      /* a sleeping requester waits here */
};

/* Initialise a request (lists, wait queue); fields to fill after it. */
void locks_init_lock(struct file_lock *fl);

/* ---- deferred requests (the kernel's lm_grant idea) --------------------- */

enum file_lock_req_state {
	FLR_IDLE = 0,  /* not submitted, or completed synchronously */
	FLR_WAITING,   /* queued; grant or cancel will claim it */
	FLR_GRANTED,   /* claimed by a grant (callback ran or is running) */
	FLR_CANCELLED, /* claimed by locks_cancel_req */
};

struct file_lock_req {
	struct file_lock fl;		  /* the request; fl.fl_req == this */
	int state;			  /* enum file_lock_req_state; atomic */
	int refcount;			  /* atomic: caller + engine */
	struct file_lock_req *grant_next; /* a thread's pending-grant queue */
	/* Called once, with no lock-list lock held, when the request completes
	 * after having been deferred: result 0 (lock held) or -errno. */
	void (*grant)(struct file_lock_req *req, int result);
	void *private; /* the caller's */
};

/* Allocate a request with one reference (the caller's); NULL on ENOMEM. */
struct file_lock_req *locks_alloc_req(void (*grant)(struct file_lock_req *, int), void *priv);
/* Drop the caller's reference (after the grant ran, or after a cancel). */
void locks_put_req(struct file_lock_req *req);
/*
 * Withdraw a deferred request.  -EINTR: it was withdrawn, the grant callback
 * will never run.  0: a grant claimed it first (its callback runs or ran).
 */
int locks_cancel_req(struct file_lock_req *req);

/* ---- the system-call level ---------------------------------------------- */

/*
 * flock(2): cmd is LOCK_SH, LOCK_EX or LOCK_UN, optionally | LOCK_NB.
 * LOCK_MAND is ignored (returns 0).
 * `pid` is reported in the listing.  With req != NULL a blocking request
 * returns FILE_LOCK_DEFERRED instead of sleeping.  -EWOULDBLOCK (LOCK_NB),
 * -EINTR, -EINVAL, -EBADF (O_PATH file), -ENOLCK, -ENOMEM (flock_lock_inode's
 * answer when a lock record or the inode's lock context cannot be had).
 */
int flock_lock_file(struct file *filp, unsigned int cmd, pid_t pid, struct file_lock_req *req);
/*
 * flock(2)'s checks of cmd before the fd is looked up (so a bad cmd on a bad
 * fd is -EINVAL): 1 for LOCK_MAND (ignored: flock(2) returns 0, as Linux
 * 5.16+), -EINVAL for anything but LOCK_SH, LOCK_EX, LOCK_UN [| LOCK_NB],
 * else 0.  flock_lock_file makes the same checks first.
 */
int flock_check_cmd(unsigned int cmd);

/*
 * fcntl(2) F_GETLK / F_OFD_GETLK: fills *fl with the first conflicting lock
 * in the inode's list order (l_whence SEEK_SET, l_pid -1 for an OFD lock),
 * or l_type F_UNLCK.  F_OFD_GETLK with l_type F_UNLCK reports the first lock
 * the description itself holds on the range (Linux 6.4+).  `owner` is the
 * POSIX owner asking (ignored for OFD).
 */
int fcntl_getlk(struct file *filp, unsigned int cmd, struct flock *fl, fl_owner_t owner);
/*
 * The test below fcntl (vfs_test_lock): as F_GETLK for `owner`, but l_type
 * F_UNLCK is allowed for any owner and reports owner's own first lock on the
 * range.  The FUSE daemon answers GETLK with it (the kernel forwards
 * F_OFD_GETLK as a GETLK whose owner is the open file).
 */
int locks_test_lock(struct file *filp, struct flock *l, fl_owner_t owner);
/*
 * fcntl(2) F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW.  `owner`/`pid`
 * identify the POSIX owner (ignored for OFD: owner is filp, pid -1).  With
 * req != NULL a blocking request may return FILE_LOCK_DEFERRED.  Errors as
 * fcntl: -EAGAIN, -EACCES never (Linux gives EAGAIN), -EDEADLK, -EINTR,
 * -EINVAL, -EBADF (mode does not permit the lock type), -EOVERFLOW, -ENOLCK.
 */
int __fcntl_setlk(struct file *filp, unsigned int cmd, const struct flock *fl, fl_owner_t owner,
		  pid_t pid, struct file_lock_req *req);
/* F_SETLK / F_OFD_SETLK without a req (the request can never wait). */
int __fcntl_setlk_nowait(struct file *filp, bool ofd, const struct flock *fl, fl_owner_t owner,
			 pid_t pid);
static inline int fcntl_setlk(struct file *filp, unsigned int cmd, const struct flock *fl,
			      fl_owner_t owner, pid_t pid, struct file_lock_req *req)
{
	/* inline: a caller's constant cmd picks the path at compile time */
	if (!req && (cmd == F_SETLK || cmd == F_OFD_SETLK))
		return __fcntl_setlk_nowait(filp, cmd == F_OFD_SETLK, fl, owner, pid);
	return __fcntl_setlk(filp, cmd, fl, owner, pid, req);
}

/* ---- the kernel-internal level ------------------------------------------ */

/*
 * Apply a POSIX/OFD request (fl_type F_RDLCK/F_WRLCK/F_UNLCK, fl_start..
 * fl_end, fl_owner, fl_pid, fl_flags FL_POSIX [|FL_OFDLCK] [|FL_SLEEP]).
 * Without FL_SLEEP a conflict gives -EAGAIN (and *conflock a copy of it when
 * non-NULL).  With FL_SLEEP the calling task sleeps until granted.
 */
int posix_lock_file(struct file *filp, struct file_lock *fl, struct file_lock *conflock);
/* Test for a conflict: fl becomes a copy of the conflicting lock, or F_UNLCK. */
void posix_test_lock(struct file *filp, struct file_lock *fl);
/* flock-style request: fl_flags FL_FLOCK [|FL_SLEEP], fl_type, fl_file. */
int flock_lock_inode_wait(struct file *filp, struct file_lock *fl);
/* Deferred submission of a prepared req->fl (POSIX, OFD or flock). */
int locks_submit_req(struct file *filp, struct file_lock_req *req);

/* close(): drop every POSIX lock `owner` holds on filp's inode. */
void locks_remove_posix(struct file *filp, fl_owner_t owner);
/* Last fput: drop flock and OFD locks held through filp. */
void locks_remove_file(struct file *filp);
/* VFS hook at inode destruction: free inode->i_flctx (must hold no locks). */
void locks_free_lock_context(struct inode *inode);

/* ---- observation -------------------------------------------------------- */

/*
 * The /proc/locks text of every held lock, each followed by the requests
 * blocked on it ("N: -> ..."), into buf (NUL-terminated when len > 0).
 * Returns the bytes the whole text needs (like snprintf).
 */
size_t locks_format_proc(char *buf, size_t len);
/* Held lock records in the instance (all inodes), and blocked requests. */
long locks_count_held(void);
long locks_count_blocked(void);
/* Lock contexts (inode->i_flctx) allocated and not yet freed (leak checks). */
long locks_count_contexts(void);
/* Per-owner limit on lock records; returns the previous value. */
long locks_set_owner_limit(long limit);
long locks_owner_limit(void);
/* The scheme in force (enum filelock_scheme). */
int locks_scheme(void);
#endif /* RCUVFS_LOCKS_H */
