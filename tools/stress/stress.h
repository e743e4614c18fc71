/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tools/stress/stress.h - rcuvfs-stress internals: the workload table, the
 * per-run and per-task contexts, the shared (fork-visible) memory.
 *
 * A workload has up to two implementations (struct stress_impl): one that
 * drives real system calls against a directory (--path) and one that drives
 * the in-process model (--model).  Model implementations are looked up by a
 * weak symbol named stress_model_<name> (dashes become underscores), so a
 * subsystem wires its workloads by adding tools/stress/model_<area>.c that
 * defines them; nothing in the table has to change.
 *
 * Concurrency rules:
 *  - struct stress_shared lives in a MAP_SHARED mapping, so that it is shared
 *    by threads and by forked processes alike.  Each stress_slot is written
 *    only by its own task (ops with relaxed stores, the rest before the task
 *    sets state with a release store) and read by the parent.  `phase` and
 *    `stop` are written only by the parent.
 *  - struct stress_run is set up by the parent before tasks start and is
 *    read-only afterwards (a forked child has its own copy).
 *  - struct stress_task is private to its task.
 */
#ifndef RCUVFS_STRESS_H
#define RCUVFS_STRESS_H

#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

struct task_struct;

enum stress_target { TARGET_PATH = 0, TARGET_MODEL };
enum stress_mode { MODE_THREADS = 0, MODE_PROCESSES };

enum stress_phase { PHASE_INIT = 0, PHASE_WARMUP, PHASE_MEASURE, PHASE_STOP };

enum slot_state { SLOT_STARTING = 0, SLOT_READY, SLOT_DONE, SLOT_FAILED };

/* One task's slot in shared memory; written by that task only. */
struct stress_slot {
	uint64_t ops;		  /* completed operations (relaxed stores) */
	int state;		  /* enum slot_state (release store) */
	int seen_phase;		  /* last phase this task acted on */
	int err;		  /* errno of the failing call (0: verification) */
	int vfail;		  /* the failure is a verification failure */
	struct rusage ru_measure; /* own rusage when it saw PHASE_MEASURE (processes) */
	struct rusage ru_stop;	  /* own rusage when it saw PHASE_STOP (processes) */
	char call[64];		  /* the failing call, e.g. "flock(LOCK_EX)" */
	char msg[192];		  /* verification failure detail */
	cpu_set_t cpus_seen;	  /* CPUs sched_getcpu() reported to this task */
} __attribute__((aligned(128)));

#define STRESS_NHOLDERS 4
/* Directories are kept short enough that every file name built in them fits. */
#define STRESS_DIR_MAX (PATH_MAX / 2)

/* Shared by all tasks of one run (MAP_SHARED). */
struct stress_shared {
	int phase;	 /* enum stress_phase; written by the parent */
	int stop;	 /* tasks leave their loop when set */
	int rdv_arrived; /* test race window: tasks parked in it */
	int rdv_closed;	 /* test race window: closed for good */
	int holder[STRESS_NHOLDERS] __attribute__((aligned(64))); /* exclusion checks */
	uint64_t bkl_counter __attribute__((aligned(64)));	  /* under the BKL */
	struct stress_slot slot[];
};

/* Workload parameters (-p NAME=VALUE); which ones a workload uses: WP_* in its row. */
struct stress_params {
	double work_us;	  /* bkl-mix: compute between critical sections */
	double cs_ns;	  /* bkl-mix: length of the critical section */
	double vmas;	  /* fork-vmas: VMAs of the process that is forked */
	double pages;	  /* page_fault2/3, numa-race, fork-race: pages per task */
	double window_ns; /* numa-race, fork-race: race window widened by this */
	double areas;	  /* mmap-cycle: one-page areas mapped per cycle */
	double pause_us;  /* mmap-cycle: sleep after each cycle */
	double cycles;	  /* every workload: --ops-per-task (0: by duration) */
};
#define STRESS_NPARAMS 8
#define WP_WORK_US     0x01
#define WP_CS_NS       0x02
#define WP_VMAS	       0x04
#define WP_PAGES       0x08
#define WP_WINDOW_NS   0x10
#define WP_AREAS       0x20
#define WP_PAUSE_US    0x40
#define WP_CYCLES      0x80
/* Name and value of parameter i (report order); NULL name past the end. */
const char *stress_param_name(int i);
double stress_param_value(const struct stress_params *p, int i);

