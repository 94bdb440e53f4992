// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Bring-up of a GPU: what the core sets up for each GPU a backend registers.
 *
 * DOC: GPU bring-up
 *
 * uvm_gpu_register() and uvm_gpu_unregister() are the backend's entry
 * points (declared in uvm_hal.h).  They sit above every part of the core
 * that keeps per-GPU state: the GPU table (uvm_gpu.c), fault servicing
 * (uvm_fault.c) and access counters (uvm_access_counters.c), so that none
 * of those calls another to set itself up.  A GPU enters the table only
 * once all of them are ready, and leaves it after all are torn down.
 *
 * Locking: none; registration runs at module load and exit, while nothing
 * else runs.
 */
#include <linux/err.h>

#include "uvm_access_counters.h"
#include "uvm_fault.h"
#include "uvm_gpu.h"

/**
 * uvm_gpu_register() - make a GPU known to the core
 * @ops:	backend operations, must stay valid until uvm_gpu_unregister()
 * @hw:		backend private data, returned by uvm_gpu_hw()
 * @props:	properties; copied
 *
 * Context: module init, process context.
 * Return: the GPU, or ERR_PTR(-ENOSPC) when the table is full,
 * ERR_PTR(-EINVAL) for bad properties, ERR_PTR(-ENOMEM).
 */
struct uvm_gpu *uvm_gpu_register(const struct uvm_gpu_ops *ops, void *hw,
				 const struct uvm_gpu_props *props)
{
	struct uvm_gpu *gpu;
	int ret;

	gpu = uvm_gpu_alloc(ops, hw, props);
	if (IS_ERR(gpu))
		return gpu;
	ret = uvm_fault_gpu_init(gpu);
	if (ret) {
		uvm_gpu_free(gpu);
		return ERR_PTR(ret);
	}
	uvm_access_counters_gpu_init(gpu);
	uvm_gpu_add(gpu);
	return gpu;
}

/**
 * uvm_gpu_unregister() - forget a GPU registered last
 * @gpu:	the GPU
 *
 * GPUs are unregistered in reverse order of registration, at module exit,
 * when no VA space exists any more.
 *
 * Context: module exit, process context.
 */
void uvm_gpu_unregister(struct uvm_gpu *gpu)
{
	uvm_access_counters_gpu_deinit(gpu);
	uvm_fault_gpu_deinit(gpu);
	uvm_gpu_remove(gpu);
}
