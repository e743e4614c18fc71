// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/integration/parity.c - checks of the mount as a file system, run on
 * an rcuvfs mount and on a tmpfs mounted alike; parity.sh compares the two
 * outputs mode by mode, so each mode is one question "does rcuvfs answer
 * what Linux's tmpfs answers".
 *
 *   rcuvfs-parity DIR MODE [ARG]
 *
 * fallocate  (DIR mounted with size=16m) a failed fallocate leaves the
 *            space it found, the request is bounded by statfs, KEEP_SIZE,
 *            PUNCH_HOLE (partial pages zeroed, whole ones freed, a shared
 *            mapping sees the zeroes), SEEK_DATA/SEEK_HOLE on fallocated
 *            never-written ranges, the modes tmpfs lacks.
 * owner      (as root; the mount must allow other users) the root's mode,
 *            and a setgid directory as inode_init_owner and mode_strip_sgid
 *            treat it: files take its group, directories inherit S_ISGID,
 *            a creator outside the group loses S_ISGID on a new file.
 * ioctl      the file-attribute ioctls lsattr uses, unknown ioctls of each
 *            direction and size (ENOTTY), lsattr's own output.
 * xattr      extended attributes: XATTR_CREATE/REPLACE, ENODATA, ERANGE,
 *            length queries, the name and value limits, listings (trusted.
 *            hidden from nobody), the namespace rules as root and nobody.
 * sizes      (DIR mounted with size=16m) a directory's st_size through
 *            create, mkdir, link, symlink, renames in, out, over and
 *            exchanged, unlink and rmdir; the block a long symlink takes.
 * readdir    a directory read with small getdents64 calls while entries are
 *            renamed between them: the walk ends, meets no entry twice;
 *            a rewind lists every entry.
 * whiteout   renameat2 RENAME_WHITEOUT: the 0:0 character device left at
 *            the old name (owner, directory sizes), over a target, of a
 *            directory, across directories, the flag combinations refused,
 *            by nobody.
 * killpriv   (as root; the mount must allow other users) S_ISUID, S_ISGID
 *            and security.capability after an append, fallocate,
 *            ftruncate, open with O_TRUNC and chown to root by a stranger,
 *            a member of the file's group and root.
 * handles    (as root: drop_caches, CAP_DAC_READ_SEARCH) open_by_handle_at
 *            after the kernel dropped its inodes: files, a directory, a
 *            renamed file work; a removed file's handle is stale (ESTALE),
 *            also after a new file took its name.
 * fsx        a seeded fsx-style run (ARG operations, default 3000): writes,
 *            reads, truncates, fallocate with and without KEEP_SIZE, hole
 *            punches, mapped writes and reads, each checked against an
 *            in-memory copy; prints the first mismatch or "ok".
 *
 * Output: "name: result" lines; nothing that differs between two correct
 * file systems (inode numbers, times, device numbers).
 * Exit status: 0 when the mode ran (the comparison decides), 2 on a setup
 * failure.
 *
 * Locking: none; single-threaded apart from forked children.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tools/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <dirent.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#define PG	     4096L
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *errname(int err)
{
	const char *n;

	if (!err)
		return "ok";
	n = strerrorname_np(err);
	return n ? n : "E?";
}

/* Print the result of a call returning -1/errno on failure. */
#define RES(name, expr)                                                                            \
	do {                                                                                       \
		errno = 0;                                                                         \
		long __r = (long)(expr);                                                           \
		printf("%s: %s\n", (name), __r < 0 ? errname(errno) : "ok");                       \
	} while (0)

