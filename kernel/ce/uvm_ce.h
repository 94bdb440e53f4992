/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Batches of copy-engine operations.
 */
#ifndef _UVM_CE_H_
#define _UVM_CE_H_

#include <linux/kernel.h>
#include <linux/sizes.h>
#include <linux/types.h>

#include "uvm_hal.h"

struct page;
struct uvm_gpu;

/* Operations gathered before a submission. */
#define UVM_CE_BATCH_OPS	256

/* Bytes a run joined by uvm_ce_batch_push_run() grows to at most. */
#define UVM_CE_RUN_MAX		SZ_64K

/*
 * Rows uvm_ce_batch_push_row() joins into one operation at most: 64 KiB of
 * rows of 256 bytes, and a submission (UVM_CE_BATCH_OPS operations) at
 * most 64 Ki rows.  An engine runs the submissions of every user of its GPU
 * in order: a box of a billion one-byte rows must reach it as many small
 * submissions, between which the others' work runs, not as one that holds
 * them all for minutes.
 */
#define UVM_CE_ROWS_MAX		256

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

int uvm_ce_batch_make_room(struct uvm_ce_batch *b, struct uvm_gpu *gpu);
int uvm_ce_batch_sysmem(struct uvm_ce_batch *b, struct page *page,
			struct uvm_gpu_address *addr);

/**
 * uvm_ce_batch_begin() - make room for one more operation on @gpu's engine
 * @b:		the batch
 * @gpu:	the engine to use
 *
 * Flushes when the batch is full or the engine changes.  The caller then
 * maps system pages with uvm_ce_batch_sysmem() (at most two) and pushes the
 * operation.  Inline: the small copies of a batch begin one each.
 *
 * Return: 0 or the -errno of the flush.
 */
static inline int uvm_ce_batch_begin(struct uvm_ce_batch *b, struct uvm_gpu *gpu)
{
	if (b->gpu == gpu && b->nops < UVM_CE_BATCH_OPS && b->ndma + 2 <= ARRAY_SIZE(b->dma))
		return 0;
	return uvm_ce_batch_make_room(b, gpu);
}

/**
 * uvm_ce_batch_push() - add an operation to a begun batch
 * @b:		the batch
 * @op:		the operation, copied
 */
static inline void uvm_ce_batch_push(struct uvm_ce_batch *b, const struct uvm_ce_op *op)
{
	b->ops[b->nops++] = *op;
}

/*
 * May @op be appended to @last as more bytes of one run: both single runs
 * of the same kind, @op's bytes right after @last's on each side in the
 * engine's addresses, the run no longer than UVM_CE_RUN_MAX (a MEMSET's
 * pattern continues only after whole 64-bit elements), and, for a COPY, the
 * joined destination and source disjoint, so that the engine copying the
 * run at once writes what copying @last then @op would?
 */
static inline bool uvm_ce_op_next_bytes(const struct uvm_ce_op *last, const struct uvm_ce_op *op)
{
	u64 len = (u64)last->size + op->size;
	bool copy = op->type == UVM_CE_COPY;

	if (op->type != last->type || last->rows > 1 || op->rows > 1 ||
	    len > UVM_CE_RUN_MAX ||
	    op->dst.aperture != last->dst.aperture || op->dst.gpu != last->dst.gpu ||
	    op->dst.addr != last->dst.addr + last->size)
		return false;
	if (!copy)
		return op->value == last->value && IS_ALIGNED(last->size, sizeof(u64));
	if (op->src.aperture != last->src.aperture || op->src.gpu != last->src.gpu ||
	    op->src.addr != last->src.addr + last->size)
		return false;
	return op->dst.aperture != op->src.aperture || op->dst.gpu != op->src.gpu ||
	       last->dst.addr + len <= last->src.addr ||
	       last->src.addr + len <= last->dst.addr;
}

/**
 * uvm_ce_batch_push_run() - gather a run, joined to the last one if it goes on
 * @b:		the batch, begun
 * @op:		a run of bytes (no rows)
 *
 * A run that starts where the last operation ends, on both sides, becomes
 * more bytes of that operation (uvm_ce_op_next_bytes()): the pieces of a
 * long copy split at pages, or consecutive small copies of a batch between
 * the same memories, are a few operations for the engine, not one each.
 */
static inline void uvm_ce_batch_push_run(struct uvm_ce_batch *b, const struct uvm_ce_op *op)
{
	struct uvm_ce_op *last = b->nops ? &b->ops[b->nops - 1] : NULL;

	if (last && uvm_ce_op_next_bytes(last, op)) {
		last->size += op->size;
		return;
	}
	uvm_ce_batch_push(b, op);
}

void uvm_ce_batch_push_row(struct uvm_ce_batch *b, const struct uvm_ce_op *op,
			   u64 dst_pitch, u64 src_pitch);
int uvm_ce_batch_flush(struct uvm_ce_batch *b);

#endif /* _UVM_CE_H_ */
