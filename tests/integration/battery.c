// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/integration/battery.c - one battery of file-system checks, run on an
 * rcuvfs mount and on a tmpfs; the harness compares the two outputs.
 *
 *   rcuvfs-battery DIR [basic|enospc|ctl]
 *
 * basic   (default) every check below, in DIR/work; prints "name: result"
 *         lines that leave out what cannot match between file systems
 *         (st_dev, st_ino, st_blksize, st_blocks, directory sizes, atimes
 *         the kernel serves from its cache, statfs figures).
 * enospc  fill DIR (mounted with size=1m) until the first error; prints it.
 * ctl     the /.rcuvfs control directory of an rcuvfs mount at DIR: the
 *         files parse, changes are refused with EPERM / EACCES.
 * perms   modes enforced for a non-root user, in DIR/perms (compared with
 *         a tmpfs by the harness).
 * ctl-user  the control directory as a non-root user (allow_other).
 * denied  as a non-root user on a mount without allow_other.
 *
 * Unprivileged checks fork a child that drops to nobody (uid/gid 65534):
 * the mount must use allow_other and DIR must be reachable by nobody.
 * Exit status: 0 when the battery ran (the comparison decides), 2 on a
 * setup failure.
 *
 * Locking: none; single-threaded apart from forked children.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tools/cli.h"

#include <dirent.h>
#include <grp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#define NOBODY	   65534
#define NR_BIG_DIR 10000

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
	fprintf(stderr, "battery: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void show_stat(const char *name, const char *path, int follow)
{
	struct stat st;
	int r = follow ? stat(path, &st) : lstat(path, &st);

	if (r) {
		printf("%s: stat %s\n", name, errname(errno));
		return;
	}
	printf("%s: mode %06o nlink %lu uid %u gid %u", name, st.st_mode,
	       (unsigned long)st.st_nlink, st.st_uid, st.st_gid);
	if (!S_ISDIR(st.st_mode))
		printf(" size %lld", (long long)st.st_size);
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		printf(" rdev %lx", (unsigned long)st.st_rdev);
	printf("\n");
}

static void show_content(const char *name, const char *path)
{
	char buf[256];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		printf("%s: open %s\n", name, errname(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		printf("%s: read %s\n", name, errname(errno));
		return;
	}
	buf[n] = '\0';
	printf("%s: \"%s\" (%zd bytes)\n", name, buf, n);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd))
		die(path);
}

static void show_pread(const char *name, int fd, size_t len, off_t off)
{
	char buf[64];
	ssize_t n, i;

	if (len > sizeof(buf))
		len = sizeof(buf);
	n = pread(fd, buf, len, off);
	if (n < 0) {
		printf("%s: pread %s\n", name, errname(errno));
		return;
	}
	printf("%s: %zd bytes:", name, n);
	for (i = 0; i < n; i++)
		printf(" %02x", (unsigned char)buf[i]);
	printf("\n");
}

/* ---- checks ---------------------------------------------------------- */

