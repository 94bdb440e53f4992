// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Registered host memory: process memory pinned for the GPUs.
 *
 * DOC: Registered host memory
 *
 * UVM_IOC_HOST_REGISTER pins the pages covering a byte range of ordinary
 * process memory (cuMemHostRegister, and cuMemAllocHost/cuMemHostAlloc,
 * which libuvm builds on it) with FOLL_LONGTERM, so they neither move nor go
 * away while registered.  Every GPU can then access those bytes at the same
 * addresses: the first access of a GPU faults and the servicer maps the
 * pinned page (system memory aperture, read-only for READ_ONLY
 * registrations; a write there is a fatal fault).  A READ_ONLY registration
 * of a writable mapping still pins for writing, breaking copy-on-write
 * (the zero page of memory never written, say) so that the GPUs see the
 * pages the CPU goes on writing.
 *
 * The range is the exact bytes registered: two registrations may share a
 * page but not a byte.  Overlapping a registered byte is -EEXIST, managed or
 * device memory -EINVAL.  UVM_IOC_HOST_UNREGISTER takes the address given
 * at registration; it removes every GPU's PTEs of the pages, invalidates,
 * releases the DMA mappings and unpins.  A page shared with another
 * registration is mapped again on that one's next GPU access.
 *
 * The pins count against the caller's RLIMIT_MEMLOCK (mm->pinned_vm, as
 * RDMA memory registrations do; CAP_IPC_LOCK is exempt): a registration
 * beyond it is -ENOMEM, and unregistering gives the pages back.
 *
 * If the process unmaps registered memory without unregistering, the pages
 * stay pinned (GPUs keep seeing the old pages) until unregistered, until a
 * mapping of /dev/uvm lands on the addresses, or until release.
 *
 * Locking: registration pins before taking the VA space lock (pinning
 * takes mmap_lock, which is above it); the tree changes under the lock held
 * for write.  A GPU's DMA array and its entries are written by that GPU's
 * fault servicing only, under the lock held for read, by cmpxchg(): with
 * fault_service_threads above 1 two workers may map the same range.
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "uvm_gpu.h"
#include "uvm_host_range.h"
#include "uvm_pin.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

static const struct uvm_va_range_ops uvm_host_range_ops;

/* Pinned pages per registration, a bound on what one ioctl can hold. */
#define UVM_HOST_REGISTER_MAX_PAGES	BIT_ULL(26)

/**
 * uvm_host_range_page() - the pinned page holding a registered byte
 * @range:	a host range
 * @va:		an address inside it
 *
 * Return: the page.
 */
struct page *uvm_host_range_page(struct uvm_va_range *range, u64 va)
{
	return range->host.pages[((va & PAGE_MASK) - range->host.first) >> PAGE_SHIFT];
}

/**
 * uvm_host_range_free() - unmap and unpin a host range
 * @va_space:	the VA space
 * @range:	the range, out of the tree
 */
static void uvm_host_range_free(struct uvm_va_space *va_space,
				struct uvm_va_range *range)
{
	struct uvm_va_range_host *host = &range->host;
	u64 size = host->npages << PAGE_SHIFT;
	u32 i;
	u64 p;

	for (i = 0; i < uvm_gpu_count; i++) {
		struct uvm_gpu *gpu = uvm_gpus[i];
		struct uvm_gpu_va_space *gvs;

		if (!host->dma[i])
			continue;
		gvs = uvm_va_space_gpu_va_space(va_space, gpu);
		gpu->ops->unmap(gvs, host->first, host->npages);
		gpu->ops->tlb_invalidate(gvs, host->first, size);
		for (p = 0; p < host->npages; p++)
			if (host->dma[i][p])
				gpu->ops->sysmem_unmap(gpu, host->dma[i][p]);
		kvfree(host->dma[i]);
	}
	uvm_unpin_user_pages(host->pages, host->npages);
	uvm_pin_uncharge(va_space->mm, host->npages);
	kvfree(host->pages);
}

/**
 * uvm_host_range_map() - map a registered page on a faulting GPU
 * @va_space:	the VA space; its lock held for read
 * @range:	a host range
 * @gpu:	the faulting GPU
 * @va:		the faulting address
 * @access:	access type
 *
 * Return: 0; -EPERM for a write to read-only memory; -errno of a mapping.
 */
