// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Explicit migration: prefetch, discard and discard-then-prefetch batches.
 *
 * DOC: Migration batches
 *
 * UVM_IOC_MIGRATE carries an array of ranges and, for the prefetching ops,
 * an array of destinations with CUDA's location-index grouping: location k
 * applies to ranges starts[k] .. starts[k + 1] - 1.  The whole batch is
 * copied in and validated first (op, flags, counts, every location, the
 * grouping, every range inside one managed range or valid pageable memory);
 * the first invalid entry fails the ioctl with its index in bad_range or
 * bad_location and nothing happens.  Validation merges each range that
 * continues the previous one (same destination, same managed range) into
 * one run, and everything after it walks the runs: a batch of adjacent
 * ranges costs little more than one range per 2 MiB block.
 *
 * A valid batch becomes a job of the VA space's ordered queue (uvm_queue.c):
 * it gets the next fence, runs after every earlier job, synchronously or
 * asynchronously (UVM_MIGRATE_ASYNC).
 *
 * Running a job takes the VA space lock for read and each block's lock in
 * turn; ranges unmapped since validation, or replaced by another managed
 * range (a new mmap at the same addresses: a discard must not drop the
 * data of memory the caller never named), are skipped with -EFAULT
 * recorded.  Pageable ranges run after the managed ones, with the VA space
 * lock dropped (uvm_hmm_migrate() takes mmap_lock, which comes before it).
 *
 * A batch may name 2^20 ranges of any size: between two blocks the walk
 * stops when uvm_queue_should_stop() says so (the caller is killed, the
 * owner exits, the file is released: -EINTR or -ECANCELED, the blocks
 * before it done), and lets a waiting writer of the VA space in once it
 * has held the lock UVM_VA_SPACE_HOLD_MS (then the rest of the run it is
 * in is checked again).
 *
 * Locking: none of its own.  Validation takes the caller's mmap_lock for
 * read, then the VA space lock; recording takes the VA space lock alone.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uvm_evict.h"
#include "uvm_gpu.h"
#include "uvm_hmm.h"
#include "uvm_hmm_policy.h"
#include "uvm_migrate.h"
#include "uvm_queue.h"
#include "uvm_va_block.h"
#include "uvm_va_block_service.h"
#include "uvm_va_policy.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

/**
 * struct uvm_migrate_job - a validated batch
 * @job:	the queue's part; weight = number of ranges
 * @op:		UVM_MIGRATE_*
 * @count:	ranges of the ioctl
 * @nruns:	runs: the ranges after validation, where a range that
 *		continues the previous one, with the same destination and
 *		inside the same managed range, is merged into it
 * @cap:	room in @ranges and @run_loc
 * @ranges:	the runs, rounded to pages: address is the first byte and
 *		length the last byte + 1
 * @run_ids:	the buffer id of each managed run's range at validation, 0
 *		for pageable runs
 * @num_locations: destinations (prefetching ops)
 * @locs:	resolved destinations (no HOST_NUMA_CURRENT)
 * @starts:	location k applies to ranges starts[k] .. starts[k + 1] - 1
 * @run_loc:	index in @locs of each run's destination; NULL when there is
 *		at most one location
 * @pageable:	bitmap of the runs that are pageable memory, NULL when none
 *		is
 * @record_in_run: the managed runs' prefetch requests are recorded as each
 *		block runs, not at submission (synchronous ioctls: nobody can
 *		observe the difference)
 */
struct uvm_migrate_job {
	struct uvm_job job;
	u32 op;
	u64 count;
	u64 nruns;
	u64 cap;
	struct uvm_range *ranges;
	u64 *run_ids;
	u32 num_locations;
	struct uvm_location *locs;
	u64 *starts;
	u32 *run_loc;
	unsigned long *pageable;
	bool record_in_run;
};

/*
 * Called once per run of consecutive range pieces falling into one 2 MiB
 * block with one destination.
 */
typedef int (*uvm_migrate_block_fn)(struct uvm_va_space *va_space,
				    struct uvm_migrate_job *job, u64 block_addr,
				    const struct uvm_page_mask *mask,
				    const struct uvm_location *loc, void *arg);

