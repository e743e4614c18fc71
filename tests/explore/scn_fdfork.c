// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_fdfork.c - fork copying an fd table that another
 * thread of the process grows and changes meanwhile.
 *
 * fork-expand: the process has Z at fds 0 and 70 (so its table has 128
 * slots, more than the embedded 64) and A at fd 1.  T1 forks: dup_fd
 * (fs/file.c, Linux 6.12) finds more open fds than its new files_struct's
 * embedded table holds, drops file_lock to allocate a bigger one, retakes
 * it and must re-read files->fdt, since the table it counted may have been
 * replaced meanwhile ("who knows it may have a new bigger fd table").  T0,
 * another thread of the process, meanwhile dup2(0, 200)s (expand_files
 * replaces the 128-slot table with a 256-slot one, the old one freed after
 * a grace period) and closes fd 1 (A's last reference: A is freed).
 *
 * The oracle is what the child holds, from outside dup_fd's logic: its
 * table is the parent's at some instant of the fork (A at fd 1 and no fd
 * 200; A and fd 200; or fd 200 without A), every file it holds is alive
 * with at least one reference per slot naming it in either table, and the
 * number of live files is the number of distinct files in the two tables.
 * A dup_fd that copies the table it counted before the unlocked allocation
 * copies a replaced table, whose fd 1 still names A after the close: the
 * child holds a freed file (or reads a freed table).
 *
 * Locking: T0 and T1 share one files_struct; the checks run on the driver
 * after the schedule with no task running.
 */
#include "explore.h"

#include <string.h>

static const struct file_operations xff_fops;

static long xff_open(int tag)
{
	int fd = get_unused_fd_flags(0);
	struct file *f;

	if (fd < 0)
		return fd;
	f = alloc_file(NULL, NULL, O_RDWR, &xff_fops);
	if (!f) {
		put_unused_fd(fd);
		return -ENOMEM;
	}
	f->private_data = (void *)(uintptr_t)tag;
	fd_install(fd, f);
	return fd;
}

static int xff_tag(const struct file *f)
{
	return f ? (int)(uintptr_t)f->private_data : 0;
}

/* The tag as a character: '-' for an empty slot, '?' for a freed file. */
static char xff_c(const struct file *f)
{
	return !f ? '-' : xff_tag(f) ? (char)xff_tag(f) : '?';
}

struct xff_priv {
	struct task_struct *child;
};

static int xff_setup(struct xs_run *r)
{
	if (!xs_process(r, 1, "forker") || !xs_thread_of(r, 0, 1))
		return -ENOMEM;
	task_attach(r->task[1]);
	if (xff_open('Z') != 0 || xff_open('A') != 1 || ksys_dup2(0, 70) != 70)
		return -EIO;
	return 0;
}

static long xff_op(struct xs_run *r, int task, int op)
{
	struct xff_priv *p = r->priv;

	if (task == 1) {
		p->child = task_fork(current);
		return p->child ? 0 : -ENOMEM;
	}
	return op == 0 ? ksys_dup2(0, 200) : close_fd(1);
}

/* Every slot's file is alive and has at least as many references as slots. */
static int xff_slots(struct files_struct *files, struct file **seen, int *nseen, const char *who,
		     char *why, size_t len)
{
	for (unsigned int fd = 0; fd < files_max_fds(files); fd++) {
		struct file *f = files_lookup_fd_raw(files, fd);
		int k;

		if (!f)
			continue;
		for (k = 0; k < *nseen && seen[k] != f; k++)
			;
		if (k == *nseen && *nseen < 8)
			seen[(*nseen)++] = f;
		if (file_count(f) < 1) {
			snprintf(why, len, "%s fd %u holds %c with %ld references (a freed file)",
				 who, fd, xff_c(f), file_count(f));
			return 1;
		}
	}
	return 0;
}

static int xff_check(struct xs_run *r, char *why, size_t len)
{
	struct xff_priv *p = r->priv;
	struct files_struct *cf;
	struct file *seen[8];
	int nseen = 0, a, d200;

	if (!p->child) {
		snprintf(why, len, "fork failed");
		return 1;
	}
	cf = p->child->files;
	if (xff_slots(r->task[1]->files, seen, &nseen, "the parent's", why, len) ||
	    xff_slots(cf, seen, &nseen, "the child's", why, len))
		return 1;
	a = xff_tag(files_lookup_fd_raw(cf, 1)) == 'A';
	d200 = files_max_fds(cf) > 200 && xff_tag(files_lookup_fd_raw(cf, 200)) == 'Z';
	if (xff_tag(files_lookup_fd_raw(cf, 0)) != 'Z' ||
	    xff_tag(files_lookup_fd_raw(cf, 70)) != 'Z' || (!a && !d200)) {
		snprintf(why, len,
			 "the child's table: fd 0 %c, 1 %c, 70 %c, 200 %c (no instant of "
			 "the parent's table)",
			 xff_c(files_lookup_fd_raw(cf, 0)), xff_c(files_lookup_fd_raw(cf, 1)),
			 xff_c(files_lookup_fd_raw(cf, 70)), d200 ? 'Z' : '-');
		return 1;
	}
	if (nr_files_active() != nseen) {
		snprintf(why, len,
			 "%ld files alive, %d distinct files in the two tables (the child holds "
			 "A %s, a freed file or a leaked one)",
			 nr_files_active(), nseen, a ? "at fd 1" : "nowhere");
		return 1;
	}
	return 0;
}

static void xff_teardown(struct xs_run *r)
{
	struct xff_priv *p = r->priv;

	if (p->child)
		task_exit(p->child);
	p->child = NULL;
	xs_exit_tasks(r);
}

static struct xscenario fork_expand = {
    .name = "fork-expand",
    .summary = "fork (dup_fd, unlocked allocation of a big table) vs another thread's "
	       "dup2(0, 200) replacing the table and close(1) freeing A",
    .ntasks = 2,
    .nops = {2, 1},
    .opname = {{"dup2(0,200)", "close(1)"}, {"fork"}},
    .matrix_k = 3, /* 1,499 schedules */
    .variants =
	{
	    {"", false},
	},
    .priv_size = sizeof(struct xff_priv),
    .setup = xff_setup,
    .op = xff_op,
    .check = xff_check,
    .teardown = xff_teardown,
};
XSCENARIO(fork_expand)
