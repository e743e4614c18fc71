/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/pagecache.h - part of vfs/vfs.h: address_space, folio, backing store.
 * Do not include directly.
 *
 * Objects and their locks
 * -----------------------
 * struct xarray      a sparse index -> pointer map (64-way radix tree).
 *                    Readers: xa_load/xa_find under rcu_read_lock() (or the
 *                    writer's lock).  Writers: serialized by a lock the
 *                    owner names (for i_pages: the mapping's i_pages_lock).
 *                    Interior nodes are freed after a grace period.
 *
 * struct folio       one PAGE_SIZE page of data.  Folios come from a
 *                    SLAB_TYPESAFE_BY_RCU cache: an RCU reader may hold a
 *                    pointer to a folio that was freed and reused, so a
 *                    lockless lookup takes a reference with folio_try_get
 *                    (get-unless-zero) and then re-validates that the slot
 *                    still holds this folio and folio->mapping/index match
 *                    (filemap_get_folio does all of this).
 *   refcount         atomic.  The page cache holds one reference per folio
 *                    in i_pages; each PTE mapping holds one (mm); lookups
 *                    hold one.  0 = free.
 *   mapcount         atomic; number of PTEs mapping the folio (mm owns it).
 *   flags            atomic PG_* bits (folio_set_flag & co).
 *   mapping, index   set when the folio is added to a mapping, cleared
 *                    (mapping = NULL) when removed, both under the mapping's
 *                    i_pages_lock with the folio locked (PG_locked).  NULL
 *                    mapping: anonymous (PG_anon) or truncated.
 *   lru              LRU list link owned by mm/ (its LRU lock); PG_lru says
 *                    the folio is on a list.  The VFS never touches it; it
 *                    calls vfs_hooks.folio_add_lru after inserting a folio
 *                    into a mapping and vfs_hooks.folio_del_lru before
 *                    freeing a folio that still has PG_lru set.
 *   data             PAGE_SIZE bytes, stable for the folio's life.
 *
 * PTE encoding: every struct folio is aligned to FOLIO_ALIGN (64) bytes, so
 * a PTE word can hold (uintptr_t)folio | bits with FOLIO_PTE_BITS (6) low
 * bits free: folio_to_pteval/pteval_to_folio.
 *
 * struct address_space  one per inode (inode->i_data; i_mapping points to it).
 *   i_pages_lock     "the mapping lock": insertion/removal in i_pages,
 *                    nrpages, folio->mapping changes.
 *   invalidate_lock  held exclusive by truncation (and fallocate); taken
 *                    shared by mm's fault path before it instantiates a
 *                    folio, so no folio appears beyond a new EOF.
 *   i_mmap_rwsem     protects i_mmap (VMAs mapping this file; nodes are
 *                    mm's) and i_mmap_private (free for mm).
 *
 * Lock order: inode->i_rwsem -> mapping->invalidate_lock -> folio lock ->
 *             mapping->i_pages_lock.  i_mmap_rwsem is taken by mm inside
 *             vfs_hooks.unmap_mapping_range (called with invalidate_lock
 *             held, no folio locked) and inside vfs_hooks.folio_mkclean
 *             (called by writeback with the folio locked: folio lock ->
 *             i_mmap_rwsem -> PTE lock).
 *
 * The backing store is where a folio's data lives when it is not cached.
 * The VFS ships an in-memory store (memstore_ops): written-back pages are
 * copied into a per-mapping map; read_folio copies them back (sleeping
 * rv_sw.io_latency_us first, to model a device).  Reclaim (mm) removes a
 * folio with filemap_remove_folio only once the store holds its current
 * contents (folio_store_current: PG_stored set, PG_dirty clear), writing it
 * back with filemap_writeback_folio first otherwise -- a clean folio the
 * store never saw (fallocate, a hole zero-filled by a fault) included, or
 * its space and data would be lost; a later lookup misses and re-reads it.
 *
 * Space accounting (size= limit): a file page counts once while it exists in
 * the cache or the store (mapping->nrblocks); filemap_grab_folio reserves a
 * block from the superblock before creating a folio the store does not
 * hold, and fails with -ENOSPC beyond the limit.  Reading a hole never
 * allocates.
 *
 * Fallocated folios (Linux 6.x shmem_fallocate/shmem_get_folio_gfp): a
 * folio fallocate creates holds its block but stays "unwritten" until data
 * reaches it, and SEEK_DATA/SEEK_HOLE treat it as a hole.  shmem marks that
 * state by leaving the folio !uptodate; the model keeps PG_uptodate for
 * "filled" (lookups wait on it) and marks the state with PG_unwritten
 * instead.  A write into the folio, a fault that maps it, a second
 * fallocate over it (shmem's SGP_FALLOC initializes an earlier fallocated
 * folio so that an undo cannot take it back) and reclaim's writeback
 * (shmem_writeout zeroes and marks it uptodate) clear the flag; fsync
 * leaves it (tmpfs's fsync does nothing).  A failed fallocate removes the
 * folios it created that are still unwritten (filemap_unfalloc_range).
 */
#ifndef RCUVFS_VFS_PAGECACHE_H
#define RCUVFS_VFS_PAGECACHE_H

#define PAGE_SHIFT 12
#define PAGE_SIZE  4096L
#define PAGE_MASK  (~(PAGE_SIZE - 1))

/*
 * round_up(pos, PAGE_SIZE) for a byte position 0 <= pos <= 2^63-1, as the
 * kernel's truncate_pagecache computes its holebegin: within a page of
 * MAX_LFS_FILESIZE the result is 2^63, which a loff_t holds only wrapped
 * (LLONG_MIN); unmap_mapping_range reads it back as (u64)holebegin >>
 * PAGE_SHIFT, page 2^51, past every page.  Computed unsigned (no signed
 * overflow), converted as GCC and Clang define it.
 */
static inline int64_t pos_round_up_page(int64_t pos)
{
	return (int64_t)(((uint64_t)pos + PAGE_SIZE - 1) & (uint64_t)PAGE_MASK);
}

/* ------------------------------------------------------------------ */
/* xarray: RCU-readable sparse index -> pointer map                    */
/* ------------------------------------------------------------------ */

#define XA_CHUNK_SHIFT 6
#define XA_CHUNK_SIZE  (1 << XA_CHUNK_SHIFT)

struct xa_node;
struct xarray {
	struct xa_node *xa_head; /* RCU-published root; NULL when empty */
	unsigned long nr;	 /* entries; under the writer's lock */
};
static inline void xa_init(struct xarray *xa)
{
	xa->xa_head = NULL;
	xa->nr = 0;
}
/* Entry at index (NULL if none).  Caller holds rcu_read_lock or the lock. */
void *xa_load(struct xarray *xa, uint64_t index);
/* Insert a non-NULL entry; -EEXIST if present, -ENOMEM.  Writer's lock held. */
int xa_insert(struct xarray *xa, uint64_t index, void *entry);
/* Allocate the path to index and pin its leaf (0 or -ENOMEM), so that an
 * xa_insert there until xa_release cannot fail for memory (the kernel's
 * xa_reserve, without the reserved entry: the caller holds the index). */
int xa_reserve(struct xarray *xa, uint64_t index);
void xa_release(struct xarray *xa, uint64_t index);
/* Replace (or insert); returns the old entry.  Writer's lock held. */
void *xa_store(struct xarray *xa, uint64_t index, void *entry);
/* Remove; returns the old entry.  Writer's lock held. */
void *xa_erase(struct xarray *xa, uint64_t index);
/* First entry with index in [*index, max]; stores its index.  NULL if none.
 * Under rcu_read_lock or the writer's lock. */
void *xa_find(struct xarray *xa, uint64_t *index, uint64_t max);
/* Free all nodes (entries are the caller's).  No concurrent users. */
void xa_destroy(struct xarray *xa);
static inline bool xa_empty(const struct xarray *xa)
{
	return READ_ONCE(xa->xa_head) == NULL;
}

/* ------------------------------------------------------------------ */
/* folio                                                               */
/* ------------------------------------------------------------------ */

enum pageflags {
	PG_locked = 0, /* folio lock (folio_lock/folio_unlock); sleeping waiters */
	PG_uptodate,   /* data valid */
	PG_dirty,      /* data newer than the backing store */
	PG_writeback,  /* being written to the backing store */
	PG_lru,	       /* on an LRU list (mm) */
	PG_active,     /* on the active LRU (mm) */
	PG_referenced, /* accessed since last scan (mm) */
	PG_anon,       /* anonymous (not in any mapping) */
	PG_mlocked,    /* mlocked (mm) */
	PG_reclaim,    /* being reclaimed (mm) */
	PG_swapbacked, /* free for mm */
	PG_private,    /* folio->private in use (mm) */
	PG_waiters,    /* someone sleeps in folio_lock (hint) */
	PG_stored,     /* the backing store holds this folio's contents as of its
			* fill or last writeback (see folio_store_current) */
	PG_unwritten,  /* fallocated and never written: zeroes that hold a block
			* but read as a hole for SEEK_DATA (shmem's fallocated
			* folio, which it leaves !uptodate; see below) */
	__NR_PAGEFLAGS,
};

#define FOLIO_ALIGN    64
#define FOLIO_PTE_BITS 6 /* low bits of a folio pointer that are always 0 */

struct folio {
	int refcount;		       /* atomic; 0 = free */
	int mapcount;		       /* atomic; PTEs mapping it (mm) */
	unsigned long flags;	       /* atomic PG_* bits */
	struct address_space *mapping; /* under i_pages_lock + PG_locked */
	int64_t index;		       /* page offset in mapping */
	struct list_head lru;	       /* mm's LRU lock; PG_lru */
	void *data;		       /* PAGE_SIZE bytes */
	void *private;		       /* free for mm (anon_vma, swap entry) */
	uint64_t alloc_seq;	       /* bumped at every allocation (debug/tests) */
} __attribute__((aligned(FOLIO_ALIGN)));

static inline uintptr_t folio_to_pteval(const struct folio *f)
{
	return (uintptr_t)f;
}
static inline struct folio *pteval_to_folio(uintptr_t pte)
{
	return (struct folio *)(pte & ~(uintptr_t)(FOLIO_ALIGN - 1));
}

static inline bool folio_test_flag(const struct folio *f, int bit)
{
	return (__atomic_load_n(&f->flags, __ATOMIC_ACQUIRE) >> bit) & 1;
}
static inline void folio_set_flag(struct folio *f, int bit)
{
	__atomic_fetch_or(&f->flags, 1UL << bit, __ATOMIC_RELEASE);
}
static inline void folio_clear_flag(struct folio *f, int bit)
{
	__atomic_fetch_and(&f->flags, ~(1UL << bit), __ATOMIC_RELEASE);
}
/* Set the bit; returns its old value (acquire: a lock bit). */
static inline bool folio_test_set_flag(struct folio *f, int bit)
{
	return (__atomic_fetch_or(&f->flags, 1UL << bit, __ATOMIC_ACQ_REL) >> bit) & 1;
}
static inline bool folio_test_clear_flag(struct folio *f, int bit)
{
	return (__atomic_fetch_and(&f->flags, ~(1UL << bit), __ATOMIC_ACQ_REL) >> bit) & 1;
}
#define folio_test_uptodate(f) folio_test_flag((f), PG_uptodate)
#define folio_test_dirty(f)    folio_test_flag((f), PG_dirty)
#define folio_test_locked(f)   folio_test_flag((f), PG_locked)
#define folio_test_lru(f)      folio_test_flag((f), PG_lru)
#define folio_test_anon(f)     folio_test_flag((f), PG_anon)
/* Data written before this is visible to whoever sees PG_uptodate. */
static inline void folio_mark_uptodate(struct folio *f)
{
	folio_set_flag(f, PG_uptodate);
}
void folio_mark_dirty(struct folio *f);
/*
 * Whether the backing store holds this folio's current contents: it was
 * filled from the store or written back (PG_stored) and not modified since
 * (PG_dirty clear).  Only such a folio may leave the cache without I/O.  A
 * folio created for an index the store does not hold (fallocate, a hole
 * zero-filled by a fault, a write) is not, even while clean.  Stable while
 * the folio is locked and unmapped.
 */
static inline bool folio_store_current(const struct folio *f)
{
	unsigned long fl = __atomic_load_n(&f->flags, __ATOMIC_ACQUIRE);

	return (fl & (1UL << PG_stored | 1UL << PG_dirty)) == 1UL << PG_stored;
}

static inline int folio_ref_count(const struct folio *f)
{
	return __atomic_load_n(&f->refcount, __ATOMIC_RELAXED);
}
static inline void folio_get(struct folio *f)
{
	__atomic_fetch_add(&f->refcount, 1, __ATOMIC_RELAXED);
}
/* get-unless-zero: false if the folio is free (being freed or reused). */
static inline bool folio_try_get(struct folio *f)
{
	int c = __atomic_load_n(&f->refcount, __ATOMIC_RELAXED);

	do {
		if (c == 0)
			return false;
	} while (!__atomic_compare_exchange_n(&f->refcount, &c, c + 1, true, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	return true;
}
void __folio_free(struct folio *f);
static inline void folio_put(struct folio *f)
{
	if (__atomic_sub_fetch(&f->refcount, 1, __ATOMIC_ACQ_REL) == 0)
		__folio_free(f);
}
static inline int folio_mapcount(const struct folio *f)
{
	return __atomic_load_n(&f->mapcount, __ATOMIC_RELAXED);
}

/* Sleeping folio lock (hashed wait queues); may sleep, never under RCU. */
void folio_lock(struct folio *f);
bool folio_trylock(struct folio *f);
void folio_unlock(struct folio *f);
/* Wait until PG_locked is clear without taking it. */
void folio_wait_locked(struct folio *f);

/* An anonymous folio: refcount 1, zeroed data, PG_anon, no mapping.
 * NULL on allocation failure. */
struct folio *folio_alloc(void);
/* Live folios (allocated, not freed) in the instance: leak checks. */
long folio_count_live(void);

/* ------------------------------------------------------------------ */
/* backing store                                                       */
/* ------------------------------------------------------------------ */

struct backing_store_ops {
	const char *name;
	/* Fill folio->data for folio->index (zeroes where the store has
	 * nothing).  Folio locked.  May sleep.  0 or -errno. */
	int (*read_folio)(struct address_space *mapping, struct folio *folio);
	/* Copy folio->data into the store.  Folio locked.  0 or -errno. */
	int (*writeback_folio)(struct address_space *mapping, struct folio *folio);
	/* Whether the store holds index. */
	bool (*has_index)(struct address_space *mapping, int64_t index);
	/* First index >= index held by the store, or -1. */
	int64_t (*next_index)(struct address_space *mapping, int64_t index);
	/* Drop indices in [start, end] (end < 0: to infinity); number dropped. */
	long (*truncate)(struct address_space *mapping, int64_t start, int64_t end);
	/* The mapping goes away: free the store's state. */
	void (*release)(struct address_space *mapping);
};
extern const struct backing_store_ops memstore_ops;

/* ------------------------------------------------------------------ */
/* address_space                                                       */
/* ------------------------------------------------------------------ */

struct address_space {
	struct inode *host;
	spinlock_t i_pages_lock; /* the mapping lock (see top) */
	struct xarray i_pages;	 /* index -> folio; RCU readable */
	unsigned long nrpages;	 /* folios in i_pages; i_pages_lock */
	long nrblocks;		 /* atomic; pages in cache or store */
	struct rw_semaphore invalidate_lock;
	struct rw_semaphore i_mmap_rwsem;
	struct list_head i_mmap; /* VMAs (mm's nodes); i_mmap_rwsem */
	void *i_mmap_private;	 /* free for mm; i_mmap_rwsem */
	const struct backing_store_ops *a_store;
	void *store_private; /* the store's per-mapping state */
	void *private_data;  /* free for mm/reclaim */
};

/*
 * Look up the folio at index: RCU lookup + folio_try_get + re-validation.
 * Returns a referenced folio (maybe not uptodate if someone is filling it:
 * lock it to wait) or NULL.  Never sleeps.
 */
struct folio *filemap_get_folio(struct address_space *mapping, int64_t index);

#define FGP_LOCK   0x1 /* return the folio locked */
#define FGP_CREAT  0x2 /* create it if absent (reserving space) */
#define FGP_NOFILL 0x4 /* with FGP_CREAT: caller overwrites the whole page; skip read */
#define FGP_FALLOC                                                                                 \
	0x8 /* fallocate (shmem's SGP_FALLOC): a folio it creates is                               \
	     * PG_unwritten; an existing PG_unwritten one becomes data */
/*
 * Find or create the folio at index.  With FGP_CREAT a missing folio is
 * allocated (a block reserved from the superblock if the store does not
 * hold the index: -ENOSPC), filled from the store (or zeroed) unless
 * FGP_NOFILL, marked uptodate, inserted.  Returns 0 with *out referenced
 * (and locked with FGP_LOCK), -ENOENT without FGP_CREAT, -ENOSPC, -ENOMEM.
 * May sleep.
 */
int filemap_grab_folio(struct address_space *mapping, int64_t index, unsigned fgp,
		       struct folio **out);
/* The same; *did_read tells whether this call read the folio from the store. */
int __filemap_grab_folio(struct address_space *mapping, int64_t index, unsigned fgp,
			 struct folio **out, bool *did_read);
/* Insert a locked folio at index; the cache takes its own reference.
 * 0 or -EEXIST.  Does no space accounting. */
int filemap_add_folio(struct address_space *mapping, struct folio *folio, int64_t index);
/* Remove a locked folio from its mapping (reclaim); drops the cache's
 * reference; its space stays accounted (the store holds the index).
 * Returns 0, or -EBUSY (nothing done) when the store does not hold the
 * folio's current contents (folio_store_current): write it back first. */
int filemap_remove_folio(struct folio *folio);
/* Make the store hold a locked folio's current contents: write it back
 * when it is dirty or was never stored (clears PG_dirty, sets PG_stored);
 * 0 at once when folio_store_current already.  A mapped folio first goes
 * through vfs_hooks.folio_mkclean, so writes made through a shared mapping
 * (dirty only in a PTE) count as dirty.  0 or -errno. */
int filemap_writeback_folio(struct folio *folio);
/* filemap_writeback_folio on every cached folio in [start, end] bytes
 * (fsync): afterwards the store holds the range as the cache has it. */
int filemap_write_and_wait_range(struct address_space *mapping, int64_t start, int64_t end);
/* Remove every folio at or beyond byte lstart (partial first folio is zeroed
 * past lstart) and drop the store's pages there.  Caller holds
 * invalidate_lock exclusive (truncate_pagecache does). */
void truncate_inode_pages(struct address_space *mapping, int64_t lstart);
/* The kernel's truncate_inode_pages_range: bytes [lstart, lend] (lend < 0:
 * to the end).  Whole folios inside are removed (a folio still mapped is
 * first unmapped under its lock, as truncate_cleanup_folio does), partial
 * ones zeroed over the range; the store drops its whole pages inside and
 * their blocks are released.  Caller holds invalidate_lock exclusive. */
void truncate_inode_pages_range(struct address_space *mapping, int64_t lstart, int64_t lend);
/* fallocate's undo on failure (shmem_undo_range with unfalloc): remove the
 * folios of [start, end] pages that are still PG_unwritten, releasing their
 * blocks.  Caller holds i_rwsem exclusive. */
void filemap_unfalloc_range(struct address_space *mapping, int64_t start, int64_t end);
/* First byte >= pos that has data (SEEK_DATA) / no data (SEEK_HOLE) with
 * page granularity, not beyond `end`; returns end if none.  A PG_unwritten
 * folio is a hole, as shmem's !uptodate fallocated folio is to
 * mapping_seek_hole_data. */
int64_t mapping_seek_data(struct address_space *mapping, int64_t pos, int64_t end, bool data);
/* Copy bytes out of / into the cache at pos (no i_size logic; used by the
 * file operations).  read: holes read as zeroes, no allocation. */
ssize_t filemap_read_at(struct address_space *mapping, void *buf, size_t count, int64_t pos);
ssize_t filemap_write_at(struct address_space *mapping, const void *buf, size_t count, int64_t pos);

#endif
