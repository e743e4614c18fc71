// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/switches.c - the strategy switches: one table, one vocabulary.
 *
 * Every place that names a switch (mount options, rcuvfs-stress -o, the
 * control directory's config, JSON output) goes through this table, so the
 * names, values and defaults cannot drift apart.
 *
 * Locking: rv_sw is written only by rv_instance_create while no instance is
 * live; hot paths read it without synchronization (read-mostly).
 */
#include "vfs/base/base.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct rv_switches rv_sw;

enum sw_type { SW_ENUM, SW_BITS, SW_LONG, SW_U64, SW_MODE, SW_FAIL };

struct sw_desc {
	const char *name;
	enum sw_type type;
	size_t off;
	const char *const *values; /* SW_ENUM / SW_BITS: names by value / bit */
	const char *help;
	/*
	 * SW_ENUM / SW_BITS: what each value models and the kernel versions
	 * that had it, by value (the generated switch table and man pages
	 * print them; a missing entry fails the docs.generated test).
	 */
	const char *const *value_docs;
	bool mm_only; /* acts on model address spaces only (the mount refuses it) */
};

static const char *const v_filelock[] = {"global", "bkl", "inode", NULL};
static const char *const d_filelock[] = {
    "one `file_lock_lock` spinlock for every inode's lock list (2.6.38 to 3.17)",
    "the Big Kernel Lock, as fs/locks.c had it before 2.6.38",
    "a per-inode `flc_lock` (3.18+)",
};
static const char *const v_bkl[] = {"spin", "sem-fifo", "sem-steal", NULL};
static const char *const d_bkl[] = {
    "a recursive spinlock released across sleeps (before 2.6.26-rc1, and again from "
    "2.6.26 until the BKL's removal)",
    "a semaphore that hands ownership to the first waiter (2.6.26-rc1's generic "
    "semaphore)",
    "a semaphore whose up() lets a running task take it before the woken waiter "
    "(the fix proposed in 2.6.26-rc, within 1% of the spinlock)",
};
static const char *const v_bkl_ops[] = {"open", "release", "setattr", "ioctl", "lock", NULL};
static const char *const d_bkl_ops[] = {
    "open takes the BKL (chrdev_open's shape)",
    "the last close takes it (tty_release's shape)",
    "setattr takes it",
    "rcuvfs's restricted ioctl takes it (vfs_ioctl's shape under the BKL)",
    "file locks take it (fs/locks.c under the BKL; independent of filelock=bkl)",
};
static const char *const v_fileref[] = {"inc-not-zero", "file-ref", NULL};
static const char *const d_fileref[] = {
    "`atomic_long_inc_not_zero` on `f_count` with the slot reloaded (6.7-6.12)",
    "`file_ref_get`: one unconditional add, dead/zero states in the high bits (6.13+)",
};
static const char *const v_get_file_rcu[] = {"inline", "out-of-line", NULL};
static const char *const d_get_file_rcu[] = {
    "the lookup's attempt inlined into `__fget_files_rcu` (the fix of the 6.7 regression)",
    "`__get_file_rcu` an out-of-line call on every lookup (6.7's `SLAB_TYPESAFE_BY_RCU` "
    "conversion, 0ede61d8589c)",
};
static const char *const v_stat_empty_path[] = {"fd", "walk", NULL};
static const char *const d_stat_empty_path[] = {
    "`vfs_fstatat` goes straight to `vfs_fstat` for an empty path (6.6+, 9013c51c630a; "
    "`vfs_empty_path` since 6.10)",
    "a path walk of the empty name (`LOOKUP_EMPTY`) from the descriptor's path: "
    "`complete_walk` takes the dentry's lockref, `path_put` drops it (before 6.6)",
};
static const char *const v_bool[] = {"0", "1", NULL};
static const char *const d_lockref_relax[] = {
    "no PAUSE in the cmpxchg retry loop (mainline since 2024)",
    "`cpu_relax()` after every failed cmpxchg (lockref's loop from 3.12 to 2024)",
};
static const char *const v_pte_recheck[] = {"0", "1", "rfc", NULL}; /* by enum value */
static const char *const d_pte_recheck[] = {
    "no recheck: a fault that saw `pte_none` does the major fault (before 6.9)",
    "as merged in 6.9: `VM_LOCKED` VMAs only, a lockless look first, then the PTE lock",
    "the first posted patch: every VMA with a page table, always under the PTE lock",
};
static const char *const v_fork[] = {"always", "elide-single", "never", NULL};
static const char *const d_fork[] = {
    "dup_mmap write-locks every parent VMA (the fix, 2b4f3b4987b5, 6.5)",
    "skip the locks when the forking process is single-threaded (the proposed elision)",
    "no locking (6.4 as released: the fork lost-write race)",
};
static const char *const v_rss[] = {"group", "single", NULL};
static const char *const d_rss[] = {
    "`percpu_counter_init_many`: one allocation and one list insertion (2023)",
    "one `percpu_counter_init` per counter (6.2 until the 2023 grouping)",
};
static const char *const v_anon_fault[] = {"retry", "refuse", NULL};
static const char *const d_anon_fault[] = {
    "`vmf_anon_prepare` retries under mmap_lock (6.7+)",
    "`lock_vma_under_rcu` refuses anonymous VMAs without an anon_vma (6.4-6.6)",
};
static const char *const v_slab[] = {"slub", "sheaves", NULL};
static const char *const d_slab[] = {
    "the per-CPU slab with a freelist+tid cmpxchg (before 6.18)",
    "per-CPU sheaves and a per-node barn for caches that ask for them (6.18+)",
};
static const char *const v_vma_lock[] = {"rwsem", "refcnt", NULL};
static const char *const d_vma_lock[] = {
    "an rw_semaphore from its own cache (6.4-6.14)",
    "`vm_refcnt`, a reference count readers take and writers drain (6.15+)",
};
static const char *const v_vm_area_cache[] = {"rcu", "typesafe", "sheaves", "typesafe-sheaves",
					      NULL};
static const char *const d_vm_area_cache[] = {
    "freed after a grace period (6.4-6.14)",
    "`SLAB_TYPESAFE_BY_RCU`, reused at once (6.15-6.17); needs vma_lock=refcnt",
    "freed with kfree_rcu through sheaves (the sheaves series' test kernel)",
    "typesafe with sheaves (6.18+); needs vma_lock=refcnt",
};
static const char *const d_new_inode_prefetch[] = {
    "no prefetch (6.5+)",
    "`spin_lock_prefetch` of the list lock before allocating (2.6.x-6.4)",
};

#define OFF(f) offsetof(struct rv_switches, f)
static const struct sw_desc sw_table[] = {
    {"filelock", SW_ENUM, OFF(filelock), v_filelock,
     "file-lock list protection: one global spinlock (2.6.38), the BKL, per-inode (3.18+)",
     d_filelock, false},
    {"bkl", SW_ENUM, OFF(bkl), v_bkl,
     "BKL implementation: spinlock, FIFO hand-off semaphore (2.6.26-rc1), stealing semaphore",
     d_bkl, false},
    {"bkl_ops", SW_BITS, OFF(bkl_ops), v_bkl_ops,
     "paths that take the BKL, '+'-separated subset (or 'none')", d_bkl_ops, false},
    {"fileref", SW_ENUM, OFF(fileref), v_fileref,
     "struct file refcount: atomic_long_inc_not_zero (6.7) or file_ref (6.13)", d_fileref, false},
    {"get_file_rcu", SW_ENUM, OFF(get_file_rcu), v_get_file_rcu,
     "fget's __get_file_rcu: inlined (the fix) or an out-of-line call (6.7's conversion)",
     d_get_file_rcu, false},
    {"stat_empty_path", SW_ENUM, OFF(stat_empty_path), v_stat_empty_path,
     "fstatat(fd, \"\", AT_EMPTY_PATH): straight to the descriptor (fd: 6.6+) or a walk of the "
     "empty path taking the dentry's lockref (walk: before 6.6)",
     d_stat_empty_path, false},
    {"lockref_relax", SW_ENUM, OFF(lockref_relax), v_bool,
     "cpu_relax() in the lockref cmpxchg retry loop (1: pre-2024 kernels)", d_lockref_relax, false},
    {"pte_recheck", SW_ENUM, OFF(pte_recheck), v_pte_recheck,
     "filemap_fault PTE recheck before a major fault: 1 as merged in 6.9 (VM_LOCKED VMAs, "
     "lockless look first), rfc (the first patch: every VMA with a page table, under the "
     "PTE lock), 0 none",
     d_pte_recheck, true},
    {"fork_vma_lock", SW_ENUM, OFF(fork_vma_lock), v_fork,
     "dup_mmap write-locks the parent's VMAs: always, not for single-threaded parents, never",
     d_fork, true},
    {"anon_vma_fault", SW_ENUM, OFF(anon_vma_fault), v_anon_fault,
     "fault under the per-VMA lock needing an anon_vma: retry under mmap_lock (6.7+ "
     "vmf_anon_prepare), or refuse such VMAs in lock_vma_under_rcu (6.4)",
     d_anon_fault, true},
    {"rss_counters", SW_ENUM, OFF(rss_counters), v_rss,
     "mm RSS percpu counters registered as a group (percpu_counter_init_many) or one by one", d_rss,
     true},
    {"slab", SW_ENUM, OFF(slab), v_slab,
     "SLUB per-CPU level: per-CPU slab with a freelist+tid cmpxchg (before 6.18), or "
     "sheaves and a barn for caches that ask for them (6.18: VMA tree nodes)",
     d_slab, false},
    {"vma_lock", SW_ENUM, OFF(vma_lock), v_vma_lock,
     "per-VMA lock: an rw_semaphore from its own cache (6.4-6.14), or vm_refcnt, a reference "
     "count readers take and writers drain (6.15)",
     d_vma_lock, true},
    {"vm_area_cache", SW_ENUM, OFF(vm_area_cache), v_vm_area_cache,
     "VMA freeing: after a grace period (6.4-6.14), SLAB_TYPESAFE_BY_RCU (6.15), kfree_rcu "
     "through sheaves (the sheaves RFC's test), typesafe with sheaves (6.18); typesafe needs "
     "vma_lock=refcnt",
     d_vm_area_cache, true},
    {"new_inode_prefetch", SW_ENUM, OFF(new_inode_prefetch), v_bool,
     "new_inode prefetches s_inode_list_lock for writing before allocating "
     "(spin_lock_prefetch; 1: before 6.5, 0: 6.5+ removed it)",
     d_new_inode_prefetch, false},
    {"cache_pages", SW_LONG, OFF(cache_pages), NULL,
     "page-cache capacity in pages before reclaim (0: unlimited)", NULL, false},
    {"fault_around", SW_LONG, OFF(fault_around), NULL,
     "pages a read fault on a file maps from the page cache around it (do_fault_around): "
     "16 is Linux's default (fault_around_bytes 64 KiB), 1 maps the faulting page only; a "
     "power of two up to 512",
     NULL, true},
    {"io_latency_us", SW_LONG, OFF(io_latency_us), NULL,
     "backing-store latency per folio read or write, microseconds", NULL, false},
    {"size", SW_U64, OFF(size), NULL,
     "filesystem size limit in bytes, suffixes k/m/g/t (0: half of RAM, as tmpfs)", NULL, false},
    {"mode", SW_MODE, OFF(mode), NULL,
     "permission bits of the root directory, octal (tmpfs's mode=)", NULL, false},
    {"fail_alloc", SW_FAIL, OFF(fail_alloc), NULL,
     "make allocations fail (failslab): none, every:N, nth:K or p:PCT, each with an optional :SITE "
     "filter",
     NULL, false},
};
#undef OFF

void rv_switches_default(struct rv_switches *sw)
{
	memset(sw, 0, sizeof(*sw));
	sw->filelock = FILELOCK_GLOBAL;
	sw->bkl = BKL_SPIN;
	sw->bkl_ops = 0;
	sw->fileref = FILEREF_INC_NOT_ZERO;
	sw->get_file_rcu = GET_FILE_RCU_INLINE;
	sw->stat_empty_path = STAT_EMPTY_PATH_FD;
	sw->lockref_relax = 0;
	sw->pte_recheck = PTE_RECHECK_MERGED;
	sw->fork_vma_lock = FORK_VMA_LOCK_ALWAYS;
	sw->anon_vma_fault = ANON_VMA_FAULT_RETRY;
	sw->rss_counters = RSS_COUNTERS_GROUP;
	sw->slab = SLAB_ALLOC_SHEAVES;
	sw->vma_lock = VMA_LOCK_RWSEM;
	sw->vm_area_cache = VM_AREA_CACHE_RCU;
	sw->new_inode_prefetch = 0;
	sw->cache_pages = 0;
	sw->io_latency_us = 0;
	sw->fault_around = 1;
	sw->size = 0;
	sw->mode = 01777;
}

static const struct sw_desc *sw_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(sw_table); i++)
		if (!strcmp(sw_table[i].name, name))
			return &sw_table[i];
	return NULL;
}

