// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/stress/main.c - rcuvfs-stress: options and the runner.
 *
 * For each workload x task count the runner (the parent) sets the workload
 * up, starts the tasks (threads, or forked processes for --path), waits for
 * them at a start gate, lets them run through a warm-up, then samples each
 * task's op counter, rusage and the model's counters at the start and the
 * end of the measured window (will-it-scale style), stops the tasks, joins
 * them with a bound, verifies and tears down.
 *
 * main reads as its steps: parse_options, validate, open_outputs,
 * select_workloads, plan_runs, run_all (the rounds x workloads x task
 * counts x --sweep configurations loop) and report.  run_one is one run:
 * setup_run, start_tasks, measure_window, stop_and_join_tasks, verify_run,
 * teardown_run and collect_results, sharing a struct run_ctx.
 *
 * Locking: see stress.h.  The parent writes `phase` and `stop`; tasks write
 * only their own slot.  Op counters are read racily (relaxed) by the parent:
 * the window is as exact as the sampling instant.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/cli.h"
#include "stress.h"

static const char stress_shortopts[] = "o:w:t:m:d:p:r:qhV";

static volatile sig_atomic_t interrupted;

/* ---- small helpers --------------------------------------------------- */

double stress_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void stress_spin_ns(double ns)
{
	uint64_t end;

	if (ns <= 0)
		return;
	end = now_ns() + (uint64_t)ns;
	while (now_ns() < end)
		__asm__ __volatile__("" ::: "memory");
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

static double tv_s(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec * 1e-6;
}

const char *stress_mode_name(int mode)
{
	return mode == MODE_PROCESSES ? "processes" : "threads";
}

void kvset_add(struct stress_kvset *s, const char *name, const char *str, uint64_t val)
{
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 16;
		struct stress_kv *kv = realloc(s->kv, cap * sizeof(*kv));

		if (!kv) {
			perror("rcuvfs-stress: realloc");
			exit(2);
		}
		s->kv = kv;
		s->cap = cap;
	}
	s->kv[s->n].name = strdup(name);
	s->kv[s->n].str = str ? strdup(str) : NULL;
	s->kv[s->n].val = val;
	s->n++;
}

void kvset_free(struct stress_kvset *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->kv[i].name);
		free(s->kv[i].str);
	}
	free(s->kv);
	memset(s, 0, sizeof(*s));
}

const struct stress_kv *kvset_find(const struct stress_kvset *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->kv[i].name, name))
			return &s->kv[i];
	return NULL;
}

/* ---- failure recording (tasks and parent) ---------------------------- */

int stress_fail(struct stress_task *t, const char *call, int err)
{
	snprintf(t->slot->call, sizeof(t->slot->call), "%s", call);
	t->slot->err = err;
	__atomic_store_n(&t->slot->state, SLOT_FAILED, __ATOMIC_RELEASE);
	__atomic_store_n(&t->sh->stop, 1, __ATOMIC_RELEASE);
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
	int prev = __atomic_exchange_n(&t->sh->holder[which], t->id + 1, __ATOMIC_ACQ_REL);

	if (prev)
		return stress_vfail(t, "%s granted while task %d holds the lock", what, prev - 1);
	return 0;
}

void stress_excl_exit(struct stress_task *t, int which)
{
	__atomic_store_n(&t->sh->holder[which], 0, __ATOMIC_RELEASE);
}

void stress_race_window(struct stress_task *t)
{
	struct stress_shared *sh = t->sh;
	double deadline;

	if (t->run->ntasks < 2 || __atomic_load_n(&sh->rdv_closed, __ATOMIC_ACQUIRE))
		return;
	__atomic_fetch_add(&sh->rdv_arrived, 1, __ATOMIC_ACQ_REL);
	deadline = stress_now() + 1.0;
	while (__atomic_load_n(&sh->rdv_arrived, __ATOMIC_ACQUIRE) < t->run->ntasks &&
	       !__atomic_load_n(&sh->rdv_closed, __ATOMIC_ACQUIRE) && stress_now() < deadline)
		sleep_s(0.0002);
	__atomic_store_n(&sh->rdv_closed, 1, __ATOMIC_RELEASE);
}

/* ---- the task -------------------------------------------------------- */

/*
 * Record the CPU this task runs on now, in its own slot (the parent reads
 * the set after the task stopped).  Sampled after placement, every 64 ops
 * and at the end: the report shows where each task ran, and --pin/--cpus
 * are checked against it (check_placement).
 */
static inline void note_cpu(struct stress_slot *slot)
{
	int cpu = sched_getcpu();

	if (cpu >= 0 && cpu < CPU_SETSIZE)
		CPU_SET(cpu, &slot->cpus_seen);
}

static void task_body(struct stress_task *t)
{
	struct stress_run *run = t->run;
	struct stress_shared *sh = t->sh;
	struct stress_slot *slot = t->slot;
	const struct stress_impl *impl = run->impl;
	long limit = run->opt->ops_per_task;
	bool own_rusage = run->opt->target == TARGET_PATH && run->opt->mode == MODE_PROCESSES;
	bool have_measure = false;
	uint64_t ops = 0;

	for (int i = 0; i < 3; i++)
		t->fd[i] = -1;
	if (run->opt->pin) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(run->opt->cpu_list[t->id % run->opt->ncpu_list], &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			stress_fail(t, "sched_setaffinity(--pin)", errno);
			goto out;
		}
	}
	note_cpu(slot);
	if (t->mtask)
		stress_model_task_attach(t->mtask);
	if (impl->task_init && impl->task_init(t))
		goto out;
	__atomic_store_n(&slot->state, SLOT_READY, __ATOMIC_RELEASE);

	/* start gate: the parent opens it once every task is ready */
	while (__atomic_load_n(&sh->phase, __ATOMIC_ACQUIRE) < PHASE_WARMUP &&
	       !__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE))
		sleep_s(0.0005);

	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED)) {
		if (own_rusage && !have_measure &&
		    __atomic_load_n(&sh->phase, __ATOMIC_RELAXED) >= PHASE_MEASURE) {
			getrusage(RUSAGE_SELF, &slot->ru_measure);
			have_measure = true;
		}
		if (limit && ops >= (uint64_t)limit)
			break;
		if (impl->op(t))
			goto out;
		t->iter = ++ops;
		__atomic_store_n(&slot->ops, ops, __ATOMIC_RELAXED);
		if (!(ops & 63))
			note_cpu(slot);
	}
	__atomic_store_n(&slot->state, SLOT_DONE, __ATOMIC_RELEASE);
out:
	note_cpu(slot);
	if (own_rusage) {
		getrusage(RUSAGE_SELF, &slot->ru_stop);
		if (!have_measure)
			slot->ru_measure = slot->ru_stop;
	}
	if (impl->task_fini)
		impl->task_fini(t);
	if (t->mtask)
		stress_model_task_exit(t->mtask);
}

static void *task_thread(void *arg)
{
	task_body(arg);
	return NULL;
}

/* Machine-wide idle and total jiffies from /proc/stat (idle includes iowait). */
static bool read_proc_stat(uint64_t *idle, uint64_t *total)
{
	unsigned long long v[10] = {0};
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return false;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
	fclose(f);
	if (n < 5)
		return false;
	*idle = v[3] + v[4];
	*total = 0;
	for (int i = 0; i < 8; i++) /* guest time is already in user */
		*total += v[i];
	return true;
}

/* ---- counters and switches of a run ---------------------------------- */

static void add_counter_cb(const char *name, uint64_t value, void *arg)
{
	kvset_add(arg, name, NULL, value);
}

static void add_switch_cb(const char *name, const char *value, void *arg)
{
	kvset_add(arg, name, value, 0);
}

/* The mount root of `path`'s filesystem (walk up while st_dev stays the same). */
static void mount_root(const char *path, char *out, size_t len)
{
	char cur[PATH_MAX], up[PATH_MAX];
	struct stat st, st2;

	if (!realpath(path, cur) || stat(cur, &st)) {
		snprintf(out, len, "%s", path);
		return;
	}
	for (;;) {
		char *slash = strrchr(cur, '/');

		if (!slash || !strcmp(cur, "/"))
			break;
		snprintf(up, sizeof(up), "%.*s", slash == cur ? 1 : (int)(slash - cur), cur);
		if (stat(up, &st2) || st2.st_dev != st.st_dev)
			break;
		if (slash == cur)
			slash++; /* keep "/" */
		*slash = '\0';
	}
	snprintf(out, len, "%s", cur);
}

static char ctl_dir[PATH_MAX + 16]; /* "<mount root>/.rcuvfs" when it exists */

/* Read "name value" or "name=value" lines. */
static void read_kv_file(const char *file, struct stress_kvset *s, bool numeric)
{
	char line[512];
	FILE *f = fopen(file, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *sep = strpbrk(line, "= \t");
		char *val, *end;

		if (!sep)
			continue;
		*sep = '\0';
		val = sep + 1;
		val += strspn(val, " \t=");
		val[strcspn(val, "\n")] = '\0';
		if (numeric) {
			unsigned long long v = strtoull(val, &end, 10);

			if (end != val)
				kvset_add(s, line, NULL, v);
		} else {
			kvset_add(s, line, val, 0);
		}
	}
	fclose(f);
}

