// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/stress/report.c - the end-of-run table, --json and --csv.
 *
 * The JSON and CSV formats are documented in docs/stress.md ("Output formats") and are kept
 * stable: fields are only ever added.  Runs only in the parent, after every
 * run has finished; no locking.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "stress.h"

static uint64_t counter(const struct stress_result *r, const char *name)
{
	const struct stress_kv *kv = kvset_find(&r->counters, name);

	return kv ? kv->val : 0;
}

void report_table(FILE *out, const struct stress_result *r, int n, int ncpus)
{
	const char *target = NULL;

	for (int i = 0; i < n; i++) {
		const struct stress_result *x = &r[i];
		uint64_t acq;
		int shown = 0;

		if (!target || strcmp(target, x->target)) {
			target = x->target;
			fprintf(out, "%starget: %s (%d CPUs)\n", i ? "\n" : "", target, ncpus);
			fprintf(out, "%-12s %-9s %5s %12s %11s %11s %7s %7s %5s %5s %9s %9s %s\n",
				"workload", "mode", "tasks", "ops/s", "task-min/s", "task-max/s",
				"wall_s", "cpu_s", "idle", "sysid", "nvcsw", "nivcsw", "verify");
		}
		fprintf(out,
			"%-12s %-9s %5d %12.0f %11.0f %11.0f %7.2f %7.2f %4.0f%% %4.0f%% %9ld %9ld "
			"%s%s\n",
			x->workload, stress_mode_name(x->mode), x->tasks, x->ops_per_sec,
			x->task_min, x->task_max, x->wall_s, x->cpu_s, x->idle_frac * 100,
			x->sys_idle_frac < 0 ? 0 : x->sys_idle_frac * 100, x->nvcsw, x->nivcsw,
			x->verify, x->failed ? " (FAILED)" : "");
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

int report_json(const char *file, const struct stress_result *r, int n, int ncpus)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "w") : stdout;

	if (!f) {
		fprintf(stderr, "rcuvfs-stress: --json %s: %s\n", file, strerror(errno));
		return -1;
	}
	fprintf(f, "{\"tool\": \"rcuvfs-stress\", \"version\": \"%s\", \"cpus\": %d, \"runs\": [",
		RCUVFS_VERSION, ncpus);
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
			"\"nivcsw\": %ld, \"verify\": \"%s\", \"failed\": %s,\n   \"params\": {",
			stress_mode_name(x->mode), x->tasks, x->duration_s, x->ops_per_task,
			(unsigned long long)x->ops, x->ops_per_sec, x->task_min, x->task_max,
			x->wall_s, x->cpu_s, x->idle_frac, x->sys_idle_frac, x->nvcsw, x->nivcsw,
			x->verify, x->failed ? "true" : "false");
		if (x->has_params) {
			int shown = 0;

			for (int k = 0; stress_param_name(k); k++)
				if (x->param_mask & (1u << k))
					fprintf(f, "%s\"%s\": %g", shown++ ? ", " : "",
						stress_param_name(k),
						stress_param_value(&x->params, k));
		}
		fprintf(f, "},\n   \"switches\": {");
		for (int k = 0; k < x->switches.n; k++) {
			fprintf(f, "%s", k ? ", " : "");
			json_str(f, x->switches.kv[k].name);
			fprintf(f, ": ");
			json_str(f, x->switches.kv[k].str ? x->switches.kv[k].str : "");
		}
		fprintf(f, "},\n   \"counters\": {");
		for (int k = 0; k < x->counters.n; k++) {
			fprintf(f, "%s", k ? ", " : "");
			json_str(f, x->counters.kv[k].name);
			fprintf(f, ": %llu", (unsigned long long)x->counters.kv[k].val);
		}
		fprintf(f, "}}");
	}
	fprintf(f, "\n]}\n");
	if (f != stdout && fclose(f)) {
		fprintf(stderr, "rcuvfs-stress: --json %s: %s\n", file, strerror(errno));
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

int report_csv(const char *file, const struct stress_result *r, int n)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "w") : stdout;
	struct stress_kvset sw = {0}, cn = {0};

	if (!f) {
		fprintf(stderr, "rcuvfs-stress: --csv %s: %s\n", file, strerror(errno));
		return -1;
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
	if (f != stdout && fclose(f)) {
		fprintf(stderr, "rcuvfs-stress: --csv %s: %s\n", file, strerror(errno));
		return -1;
	}
	return 0;
}
