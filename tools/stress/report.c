// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/stress/report.c - the end-of-run table, --json and --csv.
 *
 * The JSON and CSV formats are documented in docs/stress.md ("Output formats") and are kept
 * stable: fields are only ever added.  Runs only in the parent, after every
 * run has finished; no locking.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress.h"

static uint64_t counter(const struct stress_result *r, const char *name)
{
	const struct stress_kv *kv = kvset_find(&r->counters, name);

	return kv ? kv->val : 0;
}

/* ---- folding the --repeat samples ------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void stress_stats(const double *v, int n, struct stress_stats *st)
{
	double *sorted = malloc((n ? n : 1) * sizeof(double)), mean = 0, var = 0;

	if (!sorted) {
		perror("rcuvfs-stress: malloc");
		exit(2);
	}
	memset(st, 0, sizeof(*st));
	st->n = n;
	if (!n) {
		free(sorted);
		return;
	}
	memcpy(sorted, v, n * sizeof(double));
	qsort(sorted, n, sizeof(double), cmp_double);
	st->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	st->min = sorted[0];
	st->max = sorted[n - 1];
	for (int i = 0; i < n; i++)
		mean += v[i] / n;
	for (int i = 0; i < n; i++)
		var += (v[i] - mean) * (v[i] - mean);
	st->stddev = n > 1 ? sqrt(var / (n - 1)) : 0;
	free(sorted);
}

static bool same_config(const struct stress_result *a, const struct stress_result *b)
{
	return !strcmp(a->workload, b->workload) && !strcmp(a->target, b->target) &&
	       a->mode == b->mode && a->config == b->config;
}

/* Per task, the union of the CPUs it ran on over the samples of x's configuration. */
static cpu_set_t *union_cpus(const struct stress_result *x, const struct stress_result *r, int n)
{
	cpu_set_t *u = calloc(x->tasks > 0 ? x->tasks : 1, sizeof(*u));

	if (!u) {
		perror("rcuvfs-stress: calloc");
		exit(2);
	}
	for (int i = 0; i < n; i++) {
		if (!same_config(x, &r[i]) || r[i].tasks != x->tasks || !r[i].task_cpus)
			continue;
		for (int t = 0; t < x->tasks; t++)
			CPU_OR(&u[t], &u[t], &r[i].task_cpus[t]);
	}
	return u;
}

void stress_cpulist(const cpu_set_t *set, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int e = c;
		int w;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		if (e == c)
			w = snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
		else
			w = snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, e);
		if (w < 0 || (size_t)w >= len - used)
			return; /* truncated: what fits */
		used += w;
		c = e;
	}
}

/*
 * One result per configuration (workload, target, mode, tasks, sweep value):
 * the median of its samples' ops/s (the mean of the middle two for an even
 * count), min, max and the sample standard deviation; the other fields come
 * from the sample closest to the median.  Then the scaling of each against
 * the 1-task result of the same configuration.  Returns the count; *out is
 * malloc'd, its entries share the samples' switch and counter sets.
 */
