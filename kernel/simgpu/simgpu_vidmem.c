// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * simgpu_vidmem.c - video memory of the simulated GPU, and physical lookups.
 *
 * DOC: simulated vidmem
 *
 * Each GPU has ``vidmem_mb`` MiB of vidmem: offsets [0, size) handed out in
 * 2 MiB chunks (several contiguous chunks for larger sizes) by a bitmap
 * allocator.  Vidmem is backed by order-0 host pages.  The pages of a chunk
 * are allocated (zeroed) the first time the chunk is allocated and kept until
 * unload, so vidmem_alloc() may sleep and reclaim on first use of a chunk and
 * never afterwards; with ``vidmem_prealloc=1`` every chunk is backed at load
 * and vidmem_alloc() never allocates.  Backing pages are not zeroed again on
 * reuse: like a real GPU, the driver zeroes what it hands to a new owner.
 *
 * Address lookup is O(1): chunk table, then the page array of the chunk.
 *
 * System memory has no IOMMU in front of it: the DMA address of a page is its
 * physical address, and a SYS aperture address turns back into its page with
 * pfn_to_page().
 *
 * Invariants: a chunk's &simgpu_chunk and its pages exist whenever the chunk
 * is allocated; an address the core maps or copies to is checked against
 * them, so an access never reaches a missing page.
 *
 * Locking: &simgpu_vidmem.lock (a spinlock, leaf) protects the allocation
 * bitmap and the count of used chunks; it is never held while allocating
 * backing pages.  The backing of chunk c is written only by the thread that
 * holds chunk c allocated and is read locklessly afterwards.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "simgpu_internal.h"

/**
 * simgpu_chunk_populate() - make sure every page of a chunk is backed
 * @vm: the vidmem
 * @c: chunk index, owned by the caller (allocated, or at init)
 *
 * Pages already allocated by an earlier, partially failed call are kept.
 *
 * Context: process, may sleep.
 * Return: 0 or -ENOMEM.
 */
static int simgpu_chunk_populate(struct simgpu_vidmem *vm, u32 c)
{
	struct simgpu_chunk *chunk = vm->chunks[c];
	struct page *page;
	u32 i;

	if (!chunk) {
		chunk = kzalloc(sizeof(*chunk), GFP_KERNEL);
		if (!chunk)
			return -ENOMEM;
		WRITE_ONCE(vm->chunks[c], chunk);
	}
	for (i = 0; i < SIMGPU_CHUNK_PAGES; i++) {
		if (chunk->pages[i])
			continue;
		page = alloc_page(GFP_HIGHUSER | __GFP_ZERO | __GFP_NOWARN);
		if (!page)
			return -ENOMEM;
		chunk->pages[i] = page;
		atomic64_inc(&vm->backed_pages);
	}
	return 0;
}

/**
 * simgpu_vidmem_free_backing() - free every backing page and chunk
 * @vm: the vidmem, unused by anyone
 *
 * Context: process.
 */
static void simgpu_vidmem_free_backing(struct simgpu_vidmem *vm)
{
	struct simgpu_chunk *chunk;
	u32 c, i;

	for (c = 0; c < vm->nr_chunks; c++) {
		chunk = vm->chunks[c];
		if (!chunk)
			continue;
		for (i = 0; i < SIMGPU_CHUNK_PAGES; i++)
			if (chunk->pages[i])
				__free_page(chunk->pages[i]);
		kfree(chunk);
		vm->chunks[c] = NULL;
	}
	atomic64_set(&vm->backed_pages, 0);
}

/**
 * simgpu_vidmem_init() - set up the vidmem of a GPU
 * @sg: the GPU
 * @size: bytes, a non-zero multiple of %SIMGPU_CHUNK_SIZE
 * @prealloc: back every chunk now
 *
 * Context: process, may sleep.
 * Return: 0 or -ENOMEM; nothing is left allocated on failure.
 */
