// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * simgpu_launch.c - UVM_TEST_IOC_LAUNCH on the simulated GPU (test builds).
 *
 * DOC: simulated GPU launch entry point
 *
 * simgpu_test_launch() is the body of the launch test ioctl once the core's
 * dispatcher has copied &struct uvm_test_launch in, checked its flags,
 * reserved fields and GPU index, and found the GPU VA space of the caller.
 * It:
 *
 *  1. checks num_warps and num_ops, copies the op array in and validates
 *     every op (-EINVAL for a malformed op, -E2BIG when the data buffers
 *     together exceed %UVM_TEST_MAX_DATA, -EFAULT for a bad user pointer),
 *     before anything runs;
 *  2. copies the data of WRITE ops in (and that of strided READ ops, so the
 *     bytes between accesses come back unchanged), all at once, so that a
 *     bad buffer fails the launch before it has any effect;
 *  3. runs the ops in order (simgpu_exec.c), stopping at the first that
 *     fails;
 *  4. copies the data and checksums of the READ ops that completed back to
 *     userspace, and fills the out fields of @args.
 *
 * Every allocation is bounded by the ABI limits and charged to the caller's
 * memory cgroup.  Return values: 0; -EREMOTEIO (fatal fault, report filled
 * in: the core copies @args out on this error too); -EINTR (fatal signal);
 * -ETIMEDOUT (``launch_timeout_s`` elapsed); -EINVAL, -E2BIG, -EFAULT,
 * -ENOMEM.
 *
 * Locking: none held here; the launch's own synchronisation is described in
 * simgpu_exec.c.  User memory is only touched with no lock held and no warp
 * running, so the buffers may themselves be managed memory.
 */
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "simgpu_internal.h"

/* Largest access of an op (uvm_test.h: access_size 1 .. 4096). */
#define SIMGPU_MAX_ACCESS_SIZE	4096

/**
 * simgpu_op_has_data() - does an op move bytes through a data buffer?
 * @op: the op
 *
 * Context: any.
 * Return: true for a READ or WRITE op with a data buffer.
 */
static bool simgpu_op_has_data(const struct uvm_test_gpu_op *op)
{
	return op->data_ptr && op->type != UVM_TEST_OP_ATOMIC_ADD;
}

/**
 * simgpu_op_data_size() - bytes an op takes in the kernel data buffer
 * @op: a validated op
 *
 * Each op's data starts 8-byte aligned in the kernel buffer.
 *
 * Context: any.
 * Return: the aligned size, 0 for an op without data.
 */
static u64 simgpu_op_data_size(const struct uvm_test_gpu_op *op)
{
	return simgpu_op_has_data(op) ? ALIGN(op->length, sizeof(u64)) : 0;
}

/**
 * simgpu_op_check() - validate the fields of one op
 * @op: the op, copied in
 *
 * Context: any.
 * Return: 0 or -EINVAL.
 */
static int simgpu_op_check(const struct uvm_test_gpu_op *op)
{
	bool words;

	if (op->type < UVM_TEST_OP_READ || op->type > UVM_TEST_OP_ATOMIC_ADD)
		return -EINVAL;
	if (op->order != UVM_TEST_ORDER_SEQUENTIAL &&
	    op->order != UVM_TEST_ORDER_RANDOM)
		return -EINVAL;
	if (op->reserved[0] || op->reserved[1])
		return -EINVAL;
	if (!op->length || op->length > U64_MAX - op->address)
		return -EINVAL;
	if (!op->access_size || op->access_size > SIMGPU_MAX_ACCESS_SIZE ||
	    (op->stride && op->stride < op->access_size))
		return -EINVAL;
	if (op->type == UVM_TEST_OP_ATOMIC_ADD && op->data_ptr)
		return -EINVAL;
	/* Pattern writes, checksum-only reads and atomics work on words. */
	words = !op->data_ptr || op->type == UVM_TEST_OP_ATOMIC_ADD;
	if (words && (op->address | op->length | op->stride | op->access_size) &
	    (sizeof(u64) - 1))
		return -EINVAL;
	return 0;
}

/**
 * simgpu_ops_check() - validate a whole program
 * @ops: the ops, copied in
 * @num_ops: number of @ops
 * @data_size: set to the size of the kernel data buffer the program needs
 *
 * Errors are reported for the first bad op, in program order.
 *
 * Context: process (access_ok()).
 * Return: 0; -EINVAL for a malformed op; -E2BIG when the data buffers
 * together exceed %UVM_TEST_MAX_DATA bytes; -EFAULT for a data buffer that is
 * not a user address range.
 */
