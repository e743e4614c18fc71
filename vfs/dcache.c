// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/dcache.c - dentries: allocation, the dcache hash (cds_lfht keyed by
 * (parent, name)), lockless and referenced lookups, dput and killing,
 * negative dentries, d_move/d_exchange for rename.
 *
 * Locking (see also vfs/fs.h):
 *   d_lock (the spinlock inside d_lockref) protects d_flags, d_inode,
 *   d_hashnode, d_subdirs of this dentry (its children list) and the count
 *   when it is changed under the lock.  A child's d_lock may be taken while
 *   holding its parent's d_lock (shrink_dcache_parent_negative); never the
 *   other way round: dget_parent is lockless and dput drops the child's lock
 *   before it takes the parent's.
 *   d_seq is written under d_lock whenever d_inode, d_name or d_parent
 *   change and invalidated when the dentry is unhashed; RCU walkers sample
 *   it before reading those fields and validate it after (namei.c).
 *   d_name/d_parent change only in d_move/d_exchange, with s_rename_lock
 *   write-held so that a lockless lookup that *misses* can tell that a
 *   rename was in flight and retry (the kernel's rename_lock).
 *   Hash insertion into a directory's key space happens only under that
 *   directory's i_rwsem: exclusive for create/rename, shared for
 *   d_lookup_or_alloc, which uses cds_lfht_add_unique so two concurrent
 *   lookups of the same missing name agree on one negative dentry.
 *
 * Names: a name shorter than DNAME_INLINE_LEN lives in d_iname, longer
 * ones in an external buffer freed after a grace period.  Names are always
 * NUL-terminated and d_iname[DNAME_INLINE_LEN-1] is always NUL, so a racing
 * RCU reader comparing byte by byte never reads past a buffer; it may see a
 * torn name, which the d_seq validation rejects.
 *
 * Lifetime: a dentry holds a reference on its parent and, when positive, on
 * its inode.  Linked dentries carry DCACHE_PERSISTENT and one extra
 * reference (tmpfs pins its dentries: the dcache is the directory).  The
 * last dput of an unhashed dentry (or of a surplus negative one) kills it:
 * marked dead under d_lock (lockref_get_not_dead then fails), unhashed, off
 * its parent's list, inode and parent references dropped, memory freed
 * after a grace period.
 */
#include "vfs/internal.h"

#include <stdlib.h>
#include <string.h>
#include <urcu/rculfhash.h>

#define NEGATIVE_DENTRIES_MAX 4096  /* unused negatives kept beyond this are killed */
#define DCACHE_NEGCOUNTED     0x100 /* counted in s_nr_negative */
#define DCACHE_SHRINK_VISITED 0x200 /* teardown walk */

struct d_hash_node {
	struct cds_lfht_node node;
	struct dentry *dentry;
	struct dentry *parent; /* the key's parent at hashing time */
	struct rcu_head rcu;
};

struct external_name {
	struct rcu_head rcu;
	char name[];
};

struct dkey {
	const struct dentry *parent;
	const char *name;
	uint32_t len;
};

static struct kmem_cache *dentry_cachep;

RV_STAT_DEFINE(dentry_allocs, "dentries allocated");
RV_STAT_DEFINE(dentry_kills, "dentries killed (last dput of an unhashed or surplus dentry)");
RV_STAT_DEFINE(d_lookup_rename_retries, "d_lookup misses retried because a rename ran");

uint32_t d_name_hash(const struct dentry *parent, const char *name, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ ((uintptr_t)parent >> 6);

	for (uint32_t i = 0; i < len; i++) {
		h ^= (unsigned char)name[i];
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return (uint32_t)h;
}

/* Byte-wise compare against a possibly changing name; see the top comment. */
static bool d_name_eq(const struct dentry *d, const char *name, uint32_t len)
{
	const char *dn = __atomic_load_n(&d->d_name.name, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < len; i++)
		if (READ_ONCE(dn[i]) != name[i])
			return false;
	return READ_ONCE(dn[len]) == 0;
}

static int d_hash_match(struct cds_lfht_node *node, const void *key)
{
	const struct dkey *k = key;
	struct d_hash_node *hn = caa_container_of(node, struct d_hash_node, node);
	struct dentry *d = hn->dentry;

	if (hn->parent != k->parent || READ_ONCE(d->d_parent) != k->parent)
		return 0;
	if (__lockref_is_dead(&d->d_lockref))
		return 0;
	return d_name_eq(d, k->name, k->len);
}

static void d_hash_node_free_rcu(struct rcu_head *head)
{
	free(container_of(head, struct d_hash_node, rcu));
}

/* d_lock held.  Publishes d under (d_parent, d_name) with hn, allocated
 * beforehand (the kernel's d_hash links the dentry's own hlist node and
 * cannot fail; the model's hash table takes a node per hashing). */
static void d_hash_add(struct dentry *d, struct d_hash_node *hn)
{
	hn->dentry = d;
	hn->parent = d->d_parent;
	rcu_read_lock();
	cds_lfht_add(d->d_sb->s_dcache, d->d_name.hash, &hn->node);
	rcu_read_unlock();
	d->d_hashnode = hn;
	WRITE_ONCE(d->d_flags, d->d_flags | DCACHE_HASHED);
}

/* d_lock held. */
static void d_hash_del(struct dentry *d)
{
	struct d_hash_node *hn = d->d_hashnode;

	if (!hn)
		return;
	rcu_read_lock();
	cds_lfht_del(d->d_sb->s_dcache, &hn->node);
	rcu_read_unlock();
	d->d_hashnode = NULL;
	WRITE_ONCE(d->d_flags, d->d_flags & ~DCACHE_HASHED);
	rv_call_rcu(&hn->rcu, d_hash_node_free_rcu);
}

static void neg_account(struct dentry *d)
{
	bool want = d->d_inode == NULL && (d->d_flags & DCACHE_HASHED);
	bool have = d->d_flags & DCACHE_NEGCOUNTED;

	if (want == have)
		return;
	if (want) {
		d->d_flags |= DCACHE_NEGCOUNTED;
		__atomic_fetch_add(&d->d_sb->s_nr_negative, 1, __ATOMIC_RELAXED);
	} else {
		d->d_flags &= ~DCACHE_NEGCOUNTED;
		__atomic_fetch_sub(&d->d_sb->s_nr_negative, 1, __ATOMIC_RELAXED);
	}
}

static void external_name_free_rcu(struct rcu_head *head)
{
	free(container_of(head, struct external_name, rcu));
}

static struct d_hash_node *d_hash_node_alloc(void)
{
	return rv_malloc("d_hash_node", sizeof(struct d_hash_node));
}

/* The storage of a name too long for d_iname, or NULL with none needed. */
static int external_name_alloc(uint32_t len, struct external_name **out)
{
	*out = NULL;
	if (len < DNAME_INLINE_LEN)
		return 0;
	*out = rv_malloc("external_name", sizeof(struct external_name) + len + 1);
	return *out ? 0 : -ENOMEM;
}

/*
 * d_lock held (and d_seq write section for a live dentry).  ext: from
 * external_name_alloc(len), so that a rename, past its point of no return
 * here, allocates nothing (the kernel's __d_move swaps or copies names).
 */
static void d_set_name(struct dentry *d, const char *name, uint32_t len, struct external_name *ext)
{
	const char *old = d->d_name.name;
	bool old_ext = old && old != d->d_iname;

	if (len < DNAME_INLINE_LEN) {
		/* in place if inline already: readers stay bounded by the
		 * always-NUL last byte and are rejected by d_seq */
		for (uint32_t i = 0; i < len; i++)
			WRITE_ONCE(d->d_iname[i], name[i]);
		WRITE_ONCE(d->d_iname[len], 0);
		__atomic_store_n(&d->d_name.name, (const char *)d->d_iname, __ATOMIC_RELEASE);
	} else {
		memcpy(ext->name, name, len);
		ext->name[len] = 0;
		/* release: the bytes above before the pointer (pairs with the
		 * acquire in d_name_eq) */
		__atomic_store_n(&d->d_name.name, (const char *)ext->name, __ATOMIC_RELEASE);
	}
	d->d_name.len = len;
	d->d_name.hash = d_name_hash(d->d_parent, name, len);
	if (old_ext)
		rv_call_rcu(&container_of(old, struct external_name, name[0])->rcu,
			    external_name_free_rcu);
}

static struct dentry *__d_alloc(struct super_block *sb)
{
	struct dentry *d = kmem_cache_zalloc(dentry_cachep);

	if (!d)
		return NULL;
	lockref_init(&d->d_lockref, 1);
	seqcount_init(&d->d_seq);
	INIT_LIST_HEAD(&d->d_child);
	INIT_LIST_HEAD(&d->d_subdirs);
	d->d_sb = sb;
	d->d_iname[DNAME_INLINE_LEN - 1] = 0;
	__atomic_fetch_add(&sb->s_nr_dentries, 1, __ATOMIC_RELAXED);
	rv_stat_inc(dentry_allocs);
	return d;
}

static struct dentry *d_alloc(struct dentry *parent, const char *name, uint32_t len)
{
	struct external_name *ext;
	struct dentry *d;

	if (external_name_alloc(len, &ext))
		return NULL;
	d = __d_alloc(parent->d_sb);
	if (!d) {
		free(ext);
		return NULL;
	}
	d->d_parent = parent;
	d_set_name(d, name, len, ext);
	spin_lock(&parent->d_lockref.lock);
	parent->d_lockref.count++;
	list_add_tail(&d->d_child, &parent->d_subdirs);
	spin_unlock(&parent->d_lockref.lock);
	return d;
}

struct dentry *d_alloc_root(struct inode *inode)
{
	struct dentry *d = __d_alloc(inode->i_sb);

	if (!d)
		return NULL;
	d->d_parent = d;
	d_set_name(d, "/", 1, NULL);
	d->d_inode = inode;
	d->d_flags = DCACHE_ROOT | DCACHE_PERSISTENT;
	inode->i_dentry = d;
	return d;
}

static void d_free_rcu(struct rcu_head *head)
{
	struct dentry *d = container_of(head, struct dentry, d_rcu);

	if (d->d_name.name != d->d_iname)
		free(container_of(d->d_name.name, struct external_name, name[0]));
	kmem_cache_free(dentry_cachep, d);
}

static void d_clear_alias(struct dentry *d, struct inode *inode)
{
	spin_lock(&inode->i_lock);
	if (inode->i_dentry == d)
		inode->i_dentry = NULL;
	spin_unlock(&inode->i_lock);
}

/* d_lock held. */
static void __d_drop(struct dentry *d)
{
	if (d->d_flags & DCACHE_HASHED) {
		d_hash_del(d);
		neg_account(d);
		/* walkers that sampled d_seq before this fail validation */
		write_seqcount_invalidate(&d->d_seq);
	}
}

void d_drop(struct dentry *d)
{
	spin_lock(&d->d_lockref.lock);
	__d_drop(d);
	spin_unlock(&d->d_lockref.lock);
}

/* d_lock held, count 0 or 1 owned by us: decide whether to keep it. */
static bool retain_dentry(struct dentry *d)
{
	struct inode *pdir = READ_ONCE(d->d_parent->d_inode);

	if (rv_sb_shutting_down)
		return false;
	if (!(d->d_flags & DCACHE_HASHED))
		return false;
	if (d->d_inode)
		return true;
	/* a negative entry of a removed directory is never looked up again */
	if (!pdir || (READ_ONCE(pdir->i_flags) & S_DEAD))
		return false;
	return __atomic_load_n(&d->d_sb->s_nr_negative, __ATOMIC_RELAXED) <= NEGATIVE_DENTRIES_MAX;
}

/*
 * Kill a dentry whose d_lock we hold and that nobody references (we hold
 * the last count or it is 0).  Drops d_lock.  Returns the parent whose
 * reference the caller must drop (NULL for the root).
 */
static struct dentry *dentry_kill(struct dentry *d)
{
	struct dentry *parent = d->d_parent;
	struct inode *inode = d->d_inode;

	lockref_mark_dead(&d->d_lockref);
	__d_drop(d);
	d->d_flags &= ~DCACHE_NEGCOUNTED;
	spin_unlock(&d->d_lockref.lock);

	if (inode)
		d_clear_alias(d, inode);
	if (parent != d) {
		spin_lock(&parent->d_lockref.lock);
		list_del_init(&d->d_child);
		spin_unlock(&parent->d_lockref.lock);
	} else {
		parent = NULL;
	}
	__atomic_fetch_sub(&d->d_sb->s_nr_dentries, 1, __ATOMIC_RELAXED);
	rv_stat_inc(dentry_kills);
	rv_call_rcu(&d->d_rcu, d_free_rcu);
	if (inode)
		iput(inode);
	return parent;
}

void dput(struct dentry *d)
{
	while (d) {
		if (lockref_put_or_lock(&d->d_lockref))
			return;
		/* d_lock held, count 1: ours, the last one */
		if (retain_dentry(d)) {
			d->d_lockref.count = 0;
			spin_unlock(&d->d_lockref.lock);
			return;
		}
		d = dentry_kill(d);
	}
}

struct dentry *__d_lookup_rcu(struct dentry *parent, const char *name, uint32_t len, uint32_t *seqp)
{
	struct cds_lfht *ht = parent->d_sb->s_dcache;
	struct dkey key = {parent, name, len};
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;

	cds_lfht_lookup(ht, d_name_hash(parent, name, len), d_hash_match, &key, &iter);
	while ((node = cds_lfht_iter_get_node(&iter)) != NULL) {
		struct dentry *d = caa_container_of(node, struct d_hash_node, node)->dentry;
		/* even value: a writer in progress makes the later validation fail */
		uint32_t seq = raw_read_seqcount(&d->d_seq) & ~1u;

		if (READ_ONCE(d->d_parent) == parent && (READ_ONCE(d->d_flags) & DCACHE_HASHED) &&
		    d_name_eq(d, name, len)) {
			*seqp = seq;
			return d;
		}
		cds_lfht_next_duplicate(ht, d_hash_match, &key, &iter);
	}
	return NULL;
}

/* One referenced lookup attempt (no rename retry). */
static struct dentry *__d_lookup(struct dentry *parent, const char *name, uint32_t len)
{
	struct cds_lfht *ht = parent->d_sb->s_dcache;
	struct dkey key = {parent, name, len};
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	struct dentry *found = NULL;

	rcu_read_lock();
	cds_lfht_lookup(ht, d_name_hash(parent, name, len), d_hash_match, &key, &iter);
	while ((node = cds_lfht_iter_get_node(&iter)) != NULL) {
		struct dentry *d = caa_container_of(node, struct d_hash_node, node)->dentry;

		spin_lock(&d->d_lockref.lock);
		if (d->d_parent == parent && (d->d_flags & DCACHE_HASHED) &&
		    d->d_lockref.count >= 0 && d_name_eq(d, name, len)) {
			d->d_lockref.count++;
			spin_unlock(&d->d_lockref.lock);
			found = d;
			break;
		}
		spin_unlock(&d->d_lockref.lock);
		cds_lfht_next_duplicate(ht, d_hash_match, &key, &iter);
	}
	rcu_read_unlock();
	return found;
}

struct dentry *d_lookup(struct dentry *parent, const char *name, uint32_t len)
{
	seqlock_t *rl = &parent->d_sb->s_rename_lock;
	struct dentry *d;
	uint32_t seq;

	for (;;) {
		seq = read_seqbegin(rl);
		d = __d_lookup(parent, name, len);
		if (d || RV_MUTANT(d_lookup_no_rename_retry) || !read_seqretry(rl, seq))
			return d;
		/* a rename moved entries between hash chains meanwhile */
		rv_stat_inc(d_lookup_rename_retries);
	}
}

int d_lookup_or_alloc(struct dentry *parent, const char *name, uint32_t len, struct dentry **out)
{
	struct cds_lfht *ht = parent->d_sb->s_dcache;

	for (;;) {
		struct dentry *d, *n;
		struct d_hash_node *hn;
		struct cds_lfht_node *ret;
		struct dkey key = {parent, name, len};

		struct inode *dir = READ_ONCE(parent->d_inode);

		/* rmdir sets S_DEAD under the directory's i_rwsem, which our
		 * caller holds, before it makes the dentry negative */
		if (!dir || (dir->i_flags & S_DEAD))
			return -ENOENT;
		d = d_lookup(parent, name, len);
		if (d) {
			*out = d;
			return 0;
		}
		n = d_alloc(parent, name, len);
		if (!n)
			return -ENOMEM;
		hn = d_hash_node_alloc();
		if (!hn) {
			spin_lock(&n->d_lockref.lock);
			dentry_kill(n); /* never hashed; drops n's lock */
			dput(parent);
			return -ENOMEM;
		}
		hn->dentry = n;
		hn->parent = parent;
		spin_lock(&n->d_lockref.lock);
		n->d_hashnode = hn;
		n->d_flags |= DCACHE_HASHED;
		rcu_read_lock();
		ret = cds_lfht_add_unique(ht, n->d_name.hash, d_hash_match, &key, &hn->node);
		if (ret == &hn->node) {
			rcu_read_unlock();
			neg_account(n);
			spin_unlock(&n->d_lockref.lock);
			*out = n;
			return 0;
		}
		/* lost a race with another lookup: take the winner's if alive */
		d = caa_container_of(ret, struct d_hash_node, node)->dentry;
		if (!lockref_get_not_dead(&d->d_lockref))
			d = NULL;
		rcu_read_unlock();
		n->d_hashnode = NULL;
		n->d_flags &= ~DCACHE_HASHED;
		free(hn);	/* never published */
		dentry_kill(n); /* drops n's lock; n holds a parent ref */
		dput(parent);
		if (d) {
			*out = d;
			return 0;
		}
		cpu_relax();
	}
}

void d_instantiate(struct dentry *d, struct inode *inode)
{
	spin_lock(&d->d_lockref.lock);
	write_seqcount_begin(&d->d_seq);
	WRITE_ONCE(d->d_inode, inode);
	write_seqcount_end(&d->d_seq);
	neg_account(d);
	spin_unlock(&d->d_lockref.lock);
	spin_lock(&inode->i_lock);
	if (S_ISDIR(inode->i_mode) || !inode->i_dentry)
		inode->i_dentry = d;
	spin_unlock(&inode->i_lock);
}

void d_make_persistent(struct dentry *d)
{
	spin_lock(&d->d_lockref.lock);
	d->d_flags |= DCACHE_PERSISTENT;
	d->d_lockref.count++;
	spin_unlock(&d->d_lockref.lock);
}

void d_delete_persistent(struct dentry *d)
{
	struct inode *inode = NULL;

	spin_lock(&d->d_lockref.lock);
	if (d->d_flags & DCACHE_PERSISTENT) {
		d->d_flags &= ~DCACHE_PERSISTENT;
		d->d_lockref.count--;
	}
	if (d->d_lockref.count == 1 && (d->d_flags & DCACHE_HASHED)) {
		/* only the caller uses it: keep it as a negative dentry */
		inode = d->d_inode;
		write_seqcount_begin(&d->d_seq);
		WRITE_ONCE(d->d_inode, NULL);
		write_seqcount_end(&d->d_seq);
		neg_account(d);
	} else {
		__d_drop(d);
	}
	spin_unlock(&d->d_lockref.lock);
	if (inode) {
		d_clear_alias(d, inode);
		iput(inode);
	}
}

struct dentry *dget_parent(struct dentry *d)
{
	struct dentry *p;

	rcu_read_lock();
	for (;;) {
		uint32_t seq = read_seqcount_begin(&d->d_seq);

		p = READ_ONCE(d->d_parent);
		if (lockref_get_not_dead(&p->d_lockref)) {
			if (RV_MUTANT(dget_parent_no_seq_recheck) ||
			    !read_seqcount_retry(&d->d_seq, seq))
				break;
			rcu_read_unlock();
			dput(p);
			rcu_read_lock();
			continue;
		}
		cpu_relax();
	}
	rcu_read_unlock();
	return p;
}

struct dentry *d_find_alias(struct inode *inode)
{
	struct dentry *d;

	spin_lock(&inode->i_lock);
	d = inode->i_dentry;
	if (d && !lockref_get_not_dead(&d->d_lockref))
		d = NULL;
	spin_unlock(&inode->i_lock);
	return d;
}

bool d_is_ancestor(struct dentry *ancestor, struct dentry *d)
{
	for (;;) {
		if (d == ancestor)
			return true;
		if (d->d_parent == d)
			return false;
		d = d->d_parent;
	}
}

static void d_reparent(struct dentry *d, struct dentry *oldp, struct dentry *newp)
{
	spin_lock(&oldp->d_lockref.lock);
	list_del_init(&d->d_child);
	spin_unlock(&oldp->d_lockref.lock);
	spin_lock(&newp->d_lockref.lock);
	list_add_tail(&d->d_child, &newp->d_subdirs);
	spin_unlock(&newp->d_lockref.lock);
}

void d_move(struct dentry *d, struct dentry *target, struct dentry *newparent, const char *name,
	    uint32_t len, struct d_rename_pre *pre)
{
	seqlock_t *rl = &d->d_sb->s_rename_lock;
	struct dentry *oldparent = d->d_parent;

	/* newparent gains a child reference before anything can see it */
	if (oldparent != newparent)
		dget(newparent);
	write_seqlock(rl);
	if (target) {
		spin_lock(&target->d_lockref.lock);
		if (target->d_flags & DCACHE_PERSISTENT) {
			target->d_flags &= ~DCACHE_PERSISTENT;
			target->d_lockref.count--; /* the caller still holds one */
		}
		__d_drop(target);
		spin_unlock(&target->d_lockref.lock);
	}
	spin_lock(&d->d_lockref.lock);
	write_seqcount_begin(&d->d_seq);
	d_hash_del(d);
	/* neither name is hashed here: lookups that miss see s_rename_lock
	 * odd/changed and retry (tests look into this window) */
	RV_INJECT("d_move_unhashed");
	WRITE_ONCE(d->d_parent, newparent);
	d_set_name(d, name, len, pre->ext[0]);
	d_hash_add(d, pre->hn[0]);
	pre->ext[0] = NULL;
	pre->hn[0] = NULL;
	write_seqcount_end(&d->d_seq);
	spin_unlock(&d->d_lockref.lock);
	write_sequnlock(rl);
	if (oldparent != newparent) {
		d_reparent(d, oldparent, newparent);
		dput(oldparent);
	}
}

int d_rename_prealloc(struct d_rename_pre *pre, uint32_t len0, uint32_t len1)
{
	*pre = (struct d_rename_pre){0};
	if (external_name_alloc(len0, &pre->ext[0]) ||
	    (len1 && external_name_alloc(len1, &pre->ext[1])) ||
	    !(pre->hn[0] = d_hash_node_alloc()) || (len1 && !(pre->hn[1] = d_hash_node_alloc()))) {
		d_rename_pre_free(pre);
		return -ENOMEM;
	}
	return 0;
}

void d_rename_pre_free(struct d_rename_pre *pre)
{
	for (int i = 0; i < 2; i++) {
		free(pre->ext[i]);
		free(pre->hn[i]);
	}
	*pre = (struct d_rename_pre){0};
}

void d_exchange(struct dentry *a, struct dentry *b, struct d_rename_pre *pre)
{
	seqlock_t *rl = &a->d_sb->s_rename_lock;
	struct dentry *pa = a->d_parent, *pb = b->d_parent;
	struct dentry *first = a < b ? a : b, *second = a < b ? b : a;
	char na[NAME_MAX_LEN + 1], nb[NAME_MAX_LEN + 1];
	uint32_t la = a->d_name.len, lb = b->d_name.len;

	memcpy(na, a->d_name.name, la + 1);
	memcpy(nb, b->d_name.name, lb + 1);
	write_seqlock(rl);
	spin_lock(&first->d_lockref.lock);
	spin_lock(&second->d_lockref.lock);
	write_seqcount_begin(&a->d_seq);
	write_seqcount_begin(&b->d_seq);
	d_hash_del(a);
	d_hash_del(b);
	WRITE_ONCE(a->d_parent, pb);
	WRITE_ONCE(b->d_parent, pa);
	d_set_name(a, nb, lb, pre->ext[0]);
	d_set_name(b, na, la, pre->ext[1]);
	d_hash_add(a, pre->hn[0]);
	d_hash_add(b, pre->hn[1]);
	*pre = (struct d_rename_pre){0};
	write_seqcount_end(&b->d_seq);
	write_seqcount_end(&a->d_seq);
	spin_unlock(&second->d_lockref.lock);
	spin_unlock(&first->d_lockref.lock);
	write_sequnlock(rl);
	if (pa != pb) {
		/* each parent keeps one child: counts are unchanged */
		d_reparent(a, pa, pb);
		d_reparent(b, pb, pa);
	}
}

void shrink_dcache_parent_negative(struct dentry *parent)
{
	struct list_head dispose;
	struct dentry *d, *n;
	int killed = 0;

	INIT_LIST_HEAD(&dispose);
	spin_lock(&parent->d_lockref.lock);
	list_for_each_entry_safe(d, n, &parent->d_subdirs, d_child) {
		spin_lock(&d->d_lockref.lock);
		if (d->d_lockref.count == 0 && !d->d_inode) {
			lockref_mark_dead(&d->d_lockref);
			__d_drop(d);
			d->d_flags &= ~DCACHE_NEGCOUNTED;
			list_del_init(&d->d_child);
			list_add(&d->d_child, &dispose);
		}
		spin_unlock(&d->d_lockref.lock);
	}
	spin_unlock(&parent->d_lockref.lock);
	list_for_each_entry_safe(d, n, &dispose, d_child) {
		list_del_init(&d->d_child);
		__atomic_fetch_sub(&d->d_sb->s_nr_dentries, 1, __ATOMIC_RELAXED);
		rv_stat_inc(dentry_kills);
		rv_call_rcu(&d->d_rcu, d_free_rcu);
		killed++;
	}
	/* each killed child held a reference on parent; the caller holds one
	 * more, so this never reaches zero */
	while (killed--)
		dput(parent);
}

/* ---- instance lifecycle ---------------------------------------------- */

int dcache_init(struct super_block *sb)
{
	dentry_cachep =
	    kmem_cache_create("dentry", sizeof(struct dentry), 64, SLAB_HWCACHE_ALIGN, NULL);
	if (!dentry_cachep)
		return -ENOMEM;
	sb->s_dcache = cds_lfht_new_flavor(
	    1024, 1024, 0, CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING, &urcu_memb_flavor, NULL);
	if (!sb->s_dcache) {
		kmem_cache_destroy(dentry_cachep);
		dentry_cachep = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Post-order: unpin and kill every unused dentry below (and including) d. */
static int shrink_tree(struct dentry *d)
{
	int busy = 0;

	for (;;) {
		struct dentry *child = NULL, *c;

		spin_lock(&d->d_lockref.lock);
		list_for_each_entry(c, &d->d_subdirs, d_child) {
			spin_lock(&c->d_lockref.lock);
			if (c->d_lockref.count >= 0 && !(c->d_flags & DCACHE_SHRINK_VISITED)) {
				c->d_lockref.count++;
				c->d_flags |= DCACHE_SHRINK_VISITED;
				child = c;
			}
			spin_unlock(&c->d_lockref.lock);
			if (child)
				break;
		}
		spin_unlock(&d->d_lockref.lock);
		if (!child)
			break;
		busy |= shrink_tree(child);
	}
	spin_lock(&d->d_lockref.lock);
	if (d->d_flags & DCACHE_PERSISTENT) {
		d->d_flags &= ~DCACHE_PERSISTENT;
		d->d_lockref.count--;
	}
	spin_unlock(&d->d_lockref.lock);
	/* the visit reference (root: the persistent one, dropped above, so
	 * take one to drop) */
	if (d->d_flags & DCACHE_ROOT)
		dget(d);
	if (d->d_lockref.count > 1) {
		fprintf(stderr, "rcuvfs: vfs teardown: dentry '%s' still has %d reference(s)\n",
			d->d_name.name, d->d_lockref.count - 1);
		busy = 1;
	}
	dput(d);
	return busy;
}

int dcache_destroy(struct super_block *sb)
{
	int busy = 0;

	if (sb->s_root) {
		busy = shrink_tree(sb->s_root);
		sb->s_root = NULL;
	}
	rcu_barrier(); /* hash nodes and dentries */
	if (busy || __atomic_load_n(&sb->s_nr_dentries, __ATOMIC_RELAXED)) {
		fprintf(stderr, "rcuvfs: vfs teardown: %ld dentries leaked\n", sb->s_nr_dentries);
		return -EBUSY;
	}
	if (cds_lfht_destroy(sb->s_dcache, NULL))
		fprintf(stderr, "rcuvfs: vfs teardown: dcache hash not empty\n");
	sb->s_dcache = NULL;
	if (kmem_cache_destroy(dentry_cachep))
		busy = 1;
	dentry_cachep = NULL;
	return busy ? -EBUSY : 0;
}