int report_aggregate(struct stress_result *r, int n, struct stress_result **out)
{
	struct stress_result *a = calloc(n ? n : 1, sizeof(*a));
	int na = 0;

	if (!a) {
		perror("rcuvfs-stress: calloc");
		exit(2);
	}
	for (int i = 0; i < n; i++) {
		int g;

		for (g = 0; g < na; g++)
			if (same_config(&a[g], &r[i]) && a[g].tasks == r[i].tasks)
				break;
		if (g == na) {
			a[na] = r[i];
			a[na].nsamples = 0;
			a[na].samples = calloc(n, sizeof(double));
			if (!a[na].samples) {
				perror("rcuvfs-stress: calloc");
				exit(2);
			}
			na++;
		}
		a[g].samples[a[g].nsamples++] = r[i].ops_per_sec;
	}
	for (int g = 0; g < na; g++) {
		struct stress_result *x = &a[g];
		int k = x->nsamples, best = -1;
		double bestd = 0;
		bool failed = false, vfail = false;
		struct stress_result rep;
		double *samples = x->samples;
		struct stress_stats st;

		stress_stats(samples, k, &st);
		x->ops_median = st.median;
		x->ops_min = st.min;
		x->ops_max = st.max;
		x->ops_stddev = st.stddev;
		/* the representative sample, and failures of any sample */
		for (int i = 0; i < n; i++) {
			double d;

			if (!same_config(x, &r[i]) || r[i].tasks != x->tasks)
				continue;
			failed |= r[i].failed;
			vfail |= !strcmp(r[i].verify, "fail");
			d = fabs(r[i].ops_per_sec - x->ops_median);
			if (best < 0 || d < bestd)
				best = i, bestd = d;
		}
		rep = r[best];
		rep.task_cpus = union_cpus(x, r, n);
		rep.nsamples = k;
		rep.samples = samples;
		rep.ops_median = x->ops_median;
		rep.ops_min = x->ops_min;
		rep.ops_max = x->ops_max;
		rep.ops_stddev = x->ops_stddev;
		rep.ops_per_sec = x->ops_median;
		rep.failed = failed;
		if (vfail)
			rep.verify = "fail";
		*x = rep;
	}
	for (int g = 0; g < na; g++) {
		a[g].scaling = -1;
		for (int h = 0; h < na; h++)
			if (same_config(&a[g], &a[h]) && a[h].tasks == 1 && a[h].ops_per_sec > 0)
				a[g].scaling = a[g].ops_per_sec / (a[g].tasks * a[h].ops_per_sec);
	}
	*out = a;
	return na;
}

/* ---- the table ---------------------------------------------------------- */

