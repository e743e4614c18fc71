/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdtable/testing.h - fdtable/'s test-only entry points: in the test
 * library (rcuvfs_testing) and the explorer's build, never in librcuvfs.a
 * and never installed.  Tests and benchmarks include it beside
 * fdtable/fdtable.h.
 *
 * Both are fget (fget.c's template, compiled a second time by
 * fdtable/fget_test.c) in a design the tests and benchmarks compare with
 * the model's: same locking as fget (rcu_read_lock only).
 */
#ifndef RCUVFS_FDTABLE_TESTING_H
#define RCUVFS_FDTABLE_TESTING_H

#include "fdtable/fdtable.h"

/* fget whose __get_file_rcu is an out-of-line call (the regression). */
struct file *fget_ool(unsigned int fd);
/* fget without the slot reload (the broken design). */
struct file *fget_norecheck_for_test(unsigned int fd);

#endif /* RCUVFS_FDTABLE_TESTING_H */
