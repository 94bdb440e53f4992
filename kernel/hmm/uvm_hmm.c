// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Pageable memory through HMM: GPU access to ordinary process memory.
 *
 * DOC: Pageable memory
 *
 * A GPU fault on an address outside every allocation of the VA space
 * (malloc, anonymous or file mmap, the stack: memory the kernel manages) is
 * handed here by fault servicing instead of being cancelled.  The memory is
 * tracked in 2 MiB-aligned *regions* (struct uvm_hmm_region), created on
 * first use and kept until the VA space is freed.  A region carries:
 *
 * - an mmu_interval_notifier over its 2 MiB, inserted ("armed") the first
 *   time the region is faulted, prefetched or inspected;
 * - per GPU, which pages that GPU maps, writable or not, and the DMA
 *   address of each system page it maps (sysmem_map()).
 *
 * Regions exist only where the GPUs work: a fault, a prefetch (which
 * populates), advice that maps pages present.  What is kept by address
 * range, whatever its size, is not in them: the advice and the last
 * prefetch location of each page (the policy store, uvm_va_policy.c), so
 * that a request over terabytes of unpopulated memory costs no region.
 *
 * Mirroring (every kernel with CONFIG_HMM_MIRROR): the GPU maps the pages
 * where the CPU page tables say they are, with the CPU's permission: a
 * read-only CPU PTE gives a read-only GPU PTE (atomics need a writable
 * one).  hmm_range_fault() faults pages in as a CPU access of the same kind
 * would, breaking copy-on-write for a write; an access the CPU could not
 * make either (no VMA, PROT_NONE, a write to a read-only VMA, a device VMA)
 * is a fatal fault.  Every change of the CPU page tables (munmap, mprotect,
 * madvise, fork's write protection, page migration, compaction, swap-out,
 * THP split, exit) calls the region's notifier, which revokes the GPU PTEs
 * of the range and waits for GPU accesses in flight before the kernel goes
 * on; the next GPU access faults and is mirrored again.
 *
 * Migration (CONFIG_DEVICE_PRIVATE, uvm_hmm_devmem.c): anonymous private
 * pages move into vidmem as device-private pages on a GPU fault (to the
 * faulting GPU, or to a GPU preferred location), on a prefetch to a GPU,
 * and back on a CPU touch, a prefetch to the host or eviction.  Memory that
 * cannot migrate (file-backed, shared, mlocked, pinned) stays mirrored, as
 * do pages when the GPU is full.
 *
 * Policy: advice is stored by address (uvm_va_policy.c) for pageable ranges
 * as for managed ones.  A GPU access migrates to the preferred location if
 * it is a GPU, brings pages back to system memory if it is the host, and
 * maps read-mostly pages where they are (pageable memory has a single copy:
 * the kernel's).  Accessed-by GPUs are mapped along with the faulting GPU,
 * and at once when the advice is given.
 *
 * Locking: see DOC: HMM locking below and uvm_lock.h.
 */

/**
 * DOC: HMM retry protocol
 *
 * The GPU PTEs of a region are written only by uvm_hmm_fault_and_lock()'s
 * callers, in this order (the only place hmm_range_fault() is called):
 *
 * 1. seq = mmu_interval_read_begin(&region->notifier);
 * 2. mmap_read_lock(); hmm_range_fault(): snapshot the CPU page tables of
 *    the range, faulting in what the GPU needs; mmap_read_unlock();
 * 3. mutex_lock(&region->lock);
 * 4. if mmu_interval_read_retry(&region->notifier, seq): an invalidation
 *    ran since step 1, the snapshot may be stale: unlock, go to 1;
 * 5. otherwise write the GPU PTEs from the snapshot, then unlock.
 *
 * The invalidate callback takes region->lock too, calls
 * mmu_interval_set_seq() and revokes the GPU PTEs of the range before
 * returning.  So a PTE is written only from a snapshot no invalidation has
 * overtaken, and any later invalidation finds it and removes it.  No page
 * reference is held: the notifier is what keeps the GPU coherent.
 *
 * Worked example, a GPU write to a page the CPU shares copy-on-write with a
 * fork() child: the fault arrives, step 2 requests a write fault, the
 * kernel copies the page for the parent (its own COW invalidation bumps the
 * sequence while we hold no lock), the walk restarts and returns the new
 * page writable; step 4 sees no newer invalidation, step 5 maps the new
 * page read-write.  Had the child's exit or a parent munmap() run between 2
 * and 3, step 4 would have sent us back to 1.
 */

/**
 * DOC: HMM locking
 *
 * - uvm_hmm_va_space.arm_lock (mutex) serialises inserting interval
 *   notifiers and registering the VA space's release notifier; both may
 *   take mmap_lock for write, so it is taken with no other lock held
 *   (level 0 of uvm_lock.h, above mmap_lock).
 * - uvm_hmm_region.lock (mutex) protects a region's GPU mapping state.  It
 *   comes after uvm_va_space.lock in the lock order, at the level of
 *   uvm_va_block.lock, and is never held with a block lock.  The
 *   invalidate callback takes it from inside the mm
 *   (under mmap_lock, i_mmap_rwsem, anon_vma locks, page locks, with
 *   reclaim in progress): so nothing allocates with reclaim (page tables
 *   are GFP_NOWAIT in the backend), takes mmap_lock, a page lock, the VA
 *   space lock or waits for a copy engine while holding it.  lockdep learns
 *   this at init (the lock class is primed under fs_reclaim).  A callback
 *   that may not block uses mutex_trylock() and fails (returns false) when
 *   it would have to revoke PTEs: TLB invalidation waits for the GPU.
 * - Fault servicing runs HMM work after dropping uvm_va_space.lock (it
 *   needs mmap_lock, which is above it) and holds an mm_users reference
 *   (mmget_not_zero()) for the duration.
 * - Migrations (uvm_hmm_devmem.c) take mmap_lock for read and no region
 *   lock: the CPU PTE changes they make come back through the callback.
 */
#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/hmm.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "uvm_gpu.h"
#include "uvm_hmm.h"
#include "uvm_hmm_internal.h"
#include "uvm_va_block.h"
#include "uvm_va_policy.h"
#include "uvm_va_space.h"

static struct lock_class_key uvm_hmm_region_lock_key;

/* Fault injection */

#ifdef CONFIG_FAULT_INJECTION
static DECLARE_FAULT_ATTR(uvm_hmm_fail_attr);
static struct dentry *uvm_hmm_fail_dir;

/**
 * uvm_hmm_should_fail() - the fault-injection point of pageable memory
 *
 * Context: any.  Armed through /sys/kernel/debug/fail_uvm_hmm/ (the
 * kernel's fault_attr knobs: probability, interval, times, ...); every
 * allocation and mapping step of uvm_hmm*.c that can fail asks it first.
 * Return: true when the caller must fail as if out of memory.
 */
bool uvm_hmm_should_fail(void)
{
	return should_fail(&uvm_hmm_fail_attr, 1);
}

static void uvm_hmm_fail_init(void)
{
	if (IS_ENABLED(CONFIG_FAULT_INJECTION_DEBUG_FS))
		uvm_hmm_fail_dir = fault_create_debugfs_attr("fail_uvm_hmm", NULL,
							     &uvm_hmm_fail_attr);
}

static void uvm_hmm_fail_exit(void)
{
	if (!IS_ERR_OR_NULL(uvm_hmm_fail_dir))
		debugfs_remove_recursive(uvm_hmm_fail_dir);
}
#else
bool uvm_hmm_should_fail(void)
{
	return false;
}

static void uvm_hmm_fail_init(void)
{
}

static void uvm_hmm_fail_exit(void)
{
}
#endif

/* Regions */

static inline struct uvm_hmm_region *to_uvm_hmm_region(struct mmu_interval_notifier *mni)
{
	return container_of(mni, struct uvm_hmm_region, notifier);
}

/**
 * uvm_hmm_region_get() - the region of an address, created on first use
 * @va_space:	the VA space
 * @addr:	any address of the region
 *
 * Context: process; may allocate (GFP_KERNEL), so not under a region lock.
 * Return: the region (valid until the VA space is freed) or ERR_PTR().
 */
struct uvm_hmm_region *uvm_hmm_region_get(struct uvm_va_space *va_space, u64 addr)
{
	unsigned long index = addr >> UVM_VA_BLOCK_SHIFT;
	struct uvm_hmm_region *region, *old;

	region = xa_load(&va_space->hmm.regions, index);
	if (region)
		return region;
	region = uvm_hmm_should_fail() ? NULL :
		 kzalloc(sizeof(*region), GFP_KERNEL_ACCOUNT);
	if (!region)
		return ERR_PTR(-ENOMEM);
	region->va_space = va_space;
	region->start = (u64)index << UVM_VA_BLOCK_SHIFT;
	mutex_init(&region->lock);
	lockdep_set_class(&region->lock, &uvm_hmm_region_lock_key);

	old = xa_cmpxchg(&va_space->hmm.regions, index, NULL, region,
			 GFP_KERNEL_ACCOUNT);
	if (!old)
		return region;
	mutex_destroy(&region->lock);
	kfree(region);
	return xa_is_err(old) ? ERR_PTR(xa_err(old)) : old;
}

/**
 * uvm_hmm_region_free() - free a region
 * @region:	the region, disarmed, no GPU PTE left
 */
static void uvm_hmm_region_free(struct uvm_hmm_region *region)
{
	u32 i;

	for (i = 0; i < UVM_MAX_GPUS; i++)
		kfree(region->gpus[i]);
	mutex_destroy(&region->lock);
	kfree(region);
}

/**
 * uvm_hmm_region_gpus() - make sure GPUs have mapping state in a region
 * @region:	the region
 * @procs:	processor mask; the GPUs in it get state (the CPU bit is
 *		ignored)
 *
 * Context: process, no region lock held.
 * Return: 0 or -ENOMEM.
 */
int uvm_hmm_region_gpus(struct uvm_hmm_region *region, u64 procs)
{
	struct uvm_hmm_gpu_state *gs;
	u32 i;

	for (i = 0; i < uvm_gpu_count; i++) {
		if (!(procs & UVM_PROCESSOR_MASK(UVM_PROCESSOR_GPU(i))) ||
		    READ_ONCE(region->gpus[i]))
			continue;
		gs = uvm_hmm_should_fail() ? NULL :
		     kzalloc(sizeof(*gs), GFP_KERNEL_ACCOUNT);
		if (!gs)
			return -ENOMEM;
		if (cmpxchg(&region->gpus[i], NULL, gs))
			kfree(gs);
	}
	return 0;
}

/**
 * __uvm_hmm_revoke() - remove the GPU PTEs of part of a region
 * @region:	the region; its lock held
 * @first:	first page index
 * @end:	last page index + 1
 *
 * Every GPU's PTEs of the pages go, the TLBs are invalidated (waiting for
 * accesses in flight) and the DMA mappings released.
 */
static void __uvm_hmm_revoke(struct uvm_hmm_region *region, u32 first, u32 end)
{
	struct uvm_page_mask range, m;
	struct uvm_gpu_va_space *gvs;
	struct uvm_hmm_gpu_state *gs;
	unsigned int a, b, page;
	struct uvm_gpu *gpu;
	u32 i;

	lockdep_assert_held(&region->lock);

	uvm_page_mask_fill(&range, first, end);
	for (i = 0; i < uvm_gpu_count; i++) {
		gs = region->gpus[i];
		if (!gs || !uvm_page_mask_and(&m, &gs->mapped, &range))
			continue;
		gpu = uvm_gpus[i];
		gvs = uvm_va_space_gpu_va_space(region->va_space, gpu);
		for_each_page_run_in_mask(a, b, &m)
			gpu->ops->unmap(gvs, uvm_hmm_page_addr(region, a), b - a);
		gpu->ops->tlb_invalidate(gvs, uvm_hmm_page_addr(region, first),
					 (u64)(end - first) << PAGE_SHIFT);
		for_each_page_in_mask(page, &m)
			if (uvm_page_mask_test(&gs->sys, page))
				gpu->ops->sysmem_unmap(gpu, gs->dma[page]);
		uvm_page_mask_andnot(&gs->mapped, &gs->mapped, &m);
		uvm_page_mask_andnot(&gs->mapped_write, &gs->mapped_write, &m);
		uvm_page_mask_andnot(&gs->sys, &gs->sys, &m);
		uvm_va_space_count(region->va_space, UVM_COUNTER_GPU_PAGES_UNMAPPED,
				   uvm_page_mask_weight(&m));
	}
}

/**
 * __uvm_hmm_mapped() - does any GPU map a page of part of a region?
 * @region:	the region; its lock held
 * @first:	first page index
 * @end:	last page index + 1
 *
 * Return: true when some GPU PTE would have to go.
 */
static bool __uvm_hmm_mapped(struct uvm_hmm_region *region, u32 first, u32 end)
{
	struct uvm_page_mask range;
	u32 i;

	lockdep_assert_held(&region->lock);

	uvm_page_mask_fill(&range, first, end);
	for (i = 0; i < uvm_gpu_count; i++)
		if (region->gpus[i] &&
		    uvm_page_mask_intersects(&region->gpus[i]->mapped, &range))
			return true;
	return false;
}

/**
 * uvm_hmm_invalidate() - the CPU page tables of a region change
 * @mni:	the region's notifier
 * @range:	what changes
 * @cur_seq:	the new sequence number
 *
 * Revokes the GPU PTEs of the pages in @range before the kernel changes
 * the CPU PTEs.  Every event is treated alike, migrations by this driver
 * included (another VA space of the same mm may map the pages).
 *
 * Context: see DOC: HMM locking.
 * Return: false only when the caller may not block and PTEs must go.
 */
static bool uvm_hmm_invalidate(struct mmu_interval_notifier *mni,
			       const struct mmu_notifier_range *range,
			       unsigned long cur_seq)
{
	struct uvm_hmm_region *region = to_uvm_hmm_region(mni);
	u64 start = max_t(u64, range->start, region->start);
	u64 end = min_t(u64, range->end, region->start + UVM_VA_BLOCK_SIZE);
	u32 first = (start - region->start) >> PAGE_SHIFT;
	u32 last = (end - region->start + PAGE_SIZE - 1) >> PAGE_SHIFT;
	bool blockable = mmu_notifier_range_blockable(range);

	/* fork() write-protects a private mapping to share its pages */
	if (range->event == MMU_NOTIFY_PROTECTION_PAGE)
		atomic_inc(&region->va_space->hmm.shares);
	if (blockable)
		mutex_lock(&region->lock);
	else if (!mutex_trylock(&region->lock))
		return false;
	if (!blockable && __uvm_hmm_mapped(region, first, last)) {
		mutex_unlock(&region->lock);
		return false;
	}
	mmu_interval_set_seq(mni, cur_seq);
	__uvm_hmm_revoke(region, first, last);
	mutex_unlock(&region->lock);
	return true;
}

static const struct mmu_interval_notifier_ops uvm_hmm_notifier_ops = {
	.invalidate = uvm_hmm_invalidate,
};

/**
 * uvm_hmm_mm_release() - the mm is going away (exit, or the last mmput())
 * @mn:		the VA space's release notifier
 * @mm:		the mm
 *
 * Revokes every GPU PTE of pageable memory now and stops new regions from
 * being armed; the regions are freed with the VA space.
 */
static void uvm_hmm_mm_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	struct uvm_hmm_va_space *hmm = container_of(mn, struct uvm_hmm_va_space, mn);
	struct uvm_hmm_region *region;
	unsigned long index;

	WRITE_ONCE(hmm->mm_dead, true);
	xa_for_each(&hmm->regions, index, region) {
		mutex_lock(&region->lock);
		__uvm_hmm_revoke(region, 0, UVM_PAGES_PER_BLOCK);
		mutex_unlock(&region->lock);
	}
}