static void die(const char *what)
{
	fprintf(stderr, "parity: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Blocks in use on the file system of fd (statfs). */
static long used_blocks(int fd)
{
	struct statvfs s;

	if (fstatvfs(fd, &s))
		die("fstatvfs");
	return (long)(s.f_blocks - s.f_bfree);
}

static void show_file(const char *name, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		die("fstat");
	printf("%s: size %lld blocks %lld\n", name, (long long)st.st_size, (long long)st.st_blocks);
}

static void show_seek(const char *name, int fd, off_t off, int whence)
{
	off_t r = lseek(fd, off, whence);

	if (r < 0)
		printf("%s: %s\n", name, errname(errno));
	else
		printf("%s: %lld\n", name, (long long)r);
}

/* Runs of equal bytes in [off, off+len): "Nxc ..." */
static void show_runs(const char *name, int fd, off_t off, size_t len)
{
	static unsigned char buf[1 << 16];
	ssize_t n;
	size_t i, start = 0;

	if (len > sizeof(buf))
		len = sizeof(buf);
	n = pread(fd, buf, len, off);
	if (n < 0) {
		printf("%s: %s\n", name, errname(errno));
		return;
	}
	printf("%s:", name);
	for (i = 1; i <= (size_t)n; i++) {
		if (i == (size_t)n || buf[i] != buf[start]) {
			printf(" %zux%02x", i - start, buf[start]);
			start = i;
		}
	}
	printf(" (%zd bytes)\n", n);
}

static int run_fallocate(const char *dir)
{
	static char buf[3 * PG];
	long used0;
	char *map;
	int fd;

	if (chdir(dir))
		die(dir);
	fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open f");
	used0 = used_blocks(fd);
	/* beyond the file system: refused, nothing kept (shmem_fallocate) */
	printf("posix_fallocate_1t: %s\n", errname(posix_fallocate(fd, 0, 1LL << 40)));
	printf("used_after_1t: %ld\n", used_blocks(fd) - used0);
	show_file("file_after_1t", fd);
	/* larger than what is free: allocated, then undone */
	RES("fallocate_20m", fallocate(fd, 0, 0, 20 << 20));
	printf("used_after_20m: %ld\n", used_blocks(fd) - used0);
	show_file("file_after_20m", fd);
	RES("fallocate_keep_20m", fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 20 << 20));
	printf("used_after_keep_20m: %ld\n", used_blocks(fd) - used0);
	/* fill most of it with another file, then a fallocate that only
	 * partly fits is undone as well */
	{
		int g = open("g", O_RDWR | O_CREAT | O_TRUNC, 0644);

		if (g < 0)
			die("open g");
		RES("fallocate_g_12m", fallocate(g, 0, 0, 12 << 20));
		RES("fallocate_6m_partly_fits", fallocate(fd, 0, 0, 6 << 20));
		printf("used_after_partial: %ld\n", used_blocks(fd) - used0);
		show_file("file_after_partial", fd);
		RES("ftruncate_g", ftruncate(g, 0)); /* see ftruncate_0 below */
		close(g);
		unlink("g");
	}
	/* fallocated, never written: a hole to SEEK_DATA */
	RES("fallocate_8k", fallocate(fd, 0, 0, 2 * PG));
	show_file("file_8k", fd);
	show_seek("seek_data_0", fd, 0, SEEK_DATA);
	show_seek("seek_hole_0", fd, 0, SEEK_HOLE);
	show_runs("read_8k", fd, 0, 2 * PG);
	RES("fsync", fsync(fd));
	show_seek("seek_data_after_fsync", fd, 0, SEEK_DATA);
	RES("write_at_4k", pwrite(fd, "x", 1, PG));
	show_seek("seek_data_after_write", fd, 0, SEEK_DATA);
	show_seek("seek_hole_after_write", fd, PG, SEEK_HOLE);
	RES("fallocate_again_0_4k", fallocate(fd, 0, 0, PG));
	show_seek("seek_data_after_second_fallocate", fd, 0, SEEK_DATA);
	/* KEEP_SIZE */
	RES("keep_size", fallocate(fd, FALLOC_FL_KEEP_SIZE, 2 * PG, 2 * PG));
	show_file("file_keep_size", fd);
	RES("keep_size_beyond", fallocate(fd, FALLOC_FL_KEEP_SIZE, 100 * PG, PG));
	show_file("file_keep_size_beyond", fd);
	/* PUNCH_HOLE */
	RES("punch_without_keep", fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, PG));
	memset(buf, 'y', sizeof(buf));
	RES("write_12k", pwrite(fd, buf, sizeof(buf), 0));
	RES("punch_100_8k", fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 100, 2 * PG));
	show_file("file_punched", fd);
	show_runs("read_punched", fd, 0, 3 * PG);
	show_seek("seek_hole_punched", fd, 0, SEEK_HOLE);
	show_seek("seek_data_punched_4k", fd, PG, SEEK_DATA);
	RES("punch_beyond_eof",
	    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 1 << 30, PG));
	show_file("file_punch_beyond_eof", fd);
	RES("punch_to_eof", fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 1 << 30));
	show_file("file_punch_all", fd);
	/* a shared mapping sees a punch */
	RES("write_12k_again", pwrite(fd, buf, sizeof(buf), 0));
	map = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	printf("mapped_before: %c%c%c\n", map[0], map[PG], map[2 * PG]);
	RES("punch_mapped_4k", fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, PG, PG));
	printf("mapped_after: %02x %02x %02x\n", map[0], map[PG], map[2 * PG]);
	map[PG + 1] = 'm';
	RES("msync", msync(map, 3 * PG, MS_SYNC));
	munmap(map, 3 * PG);
	show_runs("read_after_mapped_write", fd, PG, PG);
	/* the modes tmpfs does not have */
	RES("zero_range", fallocate(fd, FALLOC_FL_ZERO_RANGE, 0, PG));
	RES("collapse_range", fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 0, PG));
	RES("insert_range", fallocate(fd, FALLOC_FL_INSERT_RANGE, 0, PG));
	RES("einval_len0", fallocate(fd, 0, 0, 0));
	/* freed before close: FUSE's RELEASE (and with it the orphan's
	 * eviction) is asynchronous to close(2) and unlink */
	RES("ftruncate_0", ftruncate(fd, 0));
	close(fd);
	unlink("f");
	fd = open(".", O_RDONLY | O_DIRECTORY);
	printf("used_at_end: %ld\n", used_blocks(fd) - used0);
	close(fd);
	return 0;
}

/* ---- owner: the root's mode, setgid directories -------------------- */

static void show_owner(const char *name, const char *path)
{
	struct stat st;

	if (lstat(path, &st)) {
		printf("%s: %s\n", name, errname(errno));
		return;
	}
	printf("%s: mode %06o uid %u gid %u\n", name, st.st_mode, st.st_uid, st.st_gid);
}

/* Run fn as uid/gid (no supplementary groups) in a child; wait for it. */
static void as_user(uid_t uid, gid_t gid, void (*fn)(void))
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(gid) || setuid(uid))
			_exit(3);
		umask(022);
		fn();
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		printf("child: status %d\n", status);
}

static void create_mode(const char *path, mode_t mode)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, mode);

	if (fd < 0)
		printf("create %s: %s\n", path, errname(errno));
	else
		close(fd);
}

