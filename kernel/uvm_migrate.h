/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Explicit migration: prefetch and discard batches, fences.
 */
#ifndef _UVM_MIGRATE_H_
#define _UVM_MIGRATE_H_

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

struct uvm_va_space;

/**
 * struct uvm_migrate_queue - the asynchronous batches of one VA space
 * @lock:	protects @jobs, @submitted, @running, @pending_ranges; a leaf
 *		lock
 * @jobs:	batches waiting to run, in submission order
 * @submitted:	last fence handed out
 * @running:	a job is executing (by @work or inline by a synchronous
 *		caller); jobs run one at a time in fence order
 * @completed:	last fence completed; published with smp_store_release()
 * @pending_ranges: ranges of the batches not yet completed (backpressure)
 * @work:	runs the batches one after the other
 * @wait:	woken when a batch completes
 * @errors:	fence -> -errno of the batches that failed, until reported;
 *		the xarray's own lock
 */
struct uvm_migrate_queue {
	spinlock_t lock;
	struct list_head jobs;
	u64 submitted;
	bool running;
	u64 completed;
	u64 pending_ranges;
	struct work_struct work;
	wait_queue_head_t wait;
	struct xarray errors;
};

void uvm_migrate_queue_init(struct uvm_migrate_queue *q);
void uvm_migrate_queue_drain(struct uvm_migrate_queue *q);
int uvm_ioc_migrate(struct uvm_va_space *va_space, void *data);
int uvm_ioc_fence_wait(struct uvm_va_space *va_space, void *data);

#endif /* _UVM_MIGRATE_H_ */