void report_table(FILE *out, const struct stress_result *r, int n, int ncpus)
{
	const char *target = NULL;
	bool stats = false, sweep = false;

	for (int i = 0; i < n; i++) {
		stats |= r[i].nsamples > 1;
		sweep |= r[i].sweep && r[i].sweep[0];
	}
	for (int i = 0; i < n; i++) {
		const struct stress_result *x = &r[i];
		uint64_t acq;
		int shown = 0;
		char scale[16];

		if (!target || strcmp(target, x->target)) {
			target = x->target;
			fprintf(out, "%starget: %s (%d CPUs)\n", i ? "\n" : "", target, ncpus);
			fprintf(out, "%-12s %-9s %5s", "workload", "mode", "tasks");
			if (sweep)
				fprintf(out, " %-22s", "switch");
			fprintf(out, " %12s", stats ? "median ops/s" : "ops/s");
			if (stats)
				fprintf(out, " %12s %12s %6s", "min", "max", "sd%");
			fprintf(out, " %6s %11s %11s %7s %7s %5s %5s %9s %9s %s\n", "scale",
				"task-min/s", "task-max/s", "wall_s", "cpu_s", "idle", "sysid",
				"nvcsw", "nivcsw", "verify");
		}
		if (x->scaling >= 0)
			snprintf(scale, sizeof(scale), "%.2f", x->scaling);
		else
			snprintf(scale, sizeof(scale), "-");
		fprintf(out, "%-12s %-9s %5d", x->workload, stress_mode_name(x->mode), x->tasks);
		if (sweep)
			fprintf(out, " %-22s", x->sweep);
		fprintf(out, " %12.0f", x->ops_per_sec);
		if (stats)
			fprintf(out, " %12.0f %12.0f %5.1f%%", x->ops_min, x->ops_max,
				x->ops_median > 0 ? 100 * x->ops_stddev / x->ops_median : 0);
		fprintf(out,
			" %6s %11.0f %11.0f %7.2f %7.2f %4.0f%% %4.0f%% %9ld %9ld "
			"%s%s\n",
			scale, x->task_min, x->task_max, x->wall_s, x->cpu_s, x->idle_frac * 100,
			x->sys_idle_frac < 0 ? 0 : x->sys_idle_frac * 100, x->nvcsw, x->nivcsw,
			x->verify, x->failed ? " (FAILED)" : "");
		if (x->show_cpus && x->task_cpus) {
			fprintf(out, "    cpus per task:");
			for (int t = 0; t < x->tasks; t++) {
				char l[256];

				stress_cpulist(&x->task_cpus[t], l, sizeof(l));
				fprintf(out, " %s", l[0] ? l : "-");
			}
			fprintf(out, "\n");
		}
		if (x->has_params) {
			fprintf(out, "    params:");
			for (int k = 0; stress_param_name(k); k++)
				if (x->param_mask & (1u << k))
					fprintf(out, " %s=%g", stress_param_name(k),
						stress_param_value(&x->params, k));
			fprintf(out, "\n");
		}
		acq = counter(x, "bkl_acquisitions");
		if (acq)
			fprintf(
			    out,
			    "    bkl: %llu acquisitions, per acquisition: contended %.3f, sleeps "
			    "%.3f, hand-offs %.3f\n",
			    (unsigned long long)acq, (double)counter(x, "bkl_contended") / acq,
			    (double)counter(x, "bkl_sleeps") / acq,
			    (double)counter(x, "bkl_handoffs") / acq);
		acq = counter(x, "shm_inode_list_locks");
		if (acq)
			fprintf(
			    out,
			    "    shm_mnt s_inode_list_lock: %llu acquisitions, per acquisition: "
			    "contended %.3f, spins %.1f, yields %.3f\n",
			    (unsigned long long)acq,
			    (double)counter(x, "shm_inode_list_contended") / acq,
			    (double)counter(x, "shm_inode_list_spins") / acq,
			    (double)counter(x, "shm_inode_list_yields") / acq);
		for (int k = 0; k < x->counters.n; k++) {
			const struct stress_kv *kv = &x->counters.kv[k];

			if (!kv->val)
				continue;
			if (shown % 6 == 0)
				fprintf(out, "%s    counters:", shown ? "\n" : "");
			fprintf(out, " %s=%llu", kv->name, (unsigned long long)kv->val);
			shown++;
		}
		if (shown)
			fprintf(out, "\n");
	}
	fflush(out);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_kvset(FILE *f, const struct stress_kvset *s)
{
	fputc('{', f);
	for (int k = 0; k < s->n; k++) {
		fprintf(f, "%s", k ? ", " : "");
		json_str(f, s->kv[k].name);
		fprintf(f, ": ");
		json_str(f, s->kv[k].str ? s->kv[k].str : "");
	}
	fputc('}', f);
}

/* JSON has no NaN or infinity: a value that is not finite becomes null. */
static void json_num(FILE *f, const char *fmt, double v)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("null", f);
}

