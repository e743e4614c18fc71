// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fdtable/fdtable.c - files_struct and its fd table: allocation of fds
 * (lowest free), fd_install, close, dup/dup2/dup3/F_DUPFD, close_range,
 * close-on-exec, expansion with an RCU-deferred free of the old table, and
 * the fork copy (dup_fd) installed as the task_fork files hook.
 *
 * Locking: see fdtable/fdtable.h.  In short, every writer of a table holds
 * files->file_lock, except fd_install, which publishes into a reserved slot
 * under rcu_read_lock alone unless a resize is in progress; the resizer sets
 * resize_in_progress and waits a grace period (when the table is shared)
 * before copying, so no such store can land in the old table after the copy.
 * Files leave a table under file_lock and are closed (filp_close) after the
 * lock is dropped.  expand_files and the resize wait drop and retake
 * file_lock; callers re-read the table after them.
 */
#include "fdtable/bitmap.h"

#include <stdlib.h>
#include <string.h>

static struct kmem_cache *files_cachep;
static long nr_fdtables; /* atomic: allocated (non-embedded) fdtables */

RV_STAT_DEFINE(fdtable_expansions, "fd tables replaced by a larger one (expand_files)");
/* Counted by fcntl.c; defined here, where every program with fd tables has
 * it: a static link pulls fcntl.o only into programs that call ksys_fcntl. */
RV_STAT_DEFINE(fcntl_close_races,
	       "POSIX locks dropped by fcntl because the fd was closed meanwhile (-EBADF)");

#define BITBIT_NR(nr) BITS_TO_LONGS(BITS_TO_LONGS(nr))

/* ---- fdtable allocation ------------------------------------------------- */

static void __free_fdtable(struct fdtable *fdt)
{
	free(fdt->fd);
	free(fdt->open_fds);
	free(fdt);
	__atomic_fetch_sub(&nr_fdtables, 1, __ATOMIC_RELAXED);
}

static void free_fdtable_rcu(struct rcu_head *rcu)
{
	__free_fdtable(container_of(rcu, struct fdtable, rcu));
}

static unsigned int roundup_pow_of_two(unsigned int x)
{
	return x <= 1 ? 1 : 1u << (32 - __builtin_clz(x - 1));
}

/* A zeroed table with room for fd `nr` (max_fds > nr), or NULL. */
static struct fdtable *alloc_fdtable(unsigned int nr)
{
	struct fdtable *fdt;
	unsigned int per_kb = 1024 / sizeof(struct file *);
	size_t words;

	/* grow in powers of two of 1 KiB of pointers, as the kernel does */
	nr /= per_kb;
	nr = roundup_pow_of_two(nr + 1);
	nr *= per_kb;
	if (nr > NR_OPEN_MAX)
		nr = NR_OPEN_MAX;

	fdt = rv_calloc("fdtable", 1, sizeof(*fdt));
	if (!fdt)
		return NULL;
	fdt->max_fds = nr;
	fdt->fd = rv_calloc("fdtable", nr, sizeof(struct file *));
	words = 2 * BITS_TO_LONGS(nr) + BITBIT_NR(nr);
	fdt->open_fds = rv_calloc("fdtable", words, sizeof(unsigned long));
	if (!fdt->fd || !fdt->open_fds) {
		free(fdt->fd);
		free(fdt->open_fds);
		free(fdt);
		return NULL;
	}
	fdt->close_on_exec = fdt->open_fds + BITS_TO_LONGS(nr);
	fdt->full_fds_bits = fdt->close_on_exec + BITS_TO_LONGS(nr);
	__atomic_fetch_add(&nr_fdtables, 1, __ATOMIC_RELAXED);
	return fdt;
}

