// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/sim/selftest.c - unit tests of the engine and its cost model
 * (`rcuvfs-sim --selftest NAME`, CTest sim.selftest.*).  Each one checks a
 * figure the model must produce exactly, from a topology built here with
 * round latencies (no file, no calibration file), so that none can pass by
 * accident:
 *   pingpong  two CPUs of one socket RMW one line in turn, 30 ns apart
 *             (longer than the holder's window): every access but the
 *             first is a transfer (core latency), none a hit;
 *   private   the same with one line each: every access but the first is a
 *             hit, and the run takes exactly its segments plus one LLC fill;
 *   fifo      a FIFO hand-off semaphore, 8 tasks on 2 CPUs: CPUs go idle,
 *             every acquisition that slept cost one wake-up latency, and
 *             doubling the wake-up latency lengthens the run by that many
 *             latencies; a stealing semaphore sleeps far less;
 *   percpu    two CPUs add to one percpu_counter: each adds to its own
 *             row (rv_this_cpu is the virtual CPU, the rows are sized for
 *             the simulated CPUs), so every access but the first of each
 *             CPU is a hit, none a transfer, and the sum reads both rows;
 *   window    the coherence model alone: a line requested by another CPU
 *             stays with its owner until the request reaches it (half the
 *             transfer), the owner's accesses until then hit;
 *   retry     two CPUs in lockref-style cmpxchg loops: without a PAUSE
 *             every retry after a failed cmpxchg hits and succeeds, with a
 *             PAUSE longer than the window none hits.
 *
 * Locking: the tests run the engine from the driver thread, one at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "vfs/base/base.h"

#define K 1000

static struct sim_topo test_topo(int ncpus)
{
	struct sim_topo t;

	memset(&t, 0, sizeof(t));
	snprintf(t.name, sizeof(t.name), "selftest");
	t.sockets = 2;
	t.cores = 4;
	t.threads = 2;
	t.ncpus = ncpus;
	t.smt_ps = 20000;
	t.core_ps = 50000;
	t.socket_ps = 120000;
	t.llc_ps = 80000;
	t.atomic_ps = 5000;
	t.pause_ps = 40000;
	t.wake_ps = 10000000; /* 10 us */
	t.ctxsw_ps = 2000000;
	t.slice_ps = 3000000000;
	return t;
}

static char lines[2][128] __attribute__((aligned(64)));

static void body_shared(int task, void *arg)
{
	(void)task;
	(void)arg;
	for (int i = 0; i < K; i++)
		rv_xpoint(RV_XP_ATOMIC, lines[0], NULL, NULL);
}

static void body_private(int task, void *arg)
{
	(void)arg;
	for (int i = 0; i < K; i++)
		rv_xpoint(RV_XP_ATOMIC, lines[task], NULL, NULL);
}

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "selftest %s: FAILED: ", name);                            \
			fprintf(stderr, __VA_ARGS__);                                              \
			fprintf(stderr, "\n");                                                     \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

static int run_lines_seg(const char *name, const char *seg, void (*body)(int, void *),
			 struct sim_result *res)
{
	struct sim_topo t = test_topo(2);
	struct sim_calib *cal = sim_calib_load(seg);
	struct sim_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.topo = &t;
	cfg.calib = cal;
	cfg.ntasks = 2;
	cfg.body = body;
	CHECK(sim_run(&cfg, res) == 0 && res->status == 0, "the run did not finish");
	sim_calib_free(cal);
	return 0;
}

static int run_lines(const char *name, void (*body)(int, void *), struct sim_result *res)
{
	return run_lines_seg(name, "uniform:10", body, res);
}

