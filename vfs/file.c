// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/file.c - struct file: the TYPESAFE_BY_RCU "filp" cache, allocation,
 * the last-reference teardown (__fput), filp_close, and the slow paths of the
 * 6.13 file_ref scheme.
 *
 * Locking: see vfs/file.h.  The cache is created and destroyed with the
 * model instance (subsystem "file", order 10).  alloc_file() writes the
 * reference count last with release ordering; every RCU getter's
 * fully-ordered increment pairs with it.  __fput() runs in the context of
 * whoever dropped the last reference (the kernel defers it to task_work;
 * the model runs it synchronously), never under an fd table's file_lock.
 * With bkl_ops=release, f_op->release runs under the BKL (a sleeping lock
 * for the sem-fifo and sem-steal kinds), so the last fput must come from a
 * task context that may sleep.
 */
#include "vfs/vfs.h"

#include <stdlib.h>

struct vfs_file_hooks vfs_file_hooks;

static struct kmem_cache *filp_cachep;
static uint64_t file_gen_next; /* atomic: f_gen source */

RV_STAT_DEFINE(file_allocs, "struct file allocations");
RV_STAT_DEFINE(file_frees, "struct file last-reference teardowns (__fput)");

/*
 * Runs once per object, when its memory first becomes a struct file.  The
 * count starts dead: an RCU reader that loads a pointer to an object before
 * its first alloc_file() finished must fail to take a reference.
 */
static void filp_ctor(void *obj)
{
	struct file *f = obj;

	f->f_ref.refcnt = rv_sw.fileref == FILEREF_FILE_REF ? FILE_REF_DEAD : 0;
	f->f_gen = 0;
}

/*
 * f_mode of a new file, as do_dentry_open (fs/open.c, Linux 6.18) sets it:
 * O_PATH gives FMODE_PATH alone; otherwise OPEN_FMODE of the access mode
 * (O_RDONLY read, O_WRONLY write, O_RDWR both, 3 neither) and, for every
 * such file, FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE: pread on an
 * O_WRONLY file reaches vfs_read and fails there with -EBADF, not -ESPIPE.
 */
static unsigned int file_mode_from_flags(unsigned int flags)
{
	static const unsigned int open_fmode[4] = {FMODE_READ, FMODE_WRITE,
						   FMODE_READ | FMODE_WRITE, 0};

	if (flags & O_PATH)
		return FMODE_PATH;
	return open_fmode[flags & O_ACCMODE] | FMODE_LSEEK | FMODE_PREAD | FMODE_PWRITE;
}

struct file *alloc_file(struct inode *inode, struct dentry *dentry, unsigned int flags,
			const struct file_operations *fop)
{
	struct file *f = kmem_cache_alloc(filp_cachep);

	if (unlikely(!f))
		return NULL;
	/*
	 * The object may still be visible to RCU readers of some fd table that
	 * loaded it before its previous life ended; they only touch f_ref,
	 * which is dead until the release store below.
	 */
	spin_lock_init(&f->f_lock);
	f->f_flags = flags & ~(unsigned int)(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC);
	f->f_mode = file_mode_from_flags(flags);
	f->f_inode = inode;
	f->f_dentry = dentry;
	f->f_mapping = NULL;
	f->f_op = fop;
	sema_init_steal(&f->f_pos_lock, 1);
	f->f_pos = 0;
	f->private_data = NULL;
	f->f_gen = __atomic_add_fetch(&file_gen_next, 1, __ATOMIC_RELAXED);
	rv_stat_inc(file_allocs);
	/* tests park a reader's get here, before the count goes live */
	RV_INJECT("alloc_file_before_count");
	/*
	 * Initialise the count last (one reference): paired with the fully
	 * ordered increment in file_tryget() of any stale reader, which then
	 * sees every field above.
	 */
	smp_store_release(&f->f_ref.refcnt,
			  rv_sw.fileref == FILEREF_FILE_REF ? FILE_REF_ONEREF : 1UL);
	return f;
}

void __fput(struct file *file)
{
	struct inode *inode = file->f_inode;

	if (vfs_file_hooks.locks_remove_file)
		vfs_file_hooks.locks_remove_file(file);
	if (file->f_op && file->f_op->release) {
		/* bkl_ops=release: ->release under the BKL (2.6's tty_release) */
		const bool bkl = rv_sw.bkl_ops & BKL_OP_RELEASE;

		if (unlikely(bkl))
			lock_kernel();
		RV_INJECT("bkl_ops_release");
		file->f_op->release(inode, file);
		if (unlikely(bkl))
			unlock_kernel();
	}
	if (vfs_file_hooks.file_put_path)
		vfs_file_hooks.file_put_path(file);
	rv_stat_inc(file_frees);
	/*
	 * The count is already dead (0, or FILE_REF_DEAD): stale readers fail
	 * their get from here on, whether or not the object is reused.
	 */
	file->f_inode = NULL;
	file->f_dentry = NULL;
	file->private_data = NULL;
	kmem_cache_free(filp_cachep, file);
}

