// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/sim/calib.c - the cost of the code between two scheduling points.
 *
 * `rcuvfs-sim --calibrate FILE` runs each workload with one task on one
 * virtual CPU (no other task, so no point ever switches) and reads the TSC
 * at every point's entry and exit: a segment is the host time from leaving
 * one point to reaching the next, the engine's own work excluded and the
 * cost of two back-to-back TSC reads (the fastest of 10,000) subtracted.  Per pair
 * of sites (the code addresses of the two points, as offsets from
 * rv_xpoint, with their kinds) it keeps up to 63 samples and saves the mean
 * of their fastest 90% (robust to an interrupt or a preemption of this
 * shared machine, and not rounded to the TSC's step as a median would be),
 * less the cost of an empty segment (a loop of points with nothing between,
 * measured the same way first: the calls into and out of the engine);
 * per pair of kinds, the count-weighted mean of the medians; and overall
 * the same mean, the last resort.
 *
 * Lookup: the pair when the file was made by this very binary (the file's
 * "layout" line must match: offsets change with every rebuild), else the
 * kinds' figure, else the overall one; each fallback is counted and
 * reported.  "uniform:NS" charges NS for every segment (tests: output that
 * depends on neither the machine nor the build).
 *
 * Locking: used by the engine's baton holder, or the driver between runs.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#include "vfs/base/base.h"

#define NSAMP 63
#define NK    (RV_XP_NKINDS + 1)

struct pair {
	uint32_t prev, cur;
	int pk, ck;
	bool used;
	bool final; /* merged: median is the figure, no samples */
	int64_t median;
	uint64_t count;
	int ns;
	int64_t samp[NSAMP];
};

#define MAXSECT 64

struct sim_calib {
	/* per workload: the work between two points depends on the data (a
	 * loop over 1000 VMAs or over 3), so each workload has its section */
	struct sim_calib *sect[MAXSECT];
	char *sect_name[MAXSECT];
	int nsect;
	struct sim_calib *cur; /* the section of the running workload */
	int64_t null_ps;       /* recording: an empty segment's cost, subtracted */
	struct pair *tab;
	size_t cap, used;
	bool exact; /* the pairs belong to this binary */
	int64_t kind_ps[NK][NK];
	bool kind_set[NK][NK];
	int64_t dflt;
	uint64_t lcg;
	char desc[256];
};

uint32_t sim_site_offset(const void *site)
{
	return (uint32_t)((uintptr_t)site - (uintptr_t)(void *)&rv_xpoint);
}

static uint32_t layout_id(void)
{
	return sim_site_offset((const void *)&rv_instance_create) ^
	       (sim_site_offset((const void *)&sim_run) << 7);
}

static size_t phash(uint32_t p, uint32_t c, int pk, int ck)
{
	uint64_t k = ((uint64_t)p << 32 | c) ^ ((uint64_t)pk << 56) ^ ((uint64_t)ck << 48);

	k *= 0x9E3779B97F4A7C15ull;
	return (size_t)(k >> 24);
}

static struct pair *pfind(struct sim_calib *c, uint32_t p, uint32_t cur, int pk, int ck, bool add)
{
	size_t m, i;

	if (add && (c->used + 1) * 2 > c->cap) {
		struct pair *old = c->tab;
		size_t ocap = c->cap;

		c->cap = c->cap ? c->cap * 2 : 1024;
		c->tab = calloc(c->cap, sizeof(*c->tab));
		if (!c->tab) {
			fprintf(stderr, "rcuvfs-sim: out of memory (calibration)\n");
			exit(1);
		}
		for (size_t j = 0; j < ocap; j++)
			if (old[j].used)
				*pfind(c, old[j].prev, old[j].cur, old[j].pk, old[j].ck, true) =
				    old[j];
		free(old);
	}
	if (!c->cap)
		return NULL;
	m = c->cap - 1;
	for (i = phash(p, cur, pk, ck) & m; c->tab[i].used; i = (i + 1) & m)
		if (c->tab[i].prev == p && c->tab[i].cur == cur && c->tab[i].pk == pk &&
		    c->tab[i].ck == ck)
			return &c->tab[i];
	if (!add)
		return NULL;
	c->tab[i].used = true;
	c->tab[i].prev = p;
	c->tab[i].cur = cur;
	c->tab[i].pk = pk;
	c->tab[i].ck = ck;
	c->used++;
	return &c->tab[i];
}

struct sim_calib *sim_calib_new_recording(void)
{
	struct sim_calib *c = calloc(1, sizeof(*c));

	if (c) {
		c->lcg = 1;
		c->exact = true;
		snprintf(c->desc, sizeof(c->desc), "recording");
	}
	return c;
}

void sim_calib_record(struct sim_calib *c, uint32_t prev, int prev_kind, uint32_t cur, int cur_kind,
		      int64_t ps)
{
	struct pair *p = pfind(c, prev, cur, prev_kind, cur_kind, true);

	ps = ps > c->null_ps ? ps - c->null_ps : 0;
	p->count++;
	if (p->ns < NSAMP) {
		p->samp[p->ns++] = ps;
	} else {
		c->lcg = c->lcg * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t j = (c->lcg >> 33) % p->count;

		if (j < NSAMP)
			p->samp[j] = ps;
	}
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

void sim_calib_free(struct sim_calib *c)
{
	if (c) {
		for (int i = 0; i < c->nsect; i++) {
			sim_calib_free(c->sect[i]);
			free(c->sect_name[i]);
		}
		free(c->tab);
		free(c);
	}
}

void sim_calib_select(struct sim_calib *c, const char *workload)
{
	c->cur = NULL;
	for (int i = 0; i < c->nsect; i++)
		if (!strcmp(c->sect_name[i], workload))
			c->cur = c->sect[i];
}

bool sim_calib_has(const struct sim_calib *c, const char *workload)
{
	for (int i = 0; i < c->nsect; i++)
		if (!strcmp(c->sect_name[i], workload))
			return true;
	return c->nsect == 0;
}

static int64_t trimmed_mean(struct pair *p)
{
	/* the mean of the fastest 90%: the TSC of some machines moves in steps
	 * of ~10 ns, which a median would round to; the slowest tenth holds the
	 * interrupts and preemptions.  At least the slowest sample goes when
	 * there are two or more: a pair seen twice whose one sample caught a
	 * preemption would otherwise cost hundreds of microseconds each time */
	int drop = p->ns / 10 > 0 ? p->ns / 10 : (p->ns > 1 ? 1 : 0);
	int keep = p->ns - drop;
	int64_t sum = 0;

	qsort(p->samp, (size_t)p->ns, sizeof(p->samp[0]), cmp64);
	for (int k = 0; k < keep; k++)
		sum += p->samp[k];
	return sum / keep;
}

void sim_calib_set_null(struct sim_calib *c, const struct sim_calib *null_run)
{
	double sum = 0, n = 0;

	for (size_t i = 0; i < null_run->cap; i++) {
		struct pair *p = &null_run->tab[i];

		if (p->used && p->ns > 1) {
			sum += (double)trimmed_mean(p) * (double)p->count;
			n += (double)p->count;
		}
	}
	c->null_ps = n > 0 ? (int64_t)(sum / n) : 0;
}

int64_t sim_calib_null(const struct sim_calib *c)
{
	return c->null_ps;
}

void sim_calib_merge_run(struct sim_calib *c, struct sim_calib *run, int64_t body_ps,
			 int64_t step_ps, double *scale, bool *scaled_all)
{
	double sum = 0, fixed = 0, target, f, frare = 1, half = (double)step_ps / 2;

	for (size_t i = 0; i < run->cap; i++) {
		struct pair *p = &run->tab[i];

		if (!p->used || !p->ns)
			continue;
		p->median = trimmed_mean(p);
		if (p->count >= 100)
			sum += ((double)p->median + half) * (double)p->count;
		else
			fixed += (double)p->median * (double)p->count;
	}
	target = (double)body_ps - fixed;
	/*
	 * The pairs seen fewer than 100 times are the first ops' and the rare
	 * paths': a small part of the run.  When they alone take more than half
	 * of its CPU time, some of their few samples caught a preemption of the
	 * host (a loaded machine): scale every pair then, so that the segments
	 * still add up to the run's CPU time, instead of leaving the repeated
	 * pairs unscaled.
	 */
	*scaled_all = sum + fixed > 0 && fixed > (double)body_ps / 2;
	if (*scaled_all)
		f = frare = (double)body_ps / (sum + fixed);
	else
		f = sum > 0 && target > 0 ? target / sum : 1.0;
	*scale = f;
	for (size_t i = 0; i < run->cap; i++) {
		struct pair *p = &run->tab[i], *q;
		int64_t m;

		if (!p->used || !p->ns)
			continue;
		m = p->count >= 100 ? (int64_t)(((double)p->median + half) * f + 0.5)
				    : (int64_t)((double)p->median * frare + 0.5);
		q = pfind(c, p->prev, p->cur, p->pk, p->ck, true);
		if (q->count) /* seen in another run: the count-weighted mean */
			q->median = (int64_t)(((double)q->median * (double)q->count +
					       (double)m * (double)p->count) /
					      (double)(q->count + p->count));
		else
			q->median = m;
		q->count += p->count;
		q->ns = 1;
		q->final = true;
	}
}

void sim_calib_save_header(FILE *f, const char *header)
{
	fprintf(f, "# rcuvfs-sim calibration (rcuvfs-sim --calibrate)\n%s", header);
	fprintf(f, "layout %u\n", layout_id());
}

int sim_calib_save(struct sim_calib *c, FILE *f, const char *workload)
{
	double ksum[NK][NK] = {{0}}, kcnt[NK][NK] = {{0}}, all = 0, allc = 0;

	fprintf(f, "workload %s\n", workload);
	for (size_t i = 0; i < c->cap; i++) {
		struct pair *p = &c->tab[i];

		if (!p->used || !p->ns)
			continue;
		if (!p->final)
			p->median = trimmed_mean(p);
		ksum[p->pk][p->ck] += (double)p->median * (double)p->count;
		kcnt[p->pk][p->ck] += (double)p->count;
		all += (double)p->median * (double)p->count;
		allc += (double)p->count;
	}
	/* pairs in a stable order: by offsets and kinds */
	{
		struct pair **v = malloc(c->used * sizeof(*v) + 1);
		size_t n = 0;

		if (!v)
			return -1;
		for (size_t i = 0; i < c->cap; i++)
			if (c->tab[i].used && c->tab[i].ns)
				v[n++] = &c->tab[i];
		for (size_t i = 1; i < n; i++) /* insertion sort: a few thousand at most */
			for (size_t j = i; j > 0; j--) {
				struct pair *a = v[j - 1], *b = v[j];
				int gt = a->prev != b->prev ? a->prev > b->prev
					 : a->cur != b->cur ? a->cur > b->cur
					 : a->pk != b->pk   ? a->pk > b->pk
							    : a->ck > b->ck;
				if (!gt)
					break;
				v[j - 1] = b;
				v[j] = a;
			}
		for (size_t i = 0; i < n; i++)
			fprintf(f, "pair %x %d %x %d %lld %llu\n", v[i]->prev, v[i]->pk, v[i]->cur,
				v[i]->ck, (long long)v[i]->median, (unsigned long long)v[i]->count);
		free(v);
	}
	for (int a = 0; a < NK; a++)
		for (int b = 0; b < NK; b++)
			if (kcnt[a][b] > 0)
				fprintf(f, "kinds %d %d %lld %.0f\n", a, b,
					(long long)(ksum[a][b] / kcnt[a][b] + 0.5), kcnt[a][b]);
	fprintf(f, "default %lld\n", (long long)(allc > 0 ? all / allc + 0.5 : 50000));
	return ferror(f) ? -1 : 0;
}

struct sim_calib *sim_calib_load(const char *spec)
{
	struct sim_calib *c = calloc(1, sizeof(*c));
	char line[512];
	FILE *f;
	unsigned layout = 0;
	size_t npairs = 0;

	if (!c)
		return NULL;
	if (!strncmp(spec, "uniform:", 8)) {
		char *end;
		double ns = strtod(spec + 8, &end);

		if (end == spec + 8 || *end || ns < 0) {
			fprintf(stderr, "rcuvfs-sim: --calibration %s: uniform:NS expected\n",
				spec);
			free(c);
			return NULL;
		}
		c->dflt = (int64_t)(ns * PS_PER_NS + 0.5);
		snprintf(c->desc, sizeof(c->desc), "uniform %.1f ns per segment", ns);
		return c;
	}
	f = fopen(spec, "r");
	if (!f) {
		fprintf(stderr, "rcuvfs-sim: --calibration %s: cannot open\n", spec);
		free(c);
		return NULL;
	}
	c->dflt = -1;
	{
		struct sim_calib *top = c;

		while (fgets(line, sizeof(line), f)) {
			unsigned p, cu;
			int pk, ck;
			long long ps;
			unsigned long long cnt;
			double dc;
			char name[128];

			if (line[0] == '#' || line[0] == '\n')
				continue;
			if (sscanf(line, "layout %u", &layout) == 1)
				continue;
			if (sscanf(line, "workload %127s", name) == 1) {
				int i;

				for (i = 0; i < top->nsect && strcmp(top->sect_name[i], name); i++)
					;
				if (i == top->nsect) {
					if (i == MAXSECT ||
					    !(top->sect[i] = calloc(1, sizeof(*c)))) {
						fprintf(stderr,
							"rcuvfs-sim: --calibration %s: too many "
							"workloads\n",
							spec);
						fclose(f);
						sim_calib_free(top);
						return NULL;
					}
					top->sect[i]->dflt = -1;
					top->sect_name[i] = strdup(name);
					top->nsect++;
				}
				c = top->sect[i];
				continue;
			}
			if (sscanf(line, "pair %x %d %x %d %lld %llu", &p, &pk, &cu, &ck, &ps,
				   &cnt) == 6) {
				if (pk >= 0 && pk < NK && ck >= 0 && ck < NK) {
					struct pair *q = pfind(c, p, cu, pk, ck, true);

					q->median = ps;
					q->count = cnt;
					npairs++;
				}
				continue;
			}
			if (sscanf(line, "kinds %d %d %lld %lf", &pk, &ck, &ps, &dc) == 4) {
				if (pk >= 0 && pk < NK && ck >= 0 && ck < NK) {
					c->kind_ps[pk][ck] = ps;
					c->kind_set[pk][ck] = true;
				}
				continue;
			}
			if (sscanf(line, "default %lld", &ps) == 1) {
				c->dflt = ps;
				continue;
			}
			fprintf(stderr, "rcuvfs-sim: --calibration %s: bad line: %s", spec, line);
			fclose(f);
			sim_calib_free(top);
			return NULL;
		}
		c = top;
	}
	fclose(f);
	for (int i = 0; i < c->nsect; i++) {
		if (c->sect[i]->dflt < 0) {
			fprintf(stderr,
				"rcuvfs-sim: --calibration %s: workload %s: no 'default' line\n",
				spec, c->sect_name[i]);
			sim_calib_free(c);
			return NULL;
		}
		c->sect[i]->exact = layout == layout_id();
	}
	if (c->dflt < 0 && c->nsect)
		c->dflt = c->sect[0]->dflt;
	if (c->dflt < 0) {
		fprintf(stderr, "rcuvfs-sim: --calibration %s: no 'default' line\n", spec);
		sim_calib_free(c);
		return NULL;
	}
	c->exact = layout == layout_id();
	snprintf(c->desc, sizeof(c->desc), "%s (%d workloads, %zu site pairs, %s)", spec, c->nsect,
		 npairs,
		 c->exact ? "this binary's layout: by site pair"
			  : "another build: by kind pair only");
	return c;
}

const char *sim_calib_describe(const struct sim_calib *c)
{
	return c->desc;
}

int64_t sim_calib_cost(struct sim_calib *c, uint32_t prev, int prev_kind, uint32_t cur,
		       int cur_kind, bool *fallback)
{
	if (c->cur)
		c = c->cur;
	if (c->exact && c->cap) {
		struct pair *p = pfind(c, prev, cur, prev_kind, cur_kind, false);

		if (p)
			return p->median;
	}
	if (c->cap || c->kind_set[0][0] || c->dflt) {
		if (prev_kind >= 0 && prev_kind < NK && cur_kind >= 0 && cur_kind < NK &&
		    c->kind_set[prev_kind][cur_kind]) {
			*fallback = c->exact;
			return c->kind_ps[prev_kind][cur_kind];
		}
	}
	*fallback = c->cap > 0;
	return c->dflt;
}
