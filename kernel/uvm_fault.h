/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Replayable GPU fault servicing.
 */
#ifndef _UVM_FAULT_H_
#define _UVM_FAULT_H_

#include <linux/types.h>

struct uvm_gpu;
struct uvm_va_space;

int uvm_fault_gpu_init(struct uvm_gpu *gpu);
void uvm_fault_gpu_deinit(struct uvm_gpu *gpu);
u32 uvm_fault_batch_size(void);
int uvm_fault_params_check(void);
void uvm_fault_va_space_release(struct uvm_va_space *va_space);
void uvm_fault_va_space_free(struct uvm_va_space *va_space);

#endif /* _UVM_FAULT_H_ */