static void stranger_creates(void)
{
	create_mode("sgd/f", 0644);
	RES("stranger.mkdir", mkdir("sgd/sub", 0777));
	create_mode("sgd/sub/g", 0644);
	create_mode("sgd/x", 02755);
	RES("stranger.mknod_fifo", mknod("sgd/p", S_IFIFO | 02750, 0));
	RES("stranger.symlink", symlink("f", "sgd/l"));
}

static void member_creates(void)
{
	create_mode("sgd/y", 02755);
	RES("member.mkdir_0700", mkdir("sgd/msub", 0700));
}

static void stranger_in_plain(void)
{
	create_mode("plain/f", 02755);
	RES("stranger.plain_mkdir", mkdir("plain/d", 0777));
}

static int run_owner(const char *dir)
{
	if (chdir(dir))
		die(dir);
	show_owner("root_dir", ".");
	if (mkdir("sgd", 0777) || chmod("sgd", 02777) || chown("sgd", 0, 0))
		die("sgd");
	show_owner("sgd", "sgd");
	as_user(65534, 65534, stranger_creates);
	show_owner("stranger.file", "sgd/f");
	show_owner("stranger.subdir", "sgd/sub");
	show_owner("stranger.file_in_subdir", "sgd/sub/g");
	show_owner("stranger.setgid_file", "sgd/x");
	show_owner("stranger.fifo", "sgd/p");
	show_owner("stranger.symlink", "sgd/l");
	as_user(65534, 0, member_creates);
	show_owner("member.setgid_file", "sgd/y");
	show_owner("member.subdir", "sgd/msub");
	create_mode("sgd/z", 02755);
	show_owner("root.setgid_file", "sgd/z");
	/* outside a setgid directory: the creator's group */
	if (mkdir("plain", 0777) || chmod("plain", 0777))
		die("plain");
	as_user(65534, 65534, stranger_in_plain);
	show_owner("stranger.plain_file", "plain/f");
	show_owner("stranger.plain_subdir", "plain/d");
	return 0;
}

/* ---- ioctl: file attributes and unknown commands --------------------- */

