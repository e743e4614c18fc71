// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/install/consumer/counters.c - a program of a user's own, built
 * against an installed librcuvfs.a, that uses only model tasks and POSIX
 * locks, and the counters those count.  Counters register through
 * constructors in the object that defines them (RV_STAT_DEFINE); a static
 * link pulls an object in by the symbols a program uses, so the question is
 * whether a counter can be linked in, and counted, without being in the
 * registry.  Checks:
 *   - a forked child's F_SETLK on its parent's range counts in
 *     locks_posix_calls and locks_conflicts, read by name (rv_stat_read);
 *   - with --list, prints every counter of the registry, one name a line:
 *     tests/install/run.sh compares them with the rv_stat_NAME objects nm
 *     finds in this program (every counter linked in must be registered).
 * Single-threaded; exits 0 when every check holds.
 */
#include "vfs/vfs.h"
#include "locks/locks.h"

#include <fcntl.h>
#include <string.h>

static void print_name(const char *name, uint64_t value, const char *help, void *arg)
{
	(void)value;
	(void)help;
	(void)arg;
	if (!rv_stat_is_gauge(name))
		printf("%s\n", name);
}

static int check(void)
{
	struct task_struct *parent = task_create_process("parent"), *child;
	struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 100};
	struct flock c = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 50, .l_len = 10};
	uint64_t calls = 0, conflicts = 0;
	struct file *f;
	int ok = 1;

	task_attach(parent);
	if (filp_open("/f", O_CREAT | O_RDWR, 0600, &f)) {
		task_exit(parent);
		return 0;
	}
	if (fcntl_setlk(f, F_SETLK, &l, parent->files, parent->tgid, NULL))
		ok = 0;
	child = task_fork(parent);
	if (!child || fcntl_setlk(f, F_SETLK, &c, child->files, child->tgid, NULL) != -EAGAIN)
		ok = 0;
	if (rv_stat_read("locks_posix_calls", &calls) || calls < 2) {
		fprintf(stderr, "counters: locks_posix_calls %llu, want >= 2 (registered: %s)\n",
			(unsigned long long)calls,
			rv_stat_read("locks_posix_calls", &calls) ? "no" : "yes");
		ok = 0;
	}
	if (rv_stat_read("locks_conflicts", &conflicts) || conflicts < 1) {
		fprintf(stderr, "counters: locks_conflicts %llu, want >= 1\n",
			(unsigned long long)conflicts);
		ok = 0;
	}
	if (child)
		task_exit(child);
	l.l_type = F_UNLCK;
	if (fcntl_setlk(f, F_SETLK, &l, parent->files, parent->tgid, NULL))
		ok = 0;
	fput(f);
	if (do_unlink("/f"))
		ok = 0;
	task_exit(parent);
	return ok;
}

int main(int argc, char **argv)
{
	int ok;

	if (argc > 1 && !strcmp(argv[1], "--list")) {
		rv_stat_foreach(print_name, NULL);
		return 0;
	}
	if (rv_instance_create(NULL))
		return 1;
	ok = check();
	if (rv_instance_destroy())
		ok = 0;
	printf("counters: %s\n", ok ? "ok" : "FAILED");
	return !ok;
}
