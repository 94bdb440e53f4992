// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Memory policy (advice) of managed memory, by address range.
 *
 * DOC: Memory policy
 *
 * Advice (read-mostly, preferred location, accessed-by) is page granular.
 * A VA space keeps it in an interval tree of non-overlapping nodes, each
 * carrying one &struct uvm_va_policy; addresses without a node have the
 * default policy (no advice).  Setting advice on a range splits the nodes at
 * the range's ends, updates the nodes inside, fills the gaps, then merges
 * neighbours with equal policies and drops nodes equal to the default, so
 * the tree stays as small as the advice is fragmented.
 *
 * The fault and migration paths read the policy of a block with
 * uvm_va_policy_iter_first() and uvm_va_policy_iter_next(), which yield
 * maximal runs of equal policy (default runs included) over an address
 * range.
 *
 * The ioctls that set and query advice are above the store, in
 * uvm_advise.c.
 *
 * Locking: the tree is protected by uvm_va_space.lock: written with it held
 * for write, read with it held for read or write.
 */
#include <linux/nodemask.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "uvm_gpu.h"
#include "uvm_hmm.h"
#include "uvm_va_block.h"
#include "uvm_va_policy.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

const struct uvm_va_policy uvm_va_policy_default;

/**
 * struct uvm_va_policy_node - the policy of one address range
 * @node:	in uvm_va_space.policies: [start, last]
 * @policy:	the policy
 * @link:	on a list of nodes being built by uvm_va_policy_update()
 */
struct uvm_va_policy_node {
	struct interval_tree_node node;
	struct uvm_va_policy policy;
	struct list_head link;
};

static inline struct uvm_va_policy_node *
to_uvm_va_policy_node(struct interval_tree_node *node)
{
	return container_of(node, struct uvm_va_policy_node, node);
}

static bool uvm_va_policy_equal(const struct uvm_va_policy *a,
				const struct uvm_va_policy *b)
{
	return a->read_mostly == b->read_mostly &&
	       a->last_prefetch == b->last_prefetch &&
	       a->preferred.type == b->preferred.type &&
	       a->preferred.id == b->preferred.id &&
	       a->accessed_by == b->accessed_by;
}

static bool uvm_va_policy_is_default(const struct uvm_va_policy *p)
{
	return uvm_va_policy_equal(p, &uvm_va_policy_default);
}

/* Iteration */

static void uvm_va_policy_iter_fill(struct uvm_va_policy_iter *iter)
{
	struct interval_tree_node *n = iter->node;

	if (iter->start >= iter->limit)
		return;
	if (n && n->start <= iter->start) {
		iter->end = min(n->last + 1, iter->limit);
		iter->policy = &to_uvm_va_policy_node(n)->policy;
	} else {
		iter->end = n ? min(n->start, iter->limit) : iter->limit;
		iter->policy = &uvm_va_policy_default;
	}
}

/**
 * uvm_va_policy_iter_first() - start a walk over the policy runs of a range
 * @va_space:	the VA space; its lock held
 * @start:	first byte
 * @end:	last byte + 1, > @start
 * @iter:	the iterator
 */
void uvm_va_policy_iter_first(struct uvm_va_space *va_space, u64 start, u64 end,
			      struct uvm_va_policy_iter *iter)
{
	lockdep_assert_held(&va_space->lock);

	iter->root = &va_space->policies;
	iter->node = interval_tree_iter_first(iter->root, start, end - 1);
	iter->start = start;
	iter->limit = end;
	uvm_va_policy_iter_fill(iter);
}

/**
 * uvm_va_policy_iter_next() - move to the next run
 * @iter:	the iterator
 *
 * Return: true while there is a run.
 */
bool uvm_va_policy_iter_next(struct uvm_va_policy_iter *iter)
{
	struct interval_tree_node *n = iter->node;

	if (n && n->start <= iter->start)
		iter->node = interval_tree_iter_next(n, iter->start, iter->limit - 1);
	iter->start = iter->end;
	uvm_va_policy_iter_fill(iter);
	return iter->start < iter->limit;
}

