// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/inode.c - inodes: allocation onto the superblock's list, references
 * (ihold/iput), eviction of the last reference, attributes under a seqcount
 * (vfs_getattr reads without locks), setattr and truncate.
 *
 * Locking:
 *   sb->s_inode_list_lock  protects s_inodes and every i_sb_list link
 *                          (taken on every inode creation and eviction:
 *                          the contention point of docs/history.md).
 *   inode->i_lock          serializes attribute writers; each writer bumps
 *                          i_attr_seq around its stores so lockless readers
 *                          (vfs_getattr) retry instead of seeing a torn set.
 *   inode->i_rwsem         held exclusive by setattr/truncate/write; it
 *                          orders i_size changes with page-cache updates.
 *   i_count                atomic; the last iput evicts: truncates the page
 *                          cache, releases the backing store, calls
 *                          vfs_hooks.locks_free_context, unhashes it,
 *                          unlinks from the sb list and frees after a grace
 *                          period (RCU walk dereferences d_inode->i_mode and
 *                          i_link; ilookup walks the inode hash).
 *   inode_hash_lock        serializes insert_inode_hash (below); the
 *                          inode hash itself is a cds_lfht (RCU readers).
 * Linked inodes are always referenced by their (persistent) dentries, so
 * the last iput means "orphan whose last user left" or teardown.
 */
#include "vfs/internal.h"

#include <stdlib.h>
#include <string.h>
#include <urcu/rculfhash.h>

static struct kmem_cache *inode_cachep;

RV_STAT_DEFINE(inode_allocs, "inodes created (new_inode)");
RV_STAT_DEFINE(inode_evictions, "inodes evicted by their last iput");
RV_STAT_DEFINE(getattr_retries, "vfs_getattr seqcount retries");
RV_STAT_DEFINE(
    inode_sb_list_locks,
    "s_inode_list_lock acquisitions by inode creation/eviction (the mount's superblock)");
RV_STAT_DEFINE(inode_sb_list_contended,
	       "inode creations/evictions that found s_inode_list_lock held");
RV_STAT_DEFINE(inode_sb_list_spins,
	       "PAUSE rounds spent waiting for s_inode_list_lock (the mount's superblock)");
RV_STAT_DEFINE(inode_sb_list_yields,
	       "sched_yield calls while waiting for s_inode_list_lock (the mount's superblock)");
RV_STAT_DEFINE(new_inode_prefetches,
	       "s_inode_list_lock prefetches for writing by new_inode (new_inode_prefetch=1)");

static const struct sb_lock_stats sb_list_stats_default = {
    &rv_stat_inode_sb_list_locks, &rv_stat_inode_sb_list_contended, &rv_stat_inode_sb_list_spins,
    &rv_stat_inode_sb_list_yields};

/*
 * inode_sb_list_add/del's lock (fs/inode.c: a plain spin_lock of the
 * superblock's s_inode_list_lock, per superblock since Linux 4.3), counted
 * in the superblock's counters: every acquisition; one that found it held,
 * and what its wait cost.
 */
static void sb_inode_list_lock(struct super_block *sb)
{
	const struct sb_lock_stats *st =
	    sb->s_inode_list_stats ? sb->s_inode_list_stats : &sb_list_stats_default;
	struct spin_wait w = {0, 0};

	rv_stat_add_idx(st->acquired->idx, 1);
	if (likely(spin_trylock(&sb->s_inode_list_lock)))
		return;
	rv_stat_add_idx(st->contended->idx, 1);
	spin_lock_counted(&sb->s_inode_list_lock, &w);
	rv_stat_add_idx(st->spins->idx, w.spins);
	rv_stat_add_idx(st->yields->idx, w.yields);
}

int inode_cache_init(void)
{
	inode_cachep =
	    kmem_cache_create("inode", sizeof(struct inode), 64, SLAB_HWCACHE_ALIGN, NULL);
	return inode_cachep ? 0 : -ENOMEM;
}

int inode_cache_destroy(void)
{
	int err = kmem_cache_destroy(inode_cachep);

	inode_cachep = NULL;
	return err;
}

