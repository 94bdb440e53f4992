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
 * UVM_IOC_COPY_BATCH is one job of many such boxes, run in order; copies
 * of one width at fixed distances from each other become the rows of one
 * box as they are read (uvm_copy_op_merge()).
 *
 * A side's span (first byte to last byte of the last row) lies wholly in
 * one allocation or wholly outside all of them.  The work proceeds in
 * windows of consecutive box bytes whose addresses, on either side, stay
 * inside one 2 MiB block (many short rows, or part of a long one); a window
 * locks the block of each managed side (the lower address first when both
 * are managed and distinct, see uvm_lock.h), serves the pages its rows
 * touch, gathers one engine operation per piece that crosses no page or row
 * boundary, or per run of whole rows sharing their pages on both sides
 * (pieces that go on where the last operation ends join it as one run,
 * uvm_ce_batch_push_run(), rows one pitch on as more of its rows), and
 * waits for the engine before its blocks are unlocked.  A
 * window without managed memory locks nothing and does not wait: the
 * operations of consecutive windows and boxes (the small copies of a batch)
 * go to the engine together, when the batch of operations is full, before
 * a window with managed memory, and at the end of the job.  A side whose
 * allocation went away, or was replaced by another at the same addresses,
 * before the job ran fails the job with -EFAULT: the rights checked at the
 * ioctl hold for the memory the job writes (uvm_copy_window_find()).
 *
 * Locking: the VA space lock for read during a job, dropped between windows
 * while a writer waits for it, once the job has held it 100 ms
 * (UVM_VA_SPACE_HOLD_MS; the allocations a job found stay while it is
 * held, so a window reuses the previous window's when its bytes are
 * inside); block locks per window.
 */
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uvm_ce.h"
#include "uvm_copy.h"
#include "uvm_device_range.h"
#include "uvm_evict.h"
#include "uvm_gpu.h"
#include "uvm_host_range.h"
#include "uvm_pin.h"
#include "uvm_queue.h"
#include "uvm_va_block.h"
#include "uvm_va_block_service.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"
#include "uvm_vmm.h"

/* Copies of UVM_IOC_COPY_BATCH read from userspace at a time. */
#define UVM_COPY_BATCH_CHUNK	64

/**
 * struct uvm_copy_side - one side of a copy
 * @addr:	first byte
 * @pitch:	bytes from a row to the next (rows > 1)
 * @slice_pitch: bytes from a slice to the next (slices > 1)
 * @span:	bytes from @addr to the end of the last row
 * @kind:	enum uvm_va_range_kind, or 0 for ordinary process memory
 * @buffer_id:	an allocation: the buffer id of the one classified, which
 *		the job must find when it runs (see uvm_copy_window_find())
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
	u64 buffer_id;
	u64 first;
	u64 npages;
	struct page **pages;
};

/**
 * struct uvm_copy_box - one validated copy or memset
 * @length:	bytes: @width * @height * @depth
 * @width:	bytes per row
 * @height:	rows per slice
 * @depth:	slices
 * @index:	a batch's: the index of its (first) copy
 * @copies:	copies the box does: 1, or one per row (a batch's
 *		copies that uvm_copy_op_merge() made its rows)
 * @dst:	destination
 * @src:	source (a copy)
 */
struct uvm_copy_box {
	u64 length;
	u64 width;
	u32 height;
	u32 depth;
	u32 index;
	u32 copies;
	struct uvm_copy_side dst;
	struct uvm_copy_side src;
};

/**
 * struct uvm_copy_boxes - the boxes of a batch
 * @cap:	boxes there is room for
 * @box:	the boxes
 *
 * A batch's array goes back to its VA space (&uvm_va_space.copy_boxes) when
 * the job is freed, for the next batch to reuse: a fresh one of thousands
 * of boxes costs more than validating them, as the kernel clears what it
 * allocates (init_on_alloc, Debian's default).
 */
struct uvm_copy_boxes {
	u32 cap;
	struct uvm_copy_box box[];
};

/**
 * struct uvm_copy_job - validated copies or a memset
 * @job:	the queue's part; weight = pages copied + pages pinned + boxes
 * @gpu:	the GPU whose engine works
 * @is_memset:	a memset: the boxes' @src unused
 * @pattern:	memset: the element replicated to 64 bits
 * @vmm_seen:	the last buffer id handed out when the job was validated:
 *		a VMM mapping with a higher one was made afterwards
 * @nboxes:	boxes, run in order (a batch's: those filled so far)
 * @boxes:	@one, or @array's
 * @array:	a batch's boxes, NULL for a single copy or memset
 * @va_space:	a batch's VA space, which @array goes back to
 * @one:	the box of a single copy or memset
 */
struct uvm_copy_job {
	struct uvm_job job;
	struct uvm_gpu *gpu;
	bool is_memset;
	u64 pattern;
	u64 vmm_seen;
	u32 nboxes;
	struct uvm_copy_box *boxes;
	struct uvm_copy_boxes *array;
	struct uvm_va_space *va_space;
	struct uvm_copy_box one;
};

/**
 * struct uvm_copy_window - the state of the window being copied
 * @block:	per side (dst, src): the block of a managed side (both the
 *		same block when the sides share it)
 * @range:	per side: the allocation, NULL for process memory; kept
 *		from window to window while the job runs
 * @vmm:	per side: the mapping of a VMM side
 * @locked:	the distinct blocks locked, in locking order
 * @locked_at:	jiffies when the job last took the VA space lock
 * @page:	per side: the page whose engine address @cached holds, 1 for
 *		none; kept while the batch of operations gathers (its system
 *		page mappings last as long) and the same memory is behind the
 *		page: forgotten when the batch is submitted and at each box of
 *		process memory (pinned per box)
 * @cached:	per side: the engine address of @page
 * @quiet:	small windows run since the last look for a signal, a
 *		waiting writer or a task to run
 */
