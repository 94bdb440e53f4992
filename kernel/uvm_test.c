// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Test and simulation ioctls (uvm_test.h).
 *
 * DOC: Test ioctls
 *
 * Built only with CONFIG_UVM_TEST.  Three commands, dispatched from their
 * own table (numbers 0x80 and up), never from the production one:
 *
 * - UVM_TEST_IOC_LAUNCH runs an access program on a simulated GPU in the
 *   caller's VA space (the simulated backend does the work, see
 *   simgpu/simgpu_launch.c);
 * - UVM_TEST_IOC_RESIDENCY reports, per page, where a page is resident and
 *   which processors map it with which permission;
 * - UVM_TEST_IOC_QUEUE_GATE holds the VA space's job queue: a gate is a job
 *   that runs until the gates are opened, so a test can change memory
 *   between the ioctl that queued a job and the job running.
 *
 * Locking: RESIDENCY reads managed memory through uvm_va_space_residency()
 * (the VA space lock for read, each block's lock in turn; the netlink
 * family's GET_RESIDENCY uses the same), and copies to userspace after
 * dropping them.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "simgpu/simgpu.h"
#include "uvm_gpu.h"
#include "uvm_hmm.h"
#include "uvm_hmm_policy.h"
#include "uvm_ioctl.h"
#include "uvm_test_ioctl.h"
#include "uvm_queue.h"
#include "uvm_test.h"
#include "uvm_va_block.h"
#include "uvm_va_range.h"
#include "uvm_va_space.h"

static_assert(sizeof(struct uvm_test_gpu_op) == 80);
static_assert(sizeof(struct uvm_test_launch) == 80);
static_assert(sizeof(struct uvm_test_page_state) == 32);
static_assert(sizeof(struct uvm_test_residency) == 32);
static_assert(sizeof(struct uvm_test_page_state_sizes) == 48);
static_assert(sizeof(struct uvm_test_queue_gate) == 32);

#define UVM_TEST_RESIDENCY_FLAGS (UVM_TEST_RESIDENCY_PAGEABLE | \
				  UVM_TEST_RESIDENCY_PTE_SIZES)

