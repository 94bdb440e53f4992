/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Eviction of VA blocks' chunks from a full GPU.
 */
#ifndef _UVM_EVICT_H_
#define _UVM_EVICT_H_

#include <linux/types.h>

struct uvm_gpu;
struct uvm_va_block_ctx;
struct uvm_va_space;

bool uvm_evict_gpu(struct uvm_gpu *gpu, struct uvm_va_space *held,
		   struct uvm_va_block_ctx *ctx, bool *busy);
bool uvm_evict_retry(struct uvm_va_block_ctx *ctx, struct uvm_va_space *held, int *ret);

#endif /* _UVM_EVICT_H_ */
