// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Copies and memsets through a GPU's copy engine.
 *
 * DOC: Copies and memsets
 *
 * UVM_IOC_COPY and UVM_IOC_MEMSET (cuMemcpy*, cuMemset*) run on the copy
 * engine of the caller's GPU, as jobs of the VA space's ordered queue, so
 * they are stream ordered with migrations and each other.  Each side of a
 * copy (the destination of a memset) is classified when the ioctl runs:
 *
 * - managed memory: the pages are served as an access of that GPU would be
 *   (a read for the source, a write for the destination; the memory policy
 *   decides where they are), under their block lock, and the engine uses the
 *   copy that GPU would map;
 * - device memory: the owner's vidmem (a peer access from another GPU);
 * - registered host memory: its pinned pages;
 * - VMM memory: every byte of the side must be mapped, and the copying GPU
 *   must have the right (read for the source, write for the destination)
 *   there; the engine uses the allocation's memory;
 * - ordinary process memory: its pages are pinned when the ioctl runs and
 *   unpinned when the job has run.
 *
 * UVM_IOC_COPY_3D and UVM_IOC_MEMSET_3D (cuMemcpy2D/3D, cuMemsetD2D*) are
 * the same job over a box: @depth slices of @height rows of @width bytes,
 * placed on each side by its pitch and slice pitch.  A copy is a sequence
 * of bytes numbered by their offset in the box; a 1D copy is a box of one
 * row.
 *
 * A side's span (first byte to last byte of the last row) lies wholly in
 * one allocation or wholly outside all of them.  The work proceeds in
 * windows of consecutive box bytes whose addresses, on either side, stay
 * inside one 2 MiB block (many short rows, or part of a long one); a window
 * locks the block of each managed side (the lower address first when both
 * are managed and distinct, see uvm_lock.h), serves the pages its rows
 * touch, gathers one engine operation per piece that crosses no page or row
 * boundary, and waits for the engine.  A side whose allocation went away
 * before the job ran fails the job with -EFAULT.
 *
 * Locking: the VA space lock for read during a job; block locks per window.
 */
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "uvm_ce.h"
#include "uvm_copy.h"
#include "uvm_gpu.h"
#include "uvm_pin.h"
#include "uvm_queue.h"
#include "uvm_va_block.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

/**
 * struct uvm_copy_side - one side of a copy
 * @addr:	first byte
 * @pitch:	bytes from a row to the next (rows > 1)
 * @slice_pitch: bytes from a slice to the next (slices > 1)
 * @span:	bytes from @addr to the end of the last row
 * @kind:	enum uvm_va_range_kind, or 0 for ordinary process memory
 * @first:	pinned process memory: address of the first page
 * @npages:	pinned process memory: pages pinned
 * @pages:	pinned process memory: the pages
 */
struct uvm_copy_side {
	u64 addr;
	u64 pitch;
	u64 slice_pitch;
	u64 span;
	u32 kind;
	u64 first;
	u64 npages;
	struct page **pages;
};

/**
 * struct uvm_copy_job - a validated copy or memset
 * @job:	the queue's part; weight = pages
 * @gpu:	the GPU whose engine works
 * @length:	bytes: @width * @height * @depth
 * @width:	bytes per row
 * @height:	rows per slice
 * @depth:	slices
 * @is_memset:	a memset: @src unused
 * @pattern:	memset: the element replicated to 64 bits
 * @dst:	destination
 * @src:	source
 */
struct uvm_copy_job {
	struct uvm_job job;
	struct uvm_gpu *gpu;
	u64 length;
	u64 width;
	u32 height;
	u32 depth;
	bool is_memset;
	u64 pattern;
	struct uvm_copy_side dst;
	struct uvm_copy_side src;
};

/**
 * struct uvm_copy_window - the state of the window being copied
 * @block:	per side (dst, src): the block of a managed side (both the
 *		same block when the sides share it)
 * @range:	per side: the allocation, NULL for process memory
 * @vmm:	per side: the mapping of a VMM side
 * @locked:	the distinct blocks locked, in locking order
 */
struct uvm_copy_window {
	struct uvm_va_block *block[2];
	struct uvm_va_range *range[2];
	struct uvm_vmm_mapping *vmm[2];
	struct uvm_va_block *locked[2];
};

