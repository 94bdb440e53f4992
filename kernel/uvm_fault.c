// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Servicing of replayable GPU faults, in batches.
 *
 * DOC: Replayable fault servicing
 *
 * A GPU access that misses its translation writes a fault entry into the
 * GPU's replayable fault buffer and stalls.  The backend signals it with
 * uvm_gpu_fault_notify(), which queues the GPU's servicing work.  The work
 * runs the pipeline, batch after batch, until the buffer is empty:
 *
 * 1. fetch: up to fault_batch_size entries from the buffer;
 * 2. sort and coalesce: order by (GPU VA space, page, access) and merge the
 *    entries of one page into one fault with the strongest access type;
 *    what was merged is counted as duplicates;
 * 3. service: per VA space (found by the entries' instance id), per 2 MiB
 *    block under one hold of the block lock: make the faulted pages resident
 *    on the GPU and map them (uvm_va_block_service_gpu_faults());
 * 4. cancel the fatal faults (addresses outside managed memory, or memory
 *    that could not be allocated): the faulting accesses end with an error;
 * 5. replay: every stalled access retries.  Accesses whose fault was not
 *    in this batch (fetched later, or dropped on overflow) fault again and
 *    are coalesced in a later batch.  fault_replay_policy moves the replay:
 *    after each block, after each batch (the default), after each batch
 *    with the buffer flushed first (its entries are mostly duplicates of
 *    what was just serviced), or once when the buffer is empty.
 *
 * The time spent in each stage is summed per GPU (sysfs fault_*_ns).
 *
 * One pass handles at most UVM_FAULT_MAX_BATCHES_PER_PASS batches, then
 * requeues itself so that other work gets the CPU.  Each GPU has its own
 * unbound work item: GPUs are serviced in parallel, on any CPU.
 *
 * Locking: the servicing state (struct uvm_fault_service) belongs to the
 * work item, which never runs concurrently with itself.  Per VA space it
 * takes uvm_va_space.lock for read, per block uvm_va_block.lock.  It does
 * not take mmap_lock.
 */
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>

#include "uvm_fault.h"
#include "uvm_gpu.h"
#include "uvm_va_block.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

#define UVM_FAULT_BATCH_DEFAULT		256
#define UVM_FAULT_BATCH_MIN		1
#define UVM_FAULT_BATCH_MAX		4096
#define UVM_FAULT_MAX_BATCHES_PER_PASS	20

/* fault_replay_policy values */
#define UVM_REPLAY_BLOCK	1	/* after each block serviced */
#define UVM_REPLAY_BATCH	2	/* after each batch */
#define UVM_REPLAY_BATCH_FLUSH	3	/* after each batch, buffer flushed first */
#define UVM_REPLAY_ONCE		4	/* once the buffer is empty */

static unsigned int fault_batch_size = UVM_FAULT_BATCH_DEFAULT;
module_param(fault_batch_size, uint, 0444);
MODULE_PARM_DESC(fault_batch_size,
		 "Replayable faults fetched and serviced per batch (default "
		 __stringify(UVM_FAULT_BATCH_DEFAULT) ", "
		 __stringify(UVM_FAULT_BATCH_MIN) ".."
		 __stringify(UVM_FAULT_BATCH_MAX) ")");

static unsigned int fault_replay_policy = UVM_REPLAY_BATCH;
module_param(fault_replay_policy, uint, 0644);
MODULE_PARM_DESC(fault_replay_policy,
		 "When stalled accesses retry: 1 per block, 2 per batch (default), 3 per batch after a buffer flush, 4 when the buffer is empty");

/**
 * struct uvm_fault_service - the servicing state of one GPU
 * @entries:	the batch: fetched entries, then the coalesced faults
 * @merged:	for each coalesced fault, how many entries it stands for
 * @fatal:	faults to cancel after servicing
 * @nfatal:	entries in @fatal
 * @ctx:	scratch space for block operations
 * @req:	the faults of the block being serviced
 */
struct uvm_fault_service {
	struct uvm_fault_entry *entries;
	u32 *merged;
	struct uvm_fault_entry *fatal;
	u32 nfatal;
	struct uvm_va_block_ctx *ctx;
	struct uvm_fault_block_req req;
};

/**
 * uvm_fault_params_check() - validate the module parameters
 *
 * Return: 0 or -EINVAL.
 */
int uvm_fault_params_check(void)
{
	if (fault_replay_policy < UVM_REPLAY_BLOCK ||
	    fault_replay_policy > UVM_REPLAY_ONCE) {
		pr_err("fault_replay_policy=%u is outside %u..%u\n", fault_replay_policy,
		       UVM_REPLAY_BLOCK, UVM_REPLAY_ONCE);
		return -EINVAL;
	}
	if (fault_batch_size < UVM_FAULT_BATCH_MIN ||
	    fault_batch_size > UVM_FAULT_BATCH_MAX) {
		pr_err("fault_batch_size=%u is outside %u..%u\n", fault_batch_size,
		       UVM_FAULT_BATCH_MIN, UVM_FAULT_BATCH_MAX);
		return -EINVAL;
	}
	return 0;
}

/**
 * uvm_fault_batch_size() - faults per batch
 *
 * Return: the fault_batch_size parameter.
 */
u32 uvm_fault_batch_size(void)
{
	return fault_batch_size;
}

static int uvm_fault_cmp(const void *a, const void *b)
{
	const struct uvm_fault_entry *x = a, *y = b;
	u64 px = x->va >> PAGE_SHIFT, py = y->va >> PAGE_SHIFT;

	if (x->instance != y->instance)
		return x->instance < y->instance ? -1 : 1;
	if (px != py)
		return px < py ? -1 : 1;
	/* Strongest access first: it is the one kept. */
	return (int)y->access - (int)x->access;
}

/**
 * uvm_fault_coalesce() - sort a batch and merge the faults of each page
 * @svc:	servicing state; entries hold @n fetched entries
 * @n:		entries fetched
 *
 * Return: the number of distinct faults, now at the front of entries.
 */
static u32 uvm_fault_coalesce(struct uvm_fault_service *svc, u32 n)
{
	struct uvm_fault_entry *e = svc->entries;
	u32 i, unique = 0;

	sort(e, n, sizeof(*e), uvm_fault_cmp, NULL);
	for (i = 0; i < n; i++) {
		if (unique && e[i].instance == e[unique - 1].instance &&
		    e[i].va >> PAGE_SHIFT == e[unique - 1].va >> PAGE_SHIFT) {
			svc->merged[unique - 1]++;
			continue;
		}
		e[unique] = e[i];
		svc->merged[unique++] = 1;
	}
	return unique;
}

static void uvm_fault_add_fatal(struct uvm_fault_service *svc,
				const struct uvm_fault_entry *e)
{
	svc->fatal[svc->nfatal++] = *e;
}

/**
 * uvm_fault_service_block() - service the faults of one block
 * @gpu:	the faulting GPU
 * @svc:	servicing state
 * @va_space:	the VA space; its lock held for read
 * @first:	index of the block's first fault in entries
 * @end:	index after its last
 *
 * Faults on device and registered host memory map their fixed pages; faults
 * on managed memory are serviced together through the block.  Faults outside
 * any allocation, and all of the block's managed faults when the block
 * cannot be serviced, are added to the fatal list.
 */
static void uvm_fault_service_block(struct uvm_gpu *gpu,
				    struct uvm_fault_service *svc,
				    struct uvm_va_space *va_space,
				    u32 first, u32 end)
{
	struct uvm_fault_block_req *req = &svc->req;
	struct uvm_fault_entry *e = svc->entries;
	struct uvm_va_block *block;
	u32 i, page, nreq = 0;
	int ret;

	memset(req, 0, sizeof(*req));
	for (i = first; i < end; i++) {
		struct uvm_va_range *range = uvm_va_range_find(va_space, e[i].va);

		if (!range) {
			uvm_fault_add_fatal(svc, &e[i]);
			continue;
		}
		if (range->kind != UVM_RANGE_MANAGED) {
			/* Device and host memory: fixed pages, just map them. */
			if (uvm_va_range_service_fault(va_space, range, gpu,
						       e[i].va, e[i].access))
				uvm_fault_add_fatal(svc, &e[i]);
			continue;
		}
		page = (e[i].va & (UVM_VA_BLOCK_SIZE - 1)) >> PAGE_SHIFT;
		__set_bit(page, req->pages.bits);
		if (e[i].access >= UVM_FAULT_ACCESS_WRITE)
			__set_bit(page, req->write.bits);
		if (e[i].access >= UVM_FAULT_ACCESS_ATOMIC)
			__set_bit(page, req->atomic.bits);
		nreq++;
	}
	if (!nreq)
		return;

	block = uvm_va_block_get_or_create(va_space, e[first].va);
	if (IS_ERR(block)) {
		ret = PTR_ERR(block);
	} else {
		/* A full GPU: evict with the block lock dropped, then retry. */
		do {
			mutex_lock(&block->lock);
			ret = uvm_va_block_service_gpu_faults(block, svc->ctx, gpu, req);
			mutex_unlock(&block->lock);
		} while (uvm_va_block_oom_evict(svc->ctx, va_space, &ret));
	}
	if (!ret)
		return;

	pr_info_ratelimited("GPU %u: cannot service faults at 0x%llx: %d\n",
			    gpu->index, e[first].va & ~(UVM_VA_BLOCK_SIZE - 1), ret);
	for (i = first; i < end; i++) {
		struct uvm_va_range *range = uvm_va_range_find(va_space, e[i].va);

		if (range && range->kind == UVM_RANGE_MANAGED)
			uvm_fault_add_fatal(svc, &e[i]);
	}
}

/**
 * uvm_fault_service_va_space() - service the faults of one VA space
 * @gpu:	the faulting GPU
 * @svc:	servicing state
 * @first:	index of the VA space's first fault in entries
 * @end:	index after its last
 *
 * Faults of a VA space that no longer exists are dropped: their launches
 * are gone with it.
 */
static void uvm_fault_service_va_space(struct uvm_gpu *gpu,
				       struct uvm_fault_service *svc,
				       u32 first, u32 end)
{
	struct uvm_fault_entry *e = svc->entries;
	struct uvm_va_space *va_space;
	u32 i, next, raw = 0, nfatal = svc->nfatal;

	va_space = uvm_va_space_get_by_instance(gpu, e[first].instance);
	if (!va_space)
		return;

	down_read(&va_space->lock);
	for (i = first; i < end; i = next) {
		u64 block = e[i].va >> UVM_VA_BLOCK_SHIFT;

		for (next = i + 1; next < end; next++)
			if (e[next].va >> UVM_VA_BLOCK_SHIFT != block)
				break;
		uvm_fault_service_block(gpu, svc, va_space, i, next);
		if (READ_ONCE(fault_replay_policy) == UVM_REPLAY_BLOCK) {
			gpu->ops->fault_replay(gpu);
			uvm_gpu_count_event(gpu, UVM_GPU_REPLAYS, 1);
		}
	}
	up_read(&va_space->lock);

	for (i = first; i < end; i++)
		raw += svc->merged[i];
	uvm_va_space_count(va_space, UVM_COUNTER_GPU_FAULTS, raw);
	uvm_va_space_count(va_space, UVM_COUNTER_GPU_FAULTS_DUP, raw - (end - first));
	uvm_va_space_count(va_space, UVM_COUNTER_GPU_FAULT_BATCHES, 1);
	uvm_va_space_count(va_space, UVM_COUNTER_GPU_REPLAYS, 1);
	uvm_va_space_count(va_space, UVM_COUNTER_GPU_FATAL_FAULTS,
			   svc->nfatal - nfatal);
	uvm_va_space_put(va_space);
}

/**
 * uvm_fault_service_batch() - service the coalesced faults of a batch
 * @gpu:	the faulting GPU
 * @svc:	servicing state
 * @n:		distinct faults at the front of entries, sorted
 */
static void uvm_fault_service_batch(struct uvm_gpu *gpu,
				    struct uvm_fault_service *svc, u32 n)
{
	struct uvm_fault_entry *e = svc->entries;
	u32 i, next;

	for (i = 0; i < n; i = next) {
		for (next = i + 1; next < n; next++)
			if (e[next].instance != e[i].instance)
				break;
		uvm_fault_service_va_space(gpu, svc, i, next);
	}
}

/**
 * uvm_fault_cancel_fatal() - end the accesses whose faults are fatal
 * @gpu:	the GPU
 * @svc:	servicing state; its fatal list is emptied
 */
static void uvm_fault_cancel_fatal(struct uvm_gpu *gpu,
				   struct uvm_fault_service *svc)
{
	u32 i;

	for (i = 0; i < svc->nfatal; i++) {
		const struct uvm_fault_entry *e = &svc->fatal[i];

		pr_info_ratelimited("GPU %u: fatal %s fault at 0x%llx\n", gpu->index,
				    e->access == UVM_FAULT_ACCESS_READ ? "read" :
				    e->access == UVM_FAULT_ACCESS_WRITE ? "write" :
				    "atomic", e->va);
		gpu->ops->fault_cancel(gpu, e->instance, e->va, e->access);
	}
	uvm_gpu_count_event(gpu, UVM_GPU_FATAL_FAULTS, svc->nfatal);
	svc->nfatal = 0;
}

/**
 * uvm_fault_flush() - drop the fault entries written meanwhile
 * @gpu:	the GPU
 * @svc:	servicing state; its entries are scratch afterwards
 *
 * The accesses behind them are stalled and fault again after the replay if
 * they still miss; most were duplicates of faults just serviced.
 */
static void uvm_fault_flush(struct uvm_gpu *gpu, struct uvm_fault_service *svc)
{
	bool overflow = false;
	u32 n;

	while ((n = gpu->ops->fault_fetch(gpu, svc->entries, fault_batch_size,
					  &overflow)))
		uvm_gpu_count_event(gpu, UVM_GPU_FAULTS_FLUSHED, n);
}

/**
 * uvm_fault_service_work() - the fault servicing loop of a GPU
 * @work:	uvm_gpu.fault_work
 *
 * fetch -> coalesce/sort -> service per block -> cancel fatal -> replay,
 * until the buffer is empty or the pass budget is spent.
 */
static void uvm_fault_service_work(struct work_struct *work)
{
	struct uvm_gpu *gpu = container_of(work, struct uvm_gpu, fault_work);
	struct uvm_fault_service *svc = gpu->fault;
	u32 batch, fetched, unique, policy;
	bool overflow, pending_replay = false;
	u64 t0, t1, t2, t3;

	for (batch = 0; batch < UVM_FAULT_MAX_BATCHES_PER_PASS; batch++) {
		policy = READ_ONCE(fault_replay_policy);
		overflow = false;
		t0 = ktime_get_ns();
		fetched = gpu->ops->fault_fetch(gpu, svc->entries,
						fault_batch_size, &overflow);
		if (!fetched && !overflow)
			break;
		t1 = ktime_get_ns();
		unique = uvm_fault_coalesce(svc, fetched);
		t2 = ktime_get_ns();
		uvm_fault_service_batch(gpu, svc, unique);
		uvm_fault_cancel_fatal(gpu, svc);
		t3 = ktime_get_ns();
		if (policy == UVM_REPLAY_BATCH_FLUSH)
			uvm_fault_flush(gpu, svc);
		if (policy == UVM_REPLAY_ONCE) {
			pending_replay = true;
		} else {
			/* Also after per-block replays: fatal and dropped faults. */
			gpu->ops->fault_replay(gpu);
			uvm_gpu_count_event(gpu, UVM_GPU_REPLAYS, 1);
		}

		uvm_gpu_count_event(gpu, UVM_GPU_FAULTS, fetched);
		uvm_gpu_count_event(gpu, UVM_GPU_FAULTS_DUP, fetched - unique);
		uvm_gpu_count_event(gpu, UVM_GPU_FAULT_BATCHES, fetched ? 1 : 0);
		uvm_gpu_count_event(gpu, UVM_GPU_FAULT_OVERFLOWS, overflow ? 1 : 0);
		uvm_gpu_count_event(gpu, UVM_GPU_FETCH_NS, t1 - t0);
		uvm_gpu_count_event(gpu, UVM_GPU_COALESCE_NS, t2 - t1);
		uvm_gpu_count_event(gpu, UVM_GPU_SERVICE_NS, t3 - t2);
		uvm_gpu_count_event(gpu, UVM_GPU_REPLAY_NS, ktime_get_ns() - t3);
	}
	if (pending_replay) {
		gpu->ops->fault_replay(gpu);
		uvm_gpu_count_event(gpu, UVM_GPU_REPLAYS, 1);
	}
	/* Faults keep coming: let other work run, continue in a new pass. */
	if (batch == UVM_FAULT_MAX_BATCHES_PER_PASS)
		queue_work(gpu->fault_wq, &gpu->fault_work);
}

/**
 * uvm_gpu_fault_notify() - the GPU has pending faults (the fault interrupt)
 * @gpu:	the GPU
 *
 * Context: any, including atomic.
 */
void uvm_gpu_fault_notify(struct uvm_gpu *gpu)
{
	queue_work(gpu->fault_wq, &gpu->fault_work);
}

static void uvm_fault_service_free(struct uvm_fault_service *svc)
{
	uvm_va_block_ctx_free(svc->ctx);
	kvfree(svc->fatal);
	kvfree(svc->merged);
	kvfree(svc->entries);
	kfree(svc);
}

/**
 * uvm_fault_gpu_init() - set up fault servicing for a GPU
 * @gpu:	the GPU being registered
 *
 * Return: 0 or -ENOMEM.
 */
int uvm_fault_gpu_init(struct uvm_gpu *gpu)
{
	struct uvm_fault_service *svc;

	svc = kzalloc(sizeof(*svc), GFP_KERNEL);
	if (!svc)
		return -ENOMEM;
	svc->entries = kvcalloc(fault_batch_size, sizeof(*svc->entries), GFP_KERNEL);
	svc->merged = kvcalloc(fault_batch_size, sizeof(*svc->merged), GFP_KERNEL);
	svc->fatal = kvcalloc(fault_batch_size, sizeof(*svc->fatal), GFP_KERNEL);
	svc->ctx = uvm_va_block_ctx_alloc();
	if (!svc->entries || !svc->merged || !svc->fatal || !svc->ctx)
		goto err_free_svc;

	gpu->fault_wq = alloc_workqueue("uvm_fault_gpu%u", WQ_UNBOUND | WQ_HIGHPRI,
					1, gpu->index);
	if (!gpu->fault_wq)
		goto err_free_svc;
	INIT_WORK(&gpu->fault_work, uvm_fault_service_work);
	gpu->fault = svc;
	return 0;

err_free_svc:
	uvm_fault_service_free(svc);
	return -ENOMEM;
}

/**
 * uvm_fault_gpu_deinit() - stop fault servicing for a GPU
 * @gpu:	the GPU being unregistered; the backend raises no more faults
 */
void uvm_fault_gpu_deinit(struct uvm_gpu *gpu)
{
	destroy_workqueue(gpu->fault_wq);
	uvm_fault_service_free(gpu->fault);
	gpu->fault = NULL;
}