static inline struct uvm_migrate_job *to_uvm_migrate_job(struct uvm_job *job)
{
	return container_of(job, struct uvm_migrate_job, job);
}

static void uvm_migrate_job_free(struct uvm_job *j)
{
	struct uvm_migrate_job *job = to_uvm_migrate_job(j);

	kvfree(job->ranges);
	kvfree(job->run_ids);
	kvfree(job->locs);
	kvfree(job->starts);
	kvfree(job->run_loc);
	bitmap_free(job->pageable);
	kfree(job);
}

/* Walking a batch by block */

/* The destination of run @j, NULL for a discard. */
static inline const struct uvm_location *
uvm_migrate_run_loc(const struct uvm_migrate_job *job, u64 j)
{
	if (!job->locs)
		return NULL;
	return &job->locs[job->run_loc ? job->run_loc[j] : 0];
}

/**
 * struct uvm_migrate_seen - the managed range found last
 * @lo:		its start
 * @hi:		its end
 * @id:		its buffer id
 */
struct uvm_migrate_seen {
	u64 lo;
	u64 hi;
	u64 id;
};

/**
 * uvm_migrate_range_ok() - is a range still one managed range?
 * @va_space:	the VA space; its lock held
 * @r:		rounded range
 * @seen:	in/out: the managed range last found
 *
 * Batches are usually sorted: the range last found answers most lookups.
 *
 * Return: true when [r->address, r->length) is inside one managed range,
 * then @seen's.
 */
static inline bool uvm_migrate_range_ok(struct uvm_va_space *va_space,
					const struct uvm_range *r,
					struct uvm_migrate_seen *seen)
{
	struct uvm_va_range *range;

	if (r->address >= seen->lo && r->length <= seen->hi)
		return true;
	range = uvm_va_range_find(va_space, r->address);
	if (!range || range->kind != UVM_RANGE_MANAGED ||
	    uvm_va_range_end(range) < r->length)
		return false;
	seen->lo = uvm_va_range_start(range);
	seen->hi = uvm_va_range_end(range);
	seen->id = range->buffer_id;
	return true;
}

/**
 * uvm_migrate_run_ok() - is [@addr, end of run @j) in the range validated?
 * @va_space:	the VA space; its lock held
 * @job:	the batch
 * @j:		a managed run
 * @addr:	an address of the run
 * @seen:	see uvm_migrate_range_ok()
 *
 * Return: true when the rest of the run is still in the managed range it
 * was validated in (the pieces of a partly unmapped range keep its id).
 */
static inline bool uvm_migrate_run_ok(struct uvm_va_space *va_space,
				      const struct uvm_migrate_job *job, u64 j, u64 addr,
				      struct uvm_migrate_seen *seen)
{
	struct uvm_range rest = { .address = addr, .length = job->ranges[j].length };

	return uvm_migrate_range_ok(va_space, &rest, seen) && seen->id == job->run_ids[j];
}

/**
 * uvm_migrate_pause() - between two blocks: stop, or let a writer in
 * @va_space:	the VA space; its lock held for read
 * @job:	the batch
 * @j:		the run being walked, managed
 * @addr:	where the walk goes on in it
 * @held:	in/out: jiffies when the lock was taken
 * @seen:	see uvm_migrate_range_ok(); forgotten when the lock was dropped
 *
 * Return: 0 to go on; -EFAULT when the lock was dropped and the rest of
 * the run is no longer in the range it was validated in (skip the run);
 * -EINTR/-ECANCELED when the job must stop (uvm_queue_should_stop()).
 */
static int uvm_migrate_pause(struct uvm_va_space *va_space, const struct uvm_migrate_job *job,
			     u64 j, u64 addr, unsigned long *held,
			     struct uvm_migrate_seen *seen)
{
	int ret;

	cond_resched();
	ret = uvm_queue_should_stop(&va_space->queue);
	if (ret)
		return ret;
	if (!uvm_va_space_read_yield(va_space, held))
		return 0;
	*seen = (struct uvm_migrate_seen){};
	return uvm_migrate_run_ok(va_space, job, j, addr, seen) ? 0 : -EFAULT;
}

