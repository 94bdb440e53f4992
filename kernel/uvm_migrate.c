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
 * grouping, every range inside one managed range); the first invalid entry
 * fails the ioctl with its index in bad_range or bad_location and nothing
 * happens.
 *
 * A valid batch becomes a job of the VA space's ordered queue (uvm_queue.c):
 * it gets the next fence, runs after every earlier job, synchronously or
 * asynchronously (UVM_MIGRATE_ASYNC).
 *
 * Running a job takes the VA space lock for read and each block's lock in
 * turn; ranges unmapped since validation are skipped with -EFAULT recorded.
 *
 * Locking: none of its own.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uvm_gpu.h"
#include "uvm_migrate.h"
#include "uvm_queue.h"
#include "uvm_va_block.h"
#include "uvm_va_policy.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

/**
 * struct uvm_migrate_job - a validated batch
 * @job:	the queue's part; weight = number of ranges
 * @op:		UVM_MIGRATE_*
 * @count:	ranges
 * @ranges:	the ranges, rounded to pages: address is the first byte and
 *		length the last byte + 1
 * @num_locations: destinations (prefetching ops)
 * @locs:	resolved destinations (no HOST_NUMA_CURRENT)
 * @starts:	location k applies to ranges starts[k] .. starts[k + 1] - 1
 */
struct uvm_migrate_job {
	struct uvm_job job;
	u32 op;
	u64 count;
	struct uvm_range *ranges;
	u32 num_locations;
	struct uvm_location *locs;
	u64 *starts;
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
	kvfree(job->locs);
	kvfree(job->starts);
	kfree(job);
}

/* Walking a batch by block */

/**
 * uvm_migrate_range_ok() - is a range still one managed range?
 * @va_space:	the VA space; its lock held
 * @r:		rounded range
 * @lo:		in/out: start of the managed range last found
 * @hi:		in/out: its end
 *
 * Batches are usually sorted: the range last found answers most lookups.
 *
 * Return: true when [r->address, r->length) is inside one managed range.
 */
static bool uvm_migrate_range_ok(struct uvm_va_space *va_space,
				 const struct uvm_range *r, u64 *lo, u64 *hi)
{
	struct uvm_va_range *range;

	if (r->address >= *lo && r->length <= *hi)
		return true;
	range = uvm_va_range_find(va_space, r->address);
	if (!range || range->kind != UVM_RANGE_MANAGED ||
	    uvm_va_range_end(range) < r->length)
		return false;
	*lo = uvm_va_range_start(range);
	*hi = uvm_va_range_end(range);
	return true;
}

/**
 * uvm_migrate_walk() - call @fn per block of a batch
 * @va_space:	the VA space; its lock held
 * @job:	the batch
 * @fn:		called once per run of consecutive range pieces that fall
 *		into one 2 MiB block with one destination
 * @arg:	for @fn
 *
 * Ranges no longer inside a managed range are skipped (-EFAULT).  Every
 * range is attempted; the first error is returned.
 *
 * Return: 0 or -errno.
 */
static int uvm_migrate_walk(struct uvm_va_space *va_space,
			    struct uvm_migrate_job *job, uvm_migrate_block_fn fn,
			    void *arg)
{
	u64 cur = U64_MAX, lo = 0, hi = 0, i, addr, next, blk;
	const struct uvm_location *loc = NULL, *cur_loc = NULL;
	struct uvm_page_mask mask;
	u32 k = 0;
	int ret = 0, err;

	for (i = 0; i < job->count; i++) {
		const struct uvm_range *r = &job->ranges[i];

		if (job->locs) {
			if (k + 1 < job->num_locations && i == job->starts[k + 1])
				k++;
			loc = &job->locs[k];
		}
		if (!uvm_migrate_range_ok(va_space, r, &lo, &hi)) {
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
				}
				uvm_page_mask_zero(&mask);
				cur = blk;
				cur_loc = loc;
			}
			bitmap_set(mask.bits, (addr & (UVM_VA_BLOCK_SIZE - 1)) >> PAGE_SHIFT,
				   (next - addr) >> PAGE_SHIFT);
		}
	}
	if (cur != U64_MAX) {
		err = fn(va_space, job, cur << UVM_VA_BLOCK_SHIFT, &mask, cur_loc, arg);
		ret = ret ?: err;
	}
	return ret;
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
 * The range query reports a prefetch from the moment it is accepted.
 *
 * Return: 0 or -ENOMEM.
 */
