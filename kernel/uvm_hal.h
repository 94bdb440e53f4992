/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The hardware abstraction between the driver core and a GPU.
 *
 * DOC: GPU hardware abstraction
 *
 * The driver core touches a GPU only through &struct uvm_gpu_ops.  A backend
 * (the built-in simulated GPU in simgpu/, a real GPU later) provides:
 *
 *  - GPU VA spaces: one GPU page-table root per (VA space, GPU), named by a
 *    32-bit "instance" that the GPU writes into every fault entry (a real
 *    GPU's instance block address maps to it);
 *  - page-table updates (map, unmap) and TLB invalidation, with PTEs of the
 *    sizes the GPU advertises in &uvm_gpu_props.page_sizes (see "Page
 *    sizes" below).  After
 *    tlb_invalidate() returns, no access that used a translation removed
 *    before the call is still in flight: the core may then reuse or move the
 *    physical memory behind it;
 *  - a replayable fault buffer: the GPU writes fault entries and stalls the
 *    faulting accesses; the core fetches entries, services them, then replays
 *    (stalled accesses retry) or cancels (the faulting accesses end with a
 *    fatal error);
 *  - copy engines: asynchronous copies and memsets between any two GPU
 *    physical addresses, completing in submission order, tracked by a
 *    per-GPU sequence number;
 *  - vidmem allocation in 2 MiB chunks and the mapping of system pages for
 *    GPU access (DMA addresses).
 *
 * The backend notifies the core with uvm_gpu_fault_notify() when new fault
 * entries (or an overflow) are pending: the equivalent of the fault
 * interrupt.
 *
 * Page sizes: a GPU maps 4 KiB pages and may support bigger PTEs (64 KiB,
 * 2 MiB) for physically contiguous, naturally aligned runs.  The contract:
 *
 *  - map() writes @count PTEs of one @page_size; it replaces the PTEs it
 *    covers.  When it covers only part of a bigger PTE, the backend first
 *    splits that PTE into PTEs of @page_size with the same translation, so
 *    the rest of its range stays mapped: the core splits a big mapping by
 *    rewriting its whole range with smaller PTEs, in as many map() calls as
 *    it likes, and the GPU never sees a hole;
 *  - unmap() covers whole PTEs only: the core splits a big PTE (as above)
 *    before unmapping part of it.  A backend given a range that cuts a big
 *    PTE warns once and unmaps exactly the range (splitting), or, without
 *    memory to split, the whole big PTE;
 *  - a split rewrites identical translations, so it needs no TLB invalidate
 *    by itself; the unmap or permission change that follows it does.
 *
 * Locking: the ops may be called concurrently from several threads, except
 * fault_fetch(), which the core calls from one servicing context per GPU at a
 * time.  None of the ops sleeps for long; ce_wait() blocks until the copy
 * engine reaches the given sequence number, which it always does.
 */
#ifndef _UVM_HAL_H_
#define _UVM_HAL_H_

#include <linux/types.h>

struct page;
struct uvm_gpu;
struct uvm_fault_deferred;
struct uvm_va_space;

/**
 * struct uvm_gpu_va_space - a VA space as one GPU sees it
 * @gpu:	the GPU
 * @va_space:	the VA space (core object, opaque to backends)
 * @instance:	the number naming this GPU VA space in fault entries,
 *		1..U32_MAX, assigned by the core before vaspace_create(),
 *		unique per GPU
 * @hw:		backend private: the page-table root
 * @deferred:	core private: the faults fault servicing handed to this
 *		GPU VA space's own work item (uvm_fault.c), allocated on first
 *		use
 *
 * Owned by the core; backends read @gpu, @instance and own @hw.
 */
struct uvm_gpu_va_space {
	struct uvm_gpu *gpu;
	struct uvm_va_space *va_space;
	u32 instance;
	void *hw;
	struct uvm_fault_deferred *deferred;
};

/* Where a GPU physical address points. */
enum uvm_aperture {
	UVM_APERTURE_SYS = 1,	/* system memory, by DMA address */
	UVM_APERTURE_VID = 2,	/* vidmem of GPU @gpu of the address */
};

/**
 * struct uvm_gpu_address - a physical address as GPUs see it
 * @addr:	DMA address (SYS) or offset into the owner's vidmem (VID)
 * @aperture:	enum uvm_aperture
 * @gpu:	for VID, index of the GPU owning the vidmem; an access from
 *		another GPU is a peer access
 */
struct uvm_gpu_address {
	u64 addr;
	u16 aperture;
	u16 gpu;
};

/* Access types of faults, ordered: a higher one implies the lower ones. */
enum uvm_fault_access {
	UVM_FAULT_ACCESS_READ = 1,
	UVM_FAULT_ACCESS_WRITE = 2,
	UVM_FAULT_ACCESS_ATOMIC = 3,
};

/* GPU mapping permissions, ordered like enum uvm_fault_access. */
enum uvm_prot {
	UVM_PROT_NONE = 0,
	UVM_PROT_READ_ONLY = 1,
	UVM_PROT_READ_WRITE = 2,
	UVM_PROT_READ_WRITE_ATOMIC = 3,
};

/**
 * struct uvm_fault_entry - one replayable fault as fetched from the buffer
 * @va:		faulting virtual address (byte granular)
 * @timestamp:	ktime_get_ns() when the GPU wrote the entry
 * @instance:	GPU VA space instance the access ran in
 * @access:	enum uvm_fault_access
 * @client:	GPU unit that faulted (a warp id on the simulated GPU)
 */
struct uvm_fault_entry {
	u64 va;
	u64 timestamp;
	u32 instance;
	u16 access;
	u16 client;
};

/**
 * struct uvm_access_counter_entry - a region a GPU accessed remotely often
 * @va:		first byte of the 2 MiB region
 * @instance:	GPU VA space of the accesses
 * @count:	accesses counted since the last notification of the region
 */
struct uvm_access_counter_entry {
	u64 va;
	u32 instance;
	u32 count;
};

/* struct uvm_ce_op::type */
enum uvm_ce_op_type {
	UVM_CE_COPY = 1,
	UVM_CE_MEMSET = 2,	/* fill @dst with the 64-bit @value */
};

/**
 * struct uvm_ce_op - one copy-engine operation
 * @type:	enum uvm_ce_op_type
 * @size:	bytes (of each row); page aligned addresses and sizes for the
 *		core's uses but strided copies
 * @rows:	0 or 1: one run of @size bytes; more: a strided operation, whose
 *		row r starts at @dst + r * @dst_pitch (and @src + r *
 *		@src_pitch): the engine walks the rows, each a run of its own
 *		(a MEMSET's pattern starts again at each row)
 * @dst:	destination
 * @src:	source (COPY)
 * @value:	fill pattern (MEMSET)
 * @dst_pitch:	bytes from a destination row to the next, >= @size
 * @src_pitch:	bytes from a source row to the next, >= @size (COPY)
 */
struct uvm_ce_op {
	u32 type;
	u32 size;
	u32 rows;
	struct uvm_gpu_address dst;
	struct uvm_gpu_address src;
	u64 value;
	u64 dst_pitch;
	u64 src_pitch;
};

/**
 * struct uvm_gpu_ops - what a GPU backend provides to the core
 *
 * @vaspace_create: create the page-table root of @gvs (gvs->instance is
 *	already assigned by the core); may sleep.  Return 0 or -errno.
 * @vaspace_destroy: free it; all its mappings are gone and no launch uses it.
 * @map: write @count consecutive PTEs of @page_size bytes (a size in
 *	&uvm_gpu_props.page_sizes) from @va, PTE i mapping the physically
 *	contiguous run of @page_size bytes that starts at @pages[i], with
 *	permission @prot; @va and every @pages[i].addr are aligned to
 *	@page_size.  Replaces existing PTEs (splitting bigger ones it covers
 *	partly, see "Page sizes").  Called in process context under the
 *	core's block lock; must not sleep for long.  Return 0 or -errno
 *	(-ENOMEM for page-table memory); on failure some PTEs of the range
 *	may have been written: the caller unmaps the range (or, for fixed
 *	memory, leaves the correct PTEs).
 * @unmap: clear the PTEs of the @npages 4 KiB pages from @va; the range
 *	covers whole PTEs (see "Page sizes").  Never fails.
 * @tlb_invalidate: make the page-table updates of [@va, @va + @size)
 *	visible and wait until no access using an older translation of that
 *	range is in flight.  May sleep.
 * @fault_fetch: move up to @max pending fault entries into @entries and
 *	return how many; *@overflow is set when entries were dropped because
 *	the buffer was full since the last fetch (their accesses stay stalled
 *	and fault again after the next replay).
 * @fault_replay: let every stalled access retry its translation.
 * @fault_cancel: end, with a fatal error, the accesses of @instance stalled
 *	on the page of @va whose access type is at least @access.
 *	@fault_replay and @fault_cancel may run concurrently with each other
 *	and with @fault_fetch: the GPU's fault servicing and the deferred
 *	servicers of VA spaces (uvm_fault.c) call them.
 * @ce_submit: queue @count operations on the copy engine; on success set
 *	*@seqno to the sequence number that completes with the last of them.
 *	Process context, no spinlock held: may sleep briefly (waiting for the
 *	engine when memory for the queue is short).
 * @ce_wait: wait until the copy engine has completed @seqno.
 * @ce_done: true when @seqno has completed.
 * @vidmem_alloc: allocate a 2 MiB-aligned vidmem chunk of @size bytes,
 *	set *@addr to its offset.  -ENOMEM when vidmem is exhausted.  Process
 *	context; may sleep and reclaim (backing memory is allocated on first
 *	use), so not under a lock that reclaim takes.
 * @vidmem_free: free a chunk from @vidmem_alloc.
 * @sysmem_map: make @page accessible to the GPU, set *@dma.
 * @sysmem_unmap: undo @sysmem_map.
 * @access_counters_set: (optional) count the GPU's accesses through remote
 *	mappings (system memory, peer vidmem) per 2 MiB region; every
 *	@threshold accesses to a region, queue an entry and call
 *	uvm_gpu_access_counter_notify().  0 turns counting off.
 * @access_counters_fetch: (optional) move up to @max queued entries into
 *	@entries; return how many.
 */
struct uvm_gpu_ops {
	int (*vaspace_create)(struct uvm_gpu *gpu, struct uvm_gpu_va_space *gvs);
	void (*vaspace_destroy)(struct uvm_gpu *gpu, struct uvm_gpu_va_space *gvs);

	int (*map)(struct uvm_gpu_va_space *gvs, u64 va,
		   const struct uvm_gpu_address *pages, u32 count,
		   u32 page_size, enum uvm_prot prot);
	void (*unmap)(struct uvm_gpu_va_space *gvs, u64 va, u32 npages);
	void (*tlb_invalidate)(struct uvm_gpu_va_space *gvs, u64 va, u64 size);

	u32 (*fault_fetch)(struct uvm_gpu *gpu, struct uvm_fault_entry *entries,
			   u32 max, bool *overflow);
	void (*fault_replay)(struct uvm_gpu *gpu);
	void (*fault_cancel)(struct uvm_gpu *gpu, u32 instance, u64 va,
			     enum uvm_fault_access access);

	int (*ce_submit)(struct uvm_gpu *gpu, const struct uvm_ce_op *ops,
			 u32 count, u64 *seqno);
	void (*ce_wait)(struct uvm_gpu *gpu, u64 seqno);
	bool (*ce_done)(struct uvm_gpu *gpu, u64 seqno);

	int (*vidmem_alloc)(struct uvm_gpu *gpu, u64 size, u64 *addr);
	void (*vidmem_free)(struct uvm_gpu *gpu, u64 addr, u64 size);

	int (*sysmem_map)(struct uvm_gpu *gpu, struct page *page, u64 *dma);
	void (*sysmem_unmap)(struct uvm_gpu *gpu, u64 dma);

	void (*access_counters_set)(struct uvm_gpu *gpu, u32 threshold);
	u32 (*access_counters_fetch)(struct uvm_gpu *gpu,
				     struct uvm_access_counter_entry *entries,
				     u32 max);
};

/**
 * struct uvm_gpu_props - what a backend tells the core about a GPU
 * @name:		marketing name
 * @uuid:		stable identifier
 * @vidmem_size:	bytes of vidmem, a multiple of 2 MiB
 * @fault_buffer_entries: capacity of the replayable fault buffer
 * @copy_engines:	number of copy engines
 * @page_sizes:		PTE sizes map() accepts, a bitmask of sizes in bytes
 *			(SZ_4K | SZ_64K | SZ_2M); PAGE_SIZE is always
 *			supported, 0 means PAGE_SIZE only
 * @simulated:		the simulated backend
 */
struct uvm_gpu_props {
	const char *name;
	u8 uuid[16];
	u64 vidmem_size;
	u32 fault_buffer_entries;
	u32 copy_engines;
	u32 page_sizes;
	bool simulated;
};

struct uvm_gpu *uvm_gpu_register(const struct uvm_gpu_ops *ops, void *hw,
				 const struct uvm_gpu_props *props);
void uvm_gpu_unregister(struct uvm_gpu *gpu);
void *uvm_gpu_hw(struct uvm_gpu *gpu);
u32 uvm_gpu_index(struct uvm_gpu *gpu);
void uvm_gpu_fault_notify(struct uvm_gpu *gpu);
void uvm_gpu_access_counter_notify(struct uvm_gpu *gpu);

#endif /* _UVM_HAL_H_ */