/**
 * uvm_migrate_walk() - call @fn per block of a batch
 * @va_space:	the VA space; its lock held for read
 * @job:	the batch
 * @fn:		called once per run of consecutive range pieces that fall
 *		into one 2 MiB block with one destination
 * @arg:	for @fn
 *
 * Pageable runs are left out (see uvm_migrate_pageable()); runs no
 * longer inside the managed range they were validated in are skipped
 * (-EFAULT).  Every run is attempted; the first error is returned.
 * Between blocks the walk stops or yields the lock (uvm_migrate_pause()).
 *
 * Return: 0 or -errno.
 */
static int uvm_migrate_walk(struct uvm_va_space *va_space,
			    struct uvm_migrate_job *job, uvm_migrate_block_fn fn,
			    void *arg)
{
	u64 cur = U64_MAX, j, addr, next, blk, first;
	const struct uvm_location *loc, *cur_loc = NULL;
	struct uvm_migrate_seen seen = {};
	unsigned long held = jiffies;
	struct uvm_page_mask mask;
	int ret = 0, err;

	for (j = 0; j < job->nruns; j++) {
		const struct uvm_range *r = &job->ranges[j];

		loc = uvm_migrate_run_loc(job, j);
		if (job->pageable && test_bit(j, job->pageable))
			continue;
		if (!uvm_migrate_run_ok(va_space, job, j, r->address, &seen)) {
			ret = ret ?: -EFAULT;
			continue;
		}
		for (addr = r->address; addr < r->length; addr = next) {
			blk = addr >> UVM_VA_BLOCK_SHIFT;
			next = min(r->length, (blk + 1) << UVM_VA_BLOCK_SHIFT);
			if (blk != cur || loc != cur_loc) {
				if (cur != U64_MAX) {
					err = fn(va_space, job, cur << UVM_VA_BLOCK_SHIFT,
						 &mask, cur_loc, arg);
					ret = ret ?: err;
					cur = U64_MAX;
					err = uvm_migrate_pause(va_space, job, j, addr, &held,
								&seen);
					if (err == -EINTR || err == -ECANCELED)
						return ret ?: err;
					if (err) {
						ret = ret ?: err;
						break;
					}
				}
				uvm_page_mask_zero(&mask);
				cur = blk;
				cur_loc = loc;
			}
			first = (addr & (UVM_VA_BLOCK_SIZE - 1)) >> PAGE_SHIFT;
			uvm_page_mask_set_range(&mask, first,
						first + ((next - addr) >> PAGE_SHIFT));
		}
	}
	if (cur != U64_MAX) {
		err = fn(va_space, job, cur << UVM_VA_BLOCK_SHIFT, &mask, cur_loc, arg);
		ret = ret ?: err;
	}
	return ret;
}

/*
 * Record a prefetch of @mask to @loc; the block's lock held.  Whole runs
 * are stored four codes at a time: string instructions iterate per element,
 * and this runs for every block of every prefetch batch.
 */
static void uvm_migrate_record(struct uvm_va_block *block,
			       const struct uvm_page_mask *mask,
			       const struct uvm_location *loc)
{
	u16 code = uvm_location_encode(loc), *lp = block->last_prefetch;
	unsigned int first, end, n;

	lockdep_assert_held(&block->lock);
	BUILD_BUG_ON(offsetof(struct uvm_va_block, last_prefetch) % sizeof(u64));
	for_each_page_run_in_mask(first, end, mask) {
		for (; first < end && first % 4; first++)
			lp[first] = code;
		n = (end - first) / 4;
		if (n) {
			memset64((u64 *)&lp[first], code * 0x0001000100010001ULL, n);
			first += 4 * n;
		}
		for (; first < end; first++)
			lp[first] = code;
	}
}

/**
 * uvm_migrate_record_block() - record the prefetch request of a block
 * @va_space:	the VA space; its lock held for read
 * @job:	the batch
 * @block_addr:	the block
 * @mask:	its pages in the batch
 * @loc:	their destination
 * @arg:	unused
 *
 * The range query reports an asynchronous prefetch from the moment it is
 * accepted (a synchronous one records as it runs: uvm_migrate_run_block()).
 *
 * Return: 0 or -ENOMEM.
 */
