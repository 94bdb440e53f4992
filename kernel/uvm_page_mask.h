/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Sets of pages of one VA block.
 */
#ifndef _UVM_PAGE_MASK_H_
#define _UVM_PAGE_MASK_H_

#include <linux/bitmap.h>
#include <linux/mm.h>

#include "uvm.h"

#define UVM_PAGES_PER_BLOCK	(UVM_VA_BLOCK_SIZE >> PAGE_SHIFT)

/* A set of pages of one block, by page index. */
struct uvm_page_mask {
	DECLARE_BITMAP(bits, UVM_PAGES_PER_BLOCK);
};

static inline void uvm_page_mask_zero(struct uvm_page_mask *m)
{
	bitmap_zero(m->bits, UVM_PAGES_PER_BLOCK);
}

static inline bool uvm_page_mask_empty(const struct uvm_page_mask *m)
{
	return bitmap_empty(m->bits, UVM_PAGES_PER_BLOCK);
}

static inline u32 uvm_page_mask_weight(const struct uvm_page_mask *m)
{
	return bitmap_weight(m->bits, UVM_PAGES_PER_BLOCK);
}

static inline bool uvm_page_mask_test(const struct uvm_page_mask *m, u32 page)
{
	return test_bit(page, m->bits);
}

static inline void uvm_page_mask_set(struct uvm_page_mask *m, u32 page)
{
	__set_bit(page, m->bits);
}

static inline void uvm_page_mask_clear(struct uvm_page_mask *m, u32 page)
{
	__clear_bit(page, m->bits);
}

/* Set pages [first, end), end > first; one word's run without a call. */
static inline void uvm_page_mask_set_range(struct uvm_page_mask *m, u32 first, u32 end)
{
	if (BIT_WORD(first) == BIT_WORD(end - 1))
		m->bits[BIT_WORD(first)] |= BITMAP_FIRST_WORD_MASK(first) &
					    BITMAP_LAST_WORD_MASK(end);
	else
		bitmap_set(m->bits, first, end - first);
}

/* Pages [first, end) */
static inline void uvm_page_mask_fill(struct uvm_page_mask *m, u32 first, u32 end)
{
	bitmap_zero(m->bits, UVM_PAGES_PER_BLOCK);
	bitmap_set(m->bits, first, end - first);
}

static inline bool uvm_page_mask_and(struct uvm_page_mask *dst,
				     const struct uvm_page_mask *a,
				     const struct uvm_page_mask *b)
{
	return bitmap_and(dst->bits, a->bits, b->bits, UVM_PAGES_PER_BLOCK);
}

static inline bool uvm_page_mask_andnot(struct uvm_page_mask *dst,
					const struct uvm_page_mask *a,
					const struct uvm_page_mask *b)
{
	return bitmap_andnot(dst->bits, a->bits, b->bits, UVM_PAGES_PER_BLOCK);
}

static inline void uvm_page_mask_or(struct uvm_page_mask *dst,
				    const struct uvm_page_mask *a,
				    const struct uvm_page_mask *b)
{
	bitmap_or(dst->bits, a->bits, b->bits, UVM_PAGES_PER_BLOCK);
}

static inline bool uvm_page_mask_intersects(const struct uvm_page_mask *a,
					    const struct uvm_page_mask *b)
{
	return bitmap_intersects(a->bits, b->bits, UVM_PAGES_PER_BLOCK);
}

#define for_each_page_in_mask(page, mask) \
	for_each_set_bit(page, (mask)->bits, UVM_PAGES_PER_BLOCK)

#define for_each_page_run_in_mask(first, end, mask) \
	for_each_set_bitrange(first, end, (mask)->bits, UVM_PAGES_PER_BLOCK)

#endif /* _UVM_PAGE_MASK_H_ */
