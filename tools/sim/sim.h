/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tools/sim/sim.h - rcuvfs-sim: the model's code on N virtual CPUs in
 * virtual time (engine.c), with a cache-coherence cost model (coherence.c),
 * topologies read from data files (topo.c) and per-segment costs measured on
 * this machine (calib.c).
 *
 * Locking: every simulated task is a host thread, but only the one holding
 * the baton runs (model code or the engine); the engine's state is touched
 * only by the baton holder, and by the driver before the first hand-over and
 * after the run finished.  Each hand-over is a release store of the next
 * task's futex word paired with the acquire load of its wait.
 *
 * Times are integers in picoseconds (int64_t), so that the same input gives
 * the same bytes on every run.
 */
#ifndef RCUVFS_TOOLS_SIM_H
#define RCUVFS_TOOLS_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SIM_MAX_CPUS 256
#define PS_PER_NS    1000

/* ---- topology (topo.c) ------------------------------------------------- */

struct sim_topo {
	char name[128];
	int sockets, cores, threads; /* per socket: cores; per core: threads */
	int ncpus;
	/* latencies in picoseconds */
	int64_t smt_ps;	   /* line transfer between SMT siblings of one core */
	int64_t core_ps;   /* line transfer between two cores of one socket */
	int64_t socket_ps; /* line transfer between sockets */
	int64_t llc_ps;	   /* a line no core holds: from the LLC / memory */
	int64_t atomic_ps; /* a locked RMW holds its line this long */
	int64_t pause_ps;  /* one PAUSE (cpu_relax) */
	int64_t wake_ps;   /* wake_up_process to the woken task running */
	int64_t ctxsw_ps;  /* a context switch */
	int64_t slice_ps;  /* time slice when tasks wait in a run queue */
};
/* Load a .topo file; 0 or -1 with a message on stderr. */
int sim_topo_load(struct sim_topo *t, const char *path);
/* Keep only the first n CPUs (socket by socket, cores before SMT siblings). */
int sim_topo_limit(struct sim_topo *t, int n);
void sim_topo_cpu(const struct sim_topo *t, int cpu, int *socket, int *core);

/* ---- calibration (calib.c) -------------------------------------------- */

struct sim_calib;
/* "uniform:NS" or a file written by --calibrate; NULL and a message on error. */
struct sim_calib *sim_calib_load(const char *spec);
void sim_calib_free(struct sim_calib *c);
/* Cost of the segment from a point at prev to a point at cur (site offsets, kinds). */
int64_t sim_calib_cost(struct sim_calib *c, uint32_t prev, int prev_kind, uint32_t cur,
		       int cur_kind, bool *fallback);
/* Recording (--calibrate): one sample of a segment, in picoseconds. */
struct sim_calib *sim_calib_new_recording(void);
void sim_calib_record(struct sim_calib *c, uint32_t prev, int prev_kind, uint32_t cur, int cur_kind,
		      int64_t ps);
void sim_calib_save_header(FILE *f, const char *header);
/* One workload's section ("workload NAME", its pairs, kinds, default). */
int sim_calib_save(struct sim_calib *c, FILE *f, const char *workload);
/* Charge the segments of this workload's section (none: the file's first). */
void sim_calib_select(struct sim_calib *c, const char *workload);
bool sim_calib_has(const struct sim_calib *c, const char *workload);
/* Subtract, from every later sample of c, the mean segment of null_run (a
 * loop of points with nothing between them). */
void sim_calib_set_null(struct sim_calib *c, const struct sim_calib *null_run);
int64_t sim_calib_null(const struct sim_calib *c);
/* Add the pairs of run (one workload, one task) to c, the costs of its
 * repeated pairs (100 times or more) scaled so that their sum is the thread
 * CPU time of the same ops without points (body_ps): the TSC's step
 * (step_ps) is too coarse for single segments of a few ns, the whole run is
 * not.  Each pair weighs its measured mean plus half a step (a segment
 * shorter than a step reads as 0 or 1 step).  When the rarer pairs alone
 * take more than half of body_ps (samples that caught a preemption), every
 * pair is scaled (*scaled_all). */
void sim_calib_merge_run(struct sim_calib *c, struct sim_calib *run, int64_t body_ps,
			 int64_t step_ps, double *scale, bool *scaled_all);
