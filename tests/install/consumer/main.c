// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/install/consumer/main.c - a program of a user's own, built against
 * an installed rcuvfs (tests/install/run.sh): it links librcuvfs.a through
 * pkg-config or find_package, creates an instance, makes a directory and a
 * file as a model process, checks the answers and tears down.
 * Single-threaded; exits 0 when every answer is Linux's.
 */
#include "vfs/vfs.h"

#include <fcntl.h>

int main(void)
{
	struct task_struct *t;
	struct file *f;
	struct kstat st;
	int64_t pos = 0;
	int ok;

	if (rv_instance_create(NULL))
		return 1;
	t = task_create_process("consumer");
	task_attach(t);
	ok = do_mkdir("/d", 0755) == 0 && do_mkdir("/d", 0755) == -EEXIST &&
	     filp_open("/d/f", O_CREAT | O_RDWR, 0600, &f) == 0 &&
	     vfs_write(f, "four", 4, &pos) == 4 && vfs_stat("/d/f", &st) == 0 && st.size == 4;
	if (ok) {
		fput(f);
		ok = do_unlink("/d/f") == 0;
	}
	task_exit(t);
	if (rv_instance_destroy())
		ok = 0;
	printf("consumer: %s\n", ok ? "ok" : "FAILED");
	return !ok;
}
