// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_mm_mremap.c - mremap (mm/mremap.c): one script run on
 * the model and, when it can, on the host kernel in a forked process
 * inside an address window; return values, errnos, bytes read and VMA
 * counts must be equal.  Then what the script cannot see: the source VMA
 * write-locked by a move, the TLB flush of moved PTEs, RSS and rmap after
 * moves, fork of a moved mapping, a mlocked VMA populated as it grows.
 */
#include "test_mm_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/syscall.h>

#define BASE	   0x20000000UL
#define RW	   (PROT_READ | PROT_WRITE)
#define WIN	   32	/* pages */
#define MOVED_AWAY 1000 /* a plain MREMAP_MAYMOVE move: the address is the kernel's choice */

enum sop_kind {
	S_MAP,
	S_WRITE,
	S_READ,
	S_MREMAP,
	S_READ_LAST,
	S_UNMAP_LAST,
	S_COUNT,
	S_MAP_SH,    /* MAP_SHARED | MAP_ANONYMOUS, RW (shmem) */
	S_MAP_ZERO,  /* MAP_PRIVATE of /dev/zero, RW: keeps its vm_file */
	S_MAP_SZERO, /* MAP_SHARED of /dev/zero, RW (shmem) */
	S_UNMAP,     /* munmap of len pages */
	S_MLOCK2,    /* mlock2(MLOCK_ONFAULT) of len pages */
};

struct sop {
	int kind;
	long page;   /* offset in pages from the window (S_MREMAP: addr) */
	long len;    /* pages (S_MAP, S_UNMAP_LAST); S_MREMAP: old_len in bytes */
	long arg;    /* S_MAP: prot; S_WRITE: byte; S_MREMAP: new_len in bytes */
	long flags;  /* S_MREMAP */
	long target; /* S_MREMAP: new_addr in pages; S_READ_LAST: page */
	long delta;  /* S_MREMAP: bytes added to addr */
};

#define P(n) ((long)(n) * (long)PG)

