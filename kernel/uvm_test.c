// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Test and simulation ioctls (uvm_test.h).
 *
 * DOC: Test ioctls
 *
 * Built only with CONFIG_UVM_TEST.  Two commands, dispatched from their own
 * table (numbers 0x80 and up), never from the production one:
 *
 * - UVM_TEST_IOC_LAUNCH runs an access program on a simulated GPU in the
 *   caller's VA space (the simulated backend does the work, see
 *   simgpu/simgpu_launch.c);
 * - UVM_TEST_IOC_RESIDENCY reports, per page, where a page is resident and
 *   which processors map it with which permission.
 *
 * Locking: RESIDENCY takes the VA space lock for read and each block's lock
 * in turn, and copies to userspace after dropping them.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "simgpu/simgpu.h"
#include "uvm_gpu.h"
#include "uvm_ioctl.h"
#include "uvm_test.h"
#include "uvm_va_block.h"
#include "uvm_va_space.h"

static_assert(sizeof(struct uvm_test_gpu_op) == 80);
static_assert(sizeof(struct uvm_test_launch) == 80);
static_assert(sizeof(struct uvm_test_page_state) == 32);
static_assert(sizeof(struct uvm_test_residency) == 32);

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
 * uvm_test_residency_fill() - gather the state of a range of pages
 * @va_space:	the VA space
 * @start:	first page address
 * @npages:	pages
 * @states:	out, @npages entries, zeroed by the caller
 *
 * Return: 0 or -EINTR.
 */
static int uvm_test_residency_fill(struct uvm_va_space *va_space, u64 start,
				   u64 npages, struct uvm_test_page_state *states)
{
	u64 addr = start, end = start + (npages << PAGE_SHIFT);
	struct uvm_va_block *block;
	u32 page;

	if (down_read_killable(&va_space->lock))
		return -EINTR;
	while (addr < end) {
		/* The next block boundary, or end when that would wrap. */
		u64 block_end = (addr | (UVM_VA_BLOCK_SIZE - 1)) + 1;

		if (!block_end || block_end > end)
			block_end = end;
		block = uvm_va_block_lookup(va_space, addr);
		if (block) {
			mutex_lock(&block->lock);
			for (; addr < block_end; addr += PAGE_SIZE) {
				page = uvm_va_block_page_index(block, addr);
				uvm_va_block_page_state(block, page,
							&states[(addr - start) >> PAGE_SHIFT]);
			}
			mutex_unlock(&block->lock);
		}
		addr = block_end;
	}
	up_read(&va_space->lock);
	return 0;
}

static int uvm_test_residency(struct uvm_va_space *va_space, void *data)
{
	struct uvm_test_residency *args = data;
	struct uvm_test_page_state *states;
	u64 npages;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	if (!PAGE_ALIGNED(args->address) || !PAGE_ALIGNED(args->length) ||
	    !args->length || args->address + args->length < args->address)
		return -EINVAL;
	npages = args->length >> PAGE_SHIFT;
	if (npages > UVM_TEST_RESIDENCY_MAX_PAGES)
		return -E2BIG;

	states = kvcalloc(npages, sizeof(*states), GFP_KERNEL_ACCOUNT);
	if (!states)
		return -ENOMEM;
	ret = uvm_test_residency_fill(va_space, args->address, npages, states);
	if (!ret && copy_to_user(u64_to_user_ptr(args->states_ptr), states,
				 npages * sizeof(*states)))
		ret = -EFAULT;
	kvfree(states);
	return ret;
}

static const struct uvm_ioctl_desc uvm_test_ioctls[] = {
	UVM_IOCTL(UVM_TEST_IOC_LAUNCH, uvm_test_launch, UVM_IOCTL_COPYOUT_ON_ERROR),
	UVM_IOCTL(UVM_TEST_IOC_RESIDENCY, uvm_test_residency, 0),
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
