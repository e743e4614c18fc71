// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_mm_msync.c - msync (mm/msync.c): one script of msync
 * calls over anonymous, shared file and mlocked VMAs with holes, run on
 * the model and, when it can, on the host kernel in a forked process
 * inside an address window; the return values must be equal.  Then what
 * the answers do not show: MS_SYNC writes a shared mapping's dirty pages
 * back (their PTEs made clean), MS_ASYNC does not.
 */
#include "test_mm_util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>

#define BASE 0x20000000UL
#define RW   (PROT_READ | PROT_WRITE)
#define WIN  16 /* pages */

enum sop_kind {
	S_MAP,	   /* private anonymous, RW, len pages */
	S_MAP_SHF, /* shared mapping of the file, RW, len pages from file page 0 */
	S_MLOCK,   /* len pages */
	S_WRITE,   /* arg: byte */
	S_MSYNC,   /* len in bytes, arg: flags, delta: bytes added to the address */
};

struct sop {
	int kind;
	long page;
	long len;
	int arg;
	long delta;
};

#define P(n) ((long)(n) * (long)PG)

/* [0,2) anon, [2,4) the file shared, hole [4,5), [5,6) anon, [6,7) locked */
static const struct sop script[] = {
    {S_MAP, 0, 2, 0, 0},
    {S_MAP_SHF, 2, 2, 0, 0},
    {S_MAP, 5, 1, 0, 0},
    {S_MAP, 6, 1, 0, 0},
    {S_MLOCK, 6, 1, 0, 0},
    {S_WRITE, 2, 0, 'w', 0},
    {S_MSYNC, 0, 0, MS_SYNC, 0},		     /* length 0 */
    {S_MSYNC, 0, P(1), MS_SYNC, 1},		     /* unaligned */
    {S_MSYNC, 0, P(1), MS_SYNC | MS_ASYNC, 0},	     /* both */
    {S_MSYNC, 0, P(1), 8, 0},			     /* unknown flag */
    {S_MSYNC, 0, -P(1), MS_SYNC, 0},		     /* the end wraps */
    {S_MSYNC, 0, P(4), MS_SYNC, 0},		     /* anon and the file */
    {S_MSYNC, 0, P(4) - 100, MS_ASYNC, 0},	     /* rounded up */
    {S_MSYNC, 0, P(6), MS_SYNC, 0},		     /* a hole */
    {S_MSYNC, 0, P(6), MS_ASYNC, 0},		     /* a hole, MS_ASYNC */
    {S_MSYNC, 4, P(2), MS_ASYNC, 0},		     /* starts in the hole */
    {S_MSYNC, 4, P(2), 0, 0},			     /* starts in the hole, no flag */
    {S_MSYNC, 4, P(1), MS_SYNC, 0},		     /* only the hole */
    {S_MSYNC, 0, P(3), 0, 0},			     /* no flag */
    {S_MSYNC, 0, P(6), MS_INVALIDATE, 0},	     /* a hole, nothing locked */
    {S_MSYNC, 5, P(2), MS_INVALIDATE, 0},	     /* locked */
    {S_MSYNC, 4, P(3), MS_INVALIDATE | MS_ASYNC, 0}, /* hole, then locked */
    {S_MSYNC, 0, P(7), MS_SYNC | MS_INVALIDATE, 0},  /* the file, hole, locked */
    {S_MSYNC, 6, P(1), MS_SYNC, 0},		     /* locked, MS_SYNC */
    {S_MSYNC, 2, P(2), MS_ASYNC | MS_INVALIDATE, 0}, /* the file alone */
    {S_MSYNC, 7, P(1), MS_ASYNC, 0},		     /* past the last VMA */
    {S_MSYNC, 0, P(WIN), MS_SYNC, 0},		     /* the whole window */
};
#define NSCRIPT ((int)(sizeof(script) / sizeof(script[0])))

static int host_script(long *out, int n)
{
	unsigned long w = mmt_host_window(WIN);
	int fd = (int)syscall(SYS_memfd_create, "msync", 0);

	if (!w || fd < 0 || n != NSCRIPT || ftruncate(fd, 4 * (off_t)PG))
		return 1;
	munmap((void *)w, WIN * PG); /* real holes */
	for (int i = 0; i < n; i++) {
		const struct sop *s = &script[i];
		unsigned long a = w + (unsigned long)s->page * PG;
		void *p;
		long r = 0;

		switch (s->kind) {
		case S_MAP:
		case S_MAP_SHF:
			p = mmap((void *)a, (size_t)s->len * PG, RW,
				 s->kind == S_MAP ? MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED
						  : MAP_SHARED | MAP_FIXED,
				 s->kind == S_MAP ? -1 : fd, 0);
			r = p == MAP_FAILED ? -errno : 0;
			break;
		case S_MLOCK: /* syscall(2): a sanitizer's mlock does nothing */
			r = syscall(SYS_mlock, a, (size_t)s->len * PG) ? -errno : 0;
			break;
		case S_WRITE:
			*(volatile unsigned char *)a = (unsigned char)s->arg;
			break;
		case S_MSYNC:
			r = syscall(SYS_msync, a + (unsigned long)s->delta, (size_t)s->len, s->arg)
				? -errno
				: 0;
			break;
		}
		out[i] = r;
	}
	return 0;
}

