// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Residency and mappings of a 2 MiB VA block.
 *
 * DOC: VA blocks
 *
 * The managed memory of a VA space is tracked in 2 MiB-aligned blocks of
 * UVM_PAGES_PER_BLOCK pages.  For each processor a block records which pages
 * are resident there (hold a valid copy) and which are mapped, with what
 * permission.  The CPU's copies are ordinary pages allocated one by one;
 * a GPU's copies live in one 2 MiB vidmem chunk per block (page i at chunk +
 * i pages), allocated when the first page becomes resident on that GPU and
 * freed when the last one leaves.
 *
 * Invariants, under the block lock:
 *
 * - a page is resident on at most one processor (read duplication comes
 *   with the policy layer);
 * - a processor maps only pages resident on it;
 * - before a page's data leaves a processor, every mapping of it is revoked:
 *   CPU PTEs with unmap_mapping_range(), GPU PTEs with unmap followed by a
 *   TLB invalidate that waits for in-flight accesses.  No processor can read
 *   a stale copy;
 * - a page resident nowhere reads as zeros: the first touch populates it
 *   zero-filled on the touching processor.
 *
 * Locking: uvm_va_block.lock (mutex) protects all of a block's state; it is
 * taken under uvm_va_space.lock (read or write), never two at once, and is
 * held across copy-engine waits and CPU PTE revocation (see uvm_lock.h).
 */

/**
 * DOC: Migration protocol
 *
 * Making pages resident on a processor (block_make_resident()) runs these
 * steps under the block lock, for the pages not yet resident there:
 *
 * 1. allocate the destination: CPU pages, or the GPU's chunk;
 * 2. revoke every mapping of the pages on every processor (CPU PTEs, GPU
 *    PTEs + TLB invalidate);
 * 3. copy each page from where it is resident with the copy engine of the
 *    GPU involved (the destination GPU's for GPU to GPU), zero-fill the
 *    pages resident nowhere, and wait for the copy engine;
 * 4. move the residency bits and free the source copies.
 *
 * The caller then maps the pages on the destination processor: a GPU fault
 * writes GPU PTEs before the replay, a CPU fault inserts the CPU PTE.
 * Example: a GPU 0 read of a page the CPU wrote: step 2 zaps the CPU PTE,
 * step 3 copies the CPU page into GPU 0's chunk, step 4 frees the CPU page,
 * GPU 0 maps the page and replays; a later CPU read faults, and the same
 * steps bring the page back.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "uvm_gpu.h"
#include "uvm_test.h"
#include "uvm_va_block.h"
#include "uvm_va_space.h"

/* Copy-engine operations gathered before a submission. */
#define UVM_CTX_OPS	64

/**
 * struct uvm_va_block_ctx - scratch space of block operations
 * @ce_gpu:	GPU whose copy engine runs the gathered @ops
 * @nops:	gathered operations
 * @ops:	operations not yet submitted
 * @ndma:	entries in @dma
 * @dma:	system pages mapped for @ce_gpu for the gathered operations,
 *		released once they completed
 * @ptes:	physical addresses of the PTEs being written by block_map_gpu()
 */
struct uvm_va_block_ctx {
	struct uvm_gpu *ce_gpu;
	u32 nops;
	struct uvm_ce_op ops[UVM_CTX_OPS];
	u32 ndma;
	u64 dma[UVM_CTX_OPS];
	struct uvm_gpu_address ptes[UVM_CTX_OPS];
};

static struct kmem_cache *uvm_va_block_cache;
static struct kmem_cache *uvm_va_block_ctx_cache;

/**
 * uvm_va_block_init() - create the slab caches
 *
 * Return: 0 or -ENOMEM.
 */
int uvm_va_block_init(void)
{
	uvm_va_block_cache = KMEM_CACHE(uvm_va_block, SLAB_ACCOUNT);
	uvm_va_block_ctx_cache = KMEM_CACHE(uvm_va_block_ctx, 0);
	if (!uvm_va_block_cache || !uvm_va_block_ctx_cache) {
		uvm_va_block_exit();
		return -ENOMEM;
	}
	return 0;
}

/**
 * uvm_va_block_exit() - destroy the slab caches
 */
void uvm_va_block_exit(void)
{
	kmem_cache_destroy(uvm_va_block_ctx_cache);
	kmem_cache_destroy(uvm_va_block_cache);
}

/**
 * uvm_va_block_ctx_alloc() - scratch space for block operations
 *
 * Return: the context or NULL.
 */
struct uvm_va_block_ctx *uvm_va_block_ctx_alloc(void)
{
	return kmem_cache_zalloc(uvm_va_block_ctx_cache, GFP_KERNEL);
}

