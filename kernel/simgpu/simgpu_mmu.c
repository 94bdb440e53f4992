// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * simgpu_mmu.c - page tables and TLB of the simulated GPU.
 *
 * DOC: simulated MMU
 *
 * Each GPU VA space (&struct uvm_gpu_va_space) gets a &struct simgpu_vaspace
 * whose page table is an xarray keyed by ``va >> PAGE_SHIFT``.  A PTE is an
 * xa_mk_value() of::
 *
 *	bits  0-1	permission (enum uvm_prot, never NONE)
 *	bit   2		aperture is VID (else SYS)
 *	bits  3-8	for VID, the core index of the GPU owning the vidmem
 *	bits 12-61	page-aligned physical address (DMA address or offset)
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
 * map() is all or nothing: the slots of the range are first reserved (the
 * only step that allocates, with GFP_NOWAIT since the core calls map() under
 * its own locks, possibly ones reclaim takes), then written.  On -ENOMEM the
 * page table is exactly as before.  A reserved slot reads as no PTE.
 *
 * Locking: the xarray's internal spinlock serialises PTE writers (map and
 * unmap of one range are also serialised by the core's block lock);
 * translation is lockless.  &simgpu_vaspace.tlb_sem orders accesses against
 * invalidation as described above and is never taken with another simgpu
 * lock held.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "simgpu_internal.h"

#define SIMGPU_PTE_PROT_MASK	0x3UL
#define SIMGPU_PTE_VID		BIT(2)
#define SIMGPU_PTE_GPU_SHIFT	3
#define SIMGPU_PTE_GPU_MASK	0x3fUL
#define SIMGPU_PTE_ADDR_LIMIT	BIT_ULL(62)

/* Page-table memory is allocated under the core's locks: never reclaim. */
#define SIMGPU_PT_GFP		(GFP_NOWAIT | __GFP_NOWARN)

/* PTEs cleared per xarray lock hold in unmap(). */
#define SIMGPU_UNMAP_BATCH	1024

/**
 * simgpu_pte_encode() - build the PTE value for a physical page
 * @pa: physical page
 * @prot: permission
 *
 * Context: any.
 * Return: the xarray value.
 */
static unsigned long simgpu_pte_encode(const struct uvm_gpu_address *pa,
				       enum uvm_prot prot)
{
	unsigned long pte = (pa->addr & PAGE_MASK) | prot;

	if (pa->aperture == UVM_APERTURE_VID)
		pte |= SIMGPU_PTE_VID |
		       ((unsigned long)pa->gpu << SIMGPU_PTE_GPU_SHIFT);
	return pte;
}

/**
 * simgpu_pte_page() - the page a PTE points at
 * @pte: PTE value
 *
 * Context: any.
 * Return: the page, or NULL for a PTE whose target vanished (a core bug).
 */
static struct page *simgpu_pte_page(unsigned long pte)
{
	u16 gpu = (pte >> SIMGPU_PTE_GPU_SHIFT) & SIMGPU_PTE_GPU_MASK;

	if (pte & SIMGPU_PTE_VID)
		return simgpu_phys_page(UVM_APERTURE_VID, gpu, pte & PAGE_MASK);
	return simgpu_phys_page(UVM_APERTURE_SYS, 0, pte & PAGE_MASK);
}

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
	xa_init(&vs->ptes);
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
	WARN(!xa_empty(&vs->ptes),
	     SIMGPU_PREFIX "GPU VA space %u destroyed with PTEs left\n",
	     vs->instance);
	xa_destroy(&vs->ptes);
	kfree(vs);
	gvs->hw = NULL;
}

/**
 * simgpu_mmu_check() - validate a map() request from the core
 * @va: first virtual address
 * @pages: physical pages
 * @npages: number of pages, > 0
 * @prot: permission
 *
 * Context: any.
 * Return: true when every argument is well formed and every page exists.
 */
static bool simgpu_mmu_check(u64 va, const struct uvm_gpu_address *pages,
			     u32 npages, enum uvm_prot prot)
{
	u32 i;

	if (!PAGE_ALIGNED(va) || (va >> PAGE_SHIFT) + npages >
	    (U64_MAX >> PAGE_SHIFT) || prot < UVM_PROT_READ_ONLY ||
	    prot > UVM_PROT_READ_WRITE_ATOMIC)
		return false;
	for (i = 0; i < npages; i++) {
		if (!PAGE_ALIGNED(pages[i].addr) ||
		    pages[i].addr >= SIMGPU_PTE_ADDR_LIMIT ||
		    pages[i].gpu > SIMGPU_PTE_GPU_MASK ||
		    !simgpu_phys_valid(pages[i].aperture, pages[i].gpu,
				       pages[i].addr))
			return false;
	}
	return true;
}

/**
 * simgpu_pt_release() - drop the reservations of a failed map()
 * @xa: the page table
 * @first: first index
 * @end: one past the last index
 *
 * Context: any; takes the xarray lock.
 */
