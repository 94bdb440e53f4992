// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * simgpu_fault_buffer.c - replayable fault buffer of the simulated GPU.
 *
 * DOC: simulated fault buffer
 *
 * Each GPU has a ring of ``fault_buffer_entries`` &struct uvm_fault_entry
 * with free-running put (GPU) and get (driver) indices.  A warp whose access
 * misses in the MMU (no PTE, or a permission below the access) calls
 * simgpu_fault_stall(), which, in one critical section:
 *
 *  - writes an entry {va, timestamp, instance, access, client = warp id}, or,
 *    when the ring is full, drops it and sets the overflow flag that the next
 *    fault_fetch() reports;
 *  - puts the warp on the GPU's stalled list;
 *
 * then notifies the core with uvm_gpu_fault_notify() (the interrupt).  Every
 * stall is followed by a notification, and entries and the stalled list
 * change under one lock, so a replay issued after fetching an entry always
 * finds the warp that wrote it: no wakeup is lost.  A warp whose entry was
 * dropped stays stalled and faults again after the next replay.
 *
 * fault_replay() requeues every stalled warp of the GPU: each retries its
 * translation from the access that faulted.  fault_cancel() ends the stalled
 * warps of one GPU VA space instance whose fault lies on the page of the
 * given address with an access type at least the given one; their launch
 * is marked failed with the first such fault and aborts.
 *
 * Worked example: warp 3 reads VA 0x7f0000001008, not mapped.  It writes
 * {0x7f0000001008, t, instance 1, READ, client 3}, stalls, and the core is
 * notified.  The core fetches the entry (with warp 7's duplicate for the
 * same page), migrates and maps the page, invalidates, and replays: warps
 * 3 and 7 retry and now hit.  Had the address been outside any managed
 * range, the core would have called fault_cancel(1, 0x7f0000001008, READ):
 * warps 3 and 7 end, and their launch returns -EREMOTEIO reporting
 * 0x7f0000001008 / READ.
 *
 * Locking: &simgpu_fault_buffer.lock (spinlock) protects the ring, the
 * indices, the overflow flag, the counters, the stalled list (and the
 * &simgpu_warp.stall_node of its warps) and the failure report of every
 * launch on this GPU.  Under it the code may take a launch's wait-queue lock
 * (simgpu_launch_warp_done(), wake_up()) and queue work; nothing else.
 * fault_fetch() is called by one servicing context per GPU at a time (HAL
 * contract), but takes the lock anyway against the warps.
 */
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/slab.h>

#include "simgpu_internal.h"

/**
 * simgpu_fault_buffer_init() - set up the fault buffer of a GPU
 * @sg: the GPU
 * @entries: capacity, a power of two
 *
 * Context: process, may sleep.
 * Return: 0 or -ENOMEM.
 */
int simgpu_fault_buffer_init(struct simgpu *sg, u32 entries)
{
	struct simgpu_fault_buffer *fb = &sg->fault;

	fb->ring = kvcalloc(entries, sizeof(*fb->ring), GFP_KERNEL);
	if (!fb->ring)
		return -ENOMEM;
	spin_lock_init(&fb->lock);
	fb->size = entries;
	fb->put = 0;
	fb->get = 0;
	fb->overflow = false;
	INIT_LIST_HEAD(&fb->stalled);
	return 0;
}

/**
 * simgpu_fault_buffer_fini() - free the fault buffer of a GPU
 * @sg: the GPU, idle: no launch exists
 *
 * Context: process.
 */
void simgpu_fault_buffer_fini(struct simgpu *sg)
{
	WARN_ON(!list_empty(&sg->fault.stalled));
	kvfree(sg->fault.ring);
	sg->fault.ring = NULL;
}

/**
 * simgpu_fault_fetch() - &uvm_gpu_ops.fault_fetch
 * @gpu: the GPU
 * @entries: destination, @max entries
 * @max: most entries to move
 * @overflow: set to whether entries were dropped since the last fetch
 *
 * Context: any; one caller per GPU at a time; takes the fault lock.
 * Return: the number of entries moved, oldest first.
 */
u32 simgpu_fault_fetch(struct uvm_gpu *gpu, struct uvm_fault_entry *entries,
		       u32 max, bool *overflow)
{
	struct simgpu_fault_buffer *fb = &((struct simgpu *)uvm_gpu_hw(gpu))->fault;
	u32 n, i;

	spin_lock(&fb->lock);
	n = min(max, fb->put - fb->get);
	for (i = 0; i < n; i++)
		entries[i] = fb->ring[(fb->get + i) & (fb->size - 1)];
	fb->get += n;
	*overflow = fb->overflow;
	fb->overflow = false;
	spin_unlock(&fb->lock);
	return n;
}

/**
 * simgpu_fault_replay() - &uvm_gpu_ops.fault_replay
 * @gpu: the GPU
 *
 * Every stalled warp of the GPU is queued again and retries the access that
 * faulted.
 *
 * Context: any; takes the fault lock.
 */
