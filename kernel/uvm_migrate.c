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
 * struct uvm_migrate_span - one validated range of a job
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 * @loc:	index of its destination in the job's locations
 */
struct uvm_migrate_span {
	u64 start;
	u64 end;
	u32 loc;
};

/**
 * struct uvm_migrate_job - a validated batch
 * @job:	the queue's part; weight = number of ranges
 * @op:		UVM_MIGRATE_*
 * @count:	spans
 * @spans:	the ranges
 * @locs:	resolved destinations (no HOST_NUMA_CURRENT)
 */
struct uvm_migrate_job {
	struct uvm_job job;
	u32 op;
	u64 count;
	struct uvm_migrate_span *spans;
	struct uvm_location *locs;
};

static inline struct uvm_migrate_job *to_uvm_migrate_job(struct uvm_job *job)
{
	return container_of(job, struct uvm_migrate_job, job);
}

static void uvm_migrate_job_free(struct uvm_job *j)
{
	struct uvm_migrate_job *job = to_uvm_migrate_job(j);

	kvfree(job->spans);
	kvfree(job->locs);
	kfree(job);
}

/* Execution */

/**
 * uvm_migrate_span_run() - run one range of a job
 * @va_space:	the VA space; its lock held for read
 * @ctx:	scratch space
 * @op:		UVM_MIGRATE_*
 * @span:	the range
 * @loc:	its destination (prefetching ops)
 *
 * Return: 0 or -errno.
 */
static int uvm_migrate_span_run(struct uvm_va_space *va_space,
				struct uvm_va_block_ctx *ctx, u32 op,
				const struct uvm_migrate_span *span,
				const struct uvm_location *loc)
{
	struct uvm_page_mask mask;
	struct uvm_va_block *block;
	u64 addr, start, end;
	int ret = 0;

	if (uvm_va_range_check(va_space, span->start, span->end - span->start,
			       &start, &end))
		return -EFAULT;

	for (addr = span->start; addr < span->end && !ret;
	     addr = round_down(addr, UVM_VA_BLOCK_SIZE) + UVM_VA_BLOCK_SIZE) {
		if (op == UVM_MIGRATE_DISCARD) {
			block = uvm_va_block_lookup(va_space, addr);
			if (!block)
				continue;
		} else {
			block = uvm_va_block_get_or_create(va_space, addr);
			if (IS_ERR(block))
				return PTR_ERR(block);
		}
		uvm_va_block_range_mask(block, span->start, span->end, &mask);
		mutex_lock(&block->lock);
		if (op != UVM_MIGRATE_PREFETCH)
			uvm_va_block_discard(block, &mask);
		if (op != UVM_MIGRATE_DISCARD)
			ret = uvm_va_block_prefetch(block, ctx, &mask, loc);
		mutex_unlock(&block->lock);
	}
	return ret;
}

/**
 * uvm_migrate_job_run() - run a whole job
 * @va_space:	the VA space
 * @j:		the job
 *
 * Every range is attempted; the first error is returned.
 *
 * Return: 0 or -errno.
 */
static int uvm_migrate_job_run(struct uvm_va_space *va_space, struct uvm_job *j)
{
	struct uvm_migrate_job *job = to_uvm_migrate_job(j);
	struct uvm_va_block_ctx *ctx;
	int ret = 0, err;
	u64 i;

	ctx = uvm_va_block_ctx_alloc();
	if (!ctx)
		return -ENOMEM;
	down_read(&va_space->lock);
	for (i = 0; i < job->count; i++) {
		const struct uvm_migrate_span *span = &job->spans[i];

		err = uvm_migrate_span_run(va_space, ctx, job->op, span,
					   job->locs ? &job->locs[span->loc] : NULL);
		if (err && !ret)
			ret = err;
	}
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
 * @job:	the job being built; gets locs
 * @starts:	out: kvmalloc()ed location starts, freed by the caller
 *
 * Return: 0, -EINVAL/-ENODEV with args->bad_location set, -EFAULT, -ENOMEM.
 */
static int uvm_migrate_copy_locations(struct uvm_ioc_migrate *args,
				      struct uvm_migrate_job *job, u64 **starts)
{
	u32 k, n = args->num_locations;
	int ret;

	if (args->op == UVM_MIGRATE_DISCARD)
		return n || args->locations_ptr || args->location_starts_ptr ?
		       -EINVAL : 0;
	if (!n || n > args->count)
		return -EINVAL;

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
 * @job:	the job being built; gets spans
 * @starts:	location starts (prefetching ops)
 *
 * Return: 0, -EINVAL with args->bad_range set, -EFAULT, -ENOMEM.
 */
static int uvm_migrate_copy_ranges(struct uvm_va_space *va_space,
				   struct uvm_ioc_migrate *args,
				   struct uvm_migrate_job *job, const u64 *starts)
{
	struct uvm_range __user *uranges = u64_to_user_ptr(args->ranges_ptr);
	struct uvm_range r;
	u32 loc = 0;
	int ret = 0;
	u64 i;

	job->spans = kvmalloc_array(args->count, sizeof(*job->spans),
				    GFP_KERNEL_ACCOUNT);
	if (!job->spans)
		return -ENOMEM;

	down_read(&va_space->lock);
	for (i = 0; i < args->count; i++) {
		if (copy_from_user(&r, &uranges[i], sizeof(r))) {
			ret = -EFAULT;
			break;
		}
		if (starts && loc + 1 < args->num_locations && i == starts[loc + 1])
			loc++;
		job->spans[i].loc = loc;
		ret = uvm_va_range_check(va_space, r.address, r.length,
					 &job->spans[i].start, &job->spans[i].end);
		if (ret) {
			args->bad_range = i;
			break;
		}
	}
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
	u64 *starts = NULL;
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

	ret = uvm_migrate_copy_locations(args, job, &starts);
	if (!ret)
		ret = uvm_migrate_copy_ranges(va_space, args, job, starts);
	kvfree(starts);
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
