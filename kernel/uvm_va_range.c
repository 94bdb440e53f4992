// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Allocations of a VA space, and managed ranges: mmap() of /dev/uvm.
 *
 * DOC: Allocations
 *
 * A VA space keeps its allocations in one interval tree (struct
 * uvm_va_range), of three kinds: managed ranges (below), device memory
 * (uvm_device_range.c) and registered host memory (uvm_host_range.c).  They
 * never share a byte.  GPU faults find the allocation of an address here;
 * managed ranges are served through VA blocks, the others map their fixed
 * memory (uvm_va_range_service_fault()).
 *
 * DOC: Managed ranges
 *
 * mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) of /dev/uvm
 * creates a managed range.  Its VMA is VM_PFNMAP: the CPU maps the pages the
 * driver owns, one PTE at a time, from the fault handler; the driver revokes
 * those PTEs by virtual address through the VA space's own address_space
 * (the VMA's file offset is set equal to its address).
 *
 * Decisions, each tested:
 *
 * - the mapping must be MAP_SHARED (a private copy-on-write view of memory
 *   that lives on GPUs has no meaning), not executable, at offset 0;
 * - fork(): the child does not inherit managed ranges (VM_DONTCOPY, and
 *   VM_IO so that madvise(MADV_DOFORK) cannot undo it); the addresses are
 *   unmapped in the child, and the child's ioctls on the inherited
 *   descriptor fail with -EPERM;
 * - mremap(): refused (-EINVAL) for moves, growing is impossible
 *   (VM_DONTEXPAND), shrinking is a partial munmap;
 * - munmap() of all or part of a range: the kernel zaps the CPU PTEs, then
 *   ->close() frees the pages of that part on every processor (GPU PTEs are
 *   revoked first) and shrinks or splits the range.  GPU accesses to the
 *   unmapped part afterwards are fatal faults;
 * - mprotect() changes CPU permissions only; GPUs keep read-write access.
 *
 * Locking: the range tree is protected by uvm_va_space.lock; mmap and
 * ->close() run with mmap_lock held for write and take it for write; the
 * fault handlers run with mmap_lock held for read and take it for read, then
 * the block lock.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "uvm_compat.h"
#include "uvm_gpu.h"
#include "uvm_perf_thrash.h"
#include "uvm_va_block.h"
#include "uvm_va_block_service.h"
#include "uvm_va_policy.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

/* Buffer ids: unique while the module is loaded, never reused. */
static atomic64_t uvm_va_range_next_id = ATOMIC64_INIT(0);

static inline struct uvm_va_range *to_uvm_va_range(struct interval_tree_node *node)
{
	return container_of(node, struct uvm_va_range, node);
}

/**
 * uvm_va_range_find() - the allocation containing an address
 * @va_space:	the VA space; its lock held
 * @addr:	the address
 *
 * Return: the range or NULL.
 */
struct uvm_va_range *uvm_va_range_find(struct uvm_va_space *va_space, u64 addr)
{
	struct interval_tree_node *node;

	lockdep_assert_held(&va_space->lock);

	node = interval_tree_iter_first(&va_space->ranges, addr, addr);
	return node ? to_uvm_va_range(node) : NULL;
}

/**
 * uvm_va_range_new_buffer_id() - a buffer id never handed out before
 *
 * Return: the id (POINTER_INFO's buffer_id).
 */
u64 uvm_va_range_new_buffer_id(void)
{
	return atomic64_inc_return(&uvm_va_range_next_id);
}

/**
 * uvm_va_range_last_buffer_id() - the buffer id handed out last
 *
 * Return: the id.  A VMM mapping gets its buffer id as it is inserted,
 * under the VA space lock held for write: read under the lock held for
 * read, this tells the mappings that exist now from those made later.
 */
u64 uvm_va_range_last_buffer_id(void)
{
	return atomic64_read(&uvm_va_range_next_id);
}

/**
 * uvm_va_range_alloc() - a new allocation, not yet in any tree
 * @kind:	enum uvm_va_range_kind
 * @ops:	the kind's operations; NULL for managed memory
 * @start:	first byte
 * @end:	last byte + 1
 * @gfp:	allocation flags
 *
 * Return: the range with a fresh buffer id, or NULL.
 */
struct uvm_va_range *uvm_va_range_alloc(enum uvm_va_range_kind kind,
					const struct uvm_va_range_ops *ops,
					u64 start, u64 end, gfp_t gfp)
{
	struct uvm_va_range *range = kzalloc(sizeof(*range), gfp);

	if (!range)
		return NULL;
	range->kind = kind;
	range->ops = ops;
	range->node.start = start;
	range->node.last = end - 1;
	range->buffer_id = uvm_va_range_new_buffer_id();
	return range;
}

/**
 * __uvm_va_range_insert() - add an allocation to its VA space
 * @va_space:	the VA space; its lock held for write
 * @range:	the range; no byte of it is in the tree
 */
void __uvm_va_range_insert(struct uvm_va_space *va_space,
			   struct uvm_va_range *range)
{
	lockdep_assert_held_write(&va_space->lock);
	interval_tree_insert(&range->node, &va_space->ranges);
}

/**
 * __uvm_va_range_destroy() - remove an allocation and free what it holds
 * @va_space:	the VA space; its lock held for write
 * @range:	the range, in the tree
 *
 * A managed range's pages must be gone already (uvm_va_range_unmap()).
 */
void __uvm_va_range_destroy(struct uvm_va_space *va_space,
			    struct uvm_va_range *range)
{
	lockdep_assert_held_write(&va_space->lock);

	interval_tree_remove(&range->node, &va_space->ranges);
	if (range->ops)
		range->ops->free(va_space, range);
	kfree(range);
}

/**
 * uvm_va_range_destroy_all() - free every allocation left (release)
 * @va_space:	the VA space, no longer reachable
 *
 * Managed and device ranges are gone with their VMAs by now; registered
 * host memory stays until unregistered or released here.
 */
void uvm_va_range_destroy_all(struct uvm_va_space *va_space)
{
	struct interval_tree_node *node;

	down_write(&va_space->lock);
	while ((node = interval_tree_iter_first(&va_space->ranges, 0, ULONG_MAX)))
		__uvm_va_range_destroy(va_space, to_uvm_va_range(node));
	up_write(&va_space->lock);
}

/**
 * __uvm_va_range_remove() - cut [start, end) out of the managed ranges
 * @va_space:	the VA space; its lock held for write
 * @start:	first byte
 * @end:	last byte + 1
 *
 * Ranges partly inside are shrunk; a range containing the hole is split
 * (the pieces keep the buffer id).  Cannot fail: ->close() has no way to
 * report an error.
 */
static void __uvm_va_range_remove(struct uvm_va_space *va_space, u64 start,
				  u64 end)
{
	struct interval_tree_node *node;
	struct uvm_va_range *range, *piece;

	lockdep_assert_held_write(&va_space->lock);

	while ((node = interval_tree_iter_first(&va_space->ranges, start, end - 1))) {
		range = to_uvm_va_range(node);
		interval_tree_remove(node, &va_space->ranges);
		if (WARN_ON(range->kind != UVM_RANGE_MANAGED)) {
			kfree(range);
			continue;
		}
		if (uvm_va_range_end(range) > end) {
			piece = uvm_va_range_alloc(UVM_RANGE_MANAGED, NULL, end,
						   uvm_va_range_end(range),
						   GFP_KERNEL | __GFP_NOFAIL);
			piece->buffer_id = range->buffer_id;
			__uvm_va_range_insert(va_space, piece);
		}
		if (uvm_va_range_start(range) < start) {
			range->node.last = start - 1;
			__uvm_va_range_insert(va_space, range);
		} else {
			kfree(range);
		}
	}
}

/**
 * uvm_va_range_unmap() - [start, end) is no longer managed memory
 * @va_space:	the VA space
 * @start:	first byte, page aligned
 * @end:	last byte + 1, page aligned
 *
 * Frees the pages of the range on every processor (revoking GPU mappings
 * first), frees the blocks left empty, and removes the range.
 *
 * Context: process context; takes the VA space lock for write.
 */
void uvm_va_range_unmap(struct uvm_va_space *va_space, u64 start, u64 end)
{
	unsigned long index;
	struct uvm_va_block *block;
	bool empty;

	down_write(&va_space->lock);
	xa_for_each_range(&va_space->blocks, index, block,
			  start >> UVM_VA_BLOCK_SHIFT,
			  (end - 1) >> UVM_VA_BLOCK_SHIFT) {
		mutex_lock(&block->lock);
		uvm_va_block_unmap_pages(block, start, end);
		empty = uvm_va_block_is_empty(block);
		mutex_unlock(&block->lock);
		if (empty) {
			xa_erase(&va_space->blocks, index);
			uvm_va_block_destroy(block);
		}
	}
	__uvm_va_range_remove(va_space, start, end);
	uvm_va_policy_clear(va_space, start, end);
	up_write(&va_space->lock);
}

/**
 * uvm_va_range_check() - validate a user range of managed or pageable memory
 * @va_space:	the VA space; its lock held
 * @address:	start as given; rounded down to a page
 * @length:	bytes as given; the end is rounded up to a page
 * @start:	out: first byte, page aligned
 * @end:	out: last byte + 1, page aligned
 * @pageable:	NULL when only managed memory is acceptable; else out: the
 *		range is pageable memory.  The caller then also holds the
 *		mm's mmap_lock (taken before the VA space lock)
 *
 * Return: 0, or -EINVAL for an empty or wrapping range, or one that is
 * neither entirely inside a single managed range nor valid pageable memory
 * (no allocation of the VA space overlapping it; whether host-accessible
 * VMAs cover it is uvm_hmm_check_user_range()'s part).  Device and
 * registered host memory take no advice and do not migrate.
 */
int uvm_va_range_check(struct uvm_va_space *va_space, u64 address, u64 length,
		       u64 *start, u64 *end, bool *pageable)
{
	struct uvm_va_range *range;

	if (!length || address + length < address ||
	    address + length > U64_MAX - PAGE_SIZE)
		return -EINVAL;
	*start = round_down(address, PAGE_SIZE);
	*end = round_up(address + length, PAGE_SIZE);
	range = uvm_va_range_find(va_space, *start);
	if (range && range->kind == UVM_RANGE_MANAGED &&
	    range->node.last >= *end - 1) {
		if (pageable)
			*pageable = false;
		return 0;
	}
	if (!pageable || range ||
	    interval_tree_iter_first(&va_space->ranges, *start, *end - 1))
		return -EINVAL;
	*pageable = true;
	return 0;
}

/**
 * uvm_ioc_pointer_info() - UVM_IOC_POINTER_INFO
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_pointer_info
 *
 * Return: 0 or -ENOENT when the address is in no allocation; -EINVAL for
 * non-zero pad or reserved fields.
 */
int uvm_ioc_pointer_info(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_pointer_info *args = data;
	struct uvm_va_range *range;
	int ret = -ENOENT;

	if (args->gpu_index || memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;

	down_read(&va_space->lock);
	range = uvm_va_range_find(va_space, args->address);
	if (range) {
		args->start = uvm_va_range_start(range);
		args->size = uvm_va_range_end(range) - args->start;
		args->buffer_id = range->buffer_id;
		args->flags = UVM_POINTER_MANAGED;
		ret = range->ops ? range->ops->pointer_info(range, args) : 0;
	}
	up_read(&va_space->lock);
	return ret;
}

/* VMA operations */

static void uvm_vma_close(struct vm_area_struct *vma)
{
	struct uvm_va_space *va_space = vma->vm_private_data;

	/* Only the VA space's own mm has our VMAs (VM_IO keeps madvise off). */
	if (WARN_ON_ONCE(vma->vm_mm != va_space->mm))
		return;
	/*
	 * A refused mremap() closes the copy of the VMA it made at the new
	 * address.  No managed memory is there (a copy keeps the old file
	 * offset, ours equal their addresses), but other allocations of the
	 * VA space may be: registered host memory whose VMA the move
	 * unmapped stays registered until unregistered or released.
	 */
	if (vma->vm_pgoff != vma->vm_start >> PAGE_SHIFT)
		return;
	uvm_va_range_unmap(va_space, vma->vm_start, vma->vm_end);
}

static int uvm_vma_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

/**
 * uvm_vma_lock_block() - lock the block of a CPU fault
 * @vmf:	the fault
 * @blockp:	out: the block, locked
 *
 * Takes the VA space lock for read (released by uvm_vma_unlock_block()).
 * The waits are killable: a dying task gets SIGBUS, which it never sees.
 *
 * Return: 0 or a VM_FAULT_* code.
 */
static vm_fault_t uvm_vma_lock_block(struct vm_fault *vmf,
				     struct uvm_va_block **blockp)
{
	struct uvm_va_space *va_space = vmf->vma->vm_private_data;
	struct uvm_va_block *block;

	if (vmf->vma->vm_mm != va_space->mm)
		return VM_FAULT_SIGBUS;
	if (down_read_killable(&va_space->lock))
		return VM_FAULT_SIGBUS;
	block = uvm_va_block_get_or_create(va_space, vmf->address);
	if (IS_ERR(block)) {
		up_read(&va_space->lock);
		return VM_FAULT_OOM;
	}
	if (mutex_lock_killable(&block->lock)) {
		up_read(&va_space->lock);
		return VM_FAULT_SIGBUS;
	}
	*blockp = block;
	return 0;
}

static void uvm_vma_unlock_block(struct vm_fault *vmf, struct uvm_va_block *block)
{
	struct uvm_va_space *va_space = vmf->vma->vm_private_data;

	mutex_unlock(&block->lock);
	up_read(&va_space->lock);
}

static vm_fault_t uvm_vma_fault(struct vm_fault *vmf)
{
	struct uvm_va_space *va_space = vmf->vma->vm_private_data;
	struct uvm_va_block_ctx *ctx;
	struct uvm_va_block *block;
	bool nap = false;
	vm_fault_t ret;

	ctx = uvm_va_block_ctx_alloc();
	if (!ctx)
		return VM_FAULT_OOM;

	ret = uvm_vma_lock_block(vmf, &block);
	if (!ret) {
		ret = uvm_va_block_service_cpu_fault(block, ctx, vmf->vma,
						     vmf->address,
						     vmf->flags & FAULT_FLAG_WRITE,
						     &nap);
		uvm_vma_unlock_block(vmf, block);
	}
	uvm_va_block_ctx_free(ctx);
	if (ret == VM_FAULT_NOPAGE)
		uvm_va_space_count(va_space, UVM_COUNTER_CPU_FAULTS, 1);
	/* Throttled (uvm_perf_thrash.c): mmap_lock is still held for read. */
	if (nap)
		uvm_thrash_nap();
	return ret;
}

static vm_fault_t uvm_vma_pfn_mkwrite(struct vm_fault *vmf)
{
	struct uvm_va_block_ctx *ctx;
	struct uvm_va_block *block;
	vm_fault_t ret;

	ctx = uvm_va_block_ctx_alloc();
	if (!ctx)
		return VM_FAULT_OOM;
	ret = uvm_vma_lock_block(vmf, &block);
	if (!ret) {
		ret = uvm_va_block_cpu_mkwrite(block, ctx, vmf->address);
		uvm_vma_unlock_block(vmf, block);
	}
	uvm_va_block_ctx_free(ctx);
	return ret;
}

static const struct vm_operations_struct uvm_vm_ops = {
	.close = uvm_vma_close,
	.mremap = uvm_vma_mremap,
	.fault = uvm_vma_fault,
	.pfn_mkwrite = uvm_vma_pfn_mkwrite,
};

/**
 * uvm_va_range_service_fault() - a GPU fault on device or host memory
 * @va_space:	the VA space; its lock held for read
 * @range:	the allocation, not managed
 * @gpu:	the faulting GPU
 * @va:		faulting address
 * @access:	access type
 *
 * Context: GPU fault servicing.
 * Return: 0, or -errno: the fault is fatal.
 */
int uvm_va_range_service_fault(struct uvm_va_space *va_space,
			       struct uvm_va_range *range, struct uvm_gpu *gpu,
			       u64 va, enum uvm_fault_access access)
{
	if (!range->ops)
		return -EINVAL;
	return range->ops->service_fault(va_space, range, gpu, va, access);
}

/**
 * uvm_va_range_mmap_clear() - make room for a new VMA of /dev/uvm
 * @va_space:	the VA space of the file; its lock held for write
 * @vma:	the new VMA
 *
 * Registered host memory that a stale registration left at these
 * addresses is unregistered (the process unmapped it without
 * unregistering); nothing else can be there.
 *
 * Return: 0, or -EEXIST when another allocation is in the way.
 */
int uvm_va_range_mmap_clear(struct uvm_va_space *va_space, struct vm_area_struct *vma)
{
	struct interval_tree_node *node;

	lockdep_assert_held_write(&va_space->lock);
	while ((node = interval_tree_iter_first(&va_space->ranges, vma->vm_start,
						vma->vm_end - 1))) {
		if (WARN_ON(to_uvm_va_range(node)->kind != UVM_RANGE_HOST))
			return -EEXIST;
		__uvm_va_range_destroy(va_space, to_uvm_va_range(node));
	}
	return 0;
}

/**
 * uvm_va_range_mmap_managed() - create the managed range of a new VMA
 * @va_space:	the VA space of the file; its lock held for write
 * @vma:	the new VMA, at file offset UVM_MMAP_MANAGED; the addresses
 *		are free (uvm_va_range_mmap_clear())
 *
 * Return: 0 or -ENOMEM.
 */
int uvm_va_range_mmap_managed(struct uvm_va_space *va_space, struct vm_area_struct *vma)
{
	struct uvm_va_range *range;

	lockdep_assert_held_write(&va_space->lock);
	range = uvm_va_range_alloc(UVM_RANGE_MANAGED, NULL, vma->vm_start, vma->vm_end,
				   GFP_KERNEL_ACCOUNT);
	if (!range)
		return -ENOMEM;
	/* File offsets equal addresses: unmap_mapping_range() works by VA. */
	vma->vm_pgoff = vma->vm_start >> PAGE_SHIFT;
	uvm_vm_flags_set(vma, UVM_VMA_FLAGS);
	uvm_vm_flags_clear(vma, VM_MAYEXEC);
	vma->vm_private_data = va_space;
	vma->vm_ops = &uvm_vm_ops;
	__uvm_va_range_insert(va_space, range);
	return 0;
}
