// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/explore/run.c - one schedule of a scenario in a fresh instance, its
 * oracles (the scenario's check, linearizability against serial orders, the
 * leak check of teardown), and the printed trace.
 *
 * Locking: everything here runs on the driver thread while no explored task
 * runs, except xs_body (a task's thread, under the baton) and the serial
 * chooser (called by the baton holder).
 */
#include "explore.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct xscenario *scenarios;
static struct xs_run R;
bool xs_midcheck_off;

void xscenario_register(struct xscenario *sc)
{
	struct xscenario **pp = &scenarios;

	while (*pp && strcmp((*pp)->name, sc->name) < 0)
		pp = &(*pp)->next;
	sc->next = *pp;
	*pp = sc;
}

const struct xscenario *xscenario_first(void)
{
	return scenarios;
}

const struct xscenario *xscenario_find(const char *name)
{
	for (const struct xscenario *sc = scenarios; sc; sc = sc->next)
		if (!strcmp(sc->name, name))
			return sc;
	return NULL;
}

const struct xs_run *xs_last_run(void)
{
	return &R;
}

const char *xs_param(const struct xs_run *r, const char *name)
{
	for (int i = 0; i < XS_MAX_PARAMS && r->sc->params[i].name; i++)
		if (!strcmp(r->sc->params[i].name, name))
			return r->pval[i] ? r->pval[i] : r->sc->params[i].values[0];
	return "";
}

bool xs_param_is(const struct xs_run *r, const char *name, const char *value)
{
	return !strcmp(xs_param(r, name), value);
}

struct task_struct *xs_process(struct xs_run *r, int i, const char *comm)
{
	r->task[i] = task_create_process(comm);
	return r->task[i];
}

struct task_struct *xs_thread_of(struct xs_run *r, int i, int of)
{
	r->task[i] = task_clone_thread(r->task[of]);
	return r->task[i];
}

int xs_locks_midcheck(struct xs_run *r, char *why, size_t len)
{
	char msg[320];

	(void)r;
	if (locks_check_live(msg, sizeof(msg)) == 0)
		return 0;
	snprintf(why, len, "locks_check_live: %s", msg);
	return 1;
}

/*
 * Detach a scenario's task from the driver thread.  A task created lazily
 * (setup, check or teardown needed `current`) stays: rv_instance_destroy
 * exits it.
 */
static void xs_detach(void)
{
	if (rv_current && !(rv_current->flags & PF_LAZY))
		task_detach();
}

/* Exit tasks in reverse order (threads before their process's first task). */
void xs_exit_tasks(struct xs_run *r)
{
	for (int i = r->sc->ntasks - 1; i >= 0; i--) {
		if (r->task[i])
			task_exit(r->task[i]);
		r->task[i] = NULL;
	}
	xs_detach();
}

int xs_config_parse(struct xs_config *cfg, const struct xscenario *sc, const char *opts, char *err,
		    size_t errlen)
{
	char buf[256], *save = NULL, *tok;

	memset(cfg, 0, sizeof(*cfg));
	cfg->sc = sc;
	rv_switches_default(&cfg->sw);
	if (!opts || !*opts)
		return 0;
	if (strlen(opts) >= sizeof(buf)) {
		snprintf(err, errlen, "options too long");
		return -EINVAL;
	}
	snprintf(cfg->options, sizeof(cfg->options), "%s", opts);
	snprintf(buf, sizeof(buf), "%s", opts);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int p;

		if (!eq) {
			snprintf(err, errlen, "option '%s' is not name=value", tok);
			return -EINVAL;
		}
		*eq = 0;
		for (p = 0; p < XS_MAX_PARAMS && sc->params[p].name; p++)
			if (!strcmp(sc->params[p].name, tok))
				break;
		if (p < XS_MAX_PARAMS && sc->params[p].name) {
			int v;

			for (v = 0; v < 6 && sc->params[p].values[v]; v++)
				if (!strcmp(sc->params[p].values[v], eq + 1))
					break;
			if (v == 6 || !sc->params[p].values[v]) {
				snprintf(err, errlen,
					 "%s: '%s' is not one of its values (see --list)", tok,
					 eq + 1);
				return -EINVAL;
			}
			cfg->pval[p] = sc->params[p].values[v];
			continue;
		}
		if (!rv_switch_known(tok)) {
			snprintf(err, errlen, "'%s' is neither a model switch nor a param of %s",
				 tok, sc->name);
			return -EINVAL;
		}
		if (rv_switch_set(&cfg->sw, tok, eq + 1, err, errlen))
			return -EINVAL;
	}
	return rv_switches_check(&cfg->sw, err, errlen);
}