static void check_rw(void)
{
	off_t big = (4LL << 30) + 10;
	int fd;

	write_file("f1", "hello, world");
	show_content("rw.readback", "f1");
	show_stat("rw.stat", "f1", 1);

	fd = open("sparse", O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		die("sparse");
	RES("sparse.pwrite", pwrite(fd, "tail", 4, 1 << 20));
	show_stat("sparse.stat", "sparse", 1);
	show_pread("sparse.hole", fd, 8, 4096 * 3);
	show_pread("sparse.tail", fd, 8, (1 << 20) - 2);
	printf("sparse.seek_data0: %lld\n", (long long)lseek(fd, 0, SEEK_DATA));
	printf("sparse.seek_hole0: %lld\n", (long long)lseek(fd, 0, SEEK_HOLE));
	RES("big.pwrite", pwrite(fd, "4G", 2, big));
	show_stat("big.stat", "sparse", 1);
	show_pread("big.read", fd, 4, big - 1);
	show_pread("big.eof", fd, 4, big + 2);
	close(fd);

	fd = open("app", O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		die("app");
	RES("append.w1", write(fd, "one,", 4));
	RES("append.pwrite_ignored_off", pwrite(fd, "two,", 4, 0));
	RES("append.w3", write(fd, "three", 5));
	close(fd);
	show_content("append.content", "app");
}

static void check_truncate(void)
{
	int fd;

	write_file("t", "0123456789");
	RES("trunc.down", truncate("t", 4));
	show_content("trunc.down.content", "t");
	RES("trunc.up", truncate("t", 10000));
	show_stat("trunc.up.stat", "t", 1);
	fd = open("t", O_RDWR);
	if (fd < 0)
		die("t");
	show_pread("trunc.up.zeros", fd, 8, 9996);
	show_pread("trunc.up.head", fd, 8, 0);
	RES("ftrunc.down", ftruncate(fd, 2));
	show_pread("ftrunc.down.content", fd, 8, 0);
	RES("ftrunc.up", ftruncate(fd, 5000));
	close(fd);
	show_stat("ftrunc.stat", "t", 1);
	RES("trunc.dir", truncate(".", 0));
	RES("trunc.neg", truncate("t", -1));
	RES("trunc.enoent", truncate("nonexistent", 0));
	fd = open("t", O_RDONLY);
	RES("ftrunc.rdonly", ftruncate(fd, 0));
	close(fd);
	fd = open("t", O_WRONLY | O_TRUNC);
	close(fd);
	show_stat("otrunc.stat", "t", 1);
}

static void check_rename(void)
{
	write_file("ra", "A");
	write_file("rb", "B");
	RES("rename.file_over_file", rename("ra", "rb"));
	show_content("rename.target", "rb");
	RES("rename.source_gone", access("ra", F_OK));
	RES("mkdir.d1", mkdir("d1", 0755));
	RES("mkdir.d2", mkdir("d2", 0755));
	RES("rename.dir_over_empty_dir", rename("d1", "d2"));
	RES("rename.d1_gone", access("d1", F_OK));
	RES("mkdir.d3", mkdir("d3", 0755));
	write_file("d3/x", "x");
	RES("mkdir.d4", mkdir("d4", 0755));
	RES("rename.dir_over_nonempty", rename("d4", "d3"));
	RES("rename.file_over_dir", rename("rb", "d4"));
	RES("rename.dir_over_file", rename("d4", "rb"));
	RES("rename.into_own_subdir", rename("d3", "d3/sub"));
	RES("rename.enoent", rename("nonexistent", "zz"));
	RES("rename.same", rename("rb", "rb"));
	write_file("rc", "C");
	RES("rename.noreplace", renameat2(AT_FDCWD, "rc", AT_FDCWD, "rb", RENAME_NOREPLACE));
	RES("rename.noreplace_new", renameat2(AT_FDCWD, "rc", AT_FDCWD, "rd", RENAME_NOREPLACE));
	RES("rename.exchange", renameat2(AT_FDCWD, "rd", AT_FDCWD, "rb", RENAME_EXCHANGE));
	show_content("rename.exchange.rb", "rb");
	show_content("rename.exchange.rd", "rd");
	RES("rename.exchange_enoent", renameat2(AT_FDCWD, "rd", AT_FDCWD, "nope", RENAME_EXCHANGE));
	RES("rename.exchange_dir_file", renameat2(AT_FDCWD, "d3", AT_FDCWD, "rd", RENAME_EXCHANGE));
	show_stat("rename.exchange_dir_file.rd", "rd", 0);
	RES("rename.cross_dir", rename("rb", "d2/rb"));
	show_content("rename.cross_dir.content", "d2/rb");
	show_stat("rename.parent_nlink.d2", "d2", 1);
	RES("rename.dir_cross", rename("d2", "rd/d2moved"));
	show_stat("rename.dir_cross.nlink", "rd", 1);
}

static void check_links(void)
{
	write_file("l1", "link");
	show_stat("link.before", "l1", 1);
	RES("link.l2", link("l1", "l2"));
	RES("link.l3", link("l1", "l3"));
	show_stat("link.after2", "l1", 1);
	RES("link.exists", link("l1", "l2"));
	RES("link.dir", link("rd", "rdlink"));
	RES("link.enoent", link("nonexistent", "x"));
	RES("unlink.l2", unlink("l2"));
	show_stat("link.after_unlink", "l3", 1);
	show_content("link.content", "l3");
	RES("unlink.enoent", unlink("l2"));
	RES("unlink.dir", unlink("rd"));
	RES("rmdir.file", rmdir("l1"));
	RES("rmdir.nonempty", rmdir("rd"));
	RES("mkdir.exists", mkdir("rd", 0755));
	RES("mkdir.enoent_parent", mkdir("nope/sub", 0755));
	RES("mkdir.enotdir_parent", mkdir("l1/sub", 0755));
	RES("open.enoent", open("nonexistent", O_RDONLY));
	RES("open.dir_write", open("rd", O_WRONLY));
	RES("open.excl", open("l1", O_CREAT | O_EXCL | O_WRONLY, 0644));
	RES("open.enotdir", open("l1/x", O_RDONLY));
	{
		char name[300];

		memset(name, 'n', 256);
		name[256] = '\0';
		RES("open.nametoolong", open(name, O_CREAT | O_WRONLY, 0644));
	}
	RES("mkdir.dot", mkdir("rd/.", 0755));
	RES("rmdir.dot", rmdir("rd/."));
}

static void check_symlinks(void)
{
	char buf[256];
	ssize_t n;

	RES("symlink.s1", symlink("l1", "s1"));
	n = readlink("s1", buf, sizeof(buf) - 1);
	if (n >= 0)
		buf[n] = '\0';
	printf("symlink.readlink: %s\n", n < 0 ? errname(errno) : buf);
	show_stat("symlink.lstat", "s1", 0);
	show_stat("symlink.stat", "s1", 1);
	show_content("symlink.follow", "s1");
	RES("symlink.dangling", symlink("nowhere", "s2"));
	show_stat("symlink.dangling.stat", "s2", 1);
	RES("symlink.loop1", symlink("loopb", "loopa"));
	RES("symlink.loop2", symlink("loopa", "loopb"));
	RES("symlink.eloop", open("loopa", O_RDONLY));
	RES("symlink.exists", symlink("x", "s1"));
	RES("symlink.readlink_file", readlink("l1", buf, sizeof(buf)));
	RES("symlink.nofollow", open("s1", O_RDONLY | O_NOFOLLOW));
	RES("symlink.dir", symlink("rd", "sdir"));
	show_stat("symlink.dir.stat", "sdir/", 1);
	{
		char target[1100];

		memset(target, 't', 1000);
		target[1000] = '\0';
		RES("symlink.long", symlink(target, "slong"));
		n = readlink("slong", buf, sizeof(buf));
		printf("symlink.long.readlink_trunc: %zd\n", n);
		show_stat("symlink.long.lstat", "slong", 0);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_bigdir(void)
{
	char path[300], **names;
	struct dirent *de;
	unsigned long sum = 0;
	int i, n = 0, dups = 0, removed = 0;
	DIR *d;

	if (mkdir("big", 0755))
		die("big");
	for (i = 0; i < NR_BIG_DIR; i++) {
		snprintf(path, sizeof(path), "big/entry-%05d", i);
		if (mknod(path, S_IFREG | 0644, 0))
			die(path);
	}
	names = calloc(NR_BIG_DIR + 16, sizeof(*names));
	d = opendir("big");
	if (!d || !names)
		die("opendir big");
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n < NR_BIG_DIR + 16)
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		const char *p;

		if (i && !strcmp(names[i], names[i - 1]))
			dups++;
		for (p = names[i]; *p; p++)
			sum = sum * 31 + (unsigned char)*p;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	printf("bigdir.entries: %d dups %d sum %lx\n", n, dups, sum);

	/* remove while reading, as rm -rf does: cookies must stay valid */
	d = opendir("big");
	if (!d)
		die("opendir big");
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "big/%s", de->d_name);
		if (i++ % 2 == 0 && !unlink(path))
			removed++;
	}
	closedir(d);
	printf("bigdir.removed_while_reading: %d\n", removed);

	/* a tree, then rm -rf */
	if (mkdir("tree", 0755))
		die("tree");
	for (i = 0; i < 20; i++) {
		snprintf(path, sizeof(path), "tree/d%02d", i);
		if (mkdir(path, 0755))
			die(path);
		snprintf(path, sizeof(path), "tree/d%02d/sub", i);
		if (mkdir(path, 0755))
			die(path);
		snprintf(path, sizeof(path), "tree/d%02d/sub/f", i);
		write_file(path, "x");
		snprintf(path, sizeof(path), "tree/d%02d/link", i);
		if (symlink("sub/f", path))
			die(path);
	}
	printf("rm_rf.big: %d\n", system("rm -rf big") == 0);
	printf("rm_rf.tree: %d\n", system("rm -rf tree") == 0);
	RES("rm_rf.big_gone", access("big", F_OK));
	RES("rm_rf.tree_gone", access("tree", F_OK));
}

static void check_orphan(void)
{
	struct stat st;
	char buf[32];
	ssize_t n;
	int fd;

	write_file("orphan", "still here");
	fd = open("orphan", O_RDWR);
	if (fd < 0)
		die("orphan");
	RES("orphan.unlink", unlink("orphan"));
	RES("orphan.gone", access("orphan", F_OK));
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n < 0 ? 0 : n] = '\0';
	printf("orphan.read: \"%s\"\n", buf);
	RES("orphan.write", pwrite(fd, "!", 1, 10));
	if (fstat(fd, &st) == 0)
		printf("orphan.fstat: nlink %lu size %lld\n", (unsigned long)st.st_nlink,
		       (long long)st.st_size);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n < 0 ? 0 : n] = '\0';
	printf("orphan.read2: \"%s\"\n", buf);
	RES("orphan.close", close(fd));
}

