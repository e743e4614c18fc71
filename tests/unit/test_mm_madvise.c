// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_mm_madvise.c - madvise and mlock2 (mm/madvise.c,
 * mm/mlock.c): one script run on the model and, when it can, on the host
 * kernel in a forked process inside a PROT_NONE window; the answers
 * (return values, errnos, bytes read, what a forked child reads, VMA
 * counts) must be equal.  Then what the script cannot see from outside:
 * the per-VMA lock taken by MADV_DONTNEED on one VMA, RSS after DONTNEED,
 * MADV_FREE's clean PTEs, and mlock2(MLOCK_ONFAULT)'s flags and
 * populate.
 */
#include "test_mm_util.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>

#define BASE 0x20000000UL
#define RW   (PROT_READ | PROT_WRITE)
#define WIN  16 /* pages */

enum sop_kind {
	S_MAP,	   /* arg: prot; len pages */
	S_MAPZERO, /* private /dev/zero, RW */
	S_MAPSHANON,
	S_MADV,	 /* arg: advice; off in bytes (delta added to the page), len in bytes */
	S_WRITE, /* arg: byte */
	S_READ,
	S_MLOCK2,   /* arg: flags; len pages */
	S_FORKREAD, /* a forked child reads the byte: value or -EFAULT */
	S_COUNT,    /* VMAs in the window */
};

struct sop {
	int kind;
	long page;  /* offset in pages from the window */
	long delta; /* bytes added to the start (S_MADV) */
	long len;   /* pages (S_MAP, S_MLOCK2) or bytes (S_MADV) */
	long arg;
};

#define P(n) ((long)(n) * (long)PG)

