/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Pageable memory: what the files of uvm_hmm*.c share.  Private to them.
 */
#ifndef _UVM_HMM_INTERNAL_H_
#define _UVM_HMM_INTERNAL_H_

#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "uvm_hal.h"
#include "uvm_hmm_devmem.h"
#include "uvm_page_mask.h"

struct uvm_gpu;
struct uvm_va_space;

/* PTEs written per map() call. */
#define UVM_HMM_PTES		64

/* ctx->dst: a page is mapped where it is, nothing migrates. */
#define UVM_HMM_STAY		0xff

/**
 * struct uvm_hmm_gpu_state - what one GPU maps of a region
 * @mapped:	pages with a GPU PTE (read at least)
 * @mapped_write: of those, pages mapped writable (and atomic)
 * @sys:	of those, pages mapped to a system page through @dma
 * @dma:	DMA addresses from sysmem_map(), for the pages in @sys
 */
struct uvm_hmm_gpu_state {
	struct uvm_page_mask mapped;
	struct uvm_page_mask mapped_write;
	struct uvm_page_mask sys;
	u64 dma[UVM_PAGES_PER_BLOCK];
};

/**
 * struct uvm_hmm_region - 2 MiB of pageable memory as the GPUs see it
 * @notifier:	interval notifier over the region, valid once @armed
 * @va_space:	owner
 * @start:	first byte, UVM_VA_BLOCK_SIZE aligned
 * @armed:	@notifier is inserted (set once, under the VA space's
 *		arm_lock, read with acquire semantics)
 * @lock:	protects @gpus' contents; see DOC: HMM locking
 * @gpus:	per GPU index, its mapping state; allocated before use with
 *		no lock held (published with cmpxchg), freed with the region
 */
struct uvm_hmm_region {
	struct mmu_interval_notifier notifier;
	struct uvm_va_space *va_space;
	u64 start;
	bool armed;
	struct mutex lock; /* @gpus state */
	struct uvm_hmm_gpu_state *gpus[UVM_MAX_GPUS];
};

/**
 * struct uvm_hmm_ctx - scratch space of one HMM operation
 * @mig:	migration scratch space
 * @req:	per region page, the HMM_PFN_REQ_* flags of a snapshot
 * @pfns:	per region page, the snapshot (HMM pfns)
 * @dst:	per region page, the processor an access wants it on, or
 *		UVM_HMM_STAY
 * @mapped_by:	per region page, GPUs (processor mask) to map besides the
 *		accessor
 * @ptes:	physical addresses of the PTEs being written
 */
struct uvm_hmm_ctx {
	struct uvm_hmm_migrate_ctx mig;
	unsigned long req[UVM_PAGES_PER_BLOCK];
	unsigned long pfns[UVM_PAGES_PER_BLOCK];
	u8 dst[UVM_PAGES_PER_BLOCK];
	u64 mapped_by[UVM_PAGES_PER_BLOCK];
	struct uvm_gpu_address ptes[UVM_HMM_PTES];
};

static inline u64 uvm_hmm_page_addr(const struct uvm_hmm_region *region, u32 page)
{
	return region->start + ((u64)page << PAGE_SHIFT);
}

/* Pages [start, end) of a region; both inside it, page aligned. */
static inline void uvm_hmm_range_mask(const struct uvm_hmm_region *region, u64 start,
				      u64 end, struct uvm_page_mask *mask)
{
	uvm_page_mask_fill(mask, (start - region->start) >> PAGE_SHIFT,
			   (end - region->start) >> PAGE_SHIFT);
}

/* uvm_hmm.c */
struct uvm_hmm_ctx *uvm_hmm_ctx_alloc(void);
struct uvm_hmm_region *uvm_hmm_region_get(struct uvm_va_space *va_space, u64 addr);
struct uvm_hmm_region *uvm_hmm_region_get_armed(struct uvm_va_space *va_space,
						u64 addr, u64 procs);
int uvm_hmm_region_gpus(struct uvm_hmm_region *region, u64 procs);
int uvm_hmm_fault_and_lock(struct uvm_hmm_region *region, struct uvm_hmm_ctx *ctx,
			   u32 first, u32 end, void *owner);
int uvm_hmm_map_pages(struct uvm_hmm_ctx *ctx, struct uvm_hmm_region *region,
		      struct uvm_gpu *gpu, const struct uvm_page_mask *mask,
		      const struct uvm_page_mask *ahead,
		      const struct uvm_page_mask *write, void *owner, bool fault,
		      struct uvm_page_mask *failed);
int uvm_hmm_migrate_region(struct uvm_hmm_ctx *ctx, struct uvm_hmm_region *region,
			   const struct uvm_page_mask *mask, struct uvm_gpu *gpu,
			   int nid);

/* The module's fault-injection point for pageable memory. */
bool uvm_hmm_should_fail(void);

#endif /* _UVM_HMM_INTERNAL_H_ */