struct uvm_copy_window {
	struct uvm_va_block *block[2];
	struct uvm_va_range *range[2];
	struct uvm_vmm_mapping *vmm[2];
	struct uvm_va_block *locked[2];
	unsigned long locked_at;
	u64 page[2];
	struct uvm_gpu_address cached[2];
	u32 quiet;
};

/*
 * Windows of at most a page run this many between looks for a signal, a
 * waiting writer or a task to run (bigger ones look each time).
 */
#define UVM_COPY_QUIET_WINDOWS	64

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
	u32 i;

	for (i = 0; i < job->nboxes; i++) {
		uvm_copy_side_unpin(&job->boxes[i].dst, true);
		uvm_copy_side_unpin(&job->boxes[i].src, false);
	}
	/* the VA space keeps one array; a second is freed */
	if (job->array && cmpxchg(&job->va_space->copy_boxes, NULL, job->array))
		kvfree(job->array);
	kfree(job);
}

/**
 * uvm_copy_job_alloc() - a job of one zeroed box
 *
 * Return: the job (@nboxes 1), or NULL.
 */
static struct uvm_copy_job *uvm_copy_job_alloc(void)
{
	struct uvm_copy_job *job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);

	if (!job)
		return NULL;
	job->boxes = &job->one;
	job->nboxes = 1;
	job->one.copies = 1;
	return job;
}

/**
 * uvm_copy_batch_alloc() - a job with room for @nboxes boxes
 * @va_space:	the VA space, whose kept array is reused when big enough
 * @nboxes:	1 .. UVM_COPY_BATCH_MAX
 *
 * The boxes are not cleared: the job has none yet (@nboxes 0), each is
 * filled whole by uvm_copy_box_init() and counted then, or made a row of the
 * last one by uvm_copy_op_merge().
 *
 * Return: the job, or NULL.
 */
static struct uvm_copy_job *uvm_copy_batch_alloc(struct uvm_va_space *va_space, u32 nboxes)
{
	struct uvm_copy_job *job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	struct uvm_copy_boxes *array;

	if (!job)
		return NULL;
	array = xchg(&va_space->copy_boxes, NULL);
	if (!array || array->cap < nboxes) {
		kvfree(array);
		array = kvmalloc(struct_size(array, box, nboxes), GFP_KERNEL_ACCOUNT);
		if (!array) {
			kfree(job);
			return NULL;
		}
		array->cap = nboxes;
	}
	job->array = array;
	job->va_space = va_space;
	job->boxes = array->box;
	return job;
}

/**
 * uvm_copy_va_space_destroy() - free the box array a VA space kept
 * @va_space:	the VA space, its queue drained (no job left to give one back)
 */
void uvm_copy_va_space_destroy(struct uvm_va_space *va_space)
{
	kvfree(xchg(&va_space->copy_boxes, NULL));
}

/* Execution */

/**
 * uvm_copy_addr() - the address of a byte of the box on one side
 * @box:	the box
 * @side:	the side
 * @off:	the byte's offset in the box, below @box->length
 *
 * Return: the address.
 */
static u64 uvm_copy_addr(const struct uvm_copy_box *box,
			 const struct uvm_copy_side *side, u64 off)
{
	u64 row, col;
	u32 y;

	if (box->height == 1 && box->depth == 1)
		return side->addr + off;
	row = div64_u64_rem(off, box->width, &col);
	row = div_u64_rem(row, box->height, &y);
	return side->addr + row * side->slice_pitch + (u64)y * side->pitch + col;
}

/* Bytes from box offset @off to the end of its row. */
static u64 uvm_copy_row_left(const struct uvm_copy_box *box, u64 off)
{
	u64 col;

	if (box->height == 1 && box->depth == 1)
		return box->width - off;
	div64_u64_rem(off, box->width, &col);
	return box->width - col;
}

/**
 * uvm_copy_side_addr() - the engine's address of a byte of one side
 * @job:	the job
 * @box:	the box
 * @win:	the window
 * @side:	0 for the destination, 1 for the source
 * @b:		the batch, begun
 * @va:		the byte
 * @addr:	out
 *
 * Return: 0 or -errno.
 */
