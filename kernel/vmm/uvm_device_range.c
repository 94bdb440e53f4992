// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Device memory: vidmem of one GPU in the unified address space.
 *
 * DOC: Device memory
 *
 * mmap(NULL, len, PROT_NONE, MAP_SHARED, fd, UVM_MMAP_DEVICE(g)) of
 * /dev/uvm allocates device memory of GPU g (cuMemAlloc): one 2 MiB vidmem
 * chunk for each 2 MiB region of address space the range touches, all
 * allocated and zero-filled by g's copy engine before mmap returns (managed
 * memory is evicted to make room), so an allocation that cannot be backed
 * fails at once with -ENOMEM and nothing leaks from an earlier user of the
 * memory.  The VMA only reserves the
 * addresses: the CPU cannot access device memory (SIGSEGV with PROT_NONE,
 * SIGBUS otherwise).
 *
 * Device memory never migrates and is never evicted.  A GPU access faults
 * once per 2 MiB region: the servicer maps the region's part of the range
 * in the faulting GPU's page table, to the local chunk or, from another GPU,
 * as peer memory, with the biggest PTEs that fit (a whole region is one
 * 2 MiB PTE; the edges of a range not 2 MiB aligned use 64 KiB and 4 KiB).
 * Only whole ranges can be unmapped (may_split refuses), so big PTEs are
 * never split: unmapping removes every GPU's PTEs, invalidates, then frees
 * the chunks.
 *
 * Locking: a device range is immutable between creation and destruction,
 * both under the VA space lock held for write; fault servicing reads it
 * under the lock held for read.  PTE writes of one GPU come from its single
 * fault servicing work item.
 */
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "uvm_ce.h"
#include "uvm_compat.h"
#include "uvm_device_range.h"
#include "uvm_evict.h"
#include "uvm_gpu.h"
#include "uvm_va_block.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

static const struct uvm_va_range_ops uvm_device_range_ops;

/* PTEs written per map() call while mapping a device range. */
#define UVM_DEVICE_MAP_BATCH	32

static inline u64 device_region(u64 va)
{
	return va >> UVM_VA_BLOCK_SHIFT;
}

/**
 * uvm_device_range_phys() - where a byte of device memory lives
 * @range:	a device range
 * @va:		an address inside it
 *
 * Return: its vidmem address on the owning GPU.
 */
struct uvm_gpu_address uvm_device_range_phys(struct uvm_va_range *range, u64 va)
{
	struct uvm_va_range_device *dev = &range->device;

	return (struct uvm_gpu_address){
		.addr = dev->chunks[device_region(va) - dev->first_block] +
			(va & (UVM_VA_BLOCK_SIZE - 1)),
		.aperture = UVM_APERTURE_VID,
		.gpu = dev->gpu->index,
	};
}

/**
 * uvm_device_range_free() - free a device range's memory
 * @va_space:	the VA space
 * @range:	the range, out of the tree
 *
 * Every GPU's PTEs of the range are removed and invalidated first.
 */
static void uvm_device_range_free(struct uvm_va_space *va_space,
				  struct uvm_va_range *range)
{
	struct uvm_va_range_device *dev = &range->device;
	u64 start = uvm_va_range_start(range);
	u64 size = uvm_va_range_end(range) - start;
	u64 i;

	for (i = 0; i < uvm_gpu_count; i++) {
		struct uvm_gpu_va_space *gvs = uvm_va_space_gpu_va_space(va_space,
									 uvm_gpus[i]);

		uvm_gpus[i]->ops->unmap(gvs, start, size >> PAGE_SHIFT);
		uvm_gpus[i]->ops->tlb_invalidate(gvs, start, size);
	}
	for (i = 0; i < dev->nchunks; i++) {
		if (dev->chunks[i] == U64_MAX)
			continue;
		uvm_pmm_free_chunk(dev->gpu, dev->chunks[i]);
		uvm_va_space_vidmem_add(va_space, dev->gpu->index, -(s64)UVM_VA_BLOCK_SIZE);
	}
	kvfree(dev->chunks);
}

/**
 * uvm_device_chunks_zero() - zero-fill vidmem chunks
 * @gpu:	the GPU owning them
 * @chunks:	their vidmem offsets
 * @n:		how many
 *
 * Return: 0 or -errno of the copy engine.
 */