static int run_ioctl(const char *dir)
{
	struct fsxattr fsx;
	unsigned int flags = 0xdead;
	char big[64];
	int fd;

	if (chdir(dir))
		die(dir);
	fd = open("io", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open io");
	RES("getflags", ioctl(fd, FS_IOC_GETFLAGS, &flags));
	printf("getflags.value: %#x\n", flags);
	memset(&fsx, 0xff, sizeof(fsx));
	RES("fsgetxattr", ioctl(fd, FS_IOC_FSGETXATTR, &fsx));
	printf("fsgetxattr.xflags: %#x extsize %u projid %u\n", fsx.fsx_xflags, fsx.fsx_extsize,
	       fsx.fsx_projid);
	flags = 0;
	RES("setflags_0", ioctl(fd, FS_IOC_SETFLAGS, &flags));
	RES("unknown_io", ioctl(fd, _IO('x', 1)));
	RES("unknown_ior_int", ioctl(fd, _IOR('x', 2, int), big));
	RES("unknown_ior_16", ioctl(fd, _IOR('x', 3, char[16]), big));
	RES("unknown_iow_8", ioctl(fd, _IOW('x', 4, uint64_t), big));
	RES("unknown_iowr_4", ioctl(fd, _IOWR('x', 5, int), big));
	close(fd);
	fflush(stdout);
	/* lsattr prints the flags, never "Invalid argument" */
	if (access("/usr/bin/lsattr", X_OK) == 0) {
		FILE *p = popen("/usr/bin/lsattr io 2>&1", "r");
		char line[256] = "";

		if (p) {
			if (!fgets(line, sizeof(line), p))
				line[0] = '\0';
			pclose(p);
		}
		line[strcspn(line, "\n")] = '\0';
		printf("lsattr: %s\n", line);
	}
	unlink("io");
	return 0;
}

/* ---- xattr ---------------------------------------------------------- */

/* A listing as "name,name,..." or the error. */
static void show_list(const char *name, const char *path)
{
	char buf[1024];
	ssize_t n = llistxattr(path, buf, sizeof(buf));

	if (n < 0) {
		printf("%s: %s\n", name, errname(errno));
		return;
	}
	printf("%s:", name);
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
		printf(" %s", buf + i);
	printf(" (%zd bytes)\n", n);
}

static void show_get(const char *name, const char *path, const char *attr, size_t size)
{
	char buf[256];
	ssize_t n = lgetxattr(path, attr, size ? buf : NULL, size);

	if (n < 0)
		printf("%s: %s\n", name, errname(errno));
	else if (!size)
		printf("%s: length %zd\n", name, n);
	else
		printf("%s: \"%.*s\"\n", name, (int)n, buf);
}

static void nobody_xattrs(void)
{
	show_list("nobody.list", "xa/f");
	show_get("nobody.get_user", "xa/f", "user.a", 64);
	show_get("nobody.get_trusted", "xa/f", "trusted.t", 64);
	show_get("nobody.get_security", "xa/f", "security.s", 64);
	RES("nobody.set_user_readonly_file", setxattr("xa/f", "user.n", "v", 1, 0));
	RES("nobody.set_trusted_own", setxattr("xa/own", "trusted.n", "v", 1, 0));
	RES("nobody.set_security_own", setxattr("xa/own", "security.n", "v", 1, 0));
	RES("nobody.set_user_own", setxattr("xa/own", "user.n", "v", 1, 0));
	show_list("nobody.list_own", "xa/own");
}

static int run_xattr(const char *dir)
{
	static char big[65537];
	char name[300];
	int fd;

	if (chdir(dir))
		die(dir);
	if (mkdir("xa", 0777) || chmod("xa", 0777))
		die("xa");
	fd = open("xa/f", O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		die("xa/f");
	close(fd);
	show_list("list_new", "xa/f");
	RES("replace_missing", setxattr("xa/f", "user.a", "v1", 2, XATTR_REPLACE));
	RES("create", setxattr("xa/f", "user.a", "v1", 2, XATTR_CREATE));
	RES("create_again", setxattr("xa/f", "user.a", "v2", 2, XATTR_CREATE));
	RES("replace", setxattr("xa/f", "user.a", "value3", 6, XATTR_REPLACE));
	RES("bad_flags", setxattr("xa/f", "user.a", "v", 1, 8));
	show_get("get", "xa/f", "user.a", 64);
	show_get("get_length", "xa/f", "user.a", 0);
	show_get("get_small", "xa/f", "user.a", 3);
	show_get("get_missing", "xa/f", "user.zz", 64);
	RES("set_empty", setxattr("xa/f", "user.empty", "", 0, 0));
	show_get("get_empty", "xa/f", "user.empty", 64);
	RES("set_trusted", setxattr("xa/f", "trusted.t", "tv", 2, 0));
	RES("set_security", setxattr("xa/f", "security.s", "sv", 2, 0));
	RES("set_b", setxattr("xa/f", "user.b", "b", 1, 0));
	show_list("list", "xa/f");
	{
		char small[8];

		RES("list_small", listxattr("xa/f", small, sizeof(small)));
		RES("list_length", listxattr("xa/f", NULL, 0));
	}
	RES("remove", removexattr("xa/f", "user.empty"));
	RES("remove_again", removexattr("xa/f", "user.empty"));
	/* limits */
	memcpy(name, "user.", 5);
	memset(name + 5, 'n', 250);
	name[255] = '\0';
	RES("name_255", setxattr("xa/f", name, "v", 1, 0));
	name[255] = 'n';
	name[256] = '\0';
	RES("name_256", setxattr("xa/f", name, "v", 1, 0));
	RES("name_empty", setxattr("xa/f", "", "v", 1, 0));
	RES("value_64k", setxattr("xa/f", "user.big", big, 65536, 0));
	RES("value_64k_plus_1", setxattr("xa/f", "user.big2", big, 65537, 0));
	show_get("get_64k_length", "xa/f", "user.big", 0);
	RES("remove_big", removexattr("xa/f", "user.big"));
	name[255] = '\0';
	RES("remove_name_255", removexattr("xa/f", name));
	/* namespaces */
	RES("unknown_prefix", setxattr("xa/f", "foo.bar", "v", 1, 0));
	RES("bare_user_prefix", setxattr("xa/f", "user.", "v", 1, 0));
	if (symlink("f", "xa/l") || mkfifo("xa/p", 0644))
		die("xa/l, xa/p");
	RES("user_on_symlink", lsetxattr("xa/l", "user.x", "v", 1, 0));
	RES("trusted_on_symlink", lsetxattr("xa/l", "trusted.x", "v", 1, 0));
	show_list("list_symlink", "xa/l");
	RES("user_on_fifo", setxattr("xa/p", "user.x", "v", 1, 0));
	show_get("get_user_fifo", "xa/p", "user.x", 64);
	RES("user_on_dir", setxattr("xa", "user.d", "v", 1, 0));
	show_list("list_dir", "xa");
	fd = open("xa/own", O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || fchown(fd, 65534, 65534))
		die("xa/own");
	close(fd);
	fflush(stdout);
	as_user(65534, 65534, nobody_xattrs);
	return 0;
}

/* ---- sizes: directories and symlinks ------------------------------- */

static void show_size(const char *name, const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		printf("%s: %s\n", name, errname(errno));
	else
		printf("%s: size %lld blocks %lld\n", name, (long long)st.st_size,
		       (long long)st.st_blocks);
}

static int run_sizes(const char *dir)
{
	char target[200];
	long used0;
	int fd;

	if (chdir(dir))
		die(dir);
	RES("mkdir", mkdir("sz", 0755));
	show_size("empty_dir", "sz");
	fd = open("sz/f", O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		die("sz/f");
	close(fd);
	RES("mkdir_sub", mkdir("sz/sub", 0755));
	RES("link", link("sz/f", "sz/f2"));
	RES("symlink", symlink("f", "sz/l"));
	RES("mkfifo", mkfifo("sz/p", 0644));
	show_size("dir_5_entries", "sz");
	show_size("subdir", "sz/sub");
	RES("rename_within", rename("sz/f2", "sz/f3"));
	show_size("after_rename_within", "sz");
	RES("rename_out", rename("sz/f3", "sz/sub/f3"));
	show_size("after_rename_out", "sz");
	show_size("sub_after_rename_in", "sz/sub");
	RES("rename_over", rename("sz/p", "sz/f"));
	show_size("after_rename_over", "sz");
	RES("exchange", renameat2(AT_FDCWD, "sz/l", AT_FDCWD, "sz/sub/f3", RENAME_EXCHANGE));
	show_size("after_exchange", "sz");
	show_size("sub_after_exchange", "sz/sub");
	RES("unlink", unlink("sz/f"));
	RES("unlink_l", unlink("sz/sub/l"));
	RES("unlink_f3", unlink("sz/f3"));
	RES("rmdir", rmdir("sz/sub"));
	show_size("after_removals", "sz");
	/* symlinks: short targets inline, SHORT_SYMLINK_LEN (128) or more take
	 * a block */
	fd = open(".", O_RDONLY | O_DIRECTORY);
	used0 = used_blocks(fd);
	memset(target, 'y', sizeof(target));
	target[127] = '\0';
	RES("symlink_127", symlink(target, "sz/l127"));
	printf("used_after_127: %ld\n", used_blocks(fd) - used0);
	target[127] = 'y';
	target[128] = '\0';
	RES("symlink_128", symlink(target, "sz/l128"));
	printf("used_after_128: %ld\n", used_blocks(fd) - used0);
	show_size("symlink_127", "sz/l127");
	show_size("symlink_128", "sz/l128");
	RES("unlink_128", unlink("sz/l128"));
	/* through FUSE the block returns at the FORGET that follows the
	 * unlink, asynchronously: wait for it (bounded, 10 s) */
	for (int i = 0; i < 1000 && used_blocks(fd) - used0 > 0; i++)
		usleep(10000);
	printf("used_after_unlink_128: %ld\n", used_blocks(fd) - used0);
	close(fd);
	return 0;
}

/* ---- fsx: random operations checked against a copy in memory ---------- */

#define FSX_MAX (256 * 1024L)

static uint64_t fsx_rand_state;

static uint64_t fsx_rand(void)
{
	/* xorshift64*: the same sequence on every file system */
	fsx_rand_state ^= fsx_rand_state >> 12;
	fsx_rand_state ^= fsx_rand_state << 25;
	fsx_rand_state ^= fsx_rand_state >> 27;
	return fsx_rand_state * 2685821657736338717ULL;
}

static int run_fsx(const char *dir, long nops)
{
	static unsigned char good[FSX_MAX], buf[FSX_MAX];
	static const char *const names[] = {"write", "read",  "truncate", "fallocate",
					    "keep",  "punch", "mapwrite", "mapread"};
	off_t size = 0;
	int fd;

	if (chdir(dir))
		die(dir);
	fd = open("fsx", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open fsx");
	fsx_rand_state = 0x9e3779b97f4a7c15ULL;
	for (long op = 0; op < nops; op++) {
		int kind = (int)(fsx_rand() % 8);
		off_t off = (off_t)(fsx_rand() % FSX_MAX);
		size_t len = (size_t)(fsx_rand() % (3 * PG)) + 1;
		const char *what = names[kind];
		int bad = 0;

		if ((off_t)(off + len) > FSX_MAX)
			len = (size_t)(FSX_MAX - off);
		switch (kind) {
		case 0: /* write */
			for (size_t i = 0; i < len; i++)
				buf[i] = (unsigned char)(fsx_rand() | 1);
			if (pwrite(fd, buf, len, off) != (ssize_t)len)
				bad = 1;
			memcpy(good + off, buf, len);
			if (off + (off_t)len > size)
				size = off + (off_t)len;
			break;
		case 1: /* read */
			if (off >= size)
				break;
			if ((off_t)(off + len) > size)
				len = (size_t)(size - off);
			if (pread(fd, buf, len, off) != (ssize_t)len ||
			    memcmp(buf, good + off, len))
				bad = 1;
			break;
		case 2: /* truncate */
			if (ftruncate(fd, off))
				bad = 1;
			if (off < size) /* beyond the size, good[] is always zero */
				memset(good + off, 0, (size_t)(size - off));
			size = off;
			break;
		case 3: /* fallocate */
		case 4: /* keep */
			if (fallocate(fd, kind == 4 ? FALLOC_FL_KEEP_SIZE : 0, off, (off_t)len))
				bad = 1;
			if (kind == 3 && off + (off_t)len > size)
				size = off + (off_t)len;
			break;
		case 5: /* punch */
			if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off,
				      (off_t)len))
				bad = 1;
			memset(good + off, 0, len);
			break;
		case 6:	  /* mapwrite within the file */
		case 7: { /* mapread */
			off_t moff = off & ~(PG - 1);
			size_t mlen;
			unsigned char *m;

			if (off >= size)
				break;
			if ((off_t)(off + len) > size)
				len = (size_t)(size - off);
			mlen = (size_t)(off - moff) + len;
			m = mmap(NULL, mlen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, moff);
			if (m == MAP_FAILED) {
				bad = 1;
				break;
			}
			if (kind == 6) {
				for (size_t i = 0; i < len; i++)
					good[off + (off_t)i] = m[off - moff + (off_t)i] =
					    (unsigned char)(fsx_rand() | 1);
				if (msync(m, mlen, MS_SYNC))
					bad = 1;
			} else if (memcmp(m + (off - moff), good + off, len)) {
				bad = 1;
			}
			munmap(m, mlen);
			break;
		}
		}
		if (!bad) {
			struct stat st;

			if (fstat(fd, &st) || st.st_size != size)
				bad = 2;
		}
		if (bad) {
			printf("fsx: op %ld %s off %lld len %zu: %s\n", op, what, (long long)off,
			       len,
			       bad == 2 ? "size differs"
			       : errno	? errname(errno)
					: "data differs");
			close(fd);
			return 0;
		}
	}
	/* the whole file at the end, read back */
	if (pread(fd, buf, (size_t)size, 0) != (ssize_t)size || memcmp(buf, good, (size_t)size))
		printf("fsx: final contents differ\n");
	else
		printf("fsx: %ld operations ok, size %lld\n", nops, (long long)size);
	close(fd);
	unlink("fsx");
	return 0;
}

/* ---- readdir while renaming -------------------------------------------- */

struct rd_walk {
	int total, dups, calls;
};

/* Entries of one getdents64 call into w; names "<a|b>NNNN-..." index seen[]. */
static long rd_read(int fd, unsigned char *seen, int n, struct rd_walk *w)
{
	char buf[1024];
	long got = syscall(SYS_getdents64, fd, buf, sizeof(buf));

	for (long off = 0; off < got;) {
		struct dirent64 *de = (struct dirent64 *)(buf + off);
		int k;

		off += de->d_reclen;
		if (de->d_name[0] == '.')
			continue;
		if (sscanf(de->d_name + 1, "%d", &k) != 1 || k < 0 || k >= n)
			continue;
		if (seen[k]++)
			w->dups++;
		w->total++;
	}
	w->calls++;
	return got;
}

/*
 * A directory of N entries read with small getdents64 calls while, between
 * two calls, every other entry is renamed (a new name, so tmpfs and the
 * model give it a new position): the walk must end, meet no entry twice
 * and return at most N entries.  Then a rewind lists every entry once.
 */
static int run_readdir(const char *dir)
{
	enum { N = 400, LIMIT = 4 * N };
	static unsigned char seen[N];
	static char cur[N];
	char a[96], b[96];
	struct rd_walk w = {0};
	int fd, round = 0;
	long got;

	if (chdir(dir) || mkdir("rr", 0755) || chdir("rr"))
		die("rr");
	memset(cur, 'a', sizeof(cur));
	for (int i = 0; i < N; i++) {
		snprintf(a, sizeof(a), "a%04d-a-longer-name-to-fill-the-pages", i);
		int f = open(a, O_CREAT | O_WRONLY, 0644);
		if (f < 0)
			die("create");
		close(f);
	}
	fd = open(".", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		die("open rr");
	while ((got = rd_read(fd, seen, N, &w)) > 0 && w.total <= LIMIT) {
		for (int i = round % 2; i < N; i += 2) {
			snprintf(a, sizeof(a), "%c%04d-a-longer-name-to-fill-the-pages", cur[i], i);
			cur[i] = cur[i] == 'a' ? 'b' : 'a';
			snprintf(b, sizeof(b), "%c%04d-a-longer-name-to-fill-the-pages", cur[i], i);
			if (rename(a, b))
				die("rename");
		}
		round++;
	}
	printf("readdir.walk_ended: %s\n", got == 0 ? "yes" : got < 0 ? errname(errno) : "no");
	printf("readdir.at_most_n: %s\n", w.total <= N ? "yes" : "no");
	printf("readdir.met_twice: %d\n", w.dups);
	printf("readdir.renamed_during_walk: %s\n", round > 1 ? "yes" : "no");
	if (w.total > N)
		fprintf(stderr, "readdir: %d entries in %d calls (directory of %d)\n", w.total,
			w.calls, N);
	memset(seen, 0, sizeof(seen));
	memset(&w, 0, sizeof(w));
	lseek(fd, 0, SEEK_SET);
	while (rd_read(fd, seen, N, &w) > 0 && w.total <= LIMIT)
		;
	printf("readdir.rewind: %d entries, %d twice\n", w.total, w.dups);
	close(fd);
	return 0;
}

/* ---- RENAME_WHITEOUT --------------------------------------------------- */

static void show_node(const char *name, const char *path)
{
	struct stat st;

	if (lstat(path, &st)) {
		printf("%s: %s\n", name, errname(errno));
		return;
	}
	printf("%s: mode %06o rdev %u:%u nlink %lu uid %u size %lld\n", name, st.st_mode,
	       major(st.st_rdev), minor(st.st_rdev), (unsigned long)st.st_nlink, st.st_uid,
	       (long long)st.st_size);
}

static void whiteout_as_nobody(void)
{
	/* no privilege needed (Linux 5.8 dropped the CAP_MKNOD check) */
	RES("nobody.whiteout", renameat2(AT_FDCWD, "wo/n", AT_FDCWD, "wo/n2", RENAME_WHITEOUT));
}

static int run_whiteout(const char *dir)
{
	if (chdir(dir) || mkdir("wo", 0777) || chmod("wo", 0777) || mkdir("wo/sub", 0755))
		die("wo");
	create_mode("wo/f", 0640);
	create_mode("wo/t", 0600);
	create_mode("wo/n", 0666);
	RES("whiteout.file", renameat2(AT_FDCWD, "wo/f", AT_FDCWD, "wo/g", RENAME_WHITEOUT));
	show_node("whiteout.old_name", "wo/f");
	show_node("whiteout.new_name", "wo/g");
	show_node("whiteout.dir", "wo");
	RES("whiteout.over_target", renameat2(AT_FDCWD, "wo/g", AT_FDCWD, "wo/t", RENAME_WHITEOUT));
	show_node("whiteout.over_old", "wo/g");
	show_node("whiteout.over_new", "wo/t");
	RES("whiteout.directory",
	    renameat2(AT_FDCWD, "wo/sub", AT_FDCWD, "wo/sub2", RENAME_WHITEOUT));
	show_node("whiteout.directory_old", "wo/sub");
	show_node("whiteout.directory_new", "wo/sub2");
	RES("whiteout.across", renameat2(AT_FDCWD, "wo/t", AT_FDCWD, "wo/sub2/t", RENAME_WHITEOUT));
	show_node("whiteout.across_old", "wo/t");
	show_node("whiteout.across_dir", "wo/sub2");
	show_node("whiteout.dir_after", "wo");
	RES("whiteout.exchange",
	    renameat2(AT_FDCWD, "wo/f", AT_FDCWD, "wo/g", RENAME_WHITEOUT | RENAME_EXCHANGE));
	RES("whiteout.noreplace",
	    renameat2(AT_FDCWD, "wo/sub2/t", AT_FDCWD, "wo/g", RENAME_WHITEOUT | RENAME_NOREPLACE));
	RES("whiteout.noreplace_exists",
	    renameat2(AT_FDCWD, "wo/g", AT_FDCWD, "wo/f", RENAME_WHITEOUT | RENAME_NOREPLACE));
	RES("whiteout.missing", renameat2(AT_FDCWD, "wo/none", AT_FDCWD, "wo/x", RENAME_WHITEOUT));
	as_user(65534, 65534, whiteout_as_nobody);
	show_node("whiteout.nobody_old", "wo/n");
	/* the whiteout is an ordinary node: it opens as a device, unlinks */
	RES("whiteout.unlink", unlink("wo/f"));
	RES("whiteout.unlink_gone", access("wo/f", F_OK));
	show_node("whiteout.dir_end", "wo");
	return 0;
}

/* ---- privilege stripping ----------------------------------------------- */

/* A v2 file capability (struct vfs_cap_data): cap_net_bind_service=p. */
static const uint32_t kp_cap[5] = {0x02000000u, 1u << 10, 0, 0, 0};

static const char *const kp_ops[] = {"append", "fallocate", "ftruncate", "open_trunc", "chown"};

/* op on path as the current user: the call's result */
static int kp_do(const char *op, const char *path)
{
	int fd, err = 0;

	if (!strcmp(op, "chown"))
		return chown(path, 0, (gid_t)-1) ? errno : 0;
	fd = open(path, O_WRONLY | (strcmp(op, "open_trunc") ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return errno;
	if (!strcmp(op, "append") && write(fd, "hi\n", 3) != 3)
		err = errno;
	if (!strcmp(op, "fallocate") && fallocate(fd, 0, 0, 8192))
		err = errno;
	if (!strcmp(op, "ftruncate") && ftruncate(fd, 2))
		err = errno;
	close(fd);
	return err;
}

static const char *kp_path;
static const char *kp_op;

static void kp_child(void)
{
	printf("%s: %s\n", kp_path, errname(kp_do(kp_op, kp_path)));
}

/* root sets up path with mode, group gid and (cap) a file capability;
 * uid/gid (or root: uid 0) runs op; the mode and capability after */
static void kp_case(const char *op, mode_t mode, gid_t fgid, bool cap, uid_t uid, gid_t gid)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "kp/%s-%s-%04o-g%u-u%u", op, cap ? "cap" : "nocap",
		 (unsigned)mode, (unsigned)fgid, (unsigned)uid);
	create_mode(path, 0666);
	if (chown(path, 0, fgid) || chmod(path, mode))
		die("kp setup");
	if (cap && setxattr(path, "security.capability", kp_cap, sizeof(kp_cap), 0))
		printf("%s: setcap: %s\n", path, errname(errno));
	kp_path = path;
	kp_op = op;
	if (uid)
		as_user(uid, gid, kp_child);
	else
		kp_child();
	if (lstat(path, &st))
		die("kp stat");
	printf("%s: mode %04o capability %s\n", path, (unsigned)(st.st_mode & 07777),
	       getxattr(path, "security.capability", NULL, 0) >= 0 ? "kept" : errname(errno));
}

/*
 * What a write, fallocate, truncate (ftruncate, open with O_TRUNC) and a
 * chown do to S_ISUID, S_ISGID and security.capability, done by nobody
 * (65534:65534, not in the file's group 0), by nobody as a member of the
 * file's group (gid 65534), and by root (CAP_FSETID): setattr_should_drop_*
 * and file_remove_privs's rules.
 */
static int run_killpriv(const char *dir)
{
	static const mode_t modes[] = {04666, 02666, 02676, 06777, 0666};

	if (chdir(dir) || mkdir("kp", 0777) || chmod("kp", 0777))
		die("kp");
	for (size_t o = 0; o < ARRAY_LEN(kp_ops); o++) {
		for (size_t m = 0; m < ARRAY_LEN(modes); m++) {
			kp_case(kp_ops[o], modes[m], 0, false, 65534, 65534);
			kp_case(kp_ops[o], modes[m], 65534, false, 65534, 65534);
			kp_case(kp_ops[o], modes[m], 0, false, 0, 0);
		}
		kp_case(kp_ops[o], 0666, 0, true, 65534, 65534);
		kp_case(kp_ops[o], 0666, 0, true, 0, 0);
	}
	return 0;
}

/* ---- file handles ---------------------------------------------------------- */

static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sync();
	if (fd < 0 || write(fd, "2\n", 2) != 2)
		die("drop_caches");
	close(fd);
}

static struct file_handle *fh_of(const char *path)
{
	struct file_handle *fh = calloc(1, sizeof(*fh) + MAX_HANDLE_SZ);
	int mount_id;

	if (!fh)
		die("calloc");
	fh->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, path, fh, &mount_id, 0)) {
		printf("handle %s: %s\n", path, errname(errno));
		free(fh);
		return NULL;
	}
	return fh;
}