/**
 * uvm_va_block_ctx_free() - free a context from uvm_va_block_ctx_alloc()
 * @ctx:	the context, or NULL
 */
void uvm_va_block_ctx_free(struct uvm_va_block_ctx *ctx)
{
	if (ctx)
		kmem_cache_free(uvm_va_block_ctx_cache, ctx);
}

/* Page masks */

static inline bool uvm_page_mask_empty(const struct uvm_page_mask *m)
{
	return bitmap_empty(m->bits, UVM_PAGES_PER_BLOCK);
}

static inline u32 uvm_page_mask_weight(const struct uvm_page_mask *m)
{
	return bitmap_weight(m->bits, UVM_PAGES_PER_BLOCK);
}

static inline bool uvm_page_mask_and(struct uvm_page_mask *dst,
				     const struct uvm_page_mask *a,
				     const struct uvm_page_mask *b)
{
	return bitmap_and(dst->bits, a->bits, b->bits, UVM_PAGES_PER_BLOCK);
}

static inline bool uvm_page_mask_andnot(struct uvm_page_mask *dst,
					const struct uvm_page_mask *a,
					const struct uvm_page_mask *b)
{
	return bitmap_andnot(dst->bits, a->bits, b->bits, UVM_PAGES_PER_BLOCK);
}

static inline void uvm_page_mask_or(struct uvm_page_mask *dst,
				    const struct uvm_page_mask *a,
				    const struct uvm_page_mask *b)
{
	bitmap_or(dst->bits, a->bits, b->bits, UVM_PAGES_PER_BLOCK);
}

static inline bool uvm_page_mask_intersects(const struct uvm_page_mask *a,
					    const struct uvm_page_mask *b)
{
	return bitmap_intersects(a->bits, b->bits, UVM_PAGES_PER_BLOCK);
}

#define for_each_page_in_mask(page, mask) \
	for_each_set_bit(page, (mask)->bits, UVM_PAGES_PER_BLOCK)

#define for_each_page_run_in_mask(first, end, mask) \
	for_each_set_bitrange(first, end, (mask)->bits, UVM_PAGES_PER_BLOCK)

/* Block lookup and lifetime */

/**
 * uvm_va_block_lookup() - the block covering an address, if it exists
 * @va_space:	the VA space; its lock held
 * @addr:	any address
 *
 * Return: the block or NULL.
 */
struct uvm_va_block *uvm_va_block_lookup(struct uvm_va_space *va_space, u64 addr)
{
	lockdep_assert_held(&va_space->lock);
	return xa_load(&va_space->blocks, addr >> UVM_VA_BLOCK_SHIFT);
}

/**
 * uvm_va_block_get_or_create() - the block covering an address
 * @va_space:	the VA space; its lock held (read is enough)
 * @addr:	an address inside a managed range
 *
 * Context: process context, may sleep.
 * Return: the block, or ERR_PTR(-ENOMEM).
 */
struct uvm_va_block *uvm_va_block_get_or_create(struct uvm_va_space *va_space,
						u64 addr)
{
	unsigned long index = addr >> UVM_VA_BLOCK_SHIFT;
	struct uvm_va_block *block, *old;

	block = uvm_va_block_lookup(va_space, addr);
	if (block)
		return block;

	block = kmem_cache_zalloc(uvm_va_block_cache, GFP_KERNEL_ACCOUNT);
	if (!block)
		return ERR_PTR(-ENOMEM);
	block->va_space = va_space;
	block->start = (u64)index << UVM_VA_BLOCK_SHIFT;
	mutex_init(&block->lock);

	/* Lost a race with another thread holding the lock for read: use its. */
	old = xa_cmpxchg(&va_space->blocks, index, NULL, block, GFP_KERNEL_ACCOUNT);
	if (old) {
		kmem_cache_free(uvm_va_block_cache, block);
		return xa_is_err(old) ? ERR_PTR(xa_err(old)) : old;
	}
	return block;
}

/**
 * block_gpu_state() - a GPU's state of a block, allocated on demand
 * @block:	the block; its lock held
 * @gpu:	the GPU
 *
 * Return: the state, or NULL on allocation failure.
 */
static struct uvm_va_block_gpu *block_gpu_state(struct uvm_va_block *block,
						struct uvm_gpu *gpu)
{
	lockdep_assert_held(&block->lock);

	if (!block->gpus[gpu->index])
		block->gpus[gpu->index] = kzalloc(sizeof(*block->gpus[0]),
						  GFP_KERNEL_ACCOUNT);
	return block->gpus[gpu->index];
}

static inline struct uvm_gpu_address block_gpu_page_addr(struct uvm_gpu *gpu,
							 struct uvm_va_block_gpu *gs,
							 u32 page)
{
	return (struct uvm_gpu_address){
		.addr = gs->chunk + ((u64)page << PAGE_SHIFT),
		.aperture = UVM_APERTURE_VID,
		.gpu = gpu->index,
	};
}