/* ---- one task's body ---------------------------------------------------- */

static void xs_body(int i, void *arg)
{
	struct xs_run *r = arg;
	const struct xscenario *sc = r->sc;

	task_attach(r->task[i]);
	for (int op = 0; op < sc->nops[i]; op++) {
		r->between[i] = 1;
		rv_xpoint(RV_XP_OP, NULL, sc->opname[i][op], NULL);
		r->between[i] = 0;
		r->ops_started++;
		r->op_begin[i][op] = rv_xsteps();
		r->result[i][op] = sc->op(r, i, op);
		r->op_end[i][op] = rv_xsteps();
	}
	r->between[i] = 1;
	task_detach();
}

static int xs_midcheck(void *arg)
{
	struct xs_run *r = arg;

	r->midchecks++;
	if (!r->sc->midcheck(r, r->midwhy, sizeof(r->midwhy)))
		return 0;
	r->midstep = rv_xsteps();
	return 1;
}

static void xs_prologue(int i, void *arg)
{
	struct xs_run *r = arg;
	int err;

	task_attach(r->task[i]);
	err = r->sc->task_setup(r, i);
	if (err && !r->task_setup_err)
		r->task_setup_err = err;
	task_detach();
}

/* ---- serial orders (linearizability) -------------------------------------- */

#define XS_MAX_ORDERS 256
#define XS_MAX_TOTAL  (RV_XMAX_TASKS * XS_MAX_OPS)

struct serial_order {
	int task[XS_MAX_TOTAL]; /* the task of the k-th operation */
	int len;
	long result[RV_XMAX_TASKS][XS_MAX_OPS];
};

static struct serial_order orders[XS_MAX_ORDERS];
static int n_orders;	 /* feasible orders with results */
static int n_orders_all; /* orders enumerated */
static bool serial_ready;

struct serial_ctx {
	const struct serial_order *o;
	bool infeasible;
};

static int serial_choose(void *p, const struct rv_xdecision *d)
{
	struct serial_ctx *c = p;
	int want;

	if (d->cur >= 0 && !R.between[d->cur]) {
		if (d->cur_enabled)
			return d->cur; /* finish the operation under way */
		c->infeasible = true;  /* it waits for a later operation */
		return xs_default_choice(d);
	}
	if (R.ops_started >= c->o->len)
		return xs_default_choice(d);
	want = c->o->task[R.ops_started];
	if (!(d->enabled >> want & 1)) {
		c->infeasible = true;
		return xs_default_choice(d);
	}
	return want;
}

static void enumerate(const struct xscenario *sc, int *left, struct serial_order *cur, int depth,
		      int total, struct serial_order *out, int *n)
{
	if (depth == total) {
		if (*n < XS_MAX_ORDERS) {
			cur->len = total;
			out[(*n)++] = *cur;
		}
		return;
	}
	for (int t = 0; t < sc->ntasks; t++) {
		if (!left[t])
			continue;
		left[t]--;
		cur->task[depth] = t;
		enumerate(sc, left, cur, depth + 1, total, out, n);
		left[t]++;
	}
}

