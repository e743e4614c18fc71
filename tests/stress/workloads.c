// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/stress/workloads.c - the workload table.
 *
 * Each row names a workload and its two implementations.  The --path one is
 * in wl_path.c.  The --model one is the weak symbol stress_model_<name>
 * (dashes as underscores): it is NULL until some file defines it, so the
 * subsystems wire their model workloads by adding tests/stress/model_*.c
 * (picked up by the CMake glob) without touching this table.  bkl-mix is
 * defined in wl_model.c.  The table is constant; no locking.
 */
#include <string.h>

#include "stress.h"

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
MODEL_IMPL(stress_model_page_fault2);
MODEL_IMPL(stress_model_page_fault3);
MODEL_IMPL(stress_model_fork_vmas);
MODEL_IMPL(stress_model_fork_race);
MODEL_IMPL(stress_model_numa_race);

#define FD "fdtable/fdtable.h + vfs/vfs.h"
#define LK "locks/locks.h"
#define MM "mm/mm.h"

const struct stress_workload stress_workloads[] = {
    {"fstat1", "fstat() on the task's own file and descriptor", WL_VERIFIES, 0, &path_fstat1,
     &stress_model_fstat1, FD},
    {"fstat2", "fstat() on one shared file, each task its own descriptor", WL_VERIFIES, 0,
     &path_fstat2, &stress_model_fstat2, FD},
    {"stat1", "stat() by path of the task's own file", WL_VERIFIES, 0, &path_stat1,
     &stress_model_stat1, FD},
    {"stat2", "stat() by path of one shared file", WL_VERIFIES, 0, &path_stat2, &stress_model_stat2,
     FD},
    {"open1", "open()+close() of the task's own file", WL_VERIFIES, 0, &path_open1,
     &stress_model_open1, FD},
    {"open3", "open()+close() of one shared file", WL_VERIFIES, 0, &path_open3, &stress_model_open3,
     FD},
    {"dup1", "dup()+close() of a descriptor in the (threads: shared) fd table", WL_VERIFIES, 0,
     &path_dup1, &stress_model_dup1, FD},
    {"flock1", "flock(LOCK_EX)+flock(LOCK_UN) on the task's own file", 0, 0, &path_flock1,
     &stress_model_flock1, LK},
    {"flock2",
     "flock(LOCK_EX)+flock(LOCK_UN) on one shared file, each task its own open file "
     "description (real contention, threads too); --verify checks exclusion",
     WL_VERIFIES, 0, &path_flock2, &stress_model_flock2, LK},
    {"lock1", "fcntl(F_SETLKW) write lock + unlock of the task's own file", 0, 0, &path_lock1,
     &stress_model_lock1, LK},
    {"lock2",
     "fcntl(F_SETLKW) write lock + unlock of one shared file (threads share one POSIX "
     "owner, as in will-it-scale; --verify checks exclusion in processes mode)",
     WL_VERIFIES, 0, &path_lock2, &stress_model_lock2, LK},
    {"ofd2",
     "fcntl(F_OFD_SETLKW) write lock + unlock of one shared file, each task its own "
     "description; --verify checks exclusion",
     WL_VERIFIES, 0, &path_ofd2, &stress_model_ofd2, LK},
    {"lock-verify",
     "lock, read-modify-write a counter stored in the locked file, unlock; flock and "
     "OFD in both modes, POSIX in processes mode; counters must equal the increments",
     WL_VERIFIES, 0, &path_lock_verify, &stress_model_lock_verify, LK},
    {"bkl-mix",
     "AIM7-like: compute work_us, then cs_ns under lock_kernel(); jobs/s, idle, BKL "
     "sleeps and hand-offs per acquisition (--param work_us=,cs_ns=)",
     WL_VERIFIES | WL_FIXED_PARAMS, 256, NULL, &stress_model_bkl_mix, "vfs/base/base.h"},
    {"page_fault1",
     "anonymous mmap of 64 pages, write every page, munmap; --verify reads them back", WL_VERIFIES,
     0, NULL, &stress_model_page_fault1, MM},
    {"page_fault2", "private file mmap, write every page (COW), munmap", 0, 0, NULL,
     &stress_model_page_fault2, MM},
    {"page_fault3", "shared file mmap, write every page, munmap", 0, 0, NULL,
     &stress_model_page_fault3, MM},
    {"fork-vmas",
     "fork (dup_mmap) and exit of a process with 64 VMAs; --verify compares VMA counts",
     WL_VERIFIES, 0, NULL, &stress_model_fork_vmas, MM},
    {"fork-race", "fork racing page faults in the parent's other threads", 0, 0, NULL,
     &stress_model_fork_race, MM},
    {"numa-race", "NUMA hinting faults racing filemap faults (PTE recheck)", 0, 0, NULL,
     &stress_model_numa_race, MM},
};
const int stress_nworkloads = sizeof(stress_workloads) / sizeof(stress_workloads[0]);

const struct stress_workload *stress_find_workload(const char *name)
{
	for (int i = 0; i < stress_nworkloads; i++)
		if (!strcmp(stress_workloads[i].name, name))
			return &stress_workloads[i];
	return NULL;
}
