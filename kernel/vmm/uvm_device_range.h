/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Device memory: mmap() of /dev/uvm at UVM_MMAP_DEVICE(g), one GPU's vidmem.
 */
#ifndef _UVM_DEVICE_RANGE_H_
#define _UVM_DEVICE_RANGE_H_

#include <linux/types.h>

#include "uvm_hal.h"

struct page;
struct uvm_gpu;
struct uvm_va_range;
struct uvm_va_space;
struct uvm_vmm_mapping;
struct vm_area_struct;

int uvm_device_range_mmap(struct uvm_va_space *va_space,
			  struct vm_area_struct *vma, u32 gpu_index);
struct uvm_gpu_address uvm_device_range_phys(struct uvm_va_range *range, u64 va);
int uvm_device_chunk_alloc(struct uvm_va_space *va_space, struct uvm_gpu *gpu,
			   u64 *addr);
int uvm_device_chunks_zero(struct uvm_gpu *gpu, const u64 *chunks, u64 n);

#endif /* _UVM_DEVICE_RANGE_H_ */