int rv_switches_check(const struct rv_switches *sw, char *err, size_t errlen)
{
	/*
	 * A SLAB_TYPESAFE_BY_RCU VMA may be freed and reused while a fault
	 * that found it under RCU is about to lock it.  A reference count
	 * taken with inc-not-zero fails on a freed (detached) VMA and can be
	 * rechecked after; an rw_semaphore in recycled memory cannot (6.15
	 * made the cache typesafe in the same series that replaced the
	 * rw_semaphore with vm_refcnt).
	 */
	if (sw->fault_around < 1 || sw->fault_around > 512 ||
	    (sw->fault_around & (sw->fault_around - 1))) {
		snprintf(err, errlen,
			 "fault_around=%ld: a power of two from 1 to 512 (one page table)",
			 sw->fault_around);
		return -EINVAL;
	}
	if ((sw->vm_area_cache == VM_AREA_CACHE_TYPESAFE ||
	     sw->vm_area_cache == VM_AREA_CACHE_TYPESAFE_SHEAVES) &&
	    sw->vma_lock != VMA_LOCK_REFCNT) {
		snprintf(err, errlen,
			 "vm_area_cache=%s needs vma_lock=refcnt (got vma_lock=%s): a reader "
			 "cannot read-lock the rw_semaphore of a VMA that may have been freed "
			 "and reused",
			 v_vm_area_cache[sw->vm_area_cache],
			 sw->vma_lock >= 0 && sw->vma_lock <= VMA_LOCK_REFCNT
			     ? v_vma_lock[sw->vma_lock]
			     : "?");
		return -EINVAL;
	}
	return 0;
}

