// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * locks/proc.c - the listing of held locks and their waiters in
 * /proc/locks's format (Linux: fs/locks.c locks_show and
 * lock_get_status), and the counts the stats and leak checks read.
 *
 * Locking: locks_format_proc walks the global list shard by shard; under
 * `global` it holds file_lock_lock for the whole walk, under `bkl` the BKL,
 * under `inode` each shard's lock and, nested inside it, blocked_lock_lock
 * (the order the engine uses: shard lock -> blocked lock), so a held lock
 * and its tree of waiters are seen whole.  It enters and exits like every
 * locks/ entry point (the BKL for bkl_ops=lock).  The counts are atomic
 * loads of counters the engine keeps under its locks: a snapshot, not a
 * consistent view.
 */
#include "locks/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/sysmacros.h>

struct lk_buf {
	char *buf;
	size_t len;
	size_t pos; /* bytes the whole text needs so far */
};

static void __attribute__((format(printf, 2, 3))) lk_printf(struct lk_buf *b, const char *fmt, ...)
{
	va_list ap;
	size_t room = b->pos < b->len ? b->len - b->pos : 0;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? b->buf + b->pos : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->pos += (size_t)n;
}

/* One line in Linux's /proc/locks format (fs/locks.c lock_get_status). */
static void lk_show(struct lk_buf *b, const struct file_lock_context *ctx,
		    const struct file_lock *fl, long id, int level)
{
	pid_t pid = (fl->fl_flags & FL_OFDLCK) ? -1 : fl->fl_pid;

	lk_printf(b, "%ld: ", id);
	if (level)
		lk_printf(b, "%*s-> ", (level > 8 ? 8 : level) - 1, "");
	if (fl->fl_flags & FL_POSIX)
		lk_printf(b, "%s ADVISORY  ", (fl->fl_flags & FL_OFDLCK) ? "OFDLCK" : "POSIX ");
	else
		lk_printf(b, "FLOCK  ADVISORY  ");
	lk_printf(b, "%s ",
		  fl->fl_type == F_WRLCK   ? "WRITE"
		  : fl->fl_type == F_RDLCK ? "READ "
					   : "UNLCK");
	/* fs/locks.c lock_get_status: "%02x:%02x:%lu", MAJOR:MINOR of i_sb->s_dev */
	lk_printf(b, "%d %02x:%02x:%llu ", pid, rv_sb ? major(rv_sb->s_dev) : 0,
		  rv_sb ? minor(rv_sb->s_dev) : 0, ctx ? (unsigned long long)ctx->flc_ino : 0ULL);
	if (fl->fl_flags & FL_POSIX) {
		if (fl->fl_end == OFFSET_MAX)
			lk_printf(b, "%lld EOF\n", (long long)fl->fl_start);
		else
			lk_printf(b, "%lld %lld\n", (long long)fl->fl_start, (long long)fl->fl_end);
	} else {
		lk_printf(b, "0 EOF\n");
	}
}

/* Pre-order walk of the requests blocked behind a held lock. */
static void lk_show_blocked(struct lk_buf *b, struct file_lock *root, long id)
{
	struct file_lock *fl = root;
	int level = 0;

	for (;;) {
		if (!list_empty(&fl->fl_blocked_requests)) {
			fl = list_first_entry(&fl->fl_blocked_requests, struct file_lock,
					      fl_blocked_member);
			level++;
			lk_show(b, root->fl_ctx, fl, id, level);
			continue;
		}
		for (;;) {
			struct file_lock *parent;

			if (fl == root)
				return;
			parent = fl->fl_blocker;
			if (fl->fl_blocked_member.next != &parent->fl_blocked_requests) {
				fl = list_entry(fl->fl_blocked_member.next, struct file_lock,
						fl_blocked_member);
				lk_show(b, root->fl_ctx, fl, id, level);
				break;
			}
			fl = parent;
			level--;
		}
	}
}

size_t locks_format_proc(char *buf, size_t len)
{
	struct lk_buf b = {buf, len, 0};
	long id = 0;

	if (len)
		buf[0] = 0;
	lk_enter();
	if (lk_scheme == FILELOCK_BKL)
		lock_kernel();
	else if (lk_scheme == FILELOCK_GLOBAL)
		spin_lock(&file_lock_lock);
	for (int i = 0; i < LOCK_SHARDS; i++) {
		struct lock_shard *s = &lock_shards[i];
		struct file_lock *fl;

		if (lk_scheme == FILELOCK_INODE) {
			spin_lock(&s->lock);
			spin_lock(&blocked_lock_lock);
		}
		list_for_each_entry(fl, &s->list, fl_link) {
			lk_show(&b, fl->fl_ctx, fl, ++id, 0);
			lk_show_blocked(&b, fl, id);
		}
		if (lk_scheme == FILELOCK_INODE) {
			spin_unlock(&blocked_lock_lock);
			spin_unlock(&s->lock);
		}
	}
	if (lk_scheme == FILELOCK_BKL)
		unlock_kernel();
	else if (lk_scheme == FILELOCK_GLOBAL)
		spin_unlock(&file_lock_lock);
	lk_exit();
	return b.pos;
}

long locks_count_held(void)
{
	long n = 0;

	for (int i = 0; i < LOCK_SHARDS; i++)
		n += __atomic_load_n(&lock_shards[i].nr, __ATOMIC_RELAXED);
	return n;
}

long locks_count_blocked(void)
{
	return __atomic_load_n(&nr_blocked, __ATOMIC_RELAXED);
}

long locks_count_contexts(void)
{
	return __atomic_load_n(&lk_nr_ctx, __ATOMIC_RELAXED);
}

int locks_scheme(void)
{
	return lk_scheme;
}
