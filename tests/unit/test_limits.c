// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_limits.c - offsets and sizes at the kernel's limits:
 * truncate, pread/pwrite, lseek (SEEK_SET/CUR/END/DATA/HOLE), fallocate,
 * mmap offsets and POSIX lock ranges at 0, 2^63-1 (MAX_LFS_FILESIZE),
 * 2^63-PAGE_SIZE and negative values; mlock/munlock ranges that wrap the
 * top of the address space.
 *
 * One script of calls runs against a model file and, when /dev/shm is a
 * tmpfs, against a host file there: every step asserts the model's answer
 * (the kernel's, written in the table) and that the host kernel gives the
 * same.  Where Linux 6.x's answer comes from an overflow of its own
 * (mapping_seek_hole_data on a file with data in its last page) the step
 * is model-only and its comment says what the host answers.  Run under
 * the ASan+UBSan build these steps are where signed overflow used to hide.
 */
#include "test_mm_util.h"
#include "vfs/vfs.h"
#include "locks/locks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define M	     INT64_MAX
#define P	     ((int64_t)PAGE_SIZE)
#define TMPFS_MAGIC_ 0x01021994

enum op { TRUNC, PWRITE, PREAD, SEEK, FALLOC, MMAP, SETLK };

struct step {
	enum op op;
	int64_t a, b; /* offset/size and count/len */
	int c;	      /* whence or fallocate mode or lock type */
	int64_t want; /* the result, or -errno */
	bool model_only;
};

static const char pattern[16] = "0123456789abcdef";

/* The model's answer: result or -errno. */
static int64_t model_step(struct file *f, struct mm_struct *mm, const struct step *s)
{
	char buf[16];
	int64_t pos = s->a;
	struct flock l;
	long addr;

	switch (s->op) {
	case TRUNC:
		return do_truncate("/limits", s->a);
	case PWRITE:
		return vfs_write(f, pattern, (size_t)s->b, &pos);
	case PREAD:
		pos = vfs_read(f, buf, (size_t)s->b, &pos);
		if (pos > 0 && memcmp(buf, pattern, (size_t)pos))
			return -EIO; /* the bytes written at the same offset */
		return pos;
	case SEEK:
		return vfs_llseek(f, s->a, s->c);
	case FALLOC:
		return vfs_fallocate(f, s->c, s->a, s->b);
	case MMAP:
		/* mmap(2)'s byte offset, page aligned, as vm_mmap's pgoff */
		addr = vm_mmap(mm, 0, (unsigned long)s->b, PROT_READ, MAP_SHARED, f,
			       (unsigned long)s->a >> PAGE_SHIFT);
		if (addr < 0)
			return addr;
		return vm_munmap(mm, (unsigned long)addr, (unsigned long)s->b);
	case SETLK:
		l = (struct flock){
		    .l_type = F_WRLCK, .l_whence = (short)s->c, .l_start = s->a, .l_len = s->b};
		return fcntl_setlk(f, F_SETLK, &l, (fl_owner_t)f, 1, NULL);
	}
	return -ENOSYS;
}

/* The host kernel's answer on a tmpfs file: result or -errno. */
static int64_t host_step(int fd, const struct step *s)
{
	char buf[16];
	int64_t r = -1;
	struct flock l;
	void *p;

	errno = 0;
	switch (s->op) {
	case TRUNC:
		r = ftruncate(fd, s->a);
		break;
	case PWRITE:
		r = pwrite(fd, pattern, (size_t)s->b, s->a);
		break;
	case PREAD:
		r = pread(fd, buf, (size_t)s->b, s->a);
		if (r > 0 && memcmp(buf, pattern, (size_t)r))
			return -EIO;
		break;
	case SEEK:
		r = lseek(fd, s->a, s->c);
		break;
	case FALLOC:
		r = fallocate(fd, s->c, s->a, s->b);
		break;
	case MMAP:
		p = mmap(NULL, (size_t)s->b, PROT_READ, MAP_SHARED, fd, s->a);
		if (p == MAP_FAILED)
			break;
		return munmap(p, (size_t)s->b) ? -errno : 0;
	case SETLK:
		l = (struct flock){
		    .l_type = F_WRLCK, .l_whence = (short)s->c, .l_start = s->a, .l_len = s->b};
		r = fcntl(fd, F_SETLK, &l);
		break;
	}
	/* a negative result outside the errno range is a value (lseek's -2^63) */
	return r < 0 && r >= -4095 && errno ? -errno : r;
}

#define PUNCH (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)
#define LAST  (M - P + 1) /* 2^63 - PAGE_SIZE: the last page a file can have */

static const struct step script[] = {
    /* truncate up to the limit and down within its last pages (the
     * partial-page rounding of truncate_inode_pages) */
    {TRUNC, M, 0, 0, 0, false},
    {TRUNC, M - 1, 0, 0, 0, false},
    {TRUNC, M - P, 0, 0, 0, false},
    {TRUNC, -1, 0, 0, -EINVAL, false},
    {SEEK, 0, 0, SEEK_DATA, -ENXIO, false},	/* all hole */
    {SEEK, M - 1, 0, SEEK_HOLE, -ENXIO, false}, /* past EOF (size 2^63-1-P) */
    /* rw_verify_area: pos + count past 2^63-1 is EINVAL, not EFBIG */
    {PWRITE, M - 5, 5, 0, 5, false},
    {PWRITE, M - 5, 10, 0, -EINVAL, false},
    {PWRITE, M, 1, 0, -EINVAL, false},
    {PWRITE, M, 0, 0, 0, false},
    {PWRITE, -1, 1, 0, -EINVAL, false},
    {PREAD, M - 5, 5, 0, 5, false},
    {PREAD, M - 5, 10, 0, -EINVAL, false},
    {PREAD, M, 1, 0, -EINVAL, false},
    {PREAD, M, 0, 0, 0, false},
    {PREAD, -1, 1, 0, -EINVAL, false},
    /* data in the last page only (2^51-1): Linux 6.18 answers ENXIO to both
     * SEEK_DATAs and LLONG_MIN (a value, not an errno) to the SEEK_HOLE at
     * 2^63-2 (mapping_seek_hole_data's loff_t round_up wraps); the model
     * does the same (vfs_llseek) */
    {SEEK, 0, 0, SEEK_DATA, -ENXIO, false},
    {SEEK, M - P, 0, SEEK_DATA, -ENXIO, false},
    {SEEK, M - P, 0, SEEK_HOLE, M - P, false},
    {SEEK, M - 1, 0, SEEK_HOLE, INT64_MIN, false},
    {SEEK, M, 0, SEEK_DATA, -ENXIO, false},
    {SEEK, -1, 0, SEEK_DATA, -ENXIO, false},
    {SEEK, -1, 0, SEEK_HOLE, -ENXIO, false},
    /* zero the tail of the last page, drop it, then the one before */
    {TRUNC, M - 1, 0, 0, 0, false},
    {PREAD, M - 5, 4, 0, 4, false},
    {TRUNC, M - P, 0, 0, 0, false},
    {TRUNC, M - 2 * P + 1, 0, 0, 0, false},
    /* lseek sums past 2^63-1 or below 0: EINVAL */
    {SEEK, 1, 0, SEEK_SET, 1, false},
    {SEEK, M, 0, SEEK_CUR, -EINVAL, false},
    {SEEK, M, 0, SEEK_END, -EINVAL, false},
    {SEEK, -M, 0, SEEK_END, -EINVAL, false},
    {SEEK, M, 0, SEEK_SET, M, false},
    {SEEK, -1, 0, SEEK_SET, -EINVAL, false},
    {SEEK, 0, 0, SEEK_SET, 0, false},
    {SEEK, -1, 0, SEEK_CUR, -EINVAL, false},
    {SEEK, INT64_MIN, 0, SEEK_END, -EINVAL, false},
    /* vfs_fallocate: offset + len past s_maxbytes (or wrapping) is EFBIG */
    {FALLOC, M - P, P, 0, 0, false},
    {FALLOC, M - P, P + 1, 0, -EFBIG, false},
    {FALLOC, M, 1, 0, -EFBIG, false},
    {FALLOC, -1, 1, 0, -EINVAL, false},
    {FALLOC, 0, 0, 0, -EINVAL, false},
    {FALLOC, 0, -1, 0, -EINVAL, false},
    {FALLOC, M - 10, 10, PUNCH, 0, false},
    {FALLOC, M - 10, 11, PUNCH, -EFBIG, false},
    {FALLOC, 0, M, PUNCH, 0, false},
    {FALLOC, M - 1, 1, FALLOC_FL_KEEP_SIZE, 0, false},
    {TRUNC, P, 0, 0, 0, false},
    /* mmap: file_mmap_ok against MAX_LFS_FILESIZE, EOVERFLOW */
    {MMAP, -P, P, 0, -EOVERFLOW, false},
    {MMAP, LAST, P, 0, -EOVERFLOW, false},
    {MMAP, LAST - P, P, 0, 0, false},
    {MMAP, LAST - P, 2 * P, 0, -EOVERFLOW, false},
    {MMAP, INT64_MIN, P, 0, -EOVERFLOW, false},
    {MMAP, 0, P, 0, 0, false},
    /* flock_to_posix_lock: the range's end past 2^63-1 is EOVERFLOW, a
     * start below 0 EINVAL */
    {SETLK, M, 1, SEEK_SET, 0, false},
    {SETLK, M, 2, SEEK_SET, -EOVERFLOW, false},
    {SETLK, M, 0, SEEK_SET, 0, false},
    {SETLK, -1, 1, SEEK_SET, -EINVAL, false},
    {SETLK, M, INT64_MIN, SEEK_SET, -EINVAL, false},
    {SETLK, M, -M, SEEK_SET, 0, false},
    {SETLK, M, 1, SEEK_END, -EOVERFLOW, false}, /* size PAGE_SIZE */
    {SETLK, M - P, 1, SEEK_END, 0, false},
    {SETLK, 0, M, SEEK_SET, 0, false},
    {SETLK, 1, M, SEEK_SET, 0, false},
    {SETLK, 2, M, SEEK_SET, -EOVERFLOW, false},
    {SETLK, LAST, P, SEEK_SET, 0, false},
    {SETLK, LAST, P + 1, SEEK_SET, -EOVERFLOW, false},
};

static int host_tmpfs_fd(void)
{
	char path[64];
	struct statfs sfs;
	int fd;

	if (statfs("/dev/shm", &sfs) || sfs.f_type != TMPFS_MAGIC_)
		return -1;
	snprintf(path, sizeof(path), "/dev/shm/rcuvfs-limits-%d", (int)getpid());
	fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0644);
	if (fd >= 0)
		unlink(path);
	return fd;
}

