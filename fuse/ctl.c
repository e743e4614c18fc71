// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuse/ctl.c - the control directory /.rcuvfs/ at the mount root.
 *
 *   config    the switches in force and the daemon's settings, name=value
 *   stats     every counter and gauge of the stats registry, "name value"
 *   stats-help  the same names with what each counts, "name kind help"
 *   slabinfo  the model's kmem_caches (/proc/slabinfo-like)
 *   locks     the model's file locks (/proc/locks format)
 *
 * The directory is not listed by readdir of the root (a reserved name, so an
 * `ls -a` of an empty mount matches an empty tmpfs) but can be looked up and
 * listed.  Files are read-only and opened direct_io: the text is rendered
 * once, at open, into a snapshot that fh names, so a reader sees one
 * consistent state however it splits its reads; st_size is 0 as in /proc.
 * fh is a snapshot id, never a pointer: an unknown or stale fh is EBADF, and
 * snapshots whose RELEASE never came (unmount races the kernel's
 * asynchronous release) are freed by rvf_ctl_teardown.
 * Creating, renaming or removing in the directory (or the directory itself)
 * gives EPERM, opening a file for writing EACCES, setattr EPERM.
 *
 * Locking: snap_lock (a pthread mutex) protects the list of open snapshots
 * and is held while a read copies out of one; renderers run unlocked and
 * call the registries' own formatters, which take their locks.
 */
#include "fuse/daemon.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct rvf_ctl_file {
	fuse_ino_t ino;
	const char *name;
};

static const struct rvf_ctl_file rvf_ctl_files[] = {
    {RVF_INO_CTL_CONFIG, "config"},	    {RVF_INO_CTL_STATS, "stats"},
    {RVF_INO_CTL_SLABINFO, "slabinfo"},	    {RVF_INO_CTL_LOCKS, "locks"},
    {RVF_INO_CTL_STATS_HELP, "stats-help"},
};

struct rvf_snapshot {
	struct list_head list; /* on snaps, under snap_lock */
	uint64_t id;	       /* the fh */
	size_t len;
	char text[];
};

static pthread_mutex_t snap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list_head snaps = LIST_HEAD_INIT(snaps);
static uint64_t snap_next_id = 1; /* under snap_lock */

/* Caller holds snap_lock. */
static struct rvf_snapshot *snap_find(uint64_t id)
{
	struct list_head *p;

	for (p = snaps.next; p != &snaps; p = p->next) {
		struct rvf_snapshot *s = list_entry(p, struct rvf_snapshot, list);

		if (s->id == id)
			return s;
	}
	return NULL;
}

void rvf_ctl_teardown(void)
{
	pthread_mutex_lock(&snap_lock);
	while (!list_empty(&snaps)) {
		struct rvf_snapshot *s = list_entry(snaps.next, struct rvf_snapshot, list);

		list_del_init(&s->list);
		free(s);
	}
	pthread_mutex_unlock(&snap_lock);
}

/* A growable text buffer for the renderers. */
struct rvf_text {
	char *buf;
	size_t len, cap;
};

static void text_reserve(struct rvf_text *t, size_t more)
{
	size_t want = t->len + more + 1;
	char *nb;

	if (want <= t->cap)
		return;
	if (want < 2 * t->cap)
		want = 2 * t->cap;
	nb = realloc(t->buf, want);
	if (!nb) {
		fprintf(stderr, "rcuvfs: out of memory rendering a control file\n");
		abort();
	}
	t->buf = nb;
	t->cap = want;
}

