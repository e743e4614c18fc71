// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_mm_shmem.c - shared anonymous mappings are shmem files
 * (mm/shmem.c, vfs/shmem.c): each MAP_SHARED | MAP_ANONYMOUS mapping puts
 * one inode on shm_mnt's inode list (under its s_inode_list_lock) that
 * leaves it at the last unmap or exit; the data is shared across fork both
 * ways; /dev/zero mapped MAP_SHARED from an O_RDWR open is the same, any
 * other mapping of it private (COW across fork); a failed inode or file
 * allocation gives -ENOMEM and leaves nothing behind; the lock's waits are
 * counted; new_inode_prefetch=1 prefetches the lock once per new inode.  The /dev/zero outcomes are
 * checked against the host kernel: the same table of mappings runs on the host (real mmap, fork and
 * /proc/self/maps in a child process) and on the model, and must agree.
 */
#include "test_mm_util.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#define BASE   0x20000000UL
#define RW     (PROT_READ | PROT_WRITE)
#define SHANON (MAP_SHARED | MAP_ANONYMOUS)

static struct inode *vma_inode(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;
	struct inode *inode = NULL;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma && vma->vm_file)
		inode = vma->vm_file->f_inode;
	mmap_read_unlock(mm);
	return inode;
}

static unsigned long vma_flags_at(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;
	unsigned long f = 0;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma)
		f = vma->vm_flags;
	mmap_read_unlock(mm);
	return f;
}

static int read_byte(struct mm_struct *mm, unsigned long addr, unsigned char *c)
{
	return mm_access(mm, addr, c, 1, false);
}

static int write_byte(struct mm_struct *mm, unsigned long addr, unsigned char c)
{
	return mm_access(mm, addr, &c, 1, true);
}

