/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Allocations of a VA space: managed, device and registered host ranges.
 */
#ifndef _UVM_VA_RANGE_H_
#define _UVM_VA_RANGE_H_

#include <linux/interval_tree.h>
#include <linux/mm.h>
#include <linux/types.h>

#include "uvm.h"
#include "uvm_hal.h"

struct page;
struct uvm_gpu;
struct uvm_vmm_mapping;
struct uvm_va_space;
struct vm_area_struct;

/*
 * VMA flags of our mappings: PFN-mapped driver memory, fixed size, not in
 * core dumps, not inherited by fork(); VM_IO also makes madvise() refuse
 * MADV_DOFORK, which would otherwise clear VM_DONTCOPY.
 */
#define UVM_VMA_FLAGS	(VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY)

/* What an allocation is. */
enum uvm_va_range_kind {
	UVM_RANGE_MANAGED = 1,	/* mmap of /dev/uvm at offset 0: migrates */
	UVM_RANGE_DEVICE = 2,	/* mmap at UVM_MMAP_DEVICE(g): g's vidmem */
	UVM_RANGE_HOST = 3,	/* HOST_REGISTER: pinned process memory */
	UVM_RANGE_VMM = 4,	/* mmap at UVM_MMAP_RESERVE: a reservation */
};

/**
 * struct uvm_va_range_device - device memory of one GPU
 * @gpu:	the owning GPU
 * @first_block: address >> UVM_VA_BLOCK_SHIFT of the first 2 MiB region
 * @nchunks:	2 MiB regions the range touches, one vidmem chunk each
 * @chunks:	vidmem offsets, by region
 */
struct uvm_va_range_device {
	struct uvm_gpu *gpu;
	u64 first_block;
	u64 nchunks;
	u64 *chunks;
};

/**
 * struct uvm_va_range_host - pinned process memory
 * @first:	address of the first page pinned
 * @npages:	pages pinned
 * @pages:	the pinned pages
 * @dma:	per GPU index, the pages' DMA addresses for that GPU (0: not
 *		mapped yet), allocated on that GPU's first access
 * @read_only:	GPUs may only read
 */
struct uvm_va_range_host {
	u64 first;
	u64 npages;
	struct page **pages;
	u64 *dma[UVM_MAX_GPUS];
	bool read_only;
};

/**
 * struct uvm_va_range_vmm - an address reservation (uvm_vmm.c)
 * @mappings:	struct uvm_vmm_mapping by address, an interval tree
 * @nr_mappings: mappings in @mappings
 */
struct uvm_va_range_vmm {
	struct rb_root_cached mappings;
	u64 nr_mappings;
};

struct uvm_ioc_pointer_info;
struct uvm_va_range;

/**
 * struct uvm_va_range_ops - what a kind of allocation other than managed
 * memory does; each kind defines its own (uvm_device_range.c,
 * uvm_host_range.c, uvm_vmm.c), so the base type does not know its kinds
 * @free:	free what the range holds; the VA space lock held for write,
 *		the range already out of the tree
 * @service_fault: a GPU fault in the range; the VA space lock held for
 *		read.  Return: 0, or -errno: the fault is fatal
 * @pointer_info: UVM_IOC_POINTER_INFO of an address in the range; @args
 *		holds the range's start, size and buffer id already.
 *		Return: 0 or -ENOENT
 */
struct uvm_va_range_ops {
	void (*free)(struct uvm_va_space *va_space, struct uvm_va_range *range);
	int (*service_fault)(struct uvm_va_space *va_space, struct uvm_va_range *range,
			     struct uvm_gpu *gpu, u64 va, enum uvm_fault_access access);
	int (*pointer_info)(struct uvm_va_range *range, struct uvm_ioc_pointer_info *args);
};

/**
 * struct uvm_va_range - one allocation
 * @node:	in uvm_va_space.ranges: first and last byte.  Managed and
 *		device ranges cover whole pages; host ranges the exact bytes
 *		registered (two may share a page, never a byte)
 * @buffer_id:	unique id of the allocation (UVM_IOC_POINTER_INFO)
 * @kind:	enum uvm_va_range_kind
 * @ops:	the kind's operations; NULL for managed memory
 * @device:	UVM_RANGE_DEVICE
 * @host:	UVM_RANGE_HOST
 * @vmm:	UVM_RANGE_VMM
 *
 * A munmap() of part of a managed range shrinks or splits it; the pieces
 * keep the buffer id.  Device ranges and reservations are unmapped whole.
 */
struct uvm_va_range {
	struct interval_tree_node node;
	u64 buffer_id;
	enum uvm_va_range_kind kind;
	const struct uvm_va_range_ops *ops;
	union {
		struct uvm_va_range_device device;
		struct uvm_va_range_host host;
		struct uvm_va_range_vmm vmm;
	};
};

static inline u64 uvm_va_range_start(const struct uvm_va_range *range)
{
	return range->node.start;
}

static inline u64 uvm_va_range_end(const struct uvm_va_range *range)
{
	return range->node.last + 1;
}

struct uvm_va_range *uvm_va_range_find(struct uvm_va_space *va_space, u64 addr);
u64 uvm_va_range_new_buffer_id(void);
u64 uvm_va_range_last_buffer_id(void);
struct uvm_va_range *uvm_va_range_alloc(enum uvm_va_range_kind kind,
					const struct uvm_va_range_ops *ops,
					u64 start, u64 end, gfp_t gfp);
void __uvm_va_range_insert(struct uvm_va_space *va_space,
			   struct uvm_va_range *range);
void __uvm_va_range_destroy(struct uvm_va_space *va_space,
			    struct uvm_va_range *range);
void uvm_va_range_destroy_all(struct uvm_va_space *va_space);
int uvm_va_range_mmap_clear(struct uvm_va_space *va_space, struct vm_area_struct *vma);
int uvm_va_range_mmap_managed(struct uvm_va_space *va_space, struct vm_area_struct *vma);
void uvm_va_range_unmap(struct uvm_va_space *va_space, u64 start, u64 end);
int uvm_va_range_check(struct uvm_va_space *va_space, u64 address, u64 length,
		       u64 *start, u64 *end, bool *pageable);
int uvm_ioc_pointer_info(struct uvm_va_space *va_space, void *data);
int uvm_va_range_service_fault(struct uvm_va_space *va_space,
			       struct uvm_va_range *range, struct uvm_gpu *gpu,
			       u64 va, enum uvm_fault_access access);

#endif /* _UVM_VA_RANGE_H_ */
