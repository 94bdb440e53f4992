/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * 2 MiB VA blocks: per-page residency and mappings of every processor.
 */
#ifndef _UVM_VA_BLOCK_H_
#define _UVM_VA_BLOCK_H_

#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/numa.h>
#include <linux/types.h>

#include "uvm.h"
#include "uvm_hal.h"
#include "uvm_netlink.h"
#include "uvm_page_mask.h"
#include "uvm_pmm.h"

struct uvm_ce_batch;
struct uvm_thrash;
struct uvm_gpu;
struct uvm_va_space;
struct uvm_test_page_state;

/**
 * struct uvm_va_block_cpu - the CPU's side of a block
 * @pages:	the CPU page backing each page index, or NULL
 * @resident:	pages with a valid copy in @pages
 * @mapped:	pages with a CPU PTE (at least read)
 * @mapped_write: pages with a writable CPU PTE
 */
struct uvm_va_block_cpu {
	struct page *pages[UVM_PAGES_PER_BLOCK];
	struct uvm_page_mask resident;
	struct uvm_page_mask mapped;
	struct uvm_page_mask mapped_write;
};

/**
 * struct uvm_va_block_gpu - one GPU's side of a block
 * @chunk:	the block's 2 MiB chunk (page i at chunk.addr + i pages),
 *		valid when @has_chunk; on the GPU's LRU list
 * @has_chunk:	a chunk is allocated
 * @resident:	pages with a valid copy in the chunk
 * @mapped:	pages mapped in this GPU's page table with at least read,
 *		write, atomic permission (index: enum uvm_prot - 1)
 * @target:	for mapped pages, the processor whose copy the PTE points at
 *		(this GPU, a peer GPU, or the CPU)
 * @remote:	mapped pages whose target is not this GPU (so that the common
 *		local case needs no per-page look at @target)
 * @dma:	for pages mapped to the CPU's copy, the DMA address from
 *		sysmem_map(); allocated on first use
 * @big_64k:	64 KiB regions (bit r: pages 16r to 16r + 15) mapped by one
 *		64 KiB PTE (see "GPU page sizes" in uvm_va_block.c)
 * @big_2m:	the whole block is mapped by one 2 MiB PTE
 */
struct uvm_va_block_gpu {
	struct uvm_pmm_chunk chunk;
	bool has_chunk;
	struct uvm_page_mask resident;
	struct uvm_page_mask mapped[UVM_PROT_READ_WRITE_ATOMIC];
	u8 target[UVM_PAGES_PER_BLOCK];
	struct uvm_page_mask remote;
	u64 *dma;
	u32 big_64k;
	bool big_2m;
};

/**
 * struct uvm_va_block - the state of one 2 MiB-aligned VA region
 * @va_space:	owner
 * @start:	first byte, UVM_VA_BLOCK_SIZE aligned
 * @lock:	protects everything below; see uvm_lock.h
 * @cpu:	CPU state; @lock
 * @gpus:	per-GPU state by GPU index, allocated on first use; @lock
 * @last_prefetch: per page, the location of the last prefetch request
 *		(uvm_loc_encode()), 0 for none; @lock
 * @thrash:	migration history for thrashing detection, allocated on
 *		demand (uvm_perf_thrash.c); @lock
 *
 * Only the pages of the region that lie in a managed range are ever
 * populated.  A page resident nowhere reads as zeros on first touch.
 */
struct uvm_va_block {
	struct uvm_va_space *va_space;
	u64 start;
	struct mutex lock; /* protects the state below */
	struct uvm_va_block_cpu cpu;
	struct uvm_va_block_gpu *gpus[UVM_MAX_GPUS];
	u16 last_prefetch[UVM_PAGES_PER_BLOCK];
	struct uvm_thrash *thrash;
};

/*
 * struct uvm_va_block_ctx: scratch space of one block operation (copy-engine
 * operations being built, DMA addresses to release, PTE addresses, counts);
 * defined in uvm_va_block.c.  One per servicing thread.
 */
struct uvm_va_block_ctx;

/**
 * struct uvm_va_block_oom - what a full GPU did to a block operation
 * @gpu:	the GPU whose vidmem was full when an operation failed with
 *		-ENOSPC (see uvm_evict_retry())
 * @waits:	waits for busy chunks since the operation last succeeded
 * @evictions:	evictions since the operation last succeeded
 * @no_wait:	never wait for busy chunks: the operation fails with
 *		-EAGAIN instead (the GPU's own fault servicing, which serves
 *		every process, hands the faults to their VA space's servicer)
 */
struct uvm_va_block_oom {
	struct uvm_gpu *gpu;
	u32 waits;
	u32 evictions;
	bool no_wait;
};