bool rv_switch_known(const char *name)
{
	return sw_find(name) != NULL;
}

const char *rv_switch_name(int i)
{
	return i >= 0 && (size_t)i < ARRAY_SIZE(sw_table) ? sw_table[i].name : NULL;
}

static void list_values(const char *const *v, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (; *v && used < len; v++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "|" : "", *v);
}

static int parse_enum(const struct sw_desc *d, const char *value, int *out)
{
	for (int i = 0; d->values[i]; i++) {
		if (!strcmp(d->values[i], value)) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_bits(const struct sw_desc *d, const char *value, unsigned *out)
{
	unsigned bits = 0;
	const char *p = value;

	if (!strcmp(value, "none") || !*value) {
		*out = 0;
		return 0;
	}
	if (!strcmp(value, "all")) {
		for (int i = 0; d->values[i]; i++)
			bits |= 1u << i;
		*out = bits;
		return 0;
	}
	while (*p) {
		size_t n = strcspn(p, "+:");
		int found = 0;

		for (int i = 0; d->values[i]; i++) {
			if (strlen(d->values[i]) == n && !strncmp(d->values[i], p, n)) {
				bits |= 1u << i;
				found = 1;
			}
		}
		if (!found)
			return -EINVAL;
		p += n;
		if (*p)
			p++;
	}
	*out = bits;
	return 0;
}

static int parse_u64(const char *value, uint64_t *out, bool suffixes)
{
	char *end;
	unsigned long long v;

	if (!*value || *value == '-' || !isdigit((unsigned char)*value))
		return -EINVAL;
	errno = 0;
	v = strtoull(value, &end, 10);
	if (errno)
		return -EINVAL;
	if (suffixes && *end) {
		unsigned shift = 0;

		switch (tolower((unsigned char)*end)) {
		case 'k':
			shift = 10;
			break;
		case 'm':
			shift = 20;
			break;
		case 'g':
			shift = 30;
			break;
		case 't':
			shift = 40;
			break;
		default:
			return -EINVAL;
		}
		end++;
		if (v > (UINT64_MAX >> shift))
			return -EINVAL;
		v <<= shift;
	}
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int rv_switch_set(struct rv_switches *sw, const char *name, const char *value, char *err,
		  size_t errlen)
{
	const struct sw_desc *d = sw_find(name);
	char *field;
	char vals[128];
	int ret = -EINVAL;

	if (!d) {
		snprintf(err, errlen, "unknown switch '%s'", name);
		return -EINVAL;
	}
	if (!value) {
		snprintf(err, errlen, "switch '%s' needs a value", name);
		return -EINVAL;
	}
	field = (char *)sw + d->off;
	switch (d->type) {
	case SW_ENUM: {
		int v;

		ret = parse_enum(d, value, &v);
		if (!ret)
			*(int *)field = v;
		break;
	}
	case SW_BITS: {
		unsigned v;

		ret = parse_bits(d, value, &v);
		if (!ret)
			*(unsigned *)field = v;
		break;
	}
	case SW_LONG: {
		uint64_t v;

		ret = parse_u64(value, &v, false);
		if (!ret && v > (uint64_t)INT64_MAX / 2)
			ret = -EINVAL;
		if (!ret)
			*(long *)field = (long)v;
		break;
	}
	case SW_U64: {
		uint64_t v;

		ret = parse_u64(value, &v, true);
		if (!ret)
			*(uint64_t *)field = v;
		break;
	}
	case SW_FAIL:
		ret = rv_fail_spec_parse((struct rv_fail_spec *)field, value);
		break;
	case SW_MODE: {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(value, &end, 8);
		ret = (!*value || *end || errno || v > 07777) ? -EINVAL : 0;
		if (!ret)
			*(unsigned *)field = (unsigned)v;
		break;
	}
	}
	if (ret) {
		if (d->values) {
			list_values(d->values, vals, sizeof(vals));
			snprintf(err, errlen, "bad value '%s' for %s (expected %s%s)", value, name,
				 vals, d->type == SW_BITS ? " joined by '+', or none/all" : "");
		} else if (d->type == SW_FAIL) {
			snprintf(err, errlen,
				 "bad value '%s' for %s (expected none, every:N, nth:K or p:PCT, "
				 "optionally :SITE)",
				 value, name);
		} else if (d->type == SW_MODE) {
			snprintf(err, errlen, "bad value '%s' for %s (expected octal 0..7777)",
				 value, name);
		} else {
			snprintf(err, errlen,
				 "bad value '%s' for %s (expected a non-negative number%s)", value,
				 name, d->type == SW_U64 ? " with optional k/m/g/t" : "");
		}
	}
	return ret;
}

static int format_desc(const struct sw_desc *d, const struct rv_switches *sw, char *buf, size_t len)
{
	const char *field = (const char *)sw + d->off;

	switch (d->type) {
	case SW_ENUM: {
		int v = *(const int *)field;

		return snprintf(buf, len, "%s", v >= 0 && d->values[v] ? d->values[v] : "?");
	}
	case SW_BITS: {
		unsigned v = *(const unsigned *)field;
		size_t used = 0;

		if (!v)
			return snprintf(buf, len, "none");
		if (len)
			buf[0] = 0;
		for (int i = 0; d->values[i]; i++) {
			if (!(v & (1u << i)))
				continue;
			used += (size_t)snprintf(used < len ? buf + used : NULL,
						 used < len ? len - used : 0, "%s%s",
						 used ? "+" : "", d->values[i]);
		}
		return (int)used;
	}
	case SW_LONG:
		return snprintf(buf, len, "%ld", *(const long *)field);
	case SW_U64:
		return snprintf(buf, len, "%" PRIu64, *(const uint64_t *)field);
	case SW_MODE:
		return snprintf(buf, len, "%04o", *(const unsigned *)field);
	case SW_FAIL:
		return rv_fail_spec_format((const struct rv_fail_spec *)field, buf, len);
	}
	return -EINVAL;
}

int rv_switch_format(const struct rv_switches *sw, const char *name, char *buf, size_t len)
{
	const struct sw_desc *d = sw_find(name);

	if (!d)
		return -ENOENT;
	return format_desc(d, sw, buf, len);
}

size_t rv_switches_format(const struct rv_switches *sw, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(sw_table); i++) {
		char v[128];

		format_desc(&sw_table[i], sw, v, sizeof(v));
		used +=
		    (size_t)snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
				     "%s=%s\n", sw_table[i].name, v);
	}
	return used;
}

void rv_switches_help(FILE *out, const char *prefix)
{
	rv_switches_help_if(out, prefix, NULL);
}

void rv_switches_help_if(FILE *out, const char *prefix, bool (*keep)(const char *name))
{
	struct rv_switches def;

	rv_switches_default(&def);
	for (size_t i = 0; i < ARRAY_SIZE(sw_table); i++) {
		const struct sw_desc *d = &sw_table[i];
		char vals[128], dv[64];

		if (keep && !keep(d->name))
			continue;

		format_desc(d, &def, dv, sizeof(dv));
		if (d->values)
			list_values(d->values, vals, sizeof(vals));
		else
			snprintf(vals, sizeof(vals), "%s", d->type == SW_FAIL ? "SPEC" : "N");
		fprintf(out, "%s%s=%s\n%s    %s (default: %s)\n", prefix, d->name, vals, prefix,
			d->help, dv);
	}
}

bool rv_switch_mm_only(const char *name)
{
	const struct sw_desc *d = sw_find(name);

	return d && d->mm_only;
}

/* The value texts mark code with backquotes: Markdown keeps them, the man
 * page and plain text drop them. */
static void doc_text(FILE *out, const char *s, int fmt)
{
	for (; *s; s++)
		if (*s != '`' || fmt == RV_DOC_MD)
			fputc(*s, out);
}

static void doc_value_list(FILE *out, const struct sw_desc *d, const char *dv, int fmt)
{
	if (d->type == SW_BITS) /* a set: none of the values alone is the default */
		fprintf(out,
			fmt == RV_DOC_MD    ? "default `%s`; any `+`-joined subset of:<br>"
			: fmt == RV_DOC_SCD ? "\tDefault %s; any +-joined subset of:\n"
					    : "      default %s; any +-joined subset of:\n",
			dv);
	for (int i = 0; d->values[i]; i++) {
		bool def = !strcmp(d->values[i], dv);

		if (fmt == RV_DOC_MD)
			fprintf(out, "%s`%s`%s: ", i ? "<br>" : "", d->values[i],
				def ? " (default)" : "");
		else if (fmt == RV_DOC_SCD)
			fprintf(out, "\t- *%s*%s: ", d->values[i], def ? " (default)" : "");
		else
			fprintf(out, "      %-16s %s", d->values[i], def ? "(default) " : "");
		doc_text(out, d->value_docs[i], fmt);
		if (fmt != RV_DOC_MD)
			fputc('\n', out);
	}
}

int rv_switches_doc(FILE *out, int fmt)
{
	struct rv_switches def;
	int missing = 0;

	rv_switches_default(&def);
	if (fmt == RV_DOC_MD)
		fprintf(out, "| switch | what it selects | values | mount |\n|---|---|---|---|\n");
	for (size_t i = 0; i < ARRAY_SIZE(sw_table); i++) {
		const struct sw_desc *d = &sw_table[i];
		char dv[64];

		if (!d->help || !*d->help) {
			fprintf(stderr, "rcuvfs: switch %s has no help text\n", d->name);
			missing++;
		}
		if (d->values) {
			for (int v = 0; d->values[v]; v++) {
				if (d->value_docs && d->value_docs[v] && *d->value_docs[v])
					continue;
				fprintf(stderr, "rcuvfs: switch %s: value %s has no description\n",
					d->name, d->values[v]);
				missing++;
			}
			if (missing)
				continue;
		}
		format_desc(d, &def, dv, sizeof(dv));
		switch (fmt) {
		case RV_DOC_MD:
			fprintf(out, "| `%s` | %s | ", d->name, d->help);
			if (d->values)
				doc_value_list(out, d, dv, fmt);
			else
				fprintf(out, "default `%s`", dv);
			fprintf(out, " | %s |\n", d->mm_only ? "refused" : "yes");
			break;
		case RV_DOC_SCD:
			fprintf(out, "*%s*=", d->name);
			if (!d->values)
				fprintf(out, "_%s_ (default %s)", d->type == SW_FAIL ? "SPEC" : "N",
					dv);
			fprintf(out, "\n\t%s%s\n", d->help,
				d->mm_only ? " Model address spaces only: the mount refuses it."
					   : "");
			if (d->values) {
				fprintf(out, "\n");
				doc_value_list(out, d, dv, fmt);
			}
			fprintf(out, "\n");
			break;
		default:
			fprintf(out, "  %s: %s%s\n", d->name, d->help,
				d->mm_only ? " [model address spaces only]" : "");
			if (d->values)
				doc_value_list(out, d, dv, fmt);
			else
				fprintf(out, "      default %s\n", dv);
			break;
		}
	}
	return missing ? -EINVAL : 0;
}
