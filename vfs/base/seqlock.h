/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/seqlock.h - seqcount_t and seqlock_t.
 *
 * Locking: writers of a seqcount_t are serialized by a lock the user names;
 * seqlock_t carries its own spinlock_t for that.  Readers take no lock and
 * retry.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_SEQLOCK_H
#define RCUVFS_VFS_BASE_SEQLOCK_H

#include "vfs/base/spinlock.h"

/*
 * Writers of a seqcount_t must be serialized by the caller (a lock the
 * comment at the seqcount names).  Readers retry while the count is odd or
 * changed.  The read barriers pair with the write barriers in
 * write_seqcount_begin/end.
 */
typedef struct {
	uint32_t sequence;
} seqcount_t;
#define SEQCNT_ZERO                                                                                \
	{                                                                                          \
		0                                                                                  \
	}
static inline void seqcount_init(seqcount_t *s)
{
	s->sequence = 0;
}
static __always_inline uint32_t raw_read_seqcount(const seqcount_t *s)
{
	uint32_t seq = __atomic_load_n(&s->sequence, __ATOMIC_ACQUIRE);
	return seq;
}
static __always_inline uint32_t read_seqcount_begin(const seqcount_t *s)
{
	uint32_t seq;

	RV_XPOINT(RV_XP_SEQ_BEGIN, s, 0);
	while (unlikely((seq = __atomic_load_n(&s->sequence, __ATOMIC_ACQUIRE)) & 1) &&
	       !RV_MUTANT(seqcount_begin_no_wait))
		cpu_relax();
	return seq;
}
static __always_inline bool read_seqcount_retry(const seqcount_t *s, uint32_t start)
{
	RV_XPOINT(RV_XP_SEQ_RETRY, s, 0);
	smp_rmb(); /* pairs with smp_wmb() in write_seqcount_begin/end */
	return unlikely(__atomic_load_n(&s->sequence, __ATOMIC_RELAXED) != start);
}
static __always_inline void write_seqcount_begin(seqcount_t *s)
{
	__atomic_store_n(&s->sequence, s->sequence + 1, __ATOMIC_RELAXED);
	smp_wmb(); /* pairs with smp_rmb() in read_seqcount_retry */
}
static __always_inline void write_seqcount_end(seqcount_t *s)
{
	smp_wmb();
	__atomic_store_n(&s->sequence, s->sequence + 1, __ATOMIC_RELAXED);
}
/* Invalidate all readers (d_seq on unhash) without a write section. */
static inline void write_seqcount_invalidate(seqcount_t *s)
{
	smp_wmb();
	__atomic_store_n(&s->sequence, s->sequence + 2, __ATOMIC_RELAXED);
}

typedef struct {
	seqcount_t seqcount;
	spinlock_t lock;
} seqlock_t;
static inline void seqlock_init(seqlock_t *sl)
{
	seqcount_init(&sl->seqcount);
	spin_lock_init(&sl->lock);
}
static __always_inline uint32_t read_seqbegin(const seqlock_t *sl)
{
	return read_seqcount_begin(&sl->seqcount);
}
static __always_inline bool read_seqretry(const seqlock_t *sl, uint32_t start)
{
	return read_seqcount_retry(&sl->seqcount, start);
}
static inline void write_seqlock(seqlock_t *sl)
{
	spin_lock(&sl->lock);
	write_seqcount_begin(&sl->seqcount);
}
static inline void write_sequnlock(seqlock_t *sl)
{
	write_seqcount_end(&sl->seqcount);
	spin_unlock(&sl->lock);
}

#endif /* RCUVFS_VFS_BASE_SEQLOCK_H */
