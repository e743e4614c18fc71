// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fdtable/fget.c - fget and the shared-table path of fdget: the
 * __get_file_rcu protocol over a SLAB_TYPESAFE_BY_RCU struct file.
 *
 * Locking: lookups run under rcu_read_lock only.  The fd table they load
 * stays allocated for the read-side section (expand_files frees old tables
 * with call_rcu); the struct file they load stays a struct file (the cache is
 * TYPESAFE_BY_RCU) but may have been freed and reused for another open, so
 * after taking a reference the slot is reloaded and compared.  The reload's
 * comparison goes through OPTIMIZER_HIDE_VAR so that the returned pointer
 * (and every access through it) depends on the reload, which the fully
 * ordered reference increment orders after.  Paired stores: the release in
 * fd_install/do_dup2 (rcu_assign_pointer) and the release of the count in
 * alloc_file.
 *
 * The body is instantiated three times from one always-inline template:
 * fget/fget_raw/__fget_files with __get_file_rcu inlined (the fix proposed
 * in seeds/000), fget_ool with it as an out-of-line call (the regression),
 * and a test-only variant without the reload (the broken design the tests
 * show failing).
 */
#include "fdtable/fdtable.h"

RV_STAT_DEFINE(fget_retries, "fget lookups retried (dead file, recycled slot or replaced table)");
RV_STAT_DEFINE(fdget_light_hits, "fdget calls served without a reference (unshared table)");

enum fget_variant { FGET_INLINE, FGET_OUT_OF_LINE, FGET_NO_RECHECK };

/* __get_file_rcu's answers: a file (*out set), an empty slot, or "retry" */
enum { GET_FILE_OK, GET_FILE_NONE, GET_FILE_AGAIN };

/*
 * Dropping a speculative reference may drop the last one (the file was
 * closed meanwhile): tear it down outside the read-side section, since
 * release may sleep.  The loop restarts from scratch afterwards.
 */
static __noinline __attribute__((cold)) void fget_put_last(struct file *file)
{
	rcu_read_unlock();
	__fput(file);
	rcu_read_lock();
}

static __always_inline void fget_drop(struct file *file)
{
	if (unlikely(file_put_ref(file)))
		fget_put_last(file);
}

/*
 * The protocol proper.  Returns a status rather than a sentinel pointer so
 * that, inlined, the caller's tests fold away (seeds/000: this function was
 * the hot spot once out of line).
 */
static __always_inline int __get_file_rcu(struct file **f, struct file **out, bool recheck,
					  bool inject)
{
	struct file *file, *file_reloaded, *file_reloaded_cmp;

	file = rcu_dereference_raw(*f);
	if (unlikely(!file))
		return GET_FILE_NONE;
	/* the window: the file may be closed, freed and reused from here */
	if (inject)
		RV_INJECT("fget_after_load");
	if (unlikely(!file_tryget(file)))
		return GET_FILE_AGAIN;
	if (inject)
		RV_INJECT("fget_after_get");
	if (!recheck) {
		*out = file;
		return GET_FILE_OK;
	}
	file_reloaded = rcu_dereference_raw(*f);
	/*
	 * Hide the comparison from the optimizer: it must not replace
	 * file_reloaded by file below, or later accesses would not depend on
	 * the reload.
	 */
	file_reloaded_cmp = file_reloaded;
	OPTIMIZER_HIDE_VAR(file_reloaded_cmp);
	if (likely(file == file_reloaded_cmp)) {
		*out = file_reloaded;
		return GET_FILE_OK;
	}
	fget_drop(file);
	return GET_FILE_AGAIN;
}

static __noinline int __get_file_rcu_ool(struct file **f, struct file **out)
{
	return __get_file_rcu(f, out, true, false);
}

static __noinline int __get_file_rcu_ool_inject(struct file **f, struct file **out)
{
	return __get_file_rcu(f, out, true, true);
}

static __always_inline int get_file_variant(struct file **f, struct file **out, enum fget_variant v,
					    bool inject)
{
	if (v == FGET_INLINE)
		return __get_file_rcu(f, out, true, inject);
	if (v == FGET_OUT_OF_LINE)
		return inject ? __get_file_rcu_ool_inject(f, out) : __get_file_rcu_ool(f, out);
	return __get_file_rcu(f, out, false, inject);
}

