/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The lock order of the UVM driver.
 *
 * DOC: Lock order
 *
 * Locks are taken in this order (a lock may be taken while holding the ones
 * above it, never the ones below).  lockdep enforces it; there is no private
 * lock tracker.
 *
 * 0. ``uvm_hmm_va_space.arm_lock`` (mutex): inserting a pageable region's
 *    interval notifier and registering the VA space's mm notifier, both of
 *    which may take mmap_lock for write.  Taken with no other lock held.
 * 1. ``mm->mmap_lock`` (kernel): held by the kernel around our mmap handler
 *    (write), vm_ops->close (write, munmap and exit) and the CPU fault
 *    handlers (read).  GPU fault servicing of managed memory does not take
 *    it; that of pageable memory takes it for read (hmm_range_fault(),
 *    migrate_vma_*()) after dropping the VA space lock.  ADVISE,
 *    RANGE_QUERY and MIGRATE validation take it for read before the VA
 *    space lock, to check pageable ranges' VMAs.
 * 2. ``uvm_va_space.lock`` (rw_semaphore): the VA space's set of managed
 *    ranges and of VA blocks; VMM handles, mappings and access masks.
 *    Read: fault servicing (CPU and GPU), ioctls that look things up.
 *    Write: creating and destroying ranges (mmap, vm_ops->close), freeing
 *    blocks, the MEM_* ioctls that change VMM state.
 * 3. ``uvm_va_block.lock`` (mutex): all residency and mapping state of one
 *    2 MiB VA block.  One block at a time, except a copy between two managed
 *    blocks (uvm_copy.c), which locks the lower address first and the other
 *    with mutex_lock_nested(SINGLE_DEPTH_NESTING).
 *    ``uvm_hmm_region.lock`` (mutex), at the same level and never held with
 *    a block lock: the GPU mapping state of 2 MiB of pageable memory.  Also
 *    taken by its interval notifier's callback from inside the mm (under
 *    mmap_lock, i_mmap_rwsem, anon_vma and page locks, under reclaim): no
 *    allocation that reclaims, no mmap_lock, page lock or VA space lock, no
 *    copy-engine wait while holding it (lockdep is primed with fs_reclaim).
 * 4. Kernel locks taken inside block operations: ``i_mmap_rwsem`` of the VA
 *    space's address_space (unmap_mapping_range()), page-table locks
 *    (vmf_insert_pfn_prot()), the page allocator.
 * 5. Backend locks, innermost, never held across a call back into the core
 *    (see kernel/simgpu/): the TLB/page-table lock of a GPU VA space, the
 *    fault buffer lock, the copy-engine queue lock, the vidmem allocator lock.
 *
 * Locks outside the chain:
 *
 * - ``uvm_gpu.instances`` (xarray, its own spinlock): instance -> GPU VA
 *   space, read under RCU by fault servicing.
 * - ``uvm_gpu.pmm.lock`` (spinlock): the GPU's vidmem usage counters; a leaf.
 * - ``uvm_hmm_devmem_lock`` (spinlock, uvm_hmm_devmem.c): device-private
 *   chunk lists and page bitmaps; a leaf, also taken by dev_pagemap_ops
 *   page_free() under page-table locks.
 * - The GPU table (uvm_gpus[]) is written only at module init and exit.
 * - ``uvm_va_space_list_lock`` (mutex, uvm_va_space.c): the links of the
 *   list of VA spaces.  Taken by open and release with no other driver
 *   lock held, and by the netlink queries (uvm_nl_query.c), which under it
 *   only read constants and atomics or take a reference; nothing is taken
 *   inside it.
 * - ``uvm_fault_deferred.lock`` (spinlock, uvm_fault.c): the faults
 *   handed to a GPU VA space's deferred servicer; a leaf, taken by any
 *   fault-servicing worker of the GPU.
 * - ``uvm_queue.lock`` (spinlock, uvm_queue.c): a VA space's job list,
 *   fences and cancellation; a leaf.
 * - The netlink family's event counters are atomics; events are sent
 *   under any of the locks above (GFP_NOWAIT, never sleeping), taking only
 *   the kernel's netlink table and socket queue locks.
 *
 * Fault servicing of one GPU runs in one work item at a time (a work item
 * is not reentrant); it takes 2 then 3 for each VA space and block of the
 * batch, then, for the batch's pageable faults with 2 dropped: 0 (arming),
 * 1 (read), 2 (read, to read the policy), 3 (a region lock), one after the
 * other, never nested.  It never waits for 2: it tries it, and when a
 * writer holds it or waits for it hands the VA space's faults to that GPU
 * VA space's deferred servicer (a work item of its own that takes 2 as
 * long as it takes); pageable faults always go there.  No process's
 * locks can stall the servicing of another's faults.  With
 * fault_service_threads above 1, helper work items do the same per group
 * of the batch, each taking its own locks; the
 * work item waits for them (flush_work()) holding no lock, only references
 * on the batch's VA spaces: holding 1 or 2 for read there would deadlock
 * against a queued writer that blocks the helpers' readers.
 */
#ifndef _UVM_LOCK_H_
#define _UVM_LOCK_H_

#endif /* _UVM_LOCK_H_ */