/* Copy engine work */

/**
 * ctx_flush() - submit the gathered operations and wait for them
 * @ctx:	the context
 *
 * The copy engine always completes, so the wait is uninterruptible and
 * bounded.
 *
 * Return: 0 or the -errno of the submission (nothing was copied then).
 */
static int ctx_flush(struct uvm_va_block_ctx *ctx)
{
	struct uvm_gpu *gpu = ctx->ce_gpu;
	u64 seqno;
	int ret = 0;
	u32 i;

	if (ctx->nops) {
		ret = gpu->ops->ce_submit(gpu, ctx->ops, ctx->nops, &seqno);
		if (!ret)
			gpu->ops->ce_wait(gpu, seqno);
	}
	for (i = 0; i < ctx->ndma; i++)
		gpu->ops->sysmem_unmap(gpu, ctx->dma[i]);
	ctx->nops = 0;
	ctx->ndma = 0;
	return ret;
}

/**
 * ctx_sysmem_addr() - a CPU page as @ctx's copy engine sees it
 * @ctx:	the context; ce_gpu set
 * @page:	the page
 * @addr:	out
 *
 * The DMA mapping is released by ctx_flush().
 *
 * Return: 0 or -errno.
 */
static int ctx_sysmem_addr(struct uvm_va_block_ctx *ctx, struct page *page,
			   struct uvm_gpu_address *addr)
{
	u64 dma;
	int ret;

	ret = ctx->ce_gpu->ops->sysmem_map(ctx->ce_gpu, page, &dma);
	if (ret)
		return ret;
	ctx->dma[ctx->ndma++] = dma;
	*addr = (struct uvm_gpu_address){ .addr = dma, .aperture = UVM_APERTURE_SYS };
	return 0;
}

/**
 * ctx_begin_op() - room for one more operation on @gpu's copy engine
 * @ctx:	the context
 * @gpu:	the engine to use
 *
 * Flushes when the buffer is full or the engine changes.
 *
 * Return: the operation to fill, or ERR_PTR(-errno) of the flush.
 */
static struct uvm_ce_op *ctx_begin_op(struct uvm_va_block_ctx *ctx,
				      struct uvm_gpu *gpu)
{
	int ret;

	if (ctx->nops == UVM_CTX_OPS || (ctx->ce_gpu && ctx->ce_gpu != gpu)) {
		ret = ctx_flush(ctx);
		if (ret)
			return ERR_PTR(ret);
	}
	ctx->ce_gpu = gpu;
	return memset(&ctx->ops[ctx->nops], 0, sizeof(ctx->ops[0]));
}

/**
 * ctx_copy_page() - gather the copy of one page between two processors
 * @ctx:	the context
 * @block:	the block; its lock held
 * @page:	page index
 * @dst:	destination processor id
 * @src:	source processor id
 *
 * At least one of @dst and @src is a GPU; its engine does the copy (the
 * destination's for GPU to GPU).
 *
 * Return: 0 or -errno.
 */
static int ctx_copy_page(struct uvm_va_block_ctx *ctx, struct uvm_va_block *block,
			 u32 page, u32 dst, u32 src)
{
	struct uvm_gpu *gpu = uvm_gpu_get((dst != UVM_PROCESSOR_CPU ? dst : src) - 1);
	struct uvm_gpu_address *addr;
	struct uvm_ce_op *op;
	int ret;
	int i;

	op = ctx_begin_op(ctx, gpu);
	if (IS_ERR(op))
		return PTR_ERR(op);
	op->type = UVM_CE_COPY;
	op->size = PAGE_SIZE;
	for (i = 0; i < 2; i++) {
		u32 proc = i ? src : dst;

		addr = i ? &op->src : &op->dst;
		if (proc == UVM_PROCESSOR_CPU) {
			ret = ctx_sysmem_addr(ctx, block->cpu.pages[page], addr);
			if (ret)
				return ret;
		} else {
			struct uvm_gpu *g = uvm_gpu_get(proc - 1);

			*addr = block_gpu_page_addr(g, block->gpus[g->index], page);
		}
	}
	ctx->nops++;
	return 0;
}

/**
 * ctx_zero_gpu_pages() - gather the zero-fill of a run of a GPU's pages
 * @ctx:	the context
 * @gpu:	the GPU
 * @gs:		its block state; chunk allocated
 * @first:	first page index
 * @end:	last page index + 1
 *
 * Return: 0 or -errno.
 */
