// SPDX-License-Identifier: MIT
/*
 * device.h - the devices domain: initialisation, fork, the GPUs the driver
 * reports and what the driver can do (device.cpp).
 *
 * Locking: DeviceState::mu serialises cuInit() and nothing else.  It is the
 * first lock of the order (common.h): cuInit() takes ContextRegistry::mu
 * under it to make the primary contexts.  Everything here is written once,
 * before `initialized` is published (release), and read without a lock
 * after check_init() saw it (acquire).
 */
#ifndef LIBUVM_DEVICE_H
#define LIBUVM_DEVICE_H

#include <atomic>
#include <mutex>
#include <vector>

#include "common.h"

namespace uvm {

/* The attribute numbers cuDeviceGetAttribute knows (CUDA 13.0: 1 .. 147). */
constexpr int kLastDeviceAttribute = 147;

/**
 * struct DeviceState - the process's devices
 * @mu:			serialises cuInit(); see Locking above
 * @initialized:	cuInit() succeeded
 * @forked:		we are a fork() child: everything answers NOT_INITIALIZED
 * @num_devices:	GPUs of the driver (written once under @mu)
 * @numa_nodes:		host NUMA nodes with memory (written once under @mu)
 *
 * The descriptor itself is driver() (common.h).
 */
struct DeviceState {
	std::mutex mu;
	std::atomic<bool> initialized{false};
	std::atomic<bool> forked{false};
	int num_devices = 0;
	std::vector<int> numa_nodes;
};
DeviceState &dev_state();

bool valid_device(int dev);
bool valid_numa_node(int node);

/* May a GPU use ordinary (pageable) process memory, as CUDA's
 * PAGEABLE_MEMORY_ACCESS says? */
bool pageable_memory_access();
/* Does the driver have device memory, host registration, copies and sets
 * (API 1.2)? */
bool driver_has_memory_api();
/* Does the driver copy and set 2D and 3D boxes (UVM_CAP_COPY_3D, API 1.4)? */
bool driver_has_copy_3d();
/* Does the driver have the MEM_* ioctls of virtual memory management
 * (UVM_CAP_VMM)? */
bool driver_has_vmm();

} // namespace uvm

#endif /* LIBUVM_DEVICE_H */
