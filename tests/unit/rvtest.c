// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/rvtest.c - CUnit harness (see rvtest.h), and its watchdog.
 *
 * The watchdog turns a hang into a prompt failure with a report.  A thread
 * samples the model's wait points (rv_tasks_waits: every live task's
 * current wait, noted by the wait primitives of vfs/base) and the counter
 * of wait progress (wake-ups, ends of sleeps, contended spins that got
 * their lock).  It fires when that counter has not moved while
 *   - every task attached to a thread waits, none woken, and so does the
 *     test's main thread, for RVTEST_STALL seconds (default 5): nothing
 *     can wake anybody; a thread joining another counts as waiting
 *     (pthread_join is wrapped at link time);
 *   - or some task waits, not woken, for 12 times that (a test thread
 *     polling for a sleeper that nobody wakes).
 * It then prints, per task, what it waits on, from which code, and its
 * stack (taken by a signal to the task's thread), and exits 1, well before
 * CTest's timeout.  A test that runs slowly keeps waking its waiters, so
 * the watchdog does not time tests: it detects waits that stopped.
 * RVTEST_STALL=0 turns it off.
 *
 * Locking: the watchdog thread reads the task list through rv_tasks_waits
 * (a trylock of its lock) and takes no other model lock.
 */
#include "rvtest.h"

#include <CUnit/Basic.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct rvtest_suite *suites, **suites_tail = &suites;
static pthread_t rvtest_main_thread;
static unsigned long rvtest_worker_asserts;

/* Every registered test and whether it asserted anything (main thread). */
struct rvtest_ran {
	CU_pTest test;
	const char *suite;
	int asserts;
};
static struct rvtest_ran *rvtest_ran;
static size_t rvtest_nran, rvtest_last;

#undef CU_assertImplementation
CU_BOOL rvtest_assert(CU_BOOL value, unsigned int line, const char *cond, const char *file,
		      const char *func, CU_BOOL fatal)
{
	if (pthread_equal(pthread_self(), rvtest_main_thread)) {
		CU_pTest t = CU_get_current_test();

		if (rvtest_last >= rvtest_nran || rvtest_ran[rvtest_last].test != t)
			for (rvtest_last = 0; rvtest_last < rvtest_nran; rvtest_last++)
				if (rvtest_ran[rvtest_last].test == t)
					break;
		if (rvtest_last < rvtest_nran)
			rvtest_ran[rvtest_last].asserts++;
		return CU_assertImplementation(value, line, cond, file, func, fatal);
	}
	/* report the first few; every one fails the program */
	if (__atomic_fetch_add(&rvtest_worker_asserts, 1, __ATOMIC_RELAXED) < 5)
		fprintf(stderr,
			"rvtest: %s:%u: CU_ASSERT(%s) on a worker thread: workers record, "
			"the main thread asserts\n",
			file, line, cond);
	return value;
}

void rvtest_register(struct rvtest_suite *s)
{
	*suites_tail = s;
	suites_tail = &s->next;
}

int rvtest_instance_init(void)
{
	return rvtest_instance_with(NULL) ? -1 : 0;
}

int rvtest_instance_cleanup(void)
{
	return rv_instance_destroy() ? -1 : 0;
}

static int rvtest_set(struct rv_switches *sw, const char *setting, size_t len)
{
	char name[64], value[128], err[256];
	const char *eq = memchr(setting, '=', len);
	size_t n = eq ? (size_t)(eq - setting) : len;

	if (!eq || n >= sizeof(name) || len - n - 1 >= sizeof(value)) {
		fprintf(stderr, "rvtest: bad setting %.*s\n", (int)len, setting);
		return -EINVAL;
	}
	memcpy(name, setting, n);
	name[n] = 0;
	memcpy(value, eq + 1, len - n - 1);
	value[len - n - 1] = 0;
	if (rv_switch_set(sw, name, value, err, sizeof(err))) {
		fprintf(stderr, "rvtest: %s\n", err);
		return -EINVAL;
	}
	return 0;
}

int rvtest_instance_with(const char *const *settings)
{
	const char *env = getenv("RVTEST_SWITCHES");
	struct rv_switches sw;

	rv_switches_default(&sw);
	/* RVTEST_SWITCHES=name=value,...: under every suite's own settings */
	while (env && *env) {
		size_t len = strcspn(env, ",");

		if (len && rvtest_set(&sw, env, len))
			return -EINVAL;
		env += len + (env[len] == ',');
	}
	for (; settings && *settings; settings++) {
		if (rvtest_set(&sw, *settings, strlen(*settings)))
			return -EINVAL;
	}
	return rv_instance_create(&sw);
}

struct rvtest_thread {
	void *(*fn)(void *);
	void *arg;
	pthread_barrier_t *bar;
};

static void *rvtest_thread_main(void *p)
{
	struct rvtest_thread *t = p;
	void *ret;

	rv_rcu_ensure();
	pthread_barrier_wait(t->bar);
	ret = t->fn(t->arg);
	kmem_cache_flush_thread();
	return ret;
}

void rvtest_run_threads(int n, void *(*fn)(void *), void **args)
{
	pthread_t tid[n];
	struct rvtest_thread th[n];
	pthread_barrier_t bar;

	pthread_barrier_init(&bar, NULL, n);
	for (int i = 0; i < n; i++) {
		th[i] = (struct rvtest_thread){fn, args ? args[i] : NULL, &bar};
		if (pthread_create(&tid[i], NULL, rvtest_thread_main, &th[i])) {
			perror("pthread_create");
			exit(2);
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&bar);
}

/* ---- the watchdog --------------------------------------------------------- */

#define WD_MAX_TASKS  256
#define WD_MAX_FRAMES 24

static int wd_main_joins; /* atomic: the main thread is in pthread_join */

int __real_pthread_join(pthread_t th, void **ret);
int __wrap_pthread_join(pthread_t th, void **ret);
/* Linked with -Wl,--wrap=pthread_join: the joiner's task waits (RV_XP_JOIN). */
int __wrap_pthread_join(pthread_t th, void **ret)
{
	bool main = pthread_equal(pthread_self(), rvtest_main_thread);
	int err;

	rv_wait_note(RV_XP_JOIN, (const void *)th, __builtin_return_address(0));
	if (main)
		__atomic_store_n(&wd_main_joins, 1, __ATOMIC_RELEASE);
	err = __real_pthread_join(th, ret);
	if (main)
		__atomic_store_n(&wd_main_joins, 0, __ATOMIC_RELEASE);
	rv_wait_done();
	rv_wait_progressed();
	return err;
}

static void *wd_frames[WD_MAX_FRAMES];
static int wd_nframes, wd_got; /* written by the signalled thread */

static void wd_backtrace(int sig)
{
	(void)sig;
	wd_nframes = backtrace(wd_frames, WD_MAX_FRAMES);
	__atomic_store_n(&wd_got, 1, __ATOMIC_RELEASE);
}

/* The wait kinds' names (rv_xkind_name is the explorer build's only). */
static const char *wd_kind_name(int kind)
{
	switch (kind) {
	case RV_XP_SLEEP:
		return "schedule";
	case RV_XP_RWSEM_DOWN_READ:
		return "down_read";
	case RV_XP_RWSEM_DOWN_WRITE:
		return "down_write";
	case RV_XP_SEM_DOWN:
		return "down";
	case RV_XP_SPIN_WAIT:
		return "spin_lock";
	case RV_XP_JOIN:
		return "pthread_join";
	}
	return "wait";
}

static bool wd_waits(const struct rv_task_wait *w)
{
	if (!w->wait.kind)
		return false;
	/* a sleeper that was woken is about to run */
	return w->wait.kind == RV_XP_SPIN_WAIT || w->wait.kind == RV_XP_JOIN ||
	       w->state != TASK_RUNNING;
}

static const void *dladdr_self_base(void)
{
	Dl_info info;

	return dladdr((const void *)&rvtest_main, &info) ? info.dli_fbase : NULL;
}

/* Print "fn file:line < caller file:line" for addr (a return address). */
static void wd_symbolize(FILE *f, const void *addr)
{
	Dl_info info;
	char cmd[256], line[512];
	FILE *p;
	int first = 1;

	if (!addr || !dladdr(addr, &info) || !info.dli_fname) {
		fprintf(f, "%p", addr);
		return;
	}
	if (info.dli_fbase != dladdr_self_base()) {
		fprintf(f, "%s in %s", info.dli_sname ? info.dli_sname : "?",
			strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1
						     : info.dli_fname);
		return;
	}
	snprintf(cmd, sizeof(cmd), "addr2line -f -i -p -s -e /proc/%d/exe 0x%lx", (int)getpid(),
		 (unsigned long)((uintptr_t)addr - (uintptr_t)info.dli_fbase - 1));
	p = popen(cmd, "r");
	if (!p) {
		fprintf(f, "%p", addr);
		return;
	}
	while (fgets(line, sizeof(line), p)) {
		char *nl = strchr(line, '\n'), *src = line, *at;

		if (nl)
			*nl = 0;
		at = strstr(line, " (discriminator");
		if (at)
			*at = 0;
		if (!strncmp(src, " (inlined by) ", 14))
			src += 14;
		at = strstr(src, " at ");
		if (at)
			memmove(at + 1, at + 4, strlen(at + 4) + 1);
		fprintf(f, "%s%s", first ? "" : " < ", src);
		first = 0;
	}
	pclose(p);
}

static void wd_describe(FILE *f, const struct rv_task_wait *w)
{
	const void *o = w->wait.obj;

	switch (w->wait.kind) {
	case RV_XP_RWSEM_DOWN_READ:
	case RV_XP_RWSEM_DOWN_WRITE: {
		const struct rw_semaphore *sem = o;

		fprintf(f, "%s rw_semaphore %p (%s)", wd_kind_name(w->wait.kind), o,
			rwsem_is_write_locked(sem) ? "held for write"
			: rwsem_is_locked(sem)	   ? "held for read"
						   : "free: a grant is pending");
		break;
	}
	case RV_XP_SEM_DOWN:
		fprintf(f, "down semaphore %p (count %d)", o,
			__atomic_load_n(&((const struct semaphore *)o)->count, __ATOMIC_RELAXED));
		break;
	case RV_XP_SPIN_WAIT:
		fprintf(f, "spin_lock spinlock_t %p (held)", o);
		break;
	case RV_XP_JOIN:
		fprintf(f, "pthread_join of thread %#lx", (unsigned long)o);
		break;
	default:
		fprintf(f, "%s on %p", wd_kind_name(w->wait.kind), o);
	}
}

static void wd_dump(const struct rv_task_wait *w, int n, double secs, bool all)
{
	CU_pSuite s = CU_get_current_suite();
	CU_pTest t = CU_get_current_test();
	struct sigaction sa = {.sa_handler = wd_backtrace};
	int sig = SIGRTMIN + 5;

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	fprintf(stderr,
		"\nrvtest: watchdog: %s %s: no wait progressed for %.0f s while %s; "
		"where each model task waits:\n",
		s && s->pName ? s->pName : "?", t && t->pName ? t->pName : "?", secs,
		all ? "every task on a thread waited" : "tasks waited");
	for (int i = 0; i < n; i++) {
		fprintf(stderr, "  task %d \"%s\"%s: ", w[i].pid, w[i].comm,
			w[i].lock_depth >= 0 ? " (holds the BKL)" : "");
		if (!wd_waits(&w[i])) {
			fprintf(stderr, "%s\n",
				w[i].host_thread ? "running, not in a model wait"
						 : "not on a thread");
			continue;
		}
		wd_describe(stderr, &w[i]);
		fprintf(stderr, "\n      at ");
		wd_symbolize(stderr, w[i].wait.site);
		fprintf(stderr, "\n");
		if (!w[i].host_thread)
			continue;
		__atomic_store_n(&wd_got, 0, __ATOMIC_RELAXED);
		if (pthread_kill((pthread_t)w[i].host_thread, sig))
			continue;
		for (int k = 0; k < 1000 && !__atomic_load_n(&wd_got, __ATOMIC_ACQUIRE); k++)
			usleep(1000);
		if (!__atomic_load_n(&wd_got, __ATOMIC_ACQUIRE))
			continue;
		/* skip the handler and the signal trampoline */
		for (int k = 2; k < wd_nframes; k++) {
			fprintf(stderr, "      #%-2d ", k - 2);
			wd_symbolize(stderr, wd_frames[k]);
			fprintf(stderr, "\n");
		}
	}
	fprintf(stderr, "rvtest: watchdog: the test hangs: failed\n");
	fflush(NULL);
	_exit(1);
}

static void *wd_main(void *arg)
{
	long stall_ms = (long)(intptr_t)arg;
	static struct rv_task_wait w[WD_MAX_TASKS];
	uint64_t last = rv_wait_progress();
	long still_all = 0, still_some = 0; /* ms without progress */
	void *probe[2];

	backtrace(probe, 2); /* load the unwinder now, not in a signal handler */
	for (;;) {
		uint64_t p;
		int n, waiting = 0, threads = 0;
		bool main_waits = __atomic_load_n(&wd_main_joins, __ATOMIC_ACQUIRE);

		usleep(100 * 1000);
		p = rv_wait_progress();
		n = rv_tasks_waits(w, WD_MAX_TASKS);
		if (n > WD_MAX_TASKS)
			n = WD_MAX_TASKS;
		for (int i = 0; i < n; i++) {
			threads += w[i].host_thread != 0;
			waiting += wd_waits(&w[i]) && w[i].host_thread;
			if (w[i].host_thread &&
			    pthread_equal((pthread_t)w[i].host_thread, rvtest_main_thread))
				main_waits = main_waits || wd_waits(&w[i]);
		}
		if (p != last || n < 0 || !waiting) {
			last = p;
			still_all = still_some = 0;
			continue;
		}
		still_some += 100;
		/* the main thread, task or not, runs the test: it must wait too */
		still_all = waiting == threads && main_waits ? still_all + 100 : 0;
		if (still_all >= stall_ms)
			wd_dump(w, n, still_all / 1000.0, true);
		if (still_some >= 12 * stall_ms)
			wd_dump(w, n, still_some / 1000.0, false);
	}
	return NULL;
}

static void wd_start(void)
{
	const char *env = getenv("RVTEST_STALL");
	long secs = env && *env ? strtol(env, NULL, 10) : 5;
	pthread_t th;

	if (secs <= 0)
		return;
	if (pthread_create(&th, NULL, wd_main, (void *)(intptr_t)(secs * 1000)))
		fprintf(stderr, "rvtest: cannot start the watchdog\n");
	else
		pthread_detach(th);
}

static void rvtest_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [--list] [SUITE [TEST]]\n"
		"Run this program's CUnit suites (all, one suite, or one test of it).\n"
		"  --list     print every SUITE and SUITE TEST pair, one a line, and exit\n"
		"  --help     this text\n"
		"A watchdog fails the program (exit 1), printing where each model task\n"
		"waits, when no model wait has progressed for RVTEST_STALL seconds\n"
		"(default 5; 0: off) while every task waits, or for 12 times that while\n"
		"some task waits.\n"
		"Exit status: 0 all passed, 1 an assertion or a suite init failed (or\n"
		"the watchdog fired), 2 bad usage (unknown suite or test, unknown option).\n",
		prog);
}