int report_json(FILE *f, const char *name, const struct stress_meta *m,
		const struct stress_result *r, int n, int ncpus)
{
	fprintf(f, "{\"tool\": \"rcuvfs-stress\", \"version\": ");
	json_str(f, m->version);
	fprintf(f, ", \"commit\": ");
	json_str(f, m->commit);
	fprintf(f, ", \"cpus\": %d,\n \"meta\": {\"kernel\": ", ncpus);
	json_str(f, m->kernel);
	fprintf(f, ", \"machine\": ");
	json_str(f, m->machine);
	fprintf(f, ", \"cpu_model\": ");
	json_str(f, m->cpu_model);
	fprintf(f, ", \"cpus_online\": %d, \"cpus_used\": %d, \"date\": ", m->cpus_online,
		m->cpus_used);
	json_str(f, m->date);
	fprintf(f, ",\n  \"command\": ");
	json_str(f, m->cmdline);
	fprintf(f, ",\n  \"target\": ");
	json_str(f, m->target);
	fprintf(f, ", \"%s\": ", strcmp(m->target, "model") ? "mount_config" : "switches");
	json_kvset(f, &m->switches);
	fprintf(f, "},\n \"runs\": [");
	for (int i = 0; i < n; i++) {
		const struct stress_result *x = &r[i];

		fprintf(f, "%s\n  {\"workload\": ", i ? "," : "");
		json_str(f, x->workload);
		fprintf(f, ", \"target\": ");
		json_str(f, x->target);
		fprintf(f,
			", \"mode\": \"%s\", \"tasks\": %d, \"duration_s\": %.3f, "
			"\"ops_per_task\": %ld, \"ops\": %llu, \"ops_per_sec\": %.1f, "
			"\"task_min_ops_per_sec\": %.1f, \"task_max_ops_per_sec\": %.1f, "
			"\"wall_s\": %.6f, \"cpu_s\": %.6f, \"idle_frac\": %.4f, "
			"\"sys_idle_frac\": %.4f, "
			"\"nvcsw\": %ld, "
			"\"nivcsw\": %ld, \"verify\": \"%s\", \"failed\": %s,\n   ",
			stress_mode_name(x->mode), x->tasks, x->duration_s, x->ops_per_task,
			(unsigned long long)x->ops, x->ops_per_sec, x->task_min, x->task_max,
			x->wall_s, x->cpu_s, x->idle_frac, x->sys_idle_frac, x->nvcsw, x->nivcsw,
			x->verify, x->failed ? "true" : "false");
		fprintf(f,
			"\"count_per_op\": %llu, \"sweep\": ", (unsigned long long)x->count_per_op);
		json_str(f, x->sweep ? x->sweep : "");
		fprintf(f,
			", \"repeats\": %d, \"ops_per_sec_median\": %.1f, "
			"\"ops_per_sec_min\": %.1f, \"ops_per_sec_max\": %.1f, "
			"\"ops_per_sec_stddev\": %.1f, \"ops_per_sec_samples\": [",
			x->nsamples, x->ops_median, x->ops_min, x->ops_max, x->ops_stddev);
		for (int k = 0; k < x->nsamples; k++)
			fprintf(f, "%s%.1f", k ? ", " : "", x->samples[k]);
		fprintf(f, "], \"scaling\": ");
		if (x->scaling >= 0)
			json_num(f, "%.4f", x->scaling);
		else
			fputs("null", f);
		fprintf(f, ",\n   \"task_cpus\": [");
		for (int t = 0; x->task_cpus && t < x->tasks; t++) {
			char l[256];

			stress_cpulist(&x->task_cpus[t], l, sizeof(l));
			fprintf(f, "%s", t ? ", " : "");
			json_str(f, l);
		}
		fprintf(f, "]");
		fprintf(f, ",\n   \"params\": {");
		if (x->has_params) {
			int shown = 0;

			for (int k = 0; stress_param_name(k); k++)
				if (x->param_mask & (1u << k))
					fprintf(f, "%s\"%s\": %g", shown++ ? ", " : "",
						stress_param_name(k),
						stress_param_value(&x->params, k));
		}
		fprintf(f, "},\n   \"switches\": ");
		json_kvset(f, &x->switches);
		fprintf(f, ",\n   \"counters\": {");
		for (int k = 0; k < x->counters.n; k++) {
			fprintf(f, "%s", k ? ", " : "");
			json_str(f, x->counters.kv[k].name);
			fprintf(f, ": %llu", (unsigned long long)x->counters.kv[k].val);
		}
		fprintf(f, "}}");
	}
	fprintf(f, "\n]}\n");
	if (ferror(f)) {
		fprintf(stderr, "rcuvfs-stress: --json %s: write error\n", name);
		return -1;
	}
	return 0;
}

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * task_cpus: each task's CPU list, tasks separated by spaces ("0 1"); in a
 * list "+" stands for the "," of --cpus ("0-3+8"), so the field never needs
 * quoting and `awk -F,` still splits the row right.
 */
static void csv_task_cpus(FILE *f, const struct stress_result *x)
{
	char all[1024], l[256];
	size_t used = 0;

	all[0] = '\0';
	for (int t = 0; x->task_cpus && t < x->tasks; t++) {
		int w;

		stress_cpulist(&x->task_cpus[t], l, sizeof(l));
		for (char *c = l; (c = strchr(c, ',')); c++)
			*c = '+';
		w = snprintf(all + used, sizeof(all) - used, "%s%s", t ? " " : "", l[0] ? l : "-");
		if (w < 0 || (size_t)w >= sizeof(all) - used)
			break; /* very many tasks: the first ones */
		used += w;
	}
	csv_field(f, all);
}

