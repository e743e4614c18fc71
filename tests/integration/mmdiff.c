// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/integration/mmdiff.c - differential test of address spaces: the
 * same mm script run step by step by a real process on this machine and by
 * a model process (mm/mm.h), each printing one canonical line per step;
 * the transcripts must be identical.
 *
 * The window.  Both sides work inside WIN_PAGES pages at the same absolute
 * address WIN (below 4 GiB, inside the model's TASK_SIZE).  The host
 * process first reserves a larger PROT_NONE region there with
 * MAP_FIXED_NOREPLACE (a run fails if something already lives there), puts
 * one shared anonymous PROT_NONE guard page on each side of the window
 * with MAP_FIXED and unmaps the window itself; the model process maps the
 * same two guards.  A guard is a shmem mapping of its own, so nothing in
 * the window ever merges with it, and a mapping cannot grow out of the
 * window on one side only.  A mapping the script asks for without
 * MAP_FIXED lands in the window when its hint is free there; elsewhere it
 * lands outside on both sides (the host searches top-down far above, the
 * model upward from MMAP_BASE), is reported as "outside" and unmapped at
 * once.
 *
 * The script depends on the seed only, never on results (splitmix64).
 * Operation kinds (--ops): mmap of private and shared anonymous memory, of
 * two scratch files (read-write, and the first one read-only too) and of
 * /dev/zero, fixed or hinted, every PROT combination, MAP_POPULATE and
 * MAP_NORESERVE; munmap; mprotect; mlock, mlock2, munlock, mlockall,
 * munlockall; truncate and extend of a file; fallocate(PUNCH_HOLE); fork,
 * with byte accesses in the child, then the parent, then the child again,
 * after which the script goes on in one of them and the other exits; byte
 * reads and writes; invalid arguments (unaligned, overflowing, bad flags).
 * mremap, madvise and msync go through do_mremap, do_madvise and do_msync.
 *
 * The line of a step: the operation, its return value (or errno; an mmap
 * address as a window offset), the outcome of each access (the byte read,
 * "ok" for a write, SEGV or BUS), then the VMAs inside the window (page
 * offsets in the window, rwxp and the file offset as /proc/self/maps shows
 * them, the file: f0/f1 for the scratch files, zero for /dev/zero, shm for
 * shared anonymous memory, anon; the resident and anonymous pages of the
 * VMA, smaps Rss and Anonymous on the host, the model's page table
 * otherwise; the VmFlags lo, dc, wf, ac and nr when set) and the window's resident
 * and anonymous pages (smaps sums on the host; the mm's RSS counters in the
 * model).  After every model step mm_check runs on the model process; a
 * failure marks the line, so it shows as a difference.
 *
 * Execution.  Each seed's host run is a child of the tool (forked before
 * any model instance exists), which runs the whole script and writes its
 * lines to a pipe; a fork step forks it again, and the tool is the
 * subreaper of whichever process goes on.  Accesses on the host run under
 * sigsetjmp with SIGSEGV and SIGBUS handlers.  mlock, mlock2, munlock,
 * mlockall, munlockall, msync, madvise and mremap go through syscall(2): the
 * sanitizers' runtime intercepts the libc wrappers of the mlock family and
 * makes them succeed without doing anything.
 *
 * Host reruns.  Fault-around maps only the folios it can lock at once, so
 * on a busy machine a host run may now and then map fewer pages than the
 * same script does alone.  When a seed's transcripts differ, the host run
 * is repeated once; if the two host runs differ from each other, the
 * second is the reference (and the summary counts the rerun), else the
 * difference stands.  The model run is in the
 * tool's own thread: one model process (task_create_process + exec_mm),
 * task_fork for fork steps, accesses through rv_mm_read/rv_mm_write by the
 * attached task.
 *
 * Locking: single-threaded on both sides; the model's own locks are taken
 * by the model calls.
 */
#include "tools/cli.h"
#include "mm/mm.h"
#include "mm/testing.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/falloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG	   4096UL
#define WIN	   0x40000000UL
#define WIN_PAGES  64
#define WLEN	   (WIN_PAGES * PG)
#define RESV_PAGES 16 /* host reservation around the window, each side */
#define LINE	   4096
#define MAXVMA	   WIN_PAGES
#define NACC	   3

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif
#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#ifndef MADV_FREE
#define MADV_FREE 8
#endif
#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#define MADV_KEEPONFORK 19
#endif

/* ---- files -------------------------------------------------------------- */

/* The descriptors a mapping uses: two files read-write, the first read-only, /dev/zero. */
enum { FD_F0, FD_F1, FD_F0RO, FD_ZERO, NFD };
#define NFILE 2
static const unsigned long file_size0[NFILE] = {24 * PG, 8 * PG + 100};
static const char *const model_path[NFILE] = {"/mmdiff0", "/mmdiff1"};

static unsigned char file_byte(int f, unsigned long off)
{
	return (unsigned char)(f * 64 + (off / PG) * 7 + off % 251 + 1);
}

/* ---- the script --------------------------------------------------------- */

enum op {
	OP_MMAP,
	OP_MUNMAP,
	OP_MPROTECT,
	OP_MLOCK,
	OP_MLOCK2,
	OP_MUNLOCK,
	OP_MLOCKALL,
	OP_MUNLOCKALL,
	OP_TRUNCATE,
	OP_PUNCH,
	OP_FORK,
	OP_ACCESS,
	OP_MSYNC,
	OP_MREMAP,
	OP_MADVISE,
};

/* Operation kinds, as --ops names them; a step belongs to one kind. */
enum kind {
	K_MMAP_ANON,
	K_MMAP_SHANON,
	K_MMAP_FILE,
	K_MMAP_ZERO,
	K_MUNMAP,
	K_MPROTECT,
	K_MLOCK,
	K_MLOCKALL,
	K_TRUNCATE,
	K_PUNCH,
	K_FORK,
	K_ACCESS,
	K_INVALID,
	K_MSYNC,
	K_MREMAP,
	K_MADVISE,
	NKIND
};

static const struct {
	const char *name;
	int weight;
	bool model_has; /* false: the model lacks the call; --ops refuses it */
	const char *help;
} kinds[NKIND] = {
    [K_MMAP_ANON] = {"mmap-anon", 14, true, "private anonymous mmap"},
    [K_MMAP_SHANON] = {"mmap-shanon", 4, true, "MAP_SHARED|MAP_ANONYMOUS mmap"},
    [K_MMAP_FILE] = {"mmap-file", 12, true, "private and shared mmap of the scratch files"},
    [K_MMAP_ZERO] = {"mmap-zero", 3, true, "private and shared mmap of /dev/zero"},
    [K_MUNMAP] = {"munmap", 8, true, "munmap"},
    [K_MPROTECT] = {"mprotect", 10, true, "mprotect"},
    [K_MLOCK] = {"mlock", 5, true, "mlock, mlock2 (MLOCK_ONFAULT, bad flags) and munlock"},
    [K_MLOCKALL] = {"mlockall", 1, true,
		    "mlockall(MCL_CURRENT/MCL_FUTURE, with or without MCL_ONFAULT) and munlockall"},
    [K_TRUNCATE] = {"truncate", 3, true, "truncate or extend a scratch file"},
    [K_PUNCH] = {"punch", 2, true, "fallocate(PUNCH_HOLE|KEEP_SIZE) on a scratch file"},
    [K_FORK] = {"fork", 3, true, "fork, accesses in child and parent, go on in one"},
    [K_ACCESS] = {"access", 30, true, "byte reads and writes"},
    [K_INVALID] = {"invalid", 4, true, "invalid arguments to mmap/munmap/mprotect/mlock"},
    [K_MSYNC] = {"msync", 2, true, "msync: MS_SYNC, MS_ASYNC, MS_INVALIDATE, bad flags"},
    [K_MREMAP] = {"mremap", 4, true, "mremap: grow, shrink, move, fixed, dontunmap"},
    [K_MADVISE] = {"madvise", 4, true, "madvise: DONTNEED, FREE, (DONT|DO)FORK, (WIPE|KEEP)ONFORK"},
};