/* Copy `count` fds' worth of bitmaps (count a multiple of BITS_PER_LONG). */
static void copy_fd_bitmaps(struct fdtable *nfdt, struct fdtable *ofdt, unsigned int count)
{
	unsigned int words = count / BITS_PER_LONG;

	memcpy(nfdt->open_fds, ofdt->open_fds, words * sizeof(unsigned long));
	memcpy(nfdt->close_on_exec, ofdt->close_on_exec, words * sizeof(unsigned long));
	memcpy(nfdt->full_fds_bits, ofdt->full_fds_bits,
	       BITS_TO_LONGS(words) * sizeof(unsigned long));
}

/* nfdt is fresh (zeroed) and larger; caller holds file_lock, no unlocked installs. */
static void copy_fdtable(struct fdtable *nfdt, struct fdtable *ofdt)
{
	memcpy(nfdt->fd, ofdt->fd, ofdt->max_fds * sizeof(struct file *));
	copy_fd_bitmaps(nfdt, ofdt, ofdt->max_fds);
}

static inline struct fdtable *files_fdtable(struct files_struct *files)
{
	/* writers hold file_lock; readers are under rcu_read_lock */
	return rcu_dereference_raw(files->fdt);
}

/*
 * Replace the table by one with room for fd `nr`.  Called with file_lock
 * held and resize_in_progress set; drops and retakes the lock.  Returns 1
 * (replaced) or a negative error.
 */
static int expand_fdtable(struct files_struct *files, unsigned int nr)
{
	struct fdtable *new_fdt, *cur_fdt;

	spin_unlock(&files->file_lock);
	new_fdt = alloc_fdtable(nr);
	/*
	 * Make sure every fd_install() has either seen resize_in_progress or
	 * finished its store into the current table before we copy it.  A
	 * table with one user has no concurrent fd_install.
	 */
	if (__atomic_load_n(&files->count, __ATOMIC_ACQUIRE) > 1 &&
	    !RV_MUTANT(expand_fdtable_no_sync))
		synchronize_rcu();
	spin_lock(&files->file_lock);
	if (!new_fdt)
		return -ENOMEM;
	if (unlikely(new_fdt->max_fds <= nr)) {
		__free_fdtable(new_fdt);
		return -EMFILE;
	}
	cur_fdt = files_fdtable(files);
	copy_fdtable(new_fdt, cur_fdt);
	/* release: readers of files->fdt see the copied entries */
	rcu_assign_pointer(files->fdt, new_fdt);
	if (cur_fdt != &files->fdtab)
		call_rcu(&cur_fdt->rcu, free_fdtable_rcu);
	/* the new pointer before resize_in_progress clears: pairs with the
	 * smp_rmb() in fd_install() */
	smp_wmb();
	rv_stat_inc(fdtable_expansions);
	return 1;
}

/*
 * Make fd `nr` fit.  Called with file_lock held; may drop and retake it.
 * Returns 0 (nothing done, lock never dropped), 1 (lock dropped and
 * retaken: re-read the table), or a negative error.
 */
static int expand_files(struct files_struct *files, unsigned int nr)
{
	struct fdtable *fdt;
	int expanded = 0;

repeat:
	fdt = files_fdtable(files);
	if (nr < fdt->max_fds)
		return expanded;
	if (nr >= NR_OPEN_MAX)
		return -EMFILE;
	if (unlikely(files->resize_in_progress) && !RV_MUTANT(expand_files_no_resize_wait)) {
		spin_unlock(&files->file_lock);
		expanded = 1;
		RV_INJECT("expand_files_resize_wait");
		wait_event(&files->resize_wait, !READ_ONCE(files->resize_in_progress));
		spin_lock(&files->file_lock);
		goto repeat;
	}
	WRITE_ONCE(files->resize_in_progress, true);
	expanded = expand_fdtable(files, nr);
	WRITE_ONCE(files->resize_in_progress, false);
	wake_up_all(&files->resize_wait);
	return expanded;
}

/* ---- bitmaps of one table (file_lock held) ----------------------------- */