/* Updates */

typedef void (*uvm_va_policy_fn)(struct uvm_va_policy *policy,
				 u32 advice, const struct uvm_location *loc);

static int uvm_va_policy_piece(struct list_head *list, u64 start, u64 end,
			       const struct uvm_va_policy *policy, gfp_t gfp)
{
	struct uvm_va_policy_node *pn;

	pn = kmalloc(sizeof(*pn), gfp);
	if (!pn)
		return -ENOMEM;
	pn->node.start = start;
	pn->node.last = end - 1;
	pn->policy = *policy;
	list_add_tail(&pn->link, list);
	return 0;
}

/**
 * uvm_va_policy_build() - the nodes that will replace those over a range
 * @va_space:	the VA space; its lock held for write
 * @start:	first byte of the range
 * @end:	last byte + 1
 * @fn:		applied to the policy of every piece inside the range
 * @advice:	for @fn
 * @loc:	for @fn
 * @list:	out: new nodes, in address order, covering every existing node
 *		that overlaps the range plus the range itself
 * @gfp:	allocation flags
 *
 * Return: 0 or -ENOMEM (the nodes built so far are on @list).
 */
static int uvm_va_policy_build(struct uvm_va_space *va_space, u64 start, u64 end,
			       uvm_va_policy_fn fn, u32 advice,
			       const struct uvm_location *loc,
			       struct list_head *list, gfp_t gfp)
{
	struct uvm_va_policy_iter iter;
	struct uvm_va_policy policy;
	struct interval_tree_node *n;
	int ret;

	/* The outer parts of the nodes cut at start and end keep their policy. */
	n = interval_tree_iter_first(&va_space->policies, start, start);
	if (n && n->start < start) {
		ret = uvm_va_policy_piece(list, n->start, start,
					  &to_uvm_va_policy_node(n)->policy, gfp);
		if (ret)
			return ret;
	}
	for (uvm_va_policy_iter_first(va_space, start, end, &iter);
	     iter.start < iter.limit; uvm_va_policy_iter_next(&iter)) {
		policy = *iter.policy;
		fn(&policy, advice, loc);
		ret = uvm_va_policy_piece(list, iter.start, iter.end, &policy, gfp);
		if (ret)
			return ret;
	}
	n = interval_tree_iter_first(&va_space->policies, end - 1, end - 1);
	if (n && n->last >= end)
		return uvm_va_policy_piece(list, end, n->last + 1,
					   &to_uvm_va_policy_node(n)->policy, gfp);
	return 0;
}

/**
 * uvm_va_policy_merge() - merge equal neighbours around a range
 * @va_space:	the VA space; its lock held for write
 * @start:	first byte of the updated range
 * @end:	last byte + 1
 */
static void uvm_va_policy_merge(struct uvm_va_space *va_space, u64 start, u64 end)
{
	struct interval_tree_node *prev, *n;
	u64 first = start ? start - 1 : 0;

	prev = interval_tree_iter_first(&va_space->policies, first, end);
	if (!prev)
		return;
	while ((n = interval_tree_iter_next(prev, first, end))) {
		if (prev->last + 1 == n->start &&
		    uvm_va_policy_equal(&to_uvm_va_policy_node(prev)->policy,
					&to_uvm_va_policy_node(n)->policy)) {
			/* Extending prev changes its key: re-insert it. */
			interval_tree_remove(prev, &va_space->policies);
			interval_tree_remove(n, &va_space->policies);
			prev->last = n->last;
			kfree(to_uvm_va_policy_node(n));
			interval_tree_insert(prev, &va_space->policies);
			continue;
		}
		prev = n;
	}
}

/**
 * uvm_va_policy_update() - apply a change to the policy of a range
 * @va_space:	the VA space; its lock held for write
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 * @fn:		the change
 * @advice:	for @fn
 * @loc:	for @fn
 * @gfp:	allocation flags
 *
 * All-or-nothing: on allocation failure the tree is unchanged.
 *
 * Return: 0 or -ENOMEM.
 */
