// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What a fault, a prefetch, a discard or a piece of advice does to a block.
 *
 * DOC: Residency policy
 *
 * For an access by processor A to pages with policy P (uvm_va_policy.c):
 *
 * - a read of a read-mostly page gives A a read-only copy of its own; the
 *   other copies stay (read duplication);
 * - otherwise the page collapses to a single copy.  If P has a preferred
 *   location L and A can map memory at L (a GPU maps system memory and peer
 *   vidmem; the CPU maps only its own memory), the copy goes to L and A maps
 *   it remotely: another processor with access gets a mapping instead of
 *   migrating the data.  Otherwise the copy goes to A.  A CPU write to a
 *   page whose preferred location is a host NUMA node puts the copy on that
 *   node;
 * - after every change of residency, the GPUs in P's accessed-by set are
 *   mapped to the pages wherever they now are.  The CPU cannot map GPU
 *   memory: its accessed-by only matters while data is in system memory,
 *   where its next access maps it.
 *
 * A prefetch to D gives D a read-only copy of read-mostly pages (moving an
 * existing CPU copy to D's NUMA node if D is one) and moves the others to D,
 * populating untouched pages there; it maps D (a GPU) and the accessed-by
 * GPUs.  D is recorded as the pages' last prefetch location when an
 * asynchronous request is accepted, or as a synchronous one reaches each
 * block (uvm_migrate.c).  A discard drops
 * every copy: the next access populates zeros.
 *
 * Locking: every function here runs with the block lock held and the VA
 * space lock held (read or write), which also protects the policy tree.
 */
#include <linux/mm.h>

#include "uvm_events.h"
#include "uvm_gpu.h"
#include "uvm_perf_prefetch.h"
#include "uvm_perf_thrash.h"
#include "uvm_va_block.h"
#include "uvm_va_block_service.h"
#include "uvm_va_policy.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

/**
 * struct uvm_residency - where an access must be served from
 * @proc:	processor that gets (or keeps) the copy
 * @nid:	NUMA node for a CPU copy, or NUMA_NO_NODE
 * @dup:	a read-only copy is enough; other copies stay
 */
struct uvm_residency {
	u32 proc;
	int nid;
	bool dup;
};

/**
 * block_choose() - apply the residency policy to one access
 * @policy:	policy of the pages
 * @accessor:	processor id of the access
 * @write:	write or atomic access
 *
 * Return: the decision.
 */
static struct uvm_residency block_choose(const struct uvm_va_policy *policy,
					 u32 accessor, bool write)
{
	struct uvm_residency r = { .proc = accessor, .nid = NUMA_NO_NODE };
	u32 pref;

	if (policy->read_mostly && !write) {
		r.dup = true;
		if (accessor == UVM_PROCESSOR_CPU)
			r.nid = uvm_location_nid(&policy->preferred);
		return r;
	}
	if (!uvm_va_policy_has_preferred(policy))
		return r;
	pref = uvm_location_processor(&policy->preferred);
	if (pref == accessor || accessor != UVM_PROCESSOR_CPU) {
		r.proc = pref;
		r.nid = uvm_location_nid(&policy->preferred);
	}
	return r;
}

/**
 * block_serve() - make pages available to an access
 * @block:	the block
 * @ctx:	scratch space
 * @policy:	policy of @mask
 * @accessor:	processor id
 * @mask:	pages accessed
 * @write:	write access
 *
 * Return: 0 or -errno.
 */
static int block_serve(struct uvm_va_block *block, struct uvm_va_block_ctx *ctx,
		       const struct uvm_va_policy *policy, u32 accessor,
		       const struct uvm_page_mask *mask, bool write)
{
	struct uvm_page_mask rest, pinned, moved, anywhere;
	const struct uvm_page_mask *there;
	struct uvm_residency r;
	int ret;

	if (uvm_page_mask_empty(mask))
		return 0;
	r = block_choose(policy, accessor, write);
	if (r.dup)
		return uvm_va_block_add_copies(block, ctx, r.proc, mask, r.nid);

	/* Thrashing pages stay pinned to host memory (see uvm_perf_thrash.c). */
	rest = *mask;
	if (uvm_thrash_pinned(block, uvm_va_policy_has_preferred(policy), mask, &pinned)) {
		u32 cause = uvm_va_block_ctx_set_cause(ctx, UVM_NL_CAUSE_THRASHING);

		ret = uvm_va_block_collapse(block, ctx, UVM_PROCESSOR_CPU, &pinned,
					    NUMA_NO_NODE);
		uvm_va_block_ctx_set_cause(ctx, cause);
		if (ret)
			return ret;
		uvm_va_space_count(block->va_space, UVM_COUNTER_THRASHING_PINNED,
				   uvm_page_mask_weight(&pinned));
		uvm_event_thrashing(block->va_space, block->start, UVM_NL_THRASHING_PINNED,
				    uvm_page_mask_weight(&pinned));
		uvm_page_mask_andnot(&rest, &rest, &pinned);
	}

	/* Pages that move (not populated) feed thrashing detection. */
	uvm_va_block_resident_anywhere(block, &anywhere);
	uvm_page_mask_and(&moved, &rest, &anywhere);
	there = uvm_va_block_resident(block, r.proc);
	if (there)
		uvm_page_mask_andnot(&moved, &moved, there);
	ret = uvm_va_block_collapse(block, ctx, r.proc, &rest, r.nid);
	if (!ret)
		uvm_thrash_note(block, &moved);
	return ret;
}

/**
 * block_prefetch_pages() - pages the prefetcher brings along with faults
 * @block:	the block; its lock held (and the VA space lock)
 * @policy:	policy of the run
 * @accessor:	faulting processor
 * @run:	pages of the run
 * @faulted:	faulted pages of the run
 * @pf:		out: pages to prefetch
 *
 * Read-mostly runs are not prefetched (their copies are per reader); the
 * region of a fault stays inside its allocation.
 */
static void block_prefetch_pages(struct uvm_va_block *block,
				 const struct uvm_va_policy *policy, u32 accessor,
				 const struct uvm_page_mask *run,
				 const struct uvm_page_mask *faulted,
				 struct uvm_page_mask *pf)
{
	const struct uvm_page_mask *resident = uvm_va_block_resident(block, accessor);
	struct uvm_va_space *va_space = block->va_space;
	struct uvm_page_mask allowed, f, one, none;
	struct interval_tree_node *node;

	uvm_page_mask_zero(pf);
	if (!uvm_prefetch_enabled() || policy->read_mostly || uvm_page_mask_empty(faulted))
		return;
	if (!resident) {
		uvm_page_mask_zero(&none);
		resident = &none;
	}
	/* Per allocation: the prefetcher never crosses into another one. */
	for (node = interval_tree_iter_first(&va_space->ranges, block->start,
					     uvm_va_block_end(block) - 1);
	     node; node = interval_tree_iter_next(node, block->start,
						  uvm_va_block_end(block) - 1)) {
		struct uvm_va_range *range = container_of(node, struct uvm_va_range, node);

		if (range->kind != UVM_RANGE_MANAGED)
			continue;
		uvm_va_block_range_mask(block, uvm_va_range_start(range),
					uvm_va_range_end(range), &allowed);
		uvm_page_mask_and(&allowed, &allowed, run);
		if (!uvm_page_mask_and(&f, faulted, &allowed))
			continue;
		uvm_prefetch_region(resident, &f, &allowed, &one);
		uvm_page_mask_or(pf, pf, &one);
	}
	/* Pages that thrash are never prefetched. */
	if (uvm_thrash_hot(block, pf, &one))
		uvm_page_mask_andnot(pf, pf, &one);
}

/**
 * block_touch() - a GPU used its chunk of the block: evict it last
 * @block:	the block; its lock held
 * @gpu:	the GPU
 */
static void block_touch(struct uvm_va_block *block, struct uvm_gpu *gpu)
{
	struct uvm_va_block_gpu *gs = block->gpus[gpu->index];

	if (gs && gs->has_chunk)
		uvm_pmm_touch(gpu, &gs->chunk);
}

/**
 * uvm_va_block_service_gpu_faults() - service one batch's faults in a block
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @gpu:	the faulting GPU
 * @req:	the faulted pages and their access types; all inside managed
 *		ranges
 *
 * Serves each policy run of the block (see "Residency policy"), maps the
 * pages on @gpu with the permission the faults need, and the accessed-by
 * GPUs.  Faults already satisfied by an earlier batch cost no copy.
 *
 * Context: GPU fault servicing, VA space lock held for read.
 * Return: 0 or -errno (the caller cancels the faults as fatal).
 */
int uvm_va_block_service_gpu_faults(struct uvm_va_block *block,
				    struct uvm_va_block_ctx *ctx,
				    struct uvm_gpu *gpu,
				    const struct uvm_fault_block_req *req)
{
	u32 accessor = uvm_gpu_processor(gpu);
	struct uvm_page_mask run, m, w, r, pf, held;
	struct uvm_va_policy_iter iter;
	int ret;

	lockdep_assert_held(&block->lock);

	for (uvm_va_policy_iter_first(block->va_space, block->start,
				      uvm_va_block_end(block), &iter);
	     iter.start < iter.limit; uvm_va_policy_iter_next(&iter)) {
		uvm_va_block_range_mask(block, iter.start, iter.end, &run);
		if (!uvm_page_mask_and(&m, &req->pages, &run))
			continue;
		/* Throttled pages wait: their accesses fault again after the replay. */
		if (uvm_thrash_throttle_gpu(block, uvm_va_policy_has_preferred(iter.policy),
					    &m, &held) &&
		    !uvm_page_mask_andnot(&m, &m, &held))
			continue;
		uvm_page_mask_and(&w, &m, &req->write);
		uvm_page_mask_andnot(&r, &m, &w);
		/* Prefetched pages are served and mapped like the reads. */
		block_prefetch_pages(block, iter.policy, accessor, &run, &m, &pf);
		uvm_page_mask_or(&r, &r, &pf);
		uvm_page_mask_or(&m, &m, &pf);

		ret = block_serve(block, ctx, iter.policy, accessor, &r, false);
		if (!ret)
			ret = block_serve(block, ctx, iter.policy, accessor, &w, true);
		if (!ret)
			ret = uvm_va_block_map_gpu(block, ctx, gpu, &r, UVM_PROT_NONE);
		if (!ret)
			ret = uvm_va_block_map_gpu(block, ctx, gpu, &w,
						   UVM_PROT_READ_WRITE_ATOMIC);
		if (!ret)
			ret = uvm_va_block_map_accessed_by(block, ctx, &m,
							   uvm_va_policy_mapped_by(iter.policy),
							   accessor);
		if (ret)
			return ret;
		uvm_va_space_count(block->va_space, UVM_COUNTER_PAGES_FAULT_PREFETCHED,
				   uvm_page_mask_weight(&pf));
	}
	block_touch(block, gpu);
	return 0;
}

/**
 * uvm_va_block_serve_access() - make pages available to a copy engine
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @gpu:	the GPU whose copy engine accesses the pages
 * @mask:	pages
 * @write:	the engine writes them
 *
 * The pages are served as an access by @gpu would be (see "Residency
 * policy"), without mapping them in @gpu's page table; accessed-by GPUs are
 * re-mapped.
 *
 * Return: 0 or -errno.
 */
int uvm_va_block_serve_access(struct uvm_va_block *block,
			      struct uvm_va_block_ctx *ctx, struct uvm_gpu *gpu,
			      const struct uvm_page_mask *mask, bool write)
{
	u32 accessor = uvm_gpu_processor(gpu);
	struct uvm_va_policy_iter iter;
	struct uvm_page_mask run, m;
	int ret;

	lockdep_assert_held(&block->lock);

	for (uvm_va_policy_iter_first(block->va_space, block->start,
				      uvm_va_block_end(block), &iter);
	     iter.start < iter.limit; uvm_va_policy_iter_next(&iter)) {
		uvm_va_block_range_mask(block, iter.start, iter.end, &run);
		if (!uvm_page_mask_and(&m, mask, &run))
			continue;
		ret = block_serve(block, ctx, iter.policy, accessor, &m, write);
		if (!ret)
			ret = uvm_va_block_map_accessed_by(block, ctx, &m,
							   uvm_va_policy_mapped_by(iter.policy),
							   accessor);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * block_page_policy() - the policy of one page
 * @block:	the block
 * @page:	page index
 *
 * Return: the policy (the default one when no advice covers the page).
 */
static const struct uvm_va_policy *block_page_policy(struct uvm_va_block *block,
						     u32 page)
{
	struct uvm_va_policy_iter iter;
	u64 addr = uvm_va_block_page_addr(block, page);

	uvm_va_policy_iter_first(block->va_space, addr, addr + PAGE_SIZE, &iter);
	return iter.policy;
}

static vm_fault_t uvm_errno_to_vm_fault(int err)
{
	return err == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
}

/**
 * block_cpu_map() - insert the CPU PTE of a page resident on the CPU
 * @block:	the block; its lock held
 * @vma:	the faulting VMA, which covers the page
 * @page:	page index
 * @write:	the access is a write
 *
 * Read-only while the page has other copies, else writable when the VMA is.
 *
 * Return: VM_FAULT_NOPAGE, or VM_FAULT_* of the insertion.
 */
static vm_fault_t block_cpu_map(struct uvm_va_block *block,
				struct vm_area_struct *vma, u32 page, bool write)
{
	struct uvm_page_mask dup;
	bool writable;
	vm_fault_t vmret;

	uvm_va_block_duplicated(block, &dup);
	writable = (vma->vm_flags & VM_WRITE) && !uvm_page_mask_test(&dup, page);
	vmret = vmf_insert_pfn_prot(vma, uvm_va_block_page_addr(block, page),
				    page_to_pfn(block->cpu.pages[page]),
				    writable ? vm_get_page_prot(vma->vm_flags) :
					       vma->vm_page_prot);
	if (vmret != VM_FAULT_NOPAGE)
		return vmret;
	uvm_page_mask_set(&block->cpu.mapped, page);
	if (writable)
		uvm_page_mask_set(&block->cpu.mapped_write, page);
	return VM_FAULT_NOPAGE;
}

/**
 * uvm_va_block_service_cpu_fault() - service a CPU fault on managed memory
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @vma:	the faulting VMA (one of our managed VMAs)
 * @addr:	faulting address
 * @write:	write access
 * @nap:	out: see below
 *
 * Serves the page (see "Residency policy") with the pages the prefetcher
 * adds, and inserts their PTEs: read-only while a page has other copies,
 * else writable when the VMA is.
 *
 * Context: ->fault with mmap_lock held for read, VA space lock for read.
 * Return: VM_FAULT_NOPAGE, VM_FAULT_OOM or VM_FAULT_SIGBUS; *@nap is set
 * when thrashing control throttles the faulting thread (uvm_thrash_nap()
 * once the block and VA space locks are dropped).
 */
vm_fault_t uvm_va_block_service_cpu_fault(struct uvm_va_block *block,
					  struct uvm_va_block_ctx *ctx,
					  struct vm_area_struct *vma, u64 addr,
					  bool write, bool *nap)
{
	u32 page = uvm_va_block_page_index(block, addr);
	struct uvm_page_mask mask, run, pf, all;
	struct uvm_va_policy_iter iter;
	unsigned int p;
	vm_fault_t vmret;
	int ret;

	lockdep_assert_held(&block->lock);

	/* The policy run of the page bounds what the prefetcher may add. */
	for (uvm_va_policy_iter_first(block->va_space, block->start,
				      uvm_va_block_end(block), &iter);
	     iter.end <= addr; uvm_va_policy_iter_next(&iter))
		;
	uvm_va_block_range_mask(block, max_t(u64, iter.start, vma->vm_start),
				min_t(u64, iter.end, vma->vm_end), &run);
	uvm_page_mask_zero(&mask);
	uvm_page_mask_set(&mask, page);
	block_prefetch_pages(block, iter.policy, UVM_PROCESSOR_CPU, &run, &mask, &pf);

	*nap = uvm_thrash_throttle_cpu(block, uvm_va_policy_has_preferred(iter.policy), page);
	ret = block_serve(block, ctx, iter.policy, UVM_PROCESSOR_CPU, &mask, write);
	if (!ret)
		ret = block_serve(block, ctx, iter.policy, UVM_PROCESSOR_CPU, &pf, false);
	uvm_page_mask_or(&all, &mask, &pf);
	if (!ret)
		ret = uvm_va_block_map_accessed_by(block, ctx, &all,
						   uvm_va_policy_mapped_by(iter.policy),
						   UVM_PROCESSOR_CPU);
	if (ret)
		return uvm_errno_to_vm_fault(ret);
	uvm_va_space_count(block->va_space, UVM_COUNTER_PAGES_FAULT_PREFETCHED,
			   uvm_page_mask_weight(&pf));

	/* Map the prefetched pages too: their first access costs no fault. */
	for_each_page_in_mask(p, &pf) {
		if (block_cpu_map(block, vma, p, false) != VM_FAULT_NOPAGE)
			break;
	}
	vmret = block_cpu_map(block, vma, page, write);
	return vmret;
}

/**
 * uvm_va_block_cpu_mkwrite() - a CPU write hit a read-only PTE
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @addr:	faulting address
 *
 * Collapses the page to the CPU's copy (other copies are invalidated),
 * re-establishes the accessed-by mappings.
 *
 * Return: 0 to let the kernel make the PTE writable; VM_FAULT_NOPAGE to
 * retry when the PTE is gone meanwhile (the page moved); VM_FAULT_OOM or
 * VM_FAULT_SIGBUS on failure.
 */
vm_fault_t uvm_va_block_cpu_mkwrite(struct uvm_va_block *block,
				    struct uvm_va_block_ctx *ctx, u64 addr)
{
	u32 page = uvm_va_block_page_index(block, addr);
	const struct uvm_va_policy *policy = block_page_policy(block, page);
	struct uvm_page_mask mask;
	int ret;

	lockdep_assert_held(&block->lock);

	if (!uvm_page_mask_test(&block->cpu.mapped, page))
		return VM_FAULT_NOPAGE;

	uvm_page_mask_zero(&mask);
	uvm_page_mask_set(&mask, page);
	ret = block_serve(block, ctx, policy, UVM_PROCESSOR_CPU, &mask, true);
	if (!ret)
		ret = uvm_va_block_map_accessed_by(block, ctx, &mask,
						   uvm_va_policy_mapped_by(policy),
						   UVM_PROCESSOR_CPU);
	if (ret)
		return uvm_errno_to_vm_fault(ret);
	if (!uvm_page_mask_test(&block->cpu.mapped, page))
		return VM_FAULT_NOPAGE;
	uvm_page_mask_set(&block->cpu.mapped_write, page);
	return 0;
}

/**
 * block_prefetch_done() - is a prefetch already satisfied?
 * @block:	the block; its lock held
 * @dst:	destination processor id
 * @nid:	destination NUMA node, or NUMA_NO_NODE
 * @mask:	pages
 *
 * True when every page has its only copy on @dst and, for a GPU, a local
 * read-write-atomic mapping: the prefetch would change nothing (the common
 * case of prefetching resident data, which must stay cheap).
 *
 * Return: true to skip the prefetch.
 */
static bool block_prefetch_done(struct uvm_va_block *block, u32 dst, int nid,
				const struct uvm_page_mask *mask)
{
	const struct uvm_page_mask *res = uvm_va_block_resident(block, dst);
	struct uvm_page_mask m;
	u32 proc;

	if (!res || nid != NUMA_NO_NODE || uvm_page_mask_andnot(&m, mask, res))
		return false;
	for (proc = 0; proc <= uvm_gpu_count; proc++) {
		const struct uvm_page_mask *other = uvm_va_block_resident(block, proc);

		if (proc != dst && other && uvm_page_mask_intersects(mask, other))
			return false;
	}
	if (dst != UVM_PROCESSOR_CPU) {
		struct uvm_va_block_gpu *gs = block->gpus[dst - 1];

		uvm_page_mask_andnot(&m, &gs->mapped[UVM_PROT_READ_WRITE_ATOMIC - 1],
				     &gs->remote);
		if (uvm_page_mask_andnot(&m, mask, &m))
			return false;
	}
	return true;
}

/**
 * uvm_va_block_prefetch() - make pages resident at a location
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @mask:	pages, all inside managed ranges
 * @loc:	resolved destination (GPU, HOST or HOST_NUMA)
 *
 * See "Residency policy".
 *
 * Return: 0 or -errno.
 */
int uvm_va_block_prefetch(struct uvm_va_block *block,
			  struct uvm_va_block_ctx *ctx,
			  const struct uvm_page_mask *mask,
			  const struct uvm_location *loc)
{
	u32 dst = uvm_location_processor(loc);
	int nid = uvm_location_nid(loc);
	struct uvm_page_mask run, m, before;
	struct uvm_va_policy_iter iter;
	int ret = 0;

	lockdep_assert_held(&block->lock);

	if (block_prefetch_done(block, dst, nid, mask)) {
		if (dst != UVM_PROCESSOR_CPU)
			block_touch(block, uvm_gpu_get(dst - 1));
		return 0;
	}
	if (uvm_va_block_resident(block, dst))
		before = *uvm_va_block_resident(block, dst);
	else
		uvm_page_mask_zero(&before);

	for (uvm_va_policy_iter_first(block->va_space, block->start,
				      uvm_va_block_end(block), &iter);
	     iter.start < iter.limit; uvm_va_policy_iter_next(&iter)) {
		uvm_va_block_range_mask(block, iter.start, iter.end, &run);
		if (!uvm_page_mask_and(&m, mask, &run))
			continue;
		if (iter.policy->read_mostly) {
			ret = uvm_va_block_add_copies(block, ctx, dst, &m, nid);
			if (!ret && dst == UVM_PROCESSOR_CPU && nid != NUMA_NO_NODE)
				ret = uvm_va_block_cpu_move_node(block, &m, nid);
		} else {
			ret = uvm_va_block_collapse(block, ctx, dst, &m, nid);
		}
		if (!ret && dst != UVM_PROCESSOR_CPU)
			ret = uvm_va_block_map_gpu(block, ctx, uvm_gpu_get(dst - 1),
						   &m, UVM_PROT_NONE);
		if (!ret)
			ret = uvm_va_block_map_accessed_by(block, ctx, &m,
							   uvm_va_policy_mapped_by(iter.policy),
							   dst);
		if (ret)
			break;
	}

	if (dst != UVM_PROCESSOR_CPU)
		block_touch(block, uvm_gpu_get(dst - 1));
	uvm_page_mask_andnot(&m, uvm_va_block_resident(block, dst), &before);
	uvm_page_mask_and(&m, &m, mask);
	uvm_va_space_count(block->va_space, UVM_COUNTER_PAGES_PREFETCHED,
			   uvm_page_mask_weight(&m));
	return ret;
}

/**
 * uvm_va_block_discard() - drop the contents of pages everywhere
 * @block:	the block; its lock held
 * @mask:	pages
 *
 * Every mapping is revoked and every copy freed, without copying; the next
 * access populates zeros.
 */
void uvm_va_block_discard(struct uvm_va_block *block,
			  const struct uvm_page_mask *mask)
{
	struct uvm_page_mask m;
	u32 proc;

	lockdep_assert_held(&block->lock);

	uvm_va_block_resident_anywhere(block, &m);
	if (!uvm_page_mask_and(&m, &m, mask))
		return;
	for (proc = 0; proc <= uvm_gpu_count; proc++)
		uvm_va_block_drop_copies(block, proc, &m);
	uvm_va_space_count(block->va_space, UVM_COUNTER_PAGES_DISCARDED,
			   uvm_page_mask_weight(&m));
}

/**
 * block_survivor() - the copy kept when read duplication ends
 * @block:	the block
 * @policy:	policy of the page
 * @page:	page index, duplicated
 *
 * The preferred location's copy if there is one there, else the first
 * resident processor in id order (CUDA: "arbitrary").
 *
 * Return: processor id.
 */
static u32 block_survivor(struct uvm_va_block *block,
			  const struct uvm_va_policy *policy, u32 page)
{
	const struct uvm_page_mask *res;
	u32 proc;

	if (uvm_va_policy_has_preferred(policy)) {
		proc = uvm_location_processor(&policy->preferred);
		res = uvm_va_block_resident(block, proc);
		if (res && uvm_page_mask_test(res, page))
			return proc;
	}
	for (proc = 0; proc <= uvm_gpu_count; proc++) {
		res = uvm_va_block_resident(block, proc);
		if (res && uvm_page_mask_test(res, page))
			return proc;
	}
	return UVM_PROCESSOR_CPU;
}

/**
 * uvm_va_block_unset_read_mostly() - collapse duplicated pages
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @mask:	pages whose read-mostly advice was just removed
 *
 * Return: 0 or -errno.
 */
int uvm_va_block_unset_read_mostly(struct uvm_va_block *block,
				   struct uvm_va_block_ctx *ctx,
				   const struct uvm_page_mask *mask)
{
	struct uvm_page_mask dup, one;
	unsigned int page;
	int ret;

	lockdep_assert_held(&block->lock);

	uvm_va_block_duplicated(block, &dup);
	if (!uvm_page_mask_and(&dup, &dup, mask))
		return 0;
	for_each_page_in_mask(page, &dup) {
		const struct uvm_va_policy *policy = block_page_policy(block, page);

		uvm_page_mask_zero(&one);
		uvm_page_mask_set(&one, page);
		ret = uvm_va_block_collapse(block, ctx,
					    block_survivor(block, policy, page),
					    &one, NUMA_NO_NODE);
		if (!ret)
			ret = uvm_va_block_map_accessed_by(block, ctx, &one,
							   uvm_va_policy_mapped_by(policy),
							   UVM_PROCESSOR_CPU);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * uvm_va_block_set_accessed_by() - map a processor to resident pages
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @mask:	pages that just got the processor in their accessed-by set
 * @proc:	processor id
 *
 * Return: 0 or -errno.
 */
int uvm_va_block_set_accessed_by(struct uvm_va_block *block,
				 struct uvm_va_block_ctx *ctx,
				 const struct uvm_page_mask *mask, u32 proc)
{
	struct uvm_va_policy_iter iter;
	struct uvm_page_mask run, m;
	int ret;

	lockdep_assert_held(&block->lock);

	if (proc == UVM_PROCESSOR_CPU)
		return 0;
	for (uvm_va_policy_iter_first(block->va_space, block->start,
				      uvm_va_block_end(block), &iter);
	     iter.start < iter.limit; uvm_va_policy_iter_next(&iter)) {
		if (!(uvm_va_policy_mapped_by(iter.policy) & UVM_PROCESSOR_MASK(proc)))
			continue;
		uvm_va_block_range_mask(block, iter.start, iter.end, &run);
		if (!uvm_page_mask_and(&m, mask, &run))
			continue;
		ret = uvm_va_block_map_gpu(block, ctx, uvm_gpu_get(proc - 1), &m,
					   UVM_PROT_NONE);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * uvm_va_block_access_counter_migrate() - bring remotely mapped pages home
 * @block:	the block; its lock held
 * @ctx:	scratch space
 * @gpu:	the GPU whose access counters fired for the block
 *
 * The pages @gpu maps remotely move to @gpu (read-mostly ones get a copy)
 * and are mapped locally, except where a preferred location is set or
 * the pages thrash (pinned or throttled).
 *
 * Return: 0 or -errno (-ENOSPC: see uvm_evict_retry()).
 */
int uvm_va_block_access_counter_migrate(struct uvm_va_block *block,
					struct uvm_va_block_ctx *ctx,
					struct uvm_gpu *gpu)
{
	struct uvm_va_block_gpu *gs = block->gpus[gpu->index];
	u32 accessor = uvm_gpu_processor(gpu);
	struct uvm_page_mask remote, run, m, pinned;
	struct uvm_va_policy_iter iter;
	int ret;

	lockdep_assert_held(&block->lock);

	if (!gs || !uvm_page_mask_and(&remote, &gs->remote, &gs->mapped[0]))
		return 0;
	for (uvm_va_policy_iter_first(block->va_space, block->start,
				      uvm_va_block_end(block), &iter);
	     iter.start < iter.limit; uvm_va_policy_iter_next(&iter)) {
		if (uvm_va_policy_has_preferred(iter.policy))
			continue;
		uvm_va_block_range_mask(block, iter.start, iter.end, &run);
		if (!uvm_page_mask_and(&m, &remote, &run))
			continue;
		if (uvm_thrash_hot(block, &m, &pinned))
			uvm_page_mask_andnot(&m, &m, &pinned);
		ret = block_serve(block, ctx, iter.policy, accessor, &m, false);
		if (!ret)
			ret = uvm_va_block_map_gpu(block, ctx, gpu, &m, UVM_PROT_NONE);
		if (ret)
			return ret;
		uvm_va_space_count(block->va_space, UVM_COUNTER_ACCESS_COUNTER_MIGRATIONS,
				   uvm_page_mask_weight(&m));
	}
	block_touch(block, gpu);
	return 0;
}
