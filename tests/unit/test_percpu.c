// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_percpu.c - percpu_counter: exact sums under concurrent
 * updates, the global registration list, and percpu_counter_init_many taking
 * the global lock once per group (docs/history.md).  Needs no model instance.
 */
#include "rvtest.h"

#include <stdlib.h>
#include <unistd.h>

RV_STAT_DECLARE(percpu_counter_lock_acquisitions);

static uint64_t lock_acquisitions(void)
{
	return rv_stat_get(percpu_counter_lock_acquisitions);
}

static void test_nr_cpu_ids(void)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);

	CU_ASSERT(rv_nr_cpu_ids() >= 1);
	if (conf >= 1)
		CU_ASSERT_EQUAL(rv_nr_cpu_ids(), conf);
}

/* The possible CPUs set for a simulated machine size the rows of counters
 * initialised after it; a counter keeps its rows when the value changes. */
static void test_set_nr_cpu_ids(void)
{
	struct percpu_counter a, b[3];
	int host = rv_nr_cpu_ids();

	rv_set_nr_cpu_ids(host + 5);
	CU_ASSERT_EQUAL(rv_nr_cpu_ids(), host + 5);
	CU_ASSERT_EQUAL_FATAL(percpu_counter_init(&a, 1), 0);
	CU_ASSERT_EQUAL_FATAL(percpu_counter_init_many(b, 2, 3), 0);
	CU_ASSERT_EQUAL(a.nr, host + 5);
	CU_ASSERT_EQUAL(b[2].nr, host + 5);
	for (int i = 0; i < 100; i++) {
		int cpu = rv_this_cpu();

		CU_ASSERT(cpu >= 0 && cpu < host + 5);
	}
	rv_set_nr_cpu_ids(0); /* back to the host's: the counters keep theirs */
	CU_ASSERT_EQUAL(rv_nr_cpu_ids(), host);
	percpu_counter_add(&a, 4);
	percpu_counter_add(&b[1], 4);
	CU_ASSERT_EQUAL(percpu_counter_sum(&a), 5);
	CU_ASSERT_EQUAL(percpu_counter_sum(&b[1]), 6);
	CU_ASSERT_EQUAL(percpu_counter_sum(&b[2]), 2);
	percpu_counter_destroy(&a);
	percpu_counter_destroy_many(b, 3); /* finds its group by its own rows */
}

static void test_init_add_sum_destroy(void)
{
	struct percpu_counter c;
	long reg = percpu_counter_registered();

	CU_ASSERT_EQUAL_FATAL(percpu_counter_init(&c, 5), 0);
	CU_ASSERT_EQUAL(percpu_counter_registered(), reg + 1);
	CU_ASSERT_EQUAL(percpu_counter_sum(&c), 5);
	percpu_counter_add(&c, -3);
	CU_ASSERT_EQUAL(percpu_counter_sum(&c), 2);
	percpu_counter_inc(&c);
	percpu_counter_inc(&c);
	percpu_counter_dec(&c);
	CU_ASSERT_EQUAL(percpu_counter_sum(&c), 3);
	percpu_counter_add(&c, -10);
	CU_ASSERT_EQUAL(percpu_counter_sum(&c), -7);
	percpu_counter_add(&c, INT64_C(1) << 40);
	CU_ASSERT_EQUAL(percpu_counter_sum(&c), (INT64_C(1) << 40) - 7);
	percpu_counter_destroy(&c);
	CU_ASSERT_EQUAL(percpu_counter_registered(), reg);
	/* destroying twice is harmless */
	percpu_counter_destroy(&c);
	CU_ASSERT_EQUAL(percpu_counter_registered(), reg);
}