/*
 * The kernel's fput from a task (fs/file_table.c, Linux 3.x-6.x): the
 * count drops at once, and the last reference's __fput is queued with
 * task_work_add and runs on the way back to user space (____fput), after
 * the syscall dropped its locks: munmap's final fput of a file evicts the
 * inode outside mmap_lock.  Per thread; a full queue falls back to __fput
 * at once.
 */
#define TASK_WORK_FILES 128
static __thread struct file *task_work_files[TASK_WORK_FILES];
static __thread int task_work_nr;
RV_STAT_DEFINE(fput_task_works, "last fputs deferred to task_work_run (fput from a task)");

void fput_deferred(struct file *file)
{
	if (!file_put_ref(file))
		return;
	if (task_work_nr == TASK_WORK_FILES) {
		__fput(file);
		return;
	}
	task_work_files[task_work_nr++] = file;
	rv_stat_inc(fput_task_works);
}

void task_work_run(void)
{
	for (int i = 0; i < task_work_nr; i++)
		__fput(task_work_files[i]); /* queues nothing: __fput puts no file */
	task_work_nr = 0;
}

int filp_close(struct file *file, void *owner)
{
	int retval = 0;

	if (file->f_op && file->f_op->flush)
		retval = file->f_op->flush(file, owner);
	if (!(file->f_mode & FMODE_PATH) && vfs_file_hooks.locks_remove_posix)
		vfs_file_hooks.locks_remove_posix(file, owner);
	fput(file);
	return retval;
}

long nr_files_active(void)
{
	return filp_cachep ? kmem_cache_active(filp_cachep) : 0;
}

/*
 * The increment (already done) landed at `cnt`, top bit set.  Dead zone:
 * fail and leave the increment where it is; the file is being freed and
 * alloc_file() will overwrite the count when the object is reused.  (The
 * kernel resets the count to FILE_REF_DEAD here; the model does not write
 * at all, so a getter that races with the object's reuse can never store
 * over the new file's count.)  Saturation zone: keep the object forever.
 */
bool __file_ref_get(file_ref_t *ref, unsigned long cnt)
{
	if (cnt >= FILE_REF_RELEASED)
		return false;
	fprintf(stderr, "rcuvfs: file reference count saturated, leaking the file\n");
	__atomic_store_n(&ref->refcnt, FILE_REF_SATURATED, __ATOMIC_RELAXED);
	return true;
}

/*
 * The decrement went negative.  NOREF: that was the last reference; move to
 * DEAD unless a concurrent RCU get raised it again meanwhile (then that
 * getter owns the file and its put will free it).
 */
bool __file_ref_put(file_ref_t *ref, unsigned long cnt)
{
	if (likely(cnt == FILE_REF_NOREF)) {
		/* acquire: the teardown sees every holder's accesses */
		return __atomic_compare_exchange_n(&ref->refcnt, &cnt, FILE_REF_DEAD, false,
						   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	}
	if (cnt >= FILE_REF_RELEASED) {
		fprintf(stderr, "rcuvfs: imbalanced put on a file reference count\n");
		__atomic_store_n(&ref->refcnt, FILE_REF_DEAD, __ATOMIC_RELAXED);
		return false;
	}
	if (cnt > FILE_REF_MAXREF)
		__atomic_store_n(&ref->refcnt, FILE_REF_SATURATED, __ATOMIC_RELAXED);
	return false;
}

static int file_subsys_init(void)
{
	filp_cachep = kmem_cache_create("filp", sizeof(struct file), 0,
					SLAB_TYPESAFE_BY_RCU | SLAB_HWCACHE_ALIGN, filp_ctor);
	return filp_cachep ? 0 : -ENOMEM;
}

static int file_subsys_teardown(void)
{
	int err;

	rcu_barrier();
	kmem_cache_flush_thread();
	err = kmem_cache_destroy(filp_cachep);
	filp_cachep = NULL;
	return err;
}

RV_SUBSYS(file, file_subsys_init, file_subsys_teardown);