static int uvm_va_policy_update(struct uvm_va_space *va_space, u64 start, u64 end,
				uvm_va_policy_fn fn, u32 advice,
				const struct uvm_location *loc, gfp_t gfp)
{
	struct uvm_va_policy_node *pn, *tmp;
	struct interval_tree_node *n;
	LIST_HEAD(list);
	u64 first, last;
	int ret;

	lockdep_assert_held_write(&va_space->lock);

	ret = uvm_va_policy_build(va_space, start, end, fn, advice, loc, &list, gfp);
	if (ret)
		goto err_free_list;

	first = list_first_entry(&list, struct uvm_va_policy_node, link)->node.start;
	last = list_last_entry(&list, struct uvm_va_policy_node, link)->node.last;
	while ((n = interval_tree_iter_first(&va_space->policies, first, last))) {
		interval_tree_remove(n, &va_space->policies);
		kfree(to_uvm_va_policy_node(n));
	}
	list_for_each_entry_safe(pn, tmp, &list, link) {
		list_del(&pn->link);
		if (uvm_va_policy_is_default(&pn->policy))
			kfree(pn);
		else
			interval_tree_insert(&pn->node, &va_space->policies);
	}
	uvm_va_policy_merge(va_space, first, last + 1);
	return 0;

err_free_list:
	list_for_each_entry_safe(pn, tmp, &list, link)
		kfree(pn);
	return ret;
}

static void uvm_va_policy_apply_advice(struct uvm_va_policy *p, u32 advice,
				       const struct uvm_location *loc)
{
	switch (advice) {
	case UVM_ADVICE_SET_READ_MOSTLY:
		p->read_mostly = true;
		break;
	case UVM_ADVICE_UNSET_READ_MOSTLY:
		p->read_mostly = false;
		break;
	case UVM_ADVICE_SET_PREFERRED_LOCATION:
		p->preferred = *loc;
		break;
	case UVM_ADVICE_UNSET_PREFERRED_LOCATION:
		p->preferred = (struct uvm_location){};
		break;
	case UVM_ADVICE_SET_ACCESSED_BY:
		p->accessed_by |= UVM_PROCESSOR_MASK(uvm_location_processor(loc));
		break;
	case UVM_ADVICE_UNSET_ACCESSED_BY:
		p->accessed_by &= ~UVM_PROCESSOR_MASK(uvm_location_processor(loc));
		break;
	}
}

/**
 * uvm_va_policy_set() - record advice on a range
 * @va_space:	the VA space; its lock held for write
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 * @advice:	UVM_ADVICE_*
 * @location:	resolved location (no HOST_NUMA_CURRENT)
 *
 * Return: 0 or -ENOMEM (nothing changed).
 */
int uvm_va_policy_set(struct uvm_va_space *va_space, u64 start, u64 end,
		      u32 advice, const struct uvm_location *location)
{
	return uvm_va_policy_update(va_space, start, end, uvm_va_policy_apply_advice,
				    advice, location, GFP_KERNEL_ACCOUNT);
}

static void uvm_va_policy_apply_prefetch(struct uvm_va_policy *p, u32 advice,
					 const struct uvm_location *loc)
{
	p->last_prefetch = uvm_location_encode(loc);
}

/**
 * uvm_va_policy_set_prefetched() - record a prefetch of pageable memory
 * @va_space:	the VA space; its lock held for write
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 * @loc:	the resolved destination
 *
 * Return: 0 or -ENOMEM (nothing changed).
 */
int uvm_va_policy_set_prefetched(struct uvm_va_space *va_space, u64 start, u64 end,
				 const struct uvm_location *loc)
{
	return uvm_va_policy_update(va_space, start, end, uvm_va_policy_apply_prefetch,
				    0, loc, GFP_KERNEL_ACCOUNT);
}

/**
 * uvm_va_policy_clear() - forget the policy of a range (munmap)
 * @va_space:	the VA space; its lock held for write
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 *
 * The nodes inside go, the ones cut at @start and @end shrink in place;
 * only a node around the whole range needs a second node for its tail.
 * Cannot fail (->close() cannot report an error): that one allocation, of
 * one node whatever the policy, may not fail.
 */
