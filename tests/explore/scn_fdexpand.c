// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_fdexpand.c - the fd table while it grows: an open
 * (alloc_fd, then fd_install into the reserved slot) or a second expansion
 * racing expand_files, and an open racing close_range.
 *
 * fd-install-expand: T1 dup2(0, 100) grows the table past its embedded 64
 * slots (expand_files: resize_in_progress set, file_lock dropped, the new
 * table allocated, synchronize_rcu for fd_install-ers that did not see the
 * flag, the old table copied and replaced).  T0, a thread of the same
 * process, meanwhile
 *   t0=open    opens A: alloc_fd reserves fd 1, fd_install stores A;
 *   t0=open64  opens A with fds 0..63 taken: its alloc_fd must expand too
 *              (and, finding T1's resize in progress, wait and re-read);
 *   t0=dup2    dup2(0, 200): a second expansion of the same table.
 * The oracle is the table itself, from outside fs/file.c's logic: at the
 * end each fd holds exactly the file the serial semantics put there (an
 * install lost in the old table, a bit set in a freed one, a slot the
 * second expansion dropped all differ), every file's reference count is
 * the number of slots naming it, nothing else is alive; and between
 * critical sections (no task holds a spinlock) every non-empty slot's fd
 * is marked open, and at most one reserved-but-empty fd per opening task.
 *
 * open-close-range: T0 opens A while T1 close_range(0, 300)s: A ends at
 * fd 1 or closed, never leaked, and the table's invariants hold throughout.
 *
 * Locking: the tasks share one files_struct; the checks run with every
 * task parked between critical sections (midcheck) or after the schedule.
 */
#include "explore.h"

#include <string.h>

static const struct file_operations xfe_fops;

static struct file *xfe_file(int tag)
{
	struct file *f = alloc_file(NULL, NULL, O_RDWR, &xfe_fops);

	if (f)
		f->private_data = (void *)(uintptr_t)tag;
	return f;
}

static long xfe_open(int tag)
{
	int fd = get_unused_fd_flags(0);
	struct file *f;

	if (fd < 0)
		return fd;
	f = xfe_file(tag);
	if (!f) {
		put_unused_fd(fd);
		return -ENOMEM;
	}
	fd_install(fd, f);
	return fd;
}

static int xfe_tag(const struct file *f)
{
	return f ? (int)(uintptr_t)f->private_data : 0;
}

static bool fd_bit(const struct fdtable *fdt, unsigned int fd)
{
	return (fdt->open_fds[fd / (8 * sizeof(long))] >> (fd % (8 * sizeof(long)))) & 1;
}

/*
 * The table's invariants.  strict (end of the schedule): an open fd has a
 * file.  Otherwise (mid-schedule) at most `reserved` open fds may be empty
 * (opens between alloc_fd and fd_install).
 */
static int fdt_invariants(struct files_struct *files, int reserved, char *why, size_t len)
{
	struct fdtable *fdt = rcu_dereference_raw(files->fdt);
	int empty = 0;

	for (unsigned int fd = 0; fd < fdt->max_fds; fd++) {
		struct file *f = rcu_dereference_raw(fdt->fd[fd]);
		bool open = fd_bit(fdt, fd);
		long slots = 0;

		if (f && !open) {
			snprintf(why, len, "fd %u holds %c but is not marked open", fd, xfe_tag(f));
			return 1;
		}
		if (!f && open && ++empty > reserved) {
			snprintf(why, len, "fd %u is marked open with no file (%d such fds)", fd,
				 empty);
			return 1;
		}
		if (!f)
			continue;
		for (unsigned int k = 0; k < fdt->max_fds; k++)
			slots += rcu_dereference_raw(fdt->fd[k]) == f;
		if (file_count(f) < slots) {
			snprintf(why, len, "%c is in %ld slots with %ld references", xfe_tag(f),
				 slots, file_count(f));
			return 1;
		}
	}
	return 0;
}

struct xfe_priv {
	bool full; /* fds 0..63 taken in setup */
};

static int xfe_setup(struct xs_run *r)
{
	struct xfe_priv *p = r->priv;

	if (!xs_process(r, 1, "expander") || !xs_thread_of(r, 0, 1))
		return -ENOMEM;
	task_attach(r->task[1]);
	if (xfe_open('Z') != 0)
		return -EIO;
	p->full = xs_param_is(r, "t0", "open64");
	for (int fd = 1; p->full && fd < 64; fd++)
		if (xfe_open('F') != fd)
			return -EIO;
	return 0;
}

static long xfe_op(struct xs_run *r, int task, int op)
{
	if (task == 1)
		return ksys_dup2(0, 100);
	if (xs_param_is(r, "t0", "dup2"))
		return ksys_dup2(0, 200);
	return xfe_open('A');
}

static int xfe_midcheck(struct xs_run *r, char *why, size_t len)
{
	return fdt_invariants(r->task[1]->files, 1, why, len);
}

/* Each fd's file, and every count: Z in its slots, A and F once. */
static int xfe_check(struct xs_run *r, char *why, size_t len)
{
	struct xfe_priv *p = r->priv;
	struct files_struct *files = r->task[1]->files;
	bool dup = xs_param_is(r, "t0", "dup2");
	unsigned int afd = p->full ? 64 : 1;
	long live = 0, zslots = 0;

	if (fdt_invariants(files, 0, why, len))
		return 1;
	for (unsigned int fd = 0; fd < files_max_fds(files); fd++) {
		struct file *f = files_lookup_fd_raw(files, fd);
		int want = fd == 0 || fd == 100 || (dup && fd == 200) ? 'Z'
			   : !dup && fd == afd			      ? 'A'
			   : p->full && fd < 64			      ? 'F'
								      : 0;

		if (xfe_tag(f) != want) {
			snprintf(why, len, "fd %u holds %c, expected %c", fd, f ? xfe_tag(f) : '-',
				 want ? want : '-');
			return 1;
		}
		if (!f)
			continue;
		if (want == 'Z') {
			zslots++;
		} else {
			if (file_count(f) != 1) {
				snprintf(why, len, "%c at fd %u has %ld references", want, fd,
					 file_count(f));
				return 1;
			}
			live++;
		}
	}
	if (zslots != (dup ? 3 : 2) ||
	    (zslots && file_count(files_lookup_fd_raw(files, 0)) != zslots)) {
		snprintf(why, len, "Z is in %ld slots with %ld references", zslots,
			 file_count(files_lookup_fd_raw(files, 0)));
		return 1;
	}
	if (nr_files_active() != live + 1) {
		snprintf(why, len, "%ld files alive, %ld in the table (a reference leaked)",
			 nr_files_active(), live + 1);
		return 1;
	}
	return 0;
}

static void xfe_format(int task, int op, long v, char *buf, size_t len)
{
	snprintf(buf, len, "%ld", v);
}

static struct xscenario fd_install_expand = {
    .name = "fd-install-expand",
    .summary = "open (alloc_fd + fd_install) or a second dup2 vs dup2(0, 100) growing the table",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"open(A)"}, {"dup2(0,100)"}},
    .params = {{"t0",
		{"open", "open64", "dup2"},
		"T0: open A at fd 1, open A at fd 64 (must expand too), dup2(0, 200)"}},
    .matrix_k = 3, /* K = 3 exhausts in seconds (docs/explore.md, Depth) */
    .variants =
	{
	    {"t0=open", false},
	    {"t0=open64", false},
	    {"t0=dup2", false},
	},
    .priv_size = sizeof(struct xfe_priv),
    .setup = xfe_setup,
    .op = xfe_op,
    .midcheck = xfe_midcheck,
    .check = xfe_check,
    .teardown = xs_exit_tasks,
    .format = xfe_format,
};
XSCENARIO(fd_install_expand)