/* Options of the whole invocation (read-only once parsed). */
struct stress_opts {
	int target;	  /* enum stress_target */
	const char *path; /* --path DIR */
	int mode;	  /* enum stress_mode */
	double duration_s;
	double warmup_s;
	long ops_per_task; /* fixed work per task instead of a duration (0: off) */
	bool verify;
	bool quiet;
	bool progress;	       /* one-line progress on a TTY */
	bool test_skip_lock;   /* test only: lock-verify skips its locks */
	bool test_race_window; /* test only: rendezvous inside the locked section */
	bool expect_race;      /* numa-race, fork-race: fail unless the race happened */
	double hang_timeout_s; /* bound on start-up and stop of tasks */
	struct stress_params params;
	bool params_set[STRESS_NPARAMS];
	void *switches;		     /* struct rv_switches * (model), opaque here */
	const char **switches_given; /* names given with -o (model) */
	int nswitches_given;
	int ncpus;
	int repeat;    /* --repeat N: rounds over every configuration */
	bool pin;      /* --pin: task i runs on cpus[i % ncpu_list] */
	int *cpu_list; /* --cpus LIST (or the allowed CPUs), in order */
	int ncpu_list;
	bool cpus_given; /* --cpus: every task must run inside cpu_list */
	int round;	 /* the current round (1-based), for progress */
	int run_index;	 /* runs done so far, for progress */
	int runs_total;
	double runs_started_at; /* stress_now() when the first run started */
};

/* Whether the user set model switch `name` with -o. */
bool stress_switch_given(const struct stress_opts *opt, const char *name);

struct stress_workload;
struct stress_impl;

/* One workload x task count (set up by the parent, read-only afterwards). */
struct stress_run {
	const struct stress_opts *opt;
	const struct stress_workload *wl;
	const struct stress_impl *impl;
	int ntasks;
	char dir[STRESS_DIR_MAX];   /* path target: this run's directory */
	char shared_path[PATH_MAX]; /* the shared file */
	char vpath[3][PATH_MAX];    /* lock-verify counter files */
	ino_t shared_ino;
	struct stress_shared *sh;
	void *switches;			  /* model: this run's switches (struct rv_switches *) */
	struct task_struct *model_parent; /* model: the task tasks fork/clone from */
	void *priv;			  /* the workload's own (setup) */
	char setup_call[64];		  /* failure in setup/verify: the call */
	int setup_err;
	char verify_msg[256]; /* why verification failed */
};

/* One task's private context. */
struct stress_task {
	struct stress_run *run;
	struct stress_shared *sh;
	struct stress_slot *slot;
	int id;
	int fd[3];
	char path[PATH_MAX];
	ino_t ino;
	uint64_t iter;
	struct task_struct *mtask; /* model task (model target) */
	void *priv;
};

/*
 * One implementation of a workload.  setup/verify/teardown run in the parent
 * (for --model with a model task attached); task_init/op/task_fini in each
 * task.  Return 0, or -1 after recording the failure with stress_fail()
 * (tasks) or stress_setup_fail() (parent).  verify returns 1 pass, 0 fail
 * (with run->verify_msg set), -1 error.  switches (model only, optional)
 * adjusts this run's switches (run->switches) before the model instance is
 * created, e.g. a default the user did not override; it runs with no
 * instance live and returns 0 or -1 with a message on stderr.
 */
