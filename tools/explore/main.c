// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/explore/main.c - rcuvfs-explore: systematic interleaving exploration
 * of the model's scenarios.
 *
 *   rcuvfs-explore --list
 *   rcuvfs-explore --scenario NAME[,NAME...] [-o switch=value,...]
 *                  [--preemptions K | --pct D --schedules N --seed S]
 *                  [--matrix] [--expect found|clean] [--json FILE]
 *   rcuvfs-explore --replay ID
 *
 * Each configuration (scenario and options) is explored in a child process,
 * so that a failing schedule that leaves tasks parked (a deadlock), an ASan
 * report or a crash ends that configuration only; the parent collects one
 * row per configuration through shared memory and prints the summary.
 *
 * Locking: the parent and a child share only the row the child fills; the
 * parent reads it after waitpid.
 */
#include "strategy.h"
#include "tools/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

enum { RES_CLEAN, RES_FOUND, RES_CRASH, RES_ERROR };

struct row {
	char scenario[64];
	char options[256];
	char strategy[48];
	uint64_t schedules;
	uint64_t max_steps;
	uint64_t nondet;
	uint64_t failures; /* failing schedules (--keep-going counts them all) */
	int exhausted;
	int result;
	int expect; /* -1 none, else RES_CLEAN / RES_FOUND */
	int done;   /* the child finished writing */
	double secs;
	char id[1536];
	char running[1536];
	char why[512];
};

static struct {
	int preemptions;
	bool preemptions_set; /* given on the command line */
	int pct;	      /* change points; 0: bounded preemptions */
	uint64_t schedules;
	uint64_t seed;
	uint64_t max_schedules;
	double time_limit;
	int expect;
	bool matrix, quiet, trace, progress, keep_going, partial_ok, cross_first, iterative;
	int shard, nshards; /* --shard I/N: 0-based I, or nshards 0 */
	bool stop_unexpected;
	const char *json;
	const char *trace_html;
} opt = {
    .preemptions = 2,
    .schedules = 1000,
    .seed = 1,
    .max_schedules = 200000,
    .expect = -1,
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rcuvfs-explore --list\n"
		"       rcuvfs-explore --scenario NAME[,NAME...]|all [-o name=value,...]\n"
		"                      [--preemptions K | --pct D --schedules N --seed S]\n"
		"                      [--matrix] [--expect found|clean] [--json FILE]\n"
		"       rcuvfs-explore --replay ID\n"
		"       rcuvfs-explore --help | --version\n"
		"\n"
		"Runs the scenario's model tasks one at a time, switching only at scheduling\n"
		"points (the model's lock primitives, RCU read sections, injection points,\n"
		"rv_sched_point), and checks every schedule with the scenario's oracles.\n"
		"\n"
		"  --list              scenarios, their operations, params and test matrix\n"
		"  --scenario LIST     scenarios to explore (comma-separated, or 'all')\n"
		"  -o name=value,...   model switches (as rcuvfs -o) and scenario params\n"
		"  --matrix            explore each scenario's own matrix of variants (the\n"
		"                      designs with a known bug must fail, the others not);\n"
		"                      implies --expect per variant; without --preemptions\n"
		"                      each scenario's own bound (2, or 1 for three tasks)\n"
		"  --preemptions K     every schedule with at most K preemptions (default 2)\n"
		"  --max-schedules N   stop a bounded search after N schedules (default 200000)\n"
		"  --pct D             PCT with D priority change points instead\n"
		"  --schedules N       PCT schedules per configuration (default 1000)\n"
		"  --seed S            PCT seed (default 1)\n"
		"  --time-limit SEC    stop each configuration after SEC seconds\n"
		"  --expect found|clean  exit 1 unless every configuration found a failure\n"
		"                      (found) or explored without one (clean; a bounded\n"
		"                      search must also have exhausted its space)\n"
		"  --replay ID         run one schedule and print its trace (task, point,\n"
		"                      code location) up to the failure\n"
		"  --trace             print the trace of each failing schedule\n"
		"  --trace-html FILE   with --replay: also write the trace as an HTML page\n"
		"                      (a lane per task, code locations, preemptions,\n"
		"                      locks held, results and the oracle's verdict)\n"
		"  --partial-ok        a clean search stopped by --max-schedules or\n"
		"                      --time-limit counts as clean for --expect\n"
		"  --iterative         with --preemptions K: search at 0, 1, ... K preemptions\n"
		"                      in turn, stopping at the first bound with a failure\n"
		"  --cross-first       --matrix: only the first of a scenario's cross option\n"
		"                      sets (for mm scenarios: the default vma_lock and\n"
		"                      vm_area_cache)\n"
		"  --shard I/N         with 'all': only every N-th scenario, starting at the\n"
		"                      I-th (1 <= I <= N), so N runs side by side cover\n"
		"                      the catalogue once\n"
		"  --end-checks-only   run the invariant checks only after each schedule,\n"
		"                      not also between critical sections during it\n"
		"  --stop-unexpected   stop after the first configuration whose result is\n"
		"                      not the expected one (mutation runs)\n"
		"  --keep-going        explore on after a failure and count the failing\n"
		"                      schedules (the first is reported; a deadlock or a\n"
		"                      hang still ends the configuration)\n"
		"  --json FILE         write the summary rows as JSON\n"
		"  --quiet             no progress line, no table\n"
		"  -V, --version       version and git commit\n"
		"  -h, --help          this text\n"
		"\n"
		"A schedule id is SCENARIO[/OPTIONS]@CHOICES, CHOICES being the decisions\n"
		"that differ from the default (keep the running task while it can run,\n"
		"else the lowest-numbered one) as step.task, comma-separated, or '-'.\n"
		"Exit status: 0 clean (or as expected), 1 a failure found (or not as\n"
		"expected), 2 usage error.\n");
}

