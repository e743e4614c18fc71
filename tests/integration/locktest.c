// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/integration/locktest.c - file locks from real processes, run on an
 * rcuvfs mount and on a tmpfs; the harness compares the outputs.
 *
 *   rcuvfs-locktest DIR contend      flock and fcntl between 2 and 3
 *                                    processes, blocking and not; F_GETLK;
 *                                    EDEADLK; EINTR on a signal; close drops
 *                                    POSIX locks; OFD locks
 *   rcuvfs-locktest DIR many N LOCKS N threads blocked on one file (flock,
 *                                    then OFD); LOCKS is the listing to
 *                                    watch (/proc/locks or DIR/.rcuvfs/locks)
 *                                    until all are queued; stat must keep
 *                                    answering meanwhile
 *   rcuvfs-locktest DIR hold         block on a lock held by a child and
 *                                    print the error the wait ends with (the
 *                                    harness unmounts meanwhile)
 *
 * Ordering between processes uses pipes; "is blocked" is observed as the
 * waiter sleeping (/proc/PID/stat state S) after it announced the call, so
 * outcomes never depend on timing.  Every wait is bounded.
 *
 * Locking: processes and threads synchronise through pipes and the locks
 * under test only.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *errname(int err)
{
	const char *n = err ? strerrorname_np(err) : "ok";

	return n ? n : "E?";
}

static void die(const char *what)
{
	fprintf(stderr, "locktest: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void msleep(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* Wait (bounded, 20 s) until pid sleeps in the kernel. */
static void wait_sleeping(pid_t pid)
{
	char path[64], buf[256], *p;
	int i, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 4000; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == 'S')
				return;
		}
		msleep(5);
	}
	fprintf(stderr, "locktest: pid %d never slept\n", pid);
}

/* ---- a tiny process protocol: the parent sends a command, the child acts -- */

struct child {
	pid_t pid;
	int cmd;  /* parent -> child */
	int resp; /* child -> parent */
};

static void on_usr1(int sig)
{
	(void)sig;
}

typedef void (*child_fn)(int cmdfd, int respfd, const char *path);

static struct child spawn(child_fn fn, const char *path)
{
	int c[2], r[2];
	struct child ch;

	if (pipe(c) || pipe(r))
		die("pipe");
	fflush(stdout);
	ch.pid = fork();
	if (ch.pid < 0)
		die("fork");
	if (ch.pid == 0) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1; /* no SA_RESTART: blocked calls return EINTR */
		sigaction(SIGUSR1, &sa, NULL);
		close(c[1]);
		close(r[0]);
		fn(c[0], r[1], path);
		_exit(0);
	}
	close(c[0]);
	close(r[1]);
	ch.cmd = c[1];
	ch.resp = r[0];
	return ch;
}

static void send_cmd(struct child *ch, const char *cmd)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%-63s", cmd);
	if (write(ch->cmd, buf, 64) != 64)
		die("send");
}

/* The child's answer line (bounded by the child's own bounded waits). */
static const char *recv_resp(struct child *ch)
{
	static char buf[128];
	size_t got = 0;
	ssize_t n;

	while (got < 64) {
		n = read(ch->resp, buf + got, 64 - got);
		if (n <= 0)
			return "(child died)";
		got += (size_t)n;
	}
	buf[64] = '\0';
	for (n = 63; n >= 0 && buf[n] == ' '; n--)
		buf[n] = '\0';
	return buf;
}

static void child_reply(int respfd, const char *fmt, const char *a)
{
	char buf[64], out[130];

	snprintf(buf, sizeof(buf), fmt, a);
	snprintf(out, sizeof(out), "%-64.63s", buf);
	if (write(respfd, out, 64) != 64)
		_exit(3);
}

static void finish(struct child *ch)
{
	int st;

	send_cmd(ch, "exit");
	close(ch->cmd);
	close(ch->resp);
	waitpid(ch->pid, &st, 0);
}

