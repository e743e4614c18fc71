// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/sim/coherence.c - the cache-coherence cost model of rcuvfs-sim.
 *
 * One record per 64-byte line that a scheduling point names: the CPU that
 * holds it modified/exclusive (owner), or the set of CPUs that hold it
 * shared, and the time until which the line is busy (in flight to a CPU, or
 * locked by a read-modify-write).  An access by CPU c at time `now`:
 *   read:  a hit if c holds it; else a transfer from the owner (the line
 *          becomes shared by both) or from the nearest sharer; a line no CPU
 *          holds comes from the LLC.
 *   write, RMW: a hit if c owns it (or is its only sharer); else a transfer
 *          from the owner, or an invalidation of every sharer (the farthest
 *          one's latency); c becomes the owner.
 * A transfer waits until the line is free (requests are served in the order
 * they arrive: the engine charges them in virtual-time order), and an RMW
 * keeps it locked for atomic_ps after it arrived (from the other CPUs: the
 * instruction's own cost is in the calibrated segment).  A transfer costs the
 * topology's latency between the two CPUs: SMT siblings, two cores of one
 * socket, or two sockets.  The base cost of the instruction (an L1 hit, the
 * locked instruction itself) is part of the calibrated segment, so a hit
 * costs nothing here.
 *
 * The holder's window.  A transfer from an owner is a round trip: the
 * request goes to the owner (on Intel's mesh through the line's home agent,
 * which forwards it as a snoop), and the data comes back.  The topology's
 * latencies are ping-pong figures (a line bounced between two cores by
 * CAS, or Intel MLC's modified intervention), i.e. that whole round trip.
 * The owner keeps the line, in M state, until the request reaches it: here
 * half of the transfer latency, the request's way and the data's way taken
 * as equally long (a derivation from the topology's own figure, no new
 * parameter).  Until then the owner's own accesses hit, and they are served
 * before the request, which then carries their result; an RMW of the owner
 * hits only if it also completes (atomic_ps) before the request arrives (a
 * real core would delay the snoop until its locked instruction finished;
 * the model does not push back a transfer it has already charged, so it
 * errs on the side of the line leaving).  A locked cmpxchg that fails is
 * still a locked write (Intel SDM vol. 2A, CMPXCHG: "the destination operand
 * receives a write cycle without regard to the result of the comparison",
 * https://www.felixcloutier.com/x86/cmpxchg), so a failed one, an RMW here,
 * leaves its CPU the owner: a retry issued within the window hits, and one
 * delayed by a PAUSE longer than the window finds the line gone.  A request
 * that waited for the line (queued behind an earlier transfer) leaves when
 * the line is free (busy_until), so the holder keeps it for at least its
 * RMW's atomic_ps plus half a transfer after it arrived.  Not modelled: a
 * window for sharers that a write invalidates (their reads miss from the
 * write's request on), and for a line that comes from the LLC.  The engine
 * (choose) runs a task whose access waits only when its line has arrived,
 * so that the model's instructions on a line execute in the order the line
 * serves them, window hits before the request that follows them.
 *
 * Locking: called by the engine's baton holder only.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#define WORDS (SIM_MAX_CPUS / 64)

struct line {
	uintptr_t addr; /* line address + 1 (0: empty slot) */
	int owner;	/* -1: none */
	uint64_t sharers[WORDS];
	int64_t busy_until;
	int busy_cpu;	  /* the CPU the line was last busy for */
	int first_cpu;	  /* the first CPU that touched it */
	bool shared_ever; /* a second CPU touched it */
	/* earlier holders that still have the line: a request to take it was
	 * issued but has not reached them yet (see sim_coh_access) */
	struct held {
		int cpu;
		int64_t until; /* the request reaches it */
	} * held;
	int nheld, capheld;
};

static struct {
	const struct sim_topo *tp;
	struct line *tab;
	size_t cap, used;
	int socket_of[SIM_MAX_CPUS], core_of[SIM_MAX_CPUS];
} C;

struct sim_cstats sim_cstats;
int64_t sim_window_lo, sim_window_hi;
/* the counters below count only accesses inside the window */
static struct sim_cstats discard;
#define sim_cstats (*(in_window ? &sim_cstats : &discard))
static bool in_window;

static void free_held(void)
{
	for (size_t i = 0; C.tab && i < C.cap; i++)
		free(C.tab[i].held);
}

void sim_coh_init(const struct sim_topo *t)
{
	free_held();
	free(C.tab);
	memset(&C, 0, sizeof(C));
	in_window = true;
	memset(&sim_cstats, 0, sizeof(sim_cstats));
	C.tp = t;
	C.cap = 1 << 16;
	C.tab = calloc(C.cap, sizeof(*C.tab));
	for (int c = 0; c < t->ncpus; c++)
		sim_topo_cpu(t, c, &C.socket_of[c], &C.core_of[c]);
}

void sim_coh_fini(void)
{
	free_held();
	free(C.tab);
	C.tab = NULL;
	C.cap = C.used = 0;
}

static size_t hash(uintptr_t a)
{
	a *= 0x9E3779B97F4A7C15ull;
	return (size_t)(a >> 20);
}

static struct line *slot(uintptr_t key)
{
	size_t m = C.cap - 1, i = hash(key) & m;

	while (C.tab[i].addr && C.tab[i].addr != key)
		i = (i + 1) & m;
	return &C.tab[i];
}

static struct line *lookup(const void *addr)
{
	uintptr_t key = ((uintptr_t)addr >> 6) + 1;
	struct line *l;

	if ((C.used + 1) * 2 > C.cap) {
		struct line *old = C.tab;
		size_t ocap = C.cap;

		C.cap *= 2;
		C.tab = calloc(C.cap, sizeof(*C.tab));
		if (!C.tab) {
			fprintf(stderr, "rcuvfs-sim: out of memory (line table)\n");
			exit(1);
		}
		for (size_t i = 0; i < ocap; i++)
			if (old[i].addr)
				*slot(old[i].addr) = old[i];
		free(old);
	}
	l = slot(key);
	if (!l->addr) {
		l->addr = key;
		l->owner = -1;
		l->first_cpu = -1;
		C.used++;
	}
	return l;
}

static int64_t xfer(int a, int b);
static int64_t xfer(int a, int b)
{
	if (a == b)
		return 0;
	if (C.socket_of[a] != C.socket_of[b]) {
		sim_cstats.xsocket++;
		return C.tp->socket_ps;
	}
	if (C.core_of[a] == C.core_of[b]) {
		sim_cstats.smt++;
		return C.tp->smt_ps;
	}
	return C.tp->core_ps;
}

/* Latency without counting (choosing the nearest / farthest sharer). */
static int64_t dist(int a, int b)
{
	if (a == b)
		return 0;
	if (C.socket_of[a] != C.socket_of[b])
		return C.tp->socket_ps;
	if (C.core_of[a] == C.core_of[b])
		return C.tp->smt_ps;
	return C.tp->core_ps;
}

static bool has(const struct line *l, int c)
{
	return l->sharers[c / 64] >> (c % 64) & 1;
}

static void only(struct line *l, int c)
{
	memset(l->sharers, 0, sizeof(l->sharers));
	l->sharers[c / 64] |= 1ull << (c % 64);
}

bool sim_coh_local(int cpu, const void *addr, enum sim_access a, int64_t now)
{
	uintptr_t key = ((uintptr_t)addr >> 6) + 1;
	struct line *l = slot(key);

	(void)now;
	if (!l->addr)
		return false;
	/* a line no other CPU ever touched: a private one */
	if (!l->shared_ever && l->first_cpu == cpu)
		return true;
	/* a read of a line held shared (nobody owns it), this CPU among them */
	return a == SA_READ && l->owner < 0 && has(l, cpu);
}

/* Drop the earlier holders whose request has reached them by `now`. */
static void prune_held(struct line *l, int64_t now)
{
	int k = 0;

	for (int i = 0; i < l->nheld; i++)
		if (l->held[i].until > now)
			l->held[k++] = l->held[i];
	l->nheld = k;
}

/* Does `cpu` still have the line at `now` although another CPU's request
 * for it is on its way?  An RMW must also finish (atomic_ps) before that
 * request arrives. */
static bool still_held(const struct line *l, int cpu, enum sim_access a, int64_t now)
{
	int64_t need = a == SA_RMW ? C.tp->atomic_ps : 0;

	for (int i = 0; i < l->nheld; i++)
		if (l->held[i].cpu == cpu && now + need <= l->held[i].until)
			return true;
	return false;
}

/* `cpu` holds the line until `until`, when another CPU's request reaches it. */
static void add_held(struct line *l, int cpu, int64_t until)
{
	if (l->nheld == l->capheld) {
		int cap = l->capheld ? 2 * l->capheld : 4;
		struct held *h = realloc(l->held, (size_t)cap * sizeof(*h));

		if (!h) {
			fprintf(stderr, "rcuvfs-sim: out of memory (line holders)\n");
			exit(1);
		}
		l->held = h;
		l->capheld = cap;
	}
	l->held[l->nheld].cpu = cpu;
	l->held[l->nheld].until = until;
	l->nheld++;
}

int64_t sim_coh_access(int cpu, const void *addr, enum sim_access a, int64_t now)
{
	struct line *l = lookup(addr);
	int64_t cost = -1;
	int from = -1, prev_owner;

	in_window = sim_window_hi <= sim_window_lo || (now >= sim_window_lo && now < sim_window_hi);

	if (l->nheld) {
		prune_held(l, now);
		if (still_held(l, cpu, a, now)) {
			/* the line has not left this CPU yet: a hit, served
			 * before the request that will take it */
			sim_cstats.hits++;
			sim_cstats.window_hits++;
			return now;
		}
	}
	prev_owner = l->owner;

	if (l->first_cpu < 0)
		l->first_cpu = cpu;
	else if (l->first_cpu != cpu)
		l->shared_ever = true;

	if (a == SA_READ) {
		if (l->owner == cpu || has(l, cpu)) {
			sim_cstats.hits++;
			return now;
		}
		if (l->owner >= 0) {
			from = l->owner;
		} else {
			int64_t best = -1;

			for (int c = 0; c < C.tp->ncpus; c++)
				if (has(l, c) && (best < 0 || dist(cpu, c) < best)) {
					best = dist(cpu, c);
					from = c;
				}
		}
		if (from >= 0) {
			cost = xfer(cpu, from);
			if (l->owner >= 0)
				only(l, l->owner);
			l->owner = -1;
		}
		l->sharers[cpu / 64] |= 1ull << (cpu % 64);
	} else {
		bool sole = true;

		for (int w = 0; w < WORDS; w++)
			if (l->sharers[w] & ~(w == cpu / 64 ? 1ull << (cpu % 64) : 0))
				sole = false;
		if (l->owner == cpu || (l->owner < 0 && has(l, cpu) && sole)) {
			sim_cstats.hits++;
			l->owner = cpu;
			only(l, cpu);
			cost = 0;
		} else if (l->owner >= 0) {
			from = l->owner;
			cost = xfer(cpu, from);
		} else {
			int64_t worst = -1;

			for (int c = 0; c < C.tp->ncpus; c++)
				if (c != cpu && has(l, c) && dist(cpu, c) > worst) {
					worst = dist(cpu, c);
					from = c;
				}
			if (from >= 0)
				cost = xfer(cpu, from);
		}
		l->owner = cpu;
		only(l, cpu);
		if (cost == 0) {
			/* a hit: the line is here, so nobody else's request is in
			 * flight; an RMW keeps it for atomic_ps from the others */
			if (a == SA_RMW) {
				l->busy_until = now + C.tp->atomic_ps;
				l->busy_cpu = cpu;
			}
			return now;
		}
	}
	if (cost < 0) { /* no CPU holds it */
		sim_cstats.llc++;
		cost = C.tp->llc_ps;
	} else {
		sim_cstats.transfers++;
		sim_cstats.xfer_ps += cost;
	}
	{
		int64_t start = now > l->busy_until ? now : l->busy_until;

		if (start > now) {
			sim_cstats.waits++;
			sim_cstats.wait_ps += start - now;
		}
		l->busy_until = start + cost + (a == SA_RMW ? C.tp->atomic_ps : 0);
		l->busy_cpu = cpu;
		/* the owner keeps the line until the request reaches it: half
		 * of the transfer (sharers invalidated by a write get no such
		 * window, nor does a line that comes from the LLC) */
		if (prev_owner >= 0 && prev_owner != cpu)
			add_held(l, prev_owner, start + cost / 2);
		return start + cost;
	}
}