static const struct mmu_notifier_ops uvm_hmm_mm_ops = {
	.release = uvm_hmm_mm_release,
};

/**
 * uvm_hmm_region_arm() - insert a region's interval notifier
 * @region:	the region
 *
 * The first arming of a VA space also registers its release notifier.
 *
 * Context: process, no lock held, an mm_users reference on the VA space's
 * mm held (mmget_not_zero()).
 * Return: 0, -ESRCH when the mm is going away, or -errno.
 */
static int uvm_hmm_region_arm(struct uvm_hmm_region *region)
{
	struct uvm_hmm_va_space *hmm = &region->va_space->hmm;
	struct mm_struct *mm = region->va_space->mm;
	int ret = 0;

	/* Pairs with the release below: armed means the notifier is in. */
	if (smp_load_acquire(&region->armed))
		return 0;
	mutex_lock(&hmm->arm_lock);
	if (region->armed)
		goto out_unlock;
	ret = -ESRCH;
	if (READ_ONCE(hmm->mm_dead))
		goto out_unlock;
	ret = -ENOMEM;
	if (uvm_hmm_should_fail())
		goto out_unlock;
	if (!hmm->mn_registered) {
		hmm->mn.ops = &uvm_hmm_mm_ops;
		ret = mmu_notifier_register(&hmm->mn, mm);
		if (ret)
			goto out_unlock;
		hmm->mn_registered = true;
	}
	ret = mmu_interval_notifier_insert(&region->notifier, mm, region->start,
					   UVM_VA_BLOCK_SIZE, &uvm_hmm_notifier_ops);
	if (!ret)	/* pairs with the acquire at the top */
		smp_store_release(&region->armed, true);
out_unlock:
	mutex_unlock(&hmm->arm_lock);
	return ret;
}