void inode_now(struct timespec *ts)
{
	clock_gettime(CLOCK_REALTIME, ts);
}

/*
 * new_inode (fs/inode.c): alloc_inode, then inode_sb_list_add.  Before
 * Linux 6.5 it first prefetched the list lock for writing
 * (spin_lock_prefetch; removed by c8afaa1b0f, "locking: remove
 * spin_lock_prefetch"): new_inode_prefetch=1.  Pulling the line in
 * exclusive while another CPU holds or waits for the lock takes it away
 * from them before this CPU can use it; on many CPUs that cost stress-ng's
 * zero 6.3% (docs/history.md).
 */
static uint64_t inode_generation_next; /* atomic: new_inode */

struct inode *new_inode(struct super_block *sb, uint32_t mode, const struct cred *cred)
{
	struct inode *inode;
	struct address_space *m;

	if (unlikely(rv_sw.new_inode_prefetch)) {
		spin_lock_prefetch(&sb->s_inode_list_lock);
		rv_stat_inc(new_inode_prefetches);
	}
	inode = kmem_cache_zalloc(inode_cachep);
	if (!inode)
		return NULL;
	inode->i_ino = __atomic_fetch_add(&sb->s_next_ino, 1, __ATOMIC_RELAXED);
	/*
	 * Every inode its own generation, as shmem_get_inode gives each a
	 * random one (mm/shmem.c, 6.x): a file handle names an inode by
	 * number (or, through FUSE, by object address) and generation, so an
	 * object or number used again is never taken for the old inode.  A
	 * counter here: unique and deterministic.
	 */
	inode->i_generation = __atomic_add_fetch(&inode_generation_next, 1, __ATOMIC_RELAXED);
	inode->i_mode = mode;
	seqcount_init(&inode->i_attr_seq);
	spin_lock_init(&inode->i_lock);
	init_rwsem(&inode->i_rwsem);
	inode->i_nlink = 1;
	inode->i_uid = cred ? cred->fsuid : 0;
	inode->i_gid = cred ? cred->fsgid : 0;
	inode_now(&inode->i_mtime);
	inode->i_atime = inode->i_ctime = inode->i_btime = inode->i_mtime;
	inode->i_count = 1;
	inode->i_sb = sb;
	xa_init(&inode->i_dir_offsets);
	inode->i_dir_next_offset = 2;
	INIT_LIST_HEAD(&inode->i_xattrs);
	spin_lock_init(&inode->i_xattr_lock);

	m = &inode->i_data;
	m->host = inode;
	spin_lock_init(&m->i_pages_lock);
	xa_init(&m->i_pages);
	init_rwsem(&m->invalidate_lock);
	init_rwsem(&m->i_mmap_rwsem);
	INIT_LIST_HEAD(&m->i_mmap);
	m->a_store = &memstore_ops;
	inode->i_mapping = m;

	sb_inode_list_lock(sb);
	list_add(&inode->i_sb_list, &sb->s_inodes);
	spin_unlock(&sb->s_inode_list_lock);
	__atomic_fetch_add(&sb->s_nr_inodes, 1, __ATOMIC_RELAXED);
	rv_stat_inc(inode_allocs);
	return inode;
}

static void inode_free_rcu(struct rcu_head *head)
{
	struct inode *inode = container_of(head, struct inode, i_rcu);

	free(inode->i_link);
	kmem_cache_free(inode_cachep, inode);
}

/*
 * After large frees the caches give their empty slabs back and the heap
 * its free pages (kmem_cache_shrink_all, the model's drop_slab): evictions
 * count the pages they freed, and every SHRINK_AFTER_PAGES of them one
 * evicting task queues a shrink (it runs from an RCU callback, after this
 * inode and what else was RCU-freed before it are free).  The kernel's
 * shrinkers run under memory pressure instead; a process has no such
 * signal, and glibc never returns free heap pages by itself; so the FUSE
 * daemon also calls vfs_shrink_freed once a second for what was freed
 * below the threshold.
 */
#define SHRINK_AFTER_PAGES 256	      /* 1 MiB */
static long pages_freed_since_shrink; /* atomic */
RV_STAT_DEFINE(vfs_shrinks, "caches shrunk after large frees (kmem_cache_shrink_all)");

