// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/stress/workloads.c - the workload table.
 *
 * Each row names a workload and its two implementations.  The --path one is
 * in wl_path.c.  The --model one is the weak symbol stress_model_<name>
 * (dashes as underscores): it is NULL until some file defines it, so the
 * subsystems wire their model workloads by adding tools/stress/model_*.c
 * (picked up by the CMake glob) without touching this table.  bkl-mix is
 * defined in wl_model.c.  Each row also says how an op counts: workloads
 * named after will-it-scale tests count as those do.  The table is
 * constant; no locking.
 */
#include <string.h>

#include "stress.h"
#include "mm/testing.h"

#define MODEL_IMPL(sym) extern const struct stress_impl sym __attribute__((weak))
MODEL_IMPL(stress_model_fstat1);
MODEL_IMPL(stress_model_fstat2);
MODEL_IMPL(stress_model_stat1);
MODEL_IMPL(stress_model_stat2);
MODEL_IMPL(stress_model_open1);
MODEL_IMPL(stress_model_open3);
MODEL_IMPL(stress_model_dup1);
MODEL_IMPL(stress_model_flock1);
MODEL_IMPL(stress_model_flock2);
MODEL_IMPL(stress_model_lock1);
MODEL_IMPL(stress_model_lock2);
MODEL_IMPL(stress_model_ofd2);
MODEL_IMPL(stress_model_lock_verify);
MODEL_IMPL(stress_model_bkl_mix);
MODEL_IMPL(stress_model_page_fault1);
MODEL_IMPL(stress_model_mmap_cycle);
MODEL_IMPL(stress_model_vma_reuse);
MODEL_IMPL(stress_model_exec1);
MODEL_IMPL(stress_model_page_fault2);
MODEL_IMPL(stress_model_page_fault3);
MODEL_IMPL(stress_model_fork_vmas);
MODEL_IMPL(stress_model_fork_race);
MODEL_IMPL(stress_model_numa_race);
MODEL_IMPL(stress_model_zero);

#define FD "fdtable/fdtable.h + vfs/vfs.h"
#define LK "locks/locks.h"
#define MM "mm/mm.h"