static const struct sop script[] = {
    {S_MAP, 0, 0, 4, RW},
    {S_WRITE, 0, 0, 0, 'a'},
    {S_WRITE, 1, 0, 0, 'b'},
    {S_WRITE, 3, 0, 0, 'd'},
    {S_MADV, 0, 0, P(1), MADV_DONTNEED},
    {S_READ, 0, 0, 0, 0},
    {S_READ, 1, 0, 0, 0},
    {S_MADV, 1, 0, P(1), 99},		  /* bad advice */
    {S_MADV, 1, 1, P(1), MADV_DONTNEED},  /* unaligned start */
    {S_MADV, 1, 0, 0, MADV_DONTNEED},	  /* len 0 */
    {S_MADV, 1, 0, -1, MADV_DONTNEED},	  /* PAGE_ALIGN wraps to 0 */
    {S_MADV, 1, 0, -P(2), MADV_DONTNEED}, /* end wraps */
    {S_MAP, 6, 0, 2, RW},
    {S_WRITE, 7, 0, 0, 'h'},
    {S_MADV, 1, 0, P(7), MADV_DONTNEED}, /* [1,4) and [6,8) across a hole */
    {S_READ, 1, 0, 0, 0},
    {S_READ, 3, 0, 0, 0},
    {S_READ, 7, 0, 0, 0},
    {S_MADV, 9, 0, P(2), MADV_DONTNEED}, /* nothing mapped there */
    {S_MADV, 4, 0, P(1), MADV_DONTNEED}, /* inside the hole, before a VMA */
    {S_WRITE, 1, 0, 0, 'c'},
    {S_WRITE, 2, 0, 0, 'e'},
    {S_MADV, 2, 0, P(1), MADV_DONTFORK},
    {S_COUNT, 0, 0, 0, 0},
    {S_FORKREAD, 2, 0, 0, 0},
    {S_FORKREAD, 1, 0, 0, 0},
    {S_MADV, 2, 0, P(1), MADV_DOFORK},
    {S_COUNT, 0, 0, 0, 0},
    {S_FORKREAD, 2, 0, 0, 0},
    {S_WRITE, 6, 0, 0, 'g'},
    {S_MADV, 5, 0, P(3), MADV_WIPEONFORK}, /* hole at 5: applied to [6,8), then ENOMEM */
    {S_COUNT, 0, 0, 0, 0},
    {S_FORKREAD, 6, 0, 0, 0},
    {S_READ, 6, 0, 0, 0},
    {S_MADV, 6, 0, P(1), MADV_KEEPONFORK},
    {S_COUNT, 0, 0, 0, 0},
    {S_FORKREAD, 6, 0, 0, 0},
    {S_FORKREAD, 7, 0, 0, 0},
    {S_MAPZERO, 10, 0, 1, 0},
    {S_MADV, 10, 0, P(1), MADV_WIPEONFORK}, /* a file: EINVAL */
    {S_MAPSHANON, 11, 0, 1, 0},
    {S_MADV, 11, 0, P(1), MADV_WIPEONFORK}, /* shared: EINVAL */
    {S_MADV, 11, 0, P(1), MADV_FREE},	    /* not anonymous: EINVAL */
    {S_MADV, 10, 0, P(1), MADV_FREE},	    /* private /dev/zero: anonymous */
    {S_MADV, 10, 0, P(2), MADV_DONTFORK},
    {S_COUNT, 0, 0, 0, 0},
    {S_MADV, 0, 0, P(12), MADV_NORMAL},
    {S_MLOCK2, 0, 0, 1, MLOCK_ONFAULT},
    {S_MLOCK2, 0, 0, 1, 2},		 /* bad flag */
    {S_MADV, 0, 0, P(1), MADV_DONTNEED}, /* VM_LOCKED: EINVAL */
    {S_MADV, 0, 0, P(2), MADV_FREE},	 /* stops at the locked VMA */
    {S_MADV, 1, 0, P(1), MADV_FREE},
    {S_WRITE, 1, 0, 0, 'f'},
    {S_READ, 1, 0, 0, 0},
    {S_COUNT, 0, 0, 0, 0},
};
#define NSCRIPT ((int)(sizeof(script) / sizeof(script[0])))

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
	unsigned long w = mmt_host_window(WIN);
	int z = open("/dev/zero", O_RDWR);

	if (!w || z < 0 || n != NSCRIPT)
		return 1;
	/* real holes: nothing else maps into the window of this one thread */
	munmap((void *)w, WIN * PG);
	for (int i = 0; i < n; i++) {
		const struct sop *s = &script[i];
		unsigned long a = w + (unsigned long)s->page * PG;
		void *p;
		long r = 0;

		switch (s->kind) {
		case S_MAP:
		case S_MAPZERO:
		case S_MAPSHANON:
			p = mmap((void *)a, (size_t)s->len * PG,
				 s->kind == S_MAP ? (int)s->arg : RW,
				 (s->kind == S_MAPSHANON ? MAP_SHARED : MAP_PRIVATE) | MAP_FIXED |
				     (s->kind == S_MAPZERO ? 0 : MAP_ANONYMOUS),
				 s->kind == S_MAPZERO ? z : -1, 0);
			r = p == MAP_FAILED ? -errno : 0;
			break;
		case S_MADV:
			r = madvise((void *)(a + (unsigned long)s->delta), (size_t)s->len,
				    (int)s->arg)
				? -errno
				: 0;
			break;
		case S_WRITE:
			*(volatile unsigned char *)a = (unsigned char)s->arg;
			break;
		case S_READ:
			r = host_read(a);
			break;
		case S_MLOCK2:
			r = mlock2((void *)a, (size_t)s->len * PG, (unsigned int)s->arg) ? -errno
											 : 0;
			break;
		case S_FORKREAD: {
			pid_t c = fork();
			int st;

			if (c == 0) {
				long v = host_read(a);

				_exit(v < 0 ? 254 : (int)v);
			}
			if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st))
				return 1;
			r = WEXITSTATUS(st) == 254 ? -EFAULT : WEXITSTATUS(st);
			break;
		}
		case S_COUNT:
			r = mmt_host_count_vmas(w, w + WIN * PG);
			break;
		}
		out[i] = r;
	}
	return 0;
}

/* ---- the model ---------------------------------------------------------- */

static void model_script(struct task_struct *t, long *out)
{
	struct mm_struct *mm = t->mm;
	struct file *z;

	CU_ASSERT_FATAL(dev_zero_open(O_RDWR, &z) == 0);
	for (int i = 0; i < NSCRIPT; i++) {
		const struct sop *s = &script[i];
		unsigned long a = BASE + (unsigned long)s->page * PG;
		unsigned char v = (unsigned char)s->arg;
		long r = 0;

		switch (s->kind) {
		case S_MAP:
		case S_MAPZERO:
		case S_MAPSHANON:
			r = vm_mmap(mm, a, (unsigned long)s->len * PG,
				    s->kind == S_MAP ? (int)s->arg : RW,
				    (s->kind == S_MAPSHANON ? MAP_SHARED : MAP_PRIVATE) |
					MAP_FIXED | (s->kind == S_MAPZERO ? 0 : MAP_ANONYMOUS),
				    s->kind == S_MAPZERO ? z : NULL, 0);
			r = r < 0 ? r : 0;
			break;
		case S_MADV:
			r = do_madvise(mm, a + (unsigned long)s->delta, (size_t)s->len,
				       (int)s->arg);
			break;
		case S_WRITE:
			r = mm_access(mm, a, &v, 1, true);
			break;
		case S_READ:
			r = mm_access(mm, a, &v, 1, false);
			r = r ? r : v;
			break;
		case S_MLOCK2:
			r = vm_mlock2(mm, a, (unsigned long)s->len * PG, (unsigned int)s->arg);
			break;
		case S_FORKREAD: {
			struct task_struct *c = task_fork(t);

			CU_ASSERT_FATAL(c != NULL);
			r = mm_access(c->mm, a, &v, 1, false);
			r = r ? r : v;
			mmt_exit(c);
			break;
		}
		case S_COUNT:
			r = mmt_count_vmas(mm, BASE, BASE + WIN * PG);
			break;
		}
		out[i] = r;
	}
	fput(z);
}