static void remove_inode_hash(struct inode *inode);

static void evict(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct address_space *m = inode->i_mapping;
	long freed = __atomic_load_n(&m->nrblocks, __ATOMIC_RELAXED); /* cache + store */

	down_write(&m->invalidate_lock);
	truncate_inode_pages(m, 0);
	up_write(&m->invalidate_lock);
	/* a long symlink's block (no folio holds it) */
	if (S_ISLNK(inode->i_mode) && m->nrblocks) {
		sb_release_blocks(sb, m->nrblocks);
		m->nrblocks = 0;
	}
	if (m->a_store && m->a_store->release)
		m->a_store->release(m);
	if (inode->i_flctx && vfs_hooks.locks_free_context)
		vfs_hooks.locks_free_context(inode);
	xa_destroy(&inode->i_dir_offsets);
	xa_destroy(&m->i_pages);
	inode_free_xattrs(inode);

	RV_INJECT("evict_sb_list_del"); /* about to take the inode off s_inodes */
	sb_inode_list_lock(sb);
	list_del_init(&inode->i_sb_list);
	spin_unlock(&sb->s_inode_list_lock);
	/* after inode_sb_list_del, as evict() does: until here ilookup can
	 * still meet it, at count 0 (get-unless-zero refuses it) */
	remove_inode_hash(inode);
	__atomic_fetch_sub(&sb->s_nr_inodes, 1, __ATOMIC_RELAXED);
	rv_stat_inc(inode_evictions);
	rv_call_rcu(&inode->i_rcu, inode_free_rcu);
	if (__atomic_add_fetch(&pages_freed_since_shrink, freed, __ATOMIC_RELAXED) >=
	    SHRINK_AFTER_PAGES)
		vfs_shrink_freed();
}

bool vfs_shrink_freed(void)
{
	if (!__atomic_exchange_n(&pages_freed_since_shrink, 0, __ATOMIC_RELAXED))
		return false;
	kmem_cache_shrink_all();
	rv_stat_inc(vfs_shrinks);
	return true;
}

void iput(struct inode *inode)
{
	if (!inode)
		return;
	if (__atomic_sub_fetch(&inode->i_count, 1, __ATOMIC_ACQ_REL) == 0)
		evict(inode);
}

/*
 * The inode hash.  Linux hashes a tmpfs inode only when a file handle is
 * first made for it (shmem_encode_fh, mm/shmem.c, 6.x: __insert_inode_hash
 * under a static spinlock, "insert_inode_hash is not idempotent"), keeps it
 * hashed until evict() calls remove_inode_hash, and finds it again by
 * number with ilookup5 (shmem_fh_to_dentry).  Since 6.12 the lookup walks
 * the hash chain under rcu_read_lock alone (find_inode_fast with
 * is_inode_hash_locked false) and takes a reference only on an inode that
 * is not being freed.  Here the table is a cds_lfht per superblock (the
 * mount's; internal superblocks have none), keyed by i_ino, which
 * new_inode takes from a 64-bit counter and never reuses; "being freed" is
 * i_count at zero (the last iput evicts), so the reference is a
 * get-unless-zero, and the node lives in the inode, which is freed after a
 * grace period.  The daemon's node ids (fuse/ops.c) are these numbers.
 *
 * Locking: inode_hash_lock serializes inserts (once per inode, i_hashed);
 * lookups and the eviction's removal run under rcu_read_lock.
 */
static DEFINE_SPINLOCK(inode_hash_lock);

static unsigned long ino_hash(uint64_t ino)
{
	return (unsigned long)(ino * 0x9e3779b97f4a7c15ull); /* hash_64's multiplier */
}

static int ino_match(struct cds_lfht_node *node, const void *key)
{
	return container_of(node, struct inode, i_hash)->i_ino == *(const uint64_t *)key;
}

int inode_hash_init(struct super_block *sb)
{
	sb->s_inode_hash = cds_lfht_new_flavor(
	    64, 64, 0, CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING, &urcu_memb_flavor, NULL);
	return sb->s_inode_hash ? 0 : -ENOMEM;
}

