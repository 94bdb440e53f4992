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
 * at once and runs on a worker (uvm_wq); UVM_IOC_FENCE_WAIT waits
 * for a fence (killably) or polls it, and reports a failed job's error once.
 * A synchronous job runs in the caller when nothing is queued or running (no
 * hand-off), else it queues and the caller waits for its fence.
 *
 * The queued weight (ranges, pages) of a VA space is bounded
 * (UVM_QUEUE_MAX_PENDING); a submitter beyond it waits, killably, for room.
 *
 * Jobs run on the driver's own workqueue (uvm_wq), with the VA spaces'
 * deferred fault servicers, not on the kernel's shared ones: work that
 * waits as long as one process makes it (a fault on a file whose file
 * system does not answer) takes workers of that queue only.
 *
 * Long work stops early: every job looks, block by block or window by
 * window, at uvm_queue_should_stop(), which says stop when its synchronous
 * caller got a fatal signal, when the process owning the VA space is
 * exiting (a queued job runs in a worker, where no signal arrives), and
 * when the file is being released.  Release cancels the queue: jobs not yet
 * started are completed with -ECANCELED without running, the running one
 * stops at its next look, so release waits a bounded time however much
 * work was queued.
 *
 * Failed jobs' errors wait for their fence's wait in a table of at most
 * UVM_QUEUE_MAX_ERRORS entries per VA space (charged to the caller's
 * memory cgroup).  Past that a program that never waits for its failed
 * jobs gets one error for all the others: the first error not kept is
 * reported by the first wait on its fence or a later one, and the errors
 * of later jobs fold into it until it is.
 *
 * Each completion also records its time (CLOCK_MONOTONIC) in a ring of the
 * last UVM_FENCE_TIMES_KEPT fences, which UVM_IOC_FENCE_TIME reads: CUDA
 * events time the work between them with it (cuEventElapsedTime), a fence
 * completing when its job did, not when somebody looked.
 *
 * Locking: uvm_queue.lock (spinlock, leaf) protects the job list, the fence
 * counter, the running flag, the pending weight and the completion times;
 * completion is published with smp_store_release() and read with
 * smp_load_acquire().
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "uvm.h"
#include "uvm_queue.h"
#include "uvm_va_space.h"

/* Weight queued per VA space before submitters wait. */
#define UVM_QUEUE_MAX_PENDING	(4ULL * UVM_MIGRATE_MAX_RANGES)

/* Errors of failed jobs kept per VA space until their fence is waited for. */
#define UVM_QUEUE_MAX_ERRORS	1024

static inline struct uvm_va_space *queue_va_space(struct uvm_queue *q)
{
	return container_of(q, struct uvm_va_space, queue);
}

/**
 * uvm_queue_record_error() - keep the error of a failed job for its wait
 * @q:		the queue
 * @fence:	the job's fence, not yet published as completed
 * @ret:	its -errno
 *
 * Into the table while it has room (and memory), else folded into the
 * first error not kept.
 */
static void uvm_queue_record_error(struct uvm_queue *q, u64 fence, int ret)
{
	if (atomic_read(&q->nerrors) < UVM_QUEUE_MAX_ERRORS &&
	    !xa_is_err(xa_store(&q->errors, fence, xa_mk_value(-ret), GFP_KERNEL_ACCOUNT))) {
		atomic_inc(&q->nerrors);
		return;
	}
	spin_lock(&q->lock);
	if (!q->folded_fence) {
		q->folded_fence = fence;
		q->folded_errno = ret;
	}
	spin_unlock(&q->lock);
}

/**
 * uvm_queue_take_error() - the error a wait for a completed fence reports
 * @q:		the queue
 * @fence:	the fence
 *
 * Return: 0 or the -errno, which is then forgotten.
 */
static int uvm_queue_take_error(struct uvm_queue *q, u64 fence)
{
	void *err = xa_erase(&q->errors, fence);
	int ret = 0;

	if (err) {
		atomic_dec(&q->nerrors);
		return -(int)xa_to_value(err);
	}
	spin_lock(&q->lock);
	if (q->folded_fence && q->folded_fence <= fence) {
		ret = q->folded_errno;
		q->folded_fence = 0;
	}
	spin_unlock(&q->lock);
	return ret;
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

	/* a cancelled queue's errors have nobody left to wait for them */
	if (ret && !READ_ONCE(q->cancelled))
		uvm_queue_record_error(q, fence, ret);

	job->ops->free(job);
	/*
	 * Publish the completion before another job may run: with running
	 * still set nobody else completes a fence, so completed never goes
	 * backwards.
	 */
	spin_lock(&q->lock);
	q->pending -= weight;
	q->times[fence % UVM_FENCE_TIMES_KEPT] = ktime_get_ns();
	/* Pairs with smp_load_acquire() in waiters: the job's effects first. */
	smp_store_release(&q->completed, fence);
	q->running = false;
	spin_unlock(&q->lock);
	wake_up_all(&q->wait);
}