static inline struct uvm_copy_job *to_uvm_copy_job(struct uvm_job *job)
{
	return container_of(job, struct uvm_copy_job, job);
}

static void uvm_copy_side_unpin(struct uvm_copy_side *side, bool written)
{
	if (!side->pages)
		return;
	uvm_unpin_user_pages_dirty_lock(side->pages, side->npages, written);
	kvfree(side->pages);
	side->pages = NULL;
}

static void uvm_copy_job_free(struct uvm_job *j)
{
	struct uvm_copy_job *job = to_uvm_copy_job(j);

	uvm_copy_side_unpin(&job->dst, true);
	uvm_copy_side_unpin(&job->src, false);
	kfree(job);
}

/* Execution */

/**
 * uvm_copy_addr() - the address of a byte of the box on one side
 * @job:	the job
 * @side:	the side
 * @off:	the byte's offset in the box, below @job->length
 *
 * Return: the address.
 */
static u64 uvm_copy_addr(const struct uvm_copy_job *job,
			 const struct uvm_copy_side *side, u64 off)
{
	u64 row, col;
	u32 y;

	if (job->height == 1 && job->depth == 1)
		return side->addr + off;
	row = div64_u64_rem(off, job->width, &col);
	row = div_u64_rem(row, job->height, &y);
	return side->addr + row * side->slice_pitch + (u64)y * side->pitch + col;
}

/* Bytes from box offset @off to the end of its row. */
static u64 uvm_copy_row_left(const struct uvm_copy_job *job, u64 off)
{
	u64 col;

	div64_u64_rem(off, job->width, &col);
	return job->width - col;
}

/**
 * uvm_copy_side_addr() - the engine's address of a byte of one side
 * @job:	the job
 * @win:	the window
 * @side:	0 for the destination, 1 for the source
 * @b:		the batch, begun
 * @va:		the byte
 * @addr:	out
 *
 * Return: 0 or -errno.
 */
static int uvm_copy_side_addr(struct uvm_copy_job *job, struct uvm_copy_window *win,
			      int side, struct uvm_ce_batch *b, u64 va,
			      struct uvm_gpu_address *addr)
{
	struct uvm_copy_side *s = side ? &job->src : &job->dst;
	struct uvm_va_range *range = win->range[side];
	struct page *page;
	int ret;

	switch (s->kind) {
	case UVM_RANGE_MANAGED:
		ret = uvm_va_block_copy_addr(win->block[side], b, job->gpu,
					     uvm_va_block_page_index(win->block[side], va),
					     addr);
		break;
	case UVM_RANGE_DEVICE:
		*addr = uvm_device_range_phys(range, va & PAGE_MASK);
		return 0;
	case UVM_RANGE_HOST:
		page = uvm_host_range_page(range, va);
		ret = uvm_ce_batch_sysmem(b, page, addr);
		break;
	case UVM_RANGE_VMM:
		return uvm_vmm_copy_addr(win->vmm[side], va & PAGE_MASK, job->gpu, addr);
	default:
		page = s->pages[((va & PAGE_MASK) - s->first) >> PAGE_SHIFT];
		ret = uvm_ce_batch_sysmem(b, page, addr);
		break;
	}
	return ret;
}

/**
 * uvm_copy_window_lock() - find the allocations and lock the managed blocks
 * @va_space:	the VA space; its lock held for read
 * @job:	the job
 * @win:	out
 * @off:	offset of the window into the box
 * @len:	its bytes
 *
 * Return: 0, -EFAULT when an allocation is gone, -ENOMEM.
 */
static int uvm_copy_window_lock(struct uvm_va_space *va_space,
				struct uvm_copy_job *job,
				struct uvm_copy_window *win, u64 off, u64 len)
{
	struct uvm_copy_side *sides[2] = { &job->dst, &job->src };
	int n = job->is_memset ? 1 : 2;
	int i;

