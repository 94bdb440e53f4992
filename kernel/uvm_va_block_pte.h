/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * GPU PTE sizes of a VA block (uvm_va_block_pte.c): used by the block
 * mechanism in uvm_va_block.c only.  Every function needs the block lock.
 */
#ifndef _UVM_VA_BLOCK_PTE_H_
#define _UVM_VA_BLOCK_PTE_H_

#include <linux/sizes.h>
#include <linux/types.h>

#include "uvm_hal.h"
#include "uvm_page_mask.h"

struct uvm_gpu;
struct uvm_va_block;
struct uvm_va_block_gpu;

/* 64 KiB regions of a block: region r is pages r * 16 to r * 16 + 15. */
#define UVM_PAGES_PER_64K	(SZ_64K >> PAGE_SHIFT)
#define UVM_64K_PER_BLOCK	(UVM_PAGES_PER_BLOCK / UVM_PAGES_PER_64K)

static_assert(UVM_64K_PER_BLOCK <= 32);

unsigned long uvm_va_block_regions(const struct uvm_page_mask *m, bool full);
struct uvm_gpu_address uvm_va_block_pte_addr(struct uvm_va_block *block,
					     struct uvm_va_block_gpu *gs, u32 page);
bool uvm_va_block_gpu_uniform(const struct uvm_va_block_gpu *gs, u32 first, u32 n);
int uvm_va_block_gpu_split(struct uvm_va_block *block, struct uvm_gpu *gpu,
			   const struct uvm_page_mask *mask);
void uvm_va_block_gpu_widen(const struct uvm_va_block_gpu *gs,
			    struct uvm_page_mask *revoke);
void uvm_va_block_gpu_big_drop(struct uvm_va_block_gpu *gs,
			       const struct uvm_page_mask *revoke);

u32 uvm_va_block_gpu_pte_size(struct uvm_va_block *block, u32 gpu_index,
			      u32 page);

#endif /* _UVM_VA_BLOCK_PTE_H_ */