struct stress_impl {
	int (*setup)(struct stress_run *run);
	int (*task_init)(struct stress_task *t);
	int (*op)(struct stress_task *t);
	void (*task_fini)(struct stress_task *t);
	int (*verify)(struct stress_run *run, uint64_t total_ops);
	void (*teardown)(struct stress_run *run);
	int (*switches)(struct stress_run *run);
};

#define WL_VERIFIES	0x1 /* --verify checks something beyond errors */
#define WL_FIXED_PARAMS 0x2 /* uses --param (bkl-mix) */
#define WL_COUNT_PAGES	0x4 /* each op counts `pages` (the pages it faults) */

struct stress_workload {
	const char *name;
	const char *desc;
	unsigned flags;
	int default_tasks; /* 0: 1 and the number of CPUs */
	const struct stress_impl *path;
	const struct stress_impl *model;
	const char *model_note; /* where the model implementation comes from */
	unsigned params;	/* WP_* parameters it uses (reported with the run) */
	/*
	 * Counting: each op adds `count` to ops (0 means 1; WL_COUNT_PAGES:
	 * the `pages` parameter), so that a workload named after a
	 * will-it-scale test counts as that test does (lock1: 2 per lock +
	 * unlock pair; page_fault1: 1 per page).  `counting` says how, for
	 * --list.
	 */
	int count;
	const char *counting;
};
/* Iterations one op of `wl` counts with these parameters. */
uint64_t stress_op_count(const struct stress_workload *wl, const struct stress_params *p);

extern const struct stress_workload stress_workloads[];
extern const int stress_nworkloads;
const struct stress_workload *stress_find_workload(const char *name);

/* Implementations (wl_path.c, wl_model.c; model_*.c add more). */
extern const struct stress_impl path_fstat1, path_fstat2, path_stat1, path_stat2, path_open1,
    path_open3, path_dup1, path_flock1, path_flock2, path_lock1, path_lock2, path_ofd2,
    path_lock_verify, path_zero;

