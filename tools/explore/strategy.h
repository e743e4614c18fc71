/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tools/explore/strategy.h - the explorer's strategies (strategy.c).
 *
 * Locking: a strategy's state belongs to one schedule at a time; its chooser
 * is called only by the task holding the baton.
 */
#ifndef RCUVFS_TESTS_EXPLORE_STRATEGY_H
#define RCUVFS_TESTS_EXPLORE_STRATEGY_H

#include "explore.h"

struct xs_replay {
	const struct xs_sched *s;
	size_t next;
};
int xs_replay_choose(void *p, const struct rv_xdecision *d);

/* One decision of the depth-first search. */
struct xs_node {
	uint32_t enabled;
	uint32_t tried; /* tasks chosen here in this or an earlier schedule */
	int cur;
	bool cur_enabled;
	int chosen;
	int pre_before; /* preemptions before this decision */
};

struct xs_dfs {
	int bound;
	struct xs_node *node;
	size_t depth, cap;
	uint64_t prefix; /* decisions replayed from the previous schedule */
	bool nondeterministic;
	struct xs_sched cur; /* the running schedule's id */
};
void xs_dfs_init(struct xs_dfs *x, int bound);
void xs_dfs_free(struct xs_dfs *x);
void xs_dfs_begin(struct xs_dfs *x);
int xs_dfs_choose(void *p, const struct rv_xdecision *d);
/* Prepare the next schedule; false when the bounded space is exhausted. */
bool xs_dfs_next(struct xs_dfs *x);

#define XS_PCT_MAX_D 16
struct xs_pct {
	int ntasks, depth;
	int prio[RV_XMAX_TASKS];
	uint64_t change[XS_PCT_MAX_D];
	struct xs_sched cur;
};
/* depth = change points + 1; steps: the schedule length to spread them over. */
void xs_pct_init(struct xs_pct *x, int ntasks, int depth, uint64_t steps, uint64_t seed);
int xs_pct_choose(void *p, const struct rv_xdecision *d);

#endif /* RCUVFS_TESTS_EXPLORE_STRATEGY_H */