	memset(win, 0, sizeof(*win));
	for (i = 0; i < n; i++) {
		u64 va = uvm_copy_addr(job, sides[i], off);
		u64 last = uvm_copy_addr(job, sides[i], off + len - 1);

		if (!sides[i]->kind)
			continue;
		win->range[i] = uvm_va_range_find(va_space, va);
		if (!win->range[i] || win->range[i]->kind != sides[i]->kind ||
		    uvm_va_range_end(win->range[i]) <= last)
			return -EFAULT;
		if (sides[i]->kind == UVM_RANGE_VMM) {
			/*
			 * A window crosses no 2 MiB boundary: one granule of
			 * one mapping, whose rights may have changed since the
			 * job was queued.
			 */
			win->vmm[i] = uvm_vmm_mapping_find(win->range[i], va);
			if (!win->vmm[i])
				return -EFAULT;
			if (uvm_vmm_check_span(win->range[i], va, va + 1, job->gpu, !i))
				return -EPERM;
		}
		if (sides[i]->kind != UVM_RANGE_MANAGED)
			continue;
		win->block[i] = uvm_va_block_get_or_create(va_space, va);
		if (IS_ERR(win->block[i])) {
			win->block[i] = NULL;
			return -ENOMEM;
		}
	}
	win->locked[0] = win->block[0] ? win->block[0] : win->block[1];
	if (win->block[0] && win->block[1] && win->block[1] != win->block[0])
		win->locked[1] = win->block[1];

	/* Two blocks: the lower address first (uvm_lock.h). */
	if (win->locked[1] && win->locked[1]->start < win->locked[0]->start)
		swap(win->locked[0], win->locked[1]);
	if (win->locked[0])
		mutex_lock(&win->locked[0]->lock);
	if (win->locked[1])
		mutex_lock_nested(&win->locked[1]->lock, SINGLE_DEPTH_NESTING);
	return 0;
}

static void uvm_copy_window_unlock(struct uvm_copy_window *win)
{
	if (win->locked[1])
		mutex_unlock(&win->locked[1]->lock);
	if (win->locked[0])
		mutex_unlock(&win->locked[0]->lock);
}

/**
 * uvm_copy_window_serve() - serve the managed pages of a window
 * @job:	the job
 * @win:	the window, locked
 * @ctx:	scratch space
 * @off:	offset of the window
 * @len:	its bytes
 *
 * The source is served before the destination, so that a copy within one
 * page ends with the destination's (write) residency.
 *
 * Return: 0 or -errno.
 */
static int uvm_copy_window_serve(struct uvm_copy_job *job, struct uvm_copy_window *win,
				 struct uvm_va_block_ctx *ctx, u64 off, u64 len)
{
	struct uvm_page_mask mask;
	u64 o, seg, a;
	int i, ret;