int simgpu_vidmem_init(struct simgpu *sg, u64 size, bool prealloc)
{
	struct simgpu_vidmem *vm = &sg->vidmem;
	int ret = -ENOMEM;
	u32 c;

	vm->size = size;
	vm->nr_chunks = size >> SIMGPU_CHUNK_SHIFT;
	spin_lock_init(&vm->lock);
	atomic64_set(&vm->backed_pages, 0);
	vm->used_map = bitmap_zalloc(vm->nr_chunks, GFP_KERNEL);
	if (!vm->used_map)
		return -ENOMEM;
	vm->chunks = kvcalloc(vm->nr_chunks, sizeof(*vm->chunks), GFP_KERNEL);
	if (!vm->chunks)
		goto err_free_map;

	for (c = 0; prealloc && c < vm->nr_chunks; c++) {
		ret = simgpu_chunk_populate(vm, c);
		if (ret)
			goto err_free_backing;
		cond_resched();
	}
	return 0;

err_free_backing:
	simgpu_vidmem_free_backing(vm);
	kvfree(vm->chunks);
err_free_map:
	bitmap_free(vm->used_map);
	return ret;
}

/**
 * simgpu_vidmem_fini() - free the vidmem of a GPU and its backing
 * @sg: the GPU, idle
 *
 * Context: process.
 */
void simgpu_vidmem_fini(struct simgpu *sg)
{
	struct simgpu_vidmem *vm = &sg->vidmem;

	WARN(vm->used, SIMGPU_PREFIX "GPU %u: %u vidmem chunk(s) still allocated at teardown\n",
	     sg->id, vm->used);
	simgpu_vidmem_free_backing(vm);
	kvfree(vm->chunks);
	bitmap_free(vm->used_map);
}

/**
 * simgpu_vidmem_range() - check a vidmem range from the core
 * @vm: the vidmem
 * @addr: offset, must be chunk aligned
 * @size: bytes, a non-zero multiple of the chunk size
 * @first: set to the first chunk index
 * @count: set to the number of chunks
 *
 * Context: any.
 * Return: true when the range is well formed and inside the vidmem.
 */
static bool simgpu_vidmem_range(struct simgpu_vidmem *vm, u64 addr, u64 size,
				u32 *first, u32 *count)
{
	if (!size || (size | addr) & (SIMGPU_CHUNK_SIZE - 1) ||
	    size > vm->size || addr > vm->size - size)
		return false;
	*first = addr >> SIMGPU_CHUNK_SHIFT;
	*count = size >> SIMGPU_CHUNK_SHIFT;
	return true;
}

/**
 * simgpu_vidmem_release() - return chunks to the allocator
 * @vm: the vidmem
 * @first: first chunk
 * @count: number of chunks, all allocated
 *
 * Context: any; takes &simgpu_vidmem.lock.
 */
static void simgpu_vidmem_release(struct simgpu_vidmem *vm, u32 first,
				  u32 count)
{
	spin_lock(&vm->lock);
	bitmap_clear(vm->used_map, first, count);
	vm->used -= count;
	spin_unlock(&vm->lock);
}

/**
 * simgpu_vidmem_alloc() - &uvm_gpu_ops.vidmem_alloc
 * @gpu: the GPU
 * @size: bytes, a non-zero multiple of 2 MiB (contiguous chunks)
 * @addr: set to the vidmem offset of the allocation
 *
 * The lowest free range is taken (first fit), so a freshly loaded GPU hands
 * out addresses deterministically.
 *
 * Context: process.  May sleep and reclaim the first time a chunk is used
 * (unless ``vidmem_prealloc``); takes &simgpu_vidmem.lock.
 * Return: 0, -EINVAL for a malformed size, -ENOMEM when vidmem is exhausted
 * or its backing cannot be allocated.
 */
int simgpu_vidmem_alloc(struct uvm_gpu *gpu, u64 size, u64 *addr)
{
	struct simgpu_vidmem *vm = &((struct simgpu *)uvm_gpu_hw(gpu))->vidmem;
	unsigned long first;
	u32 count, c;
	int ret;

	if (!simgpu_vidmem_range(vm, 0, size, &c, &count))
		return -EINVAL;

	spin_lock(&vm->lock);
	first = bitmap_find_next_zero_area(vm->used_map, vm->nr_chunks, 0,
					   count, 0);
	if (first >= vm->nr_chunks) {
		spin_unlock(&vm->lock);
		return -ENOMEM;
	}
	bitmap_set(vm->used_map, first, count);
	vm->used += count;
	spin_unlock(&vm->lock);

	for (c = first; c < first + count; c++) {
		ret = simgpu_chunk_populate(vm, c);
		if (ret) {
			simgpu_vidmem_release(vm, first, count);
			return ret;
		}
	}
	*addr = (u64)first << SIMGPU_CHUNK_SHIFT;
	return 0;
}

