// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The density prefetcher.
 *
 * DOC: Prefetcher
 *
 * When faults are serviced in a 2 MiB block, the prefetcher grows each
 * faulted page into the largest naturally aligned region around it (2, 4,
 * ... 512 pages: the levels of a binary tree over the block's pages) in
 * which more than prefetch_threshold percent of the pages are already
 * resident on the destination or faulted in this batch.  Those regions are
 * migrated and mapped along with the faulted pages.  A sequential stream
 * thus fetches ever larger regions as a block fills up, while sparse or
 * random accesses stay at the pages they touch.  Pages outside managed
 * ranges, pages of read-mostly runs and pages that thrash are never
 * prefetched (the caller masks them out).
 *
 * prefetch (default on) and prefetch_threshold (default 51, as the real
 * driver's) can be changed at run time.
 *
 * Locking: none; it computes on masks the caller holds under the block lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/moduleparam.h>

#include "uvm_param.h"
#include "uvm_perf_prefetch.h"

#define UVM_PREFETCH_THRESHOLD_DEFAULT	51
#define UVM_PREFETCH_THRESHOLD_MIN	1
#define UVM_PREFETCH_THRESHOLD_MAX	100

static bool prefetch_on = true;
module_param_named(prefetch, prefetch_on, bool, 0644);
MODULE_PARM_DESC(prefetch, "Prefetch around GPU and CPU faults by page density (default Y)");

static struct uvm_param_uint prefetch_threshold = {
	.val = UVM_PREFETCH_THRESHOLD_DEFAULT,
	.min = UVM_PREFETCH_THRESHOLD_MIN,
	.max = UVM_PREFETCH_THRESHOLD_MAX,
};
module_param_cb(prefetch_threshold, &uvm_param_uint_ops, &prefetch_threshold, 0644);
MODULE_PARM_DESC(prefetch_threshold,
		 "Percent of a region resident or faulted above which it is prefetched whole (default "
		 __stringify(UVM_PREFETCH_THRESHOLD_DEFAULT) ", "
		 __stringify(UVM_PREFETCH_THRESHOLD_MIN) ".."
		 __stringify(UVM_PREFETCH_THRESHOLD_MAX) ")");

/**
 * uvm_prefetch_enabled() - is the prefetcher on?
 *
 * Return: the prefetch parameter.
 */
bool uvm_prefetch_enabled(void)
{
	return READ_ONCE(prefetch_on);
}

/**
 * region_weight() - set pages in an aligned power-of-two region
 * @m:		the mask
 * @start:	first page, a multiple of @size
 * @size:	pages, a power of two
 *
 * Return: the count.
 */
static u32 region_weight(const struct uvm_page_mask *m, u32 start, u32 size)
{
	if (size >= BITS_PER_LONG)
		return bitmap_weight(m->bits + start / BITS_PER_LONG, size);
	return hweight_long((m->bits[start / BITS_PER_LONG] >> (start % BITS_PER_LONG)) &
			    GENMASK(size - 1, 0));
}

/**
 * uvm_prefetch_region() - the pages to bring along with faulted ones
 * @resident:	pages already resident on the destination
 * @faulted:	pages faulted (or accessed) now
 * @allowed:	pages the prefetcher may add
 * @out:	out: pages to prefetch (never resident nor faulted)
 */
void uvm_prefetch_region(const struct uvm_page_mask *resident,
			 const struct uvm_page_mask *faulted,
			 const struct uvm_page_mask *allowed,
			 struct uvm_page_mask *out)
{
	u32 threshold = uvm_param_get(&prefetch_threshold);
	struct uvm_page_mask occupied;
	unsigned int page;
	u32 size, start, best_start, best_size;

	uvm_page_mask_zero(out);
	if (!READ_ONCE(prefetch_on) || threshold > UVM_PREFETCH_THRESHOLD_MAX)
		return;
	uvm_page_mask_or(&occupied, resident, faulted);

	for_each_page_in_mask(page, faulted) {
		if (uvm_page_mask_test(out, page))
			continue;	/* inside a region already chosen */
		best_size = 0;
		best_start = 0;
		for (size = 2; size <= UVM_PAGES_PER_BLOCK; size <<= 1) {
			start = page & ~(size - 1);
			if (region_weight(&occupied, start, size) * 100 > threshold * size) {
				best_start = start;
				best_size = size;
			}
		}
		if (best_size)
			bitmap_set(out->bits, best_start, best_size);
	}
	uvm_page_mask_and(out, out, allowed);
	uvm_page_mask_andnot(out, out, &occupied);
}