void uvm_va_policy_clear(struct uvm_va_space *va_space, u64 start, u64 end)
{
	struct uvm_va_policy_node *pn, *tail;
	struct interval_tree_node *n;

	lockdep_assert_held_write(&va_space->lock);

	while ((n = interval_tree_iter_first(&va_space->policies, start, end - 1))) {
		pn = to_uvm_va_policy_node(n);
		interval_tree_remove(n, &va_space->policies);
		if (n->start < start && n->last >= end) {
			tail = kmalloc(sizeof(*tail), GFP_KERNEL_ACCOUNT | __GFP_NOFAIL);
			tail->policy = pn->policy;
			tail->node.start = end;
			tail->node.last = n->last;
			interval_tree_insert(&tail->node, &va_space->policies);
		}
		if (n->start < start) {
			n->last = start - 1;
			interval_tree_insert(n, &va_space->policies);
		} else if (n->last >= end) {
			n->start = end;
			interval_tree_insert(n, &va_space->policies);
		} else {
			kfree(pn);
		}
	}
}

/**
 * uvm_va_policy_destroy() - free every node
 * @va_space:	the VA space, being freed
 */
void uvm_va_policy_destroy(struct uvm_va_space *va_space)
{
	struct interval_tree_node *n;

	while ((n = interval_tree_iter_first(&va_space->policies, 0, U64_MAX))) {
		interval_tree_remove(n, &va_space->policies);
		kfree(to_uvm_va_policy_node(n));
	}
}

/**
 * uvm_va_policy_query() - aggregate the policy of a range, CUDA's way
 * @va_space:	the VA space; its lock held
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 * @out:	read_mostly, preferred and accessed_by are filled in
 */
void uvm_va_policy_query(struct uvm_va_space *va_space, u64 start, u64 end,
			 struct uvm_ioc_range_query *out)
{
	struct uvm_va_policy_iter iter;
	bool first = true;

	out->read_mostly = 1;
	out->accessed_by = ~0ULL;
	for (uvm_va_policy_iter_first(va_space, start, end, &iter);
	     iter.start < iter.limit; uvm_va_policy_iter_next(&iter)) {
		const struct uvm_va_policy *p = iter.policy;

		if (!p->read_mostly)
			out->read_mostly = 0;
		out->accessed_by &= p->accessed_by;
		if (first)
			out->preferred = p->preferred;
		else if (out->preferred.type != p->preferred.type ||
			 out->preferred.id != p->preferred.id)
			out->preferred = (struct uvm_location){};
		first = false;
	}
}

/**
 * uvm_location_resolve() - validate a location from userspace
 * @in:		the location as given
 * @allowed:	BIT(UVM_LOCATION_*) of the types the caller accepts
 * @out:	resolved: HOST_NUMA_CURRENT becomes HOST_NUMA of the calling
 *		CPU's node, HOST's id becomes 0; may alias @in
 *
 * Return: 0, -EINVAL for a type not allowed or a NUMA node without memory,
 * -ENODEV for a GPU index beyond the GPUs.
 */
int uvm_location_resolve(const struct uvm_location *in, u32 allowed,
			 struct uvm_location *out)
{
	struct uvm_location loc = *in;

	if (loc.type >= 32 || !(allowed & BIT(loc.type)))
		return -EINVAL;
	switch (loc.type) {
	case UVM_LOCATION_GPU:
		if (loc.id < 0 || loc.id >= uvm_gpu_count)
			return -ENODEV;
		break;
	case UVM_LOCATION_HOST:
		loc.id = 0;
		break;
	case UVM_LOCATION_HOST_NUMA:
		if (loc.id < 0 || loc.id >= MAX_NUMNODES ||
		    !node_state(loc.id, N_MEMORY))
			return -EINVAL;
		break;
	case UVM_LOCATION_HOST_NUMA_CURRENT:
		loc.type = UVM_LOCATION_HOST_NUMA;
		loc.id = numa_mem_id();
		break;
	}
	*out = loc;
	return 0;
}