static void snapshot_counters(const struct stress_opts *opt, struct stress_kvset *s)
{
	char file[PATH_MAX + 32];

	if (opt->target == TARGET_MODEL) {
		stress_model_foreach_counter(add_counter_cb, s);
	} else if (ctl_dir[0]) {
		snprintf(file, sizeof(file), "%s/stats", ctl_dir);
		read_kv_file(file, s, true);
	}
}

static void counters_delta(struct stress_kvset *out, const struct stress_kvset *a,
			   const struct stress_kvset *b)
{
	for (int i = 0; i < b->n; i++) {
		const struct stress_kv *old = kvset_find(a, b->kv[i].name);

		kvset_add(out, b->kv[i].name, NULL,
			  b->kv[i].val - (old && old->val <= b->kv[i].val ? old->val : 0));
	}
}

/* ---- one workload x task count --------------------------------------- */

static char base_dir[STRESS_DIR_MAX / 2]; /* --path: DIR/rcuvfs-stress.<pid> */

static void report_failure(const struct stress_run *run, const char *who, const char *call, int err,
			   const char *msg)
{
	fprintf(stderr, "rcuvfs-stress: %s (%s, %d task%s): %s: ", run->wl->name,
		stress_mode_name(run->opt->mode), run->ntasks, run->ntasks == 1 ? "" : "s", who);
	if (msg && msg[0])
		fprintf(stderr, "verification failed: %s\n", msg);
	else
		fprintf(stderr, "%s: %s\n", call ? call : "?", err ? strerror(err) : "failed");
}

/*
 * Copy where each task ran into the result and check it against the
 * placement asked for: with --pin, task i only on cpu_list[i % n]; with
 * --cpus, every task inside the list.  The kernel's sched_getcpu() is the
 * witness, so a mask that was set wrong, too late or not at all shows as a
 * failed run.  Returns -1 if a task ran where it must not.
 */
static int record_cpus(struct stress_run *run, struct stress_result *res)
{
	const struct stress_opts *opt = run->opt;
	cpu_set_t allowed;
	int bad = 0;

	res->task_cpus = calloc(run->ntasks, sizeof(cpu_set_t));
	if (!res->task_cpus) {
		perror("rcuvfs-stress: calloc");
		exit(2);
	}
	res->show_cpus = opt->pin || opt->cpus_given;
	CPU_ZERO(&allowed);
	for (int i = 0; i < opt->ncpu_list; i++)
		CPU_SET(opt->cpu_list[i], &allowed);
	for (int i = 0; i < run->ntasks; i++) {
		const cpu_set_t *seen = &run->sh->slot[i].cpus_seen;
		cpu_set_t want, outside;
		char got[256];

		res->task_cpus[i] = *seen;
		if (!CPU_COUNT(seen) || !res->show_cpus)
			continue; /* never started, or no placement asked for */
		if (opt->pin) {
			CPU_ZERO(&want);
			CPU_SET(opt->cpu_list[i % opt->ncpu_list], &want);
		} else {
			want = allowed;
		}
		CPU_OR(&outside, seen, &want);
		if (CPU_EQUAL(&outside, &want))
			continue;
		stress_cpulist(seen, got, sizeof(got));
		fprintf(stderr, "rcuvfs-stress: %s (%s, %d task%s): task %d: ", run->wl->name,
			stress_mode_name(opt->mode), run->ntasks, run->ntasks == 1 ? "" : "s", i);
		if (opt->pin)
			fprintf(stderr, "pinned to CPU %d (--pin) but ran on CPU %s\n",
				opt->cpu_list[i % opt->ncpu_list], got);
		else
			fprintf(stderr, "ran on CPU %s, outside --cpus\n", got);
		bad = -1;
	}
	return bad;
}

/* Wait (bounded) until every slot is at least `state` or one failed. */
static int wait_slots(struct stress_run *run, int state, double timeout)
{
	double deadline = stress_now() + timeout;

	for (;;) {
		int ok = 0;

		for (int i = 0; i < run->ntasks; i++) {
			int s = __atomic_load_n(&run->sh->slot[i].state, __ATOMIC_ACQUIRE);

			if (s == SLOT_FAILED)
				return -1;
			if (s >= state)
				ok++;
		}
		if (ok == run->ntasks)
			return 0;
		if (stress_now() > deadline || interrupted)
			return -2;
		sleep_s(0.001);
	}
}

static bool any_failed(const struct stress_run *run)
{
	for (int i = 0; i < run->ntasks; i++)
		if (__atomic_load_n(&run->sh->slot[i].state, __ATOMIC_ACQUIRE) == SLOT_FAILED)
			return true;
	return false;
}

/*
 * "run i of N, ETA": the time left is estimated from the runs done so far
 * (their mean length), or from warm-up + duration before the first ends.
 */
static void progress(const struct stress_run *run, double elapsed, double total, uint64_t ops)
{
	const struct stress_opts *o = run->opt;
	int done = o->run_index, left = o->runs_total - o->run_index;
	double per = done ? (stress_now() - o->runs_started_at - elapsed) / done
			  : o->warmup_s + (o->ops_per_task ? elapsed : o->duration_s);
	double eta = (left - 1) * per + (total > elapsed ? total - elapsed : 0);

	if (eta < 0)
		eta = 0;
	fprintf(stderr,
		"\r\033[Krun %d of %d, ETA %dm%02ds: %s %s %d task%s: %.1f/%.1fs %.0f ops/s",
		done + 1, o->runs_total, (int)eta / 60, (int)eta % 60, run->wl->name,
		stress_mode_name(o->mode), run->ntasks, run->ntasks == 1 ? "" : "s", elapsed, total,
		elapsed > 0 ? ops * stress_op_count(run->wl, &o->params) / elapsed : 0.0);
	fflush(stderr);
}

static uint64_t sum_ops(const struct stress_run *run, uint64_t *per)
{
	uint64_t sum = 0;

	for (int i = 0; i < run->ntasks; i++) {
		uint64_t v = __atomic_load_n(&run->sh->slot[i].ops, __ATOMIC_RELAXED);

		if (per)
			per[i] = v;
		sum += v;
	}
	return sum;
}

/*
 * One run in the parent, from set-up to its result: run_one calls the
 * steps below in order; each leaves what it learns in struct run_ctx.
 */
struct run_ctx {
	const struct stress_opts *opt;
	const struct stress_workload *wl;
	int ntasks;
	struct stress_result *res;
	struct stress_run *run;
	size_t shsize;
	struct stress_task *tasks;
	pthread_t *tids;
	pid_t *pids;
	uint64_t *ops0, *ops1;
	bool *started;
	bool use_fork;
	struct stress_kvset c0, c1;
	struct rusage ru0, ru1, rt0, rt1;
	double t0, t1;
	uint64_t si0, st0, si1, st1;
	bool have_sys;
	bool model_live, failed, measured;
	char errbuf[256];
};

enum { SETUP_OK, SETUP_FAILED, SETUP_ABORTED /* nothing to tear down */ };

