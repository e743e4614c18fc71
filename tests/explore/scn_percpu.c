// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_percpu.c - percpu counters: init and destroy on the
 * global list (percpu_counters_lock) concurrent with adds and sums, and a
 * group whose members two tasks destroy.
 *
 * percpu-counters: group G of two counters (percpu_counter_init_many, 0)
 * made in setup.
 *
 *   T0: init A (5); add 3 to A and 1 to G[0]; destroy G[0]; sum A.
 *   T1: init_many H, two counters of 1; add 2 to H[1] and sum it; destroy
 *       G[1]; destroy_many H.
 *
 * G's memory is one allocation freed by whichever task destroys its last
 * member (hdr->live under percpu_counters_lock), so both orders of the two
 * destroys are exercised; the sanitizer build sees a double free or a use
 * after free.  The model's add is one relaxed atomic add on a slot and the
 * sum reads the slots with no scheduling point between them, so a sum is
 * exact in every schedule (vfs/base/percpu_counter.c: exact whenever no add
 * runs concurrently; the model has no batch fold or central count, Linux's
 * fbc->count and percpu_counter_read, to be inexact in between).
 *
 * The oracle: the sums are the exact values (A 8, H[1] 3); between critical
 * sections the number of registered counters (percpu_counter_registered,
 * updated under percpu_counters_lock) lies between what the finished inits
 * and destroys give and what the started ones give; at the end it is the
 * setup's count less G's two plus A (destroyed in teardown).
 *
 * Locking: the bounds are written by each task around its own calls and
 * read by the midcheck with every task parked.
 */
#include "explore.h"

struct pc_priv {
	struct percpu_counter g[2], a, h[2];
	long base;   /* registered counters after setup */
	long lo, hi; /* change to it: finished (lo) and started (hi) calls */
};

/* Around a call that registers (n > 0) or unregisters (n < 0) counters. */
static void pc_begin(struct pc_priv *p, int n)
{
	if (n > 0)
		p->hi += n;
	else
		p->lo += n;
}

static void pc_end(struct pc_priv *p, int n)
{
	if (n > 0)
		p->lo += n;
	else
		p->hi += n;
}

static int pc_midcheck(struct xs_run *r, char *why, size_t len)
{
	struct pc_priv *p = r->priv;
	long n = percpu_counter_registered();

	if (n >= p->base + p->lo && n <= p->base + p->hi)
		return 0;
	snprintf(why, len, "%ld counters registered, %ld to %ld expected", n, p->base + p->lo,
		 p->base + p->hi);
	return 1;
}

static int pc_setup(struct xs_run *r)
{
	struct pc_priv *p = r->priv;

	if (!xs_process(r, 0, "pc0") || !xs_thread_of(r, 1, 0))
		return -ENOMEM;
	if (percpu_counter_init_many(p->g, 0, 2))
		return -ENOMEM;
	p->base = percpu_counter_registered();
	return 0;
}

static long pc_op(struct xs_run *r, int task, int op)
{
	struct pc_priv *p = r->priv;
	long err;

	switch (task * 4 + op) {
	case 0:
		pc_begin(p, 1);
		err = percpu_counter_init(&p->a, 5);
		if (err)
			p->hi -= 1; /* nothing registered */
		else
			pc_end(p, 1);
		return err;
	case 1:
		percpu_counter_add(&p->a, 3);
		percpu_counter_add(&p->g[0], 1);
		return 0;
	case 2:
		pc_begin(p, -1);
		percpu_counter_destroy(&p->g[0]);
		pc_end(p, -1);
		return 0;
	case 3:
		return (long)percpu_counter_sum(&p->a);
	case 4:
		pc_begin(p, 2);
		err = percpu_counter_init_many(p->h, 1, 2);
		if (err)
			p->hi -= 2;
		else
			pc_end(p, 2);
		return err;
	case 5:
		percpu_counter_add(&p->h[1], 2);
		return (long)percpu_counter_sum(&p->h[1]);
	case 6:
		pc_begin(p, -1);
		percpu_counter_destroy(&p->g[1]);
		pc_end(p, -1);
		return 0;
	default:
		pc_begin(p, -2);
		percpu_counter_destroy_many(p->h, 2);
		pc_end(p, -2);
		return 0;
	}
}

static int pc_check(struct xs_run *r, char *why, size_t len)
{
	struct pc_priv *p = r->priv;
	long n = percpu_counter_registered();

	if (r->result[0][0] || r->result[1][0]) {
		snprintf(why, len, "an init failed: %ld, %ld", r->result[0][0], r->result[1][0]);
		return 1;
	}
	if (r->result[0][3] != 8 || r->result[1][1] != 3) {
		snprintf(why, len, "sum(A) %ld (8 expected), sum(H[1]) %ld (3 expected)",
			 r->result[0][3], r->result[1][1]);
		return 1;
	}
	if (n != p->base - 1) {
		snprintf(why, len,
			 "%ld counters registered after the tasks, %ld expected (setup's %ld, "
			 "-2 for G, +1 for A)",
			 n, p->base - 1, p->base);
		return 1;
	}
	return 0;
}

static void pc_teardown(struct xs_run *r)
{
	struct pc_priv *p = r->priv;

	xs_exit_tasks(r);
	/* destroying a destroyed or never initialised counter is a no-op */
	percpu_counter_destroy_many(p->g, 2);
	percpu_counter_destroy(&p->a);
	percpu_counter_destroy_many(p->h, 2);
}

static struct xscenario percpu_counters = {
    .name = "percpu-counters",
    .summary = "percpu counters initialised, added to, summed and destroyed by two tasks, "
	       "and a group whose last member either may destroy",
    .ntasks = 2,
    .nops = {4, 4},
    .opname = {{"init(A,5)", "add(A,3)+add(G0,1)", "destroy(G0)", "sum(A)"},
	       {"init_many(H,2,1)", "add(H1,2)+sum(H1)", "destroy(G1)", "destroy_many(H)"}},
    .matrix_k = 2,
    .variants =
	{
	    {"", false},
	},
    .priv_size = sizeof(struct pc_priv),
    .setup = pc_setup,
    .op = pc_op,
    .midcheck = pc_midcheck,
    .check = pc_check,
    .teardown = pc_teardown,
    .format = NULL,
};
XSCENARIO(percpu_counters)