/* ---- open vs close_range ---------------------------------------------------- */

static int ocr_setup(struct xs_run *r)
{
	if (!xs_process(r, 1, "closer") || !xs_thread_of(r, 0, 1))
		return -ENOMEM;
	task_attach(r->task[1]);
	return xfe_open('Z') == 0 ? 0 : -EIO;
}

static long ocr_op(struct xs_run *r, int task, int op)
{
	if (task == 1)
		return __close_range(0, 300, 0);
	return xfe_open('A');
}

static int ocr_midcheck(struct xs_run *r, char *why, size_t len)
{
	return fdt_invariants(r->task[1]->files, 1, why, len);
}

static int ocr_check(struct xs_run *r, char *why, size_t len)
{
	struct files_struct *files = r->task[1]->files;
	long afd = r->result[0][0];
	struct file *a =
	    afd == 0 || afd == 1 ? files_lookup_fd_raw(files, (unsigned int)afd) : NULL;

	if (fdt_invariants(files, 0, why, len))
		return 1;
	if ((afd != 0 && afd != 1) || r->result[1][0] != 0) {
		snprintf(why, len, "open gave %ld, close_range %ld (expected 0 or 1, 0)", afd,
			 r->result[1][0]);
		return 1;
	}
	if (files_lookup_fd_raw(files, (unsigned int)!afd) ||
	    (a && (xfe_tag(a) != 'A' || file_count(a) != 1))) {
		snprintf(why, len, "expected fd %d closed and fd %ld holding A once or closed",
			 !afd, afd);
		return 1;
	}
	if (nr_files_active() != (a ? 1 : 0)) {
		snprintf(why, len, "%ld files alive, %d in the table (a reference leaked)",
			 nr_files_active(), a ? 1 : 0);
		return 1;
	}
	return 0;
}

