// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuse/opts.c - the rcuvfs command line.
 *
 *   rcuvfs MOUNTPOINT [-f] [-d] [-s] [-o opt[,opt...]]
 *   rcuvfs SOURCE MOUNTPOINT -o opt[,opt...]     (as mount.fuse3 runs it)
 *
 * mount -t fuse.rcuvfs SOURCE DIR (an fstab line "rcuvfs DIR fuse.rcuvfs
 * OPTS") makes mount.fuse3 run "rcuvfs SOURCE DIR -o OPTS": with two
 * arguments that are not options the first is the source, which becomes
 * the mount's fsname (unless -o fsname= names it), and the second the
 * mountpoint.
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
#include "tools/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>

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
					   RVF_OPT("attr_timeout=", attr_timeout_set),
					   RVF_OPT("entry_timeout=%lf", entry_timeout),
					   RVF_OPT("entry_timeout=", entry_timeout_set),
					   RVF_OPT("apps", apps),
					   RVF_OPT("max_threads=%u", max_threads),
					   RVF_OPT("max_idle_threads=%u", max_idle_threads),
#ifdef RCUVFS_TEST_DAEMON
					   RVF_OPT("test_skip_locks", test_skip_locks),
#endif
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
			fprintf(stderr,
				"rcuvfs: unexpected argument '%s' (usage: rcuvfs [SOURCE] "
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
		/* libfuse's command-line flags; any other "-..." is unknown */
		if (arg[0] == '-') {
			if (!strcmp(arg, "-f") || !strcmp(arg, "-d") || !strcmp(arg, "-s"))
				return 1;
			fprintf(stderr, "rcuvfs: unknown option '%s' (try --help)\n", arg);
			return -1;
		}
		eq = strchr(arg, '=');
		n = eq ? (size_t)(eq - arg) : strlen(arg);
		if (n >= sizeof(name))
			return 1;
		memcpy(name, arg, n);
		name[n] = '\0';
		if (!strcmp(name, "fsname"))
			cfg->user_fsname = 1; /* the user's name for the mount wins */
		if (!strcmp(name, "remount")) {
			cfg->remount = 1;
			return 0;
		}
		/* every option, for a remount (rvf_remount reads them) */
		if (cfg->nr_opts < (int)ARRAY_SIZE(cfg->opts) &&
		    !(cfg->opts[cfg->nr_opts] = strdup(arg)))
			return -1;
		if (cfg->nr_opts < (int)ARRAY_SIZE(cfg->opts))
			cfg->nr_opts++;
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

/*
 * The mount's source (the first field of /proc/mounts, what umount SOURCE
 * and findmnt --source match): the user's -o fsname= as given; else the
 * SOURCE of "rcuvfs SOURCE MOUNTPOINT" (mount -t fuse.rcuvfs SOURCE DIR,
 * an fstab line), as a block file system's device would be; else "rcuvfs".
 * Commas and backslashes in SOURCE are escaped for libfuse's option parser.
 */
static int add_fsname(struct fuse_args *args, const struct rvf_config *cfg)
{
	char *opt = NULL, *fsname;
	int err;

	if (cfg->user_fsname)
		return 0;
	if (asprintf(&fsname, "fsname=%s", cfg->nr_nonopt == 2 ? cfg->nonopt[0] : "rcuvfs") < 0)
		return -1;
	err = fuse_opt_add_opt_escaped(&opt, fsname);
	free(fsname);
	if (!err)
		err = fuse_opt_add_arg(args, "-o");
	if (!err)
		err = fuse_opt_add_arg(args, opt);
	free(opt);
	return err ? -1 : 0;
}

int rvf_parse_args(struct fuse_args *args, struct rvf_config *cfg)
{
	struct fuse_cmdline_opts fo;
	struct stat st;

	memset(cfg, 0, sizeof(*cfg));
	rv_switches_default(&cfg->sw);
	cfg->max_threads = RVF_DEFAULT_MAX_THREADS;
	if (fuse_opt_parse(args, cfg, rvf_opts, rvf_opt_proc) != 0)
		return -1;
	if (cfg->show_help || cfg->show_version || cfg->list_counters)
		return 0;
	if (cfg->remount) {
		/* mount -o remount: no new daemon, rvf_remount changes the mount */
		if (!cfg->nr_nonopt) {
			fprintf(stderr, "rcuvfs: -o remount: no mountpoint given\n");
			return -1;
		}
		cfg->mountpoint = strdup(cfg->nonopt[cfg->nr_nonopt - 1]);
		return cfg->mountpoint ? 0 : -1;
	}
	/* MOUNTPOINT, or SOURCE MOUNTPOINT (mount.fuse3): hand libfuse the last */
	if (cfg->nr_nonopt && fuse_opt_add_arg(args, cfg->nonopt[cfg->nr_nonopt - 1]) != 0)
		return -1;
	if (cfg->log_file && !cfg->log_file[0]) {
		fprintf(stderr, "rcuvfs: -o log= needs a file name\n");
		return -1;
	}
	/* -o apps: the kernel keeps attributes and names for a second, as
	 * libfuse's passthrough_ll does by default (cache=auto) */
	if (cfg->apps && !cfg->attr_timeout_set)
		cfg->attr_timeout = RVF_APPS_TIMEOUT;
	if (cfg->apps && !cfg->entry_timeout_set)
		cfg->entry_timeout = RVF_APPS_TIMEOUT;
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
	/*
	 * The model's root is a directory. libfuse mounts on a regular file
	 * too (rootmode= copies the file's type), and the kernel then finds a
	 * root of another type and answers EIO to everything.
	 */
	if (stat(cfg->mountpoint, &st) == 0 && !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "rcuvfs: %s: not a directory\n", cfg->mountpoint);
		return -1;
	}
	/* the kernel checks permissions from the attributes the model returns */
	if (fuse_opt_add_arg(args, "-odefault_permissions,subtype=rcuvfs"))
		return -1;
	return add_fsname(args, cfg);
}

/*
 * mount -o remount,ro DIR (and remount,rw, the mount flags): mount.fuse3
 * runs "rcuvfs SOURCE DIR -o OPTIONS,remount" with the options of the
 * mount as /proc/mounts shows them.  A new daemon cannot take over a
 * mount, so rcuvfs remounts the existing one the way mount -i would:
 * mount(2) with MS_REMOUNT and the flags, which the kernel applies to the
 * FUSE superblock (fuse_reconfigure: a read-only superblock refuses every
 * change with EROFS in the VFS, before a request reaches the daemon) and
 * to the mount.  What is fixed for the life of the mount (the model's
 * switches, the daemon's options) is refused if asked for; the options
 * mount.fuse3 copies from /proc/mounts (user_id, group_id,
 * default_permissions, allow_other, ...) are accepted as they are.
 */
static const struct {
	const char *name;
	unsigned long set, clear;
} rvf_remount_flags[] = {
    {"ro", MS_RDONLY, 0},
    {"rw", 0, MS_RDONLY},
    {"nosuid", MS_NOSUID, 0},
    {"suid", 0, MS_NOSUID},
    {"nodev", MS_NODEV, 0},
    {"dev", 0, MS_NODEV},
    {"noexec", MS_NOEXEC, 0},
    {"exec", 0, MS_NOEXEC},
    {"noatime", MS_NOATIME, 0},
    {"atime", 0, MS_NOATIME},
    {"nodiratime", MS_NODIRATIME, 0},
    {"diratime", 0, MS_NODIRATIME},
    {"relatime", MS_RELATIME, 0},
    {"norelatime", 0, MS_RELATIME},
    {"strictatime", MS_STRICTATIME, 0},
    {"sync", MS_SYNCHRONOUS, 0},
    {"async", 0, MS_SYNCHRONOUS},
    {"dirsync", MS_DIRSYNC, 0},
};
static const char *const rvf_remount_same[] = {"user_id",     "group_id",   "default_permissions",
					       "allow_other", "allow_root", "fsname",
					       "subtype",     "blksize",    "max_read"};

int rvf_remount(const struct rvf_config *cfg)
{
	unsigned long flags = MS_REMOUNT;
	struct statfs sfs;
	char name[64];

	for (int i = 0; i < cfg->nr_opts; i++) {
		const char *o = cfg->opts[i], *eq = strchr(o, '=');
		size_t n = eq ? (size_t)(eq - o) : strlen(o), k;
		bool known = false;

		if (n >= sizeof(name))
			n = sizeof(name) - 1;
		memcpy(name, o, n);
		name[n] = '\0';
		for (k = 0; k < ARRAY_SIZE(rvf_remount_flags); k++)
			if (!strcmp(name, rvf_remount_flags[k].name)) {
				flags = (flags | rvf_remount_flags[k].set) &
					~rvf_remount_flags[k].clear;
				known = true;
			}
		for (k = 0; k < ARRAY_SIZE(rvf_remount_same); k++)
			if (!strcmp(name, rvf_remount_same[k]))
				known = true;
		if (!known) {
			fprintf(stderr,
				"rcuvfs: -o remount: '%s' is fixed for the life of the mount (a "
				"remount changes ro/rw and the mount flags only; unmount and mount "
				"again to change it)\n",
				o);
			return 2;
		}
	}
	if (statfs(cfg->mountpoint, &sfs) != 0 || sfs.f_type != 0x65735546 /* FUSE_SUPER_MAGIC */) {
		fprintf(stderr, "rcuvfs: -o remount: %s is not a FUSE mount\n", cfg->mountpoint);
		return 1;
	}
	if (mount(NULL, cfg->mountpoint, NULL, flags, NULL) != 0) {
		fprintf(stderr, "rcuvfs: -o remount: %s: %s\n", cfg->mountpoint, strerror(errno));
		return 1;
	}
	return 0;
}

void rvf_print_help(FILE *out, const char *progname)
{
	fprintf(out,
		"usage: %s MOUNTPOINT [options]\n"
		"       %s SOURCE MOUNTPOINT -o options   (as mount.fuse3 runs it: SOURCE\n"
		"                 names the mount, as -o fsname= does; fstab: rcuvfs /mnt\n"
		"                 fuse.rcuvfs options 0 0)\n"
		"\n"
		"Mount the rcuvfs model (a userspace model of the Linux VFS) with FUSE.\n"
		"\n"
		"General options:\n"
		"    -h, --help             print this help and exit\n"
		"    -V, --version          print version and exit\n"
		"    --list-counters        print every counter and gauge of .rcuvfs/stats\n"
		"                           with what it counts, and exit\n"
		"    -f                     stay in the foreground (default: daemonize)\n"
		"    -d, -o debug           print every request (implies -f)\n"
		"    -s                     single-threaded loop (default: multithreaded)\n"
		"\n"
		"rcuvfs options (-o name=value):\n"
		"    -o attr_timeout=SEC    attribute cache timeout (default: 0, every stat\n"
		"                           reaches the model)\n"
		"    -o entry_timeout=SEC   name lookup cache timeout (default: 0)\n"
		"    -o apps                for running applications: the kernel caches\n"
		"                           attributes and names (timeouts 1 s unless given),\n"
		"                           missing names, symlink targets, and writes\n"
		"                           (writeback cache); requests no longer show each\n"
		"                           stat, lookup and write (default: off)\n"
		"    -o max_threads=N       most libfuse worker threads (default: %d)\n"
		"    -o max_idle_threads=N  idle workers kept (default: max_threads, all)\n"
		"    -o clone_fd            one /dev/fuse fd per worker (default: off)\n"
		"    -o log=FILE            in daemon mode, append the daemon's messages\n"
		"                           (run-time errors, the unmount report) to FILE\n"
		"                           (default: syslog, facility daemon)\n"
#ifdef RCUVFS_TEST_DAEMON
		"    -o test_skip_locks     TEST ONLY: lock requests succeed without locking\n"
		"                           (shows that lock verification catches it)\n"
#endif
		"    -o fsname=NAME         the mount's source in /proc/mounts (default:\n"
		"                           SOURCE if given, else rcuvfs)\n"
		"    -o remount[,ro|rw,...] (mount -o remount,ro DIR) change the running\n"
		"                           mount's ro/rw and mount flags; no new daemon\n"
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
	rv_cli_fversion(out, "rcuvfs");
	fprintf(out, "libfuse %s, FUSE_USE_VERSION %d\n", fuse_pkgversion(), FUSE_USE_VERSION);
	fprintf(out, "%s\n", rv_rcu_describe());
}