static void list_scenarios(void)
{
	for (const struct xscenario *sc = xscenario_first(); sc; sc = sc->next) {
		printf("%s\n    %s\n", sc->name, sc->summary);
		for (int t = 0; t < sc->ntasks; t++) {
			printf("    T%d:", t);
			for (int k = 0; k < sc->nops[t]; k++)
				printf(" %s", sc->opname[t][k]);
			printf("\n");
		}
		for (int p = 0; p < XS_MAX_PARAMS && sc->params[p].name; p++) {
			printf("    -o %s=", sc->params[p].name);
			for (int v = 0; v < 6 && sc->params[p].values[v]; v++)
				printf("%s%s", v ? "|" : "", sc->params[p].values[v]);
			printf("  %s\n", sc->params[p].help);
		}
		for (int v = 0; v < (int)ARRAY_SIZE(sc->variants) && sc->variants[v].options; v++)
			printf("    matrix: %-44s %s\n",
			       *sc->variants[v].options ? sc->variants[v].options : "(defaults)",
			       sc->variants[v].buggy ? "bug expected" : "clean expected");
		for (const char *const *c = sc->cross; c && *c; c++)
			printf("    matrix: every line under %s\n", **c ? *c : "(defaults)");
		if (sc->matrix_k)
			printf("    matrix bound: %d preemptions\n", sc->matrix_k);
		if (sc->cross && sc->cross_k)
			printf("    matrix bound under every set but the first: %d preemptions\n",
			       sc->cross_k);
		if (sc->linearizable)
			printf("    oracle: linearizability against every serial order\n");
	}
}

static void make_id(char *buf, size_t len, const struct xs_config *cfg, const struct xs_sched *s)
{
	size_t off =
	    snprintf(buf, len, "%s%s%s@", cfg->sc->name, *cfg->options ? "/" : "", cfg->options);

	if (off < len)
		xs_sched_format(s, buf + off, len - off);
}

/* The id of the next DFS schedule, known before it runs (for crash reports). */
static void dfs_prefix_id(char *buf, size_t len, const struct xs_config *cfg,
			  const struct xs_dfs *x)
{
	struct xs_sched s = {0};

	for (uint64_t i = 0; i < x->prefix; i++) {
		const struct xs_node *n = &x->node[i];
		int def = n->cur_enabled ? n->cur : __builtin_ctz(n->enabled);

		if (n->chosen != def)
			xs_sched_add(&s, i, n->chosen);
	}
	make_id(buf, len, cfg, &s);
	xs_sched_free(&s);
}

