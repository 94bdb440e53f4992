/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A GPU as the driver core sees it.
 */
#ifndef _UVM_GPU_H_
#define _UVM_GPU_H_

#include <linux/atomic.h>
#include <linux/nospec.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "uvm.h"
#include "uvm_hal.h"
#include "uvm_pmm.h"

struct device;
struct uvm_fault_service;

/* Per-GPU counters, shown in sysfs. */
enum uvm_gpu_counter {
	UVM_GPU_FAULTS,
	UVM_GPU_FAULTS_DUP,
	UVM_GPU_FAULT_BATCHES,
	UVM_GPU_REPLAYS,
	UVM_GPU_FATAL_FAULTS,
	UVM_GPU_FAULT_OVERFLOWS,
	UVM_GPU_PAGES_IN,	/* pages copied into this GPU's vidmem */
	UVM_GPU_PAGES_OUT,	/* pages copied out of this GPU's vidmem */
	UVM_GPU_EVICTIONS,	/* chunks evicted to make room */
	UVM_GPU_FAULTS_FLUSHED,	/* fault entries dropped by a buffer flush */
	UVM_GPU_FETCH_NS,	/* time in the servicing stages, ns */
	UVM_GPU_COALESCE_NS,
	UVM_GPU_SERVICE_NS,
	UVM_GPU_REPLAY_NS,
	UVM_GPU_ACCESS_NOTIFICATIONS,	/* access-counter notifications */
	UVM_GPU_MAPS_2M,	/* 2 MiB PTEs written for managed memory */
	UVM_GPU_MAPS_64K,	/* 64 KiB PTEs written for managed memory */
	UVM_GPU_SPLITS,		/* big PTEs split into smaller ones */
	UVM_GPU_FAULT_BATCHES_PARALLEL,	/* batches spread over several workers */
	UVM_GPU_FAULT_GROUPS_HELPED,	/* fault groups serviced by helpers */
	UVM_GPU_FAULT_GROUPS_DEFERRED,	/* handed to their VA space's own work */
	UVM_GPU_COUNTER_COUNT,
};

/**
 * struct uvm_gpu - one GPU registered by a backend
 * @index:	position in the GPU table; the processor id is @index + 1
 * @ops:	the backend's operations
 * @hw:		backend private data
 * @props:	what the backend told us (name points to @name)
 * @name:	copy of the marketing name
 * @pmm:	vidmem chunks, usage and eviction order
 * @instances:	instance id -> struct uvm_gpu_va_space, for fault servicing;
 *		xarray lock; readers use RCU
 * @instance_next: cyclic allocation cursor of @instances; xarray lock
 * @fault_wq:	ordered workqueue running @fault_work
 * @fault_work:	replayable fault servicing
 * @fault:	servicing state (batch buffers), used only by @fault_work
 *		and the helpers it waits for
 * @access_work: access-counter notifications, on @fault_wq
 * @counters:	enum uvm_gpu_counter values
 * @dev:	the device /sys/class/misc/uvm/gpuN while shown, else NULL
 */
struct uvm_gpu {
	u32 index;
	const struct uvm_gpu_ops *ops;
	void *hw;
	struct uvm_gpu_props props;
	char name[64];
	struct uvm_pmm pmm;
	struct xarray instances;
	u32 instance_next;
	struct workqueue_struct *fault_wq;
	struct work_struct fault_work;
	struct uvm_fault_service *fault;
	struct work_struct access_work;
	atomic64_t counters[UVM_GPU_COUNTER_COUNT];
	struct device *dev;
};

/* The table of registered GPUs, filled at module load. */
extern struct uvm_gpu *uvm_gpus[UVM_MAX_GPUS];
extern u32 uvm_gpu_count;

/* The GPU of a user-supplied index, or NULL; no speculation past the bound. */
static inline struct uvm_gpu *uvm_gpu_get(u32 index)
{
	if (index >= uvm_gpu_count)
		return NULL;
	return uvm_gpus[array_index_nospec(index, uvm_gpu_count)];
}

static inline u32 uvm_gpu_processor(const struct uvm_gpu *gpu)
{
	return UVM_PROCESSOR_GPU(gpu->index);
}

static inline void uvm_gpu_count_event(struct uvm_gpu *gpu,
				       enum uvm_gpu_counter c, u64 n)
{
	atomic64_add(n, &gpu->counters[c]);
}

int uvm_gpu_sysfs_add_all(struct device *parent);
void uvm_gpu_sysfs_remove_all(void);
struct uvm_gpu *uvm_gpu_alloc(const struct uvm_gpu_ops *ops, void *hw,
			      const struct uvm_gpu_props *props);
void uvm_gpu_add(struct uvm_gpu *gpu);
void uvm_gpu_remove(struct uvm_gpu *gpu);
void uvm_gpu_free(struct uvm_gpu *gpu);

#endif /* _UVM_GPU_H_ */
