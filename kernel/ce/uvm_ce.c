// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Batches of copy-engine operations.
 *
 * DOC: Copy-engine batches
 *
 * Migrations, copies and memsets gather copy-engine operations for one GPU
 * into a batch and submit it in one go.  A batch flushes itself when full or
 * when the next operation is for another GPU's engine.  System pages are
 * mapped for the engine (sysmem_map) as operations are gathered and
 * released once the engine completed them.  A flush waits for the engine:
 * the copy engine always completes, so the wait is uninterruptible and
 * bounded.
 *
 * Locking: a batch belongs to one thread; callers hold whatever lock keeps
 * the memory behind the operations in place (a block lock) until the flush.
 */
#include <linux/string.h>

#include "uvm_ce.h"
#include "uvm_gpu.h"

/**
 * uvm_ce_batch_flush() - submit the gathered operations and wait for them
 * @b:		the batch
 *
 * Return: 0 or the -errno of the submission (nothing was done then).
 */
int uvm_ce_batch_flush(struct uvm_ce_batch *b)
{
	struct uvm_gpu *gpu = b->gpu;
	u64 seqno;
	int ret = 0;
	u32 i;

	if (!gpu)
		return 0;
	if (b->nops) {
		ret = gpu->ops->ce_submit(gpu, b->ops, b->nops, &seqno);
		if (!ret)
			gpu->ops->ce_wait(gpu, seqno);
	}
	for (i = 0; i < b->ndma; i++)
		gpu->ops->sysmem_unmap(gpu, b->dma[i]);
	b->nops = 0;
	b->ndma = 0;
	b->gpu = NULL;
	return ret;
}

/**
 * uvm_ce_batch_make_room() - uvm_ce_batch_begin() when it may have to flush
 * @b:		the batch
 * @gpu:	the engine to use
 *
 * Return: 0 or the -errno of the flush.
 */
int uvm_ce_batch_make_room(struct uvm_ce_batch *b, struct uvm_gpu *gpu)
{
	int ret;

	/*
	 * Flush (and wait for the engine) when the next operation may not fit:
	 * its slot, or the system-page mappings of its two sides, which rows
	 * joined to a strided operation add without taking a slot.
	 */
	if (b->nops == UVM_CE_BATCH_OPS || b->ndma + 2 > ARRAY_SIZE(b->dma) ||
	    (b->gpu && b->gpu != gpu)) {
		ret = uvm_ce_batch_flush(b);
		if (ret)
			return ret;
	}
	b->gpu = gpu;
	return 0;
}

/**
 * uvm_ce_batch_sysmem() - a system page as the batch's engine sees it
 * @b:		the batch, begun
 * @page:	the page
 * @addr:	out
 *
 * Return: 0 or -errno.
 */
int uvm_ce_batch_sysmem(struct uvm_ce_batch *b, struct page *page,
			struct uvm_gpu_address *addr)
{
	u64 dma;
	int ret;

	ret = b->gpu->ops->sysmem_map(b->gpu, page, &dma);
	if (ret)
		return ret;
	b->dma[b->ndma++] = dma;
	*addr = (struct uvm_gpu_address){ .addr = dma, .aperture = UVM_APERTURE_SYS };
	return 0;
}

/*
 * Does @op continue @last as its next rows: same kind, length and memories,
 * at @dst_pitch (and @src_pitch) bytes from @last's last row in the
 * engine's addresses, the box's pitches, which says the memory is laid out
 * there as the box is?  (@op's own rows, if several, at the same pitches.)
 */
static bool uvm_ce_op_next_row(const struct uvm_ce_op *last, const struct uvm_ce_op *op,
			       u64 dst_pitch, u64 src_pitch)
{
	u64 rows = last->rows ? last->rows : 1;
	bool copy = op->type == UVM_CE_COPY;

	if (op->type != last->type || op->size != last->size ||
	    (op->rows > 1 && (op->dst_pitch != dst_pitch ||
			      (copy && op->src_pitch != src_pitch))) ||
	    rows + (op->rows ? op->rows : 1) > UVM_CE_ROWS_MAX ||
	    dst_pitch < op->size || (copy && src_pitch < op->size) ||
	    (last->rows > 1 && (last->dst_pitch != dst_pitch ||
				(copy && last->src_pitch != src_pitch))) ||
	    op->dst.aperture != last->dst.aperture || op->dst.gpu != last->dst.gpu ||
	    (!copy && op->value != last->value) ||
	    (copy && (op->src.aperture != last->src.aperture ||
		      op->src.gpu != last->src.gpu)))
		return false;
	return op->dst.addr == last->dst.addr + rows * dst_pitch &&
	       (!copy || op->src.addr == last->src.addr + rows * src_pitch);
}

/**
 * uvm_ce_batch_push_row() - gather the next row of a strided copy or set
 * @b:		the batch, begun
 * @op:		one row (or part of one) of at most a page, or rows of one
 *		page on each side at the box's pitches
 * @dst_pitch:	the box's destination pitch
 * @src_pitch:	the box's source pitch (copies)
 *
 * The row joins the last operation as one more row when it lies one pitch
 * after that operation's last row on both sides, in the engine's addresses
 * (contiguous memory: device memory, rows sharing a system page), so that
 * a box of short rows is a few strided operations the engine walks, not one
 * operation per row.  The pieces of a long row join as one run where its
 * memory is contiguous (uvm_ce_batch_push_run()), and such rows again as
 * rows of one operation.  An operation never spans more than its rows at the
 * box's pitches, nor more than UVM_CE_ROWS_MAX rows.
 */
void uvm_ce_batch_push_row(struct uvm_ce_batch *b, const struct uvm_ce_op *op,
			   u64 dst_pitch, u64 src_pitch)
{
	struct uvm_ce_op *last = b->nops ? &b->ops[b->nops - 1] : NULL;

	if (last && uvm_ce_op_next_row(last, op, dst_pitch, src_pitch)) {
		if (last->rows <= 1) {
			last->dst_pitch = dst_pitch;
			last->src_pitch = op->type == UVM_CE_COPY ? src_pitch : 0;
			last->rows = 1;
		}
		last->rows += op->rows > 1 ? op->rows : 1;
		return;
	}
	/* the next piece of a long row, where the memory goes on */
	if (last && uvm_ce_op_next_bytes(last, op)) {
		last->size += op->size;
		return;
	}
	uvm_ce_batch_push(b, op);
}
