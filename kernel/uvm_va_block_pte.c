// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * GPU PTE sizes of a VA block: choosing 2 MiB, 64 KiB or 4 KiB PTEs,
 * splitting big PTEs and the bookkeeping of which ones a GPU holds.
 *
 * DOC: GPU page sizes
 *
 * A GPU maps the pages of a block with the biggest PTEs its backend supports
 * (&uvm_gpu_props.page_sizes) and the mapping allows:
 *
 * - one 2 MiB PTE when all 512 pages are mapped with one permission to one
 *   GPU's copy (its own chunk or a peer's: a block's chunk is 2 MiB of
 *   contiguous, 2 MiB-aligned vidmem, page i at chunk + i pages);
 * - else one 64 KiB PTE for each aligned 64 KiB region whose 16 pages are
 *   all mapped with one permission to one GPU's copy;
 * - else 4 KiB PTEs.  Mappings of the CPU's copies stay 4 KiB: CPU pages are
 *   allocated one by one, not physically contiguous.
 *
 * &uvm_va_block_gpu.big_2m and &uvm_va_block_gpu.big_64k record which big
 * PTEs the GPU holds.  Every PTE write (block_write_ptes()) re-evaluates the
 * regions it touches, so a region that becomes full again (after a split,
 * or page by page through faults) is promoted back.
 *
 * Before pages inside a big PTE are unmapped or rewritten on their own
 * (partial revoke, permission change, migration of part of a region), the
 * big PTE is *split*: its whole range is rewritten with smaller PTEs of the
 * same translation (2 MiB to 64 KiB, then the 64 KiB regions concerned to
 * 4 KiB), so the GPU never sees a hole; the unmap or rewrite that follows
 * is then followed by the usual TLB invalidate.  A split that fails for
 * page-table memory makes the revoke cover the whole big PTE instead.
 *
 * Invariant: a big PTE's pages are all mapped, with one permission, to one
 * GPU's copy (the masks and gs->target[] say so), and the GPU's page table
 * holds exactly the tracked big PTEs -- or, transiently inside
 * block_write_ptes(), smaller ones over pages the operation is rewriting.
 *
 * This file holds the decisions and the split; uvm_va_block.c calls them
 * from block_write_ptes() and block_revoke_gpu(), the only places that write
 * or remove a block's GPU PTEs.
 *
 * Locking: everything here runs under the block lock (uvm_va_block.lock),
 * which protects &uvm_va_block_gpu.big_2m and &uvm_va_block_gpu.big_64k
 * like the rest of the block's state; map() is called under it, as the HAL
 * allows.
 */
#include <linux/bitmap.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "uvm_gpu.h"
#include "uvm_va_block.h"
#include "uvm_va_block_pte.h"
#include "uvm_va_space.h"

static inline bool mask_range_full(const struct uvm_page_mask *m, u32 first, u32 n)
{
	return find_next_zero_bit(m->bits, first + n, first) >= first + n;
}

static inline bool mask_range_any(const struct uvm_page_mask *m, u32 first, u32 n)
{
	return find_next_bit(m->bits, first + n, first) < first + n;
}

/**
 * uvm_va_block_regions() - the 64 KiB regions a mask touches or fills
 * @m:		pages
 * @full:	only regions whose pages are all in @m
 *
 * Return: bit r for region r (pages 16r to 16r + 15).
 */
unsigned long uvm_va_block_regions(const struct uvm_page_mask *m, bool full)
{
	unsigned long regions = 0;
	u32 r, v;

	for (r = 0; r < UVM_64K_PER_BLOCK; r++) {
		v = bitmap_get_value8(m->bits, r * UVM_PAGES_PER_64K) |
		    bitmap_get_value8(m->bits, r * UVM_PAGES_PER_64K + 8) << 8;
		if (full ? v == 0xffff : v != 0)
			regions |= BIT(r);
	}
	return regions;
}

/**
 * uvm_va_block_pte_addr() - the physical address a GPU's PTE of a page points at
 * @block:	the block; its lock held
 * @gs:		the GPU's state; gs->target[@page] (and gs->dma[@page] for the
 *		CPU) set
 * @page:	page index
 *
 * Return: the address.
 */
struct uvm_gpu_address uvm_va_block_pte_addr(struct uvm_va_block *block,
					     struct uvm_va_block_gpu *gs, u32 page)
{
	u32 t = gs->target[page];

	if (t == UVM_PROCESSOR_CPU)
		return (struct uvm_gpu_address){
			.addr = gs->dma[page],
			.aperture = UVM_APERTURE_SYS,
		};
	return uvm_va_block_gpu_page_addr(t - 1, block->gpus[t - 1], page);
}

/**
 * uvm_va_block_gpu_uniform() - may a run of pages share one big PTE?
 * @gs:		a GPU's state of the block
 * @first:	first page index, aligned to @n
 * @n:		pages in the run
 *
 * Return: true when every page of the run is mapped, all with one
 * permission, all to the copy of one GPU (physically contiguous).
 */
bool uvm_va_block_gpu_uniform(const struct uvm_va_block_gpu *gs, u32 first, u32 n)
{
	u32 t = gs->target[first], p;

	if (t == UVM_PROCESSOR_CPU || !mask_range_full(&gs->mapped[0], first, n))
		return false;
	for (p = 1; p < ARRAY_SIZE(gs->mapped); p++)
		if (mask_range_any(&gs->mapped[p], first, n) &&
		    !mask_range_full(&gs->mapped[p], first, n))
			return false;
	return !memchr_inv(&gs->target[first], t, n);
}