/**
 * simgpu_vidmem_free() - &uvm_gpu_ops.vidmem_free
 * @gpu: the GPU
 * @addr: offset returned by simgpu_vidmem_alloc()
 * @size: the size it was allocated with
 *
 * The backing pages stay allocated for the next user of the chunks.
 *
 * Context: any; takes &simgpu_vidmem.lock.
 */
void simgpu_vidmem_free(struct uvm_gpu *gpu, u64 addr, u64 size)
{
	struct simgpu_vidmem *vm = &((struct simgpu *)uvm_gpu_hw(gpu))->vidmem;
	u32 first, count;

	if (WARN_ON(!simgpu_vidmem_range(vm, addr, size, &first, &count)))
		return;

	spin_lock(&vm->lock);
	if (WARN(find_next_zero_bit(vm->used_map, first + count, first) <
		 first + count,
		 SIMGPU_PREFIX "freeing unallocated vidmem %#llx+%#llx\n",
		 addr, size)) {
		spin_unlock(&vm->lock);
		return;
	}
	bitmap_clear(vm->used_map, first, count);
	vm->used -= count;
	spin_unlock(&vm->lock);
}

/**
 * simgpu_sysmem_map() - &uvm_gpu_ops.sysmem_map
 * @gpu: the GPU
 * @page: system page
 * @dma: set to the address the GPU uses for @page
 *
 * The simulated GPU has no IOMMU: the DMA address is the physical address.
 *
 * Context: any.
 * Return: 0.
 */
int simgpu_sysmem_map(struct uvm_gpu *gpu, struct page *page, u64 *dma)
{
	*dma = page_to_phys(page);
	return 0;
}

/**
 * simgpu_sysmem_unmap() - &uvm_gpu_ops.sysmem_unmap, nothing to undo
 * @gpu: the GPU
 * @dma: address from simgpu_sysmem_map()
 *
 * Context: any.
 */
void simgpu_sysmem_unmap(struct uvm_gpu *gpu, u64 dma)
{
}

/**
 * simgpu_phys_page() - the host page behind a GPU physical address
 * @aperture: enum uvm_aperture
 * @gpu: for VID, the core index of the GPU owning the vidmem
 * @addr: DMA address (SYS) or vidmem offset (VID)
 *
 * Context: any; lockless.
 * Return: the page holding byte @addr, or NULL when the address names no
 * GPU, lies outside vidmem, in a chunk never allocated, or at no valid pfn.
 */
struct page *simgpu_phys_page(u16 aperture, u16 gpu, u64 addr)
{
	struct simgpu_chunk *chunk;
	unsigned long pfn;
	struct simgpu *sg;

	if (aperture == UVM_APERTURE_SYS) {
		pfn = PHYS_PFN(addr);
		return pfn_valid(pfn) ? pfn_to_page(pfn) : NULL;
	}
	if (aperture != UVM_APERTURE_VID)
		return NULL;
	sg = simgpu_get(gpu);
	if (!sg || addr >= sg->vidmem.size)
		return NULL;
	chunk = READ_ONCE(sg->vidmem.chunks[addr >> SIMGPU_CHUNK_SHIFT]);
	if (!chunk)
		return NULL;
	return chunk->pages[(addr >> PAGE_SHIFT) & (SIMGPU_CHUNK_PAGES - 1)];
}

/**
 * simgpu_phys_valid() - may the core point a PTE or a copy at an address?
 * @aperture: enum uvm_aperture
 * @gpu: for VID, the core index of the GPU owning the vidmem
 * @addr: DMA address (SYS) or vidmem offset (VID)
 *
 * For VID the chunk must be allocated now (a racy but sufficient check of a
 * core invariant).
 *
 * Context: any; lockless.
 * Return: true when the byte at @addr is backed by a page.
 */
bool simgpu_phys_valid(u16 aperture, u16 gpu, u64 addr)
{
	struct simgpu *sg;

	if (!simgpu_phys_page(aperture, gpu, addr))
		return false;
	if (aperture == UVM_APERTURE_SYS)
		return true;
	sg = simgpu_get(gpu);
	return test_bit(addr >> SIMGPU_CHUNK_SHIFT, sg->vidmem.used_map);
}