int xs_serial_prepare(const struct xs_config *cfg)
{
	const struct xscenario *sc = cfg->sc;
	static struct serial_order all[XS_MAX_ORDERS];
	struct serial_order cur = {0};
	int left[RV_XMAX_TASKS] = {0}, total = 0, n = 0;

	serial_ready = false;
	n_orders = 0;
	if (!sc->linearizable)
		return 0;
	for (int t = 0; t < sc->ntasks; t++) {
		left[t] = sc->nops[t];
		total += sc->nops[t];
	}
	enumerate(sc, left, &cur, 0, total, all, &n);
	n_orders_all = n;
	for (int k = 0; k < n; k++) {
		struct serial_ctx c = {&all[k], false};
		struct xs_outcome out;
		int err = xs_run_one(cfg, serial_choose, &c, false, &out);

		if (err)
			return err;
		if (out.xstatus != RV_X_DONE) {
			fprintf(stderr,
				"rcuvfs-explore: %s: a serial order did not finish (%s): %s\n",
				sc->name, rv_xstatus_name(out.xstatus), out.why);
			_exit(3); /* its tasks are parked for good */
		}
		if (c.infeasible || out.verdict == XS_FAIL)
			continue;
		orders[n_orders] = all[k];
		memcpy(orders[n_orders].result, R.result, sizeof(R.result));
		n_orders++;
	}
	serial_ready = true;
	return 0;
}

void xs_serial_release(void)
{
	serial_ready = false;
	n_orders = 0;
}

static void format_result(const struct xscenario *sc, int t, int k, long v, char *buf, size_t len)
{
	if (sc->format)
		sc->format(t, k, v, buf, len);
	else
		snprintf(buf, len, "%ld", v);
}

/* "T0.op=res T1.op=res ..." for the results in `res`. */
static void format_results(const struct xscenario *sc, long res[RV_XMAX_TASKS][XS_MAX_OPS],
			   char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int t = 0; t < sc->ntasks; t++)
		for (int k = 0; k < sc->nops[t] && off < len; k++) {
			char v[64];

			format_result(sc, t, k, res[t][k], v, sizeof(v));
			off += snprintf(buf + off, len - off, "%sT%d.%s=%s", off ? " " : "", t,
					sc->opname[t][k], v);
		}
}

static bool respects_real_time(const struct serial_order *o)
{
	int pos[RV_XMAX_TASKS][XS_MAX_OPS], seen[RV_XMAX_TASKS] = {0};
	const struct xscenario *sc = R.sc;

	for (int k = 0; k < o->len; k++) {
		int t = o->task[k];

		pos[t][seen[t]++] = k;
	}
	for (int a = 0; a < sc->ntasks; a++)
		for (int i = 0; i < sc->nops[a]; i++)
			for (int b = 0; b < sc->ntasks; b++)
				for (int j = 0; j < sc->nops[b]; j++)
					if (a != b && R.op_end[a][i] < R.op_begin[b][j] &&
					    pos[a][i] > pos[b][j])
						return false;
	return true;
}

static bool same_results(const struct serial_order *o)
{
	for (int t = 0; t < R.sc->ntasks; t++)
		for (int k = 0; k < R.sc->nops[t]; k++)
			if (o->result[t][k] != R.result[t][k])
				return false;
	return true;
}

static int lin_check(char *why, size_t len)
{
	char got[256], one[256];
	size_t off;

	for (int k = 0; k < n_orders; k++)
		if (same_results(&orders[k]) && respects_real_time(&orders[k]))
			return 0;
	format_results(R.sc, R.result, got, sizeof(got));
	off = snprintf(why, len, "not linearizable: %s; serial orders give:", got);
	for (int k = 0; k < n_orders && off < len; k++) {
		bool dup = false;

		for (int j = 0; j < k && !dup; j++)
			dup = !memcmp(orders[j].result, orders[k].result, sizeof(orders[k].result));
		if (dup)
			continue;
		format_results(R.sc, orders[k].result, one, sizeof(one));
		off += snprintf(why + off, len - off, " [%s]", one);
	}
	return 1;
}

