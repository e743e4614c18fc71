/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tools/explore/explore.h - rcuvfs-explore: scenarios, strategies, runs.
 *
 * A scenario is a setup, two or three model tasks each running a short list
 * of operations, and oracles: a postcondition (check), the instance's leak
 * check at teardown, and, for scenarios whose operations have results,
 * linearizability (the results must equal those of some serial order of the
 * same operations that respects the real-time order of the concurrent run;
 * each serial order runs in a fresh instance).  Adding a scenario is one
 * small file: define a struct xscenario and register it with XSCENARIO().
 *
 * Locking: each schedule runs in one fresh model instance; the driver thread
 * runs setup, check and teardown while no task runs; task threads run the
 * operations one at a time under the explorer (vfs/base/explore.h), so a
 * scenario's private state needs no lock.
 */
#ifndef RCUVFS_TESTS_EXPLORE_H
#define RCUVFS_TESTS_EXPLORE_H

#include "fdtable/fdtable.h"
#include "fdtable/testing.h"
#include "locks/locks.h"
#include "locks/testing.h"
#include "mm/mm.h"
#include "mm/testing.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XS_MAX_OPS    4
#define XS_MAX_PARAMS 4

/* A scenario-local switch (a variant of the code under test, not of rv_sw). */
struct xs_param {
	const char *name;
	const char *values[6]; /* values[0] is the default */
	const char *help;
};

/* One line of the scenario's test matrix: options and what must come out. */
struct xs_variant {
	const char *options; /* "-o" text, e.g. "fget=norecheck,fileref=file-ref" */
	bool buggy;	     /* the explorer must find a failure (else: clean) */
};

struct xs_run;

struct xscenario {
	const char *name;
	const char *summary;
	int ntasks;
	int nops[RV_XMAX_TASKS];
	const char *opname[RV_XMAX_TASKS][XS_MAX_OPS];
	struct xs_param params[XS_MAX_PARAMS];
	struct xs_variant variants[12]; /* the CTest matrix; ends at options == NULL */
	/* --matrix runs every variant once under each of these option sets
	 * (appended to the variant's options); NULL: once, as written. */
	const char *const *cross;
	int matrix_k; /* --matrix without --preemptions: K (0: 2) */
	int cross_k;  /* the same, under every cross set but the first (0: matrix_k) */
	bool linearizable;
	size_t priv_size;
	/* In a fresh instance, on the driver thread: create r->task[] and state. */
	int (*setup)(struct xs_run *r);
	/* Optional: in task `task`'s own thread before the schedule, the tasks
	 * one after another, no scheduling points, `current` set: state that
	 * must come from the task's own thread (an object that its later free
	 * and reallocation recycle through its per-CPU slab slot); 0 or -errno. */
	int (*task_setup)(struct xs_run *r, int task);
	/* Operation `op` of task `task`, in that task's thread, `current` set. */
	long (*op)(struct xs_run *r, int task, int op);
	/* Optional: an invariant of the state between critical sections,
	 * checked at every decision of the schedule where no task holds a
	 * spinlock_t or the BKL, so that a state that is broken for a while
	 * and heals before the end is caught; runs on the baton holder's
	 * thread with every other task parked; 0, or 1 with the reason. */
	int (*midcheck)(struct xs_run *r, char *why, size_t len);
	/* After every task finished: 0, or 1 with the reason in why. */
	int (*check)(struct xs_run *r, char *why, size_t len);
	/* Exit the tasks and free what setup made (before the leak check). */
	void (*teardown)(struct xs_run *r);
	/* Optional: print operation (task, op)'s result (default: the number). */
	void (*format)(int task, int op, long result, char *buf, size_t len);
	struct xscenario *next;
};

struct xs_run {
	const struct xscenario *sc;
	const char *pval[XS_MAX_PARAMS]; /* the scenario's params in force */
	struct task_struct *task[RV_XMAX_TASKS];
	long result[RV_XMAX_TASKS][XS_MAX_OPS];
	uint64_t op_begin[RV_XMAX_TASKS][XS_MAX_OPS]; /* step stamps */
	uint64_t op_end[RV_XMAX_TASKS][XS_MAX_OPS];
	int between[RV_XMAX_TASKS]; /* the task is not inside an operation */
	int ops_started;	    /* over all tasks */
	void *priv;		    /* priv_size bytes, zeroed per run */
	int task_setup_err;	    /* the first task_setup error */
	char midwhy[400];	    /* the midcheck's reason, when it failed */
	uint64_t midstep;	    /* the decision at which it failed */
	uint64_t midchecks;	    /* decisions at which it ran */
};