static inline void __set_close_on_exec(unsigned int fd, struct fdtable *fdt)
{
	__set_bit(fd, fdt->close_on_exec);
}
static inline void __clear_close_on_exec(unsigned int fd, struct fdtable *fdt)
{
	if (test_bit(fd, fdt->close_on_exec))
		__clear_bit(fd, fdt->close_on_exec);
}
static inline void __set_open_fd(unsigned int fd, struct fdtable *fdt)
{
	__set_bit(fd, fdt->open_fds);
	fd /= BITS_PER_LONG;
	if (!~fdt->open_fds[fd])
		__set_bit(fd, fdt->full_fds_bits);
}
static inline void __clear_open_fd(unsigned int fd, struct fdtable *fdt)
{
	__clear_bit(fd, fdt->open_fds);
	__clear_bit(fd / BITS_PER_LONG, fdt->full_fds_bits);
}
static inline bool fd_is_open(unsigned int fd, const struct fdtable *fdt)
{
	return test_bit(fd, fdt->open_fds);
}

/* Highest word with an open fd, as a count of fds (multiple of 64). */
static unsigned int count_open_files(struct fdtable *fdt)
{
	unsigned int i = fdt->max_fds / BITS_PER_LONG;

	while (i > 0 && !fdt->open_fds[i - 1])
		i--;
	return i * BITS_PER_LONG;
}

/* Lowest free fd >= start, or max_fds; full_fds_bits skips full words. */
static unsigned int find_next_fd(struct fdtable *fdt, unsigned int start)
{
	unsigned int maxfd = fdt->max_fds;
	unsigned int maxbit = maxfd / BITS_PER_LONG;
	unsigned int bitbit = start / BITS_PER_LONG;

	bitbit = find_next_zero_bit(fdt->full_fds_bits, maxbit, bitbit) * BITS_PER_LONG;
	if (bitbit >= maxfd)
		return maxfd;
	if (bitbit > start)
		start = bitbit;
	return find_next_zero_bit(fdt->open_fds, maxfd, start);
}

static void __put_unused_fd(struct files_struct *files, unsigned int fd)
{
	struct fdtable *fdt = files_fdtable(files);

	__clear_open_fd(fd, fdt);
	if (fd < files->next_fd)
		files->next_fd = fd;
}

/* ---- files_struct lifecycle ------------------------------------------------ */

static void init_files_struct(struct files_struct *newf)
{
	struct fdtable *fdt = &newf->fdtab;

	newf->count = 1;
	newf->resize_in_progress = false;
	init_waitqueue_head(&newf->resize_wait);
	newf->nofile = NOFILE_DEFAULT;
	spin_lock_init(&newf->file_lock);
	newf->next_fd = 0;
	fdt->max_fds = NR_OPEN_DEFAULT;
	fdt->close_on_exec = newf->close_on_exec_init;
	fdt->open_fds = newf->open_fds_init;
	fdt->full_fds_bits = newf->full_fds_bits_init;
	fdt->fd = newf->fd_array;
	newf->fdt = fdt;
}

struct files_struct *alloc_files_struct(void)
{
	struct files_struct *newf = kmem_cache_zalloc(files_cachep);

	if (newf)
		init_files_struct(newf);
	return newf;
}

struct files_struct *dup_fd(struct files_struct *oldf, int *errorp)
{
	struct files_struct *newf;
	struct fdtable *old_fdt, *new_fdt;
	unsigned int open_files, i;

	newf = alloc_files_struct();
	if (!newf) {
		*errorp = -ENOMEM;
		return NULL;
	}
	newf->nofile = READ_ONCE(oldf->nofile);
	new_fdt = &newf->fdtab;