static void test_madvise_vs_host(void)
{
	struct task_struct *t = mmt_new_proc();
	long m[NSCRIPT], h[NSCRIPT];
	int bad = 0;

	model_script(t, m);
	if (mmt_host_run(host_script, h, NSCRIPT) == 0) {
		for (int i = 0; i < NSCRIPT; i++) {
			if (h[i] != m[i]) {
				printf("\n  step %d (kind %d page %ld advice/arg %ld): host %ld, "
				       "model %ld",
				       i, script[i].kind, script[i].page, script[i].arg, h[i],
				       m[i]);
				bad++;
			}
		}
		CU_ASSERT_EQUAL(bad, 0);
	} else {
		printf("\n  host oracle unavailable: model only\n");
	}
	/* the model's own answers for the central cases, whatever the host */
	CU_ASSERT(m[5] == 0 && m[6] == 'b');	       /* DONTNEED zeroes, the next page stays */
	CU_ASSERT(m[7] == -EINVAL && m[8] == -EINVAL); /* bad advice, unaligned */
	CU_ASSERT(m[9] == 0 && m[10] == -EINVAL && m[11] == -EINVAL);
	CU_ASSERT(m[14] == -ENOMEM && m[15] == 0 && m[17] == 0); /* applied across the hole */
	CU_ASSERT(m[18] == -ENOMEM && m[19] == -ENOMEM);
	CU_ASSERT(m[24] == -EFAULT && m[25] == 'c' && m[28] == 'e'); /* DONTFORK, DOFORK */
	CU_ASSERT(m[30] == -ENOMEM && m[32] == 0 && m[33] == 'g');   /* WIPEONFORK */
	CU_ASSERT(m[36] == 'g');				     /* KEEPONFORK */
	CU_ASSERT(m[39] == -EINVAL && m[41] == -EINVAL && m[42] == -EINVAL && m[43] == 0);
	CU_ASSERT(m[47] == 0 && m[48] == -EINVAL && m[49] == -EINVAL && m[50] == -EINVAL);
	CU_ASSERT(m[53] == 'f');
	CU_ASSERT(mm_check(t->mm) == 0);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

static unsigned long flags_at(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *v;
	unsigned long f;

	mmap_read_lock(mm);
	v = vma_lookup(mm, addr);
	f = v ? v->vm_flags : 0;
	mmap_read_unlock(mm);
	return f;
}

/*
 * MADV_DONTNEED inside one VMA runs under its per-VMA lock alone (6.18's
 * MADVISE_VMA_READ_LOCK), across two under mmap_lock; RSS drops by the
 * pages zapped; a private file mapping reads the file again.  MADV_FREE
 * leaves the pages but clean and old, and a write makes them dirty again.
 */
static void test_madvise_dontneed_free(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *f = mmt_make_file("/madv", 2, 0x30);
	uint64_t locked = mmt_stat("madvise_vma_locked");
	unsigned char b = 0;

	CU_ASSERT(mmt_map(mm, BASE, 4 * PG, RW) == (long)BASE);
	mmt_fill(BASE, 4 * PG, 1);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 4);
	CU_ASSERT(do_madvise(mm, BASE + PG, 2 * PG, MADV_DONTNEED) == 0);
	CU_ASSERT(mmt_stat("madvise_vma_locked") == locked + 1);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 2);
	CU_ASSERT(pte_none(mm_pte_read(mm, BASE + PG)));
	CU_ASSERT(vm_mmap(mm, BASE + 4 * PG, 2 * PG, RW, MAP_PRIVATE | MAP_FIXED, f, 0) ==
		  (long)(BASE + 4 * PG));
	b = 0x99;
	CU_ASSERT(rv_mm_write(BASE + 4 * PG, &b, 1) == 0);		      /* COW'd */
	CU_ASSERT(do_madvise(mm, BASE + 3 * PG, 2 * PG, MADV_DONTNEED) == 0); /* two VMAs */
	CU_ASSERT(mmt_stat("madvise_vma_locked") == locked + 1);
	CU_ASSERT(rv_mm_read(BASE + 4 * PG, &b, 1) == 0 && b == 0x30); /* the file again */
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 1);
	/* MADV_FREE: clean and old, the data stays; a write dirties it again */
	CU_ASSERT(pte_dirty(mm_pte_read(mm, BASE)));
	CU_ASSERT(do_madvise(mm, BASE, PG, MADV_FREE) == 0);
	CU_ASSERT(!pte_dirty(mm_pte_read(mm, BASE)) && !pte_young(mm_pte_read(mm, BASE)));
	CU_ASSERT(mmt_check(BASE, PG, 1));
	b = 7;
	CU_ASSERT(rv_mm_write(BASE, &b, 1) == 0);
	CU_ASSERT(pte_dirty(mm_pte_read(mm, BASE)));
	CU_ASSERT(do_madvise(mm, BASE + 4 * PG, PG, MADV_FREE) == -EINVAL); /* a file */
	CU_ASSERT(mm_check(mm) == 0);
	mmt_exit(t);
	fput(f);
	CU_ASSERT(do_unlink("/madv") == 0);
	CU_ASSERT(mmt_all_freed());
}