struct acc {
	unsigned long addr;
	int val; /* -1: read */
};

struct step {
	int op;
	unsigned long addr, len;
	int prot, flags, fd, arg;
	unsigned long pgoff; /* OP_MMAP: file offset in pages; OP_PUNCH: byte offset;
			      * OP_MREMAP: the new length */
	unsigned long addr2; /* OP_MREMAP: the new address (MREMAP_FIXED) */
	int nacc[3];	     /* OP_ACCESS: nacc[0]; OP_FORK: child, parent, child */
	struct acc acc[3][NACC];
};

static uint64_t rng;
static uint64_t rnd(void)
{
	/* splitmix64: the script depends on the seed only */
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
static int rn(int n)
{
	return (int)(rnd() % (uint64_t)n);
}

/*
 * A sanitizer build's process has terabytes of shadow and allocator
 * reservations: mlockall(MCL_CURRENT) would populate them and
 * MCL_FUTURE every later one, and the kernel kills the host run.  Such a
 * build leaves the mlockall kind out.
 */
#ifdef __SANITIZE_ADDRESS__
#define NO_MLOCKALL 1
#else
#define NO_MLOCKALL 0
#endif

static bool kind_on[NKIND];
static unsigned long last_lo, last_hi; /* the generator's last range, for accesses */

/* A page range inside the window: mostly short, sometimes wide. */
static void gen_range(unsigned long *addr, unsigned long *len)
{
	int p = rn(WIN_PAGES), max = WIN_PAGES - p;
	int n = rn(8) ? 1 + rn(max < 8 ? max : 8) : 1 + rn(max);

	*addr = WIN + (unsigned long)p * PG;
	*len = (unsigned long)n * PG;
	if (!rn(16)) /* a length that is not a page multiple: rounded up */
		*len -= 1 + (unsigned long)rn((int)PG - 1);
	last_lo = *addr;
	last_hi = *addr + *len;
}

static int gen_prot(void)
{
	static const int p[] = {PROT_NONE,
				PROT_READ,
				PROT_READ | PROT_WRITE,
				PROT_WRITE,
				PROT_READ | PROT_EXEC,
				PROT_READ | PROT_WRITE | PROT_EXEC,
				PROT_EXEC,
				PROT_WRITE | PROT_EXEC};
	int r = rn(16);

	/* half the time read-only or read-write: what makes VMAs merge */
	return r < 4 ? PROT_READ : r < 8 ? PROT_READ | PROT_WRITE : p[r - 8];
}

static void gen_acc(struct acc *a)
{
	if (rn(3) && last_hi > last_lo)
		a->addr = last_lo + (unsigned long)rn((int)(last_hi - last_lo));
	else
		a->addr = WIN + (unsigned long)rn((int)WLEN);
	a->val = rn(2) ? -1 : rn(256);
}

static int gen_accs(struct acc *a)
{
	int n = 1 + rn(NACC);

	for (int i = 0; i < n; i++)
		gen_acc(&a[i]);
	return n;
}

static void gen_mmap_flags(struct step *s)
{
	if (!rn(5)) {
		s->flags &= ~MAP_FIXED;
		if (!rn(8))
			s->addr = 0; /* no hint at all */
		else if (!rn(8))
			s->addr += (unsigned long)rn((int)PG); /* an unaligned hint */
	}
	if (!rn(5))
		s->flags |= MAP_POPULATE;
	if (!rn(6))
		s->flags |= MAP_NORESERVE;
}

static void gen_invalid(struct step *s)
{
	unsigned long a, l;

	gen_range(&a, &l);
	switch (rn(12)) {
	case 0: /* unaligned address */
		*s = (struct step){
		    .op = OP_MUNMAP, .addr = a + 1 + (unsigned long)rn(100), .len = l};
		break;
	case 1:
		*s = (struct step){.op = OP_MPROTECT, .addr = a + 8, .len = l, .prot = PROT_READ};
		break;
	case 2:
		*s = (struct step){.op = OP_MMAP,
				   .addr = a + 16,
				   .len = l,
				   .prot = PROT_READ,
				   .flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
				   .fd = -1};
		break;
	case 3: /* zero length */
		*s = (struct step){.op = rn(2) ? OP_MUNMAP : OP_MMAP,
				   .addr = a,
				   .len = 0,
				   .prot = PROT_READ,
				   .flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
				   .fd = -1};
		break;
	case 4: /* a length that wraps around the address space */
		*s = (struct step){
		    .op = OP_MUNMAP, .addr = a, .len = -(unsigned long)PG * (1 + rn(4))};
		break;
	case 5:
		*s = (struct step){
		    .op = OP_MPROTECT, .addr = a, .len = -(unsigned long)PG, .prot = PROT_READ};
		break;
	case 6:
		*s = (struct step){.op = OP_MMAP,
				   .addr = a,
				   .len = -(unsigned long)PG * 2,
				   .prot = PROT_READ,
				   .flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
				   .fd = -1};
		break;
	case 7: /* neither MAP_PRIVATE nor MAP_SHARED */
		*s = (struct step){.op = OP_MMAP,
				   .addr = a,
				   .len = l,
				   .prot = PROT_READ,
				   .flags = MAP_ANONYMOUS | MAP_FIXED,
				   .fd = -1};
		break;
	case 8: /* bad PROT bits */
		*s = (struct step){.op = OP_MPROTECT, .addr = a, .len = l, .prot = 0x100};
		break;
	case 9: /* a file mapping with an offset that overflows */
		*s = (struct step){.op = OP_MMAP,
				   .addr = a,
				   .len = l,
				   .prot = PROT_READ,
				   .flags = MAP_PRIVATE | MAP_FIXED,
				   .fd = FD_F0,
				   .pgoff = -(unsigned long)1};
		break;
	case 10: /* bad mlockall flags: none, MCL_ONFAULT alone, unknown */
		*s = (struct step){.op = OP_MLOCKALL, .arg = rn(2) ? 0 : rn(2) ? MCL_ONFAULT : 64};
		break;
	default: /* mlock with a wrapping length */
		*s = (struct step){.op = OP_MLOCK, .addr = a, .len = -(unsigned long)PG};
		break;
	}
}

static void gen_step(struct step *s, int k)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	switch (k) {
	case K_MMAP_ANON:
	case K_MMAP_SHANON:
		s->op = OP_MMAP;
		gen_range(&s->addr, &s->len);
		s->prot = gen_prot();
		s->flags =
		    (k == K_MMAP_ANON ? MAP_PRIVATE : MAP_SHARED) | MAP_ANONYMOUS | MAP_FIXED;
		if (!rn(8))
			s->pgoff = 1 + (unsigned long)rn(8); /* ignored for anonymous memory */
		gen_mmap_flags(s);
		break;
	case K_MMAP_FILE:
		s->op = OP_MMAP;
		gen_range(&s->addr, &s->len);
		s->prot = gen_prot();
		s->flags = (rn(2) ? MAP_PRIVATE : MAP_SHARED) | MAP_FIXED;
		s->fd = rn(4) ? rn(2) : FD_F0RO;
		s->pgoff = (unsigned long)rn(28);
		gen_mmap_flags(s);
		break;
	case K_MMAP_ZERO:
		s->op = OP_MMAP;
		gen_range(&s->addr, &s->len);
		s->prot = gen_prot();
		s->flags = (rn(2) ? MAP_PRIVATE : MAP_SHARED) | MAP_FIXED;
		s->fd = FD_ZERO;
		s->pgoff = (unsigned long)rn(4);
		gen_mmap_flags(s);
		break;
	case K_MUNMAP:
		s->op = OP_MUNMAP;
		gen_range(&s->addr, &s->len);
		break;
	case K_MPROTECT:
		s->op = OP_MPROTECT;
		gen_range(&s->addr, &s->len);
		s->prot = gen_prot();
		break;
	case K_MLOCK: {
		/* mlock, munlock, mlock2 with MLOCK_ONFAULT, with no flag or a bad one */
		static const int f2[] = {MLOCK_ONFAULT, MLOCK_ONFAULT, MLOCK_ONFAULT, 0, 2};
		int r = rn(9);

		s->op = r < 4 ? OP_MLOCK : r < 6 ? OP_MLOCK2 : OP_MUNLOCK;
		gen_range(&s->addr, &s->len);
		if (s->op == OP_MLOCK2)
			s->arg = f2[rn(5)];
		break;
	}
	case K_MLOCKALL:
		if (rn(2)) {
			s->op = OP_MUNLOCKALL;
		} else {
			static const int f[] = {MCL_CURRENT,
						MCL_FUTURE,
						MCL_CURRENT | MCL_FUTURE,
						MCL_CURRENT | MCL_ONFAULT,
						MCL_FUTURE | MCL_ONFAULT,
						MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT};

			s->op = OP_MLOCKALL;
			s->arg = f[rn(6)];
		}
		break;
	case K_TRUNCATE: {
		static const unsigned long sz[] = {0,	    3 * PG,  5 * PG + 17, 8 * PG + 100,
						   16 * PG, 24 * PG, 30 * PG + 7};

		s->op = OP_TRUNCATE;
		s->fd = rn(NFILE);
		s->len = sz[rn(7)];
		break;
	}
	case K_PUNCH:
		s->op = OP_PUNCH;
		s->fd = rn(NFILE);
		s->pgoff = (unsigned long)rn(24) * PG + (rn(4) ? 0 : (unsigned long)rn((int)PG));
		s->len = (unsigned long)(1 + rn(6)) * PG - (rn(4) ? 0 : (unsigned long)rn(100));
		break;
	case K_FORK:
		s->op = OP_FORK;
		for (int g = 0; g < 3; g++)
			s->nacc[g] = gen_accs(s->acc[g]);
		s->arg = rn(2); /* 1: the script goes on in the child */
		break;
	case K_ACCESS:
		s->op = OP_ACCESS;
		s->nacc[0] = gen_accs(s->acc[0]);
		break;
	case K_INVALID:
		gen_invalid(s);
		break;
	case K_MSYNC: {
		static const int f[] = {MS_SYNC,
					MS_SYNC,
					MS_ASYNC,
					MS_ASYNC,
					MS_INVALIDATE,
					MS_SYNC | MS_INVALIDATE,
					MS_ASYNC | MS_INVALIDATE,
					0,
					MS_SYNC | MS_ASYNC,
					8};

		s->op = OP_MSYNC;
		gen_range(&s->addr, &s->len);
		s->arg = f[rn(10)];
		if (!rn(20))
			s->addr += 1 + (unsigned long)rn(100);
		break;
	}
	case K_MREMAP: {
		/* grow, shrink or keep; in place, may move, to a fixed address,
		 * don't-unmap; now and then unaligned or with flags Linux refuses */
		static const int fl[] = {0,
					 MREMAP_MAYMOVE,
					 MREMAP_MAYMOVE | MREMAP_FIXED,
					 MREMAP_MAYMOVE | MREMAP_DONTUNMAP,
					 MREMAP_FIXED,
					 MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP};
		int r = rn(10), np;

		s->op = OP_MREMAP;
		gen_range(&s->addr, &s->len);
		np = 1 + rn(r < 4 ? 12 : 4);
		s->pgoff = (unsigned long)np * PG;
		if (r >= 8)
			s->pgoff = s->len; /* same length */
		s->arg = fl[rn(20) ? rn(4) : 4 + rn(2)];
		if (s->arg & MREMAP_DONTUNMAP)
			s->pgoff = rn(4) ? s->len : s->pgoff;
		if (s->arg & MREMAP_FIXED) {
			int p = rn(WIN_PAGES - (int)((s->pgoff + PG - 1) / PG) + 1);

			s->addr2 = WIN + (unsigned long)(p < 0 ? 0 : p) * PG;
		}
		if (!rn(20))
			s->addr += 1 + (unsigned long)rn(100);
		break;
	}
	case K_MADVISE: {
		static const int adv[] = {
		    MADV_DONTNEED, MADV_DONTNEED,   MADV_FREE,	     MADV_DONTFORK,
		    MADV_DOFORK,   MADV_WIPEONFORK, MADV_KEEPONFORK, 999};

		s->op = OP_MADVISE;
		gen_range(&s->addr, &s->len);
		s->arg = adv[rn(8)];
		if (!rn(20))
			s->addr += 1 + (unsigned long)rn(100);
		break;
	}
	}
}

