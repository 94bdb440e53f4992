// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * simgpu_mmu.c - page tables and TLB of the simulated GPU.
 *
 * DOC: simulated MMU
 *
 * Each GPU VA space (&struct uvm_gpu_va_space) gets a &struct simgpu_vaspace
 * whose page table (&struct simgpu_pt) has 2 MiB, 64 KiB and 4 KiB PTEs; its
 * format is described in simgpu_pt.c.  The GPU advertises the three sizes in
 * &uvm_gpu_props.page_sizes.
 *
 * There is no TLB cache: every access of a warp looks its PTE up (lockless,
 * RCU inside xa_load()), so a PTE update is visible to the next access at
 * once.  What TLB invalidation must provide is the other half of the
 * contract: once tlb_invalidate() returns, no access that used a removed
 * translation is still touching memory.  Warps hold &simgpu_vaspace.tlb_sem
 * for read around translate + data access (a warp keeps it across several
 * accesses but drops it as soon as a writer waits, see simgpu_exec.c), and
 * tlb_invalidate() takes it for write once: when it gets it, every access
 * that started before has finished, and later ones see the new PTEs.
 *
 * map() writes the PTEs in one pass; page-table memory is allocated with
 * GFP_NOWAIT (the core calls map() under its own locks, possibly ones
 * reclaim takes).  On -ENOMEM the PTEs written so far stay: the core unmaps
 * the range, as the contract says.
 *
 * Locking: the page table's lock serialises PTE writers (map and unmap of
 * one range are also serialised by the core's block lock); translation is
 * lockless.  &simgpu_vaspace.tlb_sem orders accesses against
 * invalidation as described above and is never taken with another simgpu
 * lock held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "simgpu_internal.h"

#define SIMGPU_PTE_ADDR_LIMIT	BIT_ULL(62)
#define SIMGPU_PAGE_SIZES	(SZ_4K | SZ_64K | SZ_2M)

/**
 * simgpu_vaspace_create() - &uvm_gpu_ops.vaspace_create
 * @gpu: the GPU
 * @gvs: the GPU VA space, @gvs->instance assigned
 *
 * Context: process, may sleep.
 * Return: 0 or -ENOMEM.
 */
int simgpu_vaspace_create(struct uvm_gpu *gpu, struct uvm_gpu_va_space *gvs)
{
	struct simgpu_vaspace *vs;

	vs = kzalloc(sizeof(*vs), GFP_KERNEL_ACCOUNT);
	if (!vs)
		return -ENOMEM;
	vs->sg = uvm_gpu_hw(gpu);
	vs->instance = gvs->instance;
	simgpu_pt_init(&vs->pt);
	init_rwsem(&vs->tlb_sem);
	gvs->hw = vs;
	return 0;
}

/**
 * simgpu_vaspace_destroy() - &uvm_gpu_ops.vaspace_destroy
 * @gpu: the GPU
 * @gvs: the GPU VA space: no mapping left, no launch running in it
 *
 * Context: process.
 */
void simgpu_vaspace_destroy(struct uvm_gpu *gpu, struct uvm_gpu_va_space *gvs)
{
	struct simgpu_vaspace *vs = gvs->hw;

	if (!vs)
		return;
	WARN(simgpu_pt_destroy(&vs->pt),
	     SIMGPU_PREFIX "GPU VA space %u destroyed with PTEs left\n",
	     vs->instance);
	kfree(vs);
	gvs->hw = NULL;
}

/**
 * simgpu_mmu_check() - validate a map() request from the core
 * @va: first virtual address
 * @pages: first byte of each PTE
 * @count: number of PTEs, > 0
 * @page_size: bytes per PTE
 * @prot: permission
 *
 * Context: any.
 * Return: true when every argument is well formed and every page a PTE
 * maps exists.
 */
static bool simgpu_mmu_check(u64 va, const struct uvm_gpu_address *pages,
			     u32 count, u32 page_size, enum uvm_prot prot)
{
	u64 last;
	u32 i;

	if (!is_power_of_2(page_size) || !(page_size & SIMGPU_PAGE_SIZES) ||
	    !IS_ALIGNED(va, page_size) ||
	    va + (u64)count * page_size - 1 < va ||
	    prot < UVM_PROT_READ_ONLY || prot > UVM_PROT_READ_WRITE_ATOMIC)
		return false;
	for (i = 0; i < count; i++) {
		last = pages[i].addr + page_size - PAGE_SIZE;
		if (!IS_ALIGNED(pages[i].addr, page_size) ||
		    last >= SIMGPU_PTE_ADDR_LIMIT ||
		    pages[i].gpu >= BIT(6) ||
		    !simgpu_phys_valid(pages[i].aperture, pages[i].gpu,
				       pages[i].addr) ||
		    !simgpu_phys_valid(pages[i].aperture, pages[i].gpu, last))
			return false;
	}
	return true;
}