static void test_limits_against_tmpfs(void)
{
	struct task_struct *t = mmt_new_proc();
	struct file *f = NULL;
	struct flock unlock = {.l_type = F_UNLCK, .l_whence = SEEK_SET};
	int fd = host_tmpfs_fd(), bad = 0;
	size_t i;

	if (fd < 0)
		fprintf(stderr, "test_limits: /dev/shm is not a tmpfs; model answers only\n");
	CU_ASSERT_EQUAL_FATAL(filp_open("/limits", O_CREAT | O_RDWR, 0644, &f), 0);
	for (i = 0; i < sizeof(script) / sizeof(script[0]); i++) {
		const struct step *s = &script[i];
		int64_t got = model_step(f, t->mm, s);
		int64_t host = fd >= 0 && !s->model_only ? host_step(fd, s) : s->want;

		if (got != s->want || host != s->want) {
			fprintf(
			    stderr,
			    "step %zu (op %d, %lld, %lld, %d): model %lld host %lld want %lld\n", i,
			    (int)s->op, (long long)s->a, (long long)s->b, s->c, (long long)got,
			    (long long)host, (long long)s->want);
			bad++;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(fcntl_setlk(f, F_SETLK, &unlock, (fl_owner_t)f, 1, NULL), 0);
	if (fd >= 0)
		close(fd);
	fput(f);
	CU_ASSERT_EQUAL(do_unlink("/limits"), 0);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/* mprotect(2) on the host with a length whose page rounding wraps. */
static int host_mprotect_wrapped(void)
{
	void *p = mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int r;

	if (p == MAP_FAILED)
		return -errno;
	r = mprotect(p, ~(size_t)0, PROT_READ) ? -errno : 0;
	munmap(p, PG);
	return r;
}

/*
 * A refused MAP_FIXED mmap leaves what was mapped there (do_mmap's checks
 * come before mmap_region unmaps the range).
 */
static void test_mmap_fixed_refused_keeps_mapping(void)
{
	struct task_struct *t = mmt_new_proc();
	struct file *f = mmt_make_file("/fixed", 1, 7), *ro = NULL;
	const unsigned long base = 0x20000000UL;
	unsigned char c = 0;

	CU_ASSERT_FATAL(filp_open("/fixed", O_RDONLY, 0, &ro) == 0);
	CU_ASSERT(vm_mmap(t->mm, base, PG, PROT_READ, MAP_SHARED | MAP_FIXED, f, 0) == (long)base);
	CU_ASSERT(vm_mmap(t->mm, base, PG, PROT_READ, MAP_SHARED | MAP_FIXED, f,
			  (unsigned long)-1) == -EOVERFLOW);
	CU_ASSERT(vm_mmap(t->mm, base, PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, ro, 0) ==
		  -EACCES);
	/* a length PAGE_ALIGN wraps to 0 is ENOMEM, as on the host */
	CU_ASSERT(vm_mprotect(t->mm, base, ~0UL, PROT_READ) == -ENOMEM);
	CU_ASSERT(host_mprotect_wrapped() == -ENOMEM);
	CU_ASSERT(mm_map_count(t->mm) == 1);
	CU_ASSERT(mm_access(t->mm, base, &c, 1, false) == 0);
	CU_ASSERT(c == 7);
	fput(ro);
	fput(f);
	CU_ASSERT(do_unlink("/fixed") == 0);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/* Whether this process has CAP_IPC_LOCK (bit 14 of CapEff). */
static bool host_cap_ipc_lock(void)
{
	char line[128];
	unsigned long long eff = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	if (f)
		fclose(f);
	return eff & (1ull << 14);
}

/*
 * mlock and munlock of ranges at the top of the address space: a range
 * whose end wraps is EINVAL, a length that page rounding wraps to 0
 * succeeds and locks nothing (do_mlock, apply_vma_lock_flags).  Each range
 * is given relative to a two-page mapping at base on the model and on the
 * host; the host's mlock is compared only with CAP_IPC_LOCK (without it,
 * RLIMIT_MEMLOCK answers ENOMEM for a wrapping length first), its munlock
 * always.  The model used to answer ENOMEM for the wrapping ranges.
 */
static void test_mlock_wrapping_range(void)
{
	struct task_struct *t = mmt_new_proc();
	const unsigned long top = ~(unsigned long)0 - (PG - 1); /* the last page */
	struct {
		int base_rel; /* addr = base + a when 1 or 2, a itself when 0 */
		unsigned long a, len;
		int want;
	} c[] = {
	    {1, 0, 0, 0},
	    {1, 1, PG, 0},		/* unaligned: both pages */
	    {1, 0, ~0UL, 0},		/* PAGE_ALIGN wraps to 0 */
	    {1, 0, ~0UL - (PG - 2), 0}, /* the same, by the start's offset */
	    {1, 0, ~0UL - 2 * PG, -EINVAL},
	    {2, 0, 0, -EINVAL}, /* end = 2^64: 0 */
	    {2, 0, PG, -EINVAL},
	    {0, top, 1, -EINVAL}, /* end = 0 */
	    {0, top, 2 * PG, -EINVAL},
	    {0, PG, PG, -ENOMEM}, /* nothing mapped there */
	};
	unsigned long mbase;
	char *hbase;
	bool cap = host_cap_ipc_lock();
	int bad = 0;

	mbase = (unsigned long)mmt_map(t->mm, 0, 2 * PG, PROT_READ | PROT_WRITE);
	hbase = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(hbase != MAP_FAILED);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		unsigned long ma = c[i].base_rel ? mbase + c[i].a : c[i].a;
		unsigned long ha = c[i].base_rel ? (unsigned long)hbase + c[i].a : c[i].a;
		/* base_rel 2: the range ends at the top of the address space plus len */
		unsigned long mlen = c[i].base_rel == 2 ? -ma + c[i].len : c[i].len;
		unsigned long hlen = c[i].base_rel == 2 ? -ha + c[i].len : c[i].len;
		int m1, m2, h1, h2;
		m1 = vm_mlock(t->mm, ma, mlen);
		m2 = vm_munlock(t->mm, ma, mlen);
		/* the system calls: ASan's mlock/munlock interceptors do nothing */
		h1 = syscall(SYS_mlock, ha, hlen) ? -errno : 0;
		h2 = syscall(SYS_munlock, ha, hlen) ? -errno : 0;
		if (!cap)
			h1 = c[i].want;
		if (m1 != c[i].want || m2 != c[i].want || h1 != c[i].want || h2 != c[i].want) {
			fprintf(stderr, "mlock case %zu: model %d/%d host %d/%d want %d\n", i, m1,
				m2, h1, h2, c[i].want);
			bad++;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	syscall(SYS_munlock, (unsigned long)hbase, 2 * PG);
	munmap(hbase, 2 * PG);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

RVTEST_SUITE(limits, rvtest_instance_init, rvtest_instance_cleanup,
	     RVTEST(test_limits_against_tmpfs), RVTEST(test_mmap_fixed_refused_keeps_mapping),
	     RVTEST(test_mlock_wrapping_range))
