/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Memory policy (advice) of managed memory, by address range.
 */
#ifndef _UVM_VA_POLICY_H_
#define _UVM_VA_POLICY_H_

#include <linux/interval_tree.h>
#include <linux/numa.h>
#include <linux/types.h>

#include "uvm.h"

struct uvm_va_space;

/**
 * struct uvm_va_policy - the advice in force on a page
 * @read_mostly:	read duplication on
 * @preferred:		preferred location; type 0 for none.  HOST_NUMA_CURRENT
 *			never appears (resolved when set)
 * @accessed_by:	processors (UVM_PROCESSOR_MASK) that keep a mapping
 * @last_prefetch:	pageable memory: uvm_location_encode() of the last
 *			prefetch request of the page, 0 for none (managed
 *			memory keeps it per page in its VA block).  Stored by
 *			range like the advice: a prefetch of terabytes of
 *			pageable memory costs a node or two, not a structure
 *			per 2 MiB
 */
struct uvm_va_policy {
	bool read_mostly;
	u16 last_prefetch;
	struct uvm_location preferred;
	u64 accessed_by;
};

/**
 * struct uvm_va_policy_iter - walks the policy runs of an address range
 * @root:	the VA space's policy tree
 * @node:	next tree node overlapping the walk, or NULL
 * @start:	first byte of the current run
 * @end:	last byte + 1 of the current run
 * @limit:	end of the walk
 * @policy:	policy of the current run (the default one in gaps)
 */
struct uvm_va_policy_iter {
	struct rb_root_cached *root;
	struct interval_tree_node *node;
	u64 start;
	u64 end;
	u64 limit;
	const struct uvm_va_policy *policy;
};

extern const struct uvm_va_policy uvm_va_policy_default;

void uvm_va_policy_iter_first(struct uvm_va_space *va_space, u64 start, u64 end,
			      struct uvm_va_policy_iter *iter);
bool uvm_va_policy_iter_next(struct uvm_va_policy_iter *iter);

int uvm_va_policy_set(struct uvm_va_space *va_space, u64 start, u64 end,
		      u32 advice, const struct uvm_location *location);
void uvm_va_policy_clear(struct uvm_va_space *va_space, u64 start, u64 end);
int uvm_va_policy_set_prefetched(struct uvm_va_space *va_space, u64 start, u64 end,
				 const struct uvm_location *loc);
void uvm_va_policy_destroy(struct uvm_va_space *va_space);
void uvm_va_policy_query(struct uvm_va_space *va_space, u64 start, u64 end,
			 struct uvm_ioc_range_query *out);

static inline bool uvm_va_policy_has_preferred(const struct uvm_va_policy *p)
{
	return p->preferred.type != UVM_LOCATION_INVALID;
}

/* The processor a (resolved) location names: the CPU for host locations. */
static inline u32 uvm_location_processor(const struct uvm_location *loc);

/*
 * The processors that keep a mapping to the pages wherever they are: the
 * accessed-by set, except the preferred location, whose policy overrides
 * (its accesses bring the data home instead).
 */
static inline u64 uvm_va_policy_mapped_by(const struct uvm_va_policy *p)
{
	if (!uvm_va_policy_has_preferred(p))
		return p->accessed_by;
	return p->accessed_by &
	       ~UVM_PROCESSOR_MASK(uvm_location_processor(&p->preferred));
}

static inline u32 uvm_location_processor(const struct uvm_location *loc)
{
	return loc->type == UVM_LOCATION_GPU ? UVM_PROCESSOR_GPU(loc->id) :
					       UVM_PROCESSOR_CPU;
}

/* The NUMA node a location asks for, or NUMA_NO_NODE. */
static inline int uvm_location_nid(const struct uvm_location *loc)
{
	return loc->type == UVM_LOCATION_HOST_NUMA ? loc->id : NUMA_NO_NODE;
}

/*
 * Locations packed in 16 bits (type << 12 | id) for per-page state; 0 is
 * "none".  NUMA node ids and GPU indices are below 4096.
 */
static inline u16 uvm_location_encode(const struct uvm_location *loc)
{
	return (loc->type << 12) | (loc->type == UVM_LOCATION_HOST ? 0 : loc->id);
}

static inline struct uvm_location uvm_location_decode(u16 v)
{
	return (struct uvm_location){ .type = v >> 12, .id = v & 0xfff };
}

int uvm_location_resolve(const struct uvm_location *in, u32 allowed,
			 struct uvm_location *out);

#endif /* _UVM_VA_POLICY_H_ */