/* allocate the run's state and the shared slots; fill in what the result knows already */
static void run_ctx_init(struct run_ctx *x, const struct stress_opts *opt,
			 const struct stress_workload *wl, int ntasks, struct stress_result *res)
{
	struct stress_run *run = calloc(1, sizeof(*run));

	memset(x, 0, sizeof(*x));
	x->opt = opt;
	x->wl = wl;
	x->ntasks = ntasks;
	x->res = res;
	x->run = run;
	x->shsize = sizeof(struct stress_shared) + ntasks * sizeof(struct stress_slot);
	x->tasks = calloc(ntasks, sizeof(*x->tasks));
	x->tids = calloc(ntasks, sizeof(*x->tids));
	x->pids = calloc(ntasks, sizeof(*x->pids));
	x->ops0 = calloc(ntasks, sizeof(*x->ops0));
	x->ops1 = calloc(ntasks, sizeof(*x->ops1));
	x->started = calloc(ntasks, sizeof(*x->started));
	x->use_fork = opt->target == TARGET_PATH && opt->mode == MODE_PROCESSES;
	if (!run || !x->tasks || !x->tids || !x->pids || !x->ops0 || !x->ops1 || !x->started) {
		perror("rcuvfs-stress: calloc");
		exit(2);
	}
	memset(res, 0, sizeof(*res));
	res->workload = wl->name;
	res->target = opt->target == TARGET_MODEL ? "model" : opt->path;
	res->mode = opt->mode;
	res->tasks = ntasks;
	res->duration_s = opt->ops_per_task ? 0 : opt->duration_s;
	res->ops_per_task = opt->ops_per_task;
	res->verify = "n/a";
	res->count_per_op = stress_op_count(wl, &opt->params);
	res->sweep = "";
	res->param_mask = wl->params | (wl->flags & WL_FIXED_PARAMS ? WP_WORK_US | WP_CS_NS : 0);
	if (res->param_mask) {
		res->has_params = true;
		res->params = opt->params;
	}

	run->opt = opt;
	run->wl = wl;
	run->impl = opt->target == TARGET_MODEL ? wl->model : wl->path;
	run->ntasks = ntasks;
	run->sh = mmap(NULL, x->shsize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (run->sh == MAP_FAILED) {
		perror("rcuvfs-stress: mmap");
		exit(2);
	}
}

/* the run directory (--path) or the model instance (--model), then the workload's setup */
static int setup_run(struct run_ctx *x, const void *switches)
{
	struct stress_run *run = x->run;
	const char *name = x->wl->name;

	if (x->opt->target == TARGET_PATH) {
		snprintf(run->dir, sizeof(run->dir), "%s/%s.%d", base_dir, name, x->ntasks);
		if (mkdir(run->dir, 0755) && errno != EEXIST) {
			stress_setup_fail(run, "mkdir(run directory)", errno);
			return SETUP_FAILED;
		}
		if (ctl_dir[0]) {
			char file[PATH_MAX + 32];

			snprintf(file, sizeof(file), "%s/config", ctl_dir);
			read_kv_file(file, &x->res->switches, false);
		}
	} else {
		/* this run's switches: the user's, then the workload's defaults */
		run->switches = stress_model_switches_dup(switches);
		if (!run->switches) {
			perror("rcuvfs-stress: calloc");
			exit(2);
		}
		if (run->impl->switches && run->impl->switches(run)) {
			fprintf(stderr, "rcuvfs-stress: %s: setting the run's switches failed\n",
				name);
			x->failed = true;
			return SETUP_ABORTED;
		}
		if (stress_model_instance_create(run->switches, x->errbuf, sizeof(x->errbuf))) {
			fprintf(stderr, "rcuvfs-stress: %s: %s\n", name, x->errbuf);
			x->failed = true;
			return SETUP_ABORTED;
		}
		x->model_live = true;
		stress_model_foreach_switch(run->switches, add_switch_cb, &x->res->switches);
		if (stress_model_run_begin(run))
			return SETUP_FAILED;
	}
	if (run->impl->setup && run->impl->setup(run))
		return SETUP_FAILED;
	return SETUP_OK;
}

/* start the tasks; -1 when one could not be started (the started ones are joined later) */
static int start_tasks(struct run_ctx *x)
{
	struct stress_run *run = x->run;
	int r;

	for (int i = 0; i < x->ntasks; i++) {
		struct stress_task *t = &x->tasks[i];

		t->run = run;
		t->sh = run->sh;
		t->slot = &run->sh->slot[i];
		t->id = i;
		if (x->opt->target == TARGET_MODEL) {
			t->mtask = stress_model_task_new(run);
			if (!t->mtask) {
				stress_setup_fail(run, "task_fork/task_clone_thread",
						  errno ? errno : ENOMEM);
				return -1;
			}
		}
		if (x->use_fork) {
			fflush(NULL);
			x->pids[i] = fork();
			if (x->pids[i] < 0) {
				stress_setup_fail(run, "fork", errno);
				return -1;
			}
			if (x->pids[i] == 0) {
				signal(SIGINT, SIG_IGN);
				signal(SIGTERM, SIG_DFL);
				task_body(t);
				_exit(0);
			}
		} else {
			pthread_attr_t attr;

			pthread_attr_init(&attr);
			pthread_attr_setstacksize(&attr, 256 * 1024);
			r = pthread_create(&x->tids[i], &attr, task_thread, t);
			pthread_attr_destroy(&attr);
			if (r) {
				if (t->mtask)
					stress_model_task_exit(t->mtask);
				stress_setup_fail(run, "pthread_create", r);
				return -1;
			}
		}
		x->started[i] = true;
	}
	return 0;
}

/* --ops-per-task: until every task has done its share, one failed, or the bound */
static void wait_fixed_work(struct run_ctx *x)
{
	const struct stress_opts *opt = x->opt;
	struct stress_run *run = x->run;
	double pdue = x->t0 + 0.25;
	double deadline = x->t0 + opt->hang_timeout_s;

	while (!interrupted) {
		bool all = true;

		for (int i = 0; i < x->ntasks; i++) {
			int s = __atomic_load_n(&run->sh->slot[i].state, __ATOMIC_ACQUIRE);

			if (s == SLOT_FAILED)
				return;
			if (s != SLOT_DONE &&
			    __atomic_load_n(&run->sh->slot[i].ops, __ATOMIC_RELAXED) <
				(uint64_t)opt->ops_per_task)
				all = false;
		}
		if (all)
			break;
		if (stress_now() > deadline) {
			fprintf(stderr, "rcuvfs-stress: %s: fixed work not done after %.0f s\n",
				x->wl->name, opt->hang_timeout_s);
			x->failed = true;
			break;
		}
		if (opt->progress && stress_now() > pdue) {
			progress(run, stress_now() - x->t0, 0, sum_ops(run, NULL) - 0);
			pdue += 0.25;
		}
		sleep_s(0.002);
	}
}

/* --duration: until the window ends, a task fails or the user interrupts */
static void wait_duration(struct run_ctx *x)
{
	const struct stress_opts *opt = x->opt;
	double pdue = x->t0 + 0.25;
	double deadline = x->t0 + opt->duration_s;

	for (;;) {
		double now = stress_now();

		if (now >= deadline || any_failed(x->run) || interrupted)
			break;
		if (opt->progress && now > pdue) {
			uint64_t s = 0;

			sum_ops(x->run, x->ops1);
			for (int i = 0; i < x->ntasks; i++)
				s += x->ops1[i] - x->ops0[i];
			progress(x->run, now - x->t0, opt->duration_s, s);
			pdue += 0.25;
		}
		sleep_s(deadline - now < 0.05 ? deadline - now : 0.05);
	}
}

/* wait for the tasks at the start gate, warm up, and sample both ends of the window */
static void measure_window(struct run_ctx *x)
{
	const struct stress_opts *opt = x->opt;
	struct stress_run *run = x->run;
	double deadline;
	int r;

	r = wait_slots(run, SLOT_READY, opt->hang_timeout_s);
	if (r == -2 && !interrupted)
		fprintf(stderr, "rcuvfs-stress: %s: tasks not ready after %.0f s\n", x->wl->name,
			opt->hang_timeout_s);
	if (r)
		return;

	/* warm-up, then the measured window */
	if (!opt->ops_per_task) {
		__atomic_store_n(&run->sh->phase, PHASE_WARMUP, __ATOMIC_RELEASE);
		deadline = stress_now() + opt->warmup_s;
		while (stress_now() < deadline && !any_failed(run) && !interrupted)
			sleep_s(0.01);
	}
	snapshot_counters(opt, &x->c0);
	x->have_sys = read_proc_stat(&x->si0, &x->st0);
	getrusage(RUSAGE_SELF, &x->ru0);
	getrusage(RUSAGE_THREAD, &x->rt0);
	sum_ops(run, x->ops0);
	x->t0 = stress_now();
	__atomic_store_n(&run->sh->phase, PHASE_MEASURE, __ATOMIC_RELEASE);

	if (opt->ops_per_task)
		wait_fixed_work(x);
	else
		wait_duration(x);

	x->t1 = stress_now();
	sum_ops(run, x->ops1);
	getrusage(RUSAGE_SELF, &x->ru1);
	getrusage(RUSAGE_THREAD, &x->rt1);
	x->have_sys = x->have_sys && read_proc_stat(&x->si1, &x->st1);
	snapshot_counters(opt, &x->c1);
	x->measured = true;
	if (opt->progress)
		fprintf(stderr, "\r\033[K");
}

/* wait for forked task i until the deadline; kill it after */
static void join_process(struct run_ctx *x, int i, double deadline)
{
	int status;
	pid_t p;

	while ((p = waitpid(x->pids[i], &status, WNOHANG)) == 0 && stress_now() < deadline)
		sleep_s(0.002);
	if (p == 0) {
		fprintf(stderr,
			"rcuvfs-stress: %s: task %d (pid %d) did not stop within "
			"%.0f s; killed\n",
			x->wl->name, i, (int)x->pids[i], x->opt->hang_timeout_s);
		kill(x->pids[i], SIGKILL);
		waitpid(x->pids[i], &status, 0);
		x->failed = true;
	} else if (p > 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		fprintf(stderr, "rcuvfs-stress: %s: task %d (pid %d) died (%s %d)\n", x->wl->name,
			i, (int)x->pids[i], WIFSIGNALED(status) ? "signal" : "exit status",
			WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		x->failed = true;
	}
}

/* join task thread i until the deadline; the whole program ends after */
static void join_thread(struct run_ctx *x, int i, double deadline)
{
	struct timespec ts;
	double d = deadline;

	ts.tv_sec = 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	d = ts.tv_sec + ts.tv_nsec * 1e-9 + (deadline - stress_now());
	if (d < ts.tv_sec)
		d = ts.tv_sec;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
	if (pthread_timedjoin_np(x->tids[i], NULL, &ts)) {
		fprintf(stderr,
			"rcuvfs-stress: %s: task %d did not stop within %.0f s "
			"(blocked in the workload's call?)\n",
			x->wl->name, i, x->opt->hang_timeout_s);
		fflush(NULL);
		_exit(3); /* a thread cannot be killed; nothing else is safe */
	}
}

/* stop the started tasks, join them, and report the ones that failed */
static void stop_and_join_tasks(struct run_ctx *x)
{
	struct stress_run *run = x->run;
	double deadline;

	__atomic_store_n(&run->sh->stop, 1, __ATOMIC_RELEASE);
	/* join every started task, bounded */
	deadline = stress_now() + x->opt->hang_timeout_s;
	for (int i = 0; i < x->ntasks; i++) {
		if (!x->started[i])
			continue;
		if (x->use_fork)
			join_process(x, i, deadline);
		else
			join_thread(x, i, deadline);
	}
	for (int i = 0; i < x->ntasks; i++) {
		struct stress_slot *s = &run->sh->slot[i];
		char who[32];

		if (s->state != SLOT_FAILED)
			continue;
		snprintf(who, sizeof(who), "task %d", i);
		report_failure(run, who, s->call, s->err, s->vfail ? s->msg : NULL);
		x->failed = true;
		if (s->vfail)
			x->res->verify = "fail";
	}
	if (record_cpus(run, x->res))
		x->failed = true;
}

/* --verify: the workload checks what the tasks left behind */
static void verify_run(struct run_ctx *x)
{
	struct stress_run *run = x->run;
	uint64_t total = sum_ops(run, NULL);
	int r;

	if (x->failed || interrupted || !x->opt->verify || !(x->wl->flags & WL_VERIFIES))
		return;
	x->res->verify = "pass";
	if (!run->impl->verify)
		return;
	r = run->impl->verify(run, total);
	if (r < 0) {
		report_failure(run, "verify", run->setup_call, run->setup_err, NULL);
		x->failed = true;
	} else if (r == 0) {
		report_failure(run, "verify", NULL, 0, run->verify_msg);
		x->res->verify = "fail";
		x->failed = true;
	}
}

/* undo setup_run: the workload's teardown, the run directory, the model instance */
static void teardown_run(struct run_ctx *x)
{
	struct stress_run *run = x->run;

	if (run->impl->teardown)
		run->impl->teardown(run);
	if (x->opt->target == TARGET_PATH && run->dir[0])
		rmdir(run->dir);
	if (run->model_parent)
		stress_model_run_end(run);
	if (x->model_live && stress_model_instance_destroy(x->errbuf, sizeof(x->errbuf))) {
		fprintf(stderr, "rcuvfs-stress: %s: %s\n", x->wl->name, x->errbuf);
		x->failed = true;
	}
}

/* CPU time the tasks spent in the window (and their context switches) */
static double window_cpu(struct run_ctx *x)
{
	struct stress_result *res = x->res;
	double cpu;

	if (x->use_fork) {
		cpu = 0;
		for (int i = 0; i < x->ntasks; i++) {
			struct stress_slot *s = &x->run->sh->slot[i];

			cpu += tv_s(&s->ru_stop.ru_utime) + tv_s(&s->ru_stop.ru_stime) -
			       tv_s(&s->ru_measure.ru_utime) - tv_s(&s->ru_measure.ru_stime);
			res->nvcsw += s->ru_stop.ru_nvcsw - s->ru_measure.ru_nvcsw;
			res->nivcsw += s->ru_stop.ru_nivcsw - s->ru_measure.ru_nivcsw;
		}
	} else {
		/* the whole process minus the parent thread's own share */
		cpu = tv_s(&x->ru1.ru_utime) + tv_s(&x->ru1.ru_stime) - tv_s(&x->ru0.ru_utime) -
		      tv_s(&x->ru0.ru_stime);
		cpu -= tv_s(&x->rt1.ru_utime) + tv_s(&x->rt1.ru_stime) - tv_s(&x->rt0.ru_utime) -
		       tv_s(&x->rt0.ru_stime);
		res->nvcsw =
		    (x->ru1.ru_nvcsw - x->ru0.ru_nvcsw) - (x->rt1.ru_nvcsw - x->rt0.ru_nvcsw);
		res->nivcsw =
		    (x->ru1.ru_nivcsw - x->ru0.ru_nivcsw) - (x->rt1.ru_nivcsw - x->rt0.ru_nivcsw);
	}
	return cpu;
}

/* the measured window's figures into the result */
static void collect_results(struct run_ctx *x)
{
	struct stress_result *res = x->res;
	double wall = x->t1 - x->t0;
	double cpu;

	res->wall_s = wall;
	/* slots count op calls; results count as the workload does */
	for (int i = 0; i < x->ntasks; i++) {
		uint64_t d = (x->ops1[i] - x->ops0[i]) * res->count_per_op;
		double rate = wall > 0 ? d / wall : 0;

		res->ops += d;
		if (i == 0 || rate < res->task_min)
			res->task_min = rate;
		if (i == 0 || rate > res->task_max)
			res->task_max = rate;
	}
	res->ops_per_sec = wall > 0 ? res->ops / wall : 0;
	cpu = window_cpu(x);
	res->cpu_s = cpu < 0 ? 0 : cpu;
	res->idle_frac = wall > 0 ? 1.0 - res->cpu_s / (wall * x->opt->ncpus) : 0;
	if (res->idle_frac < 0)
		res->idle_frac = 0;
	res->sys_idle_frac =
	    x->have_sys && x->st1 > x->st0 ? (double)(x->si1 - x->si0) / (x->st1 - x->st0) : -1;
	/*
	 * The run's own idle share is what its CPUs would have had
	 * free if it were alone; when the machine's was much lower,
	 * other work took CPU time during the window and the ops/s
	 * figure is not the run's alone (ratios within a run still
	 * compare like with like when rounds alternate).
	 */
	if (res->sys_idle_frac >= 0 && res->idle_frac - res->sys_idle_frac > 0.10)
		fprintf(stderr,
			"rcuvfs-stress: warning: %s: the machine was busy during the "
			"measurement (machine idle %.0f%%, this run's %.0f%%)\n",
			x->wl->name, res->sys_idle_frac * 100, res->idle_frac * 100);
	counters_delta(&res->counters, &x->c0, &x->c1);
}

static void run_ctx_free(struct run_ctx *x)
{
	kvset_free(&x->c0);
	kvset_free(&x->c1);
	munmap(x->run->sh, x->shsize);
	free(x->run->switches);
	free(x->run);
	free(x->tasks);
	free(x->tids);
	free(x->pids);
	free(x->ops0);
	free(x->ops1);
	free(x->started);
}

static int run_one(const struct stress_opts *opt, const struct stress_workload *wl, int ntasks,
		   const void *switches, struct stress_result *res)
{
	struct run_ctx x;
	int setup;
	bool failed;

	run_ctx_init(&x, opt, wl, ntasks, res);
	setup = setup_run(&x, switches);
	if (setup == SETUP_OK) {
		if (!start_tasks(&x)) {
			measure_window(&x);
			__atomic_store_n(&x.run->sh->phase, PHASE_STOP, __ATOMIC_RELEASE);
		}
		stop_and_join_tasks(&x);
		if (x.run->setup_call[0])
			setup = SETUP_FAILED;
		else
			verify_run(&x);
	}
	if (setup == SETUP_FAILED) {
		report_failure(x.run, "setup", x.run->setup_call, x.run->setup_err, NULL);
		x.failed = true;
		__atomic_store_n(&x.run->sh->stop, 1, __ATOMIC_RELEASE);
	}
	if (setup != SETUP_ABORTED)
		teardown_run(&x);
	if (x.measured)
		collect_results(&x);
	failed = x.failed;
	res->failed = failed || interrupted;
	run_ctx_free(&x);
	return failed ? -1 : 0;
}

/* ---- options --------------------------------------------------------- */

static void usage(FILE *out)
{
	fprintf(out,
		"usage: rcuvfs-stress (--path DIR | --model [-o switch=value,...])\n"
		"                     --workload NAME[,NAME...] [--tasks 1,2,4,...]\n"
		"                     [--mode threads|processes] [--duration S] [--warmup S]\n"
		"                     [--repeat N] [--sweep NAME=V1,V2,...] [--pin] [--cpus LIST]\n"
		"                     [--json FILE] [--csv FILE] [--verify]\n"
		"       rcuvfs-stress --list | --help | --version\n"
		"       rcuvfs-stress --summarize < SAMPLES\n"
		"\n"
		"Will-it-scale-style workloads against a directory (real system calls: an\n"
		"rcuvfs mount, tmpfs, any filesystem) or against the model in-process.\n"
		"Workloads named after will-it-scale tests count as those do (lock1: 2 per\n"
		"lock+unlock pair of byte 0); --list says how each one counts.\n"
		"\n"
		"  --path DIR           run against files in DIR (a scratch subdirectory is\n"
		"                       created and removed)\n"
		"  --model              run against the in-process model (one instance per run)\n"
		"  -o NAME=VALUE,...    model switches (--model only; repeatable), see below\n"
		"  -w, --workload LIST  workloads, or 'all' (every one the target implements)\n"
		"  -t, --tasks LIST     task counts (default: 1 and the number of CPUs;\n"
		"                       bkl-mix: 256)\n"
		"  -m, --mode MODE      threads (default) or processes; with --model,\n"
		"                       processes are model processes (own files and mm)\n"
		"                       on threads\n"
		"  -d, --duration S     measured seconds per run (default 5)\n"
		"      --warmup S       seconds before measuring (default 1)\n"
		"      --ops-per-task N fixed work instead of a duration: each task runs its\n"
		"                       loop N times, wall time is until the last one\n"
		"                       finishes (AIM7-style; no warm-up)\n"
		"  -p, --param K=V,...  workload parameters: work_us (bkl-mix compute between\n"
		"                       sections, default 20), cs_ns (critical section, default\n"
		"                       1000), vmas (fork-vmas: VMAs of the forked process,\n"
		"                       default 10000), pages (page_fault2/3, numa-race:\n"
		"                       pages per task; fork-race: pages of the region the\n"
		"                       tasks share; default 128), window_ns\n"
		"                       (numa-race, fork-race: time an injection point keeps\n"
		"                       the race window open, default 1000; 0: not armed),\n"
		"                       areas (mmap-cycle: one-page areas per cycle, default\n"
		"                       5), pause_us (mmap-cycle: sleep after each cycle,\n"
		"                       default 500), cycles (any workload: the same as\n"
		"                       --ops-per-task N)\n"
		"  -r, --repeat N       measure every configuration N times, in rounds that\n"
		"                       alternate the configurations; report the median\n"
		"                       ops/s with min, max and standard deviation (default 1)\n"
		"      --sweep NAME=V1,V2,...\n"
		"                       --model: run every workload once per value of switch\n"
		"                       NAME (on top of -o), alternating the values\n"
		"      --cpus LIST      run on these CPUs only (e.g. 0-3,8); the idle share\n"
		"                       and the default task counts use their number\n"
		"      --pin            pin task i to the i-th CPU of --cpus (or of the\n"
		"                       allowed CPUs), round robin.  Each task's CPUs\n"
		"                       (sched_getcpu) are reported; a task seen outside\n"
		"                       its placement fails the run\n"
		"      --verify         check results while running and at the end\n"
		"      --expect-race    numa-race, fork-race: fail a run in which the race the\n"
		"                       workload is named for did not happen (pte_recheck=0:\n"
		"                       no spurious major fault; 1, rfc: the recheck never\n"
		"                       found the PTE changed; fork_vma_lock=never: no lost\n"
		"                       write).  With window_ns armed, setup stages one\n"
		"                       instance of the race with injection points first.\n"
		"                       Implies --verify\n"
		"      --json FILE      write {\"meta\": {...}, \"runs\": [...]}; '-': stdout\n"
		"      --csv FILE       write '# ' metadata lines, a header and one row per\n"
		"                       run; '-': stdout.  With either on stdout the table\n"
		"                       goes to stderr.  Formats: docs/stress.md\n"
		"      --timeout S      bound on task start-up, stop and fixed work\n"
		"                       (default 60)\n"
		"  -q, --quiet          no progress line (shown only on a terminal anyway)\n"
		"      --list           describe every workload and how it counts\n"
		"      --list-counters  every model counter the runs report, with its help\n"
		"  -V, --version        version and git commit\n"
		"      --summarize      read \"KEY... VALUE\" lines from stdin, print\n"
		"                       \"KEY n median min max stddev\" per key (the\n"
		"                       statistics of --repeat, for scripts' own samples)\n"
		"  -h, --help           this text\n"
		"\n"
		"Test-only options (they make verification fail on purpose):\n"
		"      --test-skip-lock   lock-verify, flock2, ofd2 and lock2 take no locks\n"
		"                         and open the race window below\n"
		"      --test-race-window lock-verify, flock2, ofd2 and lock2 wait (once, at\n"
		"                         most 1 s) inside the locked section for the other\n"
		"                         tasks; a lock that does not exclude then loses an\n"
		"                         update (lock-verify) or lets a second holder in\n"
		"                         (the others, with --verify) for sure\n"
		"\n"
		"Exit status:\n"
		"  0    every run passed\n"
		"  1    a workload or a verification failed (the message names workload,\n"
		"       mode, task count, task and call), or an output file could not be\n"
		"       written\n"
		"  2    usage error: a bad option or value, an output file that cannot be\n"
		"       created (checked before the first run)\n"
		"  3    a task thread did not stop within --timeout (threads cannot be killed)\n"
		"  130  interrupted (SIGINT, SIGTERM); the runs done so far are reported\n"
		"\n"
		"Model switches (-o NAME=VALUE; --model only):\n");
	fflush(out);
	if (out == stdout)
		stress_model_switches_help();
}

static void list_workloads(void)
{
	printf("%-12s %-6s %-6s %s\n", "workload", "path", "model", "description");
	for (int i = 0; i < stress_nworkloads; i++) {
		const struct stress_workload *wl = &stress_workloads[i];

		printf("%-12s %-6s %-6s %s", wl->name, wl->path ? "yes" : "-",
		       wl->model ? "yes" : "-", wl->desc);
		if (!wl->model)
			printf(" [model: not wired yet, from %s]", wl->model_note);
		if (wl->flags & WL_VERIFIES)
			printf(" [verifies]");
		printf("\n%-26s counts: %s\n", "", wl->counting);
	}
}

static int parse_double(const char *opt, const char *s, double *out, double min)
{
	char *end;

	*out = strtod(s, &end);
	if (end == s || *end || *out < min) {
		fprintf(stderr, "rcuvfs-stress: %s: bad value '%s'\n", opt, s);
		return -1;
	}
	return 0;
}

/* "-o a=1,b=x": switch names and values as in DESIGN.md (sets use '+'). */
static int parse_switches(struct stress_opts *opt, char *arg)
{
	char *save = NULL, *tok;

	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq) {
			fprintf(stderr, "rcuvfs-stress: -o %s: expected NAME=VALUE\n", tok);
			return -1;
		}
		*eq = '\0';
		if (stress_model_parse_switch(opt->switches, tok, eq + 1))
			return -1;
		opt->switches_given = realloc(
		    opt->switches_given, (opt->nswitches_given + 1) * sizeof(*opt->switches_given));
		if (!opt->switches_given) {
			perror("rcuvfs-stress: realloc");
			exit(2);
		}
		opt->switches_given[opt->nswitches_given++] = tok;
	}
	return 0;
}

