// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/integration/locks_test.c - file locks from real processes, run the
 * same way on a tmpfs and on an rcuvfs mount (tests/integration/filelocks.sh
 * compares the transcripts).
 *
 *   locks_test contend DIR          scenarios with 2 and 3 processes (flock,
 *                                   POSIX, OFD; blocking and not; EDEADLK,
 *                                   EINTR, close of another fd); prints a
 *                                   transcript that must not depend on the
 *                                   filesystem or on timing
 *   locks_test many DIR N flock|ofd N threads blocked on one file while the
 *                                   filesystem keeps answering; then all are
 *                                   granted in turn (mutual exclusion checked)
 *   locks_test race DIR SECS            flock waiters interrupted every ~40 us
 *                                       while the holder's release grants them
 *   locks_test hold FILE                take a flock and a POSIX write lock on
 *                                       the whole file, print "held", sleep
 *   locks_test wait FILE flock|posix    block on the lock; print the outcome;
 *                                       exit 0 when the call failed
 *
 * Ordering between processes uses a step counter in shared memory; "B is
 * blocked" is observed in the lock listing (/proc/locks on tmpfs,
 * DIR/.rcuvfs/locks on rcuvfs: a "->" line for the file's inode), never
 * guessed from a sleep.  Every wait is bounded (a watchdog kills the run).
 * Each process logs into its own buffer; the parent prints A, B, C in turn,
 * so interleaving does not change the transcript.  Locks are released
 * explicitly before close (FUSE releases flock/OFD locks asynchronously).
 *
 * Locking: the shared page is written with atomics; each log buffer by its
 * process only.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tools/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NPROC 3
#define LOGSZ 8192

struct shared {
	int step;
	int pid[NPROC];
	int flag[8];
	int holder;
	int count;
	int bad;
	char log[NPROC][LOGSZ];
	int loglen[NPROC];
};

static struct shared *sh;
static int me; /* 0 = A, 1 = B, 2 = C */
static const char *dir;
static char path[4096];
static ino_t file_ino;

static void die(const char *what)
{
	fprintf(stderr, "locks_test: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void L(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(sh->log[me] + sh->loglen[me], LOGSZ - (size_t)sh->loglen[me], fmt, ap);
	va_end(ap);
	if (n > 0 && sh->loglen[me] + n < LOGSZ - 1) {
		sh->loglen[me] += n;
		sh->log[me][sh->loglen[me]++] = '\n';
	}
}

static const char *ename(int e)
{
	static char buf[32];

	switch (e) {
	case 0:
		return "0";
	case EAGAIN:
		return "EAGAIN"; /* == EWOULDBLOCK */
	case EACCES:
		return "EACCES";
	case EDEADLK:
		return "EDEADLK";
	case EINTR:
		return "EINTR";
	case EBADF:
		return "EBADF";
	case EINVAL:
		return "EINVAL";
	case ENOLCK:
		return "ENOLCK";
	default:
		snprintf(buf, sizeof(buf), "errno%d", e);
		return buf;
	}
}

static void set_step(int n)
{
	__atomic_store_n(&sh->step, n, __ATOMIC_SEQ_CST);
}

static void wait_step(int n)
{
	while (__atomic_load_n(&sh->step, __ATOMIC_SEQ_CST) < n)
		usleep(200);
}

/* Lines of the lock listing that show a waiter on file_ino. */
static int count_blocked(void)
{
	char lp[4200], line[512], key[64];
	FILE *f;
	int n = 0;

	snprintf(lp, sizeof(lp), "%s/.rcuvfs/locks", dir);
	f = fopen(lp, "r");
	if (!f)
		f = fopen("/proc/locks", "r");
	if (!f)
		die("open lock listing");
	snprintf(key, sizeof(key), ":%lu ", (unsigned long)file_ino);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "-> ") && strstr(line, key))
			n++;
	fclose(f);
	return n;
}

static void wait_blocked(int n)
{
	while (count_blocked() < n)
		usleep(500);
}

static const char *who(pid_t pid)
{
	static char buf[32];

	for (int i = 0; i < NPROC; i++)
		if (sh->pid[i] == pid)
			return (const char *[]){"A", "B", "C"}[i];
	if (pid == -1)
		return "-1";
	snprintf(buf, sizeof(buf), "other");
	return buf;
}