/**
 * uvm_hmm_region_get_armed() - the armed region of an address
 * @va_space:	the VA space
 * @addr:	any address of the region
 * @procs:	processors (mask) that need GPU mapping state in it
 *
 * Context: process, no lock held, mm_users reference held.
 * Return: the region or ERR_PTR().
 */
struct uvm_hmm_region *uvm_hmm_region_get_armed(struct uvm_va_space *va_space,
						u64 addr, u64 procs)
{
	struct uvm_hmm_region *region = uvm_hmm_region_get(va_space, addr);
	int ret;

	if (IS_ERR(region))
		return region;
	ret = uvm_hmm_region_arm(region);
	if (!ret)
		ret = uvm_hmm_region_gpus(region, procs);
	return ret ? ERR_PTR(ret) : region;
}

/* The retry protocol */

/**
 * uvm_hmm_fault_and_lock() - snapshot part of a region, lock it if current
 * @region:	an armed region
 * @ctx:	ctx->req[first .. end - 1] hold the per-page requests
 *		(HMM_PFN_REQ_FAULT, HMM_PFN_REQ_WRITE or 0 for a snapshot);
 *		ctx->pfns[first .. end - 1] receive the snapshot
 * @first:	first page index
 * @end:	last page index + 1
 * @owner:	device-private owner whose pages are reported where they are
 *		(the driver's), or NULL to fault device pages back to RAM
 *
 * The one implementation of DOC: HMM retry protocol.  Gives up after
 * HMM_RANGE_DEFAULT_TIMEOUT of invalidations overtaking the snapshot.
 *
 * Context: process, no lock held, mm_users reference held.
 * Return: 0 with region->lock held and the snapshot current; without the
 * lock, -EFAULT or -EPERM (a requested page the CPU cannot have, see
 * hmm_range_fault()), -EBUSY (timed out), -EINTR, -ENOMEM.
 */