static void check_fifo(void)
{
	char buf[8] = "";
	int fd;

	RES("fifo.mkfifo", mkfifo("fifo", 0640));
	show_stat("fifo.stat", "fifo", 1);
	fd = open("fifo", O_RDWR | O_NONBLOCK);
	if (fd < 0) {
		printf("fifo.open: %s\n", errname(errno));
		return;
	}
	RES("fifo.write", write(fd, "pipe", 4));
	RES("fifo.read", read(fd, buf, 4));
	printf("fifo.data: %.4s\n", buf);
	close(fd);
	RES("fifo.mknod_reg", mknod("regnod", S_IFREG | 0600, 0));
	show_stat("fifo.mknod_reg.stat", "regnod", 1);
	RES("fifo.exists", mkfifo("fifo", 0640));
}

static void check_attrs(void)
{
	struct timespec ts[2] = {{1000000000, 123456789}, {1100000000, 987654321}};
	struct stat st;
	int fd;

	write_file("attr", "a");
	RES("chmod", chmod("attr", 04751));
	show_stat("chmod.stat", "attr", 1);
	RES("chown", chown("attr", 1234, 5678));
	show_stat("chown.stat", "attr", 1);
	RES("chmod.after_chown", chmod("attr", 0640));
	RES("utimens", utimensat(AT_FDCWD, "attr", ts, 0));
	if (stat("attr", &st) == 0)
		printf("utimens.stat: atime %ld.%09ld mtime %ld.%09ld\n", (long)st.st_atim.tv_sec,
		       st.st_atim.tv_nsec, (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_sec = 1200000000;
	ts[1].tv_nsec = 1;
	RES("utimens.omit", utimensat(AT_FDCWD, "attr", ts, 0));
	if (stat("attr", &st) == 0)
		printf("utimens.omit.stat: atime %ld.%09ld mtime %ld.%09ld\n",
		       (long)st.st_atim.tv_sec, st.st_atim.tv_nsec, (long)st.st_mtim.tv_sec,
		       st.st_mtim.tv_nsec);
	fd = open("attr", O_RDWR);
	RES("fchmod", fchmod(fd, 0600));
	RES("futimens.now", futimens(fd, NULL));
	if (fstat(fd, &st) == 0)
		printf("futimens.now.recent: %d\n", st.st_mtim.tv_sec > 1600000000);
	close(fd);
	show_stat("fchmod.stat", "attr", 1);
	RES("chmod.enoent", chmod("nonexistent", 0644));
	RES("lchown.symlink", lchown("s1", 42, 43));
	show_stat("lchown.symlink.stat", "s1", 0);
	RES("fallocate", ({
		    int f = open("falloc", O_RDWR | O_CREAT, 0644);
		    int r = posix_fallocate(f, 0, 100000);
		    close(f);
		    r ? (errno = r, -1) : 0;
	    }));
	show_stat("fallocate.stat", "falloc", 1);
}

/*
 * Run fn in a child that is nobody (uid and gid 65534, no supplementary
 * groups; no account is needed for that), with the same cwd.
 */
static void as_nobody(void (*fn)(void))
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			die("setuid nobody");
		fn();
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		printf("nobody: child failed\n");
}

static void unprivileged_calls(void)
{
	RES("nobody.read_private", open("rootfile", O_RDONLY));
	RES("nobody.read_public", open("rootpub", O_RDONLY));
	RES("nobody.write_public", open("rootpub", O_WRONLY));
	RES("nobody.create_in_rootdir", open("rootdir/x", O_CREAT | O_WRONLY, 0644));
	RES("nobody.mkdir_in_rootdir", mkdir("rootdir/x", 0755));
	RES("nobody.chmod_other", chmod("rootpub", 0777));
	RES("nobody.chown_other", chown("rootpub", NOBODY, NOBODY));
	RES("nobody.utimes_other",
	    utimensat(AT_FDCWD, "rootpub", (struct timespec[2]){{1, 0}, {1, 0}}, 0));
	RES("nobody.utimes_now_other", utimensat(AT_FDCWD, "rootpub", NULL, 0));
	RES("nobody.truncate_other", truncate("rootpub", 0));
	RES("nobody.unlink_in_rootdir", unlink("rootdir/f"));
	RES("nobody.rename_in_rootdir", rename("rootdir/f", "rootdir/g"));
	RES("nobody.create_shared", open("shared/mine", O_CREAT | O_WRONLY, 0600));
	show_stat("nobody.mine.stat", "shared/mine", 1);
	RES("nobody.chown_mine_to_root", chown("shared/mine", 0, 0));
	RES("nobody.chmod_mine", chmod("shared/mine", 0640));
	RES("nobody.unlink_sticky_other", unlink("shared/rootowned"));
	RES("nobody.rename_sticky_other", rename("shared/rootowned", "shared/stolen"));
	RES("nobody.write_other_0666", open("shared/rootowned", O_WRONLY));
	RES("nobody.unlink_mine", unlink("shared/mine"));
	RES("nobody.access_x", access("rootfile", X_OK));
}

/* As nobody: what the kernel's default_permissions and the model refuse. */
static void check_unprivileged(void)
{
	write_file("rootfile", "secret");
	chmod("rootfile", 0600);
	write_file("rootpub", "public");
	chmod("rootpub", 0644);
	mkdir("rootdir", 0755);
	write_file("rootdir/f", "f");
	mkdir("shared", 01777);
	chmod("shared", 01777);
	write_file("shared/rootowned", "r");
	chmod("shared/rootowned", 0666);
	as_nobody(unprivileged_calls);
}

static int run_basic(const char *dir)
{
	if (chdir(dir))
		die(dir);
	if (mkdir("work", 0777) || chmod("work", 0777) || chdir("work"))
		die("work");
	check_rw();
	check_truncate();
	check_rename();
	check_links();
	check_symlinks();
	check_orphan();
	check_fifo();
	check_attrs();
	check_unprivileged();
	check_bigdir();
	printf("done\n");
	return 0;
}

static int run_enospc(const char *dir)
{
	static char block[65536];
	long long total = 0;
	ssize_t n;
	int fd, err = 0;

	if (chdir(dir))
		die(dir);
	memset(block, 'z', sizeof(block));
	fd = open("fill", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("fill");
	while (total < (64LL << 20)) {
		n = write(fd, block, sizeof(block));
		if (n < 0) {
			err = errno;
			break;
		}
		total += n;
	}
	printf("enospc.first_error: %s\n", errname(err));
	printf("enospc.filled_at_least_half: %d\n", total >= 512 * 1024);
	printf("enospc.not_beyond_limit: %d\n", total <= 1024 * 1024);
	close(fd);
	RES("enospc.unlink", unlink("fill"));
	fd = open("again", O_WRONLY | O_CREAT, 0644);
	RES("enospc.write_after_free", write(fd, block, sizeof(block)));
	close(fd);
	unlink("again");
	return 0;
}

static int parse_lines(const char *path, int (*ok)(const char *line))
{
	char line[1024];
	int n = 0, bad = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (!ok(line))
			bad++;
	}
	fclose(f);
	return bad ? -bad : n;
}

static int line_kv(const char *l) /* name=value */
{
	const char *eq = strchr(l, '=');

	return eq && eq > l &&
	       strspn(l, "abcdefghijklmnopqrstuvwxyz_0123456789") == (size_t)(eq - l);
}

static int line_stat(const char *l) /* name value */
{
	char name[128];
	unsigned long long v;

	return sscanf(l, "%127[a-z0-9_] %llu", name, &v) == 2;
}

static int line_any(const char *l)
{
	return l[0] != '\0';
}

static int run_ctl(const char *dir)
{
	struct stat st;
	int fd, n;

	if (chdir(dir) || chdir(".rcuvfs"))
		die(".rcuvfs");
	n = parse_lines("config", line_kv);
	printf("ctl.config_lines_ok: %d\n", n > 5);
	n = parse_lines("stats", line_stat);
	printf("ctl.stats_lines_ok: %d\n", n > 10);
	n = parse_lines("slabinfo", line_any);
	printf("ctl.slabinfo_lines_ok: %d\n", n > 1);
	n = parse_lines("locks", line_any);
	printf("ctl.locks_readable: %d\n", n >= 0);
	RES("ctl.write_stats", open("stats", O_WRONLY));
	RES("ctl.rdwr_config", open("config", O_RDWR));
	RES("ctl.trunc_config", open("config", O_RDONLY | O_TRUNC));
	RES("ctl.create", open("newfile", O_CREAT | O_WRONLY, 0644));
	RES("ctl.mkdir", mkdir("newdir", 0755));
	RES("ctl.mknod", mknod("newnod", S_IFREG | 0644, 0));
	RES("ctl.symlink", symlink("x", "newlink"));
	RES("ctl.unlink", unlink("stats"));
	RES("ctl.rename_in", rename("stats", "stats2"));
	RES("ctl.rename_out", rename("stats", "../stats"));
	RES("ctl.link_out", link("stats", "../statslink"));
	RES("ctl.chmod", chmod("stats", 0666));
	RES("ctl.truncate", truncate("stats", 0));
	RES("ctl.rmdir_self", rmdir("../.rcuvfs"));
	RES("ctl.rename_self", rename("../.rcuvfs", "../ctl"));
	RES("ctl.mkdir_over", mkdir("../.rcuvfs", 0755));
	RES("ctl.stat", stat("stats", &st));
	printf("ctl.stat.mode: %o\n", st.st_mode);
	/* the snapshot is taken at open: two reads of one fd agree */
	fd = open("stats", O_RDONLY);
	if (fd >= 0) {
		static char a[1 << 16], b[1 << 16];
		ssize_t na = pread(fd, a, sizeof(a), 0), nb = pread(fd, b, sizeof(b), 0);

		printf("ctl.snapshot_stable: %d\n",
		       na > 0 && na == nb && !memcmp(a, b, (size_t)na));
		close(fd);
	}
	/* the root listing hides the control directory */
	{
		DIR *d = opendir("..");
		struct dirent *de;
		int seen = 0;

		while (d && (de = readdir(d)))
			seen |= !strcmp(de->d_name, ".rcuvfs");
		if (d)
			closedir(d);
		printf("ctl.hidden_in_root: %d\n", !seen);
	}
	return 0;
}

/*
 * perms: modes as a non-root user sees them (nobody, gid 65534 only), for
 * the harness to compare with a tmpfs: search and read bits of
 * directories, the group class taking precedence over other, setgid
 * directories, write clearing S_ISUID/S_ISGID, chmod dropping S_ISGID for
 * a group the caller is not in, protected hardlinks, sticky directories,
 * timestamps, truncate, xattr namespaces.  Then root's view of the result.
 */
static void perms_calls(void)
{
	char buf[16];
	int fd;

	RES("perms.read_in_0700", open("priv/f", O_RDONLY));
	RES("perms.stat_in_0700", stat("priv/f", &(struct stat){0}));
	RES("perms.list_0700", open("priv", O_RDONLY | O_DIRECTORY));
	RES("perms.read_in_0711", open("xonly/f", O_RDONLY));
	RES("perms.list_0711", open("xonly", O_RDONLY | O_DIRECTORY));
	RES("perms.create_in_0711", open("xonly/n", O_CREAT | O_WRONLY, 0644));
	RES("perms.read_group_r", open("ronly/g", O_RDONLY));
	RES("perms.read_group_none_other_r", open("ronly/h", O_RDONLY));
	RES("perms.access_r", access("ronly/f", R_OK));
	RES("perms.access_w", access("ronly/f", W_OK));
	RES("perms.mkdir_in_0755", mkdir("ronly/d", 0755));
	RES("perms.truncate_0644", truncate("ronly/f", 0));
	RES("perms.utimes_now_0644", utimensat(AT_FDCWD, "ronly/f", NULL, 0));
	RES("perms.create_group_w", open("grpw/n", O_CREAT | O_WRONLY, 0644));
	RES("perms.unlink_group_w", unlink("grpw/n"));
	RES("perms.create_in_setgid", open("sgid/n", O_CREAT | O_WRONLY, 02755));
	RES("perms.mkdir_in_setgid", mkdir("sgid/d", 0755));
	fd = open("suid", O_WRONLY);
	RES("perms.write_suid_0777", fd < 0 ? -1 : write(fd, "w", 1));
	if (fd >= 0)
		close(fd);
	RES("perms.chmod_mine_sgid", chmod("pub/mine", 02755));
	RES("perms.chmod_mine_sgid_rootgroup", chmod("pub/minerg", 02755));
	RES("perms.chown_mine_group_root", chown("pub/mine", (uid_t)-1, 0));
	RES("perms.chown_mine_to_self", chown("pub/mine", NOBODY, NOBODY));
	RES("perms.link_other_0644", link("ronly/f", "pub/hl"));
	RES("perms.link_mine", link("pub/mine", "pub/hl2"));
	RES("perms.utimes_now_0666", utimensat(AT_FDCWD, "pub/w", NULL, 0));
	RES("perms.utimes_set_0666",
	    utimensat(AT_FDCWD, "pub/w", (struct timespec[2]){{1, 0}, {1, 0}}, 0));
	RES("perms.truncate_0666", truncate("pub/w", 1));
	RES("perms.rename_out_of_0755", rename("ronly/f", "pub/f"));
	RES("perms.rmdir_in_0755", rmdir("ronly/sub"));
	RES("perms.xattr_user_set_0644", setxattr("ronly/f", "user.a", "v", 1, 0));
	RES("perms.xattr_user_set_mine", setxattr("pub/mine", "user.a", "v", 1, 0));
	RES("perms.xattr_user_get_0700", getxattr("priv/f", "user.a", buf, sizeof(buf)));
	RES("perms.xattr_user_get_0644", getxattr("ronly/f", "user.r", buf, sizeof(buf)));
	RES("perms.xattr_trusted_set_mine", setxattr("pub/mine", "trusted.a", "v", 1, 0));
	RES("perms.xattr_user_remove_0644", removexattr("ronly/f", "user.r"));
}

static int run_perms(const char *dir)
{
	static const char *const shown[] = {"sgid/n", "sgid/d",	 "suid",  "pub/mine", "pub/minerg",
					    "pub/hl", "pub/hl2", "pub/w", "ronly/f",  "xonly/n"};

	if (chdir(dir))
		die(dir);
	if (mkdir("perms", 0755) || chdir("perms"))
		die("perms");
	if (mkdir("priv", 0700) || mkdir("xonly", 0711) || mkdir("ronly", 0755) ||
	    mkdir("ronly/sub", 0755) || mkdir("grpw", 0770) || mkdir("sgid", 0777) ||
	    mkdir("pub", 0777) || chmod("pub", 0777) || chmod("sgid", 02777) ||
	    chown("grpw", 0, NOBODY) || chmod("grpw", 0770))
		die("perms dirs");
	write_file("priv/f", "p");
	write_file("xonly/f", "x");
	write_file("ronly/f", "r");
	write_file("ronly/g", "g");
	write_file("ronly/h", "h");
	write_file("suid", "s");
	write_file("pub/w", "w");
	write_file("pub/mine", "m");
	write_file("pub/minerg", "m");
	if (chown("ronly/g", 0, NOBODY) || chmod("ronly/g", 0640) || chown("ronly/h", 0, NOBODY) ||
	    chmod("ronly/h", 0604) || chmod("suid", 06777) || chmod("pub/w", 0666) ||
	    chown("pub/mine", NOBODY, NOBODY) || chown("pub/minerg", NOBODY, 0) ||
	    setxattr("ronly/f", "user.r", "root", 4, 0))
		die("perms files");
	as_nobody(perms_calls);
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "perms.after.%s", shown[i]);
		show_stat(name, shown[i], 0);
	}
	return 0;
}