static int ctx_zero_gpu_pages(struct uvm_va_block_ctx *ctx, struct uvm_gpu *gpu,
			      struct uvm_va_block_gpu *gs, u32 first, u32 end)
{
	struct uvm_ce_op *op = ctx_begin_op(ctx, gpu);

	if (IS_ERR(op))
		return PTR_ERR(op);
	op->type = UVM_CE_MEMSET;
	op->size = (end - first) << PAGE_SHIFT;
	op->dst = block_gpu_page_addr(gpu, gs, first);
	op->value = 0;
	ctx->nops++;
	return 0;
}

/* Mappings */

/**
 * block_revoke_cpu() - remove the CPU PTEs of some pages
 * @block:	the block; its lock held
 * @mask:	pages
 */
static void block_revoke_cpu(struct uvm_va_block *block,
			     const struct uvm_page_mask *mask)
{
	struct uvm_page_mask revoke;
	unsigned int first, end;

	lockdep_assert_held(&block->lock);

	if (!uvm_page_mask_and(&revoke, &block->cpu.mapped, mask))
		return;
	for_each_page_run_in_mask(first, end, &revoke)
		unmap_mapping_range(&block->va_space->mapping,
				    uvm_va_block_page_addr(block, first),
				    (u64)(end - first) << PAGE_SHIFT, 1);
	uvm_page_mask_andnot(&block->cpu.mapped, &block->cpu.mapped, &revoke);
	uvm_page_mask_andnot(&block->cpu.mapped_write, &block->cpu.mapped_write,
			     &revoke);
	uvm_va_space_count(block->va_space, UVM_COUNTER_CPU_PAGES_UNMAPPED,
			   uvm_page_mask_weight(&revoke));
}

/**
 * block_revoke_gpu() - remove a GPU's PTEs of some pages and invalidate
 * @block:	the block; its lock held
 * @gpu:	the GPU
 * @mask:	pages
 *
 * When this returns no access of @gpu through the removed PTEs is in
 * flight.
 */
static void block_revoke_gpu(struct uvm_va_block *block, struct uvm_gpu *gpu,
			     const struct uvm_page_mask *mask)
{
	struct uvm_va_block_gpu *gs = block->gpus[gpu->index];
	struct uvm_gpu_va_space *gvs;
	struct uvm_page_mask revoke;
	unsigned int first, end, p;

	lockdep_assert_held(&block->lock);

	if (!gs || !uvm_page_mask_and(&revoke, &gs->mapped[0], mask))
		return;

	gvs = uvm_va_space_gpu_va_space(block->va_space, gpu);
	for_each_page_run_in_mask(first, end, &revoke)
		gpu->ops->unmap(gvs, uvm_va_block_page_addr(block, first),
				end - first);
	for (p = 0; p < ARRAY_SIZE(gs->mapped); p++)
		uvm_page_mask_andnot(&gs->mapped[p], &gs->mapped[p], &revoke);
	gpu->ops->tlb_invalidate(gvs, block->start, UVM_VA_BLOCK_SIZE);
	uvm_va_space_count(block->va_space, UVM_COUNTER_GPU_PAGES_UNMAPPED,
			   uvm_page_mask_weight(&revoke));
}

/**
 * block_revoke_all() - remove every processor's mappings of some pages
 * @block:	the block; its lock held
 * @mask:	pages
 */
static void block_revoke_all(struct uvm_va_block *block,
			     const struct uvm_page_mask *mask)
{
	u32 i;

	block_revoke_cpu(block, mask);
	for (i = 0; i < uvm_gpu_count; i++)
		block_revoke_gpu(block, uvm_gpus[i], mask);
}

/**
 * block_map_gpu() - map pages resident on a GPU in its page table
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @gpu:	the GPU
 * @mask:	pages, all resident on @gpu
 * @prot:	permission
 *
 * New PTEs need no invalidate: nothing can have cached their absence.
 *
 * Return: 0 or -errno (page-table memory).
 */
static int block_map_gpu(struct uvm_va_block *block, struct uvm_va_block_ctx *ctx,
			 struct uvm_gpu *gpu, const struct uvm_page_mask *mask,
			 enum uvm_prot prot)
{
	struct uvm_va_block_gpu *gs = block->gpus[gpu->index];
	struct uvm_gpu_va_space *gvs = uvm_va_space_gpu_va_space(block->va_space, gpu);
	unsigned int first, end, page, n, p;
	int ret;

	lockdep_assert_held(&block->lock);