int uvm_hmm_fault_and_lock(struct uvm_hmm_region *region, struct uvm_hmm_ctx *ctx,
			   u32 first, u32 end, void *owner)
{
	struct mm_struct *mm = region->notifier.mm;
	struct hmm_range range = {
		.notifier = &region->notifier,
		.start = uvm_hmm_page_addr(region, first),
		.end = uvm_hmm_page_addr(region, end),
		.hmm_pfns = &ctx->pfns[first],
		.pfn_flags_mask = HMM_PFN_REQ_FAULT | HMM_PFN_REQ_WRITE,
		.dev_private_owner = owner,
	};
	unsigned long timeout = jiffies + msecs_to_jiffies(HMM_RANGE_DEFAULT_TIMEOUT);
	int ret;

	for (;;) {
		if (time_after(jiffies, timeout))
			return -EBUSY;
		if (fatal_signal_pending(current))
			return -EINTR;
		range.notifier_seq = mmu_interval_read_begin(range.notifier);
		memcpy(&ctx->pfns[first], &ctx->req[first],
		       (end - first) * sizeof(ctx->pfns[0]));
		if (mmap_read_lock_killable(mm))
			return -EINTR;
		ret = uvm_hmm_should_fail() ? -ENOMEM : hmm_range_fault(&range);
		mmap_read_unlock(mm);
		if (ret == -EBUSY)
			continue;
		if (ret)
			return ret;
		mutex_lock(&region->lock);
		if (!mmu_interval_read_retry(range.notifier, range.notifier_seq))
			return 0;
		mutex_unlock(&region->lock);
	}
}

/* Writing GPU PTEs from a snapshot */

/**
 * uvm_hmm_pte_addr() - the GPU physical address of a snapshot page
 * @gpu:	the GPU that will map it
 * @page:	the page: a system page or one of our device pages
 * @addr:	out
 *
 * A system page is mapped for the GPU (sysmem_map()); the caller releases
 * the DMA address when the PTE goes.
 *
 * Return: 0 or -errno.
 */
static int uvm_hmm_pte_addr(struct uvm_gpu *gpu, struct page *page,
			    struct uvm_gpu_address *addr)
{
	u64 dma;
	int ret;

	if (uvm_hmm_devmem_page_addr(page, addr))
		return 0;
	if (is_zone_device_page(page))
		return -EFAULT;
	ret = uvm_hmm_should_fail() ? -ENOMEM : gpu->ops->sysmem_map(gpu, page, &dma);
	if (ret)
		return ret;
	*addr = (struct uvm_gpu_address){ .addr = dma, .aperture = UVM_APERTURE_SYS };
	return 0;
}

/**
 * __uvm_hmm_write_ptes() - write a run of PTEs gathered in ctx->ptes
 * @ctx:	ctx->ptes[0 .. n - 1] for pages @first ..
 * @region:	the region; its lock held
 * @gpu:	the GPU
 * @first:	first page index of the run
 * @n:		pages
 * @prot:	their permission
 * @failed:	out: set for the pages when the backend refuses
 */
static void __uvm_hmm_write_ptes(struct uvm_hmm_ctx *ctx,
				 struct uvm_hmm_region *region,
				 struct uvm_gpu *gpu, u32 first, u32 n,
				 enum uvm_prot prot, struct uvm_page_mask *failed)
{
	struct uvm_hmm_gpu_state *gs = region->gpus[gpu->index];
	struct uvm_gpu_va_space *gvs;
	u32 i, page;
	int ret;

	lockdep_assert_held(&region->lock);

	gvs = uvm_va_space_gpu_va_space(region->va_space, gpu);
	ret = uvm_hmm_should_fail() ? -ENOMEM :
	      gpu->ops->map(gvs, uvm_hmm_page_addr(region, first), ctx->ptes, n,
			    PAGE_SIZE, prot);
	if (ret) {
		/* A failed map may have written some PTEs: remove the run. */
		gpu->ops->unmap(gvs, uvm_hmm_page_addr(region, first), n);
		gpu->ops->tlb_invalidate(gvs, uvm_hmm_page_addr(region, first),
					 (u64)n << PAGE_SHIFT);
	}
	for (i = 0; i < n; i++) {
		page = first + i;
		if (ret) {
			if (ctx->ptes[i].aperture == UVM_APERTURE_SYS)
				gpu->ops->sysmem_unmap(gpu, ctx->ptes[i].addr);
			if (uvm_page_mask_test(&gs->sys, page))
				gpu->ops->sysmem_unmap(gpu, gs->dma[page]);
			uvm_page_mask_clear(&gs->sys, page);
			uvm_page_mask_clear(&gs->mapped, page);
			uvm_page_mask_clear(&gs->mapped_write, page);
			uvm_page_mask_set(failed, page);
			continue;
		}
		/* A PTE replaced: its old DMA mapping goes now. */
		if (uvm_page_mask_test(&gs->sys, page))
			gpu->ops->sysmem_unmap(gpu, gs->dma[page]);
		uvm_page_mask_set(&gs->mapped, page);
		if (prot >= UVM_PROT_READ_WRITE)
			uvm_page_mask_set(&gs->mapped_write, page);
		else
			uvm_page_mask_clear(&gs->mapped_write, page);
		if (ctx->ptes[i].aperture == UVM_APERTURE_SYS) {
			uvm_page_mask_set(&gs->sys, page);
			gs->dma[page] = ctx->ptes[i].addr;
		} else {
			uvm_page_mask_clear(&gs->sys, page);
		}
	}
	if (!ret)
		uvm_va_space_count(region->va_space, UVM_COUNTER_GPU_PAGES_MAPPED, n);
}