/* ---- one schedule ----------------------------------------------------------- */

int xs_run_one(const struct xs_config *cfg, rv_xchoose_fn choose, void *ctx, bool keep_trace,
	       struct xs_outcome *out)
{
	const struct xscenario *sc = cfg->sc;
	struct rv_xrun_cfg xc = {0};
	int err;

	memset(out, 0, sizeof(*out));
	err = rv_instance_create(&cfg->sw);
	if (err)
		return err;
	free(R.priv);
	memset(&R, 0, sizeof(R));
	R.sc = sc;
	memcpy(R.pval, cfg->pval, sizeof(R.pval));
	R.priv = sc->priv_size ? calloc(1, sc->priv_size) : NULL;
	err = sc->setup(&R);
	xs_detach();
	if (err) {
		fprintf(stderr, "rcuvfs-explore: %s: setup failed: %s\n", sc->name, strerror(-err));
		return err;
	}
	xc.ntasks = sc->ntasks;
	xc.body = xs_body;
	if (sc->task_setup)
		xc.prologue = xs_prologue;
	if (sc->midcheck && !xs_midcheck_off)
		xc.midcheck = xs_midcheck;
	xc.arg = &R;
	xc.choose = choose;
	xc.ctx = ctx;
	xc.keep_trace = keep_trace;
	err = rv_xrun(&xc, &out->xr);
	if (err)
		return err;
	if (R.task_setup_err) {
		fprintf(stderr, "rcuvfs-explore: %s: task setup failed: %s\n", sc->name,
			strerror(-R.task_setup_err));
		return R.task_setup_err;
	}
	out->xstatus = out->xr.status;
	if (out->xr.status != RV_X_DONE) {
		int t = out->xr.stuck_task;

		out->verdict = XS_FAIL;
		if (out->xr.status == RV_X_INVARIANT)
			snprintf(out->why, sizeof(out->why),
				 "at step %lu, between critical sections: %s",
				 (unsigned long)R.midstep, R.midwhy);
		else if (t >= 0)
			snprintf(out->why, sizeof(out->why), "%s: T%d stuck at %s",
				 rv_xstatus_name(out->xr.status), t,
				 rv_xkind_name(out->xr.last[t].kind));
		else
			snprintf(out->why, sizeof(out->why), "%s", rv_xstatus_name(out->xr.status));
		return 0; /* tasks are parked: no teardown */
	}
	if (sc->check && sc->check(&R, out->why, sizeof(out->why)))
		out->verdict = XS_FAIL;
	else if (sc->linearizable && serial_ready && lin_check(out->why, sizeof(out->why)))
		out->verdict = XS_FAIL;
	if (sc->teardown)
		sc->teardown(&R);
	xs_detach();
	err = rv_instance_destroy();
	if (err && out->verdict == XS_OK) {
		out->verdict = XS_FAIL;
		snprintf(out->why, sizeof(out->why), "teardown: %s (leak)", strerror(-err));
	}
	return 0;
}

/* ---- the trace ------------------------------------------------------------- */

struct site_name {
	const void *site;
	char text[160];
};

/* Append src to dst (size len), truncating. */
static void append(char *dst, size_t len, const char *src)
{
	size_t l = strlen(dst), n = strlen(src);

	if (l + 1 >= len)
		return;
	if (n > len - l - 1)
		n = len - l - 1;
	memcpy(dst + l, src, n);
	dst[l + n] = 0;
}

static int site_cmp(const void *a, const void *b)
{
	const struct site_name *x = a, *y = b;

	return x->site < y->site ? -1 : x->site > y->site;
}