/*
 * ctl-user: the control directory as nobody on a mount with allow_other:
 * readable, and every change refused (by the kernel's permission checks on
 * its 0555 directory and 0444 files, before the daemon sees the request).
 */
static void ctl_user_calls(void)
{
	struct stat st;
	char buf[16];

	printf("ctl-user.config_lines_ok: %d\n", parse_lines("config", line_kv) > 5);
	RES("ctl-user.write_stats", open("stats", O_WRONLY));
	RES("ctl-user.rdwr_config", open("config", O_RDWR));
	RES("ctl-user.trunc_config", open("config", O_RDONLY | O_TRUNC));
	RES("ctl-user.create", open("newfile", O_CREAT | O_WRONLY, 0644));
	RES("ctl-user.mkdir", mkdir("newdir", 0755));
	RES("ctl-user.symlink", symlink("x", "newlink"));
	RES("ctl-user.unlink", unlink("stats"));
	RES("ctl-user.rename_in", rename("stats", "stats2"));
	RES("ctl-user.rename_out", rename("stats", "../stats"));
	RES("ctl-user.rename_into", rename("../mine", "mine"));
	RES("ctl-user.link_out", link("stats", "../statslink"));
	RES("ctl-user.chmod", chmod("stats", 0666));
	RES("ctl-user.chmod_dir", chmod(".", 0777));
	RES("ctl-user.chown", chown("stats", NOBODY, NOBODY));
	RES("ctl-user.truncate", truncate("stats", 0));
	RES("ctl-user.utimes_now", utimensat(AT_FDCWD, "stats", NULL, 0));
	RES("ctl-user.xattr_set", setxattr("stats", "user.a", "v", 1, 0));
	RES("ctl-user.xattr_get", getxattr("stats", "user.a", buf, sizeof(buf)));
	RES("ctl-user.rmdir_self", rmdir("../.rcuvfs"));
	RES("ctl-user.rename_self", rename("../.rcuvfs", "../ctl"));
	RES("ctl-user.stat", stat("stats", &st));
}