static int simgpu_ops_check(const struct uvm_test_gpu_op *ops, u32 num_ops,
			    u64 *data_size)
{
	u64 total = 0, aligned = 0;
	u32 i;
	int ret;

	for (i = 0; i < num_ops; i++) {
		ret = simgpu_op_check(&ops[i]);
		if (ret)
			return ret;
		if (!simgpu_op_has_data(&ops[i]))
			continue;
		if (ops[i].length > UVM_TEST_MAX_DATA - total)
			return -E2BIG;
		total += ops[i].length;
		aligned += simgpu_op_data_size(&ops[i]);
		if (!access_ok(u64_to_user_ptr(ops[i].data_ptr), ops[i].length))
			return -EFAULT;
	}
	*data_size = aligned;
	return 0;
}

/**
 * simgpu_ops_get() - copy in and validate the program of a launch
 * @args: the launch arguments
 * @data_size: set to the size of the kernel data buffer the program needs
 *
 * Context: process, may sleep.
 * Return: the ops (kvfree() them), or an ERR_PTR: -EINVAL, -E2BIG, -EFAULT,
 * -ENOMEM.
 */
static struct uvm_test_gpu_op *simgpu_ops_get(const struct uvm_test_launch *args,
					      u64 *data_size)
{
	struct uvm_test_gpu_op *ops;
	int ret;

	if (!args->num_warps || args->num_warps > UVM_TEST_MAX_WARPS ||
	    !args->num_ops || args->num_ops > UVM_TEST_MAX_OPS)
		return ERR_PTR(-EINVAL);

	ops = kvmalloc_array(args->num_ops, sizeof(*ops), GFP_KERNEL_ACCOUNT);
	if (!ops)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(ops, u64_to_user_ptr(args->ops_ptr),
			   array_size(args->num_ops, sizeof(*ops)))) {
		ret = -EFAULT;
		goto err_free_ops;
	}
	ret = simgpu_ops_check(ops, args->num_ops, data_size);
	if (ret)
		goto err_free_ops;
	return ops;

err_free_ops:
	kvfree(ops);
	return ERR_PTR(ret);
}

/**
 * simgpu_data_copy_in() - copy the input data of a program in
 * @ops: validated ops
 * @num_ops: number of @ops
 * @data: kernel data buffer, laid out as simgpu_op_data_size() says
 *
 * WRITE data is the source of the op.  A READ whose accesses leave gaps
 * (stride > access_size) gets its buffer copied in too, so that the gap
 * bytes are copied back unchanged.
 *
 * Context: process, may sleep; no lock held.
 * Return: 0 or -EFAULT.
 */
static int simgpu_data_copy_in(const struct uvm_test_gpu_op *ops, u32 num_ops,
			       u8 *data)
{
	const struct uvm_test_gpu_op *op;
	u32 i;

	for (i = 0; i < num_ops; i++) {
		op = &ops[i];
		if (!simgpu_op_has_data(op))
			continue;
		if ((op->type == UVM_TEST_OP_WRITE ||
		     op->stride > op->access_size) &&
		    copy_from_user(data, u64_to_user_ptr(op->data_ptr),
				   op->length))
			return -EFAULT;
		data += simgpu_op_data_size(op);
	}
	return 0;
}

/**
 * simgpu_data_copy_out() - copy the results of completed READ ops out
 * @args: the launch arguments
 * @ops: validated ops, with their checksums
 * @done: number of ops that completed
 * @data: kernel data buffer
 *
 * Context: process, may sleep; no lock held.
 * Return: 0 or -EFAULT.
 */
static int simgpu_data_copy_out(const struct uvm_test_launch *args,
				const struct uvm_test_gpu_op *ops, u32 done,
				const u8 *data)
{
	struct uvm_test_gpu_op __user *uops = u64_to_user_ptr(args->ops_ptr);
	const struct uvm_test_gpu_op *op;
	u32 i;

	for (i = 0; i < done; i++) {
		op = &ops[i];
		if (op->type == UVM_TEST_OP_READ &&
		    (put_user(op->checksum, &uops[i].checksum) ||
		     (op->data_ptr &&
		      copy_to_user(u64_to_user_ptr(op->data_ptr), data,
				   op->length))))
			return -EFAULT;
		data += simgpu_op_data_size(op);
	}
	return 0;
}

