// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Vidmem chunks of a GPU as the core uses them.
 *
 * DOC: Physical memory manager
 *
 * The core allocates GPU memory in 2 MiB chunks, one per (VA block, GPU)
 * that has pages resident there: page i of a block lives at chunk + i pages.
 * The backend's vidmem_alloc/vidmem_free hand out the chunks; this file
 * keeps the usage count that GPU_INFO and sysfs report (and, later, the LRU
 * that eviction walks).
 *
 * Locking: uvm_pmm.lock (spinlock) protects used_chunks; it is a leaf lock.
 * Allocation itself is the backend's business and may sleep.
 */
#include <linux/spinlock.h>

#include "uvm_gpu.h"

/**
 * uvm_pmm_alloc_chunk() - allocate one 2 MiB vidmem chunk
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
