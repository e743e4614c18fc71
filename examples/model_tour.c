// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * examples/model_tour.c - the model's API in one program: create an
 * instance with a switch, run as a model process, create and write a file
 * through the VFS, take an flock and see a second open file description
 * refused, map the file into a forked child, read a counter, tear down.
 *
 * Single-threaded: no locking beyond what the model does inside each call.
 * Exits 0 when every step gave the answer Linux gives, 1 otherwise.
 * Built and run by CTest (example.model_tour); docs/api.md shows this file.
 */
#include "vfs/vfs.h"
#include "fdtable/fdtable.h"
#include "locks/locks.h"
#include "mm/mm.h"

#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "model_tour: %s:%d: %s\n", __FILE__, __LINE__, #cond);     \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

static int tour(void)
{
	/* a model process; the calling thread runs as its task */
	struct task_struct *t = task_create_process("tour");
	CHECK(t != NULL);
	task_attach(t);

	/* the VFS by path: mkdir, create, write, stat */
	struct file *f, *g;
	int64_t pos = 0;
	struct kstat st;
	CHECK(do_mkdir("/dir", 0755) == 0);
	CHECK(filp_open("/dir/file", O_CREAT | O_RDWR, 0644, &f) == 0);
	CHECK(vfs_write(f, "hello, model", 12, &pos) == 12);
	CHECK(vfs_stat("/dir/file", &st) == 0 && st.size == 12);
	printf("stat /dir/file: ino %llu size %lld\n", (unsigned long long)st.ino,
	       (long long)st.size);

	/* flock: a second open file description conflicts, as on Linux */
	CHECK(filp_open("/dir/file", O_RDONLY, 0, &g) == 0);
	CHECK(flock_lock_file(f, LOCK_EX, t->tgid, NULL) == 0);
	CHECK(flock_lock_file(g, LOCK_EX | LOCK_NB, t->tgid, NULL) == -EWOULDBLOCK);
	char buf[256];
	locks_format_proc(buf, sizeof(buf));
	printf("locks: %s", buf);
	fput(g);

	/* mm: map the file shared, fork, read it in the child */
	CHECK(exec_mm(t) == 0);
	long a = vm_mmap(t->mm, 0, PAGE_SIZE, PROT_READ, MAP_SHARED, f, 0);
	CHECK(a > 0);
	struct task_struct *c = task_fork(t);
	CHECK(c != NULL);
	char got[13] = {0};
	CHECK(mm_access(c->mm, a, got, 12, false) == 0);
	CHECK(strcmp(got, "hello, model") == 0);
	printf("child reads the mapping: %s\n", got);
	task_exit(c);

	uint64_t faults = 0;
	CHECK(rv_stat_read("minflt", &faults) == 0 && faults >= 1);
	printf("minflt: %llu\n", (unsigned long long)faults);

	fput(f); /* the last reference: __fput drops the flock */
	CHECK(do_unlink("/dir/file") == 0);
	task_exit(t); /* exit_mmap and the files go with the task */
	return 0;
}

int main(void)
{
	struct rv_switches sw;
	char err[128];

	rv_switches_default(&sw);
	if (rv_switch_set(&sw, "fileref", "file-ref", err, sizeof(err)) != 0) {
		fprintf(stderr, "model_tour: %s\n", err);
		return 1;
	}
	if (rv_instance_create(&sw) != 0)
		return 1;
	int r = tour();
	/* 0 only if every object of the instance was freed */
	if (rv_instance_destroy() != 0)
		r = 1;
	printf("model_tour: %s\n", r == 0 ? "ok" : "FAILED");
	return r;
}