static void model_script(struct mm_struct *mm, struct file *f, long *out)
{
	for (int i = 0; i < NSCRIPT; i++) {
		const struct sop *s = &script[i];
		unsigned long a = BASE + (unsigned long)s->page * PG;
		unsigned char v = (unsigned char)s->arg;
		long r = 0;

		switch (s->kind) {
		case S_MAP:
		case S_MAP_SHF:
			r = vm_mmap(mm, a, (unsigned long)s->len * PG, RW,
				    s->kind == S_MAP ? MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED
						     : MAP_SHARED | MAP_FIXED,
				    s->kind == S_MAP ? NULL : f, 0);
			r = r < 0 ? r : 0;
			break;
		case S_MLOCK:
			r = vm_mlock(mm, a, (unsigned long)s->len * PG);
			break;
		case S_WRITE:
			r = mm_access(mm, a, &v, 1, true);
			break;
		case S_MSYNC:
			r = do_msync(mm, a + (unsigned long)s->delta, (size_t)s->len, s->arg);
			break;
		}
		out[i] = r;
		CU_ASSERT(mm_check(mm) == 0);
	}
}

static void test_msync_vs_host(void)
{
	struct task_struct *t = mmt_new_proc();
	struct file *f = mmt_make_file("/msync", 4, 0x30);
	long m[NSCRIPT], h[NSCRIPT];
	int bad = 0;

	model_script(t->mm, f, m);
	if (mmt_host_run(host_script, h, NSCRIPT) == 0) {
		for (int i = 0; i < NSCRIPT; i++) {
			if (h[i] != m[i]) {
				printf(
				    "\n  step %d (kind %d page %ld flags %d): host %ld, model %ld",
				    i, script[i].kind, script[i].page, script[i].arg, h[i], m[i]);
				bad++;
			}
		}
		CU_ASSERT_EQUAL(bad, 0);
	} else {
		printf("\n  host oracle unavailable: model only\n");
	}
	/* the model's own answers for the central cases, whatever the host */
	CU_ASSERT(m[6] == 0 && m[7] == -EINVAL && m[8] == -EINVAL && m[9] == -EINVAL);
	CU_ASSERT(m[10] == -ENOMEM && m[11] == 0 && m[13] == -ENOMEM && m[14] == -ENOMEM);
	CU_ASSERT(m[20] == -EBUSY && m[21] == -EBUSY && m[22] == -EBUSY && m[23] == 0);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/msync") == 0);
	CU_ASSERT(mmt_all_freed());
}

/* MS_SYNC writes back what was written through a shared mapping (its PTE
 * made clean by folio_mkclean); MS_ASYNC and MS_INVALIDATE write nothing. */
static void test_msync_writes_back(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/msync-wb", 2, 0x40);
	unsigned char v = 'z';
	uint64_t clean0;

	CU_ASSERT(vm_mmap(mm, BASE, 2 * PG, RW, MAP_SHARED | MAP_FIXED, f, 0) == (long)BASE);
	CU_ASSERT(mm_access(mm, BASE + PG, &v, 1, true) == 0);
	clean0 = mmt_stat("mkclean_ptes");
	CU_ASSERT(do_msync(mm, BASE, 2 * PG, MS_ASYNC) == 0);
	CU_ASSERT(do_msync(mm, BASE, 2 * PG, MS_INVALIDATE) == 0);
	CU_ASSERT(mmt_stat("mkclean_ptes") == clean0);
	CU_ASSERT(do_msync(mm, BASE, 2 * PG, MS_SYNC) == 0);
	CU_ASSERT(mmt_stat("mkclean_ptes") == clean0 + 1);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/msync-wb") == 0);
	CU_ASSERT(mmt_all_freed());
}

RVTEST_SUITE(mm_msync, rvtest_instance_init, rvtest_instance_cleanup, RVTEST(test_msync_vs_host),
	     RVTEST(test_msync_writes_back))
