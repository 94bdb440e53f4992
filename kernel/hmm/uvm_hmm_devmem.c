// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Device-private vidmem: pageable memory migrated into the GPUs.
 *
 * DOC: Device-private memory
 *
 * On kernels with CONFIG_DEVICE_PRIVATE (and migrate_device_range()), each
 * GPU's vidmem gets struct pages: at load, memremap_pages() of a
 * MEMORY_DEVICE_PRIVATE dev_pagemap over a free physical range as large as
 * the vidmem (rounded up to a memory section).  Device page i stands for
 * vidmem offset i * PAGE_SIZE.  One pgmap owner covers every GPU, so that
 * hmm_range_fault() reports the pages of any of our GPUs instead of
 * faulting them back, and a GPU can map a peer's page.
 *
 * Vidmem comes from the core's allocator (uvm_pmm) in 2 MiB chunks.  A chunk
 * belongs to the VA space that allocated it and hands out its 512 pages as
 * device pages; it goes back to uvm_pmm as soon as its last page is freed
 * (dev_pagemap_ops.page_free).  page->zone_device_data of a device page
 * points at its chunk, which gives the GPU and the vidmem address.
 *
 * Migration to a GPU (migrate_vma_setup/pages/finalize): the destination
 * pages are reserved before any CPU page is locked (a reservation may
 * allocate a chunk, and evict the GPU's oldest chunk to make room), then
 * filled by that GPU's copy engine: a copy of the system page, a copy of a
 * peer's vidmem, or zeros for a page the CPU never populated.  Migration
 * back (the CPU touches a device page: migrate_to_ram(); a prefetch to the
 * host; eviction) allocates a system page and copies with the owning GPU's
 * engine.  A copy that fails leaves the source where it was.
 *
 * Eviction uses migrate_device_range() over a chunk's pfns: it finds the
 * pages in whatever mm maps them (a fork() child shares its parent's device
 * pages until one of them writes), so releasing a VA space and unloading the
 * module bring every page back to system memory.  When a GPU is full and
 * nothing can be evicted, pages simply stay in system memory and the GPU
 * maps them there.
 *
 * Locking: uvm_hmm_devmem_lock (spinlock, a leaf; also taken by page_free(),
 * which may run under page-table locks) protects the chunk lists and each
 * chunk's page bitmap and counts.  Migrations run with mmap_lock held for
 * read (migrate_vma_*) or with no lock at all (eviction) and never hold a
 * region lock: the CPU PTE changes they make call the interval notifiers,
 * which revoke GPU mappings under the region locks (uvm_hmm.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ioport.h>
#include <linux/memremap.h>
#include <linux/memcontrol.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "uvm_events.h"
#include "uvm_param.h"
#include "uvm_gpu.h"
#include "uvm_hmm.h"
#include "uvm_hmm_devmem.h"
#include "uvm_hmm_internal.h"
#include "uvm_va_space.h"

#if UVM_HMM_MIGRATION

#define UVM_HMM_CHUNK_PAGES	UVM_PAGES_PER_BLOCK
/* Chunks a reservation may evict before it settles for fewer pages. */
#define UVM_HMM_EVICT_TRIES	4
/* Rounds over a VA space's chunks at release before leftovers are disowned. */
#define UVM_HMM_EVICT_ROUNDS	100

/**
 * struct uvm_hmm_devmem - the device-private pages of one GPU
 * @gpu:	the GPU
 * @pgmap:	MEMORY_DEVICE_PRIVATE pagemap over @res
 * @res:	the physical range the pages pretend to live at
 * @pfn_first:	pfn of the page for vidmem offset 0
 * @chunks:	chunks of this GPU, oldest first; uvm_hmm_devmem_lock
 */
struct uvm_hmm_devmem {
	struct uvm_gpu *gpu;
	struct dev_pagemap pgmap;
	struct resource *res;
	unsigned long pfn_first;
	struct list_head chunks;
};

/**
 * struct uvm_hmm_chunk - a 2 MiB vidmem chunk handing out device pages
 * @dm:		its GPU's device memory
 * @addr:	vidmem offset
 * @pfn_first:	pfn of its first page
 * @dm_node:	on @dm->chunks
 * @owner_node:	on @owner's uvm_hmm_va_space.chunks; empty once disowned
 * @owner:	VA space that allocated it, NULL once that VA space is gone
 * @busy:	pages reserved or in use
 * @nbusy:	bits set in @busy
 * @nresv:	of those, pages reserved for a migration, not yet handed out
 * @pins:	evictions working on the chunk: it is not freed meanwhile
 * @shares:	@owner's uvm_hmm_va_space.shares when the chunk was allocated:
 *		a different count now means its pages may be mapped by a
 *		fork() child too
 *
 * Everything but @dm, @addr and @pfn_first is protected by
 * uvm_hmm_devmem_lock.  The chunk is freed when @nbusy and @pins are 0.
 */
struct uvm_hmm_chunk {
	struct uvm_hmm_devmem *dm;
	u64 addr;
	unsigned long pfn_first;
	struct list_head dm_node;
	struct list_head owner_node;
	struct uvm_va_space *owner;
	DECLARE_BITMAP(busy, UVM_HMM_CHUNK_PAGES);
	u32 nbusy;
	u32 nresv;
	u32 pins;
	int shares;
};

static DEFINE_SPINLOCK(uvm_hmm_devmem_lock); /* chunk lists, chunk state */
static struct uvm_hmm_devmem *uvm_hmm_devmems[UVM_MAX_GPUS];

/* The pgmap owner of all our device pages: only its address matters. */
static int uvm_hmm_pgmap_owner;

/**
 * uvm_hmm_devmem_owner() - the dev_pagemap owner of the driver's pages
 *
 * Return: the value to pass as dev_private_owner and pgmap_owner.
 */
void *uvm_hmm_devmem_owner(void)
{
	return &uvm_hmm_pgmap_owner;
}

/**
 * uvm_hmm_devmem_page_addr() - where a device page of ours lives
 * @page:	any page
 * @addr:	out: its vidmem address (GPU and offset) when it is ours
 *
 * Return: true for one of the driver's device-private pages.
 */
bool uvm_hmm_devmem_page_addr(struct page *page, struct uvm_gpu_address *addr)
{
	struct uvm_hmm_chunk *chunk;

	if (!is_device_private_page(page) ||
	    uvm_page_pgmap(page)->owner != uvm_hmm_devmem_owner())
		return false;
	chunk = page->zone_device_data;
	*addr = (struct uvm_gpu_address){
		.addr = chunk->addr +
			((u64)(page_to_pfn(page) - chunk->pfn_first) << PAGE_SHIFT),
		.aperture = UVM_APERTURE_VID,
		.gpu = chunk->dm->gpu->index,
	};
	return true;
}

/* Chunks */

/**
 * __uvm_hmm_chunk_try_unlink() - take an unused chunk off the lists
 * @chunk:	the chunk; uvm_hmm_devmem_lock held
 *
 * Return: true when the chunk is unused and unlinked: the caller frees it
 * with uvm_hmm_chunk_free() after dropping the lock.
 */
static bool __uvm_hmm_chunk_try_unlink(struct uvm_hmm_chunk *chunk)
{
	lockdep_assert_held(&uvm_hmm_devmem_lock);

	if (chunk->nbusy || chunk->pins)
		return false;
	list_del(&chunk->dm_node);
	list_del_init(&chunk->owner_node);
	return true;
}

/**
 * __uvm_hmm_chunk_put_page() - a page of a chunk is free again
 * @chunk:	the chunk; uvm_hmm_devmem_lock held
 * @idx:	page index in the chunk
 *
 * Return: see __uvm_hmm_chunk_try_unlink().
 */
static bool __uvm_hmm_chunk_put_page(struct uvm_hmm_chunk *chunk, u32 idx)
{
	lockdep_assert_held(&uvm_hmm_devmem_lock);

	if (WARN_ON_ONCE(!test_bit(idx, chunk->busy)))
		return false;
	__clear_bit(idx, chunk->busy);
	chunk->nbusy--;
	return __uvm_hmm_chunk_try_unlink(chunk);
}

/**
 * uvm_hmm_chunk_free() - give an unlinked chunk's vidmem back
 * @chunk:	the chunk: no page in use, no GPU mapping, no copy in flight
 *
 * Context: any, including under page-table locks (page_free()).
 */
static void uvm_hmm_chunk_free(struct uvm_hmm_chunk *chunk)
{
	uvm_pmm_free_chunk(chunk->dm->gpu, chunk->addr);
	kfree(chunk);
}

/**
 * uvm_hmm_chunk_unpin() - an eviction is done with a chunk
 * @chunk:	the chunk, pinned by the caller
 */
static void uvm_hmm_chunk_unpin(struct uvm_hmm_chunk *chunk)
{
	bool free;

	spin_lock(&uvm_hmm_devmem_lock);
	chunk->pins--;
	free = __uvm_hmm_chunk_try_unlink(chunk);
	spin_unlock(&uvm_hmm_devmem_lock);
	if (free)
		uvm_hmm_chunk_free(chunk);
}

/**
 * uvm_hmm_page_free() - the pagemap's free callback: a device page is free
 * @page:	the page, its last reference gone
 *
 * Its GPU mappings were revoked when its CPU PTE went (interval notifiers),
 * so the vidmem may be reused at once.
 *
 * Context: any, possibly under page-table locks; never sleeps.
 */
static void uvm_hmm_page_free(struct page *page)
{
	struct uvm_hmm_chunk *chunk = page->zone_device_data;
	bool free;

	spin_lock(&uvm_hmm_devmem_lock);
	free = __uvm_hmm_chunk_put_page(chunk, page_to_pfn(page) - chunk->pfn_first);
	spin_unlock(&uvm_hmm_devmem_lock);
	if (free)
		uvm_hmm_chunk_free(chunk);
}

/* Copies */

/**
 * struct uvm_hmm_end - one side of a page copy
 * @page:	a system page (mapped for the engine when the copy is
 *		gathered), or NULL
 * @addr:	the GPU address when @page is NULL
 */
struct uvm_hmm_end {
	struct page *page;
	struct uvm_gpu_address addr;
};

/**
 * uvm_hmm_ce_page() - gather one page copy, or a zero fill
 * @b:		the batch
 * @gpu:	the engine
 * @dst:	destination
 * @src:	source, or NULL to fill the destination with zeros
 *
 * Return: 0 or -errno (the batch is then unusable until flushed).
 */
static int uvm_hmm_ce_page(struct uvm_ce_batch *b, struct uvm_gpu *gpu,
			   struct uvm_hmm_end dst, const struct uvm_hmm_end *src)
{
	struct uvm_ce_op op = {
		.type = src ? UVM_CE_COPY : UVM_CE_MEMSET,
		.size = PAGE_SIZE,
	};
	int ret;

	ret = uvm_ce_batch_begin(b, gpu);
	if (!ret && dst.page)
		ret = uvm_ce_batch_sysmem(b, dst.page, &dst.addr);
	if (ret)
		return ret;
	op.dst = dst.addr;
	if (src) {
		op.src = src->addr;
		if (src->page)
			ret = uvm_ce_batch_sysmem(b, src->page, &op.src);
		if (ret)
			return ret;
	}
	uvm_ce_batch_push(b, &op);
	return 0;
}

/**
 * uvm_hmm_drop_dst() - give up every destination page of a migration
 * @dst:	migrate_vma destination pfns; cleared
 * @npages:	entries
 *
 * The pages are unlocked and released; the sources stay where they are.
 */
static void uvm_hmm_drop_dst(unsigned long *dst, unsigned long npages)
{
	struct page *page;
	unsigned long i;

	for (i = 0; i < npages; i++) {
		page = migrate_pfn_to_page(dst[i]);
		if (!page)
			continue;
		unlock_page(page);
		put_page(page);
		dst[i] = 0;
	}
}

/* Add @n to @counter of @va_space, and the bytes of a PAGES_* copy counter. */
static void uvm_hmm_count_locked(struct uvm_va_space *va_space, u32 counter, u64 n)
{
	u32 bytes = counter == UVM_COUNTER_PAGES_H2D ? UVM_COUNTER_BYTES_H2D :
		    counter == UVM_COUNTER_PAGES_D2H ? UVM_COUNTER_BYTES_D2H :
		    counter == UVM_COUNTER_PAGES_D2D ? UVM_COUNTER_BYTES_D2D : 0;

	uvm_va_space_count(va_space, counter, n);
	if (bytes)
		uvm_va_space_count(va_space, bytes, n << PAGE_SHIFT);
}

/**
 * uvm_hmm_count() - account pages populated by a migration, or CPU faults
 * @va_space:	VA space to charge, or NULL for the owner of @chunk
 * @chunk:	a chunk involved (for the owner), or NULL
 * @counter:	UVM_COUNTER_PAGES_* (the byte counter follows it for copies)
 * @n:		pages
 */
static void uvm_hmm_count(struct uvm_va_space *va_space,
			  struct uvm_hmm_chunk *chunk, u32 counter, u64 n)
{
	if (!n)
		return;
	spin_lock(&uvm_hmm_devmem_lock);
	if (!va_space && chunk)
		va_space = chunk->owner;
	if (va_space)
		uvm_hmm_count_locked(va_space, counter, n);
	spin_unlock(&uvm_hmm_devmem_lock);
}

/**
 * uvm_hmm_count_copies() - account pages a migration copied, as one event
 * @va_space:	VA space to charge, or NULL for the owner of @chunk
 * @chunk:	a chunk involved (for the owner), or NULL
 * @src:	source processor id
 * @dst:	destination processor id
 * @addr:	address of the first page, or 0 when unknown (eviction)
 * @n:		pages
 *
 * The PAGES_* and BYTES_* counters of the direction, and a migration event
 * with cause UVM_NL_CAUSE_HMM (sent under the lock that keeps the owner).
 */
static void uvm_hmm_count_copies(struct uvm_va_space *va_space,
				 struct uvm_hmm_chunk *chunk, u32 src, u32 dst,
				 u64 addr, u32 n)
{
	u32 pages = src == UVM_PROCESSOR_CPU ? UVM_COUNTER_PAGES_H2D :
		    dst == UVM_PROCESSOR_CPU ? UVM_COUNTER_PAGES_D2H :
		    UVM_COUNTER_PAGES_D2D;

	if (!n)
		return;
	spin_lock(&uvm_hmm_devmem_lock);
	if (!va_space && chunk)
		va_space = chunk->owner;
	if (va_space) {
		uvm_hmm_count_locked(va_space, pages, n);
		uvm_event_migration(va_space, addr, src, dst, n, UVM_NL_CAUSE_HMM, 0, 0);
	}
	spin_unlock(&uvm_hmm_devmem_lock);
}

/* To a GPU */

/**
 * uvm_hmm_devmem_take() - hand out a reserved page
 * @mig:	the migration
 *
 * Return: the page, refcounted and locked (zone_device_page_init()), or
 * NULL when the reservation is used up.
 */
static struct page *uvm_hmm_devmem_take(struct uvm_hmm_migrate_ctx *mig)
{
	struct uvm_hmm_chunk *chunk;
	struct page *page;

	if (mig->ntaken == mig->nresv)
		return NULL;
	page = mig->resv[mig->ntaken++];
	chunk = page->zone_device_data;
	spin_lock(&uvm_hmm_devmem_lock);
	chunk->nresv--;
	spin_unlock(&uvm_hmm_devmem_lock);
	uvm_zone_device_page_init(page, &chunk->dm->pgmap);
	return page;
}

/**
 * uvm_hmm_fill_gpu_pages() - allocate and fill the destinations on a GPU
 * @mig:	the migration, set up; its reservation is on @gpu
 * @gpu:	destination GPU (its engine copies)
 * @npages:	pages of the range
 *
 * Pages already on @gpu stay.  When the reservation runs out, the rest
 * stays where it is.
 *
 * Return: 0, or the -errno of the copy engine (nothing migrates then).
 */
static int uvm_hmm_fill_gpu_pages(struct uvm_hmm_migrate_ctx *mig,
				  struct uvm_gpu *gpu, unsigned long npages)
{
	struct uvm_hmm_end dst = {}, src;
	struct page *spage, *dpage;
	unsigned long i;
	int ret = 0;

	for (i = 0; i < npages && !ret; i++) {
		if (!(mig->src[i] & MIGRATE_PFN_MIGRATE))
			continue;
		spage = migrate_pfn_to_page(mig->src[i]);
		src = (struct uvm_hmm_end){ .page = spage };
		if (spage && uvm_hmm_devmem_page_addr(spage, &src.addr)) {
			if (src.addr.gpu == gpu->index)
				continue;
			src.page = NULL;
		}
		dpage = uvm_hmm_devmem_take(mig);
		if (!dpage)
			break;
		mig->dst[i] = migrate_pfn(page_to_pfn(dpage));
		uvm_hmm_devmem_page_addr(dpage, &dst.addr);
		ret = uvm_hmm_ce_page(&mig->ce, gpu, dst, spage ? &src : NULL);
	}
	ret = uvm_ce_batch_flush(&mig->ce) ?: ret;
	if (ret)
		uvm_hmm_drop_dst(mig->dst, npages);
	return ret;
}

/**
 * uvm_hmm_count_to_gpu() - account a migration to a GPU
 * @va_space:	the VA space that migrated
 * @gpu:	the destination
 * @mig:	the migration, after migrate_vma_pages()
 * @start:	address of the range's first page
 * @npages:	pages of the range
 *
 * Return: pages now on @gpu that were not before.
 */
static u32 uvm_hmm_count_to_gpu(struct uvm_va_space *va_space,
				struct uvm_gpu *gpu,
				struct uvm_hmm_migrate_ctx *mig, u64 start,
				unsigned long npages)
{
	u32 h2d = 0, d2d = 0, zero = 0, from[UVM_MAX_GPUS] = {};
	struct uvm_gpu_address addr;
	struct page *spage;
	unsigned long i;

	for (i = 0; i < npages; i++) {
		if (!mig->dst[i] || !(mig->src[i] & MIGRATE_PFN_MIGRATE))
			continue;
		spage = migrate_pfn_to_page(mig->src[i]);
		if (!spage) {
			zero++;
		} else if (uvm_hmm_devmem_page_addr(spage, &addr)) {
			d2d++;
			from[addr.gpu]++;
			uvm_gpu_count_event(uvm_gpus[addr.gpu], UVM_GPU_PAGES_OUT, 1);
		} else {
			h2d++;
		}
	}
	uvm_gpu_count_event(gpu, UVM_GPU_PAGES_IN, h2d + d2d);
	uvm_hmm_count_copies(va_space, NULL, UVM_PROCESSOR_CPU,
			     uvm_gpu_processor(gpu), start, h2d);
	for (i = 0; d2d && i < uvm_gpu_count; i++)
		uvm_hmm_count_copies(va_space, NULL, UVM_PROCESSOR_GPU(i),
				     uvm_gpu_processor(gpu), start, from[i]);
	uvm_hmm_count(va_space, NULL, UVM_COUNTER_PAGES_POPULATED_GPU, zero);
	return h2d + d2d + zero;
}

/**
 * uvm_hmm_devmem_to_gpu() - migrate the pages of a VMA range to a GPU
 * @mig:	scratch space holding a reservation on @gpu
 *		(uvm_hmm_devmem_reserve()), partly used up on return
 * @va_space:	the VA space migrating (counters)
 * @vma:	an anonymous private VMA
 * @start:	first byte, page aligned, inside @vma
 * @end:	last byte + 1, at most UVM_PAGES_PER_BLOCK pages after @start
 * @gpu:	destination
 * @migrated:	out: pages that moved to @gpu (or were populated there)
 *
 * System pages, pages of other GPUs and pages never populated move; pinned
 * pages, pages another migration holds, and pages beyond the reservation
 * stay where they are.
 *
 * Context: mmap_lock held for read; no region lock.
 * Return: 0, or -errno from migrate_vma_setup() or the copy engine.
 */
int uvm_hmm_devmem_to_gpu(struct uvm_hmm_migrate_ctx *mig,
			  struct uvm_va_space *va_space,
			  struct vm_area_struct *vma, u64 start, u64 end,
			  struct uvm_gpu *gpu, u32 *migrated)
{
	struct migrate_vma args = {
		.vma = vma,
		.start = start,
		.end = end,
		.src = mig->src,
		.dst = mig->dst,
		.pgmap_owner = uvm_hmm_devmem_owner(),
		.flags = MIGRATE_VMA_SELECT_SYSTEM | MIGRATE_VMA_SELECT_DEVICE_PRIVATE,
	};
	unsigned long npages = (end - start) >> PAGE_SHIFT;
	int ret;

	lockdep_assert_held(&vma->vm_mm->mmap_lock);
	*migrated = 0;
	if (mig->ntaken == mig->nresv)
		return -ENOMEM;
	ret = migrate_vma_setup(&args);
	if (ret || !args.cpages)
		return ret;
	ret = uvm_hmm_fill_gpu_pages(mig, gpu, npages);
	migrate_vma_pages(&args);
	*migrated = uvm_hmm_count_to_gpu(va_space, gpu, mig, start, npages);
	migrate_vma_finalize(&args);
	return ret;
}

/* To system memory */

/**
 * uvm_hmm_alloc_ram_page() - a system page to migrate a device page into
 * @vma:	the VMA it will be mapped in, or NULL (eviction)
 * @addr:	its address in @vma
 * @nid:	NUMA node to allocate on, or NUMA_NO_NODE
 *
 * Return: the page, locked, or NULL.
 */
static struct page *uvm_hmm_alloc_ram_page(struct vm_area_struct *vma, u64 addr,
					   int nid)
{
	struct page *page;

	if (uvm_hmm_should_fail())
		return NULL;
	if (nid != NUMA_NO_NODE)
		page = alloc_pages_node(nid, GFP_HIGHUSER_MOVABLE | __GFP_THISNODE, 0);
	else if (vma)
		page = alloc_page_vma(GFP_HIGHUSER_MOVABLE, vma, addr);
	else
		page = alloc_page(GFP_HIGHUSER_MOVABLE);
	if (page)
		lock_page(page);
	return page;
}

/**
 * uvm_hmm_fill_ram_pages() - allocate and fill system pages for device pages
 * @ce:		copy-engine batch, empty
 * @src:	migrate source pfns (our device pages are copied, the others
 *		skipped)
 * @dst:	destination pfns, filled
 * @npages:	entries
 * @vma:	the VMA (NULL for eviction)
 * @start:	address of entry 0 in @vma
 * @nid:	NUMA node for the copies, or NUMA_NO_NODE
 *
 * Return: 0; -ENOMEM when a page could not be allocated (that page stays
 * on its GPU); the -errno of the engine (nothing migrates then).
 */
static int uvm_hmm_fill_ram_pages(struct uvm_ce_batch *ce, unsigned long *src,
				  unsigned long *dst, unsigned long npages,
				  struct vm_area_struct *vma, u64 start, int nid)
{
	struct uvm_hmm_end from = {}, to = {};
	struct page *spage;
	unsigned long i;
	int ret = 0, err = 0;

	for (i = 0; i < npages && !err; i++) {
		spage = migrate_pfn_to_page(src[i]);
		if (!spage || !(src[i] & MIGRATE_PFN_MIGRATE) ||
		    !uvm_hmm_devmem_page_addr(spage, &from.addr))
			continue;
		to.page = uvm_hmm_alloc_ram_page(vma, start + (i << PAGE_SHIFT), nid);
		if (!to.page) {
			ret = -ENOMEM;
			continue;
		}
		dst[i] = migrate_pfn(page_to_pfn(to.page));
		err = uvm_hmm_ce_page(ce, uvm_gpus[from.addr.gpu], to, &from);
	}
	err = uvm_ce_batch_flush(ce) ?: err;
	if (err) {
		uvm_hmm_drop_dst(dst, npages);
		return err;
	}
	return ret;
}

/**
 * uvm_hmm_count_to_ram() - account a migration to system memory
 * @va_space:	the VA space that migrated, or NULL for each page's owner
 * @src:	source pfns, after migrate_*_pages()
 * @dst:	destination pfns
 * @start:	address of the first page, or 0 when unknown (eviction)
 * @npages:	entries
 *
 * Consecutive pages of one chunk are accounted together (one event).
 *
 * Return: pages migrated.
 */
static u32 uvm_hmm_count_to_ram(struct uvm_va_space *va_space,
				unsigned long *src, unsigned long *dst, u64 start,
				unsigned long npages)
{
	struct uvm_hmm_chunk *chunk, *run_chunk = NULL;
	struct uvm_gpu_address addr;
	unsigned long i, run_first = 0;
	struct page *spage;
	u32 n = 0, run = 0, run_gpu = 0;

	for (i = 0; i < npages; i++) {
		spage = migrate_pfn_to_page(src[i]);
		if (!dst[i] || !spage || !(src[i] & MIGRATE_PFN_MIGRATE) ||
		    !uvm_hmm_devmem_page_addr(spage, &addr))
			continue;
		uvm_gpu_count_event(uvm_gpus[addr.gpu], UVM_GPU_PAGES_OUT, 1);
		chunk = spage->zone_device_data;
		if (run && chunk != run_chunk) {
			uvm_hmm_count_copies(va_space, run_chunk,
					     UVM_PROCESSOR_GPU(run_gpu), UVM_PROCESSOR_CPU,
					     start ? start + (run_first << PAGE_SHIFT) : 0,
					     run);
			run = 0;
		}
		if (!run) {
			run_chunk = chunk;
			run_gpu = addr.gpu;
			run_first = i;
		}
		run++;
		n++;
	}
	if (run)
		uvm_hmm_count_copies(va_space, run_chunk, UVM_PROCESSOR_GPU(run_gpu),
				     UVM_PROCESSOR_CPU,
				     start ? start + (run_first << PAGE_SHIFT) : 0, run);
	return n;
}

/**
 * uvm_hmm_devmem_to_ram() - migrate the device pages of a VMA range back
 * @mig:	scratch space
 * @va_space:	the VA space migrating (counters)
 * @vma:	the VMA
 * @start:	first byte, page aligned, inside @vma
 * @end:	last byte + 1, at most UVM_PAGES_PER_BLOCK pages after @start
 * @nid:	NUMA node for the copies, or NUMA_NO_NODE
 * @migrated:	out: pages brought back
 *
 * Context: mmap_lock held for read; no region lock.
 * Return: 0 or -errno (-ENOMEM: some pages stay on their GPU).
 */
int uvm_hmm_devmem_to_ram(struct uvm_hmm_migrate_ctx *mig,
			  struct uvm_va_space *va_space,
			  struct vm_area_struct *vma, u64 start, u64 end,
			  int nid, u32 *migrated)
{
	struct migrate_vma args = {
		.vma = vma,
		.start = start,
		.end = end,
		.src = mig->src,
		.dst = mig->dst,
		.pgmap_owner = uvm_hmm_devmem_owner(),
		.flags = MIGRATE_VMA_SELECT_DEVICE_PRIVATE,
	};
	unsigned long npages = (end - start) >> PAGE_SHIFT;
	int ret;

	lockdep_assert_held(&vma->vm_mm->mmap_lock);
	*migrated = 0;
	ret = migrate_vma_setup(&args);
	if (ret || !args.cpages)
		return ret;
	ret = uvm_hmm_fill_ram_pages(&mig->ce, mig->src, mig->dst, npages, vma,
				     start, nid);
	migrate_vma_pages(&args);
	*migrated = uvm_hmm_count_to_ram(va_space, mig->src, mig->dst, start, npages);
	migrate_vma_finalize(&args);
	return ret;
}

/**
 * uvm_hmm_migrate_to_ram() - dev_pagemap_ops.migrate_to_ram: a CPU touch
 * @vmf:	the CPU fault on a device page of ours
 *
 * Brings the faulting page back to system memory (one page, as a CPU
 * fault on managed memory does).
 *
 * Context: the faulting task, mmap_lock held for read.
 * Return: 0 (the fault is retried and finds the page), VM_FAULT_OOM when
 * no system page could be had, VM_FAULT_SIGBUS when the copy failed.
 */
static vm_fault_t uvm_hmm_migrate_to_ram(struct vm_fault *vmf)
{
	unsigned long src = 0, dst = 0;
	struct migrate_vma args = {
		.vma = vmf->vma,
		.start = vmf->address & PAGE_MASK,
		.end = (vmf->address & PAGE_MASK) + PAGE_SIZE,
		.src = &src,
		.dst = &dst,
		.pgmap_owner = uvm_hmm_devmem_owner(),
		.flags = MIGRATE_VMA_SELECT_DEVICE_PRIVATE,
	};
	struct uvm_ce_batch *ce;
	vm_fault_t ret = 0;
	int err;

	ce = uvm_hmm_should_fail() ? NULL : kzalloc(sizeof(*ce), GFP_KERNEL);
	if (!ce)
		return VM_FAULT_OOM;
	uvm_migrate_vma_set_fault_page(&args, vmf->page);
	if (migrate_vma_setup(&args)) {
		ret = VM_FAULT_SIGBUS;
		goto out_free_ce;
	}
	if (args.cpages) {
		err = uvm_hmm_fill_ram_pages(ce, &src, &dst, 1, vmf->vma,
					     args.start, NUMA_NO_NODE);
		if (err)
			ret = err == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
		migrate_vma_pages(&args);
		if (uvm_hmm_count_to_ram(NULL, &src, &dst, args.start, 1))
			uvm_hmm_count(NULL, vmf->page->zone_device_data,
				      UVM_COUNTER_CPU_FAULTS, 1);
		migrate_vma_finalize(&args);
	}
out_free_ce:
	kfree(ce);
	return ret;
}

UVM_DEFINE_PGMAP_FREE(uvm_hmm_pgmap_free, uvm_hmm_page_free)

static const struct dev_pagemap_ops uvm_hmm_pgmap_ops = {
	UVM_PGMAP_FREE_OP(uvm_hmm_pgmap_free),
	.migrate_to_ram = uvm_hmm_migrate_to_ram,
};

/* Reservations and eviction */

#if IS_ENABLED(CONFIG_UVM_TEST)
/*
 * Test builds: a pause between collecting a chunk's pages and finalizing
 * them, which lets a test unmap them in the middle of an eviction.
 */
static struct uvm_param_uint hmm_evict_pause_ms = {
	.val = 0,
	.min = 0,
	.max = 1000,
};
module_param_cb(hmm_evict_pause_ms, &uvm_param_uint_ops, &hmm_evict_pause_ms, 0644);
MODULE_PARM_DESC(hmm_evict_pause_ms,
		 "Test builds: milliseconds an eviction of device-private pages pauses with the pages collected (default 0)");

static void uvm_hmm_evict_pause(void)
{
	unsigned int ms = uvm_param_get(&hmm_evict_pause_ms);

	if (ms)
		msleep(ms);
}
#else
static void uvm_hmm_evict_pause(void)
{
}
#endif

/**
 * uvm_hmm_skip_dying() - leave alone the pages a migration just moved away
 * @src:	the source pfns of migrate_device_range()
 * @npages:	entries
 *
 * migrate_device_range() takes every page that has a reference and is not
 * locked.  That includes a device page whose data another migration (a CPU
 * fault, a prefetch to the host or to another GPU) has just moved: between
 * migrate_vma_finalize() unlocking it and dropping the last reference, it
 * is mapped nowhere, and its memory cgroup charge went to the new page with
 * its data.  Migrating it again would copy stale data into a page that is
 * never mapped and trip mem_cgroup_migrate()'s check for a missing charge
 * (then folio_lruvec()'s as the uncharged page reaches the LRU).  A page
 * that is mapped is always charged (migrate_vma_insert_page() charges a new
 * page, mem_cgroup_migrate() moves the charge of a migrated one), so a
 * missing charge marks a dying page; it is skipped and freed by its last
 * reference.  Without memory cgroups nothing marks it, and the pointless
 * copy is harmless.
 */
static void uvm_hmm_skip_dying(unsigned long *src, unsigned long npages)
{
	struct page *page;
	unsigned long i;
	bool charged;

	if (mem_cgroup_disabled())
		return;
	for (i = 0; i < npages; i++) {
		page = migrate_pfn_to_page(src[i]);
		if (!page || !(src[i] & MIGRATE_PFN_MIGRATE))
			continue;
		/* RCU: newer kernels reach the memcg through an objcg */
		rcu_read_lock();
		charged = folio_memcg(page_folio(page));
		rcu_read_unlock();
		if (!charged)
			src[i] &= ~MIGRATE_PFN_MIGRATE;
	}
}

/*
 * May a chunk's pages be mapped in an mm eviction cannot lock?  Disowned, or
 * its owner saw a fork-like write protection since it was allocated.
 * uvm_hmm_devmem_lock held.
 */
static bool __uvm_hmm_chunk_maybe_shared(const struct uvm_hmm_chunk *chunk)
{
	return !chunk->owner || chunk->shares != atomic_read(&chunk->owner->hmm.shares);
}

/**
 * uvm_hmm_chunk_lock_owner_mm() - hold off unmapping in the chunk owner's mm
 * @chunk:	the chunk, pinned
 * @force:	lock what can be locked even when the chunk's pages may be
 *		mapped elsewhere (module unload)
 *
 * migrate_device_finalize() walks the reverse map of every page it
 * finalizes, even a page mapped nowhere, through the anon_vma the page
 * last belonged to, and migrate_device_range() holds no reference on that
 * anon_vma (the kernel's rmap_walk_anon_lock() asks callers without the
 * mmap lock for one; a module cannot take it).  A munmap() or mremap() in
 * the page's mm between collecting the page and finalizing it frees the
 * anon_vma: a use-after-free.  The pages of a chunk are mapped by the mm of
 * the VA space that migrated them there, so eviction holds that mm's mmap
 * lock for write: nothing unmaps there meanwhile, and the mm's exit frees
 * its page tables and anon_vmas only after.  It is only tried: an
 * eviction never waits for an mmap lock, whatever its caller holds.
 *
 * The pages of a chunk whose VA space is gone (disowned), or of one whose
 * pages a fork() may have shared with a child (the owner's mm saw a
 * fork-like write protection since the chunk was allocated), may be mapped
 * in an mm no lock can be taken of: such a chunk is not evicted (its pages
 * stay until freed, then the chunk goes) unless @force (module unload,
 * when nothing else can give the memory back).
 *
 * Return: the mm, locked and grabbed (for uvm_hmm_chunk_unlock_owner_mm()),
 * NULL for a disowned chunk (@force only), ERR_PTR(-EBUSY) when the lock
 * is taken, ERR_PTR(-EPERM) when the chunk cannot be evicted safely.
 */
static struct mm_struct *uvm_hmm_chunk_lock_owner_mm(struct uvm_hmm_chunk *chunk, bool force)
{
	struct mm_struct *mm = NULL;
	bool unsafe;

	spin_lock(&uvm_hmm_devmem_lock);
	unsafe = __uvm_hmm_chunk_maybe_shared(chunk);
	if (chunk->owner) {
		/* the VA space holds its mm until it disowns its chunks */
		mm = chunk->owner->mm;
		mmgrab(mm);
	}
	spin_unlock(&uvm_hmm_devmem_lock);
	if (unsafe && !force) {
		if (mm)
			mmdrop(mm);
		return ERR_PTR(-EPERM);
	}
	/* mmap_lock.h has mmap_read_trylock() but no write form */
	if (mm && !down_write_trylock(&mm->mmap_lock)) {
		mmdrop(mm);
		return ERR_PTR(-EBUSY);
	}
	return mm;
}

static void uvm_hmm_chunk_unlock_owner_mm(struct mm_struct *mm)
{
	if (!mm)
		return;
	mmap_write_unlock(mm);
	mmdrop(mm);
}

/**
 * uvm_hmm_chunk_evict() - bring every page of a chunk back to system memory
 * @chunk:	the chunk, pinned by the caller
 * @force:	also a chunk whose pages may be mapped where no lock can be
 *		taken (module unload only)
 *
 * Pages that are locked or being migrated right now are skipped, and so is
 * the whole chunk while its owner's mmap lock is taken: the caller tries
 * again later.
 *
 * Context: process, no spinlock held.
 * Return: 0, -EBUSY, -EPERM (not safely evictable) or -ENOMEM.
 */
static int uvm_hmm_chunk_evict(struct uvm_hmm_chunk *chunk, bool force)
{
	struct uvm_hmm_migrate_ctx *mig;
	struct mm_struct *mm;
	int ret;

	mig = kvzalloc(sizeof(*mig), GFP_KERNEL);
	if (!mig)
		return -ENOMEM;
	mm = uvm_hmm_chunk_lock_owner_mm(chunk, force);
	if (IS_ERR(mm)) {
		kvfree(mig);
		return PTR_ERR(mm);
	}
	migrate_device_range(mig->src, chunk->pfn_first, UVM_HMM_CHUNK_PAGES);
	uvm_hmm_evict_pause();
	uvm_hmm_skip_dying(mig->src, UVM_HMM_CHUNK_PAGES);
	ret = uvm_hmm_fill_ram_pages(&mig->ce, mig->src, mig->dst,
				     UVM_HMM_CHUNK_PAGES, NULL, 0, NUMA_NO_NODE);
	migrate_device_pages(mig->src, mig->dst, UVM_HMM_CHUNK_PAGES);
	uvm_hmm_count_to_ram(NULL, mig->src, mig->dst, 0, UVM_HMM_CHUNK_PAGES);
	migrate_device_finalize(mig->src, mig->dst, UVM_HMM_CHUNK_PAGES);
	uvm_hmm_chunk_unlock_owner_mm(mm);
	kvfree(mig);
	return ret;
}

/**
 * uvm_hmm_devmem_evict_one() - make room on a full GPU
 * @dm:		the GPU's device memory
 *
 * Evicts the oldest chunk that no migration is filling right now and whose
 * pages can all be reached under their owner's lock; it goes to the end of
 * the list whatever happens, so the next call tries the next one.
 *
 * Return: 0 when the chunk's vidmem was freed, -EBUSY when some of its
 * pages stayed (busy, or its owner's mmap lock was taken), -ENOENT when no
 * chunk could be tried.
 */
static int uvm_hmm_devmem_evict_one(struct uvm_hmm_devmem *dm)
{
	struct uvm_hmm_chunk *chunk, *victim = NULL;
	bool freed;

	spin_lock(&uvm_hmm_devmem_lock);
	list_for_each_entry(chunk, &dm->chunks, dm_node) {
		if (!chunk->nresv && !chunk->pins && !__uvm_hmm_chunk_maybe_shared(chunk)) {
			victim = chunk;
			victim->pins++;
			list_move_tail(&victim->dm_node, &dm->chunks);
			break;
		}
	}
	spin_unlock(&uvm_hmm_devmem_lock);
	if (!victim)
		return -ENOENT;
	uvm_hmm_chunk_evict(victim, false);
	spin_lock(&uvm_hmm_devmem_lock);
	freed = !victim->nbusy;		/* then unpinning frees it */
	spin_unlock(&uvm_hmm_devmem_lock);
	uvm_hmm_chunk_unpin(victim);
	return freed ? 0 : -EBUSY;
}

/**
 * uvm_hmm_devmem_evict_gpu() - give a full GPU's memory to another use
 * @gpu:	the GPU
 *
 * For the eviction of managed memory (uvm_evict_gpu()) when no managed
 * block gives vidmem back: the device pages of pageable memory return to
 * system memory, one chunk, as for a full GPU's own pageable migrations
 * (up to UVM_HMM_EVICT_TRIES chunks are tried).  The chunks of a process
 * whose mmap lock is held stay, the caller's own included when it holds
 * it (an mmap() of device memory).
 *
 * Context: process, no spinlock held; may sleep, never waits for an mmap
 * lock (a VA space lock may be held).
 * Return: true when a chunk's vidmem was freed.
 */
bool uvm_hmm_devmem_evict_gpu(struct uvm_gpu *gpu)
{
	struct uvm_hmm_devmem *dm = uvm_hmm_devmems[gpu->index];
	int ret = -ENOENT;
	u32 tries;

	if (!dm)
		return false;
	for (tries = 0; tries < UVM_HMM_EVICT_TRIES; tries++) {
		ret = uvm_hmm_devmem_evict_one(dm);
		if (ret != -EBUSY)
			break;
	}
	return !ret;
}

/**
 * uvm_hmm_chunk_alloc() - a new chunk of vidmem on a GPU
 * @dm:		the GPU's device memory
 *
 * When the GPU is full, evicts up to UVM_HMM_EVICT_TRIES chunks first.
 *
 * Context: process, no lock held; may sleep.
 * Return: the chunk, not yet on any list, or ERR_PTR(-ENOMEM).
 */
static struct uvm_hmm_chunk *uvm_hmm_chunk_alloc(struct uvm_hmm_devmem *dm)
{
	struct uvm_hmm_chunk *chunk;
	u32 tries;
	int ret;

	chunk = uvm_hmm_should_fail() ? NULL : kzalloc(sizeof(*chunk), GFP_KERNEL_ACCOUNT);
	if (!chunk)
		return ERR_PTR(-ENOMEM);
	for (tries = 0; ; tries++) {
		ret = uvm_hmm_should_fail() ? -ENOMEM :
		      uvm_pmm_alloc_chunk(dm->gpu, &chunk->addr);
		if (ret != -ENOMEM || tries == UVM_HMM_EVICT_TRIES ||
		    uvm_hmm_devmem_evict_one(dm) == -ENOENT)
			break;
	}
	if (ret) {
		kfree(chunk);
		return ERR_PTR(ret);
	}
	chunk->dm = dm;
	chunk->pfn_first = dm->pfn_first + (chunk->addr >> PAGE_SHIFT);
	INIT_LIST_HEAD(&chunk->owner_node);
	return chunk;
}

/**
 * __uvm_hmm_chunk_reserve() - reserve free pages of a chunk
 * @chunk:	the chunk; uvm_hmm_devmem_lock held
 * @mig:	the migration, gets the pages
 * @count:	pages wanted in all
 */
static void __uvm_hmm_chunk_reserve(struct uvm_hmm_chunk *chunk,
				    struct uvm_hmm_migrate_ctx *mig, u32 count)
{
	struct page *page;
	u32 idx = 0;

	lockdep_assert_held(&uvm_hmm_devmem_lock);

	while (mig->nresv < count && chunk->nbusy < UVM_HMM_CHUNK_PAGES) {
		idx = find_next_zero_bit(chunk->busy, UVM_HMM_CHUNK_PAGES, idx);
		__set_bit(idx, chunk->busy);
		chunk->nbusy++;
		chunk->nresv++;
		page = pfn_to_page(chunk->pfn_first + idx);
		page->zone_device_data = chunk;
		mig->resv[mig->nresv++] = page;
	}
}

/**
 * uvm_hmm_devmem_reserve() - reserve device pages for a migration
 * @mig:	the migration; its reservation must be empty
 * @va_space:	the VA space migrating: it owns new chunks
 * @gpu:	the destination GPU
 * @count:	pages wanted, at most UVM_PAGES_PER_BLOCK
 *
 * Uses free pages of the VA space's chunks on @gpu first, then allocates
 * chunks (evicting when the GPU is full).  Release what is left with
 * uvm_hmm_devmem_unreserve().
 *
 * Context: process, no lock held (eviction migrates pages); may sleep.
 * Return: pages reserved, possibly fewer than @count (0 when none).
 */
u32 uvm_hmm_devmem_reserve(struct uvm_hmm_migrate_ctx *mig,
			   struct uvm_va_space *va_space, struct uvm_gpu *gpu,
			   u32 count)
{
	struct uvm_hmm_devmem *dm = uvm_hmm_devmems[gpu->index];
	struct uvm_hmm_chunk *chunk;

	mig->nresv = 0;
	mig->ntaken = 0;
	if (!dm)
		return 0;
	while (mig->nresv < count) {
		spin_lock(&uvm_hmm_devmem_lock);
		list_for_each_entry(chunk, &va_space->hmm.chunks, owner_node)
			if (chunk->dm == dm && mig->nresv < count)
				__uvm_hmm_chunk_reserve(chunk, mig, count);
		spin_unlock(&uvm_hmm_devmem_lock);
		if (mig->nresv == count)
			break;
		chunk = uvm_hmm_chunk_alloc(dm);
		if (IS_ERR(chunk))
			break;
		spin_lock(&uvm_hmm_devmem_lock);
		chunk->owner = va_space;
		chunk->shares = atomic_read(&va_space->hmm.shares);
		list_add_tail(&chunk->dm_node, &dm->chunks);
		list_add(&chunk->owner_node, &va_space->hmm.chunks);
		spin_unlock(&uvm_hmm_devmem_lock);
	}
	return mig->nresv;
}

/**
 * uvm_hmm_devmem_unreserve() - release the pages a migration did not use
 * @mig:	the migration
 */
void uvm_hmm_devmem_unreserve(struct uvm_hmm_migrate_ctx *mig)
{
	struct uvm_hmm_chunk *chunk;
	struct page *page;
	bool free;
	u32 i;

	for (i = mig->ntaken; i < mig->nresv; i++) {
		page = mig->resv[i];
		chunk = page->zone_device_data;
		spin_lock(&uvm_hmm_devmem_lock);
		chunk->nresv--;
		free = __uvm_hmm_chunk_put_page(chunk, page_to_pfn(page) - chunk->pfn_first);
		spin_unlock(&uvm_hmm_devmem_lock);
		if (free)
			uvm_hmm_chunk_free(chunk);
	}
	mig->nresv = 0;
	mig->ntaken = 0;
}

/**
 * __uvm_hmm_list_first() - pin the first chunk of a list, rotate it to the end
 * @head:	a VA space's chunk list (@owner true) or a GPU's (false)
 * @owner:	which list member links the chunks
 * @count:	out: chunks on the list
 *
 * Return: the chunk, pinned, or NULL for an empty list.
 */
static struct uvm_hmm_chunk *__uvm_hmm_list_first(struct list_head *head,
						  bool owner, u32 *count)
{
	struct uvm_hmm_chunk *chunk;
	struct list_head *pos;

	lockdep_assert_held(&uvm_hmm_devmem_lock);

	*count = 0;
	list_for_each(pos, head)
		(*count)++;
	if (list_empty(head))
		return NULL;
	chunk = owner ? list_first_entry(head, struct uvm_hmm_chunk, owner_node) :
			list_first_entry(head, struct uvm_hmm_chunk, dm_node);
	chunk->pins++;
	list_move_tail(owner ? &chunk->owner_node : &chunk->dm_node, head);
	return chunk;
}

/**
 * uvm_hmm_evict_list() - evict the chunks of a list until it is empty
 * @head:	a VA space's chunk list (@owner true) or a GPU's (false)
 * @owner:	which list member links the chunks
 * @rounds:	rounds over the list before giving up; each round evicts
 *		every chunk once, and waits a little before the next
 * @force:	evict chunks whose pages may be mapped where no lock can be
 *		taken too (unload); else they stay, and a round where every
 *		chunk left is such ends the rounds at once
 *
 * Return: true when the list is empty.
 */
static bool uvm_hmm_evict_list(struct list_head *head, bool owner, u32 rounds, bool force)
{
	struct uvm_hmm_chunk *chunk;
	u32 round, n, left = 0;
	bool busy = true;

	for (round = 0; round <= rounds && busy; round++) {
		if (round)
			msleep(20);
		busy = false;
		for (n = 0; ; n++) {
			spin_lock(&uvm_hmm_devmem_lock);
			chunk = __uvm_hmm_list_first(head, owner, &left);
			if (chunk && n >= left) {
				chunk->pins--;	/* a whole round done */
				chunk = NULL;
			}
			spin_unlock(&uvm_hmm_devmem_lock);
			if (!chunk)
				break;
			busy |= uvm_hmm_chunk_evict(chunk, force) != -EPERM;
			uvm_hmm_chunk_unpin(chunk);
		}
		if (!left)
			return true;
	}
	return false;
}

/**
 * uvm_hmm_devmem_evict_va_space() - bring a VA space's pages back to RAM
 * @va_space:	the VA space being freed: nothing migrates for it any more
 *
 * Every device page the VA space ever allocated returns to system memory,
 * in whatever process maps it.  A page that stays busy for a second is left
 * to its chunk, disowned: the chunk goes back to uvm_pmm when the page is
 * freed, or is evicted at unload.
 *
 * Context: process, no lock held.
 */
void uvm_hmm_devmem_evict_va_space(struct uvm_va_space *va_space)
{
	struct uvm_hmm_chunk *chunk, *tmp;

	if (uvm_hmm_evict_list(&va_space->hmm.chunks, true, UVM_HMM_EVICT_ROUNDS, false))
		return;
	pr_warn_ratelimited("device pages still busy at release; they return to RAM at unload\n");
	spin_lock(&uvm_hmm_devmem_lock);
	list_for_each_entry_safe(chunk, tmp, &va_space->hmm.chunks, owner_node) {
		chunk->owner = NULL;
		list_del_init(&chunk->owner_node);
	}
	spin_unlock(&uvm_hmm_devmem_lock);
}

/* Module init and exit */

/**
 * uvm_hmm_devmem_add() - give a GPU's vidmem device-private struct pages
 * @gpu:	the GPU
 *
 * Return: 0 or -errno.
 */
static int uvm_hmm_devmem_add(struct uvm_gpu *gpu)
{
	u64 size = ALIGN(gpu->props.vidmem_size, 1ULL << SECTION_SIZE_BITS);
	struct uvm_hmm_devmem *dm;
	struct resource *res;
	void *addr;
	int ret;

	dm = kzalloc(sizeof(*dm), GFP_KERNEL);
	if (!dm)
		return -ENOMEM;
	res = request_free_mem_region(&iomem_resource, size, "uvm-vidmem");
	if (IS_ERR(res)) {
		ret = PTR_ERR(res);
		goto err_free_dm;
	}
	dm->gpu = gpu;
	dm->res = res;
	INIT_LIST_HEAD(&dm->chunks);
	dm->pgmap.type = MEMORY_DEVICE_PRIVATE;
	dm->pgmap.range.start = res->start;
	dm->pgmap.range.end = res->end;
	dm->pgmap.nr_range = 1;
	dm->pgmap.ops = &uvm_hmm_pgmap_ops;
	dm->pgmap.owner = uvm_hmm_devmem_owner();
	addr = memremap_pages(&dm->pgmap, numa_node_id());
	if (IS_ERR(addr)) {
		ret = PTR_ERR(addr);
		goto err_release_region;
	}
	dm->pfn_first = PHYS_PFN(res->start);
	uvm_hmm_devmems[gpu->index] = dm;
	return 0;

err_release_region:
	release_mem_region(res->start, resource_size(res));
err_free_dm:
	kfree(dm);
	return ret;
}

/**
 * uvm_hmm_devmem_remove() - evict every page of a GPU and drop its pagemap
 * @dm:		the GPU's device memory; no VA space exists any more
 *
 * memunmap_pages() waits for every device page to be free, so eviction is
 * repeated until the GPU has no chunk left (pages are only ever busy for
 * the time of a migration; device pages cannot be pinned).
 */
static void uvm_hmm_devmem_remove(struct uvm_hmm_devmem *dm)
{
	while (!uvm_hmm_evict_list(&dm->chunks, false, UVM_HMM_EVICT_ROUNDS, true))
		pr_warn("GPU %u: device pages still busy at unload, retrying\n",
			dm->gpu->index);
	memunmap_pages(&dm->pgmap);
	release_mem_region(dm->res->start, resource_size(dm->res));
	uvm_hmm_devmems[dm->gpu->index] = NULL;
	kfree(dm);
}

/**
 * uvm_hmm_devmem_init() - device-private pages for every GPU
 *
 * Context: module init, after the GPUs registered.  A GPU whose pages
 * cannot be set up keeps working with pageable memory mirrored only
 * (UVM_CAP_DEVICE_PRIVATE is then not reported).
 * Return: 0 when every GPU has device pages, else -errno of the first
 * failure (not fatal for the module).
 */
int uvm_hmm_devmem_init(void)
{
	int ret, first = 0;
	u32 i;

	for (i = 0; i < uvm_gpu_count; i++) {
		ret = uvm_hmm_devmem_add(uvm_gpus[i]);
		if (ret) {
			pr_warn("GPU %u: no device-private pages (%d): pageable memory is mirrored only\n",
				i, ret);
			first = first ?: ret;
		}
	}
	return first;
}

/**
 * uvm_hmm_devmem_exit() - evict and drop every GPU's device pages
 *
 * Context: module exit: no VA space left, fault servicing idle.
 */
void uvm_hmm_devmem_exit(void)
{
	u32 i;

	for (i = 0; i < UVM_MAX_GPUS; i++)
		if (uvm_hmm_devmems[i])
			uvm_hmm_devmem_remove(uvm_hmm_devmems[i]);
}

#endif /* UVM_HMM_MIGRATION */