/* The script of a seed: steps kinds drawn by weight among the enabled ones. */
static void gen_script(uint64_t seed, int n, struct step *st)
{
	int total = 0;

	rng = seed * 0x2545f4914f6cdd1dull + 1;
	last_lo = last_hi = 0;
	for (int k = 0; k < NKIND; k++)
		total += kind_on[k] ? kinds[k].weight : 0;
	for (int i = 0; i < n; i++) {
		int r = rn(total), k = 0;

		for (k = 0; k < NKIND; k++) {
			if (!kind_on[k])
				continue;
			if (r < kinds[k].weight)
				break;
			r -= kinds[k].weight;
		}
		gen_step(&st[i], k);
	}
}

/* ---- canonical text ----------------------------------------------------- */

struct vinfo {
	unsigned long start, end, pgoff;
	char perm[5];
	char file[8];
	long rss, anon;
	bool lo, dc, wf, mw, ac, nr;
};

struct vlist {
	int n;
	struct vinfo v[MAXVMA + 2];
	long rss, anon; /* window totals */
};

struct out {
	char *p;
	size_t left;
};

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->p, o->left, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= o->left)
		n = o->left ? (int)o->left - 1 : 0;
	o->p += n;
	o->left -= (size_t)n;
}

static const char *errname(int e)
{
	switch (e) {
	case EINVAL:
		return "EINVAL";
	case ENOMEM:
		return "ENOMEM";
	case EFAULT:
		return "EFAULT";
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case EBADF:
		return "EBADF";
	case EAGAIN:
		return "EAGAIN";
	case EBUSY:
		return "EBUSY";
	case ENODEV:
		return "ENODEV";
	case EOVERFLOW:
		return "EOVERFLOW";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case ENOSYS:
		return "ENOSYS";
	case EFBIG:
		return "EFBIG";
	case EIO:
		return "EIO";
	}
	return NULL;
}

static void put_ret(struct out *o, long r)
{
	const char *e = r < 0 ? errname((int)-r) : NULL;

	if (r >= 0)
		put(o, " = %ld", r);
	else if (e)
		put(o, " = %s", e);
	else
		put(o, " = E%ld", -r);
}

