/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/mutant.h - named mutation sites: RV_MUTANT(name).
 *
 * A mutation site is a plausible bug planted next to the real code, for
 * measuring what the tests and the explorer can find
 * (tests/explore/mutate.sh; the catalogue with each site's description is
 * tests/explore/mutants.txt):
 *
 *     if (!RV_MUTANT(fd_install_no_resize_check) && unlikely(...resize_in_progress))
 *
 * In every ordinary build RV_MUTANT(name) is the constant 0 and the code
 * is the real code.  A build configured with -DRCUVFS_MUTANT=name compiles
 * that one site's mutant in (the condition folds to 1 at compile time);
 * a build configured with -DRCUVFS_MUTANTS=ON (mutate.sh's) compiles every
 * site as a test of the environment variable RCUVFS_MUTANT, read once at
 * its first test, so that one build serves every mutant.  When the selected site
 * runs for the first time in a process and RCUVFS_MUTANT_HIT names a file,
 * that file is created: the script tells "never reached" from "reached
 * and not detected".
 *
 * Locking: the selection is read once (racy first reads agree: getenv).
 */
#ifndef RCUVFS_VFS_BASE_MUTANT_H
#define RCUVFS_VFS_BASE_MUTANT_H

#include <stdbool.h>

#define RV_MUTANT_STR_(x) #x
#define RV_MUTANT_STR(x)  RV_MUTANT_STR_(x)

#if defined(RCUVFS_MUTANT)
/* one site, chosen at compile time */
bool rv_mutant_hit(const char *name);
#define RV_MUTANT(name)                                                                            \
	(__builtin_strcmp(RV_MUTANT_STR(RCUVFS_MUTANT), #name) == 0 && rv_mutant_hit(#name))
#elif defined(RCUVFS_MUTANTS)
/* every site, chosen at run time by $RCUVFS_MUTANT (read at the first test) */
bool rv_mutant_is(const char *name);
bool rv_mutant_hit(const char *name);
#define RV_MUTANT(name) (rv_mutant_is(#name) && rv_mutant_hit(#name))
#else
#define RV_MUTANT(name) 0
#endif

#endif /* RCUVFS_VFS_BASE_MUTANT_H */
