// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/xarray.c - a small RCU-readable radix tree (the kernel's xarray idea,
 * without its internal lock or marks): 64 slots per node, height grows on
 * demand, empty nodes are unlinked and freed after a grace period.
 *
 * Locking: writers (xa_insert/xa_store/xa_erase/xa_destroy) are serialized
 * by a lock the owner names (the mapping's i_pages_lock for page caches, the
 * directory's i_rwsem for readdir offsets).  Readers (xa_load/xa_find) run
 * under rcu_read_lock() or that lock.  A node's shift never changes; slots
 * are published with rcu_assign_pointer (release) and read with
 * rcu_dereference, so a reader that sees a node pointer sees the node
 * initialized.  Growing the tree publishes a new root whose slot 0 is the old
 * root, so a reader that loaded the old root still finds every entry whose
 * index fits it.  The root is never shrunk in height (only freed when empty).
 */
#include "vfs/vfs.h"

#include <stdlib.h>
#include <string.h>

struct xa_node {
	void *slots[XA_CHUNK_SIZE];
	struct xa_node *parent;
	unsigned int offset; /* slot in parent */
	unsigned int count;  /* non-NULL slots; writer's lock */
	unsigned int shift;  /* bits below this level; 0 for leaves */
	struct rcu_head rcu;
};

static long xa_nodes_live; /* atomic; leak checks */

long xa_nodes_count(void);
long xa_nodes_count(void)
{
	return __atomic_load_n(&xa_nodes_live, __ATOMIC_RELAXED);
}

static struct xa_node *xa_node_alloc(unsigned int shift, struct xa_node *parent, unsigned offset)
{
	struct xa_node *n = rv_calloc("xa_node", 1, sizeof(*n));

	if (!n)
		return NULL;
	n->shift = shift;
	n->parent = parent;
	n->offset = offset;
	__atomic_fetch_add(&xa_nodes_live, 1, __ATOMIC_RELAXED);
	return n;
}

static void xa_node_free_rcu(struct rcu_head *head)
{
	struct xa_node *n = container_of(head, struct xa_node, rcu);

	free(n);
	__atomic_fetch_sub(&xa_nodes_live, 1, __ATOMIC_RELAXED);
}

static inline uint64_t xa_node_max(const struct xa_node *n)
{
	unsigned int bits = n->shift + XA_CHUNK_SHIFT;

	return bits >= 64 ? UINT64_MAX : (1ULL << bits) - 1;
}

void *xa_load(struct xarray *xa, uint64_t index)
{
	struct xa_node *n = rcu_dereference(xa->xa_head);

	if (!n || index > xa_node_max(n))
		return NULL;
	for (;;) {
		void *e = rcu_dereference(n->slots[(index >> n->shift) & (XA_CHUNK_SIZE - 1)]);

		if (!e || n->shift == 0)
			return e;
		n = e;
	}
}

/* Grow the root until index fits; 0 or -ENOMEM. */
static int xa_expand(struct xarray *xa, uint64_t index)
{
	struct xa_node *root = xa->xa_head;

	if (!root) {
		unsigned int shift = 0;

		while (shift + XA_CHUNK_SHIFT < 64 && (index >> (shift + XA_CHUNK_SHIFT)))
			shift += XA_CHUNK_SHIFT;
		root = xa_node_alloc(shift, NULL, 0);
		if (!root)
			return -ENOMEM;
		rcu_assign_pointer(xa->xa_head, root);
		return 0;
	}
	while (index > xa_node_max(root)) {
		struct xa_node *top = xa_node_alloc(root->shift + XA_CHUNK_SHIFT, NULL, 0);

		if (!top)
			return -ENOMEM;
		top->slots[0] = root;
		top->count = 1;
		root->parent = top;
		root->offset = 0;
		/* publish after top is fully built (release in rcu_assign_pointer) */
		rcu_assign_pointer(xa->xa_head, top);
		root = top;
	}
	return 0;
}

/* Leaf node holding index, creating the path when create; NULL otherwise. */
static struct xa_node *xa_leaf(struct xarray *xa, uint64_t index, bool create)
{
	struct xa_node *n;

	if (create && xa_expand(xa, index))
		return NULL;
	n = xa->xa_head;
	if (!n || index > xa_node_max(n))
		return NULL;
	while (n->shift) {
		unsigned off = (index >> n->shift) & (XA_CHUNK_SIZE - 1);
		struct xa_node *c = n->slots[off];

		if (!c) {
			if (!create)
				return NULL;
			c = xa_node_alloc(n->shift - XA_CHUNK_SHIFT, n, off);
			if (!c)
				return NULL;
			n->count++;
			rcu_assign_pointer(n->slots[off], c);
		}
		n = c;
	}
	return n;
}

/* Free empty nodes from n upwards. */
static void xa_shrink(struct xarray *xa, struct xa_node *n)
{
	while (n && n->count == 0) {
		struct xa_node *parent = n->parent;

		if (parent) {
			rcu_assign_pointer(parent->slots[n->offset], NULL);
			parent->count--;
		} else {
			rcu_assign_pointer(xa->xa_head, NULL);
		}
		rv_call_rcu(&n->rcu, xa_node_free_rcu);
		n = parent;
	}
}

int xa_reserve(struct xarray *xa, uint64_t index)
{
	struct xa_node *leaf = xa_leaf(xa, index, true);

	if (!leaf)
		return -ENOMEM;
	leaf->count++; /* a pin: the leaf outlives erasures until the release */
	return 0;
}

void xa_release(struct xarray *xa, uint64_t index)
{
	struct xa_node *leaf = xa_leaf(xa, index, false);

	if (leaf) {
		leaf->count--;
		xa_shrink(xa, leaf);
	}
}

int xa_insert(struct xarray *xa, uint64_t index, void *entry)
{
	struct xa_node *leaf = xa_leaf(xa, index, true);
	unsigned off = index & (XA_CHUNK_SIZE - 1);

	if (!leaf)
		return -ENOMEM;
	if (leaf->slots[off])
		return -EEXIST;
	leaf->count++;
	xa->nr++;
	rcu_assign_pointer(leaf->slots[off], entry);
	return 0;
}

void *xa_store(struct xarray *xa, uint64_t index, void *entry)
{
	struct xa_node *leaf;
	unsigned off = index & (XA_CHUNK_SIZE - 1);
	void *old;

	if (!entry)
		return xa_erase(xa, index);
	leaf = xa_leaf(xa, index, true);
	if (!leaf)
		return NULL;
	old = leaf->slots[off];
	if (!old) {
		leaf->count++;
		xa->nr++;
	}
	rcu_assign_pointer(leaf->slots[off], entry);
	return old;
}

void *xa_erase(struct xarray *xa, uint64_t index)
{
	struct xa_node *leaf = xa_leaf(xa, index, false);
	unsigned off = index & (XA_CHUNK_SIZE - 1);
	void *old;

	if (!leaf || !(old = leaf->slots[off]))
		return NULL;
	rcu_assign_pointer(leaf->slots[off], NULL);
	leaf->count--;
	xa->nr--;
	xa_shrink(xa, leaf);
	return old;
}

/* Search n's subtree for the first entry in [*index, max]. */
static void *xa_find_node(struct xa_node *n, uint64_t base, uint64_t *index, uint64_t max)
{
	uint64_t span = 1ULL << n->shift; /* indices per slot */
	unsigned off;

	off = *index > base ? (unsigned)((*index - base) >> n->shift) : 0;
	for (; off < XA_CHUNK_SIZE; off++) {
		uint64_t start = base + (uint64_t)off * span;
		void *e;

		if (start > max)
			return NULL;
		e = rcu_dereference(n->slots[off]);
		if (!e)
			continue;
		if (n->shift == 0) {
			if (start >= *index) {
				*index = start;
				return e;
			}
			continue;
		}
		e = xa_find_node(e, start, index, max);
		if (e)
			return e;
		if (start + span - 1 == UINT64_MAX)
			return NULL;
	}
	return NULL;
}

void *xa_find(struct xarray *xa, uint64_t *index, uint64_t max)
{
	struct xa_node *n = rcu_dereference(xa->xa_head);

	if (!n || *index > xa_node_max(n) || *index > max)
		return NULL;
	return xa_find_node(n, 0, index, max);
}

static void xa_destroy_node(struct xa_node *n)
{
	if (n->shift)
		for (unsigned i = 0; i < XA_CHUNK_SIZE; i++)
			if (n->slots[i])
				xa_destroy_node(n->slots[i]);
	rv_call_rcu(&n->rcu, xa_node_free_rcu);
}

void xa_destroy(struct xarray *xa)
{
	struct xa_node *n = xa->xa_head;

	rcu_assign_pointer(xa->xa_head, NULL);
	xa->nr = 0;
	if (n)
		xa_destroy_node(n);
}
