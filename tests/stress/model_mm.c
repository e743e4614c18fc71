// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/stress/model_mm.c - model implementations of the mm workloads that
 * need only anonymous memory: page_fault1 and fork-vmas.  (page_fault2/3
 * need file mappings, fork-race and numa-race are the races of the mm races
 * issue; they are wired when those land.)
 *
 * The parent's model task gets an address space in setup (exec_mm), before
 * the tasks are created: threads then share it (CLONE_VM), processes get a
 * dup_mmap copy.  Everything runs through the model's own locks (mmap_lock,
 * per-VMA locks, PTE locks); the tool adds none.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "mm/mm.h"
#include "stress.h"

#define PF1_PAGES  64 /* pages mapped, touched and unmapped per op */
#define FORK_NVMAS 64 /* VMAs of the process that fork-vmas forks */

static int mm_setup(struct stress_run *run)
{
	int r;

	if (current->mm)
		return 0;
	r = exec_mm(current);
	if (r)
		return stress_setup_fail(run, "exec_mm", -r);
	return 0;
}

static int mm_verify(struct stress_run *run, uint64_t total_ops)
{
	int r = mm_validate(current->mm);

	if (r) {
		snprintf(run->verify_msg, sizeof(run->verify_msg),
			 "mm_validate of the parent's mm: %s", strerror(-r));
		return 0;
	}
	return 1;
}

/* ---- page_fault1: mmap anonymous, write every page, munmap ---------- */

static int pf1_op(struct stress_task *t)
{
	struct mm_struct *mm = current->mm;
	unsigned long len = PF1_PAGES * PAGE_SIZE;
	long addr =
	    vm_mmap(mm, 0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, NULL, 0);
	uint64_t stamp = ((uint64_t)t->id << 40) | t->iter;
	int r;

	if (addr < 0)
		return stress_fail(t, "vm_mmap(MAP_ANONYMOUS)", (int)-addr);
	for (unsigned long i = 0; i < PF1_PAGES; i++) {
		r = rv_mm_write(addr + i * PAGE_SIZE, &stamp, sizeof(stamp));
		if (r) {
			vm_munmap(mm, addr, len);
			return stress_fail(t, "rv_mm_write (write fault)", -r);
		}
	}
	if (t->run->opt->verify) {
		for (unsigned long i = 0; i < PF1_PAGES; i++) {
			uint64_t v = 0;

			r = rv_mm_read(addr + i * PAGE_SIZE, &v, sizeof(v));
			if (r) {
				vm_munmap(mm, addr, len);
				return stress_fail(t, "rv_mm_read", -r);
			}
			if (v != stamp) {
				vm_munmap(mm, addr, len);
				return stress_vfail(
				    t, "page %lu of a private mapping reads %llx, wrote %llx", i,
				    (unsigned long long)v, (unsigned long long)stamp);
			}
		}
	}
	r = vm_munmap(mm, addr, len);
	if (r)
		return stress_fail(t, "vm_munmap", -r);
	return 0;
}

const struct stress_impl stress_model_page_fault1 = {
    .setup = mm_setup,
    .op = pf1_op,
    .verify = mm_verify,
};

/* ---- fork-vmas: fork (dup_mmap) a process with FORK_NVMAS VMAs ------ */

static int forkv_setup(struct stress_run *run)
{
	struct mm_struct *mm;

	if (mm_setup(run))
		return -1;
	mm = current->mm;
	for (int i = 0; i < FORK_NVMAS; i++) {
		/* alternate protections so that neighbours do not merge */
		int prot = i & 1 ? PROT_READ : PROT_READ | PROT_WRITE;
		long addr = vm_mmap(mm, 0, PAGE_SIZE, prot, MAP_PRIVATE | MAP_ANONYMOUS, NULL, 0);
		uint64_t v = i;

		if (addr < 0)
			return stress_setup_fail(run, "vm_mmap(MAP_ANONYMOUS)", (int)-addr);
		if ((prot & PROT_WRITE) && rv_mm_write(addr, &v, sizeof(v)))
			return stress_setup_fail(run, "rv_mm_write", EFAULT);
	}
	return 0;
}

static int forkv_op(struct stress_task *t)
{
	struct task_struct *child = task_fork(current);

	if (!child)
		return stress_fail(t, "task_fork", errno ? errno : ENOMEM);
	if (t->run->opt->verify && child->mm &&
	    mm_map_count(child->mm) != mm_map_count(current->mm)) {
		int c = mm_map_count(child->mm), p = mm_map_count(current->mm);

		task_exit(child);
		return stress_vfail(t, "forked mm has %d VMAs, parent %d", c, p);
	}
	task_exit(child);
	return 0;
}

const struct stress_impl stress_model_fork_vmas = {
    .setup = forkv_setup,
    .op = forkv_op,
    .verify = mm_verify,
};