static int t_pingpong(void)
{
	const char *name = "pingpong";
	struct sim_result res;

	/* 30 ns between two RMWs of a CPU: longer than the 25 ns a request
	 * takes to reach the holder, so each CPU's next RMW finds the line
	 * gone (see "window" for shorter ones) */
	if (run_lines_seg(name, "uniform:30", body_shared, &res))
		return 1;
	printf("pingpong: %llu accesses, %llu transfers, %llu hits, %llu LLC, %.1f ns\n", 2ull * K,
	       (unsigned long long)sim_cstats.transfers, (unsigned long long)sim_cstats.hits,
	       (unsigned long long)sim_cstats.llc, res.end_ps / 1e3);
	CHECK(sim_cstats.llc == 1, "%llu LLC fills, want 1", (unsigned long long)sim_cstats.llc);
	CHECK(sim_cstats.transfers == 2 * K - 1, "%llu transfers, want %d",
	      (unsigned long long)sim_cstats.transfers, 2 * K - 1);
	CHECK(sim_cstats.hits == 0, "%llu hits, want 0", (unsigned long long)sim_cstats.hits);
	CHECK(sim_cstats.xsocket == 0 && sim_cstats.smt == 0,
	      "CPUs 0 and 1 are two cores of one socket");
	/* serialised on the line: each transfer plus the atomic's hold */
	CHECK(res.end_ps >= (2 * K - 1) * (50000 + 5000), "%lld ps is less than the transfers",
	      (long long)res.end_ps);
	return 0;
}

static int t_private(void)
{
	const char *name = "private";
	struct sim_result res;

	if (run_lines(name, body_private, &res))
		return 1;
	printf("private: %llu accesses, %llu transfers, %llu hits, %llu LLC, %.1f ns\n", 2ull * K,
	       (unsigned long long)sim_cstats.transfers, (unsigned long long)sim_cstats.hits,
	       (unsigned long long)sim_cstats.llc, res.end_ps / 1e3);
	CHECK(sim_cstats.transfers == 0, "%llu transfers, want 0",
	      (unsigned long long)sim_cstats.transfers);
	CHECK(sim_cstats.llc == 2, "%llu LLC fills, want 2", (unsigned long long)sim_cstats.llc);
	CHECK(sim_cstats.hits == 2 * (K - 1), "%llu hits, want %d",
	      (unsigned long long)sim_cstats.hits, 2 * (K - 1));
	/* K segments before the points and one after the last, one LLC fill */
	CHECK(res.end_ps == (K + 1) * 10000 + 80000, "%lld ps, want %d", (long long)res.end_ps,
	      (K + 1) * 10000 + 80000);
	return 0;
}

/*
 * window: the coherence model alone, times in ps.  CPU 0 takes a line (an
 * LLC fill, 0 -> 80 ns, the RMW holds it to 85 ns); CPU 1 (a core of the
 * same socket, 50 ns) asks for it at 90 ns: the line arrives at 140 ns, and
 * the request reaches CPU 0 at 90 + 50/2 = 115 ns.  Until then CPU 0 still
 * has the line: its RMW at 100 ns (done by 105) and its read at 110 ns are
 * hits; its RMW at 111 ns would end after 115 and queues behind CPU 1's
 * transfer (from 145 ns, the line busy to 140 + 5, to 195 ns).  CPU 1 then
 * holds it until CPU 0's request reaches it, 145 + 25 = 170 ns: its RMW at
 * 165 ns hits, at 166 ns it queues (busy to 195 + 5, arrives 250 ns).  A CPU
 * of the other socket (120 ns) leaves the holder 60 ns.
 */
static int t_window(void)
{
	const char *name = "window";
	struct sim_topo t = test_topo(5);
	static char ln[2][64] __attribute__((aligned(64)));
	int64_t r;

	sim_window_lo = sim_window_hi = 0;
	sim_coh_init(&t);
#define ACCESS(cpu, line, a, at, want)                                                             \
	do {                                                                                       \
		r = sim_coh_access(cpu, ln[line], a, (at)*1000);                                   \
		CHECK(r == (want)*1000, "CPU %d, %s at %d ns: done at %.1f ns, want %d", cpu, #a,  \
		      at, r / 1e3, want);                                                          \
	} while (0)
	ACCESS(0, 0, SA_RMW, 0, 80);
	ACCESS(1, 0, SA_RMW, 90, 140);
	ACCESS(0, 0, SA_RMW, 100, 100);
	ACCESS(0, 0, SA_READ, 110, 110);
	ACCESS(0, 0, SA_RMW, 111, 195);
	ACCESS(1, 0, SA_RMW, 165, 165);
	ACCESS(1, 0, SA_RMW, 166, 250);
	/* the other socket: the request reaches CPU 0 at 90 + 120/2 = 150 ns */
	ACCESS(0, 1, SA_RMW, 0, 80);
	ACCESS(4, 1, SA_RMW, 90, 210);
	ACCESS(0, 1, SA_RMW, 145, 145);
	ACCESS(0, 1, SA_RMW, 146, 335);
#undef ACCESS
	printf("window: %llu hits (%llu while the line was requested), %llu transfers\n",
	       (unsigned long long)sim_cstats.hits, (unsigned long long)sim_cstats.window_hits,
	       (unsigned long long)sim_cstats.transfers);
	CHECK(sim_cstats.window_hits == 4, "%llu window hits, want 4",
	      (unsigned long long)sim_cstats.window_hits);
	sim_coh_fini();
	return 0;
}