/*
 * The retry loop, out of line and cold: entered after the first attempt
 * found a dead or recycled file (file == NULL), or got a reference to a file
 * that turned out to be in a replaced table (stale) or refused by mask; and
 * for the whole lookup while injection points are armed (tests), so that the
 * inline attempt carries no injection point at all.
 */
static __noinline __attribute__((cold)) struct file *
__fget_files_rcu_slow(struct files_struct *files, unsigned int fd, unsigned int mask,
		      enum fget_variant v, struct file *file, bool stale, bool retry)
{
	if (file) {
		fget_drop(file);
		if (!stale)
			return NULL; /* refused by mask */
	}
	for (;; retry = true) {
		struct fdtable *fdt;
		int ret;

		if (retry)
			rv_stat_inc(fget_retries);
		fdt = rcu_dereference_raw(files->fdt);
		if (unlikely(fd >= fdt->max_fds))
			return NULL;
		file = NULL;
		ret = get_file_variant(&fdt->fd[fd], &file, v, true);
		if (ret == GET_FILE_NONE)
			return NULL;
		if (ret == GET_FILE_AGAIN)
			continue;
		if (v != FGET_NO_RECHECK && rcu_dereference_raw(files->fdt) != fdt) {
			fget_drop(file);
			continue;
		}
		if (file->f_mode & mask) {
			fget_drop(file);
			return NULL;
		}
		return file;
	}
}

/*
 * One attempt inline; anything but "found it" or "empty" goes to the slow
 * loop.  After the slot recheck, the table is checked: it may have been
 * replaced (expand_files) after we loaded it, and the old copy of the slot
 * can still name a file that has since been closed in the new table.
 */
static __always_inline struct file *__fget_files_rcu(struct files_struct *files, unsigned int fd,
						     unsigned int mask, enum fget_variant v)
{
	struct fdtable *fdt = rcu_dereference_raw(files->fdt);
	struct file *file = NULL;
	bool stale;
	int ret;

	if (unlikely(fd >= fdt->max_fds))
		return NULL;
	/* one load and branch for both injection points of the protocol */
	if (unlikely(__atomic_load_n(&rv_inject_armed, __ATOMIC_RELAXED)))
		return __fget_files_rcu_slow(files, fd, mask, v, NULL, false, false);
	ret = get_file_variant(&fdt->fd[fd], &file, v, false);
	if (unlikely(ret != GET_FILE_OK)) {
		if (ret == GET_FILE_NONE)
			return NULL;
		return __fget_files_rcu_slow(files, fd, mask, v, NULL, false, true);
	}
	stale = v != FGET_NO_RECHECK && rcu_dereference_raw(files->fdt) != fdt;
	if (unlikely(stale || (file->f_mode & mask)))
		return __fget_files_rcu_slow(files, fd, mask, v, file, stale, true);
	return file;
}

/* One lookup in its own read-side section: the body of every entry below. */
static __always_inline struct file *__fget_files_variant(struct files_struct *files,
							 unsigned int fd, unsigned int mask,
							 enum fget_variant v)
{
	struct file *file;

	rcu_read_lock();
	file = __fget_files_rcu(files, fd, mask, v);
	rcu_read_unlock();
	return file;
}

struct file *__fget_files(struct files_struct *files, unsigned int fd, unsigned int mask)
{
	return __fget_files_variant(files, fd, mask, FGET_INLINE);
}

struct file *fget(unsigned int fd)
{
	return __fget_files_variant(current->files, fd, FMODE_PATH, FGET_INLINE);
}

struct file *fget_raw(unsigned int fd)
{
	return __fget_files_variant(current->files, fd, 0, FGET_INLINE);
}

struct file *fget_ool(unsigned int fd)
{
	return __fget_files_variant(current->files, fd, FMODE_PATH, FGET_OUT_OF_LINE);
}

struct file *fget_norecheck_for_test(unsigned int fd)
{
	return __fget_files_variant(current->files, fd, FMODE_PATH, FGET_NO_RECHECK);
}