/* open_by_handle_at, and what the file holds (or the error) */
static void show_by_handle(const char *name, int mfd, struct file_handle *fh, int flags)
{
	char buf[64];
	ssize_t n;
	int fd;

	if (!fh) {
		printf("%s: no handle\n", name);
		return;
	}
	fd = open_by_handle_at(mfd, fh, flags);
	if (fd < 0) {
		printf("%s: %s\n", name, errname(errno));
		return;
	}
	if (flags & O_DIRECTORY) {
		struct stat st;

		printf("%s: ok, %s\n", name, fstat(fd, &st) || !S_ISDIR(st.st_mode) ? "?" : "dir");
	} else {
		n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		printf("%s: ok, read \"%s\"\n", name, buf);
	}
	close(fd);
}

/*
 * name_to_handle_at + open_by_handle_at after the kernel dropped its inodes
 * (drop_caches: a FUSE mount's inodes are forgotten; tmpfs's stay): a file,
 * a directory two levels down, a renamed file; then, the file removed,
 * its handle is stale (ESTALE), also once a new file took its name (and,
 * on rcuvfs, likely its inode's memory), and after many files were
 * created and removed again (the daemon's inode objects reused over and
 * over); a removed directory's handle likewise.  A file removed while
 * still open stays reachable by its handle until its last close (the
 * kernel keeps its inode, as tmpfs keeps its own).
 */