void xscenario_register(struct xscenario *sc);
#define XSCENARIO(var)                                                                             \
	__attribute__((constructor)) static void xs_register_##var(void)                           \
	{                                                                                          \
		xscenario_register(&var);                                                          \
	}
const struct xscenario *xscenario_find(const char *name);
const struct xscenario *xscenario_first(void);

/* The value of scenario param `name` in this run ("" if unknown). */
const char *xs_param(const struct xs_run *r, const char *name);
bool xs_param_is(const struct xs_run *r, const char *name, const char *value);

/* Helpers for scenarios. */
struct task_struct *xs_process(struct xs_run *r, int i, const char *comm);
struct task_struct *xs_thread_of(struct xs_run *r, int i, int of);
void xs_exit_tasks(struct xs_run *r);
/* A midcheck for the lock scenarios: locks_check_live's invariants of the
 * lock lists, between critical sections (a tree broken for a while and
 * mended by a later wake-up is caught here, not only at the end). */
int xs_locks_midcheck(struct xs_run *r, char *why, size_t len);

/* ---- runs, strategies, schedule ids (run.c, strategy.c) -------------------- */

/* A configuration: a scenario with its options. */
struct xs_config {
	const struct xscenario *sc;
	struct rv_switches sw;
	const char *pval[XS_MAX_PARAMS];
	char options[256]; /* the -o text as given (canonical order) */
};

/* --end-checks-only: no midcheck (the oracles run after the schedule only). */
extern bool xs_midcheck_off;

/* Parse "name=value,..." into cfg (model switches and scenario params). */
int xs_config_parse(struct xs_config *cfg, const struct xscenario *sc, const char *opts, char *err,
		    size_t errlen);

enum xs_verdict { XS_OK = 0, XS_FAIL, XS_INFEASIBLE };

struct xs_outcome {
	int verdict; /* enum xs_verdict */
	int xstatus; /* enum rv_xstatus of the run */
	char why[512];
	struct rv_xresult xr;
};

/* A choice sequence: decisions where the choice was not the default. */
struct xs_choice {
	uint64_t step;
	int task;
};
struct xs_sched {
	struct xs_choice *c;
	size_t n, cap;
};
void xs_sched_add(struct xs_sched *s, uint64_t step, int task);
void xs_sched_free(struct xs_sched *s);
/* "12.1,40.0" (or "-"); returns bytes needed. */
size_t xs_sched_format(const struct xs_sched *s, char *buf, size_t len);
int xs_sched_parse(struct xs_sched *s, const char *text);
/* The default choice: keep the current task if it can run, else the lowest. */
int xs_default_choice(const struct rv_xdecision *d);

/* Run one schedule under `choose`; fills out; returns 0 or -errno (setup). */
int xs_run_one(const struct xs_config *cfg, rv_xchoose_fn choose, void *ctx, bool keep_trace,
	       struct xs_outcome *out);
/* Serial results for linearizability (computed once per config). */
int xs_serial_prepare(const struct xs_config *cfg);
void xs_serial_release(void);
/* Print a trace (task, point, operation) to f. */
void xs_print_trace(FILE *f, const struct xs_config *cfg, const struct rv_xresult *xr,
		    const struct xs_run *r);
/* The trace as an HTML page: a lane per task, each step at its point with
 * its code location, preemptions marked, the locks held, the results and
 * the oracle's verdict. */
void xs_write_trace_html(FILE *f, const struct xs_config *cfg, const struct rv_xresult *xr,
			 const struct xs_run *r, const char *id, const char *verdict);
/* The run of the last xs_run_one (results, stamps) for reports. */
const struct xs_run *xs_last_run(void);

#endif /* RCUVFS_TESTS_EXPLORE_H */