void inode_hash_destroy(struct super_block *sb)
{
	if (!sb->s_inode_hash)
		return;
	if (cds_lfht_destroy(sb->s_inode_hash, NULL))
		fprintf(stderr, "rcuvfs: vfs teardown: inode hash not empty\n");
	sb->s_inode_hash = NULL;
}

void insert_inode_hash(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;

	if (likely(__atomic_load_n(&inode->i_hashed, __ATOMIC_ACQUIRE)) || !sb->s_inode_hash)
		return;
	spin_lock(&inode_hash_lock);
	if (!inode->i_hashed) {
		rcu_read_lock();
		cds_lfht_add(sb->s_inode_hash, ino_hash(inode->i_ino), &inode->i_hash);
		rcu_read_unlock();
		/* a caller that sees it set finds the inode in the table */
		__atomic_store_n(&inode->i_hashed, 1, __ATOMIC_RELEASE);
	}
	spin_unlock(&inode_hash_lock);
}

/* remove_inode_hash, from evict(): nobody else holds a reference */
static void remove_inode_hash(struct inode *inode)
{
	if (!__atomic_load_n(&inode->i_hashed, __ATOMIC_RELAXED))
		return;
	rcu_read_lock();
	cds_lfht_del(inode->i_sb->s_inode_hash, &inode->i_hash);
	rcu_read_unlock();
}