/**
 * block_gpu_rewrite() - rewrite mapped pages with smaller PTEs
 * @block:	the block; its lock held
 * @gpu:	the GPU
 * @first:	first page index, aligned to @page_size
 * @n:		pages, a multiple of @page_size; all mapped, with one
 *		permission, by one big PTE
 * @page_size:	the new PTE size
 *
 * The translation of every page stays the same.
 *
 * Return: 0 or -errno of map().
 */
static int block_gpu_rewrite(struct uvm_va_block *block, struct uvm_gpu *gpu,
			     u32 first, u32 n, u32 page_size)
{
	struct uvm_va_block_gpu *gs = block->gpus[gpu->index];
	struct uvm_gpu_va_space *gvs = uvm_va_space_gpu_va_space(block->va_space, gpu);
	struct uvm_gpu_address ptes[UVM_PAGES_PER_64K];
	u32 step = page_size >> PAGE_SHIFT, i, k;
	enum uvm_prot prot = UVM_PROT_NONE;
	int ret;

	while (prot < UVM_PROT_READ_WRITE_ATOMIC &&
	       uvm_page_mask_test(&gs->mapped[prot], first))
		prot++;
	for (i = 0; i < n; i += k * step) {
		for (k = 0; k < ARRAY_SIZE(ptes) && i + k * step < n; k++)
			ptes[k] = uvm_va_block_pte_addr(block, gs, first + i + k * step);
		ret = gpu->ops->map(gvs, uvm_va_block_page_addr(block, first + i),
				    ptes, k, page_size, prot);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * uvm_va_block_gpu_split() - split the big PTEs that a set of pages cuts
 * @block:	the block; its lock held
 * @gpu:	the GPU
 * @mask:	pages about to be unmapped or rewritten
 *
 * A 2 MiB PTE becomes 64 KiB PTEs, then each 64 KiB PTE that @mask covers
 * only partly becomes 4 KiB PTEs.  Afterwards every big PTE lies inside
 * @mask or outside it.  No TLB invalidate is needed: translations are
 * unchanged.
 *
 * Return: 0 or -errno of map(); the PTEs not yet split keep being tracked
 * as big.
 */
int uvm_va_block_gpu_split(struct uvm_va_block *block, struct uvm_gpu *gpu,
			   const struct uvm_page_mask *mask)
{
	struct uvm_va_block_gpu *gs = block->gpus[gpu->index];
	unsigned long cut;
	unsigned int r;
	int ret;

	if (!gs->big_2m && !gs->big_64k)
		return 0;
	if (gs->big_2m && !mask_range_full(mask, 0, UVM_PAGES_PER_BLOCK)) {
		ret = block_gpu_rewrite(block, gpu, 0, UVM_PAGES_PER_BLOCK, SZ_64K);
		if (ret)
			return ret;
		gs->big_2m = false;
		gs->big_64k = GENMASK(UVM_64K_PER_BLOCK - 1, 0);
		uvm_gpu_count_event(gpu, UVM_GPU_SPLITS, 1);
	}
	cut = uvm_va_block_regions(mask, false) & ~uvm_va_block_regions(mask, true) & gs->big_64k;
	for_each_set_bit(r, &cut, UVM_64K_PER_BLOCK) {
		ret = block_gpu_rewrite(block, gpu, r * UVM_PAGES_PER_64K,
					UVM_PAGES_PER_64K, PAGE_SIZE);
		if (ret)
			return ret;
		gs->big_64k &= ~BIT(r);
		uvm_gpu_count_event(gpu, UVM_GPU_SPLITS, 1);
	}
	return 0;
}

/**
 * uvm_va_block_gpu_widen() - grow a revoke to the big PTEs it cuts
 * @gs:		a GPU's state of the block
 * @revoke:	pages to revoke; grown to whole big PTEs
 *
 * For when splitting failed: the big PTEs' pages are all mapped, so
 * @revoke stays within the mapped pages.
 */
void uvm_va_block_gpu_widen(const struct uvm_va_block_gpu *gs,
			    struct uvm_page_mask *revoke)
{
	unsigned long big;
	unsigned int r;

	if (gs->big_2m) {
		*revoke = gs->mapped[0];
		return;
	}
	big = uvm_va_block_regions(revoke, false) & gs->big_64k;
	for_each_set_bit(r, &big, UVM_64K_PER_BLOCK)
		bitmap_set(revoke->bits, r * UVM_PAGES_PER_64K, UVM_PAGES_PER_64K);
}

/**
 * uvm_va_block_gpu_big_drop() - forget the big PTEs of revoked pages
 * @gs:		a GPU's state of the block
 * @revoke:	pages just unmapped, covering whole big PTEs
 */
void uvm_va_block_gpu_big_drop(struct uvm_va_block_gpu *gs,
			       const struct uvm_page_mask *revoke)
{
	if ((!gs->big_2m && !gs->big_64k) || uvm_page_mask_empty(revoke))
		return;
	gs->big_2m = false;
	gs->big_64k &= ~uvm_va_block_regions(revoke, false);
}

/**
 * uvm_va_block_gpu_pte_size() - the size of the PTE mapping a page on a GPU
 * @block:	the block; its lock held
 * @gpu_index:	the GPU
 * @page:	page index
 *
 * Return: 0 when unmapped, else SZ_4K, SZ_64K or SZ_2M.
 */
u32 uvm_va_block_gpu_pte_size(struct uvm_va_block *block, u32 gpu_index, u32 page)
{
	struct uvm_va_block_gpu *gs = block->gpus[gpu_index];

	if (!gs || !uvm_page_mask_test(&gs->mapped[0], page))
		return 0;
	if (gs->big_2m)
		return SZ_2M;
	if (gs->big_64k & BIT(page / UVM_PAGES_PER_64K))
		return SZ_64K;
	return PAGE_SIZE;
}