/**
 * __uvm_hmm_map_gpu() - map pages of a current snapshot on one GPU
 * @ctx:	ctx->pfns hold the snapshot
 * @region:	the region; its lock held, @gpu's state allocated
 * @gpu:	the GPU
 * @mask:	pages to map
 * @write:	pages that must be writable, or NULL
 * @failed:	out: pages of @mask that could not be mapped as needed
 *
 * Pages get the CPU's permission: read-write-atomic where the CPU PTE is
 * writable, read-only otherwise.
 */
static void __uvm_hmm_map_gpu(struct uvm_hmm_ctx *ctx, struct uvm_hmm_region *region,
			      struct uvm_gpu *gpu, const struct uvm_page_mask *mask,
			      const struct uvm_page_mask *write,
			      struct uvm_page_mask *failed)
{
	enum uvm_prot prot, run_prot = UVM_PROT_NONE;
	u32 n = 0, run_first = 0;
	unsigned long pfn;
	unsigned int page;

	lockdep_assert_held(&region->lock);

	for_each_page_in_mask(page, mask) {
		pfn = ctx->pfns[page];
		if (!(pfn & HMM_PFN_VALID) || (pfn & HMM_PFN_ERROR) ||
		    (write && uvm_page_mask_test(write, page) && !(pfn & HMM_PFN_WRITE))) {
			uvm_page_mask_set(failed, page);
			continue;
		}
		prot = pfn & HMM_PFN_WRITE ? UVM_PROT_READ_WRITE_ATOMIC :
					     UVM_PROT_READ_ONLY;
		if (n && (page != run_first + n || prot != run_prot || n == UVM_HMM_PTES)) {
			__uvm_hmm_write_ptes(ctx, region, gpu, run_first, n, run_prot, failed);
			n = 0;
		}
		if (uvm_hmm_pte_addr(gpu, hmm_pfn_to_page(pfn), &ctx->ptes[n])) {
			uvm_page_mask_set(failed, page);
			continue;
		}
		if (!n) {
			run_first = page;
			run_prot = prot;
		}
		n++;
	}
	if (n)
		__uvm_hmm_write_ptes(ctx, region, gpu, run_first, n, run_prot, failed);
}

/**
 * __uvm_hmm_map_snapshot() - map a snapshot on the accessor and accessed-by GPUs
 * @ctx:	snapshot; ctx->mapped_by[] for the pages of @mask
 * @region:	the region; its lock held
 * @gpu:	the GPU that needs the pages, or NULL
 * @mask:	pages
 * @write:	pages @gpu must be able to write, or NULL
 * @failed:	out: pages @gpu could not get (accessed-by mappings are best
 *		effort)
 */
static void __uvm_hmm_map_snapshot(struct uvm_hmm_ctx *ctx,
				   struct uvm_hmm_region *region,
				   struct uvm_gpu *gpu,
				   const struct uvm_page_mask *mask,
				   const struct uvm_page_mask *write,
				   struct uvm_page_mask *failed)
{
	struct uvm_page_mask sub, ignored;
	unsigned int page;
	u64 others = 0;
	u32 i, proc;

	if (gpu)
		__uvm_hmm_map_gpu(ctx, region, gpu, mask, write, failed);
	for_each_page_in_mask(page, mask)
		others |= ctx->mapped_by[page];
	for (i = 0; i < uvm_gpu_count && others; i++) {
		proc = UVM_PROCESSOR_GPU(i);
		if (!(others & UVM_PROCESSOR_MASK(proc)) || !region->gpus[i] ||
		    (gpu && gpu->index == i))
			continue;
		uvm_page_mask_zero(&sub);
		for_each_page_in_mask(page, mask)
			if (ctx->mapped_by[page] & UVM_PROCESSOR_MASK(proc))
				uvm_page_mask_set(&sub, page);
		uvm_page_mask_zero(&ignored);
		__uvm_hmm_map_gpu(ctx, region, uvm_gpus[i], &sub, NULL, &ignored);
	}
}

/**
 * __uvm_hmm_map_ahead() - map pages nobody faulted on that are ready anyway
 * @ctx:	snapshot covering @ahead
 * @region:	the region; its lock held
 * @gpu:	the GPU
 * @ahead:	candidate pages
 *
 * Present pages that @gpu does not map yet, and that an access by @gpu
 * would map where they are: any system page where pages never migrate,
 * only @gpu's own device pages where they do (an access to the others may
 * have to migrate them, so it must fault).  Saves one fault round per page
 * of a streaming access, and the re-faults after an invalidation that
 * moved nothing (mprotect, fork).
 */
static void __uvm_hmm_map_ahead(struct uvm_hmm_ctx *ctx, struct uvm_hmm_region *region,
				struct uvm_gpu *gpu, const struct uvm_page_mask *ahead)
{
	struct uvm_page_mask m, ignored;
	struct uvm_gpu_address addr;
	unsigned long pfn;
	struct page *page;
	unsigned int i;

	lockdep_assert_held(&region->lock);

	uvm_page_mask_zero(&m);
	for_each_page_in_mask(i, ahead) {
		pfn = ctx->pfns[i];
		if (!(pfn & HMM_PFN_VALID) || (pfn & HMM_PFN_ERROR) ||
		    uvm_page_mask_test(&region->gpus[gpu->index]->mapped, i))
			continue;
		page = hmm_pfn_to_page(pfn);
		if (uvm_hmm_devmem_page_addr(page, &addr) ? addr.gpu == gpu->index :
		    !UVM_HMM_MIGRATION && !is_zone_device_page(page))
			uvm_page_mask_set(&m, i);
	}
	uvm_page_mask_zero(&ignored);
	__uvm_hmm_map_gpu(ctx, region, gpu, &m, NULL, &ignored);
}

