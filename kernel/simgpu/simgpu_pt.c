// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * simgpu_pt.c - the two-level page-table format of the simulated GPU.
 *
 * DOC: simulated page tables
 *
 * A GPU VA space's page table (&struct simgpu_pt) has two levels:
 *
 * - the top level is an xarray keyed by ``va >> 21`` (the 2 MiB index; an
 *   xarray because the VA space is sparse and 64-bit).  An entry is either
 *   absent, a 2 MiB PTE (an xa_mk_value()), or a pointer to a leaf;
 * - a leaf (&struct simgpu_pt_leaf) is a plain array of 512 PTEs, one per
 *   4 KiB page of the 2 MiB region, plus the count of valid ones.  A 64 KiB
 *   PTE is an aligned group of 16 leaf entries that all hold the same value:
 *   the 64 KiB-aligned base address with %SIMGPU_PTE_64K set.
 *
 * A PTE (an unsigned long, 0 = invalid) is::
 *
 *	bits  0-1	permission (enum uvm_prot, never NONE)
 *	bit   2		aperture is VID (else SYS)
 *	bits  3-8	for VID, the core index of the GPU owning the vidmem
 *	bit   9		64 KiB PTE (leaf entries only)
 *	bit  10		2 MiB PTE (top-level entries only)
 *	bits 12-61	physical address of the first byte the PTE maps
 *
 * A translation of any 4 KiB page inside a PTE of size S is the PTE's
 * address plus ``va & (S - 1)``.
 *
 * Writing a run of 4 KiB or 64 KiB PTEs is a series of plain stores into one
 * leaf; mapping or unmapping a whole 2 MiB region is one top-level store.
 * A write that covers part of a bigger PTE first splits it into PTEs of the
 * written size that keep its translation (a 2 MiB PTE becomes a new leaf of
 * 64 KiB PTEs, published only once filled; a 64 KiB group becomes 16 4 KiB
 * entries in place), so the rest of its range never loses its mapping.
 * Unmapping part of a big PTE does the same and warns: the core never asks
 * for it (see &uvm_gpu_ops.unmap).
 *
 * Translation is lockless: under rcu_read_lock() it loads the top-level
 * entry and, for a leaf, one READ_ONCE() of the leaf entry.  Every entry
 * store is a single WRITE_ONCE() of a complete PTE, so a reader sees the old
 * or the new PTE, never a mix.  Leaves are freed after an RCU grace period
 * once unlinked from the top level (emptied, or replaced by a 2 MiB PTE).
 *
 * Leaves come from their own slab cache whose free objects are kept zeroed:
 * the constructor zeroes new slabs and a leaf is almost always freed empty
 * (only a leaf replaced by a 2 MiB PTE is cleared before it goes back), so
 * allocating a leaf in the fault path costs no 4 KiB memset.
 *
 * Locking: the top-level xarray's spinlock serialises every writer of the
 * table, leaves included.  Page-table memory is allocated under it with
 * GFP_NOWAIT (callers hold the core's locks, possibly ones reclaim takes);
 * an allocation failure is reported as -ENOMEM before anything of the PTE
 * being written changed.
 */
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "simgpu_internal.h"

#define SIMGPU_PTE_PROT_MASK	0x3UL
#define SIMGPU_PTE_VID		BIT(2)
#define SIMGPU_PTE_GPU_SHIFT	3
#define SIMGPU_PTE_GPU_MASK	0x3fUL
#define SIMGPU_PTE_64K		BIT(9)
#define SIMGPU_PTE_2M		BIT(10)
#define SIMGPU_PTE_ADDR_MASK	(GENMASK_ULL(61, 0) & PAGE_MASK)

#define SIMGPU_PT_SHIFT		21
#define SIMGPU_PT_ENTRIES	(SZ_2M >> PAGE_SHIFT)
#define SIMGPU_PT_GROUP		(SZ_64K >> PAGE_SHIFT)

/* Page-table memory is allocated under the core's locks: never reclaim. */
#define SIMGPU_PT_GFP		(GFP_NOWAIT | __GFP_NOWARN | __GFP_ACCOUNT)

static_assert(PAGE_SIZE == SZ_4K);

/* Leaves; free objects have every entry 0 and nr_valid 0. */
static struct kmem_cache *simgpu_pt_leaf_cache;

/**
 * struct simgpu_pt_leaf - the 4 KiB and 64 KiB PTEs of one 2 MiB region
 * @rcu:	deferred free once unlinked (first: kfree_rcu() needs a small
 *		offset)
 * @nr_valid:	non-zero entries of @pte; the table's lock
 * @pte:	PTE of each 4 KiB page; written under the table's lock with
 *		WRITE_ONCE(), read locklessly with READ_ONCE()
 */
struct simgpu_pt_leaf {
	struct rcu_head rcu;
	unsigned int nr_valid;
	unsigned long pte[SIMGPU_PT_ENTRIES];
};

/**
 * simgpu_pt_encode() - build a PTE
 * @pa: first byte the PTE maps, aligned to its size
 * @prot: permission
 * @size_bit: 0, %SIMGPU_PTE_64K or %SIMGPU_PTE_2M
 *
 * Context: any.
 * Return: the PTE.
 */
static unsigned long simgpu_pt_encode(const struct uvm_gpu_address *pa,
				      enum uvm_prot prot, unsigned long size_bit)
{
	unsigned long pte = (pa->addr & SIMGPU_PTE_ADDR_MASK) | prot | size_bit;

	if (pa->aperture == UVM_APERTURE_VID)
		pte |= SIMGPU_PTE_VID |
		       ((unsigned long)pa->gpu << SIMGPU_PTE_GPU_SHIFT);
	return pte;
}

/**
 * simgpu_pt_leaf_ctor() - zero a leaf of a new slab
 * @obj: the leaf
 */
static void simgpu_pt_leaf_ctor(void *obj)
{
	memset(obj, 0, sizeof(struct simgpu_pt_leaf));
}

/**
 * simgpu_pt_cache_init() - create the leaf cache
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int simgpu_pt_cache_init(void)
{
	simgpu_pt_leaf_cache = kmem_cache_create("simgpu_pt_leaf",
						 sizeof(struct simgpu_pt_leaf), 0,
						 SLAB_ACCOUNT, simgpu_pt_leaf_ctor);
	return simgpu_pt_leaf_cache ? 0 : -ENOMEM;
}

/**
 * simgpu_pt_cache_exit() - destroy the leaf cache
 *
 * Context: module exit, every page table destroyed.
 */
void simgpu_pt_cache_exit(void)
{
	rcu_barrier();	/* leaves still waiting for a grace period */
	kmem_cache_destroy(simgpu_pt_leaf_cache);
}

/**
 * simgpu_pt_leaf_put() - return a leaf nobody can reach to the cache
 * @leaf: the leaf
 *
 * Context: any.
 */
static void simgpu_pt_leaf_put(struct simgpu_pt_leaf *leaf)
{
	if (leaf->nr_valid) {
		memset(leaf->pte, 0, sizeof(leaf->pte));
		leaf->nr_valid = 0;
	}
	kmem_cache_free(simgpu_pt_leaf_cache, leaf);
}

static void simgpu_pt_leaf_rcu(struct rcu_head *rcu)
{
	simgpu_pt_leaf_put(container_of(rcu, struct simgpu_pt_leaf, rcu));
}

/**
 * simgpu_pt_leaf_free() - free a leaf once lockless readers are done
 * @leaf: a leaf no longer reachable from the top level
 *
 * Context: any.
 */
static void simgpu_pt_leaf_free(struct simgpu_pt_leaf *leaf)
{
	call_rcu(&leaf->rcu, simgpu_pt_leaf_rcu);
}

/**
 * simgpu_pt_init() - an empty page table
 * @pt: the table
 *
 * Context: any.
 */
void simgpu_pt_init(struct simgpu_pt *pt)
{
	xa_init(&pt->top);
}

/**
 * simgpu_pt_destroy() - free a page table and whatever PTEs it still has
 * @pt: the table, no longer used by anyone
 *
 * Context: process.
 * Return: true when it still held PTEs (a caller bug).
 */
bool simgpu_pt_destroy(struct simgpu_pt *pt)
{
	unsigned long index;
	bool had_ptes = false;
	void *entry;

	xa_for_each(&pt->top, index, entry) {
		had_ptes = true;
		if (!xa_is_value(entry))
			simgpu_pt_leaf_put(entry);
	}
	xa_destroy(&pt->top);
	return had_ptes;
}

/**
 * simgpu_pt_leaf_get() - the leaf of a 2 MiB region, created if needed
 * @pt: the table, its lock held
 * @index: 2 MiB index
 *
 * An absent entry gets an empty leaf; a 2 MiB PTE gets a leaf of 32 64 KiB
 * PTEs with the same translation, published once complete.
 *
 * Context: the table's lock held; allocates with GFP_NOWAIT.
 * Return: the leaf, or NULL when out of memory (the table is unchanged).
 */
static struct simgpu_pt_leaf *simgpu_pt_leaf_get(struct simgpu_pt *pt,
						 unsigned long index)
{
	void *entry = xa_load(&pt->top, index);
	struct simgpu_pt_leaf *leaf;
	unsigned long pte, g;
	u32 i;

	if (entry && !xa_is_value(entry))
		return entry;
	leaf = kmem_cache_alloc(simgpu_pt_leaf_cache, SIMGPU_PT_GFP);
	if (!leaf)
		return NULL;
	if (entry) {
		pte = xa_to_value(entry) & ~SIMGPU_PTE_2M;
		for (i = 0; i < SIMGPU_PT_ENTRIES; i++) {
			g = i / SIMGPU_PT_GROUP;
			leaf->pte[i] = (pte + g * SZ_64K) | SIMGPU_PTE_64K;
		}
		leaf->nr_valid = SIMGPU_PT_ENTRIES;
	}
	if (xa_is_err(__xa_store(&pt->top, index, leaf, SIMGPU_PT_GFP))) {
		simgpu_pt_leaf_put(leaf);
		return NULL;
	}
	return leaf;
}

/**
 * simgpu_pt_split_group() - turn a 64 KiB PTE into 16 4 KiB PTEs in place
 * @leaf: the leaf, the table's lock held
 * @first: index of the first entry of the group
 *
 * Each entry keeps its translation; readers see either form.
 *
 * Context: the table's lock held.
 */
static void simgpu_pt_split_group(struct simgpu_pt_leaf *leaf, u32 first)
{
	unsigned long pte = leaf->pte[first] & ~SIMGPU_PTE_64K;
	u32 i;

	for (i = 0; i < SIMGPU_PT_GROUP; i++)
		WRITE_ONCE(leaf->pte[first + i], pte + i * PAGE_SIZE);
}

/**
 * simgpu_pt_leaf_set() - write one leaf entry, keeping the count right
 * @leaf: the leaf, the table's lock held
 * @i: entry index
 * @pte: new value, 0 to clear
 *
 * Context: the table's lock held.
 */
static void simgpu_pt_leaf_set(struct simgpu_pt_leaf *leaf, u32 i,
			       unsigned long pte)
{
	leaf->nr_valid += !leaf->pte[i] - !pte;
	WRITE_ONCE(leaf->pte[i], pte);
}

/**
 * simgpu_pt_map() - write PTEs of one size
 * @pt: the table
 * @va: first virtual address, aligned to @page_size
 * @pages: address of the first byte of each PTE, aligned to @page_size
 *	(checked by the caller)
 * @count: number of PTEs
 * @page_size: SZ_4K, SZ_64K or SZ_2M
 * @prot: permission of every PTE
 *
 * Replaces the PTEs the range covers; a bigger PTE partially covered is
 * split first, keeping the translation of the rest of its range.
 *
 * Context: any; takes the table's lock, never sleeps.
 * Return: 0 or -ENOMEM (PTEs written before the failure stay).
 */
int simgpu_pt_map(struct simgpu_pt *pt, u64 va,
		  const struct uvm_gpu_address *pages, u32 count,
		  u32 page_size, enum uvm_prot prot)
{
	struct simgpu_pt_leaf *leaf = NULL;
	unsigned long index, cur = ULONG_MAX;
	unsigned long pte;
	void *old;
	u32 n, e, k;
	int ret = 0;

	xa_lock(&pt->top);
	for (n = 0; n < count; n++, va += page_size) {
		index = va >> SIMGPU_PT_SHIFT;
		if (page_size == SZ_2M) {
			pte = simgpu_pt_encode(&pages[n], prot, SIMGPU_PTE_2M);
			old = __xa_store(&pt->top, index, xa_mk_value(pte),
					 SIMGPU_PT_GFP);
			if (xa_is_err(old)) {
				ret = xa_err(old);
				break;
			}
			if (old && !xa_is_value(old))
				simgpu_pt_leaf_free(old);
			continue;
		}
		if (index != cur) {
			leaf = simgpu_pt_leaf_get(pt, index);
			if (!leaf) {
				ret = -ENOMEM;
				break;
			}
			cur = index;
		}
		e = (va >> PAGE_SHIFT) & (SIMGPU_PT_ENTRIES - 1);
		if (page_size == SZ_64K) {
			pte = simgpu_pt_encode(&pages[n], prot, SIMGPU_PTE_64K);
			for (k = 0; k < SIMGPU_PT_GROUP; k++)
				simgpu_pt_leaf_set(leaf, e + k, pte);
			continue;
		}
		if (leaf->pte[e] & SIMGPU_PTE_64K)
			simgpu_pt_split_group(leaf, e & ~(SIMGPU_PT_GROUP - 1));
		simgpu_pt_leaf_set(leaf, e, simgpu_pt_encode(&pages[n], prot, 0));
	}
	xa_unlock(&pt->top);
	return ret;
}

/**
 * simgpu_pt_unmap_leaf() - clear entries [@s, @e) of a leaf
 * @pt: the table, its lock held
 * @index: 2 MiB index of @leaf
 * @leaf: the leaf
 * @s: first entry
 * @e: last entry + 1
 *
 * Partially covered 64 KiB PTEs are split first (with a warning).  An
 * emptied leaf is unlinked and freed after a grace period.
 *
 * Context: the table's lock held.
 */
static void simgpu_pt_unmap_leaf(struct simgpu_pt *pt, unsigned long index,
				 struct simgpu_pt_leaf *leaf, u32 s, u32 e)
{
	u32 first = s & ~(SIMGPU_PT_GROUP - 1);
	u32 last = (e - 1) & ~(SIMGPU_PT_GROUP - 1);
	u32 i;

	if (first != s && (leaf->pte[first] & SIMGPU_PTE_64K)) {
		WARN_ON_ONCE(1);
		simgpu_pt_split_group(leaf, first);
	}
	if (e != last + SIMGPU_PT_GROUP && (leaf->pte[last] & SIMGPU_PTE_64K)) {
		WARN_ON_ONCE(1);
		simgpu_pt_split_group(leaf, last);
	}
	for (i = s; i < e; i++)
		simgpu_pt_leaf_set(leaf, i, 0);
	if (!leaf->nr_valid) {
		__xa_erase(&pt->top, index);
		simgpu_pt_leaf_free(leaf);
	}
}

/**
 * simgpu_pt_unmap() - clear the PTEs of a range
 * @pt: the table
 * @va: first virtual address, page aligned
 * @npages: 4 KiB pages in the range; absent PTEs are skipped
 *
 * The range should cover whole big PTEs.  One that is only partly covered
 * is split with a warning, so that exactly the range is unmapped; if the
 * memory for splitting a 2 MiB PTE is missing, the whole 2 MiB PTE goes
 * (the GPU faults on the rest, never sees a wrong page).
 *
 * Context: any; takes the table's lock per 2 MiB region, never sleeps.
 */
void simgpu_pt_unmap(struct simgpu_pt *pt, u64 va, u64 npages)
{
	unsigned long first = va >> PAGE_SHIFT, end = first + npages;
	unsigned long index = va >> SIMGPU_PT_SHIFT;
	unsigned long last = (end - 1) >> (SIMGPU_PT_SHIFT - PAGE_SHIFT);
	unsigned long base;
	struct simgpu_pt_leaf *leaf;
	void *entry;
	u32 s, e;

	if (!npages)
		return;
	for (;;) {
		xa_lock(&pt->top);
		entry = xa_find(&pt->top, &index, last, XA_PRESENT);
		if (!entry) {
			xa_unlock(&pt->top);
			return;
		}
		base = index << (SIMGPU_PT_SHIFT - PAGE_SHIFT);
		s = max(first, base) - base;
		e = min(end, base + SIMGPU_PT_ENTRIES) - base;
		if (xa_is_value(entry) && s == 0 && e == SIMGPU_PT_ENTRIES) {
			__xa_erase(&pt->top, index);
		} else if (xa_is_value(entry)) {
			WARN_ON_ONCE(1);
			leaf = simgpu_pt_leaf_get(pt, index);
			if (leaf)
				simgpu_pt_unmap_leaf(pt, index, leaf, s, e);
			else
				__xa_erase(&pt->top, index);
		} else {
			simgpu_pt_unmap_leaf(pt, index, entry, s, e);
		}
		xa_unlock(&pt->top);
		if (index == last)
			return;
		index++;
	}
}

/**
 * simgpu_pt_lookup() - the translation of one virtual address
 * @pt: the table
 * @va: virtual address
 * @out: out: the physical 4 KiB page holding @va and the PTE's permission
 *	and size
 *
 * Context: any; lockless (RCU).
 * Return: true when a PTE maps @va.
 */
bool simgpu_pt_lookup(struct simgpu_pt *pt, u64 va, struct simgpu_pte *out)
{
	struct simgpu_pt_leaf *leaf;
	unsigned long pte = 0;
	u64 size = PAGE_SIZE;
	void *entry;

	rcu_read_lock();
	entry = xa_load(&pt->top, va >> SIMGPU_PT_SHIFT);
	if (xa_is_value(entry)) {
		pte = xa_to_value(entry);
	} else if (entry) {
		leaf = entry;
		pte = READ_ONCE(leaf->pte[(va >> PAGE_SHIFT) &
					  (SIMGPU_PT_ENTRIES - 1)]);
	}
	rcu_read_unlock();
	if (!pte)
		return false;
	if (pte & SIMGPU_PTE_2M)
		size = SZ_2M;
	else if (pte & SIMGPU_PTE_64K)
		size = SZ_64K;
	out->pa.addr = (pte & SIMGPU_PTE_ADDR_MASK) + (va & (size - 1) & PAGE_MASK);
	out->pa.aperture = (pte & SIMGPU_PTE_VID) ? UVM_APERTURE_VID :
						    UVM_APERTURE_SYS;
	out->pa.gpu = (pte & SIMGPU_PTE_VID) ?
		      (pte >> SIMGPU_PTE_GPU_SHIFT) & SIMGPU_PTE_GPU_MASK : 0;
	out->prot = pte & SIMGPU_PTE_PROT_MASK;
	out->size = size;
	return true;
}
