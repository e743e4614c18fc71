// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/shmem.c - the kernel-internal tmpfs mount (shm_mnt) and its unlinked
 * files, and the character device /dev/zero on an internal devtmpfs.
 *
 * What the kernel does (mm/shmem.c, Linux 6.x):
 *   shmem_init() kern_mounts tmpfs once: shm_mnt, a superblock of its own,
 *   separate from every tmpfs the user mounts (and from /dev/shm).
 *   shmem_kernel_file_setup(name, size, flags) = __shmem_file_setup(shm_mnt,
 *   name, size, flags, S_PRIVATE): shmem_get_inode -> new_inode(sb), which
 *   puts the inode on sb->s_inodes under sb->s_inode_list_lock
 *   (inode_sb_list_add, fs/inode.c); i_size = size; clear_nlink (the file is
 *   unlinked from birth); alloc_file_pseudo(O_RDWR); iput on failure.  The
 *   inode leaves the list again at its final iput (iput_final -> evict ->
 *   inode_sb_list_del, same lock), i.e. when the last file reference goes.
 *   Users: shared anonymous mappings (shmem_zero_setup, mm/shmem.c of the
 *   model's mm/), SysV shm, memfd.
 *
 * The model: shm_mnt is an internal superblock (sb_alloc_internal) whose
 * inode-list lock has its own counters, shm_inode_list_*, so the lock the
 * stress-ng "zero" stressor made contend (docs/history.md) is measured
 * apart from the mount's.  Files have no dentry (alloc_file_pseudo's dentry
 * only names the file in /proc/PID/maps: "/dev/zero (deleted)").  S_PRIVATE
 * (no LSM checks) has no model counterpart.  The superblock list lock is
 * per superblock, as since Linux 4.3; 2.6.39-4.2 had one
 * global inode_sb_list_lock and earlier kernels the global inode_lock: for
 * a workload that creates inodes only on shm_mnt that is the same lock
 * traffic, so there is no switch for it.
 *
 * /dev/zero (drivers/char/mem.c): one S_IFCHR inode (1:5) on a devtmpfs of
 * its own; dev_zero_open() gives a file of it whose f_op is zero_fops, whose
 * mmap member mm/ fills in (mmap_zero; the lower layer's hook table).
 *
 * Locking: shm_mnt and the devtmpfs superblock are set at instance init
 * and cleared at teardown, when no task runs.  s_inode_list_lock: inode.c.
 * shmem_kernel_file_setup takes it once (new_inode); may be called under
 * mmap_lock (shmem_zero_setup), as in the kernel.
 */
#include "vfs/internal.h"

#include <stdio.h>
#include <sys/sysmacros.h>

#define TMPFS_MAGIC    0x01021994
#define DEVTMPFS_MAGIC 0x01021994 /* devtmpfs is a tmpfs (or ramfs) too */
#define MEM_MAJOR      1
#define ZERO_MINOR     5

RV_STAT_DEFINE(shm_inode_list_locks,
	       "shm_mnt s_inode_list_lock acquisitions (inode_sb_list_add/del of shmem files)");
RV_STAT_DEFINE(shm_inode_list_contended,
	       "shm_mnt s_inode_list_lock acquisitions that found it held");
RV_STAT_DEFINE(shm_inode_list_spins, "PAUSE rounds spent waiting for shm_mnt s_inode_list_lock");
RV_STAT_DEFINE(shm_inode_list_yields,
	       "sched_yield calls while waiting for shm_mnt s_inode_list_lock");
RV_STAT_DEFINE(shmem_files, "unlinked shmem files created on shm_mnt (shmem_kernel_file_setup)");

static const struct sb_lock_stats shm_list_stats = {
    &rv_stat_shm_inode_list_locks, &rv_stat_shm_inode_list_contended, &rv_stat_shm_inode_list_spins,
    &rv_stat_shm_inode_list_yields};

static struct super_block *shm_mnt;
static struct super_block *devtmpfs;
static struct inode *dev_zero_inode;
struct file_operations zero_fops;

struct super_block *shm_mnt_sb(void)
{
	return shm_mnt;
}

long shmem_inodes_live(void)
{
	return shm_mnt ? __atomic_load_n(&shm_mnt->s_nr_inodes, __ATOMIC_RELAXED) : 0;
}

bool shmem_inode_listed(uint64_t ino)
{
	struct inode *inode;
	bool found = false;

	if (!shm_mnt)
		return false;
	spin_lock(&shm_mnt->s_inode_list_lock);
	list_for_each_entry(inode, &shm_mnt->s_inodes, i_sb_list) {
		if (inode->i_ino == ino) {
			found = true;
			break;
		}
	}
	spin_unlock(&shm_mnt->s_inode_list_lock);
	return found;
}

int shmem_kernel_file_setup(const char *name, int64_t size, unsigned long vm_flags,
			    struct file **out)
{
	struct inode *inode;
	struct file *file;

	(void)name;	/* alloc_file_pseudo's dentry name: the model has no dentry */
	(void)vm_flags; /* VM_NORESERVE accounting (shmem_acct_size): not modelled */
	*out = NULL;
	if (!shm_mnt)
		return -ENODEV;
	if (size < 0 || (uint64_t)size > shm_mnt->s_maxbytes)
		return -EINVAL;
	inode = new_inode(shm_mnt, S_IFREG | 0777, NULL); /* S_IRWXUGO, on s_inodes */
	if (!inode)
		return -ENOMEM;
	/* not yet visible to anyone: the attribute seqcount is not needed */
	inode->i_size = size;
	inode->i_nlink = 0; /* clear_nlink: it is unlinked */
	file = alloc_file(inode, NULL, O_RDWR, NULL);
	if (!file) {
		iput(inode); /* evict: off s_inodes again */
		return -ENOMEM;
	}
	file->f_mapping = inode->i_mapping;
	rv_stat_inc(shmem_files);
	*out = file;
	return 0;
}

int dev_zero_open(unsigned int flags, struct file **out)
{
	struct file *file;

	*out = NULL;
	if (!dev_zero_inode)
		return -ENODEV;
	if (flags & O_PATH)
		return -EINVAL;
	ihold(dev_zero_inode);
	file = alloc_file(dev_zero_inode, NULL, flags, &zero_fops);
	if (!file) {
		iput(dev_zero_inode);
		return -ENOMEM;
	}
	file->f_mapping = dev_zero_inode->i_mapping;
	*out = file;
	return 0;
}

static int shmem_subsys_teardown(void);

static int shmem_subsys_init(void)
{
	shm_mnt = sb_alloc_internal(TMPFS_MAGIC, &shm_list_stats);
	devtmpfs = sb_alloc_internal(DEVTMPFS_MAGIC, NULL);
	if (!shm_mnt || !devtmpfs)
		goto fail;
	dev_zero_inode = new_inode(devtmpfs, S_IFCHR | 0666, NULL);
	if (!dev_zero_inode)
		goto fail;
	dev_zero_inode->i_rdev = makedev(MEM_MAJOR, ZERO_MINOR);
	return 0;
fail:
	shmem_subsys_teardown();
	return -ENOMEM;
}

static int shmem_subsys_teardown(void)
{
	int ret = 0, err;

	if (dev_zero_inode) {
		iput(dev_zero_inode);
		dev_zero_inode = NULL;
	}
	err = sb_free_internal(devtmpfs, "devtmpfs");
	if (err)
		ret = err;
	devtmpfs = NULL;
	err = sb_free_internal(shm_mnt, "shm_mnt");
	if (err)
		ret = err;
	shm_mnt = NULL;
	return ret;
}

RV_SUBSYS(shmem, shmem_subsys_init, shmem_subsys_teardown);