static void progress(const struct row *r, uint64_t t0, uint64_t *last)
{
	uint64_t now = rv_now_ns();

	if (!opt.progress || now - *last < 250000000ull)
		return;
	*last = now;
	fprintf(stderr, "\r  %-24s %-28.28s %8lu schedules %6.1fs", r->scenario,
		*r->options ? r->options : "(defaults)", (unsigned long)r->schedules,
		(now - t0) / 1e9);
}

/* After a failing schedule: fill the row; parked tasks mean the child must go. */
static void record_failure(struct row *r, const struct xs_config *cfg, const struct xs_sched *s,
			   const struct xs_outcome *out)
{
	if (r->failures++)
		return; /* --keep-going: the first failing schedule is the one reported */
	r->result = RES_FOUND;
	make_id(r->id, sizeof(r->id), cfg, s);
	snprintf(r->why, sizeof(r->why), "%s", out->why);
	if (opt.trace) {
		printf("\n%s: failing schedule %s\n  %s\n", cfg->sc->name, r->id, out->why);
		xs_print_trace(stdout, cfg, &out->xr,
			       out->xstatus == RV_X_DONE ? xs_last_run() : NULL);
		fflush(stdout);
	}
}

static void finish(struct row *r, uint64_t t0)
{
	r->secs = (rv_now_ns() - t0) / 1e9;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	if (opt.progress)
		fprintf(stderr, "\r%*s\r", 90, "");
}

static bool over_time(uint64_t t0)
{
	return opt.time_limit > 0 && (rv_now_ns() - t0) / 1e9 > opt.time_limit;
}

/* --matrix without --preemptions: the bound of the cross set being run (0: none). */
static int matrix_cross_k;

static void explore_dfs_bound(struct row *r, const struct xs_config *cfg, uint64_t t0, int k);

static void explore_dfs(struct row *r, const struct xs_config *cfg, uint64_t t0)
{
	int k = opt.preemptions;

	if (opt.matrix && !opt.preemptions_set && cfg->sc->matrix_k)
		k = cfg->sc->matrix_k;
	if (opt.matrix && !opt.preemptions_set && matrix_cross_k)
		k = matrix_cross_k;
	/* --iterative: CHESS's iterative context bounding, bound 0, 1, ... k,
	 * stopping at the first bound with a failure (schedules of a lower
	 * bound are run again at the higher ones and counted each time) */
	snprintf(r->strategy, sizeof(r->strategy), "preemptions<=%d%s", k,
		 opt.iterative ? " iter" : "");
	for (int j = opt.iterative ? 0 : k; j <= k; j++) {
		r->exhausted = 0;
		explore_dfs_bound(r, cfg, t0, j);
		if (r->result != RES_CLEAN || r->schedules >= opt.max_schedules || over_time(t0))
			break;
	}
}

static void explore_dfs_bound(struct row *r, const struct xs_config *cfg, uint64_t t0, int k)
{
	struct xs_dfs x;
	uint64_t last = 0;

	xs_dfs_init(&x, k);
	for (;;) {
		struct xs_outcome out;

		if (r->schedules >= opt.max_schedules || over_time(t0))
			break;
		dfs_prefix_id(r->running, sizeof(r->running), cfg, &x);
		xs_dfs_begin(&x);
		if (xs_run_one(cfg, xs_dfs_choose, &x, true, &out)) {
			r->result = RES_ERROR;
			snprintf(r->why, sizeof(r->why), "setup failed");
			break;
		}
		r->schedules++;
		if (out.xr.steps > r->max_steps)
			r->max_steps = out.xr.steps;
		r->nondet += x.nondeterministic;
		progress(r, t0, &last);
		if (out.verdict == XS_FAIL) {
			record_failure(r, cfg, &x.cur, &out);
			if (out.xstatus != RV_X_DONE) {
				finish(r, t0);
				fflush(NULL);
				_exit(0);
			}
			if (!opt.keep_going)
				break;
		}
		if (!xs_dfs_next(&x)) {
			r->exhausted = 1;
			break;
		}
	}
	xs_dfs_free(&x);
}