static int uvm_migrate_record_block(struct uvm_va_space *va_space,
				    struct uvm_migrate_job *job, u64 block_addr,
				    const struct uvm_page_mask *mask,
				    const struct uvm_location *loc, void *arg)
{
	struct uvm_va_block *block = uvm_va_block_get_or_create(va_space, block_addr);

	if (IS_ERR(block))
		return PTR_ERR(block);
	mutex_lock(&block->lock);
	uvm_migrate_record(block, mask, loc);
	mutex_unlock(&block->lock);
	return 0;
}

/**
 * uvm_migrate_run_block() - run a batch's work in one block
 * @va_space:	the VA space; its lock held for read
 * @job:	the batch
 * @block_addr:	the block
 * @mask:	its pages in the batch
 * @loc:	their destination (prefetching ops)
 * @arg:	scratch space (struct uvm_va_block_ctx)
 *
 * Return: 0 or -errno.
 */
static int uvm_migrate_run_block(struct uvm_va_space *va_space,
				 struct uvm_migrate_job *job, u64 block_addr,
				 const struct uvm_page_mask *mask,
				 const struct uvm_location *loc, void *arg)
{
	struct uvm_va_block *block;
	int ret = 0;

	if (job->op == UVM_MIGRATE_DISCARD) {
		block = uvm_va_block_lookup(va_space, block_addr);
		if (!block)
			return 0;
	} else {
		block = uvm_va_block_get_or_create(va_space, block_addr);
		if (IS_ERR(block))
			return PTR_ERR(block);
	}
	mutex_lock(&block->lock);
	if (job->op != UVM_MIGRATE_PREFETCH)
		uvm_va_block_discard(block, mask);
	if (job->record_in_run && job->op != UVM_MIGRATE_DISCARD)
		uvm_migrate_record(block, mask, loc);
	mutex_unlock(&block->lock);
	if (job->op == UVM_MIGRATE_DISCARD)
		return 0;

	/* A full GPU: evict with the block lock dropped, then retry. */
	do {
		mutex_lock(&block->lock);
		ret = uvm_va_block_prefetch(block, arg, mask, loc);
		mutex_unlock(&block->lock);
	} while (uvm_evict_retry(arg, va_space, &ret));
	return ret;
}

/**
 * uvm_migrate_pageable() - prefetch or discard the pageable ranges of a batch
 * @va_space:	the VA space; its lock held for write when @record, else
 *		not held
 * @job:	the batch
 * @record:	only record the prefetch requests (at submission, in the
 *		policy store: uvm_va_policy_set_prefetched()); else run the
 *		ranges
 *
 * Return: 0 or the first -errno.
 */
static int uvm_migrate_pageable(struct uvm_va_space *va_space,
				struct uvm_migrate_job *job, bool record)
{
	const struct uvm_location *loc;
	u64 j;
	int ret = 0, err;

	if (!job->pageable)
		return 0;
	for (j = 0; j < job->nruns; j++) {
		if (!test_bit(j, job->pageable))
			continue;
		loc = uvm_migrate_run_loc(job, j);
		if (record)
			err = uvm_va_policy_set_prefetched(va_space, job->ranges[j].address,
							   job->ranges[j].length, loc) ?:
			      (fatal_signal_pending(current) ? -EINTR : 0);
		else
			err = uvm_hmm_migrate(va_space, job->op, job->ranges[j].address,
					      job->ranges[j].length, loc);
		ret = ret ?: err;
		if (err == -EINTR || err == -ECANCELED || (record && err))
			break;
	}
	return ret;
}

/**
 * uvm_migrate_job_run() - run a whole batch
 * @va_space:	the VA space
 * @j:		the job
 *
 * Return: 0 or the first -errno.
 */
