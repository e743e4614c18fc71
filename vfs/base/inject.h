/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/inject.h - injection points (RV_INJECT) for deterministic race tests.
 *
 * Locking: the table of points is under a pthread mutex of the test machinery
 * (inject.c), never a model lock.  A parked thread may hold model locks and
 * be inside an RCU read-side section; whoever releases it must not wait for
 * those locks or for a grace period.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_INJECT_H
#define RCUVFS_VFS_BASE_INJECT_H

#include "vfs/base/compiler.h"

/*
 * RV_INJECT("name") marks a place in model code where a test can install an
 * action.  Unarmed, it costs one load and a predictable branch of a global.
 * Actions (set by tests, looked up by name when the point is hit):
 *   RV_INJ_DELAY      sleep `arg` microseconds
 *   RV_INJ_PAUSE      park until rv_inject_release(name) (tests observe the
 *                     arrival with rv_inject_wait_arrivals)
 *   RV_INJ_WAIT_FOR   park until another thread has arrived at point `other`
 *   RV_INJ_CALLBACK   call fn(arg) in the hitting thread
 * `count` limits how many hits the action applies to (0 = every hit).
 * Arrivals are counted only at points that exist when hit: set a point
 * (a zero delay is enough) before starting threads whose arrival a test
 * waits for.
 * Parking spins/yields on plain atomics: it is legal inside RCU read-side
 * sections as long as the releasing thread does not wait for a grace period.
 */
enum rv_inject_action {
	RV_INJ_NONE = 0,
	RV_INJ_DELAY,
	RV_INJ_PAUSE,
	RV_INJ_WAIT_FOR,
	RV_INJ_CALLBACK,
};
extern int rv_inject_armed;
void rv_inject_hit(const char *name);
#define RV_INJECT(name)                                                                            \
	do {                                                                                       \
		RV_XPOINT(RV_XP_INJECT, 0, (name));                                                \
		if (unlikely(__atomic_load_n(&rv_inject_armed, __ATOMIC_RELAXED)))                 \
			rv_inject_hit(name);                                                       \
	} while (0)
int rv_inject_set_delay(const char *name, unsigned long usec, int count);
int rv_inject_set_pause(const char *name, int count);
int rv_inject_set_wait_for(const char *name, const char *other, int count);
int rv_inject_set_callback(const char *name, void (*fn)(void *), void *arg, int count);
void rv_inject_clear(const char *name);
/* Disarm and forget every point; no thread may be parked at one. */
void rv_inject_clear_all(void);
/* Arrivals at `name` since it was set. */
long rv_inject_arrivals(const char *name);
/* Wait (bounded by timeout_ms; <0 forever) until `n` arrivals; 0 or -ETIMEDOUT. */
int rv_inject_wait_arrivals(const char *name, long n, long timeout_ms);
/* Release threads parked at a PAUSE point (all current and future hits). */
void rv_inject_release(const char *name);

#endif /* RCUVFS_VFS_BASE_INJECT_H */