static int xopen(int flags)
{
	int fd = open(path, flags);

	if (fd < 0)
		die("open");
	return fd;
}

static int do_flock(int fd, int op)
{
	return flock(fd, op) ? errno : 0;
}

static int do_lk(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};

	return fcntl(fd, cmd, &fl) ? errno : 0;
}

static void log_getlk(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};

	if (fcntl(fd, cmd, &fl)) {
		L("%s %d+%ld -> %s", cmd == F_GETLK ? "GETLK" : "OFD_GETLK", (int)start, (long)len,
		  ename(errno));
		return;
	}
	if (fl.l_type == F_UNLCK)
		L("%s %d+%ld -> UNLCK", cmd == F_GETLK ? "GETLK" : "OFD_GETLK", (int)start,
		  (long)len);
	else
		L("%s %d+%ld -> %s %ld+%ld pid=%s", cmd == F_GETLK ? "GETLK" : "OFD_GETLK",
		  (int)start, (long)len, fl.l_type == F_WRLCK ? "WRLCK" : "RDLCK", (long)fl.l_start,
		  (long)fl.l_len, who(fl.l_pid));
}

/* Critical section check for blocking waiters granted in turn. */
static void enter_excl(void)
{
	int z = 0;

	if (!__atomic_compare_exchange_n(&sh->holder, &z, me + 1, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		__atomic_store_n(&sh->bad, 1, __ATOMIC_SEQ_CST);
	usleep(1000);
	__atomic_store_n(&sh->holder, 0, __ATOMIC_SEQ_CST);
}

/* ---- the scenarios: one function per role ------------------------------- */

typedef void (*role_fn)(void);

/* 1: flock, two processes, non-blocking conflicts */
static void s1_a(void)
{
	int fd = xopen(O_RDWR);

	L("flock EX -> %s", ename(do_flock(fd, LOCK_EX)));
	set_step(1);
	wait_step(2);
	L("flock UN -> %s", ename(do_flock(fd, LOCK_UN)));
	set_step(3);
	wait_step(4);
	close(fd);
}

static void s1_b(void)
{
	int fd;

	wait_step(1);
	fd = xopen(O_RDWR);
	L("flock EX|NB -> %s", ename(do_flock(fd, LOCK_EX | LOCK_NB)));
	L("flock SH|NB -> %s", ename(do_flock(fd, LOCK_SH | LOCK_NB)));
	set_step(2);
	wait_step(3);
	L("flock SH|NB -> %s", ename(do_flock(fd, LOCK_SH | LOCK_NB)));
	L("flock EX|NB -> %s", ename(do_flock(fd, LOCK_EX | LOCK_NB)));
	L("flock UN -> %s", ename(do_flock(fd, LOCK_UN)));
	set_step(4);
	close(fd);
}

/* 2: flock, three processes: two shared holders, a blocked exclusive */
static void s2_a(void)
{
	int fd = xopen(O_RDONLY);

	L("flock SH -> %s", ename(do_flock(fd, LOCK_SH)));
	set_step(1);
	wait_step(3);
	wait_blocked(1);
	__atomic_store_n(&sh->flag[0], 1, __ATOMIC_SEQ_CST);
	L("flock UN -> %s", ename(do_flock(fd, LOCK_UN)));
	wait_step(5);
	close(fd);
}

static void s2_b(void)
{
	int fd;

	wait_step(1);
	fd = xopen(O_RDONLY);
	L("flock SH|NB -> %s", ename(do_flock(fd, LOCK_SH | LOCK_NB)));
	set_step(2);
	wait_step(3);
	wait_blocked(1);
	__atomic_store_n(&sh->flag[1], 1, __ATOMIC_SEQ_CST);
	L("flock UN -> %s", ename(do_flock(fd, LOCK_UN)));
	wait_step(5);
	close(fd);
}

static void s2_c(void)
{
	int fd, e;

	wait_step(2);
	fd = xopen(O_RDWR);
	L("flock EX|NB -> %s", ename(do_flock(fd, LOCK_EX | LOCK_NB)));
	set_step(3);
	e = do_flock(fd, LOCK_EX);
	L("flock EX -> %s after A and B unlocked: %d", ename(e),
	  __atomic_load_n(&sh->flag[0], __ATOMIC_SEQ_CST) &&
	      __atomic_load_n(&sh->flag[1], __ATOMIC_SEQ_CST));
	/* a conversion to shared keeps the lock; the others may share it */
	L("flock SH -> %s", ename(do_flock(fd, LOCK_SH)));
	L("flock UN -> %s", ename(do_flock(fd, LOCK_UN)));
	set_step(5);
	close(fd);
}

/* 3: flock conversions: a refused EX|NB conversion drops the SH lock */
static void s3_a(void)
{
	int fd = xopen(O_RDWR);

	L("flock SH -> %s", ename(do_flock(fd, LOCK_SH)));
	set_step(1);
	wait_step(2);
	L("flock EX|NB -> %s", ename(do_flock(fd, LOCK_EX | LOCK_NB)));
	set_step(3);
	wait_step(5);
	L("flock SH|NB -> %s", ename(do_flock(fd, LOCK_SH | LOCK_NB)));
	L("flock UN -> %s", ename(do_flock(fd, LOCK_UN)));
	set_step(6);
	close(fd);
}

static void s3_b(void)
{
	int fd;

	wait_step(1);
	fd = xopen(O_RDWR);
	L("flock SH|NB -> %s", ename(do_flock(fd, LOCK_SH | LOCK_NB)));
	set_step(2);
	wait_step(3);
	L("flock EX|NB -> %s", ename(do_flock(fd, LOCK_EX | LOCK_NB)));
	set_step(4);
	wait_step(6);
	L("flock UN -> %s", ename(do_flock(fd, LOCK_UN)));
	close(fd);
}

static void s3_c(void)
{
	int fd;

	wait_step(4);
	fd = xopen(O_RDWR);
	L("flock SH|NB -> %s", ename(do_flock(fd, LOCK_SH | LOCK_NB)));
	set_step(5);
	close(fd);
}

/* 4: POSIX ranges, GETLK, split, upgrade blocked by a reader */
static void s4_a(void)
{
	int fd = xopen(O_RDWR), e;

	L("SETLK W 0+10 -> %s", ename(do_lk(fd, F_SETLK, F_WRLCK, 0, 10)));
	L("SETLK R 20+10 -> %s", ename(do_lk(fd, F_SETLK, F_RDLCK, 20, 10)));
	set_step(1);
	wait_step(2);
	L("SETLK W 40+20 -> %s", ename(do_lk(fd, F_SETLK, F_WRLCK, 40, 20)));
	L("SETLK U 45+5 -> %s", ename(do_lk(fd, F_SETLK, F_UNLCK, 45, 5)));
	set_step(3);
	wait_step(4);
	e = do_lk(fd, F_SETLKW, F_WRLCK, 20, 10);
	L("SETLKW W 20+10 -> %s after B unlocked: %d", ename(e),
	  __atomic_load_n(&sh->flag[1], __ATOMIC_SEQ_CST));
	set_step(5);
	wait_step(6);
	L("SETLK U 0+0 -> %s", ename(do_lk(fd, F_SETLK, F_UNLCK, 0, 0)));
	set_step(7);
	wait_step(8);
	close(fd);
}

static void s4_b(void)
{
	int fd;

	wait_step(1);
	fd = xopen(O_RDWR);
	L("SETLK W 5+5 -> %s", ename(do_lk(fd, F_SETLK, F_WRLCK, 5, 5)));
	L("SETLK R 25+1 -> %s", ename(do_lk(fd, F_SETLK, F_RDLCK, 25, 1)));
	L("SETLK W 10+10 -> %s", ename(do_lk(fd, F_SETLK, F_WRLCK, 10, 10)));
	log_getlk(fd, F_GETLK, F_WRLCK, 0, 1);
	log_getlk(fd, F_GETLK, F_WRLCK, 22, 2);
	log_getlk(fd, F_GETLK, F_RDLCK, 0, 5);
	log_getlk(fd, F_GETLK, F_RDLCK, 20, 10);
	log_getlk(fd, F_GETLK, F_WRLCK, 12, 3);
	set_step(2);
	wait_step(3);
	log_getlk(fd, F_GETLK, F_WRLCK, 40, 1);
	log_getlk(fd, F_GETLK, F_WRLCK, 45, 5);
	log_getlk(fd, F_GETLK, F_WRLCK, 48, 10);
	log_getlk(fd, F_GETLK, F_RDLCK, 59, 100);
	log_getlk(fd, F_GETLK, F_WRLCK, 60, 0);
	set_step(4);
	wait_blocked(1);
	__atomic_store_n(&sh->flag[1], 1, __ATOMIC_SEQ_CST);
	L("SETLK U 25+1 -> %s", ename(do_lk(fd, F_SETLK, F_UNLCK, 25, 1)));
	wait_step(5);
	log_getlk(fd, F_GETLK, F_RDLCK, 25, 1);
	L("SETLK R 25+1 -> %s", ename(do_lk(fd, F_SETLK, F_RDLCK, 25, 1)));
	set_step(6);
	wait_step(7);
	L("SETLK W 0+0 -> %s", ename(do_lk(fd, F_SETLK, F_WRLCK, 0, 0)));
	L("SETLK U 0+0 -> %s", ename(do_lk(fd, F_SETLK, F_UNLCK, 0, 0)));
	set_step(8);
	close(fd);
}

/* 5: the classic deadlock: A waits for B, B asks for A's range */
static void s5_a(void)
{
	int fd = xopen(O_RDWR), e;

	L("SETLK W 0+1 -> %s", ename(do_lk(fd, F_SETLK, F_WRLCK, 0, 1)));
	set_step(1);
	wait_step(2);
	e = do_lk(fd, F_SETLKW, F_WRLCK, 1, 1);
	L("SETLKW W 1+1 -> %s", ename(e));
	set_step(4);
	L("SETLK U 0+0 -> %s", ename(do_lk(fd, F_SETLK, F_UNLCK, 0, 0)));
	close(fd);
}

static void s5_b(void)
{
	int fd;

	wait_step(1);
	fd = xopen(O_RDWR);
	L("SETLK W 1+1 -> %s", ename(do_lk(fd, F_SETLK, F_WRLCK, 1, 1)));
	set_step(2);
	wait_blocked(1);
	L("SETLKW W 0+1 -> %s", ename(do_lk(fd, F_SETLKW, F_WRLCK, 0, 1)));
	L("SETLK U 1+1 -> %s", ename(do_lk(fd, F_SETLK, F_UNLCK, 1, 1)));
	wait_step(4);
	close(fd);
}

/* 6: POSIX, three processes: two writers blocked behind a third */
static void s6_a(void)
{
	int fd = xopen(O_RDWR);

	L("SETLK W 0+0 -> %s", ename(do_lk(fd, F_SETLK, F_WRLCK, 0, 0)));
	set_step(1);
	wait_blocked(2);
	__atomic_store_n(&sh->flag[0], 1, __ATOMIC_SEQ_CST);
	L("SETLK U 0+0 -> %s", ename(do_lk(fd, F_SETLK, F_UNLCK, 0, 0)));
	wait_step(3);
	close(fd);
}

static void s6_w(off_t start)
{
	int fd, e;

	wait_step(1);
	fd = xopen(O_RDWR);
	L("SETLK W %ld+10 -> %s", (long)start, ename(do_lk(fd, F_SETLK, F_WRLCK, start, 10)));
	e = do_lk(fd, F_SETLKW, F_WRLCK, start, 10);
	enter_excl();
	L("SETLKW W %ld+10 -> %s after A unlocked: %d", (long)start, ename(e),
	  __atomic_load_n(&sh->flag[0], __ATOMIC_SEQ_CST));
	L("SETLK U 0+0 -> %s", ename(do_lk(fd, F_SETLK, F_UNLCK, 0, 0)));
	__atomic_fetch_add(&sh->step, 1, __ATOMIC_SEQ_CST);
	close(fd);
}

static void s6_b(void)
{
	s6_w(0);
}

static void s6_c(void)
{
	s6_w(5);
}

/* 7: OFD locks: per open file, even inside one process */
static void s7_a(void)
{
	int fd1 = xopen(O_RDWR), fd2 = xopen(O_RDWR);

	L("OFD_SETLK W 0+10 fd1 -> %s", ename(do_lk(fd1, F_OFD_SETLK, F_WRLCK, 0, 10)));
	L("OFD_SETLK W 5+1 fd2 -> %s", ename(do_lk(fd2, F_OFD_SETLK, F_WRLCK, 5, 1)));
	L("SETLK W 5+1 fd2 -> %s", ename(do_lk(fd2, F_SETLK, F_WRLCK, 5, 1)));
	log_getlk(fd2, F_OFD_GETLK, F_RDLCK, 0, 1);
	log_getlk(fd1, F_OFD_GETLK, F_RDLCK, 0, 1);
	L("OFD_SETLK R 20+5 fd2 -> %s", ename(do_lk(fd2, F_OFD_SETLK, F_RDLCK, 20, 5)));
	set_step(1);
	wait_blocked(1);
	__atomic_store_n(&sh->flag[0], 1, __ATOMIC_SEQ_CST);
	L("OFD_SETLK U 0+0 fd1 -> %s", ename(do_lk(fd1, F_OFD_SETLK, F_UNLCK, 0, 0)));
	wait_step(2);
	L("OFD_SETLK U 0+0 fd2 -> %s", ename(do_lk(fd2, F_OFD_SETLK, F_UNLCK, 0, 0)));
	close(fd1);
	close(fd2);
	set_step(3);
}

static void s7_b(void)
{
	int fd, e;

	wait_step(1);
	fd = xopen(O_RDWR);
	L("OFD_SETLK R 22+1 -> %s", ename(do_lk(fd, F_OFD_SETLK, F_RDLCK, 22, 1)));
	L("OFD_SETLK W 22+1 -> %s", ename(do_lk(fd, F_OFD_SETLK, F_WRLCK, 22, 1)));
	e = do_lk(fd, F_OFD_SETLKW, F_WRLCK, 0, 10);
	L("OFD_SETLKW W 0+10 -> %s after A unlocked: %d", ename(e),
	  __atomic_load_n(&sh->flag[0], __ATOMIC_SEQ_CST));
	L("OFD_SETLK U 0+0 -> %s", ename(do_lk(fd, F_OFD_SETLK, F_UNLCK, 0, 0)));
	set_step(2);
	wait_step(3);
	close(fd);
}

/* 8: closing any fd drops the process's POSIX locks (not flock locks) */
static void s8_a(void)
{
	int fd1 = xopen(O_RDWR), fd2 = xopen(O_RDONLY);

	L("SETLK W 0+0 fd1 -> %s", ename(do_lk(fd1, F_SETLK, F_WRLCK, 0, 0)));
	L("flock EX fd1 -> %s", ename(do_flock(fd1, LOCK_EX)));
	set_step(1);
	wait_step(2);
	close(fd2);
	set_step(3);
	wait_step(4);
	L("flock UN fd1 -> %s", ename(do_flock(fd1, LOCK_UN)));
	close(fd1);
}

static void s8_b(void)
{
	int fd;

	wait_step(1);
	fd = xopen(O_RDWR);
	L("SETLK W 0+0 -> %s", ename(do_lk(fd, F_SETLK, F_WRLCK, 0, 0)));
	set_step(2);
	wait_step(3);
	/* immediately after A's close(fd2) returned */
	L("SETLK W 0+0 -> %s", ename(do_lk(fd, F_SETLK, F_WRLCK, 0, 0)));
	L("flock EX|NB -> %s", ename(do_flock(fd, LOCK_EX | LOCK_NB)));
	L("SETLK U 0+0 -> %s", ename(do_lk(fd, F_SETLK, F_UNLCK, 0, 0)));
	set_step(4);
	close(fd);
}

/* 9: a blocked F_SETLKW and a blocked flock interrupted by a signal */
static void on_usr1(int sig)
{
	(void)sig;
}

static void s9_a(void)
{
	int fd = xopen(O_RDWR);

	L("SETLK W 0+0 -> %s", ename(do_lk(fd, F_SETLK, F_WRLCK, 0, 0)));
	L("flock EX -> %s", ename(do_flock(fd, LOCK_EX)));
	set_step(1);
	wait_step(2);
	L("flock UN -> %s", ename(do_flock(fd, LOCK_UN)));
	L("SETLK U 0+0 -> %s", ename(do_lk(fd, F_SETLK, F_UNLCK, 0, 0)));
	set_step(3);
	wait_step(4);
	close(fd);
}

static void s9_b(void)
{
	struct sigaction sa;
	struct sigevent sev;
	struct itimerspec its;
	timer_t t;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1; /* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGUSR1;
	if (timer_create(CLOCK_MONOTONIC, &sev, &t))
		die("timer_create");
	wait_step(1);
	fd = xopen(O_RDWR);
	/* a tick every 50 ms: one of them lands while the call is blocked */
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = 50000000;
	its.it_interval.tv_nsec = 50000000;
	timer_settime(t, 0, &its, NULL);
	L("SETLKW W 0+0 -> %s", ename(do_lk(fd, F_SETLKW, F_WRLCK, 0, 0)));
	L("flock EX -> %s", ename(do_flock(fd, LOCK_EX)));
	memset(&its, 0, sizeof(its));
	timer_settime(t, 0, &its, NULL);
	timer_delete(t);
	L("blocked after the interrupts: %d", count_blocked());
	set_step(2);
	wait_step(3);
	/* the interrupted waiters are gone: nothing stands in the way */
	L("SETLK W 0+0 -> %s", ename(do_lk(fd, F_SETLK, F_WRLCK, 0, 0)));
	L("flock EX|NB -> %s", ename(do_flock(fd, LOCK_EX | LOCK_NB)));
	L("flock UN -> %s", ename(do_flock(fd, LOCK_UN)));
	L("SETLK U 0+0 -> %s", ename(do_lk(fd, F_SETLK, F_UNLCK, 0, 0)));
	set_step(4);
	close(fd);
}

struct scenario {
	const char *name;
	role_fn role[NPROC];
};

static const struct scenario scenarios[] = {
    {"flock-nonblocking-2", {s1_a, s1_b, NULL}},
    {"flock-blocking-3", {s2_a, s2_b, s2_c}},
    {"flock-conversion-3", {s3_a, s3_b, s3_c}},
    {"posix-ranges-2", {s4_a, s4_b, NULL}},
    {"posix-deadlock-2", {s5_a, s5_b, NULL}},
    {"posix-blocking-3", {s6_a, s6_b, s6_c}},
    {"ofd-2", {s7_a, s7_b, NULL}},
    {"close-drops-posix-2", {s8_a, s8_b, NULL}},
    {"interrupted-2", {s9_a, s9_b, NULL}},
};

static int run_scenario(const struct scenario *s)
{
	pid_t pids[NPROC] = {0};
	struct stat st;
	int status, fd, failed = 0, n = 0;
	time_t deadline;

	memset(sh, 0, sizeof(*sh));
	snprintf(path, sizeof(path), "%s/lk.%s", dir, s->name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || fstat(fd, &st))
		die("create");
	close(fd);
	file_ino = st.st_ino;
	for (int i = 0; i < NPROC; i++) {
		if (!s->role[i])
			continue;
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (pids[i] == 0) {
			me = i;
			s->role[i]();
			_exit(0);
		}
		sh->pid[i] = pids[i];
		n++;
	}
	/* bounded: a hang is a failure, not a stuck test */
	deadline = time(NULL) + 120;
	while (n > 0) {
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p > 0) {
			n--;
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				failed = 1;
			continue;
		}
		if (time(NULL) > deadline) {
			printf("== %s: TIMEOUT at step %d\n", s->name, sh->step);
			for (int i = 0; i < NPROC; i++)
				if (pids[i])
					kill(pids[i], SIGKILL);
			while (wait(NULL) > 0)
				;
			failed = 1;
			break;
		}
		usleep(1000);
	}
	printf("== %s\n", s->name);
	for (int i = 0; i < NPROC; i++) {
		if (!s->role[i])
			continue;
		sh->log[i][sh->loglen[i]] = '\0';
		char *save, *line = strtok_r(sh->log[i], "\n", &save);

		for (; line; line = strtok_r(NULL, "\n", &save))
			printf("%c: %s\n", 'A' + i, line);
	}
	if (sh->bad)
		printf("%s: mutual exclusion violated\n", s->name);
	unlink(path);
	return failed || sh->bad;
}

static int cmd_contend(int argc, char **argv)
{
	int failed = 0;

	dir = argv[2];
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		if (argc > 3 && strcmp(argv[3], scenarios[i].name))
			continue;
		failed |= run_scenario(&scenarios[i]);
		fflush(stdout);
	}
	return failed;
}

