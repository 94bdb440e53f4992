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
	struct vm_area_struct *vma;
	unsigned int a, b;
	u64 addr, stop, e;
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
		stop = uvm_hmm_page_addr(region, b);
		for (addr = uvm_hmm_page_addr(region, a); addr < stop && !ret; addr = e) {
			vma = find_vma(mm, addr);
			if (!vma || vma->vm_start >= stop)
				break;
			addr = max_t(u64, addr, vma->vm_start);
			e = min_t(u64, stop, vma->vm_end);
			if (!(vma->vm_flags & (VM_LOCKED | VM_HUGETLB | VM_PFNMAP | VM_IO)))
				ret = uvm_zap_range(vma, addr, e - addr);
		}
	}
	mmap_read_unlock(mm);
	if (!ret)
		uvm_va_space_count(region->va_space, UVM_COUNTER_PAGES_DISCARDED, present);
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
 * Context: process (the ioctl or a queue worker), no lock held.
 * Return: 0 or -errno (-EFAULT when the process is gone or pages are no
 * longer accessible).
 */
int uvm_hmm_migrate(struct uvm_va_space *va_space, u32 op, u64 start, u64 end,
		    const struct uvm_location *loc)
{
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
		cond_resched();
		ret = ret ?: uvm_queue_should_stop(&va_space->queue);
	}
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
 * are.  The other advice acts on later accesses only (there are no
 * duplicates of pageable memory to collapse).
 *
 * Context: process, no lock held.
 * Return: 0 or -errno.
 */
int uvm_hmm_advise(struct uvm_va_space *va_space, u64 start, u64 end,
		   u32 advice, const struct uvm_location *loc)
{
	u64 proc = UVM_PROCESSOR_MASK(uvm_location_processor(loc));
	struct uvm_hmm_region *region;
	struct uvm_page_mask mask, failed;
	struct uvm_hmm_ctx *ctx;
	u64 addr, stop;
	u32 page;
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
		cond_resched();
		ret = ret ?: uvm_queue_should_stop(&va_space->queue);
	}
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