	spin_lock(&oldf->file_lock);
	old_fdt = files_fdtable(oldf);
	open_files = count_open_files(old_fdt);
	/* the old table may grow while we allocate without its lock */
	while (unlikely(open_files > new_fdt->max_fds)) {
		spin_unlock(&oldf->file_lock);
		if (new_fdt != &newf->fdtab)
			__free_fdtable(new_fdt);
		new_fdt = alloc_fdtable(open_files - 1);
		if (!new_fdt) {
			*errorp = -ENOMEM;
			kmem_cache_free(files_cachep, newf);
			return NULL;
		}
		spin_lock(&oldf->file_lock);
		old_fdt = RV_MUTANT(dup_fd_stale_table) ? old_fdt : files_fdtable(oldf);
		open_files = count_open_files(old_fdt);
	}
	copy_fd_bitmaps(new_fdt, old_fdt, open_files);
	for (i = 0; i < open_files; i++) {
		/* fd_install may store concurrently; the table's reference
		 * keeps f alive while we hold file_lock */
		struct file *f = rcu_dereference_raw(old_fdt->fd[i]);

		if (f)
			get_file(f);
		else if (!RV_MUTANT(dup_fd_keeps_reserved))
			/* reserved but not installed: the child does not get it */
			__clear_open_fd(i, new_fdt);
		new_fdt->fd[i] = f; /* not yet published */
	}
	spin_unlock(&oldf->file_lock);
	rcu_assign_pointer(newf->fdt, new_fdt);
	return newf;
}

/* The last sharer is gone: nobody else can reach the table. */
static void close_files(struct files_struct *files)
{
	struct fdtable *fdt = rcu_dereference_raw(files->fdt);
	unsigned int i;

	for (i = 0; i < fdt->max_fds; i++) {
		struct file *file;

		i = find_next_bit(fdt->open_fds, fdt->max_fds, i);
		if (i >= fdt->max_fds)
			break;
		file = fdt->fd[i];
		if (file) {
			fdt->fd[i] = NULL;
			filp_close(file, files);
		}
	}
}

void put_files_struct(struct files_struct *files)
{
	if (__atomic_sub_fetch(&files->count, 1, __ATOMIC_ACQ_REL) == 0) {
		struct fdtable *fdt;

		close_files(files);
		fdt = rcu_dereference_raw(files->fdt);
		/* no reader can hold the table: it had no sharer left */
		if (fdt != &files->fdtab)
			__free_fdtable(fdt);
		kmem_cache_free(files_cachep, files);
	}
}

void exit_files(struct task_struct *t)
{
	struct files_struct *files = t->files;

	if (files) {
		t->files = NULL;
		put_files_struct(files);
	}
}

int files_set_nofile(struct files_struct *files, unsigned int nofile)
{
	if (nofile > NR_OPEN_MAX)
		return -EINVAL;
	spin_lock(&files->file_lock);
	WRITE_ONCE(files->nofile, nofile);
	spin_unlock(&files->file_lock);
	return 0;
}

unsigned int files_max_fds(struct files_struct *files)
{
	unsigned int n;

	rcu_read_lock();
	n = rcu_dereference(files->fdt)->max_fds;
	rcu_read_unlock();
	return n;
}

long nr_fdtables_active(void)
{
	return __atomic_load_n(&nr_fdtables, __ATOMIC_RELAXED);
}

/* ---- fd allocation, install, close ----------------------------------------- */

static int __alloc_fd(struct files_struct *files, unsigned int start, unsigned int end,
		      unsigned int flags)
{
	unsigned int fd;
	int error;
	struct fdtable *fdt;

	spin_lock(&files->file_lock);
repeat:
	fdt = files_fdtable(files);
	fd = start;
	if (fd < files->next_fd)
		fd = files->next_fd;
	if (fd < fdt->max_fds)
		fd = find_next_fd(fdt, fd);
	error = -EMFILE;
	if (fd >= end)
		goto out;
	error = expand_files(files, fd);
	if (error < 0)
		goto out;
	/* the lock was dropped: another thread may have taken fd */
	if (error && !RV_MUTANT(alloc_fd_no_repeat))
		goto repeat;
	if (start <= files->next_fd)
		files->next_fd = fd + 1;
	__set_open_fd(fd, fdt);
	if (flags & O_CLOEXEC)
		__set_close_on_exec(fd, fdt);
	else
		__clear_close_on_exec(fd, fdt);
	error = (int)fd;
out:
	spin_unlock(&files->file_lock);
	return error;
}