static void explore_pct(struct row *r, const struct xs_config *cfg, uint64_t t0)
{
	struct xs_replay rp = {0};
	struct xs_sched none = {0};
	struct xs_outcome out;
	uint64_t last = 0, len;

	snprintf(r->strategy, sizeof(r->strategy), "pct d=%d n=%lu seed=%lu", opt.pct,
		 (unsigned long)opt.schedules, (unsigned long)opt.seed);
	/* the default schedule's length spreads the change points */
	rp.s = &none;
	if (xs_run_one(cfg, xs_replay_choose, &rp, true, &out)) {
		r->result = RES_ERROR;
		return;
	}
	len = out.xr.steps;
	for (uint64_t i = 0; i < opt.schedules && !over_time(t0); i++) {
		struct xs_pct p;

		xs_pct_init(&p, cfg->sc->ntasks, opt.pct + 1, len, opt.seed + i);
		snprintf(r->running, sizeof(r->running), "%s pct seed %lu", cfg->sc->name,
			 (unsigned long)(opt.seed + i));
		if (xs_run_one(cfg, xs_pct_choose, &p, true, &out)) {
			r->result = RES_ERROR;
			break;
		}
		r->schedules++;
		if (out.xr.steps > r->max_steps)
			r->max_steps = out.xr.steps;
		progress(r, t0, &last);
		if (out.verdict == XS_FAIL) {
			record_failure(r, cfg, &p.cur, &out);
			xs_sched_free(&p.cur);
			if (out.xstatus != RV_X_DONE) {
				finish(r, t0);
				fflush(NULL);
				_exit(0);
			}
			if (!opt.keep_going)
				return;
			continue;
		}
		xs_sched_free(&p.cur);
	}
}

static void explore_child(struct row *r, const struct xs_config *cfg)
{
	uint64_t t0 = rv_now_ns();

	if (xs_serial_prepare(cfg)) {
		r->result = RES_ERROR;
		snprintf(r->why, sizeof(r->why), "serial orders could not run");
	} else if (opt.pct) {
		explore_pct(r, cfg, t0);
	} else {
		explore_dfs(r, cfg, t0);
	}
	finish(r, t0);
}

static struct row *rows;
static int nrows, caprows;

static bool as_expected(const struct row *r);
static bool stopped; /* --stop-unexpected: a row was not as expected */

static struct row *run_config(const struct xscenario *sc, const char *options, int expect)
{
	struct xs_config cfg;
	char err[256];
	struct row *r, *shared;
	pid_t pid;
	int status;

	if (stopped)
		return NULL;
	if (xs_config_parse(&cfg, sc, options, err, sizeof(err))) {
		fprintf(stderr, "rcuvfs-explore: %s: %s\n", sc->name, err);
		exit(2);
	}
	shared =
	    mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	memset(shared, 0, sizeof(*shared));
	snprintf(shared->scenario, sizeof(shared->scenario), "%s", sc->name);
	snprintf(shared->options, sizeof(shared->options), "%s", options ? options : "");
	shared->expect = expect;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		explore_child(shared, &cfg);
		fflush(NULL);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		;
	if (nrows == caprows) {
		caprows = caprows ? caprows * 2 : 16;
		rows = realloc(rows, caprows * sizeof(*rows));
		if (!rows)
			exit(2);
	}
	r = &rows[nrows++];
	*r = *shared;
	munmap(shared, sizeof(*shared));
	if (!r->done) {
		r->result = RES_CRASH;
		snprintf(r->id, sizeof(r->id), "%s", r->running);
		if (WIFSIGNALED(status))
			snprintf(r->why, sizeof(r->why), "the schedule died of signal %d",
				 WTERMSIG(status));
		else
			snprintf(r->why, sizeof(r->why), "the schedule exited with %d (ASan?)",
				 WEXITSTATUS(status));
	}
	if (opt.stop_unexpected && !as_expected(r))
		stopped = true;
	return r;
}

/* One matrix line, under each of the scenario's cross option sets. */
static void run_variant(const struct xscenario *sc, const struct xs_variant *v)
{
	int expect = v->buggy ? RES_FOUND : RES_CLEAN;
	char opts[256];

	if (!sc->cross) {
		run_config(sc, v->options, expect);
		return;
	}
	for (const char *const *c = sc->cross; *c; c++) {
		snprintf(opts, sizeof(opts), "%s%s%s", v->options, *v->options && **c ? "," : "",
			 *c);
		if (c != sc->cross && opt.cross_first)
			break;
		/* the cross sets after the first: the scenario's cross_k, if any */
		matrix_cross_k = c != sc->cross ? sc->cross_k : 0;
		run_config(sc, opts, expect);
	}
	matrix_cross_k = 0;
}

