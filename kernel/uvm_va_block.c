// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Residency and mappings of a 2 MiB VA block: the mechanism.
 *
 * DOC: VA blocks
 *
 * The managed memory of a VA space is tracked in 2 MiB-aligned blocks of
 * UVM_PAGES_PER_BLOCK pages.  For each processor a block records which pages
 * have a copy there (are *resident*) and which are mapped, with what
 * permission and, for GPUs, to whose copy.  The CPU's copies are ordinary
 * pages allocated one by one (on a chosen NUMA node where policy says so); a
 * GPU's copies live in one 2 MiB vidmem chunk per block (page i at chunk + i
 * pages), allocated when the first page becomes resident on that GPU and
 * freed when the last one leaves.
 *
 * This file is the mechanism: add copies, drop copies, collapse to one copy,
 * map and revoke.  uvm_va_block_service.c decides, from the memory policy,
 * what to do for a fault, a prefetch, a discard or a piece of advice.
 *
 * Invariants, under the block lock:
 *
 * - a page with more than one copy (read duplication) is mapped read-only
 *   everywhere: adding a copy first takes write permission away from every
 *   mapping of the page, so no copy can diverge;
 * - every mapping points at a valid copy: before a copy is dropped, every
 *   mapping of it is revoked -- CPU PTEs with unmap_mapping_range(), GPU
 *   PTEs with unmap followed by a TLB invalidate that waits for in-flight
 *   accesses.  No processor ever reads a stale copy;
 * - before a page's data is copied somewhere, nobody can write it;
 * - a page resident nowhere reads as zeros: the first touch or prefetch
 *   populates it zero-filled (copy-engine memset on a GPU, __GFP_ZERO on the
 *   CPU).
 *
 * Locking: uvm_va_block.lock (mutex) protects all of a block's state; it is
 * taken under uvm_va_space.lock (read or write), never two at once, and is
 * held across copy-engine waits and CPU PTE revocation (see uvm_lock.h).
 */

/**
 * DOC: Migration protocol
 *
 * Moving pages to processor D (uvm_va_block_collapse()) runs these steps
 * under the block lock, for the pages not yet resident on D:
 *
 * 1. revoke every mapping of those pages on every processor (CPU PTEs, GPU
 *    PTEs + TLB invalidate), so nobody writes them meanwhile;
 * 2. allocate the destination: CPU pages, or D's chunk;
 * 3. copy each page from a processor holding a copy, with the copy engine of
 *    the GPU involved (the destination's for GPU to GPU); zero-fill the pages
 *    resident nowhere; wait for the copy engine;
 * 4. mark the pages resident on D, then drop every other copy (revoking the
 *    mappings that still point at them) and free it.
 *
 * The caller then maps the pages where the policy wants them: a GPU fault
 * writes GPU PTEs before the replay, a CPU fault inserts the CPU PTE.
 * Example: a GPU 0 read of a page the CPU wrote: step 1 zaps the CPU PTE,
 * step 3 copies the CPU page into GPU 0's chunk, step 4 frees the CPU page,
 * GPU 0 maps the page and replays; a later CPU read faults, and the same
 * steps bring the page back.
 *
 * Adding a read-only copy (uvm_va_block_add_copies()) is steps 2 and 3
 * after taking write permission away (not the mappings) from the pages'
 * other processors; no copy is dropped.
 */
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "uvm_ce.h"
#include "uvm_events.h"
#include "uvm_gpu.h"
#include "uvm_test.h"
#include "uvm_perf_thrash.h"
#include "uvm_va_block.h"
#include "uvm_va_block_pte.h"
#include "uvm_va_policy.h"
#include "uvm_va_space.h"

/* PTEs written per map() call. */
#define UVM_CTX_PTES	64

/**
 * struct uvm_va_block_ctx - scratch space of block operations
 * @ce:		copy-engine operations being gathered
 * @oom:	what a full GPU did to the operation, for uvm_evict_retry()
 * @cause:	why pages move (UVM_NL_CAUSE_*), for migration events; set by
 *		whoever starts the operation, UVM_NL_CAUSE_FAULT by default
 * @ptes:	physical addresses of the PTEs being written
 */
struct uvm_va_block_ctx {
	struct uvm_ce_batch ce;
	struct uvm_va_block_oom oom;
	u32 cause;
	struct uvm_gpu_address ptes[UVM_CTX_PTES];
};

static struct kmem_cache *uvm_va_block_cache;
static struct kmem_cache *uvm_va_block_ctx_cache;

/*
 * Freed contexts are kept for reuse, like the real driver's list of CPU
 * fault service contexts: every CPU fault and every migration or copy
 * ioctl needs one, and a fresh one costs a slab allocation that the
 * kernel clears (init_on_alloc, Debian's default) although it is scratch.
 */
#define UVM_CTX_CACHED	16
static DEFINE_SPINLOCK(uvm_ctx_lock);	/* protects uvm_ctx_free[], uvm_ctx_nfree */
static struct uvm_va_block_ctx *uvm_ctx_free[UVM_CTX_CACHED];
static unsigned int uvm_ctx_nfree;

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
	while (uvm_ctx_nfree)
		kmem_cache_free(uvm_va_block_ctx_cache, uvm_ctx_free[--uvm_ctx_nfree]);
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
	struct uvm_va_block_ctx *ctx = NULL;

	spin_lock(&uvm_ctx_lock);
	if (uvm_ctx_nfree)
		ctx = uvm_ctx_free[--uvm_ctx_nfree];
	spin_unlock(&uvm_ctx_lock);
	if (!ctx)
		ctx = kmem_cache_alloc(uvm_va_block_ctx_cache, GFP_KERNEL);

	/* Only the batch's header needs a value: the arrays are scratch. */
	if (ctx) {
		ctx->ce.gpu = NULL;
		ctx->ce.nops = 0;
		ctx->ce.ndma = 0;
		ctx->oom = (struct uvm_va_block_oom){ };
		ctx->cause = UVM_NL_CAUSE_FAULT;
	}
	return ctx;
}

/**
 * uvm_va_block_ctx_set_no_wait() - may the operations wait for busy chunks?
 * @ctx:	the context
 * @no_wait:	never wait (see uvm_evict_retry())
 */
void uvm_va_block_ctx_set_no_wait(struct uvm_va_block_ctx *ctx, bool no_wait)
{
	ctx->oom.no_wait = no_wait;
}

/**
 * uvm_va_block_ctx_oom() - what a full GPU did to an operation
 * @ctx:	the operation's scratch space
 *
 * Return: the record uvm_evict_retry() reads and updates.
 */
struct uvm_va_block_oom *uvm_va_block_ctx_oom(struct uvm_va_block_ctx *ctx)
{
	return &ctx->oom;
}

/**
 * uvm_va_block_ctx_set_cause() - say why the operations of a context move pages
 * @ctx:	the context
 * @cause:	UVM_NL_CAUSE_*, reported with each migration
 *
 * Return: the previous cause, to restore it afterwards.
 */
