// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Address reservations, mappings of VMM allocations, and access per
 * processor (cuMemAddressReserve, cuMemMap, cuMemSetAccess).
 *
 * DOC: VMM reservations and mappings
 *
 * mmap(hint, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, UVM_MMAP_RESERVE)
 * of /dev/uvm reserves address space: a range of kind UVM_RANGE_VMM whose
 * VMA nothing else can take.  Only the whole reservation can be unmapped
 * (may_split and mremap refuse); that frees every mapping still in it.
 *
 * UVM_IOC_MEM_MAP binds [address, address + size) of a reservation to
 * [offset, offset + size) of an allocation (uvm_mem.c), all multiples of
 * UVM_MEM_GRANULARITY (2 MiB).  A &struct uvm_vmm_mapping holds a reference
 * on the allocation and remembers the handle used, and keeps, per 2 MiB
 * granule, which processors may read and write it; all start with none.  An
 * allocation may be mapped any number of times, in one or several
 * reservations and processes (aliasing); a reservation holds any number of
 * mappings that do not overlap.
 *
 * UVM_IOC_MEM_SET_ACCESS changes the access of the processors it names over
 * a wholly mapped span (granule by granule, across mappings), validated
 * before anything changes.  The access masks are the truth; GPU PTEs follow
 * them: the ioctl writes the PTEs of every GPU whose right changed (one
 * 2 MiB PTE per granule of vidmem where the GPU has 2 MiB PTEs, 4 KiB PTEs
 * for host pages; another GPU's vidmem is mapped as peer memory), removes
 * those of GPUs left with none, and invalidates their TLBs before
 * returning, so a lowered right is in force on return.  Should a PTE write
 * fail (page-table memory), the granule is left unmapped for that GPU and
 * its next access faults: the fault servicer maps what the masks allow, and
 * cancels an access beyond them as a fatal fault.  The CPU is a processor
 * too, for host-located allocations: its PTEs are inserted by the VMA's
 * fault handler within what the masks allow (any other touch is SIGSEGV,
 * as with NVIDIA's driver) and zapped when the CPU's right changes.
 *
 * UVM_IOC_MEM_UNMAP removes whole mappings (a span may hold several, and
 * holes): every GPU that may hold PTEs loses them, with a TLB invalidate
 * that waits for accesses in flight; the CPU's PTEs are zapped; only then
 * is the allocation's reference dropped.  Copies (uvm_copy.c) resolve a
 * VMM side to the allocation's memory window by window under the VA space
 * lock, so an unmap waits for them.
 *
 * Locking: a reservation's mapping tree and the access masks change under
 * the VA space lock held for write (mmap, close, the MEM_* ioctls); fault
 * servicing, CPU faults, copies and queries read them under it held for
 * read.  @gpus_mapped of a mapping is set atomically by fault servicing.
 */
#include <linux/interval_tree.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "uvm_compat.h"
#include "uvm_gpu.h"
#include "uvm_mem.h"
#include "uvm_vmm.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

static const struct uvm_va_range_ops uvm_vmm_range_ops;

/* PTEs written per map() call. */
#define UVM_VMM_MAP_BATCH	32

/* Mappings of one VA space, a bound on what userspace can make us hold. */
#define UVM_VMM_MAX_MAPPINGS	BIT(20)

#define UVM_VMM_CPU		UVM_PROCESSOR_MASK(UVM_PROCESSOR_CPU)

/**
 * struct uvm_vmm_access - who may access one granule
 * @read:	processor mask (UVM_PROCESSOR_MASK) of readers
 * @write:	processor mask of writers (always a subset of @read)
 */
struct uvm_vmm_access {
	u64 read;
	u64 write;
};

/**
 * struct uvm_vmm_mapping - one MEM_MAP in a reservation
 * @node:	in the reservation's tree: first and last byte
 * @mem:	the allocation; the mapping holds a reference
 * @offset:	of the mapping's first byte in @mem
 * @handle:	the handle the mapping was made with (MEM_QUERY)
 * @buffer_id:	unique id (POINTER_INFO), taken as the mapping is inserted
 *		(VA space lock held for write): a mapping with an id above
 *		uvm_va_range_last_buffer_id() read earlier was made since
 * @gpus_mapped: GPU indices that may hold PTEs of the mapping (set_bit)
 * @dead:	on the list of unmapped mappings freed after the VA space lock
 *		is dropped (vmm_mapping_destroy())
 * @access:	per 2 MiB granule
 */
struct uvm_vmm_mapping {
	struct interval_tree_node node;
	struct list_head dead;
	struct uvm_mem *mem;
	u64 offset;
	u64 handle;
	u64 buffer_id;
	unsigned long gpus_mapped;
	struct uvm_vmm_access access[];
};

static inline u64 vmm_map_start(const struct uvm_vmm_mapping *map)
{
	return map->node.start;
}

static inline u64 vmm_map_end(const struct uvm_vmm_mapping *map)
{
	return map->node.last + 1;
}

static inline u64 vmm_granule(const struct uvm_vmm_mapping *map, u64 va)
{
	return (va - vmm_map_start(map)) / UVM_MEM_GRANULARITY;
}

static inline struct uvm_vmm_mapping *to_vmm_mapping(struct interval_tree_node *node)
{
	return container_of(node, struct uvm_vmm_mapping, node);
}

/* The GPU permission a granule's masks give processor @proc. */
static enum uvm_prot vmm_prot(const struct uvm_vmm_access *acc, u32 proc)
{
	if (acc->write & UVM_PROCESSOR_MASK(proc))
		return UVM_PROT_READ_WRITE_ATOMIC;
	if (acc->read & UVM_PROCESSOR_MASK(proc))
		return UVM_PROT_READ_ONLY;
	return UVM_PROT_NONE;
}

/**
 * uvm_vmm_mapping_find() - the mapping holding an address of a reservation
 * @range:	a reservation
 * @va:		the address
 *
 * Return: the mapping, or NULL where nothing is mapped.
 */
struct uvm_vmm_mapping *uvm_vmm_mapping_find(struct uvm_va_range *range, u64 va)
{
	struct interval_tree_node *node;

	node = interval_tree_iter_first(&range->vmm.mappings, va, va);
	return node ? to_vmm_mapping(node) : NULL;
}

/**
 * uvm_vmm_mapping_buffer_id() - the buffer id of a mapping
 * @map:	the mapping
 *
 * Return: its id, taken when it was inserted.
 */
u64 uvm_vmm_mapping_buffer_id(const struct uvm_vmm_mapping *map)
{
	return map->buffer_id;
}

/**
 * vmm_range_get() - the reservation holding a whole span
 * @va_space:	the VA space; its lock held
 * @start:	first byte
 * @end:	last byte + 1, above @start
 *
 * Return: the reservation, or NULL.
 */
static struct uvm_va_range *vmm_range_get(struct uvm_va_space *va_space,
					  u64 start, u64 end)
{
	struct uvm_va_range *range = uvm_va_range_find(va_space, start);

	if (!range || range->kind != UVM_RANGE_VMM || uvm_va_range_end(range) < end)
		return NULL;
	return range;
}

/**
 * uvm_vmm_check_span() - is every byte of a span mapped?
 * @range:	a reservation
 * @start:	first byte
 * @end:	last byte + 1, inside @range
 * @gpu:	NULL, or a GPU that must have the right (@write: to write,
 *		else to read) on the whole span
 * @write:	see @gpu
 *
 * Return: 0, -EINVAL for a hole, -EPERM for a missing right.
 */
int uvm_vmm_check_span(struct uvm_va_range *range, u64 start, u64 end,
		       struct uvm_gpu *gpu, bool write)
{
	struct interval_tree_node *node;
	u64 pos = start;

	for (node = interval_tree_iter_first(&range->vmm.mappings, start, end - 1);
	     node; node = interval_tree_iter_next(node, start, end - 1)) {
		struct uvm_vmm_mapping *map = to_vmm_mapping(node);
		u64 g, last;

		if (node->start > pos)
			return -EINVAL;
		if (gpu) {
			last = vmm_granule(map, min(end, vmm_map_end(map)) - 1);
			for (g = vmm_granule(map, pos); g <= last; g++)
				if (vmm_prot(&map->access[g], UVM_PROCESSOR_GPU(gpu->index)) <
				    (write ? UVM_PROT_READ_WRITE_ATOMIC : UVM_PROT_READ_ONLY))
					return -EPERM;
		}
		pos = node->last + 1;
		if (pos >= end)
			return 0;
	}
	return -EINVAL;
}

/**
 * uvm_vmm_pointer_info() - POINTER_INFO of an address in a reservation
 * @range:	the reservation; the VA space lock held
 * @args:	in: the address; out: the mapping's start, size and buffer id,
 *		UVM_POINTER_VMM, the GPU holding the memory
 *
 * Return: 0, or -ENOENT where nothing is mapped.
 */
static int uvm_vmm_pointer_info(struct uvm_va_range *range,
				struct uvm_ioc_pointer_info *args)
{
	struct uvm_vmm_mapping *map = uvm_vmm_mapping_find(range, args->address);

	if (!map)
		return -ENOENT;
	args->start = vmm_map_start(map);
	args->size = vmm_map_end(map) - args->start;
	args->buffer_id = map->buffer_id;
	args->flags = UVM_POINTER_VMM;
	args->gpu_index = uvm_mem_is_host(map->mem) ? 0 : map->mem->gpu->index;
	return 0;
}

/**
 * uvm_vmm_copy_addr() - the copy engine's address of a page of a mapping
 * @map:	the mapping
 * @va:		a page-aligned address inside it
 * @gpu:	the GPU whose engine copies
 * @addr:	out
 *
 * Return: 0.
 */
int uvm_vmm_copy_addr(struct uvm_vmm_mapping *map, u64 va, struct uvm_gpu *gpu,
		      struct uvm_gpu_address *addr)
{
	return uvm_mem_phys(map->mem, map->offset + (va - vmm_map_start(map)), gpu,
			    addr);
}

/**
 * vmm_pte_size() - the PTE size that maps a granule of an allocation
 * @gpu:	the GPU
 * @mem:	the allocation
 *
 * A granule of vidmem is one 2 MiB-aligned chunk: any size the GPU has fits.
 * Host pages are mapped one by one.
 *
 * Return: SZ_2M, SZ_64K or PAGE_SIZE.
 */
static u32 vmm_pte_size(struct uvm_gpu *gpu, struct uvm_mem *mem)
{
	if (uvm_mem_is_host(mem))
		return PAGE_SIZE;
	if (gpu->props.page_sizes & SZ_2M)
		return SZ_2M;
	if (gpu->props.page_sizes & SZ_64K)
		return SZ_64K;
	return PAGE_SIZE;
}

static void vmm_gpu_unmap_granule(struct uvm_va_space *va_space,
				  struct uvm_vmm_mapping *map, u64 g,
				  struct uvm_gpu *gpu)
{
	gpu->ops->unmap(uvm_va_space_gpu_va_space(va_space, gpu),
			vmm_map_start(map) + g * UVM_MEM_GRANULARITY,
			UVM_MEM_GRANULARITY >> PAGE_SHIFT);
	uvm_va_space_count(va_space, UVM_COUNTER_GPU_PAGES_UNMAPPED,
			   UVM_MEM_GRANULARITY >> PAGE_SHIFT);
}

/**
 * vmm_gpu_map_granule() - write a GPU's PTEs for one granule
 * @va_space:	the VA space; its lock held
 * @map:	the mapping
 * @g:		the granule
 * @gpu:	the GPU
 * @prot:	the permission, not UVM_PROT_NONE
 *
 * On failure the granule is left unmapped on @gpu.
 *
 * Return: 0 or -errno of the page-table update.
 */
static int vmm_gpu_map_granule(struct uvm_va_space *va_space,
			       struct uvm_vmm_mapping *map, u64 g,
			       struct uvm_gpu *gpu, enum uvm_prot prot)
{
	struct uvm_gpu_va_space *gvs = uvm_va_space_gpu_va_space(va_space, gpu);
	struct uvm_gpu_address ptes[UVM_VMM_MAP_BATCH];
	u32 size = vmm_pte_size(gpu, map->mem);
	u64 va = vmm_map_start(map) + g * UVM_MEM_GRANULARITY;
	u64 off = map->offset + g * UVM_MEM_GRANULARITY;
	u64 done, total = UVM_MEM_GRANULARITY / size;
	u32 i, n;
	int ret;

	set_bit(gpu->index, &map->gpus_mapped);
	for (done = 0; done < total; done += n) {
		n = min_t(u64, total - done, UVM_VMM_MAP_BATCH);
		for (i = 0; i < n; i++)
			uvm_mem_phys(map->mem, off + (done + i) * size, gpu, &ptes[i]);
		ret = gpu->ops->map(gvs, va + done * size, ptes, n, size, prot);
		if (ret) {
			vmm_gpu_unmap_granule(va_space, map, g, gpu);
			return ret;
		}
	}
	if (size == SZ_2M)
		uvm_gpu_count_event(gpu, UVM_GPU_MAPS_2M, 1);
	else if (size == SZ_64K)
		uvm_gpu_count_event(gpu, UVM_GPU_MAPS_64K, total);
	uvm_va_space_count(va_space, UVM_COUNTER_GPU_PAGES_MAPPED,
			   UVM_MEM_GRANULARITY >> PAGE_SHIFT);
	return 0;
}

/**
 * vmm_cpu_zap() - remove the CPU's PTEs of a span
 * @va_space:	the VA space
 * @start:	first byte
 * @size:	bytes
 */
static void vmm_cpu_zap(struct uvm_va_space *va_space, u64 start, u64 size)
{
	/* File offsets are virtual addresses in our VMAs. */
	unmap_mapping_range(&va_space->mapping, start, size, 1);
	uvm_va_space_count(va_space, UVM_COUNTER_CPU_PAGES_UNMAPPED, size >> PAGE_SHIFT);
}

/**
 * vmm_mapping_free() - drop a mapping's reference on its allocation, free it
 * @map:	the mapping, unreachable
 *
 * The last reference frees the allocation: gigabytes of pages perhaps.
 */
static void vmm_mapping_free(struct uvm_vmm_mapping *map)
{
	uvm_mem_put(map->mem);
	kvfree(map);
}

/**
 * vmm_mapping_destroy() - revoke every access to a mapping and free it
 * @va_space:	the VA space; its lock held for write
 * @range:	the reservation
 * @map:	the mapping, in @range's tree
 * @dead:	NULL to free the mapping now, or a list to put it on, for
 *		vmm_mapping_free() once the VA space lock is dropped
 */
static void vmm_mapping_destroy(struct uvm_va_space *va_space,
				struct uvm_va_range *range,
				struct uvm_vmm_mapping *map, struct list_head *dead)
{
	u64 start = vmm_map_start(map), size = vmm_map_end(map) - start;
	u64 g, n = size / UVM_MEM_GRANULARITY;
	u32 i;

	lockdep_assert_held_write(&va_space->lock);
	interval_tree_remove(&map->node, &range->vmm.mappings);
	range->vmm.nr_mappings--;
	for (i = 0; i < uvm_gpu_count; i++) {
		struct uvm_gpu *gpu = uvm_gpus[i];

		if (!test_bit(i, &map->gpus_mapped))
			continue;
		/* an allocation of terabytes mapped: millions of granules */
		for (g = 0; g < n; g++) {
			vmm_gpu_unmap_granule(va_space, map, g, gpu);
			cond_resched();
		}
		gpu->ops->tlb_invalidate(uvm_va_space_gpu_va_space(va_space, gpu),
					 start, size);
	}
	if (uvm_mem_is_host(map->mem))
		vmm_cpu_zap(va_space, start, size);
	va_space->nr_vmm_mappings--;
	if (dead)
		list_add_tail(&map->dead, dead);
	else
		vmm_mapping_free(map);
}

/**
 * uvm_vmm_range_free() - free what a reservation still maps
 * @va_space:	the VA space; its lock held for write
 * @range:	the reservation, out of the VA space's tree
 */
static void uvm_vmm_range_free(struct uvm_va_space *va_space, struct uvm_va_range *range)
{
	struct interval_tree_node *node;

	while ((node = interval_tree_iter_first(&range->vmm.mappings, 0, ULONG_MAX))) {
		vmm_mapping_destroy(va_space, range, to_vmm_mapping(node), NULL);
		cond_resched();
	}
}

/**
 * uvm_vmm_service_fault() - a GPU fault in a reservation
 * @va_space:	the VA space; its lock held for read
 * @range:	the reservation
 * @gpu:	the faulting GPU
 * @va:		the faulting address
 * @access:	the access type
 *
 * Maps the granule with the right the GPU has (its PTEs may be missing
 * after a failed write, or stale after a raise); an access beyond the
 * right, or where nothing is mapped, is fatal.
 *
 * Return: 0, or -errno: the fault is fatal.
 */
static int uvm_vmm_service_fault(struct uvm_va_space *va_space, struct uvm_va_range *range,
				 struct uvm_gpu *gpu, u64 va, enum uvm_fault_access access)
{
	struct uvm_vmm_mapping *map = uvm_vmm_mapping_find(range, va);
	enum uvm_prot prot;
	u64 g;

	if (!map)
		return -EFAULT;
	g = vmm_granule(map, va);
	prot = vmm_prot(&map->access[g], UVM_PROCESSOR_GPU(gpu->index));
	if (prot == UVM_PROT_NONE ||
	    (access >= UVM_FAULT_ACCESS_WRITE && prot < UVM_PROT_READ_WRITE))
		return -EACCES;
	return vmm_gpu_map_granule(va_space, map, g, gpu, prot);
}

/* VMA operations */

/**
 * vmm_cpu_lookup() - the CPU's view of a faulting address
 * @vmf:	the fault
 * @prot:	out: the CPU's right on the page
 *
 * Context: the VA space lock held for read.
 * Return: the page of a host-located allocation, or NULL.
 */
static struct page *vmm_cpu_lookup(struct vm_fault *vmf, enum uvm_prot *prot)
{
	struct uvm_va_space *va_space = vmf->vma->vm_private_data;
	struct uvm_va_range *range = uvm_va_range_find(va_space, vmf->address);
	struct uvm_vmm_mapping *map;

	*prot = UVM_PROT_NONE;
	if (!range || range->kind != UVM_RANGE_VMM)
		return NULL;
	map = uvm_vmm_mapping_find(range, vmf->address);
	if (!map || !uvm_mem_is_host(map->mem))
		return NULL;
	*prot = vmm_prot(&map->access[vmm_granule(map, vmf->address)],
			 UVM_PROCESSOR_CPU);
	return uvm_mem_page(map->mem, map->offset +
			    ((vmf->address & PAGE_MASK) - vmm_map_start(map)));
}

static vm_fault_t uvm_vmm_vma_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct uvm_va_space *va_space = vma->vm_private_data;
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	enum uvm_prot prot;
	struct page *page;
	vm_fault_t ret;

	if (vma->vm_mm != va_space->mm)
		return VM_FAULT_SIGBUS;
	if (down_read_killable(&va_space->lock))
		return VM_FAULT_SIGBUS;
	page = vmm_cpu_lookup(vmf, &prot);
	if (!page || prot == UVM_PROT_NONE ||
	    (write && prot < UVM_PROT_READ_WRITE))
		ret = VM_FAULT_SIGSEGV;
	else
		ret = vmf_insert_pfn_prot(vma, vmf->address & PAGE_MASK,
					  page_to_pfn(page),
					  prot >= UVM_PROT_READ_WRITE ?
					  vm_get_page_prot(vma->vm_flags) :
					  vma->vm_page_prot);
	up_read(&va_space->lock);
	return ret;
}

static vm_fault_t uvm_vmm_vma_pfn_mkwrite(struct vm_fault *vmf)
{
	struct uvm_va_space *va_space = vmf->vma->vm_private_data;
	enum uvm_prot prot;
	vm_fault_t ret;

	if (vmf->vma->vm_mm != va_space->mm)
		return VM_FAULT_SIGBUS;
	if (down_read_killable(&va_space->lock))
		return VM_FAULT_SIGBUS;
	ret = vmm_cpu_lookup(vmf, &prot) && prot >= UVM_PROT_READ_WRITE ?
	      0 : VM_FAULT_SIGSEGV;
	up_read(&va_space->lock);
	return ret;
}

static void uvm_vmm_vma_close(struct vm_area_struct *vma)
{
	struct uvm_va_space *va_space = vma->vm_private_data;
	struct uvm_va_range *range;

	if (WARN_ON_ONCE(vma->vm_mm != va_space->mm))
		return;
	down_write(&va_space->lock);
	/* A refused mremap() closes a copy of the VMA where there is no range. */
	range = uvm_va_range_find(va_space, vma->vm_start);
	if (range && range->kind == UVM_RANGE_VMM &&
	    uvm_va_range_start(range) == vma->vm_start &&
	    uvm_va_range_end(range) == vma->vm_end)
		__uvm_va_range_destroy(va_space, range);
	up_write(&va_space->lock);
}

static int uvm_vmm_vma_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static int uvm_vmm_vma_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static const struct vm_operations_struct uvm_vmm_vm_ops = {
	.close = uvm_vmm_vma_close,
	.may_split = uvm_vmm_vma_may_split,
	.mremap = uvm_vmm_vma_mremap,
	.fault = uvm_vmm_vma_fault,
	.pfn_mkwrite = uvm_vmm_vma_pfn_mkwrite,
};

/**
 * uvm_vmm_range_mmap() - reserve the addresses of a new VMA
 * @va_space:	the VA space; its lock held for write
 * @vma:	the VMA (MAP_SHARED, not executable)
 *
 * Context: mmap_lock held for write.
 * Return: 0 or -ENOMEM.
 */
int uvm_vmm_range_mmap(struct uvm_va_space *va_space, struct vm_area_struct *vma)
{
	struct uvm_va_range *range;

	lockdep_assert_held_write(&va_space->lock);
	range = uvm_va_range_alloc(UVM_RANGE_VMM, &uvm_vmm_range_ops,
				   vma->vm_start, vma->vm_end,
				   GFP_KERNEL_ACCOUNT);
	if (!range)
		return -ENOMEM;
	range->vmm.mappings = RB_ROOT_CACHED;
	range->vmm.nr_mappings = 0;
	/* File offsets equal addresses: unmap_mapping_range() works by VA. */
	vma->vm_pgoff = vma->vm_start >> PAGE_SHIFT;
	uvm_vm_flags_set(vma, UVM_VMA_FLAGS);
	uvm_vm_flags_clear(vma, VM_MAYEXEC);
	vma->vm_private_data = va_space;
	vma->vm_ops = &uvm_vmm_vm_ops;
	__uvm_va_range_insert(va_space, range);
	return 0;
}

/* ioctls */

/**
 * vmm_span_check() - validate a span given to an ioctl
 * @address:	first byte
 * @size:	bytes
 *
 * Return: 0, or -EINVAL unless both are multiples of the granularity, the
 * size is not zero and the span does not wrap.
 */
static int vmm_span_check(u64 address, u64 size)
{
	if (!size || !IS_ALIGNED(address | size, UVM_MEM_GRANULARITY) ||
	    address + size < address)
		return -EINVAL;
	return 0;
}

/**
 * uvm_ioc_mem_map() - UVM_IOC_MEM_MAP
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_mem_map
 *
 * Return: 0 or -errno (see uapi/uvm.h).
 */
int uvm_ioc_mem_map(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_mem_map *args = data;
	u64 end = args->address + args->size;
	struct uvm_vmm_mapping *map;
	struct uvm_va_range *range;
	struct uvm_mem *mem;
	u64 n;
	int ret;

	if (args->flags || args->pad ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	ret = vmm_span_check(args->address, args->size);
	if (ret || !IS_ALIGNED(args->offset, UVM_MEM_GRANULARITY) ||
	    args->offset + args->size < args->offset)
		return -EINVAL;

	if (down_write_killable(&va_space->lock))
		return -EINTR;
	mem = uvm_mem_handle_lookup(va_space, args->handle);
	range = vmm_range_get(va_space, args->address, end);
	if (!mem)
		ret = -ENOENT;
	else if (args->offset + args->size > mem->size || !range)
		ret = -EINVAL;
	else if (interval_tree_iter_first(&range->vmm.mappings, args->address, end - 1))
		ret = -EEXIST;
	else if (va_space->nr_vmm_mappings >= UVM_VMM_MAX_MAPPINGS)
		ret = -ENOSPC;
	if (ret)
		goto out_unlock;

	n = args->size / UVM_MEM_GRANULARITY;
	map = kvzalloc(struct_size(map, access, n), GFP_KERNEL_ACCOUNT);
	if (!map) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	map->node.start = args->address;
	map->node.last = end - 1;
	map->mem = uvm_mem_get(mem);
	map->offset = args->offset;
	map->handle = args->handle;
	map->buffer_id = uvm_va_range_new_buffer_id();
	interval_tree_insert(&map->node, &range->vmm.mappings);
	range->vmm.nr_mappings++;
	va_space->nr_vmm_mappings++;
out_unlock:
	up_write(&va_space->lock);
	return ret;
}

/**
 * uvm_ioc_mem_unmap() - UVM_IOC_MEM_UNMAP
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_mem_unmap
 *
 * Return: 0 or -errno (see uapi/uvm.h).
 */
int uvm_ioc_mem_unmap(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_mem_unmap *args = data;
	u64 end = args->address + args->size;
	struct uvm_vmm_mapping *map, *tmp;
	struct interval_tree_node *node, *next;
	struct uvm_va_range *range;
	LIST_HEAD(dead);
	int ret;

	if (args->flags || args->pad ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	ret = vmm_span_check(args->address, args->size);
	if (ret)
		return ret;

	if (down_write_killable(&va_space->lock))
		return -EINTR;
	range = vmm_range_get(va_space, args->address, end);
	if (!range) {
		ret = -EINVAL;
		goto out_unlock;
	}
	node = interval_tree_iter_first(&range->vmm.mappings, args->address, end - 1);
	if (!node)
		ret = -ENOENT;
	for (; node; node = interval_tree_iter_next(node, args->address, end - 1))
		if (node->start < args->address || node->last >= end)
			ret = -EINVAL;
	if (ret)
		goto out_unlock;
	for (node = interval_tree_iter_first(&range->vmm.mappings, args->address, end - 1);
	     node; node = next) {
		next = interval_tree_iter_next(node, args->address, end - 1);
		vmm_mapping_destroy(va_space, range, to_vmm_mapping(node), &dead);
	}
out_unlock:
	up_write(&va_space->lock);
	/* a last reference frees its allocation: maybe gigabytes, unlocked */
	list_for_each_entry_safe(map, tmp, &dead, dead)
		vmm_mapping_free(map);
	return ret;
}

/**
 * vmm_access_check() - validate the access entries of SET_ACCESS
 * @descs:	the entries
 * @count:	how many
 * @bad:	out: index of the first bad entry
 *
 * Return: 0, -EINVAL for a bad prot, pad or location type, -ENODEV for a
 * bad GPU.
 */
static int vmm_access_check(const struct uvm_mem_access *descs, u32 count, u32 *bad)
{
	u32 i;

	for (i = 0; i < count; i++) {
		const struct uvm_mem_access *d = &descs[i];

		*bad = i;
		if (d->pad || (d->prot != UVM_MEM_PROT_NONE &&
			       d->prot != UVM_MEM_PROT_READ &&
			       d->prot != UVM_MEM_PROT_READ_WRITE))
			return -EINVAL;
		if (d->location.type == UVM_LOCATION_GPU) {
			if (!uvm_gpu_get(d->location.id))
				return -ENODEV;
		} else if (d->location.type != UVM_LOCATION_HOST &&
			   d->location.type != UVM_LOCATION_HOST_NUMA) {
			return -EINVAL;
		}
	}
	*bad = U32_MAX;
	return 0;
}

static u32 vmm_access_proc(const struct uvm_mem_access *d)
{
	return d->location.type == UVM_LOCATION_GPU ?
	       UVM_PROCESSOR_GPU(d->location.id) : UVM_PROCESSOR_CPU;
}

/**
 * vmm_access_apply() - give one granule its new access
 * @va_space:	the VA space; its lock held for write
 * @map:	the mapping
 * @g:		the granule
 * @descs:	the validated entries
 * @count:	how many
 * @changed:	in/out: GPU indices whose PTEs changed (TLB to invalidate)
 */
static void vmm_access_apply(struct uvm_va_space *va_space, struct uvm_vmm_mapping *map,
			     u64 g, const struct uvm_mem_access *descs, u32 count,
			     unsigned long *changed)
{
	struct uvm_vmm_access old = map->access[g], *acc = &map->access[g];
	u32 i;

	for (i = 0; i < count; i++) {
		u64 bit = UVM_PROCESSOR_MASK(vmm_access_proc(&descs[i]));

		acc->read &= ~bit;
		acc->write &= ~bit;
		if (descs[i].prot & UVM_MEM_PROT_READ)
			acc->read |= bit;
		if (descs[i].prot == UVM_MEM_PROT_READ_WRITE)
			acc->write |= bit;
	}
	for (i = 0; i < uvm_gpu_count; i++) {
		enum uvm_prot prot = vmm_prot(acc, UVM_PROCESSOR_GPU(i));

		if (prot == vmm_prot(&old, UVM_PROCESSOR_GPU(i)))
			continue;
		__set_bit(i, changed);
		if (prot == UVM_PROT_NONE)
			vmm_gpu_unmap_granule(va_space, map, g, uvm_gpus[i]);
		else
			vmm_gpu_map_granule(va_space, map, g, uvm_gpus[i], prot);
	}
	if (vmm_prot(acc, UVM_PROCESSOR_CPU) != vmm_prot(&old, UVM_PROCESSOR_CPU))
		vmm_cpu_zap(va_space, vmm_map_start(map) + g * UVM_MEM_GRANULARITY,
			    UVM_MEM_GRANULARITY);
}

/**
 * uvm_ioc_mem_set_access() - UVM_IOC_MEM_SET_ACCESS
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_mem_set_access
 *
 * Return: 0 or -errno (see uapi/uvm.h).
 */
int uvm_ioc_mem_set_access(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_mem_set_access *args = data;
	u64 end = args->address + args->size;
	struct interval_tree_node *node;
	struct uvm_mem_access *descs;
	struct uvm_va_range *range;
	unsigned long changed = 0;
	u32 i;
	int ret;

	args->bad_desc = U32_MAX;
	if (args->flags || args->pad ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	ret = vmm_span_check(args->address, args->size);
	if (ret || !args->count || args->count > UVM_MEM_MAX_ACCESS_DESCS)
		return -EINVAL;
	descs = memdup_user(u64_to_user_ptr(args->descs_ptr),
			    args->count * sizeof(*descs));
	if (IS_ERR(descs))
		return PTR_ERR(descs);
	ret = vmm_access_check(descs, args->count, &args->bad_desc);
	if (ret)
		goto out_free;

	if (down_write_killable(&va_space->lock)) {
		ret = -EINTR;
		goto out_free;
	}
	range = vmm_range_get(va_space, args->address, end);
	ret = range ? uvm_vmm_check_span(range, args->address, end, NULL, false) : -EINVAL;
	if (ret)
		goto out_unlock;
	/* The CPU is named only for memory it can reach: host allocations. */
	for (i = 0; i < args->count; i++) {
		if (descs[i].location.type == UVM_LOCATION_GPU)
			continue;
		for (node = interval_tree_iter_first(&range->vmm.mappings,
						     args->address, end - 1);
		     node; node = interval_tree_iter_next(node, args->address, end - 1)) {
			if (!uvm_mem_is_host(to_vmm_mapping(node)->mem)) {
				args->bad_desc = i;
				ret = -EOPNOTSUPP;
				goto out_unlock;
			}
		}
	}
	for (node = interval_tree_iter_first(&range->vmm.mappings, args->address, end - 1);
	     node; node = interval_tree_iter_next(node, args->address, end - 1)) {
		struct uvm_vmm_mapping *map = to_vmm_mapping(node);
		u64 g, last = vmm_granule(map, min(end, vmm_map_end(map)) - 1);

		/*
		 * A span may alias one allocation a million times: the whole
		 * change is made (it was validated whole), with the CPU
		 * offered between granules.
		 */
		for (g = vmm_granule(map, max(args->address, vmm_map_start(map)));
		     g <= last; g++) {
			vmm_access_apply(va_space, map, g, descs, args->count, &changed);
			cond_resched();
		}
	}
	for (i = 0; i < uvm_gpu_count; i++)
		if (test_bit(i, &changed))
			uvm_gpus[i]->ops->tlb_invalidate(uvm_va_space_gpu_va_space(va_space,
										   uvm_gpus[i]),
							 args->address, args->size);
out_unlock:
	up_write(&va_space->lock);
out_free:
	kfree(descs);
	return ret;
}

/**
 * uvm_ioc_mem_query() - UVM_IOC_MEM_QUERY
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_mem_query
 *
 * Return: 0 or -errno (see uapi/uvm.h).
 */
int uvm_ioc_mem_query(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_mem_query *args = data;
	bool retain = args->flags & UVM_MEM_QUERY_RETAIN;
	struct uvm_vmm_mapping *map = NULL;
	struct uvm_va_range *range;
	int ret = 0;

	u64 address = args->address;
	u32 flags = args->flags;

	if ((flags & ~UVM_MEM_QUERY_RETAIN) || args->pad || args->pad2 ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	memset(args, 0, sizeof(*args));
	args->address = address;
	args->flags = flags;
	if (retain)
		ret = down_write_killable(&va_space->lock);
	else
		ret = down_read_killable(&va_space->lock);
	if (ret)
		return -EINTR;
	range = uvm_va_range_find(va_space, args->address);
	if (!range || range->kind != UVM_RANGE_VMM) {
		ret = -ENOENT;
		goto out_unlock;
	}
	args->reservation_start = uvm_va_range_start(range);
	args->reservation_size = uvm_va_range_end(range) - args->reservation_start;
	args->reservation_mappings = range->vmm.nr_mappings;
	map = uvm_vmm_mapping_find(range, args->address);
	if (!map) {
		ret = retain ? -ENOENT : 0;
		goto out_unlock;
	}
	if (retain) {
		ret = uvm_mem_handle_retain(va_space, &map->handle, map->mem);
		if (ret)
			goto out_unlock;
	}
	args->mapping_start = vmm_map_start(map);
	args->mapping_size = vmm_map_end(map) - args->mapping_start;
	args->mapping_offset = map->offset;
	args->handle = map->handle;
	args->alloc_size = map->mem->size;
	args->location = map->mem->location;
	args->handle_types = map->mem->handle_types;
	args->read_mask = map->access[vmm_granule(map, args->address)].read;
	args->write_mask = map->access[vmm_granule(map, args->address)].write;
	args->alloc_id = map->mem->id;
out_unlock:
	if (retain)
		up_write(&va_space->lock);
	else
		up_read(&va_space->lock);
	return ret;
}

static const struct uvm_va_range_ops uvm_vmm_range_ops = {
	.free = uvm_vmm_range_free,
	.service_fault = uvm_vmm_service_fault,
	.pointer_info = uvm_vmm_pointer_info,
};