	for_each_page_run_in_mask(first, end, mask) {
		for (page = first; page < end; page += n) {
			n = min_t(u32, end - page, UVM_CTX_OPS);
			for (p = 0; p < n; p++)
				ctx->ptes[p] = block_gpu_page_addr(gpu, gs, page + p);
			ret = gpu->ops->map(gvs, uvm_va_block_page_addr(block, page),
					    ctx->ptes, n, prot);
			if (ret)
				return ret;
		}
	}
	for (p = 0; p < ARRAY_SIZE(gs->mapped); p++) {
		if (p < prot)
			uvm_page_mask_or(&gs->mapped[p], &gs->mapped[p], mask);
		else
			uvm_page_mask_andnot(&gs->mapped[p], &gs->mapped[p], mask);
	}
	uvm_va_space_count(block->va_space, UVM_COUNTER_GPU_PAGES_MAPPED,
			   uvm_page_mask_weight(mask));
	return 0;
}

/* Residency */

/**
 * block_free_gpu_pages() - drop a GPU's copies of some pages
 * @block:	the block; its lock held
 * @gpu:	the GPU
 * @mask:	pages; no processor maps them any more
 *
 * Frees the chunk when no page is left on the GPU.
 */
static void block_free_gpu_pages(struct uvm_va_block *block, struct uvm_gpu *gpu,
				 const struct uvm_page_mask *mask)
{
	struct uvm_va_block_gpu *gs = block->gpus[gpu->index];

	if (!gs)
		return;
	uvm_page_mask_andnot(&gs->resident, &gs->resident, mask);
	if (gs->has_chunk && uvm_page_mask_empty(&gs->resident)) {
		WARN_ON(!uvm_page_mask_empty(&gs->mapped[0]));
		uvm_pmm_free_chunk(gpu, gs->chunk);
		gs->has_chunk = false;
	}
}

/**
 * block_free_cpu_pages() - drop the CPU's copies of some pages
 * @block:	the block; its lock held
 * @mask:	pages; no processor maps them any more
 */
static void block_free_cpu_pages(struct uvm_va_block *block,
				 const struct uvm_page_mask *mask)
{
	unsigned int page;

	for_each_page_in_mask(page, mask) {
		if (block->cpu.pages[page]) {
			__free_page(block->cpu.pages[page]);
			block->cpu.pages[page] = NULL;
		}
	}
	uvm_page_mask_andnot(&block->cpu.resident, &block->cpu.resident, mask);
}

/**
 * block_alloc_dst() - allocate destination memory for pages
 * @block:	the block; its lock held
 * @dst:	destination processor id
 * @need:	pages that will become resident on @dst
 * @zero:	of those, pages resident nowhere (to be zero-filled)
 *
 * CPU pages are allocated one by one (zeroed where @zero says so) into
 * cpu.pages; a GPU gets its chunk.  On failure nothing allocated here is
 * kept.
 *
 * Return: 0 or -ENOMEM.
 */
static int block_alloc_dst(struct uvm_va_block *block, u32 dst,
			   const struct uvm_page_mask *need,
			   const struct uvm_page_mask *zero)
{
	struct uvm_va_block_gpu *gs;
	struct uvm_gpu *gpu;
	unsigned int page;

	if (dst == UVM_PROCESSOR_CPU) {
		for_each_page_in_mask(page, need) {
			gfp_t gfp = GFP_HIGHUSER | __GFP_ACCOUNT;

			if (test_bit(page, zero->bits))
				gfp |= __GFP_ZERO;
			block->cpu.pages[page] = alloc_page(gfp);
			if (!block->cpu.pages[page])
				goto err_free_pages;
		}
		return 0;
	}

	gpu = uvm_gpu_get(dst - 1);
	gs = block_gpu_state(block, gpu);
	if (!gs)
		return -ENOMEM;
	if (!gs->has_chunk) {
		if (uvm_pmm_alloc_chunk(gpu, &gs->chunk))
			return -ENOMEM;
		gs->has_chunk = true;
	}
	return 0;

err_free_pages:
	for_each_page_in_mask(page, need) {
		if (!block->cpu.pages[page])
			break;
		__free_page(block->cpu.pages[page]);
		block->cpu.pages[page] = NULL;
	}
	return -ENOMEM;
}

/**
 * block_copy_in() - copy or zero-fill pages into their destination
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @dst:	destination processor id; memory allocated
 * @need:	pages to bring in
 * @zero:	of those, the ones resident nowhere
 *
 * Return: 0 or -errno; on failure the destination holds garbage, the
 * sources are intact.
 */
