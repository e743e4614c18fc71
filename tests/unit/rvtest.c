// SPDX-License-Identifier: GPL-2.0-or-later
/* tests/unit/rvtest.c - CUnit harness (see rvtest.h). */
#include "rvtest.h"

#include <CUnit/Basic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		th[i] = (struct rvtest_thread){ fn, args ? args[i] : NULL, &bar };
		if (pthread_create(&tid[i], NULL, rvtest_thread_main, &th[i])) {
			perror("pthread_create");
			exit(2);
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&bar);
}

static void rvtest_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [--list] [SUITE [TEST]]\n"
		"Run this program's CUnit suites (all, one suite, or one test of it).\n"
		"  --list     print every SUITE and SUITE TEST pair, one a line, and exit\n"
		"  --help     this text\n"
		"Exit status: 0 all passed, 1 an assertion or a suite init failed,\n"
		"2 bad usage (unknown suite or test, unknown option).\n",
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
			fprintf(stderr, "%s: no suite %s (--list shows them)\n", argv[0], only_suite);
			return 2;
		}
		if (only_test && !rvtest_has_case(s, only_test)) {
			fprintf(stderr, "%s: suite %s has no test %s (--list shows them)\n", argv[0],
				only_suite, only_test);
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
			rvtest_ran[rvtest_nran++] = (struct rvtest_ran){ t, s->name, 0 };
		}
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
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
		fprintf(stderr, "rvtest: %lu CU_ASSERTs ran on worker threads (see above): failed\n",
			rvtest_worker_asserts);
		return 1;
	}
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	return rvtest_main(argc, argv);
}
