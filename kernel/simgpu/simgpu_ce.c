// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * simgpu_ce.c - the copy engine of the simulated GPU.
 *
 * DOC: simulated copy engine
 *
 * One copy engine per GPU executes submissions (arrays of COPY and MEMSET
 * operations between any GPU physical addresses: own vidmem, peer vidmem,
 * system memory) strictly in submission order.  Each submission gets the
 * next per-GPU sequence number; &simgpu_ce.completed holds the last one
 * completed and only grows.  ce_wait() sleeps (uninterruptibly: the engine
 * always completes) until it passes a sequence number, ce_done() tests it.
 *
 * Execution is page by page between kmapped host pages (every aperture is
 * host memory underneath).  A MEMSET writes the 64-bit value repeatedly,
 * byte i of the destination taking byte i mod 8 of the value (little
 * endian).
 *
 * Two execution paths, with the same completion semantics:
 *
 *  - queued: the submission is copied into a &struct simgpu_ce_entry and run
 *    by the engine's work item on an ordered WQ_MEM_RECLAIM workqueue (it
 *    always makes progress, even under memory pressure);
 *  - inline (``ce_inline=1``, the default): when the engine is idle (nothing
 *    queued, nothing executing), the submitter executes its submission
 *    itself before ce_submit() returns, saving a context switch per copy.
 *    Submissions arriving meanwhile queue behind it.
 *
 * ce_submit() allocates its queue entry with GFP_NOWAIT (it is called under
 * the core's locks).  If that fails it waits for the engine to go idle and
 * executes inline: it never fails for lack of memory.
 *
 * Locking: &simgpu_ce.lock (spinlock, leaf) protects the queue, the last
 * submitted sequence number and the busy flag; it is never held while data
 * is copied.  &simgpu_ce.completed is written with release semantics after
 * the data is in place and read with acquire semantics.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "simgpu_internal.h"

#define SIMGPU_CE_GFP	(GFP_NOWAIT | __GFP_NOWARN)

/**
 * struct simgpu_ce_entry - a queued copy-engine submission
 * @node:	on &simgpu_ce.queue
 * @seqno:	its sequence number
 * @count:	number of @ops
 * @ops:	the operations, copied from the submitter
 */
struct simgpu_ce_entry {
	struct list_head node;
	u64 seqno;
	u32 count;
	struct uvm_ce_op ops[];
};

/**
 * simgpu_ce_fill() - write a MEMSET pattern into mapped memory
 * @dst: destination
 * @len: bytes
 * @value: the 64-bit pattern
 * @pos: offset of @dst from the start of the MEMSET operation
 *
 * Context: any.
 */
static void simgpu_ce_fill(u8 *dst, u32 len, u64 value, u64 pos)
{
	u32 i;

	if (IS_ALIGNED((unsigned long)dst | len | pos, sizeof(u64))) {
		memset64((u64 *)dst, value, len / sizeof(u64));
		return;
	}
	for (i = 0; i < len; i++)
		dst[i] = value >> (8 * ((pos + i) % sizeof(u64)));
}

/**
 * simgpu_ce_exec_run() - execute one run (a row) of an operation
 * @op: the operation, validated by simgpu_ce_check()
 * @dst0: the run's first destination byte
 * @src0: the run's first source byte (COPY)
 *
 * Context: process; no lock held; does not sleep.
 */
static void simgpu_ce_exec_run(const struct uvm_ce_op *op, u64 dst0, u64 src0)
{
	struct page *dpage, *spage = NULL;
	u64 done, dst, src;
	u8 *d, *s;
	u32 len;

	for (done = 0; done < op->size; done += len) {
		dst = dst0 + done;
		src = src0 + done;
		len = min_t(u64, op->size - done, PAGE_SIZE - offset_in_page(dst));
		if (op->type == UVM_CE_COPY)
			len = min_t(u32, len, PAGE_SIZE - offset_in_page(src));

		dpage = simgpu_phys_page(op->dst.aperture, op->dst.gpu, dst);
		if (op->type == UVM_CE_COPY)
			spage = simgpu_phys_page(op->src.aperture, op->src.gpu,
						 src);
		if (WARN_ON_ONCE(!dpage || (op->type == UVM_CE_COPY && !spage)))
			continue;

		d = kmap_local_page(dpage);
		if (op->type == UVM_CE_COPY) {
			s = kmap_local_page(spage);
			memcpy(d + offset_in_page(dst), s + offset_in_page(src),
			       len);
			kunmap_local(s);
		} else {
			simgpu_ce_fill(d + offset_in_page(dst), len, op->value,
				       done);
		}
		kunmap_local(d);
	}
}

/**
 * simgpu_ce_exec_op() - execute one operation, walking its rows
 * @op: the operation, validated by simgpu_ce_check()
 *
 * Context: process; no lock held; does not sleep.
 */
static void simgpu_ce_exec_op(const struct uvm_ce_op *op)
{
	u32 r, rows = op->rows ? op->rows : 1;

	for (r = 0; r < rows; r++)
		simgpu_ce_exec_run(op, op->dst.addr + r * op->dst_pitch,
				   op->src.addr + r * op->src_pitch);
}

/**
 * simgpu_ce_exec() - execute a submission and count it
 * @ce: the copy engine
 * @ops: operations
 * @count: number of @ops
 *
 * Context: process; no lock held; reschedules between operations (a
 * submission of strided operations runs for a while on an emulated CPU).
 */
static void simgpu_ce_exec(struct simgpu_ce *ce, const struct uvm_ce_op *ops,
			   u32 count)
{
	u64 copied = 0, set = 0;
	u32 i;

	for (i = 0; i < count; i++) {
		u64 bytes = (u64)ops[i].size * (ops[i].rows ? ops[i].rows : 1);

		simgpu_ce_exec_op(&ops[i]);
		cond_resched();
		if (ops[i].type == UVM_CE_COPY)
			copied += bytes;
		else
			set += bytes;
	}
	/* counted once per submission: atomics are dear under emulation */
	if (copied)
		atomic64_add(copied, &ce->bytes_copied);
	if (set)
		atomic64_add(set, &ce->bytes_set);
	atomic64_add(count, &ce->ops);
}

/**
 * simgpu_ce_complete() - publish the completion of the executing submission
 * @ce: the copy engine, busy
 * @seqno: sequence number of the submission
 * @kick: queue the worker if submissions wait (caller is not the worker)
 *
 * Context: process; takes &simgpu_ce.lock.
 */
static void simgpu_ce_complete(struct simgpu_ce *ce, u64 seqno, bool kick)
{
	spin_lock(&ce->lock);
	ce->busy = false;
	atomic64_set_release(&ce->completed, seqno);
	kick = kick && !list_empty(&ce->queue);
	spin_unlock(&ce->lock);

	wake_up_all(&ce->done_wq);
	if (kick)
		queue_work(ce->wq, &ce->work);
}

/**
 * simgpu_ce_work() - the engine: execute queued submissions in order
 * @work: &simgpu_ce.work
 *
 * Returns when the queue is empty or an inline submitter owns the engine
 * (which queues this work again when it completes).
 *
 * Context: ordered workqueue.
 */
static void simgpu_ce_work(struct work_struct *work)
{
	struct simgpu_ce *ce = container_of(work, struct simgpu_ce, work);
	struct simgpu_ce_entry *entry;

	for (;;) {
		spin_lock(&ce->lock);
		if (ce->busy || list_empty(&ce->queue)) {
			spin_unlock(&ce->lock);
			return;
		}
		entry = list_first_entry(&ce->queue, struct simgpu_ce_entry,
					 node);
		list_del(&entry->node);
		ce->busy = true;
		spin_unlock(&ce->lock);

		simgpu_ce_exec(ce, entry->ops, entry->count);
		simgpu_ce_complete(ce, entry->seqno, false);
		kfree(entry);
		cond_resched();
	}
}

/**
 * simgpu_ce_idle() - is the engine idle?
 * @ce: the copy engine
 *
 * Context: process; takes &simgpu_ce.lock.
 * Return: true when nothing is queued or executing.
 */
static bool simgpu_ce_idle(struct simgpu_ce *ce)
{
	bool idle;

	spin_lock(&ce->lock);
	idle = !ce->busy && list_empty(&ce->queue);
	spin_unlock(&ce->lock);
	return idle;
}

/**
 * simgpu_ce_addr_ok() - does a range of GPU physical addresses exist?
 * @a: start
 * @size: bytes, > 0
 *
 * Context: any.
 * Return: true when the first and last byte (and, for SYS, every page) are
 * backed.
 */
static bool simgpu_ce_addr_ok(const struct uvm_gpu_address *a, u64 size)
{
	u64 addr;

	if (a->addr + size < a->addr)
		return false;
	/* A vidmem chunk is backed whole: one check when both ends share one. */
	if (a->aperture == UVM_APERTURE_VID)
		return simgpu_phys_valid(a->aperture, a->gpu, a->addr) &&
		       ((a->addr ^ (a->addr + size - 1)) >> SIMGPU_CHUNK_SHIFT == 0 ||
			simgpu_phys_valid(a->aperture, a->gpu,
					  a->addr + size - 1));
	for (addr = a->addr & PAGE_MASK; addr < a->addr + size;
	     addr += PAGE_SIZE)
		if (!simgpu_phys_valid(a->aperture, a->gpu, addr))
			return false;
	return true;
}

/**
 * simgpu_ce_check() - validate a submission from the core
 * @ops: operations
 * @count: number of @ops
 *
 * Context: any.
 * Return: true when every operation is well formed and addresses memory that
 * exists.
 */
static bool simgpu_ce_check(const struct uvm_ce_op *ops, u32 count)
{
	u32 i;

	for (i = 0; i < count; i++) {
		const struct uvm_ce_op *op = &ops[i];
		u64 last = op->rows > 1 ? op->rows - 1 : 0;
		bool copy = op->type == UVM_CE_COPY;

		if (!op->size || (!copy && op->type != UVM_CE_MEMSET))
			return false;
		/* rows that do not overlap, the whole extent in memory */
		if (last && (op->dst_pitch < op->size || (copy && op->src_pitch < op->size)))
			return false;
		if (!simgpu_ce_addr_ok(&op->dst, last * op->dst_pitch + op->size))
			return false;
		if (copy && !simgpu_ce_addr_ok(&op->src, last * op->src_pitch + op->size))
			return false;
	}
	return true;
}

/**
 * simgpu_ce_run_inline() - execute a submission in the caller's context
 * @ce: the copy engine, idle
 * @ops: operations
 * @count: number of @ops
 *
 * Context: process; &simgpu_ce.lock held on entry, released on return.
 * Return: the submission's sequence number, completed.
 */
static u64 simgpu_ce_run_inline(struct simgpu_ce *ce,
				const struct uvm_ce_op *ops, u32 count)
	__releases(&ce->lock)
{
	u64 seqno;

	lockdep_assert_held(&ce->lock);
	seqno = ++ce->submitted;
	ce->busy = true;
	spin_unlock(&ce->lock);

	simgpu_ce_exec(ce, ops, count);
	atomic64_inc(&ce->inline_count);
	simgpu_ce_complete(ce, seqno, true);
	return seqno;
}

/**
 * simgpu_ce_submit() - &uvm_gpu_ops.ce_submit
 * @gpu: the GPU
 * @ops: operations, copied before return
 * @count: number of @ops, > 0
 * @seqno: set to the sequence number completing with the last operation
 *
 * Context: process, no spinlock held.  Does not sleep except when memory is
 * short (it then waits for the engine to go idle, a bounded wait).
 * Return: 0, or -EINVAL (with a warning, a core bug) for a malformed
 * operation or one addressing memory that does not exist.
 */
int simgpu_ce_submit(struct uvm_gpu *gpu, const struct uvm_ce_op *ops,
		     u32 count, u64 *seqno)
{
	struct simgpu_ce *ce = &((struct simgpu *)uvm_gpu_hw(gpu))->ce;
	struct simgpu_ce_entry *entry = NULL;
	bool run_inline = READ_ONCE(simgpu_ce_inline);

	if (WARN_ON_ONCE(!count || !simgpu_ce_check(ops, count)))
		return -EINVAL;

	for (;;) {
		spin_lock(&ce->lock);
		if (run_inline && !ce->busy && list_empty(&ce->queue)) {
			kfree(entry);
			*seqno = simgpu_ce_run_inline(ce, ops, count);
			return 0;
		}
		if (entry) {
			entry->seqno = ++ce->submitted;
			list_add_tail(&entry->node, &ce->queue);
			*seqno = entry->seqno;
			spin_unlock(&ce->lock);
			queue_work(ce->wq, &ce->work);
			return 0;
		}
		spin_unlock(&ce->lock);

		entry = kmalloc(struct_size(entry, ops, count), SIMGPU_CE_GFP);
		if (entry) {
			entry->count = count;
			memcpy(entry->ops, ops, array_size(count, sizeof(*ops)));
			continue;
		}
		/* No memory for an entry: execute inline once idle. */
		run_inline = true;
		wait_event(ce->done_wq, simgpu_ce_idle(ce));
	}
}

/**
 * simgpu_ce_done() - &uvm_gpu_ops.ce_done
 * @gpu: the GPU
 * @seqno: a sequence number from simgpu_ce_submit()
 *
 * Context: any.
 * Return: true when the submission @seqno (and every earlier one) completed;
 * its data is then visible to the caller.
 */
bool simgpu_ce_done(struct uvm_gpu *gpu, u64 seqno)
{
	struct simgpu_ce *ce = &((struct simgpu *)uvm_gpu_hw(gpu))->ce;

	return atomic64_read_acquire(&ce->completed) >= seqno;
}

/**
 * simgpu_ce_wait() - &uvm_gpu_ops.ce_wait
 * @gpu: the GPU
 * @seqno: a sequence number from simgpu_ce_submit()
 *
 * Context: process, may sleep (uninterruptibly, until the engine completes
 * @seqno, which it always does).
 */
void simgpu_ce_wait(struct uvm_gpu *gpu, u64 seqno)
{
	struct simgpu_ce *ce = &((struct simgpu *)uvm_gpu_hw(gpu))->ce;

	if (WARN_ON_ONCE(seqno > READ_ONCE(ce->submitted)))
		return;
	wait_event(ce->done_wq, simgpu_ce_done(gpu, seqno));
}

/**
 * simgpu_ce_init() - set up the copy engine of a GPU
 * @sg: the GPU
 *
 * Context: process, may sleep.
 * Return: 0 or -ENOMEM.
 */
int simgpu_ce_init(struct simgpu *sg)
{
	struct simgpu_ce *ce = &sg->ce;

	spin_lock_init(&ce->lock);
	INIT_LIST_HEAD(&ce->queue);
	ce->submitted = 0;
	ce->busy = false;
	atomic64_set(&ce->completed, 0);
	init_waitqueue_head(&ce->done_wq);
	INIT_WORK(&ce->work, simgpu_ce_work);
	ce->wq = alloc_ordered_workqueue("simgpu%u_ce",
					 WQ_MEM_RECLAIM | WQ_HIGHPRI, sg->id);
	if (!ce->wq)
		return -ENOMEM;
	return 0;
}

/**
 * simgpu_ce_fini() - drain and destroy the copy engine of a GPU
 * @sg: the GPU, unregistered: nobody submits anymore
 *
 * Context: process, may sleep.
 */
void simgpu_ce_fini(struct simgpu *sg)
{
	struct simgpu_ce *ce = &sg->ce;

	if (!ce->wq)
		return;
	destroy_workqueue(ce->wq);
	ce->wq = NULL;
	WARN_ON(!list_empty(&ce->queue) || ce->busy);
}
