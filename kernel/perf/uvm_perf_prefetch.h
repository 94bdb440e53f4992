/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The density prefetcher.
 */
#ifndef _UVM_PERF_PREFETCH_H_
#define _UVM_PERF_PREFETCH_H_

#include <linux/types.h>

#include "uvm_page_mask.h"

bool uvm_prefetch_enabled(void);
void uvm_prefetch_region(const struct uvm_page_mask *resident,
			 const struct uvm_page_mask *faulted,
			 const struct uvm_page_mask *allowed,
			 struct uvm_page_mask *out);

#endif /* _UVM_PERF_PREFETCH_H_ */