static int uvm_host_range_map(struct uvm_va_space *va_space, struct uvm_va_range *range,
			      struct uvm_gpu *gpu, u64 va, enum uvm_fault_access access)
{
	struct uvm_va_range_host *host = &range->host;
	u64 p = ((va & PAGE_MASK) - host->first) >> PAGE_SHIFT;
	struct uvm_gpu_address pte = { .aperture = UVM_APERTURE_SYS };
	u64 *dma = READ_ONCE(host->dma[gpu->index]), *fresh, addr, old;
	int ret;

	if (host->read_only && access >= UVM_FAULT_ACCESS_WRITE)
		return -EPERM;
	/*
	 * Fault servicing of one GPU may run on several workers at once
	 * (fault_service_threads): one array wins, the others are freed.
	 */
	if (!dma) {
		fresh = kvcalloc(host->npages, sizeof(*fresh), GFP_KERNEL_ACCOUNT);
		if (!fresh)
			return -ENOMEM;
		dma = cmpxchg(&host->dma[gpu->index], NULL, fresh);
		if (dma)
			kvfree(fresh);
		else
			dma = fresh;
	}
	/* and one DMA mapping of the page, the same way */
	addr = READ_ONCE(dma[p]);
	if (!addr) {
		ret = gpu->ops->sysmem_map(gpu, host->pages[p], &addr);
		if (ret)
			return ret;
		old = cmpxchg64(&dma[p], 0, addr);
		if (old) {
			gpu->ops->sysmem_unmap(gpu, addr);
			addr = old;
		}
	}
	pte.addr = addr;
	ret = gpu->ops->map(uvm_va_space_gpu_va_space(va_space, gpu), va & PAGE_MASK,
			    &pte, 1, PAGE_SIZE, host->read_only ? UVM_PROT_READ_ONLY :
						       UVM_PROT_READ_WRITE_ATOMIC);
	if (!ret)
		uvm_va_space_count(va_space, UVM_COUNTER_GPU_PAGES_MAPPED, 1);
	return ret;
}

/**
 * uvm_host_range_check_free() - may [start, end) be registered?
 * @va_space:	the VA space; its lock held
 * @start:	first byte
 * @end:	last byte + 1
 *
 * Return: 0, -EEXIST when it overlaps registered bytes, -EINVAL when it
 * overlaps managed or device memory (any byte of their pages).
 */
static int uvm_host_range_check_free(struct uvm_va_space *va_space, u64 start,
				     u64 end)
{
	struct interval_tree_node *node;

	node = interval_tree_iter_first(&va_space->ranges, round_down(start, PAGE_SIZE),
					round_up(end, PAGE_SIZE) - 1);
	for (; node; node = interval_tree_iter_next(node, round_down(start, PAGE_SIZE),
						    round_up(end, PAGE_SIZE) - 1)) {
		struct uvm_va_range *r = container_of(node, struct uvm_va_range, node);

		if (r->kind != UVM_RANGE_HOST)
			return -EINVAL;
		if (node->start < end && node->last >= start)
			return -EEXIST;
	}
	return 0;
}

/*
 * Whether a read-only registration must still pin the pages at @addr for
 * writing: in a writable mapping the pages the CPU will write are not yet
 * the ones a read pin finds (the zero page, a page shared copy-on-write),
 * so the pin breaks COW first, as the CPU's next write would.  Return: the
 * number of bytes from @addr in the same mapping, 0 past every mapping.
 */
static u64 uvm_host_range_pin_mode(u64 addr, u64 end, bool *write)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	u64 len = 0;

	if (mmap_read_lock_killable(mm))
		return 0;
	vma = vma_lookup(mm, addr);
	if (vma) {
		*write = vma->vm_flags & VM_WRITE;
		len = min_t(u64, vma->vm_end, end) - addr;
	}
	mmap_read_unlock(mm);
	return len;
}

/*
 * Pins every page of @host: for writing unless the registration is
 * read-only, and then still for writing in writable mappings (see above).
 * Return: 0, or what pinning failed with (-EFAULT: a page is not mapped or
 * not accessible; -ENOMEM; -EINTR); nothing stays pinned on failure.
 */