static int uvm_migrate_job_run(struct uvm_va_space *va_space, struct uvm_job *j)
{
	struct uvm_migrate_job *job = to_uvm_migrate_job(j);
	struct uvm_va_block_ctx *ctx;
	int ret, err;

	ctx = uvm_va_block_ctx_alloc();
	if (!ctx)
		return -ENOMEM;
	uvm_va_block_ctx_set_cause(ctx, UVM_NL_CAUSE_PREFETCH);
	down_read(&va_space->lock);
	ret = uvm_migrate_walk(va_space, job, uvm_migrate_run_block, ctx);
	up_read(&va_space->lock);
	uvm_va_block_ctx_free(ctx);
	err = uvm_migrate_pageable(va_space, job, false);
	return ret ?: err;
}

static const struct uvm_job_ops uvm_migrate_job_ops = {
	.run = uvm_migrate_job_run,
	.free = uvm_migrate_job_free,
};

/* Validation */

/**
 * uvm_migrate_copy_locations() - copy in and check destinations and grouping
 * @args:	the ioctl arguments
 * @job:	the job being built; gets locs and starts
 *
 * Return: 0, -EINVAL/-ENODEV with args->bad_location set, -EFAULT, -ENOMEM.
 */
static int uvm_migrate_copy_locations(struct uvm_ioc_migrate *args,
				      struct uvm_migrate_job *job)
{
	u64 **starts = &job->starts;
	u32 k, n = args->num_locations;
	int ret;

	if (args->op == UVM_MIGRATE_DISCARD)
		return n || args->locations_ptr || args->location_starts_ptr ?
		       -EINVAL : 0;
	if (!n || n > args->count)
		return -EINVAL;
	job->num_locations = n;

	job->locs = kvmalloc_array(n, sizeof(*job->locs), GFP_KERNEL_ACCOUNT);
	*starts = kvmalloc_array(n, sizeof(**starts), GFP_KERNEL_ACCOUNT);
	if (!job->locs || !*starts)
		return -ENOMEM;
	if (copy_from_user(job->locs, u64_to_user_ptr(args->locations_ptr),
			   n * sizeof(*job->locs)) ||
	    copy_from_user(*starts, u64_to_user_ptr(args->location_starts_ptr),
			   n * sizeof(**starts)))
		return -EFAULT;

	for (k = 0; k < n; k++) {
		args->bad_location = k;
		if ((k == 0 && (*starts)[0] != 0) ||
		    (k > 0 && (*starts)[k] <= (*starts)[k - 1]) ||
		    (*starts)[k] >= args->count)
			return -EINVAL;
		ret = uvm_location_resolve(&job->locs[k],
					   BIT(UVM_LOCATION_GPU) | BIT(UVM_LOCATION_HOST) |
					   BIT(UVM_LOCATION_HOST_NUMA) |
					   BIT(UVM_LOCATION_HOST_NUMA_CURRENT),
					   &job->locs[k]);
		if (ret)
			return ret;
	}
	args->bad_location = UVM_MIGRATE_NO_INDEX;
	return 0;
}

/**
 * uvm_migrate_check_range() - is a range managed or pageable memory?
 * @va_space:	the VA space; its lock held and the mm's mmap_lock
 * @r:		the range, rounded
 * @seen:	see uvm_migrate_range_ok()
 * @pageable:	out: true for pageable memory
 *
 * Return: 0 or -EINVAL.
 */
static int uvm_migrate_check_range(struct uvm_va_space *va_space,
				   const struct uvm_range *r, struct uvm_migrate_seen *seen,
				   bool *pageable)
{
	u64 start, end;

	*pageable = false;
	if (uvm_migrate_range_ok(va_space, r, seen))
		return 0;
	if (uvm_hmm_check_user_range(va_space, r->address, r->length - r->address,
				     &start, &end, pageable) || !*pageable)
		return -EINVAL;
	return 0;
}

/* Move the first @n elements of *@arr into a new array of @cap. */
static int uvm_migrate_regrow(void **arr, size_t size, u64 n, u64 cap)
{
	void *grown = kvmalloc_array(cap, size, GFP_KERNEL_ACCOUNT);

	if (!grown)
		return -ENOMEM;
	if (n)
		memcpy(grown, *arr, n * size);
	kvfree(*arr);
	*arr = grown;
	return 0;
}

/**
 * uvm_migrate_grow() - make room for more runs
 * @job:	the job being built; job->nruns == job->cap < job->count
 *
 * Return: 0 or -ENOMEM (the job keeps what it had).
 */