/* Name code addresses "fn file:line < caller file:line" with addr2line. */
static struct site_name *name_sites(const struct rv_xstep *tr, uint64_t n,
				    const struct rv_xstep *last, int nlast, size_t *nsites)
{
	struct site_name *s = calloc(n + (size_t)nlast + 1, sizeof(*s));
	size_t k = 0, u = 0, cmdlen = 64, off;
	char *cmd, line[512];
	Dl_info info;
	uintptr_t base = 0;
	FILE *p;

	if (!s)
		return NULL;
	for (uint64_t i = 0; i < n; i++)
		if (tr[i].site)
			s[k++].site = tr[i].site;
	for (int i = 0; i < nlast; i++) /* where each task was parked at the end */
		if (last[i].site)
			s[k++].site = last[i].site;
	qsort(s, k, sizeof(*s), site_cmp);
	for (size_t i = 0; i < k; i++)
		if (!u || s[u - 1].site != s[i].site)
			s[u++] = s[i];
	*nsites = u;
	if (!u || !dladdr(s[0].site, &info))
		return s;
	base = (uintptr_t)info.dli_fbase;
	cmdlen += u * 24;
	cmd = malloc(cmdlen);
	if (!cmd)
		return s;
	off = snprintf(cmd, cmdlen, "addr2line -f -i -p -s -e /proc/%d/exe", (int)getpid());
	for (size_t i = 0; i < u; i++)
		off += snprintf(cmd + off, cmdlen - off, " 0x%lx",
				(unsigned long)((uintptr_t)s[i].site - base - 1));
	p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return s;
	for (long i = -1; fgets(line, sizeof(line), p);) {
		char *nl = strchr(line, '\n');
		char *at;

		if (nl)
			*nl = 0;
		at = strstr(line, " (discriminator");
		if (at)
			*at = 0;
		if (strncmp(line, " (inlined by) ", 14)) {
			if (++i >= (long)u)
				break;
			at = strstr(line, " at ");
			if (at)
				memmove(at + 1, at + 4, strlen(at + 4) + 1);
			s[i].text[0] = 0;
			append(s[i].text, sizeof(s[i].text), line);
		} else if (i >= 0 && strlen(s[i].text) < 100) {
			char *src = line + 14;

			at = strstr(src, " at ");
			if (at)
				memmove(at + 1, at + 4, strlen(at + 4) + 1);
			append(s[i].text, sizeof(s[i].text), " < ");
			append(s[i].text, sizeof(s[i].text), src);
		}
	}
	pclose(p);
	return s;
}

static const char *site_text(struct site_name *s, size_t n, const void *site)
{
	struct site_name key = {.site = site}, *hit;

	if (!s || !site)
		return "";
	hit = bsearch(&key, s, n, sizeof(*s), site_cmp);
	return hit ? hit->text : "";
}