u32 uvm_va_block_ctx_set_cause(struct uvm_va_block_ctx *ctx, u32 cause)
{
	u32 old = ctx->cause;

	ctx->cause = cause;
	return old;
}

/**
 * uvm_va_block_ctx_free() - free a context from uvm_va_block_ctx_alloc()
 * @ctx:	the context, or NULL
 */
void uvm_va_block_ctx_free(struct uvm_va_block_ctx *ctx)
{
	if (!ctx)
		return;
	spin_lock(&uvm_ctx_lock);
	if (uvm_ctx_nfree < UVM_CTX_CACHED) {
		uvm_ctx_free[uvm_ctx_nfree++] = ctx;
		ctx = NULL;
	}
	spin_unlock(&uvm_ctx_lock);
	if (ctx)
		kmem_cache_free(uvm_va_block_ctx_cache, ctx);
}

/**
 * uvm_va_block_range_mask() - the pages of a block inside a byte range
 * @block:	the block
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 * @mask:	out
 */
void uvm_va_block_range_mask(const struct uvm_va_block *block, u64 start,
			     u64 end, struct uvm_page_mask *mask)
{
	u64 first = max(start, block->start);
	u64 last = min(end, block->start + UVM_VA_BLOCK_SIZE);

	uvm_page_mask_zero(mask);
	if (first < last)
		uvm_page_mask_fill(mask, uvm_va_block_page_index(block, first),
				   uvm_va_block_page_index(block, last - 1) + 1);
}

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

static inline struct uvm_gpu *proc_gpu(u32 proc)
{
	return uvm_gpu_get(proc - 1);
}

/**
 * uvm_va_block_resident() - pages with a copy on a processor
 * @block:	the block; its lock held
 * @proc:	processor id
 *
 * Return: the mask, or NULL when the processor never had state here.
 */
const struct uvm_page_mask *uvm_va_block_resident(struct uvm_va_block *block,
						  u32 proc)
{
	if (proc == UVM_PROCESSOR_CPU)
		return &block->cpu.resident;
	return block->gpus[proc - 1] ? &block->gpus[proc - 1]->resident : NULL;
}

/**
 * uvm_va_block_resident_anywhere() - pages with at least one copy
 * @block:	the block; its lock held
 * @out:	out
 */
void uvm_va_block_resident_anywhere(struct uvm_va_block *block,
				    struct uvm_page_mask *out)
{
	u32 i;

	*out = block->cpu.resident;
	for (i = 0; i < uvm_gpu_count; i++)
		if (block->gpus[i])
			uvm_page_mask_or(out, out, &block->gpus[i]->resident);
}

/**
 * uvm_va_block_duplicated() - pages with more than one copy
 * @block:	the block; its lock held
 * @out:	out
 */
void uvm_va_block_duplicated(struct uvm_va_block *block,
			     struct uvm_page_mask *out)
{
	struct uvm_page_mask seen = block->cpu.resident, both;
	u32 i;

	uvm_page_mask_zero(out);
	for (i = 0; i < uvm_gpu_count; i++) {
		if (!block->gpus[i])
			continue;
		uvm_page_mask_and(&both, &seen, &block->gpus[i]->resident);
		uvm_page_mask_or(out, out, &both);
		uvm_page_mask_or(&seen, &seen, &block->gpus[i]->resident);
	}
}

/* Copy engine work */

/**
 * ctx_page_addr() - where a processor's copy of a page is, for the batch's
 * engine
 * @ctx:	the context; its batch begun
 * @block:	the block; its lock held
 * @proc:	processor holding the copy (its memory allocated)
 * @page:	page index
 * @addr:	out
 *
 * Return: 0 or -errno.
 */
static int ctx_page_addr(struct uvm_va_block_ctx *ctx, struct uvm_va_block *block,
			 u32 proc, u32 page, struct uvm_gpu_address *addr)
{
	if (proc != UVM_PROCESSOR_CPU) {
		*addr = uvm_va_block_gpu_page_addr(proc - 1, block->gpus[proc - 1], page);
		return 0;
	}
	return uvm_ce_batch_sysmem(&ctx->ce, block->cpu.pages[page], addr);
}

/**
 * ctx_copy_page() - gather the copy of one page between two processors
 * @ctx:	the context
 * @block:	the block; its lock held
 * @page:	page index
 * @dst:	destination processor id, memory allocated
 * @src:	source processor id, holding a copy
 *
 * The copy engine of the GPU involved does the copy (the destination's for
 * GPU to GPU).  CPU to CPU copies (NUMA moves) are done by the caller.
 *
 * Return: 0 or -errno.
 */
static int ctx_copy_page(struct uvm_va_block_ctx *ctx, struct uvm_va_block *block,
			 u32 page, u32 dst, u32 src)
{
	struct uvm_ce_op op = { .type = UVM_CE_COPY, .size = PAGE_SIZE };
	int ret;

	ret = uvm_ce_batch_begin(&ctx->ce, proc_gpu(dst != UVM_PROCESSOR_CPU ? dst : src));
	if (!ret)
		ret = ctx_page_addr(ctx, block, dst, page, &op.dst);
	if (!ret)
		ret = ctx_page_addr(ctx, block, src, page, &op.src);
	if (!ret)
		uvm_ce_batch_push(&ctx->ce, &op);
	return ret;
}

/**
 * ctx_zero_gpu_pages() - gather the zero-fill of a run of a GPU's pages
 * @ctx:	the context
 * @block:	the block; its lock held
 * @gpu:	the GPU, chunk allocated
 * @first:	first page index
 * @end:	last page index + 1
 *
 * Return: 0 or -errno.
 */