/* ---- many waiters ----------------------------------------------------------- */

static int many_ofd;
static int many_started, many_done, many_holder, many_bad;

static int lock_fd(int fd, bool nb)
{
	if (many_ofd) {
		struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};

		return fcntl(fd, nb ? F_OFD_SETLK : F_OFD_SETLKW, &fl) ? errno : 0;
	}
	return flock(fd, LOCK_EX | (nb ? LOCK_NB : 0)) ? errno : 0;
}

static int unlock_fd(int fd)
{
	if (many_ofd) {
		struct flock fl = {.l_type = F_UNLCK, .l_whence = SEEK_SET};

		return fcntl(fd, F_OFD_SETLK, &fl) ? errno : 0;
	}
	return flock(fd, LOCK_UN) ? errno : 0;
}

static void *many_thread(void *arg)
{
	int fd = open(path, O_RDWR), e, z = 0;

	(void)arg;
	if (fd < 0)
		die("open");
	__atomic_fetch_add(&many_started, 1, __ATOMIC_SEQ_CST);
	e = lock_fd(fd, false);
	if (e) {
		fprintf(stderr, "locks_test: blocking lock: %s\n", ename(e));
		__atomic_store_n(&many_bad, 1, __ATOMIC_SEQ_CST);
	} else {
		if (!__atomic_compare_exchange_n(&many_holder, &z, 1, false, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			__atomic_store_n(&many_bad, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&many_holder, 0, __ATOMIC_SEQ_CST);
		if (unlock_fd(fd))
			__atomic_store_n(&many_bad, 1, __ATOMIC_SEQ_CST);
	}
	__atomic_fetch_add(&many_done, 1, __ATOMIC_SEQ_CST);
	close(fd);
	return NULL;
}

/*
 * Other requests while every worker would be parked if waits parked them:
 * NULL when all succeed, else the first that failed (the test fails).
 */
static const char *many_side_requests(void)
{
	char p2[4200], buf[64];
	struct stat st;
	const char *bad = NULL;
	int fd;

	snprintf(p2, sizeof(p2), "%s/lk.side", dir);
	fd = open(p2, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return "create";
	if (write(fd, "side", 4) != 4)
		bad = "write";
	else if (pread(fd, buf, 4, 0) != 4 || memcmp(buf, "side", 4))
		bad = "read";
	else if (fstat(fd, &st) || stat(dir, &st))
		bad = "stat";
	/* a lock on another file is granted at once */
	else if (flock(fd, LOCK_EX | LOCK_NB) || flock(fd, LOCK_UN))
		bad = "flock on another file";
	close(fd);
	if (!bad && unlink(p2))
		bad = "unlink";
	return bad;
}

static int cmd_many(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t *th;
	int n, fd, i, rounds = 0;
	const char *side_bad;
	struct stat st;

	if (argc < 5)
		return 2;
	dir = argv[2];
	n = atoi(argv[3]);
	many_ofd = !strcmp(argv[4], "ofd");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	alarm(300); /* watchdog: a hang is a failure */
	snprintf(path, sizeof(path), "%s/lk.many", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || fstat(fd, &st))
		die("create");
	file_ino = st.st_ino;
	if (lock_fd(fd, true))
		die("first lock");
	th = calloc((size_t)n, sizeof(*th));
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], &attr, many_thread, NULL))
			die("pthread_create");
	/* all N queued behind the holder (the listing shows each waiter) */
	while (count_blocked() < n) {
		if (++rounds % 200 == 0)
			fprintf(stderr, "locks_test: %d of %d blocked so far\n", count_blocked(),
				n);
		usleep(5000);
	}
	printf("blocked: %d\n", count_blocked());
	side_bad = many_side_requests();
	printf("side requests while blocked: %s%s\n", side_bad ? "FAILED: " : "ok",
	       side_bad ? side_bad : "");
	if (unlock_fd(fd))
		die("unlock");
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	close(fd);
	printf("granted in turn: %d of %d, exclusive: %s\n", many_done, n, many_bad ? "NO" : "yes");
	printf("blocked after: %d\n", count_blocked());
	unlink(path);
	free(th);
	return many_done == n && !many_bad && !side_bad ? 0 : 1;
}

