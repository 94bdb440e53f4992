/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Thrashing detection and mitigation.
 */
#ifndef _UVM_PERF_THRASH_H_
#define _UVM_PERF_THRASH_H_

#include <linux/types.h>

#include "uvm_page_mask.h"

struct uvm_va_block;

/**
 * struct uvm_thrash_hot - mitigation windows of a block's pages, allocated
 * when one of them is first found thrashing
 * @until:	while later than now (ktime ns), the page is hot: pinned to
 *		host memory or throttled
 * @next_service: throttling: GPU faults on the page wait until then (ns)
 */
struct uvm_thrash_hot {
	u64 until[UVM_PAGES_PER_BLOCK];
	u64 next_service[UVM_PAGES_PER_BLOCK];
};

/**
 * struct uvm_thrash - per-page migration history of one block
 * @hot:	mitigation windows, NULL until a page of the block thrashes
 * @last:	time of the page's last migration (uvm_thrash_now() units)
 * @count:	migrations of the page, each within the lapse of the previous
 */
struct uvm_thrash {
	struct uvm_thrash_hot *hot;
	u32 last[UVM_PAGES_PER_BLOCK];
	u8 count[UVM_PAGES_PER_BLOCK];
};

void uvm_thrash_free(struct uvm_thrash *t);
void uvm_thrash_note(struct uvm_va_block *block, const struct uvm_page_mask *moved);
bool uvm_thrash_hot(struct uvm_va_block *block, const struct uvm_page_mask *mask,
		    struct uvm_page_mask *out);
bool uvm_thrash_pinned(struct uvm_va_block *block, bool pref,
		       const struct uvm_page_mask *mask, struct uvm_page_mask *out);
bool uvm_thrash_throttle_gpu(struct uvm_va_block *block, bool pref,
			     const struct uvm_page_mask *mask,
			     struct uvm_page_mask *held);
bool uvm_thrash_throttle_cpu(struct uvm_va_block *block, bool pref, u32 page);
void uvm_thrash_nap(void);

#endif /* _UVM_PERF_THRASH_H_ */
