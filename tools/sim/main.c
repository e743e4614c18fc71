// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/sim/main.c - rcuvfs-sim: the command line, and rcuvfs-stress's model
 * workloads (tools/stress/model_*.c, wl_model.c, workloads.c, compiled in)
 * driven on virtual CPUs.
 *
 * One run = workload x switches x CPU count x task count, in a fresh model
 * instance: the parent model task is attached to the driver thread (setup,
 * verify, teardown), each worker is a model task on its own host thread
 * under the engine; attach and task_init run before the simulation (one task
 * after another, no points), the operation loop runs in virtual time until
 * the window ends, task_fini and the task's exit after it.  An operation
 * counts when it completes inside the measured window (after the warm-up).
 *
 * Locking: the driver thread owns everything here between runs; during a
 * run, the per-task counters are written by their task only (under the
 * engine's baton) and read after the run.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/cli.h"
#include "rcuvfs_git.h"
#include "sim.h"
#include "stress.h"
#include "vfs/base/base.h"

/* ---- what rcuvfs-stress's main.c gives its workloads ------------------- */

/* The --path implementations are not part of the simulator. */
const struct stress_impl path_fstat1, path_fstat2, path_stat1, path_stat2, path_open1, path_open3,
    path_dup1, path_flock1, path_flock2, path_lock1, path_lock2, path_ofd2, path_lock_verify,
    path_zero;

double stress_now(void)
{
	if (sim_self() >= 0)
		return (double)sim_now() * 1e-12;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A compute loop of a workload: virtual time, no host time. */
void stress_spin_ns(double ns)
{
	if (ns > 0 && sim_self() >= 0)
		sim_advance((int64_t)(ns * PS_PER_NS + 0.5));
}

int stress_fail(struct stress_task *t, const char *call, int err)
{
	snprintf(t->slot->call, sizeof(t->slot->call), "%s", call);
	t->slot->err = err;
	t->slot->state = SLOT_FAILED;
	t->sh->stop = 1;
	return -1;
}

int stress_vfail(struct stress_task *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->slot->msg, sizeof(t->slot->msg), fmt, ap);
	va_end(ap);
	t->slot->vfail = 1;
	return stress_fail(t, "verify", 0);
}

int stress_setup_fail(struct stress_run *run, const char *call, int err)
{
	snprintf(run->setup_call, sizeof(run->setup_call), "%s", call);
	run->setup_err = err;
	return -1;
}

int stress_excl_enter(struct stress_task *t, int which, const char *what)
{
	int prev = t->sh->holder[which];

	t->sh->holder[which] = t->id + 1;
	if (prev)
		return stress_vfail(t, "%s granted while task %d holds the lock", what, prev - 1);
	return 0;
}

void stress_excl_exit(struct stress_task *t, int which)
{
	t->sh->holder[which] = 0;
}

void stress_race_window(struct stress_task *t)
{
	(void)t; /* test-only rendezvous of rcuvfs-stress: not simulated */
}

static const struct stress_opts *g_opt;

bool stress_switch_given(const struct stress_opts *opt, const char *name)
{
	for (int i = 0; i < opt->nswitches_given; i++)
		if (!strcmp(opt->switches_given[i], name))
			return true;
	return false;
}

static const struct {
	const char *name;
	size_t off;
} param_table[] = {
    {"work_us", offsetof(struct stress_params, work_us)},
    {"cs_ns", offsetof(struct stress_params, cs_ns)},
    {"vmas", offsetof(struct stress_params, vmas)},
    {"pages", offsetof(struct stress_params, pages)},
    {"window_ns", offsetof(struct stress_params, window_ns)},
    {"areas", offsetof(struct stress_params, areas)},
    {"pause_us", offsetof(struct stress_params, pause_us)},
    {"cycles", offsetof(struct stress_params, cycles)},
};

const char *stress_param_name(int i)
{
	return i >= 0 && i < STRESS_NPARAMS ? param_table[i].name : NULL;
}

double stress_param_value(const struct stress_params *p, int i)
{
	return *(const double *)((const char *)p + param_table[i].off);
}

/* ---- options ------------------------------------------------------------ */

enum { FMT_TABLE, FMT_CSV, FMT_JSON };

static struct {
	const char *workloads[64];
	int nworkloads;
	int cpus[64], ncpus;   /* virtual CPU counts */
	int tasks[64], ntasks; /* task counts (0: = CPUs) */
	const char *topo_path;
	const char *calib_spec;
	const char *calibrate_out;
	double time_us, warmup_us;
	uint64_t cal_ops;
	unsigned long seed;
	int format;
	bool progress;
	bool header_done;
	const char *sweep_name;
	char *sweep_vals[16];
	int nsweep;
	struct stress_opts sopt;
	const char *given[64];
} O;

static void usage(FILE *f)
{
	fprintf(
	    f, "usage: rcuvfs-sim [options] -w WORKLOAD[,WORKLOAD...]\n"
	       "       rcuvfs-sim --calibrate FILE [-w WORKLOAD,...]\n"
	       "       rcuvfs-sim --selftest NAME|all\n"
	       "\n"
	       "Runs rcuvfs-stress's model workloads (the model's own code, the explorer build)\n"
	       "on N virtual CPUs in virtual time: a discrete-event loop over the scheduling\n"
	       "points, with per-segment costs measured on this machine (--calibrate), a\n"
	       "cache-coherence model of the lines the points name and a scheduler (run\n"
	       "queues, time slices, wake-up latency).  See docs/sim.md.\n"
	       "\n"
	       "  -w, --workload LIST      workloads (rcuvfs-stress --list; the model ones)\n"
	       "  -T, --topology FILE      topology (tools/sim/topologies/*.topo; required)\n"
	       "  -C, --calibration SPEC   segment costs: a file from --calibrate, or uniform:NS\n"
	       "  -c, --cpus LIST          virtual CPU counts, e.g. 1,2,8,24 (default: all of the\n"
	       "                           topology); CPUs are taken in Linux order (cores first)\n"
	       "  -t, --tasks LIST         tasks per run (default: one per CPU); a list gives one\n"
	       "                           run per count, each at every CPU count\n"
	       "  -d, --time US            virtual time measured per run, microseconds (1000)\n"
	       "      --warmup US          virtual warm-up not counted (default: time/10)\n"
	       "  -o NAME=VALUE            model switch (rcuvfs-stress --help lists them)\n"
	       "      --sweep NAME=V1,V2   one run per value of a switch, on top of -o\n"
	       "  -p, --param NAME=VALUE   workload parameter (work_us, cs_ns, vmas, pages,\n"
	       "                           areas, pause_us)\n"
	       "  -m, --mode threads|processes  model tasks as threads of one process (default)\n"
	       "                           or separate model processes\n"
	       "      --seed N             staggers the tasks' start by up to 100 ns (default 1)\n"
	       "      --calibrate FILE     measure the segment costs of the workloads (one task,\n"
	       "                           one CPU, this machine) and write FILE\n"
	       "      --calibrate-ops N    ops per workload when calibrating (20000)\n"
	       "      --csv, --json        machine-readable rows instead of the table\n"
	       "      --progress           a progress line on stderr (default: when a TTY)\n"
	       "      --selftest NAME      the engine's unit tests: pingpong, private, fifo,\n"
	       "                           percpu, window, retry, all\n"
	       "      --measure-host A,B   measure this machine's latencies between CPUs A and B\n"
	       "                           (tools/sim/host-topo.sh writes a topology from them)\n"
	       "  -V, --version            print the version and git commit, and exit\n"
	       "  -h, --help               this text\n"
	       "\n"
	       "Output: one row per run: ops/s in virtual time, idle %%, voluntary switches\n"
	       "and wake-ups per op, line transfers per op, and the host seconds it took.\n"
	       "Same options, topology and calibration: the same bytes (except host_s; --csv\n"
	       "and --json print it too, the table does not).\n");
}

static int parse_list(const char *arg, int *out, int max, const char *what)
{
	char buf[256], *save = NULL, *tok;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);

		if (*end || v < 1 || v > 100000 || n == max) {
			fprintf(stderr, "rcuvfs-sim: %s: bad list '%s'\n", what, arg);
			exit(2);
		}
		out[n++] = (int)v;
	}
	if (!n) {
		fprintf(stderr, "rcuvfs-sim: %s: empty list\n", what);
		exit(2);
	}
	return n;
}