/* ---- grant vs interrupt race -------------------------------------------- */

static void on_tick(int sig)
{
	(void)sig;
}

/*
 * Three waiters block on a flock, interrupted every ~30-44 us (handler
 * without SA_RESTART: each interrupt ends one request with EINTR and the
 * waiter asks again), while the parent takes the lock and drops it by
 * closing its fd: the release grants a waiter whose interrupt may be in
 * flight.  Passes when it neither hangs (bounded by the caller) nor errs.
 */
static int cmd_race(char **argv)
{
	int secs = atoi(argv[3]), nw = 3, fd, st, failed = 0;
	long iters = 0;
	pid_t kids[3];
	time_t end;

	dir = argv[2];
	snprintf(path, sizeof(path), "%s/lk.race", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("create");
	close(fd);
	for (int k = 0; k < nw; k++) {
		kids[k] = fork();
		if (kids[k] < 0)
			die("fork");
		if (kids[k] == 0) {
			struct sigaction sa;
			struct sigevent sev;
			struct itimerspec its;
			timer_t t;

			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = on_tick;
			sigaction(SIGUSR1, &sa, NULL);
			memset(&sev, 0, sizeof(sev));
			sev.sigev_notify = SIGEV_SIGNAL;
			sev.sigev_signo = SIGUSR1;
			if (timer_create(CLOCK_MONOTONIC, &sev, &t))
				die("timer_create");
			memset(&its, 0, sizeof(its));
			its.it_value.tv_nsec = 30000 + k * 7000;
			its.it_interval.tv_nsec = 30000 + k * 7000;
			timer_settime(t, 0, &its, NULL);
			fd = xopen(O_RDWR);
			for (;;) {
				if (flock(fd, LOCK_EX)) {
					if (errno != EINTR)
						die("flock");
					continue;
				}
				while (flock(fd, LOCK_UN) && errno == EINTR)
					;
			}
		}
	}
	end = time(NULL) + secs;
	while (time(NULL) < end) {
		fd = xopen(O_RDWR);
		while (flock(fd, LOCK_EX)) {
			if (errno != EINTR)
				die("flock");
		}
		usleep(50);
		close(fd); /* the lock goes with the release: the grant runs there */
		iters++;
	}
	for (int k = 0; k < nw; k++) {
		kill(kids[k], SIGKILL);
		if (waitpid(kids[k], &st, 0) < 0 || !WIFSIGNALED(st))
			failed = 1;
	}
	unlink(path);
	printf("race: %ld lock/close rounds against interrupted waiters\n", iters);
	return failed;
}

/* ---- hold / wait (unmount with waiters) --------------------------------- */

static int take(int fd, const char *mode, bool block)
{
	if (!strcmp(mode, "flock"))
		return flock(fd, LOCK_EX | (block ? 0 : LOCK_NB)) ? errno : 0;
	return do_lk(fd, block ? F_SETLKW : F_SETLK, F_WRLCK, 0, 0);
}

static int cmd_hold(char **argv)
{
	int fd = open(argv[2], O_RDWR | O_CREAT, 0644), e;

	if (fd < 0)
		die("open");
	/* both kinds, so that waiters of either kind block behind us */
	e = take(fd, "flock", false);
	if (!e)
		e = take(fd, "posix", false);
	printf("%s\n", e ? ename(e) : "held");
	fflush(stdout);
	if (e)
		return 1;
	for (;;)
		pause();
}

static int cmd_wait(char **argv)
{
	int fd = open(argv[2], O_RDWR), e;

	if (fd < 0) {
		printf("open: %s\n", strerror(errno));
		return 0;
	}
	e = take(fd, argv[3], true);
	printf("%s\n", e ? ename(e) : "granted");
	return e ? 0 : 1;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: rcuvfs-locks-test contend DIR [SCENARIO] | many DIR N flock|ofd |\n"
		"       hold FILE | wait FILE flock|posix | race DIR SECS\n"
		"File-lock checks through a mount (tests/integration/filelocks.sh runs them).\n"
		"  -V, --version  version and git commit\n"
		"  -h, --help     this text\n");
}

int main(int argc, char **argv)
{
	RV_CLI_OPERANDS(argc, argv, "rcuvfs-locks-test", usage);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "contend")) {
		sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
			  0);
		if (sh == MAP_FAILED)
			die("mmap");
		return cmd_contend(argc, argv);
	}
	if (argc >= 5 && !strcmp(argv[1], "many"))
		return cmd_many(argc, argv);
	if (argc >= 4 && !strcmp(argv[1], "race"))
		return cmd_race(argv);
	if (argc >= 3 && !strcmp(argv[1], "hold"))
		return cmd_hold(argv);
	if (argc >= 4 && !strcmp(argv[1], "wait"))
		return cmd_wait(argv);
	fprintf(stderr,
		"usage: %s contend DIR [SCENARIO] | many DIR N flock|ofd | hold FILE |"
		" wait FILE flock|posix | race DIR SECS\n",
		argv[0]);
	return 2;
}
