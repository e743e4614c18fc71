// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/super.c - the superblock (the instance's one mount), space accounting
 * for the size limit (size=, or half the host's RAM as tmpfs), statfs, and the vfs subsystem's
 * init/teardown.
 *
 * Locking: rv_sb is set at init and cleared at teardown, when no other
 * thread uses the model.  s_used_blocks, s_nr_* and s_next_ino are atomics.
 * s_inode_list_lock protects s_inodes (inode.c).  Teardown kills every
 * dentry (dcache_destroy), reports inodes still referenced, waits for RCU
 * callbacks and destroys the caches; any leak makes it return -EBUSY.
 */
#include "vfs/internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <urcu/rculfhash.h>

#define RCUVFS_MAGIC 0x52435546 /* "RCUF" */

struct super_block *rv_sb;
struct vfs_hooks vfs_hooks;
int rv_sb_shutting_down;

long sb_capacity_blocks(const struct super_block *sb)
{
	return sb->s_max_blocks;
}

/* shmem_default_max_blocks: half the host's RAM, in pages. */
static long default_max_blocks(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || psz <= 0)
		return (1L << 40) / PAGE_SIZE;
	return (long)((uint64_t)pages * (uint64_t)psz / 2 / PAGE_SIZE);
}

int sb_reserve_blocks(struct super_block *sb, long n)
{
	long max = sb->s_max_blocks;
	long cur = __atomic_load_n(&sb->s_used_blocks, __ATOMIC_RELAXED);

	do {
		if (cur + n > max)
			return -ENOSPC;
	} while (!__atomic_compare_exchange_n(&sb->s_used_blocks, &cur, cur + n, true,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return 0;
}

void sb_release_blocks(struct super_block *sb, long n)
{
	__atomic_fetch_sub(&sb->s_used_blocks, n, __ATOMIC_RELAXED);
}

void vfs_statfs(struct kstatfs *st)
{
	struct super_block *sb = rv_sb;
	long used = __atomic_load_n(&sb->s_used_blocks, __ATOMIC_RELAXED);
	long inodes = __atomic_load_n(&sb->s_nr_inodes, __ATOMIC_RELAXED);

	memset(st, 0, sizeof(*st));
	st->f_type = sb->s_magic;
	st->f_bsize = PAGE_SIZE;
	st->f_blocks = (uint64_t)sb_capacity_blocks(sb);
	st->f_bfree = st->f_blocks > (uint64_t)used ? st->f_blocks - used : 0;
	st->f_bavail = st->f_bfree;
	st->f_files = 1ULL << 32;
	st->f_ffree = st->f_files - inodes;
	st->f_namelen = NAME_MAX_LEN;
}

static void vfs_file_put_path(struct file *file)
{
	if (file->f_dentry)
		dput(file->f_dentry);
	if (file->f_inode)
		iput(file->f_inode);
}

static uint64_t gauge_inodes(void)
{
	return rv_sb ? (uint64_t)__atomic_load_n(&rv_sb->s_nr_inodes, __ATOMIC_RELAXED) : 0;
}

static uint64_t gauge_dentries(void)
{
	return rv_sb ? (uint64_t)__atomic_load_n(&rv_sb->s_nr_dentries, __ATOMIC_RELAXED) : 0;
}

static uint64_t gauge_folios(void)
{
	return (uint64_t)folio_count_live();
}

long vfs_inodes_live(void)
{
	return rv_sb ? __atomic_load_n(&rv_sb->s_nr_inodes, __ATOMIC_RELAXED) : 0;
}

long vfs_dentries_live(void)
{
	return rv_sb ? __atomic_load_n(&rv_sb->s_nr_dentries, __ATOMIC_RELAXED) : 0;
}

static void sb_init_common(struct super_block *sb)
{
	spin_lock_init(&sb->s_inode_list_lock);
	INIT_LIST_HEAD(&sb->s_inodes);
	seqlock_init(&sb->s_rename_lock);
	init_rwsem(&sb->s_vfs_rename_mutex);
	sb->s_maxbytes = INT64_MAX;
	sb->s_next_ino = 1;
}

struct super_block *sb_alloc_internal(uint32_t magic, const struct sb_lock_stats *stats)
{
	struct super_block *sb = rv_calloc("super_block", 1, sizeof(*sb));

	if (!sb)
		return NULL;
	sb_init_common(sb);
	/* shmem_fill_super: a kernel mount (SB_KERNMOUNT) has no size limit */
	sb->s_max_blocks = LONG_MAX / 2;
	sb->s_magic = magic;
	sb->s_inode_list_stats = stats;
	return sb;
}

int sb_free_internal(struct super_block *sb, const char *name)
{
	struct inode *inode;

	if (!sb)
		return 0;
	if (!list_empty(&sb->s_inodes)) {
		list_for_each_entry(inode, &sb->s_inodes, i_sb_list)
			fprintf(
			    stderr,
			    "rcuvfs: %s teardown: inode %llu mode %o still has %d reference(s)\n",
			    name, (unsigned long long)inode->i_ino, inode->i_mode, inode->i_count);
		return -EBUSY; /* keep it: freeing could hide the bug */
	}
	free(sb);
	return 0;
}

static int vfs_init(void)
{
	struct super_block *sb;
	struct inode *root;
	int err;

	sb = calloc(1, sizeof(*sb));
	if (!sb)
		return -ENOMEM;
	sb_init_common(sb);
	/* size=0: tmpfs's default size, so that statfs, fallocate and every
	 * write see one bound and the daemon's page data stays below it */
	sb->s_max_blocks =
	    rv_sw.size ? (long)((rv_sw.size + PAGE_SIZE - 1) / PAGE_SIZE) : default_max_blocks();
	sb->s_magic = RCUVFS_MAGIC;
	rv_sb_shutting_down = 0;

	err = pagecache_init();
	if (err)
		goto out_free;
	err = inode_cache_init();
	if (err)
		goto out_pagecache;
	err = inode_hash_init(sb);
	if (err)
		goto out_inode;
	err = dcache_init(sb);
	if (err)
		goto out_hash;
	rv_sb = sb;

	root = new_inode(sb, S_IFDIR | (rv_sw.mode & 07777), NULL);
	if (!root) {
		err = -ENOMEM;
		goto out_dcache;
	}
	inode_set_nlink(root, 2);
	inode_set_size(root, 2 * BOGO_DIRENT_SIZE);
	sb->s_root_inode = root;
	sb->s_root = d_alloc_root(root); /* takes over the root reference */
	if (!sb->s_root) {
		iput(root);
		err = -ENOMEM;
		goto out_dcache;
	}
	vfs_file_hooks.file_put_path = vfs_file_put_path;
	rv_stat_register_gauge("vfs_inodes", "inodes alive", gauge_inodes);
	rv_stat_register_gauge("vfs_dentries", "dentries alive", gauge_dentries);
	rv_stat_register_gauge("vfs_folios", "folios alive (page cache and anonymous)",
			       gauge_folios);
	return 0;

out_dcache:
	rv_sb = NULL;
	dcache_destroy(sb);
	rcu_barrier();
out_hash:
	inode_hash_destroy(sb);
out_inode:
	inode_cache_destroy();
out_pagecache:
	pagecache_destroy();
out_free:
	free(sb);
	return err;
}

static int vfs_teardown(void)
{
	struct super_block *sb = rv_sb;
	int ret = 0, err;

	if (!sb)
		return 0;
	rv_sb_shutting_down = 1;
	err = dcache_destroy(sb); /* every dentry; drops the inodes they pin */
	if (err)
		ret = err;
	rcu_barrier();
	if (!list_empty(&sb->s_inodes)) {
		struct inode *inode;

		list_for_each_entry(inode, &sb->s_inodes, i_sb_list)
			fprintf(
			    stderr,
			    "rcuvfs: vfs teardown: inode %llu mode %o still has %d reference(s)\n",
			    (unsigned long long)inode->i_ino, inode->i_mode, inode->i_count);
		ret = -EBUSY;
	}
	if (ret) {
		/* keep leaked objects alive: freeing them could hide the bug */
		fprintf(stderr, "rcuvfs: vfs teardown: leaks, objects kept\n");
		rv_sb = NULL;
		vfs_file_hooks.file_put_path = NULL;
		return ret;
	}
	rv_sb = NULL;
	vfs_file_hooks.file_put_path = NULL;
	rcu_barrier();
	inode_hash_destroy(sb);
	err = inode_cache_destroy();
	if (err)
		ret = err;
	err = pagecache_destroy();
	if (err)
		ret = err;
	if (xa_nodes_count()) {
		fprintf(stderr, "rcuvfs: vfs teardown: %ld xarray node(s) leaked\n",
			xa_nodes_count());
		ret = -EBUSY;
	}
	free(sb);
	return ret;
}

RV_SUBSYS(vfs, vfs_init, vfs_teardown);
