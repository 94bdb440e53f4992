// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The advice ioctls: UVM_IOC_ADVISE and UVM_IOC_RANGE_QUERY.
 *
 * DOC: Advice ioctls
 *
 * The ioctls:
 *
 * - UVM_IOC_ADVISE validates the range (inside one managed range, or valid
 *   pageable memory, rounded to pages) and the location, resolves
 *   HOST_NUMA_CURRENT to the calling CPU's node, records the advice, then
 *   applies its immediate effects: UNSET_READ_MOSTLY collapses duplicated
 *   pages to one copy, SET_ACCESSED_BY maps the processor to the pages
 *   resident elsewhere (for pageable memory through uvm_hmm.c, once the
 *   locks are dropped).  The other advice acts on later faults and
 *   migrations only.
 * - UVM_IOC_RANGE_QUERY aggregates the policy over a range with CUDA's
 *   rules (uniform or invalid; accessed-by set on the whole range).
 *
 * These handlers sit above the policy store (uvm_va_policy.c), which only
 * records and looks up advice, and reach the VA blocks and pageable memory
 * (uvm_hmm_policy.c) for the immediate effects.
 *
 * Locking: the ioctls take the caller's mmap_lock for read first (it comes
 * before the VA space lock), so that a pageable range's VMAs can be
 * checked, then the VA space lock.
 */
#include <linux/nodemask.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "uvm_advise.h"
#include "uvm_gpu.h"
#include "uvm_hmm.h"
#include "uvm_hmm_policy.h"
#include "uvm_va_block.h"
#include "uvm_va_block_service.h"
#include "uvm_va_policy.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

/**
 * uvm_advise_apply_effects() - the immediate effects of advice
 * @va_space:	the VA space; its lock held for write
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 * @advice:	UVM_ADVICE_*, already recorded
 * @loc:	resolved location
 *
 * UNSET_READ_MOSTLY collapses duplicated pages; SET_ACCESSED_BY maps the
 * processor to the pages resident elsewhere.  Blocks never touched have
 * nothing to do.
 *
 * Return: 0 or -errno.
 */
static int uvm_advise_apply_effects(struct uvm_va_space *va_space, u64 start,
				    u64 end, u32 advice,
				       const struct uvm_location *loc)
{
	struct uvm_va_block_ctx *ctx;
	struct uvm_va_block *block;
	struct uvm_page_mask mask;
	unsigned long index;
	int ret = 0;

	if (advice != UVM_ADVICE_UNSET_READ_MOSTLY &&
	    advice != UVM_ADVICE_SET_ACCESSED_BY)
		return 0;
	ctx = uvm_va_block_ctx_alloc();
	if (!ctx)
		return -ENOMEM;
	uvm_va_block_ctx_set_cause(ctx, UVM_NL_CAUSE_POLICY);
	xa_for_each_range(&va_space->blocks, index, block, start >> UVM_VA_BLOCK_SHIFT,
			  (end - 1) >> UVM_VA_BLOCK_SHIFT) {
		uvm_va_block_range_mask(block, start, end, &mask);
		mutex_lock(&block->lock);
		if (advice == UVM_ADVICE_UNSET_READ_MOSTLY)
			ret = uvm_va_block_unset_read_mostly(block, ctx, &mask);
		else
			ret = uvm_va_block_set_accessed_by(block, ctx, &mask,
							   uvm_location_processor(loc));
		mutex_unlock(&block->lock);
		if (ret)
			break;
	}
	uvm_va_block_ctx_free(ctx);
	return ret;
}

/**
 * uvm_ioc_advise() - UVM_IOC_ADVISE
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_advise
 *
 * Return: 0; -EINVAL for bad flags, advice, location type, NUMA node or
 * range; -ENODEV for a bad GPU index; -ENOMEM; -EINTR.
 */