static int uvm_test_launch(struct uvm_va_space *va_space, void *data)
{
	struct uvm_test_launch *args = data;
	struct uvm_gpu *gpu;

	if (args->flags || memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	gpu = uvm_gpu_get(args->gpu_index);
	if (!gpu)
		return -ENODEV;
	return simgpu_test_launch(uvm_va_space_gpu_va_space(va_space, gpu), args);
}

/**
 * uvm_test_residency_pageable() - the state of the pages in no allocation
 * @va_space:	the VA space
 * @start:	first page address
 * @npages:	pages
 * @states:	out, @npages entries; only pages in no allocation are written
 *
 * Return: 0 or -errno.
 */
static int uvm_test_residency_pageable(struct uvm_va_space *va_space, u64 start,
				       u64 npages, struct uvm_test_page_state *states)
{
	unsigned long *pageable, i, end;
	int ret = 0;

	pageable = bitmap_zalloc(npages, GFP_KERNEL_ACCOUNT);
	if (!pageable)
		return -ENOMEM;
	if (down_read_killable(&va_space->lock)) {
		bitmap_free(pageable);
		return -EINTR;
	}
	for (i = 0; i < npages; i++)
		if (!uvm_va_range_find(va_space, start + (i << PAGE_SHIFT)))
			__set_bit(i, pageable);
	up_read(&va_space->lock);
	for_each_set_bitrange(i, end, pageable, npages) {
		ret = uvm_hmm_page_states(va_space, start + (i << PAGE_SHIFT), end - i,
					  &states[i]);
		if (ret)
			break;
	}
	bitmap_free(pageable);
	return ret;
}

static int uvm_test_residency(struct uvm_va_space *va_space, void *data)
{
	struct uvm_test_residency *args = data;
	struct uvm_test_page_state_sizes *sizes = NULL;
	struct uvm_test_page_state *states;
	u64 npages, i;
	int ret;

	if ((args->flags & ~UVM_TEST_RESIDENCY_FLAGS) || args->pad)
		return -EINVAL;
	if ((args->flags & UVM_TEST_RESIDENCY_PAGEABLE) &&
	    !(uvm_hmm_caps() & UVM_CAP_HMM_MIRROR))
		return -EOPNOTSUPP;
	if (!PAGE_ALIGNED(args->address) || !PAGE_ALIGNED(args->length) ||
	    !args->length || args->address + args->length < args->address)
		return -EINVAL;
	npages = args->length >> PAGE_SHIFT;
	if (npages > UVM_TEST_RESIDENCY_MAX_PAGES)
		return -E2BIG;

	states = kvcalloc(npages, sizeof(*states), GFP_KERNEL_ACCOUNT);
	if (!states)
		return -ENOMEM;
	if (args->flags & UVM_TEST_RESIDENCY_PTE_SIZES) {
		sizes = kvcalloc(npages, sizeof(*sizes), GFP_KERNEL_ACCOUNT);
		if (!sizes) {
			kvfree(states);
			return -ENOMEM;
		}
	}
	ret = uvm_va_space_residency(va_space, args->address, npages, states, sizes);
	if (!ret && (args->flags & UVM_TEST_RESIDENCY_PAGEABLE))
		ret = uvm_test_residency_pageable(va_space, args->address, npages,
						  states);
	if (!ret && sizes) {
		/* Pageable memory is mapped with 4 KiB PTEs only. */
		for (i = 0; i < npages; i++)
			sizes[i].state = states[i];
		if (copy_to_user(u64_to_user_ptr(args->states_ptr), sizes,
				 npages * sizeof(*sizes)))
			ret = -EFAULT;
	} else if (!ret && copy_to_user(u64_to_user_ptr(args->states_ptr), states,
					npages * sizeof(*states))) {
		ret = -EFAULT;
	}
	kvfree(sizes);
	kvfree(states);
	return ret;
}

/**
 * struct uvm_test_gate_job - a closed gate in the queue
 * @job:	the queue's part; weight 1
 * @ticket:	the gate's number: open once the VA space's opened count
 *		reaches it
 * @hold_lock:	holds the VA space lock for reading while closed
 */
struct uvm_test_gate_job {
	struct uvm_job job;
	u64 ticket;
	bool hold_lock;
};

/* How often a closed gate looks whether its job must stop. */
#define UVM_TEST_GATE_POLL	(HZ / 20)

static int uvm_test_gate_run(struct uvm_va_space *va_space, struct uvm_job *j)
{
	struct uvm_test_gate_job *gate = container_of(j, struct uvm_test_gate_job, job);
	atomic64_t *opened = &va_space->test_gates_opened;
	int ret = 0;

	/* on purpose: no yield to writers, the case fault servicing must survive */
	if (gate->hold_lock) {
		down_read(&va_space->lock);
		/* the CLOSE ioctl returns now; gates run in order */
		atomic64_inc(&va_space->test_gates_locked);
		wake_up_all(&va_space->queue.wait);
	}
	while (atomic64_read(opened) < gate->ticket) {
		ret = uvm_queue_should_stop(&va_space->queue);
		if (ret)
			break;
		/*
		 * Woken by OPEN and by the queue's cancellation; the owner's
		 * exit is seen at the next poll.
		 */
		wait_event_timeout(va_space->queue.wait,
				   atomic64_read(opened) >= gate->ticket ||
				   READ_ONCE(va_space->queue.cancelled),
				   UVM_TEST_GATE_POLL);
	}
	if (gate->hold_lock)
		up_read(&va_space->lock);
	return ret;
}

static void uvm_test_gate_free(struct uvm_job *j)
{
	kfree(container_of(j, struct uvm_test_gate_job, job));
}

static const struct uvm_job_ops uvm_test_gate_ops = {
	.run = uvm_test_gate_run,
	.free = uvm_test_gate_free,
};

static int uvm_test_queue_gate(struct uvm_va_space *va_space, void *data)
{
	struct uvm_test_queue_gate *args = data;
	struct uvm_test_gate_job *gate;
	u64 locking = 0;
	int ret;

	if ((args->flags & ~UVM_TEST_GATE_HOLD_LOCK) ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved)))
		return -EINVAL;
	if (args->op == UVM_TEST_GATE_OPEN) {
		if (args->flags)
			return -EINVAL;
		atomic64_set(&va_space->test_gates_opened,
			     atomic64_read(&va_space->test_gates_closed));
		wake_up_all(&va_space->queue.wait);
		return 0;
	}
	if (args->op != UVM_TEST_GATE_CLOSE)
		return -EINVAL;
	gate = kzalloc(sizeof(*gate), GFP_KERNEL_ACCOUNT);
	if (!gate)
		return -ENOMEM;
	gate->job.ops = &uvm_test_gate_ops;
	gate->job.weight = 1;
	gate->hold_lock = args->flags & UVM_TEST_GATE_HOLD_LOCK;
	gate->ticket = atomic64_inc_return(&va_space->test_gates_closed);
	if (gate->hold_lock)
		locking = atomic64_inc_return(&va_space->test_gates_locking);
	ret = uvm_queue_submit(&va_space->queue, &gate->job, false, &args->fence);
	if (ret || !locking)
		return ret;
	/*
	 * Killable: jobs queued before the gate run first, as long as they
	 * take.  The gate may be gone already: only the counters are read.
	 */
	return wait_event_killable(va_space->queue.wait,
				   atomic64_read(&va_space->test_gates_locked) >= locking);
}

static const struct uvm_ioctl_desc uvm_test_ioctls[] = {
	UVM_IOCTL(UVM_TEST_IOC_LAUNCH, uvm_test_launch, UVM_IOCTL_COPYOUT_ON_ERROR),
	UVM_IOCTL(UVM_TEST_IOC_RESIDENCY, uvm_test_residency, 0),
	UVM_IOCTL(UVM_TEST_IOC_QUEUE_GATE, uvm_test_queue_gate, 0),
};

/**
 * uvm_test_ioctl_check() - verify the test table at load
 *
 * Return: 0 or -EINVAL.
 */
int uvm_test_ioctl_check(void)
{
	return uvm_ioctl_table_check(uvm_test_ioctls, ARRAY_SIZE(uvm_test_ioctls),
				     UVM_TEST_IOC_BASE);
}

/**
 * uvm_test_ioctl() - dispatch a test ioctl
 * @va_space:	the VA space of the file
 * @cmd:	the command, number UVM_TEST_IOC_BASE or above
 * @arg:	user pointer to the arguments
 *
 * Return: see uvm_ioctl_dispatch().
 */
long uvm_test_ioctl(struct uvm_va_space *va_space, unsigned int cmd,
		    unsigned long arg)
{
	return uvm_ioctl_dispatch(uvm_test_ioctls, ARRAY_SIZE(uvm_test_ioctls),
				  UVM_TEST_IOC_BASE, va_space, cmd, arg);
}
