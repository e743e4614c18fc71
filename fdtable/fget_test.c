// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fdtable/fget_test.c - fget_ool and fget_norecheck_for_test (testing.h):
 * fget.c's lookup template compiled a second time, with the variants the
 * tests and benchmarks compare, into the test library only.  Including the
 * template keeps the variants on the very code fget runs (same protocol,
 * same slow loop, same injection points) while librcuvfs.a holds fget,
 * fget_raw and __fget_files alone.  Locking: as fget.c.
 */
#define RCUVFS_FGET_VARIANTS 1
#include "fdtable/fget.c"
