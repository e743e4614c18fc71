// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuse/main.c - the rcuvfs daemon: start-up, the loop, teardown.
 *
 * Order matters:
 *   1. parse options (errors: one line, exit 2; --help/--version: exit 0);
 *   2. create the session and mount (libfuse reports an unusable
 *      mountpoint; exit 1);
 *   3. daemonize (unless -f) BEFORE the model starts: liburcu's call_rcu
 *      worker thread does not survive fork().  The parent waits on a pipe
 *      until the child has created the model instance, so it exits 0 only
 *      for a working mount and 1 (after the child's message) otherwise;
 *   4. create the model instance with the switches, the daemon's model
 *      process and its root;
 *   5. start the shrinker thread (below) and run the multithreaded loop (libfuse 3.12+ loop config,
 * max_threads, idle workers kept, clone_fd) until SIGINT/SIGTERM/SIGHUP or fusermount3 -u; libfuse
 * joins every worker before returning, and each worker's model task exits with its thread;
 *   6. unmount, drop every handle and lookup count still held, destroy the
 *      instance (which reports leaks: exit status 1 if anything leaked).
 *
 * Locking: single-threaded except for step 5.
 */
#include "fuse/daemon.h"

#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <unistd.h>

/*
 * Daemon mode's stdout and stderr: -o log=FILE (opened before the daemon
 * changes to /), else a pipe whose lines a thread sends to syslog
 * (LOG_DAEMON, "rcuvfs"), so run-time errors and the unmount report are
 * not lost.  rvf_log_finish closes them and lets the thread drain the pipe.
 */
static int rvf_log_fd = -1;
static pthread_t rvf_log_thread;
static bool rvf_log_thread_live;

static void *rvf_syslog_main(void *arg)
{
	FILE *in = fdopen((int)(intptr_t)arg, "r");
	char line[1024];

	if (!in)
		return NULL;
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		syslog(LOG_ERR, "%s", line);
	}
	fclose(in);
	return NULL;
}

static void rvf_log_redirect(void)
{
	int pfd[2];

	if (rvf_log_fd >= 0) {
		dup2(rvf_log_fd, 1);
		dup2(rvf_log_fd, 2);
		close(rvf_log_fd);
		rvf_log_fd = -1;
		return;
	}
	openlog("rcuvfs", LOG_PID, LOG_DAEMON);
	if (pipe(pfd) == 0 &&
	    pthread_create(&rvf_log_thread, NULL, rvf_syslog_main, (void *)(intptr_t)pfd[0]) == 0) {
		rvf_log_thread_live = true;
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[1]);
	}
	setvbuf(stderr, NULL, _IOLBF, 0);
}

static void rvf_log_finish(void)
{
	fflush(stdout);
	fflush(stderr);
	if (!rvf_log_thread_live)
		return;
	close(1);
	close(2);
	pthread_join(rvf_log_thread, NULL);
	rvf_log_thread_live = false;
	/* whatever is written after this (a sanitizer's report at exit) */
	int nul = open("/dev/null", O_WRONLY);

	if (nul >= 0) {
		dup2(nul, 1);
		dup2(nul, 2);
		if (nul > 2)
			close(nul);
	}
}

/*
 * The mount's device number, from /proc/self/mountinfo (the mountpoint
 * cannot be stat'ed: the request would come to this daemon before it
 * serves).  The last line for the mountpoint is the newest mount.
 */
static dev_t rvf_mount_dev(const char *mountpoint)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096], mp[4096];
	unsigned int maj, mnr;
	dev_t dev = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *o, *p;

		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT ..." with octal escapes */
		if (sscanf(line, "%*d %*d %u:%u %*s %4095s", &maj, &mnr, mp) != 3)
			continue;
		for (o = p = mp; *p; p++) {
			if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] && p[3]) {
				*o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
				p += 3;
			} else {
				*o++ = *p;
			}
		}
		*o = '\0';
		if (!strcmp(mp, mountpoint) && strstr(line, " - fuse.rcuvfs "))
			dev = makedev(maj, mnr);
	}
	fclose(f);
	return dev;
}

/* Detach from the terminal; returns the pipe the child reports status on. */
static int daemonize_start(void)
{
	int pfd[2];
	pid_t pid;
	char c;

	if (pipe(pfd)) {
		perror("rcuvfs: pipe");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		perror("rcuvfs: fork");
		return -1;
	}
	if (pid > 0) {
		/* parent: exit with the child's verdict on start-up */
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			c = 1;
		_exit(c ? 1 : 0);
	}
	close(pfd[0]);
	if (setsid() < 0)
		perror("rcuvfs: setsid");
	if (chdir("/"))
		perror("rcuvfs: chdir /");
	return pfd[1];
}

static void daemonize_finish(int fd, int ok)
{
	char c = ok ? 0 : 1;
	int nul;

	if (fd < 0)
		return;
	if (ok) {
		nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			if (nul > 2)
				close(nul);
		}
		rvf_log_redirect(); /* 1 and 2: the log file, or syslog */
	}
	if (write(fd, &c, 1) != 1) {
		/* the parent is gone; nothing to tell */
	}
	close(fd);
}

/*
 * The shrinker thread: once a second, give back what evictions freed since
 * the last shrink (vfs_shrink_freed; evictions shrink by themselves every
 * 1 MiB, this catches the rest), so that the daemon's RSS follows what the
 * model holds.  Stopped before the instance goes.
 */
static struct {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop; /* under lock */
	int running;
} shrinker = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void *shrinker_main(void *arg)
{
	struct timespec ts;

	(void)arg;
	rv_rcu_ensure();
	pthread_mutex_lock(&shrinker.lock);
	while (!shrinker.stop) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&shrinker.cond, &shrinker.lock, &ts);
		if (shrinker.stop)
			break;
		pthread_mutex_unlock(&shrinker.lock);
		vfs_shrink_freed();
		pthread_mutex_lock(&shrinker.lock);
	}
	pthread_mutex_unlock(&shrinker.lock);
	return NULL;
}