/*
 * The child interpreter: commands are "<op> <arg...>":
 *   open PATH            (re)open its fd (O_RDWR)
 *   open2                a second fd on the same file
 *   close2               close the second fd
 *   flock sh|ex|un [nb]
 *   set r|w|u START LEN [wait]   fcntl F_SETLK / F_SETLKW
 *   ofd r|w|u START LEN [wait]   F_OFD_SETLK(W) on the second fd
 *   get w START LEN              F_GETLK: prints type, start, len, pid==peer
 * Blocking commands answer "go" first (so the parent can wait until the
 * child sleeps) and the result after.
 */
static void interp(int cmdfd, int respfd, const char *path)
{
	char buf[65], op[16], a1[16], a2[16];
	long s, l;
	int fd = open(path, O_RDWR), fd2 = -1, r, n, wait;
	struct flock fl;

	if (fd < 0)
		_exit(2);
	for (;;) {
		if (read(cmdfd, buf, 64) != 64)
			_exit(0);
		buf[64] = '\0';
		op[0] = a1[0] = a2[0] = '\0';
		s = l = 0;
		n = sscanf(buf, "%15s %15s %ld %ld %15s", op, a1, &s, &l, a2);
		if (!strcmp(op, "exit"))
			_exit(0);
		if (!strcmp(op, "open2")) {
			fd2 = open(path, O_RDWR);
			child_reply(respfd, "%s", fd2 < 0 ? errname(errno) : "ok");
			continue;
		}
		if (!strcmp(op, "close2")) {
			r = close(fd2);
			fd2 = -1;
			child_reply(respfd, "%s", r ? errname(errno) : "ok");
			continue;
		}
		if (!strcmp(op, "flock")) {
			int how = !strcmp(a1, "sh")   ? LOCK_SH
				  : !strcmp(a1, "ex") ? LOCK_EX
						      : LOCK_UN;

			/* sscanf put "nb" (if any) into the %ld slot's failure: re-check */
			wait = !strstr(buf, " nb") && how != LOCK_UN;
			if (!wait && how != LOCK_UN)
				how |= LOCK_NB;
			if (wait)
				child_reply(respfd, "%s", "go");
			r = flock(fd, how);
			child_reply(respfd, "%s", r ? errname(errno) : "ok");
			continue;
		}
		if (!strcmp(op, "set") || !strcmp(op, "ofd") || !strcmp(op, "get")) {
			bool ofd = !strcmp(op, "ofd");
			int cmd;

			memset(&fl, 0, sizeof(fl));
			fl.l_type = a1[0] == 'r' ? F_RDLCK : a1[0] == 'w' ? F_WRLCK : F_UNLCK;
			fl.l_whence = SEEK_SET;
			fl.l_start = s;
			fl.l_len = l;
			wait = n >= 5 && !strcmp(a2, "wait");
			if (!strcmp(op, "get")) {
				r = fcntl(fd, F_GETLK, &fl);
				if (r) {
					child_reply(respfd, "%s", errname(errno));
				} else {
					char out[64];

					snprintf(out, sizeof(out),
						 "type %s start %ld len %ld pid_is_peer %d",
						 fl.l_type == F_UNLCK	? "unlck"
						 : fl.l_type == F_WRLCK ? "wrlck"
									: "rdlck",
						 (long)fl.l_start, (long)fl.l_len,
						 fl.l_pid == getppid() ? 0 : fl.l_pid > 0);
					child_reply(respfd, "%s", out);
				}
				continue;
			}
			cmd =
			    ofd ? (wait ? F_OFD_SETLKW : F_OFD_SETLK) : (wait ? F_SETLKW : F_SETLK);
			if (wait)
				child_reply(respfd, "%s", "go");
			r = fcntl(ofd ? fd2 : fd, cmd, &fl);
			child_reply(respfd, "%s", r ? errname(errno) : "ok");
			continue;
		}
		child_reply(respfd, "bad command %s", op);
	}
}