void simgpu_fault_replay(struct uvm_gpu *gpu)
{
	struct simgpu *sg = uvm_gpu_hw(gpu);
	struct simgpu_fault_buffer *fb = &sg->fault;
	struct simgpu_warp *warp, *tmp;

	spin_lock(&fb->lock);
	fb->replays++;
	list_for_each_entry_safe(warp, tmp, &fb->stalled, stall_node) {
		list_del_init(&warp->stall_node);
		queue_work(sg->warp_wq, &warp->work);
	}
	spin_unlock(&fb->lock);
}

/**
 * __simgpu_launch_fail() - record a launch's fatal fault, first one wins
 * @launch: the launch
 * @warp: its warp whose fault is cancelled
 *
 * The first fault_cancel() that ends a warp of the launch makes the report;
 * among the warps that call ends, the lowest faulting address is reported,
 * so that the report does not depend on the order in which warps stalled.
 *
 * Context: fault lock held.
 */
static void __simgpu_launch_fail(struct simgpu_launch *launch,
				 struct simgpu_warp *warp)
{
	struct simgpu_fault_buffer *fb = &launch->sg->fault;

	lockdep_assert_held(&fb->lock);
	if (!launch->failed ||
	    (launch->fail_cancel == fb->cancels &&
	     warp->fault_va < launch->fault_va)) {
		WRITE_ONCE(launch->failed, true);
		launch->fail_cancel = fb->cancels;
		launch->fault_va = warp->fault_va;
		launch->fault_access = warp->fault_access;
		launch->fault_op = launch->op_index;
	}
	WRITE_ONCE(launch->abort, true);
}

/**
 * simgpu_fault_cancel() - &uvm_gpu_ops.fault_cancel
 * @gpu: the GPU
 * @instance: GPU VA space instance of the faults to cancel
 * @va: any address on the page of the faults
 * @access: cancel faults of this access type or a higher one
 *
 * Each matching stalled warp ends; its launch fails with the first
 * cancelled fault (see __simgpu_launch_fail()) and its other warps stop.
 * The launcher is woken.
 *
 * Context: any; takes the fault lock.
 */
void simgpu_fault_cancel(struct uvm_gpu *gpu, u32 instance, u64 va,
			 enum uvm_fault_access access)
{
	struct simgpu_fault_buffer *fb = &((struct simgpu *)uvm_gpu_hw(gpu))->fault;
	struct simgpu_warp *warp, *tmp;
	struct simgpu_launch *launch;

	spin_lock(&fb->lock);
	fb->cancels++;
	list_for_each_entry_safe(warp, tmp, &fb->stalled, stall_node) {
		launch = warp->launch;
		if (launch->vs->instance != instance ||
		    (warp->fault_va ^ va) & PAGE_MASK ||
		    warp->fault_access < access)
			continue;
		list_del_init(&warp->stall_node);
		fb->warps_cancelled++;
		__simgpu_launch_fail(launch, warp);
		/* The launcher frees @launch only after taking the fault lock. */
		wake_up(&launch->wq);
		simgpu_launch_warp_done(launch);
	}
	spin_unlock(&fb->lock);
}

/**
 * simgpu_fault_stall() - a warp's access missed: raise a fault and stall
 * @warp: the warp, running, tlb_sem not held
 * @va: the faulting address
 * @access: enum uvm_fault_access of the access
 *
 * The warp is handed to the stalled list (or ended, if its launch is
 * aborting); the caller must not touch @warp or its launch afterwards.
 *
 * Context: warp work item; takes the fault lock.
 */
void simgpu_fault_stall(struct simgpu_warp *warp, u64 va, u16 access)
{
	struct simgpu_launch *launch = warp->launch;
	struct simgpu *sg = launch->sg;
	struct simgpu_fault_buffer *fb = &sg->fault;
	struct uvm_fault_entry *entry;

	spin_lock(&fb->lock);
	if (READ_ONCE(launch->abort)) {
		spin_unlock(&fb->lock);
		simgpu_launch_warp_done(launch);
		return;
	}
	warp->fault_va = va;
	warp->fault_access = access;
	if (fb->put - fb->get < fb->size) {
		entry = &fb->ring[fb->put++ & (fb->size - 1)];
		entry->va = va;
		entry->timestamp = ktime_get_ns();
		entry->instance = launch->vs->instance;
		entry->access = access;
		entry->client = warp->id;
		fb->written++;
		atomic64_inc(&launch->faults_raised);
	} else {
		fb->overflow = true;
		fb->dropped++;
	}
	list_add_tail(&warp->stall_node, &fb->stalled);
	spin_unlock(&fb->lock);

	uvm_gpu_fault_notify(sg->gpu);
}

/**
 * __simgpu_fault_unstall_launch() - end the stalled warps of a launch
 * @launch: an aborting launch (&simgpu_launch.abort set under the lock)
 *
 * Their fault entries, if not fetched yet, stay in the ring: the core
 * services them (or finds nothing to do) and replays; no warp is left to
 * wake.
 *
 * Context: fault lock held.
 */
void __simgpu_fault_unstall_launch(struct simgpu_launch *launch)
{
	struct simgpu_fault_buffer *fb = &launch->sg->fault;
	struct simgpu_warp *warp, *tmp;

	lockdep_assert_held(&fb->lock);
	list_for_each_entry_safe(warp, tmp, &fb->stalled, stall_node) {
		if (warp->launch != launch)
			continue;
		list_del_init(&warp->stall_node);
		simgpu_launch_warp_done(launch);
	}
}
