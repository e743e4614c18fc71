// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/sim/topo.c - topology files of rcuvfs-sim (tools/sim/topologies).
 *
 * A file is "key = value" lines with '#' comments.  The shape keys (name,
 * sockets, cores per socket, threads per core) need no source; every
 * latency line must carry its source in its own comment, "# source: ..." or
 * "# estimate: <reasoning>", or the file is refused: no latency enters the
 * simulation without saying where it comes from.
 *
 * CPU numbering is Linux's on Intel servers: CPU c is thread c / (sockets *
 * cores) of core c % (sockets * cores), and cores are numbered socket by
 * socket, so that the first n CPUs are n distinct cores while n <= sockets *
 * cores (as will-it-scale places its tasks).
 *
 * Locking: none (loaded once, read-only afterwards).
 */
#include "sim.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *key;
	size_t off;
} lat_keys[] = {
    {"smt_ns", offsetof(struct sim_topo, smt_ps)},
    {"core_ns", offsetof(struct sim_topo, core_ps)},
    {"socket_ns", offsetof(struct sim_topo, socket_ps)},
    {"llc_ns", offsetof(struct sim_topo, llc_ps)},
    {"atomic_ns", offsetof(struct sim_topo, atomic_ps)},
    {"pause_ns", offsetof(struct sim_topo, pause_ps)},
    {"wake_ns", offsetof(struct sim_topo, wake_ps)},
    {"ctxsw_ns", offsetof(struct sim_topo, ctxsw_ps)},
    {"slice_ns", offsetof(struct sim_topo, slice_ps)},
};
#define NLAT (sizeof(lat_keys) / sizeof(lat_keys[0]))

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int sim_topo_load(struct sim_topo *t, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	bool seen[NLAT] = {false};
	int lineno = 0;

	if (!f) {
		fprintf(stderr, "rcuvfs-sim: %s: cannot open the topology file\n", path);
		return -1;
	}
	memset(t, 0, sizeof(*t));
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *eq, *key, *val, *comment = NULL;

		lineno++;
		if (hash) {
			*hash = '\0';
			comment = trim(hash + 1);
		}
		eq = strchr(line, '=');
		if (!eq) {
			if (*trim(line)) {
				fprintf(stderr, "rcuvfs-sim: %s:%d: expected key = value\n", path,
					lineno);
				fclose(f);
				return -1;
			}
			continue;
		}
		*eq = '\0';
		key = trim(line);
		val = trim(eq + 1);
		if (!strcmp(key, "name")) {
			snprintf(t->name, sizeof(t->name), "%s", val);
			continue;
		}
		if (!strcmp(key, "sockets") || !strcmp(key, "cores") || !strcmp(key, "threads")) {
			int v = atoi(val);

			if (v < 1) {
				fprintf(stderr, "rcuvfs-sim: %s:%d: %s must be >= 1\n", path,
					lineno, key);
				fclose(f);
				return -1;
			}
			*(key[0] == 's'	  ? &t->sockets
			  : key[0] == 'c' ? &t->cores
					  : &t->threads) = v;
			continue;
		}
		{
			size_t i;
			char *end;
			double v;

			for (i = 0; i < NLAT && strcmp(lat_keys[i].key, key); i++)
				;
			if (i == NLAT) {
				fprintf(stderr, "rcuvfs-sim: %s:%d: unknown key %s\n", path, lineno,
					key);
				fclose(f);
				return -1;
			}
			v = strtod(val, &end);
			if (end == val || *end || v < 0) {
				fprintf(stderr, "rcuvfs-sim: %s:%d: %s: not a number >= 0\n", path,
					lineno, key);
				fclose(f);
				return -1;
			}
			if (!comment ||
			    (strncmp(comment, "source:", 7) && strncmp(comment, "estimate:", 9))) {
				fprintf(stderr,
					"rcuvfs-sim: %s:%d: %s has no '# source: ...' or "
					"'# estimate: ...' comment\n",
					path, lineno, key);
				fclose(f);
				return -1;
			}
			*(int64_t *)((char *)t + lat_keys[i].off) = (int64_t)(v * PS_PER_NS + 0.5);
			seen[i] = true;
		}
	}
	fclose(f);
	for (size_t i = 0; i < NLAT; i++)
		if (!seen[i]) {
			fprintf(stderr, "rcuvfs-sim: %s: %s missing\n", path, lat_keys[i].key);
			return -1;
		}
	if (!t->sockets || !t->cores || !t->threads) {
		fprintf(stderr, "rcuvfs-sim: %s: sockets, cores and threads are required\n", path);
		return -1;
	}
	t->ncpus = t->sockets * t->cores * t->threads;
	if (t->ncpus > SIM_MAX_CPUS) {
		fprintf(stderr, "rcuvfs-sim: %s: %d CPUs, at most %d\n", path, t->ncpus,
			SIM_MAX_CPUS);
		return -1;
	}
	if (!t->name[0])
		snprintf(t->name, sizeof(t->name), "%s", path);
	return 0;
}

int sim_topo_limit(struct sim_topo *t, int n)
{
	int full = t->sockets * t->cores * t->threads;

	if (n < 1 || n > full)
		return -1;
	t->ncpus = n;
	return 0;
}

void sim_topo_cpu(const struct sim_topo *t, int cpu, int *socket, int *core)
{
	int ncores = t->sockets * t->cores;
	int c = cpu % ncores;

	*core = c;
	*socket = c / t->cores;
}