int alloc_fd(unsigned int start, unsigned int end, unsigned int flags)
{
	return __alloc_fd(current->files, start, end, flags);
}

int get_unused_fd_flags(unsigned int flags)
{
	struct files_struct *files = current->files;

	return __alloc_fd(files, 0, files_nofile(files), flags);
}

void put_unused_fd(unsigned int fd)
{
	struct files_struct *files = current->files;

	spin_lock(&files->file_lock);
	__put_unused_fd(files, fd);
	spin_unlock(&files->file_lock);
}

void fd_install(unsigned int fd, struct file *file)
{
	struct files_struct *files = current->files;
	struct fdtable *fdt;

	rcu_read_lock();
	if (unlikely(READ_ONCE(files->resize_in_progress)) &&
	    !RV_MUTANT(fd_install_no_resize_check)) {
		rcu_read_unlock();
		spin_lock(&files->file_lock);
		fdt = files_fdtable(files);
		if (rcu_dereference_raw(fdt->fd[fd]))
			fprintf(stderr, "rcuvfs: fd_install onto an installed fd %u\n", fd);
		rcu_assign_pointer(fdt->fd[fd], file);
		spin_unlock(&files->file_lock);
		return;
	}
	/* pairs with the smp_wmb() in expand_fdtable() */
	smp_rmb();
	fdt = rcu_dereference(files->fdt);
	/* tests start an expansion here: it must wait for this store */
	RV_INJECT("fd_install_before_store");
	if (rcu_dereference_raw(fdt->fd[fd]))
		fprintf(stderr, "rcuvfs: fd_install onto an installed fd %u\n", fd);
	/* release: the file's fields before the pointer (pairs with the reload
	 * in __get_file_rcu) */
	rcu_assign_pointer(fdt->fd[fd], file);
	rcu_read_unlock();
}

/* Take the file out of slot fd (file_lock held); NULL if none. */
static struct file *file_close_fd_locked(struct files_struct *files, unsigned int fd)
{
	struct fdtable *fdt = files_fdtable(files);
	struct file *file;

	if (fd >= fdt->max_fds)
		return NULL;
	file = rcu_dereference_raw(fdt->fd[fd]);
	if (file) {
		rcu_assign_pointer(fdt->fd[fd], NULL);
		__put_unused_fd(files, fd);
	}
	return file;
}

int close_fd(unsigned int fd)
{
	struct files_struct *files = current->files;
	struct file *file;

	spin_lock(&files->file_lock);
	file = file_close_fd_locked(files, fd);
	spin_unlock(&files->file_lock);
	if (!file)
		return -EBADF;
	RV_INJECT("close_fd_after_pick");
	return filp_close(file, files);
}

/* ---- dup family ------------------------------------------------------------ */

/* file_lock held on entry, dropped on return. */
static int do_dup2(struct files_struct *files, struct file *file, unsigned int fd,
		   unsigned int flags)
{
	struct fdtable *fdt = files_fdtable(files);
	struct file *tofree = rcu_dereference_raw(fdt->fd[fd]);

	/*
	 * An fd reserved by alloc_fd but not yet installed: installing over it
	 * would race with its fd_install.  The kernel answers EBUSY.
	 */
	if (!tofree && fd_is_open(fd, fdt) && !RV_MUTANT(dup2_reserved_no_ebusy)) {
		spin_unlock(&files->file_lock);
		return -EBUSY;
	}
	get_file(file);
	rcu_assign_pointer(fdt->fd[fd], file);
	__set_open_fd(fd, fdt);
	if (flags & O_CLOEXEC)
		__set_close_on_exec(fd, fdt);
	else
		__clear_close_on_exec(fd, fdt);
	spin_unlock(&files->file_lock);
	if (tofree)
		filp_close(tofree, files);
	return (int)fd;
}