static void uvm_queue_run(struct uvm_queue *q, struct uvm_job *job)
{
	struct uvm_va_space *va_space = queue_va_space(q);
	struct mem_cgroup *old;
	int ret = -ECANCELED;

	/* a worker is charged to nobody: the job's memory is the owner's */
	if (!READ_ONCE(q->cancelled)) {
		old = uvm_va_space_charge_begin(va_space);
		ret = job->ops->run(va_space, job);
		uvm_va_space_charge_end(old);
	}
	uvm_queue_complete(q, job, ret);
}

/**
 * uvm_queue_should_stop() - must the job running now stop?
 * @q:		the queue of the job
 *
 * Asked by every job between two pieces of its work (a block, a window of
 * a copy).
 *
 * Return: 0 to go on; -EINTR when the caller running the job got a fatal
 * signal; -ECANCELED when the file is being released or the process that
 * owns the VA space is exiting or gone.
 */
int uvm_queue_should_stop(struct uvm_queue *q)
{
	if (fatal_signal_pending(current))
		return -EINTR;
	if (READ_ONCE(q->cancelled) || uvm_va_space_owner_exiting(queue_va_space(q)))
		return -ECANCELED;
	return 0;
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
		queue_work(uvm_wq, &q->work);
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
	if (poll) {
		if (!uvm_queue_done(q, fence))
			return -EAGAIN;
	} else if (wait_event_killable(q->wait, uvm_queue_done(q, fence))) {
		return -EINTR;
	}
	return uvm_queue_take_error(q, fence);
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
 * uvm_ioc_fence_time() - UVM_IOC_FENCE_TIME
 * @va_space:	the VA space
 * @data:	struct uvm_ioc_fence_time
 *
 * Fences complete in order, so the times of the last UVM_FENCE_TIMES_KEPT
 * completed ones are all in @times.
 *
 * Return: see the uapi.
 */
int uvm_ioc_fence_time(struct uvm_va_space *va_space, void *data)
{
	struct uvm_ioc_fence_time *args = data;
	struct uvm_queue *q = &va_space->queue;
	u64 fence = args->fence;
	int ret = 0;

	if (!fence || memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	spin_lock(&q->lock);
	if (fence > q->submitted)
		ret = -EINVAL;
	else if (fence > q->completed)
		ret = -EAGAIN;
	else if (q->completed - fence >= UVM_FENCE_TIMES_KEPT)
		ret = -ENOENT;
	else
		args->completed_ns = q->times[fence % UVM_FENCE_TIMES_KEPT];
	spin_unlock(&q->lock);
	return ret;
}

struct workqueue_struct *uvm_wq;

/**
 * uvm_queue_module_init() - create the driver's workqueue (uvm_wq)
 *
 * Return: 0 or -ENOMEM.
 */
int uvm_queue_module_init(void)
{
	uvm_wq = alloc_workqueue("uvm", WQ_UNBOUND, 0);
	return uvm_wq ? 0 : -ENOMEM;
}

/**
 * uvm_queue_module_exit() - drain and free the driver's workqueue
 *
 * No VA space is left (every file was released, each flushed its work).
 */
void uvm_queue_module_exit(void)
{
	destroy_workqueue(uvm_wq);
}

/**
 * uvm_queue_init() - set up the queue of a new VA space
 * @q:		the queue
 *
 * Return: 0 or -ENOMEM (nothing to undo).
 */
int uvm_queue_init(struct uvm_queue *q)
{
	/* the VA space's opener's, as the VA space itself */
	q->times = kcalloc(UVM_FENCE_TIMES_KEPT, sizeof(*q->times), GFP_KERNEL_ACCOUNT);
	if (!q->times)
		return -ENOMEM;
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->jobs);
	INIT_WORK(&q->work, uvm_queue_work);
	init_waitqueue_head(&q->wait);
	xa_init_flags(&q->errors, XA_FLAGS_ACCOUNT);
	return 0;
}

/**
 * uvm_queue_drain() - end every job of a VA space being released
 * @q:		the queue
 *
 * Cancels the queue: the jobs not started complete with -ECANCELED, the
 * running one stops at its next look at uvm_queue_should_stop().  The wait
 * is uninterruptible, and bounded by one piece of a job's work.
 */
void uvm_queue_drain(struct uvm_queue *q)
{
	spin_lock(&q->lock);
	q->cancelled = true;
	spin_unlock(&q->lock);
	/* a job waiting on the queue (the test gate) looks again */
	wake_up_all(&q->wait);
	flush_work(&q->work);
	WARN_ON(!list_empty(&q->jobs) || q->running);
	xa_destroy(&q->errors);
	/* nothing completes any more, and no ioctl reads them */
	kfree(q->times);
	q->times = NULL;
}