static double parse_num(const char *arg, const char *what)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= 0)) {
		fprintf(stderr, "rcuvfs-sim: %s: not a number >= 0: '%s'\n", what, arg);
		exit(2);
	}
	return v;
}

/* ---- one run ------------------------------------------------------------ */

struct wl_ctx {
	struct stress_run run;
	struct stress_task *tasks;
	uint64_t *ops, *counted;
	int64_t warm_ps, end_ps;
	uint64_t max_ops; /* calibration: a fixed number of ops, not a time */
	int failed;
};

static void wl_prologue(int i, void *arg)
{
	struct wl_ctx *w = arg;
	struct stress_task *t = &w->tasks[i];

	for (int k = 0; k < 3; k++)
		t->fd[k] = -1;
	stress_model_task_attach(t->mtask);
	if (w->run.impl->task_init && w->run.impl->task_init(t))
		w->failed = 1;
}

static void wl_body(int i, void *arg)
{
	struct wl_ctx *w = arg;
	struct stress_task *t = &w->tasks[i];

	if (w->failed)
		return;
	/* stagger: the tasks do not start in lockstep (--seed) */
	sim_advance((int64_t)(((O.seed * 2654435761u + (unsigned long)i * 40503u) >> 4) % 100000));
	while ((w->max_ops ? w->ops[i] < w->max_ops : sim_now() < w->end_ps) && !t->sh->stop) {
		if (w->run.impl->op(t)) {
			w->failed = 1;
			break;
		}
		w->ops[i]++;
		t->iter = w->ops[i];
		if (sim_now() > w->warm_ps && sim_now() <= w->end_ps)
			w->counted[i]++;
	}
}