const char *sim_calib_describe(const struct sim_calib *c);
uint32_t sim_site_offset(const void *site);

/* ---- coherence (coherence.c) ------------------------------------------- */

enum sim_access { SA_NONE = 0, SA_READ, SA_WRITE, SA_RMW };

struct sim_cstats {
	uint64_t hits, transfers, xsocket, smt, llc, waits;
	uint64_t window_hits; /* hits of a CPU whose line was already requested */
	int64_t wait_ps, xfer_ps;
};
void sim_coh_init(const struct sim_topo *t);
void sim_coh_fini(void);
/*
 * CPU `cpu` accesses the line of `addr` at time `now`; returns the time the
 * access completes (>= now: waiting for the line, then the transfer).
 */
int64_t sim_coh_access(int cpu, const void *addr, enum sim_access a, int64_t now);
extern struct sim_cstats sim_cstats;
/* The window the counters cover (set by the engine; all of time when lo = hi = 0). */
extern int64_t sim_window_lo, sim_window_hi;
/* Is the line private to this CPU (no other CPU ever touched it), or is
 * this a read of a line held shared, this CPU among the sharers? */
bool sim_coh_local(int cpu, const void *addr, enum sim_access a, int64_t now);
/*
 * Run-ahead window: a task whose next point accesses a line only its CPU
 * ever touched, reads a line held shared, or touches no line, goes on
 * without a decision while its clock is at most this far beyond the
 * earliest other runnable task's and no runnable task waits to write that
 * line (or to read it, for a write).  Other accesses are always taken in time order; what the
 * window can reorder is the first touch of a line by a second CPU, a write
 * by another CPU to a line this one reads shared, and the model's accesses
 * between points.
 */
#define SIM_LOOKAHEAD_PS 500000

/* ---- the engine (engine.c) --------------------------------------------- */

struct sim_task;
struct sim_cfg {
	const struct sim_topo *topo;
	struct sim_calib *calib;
	int ntasks;
	/* body of task i (its own host thread): runs under the simulator */
	void (*body)(int task, void *arg);
	/* optional: before the run, each task on its own thread, one after
	 * another, no points (attach, init) */
	void (*prologue)(int task, void *arg);
	/* optional: after the run, likewise (fini, exit) */
	void (*epilogue)(int task, void *arg);
	void *arg;
	bool recording;	 /* --calibrate: measure segments instead of charging */
	bool plain;	 /* --calibrate: the bodies without points (no engine) */
	bool progress;	 /* stderr progress line */
	int64_t warm_ps; /* the measured window: idle time, switches, */
	int64_t end_ps;	 /* wake-ups and line traffic count inside it */
};

struct sim_task_stats {
	int64_t clock;
	uint64_t points, vol_switches, invol_switches, wakeups;
	int64_t wake_ps; /* wake-up latency charged */
	int cpu;
};
struct sim_result {
	int status;	/* 0 done, -1 deadlock */
	int64_t end_ps; /* largest task clock */
	uint64_t points, decisions, fallback_segments, switches;
	int64_t idle_ps[SIM_MAX_CPUS];
	int64_t busy_ps[SIM_MAX_CPUS];
	double host_s;
	/* recording: thread CPU time of the bodies (picoseconds) */
	int64_t rec_body_ps;
	int64_t tsc_step_ps; /* recording: two back-to-back TSC reads */
};

int sim_run(const struct sim_cfg *cfg, struct sim_result *res);
/* The calling task's virtual clock (picoseconds); 0 outside a run. */
int64_t sim_now(void);
/* Charge `ps` of work to the calling task (a compute loop, no points). */
void sim_advance(int64_t ps);
/* Index of the calling task, or -1. */
int sim_self(void);
/* Per-task figures of the last run (valid until the next). */
const struct sim_task_stats *sim_task_stats(int task);
/* The unit tests of the engine (selftest.c): 0 passed, 1 failed, 2 no such test. */
int sim_selftest(const char *name);
/* --measure-host A,B (hostmeasure.c): print this machine's latencies. */
int sim_measure_host(const char *cpus);
/* Access classification of a point kind (enum rv_xkind). */
enum sim_access sim_kind_access(int kind);

#endif /* RCUVFS_TOOLS_SIM_H */