/* Record a failing call in the task's slot and ask everyone to stop; returns -1. */
int stress_fail(struct stress_task *t, const char *call, int err);
/* Record a verification failure (printf-style detail); returns -1. */
int stress_vfail(struct stress_task *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parent side: a failing call in setup/verify; returns -1. */
int stress_setup_fail(struct stress_run *run, const char *call, int err);

/* Mutual-exclusion check on shared word `which`: enter after the lock is taken. */
int stress_excl_enter(struct stress_task *t, int which, const char *what);
void stress_excl_exit(struct stress_task *t, int which);

/*
 * Test-only race window: once per run, the first tasks to get here wait
 * (bounded) until all tasks have arrived.  Inside a broken lock every task
 * arrives, so a read-modify-write loses an update deterministically; inside
 * a working lock the wait times out once and the window closes for good.
 */
void stress_race_window(struct stress_task *t);

/* Model glue (wl_model.c). */
int stress_model_parse_switch(void *sw, const char *name, const char *value);
void *stress_model_switches_new(void);
/* Combinations of switches no kernel had: prints the error, returns -1. */
int stress_model_check_switches(const void *sw);
void *stress_model_switches_dup(const void *sw);
int stress_model_instance_create(const void *sw, char *err, size_t errlen);
int stress_model_instance_destroy(char *err, size_t errlen);
int stress_model_run_begin(struct stress_run *run); /* parent task */
struct task_struct *stress_model_task_new(struct stress_run *run);
void stress_model_task_attach(struct task_struct *t);
void stress_model_task_exit(struct task_struct *t);
void stress_model_run_end(struct stress_run *run);
void stress_model_switches_help(void);
int stress_model_list_counters(void); /* --list-counters; exit status */
/* name/value iteration for reports: fn called once per switch / counter. */
void stress_model_foreach_switch(const void *sw,
				 void (*fn)(const char *name, const char *value, void *arg),
				 void *arg);
void stress_model_foreach_counter(void (*fn)(const char *name, uint64_t value, void *arg),
				  void *arg);

/* Name -> value pairs (switches and counters of one run). */
struct stress_kv {
	char *name;
	char *str;    /* switches: the value as text */
	uint64_t val; /* counters */
};
struct stress_kvset {
	int n, cap;
	struct stress_kv *kv;
};
void kvset_add(struct stress_kvset *s, const char *name, const char *str, uint64_t val);
void kvset_free(struct stress_kvset *s);
const struct stress_kv *kvset_find(const struct stress_kvset *s, const char *name);

/* The measured result of one workload x task count. */
struct stress_result {
	const char *workload;
	const char *target; /* "model" or the path */
	int mode;
	int tasks;
	double duration_s; /* requested (fixed-work runs: 0) */
	long ops_per_task; /* fixed work per task, 0 for timed runs */
	uint64_t ops;	   /* ops completed inside the measured window */
	double ops_per_sec;
	double task_min, task_max; /* per-task ops/s */
	double wall_s, cpu_s, idle_frac;
	double sys_idle_frac; /* whole machine, /proc/stat (idle+iowait); -1 unknown */
	long nvcsw, nivcsw;
	const char *verify; /* "pass", "fail", "n/a" */
	bool failed;	    /* an error or a verification failure */
	bool has_params;
	unsigned param_mask; /* WP_* shown for this run */
	struct stress_params params;
	struct stress_kvset switches, counters;
	uint64_t count_per_op; /* iterations one op counts (see stress_workload) */
	const char *sweep;     /* "--sweep" value of this configuration, or "" */
	int config;	       /* index of the configuration (sweep value) */
	/* over the --repeat samples of this configuration (set by aggregate) */
	int nsamples;
	double *samples; /* ops/s of each round */
	double ops_median, ops_min, ops_max, ops_stddev;
	double scaling; /* ops/s at n tasks / (n x ops/s at 1 task); <0 unknown */
	/* per task: the CPUs it was seen running on (tasks entries, malloc'd;
	 * aggregated results: the union over their samples) */
	cpu_set_t *task_cpus;
	bool show_cpus; /* --pin or --cpus: the table lists task_cpus */
};

/* Metadata every output file carries (filled once by main). */
struct stress_meta {
	char kernel[128]; /* uname -r */
	char machine[72]; /* uname -m */
	char cpu_model[128];
	int cpus_online;
	int cpus_used;
	char date[32]; /* UTC, ISO 8601 */
	char *cmdline; /* argv joined with spaces (shell-quoted where needed) */
	const char *version, *commit;
	struct stress_kvset switches; /* model: the switches given; path: the mount's config */
	const char *target;
};

/* report.c */
void report_table(FILE *out, const struct stress_result *r, int n, int ncpus);
/* "0-3,8" for a CPU set (empty string for none). */
void stress_cpulist(const cpu_set_t *set, char *buf, size_t len);
int report_json(FILE *f, const char *name, const struct stress_meta *m,
		const struct stress_result *r, int n, int ncpus);
int report_csv(FILE *f, const char *name, const struct stress_meta *m,
	       const struct stress_result *r, int n);
struct stress_stats {
	int n;
	double median, min, max, stddev; /* stddev: sample (n - 1); 0 for n = 1 */
};
void stress_stats(const double *v, int n, struct stress_stats *st);
/* --summarize: "KEY... VALUE" lines in, "KEY n median min max stddev" out. */
int stress_summarize(FILE *in, FILE *out);
/* Fold the samples of every configuration into one result each (median etc.). */
int report_aggregate(struct stress_result *r, int n, struct stress_result **out);
const char *stress_mode_name(int mode);

/* Time helper (CLOCK_MONOTONIC seconds). */
double stress_now(void);
/* Busy-wait for `ns` nanoseconds. */
void stress_spin_ns(double ns);

#endif /* RCUVFS_STRESS_H */