static const struct sop script[] = {
    {S_MAP, 0, 4, RW, 0, 0, 0},
    {S_WRITE, 0, 0, 'a', 0, 0, 0},
    {S_WRITE, 1, 0, 'b', 0, 0, 0},
    {S_WRITE, 2, 0, 'c', 0, 0, 0},
    {S_WRITE, 3, 0, 'd', 0, 0, 0},
    {S_MREMAP, 0, P(4), P(2), 0, 0, 0}, /* shrink */
    {S_COUNT, 0, 0, 0, 0, 0, 0},
    {S_READ, 2, 0, 0, 0, 0, 0},
    {S_READ, 1, 0, 0, 0, 0, 0},
    {S_MREMAP, 0, P(2), P(4), 0, 0, 0}, /* grow in place */
    {S_READ, 2, 0, 0, 0, 0, 0},
    {S_READ, 1, 0, 0, 0, 0, 0},
    {S_MAP, 6, 2, RW, 0, 0, 0},
    {S_WRITE, 6, 0, 'g', 0, 0, 0},
    {S_MREMAP, 0, P(4), P(8), 0, 0, 0}, /* blocked, no MAYMOVE */
    {S_MREMAP, 0, P(4), P(6), 0, 0, 0}, /* grows up to [6,8) */
    {S_COUNT, 0, 0, 0, 0, 0, 0},
    {S_WRITE, 3, 0, 'e', 0, 0, 0},
    {S_MREMAP, 0, P(6), P(6), MREMAP_MAYMOVE | MREMAP_FIXED, 10, 0},
    {S_READ, 11, 0, 0, 0, 0, 0},
    {S_READ, 13, 0, 0, 0, 0, 0},
    {S_READ, 1, 0, 0, 0, 0, 0},
    {S_COUNT, 0, 0, 0, 0, 0, 0},
    {S_MREMAP, 10, P(2), P(3), MREMAP_MAYMOVE | MREMAP_FIXED, 20, 0}, /* move and grow */
    {S_READ, 21, 0, 0, 0, 0, 0},
    {S_READ, 22, 0, 0, 0, 0, 0},
    {S_READ, 10, 0, 0, 0, 0, 0},
    {S_COUNT, 0, 0, 0, 0, 0, 0},
    {S_WRITE, 12, 0, 'm', 0, 0, 0},
    {S_MREMAP, 12, P(4), P(4), MREMAP_MAYMOVE | MREMAP_DONTUNMAP, 24, 0},
    {S_READ, 24, 0, 0, 0, 0, 0},
    {S_READ, 25, 0, 0, 0, 0, 0},
    {S_READ, 12, 0, 0, 0, 0, 0},
    {S_READ, 13, 0, 0, 0, 0, 0},
    {S_COUNT, 0, 0, 0, 0, 0, 0},
    /* the error rules */
    {S_MREMAP, 20, P(1), P(1), 0, 0, 1},				  /* unaligned */
    {S_MREMAP, 20, P(1), 0, 0, 0, 0},					  /* new_len 0 */
    {S_MREMAP, 20, P(1), P(1), 8, 0, 0},				  /* bad flag */
    {S_MREMAP, 20, P(1), P(1), MREMAP_FIXED, 30, 0},			  /* FIXED, no MAYMOVE */
    {S_MREMAP, 20, P(1), P(2), MREMAP_MAYMOVE | MREMAP_DONTUNMAP, 30, 0}, /* resize */
    {S_MREMAP, 20, P(2), P(2), MREMAP_MAYMOVE | MREMAP_FIXED, 21, 0},	  /* overlap */
    {S_MREMAP, 20, P(1), P(1), MREMAP_MAYMOVE | MREMAP_FIXED, 30, 5},	  /* unaligned target */
    {S_MREMAP, 9, P(1), P(2), MREMAP_MAYMOVE, 0, 0},			  /* no VMA */
    {S_MREMAP, 9, P(2), P(1), 0, 0, 0},					  /* shrink, no VMA */
    {S_MREMAP, 6, P(4), P(5), MREMAP_MAYMOVE, 0, 0},			  /* past the VMA */
    {S_MREMAP, 6, 0, P(1), MREMAP_MAYMOVE, 0, 0},			  /* old_len 0, private */
    {S_MREMAP, 8, P(3), P(3), MREMAP_MAYMOVE | MREMAP_FIXED, 29, 0},	  /* gap at the start */
    {S_MREMAP, 6, -1, P(1), 0, 0, 0},					  /* old_len wraps: 0 */
    {S_MREMAP, 6, P(2), P(2), 0, 0, 0},					  /* same size */
    {S_COUNT, 0, 0, 0, 0, 0, 0},
    /* several VMAs at once (FIXED, same length): Linux 6.17+ (MULTI_FROM) */
    {S_MAP, 0, 1, RW, 0, 0, 0},
    {S_MAP, 2, 1, RW, 0, 0, 0},
    {S_WRITE, 0, 0, 'x', 0, 0, 0},
    {S_WRITE, 2, 0, 'y', 0, 0, 0},
    {S_MREMAP, 0, P(3), P(3), MREMAP_MAYMOVE | MREMAP_FIXED, 29, 0},
    {S_READ, 29, 0, 0, 0, 0, 0},
    {S_READ, 30, 0, 0, 0, 0, 0},
    {S_READ, 31, 0, 0, 0, 0, 0},
    {S_READ, 0, 0, 0, 0, 0, 0},
    {S_COUNT, 0, 0, 0, 0, 0, 0},
    /* a grow that must move */
    {S_MAP, 17, 1, RW, 0, 0, 0},
    {S_MAP, 18, 1, PROT_READ, 0, 0, 0},
    {S_WRITE, 17, 0, 'q', 0, 0, 0},
    {S_MREMAP, 17, P(1), P(2), 0, 0, 0},
    {S_MREMAP, 17, P(1), P(2), MREMAP_MAYMOVE, 0, 0},
    {S_READ_LAST, 0, 0, 0, 0, 0, 0},
    {S_READ_LAST, 0, 0, 0, 0, 1, 0},
    {S_UNMAP_LAST, 0, 2, 0, 0, 0, 0},
    {S_READ, 17, 0, 0, 0, 0, 0},
    {S_COUNT, 0, 0, 0, 0, 0, 0},
    /* which VMAs may take part in a move of several (vma_multi_allowed,
     * Linux 6.18): shmem may, a private /dev/zero mapping (a file with a
     * get_unmapped_area of its own) only alone, not followed by a hole */
    {S_UNMAP, 0, WIN, 0, 0, 0, 0},
    {S_MAP_SH, 0, 1, 0, 0, 0, 0},
    {S_WRITE, 0, 0, 'a', 0, 0, 0},
    {S_MREMAP, 0, P(2), P(2), MREMAP_MAYMOVE | MREMAP_FIXED, 10, 0}, /* shmem, hole */
    {S_READ, 10, 0, 0, 0, 0, 0},
    {S_READ, 0, 0, 0, 0, 0, 0},
    {S_MAP_SH, 0, 1, 0, 0, 0, 0},
    {S_MAP, 1, 1, RW, 0, 0, 0},
    {S_WRITE, 0, 0, 'b', 0, 0, 0},
    {S_WRITE, 1, 0, 'c', 0, 0, 0},
    {S_MREMAP, 0, P(2), P(2), MREMAP_MAYMOVE | MREMAP_FIXED, 12, 0}, /* shmem, anon */
    {S_READ, 12, 0, 0, 0, 0, 0},
    {S_READ, 13, 0, 0, 0, 0, 0},
    {S_COUNT, 0, 0, 0, 0, 0, 0},
    {S_MAP_ZERO, 4, 1, 0, 0, 0, 0},
    {S_MAP, 5, 1, RW, 0, 0, 0},
    {S_WRITE, 4, 0, 'd', 0, 0, 0},
    {S_MREMAP, 4, P(2), P(2), MREMAP_MAYMOVE | MREMAP_FIXED, 16, 0}, /* zero, anon */
    {S_READ, 4, 0, 0, 0, 0, 0},
    {S_READ, 16, 0, 0, 0, 0, 0},
    {S_MAP, 8, 1, RW, 0, 0, 0},
    {S_MAP_ZERO, 9, 1, 0, 0, 0, 0},
    {S_WRITE, 8, 0, 'e', 0, 0, 0},
    {S_MREMAP, 8, P(2), P(2), MREMAP_MAYMOVE | MREMAP_FIXED, 18, 0}, /* anon, zero */
    {S_READ, 18, 0, 0, 0, 0, 0},
    {S_READ, 8, 0, 0, 0, 0, 0},
    {S_READ, 9, 0, 0, 0, 0, 0},
    {S_MAP_ZERO, 20, 1, 0, 0, 0, 0},
    {S_WRITE, 20, 0, 'f', 0, 0, 0},
    {S_MREMAP, 20, P(2), P(2), MREMAP_MAYMOVE | MREMAP_FIXED, 24, 0}, /* zero, hole */
    {S_MREMAP, 20, P(1), P(1), MREMAP_MAYMOVE | MREMAP_FIXED, 24, 0}, /* zero alone */
    {S_READ, 24, 0, 0, 0, 0, 0},
    {S_MAP_SZERO, 26, 1, 0, 0, 0, 0},
    {S_MAP, 27, 1, RW, 0, 0, 0},
    {S_WRITE, 26, 0, 'g', 0, 0, 0},
    {S_MREMAP, 26, P(2), P(2), MREMAP_MAYMOVE | MREMAP_FIXED, 29, 0}, /* shmem zero, anon */
    {S_READ, 29, 0, 0, 0, 0, 0},
    {S_READ, 30, 0, 0, 0, 0, 0},
    {S_COUNT, 0, 0, 0, 0, 0, 0},
    /* a shrink that moves checks only what moves against the VMA's end
     * (check_prep_vma, 6.18): the unmapped tail crosses a VMA and a hole */
    {S_UNMAP, 0, WIN, 0, 0, 0, 0},
    {S_MAP, 0, 2, RW, 0, 0, 0},
    {S_MAP, 2, 1, PROT_READ, 0, 0, 0},
    {S_WRITE, 0, 0, 'h', 0, 0, 0},
    {S_MREMAP, 0, P(4), P(1), MREMAP_MAYMOVE | MREMAP_FIXED, 10, 0},
    {S_READ, 10, 0, 0, 0, 0, 0},
    {S_READ, 2, 0, 0, 0, 0, 0},
    {S_COUNT, 0, 0, 0, 0, 0, 0},
    /* the lengths are page-aligned before check_mremap_params (6.18): a
     * DONTUNMAP move of 4096 to 4095 bytes is no resize */
    {S_MAP, 0, 1, RW, 0, 0, 0},
    {S_WRITE, 0, 0, 'i', 0, 0, 0},
    {S_MREMAP, 0, P(1), P(1) - 1, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, 12, 0},
    {S_READ, 12, 0, 0, 0, 0, 0},
    {S_READ, 0, 0, 0, 0, 0, 0},
    {S_COUNT, 0, 0, 0, 0, 0, 0},
    /* a DONTUNMAP move next to a source never faulted: copy_vma merges the
     * source into the target, and the merged VMA loses VM_LOCKED whole
     * (dontunmap_complete, 6.18); the host's one VMA, not two */
    {S_UNMAP, 0, WIN, 0, 0, 0, 0},
    {S_MAP, 4, 4, PROT_READ, 0, 0, 0},
    {S_MLOCK2, 4, 4, 0, 0, 0, 0},
    {S_MREMAP, 4, P(2), P(2), MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, 2, 0},
    {S_COUNT, 0, 0, 0, 0, 0, 0},
    {S_MLOCK2, 2, 6, 0, 0, 0, 0},
    {S_COUNT, 0, 0, 0, 0, 0, 0},
};
#define NSCRIPT ((int)(sizeof(script) / sizeof(script[0])))
/* The first step whose host answer needs Linux 6.17 ("mm/mremap: permit
 * mremap() move of multiple VMAs"): an older host is compared before it. */
