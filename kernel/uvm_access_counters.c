// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Access-counter driven migration.
 *
 * DOC: Access counters
 *
 * A GPU that maps memory remotely (system memory, or another GPU's vidmem:
 * accessed-by, a preferred location elsewhere, pages pinned by thrashing
 * control) never faults on it again, so faults cannot tell the driver that
 * the GPU uses that memory heavily.  With access_counters on (off by
 * default, as on the real driver), each GPU counts its remote accesses per
 * 2 MiB region; every access_counter_threshold accesses to a region it
 * notifies the driver, which migrates the region's remotely mapped pages to
 * that GPU and maps them locally (read-mostly pages get a copy), except
 * where a preferred location is set (the advice wins) or thrashing control
 * pinned the pages.
 *
 * Notifications are serviced by a work item on the GPU's fault workqueue,
 * so they never run concurrently with fault servicing of the same GPU.
 * Both parameters may change at run time.
 *
 * Locking: the work item takes the VA space lock for read, never waiting
 * for it (a notification whose VA space lock is contended is dropped: the
 * counters notify again), and each block's lock, like fault servicing.
 */
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "uvm_access_counters.h"
#include "uvm_evict.h"
#include "uvm_gpu.h"
#include "uvm_param.h"
#include "uvm_va_block.h"
#include "uvm_va_block_service.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

#define UVM_ACCESS_THRESHOLD_DEFAULT	256
#define UVM_ACCESS_THRESHOLD_MAX	65536
#define UVM_ACCESS_FETCH		32

static void uvm_access_counters_apply(void);

static bool access_counters_on;
static struct uvm_param_uint access_counter_threshold = {
	.val = UVM_ACCESS_THRESHOLD_DEFAULT,
	.min = 1,
	.max = UVM_ACCESS_THRESHOLD_MAX,
	.changed = uvm_access_counters_apply,
};

/* The threshold GPUs get now: 0 (off) or access_counter_threshold. */
static u32 uvm_access_counters_threshold(void)
{
	return READ_ONCE(access_counters_on) ?
	       uvm_param_get(&access_counter_threshold) : 0;
}

/* Push the current setting into every GPU. */
static void uvm_access_counters_apply(void)
{
	u32 threshold = uvm_access_counters_threshold();
	u32 i;

	for (i = 0; i < uvm_gpu_count; i++)
		if (uvm_gpus[i]->ops->access_counters_set)
			uvm_gpus[i]->ops->access_counters_set(uvm_gpus[i], threshold);
}

static int uvm_access_param_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_bool(val, kp);

	if (!ret)
		uvm_access_counters_apply();
	return ret;
}

static const struct kernel_param_ops uvm_access_param_ops = {
	.set = uvm_access_param_set,
	.get = param_get_bool,
};

module_param_cb(access_counters, &uvm_access_param_ops, &access_counters_on, 0644);
MODULE_PARM_DESC(access_counters,
		 "Migrate memory a GPU accesses remotely often to that GPU (default N)");
module_param_cb(access_counter_threshold, &uvm_param_uint_ops,
		&access_counter_threshold, 0644);
MODULE_PARM_DESC(access_counter_threshold,
		 "Remote accesses to a 2 MiB region per migration decision (default "
		 __stringify(UVM_ACCESS_THRESHOLD_DEFAULT) ", 1.."
		 __stringify(UVM_ACCESS_THRESHOLD_MAX) ")");

/**
 * uvm_access_counters_region() - migrate one notified region
 * @gpu:	the GPU that accessed it
 * @ctx:	scratch space
 * @e:		the notification
 */
static void uvm_access_counters_region(struct uvm_gpu *gpu, struct uvm_va_block_ctx *ctx,
				       const struct uvm_access_counter_entry *e)
{
	struct uvm_va_space *va_space = uvm_va_space_get_by_instance(gpu, e->instance);
	struct uvm_va_block *block;
	int ret;

	if (!va_space)
		return;
	/*
	 * A notification is a hint: when its VA space's lock is taken for
	 * writing, or a writer waits for it, the GPU's work goes on without
	 * it (one process must not stall the fault servicing of every other
	 * on the GPU, which shares this work's queue); the counters notify
	 * again as the accesses go on.
	 */
	if (!down_read_trylock(&va_space->lock)) {
		uvm_va_space_put(va_space);
		return;
	}
	block = uvm_va_block_lookup(va_space, e->va);
	if (block) {
		struct mem_cgroup *old = uvm_va_space_charge_begin(va_space);

		/* A full GPU: evict with the block lock dropped, then retry. */
		do {
			mutex_lock(&block->lock);
			ret = uvm_va_block_access_counter_migrate(block, ctx, gpu);
			mutex_unlock(&block->lock);
		} while (uvm_evict_retry(ctx, va_space, &ret));
		uvm_va_space_charge_end(old);
	}
	up_read(&va_space->lock);
	uvm_va_space_put(va_space);
}

static void uvm_access_counters_work(struct work_struct *work)
{
	struct uvm_gpu *gpu = container_of(work, struct uvm_gpu, access_work);
	struct uvm_access_counter_entry e[UVM_ACCESS_FETCH];
	struct uvm_va_block_ctx *ctx;
	u32 n, i;

	ctx = uvm_va_block_ctx_alloc();
	if (!ctx)
		return;
	uvm_va_block_ctx_set_cause(ctx, UVM_NL_CAUSE_ACCESS_COUNTER);
	while ((n = gpu->ops->access_counters_fetch(gpu, e, ARRAY_SIZE(e)))) {
		for (i = 0; i < n; i++)
			uvm_access_counters_region(gpu, ctx, &e[i]);
		uvm_gpu_count_event(gpu, UVM_GPU_ACCESS_NOTIFICATIONS, n);
	}
	uvm_va_block_ctx_free(ctx);
}

/**
 * uvm_gpu_access_counter_notify() - the GPU queued access notifications
 * @gpu:	the GPU
 *
 * Context: any, including atomic.
 */
void uvm_gpu_access_counter_notify(struct uvm_gpu *gpu)
{
	queue_work(gpu->fault_wq, &gpu->access_work);
}

/**
 * uvm_access_counters_gpu_init() - set up access counters of a new GPU
 * @gpu:	the GPU, its fault workqueue created
 *
 * Return: 0.
 */
int uvm_access_counters_gpu_init(struct uvm_gpu *gpu)
{
	INIT_WORK(&gpu->access_work, uvm_access_counters_work);
	if (gpu->ops->access_counters_set)
		gpu->ops->access_counters_set(gpu, uvm_access_counters_threshold());
	return 0;
}

/**
 * uvm_access_counters_gpu_deinit() - stop access counters of a GPU
 * @gpu:	the GPU being unregistered
 */
void uvm_access_counters_gpu_deinit(struct uvm_gpu *gpu)
{
	if (gpu->ops->access_counters_set)
		gpu->ops->access_counters_set(gpu, 0);
	cancel_work_sync(&gpu->access_work);
}