void xs_print_trace(FILE *f, const struct xs_config *cfg, const struct rv_xresult *xr,
		    const struct xs_run *r)
{
	size_t nsites = 0;
	struct site_name *sites;
	long *next, seen[RV_XMAX_TASKS];

	if (!xr->trace) {
		fprintf(f, "(no trace recorded)\n");
		return;
	}
	sites = name_sites(xr->trace, xr->steps, xr->last, cfg->sc->ntasks, &nsites);
	/* step i: task T runs from where it was parked to its next point, which
	 * is where T is parked the next time it is chosen (or at the end) */
	next = calloc(xr->steps ? xr->steps : 1, sizeof(*next));
	for (int t = 0; t < RV_XMAX_TASKS; t++)
		seen[t] = -1;
	for (uint64_t i = xr->steps; next && i-- > 0;) {
		int t = xr->trace[i].task;

		next[i] = seen[t];
		seen[t] = (long)i;
	}
	fprintf(
	    f, "   step task  runs until                 where (* = preempts the previous task)\n");
	for (uint64_t i = 0; next && i < xr->steps; i++) {
		int t = xr->trace[i].task;
		const struct rv_xstep *to = next[i] >= 0 ? &xr->trace[next[i]] : &xr->last[t];
		char what[96];

		if (next[i] < 0 && xr->finished[t])
			snprintf(what, sizeof(what), "finished");
		else if (to->name)
			snprintf(what, sizeof(what), "%s %s", rv_xkind_name(to->kind), to->name);
		else
			snprintf(what, sizeof(what), "%s", rv_xkind_name(to->kind));
		fprintf(f, "%c%6lu  T%d   %-26s %s\n", xr->trace[i].preempted ? '*' : ' ',
			(unsigned long)i, t, what,
			(next[i] < 0 && xr->finished[t]) || to->kind == RV_XP_OP
			    ? ""
			    : site_text(sites, nsites, to->site));
	}
	free(next);
	if (xr->status != RV_X_DONE) {
		fprintf(f, "  stopped: %s; where each task was:\n", rv_xstatus_name(xr->status));
		for (int t = 0; t < cfg->sc->ntasks; t++)
			fprintf(f, "    T%d %s %s\n", t,
				xr->finished[t] ? "finished" : rv_xkind_name(xr->last[t].kind),
				xr->finished[t] ? "" : site_text(sites, nsites, xr->last[t].site));
	} else if (r) {
		char buf[512];

		format_results(cfg->sc, (long(*)[XS_MAX_OPS])r->result, buf, sizeof(buf));
		fprintf(f, "  results: %s\n", buf);
	}
	free(sites);
}

/* ---- the trace as HTML ------------------------------------------------------ */

static void html_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

/* Does passing a point of this kind take (1) or drop (-1) the object? */
static int lock_effect(int kind)
{
	switch (kind) {
	case RV_XP_SPIN_LOCK:
	case RV_XP_RWSEM_DOWN_READ:
	case RV_XP_RWSEM_DOWN_WRITE:
	case RV_XP_SEM_DOWN:
	case RV_XP_BKL_LOCK:
		return 1;
	case RV_XP_SPIN_UNLOCK:
	case RV_XP_RWSEM_UP_READ:
	case RV_XP_RWSEM_UP_WRITE:
	case RV_XP_SEM_UP:
	case RV_XP_BKL_UNLOCK:
		return -1;
	}
	return 0;
}

#define HTML_MAX_HELD 16