static void wl_epilogue(int i, void *arg)
{
	struct wl_ctx *w = arg;
	struct stress_task *t = &w->tasks[i];

	if (w->run.impl->task_fini)
		w->run.impl->task_fini(t);
	stress_model_task_exit(t->mtask);
}

static void add_counter(const char *name, uint64_t value, void *arg)
{
	uint64_t *out = arg;

	if (!strcmp(name, "bkl_handoffs"))
		out[0] = value;
	else if (!strcmp(name, "lockref_fallbacks"))
		out[1] = value;
	else if (!strcmp(name, "lockref_cmpxchg_retries"))
		out[2] = value;
	else if (!strcmp(name, "bkl_acquisitions"))
		out[3] = value;
}

static void print_row(const char *wl, const char *sw, const struct sim_topo *tp, int ntasks,
		      double opsps, double idle, double vol, double wake, double xfer, double ppo,
		      double fb, const uint64_t *ctr, uint64_t ops, double host_s,
		      const char *verify)
{
	if (O.format == FMT_CSV) {
		if (!O.header_done)
			printf("workload,sweep,topology,cpus,tasks,virtual_us,ops,ops_per_sec,"
			       "idle_pct,vol_switches_per_op,wakeups_per_op,transfers_per_op,"
			       "points_per_op,fallback_pct,bkl_handoffs,lockref_retries,"
			       "lockref_fallbacks,verify,host_s\n");
		printf("%s,%s,%s,%d,%d,%.0f,%llu,%.0f,%.2f,%.4f,%.4f,%.3f,%.1f,%.1f,%llu,%llu,%llu,"
		       "%s,%.2f\n",
		       wl, sw, tp->name, tp->ncpus, ntasks, O.time_us, (unsigned long long)ops,
		       opsps, idle, vol, wake, xfer, ppo, fb, (unsigned long long)ctr[0],
		       (unsigned long long)ctr[2], (unsigned long long)ctr[1], verify, host_s);
	} else if (O.format == FMT_JSON) {
		printf("{\"workload\":\"%s\",\"sweep\":\"%s\",\"topology\":\"%s\",\"cpus\":%d,"
		       "\"tasks\":%d,\"virtual_us\":%.0f,\"ops\":%llu,\"ops_per_sec\":%.0f,"
		       "\"idle_pct\":%.2f,\"vol_switches_per_op\":%.4f,\"wakeups_per_op\":%.4f,"
		       "\"transfers_per_op\":%.3f,\"points_per_op\":%.1f,\"fallback_pct\":%.1f,"
		       "\"bkl_handoffs\":%llu,\"lockref_retries\":%llu,\"lockref_fallbacks\":%llu,"
		       "\"verify\":\"%s\",\"host_s\":%.2f}\n",
		       wl, sw, tp->name, tp->ncpus, ntasks, O.time_us, (unsigned long long)ops,
		       opsps, idle, vol, wake, xfer, ppo, fb, (unsigned long long)ctr[0],
		       (unsigned long long)ctr[2], (unsigned long long)ctr[1], verify, host_s);
	} else {
		if (!O.header_done)
			printf("%-10s %-26s %5s %6s %12s %7s %8s %8s %8s %7s %6s %9s %s\n",
			       "workload", "switches", "cpus", "tasks", "ops/s", "idle%", "vol/op",
			       "wake/op", "xfer/op", "pts/op", "fb%", "lr_retry", "verify");
		printf("%-10s %-26s %5d %6d %12.0f %7.2f %8.4f %8.4f %8.3f %7.1f %6.1f %9llu %s\n",
		       wl, sw[0] ? sw : "-", tp->ncpus, ntasks, opsps, idle, vol, wake, xfer, ppo,
		       fb, (unsigned long long)ctr[2], verify);
	}
	O.header_done = true;
	fflush(stdout);
}