/* Union of names over all runs, in first-seen order. */
static void union_names(const struct stress_result *r, int n, bool switches,
			struct stress_kvset *out)
{
	for (int i = 0; i < n; i++) {
		const struct stress_kvset *s = switches ? &r[i].switches : &r[i].counters;

		for (int k = 0; k < s->n; k++)
			if (!kvset_find(out, s->kv[k].name))
				kvset_add(out, s->kv[k].name, NULL, 0);
	}
}

/* One "# key: value" line (newlines in the value become spaces). */
static void csv_meta(FILE *f, const char *key, const char *value)
{
	fprintf(f, "# %s: ", key);
	for (; *value; value++)
		fputc(*value == '\n' || *value == '\r' ? ' ' : *value, f);
	fputc('\n', f);
}

int report_csv(FILE *f, const char *name, const struct stress_meta *m,
	       const struct stress_result *r, int n)
{
	struct stress_kvset sw = {0}, cn = {0};
	char num[32];

	/* metadata first, as comment lines (gnuplot, pandas' comment='#') */
	csv_meta(f, "tool", "rcuvfs-stress");
	csv_meta(f, "version", m->version);
	csv_meta(f, "commit", m->commit);
	csv_meta(f, "kernel", m->kernel);
	csv_meta(f, "machine", m->machine);
	csv_meta(f, "cpu_model", m->cpu_model);
	snprintf(num, sizeof(num), "%d", m->cpus_online);
	csv_meta(f, "cpus_online", num);
	snprintf(num, sizeof(num), "%d", m->cpus_used);
	csv_meta(f, "cpus_used", num);
	csv_meta(f, "date", m->date);
	csv_meta(f, "command", m->cmdline);
	csv_meta(f, "target", m->target);
	for (int k = 0; k < m->switches.n; k++) {
		char key[160];

		snprintf(key, sizeof(key), "%s.%s", strcmp(m->target, "model") ? "mount" : "switch",
			 m->switches.kv[k].name);
		csv_meta(f, key, m->switches.kv[k].str ? m->switches.kv[k].str : "");
	}
	union_names(r, n, true, &sw);
	union_names(r, n, false, &cn);
	fprintf(
	    f,
	    "workload,target,mode,tasks,duration_s,ops_per_task,ops,ops_per_sec,"
	    "task_min_ops_per_sec,task_max_ops_per_sec,wall_s,cpu_s,idle_frac,sys_idle_frac,nvcsw,"
	    "nivcsw,verify,failed");
	for (int k = 0; stress_param_name(k); k++)
		fprintf(f, ",param.%s", stress_param_name(k));
	fprintf(f, ",count_per_op,sweep,repeats,ops_per_sec_median,ops_per_sec_min,"
		   "ops_per_sec_max,ops_per_sec_stddev,scaling,task_cpus");
	for (int k = 0; k < sw.n; k++)
		fprintf(f, ",switch.%s", sw.kv[k].name);
	for (int k = 0; k < cn.n; k++)
		fprintf(f, ",counter.%s", cn.kv[k].name);
	fputc('\n', f);
	for (int i = 0; i < n; i++) {
		const struct stress_result *x = &r[i];

		csv_field(f, x->workload);
		fputc(',', f);
		csv_field(f, x->target);
		fprintf(f, ",%s,%d,%.3f,%ld,%llu,%.1f,%.1f,%.1f,%.6f,%.6f,%.4f,%.4f,%ld,%ld,%s,%d",
			stress_mode_name(x->mode), x->tasks, x->duration_s, x->ops_per_task,
			(unsigned long long)x->ops, x->ops_per_sec, x->task_min, x->task_max,
			x->wall_s, x->cpu_s, x->idle_frac, x->sys_idle_frac, x->nvcsw, x->nivcsw,
			x->verify, x->failed ? 1 : 0);
		for (int k = 0; stress_param_name(k); k++) {
			fputc(',', f);
			if (x->param_mask & (1u << k))
				fprintf(f, "%g", stress_param_value(&x->params, k));
		}
		fprintf(f, ",%llu,", (unsigned long long)x->count_per_op);
		csv_field(f, x->sweep ? x->sweep : "");
		fprintf(f, ",%d,%.1f,%.1f,%.1f,%.1f,", x->nsamples, x->ops_median, x->ops_min,
			x->ops_max, x->ops_stddev);
		if (x->scaling >= 0)
			fprintf(f, "%.4f", x->scaling);
		fputc(',', f);
		csv_task_cpus(f, x);
		for (int k = 0; k < sw.n; k++) {
			const struct stress_kv *kv = kvset_find(&x->switches, sw.kv[k].name);

			fputc(',', f);
			if (kv && kv->str)
				csv_field(f, kv->str);
		}
		for (int k = 0; k < cn.n; k++) {
			const struct stress_kv *kv = kvset_find(&x->counters, cn.kv[k].name);

			fputc(',', f);
			if (kv)
				fprintf(f, "%llu", (unsigned long long)kv->val);
		}
		fputc('\n', f);
	}
	kvset_free(&sw);
	kvset_free(&cn);
	if (ferror(f)) {
		fprintf(stderr, "rcuvfs-stress: --csv %s: write error\n", name);
		return -1;
	}
	return 0;
}