/**
 * struct uvm_fault_block_req - the GPU faults of one batch in one block
 * @pages:	faulted pages
 * @write:	of those, pages that need write access
 * @atomic:	of those, pages that need atomic access
 */
struct uvm_fault_block_req {
	struct uvm_page_mask pages;
	struct uvm_page_mask write;
	struct uvm_page_mask atomic;
};

static inline u32 uvm_va_block_page_index(const struct uvm_va_block *block,
					  u64 addr)
{
	return (addr - block->start) >> PAGE_SHIFT;
}

static inline u64 uvm_va_block_end(const struct uvm_va_block *block)
{
	return block->start + UVM_VA_BLOCK_SIZE;
}

static inline u64 uvm_va_block_page_addr(const struct uvm_va_block *block,
					 u32 page)
{
	return block->start + ((u64)page << PAGE_SHIFT);
}

/* The vidmem address of page @page of a GPU's chunk (gs->has_chunk). */
static inline struct uvm_gpu_address uvm_va_block_gpu_page_addr(u32 gpu_index,
								struct uvm_va_block_gpu *gs,
								u32 page)
{
	return (struct uvm_gpu_address){
		.addr = gs->chunk.addr + ((u64)page << PAGE_SHIFT),
		.aperture = UVM_APERTURE_VID,
		.gpu = gpu_index,
	};
}

/* Pages of @block inside [start, end), clipped to the block. */
void uvm_va_block_range_mask(const struct uvm_va_block *block, u64 start,
			     u64 end, struct uvm_page_mask *mask);

int uvm_va_block_init(void);
void uvm_va_block_exit(void);

struct uvm_va_block_ctx *uvm_va_block_ctx_alloc(void);
u32 uvm_va_block_ctx_set_cause(struct uvm_va_block_ctx *ctx, u32 cause);
void uvm_va_block_ctx_set_no_wait(struct uvm_va_block_ctx *ctx, bool no_wait);
struct uvm_va_block_oom *uvm_va_block_ctx_oom(struct uvm_va_block_ctx *ctx);
void uvm_va_block_ctx_free(struct uvm_va_block_ctx *ctx);

struct uvm_va_block *uvm_va_block_get_or_create(struct uvm_va_space *va_space,
						u64 addr);
struct uvm_va_block *uvm_va_block_lookup(struct uvm_va_space *va_space, u64 addr);
void uvm_va_block_destroy(struct uvm_va_block *block);
bool uvm_va_block_is_empty(struct uvm_va_block *block);
void uvm_va_block_page_state(struct uvm_va_block *block, u32 page,
			     struct uvm_test_page_state *state);

/*
 * Residency and mapping primitives (uvm_va_block.c), block lock held.
 * Processor ids: UVM_PROCESSOR_CPU or UVM_PROCESSOR_GPU(index).
 */
const struct uvm_page_mask *uvm_va_block_resident(struct uvm_va_block *block,
						  u32 proc);
void uvm_va_block_resident_anywhere(struct uvm_va_block *block,
				    struct uvm_page_mask *out);
void uvm_va_block_duplicated(struct uvm_va_block *block,
			     struct uvm_page_mask *out);
int uvm_va_block_add_copies(struct uvm_va_block *block,
			    struct uvm_va_block_ctx *ctx, u32 dst,
			    const struct uvm_page_mask *mask, int nid);
void uvm_va_block_drop_copies(struct uvm_va_block *block, u32 proc,
			      const struct uvm_page_mask *mask);
int uvm_va_block_collapse(struct uvm_va_block *block,
			  struct uvm_va_block_ctx *ctx, u32 dst,
			  const struct uvm_page_mask *mask, int nid);
int uvm_va_block_cpu_move_node(struct uvm_va_block *block,
			       const struct uvm_page_mask *mask, int nid);
int uvm_va_block_evict_gpu(struct uvm_va_block *block,
			   struct uvm_va_block_ctx *ctx, struct uvm_gpu *gpu);
int uvm_va_block_map_gpu(struct uvm_va_block *block,
			 struct uvm_va_block_ctx *ctx, struct uvm_gpu *gpu,
			 const struct uvm_page_mask *mask, enum uvm_prot need);
int uvm_va_block_copy_addr(struct uvm_va_block *block, struct uvm_ce_batch *b,
			   struct uvm_gpu *gpu, u32 page,
			   struct uvm_gpu_address *addr);
int uvm_va_block_map_accessed_by(struct uvm_va_block *block,
				 struct uvm_va_block_ctx *ctx,
				 const struct uvm_page_mask *mask,
				 u64 accessed_by, u32 except);

/* Policy-driven operations (uvm_va_block_service.c), block lock held. */
void uvm_va_block_unmap_pages(struct uvm_va_block *block, u64 start, u64 end);

#endif /* _UVM_VA_BLOCK_H_ */
