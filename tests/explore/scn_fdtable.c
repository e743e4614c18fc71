// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_fdtable.c - fd-table scenarios: fget racing close and
 * reopen onto a recycled struct file (SLAB_TYPESAFE_BY_RCU), and fget
 * racing dup2 over the fd.
 *
 * Files are tagged ('A', 'B', 'C' in private_data) so that a result names a
 * file independently of the instance: fget returns the tag, or 0 for none.
 * The broken design (fget=norecheck: no slot reload after the reference)
 * returns a file that was never at the fd when the recycled object's new
 * identity lives at another fd; linearizability finds it, since no serial
 * order of the operations gives that tag.
 *
 * Locking: the tasks share one files_struct (T0 is a thread of T1's
 * process); setup and teardown run on the driver with no task running.
 */
#include "explore.h"

#include <string.h>

static const struct file_operations xs_fops;

static struct file *tagged_file(int tag)
{
	struct file *f = alloc_file(NULL, NULL, O_RDWR, &xs_fops);

	if (f)
		f->private_data = (void *)(uintptr_t)tag;
	return f;
}

/* Reserve the lowest fd and install a new file tagged `tag`; the fd or -errno. */
static long open_tagged(int tag)
{
	int fd = get_unused_fd_flags(0);
	struct file *f;

	if (fd < 0)
		return fd;
	f = tagged_file(tag);
	if (!f) {
		put_unused_fd(fd);
		return -ENOMEM;
	}
	fd_install(fd, f);
	return fd;
}

static long fget_tag(const struct xs_run *r, unsigned int fd)
{
	struct file *f;
	long tag;

	if (xs_param_is(r, "fget", "norecheck"))
		f = fget_norecheck_for_test(fd);
	else if (xs_param_is(r, "fget", "ool"))
		f = fget_ool(fd);
	else
		f = fget(fd);
	if (!f)
		return 0;
	tag = (long)(uintptr_t)f->private_data;
	fput(f);
	return tag;
}

/* fget's results are tags; the others fds or errors. */
static void format_tag(int task, int op, long v, char *buf, size_t len)
{
	if (task != 0)
		snprintf(buf, len, "%ld", v);
	else if (v >= 'A' && v <= 'Z')
		snprintf(buf, len, "%c", (char)v);
	else if (v == 0)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%ld", v);
}

/* The files in the table hold one reference each; nothing else is alive. */
static int check_table(struct xs_run *r, const int *tags, int n, char *why, size_t len)
{
	struct files_struct *files = r->task[1]->files;
	long live = 0;

	for (int fd = 0; fd < n; fd++) {
		struct file *f = files_lookup_fd_raw(files, (unsigned int)fd);
		long want = tags[fd];

		if (!f && !want)
			continue;
		if (!f || (long)(uintptr_t)f->private_data != want) {
			snprintf(why, len, "fd %d holds %c, expected %c", fd,
				 f ? (char)(uintptr_t)f->private_data : '-',
				 want ? (char)want : '-');
			return 1;
		}
		if (file_count(f) != 1) {
			snprintf(why, len, "file %c at fd %d has %ld references, expected 1",
				 (char)want, fd, file_count(f));
			return 1;
		}
		live++;
	}
	if (nr_files_active() != live) {
		snprintf(why, len, "%ld files alive, %ld in the table (a reference leaked)",
			 nr_files_active(), live);
		return 1;
	}
	return 0;
}

/* ---- fget vs close and reopen --------------------------------------------- */

static int reopen_setup(struct xs_run *r)
{
	if (!xs_process(r, 1, "closer") || !xs_thread_of(r, 0, 1))
		return -ENOMEM;
	return 0;
}

/*
 * The closer opens A on its own thread, as a process opens the file it
 * later closes: A comes from the closer's per-CPU slab slot, so its free
 * and the next allocation there recycle it (LIFO), as on one CPU in Linux.
 */
static int reopen_task_setup(struct xs_run *r, int task)
{
	(void)r;
	if (task != 1)
		return 0;
	return open_tagged('A') == 0 ? 0 : -EIO;
}

static long reopen_op(struct xs_run *r, int task, int op)
{
	int fd;

	if (task == 0)
		return fget_tag(r, 0);
	switch (op) {
	case 0:
		return close_fd(0);
	case 1: /* B reuses A's object (LIFO magazine); fd 0 stays reserved */
		fd = get_unused_fd_flags(0);
		if (fd != 0)
			return -EBADF;
		return open_tagged('B');
	default:
		fd_install(0, tagged_file('C'));
		return 0;
	}
}

static int reopen_check(struct xs_run *r, char *why, size_t len)
{
	static const int tags[] = {'C', 'B'};

	return check_table(r, tags, 2, why, len);
}

static struct xscenario fget_reopen = {
    .name = "fget-reopen",
    .summary = "fget(0) vs close(0), open B onto A's recycled object at fd 1, install C at fd 0",
    .ntasks = 2,
    .nops = {1, 3},
    .opname = {{"fget(0)"}, {"close(0)", "reserve(0)+open(B)", "install(0,C)"}},
    .params = {{"fget",
		{"inline", "ool", "norecheck"},
		"fget variant: the inline protocol, out of line, or without the slot reload"}},
    .variants =
	{
	    {"fget=inline", false},
	    {"fget=inline,fileref=file-ref", false},
	    {"fget=ool", false},
	    {"fget=norecheck", true},
	    {"fget=norecheck,fileref=file-ref", true},
	},
    .linearizable = true,
    .setup = reopen_setup,
    .task_setup = reopen_task_setup,
    .op = reopen_op,
    .check = reopen_check,
    .teardown = xs_exit_tasks,
    .format = format_tag,
};
XSCENARIO(fget_reopen)