static const char *result_name(int res)
{
	switch (res) {
	case RES_CLEAN:
		return "clean";
	case RES_FOUND:
		return "FOUND";
	case RES_CRASH:
		return "CRASH";
	default:
		return "error";
	}
}

static bool as_expected(const struct row *r)
{
	if (r->expect < 0)
		return r->result == RES_CLEAN;
	if (r->expect == RES_FOUND)
		return r->result == RES_FOUND || r->result == RES_CRASH;
	/* a bounded search must also have exhausted its space (unless the
	 * caller accepts a search stopped by --max-schedules or --time-limit) */
	return r->result == RES_CLEAN && (opt.pct || r->exhausted || opt.partial_ok);
}

static void print_table(void)
{
	printf("%-22s %-40s %-16s %9s %9s %8s  %-6s %s\n", "scenario", "switches", "strategy",
	       "schedules", "exhausted", "time", "result", "failing schedule / reason");
	for (int i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		printf("%-22s %-40s %-16s %9lu %9s %7.2fs  %-6s %s", r->scenario,
		       *r->options ? r->options : "(defaults)", r->strategy,
		       (unsigned long)r->schedules, r->exhausted ? "yes" : "no", r->secs,
		       result_name(r->result), r->result == RES_CLEAN ? "-" : r->id);
		if (r->expect >= 0 && !as_expected(r))
			printf("   (expected %s)",
			       r->expect == RES_FOUND ? "a failure" : "clean and exhausted");
		if (r->failures > 1)
			printf("   (%lu failing schedules)", (unsigned long)r->failures);
		if (r->nondet)
			printf("   (%lu schedules diverged from their prefix)",
			       (unsigned long)r->nondet);
		printf("\n");
		if (r->result != RES_CLEAN && *r->why)
			printf("%24s%s\n", "", r->why);
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static int write_json(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "[\n");
	for (int i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		fprintf(f, "  {\"scenario\": ");
		json_str(f, r->scenario);
		fprintf(f, ", \"switches\": ");
		json_str(f, r->options);
		fprintf(f, ", \"strategy\": ");
		json_str(f, r->strategy);
		fprintf(f,
			", \"schedules\": %lu, \"max_steps\": %lu, \"exhausted\": %s, "
			"\"failures\": %lu, \"seconds\": %.3f, \"result\": ",
			(unsigned long)r->schedules, (unsigned long)r->max_steps,
			r->exhausted ? "true" : "false", (unsigned long)r->failures, r->secs);
		json_str(f, result_name(r->result));
		fprintf(f, ", \"failing_schedule\": ");
		json_str(f, r->result == RES_CLEAN ? "" : r->id);
		fprintf(f, ", \"reason\": ");
		json_str(f, r->result == RES_CLEAN ? "" : r->why);
		fprintf(f, ", \"as_expected\": %s}%s\n", as_expected(r) ? "true" : "false",
			i + 1 < nrows ? "," : "");
	}
	fprintf(f, "]\n");
	return fclose(f);
}

#ifdef RCUVFS_SANITIZE
void __sanitizer_set_death_callback(void (*callback)(void));
static const struct xs_config *dying_cfg;

/* ASan found an error in the replayed schedule: print the trace up to it. */
static void replay_death(void)
{
	struct rv_xresult xr;

	rv_xrun_snapshot(&xr);
	xr.status = RV_X_CRASHED; /* print where each task was */
	printf("the sanitizer stopped the schedule; the trace up to the error:\n");
	xs_print_trace(stdout, dying_cfg, &xr, NULL);
	fflush(stdout);
}
#endif

static int replay(const char *id)
{
	char name[64], opts[256] = "";
	const char *at = strchr(id, '@'), *slash;
	const struct xscenario *sc;
	struct xs_config cfg;
	struct xs_sched s;
	struct xs_replay rp;
	struct xs_outcome out;
	char err[256];
	size_t n;

	if (!at) {
		fprintf(stderr, "rcuvfs-explore: a schedule id is SCENARIO[/OPTIONS]@CHOICES\n");
		return 2;
	}
	slash = memchr(id, '/', at - id);
	n = (size_t)((slash ? slash : at) - id);
	if (n >= sizeof(name)) {
		fprintf(stderr, "rcuvfs-explore: bad schedule id\n");
		return 2;
	}
	memcpy(name, id, n);
	name[n] = 0;
	if (slash) {
		n = (size_t)(at - slash - 1);
		if (n >= sizeof(opts)) {
			fprintf(stderr, "rcuvfs-explore: bad schedule id\n");
			return 2;
		}
		memcpy(opts, slash + 1, n);
		opts[n] = 0;
	}
	sc = xscenario_find(name);
	if (!sc) {
		fprintf(stderr, "rcuvfs-explore: no scenario '%s' (see --list)\n", name);
		return 2;
	}
	if (xs_config_parse(&cfg, sc, opts, err, sizeof(err))) {
		fprintf(stderr, "rcuvfs-explore: %s\n", err);
		return 2;
	}
	if (xs_sched_parse(&s, at + 1)) {
		fprintf(stderr, "rcuvfs-explore: bad choices '%s' (step.task,...)\n", at + 1);
		return 2;
	}
	if (xs_serial_prepare(&cfg))
		return 2;
	rp.s = &s;
	rp.next = 0;
#ifdef RCUVFS_SANITIZE
	dying_cfg = &cfg;
	__sanitizer_set_death_callback(replay_death);
#endif
	if (xs_run_one(&cfg, xs_replay_choose, &rp, true, &out))
		return 2;
	printf("%s\n", id);
	xs_print_trace(stdout, &cfg, &out.xr, out.xstatus == RV_X_DONE ? xs_last_run() : NULL);
	printf("%s%s\n", out.verdict == XS_FAIL ? "FAILED: " : "passed", out.why);
	if (opt.trace_html) {
		FILE *hf = fopen(opt.trace_html, "w");
		char verdict[600];

		if (!hf) {
			perror(opt.trace_html);
			_exit(2);
		}
		snprintf(verdict, sizeof(verdict), "%s%s",
			 out.verdict == XS_FAIL ? "FAILED: " : "passed", out.why);
		xs_write_trace_html(hf, &cfg, &out.xr,
				    out.xstatus == RV_X_DONE ? xs_last_run() : NULL, id, verdict);
		if (fclose(hf)) {
			perror(opt.trace_html);
			_exit(2);
		}
	}
	fflush(NULL);
	if (out.xstatus != RV_X_DONE)
		_exit(1);
	xs_sched_free(&s);
	return out.verdict == XS_FAIL;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"list", no_argument, NULL, 'l'},
	    {"scenario", required_argument, NULL, 's'},
	    {"preemptions", required_argument, NULL, 'k'},
	    {"pct", required_argument, NULL, 'p'},
	    {"schedules", required_argument, NULL, 'n'},
	    {"seed", required_argument, NULL, 'S'},
	    {"max-schedules", required_argument, NULL, 'M'},
	    {"time-limit", required_argument, NULL, 'T'},
	    {"replay", required_argument, NULL, 'r'},
	    {"json", required_argument, NULL, 'j'},
	    {"expect", required_argument, NULL, 'e'},
	    {"matrix", no_argument, NULL, 'm'},
	    {"trace", no_argument, NULL, 't'},
	    {"keep-going", no_argument, NULL, 'K'},
	    {"partial-ok", no_argument, NULL, 'P'},
	    {"iterative", no_argument, NULL, 'I'},
	    {"end-checks-only", no_argument, NULL, 'E'},
	    {"cross-first", no_argument, NULL, 'C'},
	    {"shard", required_argument, NULL, 'X'},
	    {"stop-unexpected", no_argument, NULL, 'U'},
	    {"trace-html", required_argument, NULL, 'H'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	static const char shortopts[] = "o:hV";
	const char *scen = NULL, *options = "", *replay_id = NULL;
	bool list = false, ok = true;
	int c, li = -1;

	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, lopts, &li)) != -1) {
		char *end = NULL;

		switch (c) {
		case 'l':
			list = true;
			break;
		case 's':
			scen = optarg;
			break;
		case 'o':
			options = optarg;
			break;
		case 'k':
			opt.preemptions_set = true;
			opt.preemptions = (int)strtol(optarg, &end, 10);
			if (*end || opt.preemptions < 0 || opt.preemptions > 8)
				goto bad;
			break;
		case 'p':
			opt.pct = (int)strtol(optarg, &end, 10);
			if (*end || opt.pct < 1 || opt.pct >= XS_PCT_MAX_D)
				goto bad;
			break;
		case 'n':
			opt.schedules = strtoull(optarg, &end, 10);
			if (*end || !opt.schedules)
				goto bad;
			break;
		case 'S':
			opt.seed = strtoull(optarg, &end, 10);
			if (*end)
				goto bad;
			break;
		case 'M':
			opt.max_schedules = strtoull(optarg, &end, 10);
			if (*end || !opt.max_schedules)
				goto bad;
			break;
		case 'T':
			opt.time_limit = strtod(optarg, &end);
			if (*end || opt.time_limit <= 0)
				goto bad;
			break;
		case 'r':
			replay_id = optarg;
			break;
		case 'j':
			opt.json = optarg;
			break;
		case 'e':
			if (!strcmp(optarg, "found"))
				opt.expect = RES_FOUND;
			else if (!strcmp(optarg, "clean"))
				opt.expect = RES_CLEAN;
			else
				goto bad;
			break;
		case 'm':
			opt.matrix = true;
			break;
		case 't':
			opt.trace = true;
			break;
		case 'K':
			opt.keep_going = true;
			break;
		case 'P':
			opt.partial_ok = true;
			break;
		case 'I':
			opt.iterative = true;
			break;
		case 'E':
			xs_midcheck_off = true;
			break;
		case 'C':
			opt.cross_first = true;
			break;
		case 'X': {
			int i = 0, n = 0, len = 0;

			if (sscanf(optarg, "%d/%d%n", &i, &n, &len) != 2 ||
			    optarg[len] || n < 1 || i < 1 || i > n)
				goto bad;
			opt.shard = i - 1;
			opt.nshards = n;
			break;
		}
		case 'U':
			opt.stop_unexpected = true;
			break;
		case 'H':
			opt.trace_html = optarg;
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			rv_cli_version("rcuvfs-explore");
			return 0;
		default:
			return rv_cli_bad_option("rcuvfs-explore", shortopts, argv);
		}
		li = -1;
		continue;
	bad:
		fprintf(stderr, "rcuvfs-explore: bad value '%s' for --%s\n", optarg,
			li >= 0 ? lopts[li].name : "option");
		return RV_CLI_USAGE_ERROR;
	}
	if (optind < argc) {
		fprintf(stderr, "rcuvfs-explore: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (list) {
		list_scenarios();
		return 0;
	}
	if (opt.trace_html && !replay_id) {
		fprintf(stderr, "rcuvfs-explore: --trace-html needs --replay\n");
		return 2;
	}
	if (replay_id)
		return replay(replay_id);
	if (!scen) {
		fprintf(stderr, "rcuvfs-explore: --scenario, --list or --replay is required "
				"(try --help)\n");
		return RV_CLI_USAGE_ERROR;
	}
	opt.progress = !opt.quiet && isatty(2);
	{
		char buf[512], *save = NULL;

		snprintf(buf, sizeof(buf), "%s", scen);
		for (char *name = strtok_r(buf, ",", &save); name;
		     name = strtok_r(NULL, ",", &save)) {
			const struct xscenario *sc;

			if (strcmp(name, "all") && !xscenario_find(name)) {
				fprintf(stderr, "rcuvfs-explore: no scenario '%s' (see --list)\n",
					name);
				return 2;
			}
			int idx = 0;

			for (sc = xscenario_first(); sc; sc = sc->next, idx++) {
				if (strcmp(name, "all") && strcmp(name, sc->name))
					continue;
				if (!strcmp(name, "all") && opt.nshards &&
				    idx % opt.nshards != opt.shard)
					continue;
				if (!opt.matrix) {
					run_config(sc, options, opt.expect);
					continue;
				}
				for (int v = 0;
				     v < (int)ARRAY_SIZE(sc->variants) && sc->variants[v].options;
				     v++)
					run_variant(sc, &sc->variants[v]);
			}
		}
	}
	if (!opt.quiet)
		print_table();
	if (opt.json && write_json(opt.json))
		return 2;
	for (int i = 0; i < nrows; i++)
		if (!as_expected(&rows[i]))
			ok = false;
	return ok ? 0 : 1;
}