static int uvm_migrate_grow(struct uvm_migrate_job *job)
{
	u64 cap = min(job->count, max_t(u64, 4 * job->cap, 64));
	int ret;

	ret = uvm_migrate_regrow((void **)&job->ranges, sizeof(*job->ranges), job->nruns, cap) ?:
	      uvm_migrate_regrow((void **)&job->run_ids, sizeof(*job->run_ids), job->nruns, cap);
	if (!ret && job->num_locations > 1)
		ret = uvm_migrate_regrow((void **)&job->run_loc, sizeof(*job->run_loc),
					 job->nruns, cap);
	if (!ret)
		job->cap = cap;
	return ret;
}

/**
 * uvm_migrate_add_run() - append a checked range to the job's runs
 * @job:	the job being built; job->nruns runs so far
 * @r:		the range, rounded, checked
 * @k:		index of its destination
 * @pageable:	it is pageable memory
 * @seen:	the managed range holding it (not @pageable)
 *
 * A managed range that continues the last run, inside the same managed
 * range and with the same destination, extends that run.  Pageable ranges
 * are never merged (each may span other VMAs).
 *
 * Return: 0 or -ENOMEM.
 */
static int uvm_migrate_add_run(struct uvm_migrate_job *job,
			       const struct uvm_range *r, u32 k, bool pageable,
			       const struct uvm_migrate_seen *seen)
{
	struct uvm_range *last = job->nruns ? &job->ranges[job->nruns - 1] : NULL;
	u64 j = job->nruns;
	int ret;

	if (last && !pageable && last->length == r->address && last->address >= seen->lo &&
	    (!job->run_loc || job->run_loc[j - 1] == k) &&
	    !(job->pageable && test_bit(j - 1, job->pageable))) {
		last->length = r->length;
		return 0;
	}
	if (j == job->cap) {
		ret = uvm_migrate_grow(job);
		if (ret)
			return ret;
	}
	job->ranges[j] = *r;
	job->run_ids[j] = pageable ? 0 : seen->id;
	if (job->run_loc)
		job->run_loc[j] = k;
	if (pageable) {
		if (!job->pageable) {
			job->pageable = bitmap_zalloc(job->count, GFP_KERNEL_ACCOUNT);
			if (!job->pageable)
				return -ENOMEM;
		}
		__set_bit(j, job->pageable);
	}
	job->nruns++;
	return 0;
}

/* Ranges copied in and checked per lock hold. */
#define UVM_MIGRATE_CHUNK	256

/**
 * uvm_migrate_check_chunk() - check ranges and append them to the runs
 * @va_space:	the VA space; its lock held and the mm's mmap_lock
 * @job:	the job being built
 * @r:		the ranges, as copied in; rounded in place
 * @base:	index of @r[0] in the batch
 * @n:		how many
 * @k:		in/out: index of the destination of range @base
 * @bad:	out: index of the first invalid range
 *
 * Return: 0, -EINVAL (*@bad set), -ENOMEM.
 */
