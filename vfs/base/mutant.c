// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/mutant.c - the selection and the hit marker of mutation builds
 * (mutant.h).  Empty in ordinary builds.
 *
 * Locking: the selection is read from the environment at the first test
 * (threads racing there read the same value); the hit marker is a relaxed flag (creating the file
 * twice is harmless).
 */
#include "vfs/base/base.h"

#if defined(RCUVFS_MUTANT) || defined(RCUVFS_MUTANTS)
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef RCUVFS_MUTANTS
static const char *rv_mutant_selected;
static int rv_mutant_read; /* atomic: rv_mutant_selected was read */

bool rv_mutant_is(const char *name)
{
	if (!__atomic_load_n(&rv_mutant_read, __ATOMIC_ACQUIRE)) {
		const char *m = getenv("RCUVFS_MUTANT");

		rv_mutant_selected = m && *m ? m : NULL;
		__atomic_store_n(&rv_mutant_read, 1, __ATOMIC_RELEASE);
	}
	return rv_mutant_selected && !strcmp(rv_mutant_selected, name);
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