static struct xscenario open_close_range = {
    .name = "open-close-range",
    .summary = "open A (alloc_fd + fd_install) vs close_range(0, 300)",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"open(A)"}, {"close_range(0,300)"}},
    .matrix_k = 3, /* K = 3 exhausts in seconds (docs/explore.md, Depth) */
    .variants =
	{
	    {"", false},
	},
    .setup = ocr_setup,
    .op = ocr_op,
    .midcheck = ocr_midcheck,
    .check = ocr_check,
    .teardown = xs_exit_tasks,
    .format = xfe_format,
};
XSCENARIO(open_close_range)

/* ---- open vs dup2 onto the reserved fd -------------------------------------- */

/*
 * T0 opens A (alloc_fd reserves fd 1, fd_install fills it); T1 dup2(0, 1).
 * Serially: dup2 first (Z at 1, A at 2), or the open first (dup2 closes
 * A: Z at 1); between the reservation and the install, dup2 must answer
 * EBUSY (do_dup2) and the open keep fd 1.
 */
static long odp_op(struct xs_run *r, int task, int op)
{
	if (task == 1)
		return ksys_dup2(0, 1);
	return xfe_open('A');
}

static int odp_check(struct xs_run *r, char *why, size_t len)
{
	struct files_struct *files = r->task[1]->files;
	long afd = r->result[0][0], d = r->result[1][0];
	struct file *z = files_lookup_fd_raw(files, 0), *f1 = files_lookup_fd_raw(files, 1);
	struct file *f2 = files_lookup_fd_raw(files, 2);
	long zrefs = 1 + (xfe_tag(f1) == 'Z') + (xfe_tag(f2) == 'Z');
	long live = 1 + (xfe_tag(f1) == 'A') + (xfe_tag(f2) == 'A');

	if (fdt_invariants(files, 0, why, len))
		return 1;
	/* the three serial outcomes */
	if (!((afd == 2 && d == 1 && xfe_tag(f1) == 'Z' && xfe_tag(f2) == 'A') ||
	      (afd == 1 && d == 1 && xfe_tag(f1) == 'Z' && !f2) ||
	      (afd == 1 && d == -EBUSY && xfe_tag(f1) == 'A' && !f2))) {
		snprintf(why, len, "open gave %ld, dup2 %ld; fd 1 holds %c, fd 2 %c", afd, d,
			 f1 ? xfe_tag(f1) : '-', f2 ? xfe_tag(f2) : '-');
		return 1;
	}
	if (xfe_tag(z) != 'Z' || file_count(z) != zrefs || nr_files_active() != live) {
		snprintf(why, len, "Z has %ld references in %ld slots, %ld files alive for %ld",
			 z ? file_count(z) : 0, zrefs, nr_files_active(), live);
		return 1;
	}
	return 0;
}

static struct xscenario open_dup2 = {
    .name = "open-dup2",
    .summary = "open A (fd 1 reserved, then installed) vs dup2(0, 1)",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"open(A)"}, {"dup2(0,1)"}},
    .matrix_k = 3, /* K = 3 exhausts in seconds (docs/explore.md, Depth) */
    .variants =
	{
	    {"", false},
	},
    .setup = ocr_setup,
    .op = odp_op,
    .midcheck = ocr_midcheck,
    .check = odp_check,
    .teardown = xs_exit_tasks,
    .format = xfe_format,
};
XSCENARIO(open_dup2)

/* ---- fget vs expand, close and reuse ---------------------------------------- */

/*
 * fget-reopen with an expansion first: T1 dup2(1, 100) replaces the table,
 * closes fd 0 (A, alone in it, is freed into T1's slab slot), reserves fd
 * 0, opens B (A's recycled object) at fd 2 and installs C at fd 0.  T0's
 * fget(0) may have loaded the old table: its slot still names A's object
 * after the close, so the slot reload alone passes for B; only the check
 * that the table is still files->fdt (__fget_files_rcu) rejects it.  B was
 * never at fd 0: linearizability sees it.
 */
static int fxr_task_setup(struct xs_run *r, int task)
{
	(void)r;
	if (task != 1)
		return 0;
	return xfe_open('A') == 0 && xfe_open('Y') == 1 ? 0 : -EIO;
}

static int fxr_setup(struct xs_run *r)
{
	if (!xs_process(r, 1, "expander") || !xs_thread_of(r, 0, 1))
		return -ENOMEM;
	return 0;
}

