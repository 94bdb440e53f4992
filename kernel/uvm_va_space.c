// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The VA space: one per open of /dev/uvm.
 *
 * DOC: VA spaces
 *
 * Opening /dev/uvm creates a VA space bound to the opener's mm.  It holds the
 * managed ranges created by mmap() of the file, the 2 MiB VA blocks that
 * carry their residency state, one GPU VA space per GPU (a GPU page-table
 * root, named in fault entries by its instance id), and the counters.
 *
 * Ioctls and mmaps are accepted only from the opener's mm: a descriptor
 * inherited by a fork() child or passed over a socket is refused with -EPERM
 * and changes nothing.
 *
 * Lifetime: the open file holds one reference; GPU fault servicing holds
 * another while it works on faults of the VA space, found by instance id
 * under RCU.  Every VMA of a managed range holds a reference on the file, so
 * when the file is released all ranges are gone already.  Release unpublishes
 * the instance ids, so no new fault can find the VA space; the last
 * reference frees the pageable-memory state (uvm_hmm.c: device pages go
 * back to RAM, notifiers are removed), the GPU page tables and the memory
 * (after an RCU grace period: fault servicing reads gpu_va_spaces[] under
 * RCU).
 *
 * Every VA space is on uvm_va_space_list from open to release, with its
 * owner's identity (pid, effective uid, command name), for the netlink
 * family's listings (uvm_nl_query.c); creation and release are events.
 *
 * Locking: uvm_va_space.lock, see uvm_lock.h.  The GPU VA space array is
 * written only at creation.  uvm_va_space_list_lock (mutex) protects the
 * list's links; it is taken with no other lock of the driver held, and
 * only references (kref) are taken under it.
 */
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "uvm_copy.h"
#include "uvm_events.h"
#include "uvm_fault.h"
#include "uvm_gpu.h"
#include "uvm_mem.h"
#include "uvm_test.h"
#include "uvm_va_block.h"
#include "uvm_va_block_pte.h"
#include "uvm_va_policy.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

/*
 * Instance ids are allocated cyclically so that stale fault entries of a
 * destroyed VA space are not mistaken for a new one's, from the whole
 * 32-bit space: every open takes one per GPU, and /dev/uvm is open to
 * everyone, so a space one user's descriptors could fill would lock every
 * other user out.  Four billion opens at once cannot be held (each costs
 * kernel memory charged to its opener, and descriptors).
 */
#define UVM_INSTANCE_LIMIT	XA_LIMIT(1, U32_MAX)

LIST_HEAD(uvm_va_space_list);
DEFINE_MUTEX(uvm_va_space_list_lock);	/* uvm_va_space_list links */
static atomic64_t uvm_va_space_next_id = ATOMIC64_INIT(0);

static void uvm_va_space_free_blocks(struct uvm_va_space *va_space)
{
	struct uvm_va_block *block;
	unsigned long index;

	xa_for_each(&va_space->blocks, index, block) {
		xa_erase(&va_space->blocks, index);
		uvm_va_block_destroy(block);
	}
	xa_destroy(&va_space->blocks);
}

/**
 * uvm_va_space_release_gpus() - destroy the GPU VA spaces' page tables
 * @va_space:	the VA space
 * @count:	how many of the GPUs (in index order) got a GPU VA space
 */
static void uvm_va_space_release_gpus(struct uvm_va_space *va_space, u32 count)
{
	u32 i;

	for (i = 0; i < count; i++)
		uvm_gpus[i]->ops->vaspace_destroy(uvm_gpus[i],
						  &va_space->gpu_va_spaces[i]);
}

/**
 * uvm_va_space_unpublish() - make fault servicing stop finding a VA space
 * @va_space:	the VA space
 * @count:	how many of the GPUs (in index order) have its instance id,
 *		published or only reserved
 */
static void uvm_va_space_unpublish(struct uvm_va_space *va_space, u32 count)
{
	u32 i;

	for (i = 0; i < count; i++)
		xa_erase(&uvm_gpus[i]->instances,
			 va_space->gpu_va_spaces[i].instance);
}