int ksys_dup3(unsigned int oldfd, unsigned int newfd, int flags)
{
	struct files_struct *files = current->files;
	struct file *file;
	int err;

	if ((flags & ~O_CLOEXEC) != 0)
		return -EINVAL;
	if (unlikely(oldfd == newfd))
		return -EINVAL;
	if (newfd >= files_nofile(files))
		return -EBADF;

	spin_lock(&files->file_lock);
	err = expand_files(files, newfd);
	file = files_lookup_fd_raw(files, oldfd);
	if (unlikely(!file))
		goto out_ebadf;
	if (unlikely(err < 0)) {
		if (err == -EMFILE)
			goto out_ebadf;
		goto out_unlock;
	}
	return do_dup2(files, file, newfd, (unsigned int)flags);

out_ebadf:
	err = -EBADF;
out_unlock:
	spin_unlock(&files->file_lock);
	return err;
}

int ksys_dup2(unsigned int oldfd, unsigned int newfd)
{
	if (unlikely(newfd == oldfd)) {
		struct files_struct *files = current->files;
		int retval = (int)oldfd;

		rcu_read_lock();
		if (!files_lookup_fd_raw(files, oldfd))
			retval = -EBADF;
		rcu_read_unlock();
		return retval;
	}
	return ksys_dup3(oldfd, newfd, 0);
}

int ksys_dup(unsigned int fildes)
{
	struct file *file = fget_raw(fildes);
	int ret;

	if (!file)
		return -EBADF;
	ret = get_unused_fd_flags(0);
	if (ret >= 0)
		fd_install((unsigned int)ret, file);
	else
		fput(file);
	return ret;
}

int f_dupfd(unsigned int from, struct file *file, unsigned int flags)
{
	struct files_struct *files = current->files;
	unsigned int nofile = files_nofile(files);
	int err;

	if (from >= nofile)
		return -EINVAL;
	err = __alloc_fd(files, from, nofile, flags);
	if (err >= 0) {
		get_file(file);
		fd_install((unsigned int)err, file);
	}
	return err;
}

void set_close_on_exec(unsigned int fd, bool flag)
{
	struct files_struct *files = current->files;
	struct fdtable *fdt;

	spin_lock(&files->file_lock);
	fdt = files_fdtable(files);
	if (fd < fdt->max_fds) {
		if (flag)
			__set_close_on_exec(fd, fdt);
		else
			__clear_close_on_exec(fd, fdt);
	}
	spin_unlock(&files->file_lock);
}

bool get_close_on_exec(unsigned int fd)
{
	struct files_struct *files = current->files;
	struct fdtable *fdt;
	bool res;

	rcu_read_lock();
	fdt = rcu_dereference(files->fdt);
	res = fd < fdt->max_fds && test_bit(fd, fdt->close_on_exec);
	rcu_read_unlock();
	return res;
}

/* ---- close_range and exec --------------------------------------------------- */

static void __range_cloexec(struct files_struct *files, unsigned int fd, unsigned int max_fd)
{
	struct fdtable *fdt;

	spin_lock(&files->file_lock);
	fdt = files_fdtable(files);
	if (max_fd >= fdt->max_fds)
		max_fd = fdt->max_fds - 1;
	if (fd <= max_fd)
		bitmap_set(fdt->close_on_exec, fd, max_fd - fd + 1);
	spin_unlock(&files->file_lock);
}

static void __range_close(struct files_struct *files, unsigned int fd, unsigned int max_fd)
{
	unsigned int n;

	spin_lock(&files->file_lock);
	n = count_open_files(files_fdtable(files));
	if (n == 0) {
		spin_unlock(&files->file_lock);
		return;
	}
	if (max_fd >= n)
		max_fd = n - 1;
	for (; fd <= max_fd; fd++) {
		struct file *file = file_close_fd_locked(files, fd);

		if (file) {
			spin_unlock(&files->file_lock);
			filp_close(file, files);
			spin_lock(&files->file_lock);
		}
	}
	spin_unlock(&files->file_lock);
}