static const struct {
	const char *name;
	size_t off;
	double min;
} param_table[STRESS_NPARAMS] = {
    {"work_us", offsetof(struct stress_params, work_us), 0},
    {"cs_ns", offsetof(struct stress_params, cs_ns), 0},
    {"vmas", offsetof(struct stress_params, vmas), 1},
    {"pages", offsetof(struct stress_params, pages), 1},
    {"window_ns", offsetof(struct stress_params, window_ns), 0},
    {"areas", offsetof(struct stress_params, areas), 1},
    {"pause_us", offsetof(struct stress_params, pause_us), 0},
    {"cycles", offsetof(struct stress_params, cycles), 0},
};

const char *stress_param_name(int i)
{
	return i >= 0 && i < STRESS_NPARAMS ? param_table[i].name : NULL;
}

double stress_param_value(const struct stress_params *p, int i)
{
	return *(const double *)((const char *)p + param_table[i].off);
}

bool stress_switch_given(const struct stress_opts *opt, const char *name)
{
	for (int i = 0; i < opt->nswitches_given; i++)
		if (!strcmp(opt->switches_given[i], name))
			return true;
	return false;
}

static int parse_params(struct stress_opts *opt, char *arg)
{
	char *save = NULL, *tok;

	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		char what[64];
		int i;

		if (!eq) {
			fprintf(stderr, "rcuvfs-stress: -p %s: expected NAME=VALUE\n", tok);
			return -1;
		}
		*eq = '\0';
		for (i = 0; i < STRESS_NPARAMS; i++)
			if (!strcmp(tok, param_table[i].name))
				break;
		if (i == STRESS_NPARAMS) {
			fprintf(stderr,
				"rcuvfs-stress: -p %s: unknown parameter (work_us, cs_ns, vmas, "
				"pages, window_ns, areas, pause_us, cycles)\n",
				tok);
			return -1;
		}
		snprintf(what, sizeof(what), "-p %s", tok);
		if (parse_double(what, eq + 1,
				 (double *)((char *)&opt->params + param_table[i].off),
				 param_table[i].min))
			return -1;
		opt->params_set[i] = true;
	}
	return 0;
}