static int uvm_copy_side_addr(struct uvm_copy_job *job, struct uvm_copy_box *box,
			      struct uvm_copy_window *win, int side,
			      struct uvm_ce_batch *b, u64 va,
			      struct uvm_gpu_address *addr)
{
	struct uvm_copy_side *s = side ? &box->src : &box->dst;
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
 * uvm_copy_window_find() - find the allocation of one side of a window
 * @va_space:	the VA space; its lock held for read
 * @job:	the job
 * @box:	the box
 * @win:	the window: @win->range[@i] as the previous window left it
 *		(NULL for the first); @win->range[@i] and @win->vmm[@i] set here
 * @i:		0 for the destination, 1 for the source; not process memory
 * @off:	offset of the window into the box
 * @len:	its bytes
 *
 * The job runs against the very memory it was validated against, or not at
 * all: between the ioctl and the job the caller may have replaced the
 * allocation at these addresses (unregistered a writable registration and
 * registered a read-only mapping of a file there, unmapped a VMM mapping
 * and mapped another allocation, replaced device memory of one GPU by
 * another's).  The allocation must be the one classified, by buffer id
 * (never reused; the pieces of a partly unmapped managed range keep it),
 * and a VMM mapping one that existed at validation (VMM mappings get their
 * id under the VA space lock held for write, when they are inserted).
 * Rights that may change on the same allocation are checked again: the
 * GPU's VMM access.  A read-only registration never becomes writable.
 *
 * Return: 0, -EFAULT when the allocation is gone or was replaced, -EPERM
 * when the GPU lost its right to VMM memory.
 */
static inline int uvm_copy_window_find(struct uvm_va_space *va_space,
				       struct uvm_copy_job *job, struct uvm_copy_box *box,
				       struct uvm_copy_window *win, int i, u64 off, u64 len)
{
	struct uvm_copy_side *side = i ? &box->src : &box->dst;
	u64 va = uvm_copy_addr(box, side, off);
	u64 last = uvm_copy_addr(box, side, off + len - 1);
	struct uvm_va_range *range = win->range[i];

	/* the previous window's allocation, else look it up */
	if (!range || va < uvm_va_range_start(range) || uvm_va_range_end(range) <= last)
		range = uvm_va_range_find(va_space, va);
	win->range[i] = range;
	win->vmm[i] = NULL;
	if (!range || range->buffer_id != side->buffer_id ||
	    uvm_va_range_end(range) <= last)
		return -EFAULT;
	if (side->kind != UVM_RANGE_VMM)
		return 0;
	/*
	 * A window crosses no 2 MiB boundary: one granule of one mapping,
	 * whose rights may have changed since the job was queued.
	 */
	win->vmm[i] = uvm_vmm_mapping_find(range, va);
	if (!win->vmm[i] || uvm_vmm_mapping_buffer_id(win->vmm[i]) > job->vmm_seen)
		return -EFAULT;
	if (uvm_vmm_check_span(range, va, va + 1, job->gpu, !i))
		return -EPERM;
	return 0;
}

/**
 * uvm_copy_window_lock() - find the allocations and lock the managed blocks
 * @va_space:	the VA space; its lock held for read
 * @job:	the job
 * @box:	the box
 * @win:	the window: @win->range as the previous window left it (NULL
 *		for the first), the rest set here
 * @off:	offset of the window into the box
 * @len:	its bytes
 *
 * Return: 0, -EFAULT when an allocation is gone, -EPERM when the GPU lost
 * its right to VMM memory, -ENOMEM.
 */
static int uvm_copy_window_lock(struct uvm_va_space *va_space,
				struct uvm_copy_job *job, struct uvm_copy_box *box,
				struct uvm_copy_window *win, u64 off, u64 len)
{
	struct uvm_copy_side *sides[2] = { &box->dst, &box->src };
	int n = job->is_memset ? 1 : 2;
	int i, ret;

	memset(win->block, 0, sizeof(win->block));
	memset(win->locked, 0, sizeof(win->locked));
	for (i = 0; i < n; i++) {
		if (!sides[i]->kind)
			continue;
		ret = uvm_copy_window_find(va_space, job, box, win, i, off, len);
		if (ret)
			return ret;
		if (sides[i]->kind != UVM_RANGE_MANAGED)
			continue;
		win->block[i] = uvm_va_block_get_or_create(va_space,
							   uvm_copy_addr(box, sides[i], off));
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
 * @box:	the box
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
static int uvm_copy_window_serve(struct uvm_copy_job *job, struct uvm_copy_box *box,
				 struct uvm_copy_window *win,
				 struct uvm_va_block_ctx *ctx, u64 off, u64 len)
{
	struct uvm_page_mask mask;
	u64 o, seg, a;
	int i, ret;

	for (i = job->is_memset ? 0 : 1; i >= 0; i--) {
		struct uvm_copy_side *side = i ? &box->src : &box->dst;
		struct uvm_va_block *block = win->block[i];

		if (!block)
			continue;
		/* the pages the window's rows touch, not the gaps between them */
		uvm_page_mask_zero(&mask);
		for (o = off; o < off + len; o += seg) {
			seg = min(uvm_copy_row_left(box, o), off + len - o);
			a = uvm_copy_addr(box, side, o);
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
 * the short rows of a box, and the small copies of a batch, sharing a page
 * cost one lookup.
 */
static inline int uvm_copy_side_addr_cached(struct uvm_copy_job *job, struct uvm_copy_box *box,
					    struct uvm_copy_window *win, int side,
					    struct uvm_ce_batch *b, u64 va,
					    struct uvm_gpu_address *addr)
{
	int ret = 0;

	if ((va & PAGE_MASK) != win->page[side]) {
		ret = uvm_copy_side_addr(job, box, win, side, b, va, &win->cached[side]);
		win->page[side] = ret ? 1 : va & PAGE_MASK;
	}
	*addr = win->cached[side];
	addr->addr += offset_in_page(va);
	return ret;
}

/*
 * uvm_copy_page_rows() - how many rows from one that starts at @d (@s) and
 * lies whole in its page on each side lie whole in the same pages: at most
 * the rest of its slice and of the window's @left bytes, and at most
 * UVM_CE_ROWS_MAX (an engine operation's rows).
 */
static u32 uvm_copy_page_rows(struct uvm_copy_job *job, struct uvm_copy_box *box,
			      u64 d, u64 s, u32 y, u64 left)
{
	u32 w = box->width, room, k = min_t(u32, box->height - y, UVM_CE_ROWS_MAX);

	if (k < 2 || left < 2 * (u64)w)
		return 1;
	/* rows from the first: 1 + the pitches that fit after it */
	room = PAGE_SIZE - offset_in_page(d) - w;
	k = min_t(u64, k, box->dst.pitch > room ? 1 : room / (u32)box->dst.pitch + 1);
	if (!job->is_memset) {
		room = PAGE_SIZE - offset_in_page(s) - w;
		k = min_t(u64, k, box->src.pitch > room ? 1 : room / (u32)box->src.pitch + 1);
	}
	if ((u64)k * w > left)
		k = div64_u64(left, w);
	return k;
}

/**
 * uvm_copy_window_run() - copy or fill one window
 * @job:	the job
 * @box:	the box
 * @win:	the window, locked and served
 * @b:		the job's batch of operations
 * @off:	offset of the window
 * @len:	its bytes
 *
 * Walks the window's rows (no division past the first byte), one piece per
 * part of a row that crosses no page on either side; the pieces of a box's
 * rows become strided operations (uvm_ce_batch_push_row()).  A window that
 * locked blocks waits for the engine before returning; the operations of
 * one that did not stay in @b for the windows that follow.
 *
 * Return: 0 or -errno.
 */
static int uvm_copy_window_run(struct uvm_copy_job *job, struct uvm_copy_box *box,
			       struct uvm_copy_window *win, struct uvm_ce_batch *b,
			       u64 off, u64 len)
{
	bool rows = box->height > 1 || box->depth > 1;
	u64 end = off + len, piece, col, z, rd, rs, d, s;
	struct uvm_ce_op op;
	int ret = 0;
	u32 y = 0, k = 1;

	if (rows) {
		z = div_u64_rem(div64_u64_rem(off, box->width, &col), box->height, &y);
	} else {
		z = 0;
		col = off;
	}
	rd = box->dst.addr + z * box->dst.slice_pitch + (u64)y * box->dst.pitch;
	rs = box->src.addr + z * box->src.slice_pitch + (u64)y * box->src.pitch;
	for (; off < end; off += piece) {
		d = rd + col;
		s = rs + col;
		piece = min3(end - off, box->width - col, PAGE_SIZE - offset_in_page(d));
		if (!job->is_memset)
			piece = min(piece, PAGE_SIZE - offset_in_page(s));

		memset(&op, 0, sizeof(op));
		op.size = piece;
		/* whole rows sharing their pages: one operation of @k rows */
		if (rows && !col && piece == box->width && piece <= PAGE_SIZE / 2)
			k = uvm_copy_page_rows(job, box, d, s, y, end - off);
		if (k > 1) {
			op.rows = k;
			op.dst_pitch = box->dst.pitch;
			op.src_pitch = job->is_memset ? 0 : box->src.pitch;
			piece = (u64)k * box->width;
		}
		ret = uvm_ce_batch_begin(b, job->gpu);
		if (ret)
			break;
		if (!b->nops) {
			/* a new batch: map again */
			win->page[0] = 1;
			win->page[1] = 1;
		}
		ret = uvm_copy_side_addr_cached(job, box, win, 0, b, d, &op.dst);
		if (job->is_memset) {
			op.type = UVM_CE_MEMSET;
			op.value = job->pattern;
		} else {
			op.type = UVM_CE_COPY;
			if (!ret)
				ret = uvm_copy_side_addr_cached(job, box, win, 1, b, s, &op.src);
		}
		if (ret)
			break;
		/* the rows of a box: strided operations the engine walks */
		if (rows)
			uvm_ce_batch_push_row(b, &op, box->dst.pitch,
					      job->is_memset ? 0 : box->src.pitch);
		else
			uvm_ce_batch_push_run(b, &op);

		/* the next row: @k rows on (they stay in their slice), or this one's end */
		if (k == 1) {
			col += piece;
			if (col < box->width)
				continue;
			col = 0;
		}
		y += k;
		if (y < box->height) {
			rd += k * box->dst.pitch;
			rs += k * box->src.pitch;
			k = 1;
			continue;
		}
		k = 1;
		y = 0;
		z++;
		rd = box->dst.addr + z * box->dst.slice_pitch;
		rs = box->src.addr + z * box->src.slice_pitch;
	}
	if (ret) {
		uvm_ce_batch_flush(b);
		return ret;
	}
	/* Managed pages may move once their blocks are unlocked. */
	return win->locked[0] ? uvm_ce_batch_flush(b) : 0;
}

/*
 * uvm_copy_window_len() - bytes of the window starting at box offset @off:
 * whole rows while both sides stay in the 2 MiB blocks of the window's
 * first bytes, or the part of one row up to a block boundary.  Addresses
 * grow with the offset (rows do not overlap), so the first row that leaves
 * a block ends the window.
 */
static u64 uvm_copy_window_len(struct uvm_copy_job *job, struct uvm_copy_box *box, u64 off)
{
	u64 dend, send, o = off, col, z, rd, rs, d, s, row, take;
	u32 y;

	/* one row: up to the first block boundary of either side */
	if (box->height == 1 && box->depth == 1) {
		d = box->dst.addr + off;
		take = min(box->length - off, round_down(d, UVM_VA_BLOCK_SIZE) +
					      UVM_VA_BLOCK_SIZE - d);
		if (job->is_memset)
			return take;
		s = box->src.addr + off;
		return min(take, round_down(s, UVM_VA_BLOCK_SIZE) + UVM_VA_BLOCK_SIZE - s);
	}
	/* the first row by division, the next ones a pitch on */
	z = div_u64_rem(div64_u64_rem(off, box->width, &col), box->height, &y);
	rd = box->dst.addr + z * box->dst.slice_pitch + (u64)y * box->dst.pitch;
	rs = job->is_memset ? 0 :
	     box->src.addr + z * box->src.slice_pitch + (u64)y * box->src.pitch;
	dend = round_down(rd + col, UVM_VA_BLOCK_SIZE) + UVM_VA_BLOCK_SIZE;
	send = job->is_memset ? U64_MAX :
	       round_down(rs + col, UVM_VA_BLOCK_SIZE) + UVM_VA_BLOCK_SIZE;
	while (o < box->length) {
		d = rd + col;
		s = rs + col;
		if (d >= dend || s >= send)
			break;
		row = box->width - col;
		take = min3(row, dend - d, send - s);
		o += take;
		if (take < row)
			break;
		col = 0;
		if (++y < box->height) {
			rd += box->dst.pitch;
			rs += box->src.pitch;
			continue;
		}
		y = 0;
		z++;
		rd = box->dst.addr + z * box->dst.slice_pitch;
		rs = job->is_memset ? 0 : box->src.addr + z * box->src.slice_pitch;
	}
	return o - off;
}

/**
 * uvm_copy_yield_lock() - let a writer of the VA space in between windows
 * @va_space:	the VA space, its lock held for read
 * @win:	the window state: its allocations are forgotten
 * @b:		the job's batch of operations, submitted first
 *
 * A copy of gigabytes takes minutes on a slow machine; holding the VA space
 * lock all along would keep an unmap or a registration waiting as long,
 * and fault servicing behind it.  When a writer waits and the job has held
 * the lock UVM_VA_SPACE_HOLD_MS, the gathered operations go to the engine
 * (their memory is the lock's to keep) and the lock is dropped and taken
 * again; the next window looks its allocations up afresh and fails the job
 * with -EFAULT when one went away or was replaced meanwhile, the windows
 * before it copied.  A shorter job is all or nothing against an unmap of
 * its sides.
 *
 * Return: 0 or the -errno of the engine.
 */
static int uvm_copy_yield_lock(struct uvm_va_space *va_space, struct uvm_copy_window *win,
			       struct uvm_ce_batch *b)
{
	int ret;

	if (!uvm_va_space_read_contended(va_space, win->locked_at))
		return 0;
	ret = uvm_ce_batch_flush(b);
	if (ret)
		return ret;
	uvm_va_space_read_yield(va_space, &win->locked_at);
	memset(win->range, 0, sizeof(win->range));
	return 0;
}

/**
 * uvm_copy_box_run() - copy or fill one box, window by window
 * @va_space:	the VA space, its lock held for read
 * @job:	the job
 * @box:	the box
 * @win:	the window state, kept from box to box
 * @ctx:	scratch space
 * @b:		the job's batch of operations
 *
 * Return: 0 or -errno.
 */
static int uvm_copy_box_run(struct uvm_va_space *va_space, struct uvm_copy_job *job,
			    struct uvm_copy_box *box, struct uvm_copy_window *win,
			    struct uvm_va_block_ctx *ctx, struct uvm_ce_batch *b)
{
	bool managed = box->dst.kind == UVM_RANGE_MANAGED ||
		       (!job->is_memset && box->src.kind == UVM_RANGE_MANAGED);
	u64 off, len;
	int ret = 0;

	/* process memory: this box's own pinned pages */
	if (!box->dst.kind)
		win->page[0] = 1;
	if (!box->src.kind)
		win->page[1] = 1;
	for (off = 0; off < box->length && !ret; off += len) {
		len = uvm_copy_window_len(job, box, off);
		/*
		 * A big copy is thousands of windows: let others run between
		 * them, and stop there when the caller is killed, the owner
		 * exits or the file is released; small ones (the copies of a
		 * batch) look every so many.
		 */
		if (len > PAGE_SIZE || ++win->quiet >= UVM_COPY_QUIET_WINDOWS) {
			win->quiet = 0;
			cond_resched();
			ret = uvm_queue_should_stop(&va_space->queue);
			if (ret)
				return ret;
			ret = uvm_copy_yield_lock(va_space, win, b);
			if (ret)
				return ret;
		}
		/* no managed memory: no block to lock, serve or evict from */
		if (!managed) {
			if (box->dst.kind)
				ret = uvm_copy_window_find(va_space, job, box, win, 0, off, len);
			if (!ret && !job->is_memset && box->src.kind)
				ret = uvm_copy_window_find(va_space, job, box, win, 1, off, len);
			if (!ret)
				ret = uvm_copy_window_run(job, box, win, b, off, len);
			continue;
		}
		/* A full GPU: evict with the block locks dropped, then retry. */
		do {
			ret = uvm_copy_window_lock(va_space, job, box, win, off, len);
			/*
			 * Earlier windows' operations go first: the engine then
			 * sees every copy in order with the migrations serving
			 * this window.
			 */
			if (!ret && win->locked[0])
				ret = uvm_ce_batch_flush(b);
			if (!ret)
				ret = uvm_copy_window_serve(job, box, win, ctx, off, len);
			if (!ret)
				ret = uvm_copy_window_run(job, box, win, b, off, len);
			uvm_copy_window_unlock(win);
		} while (uvm_evict_retry(ctx, va_space, &ret));
	}
	return ret;
}

/**
 * uvm_copy_job_run() - run the boxes of a job in order
 * @va_space:	the VA space
 * @j:		the job
 *
 * Return: 0 or -errno (the boxes before the failing one are done).
 */
static int uvm_copy_job_run(struct uvm_va_space *va_space, struct uvm_job *j)
{
	struct uvm_copy_job *job = to_uvm_copy_job(j);
	struct uvm_va_block_ctx *ctx = uvm_va_block_ctx_alloc();
	struct uvm_ce_batch *b = kzalloc(sizeof(*b), GFP_KERNEL);
	struct uvm_copy_window win = {};
	int ret = 0, ret2;
	u32 i;

	if (!ctx || !b) {
		ret = -ENOMEM;
		goto out_free;
	}
	uvm_va_block_ctx_set_cause(ctx, UVM_NL_CAUSE_COPY);
	down_read(&va_space->lock);
	win.locked_at = jiffies;
	win.page[0] = 1;
	win.page[1] = 1;
	for (i = 0; i < job->nboxes && !ret; i++)
		ret = uvm_copy_box_run(va_space, job, &job->boxes[i], &win, ctx, b);
	/* the operations still gathered, whose memory the lock keeps */
	ret2 = uvm_ce_batch_flush(b);
	up_read(&va_space->lock);
	if (!ret)
		ret = ret2;
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
 * uvm_copy_side_classify() - find the memory of one side
 * @va_space:	the VA space, its lock held for read
 * @side:	the side; @side->addr and @side->span set, @side->kind set here
 * @gpu:	the GPU whose engine copies
 * @write:	the destination
 * @hint:	the allocation of the same side of the previous box, or NULL;
 *		set to this side's
 *
 * Return: 0; -EINVAL for a side partly inside an allocation, partly
 * unmapped VMM memory, or process memory spanning over UVM_COPY_MAX_BYTES;
 * -EPERM to write read-only registered memory, or VMM memory @gpu may not
 * access so.
 */
static int uvm_copy_side_classify(struct uvm_va_space *va_space,
				  struct uvm_copy_side *side, struct uvm_gpu *gpu,
				  bool write, struct uvm_va_range **hint)
{
	u64 end = side->addr + side->span;
	struct uvm_va_range *range = *hint;

	/* the small copies of a batch mostly stay in one allocation */
	if (!range || side->addr < uvm_va_range_start(range) ||
	    side->addr >= uvm_va_range_end(range))
		range = uvm_va_range_find(va_space, side->addr);
	if (!range) {
		side->kind = 0;
		if (interval_tree_iter_first(&va_space->ranges, side->addr, end - 1))
			return -EINVAL;
		return side->span > UVM_COPY_MAX_BYTES ? -EINVAL : 0;
	}
	*hint = range;
	side->kind = range->kind;
	side->buffer_id = range->buffer_id;
	if (uvm_va_range_end(range) < end)
		return -EINVAL;
	if (write && range->kind == UVM_RANGE_HOST && range->host.read_only)
		return -EPERM;
	if (range->kind == UVM_RANGE_VMM)
		return uvm_vmm_check_span(range, side->addr, end, gpu, write);
	return 0;
}

/**
 * uvm_copy_side_pin() - pin the process memory of a side
 * @side:	the side, classified as process memory
 * @write:	the destination
 *
 * Return: 0, -EFAULT for memory that cannot be pinned, -ENOMEM.
 */
static int uvm_copy_side_pin(struct uvm_copy_side *side, bool write)
{
	u64 end = side->addr + side->span;
	long pinned;

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
 * uvm_copy_boxes_split() - give each copy of a batch its own box again
 * @job:	a batch whose boxes hold copies as their rows
 *
 * From the last box to the first, each row goes back to the place of its
 * copy: boxes only move up (a box's first copy has at least its index), so
 * nothing is overwritten before it moved.
 */
static void uvm_copy_boxes_split(struct uvm_copy_job *job)
{
	struct uvm_copy_box box, *row;
	u32 i = job->nboxes, r;

	job->nboxes = job->boxes[i - 1].index + job->boxes[i - 1].copies;
	while (i--) {
		box = job->boxes[i];
		for (r = box.copies; r--; ) {
			row = &job->boxes[box.index + r];
			*row = box;
			if (box.copies == 1)
				continue;
			row->index = box.index + r;
			row->copies = 1;
			row->length = box.width;
			row->height = 1;
			row->dst.addr = box.dst.addr + r * box.dst.pitch;
			row->dst.pitch = 0;
			row->dst.span = box.width;
			row->src.addr = box.src.addr + r * box.src.pitch;
			row->src.pitch = 0;
			row->src.span = box.width;
		}
	}
}

/*
 * Boxes whose rows follow each other on both sides (copies one after the
 * other) become one row: the engine's operations then join them as one run.
 */
static void uvm_copy_boxes_join(struct uvm_copy_job *job)
{
	struct uvm_copy_box *box;
	u32 i;

	for (i = 0; i < job->nboxes; i++) {
		box = &job->boxes[i];
		if (box->height == 1 || box->depth != 1 ||
		    box->dst.pitch != box->width || box->src.pitch != box->width)
			continue;
		box->width = box->length;
		box->height = 1;
		box->dst.pitch = 0;
		box->src.pitch = 0;
	}
}

/**
 * uvm_copy_submit() - validate the memory of a job's boxes and queue it
 * @va_space:	the VA space
 * @job:	the job, its boxes checked; freed on failure
 * @flags:	UVM_COPY_*
 * @fence:	out
 * @failed:	out, on a refusal of one box: its index
 *
 * Every side is classified under one hold of the VA space lock, then the
 * process memory of every box is pinned.  A box that holds several copies
 * of a batch must lie in allocations on both sides; when one does not, or
 * is refused, every copy gets its own box again and all are classified
 * afresh, so that a refusal names the copy refused.  The process memory of
 * a job's destinations, and that of its sources, each span at most
 * UVM_COPY_MAX_BYTES in all.
 *
 * Return: 0 or -errno.
 */
static int uvm_copy_submit(struct uvm_va_space *va_space, struct uvm_copy_job *job,
			   u32 flags, u64 *fence, u32 *failed)
{
	struct uvm_va_range *hint[2];
	u64 pinned[2], weight;
	struct uvm_copy_box *box;
	bool merged;
	int ret;
	u32 i;

	job->job.ops = &uvm_copy_job_ops;
	down_read(&va_space->lock);
	job->vmm_seen = uvm_va_range_last_buffer_id();
again:
	memset(hint, 0, sizeof(hint));
	memset(pinned, 0, sizeof(pinned));
	weight = 0;
	merged = false;
	ret = 0;
	for (i = 0; i < job->nboxes; i++) {
		box = &job->boxes[i];
		/* thousands of boxes, each maybe over thousands of VMM mappings */
		if (i % UVM_COPY_QUIET_WINDOWS == UVM_COPY_QUIET_WINDOWS - 1 &&
		    fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		weight += box->copies + (box->length >> PAGE_SHIFT);
		ret = uvm_copy_side_classify(va_space, &box->dst, job->gpu, true, &hint[0]);
		if (!ret && !box->dst.kind) {
			pinned[0] += box->dst.span;
			if (pinned[0] > UVM_COPY_MAX_BYTES)
				ret = -EINVAL;
		}
		if (!ret && !job->is_memset) {
			ret = uvm_copy_side_classify(va_space, &box->src, job->gpu, false,
						     &hint[1]);
			if (!ret && !box->src.kind) {
				pinned[1] += box->src.span;
				if (pinned[1] > UVM_COPY_MAX_BYTES)
					ret = -EINVAL;
			}
		}
		if (box->copies > 1) {
			if (ret || !box->dst.kind || !box->src.kind) {
				uvm_copy_boxes_split(job);
				goto again;
			}
			merged = true;
		}
		if (ret) {
			*failed = box->index;
			break;
		}
	}
	up_read(&va_space->lock);
	if (merged && !ret)
		uvm_copy_boxes_join(job);

	/* pinned pages weigh too: a sparse box pins its whole span */
	for (i = 0; !ret && i < job->nboxes; i++) {
		box = &job->boxes[i];
		if (!box->dst.kind) {
			ret = uvm_copy_side_pin(&box->dst, true);
			weight += box->dst.npages;
		}
		if (!ret && !job->is_memset && !box->src.kind) {
			ret = uvm_copy_side_pin(&box->src, false);
			weight += box->src.npages;
		}
		if (ret)
			*failed = box->index;
		if (!box->dst.kind || !box->src.kind)
			cond_resched();
	}
	if (ret) {
		uvm_copy_job_free(&job->job);
		return ret;
	}

	job->job.weight = weight;
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

/* A box of one row. */
static void uvm_copy_box_1d(struct uvm_copy_box *box, u64 dst, u64 src, u64 length)
{
	box->length = length;
	box->width = length;
	box->height = 1;
	box->depth = 1;
	box->dst.addr = dst;
	box->dst.span = length;
	box->src.addr = src;
	box->src.span = length;
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
	u32 failed;

	if ((args->flags & ~UVM_COPY_ASYNC) ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    !args->length || args->length > UVM_COPY_MAX_BYTES ||
	    args->dst + args->length < args->dst ||
	    args->src + args->length < args->src ||
	    uvm_copy_overlap(args->dst, args->src, args->length))
		return -EINVAL;
	if (!uvm_gpu_get(args->gpu_index))
		return -ENODEV;

	job = uvm_copy_job_alloc();
	if (!job)
		return -ENOMEM;
	job->gpu = uvm_gpu_get(args->gpu_index);
	uvm_copy_box_1d(&job->one, args->dst, args->src, args->length);
	return uvm_copy_submit(va_space, job, args->flags, &args->fence, &failed);
}

/* The element of a memset replicated to 64 bits. */
static u64 uvm_copy_pattern(u32 value, u32 size)
{
	u64 pattern = value;

	for (; size < 8; size *= 2)
		pattern |= pattern << (8 * size);
	return pattern;
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
	u32 failed;

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

	job = uvm_copy_job_alloc();
	if (!job)
		return -ENOMEM;
	job->gpu = uvm_gpu_get(args->gpu_index);
	job->is_memset = true;
	job->pattern = uvm_copy_pattern(args->value, size);
	uvm_copy_box_1d(&job->one, args->dst, 0, args->count * size);
	return uvm_copy_submit(va_space, job, args->flags, &args->fence, &failed);
}

/**
 * uvm_copy_box_check() - validate one side of a box, compute its span
 * @box:	the side as the caller gave it
 * @width:	bytes per row
 * @height:	rows
 * @depth:	slices
 * @align:	alignment the address and the used pitches need (memset)
 * @side:	out: address, pitches (0 where unused) and span; no memory
 *		classified (kind 0) or pinned yet
 *
 * Return: 0 or -EINVAL.
 */
static int uvm_copy_box_check(const struct uvm_box *box, u64 width, u32 height,
			      u32 depth, u32 align, struct uvm_copy_side *side)
{
	u64 slice, span;

	side->addr = box->addr;
	side->pitch = 0;
	side->slice_pitch = 0;
	side->kind = 0;
	side->pages = NULL;
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
static bool uvm_copy_box_overlap(const struct uvm_copy_box *box)
{
	const struct uvm_copy_side *d = &box->dst, *s = &box->src;
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
	if (box->depth > 1 || box->height == 1 || d->pitch != s->pitch)
		return true;
	delta = d->addr > s->addr ? d->addr - s->addr : s->addr - d->addr;
	div64_u64_rem(delta, p, &r);
	return r < box->width || p - r < box->width;
}

/* The bytes of a copy: 0 for a bad geometry. */
static u64 uvm_copy_op_length(const struct uvm_copy_op *op)
{
	u64 length;

	if (!op->width || !op->height || !op->depth || op->reserved ||
	    check_mul_overflow(op->width, (u64)op->height, &length) ||
	    check_mul_overflow(length, (u64)op->depth, &length) ||
	    length > UVM_COPY_MAX_BYTES)
		return 0;
	return length;
}

/**
 * uvm_copy_box_init() - check one copy and fill its box
 * @op:		the copy as the caller gave it
 * @box:	out
 *
 * Return: 0 or -EINVAL.
 */
static int uvm_copy_box_init(const struct uvm_copy_op *op, struct uvm_copy_box *box)
{
	box->length = uvm_copy_op_length(op);
	if (!box->length)
		return -EINVAL;
	box->width = op->width;
	box->height = op->height;
	box->depth = op->depth;
	if (uvm_copy_box_check(&op->dst, box->width, box->height, box->depth, 1, &box->dst) ||
	    uvm_copy_box_check(&op->src, box->width, box->height, box->depth, 1, &box->src) ||
	    uvm_copy_box_overlap(box))
		return -EINVAL;
	return 0;
}

/**
 * uvm_copy_op_merge() - make the next copy of a batch a row of the last box
 * @last:	the last box, whose rows are copies of the batch
 * @op:		the next copy
 *
 * A copy of one row as wide as @last's, at one distance from @last's last
 * row on the destination and another on the source, is one more row of it:
 * the small copies of a batch often walk allocations so, and as one box
 * they cost the job one walk, not one per copy (uvm_copy_boxes_join() makes
 * rows that follow each other one).  The engine runs the same bytes in the
 * same order, as no box takes a row whose sides may share a byte with the
 * others' (a copy reading what an earlier one wrote).  The copy needs no
 * other check: as wide as a valid row, the box's limits kept.
 *
 * Return: true when @op is now a row of @last.
 */
static bool uvm_copy_op_merge(struct uvm_copy_box *last, const struct uvm_copy_op *op)
{
	u64 w = last->width, dpitch, spitch, dspan, sspan;

	if (op->width != w || op->height != 1 || op->depth != 1 || op->reserved ||
	    last->depth != 1 || last->copies != last->height || last->height == U32_MAX ||
	    op->dst.addr <= last->dst.addr || op->src.addr <= last->src.addr ||
	    last->length + w > UVM_COPY_MAX_BYTES)
		return false;
	dspan = op->dst.addr - last->dst.addr;
	sspan = op->src.addr - last->src.addr;
	if (dspan > UVM_COPY_MAX_SPAN - w || sspan > UVM_COPY_MAX_SPAN - w ||
	    op->dst.addr + w < op->dst.addr || op->src.addr + w < op->src.addr)
		return false;
	if (last->height > 1) {
		dpitch = last->dst.pitch;
		spitch = last->src.pitch;
		/* span <= UVM_COPY_MAX_SPAN: pitch * height does not wrap */
		if (dspan != dpitch * last->height || sspan != spitch * last->height)
			return false;
	} else {
		dpitch = dspan;
		spitch = sspan;
		if (dpitch < w || spitch < w)
			return false;
	}
	last->height++;
	last->dst.pitch = dpitch;
	last->src.pitch = spitch;
	swap(last->dst.span, dspan);
	swap(last->src.span, sspan);
	last->dst.span += w;
	last->src.span += w;
	if (uvm_copy_box_overlap(last)) {
		last->height--;
		last->dst.span = dspan;
		last->src.span = sspan;
		if (last->height == 1) {
			last->dst.pitch = 0;
			last->src.pitch = 0;
		}
		return false;
	}
	last->length += w;
	last->copies++;
	return true;
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
	struct uvm_copy_op op = {
		.dst = args->dst,
		.src = args->src,
		.width = args->width,
		.height = args->height,
		.depth = args->depth,
	};
	struct uvm_copy_job *job;
	u32 failed;

	if ((args->flags & ~UVM_COPY_ASYNC) ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    !uvm_copy_op_length(&op))
		return -EINVAL;
	if (!uvm_gpu_get(args->gpu_index))
		return -ENODEV;

	job = uvm_copy_job_alloc();
	if (!job)
		return -ENOMEM;
	job->gpu = uvm_gpu_get(args->gpu_index);
	if (uvm_copy_box_init(&op, &job->one)) {
		uvm_copy_job_free(&job->job);
		return -EINVAL;
	}
	return uvm_copy_submit(va_space, job, args->flags, &args->fence, &failed);
}

/**
 * uvm_copy_ops_read() - read copies of UVM_IOC_COPY_BATCH
 * @ops:	out
 * @user:	the caller's copies
 * @n:		how many, at most UVM_COPY_BATCH_CHUNK
 *
 * Member by member, which costs what copy_from_user() costs on hardware;
 * but an emulated CPU (QEMU's TCG, the test bed) runs the "rep movsb" of
 * copy_from_user() a byte at a time, and the 72 bytes of each copy then
 * cost more than validating it.
 *
 * Return: 0 or -EFAULT.
 */
static int uvm_copy_ops_read(struct uvm_copy_op *ops, const struct uvm_copy_op __user *user,
			     u32 n)
{
	u32 i;

	if (!user_access_begin(user, array_size(n, sizeof(*user))))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		unsafe_get_user(ops[i].dst.addr, &user[i].dst.addr, efault);
		unsafe_get_user(ops[i].dst.pitch, &user[i].dst.pitch, efault);
		unsafe_get_user(ops[i].dst.slice_pitch, &user[i].dst.slice_pitch, efault);
		unsafe_get_user(ops[i].src.addr, &user[i].src.addr, efault);
		unsafe_get_user(ops[i].src.pitch, &user[i].src.pitch, efault);
		unsafe_get_user(ops[i].src.slice_pitch, &user[i].src.slice_pitch, efault);
		unsafe_get_user(ops[i].width, &user[i].width, efault);
		unsafe_get_user(ops[i].height, &user[i].height, efault);
		unsafe_get_user(ops[i].depth, &user[i].depth, efault);
		unsafe_get_user(ops[i].reserved, &user[i].reserved, efault);
	}
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

/**
 * uvm_ioc_copy_batch() - UVM_IOC_COPY_BATCH
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_copy_batch
 *
 * Return: see the uapi.
 */
int uvm_ioc_copy_batch(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_copy_batch *args = data;
	struct uvm_copy_op __user *user = u64_to_user_ptr(args->ops);
	struct uvm_copy_box *box;
	struct uvm_copy_op *ops;
	struct uvm_copy_job *job;
	u32 base, n, i;
	int ret = 0;

	args->failed = args->count;
	if ((args->flags & ~UVM_COPY_ASYNC) ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    !args->count || args->count > UVM_COPY_BATCH_MAX)
		return -EINVAL;
	if (!uvm_gpu_get(args->gpu_index))
		return -ENODEV;

	/* the copies are read UVM_COPY_BATCH_CHUNK at a time */
	ops = kmalloc_array(min_t(u32, args->count, UVM_COPY_BATCH_CHUNK), sizeof(*ops),
			    GFP_KERNEL);
	job = uvm_copy_batch_alloc(va_space, args->count);
	if (!ops || !job) {
		ret = -ENOMEM;
		goto out;
	}
	job->gpu = uvm_gpu_get(args->gpu_index);
	for (base = 0; base < args->count && !ret; base += n) {
		n = min_t(u32, args->count - base, UVM_COPY_BATCH_CHUNK);
		ret = uvm_copy_ops_read(ops, user + base, n);
		for (i = 0; i < n && !ret; i++) {
			box = &job->boxes[job->nboxes];
			if (job->nboxes && uvm_copy_op_merge(box - 1, &ops[i]))
				continue;
			ret = uvm_copy_box_init(&ops[i], box);
			if (ret) {
				args->failed = base + i;
				break;
			}
			box->index = base + i;
			box->copies = 1;
			job->nboxes++;
		}
	}
out:
	kfree(ops);
	if (ret) {
		if (job)
			uvm_copy_job_free(&job->job);
		return ret;
	}
	return uvm_copy_submit(va_space, job, args->flags, &args->fence, &args->failed);
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
	struct uvm_copy_box *box;
	u64 width, length;
	u32 failed;

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

	job = uvm_copy_job_alloc();
	if (!job)
		return -ENOMEM;
	job->gpu = uvm_gpu_get(args->gpu_index);
	job->is_memset = true;
	job->pattern = uvm_copy_pattern(args->value, size);
	box = &job->one;
	box->length = length;
	box->width = width;
	box->height = args->height;
	box->depth = args->depth;
	if (uvm_copy_box_check(&args->dst, width, box->height, box->depth, size, &box->dst)) {
		uvm_copy_job_free(&job->job);
		return -EINVAL;
	}
	return uvm_copy_submit(va_space, job, args->flags, &args->fence, &failed);
}