static void put_op(struct out *o, const struct step *s)
{
	static const char *const fdname[NFD] = {"f0", "f1", "f0ro", "zero"};
	unsigned long off = s->addr >= WIN ? s->addr - WIN : s->addr;
	const char *rel = s->addr >= WIN ? "+" : "@";

	switch (s->op) {
	case OP_MMAP:
		put(o, "mmap %s%#lx %#lx prot %d %s%s%s%s%s%s %s pgoff %#lx", rel, off, s->len,
		    s->prot,
		    (s->flags & MAP_TYPE) == MAP_SHARED	   ? "shared"
		    : (s->flags & MAP_TYPE) == MAP_PRIVATE ? "private"
							   : "type?",
		    s->flags & MAP_ANONYMOUS ? "|anon" : "", s->flags & MAP_FIXED ? "|fixed" : "",
		    s->flags & MAP_POPULATE ? "|populate" : "",
		    s->flags & MAP_NORESERVE ? "|noreserve" : "", "",
		    s->fd >= 0 ? fdname[s->fd] : "-", s->pgoff);
		break;
	case OP_MUNMAP:
		put(o, "munmap %s%#lx %#lx", rel, off, s->len);
		break;
	case OP_MPROTECT:
		put(o, "mprotect %s%#lx %#lx %d", rel, off, s->len, s->prot);
		break;
	case OP_MLOCK:
		put(o, "mlock %s%#lx %#lx", rel, off, s->len);
		break;
	case OP_MLOCK2:
		put(o, "mlock2 %s%#lx %#lx %d", rel, off, s->len, s->arg);
		break;
	case OP_MUNLOCK:
		put(o, "munlock %s%#lx %#lx", rel, off, s->len);
		break;
	case OP_MLOCKALL:
		put(o, "mlockall %d", s->arg);
		break;
	case OP_MUNLOCKALL:
		put(o, "munlockall");
		break;
	case OP_TRUNCATE:
		put(o, "truncate f%d %#lx", s->fd, s->len);
		break;
	case OP_PUNCH:
		put(o, "punch f%d %#lx %#lx", s->fd, s->pgoff, s->len);
		break;
	case OP_FORK:
		put(o, "fork->%s", s->arg ? "child" : "parent");
		break;
	case OP_ACCESS:
		put(o, "access");
		break;
	case OP_MSYNC:
		put(o, "msync %s%#lx %#lx %d", rel, off, s->len, s->arg);
		break;
	case OP_MREMAP:
		put(o, "mremap %s%#lx %#lx %#lx flags %d", rel, off, s->len, s->pgoff, s->arg);
		if (s->arg & MREMAP_FIXED)
			put(o, " to +%#lx", s->addr2 - WIN);
		break;
	case OP_MADVISE:
		put(o, "madvise %s%#lx %#lx %d", rel, off, s->len, s->arg);
		break;
	}
}

/* An access outcome: 0 ok, or -EFAULT (SIGSEGV), -EIO (SIGBUS). */
static void put_acc(struct out *o, const struct acc *a, int r, unsigned char v)
{
	put(o, " %c%#lx", a->val < 0 ? 'r' : 'w', a->addr - WIN);
	if (r == -EFAULT)
		put(o, "=SEGV");
	else if (r == -EIO)
		put(o, "=BUS");
	else if (r)
		put(o, "=E%d", -r);
	else if (a->val < 0)
		put(o, "=%02x", v);
	else
		put(o, "=ok");
}

static void put_vmas(struct out *o, struct vlist *vl)
{
	put(o, " |");
	for (int i = 0; i < vl->n; i++) {
		const struct vinfo *v = &vl->v[i];

		put(o, " %lx-%lx %s %lx %s r%ld/%ld%s%s%s%s%s;", (v->start - WIN) / PG,
		    (v->end - WIN) / PG, v->perm, v->pgoff, v->file, v->rss, v->anon,
		    v->lo ? " lo" : "", v->dc ? " dc" : "", v->wf ? " wf" : "", v->ac ? " ac" : "",
		    v->nr ? " nr" : "");
	}
	put(o, " | rss %ld/%ld", vl->rss, vl->anon);
}

/* ---- the host side ------------------------------------------------------ */

static int hfd[NFD];
static char host_path[NFILE][256];
static sigjmp_buf acc_jb;
static volatile sig_atomic_t acc_armed;

