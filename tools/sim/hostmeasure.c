// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/sim/hostmeasure.c - `rcuvfs-sim --measure-host CPU_A,CPU_B`: the
 * latencies of this machine that a topology file needs, measured (the
 * source of tools/sim/host-topo.sh's figures):
 *   xfer_ns   half the round trip of a cache line bounced by cmpxchg between
 *             threads pinned to CPU_A and CPU_B (as AnandTech's and Chips and
 *             Cheese's core-to-core tests), the fastest batch of 1000
 *   atomic_ns one uncontended lock cmpxchg (a dependent chain), fastest batch
 *   pause_ns  one PAUSE, fastest batch of 1000
 *   wake_ns   half the round trip of a futex ping-pong between the two CPUs
 *             (wake-up to running, the switch included), fastest batch of 100
 *   ctxsw_ns  half the round trip of a futex ping-pong on CPU_A alone, likewise
 * Fastest batches: on a shared machine the slower ones hold other work.  Prints "key value" lines.
 *
 * Locking: the two measuring threads share only the bounced words.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static uint64_t word __attribute__((aligned(64)));
static uint32_t fword __attribute__((aligned(64)));
#define BOUNCES 200000
#define BATCH	1000
#define FBATCH	100
/* the fastest batch of BATCH round trips: batches in which a thread was
 * preempted (this machine is shared) are slower and left out */
static double batch_t0, batch_best;
#define PINGS 20000

struct arg {
	int cpu, me;
	bool futex;
};

static void *bouncer(void *p)
{
	struct arg *a = p;

	pin(a->cpu);
	if (a->futex) {
		for (int i = 0; i < PINGS; i++) {
			if (a->me == 0 && i % FBATCH == 0)
				batch_t0 = now_ns();
			while (__atomic_load_n(&fword, __ATOMIC_ACQUIRE) != (uint32_t)a->me)
				syscall(SYS_futex, &fword, FUTEX_WAIT_PRIVATE, 1 - a->me, NULL,
					NULL, 0);
			__atomic_store_n(&fword, 1 - a->me, __ATOMIC_RELEASE);
			syscall(SYS_futex, &fword, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
			if (a->me == 0 && i % FBATCH == FBATCH - 1) {
				double v = (now_ns() - batch_t0) / (2.0 * FBATCH);

				if (v < batch_best)
					batch_best = v;
			}
		}
		return NULL;
	}
	for (int i = 0; i < BOUNCES; i++) {
		uint64_t want = (uint64_t)(2 * i + a->me);

		if (a->me == 0 && i % BATCH == 0)
			batch_t0 = now_ns();
		while (!__atomic_compare_exchange_n(&word, &want, want + 1, false, __ATOMIC_ACQ_REL,
						    __ATOMIC_RELAXED))
			want = (uint64_t)(2 * i + a->me);
		if (a->me == 0 && i % BATCH == BATCH - 1) {
			double v = (now_ns() - batch_t0) / (2.0 * BATCH);

			if (v < batch_best)
				batch_best = v;
		}
	}
	return NULL;
}

static double pair(int a, int b, bool futex)
{
	pthread_t t[2];
	struct arg x[2] = {{a, 0, futex}, {b, 1, futex}};
	double t0;

	word = 0;
	fword = 0;
	batch_best = 1e18;
	t0 = now_ns();
	pthread_create(&t[0], NULL, bouncer, &x[0]);
	pthread_create(&t[1], NULL, bouncer, &x[1]);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	(void)t0;
	return batch_best;
}

static double best(int a, int b, bool futex)
{
	double m = 1e18;

	for (int r = 0; r < 5; r++) {
		double v = pair(a, b, futex);

		if (v < m)
			m = v;
	}
	return m;
}

int sim_measure_host(const char *cpus)
{
	int a = 0, b = 1;
	double m;

	if (sscanf(cpus, "%d,%d", &a, &b) != 2 || a < 0 || b < 0) {
		fprintf(stderr, "rcuvfs-sim: --measure-host A,B: two CPU numbers\n");
		return 2;
	}
	if (a != b)
		printf("xfer_ns %.1f\n", best(a, b, false));
	pin(a);
	m = 1e18;
	for (int r = 0; r < 1000; r++) { /* the fastest of 1000 batches */
		uint64_t w = 0;
		double t0 = now_ns();

		for (int i = 0; i < 2000; i++) {
			uint64_t e = w;

			__atomic_compare_exchange_n(&w, &e, e + 1, false, __ATOMIC_SEQ_CST,
						    __ATOMIC_RELAXED);
		}
		t0 = (now_ns() - t0) / 2000;
		if (t0 < m)
			m = t0;
	}
	printf("atomic_ns %.1f\n", m);
	m = 1e18;
	for (int r = 0; r < 1000; r++) {
		double t0 = now_ns();

		for (int i = 0; i < 1000; i++)
			__asm__ __volatile__("pause" ::: "memory");
		t0 = (now_ns() - t0) / 1e3;
		if (t0 < m)
			m = t0;
	}
	printf("pause_ns %.1f\n", m);
	if (a != b)
		printf("wake_ns %.0f\n", best(a, b, true));
	printf("ctxsw_ns %.0f\n", best(a, a, true));
	return 0;
}
