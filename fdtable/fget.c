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
 * Shape (measured with bench_fdtable_callgrind.sh): the inline attempt makes no call at all,
 * so the hot function is a leaf that saves no register.  Everything that
 * needs a call (dropping a speculative reference, __file_ref_get's decision,
 * the retry loop, the grace-period wake-up of rcu_read_unlock, creating
 * `current`) is a cold out-of-line function reached by a jump, to which the
 * attempt hands over what it holds (enum get_file_res).  The same attempt,
 * with the injection points compiled in, is the body of the slow loop, so
 * the race tests exercise the code the fast path runs.
 *
 * Variants from one always-inline template: fget/fget_raw/__fget_files with
 * the attempt inlined (the fix proposed for the regression of 6.7's
 * SLAB_TYPESAFE_BY_RCU files, docs/history.md) or, under the switch
 * get_file_rcu=out-of-line, as an out-of-line call (the regression; also
 * fget_ool for the tests and benchmarks), and a test-only variant without the
 * reload (the broken design the tests show failing).  This file compiles
 * the first three into librcuvfs.a; fdtable/fget_test.c includes it with
 * RCUVFS_FGET_VARIANTS defined to compile the other two, for the test
 * library only (fdtable/testing.h), from the same template.
 */
#include "fdtable/fdtable.h"
#ifdef RCUVFS_FGET_VARIANTS
#include "fdtable/testing.h"
#else
RV_STAT_DEFINE(fget_retries, "fget lookups retried (dead file, recycled slot or replaced table)");
RV_STAT_DEFINE(fdget_light_hits, "fdget calls served without a reference (unshared table)");
#endif

enum fget_variant { FGET_INLINE, FGET_OUT_OF_LINE, FGET_NO_RECHECK };

/*
 * What an attempt found, and what the slow path must finish.  Only
 * GET_FILE_OK and GET_FILE_NONE end a lookup on the inline path.
 */
enum get_file_res {
	GET_FILE_OK,	  /* a reference on *filep, validated against the slot */
	GET_FILE_NONE,	  /* the slot is empty */
	GET_FILE_START,	  /* (slow path only) nothing tried yet */
	GET_FILE_AGAIN,	  /* no reference taken (dead file): retry */
	GET_FILE_REFGET,  /* file-ref: the increment landed at *cntp < 0: decide */
	GET_FILE_DROP,	  /* a reference on *filep, which failed validation: retry */
	GET_FILE_REFUSED, /* a reference on a valid *filep that mask refuses */
};

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
 * The second half of the protocol, after the reference: reload the slot and
 * compare, the comparison hidden from the optimizer so that it cannot
 * replace the reloaded pointer by the first one (later accesses must depend
 * on the reload).
 */
static __always_inline enum get_file_res __get_file_rcu_recheck(struct file **f,
								struct file **filep, bool recheck)
{
	struct file *reloaded, *cmp;

	if (!recheck)
		return GET_FILE_OK;
	reloaded = rcu_dereference_raw(*f);
	cmp = reloaded;
	OPTIMIZER_HIDE_VAR(cmp);
	if (unlikely(*filep != cmp))
		return GET_FILE_DROP;
	*filep = reloaded;
	return GET_FILE_OK;
}

/*
 * The protocol proper: load, take a reference that fails on a dead file,
 * reload and compare.  Makes no call: a failed inc-not-zero, a file-ref
 * increment in a negative zone (saturated or dead: __file_ref_get decides)
 * and a mismatch (the object was recycled) are returned to the caller.
 */
static __always_inline enum get_file_res
__get_file_rcu(struct file **f, struct file **filep, unsigned long *cntp, bool recheck, bool inject)
{
	struct file *file = rcu_dereference_raw(*f);

	if (unlikely(!file))
		return GET_FILE_NONE;
	/* the window: the file may be closed, freed and reused from here */
	if (inject)
		RV_INJECT("fget_after_load");
	*filep = file;
	if (rv_sw.fileref == FILEREF_FILE_REF) {
		/* fully ordered, as file_ref_get: the reload must not pass it */
		unsigned long cnt = __atomic_add_fetch(&file->f_ref.refcnt, 1, __ATOMIC_SEQ_CST);

		if (unlikely((long)cnt < 0)) {
			*cntp = cnt;
			return GET_FILE_REFGET;
		}
	} else if (unlikely(!file_count_inc_not_zero(&file->f_ref))) {
		return GET_FILE_AGAIN;
	}
	if (inject)
		RV_INJECT("fget_after_get");
	return __get_file_rcu_recheck(f, filep, recheck);
}

static __noinline enum get_file_res __get_file_rcu_ool(struct file **f, struct file **filep,
						       unsigned long *cntp)
{
	return __get_file_rcu(f, filep, cntp, true, false);
}

static __noinline enum get_file_res __get_file_rcu_ool_inject(struct file **f, struct file **filep,
							      unsigned long *cntp)
{
	return __get_file_rcu(f, filep, cntp, true, true);
}

