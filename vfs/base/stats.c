// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/stats.c - the stats registry.
 *
 * Counters are registered by constructors (RV_STAT_DEFINE) before main();
 * each gets an index into every thread's rv_stat_tls.v[].  A thread's block
 * is linked on rv_stat_threads at its first increment and folded into
 * rv_stat_dead[] at thread exit (pthread key destructor).
 *
 * Locking: rv_stat_lock (pthread mutex; registration, thread list, reads)
 * protects the counter table, the gauge table, the thread list and
 * rv_stat_dead.  Increments take no lock: each slot has a single writer (its
 * thread) and readers load it relaxed, so a sum is a consistent-enough
 * snapshot of monotonically increasing values.
 */
#include "vfs/base/base.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define RV_GAUGE_MAX 64

struct rv_gauge {
	const char *name;
	const char *help;
	uint64_t (*fn)(void);
};

__thread struct rv_stat_tls rv_stat_tls;
__thread int rv_stat_registered;
static pthread_mutex_t rv_stat_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rv_stat *rv_stats[RV_STAT_MAX];
static int rv_nstats;
static struct rv_gauge rv_gauges[RV_GAUGE_MAX];
static int rv_ngauges;
static uint64_t rv_stat_dead[RV_STAT_MAX];
static struct list_head rv_stat_threads = LIST_HEAD_INIT(rv_stat_threads);
static pthread_key_t rv_stat_key;
static pthread_once_t rv_stat_once = PTHREAD_ONCE_INIT;

void rv_stat_register(struct rv_stat *s)
{
	pthread_mutex_lock(&rv_stat_lock);
	for (int i = 0; i < rv_nstats; i++) {
		if (!strcmp(rv_stats[i]->name, s->name)) {
			fprintf(stderr, "rcuvfs: stats counter %s defined twice\n", s->name);
			abort(); /* a build defect, not bad input */
		}
	}
	if (rv_nstats >= RV_STAT_MAX) {
		fprintf(stderr, "rcuvfs: more than %d stats counters\n", RV_STAT_MAX);
		abort();
	}
	s->idx = rv_nstats;
	rv_stats[rv_nstats++] = s;
	pthread_mutex_unlock(&rv_stat_lock);
}

void rv_stat_register_gauge(const char *name, const char *help, uint64_t (*fn)(void))
{
	pthread_mutex_lock(&rv_stat_lock);
	for (int i = 0; i < rv_ngauges; i++) {
		if (!strcmp(rv_gauges[i].name, name)) {
			rv_gauges[i].fn = fn;
			pthread_mutex_unlock(&rv_stat_lock);
			return;
		}
	}
	if (rv_ngauges < RV_GAUGE_MAX)
		rv_gauges[rv_ngauges++] = (struct rv_gauge){name, help, fn};
	pthread_mutex_unlock(&rv_stat_lock);
}

static void rv_stat_thread_exit(void *arg)
{
	struct rv_stat_tls *tls = arg;

	pthread_mutex_lock(&rv_stat_lock);
	/*
	 * Fold and zero, as percpu_counter_cpu_dead (lib/percpu_counter.c)
	 * zeroes a dead CPU's count after adding it: a key destructor that runs
	 * after this one (a lazily created task's exit) may increment a counter
	 * again, which registers the slot once more and brings this destructor
	 * back; without the zeroing, that second fold would add the first
	 * fold's counts again.
	 */
	for (int i = 0; i < RV_STAT_MAX; i++) {
		rv_stat_dead[i] += tls->v[i];
		tls->v[i] = 0;
	}
	list_del_init(&tls->list);
	rv_stat_registered = 0; /* key destructors run on the exiting thread */
	pthread_mutex_unlock(&rv_stat_lock);
}

static void rv_stat_key_init(void)
{
	if (pthread_key_create(&rv_stat_key, rv_stat_thread_exit)) {
		fprintf(stderr, "rcuvfs: pthread_key_create failed\n");
		exit(1);
	}
}

void rv_stat_tls_register(void)
{
	pthread_once(&rv_stat_once, rv_stat_key_init);
	pthread_mutex_lock(&rv_stat_lock);
	if (!rv_stat_registered) {
		list_add_tail(&rv_stat_tls.list, &rv_stat_threads);
		rv_stat_registered = 1;
	}
	pthread_mutex_unlock(&rv_stat_lock);
	pthread_setspecific(rv_stat_key, &rv_stat_tls);
}

/* Caller holds rv_stat_lock. */
static uint64_t __rv_stat_sum(int idx)
{
	uint64_t sum = rv_stat_dead[idx];
	struct rv_stat_tls *t;

	list_for_each_entry(t, &rv_stat_threads, list)
		sum += __atomic_load_n(&t->v[idx], __ATOMIC_RELAXED);
	return sum;
}

uint64_t rv_stat_sum_idx(int idx)
{
	uint64_t sum;

	if (idx < 0 || idx >= RV_STAT_MAX)
		return 0;
	pthread_mutex_lock(&rv_stat_lock);
	sum = __rv_stat_sum(idx);
	pthread_mutex_unlock(&rv_stat_lock);
	return sum;
}

