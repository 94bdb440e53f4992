/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * simgpu.h - what the driver core sees of the simulated GPU backend.
 *
 * DOC: simulated GPU, public interface
 *
 * The simulated GPU (simgpu/) is the built-in backend behind &struct
 * uvm_gpu_ops.  The core knows only these entry points:
 *
 *  - simgpu_init() and simgpu_exit(), called from module init and exit:
 *    they create and register, then unregister and free, the simulated GPUs;
 *  - simgpu_test_launch(), the body of UVM_TEST_IOC_LAUNCH (test builds
 *    only): run an access program on one GPU in one VA space;
 *  - simgpu_stats_get(), counters of one simulated GPU for sysfs/debugfs.
 *
 * Everything else goes through the ops table.  The internals live in
 * simgpu_internal.h, which the core never includes.
 *
 * Locking: none of these take a core lock.  simgpu_init() and simgpu_exit()
 * run single-threaded (module init/exit); simgpu_test_launch() and
 * simgpu_stats_get() may run concurrently from any number of threads.
 */
#ifndef _UVM_SIMGPU_H_
#define _UVM_SIMGPU_H_

#include <linux/types.h>

struct uvm_gpu;
struct uvm_gpu_va_space;
struct uvm_test_launch;

/**
 * struct simgpu_stats - counters of one simulated GPU since load
 * @faults_written:	fault entries written into the fault buffer
 * @faults_dropped:	fault entries dropped because the buffer was full
 * @replays:		fault_replay() calls
 * @cancels:		fault_cancel() calls
 * @warps_cancelled:	stalled warps ended by fault_cancel()
 * @tlb_invalidates:	tlb_invalidate() calls
 * @ce_ops:		copy-engine operations executed
 * @ce_bytes_copied:	bytes written by COPY operations
 * @ce_bytes_set:	bytes written by MEMSET operations
 * @ce_inline:		copy-engine submissions executed inline
 * @launches:		launches started on this GPU
 * @vidmem_size:	bytes of vidmem
 * @vidmem_used:	bytes of vidmem allocated now
 * @vidmem_backed:	bytes of host memory backing vidmem now
 */
struct simgpu_stats {
	u64 faults_written;
	u64 faults_dropped;
	u64 replays;
	u64 cancels;
	u64 warps_cancelled;
	u64 tlb_invalidates;
	u64 ce_ops;
	u64 ce_bytes_copied;
	u64 ce_bytes_set;
	u64 ce_inline;
	u64 launches;
	u64 vidmem_size;
	u64 vidmem_used;
	u64 vidmem_backed;
};

int simgpu_init(void);
void simgpu_exit(void);
void simgpu_stats_get(struct uvm_gpu *gpu, struct simgpu_stats *stats);

#ifdef CONFIG_UVM_TEST
int simgpu_test_launch(struct uvm_gpu_va_space *gvs,
		       struct uvm_test_launch *args);
#endif

#endif /* _UVM_SIMGPU_H_ */