static int parse_tasks(const char *arg, int **out, int *n)
{
	char *copy = strdup(arg), *save = NULL, *tok;

	*n = 0;
	*out = calloc(strlen(arg) + 1, sizeof(int));
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);

		if (end == tok || *end || v < 1 || v > 100000) {
			fprintf(stderr, "rcuvfs-stress: --tasks: bad count '%s'\n", tok);
			free(copy);
			return -1;
		}
		(*out)[(*n)++] = (int)v;
	}
	free(copy);
	if (!*n) {
		fprintf(stderr, "rcuvfs-stress: --tasks: empty list\n");
		return -1;
	}
	return 0;
}

static void on_signal(int sig)
{
	interrupted = 1;
}

enum {
	OPT_WARMUP = 256,
	OPT_JSON,
	OPT_CSV,
	OPT_VERIFY,
	OPT_LIST,
	OPT_LIST_COUNTERS,
	OPT_MODEL,
	OPT_PATH,
	OPT_OPS,
	OPT_TIMEOUT,
	OPT_SKIP_LOCK,
	OPT_RACE_WINDOW,
	OPT_EXPECT_RACE,
	OPT_SWEEP,
	OPT_CPUS,
	OPT_PIN,
	OPT_SUMMARIZE,
};

/* "0-3,8": CPU numbers in order; each must be one this process may use. */
static int parse_cpus(const char *arg, const cpu_set_t *allowed, int **out, int *n)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	cpu_set_t seen;

	CPU_ZERO(&seen);
	*n = 0;
	*out = calloc(CPU_SETSIZE, sizeof(int));
	if (!copy || !*out) {
		perror("rcuvfs-stress: calloc");
		exit(2);
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end, *end2;
		long lo = strtol(tok, &end, 10), hi = lo;

		if (end != tok && *end == '-')
			hi = strtol(end + 1, &end2, 10), end = end2;
		if (end == tok || *end || lo < 0 || hi < lo || hi >= CPU_SETSIZE) {
			fprintf(stderr, "rcuvfs-stress: --cpus: bad CPU list '%s'\n", arg);
			free(copy);
			return -1;
		}
		for (long c = lo; c <= hi; c++) {
			if (!CPU_ISSET(c, allowed)) {
				fprintf(stderr,
					"rcuvfs-stress: --cpus: CPU %ld is not available "
					"to this process\n",
					c);
				free(copy);
				return -1;
			}
			if (!CPU_ISSET(c, &seen))
				(*out)[(*n)++] = (int)c;
			CPU_SET(c, &seen);
		}
	}
	free(copy);
	if (!*n) {
		fprintf(stderr, "rcuvfs-stress: --cpus: empty list\n");
		return -1;
	}
	return 0;
}

