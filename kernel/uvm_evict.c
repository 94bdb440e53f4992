// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Eviction: making room on a full GPU by moving VA blocks' pages out.
 *
 * DOC: Eviction
 *
 * Chunks of VA blocks sit on the GPU's LRU list, least recently used first;
 * fault servicing and prefetches move a block's chunk to the end.  When an
 * allocation finds the GPU full, block operations fail with -ENOSPC and
 * record the GPU; the caller drops its block lock and calls uvm_evict_gpu(),
 * then retries.  Eviction takes the least recently used chunk whose block it
 * can lock without waiting (a block being serviced or copied is in flight
 * and skipped; device memory is never on the list), moves the pages only
 * resident there to system memory, drops the GPU's other copies and frees
 * the chunk.  When no block gives memory back, the device-private pages of
 * pageable memory on that GPU go back to system memory, a chunk at a time
 * (uvm_hmm_devmem_evict_gpu()), so that managed and device memory can
 * always take vidmem that pageable migrations filled.  When every chunk
 * that could be evicted was in flight (its
 * block or VA space locked, its process exiting), the operation waits a
 * little and tries again, about a second at most
 * (uvm_evict_retry()).  When nothing can be evicted the operation
 * fails with -ENOMEM: a GPU fault becomes a fatal fault, a prefetch or copy
 * an error; nothing waits forever.
 *
 * The chunk's block may belong to another process's VA space: eviction
 * takes a reference on that VA space and its lock with trylock (it may
 * already hold its own VA space's lock for read), then looks the block up
 * again by index, since the block may have gone meanwhile.
 *
 * Eviction is a policy above the VA blocks: it picks victims from the
 * chunk allocator's LRU list (uvm_pmm.c, a leaf that knows nothing of
 * blocks) and evicts them with uvm_va_block_evict_gpu().
 *
 * Locking: called with no block lock held; takes uvm_pmm.lock (leaf) to
 * walk the LRU list, one block lock (trylock) and, for another VA space,
 * that VA space's lock (trylock); falling back to pageable memory, the
 * mmap lock of the chunk's owner for write (trylock: see
 * uvm_hmm_chunk_lock_owner_mm()).
 */
#include <linux/delay.h>
#include <linux/sched/signal.h>

#include "uvm_evict.h"
#include "uvm_gpu.h"
#include "uvm_hmm_devmem.h"
#include "uvm_va_block.h"
#include "uvm_va_space.h"

/**
 * uvm_evict_block() - evict a block's chunk, found by index
 * @gpu:	the GPU
 * @va_space:	the block's VA space, referenced
 * @held:	the VA space whose lock the caller holds for read, or NULL
 * @index:	the block's index
 * @ctx:	scratch space
 * @busy:	set when the chunk could not be evicted only because it is in
 *		flight: its VA space or block locked by someone else, its block
 *		gone or its chunk freed meanwhile
 *
 * Return: true when the chunk was freed.
 */
static bool uvm_evict_block(struct uvm_gpu *gpu, struct uvm_va_space *va_space,
			    struct uvm_va_space *held, u64 index,
				struct uvm_va_block_ctx *ctx, bool *busy)
{
	struct uvm_va_block *block;
	bool freed = false;
	int ret;

	if (va_space != held && !down_read_trylock(&va_space->lock)) {
		*busy = true;
		return false;
	}
	block = xa_load(&va_space->blocks, index);
	if (block && mutex_trylock(&block->lock)) {
		/* the evicted data's new home is its owner's, not the evictor's */
		struct mem_cgroup *old = uvm_va_space_charge_begin(va_space);

		ret = uvm_va_block_evict_gpu(block, ctx, gpu);
		uvm_va_space_charge_end(old);
		mutex_unlock(&block->lock);
		freed = !ret;
		if (ret == -ENOENT)
			*busy = true;
	} else {
		*busy = true;
	}
	if (va_space != held)
		up_read(&va_space->lock);
	return freed;
}

/**
 * uvm_evict_gpu() - free one chunk of a full GPU
 * @gpu:	the GPU
 * @held:	the VA space whose lock the caller holds for read, or NULL
 * @ctx:	scratch space, not in use by the caller
 * @busy:	out, may be NULL: when no chunk was freed, whether some were
 *		skipped only because they were in flight (see
 *		uvm_evict_block(); a VA space being torn down counts too)
 *
 * Tries the chunks in LRU order, at most once each.
 *
 * Context: process context; no block lock held.
 * Return: true when a chunk was freed (the caller retries its allocation).
 */
