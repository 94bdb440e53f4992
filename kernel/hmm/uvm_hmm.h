/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Pageable memory (malloc, anonymous and file mmap, the stack) through HMM.
 */
#ifndef _UVM_HMM_H_
#define _UVM_HMM_H_

#include <linux/list.h>
#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "uvm.h"
#include "uvm_hal.h"

struct uvm_gpu;
struct uvm_test_page_state;
struct uvm_va_space;

/**
 * struct uvm_hmm_va_space - the pageable-memory state of a VA space
 * @arm_lock:	serialises arming regions (interval notifier insertion) and
 *		the registration of @mn; taken with no other lock held, above
 *		mmap_lock (registration takes mmap_lock for write)
 * @regions:	2 MiB regions of pageable memory the VA space has touched,
 *		index address >> UVM_VA_BLOCK_SHIFT; stores use the xarray's
 *		lock, lookups are lockless; entries live until the VA space is
 *		freed
 * @mn:		notifier whose release() tells us the mm is going away
 * @mn_registered: @mn is registered; @arm_lock
 * @mm_dead:	the mm's release() ran: no region is armed any more
 * @chunks:	device-private vidmem chunks this VA space allocated
 *		(uvm_hmm_devmem.c); uvm_hmm_devmem's lock
 * @shares:	invalidations that may have shared its pages with another mm
 *		(fork()'s write protection of private mappings): a chunk
 *		allocated before one may have pages mapped where eviction
 *		cannot lock (uvm_hmm_devmem.c)
 */
struct uvm_hmm_va_space {
	struct mutex arm_lock; /* region arming, @mn registration */
	struct xarray regions;
	struct mmu_notifier mn;
	bool mn_registered;
	bool mm_dead;
	struct list_head chunks;
	atomic_t shares;
};

#if IS_ENABLED(CONFIG_HMM_MIRROR)

int uvm_hmm_init(void);
void uvm_hmm_exit(void);
u64 uvm_hmm_caps(void);

void uvm_hmm_va_space_init(struct uvm_va_space *va_space);
void uvm_hmm_va_space_destroy(struct uvm_va_space *va_space);

void uvm_hmm_service_faults(struct uvm_va_space *va_space, struct uvm_gpu *gpu,
			    const struct uvm_fault_entry *faults, u32 count,
			    struct uvm_fault_entry *fatal, u32 *nfatal);

#else /* !CONFIG_HMM_MIRROR: pageable memory stays out of reach of the GPUs */

static inline int uvm_hmm_init(void)
{
	return 0;
}

static inline void uvm_hmm_exit(void)
{
}

static inline u64 uvm_hmm_caps(void)
{
	return 0;
}

static inline void uvm_hmm_va_space_init(struct uvm_va_space *va_space)
{
}

static inline void uvm_hmm_va_space_destroy(struct uvm_va_space *va_space)
{
}

static inline void uvm_hmm_service_faults(struct uvm_va_space *va_space,
					  struct uvm_gpu *gpu,
					  const struct uvm_fault_entry *faults,
					  u32 count, struct uvm_fault_entry *fatal,
					  u32 *nfatal)
{
	while (count--)
		fatal[(*nfatal)++] = *faults++;
}

#endif /* CONFIG_HMM_MIRROR */

#endif /* _UVM_HMM_H_ */