static __always_inline enum get_file_res get_file_variant(struct file **f, struct file **filep,
							  unsigned long *cntp, enum fget_variant v,
							  bool inject)
{
	if (v == FGET_INLINE)
		return __get_file_rcu(f, filep, cntp, true, inject);
	if (v == FGET_OUT_OF_LINE)
		return inject ? __get_file_rcu_ool_inject(f, filep, cntp)
			      : __get_file_rcu_ool(f, filep, cntp);
	return __get_file_rcu(f, filep, cntp, false, inject);
}

/*
 * The retry loop, out of line and cold: it finishes what the inline attempt
 * handed over (`res`, with `file` and `cnt` as the attempt left them), loops
 * until it gets a validated file or an empty or out-of-range slot, and ends
 * the read-side section the caller began.  While injection points are armed
 * (tests) the whole lookup runs here (GET_FILE_START).  After the slot
 * recheck the table is checked: it may have been replaced (expand_files)
 * after we loaded it, and the old copy of the slot can still name a file
 * that has since been closed in the new table.
 */
static __always_inline struct file *fget_slow_body(struct files_struct *files, unsigned int fd,
						   unsigned int mask, enum fget_variant v,
						   struct file *file, enum get_file_res res,
						   unsigned long cnt)
{
	bool recheck = v != FGET_NO_RECHECK;
	/* the table the last attempt used; NULL: the inline attempt's */
	struct fdtable *fdt = NULL;

	for (;;) {
		if (res == GET_FILE_REFGET) {
			if (!__file_ref_get(&file->f_ref, cnt)) {
				res = GET_FILE_AGAIN; /* dead: the failed get is not undone */
			} else {
				/* saturated, still ours; handed over: use the current table */
				if (!fdt)
					fdt = rcu_dereference_raw(files->fdt);
				res = fd < fdt->max_fds
					  ? __get_file_rcu_recheck(&fdt->fd[fd], &file, recheck)
					  : GET_FILE_DROP;
			}
		}
		if (res == GET_FILE_OK) {
			if (recheck && !RV_MUTANT(fget_no_fdt_recheck) &&
			    rcu_dereference_raw(files->fdt) != fdt)
				res = GET_FILE_DROP;
			else if (file->f_mode & mask)
				res = GET_FILE_REFUSED;
			else
				break;
		}
		if (res == GET_FILE_DROP || res == GET_FILE_REFUSED) {
			fget_drop(file);
			if (res == GET_FILE_REFUSED)
				res = GET_FILE_NONE;
		}
		if (res == GET_FILE_NONE) {
			file = NULL;
			break;
		}
		/* START, AGAIN, DROP: (re)try */
		if (res != GET_FILE_START)
			rv_stat_inc(fget_retries);
		fdt = rcu_dereference_raw(files->fdt);
		if (unlikely(fd >= fdt->max_fds)) {
			file = NULL;
			break;
		}
		res = get_file_variant(&fdt->fd[fd], &file, &cnt, v, true);
	}
	rcu_read_unlock();
	return file;
}

/* One instance per variant: six register arguments, so a call is a jump. */
static __noinline __attribute__((cold)) struct file *
fget_slow_inline(struct files_struct *files, unsigned int fd, unsigned int mask, struct file *file,
		 enum get_file_res res, unsigned long cnt)
{
	return fget_slow_body(files, fd, mask, FGET_INLINE, file, res, cnt);
}

static __noinline __attribute__((cold)) struct file *
fget_slow_ool(struct files_struct *files, unsigned int fd, unsigned int mask, struct file *file,
	      enum get_file_res res, unsigned long cnt)
{
	return fget_slow_body(files, fd, mask, FGET_OUT_OF_LINE, file, res, cnt);
}

static __noinline __attribute__((cold)) struct file *
fget_slow_norecheck(struct files_struct *files, unsigned int fd, unsigned int mask,
		    struct file *file, enum get_file_res res, unsigned long cnt)
{
	return fget_slow_body(files, fd, mask, FGET_NO_RECHECK, file, res, cnt);
}

static __always_inline struct file *fget_slow(struct files_struct *files, unsigned int fd,
					      unsigned int mask, enum fget_variant v,
					      struct file *file, enum get_file_res res,
					      unsigned long cnt)
{
	if (v == FGET_INLINE)
		return fget_slow_inline(files, fd, mask, file, res, cnt);
	if (v == FGET_OUT_OF_LINE)
		return fget_slow_ool(files, fd, mask, file, res, cnt);
	return fget_slow_norecheck(files, fd, mask, file, res, cnt);
}

/*
 * rcu_read_unlock for the lookup, returning the lookup's result, with no
 * call in the common case (rv_rcu_read_unlock_leaf, vfs/base/rcu.h): the
 * grace-period wake-up and liburcu's own unlock (nested sections, no
 * sys_membarrier, an unchecked liburcu) are reached by a jump to a cold
 * function.  Worth 9 instructions and 0.15-0.25 ns per lookup
 * (bench_fdtable).
 */
static __noinline __attribute__((cold)) struct file *fget_rcu_unlock_slow(struct file *file)
{
	rcu_read_unlock();
	return file;
}