static int ctx_zero_gpu_pages(struct uvm_va_block_ctx *ctx,
			      struct uvm_va_block *block, struct uvm_gpu *gpu,
			      u32 first, u32 end)
{
	struct uvm_ce_op op = {
		.type = UVM_CE_MEMSET,
		.size = (end - first) << PAGE_SHIFT,
		.dst = uvm_va_block_gpu_page_addr(gpu->index, block->gpus[gpu->index], first),
	};
	int ret;

	ret = uvm_ce_batch_begin(&ctx->ce, gpu);
	if (!ret)
		uvm_ce_batch_push(&ctx->ce, &op);
	return ret;
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
 * block_release_dma() - release the DMA mappings behind a GPU's PTEs
 * @gpu:	the GPU
 * @gs:		its block state
 * @mask:	pages whose PTEs were just removed or retargeted
 */
static void block_release_dma(struct uvm_gpu *gpu, struct uvm_va_block_gpu *gs,
			      const struct uvm_page_mask *mask)
{
	unsigned int page;

	if (!gs->dma)
		return;
	for_each_page_in_mask(page, mask) {
		if (gs->dma[page]) {
			gpu->ops->sysmem_unmap(gpu, gs->dma[page]);
			gs->dma[page] = 0;
		}
	}
}

/**
 * block_revoke_gpu() - remove a GPU's PTEs of some pages and invalidate
 * @block:	the block; its lock held
 * @gpu:	the GPU
 * @mask:	pages
 *
 * Big PTEs that @mask cuts are split first, so the other pages they cover
 * stay mapped; without memory to split them, their whole range is revoked
 * (unmapping more is always safe: the GPU faults and maps again).
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
	if (uvm_va_block_gpu_split(block, gpu, &revoke))
		uvm_va_block_gpu_widen(gs, &revoke);
	for_each_page_run_in_mask(first, end, &revoke)
		gpu->ops->unmap(gvs, uvm_va_block_page_addr(block, first),
				end - first);
	gpu->ops->tlb_invalidate(gvs, block->start, UVM_VA_BLOCK_SIZE);
	uvm_va_block_gpu_big_drop(gs, &revoke);
	for (p = 0; p < ARRAY_SIZE(gs->mapped); p++)
		uvm_page_mask_andnot(&gs->mapped[p], &gs->mapped[p], &revoke);
	uvm_page_mask_andnot(&gs->remote, &gs->remote, &revoke);
	block_release_dma(gpu, gs, &revoke);
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
 * block_revoke_to() - remove the mappings that point at one processor's copies
 * @block:	the block; its lock held
 * @proc:	the processor whose copies are about to go
 * @mask:	pages
 */
static void block_revoke_to(struct uvm_va_block *block, u32 proc,
			    const struct uvm_page_mask *mask)
{
	struct uvm_page_mask m;
	unsigned int page;
	u32 i;

	if (proc == UVM_PROCESSOR_CPU)
		block_revoke_cpu(block, mask);
	for (i = 0; i < uvm_gpu_count; i++) {
		struct uvm_va_block_gpu *gs = block->gpus[i];

		if (!gs || !uvm_page_mask_and(&m, &gs->mapped[0], mask))
			continue;
		if (proc == UVM_PROCESSOR_GPU(i)) {
			/* Its own copies: the mappings that are not remote. */
			uvm_page_mask_andnot(&m, &m, &gs->remote);
		} else {
			uvm_page_mask_and(&m, &m, &gs->remote);
			for_each_page_in_mask(page, &m)
				if (gs->target[page] != proc)
					uvm_page_mask_clear(&m, page);
		}
		if (!uvm_page_mask_empty(&m))
			block_revoke_gpu(block, uvm_gpus[i], &m);
	}
}

/**
 * block_write_4k() - write 4 KiB PTEs for pages, pointing at their targets
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @gpu:	the GPU
 * @mask:	pages; no big PTE is tracked over them
 * @prot:	permission of every PTE
 *
 * Return: 0 or -errno of map().
 */
static int block_write_4k(struct uvm_va_block *block, struct uvm_va_block_ctx *ctx,
			  struct uvm_gpu *gpu, const struct uvm_page_mask *mask,
			  enum uvm_prot prot)
{
	struct uvm_va_block_gpu *gs = block->gpus[gpu->index];
	struct uvm_gpu_va_space *gvs = uvm_va_space_gpu_va_space(block->va_space, gpu);
	unsigned int first, end, page, n, p;
	int ret;

	for_each_page_run_in_mask(first, end, mask) {
		for (page = first; page < end; page += n) {
			n = min_t(u32, end - page, UVM_CTX_PTES);
			for (p = 0; p < n; p++)
				ctx->ptes[p] = uvm_va_block_pte_addr(block, gs, page + p);
			ret = gpu->ops->map(gvs, uvm_va_block_page_addr(block, page),
					    ctx->ptes, n, PAGE_SIZE, prot);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/**
 * block_write_ptes() - write a GPU's PTEs for pages, pointing at their targets
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @gpu:	the GPU
 * @mask:	pages; gs->target[] and, for CPU targets, gs->dma[] set
 * @prot:	permission of every PTE
 *
 * Picks the biggest PTEs the result allows (see "GPU page sizes"): big PTEs
 * that @mask cuts are split first; then the whole block gets one 2 MiB PTE
 * when it qualifies, else each qualifying 64 KiB region @mask touches gets a
 * 64 KiB PTE (which also promotes a region that just became full), and the
 * remaining pages of @mask get 4 KiB PTEs.
 *
 * On failure the pages of @mask end up unmapped, so the GPU never holds a
 * PTE the block does not know about.
 *
 * Return: 0 or -errno.
 */
static int block_write_ptes(struct uvm_va_block *block, struct uvm_va_block_ctx *ctx,
			    struct uvm_gpu *gpu, const struct uvm_page_mask *mask,
			    enum uvm_prot prot)
{
	struct uvm_va_block_gpu *gs = block->gpus[gpu->index];
	struct uvm_gpu_va_space *gvs = uvm_va_space_gpu_va_space(block->va_space, gpu);
	u32 sizes = gpu->props.page_sizes;
	struct uvm_page_mask small;
	struct uvm_gpu_address pa;
	unsigned long touched;
	unsigned int p, r;
	int ret;

	if (uvm_page_mask_empty(mask))
		return 0;
	/* Splits rewrite the old translations: before the state changes. */
	ret = uvm_va_block_gpu_split(block, gpu, mask);
	if (ret)
		goto err_unmap;
	/* Then the new state: the size choice looks at the whole block. */
	for (p = 0; p < ARRAY_SIZE(gs->mapped); p++) {
		if (p < prot)
			uvm_page_mask_or(&gs->mapped[p], &gs->mapped[p], mask);
		else
			uvm_page_mask_andnot(&gs->mapped[p], &gs->mapped[p], mask);
	}

	if ((sizes & SZ_2M) && uvm_va_block_gpu_uniform(gs, 0, UVM_PAGES_PER_BLOCK)) {
		pa = uvm_va_block_pte_addr(block, gs, 0);
		ret = gpu->ops->map(gvs, block->start, &pa, 1, SZ_2M, prot);
		if (ret)
			goto err_unmap;
		gs->big_2m = true;
		gs->big_64k = 0;
		uvm_gpu_count_event(gpu, UVM_GPU_MAPS_2M, 1);
		return 0;
	}

	small = *mask;
	touched = uvm_va_block_regions(mask, false);
	for_each_set_bit(r, &touched, UVM_64K_PER_BLOCK) {
		u32 first = r * UVM_PAGES_PER_64K;

		if (!(sizes & SZ_64K) ||
		    !uvm_va_block_gpu_uniform(gs, first, UVM_PAGES_PER_64K))
			continue;
		bitmap_clear(small.bits, first, UVM_PAGES_PER_64K);
		pa = uvm_va_block_pte_addr(block, gs, first);
		ret = gpu->ops->map(gvs, uvm_va_block_page_addr(block, first),
				    &pa, 1, SZ_64K, prot);
		if (ret)
			goto err_unmap;
		gs->big_2m = false;
		gs->big_64k |= BIT(r);
		uvm_gpu_count_event(gpu, UVM_GPU_MAPS_64K, 1);
	}
	/*
	 * 4 KiB PTEs over what was a big PTE split it (see uvm_hal.h); track
	 * that before writing, so a failure leaves no stale big entry that
	 * @mask would cut.
	 */
	if ((gs->big_2m || gs->big_64k) && !uvm_page_mask_empty(&small)) {
		gs->big_2m = false;
		gs->big_64k &= ~uvm_va_block_regions(&small, false);
	}
	ret = block_write_4k(block, ctx, gpu, &small, prot);
	if (ret)
		goto err_unmap;
	return 0;

err_unmap:
	/* Pages of @mask may have PTEs now: revoke them all. */
	uvm_page_mask_or(&gs->mapped[0], &gs->mapped[0], mask);
	block_revoke_gpu(block, gpu, mask);
	return ret;
}

/**
 * block_downgrade_writers() - take write permission away from every mapping
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @mask:	pages about to get another copy
 *
 * CPU PTEs are removed (the next access maps read-only); GPU PTEs are
 * rewritten read-only, then invalidated.
 *
 * Return: 0 or -errno of a PTE write.
 */
static int block_downgrade_writers(struct uvm_va_block *block,
				   struct uvm_va_block_ctx *ctx,
				   const struct uvm_page_mask *mask)
{
	struct uvm_page_mask m;
	u32 i;
	int ret;

	if (uvm_page_mask_and(&m, &block->cpu.mapped_write, mask))
		block_revoke_cpu(block, &m);
	for (i = 0; i < uvm_gpu_count; i++) {
		struct uvm_va_block_gpu *gs = block->gpus[i];

		if (!gs || !uvm_page_mask_and(&m, &gs->mapped[1], mask))
			continue;
		ret = block_write_ptes(block, ctx, uvm_gpus[i], &m, UVM_PROT_READ_ONLY);
		if (ret)
			return ret;
		uvm_gpus[i]->ops->tlb_invalidate(uvm_va_space_gpu_va_space(block->va_space,
									   uvm_gpus[i]),
						 block->start, UVM_VA_BLOCK_SIZE);
	}
	return 0;
}

/**
 * block_map_target() - whose copy a GPU should map for a page
 * @block:	the block; its lock held
 * @gpu:	the GPU
 * @page:	page index, resident somewhere
 *
 * Its own copy if it has one, else a peer GPU's, else the CPU's.
 *
 * Return: the processor id.
 */
static u32 block_map_target(struct uvm_va_block *block, struct uvm_gpu *gpu,
			    u32 page)
{
	u32 i;

	if (block->gpus[gpu->index] &&
	    uvm_page_mask_test(&block->gpus[gpu->index]->resident, page))
		return uvm_gpu_processor(gpu);
	for (i = 0; i < uvm_gpu_count; i++)
		if (block->gpus[i] && uvm_page_mask_test(&block->gpus[i]->resident, page))
			return UVM_PROCESSOR_GPU(i);
	return UVM_PROCESSOR_CPU;
}

/**
 * block_set_target() - choose the copy an unmapped GPU PTE will point at
 * @gpu:	the GPU
 * @gs:		its block state
 * @cpu_page:	the CPU's copy, when @target is the CPU
 * @page:	page index
 * @target:	processor id of the copy
 *
 * Return: 0 or -errno (DMA mapping of the CPU page).
 */
static int block_set_target(struct uvm_gpu *gpu, struct uvm_va_block_gpu *gs,
			    struct page *cpu_page, u32 page, u32 target)
{
	int ret;

	gs->target[page] = target;
	if (target == uvm_gpu_processor(gpu))
		uvm_page_mask_clear(&gs->remote, page);
	else
		uvm_page_mask_set(&gs->remote, page);
	if (target != UVM_PROCESSOR_CPU)
		return 0;
	if (!gs->dma) {
		gs->dma = kcalloc(UVM_PAGES_PER_BLOCK, sizeof(*gs->dma),
				  GFP_KERNEL_ACCOUNT);
		if (!gs->dma)
			return -ENOMEM;
	}
	ret = gpu->ops->sysmem_map(gpu, cpu_page, &gs->dma[page]);
	if (ret)
		gs->dma[page] = 0;
	return ret;
}

/**
 * uvm_va_block_copy_addr() - a page's copy as a copy engine should use it
 * @block:	the block; its lock held
 * @b:		a copy-engine batch, begun for @gpu
 * @gpu:	the GPU whose engine accesses the page
 * @page:	page index, resident somewhere
 * @addr:	out: the address of the copy @gpu would map (its own, a
 *		peer's, or the CPU's, mapped for the engine through @b)
 *
 * Return: 0 or -errno.
 */
int uvm_va_block_copy_addr(struct uvm_va_block *block, struct uvm_ce_batch *b,
			   struct uvm_gpu *gpu, u32 page,
			   struct uvm_gpu_address *addr)
{
	u32 target = block_map_target(block, gpu, page);

	lockdep_assert_held(&block->lock);

	if (target == UVM_PROCESSOR_CPU)
		return uvm_ce_batch_sysmem(b, block->cpu.pages[page], addr);
	*addr = uvm_va_block_gpu_page_addr(target - 1, block->gpus[target - 1], page);
	return 0;
}

/**
 * uvm_va_block_map_gpu() - map pages on a GPU, each to its best copy
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @gpu:	the GPU
 * @mask:	pages; those resident nowhere are skipped
 * @need:	permission the caller needs at least (UVM_PROT_NONE: whatever
 *		the page allows)
 *
 * A page is mapped to the GPU's own copy if it has one, else remotely (peer
 * vidmem or system memory).  Pages with several copies are mapped
 * read-only, others read-write-atomic.  PTEs already right are left alone.
 *
 * Return: 0 or -errno (page-table memory); -EPERM when @need cannot be
 * granted (a write to a duplicated page: the caller collapses first).
 */
int uvm_va_block_map_gpu(struct uvm_va_block *block, struct uvm_va_block_ctx *ctx,
			 struct uvm_gpu *gpu, const struct uvm_page_mask *mask,
			 enum uvm_prot need)
{
	struct uvm_page_mask todo, dup, ro, rw, moved, m;
	struct uvm_va_block_gpu *gs;
	unsigned int page;
	bool downgrade;
	int ret;

	lockdep_assert_held(&block->lock);

	uvm_va_block_resident_anywhere(block, &todo);
	if (!uvm_page_mask_and(&todo, &todo, mask))
		return 0;
	gs = block_gpu_state(block, gpu);
	if (!gs)
		return -ENOMEM;

	uvm_va_block_duplicated(block, &dup);
	uvm_page_mask_and(&ro, &todo, &dup);
	uvm_page_mask_andnot(&rw, &todo, &dup);
	if (need > UVM_PROT_READ_ONLY && !uvm_page_mask_empty(&ro))
		return -EPERM;

	/*
	 * Leave right PTEs alone: first, in bulk, local mappings of the GPU's
	 * own copies with the right permission; then page by page.
	 */
	uvm_page_mask_andnot(&m, &gs->mapped[UVM_PROT_READ_WRITE_ATOMIC - 1], &gs->remote);
	uvm_page_mask_and(&m, &m, &gs->resident);
	uvm_page_mask_andnot(&rw, &rw, &m);
	uvm_page_mask_andnot(&m, &gs->mapped[0], &gs->mapped[UVM_PROT_READ_WRITE - 1]);
	uvm_page_mask_andnot(&m, &m, &gs->remote);
	uvm_page_mask_and(&m, &m, &gs->resident);
	uvm_page_mask_andnot(&ro, &ro, &m);
	uvm_page_mask_or(&todo, &ro, &rw);

	/*
	 * PTEs pointing at another copy are revoked first, so a failure below
	 * never leaves a PTE with unknown target.
	 */
	uvm_page_mask_zero(&moved);
	for_each_page_in_mask(page, &todo) {
		u32 target = block_map_target(block, gpu, page);
		bool ro_page = uvm_page_mask_test(&ro, page);

		if (uvm_page_mask_test(&gs->mapped[0], page)) {
			if (gs->target[page] != target) {
				uvm_page_mask_set(&moved, page);
			} else if (ro_page ? !uvm_page_mask_test(&gs->mapped[1], page) :
					     uvm_page_mask_test(&gs->mapped[2], page)) {
				uvm_page_mask_clear(&ro, page);
				uvm_page_mask_clear(&rw, page);
			}
		}
	}
	if (!uvm_page_mask_empty(&moved))
		block_revoke_gpu(block, gpu, &moved);

	for_each_page_in_mask(page, &todo) {
		if (uvm_page_mask_test(&gs->mapped[0], page) ||
		    (!uvm_page_mask_test(&ro, page) && !uvm_page_mask_test(&rw, page)))
			continue;
		ret = block_set_target(gpu, gs, block->cpu.pages[page], page,
				       block_map_target(block, gpu, page));
		if (ret)
			return ret;
	}

	/* Write permission taken away must not linger in a TLB. */
	downgrade = uvm_page_mask_intersects(&ro, &gs->mapped[1]);
	ret = block_write_ptes(block, ctx, gpu, &ro, UVM_PROT_READ_ONLY);
	if (!ret && downgrade)
		gpu->ops->tlb_invalidate(uvm_va_space_gpu_va_space(block->va_space, gpu),
					 block->start, UVM_VA_BLOCK_SIZE);
	if (!ret)
		ret = block_write_ptes(block, ctx, gpu, &rw, UVM_PROT_READ_WRITE_ATOMIC);
	if (!ret)
		uvm_va_space_count(block->va_space, UVM_COUNTER_GPU_PAGES_MAPPED,
				   uvm_page_mask_weight(&ro) + uvm_page_mask_weight(&rw));
	return ret;
}

/**
 * uvm_va_block_map_accessed_by() - re-establish accessed-by mappings
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @mask:	pages whose residency changed
 * @accessed_by: processor mask of the policy of @mask
 * @except:	processor already mapped by the caller
 *
 * GPUs map the pages wherever they are.  The CPU cannot map GPU memory and
 * maps its own copies on its next access.
 *
 * Return: 0 or -errno.
 */
int uvm_va_block_map_accessed_by(struct uvm_va_block *block,
				 struct uvm_va_block_ctx *ctx,
				 const struct uvm_page_mask *mask,
				 u64 accessed_by, u32 except)
{
	u32 i;
	int ret;

	for (i = 0; i < uvm_gpu_count; i++) {
		u32 proc = UVM_PROCESSOR_GPU(i);

		if (proc == except || !(accessed_by & UVM_PROCESSOR_MASK(proc)))
			continue;
		ret = uvm_va_block_map_gpu(block, ctx, uvm_gpus[i], mask, UVM_PROT_NONE);
		if (ret)
			return ret;
	}
	return 0;
}

/* Residency */

/**
 * block_free_cpu_pages() - free the CPU's copies of some pages
 * @block:	the block; its lock held
 * @mask:	pages; nothing maps their CPU copies any more
 */
static void block_free_cpu_pages(struct uvm_va_block *block,
				 const struct uvm_page_mask *mask)
{
	unsigned int page;

	for_each_page_in_mask(page, mask) {
		if (block->cpu.pages[page]) {
			uvm_page_pool_put(&block->va_space->page_pool,
					  block->cpu.pages[page]);
			block->cpu.pages[page] = NULL;
		}
	}
	uvm_page_mask_andnot(&block->cpu.resident, &block->cpu.resident, mask);
}

/**
 * block_free_gpu_pages() - free a GPU's copies of some pages
 * @block:	the block; its lock held
 * @gpu:	the GPU
 * @mask:	pages; nothing maps their copies on @gpu any more
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
		uvm_pmm_free_block_chunk(gpu, &gs->chunk);
		gs->has_chunk = false;
	}
}

/**
 * uvm_va_block_drop_copies() - drop one processor's copies of some pages
 * @block:	the block; its lock held
 * @proc:	processor id
 * @mask:	pages (those without a copy on @proc are ignored)
 *
 * Every mapping of those copies is revoked first.  The caller makes sure a
 * copy survives elsewhere unless it means to discard the contents.
 */
void uvm_va_block_drop_copies(struct uvm_va_block *block, u32 proc,
			      const struct uvm_page_mask *mask)
{
	const struct uvm_page_mask *resident = uvm_va_block_resident(block, proc);
	struct uvm_page_mask m;

	lockdep_assert_held(&block->lock);

	if (!resident || !uvm_page_mask_and(&m, resident, mask))
		return;
	block_revoke_to(block, proc, &m);
	if (proc == UVM_PROCESSOR_CPU)
		block_free_cpu_pages(block, &m);
	else
		block_free_gpu_pages(block, proc_gpu(proc), &m);
}

/**
 * block_alloc_cpu_page() - a page for the CPU's copy
 * @block:	the block
 * @nid:	NUMA node, or NUMA_NO_NODE for the local policy
 * @zero:	zero-filled (else it is a copy destination, possibly recycled
 *		from the VA space's page pool)
 *
 * Return: the page or NULL.
 */
static struct page *block_alloc_cpu_page(struct uvm_va_block *block, int nid,
					 bool zero)
{
	gfp_t gfp = GFP_HIGHUSER | __GFP_ACCOUNT | (zero ? __GFP_ZERO : 0);
	struct page *page;

	/* A copy destination is overwritten whole: a recycled page will do. */
	if (!zero) {
		page = uvm_page_pool_get(&block->va_space->page_pool, nid);
		if (page)
			return page;
	}
	if (nid == NUMA_NO_NODE)
		return alloc_page(gfp);
	return alloc_pages_node(nid, gfp | __GFP_THISNODE, 0);
}

/**
 * block_alloc_dst() - allocate destination memory for new copies
 * @block:	the block; its lock held
 * @ctx:	scratch space: oom.gpu is set when the GPU is full
 * @dst:	destination processor id
 * @need:	pages that will get a copy on @dst
 * @zero:	of those, pages resident nowhere (to be zero-filled)
 * @nid:	NUMA node for CPU pages, or NUMA_NO_NODE
 *
 * CPU pages go to cpu.pages; a GPU gets its chunk.  On failure nothing
 * allocated here is kept.
 *
 * Return: 0, -ENOSPC when the GPU is full (ctx->oom.gpu says which), or
 * -ENOMEM.
 */
static int block_alloc_dst(struct uvm_va_block *block,
			   struct uvm_va_block_ctx *ctx, u32 dst,
			   const struct uvm_page_mask *need,
			   const struct uvm_page_mask *zero, int nid)
{
	struct uvm_va_block_gpu *gs;
	struct uvm_gpu *gpu;
	unsigned int page;

	if (dst == UVM_PROCESSOR_CPU) {
		for_each_page_in_mask(page, need) {
			block->cpu.pages[page] =
				block_alloc_cpu_page(block, nid,
						     uvm_page_mask_test(zero, page));
			if (!block->cpu.pages[page])
				goto err_free_pages;
		}
		return 0;
	}

	gpu = proc_gpu(dst);
	gs = block_gpu_state(block, gpu);
	if (!gs)
		return -ENOMEM;
	if (!gs->has_chunk) {
		if (uvm_pmm_alloc_block_chunk(gpu, &gs->chunk, block->va_space,
					      block->start >> UVM_VA_BLOCK_SHIFT)) {
			ctx->oom.gpu = gpu;
			return -ENOSPC;
		}
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
 * block_count_copy() - account one page copied between processors
 * @block:	the block
 * @dst:	destination processor id
 * @src:	source processor id
 */
static void block_count_copy(struct uvm_va_block *block, u32 dst, u32 src)
{
	struct uvm_va_space *va_space = block->va_space;
	unsigned int pages, bytes;

	if (dst != UVM_PROCESSOR_CPU)
		uvm_gpu_count_event(proc_gpu(dst), UVM_GPU_PAGES_IN, 1);
	if (src != UVM_PROCESSOR_CPU)
		uvm_gpu_count_event(proc_gpu(src), UVM_GPU_PAGES_OUT, 1);
	if (src == UVM_PROCESSOR_CPU) {
		pages = UVM_COUNTER_PAGES_H2D;
		bytes = UVM_COUNTER_BYTES_H2D;
	} else if (dst == UVM_PROCESSOR_CPU) {
		pages = UVM_COUNTER_PAGES_D2H;
		bytes = UVM_COUNTER_BYTES_D2H;
	} else {
		pages = UVM_COUNTER_PAGES_D2D;
		bytes = UVM_COUNTER_BYTES_D2D;
	}
	uvm_va_space_count(va_space, pages, 1);
	uvm_va_space_count(va_space, bytes, PAGE_SIZE);
}

/**
 * block_report_copies() - one migration event per source of a fill
 * @block:	the block
 * @ctx:	the operation's context (its cause)
 * @dst:	destination processor id
 * @copied:	pages copied (and counted) from each source processor
 * @start:	uvm_events_now() before the copies
 * @ret:	the copies' result
 */
static void block_report_copies(struct uvm_va_block *block,
				struct uvm_va_block_ctx *ctx, u32 dst,
				const u32 *copied, u64 start, int ret)
{
	u32 src;

	for (src = 0; src <= uvm_gpu_count; src++)
		if (copied[src])
			uvm_event_migration(block->va_space, block->start, src, dst,
					    copied[src], ctx->cause, start, ret);
}

/**
 * block_copy_in() - fill new copies: copy from existing ones or zero-fill
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @dst:	destination processor id; memory allocated
 * @need:	pages to fill
 * @zero:	of those, the ones resident nowhere
 *
 * Return: 0 or -errno; on failure the destination holds garbage, the
 * sources are intact.
 */
static int block_copy_in(struct uvm_va_block *block, struct uvm_va_block_ctx *ctx,
			 u32 dst, const struct uvm_page_mask *need,
			 const struct uvm_page_mask *zero)
{
	u32 copied[UVM_MAX_GPUS + 1] = {};
	struct uvm_page_mask left, from;
	bool timed = uvm_events_timed();
	u64 start = uvm_events_now(timed);
	unsigned int page, first, end;
	u32 src;
	int ret;

	uvm_page_mask_andnot(&left, need, zero);
	/* Prefer GPU sources (vidmem is closest to a copy engine), CPU last. */
	for (src = uvm_gpu_count; !uvm_page_mask_empty(&left); src--) {
		const struct uvm_page_mask *resident = uvm_va_block_resident(block, src);

		if (src != dst && resident && uvm_page_mask_and(&from, &left, resident)) {
			uvm_event_migration_start(block->va_space, block->start, src, dst,
						  uvm_page_mask_weight(&from), ctx->cause);
			for_each_page_in_mask(page, &from) {
				ret = ctx_copy_page(ctx, block, page, dst, src);
				if (ret)
					goto err_flush;
				block_count_copy(block, dst, src);
				copied[src]++;
			}
			uvm_page_mask_andnot(&left, &left, &from);
		}
		if (!src)
			break;
	}
	if (WARN_ON_ONCE(!uvm_page_mask_empty(&left))) {
		ret = -EINVAL;
		goto err_flush;
	}

	if (dst != UVM_PROCESSOR_CPU) {
		for_each_page_run_in_mask(first, end, zero) {
			ret = ctx_zero_gpu_pages(ctx, block, proc_gpu(dst), first, end);
			if (ret)
				goto err_flush;
		}
	}
	uvm_va_space_count(block->va_space, dst == UVM_PROCESSOR_CPU ?
			   UVM_COUNTER_PAGES_POPULATED_CPU :
			   UVM_COUNTER_PAGES_POPULATED_GPU,
			   uvm_page_mask_weight(zero));
	ret = uvm_ce_batch_flush(&ctx->ce);
	block_report_copies(block, ctx, dst, copied, start, ret);
	return ret;

err_flush:
	uvm_ce_batch_flush(&ctx->ce);
	block_report_copies(block, ctx, dst, copied, start, ret);
	return ret;
}

/**
 * block_fill() - allocate and fill copies on @dst of pages it lacks
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @dst:	destination processor id
 * @need:	pages without a copy on @dst; nobody may write them
 * @nid:	NUMA node for CPU copies, or NUMA_NO_NODE
 *
 * Return: 0 or -errno; on failure nothing changed.
 */
static int block_fill(struct uvm_va_block *block, struct uvm_va_block_ctx *ctx,
		      u32 dst, const struct uvm_page_mask *need, int nid)
{
	struct uvm_page_mask anywhere, zero;
	int ret;

	uvm_va_block_resident_anywhere(block, &anywhere);
	uvm_page_mask_andnot(&zero, need, &anywhere);

	ret = block_alloc_dst(block, ctx, dst, need, &zero, nid);
	if (ret)
		return ret;
	ret = block_copy_in(block, ctx, dst, need, &zero);
	if (ret) {
		if (dst == UVM_PROCESSOR_CPU)
			block_free_cpu_pages(block, need);
		else
			block_free_gpu_pages(block, proc_gpu(dst), need);
		return ret;
	}
	if (dst == UVM_PROCESSOR_CPU)
		uvm_page_mask_or(&block->cpu.resident, &block->cpu.resident, need);
	else
		uvm_page_mask_or(&block->gpus[dst - 1]->resident,
				 &block->gpus[dst - 1]->resident, need);
	return 0;
}

/**
 * block_need() - pages of @mask without a copy on @dst
 * @block:	the block; its lock held
 * @dst:	processor id
 * @mask:	pages
 * @need:	out
 *
 * Return: true when @need is not empty.
 */
static bool block_need(struct uvm_va_block *block, u32 dst,
		       const struct uvm_page_mask *mask, struct uvm_page_mask *need)
{
	const struct uvm_page_mask *resident = uvm_va_block_resident(block, dst);

	if (!resident) {
		*need = *mask;
		return !uvm_page_mask_empty(need);
	}
	return uvm_page_mask_andnot(need, mask, resident);
}

/**
 * uvm_va_block_add_copies() - give a processor read-only copies of pages
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @dst:	processor id
 * @mask:	pages; those resident nowhere are populated with zeros
 * @nid:	NUMA node for CPU copies, or NUMA_NO_NODE
 *
 * Existing copies stay; every mapping of a page that becomes duplicated
 * loses write permission first.
 *
 * Return: 0 or -errno (nothing changed but possibly the permissions).
 */
int uvm_va_block_add_copies(struct uvm_va_block *block,
			    struct uvm_va_block_ctx *ctx, u32 dst,
			    const struct uvm_page_mask *mask, int nid)
{
	struct uvm_page_mask need, anywhere, dup;
	int ret;

	lockdep_assert_held(&block->lock);

	if (!block_need(block, dst, mask, &need))
		return 0;
	uvm_va_block_resident_anywhere(block, &anywhere);
	if (uvm_page_mask_and(&dup, &need, &anywhere)) {
		ret = block_downgrade_writers(block, ctx, &dup);
		if (ret)
			return ret;
	}
	ret = block_fill(block, ctx, dst, &need, nid);
	if (!ret)
		uvm_va_space_count(block->va_space, UVM_COUNTER_PAGES_DUPLICATED,
				   uvm_page_mask_weight(&dup));
	return ret;
}

/**
 * uvm_va_block_cpu_move_node() - move the CPU's copies of pages to a NUMA node
 * @block:	the block; its lock held
 * @mask:	pages resident on the CPU, on any node
 * @nid:	the node
 *
 * Return: 0 or -ENOMEM (the pages not moved stay where they are).
 */
int uvm_va_block_cpu_move_node(struct uvm_va_block *block,
			       const struct uvm_page_mask *mask, int nid)
{
	struct uvm_page_mask m;
	unsigned int page;
	struct page *new;

	uvm_page_mask_zero(&m);
	for_each_page_in_mask(page, mask)
		if (page_to_nid(block->cpu.pages[page]) != nid)
			uvm_page_mask_set(&m, page);
	if (uvm_page_mask_empty(&m))
		return 0;

	block_revoke_to(block, UVM_PROCESSOR_CPU, &m);
	for_each_page_in_mask(page, &m) {
		new = block_alloc_cpu_page(block, nid, false);
		if (!new)
			return -ENOMEM;
		copy_highpage(new, block->cpu.pages[page]);
		uvm_page_pool_put(&block->va_space->page_pool, block->cpu.pages[page]);
		block->cpu.pages[page] = new;
	}
	return 0;
}

/**
 * uvm_va_block_collapse() - leave exactly one copy of pages, on @dst
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @dst:	processor id
 * @mask:	pages; those resident nowhere are populated with zeros
 * @nid:	NUMA node the CPU's copies must be on, or NUMA_NO_NODE
 *
 * Runs the migration protocol (see "Migration protocol" above).  Mappings of
 * @dst's existing copies stay.
 *
 * Return: 0, or -ENOMEM / -errno of the copy engine; on failure no data is
 * lost (some mappings may be gone: they fault back in).
 */
int uvm_va_block_collapse(struct uvm_va_block *block,
			  struct uvm_va_block_ctx *ctx, u32 dst,
			  const struct uvm_page_mask *mask, int nid)
{
	struct uvm_page_mask need;
	u32 proc;
	int ret;

	lockdep_assert_held(&block->lock);

	if (block_need(block, dst, mask, &need)) {
		block_revoke_all(block, &need);
		ret = block_fill(block, ctx, dst, &need, nid);
		if (ret)
			return ret;
	}
	for (proc = 0; proc <= uvm_gpu_count; proc++)
		if (proc != dst)
			uvm_va_block_drop_copies(block, proc, mask);
	if (dst == UVM_PROCESSOR_CPU && nid != NUMA_NO_NODE)
		return uvm_va_block_cpu_move_node(block, mask, nid);
	return 0;
}

/* Eviction */

/**
 * block_evict_run() - move one policy run's pages off an evicting GPU
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @gpu:	the evicting GPU
 * @policy:	policy of @mask
 * @mask:	pages resident only on @gpu
 *
 * Evicted pages go to their preferred location when it is the host (on its
 * NUMA node) or another GPU with room, else to host memory.
 *
 * Return: 0 or -errno (nothing lost).
 */
static int block_evict_run(struct uvm_va_block *block, struct uvm_va_block_ctx *ctx,
			   struct uvm_gpu *gpu, const struct uvm_va_policy *policy,
			   const struct uvm_page_mask *mask)
{
	u32 pref = UVM_PROCESSOR_CPU;
	int ret, nid = NUMA_NO_NODE;

	if (uvm_va_policy_has_preferred(policy)) {
		pref = uvm_location_processor(&policy->preferred);
		nid = uvm_location_nid(&policy->preferred);
	}
	if (pref != UVM_PROCESSOR_CPU && pref != uvm_gpu_processor(gpu)) {
		ret = uvm_va_block_collapse(block, ctx, pref, mask, NUMA_NO_NODE);
		if (ret != -ENOSPC)
			return ret;
		/* That GPU is full too: host memory, without evicting there. */
		ctx->oom.gpu = NULL;
	}
	return uvm_va_block_collapse(block, ctx, UVM_PROCESSOR_CPU, mask, nid);
}

/**
 * block_evict_gpu() - uvm_va_block_evict_gpu() once the chunk is known
 * @block:	the block; its lock held
 * @ctx:	scratch space, its cause set to eviction
 * @gpu:	the GPU; the block has a chunk there
 *
 * Return: see uvm_va_block_evict_gpu().
 */
static int block_evict_gpu(struct uvm_va_block *block, struct uvm_va_block_ctx *ctx,
			   struct uvm_gpu *gpu)
{
	struct uvm_va_block_gpu *gs = block->gpus[gpu->index];
	struct uvm_page_mask others, only, all, run, m;
	struct uvm_va_policy_iter iter;
	u32 proc;
	int ret;

	all = gs->resident;
	uvm_page_mask_zero(&others);
	for (proc = 0; proc <= uvm_gpu_count; proc++) {
		const struct uvm_page_mask *res = uvm_va_block_resident(block, proc);

		if (proc != uvm_gpu_processor(gpu) && res)
			uvm_page_mask_or(&others, &others, res);
	}
	uvm_page_mask_andnot(&only, &all, &others);
	for (uvm_va_policy_iter_first(block->va_space, block->start,
				      uvm_va_block_end(block), &iter);
	     iter.start < iter.limit; uvm_va_policy_iter_next(&iter)) {
		uvm_va_block_range_mask(block, iter.start, iter.end, &run);
		if (!uvm_page_mask_and(&m, &only, &run))
			continue;
		ret = block_evict_run(block, ctx, gpu, iter.policy, &m);
		if (ret)
			return ret;
	}
	uvm_va_block_drop_copies(block, uvm_gpu_processor(gpu), &all);
	uvm_va_space_count(block->va_space, UVM_COUNTER_PAGES_EVICTED,
			   uvm_page_mask_weight(&all));
	uvm_event_eviction(gpu, block->va_space, block->start,
			   uvm_page_mask_weight(&all));
	for (uvm_va_policy_iter_first(block->va_space, block->start,
				      uvm_va_block_end(block), &iter);
	     iter.start < iter.limit; uvm_va_policy_iter_next(&iter)) {
		uvm_va_block_range_mask(block, iter.start, iter.end, &run);
		if (uvm_page_mask_and(&m, &all, &run))
			uvm_va_block_map_accessed_by(block, ctx, &m,
						     uvm_va_policy_mapped_by(iter.policy),
						     UVM_PROCESSOR_CPU);
	}
	return gs->has_chunk ? -EBUSY : 0;
}

/**
 * uvm_va_block_evict_gpu() - give a GPU's chunk of a block back
 * @block:	the block; its lock held (and the VA space lock, for read)
 * @ctx:	scratch space
 * @gpu:	the GPU
 *
 * Pages resident only on @gpu move off it (their mappings are revoked
 * first): to their preferred location if it is the host or another GPU with
 * room, else to system memory.  @gpu's other copies are dropped.  The
 * accessed-by GPUs then map the pages where they now are (best effort: a
 * GPU that cannot faults them back in).  The chunk is freed.  The moves are
 * reported with cause eviction, the pages that left @gpu as one eviction
 * event.
 *
 * Return: 0, -ENOENT when the block has no chunk there, -ENOMEM or
 * -errno of the copy engine (nothing lost).
 */
int uvm_va_block_evict_gpu(struct uvm_va_block *block,
			   struct uvm_va_block_ctx *ctx, struct uvm_gpu *gpu)
{
	struct uvm_va_block_gpu *gs = block->gpus[gpu->index];
	u32 cause;
	int ret;

	lockdep_assert_held(&block->lock);

	if (!gs || !gs->has_chunk)
		return -ENOENT;
	cause = uvm_va_block_ctx_set_cause(ctx, UVM_NL_CAUSE_EVICTION);
	ret = block_evict_gpu(block, ctx, gpu);
	uvm_va_block_ctx_set_cause(ctx, cause);
	return ret;
}

/* Teardown and introspection */

/**
 * uvm_va_block_unmap_pages() - forget pages that left the managed ranges
 * @block:	the block; its lock held
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 *
 * The kernel already zapped the CPU PTEs (munmap).  GPU mappings are
 * revoked, memory on every processor freed, per-page state reset.
 */
void uvm_va_block_unmap_pages(struct uvm_va_block *block, u64 start, u64 end)
{
	struct uvm_page_mask mask;
	unsigned int page;
	u32 proc;

	lockdep_assert_held(&block->lock);

	uvm_va_block_range_mask(block, start, end, &mask);
	if (uvm_page_mask_empty(&mask))
		return;
	uvm_page_mask_andnot(&block->cpu.mapped, &block->cpu.mapped, &mask);
	uvm_page_mask_andnot(&block->cpu.mapped_write, &block->cpu.mapped_write,
			     &mask);
	for (proc = 0; proc <= uvm_gpu_count; proc++)
		uvm_va_block_drop_copies(block, proc, &mask);
	/* Mappings of pages resident nowhere cannot exist; be thorough. */
	block_revoke_all(block, &mask);
	for_each_page_in_mask(page, &mask)
		block->last_prefetch[page] = 0;
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
	for (i = 0; i < UVM_PAGES_PER_BLOCK; i++)
		if (block->last_prefetch[i])
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
	uvm_va_block_unmap_pages(block, block->start,
				 block->start + UVM_VA_BLOCK_SIZE);
	mutex_unlock(&block->lock);

	for (i = 0; i < UVM_MAX_GPUS; i++) {
		if (!block->gpus[i])
			continue;
		kfree(block->gpus[i]->dma);
		kfree(block->gpus[i]);
	}
	uvm_thrash_free(block->thrash);
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
	if (uvm_page_mask_test(&block->cpu.resident, page))
		state->resident |= UVM_PROCESSOR_MASK(UVM_PROCESSOR_CPU);
	if (uvm_page_mask_test(&block->cpu.mapped, page))
		state->mapped_read |= UVM_PROCESSOR_MASK(UVM_PROCESSOR_CPU);
	if (uvm_page_mask_test(&block->cpu.mapped_write, page))
		state->mapped_write |= UVM_PROCESSOR_MASK(UVM_PROCESSOR_CPU);

	for (i = 0; i < uvm_gpu_count; i++) {
		struct uvm_va_block_gpu *gs = block->gpus[i];
		u64 bit = UVM_PROCESSOR_MASK(UVM_PROCESSOR_GPU(i));

		if (!gs)
			continue;
		if (uvm_page_mask_test(&gs->resident, page))
			state->resident |= bit;
		if (uvm_page_mask_test(&gs->mapped[0], page))
			state->mapped_read |= bit;
		if (uvm_page_mask_test(&gs->mapped[1], page))
			state->mapped_write |= bit;
		if (uvm_page_mask_test(&gs->mapped[2], page))
			state->mapped_atomic |= bit;
	}
}
