/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Vidmem of a GPU as the core uses it: chunks, usage, eviction order.
 */
#ifndef _UVM_PMM_H_
#define _UVM_PMM_H_

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct uvm_gpu;
struct uvm_va_space;

/**
 * struct uvm_pmm - vidmem of one GPU
 * @lock:	protects @used_chunks, @lru and the @lru links of chunks; a
 *		leaf lock
 * @used_chunks: 2 MiB chunks allocated by the core
 * @total_chunks: vidmem size in chunks
 * @lru:	chunks of VA blocks (evictable), least recently used first;
 *		device memory chunks are never on it
 */
struct uvm_pmm {
	spinlock_t lock; /* see above */
	u64 used_chunks;
	u64 total_chunks;
	struct list_head lru;
};

/**
 * struct uvm_pmm_chunk - a VA block's chunk on one GPU
 * @lru:	in uvm_pmm.lru; pmm lock
 * @va_space:	owner of the block
 * @block_index: the block's address >> UVM_VA_BLOCK_SHIFT
 * @addr:	vidmem offset
 *
 * Eviction finds the block again by (@va_space, @block_index) under that VA
 * space's lock, never through a pointer that could be stale.
 */
struct uvm_pmm_chunk {
	struct list_head lru;
	struct uvm_va_space *va_space;
	u64 block_index;
	u64 addr;
};

void uvm_pmm_init(struct uvm_pmm *pmm, u64 total_chunks);
int uvm_pmm_alloc_chunk(struct uvm_gpu *gpu, u64 *addr);
void uvm_pmm_free_chunk(struct uvm_gpu *gpu, u64 addr);
int uvm_pmm_alloc_block_chunk(struct uvm_gpu *gpu, struct uvm_pmm_chunk *chunk,
			      struct uvm_va_space *va_space, u64 block_index);
void uvm_pmm_free_block_chunk(struct uvm_gpu *gpu, struct uvm_pmm_chunk *chunk);
void uvm_pmm_touch(struct uvm_gpu *gpu, struct uvm_pmm_chunk *chunk);
u64 uvm_pmm_used_bytes(struct uvm_gpu *gpu);

#endif /* _UVM_PMM_H_ */