	for (i = job->is_memset ? 0 : 1; i >= 0; i--) {
		struct uvm_copy_side *side = i ? &job->src : &job->dst;
		struct uvm_va_block *block = win->block[i];

		if (!block)
			continue;
		/* the pages the window's rows touch, not the gaps between them */
		uvm_page_mask_zero(&mask);
		for (o = off; o < off + len; o += seg) {
			seg = min(uvm_copy_row_left(job, o), off + len - o);
			a = uvm_copy_addr(job, side, o);
			uvm_page_mask_set_range(&mask, uvm_va_block_page_index(block, a),
						uvm_va_block_page_index(block, a + seg - 1) + 1);
		}
		ret = uvm_va_block_serve_access(block, ctx, job->gpu, &mask, !i);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The engine's address of the page of @va on one side: looked up once per
 * page while the batch lasts (its system-page mappings go with it), so that
 * the short rows of a box sharing a page cost one lookup.
 */
static int uvm_copy_side_addr_cached(struct uvm_copy_job *job, struct uvm_copy_window *win,
				     int side, struct uvm_ce_batch *b, u64 va, u64 *page,
				     struct uvm_gpu_address *cached, struct uvm_gpu_address *addr)
{
	int ret = 0;

	if ((va & PAGE_MASK) != *page) {
		ret = uvm_copy_side_addr(job, win, side, b, va, cached);
		*page = ret ? 1 : va & PAGE_MASK;
	}
	*addr = *cached;
	addr->addr += offset_in_page(va);
	return ret;
}

/**
 * uvm_copy_window_run() - copy or fill one window
 * @job:	the job
 * @win:	the window, locked and served
 * @b:		a batch
 * @off:	offset of the window
 * @len:	its bytes
 *
 * Walks the window's rows (no division past the first byte), one piece per
 * part of a row that crosses no page on either side; the pieces of a box's
 * rows become strided operations (uvm_ce_batch_push_row()).
 *
 * Return: 0 or -errno.
 */
static int uvm_copy_window_run(struct uvm_copy_job *job, struct uvm_copy_window *win,
			       struct uvm_ce_batch *b, u64 off, u64 len)
{
	struct uvm_gpu_address cached[2] = {};
	u64 page[2] = { 1, 1 };	/* 1: nothing cached */
	bool rows = job->height > 1 || job->depth > 1;
	u64 end = off + len, piece, col, z, rd, rs, d, s;
	struct uvm_ce_op op;
	int ret = 0;
	u32 y;

	z = div_u64_rem(div64_u64_rem(off, job->width, &col), job->height, &y);
	rd = job->dst.addr + z * job->dst.slice_pitch + (u64)y * job->dst.pitch;
	rs = job->src.addr + z * job->src.slice_pitch + (u64)y * job->src.pitch;
	for (; off < end; off += piece) {
		d = rd + col;
		s = rs + col;
		piece = min3(end - off, job->width - col, PAGE_SIZE - offset_in_page(d));
		if (!job->is_memset)
			piece = min(piece, PAGE_SIZE - offset_in_page(s));

		memset(&op, 0, sizeof(op));
		op.size = piece;
		ret = uvm_ce_batch_begin(b, job->gpu);
		if (ret)
			break;
		if (!b->nops) {
			/* a new batch: map again */
			page[0] = 1;
			page[1] = 1;
		}
		ret = uvm_copy_side_addr_cached(job, win, 0, b, d, &page[0], &cached[0],
						&op.dst);
		if (job->is_memset) {
			op.type = UVM_CE_MEMSET;
			op.value = job->pattern;
		} else {
			op.type = UVM_CE_COPY;
			if (!ret)
				ret = uvm_copy_side_addr_cached(job, win, 1, b, s, &page[1],
								&cached[1], &op.src);
		}
		if (ret)
			break;
		/* the rows of a box: strided operations the engine walks */
		if (rows)
			uvm_ce_batch_push_row(b, &op, job->dst.pitch,
					      job->is_memset ? 0 : job->src.pitch);
		else
			uvm_ce_batch_push(b, &op);

		col += piece;
		if (col == job->width) {
			col = 0;
			if (++y == job->height) {
				y = 0;
				z++;
			}
			rd = job->dst.addr + z * job->dst.slice_pitch + (u64)y * job->dst.pitch;
			rs = job->src.addr + z * job->src.slice_pitch + (u64)y * job->src.pitch;
		}
	}
	if (!ret)
		return uvm_ce_batch_flush(b);
	uvm_ce_batch_flush(b);
	return ret;
}

/*
 * uvm_copy_window_len() - bytes of the window starting at box offset @off:
 * whole rows while both sides stay in the 2 MiB blocks of the window's
 * first bytes, or the part of one row up to a block boundary.  Addresses
 * grow with the offset (rows do not overlap), so the first row that leaves
 * a block ends the window.
 */
static u64 uvm_copy_window_len(struct uvm_copy_job *job, u64 off)
{
	u64 dend = round_down(uvm_copy_addr(job, &job->dst, off), UVM_VA_BLOCK_SIZE) +
		   UVM_VA_BLOCK_SIZE;
	u64 send = job->is_memset ? U64_MAX :
		   round_down(uvm_copy_addr(job, &job->src, off), UVM_VA_BLOCK_SIZE) +
		   UVM_VA_BLOCK_SIZE;
	u64 o = off, d, s, row, take;

	while (o < job->length) {
		d = uvm_copy_addr(job, &job->dst, o);
		s = job->is_memset ? 0 : uvm_copy_addr(job, &job->src, o);
		if (d >= dend || s >= send)
			break;
		row = min(uvm_copy_row_left(job, o), job->length - o);
		take = min3(row, dend - d, send - s);
		o += take;
		if (take < row)
			break;
	}
	return o - off;
}

/**
 * uvm_copy_job_run() - run a copy or memset
 * @va_space:	the VA space
 * @j:		the job
 *
 * Return: 0 or -errno.
 */
static int uvm_copy_job_run(struct uvm_va_space *va_space, struct uvm_job *j)
{
	struct uvm_copy_job *job = to_uvm_copy_job(j);
	struct uvm_va_block_ctx *ctx = uvm_va_block_ctx_alloc();
	struct uvm_ce_batch *b = kzalloc(sizeof(*b), GFP_KERNEL);
	struct uvm_copy_window win;
	u64 off, len;
	int ret = 0;

	if (!ctx || !b) {
		ret = -ENOMEM;
		goto out_free;
	}
	uvm_va_block_ctx_set_cause(ctx, UVM_NL_CAUSE_COPY);
	down_read(&va_space->lock);
	for (off = 0; off < job->length && !ret; off += len) {
		/*
		 * A big copy is thousands of windows: let others run between
		 * them, and a synchronous caller that is killed stop there.
		 */
		cond_resched();
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		len = uvm_copy_window_len(job, off);
		/* A full GPU: evict with the block locks dropped, then retry. */
		do {
			ret = uvm_copy_window_lock(va_space, job, &win, off, len);
			if (!ret)
				ret = uvm_copy_window_serve(job, &win, ctx, off, len);
			if (!ret)
				ret = uvm_copy_window_run(job, &win, b, off, len);
			uvm_copy_window_unlock(&win);
		} while (uvm_va_block_oom_evict(ctx, va_space, &ret));
	}
	up_read(&va_space->lock);
out_free:
	kfree(b);
	uvm_va_block_ctx_free(ctx);
	return ret;
}

static const struct uvm_job_ops uvm_copy_job_ops = {
	.run = uvm_copy_job_run,
	.free = uvm_copy_job_free,
};

/* Validation */

/**
 * uvm_copy_side_prepare() - classify one side, pin process memory
 * @va_space:	the VA space
 * @side:	the side; @side->addr and @side->span set
 * @gpu:	the GPU whose engine copies
 * @write:	the destination
 *
 * Return: 0; -EINVAL for a side partly inside an allocation, partly
 * unmapped VMM memory, or process memory spanning over UVM_COPY_MAX_BYTES;
 * -EPERM to write read-only registered memory, or VMM memory @gpu may not
 * access so; -EFAULT for process memory that cannot be pinned; -ENOMEM.
 */
static int uvm_copy_side_prepare(struct uvm_va_space *va_space,
				 struct uvm_copy_side *side,
				 struct uvm_gpu *gpu, bool write)
{
	u64 end = side->addr + side->span;
	struct uvm_va_range *range;
	long pinned;
	int ret = 0;

	down_read(&va_space->lock);
	range = uvm_va_range_find(va_space, side->addr);
	if (range) {
		side->kind = range->kind;
		if (uvm_va_range_end(range) < end)
			ret = -EINVAL;
		else if (write && range->kind == UVM_RANGE_HOST && range->host.read_only)
			ret = -EPERM;
		else if (range->kind == UVM_RANGE_VMM)
			ret = uvm_vmm_check_span(range, side->addr, end, gpu, write);
	} else if (interval_tree_iter_first(&va_space->ranges, side->addr, end - 1)) {
		ret = -EINVAL;
	}
	up_read(&va_space->lock);
	if (ret || range)
		return ret;
	if (side->span > UVM_COPY_MAX_BYTES)
		return -EINVAL;

	side->first = round_down(side->addr, PAGE_SIZE);
	side->npages = (round_up(end, PAGE_SIZE) - side->first) >> PAGE_SHIFT;
	side->pages = kvmalloc_array(side->npages, sizeof(*side->pages),
				     GFP_KERNEL_ACCOUNT);
	if (!side->pages)
		return -ENOMEM;
	pinned = uvm_pin_user_pages_fast(side->first, side->npages,
					 write ? FOLL_WRITE : 0, side->pages);
	if (pinned == side->npages)
		return 0;
	if (pinned > 0)
		uvm_unpin_user_pages(side->pages, pinned);
	kvfree(side->pages);
	side->pages = NULL;
	return -EFAULT;
}

/**
 * uvm_copy_submit() - validate and queue a copy or memset job
 * @va_space:	the VA space
 * @job:	the job, its fields set; freed on failure
 * @flags:	UVM_COPY_*
 * @fence:	out
 *
 * Return: 0 or -errno.
 */
static int uvm_copy_submit(struct uvm_va_space *va_space, struct uvm_copy_job *job,
			   u32 flags, u64 *fence)
{
	int ret;

	job->job.ops = &uvm_copy_job_ops;
	job->job.weight = (job->length >> PAGE_SHIFT) + 1;
	ret = uvm_copy_side_prepare(va_space, &job->dst, job->gpu, true);
	if (!ret && !job->is_memset)
		ret = uvm_copy_side_prepare(va_space, &job->src, job->gpu, false);
	if (ret) {
		uvm_copy_job_free(&job->job);
		return ret;
	}
	ret = uvm_queue_submit(&va_space->queue, &job->job,
			       !(flags & UVM_COPY_ASYNC), fence);
	if (ret || (flags & UVM_COPY_ASYNC))
		return ret;
	return uvm_queue_wait(&va_space->queue, *fence, false);
}

static bool uvm_copy_overlap(u64 a, u64 b, u64 len)
{
	return a != b && a < b + len && b < a + len;
}

/**
 * uvm_ioc_copy() - UVM_IOC_COPY
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_copy
 *
 * Return: see the uapi.
 */
int uvm_ioc_copy(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_copy *args = data;
	struct uvm_copy_job *job;

	if ((args->flags & ~UVM_COPY_ASYNC) ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    !args->length || args->length > UVM_COPY_MAX_BYTES ||
	    args->dst + args->length < args->dst ||
	    args->src + args->length < args->src ||
	    uvm_copy_overlap(args->dst, args->src, args->length))
		return -EINVAL;
	if (!uvm_gpu_get(args->gpu_index))
		return -ENODEV;

	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job)
		return -ENOMEM;
	job->gpu = uvm_gpu_get(args->gpu_index);
	job->length = args->length;
	job->width = args->length;
	job->height = 1;
	job->depth = 1;
	job->dst.addr = args->dst;
	job->dst.span = args->length;
	job->src.addr = args->src;
	job->src.span = args->length;
	return uvm_copy_submit(va_space, job, args->flags, &args->fence);
}

/**
 * uvm_ioc_memset() - UVM_IOC_MEMSET
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_memset
 *
 * Return: see the uapi.
 */
int uvm_ioc_memset(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_memset *args = data;
	u32 size = args->element_size;
	struct uvm_copy_job *job;
	u64 pattern;

	if ((args->flags & ~UVM_COPY_ASYNC) ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    (size != 1 && size != 2 && size != 4) ||
	    !args->count || args->count > UVM_COPY_MAX_BYTES / size ||
	    !IS_ALIGNED(args->dst, size) ||
	    args->dst + args->count * size < args->dst ||
	    (size < 4 && args->value >> (8 * size)))
		return -EINVAL;
	if (!uvm_gpu_get(args->gpu_index))
		return -ENODEV;

	pattern = args->value;
	for (; size < 8; size *= 2)
		pattern |= pattern << (8 * size);

	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job)
		return -ENOMEM;
	job->gpu = uvm_gpu_get(args->gpu_index);
	job->length = args->count * args->element_size;
	job->width = job->length;
	job->height = 1;
	job->depth = 1;
	job->is_memset = true;
	job->pattern = pattern;
	job->dst.addr = args->dst;
	job->dst.span = job->length;
	return uvm_copy_submit(va_space, job, args->flags, &args->fence);
}

