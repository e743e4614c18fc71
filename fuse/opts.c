// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuse/opts.c - the rcuvfs command line.
 *
 *   rcuvfs MOUNTPOINT [-f] [-d] [-s] [-o opt[,opt...]]
 *   rcuvfs SOURCE MOUNTPOINT -o opt[,opt...]     (as mount.fuse3 runs it)
 *
 * mount -t fuse.rcuvfs SOURCE DIR (an fstab line "rcuvfs DIR fuse.rcuvfs
 * OPTS") makes mount.fuse3 run "rcuvfs SOURCE DIR -o OPTS": with two
 * arguments that are not options the first is the source, which rcuvfs
 * ignores (it has no backing device), and the second the mountpoint.
 *
 * rcuvfs's own options are taken out of the argument list with fuse_opt:
 * every model switch (base's registry: filelock, bkl, bkl_ops, fileref,
 * lockref_relax, ..., size) as -o name=value, plus attr_timeout,
 * entry_timeout, max_threads and max_idle_threads.  -f -d -s clone_fd and the
 * mountpoint are read by fuse_parse_cmdline; what is left (allow_other, ...)
 * goes to fuse_session_new, which rejects anything it does not know, so a
 * misspelt option fails at start with one line.
 *
 * Locking: none (runs once, single-threaded, before anything starts).
 */
#include "fuse/daemon.h"

#include <stdlib.h>
#include <string.h>

enum {
	KEY_HELP,
	KEY_VERSION,
	KEY_LIST_COUNTERS,
};

#define RVF_OPT(t, p)                                                                              \
	{                                                                                          \
		t, offsetof(struct rvf_config, p), 1                                               \
	}

static const struct fuse_opt rvf_opts[] = {RVF_OPT("attr_timeout=%lf", attr_timeout),
					   RVF_OPT("entry_timeout=%lf", entry_timeout),
					   RVF_OPT("max_threads=%u", max_threads),
					   RVF_OPT("max_idle_threads=%u", max_idle_threads),
					   RVF_OPT("test_skip_locks", test_skip_locks),
					   RVF_OPT("log=%s", log_file),
					   FUSE_OPT_KEY("-h", KEY_HELP),
					   FUSE_OPT_KEY("--help", KEY_HELP),
					   FUSE_OPT_KEY("-V", KEY_VERSION),
					   FUSE_OPT_KEY("--version", KEY_VERSION),
					   FUSE_OPT_KEY("--list-counters", KEY_LIST_COUNTERS),
					   FUSE_OPT_END};

/*
 * Switches of the model's mm (its processes' page tables, faults, fork):
 * the daemon is one model process that maps nothing, since processes map
 * the mount's files in the kernel's own mm; the daemon refuses them rather
 * than accept a switch that does nothing (the switch table marks them,
 * rv_switch_mm_only).  cache_pages and io_latency_us concern the page
 * cache and do act (mm's reclaim is linked in).
 */
bool rvf_switch_acts(const char *name)
{
	return !rv_switch_mm_only(name);
}

static int rvf_opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	struct rvf_config *cfg = data;
	char name[64], err[256];
	const char *eq;
	size_t n;

	switch (key) {
	case KEY_HELP:
		cfg->show_help = 1;
		return 0;
	case KEY_LIST_COUNTERS:
		cfg->list_counters = 1;
		return 0;
	case KEY_VERSION:
		cfg->show_version = 1;
		return 0;
	case FUSE_OPT_KEY_NONOPT:
		if (cfg->nr_nonopt == 2) {
			fprintf(stderr, "rcuvfs: unexpected argument '%s' (usage: rcuvfs [SOURCE] "
					"MOUNTPOINT [options])\n",
				arg);
			return -1;
		}
		cfg->nonopt[cfg->nr_nonopt] = strdup(arg);
		if (!cfg->nonopt[cfg->nr_nonopt])
			return -1;
		cfg->nr_nonopt++;
		return 0; /* given back below: the mountpoint alone */
	case FUSE_OPT_KEY_OPT:
		eq = strchr(arg, '=');
		n = eq ? (size_t)(eq - arg) : strlen(arg);
		if (n >= sizeof(name))
			return 1;
		memcpy(name, arg, n);
		name[n] = '\0';
		if (!rv_switch_known(name))
			return 1; /* libfuse's (or unknown: fuse_session_new says so) */
		if (!rvf_switch_acts(name)) {
			fprintf(stderr,
				"rcuvfs: -o %s: a switch of the model's address spaces; processes "
				"map the mount's files in the kernel's mm, so it would do nothing "
				"here (rcuvfs-stress --model runs it)\n",
				name);
			return -1;
		}
		if (rv_switch_set(&cfg->sw, name, eq ? eq + 1 : NULL, err, sizeof(err))) {
			fprintf(stderr, "rcuvfs: -o %s: %s\n", arg, err);
			return -1;
		}
		return 0;
	default:
		return 1;
	}
}