bool uvm_evict_gpu(struct uvm_gpu *gpu, struct uvm_va_space *held,
		   struct uvm_va_block_ctx *ctx, bool *busy)
{
	struct uvm_pmm *pmm = &gpu->pmm;
	struct uvm_pmm_chunk *chunk;
	struct uvm_va_space *va_space;
	bool freed, skipped = false;
	u64 tries, index;

	spin_lock(&pmm->lock);
	tries = pmm->used_chunks;
	spin_unlock(&pmm->lock);

	while (tries--) {
		spin_lock(&pmm->lock);
		chunk = list_first_entry_or_null(&pmm->lru, struct uvm_pmm_chunk, lru);
		if (!chunk) {
			spin_unlock(&pmm->lock);
			break;
		}
		/* Whatever happens, try the next one next. */
		list_move_tail(&chunk->lru, &pmm->lru);
		va_space = chunk->va_space;
		index = chunk->block_index;
		if (va_space != held && !kref_get_unless_zero(&va_space->kref)) {
			/* being torn down: its chunks are about to be freed */
			spin_unlock(&pmm->lock);
			skipped = true;
			continue;
		}
		spin_unlock(&pmm->lock);

		freed = uvm_evict_block(gpu, va_space, held, index, ctx, &skipped);
		if (va_space != held)
			uvm_va_space_put(va_space);
		if (freed) {
			uvm_gpu_count_event(gpu, UVM_GPU_EVICTIONS, 1);
			return true;
		}
	}
	/* no managed block gave memory back: pageable memory's device pages */
	if (uvm_hmm_devmem_evict_gpu(gpu)) {
		uvm_gpu_count_event(gpu, UVM_GPU_EVICTIONS, 1);
		return true;
	}
	if (busy)
		*busy = skipped;
	return false;
}

/*
 * Waits for busy chunks before an operation on a full GPU gives up: up to
 * UVM_OOM_WAITS of UVM_OOM_WAIT_MS each, about a second in all.
 */
#define UVM_OOM_WAITS		100
#define UVM_OOM_WAIT_MS		10

/*
 * Evictions one operation may make without getting anywhere.  An operation
 * that needs room for two blocks (a copy between two managed ranges) on a
 * GPU with room for one evicts, in turn, the chunk it allocated for the
 * other: without a bound it never ends.  After this many it fails as when
 * nothing could be evicted.
 */
#define UVM_OOM_EVICTIONS	256

/**
 * uvm_evict_retry() - after a block operation, make room and retry?
 * @ctx:	the operation's scratch space
 * @held:	the VA space whose lock the caller holds for read
 * @ret:	in/out: the operation's result
 *
 * Block operations that find a GPU full fail with -ENOSPC.  The caller drops
 * its block lock and calls this after every attempt: if a chunk of that GPU
 * could be evicted it returns true and the caller retries.  If none could,
 * but some were only busy (their block being serviced or copied, their VA
 * space locked or being torn down: in flight, free or evictable in a
 * moment), it waits a little and the caller retries, a bounded number of
 * times; a task with a fatal signal does not wait, and a context that may
 * not wait (uvm_va_block_ctx_set_no_wait()) gets *@ret -EAGAIN.  Evictions
 * are bounded too (UVM_OOM_EVICTIONS without success).  Otherwise *@ret
 * becomes -ENOMEM.
 *
 * Context: process context, no block lock held; may sleep.
 * Return: true to retry.
 */
bool uvm_evict_retry(struct uvm_va_block_ctx *ctx, struct uvm_va_space *held, int *ret)
{
	struct uvm_va_block_oom *oom = uvm_va_block_ctx_oom(ctx);
	struct uvm_gpu *gpu = oom->gpu;
	bool busy = false;

	if (*ret != -ENOSPC) {
		oom->waits = 0;
		oom->evictions = 0;
		return false;
	}
	oom->gpu = NULL;
	if (gpu && oom->evictions < UVM_OOM_EVICTIONS &&
	    !fatal_signal_pending(current) && uvm_evict_gpu(gpu, held, ctx, &busy)) {
		oom->evictions++;
		cond_resched();
		return true;
	}
	if (gpu && busy && oom->waits < UVM_OOM_WAITS &&
	    !fatal_signal_pending(current)) {
		if (oom->no_wait) {
			oom->evictions = 0;
			*ret = -EAGAIN;
			return false;
		}
		oom->waits++;
		msleep(UVM_OOM_WAIT_MS);
		return true;
	}
	oom->waits = 0;
	oom->evictions = 0;
	*ret = -ENOMEM;
	return false;
}
