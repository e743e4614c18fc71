/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/fs.h - part of vfs/vfs.h: super_block, inode, dentry, namei, file ops.
 * Do not include directly.
 *
 * The API
 * -------
 * The model has one superblock per instance (the mount), created by the vfs
 * subsystem's init (init/initcalls.c) and torn down with the instance
 * (every inode, dentry and folio freed; -EBUSY on leaks).  Two API shapes:
 *
 *  inode-based (the FUSE daemon): vfs_root() returns the referenced root
 *  inode; vfs_lookup(dir, name) returns a referenced inode; vfs_create,
 *  vfs_mkdir, vfs_mknod, vfs_symlink return a referenced inode; vfs_link,
 *  vfs_unlink, vfs_rmdir, vfs_rename work on (dir inode, name);
 *  vfs_getattr/vfs_setattr/vfs_readlink/vfs_readdir on an inode;
 *  vfs_open_inode makes a struct file.  ihold/iput manage references; FUSE
 *  lookup counts are the daemon's business (one ihold per count is fine).
 *
 *  path-based (in-model tasks, tests, the benchmark): paths are resolved
 *  from the root ('/' optional; there is no cwd).  kern_path resolves to a
 *  referenced dentry; vfs_stat/vfs_lstat stat by path; filp_open opens (and
 *  creates with O_CREAT); do_mkdir, do_unlink, do_rmdir, do_rename,
 *  do_link, do_symlink, do_mknod, do_readlink, do_truncate are the syscalls.
 *
 *  file operations (any struct file from filp_open/vfs_open_inode):
 *  vfs_read/vfs_write (advance *pos; pos NULL = use and advance f_pos
 *  under file->f_pos_lock), vfs_llseek (SEEK_SET/CUR/END/DATA/HOLE),
 *  vfs_fsync, vfs_fallocate (0, FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE
 *  with KEEP_SIZE), vfs_ioctl (RCUVFS_IOC_*), and fput
 *  from vfs/file.h to close.
 *
 *  bkl_ops (rv_sw.bkl_ops, fixed for the instance): open (do_dentry_open,
 *  the common tail of filp_open and vfs_open_inode), release (__fput around
 *  f_op->release), setattr (vfs_setattr, so truncation too) and ioctl
 *  (vfs_ioctl) take the BKL around their work, as 2.6-era kernels did; each
 *  reads the switch once.  A sleep inside releases the BKL (schedule()).
 *
 * Objects, fields and their locks
 * -------------------------------
 * super_block: s_inode_list_lock protects s_inodes (the kernel's contention
 *   point on inode creation, docs/history.md).  s_rename_lock (seqlock) is
 *   write-held around every d_move so that lockless lookups that miss can
 *   tell a rename happened (the kernel's rename_lock).  s_vfs_rename_mutex
 *   serializes cross-directory renames (lock_rename).  s_dcache is the
 *   dentry hash (cds_lfht) keyed by (parent, name); s_inode_hash the inode
 *   hash (cds_lfht keyed by i_ino: RCU readers, inserts under inode.c's
 *   inode_hash_lock, removal by eviction).
 *
 * inode: i_lock (spinlock) serializes writers of the attributes, which bump
 *   i_attr_seq (seqcount) so vfs_getattr reads them without locks.
 *   i_rwsem: the inode lock; exclusive for namespace changes in a directory
 *   and for writes/truncate of a file; shared for lookup_slow and readdir.
 *   i_count (atomic) references; an inode lives while referenced; with
 *   i_nlink == 0 it is an orphan, evicted by the last iput.  Linked inodes
 *   are pinned by their positive dentries (tmpfs keeps every linked dentry
 *   with an extra "persistent" reference).  Inodes are freed after an RCU
 *   grace period (the RCU walk reads d_inode->i_mode and i_link).
 *
 * dentry: d_lockref (spinlock + count, base's lockref) is d_lock; it protects
 *   d_inode, d_flags, d_subdirs/d_child links of this dentry's children list
 *   (the parent's lock protects its d_subdirs).  d_seq is written (under
 *   d_lock) whenever d_name/d_parent/d_inode change, so an RCU walker that
 *   validated d_seq saw a consistent (parent, name, inode).  d_name and
 *   d_parent change only in d_move, with both parents' i_rwsem held and
 *   s_rename_lock write-held.  Dentries are freed after a grace period.
 *
 * Lock order (the kernel's):
 *   s_vfs_rename_mutex -> parent i_rwsem (ancestor first, else by address)
 *   -> child i_rwsem -> mapping->invalidate_lock -> folio lock ->
 *   i_pages_lock; and d_lock -> s_rename_lock seqcount writes.  Spinlocks
 *   (d_lock, i_lock, s_inode_list_lock) are leaves except that a child's
 *   d_lock may be taken under its parent's d_lock.
 */
#ifndef RCUVFS_VFS_FS_H
#define RCUVFS_VFS_FS_H

#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <urcu/rculfhash.h>

struct cds_lfht;
struct d_hash_node;
struct file_lock_context;

#define NAME_MAX_LEN	 255  /* NAME_MAX */
#define PATH_MAX_LEN	 4096 /* PATH_MAX */
#define MAXSYMLINKS	 40
#define DNAME_INLINE_LEN 40

/* ------------------------------------------------------------------ */
/* hooks filled by upper layers                                        */
/* ------------------------------------------------------------------ */
struct vfs_hooks {
	/* locks/: free inode->i_flctx (called at inode eviction if non-NULL). */
	void (*locks_free_context)(struct inode *inode);
	/* mm/: unmap [start, start+len) bytes of the mapping (len 0: to EOF);
	 * even_cows: also private COW copies (truncate). */
	void (*unmap_mapping_range)(struct address_space *mapping, int64_t start, int64_t len,
				    int even_cows);
	/* mm/: put a folio just added to a mapping on an LRU / take it off
	 * before the folio is freed (only called when PG_lru is set). */
	void (*folio_add_lru)(struct folio *folio);
	void (*folio_del_lru)(struct folio *folio);
	/* mm/: before a mapped folio is written back (folio locked): move
	 * the dirty bit of every PTE mapping it to the folio and write-protect
	 * and clean those PTEs, so the next write through a mapping faults
	 * and re-dirties the folio (the kernel's folio_mkclean).  Returns the
	 * number of PTEs changed.  Takes i_mmap_rwsem (read) and PTE locks. */
	int (*folio_mkclean)(struct folio *folio);
};
/* Live hooks; upper layers fill their members in their RV_SUBSYS init
 * (after vfs's: init/initcalls.c) and clear them in teardown. */
extern struct vfs_hooks vfs_hooks;

/* ------------------------------------------------------------------ */
/* credentials (who creates); NULL means uid 0 / gid 0                 */
/* ------------------------------------------------------------------ */
struct cred {
	uid_t fsuid;
	gid_t fsgid;
	/* supplementary groups (in_group_p), when the caller has them;
	 * fsuid 0 stands for the capabilities (CAP_FSETID, ...) */
	const gid_t *groups;
	int ngroups;
	/* the mode already went through vfs_prepare_mode (umask, and
	 * mode_strip_sgid with the caller's supplementary groups): the FUSE
	 * daemon, below the kernel's VFS, sets it */
	bool mode_prepared;
	/* the caller's privilege for an xattr change was checked above the
	 * model (the kernel's cap_inode_setxattr/removexattr, or its own
	 * cap_inode_killpriv): the FUSE daemon sets it */
	bool xattr_checked;
};

/* ------------------------------------------------------------------ */
/* super_block                                                         */
/* ------------------------------------------------------------------ */
/*
 * Counters of one superblock's s_inode_list_lock (inode_sb_list_add/del):
 * acquisitions, those that found it held, and the PAUSE rounds and
 * sched_yield calls their waiters spent.
 */
struct rv_stat;
struct sb_lock_stats {
	struct rv_stat *acquired, *contended, *spins, *yields;
};

struct super_block {
	spinlock_t s_inode_list_lock;
	const struct sb_lock_stats *s_inode_list_stats; /* NULL: the inode_sb_list_* counters */
	struct list_head s_inodes;			/* s_inode_list_lock */
	struct dentry *s_root;
	struct inode *s_root_inode;
	seqlock_t s_rename_lock;		/* d_move writers; RCU-walk readers */
	struct rw_semaphore s_vfs_rename_mutex; /* cross-dir rename (write only) */
	struct cds_lfht *s_dcache;		/* (parent, name) -> dentry */
	struct cds_lfht *s_inode_hash;		/* i_ino -> inode; NULL: none (internal) */
	uint64_t s_maxbytes;			/* per-file size limit */
	long s_max_blocks;			/* size limit in pages (size=, else RAM/2) */
	long s_used_blocks;			/* atomic */
	long s_nr_inodes;			/* atomic */
	long s_nr_dentries;			/* atomic */
	long s_nr_negative;			/* atomic: unused negative dentries */
	uint64_t s_next_ino;			/* atomic */
	uint32_t s_magic;
	dev_t s_dev; /* the device listings print (locks): 0 in-process; the
		      * FUSE daemon sets its mount's st_dev before serving */
};
/* The instance's superblock (NULL when no instance is live). */
extern struct super_block *rv_sb;
/*
 * A kernel-internal superblock of the instance (kern_mount: shmem's
 * shm_mnt, devtmpfs): no root, no dentries, no size limit; `magic` is its
 * statfs type, `stats` its inode-list counters (NULL: the defaults).
 * sb_free_internal reports inodes still on its list and then keeps it
 * (-EBUSY), as the instance's teardown does; NULL is a no-op.
 */
struct super_block *sb_alloc_internal(uint32_t magic, const struct sb_lock_stats *stats);
int sb_free_internal(struct super_block *sb, const char *name);

/*
 * shm_mnt (vfs/shmem.c): the kernel-internal tmpfs mount whose unlinked
 * inodes back shared anonymous mappings.  shmem_kernel_file_setup creates
 * one (new_inode: on shm_mnt's s_inodes under its s_inode_list_lock) of
 * `size` bytes and an O_RDWR file on it (*out; the file holds the only
 * inode reference, whose last iput takes the inode off the list again):
 * 0, -ENOMEM (nothing left behind), -EINVAL, -ENODEV (no instance).
 */
struct super_block *shm_mnt_sb(void);
int shmem_kernel_file_setup(const char *name, int64_t size, unsigned long vm_flags,
			    struct file **out);
/* Inodes on shm_mnt now; whether inode number `ino` is on its list. */
long shmem_inodes_live(void);
bool shmem_inode_listed(uint64_t ino);
/*
 * The model's /dev/zero (char device 1:5 on an internal devtmpfs): a file
 * opened with `flags` (O_RDONLY/O_WRONLY/O_RDWR) whose f_op is zero_fops;
 * mm/ fills zero_fops.mmap (mmap_zero).  0, -ENOMEM, -EINVAL, -ENODEV.
 */
extern struct file_operations zero_fops;
int dev_zero_open(unsigned int flags, struct file **out);

/* ------------------------------------------------------------------ */
/* inode                                                               */
/* ------------------------------------------------------------------ */
#define S_DEAD 0x1 /* i_flags: directory removed (IS_DEADDIR) */

struct inode {
	uint64_t i_ino;	       /* immutable */
	uint32_t i_mode;       /* type immutable; perms: i_lock + seq */
	unsigned int i_flags;  /* S_DEAD; under i_rwsem */
	seqcount_t i_attr_seq; /* writers hold i_lock */
	spinlock_t i_lock;
	uint32_t i_nlink;				    /* i_lock + seq (parent i_rwsem held) */
	uid_t i_uid;					    /* i_lock + seq */
	gid_t i_gid;					    /* i_lock + seq */
	int64_t i_size;					    /* i_lock + seq (i_rwsem held) */
	int64_t i_blocks;				    /* 512-byte units; derived at getattr */
	struct timespec i_atime, i_mtime, i_ctime, i_btime; /* i_lock + seq */
	dev_t i_rdev;					    /* immutable */
	uint64_t i_generation;				    /* immutable */
	int i_count;					    /* atomic references */
	struct rw_semaphore i_rwsem;
	struct super_block *i_sb;
	struct list_head i_sb_list; /* sb->s_inode_list_lock */
	struct address_space i_data;
	struct address_space *i_mapping;   /* == &i_data */
	struct file_lock_context *i_flctx; /* owned by locks/ */
	char *i_link;			   /* symlink target; immutable, RCU-freed */
	struct dentry *i_dentry;	   /* directories: the one alias; i_lock */
	struct xarray i_dir_offsets;	   /* dirs: readdir offset -> dentry; i_rwsem */
	uint64_t i_dir_next_offset;	   /* dirs: i_rwsem */
	unsigned long i_nr_children;	   /* dirs: positive children; i_rwsem */
	struct list_head i_xattrs;	   /* extended attributes by name; i_xattr_lock */
	spinlock_t i_xattr_lock;	   /* (simple_xattrs->lock); writers hold i_rwsem */
	void *i_private;		   /* free for upper layers */
	struct cds_lfht_node i_hash;	   /* sb->s_inode_hash link (insert_inode_hash) */
	int i_hashed;			   /* in s_inode_hash: set once (inode.c) */
	struct rcu_head i_rcu;
};

struct kstat {
	uint64_t ino;
	uint32_t mode;
	uint32_t nlink;
	uid_t uid;
	gid_t gid;
	dev_t rdev;
	int64_t size;
	int64_t blocks; /* 512-byte units */
	uint32_t blksize;
	struct timespec atime, mtime, ctime, btime;
};

/* struct iattr.ia_valid bits (the kernel's ATTR_*) */
#define ATTR_MODE      (1u << 0)
#define ATTR_UID       (1u << 1)
#define ATTR_GID       (1u << 2)
#define ATTR_SIZE      (1u << 3)
#define ATTR_ATIME     (1u << 4)
#define ATTR_MTIME     (1u << 5)
#define ATTR_CTIME     (1u << 6)
#define ATTR_ATIME_SET (1u << 7)  /* use ia_atime, else now */
#define ATTR_MTIME_SET (1u << 8)  /* use ia_mtime, else now */
#define ATTR_KILL_SUID (1u << 11) /* clear S_ISUID if set (notify_change) */
#define ATTR_KILL_SGID (1u << 12) /* clear S_ISGID if set */

struct iattr {
	unsigned int ia_valid;
	uint32_t ia_mode;
	uid_t ia_uid;
	gid_t ia_gid;
	int64_t ia_size;
	struct timespec ia_atime, ia_mtime;
};

struct kstatfs {
	uint32_t f_type;
	uint32_t f_bsize;
	uint64_t f_blocks, f_bfree, f_bavail;
	uint64_t f_files, f_ffree;
	uint32_t f_namelen;
};

static inline void ihold(struct inode *inode)
{
	__atomic_fetch_add(&inode->i_count, 1, __ATOMIC_RELAXED);
}
void iput(struct inode *inode);
/*
 * The inode hash (the kernel's inode_hashtable, per superblock here):
 * insert_inode_hash puts a referenced inode into sb->s_inode_hash under its
 * number, once (later calls return at once); it stays there until its
 * eviction.  ilookup finds a hashed inode by number under RCU and returns it
 * referenced, or NULL when no hashed inode has that number or it is being
 * evicted.  Numbers are never reused (s_next_ino), so a NULL means the
 * inode is gone for good.  Only the mount's superblock has a hash.
 */
void insert_inode_hash(struct inode *inode);
struct inode *ilookup(struct super_block *sb, uint64_t ino);

/* ------------------------------------------------------------------ */
/* dentry                                                              */
/* ------------------------------------------------------------------ */
struct qstr {
	uint32_t hash;
	uint32_t len;
	const char *name;
};

#define DCACHE_PERSISTENT 0x1 /* holds the tmpfs-style pin reference */
#define DCACHE_HASHED	  0x2 /* in s_dcache */
#define DCACHE_ROOT	  0x4

struct dentry {
	struct lockref d_lockref;	/* d_lock + count */
	seqcount_t d_seq;		/* see top */
	unsigned int d_flags;		/* d_lock */
	struct dentry *d_parent;	/* d_move; self for the root */
	struct qstr d_name;		/* d_move; name points at d_iname or
					 * an RCU-freed external buffer */
	struct inode *d_inode;		/* d_lock + d_seq; NULL: negative */
	uint64_t d_offset;		/* readdir offset in parent; parent i_rwsem */
	struct d_hash_node *d_hashnode; /* s_dcache link (d_lock); a fresh node
					 * per hashing, RCU-freed: lfht nodes
					 * cannot be re-added without a grace
					 * period */
	struct list_head d_child;	/* parent's d_subdirs; parent d_lock */
	struct list_head d_subdirs;	/* children; d_lock */
	struct super_block *d_sb;
	struct rcu_head d_rcu;
	char d_iname[DNAME_INLINE_LEN];
};

/*
 * Hash lookups.  __d_lookup_rcu: under rcu_read_lock, no reference; *seqp
 * gets the d_seq sample the caller must validate (read_seqcount_retry).
 * d_lookup: a referenced dentry (maybe negative) or NULL, retrying a miss
 * while a rename ran (s_rename_lock).
 */
struct dentry *__d_lookup_rcu(struct dentry *parent, const char *name, uint32_t len,
			      uint32_t *seqp);
struct dentry *d_lookup(struct dentry *parent, const char *name, uint32_t len);

static inline struct dentry *dget(struct dentry *d)
{
	lockref_get(&d->d_lockref);
	return d;
}
void dput(struct dentry *d);

/* ------------------------------------------------------------------ */
/* path walk                                                           */
/* ------------------------------------------------------------------ */
#define LOOKUP_FOLLOW 0x1 /* follow a trailing symlink */
#define LOOKUP_NORCU  0x2 /* skip the RCU walk (tests) */

/* Resolve path to a referenced positive dentry: RCU walk first, reference
 * walk if it cannot legitimize.  0 or -errno (-ENOENT, -ENOTDIR, -ELOOP,
 * -ENAMETOOLONG). */
int kern_path(const char *path, unsigned flags, struct dentry **out);

/* ------------------------------------------------------------------ */
/* inode-based namespace API (FUSE)                                    */
/* ------------------------------------------------------------------ */
struct inode *vfs_root(void);
int vfs_lookup(struct inode *dir, const char *name, struct inode **out);
int vfs_create(struct inode *dir, const char *name, uint32_t mode, const struct cred *cred,
	       struct inode **out);
int vfs_mkdir(struct inode *dir, const char *name, uint32_t mode, const struct cred *cred,
	      struct inode **out);
/* mode: S_IFREG, S_IFIFO (also S_IFCHR/S_IFBLK/S_IFSOCK); else -EINVAL. */
int vfs_mknod(struct inode *dir, const char *name, uint32_t mode, dev_t rdev,
	      const struct cred *cred, struct inode **out);
int vfs_symlink(struct inode *dir, const char *name, const char *target, const struct cred *cred,
		struct inode **out);
int vfs_link(struct inode *inode, struct inode *dir, const char *name);
int vfs_unlink(struct inode *dir, const char *name);
int vfs_rmdir(struct inode *dir, const char *name);
#ifndef RENAME_NOREPLACE /* <stdio.h> with _GNU_SOURCE has the same values */
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE	 (1 << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif
int vfs_rename(struct inode *olddir, const char *oldname, struct inode *newdir, const char *newname,
	       unsigned int flags);
/* As vfs_rename; RENAME_WHITEOUT's whiteout (a 0:0 character device at
 * the old name, as tmpfs makes it) is owned by cred (NULL: root). */
int vfs_rename_cred(struct inode *olddir, const char *oldname, struct inode *newdir,
		    const char *newname, unsigned int flags, const struct cred *cred);
/* Copies the target (not NUL-terminated if it does not fit); returns its
 * length copied or -errno (-EINVAL: not a symlink). */
ssize_t vfs_readlink(struct inode *inode, char *buf, size_t len);
void vfs_getattr(struct inode *inode, struct kstat *st);
int vfs_setattr(struct inode *inode, const struct iattr *attr);
void vfs_statfs(struct kstatfs *st);
/*
 * Privilege stripping (vfs/inode.c): the ATTR_KILL_SUID/ATTR_KILL_SGID a
 * write, fallocate or truncate by cred must apply (file_remove_privs'
 * setattr_should_drop_suidgid), and the ones a chown applies (chown_common);
 * 0: none.  vfs_setattr applies them to the mode it finds under i_rwsem.
 */
unsigned int vfs_should_drop_suidgid(const struct inode *inode, const struct cred *cred);
unsigned int vfs_chown_drop_suidgid(const struct inode *inode, const struct cred *cred);

/*
 * readdir: calls actor for each entry from position pos on ("." is 0, ".."
 * is 1, entries have stable offsets >= 2 that removals never change).  The
 * actor gets the position to resume from *after* this entry; a non-zero
 * return stops the walk (the entry counts as not emitted).  Returns the
 * position to continue from, or -errno (-ENOTDIR).  The directory's i_rwsem
 * is held shared around the actor: it must not call namespace operations
 * (collect names, then look them up after vfs_readdir returns).
 */
typedef int (*filldir_t)(void *ctx, const char *name, size_t namelen, uint64_t ino, unsigned dtype,
			 int64_t next_pos);
int64_t vfs_readdir(struct inode *dir, int64_t pos, filldir_t actor, void *ctx);
/*
 * readdir through an open directory: as vfs_readdir, but the walk ends at
 * the end of the directory as it was when the file's walk started (its
 * read from position 0, or its first read): entries created or renamed
 * after that (a rename gives the entry a new offset) are not met, so a
 * walk ends while entries are renamed, and meets each entry at most once.
 */
int64_t vfs_iterate_dir(struct file *file, int64_t pos, filldir_t actor, void *ctx);

/*
 * Extended attributes (vfs/xattr.c): tmpfs's namespaces user., trusted.
 * (capable only), security. (capable writers); anything else -EOPNOTSUPP.
 * cred NULL is root.  get/list with size 0 return the length needed; a
 * buffer too small is -ERANGE.  flags: XATTR_CREATE, XATTR_REPLACE.
 */
#ifndef XATTR_CREATE
#define XATTR_CREATE  0x1
#define XATTR_REPLACE 0x2
#endif
#ifndef XATTR_NAME_MAX
#define XATTR_NAME_MAX 255   /* bytes in a name */
#define XATTR_SIZE_MAX 65536 /* bytes in a value */
#define XATTR_LIST_MAX 65536 /* bytes in a listing */
#endif
int vfs_setxattr(struct inode *inode, const char *name, const void *value, size_t size, int flags,
		 const struct cred *cred);
ssize_t vfs_getxattr(struct inode *inode, const char *name, void *buf, size_t size,
		     const struct cred *cred);
ssize_t vfs_listxattr(struct inode *inode, char *buf, size_t size, const struct cred *cred);
int vfs_removexattr(struct inode *inode, const char *name, const struct cred *cred);

/* struct file for an inode (no dentry needed).  flags: O_RDONLY/O_WRONLY/
 * O_RDWR, O_APPEND, O_TRUNC, O_DIRECTORY. */
int vfs_open_inode(struct inode *inode, int flags, struct file **out);

/* ------------------------------------------------------------------ */
/* path-based syscalls                                                 */
/* ------------------------------------------------------------------ */
int vfs_stat(const char *path, struct kstat *st);
int vfs_lstat(const char *path, struct kstat *st);
/* open(2)'s flag checks and masking: the flags the file keeps, or -EINVAL. */
int build_open_flags(int flags);
/* Every open flag Linux knows (VALID_OPEN_FLAGS); O_LARGEFILE is x86-64's. */
#define RV_VALID_OPEN_FLAGS                                                                        \
	(O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | O_NDELAY | O_DSYNC |       \
	 O_ASYNC | O_DIRECT | 0100000 | O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC |         \
	 O_SYNC | O_PATH | O_TMPFILE)
int filp_open(const char *path, int flags, uint32_t mode, struct file **out);
int do_mkdir(const char *path, uint32_t mode);
int do_mknod(const char *path, uint32_t mode, dev_t rdev);
int do_unlink(const char *path);
int do_rmdir(const char *path);
int do_rename(const char *oldpath, const char *newpath, unsigned int flags);
int do_link(const char *oldpath, const char *newpath);
int do_symlink(const char *target, const char *linkpath);
ssize_t do_readlink(const char *path, char *buf, size_t len);
int do_truncate(const char *path, int64_t length);

/* ------------------------------------------------------------------ */
/* file operations                                                     */
/* ------------------------------------------------------------------ */
/* pos NULL: use and advance file->f_pos; else use and advance *pos
 * (the kernel's vfs_read/vfs_write). */
ssize_t vfs_read(struct file *file, void *buf, size_t count, int64_t *pos);
ssize_t vfs_write(struct file *file, const void *buf, size_t count, int64_t *pos);
#ifndef SEEK_DATA
#define SEEK_DATA 3
#define SEEK_HOLE 4
#endif
int64_t vfs_llseek(struct file *file, int64_t offset, int whence);
int vfs_fsync(struct file *file, int datasync);
int vfs_fallocate(struct file *file, int mode, int64_t offset, int64_t len);

/*
 * ioctl: a restricted set of rcuvfs's own commands (vfs/ioctl.c), the path
 * that bkl_ops=ioctl puts under the BKL as 2.6.26's vfs_ioctl did for every
 * ->ioctl.  `arg` is the address of the caller's buffer (a uint64_t for the
 * _IOR commands).  Returns 0, -ENOTTY for any other command, -EFAULT for a
 * NULL buffer, -EBADF on an O_PATH file.  The numbers (type 0xB7) are not
 * among the ioctls the kernel's VFS handles itself (do_vfs_ioctl), so on a
 * FUSE mount they reach the daemon as restricted ioctls, whose direction
 * and size the number encodes (_IOC_DIR, _IOC_SIZE).
 */
#define RCUVFS_IOC_MAGIC      0xB7
#define RCUVFS_IOC_NOP	      _IO(RCUVFS_IOC_MAGIC, 0)		  /* nothing; BKL benchmarks */
#define RCUVFS_IOC_GETGEN     _IOR(RCUVFS_IOC_MAGIC, 1, uint64_t) /* the file's f_gen */
#define RCUVFS_IOC_GETVERSION _IOR(RCUVFS_IOC_MAGIC, 2, uint64_t) /* the inode's i_generation */
long vfs_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
/* Truncate (or extend) to size; caller holds no locks. */
int vfs_truncate(struct inode *inode, int64_t size);

/* Counters for tests: live objects in the instance. */
long vfs_inodes_live(void);
/* Shrink the caches if evictions freed pages since the last shrink (they
 * do it themselves every 1 MiB); true if a shrink was queued. */
bool vfs_shrink_freed(void);
long vfs_dentries_live(void);

#endif
