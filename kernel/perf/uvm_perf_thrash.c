// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Thrashing detection and mitigation.
 *
 * DOC: Thrashing
 *
 * A page thrashes when accesses from different processors keep migrating
 * it back and forth.  Every access-driven migration of a page is noted with
 * its time; a page that migrates thrashing_threshold times, each within
 * thrashing_lapse_us of the previous one, is thrashing: it is hot for
 * thrashing_pin_ms, and mitigated in one of two ways during that window:
 *
 * - pinning (thrashing_pin=Y, the default): accesses do not move it; it
 *   stays in host memory, the GPUs map it remotely (system memory) and the
 *   CPU maps it locally, so everybody proceeds at remote-access speed
 *   instead of migration speed;
 * - throttling (thrashing_pin=N, and always where a preferred location
 *   overrides the pin, as CUDA documents: "the page will continue to
 *   thrash indefinitely"): the page still moves, but the processors that
 *   fault on it are slowed down.  A CPU thread sleeps thrashing_nap_us
 *   (killable) after its fault is served; a GPU fault on the page is
 *   served at most once per thrashing_nap_us, other faults on it wait
 *   (stalled, they fault again after the replay), as the real driver
 *   throttles.
 *
 * Read-mostly pages never thrash (they are duplicated).  The prefetcher
 * never adds hot pages.  Counters: UVM_COUNTER_THRASHING_DETECTED (pages
 * found thrashing), UVM_COUNTER_THRASHING_PINNED (accesses served by a
 * pin) and UVM_COUNTER_THRASHING_THROTTLED (accesses delayed: CPU naps and
 * GPU faults held back).
 *
 * History is kept per block (2.5 KiB), allocated on the block's first
 * access-driven migration; the mitigation windows (8 KiB) only when one of
 * its pages is first found thrashing.  Migration times are ktime in units
 * of 2^14 ns, compared wrap-safely; the ends of windows are ktime in ns.
 *
 * Locking: the block lock protects a block's history.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "uvm_events.h"
#include "uvm_param.h"
#include "uvm_perf_thrash.h"
#include "uvm_va_block.h"
#include "uvm_va_space.h"

#define UVM_THRASH_UNIT_SHIFT		14	/* ~16.4 us */
#define UVM_THRASH_LAPSE_US_DEFAULT	2000
#define UVM_THRASH_LAPSE_US_MIN		1
#define UVM_THRASH_LAPSE_US_MAX		(60 * USEC_PER_SEC)
#define UVM_THRASH_THRESHOLD_DEFAULT	3
#define UVM_THRASH_THRESHOLD_MIN	2
#define UVM_THRASH_THRESHOLD_MAX	U8_MAX
#define UVM_THRASH_PIN_MS_DEFAULT	300
#define UVM_THRASH_PIN_MS_MIN		1
#define UVM_THRASH_PIN_MS_MAX		(3600 * MSEC_PER_SEC)
#define UVM_THRASH_NAP_US_DEFAULT	1000
#define UVM_THRASH_NAP_US_MAX		(100 * USEC_PER_MSEC)

static bool thrashing_on = true;
module_param_named(thrashing, thrashing_on, bool, 0644);
MODULE_PARM_DESC(thrashing, "Detect pages that thrash and pin them to host memory (default Y)");

static struct uvm_param_uint thrashing_lapse_us = {
	.val = UVM_THRASH_LAPSE_US_DEFAULT,
	.min = UVM_THRASH_LAPSE_US_MIN,
	.max = UVM_THRASH_LAPSE_US_MAX,
};
module_param_cb(thrashing_lapse_us, &uvm_param_uint_ops, &thrashing_lapse_us, 0644);
MODULE_PARM_DESC(thrashing_lapse_us,
		 "Migrations closer than this count towards thrashing (default "
		 __stringify(UVM_THRASH_LAPSE_US_DEFAULT) " us, 1..60000000)");

static struct uvm_param_uint thrashing_threshold = {
	.val = UVM_THRASH_THRESHOLD_DEFAULT,
	.min = UVM_THRASH_THRESHOLD_MIN,
	.max = UVM_THRASH_THRESHOLD_MAX,
};
module_param_cb(thrashing_threshold, &uvm_param_uint_ops, &thrashing_threshold, 0644);
MODULE_PARM_DESC(thrashing_threshold,
		 "Close migrations after which a page is thrashing (default "
		 __stringify(UVM_THRASH_THRESHOLD_DEFAULT) ", 2..255)");

static struct uvm_param_uint thrashing_pin_ms = {
	.val = UVM_THRASH_PIN_MS_DEFAULT,
	.min = UVM_THRASH_PIN_MS_MIN,
	.max = UVM_THRASH_PIN_MS_MAX,
};
module_param_cb(thrashing_pin_ms, &uvm_param_uint_ops, &thrashing_pin_ms, 0644);
MODULE_PARM_DESC(thrashing_pin_ms,
		 "How long a thrashing page stays pinned to host memory, or throttled (default "
		 __stringify(UVM_THRASH_PIN_MS_DEFAULT) " ms, 1..3600000)");

static bool thrashing_pin = true;
module_param(thrashing_pin, bool, 0644);
MODULE_PARM_DESC(thrashing_pin,
		 "Mitigate thrashing by pinning pages to host memory (Y, default) or by throttling the faulting processors (N)");

static struct uvm_param_uint thrashing_nap_us = {
	.val = UVM_THRASH_NAP_US_DEFAULT,
	.min = 0,
	.max = UVM_THRASH_NAP_US_MAX,
};
module_param_cb(thrashing_nap_us, &uvm_param_uint_ops, &thrashing_nap_us, 0644);
MODULE_PARM_DESC(thrashing_nap_us,
		 "Throttling: CPU faults on a thrashing page sleep, GPU faults on it are served at most once, per this long (default "
		 __stringify(UVM_THRASH_NAP_US_DEFAULT) " us, 0..100000)");

static inline u32 uvm_thrash_now(void)
{
	return ktime_get_ns() >> UVM_THRASH_UNIT_SHIFT;
}

static inline u32 uvm_thrash_units(u64 ns)
{
	return min_t(u64, ns >> UVM_THRASH_UNIT_SHIFT, U32_MAX / 2);
}

/**
 * uvm_thrash_note() - pages just migrated because of an access
 * @block:	the block; its lock held
 * @moved:	pages that moved from one processor to another
 */
void uvm_thrash_note(struct uvm_va_block *block, const struct uvm_page_mask *moved)
{
	u32 now = uvm_thrash_now();
	u32 lapse = uvm_thrash_units((u64)uvm_param_get(&thrashing_lapse_us) * NSEC_PER_USEC);
	u64 pin = (u64)uvm_param_get(&thrashing_pin_ms) * NSEC_PER_MSEC;
	u32 threshold = uvm_param_get(&thrashing_threshold);
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
		if (t->count[page] < threshold)
			continue;
		t->count[page] = 0;
		detected++;
		if (!t->hot) {
			/* Best effort: without memory, detection only. */
			t->hot = kzalloc(sizeof(*t->hot), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
			if (!t->hot)
				continue;
		}
		t->hot->until[page] = ktime_get_ns() + pin;
	}
	uvm_va_space_count(block->va_space, UVM_COUNTER_THRASHING_DETECTED, detected);
	uvm_event_thrashing(block->va_space, block->start, UVM_NL_THRASHING_DETECTED,
			    detected);
}

/**
 * uvm_thrash_free() - free a block's history
 * @t:		the history, or NULL
 */
void uvm_thrash_free(struct uvm_thrash *t)
{
	if (t)
		kfree(t->hot);
	kfree(t);
}

/* Hot pages are pinned, unless throttling is asked for or @pref overrides. */
static inline bool uvm_thrash_pins(bool pref)
{
	return !pref && READ_ONCE(thrashing_pin);
}

/**
 * uvm_thrash_hot() - the pages of a mask in their thrashing window now
 * @block:	the block; its lock held
 * @mask:	pages
 * @out:	out: the hot ones
 *
 * Return: true when @out is not empty.
 */
bool uvm_thrash_hot(struct uvm_va_block *block, const struct uvm_page_mask *mask,
		    struct uvm_page_mask *out)
{
	struct uvm_thrash *t = block->thrash;
	unsigned int page;
	u64 now;

	uvm_page_mask_zero(out);
	if (!t || !t->hot || !READ_ONCE(thrashing_on))
		return false;
	now = ktime_get_ns();
	for_each_page_in_mask(page, mask)
		if (t->hot->until[page] > now)
			uvm_page_mask_set(out, page);
	return !uvm_page_mask_empty(out);
}

/**
 * uvm_thrash_pinned() - the pages of a mask pinned to host memory now
 * @block:	the block; its lock held
 * @pref:	the pages have a preferred location (which overrides pins)
 * @mask:	pages
 * @out:	out: the pinned ones
 *
 * Return: true when @out is not empty.
 */
bool uvm_thrash_pinned(struct uvm_va_block *block, bool pref,
		       const struct uvm_page_mask *mask, struct uvm_page_mask *out)
{
	if (!uvm_thrash_pins(pref)) {
		uvm_page_mask_zero(out);
		return false;
	}
	return uvm_thrash_hot(block, mask, out);
}

/**
 * uvm_thrash_throttle_gpu() - hold back GPU faults on throttled pages
 * @block:	the block; its lock held
 * @pref:	the pages have a preferred location
 * @mask:	faulted pages
 * @held:	out, set when true is returned: the pages not to serve now
 *		(served less than thrashing_nap_us ago); the others of @mask
 *		that are throttled are served now and start a new nap
 *
 * Return: true when @held is not empty.
 */
bool uvm_thrash_throttle_gpu(struct uvm_va_block *block, bool pref,
			     const struct uvm_page_mask *mask,
			     struct uvm_page_mask *held)
{
	u64 nap = (u64)uvm_param_get(&thrashing_nap_us) * NSEC_PER_USEC;
	struct uvm_page_mask hot;
	struct uvm_thrash *t;
	unsigned int page;
	u64 now;

	if (!nap || uvm_thrash_pins(pref) || !uvm_thrash_hot(block, mask, &hot))
		return false;
	uvm_page_mask_zero(held);
	t = block->thrash;
	now = ktime_get_ns();
	for_each_page_in_mask(page, &hot) {
		if (t->hot->next_service[page] > now)
			uvm_page_mask_set(held, page);
		else
			t->hot->next_service[page] = now + nap;
	}
	uvm_va_space_count(block->va_space, UVM_COUNTER_THRASHING_THROTTLED,
			   uvm_page_mask_weight(held));
	uvm_event_thrashing(block->va_space, block->start, UVM_NL_THRASHING_THROTTLED,
			    uvm_page_mask_weight(held));
	return !uvm_page_mask_empty(held);
}

/**
 * uvm_thrash_throttle_cpu() - must a CPU fault on a page be throttled?
 * @block:	the block; its lock held
 * @pref:	the page has a preferred location
 * @page:	page index
 *
 * Counts the throttling; the caller naps with uvm_thrash_nap() once it has
 * dropped its locks.
 *
 * Return: true to nap.
 */
bool uvm_thrash_throttle_cpu(struct uvm_va_block *block, bool pref, u32 page)
{
	const struct uvm_thrash *t = block->thrash;

	/* Every CPU fault asks: answer without building masks. */
	if (!t || !t->hot || !READ_ONCE(thrashing_on) || !uvm_param_get(&thrashing_nap_us) ||
	    uvm_thrash_pins(pref) || t->hot->until[page] <= ktime_get_ns())
		return false;
	uvm_va_space_count(block->va_space, UVM_COUNTER_THRASHING_THROTTLED, 1);
	uvm_event_thrashing(block->va_space, block->start, UVM_NL_THRASHING_THROTTLED, 1);
	return true;
}

/**
 * uvm_thrash_nap() - sleep thrashing_nap_us, killable
 *
 * Context: process, no spinlock, no block or VA space lock held.
 */
void uvm_thrash_nap(void)
{
	unsigned long us = min_t(unsigned long, uvm_param_get(&thrashing_nap_us),
				 UVM_THRASH_NAP_US_MAX);

	if (us)
		usleep_range_state(us, us + us / 4, TASK_KILLABLE);
}