/* ---- metadata of the output files ------------------------------------ */

static void meta_cpu_model(char *out, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(out, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		/* x86: "model name"; arm64 has no name, only part numbers */
		if (!strncmp(line, "model name", 10) || !strncmp(line, "Hardware", 8) ||
		    !strncmp(line, "cpu model", 9)) {
			colon++;
			colon += strspn(colon, " \t");
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(out, len, "%s", colon);
			break;
		}
	}
	fclose(f);
}

static char *join_argv(int argc, char **argv)
{
	size_t len = 1;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		len += 3 + 4 * strlen(argv[i]);
	s = p = malloc(len);
	if (!s) {
		perror("rcuvfs-stress: malloc");
		exit(2);
	}
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool plain =
		    *a && !a[strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				       "0123456789-_=,./:+@%")];

		if (i)
			*p++ = ' ';
		if (plain) {
			p += sprintf(p, "%s", a);
			continue;
		}
		*p++ = '\'';
		for (; *a; a++) {
			if (*a == '\'')
				p += sprintf(p, "'\\''");
			else
				*p++ = *a;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return s;
}

static void meta_fill(struct stress_meta *m, int argc, char **argv, const struct stress_opts *opt)
{
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	if (!uname(&u)) {
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
		snprintf(m->machine, sizeof(m->machine), "%s", u.machine);
	}
	meta_cpu_model(m->cpu_model, sizeof(m->cpu_model));
	m->cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
	m->cpus_used = opt->ncpus;
	gmtime_r(&now, &tm);
	strftime(m->date, sizeof(m->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	m->cmdline = join_argv(argc, argv);
	m->version = RCUVFS_VERSION;
	m->commit = RCUVFS_GIT_COMMIT;
	m->target = opt->target == TARGET_MODEL ? "model" : opt->path;
	if (opt->target == TARGET_MODEL)
		stress_model_foreach_switch(opt->switches, add_switch_cb, &m->switches);
	else if (ctl_dir[0]) {
		char file[PATH_MAX + 32];

		snprintf(file, sizeof(file), "%s/config", ctl_dir);
		read_kv_file(file, &m->switches, false);
	}
}

/* Open an output file now, so that a bad path fails before the first run. */
static FILE *open_output(const char *opt, const char *file)
{
	FILE *f;

	if (!file)
		return NULL;
	if (!strcmp(file, "-"))
		return stdout;
	f = fopen(file, "w");
	if (!f)
		fprintf(stderr, "rcuvfs-stress: %s %s: %s\n", opt, file, strerror(errno));
	return f;
}

static int close_output(const char *opt, const char *file, FILE *f)
{
	if (!f)
		return 0;
	if (f == stdout ? fflush(f) != 0 : fclose(f) != 0) {
		fprintf(stderr, "rcuvfs-stress: %s %s: %s\n", opt, file, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Usage errors leave with exit(2), not return: main's frame, and so what it
 * allocated, stays reachable while LeakSanitizer checks at exit.
 */
static const struct option stress_longopts[] = {
    {"path", required_argument, NULL, OPT_PATH},
    {"model", no_argument, NULL, OPT_MODEL},
    {"workload", required_argument, NULL, 'w'},
    {"tasks", required_argument, NULL, 't'},
    {"mode", required_argument, NULL, 'm'},
    {"duration", required_argument, NULL, 'd'},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"ops-per-task", required_argument, NULL, OPT_OPS},
    {"param", required_argument, NULL, 'p'},
    {"json", required_argument, NULL, OPT_JSON},
    {"csv", required_argument, NULL, OPT_CSV},
    {"verify", no_argument, NULL, OPT_VERIFY},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"quiet", no_argument, NULL, 'q'},
    {"list", no_argument, NULL, OPT_LIST},
    {"list-counters", no_argument, NULL, OPT_LIST_COUNTERS},
    {"help", no_argument, NULL, 'h'},
    {"test-skip-lock", no_argument, NULL, OPT_SKIP_LOCK},
    {"test-race-window", no_argument, NULL, OPT_RACE_WINDOW},
    {"expect-race", no_argument, NULL, OPT_EXPECT_RACE},
    {"repeat", required_argument, NULL, 'r'},
    {"sweep", required_argument, NULL, OPT_SWEEP},
    {"cpus", required_argument, NULL, OPT_CPUS},
    {"pin", no_argument, NULL, OPT_PIN},
    {"version", no_argument, NULL, 'V'},
    {"summarize", no_argument, NULL, OPT_SUMMARIZE},
    {NULL, 0, NULL, 0},
};

/*
 * What main works with: the command line as parsed, then what validate(),
 * open_outputs() and plan_runs() make of it, then the results of run_all().
 */
struct stress_cmd {
	const char *workloads, *tasks_arg, *json, *csv, *cpus_arg;
	char *sweep_arg, *sweep_name;
	char **swargs;
	int nswargs;
	bool model;
	cpu_set_t allowed;
	char **sweep_vals, **sweep_labels;
	int nsweep;
	void **configs;
	int nconfigs;
	FILE *json_f, *csv_f, *table_f;
	struct stress_meta meta;
	const struct stress_workload **wls;
	int nwl;
	int **counts, *ncounts;
	struct stress_result *res;
	int nres, capres;
};

/* an option that takes a number or a keyword; false if @c is not one of them */
static bool parse_value_option(struct stress_opts *opt, int c)
{
	double v;

	switch (c) {
	case 'm':
		if (!strcmp(optarg, "threads")) {
			opt->mode = MODE_THREADS;
		} else if (!strcmp(optarg, "processes")) {
			opt->mode = MODE_PROCESSES;
		} else {
			fprintf(stderr, "rcuvfs-stress: --mode: threads or processes\n");
			exit(2);
		}
		return true;
	case 'd':
		if (parse_double("--duration", optarg, &opt->duration_s, 0.001))
			exit(2);
		return true;
	case OPT_WARMUP:
		if (parse_double("--warmup", optarg, &opt->warmup_s, 0))
			exit(2);
		return true;
	case OPT_OPS:
		if (parse_double("--ops-per-task", optarg, &v, 1))
			exit(2);
		opt->ops_per_task = (long)v;
		return true;
	case OPT_TIMEOUT:
		if (parse_double("--timeout", optarg, &opt->hang_timeout_s, 0.1))
			exit(2);
		return true;
	case 'p':
		if (parse_params(opt, optarg))
			exit(2);
		if (opt->params.cycles >= 1)
			opt->ops_per_task = (long)opt->params.cycles; /* -p cycles=N */
		return true;
	case 'r':
		if (parse_double("--repeat", optarg, &v, 1) || v != (int)v || v > 10000) {
			if (v != (int)v || v > 10000)
				fprintf(stderr, "rcuvfs-stress: --repeat: a count from 1 "
						"to 10000\n");
			exit(2);
		}
		opt->repeat = (int)v;
		return true;
	}
	return false;
}

/* an option that is a flag or keeps its argument for later; false if @c is not one */
static bool parse_plain_option(struct stress_cmd *cmd, struct stress_opts *opt, int c)
{
	switch (c) {
	case OPT_PATH:
		opt->path = optarg;
		break;
	case OPT_MODEL:
		cmd->model = true;
		break;
	case 'o':
		cmd->swargs = realloc(cmd->swargs, (cmd->nswargs + 1) * sizeof(*cmd->swargs));
		cmd->swargs[cmd->nswargs++] = optarg;
		break;
	case 'w':
		cmd->workloads = optarg;
		break;
	case 't':
		cmd->tasks_arg = optarg;
		break;
	case OPT_JSON:
		cmd->json = optarg;
		break;
	case OPT_CSV:
		cmd->csv = optarg;
		break;
	case OPT_VERIFY:
		opt->verify = true;
		break;
	case 'q':
		opt->quiet = true;
		break;
	case OPT_SKIP_LOCK:
		opt->test_skip_lock = true;
		break;
	case OPT_EXPECT_RACE:
		opt->expect_race = true;
		opt->verify = true;
		break;
	case OPT_RACE_WINDOW:
		opt->test_race_window = true;
		break;
	case OPT_SWEEP:
		cmd->sweep_arg = optarg;
		break;
	case OPT_CPUS:
		cmd->cpus_arg = optarg;
		opt->cpus_given = true;
		break;
	case OPT_PIN:
		opt->pin = true;
		break;
	default:
		return false;
	}
	return true;
}

/*
 * The command line into @cmd and @opt.  True when an option was an action
 * of its own (--help, --list, ...): main returns *@rc then.
 */
static bool parse_options(struct stress_cmd *cmd, struct stress_opts *opt, int argc, char **argv,
			  int *rc)
{
	int c;

	opt->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	CPU_ZERO(&cmd->allowed);
	if (!sched_getaffinity(0, sizeof(cmd->allowed), &cmd->allowed) &&
	    CPU_COUNT(&cmd->allowed) > 0)
		opt->ncpus = CPU_COUNT(&cmd->allowed);
	if (opt->ncpus < 1)
		opt->ncpus = 1;

	opterr = 0; /* usage errors are one line of ours (rv_cli_bad_option) */
	*rc = 0;
	while ((c = getopt_long(argc, argv, stress_shortopts, stress_longopts, NULL)) != -1) {
		switch (c) {
		case OPT_LIST:
			list_workloads();
			return true;
		case OPT_LIST_COUNTERS:
			*rc = stress_model_list_counters();
			return true;
		case 'h':
			usage(stdout);
			return true;
		case OPT_SUMMARIZE:
			*rc = stress_summarize(stdin, stdout);
			return true;
		case 'V':
			rv_cli_version("rcuvfs-stress");
			return true;
		default:
			if (!parse_plain_option(cmd, opt, c) && !parse_value_option(opt, c))
				exit(rv_cli_bad_option("rcuvfs-stress", stress_shortopts, argv));
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rcuvfs-stress: unexpected argument '%s'\n", argv[optind]);
		exit(2);
	}
	return false;
}

/* --sweep NAME=V1,V2: one configuration per value, on top of -o */
static void parse_sweep(struct stress_cmd *cmd, struct stress_opts *opt)
{
	char *eq = strchr(cmd->sweep_arg, '='), *sv = NULL, *v;
	int n = 0;

	if (!cmd->model) {
		fprintf(stderr, "rcuvfs-stress: --sweep varies model switches and needs "
				"--model\n");
		exit(2);
	}
	if (!eq || eq == cmd->sweep_arg || !eq[1]) {
		fprintf(stderr, "rcuvfs-stress: --sweep: expected NAME=V1,V2,...\n");
		exit(2);
	}
	*eq = '\0';
	cmd->sweep_name = cmd->sweep_arg;
	for (v = strtok_r(eq + 1, ",", &sv); v; v = strtok_r(NULL, ",", &sv)) {
		void *cfg = stress_model_switches_dup(opt->switches);
		char *label;

		if (!cfg) {
			perror("rcuvfs-stress");
			exit(2);
		}
		if (stress_model_parse_switch(cfg, cmd->sweep_name, v) ||
		    stress_model_check_switches(cfg))
			exit(2);
		cmd->configs = realloc(cmd->configs, (n + 1) * sizeof(*cmd->configs));
		cmd->sweep_vals = realloc(cmd->sweep_vals, (n + 1) * sizeof(*cmd->sweep_vals));
		cmd->sweep_labels =
		    realloc(cmd->sweep_labels, (n + 1) * sizeof(*cmd->sweep_labels));
		label = malloc(strlen(cmd->sweep_name) + strlen(v) + 2);
		if (!cmd->configs || !cmd->sweep_vals || !cmd->sweep_labels || !label) {
			perror("rcuvfs-stress: realloc");
			exit(2);
		}
		sprintf(label, "%s=%s", cmd->sweep_name, v);
		cmd->configs[n] = cfg;
		cmd->sweep_vals[n] = v;
		cmd->sweep_labels[n++] = label;
	}
	cmd->nsweep = n;
	cmd->nconfigs = n;
	/* the sweep's switch counts as given: workloads keep their hands off it */
	opt->switches_given =
	    realloc(opt->switches_given, (opt->nswitches_given + 1) * sizeof(*opt->switches_given));
	if (!opt->switches_given) {
		perror("rcuvfs-stress: realloc");
		exit(2);
	}
	opt->switches_given[opt->nswitches_given++] = cmd->sweep_name;
}

/* --cpus / --pin */
static void set_cpus(struct stress_cmd *cmd, struct stress_opts *opt)
{
	cpu_set_t set;

	if (!cmd->cpus_arg) {
		opt->cpu_list = calloc(CPU_SETSIZE, sizeof(int));
		if (!opt->cpu_list) {
			perror("rcuvfs-stress: calloc");
			exit(2);
		}
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &cmd->allowed))
				opt->cpu_list[opt->ncpu_list++] = i;
		if (!opt->ncpu_list)
			opt->cpu_list[opt->ncpu_list++] = 0;
		return;
	}
	if (parse_cpus(cmd->cpus_arg, &cmd->allowed, &opt->cpu_list, &opt->ncpu_list))
		exit(2);
	CPU_ZERO(&set);
	for (int i = 0; i < opt->ncpu_list; i++)
		CPU_SET(opt->cpu_list[i], &set);
	/* tasks (threads and children) inherit the parent's mask */
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "rcuvfs-stress: --cpus: %s\n", strerror(errno));
		exit(2);
	}
	opt->ncpus = opt->ncpu_list;
}