/* ---- fget vs dup2 ---------------------------------------------------------- */

static int dup2_setup(struct xs_run *r)
{
	if (!xs_process(r, 1, "duper") || !xs_thread_of(r, 0, 1))
		return -ENOMEM;
	return 0;
}

/* A and B from the duper's own slab slot (see reopen_task_setup). */
static int dup2_task_setup(struct xs_run *r, int task)
{
	(void)r;
	if (task != 1)
		return 0;
	if (open_tagged('A') != 0 || open_tagged('B') != 1)
		return -EIO;
	return 0;
}

static long dup2_op(struct xs_run *r, int task, int op)
{
	if (task == 0)
		return fget_tag(r, 0);
	switch (op) {
	case 0: /* closes A */
		return ksys_dup2(1, 0);
	default: /* C reuses A's object at fd 2 */
		return open_tagged('C');
	}
}

static int dup2_check(struct xs_run *r, char *why, size_t len)
{
	struct files_struct *files = r->task[1]->files;
	struct file *f0 = files_lookup_fd_raw(files, 0), *f1 = files_lookup_fd_raw(files, 1);
	struct file *f2 = files_lookup_fd_raw(files, 2);

	if (f0 != f1 || !f0 || (uintptr_t)f0->private_data != 'B' || file_count(f0) != 2) {
		snprintf(why, len, "fds 0 and 1 should share B with 2 references");
		return 1;
	}
	if (!f2 || (uintptr_t)f2->private_data != 'C' || file_count(f2) != 1) {
		snprintf(why, len, "fd 2 should hold C with 1 reference");
		return 1;
	}
	if (nr_files_active() != 2) {
		snprintf(why, len, "%ld files alive, 2 in the table (a reference leaked)",
			 nr_files_active());
		return 1;
	}
	return 0;
}

static struct xscenario fget_dup2 = {
    .name = "fget-dup2",
    .summary = "fget(0) vs dup2(1, 0) closing A, then open C onto A's recycled object",
    .ntasks = 2,
    .nops = {1, 2},
    .opname = {{"fget(0)"}, {"dup2(1,0)", "open(C)"}},
    .params = {{"fget",
		{"inline", "ool", "norecheck"},
		"fget variant: the inline protocol, out of line, or without the slot reload"}},
    .variants =
	{
	    {"fget=inline", false},
	    {"fget=inline,fileref=file-ref", false},
	    {"fget=norecheck", true},
	},
    .linearizable = true,
    .setup = dup2_setup,
    .task_setup = dup2_task_setup,
    .op = dup2_op,
    .check = dup2_check,
    .teardown = xs_exit_tasks,
    .format = format_tag,
};
XSCENARIO(fget_dup2)

/* ---- fget vs expand_files --------------------------------------------------- */

/*
 * dup2(0, 100) grows the table past the embedded 64 slots: expand_files
 * copies it and publishes the copy, freeing the old one after a grace
 * period (synchronize_rcu first waits for fd_install-ers); close(0) then
 * empties slot 0 in the new table only.  A reader that loaded the old
 * table must still return A or nothing, and leave every count right.
 */
static int expand_setup(struct xs_run *r)
{
	if (!xs_process(r, 1, "expander") || !xs_thread_of(r, 0, 1))
		return -ENOMEM;
	task_attach(r->task[1]);
	return open_tagged('A') == 0 ? 0 : -EIO;
}

static long expand_op(struct xs_run *r, int task, int op)
{
	if (task == 0)
		return fget_tag(r, 0);
	if (op == 0)
		return ksys_dup2(0, 100);
	return close_fd(0);
}

static int expand_check(struct xs_run *r, char *why, size_t len)
{
	struct files_struct *files = r->task[1]->files;
	struct file *f0 = files_lookup_fd_raw(files, 0), *f100 = files_lookup_fd_raw(files, 100);

	if (files_max_fds(files) <= 100) {
		snprintf(why, len, "the table did not grow (%u slots)", files_max_fds(files));
		return 1;
	}
	if (f0 || !f100 || (uintptr_t)f100->private_data != 'A' || file_count(f100) != 1) {
		snprintf(why, len, "expected fd 0 empty and A at fd 100 with one reference");
		return 1;
	}
	if (nr_files_active() != 1) {
		snprintf(why, len, "%ld files alive, 1 in the table (a reference leaked)",
			 nr_files_active());
		return 1;
	}
	return 0;
}

static struct xscenario fget_expand = {
    .name = "fget-expand",
    .summary = "fget(0) vs dup2(0, 100) growing the table (expand_files), then close(0)",
    .ntasks = 2,
    .nops = {1, 2},
    .opname = {{"fget(0)"}, {"dup2(0,100)", "close(0)"}},
    .params = {{"fget",
		{"inline", "ool", "norecheck"},
		"fget variant: the inline protocol, out of line, or without the slot reload"}},
    .variants =
	{
	    {"fget=inline", false},
	    {"fget=inline,fileref=file-ref", false},
	    {"fget=ool", false},
	},
    .linearizable = true,
    .setup = expand_setup,
    .op = expand_op,
    .check = expand_check,
    .teardown = xs_exit_tasks,
    .format = format_tag,
};
XSCENARIO(fget_expand)