struct inode *ilookup(struct super_block *sb, uint64_t ino)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	struct inode *inode = NULL;
	int c;

	if (unlikely(!sb->s_inode_hash))
		return NULL;
	rcu_read_lock();
	cds_lfht_lookup(sb->s_inode_hash, ino_hash(ino), ino_match, &ino, &iter);
	node = cds_lfht_iter_get_node(&iter);
	if (node) {
		inode = container_of(node, struct inode, i_hash);
		/* get-unless-zero: an inode at 0 is being evicted (gone) */
		c = __atomic_load_n(&inode->i_count, __ATOMIC_RELAXED);
		while (c > 0 && !__atomic_compare_exchange_n(&inode->i_count, &c, c + 1, true,
							     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			;
		if (c <= 0)
			inode = NULL;
	}
	rcu_read_unlock();
	return inode;
}

/* ---- attribute writers (i_lock + i_attr_seq) ------------------------- */

static inline void inode_attr_lock(struct inode *inode)
{
	spin_lock(&inode->i_lock);
	write_seqcount_begin(&inode->i_attr_seq);
}

static inline void inode_attr_unlock(struct inode *inode)
{
	write_seqcount_end(&inode->i_attr_seq);
	spin_unlock(&inode->i_lock);
}

void inode_set_nlink(struct inode *inode, uint32_t nlink)
{
	inode_attr_lock(inode);
	WRITE_ONCE(inode->i_nlink, nlink);
	inode_attr_unlock(inode);
}

void inode_inc_nlink(struct inode *inode)
{
	struct timespec now;

	inode_now(&now);
	inode_attr_lock(inode);
	WRITE_ONCE(inode->i_nlink, inode->i_nlink + 1);
	inode->i_ctime = now;
	inode_attr_unlock(inode);
}

void inode_dec_nlink(struct inode *inode)
{
	struct timespec now;

	inode_now(&now);
	inode_attr_lock(inode);
	if (inode->i_nlink)
		WRITE_ONCE(inode->i_nlink, inode->i_nlink - 1);
	inode->i_ctime = now;
	inode_attr_unlock(inode);
}

void inode_touch(struct inode *inode, bool mtime, bool ctime)
{
	struct timespec now;

	inode_now(&now);
	inode_attr_lock(inode);
	if (mtime)
		inode->i_mtime = now;
	if (ctime)
		inode->i_ctime = now;
	inode_attr_unlock(inode);
}

void inode_set_size(struct inode *inode, int64_t size)
{
	inode_attr_lock(inode);
	__atomic_store_n(&inode->i_size, size, __ATOMIC_RELEASE);
	inode_attr_unlock(inode);
}

void vfs_getattr(struct inode *inode, struct kstat *st)
{
	uint32_t seq;

	for (;;) {
		seq = read_seqcount_begin(&inode->i_attr_seq);
		st->ino = inode->i_ino;
		st->mode = READ_ONCE(inode->i_mode);
		/* the explorer may run a whole writer here: a reader that did
		 * not retry would mix its fields with the ones before */
		rv_sched_point("getattr: mode read, before the owner");
		st->nlink = READ_ONCE(inode->i_nlink);
		st->uid = READ_ONCE(inode->i_uid);
		/* explorer: a writer may run between the two loads */
		rv_sched_point("getattr: uid read, gid not yet");
		st->gid = READ_ONCE(inode->i_gid);
		st->rdev = inode->i_rdev;
		st->size = __atomic_load_n(&inode->i_size, __ATOMIC_RELAXED);
		st->atime = inode->i_atime;
		st->mtime = inode->i_mtime;
		st->ctime = inode->i_ctime;
		st->btime = inode->i_btime;
		if (RV_MUTANT(getattr_no_seq_retry) ||
		    !read_seqcount_retry(&inode->i_attr_seq, seq))
			break;
		rv_stat_inc(getattr_retries);
	}
	st->blocks = __atomic_load_n(&inode->i_data.nrblocks, __ATOMIC_RELAXED) * (PAGE_SIZE / 512);
	st->blksize = PAGE_SIZE;
}

/* Size change with i_rwsem held exclusive. */
int inode_truncate_locked(struct inode *inode, int64_t size)
{
	struct address_space *m = inode->i_mapping;
	int64_t old = i_size_read(inode);

	if (size < 0)
		return -EINVAL;
	if ((uint64_t)size > inode->i_sb->s_maxbytes)
		return -EFBIG;
	if (size == old)
		return 0;
	inode_set_size(inode, size);
	if (size < old) {
		/* the kernel's truncate_pagecache: unmap, drop, unmap again to
		 * catch folios faulted in meanwhile (private COWs included) */
		down_write(&m->invalidate_lock);
		if (vfs_hooks.unmap_mapping_range)
			vfs_hooks.unmap_mapping_range(m, pos_round_up_page(size), 0, 1);
		truncate_inode_pages(m, size);
		if (vfs_hooks.unmap_mapping_range)
			vfs_hooks.unmap_mapping_range(m, pos_round_up_page(size), 0, 1);
		up_write(&m->invalidate_lock);
	}
	return 0;
}

/*
 * notify_change: with bkl_ops=setattr the whole change, i_rwsem included,
 * runs under the BKL (taken outside i_rwsem; a sleep on i_rwsem releases it
 * through schedule()).
 */
int vfs_setattr(struct inode *inode, const struct iattr *attr)
{
	const bool bkl = rv_sw.bkl_ops & BKL_OP_SETATTR; /* read-mostly, once */
	unsigned int v = attr->ia_valid;
	struct timespec now;
	int err = 0;

	if (v & ATTR_SIZE) {
		if (S_ISDIR(inode->i_mode))
			return -EISDIR;
		if (!S_ISREG(inode->i_mode))
			return -EINVAL;
	}
	if (unlikely(bkl))
		lock_kernel();
	RV_INJECT("bkl_ops_setattr");
	down_write(&inode->i_rwsem);
	if (v & ATTR_SIZE) {
		int64_t old = i_size_read(inode);

		err = inode_truncate_locked(inode, attr->ia_size);
		if (err)
			goto out;
		if (attr->ia_size != old)
			inode_touch(inode, true, true);
	}
	inode_now(&now);
	inode_attr_lock(inode);
	if (v & ATTR_MODE)
		WRITE_ONCE(inode->i_mode, (inode->i_mode & S_IFMT) | (attr->ia_mode & 07777));
	/* notify_change (fs/attr.c, 6.x) turns ATTR_KILL_S*ID into a mode
	 * change computed on the mode it finds, under the inode lock */
	if ((v & ATTR_KILL_SUID) && (inode->i_mode & S_ISUID)) {
		WRITE_ONCE(inode->i_mode, inode->i_mode & ~(uint32_t)S_ISUID);
		v |= ATTR_MODE;
	}
	if ((v & ATTR_KILL_SGID) && (inode->i_mode & S_ISGID)) {
		WRITE_ONCE(inode->i_mode, inode->i_mode & ~(uint32_t)S_ISGID);
		v |= ATTR_MODE;
	}
	if (v & ATTR_UID)
		WRITE_ONCE(inode->i_uid, attr->ia_uid);
	/* explorer: a lockless reader may run between the two stores */
	rv_sched_point("setattr: uid stored, gid not yet");
	if (v & ATTR_GID)
		WRITE_ONCE(inode->i_gid, attr->ia_gid);
	if (v & ATTR_ATIME)
		inode->i_atime = (v & ATTR_ATIME_SET) ? attr->ia_atime : now;
	if (v & ATTR_MTIME)
		inode->i_mtime = (v & ATTR_MTIME_SET) ? attr->ia_mtime : now;
	if (v & (ATTR_MODE | ATTR_UID | ATTR_GID | ATTR_ATIME | ATTR_MTIME | ATTR_CTIME))
		inode->i_ctime = now;
	inode_attr_unlock(inode);
out:
	up_write(&inode->i_rwsem);
	if (unlikely(bkl))
		unlock_kernel();
	return err;
}

/* in_group_or_capable (fs/inode.c, 6.x): fsgid, a supplementary group,
 * or CAP_FSETID (the model: fsuid 0) */
static bool in_group_or_capable(const struct cred *cred, gid_t gid)
{
	if (!cred || cred->fsuid == 0 || cred->fsgid == gid)
		return true;
	for (int i = 0; i < cred->ngroups; i++)
		if (cred->groups[i] == gid)
			return true;
	return false;
}

/* setattr_should_drop_sgid (fs/attr.c, Linux 6.2+): a group-executable
 * setgid file always, a setgid file without group execute (the old
 * mandatory-locking mark) when the caller is neither in its group nor
 * capable */
static unsigned int should_drop_sgid(uint32_t mode, gid_t gid, const struct cred *cred)
{
	if (!(mode & S_ISGID))
		return 0;
	if (mode & S_IXGRP)
		return ATTR_KILL_SGID;
	return in_group_or_capable(cred, gid) ? 0 : ATTR_KILL_SGID;
}

/*
 * setattr_should_drop_suidgid (fs/attr.c, Linux 6.2+), what
 * file_remove_privs (fs/inode.c) applies before a write or fallocate and
 * do_truncate before a truncate: S_ISUID, and S_ISGID as above, of a
 * regular file, unless the caller has CAP_FSETID (fsuid 0).  NULL cred is
 * root.  Reads the mode without the lock: vfs_setattr rechecks under it.
 */
unsigned int vfs_should_drop_suidgid(const struct inode *inode, const struct cred *cred)
{
	uint32_t mode = READ_ONCE(inode->i_mode);
	unsigned int kill = 0;

	if (likely(!(mode & (S_ISUID | S_ISGID))) || !S_ISREG(mode))
		return 0;
	if (mode & S_ISUID)
		kill = ATTR_KILL_SUID;
	kill |= should_drop_sgid(mode, READ_ONCE(inode->i_gid), cred);
	if (!cred || cred->fsuid == 0)
		return 0; /* CAP_FSETID */
	return kill;
}

/* chown_common (fs/open.c, 6.x): a chown of a non-directory always drops
 * S_ISUID (even by root: notify_change applies ATTR_KILL_SUID as is), and
 * S_ISGID as setattr_should_drop_sgid says. */
unsigned int vfs_chown_drop_suidgid(const struct inode *inode, const struct cred *cred)
{
	uint32_t mode = READ_ONCE(inode->i_mode);

	if (S_ISDIR(mode) || !(mode & (S_ISUID | S_ISGID)))
		return 0;
	return ((mode & S_ISUID) ? ATTR_KILL_SUID : 0) |
	       should_drop_sgid(mode, READ_ONCE(inode->i_gid), cred);
}

int vfs_truncate(struct inode *inode, int64_t size)
{
	struct iattr ia = {.ia_valid = ATTR_SIZE, .ia_size = size};

	return vfs_setattr(inode, &ia);
}