/*
 * retry: two CPUs of one socket increment one word with a lockref-style
 * loop (a load, then cmpxchg until it succeeds), 10 ns between points.  A
 * failed cmpxchg leaves its CPU holding the line for at least the RMW's
 * 5 ns plus the 25 ns the other CPU's request takes to reach it; without a
 * PAUSE the retry comes 10 ns later, so it is a hit and succeeds (nobody
 * else had the line).  With a PAUSE (40 ns) the retry comes 60 ns after the
 * line arrived, after the request reached it: the line has moved, and the
 * retry is a transfer (retries counted while the other CPU still runs its
 * loop: once it is done nobody asks for the line).
 */
static uint64_t cas_word __attribute__((aligned(64)));
static struct {
	uint64_t retries, retry_hits, retry_fails;
	bool done;
} cas_st[2];

static void body_cas(int task, void *arg)
{
	bool relax = *(bool *)arg;

	for (int i = 0; i < K; i++) {
		uint64_t old;
		int tries = 0;

		rv_xpoint(RV_XP_LOAD, &cas_word, NULL, NULL);
		old = __atomic_load_n(&cas_word, __ATOMIC_RELAXED);
		for (;;) {
			int64_t t0 = sim_now();

			rv_xpoint(RV_XP_LOCKREF, &cas_word, NULL, NULL);
			if (tries > 0 && !cas_st[!task].done) { /* the other CPU still runs */
				cas_st[task].retries++;
				/* the segment alone: the line was here */
				cas_st[task].retry_hits += sim_now() - t0 == 10000;
				cas_st[task].retry_fails += tries > 1;
			}
			if (__atomic_compare_exchange_n(&cas_word, &old, old + 1, false,
							__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
				break;
			tries++;
			if (relax)
				cpu_relax();
		}
	}
	cas_st[task].done = true;
}

static int run_cas(const char *name, bool relax, uint64_t *retries, uint64_t *hits, uint64_t *fails)
{
	struct sim_topo t = test_topo(2);
	struct sim_calib *cal = sim_calib_load("uniform:10");
	struct sim_cfg cfg;
	struct sim_result res;

	cas_word = 0;
	memset(cas_st, 0, sizeof(cas_st));
	memset(&cfg, 0, sizeof(cfg));
	cfg.topo = &t;
	cfg.calib = cal;
	cfg.ntasks = 2;
	cfg.body = body_cas;
	cfg.arg = &relax;
	CHECK(sim_run(&cfg, &res) == 0 && res.status == 0, "the run did not finish");
	sim_calib_free(cal);
	CHECK(cas_word == 2 * K, "the word is %llu, want %d", (unsigned long long)cas_word, 2 * K);
	*retries = cas_st[0].retries + cas_st[1].retries;
	*hits = cas_st[0].retry_hits + cas_st[1].retry_hits;
	*fails = cas_st[0].retry_fails + cas_st[1].retry_fails;
	printf("retry %s: %llu retries, %llu of them hits, %llu failed again; %llu window hits, "
	       "%.1f us\n",
	       relax ? "with PAUSE" : "no PAUSE", (unsigned long long)*retries,
	       (unsigned long long)*hits, (unsigned long long)*fails,
	       (unsigned long long)sim_cstats.window_hits, res.end_ps / 1e6);
	return 0;
}

static int t_retry(void)
{
	const char *name = "retry";
	uint64_t r0, h0, f0, r1, h1, f1;

	if (run_cas(name, false, &r0, &h0, &f0) || run_cas(name, true, &r1, &h1, &f1))
		return 1;
	CHECK(r0 > 0 && r1 > 0, "no cmpxchg failed (%llu, %llu retries): no race",
	      (unsigned long long)r0, (unsigned long long)r1);
	CHECK(h0 == r0 && f0 == 0,
	      "no PAUSE: %llu of %llu retries hit, %llu failed again; want every retry a "
	      "hit that succeeds",
	      (unsigned long long)h0, (unsigned long long)r0, (unsigned long long)f0);
	CHECK(h1 == 0, "with PAUSE: %llu of %llu retries hit, want none (the line moved)",
	      (unsigned long long)h1, (unsigned long long)r1);
	return 0;
}

static struct semaphore sem;
#define ROUNDS 50

static void body_sem(int task, void *arg)
{
	(void)task;
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		down(&sem);
		sim_advance(1000000); /* 1 us inside */
		up(&sem);
		sim_advance(2000000); /* 2 us outside */
	}
}

static bool attached[8];

/* prologue: attach task i; epilogue: its exit */
static void attach_or_exit(int i, void *arg)
{
	struct task_struct **tasks = arg;

	if (!attached[i]) {
		task_attach(tasks[i]);
		attached[i] = true;
	} else {
		task_exit(tasks[i]);
		attached[i] = false;
	}
}

struct semres {
	int64_t end, idle;
	uint64_t wakeups, vol, sleeps, handoffs;
};

static int run_sem(const char *name, bool steal, int64_t wake_ps, struct semres *r)
{
	struct sim_topo t = test_topo(2);
	struct sim_calib *cal = sim_calib_load("uniform:10");
	struct sim_cfg cfg;
	struct sim_result res;
	struct task_struct *parent;
	struct task_struct *tasks[8];
	struct rv_switches sw;

	t.wake_ps = wake_ps;
	rv_switches_default(&sw);
	CHECK(rv_instance_create(&sw) == 0, "rv_instance_create");
	parent = task_create_process("selftest");
	task_attach(parent);
	for (int i = 0; i < 8; i++)
		tasks[i] = task_clone_thread(parent);
	if (steal)
		sema_init_steal(&sem, 1);
	else
		sema_init_fifo(&sem, 1);
	memset(&cfg, 0, sizeof(cfg));
	cfg.topo = &t;
	cfg.calib = cal;
	cfg.ntasks = 8;
	cfg.body = body_sem;
	cfg.arg = tasks;
	cfg.prologue = attach_or_exit;
	cfg.epilogue = attach_or_exit;
	CHECK(sim_run(&cfg, &res) == 0 && res.status == 0, "the run did not finish");
	memset(r, 0, sizeof(*r));
	r->end = res.end_ps;
	for (int c = 0; c < 2; c++)
		r->idle += res.idle_ps[c];
	for (int i = 0; i < 8; i++) {
		r->wakeups += sim_task_stats(i)->wakeups;
		r->vol += sim_task_stats(i)->vol_switches;
	}
	r->sleeps = sem.sleeps;
	r->handoffs = sem.handoffs;
	task_exit(parent);
	CHECK(rv_instance_destroy() == 0, "rv_instance_destroy");
	sim_calib_free(cal);
	printf("%s %s wake %.0f us: %.1f us, idle %.1f%%, %llu wake-ups, %llu sleeps, %llu "
	       "hand-offs of %d acquisitions\n",
	       name, steal ? "steal" : "fifo", wake_ps / 1e6, r->end / 1e6,
	       100.0 * (double)r->idle / (2.0 * (double)r->end), (unsigned long long)r->wakeups,
	       (unsigned long long)r->sleeps, (unsigned long long)r->handoffs, 8 * ROUNDS);
	return 0;
}

static int t_fifo(void)
{
	const char *name = "fifo";
	struct semres a, b, s;

	if (run_sem(name, false, 10000000, &a) || run_sem(name, false, 20000000, &b) ||
	    run_sem(name, true, 10000000, &s))
		return 1;
	CHECK(a.idle > 0, "no idle time with a FIFO hand-off");
	CHECK(a.handoffs > 8 * ROUNDS / 2, "%llu hand-offs of %d acquisitions",
	      (unsigned long long)a.handoffs, 8 * ROUNDS);
	/* each hand-off woke one sleeper: one wake-up latency per such acquisition */
	CHECK(a.wakeups == a.handoffs, "%llu wake-ups for %llu hand-offs",
	      (unsigned long long)a.wakeups, (unsigned long long)a.handoffs);
	CHECK(a.vol == a.sleeps, "%llu voluntary switches for %llu sleeps",
	      (unsigned long long)a.vol, (unsigned long long)a.sleeps);
	/* the hand-offs are serial: +10 us of wake-up each lengthens the run as much */
	{
		double grow = (double)(b.end - a.end), want = (double)a.handoffs * 10e6;

		CHECK(grow > 0.9 * want && grow < 1.1 * want,
		      "doubling the wake-up latency added %.0f us, want ~%.0f us", grow / 1e6,
		      want / 1e6);
	}
	CHECK(s.wakeups * 4 < a.wakeups && s.end * 2 < a.end,
	      "stealing: %llu wake-ups, %.1f us (FIFO %llu, %.1f us)",
	      (unsigned long long)s.wakeups, s.end / 1e6, (unsigned long long)a.wakeups,
	      a.end / 1e6);
	return 0;
}

static struct percpu_counter pcpu;

static void body_percpu(int task, void *arg)
{
	(void)task;
	(void)arg;
	for (int i = 0; i < K; i++)
		percpu_counter_add(&pcpu, 1);
}

static int t_percpu(void)
{
	const char *name = "percpu";
	struct sim_result res;
	int stride;

	rv_set_nr_cpu_ids(4); /* the simulated machine's: more than this host's 2 */
	CHECK(percpu_counter_init(&pcpu, 0) == 0, "percpu_counter_init");
	if (run_lines(name, body_percpu, &res))
		return 1;
	stride = (int)(64 / sizeof(int64_t));
	printf("percpu: %llu adds, %llu transfers, %llu hits, %llu LLC; rows %lld %lld %lld "
	       "%lld\n",
	       2ull * K, (unsigned long long)sim_cstats.transfers,
	       (unsigned long long)sim_cstats.hits, (unsigned long long)sim_cstats.llc,
	       (long long)pcpu.counters[0], (long long)pcpu.counters[stride],
	       (long long)pcpu.counters[2 * stride], (long long)pcpu.counters[3 * stride]);
	CHECK(pcpu.nr == 4, "%d rows, want 4 (the simulated CPUs)", pcpu.nr);
	CHECK(pcpu.counters[0] == K && pcpu.counters[stride] == K,
	      "rows 0 and 1 hold %lld and %lld, want %d each (one row per virtual CPU)",
	      (long long)pcpu.counters[0], (long long)pcpu.counters[stride], K);
	CHECK(sim_cstats.transfers == 0, "%llu transfers, want 0",
	      (unsigned long long)sim_cstats.transfers);
	CHECK(sim_cstats.llc == 2, "%llu LLC fills, want 2", (unsigned long long)sim_cstats.llc);
	CHECK(sim_cstats.hits == 2 * (K - 1), "%llu hits, want %d",
	      (unsigned long long)sim_cstats.hits, 2 * (K - 1));
	CHECK(percpu_counter_sum(&pcpu) == 2 * K, "sum %lld, want %d",
	      (long long)percpu_counter_sum(&pcpu), 2 * K);
	percpu_counter_destroy(&pcpu);
	rv_set_nr_cpu_ids(0);
	return 0;
}

int sim_selftest(const char *which)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} tests[] = {{"pingpong", t_pingpong}, {"private", t_private}, {"fifo", t_fifo},
		     {"percpu", t_percpu},     {"window", t_window},   {"retry", t_retry}};
	int failed = 0, ran = 0;

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (strcmp(which, "all") && strcmp(which, tests[i].name))
			continue;
		ran++;
		if (tests[i].fn())
			failed++;
		else
			printf("selftest %s: ok\n", tests[i].name);
	}
	if (!ran) {
		fprintf(stderr,
			"rcuvfs-sim: --selftest %s: no such test (pingpong, private, "
			"fifo, percpu, window, retry, all)\n",
			which);
		return 2;
	}
	return failed ? 1 : 0;
}