static struct sim_result last_res; /* calibration: the last run's totals */

static int one_run(const struct stress_workload *wl, const void *base_sw, const char *swdesc,
		   const struct sim_topo *topo_full, int ncpu, int ntasks, struct sim_calib *cal,
		   int recording)
{
	struct sim_topo tp = *topo_full;
	struct wl_ctx w;
	struct sim_cfg cfg;
	struct sim_result res;
	size_t shsize = sizeof(struct stress_shared) + (size_t)ntasks * sizeof(struct stress_slot);
	char err[256];
	uint64_t ctr[4] = {0}, ops = 0, counted = 0, vol = 0, wake = 0;
	int rc = 0;
	const char *verify = "n/a";

	if (sim_topo_limit(&tp, ncpu)) {
		fprintf(stderr, "rcuvfs-sim: %s has %d CPUs, not %d\n", tp.name,
			topo_full->sockets * topo_full->cores * topo_full->threads, ncpu);
		return -1;
	}
	memset(&w, 0, sizeof(w));
	w.run.opt = &O.sopt;
	w.run.wl = wl;
	w.run.impl = wl->model;
	w.run.ntasks = ntasks;
	w.run.sh = calloc(1, shsize);
	w.run.switches = stress_model_switches_dup(base_sw);
	w.tasks = calloc((size_t)ntasks, sizeof(*w.tasks));
	w.ops = calloc((size_t)ntasks, sizeof(uint64_t));
	w.counted = calloc((size_t)ntasks, sizeof(uint64_t));
	if (!w.run.sh || !w.run.switches || !w.tasks || !w.ops || !w.counted) {
		fprintf(stderr, "rcuvfs-sim: out of memory\n");
		exit(1);
	}
	w.max_ops = recording ? O.cal_ops : 0;
	w.warm_ps = (int64_t)(O.warmup_us * 1e6);
	w.end_ps = w.warm_ps + (int64_t)(O.time_us * 1e6);
	if (w.run.impl->switches && w.run.impl->switches(&w.run))
		return -1;
	/* The simulated machine's possible CPUs, so that every virtual CPU has
	 * its own row of per-CPU data.  Calibrating (one CPU) uses two rows, so
	 * that a loop over the rows (percpu_counter_sum) is measured. */
	rv_set_nr_cpu_ids(recording ? 2 : tp.ncpus);
	if (stress_model_instance_create(w.run.switches, err, sizeof(err))) {
		fprintf(stderr, "rcuvfs-sim: %s: %s\n", wl->name, err);
		return -1;
	}
	if (stress_model_run_begin(&w.run) || (w.run.impl->setup && w.run.impl->setup(&w.run))) {
		fprintf(stderr, "rcuvfs-sim: %s: setup failed: %s: %s\n", wl->name,
			w.run.setup_call, strerror(w.run.setup_err));
		exit(1);
	}
	for (int i = 0; i < ntasks; i++) {
		struct stress_task *t = &w.tasks[i];

		t->run = &w.run;
		t->sh = w.run.sh;
		t->slot = &w.run.sh->slot[i];
		t->id = i;
		t->mtask = stress_model_task_new(&w.run);
		if (!t->mtask) {
			fprintf(stderr, "rcuvfs-sim: %s: task_fork/task_clone_thread failed\n",
				wl->name);
			exit(1);
		}
	}
	w.run.sh->phase = PHASE_MEASURE;
	memset(&cfg, 0, sizeof(cfg));
	cfg.topo = &tp;
	cfg.calib = cal;
	cfg.ntasks = ntasks;
	cfg.body = wl_body;
	cfg.prologue = wl_prologue;
	cfg.epilogue = wl_epilogue;
	cfg.arg = &w;
	cfg.recording = recording == 1;
	cfg.plain = recording == 2;
	cfg.progress = O.progress;
	cfg.end_ps = w.end_ps;
	cfg.warm_ps = w.warm_ps;
	if (!recording)
		sim_calib_select(cal, wl->name);
	if (sim_run(&cfg, &res) || (last_res = res, 0)) {
		fprintf(stderr, "rcuvfs-sim: %s: the simulation could not start\n", wl->name);
		exit(1);
	}
	for (int i = 0; i < ntasks; i++) {
		const struct sim_task_stats *st = sim_task_stats(i);

		ops += w.ops[i];
		counted += w.counted[i];
		vol += st->vol_switches;
		wake += st->wakeups;
		if (w.run.sh->slot[i].state == SLOT_FAILED) {
			fprintf(stderr, "rcuvfs-sim: %s: task %d failed: %s: %s %s\n", wl->name, i,
				w.run.sh->slot[i].call, strerror(w.run.sh->slot[i].err),
				w.run.sh->slot[i].msg);
			rc = -1;
		}
	}
	stress_model_foreach_counter(add_counter, ctr);
	if (w.run.impl->verify) {
		int v = w.run.impl->verify(&w.run, ops);

		verify = v == 1 ? "ok" : "FAILED";
		if (v != 1) {
			fprintf(stderr, "rcuvfs-sim: %s: verification failed: %s\n", wl->name,
				w.run.verify_msg);
			rc = -1;
		}
	}
	if (w.run.impl->teardown)
		w.run.impl->teardown(&w.run);
	stress_model_run_end(&w.run);
	if (stress_model_instance_destroy(err, sizeof(err))) {
		fprintf(stderr, "rcuvfs-sim: %s: %s\n", wl->name, err);
		rc = -1;
	}
	if (!recording) {
		double window_s = (double)(w.end_ps - w.warm_ps) * 1e-12;
		double per = counted ? (double)counted : 1;
		int64_t idle = 0, tot = 0;
		uint64_t cnt = stress_op_count(wl, &O.sopt.params);

		for (int c = 0; c < tp.ncpus; c++) {
			idle += res.idle_ps[c];
			tot += res.idle_ps[c] + res.busy_ps[c];
		}
		(void)ops;
		print_row(wl->name, swdesc, &tp, ntasks, (double)(counted * cnt) / window_s,
			  tot ? 100.0 * (double)idle / (double)tot : 0, (double)vol / per,
			  (double)wake / per, (double)sim_cstats.transfers / per,
			  (double)res.points / per,
			  res.points ? 100.0 * (double)res.fallback_segments / (double)res.points
				     : 0,
			  ctr, counted * cnt, res.host_s, verify);
	}
	free(w.run.sh);
	free(w.run.switches);
	free(w.tasks);
	free(w.ops);
	free(w.counted);
	return rc;
}