static int run_handles(const char *dir)
{
	struct file_handle *hf, *hd, *hr, *ho;
	int mfd, fd;

	if (chdir(dir) || mkdir("hd", 0755) || mkdir("hd/sub", 0755) || mkdir("hd/sub/deep", 0755))
		die("hd");
	fd = open("hd/f", O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || write(fd, "hello", 5) != 5)
		die("hd/f");
	close(fd);
	fd = open("hd/sub/r", O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || write(fd, "moved", 5) != 5)
		die("hd/sub/r");
	close(fd);
	mfd = open(".", O_RDONLY | O_DIRECTORY);
	if (mfd < 0)
		die("open mount");
	hf = fh_of("hd/f");
	hd = fh_of("hd/sub/deep");
	hr = fh_of("hd/sub/r");
	show_by_handle("handle.file_cached", mfd, hf, O_RDONLY);
	drop_caches();
	show_by_handle("handle.file_after_drop", mfd, hf, O_RDONLY);
	drop_caches();
	show_by_handle("handle.dir_after_drop", mfd, hd, O_RDONLY | O_DIRECTORY);
	RES("handle.rename", rename("hd/sub/r", "hd/r2"));
	drop_caches();
	show_by_handle("handle.renamed_after_drop", mfd, hr, O_RDONLY);
	RES("handle.unlink", unlink("hd/f"));
	drop_caches();
	show_by_handle("handle.removed", mfd, hf, O_RDONLY);
	fd = open("hd/f", O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || write(fd, "other", 5) != 5)
		die("hd/f again");
	close(fd);
	drop_caches();
	show_by_handle("handle.removed_name_reused", mfd, hf, O_RDONLY);
	for (int i = 0; i < 200; i++) {
		char name[32];

		snprintf(name, sizeof(name), "hd/c%d", i);
		fd = open(name, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			die("hd/c");
		close(fd);
		if (i % 2 && unlink(name))
			die("unlink hd/c");
	}
	drop_caches();
	show_by_handle("handle.removed_after_churn", mfd, hf, O_RDONLY);
	fd = open("hd/open", O_CREAT | O_RDWR, 0644);
	if (fd < 0 || write(fd, "still", 5) != 5)
		die("hd/open");
	ho = fh_of("hd/open");
	RES("handle.unlink_open", unlink("hd/open"));
	drop_caches();
	show_by_handle("handle.unlinked_open", mfd, ho, O_RDONLY);
	close(fd);
	drop_caches();
	show_by_handle("handle.unlinked_closed", mfd, ho, O_RDONLY);
	free(ho);
	RES("handle.rmdir", rmdir("hd/sub/deep"));
	drop_caches();
	show_by_handle("handle.dir_removed", mfd, hd, O_RDONLY | O_DIRECTORY);
	show_by_handle("handle.renamed_still", mfd, hr, O_RDONLY);
	close(mfd);
	free(hf);
	free(hd);
	free(hr);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: rcuvfs-parity DIR "
		"fallocate|owner|ioctl|xattr|sizes|readdir|whiteout|killpriv|handles|fsx [ARG]\n"
		"One parity check of a mounted rcuvfs at DIR against tmpfs's behaviour.\n"
		"  -V, --version  version and git commit\n"
		"  -h, --help     this text\n");
}

