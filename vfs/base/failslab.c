// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/failslab.c - the fail_alloc policy (failslab.h): which of the
 * model's allocations return NULL.  Modelled on the kernel's failslab
 * (mm/failslab.c should_failslab over lib/fault-inject.c's should_fail:
 * probability, interval, and a filter), with an every-Nth and a k-th-only
 * count for the allocation-site sweep, and the site filter by cache name.
 *
 * Locking: counters are atomics; the spec is read from rv_sw, which changes
 * only while no instance is live.
 */
#include "vfs/base/base.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static int fail_armed;
static uint64_t fail_calls, fail_injected;

int rv_fail_spec_parse(struct rv_fail_spec *spec, const char *text)
{
	struct rv_fail_spec s = {0};
	const char *arg, *site;
	char *end;
	size_t kind;

	if (!strcmp(text, "none") || !strcmp(text, "0")) {
		*spec = s;
		return 0;
	}
	kind = strcspn(text, ":");
	if (!text[kind])
		return -EINVAL;
	arg = text + kind + 1;
	site = strchr(arg, ':');
	if (!isdigit((unsigned char)*arg))
		return -EINVAL;
	errno = 0;
	if (kind == 1 && text[0] == 'p') {
		double pct = strtod(arg, &end);

		if (errno || pct < 0 || pct > 100)
			return -EINVAL;
		s.mode = RV_FAIL_PROB;
		s.n = (uint64_t)(pct * 10000.0 + 0.5);
	} else {
		unsigned long long v = strtoull(arg, &end, 10);

		if (errno || v == 0)
			return -EINVAL;
		if (kind == 5 && !strncmp(text, "every", 5))
			s.mode = RV_FAIL_EVERY;
		else if (kind == 3 && !strncmp(text, "nth", 3))
			s.mode = RV_FAIL_NTH;
		else
			return -EINVAL;
		s.n = v;
	}
	if (end != (site ? site : arg + strlen(arg)))
		return -EINVAL;
	if (site) {
		site++;
		if (!*site || strlen(site) >= sizeof(s.site) || strchr(site, ':'))
			return -EINVAL;
		snprintf(s.site, sizeof(s.site), "%s", site);
	}
	*spec = s;
	return 0;
}

int rv_fail_spec_format(const struct rv_fail_spec *s, char *buf, size_t len)
{
	const char *colon = s->site[0] ? ":" : "";

	switch (s->mode) {
	case RV_FAIL_EVERY:
		return snprintf(buf, len, "every:%llu%s%s", (unsigned long long)s->n, colon,
				s->site);
	case RV_FAIL_NTH:
		return snprintf(buf, len, "nth:%llu%s%s", (unsigned long long)s->n, colon, s->site);
	case RV_FAIL_PROB:
		return snprintf(buf, len, "p:%g%s%s", (double)s->n / 10000.0, colon, s->site);
	}
	return snprintf(buf, len, "none");
}

/* splitmix64: the k-th draw of the probability mode, reproducible. */
static uint64_t draw(uint64_t k)
{
	uint64_t z = k * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

bool rv_should_fail_alloc(const char *site)
{
	const struct rv_fail_spec *s = &rv_sw.fail_alloc;
	uint64_t k;
	bool fail;

	if (likely(s->mode == RV_FAIL_NONE) || !__atomic_load_n(&fail_armed, __ATOMIC_RELAXED))
		return false;
	if (s->site[0] && (!site || !strstr(site, s->site)))
		return false;
	k = __atomic_add_fetch(&fail_calls, 1, __ATOMIC_RELAXED);
	switch (s->mode) {
	case RV_FAIL_EVERY:
		fail = k % s->n == 0;
		break;
	case RV_FAIL_NTH:
		fail = k == s->n;
		break;
	default:
		fail = draw(k) % 1000000u < s->n;
		break;
	}
	if (fail)
		__atomic_add_fetch(&fail_injected, 1, __ATOMIC_RELAXED);
	return fail;
}

void rv_fail_alloc_arm(void)
{
	__atomic_store_n(&fail_calls, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fail_injected, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fail_armed, 1, __ATOMIC_RELEASE);
}

void rv_fail_alloc_disarm(void)
{
	__atomic_store_n(&fail_armed, 0, __ATOMIC_RELEASE);
}

uint64_t rv_fail_alloc_calls(void)
{
	return __atomic_load_n(&fail_calls, __ATOMIC_RELAXED);
}

uint64_t rv_fail_alloc_injected(void)
{
	return __atomic_load_n(&fail_injected, __ATOMIC_RELAXED);
}
