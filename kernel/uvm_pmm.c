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
 * Locking: uvm_pmm.lock (spinlock, leaf) protects the usage count and the
 * LRU list.  Eviction, which walks that list, is a policy above the VA
 * blocks (uvm_evict.c).
 */
#include <linux/spinlock.h>

#include "uvm_gpu.h"
#include "uvm_pmm.h"
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