int uvm_device_chunks_zero(struct uvm_gpu *gpu, const u64 *chunks, u64 n)
{
	struct uvm_ce_batch *b;
	u64 i;
	int ret = 0;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		struct uvm_ce_op op = {
			.type = UVM_CE_MEMSET,
			.size = UVM_VA_BLOCK_SIZE,
			.dst = {
				.addr = chunks[i],
				.aperture = UVM_APERTURE_VID,
				.gpu = gpu->index,
			},
		};

		ret = uvm_ce_batch_begin(b, gpu);
		if (!ret)
			uvm_ce_batch_push(b, &op);
	}
	if (!ret)
		ret = uvm_ce_batch_flush(b);
	else
		uvm_ce_batch_flush(b);
	kfree(b);
	return ret;
}

/**
 * uvm_device_chunk_alloc() - a chunk for fixed memory, evicting if full
 * @va_space:	the VA space whose lock the caller holds, or NULL (no VA
 *		space lock held: VMM allocations)
 * @gpu:	the GPU
 * @addr:	out: the chunk
 *
 * Device memory and VMM allocations use it.  Managed memory (of any VA
 * space) is evicted to make room; fixed memory never is.
 *
 * Return: 0 or -ENOMEM when nothing more can be evicted.
 */
int uvm_device_chunk_alloc(struct uvm_va_space *va_space, struct uvm_gpu *gpu,
			   u64 *addr)
{
	struct uvm_va_block_ctx *ctx = NULL;
	int ret;

	while ((ret = uvm_pmm_alloc_chunk(gpu, addr)) == -ENOMEM) {
		if (!ctx)
			ctx = uvm_va_block_ctx_alloc();
		if (!ctx || !uvm_evict_gpu(gpu, va_space, ctx, NULL))
			break;
	}
	uvm_va_block_ctx_free(ctx);
	return ret;
}

static void uvm_device_vma_close(struct vm_area_struct *vma)
{
	struct uvm_va_space *va_space = vma->vm_private_data;
	struct uvm_va_range *range;

	if (WARN_ON_ONCE(vma->vm_mm != va_space->mm))
		return;
	down_write(&va_space->lock);
	/*
	 * A refused mremap() closes the VMA copy it made at the new address,
	 * where there is no range: only the VMA of the range frees it.
	 */
	range = uvm_va_range_find(va_space, vma->vm_start);
	if (range && range->kind == UVM_RANGE_DEVICE &&
	    uvm_va_range_start(range) == vma->vm_start &&
	    uvm_va_range_end(range) == vma->vm_end)
		__uvm_va_range_destroy(va_space, range);
	up_write(&va_space->lock);
}

static int uvm_device_vma_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static int uvm_device_vma_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static vm_fault_t uvm_device_vma_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct uvm_device_vm_ops = {
	.close = uvm_device_vma_close,
	.may_split = uvm_device_vma_may_split,
	.mremap = uvm_device_vma_mremap,
	.fault = uvm_device_vma_fault,
};

/**
 * uvm_device_range_mmap() - allocate device memory for a new VMA
 * @va_space:	the VA space; its lock held for write
 * @vma:	the VMA (MAP_SHARED, not executable)
 * @gpu_index:	the owning GPU
 *
 * Context: mmap_lock held for write.
 * Return: 0, -ENODEV for a bad GPU, -ENOMEM when vidmem or memory is short.
 */
int uvm_device_range_mmap(struct uvm_va_space *va_space,
			  struct vm_area_struct *vma, u32 gpu_index)
{
	struct uvm_gpu *gpu = uvm_gpu_get(gpu_index);
	struct uvm_va_range_device *dev;
	struct uvm_va_range *range;
	u64 i;
	int ret;

	lockdep_assert_held_write(&va_space->lock);

	if (!gpu)
		return -ENODEV;
	range = uvm_va_range_alloc(UVM_RANGE_DEVICE, &uvm_device_range_ops,
				   vma->vm_start, vma->vm_end,
				   GFP_KERNEL_ACCOUNT);
	if (!range)
		return -ENOMEM;
	dev = &range->device;
	dev->gpu = gpu;
	dev->first_block = device_region(vma->vm_start);
	dev->nchunks = device_region(vma->vm_end - 1) - dev->first_block + 1;
	dev->chunks = kvmalloc_array(dev->nchunks, sizeof(*dev->chunks),
				     GFP_KERNEL_ACCOUNT);
	if (!dev->chunks) {
		kfree(range);
		return -ENOMEM;
	}
	memset(dev->chunks, 0xff, dev->nchunks * sizeof(*dev->chunks));