static int block_copy_in(struct uvm_va_block *block, struct uvm_va_block_ctx *ctx,
			 u32 dst, const struct uvm_page_mask *need,
			 const struct uvm_page_mask *zero)
{
	struct uvm_page_mask from;
	unsigned int page, first, end;
	u32 i;
	int ret;

	ctx->ce_gpu = NULL;
	for (i = 0; i <= uvm_gpu_count; i++) {
		const struct uvm_page_mask *resident;
		u32 src = i;

		if (src == dst)
			continue;
		if (src == UVM_PROCESSOR_CPU)
			resident = &block->cpu.resident;
		else if (block->gpus[src - 1])
			resident = &block->gpus[src - 1]->resident;
		else
			continue;
		if (!uvm_page_mask_and(&from, need, resident))
			continue;
		for_each_page_in_mask(page, &from) {
			ret = ctx_copy_page(ctx, block, page, dst, src);
			if (ret)
				goto err_flush;
		}
	}

	if (dst != UVM_PROCESSOR_CPU) {
		struct uvm_gpu *gpu = uvm_gpu_get(dst - 1);

		for_each_page_run_in_mask(first, end, zero) {
			ret = ctx_zero_gpu_pages(ctx, gpu, block->gpus[gpu->index],
						 first, end);
			if (ret)
				goto err_flush;
		}
	}
	return ctx->ce_gpu ? ctx_flush(ctx) : 0;

err_flush:
	if (ctx->ce_gpu)
		ctx_flush(ctx);
	return ret;
}

/**
 * block_count_migration() - account pages that moved
 * @block:	the block
 * @dst:	destination processor id
 * @need:	pages that became resident on @dst
 * @zero:	of those, pages populated rather than copied
 */
static void block_count_migration(struct uvm_va_block *block, u32 dst,
				  const struct uvm_page_mask *need,
				  const struct uvm_page_mask *zero)
{
	struct uvm_va_space *va_space = block->va_space;
	u32 populated = uvm_page_mask_weight(zero);
	u32 moved = uvm_page_mask_weight(need) - populated;
	struct uvm_page_mask from;
	u32 i, n;

	uvm_va_space_count(va_space, dst == UVM_PROCESSOR_CPU ?
			   UVM_COUNTER_PAGES_POPULATED_CPU :
			   UVM_COUNTER_PAGES_POPULATED_GPU, populated);
	if (!moved)
		return;

	if (dst != UVM_PROCESSOR_CPU)
		uvm_gpu_count_event(uvm_gpu_get(dst - 1), UVM_GPU_PAGES_IN, moved);

	for (i = 0; i < uvm_gpu_count; i++) {
		if (!block->gpus[i] || i + 1 == dst)
			continue;
		n = uvm_page_mask_and(&from, need, &block->gpus[i]->resident) ?
		    uvm_page_mask_weight(&from) : 0;
		if (!n)
			continue;
		uvm_gpu_count_event(uvm_gpus[i], UVM_GPU_PAGES_OUT, n);
		uvm_va_space_count(va_space, dst == UVM_PROCESSOR_CPU ?
				   UVM_COUNTER_PAGES_D2H : UVM_COUNTER_PAGES_D2D, n);
		uvm_va_space_count(va_space, dst == UVM_PROCESSOR_CPU ?
				   UVM_COUNTER_BYTES_D2H : UVM_COUNTER_BYTES_D2D,
				   (u64)n << PAGE_SHIFT);
	}
	if (dst != UVM_PROCESSOR_CPU &&
	    uvm_page_mask_and(&from, need, &block->cpu.resident)) {
		n = uvm_page_mask_weight(&from);
		uvm_va_space_count(va_space, UVM_COUNTER_PAGES_H2D, n);
		uvm_va_space_count(va_space, UVM_COUNTER_BYTES_H2D,
				   (u64)n << PAGE_SHIFT);
	}
}

/**
 * block_make_resident() - move pages to one processor
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @dst:	destination processor id
 * @mask:	pages that must be resident on @dst afterwards
 *
 * Runs the migration protocol (see "Migration protocol" above) for the pages
 * of @mask not yet resident on @dst.  The pages keep no other copy.
 *
 * Context: process context, may sleep; takes i_mmap_rwsem.
 * Return: 0, or -ENOMEM (destination memory) / -errno of the copy engine;
 * on failure the pages' data and residency are unchanged (their mappings
 * may have been revoked; they fault back in).
 */