/* One inode per mapping, on shm_mnt's list while mapped, off it after munmap. */
static void test_shared_anon_inode_lifetime(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	uint64_t locks = mmt_stat("shm_inode_list_locks"), setups = mmt_stat("shmem_zero_setups");
	uint64_t mount_locks = mmt_stat("inode_sb_list_locks");
	struct inode *a, *b;
	uint64_t ino_a, ino_b;

	CU_ASSERT(shmem_inodes_live() == 0);
	CU_ASSERT(vm_mmap(mm, BASE, 2 * PG, RW, SHANON | MAP_FIXED, NULL, 7) == (long)BASE);
	CU_ASSERT(vm_mmap(mm, BASE + 2 * PG, PG, RW, SHANON | MAP_FIXED, NULL, 0) ==
		  (long)(BASE + 2 * PG));
	a = vma_inode(mm, BASE);
	b = vma_inode(mm, BASE + 2 * PG);
	CU_ASSERT_FATAL(a != NULL && b != NULL);
	CU_ASSERT(a != b); /* a new object each: the neighbours do not merge */
	CU_ASSERT(mm_map_count(mm) == 2);
	CU_ASSERT(a->i_sb == shm_mnt_sb() && a->i_sb != rv_sb);
	CU_ASSERT(S_ISREG(a->i_mode) && a->i_nlink == 0); /* unlinked from birth */
	CU_ASSERT(a->i_size == (int64_t)(2 * PG) && b->i_size == (int64_t)PG);
	ino_a = a->i_ino;
	ino_b = b->i_ino;
	CU_ASSERT(shmem_inode_listed(ino_a) && shmem_inode_listed(ino_b));
	CU_ASSERT(shmem_inodes_live() == 2);
	CU_ASSERT(mmt_stat("shmem_zero_setups") == setups + 2);
	/* one inode_sb_list_add each, on shm_mnt's lock, not the mount's */
	CU_ASSERT(mmt_stat("shm_inode_list_locks") == locks + 2);
	CU_ASSERT(mmt_stat("inode_sb_list_locks") == mount_locks);
	/* pgoff is ignored (0): the whole mapping is inside the file */
	mmt_fill(BASE, 2 * PG, 40);
	CU_ASSERT(mmt_check(BASE, 2 * PG, 40));
	CU_ASSERT(mm_check(mm) == 0);
	/* a partial munmap keeps the file: the other half still maps it */
	CU_ASSERT(vm_munmap(mm, BASE, PG) == 0);
	CU_ASSERT(shmem_inode_listed(ino_a));
	CU_ASSERT(mmt_check(BASE + PG, PG, 41));
	CU_ASSERT(vm_munmap(mm, BASE + PG, 2 * PG) == 0);
	/* the last unmap: the final fput evicts, inode_sb_list_del */
	CU_ASSERT(!shmem_inode_listed(ino_a) && !shmem_inode_listed(ino_b));
	CU_ASSERT(shmem_inodes_live() == 0);
	CU_ASSERT(mmt_stat("shm_inode_list_locks") == locks + 4);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/* evict_sb_list_del callback: record whether the mm's mmap_lock is held */
struct evict_probe {
	struct mm_struct *mm;
	int hits, under_mmap_lock;
};

static void probe_evict(void *arg)
{
	struct evict_probe *p = arg;

	p->hits++;
	if (rwsem_is_locked(&p->mm->mmap_lock))
		p->under_mmap_lock++;
}

/*
 * The final fput of munmap (and of exit) runs as the kernel's does, from
 * task_work after mmap_lock is dropped: the inode leaves s_inodes outside
 * mmap_lock, yet before vm_munmap returns.
 */
static void test_evict_outside_mmap_lock(void)
{
	struct task_struct *t = mmt_new_proc();
	struct evict_probe p = {t->mm, 0, 0};
	uint64_t queued = mmt_stat("fput_task_works");
	long a;

	CU_ASSERT((a = vm_mmap(t->mm, 0, PG, RW, SHANON, NULL, 0)) > 0);
	CU_ASSERT(rv_inject_set_callback("evict_sb_list_del", probe_evict, &p, 0) == 0);
	CU_ASSERT(vm_munmap(t->mm, (unsigned long)a, PG) == 0);
	CU_ASSERT(p.hits == 1 && p.under_mmap_lock == 0);
	CU_ASSERT(shmem_inodes_live() == 0);
	CU_ASSERT(mmt_stat("fput_task_works") == queued + 1);
	/* exit: exit_mmap's fputs run after its mmap_lock section too */
	CU_ASSERT(vm_mmap(t->mm, 0, PG, RW, SHANON, NULL, 0) > 0);
	mmt_exit(t);
	CU_ASSERT(p.hits == 2 && p.under_mmap_lock == 0);
	rv_inject_clear_all();
	CU_ASSERT(shmem_inodes_live() == 0);
	CU_ASSERT(mmt_all_freed());
}

/* A MAP_SHARED | MAP_ANONYMOUS page written by the child is the parent's, and back. */
static void test_shared_anon_fork(void)
{
	struct task_struct *p = mmt_new_proc(), *c;
	struct mm_struct *pm = p->mm;
	unsigned char x = 0;
	uint64_t ino;

	CU_ASSERT(vm_mmap(pm, BASE, 2 * PG, RW, SHANON | MAP_FIXED, NULL, 0) == (long)BASE);
	CU_ASSERT(write_byte(pm, BASE, 1) == 0);
	ino = vma_inode(pm, BASE)->i_ino;
	c = task_fork(p);
	CU_ASSERT_FATAL(c != NULL);
	/* the child maps the same file (dup_mmap takes a reference) */
	CU_ASSERT(vma_inode(c->mm, BASE) == vma_inode(pm, BASE));
	CU_ASSERT(shmem_inodes_live() == 1);
	CU_ASSERT(read_byte(c->mm, BASE, &x) == 0 && x == 1);
	/* child writes: the parent sees it (a page it had, and a new one) */
	CU_ASSERT(write_byte(c->mm, BASE, 2) == 0);
	CU_ASSERT(write_byte(c->mm, BASE + PG, 3) == 0);
	CU_ASSERT(read_byte(pm, BASE, &x) == 0 && x == 2);
	CU_ASSERT(read_byte(pm, BASE + PG, &x) == 0 && x == 3);
	/* parent writes: the child sees it */
	CU_ASSERT(write_byte(pm, BASE + PG, 4) == 0);
	CU_ASSERT(read_byte(c->mm, BASE + PG, &x) == 0 && x == 4);
	CU_ASSERT(mm_check(pm) == 0 && mm_check(c->mm) == 0);
	/* the parent unmaps: the child's mapping keeps the inode listed */
	CU_ASSERT(vm_munmap(pm, BASE, 2 * PG) == 0);
	CU_ASSERT(shmem_inode_listed(ino));
	CU_ASSERT(read_byte(c->mm, BASE, &x) == 0 && x == 2);
	/* the child exits without unmapping: exit_mmap's fput evicts it */
	mmt_exit(c);
	CU_ASSERT(!shmem_inode_listed(ino));
	CU_ASSERT(shmem_inodes_live() == 0);
	mmt_exit(p);
	CU_ASSERT(mmt_all_freed());
}

/* Process exit of the only mapper takes the inode off the list. */
static void test_shared_anon_exit(void)
{
	struct task_struct *t = mmt_new_proc();
	uint64_t ino;

	CU_ASSERT(vm_mmap(t->mm, 0, 3 * PG, RW, SHANON, NULL, 0) > 0);
	CU_ASSERT(shmem_inodes_live() == 1);
	ino = vma_inode(t->mm, mm_vma_at(t->mm, 0)->vm_start)->i_ino;
	CU_ASSERT(shmem_inode_listed(ino));
	mmt_exit(t);
	CU_ASSERT(!shmem_inode_listed(ino));
	CU_ASSERT(shmem_inodes_live() == 0);
	CU_ASSERT(mmt_all_freed());
}

/* MAP_PRIVATE of /dev/zero (O_RDWR): anonymous, copy-on-write across fork, no inode. */
static void test_dev_zero_private_cow(void)
{
	struct task_struct *p = mmt_new_proc(), *c;
	struct mm_struct *pm = p->mm;
	uint64_t setups = mmt_stat("shmem_zero_setups");
	struct file *z;
	unsigned char x = 9;

	CU_ASSERT_FATAL(dev_zero_open(O_RDWR, &z) == 0);
	CU_ASSERT(vm_mmap(pm, BASE, 2 * PG, RW, MAP_PRIVATE | MAP_FIXED, z, 3) == (long)BASE);
	fput(z); /* vma_set_anonymous: the VMA keeps its reference */
	CU_ASSERT(vma_inode(pm, BASE) && S_ISCHR(vma_inode(pm, BASE)->i_mode));
	CU_ASSERT(shmem_inodes_live() == 0 && mmt_stat("shmem_zero_setups") == setups);
	CU_ASSERT(read_byte(pm, BASE, &x) == 0 && x == 0); /* zero-filled */
	CU_ASSERT(write_byte(pm, BASE, 5) == 0);
	c = task_fork(p);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT(read_byte(c->mm, BASE, &x) == 0 && x == 5); /* inherited */
	CU_ASSERT(write_byte(c->mm, BASE, 6) == 0);
	CU_ASSERT(read_byte(pm, BASE, &x) == 0 && x == 5); /* COW: the parent keeps its page */
	CU_ASSERT(write_byte(pm, BASE + PG, 7) == 0);
	CU_ASSERT(read_byte(c->mm, BASE + PG, &x) == 0 && x == 0);
	CU_ASSERT(read_byte(c->mm, BASE, &x) == 0 && x == 6);
	mmt_exit(c);
	mmt_exit(p);
	CU_ASSERT(mmt_all_freed());
}

/*
 * A private /dev/zero mapping keeps vm_file and vm_pgoff (mmap_zero's
 * vma_set_anonymous clears vm_ops only), so it lays out as a file mapping:
 * it merges with a mapping of the same open /dev/zero at the adjacent
 * offset, not with an anonymous neighbour, not across an offset gap, not
 * with another open of /dev/zero.  The host kernel runs the same script.
 *   z1 page 0 at +0, z1 page 1 at +1, anon at +2;
 *   z1 page 7 at +4, z1 page 9 at +5, z2 page 10 at +6
 * out: VMAs in [+0, +2), [+1, +3) and [+4, +7), the offset (pages) of the
 * VMA at +4, and what a write then a read at +1 leaves (anonymous: 5).
 */
static int zmerge_host(long *out, int n)
{
	unsigned long w = mmt_host_window(8);
	int z1 = open("/dev/zero", O_RDWR), z2 = open("/dev/zero", O_RDWR);
	char line[512];
	FILE *maps;

	if (!w || z1 < 0 || z2 < 0 || n != 5)
		return 1;
	mmap((void *)w, PG, RW, MAP_PRIVATE | MAP_FIXED, z1, 0);
	mmap((void *)(w + PG), PG, RW, MAP_PRIVATE | MAP_FIXED, z1, PG);
	mmap((void *)(w + 2 * PG), PG, RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	mmap((void *)(w + 4 * PG), PG, RW, MAP_PRIVATE | MAP_FIXED, z1, 7 * PG);
	mmap((void *)(w + 5 * PG), PG, RW, MAP_PRIVATE | MAP_FIXED, z1, 9 * PG);
	mmap((void *)(w + 6 * PG), PG, RW, MAP_PRIVATE | MAP_FIXED, z2, 10 * PG);
	out[0] = mmt_host_count_vmas(w, w + 2 * PG);
	out[1] = mmt_host_count_vmas(w + PG, w + 3 * PG);
	out[2] = mmt_host_count_vmas(w + 4 * PG, w + 7 * PG);
	out[3] = -1;
	maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return 1;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long st, off;

		if (sscanf(line, "%lx-%*x %*s %lx", &st, &off) == 2 && st == w + 4 * PG)
			out[3] = (long)(off / PG);
	}
	fclose(maps);
	*(volatile char *)(w + PG) = 5;
	out[4] = *(volatile char *)(w + PG);
	return 0;
}

static void test_dev_zero_private_merge(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	struct file *z1, *z2;
	struct vm_area_struct *v;
	unsigned char x = 0;
	long m[5], h[5];

	CU_ASSERT_FATAL(dev_zero_open(O_RDWR, &z1) == 0);
	CU_ASSERT_FATAL(dev_zero_open(O_RDWR, &z2) == 0);
	CU_ASSERT(vm_mmap(mm, BASE, PG, RW, MAP_PRIVATE | MAP_FIXED, z1, 0) == (long)BASE);
	CU_ASSERT(vm_mmap(mm, BASE + PG, PG, RW, MAP_PRIVATE | MAP_FIXED, z1, 1) ==
		  (long)(BASE + PG));
	CU_ASSERT(vm_mmap(mm, BASE + 2 * PG, PG, RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL,
			  0) == (long)(BASE + 2 * PG));
	CU_ASSERT(vm_mmap(mm, BASE + 4 * PG, PG, RW, MAP_PRIVATE | MAP_FIXED, z1, 7) ==
		  (long)(BASE + 4 * PG));
	CU_ASSERT(vm_mmap(mm, BASE + 5 * PG, PG, RW, MAP_PRIVATE | MAP_FIXED, z1, 9) ==
		  (long)(BASE + 5 * PG));
	CU_ASSERT(vm_mmap(mm, BASE + 6 * PG, PG, RW, MAP_PRIVATE | MAP_FIXED, z2, 10) ==
		  (long)(BASE + 6 * PG));
	fput(z1);
	fput(z2);
	m[0] = mmt_count_vmas(mm, BASE, BASE + 2 * PG);
	m[1] = mmt_count_vmas(mm, BASE + PG, BASE + 3 * PG);
	m[2] = mmt_count_vmas(mm, BASE + 4 * PG, BASE + 7 * PG);
	mmap_read_lock(mm);
	v = vma_lookup(mm, BASE + 4 * PG);
	m[3] = v ? (long)v->vm_pgoff : -1;
	mmap_read_unlock(mm);
	CU_ASSERT(write_byte(mm, BASE + PG, 5) == 0);
	CU_ASSERT(read_byte(mm, BASE + PG, &x) == 0);
	m[4] = x;
	CU_ASSERT(m[0] == 1 && m[1] == 2 && m[2] == 3 && m[3] == 7 && m[4] == 5);
	if (mmt_host_run(zmerge_host, h, 5) == 0) {
		if (memcmp(h, m, sizeof(h)))
			printf("\n  host %ld %ld %ld %ld %ld, model %ld %ld %ld %ld %ld\n", h[0],
			       h[1], h[2], h[3], h[4], m[0], m[1], m[2], m[3], m[4]);
		CU_ASSERT(memcmp(h, m, sizeof(h)) == 0);
	} else {
		printf("\n  host oracle unavailable: model only\n");
	}
	CU_ASSERT(shmem_inodes_live() == 0);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

/* ---- the /dev/zero table, on the host and on the model --------------- */

struct zcase {
	const char *name;
	int oflag; /* -1: MAP_ANONYMOUS (no file) */
	int mflag;
	int prot;
	unsigned long pgoff;
};

/* What a mapping did; identical on the host and the model. */
struct zout {
	int map_err;	 /* errno of mmap (0: mapped) */
	int shmem;	 /* a new inode backs it (host: not /dev/zero's inode) */
	int mayshare;	 /* 's' in /proc/self/maps (VM_MAYSHARE) */
	int read_sigbus; /* reading its first byte is SIGBUS (model: -EIO) */
	int child_seen;	 /* PROT_WRITE: a forked child's write is seen (else -1) */
	int mprot_err;	 /* errno of mprotect(PROT_READ | PROT_WRITE) */
};

static const struct zcase zcases[] = {
    {"O_RDWR MAP_SHARED rw", O_RDWR, MAP_SHARED, RW, 0},
    {"O_RDWR MAP_SHARED r, pgoff 5", O_RDWR, MAP_SHARED, PROT_READ, 5},
    {"O_RDONLY MAP_SHARED r", O_RDONLY, MAP_SHARED, PROT_READ, 0},
    {"O_RDONLY MAP_SHARED rw", O_RDONLY, MAP_SHARED, RW, 0},
    {"O_RDWR MAP_PRIVATE rw", O_RDWR, MAP_PRIVATE, RW, 0},
    {"O_RDONLY MAP_PRIVATE rw", O_RDONLY, MAP_PRIVATE, RW, 2},
    {"O_WRONLY MAP_PRIVATE r", O_WRONLY, MAP_PRIVATE, PROT_READ, 0},
    {"O_WRONLY MAP_SHARED rw", O_WRONLY, MAP_SHARED, RW, 0},
    {"MAP_SHARED|MAP_ANONYMOUS rw", -1, MAP_SHARED | MAP_ANONYMOUS, RW, 0},
    {"MAP_PRIVATE|MAP_ANONYMOUS rw", -1, MAP_PRIVATE | MAP_ANONYMOUS, RW, 0},
};
#define NZCASES ((int)(sizeof(zcases) / sizeof(zcases[0])))

static sigjmp_buf host_jb;
static void host_sigbus(int sig)
{
	siglongjmp(host_jb, sig);
}

/* In a child process of the test: run case z on the host, write the outcome to fd. */
static void host_case(const struct zcase *z, int out)
{
	struct zout o = {0, 0, 0, 0, -1, 0};
	struct stat zst;
	char line[512];
	volatile char *p;
	FILE *maps;
	int fd = -1;

	if (stat("/dev/zero", &zst))
		_exit(3);
	if (z->oflag >= 0 && (fd = open("/dev/zero", z->oflag)) < 0)
		_exit(3);
	p = mmap(NULL, PG, z->prot, z->mflag, fd, (off_t)(z->pgoff * PG));
	if (p == MAP_FAILED) {
		o.map_err = errno;
		goto done;
	}
	maps = fopen("/proc/self/maps", "r");
	if (!maps)
		_exit(3);
	while (fgets(line, sizeof(line), maps)) {
		unsigned long start, ino;
		unsigned int maj, mnr;
		char perms[8];

		if (sscanf(line, "%lx-%*x %7s %*x %x:%x %lu", &start, perms, &maj, &mnr, &ino) !=
			5 ||
		    start != (unsigned long)p)
			continue;
		o.mayshare = perms[3] == 's';
		/* a shmem file: an inode of shm_mnt, not the device's */
		o.shmem = ino != 0 && !(ino == zst.st_ino && makedev(maj, mnr) == zst.st_dev);
	}
	fclose(maps);
	signal(SIGBUS, host_sigbus);
	if (sigsetjmp(host_jb, 1) == 0)
		(void)p[0];
	else
		o.read_sigbus = 1;
	if (!o.read_sigbus && (z->prot & PROT_WRITE)) {
		pid_t c;

		p[0] = 1;
		c = fork();
		if (c == 0) {
			p[0] = 7;
			_exit(0);
		}
		if (c < 0 || waitpid(c, NULL, 0) != c)
			_exit(3);
		o.child_seen = p[0] == 7;
	}
	o.mprot_err = mprotect((void *)p, PG, RW) ? errno : 0;
done:
	if (write(out, &o, sizeof(o)) != (ssize_t)sizeof(o))
		_exit(3);
	_exit(0);
}

static int host_run(const struct zcase *z, struct zout *o)
{
	int pfd[2], st;
	pid_t pid;
	ssize_t n;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		host_case(z, pfd[1]);
	}
	close(pfd[1]);
	n = read(pfd[0], o, sizeof(*o));
	close(pfd[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
	    n != (ssize_t)sizeof(*o))
		return -1;
	return 0;
}

static void model_run(const struct zcase *z, struct zout *o)
{
	struct task_struct *t = mmt_new_proc(), *c;
	struct mm_struct *mm = t->mm;
	struct file *f = NULL;
	unsigned char x;
	long addr;
	int r;

	*o = (struct zout){0, 0, 0, 0, -1, 0};
	if (z->oflag >= 0)
		CU_ASSERT_FATAL(dev_zero_open((unsigned int)z->oflag, &f) == 0);
	addr = vm_mmap(mm, 0, PG, z->prot, z->mflag, f, z->pgoff);
	if (f)
		fput(f);
	if (addr < 0) {
		o->map_err = (int)-addr;
		goto out;
	}
	{
		struct inode *inode = vma_inode(mm, addr);

		o->shmem = inode && inode->i_sb == shm_mnt_sb();
	}
	o->mayshare = (vma_flags_at(mm, addr) & VM_MAYSHARE) != 0;
	r = read_byte(mm, addr, &x);
	CU_ASSERT(r == 0 || r == -EIO);
	o->read_sigbus = r == -EIO;
	if (!o->read_sigbus && (z->prot & PROT_WRITE)) {
		CU_ASSERT(write_byte(mm, addr, 1) == 0);
		c = task_fork(t);
		CU_ASSERT_FATAL(c != NULL);
		CU_ASSERT(write_byte(c->mm, addr, 7) == 0);
		mmt_exit(c);
		CU_ASSERT(read_byte(mm, addr, &x) == 0);
		o->child_seen = x == 7;
	}
	o->mprot_err = -vm_mprotect(mm, addr, PG, RW);
out:
	mmt_exit(t);
}

static void test_dev_zero_vs_host(void)
{
	int host_ok = 0;

	for (int i = 0; i < NZCASES; i++) {
		const struct zcase *z = &zcases[i];
		struct zout h, m;

		model_run(z, &m);
		if (host_run(z, &h)) {
			printf("\n  host oracle unavailable for %s: model only\n", z->name);
			continue;
		}
		host_ok++;
		if (memcmp(&h, &m, sizeof(h)))
			printf(
			    "\n  %s: host map_err %d shmem %d share %d sigbus %d seen %d mprot %d;"
			    " model %d %d %d %d %d %d\n",
			    z->name, h.map_err, h.shmem, h.mayshare, h.read_sigbus, h.child_seen,
			    h.mprot_err, m.map_err, m.shmem, m.mayshare, m.read_sigbus,
			    m.child_seen, m.mprot_err);
		CU_ASSERT(h.map_err == m.map_err);
		CU_ASSERT(h.shmem == m.shmem);
		CU_ASSERT(h.mayshare == m.mayshare);
		CU_ASSERT(h.read_sigbus == m.read_sigbus);
		CU_ASSERT(h.child_seen == m.child_seen);
		CU_ASSERT(h.mprot_err == m.mprot_err);
	}
	/* the model's own answers, whatever the host: the seed's case is shmem */
	{
		struct zout m;

		model_run(&zcases[0], &m);
		CU_ASSERT(m.shmem == 1 && m.child_seen == 1);
		model_run(&zcases[4], &m);
		CU_ASSERT(m.shmem == 0 && m.child_seen == 0);
	}
	CU_ASSERT(shmem_inodes_live() == 0);
	CU_ASSERT(mmt_all_freed());
	if (!host_ok)
		printf("\n  no host /dev/zero: compared nothing against the kernel\n");
}

/* ---- the lock's contention counters ------------------------------------ */

static void *map_shared_anon(void *arg)
{
	long *addr = arg;

	*addr = vm_mmap(current->mm, 0, PG, RW, SHANON, NULL, 0);
	return NULL;
}

/*
 * With shm_mnt's s_inode_list_lock held by this thread, a mapping in
 * another task must wait for it: counted as contended, with the PAUSE
 * rounds (or yields) it spun, and it finishes once the lock is dropped.
 */
static void test_list_lock_contention_counted(void)
{
	struct task_struct *t = mmt_new_proc(), *w = task_create_process("waiter");
	struct super_block *sb = shm_mnt_sb();
	uint64_t cont = mmt_stat("shm_inode_list_contended");
	uint64_t spins = mmt_stat("shm_inode_list_spins") + mmt_stat("shm_inode_list_yields");
	struct mmt_thread th;
	long addr = 0;
	uint64_t v = 0;

	CU_ASSERT_FATAL(w != NULL);
	CU_ASSERT_FATAL(exec_mm(w) == 0);
	spin_lock(&sb->s_inode_list_lock);
	mmt_thread_start(&th, w, map_shared_anon, &addr);
	/* bounded wait for the waiter to be counted as contended (a state, not a time) */
	for (uint64_t t0 = rv_now_ns(); rv_now_ns() - t0 < 20000000000ull;) {
		CU_ASSERT_FATAL(rv_stat_read("shm_inode_list_contended", &v) == 0);
		if (v > cont || __atomic_load_n(&th.done, __ATOMIC_ACQUIRE))
			break;
		sched_yield();
	}
	spin_unlock(&sb->s_inode_list_lock);
	mmt_thread_join(&th);
	CU_ASSERT(v == cont + 1);
	CU_ASSERT(addr > 0);
	CU_ASSERT(mmt_stat("shm_inode_list_contended") == cont + 1);
	CU_ASSERT(mmt_stat("shm_inode_list_spins") + mmt_stat("shm_inode_list_yields") > spins);
	mmt_exit(w);
	mmt_exit(t);
	CU_ASSERT(shmem_inodes_live() == 0);
	CU_ASSERT(mmt_all_freed());
}

/* ---- fail_alloc: the inode, or the file, cannot be allocated ---------- */

static void check_enomem_no_state(void)
{
	struct task_struct *t = mmt_new_proc();
	struct mm_struct *mm = t->mm;
	uint64_t setups = mmt_stat("shmem_zero_setups"), files = mmt_stat("shmem_files");

	CU_ASSERT(vm_mmap(mm, BASE, PG, RW, SHANON | MAP_FIXED, NULL, 0) == -ENOMEM);
	CU_ASSERT(rv_fail_alloc_injected() >= 1);
	CU_ASSERT(mm_map_count(mm) == 0);
	CU_ASSERT(shmem_inodes_live() == 0);
	CU_ASSERT(mmt_stat("shmem_zero_setups") == setups && mmt_stat("shmem_files") == files);
	/* every add had its del: the list lock was taken an even number of times */
	CU_ASSERT(mmt_stat("shm_inode_list_locks") % 2 == 0);
	/* MAP_FIXED replaced nothing, and anonymous private memory still works */
	CU_ASSERT(vm_mmap(mm, BASE, PG, RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0) ==
		  (long)BASE);
	mmt_fill(BASE, PG, 3);
	CU_ASSERT(mmt_check(BASE, PG, 3));
	CU_ASSERT(mm_map_count(mm) == 1);
	mmt_exit(t);
	CU_ASSERT(mmt_all_freed());
}

static void test_fail_inode(void)
{
	uint64_t locks = mmt_stat("shm_inode_list_locks");

	check_enomem_no_state();
	CU_ASSERT(mmt_stat("shm_inode_list_locks") == locks); /* no inode: no list add */
}

static void test_fail_file(void)
{
	uint64_t locks = mmt_stat("shm_inode_list_locks");

	check_enomem_no_state();
	/* the inode was made and listed, then evicted when the file failed */
	CU_ASSERT(mmt_stat("shm_inode_list_locks") == locks + 2);
}

/*
 * new_inode_prefetch: new_inode prefetches shm_mnt's list lock before it
 * allocates (before 6.5) or not (6.5+); the mappings behave the same.
 */
static void check_prefetch(bool on)
{
	struct task_struct *p = mmt_new_proc(), *c;
	uint64_t pf = mmt_stat("new_inode_prefetches"), allocs = mmt_stat("inode_allocs");
	unsigned char x = 0;

	CU_ASSERT_EQUAL(rv_sw.new_inode_prefetch, on);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT(vm_mmap(p->mm, BASE + i * PG, PG, RW, SHANON | MAP_FIXED, NULL, 0) ==
			  (long)(BASE + i * PG));
		CU_ASSERT(write_byte(p->mm, BASE + i * PG, (unsigned char)(i + 1)) == 0);
	}
	c = task_fork(p);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT(write_byte(c->mm, BASE + 3 * PG, 9) == 0);
	CU_ASSERT(read_byte(p->mm, BASE + 3 * PG, &x) == 0 && x == 9);
	CU_ASSERT(mmt_stat("inode_allocs") == allocs + 4);
	CU_ASSERT(mmt_stat("new_inode_prefetches") == pf + (on ? 4 : 0));
	mmt_exit(c);
	mmt_exit(p);
	CU_ASSERT(shmem_inodes_live() == 0);
	CU_ASSERT(mmt_all_freed());
}

static void test_prefetch_off(void)
{
	check_prefetch(false);
}

static void test_prefetch_on(void)
{
	check_prefetch(true);
}

static int init_prefetch(void)
{
	static const char *const s[] = {"new_inode_prefetch=1", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

static int init_fail_inode(void)
{
	static const char *const s[] = {"fail_alloc=every:1:inode", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

static int init_fail_filp(void)
{
	static const char *const s[] = {"fail_alloc=every:1:filp", NULL};

	return rvtest_instance_with(s) ? -1 : 0;
}

RVTEST_SUITE(mm_shmem, rvtest_instance_init, rvtest_instance_cleanup,
	     RVTEST(test_shared_anon_inode_lifetime), RVTEST(test_shared_anon_fork),
	     RVTEST(test_shared_anon_exit), RVTEST(test_dev_zero_private_cow),
	     RVTEST(test_dev_zero_private_merge), RVTEST(test_dev_zero_vs_host),
	     RVTEST(test_list_lock_contention_counted), RVTEST(test_prefetch_off),
	     RVTEST(test_evict_outside_mmap_lock))
RVTEST_SUITE(mm_shmem_prefetch, init_prefetch, rvtest_instance_cleanup, RVTEST(test_prefetch_on),
	     RVTEST(test_shared_anon_fork), RVTEST(test_dev_zero_vs_host))
RVTEST_SUITE(mm_shmem_fail_inode, init_fail_inode, rvtest_instance_cleanup, RVTEST(test_fail_inode))
RVTEST_SUITE(mm_shmem_fail_filp, init_fail_filp, rvtest_instance_cleanup, RVTEST(test_fail_file))