static int uvm_migrate_check_chunk(struct uvm_va_space *va_space,
				   struct uvm_migrate_job *job,
				   struct uvm_range *r, u64 base, u64 n, u32 *k,
				   u32 *bad)
{
	struct uvm_migrate_seen seen = {};
	u64 i;
	bool pageable;
	int ret;

	for (i = 0; i < n; i++, r++) {
		if (!r->length || r->address + r->length < r->address ||
		    r->address + r->length > U64_MAX - PAGE_SIZE) {
			*bad = base + i;
			return -EINVAL;
		}
		/* Rounded: address = first byte, length = end. */
		r->length = round_up(r->address + r->length, PAGE_SIZE);
		r->address = round_down(r->address, PAGE_SIZE);
		while (*k + 1 < job->num_locations && base + i >= job->starts[*k + 1])
			(*k)++;
		ret = uvm_migrate_check_range(va_space, r, &seen, &pageable);
		if (ret) {
			*bad = base + i;
			return ret;
		}
		ret = uvm_migrate_add_run(job, r, *k, pageable, &seen);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * uvm_migrate_copy_ranges() - copy in and check the ranges
 * @va_space:	the VA space
 * @args:	the ioctl arguments
 * @job:	the job being built; gets its runs
 *
 * The ranges are copied in by chunks, each before the locks are taken (a
 * fault on the array takes mmap_lock), then rounded to pages, checked and
 * appended to the runs under mmap_lock and the VA space lock.  A range that
 * is not inside one managed range must be valid pageable memory
 * (uvm_hmm_check_user_range()); those runs are marked in job->pageable.  The
 * prefetch requests are recorded only once every range is valid: those of
 * managed runs in their blocks (VA space lock for read), those of pageable
 * runs in the policy store (for write).
 *
 * Return: 0, -EINVAL with args->bad_range set, -EFAULT, -ENOMEM, -EINTR.
 */
static int uvm_migrate_copy_ranges(struct uvm_va_space *va_space,
				   struct uvm_ioc_migrate *args,
				   struct uvm_migrate_job *job)
{
	struct uvm_range __user *user = u64_to_user_ptr(args->ranges_ptr);
	u64 base, n, chunk = min_t(u64, args->count, UVM_MIGRATE_CHUNK);
	struct uvm_range *buf;
	int ret = 0;
	u32 k = 0;

	buf = kmalloc_array(chunk, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (base = 0; base < args->count && !ret; base += n) {
		n = min(chunk, args->count - base);
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (copy_from_user(buf, user + base, n * sizeof(*buf))) {
			ret = -EFAULT;
			break;
		}
		if (mmap_read_lock_killable(va_space->mm)) {
			ret = -EINTR;
			break;
		}
		down_read(&va_space->lock);
		ret = uvm_migrate_check_chunk(va_space, job, buf, base, n, &k,
					      &args->bad_range);
		up_read(&va_space->lock);
		mmap_read_unlock(va_space->mm);
	}
	kfree(buf);
	if (ret)
		return ret;

	job->record_in_run = !(args->flags & UVM_MIGRATE_ASYNC);
	if (args->op == UVM_MIGRATE_DISCARD || (job->record_in_run && !job->pageable))
		return 0;
	if (!job->record_in_run) {
		if (down_read_killable(&va_space->lock))
			return -EINTR;
		ret = uvm_migrate_walk(va_space, job, uvm_migrate_record_block, NULL);
		up_read(&va_space->lock);
		if (ret)
			return ret;
	}
	if (!job->pageable)
		return 0;
	if (down_write_killable(&va_space->lock))
		return -EINTR;
	ret = uvm_migrate_pageable(va_space, job, true);
	up_write(&va_space->lock);
	return ret;
}

/**
 * uvm_ioc_migrate() - UVM_IOC_MIGRATE
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_migrate
 *
 * Return: 0 or -errno; see the uapi.
 */
int uvm_ioc_migrate(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_migrate *args = data;
	struct uvm_migrate_job *job;
	u64 fence;
	int ret;

	args->bad_range = UVM_MIGRATE_NO_INDEX;
	args->bad_location = UVM_MIGRATE_NO_INDEX;
	if (args->op < UVM_MIGRATE_PREFETCH || args->op > UVM_MIGRATE_DISCARD_PREFETCH ||
	    (args->flags & ~UVM_MIGRATE_ASYNC) || args->pad ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    !args->count || args->count > UVM_MIGRATE_MAX_RANGES)
		return -EINVAL;

	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job)
		return -ENOMEM;
	job->job.ops = &uvm_migrate_job_ops;
	job->job.weight = args->count;
	job->op = args->op;
	job->count = args->count;

	ret = uvm_migrate_copy_locations(args, job);
	if (!ret)
		ret = uvm_migrate_copy_ranges(va_space, args, job);
	if (ret) {
		uvm_migrate_job_free(&job->job);
		return ret;
	}

	ret = uvm_queue_submit(&va_space->queue, &job->job,
			       !(args->flags & UVM_MIGRATE_ASYNC), &fence);
	if (ret)
		return ret;
	args->fence = fence;
	if (args->flags & UVM_MIGRATE_ASYNC)
		return 0;
	return uvm_queue_wait(&va_space->queue, fence, false);
}