/*
 * --summarize: lines "KEY... VALUE" on stdin (the last field a number, the
 * rest the key); one line "KEY n median min max stddev" per key, in
 * first-seen order.  For scripts that collect their own samples (the FUSE
 * benchmarks) and want the same statistics as --repeat.
 */
int stress_summarize(FILE *in, FILE *out)
{
	struct {
		char *key;
		double *v;
		int n, cap;
	} *g = NULL;
	int ng = 0, capg = 0, lineno = 0;
	char line[4096];

	while (fgets(line, sizeof(line), in)) {
		char *end, *last;
		double v;
		int i;

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		while (*line && strchr(" \t", line[strlen(line) - 1]))
			line[strlen(line) - 1] = '\0';
		if (!*line || *line == '#')
			continue;
		last = strrchr(line, ' ');
		if (!last || last == line) {
			fprintf(stderr, "rcuvfs-stress: --summarize: line %d: expected KEY VALUE\n",
				lineno);
			return 2;
		}
		*last++ = '\0';
		v = strtod(last, &end);
		if (end == last || *end) {
			fprintf(stderr,
				"rcuvfs-stress: --summarize: line %d: '%s' is not a number\n",
				lineno, last);
			return 2;
		}
		for (i = 0; i < ng; i++)
			if (!strcmp(g[i].key, line))
				break;
		if (i == ng) {
			if (ng == capg) {
				capg = capg ? 2 * capg : 16;
				g = realloc(g, capg * sizeof(*g));
				if (!g) {
					perror("rcuvfs-stress: realloc");
					exit(2);
				}
			}
			g[ng].key = strdup(line);
			g[ng].v = NULL;
			g[ng].n = g[ng].cap = 0;
			ng++;
		}
		if (g[i].n == g[i].cap) {
			g[i].cap = g[i].cap ? 2 * g[i].cap : 8;
			g[i].v = realloc(g[i].v, g[i].cap * sizeof(double));
			if (!g[i].v) {
				perror("rcuvfs-stress: realloc");
				exit(2);
			}
		}
		g[i].v[g[i].n++] = v;
	}
	for (int i = 0; i < ng; i++) {
		struct stress_stats st;

		stress_stats(g[i].v, g[i].n, &st);
		fprintf(out, "%s %d %.6g %.6g %.6g %.6g\n", g[i].key, st.n, st.median, st.min,
			st.max, st.stddev);
		free(g[i].key);
		free(g[i].v);
	}
	free(g);
	return 0;
}
