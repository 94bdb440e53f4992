// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Thrashing detection and mitigation.
 *
 * DOC: Thrashing
 *
 * A page thrashes when accesses from different processors keep migrating
 * it back and forth.  Every access-driven migration of a page is noted with
 * its time; a page that migrates thrashing_threshold times, each within
 * thrashing_lapse_us of the previous one, is thrashing.  It is then pinned
 * to host memory for thrashing_pin_ms: accesses during the pin do not move
 * it, the GPUs map it remotely (system memory) and the CPU maps it locally,
 * so everybody proceeds at remote-access speed instead of migration speed.
 * A preferred location overrides the pin, as CUDA documents ("the page will
 * continue to thrash indefinitely"); read-mostly pages never thrash (they
 * are duplicated).  The prefetcher never adds pinned pages.  Counters:
 * UVM_COUNTER_THRASHING_DETECTED (pages found thrashing) and
 * UVM_COUNTER_THRASHING_PINNED (pages whose access was served by a pin).
 *
 * History is kept per block, allocated on the first migration of a page
 * that had already migrated; times are ktime in units of 2^14 ns, compared
 * wrap-safely.
 *
 * Locking: the block lock protects a block's history.
 */
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "uvm_thrash.h"
#include "uvm_va_block.h"
#include "uvm_va_space.h"

#define UVM_THRASH_UNIT_SHIFT		14	/* ~16.4 us */
#define UVM_THRASH_LAPSE_US_DEFAULT	2000
#define UVM_THRASH_THRESHOLD_DEFAULT	3
#define UVM_THRASH_PIN_MS_DEFAULT	300

static bool thrashing_on = true;
module_param_named(thrashing, thrashing_on, bool, 0644);
MODULE_PARM_DESC(thrashing, "Detect pages that thrash and pin them to host memory (default Y)");

static unsigned int thrashing_lapse_us = UVM_THRASH_LAPSE_US_DEFAULT;
module_param(thrashing_lapse_us, uint, 0644);
MODULE_PARM_DESC(thrashing_lapse_us,
		 "Migrations closer than this count towards thrashing (default "
		 __stringify(UVM_THRASH_LAPSE_US_DEFAULT) " us)");

static unsigned int thrashing_threshold = UVM_THRASH_THRESHOLD_DEFAULT;
module_param(thrashing_threshold, uint, 0644);
MODULE_PARM_DESC(thrashing_threshold,
		 "Close migrations after which a page is thrashing (default "
		 __stringify(UVM_THRASH_THRESHOLD_DEFAULT) ", 2..255)");

static unsigned int thrashing_pin_ms = UVM_THRASH_PIN_MS_DEFAULT;
module_param(thrashing_pin_ms, uint, 0644);
MODULE_PARM_DESC(thrashing_pin_ms,
		 "How long a thrashing page stays pinned to host memory (default "
		 __stringify(UVM_THRASH_PIN_MS_DEFAULT) " ms)");

static inline u32 uvm_thrash_now(void)
{
	return ktime_get_ns() >> UVM_THRASH_UNIT_SHIFT;
}

static inline u32 uvm_thrash_units(u64 ns)
{
	return min_t(u64, ns >> UVM_THRASH_UNIT_SHIFT, U32_MAX / 2);
}

/**
 * uvm_thrash_params_check() - validate the parameters at load
 *
 * Return: 0 or -EINVAL.
 */
int uvm_thrash_params_check(void)
{
	if (thrashing_threshold < 2 || thrashing_threshold > U8_MAX) {
		pr_err("uvm: thrashing_threshold=%u is outside 2..255\n",
		       thrashing_threshold);
		return -EINVAL;
	}
	return 0;
}

/**
 * uvm_thrash_note() - pages just migrated because of an access
 * @block:	the block; its lock held
 * @moved:	pages that moved from one processor to another
 */
void uvm_thrash_note(struct uvm_va_block *block, const struct uvm_page_mask *moved)
{
	u32 now = uvm_thrash_now();
	u32 lapse = uvm_thrash_units((u64)READ_ONCE(thrashing_lapse_us) * NSEC_PER_USEC);
	u32 pin = uvm_thrash_units((u64)READ_ONCE(thrashing_pin_ms) * NSEC_PER_MSEC);
	u32 threshold = READ_ONCE(thrashing_threshold);
	struct uvm_thrash *t = block->thrash;
	unsigned int page;
	u32 detected = 0;

	lockdep_assert_held(&block->lock);

	if (!READ_ONCE(thrashing_on) || uvm_page_mask_empty(moved))
		return;
	if (!t) {
		/* Best effort: without memory, no detection for this block. */
		t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!t)
			return;
		block->thrash = t;
	}
	for_each_page_in_mask(page, moved) {
		if (t->count[page] && (s32)(now - t->last[page]) <= (s32)lapse)
			t->count[page]++;
		else
			t->count[page] = 1;
		t->last[page] = now;
		if (t->count[page] >= threshold) {
			t->count[page] = 0;
			t->pinned_until[page] = now + pin;
			detected++;
		}
	}
	uvm_va_space_count(block->va_space, UVM_COUNTER_THRASHING_DETECTED, detected);
}

/**
 * uvm_thrash_pinned() - the pages of a mask pinned to host memory now
 * @block:	the block; its lock held
 * @mask:	pages
 * @out:	out: the pinned ones
 *
 * Return: true when @out is not empty.
 */
bool uvm_thrash_pinned(struct uvm_va_block *block, const struct uvm_page_mask *mask,
		       struct uvm_page_mask *out)
{
	struct uvm_thrash *t = block->thrash;
	u32 now = uvm_thrash_now();
	unsigned int page;

	uvm_page_mask_zero(out);
	if (!t || !READ_ONCE(thrashing_on))
		return false;
	for_each_page_in_mask(page, mask)
		if ((s32)(t->pinned_until[page] - now) > 0)
			uvm_page_mask_set(out, page);
	return !uvm_page_mask_empty(out);
}
