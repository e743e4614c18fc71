/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/internal.h - declarations shared by the VFS-objects files (super.c,
 * inode.c, dcache.c, namei.c, read_write.c, pagecache.c, xarray.c).  Not a
 * public header: nothing outside vfs/ includes it.
 */
#ifndef RCUVFS_VFS_INTERNAL_H
#define RCUVFS_VFS_INTERNAL_H

#include "vfs/vfs.h"

/* super.c */
int sb_reserve_blocks(struct super_block *sb, long n);
void sb_release_blocks(struct super_block *sb, long n);
/* The size limit in pages, as statfs reports it (size=, or tmpfs's default
 * of half the host's RAM when size=0). */
long sb_capacity_blocks(const struct super_block *sb);
extern int rv_sb_shutting_down;

/* inode.c */
int inode_cache_init(void);
int inode_cache_destroy(void);
/* the mount's inode hash (s_inode_hash): created at init, destroyed empty */
int inode_hash_init(struct super_block *sb);
void inode_hash_destroy(struct super_block *sb);
struct inode *new_inode(struct super_block *sb, uint32_t mode, const struct cred *cred);
void inode_now(struct timespec *ts);
/* Attribute writers: caller holds nothing; takes i_lock + i_attr_seq. */
void inode_set_nlink(struct inode *inode, uint32_t nlink);
void inode_inc_nlink(struct inode *inode);
void inode_dec_nlink(struct inode *inode);
void inode_touch(struct inode *inode, bool mtime, bool ctime);
void inode_set_size(struct inode *inode, int64_t size);
static inline int64_t i_size_read(const struct inode *inode)
{
	return __atomic_load_n(&inode->i_size, __ATOMIC_ACQUIRE);
}
int inode_truncate_locked(struct inode *inode, int64_t size);

/* xattr.c: free an evicted inode's attributes */
void inode_free_xattrs(struct inode *inode);

/* dcache.c */
int dcache_init(struct super_block *sb);
int dcache_destroy(struct super_block *sb);
struct dentry *d_alloc_root(struct inode *inode);
/* Under parent i_rwsem (any mode): the hashed dentry for name, allocating a
 * negative one if none; referenced.  -ENOENT in a dead directory. */
int d_lookup_or_alloc(struct dentry *parent, const char *name, uint32_t len, struct dentry **out);
void d_instantiate(struct dentry *d, struct inode *inode);
void d_make_persistent(struct dentry *d);
/* Unlink: drop the persistent pin, and turn negative or unhash. */
void d_delete_persistent(struct dentry *d);
void d_drop(struct dentry *d);
/*
 * What d_move and d_exchange need, allocated before a rename changes
 * anything (d_rename_prealloc: len0 the moved name's length, for an
 * exchange len1 the other's, 0 for none; -ENOMEM), so that they cannot
 * fail; they take what they use, d_rename_pre_free frees the rest.
 */
struct d_hash_node;
struct external_name;
struct d_rename_pre {
	struct d_hash_node *hn[2];
	struct external_name *ext[2];
};
int d_rename_prealloc(struct d_rename_pre *pre, uint32_t len0, uint32_t len1);
void d_rename_pre_free(struct d_rename_pre *pre);
void d_move(struct dentry *d, struct dentry *target, struct dentry *newparent, const char *name,
	    uint32_t len, struct d_rename_pre *pre);
void d_exchange(struct dentry *a, struct dentry *b, struct d_rename_pre *pre);
struct dentry *dget_parent(struct dentry *d);
struct dentry *d_find_alias(struct inode *inode);
bool d_is_ancestor(struct dentry *ancestor, struct dentry *d);
void shrink_dcache_parent_negative(struct dentry *d);
uint32_t d_name_hash(const struct dentry *parent, const char *name, uint32_t len);

/* pagecache.c */
int pagecache_init(void);
int pagecache_destroy(void);

/* xarray.c */
long xa_nodes_count(void);

/* namei.c */
#define BOGO_DIRENT_SIZE  20  /* shmem's st_size per directory entry */
#define SHORT_SYMLINK_LEN 128 /* shmem: longer symlink targets take a block */
int dir_add_offset(struct inode *dir, struct dentry *d);
void dir_remove_offset(struct inode *dir, struct dentry *d);

/* read_write.c */
extern const struct file_operations rv_file_fops;
extern const struct file_operations rv_dir_fops;

#endif