int __close_range(unsigned int fd, unsigned int max_fd, unsigned int flags)
{
	struct task_struct *me = current;
	struct files_struct *cur_fds = me->files, *fds = cur_fds;
	int err;

	if (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC))
		return -EINVAL;
	if (fd > max_fd)
		return -EINVAL;
	if ((flags & CLOSE_RANGE_UNSHARE) &&
	    __atomic_load_n(&cur_fds->count, __ATOMIC_ACQUIRE) > 1) {
		fds = dup_fd(cur_fds, &err);
		if (!fds)
			return err;
	}
	if (flags & CLOSE_RANGE_CLOEXEC)
		__range_cloexec(fds, fd, max_fd);
	else
		__range_close(fds, fd, max_fd);
	if (fds != cur_fds) {
		/* only this task switches to the private copy */
		me->files = fds;
		put_files_struct(cur_fds);
	}
	return 0;
}

void do_close_on_exec(struct files_struct *files)
{
	unsigned int i;
	struct fdtable *fdt;

	spin_lock(&files->file_lock);
	for (i = 0;; i++) {
		unsigned long set;
		unsigned int fd;

		fdt = files_fdtable(files);
		fd = i * BITS_PER_LONG;
		if (fd >= fdt->max_fds)
			break;
		set = fdt->close_on_exec[i];
		if (!set)
			continue;
		fdt->close_on_exec[i] = 0;
		for (; set; fd++, set >>= 1) {
			struct file *file;

			if (!(set & 1))
				continue;
			file = rcu_dereference_raw(fdt->fd[fd]);
			if (!file)
				continue;
			rcu_assign_pointer(fdt->fd[fd], NULL);
			__put_unused_fd(files, fd);
			spin_unlock(&files->file_lock);
			filp_close(file, files);
			spin_lock(&files->file_lock);
			/* the table may have been replaced while unlocked */
			fdt = files_fdtable(files);
		}
	}
	spin_unlock(&files->file_lock);
}

/* ---- task hooks and the subsystem ------------------------------------------- */

static int copy_files_hook(struct task_struct *child, struct task_struct *parent,
			   unsigned long flags)
{
	struct files_struct *oldf = parent ? parent->files : NULL;
	struct files_struct *newf;
	int err = 0;

	if (!oldf) {
		/* a new model process: an empty table */
		newf = alloc_files_struct();
		if (!newf)
			return -ENOMEM;
	} else if (flags & CLONE_FILES) {
		get_files_struct(oldf);
		newf = oldf;
	} else {
		newf = dup_fd(oldf, &err);
		if (!newf)
			return err;
	}
	child->files = newf;
	return 0;
}

static const struct task_hooks files_task_hooks = {
    .copy_files = copy_files_hook,
    .exit_files = exit_files,
};

static int fdtable_subsys_init(void)
{
	files_cachep = kmem_cache_create("files_cache", sizeof(struct files_struct), 64,
					 SLAB_HWCACHE_ALIGN, NULL);
	if (!files_cachep)
		return -ENOMEM;
	task_set_hooks(TASK_HOOK_FILES, &files_task_hooks);
	return 0;
}

static int fdtable_subsys_teardown(void)
{
	int err = 0, err2;
	long n;

	task_set_hooks(TASK_HOOK_FILES, NULL);
	rcu_barrier(); /* old tables queued by expand_files */
	n = nr_fdtables_active();
	if (n) {
		fprintf(stderr, "rcuvfs: %ld fd tables leaked\n", n);
		err = -EBUSY;
	}
	kmem_cache_flush_thread();
	err2 = kmem_cache_destroy(files_cachep);
	files_cachep = NULL;
	return err ? err : err2;
}

RV_SUBSYS(fdtable, fdtable_subsys_init, fdtable_subsys_teardown);