int uvm_ioc_advise(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_advise *args = data;
	struct uvm_location loc = {};
	bool pageable = false;
	u64 start, end;
	int ret;

	if (args->flags || memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    args->advice < UVM_ADVICE_SET_READ_MOSTLY ||
	    args->advice > UVM_ADVICE_UNSET_ACCESSED_BY)
		return -EINVAL;

	switch (args->advice) {
	case UVM_ADVICE_SET_PREFERRED_LOCATION:
		ret = uvm_location_resolve(&args->location,
					   BIT(UVM_LOCATION_GPU) | BIT(UVM_LOCATION_HOST) |
					   BIT(UVM_LOCATION_HOST_NUMA) |
					   BIT(UVM_LOCATION_HOST_NUMA_CURRENT), &loc);
		break;
	case UVM_ADVICE_SET_ACCESSED_BY:
	case UVM_ADVICE_UNSET_ACCESSED_BY:
		ret = uvm_location_resolve(&args->location,
					   BIT(UVM_LOCATION_GPU) | BIT(UVM_LOCATION_HOST),
					   &loc);
		break;
	default:
		ret = 0;	/* the location is ignored */
	}
	if (ret)
		return ret;

	if (mmap_read_lock_killable(va_space->mm))
		return -EINTR;
	if (down_write_killable(&va_space->lock)) {
		mmap_read_unlock(va_space->mm);
		return -EINTR;
	}
	ret = uvm_hmm_check_user_range(va_space, args->address, args->length, &start,
				       &end, &pageable);
	if (!ret)
		ret = uvm_va_policy_set(va_space, start, end, args->advice, &loc);
	if (!ret && !pageable)
		ret = uvm_advise_apply_effects(va_space, start, end, args->advice,
					       &loc);
	up_write(&va_space->lock);
	mmap_read_unlock(va_space->mm);
	if (!ret && pageable)
		ret = uvm_hmm_advise(va_space, start, end, args->advice, &loc);
	return ret;
}

/**
 * uvm_advise_last_prefetch() - the uniform last prefetch location of a range
 * @va_space:	the VA space; its lock held
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 *
 * Return: the location, or type UVM_LOCATION_INVALID when pages differ or
 * one was never prefetched.
 */
static struct uvm_location uvm_advise_last_prefetch(struct uvm_va_space *va_space,
						    u64 start, u64 end)
{
	struct uvm_va_block *block;
	bool uniform = true;
	u64 addr = start, stop;
	u16 code, first = 0;

	while (uniform && addr < end) {
		block = uvm_va_block_lookup(va_space, addr);
		if (!block)
			return (struct uvm_location){};
		stop = min(end, block->start + UVM_VA_BLOCK_SIZE);
		mutex_lock(&block->lock);
		for (; uniform && addr < stop; addr += PAGE_SIZE) {
			code = block->last_prefetch[uvm_va_block_page_index(block, addr)];
			if (addr == start)
				first = code;
			uniform = code && code == first;
		}
		mutex_unlock(&block->lock);
		/*
		 * A query over terabytes walks millions of blocks; a dying
		 * caller gets no answer worth the wait.
		 */
		cond_resched();
		if (fatal_signal_pending(current))
			return (struct uvm_location){};
	}
	return uniform ? uvm_location_decode(first) : (struct uvm_location){};
}

/**
 * uvm_advise_pageable_prefetch() - the uniform last prefetch of pageable memory
 * @va_space:	the VA space; its lock held
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 *
 * Return: the location, or type UVM_LOCATION_INVALID when pages differ or
 * one was never prefetched.
 */
static struct uvm_location uvm_advise_pageable_prefetch(struct uvm_va_space *va_space,
							u64 start, u64 end)
{
	struct uvm_va_policy_iter iter;
	u16 first;

	uvm_va_policy_iter_first(va_space, start, end, &iter);
	first = iter.policy->last_prefetch;
	do {
		if (!iter.policy->last_prefetch || iter.policy->last_prefetch != first)
			return (struct uvm_location){};
	} while (uvm_va_policy_iter_next(&iter));
	return uvm_location_decode(first);
}

/**
 * uvm_ioc_range_query() - UVM_IOC_RANGE_QUERY
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_range_query
 *
 * Return: 0, or -EINVAL for bad flags or range, -EINTR.
 */
int uvm_ioc_range_query(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_range_query *args = data;
	bool pageable;
	u64 start, end;
	int ret;

	if (args->flags || memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	if (mmap_read_lock_killable(va_space->mm))
		return -EINTR;
	if (down_read_killable(&va_space->lock)) {
		mmap_read_unlock(va_space->mm);
		return -EINTR;
	}
	ret = uvm_hmm_check_user_range(va_space, args->address, args->length, &start,
				       &end, &pageable);
	if (!ret) {
		uvm_va_policy_query(va_space, start, end, args);
		args->last_prefetch = pageable ?
				      uvm_advise_pageable_prefetch(va_space, start, end) :
				      uvm_advise_last_prefetch(va_space, start, end);
	}
	up_read(&va_space->lock);
	mmap_read_unlock(va_space->mm);
	return ret;
}