/*
 * mlock2(MLOCK_ONFAULT): VM_LOCKED | VM_LOCKONFAULT and no populate; mlock
 * over it drops VM_LOCKONFAULT and populates; munlock clears both;
 * mlockall(MCL_CURRENT | MCL_ONFAULT) likewise, MCL_ONFAULT alone is
 * -EINVAL, MCL_FUTURE | MCL_ONFAULT makes later mmaps on-fault (not
 * populated); a child of fork inherits neither flag.
 */
static void test_mlock2_onfault(void)
{
	struct task_struct *t = mmt_new_proc(), *c;
	struct mm_struct *mm = t->mm;

	CU_ASSERT(mmt_map(mm, BASE, 4 * PG, RW) == (long)BASE);
	CU_ASSERT(vm_mlock2(mm, BASE, 2 * PG, MLOCK_ONFAULT) == 0);
	CU_ASSERT((flags_at(mm, BASE) & VM_LOCKED_MASK) == VM_LOCKED_MASK);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 0);
	CU_ASSERT(mm_map_count(mm) == 2);
	c = task_fork(t);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT((flags_at(c->mm, BASE) & VM_LOCKED_MASK) == 0);
	mmt_exit(c);
	CU_ASSERT(vm_mlock(mm, BASE, 2 * PG) == 0);
	CU_ASSERT((flags_at(mm, BASE) & VM_LOCKED_MASK) == VM_LOCKED);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 2);
	CU_ASSERT(vm_mlock2(mm, BASE, PG, 4) == -EINVAL);
	CU_ASSERT(vm_munlock(mm, BASE, 4 * PG) == 0);
	CU_ASSERT(mm_map_count(mm) == 1);
	CU_ASSERT(vm_mlockall(mm, MCL_ONFAULT) == -EINVAL);
	CU_ASSERT(vm_mlockall(mm, MCL_CURRENT | MCL_ONFAULT) == 0);
	CU_ASSERT((flags_at(mm, BASE + 3 * PG) & VM_LOCKED_MASK) == VM_LOCKED_MASK);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 2);
	CU_ASSERT(vm_mlockall(mm, MCL_FUTURE | MCL_ONFAULT) == 0);
	CU_ASSERT(mmt_map(mm, BASE + 8 * PG, 2 * PG, RW) == (long)(BASE + 8 * PG));
	CU_ASSERT((flags_at(mm, BASE + 8 * PG) & VM_LOCKED_MASK) == VM_LOCKED_MASK);
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 2); /* not populated */
	CU_ASSERT(vm_mlockall(mm, MCL_FUTURE) == 0);
	CU_ASSERT(mmt_map(mm, BASE + 12 * PG, PG, RW) == (long)(BASE + 12 * PG));
	CU_ASSERT(get_mm_counter(mm, MM_ANONPAGES) == 3); /* populated */
	CU_ASSERT(vm_munlockall(mm) == 0);
	CU_ASSERT((flags_at(mm, BASE) & VM_LOCKED_MASK) == 0);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

RVTEST_SUITE(mm_madvise, rvtest_instance_init, rvtest_instance_cleanup,
	     RVTEST(test_madvise_vs_host), RVTEST(test_madvise_dontneed_free),
	     RVTEST(test_mlock2_onfault))
MMT_VMA_SUITES(mm_madvise_vma, NULL, RVTEST(test_madvise_dontneed_free))