void xs_write_trace_html(FILE *f, const struct xs_config *cfg, const struct rv_xresult *xr,
			 const struct xs_run *r, const char *id, const char *verdict)
{
	const struct xscenario *sc = cfg->sc;
	size_t nsites = 0;
	struct site_name *sites;
	long *next, seen[RV_XMAX_TASKS];
	/* locks each task holds, as the points it passed tell (trylocks that
	 * failed and releases without a point are not seen) */
	const void *held[RV_XMAX_TASKS][HTML_MAX_HELD];
	const char *heldk[RV_XMAX_TASKS][HTML_MAX_HELD];
	int nheld[RV_XMAX_TASKS] = {0};

	if (!xr->trace)
		return;
	sites = name_sites(xr->trace, xr->steps, xr->last, sc->ntasks, &nsites);
	next = calloc(xr->steps ? xr->steps : 1, sizeof(*next));
	for (int t = 0; t < RV_XMAX_TASKS; t++)
		seen[t] = -1;
	for (uint64_t i = xr->steps; next && i-- > 0;) {
		int t = xr->trace[i].task;

		next[i] = seen[t];
		seen[t] = (long)i;
	}
	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
	html_text(f, id);
	fprintf(f, "</title>\n<style>\n"
		   "body{font-family:sans-serif;font-size:13px}\n"
		   "table{border-collapse:collapse}\n"
		   "td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top}\n"
		   "td.step{color:#888;text-align:right}\n"
		   "td.run{background:#eef6ff}\n"
		   "td.run.preempt{background:#ffe4e1;border:2px solid #d00}\n"
		   "span.where{color:#555;font-family:monospace;font-size:11px}\n"
		   "span.held{color:#060;font-size:11px}\n"
		   "p.verdict{font-weight:bold}\n"
		   "</style></head><body>\n<h1>");
	html_text(f, id);
	fprintf(f,
		"</h1>\n<p>%s: %s. One lane per task; each row is one step: the task "
		"that ran, from where it was parked to the point where it stopped (kind, "
		"name, code location). A red cell preempted a task that could have gone "
		"on. Locks held: as the points passed tell.</p>\n",
		sc->name, sc->summary);
	fprintf(f, "<table class=\"trace\">\n<tr><th>step</th>");
	for (int t = 0; t < sc->ntasks; t++) {
		fprintf(f, "<th class=\"lane\">T%d:", t);
		for (int k = 0; k < sc->nops[t]; k++) {
			fputc(' ', f);
			html_text(f, sc->opname[t][k]);
		}
		fprintf(f, "</th>");
	}
	fprintf(f, "</tr>\n");
	for (uint64_t i = 0; next && i < xr->steps; i++) {
		int t = xr->trace[i].task;
		const struct rv_xstep *to = next[i] >= 0 ? &xr->trace[next[i]] : &xr->last[t];
		bool fin = next[i] < 0 && xr->finished[t];
		int eff;

		fprintf(f, "<tr class=\"step\"><td class=\"step\">%lu</td>", (unsigned long)i);
		for (int l = 0; l < sc->ntasks; l++) {
			if (l != t) {
				fprintf(f, "<td></td>");
				continue;
			}
			fprintf(f, "<td class=\"run%s\">",
				xr->trace[i].preempted ? " preempt" : "");
			if (fin) {
				fprintf(f, "finished");
			} else {
				html_text(f, rv_xkind_name(to->kind));
				if (to->name) {
					fputc(' ', f);
					html_text(f, to->name);
				}
				if (to->kind != RV_XP_OP) {
					fprintf(f, "<br><span class=\"where\">");
					html_text(f, site_text(sites, nsites, to->site));
					fprintf(f, "</span>");
				}
			}
			/* the point passed at the start of this step changes what it holds */
			eff = lock_effect(xr->trace[i].kind);
			if (eff > 0 && nheld[t] < HTML_MAX_HELD && xr->trace[i].obj) {
				held[t][nheld[t]] = xr->trace[i].obj;
				heldk[t][nheld[t]++] = rv_xkind_name(xr->trace[i].kind);
			} else if (eff < 0) {
				for (int k = nheld[t] - 1; k >= 0; k--)
					if (held[t][k] == xr->trace[i].obj ||
					    (xr->trace[i].kind == RV_XP_BKL_UNLOCK &&
					     !held[t][k])) {
						held[t][k] = held[t][--nheld[t]];
						heldk[t][k] = heldk[t][nheld[t]];
						break;
					}
			}
			if (nheld[t]) {
				fprintf(f, "<br><span class=\"held\">holds:");
				for (int k = 0; k < nheld[t]; k++)
					fprintf(f, " %s %p", heldk[t][k], held[t][k]);
				fprintf(f, "</span>");
			}
			fprintf(f, "</td>");
		}
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</table>\n");
	if (r) {
		char buf[512];

		format_results(sc, (long(*)[XS_MAX_OPS])r->result, buf, sizeof(buf));
		fprintf(f, "<p class=\"results\">results: ");
		html_text(f, buf);
		fprintf(f, "</p>\n");
	} else if (xr->status != RV_X_DONE) {
		fprintf(f, "<p class=\"stopped\">stopped: %s</p>\n", rv_xstatus_name(xr->status));
	}
	fprintf(f, "<p class=\"verdict\">");
	html_text(f, verdict);
	fprintf(f, "</p>\n</body></html>\n");
	free(next);
	free(sites);
}
