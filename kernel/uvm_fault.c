// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Servicing of replayable GPU faults, in batches.
 *
 * DOC: Replayable fault servicing
 *
 * A GPU access that misses its translation writes a fault entry into the
 * GPU's replayable fault buffer and stalls.  The backend signals it with
 * uvm_gpu_fault_notify(), which queues the GPU's servicing work.  The work
 * runs the pipeline, batch after batch, until the buffer is empty:
 *
 * 1. fetch: up to fault_batch_size entries from the buffer;
 * 2. sort and coalesce: order by (GPU VA space, page, access) and merge the
 *    entries of one page into one fault with the strongest access type;
 *    what was merged is counted as duplicates;
 * 3. service: per VA space (found by the entries' instance id), per 2 MiB
 *    block under one hold of the block lock: make the faulted pages resident
 *    on the GPU and map them (uvm_va_block_service_gpu_faults());
 *    Faults outside every allocation are pageable memory: they are served
 *    through HMM (uvm_hmm.c) once the VA space lock is dropped, since HMM
 *    takes mmap_lock, which comes before it;
 * 4. cancel the fatal faults (addresses the CPU could not access either, or
 *    memory that could not be allocated): the faulting accesses end with an
 *    error;
 * 5. replay: every stalled access retries.  Accesses whose fault was not
 *    in this batch (fetched later, or dropped on overflow) fault again and
 *    are coalesced in a later batch.  fault_replay_policy moves the replay:
 *    after each block, after each batch, after each batch with the buffer
 *    flushed first (the default: its entries are mostly duplicates of what
 *    was just serviced), or once when the buffer is empty.  A batch whose
 *    faults all went to deferred servicers (below) is neither flushed nor
 *    replayed: the servicers replay.
 *
 * The time spent in each stage is summed per GPU (sysfs fault_*_ns).  Each
 * batch fires the tracepoints uvm_fault_batch_fetched and
 * uvm_fault_batch_serviced, each block uvm_block_serviced, each replay
 * uvm_replay, each fatal fault uvm_fatal_fault (and a dmesg line with the
 * process); the netlink stream gets one event per batch and VA space, with
 * the counts added to the VA space's counters (uvm_events.h).
 *
 * One pass handles at most UVM_FAULT_MAX_BATCHES_PER_PASS batches, then
 * requeues itself so that other work gets the CPU.  Each GPU has its own
 * unbound work item: GPUs are serviced in parallel, on any CPU.
 *
 * Stage 3 is cut into groups of faults, each serviced under one hold of
 * its VA space's lock (struct uvm_fault_group).  A batch gets up to
 * fault_service_threads workers, but at least
 * fault_service_faults_per_thread distinct faults per worker (waking a
 * helper costs more than servicing a few faults).  With one worker a group
 * is all the faults of one VA space, serviced in order by the GPU's work
 * item, as the driver always did.  With more a group is the faults of one
 * 2 MiB block, and the workers service the groups concurrently: the GPU's
 * work item itself and helper work items on an unbound workqueue.  Worker
 * i starts with group i, then each claims the next unclaimed group until
 * none is left; the work item waits for its helpers, then cancels and
 * replays once for the whole batch, as with one worker.  Per-block replays
 * (policy 1) come from whichever worker serviced the block.
 *
 * Locking: the servicing state (struct uvm_fault_service) belongs to the
 * work item, which never runs concurrently with itself; during stage 3 each
 * worker writes only its own struct uvm_fault_worker and claims groups with
 * an atomic cursor.  Per group a worker takes uvm_va_space.lock for read,
 * per block uvm_va_block.lock, itself: the work item never holds a lock
 * while it waits for its helpers (a writer queued on the VA space lock
 * would otherwise block the helpers' readers behind the work item's read
 * hold).  The VA spaces of the batch are pinned by references (kref) that
 * the work item takes before the helpers start and drops after they
 * finished.  Managed memory is served without mmap_lock; pageable memory
 * after the VA space lock is dropped, with mmap_lock (see uvm_hmm.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>

#include "uvm_events.h"
#include "uvm_evict.h"
#include "uvm_fault.h"
#include "uvm_gpu.h"
#include "uvm_hmm.h"
#include "uvm_param.h"
#include "uvm_va_block.h"
#include "uvm_va_block_service.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

#define UVM_FAULT_BATCH_DEFAULT		256
#define UVM_FAULT_BATCH_MIN		1
#define UVM_FAULT_BATCH_MAX		4096
#define UVM_FAULT_MAX_BATCHES_PER_PASS	20
#define UVM_FAULT_THREADS_MAX		16
#define UVM_FAULT_PER_THREAD_DEFAULT	16

/* fault_replay_policy values */
#define UVM_REPLAY_BLOCK	1	/* after each block serviced */
#define UVM_REPLAY_BATCH	2	/* after each batch */
#define UVM_REPLAY_BATCH_FLUSH	3	/* after each batch, buffer flushed first */
#define UVM_REPLAY_ONCE		4	/* once the buffer is empty */

static unsigned int fault_batch_size = UVM_FAULT_BATCH_DEFAULT;
module_param(fault_batch_size, uint, 0444);
MODULE_PARM_DESC(fault_batch_size,
		 "Replayable faults fetched and serviced per batch (default "
		 __stringify(UVM_FAULT_BATCH_DEFAULT) ", "
		 __stringify(UVM_FAULT_BATCH_MIN) ".."
		 __stringify(UVM_FAULT_BATCH_MAX) ")");

static struct uvm_param_uint fault_replay_policy = {
	.val = UVM_REPLAY_BATCH_FLUSH,
	.min = UVM_REPLAY_BLOCK,
	.max = UVM_REPLAY_ONCE,
};
module_param_cb(fault_replay_policy, &uvm_param_uint_ops, &fault_replay_policy, 0644);
MODULE_PARM_DESC(fault_replay_policy,
		 "When stalled accesses retry: 1 per block, 2 per batch, 3 per batch after a buffer flush (default, as the real driver), 4 when the buffer is empty");

static struct uvm_param_uint fault_service_threads = {
	.val = 1,
	.min = 1,
	.max = UVM_FAULT_THREADS_MAX,
};
module_param_cb(fault_service_threads, &uvm_param_uint_ops,
		&fault_service_threads, 0644);
MODULE_PARM_DESC(fault_service_threads,
		 "Workers (CPUs) servicing one fault batch of a GPU concurrently, one 2 MiB block each at a time (default 1, 1.."
		 __stringify(UVM_FAULT_THREADS_MAX) ")");

static struct uvm_param_uint fault_service_faults_per_thread = {
	.val = UVM_FAULT_PER_THREAD_DEFAULT,
	.min = 1,
	.max = UVM_FAULT_BATCH_MAX,
};
module_param_cb(fault_service_faults_per_thread, &uvm_param_uint_ops,
		&fault_service_faults_per_thread, 0644);
MODULE_PARM_DESC(fault_service_faults_per_thread,
		 "Distinct faults of a batch per worker at least: smaller batches use fewer workers (default "
		 __stringify(UVM_FAULT_PER_THREAD_DEFAULT) ", 1.."
		 __stringify(UVM_FAULT_BATCH_MAX) ")");

struct uvm_fault_service;

/**
 * struct uvm_fault_group - faults serviced under one hold of a VA space lock
 * @va_space:	their VA space; the work item holds a reference on it
 * @first:	index of the first fault in uvm_fault_service.entries
 * @end:	index after the last
 * @nfatal:	faults of the group found fatal; written by the worker that
 *		serviced the group
 * @deferred:	none of the group's faults was serviced here: all went to
 *		its VA space's deferred servicer; written by that worker too
 */
struct uvm_fault_group {
	struct uvm_va_space *va_space;
	u32 first;
	u32 end;
	u32 nfatal;
	bool deferred;
};

struct uvm_fault_deferred;

/**
 * struct uvm_fault_worker - one CPU's share of servicing a batch
 * @work:	helper work item (worker 0 is the GPU's fault work itself)
 * @svc:	the servicing state it works for
 * @first_group: the group it services first
 * @groups:	groups it serviced in this batch
 * @ctx:	scratch space for block operations; allocated on first use
 * @req:	the faults of the block being serviced
 * @fatal:	faults to cancel after servicing
 * @nfatal:	entries in @fatal
 * @hmm:	faults of the group being serviced outside every
 *		allocation: pageable memory, served after the managed ones
 * @nhmm:	entries in @hmm
 *
 * Written only by the worker while stage 3 runs, read by the GPU's work
 * item after the worker finished (flush_work() orders the two).
 */
struct uvm_fault_worker {
	struct work_struct work;
	struct uvm_fault_service *svc;
	u32 first_group;
	u32 groups;
	struct uvm_va_block_ctx *ctx;
	struct uvm_fault_block_req req;
	struct uvm_fault_entry *fatal;
	u32 nfatal;
	struct uvm_fault_entry *hmm;
	u32 nhmm;
};

/**
 * struct uvm_fault_service - the servicing state of one GPU
 * @gpu:	the GPU
 * @entries:	the batch: fetched entries, then the coalesced faults
 * @merged:	for each coalesced fault, how many entries it stands for
 * @groups:	the batch cut into groups, in entries order
 * @ngroups:	entries in @groups
 * @next_group:	the next group no worker claimed yet
 * @nworkers:	workers with their buffers allocated, at least 1
 * @workers:	worker 0 is the GPU's work item, the others helpers
 * @help_wq:	unbound workqueue running the helpers; NULL for a
 *		deferred servicer (one worker)
 * @batch_start: ktime_get_ns() when the batch being serviced was fetched
 * @deferred:	NULL for the GPU's own servicing state; else this is the
 *		state of one GPU VA space's deferred servicer (struct
 *		uvm_fault_deferred), which waits for locks and counts only
 *		the fatal faults and its replays (the GPU's servicing counted
 *		the faults when it fetched them)
 */
struct uvm_fault_service {
	struct uvm_gpu *gpu;
	struct uvm_fault_entry *entries;
	u32 *merged;
	struct uvm_fault_group *groups;
	u32 ngroups;
	atomic_t next_group;
	u32 nworkers;
	struct uvm_fault_worker workers[UVM_FAULT_THREADS_MAX];
	struct workqueue_struct *help_wq;
	u64 batch_start;
	struct uvm_fault_deferred *deferred;
};

/**
 * struct uvm_fault_deferred - the faults of one GPU VA space, off the GPU's work
 * @work:	services @svc's entries (on uvm_wq), taking the
 *		VA space's locks as long as they take, then replays
 * @svc:	its own servicing state; the GPU's workers append faults to
 *		its entries
 * @va_space:	the VA space; @work holds a reference while queued
 * @lock:	protects @count, @queued, @running and @closed (spinlock,
 *		leaf; taken by any worker of the GPU)
 * @count:	faults appended to @svc->entries
 * @queued:	@work is queued or running
 * @running:	@work took the faults: later ones are dropped, since its
 *		replay, which comes after, retries their accesses too
 * @closed:	the VA space's file is released: nothing is queued any more
 */
struct uvm_fault_deferred {
	struct work_struct work;
	struct uvm_fault_service *svc;
	struct uvm_va_space *va_space;
	spinlock_t lock; /* see above */
	u32 count;
	bool queued;
	bool running;
	bool closed;
};

/**
 * uvm_fault_params_check() - validate the module parameters
 *
 * Return: 0 or -EINVAL.
 */
int uvm_fault_params_check(void)
{
	if (fault_batch_size < UVM_FAULT_BATCH_MIN ||
	    fault_batch_size > UVM_FAULT_BATCH_MAX) {
		pr_err("fault_batch_size=%u is outside %u..%u\n", fault_batch_size,
		       UVM_FAULT_BATCH_MIN, UVM_FAULT_BATCH_MAX);
		return -EINVAL;
	}
	return 0;
}

/**
 * uvm_fault_batch_size() - faults per batch
 *
 * Return: the fault_batch_size parameter.
 */
u32 uvm_fault_batch_size(void)
{
	return fault_batch_size;
}

static int uvm_fault_cmp(const void *a, const void *b)
{
	const struct uvm_fault_entry *x = a, *y = b;
	u64 px = x->va >> PAGE_SHIFT, py = y->va >> PAGE_SHIFT;

	if (x->instance != y->instance)
		return x->instance < y->instance ? -1 : 1;
	if (px != py)
		return px < py ? -1 : 1;
	/* Strongest access first: it is the one kept. */
	return (int)y->access - (int)x->access;
}

/**
 * uvm_fault_coalesce() - sort a batch and merge the faults of each page
 * @svc:	servicing state; entries hold @n fetched entries
 * @n:		entries fetched
 *
 * Return: the number of distinct faults, now at the front of entries.
 */
static u32 uvm_fault_coalesce(struct uvm_fault_service *svc, u32 n)
{
	struct uvm_fault_entry *e = svc->entries;
	u32 i, unique = 0;

	sort(e, n, sizeof(*e), uvm_fault_cmp, NULL);
	for (i = 0; i < n; i++) {
		if (unique && e[i].instance == e[unique - 1].instance &&
		    e[i].va >> PAGE_SHIFT == e[unique - 1].va >> PAGE_SHIFT) {
			svc->merged[unique - 1]++;
			continue;
		}
		e[unique] = e[i];
		svc->merged[unique++] = 1;
	}
	return unique;
}

static void uvm_fault_add_fatal(struct uvm_fault_worker *w,
				const struct uvm_fault_entry *e)
{
	w->fatal[w->nfatal++] = *e;
}

static bool uvm_fault_defer(struct uvm_fault_service *svc, struct uvm_va_space *va_space,
			    const struct uvm_fault_entry *e, u32 n);

/**
 * uvm_fault_service_block() - service the faults of one block
 * @w:		the worker
 * @va_space:	the VA space; its lock held for read
 * @first:	index of the block's first fault in entries
 * @end:	index after its last
 *
 * Faults on device and registered host memory map their fixed pages; faults
 * on managed memory are serviced together through the block.  Faults outside
 * any allocation go to the pageable list (to the fatal list without HMM);
 * all of the block's managed faults when the block cannot be serviced go to
 * the fatal list.  When serving them would wait for busy chunks of a full
 * GPU, the GPU's own servicing hands the block's faults to the VA space's
 * deferred servicer instead.
 *
 * Return: true when a fault was serviced here (mapped, or found fatal),
 * false when all went elsewhere (the pageable list, the deferred servicer).
 */
static bool uvm_fault_service_block(struct uvm_fault_worker *w,
				    struct uvm_va_space *va_space,
				    u32 first, u32 end)
{
	struct uvm_gpu *gpu = w->svc->gpu;
	struct uvm_fault_block_req *req = &w->req;
	struct uvm_fault_entry *e = w->svc->entries;
	struct uvm_va_block *block;
	u32 i, page, nreq = 0;
	bool here = false;
	int ret;

	memset(req, 0, sizeof(*req));
	for (i = first; i < end; i++) {
		struct uvm_va_range *range = uvm_va_range_find(va_space, e[i].va);

		if (!range) {
			w->hmm[w->nhmm++] = e[i];
			continue;
		}
		if (range->kind != UVM_RANGE_MANAGED) {
			/* Device and host memory: fixed pages, just map them. */
			if (uvm_va_range_service_fault(va_space, range, gpu,
						       e[i].va, e[i].access))
				uvm_fault_add_fatal(w, &e[i]);
			here = true;
			continue;
		}
		page = (e[i].va & (UVM_VA_BLOCK_SIZE - 1)) >> PAGE_SHIFT;
		__set_bit(page, req->pages.bits);
		if (e[i].access >= UVM_FAULT_ACCESS_WRITE)
			__set_bit(page, req->write.bits);
		if (e[i].access >= UVM_FAULT_ACCESS_ATOMIC)
			__set_bit(page, req->atomic.bits);
		nreq++;
	}
	if (!nreq)
		return here;

	block = uvm_va_block_get_or_create(va_space, e[first].va);
	if (IS_ERR(block)) {
		ret = PTR_ERR(block);
	} else {
		/*
		 * A full GPU: evict with the block lock dropped, then retry.
		 * The GPU's own servicing does not wait for chunks that are
		 * busy (their VA space locked: possibly for as long as its
		 * process wants): the block's faults go to the VA space's
		 * servicer, which waits.
		 */
		uvm_va_block_ctx_set_no_wait(w->ctx, !w->svc->deferred);
		do {
			mutex_lock(&block->lock);
			ret = uvm_va_block_service_gpu_faults(block, w->ctx, gpu, req);
			mutex_unlock(&block->lock);
		} while (uvm_evict_retry(w->ctx, va_space, &ret));
		if (ret == -EAGAIN && uvm_fault_defer(w->svc, va_space, &e[first], end - first))
			return here;
		if (ret == -EAGAIN)
			ret = -ENOMEM;
	}
	trace_uvm_block_serviced(gpu->index, va_space->id,
				 e[first].va & ~(UVM_VA_BLOCK_SIZE - 1), nreq, ret);
	if (!ret)
		return true;

	pr_info_ratelimited("GPU %u: cannot service faults at 0x%llx: %d\n",
			    gpu->index, e[first].va & ~(UVM_VA_BLOCK_SIZE - 1), ret);
	for (i = first; i < end; i++) {
		struct uvm_va_range *range = uvm_va_range_find(va_space, e[i].va);

		if (range && range->kind == UVM_RANGE_MANAGED)
			uvm_fault_add_fatal(w, &e[i]);
	}
	return true;
}

/**
 * uvm_fault_service_group() - service a group of faults of one VA space
 * @w:		the worker
 * @grp:	the group
 *
 * Takes the VA space lock for read around the group's blocks, then serves
 * the group's pageable faults without it.  The fatal faults are counted in
 * the VA space here; its other counters once the whole batch is serviced.
 *
 * The GPU's own servicing never waits for one process: when the VA space
 * lock is held for writing or a writer waits for it (a munmap behind a long
 * copy), the whole group goes to the VA space's deferred servicer
 * (uvm_fault_defer()).  So do its pageable faults, always: serving them
 * takes the process's mmap_lock and faults pages in through the process's
 * own mappings, which can wait as long as a file system does (a FUSE
 * daemon that never answers).  The deferred servicer itself waits.
 */
static void uvm_fault_service_group(struct uvm_fault_worker *w,
				    struct uvm_fault_group *grp)
{
	struct uvm_gpu *gpu = w->svc->gpu;
	struct uvm_fault_entry *e = w->svc->entries;
	struct uvm_va_space *va_space = grp->va_space;
	u32 i, next, nfatal = w->nfatal;
	struct mem_cgroup *old;

	grp->nfatal = 0;
	if (w->svc->deferred) {
		down_read(&va_space->lock);
	} else if (!down_read_trylock(&va_space->lock)) {
		grp->deferred = uvm_fault_defer(w->svc, va_space, &e[grp->first],
						grp->end - grp->first);
		if (grp->deferred)
			return;
		/* no memory to hand them over: wait, as the servicer would */
		down_read(&va_space->lock);
	}
	/* what serving them allocates is the faulting process's */
	old = uvm_va_space_charge_begin(va_space);
	/* nothing serviced here (all handed over): deferred, no replay for it */
	grp->deferred = true;
	for (i = grp->first; i < grp->end; i = next) {
		u64 block = e[i].va >> UVM_VA_BLOCK_SHIFT;

		for (next = i + 1; next < grp->end; next++)
			if (e[next].va >> UVM_VA_BLOCK_SHIFT != block)
				break;
		if (uvm_fault_service_block(w, va_space, i, next))
			grp->deferred = false;
		if (uvm_param_get(&fault_replay_policy) == UVM_REPLAY_BLOCK) {
			gpu->ops->fault_replay(gpu);
			uvm_gpu_count_event(gpu, UVM_GPU_REPLAYS, 1);
			trace_uvm_replay(gpu->index, UVM_REPLAY_BLOCK);
		}
	}
	up_read(&va_space->lock);
	if (w->nhmm && (w->svc->deferred ||
			!uvm_fault_defer(w->svc, va_space, w->hmm, w->nhmm))) {
		uvm_hmm_service_faults(va_space, gpu, w->hmm, w->nhmm,
				       w->fatal, &w->nfatal);
		grp->deferred = false;
	}
	uvm_va_space_charge_end(old);
	w->nhmm = 0;
	grp->nfatal = w->nfatal - nfatal;
	uvm_va_space_count(va_space, UVM_COUNTER_GPU_FATAL_FAULTS, grp->nfatal);
}

/**
 * uvm_fault_worker_run() - service groups until none is left
 * @w:		the worker
 *
 * Its first group is its own, so that every worker started for a batch
 * services at least one; then it claims the next unclaimed group.
 */
static void uvm_fault_worker_run(struct uvm_fault_worker *w)
{
	struct uvm_fault_service *svc = w->svc;
	u32 g;

	for (g = w->first_group; g < svc->ngroups;
	     g = atomic_fetch_inc(&svc->next_group)) {
		uvm_fault_service_group(w, &svc->groups[g]);
		w->groups++;
	}
}

static void uvm_fault_helper_work(struct work_struct *work)
{
	uvm_fault_worker_run(container_of(work, struct uvm_fault_worker, work));
}

/**
 * uvm_fault_group_batch() - cut a batch into groups, pin their VA spaces
 * @svc:	servicing state
 * @n:		distinct faults at the front of entries, sorted
 * @per_block:	one group per 2 MiB block, instead of per VA space
 *
 * Takes one reference on each VA space of the batch, dropped by
 * uvm_fault_release_groups().  Faults of a VA space that no longer exists
 * are dropped: their launches are gone with it.
 */
static void uvm_fault_group_batch(struct uvm_fault_service *svc, u32 n,
				  bool per_block)
{
	struct uvm_fault_entry *e = svc->entries;
	struct uvm_va_space *va_space;
	u32 i, j, next, end;

	svc->ngroups = 0;
	for (i = 0; i < n; i = end) {
		for (end = i + 1; end < n; end++)
			if (e[end].instance != e[i].instance)
				break;
		va_space = uvm_va_space_get_by_instance(svc->gpu, e[i].instance);
		if (!va_space)
			continue;
		/* One instance per GPU and VA space: else keep one reference. */
		if (svc->ngroups &&
		    WARN_ON_ONCE(svc->groups[svc->ngroups - 1].va_space == va_space))
			uvm_va_space_put(va_space);
		for (j = i; j < end; j = next) {
			next = end;
			if (per_block)
				for (next = j + 1; next < end; next++)
					if (e[next].va >> UVM_VA_BLOCK_SHIFT !=
					    e[j].va >> UVM_VA_BLOCK_SHIFT)
						break;
			svc->groups[svc->ngroups++] = (struct uvm_fault_group){
				.va_space = va_space, .first = j, .end = next,
			};
		}
	}
}

/**
 * uvm_fault_release_groups() - count a serviced batch in its VA spaces
 * @svc:	servicing state; its groups are dropped
 *
 * Return: whether any group was serviced here (not all deferred).
 *
 * The groups of one VA space are adjacent (one instance id per GPU and VA
 * space, and the batch is sorted by instance id); each VA space holds the
 * one reference uvm_fault_group_batch() took.  Each VA space gets one
 * fault-batch event with exactly what its counters got.
 */
static bool uvm_fault_release_groups(struct uvm_fault_service *svc)
{
	struct uvm_va_space *va_space;
	u32 g, i, first, end = 0, raw, fatal;
	bool serviced = false;

	for (g = 0; g < svc->ngroups;) {
		va_space = svc->groups[g].va_space;
		first = svc->groups[g].first;
		for (fatal = 0; g < svc->ngroups && svc->groups[g].va_space == va_space; g++) {
			end = svc->groups[g].end;
			fatal += svc->groups[g].nfatal;
			serviced |= !svc->groups[g].deferred;
		}
		if (svc->deferred) {
			/* counted when the GPU's servicing fetched them */
			uvm_va_space_put(va_space);
			continue;
		}
		for (raw = 0, i = first; i < end; i++)
			raw += svc->merged[i];
		uvm_va_space_count(va_space, UVM_COUNTER_GPU_FAULTS, raw);
		uvm_va_space_count(va_space, UVM_COUNTER_GPU_FAULTS_DUP,
				   raw - (end - first));
		uvm_va_space_count(va_space, UVM_COUNTER_GPU_FAULT_BATCHES, 1);
		uvm_va_space_count(va_space, UVM_COUNTER_GPU_REPLAYS, 1);
		uvm_event_fault_batch(svc->gpu, va_space, raw, raw - (end - first),
				      fatal, svc->batch_start);
		uvm_va_space_put(va_space);
	}
	svc->ngroups = 0;
	return serviced;
}

static void uvm_fault_worker_free(struct uvm_fault_worker *w)
{
	uvm_va_block_ctx_free(w->ctx);
	kvfree(w->hmm);
	kvfree(w->fatal);
}

/**
 * uvm_fault_workers_alloc() - make sure @want workers have their buffers
 * @svc:	servicing state
 * @want:	workers wanted, 1..UVM_FAULT_THREADS_MAX
 *
 * Helpers are allocated on first use, so that raising fault_service_threads
 * at run time takes effect.  Without memory, fewer workers serve.
 *
 * Return: the workers available, at least 1 once uvm_fault_gpu_init() has
 * allocated worker 0.
 */
static u32 uvm_fault_workers_alloc(struct uvm_fault_service *svc, u32 want)
{
	struct uvm_fault_worker *w;

	while (svc->nworkers < want) {
		w = &svc->workers[svc->nworkers];
		w->svc = svc;
		INIT_WORK(&w->work, uvm_fault_helper_work);
		w->fatal = kvcalloc(fault_batch_size, sizeof(*w->fatal), GFP_KERNEL);
		w->hmm = kvcalloc(fault_batch_size, sizeof(*w->hmm), GFP_KERNEL);
		w->ctx = uvm_va_block_ctx_alloc();
		if (!w->fatal || !w->hmm || !w->ctx) {
			uvm_fault_worker_free(w);
			memset(w, 0, sizeof(*w));
			break;
		}
		svc->nworkers++;
	}
	return min(want, svc->nworkers);
}

/**
 * uvm_fault_service_batch() - service the coalesced faults of a batch
 * @gpu:	the faulting GPU
 * @svc:	servicing state
 * @n:		distinct faults at the front of entries, sorted
 *
 * With more than one group and fault_service_threads above 1, helpers
 * service groups beside the GPU's work item, which waits for them holding
 * no lock (only references on the VA spaces).
 *
 * Return: whether any fault was serviced here, not all handed to deferred
 * servicers (which replay themselves).
 */
static bool uvm_fault_service_batch(struct uvm_gpu *gpu,
				    struct uvm_fault_service *svc, u32 n)
{
	u32 threads = clamp_t(u32, uvm_param_get(&fault_service_threads), 1,
			      UVM_FAULT_THREADS_MAX);
	u32 per = max(uvm_param_get(&fault_service_faults_per_thread), 1U);
	u32 i, nworkers, helped = 0;

	/* Waking a helper costs more than a few faults: not for small batches. */
	threads = min(threads, max(n / per, 1U));
	if (svc->deferred)
		threads = 1;
	uvm_fault_group_batch(svc, n, threads > 1);
	nworkers = min(uvm_fault_workers_alloc(svc, threads), svc->ngroups);
	nworkers = max(nworkers, 1U);

	atomic_set(&svc->next_group, nworkers);
	for (i = 0; i < nworkers; i++) {
		svc->workers[i].first_group = i;
		svc->workers[i].groups = 0;
	}
	for (i = 1; i < nworkers; i++)
		queue_work(svc->help_wq, &svc->workers[i].work);
	uvm_fault_worker_run(&svc->workers[0]);
	for (i = 1; i < nworkers; i++) {
		flush_work(&svc->workers[i].work);
		helped += svc->workers[i].groups;
	}
	if (nworkers > 1) {
		uvm_gpu_count_event(gpu, UVM_GPU_FAULT_BATCHES_PARALLEL, 1);
		uvm_gpu_count_event(gpu, UVM_GPU_FAULT_GROUPS_HELPED, helped);
	}
	return uvm_fault_release_groups(svc);
}

/**
 * uvm_fault_report_fatal() - tell the world about a fatal fault
 * @gpu:	the GPU
 * @e:		the fault
 *
 * A dmesg line naming the process (rate limited), the uvm_fatal_fault
 * tracepoint and a netlink event.  The VA space is looked up by instance
 * id: it may be gone already.
 */
static void uvm_fault_report_fatal(struct uvm_gpu *gpu,
				   const struct uvm_fault_entry *e)
{
	struct uvm_va_space *va_space = uvm_va_space_get_by_instance(gpu, e->instance);

	pr_info_ratelimited("GPU %u: fatal %s fault at 0x%llx, pid %d (%s)\n",
			    gpu->index,
			    e->access == UVM_FAULT_ACCESS_READ ? "read" :
			    e->access == UVM_FAULT_ACCESS_WRITE ? "write" :
			    "atomic", e->va, va_space ? va_space->tgid : 0,
			    va_space ? va_space->comm : "gone");
	uvm_event_fatal_fault(gpu, va_space, e->va, e->access);
	if (va_space)
		uvm_va_space_put(va_space);
}

/**
 * uvm_fault_cancel_fatal() - end the accesses whose faults are fatal
 * @gpu:	the GPU
 * @svc:	servicing state; its workers' fatal lists are emptied
 *
 * Each is reported first (while its process is surely still there), then
 * cancelled.
 *
 * Return: the faults cancelled.
 */
static u32 uvm_fault_cancel_fatal(struct uvm_gpu *gpu,
				  struct uvm_fault_service *svc)
{
	struct uvm_fault_worker *w;
	u32 i, total = 0;

	for (w = svc->workers; w < svc->workers + svc->nworkers; w++) {
		for (i = 0; i < w->nfatal; i++)
			uvm_fault_report_fatal(gpu, &w->fatal[i]);
		for (i = 0; i < w->nfatal; i++) {
			const struct uvm_fault_entry *e = &w->fatal[i];

			gpu->ops->fault_cancel(gpu, e->instance, e->va, e->access);
		}
		uvm_gpu_count_event(gpu, UVM_GPU_FATAL_FAULTS, w->nfatal);
		total += w->nfatal;
		w->nfatal = 0;
	}
	return total;
}

/**
 * uvm_fault_flush() - drop the fault entries written meanwhile
 * @gpu:	the GPU
 * @svc:	servicing state; its entries are scratch afterwards
 *
 * The accesses behind them are stalled and fault again after the replay if
 * they still miss; most were duplicates of faults just serviced, and they
 * are counted as such in their VA spaces.
 */
static void uvm_fault_flush(struct uvm_gpu *gpu, struct uvm_fault_service *svc)
{
	struct uvm_va_space *va_space = NULL;
	bool overflow = false;
	u32 n, i, instance = 0, run = 0;

	while ((n = gpu->ops->fault_fetch(gpu, svc->entries, fault_batch_size,
					  &overflow))) {
		uvm_gpu_count_event(gpu, UVM_GPU_FAULTS_FLUSHED, n);
		/* Still faults of their VA spaces: counted, as duplicates. */
		for (i = 0; i < n; i++) {
			if (!va_space || svc->entries[i].instance != instance) {
				if (va_space) {
					uvm_event_faults_flushed(gpu, va_space, run);
					uvm_va_space_put(va_space);
				}
				run = 0;
				instance = svc->entries[i].instance;
				va_space = uvm_va_space_get_by_instance(gpu, instance);
			}
			if (va_space) {
				uvm_va_space_count(va_space, UVM_COUNTER_GPU_FAULTS, 1);
				uvm_va_space_count(va_space, UVM_COUNTER_GPU_FAULTS_DUP, 1);
				run++;
			}
		}
	}
	if (va_space) {
		uvm_event_faults_flushed(gpu, va_space, run);
		uvm_va_space_put(va_space);
	}
}

/**
 * uvm_fault_service_work() - the fault servicing loop of a GPU
 * @work:	uvm_gpu.fault_work
 *
 * fetch -> coalesce/sort -> service per block -> cancel fatal -> replay,
 * until the buffer is empty or the pass budget is spent.
 */
static void uvm_fault_service_work(struct work_struct *work)
{
	struct uvm_gpu *gpu = container_of(work, struct uvm_gpu, fault_work);
	struct uvm_fault_service *svc = gpu->fault;
	u32 batch, fetched, unique, policy, fatal;
	bool overflow, serviced, pending_replay = false;
	u64 t0, t1, t2, t3;

	for (batch = 0; batch < UVM_FAULT_MAX_BATCHES_PER_PASS; batch++) {
		policy = uvm_param_get(&fault_replay_policy);
		overflow = false;
		t0 = ktime_get_ns();
		fetched = gpu->ops->fault_fetch(gpu, svc->entries,
						fault_batch_size, &overflow);
		if (!fetched && !overflow)
			break;
		t1 = ktime_get_ns();
		trace_uvm_fault_batch_fetched(gpu->index, fetched, overflow);
		svc->batch_start = t0;
		unique = uvm_fault_coalesce(svc, fetched);
		t2 = ktime_get_ns();
		serviced = uvm_fault_service_batch(gpu, svc, unique);
		fatal = uvm_fault_cancel_fatal(gpu, svc);
		t3 = ktime_get_ns();
		trace_uvm_fault_batch_serviced(gpu->index, fetched, fetched - unique,
					       fatal, t3 - t0);
		/*
		 * A batch all handed to deferred servicers needs no replay:
		 * theirs comes when they are done, and one now would only have
		 * the stalled accesses fault again at once, and again.  Nor a
		 * flush: the faults that came meanwhile stay in the buffer for
		 * the next batch (a flush drops them, and only a replay brings
		 * them back).  Faults lost to an overflow need a replay.
		 */
		serviced = serviced || fatal || overflow;
		if (serviced && policy == UVM_REPLAY_BATCH_FLUSH)
			uvm_fault_flush(gpu, svc);
		if (serviced && policy == UVM_REPLAY_ONCE) {
			pending_replay = true;
		} else if (serviced) {
			/* Also after per-block replays: fatal and dropped faults. */
			gpu->ops->fault_replay(gpu);
			uvm_gpu_count_event(gpu, UVM_GPU_REPLAYS, 1);
			trace_uvm_replay(gpu->index, policy);
		}

		uvm_gpu_count_event(gpu, UVM_GPU_FAULTS, fetched);
		uvm_gpu_count_event(gpu, UVM_GPU_FAULTS_DUP, fetched - unique);
		uvm_gpu_count_event(gpu, UVM_GPU_FAULT_BATCHES, fetched ? 1 : 0);
		uvm_gpu_count_event(gpu, UVM_GPU_FAULT_OVERFLOWS, overflow ? 1 : 0);
		uvm_gpu_count_event(gpu, UVM_GPU_FETCH_NS, t1 - t0);
		uvm_gpu_count_event(gpu, UVM_GPU_COALESCE_NS, t2 - t1);
		uvm_gpu_count_event(gpu, UVM_GPU_SERVICE_NS, t3 - t2);
		uvm_gpu_count_event(gpu, UVM_GPU_REPLAY_NS, ktime_get_ns() - t3);
	}
	if (pending_replay) {
		gpu->ops->fault_replay(gpu);
		uvm_gpu_count_event(gpu, UVM_GPU_REPLAYS, 1);
		trace_uvm_replay(gpu->index, UVM_REPLAY_ONCE);
	}
	/* Faults keep coming: let other work run, continue in a new pass. */
	if (batch == UVM_FAULT_MAX_BATCHES_PER_PASS)
		queue_work(gpu->fault_wq, &gpu->fault_work);
}

/**
 * uvm_gpu_fault_notify() - the GPU has pending faults (the fault interrupt)
 * @gpu:	the GPU
 *
 * Context: any, including atomic.
 */
void uvm_gpu_fault_notify(struct uvm_gpu *gpu)
{
	queue_work(gpu->fault_wq, &gpu->fault_work);
}

static void uvm_fault_service_free(struct uvm_fault_service *svc)
{
	u32 i;

	for (i = 0; i < svc->nworkers; i++)
		uvm_fault_worker_free(&svc->workers[i]);
	kvfree(svc->groups);
	kvfree(svc->merged);
	kvfree(svc->entries);
	kfree(svc);
}

/**
 * uvm_fault_service_alloc() - servicing state with one worker
 * @gpu:	the GPU it services
 * @gfp:	allocation flags of the arrays (the worker's scratch space is
 *		the driver's)
 *
 * Return: the state or NULL.
 */
static struct uvm_fault_service *uvm_fault_service_alloc(struct uvm_gpu *gpu, gfp_t gfp)
{
	struct uvm_fault_service *svc = kzalloc(sizeof(*svc), gfp);

	if (!svc)
		return NULL;
	svc->gpu = gpu;
	svc->entries = kvcalloc(fault_batch_size, sizeof(*svc->entries), gfp);
	svc->merged = kvcalloc(fault_batch_size, sizeof(*svc->merged), gfp);
	svc->groups = kvcalloc(fault_batch_size, sizeof(*svc->groups), gfp);
	if (!svc->entries || !svc->merged || !svc->groups ||
	    !uvm_fault_workers_alloc(svc, 1)) {
		uvm_fault_service_free(svc);
		return NULL;
	}
	return svc;
}

/**
 * uvm_fault_gpu_init() - set up fault servicing for a GPU
 * @gpu:	the GPU being registered
 *
 * Return: 0 or -ENOMEM.
 */
int uvm_fault_gpu_init(struct uvm_gpu *gpu)
{
	struct uvm_fault_service *svc = uvm_fault_service_alloc(gpu, GFP_KERNEL);

	if (!svc)
		return -ENOMEM;

	/*
	 * Normal priority on purpose: the warps that raise faults then keep
	 * running while faults accumulate, and batches form instead of one
	 * fault being serviced at a time.
	 */
	gpu->fault_wq = alloc_workqueue("uvm_fault_gpu%u", WQ_UNBOUND, 1, gpu->index);
	if (!gpu->fault_wq)
		goto err_free_svc;
	svc->help_wq = alloc_workqueue("uvm_fault_help_gpu%u", WQ_UNBOUND,
				       UVM_FAULT_THREADS_MAX - 1, gpu->index);
	if (!svc->help_wq)
		goto err_destroy_wq;
	INIT_WORK(&gpu->fault_work, uvm_fault_service_work);
	gpu->fault = svc;
	return 0;

err_destroy_wq:
	destroy_workqueue(gpu->fault_wq);
err_free_svc:
	uvm_fault_service_free(svc);
	return -ENOMEM;
}

/* Deferred servicing: the faults of one GPU VA space off the GPU's work */

/* gvs->deferred after release: nothing is deferred any more. */
#define UVM_FAULT_DEFERRED_CLOSED	ERR_PTR(-ESHUTDOWN)

/**
 * uvm_fault_deferred_work() - service the faults handed over, then replay
 * @work:	uvm_fault_deferred.work
 *
 * The faults were appended by any worker of the GPU, from several batches
 * maybe: sorted and coalesced again first.
 */
static void uvm_fault_deferred_work(struct work_struct *work)
{
	struct uvm_fault_deferred *d = container_of(work, struct uvm_fault_deferred, work);
	struct uvm_fault_service *svc = d->svc;
	struct uvm_gpu *gpu = svc->gpu;
	struct uvm_va_space *va_space = d->va_space;
	u32 n;

	spin_lock(&d->lock);
	d->running = true;
	n = d->count;
	spin_unlock(&d->lock);

	svc->batch_start = ktime_get_ns();
	uvm_fault_service_batch(gpu, svc, uvm_fault_coalesce(svc, n));
	uvm_fault_cancel_fatal(gpu, svc);

	spin_lock(&d->lock);
	d->count = 0;
	d->running = false;
	d->queued = false;
	spin_unlock(&d->lock);
	/*
	 * The stalled accesses of the VA space retry (others' too,
	 * harmlessly), after the servicer takes new faults again: every fault
	 * dropped while it ran is retried by this replay, and any that comes
	 * after it is taken by the next run.
	 */
	gpu->ops->fault_replay(gpu);
	uvm_gpu_count_event(gpu, UVM_GPU_REPLAYS, 1);
	/* the file still holds its reference: not the last one */
	uvm_va_space_put(va_space);
}

/* Free a deferred servicer (NULL or partly allocated too). */
static void uvm_fault_deferred_free(struct uvm_fault_deferred *d)
{
	if (!d)
		return;
	if (d->svc)
		uvm_fault_service_free(d->svc);
	kfree(d);
}

/**
 * uvm_fault_deferred_get() - the deferred servicer of a GPU VA space
 * @gpu:	the GPU
 * @gvs:	the GPU VA space
 *
 * Allocated on first use; several workers of the GPU may race, one wins.
 *
 * Return: the servicer, NULL without memory, or UVM_FAULT_DEFERRED_CLOSED
 * once the VA space's file is released.
 */
static struct uvm_fault_deferred *uvm_fault_deferred_get(struct uvm_gpu *gpu,
							 struct uvm_gpu_va_space *gvs)
{
	struct uvm_fault_deferred *d = READ_ONCE(gvs->deferred), *old;
	struct mem_cgroup *memcg;

	if (d)
		return d;
	/* the VA space's, charged to its owner */
	memcg = uvm_va_space_charge_begin(gvs->va_space);
	d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);
	if (d)
		d->svc = uvm_fault_service_alloc(gpu, GFP_KERNEL_ACCOUNT);
	uvm_va_space_charge_end(memcg);
	if (!d || !d->svc) {
		uvm_fault_deferred_free(d);
		return NULL;
	}
	d->svc->deferred = d;
	d->va_space = gvs->va_space;
	spin_lock_init(&d->lock);
	INIT_WORK(&d->work, uvm_fault_deferred_work);
	old = cmpxchg(&gvs->deferred, NULL, d);
	if (!old)
		return d;
	uvm_fault_deferred_free(d);
	return old;
}

/**
 * uvm_fault_defer() - hand faults of a VA space to its deferred servicer
 * @svc:	the GPU's servicing state
 * @va_space:	the VA space; the caller holds a reference
 * @e:		the faults
 * @n:		how many
 *
 * While the servicer has not started, faults are appended (up to a batch);
 * once it took them, or when the VA space is being released, they are
 * dropped: their accesses stay stalled and retry at its replay, which
 * comes after.
 *
 * Return: true when the faults were handed over or dropped; false when no
 * servicer could be allocated (the caller services them itself).
 */
static bool uvm_fault_defer(struct uvm_fault_service *svc, struct uvm_va_space *va_space,
			    const struct uvm_fault_entry *e, u32 n)
{
	struct uvm_fault_deferred *d;

	d = uvm_fault_deferred_get(svc->gpu, uvm_va_space_gpu_va_space(va_space, svc->gpu));
	if (!d)
		return false;
	uvm_gpu_count_event(svc->gpu, UVM_GPU_FAULT_GROUPS_DEFERRED, 1);
	if (IS_ERR(d))
		return true;
	spin_lock(&d->lock);
	if (!d->closed && !d->running) {
		n = min(n, fault_batch_size - d->count);
		memcpy(&d->svc->entries[d->count], e, n * sizeof(*e));
		d->count += n;
		if (!d->queued) {
			d->queued = true;
			kref_get(&va_space->kref);
			queue_work(uvm_wq, &d->work);
		}
	}
	spin_unlock(&d->lock);
	return true;
}

/**
 * uvm_fault_va_space_release() - stop deferring faults of a released VA space
 * @va_space:	the VA space, unpublished (no new fault finds it)
 *
 * Fault servicing that found it before may still try to defer: it finds
 * the servicer closed.  Waits for a deferred servicer at work.
 *
 * Context: release, process context.
 */
void uvm_fault_va_space_release(struct uvm_va_space *va_space)
{
	struct uvm_fault_deferred *d;
	u32 i;

	for (i = 0; i < uvm_gpu_count; i++) {
		d = cmpxchg(&va_space->gpu_va_spaces[i].deferred, NULL,
			    UVM_FAULT_DEFERRED_CLOSED);
		if (!d)
			continue;
		spin_lock(&d->lock);
		d->closed = true;
		spin_unlock(&d->lock);
		flush_work(&d->work);
	}
}

/**
 * uvm_fault_va_space_free() - free the deferred servicers of a VA space
 * @va_space:	the VA space, its last reference gone (no work holds one)
 */
void uvm_fault_va_space_free(struct uvm_va_space *va_space)
{
	struct uvm_fault_deferred *d;
	u32 i;

	for (i = 0; i < uvm_gpu_count; i++) {
		d = va_space->gpu_va_spaces[i].deferred;
		if (!IS_ERR(d))
			uvm_fault_deferred_free(d);
	}
}

/**
 * uvm_fault_gpu_deinit() - stop fault servicing for a GPU
 * @gpu:	the GPU being unregistered; the backend raises no more faults
 *
 * The fault work finishes first: it waits for its helpers.
 */
void uvm_fault_gpu_deinit(struct uvm_gpu *gpu)
{
	destroy_workqueue(gpu->fault_wq);
	destroy_workqueue(gpu->fault->help_wq);
	uvm_fault_service_free(gpu->fault);
	gpu->fault = NULL;
}
