// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Vidmem of a GPU as the core uses it: chunks, usage, eviction order.
 *
 * DOC: Physical memory manager
 *
 * The core allocates GPU memory in 2 MiB chunks: one per (VA block, GPU)
 * that has pages resident there (page i of a block lives at chunk + i
 * pages), and the chunks of device memory.  The backend's vidmem_alloc and
 * vidmem_free hand out the chunks; this file keeps the usage count that
 * GPU_INFO and sysfs report, and the eviction order.
 *
 * DOC: Eviction
 *
 * Chunks of VA blocks sit on the GPU's LRU list, least recently used first;
 * fault servicing and prefetches move a block's chunk to the end.  When an
 * allocation finds the GPU full, block operations fail with -ENOSPC and
 * record the GPU; the caller drops its block lock and calls uvm_pmm_evict(),
 * then retries.  Eviction takes the least recently used chunk whose block it
 * can lock without waiting (a block being serviced or copied is in flight
 * and skipped; device memory is never on the list), moves the pages only
 * resident there to system memory, drops the GPU's other copies and frees
 * the chunk.  When every chunk that could be evicted was in flight (its
 * block or VA space locked, its process exiting), the operation waits a
 * little and tries again, about a second at most
 * (uvm_va_block_oom_evict()).  When nothing can be evicted the operation
 * fails with -ENOMEM: a GPU fault becomes a fatal fault, a prefetch or copy
 * an error; nothing waits forever.
 *
 * The chunk's block may belong to another process's VA space: eviction
 * takes a reference on that VA space and its lock with trylock (it may
 * already hold its own VA space's lock for read), then looks the block up
 * again by index, since the block may have gone meanwhile.
 *
 * Locking: uvm_pmm.lock (spinlock, leaf) protects the usage count and the
 * LRU list.  Eviction holds no block lock when called; it takes one block
 * lock (trylock) and, for another VA space, that VA space's lock (trylock).
 */
#include <linux/spinlock.h>

#include "uvm_gpu.h"
#include "uvm_pmm.h"
#include "uvm_va_block.h"
#include "uvm_va_space.h"

/**
 * uvm_pmm_init() - set up the vidmem manager of a GPU
 * @pmm:	the manager
 * @total_chunks: vidmem size in chunks
 */
void uvm_pmm_init(struct uvm_pmm *pmm, u64 total_chunks)
{
	spin_lock_init(&pmm->lock);
	INIT_LIST_HEAD(&pmm->lru);
	pmm->total_chunks = total_chunks;
}

/**
 * uvm_pmm_alloc_chunk() - allocate one 2 MiB chunk that is never evicted
 * @gpu:	the GPU
 * @addr:	out: vidmem offset of the chunk
 *
 * Context: process context, may sleep.
 * Return: 0, or -ENOMEM when the GPU's memory is exhausted.
 */
int uvm_pmm_alloc_chunk(struct uvm_gpu *gpu, u64 *addr)
{
	int ret;

	ret = gpu->ops->vidmem_alloc(gpu, UVM_VA_BLOCK_SIZE, addr);
	if (ret)
		return ret;

	spin_lock(&gpu->pmm.lock);
	gpu->pmm.used_chunks++;
	spin_unlock(&gpu->pmm.lock);
	return 0;
}

/**
 * uvm_pmm_free_chunk() - free a chunk from uvm_pmm_alloc_chunk()
 * @gpu:	the GPU
 * @addr:	vidmem offset of the chunk
 *
 * The caller has removed every GPU mapping of the chunk and invalidated the
 * TLBs, and no copy involving it is in flight.
 */
void uvm_pmm_free_chunk(struct uvm_gpu *gpu, u64 addr)
{
	gpu->ops->vidmem_free(gpu, addr, UVM_VA_BLOCK_SIZE);

	spin_lock(&gpu->pmm.lock);
	WARN_ON(!gpu->pmm.used_chunks);
	gpu->pmm.used_chunks--;
	spin_unlock(&gpu->pmm.lock);
}

/**
 * uvm_pmm_alloc_block_chunk() - allocate an evictable chunk for a VA block
 * @gpu:	the GPU
 * @chunk:	the block's chunk record; addr is set
 * @va_space:	the block's VA space
 * @block_index: the block's address >> UVM_VA_BLOCK_SHIFT
 *
 * Context: process context, may sleep; the block's lock held.
 * Return: 0, or -ENOMEM when the GPU is full (the caller may evict).
 */
int uvm_pmm_alloc_block_chunk(struct uvm_gpu *gpu, struct uvm_pmm_chunk *chunk,
			      struct uvm_va_space *va_space, u64 block_index)
{
	int ret = uvm_pmm_alloc_chunk(gpu, &chunk->addr);

	if (ret)
		return ret;
	chunk->va_space = va_space;
	chunk->block_index = block_index;
	uvm_va_space_vidmem_add(va_space, gpu->index, UVM_VA_BLOCK_SIZE);
	spin_lock(&gpu->pmm.lock);
	list_add_tail(&chunk->lru, &gpu->pmm.lru);
	spin_unlock(&gpu->pmm.lock);
	return 0;
}

/**
 * uvm_pmm_free_block_chunk() - free a block's chunk
 * @gpu:	the GPU
 * @chunk:	the chunk; nothing maps it any more
 */
void uvm_pmm_free_block_chunk(struct uvm_gpu *gpu, struct uvm_pmm_chunk *chunk)
{
	spin_lock(&gpu->pmm.lock);
	list_del_init(&chunk->lru);
	spin_unlock(&gpu->pmm.lock);
	uvm_va_space_vidmem_add(chunk->va_space, gpu->index, -(s64)UVM_VA_BLOCK_SIZE);
	uvm_pmm_free_chunk(gpu, chunk->addr);
}

/**
 * uvm_pmm_touch() - a block's chunk was just used
 * @gpu:	the GPU
 * @chunk:	the chunk, allocated
 */
void uvm_pmm_touch(struct uvm_gpu *gpu, struct uvm_pmm_chunk *chunk)
{
	spin_lock(&gpu->pmm.lock);
	list_move_tail(&chunk->lru, &gpu->pmm.lru);
	spin_unlock(&gpu->pmm.lock);
}

/**
 * uvm_pmm_evict_block() - evict a block's chunk, found by index
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
static bool uvm_pmm_evict_block(struct uvm_gpu *gpu, struct uvm_va_space *va_space,
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
 * uvm_pmm_evict() - free one chunk of a full GPU
 * @gpu:	the GPU
 * @held:	the VA space whose lock the caller holds for read, or NULL
 * @ctx:	scratch space, not in use by the caller
 * @busy:	out, may be NULL: when no chunk was freed, whether some were
 *		skipped only because they were in flight (see
 *		uvm_pmm_evict_block(); a VA space being torn down counts too)
 *
 * Tries the chunks in LRU order, at most once each.
 *
 * Context: process context; no block lock held.
 * Return: true when a chunk was freed (the caller retries its allocation).
 */
bool uvm_pmm_evict(struct uvm_gpu *gpu, struct uvm_va_space *held,
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
			return false;
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

		freed = uvm_pmm_evict_block(gpu, va_space, held, index, ctx, &skipped);
		if (va_space != held)
			uvm_va_space_put(va_space);
		if (freed) {
			uvm_gpu_count_event(gpu, UVM_GPU_EVICTIONS, 1);
			return true;
		}
	}
	if (busy)
		*busy = skipped;
	return false;
}

/**
 * uvm_pmm_used_bytes() - vidmem the core holds now
 * @gpu:	the GPU
 *
 * Return: bytes.
 */
u64 uvm_pmm_used_bytes(struct uvm_gpu *gpu)
{
	u64 used;

	spin_lock(&gpu->pmm.lock);
	used = gpu->pmm.used_chunks;
	spin_unlock(&gpu->pmm.lock);
	return used << UVM_VA_BLOCK_SHIFT;
}