/**
 * simgpu_mmu_map() - &uvm_gpu_ops.map
 * @gvs: the GPU VA space
 * @va: first virtual address, aligned to @page_size
 * @pages: first byte of each PTE's physically contiguous run
 * @count: number of PTEs
 * @page_size: 4 KiB, 64 KiB or 2 MiB
 * @prot: permission of every PTE written
 *
 * Context: process, possibly under the core's spinlocks or reclaim-taken
 * locks: never sleeps; takes the page table's lock.
 * Return: 0; -ENOMEM for page-table memory; -EINVAL (with a warning, a core
 * bug) for a malformed request or a page that does not exist (an
 * unallocated vidmem chunk, an invalid pfn).
 */
int simgpu_mmu_map(struct uvm_gpu_va_space *gvs, u64 va,
		   const struct uvm_gpu_address *pages, u32 count,
		   u32 page_size, enum uvm_prot prot)
{
	struct simgpu_vaspace *vs = gvs->hw;

	if (!count)
		return 0;
	if (WARN_ON_ONCE(!simgpu_mmu_check(va, pages, count, page_size, prot)))
		return -EINVAL;
	return simgpu_pt_map(&vs->pt, va, pages, count, page_size, prot);
}

/**
 * simgpu_mmu_unmap() - &uvm_gpu_ops.unmap
 * @gvs: the GPU VA space
 * @va: page-aligned first virtual address
 * @npages: number of 4 KiB pages to unmap (absent PTEs are skipped); the
 *	range covers whole big PTEs (warns and splits otherwise)
 *
 * Accesses already past their translation keep going until the core's
 * tlb_invalidate().
 *
 * Context: any; takes the page table's lock, never sleeps.
 */
void simgpu_mmu_unmap(struct uvm_gpu_va_space *gvs, u64 va, u32 npages)
{
	struct simgpu_vaspace *vs = gvs->hw;

	simgpu_pt_unmap(&vs->pt, va, npages);
}

/**
 * simgpu_mmu_tlb_invalidate() - &uvm_gpu_ops.tlb_invalidate
 * @gvs: the GPU VA space
 * @va: start of the range (unused: the whole VA space is fenced)
 * @size: size of the range (unused)
 *
 * Waits for every access in flight in this GPU VA space: such an access may
 * have used a translation the core just removed.  Accesses of other VA
 * spaces are not waited for.
 *
 * Context: process, may sleep; no simgpu lock held.
 */
void simgpu_mmu_tlb_invalidate(struct uvm_gpu_va_space *gvs, u64 va, u64 size)
{
	struct simgpu_vaspace *vs = gvs->hw;

	down_write(&vs->tlb_sem);
	up_write(&vs->tlb_sem);
	atomic64_inc(&vs->sg->tlb_invalidates);
}

/**
 * simgpu_mmu_translate() - translate one access of a warp
 * @vs: the GPU VA space, &simgpu_vaspace.tlb_sem held for read
 * @va: virtual address
 * @access: enum uvm_fault_access of the access
 * @remote: out: the PTE points at system memory or another GPU's vidmem
 *
 * Context: warp, under tlb_sem (read); lockless lookup.
 * Return: the page holding @va, or NULL on a miss (no PTE, or a permission
 * below @access): the access must fault.
 */
struct page *simgpu_mmu_translate(struct simgpu_vaspace *vs, u64 va,
				  enum uvm_fault_access access, bool *remote)
{
	struct simgpu_pte pte;
	struct page *page;

	if (!simgpu_pt_lookup(&vs->pt, va, &pte) || pte.prot < access)
		return NULL;
	page = simgpu_phys_page(pte.pa.aperture, pte.pa.gpu, pte.pa.addr);
	WARN_ON_ONCE(!page);
	*remote = pte.pa.aperture != UVM_APERTURE_VID ||
		  pte.pa.gpu != vs->sg->index;
	return page;
}