/**
 * uvm_hmm_map_pages() - fault pages in through the CPU and map them on GPUs
 * @ctx:	scratch; ctx->mapped_by[] set for the pages of @mask
 * @region:	an armed region with state for every GPU that maps
 * @gpu:	the GPU that needs the pages, or NULL (accessed-by GPUs only)
 * @mask:	pages
 * @ahead:	other pages to map on @gpu if they are ready (see
 *		__uvm_hmm_map_ahead()), or NULL
 * @write:	pages that need write access, or NULL
 * @owner:	see uvm_hmm_fault_and_lock()
 * @fault:	fault the pages in (else map only what is present)
 * @failed:	out: pages of @mask @gpu could not get (OR'ed in)
 *
 * One inaccessible page makes hmm_range_fault() fail for the whole range;
 * the pages are then tried one by one to tell the good from the bad.
 *
 * Context: process, no lock held, mm_users reference held.
 * Return: 0; -EBUSY or -EINTR (nothing mapped, nothing failed: try later);
 * -errno (every page of @mask in @failed).
 */
int uvm_hmm_map_pages(struct uvm_hmm_ctx *ctx, struct uvm_hmm_region *region,
		      struct uvm_gpu *gpu, const struct uvm_page_mask *mask,
		      const struct uvm_page_mask *ahead,
		      const struct uvm_page_mask *write, void *owner, bool fault,
		      struct uvm_page_mask *failed)
{
	struct uvm_page_mask one, span;
	u32 first, last, page;
	int ret, err;

	if (uvm_page_mask_empty(mask))
		return 0;
	if (gpu && ahead)
		uvm_page_mask_or(&span, mask, ahead);
	else
		span = *mask;
	first = find_first_bit(span.bits, UVM_PAGES_PER_BLOCK);
	last = find_last_bit(span.bits, UVM_PAGES_PER_BLOCK);
	for (page = first; page <= last; page++) {
		ctx->req[page] = 0;
		if (!fault || !uvm_page_mask_test(mask, page))
			continue;
		ctx->req[page] = HMM_PFN_REQ_FAULT;
		if (write && uvm_page_mask_test(write, page))
			ctx->req[page] |= HMM_PFN_REQ_WRITE;
	}

	ret = uvm_hmm_fault_and_lock(region, ctx, first, last + 1, owner);
	if (!ret) {
		__uvm_hmm_map_snapshot(ctx, region, gpu, mask, write, failed);
		if (gpu && ahead)
			__uvm_hmm_map_ahead(ctx, region, gpu, ahead);
		mutex_unlock(&region->lock);
		return 0;
	}
	if ((ret == -EFAULT || ret == -EPERM) && first != last) {
		ret = 0;
		for_each_page_in_mask(page, mask) {
			uvm_page_mask_zero(&one);
			uvm_page_mask_set(&one, page);
			err = uvm_hmm_map_pages(ctx, region, gpu, &one, NULL, write,
						owner, fault, failed);
			if (err == -EBUSY || err == -EINTR)
				ret = ret ?: err;
		}
		return ret;
	}
	if (ret != -EBUSY && ret != -EINTR)
		uvm_page_mask_or(failed, failed, mask);
	return ret;
}

/* Migration of a region's pages */

/**
 * uvm_hmm_vma_migratable() - may the pages of a VMA move to a GPU?
 * @vma:	the VMA
 *
 * Only anonymous private memory migrates (what migrate_vma supports);
 * mlocked memory stays in RAM as mlock() promises.
 *
 * Return: true when it may.
 */
static bool uvm_hmm_vma_migratable(struct vm_area_struct *vma)
{
	return vma_is_anonymous(vma) &&
	       !(vma->vm_flags & (VM_SHARED | VM_LOCKED | VM_SPECIAL | VM_HUGETLB));
}

/**
 * uvm_hmm_migrate_region() - move pages of a region to a GPU or to RAM
 * @ctx:	scratch space
 * @region:	the region
 * @mask:	pages to move
 * @gpu:	destination GPU, or NULL for system memory
 * @nid:	NUMA node for system memory, or NUMA_NO_NODE
 *
 * Best effort: pages that cannot move stay where they are (and are mapped
 * there by the caller).
 *
 * Context: process, no lock held, mm_users reference held.
 * Return: pages moved, or -EINTR.
 */
int uvm_hmm_migrate_region(struct uvm_hmm_ctx *ctx, struct uvm_hmm_region *region,
			   const struct uvm_page_mask *mask, struct uvm_gpu *gpu,
			   int nid)
{
	struct uvm_va_space *va_space = region->va_space;
	struct mm_struct *mm = va_space->mm;
	struct vm_area_struct *vma;
	unsigned int first, end;
	u64 addr, stop, e;
	u32 n, moved = 0;

	if (!UVM_HMM_MIGRATION || uvm_page_mask_empty(mask))
		return 0;
	if (gpu && !uvm_hmm_devmem_reserve(&ctx->mig, va_space, gpu,
					   uvm_page_mask_weight(mask)))
		return 0;
	if (mmap_read_lock_killable(mm)) {
		uvm_hmm_devmem_unreserve(&ctx->mig);
		return -EINTR;
	}
	for_each_page_run_in_mask(first, end, mask) {
		addr = uvm_hmm_page_addr(region, first);
		stop = uvm_hmm_page_addr(region, end);
		while (addr < stop) {
			vma = find_vma(mm, addr);
			if (!vma || vma->vm_start >= stop)
				break;
			addr = max_t(u64, addr, vma->vm_start);
			e = min_t(u64, stop, vma->vm_end);
			n = 0;
			if (gpu && uvm_hmm_vma_migratable(vma))
				uvm_hmm_devmem_to_gpu(&ctx->mig, va_space, vma, addr, e,
						      gpu, &n);
			else if (!gpu && !(vma->vm_flags & (VM_SPECIAL | VM_HUGETLB)))
				uvm_hmm_devmem_to_ram(&ctx->mig, va_space, vma, addr, e,
						      nid, &n);
			moved += n;
			addr = e;
		}
	}
	mmap_read_unlock(mm);
	if (gpu)
		uvm_hmm_devmem_unreserve(&ctx->mig);
	return moved;
}

/* GPU faults */

/**
 * uvm_hmm_choose() - where a GPU access wants a pageable page
 * @policy:	the page's policy
 * @accessor:	processor id of the faulting GPU
 * @write:	write or atomic access
 *
 * Return: the processor to migrate to (a GPU, or the CPU for the host),
 * or UVM_HMM_STAY to map the page where it is.
 */
