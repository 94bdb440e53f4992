/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Virtual memory management: reservations, mappings of allocations, access.
 */
#ifndef _UVM_VMM_H_
#define _UVM_VMM_H_

#include <linux/types.h>

#include "uvm_hal.h"

struct page;
struct uvm_gpu;
struct uvm_va_range;
struct uvm_va_space;
struct uvm_vmm_mapping;
struct vm_area_struct;

int uvm_vmm_range_mmap(struct uvm_va_space *va_space, struct vm_area_struct *vma);
struct uvm_vmm_mapping *uvm_vmm_mapping_find(struct uvm_va_range *range, u64 va);
u64 uvm_vmm_mapping_buffer_id(const struct uvm_vmm_mapping *map);
int uvm_vmm_check_span(struct uvm_va_range *range, u64 start, u64 end,
		       struct uvm_gpu *gpu, bool write);
int uvm_vmm_copy_addr(struct uvm_vmm_mapping *map, u64 va, struct uvm_gpu *gpu,
		      struct uvm_gpu_address *addr);
int uvm_ioc_mem_map(struct uvm_va_space *va_space, void *data);
int uvm_ioc_mem_unmap(struct uvm_va_space *va_space, void *data);
int uvm_ioc_mem_set_access(struct uvm_va_space *va_space, void *data);
int uvm_ioc_mem_query(struct uvm_va_space *va_space, void *data);

#endif /* _UVM_VMM_H_ */