int rv_stat_read(const char *name, uint64_t *out)
{
	uint64_t (*fn)(void) = NULL;

	pthread_mutex_lock(&rv_stat_lock);
	for (int i = 0; i < rv_nstats; i++) {
		if (!strcmp(rv_stats[i]->name, name)) {
			*out = __rv_stat_sum(i);
			pthread_mutex_unlock(&rv_stat_lock);
			return 0;
		}
	}
	for (int i = 0; i < rv_ngauges; i++)
		if (!strcmp(rv_gauges[i].name, name))
			fn = rv_gauges[i].fn;
	pthread_mutex_unlock(&rv_stat_lock);
	if (!fn)
		return -ENOENT;
	*out = fn(); /* gauges may take other locks: call unlocked */
	return 0;
}

bool rv_stat_is_gauge(const char *name)
{
	bool ret = false;

	pthread_mutex_lock(&rv_stat_lock);
	for (int i = 0; i < rv_ngauges; i++)
		if (!strcmp(rv_gauges[i].name, name))
			ret = true;
	pthread_mutex_unlock(&rv_stat_lock);
	return ret;
}

void rv_stat_foreach(void (*fn)(const char *name, uint64_t value, const char *help, void *arg),
		     void *arg)
{
	struct rv_gauge gauges[RV_GAUGE_MAX];
	int ngauges;
	int n;

	pthread_mutex_lock(&rv_stat_lock);
	n = rv_nstats;
	pthread_mutex_unlock(&rv_stat_lock);
	for (int i = 0; i < n; i++) {
		uint64_t v;
		struct rv_stat *s;

		pthread_mutex_lock(&rv_stat_lock);
		s = rv_stats[i];
		v = __rv_stat_sum(i);
		pthread_mutex_unlock(&rv_stat_lock);
		fn(s->name, v, s->help, arg);
	}
	pthread_mutex_lock(&rv_stat_lock);
	ngauges = rv_ngauges;
	memcpy(gauges, rv_gauges, sizeof(gauges[0]) * (size_t)ngauges);
	pthread_mutex_unlock(&rv_stat_lock);
	for (int i = 0; i < ngauges; i++)
		fn(gauges[i].name, gauges[i].fn(), gauges[i].help, arg);
}

struct rv_fmt {
	char *buf;
	size_t len, used;
	int json, first;
};

static void fmt_append(struct rv_fmt *f, const char *name, uint64_t v)
{
	char *p = f->used < f->len ? f->buf + f->used : NULL;
	size_t room = f->used < f->len ? f->len - f->used : 0;
	int n;

	if (f->json)
		n = snprintf(p, room, "%s\"%s\": %llu", f->first ? "" : ", ", name,
			     (unsigned long long)v);
	else
		n = snprintf(p, room, "%s %llu\n", name, (unsigned long long)v);
	f->first = 0;
	if (n > 0)
		f->used += (size_t)n;
}

static void fmt_cb(const char *name, uint64_t value, const char *help, void *arg)
{
	(void)help;
	fmt_append(arg, name, value);
}

size_t rv_stats_format_text(char *buf, size_t len)
{
	struct rv_fmt f = {buf, len, 0, 0, 1};

	if (len)
		buf[0] = 0;
	rv_stat_foreach(fmt_cb, &f);
	return f.used;
}

size_t rv_stats_format_json(char *buf, size_t len)
{
	struct rv_fmt f = {buf, len, 0, 1, 1};
	int n;

	n = snprintf(buf, len, "{");
	f.used = (size_t)n;
	rv_stat_foreach(fmt_cb, &f);
	n = snprintf(f.used < len ? buf + f.used : NULL, f.used < len ? len - f.used : 0, "}");
	f.used += (size_t)n;
	return f.used;
}

void rv_stats_reset(void)
{
	struct rv_stat_tls *t;

	pthread_mutex_lock(&rv_stat_lock);
	memset(rv_stat_dead, 0, sizeof(rv_stat_dead));
	list_for_each_entry(t, &rv_stat_threads, list)
		for (int i = 0; i < RV_STAT_MAX; i++)
			__atomic_store_n(&t->v[i], 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&rv_stat_lock);
}

struct rv_stat_doc {
	const char *name, *help;
	bool gauge;
};

static int doc_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rv_stat_doc *)a)->name, ((const struct rv_stat_doc *)b)->name);
}

int rv_stats_doc(FILE *out, int fmt)
{
	struct rv_stat_doc docs[RV_STAT_MAX + RV_GAUGE_MAX];
	int n = 0, missing = 0;

	pthread_mutex_lock(&rv_stat_lock);
	for (int i = 0; i < rv_nstats; i++)
		docs[n++] = (struct rv_stat_doc){rv_stats[i]->name, rv_stats[i]->help, false};
	for (int i = 0; i < rv_ngauges; i++)
		docs[n++] = (struct rv_stat_doc){rv_gauges[i].name, rv_gauges[i].help, true};
	pthread_mutex_unlock(&rv_stat_lock);
	/* registration order follows the link order: sort for stable output */
	qsort(docs, (size_t)n, sizeof(docs[0]), doc_cmp);
	if (fmt == RV_DOC_MD)
		fprintf(out, "| name | kind | what it counts |\n|---|---|---|\n");
	for (int i = 0; i < n; i++) {
		const char *kind = docs[i].gauge ? "gauge" : "counter";

		if (!docs[i].help || !*docs[i].help) {
			fprintf(stderr, "rcuvfs: counter %s has no help text\n", docs[i].name);
			missing++;
			continue;
		}
		if (fmt == RV_DOC_MD)
			fprintf(out, "| `%s` | %s | %s |\n", docs[i].name, kind, docs[i].help);
		else
			fprintf(out, "%s %s %s\n", docs[i].name, kind, docs[i].help);
	}
	return missing ? -EINVAL : 0;
}