static u8 uvm_hmm_choose(const struct uvm_va_policy *policy, u32 accessor,
			 bool write)
{
	if (!UVM_HMM_MIGRATION || (policy->read_mostly && !write))
		return UVM_HMM_STAY;
	if (uvm_va_policy_has_preferred(policy))
		return uvm_location_processor(&policy->preferred);
	return accessor;
}

/**
 * uvm_hmm_decide() - apply the memory policy to the faults of a region
 * @ctx:	gets ctx->dst[] and ctx->mapped_by[] for the pages of @pages
 * @region:	the region
 * @pages:	faulted pages
 * @write:	of those, written ones
 * @accessor:	processor id of the faulting GPU
 *
 * Context: process; takes the VA space lock for read.
 * Return: the accessed-by GPUs of the pages (processor mask).
 */
static u64 uvm_hmm_decide(struct uvm_hmm_ctx *ctx, struct uvm_hmm_region *region,
			  const struct uvm_page_mask *pages,
			  const struct uvm_page_mask *write, u32 accessor)
{
	struct uvm_va_space *va_space = region->va_space;
	struct uvm_va_policy_iter iter;
	u32 first, end, page;
	u64 others = 0;

	down_read(&va_space->lock);
	for (uvm_va_policy_iter_first(va_space, region->start,
				      region->start + UVM_VA_BLOCK_SIZE, &iter);
	     iter.start < iter.limit; uvm_va_policy_iter_next(&iter)) {
		first = (iter.start - region->start) >> PAGE_SHIFT;
		end = (iter.end - region->start) >> PAGE_SHIFT;
		for (page = find_next_bit(pages->bits, end, first); page < end;
		     page = find_next_bit(pages->bits, end, page + 1)) {
			ctx->dst[page] = uvm_hmm_choose(iter.policy, accessor,
							uvm_page_mask_test(write, page));
			ctx->mapped_by[page] = uvm_va_policy_mapped_by(iter.policy) &
					       ~(UVM_PROCESSOR_MASK(UVM_PROCESSOR_CPU) |
						 UVM_PROCESSOR_MASK(accessor));
			others |= ctx->mapped_by[page];
		}
	}
	up_read(&va_space->lock);
	return others;
}

/**
 * uvm_hmm_migrate_decided() - carry out the migrations ctx->dst[] asks for
 * @ctx:	scratch with ctx->dst[] set for @pages
 * @region:	the region
 * @pages:	the pages
 * @back:	out: pages that must be in system memory (mapped after
 *		faulting device pages back)
 */
static void uvm_hmm_migrate_decided(struct uvm_hmm_ctx *ctx,
				    struct uvm_hmm_region *region,
				    const struct uvm_page_mask *pages,
				    struct uvm_page_mask *back)
{
	struct uvm_page_mask to;
	unsigned int page;
	u32 proc;

	uvm_page_mask_zero(back);
	for_each_page_in_mask(page, pages)
		if (ctx->dst[page] == UVM_PROCESSOR_CPU)
			uvm_page_mask_set(back, page);
	for (proc = UVM_PROCESSOR_GPU(0); proc <= uvm_gpu_count; proc++) {
		uvm_page_mask_zero(&to);
		for_each_page_in_mask(page, pages)
			if (ctx->dst[page] == proc)
				uvm_page_mask_set(&to, page);
		uvm_hmm_migrate_region(ctx, region, &to, uvm_gpus[proc - 1],
				       NUMA_NO_NODE);
	}
}

/**
 * uvm_hmm_service_region() - service a batch's faults in one region
 * @ctx:	scratch space
 * @va_space:	the VA space
 * @gpu:	the faulting GPU
 * @base:	the region's first byte
 * @pages:	faulted pages
 * @write:	of those, pages written (or accessed atomically)
 * @bad:	out: pages whose faults are fatal
 *
 * Migrates what the policy asks for, then maps every faulted page: pages
 * on a GPU are mapped there, the others in system memory; the region's
 * other pages that are ready are mapped ahead (__uvm_hmm_map_ahead()).  A
 * page a GPU needs writable but finds read-only on a device (shared
 * copy-on-write with a fork() child) goes through the CPU fault path,
 * which copies it.
 * Faults that found the region being invalidated for too long are neither
 * mapped nor fatal: the GPU faults again after the replay.
 */
static void uvm_hmm_service_region(struct uvm_hmm_ctx *ctx,
				   struct uvm_va_space *va_space,
				   struct uvm_gpu *gpu, u64 base,
				   const struct uvm_page_mask *pages,
				   const struct uvm_page_mask *write,
				   struct uvm_page_mask *bad)
{
	u32 accessor = uvm_gpu_processor(gpu);
	struct uvm_page_mask here, back, failed, ahead;
	struct uvm_hmm_region *region;
	u64 others;
	int ret;

	region = uvm_hmm_region_get(va_space, base);
	if (IS_ERR(region) || uvm_hmm_region_arm(region)) {
		uvm_page_mask_or(bad, bad, pages);
		return;
	}
	others = uvm_hmm_decide(ctx, region, pages, write, accessor);
	if (uvm_hmm_region_gpus(region, others | UVM_PROCESSOR_MASK(accessor))) {
		uvm_page_mask_or(bad, bad, pages);
		return;
	}

	uvm_hmm_migrate_decided(ctx, region, pages, &back);
	uvm_page_mask_andnot(&here, pages, &back);
	uvm_page_mask_zero(&failed);
	uvm_page_mask_fill(&ahead, 0, UVM_PAGES_PER_BLOCK);
	uvm_page_mask_andnot(&ahead, &ahead, pages);
	ret = uvm_hmm_map_pages(ctx, region, gpu, &here, &ahead, write,
				uvm_hmm_devmem_owner(), true, &failed);
	if (ret == -EBUSY || ret == -EINTR)
		return;
	uvm_page_mask_or(&back, &back, &failed);
	uvm_page_mask_zero(&failed);
	uvm_hmm_map_pages(ctx, region, gpu, &back, NULL, write, NULL, true, &failed);
	uvm_page_mask_or(bad, bad, &failed);
}

/**
 * uvm_hmm_ctx_alloc() - scratch space for an HMM operation
 *
 * Return: the context or NULL.
 */
struct uvm_hmm_ctx *uvm_hmm_ctx_alloc(void)
{
	if (uvm_hmm_should_fail())
		return NULL;
	return kvzalloc(sizeof(struct uvm_hmm_ctx), GFP_KERNEL);
}

