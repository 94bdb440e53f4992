// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Pageable memory: the memory policy ioctls and introspection.
 *
 * DOC: Policy on pageable memory
 *
 * UVM_IOC_ADVISE, UVM_IOC_MIGRATE and UVM_IOC_RANGE_QUERY accept a range of
 * pageable memory where CUDA accepts system-allocated memory: a range that
 * overlaps no allocation of the VA space and lies entirely in VMAs the CPU
 * can read that are not device mappings (uvm_hmm_check_range()).  Anything
 * else that is not one managed range is -EINVAL, unmapped memory included.
 *
 * - Advice is recorded by address like managed advice (uvm_va_policy.c) and
 *   stays with the addresses (munmap() does not clear it).  SET_ACCESSED_BY
 *   of a GPU maps the pages present now at once; the rest acts on later
 *   accesses (uvm_hmm.c: DOC: Pageable memory).
 * - A prefetch to a GPU migrates anonymous private memory there where the
 *   kernel has device-private memory, and populates and maps everything
 *   else where it is; a prefetch to the host brings device pages back and
 *   populates.  Read-mostly pages are mapped in place, never moved (there
 *   is one copy of pageable memory: the kernel's).  The prefetch location
 *   is recorded per page when the request is accepted.
 * - A discard has madvise(MADV_DONTNEED) semantics: the pages go (device
 *   pages too), anonymous private memory reads as zeros afterwards, shared
 *   and file-backed memory as its backing object says.  mlocked and huge-TLB
 *   VMAs are left alone.
 *
 * Locking: validation runs with the caller's mmap_lock and the VA space
 * lock held (uvm_va_range_check()); the operations themselves run with no
 * lock held and take mmap_lock, the VA space lock (to read policy) and
 * region locks one at a time, as uvm_hmm.c describes.
 */
#include <linux/hmm.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "uvm_compat.h"
#include "uvm_gpu.h"
#include "uvm_hmm.h"
#include "uvm_hmm_policy.h"
#include "uvm_hmm_internal.h"
#include "uvm_test.h"
#include "uvm_va_policy.h"
#include "uvm_va_space.h"

/* Policy ioctls on pageable ranges */

/**
 * uvm_hmm_check_range() - is a range valid pageable memory?
 * @va_space:	the VA space; the caller checked that no allocation of it
 *		overlaps the range
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 *
 * Valid means host-accessible: every page lies in a VMA the CPU can read
 * that is not a device mapping (VM_IO, VM_PFNMAP: among them the managed
 * and device ranges of other opens of /dev/uvm).
 *
 * Context: mmap_lock of the VA space's mm held (the caller's own mm).
 * Return: 0 or -EINVAL.
 */
int uvm_hmm_check_range(struct uvm_va_space *va_space, u64 start, u64 end)
{
	struct mm_struct *mm = va_space->mm;
	struct vm_area_struct *vma;
	u64 addr = start;

	lockdep_assert_held(&mm->mmap_lock);

	if (end > mm->task_size)
		return -EINVAL;
	while (addr < end) {
		vma = vma_lookup(mm, addr);
		if (!vma || (vma->vm_flags & (VM_IO | VM_PFNMAP)) ||
		    !(vma->vm_flags & VM_READ))
			return -EINVAL;
		addr = vma->vm_end;
	}
	return 0;
}

/**
 * uvm_hmm_policy_pages() - the policy bits a prefetch or advice needs
 * @ctx:	gets ctx->mapped_by[] for the pages of @mask
 * @region:	the region
 * @mask:	pages
 * @read_mostly: out: pages of @mask that are read-mostly
 * @except:	processor whose own bit is left out of ctx->mapped_by[]
 *
 * Context: process; takes the VA space lock for read.
 * Return: the accessed-by GPUs of the pages (processor mask).
 */
static u64 uvm_hmm_policy_pages(struct uvm_hmm_ctx *ctx,
				struct uvm_hmm_region *region,
				const struct uvm_page_mask *mask,
				struct uvm_page_mask *read_mostly, u32 except)
{
	struct uvm_va_space *va_space = region->va_space;
	struct uvm_va_policy_iter iter;
	u32 first, end, page;
	u64 others = 0, by;

	uvm_page_mask_zero(read_mostly);
	down_read(&va_space->lock);
	for (uvm_va_policy_iter_first(va_space, region->start,
				      region->start + UVM_VA_BLOCK_SIZE, &iter);
	     iter.start < iter.limit; uvm_va_policy_iter_next(&iter)) {
		first = (iter.start - region->start) >> PAGE_SHIFT;
		end = (iter.end - region->start) >> PAGE_SHIFT;
		by = uvm_va_policy_mapped_by(iter.policy) &
		     ~(UVM_PROCESSOR_MASK(UVM_PROCESSOR_CPU) | UVM_PROCESSOR_MASK(except));
		for (page = find_next_bit(mask->bits, end, first); page < end;
		     page = find_next_bit(mask->bits, end, page + 1)) {
			ctx->mapped_by[page] = by;
			others |= by;
			if (iter.policy->read_mostly)
				uvm_page_mask_set(read_mostly, page);
		}
	}
	up_read(&va_space->lock);
	return others;
}

/**
 * uvm_hmm_writable() - the pages of a mask a prefetch populates writable
 * @region:	the region
 * @mask:	pages
 * @out:	out: pages of writable anonymous private VMAs (file pages are
 *		populated read-only: a write would dirty them, or copy them
 *		for a private mapping)
 *
 * Context: process, no lock held, mm_users reference held.
 * Return: 0 or -EINTR.
 */
static int uvm_hmm_writable(struct uvm_hmm_region *region,
			    const struct uvm_page_mask *mask,
			    struct uvm_page_mask *out)
{
	struct mm_struct *mm = region->va_space->mm;
	struct vm_area_struct *vma;
	unsigned int first, end;
	u64 addr, stop, e;

	uvm_page_mask_zero(out);
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	for_each_page_run_in_mask(first, end, mask) {
		stop = uvm_hmm_page_addr(region, end);
		for (addr = uvm_hmm_page_addr(region, first); addr < stop; addr = e) {
			vma = find_vma(mm, addr);
			if (!vma || vma->vm_start >= stop)
				break;
			addr = max_t(u64, addr, vma->vm_start);
			e = min_t(u64, stop, vma->vm_end);
			if ((vma->vm_flags & VM_WRITE) && vma_is_anonymous(vma))
				bitmap_set(out->bits, (addr - region->start) >> PAGE_SHIFT,
					   (e - addr) >> PAGE_SHIFT);
		}
	}
	mmap_read_unlock(mm);
	return 0;
}

/**
 * uvm_hmm_prefetch_region() - prefetch pages of a region to a location
 * @ctx:	scratch space
 * @region:	the region
 * @mask:	pages
 * @loc:	resolved destination
 *
 * To a GPU: anonymous private pages migrate there (kernels with device
 * private memory), the rest is populated and mapped where it is; the
 * destination and the accessed-by GPUs map everything.  To the host:
 * device pages come back to system memory and untouched pages are
 * populated.  Read-mostly pages are mapped where they are, never moved.
 *
 * Context: process, no lock held, mm_users reference held.
 * Return: 0, -EFAULT when pages are no longer accessible, -EINTR, -ENOMEM.
 */
static int uvm_hmm_prefetch_region(struct uvm_hmm_ctx *ctx,
				   struct uvm_hmm_region *region,
				   const struct uvm_page_mask *mask,
				   const struct uvm_location *loc)
{
	struct uvm_va_space *va_space = region->va_space;
	u32 dst = uvm_location_processor(loc);
	struct uvm_gpu *gpu = dst == UVM_PROCESSOR_CPU ? NULL : uvm_gpus[dst - 1];
	struct uvm_page_mask rm, move, write, failed;
	u64 others;
	int ret, moved;

	others = uvm_hmm_policy_pages(ctx, region, mask, &rm, dst);
	ret = uvm_hmm_region_gpus(region, others | (gpu ? UVM_PROCESSOR_MASK(dst) : 0));
	if (ret)
		return ret;

	uvm_page_mask_andnot(&move, mask, &rm);
	moved = uvm_hmm_migrate_region(ctx, region, &move, gpu, uvm_location_nid(loc));
	if (moved < 0)
		return moved;
	uvm_va_space_count(va_space, UVM_COUNTER_PAGES_PREFETCHED, moved);
	/* All of it came back to the host: nothing to populate or map. */
	if (!gpu && !others && moved == uvm_page_mask_weight(mask))
		return 0;

	uvm_page_mask_zero(&write);
	ret = gpu ? uvm_hmm_writable(region, &move, &write) : 0;
	if (ret)
		return ret;
	uvm_page_mask_zero(&failed);
	ret = uvm_hmm_map_pages(ctx, region, gpu, mask, NULL, &write,
				gpu ? uvm_hmm_devmem_owner() : NULL, true, &failed);
	if (!ret && !uvm_page_mask_empty(&failed))
		ret = -EFAULT;
	return ret;
}

/**
 * uvm_hmm_zap() - drop the CPU PTEs of pageable memory, as MADV_DONTNEED
 * @mm:		the mm, its mmap_lock held for read
 * @start:	first byte, page aligned
 * @end:	last byte + 1
 *
 * mlocked, huge-TLB and device VMAs are left alone; holes are skipped.
 *
 * Return: 0 or -EOPNOTSUPP.
 */
static int uvm_hmm_zap(struct mm_struct *mm, u64 start, u64 end)
{
	struct vm_area_struct *vma;
	u64 addr, e;
	int ret = 0;

	for (addr = start; addr < end && !ret; addr = e) {
		vma = find_vma(mm, addr);
		if (!vma || vma->vm_start >= end)
			break;
		addr = max_t(u64, addr, vma->vm_start);
		e = min_t(u64, end, vma->vm_end);
		if (!(vma->vm_flags & (VM_LOCKED | VM_HUGETLB | VM_PFNMAP | VM_IO)))
			ret = uvm_zap_range(vma, addr, e - addr);
	}
	return ret;
}

/**
 * uvm_hmm_discard_region() - drop the contents of pages of a region
 * @ctx:	scratch space
 * @region:	the region
 * @mask:	pages
 *
 * madvise(MADV_DONTNEED) semantics: the PTEs go (GPU PTEs through the
 * notifier); anonymous private memory reads as zeros afterwards, shared and
 * file-backed memory as its backing object says.  mlocked, huge-TLB and
 * device VMAs are left alone.
 *
 * Context: process, no lock held, mm_users reference held.
 * Return: 0, -EINTR or -EOPNOTSUPP.
 */
static int uvm_hmm_discard_region(struct uvm_hmm_ctx *ctx,
				  struct uvm_hmm_region *region,
				  const struct uvm_page_mask *mask)
{
	struct mm_struct *mm = region->va_space->mm;
	u32 first, last, page, present = 0;
	unsigned int a, b;
	int ret;

	if (uvm_page_mask_empty(mask))
		return 0;
	first = find_first_bit(mask->bits, UVM_PAGES_PER_BLOCK);
	last = find_last_bit(mask->bits, UVM_PAGES_PER_BLOCK);
	memset(&ctx->req[first], 0, (last + 1 - first) * sizeof(ctx->req[0]));
	ret = uvm_hmm_fault_and_lock(region, ctx, first, last + 1, uvm_hmm_devmem_owner());
	if (ret)
		return ret;
	for_each_page_in_mask(page, mask)
		if ((ctx->pfns[page] & HMM_PFN_VALID) &&
		    !is_zero_pfn(page_to_pfn(hmm_pfn_to_page(ctx->pfns[page]))))
			present++;
	mutex_unlock(&region->lock);

	if (mmap_read_lock_killable(mm))
		return -EINTR;
	for_each_page_run_in_mask(a, b, mask) {
		ret = uvm_hmm_zap(mm, uvm_hmm_page_addr(region, a), uvm_hmm_page_addr(region, b));
		if (ret)
			break;
	}
	mmap_read_unlock(mm);
	if (!ret)
		uvm_va_space_count(region->va_space, UVM_COUNTER_PAGES_DISCARDED, present);
	return ret;
}

/* Pageable memory without a region */

/**
 * struct uvm_hmm_probe - a look at pageable memory that has no region
 * @notifier:	interval notifier over the range of one operation (what
 *		hmm_range_fault() needs), inserted on first use
 * @armed:	@notifier is inserted
 * @start:	first byte of the operation's range
 * @end:	last byte + 1
 *
 * A discard, or accessed-by advice, over memory the GPUs never touched
 * needs no region: a request over terabytes of unpopulated memory must not
 * allocate a structure per 2 MiB.  Such parts are looked at through one
 * probe per operation, and get a region only where advice finds pages to
 * map (a discard never needs one).
 */
struct uvm_hmm_probe {
	struct mmu_interval_notifier notifier;
	bool armed;
	u64 start;
	u64 end;
};

/* The probe keeps no state to revoke: a snapshot overtaken is taken again. */
static bool uvm_hmm_probe_invalidate(struct mmu_interval_notifier *mni,
				     const struct mmu_notifier_range *range,
				     unsigned long cur_seq)
{
	mmu_interval_set_seq(mni, cur_seq);
	return true;
}

static const struct mmu_interval_notifier_ops uvm_hmm_probe_ops = {
	.invalidate = uvm_hmm_probe_invalidate,
};

static void uvm_hmm_probe_done(struct uvm_hmm_probe *probe)
{
	if (probe->armed)
		mmu_interval_notifier_remove(&probe->notifier);
	probe->armed = false;
}

/**
 * uvm_hmm_probe_present() - count the pages present in part of a 2 MiB
 * @probe:	the operation's probe
 * @ctx:	scratch space (its pfns)
 * @mm:		the mm, an mm_users reference held
 * @addr:	first byte, page aligned
 * @stop:	last byte + 1, in the same 2 MiB as @addr
 * @present:	out: pages mapped by the CPU (the shared zero page not
 *		counted) or device pages of ours
 *
 * Context: process, no lock held.
 * Return: 0, -EFAULT (no longer accessible), -EBUSY, -EINTR, -ENOMEM.
 */
static int uvm_hmm_probe_present(struct uvm_hmm_probe *probe, struct uvm_hmm_ctx *ctx,
				 struct mm_struct *mm, u64 addr, u64 stop, u32 *present)
{
	u32 first = (addr & (UVM_VA_BLOCK_SIZE - 1)) >> PAGE_SHIFT, n = (stop - addr) >> PAGE_SHIFT;
	unsigned long timeout = jiffies + msecs_to_jiffies(HMM_RANGE_DEFAULT_TIMEOUT);
	struct hmm_range range = {
		.notifier = &probe->notifier,
		.start = addr,
		.end = stop,
		.hmm_pfns = &ctx->pfns[first],
		.dev_private_owner = uvm_hmm_devmem_owner(),
	};
	u32 i;
	int ret;

	if (!probe->armed) {
		ret = uvm_hmm_should_fail() ? -ENOMEM :
		      mmu_interval_notifier_insert(&probe->notifier, mm, probe->start,
						   probe->end - probe->start, &uvm_hmm_probe_ops);
		if (ret)
			return ret;
		probe->armed = true;
	}
	do {
		if (time_after(jiffies, timeout))
			return -EBUSY;
		range.notifier_seq = mmu_interval_read_begin(&probe->notifier);
		if (mmap_read_lock_killable(mm))
			return -EINTR;
		ret = hmm_range_fault(&range);
		mmap_read_unlock(mm);
	} while (ret == -EBUSY);
	if (ret)
		return ret;
	for (*present = 0, i = first; i < first + n; i++)
		*present += (ctx->pfns[i] & HMM_PFN_VALID) &&
			    !is_zero_pfn(page_to_pfn(hmm_pfn_to_page(ctx->pfns[i])));
	return 0;
}

/**
 * uvm_hmm_untouched_end() - where memory that holds no page of its own ends
 * @va_space:	the VA space
 * @addr:	a page with no region
 * @end:	end of the operation
 *
 * A private anonymous mapping never written (no anon_vma) holds nothing
 * but the shared zero page, so nothing a discard drops or advice maps: a
 * never-touched MAP_NORESERVE mapping of terabytes is skipped at once, up
 * to the next region.
 *
 * Context: process, no lock held.
 * Return: the end of the untouched memory from @addr, or @addr.
 */
static u64 uvm_hmm_untouched_end(struct uvm_va_space *va_space, u64 addr, u64 end)
{
	struct mm_struct *mm = va_space->mm;
	unsigned long index = addr >> UVM_VA_BLOCK_SHIFT;
	struct vm_area_struct *vma;
	u64 stop = addr;

	if (mmap_read_lock_killable(mm))
		return addr;
	vma = vma_lookup(mm, addr);
	if (vma && vma_is_anonymous(vma) && !vma->anon_vma)
		stop = min_t(u64, vma->vm_end, end);
	mmap_read_unlock(mm);
	if (stop > addr && xa_find(&va_space->hmm.regions, &index,
				   (stop - 1) >> UVM_VA_BLOCK_SHIFT, XA_PRESENT))
		stop = max_t(u64, addr, (u64)index << UVM_VA_BLOCK_SHIFT);
	return stop;
}

/**
 * uvm_hmm_discard_unseen() - discard part of a 2 MiB that has no region
 * @probe:	the operation's probe
 * @ctx:	scratch space
 * @va_space:	the VA space
 * @addr:	first byte
 * @stop:	last byte + 1, in the same 2 MiB
 *
 * No GPU maps these pages (no region): the CPU PTEs go, the present pages
 * are counted.
 *
 * Return: 0 or -errno.
 */
static int uvm_hmm_discard_unseen(struct uvm_hmm_probe *probe, struct uvm_hmm_ctx *ctx,
				  struct uvm_va_space *va_space, u64 addr, u64 stop)
{
	struct mm_struct *mm = va_space->mm;
	u32 present;
	int ret;

	ret = uvm_hmm_probe_present(probe, ctx, mm, addr, stop, &present);
	if (ret || !present)
		return ret;
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	ret = uvm_hmm_zap(mm, addr, stop);
	mmap_read_unlock(mm);
	if (!ret)
		uvm_va_space_count(va_space, UVM_COUNTER_PAGES_DISCARDED, present);
	return ret;
}

/**
 * uvm_hmm_migrate() - prefetch or discard a pageable range
 * @va_space:	the VA space
 * @op:		UVM_MIGRATE_PREFETCH, _DISCARD or _DISCARD_PREFETCH
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 * @loc:	resolved destination of the prefetching ops
 *
 * A prefetch populates, so it works region by region.  A discard of memory
 * without a region takes none (uvm_hmm_discard_unseen()), and skips
 * untouched mappings whole.  Stops between 2 MiB when the job must
 * (uvm_queue_should_stop()).
 *
 * Context: process (the ioctl or a queue worker), no lock held.
 * Return: 0 or -errno (-EFAULT when the process is gone or pages are no
 * longer accessible).
 */
int uvm_hmm_migrate(struct uvm_va_space *va_space, u32 op, u64 start, u64 end,
		    const struct uvm_location *loc)
{
	struct uvm_hmm_probe probe = { .start = start, .end = end };
	struct uvm_hmm_region *region;
	struct uvm_page_mask mask;
	struct uvm_hmm_ctx *ctx;
	u64 addr, stop;
	int ret = 0;

	ctx = uvm_hmm_ctx_alloc();
	if (!ctx)
		return -ENOMEM;
	if (!mmget_not_zero(va_space->mm)) {
		kvfree(ctx);
		return -EFAULT;
	}
	for (addr = start; addr < end && !ret; addr = stop) {
		stop = min_t(u64, end, round_down(addr, UVM_VA_BLOCK_SIZE) + UVM_VA_BLOCK_SIZE);
		if (op == UVM_MIGRATE_DISCARD &&
		    !xa_load(&va_space->hmm.regions, addr >> UVM_VA_BLOCK_SHIFT)) {
			stop = max(stop, uvm_hmm_untouched_end(va_space, addr, end));
			if (stop - addr <= UVM_VA_BLOCK_SIZE)
				ret = uvm_hmm_discard_unseen(&probe, ctx, va_space, addr, stop);
		} else {
			region = uvm_hmm_region_get_armed(va_space, addr, 0);
			if (IS_ERR(region)) {
				ret = PTR_ERR(region);
				break;
			}
			uvm_hmm_range_mask(region, addr, stop, &mask);
			if (op != UVM_MIGRATE_PREFETCH)
				ret = uvm_hmm_discard_region(ctx, region, &mask);
			if (!ret && op != UVM_MIGRATE_DISCARD)
				ret = uvm_hmm_prefetch_region(ctx, region, &mask, loc);
		}
		cond_resched();
		ret = ret ?: uvm_queue_should_stop(&va_space->queue);
	}
	uvm_hmm_probe_done(&probe);
	mmput(va_space->mm);
	kvfree(ctx);
	return ret;
}

/**
 * uvm_hmm_advise() - the immediate effects of advice on a pageable range
 * @va_space:	the VA space; the advice is recorded
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 * @advice:	UVM_ADVICE_*
 * @loc:	resolved location
 *
 * SET_ACCESSED_BY of a GPU maps it to the pages present now, wherever they
 * are: memory without a region gets one only where pages are present
 * (untouched mappings are skipped whole).  The other advice acts on later
 * accesses only (there are no duplicates of pageable memory to collapse).
 *
 * Context: process, no lock held.
 * Return: 0 or -errno.
 */
int uvm_hmm_advise(struct uvm_va_space *va_space, u64 start, u64 end,
		   u32 advice, const struct uvm_location *loc)
{
	u64 proc = UVM_PROCESSOR_MASK(uvm_location_processor(loc));
	struct uvm_hmm_probe probe = { .start = start, .end = end };
	struct uvm_hmm_region *region;
	struct uvm_page_mask mask, failed;
	struct uvm_hmm_ctx *ctx;
	u32 page, present;
	u64 addr, stop;
	int ret = 0;

	if (advice != UVM_ADVICE_SET_ACCESSED_BY || loc->type != UVM_LOCATION_GPU)
		return 0;
	ctx = uvm_hmm_ctx_alloc();
	if (!ctx)
		return -ENOMEM;
	if (!mmget_not_zero(va_space->mm)) {
		kvfree(ctx);
		return -EFAULT;
	}
	for (addr = start; addr < end && !ret; addr = stop) {
		stop = min_t(u64, end, round_down(addr, UVM_VA_BLOCK_SIZE) + UVM_VA_BLOCK_SIZE);
		if (!xa_load(&va_space->hmm.regions, addr >> UVM_VA_BLOCK_SHIFT)) {
			stop = max(stop, uvm_hmm_untouched_end(va_space, addr, end));
			if (stop - addr > UVM_VA_BLOCK_SIZE)
				goto next;
			ret = uvm_hmm_probe_present(&probe, ctx, va_space->mm, addr, stop,
						    &present);
			if (ret || !present)
				goto next;
		}
		region = uvm_hmm_region_get_armed(va_space, addr, proc);
		if (IS_ERR(region)) {
			ret = PTR_ERR(region);
			break;
		}
		uvm_hmm_range_mask(region, addr, stop, &mask);
		for_each_page_in_mask(page, &mask)
			ctx->mapped_by[page] = proc;
		uvm_page_mask_zero(&failed);
		ret = uvm_hmm_map_pages(ctx, region, NULL, &mask, NULL, NULL,
					uvm_hmm_devmem_owner(), false, &failed);
next:
		cond_resched();
		ret = ret ?: uvm_queue_should_stop(&va_space->queue);
	}
	uvm_hmm_probe_done(&probe);
	mmput(va_space->mm);
	kvfree(ctx);
	return ret;
}

/* Introspection */

/**
 * uvm_hmm_region_states() - residency and mappings of pages of one region
 * @ctx:	scratch space
 * @region:	an armed region
 * @first:	first page index
 * @end:	last page index + 1
 * @states:	out, one per page from @first, zeroed by the caller
 *
 * Return: 0 or -errno.
 */
static int uvm_hmm_region_states(struct uvm_hmm_ctx *ctx,
				 struct uvm_hmm_region *region, u32 first, u32 end,
				 struct uvm_test_page_state *states)
{
	const u64 cpu = UVM_PROCESSOR_MASK(UVM_PROCESSOR_CPU);
	struct uvm_test_page_state *st;
	struct uvm_hmm_gpu_state *gs;
	struct uvm_gpu_address addr;
	unsigned long pfn;
	u32 page, i;
	u64 bit;
	int ret;

	memset(&ctx->req[first], 0, (end - first) * sizeof(ctx->req[0]));
	ret = uvm_hmm_fault_and_lock(region, ctx, first, end, uvm_hmm_devmem_owner());
	if (ret)
		return ret;
	for (page = first; page < end; page++) {
		st = &states[page - first];
		pfn = ctx->pfns[page];
		if (pfn & HMM_PFN_VALID) {
			if (uvm_hmm_devmem_page_addr(hmm_pfn_to_page(pfn), &addr)) {
				st->resident |= UVM_PROCESSOR_MASK(UVM_PROCESSOR_GPU(addr.gpu));
			} else {
				st->resident |= cpu;
				st->mapped_read |= cpu;
				if (pfn & HMM_PFN_WRITE)
					st->mapped_write |= cpu;
			}
		}
		for (i = 0; i < uvm_gpu_count; i++) {
			gs = region->gpus[i];
			bit = UVM_PROCESSOR_MASK(UVM_PROCESSOR_GPU(i));
			if (!gs || !uvm_page_mask_test(&gs->mapped, page))
				continue;
			st->mapped_read |= bit;
			if (!uvm_page_mask_test(&gs->mapped_write, page))
				continue;
			st->mapped_write |= bit;
			st->mapped_atomic |= bit;
		}
	}
	mutex_unlock(&region->lock);
	return 0;
}

/**
 * uvm_hmm_page_states() - UVM_TEST_IOC_RESIDENCY for pageable memory
 * @va_space:	the VA space
 * @start:	first page address
 * @npages:	pages; none of them in an allocation of the VA space
 * @states:	out, @npages entries, zeroed by the caller
 *
 * A page is resident on the CPU when the CPU page tables map it (the CPU
 * then maps it, writable or not as its PTE is), on GPU g when its PTE holds
 * one of g's device-private pages (the CPU does not map it then).  A GPU
 * maps it when its page table has a PTE for it (write and atomic together).
 * Pages of a process that is gone read as all zero.
 *
 * Context: process (the test ioctl), no lock held.
 * Return: 0 or -errno.
 */
int uvm_hmm_page_states(struct uvm_va_space *va_space, u64 start, u64 npages,
			struct uvm_test_page_state *states)
{
	u64 addr = start, end = start + (npages << PAGE_SHIFT), stop;
	struct uvm_hmm_region *region;
	struct uvm_hmm_ctx *ctx;
	int ret = 0;

	ctx = uvm_hmm_ctx_alloc();
	if (!ctx)
		return -ENOMEM;
	if (!mmget_not_zero(va_space->mm)) {
		kvfree(ctx);
		return 0;
	}
	for (; addr < end && !ret; addr = stop) {
		stop = min_t(u64, end, round_down(addr, UVM_VA_BLOCK_SIZE) + UVM_VA_BLOCK_SIZE);
		region = uvm_hmm_region_get_armed(va_space, addr, 0);
		if (IS_ERR(region)) {
			ret = PTR_ERR(region);
			break;
		}
		ret = uvm_hmm_region_states(ctx, region, (addr - region->start) >> PAGE_SHIFT,
					    (stop - region->start) >> PAGE_SHIFT,
					    &states[(addr - start) >> PAGE_SHIFT]);
	}
	mmput(va_space->mm);
	kvfree(ctx);
	return ret;
}