/* the options that need each other; a usage error exits 2 with one line */
static void validate(struct stress_cmd *cmd, struct stress_opts *opt)
{
	if (cmd->model == !!opt->path) {
		fprintf(stderr, "rcuvfs-stress: give exactly one of --path DIR and --model\n");
		exit(2);
	}
	if (!cmd->workloads) {
		fprintf(stderr, "rcuvfs-stress: --workload is required (--list shows them)\n");
		exit(2);
	}
	opt->target = cmd->model ? TARGET_MODEL : TARGET_PATH;
	if (cmd->nswargs && !cmd->model) {
		fprintf(stderr, "rcuvfs-stress: -o sets model switches and needs --model; for a "
				"mount, give them to the rcuvfs daemon\n");
		exit(2);
	}
	if (cmd->model) {
		opt->switches = stress_model_switches_new();
		if (!opt->switches) {
			perror("rcuvfs-stress");
			exit(2);
		}
		for (int i = 0; i < cmd->nswargs; i++)
			if (parse_switches(opt, cmd->swargs[i]))
				exit(2);
		if (!cmd->sweep_arg && stress_model_check_switches(opt->switches))
			exit(2);
	}
	if (cmd->sweep_arg)
		parse_sweep(cmd, opt);
	if (!cmd->configs) {
		cmd->configs = calloc(1, sizeof(*cmd->configs));
		if (!cmd->configs) {
			perror("rcuvfs-stress: calloc");
			exit(2);
		}
		cmd->configs[0] = opt->switches;
	}
	set_cpus(cmd, opt);
}

/* output files: opened before the first run, so a bad path fails now */
static void open_outputs(struct stress_cmd *cmd, struct stress_opts *opt)
{
	const char *json = cmd->json, *csv = cmd->csv;

	if (json && csv && !strcmp(json, "-") && !strcmp(csv, "-")) {
		fprintf(stderr, "rcuvfs-stress: --json - and --csv - cannot share stdout\n");
		exit(2);
	}
	cmd->json_f = open_output("--json", json);
	if (json && !cmd->json_f)
		exit(2);
	cmd->csv_f = open_output("--csv", csv);
	if (csv && !cmd->csv_f)
		exit(2);
	cmd->table_f = stdout;
	if (cmd->json_f == stdout || cmd->csv_f == stdout)
		cmd->table_f = stderr;
	opt->progress = !opt->quiet && isatty(STDERR_FILENO);
}