int rvf_parse_args(struct fuse_args *args, struct rvf_config *cfg)
{
	struct fuse_cmdline_opts fo;

	memset(cfg, 0, sizeof(*cfg));
	rv_switches_default(&cfg->sw);
	cfg->max_threads = RVF_DEFAULT_MAX_THREADS;
	if (fuse_opt_parse(args, cfg, rvf_opts, rvf_opt_proc) != 0)
		return -1;
	if (cfg->show_help || cfg->show_version || cfg->list_counters)
		return 0;
	/* MOUNTPOINT, or SOURCE MOUNTPOINT (mount.fuse3): hand libfuse the last */
	if (cfg->nr_nonopt &&
	    fuse_opt_add_arg(args, cfg->nonopt[cfg->nr_nonopt - 1]) != 0)
		return -1;
	if (cfg->log_file && !cfg->log_file[0]) {
		fprintf(stderr, "rcuvfs: -o log= needs a file name\n");
		return -1;
	}
	if (cfg->attr_timeout < 0 || cfg->entry_timeout < 0) {
		fprintf(stderr, "rcuvfs: attr_timeout and entry_timeout must be >= 0\n");
		return -1;
	}
	if (cfg->max_threads < 1 || cfg->max_threads > 100000) {
		fprintf(stderr, "rcuvfs: max_threads must be between 1 and 100000\n");
		return -1;
	}
	if (cfg->max_idle_threads == 0 || cfg->max_idle_threads > cfg->max_threads)
		cfg->max_idle_threads = cfg->max_threads;
	memset(&fo, 0, sizeof(fo));
	if (fuse_parse_cmdline(args, &fo) != 0)
		return -1; /* libfuse printed the reason */
	cfg->foreground = fo.foreground;
	cfg->debug = fo.debug;
	cfg->singlethread = fo.singlethread;
	cfg->clone_fd = fo.clone_fd;
	cfg->mountpoint = fo.mountpoint;
	if (fo.show_help)
		cfg->show_help = 1;
	if (fo.show_version)
		cfg->show_version = 1;
	if (cfg->show_help || cfg->show_version)
		return 0;
	if (!cfg->mountpoint) {
		fprintf(stderr, "rcuvfs: no mountpoint given (try --help)\n");
		return -1;
	}
	/* the kernel checks permissions from the attributes the model returns */
	if (fuse_opt_add_arg(args, "-odefault_permissions,fsname=rcuvfs,subtype=rcuvfs"))
		return -1;
	return 0;
}

void rvf_print_help(FILE *out, const char *progname)
{
	fprintf(out,
		"usage: %s MOUNTPOINT [options]\n"
		"       %s SOURCE MOUNTPOINT -o options   (as mount.fuse3 runs it: SOURCE\n"
		"                 is ignored; fstab: rcuvfs /mnt fuse.rcuvfs options 0 0)\n"
		"\n"
		"Mount the rcuvfs model (a userspace model of the Linux VFS) with FUSE.\n"
		"\n"
		"General options:\n"
		"    -h, --help             print this help and exit\n"
		"    -V, --version          print version and exit\n"
		"    -f                     stay in the foreground (default: daemonize)\n"
		"    -d, -o debug           print every request (implies -f)\n"
		"    -s                     single-threaded loop (default: multithreaded)\n"
		"\n"
		"rcuvfs options (-o name=value):\n"
		"    -o attr_timeout=SEC    attribute cache timeout (default: 0, every stat\n"
		"                           reaches the model)\n"
		"    -o entry_timeout=SEC   name lookup cache timeout (default: 0)\n"
		"    -o max_threads=N       most libfuse worker threads (default: %d)\n"
		"    -o max_idle_threads=N  idle workers kept (default: max_threads, all)\n"
		"    -o clone_fd            one /dev/fuse fd per worker (default: off)\n"
		"    -o log=FILE            in daemon mode, append the daemon's messages\n"
		"                           (run-time errors, the unmount report) to FILE\n"
		"                           (default: syslog, facility daemon)\n"
		"    -o test_skip_locks     TEST ONLY: lock requests succeed without locking\n"
		"                           (shows that lock verification catches it)\n"
		"    -o allow_other         let other users see the mount (default: only\n"
		"                           the mounting user); default_permissions is\n"
		"                           always on: the kernel checks the model's modes\n"
		"\n"
		"Model switches (-o name=value), fixed for the life of the mount:\n",
		progname, progname, RVF_DEFAULT_MAX_THREADS);
	rv_switches_help_if(out, "    ", rvf_switch_acts);
	fprintf(out, "    (refused here, model address spaces only: the mount's files are mapped\n"
		     "    by the kernel's mm):");
	for (int i = 0; rv_switch_name(i); i++)
		if (!rvf_switch_acts(rv_switch_name(i)))
			fprintf(out, " %s", rv_switch_name(i));
	fprintf(out, "\n");
	fprintf(out, "\nlibfuse mount options (-o name[=value]):\n");
	fflush(out);
	fuse_lowlevel_help();
}

void rvf_print_version(FILE *out)
{
	fprintf(out, "rcuvfs %s (libfuse %s, FUSE_USE_VERSION %d)\n", RCUVFS_VERSION,
		fuse_pkgversion(), FUSE_USE_VERSION);
	fprintf(out, "%s\n", rv_rcu_describe());
}
