/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Servicing a VA block: GPU and CPU faults, access by the copy engines,
 * prefetch, access-counter migration, discard and the effects of advice.
 */
#ifndef _UVM_VA_BLOCK_SERVICE_H_
#define _UVM_VA_BLOCK_SERVICE_H_

#include <linux/mm_types.h>
#include <linux/types.h>

struct uvm_fault_block_req;
struct uvm_gpu;
struct uvm_location;
struct uvm_page_mask;
struct uvm_va_block;
struct uvm_va_block_ctx;
struct vm_area_struct;

int uvm_va_block_service_gpu_faults(struct uvm_va_block *block,
				    struct uvm_va_block_ctx *ctx,
				    struct uvm_gpu *gpu,
				    const struct uvm_fault_block_req *req);
vm_fault_t uvm_va_block_service_cpu_fault(struct uvm_va_block *block,
					  struct uvm_va_block_ctx *ctx,
					  struct vm_area_struct *vma, u64 addr,
					  bool write, bool *nap);
vm_fault_t uvm_va_block_cpu_mkwrite(struct uvm_va_block *block,
				    struct uvm_va_block_ctx *ctx, u64 addr);
int uvm_va_block_serve_access(struct uvm_va_block *block,
			      struct uvm_va_block_ctx *ctx, struct uvm_gpu *gpu,
			      const struct uvm_page_mask *mask, bool write);
int uvm_va_block_prefetch(struct uvm_va_block *block,
			  struct uvm_va_block_ctx *ctx,
			  const struct uvm_page_mask *mask,
			  const struct uvm_location *loc);
int uvm_va_block_access_counter_migrate(struct uvm_va_block *block,
					struct uvm_va_block_ctx *ctx,
					struct uvm_gpu *gpu);
void uvm_va_block_discard(struct uvm_va_block *block,
			  const struct uvm_page_mask *mask);
int uvm_va_block_unset_read_mostly(struct uvm_va_block *block,
				   struct uvm_va_block_ctx *ctx,
				   const struct uvm_page_mask *mask);
int uvm_va_block_set_accessed_by(struct uvm_va_block *block,
				 struct uvm_va_block_ctx *ctx,
				 const struct uvm_page_mask *mask, u32 proc);

#endif /* _UVM_VA_BLOCK_SERVICE_H_ */