static __attribute__((format(printf, 2, 3))) void text_printf(struct rvf_text *t, const char *fmt,
							      ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	text_reserve(t, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

/* Append the output of a "returns bytes needed, like snprintf" formatter. */
static void text_format(struct rvf_text *t, size_t (*fmt)(char *, size_t))
{
	size_t need;

	for (;;) {
		need = fmt(t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0);
		if (t->buf && need < t->cap - t->len)
			break;
		text_reserve(t, need + 1);
	}
	t->len += need;
}

static size_t fmt_stats(char *buf, size_t len)
{
	return rv_stats_format_text(buf, len);
}

static size_t fmt_slabinfo(char *buf, size_t len)
{
	size_t n = kmem_cache_format_slabinfo(buf, len);

	return n;
}

/* The switches the mount accepts (rvf_switch_acts), name=value. */
static void text_switches(struct rvf_text *t)
{
	for (int i = 0; rv_switch_name(i); i++) {
		const char *name = rv_switch_name(i);
		char v[256];

		if (!rvf_switch_acts(name))
			continue;
		rv_switch_format(&rv_sw, name, v, sizeof(v));
		text_printf(t, "%s=%s\n", name, v);
	}
}

/* The stats registry's glossary (rv_stats_doc), through a memory stream. */
static void text_stats_help(struct rvf_text *t)
{
	char *doc = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&doc, &n);

	if (!f)
		return;
	rv_stats_doc(f, RV_DOC_TEXT);
	fclose(f);
	if (doc)
		text_printf(t, "%s", doc);
	free(doc);
}

char *rvf_ctl_render(fuse_ino_t ino, size_t *len)
{
	struct rvf_text t = {NULL, 0, 0};
	const struct rvf_config *cfg = &rvf.cfg;

	text_reserve(&t, 4096);
	t.buf[0] = '\0';
	switch (ino) {
	case RVF_INO_CTL_CONFIG:
		text_switches(&t);
		text_printf(&t, "attr_timeout=%g\nentry_timeout=%g\n", cfg->attr_timeout,
			    cfg->entry_timeout);
		text_printf(&t, "apps=%d\nwriteback_cache=%d\n", cfg->apps, rvf_writeback_cache);
		text_printf(&t, "max_threads=%u\nmax_idle_threads=%u\n", cfg->max_threads,
			    cfg->max_idle_threads);
		text_printf(&t, "clone_fd=%d\nsingle_thread=%d\n", cfg->clone_fd,
			    cfg->singlethread);
		text_printf(&t, "default_permissions=1\nrcu_membarrier=%d\nversion=%s\n",
			    rv_rcu_has_membarrier() ? 1 : 0, RCUVFS_VERSION);
		break;
	case RVF_INO_CTL_STATS:
		text_format(&t, fmt_stats);
		break;
	case RVF_INO_CTL_SLABINFO:
		text_format(&t, fmt_slabinfo);
		break;
	case RVF_INO_CTL_LOCKS:
		text_format(&t, rvf_locks_format);
		break;
	case RVF_INO_CTL_STATS_HELP:
		text_stats_help(&t);
		break;
	default:
		free(t.buf);
		return NULL;
	}
	*len = t.len;
	return t.buf;
}

static void ctl_fill_attr(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = 0;
	st->st_gid = 0;
	st->st_blksize = 4096;
	if (ino == RVF_INO_CTL_DIR) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
	}
}

int rvf_ctl_getattr(fuse_ino_t ino, struct stat *st)
{
	if (!rvf_ino_is_ctl(ino))
		return -ENOENT;
	ctl_fill_attr(ino, st);
	return 0;
}

int rvf_ctl_lookup(fuse_ino_t parent, const char *name, struct fuse_entry_param *e)
{
	size_t i;

	memset(e, 0, sizeof(*e));
	if (parent == FUSE_ROOT_ID && !strcmp(name, RVF_CTL_NAME)) {
		e->ino = RVF_INO_CTL_DIR;
	} else if (parent == RVF_INO_CTL_DIR) {
		for (i = 0; i < ARRAY_SIZE(rvf_ctl_files); i++)
			if (!strcmp(name, rvf_ctl_files[i].name))
				e->ino = rvf_ctl_files[i].ino;
		if (!e->ino)
			return -ENOENT;
	} else {
		return -ENOTDIR;
	}
	e->generation = 1;
	ctl_fill_attr(e->ino, &e->attr);
	/* fixed objects: the kernel may cache them (no lookup counts needed) */
	e->attr_timeout = 0;
	e->entry_timeout = 0;
	return 0;
}