/**
 * uvm_copy_box_check() - validate one side of a box, compute its span
 * @box:	the side as the caller gave it
 * @width:	bytes per row
 * @height:	rows
 * @depth:	slices
 * @align:	alignment the address and the used pitches need (memset)
 * @side:	out: address, pitches and span
 *
 * Return: 0 or -EINVAL.
 */
static int uvm_copy_box_check(const struct uvm_box *box, u64 width, u32 height,
			      u32 depth, u32 align, struct uvm_copy_side *side)
{
	u64 slice, span;

	memset(side, 0, sizeof(*side));
	side->addr = box->addr;
	if (!IS_ALIGNED(box->addr, align))
		return -EINVAL;
	slice = width;
	if (height > 1) {
		if (box->pitch < width || !IS_ALIGNED(box->pitch, align) ||
		    check_mul_overflow(box->pitch, (u64)(height - 1), &slice) ||
		    check_add_overflow(slice, width, &slice))
			return -EINVAL;
		side->pitch = box->pitch;
	}
	span = slice;
	if (depth > 1) {
		if (box->slice_pitch < slice || !IS_ALIGNED(box->slice_pitch, align) ||
		    check_mul_overflow(box->slice_pitch, (u64)(depth - 1), &span) ||
		    check_add_overflow(span, slice, &span))
			return -EINVAL;
		side->slice_pitch = box->slice_pitch;
	}
	if (span > UVM_COPY_MAX_SPAN || box->addr + span < box->addr)
		return -EINVAL;
	side->span = span;
	return 0;
}