static void acc_handler(int sig)
{
	if (acc_armed)
		siglongjmp(acc_jb, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int host_access(const struct acc *a, unsigned char *v)
{
	volatile unsigned char *p = (volatile unsigned char *)a->addr;
	int sig;

	sig = sigsetjmp(acc_jb, 1);
	if (sig) {
		acc_armed = 0;
		return sig == SIGBUS ? -EIO : -EFAULT;
	}
	acc_armed = 1;
	if (a->val < 0)
		*v = *p;
	else
		*p = (unsigned char)a->val;
	acc_armed = 0;
	return 0;
}

static void host_accs(struct out *o, const struct acc *a, int n)
{
	for (int i = 0; i < n; i++) {
		unsigned char v = 0;
		int r = host_access(&a[i], &v);

		put_acc(o, &a[i], r, v);
	}
}

/* The window's VMAs from /proc/self/smaps. */
static int host_vmas(struct vlist *vl)
{
	static char buf[1 << 16];
	FILE *f = fopen("/proc/self/smaps", "r");
	struct vinfo *cur = NULL;

	memset(vl, 0, sizeof(*vl));
	if (!f)
		return -errno;
	setvbuf(f, NULL, _IOFBF, 0);
	while (fgets(buf, sizeof(buf), f)) {
		unsigned long s, e, off;
		char perm[8], path[512];
		long kb;
		int n;

		path[0] = 0;
		n = sscanf(buf, "%lx-%lx %7s %lx %*s %*s %511[^\n]", &s, &e, perm, &off, path);
		if (n >= 4 && buf[0] != 'V') {
			cur = NULL;
			if (s < WIN || e > WIN + WLEN || vl->n >= MAXVMA)
				continue;
			cur = &vl->v[vl->n++];
			cur->start = s;
			cur->end = e;
			cur->pgoff = off / PG;
			memcpy(cur->perm, perm, 4);
			cur->perm[4] = 0;
			if (!path[0])
				strcpy(cur->file, "anon");
			else if (!strcmp(path, host_path[0]))
				strcpy(cur->file, "f0");
			else if (!strcmp(path, host_path[1]))
				strcpy(cur->file, "f1");
			else if (!strcmp(path, "/dev/zero"))
				strcpy(cur->file, "zero");
			else if (!strncmp(path, "/dev/zero (deleted)", 19) ||
				 !strncmp(path, "/SYSV", 5))
				strcpy(cur->file, "shm");
			else
				strcpy(cur->file, "?");
			continue;
		}
		if (!cur)
			continue;
		if (sscanf(buf, "Rss: %ld kB", &kb) == 1) {
			cur->rss = kb / 4;
			vl->rss += kb / 4;
		} else if (sscanf(buf, "Anonymous: %ld kB", &kb) == 1) {
			cur->anon = kb / 4;
			vl->anon += kb / 4;
		} else if (!strncmp(buf, "VmFlags:", 8)) {
			cur->lo = strstr(buf, " lo") != NULL;
			cur->dc = strstr(buf, " dc") != NULL;
			cur->wf = strstr(buf, " wf") != NULL;
			cur->mw = strstr(buf, " mw") != NULL;
			cur->ac = strstr(buf, " ac") != NULL;
			cur->nr = strstr(buf, " nr") != NULL;
		}
	}
	fclose(f);
	return 0;
}

static long host_mmap(const struct step *s)
{
	void *p = mmap((void *)s->addr, s->len, s->prot, s->flags,
		       s->flags & MAP_ANONYMOUS ? -1 : hfd[s->fd], (off_t)(s->pgoff * PG));

	if (p == MAP_FAILED)
		return -errno;
	if ((unsigned long)p < WIN || (unsigned long)p + s->len > WIN + WLEN) {
		munmap(p, s->len);
		return -1000; /* outside */
	}
	return (long)((unsigned long)p - WIN);
}

static long sysret(long r)
{
	return r < 0 ? -errno : r;
}

/* mremap: the new address as a window offset, or -1000 (outside: unmapped). */
static long host_mremap(const struct step *s)
{
	long r = syscall(SYS_mremap, s->addr, s->len, s->pgoff, s->arg, s->addr2);
	void *p = (void *)r;

	if (r < 0)
		return -errno;
	if ((unsigned long)p < WIN || (unsigned long)p + s->pgoff > WIN + WLEN) {
		munmap(p, s->pgoff);
		return -1000;
	}
	return (long)((unsigned long)p - WIN);
}

static void host_write_line(int fd, struct out *o, char *line)
{
	size_t len;

	put(o, "\n");
	len = strlen(line);
	for (size_t done = 0; done < len;) {
		ssize_t w = write(fd, line + done, len - done);

		if (w <= 0)
			_exit(3);
		done += (size_t)w;
	}
}

static void put_mmap_ret(struct out *o, long r)
{
	if (r == -1000)
		put(o, " = outside");
	else if (r >= 0)
		put(o, " = +%#lx", (unsigned long)r);
	else
		put_ret(o, r);
}

static void read_all(int fd, char *buf, size_t size)
{
	size_t got = 0;
	ssize_t r;

	while (got + 1 < size && (r = read(fd, buf + got, size - 1 - got)) > 0)
		got += (size_t)r;
	buf[got] = 0;
}

/*
 * A fork step on the host: the child's accesses, the parent's, the
 * child's again (each side waits for the other through pipes), then the
 * one that does not go on exits.  When the child goes on, the parent hands
 * it the line so far and exits; the tool (subreaper) reaps both.
 */
static void host_fork(const struct step *s, struct out *o, char *line, size_t size)
{
	static char cbuf[LINE];
	int pc[2], cp[2], status;
	pid_t pid;
	char b = 0;

	if (pipe(pc) || pipe(cp))
		_exit(3);
	pid = fork();
	if (pid < 0)
		_exit(3);
	if (pid == 0) {
		struct out co = {cbuf, sizeof(cbuf)};

		close(pc[0]);
		close(cp[1]);
		host_accs(&co, s->acc[0], s->nacc[0]);
		if (write(pc[1], cbuf, strlen(cbuf) + 1) < 0 || read(cp[0], &b, 1) != 1)
			_exit(3);
		co = (struct out){cbuf, sizeof(cbuf)};
		host_accs(&co, s->acc[2], s->nacc[2]);
		if (write(pc[1], cbuf, strlen(cbuf) + 1) < 0)
			_exit(3);
		close(pc[1]);
		if (!s->arg)
			_exit(0);
		/* the line so far, then EOF when the parent is gone */
		read_all(cp[0], line, size);
		close(cp[0]);
		o->p = line + strlen(line);
		o->left = size - strlen(line);
		return;
	}
	close(pc[1]);
	close(cp[0]);
	if (read(pc[0], cbuf, sizeof(cbuf)) <= 0)
		_exit(3);
	put(o, " = c:%s p:", cbuf);
	host_accs(o, s->acc[1], s->nacc[1]);
	if (write(cp[1], &b, 1) != 1 || read(pc[0], cbuf, sizeof(cbuf)) <= 0)
		_exit(3);
	put(o, " c:%s", cbuf);
	close(pc[0]);
	if (s->arg) {
		size_t len = strlen(line);

		if (write(cp[1], line, len) != (ssize_t)len)
			_exit(3);
		_exit(0);
	}
	close(cp[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		put(o, " child-died");
}

/* The host run: executes the whole script, one line per step to fd. */
static void host_run(const struct step *st, int n, int fd)
{
	static char line[LINE];
	struct sigaction sa = {.sa_handler = acc_handler};
	struct vlist vl;
	void *resv;

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	resv = mmap((void *)(WIN - RESV_PAGES * PG), WLEN + 2 * RESV_PAGES * PG, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (resv != (void *)(WIN - RESV_PAGES * PG)) {
		dprintf(fd, "host: cannot reserve the window at %#lx: %s\n", WIN, strerror(errno));
		_exit(3);
	}
	if (mmap((void *)(WIN - PG), PG, PROT_NONE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1,
		 0) == MAP_FAILED ||
	    mmap((void *)(WIN + WLEN), PG, PROT_NONE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1,
		 0) == MAP_FAILED ||
	    munmap((void *)WIN, WLEN)) {
		dprintf(fd, "host: cannot carve the window: %s\n", strerror(errno));
		_exit(3);
	}
	for (int i = 0; i < n; i++) {
		const struct step *s = &st[i];
		struct out o = {line, sizeof(line)};

		put(&o, "%d ", i);
		put_op(&o, s);
		switch (s->op) {
		case OP_MMAP:
			put_mmap_ret(&o, host_mmap(s));
			break;
		case OP_MUNMAP:
			put_ret(&o, sysret(munmap((void *)s->addr, s->len)));
			break;
		case OP_MPROTECT:
			put_ret(&o, sysret(mprotect((void *)s->addr, s->len, s->prot)));
			break;
		case OP_MLOCK:
			put_ret(&o, sysret(syscall(SYS_mlock, s->addr, s->len)));
			break;
		case OP_MLOCK2:
			put_ret(&o, sysret(syscall(SYS_mlock2, s->addr, s->len, s->arg)));
			break;
		case OP_MUNLOCK:
			put_ret(&o, sysret(syscall(SYS_munlock, s->addr, s->len)));
			break;
		case OP_MLOCKALL:
			put_ret(&o, sysret(syscall(SYS_mlockall, s->arg)));
			break;
		case OP_MUNLOCKALL:
			put_ret(&o, sysret(syscall(SYS_munlockall)));
			break;
		case OP_TRUNCATE:
			put_ret(&o, sysret(ftruncate(hfd[s->fd], (off_t)s->len)));
			break;
		case OP_PUNCH:
			put_ret(&o, sysret(fallocate(hfd[s->fd],
						     FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
						     (off_t)s->pgoff, (off_t)s->len)));
			break;
		case OP_ACCESS:
			put(&o, " =");
			host_accs(&o, s->acc[0], s->nacc[0]);
			break;
		case OP_MSYNC:
			put_ret(&o, sysret(syscall(SYS_msync, s->addr, s->len, s->arg)));
			break;
		case OP_MREMAP:
			put_mmap_ret(&o, host_mremap(s));
			break;
		case OP_MADVISE:
			put_ret(&o, sysret(syscall(SYS_madvise, s->addr, s->len, s->arg)));
			break;
		case OP_FORK:
			host_fork(s, &o, line, sizeof(line));
			break;
		}
		if (host_vmas(&vl)) {
			dprintf(fd, "host: /proc/self/smaps: %s\n", strerror(errno));
			_exit(3);
		}
		put_vmas(&o, &vl);
		host_write_line(fd, &o, line);
	}
}

/* ---- the model side ----------------------------------------------------- */

static struct file *mfile[NFD];

static void model_accs(struct out *o, const struct acc *a, int n)
{
	for (int i = 0; i < n; i++) {
		unsigned char v = 0;
		int r = a[i].val < 0
			    ? rv_mm_read(a[i].addr, &v, 1)
			    : rv_mm_write(a[i].addr, &(unsigned char){(unsigned char)a[i].val}, 1);

		put_acc(o, &a[i], r, v);
	}
}

static void model_vmas(struct mm_struct *mm, struct vlist *vl)
{
	struct vm_area_struct *vma;
	int i;

	memset(vl, 0, sizeof(*vl));
	mmap_read_lock(mm);
	for_each_vma_idx(mm, i, vma) {
		struct vinfo *v;
		unsigned long f = vma->vm_flags;

		if (vma->vm_start < WIN || vma->vm_end > WIN + WLEN || vl->n >= MAXVMA)
			continue;
		v = &vl->v[vl->n++];
		v->start = vma->vm_start;
		v->end = vma->vm_end;
		v->pgoff = vma->vm_file ? vma->vm_pgoff : 0; /* as /proc/PID/maps */
		snprintf(v->perm, sizeof(v->perm), "%c%c%c%c", f & VM_READ ? 'r' : '-',
			 f & VM_WRITE ? 'w' : '-', f & VM_EXEC ? 'x' : '-',
			 f & VM_MAYSHARE ? 's' : 'p');
		if (!vma->vm_file)
			strcpy(v->file, "anon");
		else if (vma->vm_file->f_inode == mfile[FD_F0]->f_inode)
			strcpy(v->file, "f0");
		else if (vma->vm_file->f_inode == mfile[FD_F1]->f_inode)
			strcpy(v->file, "f1");
		else if (vma->vm_file->f_inode == mfile[FD_ZERO]->f_inode)
			strcpy(v->file, "zero");
		else
			strcpy(v->file, "shm");
		v->lo = f & VM_LOCKED;
		v->dc = f & VM_DONTCOPY;
		v->wf = f & VM_WIPEONFORK;
		v->mw = f & VM_MAYWRITE;
		v->ac = f & VM_ACCOUNT;
		v->nr = f & VM_NORESERVE;
		for (unsigned long a = v->start; a < v->end; a += PG) {
			pte_t pte = mm_pte_read(mm, a);

			if (!pte_present(pte) || pte_special(pte))
				continue;
			v->rss++;
			v->anon += mm_folio_is_anon(mm_folio_from_pte(pte));
		}
	}
	mmap_read_unlock(mm);
	vl->rss = get_mm_rss(mm);
	vl->anon = get_mm_counter(mm, MM_ANONPAGES);
}

static long model_mmap(struct mm_struct *mm, const struct step *s)
{
	struct file *f = s->flags & MAP_ANONYMOUS ? NULL : mfile[s->fd];
	long r = vm_mmap(mm, s->addr, s->len, s->prot, s->flags, f, s->pgoff);

	if (r < 0)
		return r;
	if ((unsigned long)r < WIN || (unsigned long)r + s->len > WIN + WLEN) {
		vm_munmap(mm, (unsigned long)r, s->len);
		return -1000;
	}
	return r - (long)WIN;
}

/* mremap: the new address as a window offset, or -1000 (outside: unmapped). */
static long model_mremap(struct mm_struct *mm, const struct step *s)
{
	long r = do_mremap(mm, s->addr, s->len, s->pgoff, (unsigned long)s->arg, s->addr2);

	if (r < 0)
		return r;
	if ((unsigned long)r < WIN || (unsigned long)r + s->pgoff > WIN + WLEN) {
		vm_munmap(mm, (unsigned long)r, s->pgoff);
		return -1000;
	}
	return r - (long)WIN;
}

/* Checks mm_check after each step; a failure marks the line. */
static void model_check(struct out *o, struct mm_struct *mm, const char *who)
{
	if (mm_check(mm))
		put(o, " MM_CHECK-FAILED(%s)", who);
}

static void model_fork(const struct step *s, struct out *o, struct task_struct **curp)
{
	struct task_struct *cur = *curp, *child = task_fork(cur);

	if (!child) {
		put(o, " = task_fork-failed");
		return;
	}
	task_detach();
	task_attach(child);
	put(o, " = c:");
	model_accs(o, s->acc[0], s->nacc[0]);
	task_detach();
	task_attach(cur);
	put(o, " p:");
	model_accs(o, s->acc[1], s->nacc[1]);
	task_detach();
	task_attach(child);
	put(o, " c:");
	model_accs(o, s->acc[2], s->nacc[2]);
	model_check(o, child->mm, "child");
	model_check(o, cur->mm, "parent");
	task_detach();
	if (s->arg) {
		task_exit(cur);
		*curp = child;
	} else {
		task_exit(child);
	}
	task_attach(*curp);
}

struct transcript {
	int n, cap;
	char **v;
};

static void tr_add(struct transcript *t, const char *line)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->v = realloc(t->v, (size_t)t->cap * sizeof(*t->v));
		if (!t->v)
			abort();
	}
	t->v[t->n++] = strdup(line);
}

static void tr_free(struct transcript *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static int model_setup(const struct rv_switches *sw, struct task_struct **tp)
{
	unsigned char buf[PG];
	struct task_struct *t;
	int r;

	r = rv_instance_create(sw);
	if (r) {
		fprintf(stderr, "mmdiff: rv_instance_create: %s\n", strerror(-r));
		return -1;
	}
	t = task_create_process("mmdiff");
	if (!t)
		return -1;
	task_attach(t);
	if (exec_mm(t))
		return -1;
	*tp = t;
	for (int f = 0; f < NFILE; f++) {
		r = filp_open(model_path[f], O_RDWR | O_CREAT | O_TRUNC, 0644, &mfile[f]);
		if (r) {
			fprintf(stderr, "mmdiff: model open %s: %s\n", model_path[f], strerror(-r));
			return -1;
		}
		for (unsigned long off = 0; off < file_size0[f]; off += PG) {
			unsigned long n = file_size0[f] - off < PG ? file_size0[f] - off : PG;
			int64_t pos = (int64_t)off;

			for (unsigned long i = 0; i < n; i++)
				buf[i] = file_byte(f, off + i);
			if (vfs_write(mfile[f], buf, n, &pos) != (ssize_t)n)
				return -1;
		}
	}
	if (filp_open(model_path[0], O_RDONLY, 0, &mfile[FD_F0RO]) ||
	    dev_zero_open(O_RDWR, &mfile[FD_ZERO]))
		return -1;
	if (vm_mmap(t->mm, WIN - PG, PG, PROT_NONE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, NULL,
		    0) < 0 ||
	    vm_mmap(t->mm, WIN + WLEN, PG, PROT_NONE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, NULL,
		    0) < 0)
		return -1;
	return 0;
}

/* The model run of a script: its transcript in tr; -1 if the run itself failed. */
static int model_run(const struct rv_switches *sw, const struct step *st, int n,
		     struct transcript *tr)
{
	static char line[LINE];
	struct task_struct *t = NULL;
	struct vlist vl;
	int ret = 0;

	if (model_setup(sw, &t)) {
		ret = -1;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		const struct step *s = &st[i];
		struct mm_struct *mm = t->mm;
		struct out o = {line, sizeof(line)};

		put(&o, "%d ", i);
		put_op(&o, s);
		switch (s->op) {
		case OP_MMAP:
			put_mmap_ret(&o, model_mmap(mm, s));
			break;
		case OP_MUNMAP:
			put_ret(&o, vm_munmap(mm, s->addr, s->len));
			break;
		case OP_MPROTECT:
			put_ret(&o, vm_mprotect(mm, s->addr, s->len, s->prot));
			break;
		case OP_MLOCK:
			put_ret(&o, vm_mlock(mm, s->addr, s->len));
			break;
		case OP_MLOCK2:
			put_ret(&o, vm_mlock2(mm, s->addr, s->len, (unsigned int)s->arg));
			break;
		case OP_MUNLOCK:
			put_ret(&o, vm_munlock(mm, s->addr, s->len));
			break;
		case OP_MLOCKALL:
			put_ret(&o, vm_mlockall(mm, s->arg));
			break;
		case OP_MUNLOCKALL:
			put_ret(&o, vm_munlockall(mm));
			break;
		case OP_TRUNCATE:
			put_ret(&o, vfs_truncate(mfile[s->fd]->f_inode, (int64_t)s->len));
			break;
		case OP_PUNCH:
			put_ret(&o, vfs_fallocate(mfile[s->fd],
						  FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
						  (int64_t)s->pgoff, (int64_t)s->len));
			break;
		case OP_ACCESS:
			put(&o, " =");
			model_accs(&o, s->acc[0], s->nacc[0]);
			break;
		case OP_FORK:
			model_fork(s, &o, &t);
			mm = t->mm;
			break;
		case OP_MREMAP:
			put_mmap_ret(&o, model_mremap(mm, s));
			break;
		case OP_MADVISE:
			put_ret(&o, do_madvise(mm, s->addr, s->len, s->arg));
			break;
		case OP_MSYNC:
			put_ret(&o, do_msync(mm, s->addr, s->len, s->arg));
			break;
		}
		model_vmas(mm, &vl);
		put_vmas(&o, &vl);
		model_check(&o, mm, "mm");
		tr_add(tr, line);
	}
out:
	if (t)
		task_detach();
	for (int f = 0; f < NFD; f++)
		if (mfile[f]) {
			fput(mfile[f]);
			mfile[f] = NULL;
		}
	if (t) {
		task_attach(t);
		for (int f = 0; f < NFILE; f++)
			do_unlink(model_path[f]);
		task_exit(t);
	}
	if (rv_instance_live() && rv_instance_destroy()) {
		fprintf(stderr, "mmdiff: rv_instance_destroy: model objects leaked\n");
		ret = -1;
	}
	return ret;
}

/* ---- the host run, from the tool ---------------------------------------- */

static const char *host_dir = "/dev/shm";

static int host_files(void)
{
	unsigned char buf[PG];

	for (int f = 0; f < NFILE; f++) {
		snprintf(host_path[f], sizeof(host_path[f]), "%s/rcuvfs-mmdiff.%d.f%d", host_dir,
			 (int)getpid(), f);
		hfd[f] = open(host_path[f], O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (hfd[f] < 0) {
			fprintf(stderr, "mmdiff: %s: %s\n", host_path[f], strerror(errno));
			return -1;
		}
		for (unsigned long off = 0; off < file_size0[f]; off += PG) {
			unsigned long n = file_size0[f] - off < PG ? file_size0[f] - off : PG;

			for (unsigned long i = 0; i < n; i++)
				buf[i] = file_byte(f, off + i);
			if (pwrite(hfd[f], buf, n, (off_t)off) != (ssize_t)n) {
				fprintf(stderr, "mmdiff: %s: write: %s\n", host_path[f],
					strerror(errno));
				return -1;
			}
		}
	}
	hfd[FD_F0RO] = open(host_path[0], O_RDONLY);
	hfd[FD_ZERO] = open("/dev/zero", O_RDWR);
	if (hfd[FD_F0RO] < 0 || hfd[FD_ZERO] < 0) {
		fprintf(stderr, "mmdiff: open: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void host_files_close(void)
{
	for (int f = 0; f < NFD; f++)
		if (hfd[f] > 0)
			close(hfd[f]);
	for (int f = 0; f < NFILE; f++)
		unlink(host_path[f]);
}

/* The host transcript of a script: forked runner(s); -1 if the run failed. */
static int host_transcript(const struct step *st, int n, struct transcript *tr)
{
	static char buf[LINE * 4];
	size_t have = 0;
	int p[2], ret = 0, status;
	pid_t pid;
	FILE *in;

	if (host_files())
		return -1;
	if (pipe(p))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(p[0]);
		host_run(st, n, p[1]);
		_exit(0);
	}
	close(p[1]);
	in = fdopen(p[0], "r");
	while (in && fgets(buf, sizeof(buf), in)) {
		have = strlen(buf);
		if (have && buf[have - 1] == '\n')
			buf[have - 1] = 0;
		if (!strncmp(buf, "host: ", 6)) {
			fprintf(stderr, "mmdiff: %s\n", buf);
			ret = -1;
			continue;
		}
		tr_add(tr, buf);
	}
	if (in)
		fclose(in);
	/* the runner and every process a fork step left (we are their subreaper) */
	while ((pid = waitpid(-1, &status, 0)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "mmdiff: host process %d ended with status %#x\n", (int)pid,
				status);
			ret = -1;
		}
	host_files_close();
	if (!ret && tr->n != n) {
		fprintf(stderr, "mmdiff: the host run printed %d lines for %d steps\n", tr->n, n);
		ret = -1;
	}
	return ret;
}

/* ---- main --------------------------------------------------------------- */

static int max_diffs = 1;

static void reproducer(uint64_t seed, int steps, const char *sw, const char *ops)
{
	printf("  reproduce: rcuvfs-mmdiff --seeds %llu --steps %d", (unsigned long long)seed,
	       steps);
	if (ops)
		printf(" --ops %s", ops);
	if (sw && *sw)
		printf(" -o %s", sw);
	printf("\n  transcripts: add --print host / --print model%s\n",
	       NO_MLOCKALL ? " (a sanitizer build: no mlockall steps)" : "");
}

/* The first line where a and b differ, or -1 when they are identical. */
static int first_diff(const struct transcript *a, const struct transcript *b)
{
	int n = a->n < b->n ? a->n : b->n;

	for (int i = 0; i < n; i++)
		if (strcmp(a->v[i], b->v[i]))
			return i;
	return a->n == b->n ? -1 : n;
}

static int compare(uint64_t seed, int steps, const char *sw, const char *ops,
		   const struct transcript *a, const struct transcript *b)
{
	int n = a->n < b->n ? a->n : b->n, diffs = 0;

	for (int i = 0; i < n && diffs < max_diffs; i++) {
		if (strcmp(a->v[i], b->v[i])) {
			printf("DIFF seed %llu step %d%s%s\n  linux %s\n  model %s\n",
			       (unsigned long long)seed, i, sw && *sw ? " under " : "",
			       sw ? sw : "", a->v[i], b->v[i]);
			if (i > 0)
				printf("  previous: %s\n", a->v[i - 1]);
			if (!diffs)
				reproducer(seed, steps, sw, ops);
			diffs++;
		}
	}
	if (!diffs && a->n != b->n) {
		printf("DIFF seed %llu: linux has %d lines, model %d\n", (unsigned long long)seed,
		       a->n, b->n);
		reproducer(seed, steps, sw, ops);
		diffs++;
	}
	return diffs;
}

static int parse_seeds(const char *s, uint64_t *lo, uint64_t *hi)
{
	char *end;

	*lo = strtoull(s, &end, 0);
	if (end == s)
		return -1;
	*hi = *lo;
	if (*end == '-') {
		s = end + 1;
		*hi = strtoull(s, &end, 0);
		if (end == s)
			return -1;
	}
	return *end || *hi < *lo ? -1 : 0;
}

static int parse_sw(const char *text, struct rv_switches *sw)
{
	char buf[512], err[256], *save = NULL, *kv;

	rv_switches_default(sw);
	sw->fault_around = 16; /* Linux's fault_around_bytes, 64 KiB; -o may change it */
	snprintf(buf, sizeof(buf), "%s", text);
	for (kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq) {
			fprintf(stderr, "rcuvfs-mmdiff: -o %s: not name=value\n", kv);
			return -1;
		}
		*eq = 0;
		if (rv_switch_set(sw, kv, eq + 1, err, sizeof(err))) {
			fprintf(stderr, "rcuvfs-mmdiff: -o: %s\n", err);
			return -1;
		}
	}
	if (rv_switches_check(sw, err, sizeof(err))) {
		fprintf(stderr, "rcuvfs-mmdiff: -o %s: %s\n", text, err);
		return -1;
	}
	return 0;
}

static int parse_ops(const char *text)
{
	char buf[512], *save = NULL, *w;

	memset(kind_on, 0, sizeof(kind_on));
	snprintf(buf, sizeof(buf), "%s", text);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int k;

		if (!strcmp(w, "all")) {
			for (k = 0; k < NKIND; k++)
				kind_on[k] = kinds[k].model_has;
			continue;
		}
		for (k = 0; k < NKIND && strcmp(w, kinds[k].name); k++)
			;
		if (k == NKIND) {
			fprintf(stderr, "rcuvfs-mmdiff: --ops: unknown kind '%s' (see --help)\n",
				w);
			return -1;
		}
		kind_on[k] = true;
	}
	for (int k = 0; k < NKIND; k++)
		if (kind_on[k])
			return 0;
	fprintf(stderr, "rcuvfs-mmdiff: --ops: no kind enabled\n");
	return -1;
}

static void help(void)
{
	printf(
	    "usage: rcuvfs-mmdiff [options]\n"
	    "Runs seeded mm scripts step by step in a real process on this machine and in\n"
	    "a model process, one canonical line per step, and compares the transcripts.\n"
	    "  -s, --seeds N|A-B   seeds (default 1)\n"
	    "  -n, --steps N       steps per script (default 200)\n"
	    "  -o, --switches SW   a model switch set, as \"vma_lock=refcnt,vm_area_cache=rcu\";\n"
	    "                      repeat for several; each starts from the defaults with\n"
	    "                      fault_around=16 (Linux's 64 KiB) (default: just that)\n"
	    "      --ops LIST      operation kinds, comma-separated, or \"all\" (default all:\n"
	    "                      every kind the model has; the others only with --print host)\n"
	    "      --dir DIR       the host's scratch files go here (default /dev/shm)\n"
	    "      --print host|model  print the first seed's transcript instead\n"
	    "  -k N                print up to N differing lines per comparison (default 1)\n"
	    "  -h, --help          this text\n"
	    "  -V, --version       version and git commit\n"
	    "Exit status: 0 identical, 1 a difference (seed, step, both lines and a\n"
	    "reproducer printed), 2 a bad option or a failed run.\n"
	    "Operation kinds:\n");
	for (int k = 0; k < NKIND; k++)
		printf("  %-12s %s%s\n", kinds[k].name, kinds[k].help,
		       NO_MLOCKALL && k == K_MLOCKALL ? " (not in this sanitizer build)" : "");
}

static void bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "rcuvfs-mmdiff: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see --help)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lopt[] = {{"seeds", required_argument, NULL, 's'},
					     {"steps", required_argument, NULL, 'n'},
					     {"switches", required_argument, NULL, 'o'},
					     {"ops", required_argument, NULL, 'O'},
					     {"dir", required_argument, NULL, 'D'},
					     {"print", required_argument, NULL, 'P'},
					     {"help", no_argument, NULL, 'h'},
					     {"version", no_argument, NULL, 'V'},
					     {NULL, 0, NULL, 0}};
	const char *sws[32], *ops = NULL, *print = NULL;
	int nsw = 0, steps = 200, c, status = 0;
	uint64_t lo = 1, hi = 1;
	long lines = 0;
	int reruns = 0;
	struct transcript *mts;
	struct rv_switches sw;
	struct step *st;
	char *end;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int k = 0; k < NKIND; k++)
		kind_on[k] = kinds[k].model_has;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:n:o:k:hV", lopt, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_seeds(optarg, &lo, &hi))
				bad("--seeds %s: not N or A-B", optarg);
			break;
		case 'n':
			steps = (int)strtol(optarg, &end, 10);
			if (*end || steps <= 0 || steps > 10000000)
				bad("--steps %s: not a positive number", optarg);
			break;
		case 'o':
			if (nsw == 32)
				bad("%s: at most 32 switch sets", "-o");
			if (parse_sw(optarg, &sw))
				exit(2);
			sws[nsw++] = optarg;
			break;
		case 'O':
			if (parse_ops(optarg))
				exit(2);
			ops = optarg;
			break;
		case 'D':
			host_dir = optarg;
			break;
		case 'P':
			if (strcmp(optarg, "host") && strcmp(optarg, "model"))
				bad("--print %s: host or model", optarg);
			print = optarg;
			break;
		case 'k':
			max_diffs = (int)strtol(optarg, &end, 10);
			if (*end || max_diffs <= 0)
				bad("-k %s: not a positive number", optarg);
			break;
		case 'h':
			help();
			return 0;
		case 'V':
			rv_cli_version("rcuvfs-mmdiff");
			return 0;
		case ':':
			bad("%s: needs an argument", argv[optind - 1]);
			break;
		default:
			bad("%s: unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad("%s: unexpected argument", argv[optind]);
	if (NO_MLOCKALL && kind_on[K_MLOCKALL]) {
		if (ops) {
			fprintf(stderr, "rcuvfs-mmdiff: --ops: mlockall is left out of a sanitizer "
					"build (it would lock the shadow memory)\n");
			return 2;
		}
		kind_on[K_MLOCKALL] = false;
	}
	/* a kind the model lacks can only be printed from the host */
	for (int k = 0; k < NKIND; k++)
		if (kind_on[k] && !kinds[k].model_has && !(print && !strcmp(print, "host"))) {
			fprintf(stderr,
				"rcuvfs-mmdiff: --ops: %s is not in the model yet (only --print "
				"host)\n",
				kinds[k].name);
			return 2;
		}
	if (!nsw)
		sws[nsw++] = "";
	/* fork steps leave orphans: reap them here */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1)) {
		fprintf(stderr, "rcuvfs-mmdiff: PR_SET_CHILD_SUBREAPER: %s\n", strerror(errno));
		return 2;
	}
	st = calloc((size_t)steps, sizeof(*st));
	if (!st)
		return 2;
	if (print) {
		struct transcript tr = {0};

		gen_script(lo, steps, st);
		if (!strcmp(print, "host"))
			c = host_transcript(st, steps, &tr);
		else
			c = parse_sw(sws[0], &sw) ? -1 : model_run(&sw, st, steps, &tr);
		for (int i = 0; i < tr.n; i++)
			printf("%s\n", tr.v[i]);
		tr_free(&tr);
		free(st);
		return c ? 2 : 0;
	}
	mts = calloc((size_t)nsw, sizeof(*mts));
	if (!mts)
		return 2;
	for (uint64_t seed = lo; seed <= hi; seed++) {
		struct transcript ref = {0};
		bool differ = false;

		gen_script(seed, steps, st);
		/* the host run first: no fork while a model instance exists */
		if (host_transcript(st, steps, &ref)) {
			fprintf(stderr, "rcuvfs-mmdiff: seed %llu: the host run failed\n",
				(unsigned long long)seed);
			tr_free(&ref);
			free(st);
			free(mts);
			return 2;
		}
		for (int i = 0; i < nsw; i++) {
			parse_sw(sws[i], &sw);
			if (model_run(&sw, st, steps, &mts[i])) {
				fprintf(stderr, "rcuvfs-mmdiff: seed %llu: the model run failed\n",
					(unsigned long long)seed);
				free(st);
				return 2;
			}
			differ |= first_diff(&ref, &mts[i]) >= 0;
		}
		if (differ) {
			/* the model instances are gone: the host may fork again */
			struct transcript again = {0};
			int d;

			if (host_transcript(st, steps, &again)) {
				fprintf(stderr, "rcuvfs-mmdiff: seed %llu: the host rerun failed\n",
					(unsigned long long)seed);
				free(st);
				return 2;
			}
			d = first_diff(&ref, &again);
			if (d >= 0) {
				printf("note: seed %llu: two host runs differ at step %d; the "
				       "second is "
				       "the reference\n  first  %s\n  second %s\n",
				       (unsigned long long)seed, d, d < ref.n ? ref.v[d] : "(none)",
				       d < again.n ? again.v[d] : "(none)");
				tr_free(&ref);
				ref = again;
				reruns++;
			} else {
				tr_free(&again);
			}
		}
		for (int i = 0; i < nsw; i++) {
			if (compare(seed, steps, sws[i], ops, &ref, &mts[i]))
				status = 1;
			lines += ref.n;
			tr_free(&mts[i]);
		}
		tr_free(&ref);
	}
	free(st);
	free(mts);
	printf("rcuvfs-mmdiff: seeds %llu-%llu x %d steps x %d switch sets: %ld lines, %d host "
	       "reruns that changed the host's transcript, %s\n",
	       (unsigned long long)lo, (unsigned long long)hi, steps, nsw, lines, reruns,
	       status ? "DIFFERENCES" : "identical");
	return status;
}