/**
 * simgpu_launch_report() - fill the out fields of the launch arguments
 * @args: the launch arguments
 * @launch: the finished launch
 * @ret: its result
 *
 * Context: any.
 */
static void simgpu_launch_report(struct uvm_test_launch *args,
				 struct simgpu_launch *launch, int ret)
{
	args->faults_raised = atomic64_read(&launch->faults_raised);
	if (ret != -EREMOTEIO)
		return;
	args->fault_address = launch->fault_va;
	args->fault_op = launch->fault_op;
	switch (launch->fault_access) {
	case UVM_FAULT_ACCESS_WRITE:
		args->fault_access = UVM_TEST_OP_WRITE;
		break;
	case UVM_FAULT_ACCESS_ATOMIC:
		args->fault_access = UVM_TEST_OP_ATOMIC_ADD;
		break;
	default:
		args->fault_access = UVM_TEST_OP_READ;
		break;
	}
}

/**
 * simgpu_launch_execute() - run a validated program
 * @gvs: the GPU VA space
 * @args: the launch arguments; out fields filled
 * @ops: validated ops; checksums filled
 * @data: kernel data buffer, inputs copied in
 * @done: set to the number of ops that completed
 *
 * Context: process, may sleep; no lock held.
 * Return: as simgpu_test_launch(), before the copy out.
 */
static int simgpu_launch_execute(struct uvm_gpu_va_space *gvs,
				 struct uvm_test_launch *args,
				 struct uvm_test_gpu_op *ops, u8 *data,
				 u32 *done)
{
	unsigned long deadline = jiffies +
				 (unsigned long)simgpu_launch_timeout_s * HZ;
	struct simgpu_launch *launch;
	u32 i;
	int ret = 0;

	launch = kvzalloc(struct_size(launch, warps, args->num_warps),
			  GFP_KERNEL_ACCOUNT);
	if (!launch)
		return -ENOMEM;
	simgpu_launch_init(launch, uvm_gpu_hw(gvs->gpu), gvs->hw,
			   args->num_warps);

	for (i = 0; i < args->num_ops; i++) {
		ret = simgpu_launch_run_op(launch, &ops[i], i,
					   simgpu_op_has_data(&ops[i]) ? data : NULL,
					   deadline, &ops[i].checksum);
		if (ret)
			break;
		data += simgpu_op_data_size(&ops[i]);
	}
	*done = i;
	simgpu_launch_report(args, launch, ret);
	kvfree(launch);
	return ret;
}

/**
 * simgpu_test_launch() - UVM_TEST_IOC_LAUNCH: run an access program
 * @gvs: the caller's GPU VA space on the launch's GPU
 * @args: launch arguments, copied in and checked by the core (flags,
 *	reserved, gpu_index); the out fields are filled here
 *
 * See the DOC: block of this file and Documentation/simgpu.rst.
 *
 * Context: process (the ioctl caller), may sleep; no lock held.
 * Return: 0; -EREMOTEIO (fatal fault, report filled in); -EINTR (fatal
 * signal); -ETIMEDOUT (launch timeout); -EINVAL (bad num_warps, num_ops or
 * op); -E2BIG (data buffers larger than %UVM_TEST_MAX_DATA); -EFAULT (bad
 * user pointer); -ENOMEM.
 */
int simgpu_test_launch(struct uvm_gpu_va_space *gvs,
		       struct uvm_test_launch *args)
{
	struct uvm_test_gpu_op *ops;
	u8 *data = NULL;
	u32 done = 0;
	u64 data_size = 0;
	int ret, ret_copy;

	args->fault_address = 0;
	args->fault_access = 0;
	args->fault_op = 0;
	args->faults_raised = 0;
	if (WARN_ON_ONCE(!gvs->hw))
		return -ENODEV;

	ops = simgpu_ops_get(args, &data_size);
	if (IS_ERR(ops))
		return PTR_ERR(ops);
	if (data_size) {
		data = kvmalloc(data_size, GFP_KERNEL_ACCOUNT);
		if (!data) {
			ret = -ENOMEM;
			goto err_free_ops;
		}
	}
	ret = simgpu_data_copy_in(ops, args->num_ops, data);
	if (ret)
		goto err_free_data;

	ret = simgpu_launch_execute(gvs, args, ops, data, &done);
	ret_copy = simgpu_data_copy_out(args, ops, done, data);
	if (!ret)
		ret = ret_copy;

err_free_data:
	kvfree(data);
err_free_ops:
	kvfree(ops);
	return ret;
}