static int uvm_host_range_pin(struct uvm_va_range_host *host)
{
	u64 addr = host->first, end = host->first + (host->npages << PAGE_SHIFT);
	unsigned long done = 0;
	bool write = true;
	long pinned;

	while (done < host->npages) {
		unsigned long nr = host->npages - done;

		if (host->read_only) {
			u64 len = uvm_host_range_pin_mode(addr, end, &write);

			if (!len) {
				pinned = fatal_signal_pending(current) ? -EINTR : -EFAULT;
				goto err;
			}
			nr = len >> PAGE_SHIFT;
		}
		pinned = uvm_pin_user_pages_fast(addr, nr,
						 FOLL_LONGTERM | (write ? FOLL_WRITE : 0),
						 host->pages + done);
		if (pinned <= 0) {
			pinned = pinned ? pinned : -EFAULT;
			goto err;
		}
		done += pinned;
		addr += (u64)pinned << PAGE_SHIFT;
	}
	return 0;

err:
	uvm_unpin_user_pages(host->pages, done);
	return (int)pinned;
}

/**
 * uvm_ioc_host_register() - UVM_IOC_HOST_REGISTER
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_host_register
 *
 * Return: see the uapi.
 */
int uvm_ioc_host_register(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_host_register *args = data;
	u64 start = args->address, end = args->address + args->length;
	struct uvm_va_range *range;
	struct uvm_va_range_host *host;
	int ret;

	if ((args->flags & ~UVM_HOST_REGISTER_READ_ONLY) || args->pad ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    !args->length || end < start || end > TASK_SIZE)
		return -EINVAL;

	/* Managed or device memory cannot be pinned: say why, not -EFAULT. */
	down_read(&va_space->lock);
	ret = uvm_host_range_check_free(va_space, start, end);
	up_read(&va_space->lock);
	if (ret)
		return ret;

	range = uvm_va_range_alloc(UVM_RANGE_HOST, &uvm_host_range_ops,
				   start, end, GFP_KERNEL_ACCOUNT);
	if (!range)
		return -ENOMEM;
	host = &range->host;
	host->read_only = args->flags & UVM_HOST_REGISTER_READ_ONLY;
	host->first = round_down(start, PAGE_SIZE);
	host->npages = (round_up(end, PAGE_SIZE) - host->first) >> PAGE_SHIFT;
	if (host->npages > UVM_HOST_REGISTER_MAX_PAGES) {
		ret = -ENOMEM;
		goto err_free_range;
	}
	/* charged first: a refused request allocates nothing big */
	ret = uvm_pin_charge(va_space->mm, host->npages);
	if (ret)
		goto err_free_range;
	host->pages = kvmalloc_array(host->npages, sizeof(*host->pages),
				     GFP_KERNEL_ACCOUNT);
	if (!host->pages) {
		ret = -ENOMEM;
		goto err_uncharge;
	}

	ret = uvm_host_range_pin(host);
	if (ret)
		goto err_free_pages;

	/* Checked again: the ranges may have changed while pinning. */
	down_write(&va_space->lock);
	ret = uvm_host_range_check_free(va_space, start, end);
	if (!ret)
		__uvm_va_range_insert(va_space, range);
	up_write(&va_space->lock);
	if (ret)
		goto err_unpin;
	args->buffer_id = range->buffer_id;
	return 0;

err_unpin:
	uvm_unpin_user_pages(host->pages, host->npages);
err_free_pages:
	kvfree(host->pages);
err_uncharge:
	uvm_pin_uncharge(va_space->mm, host->npages);
err_free_range:
	kfree(range);
	return ret;
}

/**
 * uvm_ioc_host_unregister() - UVM_IOC_HOST_UNREGISTER
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_host_unregister
 *
 * Return: 0, -ENOENT when no registration starts at the address, -EINVAL
 * for non-zero reserved fields.
 */
int uvm_ioc_host_unregister(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_host_unregister *args = data;
	struct uvm_va_range *range;
	int ret = -ENOENT;

	if (memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	down_write(&va_space->lock);
	range = uvm_va_range_find(va_space, args->address);
	if (range && range->kind == UVM_RANGE_HOST &&
	    uvm_va_range_start(range) == args->address) {
		__uvm_va_range_destroy(va_space, range);
		ret = 0;
	}
	up_write(&va_space->lock);
	return ret;
}

static int uvm_host_range_pointer_info(struct uvm_va_range *range,
				       struct uvm_ioc_pointer_info *args)
{
	args->flags = UVM_POINTER_HOST | (range->host.read_only ? UVM_POINTER_READ_ONLY : 0);
	return 0;
}

static const struct uvm_va_range_ops uvm_host_range_ops = {
	.free = uvm_host_range_free,
	.service_fault = uvm_host_range_map,
	.pointer_info = uvm_host_range_pointer_info,
};
