/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Registered host memory: HOST_REGISTER pins process memory for the GPUs.
 */
#ifndef _UVM_HOST_RANGE_H_
#define _UVM_HOST_RANGE_H_

#include <linux/types.h>

#include "uvm_hal.h"

struct page;
struct uvm_gpu;
struct uvm_va_range;
struct uvm_va_space;
struct uvm_vmm_mapping;
struct vm_area_struct;

int uvm_ioc_host_register(struct uvm_va_space *va_space, void *data);
int uvm_ioc_host_unregister(struct uvm_va_space *va_space, void *data);
struct page *uvm_host_range_page(struct uvm_va_range *range, u64 va);

#endif /* _UVM_HOST_RANGE_H_ */