static int uvm_migrate_record_block(struct uvm_va_space *va_space,
				    struct uvm_migrate_job *job, u64 block_addr,
				    const struct uvm_page_mask *mask,
				    const struct uvm_location *loc, void *arg)
{
	struct uvm_va_block *block = uvm_va_block_get_or_create(va_space, block_addr);
	u16 code = uvm_location_encode(loc);
	unsigned int first, end;

	if (IS_ERR(block))
		return PTR_ERR(block);
	mutex_lock(&block->lock);
	for_each_page_run_in_mask(first, end, mask)
		memset16(&block->last_prefetch[first], code, end - first);
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
	mutex_unlock(&block->lock);
	if (job->op == UVM_MIGRATE_DISCARD)
		return 0;

	/* A full GPU: evict with the block lock dropped, then retry. */
	do {
		mutex_lock(&block->lock);
		ret = uvm_va_block_prefetch(block, arg, mask, loc);
		mutex_unlock(&block->lock);
	} while (uvm_va_block_oom_evict(arg, va_space, &ret));
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
	int ret;

	ctx = uvm_va_block_ctx_alloc();
	if (!ctx)
		return -ENOMEM;
	down_read(&va_space->lock);
	ret = uvm_migrate_walk(va_space, job, uvm_migrate_run_block, ctx);
	up_read(&va_space->lock);
	uvm_va_block_ctx_free(ctx);
	return ret;
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
 * uvm_migrate_copy_ranges() - copy in and check the ranges
 * @va_space:	the VA space
 * @args:	the ioctl arguments
 * @job:	the job being built; gets ranges, rounded
 *
 * The array is copied in before the VA space lock is taken: a fault on it
 * takes mmap_lock, which is above the VA space lock.
 *
 * Return: 0, -EINVAL with args->bad_range set, -EFAULT, -ENOMEM.
 */
static int uvm_migrate_copy_ranges(struct uvm_va_space *va_space,
				   struct uvm_ioc_migrate *args,
				   struct uvm_migrate_job *job)
{
	struct uvm_range *r;
	u64 i, lo = 0, hi = 0;
	int ret = 0;

	job->ranges = kvmalloc_array(args->count, sizeof(*job->ranges),
				     GFP_KERNEL_ACCOUNT);
	if (!job->ranges)
		return -ENOMEM;
	if (copy_from_user(job->ranges, u64_to_user_ptr(args->ranges_ptr),
			   args->count * sizeof(*job->ranges)))
		return -EFAULT;

	/* Round each range in place: address = first byte, length = end. */
	for (i = 0; i < args->count; i++) {
		r = &job->ranges[i];
		if (!r->length || r->address + r->length < r->address ||
		    r->address + r->length > U64_MAX - PAGE_SIZE) {
			args->bad_range = i;
			return -EINVAL;
		}
		r->length = round_up(r->address + r->length, PAGE_SIZE);
		r->address = round_down(r->address, PAGE_SIZE);
	}

	down_read(&va_space->lock);
	for (i = 0; i < args->count; i++) {
		if (!uvm_migrate_range_ok(va_space, &job->ranges[i], &lo, &hi)) {
			args->bad_range = i;
			ret = -EINVAL;
			break;
		}
	}
	if (!ret && args->op != UVM_MIGRATE_DISCARD)
		ret = uvm_migrate_walk(va_space, job, uvm_migrate_record_block, NULL);
	up_read(&va_space->lock);
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