static void test_errors(void)
{
	struct percpu_counter c[2];

	CU_ASSERT_EQUAL(percpu_counter_init_many(c, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(percpu_counter_init_many(c, 0, -1), -EINVAL);
	CU_ASSERT_EQUAL(percpu_counter_init_many(NULL, 0, 1), -EINVAL);
	percpu_counter_destroy_many(NULL, 3); /* no-op */
}

static void test_init_many_one_lock_acquisition(void)
{
	enum { N = 4 };
	struct percpu_counter group[N], single[N];
	long reg = percpu_counter_registered();
	uint64_t before;

	before = lock_acquisitions();
	CU_ASSERT_EQUAL_FATAL(percpu_counter_init_many(group, 7, N), 0);
	CU_ASSERT_EQUAL(lock_acquisitions() - before, 1);
	CU_ASSERT_EQUAL(percpu_counter_registered(), reg + N);

	before = lock_acquisitions();
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL_FATAL(percpu_counter_init(&single[i], 7), 0);
	CU_ASSERT_EQUAL(lock_acquisitions() - before, N);
	CU_ASSERT_EQUAL(percpu_counter_registered(), reg + 2 * N);

	/* members of a group are independent counters */
	for (int i = 0; i < N; i++)
		percpu_counter_add(&group[i], i);
	for (int i = 0; i < N; i++) {
		CU_ASSERT_EQUAL(percpu_counter_sum(&group[i]), 7 + i);
		CU_ASSERT_EQUAL(percpu_counter_sum(&single[i]), 7);
	}
	CU_ASSERT_EQUAL(group[0].group_head, 1);
	CU_ASSERT_EQUAL(group[1].group_head, 0);
	CU_ASSERT_EQUAL(group[N - 1].group_n, N);

	before = lock_acquisitions();
	percpu_counter_destroy_many(group, N);
	CU_ASSERT_EQUAL(lock_acquisitions() - before, 1);
	before = lock_acquisitions();
	for (int i = 0; i < N; i++)
		percpu_counter_destroy(&single[i]);
	CU_ASSERT_EQUAL(lock_acquisitions() - before, N);
	CU_ASSERT_EQUAL(percpu_counter_registered(), reg);
}

/* A group may also be torn down member by member (memory goes with the last). */
static void test_group_destroy_one_by_one(void)
{
	enum { N = 11 }; /* more than one cache line of slots per CPU */
	struct percpu_counter g[N];
	long reg = percpu_counter_registered();

	CU_ASSERT_EQUAL_FATAL(percpu_counter_init_many(g, 0, N), 0);
	for (int i = 0; i < N; i++)
		percpu_counter_add(&g[i], 100 + i);
	for (int i = N - 1; i >= 0; i--) {
		CU_ASSERT_EQUAL(percpu_counter_sum(&g[i]), 100 + i);
		percpu_counter_destroy(&g[i]);
		CU_ASSERT_EQUAL(percpu_counter_registered(), reg + i);
	}
}

#define CONC_THREADS 4
#define CONC_ITERS   200000
#define CONC_GROUP   3

struct conc_arg {
	struct percpu_counter *single;
	struct percpu_counter *group;
	int sign;
};

static void *conc_worker(void *p)
{
	struct conc_arg *a = p;

	for (int i = 0; i < CONC_ITERS; i++) {
		percpu_counter_add(a->single, a->sign * 3);
		percpu_counter_dec(a->single);
		percpu_counter_inc(&a->group[i % CONC_GROUP]);
	}
	return NULL;
}

static void test_concurrent_sum_exact(void)
{
	struct percpu_counter single, group[CONC_GROUP];
	struct conc_arg args[CONC_THREADS];
	void *argp[CONC_THREADS];
	int64_t expect = 0;

	CU_ASSERT_EQUAL_FATAL(percpu_counter_init(&single, 1000), 0);
	CU_ASSERT_EQUAL_FATAL(percpu_counter_init_many(group, 0, CONC_GROUP), 0);
	for (int i = 0; i < CONC_THREADS; i++) {
		args[i] = (struct conc_arg){&single, group, i % 2 ? -1 : 1};
		argp[i] = &args[i];
		expect += (int64_t)CONC_ITERS * (args[i].sign * 3 - 1);
	}
	rvtest_run_threads(CONC_THREADS, conc_worker, argp);
	CU_ASSERT_EQUAL(percpu_counter_sum(&single), 1000 + expect);
	for (int i = 0; i < CONC_GROUP; i++) {
		int64_t per = (int64_t)CONC_THREADS *
			      (CONC_ITERS / CONC_GROUP + (i < CONC_ITERS % CONC_GROUP));

		CU_ASSERT_EQUAL(percpu_counter_sum(&group[i]), per);
	}
	percpu_counter_destroy(&single);
	percpu_counter_destroy_many(group, CONC_GROUP);
}

/* init/destroy from several threads at once: the list stays consistent. */
static int churn_errors;
static void *churn_worker(void *p)
{
	(void)p;
	for (int i = 0; i < 2000; i++) {
		struct percpu_counter g[3];

		if (percpu_counter_init_many(g, i, 3)) {
			__atomic_fetch_add(&churn_errors, 1, __ATOMIC_RELAXED);
			return NULL;
		}
		percpu_counter_add(&g[2], 1);
		if (percpu_counter_sum(&g[2]) != i + 1)
			__atomic_fetch_add(&churn_errors, 1, __ATOMIC_RELAXED);
		percpu_counter_destroy_many(g, 3);
	}
	return NULL;
}

static void test_concurrent_register(void)
{
	long reg = percpu_counter_registered();

	rvtest_run_threads(2, churn_worker, NULL);
	CU_ASSERT_EQUAL(churn_errors, 0);
	CU_ASSERT_EQUAL(percpu_counter_registered(), reg);
}

RVTEST_SUITE(percpu_counter, NULL, NULL, RVTEST(test_nr_cpu_ids), RVTEST(test_set_nr_cpu_ids),
	     RVTEST(test_init_add_sum_destroy), RVTEST(test_errors),
	     RVTEST(test_init_many_one_lock_acquisition), RVTEST(test_group_destroy_one_by_one),
	     RVTEST(test_concurrent_sum_exact), RVTEST(test_concurrent_register));
