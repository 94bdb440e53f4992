/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Physical allocations of virtual memory management (cuMemCreate): memory
 * with no address of its own, named by handles of a VA space, shared
 * between processes by file descriptor, mapped into reservations
 * (uvm_vmm.c).
 */
#ifndef _UVM_MEM_H_
#define _UVM_MEM_H_

#include <linux/kref.h>
#include <linux/types.h>

#include "uvm.h"
#include "uvm_hal.h"

struct page;
struct uvm_ce_batch;
struct uvm_gpu;
struct uvm_ioctl_file;
struct uvm_va_space;

/**
 * struct uvm_mem - one physical allocation
 * @kref:	references: each handle of any VA space, each mapping, each
 *		exported file
 * @id:		unique id, never reused while the module is loaded
 * @size:	bytes, a multiple of UVM_MEM_GRANULARITY
 * @location:	UVM_LOCATION_GPU, _HOST or _HOST_NUMA and its id
 * @handle_types: UVM_MEM_HANDLE_* it may be exported as
 * @gpu:	GPU-located: the GPU
 * @chunks:	GPU-located: 2 MiB vidmem chunks, size / 2 MiB of them
 * @pages:	host-located: the pages, size / PAGE_SIZE of them
 * @runs:	host-located: bit i set where pages[i] heads a 2 MiB run, an
 *		allocation of order UVM_MEM_HOST_ORDER freed as one (its
 *		other pages have no reference count of their own)
 * @dma:	host-located: per GPU index, the pages' DMA addresses
 *
 * Immutable after creation; freed with the last reference.
 */
struct uvm_mem {
	struct kref kref;
	u64 id;
	u64 size;
	struct uvm_location location;
	u32 handle_types;
	struct uvm_gpu *gpu;
	u64 *chunks;
	struct page **pages;
	unsigned long *runs;
	u64 *dma[UVM_MAX_GPUS];
};

static inline bool uvm_mem_is_host(const struct uvm_mem *mem)
{
	return mem->location.type != UVM_LOCATION_GPU;
}

/**
 * struct uvm_mem_handle - a handle of a VA space
 * @mem:	the allocation; the handle holds one reference on it
 * @refs:	references on the handle (create, import, retain)
 */
struct uvm_mem_handle {
	struct uvm_mem *mem;
	u64 refs;
};

void uvm_mem_put(struct uvm_mem *mem);

static inline struct uvm_mem *uvm_mem_get(struct uvm_mem *mem)
{
	kref_get(&mem->kref);
	return mem;
}

int uvm_mem_phys(struct uvm_mem *mem, u64 offset, struct uvm_gpu *gpu,
		 struct uvm_gpu_address *addr);
struct page *uvm_mem_page(struct uvm_mem *mem, u64 offset);

struct uvm_mem *uvm_mem_handle_lookup(struct uvm_va_space *va_space, u64 handle);
int uvm_mem_handle_retain(struct uvm_va_space *va_space, u64 *handle,
			  struct uvm_mem *mem);
void uvm_mem_handles_destroy(struct uvm_va_space *va_space);

int uvm_ioc_mem_create(struct uvm_va_space *va_space, void *data);
int uvm_ioc_mem_release(struct uvm_va_space *va_space, void *data);
int uvm_ioc_mem_props(struct uvm_va_space *va_space, void *data);
int uvm_ioc_mem_export(struct uvm_va_space *va_space, void *data,
		       struct uvm_ioctl_file *out);
int uvm_ioc_mem_import(struct uvm_va_space *va_space, void *data);

#endif /* _UVM_MEM_H_ */