static long fxr_op(struct xs_run *r, int task, int op)
{
	struct file *f;
	long tag;

	if (task == 0) {
		f = fget(0);
		if (!f)
			return 0;
		tag = xfe_tag(f);
		fput(f);
		return tag;
	}
	switch (op) {
	case 0:
		return ksys_dup2(1, 100);
	case 1:
		return close_fd(0);
	case 2:
		if (get_unused_fd_flags(0) != 0)
			return -EBADF;
		return xfe_open('B');
	default:
		fd_install(0, xfe_file('C'));
		return 0;
	}
}

static void fxr_format(int task, int op, long v, char *buf, size_t len)
{
	if (task == 0 && v >= 'A' && v <= 'Z')
		snprintf(buf, len, "%c", (char)v);
	else if (task == 0 && !v)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%ld", v);
}

/* T1 keeps fd 0 reserved while it opens B: two empty reserved fds */
static int fxr_midcheck(struct xs_run *r, char *why, size_t len)
{
	return fdt_invariants(r->task[1]->files, 2, why, len);
}

static int fxr_check(struct xs_run *r, char *why, size_t len)
{
	struct files_struct *files = r->task[1]->files;

	if (fdt_invariants(files, 0, why, len))
		return 1;
	if (xfe_tag(files_lookup_fd_raw(files, 0)) != 'C' ||
	    xfe_tag(files_lookup_fd_raw(files, 2)) != 'B' || nr_files_active() != 3) {
		snprintf(why, len, "expected C at 0, Y at 1 and 100, B at 2, 3 files alive (%ld)",
			 nr_files_active());
		return 1;
	}
	return 0;
}

static struct xscenario fget_expand_reopen = {
    .name = "fget-expand-reopen",
    .summary = "fget(0) vs dup2(1, 100) growing the table, close(0), open B onto A's object, "
	       "install C at 0",
    .ntasks = 2,
    .nops = {1, 4},
    .opname = {{"fget(0)"}, {"dup2(1,100)", "close(0)", "reserve(0)+open(B)", "install(0,C)"}},
    .matrix_k = 3, /* K = 3 exhausts in seconds (docs/explore.md, Depth) */
    .variants =
	{
	    {"", false},
	    {"fileref=file-ref", false},
	},
    .linearizable = true,
    .setup = fxr_setup,
    .task_setup = fxr_task_setup,
    .op = fxr_op,
    .midcheck = fxr_midcheck,
    .check = fxr_check,
    .teardown = xs_exit_tasks,
    .format = fxr_format,
};
XSCENARIO(fget_expand_reopen)

/* ---- open vs fork ----------------------------------------------------------- */

/*
 * T0 opens A (fd 1 reserved, then installed) while T1, another thread of
 * the process, forks.  The child gets A at fd 1 if the install came first,
 * else nothing there: a reserved, uninstalled fd is not the child's
 * (dup_fd clears its bit), so every fd the child has open has a file.
 */
struct ofk_priv {
	struct task_struct *child;
};

static long ofk_op(struct xs_run *r, int task, int op)
{
	struct ofk_priv *p = r->priv;

	if (task == 1) {
		p->child = task_fork(current);
		return p->child ? 0 : -ENOMEM;
	}
	return xfe_open('A');
}

static int ofk_check(struct xs_run *r, char *why, size_t len)
{
	struct ofk_priv *p = r->priv;
	struct files_struct *cf;
	struct file *a;

	if (!p->child) {
		snprintf(why, len, "fork failed");
		return 1;
	}
	cf = p->child->files;
	if (fdt_invariants(cf, 0, why, len) || fdt_invariants(r->task[1]->files, 0, why, len))
		return 1;
	a = files_lookup_fd_raw(cf, 1);
	if (xfe_tag(files_lookup_fd_raw(cf, 0)) != 'Z' || (a && xfe_tag(a) != 'A')) {
		snprintf(why, len, "the child's table: fd 0 %c, fd 1 %c",
			 xfe_tag(files_lookup_fd_raw(cf, 0)), a ? xfe_tag(a) : '-');
		return 1;
	}
	return 0;
}

static void ofk_teardown(struct xs_run *r)
{
	struct ofk_priv *p = r->priv;

	if (p->child)
		task_exit(p->child);
	p->child = NULL;
	xs_exit_tasks(r);
}

static struct xscenario open_fork = {
    .name = "open-fork",
    .summary = "open A (fd 1 reserved, then installed) vs fork by another thread",
    .ntasks = 2,
    .nops = {1, 1},
    .opname = {{"open(A)"}, {"fork"}},
    .matrix_k = 3, /* K = 3 exhausts in seconds (docs/explore.md, Depth) */
    .variants =
	{
	    {"", false},
	},
    .priv_size = sizeof(struct ofk_priv),
    .setup = ocr_setup,
    .op = ofk_op,
    .midcheck = ocr_midcheck,
    .check = ofk_check,
    .teardown = ofk_teardown,
    .format = xfe_format,
};
XSCENARIO(open_fork)