/* Run a command in ch and print its answer under a label. */
static void step(const char *label, struct child *ch, const char *cmd)
{
	const char *r;

	send_cmd(ch, cmd);
	r = recv_resp(ch);
	if (!strcmp(r, "go")) /* a blocking call that should not block */
		r = recv_resp(ch);
	printf("%s: %s\n", label, r);
}

/* A blocking command: wait for "go", then until it sleeps. */
static void start_blocking(struct child *ch, const char *cmd)
{
	send_cmd(ch, cmd);
	if (strcmp(recv_resp(ch), "go"))
		printf("unexpected: no go\n");
	wait_sleeping(ch->pid);
}

static void end_blocking(const char *label, struct child *ch)
{
	printf("%s: %s\n", label, recv_resp(ch));
}

static void contend(const char *dir)
{
	char path[4096];
	struct child a, b, c;
	int fd;

	snprintf(path, sizeof(path), "%s/lockfile", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 100))
		die(path);
	close(fd);
	a = spawn(interp, path);
	b = spawn(interp, path);
	c = spawn(interp, path);

	/* flock, non-blocking */
	step("flock.a_sh", &a, "flock sh");
	step("flock.b_sh_nb", &b, "flock sh 0 0 nb");
	step("flock.c_ex_nb", &c, "flock ex 0 0 nb");
	step("flock.b_un", &b, "flock un");
	/* flock, blocking: c waits for a, then b waits for c */
	start_blocking(&c, "flock ex");
	step("flock.b_sh_nb_while_c_waits", &b, "flock sh 0 0 nb");
	step("flock.b_un2", &b, "flock un");
	step("flock.a_un", &a, "flock un");
	end_blocking("flock.c_granted", &c);
	start_blocking(&a, "flock sh");
	start_blocking(&b, "flock ex");
	step("flock.c_un", &c, "flock un");
	end_blocking("flock.a_granted", &a);
	step("flock.a_un2", &a, "flock un");
	end_blocking("flock.b_granted", &b);
	step("flock.b_un3", &b, "flock un");
	/* flock upgrade/downgrade */
	step("flock.a_sh2", &a, "flock sh");
	step("flock.a_upgrade", &a, "flock ex 0 0 nb");
	step("flock.b_sh_nb_after_upgrade", &b, "flock sh 0 0 nb");
	step("flock.a_downgrade", &a, "flock sh 0 0 nb");
	step("flock.b_sh_nb_after_downgrade", &b, "flock sh 0 0 nb");
	step("flock.a_un3", &a, "flock un");
	step("flock.b_un4", &b, "flock un");

	/* POSIX, non-blocking and F_GETLK */
	step("posix.a_w_0_10", &a, "set w 0 10");
	step("posix.b_w_5_10", &b, "set w 5 10");
	step("posix.b_r_10_5", &b, "set r 10 5");
	step("posix.b_get_w_0_20", &b, "get w 0 20");
	step("posix.c_get_w_12_3", &c, "get w 12 3");
	step("posix.c_get_r_10_2", &c, "get r 10 2");
	step("posix.c_get_w_20_5", &c, "get w 20 5");
	step("posix.a_unlock_part", &a, "set u 0 5");
	step("posix.b_w_0_5", &b, "set w 0 5");
	step("posix.a_get_w_0_10", &a, "get w 0 10");
	step("posix.a_unlock_all", &a, "set u 0 0");
	step("posix.b_unlock_all", &b, "set u 0 0");
	/* POSIX, blocking: b and c wait for a, then in turn */
	step("posix.a_w_eof", &a, "set w 0 0");
	start_blocking(&b, "set w 0 0 wait");
	start_blocking(&c, "set w 50 1 wait");
	step("posix.a_unlock", &a, "set u 0 0");
	end_blocking("posix.b_granted", &b);
	step("posix.b_unlock", &b, "set u 0 0");
	end_blocking("posix.c_granted", &c);
	step("posix.c_unlock", &c, "set u 0 0");
	/* EDEADLK: a holds 0, b holds 1, a waits for 1, b asks for 0 */
	step("deadlock.a_w0", &a, "set w 0 1");
	step("deadlock.b_w1", &b, "set w 1 1");
	start_blocking(&a, "set w 1 1 wait");
	step("deadlock.b_w0_wait", &b, "set w 0 1 wait");
	step("deadlock.b_unlock", &b, "set u 0 0");
	end_blocking("deadlock.a_granted", &a);
	step("deadlock.a_unlock", &a, "set u 0 0");
	/* EINTR: a signal without SA_RESTART ends a blocked wait */
	step("eintr.a_w", &a, "set w 0 0");
	start_blocking(&b, "set w 0 1 wait");
	kill(b.pid, SIGUSR1);
	end_blocking("eintr.b_setlkw", &b);
	step("eintr.a_flock", &a, "flock ex");
	start_blocking(&b, "flock ex");
	kill(b.pid, SIGUSR1);
	end_blocking("eintr.b_flock", &b);
	step("eintr.a_flock_un", &a, "flock un");
	step("eintr.b_w_nb_still_locked", &b, "set w 0 1");
	step("eintr.a_unlock", &a, "set u 0 0");
	/* closing any fd of the file drops the process's POSIX locks */
	step("close.a_open2", &a, "open2");
	step("close.a_w", &a, "set w 0 10");
	step("close.b_w_before", &b, "set w 0 1");
	step("close.a_close2", &a, "close2");
	step("close.b_w_after", &b, "set w 0 1");
	step("close.b_unlock", &b, "set u 0 0");
	/* OFD locks: per open file, even within one process */
	step("ofd.a_open2", &a, "open2");
	step("ofd.b_open2", &b, "open2");
	step("ofd.a_w", &a, "ofd w 0 10");
	step("ofd.b_w", &b, "ofd w 5 1");
	step("ofd.a_posix_same_process", &a, "set w 0 1");
	/* F_GETLK on an OFD lock: tmpfs reports l_pid -1, a FUSE mount the
	 * locker's pid (the kernel forwards OFD locks as POSIX ones): print
	 * only the range */
	send_cmd(&c, "get w 0 1");
	printf("ofd.c_get: %.32s\n", recv_resp(&c));
	start_blocking(&b, "ofd w 5 1 wait");
	step("ofd.a_unlock", &a, "ofd u 0 10");
	end_blocking("ofd.b_granted", &b);
	step("ofd.b_unlock", &b, "ofd u 0 0");
	step("ofd.a_close2", &a, "close2");
	step("ofd.b_close2", &b, "close2");
	step("ofd.a_posix_unlock", &a, "set u 0 0");

	finish(&a);
	finish(&b);
	finish(&c);
	printf("done\n");
}

