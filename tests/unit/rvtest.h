/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/rvtest.h - the CUnit harness every unit test program uses.
 *
 * A test program defines its suites with RVTEST_SUITE and calls
 * rvtest_main(argc, argv).  It prints CUnit's run summary (CI logs show it)
 * and exits non-zero when any assertion failed.  `prog SUITE [TEST]` runs
 * one suite or one test (an unknown one is a usage error, exit 2), `prog
 * --list` lists them; CMake registers one CTest test per suite
 * (tests/unit/rvtest.cmake), so a new RVTEST_SUITE needs nothing else.
 * A watchdog (rvtest.c) fails the program within seconds, printing where
 * each model task waits, when the model's waits stop making progress (a
 * deadlock or a lost wake-up), instead of letting CTest's timeout kill it.
 * Programs using it link with -Wl,--wrap=pthread_join.
 */
#ifndef RCUVFS_TESTS_RVTEST_H
#define RCUVFS_TESTS_RVTEST_H

#include <CUnit/CUnit.h>
#include "vfs/base/base.h"

struct rvtest_case {
	const char *name;
	void (*fn)(void);
};
struct rvtest_suite {
	const char *name;
	int (*init)(void);
	int (*cleanup)(void);
	const struct rvtest_case *cases; /* terminated by {NULL, NULL} */
	struct rvtest_suite *next;
};
void rvtest_register(struct rvtest_suite *s);

/*
 * CUnit is not thread-safe: its asserts belong on the main thread (workers
 * record what they saw, the main thread asserts it).  Every CU_ASSERT* goes
 * through rvtest_assert; one on another thread is not passed to CUnit but
 * reported, and makes the program fail.
 */
CU_BOOL rvtest_assert(CU_BOOL value, unsigned int line, const char *cond, const char *file,
		      const char *func, CU_BOOL fatal);
#define CU_assertImplementation rvtest_assert
int rvtest_main(int argc, char **argv); /* main() lives in rvtest.c */

/*
 * Bounded poll (tests never wait forever): 0 once cond holds, -ETIMEDOUT
 * after ms milliseconds (WAIT_UNTIL: 10 s), yielding between looks.  The
 * bound only ends a hang; no test passes or fails on the time it took.
 */
#define WAIT_UNTIL_MS(cond, ms)                                                                    \
	({                                                                                         \
		uint64_t __end = rv_now_ns() + (uint64_t)(ms)*1000000ull;                          \
		int __r = 0;                                                                       \
		while (!(cond)) {                                                                  \
			if (rv_now_ns() > __end) {                                                 \
				__r = -ETIMEDOUT;                                                  \
				break;                                                             \
			}                                                                          \
			sched_yield();                                                             \
		}                                                                                  \
		__r;                                                                               \
	})
#define WAIT_UNTIL(cond) WAIT_UNTIL_MS(cond, 10000)

/*
 * A counter's value (rv_stat_read).  An unknown name fails the test and
 * gives ~0, which fails the comparisons that follow; main thread only.
 */
static inline uint64_t rvtest_stat(const char *name)
{
	uint64_t v = 0;

	if (rv_stat_read(name, &v)) {
		CU_FAIL("rvtest_stat: unknown counter");
		return ~0ull;
	}
	return v;
}

#define RVTEST_SUITE(nm, initfn, cleanupfn, ...)                                                   \
	static const struct rvtest_case rvtest_cases_##nm[] = {__VA_ARGS__, {NULL, NULL}};         \
	static struct rvtest_suite rvtest_suite_##nm = {#nm, initfn, cleanupfn, rvtest_cases_##nm, \
							NULL};                                     \
	__attribute__((constructor)) static void rvtest_ctor_##nm(void)                            \
	{                                                                                          \
		rvtest_register(&rvtest_suite_##nm);                                               \
	}
#define RVTEST(fn)                                                                                 \
	{                                                                                          \
#fn, fn                                                                            \
	}

/* Suite init/cleanup that create/destroy a model instance with default switches. */
int rvtest_instance_init(void);
int rvtest_instance_cleanup(void);
/* Create an instance with switches given as "name=value" strings (NULL-terminated). */
int rvtest_instance_with(const char *const *settings);

/* Run fn(arg) on n threads, each attached to its own task (clone of `proc`
 * if non-NULL, else a fresh process), started together; joins them. */
void rvtest_run_threads(int n, void *(*fn)(void *), void **args);

#endif