/**
 * uvm_hmm_service_faults() - service GPU faults on pageable memory
 * @va_space:	the VA space (a reference held); its lock not held
 * @gpu:	the faulting GPU
 * @faults:	the coalesced faults outside every allocation, sorted by
 *		address
 * @count:	entries in @faults
 * @fatal:	the fatal list; faults that cannot be serviced are appended
 * @nfatal:	entries in @fatal
 *
 * Context: GPU fault servicing (a work item), no lock held.
 */
void uvm_hmm_service_faults(struct uvm_va_space *va_space, struct uvm_gpu *gpu,
			    const struct uvm_fault_entry *faults, u32 count,
			    struct uvm_fault_entry *fatal, u32 *nfatal)
{
	struct uvm_page_mask pages, write, bad;
	struct uvm_hmm_ctx *ctx;
	u32 i, next, page;
	u64 base;

	ctx = uvm_hmm_ctx_alloc();
	if (!ctx || !mmget_not_zero(va_space->mm)) {
		kvfree(ctx);
		while (count--)
			fatal[(*nfatal)++] = *faults++;
		return;
	}
	for (i = 0; i < count; i = next) {
		base = faults[i].va & ~(UVM_VA_BLOCK_SIZE - 1);
		uvm_page_mask_zero(&pages);
		uvm_page_mask_zero(&write);
		for (next = i; next < count &&
		     (faults[next].va & ~(UVM_VA_BLOCK_SIZE - 1)) == base; next++) {
			page = (faults[next].va - base) >> PAGE_SHIFT;
			uvm_page_mask_set(&pages, page);
			if (faults[next].access >= UVM_FAULT_ACCESS_WRITE)
				uvm_page_mask_set(&write, page);
		}
		uvm_page_mask_zero(&bad);
		uvm_hmm_service_region(ctx, va_space, gpu, base, &pages, &write, &bad);
		for (; i < next; i++)
			if (uvm_page_mask_test(&bad, (faults[i].va - base) >> PAGE_SHIFT))
				fatal[(*nfatal)++] = faults[i];
	}
	mmput(va_space->mm);
	kvfree(ctx);
}

/* VA space and module lifetime */

/**
 * uvm_hmm_va_space_init() - a new VA space has no pageable state yet
 * @va_space:	the VA space being created
 */
void uvm_hmm_va_space_init(struct uvm_va_space *va_space)
{
	struct uvm_hmm_va_space *hmm = &va_space->hmm;

	mutex_init(&hmm->arm_lock);
	xa_init(&hmm->regions);
	INIT_LIST_HEAD(&hmm->chunks);
}

/**
 * uvm_hmm_va_space_destroy() - free the pageable state of a VA space
 * @va_space:	the VA space, last reference gone: no fault servicing, no
 *		ioctl, no job can use it
 *
 * Order matters: the release notifier goes first (it must not run on freed
 * regions); device pages come back to RAM while the regions' notifiers
 * still revoke the GPU PTEs they find; then the notifiers are removed
 * (waiting for callbacks in progress) and what is left of the PTEs goes.
 *
 * Context: process, no lock held.
 */
void uvm_hmm_va_space_destroy(struct uvm_va_space *va_space)
{
	struct uvm_hmm_va_space *hmm = &va_space->hmm;
	struct uvm_hmm_region *region;
	unsigned long index;

	if (hmm->mn_registered)
		mmu_notifier_unregister(&hmm->mn, va_space->mm);
	uvm_hmm_devmem_evict_va_space(va_space);
	xa_for_each(&hmm->regions, index, region) {
		if (region->armed)
			mmu_interval_notifier_remove(&region->notifier);
		mutex_lock(&region->lock);
		__uvm_hmm_revoke(region, 0, UVM_PAGES_PER_BLOCK);
		mutex_unlock(&region->lock);
		uvm_hmm_region_free(region);
	}
	xa_destroy(&hmm->regions);
	mutex_destroy(&hmm->arm_lock);
}

static bool uvm_hmm_devmem_ok;

/**
 * uvm_hmm_caps() - what pageable memory support the module has
 *
 * Return: UVM_CAP_HMM_MIRROR, plus UVM_CAP_DEVICE_PRIVATE when every GPU
 * has device-private pages.
 */
u64 uvm_hmm_caps(void)
{
	return UVM_CAP_HMM_MIRROR |
	       (UVM_HMM_MIGRATION && uvm_hmm_devmem_ok && uvm_gpu_count ?
		UVM_CAP_DEVICE_PRIVATE : 0);
}

/**
 * uvm_hmm_lockdep_prime() - teach lockdep that reclaim takes region locks
 *
 * The invalidate callback runs under reclaim; telling lockdep up front
 * makes any allocation that may reclaim under a region lock a report at
 * once, not only when reclaim happens to run.
 */
static void uvm_hmm_lockdep_prime(void)
{
	struct mutex lock; /* stands for every region lock: same class */

	if (!IS_ENABLED(CONFIG_LOCKDEP))
		return;
	mutex_init(&lock);
	lockdep_set_class(&lock, &uvm_hmm_region_lock_key);
	fs_reclaim_acquire(GFP_KERNEL);
	might_lock(&lock);
	fs_reclaim_release(GFP_KERNEL);
	mutex_destroy(&lock);
}

/**
 * uvm_hmm_init() - module init of pageable memory support
 *
 * Context: module init, after the GPUs registered.
 * Return: 0 (a GPU without device-private pages only loses migration).
 */
int uvm_hmm_init(void)
{
	uvm_hmm_lockdep_prime();
	uvm_hmm_fail_init();
	uvm_hmm_devmem_ok = !uvm_hmm_devmem_init();
	return 0;
}

/**
 * uvm_hmm_exit() - module exit of pageable memory support
 *
 * Context: module exit, no VA space open.  Waits for fault servicing to
 * finish (it may free a VA space, which evicts device pages), then evicts
 * what is left and drops the device pages.
 */
void uvm_hmm_exit(void)
{
	u32 i;

	for (i = 0; i < uvm_gpu_count; i++)
		flush_workqueue(uvm_gpus[i]->fault_wq);
	uvm_hmm_devmem_exit();
	uvm_hmm_fail_exit();
}
