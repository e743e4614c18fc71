// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * locks/owner.c - per-owner accounting of lock records: the model's
 * ENOLCK limit (Linux has no per-owner limit; its only limit is memory).
 *
 * Each POSIX/OFD owner that holds or held locks has a struct owner_acct in
 * owner_hash: the records charged to it and one spare record for its next
 * lock.  Locking: a record's fields and its bucket's list and idle count
 * are under the bucket's spinlock; nothing else is taken under it, and
 * allocations and frees happen outside it.  The engine charges a record
 * before it takes any lock-list lock and uncharges after it dropped them,
 * so the list locks and a bucket lock are never held together.  The
 * uncontended lock path uses the inline owner_charge_spare and
 * owner_uncharge_one (internal.h) with a per-thread cache of the last
 * owner (lk_owner_last, validated by owner_gen); owner_gen is bumped under
 * a bucket lock whenever a record leaves its bucket.
 */
#include "locks/internal.h"

#include <stdio.h>

struct owner_bucket owner_hash[OWNER_HASH_SIZE];
long lk_owner_limit = LOCKS_OWNER_LIMIT_DEFAULT;
unsigned long owner_gen;
__thread __tls_hot struct owner_last lk_owner_last;

static inline void owner_gen_bump(void)
{
	__atomic_store_n(&owner_gen, owner_gen + 1, __ATOMIC_RELAXED);
}

/* Records come from a cache; idle ones are kept (OWNER_IDLE_MAX). */
static struct kmem_cache *owner_cache;

static void owner_free(struct owner_acct *a)
{
	if (a) {
		if (a->spare)
			kmem_cache_free(filelock_cache, a->spare);
		kmem_cache_free(owner_cache, a);
	}
}

/*
 * Charge n lock records to owner; -ENOLCK over the limit or without memory.
 * On success *rec (if non-NULL) gets the owner's spare record, or NULL.
 */
int owner_charge(fl_owner_t owner, long n, struct file_lock **rec)
{
	struct owner_bucket *b = owner_bucket(owner);
	struct owner_acct *a, *spare = NULL;
	int ret = 0;

	spin_lock(&b->lock);
	a = owner_find(b, owner);
	if (!a) {
		/* allocate outside the bucket lock, then look again */
		spin_unlock(&b->lock);
		spare = kmem_cache_alloc(owner_cache);
		if (!spare)
			return -ENOLCK;
		/* a recycled record still holds its last owner's freed spare;
		 * owner_free() below must not free that again when another
		 * thread inserted this owner meanwhile */
		spare->spare = NULL;
		RV_INJECT("owner_charge_unlocked");
		spin_lock(&b->lock);
		a = owner_find(b, owner);
		if (!a) {
			a = spare;
			spare = NULL;
			a->owner = owner;
			a->count = 0;
			list_add(&a->link, &b->head);
			b->idle++;
		}
	}
	if (a->count + n > READ_ONCE(lk_owner_limit)) {
		ret = -ENOLCK;
		if (!a->count && b->idle > OWNER_IDLE_MAX) {
			list_del_init(&a->link);
			owner_gen_bump();
			b->idle--;
			spare = a;
		}
	} else {
		if (!a->count)
			b->idle--;
		a->count += n;
		if (rec) {
			*rec = a->spare;
			a->spare = NULL;
		}
	}
	spin_unlock(&b->lock);
	owner_free(spare);
	return ret;
}

/*
 * Uncharge n records; rec (if non-NULL) is a freed record of the owner, in
 * the constructed state, kept as its spare when it has none (so an owner
 * that locks and unlocks in turn reuses one record), else freed.
 */
void owner_uncharge(fl_owner_t owner, long n, struct file_lock *rec)
{
	struct owner_bucket *b = owner_bucket(owner);
	struct owner_acct *a, *dead = NULL;

	if (!n)
		return;
	spin_lock(&b->lock);
	a = owner_find(b, owner);
	if (a) {
		a->count -= n;
		if (a->count <= 0) {
			a->count = 0;
			if (b->idle < OWNER_IDLE_MAX) {
				b->idle++;
			} else {
				list_del_init(&a->link);
				owner_gen_bump();
				dead = a;
			}
		}
		if (rec && !dead && !a->spare) {
			a->spare = rec;
			rec = NULL;
		}
	}
	spin_unlock(&b->lock);
	if (rec)
		kmem_cache_free(filelock_cache, rec);
	if (!a)
		fprintf(stderr, "rcuvfs: locks: uncharge of unknown owner %p\n", owner);
	owner_free(dead);
}

long locks_set_owner_limit(long limit)
{
	return __atomic_exchange_n(&lk_owner_limit, limit, __ATOMIC_RELAXED);
}

long locks_owner_limit(void)
{
	return READ_ONCE(lk_owner_limit);
}

/* At instance creation, after the lock record cache (owner_free uses it). */
int owner_init(void)
{
	for (int i = 0; i < OWNER_HASH_SIZE; i++) {
		spin_lock_init(&owner_hash[i].lock);
		INIT_LIST_HEAD(&owner_hash[i].head);
		owner_hash[i].idle = 0;
	}
	owner_cache = kmem_cache_create("file_lock_owner", sizeof(struct owner_acct), 0, 0, NULL);
	return owner_cache ? 0 : -ENOMEM;
}

/*
 * At teardown, before the lock record cache goes: frees every record (and
 * its spare); report: print the owners still charged.  -EBUSY if the
 * cache still had objects.
 */
int owner_teardown(bool report)
{
	int ret = 0;

	for (int i = 0; i < OWNER_HASH_SIZE; i++) {
		while (!list_empty(&owner_hash[i].head)) {
			struct owner_acct *a =
			    list_first_entry(&owner_hash[i].head, struct owner_acct, link);

			if (report && a->count)
				fprintf(stderr, "rcuvfs: locks: owner %p still charged %ld\n",
					a->owner, a->count);
			list_del_init(&a->link);
			owner_gen_bump();
			owner_free(a);
		}
	}
	if (owner_cache && kmem_cache_destroy(owner_cache))
		ret = -EBUSY;
	owner_cache = NULL;
	return ret;
}