static int run_ctl_user(const char *dir)
{
	if (chdir(dir))
		die(dir);
	write_file("mine", "m");
	if (chown("mine", NOBODY, NOBODY) || chdir(".rcuvfs"))
		die(".rcuvfs");
	as_nobody(ctl_user_calls);
	unlink("../mine");
	return 0;
}

/*
 * denied: as nobody on a mount without allow_other, where the kernel's
 * fuse_allow_current_process refuses every request of another user.
 */
static void denied_calls(void)
{
	char buf[16];

	RES("denied.stat_root", stat(".", &(struct stat){0}));
	RES("denied.list_root", open(".", O_RDONLY | O_DIRECTORY));
	RES("denied.read", open("f", O_RDONLY));
	RES("denied.stat", stat("f", &(struct stat){0}));
	RES("denied.create", open("new", O_CREAT | O_WRONLY, 0644));
	RES("denied.mkdir", mkdir("newdir", 0755));
	RES("denied.unlink", unlink("f"));
	RES("denied.rename", rename("f", "g"));
	RES("denied.chmod", chmod("f", 0777));
	RES("denied.xattr_get", getxattr("f", "user.a", buf, sizeof(buf)));
	RES("denied.access", access("f", F_OK));
	RES("denied.ctl_read", open(".rcuvfs/config", O_RDONLY));
	RES("denied.ctl_stat", stat(".rcuvfs", &(struct stat){0}));
}