#define MULTI_FROM 50
/* The first step of the rules checked against Linux 6.18 (which VMAs may
 * move with others, a moving shrink's source, lengths aligned first). */
#define V618_FROM 70

static long mremap_answer(const struct sop *s, unsigned long w, long res, unsigned long *last)
{
	unsigned long a = w + (unsigned long)s->page * PG;

	if (res < 0)
		return res;
	*last = (unsigned long)res;
	if ((unsigned long)res == a || (s->flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)))
		return (long)(((unsigned long)res - w) / PG);
	return MOVED_AWAY;
}

/* ---- the host ---------------------------------------------------------- */

static sigjmp_buf host_jb;
static void host_segv(int sig)
{
	siglongjmp(host_jb, sig);
}

static long host_read(unsigned long addr)
{
	volatile unsigned char v = 0;

	signal(SIGSEGV, host_segv);
	if (sigsetjmp(host_jb, 1) == 0)
		v = *(volatile unsigned char *)addr;
	else
		return -EFAULT;
	return v;
}

static int host_script(long *out, int n)
{
	unsigned long w = mmt_host_window(WIN), last = 0;
	int z = open("/dev/zero", O_RDWR);

	if (!w || z < 0 || n != NSCRIPT)
		return 1;
	munmap((void *)w, WIN * PG); /* real holes */
	for (int i = 0; i < n; i++) {
		const struct sop *s = &script[i];
		unsigned long a = w + (unsigned long)s->page * PG;
		void *p;
		long r = 0;

		switch (s->kind) {
		case S_MAP:
			p = mmap((void *)a, (size_t)s->len * PG, (int)s->arg,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			r = p == MAP_FAILED ? -errno : 0;
			break;
		case S_MAP_SH:
		case S_MAP_ZERO:
		case S_MAP_SZERO:
			p = mmap((void *)a, (size_t)s->len * PG, RW,
				 (s->kind == S_MAP_ZERO ? MAP_PRIVATE : MAP_SHARED) | MAP_FIXED |
				     (s->kind == S_MAP_SH ? MAP_ANONYMOUS : 0),
				 s->kind == S_MAP_SH ? -1 : z, 0);
			r = p == MAP_FAILED ? -errno : 0;
			break;
		case S_UNMAP:
			r = munmap((void *)a, (size_t)s->len * PG) ? -errno : 0;
			break;
		case S_MLOCK2: /* syscall(2): a sanitizer's mlock family does nothing */
			r = syscall(SYS_mlock2, a, (size_t)s->len * PG, MLOCK_ONFAULT) ? -errno : 0;
			break;
		case S_WRITE:
			*(volatile unsigned char *)a = (unsigned char)s->arg;
			break;
		case S_READ:
			r = host_read(a);
			break;
		case S_MREMAP:
			p = mremap((void *)(a + (unsigned long)s->delta), (size_t)s->len,
				   (size_t)s->arg, (int)s->flags,
				   (void *)(w + (unsigned long)s->target * PG));
			r = mremap_answer(s, w, p == MAP_FAILED ? -errno : (long)p, &last);
			break;
		case S_READ_LAST:
			r = host_read(last + (unsigned long)s->target * PG);
			break;
		case S_UNMAP_LAST:
			r = munmap((void *)last, (size_t)s->len * PG) ? -errno : 0;
			break;
		case S_COUNT:
			r = mmt_host_count_vmas(w, w + WIN * PG);
			break;
		}
		out[i] = r;
	}
	return 0;
}

/* ---- the model ---------------------------------------------------------- */

static void model_script(struct mm_struct *mm, long *out)
{
	unsigned long last = 0;
	struct file *z;

	CU_ASSERT_FATAL(dev_zero_open(O_RDWR, &z) == 0);
	for (int i = 0; i < NSCRIPT; i++) {
		const struct sop *s = &script[i];
		unsigned long a = BASE + (unsigned long)s->page * PG;
		unsigned char v = (unsigned char)s->arg;
		long r = 0;

		switch (s->kind) {
		case S_MAP:
			r = vm_mmap(mm, a, (unsigned long)s->len * PG, (int)s->arg,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0);
			r = r < 0 ? r : 0;
			break;
		case S_MAP_SH:
		case S_MAP_ZERO:
		case S_MAP_SZERO:
			r = vm_mmap(mm, a, (unsigned long)s->len * PG, RW,
				    (s->kind == S_MAP_ZERO ? MAP_PRIVATE : MAP_SHARED) | MAP_FIXED |
					(s->kind == S_MAP_SH ? MAP_ANONYMOUS : 0),
				    s->kind == S_MAP_SH ? NULL : z, 0);
			r = r < 0 ? r : 0;
			break;
		case S_UNMAP:
			r = vm_munmap(mm, a, (unsigned long)s->len * PG);
			break;
		case S_MLOCK2:
			r = vm_mlock2(mm, a, (unsigned long)s->len * PG, MLOCK_ONFAULT);
			break;
		case S_WRITE:
			r = mm_access(mm, a, &v, 1, true);
			break;
		case S_READ:
			r = mm_access(mm, a, &v, 1, false);
			r = r ? r : v;
			break;
		case S_MREMAP:
			r = do_mremap(mm, a + (unsigned long)s->delta, (unsigned long)s->len,
				      (unsigned long)s->arg, (unsigned long)s->flags,
				      BASE + (unsigned long)s->target * PG);
			r = mremap_answer(s, BASE, r, &last);
			break;
		case S_READ_LAST:
			r = mm_access(mm, last + (unsigned long)s->target * PG, &v, 1, false);
			r = r ? r : v;
			break;
		case S_UNMAP_LAST:
			r = vm_munmap(mm, last, (unsigned long)s->len * PG);
			break;
		case S_COUNT:
			r = mmt_count_vmas(mm, BASE, BASE + WIN * PG);
			break;
		}
		out[i] = r;
		CU_ASSERT(mm_check(mm) == 0);
	}
	fput(z);
}

static void test_mremap_vs_host(void)
{
	struct task_struct *t = mmt_new_proc();
	long m[NSCRIPT], h[NSCRIPT];
	int bad = 0;

	model_script(t->mm, m);
	if (getenv("MMT_DUMP"))
		for (int i = 0; i < NSCRIPT; i++)
			printf("\n  %d: %ld", i, m[i]);
	if (mmt_host_run(host_script, h, NSCRIPT) == 0) {
		int upto = NSCRIPT;

		CU_ASSERT(script[MULTI_FROM].kind == S_MAP &&
			  script[MULTI_FROM + 4].kind == S_MREMAP);
		CU_ASSERT(script[V618_FROM].kind == S_UNMAP &&
			  script[V618_FROM - 1].kind == S_COUNT);
		if (!mmt_host_kernel_at_least(6, 18)) {
			upto = V618_FROM;
			printf("\n  host kernel before 6.18: steps from %d compared with the model "
			       "only\n",
			       V618_FROM);
		}
		if (!mmt_host_kernel_at_least(6, 17)) {
			upto = MULTI_FROM;
			printf("\n  host kernel before 6.17: steps from %d (multi-VMA move) "
			       "compared with the model only\n",
			       MULTI_FROM);
		}
		for (int i = 0; i < upto; i++) {
			if (h[i] != m[i]) {
				printf("\n  step %d (kind %d page %ld): host %ld, model %ld", i,
				       script[i].kind, script[i].page, h[i], m[i]);
				bad++;
			}
		}
		CU_ASSERT_EQUAL(bad, 0);
	} else {
		printf("\n  host oracle unavailable: model only\n");
	}
	/* the model's own answers for the central cases, whatever the host */
	CU_ASSERT(m[5] == 0 && m[7] == -EFAULT && m[8] == 'b'); /* shrink */
	CU_ASSERT(m[9] == 0 && m[10] == 0);			/* grow in place */
	CU_ASSERT(m[14] == -ENOMEM && m[15] == 0);
	CU_ASSERT(m[18] == 10 && m[19] == 'b' && m[20] == 'e' && m[21] == -EFAULT); /* moved */
	CU_ASSERT(m[23] == 20 && m[24] == 'b' && m[25] == 0);
	CU_ASSERT(m[29] == 24 && m[30] == 'm' && m[32] == 0); /* DONTUNMAP: old range empty */
	CU_ASSERT(m[35] == -EINVAL && m[42] == -EFAULT && m[44] == -EFAULT && m[45] == -EINVAL);
	CU_ASSERT(m[54] == 29 && m[55] == 'x' && m[56] == -EFAULT && m[57] == 'y');
	CU_ASSERT(m[63] == -ENOMEM && m[64] == MOVED_AWAY && m[65] == 'q' && m[66] == 0);
	CU_ASSERT(m[73] == 10 && m[74] == 'a' && m[80] == 12 && m[82] == 'c'); /* shmem moves */
	CU_ASSERT(m[87] == -EFAULT && m[88] == 'd' && m[93] == -EFAULT && m[94] == 'e');
	CU_ASSERT(m[99] == -EFAULT && m[100] == 24 && m[105] == 29);
	CU_ASSERT(m[113] == 10 && m[115] == -EFAULT && m[119] == 12 && m[120] == 'i');
	CU_ASSERT(m[126] == 2 && m[127] == 1 && m[129] == 1); /* DONTUNMAP, merged */
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/*
 * RSS and rmap follow the moved pages; a child forked after a move reads
 * them; a mlocked VMA is populated as it grows; a private file mapping
 * keeps its file offset when moved.
 */
static void test_mremap_rss_fork_mlock(void)
{
	struct task_struct *t = mmt_new_proc(), *c;
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/mremap", 4, 0x60);
	unsigned char b = 0;
	long r;

	CU_ASSERT(mmt_map(mm, BASE, 4 * PG, RW) == (long)BASE);
	mmt_fill(BASE, 4 * PG, 1);
	r = do_mremap(mm, BASE, 4 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_FIXED,
		      BASE + 3 * PGDIR_SIZE);
	CU_ASSERT(r == (long)(BASE + 3 * PGDIR_SIZE));
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 4);
	CU_ASSERT(mmt_check(BASE + 3 * PGDIR_SIZE, 4 * PG, 1));
	CU_ASSERT(mm_check(mm) == 0);
	c = task_fork(t);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT(mmt_check_mm(c->mm, BASE + 3 * PGDIR_SIZE, 4 * PG, 1));
	mmt_exit(c);
	/* mlocked: the growth is populated */
	CU_ASSERT(vm_mlock(mm, BASE + 3 * PGDIR_SIZE, 4 * PG) == 0);
	CU_ASSERT(do_mremap(mm, BASE + 3 * PGDIR_SIZE, 4 * PG, 6 * PG, 0, 0) ==
		  (long)(BASE + 3 * PGDIR_SIZE));
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 6);
	/* a private file mapping moves with its offset */
	CU_ASSERT(vm_mmap(mm, BASE, 2 * PG, PROT_READ, MAP_PRIVATE | MAP_FIXED, f, 2) ==
		  (long)BASE);
	CU_ASSERT(rv_mm_read(BASE, &b, 1) == 0 && b == 0x62);
	r = do_mremap(mm, BASE, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, BASE + 64 * PG);
	CU_ASSERT(r == (long)(BASE + 64 * PG));
	CU_ASSERT(rv_mm_read(BASE + 65 * PG, &b, 1) == 0 && b == 0x63);
	CU_ASSERT(get_mm_counter(mm, MM_FILEPAGES) == 2);
	CU_ASSERT(mm_check(mm) == 0);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/mremap") == 0);
	CU_ASSERT(mmt_all_freed());
}

