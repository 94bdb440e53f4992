/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The ordered work queue of a VA space: asynchronous jobs and their fences.
 */
#ifndef _UVM_QUEUE_H_
#define _UVM_QUEUE_H_

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "uvm.h"

struct uvm_va_space;
struct uvm_job;

/**
 * struct uvm_job_ops - what a kind of job does
 * @run:	do the work; called with no lock held, may sleep; returns 0
 *		or -errno (recorded against the job's fence)
 * @free:	free the job
 */
struct uvm_job_ops {
	int (*run)(struct uvm_va_space *va_space, struct uvm_job *job);
	void (*free)(struct uvm_job *job);
};

/**
 * struct uvm_job - one unit of queued work, embedded in a kind's own job
 * @link:	in uvm_queue.jobs
 * @ops:	its kind
 * @fence:	assigned at submission
 * @weight:	its size (ranges, pages) for the queue's backpressure
 */
struct uvm_job {
	struct list_head link;
	const struct uvm_job_ops *ops;
	u64 fence;
	u64 weight;
};

/**
 * struct uvm_queue - the asynchronous jobs of one VA space
 * @lock:	protects @jobs, @submitted, @running, @pending, @cancelled; a
 *		leaf lock
 * @jobs:	jobs waiting to run, in submission order
 * @submitted:	last fence handed out
 * @running:	a job is executing (by @work or inline by a synchronous
 *		caller); jobs run one at a time in fence order
 * @completed:	last fence completed; published with smp_store_release()
 * @pending:	weight of the jobs not yet completed (backpressure)
 * @work:	runs the jobs one after the other
 * @wait:	woken when a job completes
 * @cancelled:	the file is being released: queued jobs are dropped, the
 *		running one stops at its next look (uvm_queue_should_stop());
 *		read without @lock
 * @errors:	fence -> -errno of the jobs that failed, until reported;
 *		the xarray's own lock; at most UVM_QUEUE_MAX_ERRORS entries
 * @nerrors:	entries in @errors
 * @folded_fence: the first failed fence whose error found @errors full, 0
 *		for none; @lock
 * @folded_errno: its -errno, reported to the first wait on it or a later
 *		fence (errors of later failed jobs fold into it); @lock
 * @times:	UVM_FENCE_TIMES_KEPT entries: the completion time
 *		(ktime_get_ns()) of fence f at f % UVM_FENCE_TIMES_KEPT, for
 *		the last UVM_FENCE_TIMES_KEPT fences completed; @lock
 */
struct uvm_queue {
	spinlock_t lock; /* see above */
	struct list_head jobs;
	u64 submitted;
	bool running;
	u64 completed;
	u64 pending;
	struct work_struct work;
	wait_queue_head_t wait;
	bool cancelled;
	struct xarray errors;
	atomic_t nerrors;
	u64 folded_fence;
	int folded_errno;
	u64 *times;
};

/* The driver's workqueue: jobs of VA spaces, deferred fault servicers. */
extern struct workqueue_struct *uvm_wq;

int uvm_queue_module_init(void);
void uvm_queue_module_exit(void);
int uvm_queue_init(struct uvm_queue *q);
void uvm_queue_drain(struct uvm_queue *q);
int uvm_queue_submit(struct uvm_queue *q, struct uvm_job *job, bool sync,
		     u64 *fence);
int uvm_queue_wait(struct uvm_queue *q, u64 fence, bool poll);
int uvm_queue_should_stop(struct uvm_queue *q);
int uvm_ioc_fence_wait(struct uvm_va_space *va_space, void *data);
int uvm_ioc_fence_time(struct uvm_va_space *va_space, void *data);

#endif /* _UVM_QUEUE_H_ */