static int block_make_resident(struct uvm_va_block *block,
			       struct uvm_va_block_ctx *ctx, u32 dst,
			       const struct uvm_page_mask *mask)
{
	struct uvm_page_mask need, zero, anywhere;
	u32 i;
	int ret;

	lockdep_assert_held(&block->lock);

	if (dst == UVM_PROCESSOR_CPU)
		uvm_page_mask_andnot(&need, mask, &block->cpu.resident);
	else if (block->gpus[dst - 1])
		uvm_page_mask_andnot(&need, mask, &block->gpus[dst - 1]->resident);
	else
		need = *mask;
	if (uvm_page_mask_empty(&need))
		return 0;

	anywhere = block->cpu.resident;
	for (i = 0; i < uvm_gpu_count; i++)
		if (block->gpus[i])
			uvm_page_mask_or(&anywhere, &anywhere, &block->gpus[i]->resident);
	uvm_page_mask_andnot(&zero, &need, &anywhere);

	ret = block_alloc_dst(block, dst, &need, &zero);
	if (ret)
		return ret;

	block_revoke_all(block, &need);

	ret = block_copy_in(block, ctx, dst, &need, &zero);
	if (ret)
		goto err_free_dst;

	block_count_migration(block, dst, &need, &zero);

	/* Drop the source copies, then publish the destination. */
	if (dst != UVM_PROCESSOR_CPU)
		block_free_cpu_pages(block, &need);
	for (i = 0; i < uvm_gpu_count; i++)
		if (i + 1 != dst)
			block_free_gpu_pages(block, uvm_gpus[i], &need);
	if (dst == UVM_PROCESSOR_CPU)
		uvm_page_mask_or(&block->cpu.resident, &block->cpu.resident, &need);
	else
		uvm_page_mask_or(&block->gpus[dst - 1]->resident,
				 &block->gpus[dst - 1]->resident, &need);
	return 0;

err_free_dst:
	if (dst == UVM_PROCESSOR_CPU)
		block_free_cpu_pages(block, &need);
	else
		block_free_gpu_pages(block, uvm_gpu_get(dst - 1), &need);
	return ret;
}

/* Fault servicing */

/**
 * uvm_va_block_service_gpu_faults() - service one batch's faults in a block
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @gpu:	the faulting GPU
 * @req:	the faulted pages and their access types; all inside managed
 *		ranges
 *
 * Makes the pages resident on @gpu and maps them there.  Faults already
 * satisfied by an earlier batch (resident and mapped with enough
 * permission) cost nothing.
 *
 * Context: GPU fault servicing.
 * Return: 0 or -errno (the caller cancels the faults as fatal).
 */
int uvm_va_block_service_gpu_faults(struct uvm_va_block *block,
				    struct uvm_va_block_ctx *ctx,
				    struct uvm_gpu *gpu,
				    const struct uvm_fault_block_req *req)
{
	struct uvm_va_block_gpu *gs;
	struct uvm_page_mask map;
	int ret;

	lockdep_assert_held(&block->lock);

	ret = block_make_resident(block, ctx, uvm_gpu_processor(gpu), &req->pages);
	if (ret)
		return ret;

	/* Pages resident here may still lack a PTE with enough permission. */
	gs = block->gpus[gpu->index];
	uvm_page_mask_andnot(&map, &req->pages,
			     &gs->mapped[UVM_PROT_READ_WRITE_ATOMIC - 1]);
	if (uvm_page_mask_empty(&map))
		return 0;
	return block_map_gpu(block, ctx, gpu, &map, UVM_PROT_READ_WRITE_ATOMIC);
}

/**
 * uvm_va_block_service_cpu_fault() - service a CPU fault on managed memory
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @vma:	the faulting VMA (one of our managed VMAs)
 * @addr:	faulting address
 * @write:	write access
 *
 * Brings the page to the CPU and inserts its PTE; writable when the VMA is.
 *
 * Context: ->fault with mmap_lock held for read.
 * Return: VM_FAULT_NOPAGE, VM_FAULT_OOM or VM_FAULT_SIGBUS.
 */
vm_fault_t uvm_va_block_service_cpu_fault(struct uvm_va_block *block,
					  struct uvm_va_block_ctx *ctx,
					  struct vm_area_struct *vma, u64 addr,
					  bool write)
{
	u32 page = uvm_va_block_page_index(block, addr);
	struct uvm_page_mask mask = {};
	bool writable = vma->vm_flags & VM_WRITE;
	vm_fault_t vmret;
	int ret;

	lockdep_assert_held(&block->lock);

	__set_bit(page, mask.bits);
	ret = block_make_resident(block, ctx, UVM_PROCESSOR_CPU, &mask);
	if (ret)
		return ret == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;

	vmret = vmf_insert_pfn_prot(vma, addr & PAGE_MASK,
				    page_to_pfn(block->cpu.pages[page]),
				    writable ? vm_get_page_prot(vma->vm_flags) :
					       vma->vm_page_prot);
	if (vmret != VM_FAULT_NOPAGE)
		return vmret;

	__set_bit(page, block->cpu.mapped.bits);
	if (writable)
		__set_bit(page, block->cpu.mapped_write.bits);
	return VM_FAULT_NOPAGE;
}

/**
 * uvm_va_block_cpu_mkwrite() - a write hit a read-only CPU PTE
 * @block:	the block; its lock held
 * @addr:	faulting address
 *
 * Return: 0 to let the kernel make the PTE writable, VM_FAULT_NOPAGE to
 * retry when the page moved meanwhile.
 */