static __noinline __attribute__((cold)) struct file *fget_rcu_unlock_wake(struct file *file)
{
	rv_rcu_wake_up_gp();
	return file;
}

static __always_inline struct file *fget_rcu_read_unlock(struct file *file)
{
	enum rv_rcu_unlock_res r;

	if (RV_XSIM()) { /* a simulated task: the section's end is a point */
		rcu_read_unlock();
		return file;
	}
	r = rv_rcu_read_unlock_leaf();

	if (likely(r == RV_RCU_UNLOCKED))
		return file;
	if (r == RV_RCU_UNLOCK_CALL)
		return fget_rcu_unlock_slow(file);
	return fget_rcu_unlock_wake(file);
}

/*
 * One lookup in its own read-side section: the body of every entry below.
 * One attempt inline; anything but "found it" or "empty" is handed to the
 * slow loop (a jump).
 */
static __always_inline struct file *__fget_files_variant(struct files_struct *files,
							 unsigned int fd, unsigned int mask,
							 enum fget_variant v)
{
	struct fdtable *fdt;
	struct file *file = NULL;
	unsigned long cnt = 0;
	enum get_file_res res;

	rcu_read_lock();
	/* one load and branch for both injection points of the protocol (an
	 * explored task, too, runs the loop whose points it can be switched at;
	 * a simulated one runs the fast path, whose cost is what it measures) */
	if (unlikely(__atomic_load_n(&rv_inject_armed, __ATOMIC_RELAXED)) ||
	    (RV_XACTIVE() && !RV_XSIM()))
		return fget_slow(files, fd, mask, v, NULL, GET_FILE_START, 0);
	fdt = rcu_dereference_raw(files->fdt);
	if (unlikely(fd >= fdt->max_fds))
		goto out;
	res = get_file_variant(&fdt->fd[fd], &file, &cnt, v, false);
	if (likely(res == GET_FILE_OK)) {
		if (unlikely(v != FGET_NO_RECHECK && rcu_dereference_raw(files->fdt) != fdt))
			res = GET_FILE_DROP;
		else if (unlikely(file->f_mode & mask))
			res = GET_FILE_REFUSED;
		else
			goto out;
	} else if (res == GET_FILE_NONE) {
		file = NULL;
		goto out;
	}
	return fget_slow(files, fd, mask, v, file, res, cnt);
out:
	return fget_rcu_read_unlock(file);
}

/* A thread without a task yet: create it (current), then the slow loop. */
static __noinline __attribute__((cold)) struct file *
fget_no_current(unsigned int fd, unsigned int mask, enum fget_variant v)
{
	struct files_struct *files = current->files;

	rcu_read_lock();
	return fget_slow_body(files, fd, mask, v, NULL, GET_FILE_START, 0);
}

/* current->files, reading the thread's task pointer once. */
static __always_inline struct file *fget_current(unsigned int fd, unsigned int mask,
						 enum fget_variant v)
{
	struct task_struct *t = rv_current;

	if (unlikely(!t))
		return fget_no_current(fd, mask, v);
	return __fget_files_variant(t->files, fd, mask, v);
}

#ifndef RCUVFS_FGET_VARIANTS
/*
 * get_file_rcu=out-of-line (6.7's conversion, 0ede61d8589c: the attempt an
 * out-of-line call, the regression the inlining fixed): a cold function
 * reached by a jump, so that the inline entries below keep their shape (one
 * load and a not-taken branch more than the attempt alone).
 */
static __noinline __attribute__((cold)) struct file *
fget_files_ool(struct files_struct *files, unsigned int fd, unsigned int mask)
{
	return __fget_files_variant(files, fd, mask, FGET_OUT_OF_LINE);
}

static __noinline __attribute__((cold)) struct file *fget_current_ool(unsigned int fd,
								      unsigned int mask)
{
	return fget_current(fd, mask, FGET_OUT_OF_LINE);
}

struct file *__fget_files(struct files_struct *files, unsigned int fd, unsigned int mask)
{
	if (unlikely(rv_sw.get_file_rcu == GET_FILE_RCU_OUT_OF_LINE))
		return fget_files_ool(files, fd, mask);
	return __fget_files_variant(files, fd, mask, FGET_INLINE);
}

struct file *fget(unsigned int fd)
{
	if (unlikely(rv_sw.get_file_rcu == GET_FILE_RCU_OUT_OF_LINE))
		return fget_current_ool(fd, FMODE_PATH);
	return fget_current(fd, FMODE_PATH, FGET_INLINE);
}

struct file *fget_raw(unsigned int fd)
{
	if (unlikely(rv_sw.get_file_rcu == GET_FILE_RCU_OUT_OF_LINE))
		return fget_current_ool(fd, 0);
	return fget_current(fd, 0, FGET_INLINE);
}
#else
struct file *fget_ool(unsigned int fd)
{
	return fget_current(fd, FMODE_PATH, FGET_OUT_OF_LINE);
}

struct file *fget_norecheck_for_test(unsigned int fd)
{
	return fget_current(fd, FMODE_PATH, FGET_NO_RECHECK);
}
#endif
