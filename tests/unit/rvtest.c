// SPDX-License-Identifier: GPL-2.0-or-later
/* tests/unit/rvtest.c - CUnit harness (see rvtest.h). */
#include "rvtest.h"

#include <CUnit/Basic.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static struct rvtest_suite *suites, **suites_tail = &suites;

void rvtest_register(struct rvtest_suite *s)
{
	*suites_tail = s;
	suites_tail = &s->next;
}

int rvtest_instance_init(void)
{
	return rv_instance_create(NULL) ? -1 : 0;
}

int rvtest_instance_cleanup(void)
{
	return rv_instance_destroy() ? -1 : 0;
}

int rvtest_instance_with(const char *const *settings)
{
	struct rv_switches sw;
	char err[256];

	rv_switches_default(&sw);
	for (; settings && *settings; settings++) {
		char name[64];
		const char *eq = strchr(*settings, '=');
		size_t n = eq ? (size_t)(eq - *settings) : strlen(*settings);

		if (!eq || n >= sizeof(name)) {
			fprintf(stderr, "rvtest: bad setting %s\n", *settings);
			return -EINVAL;
		}
		memcpy(name, *settings, n);
		name[n] = 0;
		if (rv_switch_set(&sw, name, eq + 1, err, sizeof(err))) {
			fprintf(stderr, "rvtest: %s\n", err);
			return -EINVAL;
		}
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

int rvtest_main(int argc, char **argv)
{
	const char *only_suite = argc > 1 ? argv[1] : NULL;
	const char *only_test = argc > 2 ? argv[2] : NULL;
	unsigned fails;

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
			if (only_test && strcmp(only_test, c->name))
				continue;
			if (!CU_add_test(cs, c->name, c->fn))
				return 2;
		}
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_suites_failed() +
		CU_get_number_of_tests_failed();
	printf("\n");
	CU_cleanup_registry();
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	return rvtest_main(argc, argv);
}