vm_fault_t uvm_va_block_cpu_mkwrite(struct uvm_va_block *block, u64 addr)
{
	u32 page = uvm_va_block_page_index(block, addr);

	lockdep_assert_held(&block->lock);

	if (!test_bit(page, block->cpu.mapped.bits))
		return VM_FAULT_NOPAGE;
	__set_bit(page, block->cpu.mapped_write.bits);
	return 0;
}

/* Teardown and introspection */

/**
 * uvm_va_block_unmap_pages() - forget pages that left the managed ranges
 * @block:	the block; its lock held
 * @ctx:	scratch space (unused today, kept for symmetry with eviction)
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 *
 * The kernel already zapped the CPU PTEs (munmap).  GPU mappings are
 * revoked, memory on every processor freed.
 */
void uvm_va_block_unmap_pages(struct uvm_va_block *block,
			      struct uvm_va_block_ctx *ctx, u64 start, u64 end)
{
	struct uvm_page_mask mask = {};
	u64 first = max(start, block->start);
	u64 last = min(end, block->start + UVM_VA_BLOCK_SIZE);
	u32 i;

	lockdep_assert_held(&block->lock);

	if (first >= last)
		return;
	bitmap_set(mask.bits, uvm_va_block_page_index(block, first),
		   (last - first) >> PAGE_SHIFT);

	uvm_page_mask_andnot(&block->cpu.mapped, &block->cpu.mapped, &mask);
	uvm_page_mask_andnot(&block->cpu.mapped_write, &block->cpu.mapped_write,
			     &mask);
	for (i = 0; i < uvm_gpu_count; i++) {
		block_revoke_gpu(block, uvm_gpus[i], &mask);
		block_free_gpu_pages(block, uvm_gpus[i], &mask);
	}
	block_free_cpu_pages(block, &mask);
}

/**
 * uvm_va_block_is_empty() - nothing resident or mapped anywhere
 * @block:	the block; its lock held
 *
 * Return: true when the block can be freed without losing anything.
 */
bool uvm_va_block_is_empty(struct uvm_va_block *block)
{
	u32 i;

	lockdep_assert_held(&block->lock);

	if (!uvm_page_mask_empty(&block->cpu.resident) ||
	    !uvm_page_mask_empty(&block->cpu.mapped))
		return false;
	for (i = 0; i < uvm_gpu_count; i++)
		if (block->gpus[i] && (block->gpus[i]->has_chunk ||
				       !uvm_page_mask_empty(&block->gpus[i]->mapped[0])))
			return false;
	return true;
}

/**
 * uvm_va_block_destroy() - free a block and everything it holds
 * @block:	the block, already removed from its VA space
 */
void uvm_va_block_destroy(struct uvm_va_block *block)
{
	u32 i;

	mutex_lock(&block->lock);
	uvm_va_block_unmap_pages(block, NULL, block->start,
				 block->start + UVM_VA_BLOCK_SIZE);
	mutex_unlock(&block->lock);

	for (i = 0; i < UVM_MAX_GPUS; i++)
		kfree(block->gpus[i]);
	mutex_destroy(&block->lock);
	kmem_cache_free(uvm_va_block_cache, block);
}

/**
 * uvm_va_block_page_state() - residency and mappings of one page
 * @block:	the block; its lock held
 * @page:	page index
 * @state:	out
 */
void uvm_va_block_page_state(struct uvm_va_block *block, u32 page,
			     struct uvm_test_page_state *state)
{
	u32 i;

	lockdep_assert_held(&block->lock);

	memset(state, 0, sizeof(*state));
	if (test_bit(page, block->cpu.resident.bits))
		state->resident |= UVM_PROCESSOR_MASK(UVM_PROCESSOR_CPU);
	if (test_bit(page, block->cpu.mapped.bits))
		state->mapped_read |= UVM_PROCESSOR_MASK(UVM_PROCESSOR_CPU);
	if (test_bit(page, block->cpu.mapped_write.bits))
		state->mapped_write |= UVM_PROCESSOR_MASK(UVM_PROCESSOR_CPU);

	for (i = 0; i < uvm_gpu_count; i++) {
		struct uvm_va_block_gpu *gs = block->gpus[i];
		u64 bit = UVM_PROCESSOR_MASK(UVM_PROCESSOR_GPU(i));

		if (!gs)
			continue;
		if (test_bit(page, gs->resident.bits))
			state->resident |= bit;
		if (test_bit(page, gs->mapped[0].bits))
			state->mapped_read |= bit;
		if (test_bit(page, gs->mapped[1].bits))
			state->mapped_write |= bit;
		if (test_bit(page, gs->mapped[2].bits))
			state->mapped_atomic |= bit;
	}
}