/* May the two sides of a copy share a byte? (conservative: true when unsure) */
static bool uvm_copy_box_overlap(const struct uvm_copy_job *job)
{
	const struct uvm_copy_side *d = &job->dst, *s = &job->src;
	u64 p = d->pitch, delta, r;

	if (d->addr >= s->addr + s->span || s->addr >= d->addr + d->span)
		return false;
	if (d->addr == s->addr && d->pitch == s->pitch &&
	    d->slice_pitch == s->slice_pitch)
		return false;
	/*
	 * 2D boxes with one pitch, e.g. the left and right halves of an
	 * image: rows of one side lie between rows of the other when the
	 * distance between their starts, modulo the pitch, leaves a row's
	 * width on both hands.
	 */
	if (job->depth > 1 || job->height == 1 || d->pitch != s->pitch)
		return true;
	delta = d->addr > s->addr ? d->addr - s->addr : s->addr - d->addr;
	div64_u64_rem(delta, p, &r);
	return r < job->width || p - r < job->width;
}

/**
 * uvm_ioc_copy_3d() - UVM_IOC_COPY_3D
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_copy_3d
 *
 * Return: see the uapi.
 */
int uvm_ioc_copy_3d(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_copy_3d *args = data;
	struct uvm_copy_job *job;
	u64 length;
	int ret;

	if ((args->flags & ~UVM_COPY_ASYNC) ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    !args->width || !args->height || !args->depth ||
	    check_mul_overflow(args->width, (u64)args->height, &length) ||
	    check_mul_overflow(length, (u64)args->depth, &length) ||
	    length > UVM_COPY_MAX_BYTES)
		return -EINVAL;
	if (!uvm_gpu_get(args->gpu_index))
		return -ENODEV;

	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job)
		return -ENOMEM;
	job->gpu = uvm_gpu_get(args->gpu_index);
	job->length = length;
	job->width = args->width;
	job->height = args->height;
	job->depth = args->depth;
	ret = uvm_copy_box_check(&args->dst, job->width, job->height, job->depth, 1,
				 &job->dst);
	if (!ret)
		ret = uvm_copy_box_check(&args->src, job->width, job->height, job->depth, 1,
					 &job->src);
	if (!ret && uvm_copy_box_overlap(job))
		ret = -EINVAL;
	if (ret) {
		kfree(job);
		return ret;
	}
	return uvm_copy_submit(va_space, job, args->flags, &args->fence);
}

