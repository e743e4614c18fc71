// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/bench/fuse-floor/floor.c - the FUSE floor: the cheapest daemon that
 * answers what the fstat/stat/flock benchmarks send.
 *
 * It serves a root directory holding any name as the one regular file
 * (inode 2).  lookup, getattr, open, flush, release, flock, getlk and setlk
 * are answered at once from constants; entry and attribute timeouts are 0, as
 * rcuvfs's defaults, and it mounts with default_permissions as rcuvfs does,
 * so the kernel sends the same requests to both.  It runs
 * the same multithreaded loop configuration as rcuvfs (libfuse 3.12+ loop
 * config, idle workers kept) and the same allocator setting (M_MXFAST, see
 * fuse/main.c), so the ratio rcuvfs/floor measures the model's cost and
 * nothing else.
 *
 * Locking: none; every answer is computed from constants.
 */
#define FUSE_USE_VERSION 314
#include "tools/cli.h"
#include <fuse_lowlevel.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FLOOR_FILE_INO 2

static void floor_fill(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (ino == FUSE_ROOT_ID) {
		st->st_mode = S_IFDIR | 0777;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | 0666;
		st->st_nlink = 1;
		st->st_size = 4096;
	}
}

static void floor_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;

	if (parent != FUSE_ROOT_ID) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = FLOOR_FILE_INO;
	floor_fill(e.ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void floor_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	fuse_reply_none(req);
}

static void floor_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	fuse_reply_none(req);
}

static void floor_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	floor_fill(ino, &st);
	fuse_reply_attr(req, &st, 0.0);
}

static void floor_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fi->fh = 0;
	fuse_reply_open(req, fi);
}

static void floor_ok(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

static void floor_flock(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, int op)
{
	fuse_reply_err(req, 0);
}

static void floor_getlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
			struct flock *lock)
{
	lock->l_type = F_UNLCK;
	fuse_reply_lock(req, lock);
}

static void floor_setlk(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
			struct flock *lock, int sleep)
{
	fuse_reply_err(req, 0);
}

static void floor_init(void *userdata, struct fuse_conn_info *conn)
{
	if (conn->capable & FUSE_CAP_FLOCK_LOCKS)
		conn->want |= FUSE_CAP_FLOCK_LOCKS;
	if (conn->capable & FUSE_CAP_POSIX_LOCKS)
		conn->want |= FUSE_CAP_POSIX_LOCKS;
}

static const struct fuse_lowlevel_ops floor_ops = {
    .init = floor_init,
    .lookup = floor_lookup,
    .forget = floor_forget,
    .forget_multi = floor_forget_multi,
    .getattr = floor_getattr,
    .open = floor_open,
    .flush = floor_ok,
    .release = floor_ok,
    .opendir = floor_open,
    .releasedir = floor_ok,
    .flock = floor_flock,
    .getlk = floor_getlk,
    .setlk = floor_setlk,
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: rcuvfs-fuse-floor MOUNTPOINT [-f] [-d] [-s] [-o max_threads=N,clone_fd]\n"
		"  the FUSE floor daemon of tests/bench/fuse-floor\n"
		"  -V, --version  version and git commit\n"
		"  -h, --help     this text\n");
}

/*
 * tools/cli.h's grammar before libfuse sees the command line: --help,
 * --version, and one line with exit 2 for an option libfuse's
 * fuse_parse_cmdline would not take here (-f, -d, -s, -o OPTS).
 */
static void floor_cli(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			rv_cli_version("rcuvfs-fuse-floor");
			exit(0);
		}
		if (a[0] != '-' || !strcmp(a, "-f") || !strcmp(a, "-d") || !strcmp(a, "-s") ||
		    (!strncmp(a, "-o", 2) && a[2]))
			continue;
		if (!strcmp(a, "-o") && i + 1 < argc) {
			i++;
			continue;
		}
		fprintf(stderr, "rcuvfs-fuse-floor: %s '%s' (try --help)\n",
			strcmp(a, "-o") ? "unknown option" : "a value is needed after", a);
		exit(RV_CLI_USAGE_ERROR);
	}
}

int main(int argc, char **argv)
{
	struct fuse_args args;
	struct fuse_cmdline_opts opts;
	struct fuse_loop_config *cfg;
	struct fuse_session *se;
	int ret = 1;

	/* the allocator setting rcuvfs uses (fuse/main.c): libfuse's request
	 * calloc takes the same path in both daemons */
	mallopt(M_MXFAST, 160);
	floor_cli(argc, argv);
	args = (struct fuse_args)FUSE_ARGS_INIT(argc, argv);
	if (fuse_parse_cmdline(&args, &opts) != 0)
		return 1;
	if (!opts.mountpoint) {
		fprintf(stderr, "rcuvfs-fuse-floor: no MOUNTPOINT (try --help)\n");
		fuse_opt_free_args(&args);
		return RV_CLI_USAGE_ERROR;
	}
	if (opts.max_threads < 64)
		opts.max_threads = 64;
	/* the mount options rcuvfs uses: default_permissions makes every path
	 * walk fetch the directories' attributes too (timeouts are 0) */
	if (fuse_opt_add_arg(&args, "-odefault_permissions,fsname=fuse-floor"))
		goto out;
	se = fuse_session_new(&args, &floor_ops, sizeof(floor_ops), NULL);
	if (!se)
		goto out;
	if (fuse_set_signal_handlers(se) != 0)
		goto out_destroy;
	if (fuse_session_mount(se, opts.mountpoint) != 0)
		goto out_signals;
	fuse_daemonize(opts.foreground);
	cfg = fuse_loop_cfg_create();
	fuse_loop_cfg_set_clone_fd(cfg, opts.clone_fd);
	fuse_loop_cfg_set_max_threads(cfg, opts.max_threads);
	fuse_loop_cfg_set_idle_threads(cfg, opts.max_threads); /* keep idle workers */
	ret = opts.singlethread ? fuse_session_loop(se) : fuse_session_loop_mt(se, cfg);
	fuse_loop_cfg_destroy(cfg);
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_destroy:
	fuse_session_destroy(se);
out:
	free(opts.mountpoint);
	fuse_opt_free_args(&args);
	return ret ? 1 : 0;
}
