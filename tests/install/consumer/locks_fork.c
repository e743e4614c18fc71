// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/install/consumer/locks_fork.c - a program of a user's own that uses
 * only model tasks and POSIX locks (and filp_open for the file to lock),
 * built against an installed librcuvfs.a (tests/install/run.sh).  It calls
 * nothing of the fd table, so a static link that pulled subsystems in by
 * the symbols a program uses would leave the fd table's start-up out: every
 * model process would then have no files_struct, the same POSIX owner
 * (NULL), and a forked child's lock on its parent's range would be granted.
 *
 * Checks, as fcntl(2) on Linux: the parent holds a write lock on bytes
 * 0-99; its forked child's F_SETLK on bytes 50-59 fails with EAGAIN, and
 * the child's F_GETLK there reports the parent's lock and pid.
 * Single-threaded; exits 0 when every answer is Linux's.
 */
#include "vfs/vfs.h"
#include "locks/locks.h"

#include <fcntl.h>

static int check(void)
{
	struct task_struct *parent = task_create_process("parent"), *child;
	struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 100};
	struct file *f;
	int ok = 1, err;

	task_attach(parent);
	if (filp_open("/f", O_CREAT | O_RDWR, 0600, &f)) {
		task_exit(parent);
		return 0;
	}
	err = fcntl_setlk(f, F_SETLK, &l, parent->files, parent->tgid, NULL);
	if (err) {
		fprintf(stderr, "locks_fork: parent's F_SETLK: %d\n", err);
		ok = 0;
	}
	child = task_fork(parent);
	if (!child) {
		fprintf(stderr, "locks_fork: task_fork failed\n");
		ok = 0;
	} else {
		struct flock c = {
		    .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 50, .l_len = 10};

		err = fcntl_setlk(f, F_SETLK, &c, child->files, child->tgid, NULL);
		if (err != -EAGAIN) {
			fprintf(stderr,
				"locks_fork: child's F_SETLK on its parent's range: %d, "
				"want %d (EAGAIN)\n",
				err, -EAGAIN);
			ok = 0;
		}
		err = fcntl_getlk(f, F_GETLK, &c, child->files);
		if (err || c.l_type != F_WRLCK || c.l_pid != parent->tgid || c.l_start != 0 ||
		    c.l_len != 100) {
			fprintf(stderr,
				"locks_fork: child's F_GETLK: %d, type %d pid %d %lld+%lld, "
				"want F_WRLCK (%d) pid %d 0+100\n",
				err, c.l_type, (int)c.l_pid, (long long)c.l_start,
				(long long)c.l_len, F_WRLCK, (int)parent->tgid);
			ok = 0;
		}
		task_exit(child);
	}
	l.l_type = F_UNLCK;
	if (fcntl_setlk(f, F_SETLK, &l, parent->files, parent->tgid, NULL))
		ok = 0;
	fput(f);
	if (do_unlink("/f"))
		ok = 0;
	task_exit(parent);
	return ok;
}

int main(void)
{
	int ok;

	if (rv_instance_create(NULL))
		return 1;
	ok = check();
	if (rv_instance_destroy())
		ok = 0;
	printf("locks_fork: %s\n", ok ? "ok" : "FAILED");
	return !ok;
}
