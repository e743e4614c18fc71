// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/read_write.c - file operations on a struct file: read, write, lseek
 * (SEEK_DATA/SEEK_HOLE included), fsync and fallocate (tmpfs's modes: 0,
 * FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE), all through the page cache
 * (pagecache.c).
 *
 * Locking: write, fallocate and truncate hold the inode's i_rwsem
 * exclusive (the kernel's inode_lock), which orders page-cache updates with
 * i_size changes; read holds no inode lock (the kernel's filemap_read): it
 * samples i_size, then copies from folios it references, so a read racing a
 * truncate returns old data or zeroes, never freed memory.  When the caller
 * passes no position, f_pos is read and advanced under file->f_pos_lock.
 */
#include "vfs/internal.h"

#include <string.h>

RV_STAT_DEFINE(vfs_reads, "vfs_read calls");
RV_STAT_DEFINE(vfs_writes, "vfs_write calls");

static int rv_file_release(struct inode *inode, struct file *file)
{
	return 0; /* the references go in vfs_file_hooks.file_put_path */
}

const struct file_operations rv_file_fops = {
    .release = rv_file_release,
};
const struct file_operations rv_dir_fops = {
    .release = rv_file_release,
};

static ssize_t __vfs_read(struct file *file, void *buf, size_t count, int64_t pos)
{
	struct inode *inode = file->f_inode;
	int64_t size;

	if (S_ISDIR(inode->i_mode))
		return -EISDIR;
	if (!S_ISREG(inode->i_mode))
		return -EINVAL;
	if (pos < 0)
		return -EINVAL;
	size = i_size_read(inode);
	if (pos >= size || count == 0)
		return 0;
	if ((uint64_t)count > (uint64_t)(size - pos))
		count = (size_t)(size - pos);
	return filemap_read_at(inode->i_mapping, buf, count, pos);
}

/*
 * rw_verify_area (fs/read_write.c, Linux 6.x) for a file without
 * FMODE_UNSIGNED_OFFSET: a negative count or position, or one whose end
 * pos + count passes 2^63-1, is -EINVAL before the file system sees it.
 */
static int rw_verify_area(int64_t pos, size_t count)
{
	if ((ssize_t)count < 0 || pos < 0)
		return -EINVAL;
	if ((uint64_t)pos + count > (uint64_t)INT64_MAX)
		return -EINVAL;
	return 0;
}

ssize_t vfs_read(struct file *file, void *buf, size_t count, int64_t *pos)
{
	ssize_t ret;

	rv_rcu_ensure();
	rv_stat_inc(vfs_reads);
	if (!(file->f_mode & FMODE_READ))
		return -EBADF;
	if (pos) {
		ret = rw_verify_area(*pos, count);
		if (ret)
			return ret;
		ret = __vfs_read(file, buf, count, *pos);
		if (ret > 0)
			*pos += ret;
		return ret;
	}
	down(&file->f_pos_lock);
	ret = rw_verify_area(file->f_pos, count);
	if (!ret)
		ret = __vfs_read(file, buf, count, file->f_pos);
	if (ret > 0)
		file->f_pos += ret;
	up(&file->f_pos_lock);
	return ret;
}

/* i_rwsem held; returns bytes written or -errno; *posp is updated. */
static ssize_t __vfs_write(struct file *file, const void *buf, size_t count, int64_t *posp)
{
	struct inode *inode = file->f_inode;
	int64_t pos = *posp, end;
	uint64_t maxbytes = inode->i_sb->s_maxbytes;
	ssize_t ret;

	if (S_ISDIR(inode->i_mode))
		return -EISDIR;
	if (!S_ISREG(inode->i_mode))
		return -EINVAL;
	if (file->f_flags & O_APPEND)
		pos = i_size_read(inode);
	if (pos < 0)
		return -EINVAL;
	if (count == 0)
		return 0;
	if ((uint64_t)pos >= maxbytes)
		return -EFBIG;
	if ((uint64_t)count > maxbytes - (uint64_t)pos)
		count = (size_t)(maxbytes - (uint64_t)pos);
	ret = filemap_write_at(inode->i_mapping, buf, count, pos);
	if (ret > 0) {
		end = pos + ret;
		if (end > i_size_read(inode))
			inode_set_size(inode, end);
		inode_touch(inode, true, true);
		*posp = end;
	}
	return ret;
}

ssize_t vfs_write(struct file *file, const void *buf, size_t count, int64_t *pos)
{
	struct inode *inode = file->f_inode;
	ssize_t ret;

	rv_rcu_ensure();
	rv_stat_inc(vfs_writes);
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (pos) {
		int64_t p = *pos;

		ret = rw_verify_area(p, count);
		if (ret)
			return ret;
		down_write(&inode->i_rwsem);
		ret = __vfs_write(file, buf, count, &p);
		up_write(&inode->i_rwsem);
		if (ret > 0)
			*pos = p;
		return ret;
	}
	down(&file->f_pos_lock);
	ret = rw_verify_area(file->f_pos, count);
	if (ret) {
		up(&file->f_pos_lock);
		return ret;
	}
	down_write(&inode->i_rwsem);
	ret = __vfs_write(file, buf, count, &file->f_pos);
	up_write(&inode->i_rwsem);
	up(&file->f_pos_lock);
	return ret;
}

/* the first byte of the page that holds offset 2^63-1 */
#define LAST_PAGE_START (INT64_MAX & ~(int64_t)(PAGE_SIZE - 1))

int64_t vfs_llseek(struct file *file, int64_t offset, int whence)
{
	struct inode *inode = file->f_inode;
	int64_t size, res;

	rv_rcu_ensure();
	down(&file->f_pos_lock);
	size = i_size_read(inode);
	/*
	 * A tmpfs directory (offset_dir_llseek, fs/libfs.c, Linux 6.18):
	 * SEEK_SET and SEEK_CUR to a position >= 0, nothing else.
	 */
	if (S_ISDIR(inode->i_mode)) {
		if (whence == SEEK_CUR && __builtin_add_overflow(file->f_pos, offset, &offset))
			offset = -1;
		res = (whence == SEEK_SET || whence == SEEK_CUR) && offset >= 0 ? offset : -EINVAL;
		if (res >= 0)
			file->f_pos = res;
		goto out;
	}
	switch (whence) {
	case SEEK_SET:
		res = offset;
		break;
	/* generic_file_llseek_size: a sum past 2^63-1 wraps negative in the
	 * kernel (-fno-strict-overflow) and vfs_setpos refuses it, -EINVAL */
	case SEEK_CUR:
		if (__builtin_add_overflow(file->f_pos, offset, &res))
			res = -1;
		break;
	case SEEK_END:
		if (__builtin_add_overflow(size, offset, &res))
			res = -1;
		break;
	case SEEK_DATA:
	case SEEK_HOLE:
		if (!S_ISREG(inode->i_mode)) {
			res = -EINVAL;
			goto out;
		}
		if (offset < 0 || offset >= size) {
			res = -ENXIO;
			goto out;
		}
		res = mapping_seek_data(inode->i_mapping, offset, size, whence == SEEK_DATA);
		if (whence == SEEK_DATA && res >= size) {
			res = -ENXIO; /* only holes up to EOF */
			goto out;
		}
		/*
		 * mapping_seek_hole_data (mm/filemap.c, Linux 6.18) computes the
		 * end of the page that holds offset 2^63-1 as 2^63, which wraps
		 * negative: SEEK_DATA never finds data in that page (-ENXIO),
		 * and SEEK_HOLE that runs into it through data returns -2^63,
		 * which shmem_file_llseek and lseek(2) pass on as the result
		 * (not an errno; f_pos stays).
		 */
		if (res >= LAST_PAGE_START &&
		    mapping_seek_data(inode->i_mapping, LAST_PAGE_START, size, true) < size) {
			if (whence == SEEK_DATA) {
				res = -ENXIO;
				goto out;
			}
			if (res > LAST_PAGE_START) {
				res = INT64_MIN;
				goto out;
			}
		}
		break;
	default:
		res = -EINVAL;
		goto out;
	}
	if (res < 0) {
		res = -EINVAL;
		goto out;
	}
	file->f_pos = res;
out:
	up(&file->f_pos_lock);
	return res;
}

int vfs_fsync(struct file *file, int datasync)
{
	struct inode *inode = file->f_inode;

	rv_rcu_ensure();
	if (!S_ISREG(inode->i_mode))
		return 0;
	return filemap_write_and_wait_range(inode->i_mapping, 0, INT64_MAX);
}

/*
 * FALLOC_FL_PUNCH_HOLE (shmem_fallocate's punch, Linux 6.x): unmap the whole
 * pages of the range from every mapping through i_mmap, then drop them and
 * zero the partial ones (truncate_pagecache_range).  Private COW copies
 * stay (unmap_mapping_range with even_cows 0, as the kernel does).  shmem
 * holds faults off the range with its shmem_falloc wait queue; the model's
 * faults take invalidate_lock shared before they instantiate a folio, so
 * punch holds it exclusive (filemap_invalidate_lock, as ext4 and xfs punch).
 * A fault on a folio still cached may map it between the unmap and the
 * removal; truncate_inode_pages_range unmaps such a folio again under its
 * lock.  i_rwsem held.
 */
static void punch_hole(struct inode *inode, int64_t offset, int64_t len)
{
	struct address_space *m = inode->i_mapping;
	/*
	 * shmem_fallocate (Linux 6.18): the whole pages' first byte and last
	 * byte (unmap_end = round_down(offset + len) - 1), compared as u64.
	 * Computed unsigned here (offset may be within a page of 2^63-1), with
	 * the kernel's result: a punch that ends inside page 0 has unmap_end
	 * -1, passes the test, and asks for a hole of -unmap_start bytes,
	 * which unmap_mapping_range takes as "to the end of the file": every
	 * shared PTE of the file from unmap_start on goes (the pages stay
	 * cached and fault back in).  Kept as the kernel has it.
	 */
	uint64_t unmap_start = ((uint64_t)offset + PAGE_SIZE - 1) & (uint64_t)PAGE_MASK;
	uint64_t unmap_end = ((uint64_t)(offset + len) & (uint64_t)PAGE_MASK) - 1;

	down_write(&m->invalidate_lock);
	if (unmap_end > unmap_start && vfs_hooks.unmap_mapping_range)
		vfs_hooks.unmap_mapping_range(m, (int64_t)unmap_start,
					      (int64_t)(1 + unmap_end - unmap_start), 0);
	RV_INJECT("punch_hole_after_unmap");
	truncate_inode_pages_range(m, offset, offset + len - 1);
	up_write(&m->invalidate_lock);
}

/*
 * Allocate [offset, offset+len) (shmem_fallocate without PUNCH_HOLE): a
 * request larger than the file system fails at once (shmem's "avoid a
 * swapstorm" check against max_blocks; here against the capacity statfs
 * reports); each missing page gets a zeroed PG_unwritten folio and a block;
 * on failure the folios this call created that are still unwritten go
 * again (shmem_undo_range with unfalloc), so a failed fallocate leaves the
 * space it found.  i_rwsem held.
 */
static int falloc_range(struct inode *inode, int64_t offset, int64_t len)
{
	struct address_space *m = inode->i_mapping;
	int64_t first = offset >> PAGE_SHIFT, last = (offset + len - 1) >> PAGE_SHIFT, idx;
	int err = 0;

	if (last - first + 1 > sb_capacity_blocks(inode->i_sb))
		return -ENOSPC;
	for (idx = first; idx <= last; idx++) {
		struct folio *f;

		err = filemap_grab_folio(m, idx, FGP_CREAT | FGP_FALLOC, &f);
		if (err)
			break;
		folio_put(f);
		RV_INJECT("fallocate_page");
	}
	if (err && idx > first)
		filemap_unfalloc_range(m, first, idx - 1);
	return err;
}

/* Every mode bit Linux 6.x's vfs_fallocate knows (FALLOC_FL_SUPPORTED_MASK). */
#define FALLOC_FL_KNOWN                                                                            \
	(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE |                   \
	 FALLOC_FL_ZERO_RANGE | FALLOC_FL_INSERT_RANGE | FALLOC_FL_UNSHARE_RANGE)

int vfs_fallocate(struct file *file, int mode, int64_t offset, int64_t len)
{
	struct inode *inode = file->f_inode;
	int64_t end;
	int err = 0;

	rv_rcu_ensure();
	/* fs/open.c vfs_fallocate's checks, in its order */
	if (offset < 0 || len <= 0)
		return -EINVAL;
	if (mode & ~FALLOC_FL_KNOWN)
		return -EOPNOTSUPP;
	if ((mode & FALLOC_FL_PUNCH_HOLE) && !(mode & FALLOC_FL_KEEP_SIZE))
		return -EOPNOTSUPP;
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (S_ISFIFO(inode->i_mode))
		return -ESPIPE;
	if (S_ISDIR(inode->i_mode))
		return -EISDIR;
	if (!S_ISREG(inode->i_mode))
		return -ENODEV;
	if (offset > INT64_MAX - len || (uint64_t)(offset + len) > inode->i_sb->s_maxbytes)
		return -EFBIG;
	/* shmem_fallocate: the two modes tmpfs has */
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE))
		return -EOPNOTSUPP;
	end = offset + len;
	down_write(&inode->i_rwsem);
	if (mode & FALLOC_FL_PUNCH_HOLE) {
		punch_hole(inode, offset, len);
	} else {
		err = falloc_range(inode, offset, len);
		if (!err && !(mode & FALLOC_FL_KEEP_SIZE) && end > i_size_read(inode))
			inode_set_size(inode, end);
	}
	if (!err)
		inode_touch(inode, true, true); /* file_modified */
	up_write(&inode->i_rwsem);
	return err;
}
