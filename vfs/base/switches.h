/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/switches.h - the switches: every historic design, chosen at instance creation.
 *
 * Locking: rv_sw is read-mostly: written only while no instance is live
 * (instance.c), read without a lock on hot paths.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_SWITCHES_H
#define RCUVFS_VFS_BASE_SWITCHES_H

#include "vfs/base/compiler.h"
#include "vfs/base/failslab.h"
#include <stdio.h>

/*
 * The historic designs, chosen at instance creation and fixed for its life.
 * One vocabulary everywhere (mount options, rcuvfs-stress -o, config, stats).
 * Hot paths read the global `rv_sw` (read-mostly, written only while no
 * instance is live).
 */
enum filelock_scheme { FILELOCK_GLOBAL = 0, FILELOCK_BKL, FILELOCK_INODE };
enum bkl_kind { BKL_SPIN = 0, BKL_SEM_FIFO, BKL_SEM_STEAL };
enum bkl_op_bits {
	BKL_OP_OPEN = 1u << 0,
	BKL_OP_RELEASE = 1u << 1,
	BKL_OP_SETATTR = 1u << 2,
	BKL_OP_IOCTL = 1u << 3,
	BKL_OP_LOCK = 1u << 4,
};
enum fileref_scheme { FILEREF_INC_NOT_ZERO = 0, FILEREF_FILE_REF };
/* __get_file_rcu in fget: inlined (the fix) or an out-of-line call (6.7's conversion) */
enum get_file_rcu_mode { GET_FILE_RCU_INLINE = 0, GET_FILE_RCU_OUT_OF_LINE };
/* fstatat(fd, "", AT_EMPTY_PATH): straight to the descriptor (6.6+) or a path walk (before) */
enum stat_empty_path_mode { STAT_EMPTY_PATH_FD = 0, STAT_EMPTY_PATH_WALK };
enum fork_vma_lock_mode {
	FORK_VMA_LOCK_ALWAYS = 0,
	FORK_VMA_LOCK_ELIDE_SINGLE,
	FORK_VMA_LOCK_NEVER
};
/* filemap_fault's PTE recheck before a major fault (docs/history.md) */
enum pte_recheck_mode {
	PTE_RECHECK_OFF = 0,	/* "0": none (before 6.9) */
	PTE_RECHECK_MERGED = 1, /* "1": 6.9's filemap_fault_recheck_pte_none */
	PTE_RECHECK_RFC = 2,	/* "rfc": the seed thread's patch */
};
enum rss_counters_mode { RSS_COUNTERS_GROUP = 0, RSS_COUNTERS_SINGLE };
/* SLUB's per-CPU level (vfs/base/slab.c): the per-CPU slab, or 6.18's sheaves */
enum slab_alloc_mode { SLAB_ALLOC_SLUB = 0, SLAB_ALLOC_SHEAVES };
/* a fault under the per-VMA lock on a VMA without an anon_vma */
enum anon_vma_fault_mode { ANON_VMA_FAULT_RETRY = 0, ANON_VMA_FAULT_REFUSE };
/* the per-VMA lock: 6.4-6.14's rw_semaphore (its own cache), or 6.15's vm_refcnt */
enum vma_lock_mode { VMA_LOCK_RWSEM = 0, VMA_LOCK_REFCNT };
/* how the VMA cache gives freed VMAs back (mm/mmap.c vm_area_free) */
enum vm_area_cache_mode {
	VM_AREA_CACHE_RCU = 0,	       /* "rcu": call_rcu, then free (6.4-6.14) */
	VM_AREA_CACHE_TYPESAFE,	       /* "typesafe": SLAB_TYPESAFE_BY_RCU, freed at once (6.15) */
	VM_AREA_CACHE_SHEAVES,	       /* "sheaves": kfree_rcu through sheaves (the seed's RFC) */
	VM_AREA_CACHE_TYPESAFE_SHEAVES /* "typesafe-sheaves": both (6.18) */
};

struct rv_switches {
	int filelock;		/* enum filelock_scheme */
	int bkl;		/* enum bkl_kind */
	unsigned bkl_ops;	/* enum bkl_op_bits */
	int fileref;		/* enum fileref_scheme */
	int get_file_rcu;	/* enum get_file_rcu_mode */
	int stat_empty_path;	/* enum stat_empty_path_mode */
	int lockref_relax;	/* 0/1 */
	int pte_recheck;	/* enum pte_recheck_mode */
	int fork_vma_lock;	/* enum fork_vma_lock_mode */
	int anon_vma_fault;	/* enum anon_vma_fault_mode */
	int rss_counters;	/* enum rss_counters_mode */
	int slab;		/* enum slab_alloc_mode */
	int vma_lock;		/* enum vma_lock_mode */
	int vm_area_cache;	/* enum vm_area_cache_mode */
	int new_inode_prefetch; /* 0/1: spin_lock_prefetch of s_inode_list_lock (before 6.5) */
	long cache_pages;	/* page-cache capacity in pages; 0 = unlimited */
	long io_latency_us;	/* backing-store latency per folio */
	long fault_around;	/* pages a file read fault maps around it (1: none) */
	uint64_t size;		/* filesystem size limit in bytes; 0 = half of RAM */
	unsigned mode;		/* permission bits of the root directory (tmpfs's mode=) */
	struct rv_fail_spec fail_alloc; /* failslab-like allocation failures */
};
extern struct rv_switches rv_sw; /* the live instance's switches */
void rv_switches_default(struct rv_switches *sw);
/* Set one switch from text; 0, or -EINVAL with a message in err. */
int rv_switch_set(struct rv_switches *sw, const char *name, const char *value, char *err,
		  size_t errlen);
/*
 * Combinations no kernel could have (vm_area_cache=typesafe without
 * vma_lock=refcnt): 0, or -EINVAL with a message naming both switches in
 * err.  rv_instance_create refuses them too; front ends call it after
 * parsing to report the error before anything starts.
 */
int rv_switches_check(const struct rv_switches *sw, char *err, size_t errlen);
/* Whether `name` is a switch. */
bool rv_switch_known(const char *name);
/* Format one switch's value. */
int rv_switch_format(const struct rv_switches *sw, const char *name, char *buf, size_t len);
/* "name=value\n" for every switch; returns bytes needed. */
size_t rv_switches_format(const struct rv_switches *sw, char *buf, size_t len);
/* Help text: one line per switch with values and default. */
void rv_switches_help(FILE *out, const char *prefix);
/* The same, for the switches keep(name) accepts (keep NULL: all). */
void rv_switches_help_if(FILE *out, const char *prefix, bool (*keep)(const char *name));
/* Iterate switch names in table order. */
const char *rv_switch_name(int i); /* NULL past the end */
/*
 * Whether a switch acts only on model address spaces (page tables,
 * faults, fork): the FUSE daemon maps nothing of its own and refuses it.
 */
bool rv_switch_mm_only(const char *name);

/* Reference documentation generated from the tables' own strings. */
enum rv_doc_format { RV_DOC_TEXT, RV_DOC_MD, RV_DOC_SCD };
/*
 * Every switch with what it selects, each value with the kernels that had
 * it, the default, and whether the mount accepts it; -EINVAL (after
 * naming each on stderr) if a switch or a value lacks its text.
 */
int rv_switches_doc(FILE *out, int fmt);

#endif /* RCUVFS_VFS_BASE_SWITCHES_H */