static void simgpu_pt_release(struct xarray *xa, unsigned long first,
			      unsigned long end)
{
	XA_STATE(xas, xa, first);
	unsigned long idx;

	xas_lock(&xas);
	for (idx = first; idx < end; idx++) {
		xas_set(&xas, idx);
		if (xas_load(&xas) == XA_ZERO_ENTRY)
			xas_store(&xas, NULL);
	}
	xas_unlock(&xas);
}

/**
 * simgpu_pt_reserve() - make sure every slot of a range exists
 * @xa: the page table
 * @first: first index
 * @npages: number of slots, > 0
 *
 * Empty slots get a reserved entry (reads as no PTE), so that storing the
 * PTEs afterwards cannot fail.
 *
 * Context: any; takes the xarray lock; allocates with %SIMGPU_PT_GFP.
 * Return: 0, or -ENOMEM with the range as before.
 */
static int simgpu_pt_reserve(struct xarray *xa, unsigned long first,
			     u32 npages)
{
	unsigned long idx = first, end = first + npages;
	XA_STATE(xas, xa, first);

	do {
		xas_lock(&xas);
		for (; idx < end; idx++) {
			xas_set(&xas, idx);
			if (xas_load(&xas))
				continue;
			xas_store(&xas, XA_ZERO_ENTRY);
			if (xas_error(&xas))
				break;
		}
		xas_unlock(&xas);
	} while (xas_nomem(&xas, SIMGPU_PT_GFP));

	if (xas_error(&xas)) {
		simgpu_pt_release(xa, first, idx);
		return xas_error(&xas);
	}
	return 0;
}

/**
 * simgpu_mmu_map() - &uvm_gpu_ops.map
 * @gvs: the GPU VA space
 * @va: page-aligned first virtual address
 * @pages: physical page of each virtual page
 * @npages: number of pages
 * @prot: permission of every PTE written
 *
 * Context: process, possibly under the core's spinlocks or reclaim-taken
 * locks: never sleeps; takes the xarray lock.
 * Return: 0; -ENOMEM for page-table memory (nothing changed); -EINVAL (with
 * a warning, a core bug) for a malformed request or a page that does not
 * exist (an unallocated vidmem chunk, an invalid pfn).
 */
int simgpu_mmu_map(struct uvm_gpu_va_space *gvs, u64 va,
		   const struct uvm_gpu_address *pages, u32 npages,
		   enum uvm_prot prot)
{
	struct simgpu_vaspace *vs = gvs->hw;
	unsigned long first = va >> PAGE_SHIFT;
	XA_STATE(xas, &vs->ptes, first);
	u32 i;
	int ret;

	if (!npages)
		return 0;
	if (WARN_ON_ONCE(!simgpu_mmu_check(va, pages, npages, prot)))
		return -EINVAL;
	ret = simgpu_pt_reserve(&vs->ptes, first, npages);
	if (ret)
		return ret;

	xas_lock(&xas);
	for (i = 0; i < npages; i++) {
		xas_set(&xas, first + i);
		xas_store(&xas, xa_mk_value(simgpu_pte_encode(&pages[i], prot)));
	}
	xas_unlock(&xas);
	WARN_ON_ONCE(xas_error(&xas));
	return 0;
}

/**
 * simgpu_mmu_unmap() - &uvm_gpu_ops.unmap
 * @gvs: the GPU VA space
 * @va: page-aligned first virtual address
 * @npages: number of PTEs to clear (absent ones are skipped)
 *
 * Accesses already past their translation keep going until the core's
 * tlb_invalidate().
 *
 * Context: any; takes the xarray lock, never sleeps.
 */
void simgpu_mmu_unmap(struct uvm_gpu_va_space *gvs, u64 va, u32 npages)
{
	struct simgpu_vaspace *vs = gvs->hw;
	unsigned long first = va >> PAGE_SHIFT;
	XA_STATE(xas, &vs->ptes, first);
	unsigned int batch = 0;
	void *entry;

	if (!npages)
		return;
	xas_lock(&xas);
	xas_for_each(&xas, entry, first + npages - 1) {
		xas_store(&xas, NULL);
		if (++batch % SIMGPU_UNMAP_BATCH == 0) {
			xas_pause(&xas);
			xas_unlock(&xas);
			xas_lock(&xas);
		}
	}
	xas_unlock(&xas);
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
	void *entry = xa_load(&vs->ptes, va >> PAGE_SHIFT);
	struct page *page;
	unsigned long pte;

	if (!xa_is_value(entry))
		return NULL;
	pte = xa_to_value(entry);
	if ((pte & SIMGPU_PTE_PROT_MASK) < access)
		return NULL;
	page = simgpu_pte_page(pte);
	WARN_ON_ONCE(!page);
	*remote = !(pte & SIMGPU_PTE_VID) ||
		  ((pte >> SIMGPU_PTE_GPU_SHIFT) & SIMGPU_PTE_GPU_MASK) != vs->sg->index;
	return page;
}
