/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Pinning user pages, counted.
 *
 * DOC: Pinned pages
 *
 * Every page the driver pins (registered host memory, the user side of a
 * copy) goes through these wrappers, which keep uvm_pinned_pages, shown in
 * /sys/class/misc/uvm/pinned_pages: the tests check that each pin is
 * released, which the kernel's global nr_foll_pin_* counters cannot tell
 * them where other subsystems (9p on 6.12, io_uring) pin pages too.
 */
#ifndef _UVM_PIN_H_
#define _UVM_PIN_H_

#include <linux/atomic.h>
#include <linux/mm.h>

extern atomic_long_t uvm_pinned_pages;

/**
 * uvm_pin_user_pages_fast() - pin_user_pages_fast(), counted
 * @start:	first address
 * @nr_pages:	pages wanted
 * @gup_flags:	FOLL_* flags
 * @pages:	the pinned pages
 *
 * Return: the number of pages pinned, or -errno.
 */
static inline long uvm_pin_user_pages_fast(unsigned long start, int nr_pages,
					   unsigned int gup_flags, struct page **pages)
{
	long pinned = pin_user_pages_fast(start, nr_pages, gup_flags, pages);

	if (pinned > 0)
		atomic_long_add(pinned, &uvm_pinned_pages);
	return pinned;
}

/**
 * uvm_unpin_user_pages() - unpin_user_pages(), counted
 * @pages:	pages pinned by uvm_pin_user_pages_fast()
 * @npages:	how many
 */
static inline void uvm_unpin_user_pages(struct page **pages, unsigned long npages)
{
	unpin_user_pages(pages, npages);
	atomic_long_sub(npages, &uvm_pinned_pages);
}

/**
 * uvm_unpin_user_pages_dirty_lock() - unpin_user_pages_dirty_lock(), counted
 * @pages:	pages pinned by uvm_pin_user_pages_fast()
 * @npages:	how many
 * @dirty:	mark them dirty first
 */
static inline void uvm_unpin_user_pages_dirty_lock(struct page **pages,
						   unsigned long npages, bool dirty)
{
	unpin_user_pages_dirty_lock(pages, npages, dirty);
	atomic_long_sub(npages, &uvm_pinned_pages);
}

#endif /* _UVM_PIN_H_ */
