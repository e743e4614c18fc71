// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/instance.c - the model instance: switches and subsystem lifecycle.
 *
 * The subsystems (vfs, fdtable, locks, mm, ...) are the fixed table
 * rv_initcalls (init/initcalls.c); rv_instance_create runs their init
 * functions in table order, rv_instance_destroy their teardown functions in
 * reverse order and then waits for RCU callbacks (rcu_barrier) so leak
 * counters are final.
 *
 * Locking: rv_instance_lock (pthread mutex) serializes create and destroy;
 * only one instance is live at a time, and rv_sw changes only here.
 */
#include "vfs/base/base.h"

#include <pthread.h>
#include <string.h>

static pthread_mutex_t rv_instance_lock = PTHREAD_MUTEX_INITIALIZER;
static int rv_live;

void rv_task_exit_lazy_current(void);

static uint64_t gauge_tasks(void)
{
	return (uint64_t)task_count_live();
}

/* Tear down the first n subsystems of rv_initcalls, in reverse order. */
static int teardown_upto(int n)
{
	int ret = 0;

	while (n-- > 0) {
		const struct rv_subsys *s = rv_initcalls[n];

		if (s->teardown) {
			int err = s->teardown();

			if (err) {
				fprintf(stderr, "rcuvfs: teardown of %s: %s\n", s->name,
					strerror(-err));
				ret = ret ? ret : err;
			}
		}
	}
	return ret;
}

static int nr_initcalls(void)
{
	int n = 0;

	while (rv_initcalls[n])
		n++;
	return n;
}

int rv_instance_create(const struct rv_switches *sw)
{
	int err = 0;

	rv_rcu_ensure();
	if (sw) {
		char msg[256];

		err = rv_switches_check(sw, msg, sizeof(msg));
		if (err) {
			fprintf(stderr, "rcuvfs: %s\n", msg);
			return err;
		}
	}
	pthread_mutex_lock(&rv_instance_lock);
	if (rv_live) {
		pthread_mutex_unlock(&rv_instance_lock);
		return -EBUSY;
	}
	if (sw)
		rv_sw = *sw;
	else
		rv_switches_default(&rv_sw);
	rv_stats_reset();
	rv_stat_register_gauge("tasks_live", "model tasks alive", gauge_tasks);
	for (int i = 0; rv_initcalls[i]; i++) {
		const struct rv_subsys *s = rv_initcalls[i];

		if (!s->init)
			continue;
		err = s->init();
		if (err) {
			fprintf(stderr, "rcuvfs: init of %s: %s\n", s->name, strerror(-err));
			teardown_upto(i);
			rcu_barrier();
			break;
		}
	}
	if (!err) {
		rv_live = 1;
		rv_fail_alloc_arm(); /* fail_alloc counts the workload's allocations */
	}
	pthread_mutex_unlock(&rv_instance_lock);
	return err;
}

int rv_instance_destroy(void)
{
	int ret = 0;
	long tasks;

	rv_rcu_ensure();
	rv_task_exit_lazy_current();
	pthread_mutex_lock(&rv_instance_lock);
	if (!rv_live) {
		pthread_mutex_unlock(&rv_instance_lock);
		return -ENOENT;
	}
	rv_fail_alloc_disarm(); /* teardown runs without injected failures */
	tasks = task_count_live();
	if (tasks) {
		fprintf(stderr, "rcuvfs: %ld model task(s) still alive at teardown\n", tasks);
		ret = -EBUSY;
	}
	/* the explorer's build: a wake-up of an exited, freed task */
	if (rv_task_freed_touches(true)) {
		fprintf(stderr, "rcuvfs: a freed task was touched (see above)\n");
		if (!ret)
			ret = -EFAULT;
	}
	/* let deferred frees of the last operations run before subsystems
	 * check their caches */
	rcu_barrier();
	{
		int err = teardown_upto(nr_initcalls());

		if (err && !ret)
			ret = err;
	}
	rcu_barrier();
	kmem_cache_flush_thread();
	rv_inject_clear_all();
	rv_live = 0;
	pthread_mutex_unlock(&rv_instance_lock);
	return ret;
}

bool rv_instance_live(void)
{
	return __atomic_load_n(&rv_live, __ATOMIC_ACQUIRE) != 0;
}