/**
 * uvm_va_space_create() - create the VA space of a new open
 * @inode:	the device inode, host of the VA space's address_space
 *
 * Context: process context (open()), binds to current->mm.
 * Return: the VA space or ERR_PTR(-errno).
 */
struct uvm_va_space *uvm_va_space_create(struct inode *inode)
{
	struct uvm_va_space *va_space;
	u32 i;
	int ret;

	if (!current->mm)
		return ERR_PTR(-EPERM);

	va_space = kzalloc(sizeof(*va_space), GFP_KERNEL_ACCOUNT);
	if (!va_space)
		return ERR_PTR(-ENOMEM);

	if (uvm_queue_init(&va_space->queue)) {
		kfree(va_space);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&va_space->kref);
	init_rwsem(&va_space->lock);
	va_space->ranges = RB_ROOT_CACHED;
	va_space->policies = RB_ROOT_CACHED;
	uvm_page_pool_init(&va_space->page_pool);
	xa_init(&va_space->blocks);
	xa_init_flags(&va_space->mem_handles, XA_FLAGS_ALLOC1);
	uvm_hmm_va_space_init(va_space);
	address_space_init_once(&va_space->mapping);
	va_space->mapping.host = inode;
	va_space->mapping.a_ops = &empty_aops;

	/*
	 * Reserve the instance ids first (the backend names its page tables
	 * by them; a reserved id reads as NULL to fault servicing), and
	 * publish the GPU VA spaces only once all are complete: a VA space
	 * that fails here was never seen by anyone and is freed at once.
	 */
	for (i = 0; i < uvm_gpu_count; i++) {
		struct uvm_gpu_va_space *gvs = &va_space->gpu_va_spaces[i];
		struct uvm_gpu *gpu = uvm_gpus[i];

		gvs->gpu = gpu;
		gvs->va_space = va_space;
		ret = xa_alloc_cyclic(&gpu->instances, &gvs->instance, NULL,
				      UVM_INSTANCE_LIMIT, &gpu->instance_next,
				      GFP_KERNEL);
		if (ret < 0)
			goto err_unreserve;
		ret = gpu->ops->vaspace_create(gpu, gvs);
		if (ret) {
			xa_erase(&gpu->instances, gvs->instance);
			goto err_unreserve;
		}
	}
	/* replaces a reserved entry: no allocation, cannot fail */
	for (i = 0; i < uvm_gpu_count; i++)
		xa_store(&uvm_gpus[i]->instances, va_space->gpu_va_spaces[i].instance,
			 &va_space->gpu_va_spaces[i], GFP_KERNEL);

	mmgrab(current->mm);
	va_space->mm = current->mm;
	va_space->memcg = get_mem_cgroup_from_mm(current->mm);
	va_space->id = atomic64_inc_return(&uvm_va_space_next_id);
	va_space->tgid = task_tgid_nr(current);
	va_space->pid = get_task_pid(current, PIDTYPE_TGID);
	va_space->uid = current_euid();
	get_task_comm(va_space->comm, current);
	mutex_lock(&uvm_va_space_list_lock);
	list_add_tail(&va_space->node, &uvm_va_space_list);
	mutex_unlock(&uvm_va_space_list_lock);
	uvm_event_va_space(va_space, true);
	return va_space;

err_unreserve:
	uvm_va_space_unpublish(va_space, i);
	uvm_va_space_release_gpus(va_space, i);
	uvm_page_pool_destroy(&va_space->page_pool);
	kfree(va_space->queue.times);
	kfree(va_space);
	return ERR_PTR(ret);
}

static void uvm_va_space_free(struct kref *kref)
{
	struct uvm_va_space *va_space = container_of(kref, struct uvm_va_space, kref);

	uvm_fault_va_space_free(va_space);
	uvm_va_space_free_blocks(va_space);
	uvm_page_pool_destroy(&va_space->page_pool);
	uvm_hmm_va_space_destroy(va_space);
	uvm_va_policy_destroy(va_space);
	uvm_va_space_release_gpus(va_space, uvm_gpu_count);
	mmdrop(va_space->mm);
	mem_cgroup_put(va_space->memcg);
	put_pid(va_space->pid);
	kfree_rcu(va_space, rcu);
}

