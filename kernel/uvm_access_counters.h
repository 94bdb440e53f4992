/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Access-counter driven migration.
 */
#ifndef _UVM_ACCESS_COUNTERS_H_
#define _UVM_ACCESS_COUNTERS_H_

struct uvm_gpu;

int uvm_access_counters_gpu_init(struct uvm_gpu *gpu);
void uvm_access_counters_gpu_deinit(struct uvm_gpu *gpu);

#endif /* _UVM_ACCESS_COUNTERS_H_ */