/* -w: the workloads to run, checked against the target */
static void select_workloads(struct stress_cmd *cmd)
{
	char *copy, *save = NULL, *tok;
	bool model = cmd->model;

	cmd->wls = calloc(stress_nworkloads + strlen(cmd->workloads) + 1, sizeof(*cmd->wls));
	copy = strdup(cmd->workloads);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct stress_workload *wl;

		if (!strcmp(tok, "all")) {
			for (int i = 0; i < stress_nworkloads; i++) {
				wl = &stress_workloads[i];
				if (model ? wl->model != NULL : wl->path != NULL)
					cmd->wls[cmd->nwl++] = wl;
			}
			continue;
		}
		wl = stress_find_workload(tok);
		if (!wl) {
			fprintf(stderr,
				"rcuvfs-stress: unknown workload '%s' (--list shows them)\n", tok);
			exit(2);
		}
		if (!model && !wl->path) {
			fprintf(stderr, "rcuvfs-stress: %s runs only against the model (--model)\n",
				tok);
			exit(2);
		}
		if (model && !wl->model) {
			fprintf(
			    stderr,
			    "rcuvfs-stress: %s: no model implementation yet (it comes with %s)\n",
			    tok, wl->model_note);
			exit(2);
		}
		cmd->wls[cmd->nwl++] = wl;
	}
	free(copy);
	if (!cmd->nwl) {
		fprintf(stderr, "rcuvfs-stress: no workload to run\n");
		exit(2);
	}
}

/* the scratch directory and the control directory of a mount; 1 if mkdir fails */
static int make_scratch_dir(const struct stress_opts *opt)
{
	struct stat st;
	char root[PATH_MAX];

	if (strlen(opt->path) > sizeof(base_dir) - 32) {
		fprintf(stderr, "rcuvfs-stress: --path: name too long\n");
		exit(2);
	}
	if (stat(opt->path, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "rcuvfs-stress: --path %s: not a directory\n", opt->path);
		exit(2);
	}
	snprintf(base_dir, sizeof(base_dir), "%s/rcuvfs-stress.%d", opt->path, (int)getpid());
	if (mkdir(base_dir, 0755)) {
		fprintf(stderr, "rcuvfs-stress: mkdir %s: %s\n", base_dir, strerror(errno));
		return 1;
	}
	mount_root(opt->path, root, sizeof(root));
	snprintf(ctl_dir, sizeof(ctl_dir), "%s/.rcuvfs", root);
	if (stat(ctl_dir, &st) || !S_ISDIR(st.st_mode))
		ctl_dir[0] = '\0';
	return 0;
}

/* task counts per workload, and so the number of runs */
static void plan_runs(struct stress_cmd *cmd, struct stress_opts *opt)
{
	cmd->counts = calloc(cmd->nwl, sizeof(*cmd->counts));
	cmd->ncounts = calloc(cmd->nwl, sizeof(*cmd->ncounts));
	if (!cmd->counts || !cmd->ncounts) {
		perror("rcuvfs-stress: calloc");
		exit(2);
	}
	for (int w = 0; w < cmd->nwl; w++) {
		char deflist[64];

		if (cmd->tasks_arg) {
			if (parse_tasks(cmd->tasks_arg, &cmd->counts[w], &cmd->ncounts[w]))
				exit(2);
		} else {
			if (cmd->wls[w]->default_tasks)
				snprintf(deflist, sizeof(deflist), "%d",
					 cmd->wls[w]->default_tasks);
			else if (opt->ncpus > 1)
				snprintf(deflist, sizeof(deflist), "1,%d", opt->ncpus);
			else
				snprintf(deflist, sizeof(deflist), "1");
			parse_tasks(deflist, &cmd->counts[w], &cmd->ncounts[w]);
		}
		opt->runs_total += cmd->ncounts[w] * cmd->nconfigs * opt->repeat;
	}
}

/* one run of workload @w with @ntasks tasks under configuration @k, into cmd->res */
static int run_config(struct stress_cmd *cmd, struct stress_opts *opt, int w, int ntasks, int k)
{
	struct stress_result *r;
	int rc = 0;

	if (cmd->nres == cmd->capres) {
		cmd->capres = cmd->capres ? cmd->capres * 2 : 16;
		cmd->res = realloc(cmd->res, cmd->capres * sizeof(*cmd->res));
		if (!cmd->res) {
			perror("rcuvfs-stress: realloc");
			exit(2);
		}
	}
	r = &cmd->res[cmd->nres];
	if (run_one(opt, cmd->wls[w], ntasks, cmd->configs[k], r))
		rc = 1;
	r->config = k;
	r->sweep = cmd->sweep_labels ? cmd->sweep_labels[k] : "";
	cmd->nres++;
	opt->run_index++;
	return rc;
}

/*
 * Rounds outermost, configurations innermost: the runs of one round
 * alternate the designs being compared, and each round measures every
 * configuration once.  Returns 1 if a run failed.
 */
static int run_all(struct stress_cmd *cmd, struct stress_opts *opt)
{
	int rc = 0;

	opt->runs_started_at = stress_now();
	for (int round = 1; round <= opt->repeat && !interrupted; round++) {
		opt->round = round;
		for (int w = 0; w < cmd->nwl && !interrupted; w++)
			for (int i = 0; i < cmd->ncounts[w] && !interrupted; i++)
				for (int k = 0; k < cmd->nconfigs && !interrupted; k++)
					if (run_config(cmd, opt, w, cmd->counts[w][i], k))
						rc = 1;
	}
	for (int w = 0; w < cmd->nwl; w++)
		free(cmd->counts[w]);
	free(cmd->counts);
	free(cmd->ncounts);
	return rc;
}

/* the table, --json and --csv; returns @rc, or 1 if an output failed */
static int report(struct stress_cmd *cmd, const struct stress_opts *opt, int rc)
{
	struct stress_result *agg = NULL;
	int nagg;

	nagg = report_aggregate(cmd->res, cmd->nres, &agg);
	report_table(cmd->table_f, agg, nagg, opt->ncpus);
	if (cmd->json_f &&
	    (report_json(cmd->json_f, cmd->json, &cmd->meta, agg, nagg, opt->ncpus) ||
	     close_output("--json", cmd->json, cmd->json_f)))
		rc = rc ? rc : 1;
	if (cmd->csv_f && (report_csv(cmd->csv_f, cmd->csv, &cmd->meta, agg, nagg) ||
			   close_output("--csv", cmd->csv, cmd->csv_f)))
		rc = rc ? rc : 1;
	for (int i = 0; i < nagg; i++) {
		free(agg[i].samples);
		free(agg[i].task_cpus);
	}
	free(agg);
	return rc;
}

static void free_all(struct stress_cmd *cmd, struct stress_opts *opt)
{
	kvset_free(&cmd->meta.switches);
	free(cmd->meta.cmdline);
	for (int k = 0; k < cmd->nsweep; k++) {
		free(cmd->configs[k]);
		free(cmd->sweep_labels[k]);
	}
	free(cmd->configs);
	free(cmd->sweep_vals);
	free(cmd->sweep_labels);
	free(opt->cpu_list);
	for (int i = 0; i < cmd->nres; i++) {
		kvset_free(&cmd->res[i].switches);
		kvset_free(&cmd->res[i].counters);
		free(cmd->res[i].task_cpus);
	}
	free(cmd->res);
	free(cmd->wls);
	free(cmd->swargs);
	free(opt->switches_given);
	free(opt->switches);
}

int main(int argc, char **argv)
{
	struct stress_opts opt = {
	    .mode = MODE_THREADS,
	    .duration_s = 5,
	    .warmup_s = 1,
	    .hang_timeout_s = 60,
	    .repeat = 1,
	    .params = {.work_us = 20,
		       .cs_ns = 1000,
		       .vmas = 10000,
		       .pages = 128,
		       .window_ns = 1000,
		       .areas = 5,
		       .pause_us = 500},
	};
	struct stress_cmd cmd = {.nconfigs = 1};
	int rc;

	if (parse_options(&cmd, &opt, argc, argv, &rc))
		return rc;
	validate(&cmd, &opt);
	open_outputs(&cmd, &opt);
	select_workloads(&cmd);
	if (!cmd.model && make_scratch_dir(&opt))
		return 1;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	meta_fill(&cmd.meta, argc, argv, &opt);
	plan_runs(&cmd, &opt);

	rc = run_all(&cmd, &opt);
	if (!cmd.model)
		rmdir(base_dir);
	if (interrupted) {
		fprintf(stderr, "rcuvfs-stress: interrupted\n");
		rc = 130;
	}
	rc = report(&cmd, &opt, rc);
	free_all(&cmd, &opt);
	return rc;
}
