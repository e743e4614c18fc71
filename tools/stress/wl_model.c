// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/stress/wl_model.c - the --model glue (instance, switches, model tasks,
 * counters) and the bkl-mix workload.
 *
 * One model instance per run (workload x task count): the counters start
 * from zero, the switches are those of -o, and the teardown's leak check
 * runs after every run.  The parent thread is attached to a model task
 * ("rcuvfs-stress") for setup/verify/teardown; worker tasks are forked from
 * it (processes mode: own files and mm) or cloned as its threads (threads
 * mode), each on its own host thread.
 *
 * bkl-mix: loop { compute work_us; lock_kernel(); bkl_counter++; spin cs_ns;
 * unlock_kernel(); }.  bkl_counter is plain data protected by the BKL only;
 * with --verify it must equal the number of jobs, and a holder word checks
 * exclusion directly.  The BKL's own counters (bkl_acquisitions,
 * bkl_contended, bkl_sleeps, bkl_handoffs) come from the stats registry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vfs/base/base.h"
#include "stress.h"

void *stress_model_switches_new(void)
{
	struct rv_switches *sw = calloc(1, sizeof(*sw));

	if (sw)
		rv_switches_default(sw);
	return sw;
}

int stress_model_parse_switch(void *sw, const char *name, const char *value)
{
	char err[256] = "";

	if (!rv_switch_known(name)) {
		fprintf(stderr, "rcuvfs-stress: -o %s: unknown switch (see --help)\n", name);
		return -1;
	}
	if (rv_switch_set(sw, name, value, err, sizeof(err))) {
		fprintf(stderr, "rcuvfs-stress: -o %s=%s: %s\n", name, value,
			err[0] ? err : "invalid value");
		return -1;
	}
	return 0;
}

int stress_model_check_switches(const void *sw)
{
	char err[256] = "";

	if (rv_switches_check(sw, err, sizeof(err))) {
		fprintf(stderr, "rcuvfs-stress: %s\n", err);
		return -1;
	}
	return 0;
}

/*
 * --list-counters: the model's counters and gauges with their help text
 * (the gauges register when an instance starts: start one with the default
 * switches and run nothing).  Exit status for main.
 */
int stress_model_list_counters(void)
{
	struct rv_switches sw;
	int ret;

	rv_switches_default(&sw);
	ret = rv_instance_create(&sw);
	if (ret) {
		fprintf(stderr, "rcuvfs-stress: %s\n", strerror(-ret));
		return 1;
	}
	ret = rv_stats_doc(stdout, RV_DOC_TEXT);
	rv_instance_destroy();
	return ret ? 1 : 0;
}

void stress_model_switches_help(void)
{
	rv_switches_help(stdout, "  ");
}

void *stress_model_switches_dup(const void *sw)
{
	struct rv_switches *c = malloc(sizeof(*c));

	if (c)
		memcpy(c, sw, sizeof(*c));
	return c;
}

int stress_model_instance_create(const void *sw, char *err, size_t errlen)
{
	int r = rv_instance_create(sw);

	if (r) {
		snprintf(err, errlen, "rv_instance_create: %s", strerror(-r));
		return -1;
	}
	return 0;
}

int stress_model_instance_destroy(char *err, size_t errlen)
{
	int r = rv_instance_destroy();

	if (r) {
		snprintf(err, errlen, "rv_instance_destroy: %s%s", strerror(-r),
			 r == -EBUSY ? " (model objects leaked, see above)" : "");
		return -1;
	}
	return 0;
}

int stress_model_run_begin(struct stress_run *run)
{
	struct task_struct *t = task_create_process("rcuvfs-stress");

	if (!t)
		return stress_setup_fail(run, "task_create_process", errno ? errno : ENOMEM);
	task_attach(t);
	run->model_parent = t;
	return 0;
}

struct task_struct *stress_model_task_new(struct stress_run *run)
{
	if (run->opt->mode == MODE_PROCESSES)
		return task_fork(run->model_parent);
	return task_clone_thread(run->model_parent);
}

void stress_model_task_attach(struct task_struct *t)
{
	task_attach(t);
}

void stress_model_task_exit(struct task_struct *t)
{
	task_exit(t); /* detaches the calling thread when t is current */
}

void stress_model_run_end(struct stress_run *run)
{
	if (run->model_parent) {
		task_exit(run->model_parent);
		run->model_parent = NULL;
	}
}

void stress_model_foreach_switch(const void *sw,
				 void (*fn)(const char *name, const char *value, void *arg),
				 void *arg)
{
	char buf[256];
	const char *name;

	for (int i = 0; (name = rv_switch_name(i)) != NULL; i++) {
		if (rv_switch_format(sw, name, buf, sizeof(buf)) < 0)
			continue;
		fn(name, buf, arg);
	}
}

struct counter_cb {
	void (*fn)(const char *name, uint64_t value, void *arg);
	void *arg;
};

static void counter_adapt(const char *name, uint64_t value, const char *help, void *arg)
{
	struct counter_cb *cb = arg;

	cb->fn(name, value, cb->arg);
}

void stress_model_foreach_counter(void (*fn)(const char *name, uint64_t value, void *arg),
				  void *arg)
{
	struct counter_cb cb = {fn, arg};

	rv_stat_foreach(counter_adapt, &cb);
}

/* ---- bkl-mix --------------------------------------------------------- */

static int bkl_op(struct stress_task *t)
{
	const struct stress_params *p = &t->run->opt->params;
	bool verify = t->run->opt->verify;

	stress_spin_ns(p->work_us * 1000.0);
	lock_kernel();
	if (verify && !kernel_locked()) {
		unlock_kernel();
		return stress_vfail(t, "kernel_locked() false after lock_kernel()");
	}
	if (verify && stress_excl_enter(t, 0, "lock_kernel")) {
		unlock_kernel();
		return -1;
	}
	/* plain read-modify-write: only the BKL keeps increments from being lost */
	WRITE_ONCE(t->sh->bkl_counter, READ_ONCE(t->sh->bkl_counter) + 1);
	stress_spin_ns(p->cs_ns);
	if (verify)
		stress_excl_exit(t, 0);
	unlock_kernel();
	return 0;
}

static int bkl_verify(struct stress_run *run, uint64_t total_ops)
{
	uint64_t c = run->sh->bkl_counter;

	if (c != total_ops) {
		snprintf(run->verify_msg, sizeof(run->verify_msg),
			 "BKL-protected counter is %llu after %llu jobs", (unsigned long long)c,
			 (unsigned long long)total_ops);
		return 0;
	}
	return 1;
}

const struct stress_impl stress_model_bkl_mix = {
    .op = bkl_op,
    .verify = bkl_verify,
};
