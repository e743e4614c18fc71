// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/explore/strategy.c - schedule ids and the strategies.
 *
 * A schedule is named by its non-default choices: at decision `step` task
 * `task` ran although the default (keep the current task while it can run,
 * else the lowest-numbered task that can) would have run another.  Every
 * strategy records its choices that way, so one id format replays them all.
 *
 * Strategies:
 *  - bounded preemptions (CHESS, Musuvathi and Qadeer, PLDI 2007): depth-first
 *    over every schedule with at most K preemptions (a switch away from a task
 *    that could have continued); switches where the running task blocked or
 *    finished cost nothing and are all explored.  Stateless: each schedule is
 *    re-executed from a fresh instance, replaying the prefix of the previous
 *    one up to the decision it changes.
 *  - PCT (Burckhardt et al., ASPLOS 2010): random distinct task priorities,
 *    the highest-priority task that can run runs, and at d-1 random steps
 *    the running task's priority drops below every other.  Seeded.
 *  - replay: the choices of an id.
 *
 * Locking: the choosers run in whichever task holds the baton; their state is
 * touched by nothing else while a schedule runs.
 */
#include "strategy.h"

#include <stdlib.h>
#include <string.h>

void xs_sched_add(struct xs_sched *s, uint64_t step, int task)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct xs_choice *c = realloc(s->c, cap * sizeof(*c));

		if (!c)
			return;
		s->c = c;
		s->cap = cap;
	}
	s->c[s->n].step = step;
	s->c[s->n].task = task;
	s->n++;
}

void xs_sched_free(struct xs_sched *s)
{
	free(s->c);
	memset(s, 0, sizeof(*s));
}

size_t xs_sched_format(const struct xs_sched *s, char *buf, size_t len)
{
	size_t off = 0;

	if (!s->n)
		return snprintf(buf, len, "-");
	for (size_t i = 0; i < s->n; i++)
		off +=
		    snprintf(buf + (off < len ? off : len), off < len ? len - off : 0, "%s%lu.%d",
			     i ? "," : "", (unsigned long)s->c[i].step, s->c[i].task);
	return off;
}

int xs_sched_parse(struct xs_sched *s, const char *text)
{
	const char *p = text;

	memset(s, 0, sizeof(*s));
	if (!strcmp(text, "-") || !*text)
		return 0;
	while (*p) {
		char *end;
		unsigned long step = strtoul(p, &end, 10);
		long task;
		uint64_t prev = s->n ? s->c[s->n - 1].step : 0;

		if (end == p || *end != '.')
			return -EINVAL;
		p = end + 1;
		task = strtol(p, &end, 10);
		if (end == p || task < 0 || task >= RV_XMAX_TASKS)
			return -EINVAL;
		if (s->n && step <= prev)
			return -EINVAL;
		xs_sched_add(s, step, (int)task);
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return 0;
}

int xs_default_choice(const struct rv_xdecision *d)
{
	if (d->cur_enabled)
		return d->cur;
	return __builtin_ctz(d->enabled);
}

/* ---- replay ---------------------------------------------------------------- */

int xs_replay_choose(void *p, const struct rv_xdecision *d)
{
	struct xs_replay *r = p;

	if (r->next < r->s->n && r->s->c[r->next].step == d->step)
		return r->s->c[r->next++].task; /* not enabled: the run reports divergence */
	return xs_default_choice(d);
}

/* ---- bounded preemptions ---------------------------------------------------- */

void xs_dfs_init(struct xs_dfs *x, int bound)
{
	memset(x, 0, sizeof(*x));
	x->bound = bound;
}

void xs_dfs_free(struct xs_dfs *x)
{
	free(x->node);
	xs_sched_free(&x->cur);
	memset(x, 0, sizeof(*x));
}

static int cost(const struct xs_node *n, int task)
{
	return n->cur_enabled && task != n->cur;
}

int xs_dfs_choose(void *p, const struct rv_xdecision *d)
{
	struct xs_dfs *x = p;
	struct xs_node *n;
	int choice;

	if (d->step < x->prefix) {
		n = &x->node[d->step];
		if (n->enabled != d->enabled || n->cur != d->cur)
			x->nondeterministic = true;
		choice = n->chosen;
	} else {
		if (x->depth == x->cap) {
			size_t cap = x->cap ? x->cap * 2 : 256;
			struct xs_node *nn = realloc(x->node, cap * sizeof(*nn));

			if (!nn)
				return xs_default_choice(d);
			x->node = nn;
			x->cap = cap;
		}
		n = &x->node[x->depth++];
		n->enabled = d->enabled;
		n->cur = d->cur;
		n->cur_enabled = d->cur_enabled;
		n->pre_before = d->step
				    ? x->node[d->step - 1].pre_before +
					  cost(&x->node[d->step - 1], x->node[d->step - 1].chosen)
				    : 0;
		choice = xs_default_choice(d);
		n->chosen = choice;
		n->tried = 1u << choice;
	}
	if (choice != xs_default_choice(d))
		xs_sched_add(&x->cur, d->step, choice);
	return choice;
}

void xs_dfs_begin(struct xs_dfs *x)
{
	xs_sched_free(&x->cur);
	x->nondeterministic = false;
}

bool xs_dfs_next(struct xs_dfs *x)
{
	while (x->depth > 0) {
		struct xs_node *n = &x->node[x->depth - 1];
		uint32_t left = n->enabled & ~n->tried;

		while (left) {
			int t = __builtin_ctz(left);

			left &= left - 1;
			n->tried |= 1u << t;
			if (n->pre_before + cost(n, t) <= x->bound) {
				n->chosen = t;
				x->prefix = x->depth;
				return true;
			}
		}
		x->depth--;
	}
	return false;
}

/* ---- PCT --------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void xs_pct_init(struct xs_pct *x, int ntasks, int depth, uint64_t steps, uint64_t seed)
{
	uint64_t s = seed;

	memset(x, 0, sizeof(*x));
	x->ntasks = ntasks;
	x->depth = depth < 1 ? 1 : depth;
	for (int i = 0; i < ntasks; i++)
		x->prio[i] = x->depth + i;
	for (int i = ntasks - 1; i > 0; i--) { /* shuffle */
		int j = (int)(rng_next(&s) % (uint64_t)(i + 1));
		int tmp = x->prio[i];

		x->prio[i] = x->prio[j];
		x->prio[j] = tmp;
	}
	for (int i = 0; i < x->depth - 1 && i < XS_PCT_MAX_D; i++)
		x->change[i] = steps ? rng_next(&s) % steps : 0;
}

int xs_pct_choose(void *p, const struct rv_xdecision *d)
{
	struct xs_pct *x = p;
	int best = -1;

	for (int i = 0; i < x->depth - 1 && i < XS_PCT_MAX_D; i++)
		if (x->change[i] == d->step && d->cur >= 0)
			x->prio[d->cur] = x->depth - 2 - i; /* below every initial priority */
	for (int t = 0; t < d->ntasks; t++)
		if ((d->enabled >> t & 1) && (best < 0 || x->prio[t] > x->prio[best]))
			best = t;
	if (best != xs_default_choice(d))
		xs_sched_add(&x->cur, d->step, best);
	return best;
}
