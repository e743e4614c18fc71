/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/file.h - part of vfs/vfs.h: struct file and its reference count.
 * Do not include directly.
 *
 * struct file objects come from a SLAB_TYPESAFE_BY_RCU cache ("filp"): a
 * file freed by its last fput() may be handed out again at once for another
 * open, but its memory stays a struct file until a grace period after the
 * cache is destroyed.  An RCU reader that loaded a file pointer from an fd
 * table may therefore touch the reference count of an object that has been
 * freed and reused; it must take a reference that fails on a dead file, then
 * re-validate identity (fdtable/ reloads the fd slot, see __get_file_rcu).
 *
 * The count has two implementations, chosen by the `fileref` switch for the
 * life of an instance (rv_sw.fileref):
 *
 *   inc-not-zero (Linux 6.7 era): f_ref.refcnt is the number of references;
 *     0 means dead.  The RCU get is atomic_long_inc_not_zero (a cmpxchg loop).
 *
 *   file-ref (Linux 6.13 file_ref_t): f_ref.refcnt is references - 1, so one
 *     reference is 0 and "no reference" is -1 (FILE_REF_NOREF).  The RCU get
 *     is one unconditional `lock add`; values with the top bit set are the
 *     saturation and dead zones.  A get on a dead file lands in the dead zone
 *     and fails; its increment is never undone (the zone is 2^61 wide).  The
 *     last put moves NOREF to DEAD with a cmpxchg, and allocation writes the
 *     count last (with release ordering), after every other field, so a stale
 *     reader's increment either hits the dead zone or a fully built file.
 *
 * Locking:
 *   f_ref           atomic; never written except through the helpers here.
 *   f_lock          protects f_flags updates (fcntl F_SETFL-like changes).
 *   f_pos_lock      a sleeping lock serializing f_pos updates (read/write/
 *                   lseek), the model's f_pos_lock mutex.
 *   f_mode, f_inode, f_dentry, f_mapping, f_op, f_gen: fixed between
 *                   alloc_file() and the last fput(); RCU readers must not
 *                   trust them before the fd-slot recheck succeeded.
 *   private_data    owned by the file system (f_op).
 *
 * On the last reference __fput() runs, in order:
 *   vfs_file_hooks.locks_remove_file(file)  (locks/ fills it in)
 *   f_op->release(inode, file)
 *   vfs_file_hooks.file_put_path(file)      (drops f_dentry/f_inode refs)
 * and the object returns to the cache.  filp_close() (the close path) calls
 * f_op->flush and vfs_file_hooks.locks_remove_posix(file, owner) before fput.
 */
#ifndef RCUVFS_VFS_FILE_H
#define RCUVFS_VFS_FILE_H

#include <fcntl.h>

/* f_mode bits (kernel values where the kernel has them) */
#define FMODE_READ	  0x1u
#define FMODE_WRITE	  0x2u
#define FMODE_LSEEK	  0x4u
#define FMODE_PREAD	  0x8u
#define FMODE_PWRITE	  0x10u
#define FMODE_PATH	  0x4000u   /* O_PATH: fget() refuses it, fget_raw() not */
#define FMODE_CAN_ODIRECT 0x400000u /* F_SETFL may set O_DIRECT (shmem: regular files) */

/* file_ref zones (file-ref scheme; see the comment at the top) */
#define FILE_REF_ONEREF	   0x0000000000000000UL
#define FILE_REF_MAXREF	   0x7FFFFFFFFFFFFFFFUL
#define FILE_REF_SATURATED 0xA000000000000000UL
#define FILE_REF_RELEASED  0xC000000000000000UL
#define FILE_REF_DEAD	   0xE000000000000000UL
#define FILE_REF_NOREF	   0xFFFFFFFFFFFFFFFFUL

typedef struct {
	unsigned long refcnt; /* atomic; meaning per rv_sw.fileref */
} file_ref_t;

struct vm_area_struct;
struct file_operations {
	/* last fput; return value ignored, as in the kernel */
	int (*release)(struct inode *inode, struct file *file);
	/* every close of an fd (filp_close), owner = the files_struct */
	int (*flush)(struct file *file, void *owner);
	/* mm/'s do_mmap, mmap_lock held for write, on a VMA not yet in the
	 * tree that holds a reference to `file` in vm_file: may replace
	 * vm_file (its reference included) or drop it (call_mmap's
	 * f_op->mmap; /dev/zero's mmap_zero).  0 or -errno.  NULL: the
	 * page-cache mapping of f_mapping (generic_file_mmap). */
	int (*mmap)(struct file *file, struct vm_area_struct *vma);
};

struct file {
	file_ref_t f_ref;		    /* atomic: see top comment */
	spinlock_t f_lock;		    /* protects f_flags changes */
	unsigned int f_flags;		    /* O_* flags of the open (f_lock) */
	unsigned int f_mode;		    /* FMODE_*; fixed */
	struct inode *f_inode;		    /* fixed; reference owned by the file */
	struct dentry *f_dentry;	    /* fixed; reference owned by the file */
	struct address_space *f_mapping;    /* fixed; set by the opener (may be NULL) */
	const struct file_operations *f_op; /* fixed; may be NULL */
	struct semaphore f_pos_lock;	    /* serializes f_pos updates; sleeps */
	int64_t f_pos;			    /* under f_pos_lock */
	void *private_data;		    /* file system's */
	uint64_t f_gen;			    /* identity: unique per allocation */
};