/**
 * uvm_va_space_put() - drop a reference
 * @va_space:	the VA space
 *
 * Context: process context; the last put frees GPU page tables and may sleep.
 */
void uvm_va_space_put(struct uvm_va_space *va_space)
{
	kref_put(&va_space->kref, uvm_va_space_free);
}

/**
 * uvm_va_space_destroy() - the file is being released
 * @va_space:	the VA space
 *
 * Unpublishes the instance ids so that fault servicing no longer finds the
 * VA space, removes whatever managed state is left, and drops the file's
 * reference.
 *
 * Context: process context (release()).
 */
void uvm_va_space_destroy(struct uvm_va_space *va_space)
{
	mutex_lock(&uvm_va_space_list_lock);
	list_del(&va_space->node);
	mutex_unlock(&uvm_va_space_list_lock);
	uvm_va_space_unpublish(va_space, uvm_gpu_count);
	uvm_queue_drain(&va_space->queue);
	uvm_fault_va_space_release(va_space);
	uvm_copy_va_space_destroy(va_space);

	/*
	 * No VMA is left (each held a file reference): what remains is
	 * registered host memory never unregistered, and VMM handles.
	 */
	uvm_va_range_destroy_all(va_space);
	uvm_mem_handles_destroy(va_space);

	uvm_event_va_space(va_space, false);
	uvm_va_space_put(va_space);
}

/**
 * uvm_va_space_pte_sizes() - which GPUs map a page with a big PTE
 * @block:	the block; its lock held
 * @page:	page index
 * @out:	out: @out->mapped_64k and @out->mapped_2m
 */
static void uvm_va_space_pte_sizes(struct uvm_va_block *block, u32 page,
				   struct uvm_test_page_state_sizes *out)
{
	u32 i, size;

	for (i = 0; i < uvm_gpu_count; i++) {
		size = uvm_va_block_gpu_pte_size(block, i, page);
		if (size == SZ_64K)
			out->mapped_64k |= UVM_PROCESSOR_MASK(UVM_PROCESSOR_GPU(i));
		else if (size == SZ_2M)
			out->mapped_2m |= UVM_PROCESSOR_MASK(UVM_PROCESSOR_GPU(i));
	}
}

/**
 * uvm_va_space_residency() - the residency and mappings of managed pages
 * @va_space:	the VA space
 * @start:	first page address
 * @npages:	pages; @start + @npages pages does not wrap
 * @states:	out, @npages entries, zeroed by the caller; pages outside
 *		every VA block stay zero
 * @sizes:	out, NULL or @npages entries, zeroed by the caller: the GPUs
 *		mapping each page with a 64 KiB and a 2 MiB PTE
 *
 * What UVM_TEST_IOC_RESIDENCY and the netlink GET_RESIDENCY report.
 *
 * Context: process, no lock held; takes the VA space lock for read and
 * each block's lock in turn.
 * Return: 0 or -EINTR.
 */
int uvm_va_space_residency(struct uvm_va_space *va_space, u64 start, u64 npages,
			   struct uvm_test_page_state *states,
			   struct uvm_test_page_state_sizes *sizes)
{
	u64 addr = start, end = start + (npages << PAGE_SHIFT);
	struct uvm_va_block *block;
	u32 page;

	if (down_read_killable(&va_space->lock))
		return -EINTR;
	while (addr < end) {
		/* The next block boundary, or end when that would wrap. */
		u64 block_end = (addr | (UVM_VA_BLOCK_SIZE - 1)) + 1;

		if (!block_end || block_end > end)
			block_end = end;
		block = uvm_va_block_lookup(va_space, addr);
		if (block) {
			mutex_lock(&block->lock);
			for (; addr < block_end; addr += PAGE_SIZE) {
				u64 i = (addr - start) >> PAGE_SHIFT;

				page = uvm_va_block_page_index(block, addr);
				uvm_va_block_page_state(block, page, &states[i]);
				if (sizes)
					uvm_va_space_pte_sizes(block, page, &sizes[i]);
			}
			mutex_unlock(&block->lock);
		}
		addr = block_end;
	}
	up_read(&va_space->lock);
	return 0;
}