static void shrinker_stop(void)
{
	if (!shrinker.running)
		return;
	pthread_mutex_lock(&shrinker.lock);
	shrinker.stop = 1;
	pthread_cond_signal(&shrinker.cond);
	pthread_mutex_unlock(&shrinker.lock);
	pthread_join(shrinker.thread, NULL);
	shrinker.running = 0;
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct rvf_config *cfg = &rvf.cfg;
	struct fuse_loop_config *lcfg;
	struct fuse_session *se;
	int notify_fd = -1, ret = 1, err;

	/*
	 * libfuse callocs every request (struct fuse_req, 128 bytes in 3.14)
	 * and frees it after the reply.  glibc's calloc bypasses the per-thread
	 * cache, so each request goes through _int_malloc, whose cost depends
	 * on the worker arena's layout (a free neighbour: coalesce on free,
	 * split on calloc, ~300 instructions instead of ~130) and so on when
	 * libfuse happened to start which worker.  With chunks up to 160
	 * bytes in the fast bins a request is a fast-bin push and pop in
	 * every arena.  The floor daemon (tests/bench/fuse-floor) does the
	 * same, so the two are compared on the same allocator path.
	 */
	mallopt(M_MXFAST, 160);
	ret = 2; /* until the options are parsed, a failure is a usage error */
	if (rvf_parse_args(&args, cfg) != 0)
		goto out_args;
	if (cfg->show_help) {
		rvf_print_help(stdout, argv[0]);
		ret = 0;
		goto out_args;
	}
	if (cfg->show_version) {
		rvf_print_version(stdout);
		ret = 0;
		goto out_args;
	}
	if (cfg->list_counters) {
		ret = rvf_list_counters(stdout);
		goto out_args;
	}
	if (cfg->remount) {
		ret = rvf_remount(cfg);
		goto out_args;
	}
	if (!cfg->foreground && cfg->log_file) {
		rvf_log_fd = open(cfg->log_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
		if (rvf_log_fd < 0) {
			fprintf(stderr, "rcuvfs: -o log=%s: %s\n", cfg->log_file, strerror(errno));
			ret = 1;
			goto out_args;
		}
	}
	se = fuse_session_new(&args, &rvf_ll_ops, sizeof(rvf_ll_ops), NULL);
	if (!se)
		goto out_args; /* libfuse named the bad option (exit 2) */
	ret = 1;
	/*
	 * A shell starts background jobs with SIGINT ignored, and libfuse only
	 * replaces default dispositions: SIGINT and SIGTERM always unmount.
	 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (fuse_set_signal_handlers(se) != 0)
		goto out_session;
	if (fuse_session_mount(se, cfg->mountpoint) != 0)
		goto out_signals;
	if (!cfg->foreground) {
		notify_fd = daemonize_start();
		if (notify_fd < 0)
			goto out_unmount;
	}

	err = rv_instance_create(&cfg->sw);
	if (!err)
		err = rvf_fs_init(cfg);
	if (err) {
		fprintf(stderr, "rcuvfs: cannot start the model: %s\n", strerror(-err));
		daemonize_finish(notify_fd, 0);
		if (rv_instance_live())
			rv_instance_destroy();
		goto out_unmount;
	}
	rv_sb->s_dev = rvf_mount_dev(cfg->mountpoint);
	if (cfg->foreground)
		fprintf(stderr, "rcuvfs %s on %s: %s\n", RCUVFS_VERSION, cfg->mountpoint,
			rv_rcu_describe());
	daemonize_finish(notify_fd, 1);
	if (!cfg->foreground)
		fprintf(stderr, "rcuvfs %s on %s (device %u:%u): %s\n", RCUVFS_VERSION,
			cfg->mountpoint, major(rv_sb->s_dev), minor(rv_sb->s_dev),
			rv_rcu_describe());
	shrinker.running = pthread_create(&shrinker.thread, NULL, shrinker_main, NULL) == 0;

	if (cfg->singlethread) {
		ret = fuse_session_loop(se);
	} else {
		lcfg = fuse_loop_cfg_create();
		fuse_loop_cfg_set_clone_fd(lcfg, (unsigned int)cfg->clone_fd);
		fuse_loop_cfg_set_max_threads(lcfg, cfg->max_threads);
		/* keep idle workers: no thread creation per request */
		fuse_loop_cfg_set_idle_threads(lcfg, cfg->max_idle_threads);
		ret = fuse_session_loop_mt(se, lcfg);
		fuse_loop_cfg_destroy(lcfg);
	}
	ret = ret < 0 ? 1 : 0; /* > 0: the signal that ended the loop */
	/* no worker runs now: answer blocked lock requests while replies can
	 * still reach their callers */
	rvf_locks_shutdown();

	fuse_session_unmount(se);
	shrinker_stop();
	rvf_fs_teardown();
	if (rv_instance_destroy() != 0) {
		fprintf(stderr, "rcuvfs: model objects leaked at unmount (see above)\n");
		ret = 1;
	} else if (!cfg->foreground) {
		fprintf(stderr, "rcuvfs: unmounted %s, no model object leaked\n", cfg->mountpoint);
	}
	goto out_signals;
out_unmount:
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
out_args:
	rvf_log_finish();
	if (rvf_log_fd >= 0)
		close(rvf_log_fd);
	free(cfg->mountpoint);
	free(cfg->log_file);
	for (int i = 0; i < cfg->nr_nonopt; i++)
		free(cfg->nonopt[i]);
	fuse_opt_free_args(&args);
	return ret;
}