/* ---- main --------------------------------------------------------------- */

enum {
	OPT_WARMUP = 256,
	OPT_SWEEP,
	OPT_SEED,
	OPT_CALIBRATE,
	OPT_CSV,
	OPT_JSON,
	OPT_PROGRESS,
	OPT_SELFTEST,
	OPT_MEASURE,
	OPT_CALOPS,
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"workload", required_argument, NULL, 'w'},
	    {"topology", required_argument, NULL, 'T'},
	    {"calibration", required_argument, NULL, 'C'},
	    {"cpus", required_argument, NULL, 'c'},
	    {"tasks", required_argument, NULL, 't'},
	    {"time", required_argument, NULL, 'd'},
	    {"warmup", required_argument, NULL, OPT_WARMUP},
	    {"sweep", required_argument, NULL, OPT_SWEEP},
	    {"param", required_argument, NULL, 'p'},
	    {"mode", required_argument, NULL, 'm'},
	    {"seed", required_argument, NULL, OPT_SEED},
	    {"calibrate", required_argument, NULL, OPT_CALIBRATE},
	    {"calibrate-ops", required_argument, NULL, OPT_CALOPS},
	    {"csv", no_argument, NULL, OPT_CSV},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"progress", no_argument, NULL, OPT_PROGRESS},
	    {"selftest", required_argument, NULL, OPT_SELFTEST},
	    {"measure-host", required_argument, NULL, OPT_MEASURE},
	    {"version", no_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	/* reachable from a global: early returns leave nothing leaked */
	static void *sw;
	struct sim_topo topo;
	struct sim_calib *cal = NULL;
	char *sweep_arg = NULL;
	bool warm_given = false;
	int c, rc = 0;

	sw = stress_model_switches_new();
	if (!sw) {
		fprintf(stderr, "rcuvfs-sim: out of memory\n");
		return 1;
	}
	O.time_us = 1000;
	O.cal_ops = 20000;
	O.seed = 1;
	O.progress = isatty(2);
	O.sopt.target = TARGET_MODEL;
	O.sopt.mode = MODE_THREADS;
	/* rcuvfs-stress's defaults (tools/stress/main.c) */
	O.sopt.params.work_us = 20;
	O.sopt.params.cs_ns = 1000;
	O.sopt.params.vmas = 10000;
	O.sopt.params.pages = 128;
	O.sopt.params.window_ns = 1000;
	O.sopt.params.areas = 5;
	O.sopt.params.pause_us = 500;
	O.sopt.switches_given = O.given;
	g_opt = &O.sopt;
	opterr = 0;
	static const char shortopts[] = ":w:T:C:c:t:d:o:p:m:Vh";

	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'w': {
			char *s = strdup(optarg), *save = NULL, *tok;

			for (tok = strtok_r(s, ",", &save); tok && O.nworkloads < 64;
			     tok = strtok_r(NULL, ",", &save))
				O.workloads[O.nworkloads++] = tok;
			break;
		}
		case 'T':
			O.topo_path = optarg;
			break;
		case 'C':
			O.calib_spec = optarg;
			break;
		case 'c':
			O.ncpus = parse_list(optarg, O.cpus, 64, "--cpus");
			break;
		case 't':
			O.ntasks = parse_list(optarg, O.tasks, 64, "--tasks");
			break;
		case 'd':
			O.time_us = parse_num(optarg, "--time");
			break;
		case OPT_WARMUP:
			O.warmup_us = parse_num(optarg, "--warmup");
			warm_given = true;
			break;
		case 'o': {
			char *eq = strchr(optarg, '=');

			if (!eq) {
				fprintf(stderr, "rcuvfs-sim: -o %s: expected NAME=VALUE\n", optarg);
				return 2;
			}
			*eq = '\0';
			if (stress_model_parse_switch(sw, optarg, eq + 1))
				return 2;
			if (O.sopt.nswitches_given < 64)
				O.given[O.sopt.nswitches_given++] = strdup(optarg);
			break;
		}
		case 'p': {
			char *eq = strchr(optarg, '=');
			int i;

			for (i = 0; eq && i < STRESS_NPARAMS; i++)
				if (!strncmp(optarg, param_table[i].name, (size_t)(eq - optarg)) &&
				    !param_table[i].name[eq - optarg])
					break;
			if (!eq || i == STRESS_NPARAMS) {
				fprintf(stderr, "rcuvfs-sim: --param %s: unknown parameter\n",
					optarg);
				return 2;
			}
			*(double *)((char *)&O.sopt.params + param_table[i].off) =
			    parse_num(eq + 1, "--param");
			O.sopt.params_set[i] = true;
			break;
		}
		case 'm':
			if (!strcmp(optarg, "threads"))
				O.sopt.mode = MODE_THREADS;
			else if (!strcmp(optarg, "processes"))
				O.sopt.mode = MODE_PROCESSES;
			else {
				fprintf(stderr, "rcuvfs-sim: --mode %s: threads or processes\n",
					optarg);
				return 2;
			}
			break;
		case OPT_SWEEP:
			sweep_arg = optarg;
			break;
		case OPT_SEED:
			O.seed = (unsigned long)parse_num(optarg, "--seed");
			break;
		case OPT_CALIBRATE:
			O.calibrate_out = optarg;
			break;
		case OPT_CALOPS:
			O.cal_ops = (uint64_t)parse_num(optarg, "--calibrate-ops");
			if (!O.cal_ops) {
				fprintf(stderr, "rcuvfs-sim: --calibrate-ops must be >= 1\n");
				return 2;
			}
			break;
		case OPT_CSV:
			O.format = FMT_CSV;
			break;
		case OPT_JSON:
			O.format = FMT_JSON;
			break;
		case OPT_PROGRESS:
			O.progress = true;
			break;
		case OPT_SELFTEST:
			return sim_selftest(optarg); /* 0 passed, 1 failed, 2 no such test */
		case OPT_MEASURE:
			return sim_measure_host(optarg);
		case 'V':
			rv_cli_version("rcuvfs-sim");
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return rv_cli_bad_option("rcuvfs-sim", shortopts, argv);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rcuvfs-sim: unexpected argument %s (see --help)\n", argv[optind]);
		return 2;
	}
	if (sweep_arg) {
		char *eq = strchr(sweep_arg, '='), *save = NULL, *tok;

		if (!eq) {
			fprintf(stderr, "rcuvfs-sim: --sweep: expected NAME=V1,V2,...\n");
			return 2;
		}
		*eq = '\0';
		O.sweep_name = sweep_arg;
		for (tok = strtok_r(eq + 1, ",", &save); tok && O.nsweep < 16;
		     tok = strtok_r(NULL, ",", &save)) {
			void *t = stress_model_switches_dup(sw);

			if (stress_model_parse_switch(t, O.sweep_name, tok))
				return 2;
			free(t);
			O.sweep_vals[O.nsweep++] = tok;
		}
	}
	if (stress_model_check_switches(sw))
		return 2;
	if (!warm_given)
		O.warmup_us = O.time_us / 10;
	if (!O.nworkloads) {
		fprintf(stderr, "rcuvfs-sim: no workload (-w; see --help)\n");
		return 2;
	}
	for (int i = 0; i < O.nworkloads; i++) {
		const struct stress_workload *wl = stress_find_workload(O.workloads[i]);

		if (!wl || !wl->model) {
			fprintf(stderr, "rcuvfs-sim: %s: no such model workload\n", O.workloads[i]);
			return 2;
		}
	}
	if (O.calibrate_out) {
		/* one task on one CPU; the topology does not matter but must exist */
		struct sim_topo one = {.sockets = 1, .cores = 1, .threads = 1, .ncpus = 1};
		struct sim_calib *recs[64];
		FILE *f;
		char hdr[8192];
		static char notes[6144];

		snprintf(one.name, sizeof(one.name), "calibration");
		one.slice_ps = INT64_MAX / 4;
		for (int i = 0; i < O.nworkloads; i++) {
			const struct stress_workload *wl = stress_find_workload(O.workloads[i]);
			int nv = O.nsweep ? O.nsweep : 1;
			struct sim_calib *rec = recs[i] = sim_calib_new_recording();

			for (int v = 0; v < nv; v++) {
				void *s = stress_model_switches_dup(sw);

				if (O.nsweep)
					stress_model_parse_switch(s, O.sweep_name, O.sweep_vals[v]);
				if (O.progress)
					fprintf(stderr, "rcuvfs-sim: calibrating %s\n", wl->name);
				struct sim_calib *run = sim_calib_new_recording();
				double scale;
				bool all;
				size_t len = strlen(notes);

				int64_t plain_ps;

				/* the same ops without points: what they cost */
				if (one_run(wl, s, "", &one, 1, 1, run, 2))
					rc = 1;
				plain_ps = last_res.rec_body_ps;
				if (one_run(wl, s, "", &one, 1, 1, run, 1))
					rc = 1;
				sim_calib_merge_run(rec, run, plain_ps, last_res.tsc_step_ps,
						    &scale, &all);
				snprintf(
				    notes + len, sizeof(notes) - len,
				    "# %s%s%s: %llu points; the ops took %.0f ns of thread CPU "
				    "time without points; TSC segments scaled by %.3f%s\n",
				    wl->name, O.nsweep ? " " : "", O.nsweep ? O.sweep_vals[v] : "",
				    (unsigned long long)last_res.points, (double)plain_ps / 1e3,
				    scale,
				    all ? " (every pair: the rare ones alone took over half of it)"
					: "");
				sim_calib_free(run);
				free(s);
			}
		}
		f = fopen(O.calibrate_out, "w");
		if (!f) {
			fprintf(stderr, "rcuvfs-sim: %s: %s\n", O.calibrate_out, strerror(errno));
			return 1;
		}
		snprintf(
		    hdr, sizeof(hdr),
		    "# commit: %s\n# segments: host TSC between leaving a point and reaching "
		    "the next, one task on one CPU, mean of the fastest 90%% of up to 63 "
		    "samples per site pair; the pairs seen 100 times or more, each plus half a "
		    "TSC step, scaled per workload so that all add up to the thread CPU time "
		    "of the same ops run without points (the explorer build, no engine)\n"
		    "# ops per workload: %llu\n%s",
		    RCUVFS_GIT_COMMIT, (unsigned long long)O.cal_ops, notes);
		sim_calib_save_header(f, hdr);
		for (int i = 0; i < O.nworkloads; i++) {
			if (sim_calib_save(recs[i], f, O.workloads[i]))
				rc = 1;
			sim_calib_free(recs[i]);
		}
		if (fclose(f)) {
			fprintf(stderr, "rcuvfs-sim: %s: write failed\n", O.calibrate_out);
			return 1;
		}
		return rc;
	}
	if (!O.topo_path) {
		fprintf(stderr, "rcuvfs-sim: --topology FILE is required (tools/sim/topologies)\n");
		return 2;
	}
	if (!O.calib_spec) {
		fprintf(stderr, "rcuvfs-sim: --calibration FILE|uniform:NS is required "
				"(make one with --calibrate)\n");
		return 2;
	}
	if (sim_topo_load(&topo, O.topo_path))
		return 2;
	cal = sim_calib_load(O.calib_spec);
	if (!cal)
		return 2;
	if (!O.ncpus) {
		O.cpus[0] = topo.ncpus;
		O.ncpus = 1;
	}
	for (int i = 0; i < O.ncpus; i++)
		if (O.cpus[i] > topo.ncpus) {
			fprintf(stderr, "rcuvfs-sim: --cpus %d: %s has %d CPUs\n", O.cpus[i],
				topo.name, topo.ncpus);
			return 2;
		}
	if (O.format == FMT_TABLE)
		printf("# rcuvfs-sim %s; topology %s; calibration %s; %.0f us virtual after "
		       "%.0f us warm-up; seed %lu\n",
		       RCUVFS_GIT_COMMIT, topo.name, sim_calib_describe(cal), O.time_us,
		       O.warmup_us, O.seed);
	for (int i = 0; i < O.nworkloads; i++) {
		const struct stress_workload *wl = stress_find_workload(O.workloads[i]);

		if (!sim_calib_has(cal, wl->name))
			fprintf(stderr,
				"rcuvfs-sim: %s: not in the calibration; using the file's "
				"first workload's figures\n",
				wl->name);
		for (int ci = 0; ci < O.ncpus; ci++) {
			int nt = O.ntasks ? O.ntasks : 1;

			for (int ti = 0; ti < nt; ti++) {
				int ntasks = O.ntasks ? O.tasks[ti] : O.cpus[ci];
				int nv = O.nsweep ? O.nsweep : 1;

				for (int v = 0; v < nv; v++) {
					void *s = stress_model_switches_dup(sw);
					char desc[128] = "";

					if (O.nsweep) {
						stress_model_parse_switch(s, O.sweep_name,
									  O.sweep_vals[v]);
						snprintf(desc, sizeof(desc), "%s=%s", O.sweep_name,
							 O.sweep_vals[v]);
					}
					if (one_run(wl, s, desc, &topo, O.cpus[ci], ntasks, cal, 0))
						rc = 1;
					free(s);
				}
			}
		}
	}
	sim_calib_free(cal);
	free(sw);
	sw = NULL;
	return rc;
}
