// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Access counters of the simulated GPU.
 *
 * DOC: simulated access counters
 *
 * When the core turns them on (&uvm_gpu_ops.access_counters_set with a
 * threshold), every access a warp makes through a remote mapping (system
 * memory, or another GPU's vidmem) counts against its 2 MiB region.  Each
 * GPU VA space keeps a small direct-mapped table of region counters; a
 * region that takes a slot resets it, so counts are approximate, as real
 * hardware's are.  Every @threshold accesses to a region queue an entry in
 * the GPU's notification queue and call uvm_gpu_access_counter_notify();
 * &uvm_gpu_ops.access_counters_fetch drains it.  A full queue drops the
 * entry (the region notifies again after another @threshold accesses).
 *
 * Locking: slots are updated with atomics (a lost race miscounts by one);
 * &simgpu_access.lock (spinlock, taken from warps) protects the queue; it is
 * a leaf lock.
 */
#include <linux/hash.h>
#include <linux/spinlock.h>

#include "simgpu_internal.h"

/**
 * simgpu_access_count() - count one remote access of a warp
 * @vs: the GPU VA space of the access
 * @va: the address accessed
 *
 * Context: warp, any; does not sleep.
 */
void simgpu_access_count(struct simgpu_vaspace *vs, u64 va)
{
	struct simgpu_access *ac = &vs->sg->access;
	u32 threshold = READ_ONCE(ac->threshold);
	u64 region = (va >> SIMGPU_ACCESS_REGION_SHIFT) + 1;
	struct simgpu_access_slot *slot;
	unsigned long flags;
	u32 tail;

	if (!threshold)
		return;
	slot = &vs->access[hash_64(region, SIMGPU_ACCESS_SLOTS_BITS)];
	if (READ_ONCE(slot->region) != region) {
		WRITE_ONCE(slot->region, region);
		atomic_set(&slot->count, 0);
	}
	if (atomic_inc_return(&slot->count) < threshold)
		return;
	atomic_set(&slot->count, 0);

	spin_lock_irqsave(&ac->lock, flags);
	if (ac->queued < SIMGPU_ACCESS_QUEUE) {
		tail = (ac->head + ac->queued) % SIMGPU_ACCESS_QUEUE;
		ac->queue[tail] = (struct uvm_access_counter_entry){
			.va = (region - 1) << SIMGPU_ACCESS_REGION_SHIFT,
			.instance = vs->instance,
			.count = threshold,
		};
		ac->queued++;
		ac->notifications++;
	}
	spin_unlock_irqrestore(&ac->lock, flags);
	uvm_gpu_access_counter_notify(vs->sg->gpu);
}

/**
 * simgpu_access_counters_set() - &uvm_gpu_ops.access_counters_set
 * @gpu: the GPU
 * @threshold: accesses per notification, 0 for off
 */
void simgpu_access_counters_set(struct uvm_gpu *gpu, u32 threshold)
{
	struct simgpu *sg = uvm_gpu_hw(gpu);

	WRITE_ONCE(sg->access.threshold, threshold);
}

/**
 * simgpu_access_counters_fetch() - &uvm_gpu_ops.access_counters_fetch
 * @gpu: the GPU
 * @entries: out
 * @max: room in @entries
 *
 * Return: entries moved.
 */
u32 simgpu_access_counters_fetch(struct uvm_gpu *gpu,
				 struct uvm_access_counter_entry *entries, u32 max)
{
	struct simgpu_access *ac = &((struct simgpu *)uvm_gpu_hw(gpu))->access;
	unsigned long flags;
	u32 n = 0;

	spin_lock_irqsave(&ac->lock, flags);
	while (n < max && ac->queued) {
		entries[n++] = ac->queue[ac->head];
		ac->head = (ac->head + 1) % SIMGPU_ACCESS_QUEUE;
		ac->queued--;
	}
	spin_unlock_irqrestore(&ac->lock, flags);
	return n;
}