	for (i = 0; i < dev->nchunks; i++) {
		ret = uvm_device_chunk_alloc(va_space, gpu, &dev->chunks[i]);
		if (ret)
			goto err_free;
		uvm_va_space_vidmem_add(va_space, gpu->index, UVM_VA_BLOCK_SIZE);
	}
	ret = uvm_device_chunks_zero(gpu, dev->chunks, dev->nchunks);
	if (ret)
		goto err_free;

	vma->vm_pgoff = vma->vm_start >> PAGE_SHIFT;
	uvm_vm_flags_set(vma, UVM_VMA_FLAGS);
	uvm_vm_flags_clear(vma, VM_MAYEXEC);
	vma->vm_private_data = va_space;
	vma->vm_ops = &uvm_device_vm_ops;
	__uvm_va_range_insert(va_space, range);
	return 0;

err_free:
	uvm_device_range_free(va_space, range);
	kfree(range);
	return ret;
}

/**
 * device_pte_size() - the biggest PTE that can map device memory at @addr
 * @gpu:	the GPU writing the PTE
 * @addr:	page-aligned address in a device range
 * @end:	end of the part of the range being mapped (within @addr's 2 MiB
 *		region)
 *
 * A region's chunk is contiguous and 2 MiB aligned, with the byte at @va at
 * chunk + (@va & (2 MiB - 1)): any naturally aligned run inside the range
 * is physically contiguous and aligned alike.  The range is only ever
 * unmapped whole, so big PTEs never need splitting.
 *
 * Return: SZ_2M, SZ_64K or PAGE_SIZE.
 */
static u32 device_pte_size(struct uvm_gpu *gpu, u64 addr, u64 end)
{
	static const u32 sizes[] = { SZ_2M, SZ_64K };
	u32 i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		if ((gpu->props.page_sizes & sizes[i]) &&
		    IS_ALIGNED(addr, sizes[i]) && end - addr >= sizes[i])
			return sizes[i];
	return PAGE_SIZE;
}

/**
 * uvm_device_range_map() - map the 2 MiB region of a fault on a GPU
 * @va_space:	the VA space; its lock held for read
 * @range:	a device range
 * @gpu:	the faulting GPU (the owner, or a peer)
 * @va:		the faulting address
 *
 * Return: 0 or -errno of the page-table update.
 */
static int uvm_device_range_map(struct uvm_va_space *va_space, struct uvm_va_range *range,
				struct uvm_gpu *gpu, u64 va)
{
	struct uvm_gpu_va_space *gvs = uvm_va_space_gpu_va_space(va_space, gpu);
	struct uvm_gpu_address ptes[UVM_DEVICE_MAP_BATCH];
	u64 first = max(round_down(va, UVM_VA_BLOCK_SIZE), uvm_va_range_start(range));
	u64 end = min(round_down(va, UVM_VA_BLOCK_SIZE) + UVM_VA_BLOCK_SIZE,
		      uvm_va_range_end(range));
	u64 addr;
	u32 n, size;
	int ret;

	for (addr = first; addr < end; addr += (u64)n * size) {
		size = device_pte_size(gpu, addr, end);
		for (n = 0; n < UVM_DEVICE_MAP_BATCH && addr + (u64)n * size < end &&
		     device_pte_size(gpu, addr + (u64)n * size, end) == size; n++)
			ptes[n] = uvm_device_range_phys(range, addr + (u64)n * size);
		ret = gpu->ops->map(gvs, addr, ptes, n, size,
				    UVM_PROT_READ_WRITE_ATOMIC);
		if (ret)
			return ret;
		if (size == SZ_2M)
			uvm_gpu_count_event(gpu, UVM_GPU_MAPS_2M, n);
		else if (size == SZ_64K)
			uvm_gpu_count_event(gpu, UVM_GPU_MAPS_64K, n);
	}
	uvm_va_space_count(va_space, UVM_COUNTER_GPU_PAGES_MAPPED,
			   (end - first) >> PAGE_SHIFT);
	return 0;
}

static int uvm_device_range_service_fault(struct uvm_va_space *va_space,
					  struct uvm_va_range *range, struct uvm_gpu *gpu,
					  u64 va, enum uvm_fault_access access)
{
	return uvm_device_range_map(va_space, range, gpu, va);
}

static int uvm_device_range_pointer_info(struct uvm_va_range *range,
					 struct uvm_ioc_pointer_info *args)
{
	args->flags = UVM_POINTER_DEVICE;
	args->gpu_index = range->device.gpu->index;
	return 0;
}

static const struct uvm_va_range_ops uvm_device_range_ops = {
	.free = uvm_device_range_free,
	.service_fault = uvm_device_range_service_fault,
	.pointer_info = uvm_device_range_pointer_info,
};
