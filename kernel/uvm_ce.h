/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Batches of copy-engine operations.
 */
#ifndef _UVM_CE_H_
#define _UVM_CE_H_

#include <linux/sizes.h>
#include <linux/types.h>

#include "uvm_hal.h"

struct page;
struct uvm_gpu;

/* Operations gathered before a submission. */
#define UVM_CE_BATCH_OPS	256

/* Bytes a run joined by uvm_ce_batch_push_run() grows to at most. */
#define UVM_CE_RUN_MAX		SZ_64K

/**
 * struct uvm_ce_batch - copy-engine operations being gathered
 * @gpu:	GPU whose copy engine runs them, NULL when empty
 * @nops:	gathered operations
 * @ops:	the operations
 * @ndma:	entries in @dma
 * @dma:	system pages mapped for @gpu by the gathered operations,
 *		released once they completed
 */
struct uvm_ce_batch {
	struct uvm_gpu *gpu;
	u32 nops;
	struct uvm_ce_op ops[UVM_CE_BATCH_OPS];
	u32 ndma;
	u64 dma[2 * UVM_CE_BATCH_OPS];
};

int uvm_ce_batch_begin(struct uvm_ce_batch *b, struct uvm_gpu *gpu);
int uvm_ce_batch_sysmem(struct uvm_ce_batch *b, struct page *page,
			struct uvm_gpu_address *addr);
void uvm_ce_batch_push(struct uvm_ce_batch *b, const struct uvm_ce_op *op);
void uvm_ce_batch_push_run(struct uvm_ce_batch *b, const struct uvm_ce_op *op);
void uvm_ce_batch_push_row(struct uvm_ce_batch *b, const struct uvm_ce_op *op,
			   u64 dst_pitch, u64 src_pitch);
int uvm_ce_batch_flush(struct uvm_ce_batch *b);

#endif /* _UVM_CE_H_ */
