// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The ordered work queue of a VA space: asynchronous jobs and their fences.
 *
 * DOC: Fences
 *
 * Migration batches, copies and memsets become jobs.  Each job gets the next
 * fence of its VA space when submitted, and jobs run one at a time in fence
 * order, so a completed fence implies every earlier one completed: libuvm
 * builds CUDA stream order on that.  An asynchronous job returns its fence
 * at once and runs on a worker (system_unbound_wq); UVM_IOC_FENCE_WAIT waits
 * for a fence (killably) or polls it, and reports a failed job's error once.
 * A synchronous job runs in the caller when nothing is queued or running (no
 * hand-off), else it queues and the caller waits for its fence.
 *
 * The queued weight (ranges, pages) of a VA space is bounded
 * (UVM_QUEUE_MAX_PENDING); a submitter beyond it waits, killably, for room.
 * When the file is released the queue is drained: queued jobs still run
 * (their memory may be gone: they skip it).
 *
 * Locking: uvm_queue.lock (spinlock, leaf) protects the job list, the fence
 * counter, the running flag and the pending weight; completion is published
 * with smp_store_release() and read with smp_load_acquire().
 */
#include <linux/sched/signal.h>

#include "uvm.h"
#include "uvm_queue.h"
#include "uvm_va_space.h"

/* Weight queued per VA space before submitters wait. */
#define UVM_QUEUE_MAX_PENDING	(4ULL * UVM_MIGRATE_MAX_RANGES)

static inline struct uvm_va_space *queue_va_space(struct uvm_queue *q)
{
	return container_of(q, struct uvm_va_space, queue);
}

/**
 * uvm_queue_complete() - publish a job's completion
 * @q:		the queue
 * @job:	the job, run; freed here
 * @ret:	its result
 */
static void uvm_queue_complete(struct uvm_queue *q, struct uvm_job *job, int ret)
{
	u64 fence = job->fence, weight = job->weight;

	/* An error that cannot be recorded is lost; the data is not. */
	if (ret)
		xa_store(&q->errors, fence, xa_mk_value(-ret), GFP_KERNEL);

	job->ops->free(job);
	/*
	 * Publish the completion before another job may run: with running
	 * still set nobody else completes a fence, so completed never goes
	 * backwards.
	 */
	spin_lock(&q->lock);
	q->pending -= weight;
	/* Pairs with smp_load_acquire() in waiters: the job's effects first. */
	smp_store_release(&q->completed, fence);
	q->running = false;
	spin_unlock(&q->lock);
	wake_up_all(&q->wait);
}

static void uvm_queue_run(struct uvm_queue *q, struct uvm_job *job)
{
	uvm_queue_complete(q, job, job->ops->run(queue_va_space(q), job));
}

/**
 * uvm_queue_work() - run the queued jobs in fence order
 * @work:	uvm_queue.work
 *
 * Stops when the queue is empty or a synchronous caller is running a job
 * itself (it requeues the work when done).
 */
static void uvm_queue_work(struct work_struct *work)
{
	struct uvm_queue *q = container_of(work, struct uvm_queue, work);
	struct uvm_job *job;

	for (;;) {
		spin_lock(&q->lock);
		job = q->running ? NULL :
		      list_first_entry_or_null(&q->jobs, struct uvm_job, link);
		if (job) {
			list_del(&job->link);
			q->running = true;
		}
		spin_unlock(&q->lock);
		if (!job)
			return;
		uvm_queue_run(q, job);
	}
}

/**
 * uvm_queue_submit() - give a job its fence and run or queue it
 * @q:		the queue
 * @job:	the job, validated; owned by the queue afterwards
 * @sync:	the caller will wait: run it here if nothing else is queued
 * @fence:	out: the job's fence
 *
 * Return: 0, or -EINTR when a fatal signal came while waiting for room (the
 * job is freed, nothing ran).
 */
int uvm_queue_submit(struct uvm_queue *q, struct uvm_job *job, bool sync,
		     u64 *fence)
{
	bool inline_run = false;

	if (wait_event_killable(q->wait, READ_ONCE(q->pending) == 0 ||
				READ_ONCE(q->pending) + job->weight <=
				UVM_QUEUE_MAX_PENDING)) {
		job->ops->free(job);
		return -EINTR;
	}

	spin_lock(&q->lock);
	job->fence = ++q->submitted;
	q->pending += job->weight;
	if (sync && !q->running && list_empty(&q->jobs)) {
		q->running = true;
		inline_run = true;
	} else {
		list_add_tail(&job->link, &q->jobs);
	}
	*fence = job->fence;
	spin_unlock(&q->lock);

	if (inline_run)
		uvm_queue_run(q, job);
	/* Queued jobs, or jobs that arrived while this one ran inline. */
	if (!list_empty_careful(&q->jobs))
		queue_work(system_unbound_wq, &q->work);
	return 0;
}

/**
 * uvm_queue_done() - has a fence completed?
 * @q:		the queue
 * @fence:	the fence
 *
 * Return: true when @fence and every earlier fence completed.
 */
static bool uvm_queue_done(struct uvm_queue *q, u64 fence)
{
	/* Pairs with smp_store_release() in uvm_queue_complete(). */
	return smp_load_acquire(&q->completed) >= fence;
}

/**
 * uvm_queue_wait() - wait for a fence and collect its error
 * @q:		the queue
 * @fence:	a fence handed out
 * @poll:	do not wait
 *
 * Return: 0, the job's -errno (once), -EAGAIN when polling a pending
 * fence, -EINTR on a fatal signal.
 */
int uvm_queue_wait(struct uvm_queue *q, u64 fence, bool poll)
{
	void *err;

	if (poll) {
		if (!uvm_queue_done(q, fence))
			return -EAGAIN;
	} else if (wait_event_killable(q->wait, uvm_queue_done(q, fence))) {
		return -EINTR;
	}
	err = xa_erase(&q->errors, fence);
	return err ? -(int)xa_to_value(err) : 0;
}

/**
 * uvm_ioc_fence_wait() - UVM_IOC_FENCE_WAIT
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_fence_wait
 *
 * Return: see the uapi.
 */
int uvm_ioc_fence_wait(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_fence_wait *args = data;
	struct uvm_queue *q = &va_space->queue;
	u64 fence = args->fence;
	int ret;

	if ((args->flags & ~UVM_FENCE_WAIT_POLL) || args->pad)
		return -EINVAL;
	spin_lock(&q->lock);
	if (!fence)
		fence = q->submitted;
	ret = fence > q->submitted ? -EINVAL : 0;
	spin_unlock(&q->lock);
	if (ret)
		return ret;

	ret = uvm_queue_wait(q, fence, args->flags & UVM_FENCE_WAIT_POLL);
	/* Pairs with smp_store_release() in uvm_queue_complete(). */
	args->completed = smp_load_acquire(&q->completed);
	return ret;
}

/**
 * uvm_queue_init() - set up the queue of a new VA space
 * @q:		the queue
 */
void uvm_queue_init(struct uvm_queue *q)
{
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->jobs);
	INIT_WORK(&q->work, uvm_queue_work);
	init_waitqueue_head(&q->wait);
	xa_init(&q->errors);
}

/**
 * uvm_queue_drain() - finish every job of a VA space being released
 * @q:		the queue
 *
 * The wait is uninterruptible and bounded by the queued work.
 */
void uvm_queue_drain(struct uvm_queue *q)
{
	flush_work(&q->work);
	WARN_ON(!list_empty(&q->jobs) || q->running);
	xa_destroy(&q->errors);
}