int rvf_ctl_open(fuse_ino_t ino, int flags, uint64_t *fh)
{
	struct rvf_snapshot *snap;
	size_t len;
	char *text;

	if (ino == RVF_INO_CTL_DIR) {
		*fh = 0;
		return (flags & O_ACCMODE) == O_RDONLY ? 0 : -EISDIR;
	}
	if (!rvf_ino_is_ctl(ino))
		return -ENOENT;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC))
		return -EACCES;
	text = rvf_ctl_render(ino, &len);
	if (!text)
		return -ENOENT;
	snap = malloc(sizeof(*snap) + len + 1);
	if (!snap) {
		free(text);
		return -ENOMEM;
	}
	snap->len = len;
	memcpy(snap->text, text, len + 1);
	free(text);
	pthread_mutex_lock(&snap_lock);
	snap->id = snap_next_id++;
	list_add(&snap->list, &snaps);
	*fh = snap->id;
	pthread_mutex_unlock(&snap_lock);
	return 0;
}

ssize_t rvf_ctl_read(fuse_ino_t ino, uint64_t fh, char *buf, size_t size, off_t off)
{
	const struct rvf_snapshot *snap;

	if (ino == RVF_INO_CTL_DIR)
		return -EISDIR;
	if (off < 0)
		return -EINVAL;
	pthread_mutex_lock(&snap_lock);
	snap = snap_find(fh);
	if (!snap) {
		pthread_mutex_unlock(&snap_lock);
		return -EBADF;
	}
	if ((uint64_t)off >= snap->len) {
		size = 0;
	} else {
		if (size > snap->len - (size_t)off)
			size = snap->len - (size_t)off;
		memcpy(buf, snap->text + off, size);
	}
	pthread_mutex_unlock(&snap_lock);
	return (ssize_t)size;
}

int rvf_ctl_release(fuse_ino_t ino, uint64_t fh)
{
	struct rvf_snapshot *snap;

	if (ino == RVF_INO_CTL_DIR)
		return 0;
	pthread_mutex_lock(&snap_lock);
	snap = snap_find(fh);
	if (snap)
		list_del_init(&snap->list);
	pthread_mutex_unlock(&snap_lock);
	if (!snap)
		return -EBADF;
	free(snap);
	return 0;
}

/* Entries: 0 ".", 1 "..", 2.. the files; the cookie is the next index. */
int rvf_ctl_readdir(fuse_ino_t ino, off_t off, int plus, fuse_req_t req, char *buf, size_t size,
		    size_t *used)
{
	size_t n = ARRAY_SIZE(rvf_ctl_files) + 2, pos = 0, sz;
	struct fuse_entry_param e;
	const char *name;
	off_t i;

	if (ino != RVF_INO_CTL_DIR)
		return -ENOTDIR;
	for (i = off < 0 ? 0 : off; (size_t)i < n; i++) {
		memset(&e, 0, sizeof(e));
		if (i == 0) {
			name = ".";
			ctl_fill_attr(RVF_INO_CTL_DIR, &e.attr);
		} else if (i == 1) {
			name = "..";
			ctl_fill_attr(RVF_INO_CTL_DIR, &e.attr);
			e.attr.st_ino = FUSE_ROOT_ID;
		} else {
			name = rvf_ctl_files[i - 2].name;
			ctl_fill_attr(rvf_ctl_files[i - 2].ino, &e.attr);
			/* no lookup counts on control objects: ino 0 = attributes only */
		}
		if (plus)
			sz = fuse_add_direntry_plus(req, buf + pos, size - pos, name, &e, i + 1);
		else
			sz = fuse_add_direntry(req, buf + pos, size - pos, name, &e.attr, i + 1);
		if (sz > size - pos)
			break;
		pos += sz;
	}
	*used = pos;
	return 0;
}