static int run_denied(const char *dir)
{
	/* root enters and makes the root 0777: what refuses is the mount */
	if (chdir(dir) || chmod(".", 0777))
		die(dir);
	write_file("f", "f");
	as_nobody(denied_calls);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: rcuvfs-battery DIR [basic|enospc|ctl|perms|ctl-user|denied]\n"
		     "The integration battery on a mounted rcuvfs at DIR (tests/integration/\n"
		     "battery.sh runs it); the second operand picks the part (default basic).\n"
		     "  -V, --version  version and git commit\n"
		     "  -h, --help     this text\n");
}

int main(int argc, char **argv)
{
	const char *mode;

	RV_CLI_OPERANDS(argc, argv, "rcuvfs-battery", usage);
	mode = argc > 2 ? argv[2] : "basic";
	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR [basic|enospc|ctl|perms|ctl-user|denied]\n",
			argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	umask(022);
	if (!strcmp(mode, "basic"))
		return run_basic(argv[1]);
	if (!strcmp(mode, "enospc"))
		return run_enospc(argv[1]);
	if (!strcmp(mode, "ctl"))
		return run_ctl(argv[1]);
	if (!strcmp(mode, "perms"))
		return run_perms(argv[1]);
	if (!strcmp(mode, "ctl-user"))
		return run_ctl_user(argv[1]);
	if (!strcmp(mode, "denied"))
		return run_denied(argv[1]);
	fprintf(stderr, "battery: unknown mode %s\n", mode);
	return 2;
}