/**
 * uvm_ioc_memset_3d() - UVM_IOC_MEMSET_3D
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_memset_3d
 *
 * Return: see the uapi.
 */
int uvm_ioc_memset_3d(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_memset_3d *args = data;
	u32 size = args->element_size;
	struct uvm_copy_job *job;
	u64 width, length, pattern;
	int ret;

	if ((args->flags & ~UVM_COPY_ASYNC) ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    (size != 1 && size != 2 && size != 4) ||
	    (size < 4 && args->value >> (8 * size)) ||
	    !args->width || !args->height || !args->depth ||
	    check_mul_overflow(args->width, (u64)size, &width) ||
	    check_mul_overflow(width, (u64)args->height, &length) ||
	    check_mul_overflow(length, (u64)args->depth, &length) ||
	    length > UVM_COPY_MAX_BYTES)
		return -EINVAL;
	if (!uvm_gpu_get(args->gpu_index))
		return -ENODEV;

	pattern = args->value;
	for (; size < 8; size *= 2)
		pattern |= pattern << (8 * size);

	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job)
		return -ENOMEM;
	job->gpu = uvm_gpu_get(args->gpu_index);
	job->length = length;
	job->width = width;
	job->height = args->height;
	job->depth = args->depth;
	job->is_memset = true;
	job->pattern = pattern;
	ret = uvm_copy_box_check(&args->dst, width, job->height, job->depth,
				 args->element_size, &job->dst);
	if (ret) {
		kfree(job);
		return ret;
	}
	return uvm_copy_submit(va_space, job, args->flags, &args->fence);
}
