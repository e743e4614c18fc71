/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * locks/testing.h - locks/'s test-only entry points: the invariant checker
 * (locks/check.c) and the explorer's broken-design switch.  They are in the
 * test library (rcuvfs_testing) and the explorer's build, never in
 * librcuvfs.a, and this header is not installed.  Tests and tools that
 * verify include it beside locks/locks.h.
 *
 * Locking: the checkers take no lock; each says when it may run.
 */
#ifndef RCUVFS_LOCKS_TESTING_H
#define RCUVFS_LOCKS_TESTING_H

#include "locks/locks.h"

/*
 * The lock lists' invariants, checked from the outside (as mm_check does for
 * an address space): 0, or -EINVAL with the first violation in why (when
 * len > 0) and every violation (up to a few) on stderr.  Checked:
 *   - each held record: on its context's list and on the global list, no
 *     blocker, a valid type and range; the global lists' counts match;
 *   - flc_posix: each owner's records contiguous, sorted by start, never
 *     overlapping, and no two of one type adjacent or overlapping (Linux's
 *     posix_lock_inode merges them); no two held locks conflict (POSIX
 *     between owners, flock between open files);
 *   - the blocker tree: every waiter's fl_blocker is the held lock or the
 *     waiter it hangs under, and conflicts with it (waiters of a waiter:
 *     __locks_insert_block's rule); a waiter is on blocked_hash, in its
 *     owner's bucket, exactly when its blocker is a POSIX non-OFD lock or
 *     request (mainline __locks_insert_block); nothing else is hashed;
 *     the waiters found equal locks_count_blocked();
 *   - each POSIX/OFD owner is charged exactly the records it holds.
 * Locking: none taken.  Call it at a quiescent point: no task inside a
 * locks/ entry point (deferred requests may be queued); a waiter woken and
 * not yet run keeps its own waiters off the tree, which is not checked.
 */
int locks_check(char *why, size_t len);
/*
 * The same invariants at a point where tasks may be inside locks/ entry
 * points, none of them inside a critical section of the lock lists (no
 * task holds file_lock_lock, blocked_lock_lock, a flc_lock, a shard lock
 * or the BKL): rcuvfs-explore runs it between the critical sections of a
 * schedule.  Two differences from locks_check: a request woken and not
 * yet retried hangs in no tree but keeps its own waiters, which are walked
 * from it (the explorer build registers every request that waits; in the
 * ordinary build they are not found and the count check reports them),
 * and an owner may be charged more records than it holds (charged before
 * insertion, uncharged after removal), never fewer.
 */
int locks_check_live(char *why, size_t len);
#ifdef RCUVFS_EXPLORE
/* locks_move_blocks as first merged for 5.0, without its fix (moved
 * waiters keep a stale fl_blocker); the explorer build only.  Reset by
 * instance creation. */
void locks_move_blocks_unfixed_for_test(bool on);
#endif

#endif /* RCUVFS_LOCKS_TESTING_H */
