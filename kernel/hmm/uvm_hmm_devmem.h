/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Device-private vidmem for pageable memory: what uvm_hmm.c uses of
 * uvm_hmm_devmem.c.  Private to the two files.
 */
#ifndef _UVM_HMM_DEVMEM_H_
#define _UVM_HMM_DEVMEM_H_

#include <linux/errno.h>
#include <linux/types.h>

#include "uvm_ce.h"
#include "uvm_compat.h"
#include "uvm_hal.h"
#include "uvm_page_mask.h"

struct page;
struct uvm_gpu;
struct uvm_va_space;
struct vm_area_struct;

/**
 * struct uvm_hmm_migrate_ctx - scratch space of one migration
 * @src:	migrate_vma source pfns, one per page of the range
 * @dst:	migrate_vma destination pfns
 * @resv:	device pages reserved for the migration
 * @nresv:	entries of @resv
 * @ntaken:	of those, pages handed out (the first ones)
 * @ce:		copy-engine operations being gathered
 *
 * One per thread; at most UVM_PAGES_PER_BLOCK pages per migration.
 */
struct uvm_hmm_migrate_ctx {
	unsigned long src[UVM_PAGES_PER_BLOCK];
	unsigned long dst[UVM_PAGES_PER_BLOCK];
	struct page *resv[UVM_PAGES_PER_BLOCK];
	u32 nresv;
	u32 ntaken;
	struct uvm_ce_batch ce;
};

#if UVM_HMM_MIGRATION

int uvm_hmm_devmem_init(void);
void uvm_hmm_devmem_exit(void);
void *uvm_hmm_devmem_owner(void);
bool uvm_hmm_devmem_page_addr(struct page *page, struct uvm_gpu_address *addr);
u32 uvm_hmm_devmem_reserve(struct uvm_hmm_migrate_ctx *mig,
			   struct uvm_va_space *va_space, struct uvm_gpu *gpu,
			   u32 count);
void uvm_hmm_devmem_unreserve(struct uvm_hmm_migrate_ctx *mig);
int uvm_hmm_devmem_to_gpu(struct uvm_hmm_migrate_ctx *mig,
			  struct uvm_va_space *va_space,
			  struct vm_area_struct *vma, u64 start, u64 end,
			  struct uvm_gpu *gpu, u32 *migrated);
int uvm_hmm_devmem_to_ram(struct uvm_hmm_migrate_ctx *mig,
			  struct uvm_va_space *va_space,
			  struct vm_area_struct *vma, u64 start, u64 end,
			  int nid, u32 *migrated);
void uvm_hmm_devmem_evict_va_space(struct uvm_va_space *va_space);
bool uvm_hmm_devmem_evict_gpu(struct uvm_gpu *gpu);

#else /* !UVM_HMM_MIGRATION: pageable memory is only mirrored */

static inline int uvm_hmm_devmem_init(void)
{
	return 0;
}

static inline void uvm_hmm_devmem_exit(void)
{
}

static inline void *uvm_hmm_devmem_owner(void)
{
	return NULL;
}

static inline bool uvm_hmm_devmem_page_addr(struct page *page,
					    struct uvm_gpu_address *addr)
{
	return false;
}

static inline u32 uvm_hmm_devmem_reserve(struct uvm_hmm_migrate_ctx *mig,
					 struct uvm_va_space *va_space,
					 struct uvm_gpu *gpu, u32 count)
{
	return 0;
}

static inline void uvm_hmm_devmem_unreserve(struct uvm_hmm_migrate_ctx *mig)
{
}

static inline int uvm_hmm_devmem_to_gpu(struct uvm_hmm_migrate_ctx *mig,
					struct uvm_va_space *va_space,
					struct vm_area_struct *vma, u64 start,
					u64 end, struct uvm_gpu *gpu,
					u32 *migrated)
{
	return -EOPNOTSUPP;
}

static inline int uvm_hmm_devmem_to_ram(struct uvm_hmm_migrate_ctx *mig,
					struct uvm_va_space *va_space,
					struct vm_area_struct *vma, u64 start,
					u64 end, int nid, u32 *migrated)
{
	return 0;
}

static inline void uvm_hmm_devmem_evict_va_space(struct uvm_va_space *va_space)
{
}

static inline bool uvm_hmm_devmem_evict_gpu(struct uvm_gpu *gpu)
{
	return false;
}

#endif /* UVM_HMM_MIGRATION */

#endif /* _UVM_HMM_DEVMEM_H_ */
