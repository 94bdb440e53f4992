/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * simgpu_internal.h - objects shared by the files of the simulated GPU.
 *
 * DOC: simulated GPU, internal objects
 *
 * One &struct simgpu per simulated GPU, created at load by simgpu_main.c and
 * freed at unload.  It aggregates the units of the GPU, one file each:
 *
 *  - &struct simgpu_vidmem (simgpu_vidmem.c): 2 MiB chunks of "video memory"
 *    backed by host pages;
 *  - &struct simgpu_vaspace (simgpu_mmu.c): the page table of one GPU VA
 *    space (format in simgpu_pt.c) and the semaphore that implements TLB
 *    invalidation;
 *  - &struct simgpu_fault_buffer (simgpu_fault_buffer.c): the replayable
 *    fault ring and the list of stalled warps;
 *  - &struct simgpu_ce (simgpu_ce.c): the copy engine;
 *  - &struct simgpu_launch and &struct simgpu_warp (simgpu_exec.c): a running
 *    access program and its warps, executed as work items on the per-GPU
 *    warp workqueue.
 *
 * Locking: the order, outermost first, is
 *
 *  1. &simgpu_vaspace.tlb_sem (read by warps around translate + access,
 *     write by tlb_invalidate()); never held while taking the locks below
 *     except the xarray lock (through xa_load(), RCU only);
 *  2. &simgpu_fault_buffer.lock (fault ring, stalled list, launch failure);
 *  3. &simgpu_launch.wq.lock (a launch's count of active warps);
 *  4. the workqueue's internal locks (queue_work() is called under 2).
 *
 * &simgpu_ce.lock and &simgpu_vidmem.lock are leaves, never nested with the
 * others.  No lock here is taken from hard or soft interrupt context.
 */
#ifndef _UVM_SIMGPU_INTERNAL_H_
#define _UVM_SIMGPU_INTERNAL_H_

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/list.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "uvm_hal.h"
#include "uvm_test.h"
#include "simgpu.h"

#define SIMGPU_PREFIX		"simgpu: "

/* Vidmem is handed out in chunks of this size (a VA block). */
#define SIMGPU_CHUNK_SHIFT	21
#define SIMGPU_CHUNK_SIZE	BIT_ULL(SIMGPU_CHUNK_SHIFT)
#define SIMGPU_CHUNK_PAGES	(SIMGPU_CHUNK_SIZE >> PAGE_SHIFT)

/**
 * struct simgpu_chunk - host pages backing one 2 MiB vidmem chunk
 * @pages: backing page of each 4 KiB page of the chunk; filled by the
 *	allocator that owns the chunk, never changed afterwards until unload
 */
struct simgpu_chunk {
	struct page *pages[SIMGPU_CHUNK_PAGES];
};

/**
 * struct simgpu_vidmem - the vidmem of one GPU
 * @size:	bytes, a multiple of %SIMGPU_CHUNK_SIZE
 * @nr_chunks:	@size / %SIMGPU_CHUNK_SIZE
 * @lock:	protects @used_map and @used; a leaf lock
 * @used_map:	bit c set when chunk c is allocated
 * @used:	number of allocated chunks
 * @chunks:	backing of each chunk, NULL until first allocated; entry c is
 *		written only by the allocator holding chunk c (published by
 *		WRITE_ONCE), read locklessly by address lookups
 * @backed_pages: host pages allocated for @chunks
 */
struct simgpu_vidmem {
	u64 size;
	u32 nr_chunks;
	spinlock_t lock;	/* used_map, used */
	unsigned long *used_map;
	u32 used;
	struct simgpu_chunk **chunks;
	atomic64_t backed_pages;
};

/**
 * struct simgpu_fault_buffer - the replayable fault buffer of one GPU
 * @lock:	protects every other member, the &simgpu_warp.stall_node of
 *		stalled warps and the failure report of launches
 * @ring:	@size entries
 * @size:	number of entries, a power of two
 * @put:	free-running index of the next entry the GPU writes
 * @get:	free-running index of the next entry fault_fetch() reads
 * @overflow:	an entry was dropped since the last fault_fetch()
 * @stalled:	warps stalled on a fault, waiting for a replay or a cancel
 * @written:	entries written since load
 * @dropped:	entries dropped since load
 * @replays:	fault_replay() calls since load
 * @cancels:	fault_cancel() calls since load
 * @warps_cancelled: warps ended by fault_cancel() since load
 */
struct simgpu_fault_buffer {
	spinlock_t lock;	/* all below, stalled warps, launch failure */
	struct uvm_fault_entry *ring;
	u32 size;
	u32 put;
	u32 get;
	bool overflow;
	struct list_head stalled;
	u64 written;
	u64 dropped;
	u64 replays;
	u64 cancels;
	u64 warps_cancelled;
};

/**
 * struct simgpu_ce - the copy engine of one GPU
 * @lock:	protects @queue, @submitted and @busy; a leaf lock
 * @queue:	submitted &struct simgpu_ce_entry not yet executed, in order
 * @submitted:	sequence number of the last submission
 * @busy:	an entry is executing (worker or inline submitter); the
 *		worker does not start the next one meanwhile
 * @completed:	sequence number of the last completed submission; written
 *		with release semantics after the data is in place
 * @done_wq:	ce_wait() sleeps here; woken after each completion
 * @wq:		ordered workqueue (WQ_MEM_RECLAIM) running @work
 * @work:	executes @queue in order
 * @ops:	operations executed since load
 * @bytes_copied: bytes written by COPY since load
 * @bytes_set:	bytes written by MEMSET since load
 * @inline_count: submissions executed in the submitter's context
 */
struct simgpu_ce {
	spinlock_t lock;	/* queue, submitted, busy */
	struct list_head queue;
	u64 submitted;
	bool busy;
	atomic64_t completed;
	wait_queue_head_t done_wq;
	struct workqueue_struct *wq;
	struct work_struct work;
	atomic64_t ops;
	atomic64_t bytes_copied;
	atomic64_t bytes_set;
	atomic64_t inline_count;
};

/* Access counters: 2 MiB regions, a small direct-mapped table per VA space. */
#define SIMGPU_ACCESS_REGION_SHIFT	21
#define SIMGPU_ACCESS_SLOTS_BITS	6
#define SIMGPU_ACCESS_QUEUE		128

/**
 * struct simgpu_access_slot - the access count of one region
 * @region:	region number + 1, 0 for none
 * @count:	remote accesses since the last notification
 */
struct simgpu_access_slot {
	u64 region;
	atomic_t count;
};

/**
 * struct simgpu_access - the access-counter unit of a GPU
 * @threshold:	accesses per notification, 0 when off
 * @lock:	protects the queue (@queue, @head, @queued, @notifications)
 * @queue:	entries not yet fetched
 * @head:	oldest entry
 * @queued:	entries queued
 * @notifications: entries queued since load
 */
struct simgpu_access {
	u32 threshold;
	spinlock_t lock; /* see above */
	struct uvm_access_counter_entry queue[SIMGPU_ACCESS_QUEUE];
	u32 head;
	u32 queued;
	u64 notifications;
};

/**
 * struct simgpu - one simulated GPU
 * @id:		creation order, 0 .. num_gpus - 1
 * @index:	the core's GPU index (uvm_gpu_index()), used in VID addresses
 * @gpu:	the core's handle, set once registered
 * @name:	marketing name reported to the core
 * @vidmem:	video memory
 * @fault:	replayable fault buffer
 * @ce:		copy engine
 * @warp_wq:	unbound workqueue running the warps of launches
 * @access:	access counters (simgpu_access.c)
 * @tlb_invalidates: tlb_invalidate() calls since load
 * @launches:	launches started since load
 */
struct simgpu {
	u32 id;
	u32 index;
	struct uvm_gpu *gpu;
	char name[32];
	struct simgpu_vidmem vidmem;
	struct simgpu_fault_buffer fault;
	struct simgpu_ce ce;
	struct workqueue_struct *warp_wq;
	struct simgpu_access access;
	atomic64_t tlb_invalidates;
	atomic64_t launches;
};

/**
 * struct simgpu_pt - a two-level GPU page table (simgpu_pt.c)
 * @top:	2 MiB PTEs and leaves keyed by va >> 21; its lock serialises
 *		every writer of the table, readers use RCU
 */
struct simgpu_pt {
	struct xarray top;
};

/**
 * struct simgpu_pte - a decoded translation
 * @pa:		the physical 4 KiB page of the looked-up address
 * @prot:	enum uvm_prot of the PTE
 * @size:	bytes the PTE maps: 4 KiB, 64 KiB or 2 MiB
 */
struct simgpu_pte {
	struct uvm_gpu_address pa;
	u32 prot;
	u32 size;
};

/**
 * struct simgpu_vaspace - the page table of one GPU VA space
 * @sg:		the GPU
 * @instance:	&uvm_gpu_va_space.instance, written into fault entries
 * @pt:		the page table (simgpu_pt.c)
 * @tlb_sem:	read-held by warps around translate + access, write-taken by
 *		tlb_invalidate() to wait for accesses using old translations
 * @access:	access counts of remote accesses by region (simgpu_access.c)
 */
struct simgpu_vaspace {
	struct simgpu *sg;
	u32 instance;
	struct simgpu_pt pt;
	struct rw_semaphore tlb_sem;
	struct simgpu_access_slot access[1 << SIMGPU_ACCESS_SLOTS_BITS];
};

/**
 * struct simgpu_perm - the order in which an op's accesses are issued
 * @n:		number of accesses
 * @random:	permute; otherwise position p is access p
 * @mask:	2^bits - 1, the smallest power-of-two domain covering @n
 * @shift:	xorshift distance of the mixing rounds
 * @key:	round keys derived from the seed
 */
struct simgpu_perm {
	u64 n;
	bool random;
	u64 mask;
	u32 shift;
	u64 key[3];
};

/**
 * struct simgpu_warp - one warp of a launch
 * @work:	runs the warp on &simgpu.warp_wq
 * @launch:	the launch
 * @stall_node: on &simgpu_fault_buffer.stalled while stalled (fault lock)
 * @next:	next position of the access sequence this warp performs
 * @done:	bytes of the access at @next already performed (an access
 *		split at a page boundary resumes after a fault)
 * @checksum:	READ: this warp's share of the op's checksum
 * @fault_va:	while stalled: the faulting address
 * @fault_access: while stalled: enum uvm_fault_access of the fault
 * @id:		warp number, the client id of its fault entries
 *
 * Owned by exactly one of: the launcher (between ops), the workqueue (queued
 * or running), the stalled list.  Whoever ends it calls
 * simgpu_launch_warp_done(), the last touch of the warp and the launch.
 */
struct simgpu_warp {
	struct work_struct work;
	struct simgpu_launch *launch;
	struct list_head stall_node;
	u64 next;
	u32 done;
	u64 checksum;
	u64 fault_va;
	u16 fault_access;
	u16 id;
};

/**
 * struct simgpu_launch - a running access program
 * @sg:		the GPU
 * @vs:		the GPU VA space it runs in
 * @num_warps:	warps of the launch
 * @op:		the op running now (launcher writes it before queueing)
 * @op_index:	index of @op in the program
 * @op_data:	kernel copy of @op's data buffer, or NULL
 * @op_stride:	distance between accesses of @op (never 0)
 * @op_access:	enum uvm_fault_access of @op's accesses
 * @perm:	access order of @op
 * @wq:		the launcher waits here; its lock protects @active
 * @active:	warps of the current op not yet ended
 * @abort:	set when the launch fails, is killed or times out: warps end
 *		at their next access instead of continuing or stalling
 * @failed:	a fault of the launch was cancelled (fault lock)
 * @fail_cancel: &simgpu_fault_buffer.cancels of the fault_cancel() call
 *		that failed the launch (fault lock)
 * @fault_va:	report of the first cancelled fault (fault lock)
 * @fault_access: enum uvm_fault_access of it (fault lock)
 * @fault_op:	op index of it (fault lock)
 * @faults_raised: fault entries written by the warps of this launch
 * @warps:	@num_warps warps
 */
struct simgpu_launch {
	struct simgpu *sg;
	struct simgpu_vaspace *vs;
	u32 num_warps;
	const struct uvm_test_gpu_op *op;
	u32 op_index;
	u8 *op_data;
	u64 op_stride;
	u16 op_access;
	struct simgpu_perm perm;
	wait_queue_head_t wq;
	u32 active;
	bool abort;
	bool failed;
	u64 fail_cancel;
	u64 fault_va;
	u16 fault_access;
	u32 fault_op;
	atomic64_t faults_raised;
	struct simgpu_warp warps[];
};

/* simgpu_main.c */
extern unsigned int simgpu_launch_timeout_s;
extern bool simgpu_ce_inline;
/* The simulated GPUs by core GPU index (simgpu_main.c). */
extern struct simgpu *simgpu_by_index[UVM_MAX_GPUS];

/**
 * simgpu_get() - the simulated GPU with a core GPU index
 * @index: uvm_gpu_index() of the GPU, as found in VID addresses
 *
 * Context: any.
 * Return: the GPU, or NULL when no simulated GPU has that index.
 */
static inline struct simgpu *simgpu_get(u32 index)
{
	if (index >= UVM_MAX_GPUS)
		return NULL;
	return READ_ONCE(simgpu_by_index[index]);
}

/* simgpu_vidmem.c */
int simgpu_vidmem_init(struct simgpu *sg, u64 size, bool prealloc);
void simgpu_vidmem_fini(struct simgpu *sg);
int simgpu_vidmem_alloc(struct uvm_gpu *gpu, u64 size, u64 *addr);
void simgpu_vidmem_free(struct uvm_gpu *gpu, u64 addr, u64 size);
int simgpu_sysmem_map(struct uvm_gpu *gpu, struct page *page, u64 *dma);
void simgpu_sysmem_unmap(struct uvm_gpu *gpu, u64 dma);
bool simgpu_phys_valid(u16 aperture, u16 gpu, u64 addr);
struct page *simgpu_phys_page(u16 aperture, u16 gpu, u64 addr);

/* simgpu_pt.c */
int simgpu_pt_cache_init(void);
void simgpu_pt_cache_exit(void);
void simgpu_pt_init(struct simgpu_pt *pt);
bool simgpu_pt_destroy(struct simgpu_pt *pt);
int simgpu_pt_map(struct simgpu_pt *pt, u64 va,
		  const struct uvm_gpu_address *pages, u32 count,
		  u32 page_size, enum uvm_prot prot);
void simgpu_pt_unmap(struct simgpu_pt *pt, u64 va, u64 npages);
bool simgpu_pt_lookup(struct simgpu_pt *pt, u64 va, struct simgpu_pte *out);

/* simgpu_mmu.c */
int simgpu_vaspace_create(struct uvm_gpu *gpu, struct uvm_gpu_va_space *gvs);
void simgpu_vaspace_destroy(struct uvm_gpu *gpu, struct uvm_gpu_va_space *gvs);
int simgpu_mmu_map(struct uvm_gpu_va_space *gvs, u64 va,
		   const struct uvm_gpu_address *pages, u32 count,
		   u32 page_size, enum uvm_prot prot);
void simgpu_mmu_unmap(struct uvm_gpu_va_space *gvs, u64 va, u32 npages);
void simgpu_mmu_tlb_invalidate(struct uvm_gpu_va_space *gvs, u64 va, u64 size);
struct page *simgpu_mmu_translate(struct simgpu_vaspace *vs, u64 va,
				  enum uvm_fault_access access, bool *remote);
void simgpu_access_count(struct simgpu_vaspace *vs, u64 va);
void simgpu_access_counters_set(struct uvm_gpu *gpu, u32 threshold);
u32 simgpu_access_counters_fetch(struct uvm_gpu *gpu,
				 struct uvm_access_counter_entry *entries, u32 max);

/* simgpu_fault_buffer.c */
int simgpu_fault_buffer_init(struct simgpu *sg, u32 entries);
void simgpu_fault_buffer_fini(struct simgpu *sg);
u32 simgpu_fault_fetch(struct uvm_gpu *gpu, struct uvm_fault_entry *entries,
		       u32 max, bool *overflow);
void simgpu_fault_replay(struct uvm_gpu *gpu);
void simgpu_fault_cancel(struct uvm_gpu *gpu, u32 instance, u64 va,
			 enum uvm_fault_access access);
void simgpu_fault_stall(struct simgpu_warp *warp, u64 va, u16 access);
void __simgpu_fault_unstall_launch(struct simgpu_launch *launch);

/* simgpu_ce.c */
int simgpu_ce_init(struct simgpu *sg);
void simgpu_ce_fini(struct simgpu *sg);
int simgpu_ce_submit(struct uvm_gpu *gpu, const struct uvm_ce_op *ops,
		     u32 count, u64 *seqno);
void simgpu_ce_wait(struct uvm_gpu *gpu, u64 seqno);
bool simgpu_ce_done(struct uvm_gpu *gpu, u64 seqno);

/* simgpu_exec.c */
void simgpu_launch_init(struct simgpu_launch *launch, struct simgpu *sg,
			struct simgpu_vaspace *vs, u32 num_warps);
int simgpu_launch_run_op(struct simgpu_launch *launch,
			 const struct uvm_test_gpu_op *op, u32 op_index,
			 u8 *data, unsigned long deadline, u64 *checksum);
void simgpu_launch_warp_done(struct simgpu_launch *launch);
void simgpu_perm_init(struct simgpu_perm *perm, u64 n, bool random, u32 seed);
u64 simgpu_perm_apply(const struct simgpu_perm *perm, u64 pos);

#endif /* _UVM_SIMGPU_INTERNAL_H_ */
