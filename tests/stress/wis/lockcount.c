// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/stress/wis/lockcount.c - an LD_PRELOAD library for the will-it-scale
 * compatibility test (wis-compat.sh): it counts, from outside rcuvfs-stress,
 * the lock system calls a workload makes and the byte ranges it locks.
 *
 * fcntl/fcntl64 with F_SETLK, F_SETLKW, F_OFD_SETLK or F_OFD_SETLKW and
 * flock are counted, then passed on to libc.  A range is "byte 0" when
 * l_whence is SEEK_SET, l_start 0 and l_len 1, as will-it-scale's lock1 and
 * lock2 lock it.  At exit the counts are appended, as one line, to the file
 * named by $RCUVFS_LOCKCOUNT_OUT:
 *     fcntl_locks N byte0 N other_ranges N flocks N
 * Counters are atomics (the workload's threads call in parallel).  Only the
 * process that exits normally writes (threads mode: one process).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

static unsigned long n_fcntl, n_byte0, n_other, n_flock;

static void count_fcntl(int cmd, const struct flock *fl)
{
	if (cmd != F_SETLK && cmd != F_SETLKW && cmd != F_OFD_SETLK && cmd != F_OFD_SETLKW)
		return;
	__atomic_fetch_add(&n_fcntl, 1, __ATOMIC_RELAXED);
	if (fl && fl->l_whence == SEEK_SET && fl->l_start == 0 && fl->l_len == 1)
		__atomic_fetch_add(&n_byte0, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&n_other, 1, __ATOMIC_RELAXED);
}

static int call_fcntl(const char *sym, int fd, int cmd, void *arg)
{
	int (*real)(int, int, ...) = (int (*)(int, int, ...))dlsym(RTLD_NEXT, sym);

	if (!real)
		real = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl");
	count_fcntl(cmd, arg);
	return real(fd, cmd, arg);
}

int fcntl(int fd, int cmd, ...);
int fcntl64(int fd, int cmd, ...);

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return call_fcntl("fcntl", fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return call_fcntl("fcntl64", fd, cmd, arg);
}

int flock(int fd, int op)
{
	int (*real)(int, int) = (int (*)(int, int))dlsym(RTLD_NEXT, "flock");

	__atomic_fetch_add(&n_flock, 1, __ATOMIC_RELAXED);
	return real(fd, op);
}

__attribute__((destructor)) static void lockcount_report(void)
{
	const char *out = getenv("RCUVFS_LOCKCOUNT_OUT");
	FILE *f;

	if (!out || !(f = fopen(out, "a")))
		return;
	fprintf(f, "fcntl_locks %lu byte0 %lu other_ranges %lu flocks %lu\n", n_fcntl, n_byte0,
		n_other, n_flock);
	fclose(f);
}
