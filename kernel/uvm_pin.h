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
 *
 * Long-term pins (registered host memory) are charged to the process, as
 * RDMA charges memory registrations: mm->pinned_vm, bounded by
 * RLIMIT_MEMLOCK unless the caller has CAP_IPC_LOCK (uvm_pin_charge()).
 * The pins of a copy are I/O in flight, as an O_DIRECT read's are: they
 * last while the job is queued or running, bounded by the queue's weight
 * (uvm_queue.c), and are not charged.
 */
#ifndef _UVM_PIN_H_
#define _UVM_PIN_H_

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>

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

/**
 * uvm_pin_charge() - charge long-term pins to a process
 * @mm:		the process's mm (the caller's)
 * @npages:	pages about to be pinned
 *
 * Return: 0, or -ENOMEM when the process's pins would exceed the caller's
 * RLIMIT_MEMLOCK and it lacks CAP_IPC_LOCK (nothing is charged then).
 */
static inline int uvm_pin_charge(struct mm_struct *mm, unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	s64 pinned = atomic64_add_return(npages, &mm->pinned_vm);

	if ((u64)pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	return 0;
}

/**
 * uvm_pin_uncharge() - give back what uvm_pin_charge() charged
 * @mm:		the mm charged
 * @npages:	pages
 */
static inline void uvm_pin_uncharge(struct mm_struct *mm, unsigned long npages)
{
	atomic64_sub(npages, &mm->pinned_vm);
}

#endif /* _UVM_PIN_H_ */