/* ---- many waiters on one file ------------------------------------------------ */

struct many {
	const char *path;
	int ofd;
	int granted; /* atomic */
	int errors;  /* atomic */
	int ready;   /* atomic */
};

static void *many_thread(void *arg)
{
	struct many *m = arg;
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	int fd = open(m->path, O_RDWR), r;

	if (fd < 0) {
		__atomic_fetch_add(&m->errors, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&m->ready, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	__atomic_fetch_add(&m->ready, 1, __ATOMIC_RELAXED);
	r = m->ofd ? fcntl(fd, F_OFD_SETLKW, &fl) : flock(fd, LOCK_EX);
	if (r) {
		__atomic_fetch_add(&m->errors, 1, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_add(&m->granted, 1, __ATOMIC_RELAXED);
		fl.l_type = F_UNLCK;
		if (m->ofd ? fcntl(fd, F_OFD_SETLK, &fl) : flock(fd, LOCK_UN))
			__atomic_fetch_add(&m->errors, 1, __ATOMIC_RELAXED);
	}
	close(fd);
	return NULL;
}

/* Count the waiters on the file with inode ino in a /proc/locks listing. */
static int count_blocked(const char *listing, unsigned long ino)
{
	char *line = NULL, key[64];
	size_t cap = 0;
	int n = 0;
	FILE *f = fopen(listing, "r");

	if (!f)
		return -1;
	snprintf(key, sizeof(key), ":%lu ", ino);
	/* getline: nested waiters are indented one column per level */
	while (getline(&line, &cap, f) > 0)
		if (strstr(line, "->") && strstr(line, key))
			n++;
	free(line);
	fclose(f);
	return n;
}

static void many(const char *dir, int n, const char *listing)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	char path[4096];
	struct stat st;
	pthread_attr_t attr;
	int kind, i, fd, blocked = 0, answered;

	snprintf(path, sizeof(path), "%s/manyfile", dir);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0 || !t || fstat(fd, &st))
		die(path);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (kind = 0; kind < 2; kind++) {
		struct many m = {path, kind, 0, 0, 0};
		const char *name = kind ? "ofd" : "flock";

		if (kind ? fcntl(fd, F_OFD_SETLK, &fl) : flock(fd, LOCK_EX))
			die("holder lock");
		for (i = 0; i < n; i++)
			if (pthread_create(&t[i], &attr, many_thread, &m))
				die("pthread_create");
		/* all queued (bounded: 60 s) */
		for (i = 0; i < 6000; i++) {
			blocked = count_blocked(listing, (unsigned long)st.st_ino);
			if (blocked >= n)
				break;
			msleep(10);
		}
		printf("many.%s.all_queued: %d\n", name, blocked >= n);
		/* the file system keeps answering while they wait */
		answered = 0;
		for (i = 0; i < 20; i++) {
			struct stat s2;
			char p2[4200];

			snprintf(p2, sizeof(p2), "%s/other%d", dir, i);
			int f2 = open(p2, O_RDWR | O_CREAT, 0644);

			if (f2 >= 0 && !fstat(f2, &s2) && !stat(dir, &s2))
				answered++;
			if (f2 >= 0)
				close(f2);
			unlink(p2);
		}
		printf("many.%s.answered_while_blocked: %d\n", name, answered);
		fl.l_type = F_UNLCK;
		if (kind ? fcntl(fd, F_OFD_SETLK, &fl) : flock(fd, LOCK_UN))
			die("holder unlock");
		fl.l_type = F_WRLCK;
		for (i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		printf("many.%s.granted: %d errors: %d\n", name, m.granted, m.errors);
	}
	close(fd);
	free(t);
	printf("done\n");
}

/* Block on a lock a child holds; print how the wait ends (unmount). */
static void hold(const char *dir)
{
	char path[4096];
	struct child a, b;

	snprintf(path, sizeof(path), "%s/holdfile", dir);
	close(open(path, O_RDWR | O_CREAT, 0644));
	a = spawn(interp, path);
	b = spawn(interp, path);
	step("hold.a_w", &a, "set w 0 0");
	step("hold.a_flock", &a, "flock ex");
	start_blocking(&b, "set w 0 0 wait");
	printf("hold.blocked\n");
	fflush(stdout);
	end_blocking("hold.b_result", &b);
	kill(a.pid, SIGKILL);
	kill(b.pid, SIGKILL);
	waitpid(a.pid, NULL, 0);
	waitpid(b.pid, NULL, 0);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (argc >= 3 && !strcmp(argv[2], "contend")) {
		contend(argv[1]);
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[2], "many")) {
		many(argv[1], atoi(argv[3]), argv[4]);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[2], "hold")) {
		hold(argv[1]);
		return 0;
	}
	fprintf(stderr, "usage: %s DIR contend | many N LOCKS | hold\n", argv[0]);
	return 2;
}