static const struct rvtest_suite *rvtest_find_suite(const char *name)
{
	for (const struct rvtest_suite *s = suites; s; s = s->next)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

static int rvtest_has_case(const struct rvtest_suite *s, const char *name)
{
	for (const struct rvtest_case *c = s->cases; c->name; c++)
		if (!strcmp(c->name, name))
			return 1;
	return 0;
}

int rvtest_main(int argc, char **argv)
{
	const char *only_suite = NULL, *only_test = NULL;
	unsigned fails;
	int nargs = 0;

	rvtest_main_thread = pthread_self();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list")) {
			for (const struct rvtest_suite *s = suites; s; s = s->next) {
				printf("%s\n", s->name);
				for (const struct rvtest_case *c = s->cases; c->name; c++)
					printf("%s %s\n", s->name, c->name);
			}
			return 0;
		}
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			rvtest_usage(stdout, argv[0]);
			return 0;
		}
		if (argv[i][0] == '-') {
			fprintf(stderr, "%s: unknown option %s\n", argv[0], argv[i]);
			rvtest_usage(stderr, argv[0]);
			return 2;
		}
		if (nargs == 0)
			only_suite = argv[i];
		else if (nargs == 1)
			only_test = argv[i];
		else {
			fprintf(stderr, "%s: too many arguments\n", argv[0]);
			rvtest_usage(stderr, argv[0]);
			return 2;
		}
		nargs++;
	}
	if (only_suite) {
		const struct rvtest_suite *s = rvtest_find_suite(only_suite);

		if (!s) {
			fprintf(stderr, "%s: no suite %s (--list shows them)\n", argv[0],
				only_suite);
			return 2;
		}
		if (only_test && !rvtest_has_case(s, only_test)) {
			fprintf(stderr, "%s: suite %s has no test %s (--list shows them)\n",
				argv[0], only_suite, only_test);
			return 2;
		}
	}

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	for (struct rvtest_suite *s = suites; s; s = s->next) {
		CU_pSuite cs;

		if (only_suite && strcmp(only_suite, s->name))
			continue;
		cs = CU_add_suite(s->name, s->init, s->cleanup);
		if (!cs)
			return 2;
		for (const struct rvtest_case *c = s->cases; c->name; c++) {
			struct rvtest_ran *r;
			CU_pTest t;

			if (only_test && strcmp(only_test, c->name))
				continue;
			t = CU_add_test(cs, c->name, c->fn);
			r = realloc(rvtest_ran, (rvtest_nran + 1) * sizeof(*r));
			if (!t || !r)
				return 2;
			rvtest_ran = r;
			rvtest_ran[rvtest_nran++] = (struct rvtest_ran){t, s->name, 0};
		}
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	wd_start();
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_suites_failed() +
		CU_get_number_of_tests_failed();
	printf("\n");
	/* a test that asserted nothing proved nothing (suites whose init
	 * failed ran none of theirs: already a failure) */
	if (!CU_get_number_of_suites_failed())
		for (size_t i = 0; i < rvtest_nran; i++)
			if (!rvtest_ran[i].asserts) {
				fprintf(stderr, "rvtest: %s %s ran no assertion: failed\n",
					rvtest_ran[i].suite, rvtest_ran[i].test->pName);
				fails++;
			}
	free(rvtest_ran);
	CU_cleanup_registry();
	if (rvtest_worker_asserts) {
		fprintf(stderr,
			"rvtest: %lu CU_ASSERTs ran on worker threads (see above): failed\n",
			rvtest_worker_asserts);
		return 1;
	}
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	return rvtest_main(argc, argv);
}