const struct stress_workload stress_workloads[] = {
    {"fstat1", "fstat() on the task's own file and descriptor", WL_VERIFIES, 0, &path_fstat1,
     &stress_model_fstat1, FD, 0, 1, "1 per call, as will-it-scale's fstat1"},
    {"fstat2", "fstat() on one shared file, each task its own descriptor", WL_VERIFIES, 0,
     &path_fstat2, &stress_model_fstat2, FD, 0, 1, "1 per call, as will-it-scale's fstat2"},
    {"stat1", "stat() by path of the task's own file", WL_VERIFIES, 0, &path_stat1,
     &stress_model_stat1, FD, 0, 1, "1 per call, as will-it-scale's stat1"},
    {"stat2", "stat() by path of one shared file", WL_VERIFIES, 0, &path_stat2, &stress_model_stat2,
     FD, 0, 1, "1 per call, as will-it-scale's stat2"},
    {"open1", "open()+close() of the task's own file", WL_VERIFIES, 0, &path_open1,
     &stress_model_open1, FD, 0, 1, "1 per open+close, as will-it-scale's open1"},
    {"open3", "open()+close() of one shared file", WL_VERIFIES, 0, &path_open3, &stress_model_open3,
     FD, 0, 1, "1 per open+close, as will-it-scale's open3"},
    {"dup1", "dup()+close() of a descriptor in the (threads: shared) fd table", WL_VERIFIES, 0,
     &path_dup1, &stress_model_dup1, FD, 0, 1, "1 per dup+close, as will-it-scale's dup1"},
    {"flock1", "flock(LOCK_EX)+flock(LOCK_UN) on the task's own file", 0, 0, &path_flock1,
     &stress_model_flock1, LK, 0, 2,
     "2 per lock+unlock pair (one per flock call), as will-it-scale's flock tests"},
    {"flock2",
     "flock(LOCK_EX)+flock(LOCK_UN) on one shared file, each task its own open file "
     "description (real contention, threads too); --verify checks exclusion",
     WL_VERIFIES, 0, &path_flock2, &stress_model_flock2, LK, 0, 2,
     "2 per lock+unlock pair (one per flock call), as will-it-scale's flock tests"},
    {"lock1", "fcntl(F_SETLKW) write lock + unlock of the task's own file", 0, 0, &path_lock1,
     &stress_model_lock1, LK, 0, 2,
     "2 per lock+unlock pair of byte 0 (one per fcntl call), as will-it-scale's lock1"},
    {"lock2",
     "fcntl(F_SETLKW) write lock + unlock of one shared file (threads share one POSIX "
     "owner, as in will-it-scale; --verify checks exclusion in processes mode)",
     WL_VERIFIES, 0, &path_lock2, &stress_model_lock2, LK, 0, 2,
     "2 per lock+unlock pair of byte 0 (one per fcntl call), as will-it-scale's lock2"},
    {"ofd2",
     "fcntl(F_OFD_SETLKW) write lock + unlock of one shared file, each task its own "
     "description; --verify checks exclusion",
     WL_VERIFIES, 0, &path_ofd2, &stress_model_ofd2, LK, 0, 2,
     "2 per lock+unlock pair of byte 0 (one per fcntl call), as lock2"},
    {"lock-verify",
     "lock, read-modify-write a counter stored in the locked file, unlock; flock and "
     "OFD in both modes, POSIX in processes mode; counters must equal the increments",
     WL_VERIFIES, 0, &path_lock_verify, &stress_model_lock_verify, LK, 0, 1,
     "1 per locked increment (each kind)"},
    {"bkl-mix",
     "AIM7-like: compute work_us, then cs_ns under lock_kernel(); jobs/s, idle, BKL "
     "sleeps and hand-offs per acquisition (--param work_us=,cs_ns=)",
     WL_VERIFIES | WL_FIXED_PARAMS, 256, NULL, &stress_model_bkl_mix, "vfs/base/base.h",
     WP_WORK_US | WP_CS_NS, 1, "1 per job (compute + critical section), as AIM7 counts jobs"},
    {"page_fault1",
     "anonymous mmap of 64 pages, write every page, munmap; --verify reads them back", WL_VERIFIES,
     0, NULL, &stress_model_page_fault1, MM, 0, 64,
     "1 per page faulted (64 per mapping), as will-it-scale's page_fault1"},
    {"mmap-cycle",
     "map `areas` one-page read-only views of the task's file, read each (a fault), "
     "unmap, sleep pause_us (the sheaves series' mmap test: 5 areas, 500 us, 200,000 "
     "cycles with -p cycles=); counters mmap_cycle_mmap_ns/_munmap_ns, slab fast/slow "
     "paths, RCU callbacks; --verify checks each area's file tag",
     WL_VERIFIES, 0, NULL, &stress_model_mmap_cycle, MM, WP_AREAS | WP_PAUSE_US | WP_CYCLES, 1,
     "1 per cycle (map, fault and unmap every area)"},
    {"vma-reuse",
     "read every slot of a region whose one-page file VMAs a thread of the process keeps "
     "unmapping and mapping elsewhere (with vm_area_cache=typesafe the freed VMA comes back "
     "as another slot's); a mapped slot must read its own page: vma_lock_recycled counts "
     "the faults that locked a reused VMA and fell back (--param pages= slots, at most 64, "
     "window_ns=)",
     WL_VERIFIES, 0, NULL, &stress_model_vma_reuse, MM, WP_PAGES | WP_WINDOW_NS, 1,
     "1 per pass reading every slot"},
    {"exec1",
     "execve-like loop: replace the task's mm (mm_alloc registers its RSS percpu "
     "counters, mmput of the old one unregisters them), map and write 3 anonymous "
     "pages; compare rss_counters=group|single (percpu_counter_lock_acquisitions, "
     "spin_contended); --verify reads the pages back and counts the VMAs",
     WL_VERIFIES, 0, NULL, &stress_model_exec1, MM, 0, 1,
     "1 per exec (new mm, 3 VMAs faulted, old mm put)"},
    {"page_fault2",
     "private file mmap of `pages` pages (own file per task), write every page (COW "
     "from the page cache), munmap; cache_pages defaults to half the working set "
     "(major faults); --verify checks the copies and that the file is unchanged",
     WL_VERIFIES | WL_COUNT_PAGES, 0, NULL, &stress_model_page_fault2, MM, WP_PAGES, 0,
     "1 per page faulted (`pages` per mapping), as will-it-scale's page_fault2"},
    {"page_fault3",
     "shared file mmap of `pages` pages (own file per task), write every page, munmap; "
     "cache_pages defaults to half the working set; --verify checks that the writes "
     "reach the file through reclaim",
     WL_VERIFIES | WL_COUNT_PAGES, 0, NULL, &stress_model_page_fault3, MM, WP_PAGES, 0,
     "1 per page faulted (`pages` per mapping), as will-it-scale's page_fault3"},
    {"fork-vmas",
     "fork (dup_mmap) and exit of a process with `vmas` VMAs (default 10000); --verify "
     "compares VMA counts",
     WL_VERIFIES, 0, NULL, &stress_model_fork_vmas, MM, WP_VMAS, 1, "1 per fork+exit"},
    {"fork-race",
     "tasks write their slot of every page of a shared `pages`-page region and read it "
     "back while a thread of their process forks it and mm_checks each child; a write "
     "that reads back older is lost (fork_lost_writes): --verify fails on it unless "
     "fork_vma_lock=never, and on any child mm_check failure",
     WL_VERIFIES, 0, NULL, &stress_model_fork_race, MM, WP_PAGES | WP_WINDOW_NS, 1,
     "1 per write + read-back pass over the task's pages"},
    {"numa-race",
     "the filemap_fault race: tasks mlockall and write and read their COW'd private "
     "file mapping while a NUMA scanner thread (task_numa_work) and reclaim run; "
     "--verify checks data, and spurious_majflt = 0 when pte_recheck=1 or rfc",
     WL_VERIFIES, 0, NULL, &stress_model_numa_race, MM, WP_PAGES | WP_WINDOW_NS, 1,
     "1 per pass over the task's pages"},
    {"zero",
     "map one MAP_SHARED|MAP_ANONYMOUS page, write it, unmap (stress-ng's zero: a shmem "
     "inode created on shm_mnt and evicted per op, each under its s_inode_list_lock; "
     "counters shm_inode_list_locks/_contended/_spins/_yields); --verify reads the page "
     "back and (model) checks no inode stays on the list; --path: the host kernel's own "
     "shm_mnt, DIR unused; --mode processes for stress-ng's shape",
     WL_VERIFIES, 0, &path_zero, &stress_model_zero, MM, 0, 1,
     "1 per map+write+unmap of a page (2 s_inode_list_lock acquisitions: add, del)"},
};
const int stress_nworkloads = sizeof(stress_workloads) / sizeof(stress_workloads[0]);

const struct stress_workload *stress_find_workload(const char *name)
{
	for (int i = 0; i < stress_nworkloads; i++)
		if (!strcmp(stress_workloads[i].name, name))
			return &stress_workloads[i];
	return NULL;
}

uint64_t stress_op_count(const struct stress_workload *wl, const struct stress_params *p)
{
	if (wl->flags & WL_COUNT_PAGES)
		return p->pages >= 1 ? (uint64_t)p->pages : 1;
	return wl->count > 0 ? (uint64_t)wl->count : 1;
}