int main(int argc, char **argv)
{
	const char *mode;

	RV_CLI_OPERANDS(argc, argv, "rcuvfs-parity", usage);
	mode = argc > 2 ? argv[2] : "";
	if (argc < 3) {
		fprintf(stderr,
			"usage: %s DIR "
			"fallocate|owner|ioctl|xattr|sizes|readdir|whiteout|killpriv|handles|fsx "
			"[ARG]\n",
			argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	umask(022);
	if (!strcmp(mode, "fallocate"))
		return run_fallocate(argv[1]);
	if (!strcmp(mode, "owner"))
		return run_owner(argv[1]);
	if (!strcmp(mode, "ioctl"))
		return run_ioctl(argv[1]);
	if (!strcmp(mode, "xattr"))
		return run_xattr(argv[1]);
	if (!strcmp(mode, "sizes"))
		return run_sizes(argv[1]);
	if (!strcmp(mode, "readdir"))
		return run_readdir(argv[1]);
	if (!strcmp(mode, "whiteout"))
		return run_whiteout(argv[1]);
	if (!strcmp(mode, "killpriv"))
		return run_killpriv(argv[1]);
	if (!strcmp(mode, "handles"))
		return run_handles(argv[1]);
	if (!strcmp(mode, "fsx"))
		return run_fsx(argv[1], argc > 3 ? atol(argv[3]) : 3000);
	fprintf(stderr, "parity: unknown mode %s\n", mode);
	return 2;
}
