/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_locks_common.h - helpers shared by the locks/ test
 * programs: stand-alone inodes and files (the lock engine only reads
 * f_inode, f_mode, f_pos and i_ino, i_size), fcntl/flock shorthands, and a
 * canonical view of an owner's ranges built from the /proc/locks listing.
 */
#ifndef RCUVFS_TEST_LOCKS_COMMON_H
#define RCUVFS_TEST_LOCKS_COMMON_H

#include "rvtest.h"
#include "locks/locks.h"
#include "locks/testing.h"

#include <stdlib.h>
#include <string.h>

static inline struct inode *tl_inode(uint64_t ino)
{
	struct inode *i = calloc(1, sizeof(*i));

	i->i_ino = ino;
	return i;
}

static inline void tl_inode_free(struct inode *i)
{
	locks_free_lock_context(i);
	free(i);
}

static inline struct file *tl_file(struct inode *i, unsigned int mode)
{
	struct file *f = calloc(1, sizeof(*f));

	f->f_inode = i;
	f->f_mode = mode;
	return f;
}

/* The last fput: drops flock and OFD locks held through f. */
static inline void tl_file_free(struct file *f)
{
	locks_remove_file(f);
	free(f);
}

#define TL_OWNER(n) ((fl_owner_t)(uintptr_t)(0x10000 + (n)*64))

static inline int tl_setlk(struct file *f, unsigned int cmd, int owner, int type, int64_t start,
			   int64_t len)
{
	struct flock l = {
	    .l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};

	return fcntl_setlk(f, cmd, &l, TL_OWNER(owner), owner, NULL);
}

static inline int tl_lock(struct file *f, int owner, int type, int64_t start, int64_t len)
{
	return tl_setlk(f, F_SETLK, owner, type, start, len);
}

/*
 * The ranges `pid` holds on inode `ino` (held locks only, blocked requests
 * excluded), sorted by start, as "W0-9,R10-EOF"; flock locks as "FW"/"FR".
 */
static inline const char *tl_ranges(uint64_t ino, int pid)
{
	static __thread char out[4096];
	struct ent {
		long long start;
		char text[48];
	} ents[256];
	size_t need = locks_format_proc(NULL, 0);
	char *buf = malloc(need + 1), *line, *save = NULL;
	int n = 0;

	locks_format_proc(buf, need + 1);
	out[0] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char kind[16], type[16], end[32];
		int lpid;
		unsigned long long lino;
		long long start;
		char *p = strchr(line, ':');

		if (!p || strstr(line, "->"))
			continue;
		if (sscanf(p + 1, " %15s ADVISORY %15s %d 00:00:%llu %lld %31s", kind, type, &lpid,
			   &lino, &start, end) != 6)
			continue;
		if (lino != ino || lpid != pid || n >= 256)
			continue;
		ents[n].start = start;
		if (!strcmp(kind, "FLOCK"))
			snprintf(ents[n].text, sizeof(ents[n].text), "F%c", type[0]);
		else
			snprintf(ents[n].text, sizeof(ents[n].text), "%s%c%lld-%s",
				 strcmp(kind, "OFDLCK") ? "" : "O", type[0], start, end);
		n++;
	}
	free(buf);
	/* insertion sort by start */
	for (int i = 1; i < n; i++) {
		struct ent e = ents[i];
		int j = i - 1;

		while (j >= 0 && ents[j].start > e.start) {
			ents[j + 1] = ents[j];
			j--;
		}
		ents[j + 1] = e;
	}
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(out, ",");
		strcat(out, ents[i].text);
	}
	return out;
}

#endif
