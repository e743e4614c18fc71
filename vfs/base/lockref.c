// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/lockref.c - spinlock + count in one 64-bit word.
 *
 * Each operation first tries to update {lock, count} with a 64-bit cmpxchg
 * while the lock half reads as unlocked, up to LOCKREF_RETRIES times; any
 * update under the lock changes the word and so fails concurrent cmpxchgs.
 * When the lock is held or the retries run out it falls back to taking the
 * spinlock (counted as lockref_fallbacks).
 *
 * The `lockref_relax` switch selects whether a failed cmpxchg executes
 * cpu_relax() before retrying (the kernel did until 2024: docs/history.md).  The
 * switch is read once per call from the read-mostly rv_sw, outside the loop.
 */
#include "vfs/base/base.h"

RV_STAT_DEFINE(lockref_fallbacks, "lockref operations that fell back to the spinlock");
RV_STAT_DEFINE(lockref_cmpxchg_retries, "lockref cmpxchg attempts that lost a race");

/*
 * CMPXCHG_LOOP(cond, update): run `update` on a copy `new` of the word while
 * `cond` holds on it; returns from the caller with `success_ret` on a
 * successful cmpxchg, `fail_ret` when cond is false; falls through to the
 * locked path when the lock is held or the retries are exhausted.
 */
/* CODE and SUCCESS are statements, which clang-format would run together */
/* clang-format off */
#define CMPXCHG_LOOP(CODE, SUCCESS)                                                                \
	do {                                                                                       \
		int __retry = LOCKREF_RETRIES;                                                     \
		const int __relax = rv_sw.lockref_relax;                                           \
		struct lockref old;                                                                \
		RV_SPOINT(RV_XP_LOAD, lockref);                                                    \
		old.lock_count = __atomic_load_n(&lockref->lock_count, __ATOMIC_RELAXED);          \
		while (likely(!spin_is_locked(&old.lock))) {                                       \
			struct lockref new = old;                                                  \
			CODE                                                                       \
			RV_XPOINT(RV_XP_LOCKREF, lockref, 0);                                      \
			if (likely(__atomic_compare_exchange_n(                                    \
				&lockref->lock_count, &old.lock_count, new.lock_count, false,      \
				__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))) {                            \
				SUCCESS;                                                           \
			}                                                                          \
			rv_stat_inc(lockref_cmpxchg_retries);                                      \
			if (__relax && (!RV_XACTIVE() || RV_XSIM())) /* not a wait */              \
				cpu_relax();                                                       \
			if (!--__retry)                                                            \
				break;                                                             \
		}                                                                                  \
		rv_stat_inc(lockref_fallbacks);                                                    \
	} while (0)

void lockref_get(struct lockref *lockref)
{
	CMPXCHG_LOOP(new.count++;, return);

	spin_lock(&lockref->lock);
	lockref->count++;
	spin_unlock(&lockref->lock);
}

bool lockref_get_not_zero(struct lockref *lockref)
{
	bool ret;

	CMPXCHG_LOOP(new.count++; if (old.count <= 0) return false;, return true);

	spin_lock(&lockref->lock);
	ret = false;
	if (lockref->count > 0) {
		lockref->count++;
		ret = true;
	}
	spin_unlock(&lockref->lock);
	return ret;
}

bool lockref_get_not_dead(struct lockref *lockref)
{
	bool ret;

	CMPXCHG_LOOP(new.count++;
		     if (old.count < 0 && !RV_MUTANT(lockref_not_dead_no_check)) return false;
		     , return true);

	spin_lock(&lockref->lock);
	ret = false;
	if (lockref->count >= 0) {
		lockref->count++;
		ret = true;
	}
	spin_unlock(&lockref->lock);
	return ret;
}

bool lockref_put_not_zero(struct lockref *lockref)
{
	bool ret;

	CMPXCHG_LOOP(new.count--; if (old.count <= 1) return false;, return true);

	spin_lock(&lockref->lock);
	ret = false;
	if (lockref->count > 1) {
		lockref->count--;
		ret = true;
	}
	spin_unlock(&lockref->lock);
	return ret;
}

int lockref_put_return(struct lockref *lockref)
{
	CMPXCHG_LOOP(new.count--; if (old.count <= 0) return -1;, return new.count);
	return -1;
}

bool lockref_put_or_lock(struct lockref *lockref)
{
	CMPXCHG_LOOP(new.count--; if (old.count <= 1) break;, return true);

	spin_lock(&lockref->lock);
	if (lockref->count <= 1)
		return false; /* lock held, count untouched */
	lockref->count--;
	spin_unlock(&lockref->lock);
	return true;
}

void lockref_mark_dead(struct lockref *lockref)
{
	lockref->count = -128;
}
/* clang-format on */
