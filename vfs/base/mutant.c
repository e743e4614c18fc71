// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/mutant.c - the selection and the hit marker of mutation builds
 * (mutant.h).  Empty in ordinary builds.
 *
 * Locking: rv_mutant_selected is written by a constructor before main();
 * the hit marker is a relaxed flag (creating the file twice is harmless).
 */
#include "vfs/base/base.h"

#if defined(RCUVFS_MUTANT) || defined(RCUVFS_MUTANTS)
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef RCUVFS_MUTANTS
const char *rv_mutant_selected;

__attribute__((constructor)) static void rv_mutant_select(void)
{
	const char *m = getenv("RCUVFS_MUTANT");

	rv_mutant_selected = m && *m ? m : NULL;
}
#endif

static int rv_mutant_marked;

bool rv_mutant_hit(const char *name)
{
	const char *path;

	(void)name;
	if (__atomic_load_n(&rv_mutant_marked, __ATOMIC_RELAXED))
		return true;
	__atomic_store_n(&rv_mutant_marked, 1, __ATOMIC_RELAXED);
	path = getenv("RCUVFS_MUTANT_HIT");
	if (path && *path) {
		int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd >= 0)
			close(fd);
	}
	return true;
}
#else
/* ISO C wants a translation unit to declare something */
extern int rv_mutant_unused;
#endif