/*
 * move_vma write-locks the source VMA before its page tables move: a
 * fault holding the VMA's read lock keeps mremap waiting (at
 * vma_start_write) until it is done, and a fault that comes after finds
 * the VMA write-locked and falls back to mmap_lock.
 */
struct wfault {
	unsigned long addr;
	int ret;
};

static void *write_fault(void *p)
{
	struct wfault *w = p;
	unsigned char v = 0x5a;

	w->ret = rv_mm_write(w->addr, &v, 1);
	return NULL;
}

struct mover {
	struct mm_struct *mm;
	long ret;
};

static void *mover_fn(void *p)
{
	struct mover *mv = p;

	mv->ret =
	    do_mremap(mv->mm, BASE, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, BASE + 32 * PG);
	return NULL;
}

static void test_mremap_waits_for_fault(void)
{
	struct task_struct *t = mmt_new_proc();
	struct task_struct *tf = task_clone_thread(t), *tm = task_clone_thread(t);
	struct wfault w = {.addr = BASE + PG, .ret = -1};
	struct mover mv = {.mm = t->mm, .ret = -1};
	struct mmt_thread fth, mth;
	unsigned char v = 0;
	bool waited;

	CU_ASSERT_FATAL(tf && tm);
	CU_ASSERT(mmt_map(t->mm, BASE, 2 * PG, RW) == (long)BASE);
	mmt_fill(BASE, PG, 1); /* an anon_vma: the next fault runs under the VMA lock */
	CU_ASSERT(rv_inject_set_pause("handle_pte_fault", 1) == 0);
	mmt_thread_start(&fth, tf, write_fault, &w);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("handle_pte_fault", 1, 20000) == 0);
	CU_ASSERT(rv_inject_set_pause("vma_start_write", 1) == 0);
	mmt_thread_start(&mth, tm, mover_fn, &mv);
	CU_ASSERT_FATAL(rv_inject_wait_arrivals("vma_start_write", 1, 20000) == 0);
	rv_inject_release("vma_start_write");
	/* mremap now waits for the fault's read lock */
	for (long i = 0; i < 2000; i++)
		sched_yield();
	waited = !__atomic_load_n(&mth.done, __ATOMIC_ACQUIRE);
	rv_inject_release("handle_pte_fault");
	mmt_thread_join(&fth);
	mmt_thread_join(&mth);
	rv_inject_clear_all();
	CU_ASSERT(waited);
	CU_ASSERT(mv.ret == (long)(BASE + 32 * PG));
	/*
	 * The fault finished before the move; the write that follows it
	 * either got there first (and moved with the page tables) or walked
	 * after the move and found nothing (-EFAULT): never a write that
	 * succeeded and is not at the new address.
	 */
	CU_ASSERT(w.ret == 0 || w.ret == -EFAULT);
	CU_ASSERT(rv_mm_read(BASE + 33 * PG, &v, 1) == 0 && v == (w.ret ? 0 : 0x5a));
	CU_ASSERT(mm_check(t->mm) == 0);
	mmt_exit(tm);
	mmt_exit(tf);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

RVTEST_SUITE(mm_mremap, rvtest_instance_init, rvtest_instance_cleanup, RVTEST(test_mremap_vs_host),
	     RVTEST(test_mremap_rss_fork_mlock))
MMT_VMA_SUITES(mm_mremap_vma, NULL, RVTEST(test_mremap_waits_for_fault))