/* Hooks upper layers install (locks/, the VFS objects code); NULL = none. */
struct vfs_file_hooks {
	/* filp_close: drop the POSIX locks `owner` holds on the file's inode */
	void (*locks_remove_posix)(struct file *file, void *owner);
	/* __fput: drop flock/OFD/leases held through this file */
	void (*locks_remove_file)(struct file *file);
	/* __fput, after release: drop the dentry/inode references */
	void (*file_put_path)(struct file *file);
	/* ksys_fcntl's lock commands (fdtable/): fcntl_getlk and fcntl_setlk
	 * of the file for POSIX owner `owner` (locks/ fills them in; unset,
	 * the commands fail with -EINVAL) */
	int (*fcntl_getlk)(struct file *file, unsigned int cmd, struct flock *fl, void *owner);
	int (*fcntl_setlk)(struct file *file, unsigned int cmd, struct flock *fl, void *owner,
			   pid_t pid);
};
extern struct vfs_file_hooks vfs_file_hooks;

/*
 * Allocate a file with one reference.  The file takes over the caller's
 * references to inode and dentry (dropped by file_put_path at the last
 * fput).  f_mode is derived from the access mode in `flags` (O_PATH gives
 * FMODE_PATH only).  Returns NULL when memory is exhausted.
 */
struct file *alloc_file(struct inode *inode, struct dentry *dentry, unsigned int flags,
			const struct file_operations *fop);
/* Last-reference teardown (out of line): hooks, release, back to the cache. */
void __fput(struct file *file);
/* Close path of an fd: f_op->flush, locks_remove_posix(file, owner), fput. */
int filp_close(struct file *file, void *owner);
/* Files allocated and not yet freed (the "filp" cache's active count). */
long nr_files_active(void);

/* ---- the count, both schemes ---------------------------------------- */

/* 6.13 file_ref_get slow path: the add landed in the saturation/dead zone. */
bool __file_ref_get(file_ref_t *ref, unsigned long cnt);
/* 6.13 file_ref_put slow path: the decrement went negative. */
bool __file_ref_put(file_ref_t *ref, unsigned long cnt);

/* file-ref: unconditional increment; fails only in the dead zone. */
static __always_inline bool file_ref_get(file_ref_t *ref)
{
	/* fully ordered: the fd-slot reload after it must not pass it */
	RV_SPOINT(RV_XP_ATOMIC, ref); /* the simulator charges the line */
	unsigned long cnt = __atomic_add_fetch(&ref->refcnt, 1, __ATOMIC_SEQ_CST);

	if (likely((long)cnt >= 0))
		return true;
	return __file_ref_get(ref, cnt);
}

/* file-ref: true when this dropped the last reference (now DEAD). */
static __always_inline bool file_ref_put(file_ref_t *ref)
{
	/* release: our accesses to the file happen before a freer's */
	RV_SPOINT(RV_XP_ATOMIC, ref);
	unsigned long cnt = __atomic_sub_fetch(&ref->refcnt, 1, __ATOMIC_RELEASE);

	if (likely((long)cnt >= 0))
		return false;
	return __file_ref_put(ref, cnt);
}

/* inc-not-zero: atomic_long_inc_not_zero, a cmpxchg loop. */
static __always_inline bool file_count_inc_not_zero(file_ref_t *ref)
{
	RV_SPOINT(RV_XP_LOAD, ref); /* the simulator: a read, then the cmpxchg */
	unsigned long c = __atomic_load_n(&ref->refcnt, __ATOMIC_RELAXED);

	do {
		if (unlikely(c == 0))
			return false;
		/* fully ordered on success, as atomic_long_inc_not_zero */
		RV_SPOINT(RV_XP_ATOMIC, ref);
	} while (unlikely(!__atomic_compare_exchange_n(&ref->refcnt, &c, c + 1, false,
						       __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)));
	return true;
}

/*
 * Try to take a reference on a file reached without one (RCU lookup; the
 * object may be dead or recycled).  The caller must re-validate identity.
 * Branches on the read-mostly scheme switch.
 */
static __always_inline bool file_tryget(struct file *f)
{
	if (rv_sw.fileref == FILEREF_FILE_REF)
		return file_ref_get(&f->f_ref);
	return file_count_inc_not_zero(&f->f_ref);
}

/* Drop a reference; true when it was the last one (caller runs __fput). */
static __always_inline bool file_put_ref(struct file *f)
{
	if (rv_sw.fileref == FILEREF_FILE_REF)
		return file_ref_put(&f->f_ref);
	RV_SPOINT(RV_XP_ATOMIC, &f->f_ref);
	return __atomic_sub_fetch(&f->f_ref.refcnt, 1, __ATOMIC_ACQ_REL) == 0;
}

/* Take another reference on a file the caller already holds one on. */
static __always_inline struct file *get_file(struct file *f)
{
	/* same instruction in both schemes: the count cannot be dead here */
	__atomic_fetch_add(&f->f_ref.refcnt, 1, __ATOMIC_RELAXED);
	return f;
}

/* Drop a reference; the last one tears the file down (synchronously). */
static __always_inline void fput(struct file *f)
{
	if (file_put_ref(f))
		__fput(f);
}

/*
 * fput as a task calls it in the kernel: the last reference's teardown is
 * queued on the calling thread and runs at task_work_run(), which the
 * caller calls once it dropped the locks it held (the model's "return to
 * user space": vm_munmap, vm_mmap and exit_mmap after mmap_lock).
 */
void fput_deferred(struct file *f);
void task_work_run(void);

/* Number of references (0 when dead); a snapshot. */
static inline long file_count(struct file *f)
{
	unsigned long c = __atomic_load_n(&f->f_ref.refcnt, __ATOMIC_RELAXED);

	if (rv_sw.fileref != FILEREF_FILE_REF)
		return (long)c;
	if (c >= FILE_REF_RELEASED)
		return 0;
	if (c >= FILE_REF_MAXREF)
		return (long)FILE_REF_MAXREF;
	return (long)c + 1;
}

#endif
